// Filter, Distinct, Limit and Project: operators over one row at a time.

#include "proxy/exec/row_stages.hpp"

#include <algorithm>
#include <utility>

#include "routing/merge/binary_value.hpp"

namespace pgrange::proxy::exec {
namespace {

ExecFailure failure(Error e) {
  return ExecFailure::of(std::move(e));
}

}  // namespace

Filter::Filter(std::unique_ptr<RowOperator> input, sql::MergePredicate condition,
               TextOrderCheck text_order)
    : input_(std::move(input)),
      condition_(std::move(condition)),
      text_order_(std::move(text_order)) {}

awaitable<ExecResult<void>> Filter::open() {
  mark_started();
  if (auto o = co_await input_->open(); !o) co_return o;
  auto fields = routing::read_row_description(input_->columns());
  if (!fields) co_return tl::unexpected(failure(fields.error()));
  fields_ = std::move(*fields);
  // It may compare any column: text ones bytewise.
  bool text = false;
  for (const auto& f : fields_) text = text || routing::collated_type(f.type_oid);
  if (text && text_order_) {
    if (auto e = text_order_()) co_return tl::unexpected(failure(std::move(*e)));
  }
  co_return ExecResult<void>{};
}

awaitable<ExecResult<bool>> Filter::next_rows(std::vector<std::string>& rows, size_t max) {
  const size_t end = rows.size() + max;
  std::vector<std::string> got;
  while (rows.size() < end) {
    got.clear();
    auto more = co_await input_->next_rows(got, end - rows.size());
    if (!more) co_return tl::unexpected(more.error());
    for (std::string& body : got) {
      auto row = routing::MergeRow::parse(std::move(body), fields_.size());
      if (!row) co_return tl::unexpected(failure(row.error()));
      auto keep = routing::evaluate_having(condition_, *row, fields_);
      if (!keep) co_return tl::unexpected(failure(keep.error()));
      if (*keep != true) continue;
      rows.push_back(std::move(row->body));
      ++rows_out_;
    }
    if (!*more) {
      mark_ended();
      co_return false;
    }
  }
  co_return true;
}

Distinct::Distinct(std::unique_ptr<RowOperator> input, std::vector<sql::MergeSortKey> keys,
                   TextOrderCheck text_order)
    : input_(std::move(input)), keys_(std::move(keys)), text_order_(std::move(text_order)) {}

awaitable<ExecResult<void>> Distinct::open() {
  mark_started();
  if (auto o = co_await input_->open(); !o) co_return o;
  auto fields = routing::read_row_description(input_->columns());
  if (!fields) co_return tl::unexpected(failure(fields.error()));
  width_ = fields->size();
  auto order = routing::RowOrder::make(*fields, keys_, "SELECT DISTINCT");
  if (!order) co_return tl::unexpected(failure(order.error()));
  order_ = std::move(*order);
  if (order_.compares_text() && text_order_) {
    if (auto e = text_order_()) co_return tl::unexpected(failure(std::move(*e)));
  }
  co_return ExecResult<void>{};
}

awaitable<ExecResult<bool>> Distinct::next_rows(std::vector<std::string>& rows, size_t max) {
  const size_t end = rows.size() + max;
  std::vector<std::string> got;
  while (rows.size() < end) {
    got.clear();
    auto more = co_await input_->next_rows(got, end - rows.size());
    if (!more) co_return tl::unexpected(more.error());
    for (std::string& body : got) {
      auto row = routing::MergeRow::parse(std::move(body), width_);
      if (!row) co_return tl::unexpected(failure(row.error()));
      if (last_ && order_.compare(*row, *last_) == 0) continue;
      rows.push_back(row->body);
      last_ = std::move(*row);
      ++rows_out_;
    }
    if (!*more) {
      mark_ended();
      co_return false;
    }
  }
  co_return true;
}

Limit::Limit(std::unique_ptr<RowOperator> input, int64_t offset, std::optional<int64_t> limit)
    : input_(std::move(input)), offset_(offset), limit_(limit) {}

awaitable<ExecResult<void>> Limit::open() {
  mark_started();
  co_return co_await input_->open();
}

awaitable<ExecResult<bool>> Limit::next_rows(std::vector<std::string>& rows, size_t max) {
  if (limit_ && static_cast<int64_t>(rows_out_) >= *limit_) {  // LIMIT 0 reads nothing
    mark_ended();
    co_return false;
  }
  // OFFSET: the first rows read and dropped, a batch at a time.
  std::vector<std::string> dropped;
  while (skipped_ < offset_) {
    dropped.clear();
    auto more = co_await input_->next_rows(
        dropped, static_cast<size_t>(std::min<int64_t>(offset_ - skipped_, kRowsAtOnce)));
    if (!more) co_return tl::unexpected(more.error());
    skipped_ += static_cast<int64_t>(dropped.size());
    if (!*more) {
      mark_ended();
      co_return false;
    }
  }
  size_t want = max;
  if (limit_) want = std::min<size_t>(want, static_cast<size_t>(*limit_) - rows_out_);
  const size_t before = rows.size();
  auto more = co_await input_->next_rows(rows, want);
  if (!more) co_return tl::unexpected(more.error());
  rows_out_ += rows.size() - before;
  if (!*more || (limit_ && static_cast<int64_t>(rows_out_) >= *limit_)) {
    mark_ended();
    co_return false;
  }
  co_return true;
}

std::string Limit::describe() const {
  std::string what = "Limit:";
  if (offset_ > 0) what += " OFFSET " + std::to_string(offset_);
  if (limit_) what += " LIMIT " + std::to_string(*limit_);
  return what;
}

Project::Project(std::unique_ptr<RowOperator> input, Options options)
    : input_(std::move(input)), o_(std::move(options)) {}

awaitable<ExecResult<void>> Project::open() {
  mark_started();
  if (auto o = co_await input_->open(); !o) co_return o;
  auto fields = routing::read_row_description(input_->columns());
  if (!fields) co_return tl::unexpected(failure(fields.error()));
  width_ = fields->size();
  int keep = static_cast<int>(width_) - o_.hidden;
  if (keep < 0 || (o_.expected >= 0 && keep != o_.expected)) {
    co_return tl::unexpected(failure(Error::make(
        sqlstate::kInternalError, "a shard answered with an unexpected number of columns")));
  }
  keep_ = static_cast<size_t>(keep);
  out_fields_.assign(fields->begin(), fields->begin() + keep);
  auto binary = routing::binary_columns(out_fields_, o_.client_formats, o_.exact_floats);
  if (!binary) co_return tl::unexpected(failure(binary.error()));
  binary_ = std::move(*binary);
  for (size_t i = 0; i < binary_.size(); ++i) {
    if (!binary_[i]) continue;
    out_fields_[i].format = 1;
    any_binary_ = true;
  }
  pass_ = keep_ == width_ && !any_binary_;
  columns_ = pass_ ? input_->columns() : routing::write_row_description(out_fields_);
  co_return ExecResult<void>{};
}

awaitable<ExecResult<bool>> Project::next_rows(std::vector<std::string>& rows, size_t max) {
  const size_t before = rows.size();
  auto more = co_await input_->next_rows(rows, max);
  if (!more) co_return tl::unexpected(more.error());
  rows_out_ += rows.size() - before;
  // Passed through: the operator below read the rows' values already.
  for (size_t r = before; !pass_ && r < rows.size(); ++r) {
    auto row = routing::MergeRow::parse(std::move(rows[r]), width_);
    if (!row) co_return tl::unexpected(failure(row.error()));
    if (!any_binary_) {
      rows[r] = row->prefix(keep_);
      continue;
    }
    routing::RowValues values;
    values.reserve(keep_);
    for (size_t i = 0; i < keep_; ++i) {
      auto v = row->value(i);
      if (!v) {
        values.emplace_back();
      } else if (binary_[i]) {
        auto b = routing::binary_value(out_fields_[i].type_oid, *v);
        if (!b) co_return tl::unexpected(failure(b.error()));
        values.emplace_back(std::move(*b));
      } else {
        values.emplace_back(std::string(*v));
      }
    }
    rows[r] = routing::data_row_body(values);
  }
  if (!*more) mark_ended();
  co_return *more;
}

std::string Project::describe() const {
  std::string what = "Project: " + std::to_string(keep_) + (keep_ == 1 ? " column" : " columns") +
                     " for the client";
  if (keep_ < width_) what += ", " + std::to_string(width_ - keep_) + " hidden dropped";
  if (any_binary_) what += ", combined values sent in binary";
  return what;
}

}  // namespace pgrange::proxy::exec
