// Every place of a statement that can hold a relation, with what pgrange must learn of it: the
// relation, the construct it is read through, whether it is written, and the conditions that
// narrow it. One row per statement form; the forms follow libpg_query's node types that hold a
// relation (RangeVar under FROM, JoinExpr, RangeSubselect, RangeTableSample, SubLink,
// CommonTableExpr, InsertStmt, UpdateStmt, DeleteStmt, MergeStmt, CopyStmt, ExplainStmt, …).
#include "sql/relation_uses.hpp"

#include <gtest/gtest.h>
#include <pg_query/pg_query.pb-c.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sql/parse_node.hpp"
#include "sql/statement_info.hpp"
#include "tests/support/statement_file.hpp"

namespace pgrange::sql {
namespace {

std::string render(const Condition& c) {
  using K = Condition::Kind;
  std::string out;
  switch (c.kind) {
    case K::kCompare:
      return c.column + c.op + c.values.front().text;
    case K::kIn:
      out = c.column + " IN(";
      for (size_t i = 0; i < c.values.size(); ++i) out += (i ? "," : "") + c.values[i].text;
      return out + ")";
    case K::kIsNull:
      return c.column + " IS NULL";
    case K::kLike:
      return c.column + " LIKE " + c.values.front().text;
    case K::kAnd:
    case K::kOr:
      out = c.kind == K::kAnd ? "AND(" : "OR(";
      for (size_t i = 0; i < c.children.size(); ++i) {
        out += (i ? "," : "") + render(c.children[i]);
      }
      return out + ")";
    case K::kOpaque:
      return "?";
  }
  return "";
}

/// "name [construct] target writes where …", one line per use.
std::vector<std::string> uses_of(const std::string& sql) {
  auto infos = analyze_statements(sql);
  EXPECT_TRUE(infos) << sql << ": " << (infos ? "" : infos.error().message);
  if (!infos || infos->size() != 1) return {"<not one statement>"};
  const StatementInfo& s = infos->front();
  std::vector<std::string> out;
  if (s.single_table) {
    // The one mention of a single-table statement is tables[0] with its `where`.
    EXPECT_TRUE(s.relations.empty()) << sql;
    std::string line = "single " + s.tables.front().name;
    if (s.where) line += " where " + render(*s.where);
    out.push_back(line);
    return out;
  }
  for (const RelationUse& u : s.relations) {
    std::string line = (u.table.schema.empty() ? "" : u.table.schema + ".") + u.table.name + " [" +
                       u.construct + "]";
    if (u.target) line += " target";
    if (u.writes) line += " writes";
    if (u.where) line += " where " + render(*u.where);
    out.push_back(line);
  }
  return out;
}

struct Case {
  std::string sql;
  std::vector<std::string> uses;
};

TEST(RelationUsesTest, EveryPlaceThatHoldsARelation) {
  const std::vector<Case> cases = {
      // SELECT: FROM, joins of every kind, comma joins.
      {"SELECT * FROM a WHERE id = 1", {"single a where id=1"}},
      {"SELECT * FROM a, b WHERE a.id = 1 AND b.id > 2",
       {"a [JOIN] where AND(id=1,?)", "b [JOIN] where AND(?,id>2)"}},
      {"SELECT * FROM a JOIN b ON a.id = b.id AND b.id = 5 WHERE a.id < 9",
       {"a [JOIN] where AND(?,?,id<9)", "b [JOIN] where AND(?,id=5,?)"}},
      {"SELECT * FROM a LEFT JOIN b ON a.id = b.id AND b.id = 5 WHERE a.id < 9 AND b.id IS NULL",
       {"a [JOIN] where AND(id<9,?)", "b [JOIN] where AND(?,id=5)"}},
      {"SELECT * FROM a RIGHT JOIN b ON a.id = b.id AND a.id = 5 WHERE b.id < 9",
       {"a [JOIN] where AND(?,id=5)", "b [JOIN] where id<9"}},
      {"SELECT * FROM a FULL JOIN b ON a.id = b.id AND a.id = 5 WHERE b.id < 9",
       {"a [JOIN]", "b [JOIN]"}},
      {"SELECT * FROM (a LEFT JOIN b ON b.id = 1) JOIN c ON c.id = 2 WHERE b.id IS NULL",
       {"a [JOIN]", "b [JOIN] where id=1", "c [JOIN] where AND(id=2,?)"}},
      {"SELECT * FROM a AS x JOIN b y USING (id) WHERE x.id = 3 AND y.id = 4 AND a.id = 5",
       {"a [JOIN] where AND(id=3,?,?)", "b [JOIN] where AND(?,id=4,?)"}},
      // Subqueries in every clause.
      {"SELECT (SELECT w FROM b WHERE id = 7) FROM a WHERE id = 1",
       {"b [subquery] where id=7", "a [FROM] where id=1"}},
      {"SELECT * FROM a WHERE id IN (SELECT id FROM b WHERE id BETWEEN 3 AND 4)",
       {"a [FROM]", "b [subquery] where AND(id>=3,id<=4)"}},
      {"SELECT * FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.id = a.id AND b.id = 40)",
       {"a [FROM]", "b [subquery] where AND(?,id=40)"}},
      {"SELECT * FROM a WHERE v = ANY (SELECT w FROM b) OR v > ALL (SELECT w FROM c)",
       {"a [FROM] where OR(?,?)", "b [subquery]", "c [subquery]"}},
      {"SELECT count(*) FROM a GROUP BY v HAVING count(*) > (SELECT count(*) FROM b)",
       {"a [FROM]", "b [subquery]"}},
      {"SELECT * FROM a ORDER BY (SELECT max(id) FROM b) LIMIT (SELECT 1 FROM c)",
       {"a [FROM]", "b [subquery]", "c [subquery]"}},
      {"SELECT * FROM a WHERE id = 1 AND CASE WHEN EXISTS (SELECT FROM b) THEN true END",
       {"a [FROM] where AND(id=1,?)", "b [subquery]"}},
      {"SELECT coalesce((SELECT w FROM b WHERE id = 2), 'x') FROM a",
       {"b [subquery] where id=2", "a [FROM]"}},
      {"SELECT * FROM (SELECT * FROM b WHERE id = 3) s, a WHERE a.id = s.id",
       {"b [subquery in FROM] where id=3", "a [JOIN]"}},
      {"SELECT * FROM a, LATERAL (SELECT * FROM b WHERE b.id = a.id) l",
       {"a [JOIN]", "b [LATERAL]"}},
      {"SELECT * FROM a TABLESAMPLE SYSTEM ((SELECT 1 FROM b)) WHERE id = 2",
       {"a [FROM] where id=2", "b [subquery]"}},
      {"SELECT * FROM generate_series(1, (SELECT max(id) FROM b)) g", {"b [subquery]"}},
      {"SELECT * FROM a WHERE id = 3 FOR UPDATE OF a", {"single a where id=3"}},
      // CTEs: their names are not relations; recursive ones are in scope in their own body.
      {"WITH x AS (SELECT id FROM b WHERE id = 41) SELECT * FROM a, x WHERE a.id = x.id",
       {"b [WITH] where id=41", "a [JOIN]"}},
      {"WITH RECURSIVE r(n) AS (SELECT id FROM b WHERE id = 1 UNION ALL SELECT n + 1 FROM r) "
       "SELECT * FROM r",
       {"b [WITH] where id=1"}},
      {"WITH x AS (SELECT 1) SELECT * FROM public.x", {"public.x [FROM]"}},
      {"SELECT * FROM (WITH b AS (SELECT 1 AS id) SELECT * FROM b) s, b", {"b [JOIN]"}},
      // Set operations.
      {"SELECT id FROM a UNION SELECT id FROM b WHERE id = 2 ORDER BY 1",
       {"a [UNION]", "b [UNION] where id=2"}},
      {"SELECT id FROM a EXCEPT (SELECT id FROM b INTERSECT SELECT id FROM c)",
       {"a [EXCEPT]", "b [EXCEPT]", "c [EXCEPT]"}},
      // INSERT: VALUES with subqueries, SELECT, ON CONFLICT, RETURNING.
      {"INSERT INTO a VALUES (1, (SELECT w FROM b WHERE id = 1))",
       {"a [INSERT] target writes", "b [subquery] where id=1"}},
      {"INSERT INTO a SELECT id, w FROM b WHERE id < 10",
       {"a [INSERT] target writes", "b [INSERT … SELECT] where id<10"}},
      {"INSERT INTO a SELECT * FROM a WHERE id = 1",
       {"a [INSERT] target writes", "a [INSERT … SELECT] where id=1"}},
      {"INSERT INTO a VALUES (1, 'x') ON CONFLICT (id) DO UPDATE SET v = (SELECT w FROM b)",
       {"a [INSERT] target writes", "b [subquery]"}},
      {"INSERT INTO a VALUES (1, 'x') RETURNING (SELECT count(*) FROM b)",
       {"a [INSERT] target writes", "b [subquery]"}},
      // UPDATE: SET, FROM, WHERE, RETURNING.
      {"UPDATE a SET v = 'x' FROM b WHERE a.id = b.id AND b.id < 10",
       {"a [UPDATE] target writes", "b [UPDATE … FROM] where AND(?,id<10)"}},
      {"UPDATE a SET v = (SELECT w FROM b WHERE b.id = a.id) WHERE a.id < 3",
       {"a [UPDATE] target writes where id<3", "b [subquery]"}},
      {"UPDATE a SET v = 'e' WHERE EXISTS (SELECT 1 FROM b WHERE b.id = a.id AND b.id = 40)",
       {"a [UPDATE] target writes", "b [subquery] where AND(?,id=40)"}},
      {"UPDATE a SET v = 'x' WHERE id = 5 RETURNING (SELECT w FROM b WHERE id = 5)",
       {"a [UPDATE] target writes where id=5", "b [subquery] where id=5"}},
      {"UPDATE a SET v = s.w FROM (SELECT * FROM b) s JOIN c ON c.id = 1 WHERE a.id = s.id",
       {"a [UPDATE] target writes", "b [subquery in FROM]", "c [UPDATE … FROM] where AND(id=1,?)"}},
      // DELETE: USING, WHERE, RETURNING.
      {"DELETE FROM a WHERE id IN (SELECT id FROM b WHERE id BETWEEN 30 AND 32)",
       {"a [DELETE] target writes", "b [subquery] where AND(id>=30,id<=32)"}},
      {"DELETE FROM a USING b WHERE a.id = b.id AND b.id = 3",
       {"a [DELETE] target writes", "b [DELETE … USING] where AND(?,id=3)"}},
      {"DELETE FROM a WHERE id = 1 RETURNING (SELECT 1 FROM b LIMIT 1)",
       {"a [DELETE] target writes where id=1", "b [subquery]"}},
      // Data-modifying CTEs write too.
      {"WITH d AS (DELETE FROM b WHERE id = 3 RETURNING *) INSERT INTO a SELECT * FROM d",
       {"b [WITH] writes where id=3", "a [INSERT] target writes"}},
      {"WITH u AS (UPDATE b SET w = 'x' WHERE id = 1 RETURNING id) SELECT * FROM u",
       {"b [WITH] writes where id=1"}},
      {"WITH x AS (SELECT id FROM b WHERE id = 41) UPDATE a SET v = 'c' FROM x WHERE a.id = x.id",
       {"b [WITH] where id=41", "a [UPDATE] target writes"}},
      // MERGE.
      {"MERGE INTO a USING b ON a.id = b.id WHEN MATCHED THEN UPDATE SET v = b.w",
       {"a [MERGE] target writes", "b [MERGE … USING]"}},
      {"MERGE INTO a USING (SELECT * FROM b) s ON a.id = s.id WHEN NOT MATCHED THEN INSERT VALUES "
       "(s.id, (SELECT w FROM c))",
       {"a [MERGE] target writes", "b [subquery in FROM]", "c [subquery]"}},
      // COPY, EXPLAIN and other statements.
      {"COPY (SELECT * FROM a JOIN b USING (id)) TO STDOUT", {"a [JOIN]", "b [JOIN]"}},
      {"EXPLAIN UPDATE a SET v = 'x' FROM b WHERE a.id = b.id",
       {"a [UPDATE] target writes", "b [UPDATE … FROM]"}},
      {"DECLARE c CURSOR FOR SELECT * FROM a JOIN b USING (id)",
       {"a [statement]", "b [statement]"}},
      {"LOCK TABLE a, b", {"a [statement]", "b [statement]"}},
      {"SELECT s.a.v FROM s.a JOIN b ON true WHERE s.a.id = 4",
       {"s.a [JOIN] where AND(?,id=4)", "b [JOIN]"}},
  };
  for (const Case& c : cases) {
    std::vector<std::string> got = uses_of(c.sql);
    if (c.uses == std::vector<std::string>{"<single>"}) {
      ASSERT_FALSE(got.empty()) << c.sql;
      EXPECT_EQ(got.front().rfind("single ", 0), 0u) << c.sql;
      continue;
    }
    EXPECT_EQ(got, c.uses) << c.sql;
  }
}

TEST(RelationUsesTest, FunctionsCalledAnywhereAreListed) {
  auto infos = analyze_statements(
      "UPDATE a SET v = f(v) WHERE id = g.h(2) AND EXISTS (SELECT k(1) FROM b) RETURNING f(1)");
  ASSERT_TRUE(infos);
  std::vector<TableRef> want = {{"", "f"}, {"g", "h"}, {"", "k"}};
  EXPECT_EQ(infos->front().functions, want);
}

/// Every RangeVar under `m` that names a relation a statement reads or writes: not the names
/// of FOR UPDATE OF (FROM items) or of SELECT INTO's new table, nor a CTE's name (any name the
/// statement gives a CTE, unqualified).
void every_range_var(const ProtobufCMessage* m, const std::vector<std::string>& ctes,
                     std::vector<std::string>& out) {
  if (m->descriptor == &pg_query__locking_clause__descriptor ||
      m->descriptor == &pg_query__into_clause__descriptor) {
    return;
  }
  if (m->descriptor == &pg_query__range_var__descriptor) {
    const auto* rv = reinterpret_cast<const PgQuery__RangeVar*>(m);
    bool cte =
        rv->schemaname[0] == '\0' && std::find(ctes.begin(), ctes.end(), rv->relname) != ctes.end();
    if (!cte) out.push_back(std::string(rv->schemaname) + "." + rv->relname);
    return;
  }
  for_each_child(m, [&](const ProtobufCMessage* c) { every_range_var(c, ctes, out); });
}

void cte_names(const ProtobufCMessage* m, std::vector<std::string>& out) {
  if (m->descriptor == &pg_query__common_table_expr__descriptor) {
    out.emplace_back(reinterpret_cast<const PgQuery__CommonTableExpr*>(m)->ctename);
  }
  for_each_child(m, [&](const ProtobufCMessage* c) { cte_names(c, out); });
}

TEST(RelationUsesTest, EveryRelationOfTheDifferentialCorporaIsFound) {
  // Whatever node types hold them, every relation of every statement the differential tests
  // run (thousands, of every shape) is one of its relation uses.
  size_t statements = 0, with_uses = 0;
  for (const char* file : {"/tests/integration/differential/corpus.sql",
                           "/tests/integration/differential_writes/corpus.sql"}) {
    for (const testing::Statement& st :
         testing::read_statements(std::string(PGRANGE_SOURCE_DIR) + file)) {
      if (st.meta) continue;  // the test's own commands
      auto tree = parse_tree(st.sql);
      if (!tree) continue;  // the corpora's own syntax errors
      for (size_t i = 0; i < (*tree)->n_stmts; ++i) {
        const PgQuery__Node* stmt = (*tree)->stmts[i]->stmt;
        std::vector<std::string> ctes, want, got;
        cte_names(&stmt->base, ctes);
        every_range_var(&stmt->base, ctes, want);
        for (const RelationUse& u : relation_uses(stmt))
          got.push_back(u.table.schema + "." + u.table.name);
        std::sort(want.begin(), want.end());
        std::sort(got.begin(), got.end());
        ++statements;
        with_uses += got.empty() ? 0 : 1;
        EXPECT_EQ(got, want) << file << ":" << st.line;
      }
    }
  }
  EXPECT_GT(statements, 1800u);
  EXPECT_GT(with_uses, 1500u);
}

}  // namespace
}  // namespace pgrange::sql
