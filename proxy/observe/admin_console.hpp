#pragma once

#include <string>

#include "config/config.hpp"
#include "proxy/observe/proxy_snapshot.hpp"
#include "routing/merge/result_set.hpp"

namespace pgrange::proxy {

/// The console's answers (PgBouncer's SHOW POOLS, CLIENTS, SERVERS, STATS, CONFIG, VERSION),
/// with PgBouncer's column names where the meaning is the same, made from a snapshot of the
/// process. Pure: the session collects the snapshot.
routing::ResultSet show_pools(const ProxySnapshot& snap, const config::Config& cfg);
routing::ResultSet show_clients(const ProxySnapshot& snap);
routing::ResultSet show_servers(const ProxySnapshot& snap);
/// Per shard, and a row "*" for what clients asked (by route kind in /metrics).
routing::ResultSet show_stats(const StatsTotals& stats, const config::Config& cfg);
routing::ResultSet show_config(const config::Config& cfg);
routing::ResultSet show_version(const std::string& version);

}  // namespace pgrange::proxy
