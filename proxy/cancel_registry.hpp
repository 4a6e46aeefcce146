#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

namespace pgrange::proxy {

/// Where a client's running statement is: the shard and that backend's own cancel key.
/// Written by the client's session thread, read by whichever thread receives a CancelRequest.
struct CancelTarget {
  std::atomic<int> shard_index{-1};  ///< -1 when no backend is attached
  std::atomic<int32_t> pid{0};
  std::atomic<int32_t> secret{0};
};

/// The cancel keys pgrange gave its clients (BackendKeyData), mapped to their sessions'
/// current backends. Thread-safe.
class CancelRegistry {
 public:
  /// Issues a fresh (pid, secret) pair for a new session and registers its target.
  std::pair<int32_t, int32_t> add(std::shared_ptr<CancelTarget> target);
  void remove(int32_t pid, int32_t secret);
  /// The backend to cancel for a client's key: {shard_index, backend pid, backend secret}.
  struct Resolved {
    int shard_index;
    int32_t pid;
    int32_t secret;
  };
  std::optional<Resolved> resolve(int32_t pid, int32_t secret) const;

 private:
  static uint64_t key(int32_t pid, int32_t secret) {
    return (uint64_t(uint32_t(pid)) << 32) | uint32_t(secret);
  }
  mutable std::mutex mu_;
  std::unordered_map<uint64_t, std::weak_ptr<CancelTarget>> targets_;
  int32_t next_pid_ = 1;
};

}  // namespace pgrange::proxy
