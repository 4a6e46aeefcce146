#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace pgrange::sql {

/// One key of an ORDER BY that pgrange applies when it merges the shards' rows.
struct MergeSortKey {
  /// The column it sorts by: ordered mode, the shard result's column (hidden ones at the end);
  /// aggregate mode, the index into MergeQuery::outputs.
  int column = 0;
  bool descending = false;
  bool nulls_first = false;  ///< PostgreSQL's default: NULLS FIRST exactly when DESC

  bool operator==(const MergeSortKey&) const = default;
};

/// An aggregate pgrange combines from the shards' partial results.
struct MergeAggregate {
  enum class Kind { kCount, kSum, kMin, kMax, kAvg };
  Kind kind = Kind::kCount;
  /// The shard result's column of its partial value; avg: the partial sum there and the
  /// partial count in the next column.
  int column = 0;
  std::string name;  ///< "count", "sum", … for messages

  bool operator==(const MergeAggregate&) const = default;
};

/// A column pgrange produces in aggregate mode (a GROUP BY column or a combined aggregate) or
/// in window mode (a shard column passed on, or a window function pgrange computes).
struct MergeOutput {
  bool is_group = false;
  /// Aggregate mode: into the group columns (shard columns 0…) or MergeQuery::aggregates;
  /// window mode: a shard column (is_group) or into MergeQuery::windows.
  int index = 0;
  bool operator==(const MergeOutput&) const = default;
};

/// A window function pgrange computes over the shards' rows merged in the window's order
/// (window mode). Every frame starts at the partition's first row.
struct MergeWindowCall {
  enum class Kind {
    kRowNumber,
    kRank,
    kDenseRank,
    kLag,
    kLead,
    kFirstValue,
    kLastValue,
    kNthValue,
    kPercentRank,
    kCumeDist,
    kNtile,
    kCount,
    kSum,
    kMin,
    kMax,
    kAvg
  };
  /// Where the frame ends: the current row's last peer (RANGE or GROUPS … CURRENT ROW, the
  /// default), the current row (ROWS … CURRENT ROW), the partition's last row (… UNBOUNDED
  /// FOLLOWING).
  enum class Frame { kPeers, kRow, kPartition };
  Kind kind = Kind::kRowNumber;
  Frame frame = Frame::kPeers;
  /// The shard column of its argument; -1 for none (count(*), row_number(), …).
  int argument = -1;
  /// lag/lead: the offset; nth_value: n; ntile: the number of buckets.
  int64_t offset = 1;
  /// lag/lead: the shard column of the default value (the argument's type and the default's
  /// resolved as PostgreSQL resolves them); -1: NULL.
  int default_value = -1;
  std::string name;  ///< "row_number", "sum", … as PostgreSQL names its column
  bool operator==(const MergeWindowCall&) const = default;
};

/// A HAVING condition pgrange evaluates over the combined groups (three-valued logic).
struct MergePredicate {
  enum class Kind { kAnd, kOr, kNot, kCompare, kIsNull, kIsNotNull };
  Kind kind = Kind::kCompare;
  std::vector<MergePredicate> children;  ///< kAnd, kOr, kNot
  /// kCompare: output `left` op (output `right_output` or the constant `right_text`);
  /// kIsNull/kIsNotNull: output `left`.
  int left = 0;
  std::string op;  ///< "=", "<>", "<", "<=", ">", ">="
  int right_output = -1;
  std::optional<std::string> right_text;  ///< nullopt with right_output < 0: NULL

  bool operator==(const MergePredicate&) const = default;
};

/// How to run one SELECT on several shards and merge their answers into PostgreSQL's answer.
struct MergeQuery {
  enum class Mode {
    /// The shards' rows are the answer's rows: merged in ORDER BY order (when there is one),
    /// DISTINCT and OFFSET/LIMIT applied after the merge.
    kOrdered,
    /// The shards compute partial aggregates per group, sorted by the group columns; pgrange
    /// combines equal groups, applies HAVING, DISTINCT, ORDER BY, OFFSET/LIMIT.
    kAggregate,
    /// The shards' rows, merged in the order of the windows' PARTITION BY and ORDER BY
    /// (`window_order`); pgrange computes the window functions (`windows`) over them, then
    /// applies DISTINCT, ORDER BY, OFFSET/LIMIT to its outputs as in kAggregate.
    kWindow
  };
  Mode mode = Mode::kOrdered;
  /// What each shard runs.
  std::string shard_sql;

  // kOrdered
  /// Columns the shard query has after the client's (ORDER BY expressions not selected); they
  /// are removed from the rows sent to the client.
  int hidden = 0;
  /// The number of the client's columns, when known without running (no `*`); -1 otherwise.
  int visible = -1;

  // kAggregate
  int group_columns = 0;  ///< the shard result's first columns are the GROUP BY expressions
  std::vector<MergeAggregate> aggregates;
  /// The client's columns, then hidden ones ORDER BY and HAVING use.
  std::vector<MergeOutput> outputs;
  int visible_outputs = 0;
  /// The names of the client's columns (aggregate mode), as PostgreSQL names them; empty for a
  /// column whose name the shard's RowDescription gives.
  std::vector<std::string> output_names;
  std::optional<MergePredicate> having;

  // kWindow (outputs, visible_outputs and output_names as in kAggregate)
  /// The shard columns the rows are merged by: the PARTITION BY ones first.
  std::vector<MergeSortKey> window_order;
  int window_partition_keys = 0;
  std::vector<MergeWindowCall> windows;

  // both
  /// kOrdered: the merge order (the shards run the same ORDER BY); kAggregate: the order of the
  /// combined rows. With `distinct` in kOrdered mode, it covers every client column.
  std::vector<MergeSortKey> order;
  bool distinct = false;
  std::optional<int64_t> limit;  ///< nullopt: none
  int64_t offset = 0;
  /// `LIMIT $n` / `OFFSET $n`: the parameter (1-based) whose value sets `limit` / `offset` once
  /// a Bind gives it (bind_bounds); 0 for a constant or none.
  int limit_param = 0;
  int offset_param = 0;
  /// The shard query carries LIMIT offset+limit: a shard has no more rows than that to send.
  bool limit_pushed = false;
  /// The shard query is the client's text itself: nothing needed rewriting.
  bool shard_sql_is_text = false;
  /// Byte offsets in the text of the constants the plan depends on (ORDER BY and GROUP BY
  /// positions, LIMIT, OFFSET): texts differing only in other literals have the same plan.
  std::vector<int> constants_read;

  /// The statement computes window functions (kOrdered only): the columns of the table every
  /// window's PARTITION BY names (bare or qualified; expressions left out), possibly none. Each
  /// shard computes the windows over its own rows, PostgreSQL's answer only when no partition
  /// has rows on two shards: the caller checks that against the ranges. nullopt: no window.
  std::optional<std::vector<std::string>> window_partition;
  /// With window_partition: the plan that computes the windows in pgrange (kWindow) for when
  /// partitions span shards, or why it cannot (then the table's rows are gathered).
  std::shared_ptr<const Result<MergeQuery>> windows_in_pgrange;

  /// ORDER BY pgrange must leave unmerged (no ORDER BY): rows go in shard order.
  bool ordered() const { return !order.empty(); }
};

/// Plans the merge of one SELECT (the statement's text) on one table whose key columns are
/// `key_columns` and whose columns are `table_columns` (for telling GROUP BY names of columns
/// from names of outputs, as PostgreSQL does). A SELECT pgrange cannot answer exactly across
/// shards is an Error with SQLSTATE 0A000 naming the construct; a syntax error is 42601.
Result<MergeQuery> plan_merge(std::string_view select_sql, std::span<const std::string> key_columns,
                              std::span<const std::string> table_columns);

/// A query one shard answers whole (every row it reads is there): its rows relayed as they
/// come, nothing combined, so any construct and any result format is the shard's own.
MergeQuery relayed(std::string shard_sql);

/// The plan with its `$n` LIMIT and OFFSET set from the Bind's values (`value(n)`: nullopt for
/// NULL): PostgreSQL's errors for a negative one (2201W, 2201X).
Result<MergeQuery> bind_bounds(MergeQuery query,
                               const std::function<Result<std::optional<int64_t>>(int)>& value);

/// A collation that orders (UTF-8) text as its bytes, as pgrange merges text: C, POSIX,
/// ucs_basic and C.UTF-8 (code point order), in any letter case.
bool orders_bytewise(std::string_view collation);

/// How the merge works, for EXPLAIN: one line each ("shard query: …", "k-way merge on …", …).
std::vector<std::string> describe_merge(const MergeQuery& query);

}  // namespace pgrange::sql
