#include "config/config.hpp"

#include <libpq-fe.h>
#include <toml++/toml.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

namespace pgrange::config {
namespace {

tl::unexpected<Error> config_error(std::string msg) {
  return fail(sqlstate::kConfigFileError, std::move(msg));
}

/// Rejects keys of `table` that are not in `allowed`, naming the first unknown one.
Result<void> check_keys(const toml::table& table, std::string_view where,
                        std::initializer_list<std::string_view> allowed) {
  for (const auto& [key, value] : table) {
    (void)value;
    if (std::find(allowed.begin(), allowed.end(), key.str()) == allowed.end()) {
      std::string path = where.empty() ? std::string(key.str())
                                       : std::string(where) + "." + std::string(key.str());
      return config_error("unknown configuration key \"" + path + "\"");
    }
  }
  return {};
}

Result<std::string> get_string(const toml::table& t, std::string_view key, std::string_view where,
                               std::optional<std::string> fallback) {
  const toml::node* node = t.get(key);
  std::string path = where.empty() ? std::string(key) : std::string(where) + "." + std::string(key);
  if (node == nullptr) {
    if (fallback) return *fallback;
    return config_error("missing configuration key \"" + path + "\"");
  }
  if (!node->is_string())
    return config_error("configuration key \"" + path + "\" must be a string");
  return std::string(*node->value<std::string>());
}

Result<int64_t> get_int(const toml::table& t, std::string_view key, std::string_view where,
                        int64_t fallback, int64_t min, int64_t max) {
  const toml::node* node = t.get(key);
  std::string path = where.empty() ? std::string(key) : std::string(where) + "." + std::string(key);
  if (node == nullptr) return fallback;
  if (!node->is_integer()) {
    return config_error("configuration key \"" + path + "\" must be an integer");
  }
  int64_t v = *node->value<int64_t>();
  if (v < min || v > max) {
    return config_error("configuration key \"" + path + "\" must be between " +
                        std::to_string(min) + " and " + std::to_string(max));
  }
  return v;
}

Result<bool> get_bool(const toml::table& t, std::string_view key, std::string_view where,
                      bool fallback) {
  const toml::node* node = t.get(key);
  if (node == nullptr) return fallback;
  if (!node->is_boolean()) {
    return config_error("configuration key \"" + std::string(where) + "." + std::string(key) +
                        "\" must be true or false");
  }
  return *node->value<bool>();
}

Result<double> get_number(const toml::table& t, std::string_view key, std::string_view where,
                          double fallback, double min, double max) {
  const toml::node* node = t.get(key);
  std::string path = std::string(where) + "." + std::string(key);
  if (node == nullptr) return fallback;
  if (!node->is_number())
    return config_error("configuration key \"" + path + "\" must be a number");
  double v = *node->value<double>();
  if (!(v >= min && v <= max)) {
    std::ostringstream range;
    range << min << " and " << max;
    return config_error("configuration key \"" + path + "\" must be between " + range.str());
  }
  return v;
}

Result<RangesConfig> parse_ranges(const toml::node* node) {
  RangesConfig r;
  if (node == nullptr) return r;
  const toml::table* t = node->as_table();
  if (t == nullptr) return config_error("configuration key \"ranges\" must be a table");
  if (auto ok = check_keys(*t, "ranges",
                           {"auto_split", "range_max_mb", "split_qps", "merge_delay_s", "rebalance",
                            "check_interval_ms", "count_load"});
      !ok) {
    return fail(ok.error());
  }
  auto split = get_bool(*t, "auto_split", "ranges", true);
  if (!split) return fail(split.error());
  r.auto_split = *split;
  auto max_mb = get_number(*t, "range_max_mb", "ranges", 512, 0.001, 1024.0 * 1024);
  if (!max_mb) return fail(max_mb.error());
  r.range_max_mb = *max_mb;
  auto qps = get_number(*t, "split_qps", "ranges", 2500, 0.1, 1e9);
  if (!qps) return fail(qps.error());
  r.split_qps = *qps;
  auto delay = get_int(*t, "merge_delay_s", "ranges", 300, 0, 365LL * 24 * 3600);
  if (!delay) return fail(delay.error());
  r.merge_delay = std::chrono::seconds(*delay);
  auto rebalance = get_bool(*t, "rebalance", "ranges", true);
  if (!rebalance) return fail(rebalance.error());
  r.rebalance = *rebalance;
  auto interval = get_int(*t, "check_interval_ms", "ranges", 5000, 100, 24LL * 3600 * 1000);
  if (!interval) return fail(interval.error());
  r.check_interval = std::chrono::milliseconds(*interval);
  auto count = get_bool(*t, "count_load", "ranges", true);
  if (!count) return fail(count.error());
  r.count_load = *count;
  return r;
}

Result<std::pair<std::string, uint16_t>> parse_listen(std::string_view s) {
  auto colon = s.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return config_error("configuration key \"listen\" must be \"host:port\"");
  }
  std::string host(s.substr(0, colon));
  std::string port_text(s.substr(colon + 1));
  if (port_text.empty() || port_text.size() > 5 ||
      !std::all_of(port_text.begin(), port_text.end(), ::isdigit) || std::stoi(port_text) > 65535) {
    return config_error("configuration key \"listen\" has an invalid port \"" + port_text + "\"");
  }
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return std::make_pair(host, static_cast<uint16_t>(std::stoi(port_text)));
}

std::string resolve_path(const std::string& base_dir, const std::string& p) {
  if (p.empty() || p.front() == '/') return p;
  return base_dir + "/" + p;
}

Result<Config> build(const toml::table& root, const std::string& base_dir) {
  Config cfg;
  if (auto ok = check_keys(root, "",
                           {"listen",
                            "database",
                            "pool_mode",
                            "workers",
                            "log_level",
                            "metadata",
                            "tls",
                            "shard",
                            "user",
                            "table",
                            "pool_wait_timeout_ms",
                            "connect_timeout_ms",
                            "shutdown_timeout_ms",
                            "max_message_size",
                            "sequence_block_size",
                            "query_memory",
                            "temp_directory",
                            "table_sizes_interval_ms",
                            "ranges",
                            "internal_user",
                            "internal_password",
                            "max_client_conn",
                            "authentication_timeout_ms",
                            "auth_failure_delay_ms",
                            "auth_query",
                            "auth_user",
                            "auth_password",
                            "log_format",
                            "slow_statement_ms",
                            "http"});
      !ok) {
    return fail(ok.error());
  }

  auto listen = get_string(root, "listen", "", std::string("127.0.0.1:6432"));
  if (!listen) return fail(listen.error());
  auto hp = parse_listen(*listen);
  if (!hp) return fail(hp.error());
  cfg.listen_host = hp->first;
  cfg.listen_port = hp->second;

  auto mode = get_string(root, "pool_mode", "", std::string("transaction"));
  if (!mode) return fail(mode.error());
  if (*mode == "transaction") {
    cfg.pool_mode = PoolMode::kTransaction;
  } else if (*mode == "session") {
    cfg.pool_mode = PoolMode::kSession;
  } else {
    return config_error("configuration key \"pool_mode\" must be \"transaction\" or \"session\"");
  }

  auto workers = get_int(root, "workers", "", 0, 0, 256);
  if (!workers) return fail(workers.error());
  cfg.workers = static_cast<int>(*workers);

  auto level = get_string(root, "log_level", "", std::string("info"));
  if (!level) return fail(level.error());
  static const std::set<std::string> kLevels = {"trace", "debug",    "info", "warn",
                                                "error", "critical", "off"};
  if (!kLevels.count(*level)) {
    return config_error(
        "configuration key \"log_level\" must be one of trace, debug, info, warn, "
        "error, critical, off");
  }
  cfg.log_level = *level;
  auto format = get_string(root, "log_format", "", std::string("text"));
  if (!format) return fail(format.error());
  if (*format != "text" && *format != "json") {
    return config_error("configuration key \"log_format\" must be \"text\" or \"json\"");
  }
  cfg.log_format = *format;
  auto slow = get_int(root, "slow_statement_ms", "", 0, 0, 24LL * 3600 * 1000);
  if (!slow) return fail(slow.error());
  cfg.slow_statement = std::chrono::milliseconds(*slow);

  auto wait = get_int(root, "pool_wait_timeout_ms", "", 10000, 1, 3600 * 1000);
  if (!wait) return fail(wait.error());
  cfg.pool_wait_timeout = std::chrono::milliseconds(*wait);
  auto conn = get_int(root, "connect_timeout_ms", "", 5000, 1, 3600 * 1000);
  if (!conn) return fail(conn.error());
  cfg.connect_timeout = std::chrono::milliseconds(*conn);
  auto shut = get_int(root, "shutdown_timeout_ms", "", 10000, 0, 3600 * 1000);
  if (!shut) return fail(shut.error());
  cfg.shutdown_timeout = std::chrono::milliseconds(*shut);
  auto max_clients = get_int(root, "max_client_conn", "", 1000, 1, 1000000);
  if (!max_clients) return fail(max_clients.error());
  cfg.max_client_conn = static_cast<int>(*max_clients);
  auto auth_timeout = get_int(root, "authentication_timeout_ms", "", 60000, 1, 600 * 1000);
  if (!auth_timeout) return fail(auth_timeout.error());
  cfg.authentication_timeout = std::chrono::milliseconds(*auth_timeout);
  auto auth_delay = get_int(root, "auth_failure_delay_ms", "", 1000, 0, 60 * 1000);
  if (!auth_delay) return fail(auth_delay.error());
  cfg.auth_failure_delay = std::chrono::milliseconds(*auth_delay);
  auto maxmsg = get_int(root, "max_message_size", "", 64 * 1024 * 1024, 1024, 1024 * 1024 * 1024);
  if (!maxmsg) return fail(maxmsg.error());
  cfg.max_message_size = static_cast<int>(*maxmsg);
  auto memory =
      get_int(root, "query_memory", "", 256LL * 1024 * 1024, 1024, 64LL * 1024 * 1024 * 1024);
  if (!memory) return fail(memory.error());
  cfg.query_memory = *memory;
  auto temp = get_string(root, "temp_directory", "", std::string());
  if (!temp) return fail(temp.error());
  cfg.temp_directory = resolve_path(base_dir, *temp);
  auto sizes = get_int(root, "table_sizes_interval_ms", "", 5000, 0, 24LL * 3600 * 1000);
  if (!sizes) return fail(sizes.error());
  cfg.table_sizes_interval = std::chrono::milliseconds(*sizes);
  auto block = get_int(root, "sequence_block_size", "", 100, 1, 1000000);
  if (!block) return fail(block.error());
  cfg.sequence_block_size = static_cast<int>(*block);
  auto ranges = parse_ranges(root.get("ranges"));
  if (!ranges) return fail(ranges.error());
  cfg.ranges = *ranges;

  if (const toml::node* http = root.get("http")) {
    const toml::table* t = http->as_table();
    if (t == nullptr) return config_error("configuration key \"http\" must be a table");
    if (auto ok = check_keys(*t, "http", {"listen"}); !ok) return fail(ok.error());
    auto l = get_string(*t, "listen", "http", std::nullopt);
    if (!l) return fail(l.error());
    auto where = parse_listen(*l);
    if (!where) {
      return config_error("configuration key \"http.listen\": " + where.error().message);
    }
    cfg.http_host = where->first;
    cfg.http_port = where->second;
    cfg.http_enabled = true;
  }

  if (const toml::node* md = root.get("metadata")) {
    const toml::table* t = md->as_table();
    if (t == nullptr) return config_error("configuration key \"metadata\" must be a table");
    if (auto ok = check_keys(*t, "metadata", {"dsn"}); !ok) return fail(ok.error());
    auto dsn = get_string(*t, "dsn", "metadata", std::nullopt);
    if (!dsn) return fail(dsn.error());
    if (auto parsed = parse_dsn(*dsn); !parsed) {
      return config_error("configuration key \"metadata.dsn\": " + parsed.error().message);
    }
    cfg.metadata_dsn = *dsn;
  }

  if (const toml::node* tls = root.get("tls")) {
    const toml::table* t = tls->as_table();
    if (t == nullptr) return config_error("configuration key \"tls\" must be a table");
    if (auto ok = check_keys(*t, "tls", {"cert", "key", "client_ca", "required"}); !ok) {
      return fail(ok.error());
    }
    auto cert = get_string(*t, "cert", "tls", std::nullopt);
    if (!cert) return fail(cert.error());
    auto key = get_string(*t, "key", "tls", std::nullopt);
    if (!key) return fail(key.error());
    auto client_ca = get_string(*t, "client_ca", "tls", std::string());
    if (!client_ca) return fail(client_ca.error());
    cfg.tls = TlsConfig{resolve_path(base_dir, *cert), resolve_path(base_dir, *key),
                        resolve_path(base_dir, *client_ca), false};
    if (const toml::node* r = t->get("required")) {
      if (!r->is_boolean()) {
        return config_error("configuration key \"tls.required\" must be a boolean");
      }
      cfg.tls->required = *r->value<bool>();
    }
    for (const std::string& f : {cfg.tls->cert, cfg.tls->key, cfg.tls->client_ca}) {
      if (!f.empty() && !std::ifstream(f).good()) {
        return config_error("TLS file \"" + f + "\" cannot be read");
      }
    }
  }

  const toml::node* shards = root.get("shard");
  if (shards == nullptr || !shards->is_array_of_tables() || shards->as_array()->empty()) {
    return config_error("at least one [[shard]] is required");
  }
  std::set<std::string> shard_names;
  for (const toml::node& n : *shards->as_array()) {
    const toml::table& t = *n.as_table();
    std::string where = "shard[" + std::to_string(cfg.shards.size()) + "]";
    if (auto ok = check_keys(t, where, {"name", "dsn", "pool_size"}); !ok) return fail(ok.error());
    ShardConfig s;
    auto name = get_string(t, "name", where, std::nullopt);
    if (!name) return fail(name.error());
    if (name->empty()) return config_error("configuration key \"" + where + ".name\" is empty");
    if (!shard_names.insert(*name).second) {
      return config_error("shard name \"" + *name + "\" appears twice");
    }
    s.name = *name;
    auto dsn = get_string(t, "dsn", where, std::nullopt);
    if (!dsn) return fail(dsn.error());
    s.dsn = *dsn;
    auto pool = get_int(t, "pool_size", where, 20, 1, 10000);
    if (!pool) return fail(pool.error());
    s.pool_size = static_cast<int>(*pool);
    auto kv = parse_dsn(s.dsn);
    if (!kv) return config_error("configuration key \"" + where + ".dsn\": " + kv.error().message);
    for (auto& [k, v] : *kv) {
      if (k == "host" || k == "hostaddr")
        s.host = v;
      else if (k == "port")
        s.port = v;
      else if (k == "dbname")
        s.dbname = v;
      else if (k == "user")
        s.user = v;
      else if (k == "password")
        s.password = v;
      else if (k == "sslmode")
        s.sslmode = v;
      else if (k == "sslrootcert")
        s.sslrootcert = v;
      else if (k == "sslcert")
        s.sslcert = v;
      else if (k == "sslkey")
        s.sslkey = v;
    }
    static const std::set<std::string> kModes = {"disable", "allow",     "prefer",
                                                 "require", "verify-ca", "verify-full"};
    if (!kModes.count(s.sslmode)) {
      return config_error("configuration key \"" + where + ".dsn\": invalid sslmode value: \"" +
                          s.sslmode + "\"");
    }
    if ((s.sslmode == "verify-ca" || s.sslmode == "verify-full") && s.sslrootcert.empty()) {
      return config_error("configuration key \"" + where + ".dsn\": sslmode=" + s.sslmode +
                          " needs sslrootcert= (the certificates that verify the server's)");
    }
    for (const std::string* f : {&s.sslrootcert, &s.sslcert, &s.sslkey}) {
      if (!f->empty() && !std::ifstream(*f).good()) {
        return config_error("configuration key \"" + where + ".dsn\": file \"" + *f +
                            "\" cannot be read");
      }
    }
    if (s.dbname.empty()) s.dbname = s.user;
    if (s.dbname.empty()) {
      return config_error("configuration key \"" + where +
                          ".dsn\" needs dbname= (or user=, whose name it defaults to)");
    }
    cfg.shards.push_back(std::move(s));
  }

  // pgrange's own connections: internal_user, else the metadata store's user, else the first
  // shard's forced user.
  auto internal_user = get_string(root, "internal_user", "", std::string());
  if (!internal_user) return fail(internal_user.error());
  auto internal_password = get_string(root, "internal_password", "", std::string());
  if (!internal_password) return fail(internal_password.error());
  bool internal_given = !internal_user->empty();
  cfg.internal_user = *internal_user;
  cfg.internal_password = *internal_password;
  if (!internal_given) {
    std::string md_user, md_password;
    if (!cfg.metadata_dsn.empty()) {
      auto kv = parse_dsn(cfg.metadata_dsn);
      for (auto& [k, v] : *kv) {
        if (k == "user") md_user = v;
        if (k == "password") md_password = v;
      }
    }
    if (!md_user.empty()) {
      cfg.internal_user = md_user;
      if (cfg.internal_password.empty()) cfg.internal_password = md_password;
    } else {
      cfg.internal_user = cfg.shards.front().user;
      if (cfg.internal_password.empty()) cfg.internal_password = cfg.shards.front().password;
    }
  }
  if (cfg.internal_user.empty()) {
    return config_error(
        "pgrange's own connections to the shards need a role: set internal_user (and "
        "internal_password), or user= in [metadata] dsn");
  }
  auto auth_query = get_string(root, "auth_query", "", std::string());
  if (!auth_query) return fail(auth_query.error());
  auto auth_user = get_string(root, "auth_user", "", std::string());
  if (!auth_user) return fail(auth_user.error());
  auto auth_password = get_string(root, "auth_password", "", std::string());
  if (!auth_password) return fail(auth_password.error());
  if (!auth_query->empty() || !auth_user->empty()) {
    cfg.auth_query = auth_query->empty() ? "SELECT usename, passwd FROM pg_shadow WHERE usename=$1"
                                         : *auth_query;
    if (cfg.auth_query.find("$1") == std::string::npos) {
      return config_error("configuration key \"auth_query\" must use $1 (the user's name)");
    }
    cfg.auth_user = auth_user->empty() ? cfg.internal_user : *auth_user;
    cfg.auth_password = auth_user->empty() ? cfg.internal_password : *auth_password;
  }
  auto internal_dsn = [&](const std::string& dsn) {
    std::string out = with_dsn_keyword(dsn, "user", cfg.internal_user);
    if (!cfg.internal_password.empty()) {
      out = with_dsn_keyword(out, "password", cfg.internal_password);
    }
    return out;
  };
  for (ShardConfig& s : cfg.shards) {
    // A forced user= stays the role of pgrange's own connections unless internal_user is given.
    if (internal_given || s.user.empty()) s.dsn = internal_dsn(s.dsn);
  }
  if (!cfg.metadata_dsn.empty() && internal_given)
    cfg.metadata_dsn = internal_dsn(cfg.metadata_dsn);

  auto db = get_string(root, "database", "", cfg.shards.front().dbname);
  if (!db) return fail(db.error());
  cfg.database = *db;

  if (const toml::node* users = root.get("user")) {
    if (!users->is_array_of_tables()) return config_error("\"user\" must be an array of tables");
    std::set<std::string> names;
    for (const toml::node& n : *users->as_array()) {
      const toml::table& t = *n.as_table();
      std::string where = "user[" + std::to_string(cfg.users.size()) + "]";
      if (auto ok = check_keys(t, where,
                               {"name", "password", "auth", "server_user", "server_password",
                                "admin", "max_connections"});
          !ok) {
        return fail(ok.error());
      }
      UserConfig u;
      auto name = get_string(t, "name", where, std::nullopt);
      if (!name) return fail(name.error());
      if (!names.insert(*name).second) {
        return config_error("user \"" + *name + "\" appears twice");
      }
      u.name = *name;
      auto auth = get_string(t, "auth", where, std::string("scram-sha-256"));
      if (!auth) return fail(auth.error());
      if (*auth == "scram-sha-256")
        u.auth = AuthMethod::kScramSha256;
      else if (*auth == "md5")
        u.auth = AuthMethod::kMd5;
      else if (*auth == "trust")
        u.auth = AuthMethod::kTrust;
      else if (*auth == "cert")
        u.auth = AuthMethod::kCert;
      else {
        return config_error("configuration key \"" + where +
                            ".auth\" must be \"scram-sha-256\", \"md5\", \"cert\" or \"trust\"");
      }
      if (u.auth == AuthMethod::kCert && (!cfg.tls || cfg.tls->client_ca.empty())) {
        return config_error("user \"" + u.name + "\": auth = \"cert\" needs [tls] client_ca");
      }
      auto pw = get_string(t, "password", where,
                           u.auth == AuthMethod::kTrust || u.auth == AuthMethod::kCert
                               ? std::optional<std::string>("")
                               : std::nullopt);
      if (!pw) return fail(pw.error());
      u.password = *pw;
      if (u.auth == AuthMethod::kMd5 && u.password.rfind("SCRAM-SHA-256$", 0) == 0) {
        return config_error("user \"" + u.name +
                            "\": md5 authentication needs a plaintext or md5 password");
      }
      if (u.auth == AuthMethod::kScramSha256 && u.password.rfind("md5", 0) == 0 &&
          u.password.size() == 35) {
        return config_error("user \"" + u.name +
                            "\": scram-sha-256 authentication needs a plaintext password or a "
                            "SCRAM-SHA-256 verifier");
      }
      auto server_user = get_string(t, "server_user", where, std::string());
      if (!server_user) return fail(server_user.error());
      u.server_user = *server_user;
      auto server_password = get_string(t, "server_password", where, std::string());
      if (!server_password) return fail(server_password.error());
      u.server_password = *server_password;
      if (u.server_user.empty() && !u.server_password.empty()) {
        return config_error("configuration key \"" + where +
                            ".server_password\" needs server_user");
      }
      if (const toml::node* a = t.get("admin")) {
        if (!a->is_boolean()) {
          return config_error("configuration key \"" + where + ".admin\" must be a boolean");
        }
        u.admin = *a->value<bool>();
      }
      auto max_conns = get_int(t, "max_connections", where, 0, 0, 1000000);
      if (!max_conns) return fail(max_conns.error());
      u.max_connections = static_cast<int>(*max_conns);
      cfg.users.push_back(std::move(u));
    }
  }

  if (const toml::node* tables = root.get("table")) {
    if (!tables->is_array_of_tables()) return config_error("\"table\" must be an array of tables");
    for (const toml::node& n : *tables->as_array()) {
      const toml::table& t = *n.as_table();
      std::string where = "table[" + std::to_string(cfg.tables.size()) + "]";
      if (auto ok = check_keys(t, where, {"name", "key", "split_at", "reference", "colocate_with"});
          !ok) {
        return fail(ok.error());
      }
      TableConfig tc;
      auto name = get_string(t, "name", where, std::nullopt);
      if (!name) return fail(name.error());
      tc.name = *name;
      if (const toml::node* r = t.get("reference")) {
        if (!r->is_boolean()) {
          return config_error("configuration key \"" + where + ".reference\" must be a boolean");
        }
        tc.reference = *r->value<bool>();
      }
      if (const toml::node* c = t.get("colocate_with")) {
        if (!c->is_string() || c->value<std::string>()->empty()) {
          return config_error("configuration key \"" + where +
                              ".colocate_with\" must name a table");
        }
        tc.colocate_with = *c->value<std::string>();
        if (tc.reference || t.get("split_at") != nullptr) {
          return config_error("configuration key \"" + where +
                              ".colocate_with\" cannot go with reference or split_at: the "
                              "table's ranges follow those of the table it is co-located with");
        }
      }
      const toml::array* key = t.get_as<toml::array>("key");
      if (tc.reference && t.get("split_at") != nullptr) {
        return config_error("configuration key \"" + where +
                            ".split_at\" cannot be given for a reference table: every shard "
                            "holds all of its rows");
      }
      if ((key == nullptr && !tc.reference && tc.colocate_with.empty()) ||
          (key != nullptr && key->empty())) {
        return config_error("configuration key \"" + where + ".key\" must be a non-empty array");
      }
      for (size_t i = 0; key != nullptr && i < key->size(); ++i) {
        const toml::node& k = *key->get(i);
        if (!k.is_string()) {
          return config_error("configuration key \"" + where + ".key\" must hold strings");
        }
        tc.key.push_back(*k.value<std::string>());
      }
      if (const toml::node* splits = t.get("split_at")) {
        auto bad = [&] {
          return config_error("configuration key \"" + where +
                              ".split_at\" must be an array of keys: values (numbers or strings) "
                              "for a one-column key, arrays of them for a longer key");
        };
        if (!splits->is_array()) return bad();
        auto value_text = [](const toml::node& v) -> std::optional<std::string> {
          if (auto i = v.value_exact<int64_t>()) return std::to_string(*i);
          if (auto s = v.value_exact<std::string>()) return *s;
          if (auto d = v.value_exact<double>()) {
            std::ostringstream os;
            os.precision(17);
            os << *d;
            return os.str();
          }
          return std::nullopt;
        };
        for (const toml::node& entry : *splits->as_array()) {
          std::vector<std::string> values;
          if (const toml::array* tuple = entry.as_array()) {
            for (const toml::node& v : *tuple) {
              auto text = value_text(v);
              if (!text) return bad();
              values.push_back(*text);
            }
          } else if (auto text = value_text(entry)) {
            values.push_back(*text);
          }
          if (values.empty() || values.size() > tc.key.size()) return bad();
          tc.split_at.push_back(std::move(values));
        }
      }
      cfg.tables.push_back(std::move(tc));
    }
  }
  return cfg;
}

}  // namespace

int Config::effective_workers() const {
  if (workers > 0) return workers;
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

const UserConfig* Config::find_user(std::string_view name) const {
  for (const UserConfig& u : users) {
    if (u.name == name) return &u;
  }
  return nullptr;
}

Result<std::vector<std::pair<std::string, std::string>>> parse_dsn(const std::string& dsn) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(dsn.c_str(), &err);
  if (opts == nullptr) {
    std::string msg = err ? err : "invalid connection string";
    if (err) PQfreemem(err);
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    return config_error(msg);
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (PQconninfoOption* o = opts; o->keyword != nullptr; ++o) {
    if (o->val != nullptr) out.emplace_back(o->keyword, o->val);
  }
  PQconninfoFree(opts);
  return out;
}

std::string with_dsn_keyword(const std::string& dsn, const std::string& keyword,
                             const std::string& value) {
  auto quoted = [](const std::string& v) {
    std::string out = "'";
    for (char c : v) {
      if (c == '\'' || c == '\\') out += '\\';
      out += c;
    }
    return out + "'";
  };
  auto kv = parse_dsn(dsn);
  std::string out;
  if (kv) {
    for (auto& [k, v] : *kv) {
      if (k != keyword) out += k + "=" + quoted(v) + " ";
    }
  }
  return out + keyword + "=" + quoted(value);
}

Result<Config> parse_config(std::string_view toml_text, const std::string& base_dir) {
  try {
    toml::table root = toml::parse(toml_text);
    return build(root, base_dir);
  } catch (const toml::parse_error& e) {
    std::ostringstream os;
    os << "configuration syntax error at line " << e.source().begin.line << ": " << e.description();
    return config_error(os.str());
  }
}

Result<Config> load_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) return config_error("cannot read configuration file \"" + path + "\"");
  std::stringstream ss;
  ss << in.rdbuf();
  auto slash = path.rfind('/');
  std::string base = slash == std::string::npos ? "." : path.substr(0, slash);
  return parse_config(ss.str(), base);
}

}  // namespace pgrange::config
