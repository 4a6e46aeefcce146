#include "routing/ranges/range_load.hpp"

#include <gtest/gtest.h>

namespace pgrange::routing {
namespace {

using std::chrono::seconds;

TEST(RangeLoad, CountsBecomeSmoothedRatesAndIdleRangesFade) {
  RangeLoad load;
  load.add({{7, {100, 20}}, {9, {4, 0}}});
  load.add({{7, {100, 0}}});  // a second worker's
  auto r = load.tick(seconds(2));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].range_id, 7u);
  EXPECT_DOUBLE_EQ(r[0].read_qps, 100);  // 200 reads over 2 s
  EXPECT_DOUBLE_EQ(r[0].write_qps, 10);
  EXPECT_DOUBLE_EQ(r[1].read_qps, 2);
  // The next tick weighs half: 300 reads a second now.
  load.add({{7, {600, 0}}});
  r = load.tick(seconds(2));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_DOUBLE_EQ(r[0].read_qps, 200);
  EXPECT_DOUBLE_EQ(r[0].write_qps, 5);
  EXPECT_DOUBLE_EQ(r[1].read_qps, 1);
  // Nothing more: the rates halve each tick until they are forgotten.
  for (int i = 0; i < 20; ++i) r = load.tick(seconds(2));
  EXPECT_TRUE(r.empty());
}

}  // namespace
}  // namespace pgrange::routing
