#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "proxy/exec/merge_sort.hpp"
#include "proxy/exec/operator.hpp"
#include "routing/merge/merge_rows.hpp"
#include "sql/merge_query.hpp"

namespace pgrange::proxy::exec {

/// The operators that hand up their input's rows as they come, changed or not: they hold no
/// more than the batch they were asked for.

/// Filter: the rows for which a HAVING condition over combined groups is true.
class Filter final : public RowOperator {
 public:
  Filter(std::unique_ptr<RowOperator> input, sql::MergePredicate condition,
         TextOrderCheck text_order);

  awaitable<ExecResult<void>> open() override;
  std::string columns() const override { return input_->columns(); }
  awaitable<ExecResult<bool>> next_rows(std::vector<std::string>& rows, size_t max) override;
  awaitable<void> close(bool abandon) override { co_await input_->close(abandon); }
  std::vector<const Operator*> inputs() const override { return {input_.get()}; }
  std::string describe() const override { return "Filter: HAVING, over the combined groups"; }

 private:
  std::unique_ptr<RowOperator> input_;
  sql::MergePredicate condition_;
  TextOrderCheck text_order_;
  std::vector<routing::ResultField> fields_;
};

/// Distinct: of rows sorted so that equal ones are together, the first of each run of rows
/// equal on the `keys` columns.
class Distinct final : public RowOperator {
 public:
  Distinct(std::unique_ptr<RowOperator> input, std::vector<sql::MergeSortKey> keys,
           TextOrderCheck text_order);

  awaitable<ExecResult<void>> open() override;
  std::string columns() const override { return input_->columns(); }
  awaitable<ExecResult<bool>> next_rows(std::vector<std::string>& rows, size_t max) override;
  awaitable<void> close(bool abandon) override { co_await input_->close(abandon); }
  std::vector<const Operator*> inputs() const override { return {input_.get()}; }
  std::string describe() const override { return "Distinct: equal rows, one kept"; }

 private:
  std::unique_ptr<RowOperator> input_;
  std::vector<sql::MergeSortKey> keys_;
  TextOrderCheck text_order_;
  size_t width_ = 0;
  routing::RowOrder order_;
  std::optional<routing::MergeRow> last_;
};

/// Limit: its input's rows after the first `offset`, at most `limit` of them (nullopt: all).
/// It stops reading its input once it has them.
class Limit final : public RowOperator {
 public:
  Limit(std::unique_ptr<RowOperator> input, int64_t offset, std::optional<int64_t> limit);

  awaitable<ExecResult<void>> open() override;
  std::string columns() const override { return input_->columns(); }
  awaitable<ExecResult<bool>> next_rows(std::vector<std::string>& rows, size_t max) override;
  awaitable<void> close(bool abandon) override { co_await input_->close(abandon); }
  std::vector<const Operator*> inputs() const override { return {input_.get()}; }
  std::string describe() const override;

 private:
  std::unique_ptr<RowOperator> input_;
  int64_t offset_;
  std::optional<int64_t> limit_;
  int64_t skipped_ = 0;
};

/// Project: the client's columns of its input's rows. It drops the `hidden` columns at the
/// end (hidden sort columns, the outputs only HAVING or ORDER BY use), and sends each value the
/// client asked in binary as PostgreSQL's send function would (its input's values are text
/// there: combined aggregates).
class Project final : public RowOperator {
 public:
  struct Options {
    int hidden = 0;     ///< columns at the end that are not the client's
    int expected = -1;  ///< the client's columns the plan expects (-1: not known), checked
    /// The client's result formats (routing::binary_columns): text values converted to binary
    /// where asked.
    std::vector<int16_t> client_formats;
    bool exact_floats = true;
  };
  Project(std::unique_ptr<RowOperator> input, Options options);

  awaitable<ExecResult<void>> open() override;
  std::string columns() const override { return columns_; }
  awaitable<ExecResult<bool>> next_rows(std::vector<std::string>& rows, size_t max) override;
  awaitable<void> close(bool abandon) override { co_await input_->close(abandon); }
  std::vector<const Operator*> inputs() const override { return {input_.get()}; }
  std::string describe() const override;
  /// Whether it passes its input's rows on unchanged (nothing to drop or convert).
  bool passes_through() const { return pass_; }

 private:
  std::unique_ptr<RowOperator> input_;
  Options o_;
  std::string columns_;
  size_t width_ = 0;
  size_t keep_ = 0;
  std::vector<routing::ResultField> out_fields_;
  std::vector<bool> binary_;
  bool any_binary_ = false;
  bool pass_ = false;
};

}  // namespace pgrange::proxy::exec
