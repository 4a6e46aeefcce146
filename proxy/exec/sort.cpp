// The Sort operator: rows put in order in pgrange, in memory up to query_memory.

#include "proxy/exec/sort.hpp"

#include <algorithm>
#include <utility>

namespace pgrange::proxy::exec {

Sort::Sort(std::unique_ptr<RowOperator> input, std::vector<sql::MergeSortKey> keys,
           std::string what, size_t memory_limit, TextOrderCheck text_order)
    : input_(std::move(input)),
      keys_(std::move(keys)),
      what_(std::move(what)),
      memory_limit_(memory_limit),
      text_order_(std::move(text_order)) {}

size_t Sort::row_cost(const routing::MergeRow& row) {
  return sizeof(routing::MergeRow) + row.body.capacity() +
         row.offsets.capacity() * sizeof(uint32_t) + row.lengths.capacity() * sizeof(int32_t);
}

awaitable<ExecResult<void>> Sort::open() {
  mark_started();
  if (auto o = co_await input_->open(); !o) co_return o;
  auto fields = routing::read_row_description(input_->columns());
  if (!fields) co_return tl::unexpected(ExecFailure::of(fields.error()));
  width_ = fields->size();
  auto order = routing::RowOrder::make(*fields, keys_, what_.c_str());
  if (!order) co_return tl::unexpected(ExecFailure::of(order.error()));
  order_ = std::move(*order);
  if (order_.compares_text() && text_order_) {
    if (auto e = text_order_()) co_return tl::unexpected(ExecFailure::of(std::move(*e)));
  }
  co_return ExecResult<void>{};
}

awaitable<ExecResult<bool>> Sort::next_rows(std::vector<std::string>& rows, size_t max) {
  if (!sorted_) {
    std::vector<std::string> got;
    for (bool more = true; more;) {
      got.clear();
      auto r = co_await input_->next_rows(got, kRowsAtOnce);
      if (!r) co_return tl::unexpected(r.error());
      more = *r;
      for (std::string& body : got) {
        auto row = routing::MergeRow::parse(std::move(body), width_);
        if (!row) co_return tl::unexpected(ExecFailure::of(row.error()));
        held_ += row_cost(*row);
        if (held_ > memory_limit_) {
          co_return tl::unexpected(ExecFailure::of(
              Error::make("53200", "the rows pgrange sorts for this query exceed query_memory (" +
                                       std::to_string(memory_limit_) + " bytes)")
                  .with_detail("The rows sorted for " + what_ + " hold " + std::to_string(held_) +
                               " bytes after " + std::to_string(rows_.size() + 1) + " rows.")
                  .with_hint("narrow the query with conditions on the tables' keys, or raise "
                             "query_memory in pgrange's configuration")));
        }
        rows_.push_back(std::move(*row));
      }
    }
    std::stable_sort(rows_.begin(), rows_.end(),
                     [&](const routing::MergeRow& a, const routing::MergeRow& b) {
                       return order_.compare(a, b) < 0;
                     });
    sorted_ = true;
  }
  for (size_t got = 0; got < max && next_ < rows_.size(); ++got) {
    rows.push_back(std::move(rows_[next_++].body));
    ++rows_out_;
  }
  if (next_ >= rows_.size()) {
    rows_.clear();
    rows_.shrink_to_fit();
    mark_ended();
    co_return false;
  }
  co_return true;
}

std::string Sort::describe() const {
  return "Sort: in pgrange, by " + what_ + " (" + std::to_string(held_) + " bytes held)";
}

}  // namespace pgrange::proxy::exec
