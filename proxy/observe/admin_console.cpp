#include "proxy/observe/admin_console.hpp"

#include "common/utc_time.hpp"
#include "config/config_entries.hpp"

namespace pgrange::proxy {

namespace {

using routing::ResultSet;
namespace oid = routing::type_oid;

std::string num(int64_t v) {
  return std::to_string(v);
}
std::optional<std::string> text_or_null(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional<std::string>(s);
}
std::string yes(bool b) {
  return b ? "t" : "f";
}

void finish(ResultSet& rs) {
  rs.tag = "SHOW";
}

}  // namespace

ResultSet show_pools(const ProxySnapshot& snap, const config::Config& cfg) {
  ResultSet rs;
  rs.columns = {{"database", oid::kText},   {"user", oid::kText},       {"shard", oid::kText},
                {"cl_active", oid::kInt8},  {"cl_waiting", oid::kInt8}, {"sv_active", oid::kInt8},
                {"sv_idle", oid::kInt8},    {"pool_size", oid::kInt8},  {"maxwait", oid::kInt8},
                {"maxwait_us", oid::kInt8}, {"pool_mode", oid::kText},  {"paused", oid::kBool}};
  std::string mode = cfg.pool_mode == config::PoolMode::kTransaction ? "transaction" : "session";
  for (const PoolRow& p : snap.pools) {
    // cl_active: clients holding one of its connections (one each: active connections).
    auto wait = p.maxwait.count();
    rs.rows.push_back({p.database, p.user, p.shard, num(p.sv_active), num(p.cl_waiting),
                       num(p.sv_active), num(p.sv_idle), num(p.pool_size), num(wait / 1000000),
                       num(wait % 1000000), mode, yes(p.paused)});
  }
  finish(rs);
  return rs;
}

ResultSet show_clients(const ProxySnapshot& snap) {
  ResultSet rs;
  rs.columns = {{"type", oid::kText},
                {"user", oid::kText},
                {"database", oid::kText},
                {"state", oid::kText},
                {"addr", oid::kText},
                {"port", oid::kInt8},
                {"local_addr", oid::kText},
                {"local_port", oid::kInt8},
                {"connect_time", oid::kTimestamptz},
                {"request_time", oid::kTimestamptz},
                {"wait", oid::kInt8},
                {"wait_us", oid::kInt8},
                {"pid", oid::kInt8},
                {"tls", oid::kBool},
                {"application_name", oid::kText},
                {"route", oid::kText},
                {"shard", oid::kText},
                {"worker", oid::kInt8}};
  for (const ClientRow& c : snap.clients) {
    auto running = c.running.count();
    rs.rows.push_back({"C", c.user, c.database, c.state, c.addr, num(c.port), c.local_addr,
                       num(c.local_port), utc_time_text(c.connect_time, UtcStyle::kPostgres),
                       utc_time_text(c.request_time, UtcStyle::kPostgres), num(running / 1000000),
                       num(running % 1000000), num(c.pid), yes(c.tls), c.application_name, c.route,
                       text_or_null(c.shard), num(c.worker)});
  }
  finish(rs);
  return rs;
}

ResultSet show_servers(const ProxySnapshot& snap) {
  ResultSet rs;
  rs.columns = {{"type", oid::kText},       {"user", oid::kText},
                {"database", oid::kText},   {"shard", oid::kText},
                {"state", oid::kText},      {"addr", oid::kText},
                {"port", oid::kInt8},       {"local_addr", oid::kText},
                {"local_port", oid::kInt8}, {"connect_time", oid::kTimestamptz},
                {"remote_pid", oid::kInt8}, {"tls", oid::kBool},
                {"worker", oid::kInt8}};
  for (const ServerRow& s : snap.servers) {
    rs.rows.push_back({"S", s.user, s.database, s.shard, s.state, s.addr, num(s.port), s.local_addr,
                       num(s.local_port), utc_time_text(s.connect_time, UtcStyle::kPostgres),
                       num(s.remote_pid), yes(s.tls), num(s.worker)});
  }
  finish(rs);
  return rs;
}

ResultSet show_stats(const StatsTotals& stats, const config::Config& cfg) {
  ResultSet rs;
  rs.columns = {{"database", oid::kText},
                {"shard", oid::kText},
                {"total_xact_count", oid::kInt8},
                {"total_query_count", oid::kInt8},
                {"total_query_time", oid::kInt8},
                {"total_wait_time", oid::kInt8},
                {"total_wait_count", oid::kInt8},
                {"total_errors", oid::kInt8},
                {"total_server_connects", oid::kInt8},
                {"total_server_connect_failures", oid::kInt8},
                {"avg_query_time", oid::kInt8}};
  // First what clients asked of pgrange (every route), then what each shard answered.
  uint64_t queries = 0, query_us = 0, errors = 0;
  for (size_t k = 0; k < kRouteKinds; ++k) {
    queries += stats.queries[k];
    query_us += stats.latency[k].sum_us;
  }
  for (const auto& [state, n] : stats.errors) errors += n;
  uint64_t timed = 0;
  for (const auto& h : stats.latency) timed += h.count;
  rs.rows.push_back({cfg.database, "*", num(static_cast<int64_t>(stats.transactions)),
                     num(static_cast<int64_t>(queries)), num(static_cast<int64_t>(query_us)),
                     std::nullopt, std::nullopt, num(static_cast<int64_t>(errors)), std::nullopt,
                     std::nullopt, num(timed ? static_cast<int64_t>(query_us / timed) : 0)});
  for (size_t i = 0; i < stats.shards.size() && i < cfg.shards.size(); ++i) {
    const StatsTotals::Shard& s = stats.shards[i];
    rs.rows.push_back(
        {cfg.shards[i].dbname, cfg.shards[i].name, num(static_cast<int64_t>(s.transactions)),
         num(static_cast<int64_t>(s.requests)), std::nullopt,
         num(static_cast<int64_t>(s.pool_wait_us)), num(static_cast<int64_t>(s.pool_waits)),
         num(static_cast<int64_t>(s.errors)), num(static_cast<int64_t>(s.connects)),
         num(static_cast<int64_t>(s.connect_failures)), std::nullopt});
  }
  finish(rs);
  return rs;
}

ResultSet show_config(const config::Config& cfg) {
  ResultSet rs;
  rs.columns = {{"key", oid::kText}, {"value", oid::kText}, {"changeable", oid::kBool}};
  for (const config::ConfigEntry& e : config::config_entries(cfg)) {
    rs.rows.push_back({e.key, e.value, yes(e.reloadable)});
  }
  finish(rs);
  return rs;
}

ResultSet show_version(const std::string& version) {
  ResultSet rs;
  rs.columns = {{"version", oid::kText}};
  rs.rows.push_back({"pgrange " + version});
  finish(rs);
  return rs;
}

}  // namespace pgrange::proxy
