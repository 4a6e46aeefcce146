#include "sql/merge_query.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pgrange::sql {
namespace {

const std::vector<std::string> kKeys = {"id"};
const std::vector<std::string> kColumns = {"id", "grp", "name", "amount"};

MergeQuery plan(const std::string& sql) {
  auto q = plan_merge(sql, kKeys, kColumns);
  EXPECT_TRUE(q.has_value()) << sql << ": " << (q ? "" : q.error().message);
  return q ? *q : MergeQuery{};
}

std::string refusal(const std::string& sql) {
  auto q = plan_merge(sql, kKeys, kColumns);
  if (q) return "planned: " + q->shard_sql;
  EXPECT_EQ(q.error().sqlstate, "0A000") << sql;
  return q.error().message;
}

TEST(MergeQuery, OrderByLimitOffsetPushesTheSumDown) {
  MergeQuery q =
      plan("SELECT id, name FROM t WHERE id > 5 ORDER BY name DESC, id LIMIT 10 OFFSET 5");
  EXPECT_EQ(q.mode, MergeQuery::Mode::kOrdered);
  EXPECT_EQ(q.shard_sql, "SELECT id, name FROM t WHERE id > 5 ORDER BY name DESC, id LIMIT 15");
  EXPECT_EQ(q.visible, 2);
  EXPECT_EQ(q.hidden, 0);
  ASSERT_EQ(q.order.size(), 2u);
  EXPECT_EQ(q.order[0], (MergeSortKey{1, true, true}));
  EXPECT_EQ(q.order[1], (MergeSortKey{0, false, false}));
  EXPECT_EQ(q.limit, 10);
  EXPECT_EQ(q.offset, 5);
  EXPECT_TRUE(q.limit_pushed);
}

TEST(MergeQuery, ParameterLimitAndOffsetAreAddedUpByTheShards) {
  MergeQuery q = plan("SELECT id, name FROM t WHERE grp = $1 ORDER BY name, id LIMIT $2 OFFSET $3");
  EXPECT_EQ(q.shard_sql,
            "SELECT id, name FROM t WHERE grp = $1 ORDER BY name, id "
            "LIMIT ($2::bigint + $3::bigint)");
  EXPECT_EQ(q.limit_param, 2);
  EXPECT_EQ(q.offset_param, 3);
  EXPECT_FALSE(q.limit);
  EXPECT_TRUE(q.limit_pushed);

  // A constant beside a parameter, and the client's own cast kept under pgrange's.
  EXPECT_EQ(plan("SELECT id FROM t ORDER BY id LIMIT 10 OFFSET $1::int4").shard_sql,
            "SELECT id FROM t ORDER BY id LIMIT (10 + $1::int4::bigint)");
  EXPECT_EQ(plan("SELECT id FROM t ORDER BY id LIMIT $1 OFFSET 4").shard_sql,
            "SELECT id FROM t ORDER BY id LIMIT ($1::bigint + 4)");
  // No LIMIT: the shards send everything, yet still name the parameter so that PostgreSQL
  // infers its type.
  MergeQuery offset_only = plan("SELECT id FROM t ORDER BY id OFFSET $1");
  EXPECT_EQ(offset_only.shard_sql, "SELECT id FROM t ORDER BY id LIMIT (NULL + $1::bigint)");
  EXPECT_FALSE(offset_only.limit_pushed);
  // Aggregates: the limit applies to the combined groups, never on the shards.
  MergeQuery groups = plan("SELECT grp, count(*) FROM t GROUP BY grp ORDER BY grp LIMIT $1");
  EXPECT_EQ(groups.mode, MergeQuery::Mode::kAggregate);
  EXPECT_EQ(groups.limit_param, 1);
  EXPECT_FALSE(groups.limit_pushed);
  EXPECT_NE(groups.shard_sql.find("LIMIT (NULL + $1::bigint)"), std::string::npos)
      << groups.shard_sql;
  // Without ORDER BY or OFFSET the shards run the client's text.
  EXPECT_EQ(plan("SELECT id FROM t LIMIT $1").shard_sql, "SELECT id FROM t LIMIT $1");
  // Anything else is still refused.
  EXPECT_EQ(refusal("SELECT id FROM t ORDER BY id LIMIT $1 + 1"),
            "LIMIT with anything but a constant or a parameter over a table spread across "
            "several shards is not supported");
}

TEST(MergeQuery, BindBoundsSetsTheValuesAndRefusesNegativeOnes) {
  MergeQuery q = plan("SELECT id FROM t ORDER BY id LIMIT $1 OFFSET $2");
  auto values = [](std::optional<int64_t> limit, std::optional<int64_t> offset) {
    return [=](int n) -> Result<std::optional<int64_t>> { return n == 1 ? limit : offset; };
  };
  auto bound = bind_bounds(q, values(10, 5));
  ASSERT_TRUE(bound.has_value());
  EXPECT_EQ(bound->limit, 10);
  EXPECT_EQ(bound->offset, 5);
  auto nulls = bind_bounds(q, values(std::nullopt, std::nullopt));
  ASSERT_TRUE(nulls.has_value());
  EXPECT_FALSE(nulls->limit);  // LIMIT NULL: no limit; OFFSET NULL: none
  EXPECT_EQ(nulls->offset, 0);
  auto negative_limit = bind_bounds(q, values(-1, 0));
  ASSERT_FALSE(negative_limit.has_value());
  EXPECT_EQ(negative_limit.error().sqlstate, "2201W");
  EXPECT_EQ(negative_limit.error().message, "LIMIT must not be negative");
  auto negative_offset = bind_bounds(q, values(1, -3));
  ASSERT_FALSE(negative_offset.has_value());
  EXPECT_EQ(negative_offset.error().sqlstate, "2201X");
  auto bad = bind_bounds(q, [](int) -> Result<std::optional<int64_t>> {
    return tl::unexpected(Error::make("22P02", "invalid input syntax for type bigint: \"x\""));
  });
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().sqlstate, "22P02");
}

TEST(MergeQuery, SortExpressionsNotSelectedBecomeHiddenColumns) {
  MergeQuery q = plan("SELECT name FROM t ORDER BY amount * -1 NULLS FIRST, lower(name), 1");
  EXPECT_EQ(q.shard_sql,
            "SELECT name, amount * -1, lower(name) FROM t ORDER BY amount * -1 NULLS FIRST, "
            "lower(name), 1");
  EXPECT_EQ(q.hidden, 2);
  ASSERT_EQ(q.order.size(), 3u);
  EXPECT_EQ(q.order[0], (MergeSortKey{-2, false, true}));
  EXPECT_EQ(q.order[1], (MergeSortKey{-1, false, false}));
  EXPECT_EQ(q.order[2], (MergeSortKey{0, false, false}));
}

TEST(MergeQuery, OrderByOutputNameAndSelectedExpression) {
  MergeQuery q = plan("SELECT id AS k, amount * 2 FROM t ORDER BY k DESC, amount * 2");
  EXPECT_EQ(q.hidden, 0);
  EXPECT_EQ(q.order[0], (MergeSortKey{0, true, true}));
  EXPECT_EQ(q.order[1], (MergeSortKey{1, false, false}));
}

TEST(MergeQuery, StarKeepsOrderColumnsAfterIt) {
  MergeQuery q = plan("SELECT * FROM t ORDER BY name LIMIT 3");
  EXPECT_EQ(q.visible, -1);
  EXPECT_EQ(q.hidden, 1);
  EXPECT_EQ(q.shard_sql, "SELECT *, name FROM t ORDER BY name LIMIT 3");
  EXPECT_EQ(q.order[0].column, -1);
}

TEST(MergeQuery, DistinctSortsByEveryColumn) {
  MergeQuery q = plan("SELECT DISTINCT grp, name FROM t ORDER BY name DESC");
  EXPECT_TRUE(q.distinct);
  EXPECT_EQ(q.shard_sql, "SELECT DISTINCT grp, name FROM t ORDER BY 2 DESC, 1");
  ASSERT_EQ(q.order.size(), 2u);
  EXPECT_EQ(q.order[0], (MergeSortKey{1, true, true}));
  EXPECT_EQ(q.order[1], (MergeSortKey{0, false, false}));
}

TEST(MergeQuery, WindowsSayWhatEveryPartitionNames) {
  using Names = std::vector<std::string>;
  EXPECT_FALSE(plan("SELECT id, name FROM t ORDER BY id").window_partition);
  MergeQuery q = plan(
      "SELECT id, row_number() OVER (PARTITION BY grp, t.id ORDER BY name) FROM t ORDER BY id");
  EXPECT_EQ(q.mode, MergeQuery::Mode::kOrdered);
  EXPECT_EQ(q.window_partition, (Names{"grp", "id"}));
  // Every window's: what they all name.
  EXPECT_EQ(plan("SELECT rank() OVER (PARTITION BY grp ORDER BY id), count(*) OVER (PARTITION BY "
                 "id, grp) FROM t")
                .window_partition,
            (Names{"grp"}));
  EXPECT_EQ(
      plan("SELECT count(*) OVER (PARTITION BY grp), count(*) OVER () FROM t").window_partition,
      (Names{}));
  // Expressions name no column.
  EXPECT_EQ(plan("SELECT count(*) OVER (PARTITION BY id + 0) FROM t").window_partition, (Names{}));
  // Named windows, and windows naming them, take the named one's PARTITION BY.
  EXPECT_EQ(plan("SELECT sum(amount) OVER w, rank() OVER (v ORDER BY name) FROM t WINDOW w AS "
                 "(PARTITION BY id, grp), v AS (w) ORDER BY id")
                .window_partition,
            (Names{"id", "grp"}));
  EXPECT_EQ(plan("SELECT sum(amount) OVER nowhere FROM t").window_partition, (Names{}));
  // A window in ORDER BY only, not selected: the shards compute it as a hidden column.
  q = plan("SELECT id FROM t ORDER BY row_number() OVER (PARTITION BY id ORDER BY grp), id");
  EXPECT_EQ(q.window_partition, (Names{"id"}));
  EXPECT_EQ(q.hidden, 1);
  // A window over groups pgrange combines is not the shards'.
  EXPECT_EQ(refusal("SELECT grp, rank() OVER (PARTITION BY grp ORDER BY sum(amount)) FROM t GROUP "
                    "BY grp"),
            "window function over a table spread across several shards is not supported");
  // Over groups of the key, each shard's groups are the answer's: the windows too.
  EXPECT_EQ(plan("SELECT id, sum(amount), rank() OVER (PARTITION BY id ORDER BY sum(amount)) FROM "
                 "t GROUP BY id")
                .window_partition,
            (Names{"id"}));
  for (const std::string& line :
       describe_merge(plan("SELECT id, lag(id) OVER (PARTITION BY id) FROM t ORDER BY id"))) {
    if (line.find("window") != std::string::npos) {
      EXPECT_EQ(line,
                "window functions computed on each shard: every partition's rows are on one shard");
      return;
    }
  }
  ADD_FAILURE() << "EXPLAIN says nothing of the windows";
}

TEST(MergeQuery, GroupByTheKeyRunsWholeOnEachShard) {
  MergeQuery q =
      plan("SELECT id, count(*) FROM t GROUP BY id HAVING count(*) > 1 ORDER BY 2 LIMIT 4");
  EXPECT_EQ(q.mode, MergeQuery::Mode::kOrdered);
  EXPECT_EQ(q.shard_sql,
            "SELECT id, count(*) FROM t GROUP BY id HAVING count(*) > 1 ORDER BY 2 LIMIT 4");
}

TEST(MergeQuery, AggregatesBecomePartials) {
  MergeQuery q = plan(
      "SELECT grp, count(*), sum(amount) AS total, avg(amount), min(name) FROM t WHERE id > 0 "
      "GROUP BY grp HAVING max(id) > 10 ORDER BY total DESC, 1 LIMIT 5 OFFSET 1");
  EXPECT_EQ(q.mode, MergeQuery::Mode::kAggregate);
  EXPECT_EQ(q.shard_sql,
            "SELECT grp, count(*), sum(amount) AS total, sum(amount * 1) AS avg, count(amount), "
            "min(name), max(id) FROM t WHERE id > 0 GROUP BY 1 ORDER BY 1");
  EXPECT_EQ(q.group_columns, 1);
  ASSERT_EQ(q.aggregates.size(), 5u);
  EXPECT_EQ(q.aggregates[0].kind, MergeAggregate::Kind::kCount);
  EXPECT_EQ(q.aggregates[0].column, 1);
  EXPECT_EQ(q.aggregates[2].kind, MergeAggregate::Kind::kAvg);
  EXPECT_EQ(q.aggregates[2].column, 3);
  EXPECT_EQ(q.aggregates[3].column, 5);
  EXPECT_EQ(q.aggregates[4].kind, MergeAggregate::Kind::kMax);
  EXPECT_EQ(q.visible_outputs, 5);
  ASSERT_EQ(q.outputs.size(), 6u);  // max(id) is hidden, for HAVING
  EXPECT_EQ(q.outputs[5], (MergeOutput{false, 4}));
  ASSERT_TRUE(q.having.has_value());
  EXPECT_EQ(q.having->kind, MergePredicate::Kind::kCompare);
  EXPECT_EQ(q.having->left, 5);
  EXPECT_EQ(q.having->op, ">");
  EXPECT_EQ(q.having->right_text, "10");
  EXPECT_EQ(q.order[0], (MergeSortKey{2, true, true}));
  EXPECT_EQ(q.order[1], (MergeSortKey{0, false, false}));
  EXPECT_EQ(q.limit, 5);
  EXPECT_EQ(q.offset, 1);
  EXPECT_FALSE(q.limit_pushed);
  EXPECT_EQ(q.output_names[2], "total");
}

TEST(MergeQuery, UngroupedAggregateAndCountDistinctKey) {
  MergeQuery q = plan("SELECT count(DISTINCT id), max(amount) FILTER (WHERE grp = 1) FROM t");
  EXPECT_EQ(q.shard_sql, "SELECT count(DISTINCT id), max(amount) FILTER (WHERE grp = 1) FROM t");
  EXPECT_EQ(q.group_columns, 0);
}

TEST(MergeQuery, GroupByPositionAndAlias) {
  MergeQuery a = plan("SELECT lower(name) AS l, count(*) FROM t GROUP BY 1");
  MergeQuery b = plan("SELECT lower(name) AS l, count(*) FROM t GROUP BY l");
  EXPECT_EQ(a.shard_sql, "SELECT lower(name) AS l, count(*) FROM t GROUP BY 1 ORDER BY 1");
  EXPECT_EQ(a.shard_sql, b.shard_sql);
  EXPECT_EQ(a.outputs[0], (MergeOutput{true, 0}));
}

TEST(MergeQuery, HavingTrees) {
  MergeQuery q = plan(
      "SELECT grp FROM t GROUP BY grp HAVING NOT (5 < count(*) OR sum(amount) IS NULL) AND grp <> "
      "3");
  ASSERT_TRUE(q.having.has_value());
  EXPECT_EQ(q.having->kind, MergePredicate::Kind::kAnd);
  const MergePredicate& no = q.having->children[0];
  EXPECT_EQ(no.kind, MergePredicate::Kind::kNot);
  EXPECT_EQ(no.children[0].kind, MergePredicate::Kind::kOr);
  EXPECT_EQ(no.children[0].children[0].op, ">");  // flipped: count(*) > 5
  EXPECT_EQ(no.children[0].children[1].kind, MergePredicate::Kind::kIsNull);
  EXPECT_EQ(q.having->children[1].left, 0);
}

TEST(MergeQuery, RefusesWhatItCannotCombine) {
  EXPECT_NE(refusal("SELECT DISTINCT ON (grp) grp, id FROM t ORDER BY grp, id").find("DISTINCT ON"),
            std::string::npos);
  EXPECT_NE(refusal("SELECT grp, count(DISTINCT name) FROM t GROUP BY grp").find("DISTINCT"),
            std::string::npos);
  EXPECT_NE(refusal("SELECT string_agg(name, ',') FROM t").find("string_agg"), std::string::npos);
  EXPECT_NE(refusal("SELECT sum(amount) + 1 FROM t").find("expression over aggregates"),
            std::string::npos);
  EXPECT_NE(refusal("SELECT grp, count(*) FROM t GROUP BY ROLLUP (grp)").find("ROLLUP"),
            std::string::npos);
  EXPECT_NE(refusal("SELECT id FROM t ORDER BY name COLLATE \"en_US\"").find("COLLATE"),
            std::string::npos);
  EXPECT_NE(refusal("SELECT id FROM t ORDER BY id LIMIT random()::int").find("LIMIT"),
            std::string::npos);
  EXPECT_NE(refusal("SELECT id FROM t ORDER BY id FETCH FIRST 2 ROWS WITH TIES").find("WITH TIES"),
            std::string::npos);
  EXPECT_NE(refusal("SELECT DISTINCT grp FROM t ORDER BY id").find("DISTINCT"), std::string::npos);
  EXPECT_NE(refusal("SELECT name, count(*) FROM t GROUP BY grp").find("neither"),
            std::string::npos);
  EXPECT_NE(
      refusal("SELECT grp FROM t GROUP BY grp HAVING count(*) > avg(amount) + 1").find("HAVING"),
      std::string::npos);
}

TEST(MergeQuery, WhatNeedsNoMergeRunsAsWritten) {
  MergeQuery q = plan("select  id, name FROM t WHERE id > 5 -- comment");
  EXPECT_EQ(q.mode, MergeQuery::Mode::kOrdered);
  EXPECT_EQ(q.shard_sql, "select  id, name FROM t WHERE id > 5 -- comment");
  EXPECT_TRUE(q.order.empty());
  EXPECT_FALSE(q.limit.has_value());
  // ORDER BY selected columns and LIMIT without OFFSET need no rewriting either.
  q = plan("select id from t where id > 7 order by id desc limit 10");
  EXPECT_EQ(q.shard_sql, "select id from t where id > 7 order by id desc limit 10");
  EXPECT_EQ(q.limit, 10);
  EXPECT_TRUE(q.limit_pushed);
  ASSERT_EQ(q.order.size(), 1u);
  // With an OFFSET the shards' LIMIT is rewritten.
  q = plan("select id from t order by id limit 10 offset 2");
  EXPECT_EQ(q.shard_sql, "SELECT id FROM t ORDER BY id LIMIT 12");
}

TEST(MergeQuery, CollationsOtherThanCAnywhereTheMergeComparesAreRefused) {
  for (const char* sql :
       {"SELECT name COLLATE \"en_US\" AS n FROM t ORDER BY n",
        "SELECT name COLLATE \"en_US\" FROM t ORDER BY 1",
        "SELECT DISTINCT name COLLATE \"en_US\" FROM t",
        "SELECT name COLLATE \"en_US\", count(*) FROM t GROUP BY 1",
        "SELECT min(name COLLATE \"en_US\") FROM t",
        "SELECT grp FROM t GROUP BY grp HAVING max(name COLLATE \"de_DE\") > 'a'"}) {
    EXPECT_NE(refusal(sql).find("COLLATE"), std::string::npos) << sql;
  }
  // In WHERE a collation only filters rows: merged as usual.
  MergeQuery q = plan("SELECT id FROM t WHERE name COLLATE \"en_US\" > 'a' ORDER BY id");
  EXPECT_EQ(q.order.size(), 1u);
}

TEST(MergeQuery, QualifiedColumnsAreTheSameColumns) {
  MergeQuery q = plan("SELECT t.name, count(*) FROM t GROUP BY name ORDER BY t.name");
  EXPECT_EQ(q.mode, MergeQuery::Mode::kAggregate);
  EXPECT_EQ(q.outputs[0], (MergeOutput{true, 0}));
  EXPECT_EQ(q.order[0].column, 0);
  q = plan("SELECT count(DISTINCT t.id) FROM t");
  EXPECT_EQ(q.aggregates[0].kind, MergeAggregate::Kind::kCount);
  q = plan("SELECT t.id, count(*) FROM public.t GROUP BY t.id");
  EXPECT_EQ(q.mode, MergeQuery::Mode::kOrdered);  // grouped by the key: whole on each shard
}

TEST(MergeQuery, DescribeNamesWhatTheMergeDoes) {
  MergeQuery q = plan("SELECT id FROM t ORDER BY id LIMIT 9223372036854775807 OFFSET 5");
  auto lines = describe_merge(q);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "shard query: SELECT id FROM t ORDER BY id LIMIT 9223372036854775807");
  EXPECT_EQ(lines.back(),
            "LIMIT 9223372036854775807 after the merge (LIMIT 9223372036854775807 on each shard; "
            "shards stop when it is reached)");
  lines = describe_merge(plan("SELECT name FROM t GROUP BY name"));
  for (const std::string& l : lines) EXPECT_EQ(l.find("aggregates"), std::string::npos) << l;
}

TEST(MergeQuery, CollateCIsMergedBytewise) {
  MergeQuery q = plan("SELECT id FROM t ORDER BY name COLLATE \"C\" DESC");
  EXPECT_EQ(q.hidden, 1);
  EXPECT_EQ(q.shard_sql, "SELECT id, name COLLATE \"C\" FROM t ORDER BY name COLLATE \"C\" DESC");
}

}  // namespace
}  // namespace pgrange::sql
