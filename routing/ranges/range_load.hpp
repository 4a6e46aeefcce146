#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace pgrange::routing {

/// Requests to one range counted by one worker: statements that read it, statements that wrote
/// it (a statement over several ranges counts once for each).
struct RangeCount {
  uint64_t reads = 0;
  uint64_t writes = 0;
  /// Some of the keys single-key statements used, in the order they came.
  std::vector<std::string> samples;
};

/// One worker's counts since it last handed them over, by range id. Only that worker's thread
/// touches it: counting takes no lock.
using RangeCounts = std::unordered_map<uint64_t, RangeCount>;

/// A range's request rate, as this instance measured it.
struct RangeRate {
  uint64_t range_id = 0;
  double read_qps = 0;
  double write_qps = 0;
  /// The latest sampled keys of single-key requests (oldest first, at most kSamples from each
  /// instance): where in the range the load falls, for a split by load.
  std::vector<std::string> samples;
};

/// How many sampled keys an instance keeps per range.
inline constexpr size_t kSamples = 64;

/// This instance's load per range: the counts its workers hand over, turned into requests per
/// second at each tick and smoothed (each tick weighs half), so a burst shows at once and an idle
/// range fades to nothing in a few ticks. Used on one thread (the control plane's).
class RangeLoad {
 public:
  /// Adds a worker's counts.
  void add(const RangeCounts& counts);
  /// The rates after the counts added over the last `elapsed`; ranges whose both rates are
  /// under 0.01 per second are forgotten.
  std::vector<RangeRate> tick(std::chrono::duration<double> elapsed);

 private:
  RangeCounts pending_;
  std::unordered_map<uint64_t, RangeRate> rates_;
};

}  // namespace pgrange::routing
