// Filter, Distinct, Limit and Project: operators over one row at a time.

#include "proxy/exec/row_stages.hpp"

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

awaitable<ExecResult<bool>> Filter::next_row(std::string& body) {
  std::string got;
  for (;;) {
    auto more = co_await input_->next_row(got);
    if (!more) co_return tl::unexpected(more.error());
    if (!*more) break;
    auto row = routing::MergeRow::parse(std::move(got), fields_.size());
    if (!row) co_return tl::unexpected(failure(row.error()));
    auto keep = routing::evaluate_having(condition_, *row, fields_);
    if (!keep) co_return tl::unexpected(failure(keep.error()));
    if (*keep != true) continue;
    body = std::move(row->body);
    ++rows_out_;
    co_return true;
  }
  mark_ended();
  co_return false;
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

awaitable<ExecResult<bool>> Distinct::next_row(std::string& body) {
  std::string got;
  for (;;) {
    auto more = co_await input_->next_row(got);
    if (!more) co_return tl::unexpected(more.error());
    if (!*more) break;
    auto row = routing::MergeRow::parse(std::move(got), width_);
    if (!row) co_return tl::unexpected(failure(row.error()));
    if (last_ && order_.compare(*row, *last_) == 0) continue;
    body = row->body;
    last_ = std::move(*row);
    ++rows_out_;
    co_return true;
  }
  mark_ended();
  co_return false;
}

Limit::Limit(std::unique_ptr<RowOperator> input, int64_t offset, std::optional<int64_t> limit)
    : input_(std::move(input)), offset_(offset), limit_(limit) {}

awaitable<ExecResult<void>> Limit::open() {
  mark_started();
  co_return co_await input_->open();
}

awaitable<ExecResult<bool>> Limit::next_row(std::string& body) {
  while (!limit_ || static_cast<int64_t>(rows_out_) < *limit_) {
    auto more = co_await input_->next_row(body);
    if (!more) co_return tl::unexpected(more.error());
    if (!*more) break;
    if (skipped_ < offset_) {
      ++skipped_;
      continue;
    }
    ++rows_out_;
    co_return true;
  }
  mark_ended();
  co_return false;
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

awaitable<ExecResult<bool>> Project::next_row(std::string& body) {
  std::string got;
  auto more = co_await input_->next_row(got);
  if (!more) co_return tl::unexpected(more.error());
  if (!*more) {
    mark_ended();
    co_return false;
  }
  if (pass_) {  // the operator below read the row's values already
    body = std::move(got);
    ++rows_out_;
    co_return true;
  }
  auto row = routing::MergeRow::parse(std::move(got), width_);
  if (!row) co_return tl::unexpected(failure(row.error()));
  if (!any_binary_) {
    body = row->prefix(keep_);
  } else {
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
    body = routing::data_row_body(values);
  }
  ++rows_out_;
  co_return true;
}

std::string Project::describe() const {
  std::string what = "Project: " + std::to_string(keep_) + (keep_ == 1 ? " column" : " columns") +
                     " for the client";
  if (keep_ < width_) what += ", " + std::to_string(width_ - keep_) + " hidden dropped";
  if (any_binary_) what += ", combined values sent in binary";
  return what;
}

}  // namespace pgrange::proxy::exec
