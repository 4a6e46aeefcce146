#include "proxy/backend/cancel_registry.hpp"

#include <openssl/rand.h>

#include "proxy/backend/backend_connection.hpp"

namespace pgrange::proxy {

std::pair<int32_t, int32_t> CancelRegistry::add(std::shared_ptr<CancelTarget> target) {
  int32_t secret = 0;
  // The secret is what stops other clients from cancelling this one's queries.
  if (RAND_bytes(reinterpret_cast<unsigned char*>(&secret), sizeof secret) != 1) {
    secret = static_cast<int32_t>(reinterpret_cast<uintptr_t>(target.get()));
  }
  std::lock_guard lock(mu_);
  int32_t pid = next_pid_++;
  if (next_pid_ <= 0) next_pid_ = 1;
  targets_[key(pid, secret)] = std::move(target);
  return {pid, secret};
}

void CancelRegistry::remove(int32_t pid, int32_t secret) {
  std::lock_guard lock(mu_);
  targets_.erase(key(pid, secret));
}

std::vector<CancelKey> CancelRegistry::resolve(int32_t pid, int32_t secret) const {
  std::shared_ptr<CancelTarget> t;
  {
    std::lock_guard lock(mu_);
    auto it = targets_.find(key(pid, secret));
    if (it == targets_.end()) return {};
    t = it->second.lock();
  }
  if (!t) return {};
  return t->keys();
}

void CancelTarget::track(const std::shared_ptr<BackendConnection>& conn) {
  std::lock_guard lock(mu_);
  // Connections given back since (another lease now) are forgotten on the way.
  std::erase_if(tracked_, [](const Tracked& t) {
    auto c = t.conn.lock();
    return !c || c->lease() != t.lease;
  });
  for (const Tracked& t : tracked_) {
    if (t.conn.lock() == conn) return;
  }
  tracked_.push_back({conn, conn->lease()});
}

std::vector<CancelKey> CancelTarget::keys() const {
  std::vector<CancelKey> keys;
  int shard = shard_index.load();
  if (shard >= 0) keys.push_back({shard, pid.load(), secret.load()});
  std::lock_guard lock(mu_);
  for (const Tracked& t : tracked_) {
    auto c = t.conn.lock();
    if (!c || c->lease() != t.lease) continue;
    if (shard >= 0 && c->shard_index() == shard && c->pid() == pid.load()) continue;
    keys.push_back({c->shard_index(), c->pid(), c->secret()});
  }
  return keys;
}

}  // namespace pgrange::proxy
