#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "common/error.hpp"
#include "proxy/exec/spill_file.hpp"

namespace pgrange::proxy::exec {

/// What the queues of one operator may hold in memory together, and where they write past it.
struct SpillBudget {
  size_t limit = SIZE_MAX;
  size_t used = 0;
  std::string directory;  ///< "": $TMPDIR, else /tmp
};

/// Records written to a temporary file and read back first in, first out, a buffer at a time
/// (SpillQueue's part on disk). The file goes when every record in it was read.
class SpillRecords {
 public:
  explicit SpillRecords(const SpillBudget* budget) : budget_(budget) {}
  Result<void> push(std::string_view record);
  /// The first record into `record`; false when there is none.
  Result<bool> pop(std::string& record);
  bool empty() const { return count_ == 0; }
  void clear();
  /// Bytes written over its life.
  uint64_t bytes() const { return before_ + (file_ ? file_->bytes() : 0); }

 private:
  const SpillBudget* budget_;
  std::unique_ptr<SpillFile> file_;
  std::optional<SpillFile::Reader> reader_;  ///< over the run being read
  uint64_t reader_left_ = 0;                 ///< records of that run not read yet
  uint64_t open_ = 0;                        ///< records in the run being written
  uint64_t count_ = 0;                       ///< records not read yet
  uint64_t before_ = 0;                      ///< bytes of the files let go
};

/// Values taken and given back first in, first out (the rows a window waits to compute), held
/// in memory while the budget the queue shares with others allows; past it each is encoded and
/// appended to a temporary file, and decoded as it comes back. Memory then stays at the budget
/// whatever the queue's length, and nothing is encoded while it fits.
template <typename T>
class SpillQueue {
 public:
  struct Codec {
    std::function<size_t(const T&)> cost;  ///< bytes it holds in memory
    std::function<std::string(const T&)> encode;
    std::function<Result<T>(std::string)> decode;
  };
  SpillQueue(SpillBudget* budget, Codec codec)
      : budget_(budget), codec_(std::move(codec)), disk_(budget) {}
  ~SpillQueue() { clear(); }
  SpillQueue(const SpillQueue&) = delete;
  SpillQueue& operator=(const SpillQueue&) = delete;

  /// Appends a value (to the file while the budget is spent or earlier values are there).
  Result<void> push(T value) {
    const size_t c = codec_.cost(value);
    if (disk_.empty() && budget_->used + c <= budget_->limit) {
      budget_->used += c;
      memory_.push_back(std::move(value));
      return {};
    }
    return disk_.push(codec_.encode(value));
  }
  /// The first value into `value`; false when the queue is empty.
  Result<bool> pop(T& value) {
    if (!memory_.empty()) {
      budget_->used -= codec_.cost(memory_.front());
      value = std::move(memory_.front());
      memory_.pop_front();
      return true;
    }
    std::string record;
    auto got = disk_.pop(record);
    if (!got || !*got) return got;
    auto decoded = codec_.decode(std::move(record));
    if (!decoded) return tl::unexpected(decoded.error());
    value = std::move(*decoded);
    return true;
  }
  bool empty() const { return memory_.empty() && disk_.empty(); }
  /// Lets every value go (and the file).
  void clear() {
    for (const T& v : memory_) budget_->used -= codec_.cost(v);
    memory_.clear();
    disk_.clear();
  }
  /// Bytes written to the file over the queue's life.
  uint64_t spilled_bytes() const { return disk_.bytes(); }

 private:
  SpillBudget* budget_;
  Codec codec_;
  std::deque<T> memory_;  ///< the first values, before any on disk
  SpillRecords disk_;
};

}  // namespace pgrange::proxy::exec
