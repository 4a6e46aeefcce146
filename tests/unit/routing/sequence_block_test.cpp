#include "routing/meta/sequence_block.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace pgrange::routing {
namespace {

/// Every value `calls` nextval() calls would give, taken in blocks of `block`.
std::vector<int64_t> take(SequenceState& s, int calls, int64_t block) {
  std::vector<int64_t> out;
  SequenceCache cache;
  while (static_cast<int>(out.size()) < calls) {
    auto v = cache.next();
    if (!v) {
      auto b = reserve_block(s, block, "s");
      if (!b) break;
      cache.refill(*b);
      continue;
    }
    out.push_back(*v);
  }
  return out;
}

TEST(SequenceBlock, FreshSequenceStartsAtItsStart) {
  SequenceState s;
  s.last_value = 5;
  s.start_value = 5;
  auto b = reserve_block(s, 3, "s");
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, (SequenceBlock{5, 1, 3}));
  EXPECT_EQ(s.last_value, 7);
  EXPECT_TRUE(s.is_called);
  b = reserve_block(s, 2, "s");
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, (SequenceBlock{8, 1, 2}));
}

TEST(SequenceBlock, BlocksGiveWhatNextvalGivesOneByOne) {
  SequenceState a;
  a.increment = 7;
  a.last_value = 3;
  a.min_value = 3;
  a.max_value = 100;
  a.cycle = true;
  SequenceState b = a;
  EXPECT_EQ(take(a, 40, 1), take(b, 40, 6));
}

TEST(SequenceBlock, StopsAtTheMaximumWithoutCycle) {
  SequenceState s;
  s.max_value = 5;
  EXPECT_EQ(take(s, 10, 3), (std::vector<int64_t>{1, 2, 3, 4, 5}));
  auto b = reserve_block(s, 3, "public.t_id_seq");
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().sqlstate, "2200H");
  EXPECT_EQ(b.error().message,
            "nextval: reached maximum value of sequence \"public.t_id_seq\" (5)");
}

TEST(SequenceBlock, CycleWrapsToTheMinimum) {
  SequenceState s;
  s.min_value = 1;
  s.max_value = 3;
  s.cycle = true;
  EXPECT_EQ(take(s, 7, 2), (std::vector<int64_t>{1, 2, 3, 1, 2, 3, 1}));
}

TEST(SequenceBlock, NegativeIncrementCountsDownToTheMinimum) {
  SequenceState s;
  s.increment = -2;
  s.min_value = -5;
  s.max_value = -1;
  s.last_value = -1;
  EXPECT_EQ(take(s, 10, 4), (std::vector<int64_t>{-1, -3, -5}));
  auto b = reserve_block(s, 1, "d");
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().message, "nextval: reached minimum value of sequence \"d\" (-5)");
  s.cycle = true;
  EXPECT_EQ(take(s, 4, 4), (std::vector<int64_t>{-1, -3, -5, -1}));
}

TEST(SequenceBlock, TheEndOfInt64DoesNotOverflow) {
  SequenceState s;
  s.last_value = INT64_MAX - 2;
  s.increment = 2;
  s.max_value = INT64_MAX;
  EXPECT_EQ(take(s, 5, 100), (std::vector<int64_t>{INT64_MAX - 2, INT64_MAX}));
  SequenceState d;
  d.increment = INT64_MIN + 1;
  d.min_value = INT64_MIN;
  d.max_value = 0;
  d.last_value = 0;
  EXPECT_EQ(take(d, 5, 100), (std::vector<int64_t>{0, INT64_MIN + 1}));
}

TEST(SequenceBlock, SetvalChecksTheBoundsAndDecidesTheNextValue) {
  SequenceState s;
  s.max_value = 100;
  auto e = set_value(s, 101, true, "s");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().sqlstate, "22003");
  EXPECT_EQ(e.error().message, "setval: value 101 is out of bounds for sequence \"s\" (1..100)");
  ASSERT_TRUE(set_value(s, 50, true, "s"));
  EXPECT_EQ(take(s, 1, 1), std::vector<int64_t>{51});
  ASSERT_TRUE(set_value(s, 50, false, "s"));
  EXPECT_EQ(take(s, 1, 1), std::vector<int64_t>{50});
}

}  // namespace
}  // namespace pgrange::routing
