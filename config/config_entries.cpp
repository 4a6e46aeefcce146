#include "config/config_entries.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace pgrange::config {

namespace {

std::string ms(std::chrono::milliseconds d) {
  return std::to_string(d.count());
}
std::string yes(bool b) {
  return b ? "true" : "false";
}

std::string auth_name(AuthMethod m) {
  switch (m) {
    case AuthMethod::kScramSha256:
      return "scram-sha-256";
    case AuthMethod::kMd5:
      return "md5";
    case AuthMethod::kTrust:
      return "trust";
    case AuthMethod::kCert:
      return "cert";
  }
  return "?";
}

class Entries {
 public:
  void add(std::string key, std::string value, bool reloadable, bool secret = false) {
    ConfigEntry e;
    e.key = std::move(key);
    e.raw = value;
    e.value = secret ? (value.empty() ? "" : "********") : std::move(value);
    e.reloadable = reloadable;
    e.secret = secret;
    out_.push_back(std::move(e));
  }
  std::vector<ConfigEntry> take() { return std::move(out_); }

 private:
  std::vector<ConfigEntry> out_;
};

std::map<std::string, const ConfigEntry*> by_key(const std::vector<ConfigEntry>& entries) {
  std::map<std::string, const ConfigEntry*> m;
  for (const ConfigEntry& e : entries) m[e.key] = &e;
  return m;
}

}  // namespace

std::vector<ConfigEntry> config_entries(const Config& cfg) {
  Entries e;
  // Only a restart changes what the process is built around: where it listens, its threads,
  // its shards, the metadata store, TLS and the role of its own connections.
  e.add("listen", cfg.listen_host + ":" + std::to_string(cfg.listen_port), false);
  e.add("database", cfg.database, false);
  e.add("pool_mode", cfg.pool_mode == PoolMode::kTransaction ? "transaction" : "session", true);
  e.add("workers", std::to_string(cfg.workers), false);
  e.add("log_level", cfg.log_level, true);
  e.add("log_format", cfg.log_format, true);
  e.add("slow_statement_ms", ms(cfg.slow_statement), true);
  e.add("http.listen", cfg.http_enabled ? cfg.http_host + ":" + std::to_string(cfg.http_port) : "",
        false);
  e.add("pool_wait_timeout_ms", ms(cfg.pool_wait_timeout), true);
  e.add("connect_timeout_ms", ms(cfg.connect_timeout), true);
  e.add("shutdown_timeout_ms", ms(cfg.shutdown_timeout), false);
  e.add("max_message_size", std::to_string(cfg.max_message_size), true);
  e.add("max_client_conn", std::to_string(cfg.max_client_conn), true);
  e.add("authentication_timeout_ms", ms(cfg.authentication_timeout), true);
  e.add("auth_failure_delay_ms", ms(cfg.auth_failure_delay), true);
  e.add("query_memory", std::to_string(cfg.query_memory), true);
  e.add("temp_directory", cfg.temp_directory, true);
  e.add("table_sizes_interval_ms", ms(cfg.table_sizes_interval), false);
  e.add("sequence_block_size", std::to_string(cfg.sequence_block_size), false);
  e.add("metadata.dsn", cfg.metadata_dsn, false, true);
  e.add("internal_user", cfg.internal_user, false);
  e.add("internal_password", cfg.internal_password, false, true);
  e.add("auth_query", cfg.auth_query, true);
  e.add("auth_user", cfg.auth_user, true);
  e.add("auth_password", cfg.auth_password, true, true);
  if (cfg.tls) {
    e.add("tls.cert", cfg.tls->cert, false);
    e.add("tls.key", cfg.tls->key, false);
    e.add("tls.client_ca", cfg.tls->client_ca, false);
    e.add("tls.required", yes(cfg.tls->required), false);
  }
  const RangesConfig& r = cfg.ranges;
  e.add("ranges.auto_split", yes(r.auto_split), false);
  e.add("ranges.range_max_mb", std::to_string(r.range_max_mb), false);
  e.add("ranges.split_qps", std::to_string(r.split_qps), false);
  e.add("ranges.merge_delay_s", std::to_string(r.merge_delay.count()), false);
  e.add("ranges.rebalance", yes(r.rebalance), false);
  e.add("ranges.check_interval_ms", ms(r.check_interval), false);
  e.add("ranges.count_load", yes(r.count_load), false);
  for (const ShardConfig& s : cfg.shards) {
    std::string k = "shard." + s.name + ".";
    // The dsn is shown by its parts: the configured string may hold a password.
    e.add(k + "host", s.host, false);
    e.add(k + "port", s.port, false);
    e.add(k + "dbname", s.dbname, false);
    e.add(k + "user", s.user, false);
    e.add(k + "dsn", s.dsn, false, true);
    e.add(k + "password", s.password, false, true);
    e.add(k + "sslmode", s.sslmode, false);
    e.add(k + "sslrootcert", s.sslrootcert, false);
    e.add(k + "sslcert", s.sslcert, false);
    e.add(k + "sslkey", s.sslkey, false);
    e.add(k + "pool_size", std::to_string(s.pool_size), true);
  }
  for (const UserConfig& u : cfg.users) {
    std::string k = "user." + u.name + ".";
    e.add(k + "auth", auth_name(u.auth), true);
    e.add(k + "password", u.password, true, true);
    e.add(k + "server_user", u.server_user, true);
    e.add(k + "server_password", u.server_password, true, true);
    e.add(k + "admin", yes(u.admin), true);
    e.add(k + "max_connections", std::to_string(u.max_connections), true);
  }
  for (const TableConfig& t : cfg.tables) {
    std::string key;
    for (const std::string& c : t.key) key += (key.empty() ? "" : ",") + c;
    // Tables are read when a table is made through pgrange: a new entry applies after a
    // restart.
    e.add("table." + t.name + ".key", key, false);
    e.add("table." + t.name + ".reference", yes(t.reference), false);
    e.add("table." + t.name + ".colocate_with", t.colocate_with, false);
  }
  return e.take();
}

namespace {

/// Both configurations' entries, by key, and the keys whose values differ or that one lacks.
struct Comparison {
  std::vector<ConfigEntry> a, b;
  std::map<std::string, const ConfigEntry*> ma, mb;
  std::vector<std::string> changed;
};

Comparison compare(const Config& before, const Config& after) {
  Comparison c;
  c.a = config_entries(before);
  c.b = config_entries(after);
  c.ma = by_key(c.a);
  c.mb = by_key(c.b);
  for (const auto& [key, e] : c.ma) {
    auto it = c.mb.find(key);
    if (it == c.mb.end() || it->second->raw != e->raw) c.changed.push_back(key);
  }
  for (const auto& [key, e] : c.mb) {
    if (!c.ma.count(key)) c.changed.push_back(key);
  }
  return c;
}

}  // namespace

std::vector<std::string> changed_keys(const Config& before, const Config& after) {
  return compare(before, after).changed;
}

std::vector<std::string> describe_changes(const Config& before, const Config& after) {
  auto names = [](const Config& c, bool users) {
    std::set<std::string> out;
    if (users) {
      for (const UserConfig& u : c.users) out.insert(u.name);
    } else {
      for (const ShardConfig& s : c.shards) out.insert(s.name);
    }
    return out;
  };
  std::vector<std::string> out;
  std::set<std::string> whole;  // "user.x." prefixes reported as added or removed
  for (bool users : {true, false}) {
    std::set<std::string> a = names(before, users), b = names(after, users);
    const char* what = users ? "user" : "shard";
    for (const std::string& n : b) {
      if (!a.count(n)) {
        out.push_back(std::string(what) + " " + n + " added");
        whole.insert(std::string(what) + "." + n + ".");
      }
    }
    for (const std::string& n : a) {
      if (!b.count(n)) {
        out.push_back(std::string(what) + " " + n + " removed");
        whole.insert(std::string(what) + "." + n + ".");
      }
    }
  }
  for (const std::string& key : changed_keys(before, after)) {
    bool covered = std::any_of(whole.begin(), whole.end(),
                               [&](const std::string& p) { return key.rfind(p, 0) == 0; });
    if (!covered) out.push_back(key);
  }
  return out;
}

std::vector<std::string> restart_only_changes(const Config& before, const Config& after) {
  Comparison c = compare(before, after);
  std::vector<std::string> out;
  for (const std::string& key : c.changed) {
    auto ia = c.ma.find(key);
    auto ib = c.mb.find(key);
    // A key only one side has: a user added or removed is reloadable, and so is a shard added
    // (RELOAD brings it up); a shard removed is not.
    bool added_shard = ia == c.ma.end() && key.rfind("shard.", 0) == 0;
    bool reloadable = added_shard || ((ia == c.ma.end() || ia->second->reloadable) &&
                                      (ib == c.mb.end() || ib->second->reloadable));
    if (!reloadable) out.push_back(key);
  }
  // Shards are numbered in the file's order: new ones come after those there are.
  for (size_t i = 0; i < before.shards.size() && i < after.shards.size(); ++i) {
    if (before.shards[i].name != after.shards[i].name) {
      out.push_back("the order of the [[shard]] entries");
      break;
    }
  }
  return out;
}

}  // namespace pgrange::config
