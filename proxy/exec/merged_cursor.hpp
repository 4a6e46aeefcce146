#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "proxy/backend/backend_connection.hpp"
#include "proxy/exec/merge_build.hpp"
#include "proxy/exec/operator.hpp"
#include "sql/cursor_statement.hpp"
#include "sql/merge_query.hpp"

namespace pgrange::proxy::exec {

/// Rows asked of one shard's cursor at a time.
inline constexpr uint64_t kCursorBatch = 1000;

/// The shards' FETCH of their next kCursorBatch rows from cursor `name` (an SQL identifier as
/// written: quoted where it must be).
inline std::string cursor_fetch_sql(const std::string& name) {
  return "FETCH FORWARD " + std::to_string(kCursorBatch) + " FROM " + name;
}

/// Where a FETCH or MOVE goes on a cursor read forward only, from `position` (rows fetched or
/// moved over so far): `skip` rows passed over, then `take` rows returned (or moved over); or
/// the current row again (`again`: the last row fetched or moved over, which pgrange keeps).
struct CursorSteps {
  uint64_t skip = 0;
  uint64_t take = 0;
  bool again = false;
};

/// The steps of `stmt` on a cursor over several shards at `position`, `on_row` when the
/// cursor sits on a row (it has moved and not run off the end). Reading backward fails with
/// PostgreSQL's own error when the cursor was declared NO SCROLL (`55000`), else with `0A000`
/// (PostgreSQL may read such a cursor backward, depending on its plan; pgrange never). The
/// current row again is PostgreSQL's: a count of 0 (FETCH RELATIVE 0, FORWARD 0, BACKWARD 0)
/// gives no row off a row; on one, MOVE counts it and FETCH returns it, where PostgreSQL
/// backs up a row to read it again, so a NO SCROLL cursor fails with `55000`, as ABSOLUTE n at
/// row n does.
Result<CursorSteps> forward_steps(const sql::CursorStatement& stmt, uint64_t position,
                                  bool no_scroll, bool on_row);

/// A cursor over several shards: the cursor of `merge`'s shard query that the caller declared
/// on each connection (a transaction block's parts, or connections held for a cursor WITH HOLD),
/// read `fetch` by `fetch` (ShardCursor) and merged (make_merge_tree), only as the client
/// reads it, so that at most a batch per shard is held. Closing the shards' cursors is the
/// caller's, and so are the session's settings on the connections before each read.
class MergedCursor {
 public:
  MergedCursor(const sql::MergeQuery& merge,
               const std::vector<std::shared_ptr<BackendConnection>>& conns,
               const std::string& fetch, const std::string& name, bool no_scroll,
               MergeTreeOptions options);

  /// Moves `n` rows forward (fewer at the end), their DataRows appended to `rows` when `keep`;
  /// every shard's cursor is read once first (the columns). How many rows it moved.
  awaitable<ExecResult<uint64_t>> advance(uint64_t n, bool keep, std::string& rows);
  /// FETCH or MOVE as `stmt` says (forward_steps): for FETCH the RowDescription and the rows,
  /// then the CommandComplete, appended to `out`.
  awaitable<ExecResult<void>> fetch(const sql::CursorStatement& stmt, std::string& out);
  /// The RowDescription body of its rows (after advance).
  std::string columns() const { return tree_->columns(); }

 private:
  std::unique_ptr<RowOperator> tree_;
  bool no_scroll_ = false;
  bool opened_ = false;            // every shard's cursor read once (the columns are known)
  bool finished_ = false;          // the merge has no rows left
  std::deque<std::string> ready_;  // merged DataRow messages, not fetched yet
  uint64_t position_ = 0;          // rows fetched or moved over so far
  bool at_end_ = false;            // a move ran off the end
  std::string last_row_;           // the DataRow of the row it sits on (or last sat on)
};

}  // namespace pgrange::proxy::exec
