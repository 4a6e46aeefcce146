#include "routing/keys/pretty_key.hpp"

#include <gtest/gtest.h>

#include <random>

#include "routing/keys/key_codec.hpp"
#include "routing/keys/key_encoding.hpp"
#include "routing/keys/key_space.hpp"

namespace pgrange::routing {
namespace {

std::string key_of(uint64_t table, uint64_t index,
                   std::vector<std::pair<KeyColumn, std::optional<std::string_view>>> values) {
  std::string k = index_prefix(table, index);
  for (const auto& [col, text] : values) {
    auto r = append_text_value(k, col, text);
    EXPECT_TRUE(r.has_value()) << (text ? *text : "NULL");
  }
  return k;
}

void expect_round_trip(std::string_view key) {
  std::string pretty = pretty_key(key);
  auto back = parse_pretty_key(pretty);
  ASSERT_TRUE(back.has_value()) << pretty << ": " << back.error().message;
  ASSERT_EQ(*back, key) << pretty;
}

TEST(PrettyKeyTest, PrintsCockroachStyleKeys) {
  const KeyColumn i8{KeyType::kInt8}, text{KeyType::kText};
  EXPECT_EQ(pretty_key(key_of(53, 1, {{i8, "4718"}})), "/Table/53/1/4718");
  EXPECT_EQ(pretty_key(key_of(53, 2, {{text, "alice@example.com"}, {i8, "4718"}})),
            "/Table/53/2/\"alice@example.com\"/4718");
  EXPECT_EQ(pretty_key(""), "/Min");
  EXPECT_EQ(pretty_key(kMaxKey), "/Max");
  EXPECT_EQ(pretty_key(table_prefix(53)), "/Table/53");
  EXPECT_EQ(pretty_key(key_of(53, 1, {{i8, std::nullopt}, {{KeyType::kInt8, true}, std::nullopt}})),
            "/Table/53/1/NULL/~NULL");
  EXPECT_EQ(pretty_key(key_of(7, 1,
                              {{{KeyType::kInt4, true}, "-5"},
                               {{KeyType::kFloat8}, "1.5"},
                               {{KeyType::kNumeric}, "-12.50"},
                               {{KeyType::kDate}, "2024-01-02"},
                               {{KeyType::kTimestamp}, "2024-01-02 03:04:05.5"},
                               {{KeyType::kTimestamptz}, "2024-01-02 03:04:05+01"},
                               {{KeyType::kBytea, true}, "\\x00ff2f22"}})),
            "/Table/7/1/~-5/f:1.5/n:-12.5/d:2024-01-02/ts:2024-01-02 03:04:05.5/"
            "tstz:2024-01-02 02:04:05+00/~\"\\x00\\xff\\x2f\\\"\"");
  std::string abc = key_of(53, 1, {{text, "abc"}});
  EXPECT_EQ(pretty_key(prefix_end(abc)), "/Table/53/1/\"abc\"/PrefixEnd");
  EXPECT_EQ(pretty_key(std::string("\x05zz", 3)), "/raw:\"\\x05zz\"");
  // The bound of a span of strings with a prefix (LIKE 'ab%'): a string without its terminator.
  const std::string ab = index_prefix(53, 1) + "\x12" + "ab";
  EXPECT_EQ(pretty_key(ab), "/Table/53/1/prefix:\"ab\"");
  EXPECT_EQ(pretty_key(prefix_end(ab)), "/Table/53/1/prefix:\"ac\"");
  std::string descending = index_prefix(53, 1) + "\x13";
  append_escaped_bytes(descending, "a/b", true);
  descending.resize(descending.size() - 2);
  EXPECT_EQ(pretty_key(descending), "/Table/53/1/~prefix:\"a\\x2fb\"");
  EXPECT_EQ(pretty_key_in_table(key_of(53, 1, {{{KeyType::kInt8}, "7"}}) + "\x12" + "x/y", 53),
            "…/1/7/prefix:\"x\\x2fy\"");
  // A dangling escape (0x00 not followed by 0xff) is no string's start: raw bytes.
  const std::string dangling = index_prefix(53, 1) + std::string(
                                                         "\x12"
                                                         "a\x00",
                                                         3);
  EXPECT_EQ(pretty_key(dangling), "/Table/53/1/raw:\"\\x12a\\x00\"");
  for (const std::string& k :
       {abc, prefix_end(abc), ab, prefix_end(ab), descending, prefix_end(descending), dangling}) {
    expect_round_trip(k);
  }
  EXPECT_FALSE(parse_pretty_key("/Table/53/1/prefix:\"\"").has_value());
  EXPECT_FALSE(parse_pretty_key("/Table/53/1/prefix:\"a\"/1").has_value());
}

TEST(PrettyKeyTest, ShortFormRelativeToTable) {
  EXPECT_EQ(pretty_key_in_table(key_of(53, 1, {{{KeyType::kInt8}, "4718"}}), 53), "…/1/4718");
  EXPECT_EQ(pretty_key_in_table(table_prefix(53), 53), "…/<TableMin>");
  EXPECT_EQ(pretty_key_in_table(table_prefix(54), 53), "…/<TableMax>");
  EXPECT_EQ(pretty_key_in_table(index_prefix(54, 1), 53), "/Table/54/1");
  EXPECT_EQ(pretty_key_in_table(index_prefix(530, 1), 53), "/Table/530/1");
}

TEST(PrettyKeyTest, EveryByteStringRoundTrips) {
  std::mt19937 rng(5);
  const char alphabet[] = {'\x00', '\x01', '\x12', '\x13', '\x20', '\x21', '\x30',
                           '\x31', '\x40', '\x45', '\x50', '\x88', '\x89', '\xf6',
                           '\xfd', '\xfe', '\xff', '"',    '\\',   '/',    'a'};
  for (int i = 0; i < 100000; ++i) {
    std::string k;
    if (rng() % 2) k = index_prefix(rng() % 200, rng() % 3);
    int n = static_cast<int>(rng() % 12);
    for (int j = 0; j < n; ++j) k.push_back(alphabet[rng() % sizeof alphabet]);
    expect_round_trip(k);
    if (HasFatalFailure()) return;
  }
}

TEST(PrettyKeyTest, StructuredKeysPrintWithoutRawBytes) {
  std::mt19937 rng(11);
  const std::vector<std::pair<KeyType, std::vector<std::string_view>>> samples = {
      {KeyType::kInt8, {"0", "-1", "9223372036854775807", "-9223372036854775808"}},
      {KeyType::kFloat8, {"NaN", "-Infinity", "1e-300", "-0.1"}},
      {KeyType::kNumeric, {"NaN", "Infinity", "0", "-1e-300", "123456789.000000001"}},
      {KeyType::kText, {"", "a/b", "\"q\"", "\\", "\xc3\xa9t\xc3\xa9"}},
      {KeyType::kDate, {"infinity", "4714-11-24 BC", "5874897-12-31"}},
      {KeyType::kTimestamp, {"-infinity", "294276-12-31 23:59:59.999999", "0001-01-01 BC"}},
      {KeyType::kTimestamptz, {"2000-01-01 00:00:00Z", "1900-06-01 12:00:00.000001-07"}},
  };
  for (int i = 0; i < 2000; ++i) {
    std::string k = index_prefix(rng() % 1000, 1 + rng() % 3);
    int n = 1 + static_cast<int>(rng() % 3);
    for (int j = 0; j < n; ++j) {
      const auto& [type, values] = samples[rng() % samples.size()];
      KeyColumn col{type, rng() % 2 == 0, rng() % 2 ? NullsOrder::kFirst : NullsOrder::kLast};
      std::optional<std::string_view> v;
      if (rng() % 8) v = values[rng() % values.size()];
      ASSERT_TRUE(append_text_value(k, col, v).has_value());
    }
    std::string pretty = pretty_key(k);
    EXPECT_EQ(pretty.find("raw:"), std::string::npos) << pretty;
    expect_round_trip(k);
    expect_round_trip(prefix_end(k));
  }
}

TEST(PrettyKeyTest, ParseErrors) {
  for (std::string_view bad :
       {"", "Table/53", "/Table", "/Table/x", "/Table/53/1/\"abc", "/Table/53/1/f:abc",
        "/Table/53/1/zz", "/Foo/1", "/Table/53/1/\"\\q\"", "/Table/53/1/d:2024-13-01"}) {
    auto r = parse_pretty_key(bad);
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_EQ(r.error().sqlstate, "22P02") << bad;
  }
}

}  // namespace
}  // namespace pgrange::routing
