#include "routing/range_activity.hpp"

namespace pgrange::routing {

bool RangeActivity::enter(std::span<const Use> uses) {
  std::lock_guard lock(mu_);
  if (!held_.empty()) {
    for (const Use& u : uses) {
      if (u.write && held_.count(u.range_id)) return false;
    }
  }
  for (const Use& u : uses) {
    Counts& c = counts_[slot(u.range_id, u.shard)];
    ++(u.write ? c.writers : c.readers);
  }
  return true;
}

void RangeActivity::leave(std::span<const Use> uses) {
  if (uses.empty()) return;
  {
    std::lock_guard lock(mu_);
    for (const Use& u : uses) {
      auto it = counts_.find(slot(u.range_id, u.shard));
      if (it == counts_.end()) continue;
      --(u.write ? it->second.writers : it->second.readers);
      if (it->second.readers <= 0 && it->second.writers <= 0) counts_.erase(it);
    }
  }
  changed_.notify_all();
}

void RangeActivity::hold(uint64_t range_id) {
  std::lock_guard lock(mu_);
  held_.insert(range_id);
}

void RangeActivity::release(uint64_t range_id) {
  std::lock_guard lock(mu_);
  held_.erase(range_id);
}

bool RangeActivity::held(uint64_t range_id) const {
  std::lock_guard lock(mu_);
  return held_.count(range_id) != 0;
}

bool RangeActivity::wait_idle(uint64_t range_id, int shard, bool writers_only,
                              std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return changed_.wait_for(lock, timeout, [&] {
    auto it = counts_.find(slot(range_id, shard));
    if (it == counts_.end()) return true;
    return it->second.writers == 0 && (writers_only || it->second.readers == 0);
  });
}

}  // namespace pgrange::routing
