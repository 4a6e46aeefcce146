#include "sql/statement_info.hpp"

#include <gtest/gtest.h>

#include "sql/where_condition.hpp"

namespace pgrange::sql {
namespace {

using Kind = StatementKind;
using VK = ValueRef::Kind;

std::vector<StatementInfo> analyze_ok(std::string_view sql) {
  auto r = analyze_statements(sql);
  EXPECT_TRUE(r) << sql << ": " << (r ? "" : r.error().message);
  return r ? *r : std::vector<StatementInfo>{};
}

StatementInfo one(std::string_view sql) {
  auto all = analyze_ok(sql);
  EXPECT_EQ(all.size(), 1u) << sql;
  return all.empty() ? StatementInfo{} : all.front();
}

TableRef t(std::string name, std::string schema = {}) {
  return TableRef{std::move(schema), std::move(name)};
}

ValueRef cnst(std::string text, std::string cast = {}) {
  ValueRef v;
  v.kind = VK::kConst;
  v.text = std::move(text);
  v.cast_type = std::move(cast);
  return v;
}

ValueRef param(int n, std::string cast = {}) {
  ValueRef v;
  v.kind = VK::kParam;
  v.param = n;
  v.cast_type = std::move(cast);
  return v;
}

ValueRef null_value(std::string cast = {}) {
  ValueRef v;
  v.kind = VK::kNull;
  v.cast_type = std::move(cast);
  return v;
}

ValueRef sum(std::vector<ValueRef> terms, std::vector<bool> subtracted, std::string cast = {}) {
  ValueRef v;
  v.kind = VK::kSum;
  for (size_t i = 0; i < terms.size(); ++i) terms[i].subtracted = subtracted[i];
  v.terms = std::move(terms);
  v.cast_type = std::move(cast);
  return v;
}

using Eq = std::pair<std::string, ValueRef>;

TEST(StatementInfo, EmptyAndCommentsOnly) {
  EXPECT_TRUE(analyze_ok("").empty());
  EXPECT_TRUE(analyze_ok("   ").empty());
  EXPECT_TRUE(analyze_ok("-- just a comment\n").empty());
  EXPECT_TRUE(analyze_ok("/* block */ ;;").empty());
}

TEST(StatementInfo, WhatPostgresRefusesInsideATransactionBlock) {
  // The words of PostgreSQL's 25001 message for each (PreventInTransactionBlock).
  std::vector<std::pair<std::string, std::string>> cases = {
      {"CREATE INDEX CONCURRENTLY i ON t (a)", "CREATE INDEX CONCURRENTLY"},
      {"CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS i ON t (a)", "CREATE INDEX CONCURRENTLY"},
      {"DROP INDEX CONCURRENTLY IF EXISTS i", "DROP INDEX CONCURRENTLY"},
      {"REINDEX TABLE CONCURRENTLY t", "REINDEX CONCURRENTLY"},
      {"REINDEX (CONCURRENTLY) INDEX i", "REINDEX CONCURRENTLY"},
      {"REINDEX SCHEMA CONCURRENTLY public", "REINDEX CONCURRENTLY"},
      {"REINDEX SCHEMA public", "REINDEX SCHEMA"},
      {"REINDEX SYSTEM app", "REINDEX SYSTEM"},
      {"REINDEX DATABASE app", "REINDEX DATABASE"},
      {"VACUUM", "VACUUM"},
      {"VACUUM (ANALYZE, VERBOSE) t", "VACUUM"},
      {"CLUSTER", "CLUSTER"},
      // What PostgreSQL runs inside a block.
      {"CREATE INDEX i ON t (a)", ""},
      {"DROP INDEX i", ""},
      {"REINDEX TABLE t", ""},
      {"REINDEX INDEX i", ""},
      {"ANALYZE t", ""},
      {"CLUSTER t USING i", ""},
      {"CLUSTER t", ""},
      {"SELECT 1", ""},
  };
  for (const auto& [sql, words] : cases) {
    EXPECT_EQ(one(sql).block_refusal, words) << sql;
  }
  EXPECT_EQ(one("CLUSTER").kind, Kind::kSchemaDdl);
  EXPECT_EQ(one("REINDEX TABLE t").kind, Kind::kSchemaDdl);
}

TEST(StatementInfo, RolesAreTheServersAndGrantsChangePrivileges) {
  for (const char* sql :
       {"CREATE ROLE r LOGIN PASSWORD 'x'", "CREATE USER u", "ALTER ROLE r NOLOGIN",
        "ALTER ROLE r SET work_mem = '8MB'", "DROP ROLE IF EXISTS r", "GRANT r TO app",
        "REVOKE r FROM app", "ALTER ROLE r RENAME TO s"}) {
    EXPECT_EQ(one(sql).kind, Kind::kRoleDdl) << sql;
  }
  EXPECT_EQ(one("CREATE ROLE \"Mixed\"").target.name, "Mixed");
  auto grant = one("GRANT SELECT, INSERT ON t, s.u TO reader");
  EXPECT_EQ(grant.kind, Kind::kSchemaDdl);
  EXPECT_TRUE(grant.changes_privileges);
  ASSERT_EQ(grant.tables.size(), 2u);
  EXPECT_EQ(grant.tables[0].name, "t");
  EXPECT_EQ(grant.tables[1].schema, "s");
  EXPECT_TRUE(one("REVOKE ALL ON ALL TABLES IN SCHEMA public FROM PUBLIC").changes_privileges);
  EXPECT_TRUE(one("ALTER TABLE t OWNER TO r").changes_privileges);
  EXPECT_EQ(one("ALTER TABLE t OWNER TO r").kind, Kind::kAlterTable);
  EXPECT_TRUE(one("REASSIGN OWNED BY a TO b").changes_privileges);
  EXPECT_TRUE(one("DROP OWNED BY a").changes_privileges);
  EXPECT_FALSE(one("ALTER TABLE t ADD COLUMN c int").changes_privileges);
  EXPECT_FALSE(one("CREATE POLICY p ON t USING (true)").changes_privileges);
  EXPECT_EQ(one("CREATE POLICY p ON t USING (true)").kind, Kind::kSchemaDdl);
}

TEST(StatementInfo, SyntaxErrorIs42601WithPosition) {
  auto r = analyze_statements("SELECT 1; SELEC 2");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().sqlstate, "42601");
  EXPECT_EQ(r.error().message, "syntax error at or near \"SELEC\" at character 11");

  r = analyze_statements("SELECT 'abc");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().sqlstate, "42601");
  EXPECT_NE(r.error().message.find("unterminated quoted string"), std::string::npos);

  r = analyze_statements("SELECT * FROM");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().sqlstate, "42601");
  EXPECT_EQ(r.error().message.rfind("syntax error at end of input", 0), 0u) << r.error().message;
}

TEST(StatementInfo, MultiStatementOffsets) {
  std::string sql = "BEGIN; UPDATE a SET x = 1 WHERE id = 2;\nSELECT * FROM b ; COMMIT";
  auto all = analyze_ok(sql);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].kind, Kind::kTransaction);
  EXPECT_EQ(all[0].transaction_kind, "begin");
  EXPECT_EQ(sql.substr(all[0].begin, all[0].end - all[0].begin), "BEGIN");
  EXPECT_EQ(all[1].kind, Kind::kUpdate);
  EXPECT_EQ(sql.substr(all[1].begin, all[1].end - all[1].begin),
            " UPDATE a SET x = 1 WHERE id = 2");
  EXPECT_EQ(all[2].kind, Kind::kSelect);
  EXPECT_EQ(sql.substr(all[2].begin, all[2].end - all[2].begin), "\nSELECT * FROM b ");
  EXPECT_EQ(all[3].kind, Kind::kTransaction);
  EXPECT_EQ(all[3].transaction_kind, "commit");
  // The last statement without ';' runs to the end of the text.
  EXPECT_EQ(all[3].end, sql.size());
  EXPECT_EQ(sql.substr(all[3].begin, all[3].end - all[3].begin), " COMMIT");

  // With a trailing ';' the last statement ends before it.
  sql = "select 1;select 2;";
  all = analyze_ok(sql);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].begin, 0u);
  EXPECT_EQ(all[0].end, 8u);
  EXPECT_EQ(all[1].begin, 9u);
  EXPECT_EQ(all[1].end, 17u);
}

TEST(StatementInfo, OffsetsAreBytes) {
  std::string sql = "SELECT 'héllo'; SELECT 2";
  auto all = analyze_ok(sql);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(sql.substr(all[0].begin, all[0].end - all[0].begin), "SELECT 'héllo'");
  EXPECT_EQ(sql.substr(all[1].begin, all[1].end - all[1].begin), " SELECT 2");
}

TEST(StatementInfo, PgbenchSelect) {
  StatementInfo s = one("SELECT abalance FROM pgbench_accounts WHERE aid = 42");
  EXPECT_EQ(s.kind, Kind::kSelect);
  EXPECT_EQ(s.tables, std::vector<TableRef>{t("pgbench_accounts")});
  EXPECT_TRUE(s.single_table);
  EXPECT_EQ(s.equalities, (std::vector<Eq>{{"aid", cnst("42")}}));
  EXPECT_EQ(s.fanout_blocker, "");
  EXPECT_FALSE(s.select_into);
  EXPECT_EQ(s.target, TableRef{});
}

TEST(StatementInfo, ACursorIsRoutedByItsQuery) {
  StatementInfo s = one("DECLARE c SCROLL CURSOR FOR SELECT * FROM accounts WHERE aid = $1");
  EXPECT_EQ(s.kind, Kind::kOtherUtility);
  EXPECT_TRUE(s.declares_cursor);
  EXPECT_TRUE(s.single_table);
  EXPECT_EQ(s.equalities, (std::vector<Eq>{{"aid", param(1)}}));
  ASSERT_TRUE(s.where.has_value());
  s = one("DECLARE c CURSOR FOR SELECT * FROM a JOIN b USING (id) WHERE a.id = 1");
  EXPECT_TRUE(s.declares_cursor);
  EXPECT_FALSE(s.single_table);
  EXPECT_TRUE(s.equalities.empty());
  EXPECT_FALSE(one("SELECT 1").declares_cursor);
}

TEST(StatementInfo, WhatDdlDoesToSequences) {
  StatementInfo s = one("ALTER SEQUENCE public.t_id_seq RESTART WITH 5 INCREMENT BY 2");
  EXPECT_EQ(s.kind, Kind::kSchemaDdl);
  EXPECT_EQ(s.target, (TableRef{"public", "t_id_seq"}));
  EXPECT_TRUE(s.alters_sequence && s.restarts_sequence);
  s = one("ALTER SEQUENCE t_id_seq INCREMENT BY 2");
  EXPECT_TRUE(s.alters_sequence);
  EXPECT_FALSE(s.restarts_sequence);
  s = one("ALTER TABLE t ALTER COLUMN id SET INCREMENT BY 3, ALTER COLUMN n RESTART");
  EXPECT_EQ(s.identity_changes,
            (std::vector<std::pair<std::string, bool>>{{"id", false}, {"n", true}}));
  EXPECT_TRUE(one("TRUNCATE a, b RESTART IDENTITY").restart_identity);
  EXPECT_FALSE(one("TRUNCATE a").restart_identity);
}

TEST(StatementInfo, PgbenchUpdate) {
  StatementInfo s = one("UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2;");
  EXPECT_EQ(s.kind, Kind::kUpdate);
  EXPECT_EQ(s.target, t("pgbench_accounts"));
  EXPECT_EQ(s.tables, std::vector<TableRef>{t("pgbench_accounts")});
  EXPECT_TRUE(s.single_table);
  EXPECT_EQ(s.equalities, (std::vector<Eq>{{"aid", param(2)}}));
  EXPECT_FALSE(s.returning);
  EXPECT_EQ(s.fanout_blocker, "");
}

TEST(StatementInfo, PgbenchInsert) {
  StatementInfo s =
      one("INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (1, 2, 3, 4, "
          "CURRENT_TIMESTAMP)");
  EXPECT_EQ(s.kind, Kind::kInsert);
  EXPECT_EQ(s.target, t("pgbench_history"));
  EXPECT_EQ(s.tables, std::vector<TableRef>{t("pgbench_history")});
  EXPECT_TRUE(s.single_table);
  EXPECT_EQ(s.insert_columns, (std::vector<std::string>{"tid", "bid", "aid", "delta", "mtime"}));
  EXPECT_TRUE(s.insert_values);
  ASSERT_EQ(s.insert_rows.size(), 1u);
  ASSERT_EQ(s.insert_rows[0].size(), 5u);
  EXPECT_EQ(s.insert_rows[0][0], cnst("1"));
  EXPECT_EQ(s.insert_rows[0][3], cnst("4"));
  EXPECT_FALSE(s.insert_rows[0][4].has_value());
  EXPECT_FALSE(s.on_conflict);
  EXPECT_FALSE(s.returning);
  EXPECT_EQ(s.fanout_blocker, "");  // only for SELECTs
}

TEST(StatementInfo, PgbenchInitStatements) {
  StatementInfo s =
      one("create table pgbench_accounts(aid int not null,bid int,abalance int,filler char(84)) "
          "with (fillfactor=100)");
  EXPECT_EQ(s.kind, Kind::kCreateTable);
  EXPECT_EQ(s.target, t("pgbench_accounts"));
  EXPECT_EQ(s.tables, std::vector<TableRef>{t("pgbench_accounts")});
  EXPECT_EQ(s.columns, (std::vector<ColumnInfo>{{"aid", "int4", true},
                                                {"bid", "int4", false},
                                                {"abalance", "int4", false},
                                                {"filler", "bpchar", false}}));
  EXPECT_TRUE(s.primary_key.empty());
  EXPECT_FALSE(s.if_not_exists);
  EXPECT_FALSE(s.temporary);
  EXPECT_FALSE(s.create_as);
  EXPECT_TRUE(s.parents.empty());

  s = one("alter table pgbench_accounts add primary key (aid)");
  EXPECT_EQ(s.kind, Kind::kAlterTable);
  EXPECT_EQ(s.target, t("pgbench_accounts"));
  EXPECT_EQ(s.primary_key, std::vector<std::string>{"aid"});
  EXPECT_FALSE(s.alter_other);
  EXPECT_TRUE(s.added_columns.empty());

  s =
      one("drop table if exists pgbench_accounts, pgbench_branches, pgbench_history, "
          "pgbench_tellers");
  EXPECT_EQ(s.kind, Kind::kDropTable);
  EXPECT_TRUE(s.if_exists);
  EXPECT_FALSE(s.cascade);
  EXPECT_EQ(s.tables, (std::vector<TableRef>{t("pgbench_accounts"), t("pgbench_branches"),
                                             t("pgbench_history"), t("pgbench_tellers")}));
  EXPECT_EQ(s.dropped_objects, s.tables);
  EXPECT_FALSE(s.single_table);

  s = one("truncate table pgbench_accounts, pgbench_branches");
  EXPECT_EQ(s.kind, Kind::kTruncate);
  EXPECT_EQ(s.tables, (std::vector<TableRef>{t("pgbench_accounts"), t("pgbench_branches")}));
  EXPECT_FALSE(s.cascade);

  s = one("vacuum analyze pgbench_branches");
  EXPECT_EQ(s.kind, Kind::kVacuum);
  EXPECT_EQ(s.tables, std::vector<TableRef>{t("pgbench_branches")});

  s = one("analyze pgbench_branches, public.pgbench_tellers");
  EXPECT_EQ(s.kind, Kind::kAnalyze);
  EXPECT_EQ(s.tables,
            (std::vector<TableRef>{t("pgbench_branches"), t("pgbench_tellers", "public")}));
  EXPECT_EQ(one("VACUUM").kind, Kind::kVacuum);
}

TEST(StatementInfo, QualifiedAndQuotedNames) {
  StatementInfo s = one("SELECT * FROM \"Mixed\".\"Case\" WHERE \"Id\" = 1");
  EXPECT_EQ(s.tables, std::vector<TableRef>{t("Case", "Mixed")});
  EXPECT_EQ(s.equalities, (std::vector<Eq>{{"Id", cnst("1")}}));

  s = one("select * from MySchema.MyTable x where X.Col = 'v' and myschema.mytable.other = 2");
  EXPECT_EQ(s.tables, std::vector<TableRef>{t("mytable", "myschema")});
  // Aliased: only the alias qualifies a column.
  EXPECT_EQ(s.equalities, (std::vector<Eq>{{"col", cnst("v")}}));

  s = one("select * from app.items where app.items.id = 7 and items.b = 8 and other.c = 9");
  EXPECT_EQ(s.equalities, (std::vector<Eq>{{"id", cnst("7")}, {"b", cnst("8")}}));

  s = one("select * from items where public.items.id = 7");
  EXPECT_EQ(s.equalities, (std::vector<Eq>{{"id", cnst("7")}}));
  s = one("select * from app.items where public.items.id = 7");
  EXPECT_TRUE(s.equalities.empty());
}

TEST(StatementInfo, EqualitiesMixedConjuncts) {
  StatementInfo s = one("SELECT * FROM t WHERE a = 1 AND (b = 2 OR c = 3) AND 5 = d");
  EXPECT_TRUE(s.single_table);
  EXPECT_EQ(s.equalities, (std::vector<Eq>{{"a", cnst("1")}, {"d", cnst("5")}}));

  s =
      one("SELECT * FROM t WHERE (a = 1 AND (b = -2 AND c = $3::int8)) AND e > 4 AND f = NULL "
          "AND g = h AND i = 1 + 2 AND j = lower('X') AND k <> 3 AND l = -2.5");
  EXPECT_EQ(s.equalities, (std::vector<Eq>{{"a", cnst("1")},
                                           {"b", cnst("-2")},
                                           {"c", param(3, "int8")},
                                           {"i", sum({cnst("1"), cnst("2")}, {false, false})},
                                           {"l", cnst("-2.5")}}));

  s = one("SELECT * FROM t WHERE a = 1 OR b = 2");
  EXPECT_TRUE(s.equalities.empty());
  s = one("SELECT * FROM t WHERE NOT (a = 1)");
  EXPECT_TRUE(s.equalities.empty());
  s = one("SELECT * FROM t");
  EXPECT_TRUE(s.equalities.empty());
}

TEST(StatementInfo, CastsAndConstants) {
  StatementInfo s =
      one("SELECT * FROM t WHERE id = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AND "
          "name = 'it''s'::text AND n = CAST('12' AS bigint) AND m = CAST($2 AS int8) AND "
          "flag = TRUE AND off = false AND big = 12345678901234 AND s = E'a\\nb' AND "
          "ts = timestamptz '2024-01-01' AND dbl = '3'::text::int4 AND v = 'x'::varchar(3) AND "
          "arr = '{1}'::int[] AND neg = -(5)");
  EXPECT_EQ(s.equalities,
            (std::vector<Eq>{{"id", cnst("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "uuid")},
                             {"name", cnst("it's", "text")},
                             {"n", cnst("12", "int8")},
                             {"m", param(2, "int8")},
                             {"flag", cnst("true")},
                             {"off", cnst("false")},
                             {"big", cnst("12345678901234")},
                             {"s", cnst("a\nb")},
                             {"ts", cnst("2024-01-01", "timestamptz")},
                             {"dbl", cnst("3", "int4")},
                             {"v", cnst("x", "varchar")},
                             {"arr", cnst("{1}", "int4[]")},
                             {"neg", cnst("-5")}}));

  s = one("SELECT * FROM t WHERE a = NULL::int AND b = $1");
  EXPECT_EQ(s.equalities, (std::vector<Eq>{{"b", param(1)}}));
}

TEST(StatementInfo, SumsAreKeptTermByTerm) {
  // Flattened, each term with its sign: a - (b - c) is a - b + c.
  StatementInfo s =
      one("SELECT * FROM t WHERE a = $1 + 100 - 5 AND b = 10 - ($2::int8 - -3) AND "
          "c = 1 OPERATOR(pg_catalog.+) 2 AND d = ('7' + $3)::int8 AND e = (1 + 2)::int8 + 3 AND "
          "f = 2 * 3 AND g = g + 1 AND h = 1 + NULL AND i = -$1 + 1");
  EXPECT_EQ(
      s.equalities,
      (std::vector<Eq>{{"a", sum({param(1), cnst("100"), cnst("5")}, {false, false, true})},
                       {"b", sum({cnst("10"), param(2, "int8"), cnst("-3")}, {false, true, false})},
                       {"c", sum({cnst("1"), cnst("2")}, {false, false})},
                       {"d", sum({cnst("7"), param(3)}, {false, false}, "int8")},
                       {"h", sum({cnst("1"), null_value()}, {false, false})}}));
  // Only = and ordering comparisons take them, as any value; pgrange cannot write them back.
  s = one("SELECT * FROM t WHERE id BETWEEN $1 AND $1 + 10");
  ASSERT_TRUE(s.where);
  std::vector<const Condition*> parts;
  conjuncts(*s.where, parts);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1]->values.front(), sum({param(1), cnst("10")}, {false, false}));
  EXPECT_FALSE(value_sql(parts[1]->values.front()));
  // INSERT values too.
  s = one("INSERT INTO t (id, v) VALUES (1 + 1, $1 - 1)");
  ASSERT_EQ(s.insert_rows.size(), 1u);
  EXPECT_EQ(s.insert_rows[0][0], sum({cnst("1"), cnst("1")}, {false, false}));
  EXPECT_EQ(s.insert_rows[0][1], sum({param(1), cnst("1")}, {false, true}));
}

TEST(StatementInfo, JoinsAndSubqueries) {
  StatementInfo s = one("SELECT * FROM a JOIN b ON a.id = b.id WHERE a.id = 1");
  EXPECT_EQ(s.tables, (std::vector<TableRef>{t("a"), t("b")}));
  EXPECT_FALSE(s.single_table);
  EXPECT_TRUE(s.equalities.empty());
  EXPECT_EQ(s.fanout_blocker, "JOIN");

  s = one("SELECT * FROM a, b");
  EXPECT_FALSE(s.single_table);
  EXPECT_EQ(s.fanout_blocker, "JOIN");

  s = one("SELECT * FROM a x JOIN a y ON x.p = y.id");
  EXPECT_EQ(s.tables, std::vector<TableRef>{t("a")});
  EXPECT_FALSE(s.single_table);
  EXPECT_EQ(s.fanout_blocker, "JOIN");

  s = one("SELECT * FROM a WHERE id IN (SELECT a_id FROM b) AND id = 3");
  EXPECT_EQ(s.tables, (std::vector<TableRef>{t("a"), t("b")}));
  EXPECT_FALSE(s.single_table);
  EXPECT_TRUE(s.equalities.empty());
  EXPECT_EQ(s.fanout_blocker, "subquery");

  // A subquery on the same table still is not a single-table statement.
  s = one("SELECT * FROM a WHERE id = (SELECT max(id) FROM a)");
  EXPECT_EQ(s.tables, std::vector<TableRef>{t("a")});
  EXPECT_FALSE(s.single_table);
  EXPECT_EQ(s.fanout_blocker, "subquery");

  s = one("SELECT * FROM a WHERE EXISTS (SELECT 1)");
  EXPECT_FALSE(s.single_table);
  EXPECT_EQ(s.fanout_blocker, "subquery");

  s = one("SELECT * FROM (SELECT * FROM inner_t) sub");
  EXPECT_EQ(s.tables, std::vector<TableRef>{t("inner_t")});
  EXPECT_FALSE(s.single_table);
  EXPECT_EQ(s.fanout_blocker, "subquery");

  s = one("SELECT (SELECT count(*) FROM b), x FROM a");
  EXPECT_EQ(s.tables, (std::vector<TableRef>{t("b"), t("a")}));
  EXPECT_FALSE(s.single_table);

  s = one("SELECT * FROM a LEFT JOIN (b JOIN c USING (id)) ON true, LATERAL (SELECT * FROM d) x");
  EXPECT_EQ(s.tables, (std::vector<TableRef>{t("a"), t("b"), t("c"), t("d")}));
}

TEST(StatementInfo, CtesAreNotTables) {
  StatementInfo s =
      one("WITH recent AS (SELECT * FROM orders WHERE ts > now()), big AS (SELECT * FROM recent "
          "WHERE total > 100) SELECT * FROM big JOIN customers c ON c.id = big.cid");
  EXPECT_EQ(s.tables, (std::vector<TableRef>{t("orders"), t("customers")}));
  EXPECT_FALSE(s.single_table);
  EXPECT_EQ(s.fanout_blocker, "WITH");

  // A single CTE over one table is still not single_table.
  s = one("WITH x AS (SELECT * FROM t) SELECT * FROM x WHERE id = 1");
  EXPECT_EQ(s.tables, std::vector<TableRef>{t("t")});
  EXPECT_FALSE(s.single_table);
  EXPECT_TRUE(s.equalities.empty());

  // A qualified name is never a CTE; a CTE is not in scope in its own non-recursive body.
  s = one("WITH t AS (SELECT * FROM t) SELECT * FROM t, public.t");
  EXPECT_EQ(s.tables, (std::vector<TableRef>{t("t"), t("t", "public")}));

  // A recursive CTE refers to itself.
  s =
      one("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) "
          "SELECT * FROM r");
  EXPECT_TRUE(s.tables.empty());

  // CTE scope ends with its statement.
  s = one("SELECT * FROM (WITH x AS (SELECT 1) SELECT * FROM x) a, x");
  EXPECT_EQ(s.tables, std::vector<TableRef>{t("x")});

  // The target of a DML statement is a table even if a CTE has its name.
  s = one("WITH t AS (SELECT id FROM src) INSERT INTO t SELECT id FROM t");
  EXPECT_EQ(s.kind, Kind::kInsert);
  EXPECT_EQ(s.target, t("t"));
  EXPECT_EQ(s.tables, (std::vector<TableRef>{t("src"), t("t")}));
  EXPECT_FALSE(s.single_table);

  s =
      one("WITH d AS (DELETE FROM old WHERE id = 1 RETURNING *) INSERT INTO archive SELECT * "
          "FROM d");
  EXPECT_EQ(s.tables, (std::vector<TableRef>{t("old"), t("archive")}));
  EXPECT_EQ(s.target, t("archive"));
}

TEST(StatementInfo, FanoutBlockers) {
  auto blocker = [](std::string_view sql) { return one(sql).fanout_blocker; };
  EXPECT_EQ(blocker("SELECT * FROM t WHERE a = 1"), "");
  EXPECT_EQ(blocker("SELECT a, b + 1, lower(c) FROM t"), "");
  EXPECT_EQ(blocker("SELECT * FROM t ORDER BY a"), "ORDER BY");
  EXPECT_EQ(blocker("SELECT * FROM t LIMIT 10"), "LIMIT");
  EXPECT_EQ(blocker("SELECT * FROM t FETCH FIRST 3 ROWS ONLY"), "LIMIT");
  EXPECT_EQ(blocker("SELECT * FROM t LIMIT ALL"), "");
  EXPECT_EQ(blocker("SELECT * FROM t OFFSET 5"), "OFFSET");
  EXPECT_EQ(blocker("SELECT count(*) FROM t"), "aggregate count()");
  EXPECT_EQ(blocker("SELECT sum(x) FROM t WHERE id = 1"), "aggregate sum()");
  EXPECT_EQ(blocker("SELECT my_agg(DISTINCT x) FROM t"), "aggregate my_agg()");
  EXPECT_EQ(blocker("SELECT a FROM t GROUP BY a"), "GROUP BY");
  EXPECT_EQ(blocker("SELECT a, count(*) FROM t GROUP BY a"), "aggregate count()");
  EXPECT_EQ(blocker("SELECT 1 FROM t HAVING true"), "HAVING");
  EXPECT_EQ(blocker("SELECT DISTINCT a FROM t"), "DISTINCT");
  EXPECT_EQ(blocker("SELECT DISTINCT ON (a) a, b FROM t"), "DISTINCT");
  EXPECT_EQ(blocker("SELECT a, row_number() OVER (ORDER BY a) FROM t"), "window function");
  EXPECT_EQ(blocker("SELECT a, count(*) OVER () FROM t"), "window function");
  EXPECT_EQ(blocker("SELECT a FROM t UNION SELECT a FROM u"), "UNION");
  EXPECT_EQ(blocker("SELECT a FROM t UNION ALL SELECT a FROM t"), "UNION");
  EXPECT_EQ(blocker("SELECT a FROM t INTERSECT SELECT a FROM u"), "INTERSECT");
  EXPECT_EQ(blocker("SELECT a FROM t EXCEPT SELECT a FROM u"), "EXCEPT");
  EXPECT_EQ(blocker("SELECT * FROM t WHERE id = 1 FOR UPDATE"), "FOR UPDATE");
  EXPECT_EQ(blocker("SELECT * FROM t x FOR SHARE OF x"), "FOR SHARE");
  EXPECT_EQ(blocker("SELECT * FROM generate_series(1, 3)"), "set-returning function");
  EXPECT_EQ(blocker("SELECT * FROM t TABLESAMPLE SYSTEM (10)"), "TABLESAMPLE");
  EXPECT_EQ(blocker("SELECT 1"), "no table");
  EXPECT_EQ(blocker("VALUES (1), (2)"), "VALUES");

  // FOR UPDATE OF names a FROM item, not a table.
  StatementInfo s = one("SELECT * FROM accounts a WHERE a.id = 1 FOR UPDATE OF a");
  EXPECT_EQ(s.tables, std::vector<TableRef>{t("accounts")});
  EXPECT_TRUE(s.single_table);
  EXPECT_EQ(s.equalities, (std::vector<Eq>{{"id", cnst("1")}}));

  // Not for other kinds.
  EXPECT_EQ(blocker("UPDATE t SET a = 1 WHERE b IN (SELECT 1)"), "");
}

TEST(StatementInfo, SelectInto) {
  StatementInfo s = one("SELECT * INTO TEMP copy_t FROM t WHERE id = 1");
  EXPECT_EQ(s.kind, Kind::kCreateTable);
  EXPECT_TRUE(s.create_as);
  EXPECT_TRUE(s.select_into);
  EXPECT_TRUE(s.temporary);
  EXPECT_EQ(s.target, t("copy_t"));
  EXPECT_EQ(s.tables, (std::vector<TableRef>{t("copy_t"), t("t")}));
  EXPECT_EQ(s.fanout_blocker, "");
}

TEST(StatementInfo, CountsOfOneTablesRowsAreSums) {
  EXPECT_TRUE(one("SELECT count(*) FROM t WHERE v > 3").sums_counts);
  // SQLAlchemy's Query.count(): the inner query keeps or drops each row on its own.
  EXPECT_TRUE(one("SELECT count(*) AS count_1 FROM (SELECT t.id AS t_id, t.v AS t_v FROM t "
                  "WHERE t.v > 3 ORDER BY t.id) AS anon_1")
                  .sums_counts);
  EXPECT_TRUE(one("SELECT count(v) FROM (SELECT v FROM t) s").sums_counts);
  for (const char* sql : {
           "SELECT count(*) FROM (SELECT DISTINCT v FROM t) s",
           "SELECT count(*) FROM (SELECT v FROM t LIMIT 3) s",
           "SELECT count(*) FROM (SELECT v FROM t GROUP BY v) s",
           "SELECT count(*) FROM (SELECT lower(v) FROM t) s",
           "SELECT count(*) FROM (SELECT generate_series(1, v) FROM t) s",
           "SELECT count(*) FROM (SELECT v FROM t WHERE v IN (SELECT w FROM u)) s",
           "SELECT count(*) FROM (SELECT v FROM t UNION ALL SELECT v FROM t) s",
           "SELECT count(*) FROM (SELECT a.v FROM t a, t b) s",
           "SELECT count(*) FROM (SELECT v FROM t) s WHERE v > 1",
           "SELECT count(*) FROM (SELECT v FROM t) s, LATERAL (SELECT 1) l",
           "SELECT sum(v) FROM (SELECT v FROM t) s",
       }) {
    EXPECT_FALSE(one(sql).sums_counts) << sql;
  }
}

TEST(StatementInfo, CreateTableAs) {
  StatementInfo s = one("CREATE TABLE IF NOT EXISTS s.snap AS SELECT * FROM t JOIN u USING (id)");
  EXPECT_EQ(s.kind, Kind::kCreateTable);
  EXPECT_TRUE(s.create_as);
  EXPECT_FALSE(s.select_into);
  EXPECT_TRUE(s.if_not_exists);
  EXPECT_EQ(s.target, t("snap", "s"));
  EXPECT_EQ(s.tables, (std::vector<TableRef>{t("snap", "s"), t("t"), t("u")}));
  EXPECT_TRUE(s.columns.empty());

  s = one("CREATE MATERIALIZED VIEW mv AS SELECT * FROM t");
  EXPECT_EQ(s.kind, Kind::kCreateView);
  EXPECT_TRUE(s.materialized);
  EXPECT_EQ(s.target, t("mv"));
  EXPECT_FALSE(s.create_as);
}

TEST(StatementInfo, CreateTableTypesAndKeys) {
  StatementInfo s =
      one("CREATE TEMP TABLE IF NOT EXISTS app.\"Items\" ("
          " a int, b integer, c bigint, d smallint, e text, f varchar(10), g character varying,"
          " h char(3), i numeric(10,2), j decimal, k real, l double precision, m float,"
          " n boolean, o bytea, p uuid, q date, r timestamp, s timestamptz,"
          " u timestamp with time zone, v serial, w bigserial, x smallserial, y int[], z text[][],"
          " aa jsonb, bb MyType, cc int8 NOT NULL, dd serial8, ee pg_catalog.int4, ff bool,"
          " PRIMARY KEY (cc, a))");
  EXPECT_EQ(s.kind, Kind::kCreateTable);
  EXPECT_TRUE(s.temporary);
  EXPECT_TRUE(s.if_not_exists);
  EXPECT_EQ(s.target, t("Items", "app"));
  std::vector<std::string> types;
  for (const ColumnInfo& c : s.columns) types.push_back(c.type);
  EXPECT_EQ(types,
            (std::vector<std::string>{
                "int4",        "int4",        "int8",    "int2",      "text",        "varchar",
                "varchar",     "bpchar",      "numeric", "numeric",   "float4",      "float8",
                "float8",      "bool",        "bytea",   "uuid",      "date",        "timestamp",
                "timestamptz", "timestamptz", "serial",  "bigserial", "smallserial", "int4[]",
                "text[]",      "jsonb",       "mytype",  "int8",      "bigserial",   "int4",
                "bool"}));
  EXPECT_EQ(s.primary_key, (std::vector<std::string>{"cc", "a"}));
  ASSERT_EQ(s.columns.size(), 31u);
  EXPECT_TRUE(s.columns[0].not_null);   // a: in the primary key
  EXPECT_FALSE(s.columns[1].not_null);  // b
  EXPECT_TRUE(s.columns[27].not_null);  // cc
  EXPECT_EQ(s.columns[27].name, "cc");

  s = one("CREATE TABLE kv (k text PRIMARY KEY, v text NOT NULL, w text NULL)");
  EXPECT_EQ(s.primary_key, std::vector<std::string>{"k"});
  EXPECT_EQ(s.columns, (std::vector<ColumnInfo>{
                           {"k", "text", true}, {"v", "text", true}, {"w", "text", false}}));
  EXPECT_TRUE(s.single_table);

  s =
      one("CREATE TABLE o (id bigint, tenant int, CONSTRAINT o_pk PRIMARY KEY (tenant, id), "
          "cust int REFERENCES customers (id))");
  EXPECT_EQ(s.primary_key, (std::vector<std::string>{"tenant", "id"}));
  EXPECT_EQ(s.tables, (std::vector<TableRef>{t("o"), t("customers")}));
  EXPECT_FALSE(s.single_table);
}

TEST(StatementInfo, CreateTableLikeInherits) {
  EXPECT_TRUE(one("CREATE TABLE c (LIKE p INCLUDING ALL)").has_like);
  EXPECT_TRUE(one("CREATE TABLE c (LIKE p INCLUDING ALL)").parents.empty());
  EXPECT_FALSE(one("CREATE TABLE c (x int) INHERITS (p)").has_like);
  EXPECT_EQ(
      one("CREATE TABLE c (LIKE p INCLUDING ALL, LIKE q, LIKE r INCLUDING INDEXES)").like_indexes,
      (std::vector<TableRef>{t("p"), t("r")}));
  EXPECT_TRUE(one("CREATE TABLE c (LIKE p INCLUDING ALL EXCLUDING INDEXES)").like_indexes.empty());
  EXPECT_EQ(one("CREATE TABLE c (x int) INHERITS (p, s.q)").parents,
            (std::vector<TableRef>{t("p"), TableRef{"s", "q"}}));
  EXPECT_EQ(one("CREATE TABLE c PARTITION OF p FOR VALUES FROM (1) TO (10)").parents,
            (std::vector<TableRef>{t("p")}));
  EXPECT_TRUE(one("CREATE TABLE c PARTITION OF p FOR VALUES FROM (1) TO (10)").partition_of);
  EXPECT_FALSE(one("CREATE TABLE c (x int) INHERITS (p)").partition_of);
  EXPECT_EQ(one("CREATE TABLE c PARTITION OF p DEFAULT PARTITION BY LIST (x)").parents,
            (std::vector<TableRef>{t("p")}));
  EXPECT_TRUE(one("CREATE TABLE p (x int) PARTITION BY RANGE (x)").parents.empty());
  EXPECT_TRUE(one("CREATE TABLE c OF some_type").of_type);
  StatementInfo s = one("CREATE TABLE c (LIKE p)");
  EXPECT_EQ(s.tables, (std::vector<TableRef>{t("c"), t("p")}));
  EXPECT_TRUE(one("CREATE TABLE c (x int)").parents.empty());
  EXPECT_FALSE(one("CREATE TABLE c (x int)").of_type);
  for (const char* sql :
       {"ALTER TABLE p ATTACH PARTITION c FOR VALUES IN (1)", "ALTER TABLE p DETACH PARTITION c",
        "ALTER TABLE c INHERIT p", "ALTER TABLE c NO INHERIT p", "ALTER TABLE c NOT OF"}) {
    EXPECT_TRUE(one(sql).changes_parents) << sql;
  }
  EXPECT_FALSE(one("ALTER TABLE c ADD COLUMN y int").changes_parents);
}

TEST(StatementInfo, AlterTable) {
  StatementInfo s =
      one("ALTER TABLE IF EXISTS s.t ADD COLUMN IF NOT EXISTS c uuid NOT NULL, "
          "DROP COLUMN d CASCADE, ADD e int");
  EXPECT_EQ(s.kind, Kind::kAlterTable);
  EXPECT_EQ(s.target, t("t", "s"));
  EXPECT_TRUE(s.if_exists);
  EXPECT_TRUE(s.if_not_exists);
  EXPECT_TRUE(s.cascade);
  EXPECT_EQ(s.added_columns, (std::vector<ColumnInfo>{{"c", "uuid", true}, {"e", "int4", false}}));
  EXPECT_EQ(s.dropped_columns, std::vector<std::string>{"d"});
  EXPECT_FALSE(s.alter_other);

  s = one("ALTER TABLE t ADD CONSTRAINT t_pk PRIMARY KEY (a, b)");
  EXPECT_EQ(s.primary_key, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(s.alter_other);

  s = one("ALTER TABLE t ALTER COLUMN c TYPE bigint, ALTER d SET DEFAULT 0");
  EXPECT_EQ(s.altered_type_columns, std::vector<std::string>{"c"});
  EXPECT_TRUE(s.alter_other);

  s = one("ALTER TABLE t SET (fillfactor = 90)");
  EXPECT_TRUE(s.alter_other);
  s = one("ALTER TABLE t ADD CONSTRAINT u UNIQUE (x)");
  EXPECT_TRUE(s.alter_other);
  EXPECT_TRUE(s.primary_key.empty());

  s = one("ALTER TABLE t RENAME TO t2");
  EXPECT_EQ(s.kind, Kind::kAlterTable);
  EXPECT_EQ(s.target, t("t"));
  EXPECT_EQ(s.rename_to, std::optional<std::string>("t2"));
  EXPECT_FALSE(s.alter_other);

  s = one("ALTER TABLE t RENAME COLUMN a TO b");
  EXPECT_EQ(s.kind, Kind::kAlterTable);
  EXPECT_FALSE(s.rename_to);
  EXPECT_TRUE(s.alter_other);
  ASSERT_TRUE(s.renamed_column);
  EXPECT_EQ(s.renamed_column->first, "a");
  EXPECT_EQ(s.renamed_column->second, "b");

  s = one("ALTER TABLE t SET SCHEMA other");
  EXPECT_EQ(s.kind, Kind::kAlterTable);
  EXPECT_TRUE(s.alter_other);

  // Other relations' DDL runs on every shard like a table's.
  s = one("ALTER INDEX i RENAME TO j");
  EXPECT_EQ(s.kind, Kind::kSchemaDdl);
  EXPECT_EQ(s.target, t("i"));
  EXPECT_EQ(s.rename_to, "j");
  EXPECT_EQ(one("ALTER SEQUENCE s RESTART").kind, Kind::kSchemaDdl);
  EXPECT_EQ(one("ALTER VIEW v RENAME TO w").kind, Kind::kSchemaDdl);
  EXPECT_EQ(one("ALTER DATABASE app RENAME TO other").kind, Kind::kOtherUtility);
}

TEST(StatementInfo, Indexes) {
  StatementInfo s = one("CREATE UNIQUE INDEX IF NOT EXISTS t_a ON s.t (a, lower(b))");
  EXPECT_EQ(s.kind, Kind::kCreateIndex);
  EXPECT_EQ(s.target, t("t", "s"));
  EXPECT_EQ(s.tables, std::vector<TableRef>{t("t", "s")});
  EXPECT_EQ(s.index_name, "t_a");
  EXPECT_TRUE(s.unique_index);
  EXPECT_TRUE(s.if_not_exists);

  s = one("DROP INDEX IF EXISTS s.i1, i2 CASCADE");
  EXPECT_EQ(s.kind, Kind::kDropIndex);
  EXPECT_TRUE(s.if_exists);
  EXPECT_TRUE(s.cascade);
  EXPECT_EQ(s.dropped_objects, (std::vector<TableRef>{t("i1", "s"), t("i2")}));
  EXPECT_TRUE(s.tables.empty());

  s = one("DROP VIEW v");
  EXPECT_EQ(s.kind, Kind::kSchemaDdl);
  EXPECT_EQ(s.dropped_objects, std::vector<TableRef>{t("v")});
}

TEST(StatementInfo, DropAndTruncateCascade) {
  StatementInfo s = one("DROP TABLE a.b CASCADE");
  EXPECT_EQ(s.kind, Kind::kDropTable);
  EXPECT_TRUE(s.cascade);
  EXPECT_FALSE(s.if_exists);
  EXPECT_EQ(s.tables, std::vector<TableRef>{t("b", "a")});
  EXPECT_TRUE(s.single_table);

  s = one("TRUNCATE ONLY t RESTART IDENTITY CASCADE");
  EXPECT_EQ(s.kind, Kind::kTruncate);
  EXPECT_TRUE(s.cascade);
  EXPECT_EQ(s.tables, std::vector<TableRef>{t("t")});
}

TEST(StatementInfo, InsertVariants) {
  StatementInfo s =
      one("INSERT INTO s.t VALUES (1, 'x', NULL, $1, DEFAULT, -3, now(), 'b'::bytea), "
          "(2, 'y', NULL::int, $2::uuid, 5, 1 + 1, TRUE, 'z')");
  EXPECT_EQ(s.kind, Kind::kInsert);
  EXPECT_EQ(s.target, t("t", "s"));
  EXPECT_TRUE(s.insert_columns.empty());
  EXPECT_TRUE(s.insert_values);
  ASSERT_EQ(s.insert_rows.size(), 2u);
  const auto& r0 = s.insert_rows[0];
  ASSERT_EQ(r0.size(), 8u);
  EXPECT_EQ(r0[0], cnst("1"));
  EXPECT_EQ(r0[1], cnst("x"));
  EXPECT_EQ(r0[2], null_value());
  EXPECT_EQ(r0[3], param(1));
  EXPECT_FALSE(r0[4]);
  EXPECT_EQ(r0[5], cnst("-3"));
  EXPECT_FALSE(r0[6]);
  EXPECT_EQ(r0[7], cnst("b", "bytea"));
  const auto& r1 = s.insert_rows[1];
  EXPECT_EQ(r1[2], null_value("int4"));
  EXPECT_EQ(r1[3], param(2, "uuid"));
  EXPECT_EQ(r1[5], sum({cnst("1"), cnst("1")}, {false, false}));
  EXPECT_EQ(r1[6], cnst("true"));

  s = one("INSERT INTO t (a) VALUES (1) ON CONFLICT (a) DO NOTHING RETURNING a");
  EXPECT_TRUE(s.on_conflict);
  EXPECT_FALSE(s.on_conflict_update);
  EXPECT_TRUE(s.returning);
  EXPECT_EQ(s.insert_columns, std::vector<std::string>{"a"});

  s = one("INSERT INTO t (a, b) VALUES (1, 2) ON CONFLICT (a) DO UPDATE SET b = EXCLUDED.b");
  EXPECT_TRUE(s.on_conflict);
  EXPECT_TRUE(s.on_conflict_update);
  EXPECT_EQ(s.tables, std::vector<TableRef>{t("t")});
  EXPECT_TRUE(s.single_table);

  s = one("INSERT INTO t DEFAULT VALUES");
  EXPECT_FALSE(s.insert_values);
  EXPECT_TRUE(s.insert_rows.empty());
  EXPECT_TRUE(s.single_table);

  s = one("INSERT INTO t (a) SELECT a FROM u WHERE a = 1");
  EXPECT_FALSE(s.insert_values);
  EXPECT_TRUE(s.insert_rows.empty());
  EXPECT_EQ(s.tables, (std::vector<TableRef>{t("t"), t("u")}));
  EXPECT_FALSE(s.single_table);

  s = one("INSERT INTO t VALUES ((SELECT max(a) FROM t))");
  EXPECT_TRUE(s.insert_values);
  ASSERT_EQ(s.insert_rows.size(), 1u);
  EXPECT_FALSE(s.insert_rows[0][0]);
  EXPECT_FALSE(s.single_table);
}

TEST(StatementInfo, UpdateDelete) {
  StatementInfo s = one("UPDATE t AS x SET a = 1 WHERE x.id = $1 AND t.other = 2 RETURNING *");
  EXPECT_EQ(s.kind, Kind::kUpdate);
  EXPECT_EQ(s.target, t("t"));
  EXPECT_TRUE(s.returning);
  EXPECT_EQ(s.equalities, (std::vector<Eq>{{"id", param(1)}}));

  s = one("UPDATE t SET a = u.a FROM u WHERE t.id = u.id AND t.id = 3");
  EXPECT_EQ(s.tables, (std::vector<TableRef>{t("t"), t("u")}));
  EXPECT_FALSE(s.single_table);
  EXPECT_TRUE(s.equalities.empty());

  s = one("DELETE FROM s.t WHERE k = 'a' AND j = 2");
  EXPECT_EQ(s.kind, Kind::kDelete);
  EXPECT_EQ(s.target, t("t", "s"));
  EXPECT_TRUE(s.single_table);
  EXPECT_EQ(s.equalities, (std::vector<Eq>{{"k", cnst("a")}, {"j", cnst("2")}}));
  EXPECT_FALSE(s.returning);

  s = one("DELETE FROM t USING u WHERE t.id = u.id");
  EXPECT_EQ(s.tables, (std::vector<TableRef>{t("t"), t("u")}));
  EXPECT_FALSE(s.single_table);

  s = one("DELETE FROM t WHERE id IN (SELECT id FROM t WHERE x = 1)");
  EXPECT_FALSE(s.single_table);
  EXPECT_TRUE(s.equalities.empty());
}

TEST(StatementInfo, Copy) {
  StatementInfo s = one("COPY s.t (a, b) FROM STDIN WITH (FORMAT csv)");
  EXPECT_EQ(s.kind, Kind::kCopy);
  EXPECT_TRUE(s.copy_from);
  EXPECT_FALSE(s.copy_query);
  EXPECT_EQ(s.target, t("t", "s"));
  EXPECT_EQ(s.tables, std::vector<TableRef>{t("t", "s")});

  s = one("COPY t TO STDOUT");
  EXPECT_FALSE(s.copy_from);
  EXPECT_FALSE(s.copy_query);

  s = one("COPY (SELECT * FROM a JOIN b USING (id)) TO STDOUT");
  EXPECT_TRUE(s.copy_query);
  EXPECT_FALSE(s.copy_from);
  EXPECT_EQ(s.target, TableRef{});
  EXPECT_EQ(s.tables, (std::vector<TableRef>{t("a"), t("b")}));
}

TEST(StatementInfo, Transactions) {
  auto kind = [](std::string_view sql) {
    StatementInfo s = one(sql);
    EXPECT_EQ(s.kind, Kind::kTransaction) << sql;
    return s.transaction_kind;
  };
  EXPECT_EQ(kind("BEGIN"), "begin");
  EXPECT_EQ(kind("BEGIN ISOLATION LEVEL SERIALIZABLE"), "begin");
  EXPECT_EQ(kind("START TRANSACTION READ ONLY"), "start");
  EXPECT_EQ(kind("COMMIT"), "commit");
  EXPECT_EQ(kind("END"), "commit");
  EXPECT_EQ(kind("ROLLBACK"), "rollback");
  EXPECT_EQ(kind("ABORT"), "rollback");
  EXPECT_EQ(kind("SAVEPOINT sp1"), "savepoint");
  EXPECT_EQ(kind("RELEASE SAVEPOINT sp1"), "release");
  EXPECT_EQ(kind("ROLLBACK TO SAVEPOINT sp1"), "rollback_to");
  EXPECT_EQ(kind("PREPARE TRANSACTION 'g1'"), "prepare");
  EXPECT_EQ(kind("COMMIT PREPARED 'g1'"), "commit_prepared");
  EXPECT_EQ(kind("ROLLBACK PREPARED 'g1'"), "rollback_prepared");
  EXPECT_EQ(one("SAVEPOINT sp1").transaction_name, "sp1");
  EXPECT_EQ(one("COMMIT PREPARED 'g1'").transaction_name, "g1");
}

TEST(StatementInfo, OtherUtilities) {
  StatementInfo s = one("EXPLAIN ANALYZE SELECT * FROM a JOIN b USING (id)");
  EXPECT_EQ(s.kind, Kind::kOtherUtility);
  EXPECT_EQ(s.tables, (std::vector<TableRef>{t("a"), t("b")}));
  EXPECT_EQ(s.fanout_blocker, "");

  s = one("SET search_path = app");
  EXPECT_EQ(s.kind, Kind::kOtherUtility);
  EXPECT_TRUE(s.tables.empty());

  s = one("CREATE VIEW v AS SELECT * FROM t");
  EXPECT_EQ(s.kind, Kind::kCreateView);
  EXPECT_EQ(s.target, t("v"));
  EXPECT_FALSE(s.temporary);
  EXPECT_EQ(s.tables, (std::vector<TableRef>{t("v"), t("t")}));
  EXPECT_TRUE(one("CREATE TEMP VIEW v AS SELECT 1").temporary);

  EXPECT_EQ(one("LOCK TABLE t IN ACCESS EXCLUSIVE MODE").tables, std::vector<TableRef>{t("t")});
  EXPECT_EQ(one("CREATE SEQUENCE seq").kind, Kind::kSchemaDdl);
  EXPECT_TRUE(one("CREATE TEMP SEQUENCE seq").temporary);
  EXPECT_EQ(one("SHOW search_path").kind, Kind::kOtherUtility);
}

TEST(StatementInfo, SchemaObjectsAreSchemaDdl) {
  // Everything a schema holds besides tables: every shard must hold it alike.
  for (const char* sql : {
           "CREATE TYPE mood AS ENUM ('sad', 'ok')",
           "ALTER TYPE mood ADD VALUE 'happy'",
           "CREATE TYPE pair AS (a int, b text)",
           "CREATE TYPE r AS RANGE (subtype = int8)",
           "CREATE DOMAIN pos AS int CHECK (VALUE > 0)",
           "ALTER DOMAIN pos SET NOT NULL",
           "CREATE FUNCTION f(int) RETURNS int LANGUAGE sql AS 'SELECT $1'",
           "CREATE OR REPLACE PROCEDURE p() LANGUAGE sql AS $$ SELECT 1 $$",
           "ALTER FUNCTION f(int) STABLE",
           "DROP FUNCTION f(int)",
           "CREATE AGGREGATE mysum (int) (sfunc = int4pl, stype = int)",
           "CREATE SEQUENCE s",
           "DROP SEQUENCE s",
           "CREATE SCHEMA app",
           "DROP SCHEMA app CASCADE",
           "CREATE EXTENSION IF NOT EXISTS pgcrypto",
           "ALTER EXTENSION pgcrypto UPDATE",
           "DROP VIEW v",
           "ALTER VIEW v RENAME TO w",
           "DROP MATERIALIZED VIEW mv",
           "REFRESH MATERIALIZED VIEW mv",
           "CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW EXECUTE FUNCTION g()",
           "DROP TRIGGER tr ON t",
           "CREATE POLICY pol ON t USING (true)",
           "ALTER POLICY pol ON t USING (false)",
           "COMMENT ON TABLE t IS 'x'",
           "GRANT SELECT ON t TO PUBLIC",
           "REVOKE ALL ON t FROM PUBLIC",
           "ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO PUBLIC",
           "ALTER FUNCTION f(int) OWNER TO someone",
           "ALTER FUNCTION f(int) SET SCHEMA other",
           "CREATE RULE r AS ON INSERT TO t DO NOTHING",
           "CREATE CAST (int AS text) WITH INOUT",
           "CREATE STATISTICS st ON a, b FROM t",
           "CREATE COLLATION c1 (locale = 'C')",
           "REINDEX TABLE t",
           "CLUSTER t USING t_pkey",
       }) {
    StatementInfo s = one(sql);
    EXPECT_EQ(s.kind, Kind::kSchemaDdl) << sql;
    EXPECT_FALSE(s.temporary) << sql;
  }
  // The server's objects and session commands are not.
  for (const char* sql :
       {"CREATE ROLE r", "ALTER SYSTEM SET work_mem = '1MB'", "CREATE DATABASE d",
        "CREATE TABLESPACE ts LOCATION '/x'", "CREATE PUBLICATION pub FOR ALL TABLES",
        "DROP PUBLICATION pub", "LISTEN x", "DO $$ BEGIN END $$", "CALL p()"}) {
    EXPECT_NE(one(sql).kind, Kind::kSchemaDdl) << sql;
  }
  StatementInfo f = one("CREATE FUNCTION pg_temp.f() RETURNS int LANGUAGE sql AS 'SELECT 1'");
  EXPECT_TRUE(f.temporary);
  EXPECT_EQ(f.target, t("f", "pg_temp"));
}

TEST(StatementInfo, CommentOnARelationNamesIt) {
  // What a session's temporary relation may shadow: COMMENT names its relation as a list of
  // names (the column's last), not as a RangeVar.
  EXPECT_EQ(one("COMMENT ON TABLE t IS 'x'").tables, std::vector<TableRef>{t("t")});
  EXPECT_EQ(one("COMMENT ON COLUMN s.t.c IS 'x'").tables, std::vector<TableRef>{t("t", "s")});
  EXPECT_EQ(one("COMMENT ON VIEW v IS NULL").tables, std::vector<TableRef>{t("v")});
  EXPECT_EQ(one("COMMENT ON SEQUENCE q IS 'x'").tables, std::vector<TableRef>{t("q")});
  EXPECT_TRUE(one("COMMENT ON FUNCTION f(int) IS 'x'").tables.empty());
  EXPECT_TRUE(one("COMMENT ON SCHEMA s IS 'x'").tables.empty());
}

TEST(StatementInfo, KindNames) {
  EXPECT_EQ(statement_kind_name(Kind::kEmpty), "empty");
  EXPECT_EQ(statement_kind_name(Kind::kCreateTable), "create_table");
  EXPECT_EQ(statement_kind_name(Kind::kOtherUtility), "other_utility");
}

}  // namespace
}  // namespace pgrange::sql

namespace pgrange::sql {
namespace {

// Defaults each server computes on its own (what a reference table cannot have): sequences,
// identity, clock values, chance; constants and immutable expressions are not.
TEST(StatementInfo, DefaultsThatVaryByServer) {
  auto r = analyze_statements(
      "CREATE TABLE t (id serial PRIMARY KEY, a timestamptz DEFAULT now(), b int DEFAULT 1 + 2, "
      "c uuid DEFAULT gen_random_uuid(), d int GENERATED ALWAYS AS IDENTITY, e date DEFAULT "
      "CURRENT_DATE, f text DEFAULT lower('X'), g int8 DEFAULT nextval('s'), "
      "h float8 DEFAULT (random() * 10))");
  ASSERT_TRUE(r) << r.error().message;
  std::vector<std::pair<std::string, std::string>> got;
  for (const ColumnInfo& c : (*r)[0].columns) got.emplace_back(c.name, c.varying_default);
  EXPECT_EQ(got, (std::vector<std::pair<std::string, std::string>>{{"id", "serial"},
                                                                   {"a", "now()"},
                                                                   {"b", ""},
                                                                   {"c", "gen_random_uuid()"},
                                                                   {"d", "GENERATED AS IDENTITY"},
                                                                   {"e", "CURRENT_TIMESTAMP"},
                                                                   {"f", ""},
                                                                   {"g", "nextval()"},
                                                                   {"h", "random()"}}));
  r = analyze_statements(
      "ALTER TABLE t ALTER COLUMN b SET DEFAULT clock_timestamp(), ALTER COLUMN f SET DEFAULT "
      "'y', ADD COLUMN z int DEFAULT pg_backend_pid()");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ((*r)[0].default_changes, (std::vector<std::pair<std::string, std::string>>{
                                         {"b", "clock_timestamp()"}, {"f", ""}}));
  ASSERT_EQ((*r)[0].added_columns.size(), 1u);
  EXPECT_EQ((*r)[0].added_columns[0].varying_default, "pg_backend_pid()");
  EXPECT_TRUE(varies_by_server({"pg_catalog", "now"}));
  EXPECT_FALSE(varies_by_server({"myschema", "now"}));
  EXPECT_FALSE(varies_by_server({"", "lower"}));
}

}  // namespace
}  // namespace pgrange::sql
