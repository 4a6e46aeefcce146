// Transaction blocks over several shards through pgrange, compared with one plain PostgreSQL:
// SELECTs over several shards inside a block (seeing the block's own writes), savepoints, and
// SET / SET LOCAL / RESET. Each script runs statement by statement through pgrange (three real
// PostgreSQL 15 shards) and directly on one plain PostgreSQL database holding the same rows (a
// database of its own on the first shard's server); every answer (status, SQLSTATE, message,
// command tag, rows) must be the same on both.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/support/raw_protocol.hpp"
#include "tests/support/shard_cluster.hpp"

namespace pgrange::testing {
namespace {

/// A PQprepare of `sql` as the statement `name`.
ScriptStep prepare(std::string name, std::string sql) {
  ScriptStep s(std::move(sql), {});
  s.prepare = std::move(name);
  return s;
}
/// A PQexecPrepared of the statement `name` with `params`.
ScriptStep execute(std::string name, std::vector<std::string> params) {
  ScriptStep s("EXECUTE " + name, std::move(params));
  s.execute = std::move(name);
  return s;
}

class CoordinatedBlockTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ShardCluster::Options o;
    o.databases = {"app", "ref"};
    cluster_ = ShardCluster::start(o);
    ASSERT_EQ(cluster_->run_setup(
                  {"CREATE TABLE t (id int8 PRIMARY KEY, v int8 NOT NULL, note text)",
                   "INSERT INTO t SELECT g, g % 7, 'row ' || g FROM generate_series(1, 300) g"},
                  ShardCluster::Target::kPgrangeAndReference),
              "");
    ASSERT_EQ(cluster_->run_setup(
                  {"ALTER TABLE t SPLIT AT VALUES (100), (200)", "ALTER TABLE t SCATTER"}),
              "");
    // The rows 10, 150 and 250 live on three different shards (the scripts rely on it).
    EXPECT_EQ(cluster_->on_each_shard("SELECT count(*) FROM t WHERE id IN (10, 150, 250)"),
              (std::vector<std::string>{"1", "1", "1"}));
  }
  static void TearDownTestSuite() { cluster_.reset(); }

  /// Runs `script` through pgrange and on the reference database, statement by statement; the
  /// answers must match. Then the table must hold the same rows on both.
  static void same_answers(const std::vector<ScriptStep>& script, const std::string& options = {}) {
    auto p = pq_connect(cluster_->proxy().dsn() + options);
    auto r = pq_connect(cluster_->shard(0).dsn("ref") + options);
    ASSERT_EQ(PQstatus(p.get()), CONNECTION_OK) << PQerrorMessage(p.get());
    ASSERT_EQ(PQstatus(r.get()), CONNECTION_OK) << PQerrorMessage(r.get());
    same_answers(p.get(), r.get(), script);
  }
  static void same_answers(PGconn* p, PGconn* r, const std::vector<ScriptStep>& script) {
    for (size_t i = 0; i < script.size(); ++i) {
      std::string via = answer_text(p, script[i]);
      std::string direct = answer_text(r, script[i]);
      EXPECT_EQ(via, direct) << "statement " << i << ": " << script[i].sql << "\n"
                             << first_difference(direct, via);
    }
    if (PQtransactionStatus(p) == PQTRANS_IDLE) {
      ScriptStep all = "SELECT id, v, note FROM t ORDER BY id";
      EXPECT_EQ(answer_text(p, all), answer_text(r, all)) << "the table differs after the script";
    }
  }

  static std::unique_ptr<ShardCluster> cluster_;
};

std::unique_ptr<ShardCluster> CoordinatedBlockTest::cluster_;

// The value of a setting on each shard: the rows 10, 150 and 250 live on the three shards.
constexpr const char* kSettingsEverywhere =
    "SELECT id, current_setting('work_mem') AS work_mem, current_setting('statement_timeout') "
    "AS timeout FROM t WHERE id IN (10, 150, 250) ORDER BY id";

TEST_F(CoordinatedBlockTest, ASelectOverSeveralShardsSeesTheBlocksOwnWrites) {
  same_answers({
      // On one shard first, then a SELECT over all three: the block becomes coordinated.
      "BEGIN",
      "UPDATE t SET v = v + 100 WHERE id = 50",
      "SELECT count(*), sum(v), min(v), max(v) FROM t",
      "INSERT INTO t VALUES (1001, 1, 'new'), (-1, 2, 'new'), (150150, 3, 'new')",
      "SELECT id, v FROM t WHERE note = 'new' OR v > 50 ORDER BY id",
      "SELECT id, v FROM t ORDER BY v DESC, id LIMIT 4",
      "SELECT v, count(*) FROM t GROUP BY v HAVING count(*) > 40 ORDER BY v",
      "DELETE FROM t WHERE id BETWEEN 90 AND 110",
      "SELECT count(*) FROM t WHERE id BETWEEN 1 AND 300",
      "COMMIT",
      "SELECT count(*), sum(v) FROM t",
      // A block whose first statement is the SELECT over several shards; rolled back.
      "BEGIN",
      "SELECT count(*) FROM t",
      "DELETE FROM t WHERE id > 250",
      "SELECT count(*), max(id) FROM t",
      "UPDATE t SET note = 'gone' WHERE id = 20",
      "SELECT DISTINCT note FROM t WHERE note IN ('gone', 'new') ORDER BY note",
      "ROLLBACK",
      "SELECT count(*), max(id) FROM t",
      // Already coordinated by writes on two shards.
      "BEGIN",
      "UPDATE t SET v = v - 1 WHERE id = 10",
      "UPDATE t SET v = v + 1 WHERE id = 290",
      "SELECT id, v FROM t WHERE id IN (10, 290, 150) ORDER BY id",
      "SELECT sum(v) FROM t",
      "COMMIT",
  });
  EXPECT_EQ(cluster_->prepared_left(), 0);
}

TEST_F(CoordinatedBlockTest, ASelectOverSeveralShardsInABlockThroughTheExtendedProtocol) {
  same_answers({
      // The SELECT is the block's first statement: the block starts coordinated.
      "BEGIN",
      ext("SELECT max(v), min(id) FROM t"),
      ext("UPDATE t SET v = v + $1 WHERE id = $2", {"1000", "30"}),
      ext("SELECT id, v FROM t WHERE v > $1 ORDER BY id", {"500"}),
      ext("INSERT INTO t VALUES ($1, $2, 'ext')", {"-20", "7"}),
      ext("SELECT count(*), sum(v) FROM t WHERE id < $1", {"1000"}),
      ext("SELECT id FROM t WHERE note = $1 ORDER BY id", {"ext"}),
      "COMMIT",
      // Coordinated by writes on two shards; savepoints and settings in the extended protocol.
      "BEGIN",
      "UPDATE t SET v = v + 1 WHERE id = 5",
      "UPDATE t SET v = v + 1 WHERE id = 205",
      ext("SAVEPOINT a"),
      ext("DELETE FROM t WHERE id = $1", {"-20"}),
      ext("SET work_mem = '4MB'"),
      ext("SELECT count(*) FROM t WHERE note = $1", {"ext"}),
      ext(kSettingsEverywhere),
      ext("ROLLBACK TO a"),
      ext("SELECT count(*) FROM t WHERE note = $1", {"ext"}),
      ext(kSettingsEverywhere),
      "ROLLBACK",
      ext("SELECT count(*) FROM t WHERE note = $1", {"ext"}),
      // A block on one shard takes a named prepared statement over several shards.
      prepare("sel", "SELECT count(*), sum(v) FROM t WHERE id < $1"),
      prepare("upd", "UPDATE t SET v = v + 1 WHERE id = $1"),
      "BEGIN",
      execute("upd", {"40"}),
      execute("sel", {"1000"}),
      execute("upd", {"240"}),
      execute("sel", {"1000"}),
      "COMMIT",
      // An error in the merged SELECT aborts the block.
      "BEGIN",
      ext("SELECT count(*) FROM t"),
      ext("SELECT id / (id - $1) FROM t ORDER BY 1", {"150"}),
      ext("SELECT 1"),
      "ROLLBACK",
  });
  EXPECT_EQ(cluster_->prepared_left(), 0);
}

// What JDBC with autocommit off and node-postgres send: every statement of the block through
// Parse/Bind/Execute, the Parse arriving while the block holds one shard's connection, its Bind
// then needing another shard.
TEST_F(CoordinatedBlockTest, StatementsParsedInsideABlockMayGoToAnotherShard) {
  same_answers({
      "BEGIN",
      ext("UPDATE t SET v = v + $1 WHERE id = $2", {"1", "10"}),
      ext("UPDATE t SET v = v + $1 WHERE id = $2", {"1", "150"}),
      ext("INSERT INTO t VALUES ($1, $2, 'drv')", {"-30", "1"}),
      ext("SELECT id, v, note FROM t WHERE id IN ($1, $2, $3) ORDER BY id", {"10", "150", "-30"}),
      "COMMIT",
      // Named statements prepared inside the block (JDBC past prepareThreshold).
      "BEGIN",
      prepare("u1", "UPDATE t SET v = v - 1 WHERE id = $1"),
      execute("u1", {"20"}),
      prepare("u2", "UPDATE t SET note = $2 WHERE id = $1"),
      execute("u2", {"250", "drv2"}),
      execute("u1", {"160"}),
      execute("u2", {"21", "drv3"}),
      "COMMIT",
      // Rolled back: nothing of it stays on any shard.
      "BEGIN",
      ext("DELETE FROM t WHERE id = $1", {"30"}),
      ext("DELETE FROM t WHERE id = $1", {"230"}),
      ext("SELECT count(*) FROM t WHERE id IN ($1, $2)", {"30", "230"}),
      "ROLLBACK",
      // A failed statement on the second shard aborts the whole block.
      "BEGIN",
      ext("UPDATE t SET v = v + 1 WHERE id = $1", {"40"}),
      ext("UPDATE t SET v = v / 0 WHERE id = $1", {"240"}),
      ext("SELECT 1"),
      "COMMIT",
  });
  EXPECT_EQ(cluster_->prepared_left(), 0);
}

// A named statement run again and again in blocks over several shards (pgbench -M prepared,
// JDBC past prepareThreshold) is prepared once on each shard's connection, not parsed at every
// execution; an execution that fails leaves the statement usable in the next block, and DDL
// between executions is seen as PostgreSQL sees it.
TEST_F(CoordinatedBlockTest, NamedStatementsArePreparedOnceOnEachShardOfABlock) {
  auto p = pq_connect(cluster_->proxy().dsn());
  auto r = pq_connect(cluster_->shard(0).dsn("ref"));
  ASSERT_EQ(PQstatus(p.get()), CONNECTION_OK) << PQerrorMessage(p.get());
  ASSERT_EQ(PQstatus(r.get()), CONNECTION_OK) << PQerrorMessage(r.get());
  const std::string text = "UPDATE t SET v = v + $2 WHERE id = $1";
  same_answers(p.get(), r.get(),
               {
                   prepare("pu", text),
                   "BEGIN",
                   // Two shards before the statement runs: the block is coordinated and its
                   // first shard is row 150's, reached by a simple query.
                   "UPDATE t SET v = v + 1 WHERE id = 150",
                   "UPDATE t SET v = v + 1 WHERE id = 10",
                   execute("pu", {"150", "1"}),
                   execute("pu", {"250", "2"}),
                   execute("pu", {"151", "3"}),
                   execute("pu", {"11", "4"}),
                   execute("pu", {"251", "5"}),
                   "COMMIT",
                   // An execution failing on a shard aborts the block; the next block runs it.
                   "BEGIN",
                   execute("pu", {"160", "1"}),
                   execute("pu", {"20", "1"}),
                   execute("pu", {"260", "9223372036854775807"}),
                   execute("pu", {"161", "1"}),
                   "COMMIT",
                   "BEGIN",
                   execute("pu", {"260", "1"}),
                   execute("pu", {"30", "1"}),
                   execute("pu", {"160", "1"}),
                   "COMMIT",
               });
  // Through pgrange a block's statements run on the shards as pgrange's statement of the same
  // text, prepared on each shard's connection once however often it ran (unnamed, it would not
  // be in pg_prepared_statements). A text of its own, run nowhere before, in a block whose
  // connections were all opened for its SELECT over every shard.
  // Written with a semicolon, as pgbench writes its statements (the shards get it without).
  const std::string checked = text + " AND v IS NOT NULL";
  const std::string checked_sent = checked + ";";
  EXPECT_EQ(answer_text(p.get(), prepare("pc", checked_sent)),
            answer_text(r.get(), prepare("pc", checked_sent)));
  auto ok = [&](const std::string& sql) {
    SqlResult res = pq_exec(p.get(), sql);
    EXPECT_TRUE(res.ok()) << sql << ": " << res.message;
  };
  ok("BEGIN");
  ok("SELECT count(*) FROM t");
  for (const char* id : {"150", "10", "250", "151", "11", "251"}) {
    EXPECT_EQ(answer_text(p.get(), execute("pc", {id, "0"})),
              answer_text(r.get(), execute("pc", {id, "0"})));
  }
  SqlResult held = pq_exec(
      p.get(), "SELECT count(*) FROM pg_prepared_statements WHERE statement = '" + checked + "'");
  EXPECT_EQ(held.at(), "1") << "the statement is not held prepared on the block's first shard "
                            << held.message;
  ok("COMMIT");
  // DEALLOCATE ALL (on whichever connection it runs) leaves pgrange's record of what each
  // connection holds right: prepared again, the statement runs in the next block.
  same_answers(p.get(), r.get(),
               {
                   "DEALLOCATE ALL",
                   execute("pc", {"150", "1"}),
                   prepare("pc", checked_sent),
                   prepare("pu", text),
                   "BEGIN",
                   "SELECT count(*) FROM t",
                   execute("pc", {"150", "1"}),
                   execute("pc", {"250", "1"}),
                   execute("pc", {"10", "1"}),
                   "COMMIT",
               });
  // A column added between executions: PostgreSQL plans the statement again.
  ASSERT_EQ(cluster_->run_setup({"ALTER TABLE t ADD COLUMN extra int"},
                                ShardCluster::Target::kPgrangeAndReference),
            "");
  same_answers(p.get(), r.get(),
               {
                   "BEGIN",
                   execute("pu", {"153", "1"}),
                   execute("pu", {"253", "1"}),
                   execute("pu", {"53", "1"}),
                   "COMMIT",
               });
  ASSERT_EQ(cluster_->run_setup({"ALTER TABLE t DROP COLUMN extra"},
                                ShardCluster::Target::kPgrangeAndReference),
            "");
  EXPECT_EQ(cluster_->prepared_left(), 0);
}

// A cancel (psycopg2's conn.cancel(), JDBC's Statement.cancel()) reaches every shard the
// statement runs on: a SELECT merged from three shards, a write over three shards (nothing of
// it stays), a statement of a block over several shards (the block is then aborted).
TEST_F(CoordinatedBlockTest, CancelReachesEveryShardOfTheStatement) {
  auto c = pq_connect(cluster_->proxy().dsn());
  ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
  // A SELECT runs on its shards at once; a write over several shards runs on one after the
  // other, so its cancel comes while the first of them sleeps.
  auto cancelled = [&](const std::string& sql, bool at_once) {
    EXPECT_EQ(PQsendQuery(c.get(), sql.c_str()), 1) << PQerrorMessage(c.get());
    const std::string running =
        "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE "
        "'%pg_sleep(60)%' AND pid <> pg_backend_pid()";
    auto sleeping = [&] {
      int n = 0;
      for (const std::string& v : cluster_->on_each_shard(running)) n += v == "1" ? 1 : 0;
      return n;
    };
    int wanted = at_once ? 3 : 1;
    for (int i = 0; i < 400 && sleeping() < wanted; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_EQ(sleeping(), wanted) << ::testing::PrintToString(cluster_->on_each_shard(
        "SELECT string_agg(state || ': ' || query, ' / ') FROM pg_stat_activity WHERE "
        "backend_type = 'client backend' AND pid <> pg_backend_pid()"));
    PGcancel* cancel = PQgetCancel(c.get());
    char err[256] = {0};
    EXPECT_EQ(PQcancel(cancel, err, sizeof err), 1) << err;
    PQfreeCancel(cancel);
    std::string state;
    while (PGresult* r = PQgetResult(c.get())) {
      const char* st = PQresultErrorField(r, PG_DIAG_SQLSTATE);
      if (st != nullptr && state.empty()) state = st;
      PQclear(r);
    }
    // Nothing sleeps on any shard any more.
    EXPECT_EQ(cluster_->on_each_shard(running), (std::vector<std::string>{"0", "0", "0"}));
    return state;
  };
  ScriptStep sum = "SELECT count(*), sum(v) FROM t";
  std::string before = answer_text(c.get(), sum);
  EXPECT_EQ(cancelled("SELECT id FROM t WHERE id IN (10, 150, 250) AND pg_sleep(60) IS NOT NULL "
                      "ORDER BY id",
                      true),
            "57014");
  EXPECT_EQ(cancelled("UPDATE t SET v = v + 1000 WHERE id IN (11, 151, 251) AND "
                      "pg_sleep(60) IS NOT NULL",
                      false),
            "57014");
  EXPECT_EQ(answer_text(c.get(), sum), before);
  ASSERT_EQ(answer_text(c.get(), "BEGIN"), "PGRES_COMMAND_OK BEGIN");
  EXPECT_EQ(answer_text(c.get(), "UPDATE t SET v = v + 1 WHERE id = 12"),
            "PGRES_COMMAND_OK UPDATE 1");
  EXPECT_EQ(answer_text(c.get(), "UPDATE t SET v = v + 1 WHERE id = 152"),
            "PGRES_COMMAND_OK UPDATE 1");
  EXPECT_EQ(cancelled("SELECT count(*) FROM t WHERE id IN (10, 150, 250) AND "
                      "pg_sleep(60) IS NOT NULL",
                      true),
            "57014");
  EXPECT_EQ(PQtransactionStatus(c.get()), PQTRANS_INERROR);
  EXPECT_EQ(answer_text(c.get(), "ROLLBACK"), "PGRES_COMMAND_OK ROLLBACK");
  EXPECT_EQ(PQtransactionStatus(c.get()), PQTRANS_IDLE);
  EXPECT_EQ(answer_text(c.get(), sum), before);
  EXPECT_EQ(cluster_->prepared_left(), 0);
}

// A query string of several statements whose statements run on different shards (psycopg2's
// execute_batch, scripts) runs as on PostgreSQL: in one transaction, all of it or nothing.
TEST_F(CoordinatedBlockTest, QueryStringsOfSeveralStatementsRunAsOneTransaction) {
  same_answers({
      "UPDATE t SET v = v + 1 WHERE id = 60; UPDATE t SET v = v + 1 WHERE id = 160; "
      "SELECT id, v FROM t WHERE id IN (60, 160) ORDER BY id",
      "SELECT id, v FROM t WHERE id IN (60, 160, 260) ORDER BY id",
      // An error in the middle undoes the statements before it and skips those after it.
      "UPDATE t SET v = 0 WHERE id = 61; UPDATE t SET v = v / 0 WHERE id = 161; "
      "UPDATE t SET v = 0 WHERE id = 261",
      "SELECT id, v FROM t WHERE id IN (61, 161, 261) ORDER BY id",
      "INSERT INTO t VALUES (1061, 1, 'batch'); INSERT INTO t VALUES (-61, 2, 'batch'); "
      "INSERT INTO t VALUES (161161, 3, 'batch'), (162, 4, 'dup')",
      "INSERT INTO t VALUES (1062, 1, 'batch'); INSERT INTO t VALUES (-62, 2, 'batch'); "
      "INSERT INTO t VALUES (161162, 3, 'batch')",
      "SELECT id, note FROM t WHERE note = 'batch' ORDER BY id",
      // A SELECT over every shard among them, and several results in one answer.
      "DELETE FROM t WHERE id = 1062; SELECT count(*), sum(v) FROM t; DELETE FROM t WHERE id = -62",
      // Inside a block: the block's statements, the string's error aborts the block.
      "BEGIN",
      "UPDATE t SET v = v + 5 WHERE id = 63; DELETE FROM t WHERE id = 263",
      "SELECT count(*) FROM t WHERE id IN (63, 263)",
      "ROLLBACK",
      "BEGIN",
      "UPDATE t SET v = v + 5 WHERE id = 64; UPDATE t SET v = v + 5 WHERE id = 264",
      "UPDATE t SET v = v + 1 WHERE id = 65; UPDATE t SET v = 1 / 0 WHERE id = 265",
      "SELECT 1",
      "COMMIT",
      "SELECT id, v FROM t WHERE id IN (64, 65, 264, 265) ORDER BY id",
  });
  EXPECT_EQ(cluster_->prepared_left(), 0);
}

/// Sends each statement (with its parameters) in one pipeline, one Sync at the end, as pgjdbc
/// sends a batch: each one's outcome, then what the Sync brought.
std::vector<std::string> pipeline(PGconn* c,
                                  const std::vector<std::pair<std::string, std::string>>& rows) {
  std::vector<std::string> out;
  if (PQenterPipelineMode(c) != 1) return {"cannot enter pipeline mode"};
  for (const auto& [sql, param] : rows) {
    const char* values[] = {param.c_str()};
    if (PQsendQueryParams(c, sql.c_str(), param.empty() ? 0 : 1, nullptr, values, nullptr, nullptr,
                          0) != 1) {
      out.push_back(std::string("cannot send: ") + PQerrorMessage(c));
    }
  }
  if (PQpipelineSync(c) != 1) out.push_back("cannot sync");
  for (size_t i = 0; i < rows.size(); ++i) {
    PGresult* res = PQgetResult(c);
    if (res == nullptr) {
      out.push_back("no result");
      continue;
    }
    const char* code = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    out.push_back(PQresultStatus(res) == PGRES_FATAL_ERROR
                      ? std::string("ERROR ") + (code ? code : "?")
                      : std::string(PQcmdStatus(res)));
    PQclear(res);
    if (PGresult* end = PQgetResult(c)) {
      out.push_back("unexpected result");
      PQclear(end);
    }
  }
  PGresult* sync = PQgetResult(c);
  out.push_back(sync != nullptr && PQresultStatus(sync) == PGRES_PIPELINE_SYNC ? "sync"
                                                                               : "no sync");
  PQclear(sync);
  PQexitPipelineMode(c);
  return out;
}

TEST_F(CoordinatedBlockTest, EveryStatementOfAPipelineRunsInATransactionOverSeveralShards) {
  // pgjdbc's executeBatch: every row's Bind and Execute, then one Sync. Each must run.
  const std::string insert = "INSERT INTO t VALUES ($1::int8, 9, 'pipelined')";
  std::vector<std::pair<std::string, std::string>> rows;
  for (int id : {2001, 2150, 2250, -2001, 2002}) rows.emplace_back(insert, std::to_string(id));
  rows.emplace_back("UPDATE t SET v = v + 1 WHERE note = 'pipelined'", "");
  std::vector<std::string> want(5, "INSERT 0 1");
  want.push_back("UPDATE 5");
  want.push_back("sync");
  // Inside a block over several shards (pgjdbc with autocommit off).
  for (bool block : {true}) {
    auto c = pq_connect(cluster_->proxy().dsn());
    if (block) {
      ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
      ASSERT_TRUE(pq_exec(c.get(), "UPDATE t SET v = v WHERE id IN (10, 150)").ok());
    }
    EXPECT_EQ(pipeline(c.get(), rows), want);
    if (block) {
      ASSERT_TRUE(pq_exec(c.get(), "COMMIT").ok());
    }
    auto other = cluster_->client();
    SqlResult left =
        pq_exec(other.get(), "SELECT count(*), sum(v) FROM t WHERE note = 'pipelined'");
    EXPECT_EQ(left.at(0, 0) + "|" + left.at(0, 1), "5|50") << left.message;
    ASSERT_TRUE(pq_exec(other.get(), "DELETE FROM t WHERE note = 'pipelined'").ok());
  }
  EXPECT_EQ(cluster_->prepared_left(), 0);
}

TEST_F(CoordinatedBlockTest, APipelineOutsideABlockIsOneImplicitTransaction) {
  // Outside a block, what a pipeline sends up to its Sync is one implicit transaction
  // (§55.2.4): every statement runs, and an error anywhere rolls all of it back.
  using Rows = std::vector<std::pair<std::string, std::string>>;
  const std::string insert = "INSERT INTO t VALUES ($1::int8, 9, 'implicit')";
  auto rows_of = [&](std::initializer_list<int> ids) {
    Rows rows;
    for (int id : ids) rows.emplace_back(insert, std::to_string(id));
    return rows;
  };
  std::vector<Rows> pipelines;
  // A SELECT over several shards first, then writes on several shards.
  Rows fan_out = {{"SELECT count(*) FROM t WHERE v = $1::int8", "3"}};
  for (auto& r : rows_of({3001, -3001, 3150})) fan_out.push_back(r);
  fan_out.emplace_back("UPDATE t SET v = v + 1 WHERE note = 'implicit'", "");
  fan_out.emplace_back("SELECT count(*) FROM t WHERE note = $1", "implicit");
  pipelines.push_back(fan_out);
  // Several rows on one shard, then one on another.
  pipelines.push_back(rows_of({3002, 3250, 3003, -3002}));
  // An error after writes on two shards: nothing of the pipeline stays.
  Rows failing = rows_of({3004, -3004, 3251});
  failing.emplace_back(insert, "10");  // duplicate key
  failing.emplace_back(insert, "3005");
  pipelines.push_back(failing);
  // An error after writes on one shard, and a SELECT over several shards in between.
  Rows failing_one = rows_of({3006, 3007});
  failing_one.emplace_back("SELECT count(*) FROM t WHERE note = $1", "implicit");
  failing_one.emplace_back("SELECT 1 / $1::int8", "0");
  pipelines.push_back(failing_one);
  auto p = pq_connect(cluster_->proxy().dsn());
  auto r = pq_connect(cluster_->shard(0).dsn("ref"));
  for (size_t i = 0; i < pipelines.size(); ++i) {
    EXPECT_EQ(pipeline(p.get(), pipelines[i]), pipeline(r.get(), pipelines[i])) << "pipeline " << i;
    ScriptStep all = "SELECT id, v, note FROM t WHERE note = 'implicit' ORDER BY id";
    EXPECT_EQ(answer_text(p.get(), all), answer_text(r.get(), all)) << "after pipeline " << i;
  }
  // After pipelines over several shards, a block of simple queries over several shards on the
  // same connection (it was refused: the pipeline's end left the session believing its next
  // connection had extended-protocol messages waiting for a Sync).
  EXPECT_EQ(pipeline(p.get(), rows_of({3008, -3008})), pipeline(r.get(), rows_of({3008, -3008})));
  same_answers(
      p.get(), r.get(),
      {"BEGIN", "UPDATE t SET v = v + 1 WHERE id = 3008", "UPDATE t SET v = v + 1 WHERE id = -3008",
       "COMMIT", "SELECT id, v FROM t WHERE id IN (3008, -3008) ORDER BY id"});
  // Inside a block, a pipeline that starts on one shard and goes on to another.
  for (const char* end : {"COMMIT", "ROLLBACK"}) {
    Rows rows = rows_of({3010, -3010});
    rows.emplace_back("SELECT count(*) FROM t WHERE note = $1", "implicit");
    for (PGconn* c : {p.get(), r.get()}) ASSERT_TRUE(pq_exec(c, "BEGIN").ok());
    EXPECT_EQ(pipeline(p.get(), rows), pipeline(r.get(), rows)) << end;
    same_answers(p.get(), r.get(), {end});
  }
  same_answers(p.get(), r.get(), {"DELETE FROM t WHERE note = 'implicit'"});
  // A statement pgrange refuses after writes on one shard: they roll back with it.
  Rows refused = rows_of({3020, 3021});
  refused.emplace_back(
      "SELECT a.id FROM t a JOIN t b ON a.id = b.v WHERE a.v = $1::int8 FOR UPDATE", "1");
  EXPECT_EQ(pipeline(p.get(), refused),
            (std::vector<std::string>{"INSERT 0 1", "INSERT 0 1", "ERROR 0A000", "sync"}));
  EXPECT_EQ(pq_exec(p.get(), "SELECT count(*) FROM t WHERE note = 'implicit'").at(0, 0), "0");
  EXPECT_EQ(cluster_->prepared_left(), 0);
}

TEST_F(CoordinatedBlockTest, InsertSelectRoutesEachRowToItsShard) {
  ASSERT_EQ(cluster_->run_setup({"CREATE TABLE t2 (id int8 PRIMARY KEY, v int8, note text)"},
                                ShardCluster::Target::kPgrangeAndReference),
            "");
  ASSERT_EQ(cluster_->run_setup(
                {"ALTER TABLE t2 SPLIT AT VALUES (100), (200)", "ALTER TABLE t2 SCATTER"}),
            "");
  same_answers({
      // Rows read from every shard, written to every shard.
      "INSERT INTO t2 SELECT id, v, note FROM t WHERE v = 3",
      "SELECT count(*), sum(id), min(note) FROM t2",
      "INSERT INTO t2 SELECT id + 1000, v, 'shifted' FROM t WHERE id BETWEEN 95 AND 105 "
      "ORDER BY id RETURNING id, note",
      "INSERT INTO t2 (id, note) SELECT id, 'again' FROM t WHERE id IN (10, 150, 250) "
      "ON CONFLICT (id) DO UPDATE SET note = excluded.note",
      "INSERT INTO t2 SELECT id, v, note FROM t WHERE id = 10",  // 23505
      "INSERT INTO t2 SELECT * FROM t WHERE false",
      "INSERT INTO t2 SELECT * FROM t WHERE false RETURNING id, note",
      "INSERT INTO t2 (v, id) SELECT v, sum(id) FROM t GROUP BY v",
      // Inside blocks: the query sees the block's writes, the rows go with the block.
      "BEGIN",
      "UPDATE t SET note = 'in block' WHERE id IN (20, 120, 220)",
      "INSERT INTO t2 SELECT id + 2000, v, note FROM t WHERE note = 'in block'",
      "SELECT id, note FROM t2 WHERE id > 2000 ORDER BY id",
      "ROLLBACK",
      "BEGIN",
      "INSERT INTO t2 SELECT id + 3000, v, note FROM t WHERE v = 6 AND id > 150",
      "INSERT INTO t2 SELECT id + 4000, v, note FROM t2 WHERE id BETWEEN 3150 AND 3300",
      "COMMIT",
      "SELECT id, v, note FROM t2 ORDER BY id",
      "DROP TABLE t2",
  });
  EXPECT_EQ(cluster_->prepared_left(), 0);
}

// Past 10,000 rows pgrange writes an INSERT … SELECT's rows by several INSERTs in one
// transaction: the statement stays one (one tag, RETURNING in the query's order, nothing kept
// when a later part fails, a block's state as after any statement). Compared with one
// PostgreSQL, the whole tables after each write.
TEST_F(CoordinatedBlockTest, InsertSelectOfManyRowsIsWrittenInPartsOfOneStatement) {
  ASSERT_EQ(cluster_->run_setup({"CREATE TABLE big_src (id int8 PRIMARY KEY, v text)",
                                 "CREATE TABLE big_dst (id int8 PRIMARY KEY, v text)"},
                                ShardCluster::Target::kPgrangeAndReference),
            "");
  ASSERT_EQ(
      cluster_->run_setup(
          {"ALTER TABLE big_src SPLIT AT VALUES (40000), (80000)", "ALTER TABLE big_src SCATTER",
           "ALTER TABLE big_dst SPLIT AT VALUES (30000), (70000)", "ALTER TABLE big_dst SCATTER"}),
      "");
  const char* whole = "SELECT id, v FROM big_dst ORDER BY id";
  same_answers({
      // Rows made on one shard, going to three.
      "INSERT INTO big_src SELECT g, 'v' || g FROM generate_series(1, 100005) g",
      "SELECT count(*), sum(id), min(v), max(v) FROM big_src",
      // Read from three shards (a merge), written to three.
      "INSERT INTO big_dst SELECT id, v FROM big_src",
      whole,
      // RETURNING over several parts, in the query's order.
      "INSERT INTO big_dst SELECT id + 200000, v FROM big_src WHERE id <= 25000 ORDER BY id "
      "RETURNING id, v",
      // The last part fails (23505): nothing of the statement stays.
      "INSERT INTO big_dst SELECT id + 300000, v FROM big_src WHERE id <= 30000 "
      "UNION ALL SELECT 5, 'dup'",
      whole,
      // ON CONFLICT DO NOTHING: rows of every part skipped or written.
      "INSERT INTO big_dst SELECT id + 50000, 'again' FROM big_src WHERE id > 40000 "
      "ON CONFLICT DO NOTHING",
      whole,
      // Through the extended protocol, a parameter written in.
      ScriptStep("INSERT INTO big_dst SELECT id + $1::int8, v FROM big_src WHERE id <= 12000",
                 {"700000"}),
      whole,
      // Inside blocks: the query sees the block's writes (its own table's too), the parts go
      // with the block, a failing part fails the block.
      "BEGIN",
      "DELETE FROM big_dst WHERE id > 40000",
      "INSERT INTO big_dst SELECT id + 800000, v FROM big_dst RETURNING id",
      "SELECT count(*), sum(id), max(v) FROM big_dst",
      "ROLLBACK",
      whole,
      "BEGIN",
      "INSERT INTO big_dst SELECT id + 900000, v FROM big_src WHERE id <= 20000",
      "INSERT INTO big_dst SELECT id + 950000, v FROM big_src WHERE id <= 20000 "
      "UNION ALL SELECT 900001, 'dup'",
      "SELECT 1",
      "ROLLBACK",
      "BEGIN",
      "INSERT INTO big_dst SELECT id + 900000, v FROM big_src WHERE id > 60000",
      "COMMIT",
      whole,
  });
  // ON CONFLICT DO UPDATE may change a row once per statement, which parts cannot check: past
  // one part it is refused, writing nothing.
  auto p = pq_connect(cluster_->proxy().dsn());
  SqlResult r = pq_exec(p.get(),
                        "INSERT INTO big_dst SELECT id, 'upd' FROM big_src "
                        "ON CONFLICT (id) DO UPDATE SET v = excluded.v");
  EXPECT_EQ(r.sqlstate, "0A000") << r.message;
  EXPECT_NE(r.message.find("ON CONFLICT DO UPDATE"), std::string::npos) << r.message;
  EXPECT_EQ(pq_exec(p.get(), "SELECT count(*) FROM big_dst WHERE v = 'upd'").at(0, 0), "0");
  // Parameters in the binary format (pgjdbc's integers): written in as their text; a type
  // pgrange does not decode is refused, named.
  auto ref = pq_connect(cluster_->shard(0).dsn("ref"));
  const unsigned char offset[8] = {0, 0, 0, 0, 0, 0x2d, 0xc6, 0xc0};  // 3000000
  const char* values[] = {reinterpret_cast<const char*>(offset)};
  const int lengths[] = {8};
  const int formats[] = {1};
  const Oid types[] = {20};
  const char* bound = "INSERT INTO big_dst SELECT id + $1, v FROM big_src WHERE id <= 15000";
  for (PGconn* c : {p.get(), ref.get()}) {
    PGresult* res = PQexecParams(c, bound, 1, types, values, lengths, formats, 0);
    EXPECT_EQ(PQresultStatus(res), PGRES_COMMAND_OK) << PQresultErrorMessage(res);
    EXPECT_STREQ(PQcmdStatus(res), "INSERT 0 15000");
    PQclear(res);
  }
  EXPECT_EQ(answer_text(p.get(), whole), answer_text(ref.get(), whole));
  const char jsonb[] = {1, '{', '}'};
  const char* json_values[] = {jsonb};
  const int json_lengths[] = {3};
  const Oid json_types[] = {3802};
  PGresult* res = PQexecParams(p.get(),
                               "INSERT INTO big_dst SELECT id + 2000000, $1::text FROM big_src "
                               "WHERE id <= 20",
                               1, json_types, json_values, json_lengths, formats, 0);
  EXPECT_STREQ(PQresultErrorField(res, PG_DIAG_SQLSTATE), "0A000");
  EXPECT_NE(std::string(PQresultErrorMessage(res)).find("jsonb in the binary format"),
            std::string::npos)
      << PQresultErrorMessage(res);
  PQclear(res);
  // EXPLAIN says what runs (not the router's refusal); EXPLAIN ANALYZE, which would write, is
  // refused and writes nothing.
  const std::string count = pq_exec(p.get(), "SELECT count(*) FROM big_dst").at();
  SqlResult plan =
      pq_exec(p.get(), "EXPLAIN INSERT INTO big_dst SELECT id + 5000000, v FROM big_src");
  ASSERT_TRUE(plan.ok()) << plan.message;
  std::string text;
  for (const auto& row : plan.rows) text += row.at(0) + "\n";
  EXPECT_NE(text.find("pgrange reads the query, then writes its rows by key"), std::string::npos)
      << text;
  EXPECT_NE(text.find("write: INSERT … VALUES of at most 10000 rows each"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("refused"), std::string::npos) << text;
  SqlResult analyzed =
      pq_exec(p.get(), "EXPLAIN ANALYZE INSERT INTO big_dst SELECT id + 5000000, v FROM big_src");
  EXPECT_EQ(analyzed.sqlstate, "0A000") << analyzed.message;
  EXPECT_EQ(pq_exec(p.get(), "SELECT count(*) FROM big_dst").at(), count);
  ASSERT_EQ(cluster_->run_setup({"DROP TABLE big_src", "DROP TABLE big_dst"},
                                ShardCluster::Target::kPgrangeAndReference),
            "");
  EXPECT_EQ(cluster_->prepared_left(), 0);
}

TEST_F(CoordinatedBlockTest, ReturningRowsOfAnInsertOverSeveralShardsComeInValuesOrder) {
  // ORMs give the keys a multi-row INSERT returns to their objects by position: rows in shard
  // order would hand each object another row's key.
  same_answers({
      "BEGIN",
      "INSERT INTO t VALUES (900, 1, 'r'), (-900, 2, 'r'), (901, 3, 'r'), (-901, 4, 'r') "
      "RETURNING id, v",
      "INSERT INTO t VALUES (250, 1, 'u'), (10, 2, 'u'), (150, 3, 'u'), (-7, 4, 'u') "
      "ON CONFLICT (id) DO UPDATE SET note = excluded.note RETURNING id, note",
      "COMMIT",
      "BEGIN",
      "UPDATE t SET v = v WHERE id = 150",
      "INSERT INTO t VALUES (902, 1, 'r'), (-902, 2, 'r'), (903, 3, 'r') RETURNING *",
      "ROLLBACK",
      "DELETE FROM t WHERE note = 'r'",
  });
}

TEST_F(CoordinatedBlockTest, SavepointsBehaveAsInPostgreSQL) {
  same_answers({
      // A savepoint taken on one shard, before the block needed others.
      "BEGIN",
      "UPDATE t SET v = v + 1 WHERE id = 10",
      "SAVEPOINT a",
      "UPDATE t SET v = v + 10 WHERE id = 150",
      "SELECT id, v FROM t WHERE id IN (10, 150, 250) ORDER BY id",
      "ROLLBACK TO SAVEPOINT a",
      "SELECT id, v FROM t WHERE id IN (10, 150, 250) ORDER BY id",
      // The third shard opens after both savepoints: ROLLBACK TO undoes its work too.
      "SAVEPOINT b",
      "SAVEPOINT b",
      "UPDATE t SET v = v + 100 WHERE id = 250",
      "ROLLBACK TO b",
      "SELECT id, v FROM t WHERE id IN (10, 150, 250) ORDER BY id",
      "UPDATE t SET v = v + 1000 WHERE id = 251",
      "RELEASE b",
      "ROLLBACK TO b",
      "SELECT id, v FROM t WHERE id IN (10, 150, 251) ORDER BY id",
      "RELEASE SAVEPOINT a",
      "ROLLBACK TO b",
      "SELECT 1",
      "ROLLBACK",
      // Released and committed: what came after the savepoints stays.
      "BEGIN",
      "SAVEPOINT outer_sp",
      "INSERT INTO t VALUES (-30, 1, 'sp'), (230, 1, 'sp')",
      "SAVEPOINT inner_sp",
      "DELETE FROM t WHERE id = 130",
      "RELEASE outer_sp",
      "RELEASE inner_sp",
      "COMMIT",
      "SELECT id, v, note FROM t WHERE note = 'sp' OR id = 130 ORDER BY id",
      // Everything after the first savepoint undone, over three shards, then committed.
      "BEGIN",
      "SAVEPOINT s",
      "UPDATE t SET v = 0 WHERE id = 11",
      "UPDATE t SET v = 0 WHERE id = 151",
      "UPDATE t SET v = 0 WHERE id = 252",
      "SAVEPOINT s2",
      "DELETE FROM t WHERE id < 0",
      "ROLLBACK TO s",
      "SELECT count(*) FROM t WHERE v = 0 AND id IN (11, 151, 252)",
      "COMMIT",
  });
  EXPECT_EQ(cluster_->prepared_left(), 0);
}

TEST_F(CoordinatedBlockTest, RollbackToASavepointEndsTheFailedState) {
  same_answers({
      "BEGIN",
      "SAVEPOINT a",
      "UPDATE t SET v = v + 2 WHERE id = 12",
      "UPDATE t SET v = v + 2 WHERE id = 152",
      "SAVEPOINT b",
      "UPDATE t SET v = v + 2 WHERE id = 253",
      "SELECT 1 / 0",
      "UPDATE t SET v = 0 WHERE id = 12",
      "SAVEPOINT c",
      "RELEASE a",
      "SELECT count(*) FROM t",
      "ROLLBACK TO b",
      "SELECT id, v FROM t WHERE id IN (12, 152, 253) ORDER BY id",
      // An error on one shard (a duplicate key on the third one), then on another.
      "INSERT INTO t VALUES (-40, 1, 'x'), (260, 1, 'dup')",
      "SELECT id FROM t WHERE id = -40",
      "ROLLBACK TO b",
      "SELECT id FROM t WHERE id = -40",
      "UPDATE t SET v = 1 / (id - 152) WHERE id BETWEEN 140 AND 160",
      "ROLLBACK TO SAVEPOINT b",
      "SELECT count(*) FROM t WHERE v = 0",
      // Savepoints that do not exist.
      "ROLLBACK TO nosuch",
      "SELECT 1",
      "ROLLBACK TO b",
      "RELEASE nosuch",
      "ROLLBACK TO a",
      "SELECT id, v FROM t WHERE id IN (12, 152, 253) ORDER BY id",
      "COMMIT",
      // COMMIT of a failed block rolls it back.
      "BEGIN",
      "UPDATE t SET v = 99 WHERE id = 13",
      "UPDATE t SET v = 99 WHERE id = 153",
      "SELECT 1 / 0",
      "COMMIT",
      "SELECT count(*) FROM t WHERE v = 99",
  });
  EXPECT_EQ(cluster_->prepared_left(), 0);
}

TEST_F(CoordinatedBlockTest, SetAndResetApplyOnEveryShardAndLastAsInPostgreSQL) {
  auto p = cluster_->client();
  auto r = cluster_->reference();
  same_answers(p.get(), r.get(),
               {
                   "BEGIN",
                   "UPDATE t SET v = v WHERE id = 10",
                   "UPDATE t SET v = v WHERE id = 150",
                   "SET work_mem = '7MB'",
                   "SET LOCAL statement_timeout = '55s'",
                   "SHOW work_mem",
                   // The third shard opens now: it gets both settings.
                   kSettingsEverywhere,
                   "COMMIT",
                   // Committed: every backend the session uses has work_mem, none the LOCAL.
                   kSettingsEverywhere,
                   "SHOW work_mem",
                   // Rolled back: gone.
                   "BEGIN",
                   "SELECT count(*) FROM t",
                   "SET work_mem = '9MB'",
                   "SET SESSION statement_timeout = '44s'",
                   kSettingsEverywhere,
                   "ROLLBACK",
                   kSettingsEverywhere,
                   // A bad value fails the block; ROLLBACK TO ends that, and undoes a SET.
                   "BEGIN",
                   "SAVEPOINT a",
                   "SELECT count(*) FROM t",
                   "SET work_mem = 'lots'",
                   "SET work_mem = '3MB'",
                   "ROLLBACK TO a",
                   "SET work_mem = '3MB'",
                   "SAVEPOINT b",
                   "SET statement_timeout = '33s'",
                   "ROLLBACK TO b",
                   kSettingsEverywhere,
                   "RESET work_mem",
                   kSettingsEverywhere,
                   "SET work_mem = '5MB'",
                   "COMMIT",
                   kSettingsEverywhere,
                   // Settings made before the block needed several shards.
                   "BEGIN",
                   "SET work_mem = '6MB'",
                   "SAVEPOINT a",
                   "SET statement_timeout = '22s'",
                   "UPDATE t SET v = v WHERE id = 10",
                   kSettingsEverywhere,
                   "ROLLBACK TO a",
                   kSettingsEverywhere,
                   "RESET ALL",
                   "SET statement_timeout = '11s'",
                   "COMMIT",
                   kSettingsEverywhere,
                   ext("SELECT current_setting('statement_timeout')"),
                   "RESET ALL",
                   kSettingsEverywhere,
               });
  // Another client sees none of it.
  same_answers({kSettingsEverywhere});
}

TEST_F(CoordinatedBlockTest, ResetReturnsToTheStartupValueOnEveryShard) {
  same_answers(
      {
          "BEGIN",
          "SELECT count(*) FROM t",
          "SET work_mem = '8MB'",
          "SET statement_timeout = '1min'",
          kSettingsEverywhere,
          "RESET work_mem",
          kSettingsEverywhere,
          "RESET ALL",
          kSettingsEverywhere,
          "COMMIT",
          kSettingsEverywhere,
          "SHOW work_mem",
      },
      " options='-c work_mem=2MB'");
}

// Result formats per column, as pgjdbc binds them once a statement is prepared on the server
// (binary for the types it reads so, text for the rest), outside and inside a block: the
// values pgrange merges pass through in the formats asked, those it combines (aggregates and
// their groups) are converted, a hidden sort column stays pgrange's own, and a Bind with the
// wrong number of formats gets PostgreSQL's error.
TEST_F(CoordinatedBlockTest, ResultFormatsPerColumnOverSeveralShards) {
  auto run = [](const std::string& sql, std::vector<std::string> params,
                std::vector<int16_t> formats) {
    return testing::parse("", sql) + testing::bind("", "", std::move(params), std::move(formats)) +
           testing::describe('P', "") + testing::execute("", int32_t{0}) + testing::sync();
  };
  const std::vector<std::string> statements = {
      run("SELECT v, count(*), sum(id), min(note), avg(id), max(id) FROM t WHERE id > $1 GROUP BY "
          "v ORDER BY v",
          {"10"}, {1, 0, 1, 1, 0, 1}),
      run("SELECT v, count(*) FROM t GROUP BY v HAVING count(*) > $1 ORDER BY count(*) DESC, v",
          {"40"}, {0, 1}),
      run("SELECT count(*), sum(v), min(id) FROM t", {}, {1}),
      run("SELECT id, note FROM t WHERE id < $1 ORDER BY v DESC, id LIMIT 20", {"260"}, {1, 0}),
      run("SELECT note FROM t ORDER BY id DESC LIMIT 5", {}, {1}),
      run("SELECT DISTINCT v FROM t ORDER BY v", {}, {1}),
      run("SELECT id::numeric / 7 AS n FROM t WHERE id % 50 = 0 ORDER BY n DESC", {}, {1}),
      run("SELECT v, count(*), sum(id) FROM t GROUP BY v", {}, {1, 1}),
  };
  std::vector<std::string> batches;
  for (const std::string& s : statements) batches.push_back(s);
  batches.push_back(RawClient::message('Q', std::string("BEGIN") + '\0'));
  for (const std::string& s : statements) batches.push_back(s);
  batches.push_back(RawClient::message('Q', std::string("ROLLBACK") + '\0'));
  std::vector<std::string> got = answers(cluster_->proxy().port(), "trustuser", "app", batches);
  std::vector<std::string> want = answers(cluster_->shard(0).port(), "postgres", "ref", batches);
  ASSERT_EQ(got.size(), want.size());
  // The wrong number of formats: PostgreSQL refuses the Bind, and so does pgrange (it learns
  // the merged columns from the shards before it answers the Bind).
  EXPECT_EQ(want[7], "1 E08P01 ZI");
  EXPECT_EQ(want[16], "1 E08P01 ZE");
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i], want[i]) << "batch " << i << "\n" << first_difference(want[i], got[i]);
  }
  // The answers are binary where asked (count int8, sum numeric, min int8).
  EXPECT_NE(want[2].find("T(20/1,1700/1,20/1) D[\\x"), std::string::npos) << want[2];
}

}  // namespace
}  // namespace pgrange::testing
