#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <span>
#include <unordered_map>
#include <unordered_set>

namespace pgrange::routing {

/// Which sessions are using which ranges on which shards, and which ranges are being moved.
/// A session enters the ranges a statement was routed to (on the shard it sends it to) and
/// leaves them when its transaction ends. A range move holds the range (new writes wait), waits
/// for the writers already inside to finish, copies, switches the map, then waits for the
/// readers still reading at the old shard before deleting the rows there. Shared by all workers.
class RangeActivity {
 public:
  struct Use {
    uint64_t range_id = 0;
    int shard = -1;
    bool write = false;
    bool operator==(const Use&) const = default;
  };

  /// Registers every use, or none: false when a write targets a held range (wait and retry).
  bool enter(std::span<const Use> uses);
  /// Unregisters uses made by enter().
  void leave(std::span<const Use> uses);

  /// New writes to the range wait until release().
  void hold(uint64_t range_id);
  void release(uint64_t range_id);
  bool held(uint64_t range_id) const;

  /// Blocks until no session uses the range on `shard` (only writers, or everyone), or the
  /// timeout passes (false).
  bool wait_idle(uint64_t range_id, int shard, bool writers_only,
                 std::chrono::milliseconds timeout);

 private:
  struct Counts {
    int readers = 0;
    int writers = 0;
  };
  static uint64_t slot(uint64_t range_id, int shard) {
    return (range_id << 16) ^ static_cast<uint16_t>(shard);
  }

  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::unordered_map<uint64_t, Counts> counts_;
  std::unordered_set<uint64_t> held_;
};

}  // namespace pgrange::routing
