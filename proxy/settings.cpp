#include "proxy/settings.hpp"

#include <openssl/rand.h>

#include "proxy/backend/backend_tls.hpp"

namespace pgrange::proxy {

namespace {

std::string random_salt() {
  // A random salt per load: nothing derived from a password is predictable.
  std::string salt(16, '\0');
  RAND_bytes(reinterpret_cast<unsigned char*>(salt.data()), static_cast<int>(salt.size()));
  return salt;
}

}  // namespace

Result<std::shared_ptr<const Settings>> make_settings(config::Config config,
                                                      const Settings* previous) {
  auto settings = std::make_shared<Settings>();
  for (size_t i = 0; i < config.shards.size(); ++i) {
    if (previous != nullptr && i < previous->shards.size()) {
      settings->shards.push_back(previous->shards[i]);
      continue;
    }
    auto tls = shard_tls_context(config.shards[i]);
    if (!tls) return fail(tls.error());
    settings->shards.push_back(std::make_shared<ShardState>());
    settings->shards.back()->tls = std::move(*tls);
  }
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
