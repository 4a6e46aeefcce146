#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "proxy/exec/merge_sort.hpp"
#include "proxy/exec/operator.hpp"
#include "proxy/exec/spill_file.hpp"
#include "routing/merge/merge_rows.hpp"

namespace pgrange::proxy::exec {

/// Sort: its input's rows, all read, in the order of `keys` (stable: rows that compare equal
/// keep their input order). It holds at most about `memory_limit` bytes of rows
/// (query_memory): past it, what it holds is sorted and written to a temporary file in
/// `temp_directory` as a run, and the runs (and the rows held last) are merged at the end, as
/// PostgreSQL's external sort does past work_mem.
class Sort final : public RowOperator {
 public:
  Sort(std::unique_ptr<RowOperator> input, std::vector<sql::MergeSortKey> keys, std::string what,
       size_t memory_limit, TextOrderCheck text_order, std::string temp_directory = {});

  awaitable<ExecResult<void>> open() override;
  std::string columns() const override { return input_->columns(); }
  awaitable<ExecResult<bool>> next_rows(std::vector<std::string>& rows, size_t max) override;
  awaitable<void> close(bool abandon) override { co_await input_->close(abandon); }
  std::vector<const Operator*> inputs() const override { return {input_.get()}; }
  std::string describe() const override;

  /// What one held row costs, as the cap counts it (with its place in the vector of rows).
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
  std::vector<uint32_t> order_index_;  // rows_ in order, once sorted
  bool sorted_ = false;
  size_t next_ = 0;
  size_t held_ = 0;
  size_t peak_ = 0;
  size_t spilled_runs_ = 0;  // for describe(), once the file is gone
  uint64_t spilled_bytes_ = 0;

  /// What the rows held cost, as query_memory counts it.
  size_t holding() const;
  /// Puts the rows held in order (order_index_).
  void sort_held();
  /// Sorts what is held and writes it to the temporary file as a run.
  Result<void> spill();
  /// Reads the first row of each run, for the merge.
  Result<void> start_merge();
  /// The next row of the merge of the runs and the rows held (false when none is left).
  Result<bool> next_merged(std::string& body);
  /// Whether head `a` comes after head `b` (the earlier run first among equal rows).
  bool after(size_t a, size_t b) const;

  std::string temp_directory_;
  std::unique_ptr<SpillFile> spill_;
  std::vector<SpillFile::Reader> readers_;
  std::vector<routing::MergeRow> heads_;  // each run's next row; the last is the rows held
  std::vector<size_t> heap_;              // runs with a next row, the first row's first
};

}  // namespace pgrange::proxy::exec
