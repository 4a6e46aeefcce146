#pragma once

#include <string>
#include <vector>

#include "config/config.hpp"

namespace pgrange::config {

/// One setting as SHOW CONFIG lists it.
struct ConfigEntry {
  std::string key;    ///< as written in the file ("pool_wait_timeout_ms", "shard.s1.pool_size")
  std::string value;  ///< its value as text (a secret's: "********")
  bool reloadable = false;  ///< RELOAD applies a change of it; others need a restart
  bool secret = false;      ///< never shown (passwords, keys)
  std::string raw;          ///< the value, secrets included (for comparing loads only)
};

/// Every setting of a configuration, in a stable order.
std::vector<ConfigEntry> config_entries(const Config& cfg);

/// What RELOAD cannot apply: the keys whose values differ between the two configurations (or
/// that only one has) among those only a restart changes. Shards added after the existing
/// ones are applied; a shard removed, or the shards' order changed, needs a restart.
std::vector<std::string> restart_only_changes(const Config& before, const Config& after);

/// The keys whose values differ (reloadable or not).
std::vector<std::string> changed_keys(const Config& before, const Config& after);

/// changed_keys for people: a user or shard added or removed is one entry ("user newcomer
/// added") rather than one per key. For RELOAD's answer and the log.
std::vector<std::string> describe_changes(const Config& before, const Config& after);

}  // namespace pgrange::config
