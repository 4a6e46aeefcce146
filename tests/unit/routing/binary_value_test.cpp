// binary_value: PostgreSQL's text output of a value turned into its send function's bytes
// (the oracle test checks thousands of values against a real server; these are the shapes).
#include "routing/merge/binary_value.hpp"

#include <gtest/gtest.h>

#include <string>

#include "routing/keys/pg_numeric.hpp"
#include "routing/keys/value_order.hpp"

namespace pgrange::routing {
namespace {

std::string hex(const Result<std::string>& r) {
  if (!r) return "error " + r.error().sqlstate;
  std::string out;
  char buf[3];
  for (unsigned char c : *r) {
    std::snprintf(buf, sizeof buf, "%02x", c);
    out += buf;
  }
  return out;
}

std::string bytes(const std::string& hex_text) {
  std::string out;
  for (size_t i = 0; i + 1 < hex_text.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex_text.substr(i, 2), nullptr, 16)));
  }
  return out;
}

TEST(BinaryValueTest, IntegersBoolsAndStrings) {
  EXPECT_EQ(hex(binary_value(16, "t")), "01");
  EXPECT_EQ(hex(binary_value(16, "f")), "00");
  EXPECT_EQ(hex(binary_value(21, "-2")), "fffe");
  EXPECT_EQ(hex(binary_value(23, "300")), "0000012c");
  EXPECT_EQ(hex(binary_value(20, "-9223372036854775808")), "8000000000000000");
  EXPECT_EQ(hex(binary_value(26, "4294967295")), "ffffffff");
  EXPECT_EQ(hex(binary_value(21, "40000")), "error 0A000");
  EXPECT_EQ(hex(binary_value(23, "1.5")), "error 0A000");
  EXPECT_EQ(hex(binary_value(25, "é")), "c3a9");
  EXPECT_EQ(hex(binary_value(3802, "{}")), "017b7d");
  EXPECT_EQ(hex(binary_value(17, "\\x00ff")), "00ff");
  EXPECT_EQ(hex(binary_value(17, "\\000a\\\\")), "00615c");  // bytea_output escape
  EXPECT_EQ(hex(binary_value(2950, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")),
            "a0eebc999c0b4ef8bb6d6bb9bd380a11");
}

TEST(BinaryValueTest, NumericsAsNumericSendWritesThem) {
  // As PostgreSQL 15 sends them (read from a server).
  EXPECT_EQ(hex(binary_value(1700, "1.5")), "000200000000000100011388");
  EXPECT_EQ(hex(binary_value(1700, "0.000")), "0000000000000003");
  EXPECT_EQ(hex(binary_value(1700, "NaN")), "00000000c0000000");
  EXPECT_EQ(hex(binary_value(1700, "Infinity")), "00000000d0000020");
  EXPECT_EQ(hex(binary_value(1700, "-Infinity")), "00000000f0000020");
  EXPECT_EQ(hex(binary_value(1700, "-10000")),
            "0001000140000000"
            "0001");
  EXPECT_EQ(hex(binary_value(1700, "0.00012")),
            "0002ffff00000005"
            "000107d0");
  EXPECT_EQ(hex(binary_value(1700, "1e5")), "error 0A000");  // numeric_out never writes it
  // And read back: the numeric the bytes hold, at its display scale.
  for (const char* text : {"1.5", "0.000", "-10000", "0.00012", "123456789.000100", "NaN"}) {
    auto b = binary_value(1700, text);
    ASSERT_TRUE(b.has_value()) << text;
    auto n = PgNumeric::from_binary(*b);
    ASSERT_TRUE(n.has_value()) << text;
    EXPECT_EQ(n->to_string(), text);
  }
  EXPECT_FALSE(PgNumeric::from_binary(bytes("0001000000000000")).has_value());      // digit missing
  EXPECT_FALSE(PgNumeric::from_binary(bytes("00010000000000002710")).has_value());  // 10000
  auto order = ValueOrder::for_type(1700, 1);
  ASSERT_TRUE(order.has_value());
  EXPECT_EQ(order->compare(*binary_value(1700, "1.50"), *binary_value(1700, "1.5")), 0);
  EXPECT_LT(order->compare(*binary_value(1700, "-Infinity"), *binary_value(1700, "-1")), 0);
  EXPECT_GT(order->compare(*binary_value(1700, "NaN"), *binary_value(1700, "Infinity")), 0);
}

TEST(BinaryValueTest, FloatsDatesAndTimestamps) {
  EXPECT_EQ(hex(binary_value(701, "0.1")), "3fb999999999999a");
  EXPECT_EQ(hex(binary_value(701, "-0")), "8000000000000000");
  EXPECT_EQ(hex(binary_value(700, "Infinity")), "7f800000");
  EXPECT_EQ(hex(binary_value(1082, "2000-01-02")), "00000001");
  EXPECT_EQ(hex(binary_value(1082, "infinity")), "7fffffff");
  EXPECT_EQ(hex(binary_value(1114, "2000-01-01 00:00:01")), "00000000000f4240");
  EXPECT_EQ(hex(binary_value(1184, "2000-01-01 05:30:01+05:30")), "00000000000f4240");
  EXPECT_EQ(hex(binary_value(1082, "01/02/2000")), "error 0A000");  // DateStyle SQL
}

TEST(BinaryValueTest, OtherTypesAreRefused) {
  for (uint32_t oid : {1186u, 1083u, 790u, 1007u, 12345u}) {
    EXPECT_FALSE(sends_binary(oid)) << oid;
    EXPECT_EQ(hex(binary_value(oid, "1")), "error 0A000") << oid;
  }
  for (uint32_t oid : {16u, 20u, 25u, 700u, 1700u, 1082u, 1184u, 2950u, 3802u}) {
    EXPECT_TRUE(sends_binary(oid)) << oid;
  }
}

}  // namespace
}  // namespace pgrange::routing
