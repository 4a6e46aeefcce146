// The part of a first-in first-out queue that went to a temporary file past its memory budget.

#include "proxy/exec/spill_queue.hpp"

namespace pgrange::proxy::exec {

namespace {
constexpr size_t kReadBuffer = 64 * 1024;
}

Result<void> SpillRecords::push(std::string_view record) {
  if (!file_) {
    auto made = SpillFile::create(budget_->directory);
    if (!made) return tl::unexpected(made.error());
    file_ = std::move(*made);
  }
  if (auto a = file_->append(record); !a) return a;
  ++open_;
  ++count_;
  return {};
}

Result<bool> SpillRecords::pop(std::string& record) {
  if (count_ == 0) return false;
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
  if (--count_ == 0) {
    // Everything written was read: the file goes, and the next records may be held in memory.
    clear();
  }
  return true;
}

void SpillRecords::clear() {
  if (file_) before_ += file_->bytes();
  reader_.reset();
  file_.reset();
  reader_left_ = open_ = count_ = 0;
}

}  // namespace pgrange::proxy::exec
