#include "common/log_format.hpp"

#include <gtest/gtest.h>

#include <string>

namespace pgrange {
namespace {

std::string escaped(std::string_view s) {
  std::string out;
  append_json_escaped(out, s);
  return out;
}

TEST(LogFormat, EscapesWhatJsonStringsCannotHold) {
  EXPECT_EQ(escaped("plain text"), "plain text");
  EXPECT_EQ(escaped("say \"hi\" \\ there"), "say \\\"hi\\\" \\\\ there");
  EXPECT_EQ(escaped("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(escaped(std::string("nul\0bell\x07", 9)), "nul\\u0000bell\\u0007");
  EXPECT_EQ(escaped("\x7f"), "\\u007f");
}

TEST(LogFormat, KeepsUtf8AndReplacesInvalidBytes) {
  EXPECT_EQ(escaped("Ⅸ café"), "Ⅸ café");
  // A lone continuation byte, a truncated sequence and a byte never valid in UTF-8.
  EXPECT_EQ(escaped("a\x80z"), "a\\ufffdz");
  EXPECT_EQ(escaped("\xe2\x82"), "\\ufffd\\ufffd");
  EXPECT_EQ(escaped("\xff"), "\\ufffd");
}

}  // namespace
}  // namespace pgrange
