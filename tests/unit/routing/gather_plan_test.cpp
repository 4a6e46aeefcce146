// The SQL a gather plan runs: each input's read (with its lookup), the rows as a literal, and
// the statement with its tables replaced. Which plan a statement gets is in planner/joins.test.
#include "routing/plan/gather_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace pgrange::routing {
namespace {

GatherPlan two_tables() {
  GatherPlan plan;
  plan.text = "SELECT u.name, o.id FROM users u JOIN public.orders AS o ON o.user_id = u.id";
  GatherInput u;
  u.table = "users";
  u.relation = "\"public\".\"users\"";
  u.qualifier = "u";
  u.aliased = true;
  u.name = "users";
  u.filter = "u.\"id\" = 5";
  u.provides = {"id"};
  u.name_begin = plan.text.find("users");
  u.name_end = u.name_begin + 5;
  GatherInput o;
  o.table = "orders";
  o.relation = "\"public\".\"orders\"";
  o.qualifier = "o";
  o.aliased = true;
  o.name = "orders";
  o.name_begin = plan.text.find("public.orders");
  o.name_end = o.name_begin + 13;
  o.lookup = GatherInput::Lookup{0, 0, "user_id", "int8"};
  plan.inputs = {u, o};
  return plan;
}

TEST(GatherPlan, ReadsPushDownConditionsAndLookUpByTheValuesReadBefore) {
  GatherPlan plan = two_tables();
  EXPECT_EQ(plan.fetch_sql(0),
            "SELECT u, u.\"id\" FROM \"public\".\"users\" AS u WHERE u.\"id\" = 5");
  // Values of the key's own type: a list the router reads (and prunes ranges by).
  std::vector<std::string> ids = {"5", "7"};
  EXPECT_EQ(plan.fetch_sql(1, &ids, "int8"),
            "SELECT o FROM \"public\".\"orders\" AS o WHERE o.\"user_id\" IN ('5', '7')");
  // Integers of another width compare exactly with the key's: listed too, so that the ranges
  // are pruned; a value the key's type cannot hold equals no key and is left out.
  EXPECT_EQ(plan.fetch_sql(1, &ids, "int4"),
            "SELECT o FROM \"public\".\"orders\" AS o WHERE o.\"user_id\" IN ('5', '7')");
  plan.inputs[1].lookup->key_type = "int4";
  std::vector<std::string> wide = {"-2147483649", "-2147483648", "2147483647", "2147483648"};
  EXPECT_EQ(plan.fetch_sql(1, &wide, "int8"),
            "SELECT o FROM \"public\".\"orders\" AS o WHERE o.\"user_id\" IN "
            "('-2147483648', '2147483647')");
  std::vector<std::string> too_wide = {"2147483648"};
  EXPECT_EQ(plan.fetch_sql(1, &too_wide, "int8"), std::nullopt);
  // varchar and text compare as text.
  plan.inputs[1].lookup->key_type = "text";
  std::vector<std::string> names = {"a'b"};
  EXPECT_EQ(plan.fetch_sql(1, &names, "varchar"),
            "SELECT o FROM \"public\".\"orders\" AS o WHERE o.\"user_id\" IN ('a''b')");
  plan.inputs[1].lookup->key_type = "int8";
  // Of another type: compared as that type, as the join compares them.
  EXPECT_EQ(plan.fetch_sql(1, &ids, "numeric"),
            "SELECT o FROM \"public\".\"orders\" AS o WHERE o.\"user_id\" = "
            "ANY(CAST($pgr${\"5\",\"7\"}$pgr$ AS numeric[]))");
  // Of a type pgrange cannot name: every row is read (the statement discards the others).
  EXPECT_EQ(plan.fetch_sql(1, &ids, ""), "SELECT o FROM \"public\".\"orders\" AS o");
  // No value: no row to read.
  std::vector<std::string> none;
  EXPECT_EQ(plan.fetch_sql(1, &none, "int8"), std::nullopt);
}

TEST(GatherPlan, ALookupByManyValuesIsReadInBatches) {
  GatherPlan plan = two_tables();
  // 25,000 integers: three reads, the values in numeric order (a batch stays in few ranges).
  std::set<std::string> values;
  for (int v = 1; v <= 25000; ++v) values.insert(std::to_string(v));
  std::vector<std::string> reads = plan.fetch_sqls(1, values, "int8");
  ASSERT_EQ(reads.size(), 3u);
  EXPECT_EQ(reads[0].rfind("SELECT o FROM \"public\".\"orders\" AS o WHERE o.\"user_id\" IN ('1', "
                           "'2', '3', ",
                           0),
            0u)
      << reads[0].substr(0, 120);
  EXPECT_NE(reads[0].find("'10000')"), std::string::npos);
  EXPECT_EQ(reads[0].find("'10001'"), std::string::npos);
  EXPECT_NE(reads[2].find("IN ('20001', "), std::string::npos);
  size_t listed = 0;
  for (const std::string& r : reads) listed += std::count(r.begin(), r.end(), ',') + 1;
  EXPECT_EQ(listed, 25000u);
  // Of another type it names: compared as that type, in batches too.
  reads = plan.fetch_sqls(1, values, "numeric");
  ASSERT_EQ(reads.size(), 3u);
  EXPECT_NE(reads[1].find("= ANY(CAST("), std::string::npos);
  // Of a type it cannot name: one read, not narrowed (never the table read once per batch).
  reads = plan.fetch_sqls(1, values, "");
  EXPECT_EQ(reads, std::vector<std::string>{"SELECT o FROM \"public\".\"orders\" AS o"});
  // A few values: one read; none that the key's type can hold: no read.
  EXPECT_EQ(plan.fetch_sqls(1, {"5", "7"}, "int8").size(), 1u);
  plan.inputs[1].lookup->key_type = "int2";
  EXPECT_TRUE(plan.fetch_sqls(1, {"40000", "-40000"}, "int8").empty());
}

TEST(GatherPlan, TheStatementReadsTheRowsInPlaceOfItsTables) {
  GatherPlan plan = two_tables();
  std::string sql = plan.final_sql({{"(5,a,Oslo)"}, {}});
  EXPECT_EQ(sql,
            "SELECT u.name, o.id FROM (SELECT * FROM unnest(CAST($pgr${\"(5,a,Oslo)\"}$pgr$ AS "
            "\"public\".\"users\"[]))) u JOIN (SELECT * FROM unnest(CAST($pgr${}$pgr$ AS "
            "\"public\".\"orders\"[]))) AS o ON o.user_id = u.id");
  // A table named without an alias keeps its name for the statement's references.
  plan.text = "SELECT users.name FROM users WHERE users.id > 1";
  plan.inputs.resize(1);
  plan.inputs[0].aliased = false;
  plan.inputs[0].name_begin = plan.text.find("users WHERE");
  plan.inputs[0].name_end = plan.inputs[0].name_begin + 5;
  EXPECT_EQ(plan.final_sql({{}}),
            "SELECT users.name FROM (SELECT * FROM unnest(CAST($pgr${}$pgr$ AS "
            "\"public\".\"users\"[]))) AS \"users\" WHERE users.id > 1");
}

TEST(GatherPlan, RowsPastQueryMemoryAreReadFromATemporaryTable) {
  GatherPlan plan = two_tables();
  EXPECT_EQ(
      plan.final_sql({{}, {"(1,5)"}}, {}, {}, {"pg_temp.\"pgrange_rows_7\"", ""}),
      "SELECT u.name, o.id FROM (SELECT (r).* FROM pg_temp.\"pgrange_rows_7\") u JOIN "
      "(SELECT * FROM unnest(CAST($pgr${\"(1,5)\"}$pgr$ AS \"public\".\"orders\"[]))) AS o ON "
      "o.user_id = u.id");
}

TEST(GatherPlan, RowLiteralsQuoteEverythingAndNeverEndEarly) {
  // Quotes and backslashes are escaped for the array; the dollar quote's tag is one the rows
  // do not contain.
  EXPECT_EQ(rows_literal({"(1,\"a \"\"b\"\"\")", "(2,x\\y)"}, "t"),
            "CAST($pgr${\"(1,\\\"a \\\"\\\"b\\\"\\\"\\\")\",\"(2,x\\\\y)\"}$pgr$ AS t[])");
  EXPECT_EQ(rows_literal({"(1,$pgr$)"}, "t"), "CAST($pgr1${\"(1,$pgr$)\"}$pgr1$ AS t[])");
  EXPECT_EQ(rows_literal({"(1,$pgr$,$pgr1$)"}, "t"),
            "CAST($pgr2${\"(1,$pgr$,$pgr1$)\"}$pgr2$ AS t[])");
}

TEST(GatherPlan, ASummarizedQueryIsReplacedByItsRows) {
  GatherPlan plan;
  plan.text = "WITH t AS (SELECT user_id, count(*) FROM orders GROUP BY 1) SELECT * FROM t";
  GatherInput o;
  o.table = "orders";
  o.relation = "\"public\".\"orders\"";
  o.qualifier = "\"orders\"";
  o.name = "orders";
  o.name_begin = plan.text.find("orders");
  o.name_end = o.name_begin + 6;
  o.summary = GatherInput::Summary{plan.text.find("SELECT"), plan.text.find(") SELECT"), {}};
  plan.inputs = {o};
  EXPECT_EQ(plan.summary_sql(0), "SELECT user_id, count(*) FROM orders GROUP BY 1");
  // Summarized: the query gives way to its rows' query.
  EXPECT_EQ(plan.final_sql({{"SELECT 1"}}, {}, {true}), "WITH t AS (SELECT 1) SELECT * FROM t");
  // Not (its merge refused): the table gives way to its rows, as for any input.
  EXPECT_EQ(plan.final_sql({{"(1,2)"}}, {}, {false}),
            "WITH t AS (SELECT user_id, count(*) FROM (SELECT * FROM unnest(CAST($pgr${\"(1,2)\"}"
            "$pgr$ AS \"public\".\"orders\"[]))) AS \"orders\" GROUP BY 1) SELECT * FROM t");
}

TEST(GatherPlan, ASummarysRowsAreTextArraysCastColumnByColumn) {
  std::vector<std::vector<std::optional<std::string>>> columns = {{"1", "2", std::nullopt},
                                                                  {"a\"b", std::nullopt, "{1,2}"}};
  EXPECT_EQ(summary_rows_sql({"id", "Odd Name"}, {"bigint", "integer[]"}, columns, false),
            "SELECT CAST(c1 AS bigint) AS \"id\", CAST(c2 AS integer[]) AS \"Odd Name\" FROM "
            "unnest(CAST($pgr${\"1\",\"2\",NULL}$pgr$ AS text[]), "
            "CAST($pgr${\"a\\\"b\",NULL,\"{1,2}\"}$pgr$ AS text[])) AS pgrange_rows (c1, c2)");
  // Ordered (its query has ORDER BY): the rows keep their order, whatever the columns' names.
  EXPECT_EQ(summary_rows_sql({"pgrange_n"}, {"numeric"}, {{}}, true),
            "SELECT CAST(c1 AS numeric) AS \"pgrange_n\" FROM unnest(CAST($pgr${}$pgr$ AS text[])) "
            "WITH ORDINALITY AS pgrange_rows (c1, pgrange_n) ORDER BY pgrange_rows.pgrange_n");
}

TEST(GatherPlan, LookupTypesAreTheBuiltInTypesByOid) {
  EXPECT_EQ(builtin_type_name(20), "int8");
  EXPECT_EQ(builtin_type_name(25), "text");
  EXPECT_EQ(builtin_type_name(2950), "uuid");
  EXPECT_EQ(builtin_type_name(1184), "timestamptz");
  EXPECT_EQ(builtin_type_name(114), "");  // json: not compared
}

}  // namespace
}  // namespace pgrange::routing
