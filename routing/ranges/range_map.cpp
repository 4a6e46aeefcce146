#include "routing/ranges/range_map.hpp"

#include <algorithm>
#include <bit>
#include <unordered_set>

#include "routing/keys/key_space.hpp"

namespace pgrange::routing {
namespace {

constexpr std::string_view kObjectNotInPrerequisiteState = "55000";

// The first 8 bytes of a key as a big-endian integer, zero-padded: comparing two prefixes
// orders keys the same way memcmp does, except that equal prefixes need the full bytes.
uint64_t key_prefix(std::string_view key) {
  uint64_t v = 0;
  size_t n = std::min<size_t>(key.size(), 8);
  for (size_t i = 0; i < n; ++i) v |= uint64_t{static_cast<uint8_t>(key[i])} << (56 - 8 * i);
  return v;
}

// Position of the range containing key in a sorted descriptor vector (writer side).
size_t index_of(const std::vector<RangeDescriptor>& ranges, std::string_view key) {
  auto it = std::upper_bound(
      ranges.begin(), ranges.end(), key,
      [](std::string_view k, const RangeDescriptor& r) { return k < r.start_key; });
  return static_cast<size_t>(it - ranges.begin()) - 1;
}

}  // namespace

RangeMapSnapshot::RangeMapSnapshot(std::vector<RangeDescriptor> ranges, uint64_t version)
    : ranges_(std::move(ranges)), version_(version) {
  const size_t n = ranges_.size();
  prefixes_.reserve(n);
  key_offsets_.reserve(n + 1);
  for (const auto& r : ranges_) {
    prefixes_.push_back(key_prefix(r.start_key));
    key_offsets_.push_back(static_cast<uint32_t>(key_bytes_.size()));
    key_bytes_ += r.start_key;
  }
  key_offsets_.push_back(static_cast<uint32_t>(key_bytes_.size()));
  // In-order traversal of the implicit tree assigns the sorted prefixes to BFS slots.
  eytzinger_.assign(n + 1, 0);
  eytzinger_rank_.assign(n + 1, 0);
  size_t next = 0;
  auto fill = [&](auto&& self, size_t k) -> void {
    if (k > n) return;
    self(self, 2 * k);
    eytzinger_[k] = prefixes_[next];
    eytzinger_rank_[k] = static_cast<uint32_t>(next);
    ++next;
    self(self, 2 * k + 1);
  };
  fill(fill, 1);
}

bool RangeMapSnapshot::start_le(size_t i, uint64_t kp, std::string_view key) const {
  if (prefixes_[i] != kp) return prefixes_[i] < kp;
  return start_key(i) <= key;
}

size_t RangeMapSnapshot::find_index(std::string_view key) const {
  const size_t n = ranges_.size();
  if (key >= kMaxKey) return n;
  const uint64_t kp = key_prefix(key);
  // Branchless Eytzinger descent for the first prefix > kp; the prefetch hides the latency
  // of the levels below (16 nodes = two cache lines ahead).
  size_t k = 1;
  const uint64_t* tree = eytzinger_.data();
  while (k <= n) {
    __builtin_prefetch(tree + 16 * k);
    k = 2 * k + (tree[k] <= kp);
  }
  k >>= std::countr_one(k) + 1;
  size_t upper = k == 0 ? n : eytzinger_rank_[k];
  if (upper > 0 && prefixes_[upper - 1] == kp) {
    // Start keys sharing the key's 8-byte prefix: decide on the full bytes.
    size_t lo = static_cast<size_t>(
        std::lower_bound(prefixes_.begin(), prefixes_.begin() + static_cast<ptrdiff_t>(upper), kp) -
        prefixes_.begin());
    while (lo < upper) {
      size_t mid = lo + (upper - lo) / 2;
      if (start_key(mid) <= key) {
        lo = mid + 1;
      } else {
        upper = mid;
      }
    }
  }
  // Range 0 starts at /Min, so upper >= 1 here.
  return upper - 1;
}

const RangeDescriptor* RangeMapSnapshot::lookup(std::string_view key) const {
  size_t i = find_index(key);
  return i < ranges_.size() ? &ranges_[i] : nullptr;
}

void RangeMapSnapshot::lookup_sorted(std::span<const std::string_view> sorted_keys,
                                     std::vector<size_t>& out) const {
  const size_t n = ranges_.size();
  out.clear();
  out.reserve(sorted_keys.size());
  size_t cur = 0;
  for (std::string_view key : sorted_keys) {
    if (key >= kMaxKey) {
      out.push_back(n);
      continue;
    }
    const uint64_t kp = key_prefix(key);
    if (cur + 1 < n && start_le(cur + 1, kp, key)) {
      // Gallop forward from the previous answer, then binary-search the last step: O(1)
      // when consecutive keys share a range, O(log distance) when they do not, and the
      // ranges touched stay close in memory.
      size_t lo = cur + 1, step = 1;
      while (lo + step < n && start_le(lo + step, kp, key)) {
        lo += step;
        step *= 2;
      }
      size_t hi = std::min(lo + step, n);  // start(hi) > key or hi == n
      while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (start_le(mid, kp, key)) {
          lo = mid;
        } else {
          hi = mid;
        }
      }
      cur = lo;
    }
    out.push_back(cur);
  }
}

std::span<const RangeDescriptor> RangeMapSnapshot::scan(std::string_view start,
                                                        std::string_view end) const {
  if (start >= end || start >= kMaxKey) return {};
  size_t first = find_index(start);
  size_t j = find_index(end);
  size_t last = j == ranges_.size() ? j : (start_key(j) == end ? j : j + 1);
  return std::span<const RangeDescriptor>(ranges_).subspan(first, last - first);
}

std::vector<size_t> RangeMapSnapshot::scan_spans(const SpanSet& spans) const {
  std::vector<size_t> out;
  for (const auto& s : spans) {
    auto hit = scan(s.start, s.end);
    if (hit.empty()) continue;
    const size_t begin = static_cast<size_t>(hit.data() - ranges_.data());
    const size_t end = begin + hit.size();
    // Neighbouring spans can touch the same range; report it once.
    size_t i = (!out.empty() && out.back() >= begin) ? out.back() + 1 : begin;
    for (; i < end; ++i) out.push_back(i);
  }
  return out;
}

RangeOp RangeOp::split(std::string key, std::optional<int64_t> enforced_until) {
  RangeOp op;
  op.kind = Kind::kSplit;
  op.split_key = std::move(key);
  op.split_enforced_until = enforced_until;
  return op;
}

RangeOp RangeOp::merge(uint64_t range_id) {
  RangeOp op;
  op.kind = Kind::kMerge;
  op.range_id = range_id;
  return op;
}

RangeOp RangeOp::reassign(uint64_t range_id, std::string shard) {
  RangeOp op;
  op.kind = Kind::kReassign;
  op.range_id = range_id;
  op.shard = std::move(shard);
  return op;
}

RangeMap::RangeMap(std::string shard)
    : RangeMap({RangeDescriptor{1, std::string(kMinKey), std::string(kMaxKey), std::move(shard), 1,
                                std::nullopt}},
               2) {}

RangeMap::RangeMap(std::vector<RangeDescriptor> ranges, uint64_t next_range_id)
    : next_range_id_(next_range_id) {
  for (const auto& r : ranges) start_by_id_.emplace(r.range_id, r.start_key);
  current_.store(std::make_shared<const RangeMapSnapshot>(std::move(ranges), 1));
}

Result<std::unique_ptr<RangeMap>> RangeMap::from_descriptors(std::vector<RangeDescriptor> ranges) {
  auto bad = [](std::string msg) {
    return fail(sqlstate::kInvalidParameterValue,
                "range descriptors do not tile the key space: " + msg);
  };
  if (ranges.empty()) return bad("no ranges");
  std::sort(ranges.begin(), ranges.end(), [](const RangeDescriptor& a, const RangeDescriptor& b) {
    return a.start_key < b.start_key;
  });
  std::unordered_set<uint64_t> ids;
  uint64_t max_id = 0;
  for (size_t i = 0; i < ranges.size(); ++i) {
    const auto& r = ranges[i];
    if (r.start_key >= r.end_key) return bad("empty range " + std::to_string(r.range_id));
    if (i == 0 && r.start_key != kMinKey) return bad("first range does not start at /Min");
    if (i > 0 && ranges[i - 1].end_key != r.start_key) {
      return bad("gap or overlap before range " + std::to_string(r.range_id));
    }
    if (r.range_id == 0 || !ids.insert(r.range_id).second) {
      return bad("duplicate or zero range id " + std::to_string(r.range_id));
    }
    max_id = std::max(max_id, r.range_id);
  }
  if (ranges.back().end_key != kMaxKey) return bad("last range does not end at /Max");
  return std::unique_ptr<RangeMap>(new RangeMap(std::move(ranges), max_id + 1));
}

Result<RangeChange> RangeMap::apply_one(std::vector<RangeDescriptor>& ranges,
                                        std::unordered_map<uint64_t, std::string>& starts,
                                        uint64_t& next_id, const RangeOp& op) {
  RangeChange change;
  change.kind = op.kind;
  if (op.kind == RangeOp::Kind::kSplit) {
    if (op.split_key <= kMinKey || op.split_key >= kMaxKey) {
      return fail(sqlstate::kInvalidParameterValue, "split key outside (/Min, /Max)");
    }
    size_t i = index_of(ranges, op.split_key);
    if (ranges[i].start_key == op.split_key) {
      change.no_op = true;
      return change;
    }
    change.before.push_back(ranges[i]);
    RangeDescriptor left = ranges[i];
    left.end_key = op.split_key;
    ++left.generation;
    RangeDescriptor right{next_id++,  op.split_key,    ranges[i].end_key,
                          left.shard, left.generation, op.split_enforced_until};
    ranges[i] = left;
    starts.emplace(right.range_id, right.start_key);
    ranges.insert(ranges.begin() + static_cast<ptrdiff_t>(i) + 1, right);
    change.after = {std::move(left), std::move(right)};
    return change;
  }
  auto it = starts.find(op.range_id);
  if (it == starts.end()) {
    return fail(sqlstate::kInvalidParameterValue,
                "no range with id " + std::to_string(op.range_id));
  }
  size_t i = index_of(ranges, it->second);
  if (op.kind == RangeOp::Kind::kReassign) {
    if (ranges[i].shard == op.shard) {
      change.no_op = true;
      return change;
    }
    change.before.push_back(ranges[i]);
    ranges[i].shard = op.shard;
    ++ranges[i].generation;
    change.after.push_back(ranges[i]);
    return change;
  }
  if (i + 1 == ranges.size()) {
    return fail(kObjectNotInPrerequisiteState, "the last range has no right neighbour to merge");
  }
  if (ranges[i].shard != ranges[i + 1].shard) {
    return fail(kObjectNotInPrerequisiteState,
                "cannot merge ranges on different shards; move one first");
  }
  change.before = {ranges[i], ranges[i + 1]};
  ranges[i].end_key = ranges[i + 1].end_key;
  ranges[i].generation = std::max(ranges[i].generation, ranges[i + 1].generation) + 1;
  starts.erase(ranges[i + 1].range_id);
  ranges.erase(ranges.begin() + static_cast<ptrdiff_t>(i) + 1);
  change.after.push_back(ranges[i]);
  return change;
}

Result<std::vector<RangeChange>> RangeMap::apply(std::span<const RangeOp> ops) {
  std::lock_guard lock(write_mu_);
  auto current = current_.load(std::memory_order_acquire);
  // Work on copies so that a failing op leaves the published map and the writer state as
  // they were (all or nothing).
  std::vector<RangeDescriptor> ranges(current->ranges().begin(), current->ranges().end());
  auto starts = start_by_id_;
  uint64_t next_id = next_range_id_;
  std::vector<RangeChange> changes;
  changes.reserve(ops.size());
  for (const auto& op : ops) {
    auto c = apply_one(ranges, starts, next_id, op);
    if (!c) return tl::unexpected(c.error());
    changes.push_back(std::move(*c));
  }
  start_by_id_ = std::move(starts);
  next_range_id_ = next_id;
  current_.store(
      std::make_shared<const RangeMapSnapshot>(std::move(ranges), current->version() + 1),
      std::memory_order_release);
  return changes;
}

Result<RangeChange> RangeMap::split(std::string_view key, std::optional<int64_t> enforced_until) {
  RangeOp op = RangeOp::split(std::string(key), enforced_until);
  auto r = apply(std::span<const RangeOp>(&op, 1));
  if (!r) return tl::unexpected(r.error());
  return std::move(r->front());
}

Result<RangeChange> RangeMap::merge(uint64_t range_id) {
  RangeOp op = RangeOp::merge(range_id);
  auto r = apply(std::span<const RangeOp>(&op, 1));
  if (!r) return tl::unexpected(r.error());
  return std::move(r->front());
}

Result<RangeChange> RangeMap::reassign(uint64_t range_id, std::string shard) {
  RangeOp op = RangeOp::reassign(range_id, std::move(shard));
  auto r = apply(std::span<const RangeOp>(&op, 1));
  if (!r) return tl::unexpected(r.error());
  return std::move(r->front());
}

}  // namespace pgrange::routing
