#include "sql/insert_select.hpp"

#include <gtest/gtest.h>

namespace pgrange::sql {
namespace {

TEST(InsertSelect, TakesTheQueryOutAndKeepsTheRest) {
  auto s = read_insert_select(
      "insert into t2 (id, v) select id, v from t1 where v > 3 on conflict (id) do nothing "
      "returning id");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->query, "SELECT id, v FROM t1 WHERE v > 3");
  EXPECT_EQ(s->before_rows, "INSERT INTO t2 (id, v)");
  EXPECT_EQ(s->after_rows, " ON CONFLICT (id) DO NOTHING RETURNING id");
  EXPECT_TRUE(s->returning);

  s = read_insert_select("INSERT INTO s.t OVERRIDING SYSTEM VALUE TABLE other");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->before_rows, "INSERT INTO s.t OVERRIDING SYSTEM VALUE");
  EXPECT_EQ(s->after_rows, "");
  EXPECT_FALSE(s->returning);
  EXPECT_NE(s->query.find("other"), std::string::npos) << s->query;
}

TEST(InsertSelect, OtherStatementsAreNot) {
  EXPECT_FALSE(read_insert_select("INSERT INTO t VALUES (1), (2)"));
  EXPECT_FALSE(read_insert_select("INSERT INTO t DEFAULT VALUES"));
  EXPECT_FALSE(read_insert_select("WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x"));
  EXPECT_FALSE(read_insert_select("SELECT 1"));
  EXPECT_FALSE(read_insert_select("INSERT INTO t SELECT 1; INSERT INTO t SELECT 2"));
}

}  // namespace
}  // namespace pgrange::sql
