#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "proxy/exec/merge_sort.hpp"
#include "proxy/exec/operator.hpp"
#include "routing/merge/aggregate_combine.hpp"
#include "routing/merge/merge_rows.hpp"
#include "sql/merge_query.hpp"

namespace pgrange::proxy::exec {

/// Window: window functions computed in pgrange (sql::MergeQuery's kWindow) over its input's
/// rows, which come sorted by the windows' PARTITION BY and then ORDER BY columns (a MergeSort
/// of the shards' sorted rows). Its rows are the query's outputs (the client's columns, then the
/// hidden ones ORDER BY uses), in text, in the input's order.
///
/// It streams: a row goes up as soon as its values are known, so it holds only the rows a frame
/// still needs — the current row's peers (equal ORDER BY values) for the default frame, the
/// next rows for lead(), the partition for a frame to UNBOUNDED FOLLOWING — and the last rows
/// lag() reads. What it holds counts against query_memory; past it the query fails with 53200.
class Window final : public RowOperator {
 public:
  Window(std::unique_ptr<RowOperator> input, sql::MergeQuery query, TextOrderCheck text_order,
         bool exact_floats, size_t memory_limit);

  awaitable<ExecResult<void>> open() override;
  std::string columns() const override { return columns_; }
  awaitable<ExecResult<bool>> next_rows(std::vector<std::string>& rows, size_t max) override;
  awaitable<void> close(bool abandon) override { co_await input_->close(abandon); }
  std::vector<const Operator*> inputs() const override { return {input_.get()}; }
  std::string describe() const override;

 private:
  struct Held {
    routing::MergeRow row;
    uint64_t peer = 0;  ///< its peer group's number in the partition (1, 2, …)
  };

  /// Takes the next input row: into the partition, or held back as the next one's first row.
  Result<void> take(std::string body);
  void append(routing::MergeRow row);
  void start_partition();
  /// Whether every value of the first held row is known.
  bool ready() const;
  /// The first held row's outputs (a DataRow body); the row is then let go.
  Result<std::string> emit();
  Result<void> add_to(size_t call, const routing::MergeRow& row);
  size_t held_cost(const routing::MergeRow& row) const;

  std::unique_ptr<RowOperator> input_;
  sql::MergeQuery q_;
  TextOrderCheck text_order_;
  bool exact_floats_ = true;
  size_t memory_limit_ = 0;
  std::string columns_;
  size_t width_ = 0;
  std::vector<routing::ResultField> fields_;  ///< the input's
  routing::RowOrder partition_;
  routing::RowOrder peers_;
  std::vector<std::optional<routing::AggregateCombiner>> combiners_;  ///< per aggregate call
  std::vector<bool> float4_avg_;  ///< avg of float4: each value read as float8 exactly
  bool needs_peers_ = false;
  bool needs_partition_ = false;
  uint64_t max_lag_ = 0;
  uint64_t max_lead_ = 0;

  // The current partition.
  std::deque<Held> held_;                  ///< rows not sent yet, in order (front: the next)
  std::deque<routing::MergeRow> history_;  ///< the last rows sent (lag() reads them)
  routing::MergeRow last_;                 ///< the last row taken, once it was sent
  bool any_row_ = false;                   ///< the partition has a row
  bool complete_ = false;                  ///< every row of the partition was taken
  std::optional<routing::MergeRow> next_partition_;
  uint64_t sent_ = 0;       ///< rows of the partition sent
  uint64_t taken_ = 0;      ///< rows of the partition taken
  uint64_t peer_ = 0;       ///< the last taken row's peer group
  uint64_t rank_peer_ = 0;  ///< the peer group rank_ and dense_rank_ are of
  uint64_t rank_ = 0;
  uint64_t dense_rank_ = 0;
  std::vector<uint64_t> added_;  ///< per call: the partition's rows its combiner added
  std::vector<std::optional<std::string>> first_;               ///< first_value: the first row's
  std::vector<std::optional<std::optional<std::string>>> nth_;  ///< nth_value: the n-th row's
  size_t held_bytes_ = 0;

  std::vector<std::string> pending_;  ///< input rows read and not yet taken
  size_t next_pending_ = 0;
  bool input_ended_ = false;
  bool done_ = false;
};

}  // namespace pgrange::proxy::exec
