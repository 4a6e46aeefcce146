#include "proxy/backend_pool.hpp"

#include <spdlog/spdlog.h>

namespace pgrange::proxy {

BackendPool::BackendPool(asio::io_context& io, const config::ShardConfig& shard, int shard_index,
                         int max_size, std::chrono::milliseconds wait_timeout,
                         std::chrono::milliseconds connect_timeout)
    : io_(io),
      shard_(shard),
      shard_index_(shard_index),
      max_size_(max_size < 1 ? 1 : max_size),
      wait_timeout_(wait_timeout),
      connect_timeout_(connect_timeout) {}

awaitable<Result<std::shared_ptr<BackendConnection>>> BackendPool::acquire() {
  if (closed_) {
    co_return fail(sqlstate::kAdminShutdown, "pgrange is shutting down");
  }
  while (!idle_.empty()) {
    auto conn = std::move(idle_.front());
    idle_.pop_front();
    ++conn->idle_token;  // ends the idle watch
    error_code ec;
    conn->socket().cancel(ec);
    if (!conn->broken()) co_return conn;
    --open_;
  }
  spdlog::debug("pool {}: acquire open={} idle={} waiters={}", shard_.name, open_, idle_.size(),
                waiters_.size());
  bool may_open = open_ < max_size_;
  if (!may_open) {
    auto waiter = std::make_shared<Waiter>(io_);
    waiter->timer.expires_after(wait_timeout_);
    waiters_.push_back(waiter);
    error_code ec;
    co_await waiter->timer.async_wait(no_throw(ec));
    if (waiter->conn) co_return std::move(waiter->conn);
    if (!waiter->slot) {
      std::erase(waiters_, waiter);
      co_return fail(sqlstate::kTooManyConnections,
                     "timed out after " + std::to_string(wait_timeout_.count()) +
                         " ms waiting for a connection to shard \"" + shard_.name +
                         "\" (pool_size " + std::to_string(max_size_) + ")");
    }
    // A slot was freed for us: the pool already counted it as open.
  } else {
    ++open_;
  }
  auto conn = co_await BackendConnection::connect(shard_, shard_index_, connect_timeout_);
  if (!conn) {
    --open_;
    // Let the next waiter try for itself (it will get the same error if the shard is down).
    hand_off_slot();
    spdlog::warn("{}", conn.error().message);
    co_return fail(conn.error());
  }
  co_return std::move(*conn);
}

void BackendPool::hand_off_slot() {
  if (waiters_.empty() || open_ >= max_size_) return;
  auto w = std::move(waiters_.front());
  waiters_.pop_front();
  w->slot = true;
  ++open_;
  w->timer.cancel();
}

void BackendPool::release(std::shared_ptr<BackendConnection> conn, bool reusable) {
  spdlog::debug("pool {}: release reusable={} broken={} open={} idle={} waiters={}", shard_.name,
                reusable, conn->broken(), open_, idle_.size(), waiters_.size());
  if (!reusable || conn->broken() || closed_) {
    conn->mark_broken();
    conn.reset();
    --open_;
    hand_off_slot();
    return;
  }
  if (!waiters_.empty()) {
    auto w = std::move(waiters_.front());
    waiters_.pop_front();
    w->conn = std::move(conn);
    w->timer.cancel();
    return;
  }
  watch_idle(conn);
  idle_.push_back(std::move(conn));
}

void BackendPool::watch_idle(const std::shared_ptr<BackendConnection>& conn) {
  // An idle server connection should say nothing; if it becomes readable the server closed it
  // (a restart, an administrator's pg_terminate_backend) and it must not be handed out.
  uint64_t token = ++conn->idle_token;
  std::weak_ptr<BackendConnection> weak = conn;
  conn->socket().async_wait(tcp::socket::wait_read, [this, weak, token](error_code ec) {
    auto c = weak.lock();
    if (!c || ec || c->idle_token != token) return;
    spdlog::info("shard {}: idle server connection closed by the server", shard_.name);
    c->mark_broken();
    auto it = std::find(idle_.begin(), idle_.end(), c);
    if (it != idle_.end()) {
      idle_.erase(it);
      --open_;
      hand_off_slot();
    }
  });
}

void BackendPool::close_idle() {
  closed_ = true;
  for (auto& c : idle_) {
    ++c->idle_token;
    error_code ec;
    c->socket().cancel(ec);
    --open_;
  }
  idle_.clear();
  for (auto& w : waiters_) w->timer.cancel();
  waiters_.clear();
}

}  // namespace pgrange::proxy
