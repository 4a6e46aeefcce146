#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/error.hpp"
#include "routing/meta/catalog.hpp"

/// The rows of one key range of a table on a shard, and the control-plane steps that move them
/// from one shard to another.
///
/// A row of a table belongs to the range holding its primary-index key
/// (/Table/<table_id>/1/<key columns>, routing/key_space.hpp). key_range_predicate
/// (routing/plan/key_predicate.hpp) turns a key range into SQL over the key columns that selects
/// exactly those rows, so a shard can count, copy or delete them.
namespace pgrange::routing {

/// What a shard holds of one range of a table.
struct RangeStats {
  int64_t row_count = 0;
  /// Approximate size: the sum of pg_column_size over the rows (no page or index overhead).
  int64_t bytes = 0;
};

/// Counts the rows of [start_key, end_key) of `table` on the shard at `dsn` (one read-only
/// transaction). Errors carry the server's SQLSTATE, or 08006 when the connection fails.
Result<RangeStats> range_stats(const std::string& dsn, const TableDescriptor& table,
                               std::string_view start_key, std::string_view end_key);

/// Moves the rows of one range of a table from a source shard to a target shard in steps the
/// caller interleaves with its own switch of the range map:
///
///   auto move = RangeMove::prepare(source, target, table, start, end);  // rows copied
///   … point the range at the target …
///   move->finish();    // rows deleted at the source
///   (or move->abort(): the source keeps its rows, the target loses the copies)
///
/// prepare() opens a READ COMMITTED transaction on the source and takes
/// LOCK TABLE … IN SHARE MODE there, which waits for in-flight writers of the table and blocks
/// new ones (reads go on) until finish() or abort(). It then deletes whatever rows of the range
/// the target has (left over from an earlier failed move), streams the range's rows with binary
/// COPY (source COPY (SELECT …) TO STDOUT, target COPY … FROM STDIN) and commits on the target.
/// The column list is the source table's non-dropped, non-generated columns in attribute order,
/// used on both sides: the shards hold identical tables (DDL goes to every shard), and generated
/// columns are recomputed by the target.
///
/// The lock is table-wide on the source shard: every write to the table there waits while the
/// move is prepared, so callers should keep the time between prepare() and finish() short.
/// Blocking calls (libpq); not thread-safe. Destroying a prepared move that was neither finished
/// nor aborted aborts it (errors ignored).
class RangeMove {
 public:
  struct Options {
    /// lock_timeout for LOCK TABLE on the source (zero: wait as long as it takes).
    std::chrono::milliseconds lock_timeout{0};
  };

  /// Copies the range's rows to the target and keeps the source's lock. On failure nothing is
  /// left behind: the source transaction is rolled back and the target's is not committed.
  static Result<RangeMove> prepare(const std::string& source_dsn, const std::string& target_dsn,
                                   const TableDescriptor& table, std::string_view start_key,
                                   std::string_view end_key);
  static Result<RangeMove> prepare(const std::string& source_dsn, const std::string& target_dsn,
                                   const TableDescriptor& table, std::string_view start_key,
                                   std::string_view end_key, const Options& options);

  RangeMove(RangeMove&&) noexcept;
  RangeMove& operator=(RangeMove&&) noexcept;
  RangeMove(const RangeMove&) = delete;
  RangeMove& operator=(const RangeMove&) = delete;
  ~RangeMove();

  /// Rows written to the target by prepare().
  int64_t rows_copied() const;
  /// The predicate used to select the range's rows.
  const std::string& predicate() const;

  /// Deletes the range's rows at the source in the still-open transaction and commits it
  /// (releasing the lock). Returns the rows deleted. When they differ from rows_copied() the
  /// source's transaction is still committed (the target already has the rows) and XX000 is
  /// returned. On any other failure the source keeps its rows (the commit did not happen):
  /// stale rows of a range it no longer owns, which a later move onto that shard deletes first.
  /// The move is over either way: abort() and the destructor then do nothing, since the target
  /// holds the range's rows.
  Result<int64_t> finish();

  /// Rolls back the source transaction (its rows stay) and deletes the range's rows at the
  /// target. Returns the rows deleted at the target. When that delete fails, abort() may be
  /// called again to retry it (the destructor tries once more). Does nothing (returns 0) after
  /// finish() or a successful abort().
  Result<int64_t> abort();

 private:
  struct State;
  explicit RangeMove(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace pgrange::routing
