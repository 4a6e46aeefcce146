#include "sql/hash_sharded_key.hpp"

#include <gtest/gtest.h>

namespace pgrange::sql {
namespace {

HashShardedCreate stripped(std::string_view sql) {
  auto r = strip_hash_sharding(sql);
  EXPECT_TRUE(r.has_value()) << r.error().message;
  EXPECT_TRUE(r.has_value() && r->has_value()) << sql;
  return r && *r ? **r : HashShardedCreate{};
}

Error error_of(std::string_view sql) {
  auto r = strip_hash_sharding(sql);
  EXPECT_FALSE(r.has_value()) << sql;
  return r ? Error{} : r.error();
}

TEST(HashShardedKey, TableConstraintWithBucketCount) {
  auto h = stripped(
      "CREATE TABLE t (id INT8, ts TIMESTAMPTZ, PRIMARY KEY (id) USING HASH WITH "
      "(bucket_count = 8))");
  EXPECT_EQ(h.buckets, 8u);
  // The clause becomes a space: the tokens around it stay apart.
  EXPECT_EQ(h.sql, "CREATE TABLE t (id INT8, ts TIMESTAMPTZ, PRIMARY KEY (id)  )");
}

TEST(HashShardedKey, DefaultsToSixteenBuckets) {
  auto h = stripped("create table t (a int, b text, primary key (a, b) using hash);");
  EXPECT_EQ(h.buckets, 16u);
  EXPECT_EQ(h.sql, "create table t (a int, b text, primary key (a, b)  );");
}

TEST(HashShardedKey, ColumnConstraintAndOldSyntax) {
  auto h =
      stripped("CREATE TABLE t (id int8 PRIMARY KEY USING HASH WITH BUCKET_COUNT = 4, v text)");
  EXPECT_EQ(h.buckets, 4u);
  EXPECT_EQ(h.sql, "CREATE TABLE t (id int8 PRIMARY KEY  , v text)");
  auto u = stripped("CREATE UNLOGGED TABLE IF NOT EXISTS s.t (id int8 PRIMARY KEY USING HASH)");
  EXPECT_EQ(u.buckets, 16u);
}

TEST(HashShardedKey, CommentsAndQuotedWordsAreNotClauses) {
  auto h = stripped(
      "CREATE TABLE t (\"using hash\" text, id int8, /* using hash */ PRIMARY KEY (id) -- x\n"
      "  USING HASH WITH (bucket_count=3))");
  EXPECT_EQ(h.buckets, 3u);
  EXPECT_EQ(h.sql,
            "CREATE TABLE t (\"using hash\" text, id int8, /* using hash */ PRIMARY KEY (id) -- x\n"
            "   )");
}

TEST(HashShardedKey, OtherStatementsAreLeftAlone) {
  for (std::string_view sql : {
           "CREATE INDEX i ON t USING HASH (v)",
           "CREATE TABLE t (id int8 PRIMARY KEY, v text)",
           "CREATE TABLE t (id int8, PRIMARY KEY (id) WITH (fillfactor = 70))",
           "SELECT 'primary key (id) using hash'",
           "CREATE TABLE hash (id int8 PRIMARY KEY)",
       }) {
    auto r = strip_hash_sharding(sql);
    ASSERT_TRUE(r.has_value()) << sql;
    EXPECT_FALSE(r->has_value()) << sql;
  }
}

TEST(HashShardedKey, BadBucketCounts) {
  for (std::string_view sql : {
           "CREATE TABLE t (id int8, PRIMARY KEY (id) USING HASH WITH (bucket_count = 0))",
           "CREATE TABLE t (id int8, PRIMARY KEY (id) USING HASH WITH (bucket_count = 1))",
           "CREATE TABLE t (id int8, PRIMARY KEY (id) USING HASH WITH (bucket_count = 4096))",
           "CREATE TABLE t (id int8, PRIMARY KEY (id) USING HASH WITH (bucket_count = -3))",
           "CREATE TABLE t (id int8, PRIMARY KEY (id) USING HASH WITH (bucket_count = 2.5))",
           "CREATE TABLE t (id int8, PRIMARY KEY (id) USING HASH WITH (bucket_count = 'x'))",
       }) {
    Error e = error_of(sql);
    EXPECT_EQ(e.sqlstate, "22023") << sql;
    EXPECT_NE(e.message.find("bucket count must be in range [2, 2048]"), std::string::npos)
        << e.message;
  }
  Error other =
      error_of("CREATE TABLE t (id int8, PRIMARY KEY (id) USING HASH WITH (fillfactor = 5))");
  EXPECT_EQ(other.sqlstate, "22023");
  EXPECT_NE(other.message.find("\"fillfactor\""), std::string::npos) << other.message;
  Error more = error_of(
      "CREATE TABLE t (id int8, PRIMARY KEY (id) USING HASH WITH (bucket_count = 4, x = 1))");
  EXPECT_EQ(more.sqlstate, "22023");
}

TEST(HashShardedKey, MalformedWithIsASyntaxError) {
  for (std::string_view sql : {
           "CREATE TABLE t (id int8, PRIMARY KEY (id) USING HASH WITH (bucket_count 4))",
           "CREATE TABLE t (id int8, PRIMARY KEY (id) USING HASH WITH (bucket_count = 4 x))",
           "CREATE TABLE t (id int8, PRIMARY KEY (id) USING HASH WITH ()",
       }) {
    EXPECT_EQ(error_of(sql).sqlstate, "42601") << sql;
  }
}

TEST(HashShardedKey, AlterTableIsRefused) {
  Error e = error_of("ALTER TABLE t ADD PRIMARY KEY (id) USING HASH WITH (bucket_count = 8)");
  EXPECT_EQ(e.sqlstate, "0A000");
  EXPECT_EQ(error_of("CREATE TABLE t (id int8 PRIMARY KEY USING HASH, PRIMARY KEY (id) USING "
                     "HASH)")
                .sqlstate,
            "42P16");
}

}  // namespace
}  // namespace pgrange::sql
