#include "sql/insert_rows.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pgrange::sql {
namespace {

TEST(InsertRows, KeepsTheRowsGivenAndEverythingElse) {
  std::vector<size_t> rows = {2, 0};
  auto r = insert_with_rows(
      "insert into t (id, name) values (1, 'a'), (2, 'b'), (3, $1) "
      "on conflict (id) do update set name = excluded.name returning id",
      rows);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(*r,
            "INSERT INTO t (id, name) VALUES (3, $1), (1, 'a') ON CONFLICT (id) DO UPDATE SET "
            "name = excluded.name RETURNING id");
}

TEST(InsertRows, RefusesWhatIsNotInsertValues) {
  std::vector<size_t> rows = {0};
  auto r = insert_with_rows("insert into t select * from u", rows);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().sqlstate, "0A000");
  r = insert_with_rows("update t set a = 1", rows);
  ASSERT_FALSE(r.has_value());
  r = insert_with_rows("insert into t values (1)", std::vector<size_t>{1});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().sqlstate, "XX000");
}

// The rows cut out of the text give the statement the parse tree gives: the same tree.
TEST(InsertRows, RowsCutOutOfTheTextAreTheRowsOfTheParseTree) {
  struct Case {
    std::string sql;
    std::vector<size_t> rows;
  };
  const std::vector<Case> cases = {
      {"insert into t (id, name) values (1, 'a'), (2, 'b'), (3, $1) "
       "on conflict (id) do update set name = excluded.name returning id",
       {2, 0}},
      // Parentheses, commas and keywords inside literals, quoted names, dollar quotes, comments.
      {"INSERT INTO \"T(\" VALUES ('a), (b', 1), /* ), ( */ ($$)$$, (2 + 3) * 4), "
       "(E'\\')', ((1)))  -- VALUES ( \n RETURNING *",
       {1, 2}},
      {"WITH w AS (VALUES (1), (2)) INSERT INTO t (a) OVERRIDING SYSTEM VALUE "
       "VALUES ((SELECT max(column1) FROM w)), (ARRAY[(1), (2)]), (ROW(1, (2))) ;",
       {0, 2, 1}},
      {"insert into t values (1)", {0}},
  };
  for (const Case& c : cases) {
    auto spans = values_row_spans(c.sql);
    ASSERT_TRUE(spans.has_value()) << c.sql;
    auto cut = insert_with_row_spans(c.sql, *spans, c.rows);
    std::vector<size_t> all(c.rows.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    auto expected = insert_with_rows(c.sql, c.rows);
    auto cut_tree = insert_with_rows(cut, all);
    ASSERT_TRUE(expected.has_value()) << c.sql << ": " << expected.error().message;
    ASSERT_TRUE(cut_tree.has_value()) << cut << ": " << cut_tree.error().message;
    EXPECT_EQ(*cut_tree, *expected) << cut;
  }
  // Rows the scan cannot place: the parse tree writes them.
  for (const char* sql :
       {"insert into t (values (1), (2))", "insert into t select 1", "select 1",
        "with x as (insert into t values (1) returning *) select * from x", "values (1), (2)"}) {
    EXPECT_FALSE(values_row_spans(sql).has_value()) << sql;
  }
}

}  // namespace
}  // namespace pgrange::sql
