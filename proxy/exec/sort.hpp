#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "proxy/exec/merge_sort.hpp"
#include "proxy/exec/operator.hpp"
#include "routing/merge/merge_rows.hpp"

namespace pgrange::proxy::exec {

/// Sort: its input's rows, all read, in the order of `keys` (stable: rows that compare equal
/// keep their input order). What it holds is capped by `memory_limit` bytes (query_memory):
/// past it the statement fails with 53200 naming the setting.
class Sort final : public RowOperator {
 public:
  Sort(std::unique_ptr<RowOperator> input, std::vector<sql::MergeSortKey> keys, std::string what,
       size_t memory_limit, TextOrderCheck text_order);

  awaitable<ExecResult<void>> open() override;
  std::string columns() const override { return input_->columns(); }
  awaitable<ExecResult<bool>> next_rows(std::vector<std::string>& rows, size_t max) override;
  awaitable<void> close(bool abandon) override { co_await input_->close(abandon); }
  std::vector<const Operator*> inputs() const override { return {input_.get()}; }
  std::string describe() const override;

  /// What one held row costs, as the cap counts it.
  static size_t row_cost(const routing::MergeRow& row);

 private:
  std::unique_ptr<RowOperator> input_;
  std::vector<sql::MergeSortKey> keys_;
  std::string what_;
  size_t memory_limit_;
  TextOrderCheck text_order_;
  size_t width_ = 0;
  routing::RowOrder order_;
  std::vector<routing::MergeRow> rows_;
  bool sorted_ = false;
  size_t next_ = 0;
  size_t held_ = 0;
};

}  // namespace pgrange::proxy::exec
