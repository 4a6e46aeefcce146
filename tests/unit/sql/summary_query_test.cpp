#include "sql/summary_query.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pgrange::sql {
namespace {

/// The text of each summary query of `sql`, and the name its table location points at.
std::vector<std::string> bodies(const std::string& sql) {
  std::vector<std::string> out;
  for (const SummaryQuery& q : summary_queries(sql)) {
    EXPECT_LT(q.begin, q.end) << sql;
    EXPECT_GE(q.table_location, static_cast<int>(q.begin)) << sql;
    EXPECT_LT(q.table_location, static_cast<int>(q.end)) << sql;
    out.push_back(sql.substr(q.begin, q.end - q.begin));
  }
  return out;
}

TEST(SummaryQueryTest, CteBodiesAndDerivedTablesThatReadOneTableAndShrinkIt) {
  using V = std::vector<std::string>;
  EXPECT_EQ(
      bodies("WITH s AS (SELECT c, sum(a) FROM o GROUP BY c) SELECT * FROM u JOIN s ON s.c = u.id"),
      V{"SELECT c, sum(a) FROM o GROUP BY c"});
  EXPECT_EQ(bodies("WITH s(x) AS MATERIALIZED ( SELECT count(*) FROM o ) SELECT * FROM s"),
            V{" SELECT count(*) FROM o "});
  EXPECT_EQ(bodies("SELECT * FROM u JOIN (SELECT c FROM o ORDER BY c LIMIT 5) t ON t.c = u.id"),
            V{"SELECT c FROM o ORDER BY c LIMIT 5"});
  EXPECT_EQ(bodies("SELECT * FROM u, (SELECT DISTINCT c FROM o WHERE a > (1)) t"),
            V{"SELECT DISTINCT c FROM o WHERE a > (1)"});
  // At any depth of queries that read nothing outside themselves, arms of a UNION too.
  EXPECT_EQ(
      bodies("WITH x AS (SELECT * FROM (SELECT c, max(a) FROM o GROUP BY 1) s) SELECT * FROM x"),
      V{"SELECT c, max(a) FROM o GROUP BY 1"});
  EXPECT_EQ(bodies("SELECT * FROM (SELECT max(a) FROM o) a UNION SELECT * FROM (SELECT min(b) "
                   "FROM p) b"),
            (V{"SELECT max(a) FROM o", "SELECT min(b) FROM p"}));
  EXPECT_EQ(bodies("SELECT * FROM u LEFT JOIN ((SELECT c, count(*) FROM o GROUP BY c)) t ON true"),
            V{"SELECT c, count(*) FROM o GROUP BY c"});
}

TEST(SummaryQueryTest, TheStatementsParametersAreSaid) {
  auto found = summary_queries(
      "WITH s AS (SELECT c, sum(a) FROM o WHERE d > $2 GROUP BY c) SELECT * FROM u JOIN s ON "
      "s.c = u.id JOIN (SELECT max(b) FROM p) m ON true WHERE u.x = $1");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_TRUE(found[0].parameters);
  EXPECT_FALSE(found[1].parameters);
}

TEST(SummaryQueryTest, QueriesThatMayReadOutsideThemselvesOrKeepEveryRowAreNot) {
  for (const char* sql : {
           // The statement itself: pgrange's merge or gather of it, not a summary.
           "SELECT c, count(*) FROM o GROUP BY c",
           // LATERAL, and subqueries in expressions, may read the query around them.
           "SELECT * FROM u, LATERAL (SELECT count(*) FROM o WHERE o.c = u.id) l",
           "SELECT (SELECT count(*) FROM o) FROM u",
           "SELECT * FROM u WHERE id IN (SELECT c FROM o GROUP BY c)",
           // A join, a subquery, a function, a WITH of its own, a set operation.
           "SELECT * FROM (SELECT count(*) FROM o JOIN p ON p.id = o.c) t",
           "SELECT * FROM (SELECT count(*) FROM o, p) t",
           "SELECT * FROM (SELECT count(*) FROM o WHERE c IN (SELECT id FROM p)) t",
           "SELECT * FROM (SELECT count(*) FROM generate_series(1, 3)) t",
           "SELECT * FROM (WITH w AS (SELECT 1) SELECT count(*) FROM o) t",
           "SELECT * FROM (SELECT count(*) FROM o UNION SELECT 1) t",
           // ONLY, TABLESAMPLE, FOR UPDATE.
           "SELECT * FROM (SELECT count(*) FROM ONLY o) t",
           "SELECT * FROM (SELECT count(*) FROM o TABLESAMPLE SYSTEM (10)) t",
           "SELECT * FROM (SELECT c FROM o LIMIT 3 FOR UPDATE) t",
           // Every row kept: no GROUP BY, aggregate, DISTINCT or LIMIT.
           "WITH s AS (SELECT c, a FROM o WHERE a > 1) SELECT * FROM s",
           "SELECT * FROM (SELECT c, sum(a) OVER () FROM o) t",
           // Not a SELECT.
           "UPDATE u SET x = 1 FROM (SELECT c, count(*) FROM o GROUP BY c) t WHERE t.c = u.id",
           "not sql",
       }) {
    EXPECT_TRUE(summary_queries(sql).empty()) << sql;
  }
}

}  // namespace
}  // namespace pgrange::sql
