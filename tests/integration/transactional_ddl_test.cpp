// DDL inside transaction blocks over three real PostgreSQL 15 shards, each statement compared
// with one plain PostgreSQL (database "ref") running the same block: the DDL runs on every
// shard in the block's transaction there, the block's own statements use the new tables at
// once, and pgrange's catalog changes with the block's commit decision: a ROLLBACK, a failed
// statement, a ROLLBACK TO SAVEPOINT or a pgrange killed before its decision leaves nothing on
// any shard or in the catalog; killed after it, recovery finishes the commit, catalog included.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/side_by_side.hpp"

namespace pgrange::testing {
namespace {

/// A result as a string: the command tag and the rows' first column, or ERROR and SQLSTATE.
std::string outcome(PGresult* res) {
  std::string s;
  if (PQresultStatus(res) == PGRES_COMMAND_OK) {
    s = PQcmdStatus(res);
  } else if (PQresultStatus(res) == PGRES_TUPLES_OK) {
    s = PQcmdStatus(res);
    for (int r = 0; r < PQntuples(res); ++r) s += std::string(" ") + PQgetvalue(res, r, 0);
  } else {
    const char* code = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    s = std::string("ERROR ") + (code ? code : "?");
  }
  PQclear(res);
  return s;
}

/// PQexecParams of `sql` with text parameters, as outcome() says it.
std::string exec_params(PGconn* c, const std::string& sql, std::vector<std::string> params = {}) {
  std::vector<const char*> values;
  for (const auto& p : params) values.push_back(p.c_str());
  return outcome(PQexecParams(c, sql.c_str(), static_cast<int>(values.size()), nullptr,
                              values.data(), nullptr, nullptr, 0));
}

/// PQexec of `sql` (the simple protocol), as outcome() says it.
std::string exec_simple(PGconn* c, const std::string& sql) {
  return outcome(PQexec(c, sql.c_str()));
}

class TransactionalDdlTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ShardCluster::Options o;
    o.databases = {"app", "ref"};
    cluster_ = ShardCluster::start(o).release();
    SideBySide s(*cluster_);
    s.both("CREATE TABLE spread (id int8 PRIMARY KEY, v text)");
    s.both("INSERT INTO spread SELECT g, 'v' || g FROM generate_series(1, 90) g");
    s.spread("spread", "(30), (60)");
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override { s_.emplace(*cluster_); }

  /// How many shards hold a relation of this name.
  static int shards_holding(const std::string& relation) {
    int n = 0;
    for (const std::string& v : cluster_->on_each_shard(
             "SELECT count(*) FROM pg_class WHERE relname = '" + relation + "'")) {
      n += v == "1" ? 1 : 0;
    }
    return n;
  }
  /// Whether pgrange's catalog (the metadata store) has a table of this name.
  static bool in_catalog(const std::string& table) {
    auto d = pq_connect(cluster_->shard(0).dsn("pgrange_meta"));
    SqlResult r =
        pq_exec(d.get(), "SELECT count(*) FROM pgrange_tables WHERE name = '" + table + "'");
    EXPECT_TRUE(r.ok()) << r.message;
    return r.ok() && r.at() == "1";
  }
  /// Waits up to `limit` for `done`.
  template <typename F>
  static bool eventually(F done, std::chrono::seconds limit) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return done();
  }
  static int64_t decisions_left() {
    auto d = pq_connect(cluster_->shard(0).dsn("pgrange_meta"));
    SqlResult r = pq_exec(d.get(), "SELECT count(*) FROM pgrange_decisions");
    return r.ok() ? std::stoll(r.at()) : -1;
  }

  static ShardCluster* cluster_;
  std::optional<SideBySide> s_;
};

ShardCluster* TransactionalDdlTest::cluster_ = nullptr;

TEST_F(TransactionalDdlTest, TablesMadeFilledAndIndexedInOneBlock) {
  // A migration as psycopg2 (autocommit off) or Alembic sends it.
  for (std::string sql :
       {"BEGIN", "DROP TABLE IF EXISTS orders",
        "CREATE TABLE orders (id bigserial PRIMARY KEY, customer int NOT NULL, total numeric)",
        "CREATE INDEX orders_customer ON orders (customer)",
        "INSERT INTO orders (customer, total) VALUES (1, 10.5), (2, 20), (1, 7) RETURNING id",
        "INSERT INTO orders (customer, total) VALUES (3, 1.25 * 4) RETURNING id, total",
        "SELECT customer, sum(total) FROM orders GROUP BY customer ORDER BY customer",
        "CREATE TABLE notes (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), body text)",
        "INSERT INTO notes (body) VALUES ('a'), ('b')", "SELECT count(*) FROM notes",
        "ALTER TABLE orders ADD COLUMN note text DEFAULT 'none'",
        "SELECT id, customer, total, note FROM orders ORDER BY id", "COMMIT"}) {
    s_->same(sql);
  }
  EXPECT_EQ(shards_holding("orders"), 3);
  EXPECT_TRUE(in_catalog("orders"));
  EXPECT_TRUE(in_catalog("notes"));
  // The committed table is a pgrange table like any other: split, spread, filled by key.
  s_->spread("orders", "(100), (200)");
  for (std::string sql : {"INSERT INTO orders VALUES (150, 5, 1), (250, 6, 2)",
                          "INSERT INTO orders (customer) VALUES (7) RETURNING id, note"}) {
    s_->same(sql);
  }
  EXPECT_EQ(cluster_->on_each_shard("SELECT count(*) FROM orders"),
            (std::vector<std::string>{"5", "1", "1"}));
  s_->same("SELECT id, customer, total, note FROM orders ORDER BY id");
  s_->same("SELECT count(*) FROM notes");
}

TEST_F(TransactionalDdlTest, RollbackAndFailedStatementsLeaveNothingBehind) {
  for (std::string sql :
       {"BEGIN", "CREATE TABLE gone (id int PRIMARY KEY, v text)",
        "CREATE INDEX gone_v ON gone (v)", "INSERT INTO gone VALUES (1, 'a'), (2, 'b')",
        "CREATE VIEW gone_view AS SELECT * FROM gone", "SELECT * FROM gone_view ORDER BY id",
        "ROLLBACK", "SELECT * FROM gone"}) {
    s_->same(sql);
  }
  EXPECT_EQ(shards_holding("gone"), 0);
  EXPECT_EQ(shards_holding("gone_view"), 0);
  EXPECT_FALSE(in_catalog("gone"));
  // A failed statement aborts the block; its COMMIT is a ROLLBACK.
  for (std::string sql : {"BEGIN", "CREATE TABLE half (id int PRIMARY KEY)",
                          "INSERT INTO half VALUES (1)", "CREATE TABLE half (id int PRIMARY KEY)",
                          "INSERT INTO half VALUES (2)", "COMMIT", "SELECT * FROM half"}) {
    s_->same(sql);
  }
  EXPECT_EQ(shards_holding("half"), 0);
  EXPECT_FALSE(in_catalog("half"));
  // DROP TABLE rolled back: the table, its rows and its ranges are all still there.
  for (std::string sql : {"BEGIN", "DROP TABLE spread", "SELECT count(*) FROM spread", "ROLLBACK",
                          "SELECT count(*), min(id), max(id) FROM spread"}) {
    s_->same(sql);
  }
  EXPECT_EQ(cluster_->on_each_shard("SELECT count(*) FROM spread"),
            (std::vector<std::string>{"29", "30", "31"}));
  EXPECT_TRUE(in_catalog("spread"));
  // What pgrange cannot do in a block is refused, and the block is left to roll back.
  ASSERT_TRUE(pq_exec(s_->pgrange(), "BEGIN").ok());
  std::string why = s_->refused("CREATE TABLE uq (id int PRIMARY KEY, email text UNIQUE)");
  EXPECT_NE(why.find("global index"), std::string::npos) << why;
  ASSERT_TRUE(pq_exec(s_->pgrange(), "ROLLBACK").ok());
  EXPECT_EQ(shards_holding("uq"), 0);
}

// DDL in a block runs on the shards one after the other in the block's transaction on each:
// when the last shard refuses it (a table of that name made there directly), the error is that
// shard's own, the block is failed, and its end leaves the table made on the first shards by
// this statement, and by those before it, nowhere. A savepoint before it lets the block go on.
TEST_F(TransactionalDdlTest, DdlTheLastShardRefusesFailsTheBlockAndLeavesNothing) {
  PgConnPtr last = cluster_->direct(cluster_->size() - 1);
  ASSERT_TRUE(pq_exec(last.get(), "CREATE TABLE taken (id int PRIMARY KEY)").ok());
  PGconn* c = s_->pgrange();
  for (bool extended : {false, true}) {
    SCOPED_TRACE(extended ? "extended protocol" : "simple protocol");
    auto run = [&](const std::string& sql) {
      return extended ? exec_params(c, sql) : exec_simple(c, sql);
    };
    // The error as PostgreSQL words it: the shard's own, with nothing of pgrange's added.
    auto refused = [&](const std::string& sql) {
      PGresult* res = extended
                          ? PQexecParams(c, sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0)
                          : PQexec(c, sql.c_str());
      auto field = [&](int code) {
        const char* v = PQresultErrorField(res, code);
        return std::string(v != nullptr ? v : "");
      };
      std::string got = field(PG_DIAG_SQLSTATE) + " " + field(PG_DIAG_MESSAGE_PRIMARY) + " | " +
                        field(PG_DIAG_MESSAGE_DETAIL);
      PQclear(res);
      return got;
    };
    EXPECT_EQ(run("BEGIN"), "BEGIN");
    EXPECT_EQ(run("CREATE TABLE before_it (id int PRIMARY KEY)"), "CREATE TABLE");
    EXPECT_EQ(refused("CREATE TABLE taken (id int8 PRIMARY KEY, v text)"),
              "42P07 relation \"taken\" already exists | ");
    EXPECT_EQ(run("SELECT count(*) FROM spread"), "ERROR 25P02");
    EXPECT_EQ(run("COMMIT"), "ROLLBACK");
    EXPECT_EQ(shards_holding("before_it"), 0);
    EXPECT_EQ(shards_holding("taken"), 1);  // the one made on the last shard, not pgrange's
    EXPECT_FALSE(in_catalog("before_it"));
    EXPECT_FALSE(in_catalog("taken"));

    EXPECT_EQ(run("BEGIN"), "BEGIN");
    EXPECT_EQ(run("CREATE TABLE before_it (id int PRIMARY KEY)"), "CREATE TABLE");
    EXPECT_EQ(run("SAVEPOINT s"), "SAVEPOINT");
    EXPECT_EQ(run("CREATE TABLE taken (id int8 PRIMARY KEY, v text)"), "ERROR 42P07");
    EXPECT_EQ(run("ROLLBACK TO SAVEPOINT s"), "ROLLBACK");
    EXPECT_EQ(run("INSERT INTO before_it VALUES (1), (2)"), "INSERT 0 2");
    EXPECT_EQ(run("COMMIT"), "COMMIT");
    EXPECT_EQ(shards_holding("before_it"), 3);
    EXPECT_TRUE(in_catalog("before_it"));
    EXPECT_EQ(run("SELECT count(*) FROM before_it"), "SELECT 1 2");
    EXPECT_EQ(run("DROP TABLE before_it"), "DROP TABLE");
  }
  ASSERT_TRUE(pq_exec(last.get(), "DROP TABLE taken").ok());
}

// A migration that drops a table and makes another under its name, or trades two tables'
// names, in one block: the catalog takes the drops and renames before the new names.
TEST_F(TransactionalDdlTest, ANameDroppedOrRenamedIsTakenAgainInTheSameBlock) {
  for (std::string sql : {"CREATE TABLE again (id int PRIMARY KEY, v text)",
                          "INSERT INTO again VALUES (1, 'old')",
                          "BEGIN",
                          "DROP TABLE IF EXISTS again",
                          "CREATE TABLE again (id int8 PRIMARY KEY, w text)",
                          "INSERT INTO again VALUES (2, 'new')",
                          "COMMIT",
                          "SELECT * FROM again",
                          "CREATE TABLE sw_a (id int PRIMARY KEY, a text)",
                          "CREATE TABLE sw_b (id int PRIMARY KEY, b text)",
                          "INSERT INTO sw_a VALUES (1, 'was a')",
                          "INSERT INTO sw_b VALUES (2, 'was b')",
                          "BEGIN",
                          "ALTER TABLE sw_a RENAME TO sw_tmp",
                          "ALTER TABLE sw_b RENAME TO sw_a",
                          "ALTER TABLE sw_tmp RENAME TO sw_b",
                          "COMMIT",
                          "SELECT * FROM sw_a",
                          "SELECT * FROM sw_b",
                          "INSERT INTO sw_a (id, b) VALUES (3, 'new')",
                          "SELECT * FROM sw_a ORDER BY id"}) {
    s_->same(sql);
  }
  EXPECT_TRUE(in_catalog("again"));
  EXPECT_TRUE(in_catalog("sw_a"));
  EXPECT_TRUE(in_catalog("sw_b"));
  EXPECT_FALSE(in_catalog("sw_tmp"));
  // Forgotten at pgrange's next housekeeping (every 2 s).
  EXPECT_TRUE(eventually([] { return decisions_left() == 0; }, std::chrono::seconds(5)));
}

TEST_F(TransactionalDdlTest, SavepointsAroundDdl) {
  for (std::string sql :
       {"BEGIN", "CREATE TABLE sp_a (id int PRIMARY KEY)", "SAVEPOINT one",
        "CREATE TABLE sp_b (id int PRIMARY KEY)", "INSERT INTO sp_b VALUES (1)", "SAVEPOINT two",
        "DROP TABLE sp_a", "ROLLBACK TO SAVEPOINT two", "INSERT INTO sp_a VALUES (1), (2)",
        "ROLLBACK TO SAVEPOINT one", "SELECT * FROM sp_b", "ROLLBACK TO SAVEPOINT one",
        "CREATE TABLE sp_c (id int PRIMARY KEY, a int)", "INSERT INTO sp_c VALUES (5, 6)",
        "RELEASE SAVEPOINT one", "COMMIT", "SELECT * FROM sp_a", "SELECT * FROM sp_c",
        "SELECT * FROM sp_b"}) {
    s_->same(sql);
  }
  EXPECT_TRUE(in_catalog("sp_a"));
  EXPECT_FALSE(in_catalog("sp_b"));
  EXPECT_TRUE(in_catalog("sp_c"));
  EXPECT_EQ(shards_holding("sp_b"), 0);
}

TEST_F(TransactionalDdlTest, OtherSessionsSeeTheTableOnlyAfterCommit) {
  auto mine = cluster_->client();
  auto other = cluster_->client();
  ASSERT_TRUE(pq_exec(mine.get(), "BEGIN").ok());
  ASSERT_TRUE(pq_exec(mine.get(), "CREATE TABLE later (id int8 PRIMARY KEY, v text)").ok());
  ASSERT_TRUE(pq_exec(mine.get(), "INSERT INTO later VALUES (1, 'a'), (2, 'b')").ok());
  EXPECT_EQ(pq_exec(other.get(), "SHOW RANGES FROM TABLE later").sqlstate, "42P01");
  EXPECT_FALSE(in_catalog("later"));
  ASSERT_TRUE(pq_exec(mine.get(), "COMMIT").ok());
  SqlResult ranges = pq_exec(other.get(), "SHOW RANGES FROM TABLE later");
  EXPECT_TRUE(ranges.ok()) << ranges.message;
  EXPECT_EQ(pq_exec(other.get(), "SELECT string_agg(v, ',' ORDER BY id) FROM later").at(), "a,b");
  // A second pgrange instance routes by the same catalog.
  auto second = cluster_->start_proxy();
  auto c = pq_connect(second->dsn());
  EXPECT_EQ(pq_exec(c.get(), "SELECT count(*) FROM later").at(), "2");
}

TEST_F(TransactionalDdlTest, DdlThroughTheExtendedProtocolInsideBlocks) {
  for (PGconn* c : {s_->pgrange(), s_->reference()}) {
    SCOPED_TRACE(c == s_->pgrange() ? "pgrange" : "reference");
    EXPECT_EQ(exec_params(c, "BEGIN"), "BEGIN");
    EXPECT_EQ(exec_params(c,
                          "CREATE TABLE ext (id int8 GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
                          "v text)"),
              "CREATE TABLE");
    EXPECT_EQ(exec_params(c, "INSERT INTO ext (v) VALUES ($1), ($2) RETURNING id", {"a", "b"}),
              "INSERT 0 2 1 2");
    EXPECT_EQ(exec_params(c, "ALTER TABLE ext ADD COLUMN n int"), "ALTER TABLE");
    EXPECT_EQ(exec_params(c, "INSERT INTO ext (v, n) VALUES ($1, $2) RETURNING id", {"c", "3"}),
              "INSERT 0 1 3");
    // What PostgreSQL refuses inside a block gets its own error.
    EXPECT_EQ(exec_params(c, "CREATE INDEX CONCURRENTLY ext_v ON ext (v)"), "ERROR 25001");
    EXPECT_EQ(exec_params(c, "COMMIT"), "ROLLBACK");
    EXPECT_EQ(exec_params(c, "SELECT count(*) FROM ext"), "ERROR 42P01");
    EXPECT_EQ(exec_params(c, "BEGIN"), "BEGIN");
    EXPECT_EQ(exec_params(c,
                          "CREATE TABLE ext (id int8 GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
                          "v text)"),
              "CREATE TABLE");
    EXPECT_EQ(exec_params(c, "INSERT INTO ext (v) VALUES ($1) RETURNING id", {"x"}),
              "INSERT 0 1 1");
    EXPECT_EQ(exec_params(c, "COMMIT"), "COMMIT");
  }
  EXPECT_TRUE(in_catalog("ext"));
  s_->same("SELECT * FROM ext ORDER BY id");
  s_->same("INSERT INTO ext (v) VALUES ('y') RETURNING *");
}

TEST_F(TransactionalDdlTest, AKilledPgrangeLeavesTheBlockWhollyDoneOrUndone) {
  // Killed after PREPARE on every shard, before the decision: rolled back, catalog untouched.
  {
    auto dying = cluster_->start_proxy("after_prepare");
    auto c = pq_connect(dying->dsn());
    for (std::string sql : {"BEGIN", "CREATE TABLE undone (id int PRIMARY KEY)",
                            "INSERT INTO undone VALUES (1), (2)"}) {
      SqlResult r = pq_exec(c.get(), sql);
      ASSERT_TRUE(r.ok()) << sql << ": " << r.message;
    }
    EXPECT_FALSE(pq_exec(c.get(), "COMMIT").ok());
    EXPECT_TRUE(eventually([&] { return !dying->running(); }, std::chrono::seconds(10)));
  }
  // Killed after the decision (which carries the catalog change): committed everywhere.
  {
    auto dying = cluster_->start_proxy("after_decision");
    auto c = pq_connect(dying->dsn());
    for (std::string sql : {"BEGIN", "CREATE TABLE done (id int PRIMARY KEY, v text)",
                            "INSERT INTO done VALUES (1, 'a'), (2, 'b')"}) {
      SqlResult r = pq_exec(c.get(), sql);
      ASSERT_TRUE(r.ok()) << sql << ": " << r.message;
    }
    EXPECT_FALSE(pq_exec(c.get(), "COMMIT").ok());
    EXPECT_TRUE(eventually([&] { return !dying->running(); }, std::chrono::seconds(10)));
  }
  EXPECT_FALSE(in_catalog("undone"));
  EXPECT_TRUE(in_catalog("done"));
  // The running pgrange finishes both once the dead instances have been silent long enough.
  EXPECT_TRUE(eventually([] { return cluster_->prepared_left() == 0; }, std::chrono::seconds(30)))
      << cluster_->proxy().log_tail();
  EXPECT_EQ(shards_holding("undone"), 0);
  EXPECT_EQ(shards_holding("done"), 3);
  EXPECT_TRUE(eventually([] { return decisions_left() == 0; }, std::chrono::seconds(10)));
  auto c = cluster_->client();
  EXPECT_EQ(pq_exec(c.get(), "SELECT string_agg(v, ',' ORDER BY id) FROM done").at(), "a,b");
  EXPECT_EQ(pq_exec(c.get(), "SELECT count(*) FROM undone").sqlstate, "42P01");
}

}  // namespace
}  // namespace pgrange::testing
