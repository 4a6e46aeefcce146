#include "sql/create_as.hpp"

#include <gtest/gtest.h>

namespace pgrange::sql {
namespace {

TEST(CreateAs, MakesTheTableEmptyThenInsertsTheQuery) {
  auto s = read_create_as(
      "create unlogged table if not exists s.t2 (a, b) as select id, v, w from t1 where v > 3");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->create_sql,
            "CREATE UNLOGGED TABLE IF NOT EXISTS s.t2(a, b) AS SELECT id, v, w FROM t1 WHERE v > 3 "
            "WITH NO DATA");
  // No column list: the names only rename the query's first columns.
  EXPECT_EQ(s->insert_sql, "INSERT INTO \"s\".\"t2\" SELECT id, v, w FROM t1 WHERE v > 3");

  s = read_create_as("SELECT count(*) AS n INTO \"Totals\" FROM t1 GROUP BY v");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->create_sql,
            "CREATE TABLE \"Totals\" AS SELECT count(*) AS n FROM t1 GROUP BY v WITH NO DATA");
  EXPECT_EQ(s->insert_sql, "INSERT INTO \"Totals\" SELECT count(*) AS n FROM t1 GROUP BY v");
}

TEST(CreateAs, WithNoDataIsTheCreateAlone) {
  auto s = read_create_as("CREATE TABLE t2 AS TABLE t1 WITH NO DATA");
  ASSERT_TRUE(s);
  EXPECT_NE(s->create_sql.find("WITH NO DATA"), std::string::npos) << s->create_sql;
  EXPECT_EQ(s->insert_sql, "");
}

TEST(CreateAs, OtherStatementsAreNot) {
  EXPECT_FALSE(read_create_as("CREATE MATERIALIZED VIEW m AS SELECT 1"));
  EXPECT_FALSE(read_create_as("CREATE TABLE t AS EXECUTE p(1)"));
  EXPECT_FALSE(read_create_as("CREATE TABLE t (id int)"));
  EXPECT_FALSE(read_create_as("SELECT 1"));
  EXPECT_FALSE(read_create_as("CREATE TABLE a AS SELECT 1; CREATE TABLE b AS SELECT 2"));
}

}  // namespace
}  // namespace pgrange::sql
