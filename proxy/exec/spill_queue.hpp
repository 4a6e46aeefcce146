#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "common/error.hpp"
#include "proxy/exec/spill_file.hpp"

namespace pgrange::proxy::exec {

/// Records taken and given back first in, first out (the rows a window waits to compute), held
/// in memory while the budget the queue shares with others allows and past it appended to a
/// temporary file and read back in order, a buffer at a time. Memory then stays at the budget
/// whatever the queue's length.
class SpillQueue {
 public:
  /// What the queues of one operator may hold in memory together, and where they write past it.
  struct Budget {
    size_t limit = SIZE_MAX;
    size_t used = 0;
    std::string directory;  ///< "": $TMPDIR, else /tmp
  };

  explicit SpillQueue(Budget* budget) : budget_(budget) {}
  ~SpillQueue() { clear(); }
  SpillQueue(const SpillQueue&) = delete;
  SpillQueue& operator=(const SpillQueue&) = delete;

  /// Appends a record (to the file while the budget is spent or earlier records are there).
  Result<void> push(std::string record);
  /// The first record into `record`; false when the queue is empty.
  Result<bool> pop(std::string& record);
  bool empty() const { return memory_.empty() && on_disk_ == 0; }
  /// Lets every record go (and the file).
  void clear();
  /// Bytes written to the file over the queue's life.
  uint64_t spilled_bytes() const { return spilled_; }

 private:
  static size_t cost(const std::string& record) { return record.size() + 32; }

  Budget* budget_;
  std::deque<std::string> memory_;  ///< the first records, before any on disk
  std::unique_ptr<SpillFile> file_;
  std::optional<SpillFile::Reader> reader_;  ///< over the run being read
  uint64_t reader_left_ = 0;                 ///< records of that run not read yet
  uint64_t open_ = 0;                        ///< records in the run being written
  uint64_t on_disk_ = 0;                     ///< records in the file not read yet
  uint64_t spilled_ = 0;
  uint64_t spilled_before_ = 0;  ///< bytes of files let go
};

}  // namespace pgrange::proxy::exec
