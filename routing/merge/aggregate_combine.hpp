#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.hpp"
#include "routing/keys/pg_numeric.hpp"
#include "routing/keys/value_order.hpp"

namespace pgrange::routing {

/// The aggregates whose per-shard results pgrange can combine.
enum class AggregateKind { kCount, kSum, kMin, kMax, kAvg };

/// The aggregate's SQL name ("count", "sum", "min", "max", "avg").
std::string_view aggregate_name(AggregateKind kind);

/// Combines one aggregate's partial results from several shards (or several partial groups)
/// into the value PostgreSQL computes over all the rows, in its text output.
///
/// What each shard runs: count(…) → int8; sum(x) → int8 for int2/int4 x, numeric for
/// int8/numeric x; min(x)/max(x) → x's type; for avg(x), sum(x) and count(x). Values are
/// in text format. Among equal values (1.0 and 1.00, -0 and 0) min/max keep the first one
/// added; PostgreSQL's choice depends on the order it reads rows in.
class AggregateCombiner {
 public:
  /// `partial_oid` is the type of the shard's partial column as RowDescription reports it
  /// (for avg, of the sum); `count_oid` is avg's count column (int8). 0A000 when the
  /// combination cannot be exact: sum/avg of float4/float8, and types it does not know.
  static Result<AggregateCombiner> make(AggregateKind kind, uint32_t partial_oid,
                                        uint32_t count_oid = 0);

  /// Adds one shard's partial values (nullopt = SQL NULL); for avg, (sum, count).
  /// 22003 "bigint out of range" when an int8 count or sum overflows, 22P02 for a value
  /// that does not read as its type, 0A000 for a min/max value pgrange cannot compare.
  Result<void> add(std::optional<std::string_view> partial,
                   std::optional<std::string_view> count = {});
  /// The combined value (nullopt = NULL): count is 0 when nothing was added; sum, min, max
  /// and avg are NULL when every partial was NULL; avg is the numeric sum divided by the
  /// count as PostgreSQL's numeric division does it.
  Result<std::optional<std::string>> result() const;
  /// The type OID of the result column: count int8, sum/min/max the partial's type, avg
  /// numeric.
  uint32_t result_oid() const;
  /// Forgets what was added, for the next group.
  void reset();

 private:
  AggregateCombiner(AggregateKind kind, uint32_t partial_oid)
      : kind_(kind), partial_oid_(partial_oid) {}

  Result<int64_t> add_int8(int64_t sum, std::string_view text) const;

  AggregateKind kind_;
  uint32_t partial_oid_;
  std::optional<ValueOrder> order_;  // min/max
  bool seen_ = false;                // a non-NULL partial was added
  int64_t int_total_ = 0;            // count, int8 sums, avg's count
  PgNumeric numeric_total_;          // numeric sums, avg's sum
  std::string best_;                 // min/max so far
};

}  // namespace pgrange::routing
