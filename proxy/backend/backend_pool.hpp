#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "common/error.hpp"
#include "config/config.hpp"
#include "proxy/asio.hpp"
#include "proxy/backend/backend_connection.hpp"
#include "proxy/backend/backend_login.hpp"

namespace pgrange::proxy {

/// The connections of one worker thread to one shard, logged in as one role: at most
/// `max_size` open, idle ones reused, clients beyond the limit queued with a timeout. Used from
/// its worker's thread only.
class BackendPool {
 public:
  /// `tls`: the shard's TLS context (nullptr: none); it outlives the pool.
  /// `counters`: where its worker counts waits and connects; `paused`: set while the shard is
  /// PAUSEd (acquires wait, released connections close); `held`: set while RELOAD adds a shard
  /// (acquires wait, connections stay); any may be nullptr.
  BackendPool(asio::io_context& io, const config::ShardConfig& shard, int shard_index,
              asio::ssl::context* tls, BackendLogin login, int max_size,
              std::chrono::milliseconds wait_timeout, std::chrono::milliseconds connect_timeout,
              ShardCounters* counters = nullptr, const std::atomic<bool>* paused = nullptr,
              const std::atomic<bool>* held = nullptr);

  /// A connection ready for a transaction: an idle one, a new one, or the next one released.
  /// Fails with 08006 naming the shard when it cannot be reached, 53300 on timeout. Waits
  /// while the shard is paused, and while it is held unless `through_hold` (the caller holds
  /// another connection: its transaction runs already).
  awaitable<Result<std::shared_ptr<BackendConnection>>> acquire(bool through_hold = false);

  /// An idle healthy connection, or nullptr (then acquire() opens one or waits; also while the
  /// shard is paused or held, so that acquire() waits).
  std::shared_ptr<BackendConnection> take_idle();
  /// Set while RELOAD adds a shard: new transactions wait.
  bool held() const { return held_ != nullptr && held_->load(std::memory_order_relaxed); }

  /// Returns a connection. Unless `reusable`, healthy and not retired, it is closed and its
  /// slot freed.
  void release(std::shared_ptr<BackendConnection> conn, bool reusable);

  /// Closes idle connections and makes new acquires fail (shutdown).
  void close_idle();
  /// Closes the idle connections only (PAUSE: the shard's connections drain).
  void drop_idle();
  /// New limits after a RELOAD: past a smaller size, connections close as they come back.
  void set_limits(int max_size, std::chrono::milliseconds wait_timeout,
                  std::chrono::milliseconds connect_timeout);

  /// Every open connection of the pool, idle or in use (SHOW SERVERS).
  std::vector<std::shared_ptr<BackendConnection>> connections();
  /// Clients waiting for a connection, and the longest wait so far.
  size_t waiting_count() const { return waiters_.size() + paused_waiters_; }
  std::chrono::microseconds longest_wait() const;
  int max_size() const { return max_size_; }

  /// The shard database's collation (datcollate), once a merge of text asked for it.
  std::optional<std::string>& collation() { return collation_; }

  int open_count() const { return open_; }
  size_t idle_count() const { return idle_.size(); }
  const config::ShardConfig& shard() const { return shard_; }
  const BackendLogin& login() const { return login_; }

 private:
  struct Waiter {
    explicit Waiter(asio::io_context& io) : timer(io) {}
    asio::steady_timer timer;
    std::chrono::steady_clock::time_point since = std::chrono::steady_clock::now();
    std::shared_ptr<BackendConnection> conn;
    bool slot = false;  ///< granted the right to open a new connection
  };

  static bool still_open(BackendConnection& conn);
  void hand_off_slot();
  bool paused() const { return paused_ != nullptr && paused_->load(std::memory_order_relaxed); }
  /// Waits while the shard is paused or (unless `through_hold`) held; false when the wait
  /// timed out.
  awaitable<bool> wait_out_pause(bool through_hold);
  bool must_wait(bool through_hold) const { return paused() || (held() && !through_hold); }
  std::shared_ptr<BackendConnection> pop_idle();

  asio::io_context& io_;
  config::ShardConfig shard_;  // a copy: the settings it came from may be replaced (RELOAD)
  int shard_index_;
  asio::ssl::context* tls_;
  BackendLogin login_;
  int max_size_;
  std::chrono::milliseconds wait_timeout_;
  std::chrono::milliseconds connect_timeout_;
  int open_ = 0;
  bool closed_ = false;
  std::deque<std::shared_ptr<BackendConnection>> idle_;
  std::deque<std::shared_ptr<Waiter>> waiters_;
  std::optional<std::string> collation_;
  ShardCounters* counters_;
  const std::atomic<bool>* paused_;
  const std::atomic<bool>* held_;
  size_t paused_waiters_ = 0;
  std::chrono::steady_clock::time_point oldest_paused_wait_{};
  /// Every connection opened, for SHOW SERVERS (expired entries pruned as it is read).
  std::vector<std::weak_ptr<BackendConnection>> opened_;
};

}  // namespace pgrange::proxy
