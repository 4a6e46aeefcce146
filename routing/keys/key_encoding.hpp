#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace pgrange::routing {

/// Marker bytes that tag every encoded key column value, so a key can be walked (and
/// pretty-printed) without its schema. Within one column every non-NULL value carries the
/// same marker (or, for integers, a marker from the same range), so markers only decide the
/// order between NULL and values: kNullFirst sorts below every value marker, kNullLast above.
namespace marker {
inline constexpr uint8_t kNullFirst = 0x00;
inline constexpr uint8_t kBytesAsc = 0x12;
inline constexpr uint8_t kBytesDesc = 0x13;
inline constexpr uint8_t kFloatAsc = 0x20;
inline constexpr uint8_t kFloatDesc = 0x21;
inline constexpr uint8_t kDecimalAsc = 0x30;
inline constexpr uint8_t kDecimalDesc = 0x31;
inline constexpr uint8_t kDateAsc = 0x40;
inline constexpr uint8_t kDateDesc = 0x41;
inline constexpr uint8_t kTimestampAsc = 0x42;
inline constexpr uint8_t kTimestampDesc = 0x43;
inline constexpr uint8_t kTimestamptzAsc = 0x44;
inline constexpr uint8_t kTimestamptzDesc = 0x45;
/// A descending integer: kIntDesc followed by the ascending varint of ~v.
inline constexpr uint8_t kIntDesc = 0x50;
/// Ascending (u)varints use the marker range [kIntMin, kIntMax] (CockroachDB's layout).
inline constexpr uint8_t kIntMin = 0x80;
inline constexpr uint8_t kIntMax = 0xfd;
inline constexpr uint8_t kNullLast = 0xfe;
}  // namespace marker

/// Appends v as an order-preserving unsigned varint (1 byte for v <= 109, else 2..9 bytes).
void append_uvarint(std::string& out, uint64_t v);

/// Appends v as an order-preserving signed varint (same marker range as append_uvarint;
/// non-negative values encode exactly like append_uvarint).
void append_varint(std::string& out, int64_t v);

/// Reads an ascending unsigned varint from the front of `in` and advances it.
Result<uint64_t> read_uvarint(std::string_view& in);

/// Reads an ascending signed varint from the front of `in` and advances it.
Result<int64_t> read_varint(std::string_view& in);

/// Appends a byte string escaped (0x00 -> 00 FF) and terminated (00 01), so a string sorts
/// before its extensions; descending inverts every byte written. No marker is written.
void append_escaped_bytes(std::string& out, std::string_view bytes, bool descending);

/// Reads a byte string written by append_escaped_bytes and advances `in` past its terminator.
Result<std::string> read_escaped_bytes(std::string_view& in, bool descending);
/// All of `in` as escaped bytes whose terminator is missing (the start of a string in a key
/// span's bound); fails on a terminator or a bad escape.
Result<std::string> read_unterminated_bytes(std::string_view in, bool descending);

/// Appends a double as 8 order-preserving bytes (sign-flip), NaN above +Infinity and -0 as 0
/// as PostgreSQL orders them; descending inverts the bytes. No marker is written.
void append_ordered_double(std::string& out, double d, bool descending);

/// Reads 8 bytes written by append_ordered_double and advances `in`.
Result<double> read_ordered_double(std::string_view& in, bool descending);

/// The error every decoder returns for bytes that are not a well-formed key.
tl::unexpected<Error> malformed_key(std::string_view what);

}  // namespace pgrange::routing
