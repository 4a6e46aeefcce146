#include "proxy/observe/metrics_text.hpp"

#include <cstdio>
#include <map>

namespace pgrange::proxy {

namespace {

/// Writes families: HELP and TYPE once, then the samples.
class Exposition {
 public:
  void family(std::string_view name, std::string_view type, std::string_view help) {
    out_ += "# HELP pgrange_";
    out_ += name;
    out_ += ' ';
    out_ += help;
    out_ += "\n# TYPE pgrange_";
    out_ += name;
    out_ += ' ';
    out_ += type;
    out_ += '\n';
  }
  void sample(std::string_view name, std::string_view labels, double value) {
    out_ += "pgrange_";
    out_ += name;
    if (!labels.empty()) {
      out_ += '{';
      out_ += labels;
      out_ += '}';
    }
    out_ += ' ';
    char buf[64];
    if (value == static_cast<double>(static_cast<int64_t>(value)) && value < 9e15 &&
        value > -9e15) {
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(value));
    } else {
      std::snprintf(buf, sizeof buf, "%.9g", value);
    }
    out_ += buf;
    out_ += '\n';
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

std::string label(std::string_view name, std::string_view value) {
  return std::string(name) + "=\"" + escape_label(value) + "\"";
}

double seconds(uint64_t us) {
  return static_cast<double>(us) / 1e6;
}

}  // namespace

std::string escape_label(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string render_metrics(const ProxySnapshot& snap, const ClusterFigures& cluster,
                           const std::vector<std::string>& shards, const std::vector<bool>& paused,
                           std::chrono::system_clock::time_point started) {
  Exposition e;
  const StatsTotals& st = snap.stats;
  e.family("start_time_seconds", "gauge", "When this pgrange process started (Unix time).");
  e.sample(
      "start_time_seconds", "",
      static_cast<double>(
          std::chrono::duration_cast<std::chrono::seconds>(started.time_since_epoch()).count()));

  // Clients.
  std::map<std::string, int> client_states = {
      {"login", 0}, {"active", 0}, {"idle", 0}, {"idle in transaction", 0}};
  for (const ClientRow& c : snap.clients) ++client_states[c.state];
  e.family("client_connections", "gauge", "Client connections by state.");
  for (const auto& [state, n] : client_states) {
    e.sample("client_connections", label("state", state), n);
  }
  e.family("client_logins_total", "counter", "Client logins that succeeded.");
  e.sample("client_logins_total", "", static_cast<double>(st.logins));
  e.family("client_login_failures_total", "counter", "Client logins refused (wrong password).");
  e.sample("client_login_failures_total", "", static_cast<double>(st.login_failures));

  // What clients asked, by how it ran.
  e.family("queries_total", "counter",
           "Client requests answered (each Query or Sync, at its ReadyForQuery), by route kind.");
  for (size_t k = 0; k < kRouteKinds; ++k) {
    e.sample("queries_total", label("route", route_kind_name(static_cast<RouteKind>(k))),
             static_cast<double>(st.queries[k]));
  }
  e.family("transactions_total", "counter",
           "Client transactions ended (a ReadyForQuery that leaves the client idle).");
  e.sample("transactions_total", "", static_cast<double>(st.transactions));
  e.family("query_duration_seconds", "histogram",
           "Time from a client request's first message to its ReadyForQuery, by route kind.");
  for (size_t k = 0; k < kRouteKinds; ++k) {
    std::string route = label("route", route_kind_name(static_cast<RouteKind>(k)));
    const HistogramValues& h = st.latency[k];
    uint64_t cumulative = 0;
    for (size_t b = 0; b < kLatencyBucketsUs.size(); ++b) {
      cumulative += h.buckets[b];
      char le[32];
      std::snprintf(le, sizeof le, "%g", seconds(kLatencyBucketsUs[b]));
      e.sample("query_duration_seconds_bucket", route + "," + label("le", le),
               static_cast<double>(cumulative));
    }
    cumulative += h.buckets.back();
    e.sample("query_duration_seconds_bucket", route + "," + label("le", "+Inf"),
             static_cast<double>(cumulative));
    e.sample("query_duration_seconds_sum", route, seconds(h.sum_us));
    e.sample("query_duration_seconds_count", route, static_cast<double>(cumulative));
  }
  e.family("errors_total", "counter", "ErrorResponses sent to clients, by SQLSTATE.");
  for (const auto& [state, n] : st.errors) {
    e.sample("errors_total", label("sqlstate", state), static_cast<double>(n));
  }
  e.family("slow_statements_total", "counter",
           "Requests that took at least slow_statement_ms (logged with their route).");
  e.sample("slow_statements_total", "", static_cast<double>(st.slow_statements));

  // Shards: connections, pools, what they answered.
  std::map<std::string, std::pair<int, int>> servers;  // shard → (active, idle)
  for (const std::string& s : shards) servers[s];
  for (const ServerRow& s : snap.servers) {
    auto& [active, idle] = servers[s.shard];
    ++(s.state == "idle" ? idle : active);
  }
  e.family("server_connections", "gauge", "Pooled connections to each shard, by state.");
  for (const auto& [shard, n] : servers) {
    e.sample("server_connections", label("shard", shard) + "," + label("state", "active"), n.first);
    e.sample("server_connections", label("shard", shard) + "," + label("state", "idle"), n.second);
  }
  std::map<std::string, std::pair<int, double>> waiting;  // shard → (clients, longest wait s)
  for (const std::string& s : shards) waiting[s];
  for (const PoolRow& p : snap.pools) {
    auto& [n, longest] = waiting[p.shard];
    n += p.cl_waiting;
    longest = std::max(longest, static_cast<double>(p.maxwait.count()) / 1e6);
  }
  e.family("pool_waiting_clients", "gauge", "Clients waiting for a connection to each shard.");
  for (const auto& [shard, w] : waiting) {
    e.sample("pool_waiting_clients", label("shard", shard), w.first);
  }
  e.family("pool_max_wait_seconds", "gauge", "The longest wait for a shard's connection now.");
  for (const auto& [shard, w] : waiting) {
    e.sample("pool_max_wait_seconds", label("shard", shard), w.second);
  }
  auto per_shard = [&](std::string_view name, std::string_view type, std::string_view help,
                       auto value) {
    e.family(name, type, help);
    for (size_t i = 0; i < shards.size(); ++i) {
      StatsTotals::Shard s = i < st.shards.size() ? st.shards[i] : StatsTotals::Shard{};
      e.sample(name, label("shard", shards[i]), value(s));
    }
  };
  per_shard("pool_waits_total", "counter", "Acquires of a shard's connection that had to wait.",
            [](const StatsTotals::Shard& s) { return static_cast<double>(s.pool_waits); });
  per_shard("pool_wait_seconds_total", "counter", "Time spent waiting for a shard's connection.",
            [](const StatsTotals::Shard& s) { return seconds(s.pool_wait_us); });
  per_shard("server_connects_total", "counter", "Connections opened to each shard.",
            [](const StatsTotals::Shard& s) { return static_cast<double>(s.connects); });
  per_shard("server_connect_failures_total", "counter",
            "Connections to each shard that could not be opened.",
            [](const StatsTotals::Shard& s) { return static_cast<double>(s.connect_failures); });
  per_shard("shard_requests_total", "counter",
            "Requests each shard answered over pooled connections (its ReadyForQuery).",
            [](const StatsTotals::Shard& s) { return static_cast<double>(s.requests); });
  per_shard("shard_transactions_total", "counter",
            "Transactions each shard ended over pooled connections.",
            [](const StatsTotals::Shard& s) { return static_cast<double>(s.transactions); });
  per_shard("shard_errors_total", "counter", "ErrorResponses from each shard.",
            [](const StatsTotals::Shard& s) { return static_cast<double>(s.errors); });
  e.family("shard_paused", "gauge", "1 while the shard is PAUSEd.");
  for (size_t i = 0; i < shards.size(); ++i) {
    e.sample("shard_paused", label("shard", shards[i]), i < paused.size() && paused[i] ? 1 : 0);
  }

  // The range map.
  e.family("metadata_available", "gauge", "1 when the metadata store is open.");
  e.sample("metadata_available", "", cluster.available ? 1 : 0);
  e.family("two_phase_commits_total", "counter",
           "Two-phase commits this process began (writes over several shards).");
  e.sample("two_phase_commits_total", "", static_cast<double>(cluster.two_phase_commits));
  e.family("recovered_transactions_total", "counter",
           "Prepared transactions recovery finished (committed or rolled back).");
  e.sample("recovered_transactions_total", "", static_cast<double>(cluster.recovered_transactions));
  if (!cluster.available) return e.take();
  e.family("range_map_version", "gauge", "The version of the range map this process routes with.");
  e.sample("range_map_version", "", static_cast<double>(cluster.range_map_version));
  e.family("ranges", "gauge", "Ranges each shard holds.");
  for (const auto& [shard, n] : cluster.ranges_per_shard) {
    e.sample("ranges", label("shard", shard), static_cast<double>(n));
  }
  e.family("range_splits_total", "counter", "Range splits this process applied.");
  e.sample("range_splits_total", "", static_cast<double>(cluster.range_splits));
  e.family("range_merges_total", "counter", "Range merges this process applied.");
  e.sample("range_merges_total", "", static_cast<double>(cluster.range_merges));
  e.family("range_moves_total", "counter", "Ranges this process moved to another shard.");
  e.sample("range_moves_total", "", static_cast<double>(cluster.range_moves));
  e.family("range_qps", "gauge",
           "Requests per second of the busiest ranges (all pgrange instances), by kind.");
  for (const ClusterFigures::HotRange& h : cluster.hot) {
    std::string labels = label("range_id", h.range_id) + "," + label("table", h.table) + "," +
                         label("index", h.index) + "," + label("shard", h.shard);
    e.sample("range_qps", labels + "," + label("kind", "read"), h.read_qps);
    e.sample("range_qps", labels + "," + label("kind", "write"), h.write_qps);
  }
  return e.take();
}

}  // namespace pgrange::proxy
