#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "proxy/exec/operator.hpp"
#include "routing/merge/result_merge.hpp"
#include "sql/merge_query.hpp"

namespace pgrange::proxy::exec {

/// Merge: the rows of the same query on several shards made into the one answer PostgreSQL
/// would give (routing::ResultMerge): a k-way merge in ORDER BY order, partial aggregates
/// combined per group with HAVING, DISTINCT, OFFSET and LIMIT after them. It reads a shard
/// only when the merge needs that shard's next row, so it holds about a row per shard (and the
/// groups an aggregate must sort).
class Merge final : public Operator {
 public:
  /// `text_order`: once the merge knows it compares text, whether the shards order text as it
  /// does (bytewise); the error to stop with when they do not. `client_formats`: the result
  /// formats the client's Bind asks (routing::ResultMerge).
  Merge(sql::MergeQuery query, std::vector<std::unique_ptr<ShardRows>> inputs,
        std::function<std::optional<Error>()> text_order = {},
        std::vector<int16_t> client_formats = {}, bool exact_floats = true);

  awaitable<ExecResult<void>> open() override;
  std::string columns() const override { return merge_.row_description(); }
  awaitable<ExecResult<bool>> next(Batch& out) override;
  awaitable<void> close(bool abandon) override;
  std::vector<const Operator*> inputs() const override;
  std::string describe() const override;

  /// Once open: whether it compares text values (bytewise, as the C collation orders them).
  bool compares_text() const { return merge_.compares_text(); }

 private:
  sql::MergeQuery query_;
  std::vector<std::unique_ptr<ShardRows>> inputs_;
  routing::ResultMerge merge_;
  std::function<std::optional<Error>()> text_order_;
};

}  // namespace pgrange::proxy::exec
