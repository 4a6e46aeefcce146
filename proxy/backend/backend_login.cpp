#include "proxy/backend/backend_login.hpp"

namespace pgrange::proxy {

std::string BackendLogin::pool_key() const {
  std::string key = user;
  key.push_back('\0');
  key += password;
  if (scram) {
    key.push_back('\0');
    key += scram->verifier.to_string();
  }
  return key;
}

BackendLogin backend_login(const config::ShardConfig& shard, const config::UserConfig& user,
                           const std::optional<BackendLogin::ScramKeys>& scram) {
  BackendLogin login;
  if (!shard.user.empty()) {
    login.user = shard.user;
    login.password = shard.password;
  } else if (!user.server_user.empty()) {
    login.user = user.server_user;
    login.password = user.server_password;
  } else {
    login.user = user.name;
    if (user.password.rfind("SCRAM-SHA-256$", 0) == 0) {
      login.scram = scram;
    } else {
      login.password = user.password;
    }
  }
  return login;
}

}  // namespace pgrange::proxy
