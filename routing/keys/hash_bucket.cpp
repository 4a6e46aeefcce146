#include "routing/keys/hash_bucket.hpp"

#include <bit>
#include <cassert>
#include <cmath>
#include <cstring>

namespace pgrange::routing {
namespace {

inline uint32_t rot(uint32_t x, int k) {
  return std::rotl(x, k);
}

inline void mix(uint32_t& a, uint32_t& b, uint32_t& c) {
  a -= c;
  a ^= rot(c, 4);
  c += b;
  b -= a;
  b ^= rot(a, 6);
  a += c;
  c -= b;
  c ^= rot(b, 8);
  b += a;
  a -= c;
  a ^= rot(c, 16);
  c += b;
  b -= a;
  b ^= rot(a, 19);
  a += c;
  c -= b;
  c ^= rot(b, 4);
  b += a;
}

inline void final_mix(uint32_t& a, uint32_t& b, uint32_t& c) {
  c ^= b;
  c -= rot(b, 14);
  a ^= c;
  a -= rot(c, 11);
  b ^= a;
  b -= rot(a, 25);
  c ^= b;
  c -= rot(b, 16);
  a ^= c;
  a -= rot(c, 4);
  b ^= a;
  b -= rot(a, 14);
  c ^= b;
  c -= rot(b, 24);
}

uint32_t le32(const unsigned char* k) {
  return k[0] | (uint32_t{k[1]} << 8) | (uint32_t{k[2]} << 16) | (uint32_t{k[3]} << 24);
}

uint32_t pg_hashint8(int64_t v) {
  // hashint8 folds the high half in so that int8 values equal to int4 ones hash alike.
  auto lo = static_cast<uint32_t>(v);
  auto hi = static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32);
  lo ^= v >= 0 ? hi : ~hi;
  return pg_hash_uint32(lo);
}

uint32_t pg_hash_numeric(const Decimal& d) {
  if (d.kind != Decimal::Kind::kPositive && d.kind != Decimal::Kind::kNegative) {
    return d.kind == Decimal::Kind::kZero ? 0xffffffffu : 0;  // zero -> -1, specials -> 0
  }
  // Rebuild numeric's base-10000 digits: align the decimal string to 4-digit groups around
  // the decimal point; the value 0.<digits> x 10^exponent has integer part `exponent` digits.
  int64_t pad = ((d.exponent % 4) + 4) % 4;
  pad = pad == 0 ? 0 : 4 - pad;
  std::string digits(static_cast<size_t>(pad), '0');
  digits += d.digits;
  while (digits.size() % 4) digits.push_back('0');
  int64_t weight = (d.exponent + pad) / 4 - 1;
  std::string bytes;
  for (size_t i = 0; i < digits.size(); i += 4) {
    auto g = static_cast<uint16_t>(std::stoi(digits.substr(i, 4)));
    bytes.push_back(static_cast<char>(g & 0xff));  // NumericDigit is a native (LE) int16
    bytes.push_back(static_cast<char>(g >> 8));
  }
  // Normalised digits have no zero groups at either end, as hash_numeric strips them.
  return pg_hash_bytes(bytes) ^ static_cast<uint32_t>(static_cast<int32_t>(weight));
}

}  // namespace

uint32_t pg_hash_bytes(std::string_view bytes) {
  const auto* k = reinterpret_cast<const unsigned char*>(bytes.data());
  auto len = static_cast<uint32_t>(bytes.size());
  uint32_t a, b, c;
  a = b = c = 0x9e3779b9 + len + 3923095;
  while (len >= 12) {
    a += le32(k);
    b += le32(k + 4);
    c += le32(k + 8);
    mix(a, b, c);
    k += 12;
    len -= 12;
  }
  // The last 11 bytes; the lowest byte of c is reserved for the length (not added here).
  switch (len) {
    case 11:
      c += uint32_t{k[10]} << 24;
      [[fallthrough]];
    case 10:
      c += uint32_t{k[9]} << 16;
      [[fallthrough]];
    case 9:
      c += uint32_t{k[8]} << 8;
      [[fallthrough]];
    case 8:
      b += uint32_t{k[7]} << 24;
      [[fallthrough]];
    case 7:
      b += uint32_t{k[6]} << 16;
      [[fallthrough]];
    case 6:
      b += uint32_t{k[5]} << 8;
      [[fallthrough]];
    case 5:
      b += k[4];
      [[fallthrough]];
    case 4:
      a += uint32_t{k[3]} << 24;
      [[fallthrough]];
    case 3:
      a += uint32_t{k[2]} << 16;
      [[fallthrough]];
    case 2:
      a += uint32_t{k[1]} << 8;
      [[fallthrough]];
    case 1:
      a += k[0];
      break;
    default:
      break;
  }
  final_mix(a, b, c);
  return c;
}

uint32_t pg_hash_uint32(uint32_t k) {
  uint32_t a, b, c;
  a = b = c = 0x9e3779b9 + 4 + 3923095;
  a += k;
  final_mix(a, b, c);
  return c;
}

uint32_t pg_hash_value(KeyType type, const KeyValue& value) {
  switch (type) {
    case KeyType::kBool:
    case KeyType::kInt2:
    case KeyType::kInt4:
    case KeyType::kDate:
      return pg_hash_uint32(static_cast<uint32_t>(static_cast<int32_t>(std::get<int64_t>(value))));
    case KeyType::kInt8:
    case KeyType::kTimestamp:
    case KeyType::kTimestamptz:
      return pg_hashint8(std::get<int64_t>(value));
    case KeyType::kFloat4:
    case KeyType::kFloat8: {
      double d = std::get<double>(value);
      // hashfloat8: zeros hash to 0 (so -0 = 0), every NaN as the canonical NaN.
      if (d == 0) return 0;
      if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
      char bytes[8];
      std::memcpy(bytes, &d, 8);
      return pg_hash_bytes(std::string_view(bytes, 8));
    }
    case KeyType::kNumeric:
      return pg_hash_numeric(std::get<Decimal>(value));
    case KeyType::kText:
    case KeyType::kVarchar:
    case KeyType::kBpchar:
    case KeyType::kUuid:
      return pg_hash_bytes(std::get<std::string>(value));
    case KeyType::kBytea: {
      static constexpr char kHex[] = "0123456789abcdef";
      std::string hex;
      for (unsigned char c : std::get<std::string>(value)) {
        hex.push_back(kHex[c >> 4]);
        hex.push_back(kHex[c & 15]);
      }
      return pg_hash_bytes(hex);
    }
  }
  return 0;
}

std::string hash_column_sql(std::string_view column_sql, KeyType type) {
  std::string c;  // appended, not concatenated: GCC 12 -O3 warns falsely (-Wrestrict) on "(" + s
  c.reserve(column_sql.size() + 2);
  c.append("(").append(column_sql).append(")");
  std::string h;
  switch (type) {
    case KeyType::kBool:
      h = "hashint4(" + c + "::int4)";
      break;
    case KeyType::kInt2:
      h = "hashint2(" + c + ")";
      break;
    case KeyType::kInt4:
      h = "hashint4(" + c + ")";
      break;
    case KeyType::kInt8:
      h = "hashint8(" + c + ")";
      break;
    case KeyType::kDate:
      h = "hashint4(" + c + " - date '2000-01-01')";
      break;
    case KeyType::kTimestamp:
    case KeyType::kTimestamptz:
      // extract(epoch) is exact (numeric) since PostgreSQL 14 and ignores TimeZone.
      // Subtract in numeric: near the end of the range µs since 1970 exceed int8.
      h = "hashint8(((extract(epoch from " + c + ") - 946684800) * 1000000)::int8)";
      break;
    case KeyType::kFloat4:
    case KeyType::kFloat8:
      h = "hashfloat8(" + c + "::float8)";
      break;
    case KeyType::kNumeric:
      h = "hash_numeric(" + c + ")";
      break;
    case KeyType::kText:
    case KeyType::kVarchar:
      h = "hashtext(" + c + "::text COLLATE \"C\")";
      break;
    case KeyType::kBpchar:
      h = "hashbpchar(" + c + " COLLATE \"C\")";
      break;
    case KeyType::kUuid:
      h = "uuid_hash(" + c + ")";
      break;
    case KeyType::kBytea:
      h = "hashtext(encode(" + c + ", 'hex') COLLATE \"C\")";
      break;
  }
  return "coalesce(" + h + ", 0)";
}

uint32_t hash_bucket(std::span<const KeyType> types,
                     std::span<const std::optional<KeyValue>> values, uint32_t buckets) {
  assert(buckets > 0 && types.size() == values.size());
  uint32_t h = 0;
  for (size_t i = 0; i < types.size(); ++i) {
    uint32_t u = values[i] ? pg_hash_value(types[i], *values[i]) : 0;
    // Unsigned 32-bit wraparound is the "mod 2^32" of the SQL form.
    h = i == 0 ? u : h * 31 + u;
  }
  return h % buckets;
}

std::string hash_bucket_sql(std::span<const HashColumn> columns, uint32_t buckets) {
  // int4 hashes become unsigned via "& 4294967295" on int8; (h * 31 + u) stays below 2^37,
  // so int8 arithmetic never overflows.
  std::string h;
  for (size_t i = 0; i < columns.size(); ++i) {
    std::string u = "(";
    u.append(hash_column_sql(columns[i].sql, columns[i].type)).append("::int8 & 4294967295)");
    h = i == 0 ? u : "((" + h + " * 31 + " + u + ") % 4294967296)";
  }
  return "(" + h + " % " + std::to_string(buckets) + ")";
}

}  // namespace pgrange::routing
