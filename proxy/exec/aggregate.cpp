// The Aggregate operator: partial aggregates combined per group.

#include "proxy/exec/aggregate.hpp"

#include <utility>

namespace pgrange::proxy::exec {

Aggregate::Aggregate(std::unique_ptr<RowOperator> input, sql::MergeQuery query,
                     TextOrderCheck text_order, bool exact_floats)
    : input_(std::move(input)),
      q_(std::move(query)),
      text_order_(std::move(text_order)),
      exact_floats_(exact_floats) {}

awaitable<ExecResult<void>> Aggregate::open() {
  mark_started();
  if (auto o = co_await input_->open(); !o) co_return o;
  auto fields = routing::read_row_description(input_->columns());
  if (!fields) co_return tl::unexpected(ExecFailure::of(fields.error()));
  width_ = fields->size();
  if (static_cast<size_t>(q_.group_columns) > width_) {
    co_return tl::unexpected(ExecFailure::of(Error::make(
        sqlstate::kInternalError, "a shard answered with an unexpected number of columns")));
  }
  std::vector<sql::MergeSortKey> keys;
  for (int g = 0; g < q_.group_columns; ++g) keys.push_back({g, false, false});
  auto groups = routing::RowOrder::make(*fields, std::move(keys), "GROUP BY");
  if (!groups) co_return tl::unexpected(ExecFailure::of(groups.error()));
  groups_ = std::move(*groups);
  auto outputs = routing::aggregate_outputs(q_, *fields, exact_floats_);
  if (!outputs) co_return tl::unexpected(ExecFailure::of(outputs.error()));
  combiners_ = std::move(outputs->combiners);
  columns_ = routing::write_row_description(outputs->fields);
  if ((outputs->compares_text || groups_.compares_text()) && text_order_) {
    if (auto e = text_order_()) co_return tl::unexpected(ExecFailure::of(std::move(*e)));
  }
  co_return ExecResult<void>{};
}

Result<std::string> Aggregate::finish_group() {
  routing::RowValues v;
  v.reserve(q_.outputs.size());
  for (const sql::MergeOutput& o : q_.outputs) {
    if (o.is_group) {
      auto value = group_->value(static_cast<size_t>(o.index));
      v.push_back(value ? std::optional<std::string>(std::string(*value)) : std::nullopt);
      continue;
    }
    auto r = combiners_[static_cast<size_t>(o.index)].result();
    if (!r) return tl::unexpected(r.error());
    v.push_back(std::move(*r));
  }
  group_.reset();
  return routing::data_row_body(v);
}

awaitable<ExecResult<bool>> Aggregate::next_rows(std::vector<std::string>& rows, size_t max) {
  const size_t end = rows.size() + max;
  while (rows.size() < end && !done_) {
    if (next_pending_ == pending_.size() && !input_ended_) {
      pending_.clear();
      next_pending_ = 0;
      auto more = co_await input_->next_rows(pending_, end - rows.size());
      if (!more) co_return tl::unexpected(more.error());
      input_ended_ = !*more;
      continue;
    }
    if (next_pending_ == pending_.size()) {
      done_ = true;
      // Without GROUP BY there is one row, of no input row too (count 0, sum NULL).
      if (!group_ && !any_group_ && q_.group_columns == 0) {
        for (auto& c : combiners_) c.reset();
        group_ = routing::MergeRow{};
      }
      if (!group_) break;
      auto row = finish_group();
      if (!row) co_return tl::unexpected(ExecFailure::of(row.error()));
      rows.push_back(std::move(*row));
      ++rows_out_;
      break;
    }
    auto row = routing::MergeRow::parse(std::move(pending_[next_pending_++]), width_);
    if (!row) co_return tl::unexpected(ExecFailure::of(row.error()));
    if (group_ && groups_.compare(*row, *group_) != 0) {
      auto f = finish_group();
      if (!f) co_return tl::unexpected(ExecFailure::of(f.error()));
      rows.push_back(std::move(*f));
      ++rows_out_;
    }
    if (!group_) {
      for (auto& c : combiners_) c.reset();
      any_group_ = true;
    }
    for (size_t a = 0; a < combiners_.size(); ++a) {
      size_t c = static_cast<size_t>(q_.aggregates[a].column);
      bool avg = q_.aggregates[a].kind == sql::MergeAggregate::Kind::kAvg;
      auto r = avg ? combiners_[a].add(row->value(c), row->value(c + 1))
                   : combiners_[a].add(row->value(c));
      if (!r) co_return tl::unexpected(ExecFailure::of(r.error()));
    }
    if (!group_) group_ = std::move(*row);
  }
  if (done_) {
    mark_ended();
    co_return false;
  }
  co_return true;
}

std::string Aggregate::describe() const {
  return q_.group_columns > 0 ? "Aggregate: partial aggregates combined per group"
                              : "Aggregate: partial aggregates combined";
}

}  // namespace pgrange::proxy::exec
