#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/error.hpp"
#include "config/config.hpp"
#include "proxy/asio.hpp"
#include "proxy/auth/scram.hpp"

namespace pgrange::proxy {

/// What pgrange keeps per shard beside its configuration, made when the shard first appears
/// (at start or by a RELOAD that adds it) and shared by every later load: pools point into it.
struct ShardState {
  /// The TLS context of pgrange's pooled connections to the shard (nullptr: sslmode disable
  /// or allow, no TLS).
  std::unique_ptr<asio::ssl::context> tls;
  /// PAUSEd: new transactions wait, released connections close, until RESUME.
  std::atomic<bool> paused{false};
  /// Held while RELOAD adds a shard: new transactions wait, connections stay open.
  std::atomic<bool> held{false};
};

/// The settings RELOAD may change, as one value: a worker swaps in a new one whole, and each
/// session keeps the one it started with (so nothing it holds changes under it).
struct Settings {
  config::Config config;
  /// SCRAM verifiers of the configured users, derived once per load (PBKDF2 is slow on
  /// purpose: deriving per login would cost ~25,000 instructions × 4096 per connection).
  std::unordered_map<std::string, ScramVerifier> scram_verifiers;
  ScramVerifier unknown_user_verifier;
  /// Per shard of config.shards, in its order.
  std::vector<std::shared_ptr<ShardState>> shards;
};

/// Settings made from a configuration: the users' SCRAM verifiers derived (an invalid
/// verifier is an error naming the user), the shards' state taken from `previous` for the
/// shards it has (the first ones: shards are only added at the end) and made for the others
/// (a TLS file that does not load is an error naming it).
Result<std::shared_ptr<const Settings>> make_settings(config::Config config,
                                                      const Settings* previous = nullptr);

}  // namespace pgrange::proxy
