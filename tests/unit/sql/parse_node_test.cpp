// Writing a changed parse tree back as SQL (deparse_tree): what is written must read back as
// the same tree, or a shard runs another statement than pgrange planned.

#include "sql/parse_node.hpp"

#include <gtest/gtest.h>

#include <string>

namespace pgrange::sql {
namespace {

/// The statement written back from its tree, and whether that text reads as the same tree (as
/// deparse_tree left it: AT TIME ZONE spelled as the call it is).
void expect_round_trip(const std::string& sql) {
  auto tree = parse_tree(sql);
  ASSERT_TRUE(tree) << sql;
  auto text = deparse_tree(tree->get());
  ASSERT_TRUE(text) << sql << ": " << text.error().message;
  auto again = parse_tree(*text);
  ASSERT_TRUE(again) << sql << " written as " << *text << ": " << again.error().message;
  ASSERT_EQ((*tree)->n_stmts, (*again)->n_stmts);
  for (size_t i = 0; i < (*tree)->n_stmts; ++i) {
    EXPECT_TRUE(same_tree(&(*tree)->stmts[i]->stmt->base, &(*again)->stmts[i]->stmt->base))
        << sql << "\n  written as: " << *text;
  }
}

TEST(DeparseTest, FunctionsOfSqlSyntaxKeepTheirOperands) {
  // PostgreSQL's grammar turns these into calls of pg_catalog functions; written back inside
  // a cast or an operator, their operands must stay theirs (libpg_query writes AT TIME ZONE
  // without the parentheses it needs).
  for (const char* sql : {
           "SELECT (ts AT TIME ZONE 'UTC')::time FROM t",
           "SELECT (ts AT TIME ZONE 'UTC')::time AS at, count(*) FROM t GROUP BY 1 ORDER BY 1",
           "SELECT CAST(ts AT TIME ZONE 'UTC' AS date) FROM t",
           "SELECT (ts AT TIME ZONE 'UTC') + interval '1 day' FROM t",
           "SELECT (ts AT TIME ZONE z)::text || 'x' FROM t",
           "SELECT ts AT TIME ZONE 'UTC' AT TIME ZONE 'Europe/Paris' FROM t",
           "SELECT (a + b) AT TIME ZONE 'UTC' FROM t",
           "SELECT extract(hour FROM ts)::int % 3 FROM t",
           "SELECT (extract(hour FROM ts AT TIME ZONE 'UTC'))::int FROM t",
           "SELECT substring(name FROM 2 FOR 3)::int FROM t",
           "SELECT (position('a' IN name))::text FROM t",
           "SELECT trim(BOTH 'x' FROM name)::varchar(3) FROM t",
           "SELECT overlay(name PLACING 'ab' FROM 2 FOR 1)::text FROM t",
           "SELECT collation for (name) FROM t",
           "SELECT -(ts AT TIME ZONE 'UTC')::time FROM t",
           "SELECT ((ts AT TIME ZONE 'UTC')::time)::text FROM t WHERE (ts AT TIME ZONE "
           "'UTC')::date > "
           "'2024-01-01'",
       }) {
    expect_round_trip(sql);
  }
}

TEST(DeparseTest, AtTimeZoneIsWrittenAsTheCallItIs) {
  auto tree = parse_tree("SELECT (a + b) AT TIME ZONE 'UTC', (ts AT TIME ZONE z)::time FROM t");
  ASSERT_TRUE(tree);
  auto text = deparse_tree(tree->get());
  ASSERT_TRUE(text);
  EXPECT_EQ(*text,
            "SELECT pg_catalog.timezone('UTC', a + b), pg_catalog.timezone(z, ts)::time FROM t");
}

TEST(DeparseTest, OrdinaryStatementsReadBackTheSame) {
  for (const char* sql : {
           "SELECT a, b::int8, sum(c) FILTER (WHERE d > 1) FROM t WHERE a IN (1, 2) GROUP BY a, b "
           "HAVING count(*) > 2 ORDER BY 1 DESC NULLS LAST LIMIT 5",
           "SELECT x.a, (SELECT max(y.b) FROM y WHERE y.a = x.a) FROM x ORDER BY x.a",
           "SELECT row_number() OVER (PARTITION BY a ORDER BY b ROWS BETWEEN 1 PRECEDING AND "
           "CURRENT ROW) FROM t",
           "INSERT INTO t (a, b) VALUES (1, 'x'), (2, NULL) ON CONFLICT (a) DO UPDATE SET b = "
           "excluded.b RETURNING a",
           "UPDATE t SET b = b || '!' WHERE a BETWEEN 1 AND 9",
       }) {
    expect_round_trip(sql);
  }
}

}  // namespace
}  // namespace pgrange::sql
