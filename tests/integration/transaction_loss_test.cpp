// A transaction block whose shard connection is lost fails; it does not end. PostgreSQL would
// close the client's connection; pgrange keeps it, so the client sees the error and stays in
// the failed-transaction state (ReadyForQuery 'E'): every later statement gets 25P02, COMMIT
// answers ROLLBACK, ROLLBACK ends it, and nothing the transaction wrote survives anywhere. The
// connection dies at every point of a block (before its first statement, between statements,
// under one, under COMMIT), through both protocols, on one shard (pass-through, transaction and
// session pooling, a pool of one connection and of several) and in blocks pgrange coordinates
// over several shards.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/pg_server.hpp"
#include "tests/support/proxy_process.hpp"
#include "tests/support/shard_cluster.hpp"

namespace pgrange::testing {
namespace {

using namespace std::chrono_literals;

/// Where the connection dies.
enum class Point { kBeforeFirstStatement, kBetweenStatements, kDuringAStatement, kDuringCommit };

const char* point_name(Point p) {
  switch (p) {
    case Point::kBeforeFirstStatement:
      return "before the first statement";
    case Point::kBetweenStatements:
      return "between statements";
    case Point::kDuringAStatement:
      return "during a statement";
    case Point::kDuringCommit:
      return "during COMMIT";
  }
  return "?";
}

/// Runs `sql` as a simple Query, or through the extended protocol (PQexecParams, so also
/// Parse/Bind/Execute/Sync for BEGIN and COMMIT).
SqlResult run(PGconn* c, const std::string& sql, bool extended) {
  if (!extended) return pq_exec(c, sql);
  return take_result(PQexecParams(c, sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0), c);
}

/// Sends `sql` without waiting for its answer.
void send(PGconn* c, const std::string& sql, bool extended) {
  int ok = extended ? PQsendQueryParams(c, sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0)
                    : PQsendQuery(c, sql.c_str());
  ASSERT_EQ(ok, 1) << PQerrorMessage(c);
}

/// The answer to what send() sent (the result, then the end of it).
SqlResult answer(PGconn* c) {
  SqlResult r = take_result(PQgetResult(c), c);
  while (PGresult* extra = PQgetResult(c)) PQclear(extra);
  return r;
}

/// The command tag of `sql` run on `c`, or its error.
std::string tag(PGconn* c, const std::string& sql, bool extended) {
  PGresult* res = extended ? PQexecParams(c, sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0)
                           : PQexec(c, sql.c_str());
  std::string out = res != nullptr && PQresultStatus(res) == PGRES_COMMAND_OK
                        ? PQcmdStatus(res)
                        : std::string("error ") + PQresultErrorMessage(res);
  PQclear(res);
  return out;
}

/// Ends backend `pid` of `server` (from another connection) and waits until it is gone.
void terminate(const PgServer& server, const std::string& pid) {
  ASSERT_EQ(server.exec("SELECT pg_terminate_backend(" + pid + ", 20000)", "app"), "t");
}

/// The pid of the only backend of `server` whose state and query match, waiting (up to 20 s)
/// until there is one.
std::string backend(const PgServer& server, const std::string& state,
                    const std::string& query_like = "%") {
  auto deadline = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < deadline) {
    std::string pid = server.exec(
        "SELECT string_agg(pid::text, ',') FROM pg_stat_activity WHERE datname = 'app' AND "
        "state = '" +
            state + "' AND query LIKE '" + query_like + "' AND pid <> pg_backend_pid()",
        "app");
    if (!pid.empty() && pid.find(',') == std::string::npos) return pid;
    std::this_thread::sleep_for(20ms);
  }
  ADD_FAILURE() << "no single backend in state " << state << " running " << query_like;
  return "0";
}

/// After the loss: the failed state, 25P02 for statements, and the end of the block (COMMIT
/// answered ROLLBACK, or ROLLBACK), then a session that works.
void expect_failed_until_the_end(PGconn* c, bool extended, bool end_with_commit) {
  EXPECT_EQ(PQtransactionStatus(c), PQTRANS_INERROR);
  for (const char* sql : {"INSERT INTO t VALUES (3, 0)", "SELECT 1"}) {
    SqlResult r = run(c, sql, extended);
    EXPECT_EQ(r.sqlstate, "25P02") << sql << ": " << r.message;
    EXPECT_EQ(PQtransactionStatus(c), PQTRANS_INERROR);
  }
  EXPECT_EQ(tag(c, end_with_commit ? "COMMIT" : "ROLLBACK", extended), "ROLLBACK");
  EXPECT_EQ(PQtransactionStatus(c), PQTRANS_IDLE);
  EXPECT_EQ(run(c, "SELECT 42", extended).at(), "42");
  EXPECT_EQ(PQstatus(c), CONNECTION_OK);
}

/// Asserts that a statement succeeded, showing its error otherwise.
#define ASSERT_OK(result)                                     \
  do {                                                        \
    SqlResult r_ = (result);                                  \
    ASSERT_TRUE(r_.ok()) << r_.sqlstate << " " << r_.message; \
  } while (false)

/// How pgrange runs in front of one server.
struct Pooling {
  const char* mode;
  int pool_size;
  int workers;
};

class SingleShardLossTest : public ::testing::TestWithParam<Pooling> {
 protected:
  void SetUp() override {
    PgServer::Options o;
    o.databases = {"app"};
    server_ = PgServer::start(o);
    server_->exec(
        "CREATE TABLE t (id int8 PRIMARY KEY, v int8);"
        // COMMIT of a row of t_slow runs a deferred trigger that waits: a COMMIT that takes
        // its time, for a connection to die under it.
        "CREATE TABLE t_slow (id int8 PRIMARY KEY);"
        "CREATE FUNCTION slow() RETURNS trigger LANGUAGE plpgsql AS "
        "$$BEGIN PERFORM pg_sleep(30); RETURN NULL; END$$;"
        "CREATE CONSTRAINT TRIGGER slow AFTER INSERT ON t_slow DEFERRABLE INITIALLY DEFERRED "
        "FOR EACH ROW EXECUTE FUNCTION slow()",
        "app");
    ProxyConfig c = ProxyConfig::with_shard(server_->dsn("app"), GetParam().pool_size);
    c.pool_mode = GetParam().mode;
    c.workers = GetParam().workers;
    proxy_ = ProxyProcess::start(c);
  }
  void TearDown() override { EXPECT_TRUE(proxy_->running()) << proxy_->log_tail(); }

  /// BEGIN, writes, and the connection killed at `point`; then the failed state to its end.
  void lose_at(Point point, bool extended, bool end_with_commit) {
    SCOPED_TRACE(std::string(point_name(point)) + (extended ? ", extended" : ", simple") +
                 (end_with_commit ? ", COMMIT" : ", ROLLBACK"));
    server_->exec("TRUNCATE t, t_slow", "app");
    auto c = pq_connect(proxy_->dsn());
    ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
    ASSERT_OK(run(c.get(), "BEGIN", extended));
    SqlResult lost;
    if (point == Point::kBeforeFirstStatement) {
      // One shard: the BEGIN went to a backend, idle in its transaction.
      terminate(*server_, backend(*server_, "idle in transaction"));
      lost = run(c.get(), "INSERT INTO t VALUES (1, 0)", extended);
    } else {
      ASSERT_OK(run(c.get(), "INSERT INTO t VALUES (1, 0)", extended));
      std::string pid = run(c.get(), "SELECT pg_backend_pid()", extended).at();
      if (point == Point::kBetweenStatements) {
        terminate(*server_, pid);
        lost = run(c.get(), "INSERT INTO t VALUES (2, 0)", extended);
      } else if (point == Point::kDuringAStatement) {
        send(c.get(), "INSERT INTO t SELECT 2, 0 FROM pg_sleep(30)", extended);
        backend(*server_, "active", "INSERT INTO t SELECT 2%");
        terminate(*server_, pid);
        lost = answer(c.get());
      } else {
        ASSERT_OK(run(c.get(), "INSERT INTO t_slow VALUES (1)", extended));
        send(c.get(), "COMMIT", extended);
        backend(*server_, "active", "COMMIT");
        terminate(*server_, pid);
        lost = answer(c.get());
      }
    }
    EXPECT_FALSE(lost.ok());
    EXPECT_EQ(lost.severity, "ERROR") << lost.message;
    if (point == Point::kDuringCommit) {
      // Whether a COMMIT the connection died under committed is unknown; the block is over.
      EXPECT_EQ(lost.sqlstate, "08007") << lost.message;
      EXPECT_EQ(PQtransactionStatus(c.get()), PQTRANS_IDLE);
    } else {
      EXPECT_TRUE(lost.sqlstate == "57P01" || lost.sqlstate == "08006")
          << lost.sqlstate << " " << lost.message;
      expect_failed_until_the_end(c.get(), extended, end_with_commit);
    }
    EXPECT_EQ(server_->exec("SELECT count(*) FROM t", "app"), "0");
    EXPECT_EQ(server_->exec("SELECT count(*) FROM t_slow", "app"), "0");
    // The session goes on, its writes commit again.
    EXPECT_TRUE(run(c.get(), "INSERT INTO t VALUES (9, 9)", extended).ok());
    EXPECT_EQ(server_->exec("SELECT count(*) FROM t", "app"), "1");
  }

  std::unique_ptr<PgServer> server_;
  std::unique_ptr<ProxyProcess> proxy_;
};

TEST_P(SingleShardLossTest, EveryPointBothProtocols) {
  for (Point p : {Point::kBeforeFirstStatement, Point::kBetweenStatements, Point::kDuringAStatement,
                  Point::kDuringCommit}) {
    for (bool extended : {false, true}) {
      for (bool commit : {true, false}) {
        lose_at(p, extended, commit);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST_P(SingleShardLossTest, IdleInTransactionTimeout) {
  // The shard ends a transaction left idle too long (FATAL 25P03): the client learns it at its
  // next statement, and the block stays failed until it ends it.
  auto c = pq_connect(proxy_->dsn());
  ASSERT_TRUE(pq_exec(c.get(), "SET idle_in_transaction_session_timeout = '300ms'").ok());
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  ASSERT_TRUE(pq_exec(c.get(), "INSERT INTO t VALUES (1, 0)").ok());
  std::this_thread::sleep_for(1500ms);
  SqlResult r = pq_exec(c.get(), "INSERT INTO t VALUES (2, 0)");
  EXPECT_EQ(r.sqlstate, "25P03") << r.message;
  EXPECT_EQ(r.severity, "ERROR");
  expect_failed_until_the_end(c.get(), false, true);
  EXPECT_EQ(server_->exec("SELECT count(*) FROM t", "app"), "0");
}

TEST_P(SingleShardLossTest, ShardRestart) {
  auto c = pq_connect(proxy_->dsn());
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  ASSERT_TRUE(pq_exec(c.get(), "INSERT INTO t VALUES (1, 0)").ok());
  server_->stop();
  SqlResult r = pq_exec(c.get(), "INSERT INTO t VALUES (2, 0)");
  EXPECT_TRUE(r.sqlstate == "57P01" || r.sqlstate == "08006") << r.sqlstate << " " << r.message;
  EXPECT_EQ(PQtransactionStatus(c.get()), PQTRANS_INERROR);
  // Ending the block needs no shard.
  EXPECT_EQ(pq_exec(c.get(), "SELECT 1").sqlstate, "25P02");
  EXPECT_EQ(tag(c.get(), "COMMIT", false), "ROLLBACK");
  server_->start_again();
  EXPECT_EQ(pq_exec(c.get(), "SELECT count(*) FROM t").at(), "0");
}

TEST_P(SingleShardLossTest, SeveralStatementsInOneQueryAfterTheLoss) {
  // ROLLBACK ends the failed block and what follows it in the same query runs.
  auto c = pq_connect(proxy_->dsn());
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  std::string pid = pq_exec(c.get(), "SELECT pg_backend_pid()").at();
  terminate(*server_, pid);
  EXPECT_FALSE(pq_exec(c.get(), "SELECT 1").ok());
  EXPECT_EQ(pq_exec(c.get(), "SELECT 1; SELECT 2").sqlstate, "25P02");
  SqlResult r = pq_exec(c.get(), "ROLLBACK; INSERT INTO t VALUES (5, 5); SELECT count(*) FROM t");
  EXPECT_EQ(r.at(), "1") << r.message;
  EXPECT_EQ(PQtransactionStatus(c.get()), PQTRANS_IDLE);
  EXPECT_EQ(server_->exec("SELECT count(*) FROM t", "app"), "1");
}

INSTANTIATE_TEST_SUITE_P(Pooling, SingleShardLossTest,
                         ::testing::Values(Pooling{"transaction", 1, 1},
                                           Pooling{"transaction", 4, 2}, Pooling{"session", 4, 2}),
                         [](const ::testing::TestParamInfo<Pooling>& i) {
                           return std::string(i.param.mode) + "_pool" +
                                  std::to_string(i.param.pool_size);
                         });

/// Blocks pgrange coordinates over three shards: t's rows 10, 150 and 250 live on three
/// different shards.
class CoordinatedLossTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ShardCluster::Options o;
    o.pool_size = 4;
    cluster_ = ShardCluster::start(o);
    ASSERT_EQ(
        cluster_->run_setup({"CREATE TABLE t (id int8 PRIMARY KEY, v int8)",
                             "ALTER TABLE t SPLIT AT VALUES (100), (200)", "ALTER TABLE t SCATTER",
                             "INSERT INTO t VALUES (10, 0)", "INSERT INTO t VALUES (150, 0)",
                             "INSERT INTO t VALUES (250, 0)"}),
        "");
    ASSERT_EQ(cluster_->on_each_shard("SELECT count(*) FROM t"),
              (std::vector<std::string>{"1", "1", "1"}));
    for (int i = 0; i < 3; ++i) {
      auto d = cluster_->direct(i);
      std::string id = pq_exec(d.get(), "SELECT id FROM t").at();
      shard_of_[id] = i;
    }
  }
  static void TearDownTestSuite() { cluster_.reset(); }

  /// BEGIN, then `sql` on several shards: the block is coordinated from its first statement
  /// (through the extended protocol pgrange can make a block coordinated only then).
  static void open_block(PGconn* c, const std::string& sql, bool extended) {
    ASSERT_OK(run(c, "BEGIN", false));
    ASSERT_OK(run(c, sql, extended));
  }

  /// The pid of the coordinated block's connection to `shard` (idle in its transaction).
  static std::string part(int shard) {
    return backend(cluster_->shard(shard), "idle in transaction");
  }

  /// Rows of the block (ids above 1000) anywhere, and the table's own rows unchanged.
  static void expect_nothing_written() {
    EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM t WHERE id > 1000 OR v <> 0"), 0);
    EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM t"), 3);
    EXPECT_EQ(cluster_->prepared_left(), 0);
  }

  static std::unique_ptr<ShardCluster> cluster_;
  static std::map<std::string, int> shard_of_;
};

std::unique_ptr<ShardCluster> CoordinatedLossTest::cluster_;
std::map<std::string, int> CoordinatedLossTest::shard_of_;

TEST_F(CoordinatedLossTest, APartLostBetweenStatements) {
  for (bool extended : {false, true}) {
    for (bool commit : {true, false}) {
      SCOPED_TRACE(std::string(extended ? "extended" : "simple") + (commit ? ", COMMIT" : ""));
      auto c = cluster_->client();
      open_block(c.get(), "UPDATE t SET v = 1 WHERE id IN (10, 150)", extended);
      terminate(cluster_->shard(shard_of_["150"]), part(shard_of_["150"]));
      SqlResult lost = run(c.get(), "UPDATE t SET v = 2 WHERE id = 150", extended);
      EXPECT_FALSE(lost.ok());
      EXPECT_EQ(lost.severity, "ERROR") << lost.message;
      EXPECT_TRUE(lost.sqlstate == "57P01" || lost.sqlstate == "08006")
          << lost.sqlstate << " " << lost.message;
      EXPECT_EQ(PQtransactionStatus(c.get()), PQTRANS_INERROR);
      for (const char* sql : {"UPDATE t SET v = 3 WHERE id = 10", "SELECT count(*) FROM t"}) {
        EXPECT_EQ(run(c.get(), sql, extended).sqlstate, "25P02") << sql;
      }
      EXPECT_EQ(tag(c.get(), commit ? "COMMIT" : "ROLLBACK", extended), "ROLLBACK");
      EXPECT_EQ(PQtransactionStatus(c.get()), PQTRANS_IDLE);
      expect_nothing_written();
      EXPECT_EQ(run(c.get(), "SELECT count(*) FROM t", extended).at(), "3");
    }
  }
}

TEST_F(CoordinatedLossTest, APartLostDuringAStatement) {
  for (bool extended : {false, true}) {
    SCOPED_TRACE(extended ? "extended" : "simple");
    auto c = cluster_->client();
    open_block(c.get(), "UPDATE t SET v = 1 WHERE id IN (10, 250)", extended);
    std::string pid = part(shard_of_["250"]);
    send(c.get(), "UPDATE t SET v = 2 WHERE id = 250 AND pg_sleep(30) IS NOT NULL", extended);
    backend(cluster_->shard(shard_of_["250"]), "active", "UPDATE t SET v = 2%");
    terminate(cluster_->shard(shard_of_["250"]), pid);
    SqlResult lost = answer(c.get());
    EXPECT_FALSE(lost.ok());
    EXPECT_EQ(lost.severity, "ERROR") << lost.message;
    EXPECT_EQ(PQtransactionStatus(c.get()), PQTRANS_INERROR);
    EXPECT_EQ(run(c.get(), "SELECT 1", extended).sqlstate, "25P02");
    EXPECT_EQ(tag(c.get(), "COMMIT", extended), "ROLLBACK");
    expect_nothing_written();
  }
}

TEST_F(CoordinatedLossTest, APartLostBeforeCommit) {
  // The loss is noticed at COMMIT: the two-phase commit fails, nothing commits anywhere.
  for (bool extended : {false, true}) {
    SCOPED_TRACE(extended ? "extended" : "simple");
    auto c = cluster_->client();
    open_block(c.get(), "UPDATE t SET v = 7 WHERE id IN (10, 150)", extended);
    ASSERT_OK(run(c.get(), "INSERT INTO t VALUES (1010, 0)", extended));
    terminate(cluster_->shard(shard_of_["10"]), part(shard_of_["10"]));
    SqlResult commit = run(c.get(), "COMMIT", extended);
    EXPECT_FALSE(commit.ok());
    EXPECT_EQ(PQtransactionStatus(c.get()), PQTRANS_IDLE);
    expect_nothing_written();
  }
}

}  // namespace
}  // namespace pgrange::testing
