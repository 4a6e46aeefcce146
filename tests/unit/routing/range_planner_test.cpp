#include "routing/moves/range_planner.hpp"

#include <gtest/gtest.h>

namespace pgrange::routing {
namespace {

using Kind = RangeDecision::Kind;
using std::chrono::seconds;

RangeManagerSettings settings() {
  RangeManagerSettings s;
  s.range_max_bytes = 1000;
  s.split_qps = 100;
  s.merge_delay = seconds(30);
  return s;
}

/// Range `id` of table 1 over [start, end) on `shard`.
ManagedRange range(uint64_t id, std::string start, std::string end, std::string shard) {
  ManagedRange m;
  m.range =
      RangeDescriptor{id, std::move(start), std::move(end), std::move(shard), 1, std::nullopt};
  m.table_id = 1;
  m.table = "t";
  return m;
}

std::string key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "k%04d", i);
  return buf;
}

TEST(LoadSplitKey, HalvesSpreadLoadAndRefusesLoadThatStaysAtOneEnd) {
  std::string why;
  // Keys spread over the range, in no order: split near the middle.
  std::vector<std::string> spread;
  for (int i = 0; i < 64; ++i) spread.push_back(key((i * 37) % 64));
  auto k = load_split_key(spread, "k", "l", why);
  ASSERT_TRUE(k) << why;
  EXPECT_GT(*k, key(20));
  EXPECT_LT(*k, key(44));
  // Keys that keep increasing (an insert-only, sequential key): the newer half is past any key
  // the older one gives.
  std::vector<std::string> increasing;
  for (int i = 0; i < 64; ++i) increasing.push_back(key(i));
  EXPECT_FALSE(load_split_key(increasing, "k", "l", why));
  EXPECT_NE(why.find("increasing"), std::string::npos) << why;
  std::vector<std::string> decreasing(increasing.rbegin(), increasing.rend());
  EXPECT_FALSE(load_split_key(decreasing, "k", "l", why));
  EXPECT_NE(why.find("decreasing"), std::string::npos) << why;
  // One key: nothing to split.
  EXPECT_FALSE(load_split_key(std::vector<std::string>(64, key(5)), "k", "l", why));
  EXPECT_NE(why.find("one key"), std::string::npos) << why;
  // Too few keys, or keys outside the range (sampled before a split), say nothing yet.
  EXPECT_FALSE(load_split_key({key(1), key(2)}, "k", "l", why));
  EXPECT_FALSE(load_split_key(spread, "m", "n", why));
  EXPECT_EQ(why, "too few sampled keys yet");
}

TEST(RangePlanner, SplitsTooBigAndTooBusyRangesFirst) {
  RangePlanner p(settings());
  auto big = range(1, "a", "b", "s1");
  big.measured_bytes = 1500;
  big.rows = 10;
  auto busy = range(2, "b", "c", "s1");
  busy.qps = 500;
  for (int i = 0; i < 64; ++i) busy.samples.push_back("b" + key((i * 37) % 64));
  auto estimated = range(3, "c", "d", "s1");
  estimated.estimated_bytes = 5000;  // not measured: never split on an estimate
  const auto t0 = RangePlanner::Clock::now();
  // A range seen for the first time (just split, say) is not split by load: its rate still
  // counts what its other half took.
  auto first = p.plan({big, busy, estimated}, {"s1", "s2"}, t0);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].kind, Kind::kSplitBySize);
  auto decisions = p.plan({big, busy, estimated}, {"s1", "s2"}, t0 + seconds(7));
  ASSERT_EQ(decisions.size(), 2u);
  EXPECT_EQ(decisions[0].kind, Kind::kSplitBySize);
  EXPECT_EQ(decisions[0].range_id, 1u);
  EXPECT_NE(decisions[0].reason.find("range_max_mb"), std::string::npos);
  EXPECT_EQ(decisions[1].kind, Kind::kSplitByLoad);
  EXPECT_EQ(decisions[1].range_id, 2u);
  EXPECT_GT(decisions[1].split_key, "b");
  EXPECT_LT(decisions[1].split_key, "c");
  EXPECT_NE(decisions[1].reason.find("split_qps"), std::string::npos);
  // auto_split off: no splits; the load on one shard moves instead.
  RangeManagerSettings off = settings();
  off.auto_split = false;
  RangePlanner q(off);
  auto moves = q.plan({big, busy}, {"s1", "s2"}, RangePlanner::Clock::now());
  for (const RangeDecision& d : moves) EXPECT_EQ(d.kind, Kind::kMove);
}

TEST(RangePlanner, ABusyRangeWhoseKeysIncreaseIsKeptAndSaysWhy) {
  RangePlanner p(settings());
  auto busy = range(2, "b", "c", "s1");
  busy.qps = 500;
  for (int i = 0; i < 64; ++i) busy.samples.push_back("b" + key(i));
  const auto t0 = RangePlanner::Clock::now();
  EXPECT_TRUE(p.plan({busy}, {"s1"}, t0).empty());
  auto decisions = p.plan({busy}, {"s1"}, t0 + seconds(7));
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].kind, Kind::kKeep);
  EXPECT_NE(decisions[0].reason.find("increasing"), std::string::npos);
}

TEST(RangePlanner, SmallColdNeighboursMergeAfterTheDelayOnly) {
  RangePlanner p(settings());
  auto t0 = RangePlanner::Clock::now();
  auto a = range(1, "a", "b", "s1");
  auto b = range(2, "b", "c", "s1");
  auto c = range(3, "c", "d", "s2");  // another shard: b is merged first
  auto d = range(4, "d", "e", "s2");
  d.kept_split = true;  // SPLIT AT's: kept
  for (ManagedRange* r : {&a, &b, &c, &d}) r->estimated_bytes = 100;
  EXPECT_TRUE(p.plan({a, b, c, d}, {"s1", "s2"}, t0).empty());
  EXPECT_TRUE(p.plan({a, b, c, d}, {"s1", "s2"}, t0 + seconds(29)).empty());
  auto decisions = p.plan({a, b, c, d}, {"s1", "s2"}, t0 + seconds(31));
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].kind, Kind::kMerge);
  EXPECT_EQ(decisions[0].range_id, 1u);
  EXPECT_EQ(decisions[0].other_range_id, 2u);
  EXPECT_NE(decisions[0].reason.find("merge_delay_s 30"), std::string::npos);

  // Warm for one look: the wait starts again.
  RangePlanner q(settings());
  EXPECT_TRUE(q.plan({a, b}, {"s1"}, t0).empty());
  auto warm = b;
  warm.qps = 30;  // with a, over a quarter of split_qps
  EXPECT_TRUE(q.plan({a, warm}, {"s1"}, t0 + seconds(20)).empty());
  EXPECT_TRUE(q.plan({a, b}, {"s1"}, t0 + seconds(40)).empty());
  EXPECT_EQ(q.plan({a, b}, {"s1"}, t0 + seconds(71)).size(), 1u);

  // A new split (b's span changed) is young: not merged before merge_delay.
  RangePlanner r(settings());
  EXPECT_TRUE(r.plan({a, b}, {"s1"}, t0).empty());
  auto b2 = b;
  b2.range.generation = 2;
  b2.range.end_key = "bm";
  auto b3 = range(5, "bm", "c", "s1");
  b3.estimated_bytes = 100;
  EXPECT_TRUE(r.plan({a, b2, b3}, {"s1"}, t0 + seconds(31)).empty());
  // Too big together, or the first range of a table: never.
  RangePlanner s(settings());
  auto big = b;
  big.estimated_bytes = 450;
  auto first = b;
  first.table_start = true;
  EXPECT_TRUE(s.plan({a, big}, {"s1"}, t0).empty());
  EXPECT_TRUE(s.plan({a, big}, {"s1"}, t0 + seconds(100)).empty());
  EXPECT_TRUE(s.plan({a, first}, {"s1"}, t0 + seconds(200)).empty());
  EXPECT_TRUE(s.plan({a, first}, {"s1"}, t0 + seconds(300)).empty());
  // A table's last range and a global index's first: never (not one relation's).
  RangePlanner u(settings());
  auto entries = range(6, "b", "c", "s1");
  entries.index_id = 2;
  entries.estimated_bytes = 100;
  EXPECT_TRUE(u.plan({a, entries}, {"s1"}, t0).empty());
  EXPECT_TRUE(u.plan({a, entries}, {"s1"}, t0 + seconds(300)).empty());
}

TEST(RangePlanner, NeighboursOnTwoShardsComeTogetherThenMerge) {
  RangePlanner p(settings());
  auto t0 = RangePlanner::Clock::now();
  auto a = range(1, "a", "b", "s1");
  auto b = range(2, "b", "c", "s2");
  auto c = range(3, "c", "d", "s3");
  auto d = range(4, "d", "e", "s1");
  a.estimated_bytes = 150;
  b.estimated_bytes = 50;  // the smaller of a and b: it moves
  c.estimated_bytes = 20;
  d.estimated_bytes = 20;
  EXPECT_TRUE(p.plan({a, b, c, d}, {"s1", "s2", "s3"}, t0).empty());
  EXPECT_TRUE(p.plan({a, b, c, d}, {"s1", "s2", "s3"}, t0 + seconds(29)).empty());
  auto decisions = p.plan({a, b, c, d}, {"s1", "s2", "s3"}, t0 + seconds(31));
  // One move per look (b to a's shard); c and d wait for a later look.
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].kind, Kind::kMoveToMerge);
  EXPECT_EQ(decisions[0].range_id, 2u);
  EXPECT_EQ(decisions[0].other_range_id, 1u);
  EXPECT_EQ(decisions[0].target, "s1");
  EXPECT_NE(decisions[0].reason.find("to merge with range 1 on shard s1"), std::string::npos)
      << decisions[0].reason;
  // Moved (a new generation, the same span): still small and cold since t0, merged at once;
  // the move of c or d comes in the same look's turn after the merge, not before.
  auto moved = b;
  moved.range.shard = "s1";
  moved.range.generation = 2;
  decisions = p.plan({a, moved, c, d}, {"s1", "s2", "s3"}, t0 + seconds(32));
  ASSERT_FALSE(decisions.empty());
  EXPECT_EQ(decisions[0].kind, Kind::kMerge);
  EXPECT_EQ(decisions[0].range_id, 1u);
  EXPECT_EQ(decisions[0].other_range_id, 2u);
  // A shard not answering (or draining) is neither left nor joined.
  RangePlanner q(settings());
  EXPECT_TRUE(q.plan({c, d}, {"s1"}, t0).empty());
  EXPECT_TRUE(q.plan({c, d}, {"s1"}, t0 + seconds(100)).empty());
  // Too big together: never.
  RangePlanner r(settings());
  a.estimated_bytes = 480;
  EXPECT_TRUE(r.plan({a, b}, {"s1", "s2"}, t0).empty());
  EXPECT_TRUE(r.plan({a, b}, {"s1", "s2"}, t0 + seconds(100)).empty());
}

TEST(RangePlanner, MovesEvenOutLoadThenSizeWithAMargin) {
  RangePlanner p(settings());
  auto now = RangePlanner::Clock::now();
  auto a = range(1, "a", "b", "s1");
  auto b = range(2, "b", "c", "s1");
  auto c = range(3, "c", "d", "s2");
  a.qps = 90;
  b.qps = 80;
  c.qps = 10;
  auto decisions = p.plan({a, b, c}, {"s1", "s2", "s3"}, now);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].kind, Kind::kMove);
  EXPECT_EQ(decisions[0].target, "s3");  // the shard with no load at all (a new one)
  EXPECT_EQ(decisions[0].range_id, 1u);  // closest to half the gap of 170
  EXPECT_NE(decisions[0].reason.find("evening out load"), std::string::npos);
  // Within the margin: nothing moves.
  a.qps = 52;
  b.qps = 0;
  c.qps = 48;
  EXPECT_TRUE(p.plan({a, b, c}, {"s1", "s2"}, now).empty());
  // A move that would only swap the imbalance (the range is most of the gap) is not made.
  a.qps = 100;
  c.qps = 0;
  EXPECT_TRUE(p.plan({a, c}, {"s1", "s2"}, now).empty());
  // Size: a cold range goes where there is less.
  a.qps = b.qps = c.qps = 0;
  a.estimated_bytes = 800;
  b.estimated_bytes = 700;
  c.estimated_bytes = 100;
  decisions = p.plan({a, b, c}, {"s1", "s2"}, now);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].kind, Kind::kMove);
  EXPECT_EQ(decisions[0].range_id, 2u);  // 700 is nearer half of the 1,400 gap than 800
  EXPECT_EQ(decisions[0].target, "s2");
  EXPECT_NE(decisions[0].reason.find("evening out size"), std::string::npos);
  // A range whose move was refused is not tried again (until it changes).
  p.forget_moves_of(b.range);
  decisions = p.plan({a, b, c}, {"s1", "s2"}, now);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].range_id, 1u);
  // rebalance off: nothing moves.
  RangeManagerSettings off = settings();
  off.rebalance = false;
  RangePlanner q(off);
  EXPECT_TRUE(q.plan({a, b, c}, {"s1", "s2"}, now).empty());
}

}  // namespace
}  // namespace pgrange::routing
