#include "proxy/cancel_registry.hpp"

#include <openssl/rand.h>

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

std::optional<CancelRegistry::Resolved> CancelRegistry::resolve(int32_t pid, int32_t secret) const {
  std::lock_guard lock(mu_);
  auto it = targets_.find(key(pid, secret));
  if (it == targets_.end()) return std::nullopt;
  auto t = it->second.lock();
  if (!t) return std::nullopt;
  int shard = t->shard_index.load();
  if (shard < 0) return std::nullopt;
  return Resolved{shard, t->pid.load(), t->secret.load()};
}

}  // namespace pgrange::proxy
