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

/// Merges the results the shards send for a MergeQuery into the one result PostgreSQL would
/// have sent, as a stream: it asks for the next row of the shard it needs (wanted()), and hands
/// out each row of the answer as soon as it is decided (step()). In ordered mode it holds one
/// row per shard; in aggregate mode one group, plus the combined groups when they must be
/// sorted or made distinct after combining.
class ResultMerge {
 public:
  /// `client_formats`: the result formats of the client's Bind (none: every column in text;
  /// one: every column in it; else one per column). In ordered mode the shards answer in them
  /// already (their values pass through); in aggregate mode the shards answer in text, the
  /// merge combines text, and the values the client asked in binary are converted as sent
  /// (0A000 at describe() for a type pgrange cannot convert, or for floats when the shards do
  /// not print them exactly: `exact_floats` false).
  ResultMerge(sql::MergeQuery query, size_t shards, std::vector<int16_t> client_formats = {},
              bool exact_floats = true);

  /// Shard `shard`'s RowDescription. The shards must agree; 0A000 when a column the merge
  /// compares or combines has a type pgrange cannot handle exactly.
  Result<void> describe(size_t shard, std::string_view body);
  /// Once every shard is described: the RowDescription body for the client.
  std::string row_description() const;

  /// The shard whose next row (or end of rows) the merge needs before it can go on; nullopt
  /// when step() can make progress or the merge is finished.
  std::optional<size_t> wanted() const;
  /// Shard `shard`'s next DataRow body.
  Result<void> add_row(size_t shard, std::string body);
  /// Shard `shard` has no more rows.
  void end_of_rows(size_t shard);
  /// Decides what it can and appends the answer's DataRow messages (type byte and length
  /// included) to `out`.
  Result<void> step(std::string& out);
  /// No more rows for the client (every shard ended, or LIMIT reached: the shards' remaining
  /// rows are not needed).
  bool finished() const { return finished_; }
  /// Rows sent to the client so far (the CommandComplete count).
  uint64_t rows() const { return sent_; }
  /// Once described: the merge compares text values (ORDER BY, GROUP BY, DISTINCT, min/max of
  /// text, varchar or char), which it does bytewise, as the C collation orders them.
  bool compares_text() const { return compares_text_; }

 private:
  /// A shard's row: its DataRow body and where each value is in it (offsets, so that the row
  /// can move).
  struct Row {
    std::string body;
    std::vector<uint32_t> offsets;
    std::vector<int32_t> lengths;  ///< -1: NULL
    size_t visible_end = 0;        ///< where the hidden columns start in body

    std::optional<std::string_view> value(size_t i) const {
      if (lengths[i] < 0) return std::nullopt;
      return std::string_view(body).substr(offsets[i], static_cast<size_t>(lengths[i]));
    }
  };
  using Values = std::vector<std::optional<std::string>>;

  Result<void> prepare();
  Result<Row> parse(std::string body) const;
  int compare_rows(const Row& a, const Row& b) const;
  std::optional<size_t> pick() const;
  Result<void> emit_row(const Row& row, std::string& out);
  Result<void> step_ordered(std::string& out);
  Result<void> step_aggregate(std::string& out);
  Result<void> finish_group(std::string& out);
  Result<std::optional<bool>> having(const sql::MergePredicate& p, const Values& v) const;
  int compare_outputs(const Values& a, const Values& b, bool all_visible) const;
  Result<void> emit_values(const Values& v, std::string& out);
  bool take_slot();

  sql::MergeQuery q_;
  size_t shards_;
  std::vector<int16_t> client_formats_;
  bool exact_floats_ = true;
  std::vector<bool> binary_outputs_;  // aggregate mode: the outputs converted to binary
  std::vector<ResultField> fields_;   // the first shard's
  size_t described_ = 0;
  std::vector<ResultField> out_fields_;
  // ordered: the sort keys over shard columns; aggregate: over the group columns
  std::vector<sql::MergeSortKey> keys_;
  std::vector<ValueOrder> key_orders_;
  std::vector<ValueOrder> output_orders_;  // aggregate: per output, for ORDER BY/DISTINCT
  std::vector<AggregateCombiner> combiners_;
  std::vector<std::optional<Row>> heads_;
  std::vector<bool> ended_;
  size_t current_ = 0;       // unordered: the shard being passed on
  std::optional<Row> last_;  // DISTINCT: the last row sent
  // aggregate mode
  bool in_group_ = false;
  bool any_group_ = false;
  Values group_values_;
  std::vector<Values> buffered_;
  bool finished_ = false;
  bool compares_text_ = false;
  uint64_t skipped_ = 0;
  uint64_t sent_ = 0;
};

}  // namespace pgrange::routing
