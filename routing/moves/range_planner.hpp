#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "routing/ranges/range_map.hpp"

namespace pgrange::routing {

/// What the range manager is allowed to do ([ranges] in the configuration).
struct RangeManagerSettings {
  bool auto_split = true;
  int64_t range_max_bytes = 512LL * 1024 * 1024;
  double split_qps = 2500;
  std::chrono::seconds merge_delay{300};
  bool rebalance = true;
  std::chrono::milliseconds check_interval{5000};
};

/// One range of a table's primary index as the range manager sees it at one look.
struct ManagedRange {
  RangeDescriptor range;
  uint64_t table_id = 0;
  /// 1: a range of the table's rows; else of a global index's entries (its id).
  uint32_t index_id = 1;
  std::string table;  ///< the table's name (for an index's range: "table@index")
  /// The range starts its table's rows or its index's entries: never merged into the range
  /// before it (another table's or index's).
  bool table_start = false;
  /// Its start is a split to keep: SPLIT AT's (until its expiration) or the configuration's.
  bool kept_split = false;
  /// Its size measured on its shard (range_stats), when its table is big enough on that shard
  /// for the range to be near the limit; else an estimate (its share of the table there).
  std::optional<int64_t> measured_bytes;
  int64_t estimated_bytes = 0;
  int64_t table_bytes_there = 0;  ///< its table's size on its shard (pg_table_size)
  int64_t rows = 0;               ///< with measured_bytes
  double qps = 0;                 ///< reads and writes per second, all instances
  /// Sampled keys of its single-key requests, oldest first (RangeRate::samples).
  std::vector<std::string> samples;

  int64_t bytes() const { return measured_bytes.value_or(estimated_bytes); }
};

/// One thing the range manager decided to do, and why.
struct RangeDecision {
  enum class Kind {
    kSplitBySize,  ///< split at the middle key of its rows (found on the shard)
    kSplitByLoad,  ///< split at `split_key`
    kMerge,        ///< merge `range_id` with its right neighbour `other_range_id`
    kMove,         ///< move to `target`
    /// move to `target`, the shard of its neighbour `other_range_id`, to merge them (a later
    /// look merges them when they are still small and cold)
    kMoveToMerge,
    kKeep,  ///< busy, but no split would spread its load: nothing done (logged once)
  };
  Kind kind = Kind::kKeep;
  uint64_t range_id = 0;
  uint64_t other_range_id = 0;
  std::string split_key;
  std::string target;
  std::string reason;
};

/// Decides, from one look at the ranges (in key order) and the shards, what the range manager
/// does next: splits of ranges too big or too busy; else merges of neighbours small and cold
/// for long enough (neighbours on two shards: first a move of the smaller one to the other's
/// shard); else one move that evens out the shards' load, or else their size. Pure:
/// what it remembers between looks is when it first saw each range and each small cold pair,
/// so that a young split is never undone and a merge waits for merge_delay.
class RangePlanner {
 public:
  using Clock = std::chrono::steady_clock;

  explicit RangePlanner(RangeManagerSettings settings) : settings_(settings) {}

  std::vector<RangeDecision> plan(const std::vector<ManagedRange>& ranges,
                                  const std::vector<std::string>& shards, Clock::time_point now);

  /// A range the manager must not try to move again (a move of it was refused).
  void forget_moves_of(const RangeDescriptor& range);

  const RangeManagerSettings& settings() const { return settings_; }

 private:
  std::optional<RangeDecision> load_split(const ManagedRange& r) const;
  std::optional<RangeDecision> move(const std::vector<ManagedRange>& ranges,
                                    const std::vector<std::string>& shards) const;

  RangeManagerSettings settings_;
  /// (range id, generation) → when first seen.
  std::map<std::pair<uint64_t, uint64_t>, Clock::time_point> first_seen_;
  /// Two neighbours (ids and spans: a split changes a span, a move does not) → since when both
  /// are small and cold.
  using Pair = std::tuple<uint64_t, std::string, uint64_t, std::string, std::string>;
  std::map<Pair, Clock::time_point> cold_since_;
  /// (range id, generation) of ranges whose move was refused.
  std::map<std::pair<uint64_t, uint64_t>, bool> unmovable_;
};

/// The key at which to split a busy range by its sampled keys: the middle of the older half of
/// the samples, if the newer half falls on both sides of it (between a quarter and three
/// quarters on each); nullopt with `why` when no key would spread the load (one key takes it,
/// or the keys keep increasing so that the load stays at the range's end).
std::optional<std::string> load_split_key(const std::vector<std::string>& samples,
                                          std::string_view start_key, std::string_view end_key,
                                          std::string& why);

}  // namespace pgrange::routing
