#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pgrange::routing {

/// How values of one result column compare, as PostgreSQL orders them (ORDER BY, min/max,
/// GROUP BY equality) with the type's default btree operator class and the C collation.
///
/// Text format expects PostgreSQL 15's output with DateStyle ISO; binary format the types'
/// send functions. A value that cannot be read (another DateStyle, bytea_output escape, bad
/// bytes) is not valid(): compare() then sorts it after every valid value, bytewise among
/// the invalid ones, so that it never crashes, but callers should refuse such values.
class ValueOrder {
 public:
  /// For a column of type `type_oid` (from RowDescription) in `format` (0 text, 1 binary);
  /// nullopt when pgrange cannot compare this type exactly.
  static std::optional<ValueOrder> for_type(uint32_t type_oid, int16_t format);

  /// <0, 0, >0. Both values non-NULL, as sent by PostgreSQL in DataRow.
  int compare(std::string_view a, std::string_view b) const;
  /// Whether `value` reads as a value of the type (compare() is exact only for such values).
  bool valid(std::string_view value) const;

  /// Whether its values read as integers in their order (the integer types, date, timestamp,
  /// timestamptz, bool), and a value so read (nullopt: not a value of the type).
  bool integer_like() const;
  std::optional<int64_t> integer(std::string_view value) const;

  uint32_t type_oid() const { return type_oid_; }
  int16_t format() const { return format_; }

 private:
  /// How values are read and compared (one per group of types that compare alike).
  enum class Method : uint8_t {
    kInteger,      // int2, int4, int8, oid
    kFloat4,       // float4
    kFloat8,       // float8
    kNumeric,      // numeric
    kBool,         // bool
    kBytes,        // text, varchar, name; bytea, uuid in binary
    kByteaHex,     // bytea's hex output: its order is the bytes' order
    kUuidText,     // uuid's text: fixed width lower-case hex
    kBlankPadded,  // bpchar: trailing spaces do not count
    kDate,         // date
    kTimestamp,    // timestamp
    kTimestamptz,  // timestamptz
  };

  friend struct ValueDecoder;

  ValueOrder(uint32_t type_oid, int16_t format, Method method)
      : type_oid_(type_oid), format_(format), method_(method) {}

  uint32_t type_oid_;
  int16_t format_;
  Method method_;
};

/// The type's name for messages ("interval", or "type 12345" when unknown).
std::string type_display_name(uint32_t type_oid);

}  // namespace pgrange::routing
