#include "routing/range_activity.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace pgrange::routing {
namespace {

using Use = RangeActivity::Use;

TEST(RangeActivity, HeldRangesTurnAwayWritesButNotReads) {
  RangeActivity a;
  a.hold(7);
  EXPECT_TRUE(a.held(7));
  std::vector<Use> write{{7, 0, true}};
  std::vector<Use> read{{7, 0, false}};
  std::vector<Use> mixed{{8, 0, true}, {7, 1, true}};
  EXPECT_FALSE(a.enter(write));
  EXPECT_FALSE(a.enter(mixed));  // all or nothing: range 8 was not entered either
  EXPECT_TRUE(a.wait_idle(8, 0, false, std::chrono::milliseconds(0)));
  EXPECT_TRUE(a.enter(read));
  EXPECT_FALSE(a.wait_idle(7, 0, false, std::chrono::milliseconds(0)));
  EXPECT_TRUE(a.wait_idle(7, 0, true, std::chrono::milliseconds(0)));  // no writers inside
  a.leave(read);
  a.release(7);
  EXPECT_FALSE(a.held(7));
  EXPECT_TRUE(a.enter(write));
  a.leave(write);
}

TEST(RangeActivity, UsesCountPerRangeAndShard) {
  RangeActivity a;
  std::vector<Use> on_s0{{3, 0, true}};
  std::vector<Use> on_s1{{3, 1, false}};
  ASSERT_TRUE(a.enter(on_s0));
  ASSERT_TRUE(a.enter(on_s0));
  ASSERT_TRUE(a.enter(on_s1));
  EXPECT_TRUE(a.wait_idle(3, 2, false, std::chrono::milliseconds(0)));
  EXPECT_FALSE(a.wait_idle(3, 1, false, std::chrono::milliseconds(0)));
  a.leave(on_s0);
  EXPECT_FALSE(a.wait_idle(3, 0, true, std::chrono::milliseconds(0)));  // one writer left
  a.leave(on_s0);
  EXPECT_TRUE(a.wait_idle(3, 0, true, std::chrono::milliseconds(0)));
  a.leave(on_s1);
  EXPECT_TRUE(a.wait_idle(3, 1, false, std::chrono::milliseconds(0)));
}

TEST(RangeActivity, WaitIdleWakesWhenTheLastWriterLeaves) {
  RangeActivity a;
  std::vector<Use> w{{5, 0, true}};
  ASSERT_TRUE(a.enter(w));
  std::atomic<bool> left{false};
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    left = true;
    a.leave(w);
  });
  EXPECT_TRUE(a.wait_idle(5, 0, true, std::chrono::seconds(30)));
  EXPECT_TRUE(left.load());  // it returned because the writer left, not before
  t.join();
}

}  // namespace
}  // namespace pgrange::routing
