// The sequences below are PostgreSQL 15's `ORDER BY v` of the values (C collation), with
// `v = lag(v)` marking ties; the oracle test checks thousands of random values the same way.
#include "routing/keys/value_order.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace pgrange::routing {
namespace {

struct Item {
  std::string value;
  bool equals_previous = false;
};

void expect_sorted(uint32_t oid, int16_t format, const std::vector<Item>& items) {
  auto order = ValueOrder::for_type(oid, format);
  ASSERT_TRUE(order.has_value()) << type_display_name(oid);
  for (size_t i = 0; i < items.size(); ++i) {
    EXPECT_TRUE(order->valid(items[i].value)) << type_display_name(oid) << " " << items[i].value;
    EXPECT_EQ(order->compare(items[i].value, items[i].value), 0) << items[i].value;
    for (size_t j = i + 1; j < items.size(); ++j) {
      bool tie = true;
      for (size_t k = i + 1; k <= j; ++k) tie = tie && items[k].equals_previous;
      int expected = tie ? 0 : -1;
      EXPECT_EQ(order->compare(items[i].value, items[j].value), expected)
          << type_display_name(oid) << ": " << items[i].value << " vs " << items[j].value;
      EXPECT_EQ(order->compare(items[j].value, items[i].value), -expected)
          << type_display_name(oid) << ": " << items[j].value << " vs " << items[i].value;
    }
  }
}

TEST(ValueOrderTest, Floats) {
  expect_sorted(701, 0,
                {{"-Infinity"},
                 {"-1.5"},
                 {"-1e-310"},
                 {"-0"},
                 {"0", true},
                 {"1e-310"},
                 {"2.5"},
                 {"1e+308"},
                 {"Infinity"},
                 {"NaN"},
                 {"NaN", true}});
  expect_sorted(700, 0,
                {{"-Infinity"},
                 {"-1.5"},
                 {"-0"},
                 {"0", true},
                 {"1e-45"},
                 {"2.5"},
                 {"3.4e+38"},
                 {"Infinity"},
                 {"NaN"}});
}

TEST(ValueOrderTest, Integers) {
  expect_sorted(
      20, 0,
      {{"-9223372036854775808"}, {"-1"}, {"0"}, {"5"}, {"9"}, {"10"}, {"9223372036854775807"}});
  expect_sorted(26, 0, {{"0"}, {"5"}, {"10"}, {"2147483648"}, {"4294967295"}});
  expect_sorted(21, 0, {{"-32768"}, {"-2"}, {"10"}, {"32767"}});
}

TEST(ValueOrderTest, Numeric) {
  expect_sorted(1700, 0,
                {{"-Infinity"},
                 {"-10"},
                 {"-0.5"},
                 {"1.00"},
                 {"1.0", true},
                 {"9.99"},
                 {"10"},
                 {"Infinity"},
                 {"NaN"}});
}

TEST(ValueOrderTest, DatesAndTimestamps) {
  expect_sorted(1082, 0,
                {{"-infinity"},
                 {"0044-03-15 BC"},
                 {"0001-12-31 BC"},
                 {"0001-01-01"},
                 {"1999-12-31"},
                 {"2024-01-02"},
                 {"12345-06-07"},
                 {"infinity"}});
  expect_sorted(1114, 0,
                {{"-infinity"},
                 {"0001-01-01 00:00:00 BC"},
                 {"0001-01-01 00:00:00"},
                 {"2024-01-02 03:04:05"},
                 {"2024-01-02 03:04:05.123456"},
                 {"2024-01-02 03:04:05.5"},
                 {"9999-12-31 23:59:59.999999"},
                 {"10000-01-01 00:00:00"},
                 {"infinity"}});
  // Printed with TimeZone Asia/Kolkata (local mean time +05:53:28 before 1870), plus the
  // same instants printed in other zones.
  expect_sorted(1184, 0,
                {{"-infinity"},
                 {"0100-01-01 05:53:28+05:53:28 BC"},
                 {"1799-12-31 19:03:58-04:56:02"},
                 {"1800-01-01 05:53:28+05:53:28", true},
                 {"2024-01-02 03:04:05.5+05:30"},
                 {"2024-01-02 03:34:05+05:30"},
                 {"2024-01-02 06:04:05-05"},
                 {"2024-01-02 16:34:05+05:30", true},
                 {"infinity"}});
}

TEST(ValueOrderTest, Strings) {
  expect_sorted(25, 0, {{""}, {"B"}, {"a"}, {"ab"}, {"a\x7f"}, {"~"}, {"\xc3\xa9"}});
  expect_sorted(1042, 0, {{""}, {" ", true}, {"a"}, {"a  ", true}, {"a\x01"}, {"a b"}, {"ab"}});
  expect_sorted(17, 0, {{"\\x"}, {"\\x00"}, {"\\x0000"}, {"\\x0a"}, {"\\x0a1b"}, {"\\xff"}});
  expect_sorted(2950, 0,
                {{"00000000-0000-0000-0000-000000000001"},
                 {"0a000000-0000-0000-0000-000000000000"},
                 {"a0000000-0000-0000-0000-000000000000"},
                 {"ffffffff-0000-0000-0000-000000000000"}});
  expect_sorted(16, 0, {{"f"}, {"t"}});
}

std::string big_endian(uint64_t v, int bytes) {
  std::string out;
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>(v >> (8 * i)));
  return out;
}

std::string float8_bytes(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  return big_endian(bits, 8);
}

TEST(ValueOrderTest, BinaryFormat) {
  expect_sorted(23, 1,
                {{big_endian(static_cast<uint32_t>(-5), 4)},
                 {big_endian(0, 4)},
                 {big_endian(7, 4)},
                 {big_endian(0x7fffffff, 4)}});
  expect_sorted(26, 1, {{big_endian(7, 4)}, {big_endian(0x80000000u, 4)}});
  expect_sorted(20, 1,
                {{big_endian(0x8000000000000000ull, 8)},
                 {big_endian(static_cast<uint64_t>(-1), 8)},
                 {big_endian(1, 8)}});
  expect_sorted(701, 1,
                {{float8_bytes(-INFINITY)},
                 {float8_bytes(-0.0)},
                 {float8_bytes(0.0), true},
                 {float8_bytes(1.5)},
                 {float8_bytes(INFINITY)},
                 {float8_bytes(NAN)},
                 {big_endian(0x7ff8000000000001ull, 8), true}});
  // date: days since 2000-01-01, -infinity/infinity as INT32_MIN/INT32_MAX.
  expect_sorted(1082, 1,
                {{big_endian(0x80000000u, 4)},
                 {big_endian(static_cast<uint32_t>(-1), 4)},
                 {big_endian(0, 4)},
                 {big_endian(0x7fffffff, 4)}});
  expect_sorted(17, 1, {{""}, {std::string(1, '\0')}, {std::string(2, '\0')}, {"\xff"}});
  expect_sorted(1042, 1, {{"a"}, {"a  ", true}, {"ab"}});
  expect_sorted(16, 1, {{std::string(1, '\0')}, {"\x01"}});
}

TEST(ValueOrderTest, UnsupportedTypesAndFormats) {
  for (uint32_t oid : {1186u, 114u, 3802u, 790u, 1007u, 1083u, 12345u}) {
    EXPECT_FALSE(ValueOrder::for_type(oid, 0).has_value()) << oid;
    EXPECT_FALSE(ValueOrder::for_type(oid, 1).has_value()) << oid;
  }
  EXPECT_FALSE(ValueOrder::for_type(1700, 2).has_value());
  EXPECT_FALSE(ValueOrder::for_type(23, 2).has_value());
  EXPECT_EQ(type_display_name(1186), "interval");
  EXPECT_EQ(type_display_name(701), "float8");
  EXPECT_EQ(type_display_name(12345), "type 12345");
}

TEST(ValueOrderTest, UnreadableValuesAreInvalidAndSortLastDeterministically) {
  auto date = ValueOrder::for_type(1082, 0);
  ASSERT_TRUE(date.has_value());
  // DateStyle SQL/Postgres/German output.
  for (const char* bad : {"01/02/2024", "Tue Jan 02 2024", "02.01.2024", "", "2024-13-01"}) {
    EXPECT_FALSE(date->valid(bad)) << bad;
    EXPECT_EQ(date->compare("infinity", bad), -1) << bad;
    EXPECT_EQ(date->compare(bad, "2024-01-02"), 1) << bad;
    EXPECT_EQ(date->compare(bad, bad), 0) << bad;
  }
  EXPECT_EQ(date->compare("01/02/2024", "02.01.2024"), -1);
  auto bytea = ValueOrder::for_type(17, 0);
  EXPECT_FALSE(bytea->valid("abc\\000"));  // bytea_output = escape
  EXPECT_FALSE(bytea->valid("\\x0"));
  EXPECT_FALSE(bytea->valid("\\x0A"));
  auto tstz = ValueOrder::for_type(1184, 0);
  EXPECT_FALSE(tstz->valid("2024-01-02 03:04:05"));  // no offset
  EXPECT_FALSE(tstz->valid("Tue Jan 02 03:04:05 2024 PST"));
  auto i4 = ValueOrder::for_type(23, 0);
  EXPECT_FALSE(i4->valid("2147483648"));
  EXPECT_FALSE(i4->valid(" 1"));
  auto i4b = ValueOrder::for_type(23, 1);
  EXPECT_FALSE(i4b->valid("abc"));
  auto uuid = ValueOrder::for_type(2950, 0);
  EXPECT_FALSE(uuid->valid("A0000000-0000-0000-0000-000000000000"));
  auto f8 = ValueOrder::for_type(701, 0);
  EXPECT_FALSE(f8->valid("abc"));
  auto num = ValueOrder::for_type(1700, 0);
  EXPECT_FALSE(num->valid("1,5"));
}

}  // namespace
}  // namespace pgrange::routing
