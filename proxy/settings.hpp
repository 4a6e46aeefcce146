#pragma once

#include <memory>
#include <string>
#include <unordered_map>

#include "common/error.hpp"
#include "config/config.hpp"
#include "proxy/auth/scram.hpp"

namespace pgrange::proxy {

/// The settings RELOAD may change, as one value: a worker swaps in a new one whole, and each
/// session keeps the one it started with (so nothing it holds changes under it).
struct Settings {
  config::Config config;
  /// SCRAM verifiers of the configured users, derived once per load (PBKDF2 is slow on
  /// purpose: deriving per login would cost ~25,000 instructions × 4096 per connection).
  std::unordered_map<std::string, ScramVerifier> scram_verifiers;
  ScramVerifier unknown_user_verifier;
};

/// Settings made from a configuration: the users' SCRAM verifiers derived (an invalid
/// verifier is an error naming the user).
Result<std::shared_ptr<const Settings>> make_settings(config::Config config);

}  // namespace pgrange::proxy
