#include "sql/insert_defaults.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "sql/sql_tokens.hpp"

namespace pgrange::sql {
namespace {

const std::vector<std::string> kColumns = {"id", "v", "w"};

TEST(InsertDefaults, RowsThatOmitTheColumnOrWriteDefault) {
  auto d = insert_column_defaults("insert into t (v) values ('a'), ('b')", "id", kColumns);
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->fillable);
  EXPECT_EQ(d->rows, (std::vector<size_t>{0, 1}));
  EXPECT_FALSE(d->given);

  d = insert_column_defaults("insert into t (id, v) values (default, 'a'), (7, 'b')", "id",
                             kColumns);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->rows, (std::vector<size_t>{0}));
  EXPECT_TRUE(d->given);

  d = insert_column_defaults("insert into t values (default, 'a') returning id", "id", kColumns);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->rows, (std::vector<size_t>{0}));

  d = insert_column_defaults("insert into t default values", "id", kColumns);
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->fillable);
  EXPECT_EQ(d->rows, (std::vector<size_t>{0}));

  d = insert_column_defaults("insert into t overriding system value values (1, 'a')", "id",
                             kColumns);
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->overriding_system);
  EXPECT_TRUE(d->given);
}

TEST(InsertDefaults, WhatCannotBeFilled) {
  auto d = insert_column_defaults("insert into t (v) select v from u", "id", kColumns);
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->fillable);
  d = insert_column_defaults("update t set v = 1", "id", kColumns);
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->fillable);
  // Without a column list the rows fill the columns in order: these never reach "w"'s place
  // with a row of another width.
  d = insert_column_defaults("insert into t values (1, 'a'), (2)", "w", kColumns);
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->fillable);
}

TEST(InsertDefaults, WritesTheValuesIntoTheStatement) {
  std::vector<std::string> two = {"11", "12"};
  auto s = insert_with_column_values("insert into t (v) values ('a'), ($1) returning id", "id",
                                     kColumns, two, false);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(*s, "INSERT INTO t (v, id) VALUES ('a', 11), ($1, 12) RETURNING id");

  std::vector<std::string> one = {"-5000000000"};
  s = insert_with_column_values("insert into t (id, v) values (7, 'b'), (default, 'a')", "id",
                                kColumns, one, true);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(*s,
            "INSERT INTO t (id, v) OVERRIDING SYSTEM VALUE VALUES (7, 'b'), (-5000000000, 'a')");

  s = insert_with_column_values("insert into t default values returning *", "id", kColumns,
                                std::vector<std::string>{"3"}, false);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(*s, "INSERT INTO t (id) VALUES (3) RETURNING *");

  s = insert_with_column_values("insert into t values ('x', 'y')", "w", kColumns,
                                std::vector<std::string>{"'4b1f0c8e-0000-4000-8000-000000000000'"},
                                false);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(*s,
            "INSERT INTO t (id, v, w) VALUES ('x', 'y', '4b1f0c8e-0000-4000-8000-000000000000')");

  auto bad =
      insert_with_column_values("insert into t (v) values ('a')", "id", kColumns, two, false);
  EXPECT_FALSE(bad);
}

}  // namespace
}  // namespace pgrange::sql

namespace pgrange::sql {
namespace {

TEST(InsertDefaults, InsertSelectLeavingTheColumnOutIsSeen) {
  const std::vector<std::string> cols = {"id", "v", "n"};
  auto left = [&](const char* sql, const char* column) {
    auto d = insert_column_defaults(sql, column, cols);
    EXPECT_TRUE(d.has_value()) << sql;
    return d && d->left_out;
  };
  EXPECT_TRUE(left("INSERT INTO t (v) SELECT v FROM s", "id"));
  EXPECT_FALSE(left("INSERT INTO t (id, v) SELECT k, v FROM s", "id"));
  EXPECT_FALSE(left("INSERT INTO t SELECT k, v FROM s", "id"));
  EXPECT_TRUE(left("INSERT INTO t SELECT k, v FROM s", "n"));
  EXPECT_FALSE(left("INSERT INTO t SELECT * FROM s", "n"));
  EXPECT_FALSE(left("INSERT INTO t SELECT s.* FROM s", "n"));
  EXPECT_FALSE(left("INSERT INTO t SELECT 1 UNION SELECT 2", "n"));
  EXPECT_FALSE(left("INSERT INTO t (v) VALUES ('x')", "id"));  // VALUES: filled, not left out
}

TEST(InsertDefaults, ParametersCanBeWrittenForTheColumn) {
  const std::vector<std::string> cols = {"id", "v"};
  auto r = insert_with_column_values("INSERT INTO t (v) VALUES ($1), ($2)", "id", cols,
                                     std::vector<std::string>{"$3", "$4"}, false);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(*r, "INSERT INTO t (v, id) VALUES ($1, $3), ($2, $4)");
}

TEST(SqlTokensTest, HighestParameter) {
  EXPECT_EQ(highest_parameter("SELECT 1"), 0);
  EXPECT_EQ(highest_parameter("SELECT $2, $10, $3"), 10);
  EXPECT_EQ(highest_parameter("SELECT '$5', $1 -- $7"), 1);
}

TEST(ReplaceParameters, OnlyParameterTokensAreReplaced) {
  auto r = replace_parameters("SELECT $2, '$1', \"$1\", $$ $1 $$, $1 /* $2 */ FROM t WHERE a=$1",
                              {"CAST('x' AS text)", "NULL"});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r,
            "SELECT NULL, '$1', \"$1\", $$ $1 $$, CAST('x' AS text) /* $2 */ FROM t WHERE "
            "a=CAST('x' AS text)");
  auto missing = replace_parameters("SELECT $3", {"1", "2"});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().sqlstate, "42P02");
  EXPECT_EQ(*replace_parameters("SELECT 1", {}), "SELECT 1");
  EXPECT_EQ(highest_parameter("SELECT $$ $9 $$"), 0);
}

}  // namespace
}  // namespace pgrange::sql
