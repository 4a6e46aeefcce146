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
/// int8/numeric x, float4/float8 for float4/float8 x; min(x)/max(x) → x's type; for avg(x),
/// sum(x) and count(x). Values are in text format. Float sums are added as PostgreSQL's
/// parallel aggregation combines them (float4pl/float8pl, in the order the partials come), so a
/// result may differ from one server's in its last digits as a parallel plan's may. Among equal
/// values (1.0 and 1.00, -0 and 0) min/max keep the first one added; PostgreSQL's choice depends on
/// the order it reads rows in.
class AggregateCombiner {
 public:
  /// `partial_oid` is the type of the shard's partial column as RowDescription reports it
  /// (for avg, of the sum); `count_oid` is avg's count column (int8). `exact_floats`: the
  /// shards print floats exactly (extra_float_digits 1 or more). 0A000 for what it cannot
  /// combine as PostgreSQL does: sums of floats printed rounded, avg of float4 (each shard
  /// sums them as float4, PostgreSQL averages them as float8), types it does not know.
  static Result<AggregateCombiner> make(AggregateKind kind, uint32_t partial_oid,
                                        uint32_t count_oid = 0, bool exact_floats = true);

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
  /// numeric (float8 for a float8 sum).
  uint32_t result_oid() const;
  /// Forgets what was added, for the next group.
  void reset();

 private:
  AggregateCombiner(AggregateKind kind, uint32_t partial_oid)
      : kind_(kind), partial_oid_(partial_oid) {}

  Result<int64_t> add_int8(int64_t sum, std::string_view text) const;
  /// add() of a float4 or float8 sum (avg's, with its count).
  Result<void> add_float(std::string_view partial, std::optional<std::string_view> count);

  AggregateKind kind_;
  uint32_t partial_oid_;
  std::optional<ValueOrder> order_;  // min/max
  bool seen_ = false;                // a non-NULL partial was added
  int64_t int_total_ = 0;            // count, int8 sums, avg's count
  PgNumeric numeric_total_;          // numeric sums, avg's sum
  double float_total_ = 0;           // float8 sums and avg's float8 sum
  float float4_total_ = 0;           // float4 sums
  std::string best_;                 // min/max so far
};

}  // namespace pgrange::routing
