#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "proxy/exec/operator.hpp"
#include "routing/merge/merge_rows.hpp"

namespace pgrange::proxy::exec {

/// Checks, once an operator knows it compares text, that the shards order text as pgrange
/// does (bytewise); the error to stop with when they do not. Empty: not checked.
using TextOrderCheck = std::function<std::optional<Error>()>;

/// MergeSort: the rows of the same query on several shards, each shard's sorted by `keys`,
/// merged into one stream in that order (k-way). It reads a shard only when it needs that
/// shard's next row, so it holds one row per shard. Without keys it is an Append: each
/// shard's rows in turn, in shard order. The shards must describe the same columns.
class MergeSort final : public RowOperator {
 public:
  /// `what` names the construct the keys come from ("ORDER BY", "GROUP BY", "SELECT
  /// DISTINCT") in the 0A000 for a type pgrange cannot compare.
  MergeSort(std::vector<std::unique_ptr<ShardRows>> inputs, std::vector<sql::MergeSortKey> keys,
            std::string what, TextOrderCheck text_order);

  awaitable<ExecResult<void>> open() override;
  std::string columns() const override { return columns_; }
  awaitable<ExecResult<bool>> next_rows(std::vector<std::string>& rows, size_t max) override;
  awaitable<void> close(bool abandon) override;
  std::vector<const Operator*> inputs() const override;
  std::string describe() const override;

 private:
  std::vector<std::unique_ptr<ShardRows>> inputs_;
  std::vector<sql::MergeSortKey> keys_;
  std::string what_;
  TextOrderCheck text_order_;
  std::string columns_;
  size_t width_ = 0;
  routing::RowOrder order_;
  std::vector<std::optional<routing::MergeRow>> heads_;
  std::vector<bool> ended_;
  size_t current_ = 0;  // Append: the shard being read
};

}  // namespace pgrange::proxy::exec
