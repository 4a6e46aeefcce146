#include "sql/modifying_with.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pgrange::sql {
namespace {

ModifyingWith split(const std::string& sql) {
  auto m = modifying_with(sql);
  EXPECT_TRUE(m.has_value()) << sql << ": " << (m ? "" : m.error().message);
  EXPECT_TRUE(m && m->has_value()) << sql;
  return m && *m ? **m : ModifyingWith{};
}

TEST(ModifyingWithTest, OtherStatementsAreNotTakenApart) {
  for (const char* sql : {
           "SELECT 1",
           "WITH a AS (SELECT * FROM t) SELECT * FROM a",
           "INSERT INTO t SELECT * FROM u",
           "WITH a AS (SELECT 1) DELETE FROM t WHERE id IN (SELECT * FROM a)",
           "SELECT * FROM (WITH a AS (SELECT 1) SELECT * FROM a) s",
           "not sql at all",
       }) {
    auto m = modifying_with(sql);
    ASSERT_TRUE(m.has_value()) << sql;
    EXPECT_FALSE(m->has_value()) << sql;
  }
}

TEST(ModifyingWithTest, FindsEachCteBodyAndWhatItWrites) {
  ModifyingWith m = split(
      "WITH a AS (SELECT id FROM t WHERE n > 1), \"D\" (x, y) AS NOT MATERIALIZED (DELETE FROM t "
      "WHERE id IN (SELECT id FROM a) RETURNING id, (n)), u AS (UPDATE s SET v = 1) INSERT INTO "
      "arch SELECT x, y FROM \"D\"");
  ASSERT_EQ(m.ctes.size(), 3u);
  EXPECT_EQ(m.ctes[0].name, "a");
  EXPECT_FALSE(m.ctes[0].writes);
  EXPECT_EQ(m.ctes[1].name, "D");
  EXPECT_TRUE(m.ctes[1].writes);
  EXPECT_TRUE(m.ctes[1].returning);
  EXPECT_TRUE(m.ctes[2].writes);
  EXPECT_FALSE(m.ctes[2].returning);
  std::vector<std::string> bodies = m.bodies();
  EXPECT_EQ(bodies[0], "SELECT id FROM t WHERE n > 1");
  EXPECT_EQ(bodies[1], "DELETE FROM t WHERE id IN (SELECT id FROM a) RETURNING id, (n)");
  EXPECT_EQ(bodies[2], "UPDATE s SET v = 1");
  // Each write on its own, with the CTEs it reads before it.
  EXPECT_EQ(*m.cte_statement(1, bodies),
            "WITH a AS (SELECT id FROM t WHERE n > 1) DELETE FROM t WHERE id IN (SELECT id FROM "
            "a) RETURNING id, (n)");
  EXPECT_EQ(*m.cte_statement(2, bodies), "UPDATE s SET v = 1");
  // The statement with the rows in place of the writes.
  bodies[1] = "SELECT 1, 2";
  bodies[2] = "SELECT";
  EXPECT_EQ(m.with_bodies(bodies),
            "WITH a AS (SELECT id FROM t WHERE n > 1), \"D\" (x, y) AS NOT MATERIALIZED (SELECT "
            "1, 2), u AS (SELECT) INSERT INTO arch SELECT x, y FROM \"D\"");
}

TEST(ModifyingWithTest, AWriteReadingAnEarlierWriteGetsItsRows) {
  ModifyingWith m = split(
      "WITH moved AS (DELETE FROM a WHERE k < 5 RETURNING *), ins AS (INSERT INTO b SELECT * FROM "
      "moved RETURNING k) SELECT count(*) FROM ins");
  std::vector<std::string> bodies = m.bodies();
  bodies[0] = "SELECT 1 AS k";
  EXPECT_EQ(*m.cte_statement(1, bodies),
            "WITH moved AS (SELECT 1 AS k) INSERT INTO b SELECT * FROM moved RETURNING k");
  // Through a CTE in between; one it does not read is left out.
  ModifyingWith chain = split(
      "WITH x AS (SELECT 1 AS k), y AS (SELECT k FROM x), z AS (SELECT 2), d AS (DELETE FROM t "
      "WHERE k IN (SELECT k FROM y) RETURNING k) SELECT * FROM d");
  EXPECT_EQ(*chain.cte_statement(3, chain.bodies()),
            "WITH x AS (SELECT 1 AS k), y AS (SELECT k FROM x) DELETE FROM t WHERE k IN (SELECT k "
            "FROM y) RETURNING k");
  // A body with a WITH of its own takes them first in it.
  ModifyingWith nested = split(
      "WITH x AS (SELECT 1 AS k), d AS (WITH w AS (SELECT k FROM x) DELETE FROM t WHERE k "
      "IN (SELECT k FROM w) RETURNING k) SELECT * FROM d");
  EXPECT_EQ(*nested.cte_statement(1, nested.bodies()),
            "WITH x AS (SELECT 1 AS k), w AS (SELECT k FROM x) DELETE FROM t WHERE k IN (SELECT k "
            "FROM w) RETURNING k");
  EXPECT_TRUE(nested.names_cte("SELECT * FROM X", 0));
  EXPECT_FALSE(nested.names_cte("SELECT * FROM \"X\"", 0));
  EXPECT_FALSE(nested.names_cte("SELECT 'x'", 0));
}

TEST(ModifyingWithTest, RowsAreWrittenAsTypedValues) {
  EXPECT_EQ(rows_query({"id", "Name"}, {"integer", "character varying(5)"},
                       {{"1", "it's"}, {"2", std::nullopt}}),
            "SELECT * FROM (VALUES (CAST('1' AS integer), CAST('it''s' AS character "
            "varying(5))), (CAST('2' AS integer), CAST(NULL AS character varying(5)))) AS "
            "pgrange_rows (\"id\", \"Name\")");
  EXPECT_EQ(rows_query({"id"}, {"bigint"}, {}),
            "SELECT CAST(NULL AS bigint) AS \"id\" WHERE false");
}

TEST(ModifyingWithTest, AWithBeforeAnInsertGoesIntoItsQuery) {
  EXPECT_EQ(with_inside_insert("WITH d AS (SELECT 1 AS k) INSERT INTO s.t (k) SELECT k FROM d "
                               "ON CONFLICT DO NOTHING RETURNING k"),
            "INSERT INTO s.t (k) WITH d AS (SELECT 1 AS k) SELECT k FROM d ON CONFLICT DO "
            "NOTHING RETURNING k");
  EXPECT_EQ(with_inside_insert("WITH d AS (SELECT 1) INSERT INTO t AS x OVERRIDING USER VALUE "
                               "(SELECT * FROM d)"),
            "INSERT INTO t AS x OVERRIDING USER VALUE WITH d AS (SELECT 1) (SELECT * FROM d)");
  EXPECT_EQ(with_inside_insert("WITH d AS (SELECT 1) INSERT INTO t VALUES (1)"),
            "INSERT INTO t WITH d AS (SELECT 1) VALUES (1)");
  EXPECT_EQ(with_inside_insert("WITH d AS (SELECT 1) INSERT INTO t DEFAULT VALUES"), std::nullopt);
  EXPECT_EQ(with_inside_insert("INSERT INTO t SELECT 1"), std::nullopt);
  EXPECT_EQ(with_inside_insert("WITH d AS (SELECT 1) SELECT * FROM d"), std::nullopt);
}

TEST(ModifyingWithTest, SearchAndCycleAreRefused) {
  auto m = modifying_with(
      "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SEARCH DEPTH "
      "FIRST BY n SET o, d AS (DELETE FROM t RETURNING *) SELECT * FROM r");
  ASSERT_FALSE(m.has_value());
  EXPECT_EQ(m.error().sqlstate, "0A000");
}

}  // namespace
}  // namespace pgrange::sql
