// Temporary relations through pgrange, over three shards holding a pgrange table `shadow` spread
// over all of them. A temporary relation lives on the session's own connection, and PostgreSQL
// resolves an unqualified name to the session's temporary relation before a permanent one: a
// temporary `shadow` is what `shadow` means while it exists, for DDL too. Each script runs
// statement by statement through pgrange and on one plain PostgreSQL database holding the same
// permanent table; every answer must match, and the permanent table must survive on every
// shard with all its rows. Run with a pool of one connection, with several, and in session
// pooling.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/process.hpp"
#include "tests/support/shard_cluster.hpp"

namespace pgrange::testing {
namespace {

/// A simple Query of `sql`.
ScriptStep query(std::string sql) {
  ScriptStep s("");
  s.sql = std::move(sql);
  return s;
}

ScriptStep prepare(std::string name, std::string sql) {
  ScriptStep s(std::move(sql), {});
  s.prepare = std::move(name);
  return s;
}

ScriptStep execute(std::string name, std::vector<std::string> params) {
  ScriptStep s("EXECUTE " + name, std::move(params));
  s.execute = std::move(name);
  return s;
}

/// Transaction pooling, one connection per shard (one worker).
struct PoolOfOne {
  static constexpr int kPoolSize = 1;
  static constexpr int kWorkers = 1;
  static constexpr const char* kMode = "transaction";
};
/// Transaction pooling, several connections per shard and worker.
struct PoolOfSeveral {
  static constexpr int kPoolSize = 6;
  static constexpr int kWorkers = 2;
  static constexpr const char* kMode = "transaction";
};
/// Session pooling (the session keeps its connection).
struct SessionPooling {
  static constexpr int kPoolSize = 6;
  static constexpr int kWorkers = 2;
  static constexpr const char* kMode = "session";
};

template <typename Setup>
class TempRelationTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ShardCluster::Options o;
    o.databases = {"app", "ref"};
    o.pool_size = Setup::kPoolSize;
    o.workers = Setup::kWorkers;
    o.pool_mode = Setup::kMode;
    cluster_ = ShardCluster::start(o);
    ASSERT_EQ(cluster_->run_setup({"CREATE TABLE shadow (id int8 PRIMARY KEY, v text)",
                                   "INSERT INTO shadow SELECT g, 'v' || g FROM "
                                   "generate_series(1, 300) g",
                                   "CREATE TABLE other (id int8 PRIMARY KEY)",
                                   "CREATE TABLE near (id int8 PRIMARY KEY)"},
                                  ShardCluster::Target::kPgrangeAndReference),
              "");
    // `near` lives on the first shard, `other` elsewhere.
    auto c = cluster_->client();
    for (auto [table, shard] : {std::pair{"near", "s1"}, std::pair{"other", "s2"}}) {
      SqlResult ranges = pq_exec(c.get(), std::string("SHOW RANGES FROM TABLE ") + table);
      ASSERT_EQ(ranges.rows.size(), 1u) << ranges.message;
      if (ranges.at(0, 3) == shard) continue;
      SqlResult moved = pq_exec(
          c.get(), "ALTER RANGE " + ranges.at(0, 2) + " RELOCATE TO '" + std::string(shard) + "'");
      ASSERT_TRUE(moved.ok()) << moved.message;
    }
    c.reset();
    // Written where it lives (session pooling keeps a session to the first shard).
    ASSERT_TRUE(pq_exec(cluster_->direct(1).get(), "INSERT INTO other VALUES (1)").ok());
    ASSERT_TRUE(pq_exec(cluster_->reference().get(), "INSERT INTO other VALUES (1)").ok());
    ASSERT_EQ(cluster_->run_setup({"INSERT INTO near VALUES (3)"},
                                  ShardCluster::Target::kPgrangeAndReference),
              "");
    ASSERT_EQ(cluster_->run_setup({"ALTER TABLE shadow SPLIT AT VALUES (100), (200)",
                                   "ALTER TABLE shadow SCATTER"}),
              "");
    // The rows 10, 150 and 250 live on three different shards; a session's first statement
    // on no pgrange table gets a connection to the first shard, so `own_` is its row.
    ASSERT_EQ(cluster_->on_each_shard("SELECT count(*) FROM shadow WHERE id IN (10, 150, 250)"),
              (std::vector<std::string>{"1", "1", "1"}));
    auto first = cluster_->direct(0);
    own_ = pq_exec(first.get(), "SELECT id FROM shadow WHERE id IN (10, 150, 250)").at();
    other_ = own_ == "10" ? "150" : "10";
  }
  static void TearDownTestSuite() { cluster_.reset(); }

  void TearDown() override { expect_permanent_table_intact(); }

  /// Runs `script` through pgrange and on the reference database, statement by statement, on
  /// one connection each; the answers must be the same.
  static void same_answers(const std::vector<ScriptStep>& script) {
    auto p = pq_connect(cluster_->proxy().dsn());
    auto r = pq_connect(cluster_->shard(0).dsn("ref"));
    ASSERT_EQ(PQstatus(p.get()), CONNECTION_OK) << PQerrorMessage(p.get());
    ASSERT_EQ(PQstatus(r.get()), CONNECTION_OK) << PQerrorMessage(r.get());
    for (size_t i = 0; i < script.size(); ++i) {
      std::string via = answer_text(p.get(), script[i]);
      std::string direct = answer_text(r.get(), script[i]);
      EXPECT_EQ(via, direct) << "statement " << i << ": " << script[i].sql << "\n"
                             << first_difference(direct, via) << "\n"
                             << cluster_->proxy().log_tail(1500);
    }
  }

  /// The permanent `shadow` on every shard: its columns, no comment, its primary key index
  /// only, and all 300 rows over the shards.
  static void expect_permanent_table_intact() {
    for (const std::string& columns : cluster_->on_each_shard(
             "SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM "
             "information_schema.columns WHERE table_schema = 'public' AND table_name = "
             "'shadow'")) {
      EXPECT_EQ(columns, "id,v");
    }
    for (const std::string& state : cluster_->on_each_shard(
             "SELECT count(*) || ' ' || coalesce(obj_description('public.shadow'::regclass, "
             "'pg_class'), '-') FROM pg_indexes WHERE schemaname = 'public' AND tablename = "
             "'shadow'")) {
      EXPECT_EQ(state, "1 -");
    }
    EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM public.shadow"), 300);
    EXPECT_EQ(cluster_->sum_direct("SELECT sum(id) FROM public.shadow"), 45150);
  }

  static std::unique_ptr<ShardCluster> cluster_;
  static std::string own_;    ///< the id of a row on the first shard
  static std::string other_;  ///< the id of a row on another shard
};

template <typename Setup>
std::unique_ptr<ShardCluster> TempRelationTest<Setup>::cluster_;
template <typename Setup>
std::string TempRelationTest<Setup>::own_;
template <typename Setup>
std::string TempRelationTest<Setup>::other_;

using Setups = ::testing::Types<PoolOfOne, PoolOfSeveral, SessionPooling>;
TYPED_TEST_SUITE(TempRelationTest, Setups);

TYPED_TEST(TempRelationTest, ATemporaryTableShadowsThePgrangeTable) {
  std::string own = TestFixture::own_;
  this->same_answers({
      query("SELECT id, v FROM shadow WHERE id = " + own),
      "CREATE TEMP TABLE shadow (x int)",
      "INSERT INTO shadow VALUES (1), (2)",
      "SELECT * FROM shadow ORDER BY x",
      "SELECT id FROM shadow",  // the temporary one has no id
      "UPDATE shadow SET x = x + 10",
      "DELETE FROM shadow WHERE x = 11",
      "SELECT x FROM shadow",
      "SELECT x FROM pg_temp.shadow",
      query("SELECT id, v FROM public.shadow WHERE id = " + own),
      "INSERT INTO shadow SELECT id FROM near",  // a pgrange table on this connection's shard
      "SELECT x FROM shadow ORDER BY x",
      ext("INSERT INTO shadow VALUES ($1)", {"5"}),
      ext("SELECT count(*) FROM shadow WHERE x > $1", {"1"}),
      prepare("q", "SELECT x FROM shadow WHERE x = $1"),
      execute("q", {"5"}),
      "BEGIN",
      "INSERT INTO shadow VALUES (6)",
      "SELECT count(*) FROM shadow",
      "ROLLBACK",
      "SELECT count(*) FROM shadow",
      "DROP TABLE shadow",  // the temporary one
      query("SELECT id, v FROM shadow WHERE id = " + own),
      "DROP TABLE IF EXISTS pg_temp.shadow",
      // The same through the extended protocol.
      "CREATE TEMP TABLE shadow (x int)",
      ext("DROP TABLE shadow"),
      ext("SELECT id, v FROM shadow WHERE id = $1", {own}),
  });
}

TYPED_TEST(TempRelationTest, DdlOfEveryKindOnATemporaryTable) {
  this->same_answers({
      "CREATE TEMP TABLE shadow (x int)",
      "INSERT INTO shadow SELECT g FROM generate_series(1, 5) g",
      "ALTER TABLE shadow ADD COLUMN y text",
      "CREATE INDEX shadow_x ON shadow (x)",
      "CREATE UNIQUE INDEX ON shadow (x, y)",
      "COMMENT ON TABLE shadow IS 'temporary'",
      "COMMENT ON COLUMN shadow.x IS 'x'",
      "SELECT obj_description('shadow'::regclass, 'pg_class')",
      "ANALYZE shadow",
      "VACUUM shadow",
      "VACUUM ANALYZE shadow",
      "CLUSTER shadow USING shadow_x",
      "REINDEX TABLE shadow",
      "ALTER TABLE shadow RENAME COLUMN y TO z",
      "ALTER TABLE shadow ALTER COLUMN z SET DEFAULT 'd'",
      "INSERT INTO shadow (x) VALUES (6) RETURNING x, z",
      "BEGIN",
      "LOCK TABLE shadow IN EXCLUSIVE MODE",
      "TRUNCATE shadow",
      "ALTER TABLE shadow ADD COLUMN w int",
      "COMMIT",
      "SELECT count(*) FROM shadow",
      "GRANT SELECT ON shadow TO PUBLIC",
      "DROP INDEX shadow_x",
      "SELECT count(*) FROM pg_indexes WHERE tablename = 'shadow' AND schemaname LIKE 'pg_temp%'",
      "CREATE TEMP VIEW shadow_v AS SELECT x FROM shadow",
      "SELECT * FROM shadow_v",
      "DROP VIEW shadow_v",
      "CREATE TEMP SEQUENCE shadow_seq",
      "SELECT nextval('shadow_seq')",
      "DROP SEQUENCE shadow_seq",
      "CREATE TEMP TABLE shadow2 AS SELECT x FROM shadow",
      "SELECT 1 AS a INTO TEMP shadow3",
      "ALTER TABLE shadow3 RENAME TO shadow4",
      "SELECT a FROM shadow4",
      "CREATE TEMP TABLE shadow_like (LIKE shadow INCLUDING ALL)",
      "SELECT count(*) FROM shadow_like",
      "DROP TABLE shadow_like",
      "CREATE TABLE pg_temp.shadow5 (b int)",
      "INSERT INTO shadow5 VALUES (7)",
      "SELECT b FROM pg_temp.shadow5",
      "DROP TABLE shadow, shadow2, shadow4, shadow5",
      query("SELECT id, v FROM shadow WHERE id = " + TestFixture::own_),
  });
}

TYPED_TEST(TempRelationTest, TemporaryTablesThatAreGone) {
  // ON COMMIT DROP, a rolled back or failed CREATE, DISCARD TEMP / ALL: `shadow` is the
  // permanent table again.
  ScriptStep point = query("SELECT id, v FROM shadow WHERE id = " + TestFixture::own_);
  this->same_answers({
      // The permanent table's definition, in a temporary table.
      "CREATE TEMP TABLE copy_of (LIKE shadow)",
      "SELECT column_name FROM information_schema.columns WHERE table_name = 'copy_of' "
      "ORDER BY 1",
      "DROP TABLE copy_of",
      "BEGIN",
      "CREATE TEMP TABLE shadow (x int) ON COMMIT DROP",
      "INSERT INTO shadow VALUES (1)",
      "SELECT x FROM shadow",
      "COMMIT",
      point,
      "BEGIN",
      "CREATE TEMP TABLE shadow (x int)",
      "ROLLBACK",
      point,
      "CREATE TEMP TABLE shadow (x nosuchtype)",
      point,
      "CREATE TEMP TABLE shadow (x int); SELECT 1/0",
      point,
      "CREATE TEMP TABLE shadow (x int)",
      "DISCARD TEMP",
      point,
      "CREATE TEMP TABLE shadow (x int) ON COMMIT DELETE ROWS",
      "BEGIN",
      "INSERT INTO shadow VALUES (3)",
      "SELECT count(*) FROM shadow",
      "COMMIT",
      "SELECT count(*) FROM shadow",
      "DISCARD ALL",
      point,
      "CREATE TEMP TABLE shadow (x int)",
      "BEGIN",
      "DROP TABLE shadow",
      point,
      "ROLLBACK",
      "SELECT count(*) FROM shadow",  // the temporary one is back
  });
}

TYPED_TEST(TempRelationTest, RowsOfPgrangeTablesOnOtherShardsAreRefused) {
  // A statement on a temporary table runs on the session's connection: pgrange rows it needs
  // from other shards are not there, so it is refused rather than run on part of the table.
  auto c = pq_connect(this->cluster_->proxy().dsn());
  ASSERT_TRUE(pq_exec(c.get(), "CREATE TEMP TABLE tmp (x int8)").ok());
  // A table whose rows are all on the connection's shard: fine.
  SqlResult near = pq_exec(c.get(), "INSERT INTO tmp SELECT id FROM near");
  EXPECT_TRUE(near.ok()) << near.message;
  EXPECT_EQ(pq_exec(c.get(), "SELECT count(*) FROM tmp JOIN near ON id = x").at(), "1");
  // So is a row of a spread table whose range is on the connection's shard.
  SqlResult own =
      pq_exec(c.get(), "INSERT INTO tmp SELECT id FROM shadow WHERE id = " + TestFixture::own_);
  EXPECT_TRUE(own.ok()) << own.message;
  EXPECT_EQ(pq_exec(c.get(), "SELECT count(*) FROM tmp WHERE x = " + TestFixture::own_).at(), "1");
  EXPECT_TRUE(pq_exec(c.get(), "DELETE FROM tmp WHERE x = " + TestFixture::own_).ok());
  for (std::string sql : {std::string("INSERT INTO tmp SELECT id FROM other"),
                          std::string("INSERT INTO tmp SELECT id FROM shadow"),
                          "INSERT INTO tmp SELECT id FROM shadow WHERE id = " + TestFixture::other_,
                          std::string("SELECT count(*) FROM tmp JOIN shadow ON id = x"),
                          std::string("UPDATE shadow SET v = 'x' FROM tmp WHERE id = x"),
                          std::string("DELETE FROM other USING tmp WHERE id = x")}) {
    SqlResult r = pq_exec(c.get(), sql);
    EXPECT_EQ(r.sqlstate, "0A000") << sql << ": " << r.message;
    EXPECT_NE(r.message.find("temporary relation \"tmp\""), std::string::npos)
        << sql << ": " << r.message;
  }
  SqlResult ddl = pq_exec(c.get(), "DROP TABLE tmp, other");
  EXPECT_EQ(ddl.sqlstate, "0A000") << ddl.message;
  EXPECT_EQ(pq_exec(c.get(), "SELECT x FROM tmp").at(), "3");
  EXPECT_TRUE(pq_exec(c.get(), "DROP TABLE tmp").ok());
  EXPECT_EQ(this->cluster_->sum_direct("SELECT count(*) FROM other"), 1);
  // No temporary table left: the session reads the whole pgrange table again (transaction
  // pooling; session pooling keeps to the session's connection).
  if (std::string(TypeParam::kMode) == "transaction") {
    EXPECT_EQ(pq_exec(c.get(), "SELECT count(*) FROM shadow").at(), "300");
  }
}

TYPED_TEST(TempRelationTest, PsqlScript) {
  // The same script through psql, against pgrange and against PostgreSQL.
  const std::string script =
      "CREATE TEMP TABLE shadow (x int);\n"
      "INSERT INTO shadow VALUES (42);\n"
      "DROP TABLE shadow;\n"
      "SELECT id, v FROM shadow WHERE id = " +
      TestFixture::own_ +
      ";\n"
      "CREATE TEMP TABLE shadow (x int);\n"
      "COPY shadow FROM STDIN;\n5\n6\n\\.\n"
      "SELECT * FROM shadow ORDER BY x;\n"
      "COPY shadow TO STDOUT;\n"
      "TRUNCATE shadow;\n"
      "\\d shadow\n"
      "ALTER TABLE shadow RENAME TO gone;\n"
      "DROP TABLE gone;\n";
  auto psql = [&](const std::string& dsn) {
    ProcessOptions po;
    po.argv = {pg_bin("psql"), "-X", "-v", "ON_ERROR_STOP=0", "-d", dsn};
    int rc = -1;
    return run_process(po, script, &rc, std::chrono::seconds(60));
  };
  std::string direct = psql(this->cluster_->shard(0).dsn("ref"));
  std::string via = psql(this->cluster_->proxy().dsn());
  // \d names the temporary schema, which differs between sessions.
  auto strip = [](std::string s) {
    for (size_t p = 0; (p = s.find("pg_temp_", p)) != std::string::npos;) {
      p += 8;
      s.erase(p, s.find_first_not_of("0123456789", p) - p);
    }
    return s;
  };
  EXPECT_EQ(strip(via), strip(direct)) << first_difference(strip(direct), strip(via));
}

}  // namespace
}  // namespace pgrange::testing
