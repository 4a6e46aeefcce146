#include "proxy/backend/backend_pool.hpp"

#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <cerrno>

namespace pgrange::proxy {

BackendPool::BackendPool(asio::io_context& io, const config::ShardConfig& shard, int shard_index,
                         asio::ssl::context* tls, BackendLogin login, int max_size,
                         std::chrono::milliseconds wait_timeout,
                         std::chrono::milliseconds connect_timeout, ShardCounters* counters,
                         const std::atomic<bool>* paused, const std::atomic<bool>* held)
    : io_(io),
      shard_(shard),
      shard_index_(shard_index),
      tls_(tls),
      login_(std::move(login)),
      max_size_(max_size < 1 ? 1 : max_size),
      wait_timeout_(wait_timeout),
      connect_timeout_(connect_timeout),
      counters_(counters),
      paused_(paused),
      held_(held) {}

awaitable<bool> BackendPool::wait_out_pause(bool through_hold) {
  // PAUSE holds new transactions back until RESUME (PgBouncer's PAUSE): checked every 20 ms,
  // pausing being rare; the wait counts against pool_wait_timeout as any other.
  auto start = std::chrono::steady_clock::now();
  if (paused_waiters_++ == 0) oldest_paused_wait_ = start;
  asio::steady_timer timer(io_);
  bool ok = true;
  while (must_wait(through_hold) && !closed_) {
    if (std::chrono::steady_clock::now() - start >= wait_timeout_) {
      ok = false;
      break;
    }
    timer.expires_after(std::chrono::milliseconds(20));
    error_code ec;
    co_await timer.async_wait(no_throw(ec));
  }
  --paused_waiters_;
  if (counters_ != nullptr) {
    counters_->pool_waits.add();
    counters_->pool_wait_us.add(
        static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                  std::chrono::steady_clock::now() - start)
                                  .count()));
  }
  co_return ok;
}

awaitable<Result<std::shared_ptr<BackendConnection>>> BackendPool::acquire(bool through_hold) {
  if (closed_) {
    co_return fail(sqlstate::kAdminShutdown, "pgrange is shutting down");
  }
  if (must_wait(through_hold) && !co_await wait_out_pause(through_hold)) {
    co_return fail(sqlstate::kTooManyConnections,
                   "timed out after " + std::to_string(wait_timeout_.count()) +
                       " ms waiting for shard \"" + shard_.name + "\", which is " +
                       (paused() ? "paused (PAUSE)" : "held back while RELOAD adds a shard"));
  }
  if (closed_) {
    co_return fail(sqlstate::kAdminShutdown, "pgrange is shutting down");
  }
  if (auto conn = pop_idle()) co_return conn;
  spdlog::debug("pool {}: acquire open={} idle={} waiters={}", shard_.name, open_, idle_.size(),
                waiters_.size());
  bool may_open = open_ < max_size_;
  if (!may_open) {
    auto waiter = std::make_shared<Waiter>(io_);
    waiter->timer.expires_after(wait_timeout_);
    waiters_.push_back(waiter);
    error_code ec;
    co_await waiter->timer.async_wait(no_throw(ec));
    if (counters_ != nullptr) {
      counters_->pool_waits.add();
      counters_->pool_wait_us.add(
          static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                    std::chrono::steady_clock::now() - waiter->since)
                                    .count()));
    }
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
    if (counters_ != nullptr) counters_->connect_failures.add();
    // Let the next waiter try for itself (it will get the same error if the shard is down).
    hand_off_slot();
    spdlog::warn("{}", conn.error().message);
    co_return fail(conn.error());
  }
  if (counters_ != nullptr) counters_->connects.add();
  (*conn)->set_counters(counters_);
  if (opened_.size() >= 2 * static_cast<size_t>(max_size_) + 8) {
    std::erase_if(opened_, [](const std::weak_ptr<BackendConnection>& w) { return w.expired(); });
  }
  opened_.push_back(*conn);
  co_return std::move(*conn);
}

std::shared_ptr<BackendConnection> BackendPool::take_idle() {
  if (paused() || held()) return nullptr;
  return pop_idle();
}

std::shared_ptr<BackendConnection> BackendPool::pop_idle() {
  while (!idle_.empty() && !closed_) {
    // Most recently used first: it is the one least likely to have gone stale, and a busy
    // pool keeps reusing a few warm connections.
    auto conn = std::move(idle_.back());
    idle_.pop_back();
    conn->idle = false;
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
  conn->holder = nullptr;
  spdlog::debug("pool {}: release reusable={} broken={} open={} idle={} waiters={}", shard_.name,
                reusable, conn->broken(), open_, idle_.size(), waiters_.size());
  if (!reusable || conn->broken() || conn->retired() || closed_ || paused() || open_ > max_size_) {
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
  conn->idle = true;
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

void BackendPool::drop_idle() {
  open_ -= static_cast<int>(idle_.size());
  idle_.clear();
  hand_off_slot();
}

void BackendPool::set_limits(int max_size, std::chrono::milliseconds wait_timeout,
                             std::chrono::milliseconds connect_timeout) {
  max_size_ = max_size < 1 ? 1 : max_size;
  wait_timeout_ = wait_timeout;
  connect_timeout_ = connect_timeout;
  while (open_ > max_size_ && !idle_.empty()) {
    idle_.pop_front();  // the least recently used first
    --open_;
  }
  while (!waiters_.empty() && open_ < max_size_) hand_off_slot();
}

std::vector<std::shared_ptr<BackendConnection>> BackendPool::connections() {
  std::erase_if(opened_, [](const std::weak_ptr<BackendConnection>& w) {
    auto c = w.lock();
    return !c || c->broken();
  });
  std::vector<std::shared_ptr<BackendConnection>> out;
  for (const auto& w : opened_) out.push_back(w.lock());
  return out;
}

std::chrono::microseconds BackendPool::longest_wait() const {
  auto now = std::chrono::steady_clock::now();
  std::chrono::steady_clock::duration longest{0};
  if (!waiters_.empty()) longest = now - waiters_.front()->since;
  if (paused_waiters_ > 0) longest = std::max(longest, now - oldest_paused_wait_);
  return std::chrono::duration_cast<std::chrono::microseconds>(longest);
}

void BackendPool::close_idle() {
  closed_ = true;
  open_ -= static_cast<int>(idle_.size());
  idle_.clear();
  for (auto& w : waiters_) w->timer.cancel();
  waiters_.clear();
}

}  // namespace pgrange::proxy
