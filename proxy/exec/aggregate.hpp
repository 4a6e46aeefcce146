#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "proxy/exec/merge_sort.hpp"
#include "proxy/exec/operator.hpp"
#include "routing/merge/merge_rows.hpp"
#include "sql/merge_query.hpp"

namespace pgrange::proxy::exec {

/// Aggregate: the shards' partial aggregates combined per group (count and sum added, min and
/// max compared, avg from the partial sums and counts). Its input's rows are sorted by the
/// group columns (the query's first ones), so a group ends where the next one starts; its rows
/// are the query's outputs (the client's, then the hidden ones HAVING and ORDER BY use), in
/// text. Without GROUP BY it makes one row, even of no input row.
class Aggregate final : public RowOperator {
 public:
  /// `exact_floats`: the shards print floats exactly (float sums are combined only then).
  Aggregate(std::unique_ptr<RowOperator> input, sql::MergeQuery query, TextOrderCheck text_order,
            bool exact_floats = true);

  awaitable<ExecResult<void>> open() override;
  std::string columns() const override { return columns_; }
  awaitable<ExecResult<bool>> next_rows(std::vector<std::string>& rows, size_t max) override;
  awaitable<void> close(bool abandon) override { co_await input_->close(abandon); }
  std::vector<const Operator*> inputs() const override { return {input_.get()}; }
  std::string describe() const override;

 private:
  Result<std::string> finish_group();

  std::unique_ptr<RowOperator> input_;
  sql::MergeQuery q_;
  TextOrderCheck text_order_;
  bool exact_floats_ = true;
  std::string columns_;
  size_t width_ = 0;
  routing::RowOrder groups_;
  std::vector<routing::AggregateCombiner> combiners_;
  std::optional<routing::MergeRow> group_;  ///< the first row of the group being combined
  bool any_group_ = false;
  bool done_ = false;
  /// Input rows read and not yet combined: the input is asked for as many rows as groups are
  /// wanted (a group has at least one), so that a LIMIT above stops it early.
  std::vector<std::string> pending_;
  size_t next_pending_ = 0;
  bool input_ended_ = false;
};

}  // namespace pgrange::proxy::exec
