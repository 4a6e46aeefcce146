#include "proxy/observe/worker_stats.hpp"

#include <algorithm>

namespace pgrange::proxy {

std::string_view route_kind_name(RouteKind kind) {
  switch (kind) {
    case RouteKind::kSingleShard:
      return "single_shard";
    case RouteKind::kFanOut:
      return "fan_out";
    case RouteKind::kMultiShard:
      return "multi_shard";
    case RouteKind::kDdl:
      return "ddl";
    case RouteKind::kPgrange:
      return "pgrange";
    case RouteKind::kRefused:
      return "refused";
  }
  return "unknown";
}

void HistogramValues::add(const HistogramValues& other) {
  for (size_t i = 0; i < buckets.size(); ++i) buckets[i] += other.buckets[i];
  count += other.count;
  sum_us += other.sum_us;
}

void LatencyHistogram::observe(uint64_t us) {
  size_t i =
      static_cast<size_t>(std::lower_bound(kLatencyBucketsUs.begin(), kLatencyBucketsUs.end(), us) -
                          kLatencyBucketsUs.begin());
  buckets_[i].add();
  sum_us_.add(us);
}

HistogramValues LatencyHistogram::read() const {
  HistogramValues v;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    v.buckets[i] = buckets_[i].get();
    v.count += v.buckets[i];
  }
  v.sum_us = sum_us_.get();
  return v;
}

void WorkerStats::count_error(std::string_view sqlstate) {
  std::lock_guard lock(errors_mutex_);
  auto it = errors_.find(sqlstate);
  if (it == errors_.end()) it = errors_.emplace(std::string(sqlstate), 0).first;
  ++it->second;
}

void WorkerStats::add_to(StatsTotals& totals) const {
  for (size_t k = 0; k < kRouteKinds; ++k) {
    totals.queries[k] += queries_[k].get();
    totals.latency[k].add(latency_[k].read());
  }
  totals.transactions += transactions_.get();
  totals.logins += logins_.get();
  totals.login_failures += login_failures_.get();
  totals.slow_statements += slow_statements_.get();
  std::unique_lock shards_lock(shards_mutex_);
  if (totals.shards.size() < shards_.size()) totals.shards.resize(shards_.size());
  for (size_t i = 0; i < shards_.size(); ++i) {
    const ShardCounters& c = *shards_[i];
    StatsTotals::Shard& t = totals.shards[i];
    t.requests += c.requests.get();
    t.transactions += c.transactions.get();
    t.errors += c.errors.get();
    t.pool_waits += c.pool_waits.get();
    t.pool_wait_us += c.pool_wait_us.get();
    t.connects += c.connects.get();
    t.connect_failures += c.connect_failures.get();
  }
  shards_lock.unlock();
  std::lock_guard lock(errors_mutex_);
  for (const auto& [state, n] : errors_) totals.errors[state] += n;
}

void WorkerStats::add_shards(size_t count) {
  std::lock_guard lock(shards_mutex_);
  while (shards_.size() < count) shards_.push_back(std::make_unique<ShardCounters>());
}

}  // namespace pgrange::proxy
