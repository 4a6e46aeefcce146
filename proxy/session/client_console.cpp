// The console's statements (SHOW POOLS, CLIENTS, SERVERS, STATS, CONFIG, VERSION, RELOAD,
// PAUSE, RESUME): answered from the proxy's own state, for users with admin = true.

#include <spdlog/spdlog.h>

#include "proxy/control/thread_call.hpp"
#include "proxy/observe/admin_console.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/worker.hpp"

namespace pgrange::proxy {

namespace {

Error console_error(std::string_view sqlstate, std::string message) {
  return Error::make(std::string(sqlstate), std::move(message));
}

}  // namespace

awaitable<Result<routing::ResultSet>> ClientSession::run_console(const sql::AdminStatement& stmt,
                                                                 std::string& notice) {
  SharedState& shared = worker_.shared();
  using K = sql::AdminKind;
  switch (stmt.kind) {
    case K::kShowPools:
    case K::kShowClients:
    case K::kShowServers: {
      ProxySnapshot snap = co_await collect_snapshot(shared.workers);
      if (stmt.kind == K::kShowPools) co_return show_pools(snap, worker_.config());
      if (stmt.kind == K::kShowClients) co_return show_clients(snap);
      co_return show_servers(snap);
    }
    case K::kShowStats:
      co_return show_stats(collect_stats(shared.workers), worker_.config());
    case K::kShowConfig:
      co_return show_config(worker_.config());
    case K::kShowVersion:
      co_return show_version(PGRANGE_VERSION);
    case K::kReload: {
      if (!shared.reload || shared.main_io == nullptr) {
        co_return tl::unexpected(
            console_error(sqlstate::kFeatureNotSupported, "RELOAD: this pgrange has no file"));
      }
      std::function<Result<std::string>()> reload = shared.reload;
      auto done = co_await call_on<Result<std::string>>(*shared.main_io, std::move(reload));
      if (!done) co_return tl::unexpected(done.error());
      notice = *done;
      routing::ResultSet rs;
      rs.tag = "RELOAD";
      co_return rs;
    }
    case K::kPause:
    case K::kResume:
      break;
    default:
      co_return tl::unexpected(
          console_error(sqlstate::kInternalError, "not a statement of the console"));
  }
  // PAUSE / RESUME [shard]: every shard without a name.
  std::shared_ptr<const Settings> settings = shared.settings.load();
  const std::vector<config::ShardConfig>& configured = settings->config.shards;
  std::vector<size_t> shards;
  for (size_t i = 0; i < configured.size(); ++i) {
    if (stmt.shard.empty() || configured[i].name == stmt.shard) shards.push_back(i);
  }
  if (shards.empty()) {
    co_return tl::unexpected(console_error("42704", "shard \"" + stmt.shard + "\" does not exist"));
  }
  routing::ResultSet rs;
  rs.tag = stmt.kind == K::kPause ? "PAUSE" : "RESUME";
  for (size_t i : shards) settings->shards[i]->paused.store(stmt.kind == K::kPause);
  if (stmt.kind == K::kResume) {
    spdlog::info("RESUME {}: new transactions go to the shard again",
                 stmt.shard.empty() ? "(every shard)" : stmt.shard);
    co_return rs;
  }
  spdlog::info("PAUSE {}: new transactions wait; waiting for the open ones to end",
               stmt.shard.empty() ? "(every shard)" : stmt.shard);
  // As PgBouncer's PAUSE: the statement returns once no connection to the shard is in use
  // (transactions that hold one end first); idle ones are closed.
  asio::steady_timer timer(worker_.io());
  for (;;) {
    for (Worker* w : shared.workers) {
      asio::post(w->io(), [w, shards] {
        for (size_t i : shards) w->drop_idle(i);
      });
    }
    ProxySnapshot snap = co_await collect_snapshot(shared.workers);
    size_t open = 0;
    for (const ServerRow& s : snap.servers) {
      for (size_t i : shards) open += s.shard == configured[i].name ? 1 : 0;
    }
    // This session's own connection (session pooling) would wait for itself.
    for (size_t i : shards) {
      if (backend_ && static_cast<size_t>(backend_->shard_index()) == i && open > 0) --open;
    }
    if (open == 0) break;
    if (closing_ || !settings->shards[shards.front()]->paused.load()) {
      co_return tl::unexpected(console_error(
          sqlstate::kQueryCanceled, "PAUSE: RESUME came before the shard's connections closed"));
    }
    timer.expires_after(std::chrono::milliseconds(50));
    error_code ec;
    co_await timer.async_wait(no_throw(ec));
  }
  co_return rs;
}

}  // namespace pgrange::proxy
