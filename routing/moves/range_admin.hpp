#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "common/error.hpp"
#include "routing/merge/result_set.hpp"
#include "routing/meta/cluster_view.hpp"
#include "routing/meta/metadata_store.hpp"
#include "routing/ranges/range_activity.hpp"
#include "sql/admin_statement.hpp"

namespace pgrange::routing {

/// What the range administration needs from the process that runs it (the control plane).
class ClusterControl {
 public:
  virtual ~ClusterControl() = default;
  /// The view sessions currently route with.
  virtual std::shared_ptr<const ClusterView> view() const = 0;
  /// Reads the metadata store again and publishes the result to every session; returns it.
  virtual std::shared_ptr<const ClusterView> reload() = 0;
  virtual MetadataStore& store() = 0;
  virtual RangeActivity& activity() = 0;
  /// The logical database name clients connect to (SHOW RANGES FROM DATABASE).
  virtual const std::string& database() const = 0;
  /// This process among the instances serving the metadata store.
  virtual const std::string& instance_id() const = 0;
  /// A test hook at a step of a range move ("move_copied", "move_prepared",
  /// "move_target_committed", "move_switched"): the process may exit there, as a crash would.
  virtual void fault_point(const char* /*name*/) {}
  /// The process is shutting down: a move stops at its next step, as CANCEL JOB stops it.
  virtual bool stopping() const { return false; }
};

/// Runs the admin statements (SPLIT AT, UNSPLIT, SCATTER, RELOCATE, SHOW RANGES, SHOW RANGE FOR
/// ROW, SHOW SHARDS) against the metadata store and the shards. Blocking: control plane only.
class RangeAdmin {
 public:
  explicit RangeAdmin(ClusterControl& control) : control_(control) {}

  /// The range changes this process applied, by kind, through any RangeAdmin (the control
  /// thread's, the job runner's, the range manager's); read from any thread (/metrics).
  struct ChangeCounts {
    std::atomic<uint64_t> splits{0};
    std::atomic<uint64_t> merges{0};
    std::atomic<uint64_t> moves{0};
  };
  static ChangeCounts& change_counts();

  Result<ResultSet> execute(const sql::AdminStatement& stmt);

  /// Moves one range to another shard with its rows (RELOCATE, SCATTER) as a job (SHOW JOBS):
  /// the rows are copied while the application writes them, and writes to the range wait only
  /// for the cut-over (RangeCopy); a failure leaves the old placement intact and the target
  /// clean.
  Result<void> relocate(uint64_t range_id, const std::string& shard,
                        const std::string& reason = "");

  /// relocate(), and for a range of a co-location group's table the ranges of the group's other
  /// tables holding the same key prefixes too (the root's first), so that they stay together.
  Result<void> relocate_group(uint64_t range_id, const std::string& shard,
                              const std::string& reason = "");

  /// The range manager's splits and merges, each recorded as a job (SHOW JOBS) whose
  /// description ends with `reason`. split_range splits the range of table `table_id` holding
  /// `key` at it, without enforcing the split (it may merge again), with the table's
  /// co-location group; merge_range merges the range `left_id` of the table with its right
  /// neighbour on the same shard, with the group.
  Result<void> split_range(uint64_t table_id, const std::string& key, const std::string& reason);
  Result<void> merge_range(uint64_t table_id, uint64_t left_id, const std::string& reason);

  /// Finishes what a pgrange instance that died in the middle of moving a range left: removes
  /// the range's rows from every shard but the one the map gives it, then ends the hold.
  Result<void> clean_up_orphaned_hold(uint64_t range_id);

  /// Settles what moves left behind when they stopped half-way (their instance died, a commit
  /// failed): prepared transactions committed if the map gives the range to the move's target,
  /// else rolled back; publications dropped; the jobs of dead instances ended. Moves of live
  /// instances are left alone. An error when a shard could not be reached (tried again later).
  Result<void> recover_moves();

 private:
  /// Refuses (0A000, naming it) a placement of ranges (range id → shard) that would spread a
  /// table over several shards while it has a unique or exclusion index that each shard can
  /// enforce only on its own rows (one that does not contain the table's key); `what` names
  /// the operation in the message.
  Result<void> check_spread(const ClusterView& view,
                            const std::vector<std::pair<uint64_t, std::string>>& placement,
                            const std::string& what);
  Result<ResultSet> split_at(const sql::AdminStatement& stmt);
  Result<ResultSet> unsplit(const sql::AdminStatement& stmt);
  Result<ResultSet> scatter(const sql::AdminStatement& stmt);
  Result<ResultSet> relocate_statement(const sql::AdminStatement& stmt);
  /// ALTER TABLE t COLOCATE WITH u: t's ranges split, moved and merged to be u's group root's,
  /// then t follows them.
  Result<ResultSet> colocate(const sql::AdminStatement& stmt);
  Result<ResultSet> show_ranges(const sql::AdminStatement& stmt);
  Result<ResultSet> show_range_for_row(const sql::AdminStatement& stmt);
  Result<ResultSet> show_shards();
  /// SHOW HOT RANGES: every range with the requests per second the live instances counted,
  /// hottest first.
  Result<ResultSet> show_hot_ranges();
  /// ALTER SHARD s DRAIN: marks the shard draining (no new ranges come to it) and moves every
  /// range off it, each to the open shard with the fewest ranges, as a job; UNDRAIN ends that.
  Result<ResultSet> drain_shard(const sql::AdminStatement& stmt);
  /// SHOW JOBS, SHOW JOB n.
  Result<ResultSet> show_jobs(const sql::AdminStatement& stmt);
  /// CANCEL JOB n: the job stops at its next step, before the map switches; after that it
  /// finishes.
  Result<ResultSet> cancel_job(const sql::AdminStatement& stmt);
  /// Records a job of `type`, runs `run` and ends the job as it ended.
  Result<void> record_job(const std::string& type, const std::string& description,
                          uint64_t range_id, const std::function<Result<void>()>& run);
  /// Applies range ops through the store, retrying when another instance got there first.
  Result<void> apply_ops(const std::vector<RangeOp>& ops);
  Result<void> apply_changes(const std::vector<RangeChange>& changes);

  ClusterControl& control_;
};

/// A µs-since-epoch split enforcement time as PostgreSQL prints a timestamp ("infinity" for a
/// split without expiration).
std::string format_enforced_until(int64_t micros);

/// A key as psql shows a bytea in hex output: \x followed by the hex digits.
std::string bytea_hex(std::string_view bytes);

}  // namespace pgrange::routing
