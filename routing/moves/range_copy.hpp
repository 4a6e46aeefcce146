#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "routing/meta/catalog.hpp"

namespace pgrange::routing {

/// One relation's share of a range: its rows whose primary-index keys lie in
/// [start_key, end_key) (key_range_predicate selects them).
struct RangePart {
  TableDescriptor table;
  std::string start_key;
  std::string end_key;
};

/// Copies the rows of a range from a source shard to a target shard while the application goes
/// on writing them at the source, in steps the caller interleaves with its holds and its switch
/// of the range map:
///
///   auto copy = RangeCopy::start(source, target, parts, "pgrange_move_7", true);
///   copy->catch_up(…);  // as often as it likes: applies what the source committed since
///   … hold writes to the range …
///   copy->prepare(…);   // the last writes; the counts agree; the copy prepared
///   … hold whole-table reads …
///   copy->commit_target();  // the rows are on both shards: point reads find them either way
///   … point the range at the target …  copy->switched();
///   … every instance reads the target; writes go on there …  copy->delete_source();
///   … let whole-table reads go on …
///   (or copy->abort() before the switch: nothing changed anywhere)
///
/// How: a publication of the range's rows (its key predicate as the row filter) and a temporary
/// logical replication slot on the source, made with an exported snapshot; the snapshot's rows
/// go by binary COPY into one transaction on the target that stays open, and the changes the
/// slot decodes after it (pgoutput) are applied in that same transaction. Until it commits, the
/// target's copy is invisible: whole-table reads there see only the rows the target owns, so
/// they never wait for a move. A marker (pg_logical_emit_message) written on the source and
/// read back from the stream proves every earlier commit applied. prepare() takes the last
/// changes while the source counts the range's rows, ends the stream, checks the target holds
/// exactly as many, and prepares the copy. The source's rows are deleted only after the map
/// switched, with writes going on at the target: deleting a large range takes long, and only
/// whole-table reads (which would see both copies) wait for it.
///
/// Nothing outlives a crash of pgrange before prepare(): the slot is temporary, the target's
/// transaction rolls back with its connection; only the publication stays (drop_publication).
/// After prepare() the prepared copy (target_gid) is settled by the range map: committed if it
/// gives the range to the target, rolled back if not. Rows of the range on a shard the map
/// does not name (a committed copy, or the source's rows after the switch) are deleted with
/// the range's hold, which stays until they are.
///
/// Without `follow_writes` (a table whose replica identity does not cover its key, so the
/// source could not publish its updates by key) there is no publication and no stream: the
/// caller holds writes to the range before start() and the snapshot is the source's at start.
/// Blocking calls (libpq); not thread-safe. Destroying a copy that was not committed aborts it.
class RangeCopy {
 public:
  /// Whether the source can publish every part's updates and deletes by key: each table's
  /// replica identity (its primary key by default, or FULL) covers its key columns, and the
  /// range's key predicate can be a publication's row filter (built-in types and functions).
  static Result<bool> can_follow_writes(const std::string& source_dsn,
                                        const std::vector<RangePart>& parts);

  /// Creates the publication and slot (with `follow_writes`), opens the target's transaction,
  /// clears rows of the range an earlier failed move left there and copies the snapshot's rows.
  /// `name` (an identifier) names the publication and slot and makes the gids. A shard
  /// without wal_level = logical gets 55000 naming the setting.
  /// The slot's snapshot waits for the transactions running on the source: past `slot_wait`
  /// start() gives up (57014).
  static Result<RangeCopy> start(const std::string& source_dsn, const std::string& target_dsn,
                                 std::vector<RangePart> parts, const std::string& name,
                                 bool follow_writes,
                                 std::chrono::milliseconds slot_wait = std::chrono::seconds(60));

  RangeCopy(RangeCopy&&) noexcept;
  RangeCopy& operator=(RangeCopy&&) noexcept;
  RangeCopy(const RangeCopy&) = delete;
  RangeCopy& operator=(const RangeCopy&) = delete;
  ~RangeCopy();

  /// Rows the snapshot copy wrote to the target.
  int64_t rows_copied() const;
  /// Changes (inserts, updates, deletes) applied from the stream so far.
  int64_t changes_applied() const;

  /// Applies what the source committed before this call; returns the changes it applied.
  /// 57014 when `timeout` passes first (the copy can go on).
  Result<int64_t> catch_up(std::chrono::milliseconds timeout);

  /// Called with writes to the range held: applies the last changes (57014 after `timeout`)
  /// while the source counts the range's rows, ends the stream, checks the target holds as
  /// many, prepares the copy and drops the publication. On failure nothing is prepared
  /// (abort() cleans up).
  Result<void> prepare(std::chrono::milliseconds timeout);
  /// COMMIT PREPARED of the copy on the target (before the map switches, so that a point read
  /// routed with the new map finds the rows).
  Result<void> commit_target();
  /// The map now gives the range to the target: abort() and the destructor delete the source's
  /// rows from here on.
  void switched();
  /// Deletes the range's rows on the source in one transaction; returns how many went.
  Result<int64_t> delete_source();
  /// The range's rows the source had when prepare() counted them.
  int64_t source_rows() const;
  /// Rolls back whatever is open or prepared on both shards and drops the publication; after
  /// commit_target() without switched(), deletes the target's copy. After switched(), deletes
  /// the source's rows instead.
  Result<void> abort();

  static std::string target_gid(const std::string& name);
  /// Recovery: COMMIT PREPARED (`commit`) or ROLLBACK PREPARED the transaction `gid` if the
  /// shard at `dsn` has it prepared; returns whether it had.
  static Result<bool> settle(const std::string& dsn, const std::string& gid, bool commit);
  /// Drops the publication `name` on the shard at `dsn` if it has one; returns whether it had.
  static Result<bool> drop_publication(const std::string& dsn, const std::string& name);

 private:
  struct State;
  explicit RangeCopy(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace pgrange::routing
