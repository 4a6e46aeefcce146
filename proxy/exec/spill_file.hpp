#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.hpp"

namespace pgrange::proxy::exec {

/// Rows an operator cannot hold in memory, written to a temporary file in runs and read back
/// run by run (an external sort's sorted runs). The file is removed as soon as it is made: it
/// goes away when this object does, or when pgrange stops, whatever happens. Errors are
/// PostgreSQL's for temporary files (53100 when the disk is full, 58030 otherwise).
class SpillFile {
 public:
  /// A new file in `directory` ("" : $TMPDIR, else /tmp).
  static Result<std::unique_ptr<SpillFile>> create(const std::string& directory);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  /// Appends a row to the run being written (buffered).
  Result<void> append(std::string_view row);
  /// Ends the run being written (its rows are on disk when this returns).
  Result<void> end_run();
  size_t runs() const { return runs_.size(); }
  /// Bytes written so far.
  uint64_t bytes() const { return written_ + out_.size(); }

  /// Reads one run's rows in the order they were appended, `buffer` bytes at a time.
  class Reader {
   public:
    /// The next row into `row`; false at the end of the run.
    Result<bool> next(std::string& row);

   private:
    friend class SpillFile;
    Reader(const SpillFile* file, uint64_t begin, uint64_t end, size_t buffer);
    Result<bool> fill(size_t need);

    const SpillFile* file_;
    uint64_t at_;   // file offset of the next byte to read
    uint64_t end_;  // the run's end
    size_t buffer_;
    std::string data_;
    size_t pos_ = 0;
  };
  Reader reader(size_t run, size_t buffer) const;

 private:
  SpillFile(int fd, std::string path);
  Result<void> flush();
  Error io_error(const char* what, int err) const;

  int fd_;
  std::string path_;  // for error messages only (the file is unlinked)
  std::string out_;
  uint64_t written_ = 0;
  uint64_t run_start_ = 0;
  std::vector<std::pair<uint64_t, uint64_t>> runs_;
};

}  // namespace pgrange::proxy::exec
