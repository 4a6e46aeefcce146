// The Lookup operator: rows read first, then the tree made of them.

#include "proxy/exec/lookup.hpp"

#include <utility>

#include "proxy/wire/frame_reader.hpp"

namespace pgrange::proxy::exec {

Lookup::Lookup(std::unique_ptr<Operator> source, Then then, std::string what)
    : source_(std::move(source)), then_(std::move(then)), what_(std::move(what)) {}

awaitable<ExecResult<void>> Lookup::open() {
  source_open_ = true;
  if (auto o = co_await source_->open(); !o) co_return o;
  std::vector<std::string> rows;
  for (bool more = true; more;) {
    Batch batch;
    auto n = co_await source_->next(batch);
    if (!n) co_return tl::unexpected(n.error());
    more = *n;
    for (std::string_view rest = batch.data;;) {
      FrameResult fr = read_typed_frame(rest, rest.size());
      if (fr.status != FrameStatus::kReady) break;
      rows.emplace_back(fr.frame.body);
      rest.remove_prefix(fr.frame.total_size);
    }
  }
  co_await source_->close(false);
  source_open_ = false;
  auto inner = co_await then_(rows);
  if (!inner) co_return tl::unexpected(inner.error());
  inner_ = std::move(*inner);
  co_return co_await inner_->open();
}

std::string Lookup::columns() const {
  return inner_ ? inner_->columns() : std::string();
}

awaitable<ExecResult<bool>> Lookup::next(Batch& out) {
  if (!inner_) co_return false;
  uint64_t before = out.rows;
  auto more = co_await inner_->next(out);
  rows_out_ += out.rows - before;
  co_return more;
}

awaitable<void> Lookup::close(bool abandon) {
  if (source_open_) co_await source_->close(abandon);
  source_open_ = false;
  if (inner_) co_await inner_->close(abandon);
}

std::vector<const Operator*> Lookup::inputs() const {
  std::vector<const Operator*> out{source_.get()};
  if (inner_) out.push_back(inner_.get());
  return out;
}

}  // namespace pgrange::proxy::exec
