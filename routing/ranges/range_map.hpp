#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/error.hpp"
#include "routing/keys/span.hpp"

namespace pgrange::routing {

/// One range of the key space: the keys [start_key, end_key) and the shard that holds them.
struct RangeDescriptor {
  uint64_t range_id = 0;
  std::string start_key;
  std::string end_key;
  /// Name of the PostgreSQL server (shard) holding the range.
  std::string shard;
  /// Bumped by every change to this range; lets caches detect stale descriptors.
  uint64_t generation = 0;
  /// A manual split is kept (not merged away) until this time (µs since the Unix epoch).
  std::optional<int64_t> split_enforced_until;

  /// True when key lies in [start_key, end_key).
  bool contains(std::string_view key) const { return key >= start_key && key < end_key; }
  bool operator==(const RangeDescriptor&) const = default;
};

/// An immutable view of the range map; readers hold it without any lock. Ranges are sorted
/// by start key and tile [/Min, /Max).
class RangeMapSnapshot {
 public:
  /// Builds the lookup index over ranges that already tile the space (checked by callers).
  explicit RangeMapSnapshot(std::vector<RangeDescriptor> ranges, uint64_t version);

  /// Number of ranges.
  size_t size() const { return ranges_.size(); }
  /// All ranges in key order.
  std::span<const RangeDescriptor> ranges() const { return ranges_; }
  /// The range at a position in key order.
  const RangeDescriptor& at(size_t index) const { return ranges_[index]; }
  /// Increases with every published change.
  uint64_t version() const { return version_; }

  /// Position of the range containing key (greatest start <= key); size() if key >= /Max.
  size_t find_index(std::string_view key) const;
  /// The range containing key, or nullptr if key >= /Max.
  const RangeDescriptor* lookup(std::string_view key) const;
  /// Positions of the ranges containing each key of an ascending batch (merge walk); a key
  /// >= /Max gets size().
  void lookup_sorted(std::span<const std::string_view> sorted_keys, std::vector<size_t>& out) const;
  /// The ranges overlapping [start, end), in key order.
  std::span<const RangeDescriptor> scan(std::string_view start, std::string_view end) const;
  /// Positions of the ranges overlapping any span of a normalised SpanSet, ascending, once each.
  std::vector<size_t> scan_spans(const SpanSet& spans) const;

 private:
  // True when the start key of range i is <= key (uint64 prefix first, then full bytes).
  bool start_le(size_t i, uint64_t key_prefix, std::string_view key) const;
  std::string_view start_key(size_t i) const {
    return std::string_view(key_bytes_)
        .substr(key_offsets_[i], key_offsets_[i + 1] - key_offsets_[i]);
  }

  std::vector<RangeDescriptor> ranges_;
  uint64_t version_;
  // Lookup index: 8-byte big-endian prefixes of the start keys in Eytzinger (BFS) order,
  // 1-based, with the sorted position of each node; plus the sorted prefixes and all start
  // keys concatenated, for tie-breaks without touching the descriptors.
  std::vector<uint64_t> eytzinger_;
  std::vector<uint32_t> eytzinger_rank_;
  std::vector<uint64_t> prefixes_;
  std::string key_bytes_;
  std::vector<uint32_t> key_offsets_;
};

/// One change request for RangeMap::apply.
struct RangeOp {
  enum class Kind { kSplit, kMerge, kReassign };
  Kind kind = Kind::kSplit;
  /// kSplit: the key that becomes the start of the new right-hand range.
  std::string split_key;
  /// kMerge: the left range (merged with its right neighbour); kReassign: the range moved.
  uint64_t range_id = 0;
  /// kReassign: the new shard.
  std::string shard;
  /// kSplit: keep the split until this time (set on the new right-hand range).
  std::optional<int64_t> split_enforced_until;

  /// Split the range containing key at key.
  static RangeOp split(std::string key, std::optional<int64_t> enforced_until = std::nullopt);
  /// Merge a range with its right neighbour.
  static RangeOp merge(uint64_t range_id);
  /// Move a range to another shard.
  static RangeOp reassign(uint64_t range_id, std::string shard);
};

/// What one RangeOp did: the descriptors it replaced and the ones that replaced them.
struct RangeChange {
  RangeOp::Kind kind = RangeOp::Kind::kSplit;
  /// Nothing changed (split at an existing boundary, reassign to the same shard).
  bool no_op = false;
  std::vector<RangeDescriptor> before;
  std::vector<RangeDescriptor> after;
};

/// The range map: ranges tiling [/Min, /Max). Readers call snapshot() (lock-free, never a
/// torn map); writers are serialised by a mutex and publish a new snapshot copy-on-write.
class RangeMap {
 public:
  /// One range [/Min, /Max) with id 1 on `shard`.
  explicit RangeMap(std::string shard);
  RangeMap(const RangeMap&) = delete;
  RangeMap& operator=(const RangeMap&) = delete;

  /// Loads ranges (e.g. from the metadata store); 22023 unless they tile [/Min, /Max) with
  /// unique ids.
  static Result<std::unique_ptr<RangeMap>> from_descriptors(std::vector<RangeDescriptor> ranges);

  /// The current snapshot.
  std::shared_ptr<const RangeMapSnapshot> snapshot() const {
    return current_.load(std::memory_order_acquire);
  }

  /// Applies ops in order, all or nothing, and publishes one new snapshot. Errors: 22023
  /// for a split key outside (/Min, /Max) or an unknown range id, 55000 for merging the last
  /// range or ranges on different shards.
  Result<std::vector<RangeChange>> apply(std::span<const RangeOp> ops);

  /// Splits the range containing key at key (no_op if key already starts a range).
  Result<RangeChange> split(std::string_view key,
                            std::optional<int64_t> enforced_until = std::nullopt);
  /// Merges a range with its right neighbour (both must be on the same shard).
  Result<RangeChange> merge(uint64_t range_id);
  /// Moves a range to another shard (no_op if it is already there).
  Result<RangeChange> reassign(uint64_t range_id, std::string shard);

 private:
  RangeMap(std::vector<RangeDescriptor> ranges, uint64_t next_range_id);
  Result<RangeChange> apply_one(std::vector<RangeDescriptor>& ranges,
                                std::unordered_map<uint64_t, std::string>& starts,
                                uint64_t& next_id, const RangeOp& op);

  mutable std::mutex write_mu_;
  // Writer state (under write_mu_): the range id -> start key index and the next new id.
  std::unordered_map<uint64_t, std::string> start_by_id_;
  uint64_t next_range_id_ = 2;
  std::atomic<std::shared_ptr<const RangeMapSnapshot>> current_;
};

}  // namespace pgrange::routing
