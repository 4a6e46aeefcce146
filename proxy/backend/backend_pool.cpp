#include "proxy/backend/backend_pool.hpp"

#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <cerrno>

namespace pgrange::proxy {

BackendPool::BackendPool(asio::io_context& io, const config::ShardConfig& shard, int shard_index,
                         asio::ssl::context* tls, BackendLogin login, int max_size,
                         std::chrono::milliseconds wait_timeout,
                         std::chrono::milliseconds connect_timeout)
    : io_(io),
      shard_(shard),
      shard_index_(shard_index),
      tls_(tls),
      login_(std::move(login)),
      max_size_(max_size < 1 ? 1 : max_size),
      wait_timeout_(wait_timeout),
      connect_timeout_(connect_timeout) {}

awaitable<Result<std::shared_ptr<BackendConnection>>> BackendPool::acquire() {
  if (closed_) {
    co_return fail(sqlstate::kAdminShutdown, "pgrange is shutting down");
  }
  if (auto conn = take_idle()) co_return conn;
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
  auto conn =
      co_await BackendConnection::connect(shard_, shard_index_, tls_, login_, connect_timeout_);
  if (!conn) {
    --open_;
    // Let the next waiter try for itself (it will get the same error if the shard is down).
    hand_off_slot();
    spdlog::warn("{}", conn.error().message);
    co_return fail(conn.error());
  }
  co_return std::move(*conn);
}

std::shared_ptr<BackendConnection> BackendPool::take_idle() {
  while (!idle_.empty() && !closed_) {
    // Most recently used first: it is the one least likely to have gone stale, and a busy
    // pool keeps reusing a few warm connections.
    auto conn = std::move(idle_.back());
    idle_.pop_back();
    if (!conn->broken() && still_open(*conn)) return conn;
    spdlog::info("shard {}: idle server connection was closed by the server", shard_.name);
    conn->mark_broken();
    --open_;
    hand_off_slot();
  }
  return nullptr;
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
  conn->end_lease();
  spdlog::debug("pool {}: release reusable={} broken={} open={} idle={} waiters={}", shard_.name,
                reusable, conn->broken(), open_, idle_.size(), waiters_.size());
  if (!reusable || conn->broken() || conn->retired() || closed_) {
    conn->mark_broken();
    conn.reset();
    --open_;
    hand_off_slot();
    return;
  }
  conn->index_notes().clear();  // a transaction that did not apply them rolled back
  if (!waiters_.empty()) {
    auto w = std::move(waiters_.front());
    waiters_.pop_front();
    w->conn = std::move(conn);
    w->timer.cancel();
    return;
  }
  conn->idle_since = std::chrono::steady_clock::now();
  idle_.push_back(std::move(conn));
}

bool BackendPool::still_open(BackendConnection& conn) {
  // An idle server connection says nothing; if it has something to read, the server closed it
  // (a restart, pg_terminate_backend: a FATAL then EOF). Checking costs a system call, so only
  // connections idle for a while are checked: one reused within a millisecond is as good as
  // the transaction that just ended on it.
  if (std::chrono::steady_clock::now() - conn.idle_since < std::chrono::milliseconds(1)) {
    return true;
  }
  char c;
  ssize_t n = ::recv(conn.socket().native_handle(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
  return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

void BackendPool::close_idle() {
  closed_ = true;
  open_ -= static_cast<int>(idle_.size());
  idle_.clear();
  for (auto& w : waiters_) w->timer.cancel();
  waiters_.clear();
}

}  // namespace pgrange::proxy
