#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace pgrange::routing {

/// Which sessions are using which ranges on which shards, and which ranges are being moved.
/// A session enters the ranges a statement was routed to (on the shard it sends it to) and
/// leaves them when its transaction ends. A range move copies while the range is written, then
/// holds the range (new writes wait), waits for the writers already inside to finish, catches
/// up, holds whole-table reads for its cut-over too, switches the map, waits for the readers
/// still reading at the old shard, lets writes go on (at the new shard) and holds whole-table
/// reads alone until the rows at the old shard are gone. Waits go by key span,
/// not range id, so a use entered before a split still counts for the part that moves. Shared
/// by all workers.
class RangeActivity {
 public:
  struct Use {
    uint64_t range_id = 0;
    uint64_t generation = 0;
    int shard = -1;
    bool write = false;
    /// Part of a statement that reads or writes the whole table on its shards (not one key):
    /// it would see rows a move has copied to the shard but not yet removed from the other.
    bool scan = false;
    /// The range's span when routed; read by enter() only (leave() does not look at it).
    std::string_view start, end;
    bool operator==(const Use& o) const {
      return range_id == o.range_id && generation == o.generation && shard == o.shard &&
             write == o.write && scan == o.scan;
    }
  };

  /// Registers every use, or none: false when a write targets a held range or a scan a range
  /// whose scans are held (wait and retry). Point reads go on during a move. `inside` are the
  /// uses the session's transaction already made: a transaction already writing (or scanning)
  /// a range goes on doing so while the range is held, since the hold waits for it to end.
  bool enter(std::span<const Use> uses, std::span<const Use> inside = {});
  /// Unregisters uses made by enter().
  void leave(std::span<const Use> uses);

  /// With `writes`, new writes to the range wait; with `scans`, whole-table reads of it; until
  /// the next hold() or release().
  void hold(uint64_t range_id, bool writes, bool scans);
  void release(uint64_t range_id);
  bool held(uint64_t range_id) const;

  /// What wait_idle waits for.
  enum class Waiting { kWriters, kWritersAndScans, kEveryone };
  /// Blocks until no session uses keys of [start, end) on `shard` that way, or the timeout
  /// passes (false).
  bool wait_idle(std::string_view start, std::string_view end, int shard, Waiting waiting,
                 std::chrono::milliseconds timeout);

 private:
  struct Key {
    uint64_t range_id;
    uint64_t generation;
    int shard;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<uint64_t>()(k.range_id * 1000003 ^ k.generation * 8191 ^
                                   static_cast<uint64_t>(k.shard));
    }
  };
  struct Entry {
    std::string start, end;
    int readers = 0;
    int writers = 0;
    int scans = 0;
  };

  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::unordered_map<Key, Entry, KeyHash> entries_;
  std::unordered_set<uint64_t> held_;
  std::unordered_set<uint64_t> scans_held_;
};

}  // namespace pgrange::routing
