// The Merge operator: one answer from the same query's rows on several shards.

#include "proxy/exec/merge.hpp"

#include <utility>

namespace pgrange::proxy::exec {
namespace {

constexpr size_t kBatchBytes = 64 * 1024;

}  // namespace

Merge::Merge(sql::MergeQuery query, std::vector<std::unique_ptr<ShardRows>> inputs,
             std::function<std::optional<Error>()> text_order, std::vector<int16_t> client_formats,
             bool exact_floats)
    : query_(query),
      inputs_(std::move(inputs)),
      merge_(std::move(query), inputs_.size(), std::move(client_formats), exact_floats),
      text_order_(std::move(text_order)) {}

awaitable<ExecResult<void>> Merge::open() {
  mark_started();
  // Every shard's query first, so the shards work while pgrange waits for the first.
  for (auto& in : inputs_) {
    if (auto s = co_await in->start(); !s) co_return s;
  }
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (auto o = co_await inputs_[i]->open(); !o) co_return o;
    if (auto d = merge_.describe(i, inputs_[i]->columns()); !d) {
      co_return tl::unexpected(ExecFailure::of(d.error()));
    }
  }
  if (merge_.compares_text() && text_order_) {
    if (auto e = text_order_()) co_return tl::unexpected(ExecFailure::of(std::move(*e)));
  }
  co_return ExecResult<void>{};
}

awaitable<ExecResult<bool>> Merge::next(Batch& out) {
  std::string body;
  while (!merge_.finished() && out.data.size() < kBatchBytes && out.rows < out.max_rows) {
    if (auto w = merge_.wanted()) {
      ShardRows& in = *inputs_[*w];
      if (in.ended()) {
        merge_.end_of_rows(*w);
        continue;
      }
      auto more = co_await in.next_row(body);
      if (!more) co_return tl::unexpected(more.error());
      if (!*more) {
        merge_.end_of_rows(*w);
      } else if (auto a = merge_.add_row(*w, std::move(body)); !a) {
        co_return tl::unexpected(ExecFailure::of(a.error()));
      }
      continue;
    }
    uint64_t before = merge_.rows();
    if (auto s = merge_.step(out.data); !s) co_return tl::unexpected(ExecFailure::of(s.error()));
    out.rows += merge_.rows() - before;
    rows_out_ = merge_.rows();
  }
  if (merge_.finished()) mark_ended();
  co_return !merge_.finished();
}

awaitable<void> Merge::close(bool abandon) {
  for (auto& in : inputs_) co_await in->close(abandon);
}

std::vector<const Operator*> Merge::inputs() const {
  std::vector<const Operator*> out;
  for (const auto& in : inputs_) out.push_back(in.get());
  return out;
}

std::string Merge::describe() const {
  std::string what = query_.mode == sql::MergeQuery::Mode::kAggregate
                         ? "Merge: partial aggregates combined per group"
                         : (query_.ordered() ? "Merge: sorted streams merged in ORDER BY order"
                                             : "Merge: shards' rows concatenated");
  if (query_.distinct) what += ", DISTINCT";
  if (query_.offset > 0) what += ", OFFSET " + std::to_string(query_.offset);
  if (query_.limit) what += ", LIMIT " + std::to_string(*query_.limit);
  return what;
}

}  // namespace pgrange::proxy::exec
