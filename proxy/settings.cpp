#include "proxy/settings.hpp"

#include <openssl/rand.h>

namespace pgrange::proxy {

namespace {

std::string random_salt() {
  // A random salt per load: nothing derived from a password is predictable.
  std::string salt(16, '\0');
  RAND_bytes(reinterpret_cast<unsigned char*>(salt.data()), static_cast<int>(salt.size()));
  return salt;
}

}  // namespace

Result<std::shared_ptr<const Settings>> make_settings(config::Config config) {
  auto settings = std::make_shared<Settings>();
  for (const config::UserConfig& u : config.users) {
    if (u.auth != config::AuthMethod::kScramSha256) continue;
    if (u.password.rfind("SCRAM-SHA-256$", 0) == 0) {
      auto parsed = ScramVerifier::parse(u.password);
      if (!parsed) {
        return fail(sqlstate::kConfigFileError,
                    "user \"" + u.name + "\": invalid SCRAM-SHA-256 verifier");
      }
      settings->scram_verifiers[u.name] = *parsed;
    } else {
      settings->scram_verifiers[u.name] = ScramVerifier::from_password(u.password, random_salt());
    }
  }
  settings->unknown_user_verifier = ScramVerifier::from_password("", random_salt());
  settings->config = std::move(config);
  return std::shared_ptr<const Settings>(std::move(settings));
}

}  // namespace pgrange::proxy
