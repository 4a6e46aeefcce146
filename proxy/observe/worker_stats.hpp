#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace pgrange::proxy {

/// How a client request ran: the `route` label of pgrange's query metrics and SHOW STATS.
enum class RouteKind : uint8_t {
  kSingleShard,  ///< forwarded to one shard (the pass-through)
  kFanOut,       ///< a read over several shards, merged by pgrange
  kMultiShard,   ///< a write or transaction pgrange coordinates over several shards
  kDdl,          ///< DDL run on every shard
  kPgrange,      ///< answered by pgrange itself (admin statements, EXPLAIN, a deferred BEGIN)
  kRefused,      ///< refused by pgrange before any shard saw it
};
inline constexpr size_t kRouteKinds = 6;

/// The label value of a route kind ("single_shard", "fan_out", …).
std::string_view route_kind_name(RouteKind kind);

/// A counter one thread adds to and any thread reads: a relaxed load and store, no locked
/// instruction, so counting costs the hot path about nothing.
class Counter {
 public:
  void add(uint64_t n = 1) {
    value_.store(value_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  uint64_t get() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

/// The upper bounds of the latency buckets, in microseconds (and +Inf after the last).
inline constexpr std::array<uint64_t, 15> kLatencyBucketsUs = {
    100,   250,    500,    1000,   2500,    5000,    10000,   25000,
    50000, 100000, 250000, 500000, 1000000, 2500000, 10000000};

/// What a latency histogram holds: per bucket its own count (not cumulative; the last is
/// +Inf), the count and the sum.
struct HistogramValues {
  std::array<uint64_t, kLatencyBucketsUs.size() + 1> buckets{};
  uint64_t count = 0;
  uint64_t sum_us = 0;
  void add(const HistogramValues& other);
};

/// A latency histogram written by one thread.
class LatencyHistogram {
 public:
  void observe(uint64_t us);
  HistogramValues read() const;

 private:
  std::array<Counter, kLatencyBucketsUs.size() + 1> buckets_;
  Counter sum_us_;
};

/// One worker's counters of one shard.
struct ShardCounters {
  Counter requests;          ///< requests the shard answered (each ReadyForQuery)
  Counter transactions;      ///< ReadyForQuery of an idle session: a transaction ended
  Counter errors;            ///< ErrorResponses from the shard
  Counter pool_waits;        ///< acquires that had to wait for a connection
  Counter pool_wait_us;      ///< the time they waited
  Counter connects;          ///< connections opened
  Counter connect_failures;  ///< connections that could not be opened
};

/// What a worker counted, added up over workers.
struct StatsTotals {
  struct Shard {
    uint64_t requests = 0, transactions = 0, errors = 0, pool_waits = 0, pool_wait_us = 0,
             connects = 0, connect_failures = 0;
  };
  std::array<uint64_t, kRouteKinds> queries{};
  std::array<HistogramValues, kRouteKinds> latency{};
  uint64_t transactions = 0;
  uint64_t logins = 0;
  uint64_t login_failures = 0;
  uint64_t slow_statements = 0;
  std::vector<Shard> shards;
  std::map<std::string, uint64_t> errors;  ///< errors sent to clients, by SQLSTATE
};

/// The counters of one worker thread: written by that thread only, read by the metrics
/// endpoint and SHOW STATS from any thread (per-worker, so no lock is taken on the hot path;
/// the errors by SQLSTATE take one, errors being rare).
class WorkerStats {
 public:
  explicit WorkerStats(size_t shards) { add_shards(shards); }
  /// Counters for shards up to `count` (on the worker's thread; RELOAD adds shards). Those
  /// there are stay where they are: pools keep pointers to theirs.
  void add_shards(size_t count);

  /// A client request answered (its ReadyForQuery sent) after `us` microseconds (no time when
  /// its start was not seen: a pipelined request).
  void count_request(RouteKind kind, bool timed, uint64_t us) {
    auto k = static_cast<size_t>(kind);
    queries_[k].add();
    if (timed) latency_[k].observe(us);
  }
  Counter& transactions() { return transactions_; }
  Counter& logins() { return logins_; }
  Counter& login_failures() { return login_failures_; }
  Counter& slow_statements() { return slow_statements_; }
  ShardCounters& shard(size_t i) { return *shards_[i]; }
  /// An ErrorResponse sent to a client.
  void count_error(std::string_view sqlstate);

  /// Adds this worker's counts to `totals` (sized to the shard count on first use).
  void add_to(StatsTotals& totals) const;

 private:
  std::array<Counter, kRouteKinds> queries_;
  std::array<LatencyHistogram, kRouteKinds> latency_;
  Counter transactions_;
  Counter logins_;
  Counter login_failures_;
  Counter slow_statements_;
  /// Grown on the worker's thread under shards_mutex_, which readers on other threads take.
  std::vector<std::unique_ptr<ShardCounters>> shards_;
  mutable std::mutex shards_mutex_;
  mutable std::mutex errors_mutex_;
  std::map<std::string, uint64_t, std::less<>> errors_;
};

}  // namespace pgrange::proxy
