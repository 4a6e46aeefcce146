#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "routing/merge/merge_rows.hpp"

namespace pgrange::routing {
namespace {

constexpr uint32_t kInt8Oid = 20;
constexpr uint32_t kTextOid = 25;
constexpr uint32_t kDateOid = 1082;

MergeRow row_of(const RowValues& values) {
  auto row = MergeRow::parse(data_row_body(values), values.size());
  EXPECT_TRUE(row);
  return *row;
}

// Two rows whose abbreviations differ compare as the abbreviations do, for every direction and
// NULL placement, over integers at their extremes, NULLs, unreadable text and dates.
TEST(RowOrder, AbbreviationsOrderRowsAsTheyCompare) {
  const std::vector<ResultField> fields = {{"n", 0, 0, kInt8Oid, 8, -1, 0},
                                           {"d", 0, 0, kDateOid, 4, -1, 0},
                                           {"t", 0, 0, kTextOid, -1, -1, 0}};
  std::vector<MergeRow> rows;
  const std::vector<std::optional<std::string>> ints = {
      "0", "-1", "1", "-9223372036854775808", "9223372036854775807", std::nullopt, "42", "x"};
  const std::vector<std::optional<std::string>> dates = {
      "2024-02-29", "1999-12-31", std::nullopt, "infinity", "-infinity", "4713-01-01 BC"};
  for (size_t i = 0; i < ints.size(); ++i) {
    rows.push_back(row_of({ints[i], dates[i % dates.size()], std::string("t") + char('a' + i)}));
  }
  for (int column : {0, 1}) {
    for (bool descending : {false, true}) {
      for (bool nulls_first : {false, true}) {
        auto order = RowOrder::make(fields, {{column, descending, nulls_first}, {2, false, false}},
                                    "ORDER BY");
        ASSERT_TRUE(order) << order.error().message;
        ASSERT_TRUE(order->abbreviates());
        size_t abbreviated = 0;
        for (const MergeRow& a : rows) {
          for (const MergeRow& b : rows) {
            auto x = order->abbreviation(a);
            auto y = order->abbreviation(b);
            if (!x || !y || *x == *y) continue;
            ++abbreviated;
            int c = order->compare(a, b);
            EXPECT_EQ(*x < *y, c < 0) << "column " << column << (descending ? " DESC" : "")
                                      << (nulls_first ? " NULLS FIRST" : " NULLS LAST");
          }
        }
        EXPECT_GT(abbreviated, rows.size() * 4);
      }
    }
  }
  // A text first key is not abbreviated.
  auto text = RowOrder::make(fields, {{2, false, false}}, "ORDER BY");
  ASSERT_TRUE(text);
  EXPECT_FALSE(text->abbreviates());
  EXPECT_FALSE(text->abbreviation(rows[0]).has_value());
}

}  // namespace
}  // namespace pgrange::routing
