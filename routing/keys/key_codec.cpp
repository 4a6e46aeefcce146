#include "routing/keys/key_codec.hpp"

#include <strings.h>

#include <cassert>
#include <cmath>
#include <cstring>

#include "common/text.hpp"
#include "routing/keys/key_datetime.hpp"
#include "routing/keys/key_encoding.hpp"
#include "routing/keys/key_float.hpp"

namespace pgrange::routing {
namespace {

constexpr std::string_view kInvalidBinary = "22P03";

std::string_view sql_type_name(KeyType type) {
  switch (type) {
    case KeyType::kBool:
      return "boolean";
    case KeyType::kInt2:
      return "smallint";
    case KeyType::kInt4:
      return "integer";
    case KeyType::kInt8:
      return "bigint";
    default:
      return key_type_name(type);
  }
}

struct IntRange {
  int64_t min;
  int64_t max;
};

IntRange int_range(KeyType type) {
  switch (type) {
    case KeyType::kBool:
      return {0, 1};
    case KeyType::kInt2:
      return {INT16_MIN, INT16_MAX};
    case KeyType::kInt4:
      return {INT32_MIN, INT32_MAX};
    default:
      return {INT64_MIN, INT64_MAX};
  }
}

Result<KeyValue> parse_int_text(KeyType type, std::string_view text) {
  std::string_view t = trim(text);
  auto syntax = [&] {
    return fail(sqlstate::kInvalidTextRepresentation, "invalid input syntax for type " +
                                                          std::string(sql_type_name(type)) +
                                                          ": \"" + std::string(text) + "\"");
  };
  auto range = [&] {
    return fail(sqlstate::kNumericValueOutOfRange, "value \"" + std::string(text) +
                                                       "\" is out of range for type " +
                                                       std::string(sql_type_name(type)));
  };
  bool negative = false;
  if (!t.empty() && (t.front() == '+' || t.front() == '-')) {
    negative = t.front() == '-';
    t.remove_prefix(1);
  }
  if (t.empty()) return syntax();
  // Accumulate the magnitude as unsigned so INT64_MIN parses without overflow.
  uint64_t mag = 0;
  bool too_big = false;
  for (char c : t) {
    if (c < '0' || c > '9') return syntax();
    if (mag > (UINT64_MAX - 9) / 10) too_big = true;
    if (!too_big) mag = mag * 10 + static_cast<uint64_t>(c - '0');
  }
  IntRange r = int_range(type);
  if (too_big) return range();
  if (negative) {
    if (mag > static_cast<uint64_t>(-(r.min + 1)) + 1) return range();
    return mag == 0 ? int64_t{0} : -static_cast<int64_t>(mag - 1) - 1;
  }
  if (mag > static_cast<uint64_t>(r.max)) return range();
  return static_cast<int64_t>(mag);
}

Result<KeyValue> parse_bool_text(std::string_view text) {
  std::string_view t = trim(text);
  auto prefix_of = [&](std::string_view word, size_t min_len) {
    return t.size() >= min_len && t.size() <= word.size() &&
           strncasecmp(t.data(), word.data(), t.size()) == 0;
  };
  // PostgreSQL's parse_bool: any unique prefix of true/false/yes/no, on/off (2+ chars), 1/0.
  if (prefix_of("true", 1) || prefix_of("yes", 1) || prefix_of("on", 2) || t == "1") {
    return int64_t{1};
  }
  if (prefix_of("false", 1) || prefix_of("no", 1) || prefix_of("off", 2) || t == "0") {
    return int64_t{0};
  }
  return fail(sqlstate::kInvalidTextRepresentation,
              "invalid input syntax for type boolean: \"" + std::string(text) + "\"");
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<KeyValue> parse_uuid_text(std::string_view text) {
  // Mirrors PostgreSQL's string_to_uuid: optional braces, a '-' allowed after every group of
  // four hex digits except the last.
  auto syntax = [&] {
    return fail(sqlstate::kInvalidTextRepresentation,
                "invalid input syntax for type uuid: \"" + std::string(text) + "\"");
  };
  std::string_view s = text;
  bool braces = !s.empty() && s.front() == '{';
  if (braces) s.remove_prefix(1);
  std::string out;
  for (int i = 0; i < 16; ++i) {
    if (s.size() < 2) return syntax();
    int hi = hex_value(s[0]), lo = hex_value(s[1]);
    if (hi < 0 || lo < 0) return syntax();
    out.push_back(static_cast<char>(hi * 16 + lo));
    s.remove_prefix(2);
    if (!s.empty() && s.front() == '-' && i % 2 == 1 && i < 15) s.remove_prefix(1);
  }
  if (braces) {
    if (s.empty() || s.front() != '}') return syntax();
    s.remove_prefix(1);
  }
  if (!s.empty()) return syntax();
  return out;
}

Result<KeyValue> parse_bytea_text(std::string_view text) {
  std::string out;
  if (text.size() >= 2 && text[0] == '\\' && text[1] == 'x') {
    // Hex format; PostgreSQL skips whitespace between digit pairs.
    for (size_t i = 2; i < text.size();) {
      if (is_space(text[i])) {
        ++i;
        continue;
      }
      int hi = hex_value(text[i]);
      if (hi < 0) {
        return fail(sqlstate::kInvalidTextRepresentation,
                    "invalid hexadecimal digit: \"" + std::string(1, text[i]) + "\"");
      }
      if (i + 1 >= text.size()) {
        return fail(sqlstate::kInvalidTextRepresentation,
                    "invalid hexadecimal data: odd number of digits");
      }
      int lo = hex_value(text[i + 1]);
      if (lo < 0) {
        return fail(sqlstate::kInvalidTextRepresentation,
                    "invalid hexadecimal digit: \"" + std::string(1, text[i + 1]) + "\"");
      }
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    }
    return out;
  }
  // Escape format: "\\" is a backslash, "\ooo" (first digit 0-3) an octal byte.
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '\\') {
      out.push_back('\\');
      ++i;
    } else if (i + 3 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '3' &&
               text[i + 2] >= '0' && text[i + 2] <= '7' && text[i + 3] >= '0' &&
               text[i + 3] <= '7') {
      out.push_back(static_cast<char>((text[i + 1] - '0') * 64 + (text[i + 2] - '0') * 8 +
                                      (text[i + 3] - '0')));
      i += 3;
    } else {
      return fail(sqlstate::kInvalidTextRepresentation, "invalid input syntax for type bytea");
    }
  }
  return out;
}

std::string strip_trailing_spaces(std::string_view s) {
  // bpchar compares ignoring trailing spaces, so they are not part of the key.
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return std::string(s);
}

uint64_t read_be(std::string_view b) {
  uint64_t v = 0;
  for (char c : b) v = (v << 8) | static_cast<uint8_t>(c);
  return v;
}

tl::unexpected<Error> bad_binary(KeyType type) {
  return fail(kInvalidBinary,
              "incorrect binary data format for type " + std::string(key_type_name(type)));
}

uint8_t asc_marker(ValueKind kind) {
  switch (kind) {
    case ValueKind::kBytes:
      return marker::kBytesAsc;
    case ValueKind::kFloat:
      return marker::kFloatAsc;
    case ValueKind::kDecimal:
      return marker::kDecimalAsc;
    case ValueKind::kDate:
      return marker::kDateAsc;
    case ValueKind::kTimestamp:
      return marker::kTimestampAsc;
    case ValueKind::kTimestamptz:
      return marker::kTimestamptzAsc;
    default:
      return 0;  // ints and NULLs have no single marker
  }
}

// Checks a decoded value fits its column's type (a key of another table or a corrupted one
// could carry e.g. an int8 where an int4 is expected).
bool fits_type(KeyType type, const KeyValue& v) {
  switch (value_kind_of(type)) {
    case ValueKind::kInt: {
      IntRange r = int_range(type);
      int64_t x = std::get<int64_t>(v);
      return x >= r.min && x <= r.max;
    }
    case ValueKind::kFloat: {
      double d = std::get<double>(v);
      return type != KeyType::kFloat4 || std::isnan(d) ||
             static_cast<double>(static_cast<float>(d)) == d;
    }
    case ValueKind::kBytes:
      if (type == KeyType::kUuid) return std::get<std::string>(v).size() == 16;
      if (type == KeyType::kBpchar) {
        const auto& s = std::get<std::string>(v);
        return s.empty() || s.back() != ' ';
      }
      return true;
    case ValueKind::kDate:
      return check_date(std::get<int64_t>(v)).has_value();
    case ValueKind::kTimestamp:
    case ValueKind::kTimestamptz:
      return check_timestamp(std::get<int64_t>(v)).has_value();
    default:
      return true;
  }
}

}  // namespace

ValueKind value_kind_of(KeyType type) {
  switch (type) {
    case KeyType::kBool:
    case KeyType::kInt2:
    case KeyType::kInt4:
    case KeyType::kInt8:
      return ValueKind::kInt;
    case KeyType::kFloat4:
    case KeyType::kFloat8:
      return ValueKind::kFloat;
    case KeyType::kNumeric:
      return ValueKind::kDecimal;
    case KeyType::kText:
    case KeyType::kVarchar:
    case KeyType::kBpchar:
    case KeyType::kBytea:
    case KeyType::kUuid:
      return ValueKind::kBytes;
    case KeyType::kDate:
      return ValueKind::kDate;
    case KeyType::kTimestamp:
      return ValueKind::kTimestamp;
    case KeyType::kTimestamptz:
      return ValueKind::kTimestamptz;
  }
  return ValueKind::kNull;
}

Result<KeyValue> parse_text_value(KeyType type, std::string_view text) {
  switch (type) {
    case KeyType::kBool:
      return parse_bool_text(text);
    case KeyType::kInt2:
    case KeyType::kInt4:
    case KeyType::kInt8:
      return parse_int_text(type, text);
    case KeyType::kFloat4:
    case KeyType::kFloat8: {
      auto d = parse_float_text(text, type == KeyType::kFloat4);
      if (!d) return tl::unexpected(d.error());
      // -0 equals 0 in PostgreSQL; keep one representation of the value.
      return *d == 0 ? 0.0 : *d;
    }
    case KeyType::kNumeric: {
      auto d = parse_decimal_text(text);
      if (!d) return tl::unexpected(d.error());
      return std::move(*d);
    }
    case KeyType::kText:
    case KeyType::kVarchar:
      return std::string(text);
    case KeyType::kBpchar:
      return strip_trailing_spaces(text);
    case KeyType::kBytea:
      return parse_bytea_text(text);
    case KeyType::kUuid:
      return parse_uuid_text(text);
    case KeyType::kDate: {
      auto d = parse_date_text(text);
      if (!d) return tl::unexpected(d.error());
      return int64_t{*d};
    }
    case KeyType::kTimestamp:
    case KeyType::kTimestamptz: {
      auto t = parse_timestamp_text(text, type == KeyType::kTimestamptz);
      if (!t) return tl::unexpected(t.error());
      return *t;
    }
  }
  return fail(sqlstate::kInternalError, "unknown key type");
}

Result<KeyValue> parse_binary_value(KeyType type, std::string_view b) {
  switch (type) {
    case KeyType::kBool:
      if (b.size() != 1) return bad_binary(type);
      return int64_t{b[0] != 0 ? 1 : 0};
    case KeyType::kInt2:
      if (b.size() != 2) return bad_binary(type);
      return int64_t{static_cast<int16_t>(read_be(b))};
    case KeyType::kInt4:
      if (b.size() != 4) return bad_binary(type);
      return int64_t{static_cast<int32_t>(read_be(b))};
    case KeyType::kInt8:
      if (b.size() != 8) return bad_binary(type);
      return static_cast<int64_t>(read_be(b));
    case KeyType::kFloat4: {
      if (b.size() != 4) return bad_binary(type);
      float f;
      uint32_t u = static_cast<uint32_t>(read_be(b));
      std::memcpy(&f, &u, 4);
      return f == 0 ? 0.0 : static_cast<double>(f);
    }
    case KeyType::kFloat8: {
      if (b.size() != 8) return bad_binary(type);
      double d;
      uint64_t u = read_be(b);
      std::memcpy(&d, &u, 8);
      return d == 0 ? 0.0 : d;
    }
    case KeyType::kNumeric: {
      auto d = parse_decimal_binary(b);
      if (!d) return tl::unexpected(d.error());
      return std::move(*d);
    }
    case KeyType::kText:
    case KeyType::kVarchar:
    case KeyType::kBytea:
      return std::string(b);
    case KeyType::kBpchar:
      return strip_trailing_spaces(b);
    case KeyType::kUuid:
      if (b.size() != 16) return bad_binary(type);
      return std::string(b);
    case KeyType::kDate: {
      if (b.size() != 4) return bad_binary(type);
      auto d = check_date(static_cast<int32_t>(read_be(b)));
      if (!d) return tl::unexpected(d.error());
      return int64_t{*d};
    }
    case KeyType::kTimestamp:
    case KeyType::kTimestamptz: {
      if (b.size() != 8) return bad_binary(type);
      auto t = check_timestamp(static_cast<int64_t>(read_be(b)));
      if (!t) return tl::unexpected(t.error());
      return *t;
    }
  }
  return fail(sqlstate::kInternalError, "unknown key type");
}

void append_tagged_value(std::string& key, const TaggedValue& v) {
  const bool desc = v.descending;
  switch (v.kind) {
    case ValueKind::kNull:
      key.push_back(static_cast<char>(v.null_first ? marker::kNullFirst : marker::kNullLast));
      return;
    case ValueKind::kInt:
      if (desc) {
        key.push_back(static_cast<char>(marker::kIntDesc));
        append_varint(key, ~std::get<int64_t>(v.value));
      } else {
        append_varint(key, std::get<int64_t>(v.value));
      }
      return;
    case ValueKind::kDate:
    case ValueKind::kTimestamp:
    case ValueKind::kTimestamptz: {
      // The descending marker is the ascending one + 1 for every marked kind.
      key.push_back(static_cast<char>(asc_marker(v.kind) + (desc ? 1 : 0)));
      int64_t x = std::get<int64_t>(v.value);
      append_varint(key, desc ? ~x : x);
      return;
    }
    case ValueKind::kFloat:
      key.push_back(static_cast<char>(asc_marker(v.kind) + (desc ? 1 : 0)));
      append_ordered_double(key, std::get<double>(v.value), desc);
      return;
    case ValueKind::kDecimal:
      key.push_back(static_cast<char>(asc_marker(v.kind) + (desc ? 1 : 0)));
      append_decimal(key, std::get<Decimal>(v.value), desc);
      return;
    case ValueKind::kBytes:
      key.push_back(static_cast<char>(asc_marker(v.kind) + (desc ? 1 : 0)));
      append_escaped_bytes(key, std::get<std::string>(v.value), desc);
      return;
  }
}

namespace {

Result<TaggedValue> read_tagged_value_unchecked(std::string_view& in) {
  if (in.empty()) return malformed_key("missing value");
  const std::string_view start = in;
  const uint8_t m = static_cast<uint8_t>(in[0]);
  TaggedValue v;
  auto take_varint = [&]() -> Result<int64_t> { return read_varint(in); };
  if (m == marker::kNullFirst || m == marker::kNullLast) {
    v.kind = ValueKind::kNull;
    v.null_first = m == marker::kNullFirst;
    in.remove_prefix(1);
    return v;
  }
  if (m >= marker::kIntMin && m <= marker::kIntMax) {
    v.kind = ValueKind::kInt;
    auto x = take_varint();
    if (!x) return tl::unexpected(x.error());
    v.value = *x;
  } else {
    in.remove_prefix(1);
    switch (m) {
      case marker::kIntDesc:
      case marker::kDateAsc:
      case marker::kDateDesc:
      case marker::kTimestampAsc:
      case marker::kTimestampDesc:
      case marker::kTimestamptzAsc:
      case marker::kTimestamptzDesc: {
        v.kind = m == marker::kIntDesc         ? ValueKind::kInt
                 : m <= marker::kDateDesc      ? ValueKind::kDate
                 : m <= marker::kTimestampDesc ? ValueKind::kTimestamp
                                               : ValueKind::kTimestamptz;
        v.descending = m == marker::kIntDesc || (m & 1) != 0;
        auto x = take_varint();
        if (!x) return tl::unexpected(x.error());
        v.value = v.descending ? ~*x : *x;
        break;
      }
      case marker::kFloatAsc:
      case marker::kFloatDesc: {
        v.kind = ValueKind::kFloat;
        v.descending = m == marker::kFloatDesc;
        auto d = read_ordered_double(in, v.descending);
        if (!d) return tl::unexpected(d.error());
        v.value = *d;
        break;
      }
      case marker::kDecimalAsc:
      case marker::kDecimalDesc: {
        v.kind = ValueKind::kDecimal;
        v.descending = m == marker::kDecimalDesc;
        auto d = read_decimal(in, v.descending);
        if (!d) return tl::unexpected(d.error());
        v.value = std::move(*d);
        break;
      }
      case marker::kBytesAsc:
      case marker::kBytesDesc: {
        v.kind = ValueKind::kBytes;
        v.descending = m == marker::kBytesDesc;
        auto s = read_escaped_bytes(in, v.descending);
        if (!s) return tl::unexpected(s.error());
        v.value = std::move(*s);
        break;
      }
      default:
        in = start;
        return malformed_key("unknown value marker");
    }
  }
  // Only canonical encodings are accepted: this makes decoding injective, which pretty
  // printing and fuzzing rely on (e.g. a 2-byte varint holding 5, or a NaN with payload).
  std::string again;
  append_tagged_value(again, v);
  size_t used = start.size() - in.size();
  if (again != start.substr(0, used)) {
    in = start;
    return malformed_key("non-canonical value encoding");
  }
  return v;
}

}  // namespace

Result<TaggedValue> read_tagged_value(std::string_view& in) {
  // On failure leave `in` where it was, whatever the decoder had consumed.
  const std::string_view start = in;
  auto v = read_tagged_value_unchecked(in);
  if (!v) in = start;
  return v;
}

void append_key_value(std::string& key, const KeyColumn& column, const KeyValue& value) {
  TaggedValue v;
  v.kind = value_kind_of(column.type);
  v.descending = column.descending;
  v.value = value;
  // Float -0 and NaN payloads normalise inside append_ordered_double; the variant must hold
  // the alternative matching the column type (an invariant of the callers).
  assert((v.kind == ValueKind::kFloat) == std::holds_alternative<double>(value));
  append_tagged_value(key, v);
}

void append_key_null(std::string& key, const KeyColumn& column) {
  key.push_back(static_cast<char>(column.nulls_first() ? marker::kNullFirst : marker::kNullLast));
}

Result<void> append_text_value(std::string& key, const KeyColumn& column,
                               std::optional<std::string_view> text) {
  if (!text) {
    append_key_null(key, column);
    return {};
  }
  auto v = parse_text_value(column.type, *text);
  if (!v) return tl::unexpected(v.error());
  append_key_value(key, column, *v);
  return {};
}

Result<void> append_binary_value(std::string& key, const KeyColumn& column,
                                 std::optional<std::string_view> bytes) {
  if (!bytes) {
    append_key_null(key, column);
    return {};
  }
  auto v = parse_binary_value(column.type, *bytes);
  if (!v) return tl::unexpected(v.error());
  append_key_value(key, column, *v);
  return {};
}

Result<std::optional<KeyValue>> read_key_value(std::string_view& in, const KeyColumn& column) {
  const std::string_view start = in;
  auto v = read_tagged_value(in);
  if (!v) return tl::unexpected(v.error());
  if (v->kind == ValueKind::kNull) {
    if (v->null_first != column.nulls_first()) {
      in = start;
      return malformed_key("NULL marker does not match the column's NULL order");
    }
    return std::optional<KeyValue>();
  }
  if (v->kind != value_kind_of(column.type) || v->descending != column.descending ||
      !fits_type(column.type, v->value)) {
    in = start;
    return malformed_key("value does not match column type " +
                         std::string(key_type_name(column.type)));
  }
  return std::optional<KeyValue>(std::move(v->value));
}

std::string format_text_value(KeyType type, const KeyValue& value) {
  static constexpr char kHex[] = "0123456789abcdef";
  switch (type) {
    case KeyType::kBool:
      return std::get<int64_t>(value) != 0 ? "t" : "f";
    case KeyType::kInt2:
    case KeyType::kInt4:
    case KeyType::kInt8:
      return std::to_string(std::get<int64_t>(value));
    case KeyType::kFloat4:
    case KeyType::kFloat8:
      return format_float_text(std::get<double>(value), type == KeyType::kFloat4);
    case KeyType::kNumeric:
      return format_decimal_text(std::get<Decimal>(value));
    case KeyType::kText:
    case KeyType::kVarchar:
    case KeyType::kBpchar:
      return std::get<std::string>(value);
    case KeyType::kBytea: {
      std::string out = "\\x";
      for (unsigned char c : std::get<std::string>(value)) {
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 15]);
      }
      return out;
    }
    case KeyType::kUuid: {
      std::string out;
      const auto& s = std::get<std::string>(value);
      for (size_t i = 0; i < s.size(); ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
        auto c = static_cast<unsigned char>(s[i]);
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 15]);
      }
      return out;
    }
    case KeyType::kDate:
      return format_date_text(static_cast<int32_t>(std::get<int64_t>(value)));
    case KeyType::kTimestamp:
    case KeyType::kTimestamptz:
      return format_timestamp_text(std::get<int64_t>(value), type == KeyType::kTimestamptz);
  }
  return {};
}

Result<std::optional<std::string>> decode_text_value(std::string_view& in,
                                                     const KeyColumn& column) {
  auto v = read_key_value(in, column);
  if (!v) return tl::unexpected(v.error());
  if (!*v) return std::optional<std::string>();
  return std::optional<std::string>(format_text_value(column.type, **v));
}

}  // namespace pgrange::routing
