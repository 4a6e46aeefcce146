// Each case splits a small set of rows over shards; the expected text is what PostgreSQL 15
// answers for the aggregate over all of the rows (e.g. `SELECT avg(v)::text FROM (VALUES
// (1), (2), (2)) x(v)`). The oracle test checks thousands of random splits against a server.
#include "routing/merge/aggregate_combine.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pgrange::routing {
namespace {

using Partial = std::optional<std::string_view>;

std::optional<std::string> combine(AggregateKind kind, uint32_t oid,
                                   const std::vector<std::pair<Partial, Partial>>& partials) {
  auto c = AggregateCombiner::make(kind, oid, kind == AggregateKind::kAvg ? 20 : 0);
  EXPECT_TRUE(c.has_value()) << (c ? "" : c.error().message);
  if (!c) return "(make failed)";
  for (const auto& [p, n] : partials) {
    auto r = c->add(p, n);
    EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
  }
  auto r = c->result();
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
  return r ? *r : "(result failed)";
}

TEST(AggregateCombineTest, AvgOfIntegers) {
  // rows 1, 2, 2 as (1, 2) | (2) | () -> sum(int4) is int8.
  EXPECT_EQ(combine(AggregateKind::kAvg, 20, {{"3", "2"}, {"2", "1"}, {std::nullopt, "0"}}),
            "1.6666666666666667");
  // rows -1, -1, 1 (int2)
  EXPECT_EQ(combine(AggregateKind::kAvg, 20, {{"-2", "2"}, {"1", "1"}}), "-0.33333333333333333333");
  // rows 9223372036854775807 twice (int8: the shard's sum is numeric)
  EXPECT_EQ(combine(AggregateKind::kAvg, 1700,
                    {{"9223372036854775807", "1"}, {"9223372036854775807", "1"}}),
            "9223372036854775807");
}

TEST(AggregateCombineTest, AvgOfNumeric) {
  // rows 1.5, 2.25, -0.125
  EXPECT_EQ(combine(AggregateKind::kAvg, 1700, {{"1.5", "1"}, {"2.125", "2"}}),
            "1.20833333333333333333");
  // rows 0.000
  EXPECT_EQ(combine(AggregateKind::kAvg, 1700, {{"0.000", "1"}}), "0.00000000000000000000");
  // rows 1.5, NaN, NULL
  EXPECT_EQ(combine(AggregateKind::kAvg, 1700, {{"1.5", "1"}, {"NaN", "1"}}), "NaN");
  // rows 1.5, Infinity
  EXPECT_EQ(combine(AggregateKind::kAvg, 1700, {{"1.5", "1"}, {"Infinity", "1"}}), "Infinity");
  // no rows, or only NULLs
  EXPECT_EQ(combine(AggregateKind::kAvg, 20, {{std::nullopt, "0"}, {std::nullopt, "0"}}),
            std::nullopt);
}

TEST(AggregateCombineTest, SumAndCount) {
  EXPECT_EQ(combine(AggregateKind::kSum, 20, {{"3", {}}, {"2", {}}}), "5");
  EXPECT_EQ(combine(AggregateKind::kSum, 1700, {{"1.5", {}}, {"2.125", {}}}), "3.625");
  EXPECT_EQ(combine(AggregateKind::kSum, 1700,
                    {{"9223372036854775807", {}}, {"9223372036854775807", {}}}),
            "18446744073709551614");
  EXPECT_EQ(combine(AggregateKind::kSum, 1700, {{"1.5", {}}, {"NaN", {}}}), "NaN");
  EXPECT_EQ(combine(AggregateKind::kSum, 20, {{std::nullopt, {}}}), std::nullopt);
  EXPECT_EQ(combine(AggregateKind::kCount, 20, {{"1", {}}, {"0", {}}, {"2", {}}}), "3");
  EXPECT_EQ(combine(AggregateKind::kCount, 20, {}), "0");
}

TEST(AggregateCombineTest, Int8OverflowIsBigintOutOfRange) {
  for (AggregateKind kind : {AggregateKind::kSum, AggregateKind::kCount}) {
    auto c = AggregateCombiner::make(kind, 20);
    ASSERT_TRUE(c.has_value());
    ASSERT_TRUE(c->add("9223372036854775807").has_value());
    auto r = c->add("1");
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().sqlstate, "22003");
    EXPECT_EQ(r.error().message, "bigint out of range");
  }
  auto c = AggregateCombiner::make(AggregateKind::kSum, 20);
  auto bad = c->add("1.5");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().sqlstate, "22P02");
}

TEST(AggregateCombineTest, MinMaxUseThePostgresOrder) {
  EXPECT_EQ(combine(AggregateKind::kMin, 701, {{"2.5", {}}, {"-0", {}}, {"NaN", {}}}), "-0");
  EXPECT_EQ(combine(AggregateKind::kMax, 701, {{"2.5", {}}, {"NaN", {}}, {"Infinity", {}}}), "NaN");
  EXPECT_EQ(combine(AggregateKind::kMax, 1700, {{"9.99", {}}, {"10", {}}, {std::nullopt, {}}}),
            "10");
  // Among equal values the first one added stays.
  EXPECT_EQ(combine(AggregateKind::kMin, 1700, {{"1.0", {}}, {"1.00", {}}}), "1.0");
  EXPECT_EQ(combine(AggregateKind::kMax, 25, {{"a", {}}, {"B", {}}, {"ab", {}}}), "ab");
  EXPECT_EQ(combine(AggregateKind::kMin, 1184,
                    {{"2024-01-02 06:04:05-05", {}}, {"2024-01-02 16:00:00+05:30", {}}}),
            "2024-01-02 16:00:00+05:30");
  EXPECT_EQ(combine(AggregateKind::kMin, 1082, {{std::nullopt, {}}}), std::nullopt);

  auto c = AggregateCombiner::make(AggregateKind::kMin, 1082);
  ASSERT_TRUE(c.has_value());
  auto r = c->add("01/02/2024");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().sqlstate, "0A000");
}

// Float sums are added as PostgreSQL's parallel aggregation combines them (float4pl,
// float8pl), printed as float4out/float8out print them; the expected texts are PostgreSQL 15's
// (`SELECT 0.1::float8 + 0.2::float8` …).
TEST(AggregateCombineTest, FloatSumsAndAveragesCombineAsPostgresCombinesThem) {
  EXPECT_EQ(combine(AggregateKind::kSum, 701, {{"0.1", {}}, {std::nullopt, {}}, {"0.2", {}}}),
            "0.30000000000000004");
  EXPECT_EQ(combine(AggregateKind::kSum, 700, {{"0.1", {}}, {"0.2", {}}}), "0.3");
  EXPECT_EQ(combine(AggregateKind::kSum, 700, {{"12345678", {}}, {"1", {}}}), "1.2345679e+07");
  EXPECT_EQ(combine(AggregateKind::kSum, 701, {{"1e+15", {}}, {"1", {}}}), "1.000000000000001e+15");
  EXPECT_EQ(combine(AggregateKind::kSum, 701, {{"1.5e-05", {}}, {"0", {}}}), "1.5e-05");
  EXPECT_EQ(combine(AggregateKind::kSum, 701, {{"NaN", {}}, {"1", {}}}), "NaN");
  EXPECT_EQ(combine(AggregateKind::kSum, 701, {{"Infinity", {}}, {"-Infinity", {}}}), "NaN");
  EXPECT_EQ(combine(AggregateKind::kSum, 701, {{std::nullopt, {}}}), std::nullopt);
  EXPECT_EQ(combine(AggregateKind::kAvg, 701, {{"0.1", "1"}, {"0.2", "1"}, {std::nullopt, "0"}}),
            "0.15000000000000002");
  EXPECT_EQ(combine(AggregateKind::kAvg, 701, {{std::nullopt, "0"}}), std::nullopt);
  auto avg = AggregateCombiner::make(AggregateKind::kAvg, 701, 20);
  ASSERT_TRUE(avg.has_value());
  EXPECT_EQ(avg->result_oid(), 701u);
  // An infinite sum of finite values is an overflow, as float8pl and float4pl say.
  for (auto [oid, big] : {std::pair<uint32_t, const char*>{701, "1e+308"}, {700, "3e+38"}}) {
    auto c = AggregateCombiner::make(AggregateKind::kSum, oid);
    ASSERT_TRUE(c.has_value());
    ASSERT_TRUE(c->add(big).has_value());
    auto r = c->add(big);
    ASSERT_FALSE(r.has_value()) << oid;
    EXPECT_EQ(r.error().sqlstate, "22003");
    EXPECT_EQ(r.error().message, "value out of range: overflow");
  }
}

TEST(AggregateCombineTest, RefusesWhatCannotBeExact) {
  // Floats printed rounded (extra_float_digits below 1) would be added rounded.
  auto f = AggregateCombiner::make(AggregateKind::kSum, 701, 0, false);
  ASSERT_FALSE(f.has_value());
  EXPECT_EQ(f.error().sqlstate, "0A000");
  EXPECT_EQ(f.error().message,
            "sum() of float8 values across shards is not supported (extra_float_digits is below "
            "1, so the shards print them rounded)");
  auto a = AggregateCombiner::make(AggregateKind::kAvg, 700, 20);
  ASSERT_FALSE(a.has_value());
  EXPECT_NE(a.error().message.find("avg() of float4"), std::string::npos);
  EXPECT_NE(a.error().hint.find("avg(x::float8)"), std::string::npos);
  auto i = AggregateCombiner::make(AggregateKind::kSum, 1186);
  ASSERT_FALSE(i.has_value());
  EXPECT_NE(i.error().message.find("sum() of interval"), std::string::npos);
  EXPECT_FALSE(AggregateCombiner::make(AggregateKind::kMax, 1186).has_value());
  EXPECT_FALSE(AggregateCombiner::make(AggregateKind::kAvg, 1700, 23).has_value());
  EXPECT_FALSE(AggregateCombiner::make(AggregateKind::kCount, 23).has_value());
  // min/max of floats is exact: no addition.
  EXPECT_TRUE(AggregateCombiner::make(AggregateKind::kMax, 700).has_value());
}

TEST(AggregateCombineTest, ResultTypesAndReset) {
  auto avg = AggregateCombiner::make(AggregateKind::kAvg, 20, 20);
  ASSERT_TRUE(avg.has_value());
  EXPECT_EQ(avg->result_oid(), 1700u);
  ASSERT_TRUE(avg->add("3", "2").has_value());
  avg->reset();
  auto r = avg->result();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, std::nullopt);
  ASSERT_TRUE(avg->add("1", "1").has_value());
  EXPECT_EQ(*avg->result(), "1.00000000000000000000");
  EXPECT_EQ(AggregateCombiner::make(AggregateKind::kCount, 20)->result_oid(), 20u);
  EXPECT_EQ(AggregateCombiner::make(AggregateKind::kSum, 1700)->result_oid(), 1700u);
  EXPECT_EQ(AggregateCombiner::make(AggregateKind::kMin, 1082)->result_oid(), 1082u);
}

}  // namespace
}  // namespace pgrange::routing
