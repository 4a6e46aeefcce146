// The MergeSort operator: one stream from the shards' sorted streams.

#include "proxy/exec/merge_sort.hpp"

#include <utility>

namespace pgrange::proxy::exec {

MergeSort::MergeSort(std::vector<std::unique_ptr<ShardRows>> inputs,
                     std::vector<sql::MergeSortKey> keys, std::string what,
                     TextOrderCheck text_order)
    : inputs_(std::move(inputs)),
      keys_(std::move(keys)),
      what_(std::move(what)),
      text_order_(std::move(text_order)),
      heads_(inputs_.size()),
      ended_(inputs_.size(), false) {}

awaitable<ExecResult<void>> MergeSort::open() {
  mark_started();
  // Every shard's query first, so the shards work while pgrange waits for the first.
  for (auto& in : inputs_) {
    if (auto s = co_await in->start(); !s) co_return s;
  }
  std::vector<routing::ResultField> first;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (auto o = co_await inputs_[i]->open(); !o) co_return o;
    auto fields = routing::read_row_description(inputs_[i]->columns());
    if (!fields) co_return tl::unexpected(ExecFailure::of(fields.error()));
    if (i == 0) {
      first = std::move(*fields);
      columns_ = inputs_[i]->columns();
    } else if (!routing::same_columns(first, *fields)) {
      co_return tl::unexpected(
          ExecFailure::of(Error::make(sqlstate::kInternalError,
                                      "shards returned different columns for the same query")
                              .with_detail("the table differs between shards")));
    }
  }
  width_ = first.size();
  auto order = routing::RowOrder::make(first, keys_, what_.c_str());
  if (!order) co_return tl::unexpected(ExecFailure::of(order.error()));
  order_ = std::move(*order);
  if (order_.compares_text() && text_order_) {
    if (auto e = text_order_()) co_return tl::unexpected(ExecFailure::of(std::move(*e)));
  }
  co_return ExecResult<void>{};
}

awaitable<ExecResult<bool>> MergeSort::next_rows(std::vector<std::string>& rows, size_t max) {
  const size_t end = rows.size() + max;
  std::string got;
  if (order_.empty()) {
    // Append: each shard's rows in turn.
    while (rows.size() < end) {
      if (current_ == inputs_.size()) {
        mark_ended();
        co_return false;
      }
      ShardRows& in = *inputs_[current_];
      if (in.ended()) {
        ++current_;
        continue;
      }
      auto more = co_await in.next_row(got);
      if (!more) co_return tl::unexpected(more.error());
      if (!*more) {
        ++current_;
        continue;
      }
      auto row = routing::MergeRow::parse(std::move(got), width_);
      if (!row) co_return tl::unexpected(ExecFailure::of(row.error()));
      rows.push_back(std::move(row->body));
      ++rows_out_;
    }
    co_return true;
  }
  while (rows.size() < end) {
    // The next row of every shard that has none held (the one sent last), then the least.
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (heads_[i] || ended_[i]) continue;
      if (inputs_[i]->ended()) {
        ended_[i] = true;
        continue;
      }
      auto more = co_await inputs_[i]->next_row(got);
      if (!more) co_return tl::unexpected(more.error());
      if (!*more) {
        ended_[i] = true;
        continue;
      }
      auto row = routing::MergeRow::parse(std::move(got), width_);
      if (!row) co_return tl::unexpected(ExecFailure::of(row.error()));
      if (auto c = order_.check(*row); !c) co_return tl::unexpected(ExecFailure::of(c.error()));
      heads_[i] = std::move(*row);
    }
    std::optional<size_t> best;
    for (size_t i = 0; i < heads_.size(); ++i) {
      if (heads_[i] && (!best || order_.compare(*heads_[i], *heads_[*best]) < 0)) best = i;
    }
    if (!best) {
      mark_ended();
      co_return false;
    }
    rows.push_back(std::move(heads_[*best]->body));
    heads_[*best].reset();
    ++rows_out_;
  }
  co_return true;
}

awaitable<void> MergeSort::close(bool abandon) {
  for (auto& in : inputs_) co_await in->close(abandon);
}

std::vector<const Operator*> MergeSort::inputs() const {
  std::vector<const Operator*> out;
  for (const auto& in : inputs_) out.push_back(in.get());
  return out;
}

std::string MergeSort::describe() const {
  if (keys_.empty()) return "Append: each shard's rows in turn";
  return "MergeSort: the shards' sorted rows merged in " + what_ + " order";
}

}  // namespace pgrange::proxy::exec
