#include "routing/ranges/range_load.hpp"

#include <gtest/gtest.h>

namespace pgrange::routing {
namespace {

using std::chrono::seconds;

TEST(RangeLoad, CountsBecomeSmoothedRatesAndIdleRangesFade) {
  RangeLoad load;
  load.add({{7, {100, 20, {}}}, {9, {4, 0, {}}}});
  load.add({{7, {100, 0, {}}}});  // a second worker's
  auto r = load.tick(seconds(2));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].range_id, 7u);
  EXPECT_DOUBLE_EQ(r[0].read_qps, 100);  // 200 reads over 2 s
  EXPECT_DOUBLE_EQ(r[0].write_qps, 10);
  EXPECT_DOUBLE_EQ(r[1].read_qps, 2);
  // The next tick weighs half: 300 reads a second now.
  load.add({{7, {600, 0, {}}}});
  r = load.tick(seconds(2));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_DOUBLE_EQ(r[0].read_qps, 200);
  EXPECT_DOUBLE_EQ(r[0].write_qps, 5);
  EXPECT_DOUBLE_EQ(r[1].read_qps, 1);
  // Nothing more: the rates halve each tick until they are forgotten.
  for (int i = 0; i < 20; ++i) r = load.tick(seconds(2));
  EXPECT_TRUE(r.empty());
}

TEST(RangeLoad, SampledKeysKeepTheLatest) {
  RangeLoad load;
  load.add({{7, {1, 0, {"a", "b"}}}});
  load.add({{7, {1, 0, {"c"}}}});  // another worker's, handed over later
  auto r = load.tick(seconds(1));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].samples, (std::vector<std::string>{"a", "b", "c"}));
  // Past kSamples the oldest go.
  RangeCount more{kSamples, 0, {}};
  for (size_t i = 0; i < kSamples; ++i) more.samples.push_back("k" + std::to_string(i));
  load.add({{7, more}});
  r = load.tick(seconds(1));
  ASSERT_EQ(r[0].samples.size(), kSamples);
  EXPECT_EQ(r[0].samples.front(), "k0");
  EXPECT_EQ(r[0].samples.back(), "k" + std::to_string(kSamples - 1));
  // An idle tick keeps the last keys seen.
  r = load.tick(seconds(1));
  EXPECT_EQ(r[0].samples.back(), "k" + std::to_string(kSamples - 1));
}

}  // namespace
}  // namespace pgrange::routing
