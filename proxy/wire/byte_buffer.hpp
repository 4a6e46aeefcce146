#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

namespace pgrange::proxy {

/// A growable byte buffer with a read position: bytes are appended at the back and consumed
/// from the front; consumed space is reclaimed by compacting before the next append.
class ByteBuffer {
 public:
  /// The unread bytes.
  const char* data() const { return buf_.data() + head_; }
  size_t size() const { return tail_ - head_; }
  bool empty() const { return head_ == tail_; }
  std::string_view view() const { return {data(), size()}; }

  /// Marks n bytes at the front as read.
  void consume(size_t n) {
    head_ += n;
    if (head_ == tail_) head_ = tail_ = 0;
  }
  void clear() { head_ = tail_ = 0; }

  /// Returns writable space of at least n bytes at the back; call commit() with what was used.
  char* prepare(size_t n) {
    if (buf_.size() - tail_ < n) {
      if (head_ > 0) {
        std::memmove(buf_.data(), buf_.data() + head_, tail_ - head_);
        tail_ -= head_;
        head_ = 0;
      }
      if (buf_.size() - tail_ < n) buf_.resize(std::max(buf_.size() * 2, tail_ + n));
    }
    return buf_.data() + tail_;
  }
  void commit(size_t n) { tail_ += n; }
  size_t writable() const { return buf_.size() - tail_; }

  void append(const void* p, size_t n) {
    std::memcpy(prepare(n), p, n);
    commit(n);
  }
  void append(std::string_view s) { append(s.data(), s.size()); }

  /// When the buffer is empty, hands its memory to `spares` (a worker's buffers between reads,
  /// so that a connection that waits holds none): at most `max_spares` are kept, each of at most
  /// `keep` bytes.
  void park(std::vector<std::vector<char>>& spares, size_t max_spares, size_t keep) {
    if (!empty() || buf_.empty()) return;
    if (spares.size() < max_spares && buf_.size() <= keep) spares.push_back(std::move(buf_));
    buf_ = std::vector<char>();
    head_ = tail_ = 0;
  }
  /// Takes a buffer from `spares` back, if it has none.
  void unpark(std::vector<std::vector<char>>& spares) {
    if (!buf_.empty() || spares.empty()) return;
    buf_ = std::move(spares.back());
    spares.pop_back();
  }

  /// Frees memory held beyond `keep` bytes of capacity when the buffer is empty.
  void shrink_if_idle(size_t keep) {
    if (empty() && buf_.size() > keep) {
      buf_.resize(keep);
      buf_.shrink_to_fit();
    }
  }

 private:
  std::vector<char> buf_;
  size_t head_ = 0;
  size_t tail_ = 0;
};

/// Reads a big-endian int32 (the wire protocol's Int32).
inline int32_t read_i32(const char* p) {
  uint32_t v = (uint32_t(uint8_t(p[0])) << 24) | (uint32_t(uint8_t(p[1])) << 16) |
               (uint32_t(uint8_t(p[2])) << 8) | uint32_t(uint8_t(p[3]));
  return static_cast<int32_t>(v);
}
/// Reads a big-endian int16 (the wire protocol's Int16).
inline int16_t read_i16(const char* p) {
  return static_cast<int16_t>((uint16_t(uint8_t(p[0])) << 8) | uint16_t(uint8_t(p[1])));
}

}  // namespace pgrange::proxy
