#include "routing/plan/write_plan.hpp"

#include <gtest/gtest.h>

namespace pgrange::routing {
namespace {

sql::StatementInfo statement(sql::StatementKind kind) {
  sql::StatementInfo info;
  info.kind = kind;
  return info;
}

TEST(WritePlan, SplitsAnInsertsRowsByTheShardOwningEach) {
  Route route;
  route.shards = {0, 2};
  route.row_shards = {2, 0, 2};
  auto s = shard_statements("insert into t values (1, 'a'), (2, 'b'), (3, 'c') returning id",
                            statement(sql::StatementKind::kInsert), route);
  ASSERT_TRUE(s.has_value()) << s.error().message;
  ASSERT_EQ(s->size(), 2u);
  // The client's own text around each shard's rows.
  EXPECT_EQ(s->at(0), "insert into t values (2, 'b') returning id");
  EXPECT_EQ(s->at(2), "insert into t values (1, 'a'), (3, 'c') returning id");
  // In shard order: the order they run in.
  EXPECT_EQ(s->begin()->first, 0);
  // Rows the text does not show plainly are written from the statement's parse tree.
  s = shard_statements("insert into t (values (1, 'a'), (2, 'b'), (3, 'c'))",
                       statement(sql::StatementKind::kInsert), route);
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_EQ(s->at(0), "INSERT INTO t VALUES (2, 'b')");
  EXPECT_EQ(s->at(2), "INSERT INTO t VALUES (1, 'a'), (3, 'c')");
}

TEST(WritePlan, RunsOtherWritesAndReferenceTablesWritesWhole) {
  Route route;
  route.shards = {1, 2};
  auto s = shard_statements("update t set v = 1 where id > 5",
                            statement(sql::StatementKind::kUpdate), route);
  ASSERT_TRUE(s.has_value());
  ASSERT_EQ(s->size(), 2u);
  EXPECT_EQ(s->at(1), "update t set v = 1 where id > 5");
  EXPECT_EQ(s->at(2), "update t set v = 1 where id > 5");

  route.replicated = true;  // every copy gets every row
  route.row_shards = {1, 2};
  s = shard_statements("insert into r values (1), (2)", statement(sql::StatementKind::kInsert),
                       route);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->at(1), "insert into r values (1), (2)");
  EXPECT_EQ(s->at(2), "insert into r values (1), (2)");
}

TEST(WritePlan, OneShardRunsTheStatementAsItIs) {
  Route route;
  route.shards = {1};
  route.row_shards = {1, 1};
  auto s = shard_statements("insert into t values (1), (2)", statement(sql::StatementKind::kInsert),
                            route);
  ASSERT_TRUE(s.has_value());
  ASSERT_EQ(s->size(), 1u);
  EXPECT_EQ(s->at(1), "insert into t values (1), (2)");
}

TEST(WritePlan, AnInsertThatIsNotValuesCannotBeSplit) {
  Route route;
  route.shards = {0, 1};
  route.row_shards = {0, 1};
  auto s = shard_statements("insert into t select * from u", statement(sql::StatementKind::kInsert),
                            route);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().sqlstate, "0A000");
}

}  // namespace
}  // namespace pgrange::routing
