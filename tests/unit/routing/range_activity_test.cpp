#include "routing/ranges/range_activity.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace pgrange::routing {
namespace {

using Use = RangeActivity::Use;
using std::chrono::milliseconds;
using W = RangeActivity::Waiting;

TEST(RangeActivity, HeldRangesTurnAwayWritesButNotReads) {
  RangeActivity a;
  a.hold(7, true, true);
  EXPECT_TRUE(a.held(7));
  std::vector<Use> write{{7, 1, 0, true, false, "g", "m"}};
  std::vector<Use> read{{7, 1, 0, false, false, "g", "m"}};
  std::vector<Use> mixed{{8, 1, 0, true, false, "m", "t"}, {7, 1, 1, true, false, "g", "m"}};
  EXPECT_FALSE(a.enter(write));
  EXPECT_FALSE(a.enter(mixed));  // all or nothing: range 8 was not entered either
  EXPECT_TRUE(a.wait_idle("m", "t", 0, W::kEveryone, milliseconds(0)));
  EXPECT_TRUE(a.enter(read));
  EXPECT_FALSE(a.wait_idle("g", "m", 0, W::kEveryone, milliseconds(0)));
  EXPECT_TRUE(a.wait_idle("g", "m", 0, W::kWritersAndScans, milliseconds(0)));  // no writers inside
  a.leave(read);
  a.release(7);
  EXPECT_FALSE(a.held(7));
  EXPECT_TRUE(a.enter(write));
  a.leave(write);
}

TEST(RangeActivity, ATransactionAlreadyWritingAHeldRangeGoesOn) {
  // The hold waits for the writers inside to end; turning away their next statement would
  // leave both waiting until the move gave up.
  RangeActivity a;
  std::vector<Use> first{{7, 1, 0, true, false, "g", "m"}};
  ASSERT_TRUE(a.enter(first));
  a.hold(7, true, false);
  std::vector<Use> again{{7, 1, 0, true, false, "g", "m"}};
  EXPECT_TRUE(a.enter(again, first));
  EXPECT_FALSE(a.enter(again));  // another transaction waits
  std::vector<Use> read_only{{7, 1, 0, false, false, "g", "m"}};
  EXPECT_FALSE(a.enter(again, read_only));  // a reader does not hold the move up: it waits
  std::vector<Use> elsewhere{{7, 1, 1, true, false, "g", "m"}};
  EXPECT_FALSE(a.enter(again, elsewhere));  // a write of the range on another shard
  EXPECT_FALSE(a.wait_idle("g", "m", 0, W::kWriters, milliseconds(0)));
  a.leave(again);
  a.leave(first);
  EXPECT_TRUE(a.wait_idle("g", "m", 0, W::kWriters, milliseconds(0)));
  a.hold(7, true, true);
  std::vector<Use> scan{{7, 1, 0, false, true, "g", "m"}};
  std::vector<Use> write{{7, 1, 0, true, false, "g", "m"}};
  EXPECT_FALSE(a.enter(scan, write));  // scans are held: a writer's first scan waits too
  EXPECT_TRUE(a.enter(scan, scan));
  a.leave(scan);
}

TEST(RangeActivity, UsesCountPerShardAndBySpan) {
  RangeActivity a;
  std::vector<Use> on_s0{{3, 1, 0, true, false, "c", "k"}};
  std::vector<Use> on_s1{{3, 1, 1, false, false, "c", "k"}};
  ASSERT_TRUE(a.enter(on_s0));
  ASSERT_TRUE(a.enter(on_s0));
  ASSERT_TRUE(a.enter(on_s1));
  EXPECT_TRUE(a.wait_idle("c", "k", 2, W::kEveryone, milliseconds(0)));  // another shard
  EXPECT_TRUE(a.wait_idle("k", "z", 0, W::kEveryone, milliseconds(0)));  // keys after the span
  EXPECT_TRUE(a.wait_idle("a", "c", 0, W::kEveryone, milliseconds(0)));  // keys before it
  EXPECT_FALSE(a.wait_idle("e", "f", 0, W::kWritersAndScans, milliseconds(0)));  // inside it
  EXPECT_FALSE(a.wait_idle("c", "k", 1, W::kEveryone, milliseconds(0)));
  a.leave(on_s0);
  EXPECT_FALSE(a.wait_idle("c", "k", 0, W::kWritersAndScans, milliseconds(0)));  // one writer left
  a.leave(on_s0);
  EXPECT_TRUE(a.wait_idle("c", "k", 0, W::kWritersAndScans, milliseconds(0)));
  a.leave(on_s1);
  EXPECT_TRUE(a.wait_idle("c", "k", 1, W::kEveryone, milliseconds(0)));
}

TEST(RangeActivity, AUseFromBeforeASplitCountsForThePartThatMoves) {
  RangeActivity a;
  // Entered range 5 = [c, k) at generation 1; then 5 split into [c, f) and 9 = [f, k).
  std::vector<Use> before_split{{5, 1, 0, true, false, "c", "k"}};
  ASSERT_TRUE(a.enter(before_split));
  a.hold(9, true, true);
  EXPECT_FALSE(a.wait_idle("f", "k", 0, W::kWritersAndScans, milliseconds(0)));
  // A writer routed with the new map to the left half is not turned away by range 9's hold.
  std::vector<Use> left{{5, 2, 0, true, false, "c", "f"}};
  EXPECT_TRUE(a.enter(left));
  a.leave(before_split);
  EXPECT_TRUE(a.wait_idle("f", "k", 0, W::kWritersAndScans, milliseconds(0)));
  a.leave(left);
}

TEST(RangeActivity, ScansWaitLikeWritesButPointReadsGoOn) {
  RangeActivity a;
  std::vector<Use> scan{{4, 1, 0, false, true, "c", "k"}};
  std::vector<Use> point{{4, 1, 0, false, false, "c", "k"}};
  ASSERT_TRUE(a.enter(scan));
  EXPECT_FALSE(a.wait_idle("c", "k", 0, W::kWritersAndScans, milliseconds(0)));
  a.leave(scan);
  a.hold(4, true, true);
  EXPECT_FALSE(a.enter(scan));  // a whole-table read would see a half-moved range
  EXPECT_TRUE(a.enter(point));  // one key is on exactly one shard at every moment
  EXPECT_TRUE(a.wait_idle("c", "k", 0, W::kWritersAndScans, milliseconds(0)));
  EXPECT_FALSE(a.wait_idle("c", "k", 0, W::kEveryone, milliseconds(0)));
  a.leave(point);
}

TEST(RangeActivity, AHoldOfWritesOnlyLetsScansInUntilItsCutOver) {
  RangeActivity a;
  std::vector<Use> scan{{4, 1, 0, false, true, "c", "k"}};
  std::vector<Use> write{{4, 1, 0, true, false, "c", "k"}};
  std::vector<Use> scanning_write{{4, 1, 0, true, true, "c", "k"}};
  a.hold(4, true, false);  // the copy is still invisible on the target: whole-table reads go on
  EXPECT_FALSE(a.enter(write));
  EXPECT_FALSE(a.enter(scanning_write));
  ASSERT_TRUE(a.enter(scan));
  EXPECT_TRUE(a.wait_idle("c", "k", 0, W::kWriters, milliseconds(0)));  // no writer inside
  EXPECT_FALSE(a.wait_idle("c", "k", 0, W::kWritersAndScans, milliseconds(0)));
  a.leave(scan);
  a.hold(4, true, true);  // the cut-over: the rows will be on both shards for a moment
  EXPECT_FALSE(a.enter(scan));
  EXPECT_FALSE(a.enter(write));
  // The map gives the range to the target: writes go on there while the source's rows go,
  // whole-table reads still wait (they would see both copies).
  a.hold(4, false, true);
  EXPECT_FALSE(a.held(4));
  EXPECT_TRUE(a.enter(write));
  EXPECT_FALSE(a.enter(scan));
  EXPECT_FALSE(a.enter(scanning_write));
  a.leave(write);
  a.release(4);
  EXPECT_TRUE(a.enter(scan));
  EXPECT_TRUE(a.enter(write));
  a.leave(scan);
  a.leave(write);
}

TEST(RangeActivity, WaitIdleWakesWhenTheLastWriterLeaves) {
  RangeActivity a;
  std::vector<Use> w{{5, 1, 0, true, false, "a", "b"}};
  ASSERT_TRUE(a.enter(w));
  std::atomic<bool> left{false};
  std::thread t([&] {
    std::this_thread::sleep_for(milliseconds(50));
    left = true;
    a.leave(w);
  });
  EXPECT_TRUE(a.wait_idle("a", "b", 0, W::kWritersAndScans, std::chrono::seconds(30)));
  EXPECT_TRUE(left.load());  // it returned because the writer left, not before
  t.join();
}

}  // namespace
}  // namespace pgrange::routing
