#include "routing/keys/key_codec.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <random>

#include "routing/keys/key_encoding.hpp"
#include "routing/keys/key_space.hpp"

namespace pgrange::routing {
namespace {

// One random value of a type with everything needed to check it independently of the codec:
// its binary send form and a reference ordering.
struct Sample {
  KeyValue value;
  std::string binary;
  // Reference order for numeric: rank (0 -Inf, 1 finite, 2 +Inf, 3 NaN) and mantissa/scale.
  int rank = 1;
  int64_t mantissa = 0;
  int scale = 0;
};

std::string be(uint64_t v, int n) {
  std::string s;
  for (int i = n - 1; i >= 0; --i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return s;
}

// PostgreSQL's numeric binary form of 0.<digits> x 10^exp (digits without leading zeros).
std::string numeric_binary(bool negative, std::string digits, int64_t exp) {
  if (digits.empty()) return be(0, 2) + be(0, 2) + be(0, 2) + be(0, 2);
  int64_t dscale = std::max<int64_t>(0, static_cast<int64_t>(digits.size()) - exp);
  int64_t pad = ((exp % 4) + 4) % 4;
  pad = pad == 0 ? 0 : 4 - pad;
  digits = std::string(static_cast<size_t>(pad), '0') + digits;
  exp += pad;
  while (digits.size() % 4) digits.push_back('0');
  std::string out = be(digits.size() / 4, 2) + be(static_cast<uint64_t>(exp / 4 - 1), 2) +
                    be(negative ? 0x4000 : 0, 2) + be(static_cast<uint64_t>(dscale), 2);
  for (size_t i = 0; i < digits.size(); i += 4) out += be(std::stoi(digits.substr(i, 4)), 2);
  return out;
}

class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}

  int64_t pick_int(int64_t lo, int64_t hi) {
    // Bias towards the edges and small values, where encodings change width.
    switch (rng_() % 6) {
      case 0:
        return std::uniform_int_distribution<int64_t>(lo, hi)(rng_) % 300;
      case 1:
        return rng_() % 2 ? lo + static_cast<int64_t>(rng_() % 3)
                          : hi - static_cast<int64_t>(rng_() % 3);
      case 2: {
        int shift = static_cast<int>(rng_() % 63);
        int64_t v = static_cast<int64_t>(rng_() % (uint64_t{1} << shift));
        v = rng_() % 2 ? -v : v;
        return std::clamp(v, lo, hi);
      }
      default:
        return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
    }
  }

  std::string pick_string(bool bytes) {
    static const std::vector<std::string> kPieces = {"a", "b", "ab",   "\xc3\xa9", "\xe2\x82\xac",
                                                     "z", " ", "\x01", "\x7f",     "~"};
    std::string s;
    int n = static_cast<int>(rng_() % 6);
    for (int i = 0; i < n; ++i) {
      if (bytes) {
        int r = static_cast<int>(rng_() % 4);
        s.push_back(r == 0 ? '\0' : r == 1 ? '\xff' : static_cast<char>(rng_() % 256));
      } else {
        s += kPieces[rng_() % kPieces.size()];
      }
    }
    return s;
  }

  Sample make(KeyType type) {
    Sample s;
    switch (type) {
      case KeyType::kBool: {
        int64_t b = rng_() % 2;
        s.value = b;
        s.binary = std::string(1, static_cast<char>(b));
        break;
      }
      case KeyType::kInt2:
      case KeyType::kInt4:
      case KeyType::kInt8: {
        int width = type == KeyType::kInt2 ? 2 : type == KeyType::kInt4 ? 4 : 8;
        int64_t lo = width == 8 ? INT64_MIN : -(int64_t{1} << (8 * width - 1));
        int64_t hi = width == 8 ? INT64_MAX : (int64_t{1} << (8 * width - 1)) - 1;
        int64_t v = pick_int(lo, hi);
        s.value = v;
        s.binary = be(static_cast<uint64_t>(v), width);
        break;
      }
      case KeyType::kFloat4:
      case KeyType::kFloat8: {
        double d;
        int r = static_cast<int>(rng_() % 10);
        static const double kSpecial[] = {std::nan(""), -std::nan(""), INFINITY, -INFINITY, 0.0,
                                          -0.0,         1e-310,        -5e-324,  1.5,       -1.5};
        if (r < 3) {
          d = kSpecial[rng_() % 10];
        } else if (r < 6) {
          d = static_cast<double>(pick_int(-1000000, 1000000)) / 64.0;
        } else {
          uint64_t bits = (uint64_t{rng_()} << 32) | rng_();
          d = std::bit_cast<double>(bits);
        }
        if (type == KeyType::kFloat4) {
          auto f = static_cast<float>(d);
          d = f;
          uint32_t u;
          std::memcpy(&u, &f, 4);
          s.binary = be(u, 4);
        } else {
          s.binary = be(std::bit_cast<uint64_t>(d), 8);
        }
        // PostgreSQL's -0 equals 0; the codec keeps the one representation 0.
        s.value = d == 0 ? 0.0 : d;
        break;
      }
      case KeyType::kNumeric: {
        int r = static_cast<int>(rng_() % 12);
        Decimal special;
        if (r == 0 || r == 1 || r == 2) {
          s.rank = r == 0 ? 0 : r == 1 ? 2 : 3;
          special.kind = r == 0   ? Decimal::Kind::kNegInfinity
                         : r == 1 ? Decimal::Kind::kPosInfinity
                                  : Decimal::Kind::kNaN;
          s.value = special;
          s.binary = be(0, 2) + be(0, 2) +
                     be(r == 0   ? 0xF000
                        : r == 1 ? 0xD000
                                 : 0xC000,
                        2) +
                     be(0, 2);
          break;
        }
        s.mantissa = pick_int(-999999999999, 999999999999);
        s.scale = static_cast<int>(rng_() % 17) - 8;
        auto parsed = parse_text_value(KeyType::kNumeric,
                                       std::to_string(s.mantissa) + "e" + std::to_string(-s.scale));
        EXPECT_TRUE(parsed.has_value());
        s.value = *parsed;
        const auto& d = std::get<Decimal>(s.value);
        s.binary = numeric_binary(d.kind == Decimal::Kind::kNegative, d.digits, d.exponent);
        break;
      }
      case KeyType::kText:
      case KeyType::kVarchar:
      case KeyType::kBytea: {
        std::string str = pick_string(type == KeyType::kBytea);
        s.value = str;
        s.binary = str;
        break;
      }
      case KeyType::kBpchar: {
        std::string str = pick_string(false);
        s.binary = str + std::string(rng_() % 3, ' ');
        while (!str.empty() && str.back() == ' ') str.pop_back();
        s.value = str;
        break;
      }
      case KeyType::kUuid: {
        std::string str;
        for (int i = 0; i < 16; ++i) str.push_back(static_cast<char>(rng_() % 4 == 0 ? 0 : rng_()));
        s.value = str;
        s.binary = str;
        break;
      }
      case KeyType::kDate: {
        int64_t v = rng_() % 20 == 0 ? (rng_() % 2 ? INT32_MAX : INT32_MIN)
                                     : pick_int(-2451545, 2145031948);
        s.value = v;
        s.binary = be(static_cast<uint64_t>(v), 4);
        break;
      }
      case KeyType::kTimestamp:
      case KeyType::kTimestamptz: {
        int64_t v = rng_() % 20 == 0 ? (rng_() % 2 ? INT64_MAX : INT64_MIN)
                                     : pick_int(-211813488000000000, 9223371331199999999);
        s.value = v;
        s.binary = be(static_cast<uint64_t>(v), 8);
        break;
      }
    }
    return s;
  }

  std::mt19937& rng() { return rng_; }

 private:
  std::mt19937 rng_;
};

// The reference (PostgreSQL) order of two samples of one type: <0, 0, >0.
int reference_compare(KeyType type, const Sample& a, const Sample& b) {
  switch (value_kind_of(type)) {
    case ValueKind::kFloat: {
      double x = std::get<double>(a.value), y = std::get<double>(b.value);
      if (std::isnan(x) || std::isnan(y)) return std::isnan(x) - std::isnan(y);
      return (x > y) - (x < y);
    }
    case ValueKind::kDecimal: {
      if (a.rank != 1 || b.rank != 1 || a.rank != b.rank) return a.rank - b.rank;
      int s = std::max(a.scale, b.scale);
      __int128 x = a.mantissa, y = b.mantissa;
      for (int i = a.scale; i < s; ++i) x *= 10;
      for (int i = b.scale; i < s; ++i) y *= 10;
      return (x > y) - (x < y);
    }
    case ValueKind::kBytes: {
      const auto& x = std::get<std::string>(a.value);
      const auto& y = std::get<std::string>(b.value);
      int c = x.compare(y);  // std::string compares as unsigned char: memcmp order
      return (c > 0) - (c < 0);
    }
    default: {
      int64_t x = std::get<int64_t>(a.value), y = std::get<int64_t>(b.value);
      return (x > y) - (x < y);
    }
  }
}

int sign(int c) {
  return (c > 0) - (c < 0);
}

bool same_value(const KeyValue& a, const KeyValue& b) {
  if (std::holds_alternative<double>(a) && std::holds_alternative<double>(b)) {
    double x = std::get<double>(a), y = std::get<double>(b);
    return (std::isnan(x) && std::isnan(y)) || x == y;
  }
  return a == b;
}

std::string encode(const KeyColumn& col, const std::optional<KeyValue>& v) {
  std::string k;
  if (v) {
    append_key_value(k, col, *v);
  } else {
    append_key_null(k, col);
  }
  return k;
}

class PerTypeTest : public ::testing::TestWithParam<KeyType> {};

TEST_P(PerTypeTest, ByteOrderMatchesValueOrderAscAndDescWithNulls) {
  const KeyType type = GetParam();
  Gen gen(1234 + static_cast<uint32_t>(type));
  for (bool desc : {false, true}) {
    for (NullsOrder nulls : {NullsOrder::kDefault, NullsOrder::kFirst, NullsOrder::kLast}) {
      KeyColumn col{type, desc, nulls};
      for (int i = 0; i < 3000; ++i) {
        Sample a = gen.make(type), b = gen.make(type);
        std::optional<KeyValue> va = a.value, vb = b.value;
        int expected = sign(reference_compare(type, a, b));
        if (desc) expected = -expected;
        // A NULL on one side: its position is decided by the column's NULL order alone.
        if (gen.rng()() % 10 == 0) {
          va.reset();
          expected = col.nulls_first() ? -1 : 1;
          if (gen.rng()() % 2 == 0) {
            vb.reset();
            expected = 0;
          }
        }
        std::string ka = encode(col, va), kb = encode(col, vb);
        ASSERT_EQ(sign(ka.compare(kb)), expected)
            << key_type_name(type) << " desc=" << desc << " "
            << (va ? format_text_value(type, *va) : "NULL") << " vs "
            << (vb ? format_text_value(type, *vb) : "NULL");
      }
    }
  }
}

TEST_P(PerTypeTest, DecodeOfEncodeIsIdentityAndTextEqualsBinary) {
  const KeyType type = GetParam();
  Gen gen(99 + static_cast<uint32_t>(type));
  for (bool desc : {false, true}) {
    KeyColumn col{type, desc};
    for (int i = 0; i < 3000; ++i) {
      Sample s = gen.make(type);
      std::string k = encode(col, s.value);
      // Trailing bytes of a following column must not be consumed.
      k += "\x89";
      std::string_view in = k;
      auto back = read_key_value(in, col);
      ASSERT_TRUE(back.has_value()) << back.error().message;
      ASSERT_TRUE(back->has_value());
      EXPECT_TRUE(same_value(**back, s.value)) << format_text_value(type, s.value);
      EXPECT_EQ(in, "\x89");
      // Binary send form and PostgreSQL text form encode to the same bytes.
      std::string from_binary, from_text;
      auto rb = append_binary_value(from_binary, col, s.binary);
      ASSERT_TRUE(rb.has_value()) << rb.error().message;
      std::string text = format_text_value(type, s.value);
      auto rt = append_text_value(from_text, col, text);
      ASSERT_TRUE(rt.has_value()) << text << ": " << rt.error().message;
      EXPECT_EQ(from_binary, from_text) << text;
      EXPECT_EQ(from_text + "\x89", k) << text;
      // And the text form decodes back to itself.
      std::string_view again = from_text;
      auto decoded = decode_text_value(again, col);
      ASSERT_TRUE(decoded.has_value());
      EXPECT_EQ(**decoded, text);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, PerTypeTest, ::testing::ValuesIn(kAllKeyTypes),
                         [](const auto& info) { return std::string(key_type_name(info.param)); });

TEST(KeyCodecTest, CompositeKeysSortLexicographically) {
  Gen gen(7);
  for (int round = 0; round < 200; ++round) {
    int ncols = 1 + static_cast<int>(gen.rng()() % 3);
    std::vector<KeyColumn> cols;
    for (int c = 0; c < ncols; ++c) {
      cols.push_back({kAllKeyTypes[gen.rng()() % std::size(kAllKeyTypes)], gen.rng()() % 2 == 0});
    }
    // Few distinct values per column so that equal prefixes are common.
    std::vector<std::vector<Sample>> pools(ncols);
    for (int c = 0; c < ncols; ++c) {
      for (int i = 0; i < 3; ++i) pools[c].push_back(gen.make(cols[c].type));
    }
    for (int i = 0; i < 100; ++i) {
      std::vector<const Sample*> a, b;
      for (int c = 0; c < ncols; ++c) {
        a.push_back(&pools[c][gen.rng()() % 3]);
        b.push_back(&pools[c][gen.rng()() % 3]);
      }
      int expected = 0;
      std::string ka = index_prefix(53, 1), kb = index_prefix(53, 1);
      for (int c = 0; c < ncols; ++c) {
        if (expected == 0) {
          expected = sign(reference_compare(cols[c].type, *a[c], *b[c]));
          if (cols[c].descending) expected = -expected;
        }
        append_key_value(ka, cols[c], a[c]->value);
        append_key_value(kb, cols[c], b[c]->value);
      }
      ASSERT_EQ(sign(ka.compare(kb)), expected);
    }
  }
}

TEST(KeyCodecTest, IntegerVarintBoundaries) {
  std::vector<int64_t> values = {INT64_MIN, -(int64_t{1} << 40),
                                 -65537,    -65536,
                                 -65535,    -257,
                                 -256,      -255,
                                 -1,        0,
                                 1,         108,
                                 109,       110,
                                 255,       256,
                                 65535,     65536,
                                 INT64_MAX};
  std::string prev;
  for (int64_t v : values) {
    std::string k;
    append_varint(k, v);
    EXPECT_LT(prev, k) << v;
    std::string_view in = k;
    auto back = read_varint(in);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, v);
    EXPECT_TRUE(in.empty());
    prev = k;
  }
  std::string small;
  append_uvarint(small, 53);
  EXPECT_EQ(small.size(), 1u);
}

TEST(KeyCodecTest, TextOutputMatchesPostgres) {
  auto text = [](KeyType t, std::string_view in) {
    auto v = parse_text_value(t, in);
    EXPECT_TRUE(v.has_value()) << in;
    return v ? format_text_value(t, *v) : std::string("<error>");
  };
  EXPECT_EQ(text(KeyType::kBool, " yes "), "t");
  EXPECT_EQ(text(KeyType::kBool, "of"), "f");
  EXPECT_EQ(text(KeyType::kInt4, " -2147483648 "), "-2147483648");
  EXPECT_EQ(text(KeyType::kInt8, "-9223372036854775808"), "-9223372036854775808");
  EXPECT_EQ(text(KeyType::kFloat8, "0.1"), "0.1");
  EXPECT_EQ(text(KeyType::kFloat8, "1e15"), "1e+15");
  EXPECT_EQ(text(KeyType::kFloat8, "123456789012345"), "123456789012345");
  EXPECT_EQ(text(KeyType::kFloat8, "0.0001"), "0.0001");
  EXPECT_EQ(text(KeyType::kFloat8, "0.00001234"), "1.234e-05");
  EXPECT_EQ(text(KeyType::kFloat8, "-1e300"), "-1e+300");
  EXPECT_EQ(text(KeyType::kFloat8, "-0"), "0");
  EXPECT_EQ(text(KeyType::kFloat8, "nan"), "NaN");
  EXPECT_EQ(text(KeyType::kFloat8, "-inf"), "-Infinity");
  EXPECT_EQ(text(KeyType::kFloat4, "0.1"), "0.1");
  EXPECT_EQ(text(KeyType::kFloat4, "1000000"), "1e+06");
  EXPECT_EQ(text(KeyType::kFloat4, "123456"), "123456");
  // Shortest digits exactly halfway between two floats are not used (PostgreSQL's Ryu).
  EXPECT_EQ(text(KeyType::kFloat4, "-9.3095696e+07"), "-9.3095696e+07");
  EXPECT_EQ(text(KeyType::kNumeric, "1.00"), "1");
  EXPECT_EQ(text(KeyType::kNumeric, "-0.0"), "0");
  EXPECT_EQ(text(KeyType::kNumeric, "00120.0500"), "120.05");
  EXPECT_EQ(text(KeyType::kNumeric, "1.5e3"), "1500");
  EXPECT_EQ(text(KeyType::kNumeric, "-.5e-2"), "-0.005");
  EXPECT_EQ(text(KeyType::kNumeric, "inf"), "Infinity");
  EXPECT_EQ(text(KeyType::kBpchar, "ab  "), "ab");
  EXPECT_EQ(text(KeyType::kBytea, "\\x01FF"), "\\x01ff");
  EXPECT_EQ(text(KeyType::kBytea, "a\\\\b\\001"), "\\x615c6201");
  EXPECT_EQ(text(KeyType::kUuid, "{A0EEBC99-9C0B4EF8-BB6D6BB9-BD380A11}"),
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
  EXPECT_EQ(text(KeyType::kDate, "2024-01-02"), "2024-01-02");
  EXPECT_EQ(text(KeyType::kDate, "0044-03-15 BC"), "0044-03-15 BC");
  EXPECT_EQ(text(KeyType::kDate, "-infinity"), "-infinity");
  EXPECT_EQ(text(KeyType::kTimestamp, "2024-01-02T03:04:05.123450"), "2024-01-02 03:04:05.12345");
  EXPECT_EQ(text(KeyType::kTimestamp, "2024-02-29 24:00:00"), "2024-03-01 00:00:00");
  EXPECT_EQ(text(KeyType::kTimestamptz, "2024-01-02 03:04:05+02:30"), "2024-01-02 00:34:05+00");
  EXPECT_EQ(text(KeyType::kTimestamptz, "2024-01-01 00:00:00Z"), "2024-01-01 00:00:00+00");
  EXPECT_EQ(text(KeyType::kTimestamptz, "1999-12-31 23:00:00-0100"), "2000-01-01 00:00:00+00");
  EXPECT_EQ(text(KeyType::kTimestamp, "infinity"), "infinity");
  EXPECT_EQ(text(KeyType::kTimestamp, "2024-1-2 3:04:05"), "2024-01-02 03:04:05");
  EXPECT_EQ(text(KeyType::kTimestamptz, "2024-01-02 03:04:05-5"), "2024-01-02 08:04:05+00");
}

TEST(KeyCodecTest, KnownBinaryForms) {
  auto enc_text = [](KeyType t, std::string_view s) {
    std::string k;
    EXPECT_TRUE(append_text_value(k, {t}, s).has_value()) << s;
    return k;
  };
  auto enc_bin = [](KeyType t, std::string_view s) {
    std::string k;
    auto r = append_binary_value(k, {t}, s);
    EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
    return k;
  };
  // numeric 12345.678: ndigits 3, weight 1, sign +, dscale 3, digits 1 2345 6780.
  EXPECT_EQ(enc_bin(KeyType::kNumeric, be(3, 2) + be(1, 2) + be(0, 2) + be(3, 2) + be(1, 2) +
                                           be(2345, 2) + be(6780, 2)),
            enc_text(KeyType::kNumeric, "12345.678"));
  // numeric -0.0001: ndigits 1, weight -1, sign -, dscale 4, digits 1.
  EXPECT_EQ(
      enc_bin(KeyType::kNumeric, be(1, 2) + be(0xffff, 2) + be(0x4000, 2) + be(4, 2) + be(1, 2)),
      enc_text(KeyType::kNumeric, "-0.0001"));
  EXPECT_EQ(enc_bin(KeyType::kDate, be(0, 4)), enc_text(KeyType::kDate, "2000-01-01"));
  EXPECT_EQ(enc_bin(KeyType::kTimestamptz, be(static_cast<uint64_t>(-946684800000000), 8)),
            enc_text(KeyType::kTimestamptz, "1970-01-01 00:00:00+00"));
  EXPECT_EQ(enc_bin(KeyType::kInt4, be(static_cast<uint32_t>(-5), 4)),
            enc_text(KeyType::kInt4, "-5"));
  EXPECT_EQ(enc_bin(KeyType::kBool, std::string(1, '\x02')), enc_text(KeyType::kBool, "true"));
}

TEST(KeyCodecTest, InvalidInputsGiveTheRightSqlstate) {
  struct Case {
    KeyType type;
    std::string_view text;
    std::string_view sqlstate;
  };
  const Case cases[] = {
      {KeyType::kInt4, "abc", "22P02"},
      {KeyType::kInt4, "", "22P02"},
      {KeyType::kInt4, "1.5", "22P02"},
      {KeyType::kInt4, "2147483648", "22003"},
      {KeyType::kInt2, "-32769", "22003"},
      {KeyType::kInt8, "99999999999999999999999", "22003"},
      {KeyType::kBool, "maybe", "22P02"},
      {KeyType::kFloat8, "1e400", "22003"},
      {KeyType::kFloat8, "1e-400", "22003"},
      {KeyType::kFloat4, "1e40", "22003"},
      {KeyType::kFloat8, "1.5x", "22P02"},
      {KeyType::kNumeric, "1.2.3", "22P02"},
      {KeyType::kNumeric, "e5", "22P02"},
      {KeyType::kNumeric, "1e200000", "22003"},
      {KeyType::kUuid, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1", "22P02"},
      {KeyType::kUuid, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}", "22P02"},
      {KeyType::kUuid, "a0eebc999-c0b-4ef8-bb6d-6bb9bd380a11", "22P02"},
      {KeyType::kBytea, "\\x0", "22P02"},
      {KeyType::kBytea, "\\xzz", "22P02"},
      {KeyType::kBytea, "a\\9", "22P02"},
      {KeyType::kDate, "2024-02-30", "22008"},
      {KeyType::kDate, "2024-13-01", "22008"},
      {KeyType::kDate, "01/02/2024", "22007"},
      {KeyType::kDate, "today", "22007"},
      {KeyType::kDate, "5874898-01-01", "22008"},
      {KeyType::kTimestamp, "2024-01-01 25:00:00", "22008"},
      {KeyType::kTimestamp, "2024-01-01 10:00:00.1234567", "22007"},
      {KeyType::kTimestamp, "294277-01-01 00:00:00", "22008"},
      {KeyType::kTimestamp, "2024024-01-02 02:04:05", "22008"},
      {KeyType::kTimestamptz, "999999999-01-02 02:04:05+00", "22008"},
      {KeyType::kTimestamptz, "2024-01-01 10:00:00", "22007"},
      {KeyType::kTimestamptz, "2024-01-01 10:00:00 Europe/Paris", "22007"},
  };
  for (const auto& c : cases) {
    auto r = parse_text_value(c.type, c.text);
    ASSERT_FALSE(r.has_value()) << key_type_name(c.type) << " " << c.text;
    EXPECT_EQ(r.error().sqlstate, c.sqlstate)
        << key_type_name(c.type) << " " << c.text << ": " << r.error().message;
  }
  EXPECT_EQ(parse_binary_value(KeyType::kInt4, "abc").error().sqlstate, "22P03");
  EXPECT_EQ(parse_binary_value(KeyType::kUuid, "abc").error().sqlstate, "22P03");
  EXPECT_EQ(parse_binary_value(KeyType::kNumeric,
                               be(1, 2) + be(0, 2) + be(0, 2) + be(0, 2) + be(10000, 2))
                .error()
                .sqlstate,
            "22P03");
  EXPECT_EQ(
      parse_binary_value(KeyType::kDate, be(static_cast<uint32_t>(2145031949), 4)).error().sqlstate,
      "22008");
}

TEST(KeyCodecTest, DecodingRejectsForeignAndNonCanonicalBytes) {
  std::string k;
  append_key_value(k, {KeyType::kInt8}, int64_t{1} << 40);
  std::string_view in = k;
  EXPECT_FALSE(read_key_value(in, {KeyType::kInt4}).has_value());  // does not fit int4
  EXPECT_EQ(in.size(), k.size());
  in = k;
  EXPECT_FALSE(read_key_value(in, {KeyType::kInt8, true}).has_value());  // wrong direction
  // A two-byte varint holding 5 is not how 5 is written.
  std::string bad = "\xf6\x05";
  in = bad;
  EXPECT_FALSE(read_tagged_value(in).has_value());
  std::string truncated =
      "\x12"
      "abc";
  in = truncated;
  EXPECT_FALSE(read_tagged_value(in).has_value());
}

TEST(KeyCodecTest, TypeNamesAndOids) {
  for (KeyType t : kAllKeyTypes) {
    EXPECT_EQ(*key_type_from_oid(key_type_oid(t)), t);
    EXPECT_EQ(*key_type_from_name(key_type_name(t)), t);
  }
  EXPECT_EQ(*key_type_from_name("Character Varying"), KeyType::kVarchar);
  EXPECT_EQ(*key_type_from_name("timestamp with time zone"), KeyType::kTimestamptz);
  EXPECT_EQ(key_type_from_oid(114).error().sqlstate, "0A000");  // json
  EXPECT_EQ(key_type_oid(KeyType::kUuid), 2950u);
}

TEST(KeySpaceTest, PrefixEndAndKeys) {
  EXPECT_EQ(prefix_end("ab"), "ac");
  EXPECT_EQ(prefix_end("a\xff\xff"), "b");
  EXPECT_EQ(prefix_end(""), kMaxKey);
  EXPECT_EQ(prefix_end("\xff"), kMaxKey);
  EXPECT_LT(table_prefix(UINT64_MAX), kMaxKey);
  EXPECT_EQ(prefix_end(table_prefix(53)), table_prefix(54));
  std::vector<KeyColumn> cols = {{KeyType::kText}, {KeyType::kInt8}};
  std::vector<std::optional<std::string_view>> vals = {"alice", std::nullopt};
  auto k = encode_key_text(53, 2, cols, vals);
  ASSERT_TRUE(k.has_value());
  auto back = decode_key_text(*k, cols);
  ASSERT_TRUE(back.has_value());
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0], "alice");
  EXPECT_FALSE((*back)[1].has_value());
}

}  // namespace
}  // namespace pgrange::routing
