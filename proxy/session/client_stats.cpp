// What a session tells the metrics, SHOW CLIENTS and the slow-statement log: each request's
// route kind and time, the errors it sent, and its state.

#include <spdlog/spdlog.h>

#include "common/text.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"

namespace pgrange::proxy {

namespace {

RouteKind route_kind_of(const routing::StatementPlan& p) {
  using Kind = routing::StatementPlan::Kind;
  switch (p.kind) {
    case Kind::kPass:
      return RouteKind::kSingleShard;
    case Kind::kRead:
      return RouteKind::kFanOut;
    case Kind::kCoordinate:
    case Kind::kScript:
    case Kind::kCopyIn:
    case Kind::kPrepared:
      return RouteKind::kMultiShard;
    case Kind::kBroadcast:
    case Kind::kCreateIndex:
    case Kind::kDropIndex:
      return RouteKind::kDdl;
    case Kind::kAdmin:
    case Kind::kExplain:
    case Kind::kBegin:
    case Kind::kEnd:
      return RouteKind::kPgrange;
    case Kind::kRefuse:
    case Kind::kWait:
      return RouteKind::kRefused;
  }
  return RouteKind::kSingleShard;
}

}  // namespace

void ClientSession::write_error(std::string& out, const Error& e) {
  worker_.stats().count_error(e.sqlstate);
  proxy::write_error(out, e);
}

void ClientSession::write_ready_for_query(std::string& out, char status) {
  proxy::write_ready_for_query(out, status);
  if (logged_in_) request_done(status);
}

void ClientSession::request_done(char status) {
  WorkerStats& stats = worker_.stats();
  bool timed = request_start_ != std::chrono::steady_clock::time_point{};
  uint64_t us = 0;
  if (timed) {
    us = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::steady_clock::now() - request_start_)
                                   .count());
    request_start_ = {};
    auto slow = config().slow_statement;
    if (slow.count() > 0 && us >= static_cast<uint64_t>(slow.count()) * 1000) {
      log_slow_request(us);
    }
  }
  stats.count_request(route_kind_, timed, us);
  if (status == 'I') stats.transactions().add();
  route_kind_ = RouteKind::kSingleShard;
  slow_noted_ = false;
  slow_text_.clear();
  slow_shards_.clear();
  slow_ranges_.clear();
}

void ClientSession::count_backend_message(BackendConnection& conn, char type, std::string_view body,
                                          bool forwarded) {
  if (type == 'Z') {
    char status = body.empty() ? 'I' : body[0];
    conn.count_ready(status);
    if (forwarded) request_done(status);
    return;
  }
  conn.count_error();
  if (forwarded) worker_.stats().count_error(parse_error_fields(body).sqlstate);
}

void ClientSession::note_route(const routing::StatementPlan& p, std::string_view text) {
  route_kind_ = route_kind_of(p);
  if (config().slow_statement.count() == 0) return;
  // Kept only while slow statements are logged, as they are: the work of a log line is done
  // for a slow request only (log_slow_request). assign() keeps the members' capacity.
  slow_noted_ = true;
  slow_text_.assign(text.substr(0, 1000));
  slow_shards_.assign(p.route.shards.begin(), p.route.shards.end());
  if (slow_shards_.empty() && p.shard >= 0) slow_shards_.push_back(p.shard);
  slow_ranges_.clear();
  for (const auto& u : p.route.uses) slow_ranges_.push_back(u.range_id);
}

void ClientSession::log_slow_request(uint64_t us) {
  worker_.stats().slow_statements().add();
  std::string route;
  if (slow_noted_) {
    // The line names the shards and ranges.
    route = ", shards [";
    bool first = true;
    for (int i : slow_shards_) {
      if (i < 0 || static_cast<size_t>(i) >= worker_.pool_count()) continue;
      route += (first ? "" : ",") + worker_.shard_config(static_cast<size_t>(i)).name;
      first = false;
    }
    route += "] ranges [";
    for (size_t i = 0; i < slow_ranges_.size(); ++i) {
      route += (i == 0 ? "" : ",") + std::to_string(slow_ranges_[i]);
    }
    route += "]";
  }
  // A text that mentions a password (ALTER ROLE … PASSWORD '…') is never logged.
  std::string text = slow_text_.empty() ? std::string("(statement not seen: a pipelined request)")
                     : icontains(slow_text_, "password")
                         ? std::string("(statement text withheld: it mentions a password)")
                         : slow_text_;
  spdlog::warn("slow statement: {:.3f} ms, user {}, route {}{}: {}",
               static_cast<double>(us) / 1000.0, user_, route_kind_name(route_kind_), route, text);
}

ClientRow ClientSession::describe() const {
  ClientRow row;
  row.pid = key_pid_;
  row.user = user_;
  row.database = database_;
  auto now_steady = std::chrono::steady_clock::now();
  auto now = std::chrono::system_clock::now();
  if (!logged_in_) {
    row.state = "login";
  } else if (request_start_ != std::chrono::steady_clock::time_point{}) {
    row.state = "active";
    row.running =
        std::chrono::duration_cast<std::chrono::microseconds>(now_steady - request_start_);
  } else if (txn_status_ != 'I' || coord_) {
    row.state = "idle in transaction";
  } else {
    row.state = "idle";
  }
  const tcp::socket& socket = channel_.socket();
  error_code ec;
  auto remote = socket.remote_endpoint(ec);
  if (!ec) {
    row.addr = remote.address().to_string();
    row.port = remote.port();
  }
  auto local = socket.local_endpoint(ec);
  if (!ec) {
    row.local_addr = local.address().to_string();
    row.local_port = local.port();
  }
  row.connect_time = connected_at_;
  row.request_time = last_request_ == std::chrono::steady_clock::time_point{}
                         ? connected_at_
                         : now - std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                     now_steady - last_request_);
  row.application_name = application_name_;
  row.tls = channel_.tls();
  row.route = std::string(route_kind_name(route_kind_));
  if (backend_) row.shard = backend_->shard().name;
  return row;
}

}  // namespace pgrange::proxy
