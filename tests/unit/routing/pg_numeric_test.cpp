// Expected texts are PostgreSQL 15's answers to `SELECT (a::numeric / b::numeric)::text`,
// `(a::numeric + b::numeric)::text` and `a::numeric::text`; the oracle test
// (tests/integration/value_order_oracle_test.cpp) checks thousands more against a live server.
#include "routing/keys/pg_numeric.hpp"

#include <gtest/gtest.h>

#include <string>

namespace pgrange::routing {
namespace {

PgNumeric num(std::string_view text) {
  auto n = PgNumeric::parse(text);
  EXPECT_TRUE(n.has_value()) << text;
  return n ? *n : PgNumeric();
}

struct Case {
  const char* a;
  const char* b;
  const char* expected;
};

TEST(PgNumericTest, ParsesAndPrintsLikeNumericInAndOut) {
  const std::pair<const char*, const char*> cases[] = {
      {"-0.000", "0.000"},  {"1.5e3", "1500"},     {"1.50e1", "15.0"},
      {"1.5e-3", "0.0015"}, {" 7 ", "7"},          {"+.5", "0.5"},
      {"5.", "5"},          {"-inf", "-Infinity"}, {"+Infinity", "Infinity"},
      {"nan", "NaN"},       {"0e5", "0"},          {"-12.340", "-12.340"},
  };
  for (const auto& [in, out] : cases) EXPECT_EQ(num(in).to_string(), out) << in;
}

TEST(PgNumericTest, RefusesBadInput) {
  for (const char* bad : {"", " ", ".", "-", "1e", "1.2.3", "1e+", "12a", "0x10", "--1", "1 2"}) {
    auto n = PgNumeric::parse(bad);
    ASSERT_FALSE(n.has_value()) << bad;
    EXPECT_EQ(n.error().sqlstate, "22P02") << bad;
  }
  auto big = PgNumeric::parse("1e200000");
  ASSERT_FALSE(big.has_value());
  EXPECT_EQ(big.error().sqlstate, "22003");
}

TEST(PgNumericTest, DividesLikeNumericDiv) {
  const Case cases[] = {
      {"10", "3", "3.3333333333333333"},
      {"0", "3", "0.00000000000000000000"},
      {"1", "3", "0.33333333333333333333"},
      {"2", "3", "0.66666666666666666667"},
      {"-2", "3", "-0.66666666666666666667"},
      {"1", "7", "0.14285714285714285714"},
      {"123456789012345678901234567890", "7", "17636684144620811271604938270"},
      {"1.00", "3", "0.33333333333333333333"},
      {"0.5", "2", "0.25000000000000000000"},
      {"1", "0.001", "1000.0000000000000000"},
      {"0.00000000000000000001", "3", "0.0000000000000000000033333333333333333333"},
      {"99999999", "10000", "9999.9999000000000000"},
      {"5", "2", "2.5000000000000000"},
      {"-5", "2", "-2.5000000000000000"},
      {"1", "8", "0.12500000000000000000"},
      {"1.5", "1.5", "1.00000000000000000000"},
      {"0.0001", "3", "0.000033333333333333333333"},
      {"7", "0.0003", "23333.333333333333"},
      {"1", "6", "0.16666666666666666667"},
      {"-1", "6", "-0.16666666666666666667"},
      {"9999", "10000", "0.99990000000000000000"},
      {"10000", "9999", "1.0001000100010001"},
      {"1", "10000", "0.000100000000000000000000"},
      {"12345.678901234567890123", "1", "12345.678901234567890123"},
      {"1", "1.000000000000000000001", "0.999999999999999999999"},
      {"NaN", "1", "NaN"},
      {"Infinity", "2", "Infinity"},
      {"-Infinity", "-2", "Infinity"},
      {"1", "Infinity", "0"},
      {"Infinity", "-Infinity", "NaN"},
      {"-Infinity", "0.5", "-Infinity"},
      {"0", "-Infinity", "0"},
      {"NaN", "0", "NaN"},
  };
  for (const auto& c : cases) {
    auto q = num(c.a).divide(num(c.b));
    ASSERT_TRUE(q.has_value()) << c.a << " / " << c.b << ": " << q.error().message;
    EXPECT_EQ(q->to_string(), c.expected) << c.a << " / " << c.b;
  }
}

TEST(PgNumericTest, DivisionByZeroIs22012) {
  for (const char* a : {"1", "0", "Infinity", "-2.5"}) {
    auto q = num(a).divide(num("0.00"));
    ASSERT_FALSE(q.has_value()) << a;
    EXPECT_EQ(q.error().sqlstate, "22012");
    EXPECT_EQ(q.error().message, "division by zero");
  }
}

TEST(PgNumericTest, AddsLikeNumericAdd) {
  const Case cases[] = {
      {"1.5", "2.25", "3.75"},
      {"1.50", "-1.5", "0.00"},
      {"NaN", "1", "NaN"},
      {"Infinity", "-Infinity", "NaN"},
      {"Infinity", "5", "Infinity"},
      {"-Infinity", "-Infinity", "-Infinity"},
      {"99999999999.9999", "0.0001", "100000000000.0000"},
      {"-0.000", "0", "0.000"},
      {"-7.25", "3.125", "-4.125"},
      {"3.125", "-7.25", "-4.125"},
      {"1e3", "0.1", "1000.1"},
      {"-0.5", "0.25", "-0.25"},
      {"NaN", "Infinity", "NaN"},
  };
  for (const auto& c : cases) {
    auto s = num(c.a).add(num(c.b));
    ASSERT_TRUE(s.has_value()) << c.a << " + " << c.b;
    EXPECT_EQ(s->to_string(), c.expected) << c.a << " + " << c.b;
  }
}

TEST(PgNumericTest, ComparesByValue) {
  // Ascending, with equal neighbours marked.
  const std::pair<const char*, bool> sorted[] = {
      {"-Infinity", false}, {"-1e10", false}, {"-2.5", false},  {"-2.49999", false},
      {"-0.001", false},    {"0", false},     {"-0.000", true}, {"0.0001", false},
      {"1", false},         {"1.0", true},    {"1.00", true},   {"1.0000000001", false},
      {"9999", false},      {"10000", false}, {"1e20", false},  {"Infinity", false},
      {"NaN", false},       {"nan", true},
  };
  for (size_t i = 1; i < std::size(sorted); ++i) {
    PgNumeric prev = num(sorted[i - 1].first);
    PgNumeric cur = num(sorted[i].first);
    int expected = sorted[i].second ? 0 : -1;
    EXPECT_EQ(prev.compare(cur), expected) << sorted[i - 1].first << " vs " << sorted[i].first;
    EXPECT_EQ(cur.compare(prev), -expected) << sorted[i].first << " vs " << sorted[i - 1].first;
  }
}

TEST(PgNumericTest, FromInt64) {
  EXPECT_EQ(PgNumeric::from_int64(0).to_string(), "0");
  EXPECT_EQ(PgNumeric::from_int64(-42).to_string(), "-42");
  EXPECT_EQ(PgNumeric::from_int64(INT64_MIN).to_string(), "-9223372036854775808");
  EXPECT_EQ(PgNumeric::from_int64(INT64_MAX).to_string(), "9223372036854775807");
}

TEST(PgNumericTest, LongDivisionAgreesWithMultiplication) {
  // q = round(a / b) at the chosen scale means |a - q*b| <= b/2 in the last place; checked
  // here through a quotient that is exact: (b * k) / b == k for long b and k.
  std::string b = "987654321098765432109876543210987654321";
  std::string k = "123456789123456789123456789";
  // b * k computed by schoolbook multiplication on digit strings.
  std::string prod(b.size() + k.size(), '0');
  for (size_t i = b.size(); i-- > 0;) {
    int carry = 0;
    for (size_t j = k.size(); j-- > 0;) {
      int cur = (prod[i + j + 1] - '0') + (b[i] - '0') * (k[j] - '0') + carry;
      prod[i + j + 1] = static_cast<char>('0' + cur % 10);
      carry = cur / 10;
    }
    prod[i] = static_cast<char>(prod[i] + carry);
  }
  auto q = num(prod).divide(num(b));
  ASSERT_TRUE(q.has_value());
  std::string text = q->to_string();
  ASSERT_EQ(text.substr(0, k.size()), k);
  EXPECT_EQ(text.find_first_not_of('0', k.size() + 1), std::string::npos) << text;
}

}  // namespace
}  // namespace pgrange::routing
