#include "routing/ranges/range_load.hpp"

#include <algorithm>

namespace pgrange::routing {

void RangeLoad::add(const RangeCounts& counts) {
  for (const auto& [id, c] : counts) {
    RangeCount& p = pending_[id];
    p.reads += c.reads;
    p.writes += c.writes;
    p.samples.insert(p.samples.end(), c.samples.begin(), c.samples.end());
  }
}

namespace {

/// Appends the newest keys, keeping the last kSamples.
void keep_latest(std::vector<std::string>& kept, const std::vector<std::string>& more) {
  kept.insert(kept.end(), more.begin(), more.end());
  if (kept.size() > kSamples) {
    kept.erase(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(kept.size() - kSamples));
  }
}

}  // namespace

std::vector<RangeRate> RangeLoad::tick(std::chrono::duration<double> elapsed) {
  const double seconds = std::max(elapsed.count(), 0.001);
  for (auto& [id, r] : rates_) {
    auto it = pending_.find(id);
    const RangeCount c = it == pending_.end() ? RangeCount{} : it->second;
    r.read_qps = (r.read_qps + static_cast<double>(c.reads) / seconds) / 2;
    r.write_qps = (r.write_qps + static_cast<double>(c.writes) / seconds) / 2;
    keep_latest(r.samples, c.samples);
  }
  for (const auto& [id, c] : pending_) {
    if (rates_.count(id) != 0) continue;
    // A range seen for the first time: its rate is this tick's.
    RangeRate& r = rates_[id];
    r = RangeRate{
        id, static_cast<double>(c.reads) / seconds, static_cast<double>(c.writes) / seconds, {}};
    keep_latest(r.samples, c.samples);
  }
  pending_.clear();
  std::vector<RangeRate> out;
  for (auto it = rates_.begin(); it != rates_.end();) {
    if (it->second.read_qps < 0.01 && it->second.write_qps < 0.01) {
      it = rates_.erase(it);
    } else {
      out.push_back(it->second);
      ++it;
    }
  }
  std::sort(out.begin(), out.end(),
            [](const RangeRate& a, const RangeRate& b) { return a.range_id < b.range_id; });
  return out;
}

}  // namespace pgrange::routing
