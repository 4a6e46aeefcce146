// Temporary files of rows, written in runs and read back run by run.

#include "proxy/exec/spill_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace pgrange::proxy::exec {

namespace {

constexpr size_t kWriteBuffer = 256 * 1024;

void put_u32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xff);
}

uint32_t get_u32(const char* p) {
  return (static_cast<uint32_t>(static_cast<unsigned char>(p[0])) << 24) |
         (static_cast<uint32_t>(static_cast<unsigned char>(p[1])) << 16) |
         (static_cast<uint32_t>(static_cast<unsigned char>(p[2])) << 8) |
         static_cast<uint32_t>(static_cast<unsigned char>(p[3]));
}

}  // namespace

Result<std::unique_ptr<SpillFile>> SpillFile::create(const std::string& directory) {
  std::string dir = directory;
  if (dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    dir = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  }
  std::string path = dir + "/pgrange_sort_XXXXXX";
  int fd = ::mkstemp(path.data());
  if (fd < 0) {
    int err = errno;
    return tl::unexpected(
        Error::make(err == ENOSPC ? "53100" : "58030",
                    "could not create temporary file in \"" + dir + "\": " + std::strerror(err)));
  }
  ::unlink(path.c_str());  // gone once closed
  return std::unique_ptr<SpillFile>(new SpillFile(fd, std::move(path)));
}

SpillFile::SpillFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}

SpillFile::~SpillFile() {
  if (fd_ >= 0) ::close(fd_);
}

Error SpillFile::io_error(const char* what, int err) const {
  return Error::make(err == ENOSPC ? "53100" : "58030", std::string("could not ") + what +
                                                            " temporary file \"" + path_ +
                                                            "\": " + std::strerror(err));
}

Result<void> SpillFile::flush() {
  size_t done = 0;
  while (done < out_.size()) {
    ssize_t n =
        ::pwrite(fd_, out_.data() + done, out_.size() - done, static_cast<off_t>(written_ + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return tl::unexpected(io_error("write to", errno));
    }
    done += static_cast<size_t>(n);
  }
  written_ += out_.size();
  out_.clear();
  return {};
}

Result<void> SpillFile::append(std::string_view row) {
  put_u32(out_, static_cast<uint32_t>(row.size()));
  out_.append(row);
  if (out_.size() >= kWriteBuffer) return flush();
  return {};
}

Result<void> SpillFile::end_run() {
  if (auto f = flush(); !f) return f;
  runs_.emplace_back(run_start_, written_);
  run_start_ = written_;
  return {};
}

SpillFile::Reader SpillFile::reader(size_t run, size_t buffer) const {
  return Reader(this, runs_.at(run).first, runs_.at(run).second, buffer);
}

SpillFile::Reader::Reader(const SpillFile* file, uint64_t begin, uint64_t end, size_t buffer)
    : file_(file), at_(begin), end_(end), buffer_(buffer) {}

Result<bool> SpillFile::Reader::fill(size_t need) {
  // Keep what is left, then read on until `need` bytes are here (or the run ends).
  data_.erase(0, pos_);
  pos_ = 0;
  while (data_.size() < need && at_ < end_) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(std::max(buffer_, need), end_ - at_));
    size_t old = data_.size();
    data_.resize(old + want);
    ssize_t n = ::pread(file_->fd_, data_.data() + old, want, static_cast<off_t>(at_));
    if (n < 0) {
      data_.resize(old);
      if (errno == EINTR) continue;
      return tl::unexpected(file_->io_error("read from", errno));
    }
    if (n == 0) {
      data_.resize(old);
      return tl::unexpected(
          Error::make("58030", "unexpected end of temporary file \"" + file_->path_ + "\""));
    }
    data_.resize(old + static_cast<size_t>(n));
    at_ += static_cast<uint64_t>(n);
  }
  return data_.size() >= need;
}

Result<bool> SpillFile::Reader::next(std::string& row) {
  if (data_.size() - pos_ < 4) {
    auto f = fill(4);
    if (!f) return f;
    if (!*f) return false;  // the run's end
  }
  uint32_t length = get_u32(data_.data() + pos_);
  if (data_.size() - pos_ < 4 + static_cast<size_t>(length)) {
    auto f = fill(4 + static_cast<size_t>(length));
    if (!f) return f;
    if (!*f) {
      return tl::unexpected(
          Error::make("58030", "unexpected end of temporary file \"" + file_->path_ + "\""));
    }
  }
  row.assign(data_, pos_ + 4, length);
  pos_ += 4 + length;
  return true;
}

}  // namespace pgrange::proxy::exec
