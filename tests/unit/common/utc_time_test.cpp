#include "common/utc_time.hpp"

#include <gtest/gtest.h>

namespace pgrange {
namespace {

TEST(UtcTime, TheThreeStyles) {
  // 2026-12-06 23:10:05.123456 UTC
  auto t = std::chrono::system_clock::time_point(std::chrono::microseconds(1796598605123456LL));
  EXPECT_EQ(utc_time_text(t, UtcStyle::kIsoSeconds), "2026-12-06T23:10:05Z");
  EXPECT_EQ(utc_time_text(t, UtcStyle::kIsoMillis), "2026-12-06T23:10:05.123Z");
  EXPECT_EQ(utc_time_text(t, UtcStyle::kPostgres), "2026-12-06 23:10:05.123456+00");
}

TEST(UtcTime, BeforeTheEpochTheFractionStaysPositive) {
  auto t = std::chrono::system_clock::time_point(std::chrono::microseconds(-1));
  EXPECT_EQ(utc_time_text(t, UtcStyle::kPostgres), "1969-12-31 23:59:59.999999+00");
}

}  // namespace
}  // namespace pgrange
