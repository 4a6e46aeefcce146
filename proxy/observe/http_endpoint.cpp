#include "proxy/observe/http_endpoint.hpp"

#include <libpq-fe.h>
#include <spdlog/spdlog.h>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <map>

#include "common/log_format.hpp"
#include "common/utc_time.hpp"
#include "config/config.hpp"
#include "proxy/control/control_plane.hpp"
#include "proxy/observe/key_space_page.hpp"
#include "proxy/observe/metrics_text.hpp"
#include "proxy/observe/proxy_snapshot.hpp"
#include "proxy/worker.hpp"
#include "sql/admin_statement.hpp"

namespace pgrange::proxy {

namespace beast = boost::beast;
namespace http = beast::http;

namespace {

constexpr size_t kHotRanges = 10;

/// Whether a server answers SELECT 1 within 2 s; "" when it does, else why not.
std::string probe(const std::string& dsn) {
  PGconn* conn = PQconnectdb(config::with_dsn_keyword(dsn, "connect_timeout", "2").c_str());
  std::string why;
  if (PQstatus(conn) != CONNECTION_OK) {
    why = PQerrorMessage(conn);
  } else {
    PGresult* r = PQexec(conn, "SELECT 1");
    if (PQresultStatus(r) != PGRES_TUPLES_OK) why = PQresultErrorMessage(r);
    PQclear(r);
  }
  PQfinish(conn);
  while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
  return why;
}

void json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  append_json_escaped(out, s);
  out.push_back('"');
}

/// The column of that name in a result set, or -1.
int column(const routing::ResultSet& rs, std::string_view name) {
  for (size_t i = 0; i < rs.columns.size(); ++i) {
    if (rs.columns[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

const std::optional<std::string>& cell(const std::vector<std::optional<std::string>>& row, int i) {
  static const std::optional<std::string> kNull;
  return i < 0 || static_cast<size_t>(i) >= row.size() ? kNull : row[static_cast<size_t>(i)];
}

/// A number cell as JSON (null when NULL or absent).
void json_number(std::string& out, const std::optional<std::string>& v) {
  if (!v || v->empty()) {
    out += "null";
    return;
  }
  char* end = nullptr;
  double d = std::strtod(v->c_str(), &end);
  if (end == v->c_str() || *end != '\0') {
    out += "null";
    return;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", d);
  out += buf;
}

/// Every range's requests per second, busiest first (SHOW HOT RANGES: every instance's); empty
/// while the metadata store is away for a moment.
std::vector<ClusterFigures::HotRange> range_load(ControlPlane* cp) {
  std::vector<ClusterFigures::HotRange> out;
  sql::AdminStatement hot{};
  hot.kind = sql::AdminKind::kShowHotRanges;
  auto rs = cp->execute_admin(hot);
  if (!rs) return out;
  int id = column(*rs, "range_id"), table = column(*rs, "table_name"),
      index = column(*rs, "index_name"), shard = column(*rs, "shard"),
      read = column(*rs, "read_qps"), write = column(*rs, "write_qps");
  for (const auto& row : rs->rows) {
    ClusterFigures::HotRange h;
    h.range_id = cell(row, id).value_or("");
    h.table = cell(row, table).value_or("");
    h.index = cell(row, index).value_or("");
    h.shard = cell(row, shard).value_or("");
    h.read_qps = std::strtod(cell(row, read).value_or("0").c_str(), nullptr);
    h.write_qps = std::strtod(cell(row, write).value_or("0").c_str(), nullptr);
    out.push_back(std::move(h));
  }
  return out;
}

ClusterFigures cluster_figures(ControlPlane* cp) {
  ClusterFigures f;
  if (cp == nullptr) return f;
  f.two_phase_commits = cp->two_phase_commits();
  f.recovered_transactions = cp->recovered_transactions();
  auto view = cp->view();
  if (!view) return f;
  f.available = true;
  f.range_map_version = cp->published_version();
  const auto& counts = cp->range_changes();
  f.range_splits = counts.splits.load();
  f.range_merges = counts.merges.load();
  f.range_moves = counts.moves.load();
  std::map<std::string, int64_t> per_shard;
  for (const std::string& s : view->shard_order()) per_shard[s] = 0;
  for (const routing::RangeDescriptor& r : view->ranges().ranges()) ++per_shard[r.shard];
  f.ranges_per_shard.assign(per_shard.begin(), per_shard.end());
  for (ClusterFigures::HotRange& h : range_load(cp)) {
    // Busiest first: the first without requests ends the list.
    if (f.hot.size() >= kHotRanges || h.read_qps + h.write_qps <= 0) break;
    f.hot.push_back(std::move(h));
  }
  return f;
}

/// /api/ranges: the range map with each range's table, index, shard, keys and load (and with
/// `details` its rows and size, which count every range's rows on its shard).
Result<std::string> ranges_document(ControlPlane* cp, bool details,
                                    const std::vector<bool>& reachable) {
  auto view = cp->view();
  if (!view) {
    return fail(sqlstate::kConnectionFailure,
                "the metadata store is not reachable: " + cp->unavailable_reason());
  }
  int64_t version = cp->published_version();
  sql::AdminStatement show{};
  show.kind = sql::AdminKind::kShowRanges;
  show.with_indexes = true;
  show.with_details = details;
  auto ranges = cp->execute_admin(show);
  if (!ranges) return fail(ranges.error());
  std::map<std::string, std::pair<double, double>> qps;  // range id → (read, write)
  for (const ClusterFigures::HotRange& h : range_load(cp)) {
    qps[h.range_id] = {h.read_qps, h.write_qps};
  }
  std::string out = "{\"version\":" + std::to_string(version) + ",\"generated_at\":";
  json_string(out, utc_time_text(std::chrono::system_clock::now(), UtcStyle::kIsoSeconds));
  out += ",\"shards\":[";
  const auto& order = view->shard_order();
  for (size_t i = 0; i < order.size(); ++i) {
    if (i > 0) out += ',';
    out += "{\"name\":";
    json_string(out, order[i]);
    out += ",\"reachable\":";
    out += i < reachable.size() ? (reachable[i] ? "true" : "false") : "null";
    const routing::ShardRecord* rec = view->find_shard(order[i]);
    out += ",\"draining\":";
    out += rec != nullptr && rec->draining ? "true" : "false";
    out += '}';
  }
  out += "],\"ranges\":[";
  const routing::ResultSet& rs = *ranges;
  int id = column(rs, "range_id"), table = column(rs, "table_name"),
      index = column(rs, "index_name"), shard = column(rs, "shard"),
      start = column(rs, "start_key"), end = column(rs, "end_key"), rows = column(rs, "row_count"),
      size = column(rs, "range_size_mb");
  bool first = true;
  for (const auto& row : rs.rows) {
    if (!first) out += ',';
    first = false;
    std::string range_id = cell(row, id).value_or("0");
    out += "{\"range_id\":" + range_id + ",\"table\":";
    json_string(out, cell(row, table).value_or(""));
    out += ",\"index\":";
    json_string(out, cell(row, index).value_or(""));
    out += ",\"shard\":";
    json_string(out, cell(row, shard).value_or(""));
    out += ",\"start_key\":";
    json_string(out, cell(row, start).value_or(""));
    out += ",\"end_key\":";
    json_string(out, cell(row, end).value_or(""));
    auto q = qps.find(range_id);
    double read = q == qps.end() ? 0 : q->second.first;
    double write = q == qps.end() ? 0 : q->second.second;
    char buf[128];
    std::snprintf(buf, sizeof buf, ",\"qps\":%.6g,\"read_qps\":%.6g,\"write_qps\":%.6g",
                  read + write, read, write);
    out += buf;
    out += ",\"rows\":";
    json_number(out, cell(row, rows));
    out += ",\"size_bytes\":";
    const auto& mb = cell(row, size);
    if (mb) {
      std::snprintf(buf, sizeof buf, "%.0f", std::strtod(mb->c_str(), nullptr) * 1024 * 1024);
      out += buf;
    } else {
      out += "null";
    }
    out += '}';
  }
  out += "]}";
  return out;
}

}  // namespace

HttpEndpoint::HttpEndpoint(SharedState& shared) : shared_(shared) {}

HttpEndpoint::~HttpEndpoint() {
  stop();
}

Result<void> HttpEndpoint::open(const std::string& host, uint16_t port) {
  error_code ec;
  auto addr = asio::ip::make_address(host, ec);
  if (ec) {
    tcp::resolver r(io_);
    auto res = r.resolve(host, std::to_string(port), ec);
    if (ec || res.empty()) {
      return fail(sqlstate::kConfigFileError, "cannot resolve [http] listen address " + host);
    }
    addr = res.begin()->endpoint().address();
  }
  tcp::endpoint ep(addr, port);
  acceptor_.open(ep.protocol(), ec);
  if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_.bind(ep, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return fail(sqlstate::kConfigFileError, "cannot listen on [http] " + host + ":" +
                                                std::to_string(port) + ": " + ec.message());
  }
  port_ = acceptor_.local_endpoint().port();
  return {};
}

void HttpEndpoint::start() {
  asio::co_spawn(io_, accept_loop(), asio::detached);
  thread_ = std::thread([this] {
    auto guard = asio::make_work_guard(io_);
    for (;;) {
      try {
        io_.run();
        return;
      } catch (const std::exception& e) {
        spdlog::error("http endpoint: {}", e.what());
      }
    }
  });
  spdlog::info("http endpoint on {}:{} (/metrics, /healthz, /)",
               acceptor_.local_endpoint().address().to_string(), port_);
}

void HttpEndpoint::stop() {
  if (!thread_.joinable()) return;
  asio::post(io_, [this] {
    error_code ec;
    acceptor_.close(ec);
    io_.stop();
  });
  thread_.join();
}

awaitable<void> HttpEndpoint::accept_loop() {
  for (;;) {
    error_code ec;
    tcp::socket socket = co_await acceptor_.async_accept(no_throw(ec));
    if (ec) {
      if (ec == asio::error::operation_aborted) co_return;
      continue;
    }
    asio::co_spawn(io_, serve(std::move(socket)), asio::detached);
  }
}

awaitable<void> HttpEndpoint::serve(tcp::socket socket) {
  beast::flat_buffer buffer;
  for (;;) {
    http::request_parser<http::empty_body> parser;
    parser.header_limit(16 * 1024);
    error_code ec;
    co_await http::async_read(socket, buffer, parser, no_throw(ec));
    if (ec) co_return;  // closed, or not HTTP: nothing to answer
    auto& req = parser.get();
    Reply reply;
    if (req.method() != http::verb::get && req.method() != http::verb::head) {
      reply = {405, "text/plain; charset=utf-8", "only GET and HEAD\n"};
    } else {
      auto target = req.target();
      reply = co_await answer(std::string_view(target.data(), target.size()));
    }
    http::response<http::string_body> res{static_cast<http::status>(reply.status), req.version()};
    res.set(http::field::server, "pgrange");
    res.set(http::field::content_type, reply.content_type);
    res.set(http::field::cache_control, "no-store");
    res.keep_alive(req.keep_alive());
    if (req.method() == http::verb::head) {
      res.content_length(reply.body.size());
    } else {
      res.body() = std::move(reply.body);
      res.prepare_payload();
    }
    co_await http::async_write(socket, res, no_throw(ec));
    if (ec || !res.keep_alive()) break;
  }
  error_code ignored;
  socket.shutdown(tcp::socket::shutdown_send, ignored);
}

awaitable<HttpEndpoint::Reply> HttpEndpoint::answer(std::string_view target) {
  std::string_view path = target.substr(0, target.find('?'));
  std::string_view query = path.size() < target.size() ? target.substr(path.size() + 1) : "";
  if (path == "/metrics") co_return co_await metrics();
  if (path == "/healthz") co_return health();
  if (path == "/api/ranges") {
    co_return co_await ranges(query.find("details=1") != std::string_view::npos);
  }
  if (path == "/" || path == "/index.html") {
    co_return Reply{200, "text/html; charset=utf-8", std::string(key_space_page())};
  }
  co_return Reply{404, "text/plain; charset=utf-8", "not found\n"};
}

awaitable<HttpEndpoint::Reply> HttpEndpoint::metrics() {
  ProxySnapshot snap = co_await collect_snapshot(shared_.workers);
  ClusterFigures cluster;
  if (ControlPlane* cp = shared_.control) {
    std::function<ClusterFigures()> figures = [cp] { return cluster_figures(cp); };
    cluster = co_await cp->call<ClusterFigures>(std::move(figures));
  }
  std::shared_ptr<const Settings> settings = shared_.settings.load();
  std::vector<std::string> shards;
  std::vector<bool> paused;
  for (size_t i = 0; i < settings->config.shards.size(); ++i) {
    shards.push_back(settings->config.shards[i].name);
    paused.push_back(settings->shards[i]->paused.load());
  }
  co_return Reply{200, "text/plain; version=0.0.4; charset=utf-8",
                  render_metrics(snap, cluster, shards, paused, shared_.started_at)};
}

HttpEndpoint::Reply HttpEndpoint::health() {
  auto now = std::chrono::steady_clock::now();
  if (checked_at_ != std::chrono::steady_clock::time_point{} &&
      now - checked_at_ < std::chrono::seconds(1)) {
    return last_health_;
  }
  // Ready when the metadata store is open and answers, and so does every shard.
  bool ok = true;
  std::string body = "{\"metadata\":";
  ControlPlane* cp = shared_.control;
  if (cp == nullptr || !cp->view()) {
    ok = false;
    body += "\"not open";
    if (cp != nullptr) append_json_escaped(body, ": " + cp->unavailable_reason());
    body += '"';
  } else if (std::string why = probe(cp->store_dsn()); !why.empty()) {
    ok = false;
    json_string(body, why);
  } else {
    body += "\"ok\"";
  }
  body += ",\"shards\":{";
  std::shared_ptr<const Settings> settings = shared_.settings.load();
  reachable_.assign(settings->config.shards.size(), false);
  for (size_t i = 0; i < settings->config.shards.size(); ++i) {
    const config::ShardConfig& s = settings->config.shards[i];
    std::string why = probe(s.dsn);
    reachable_[i] = why.empty();
    ok = ok && why.empty();
    if (i > 0) body += ',';
    json_string(body, s.name);
    body += ':';
    json_string(body, why.empty() ? "ok" : why);
  }
  body += "}}\n";
  body = std::string("{\"status\":\"") + (ok ? "ok" : "unavailable") + "\"," + body.substr(1);
  checked_at_ = std::chrono::steady_clock::now();
  last_health_ = Reply{ok ? 200u : 503u, "application/json", std::move(body)};
  return last_health_;
}

awaitable<HttpEndpoint::Reply> HttpEndpoint::ranges(bool details) {
  ControlPlane* cp = shared_.control;
  if (cp == nullptr) co_return Reply{503, "text/plain; charset=utf-8", "no control plane\n"};
  std::vector<bool> reachable = reachable_;
  std::function<Result<std::string>()> make = [cp, details, reachable] {
    return ranges_document(cp, details, reachable);
  };
  auto doc = co_await cp->call<Result<std::string>>(std::move(make));
  if (!doc) {
    std::string body = "{\"error\":";
    json_string(body, doc.error().message);
    body += "}";
    co_return Reply{503, "application/json", std::move(body)};
  }
  co_return Reply{200, "application/json", std::move(*doc)};
}

}  // namespace pgrange::proxy
