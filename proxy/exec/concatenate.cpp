// The Concatenate operator: inputs one after another.

#include "proxy/exec/concatenate.hpp"

#include <utility>

namespace pgrange::proxy::exec {

Concatenate::Concatenate(std::vector<std::unique_ptr<Operator>> inputs)
    : inputs_(std::move(inputs)) {}

awaitable<ExecResult<void>> Concatenate::open() {
  if (inputs_.empty() || current_open_) co_return ExecResult<void>{};
  current_open_ = true;
  co_return co_await inputs_[current_]->open();
}

std::string Concatenate::columns() const {
  return inputs_.empty() ? std::string() : inputs_.front()->columns();
}

awaitable<ExecResult<bool>> Concatenate::next(Batch& out) {
  while (current_ < inputs_.size()) {
    if (!current_open_) {
      current_open_ = true;
      if (auto o = co_await inputs_[current_]->open(); !o) co_return tl::unexpected(o.error());
    }
    uint64_t before = out.rows;
    auto more = co_await inputs_[current_]->next(out);
    rows_out_ += out.rows - before;
    if (!more) co_return tl::unexpected(more.error());
    if (*more) co_return true;
    // This input has ended: the next one, in the next call or now if nothing came yet.
    co_await inputs_[current_]->close(false);
    ++current_;
    current_open_ = false;
    if (!out.data.empty()) co_return current_ < inputs_.size();
  }
  co_return false;
}

awaitable<void> Concatenate::close(bool abandon) {
  if (current_ < inputs_.size() && current_open_) co_await inputs_[current_]->close(abandon);
  current_ = inputs_.size();
  current_open_ = false;
}

std::vector<const Operator*> Concatenate::inputs() const {
  std::vector<const Operator*> out;
  for (const auto& in : inputs_) out.push_back(in.get());
  return out;
}

std::string Concatenate::describe() const {
  return "Concatenate: " + std::to_string(inputs_.size()) + " inputs, one after another";
}

}  // namespace pgrange::proxy::exec
