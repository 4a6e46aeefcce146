// A first-in first-out queue of records that goes to a temporary file past its memory budget.

#include "proxy/exec/spill_queue.hpp"

#include <utility>

namespace pgrange::proxy::exec {

namespace {
constexpr size_t kReadBuffer = 64 * 1024;
}

Result<void> SpillQueue::push(std::string record) {
  const size_t c = cost(record);
  if (on_disk_ == 0 && budget_->used + c <= budget_->limit) {
    budget_->used += c;
    memory_.push_back(std::move(record));
    return {};
  }
  if (!file_) {
    auto made = SpillFile::create(budget_->directory);
    if (!made) return tl::unexpected(made.error());
    file_ = std::move(*made);
  }
  if (auto a = file_->append(record); !a) return a;
  spilled_ = spilled_before_ + file_->bytes();
  ++open_;
  ++on_disk_;
  return {};
}

Result<bool> SpillQueue::pop(std::string& record) {
  if (!memory_.empty()) {
    record = std::move(memory_.front());
    memory_.pop_front();
    budget_->used -= cost(record);
    return true;
  }
  if (on_disk_ == 0) return false;
  if (reader_left_ == 0) {
    // The run being written becomes the one read; later records start another.
    if (auto e = file_->end_run(); !e) return tl::unexpected(e.error());
    reader_.emplace(file_->reader(file_->runs() - 1, kReadBuffer));
    reader_left_ = open_;
    open_ = 0;
  }
  auto got = reader_->next(record);
  if (!got) return tl::unexpected(got.error());
  if (!*got) {
    return tl::unexpected(
        Error::make(sqlstate::kInternalError, "a temporary file ended before its rows"));
  }
  --reader_left_;
  if (--on_disk_ == 0) {
    // Everything written was read: the file goes, and the next records may be held in memory.
    spilled_before_ += file_->bytes();
    reader_.reset();
    file_.reset();
  }
  return true;
}

void SpillQueue::clear() {
  for (const std::string& r : memory_) budget_->used -= cost(r);
  memory_.clear();
  if (file_) spilled_before_ += file_->bytes();
  reader_.reset();
  file_.reset();
  reader_left_ = open_ = on_disk_ = 0;
}

}  // namespace pgrange::proxy::exec
