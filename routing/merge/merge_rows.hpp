#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "routing/keys/value_order.hpp"
#include "routing/merge/aggregate_combine.hpp"
#include "sql/merge_query.hpp"

namespace pgrange::routing {

/// One column of a RowDescription message.
struct ResultField {
  std::string name;
  uint32_t table_oid = 0;
  int16_t attnum = 0;
  uint32_t type_oid = 0;
  int16_t type_len = 0;
  int32_t type_mod = -1;
  int16_t format = 0;

  bool operator==(const ResultField&) const = default;
};

/// Reads a RowDescription body; writes one.
Result<std::vector<ResultField>> read_row_description(std::string_view body);
std::string write_row_description(const std::vector<ResultField>& fields);

/// The query that names the types of `fields` as format_type writes them (with their
/// modifiers): one row per field, in their order (for writing values back as those types).
std::string format_types_query(const std::vector<ResultField>& fields);

/// Whether two shards' RowDescriptions describe the same columns (a type made by CREATE TYPE
/// has each shard's own OID: any two such types are taken as the same).
bool same_columns(const std::vector<ResultField>& a, const std::vector<ResultField>& b);

/// The values of a row, as text (or as the shard sent them); nullopt is NULL.
using RowValues = std::vector<std::optional<std::string>>;

/// A DataRow body and where each value is in it (offsets, so that the row can move).
struct MergeRow {
  std::string body;
  std::vector<uint32_t> offsets;
  std::vector<int32_t> lengths;  ///< -1: NULL

  /// Reads a DataRow body of exactly `columns` values (XX000 when it is malformed).
  static Result<MergeRow> parse(std::string body, size_t columns);

  size_t size() const { return lengths.size(); }
  std::optional<std::string_view> value(size_t i) const {
    if (lengths[i] < 0) return std::nullopt;
    return std::string_view(body).substr(offsets[i], static_cast<size_t>(lengths[i]));
  }
  /// The body of the row's first `n` values.
  std::string prefix(size_t n) const;
  RowValues values() const;
};

/// A DataRow body of `values`.
std::string data_row_body(const RowValues& values);
/// Appends a DataRow message (type byte, length, body) to `out`.
void append_data_row(std::string& out, std::string_view body);

/// The order of rows by sort keys over their columns, as ORDER BY, GROUP BY and DISTINCT
/// compare them (NULLS FIRST/LAST, DESC).
class RowOrder {
 public:
  RowOrder() = default;
  /// Over rows described by `fields`; 0A000 naming `what` ("ORDER BY", "SELECT DISTINCT",
  /// "GROUP BY") when a key's column has a type pgrange cannot compare exactly.
  static Result<RowOrder> make(const std::vector<ResultField>& fields,
                               std::vector<sql::MergeSortKey> keys, const char* what);

  /// <0, 0, >0.
  int compare(const MergeRow& a, const MergeRow& b) const;
  /// Whether the first key reads as integers (ValueOrder::integer_like): abbreviation() then
  /// gives most rows a number in that key's order.
  bool abbreviates() const;
  /// The row's first key as an unsigned number whose order is the key's (NULLS FIRST/LAST and
  /// DESC applied): two rows whose abbreviations differ compare as their abbreviations do; equal
  /// ones need compare(). nullopt when the value does not read (or the key is of another type).
  std::optional<uint64_t> abbreviation(const MergeRow& row) const;
  /// 0A000 when a key's value is text of a type whose form depends on session settings
  /// (DateStyle, bytea_output) that pgrange does not read.
  Result<void> check(const MergeRow& row) const;
  /// Whether it compares values of a collated text type (bytewise, as the C collation does).
  bool compares_text() const { return compares_text_; }
  bool empty() const { return keys_.empty(); }
  const std::vector<sql::MergeSortKey>& keys() const { return keys_; }

 private:
  std::vector<sql::MergeSortKey> keys_;
  std::vector<ValueOrder> orders_;
  bool compares_text_ = false;
};

/// Whether values of this type are text ordered by a collation (text, varchar, char).
bool collated_type(uint32_t oid);

/// The columns of a partial aggregate's combined groups: the query's outputs (the client's,
/// then the hidden ones ORDER BY and HAVING use), typed from the shards' `fields` (GROUP BY
/// columns, then the partial aggregates). Also the combiners, one per aggregate.
struct AggregateOutputs {
  std::vector<ResultField> fields;
  std::vector<AggregateCombiner> combiners;
  bool compares_text = false;  ///< min/max of collated text
};
Result<AggregateOutputs> aggregate_outputs(const sql::MergeQuery& query,
                                           const std::vector<ResultField>& fields,
                                           bool exact_floats = true);

/// A HAVING condition over a combined group's outputs, in three-valued logic (nullopt:
/// NULL); 0A000 for a comparison pgrange cannot make exactly.
Result<std::optional<bool>> evaluate_having(const sql::MergePredicate& p, const MergeRow& row,
                                            const std::vector<ResultField>& fields);

/// The client's result formats for `columns` combined values (none: text; one: for every
/// column; else one per column): whether each is sent in binary. 08P01 for a count that is
/// neither, 22023 for an unknown format code, 0A000 for a type pgrange cannot send in binary
/// (or a float, when `exact_floats` is false: its text is not the shards' exact value).
Result<std::vector<bool>> binary_columns(const std::vector<ResultField>& fields,
                                         const std::vector<int16_t>& client_formats,
                                         bool exact_floats);

}  // namespace pgrange::routing
