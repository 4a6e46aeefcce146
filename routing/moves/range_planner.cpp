#include "routing/moves/range_planner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "routing/keys/pretty_key.hpp"

namespace pgrange::routing {
namespace {

/// Fewer sampled keys than this say too little about where a range's load falls.
constexpr size_t kMinSamples = 16;
/// A range's load is smoothed over a few seconds (RangeLoad: each 2 s tick weighs half), and
/// the left half of a split keeps its range id and the whole range's rate until it fades: a
/// range younger than this is not split by load again.
constexpr std::chrono::seconds kLoadSettle{6};

std::string mb(int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f MB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

std::string per_second(double qps) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f qps", qps);
  return buf;
}

}  // namespace

std::optional<std::string> load_split_key(const std::vector<std::string>& samples,
                                          std::string_view start_key, std::string_view end_key,
                                          std::string& why) {
  // Keys the range still holds (samples taken before a split may lie in the other half).
  std::vector<std::string> inside;
  for (const std::string& k : samples) {
    if (k >= start_key && k < end_key) inside.push_back(k);
  }
  if (inside.size() < kMinSamples) {
    why = "too few sampled keys yet";
    return std::nullopt;
  }
  const size_t half = inside.size() / 2;
  std::vector<std::string> older(inside.begin(),
                                 inside.begin() + static_cast<std::ptrdiff_t>(half));
  std::vector<std::string> newer(inside.begin() + static_cast<std::ptrdiff_t>(half), inside.end());
  std::sort(older.begin(), older.end());
  const std::string candidate = older[older.size() / 2];
  if (std::all_of(inside.begin(), inside.end(),
                  [&](const std::string& k) { return k == inside[0]; })) {
    why = "one key takes all of its load";
    return std::nullopt;
  }
  size_t left = 0;
  for (const std::string& k : newer) left += k < candidate ? 1 : 0;
  const double fraction = static_cast<double>(left) / static_cast<double>(newer.size());
  if (candidate <= start_key || fraction < 0.25) {
    why = "its keys keep increasing: the load would stay at its end";
    return std::nullopt;
  }
  if (fraction > 0.75) {
    why = "its keys keep decreasing: the load would stay at its start";
    return std::nullopt;
  }
  return candidate;
}

void RangePlanner::forget_moves_of(const RangeDescriptor& range) {
  unmovable_[{range.range_id, range.generation}] = true;
}

std::optional<RangeDecision> RangePlanner::load_split(const ManagedRange& r) const {
  RangeDecision d;
  d.range_id = r.range.range_id;
  std::string why;
  auto key = load_split_key(r.samples, r.range.start_key, r.range.end_key, why);
  const std::string load = per_second(r.qps) + " over split_qps " + per_second(settings_.split_qps);
  if (!key) {
    if (why == "too few sampled keys yet") return std::nullopt;
    d.kind = RangeDecision::Kind::kKeep;
    d.reason = load + ", not split: " + why;
    return d;
  }
  d.kind = RangeDecision::Kind::kSplitByLoad;
  d.split_key = *key;
  d.reason =
      load + ": split at " + pretty_key(*key) + ", where its sampled keys fall half on each side";
  return d;
}

std::optional<RangeDecision> RangePlanner::move(const std::vector<ManagedRange>& ranges,
                                                const std::vector<std::string>& shards) const {
  if (shards.size() < 2) return std::nullopt;
  std::map<std::string, double> load;
  std::map<std::string, double> size;
  for (const std::string& s : shards) load[s] = size[s] = 0;
  for (const ManagedRange& r : ranges) {
    if (!load.count(r.range.shard)) continue;  // a shard no longer configured
    load[r.range.shard] += r.qps;
    size[r.range.shard] += static_cast<double>(r.bytes());
  }
  auto extremes = [&](const std::map<std::string, double>& by) {
    auto hi = by.begin(), lo = by.begin();
    for (auto it = by.begin(); it != by.end(); ++it) {
      if (it->second > hi->second) hi = it;
      if (it->second < lo->second) lo = it;
    }
    return std::make_pair(hi, lo);
  };
  auto movable = [&](const ManagedRange& r) {
    return !unmovable_.count({r.range.range_id, r.range.generation});
  };
  // The range of the fullest shard whose share of `by` comes closest to half the gap, and is
  // under 0.8 of the gap: the gap shrinks and the move could never be undone by the next look.
  auto pick = [&](const std::string& from, double gap, auto value,
                  auto allowed) -> const ManagedRange* {
    const ManagedRange* best = nullptr;
    for (const ManagedRange& r : ranges) {
      if (r.range.shard != from || !movable(r) || !allowed(r)) continue;
      double v = value(r);
      if (v <= 0 || v >= 0.8 * gap) continue;
      if (best == nullptr || std::abs(v - gap / 2) < std::abs(value(*best) - gap / 2)) best = &r;
    }
    return best;
  };
  const double n = static_cast<double>(shards.size());
  double total_load = 0, total_size = 0;
  for (const auto& [s, v] : load) total_load += v;
  for (const auto& [s, v] : size) total_size += v;
  const double load_margin = std::max(0.25 * total_load / n, settings_.split_qps / 10);
  auto [hot, cool] = extremes(load);
  const double load_gap = hot->second - cool->second;
  if (load_gap > load_margin) {
    auto qps = [](const ManagedRange& r) { return r.qps; };
    if (const ManagedRange* r =
            pick(hot->first, load_gap, qps, [](const ManagedRange&) { return true; })) {
      RangeDecision d;
      d.kind = RangeDecision::Kind::kMove;
      d.range_id = r->range.range_id;
      d.target = cool->first;
      d.reason = "evening out load: shard " + hot->first + " serves " + per_second(hot->second) +
                 ", shard " + cool->first + " " + per_second(cool->second) + "; the range " +
                 per_second(r->qps);
      return d;
    }
  }
  const double size_margin =
      std::max(0.25 * total_size / n, static_cast<double>(settings_.range_max_bytes) / 4);
  auto [big, small] = extremes(size);
  const double size_gap = big->second - small->second;
  if (size_gap > size_margin) {
    auto bytes = [](const ManagedRange& r) { return static_cast<double>(r.bytes()); };
    // Only a range too cold to unbalance the load moves for its size.
    auto cold = [&](const ManagedRange& r) { return r.qps < load_margin / 2; };
    if (const ManagedRange* r = pick(big->first, size_gap, bytes, cold)) {
      RangeDecision d;
      d.kind = RangeDecision::Kind::kMove;
      d.range_id = r->range.range_id;
      d.target = small->first;
      d.reason = "evening out size: shard " + big->first + " holds " +
                 mb(static_cast<int64_t>(big->second)) + ", shard " + small->first + " " +
                 mb(static_cast<int64_t>(small->second)) + "; the range " + mb(r->bytes());
      return d;
    }
  }
  return std::nullopt;
}

std::vector<RangeDecision> RangePlanner::plan(const std::vector<ManagedRange>& ranges,
                                              const std::vector<std::string>& shards,
                                              Clock::time_point now) {
  std::vector<RangeDecision> out;
  {
    std::map<std::pair<uint64_t, uint64_t>, Clock::time_point> seen;
    for (const ManagedRange& r : ranges) {
      std::pair<uint64_t, uint64_t> id{r.range.range_id, r.range.generation};
      auto it = first_seen_.find(id);
      seen[id] = it == first_seen_.end() ? now : it->second;
    }
    first_seen_ = std::move(seen);
  }
  if (settings_.auto_split) {
    bool split = false;
    for (const ManagedRange& r : ranges) {
      if (r.measured_bytes && *r.measured_bytes > settings_.range_max_bytes && r.rows > 1) {
        RangeDecision d;
        d.kind = RangeDecision::Kind::kSplitBySize;
        d.range_id = r.range.range_id;
        d.reason = mb(*r.measured_bytes) + " over range_max_mb " + mb(settings_.range_max_bytes) +
                   ": split at the middle key of its rows";
        out.push_back(std::move(d));
        split = true;
      } else if (r.qps > settings_.split_qps &&
                 now - first_seen_[{r.range.range_id, r.range.generation}] >= kLoadSettle) {
        if (auto d = load_split(r)) {
          split = split || d->kind == RangeDecision::Kind::kSplitByLoad;
          out.push_back(std::move(*d));
        }
      }
    }
    if (split) return out;
    // Merges: neighbours of one table, together under half the size limit and a quarter of
    // split_qps, for merge_delay without a break. Neighbours on two shards come together
    // first: the smaller moves to the other's shard (one such move per look), and a later
    // look merges them.
    std::map<Pair, Clock::time_point> cold;
    std::set<uint64_t> merging;
    bool moving = false;
    auto answering = [&](const std::string& shard) {
      return std::find(shards.begin(), shards.end(), shard) != shards.end();
    };
    for (size_t i = 1; i < ranges.size(); ++i) {
      const ManagedRange& l = ranges[i - 1];
      const ManagedRange& r = ranges[i];
      if (l.table_id != r.table_id || l.index_id != r.index_id || r.table_start || r.kept_split) {
        continue;
      }
      if (l.bytes() + r.bytes() >= settings_.range_max_bytes / 2 ||
          l.qps + r.qps >= settings_.split_qps / 4) {
        continue;
      }
      Pair pair{l.range.range_id, l.range.start_key, r.range.range_id, r.range.start_key,
                r.range.end_key};
      auto it = cold_since_.find(pair);
      Clock::time_point since = it == cold_since_.end() ? now : it->second;
      cold[pair] = since;
      if (now - since < settings_.merge_delay || merging.count(l.range.range_id)) continue;
      const std::string why =
          "neighbours of table " + l.table + " together " + mb(l.bytes() + r.bytes()) + " and " +
          per_second(l.qps + r.qps) + " for " +
          std::to_string(std::chrono::duration_cast<std::chrono::seconds>(now - since).count()) +
          " s (merge_delay_s " + std::to_string(settings_.merge_delay.count()) + ")";
      RangeDecision d;
      if (l.range.shard == r.range.shard) {
        d.kind = RangeDecision::Kind::kMerge;
        d.range_id = l.range.range_id;
        d.other_range_id = r.range.range_id;
        d.reason = why;
      } else {
        if (moving || !answering(l.range.shard) || !answering(r.range.shard)) continue;
        const bool left_moves = l.bytes() < r.bytes();
        const ManagedRange& mover = left_moves ? l : r;
        const ManagedRange& stayer = left_moves ? r : l;
        if (unmovable_.count({mover.range.range_id, mover.range.generation})) continue;
        d.kind = RangeDecision::Kind::kMoveToMerge;
        d.range_id = mover.range.range_id;
        d.other_range_id = stayer.range.range_id;
        d.target = stayer.range.shard;
        d.reason = "to merge with range " + std::to_string(stayer.range.range_id) + " on shard " +
                   stayer.range.shard + ": " + why;
        moving = true;
      }
      out.push_back(std::move(d));
      merging.insert(r.range.range_id);
    }
    cold_since_ = std::move(cold);
    for (const RangeDecision& d : out) {
      if (d.kind == RangeDecision::Kind::kMerge || d.kind == RangeDecision::Kind::kMoveToMerge) {
        return out;
      }
    }
  }
  if (settings_.rebalance) {
    if (auto d = move(ranges, shards)) out.push_back(std::move(*d));
  }
  return out;
}

}  // namespace pgrange::routing
