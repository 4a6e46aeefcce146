#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "routing/moves/range_admin.hpp"
#include "routing/moves/range_planner.hpp"

namespace pgrange::routing {

/// The range manager: at each look (check(), every check_interval on the thread that runs
/// moves) the instance holding the "range_manager" lease in the metadata store measures the
/// ranges of the tables (their size on the shards, their load from every instance), lets the
/// RangePlanner decide, and carries its decisions out through RangeAdmin as jobs whose
/// descriptions give the reasons. Another instance takes over when the lease lapses.
class RangeManager {
 public:
  RangeManager(ClusterControl& control, RangeAdmin& admin, RangeManagerSettings settings);

  /// One look. Never throws: what fails is logged and tried again at the next look.
  void check();
  /// Gives the lease up (at shutdown), so that another instance takes over at once.
  void release();

  /// How long a lease lasts without being renewed.
  std::chrono::milliseconds lease_duration() const;
  /// Renews the lease while this instance leads, through `store` (another thread's: a look
  /// may take longer than the lease, moving a large range). A lease found taken over stops
  /// the look in progress before its next decision.
  void renew(MetadataStore& store);

 private:
  struct Measured {
    int64_t bytes = 0;
    int64_t rows = 0;
    int64_t table_bytes = 0;  ///< the table's size on the shard when measured
    std::chrono::steady_clock::time_point at;
  };

  /// The managed ranges, measured; `shards` gets the shards that answered.
  std::vector<ManagedRange> look(const ClusterView& view, std::vector<std::string>& shards);
  void carry_out(const RangeDecision& d, const std::vector<ManagedRange>& ranges);
  /// Measures a range exactly (range_stats), or nullopt when its shard did not answer.
  std::optional<Measured> measure(const ClusterView& view, const ManagedRange& r,
                                  int64_t table_bytes);

  ClusterControl& control_;
  RangeAdmin& admin_;
  RangePlanner planner_;
  std::atomic<bool> leading_{false};
  std::map<std::pair<uint64_t, uint64_t>, Measured> measured_;
  /// Ranges whose busy-but-unsplittable state was logged (range id, generation).
  std::set<std::pair<uint64_t, uint64_t>> kept_;
  /// Shards left out for having none of the cluster's tables (logged once).
  std::set<std::string> incomplete_;
};

}  // namespace pgrange::routing
