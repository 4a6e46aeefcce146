#include "sql/index_query.hpp"

#include <gtest/gtest.h>

namespace pgrange::sql {
namespace {

TEST(IndexQueryTest, ReferencedColumns) {
  auto use = referenced_columns(
      "SELECT u.name, count(*) FROM users u WHERE email = 'x' GROUP BY u.name ORDER BY 1");
  ASSERT_TRUE(use) << use.error().message;
  EXPECT_FALSE(use->star);
  EXPECT_EQ(use->columns, (std::vector<std::string>{"name", "email"}));
  auto star = referenced_columns("SELECT * FROM users WHERE email = 'x'");
  ASSERT_TRUE(star);
  EXPECT_TRUE(star->star);
  auto qualified = referenced_columns("SELECT u.* FROM users u");
  ASSERT_TRUE(qualified);
  EXPECT_TRUE(qualified->star);
  // Not a SELECT on one table: not for an index read.
  EXPECT_FALSE(referenced_columns("SELECT 1 FROM a, b"));
  EXPECT_FALSE(referenced_columns("DELETE FROM a"));
}

TEST(IndexQueryTest, RestrictSelectAndsTheConditionToTheWhere) {
  // The statement's text stays as it is written; the condition is ANDed as one operand.
  auto r = restrict_select("SELECT id FROM u WHERE name = 'a' AND id > 3", "(x >= 1) AND (x <= 2)");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, "SELECT id FROM u WHERE (name = 'a' AND id > 3) AND ((x >= 1) AND (x <= 2))");
  auto none = restrict_select("SELECT id FROM u ORDER BY id LIMIT 3", "(id) IN (('1'), ('2'))");
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_EQ(*none, "SELECT id FROM u WHERE ((id) IN (('1'), ('2'))) ORDER BY id LIMIT 3");
  auto either = restrict_select("SELECT id FROM u WHERE a OR b", "false");
  ASSERT_TRUE(either);
  EXPECT_EQ(*either, "SELECT id FROM u WHERE (a OR b) AND (false)");
  // Each clause that ends the WHERE (or the FROM list), at the statement's top level only.
  for (auto [sql, want] : std::vector<std::pair<std::string, std::string>>{
           {"SELECT city, count(*) FROM u WHERE x = 1 GROUP BY city HAVING count(*) > 1",
            "SELECT city, count(*) FROM u WHERE (x = 1) AND (k) GROUP BY city HAVING count(*) > 1"},
           {"select * from u where x in (select y from v where z = 1 order by y limit 1) "
            "order by x offset 2 fetch first 1 rows only",
            "select * from u where (x in (select y from v where z = 1 order by y limit 1)) AND (k) "
            "order by x offset 2 fetch first 1 rows only"},
           {"SELECT * FROM u WHERE x = 1 FOR UPDATE",
            "SELECT * FROM u WHERE (x = 1) AND (k) FOR UPDATE"},
           {"SELECT *, row_number() OVER w FROM u WINDOW w AS (ORDER BY x)",
            "SELECT *, row_number() OVER w FROM u WHERE (k) WINDOW w AS (ORDER BY x)"},
           {"SELECT a IS DISTINCT FROM b, percentile_cont(0.5) WITHIN GROUP (ORDER BY a) FROM u "
            "GROUP BY a, b",
            "SELECT a IS DISTINCT FROM b, percentile_cont(0.5) WITHIN GROUP (ORDER BY a) FROM u "
            "WHERE (k) GROUP BY a, b"},
           {"WITH c AS (SELECT 1 FROM v WHERE true ORDER BY 1) SELECT x FROM u, c WHERE x = $1;",
            "WITH c AS (SELECT 1 FROM v WHERE true ORDER BY 1) SELECT x FROM u, c WHERE (x = $1) "
            "AND (k);"},
           // A trailing comment stays after what is added.
           {"SELECT x FROM u WHERE x = 'a -- b' -- the end",
            "SELECT x FROM u WHERE (x = 'a -- b') AND (k) -- the end"},
           {"SELECT x FROM \"order\" /* c */ ORDER BY x",
            "SELECT x FROM \"order\" WHERE (k) /* c */ ORDER BY x"},
       }) {
    auto got = restrict_select(sql, "k");
    ASSERT_TRUE(got) << sql << ": " << got.error().message;
    EXPECT_EQ(*got, want) << sql;
  }
  // Not a SELECT on one table's rows: not restricted.
  EXPECT_FALSE(restrict_select("SELECT 1 UNION SELECT x FROM u", "k"));
  EXPECT_FALSE(restrict_select("(SELECT x FROM u) ORDER BY x", "k"));
  EXPECT_FALSE(restrict_select("DELETE FROM u", "k"));
  EXPECT_FALSE(restrict_select("SELECT 1", "k"));
  EXPECT_FALSE(restrict_select("SELECT x FROM u WHERE", "k"));
  EXPECT_FALSE(restrict_select("SELECT 'open", "k"));
}

TEST(IndexQueryTest, ReferencedColumnsAreTheSameForEveryTextOfAShape) {
  for (int round = 0; round < 2; ++round) {  // the second round is answered by the shape
    for (std::string v : {"'a'", "'b'", "7"}) {
      auto use = referenced_columns("SELECT name FROM users WHERE email = " + v);
      ASSERT_TRUE(use);
      EXPECT_EQ(use->columns, (std::vector<std::string>{"name", "email"}));
    }
    auto other = referenced_columns("SELECT city FROM users WHERE email = 'a'");
    ASSERT_TRUE(other);
    EXPECT_EQ(other->columns, (std::vector<std::string>{"city", "email"}));
    EXPECT_FALSE(referenced_columns("SELECT 1 FROM a, b"));
  }
}

TEST(IndexQueryTest, SelectFromRelationKeepsTheTableName) {
  auto r = select_from_relation("SELECT city FROM users WHERE users.email = 'x'", "public",
                                "users@users_email");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, "SELECT city FROM public.\"users@users_email\" users WHERE users.email = 'x'");
  auto aliased = select_from_relation("SELECT u.city FROM users AS u", "app", "users@i");
  ASSERT_TRUE(aliased);
  EXPECT_EQ(*aliased, "SELECT u.city FROM app.\"users@i\" u");
}

}  // namespace
}  // namespace pgrange::sql
