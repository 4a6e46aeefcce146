#include "routing/keys/value_order.hpp"

#include <charconv>
#include <cmath>
#include <cstring>
#include <variant>

#include "routing/keys/key_datetime.hpp"
#include "routing/keys/key_float.hpp"
#include "routing/keys/pg_numeric.hpp"

namespace pgrange::routing {
namespace {

// Type OIDs (pg_type.dat).
constexpr uint32_t kBoolOid = 16;
constexpr uint32_t kByteaOid = 17;
constexpr uint32_t kNameOid = 19;
constexpr uint32_t kInt8Oid = 20;
constexpr uint32_t kInt2Oid = 21;
constexpr uint32_t kInt4Oid = 23;
constexpr uint32_t kTextOid = 25;
constexpr uint32_t kOidOid = 26;
constexpr uint32_t kFloat4Oid = 700;
constexpr uint32_t kFloat8Oid = 701;
constexpr uint32_t kBpcharOid = 1042;
constexpr uint32_t kVarcharOid = 1043;
constexpr uint32_t kDateOid = 1082;
constexpr uint32_t kTimestampOid = 1114;
constexpr uint32_t kTimestamptzOid = 1184;
constexpr uint32_t kNumericOid = 1700;
constexpr uint32_t kUuidOid = 2950;

struct TypeName {
  uint32_t oid;
  std::string_view name;
};

constexpr TypeName kTypeNames[] = {
    {16, "bool"},          {17, "bytea"},       {18, "\"char\""},    {19, "name"},
    {20, "int8"},          {21, "int2"},        {23, "int4"},        {24, "regproc"},
    {25, "text"},          {26, "oid"},         {27, "tid"},         {28, "xid"},
    {114, "json"},         {142, "xml"},        {600, "point"},      {650, "cidr"},
    {700, "float4"},       {701, "float8"},     {774, "macaddr8"},   {790, "money"},
    {829, "macaddr"},      {869, "inet"},       {1000, "bool[]"},    {1001, "bytea[]"},
    {1005, "int2[]"},      {1007, "int4[]"},    {1009, "text[]"},    {1015, "varchar[]"},
    {1016, "int8[]"},      {1021, "float4[]"},  {1022, "float8[]"},  {1042, "bpchar"},
    {1043, "varchar"},     {1082, "date"},      {1083, "time"},      {1114, "timestamp"},
    {1184, "timestamptz"}, {1186, "interval"},  {1231, "numeric[]"}, {1266, "timetz"},
    {1560, "bit"},         {1562, "varbit"},    {1700, "numeric"},   {2249, "record"},
    {2950, "uuid"},        {3220, "pg_lsn"},    {3614, "tsvector"},  {3802, "jsonb"},
    {3904, "int4range"},   {3906, "numrange"},  {3908, "tsrange"},   {3910, "tstzrange"},
    {3912, "daterange"},   {3926, "int8range"}, {4072, "jsonpath"},  {5038, "pg_snapshot"},
};

// A value read for comparison: an integer (also dates and timestamps), a double, a numeric,
// or bytes compared as memcmp and then length.
using Decoded = std::variant<int64_t, double, PgNumeric, std::string_view>;

template <typename T>
T read_big_endian(std::string_view bytes) {
  std::make_unsigned_t<T> v = 0;
  for (char c : bytes) v = static_cast<std::make_unsigned_t<T>>((v << 8) | static_cast<uint8_t>(c));
  return static_cast<T>(v);
}

bool is_lower_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

std::string_view strip_trailing_spaces(std::string_view s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

std::optional<int64_t> parse_integer_text(std::string_view s, uint32_t oid) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  switch (oid) {
    case kInt2Oid:
      if (v < INT16_MIN || v > INT16_MAX) return std::nullopt;
      break;
    case kInt4Oid:
      if (v < INT32_MIN || v > INT32_MAX) return std::nullopt;
      break;
    case kOidOid:
      if (v < 0 || v > UINT32_MAX) return std::nullopt;
      break;
    default:
      break;
  }
  return v;
}

int compare_doubles(double a, double b) {
  // float8_cmp_internal: NaN equals NaN and is above everything else; -0 equals 0.
  if (std::isnan(a)) return std::isnan(b) ? 0 : 1;
  if (std::isnan(b)) return -1;
  return a < b ? -1 : (a > b ? 1 : 0);
}

int compare_decoded(const Decoded& a, const Decoded& b) {
  if (const auto* x = std::get_if<int64_t>(&a)) {
    int64_t y = std::get<int64_t>(b);
    return *x < y ? -1 : (*x > y ? 1 : 0);
  }
  if (const auto* x = std::get_if<double>(&a)) return compare_doubles(*x, std::get<double>(b));
  if (const auto* x = std::get_if<PgNumeric>(&a)) return x->compare(std::get<PgNumeric>(b));
  int c = std::get<std::string_view>(a).compare(std::get<std::string_view>(b));
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

}  // namespace

std::optional<ValueOrder> ValueOrder::for_type(uint32_t type_oid, int16_t format) {
  if (format != 0 && format != 1) return std::nullopt;
  const bool text = format == 0;
  switch (type_oid) {
    case kInt2Oid:
    case kInt4Oid:
    case kInt8Oid:
    case kOidOid:
      return ValueOrder(type_oid, format, Method::kInteger);
    case kFloat4Oid:
      return ValueOrder(type_oid, format, Method::kFloat4);
    case kFloat8Oid:
      return ValueOrder(type_oid, format, Method::kFloat8);
    case kNumericOid:
      return ValueOrder(type_oid, format, Method::kNumeric);
    case kBoolOid:
      return ValueOrder(type_oid, format, Method::kBool);
    case kTextOid:
    case kVarcharOid:
    case kNameOid:
      return ValueOrder(type_oid, format, Method::kBytes);
    case kBpcharOid:
      return ValueOrder(type_oid, format, Method::kBlankPadded);
    case kByteaOid:
      return ValueOrder(type_oid, format, text ? Method::kByteaHex : Method::kBytes);
    case kUuidOid:
      return ValueOrder(type_oid, format, text ? Method::kUuidText : Method::kBytes);
    case kDateOid:
      return ValueOrder(type_oid, format, Method::kDate);
    case kTimestampOid:
      return ValueOrder(type_oid, format, Method::kTimestamp);
    case kTimestamptzOid:
      return ValueOrder(type_oid, format, Method::kTimestamptz);
    default:
      return std::nullopt;
  }
}

/// Reads values of a ValueOrder's column into the form they compare in.
struct ValueDecoder {
  static std::optional<Decoded> decode(const ValueOrder& order, std::string_view v) {
    return order.format_ == 0 ? text(order, v) : binary(order, v);
  }

  // PostgreSQL 15's output functions, DateStyle ISO.
  static std::optional<Decoded> text(const ValueOrder& order, std::string_view v) {
    using M = ValueOrder::Method;
    switch (order.method_) {
      case M::kInteger:
        if (auto i = parse_integer_text(v, order.type_oid_)) return Decoded(*i);
        return std::nullopt;
      case M::kFloat4:
      case M::kFloat8: {
        auto d = parse_float_text(v, order.method_ == M::kFloat4);
        if (!d) return std::nullopt;
        return Decoded(*d);
      }
      case M::kNumeric: {
        auto n = PgNumeric::parse(v);
        if (!n) return std::nullopt;
        return Decoded(std::move(*n));
      }
      case M::kBool:
        if (v == "t" || v == "true") return Decoded(int64_t{1});
        if (v == "f" || v == "false") return Decoded(int64_t{0});
        return std::nullopt;
      case M::kBytes:
        return Decoded(v);
      case M::kByteaHex: {
        // bytea_output = hex: "\x" and two lower-case hex digits a byte, so the text sorts as
        // the bytes do; the escape format does not.
        if (v.size() < 2 || v[0] != '\\' || v[1] != 'x' || v.size() % 2 != 0) return std::nullopt;
        for (size_t i = 2; i < v.size(); ++i) {
          if (!is_lower_hex(v[i])) return std::nullopt;
        }
        return Decoded(v);
      }
      case M::kUuidText: {
        if (v.size() != 36) return std::nullopt;
        for (size_t i = 0; i < v.size(); ++i) {
          bool dash = i == 8 || i == 13 || i == 18 || i == 23;
          if (dash ? v[i] != '-' : !is_lower_hex(v[i])) return std::nullopt;
        }
        return Decoded(v);
      }
      case M::kBlankPadded:
        return Decoded(strip_trailing_spaces(v));
      case M::kDate: {
        auto d = parse_date_text(v);
        if (!d) return std::nullopt;
        return Decoded(int64_t{*d});
      }
      case M::kTimestamp:
      case M::kTimestamptz: {
        auto t = parse_timestamp_text(v, order.method_ == M::kTimestamptz);
        if (!t) return std::nullopt;
        return Decoded(*t);
      }
    }
    return std::nullopt;
  }

  // The types' send functions: big-endian integers and IEEE floats, raw bytes for strings.
  static std::optional<Decoded> binary(const ValueOrder& order, std::string_view v) {
    using M = ValueOrder::Method;
    switch (order.method_) {
      case M::kInteger:
        switch (order.type_oid_) {
          case kInt2Oid:
            if (v.size() != 2) return std::nullopt;
            return Decoded(int64_t{read_big_endian<int16_t>(v)});
          case kInt4Oid:
            if (v.size() != 4) return std::nullopt;
            return Decoded(int64_t{read_big_endian<int32_t>(v)});
          case kOidOid:
            if (v.size() != 4) return std::nullopt;
            return Decoded(int64_t{read_big_endian<uint32_t>(v)});
          default:
            if (v.size() != 8) return std::nullopt;
            return Decoded(read_big_endian<int64_t>(v));
        }
      case M::kFloat4: {
        if (v.size() != 4) return std::nullopt;
        auto bits = read_big_endian<uint32_t>(v);
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return Decoded(static_cast<double>(f));
      }
      case M::kFloat8: {
        if (v.size() != 8) return std::nullopt;
        auto bits = read_big_endian<uint64_t>(v);
        double d;
        std::memcpy(&d, &bits, sizeof d);
        return Decoded(d);
      }
      case M::kBool:
        if (v.size() != 1) return std::nullopt;
        return Decoded(int64_t{v[0] != 0});
      case M::kBytes:
        if (order.type_oid_ == kUuidOid && v.size() != 16) return std::nullopt;
        return Decoded(v);
      case M::kBlankPadded:
        return Decoded(strip_trailing_spaces(v));
      case M::kDate:
        if (v.size() != 4) return std::nullopt;
        return Decoded(int64_t{read_big_endian<int32_t>(v)});
      case M::kTimestamp:
      case M::kTimestamptz:
        if (v.size() != 8) return std::nullopt;
        return Decoded(read_big_endian<int64_t>(v));
      case M::kNumeric: {
        auto n = PgNumeric::from_binary(v);
        if (!n) return std::nullopt;
        return Decoded(std::move(*n));
      }
      case M::kByteaHex:
      case M::kUuidText:
        break;
    }
    return std::nullopt;
  }
};

bool ValueOrder::valid(std::string_view value) const {
  return ValueDecoder::decode(*this, value).has_value();
}

bool ValueOrder::integer_like() const {
  return method_ == Method::kInteger || method_ == Method::kDate || method_ == Method::kTimestamp ||
         method_ == Method::kTimestamptz || method_ == Method::kBool;
}

std::optional<int64_t> ValueOrder::integer(std::string_view value) const {
  if (!integer_like()) return std::nullopt;
  if (format_ == 0 && method_ == Method::kInteger) return parse_integer_text(value, type_oid_);
  auto d = ValueDecoder::decode(*this, value);
  if (!d) return std::nullopt;
  const auto* i = std::get_if<int64_t>(&*d);
  if (i == nullptr) return std::nullopt;
  return *i;
}

int ValueOrder::compare(std::string_view a, std::string_view b) const {
  // The common types read straight, without a Decoded (a merge or a sort compares millions).
  if (format_ == 0 && method_ == Method::kInteger) {
    auto x = parse_integer_text(a, type_oid_);
    auto y = parse_integer_text(b, type_oid_);
    if (x && y) return *x < *y ? -1 : (*x > *y ? 1 : 0);
  } else if (method_ == Method::kBytes && (format_ == 0 || type_oid_ != kUuidOid)) {
    int c = a.compare(b);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  auto x = ValueDecoder::decode(*this, a);
  auto y = ValueDecoder::decode(*this, b);
  if (x && y) return compare_decoded(*x, *y);
  // Unreadable values sort after readable ones, bytewise among themselves: a total order
  // that is at least deterministic.
  if (x || y) return x ? -1 : 1;
  int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

std::string type_display_name(uint32_t type_oid) {
  for (const auto& t : kTypeNames) {
    if (t.oid == type_oid) return std::string(t.name);
  }
  return "type " + std::to_string(type_oid);
}

}  // namespace pgrange::routing
