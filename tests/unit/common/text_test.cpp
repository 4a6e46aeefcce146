#include "common/text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace pgrange {
namespace {

TEST(Text, ContainsIgnoringCase) {
  EXPECT_TRUE(icontains("ALTER ROLE x PASSWORD 'y'", "password"));
  EXPECT_TRUE(icontains("pass word Password", "password"));
  EXPECT_FALSE(icontains("pass word", "password"));
  EXPECT_FALSE(icontains("", "password"));
  EXPECT_TRUE(icontains("anything", ""));
  // Either case of the first letter, the needle's own case not mattering, at either end.
  EXPECT_TRUE(icontains("INSERT INTO t VALUES (1)", "insert"));
  EXPECT_TRUE(icontains("select 1 into x", "INTO"));
  EXPECT_TRUE(icontains("select 1 inTO", "into"));
  EXPECT_FALSE(icontains("select 1 int", "into"));
  EXPECT_TRUE(icontains("ab", "ab"));
  EXPECT_FALSE(icontains("a", "ab"));
  // A first character that is no letter is matched as it is; letters only fold by ASCII.
  EXPECT_TRUE(icontains("t@I", "@i"));
  EXPECT_FALSE(icontains("t@", "@i"));
  EXPECT_FALSE(icontains("[", "{"));  // '[' | 0x20 is '{': no folding outside A-Z
  // Many near misses of the first character before the match.
  EXPECT_TRUE(icontains(std::string(1000, 'i') + "Insert", "insert"));
  EXPECT_FALSE(icontains(std::string(1000, 'I') + "nser", "insert"));
}

TEST(Text, AsciiLower) {
  EXPECT_EQ(ascii_lower('A'), 'a');
  EXPECT_EQ(ascii_lower('Z'), 'z');
  EXPECT_EQ(ascii_lower('a'), 'a');
  EXPECT_EQ(ascii_lower('@'), '@');
  EXPECT_EQ(ascii_lower('['), '[');
  EXPECT_EQ(ascii_lower('\xc3'), '\xc3');
}

}  // namespace
}  // namespace pgrange
