#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

namespace pgrange::proxy {

class BackendConnection;

/// A shard backend's own cancel key.
struct CancelKey {
  int shard_index;
  int32_t pid;
  int32_t secret;
};

/// Where a client's running statement is: the shard and that backend's own cancel key, and the
/// connections of a statement that runs on several shards. Written by the client's session
/// thread, read by whichever thread receives a CancelRequest.
struct CancelTarget {
  std::atomic<int> shard_index{-1};  ///< -1 when no backend is attached
  std::atomic<int32_t> pid{0};
  std::atomic<int32_t> secret{0};

  /// A connection the client's work runs on besides its attached backend (a merge, a write or
  /// a transaction over several shards), for as long as the client holds it (its lease).
  void track(const std::shared_ptr<BackendConnection>& conn);
  /// The keys of every backend a cancel of the client must reach.
  std::vector<CancelKey> keys() const;

 private:
  struct Tracked {
    std::weak_ptr<BackendConnection> conn;
    uint64_t lease;
  };
  mutable std::mutex mu_;
  std::vector<Tracked> tracked_;
};

/// The cancel keys pgrange gave its clients (BackendKeyData), mapped to their sessions'
/// current backends. Thread-safe.
class CancelRegistry {
 public:
  /// Issues a fresh (pid, secret) pair for a new session and registers its target.
  std::pair<int32_t, int32_t> add(std::shared_ptr<CancelTarget> target);
  void remove(int32_t pid, int32_t secret);
  /// The backends to cancel for a client's key (none when the key is unknown).
  std::vector<CancelKey> resolve(int32_t pid, int32_t secret) const;

 private:
  static uint64_t key(int32_t pid, int32_t secret) {
    return (uint64_t(uint32_t(pid)) << 32) | uint32_t(secret);
  }
  mutable std::mutex mu_;
  std::unordered_map<uint64_t, std::weak_ptr<CancelTarget>> targets_;
  int32_t next_pid_ = 1;
};

}  // namespace pgrange::proxy
