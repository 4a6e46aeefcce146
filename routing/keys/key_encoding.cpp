#include "routing/keys/key_encoding.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace pgrange::routing {
namespace {

constexpr int kIntMaxWidth = 8;
constexpr uint8_t kIntZero = marker::kIntMin + kIntMaxWidth;
constexpr uint64_t kIntSmall = marker::kIntMax - kIntZero - kIntMaxWidth;  // 109

// Number of bytes needed to hold v (1..8).
int byte_width(uint64_t v) {
  int n = 1;
  while (n < 8 && (v >> (8 * n)) != 0) ++n;
  return n;
}

void append_be(std::string& out, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

Result<uint64_t> read_be(std::string_view& in, int n) {
  if (in.size() < static_cast<size_t>(n)) return malformed_key("truncated integer");
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | static_cast<uint8_t>(in[i]);
  in.remove_prefix(n);
  return v;
}

}  // namespace

tl::unexpected<Error> malformed_key(std::string_view what) {
  return fail(sqlstate::kInternalError, "malformed key: " + std::string(what));
}

void append_uvarint(std::string& out, uint64_t v) {
  if (v <= kIntSmall) {
    out.push_back(static_cast<char>(kIntZero + v));
    return;
  }
  int n = byte_width(v);
  out.push_back(static_cast<char>(marker::kIntMax - kIntMaxWidth + n));
  append_be(out, v, n);
}

void append_varint(std::string& out, int64_t v) {
  if (v >= 0) {
    append_uvarint(out, static_cast<uint64_t>(v));
    return;
  }
  // Negative values: the fewer leading 0xff bytes ~v needs, the more negative the value, so
  // the marker shrinks with the width; the low bytes of two's complement then sort correctly.
  int n = byte_width(~static_cast<uint64_t>(v));
  // As in CockroachDB, n bytes hold [-(256^n - 1), -1]: -256^n itself would have all-zero
  // low bytes, so it moves up one width.
  if (n < 8 && static_cast<uint64_t>(v) << (64 - 8 * n) >> (64 - 8 * n) == 0) ++n;
  out.push_back(static_cast<char>(marker::kIntMin + kIntMaxWidth - n));
  append_be(out, static_cast<uint64_t>(v), n);
}

Result<uint64_t> read_uvarint(std::string_view& in) {
  if (in.empty()) return malformed_key("missing integer");
  uint8_t m = static_cast<uint8_t>(in[0]);
  if (m < kIntZero || m > marker::kIntMax) return malformed_key("not an unsigned integer");
  in.remove_prefix(1);
  if (m <= kIntZero + kIntSmall) return static_cast<uint64_t>(m - kIntZero);
  int n = m - (marker::kIntMax - kIntMaxWidth);
  return read_be(in, n);
}

Result<int64_t> read_varint(std::string_view& in) {
  if (in.empty()) return malformed_key("missing integer");
  uint8_t m = static_cast<uint8_t>(in[0]);
  if (m < marker::kIntMin || m > marker::kIntMax) return malformed_key("not an integer");
  if (m >= kIntZero) {
    auto u = read_uvarint(in);
    if (!u) return tl::unexpected(u.error());
    if (*u > static_cast<uint64_t>(INT64_MAX)) return malformed_key("integer out of range");
    return static_cast<int64_t>(*u);
  }
  in.remove_prefix(1);
  int n = kIntMaxWidth - (m - marker::kIntMin);
  auto low = read_be(in, n);
  if (!low) return tl::unexpected(low.error());
  uint64_t v = *low;
  if (n < 8) v |= ~uint64_t{0} << (8 * n);
  return static_cast<int64_t>(v);
}

void append_escaped_bytes(std::string& out, std::string_view bytes, bool descending) {
  const uint8_t flip = descending ? 0xff : 0x00;
  for (char c : bytes) {
    out.push_back(static_cast<char>(static_cast<uint8_t>(c) ^ flip));
    if (c == 0) out.push_back(static_cast<char>(0xff ^ flip));
  }
  out.push_back(static_cast<char>(0x00 ^ flip));
  out.push_back(static_cast<char>(0x01 ^ flip));
}

namespace {

/// Unescapes the bytes at the start of `in` up to their terminator (consumed), or with
/// `to_end`, all of `in` as escaped bytes whose terminator is missing.
Result<std::string> read_escaped(std::string_view& in, bool descending, bool to_end) {
  const uint8_t flip = descending ? 0xff : 0x00;
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    uint8_t b = static_cast<uint8_t>(in[i]) ^ flip;
    if (b != 0) {
      out.push_back(static_cast<char>(b));
      continue;
    }
    if (i + 1 >= in.size()) {  // an escape cut in two
      return malformed_key(to_end ? "bad escape in byte string" : "unterminated byte string");
    }
    uint8_t next = static_cast<uint8_t>(in[i + 1]) ^ flip;
    if (next == 0x01) {
      if (to_end) return malformed_key("a terminated byte string where none may end");
      in.remove_prefix(i + 2);
      return out;
    }
    if (next != 0xff) return malformed_key("bad escape in byte string");
    out.push_back('\0');
    ++i;
  }
  if (to_end) return out;
  return malformed_key("unterminated byte string");
}

}  // namespace

Result<std::string> read_escaped_bytes(std::string_view& in, bool descending) {
  return read_escaped(in, descending, false);
}

Result<std::string> read_unterminated_bytes(std::string_view in, bool descending) {
  return read_escaped(in, descending, true);
}

void append_ordered_double(std::string& out, double d, bool descending) {
  // PostgreSQL treats every NaN as one value above +Infinity and -0 as equal to 0.
  if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
  if (d == 0) d = 0.0;
  uint64_t u = std::bit_cast<uint64_t>(d);
  u = (u >> 63) ? ~u : (u | (uint64_t{1} << 63));
  if (descending) u = ~u;
  append_be(out, u, 8);
}

Result<double> read_ordered_double(std::string_view& in, bool descending) {
  auto u = read_be(in, 8);
  if (!u) return tl::unexpected(u.error());
  uint64_t v = descending ? ~*u : *u;
  v = (v >> 63) ? (v & ~(uint64_t{1} << 63)) : ~v;
  return std::bit_cast<double>(v);
}

}  // namespace pgrange::routing
