#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "config/config.hpp"
#include "proxy/auth/scram.hpp"

namespace pgrange::proxy {

/// The role a connection to a shard logs in as, and how it proves it.
struct BackendLogin {
  std::string user;
  /// The role's password in plaintext, or the "md5…" hash PostgreSQL stores (which answers md5
  /// requests only); "": none given (the shard trusts the role, or `scram` proves it).
  std::string password;
  /// A SCRAM-SHA-256 login without the password: the ClientKey recovered from the client's own
  /// SCRAM proof, and the verifier that proof was checked against (whose salt, iteration count
  /// and ServerKey the shard's own verifier of the role must share).
  struct ScramKeys {
    std::array<uint8_t, kScramKeyLen> client_key{};
    ScramVerifier verifier;
  };
  std::optional<ScramKeys> scram;

  /// Equal for logins that may share a pool: the same role proved the same way. Never logged.
  std::string pool_key() const;
};

/// How a client's connections to `shard` log in, as PgBouncer does it: the shard DSN's user=
/// (a forced user) for everybody; else the user entry's server_user and server_password; else
/// the client's own name, with the entry's password (plaintext or md5 hash) or, for a SCRAM
/// verifier, the keys of the client's SCRAM login (`scram`, when it logged in with SCRAM).
BackendLogin backend_login(const config::ShardConfig& shard, const config::UserConfig& user,
                           const std::optional<BackendLogin::ScramKeys>& scram);

}  // namespace pgrange::proxy
