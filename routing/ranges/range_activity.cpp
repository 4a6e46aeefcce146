#include "routing/ranges/range_activity.hpp"

namespace pgrange::routing {

namespace {

bool already(std::span<const RangeActivity::Use> inside, const RangeActivity::Use& u) {
  for (const RangeActivity::Use& i : inside) {
    if (i.range_id == u.range_id && i.shard == u.shard && (!u.write || i.write) &&
        (!u.scan || i.scan))
      return true;
  }
  return false;
}

}  // namespace

bool RangeActivity::enter(std::span<const Use> uses, std::span<const Use> inside) {
  std::lock_guard lock(mu_);
  if (!held_.empty() || !scans_held_.empty()) {
    for (const Use& u : uses) {
      bool blocked =
          (u.write && held_.count(u.range_id)) || (u.scan && scans_held_.count(u.range_id));
      if (blocked && !already(inside, u)) return false;
    }
  }
  for (const Use& u : uses) {
    auto [it, fresh] = entries_.try_emplace(Key{u.range_id, u.generation, u.shard});
    if (fresh) {
      it->second.start = u.start;
      it->second.end = u.end;
    }
    ++(u.write ? it->second.writers : it->second.readers);
    if (u.scan) ++it->second.scans;
  }
  return true;
}

void RangeActivity::leave(std::span<const Use> uses) {
  if (uses.empty()) return;
  {
    std::lock_guard lock(mu_);
    for (const Use& u : uses) {
      auto it = entries_.find(Key{u.range_id, u.generation, u.shard});
      if (it == entries_.end()) continue;
      --(u.write ? it->second.writers : it->second.readers);
      if (u.scan) --it->second.scans;
      if (it->second.readers <= 0 && it->second.writers <= 0) entries_.erase(it);
    }
  }
  changed_.notify_all();
}

void RangeActivity::hold(uint64_t range_id, bool writes, bool scans) {
  std::lock_guard lock(mu_);
  if (writes) {
    held_.insert(range_id);
  } else {
    held_.erase(range_id);
  }
  if (scans) {
    scans_held_.insert(range_id);
  } else {
    scans_held_.erase(range_id);
  }
}

void RangeActivity::release(uint64_t range_id) {
  std::lock_guard lock(mu_);
  held_.erase(range_id);
  scans_held_.erase(range_id);
}

bool RangeActivity::held(uint64_t range_id) const {
  std::lock_guard lock(mu_);
  return held_.count(range_id) != 0;
}

bool RangeActivity::wait_idle(std::string_view start, std::string_view end, int shard,
                              Waiting waiting, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return changed_.wait_for(lock, timeout, [&] {
    for (const auto& [key, e] : entries_) {
      if (key.shard != shard || e.start >= end || e.end <= start) continue;
      if (e.writers > 0) return false;
      if (waiting != Waiting::kWriters && e.scans > 0) return false;
      if (waiting == Waiting::kEveryone && e.readers > 0) return false;
    }
    return true;
  });
}

}  // namespace pgrange::routing
