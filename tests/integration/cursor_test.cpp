// Cursors whose query spans several shards (DECLARE, FETCH, MOVE, CLOSE inside transaction
// blocks), through pgrange over three real PostgreSQL 15 shards, compared with the same script
// on one plain PostgreSQL database holding the same rows: every answer (status, SQLSTATE,
// message, command tag, rows) must be the same on both.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/raw_protocol.hpp"
#include "tests/support/shard_cluster.hpp"

namespace pgrange::testing {
namespace {

class CursorTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ShardCluster::Options o;
    o.databases = {"app", "ref"};
    cluster_ = ShardCluster::start(o);
    ASSERT_EQ(cluster_->run_setup(
                  {"CREATE TABLE t (id int8 PRIMARY KEY, v int8 NOT NULL, note text)",
                   "INSERT INTO t SELECT g, g % 7, 'row ' || g FROM generate_series(1, 3000) g",
                   "CREATE TABLE w (id int8 PRIMARY KEY, t_id int8, label text)",
                   "INSERT INTO w SELECT g, (g * 37) % 3100, 'w' || g FROM generate_series(1, 400) "
                   "g"},
                  ShardCluster::Target::kPgrangeAndReference),
              "");
    ASSERT_EQ(cluster_->run_setup(
                  {"ALTER TABLE t SPLIT AT VALUES (1000), (2000)", "ALTER TABLE t SCATTER",
                   "ALTER TABLE w SPLIT AT VALUES (150), (300)", "ALTER TABLE w SCATTER"}),
              "");
    EXPECT_EQ(cluster_->on_each_shard("SELECT count(*) FROM t WHERE id IN (10, 1500, 2500)"),
              (std::vector<std::string>{"1", "1", "1"}));
  }
  static void TearDownTestSuite() { cluster_.reset(); }

  static void same_answers(const std::vector<ScriptStep>& script) {
    auto p = pq_connect(cluster_->proxy().dsn());
    auto r = pq_connect(cluster_->shard(0).dsn("ref"));
    ASSERT_EQ(PQstatus(p.get()), CONNECTION_OK) << PQerrorMessage(p.get());
    ASSERT_EQ(PQstatus(r.get()), CONNECTION_OK) << PQerrorMessage(r.get());
    for (size_t i = 0; i < script.size(); ++i) {
      std::string via = answer_text(p.get(), script[i]);
      std::string direct = answer_text(r.get(), script[i]);
      EXPECT_EQ(via, direct) << "statement " << i << ": " << script[i].sql << "\n"
                             << first_difference(direct, via);
    }
    ScriptStep all = "SELECT id, v, note FROM t ORDER BY id";
    EXPECT_EQ(answer_text(p.get(), all), answer_text(r.get(), all))
        << "the table differs after the script";
  }

  /// The same message batches through pgrange and on one plain PostgreSQL: every answer the
  /// same, the fourth batch's portal suspended, nothing left prepared.
  static void same_raw_answers(const std::vector<std::string>& batches) {
    std::vector<std::string> got = answers(cluster_->proxy().port(), "trustuser", "app", batches);
    std::vector<std::string> want = answers(cluster_->shard(0).port(), "postgres", "ref", batches);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], want[i]) << "batch " << i;
    ASSERT_GT(want.size(), 3u);
    EXPECT_NE(want[3].find(" s "), std::string::npos) << want[3];  // the portal was suspended
    EXPECT_EQ(cluster_->prepared_left(), 0);
  }

  static std::unique_ptr<ShardCluster> cluster_;
};

std::unique_ptr<ShardCluster> CursorTest::cluster_;

TEST_F(CursorTest, AnOrderedCursorIsFetchedInPiecesAcrossShards) {
  same_answers({
      "BEGIN",
      "DECLARE c CURSOR FOR SELECT id, v, note FROM t WHERE v < 5 ORDER BY id",
      "FETCH 5 FROM c",
      "FETCH NEXT FROM c",
      "FETCH FORWARD 700 FROM c",  // from the first shard into the second
      "MOVE 10 IN c",
      "FETCH 3 c",
      "FETCH ABSOLUTE 1500 FROM c",
      "FETCH RELATIVE 2 FROM c",
      "MOVE ABSOLUTE 1600 IN c",
      "MOVE RELATIVE 3 IN c",
      "FETCH ALL FROM c",
      "FETCH c",
      "MOVE ALL IN c",
      "FETCH ABSOLUTE 5000 FROM c",
      "CLOSE c",
      "COMMIT",
      // Backward, over the whole table, several cursors at once.
      "BEGIN",
      "DECLARE down CURSOR FOR SELECT id, note FROM t ORDER BY id DESC",
      "DECLARE \"Up\" NO SCROLL CURSOR WITHOUT HOLD FOR SELECT id FROM t ORDER BY note, id",
      "FETCH 3 FROM down",
      "FETCH 3 FROM \"Up\"",
      "MOVE FORWARD 1990 FROM down",
      "FETCH 20 FROM down",
      "FETCH 2 FROM \"Up\"",
      "CLOSE ALL",
      "FETCH 1 FROM down",
      "ROLLBACK",
  });
}

TEST_F(CursorTest, AggregatesLimitsAndTheBlocksOwnWrites) {
  same_answers({
      "BEGIN",
      "DECLARE g CURSOR FOR SELECT v, count(*), sum(id), min(note) FROM t GROUP BY v ORDER BY v",
      "FETCH 2 FROM g",
      "FETCH ALL FROM g",
      "DECLARE l CURSOR FOR SELECT id FROM t ORDER BY id DESC LIMIT 20 OFFSET 995",
      "FETCH 7 FROM l",
      "FETCH ALL FROM l",
      "FETCH 1 FROM l",
      // The cursor reads what the block wrote before it was declared.
      "UPDATE t SET v = 100 WHERE id IN (10, 1500, 2500)",
      "DELETE FROM t WHERE id IN (11, 1501)",
      "DECLARE w CURSOR FOR SELECT id, v FROM t WHERE v = 100 OR id IN (11, 12, 1501) ORDER BY id",
      "FETCH ALL FROM w",
      "DECLARE n CURSOR FOR SELECT count(*) FROM t",
      "FETCH n",
      "COMMIT",
      "UPDATE t SET v = id % 7 WHERE v = 100",
      "INSERT INTO t VALUES (11, 4, 'row 11'), (1501, 3, 'row 1501')",
  });
}

TEST_F(CursorTest, CursorsThroughTheExtendedProtocolAsPsycopgDeclaresThem) {
  // psycopg 3 declares its server-side cursors with parameters through the extended protocol,
  // describes the cursor by name, and fetches, moves and closes through it too.
  same_answers({
      "BEGIN",
      ext("DECLARE c CURSOR FOR SELECT id, v, note FROM t WHERE v < $1 ORDER BY id", {"5"}),
      ext("FETCH 5 FROM c"),
      ext("FETCH FORWARD 700 FROM c"),
      ext("MOVE 10 IN c"),
      ext("FETCH 3 c"),
      "FETCH 2 FROM c",
      ext("DECLARE g CURSOR FOR SELECT v, count(*), sum(id) FROM t WHERE id > $1 GROUP BY v "
          "ORDER BY v",
          {"100"}),
      ext("FETCH ALL FROM g"),
      ext("DECLARE l CURSOR FOR SELECT id FROM t WHERE id <= $1 ORDER BY id DESC LIMIT $2",
          {"2500", "10"}),
      ext("FETCH ALL FROM l"),
      // Over a join of tables spread differently: their rows read, one shard's cursor.
      ext("DECLARE j CURSOR FOR SELECT w.id, t.note FROM w JOIN t ON t.id = w.t_id "
          "WHERE w.id < $1 ORDER BY w.id",
          {"200"}),
      ext("FETCH 5 FROM j"),
      ext("FETCH ALL FROM j"),
      // A cursor of one shard, in the transaction over several: its FETCH finds it.
      ext("DECLARE a CURSOR FOR SELECT id, v FROM t WHERE id BETWEEN $1 AND $2 ORDER BY id",
          {"2500", "2505"}),
      ext("FETCH 3 FROM a"),
      ext("CLOSE a"),
      ext("CLOSE c"),
      ext("FETCH 1 FROM c"),
      ext("FETCH 1 FROM g"),
      "ROLLBACK",
      // WITH HOLD, outside a block.
      ext("DECLARE h CURSOR WITH HOLD FOR SELECT id, v FROM t WHERE id % 500 = $1 ORDER BY v, id",
          {"7"}),
      ext("FETCH 3 FROM h"),
      ext("MOVE 1 IN h"),
      ext("FETCH ALL FROM h"),
      ext("CLOSE h"),
      ext("FETCH 1 FROM h"),
      // WITH HOLD over a join (Django's iterator() of a query with select_related).
      ext("DECLARE hj CURSOR WITH HOLD FOR SELECT w.id, t.v FROM w JOIN t ON t.id = w.t_id "
          "WHERE w.id BETWEEN $1 AND $2 ORDER BY w.id",
          {"100", "250"}),
      ext("FETCH 4 FROM hj"),
      ext("FETCH ALL FROM hj"),
      ext("CLOSE hj"),
  });
  // The cursor described by name after its DECLARE, as psycopg does; FETCH with binary
  // results (all columns, or per column), as psycopg's binary cursors ask.
  std::vector<std::string> batches = {
      parse("", "BEGIN") + bind("", "") + execute("") + sync(),
      parse("", "DECLARE d CURSOR FOR SELECT id, note FROM t WHERE id > $1 ORDER BY id", {20}) +
          bind("", "", {"2990"}) + describe('P', "") + execute("") + sync(),
      describe('P', "d") + sync(),
      parse("", "FETCH 2 FROM d") + bind("", "") + describe('P', "") + execute("") + sync(),
      parse("", "FETCH 1 FROM d") + bind("", "") + execute("") + sync(),
      parse("", "FETCH 2 FROM d") + bind("", "", {}, {1}) + describe('P', "") + execute("") +
          sync(),
      parse("", "FETCH 1 FROM d") + bind("", "", {}, {1, 0}) + describe('P', "") + execute("") +
          sync(),
      parse("", "MOVE 1 IN d") + bind("", "") + describe('P', "") + execute("") + sync(),
      parse("", "CLOSE d") + bind("", "") + describe('P', "") + execute("") + sync(),
      parse("", "COMMIT") + bind("", "") + execute("") + sync(),
  };
  std::vector<std::string> got = answers(cluster_->proxy().port(), "trustuser", "app", batches);
  std::vector<std::string> want = answers(cluster_->shard(0).port(), "postgres", "ref", batches);
  EXPECT_EQ(got, want);
  ASSERT_EQ(want.size(), batches.size());
  EXPECT_EQ(want[2].substr(0, 2), "T(") << want[2];
  EXPECT_NE(want[5].find("T(20/1,25/1)"), std::string::npos) << want[5];  // binary, both
  EXPECT_NE(want[6].find("T(20/1,25/0)"), std::string::npos) << want[6];
  // A BINARY cursor's rows asked in text: refused, and the block fails as on an error.
  auto p = pq_connect(cluster_->proxy().dsn());
  ASSERT_TRUE(pq_exec(p.get(), "BEGIN").ok());
  ASSERT_TRUE(pq_exec(p.get(), "DECLARE b BINARY CURSOR FOR SELECT id FROM t ORDER BY id").ok());
  PGresult* text =
      PQexecParams(p.get(), "FETCH 2 FROM b", 0, nullptr, nullptr, nullptr, nullptr, 0);
  EXPECT_EQ(take_result(text, p.get()).sqlstate, "0A000");
  EXPECT_EQ(pq_exec(p.get(), "FETCH 1 FROM b").sqlstate, "25P02");
  EXPECT_TRUE(pq_exec(p.get(), "ROLLBACK").ok());
  EXPECT_EQ(pq_exec(p.get(), "SELECT count(*) FROM t").at(), "3000");
}

TEST_F(CursorTest, CursorsOfOneShardInsideATransactionOverSeveralShards) {
  // A cursor whose query stays on one shard is that shard's own: its FETCH, MOVE and CLOSE go
  // to the part of the transaction that holds it, whichever shard the block began on.
  same_answers({
      "BEGIN",
      "UPDATE t SET v = v WHERE id IN (10, 1500, 2500)",
      "DECLARE a CURSOR FOR SELECT id, v FROM t WHERE id BETWEEN 1500 AND 1510 ORDER BY id",
      "DECLARE b CURSOR FOR SELECT id, note FROM t WHERE id BETWEEN 2500 AND 2505 ORDER BY id",
      "FETCH 3 FROM a",
      "FETCH 2 FROM b",
      "MOVE 2 IN a",
      "FETCH NEXT FROM a",
      "CLOSE a",
      "FETCH 1 FROM b",
      "CLOSE b",
      "CLOSE a",
      "ROLLBACK",
      // Begun on one shard; the cursor on another makes the transaction span two.
      "BEGIN",
      "SELECT v FROM t WHERE id = 10",
      "DECLARE c CURSOR FOR SELECT id FROM t WHERE id > 2990 ORDER BY id",
      "FETCH ALL FROM c",
      "UPDATE t SET note = 'fetched' WHERE id = 1500",
      "CLOSE c",
      "DECLARE d CURSOR FOR SELECT id FROM t WHERE id = 10",
      "FETCH d",
      "CLOSE ALL",
      "FETCH d",
      "ROLLBACK",
      // Declared before the transaction spreads: it stays on its first shard.
      "BEGIN",
      "DECLARE e CURSOR FOR SELECT id FROM t WHERE id BETWEEN 1 AND 5 ORDER BY id",
      "FETCH 2 FROM e",
      "UPDATE t SET v = v + 1 WHERE id IN (1500, 2500)",
      "FETCH 2 FROM e",
      "CLOSE e",
      "COMMIT",
  });
}

TEST_F(CursorTest, CursorsWithHoldOutliveTransactionsAcrossShards) {
  // As Django's QuerySet.iterator() and psycopg2's withhold=True declare them, in autocommit:
  // the rows are the query's when it was declared, read while other statements run.
  same_answers({
      "DECLARE h NO SCROLL CURSOR WITH HOLD FOR SELECT id, v, note FROM t WHERE v < 3 "
      "ORDER BY id",
      "FETCH 5 FROM h",
      "SELECT count(*), sum(v) FROM t",
      "UPDATE t SET note = 'after declare' WHERE id IN (7, 1507, 2507)",
      "BEGIN",
      "UPDATE t SET v = v WHERE id IN (10, 1500, 2500)",
      "FETCH 3 FROM h",
      "ROLLBACK",
      "MOVE 500 IN h",
      "FETCH 4 FROM h",
      "FETCH ALL FROM h",
      "FETCH 1 FROM h",
      "CLOSE h",
      "FETCH 1 FROM h",
      "DECLARE g CURSOR WITH HOLD FOR SELECT v, count(*) FROM t GROUP BY v ORDER BY v",
      "DECLARE g CURSOR WITH HOLD FOR SELECT 1",
      "FETCH 3 FROM g",
      "CLOSE ALL",
      "FETCH 1 FROM g",
      "DECLARE k CURSOR WITH HOLD FOR SELECT id / (v - v) FROM t ORDER BY id",
      "FETCH 1 FROM k",
      "UPDATE t SET note = 'row ' || id WHERE id IN (7, 1507, 2507)",
  });
}

TEST_F(CursorTest, ErrorsAreThoseOfPostgreSQL) {
  same_answers({
      // Outside a block.
      "DECLARE c CURSOR FOR SELECT id FROM t ORDER BY id",
      "BEGIN",
      "DECLARE c CURSOR FOR SELECT id FROM t ORDER BY id",
      "DECLARE c CURSOR FOR SELECT id FROM t ORDER BY id",  // already exists
      "ROLLBACK",
      "BEGIN",
      "DECLARE c NO SCROLL CURSOR FOR SELECT id FROM t ORDER BY id",
      "FETCH 2 FROM c",
      "FETCH BACKWARD 1 FROM c",
      "FETCH 1 FROM c",  // the transaction is aborted
      "ROLLBACK",
      "BEGIN",
      "DECLARE c NO SCROLL CURSOR FOR SELECT id FROM t ORDER BY id",
      "FETCH 2 FROM c",
      "FETCH ABSOLUTE 1 FROM c",
      "ROLLBACK",
      "BEGIN",
      "DECLARE c CURSOR FOR SELECT id, nope FROM t ORDER BY id",
      "ROLLBACK",
      // Savepoints: a cursor declared after one is closed by ROLLBACK TO, one declared before
      // keeps its position.
      "BEGIN",
      "DECLARE a CURSOR FOR SELECT id FROM t WHERE v = 1 ORDER BY id",
      "SAVEPOINT s",
      "DECLARE b CURSOR FOR SELECT id FROM t WHERE v = 2 ORDER BY id",
      "FETCH 2 FROM a",
      "FETCH 2 FROM b",
      "ROLLBACK TO s",
      "FETCH 2 FROM a",
      "SAVEPOINT s2",
      "FETCH 2 FROM b",
      "ROLLBACK TO s2",
      "DECLARE b CURSOR FOR SELECT id FROM t WHERE v = 3 ORDER BY id",
      "FETCH 2 FROM b",
      "COMMIT",
  });
}

// The current row again (a count of 0, ABSOLUTE n at row n), before the first row, on a row,
// and after running off the end, as PostgreSQL gives it: MOVE counts it, FETCH reads it again
// (backing up a row, which a NO SCROLL cursor refuses).
TEST_F(CursorTest, TheCurrentRowAgainAsPostgreSQLGivesIt) {
  same_answers({
      "BEGIN",
      "DECLARE c CURSOR FOR SELECT id, note FROM t WHERE v = 3 ORDER BY id",
      "FETCH 0 FROM c",
      "MOVE 0 IN c",
      "FETCH RELATIVE 0 FROM c",
      "FETCH 200 FROM c",  // into the second shard (143 rows of v = 3 on the first)
      "FETCH 0 FROM c",
      "FETCH RELATIVE 0 FROM c",
      "FETCH BACKWARD 0 FROM c",
      "MOVE 0 IN c",
      "MOVE RELATIVE 0 IN c",
      "FETCH ABSOLUTE 200 FROM c",
      "MOVE ABSOLUTE 200 IN c",
      "FETCH NEXT FROM c",
      "MOVE 5 IN c",
      "FETCH FORWARD 0 FROM c",
      "FETCH ALL FROM c",  // off the end
      "FETCH 0 FROM c",
      "MOVE 0 IN c",
      "COMMIT",
      "BEGIN",
      "DECLARE n NO SCROLL CURSOR FOR SELECT id FROM t WHERE v = 3 ORDER BY id",
      "FETCH 0 FROM n",
      "MOVE 0 IN n",
      "FETCH 3 FROM n",
      "MOVE 0 IN n",
      "MOVE BACKWARD 0 IN n",
      "FETCH RELATIVE 0 FROM n",
      "ROLLBACK",
      "BEGIN",
      "DECLARE n NO SCROLL CURSOR FOR SELECT id FROM t WHERE v = 3 ORDER BY id",
      "FETCH 3 FROM n",
      "MOVE ABSOLUTE 3 IN n",
      "ROLLBACK",
      "BEGIN",
      "DECLARE n NO SCROLL CURSOR FOR SELECT id FROM t WHERE v = 3 ORDER BY id",
      "MOVE ALL IN n",
      "FETCH 0 FROM n",
      "FETCH RELATIVE 0 FROM n",
      "MOVE 0 IN n",
      "COMMIT",
  });
}

TEST_F(CursorTest, ExecuteWithARowLimitFetchesAPortalInBatches) {
  // pgjdbc's fetch size (a named portal in a transaction), and an unnamed portal outside one
  // (PostgreSQL keeps it until the Sync): each Execute answers its rows, then PortalSuspended
  // while rows are left, CommandComplete after the last.
  const std::string spread = "SELECT id, note FROM t WHERE id % 350 = $1 ORDER BY id DESC";
  const std::string grouped = "SELECT v, count(*), max(id) FROM t GROUP BY v ORDER BY v";
  auto query = [](const std::string& sql) { return RawClient::message('Q', sql + '\0'); };
  std::vector<std::string> batches = {
      parse("", spread) + bind("", "", {"3"}) + describe('P', "") + execute("", 4) +
          execute("", 3) + sync(),
      parse("", grouped) + bind("", "") + execute("", 3) + execute("", 0) + sync(),
      query("BEGIN"),
      parse("s1", spread) + bind("C_1", "s1", {"3"}) + describe('P', "C_1") + execute("C_1", 5) +
          sync(),
      execute("C_1", 5) + sync(),
      execute("C_1", 5) + sync(),
      parse("", grouped) + bind("C_2", "") + execute("C_2", 7) + execute("C_2", 7) + sync(),
      RawClient::message('C', std::string("PC_1") + '\0') + sync(),
      query("UPDATE t SET note = 'seen' WHERE id IN (353, 1403, 2453)"),
      bind("C_1", "s1", {"3"}) + execute("C_1", 2) + execute("C_1", 2) + sync(),
      query("ROLLBACK"),
  };
  same_raw_answers(batches);
}

TEST_F(CursorTest, CursorsOfJoinsAcrossShards) {
  // A cursor whose query joins tables spread over the shards: their rows are read in the
  // block's transaction (its own writes seen), and the cursor is one shard's, so SCROLL, MOVE
  // and BINARY are PostgreSQL's own.
  same_answers({
      "BEGIN",
      "DECLARE j CURSOR FOR SELECT w.id, w.label, t.note FROM w JOIN t ON t.id = w.t_id "
      "WHERE w.id % 9 = 2 ORDER BY w.id",
      "FETCH 4 FROM j",
      "MOVE 3 IN j",
      "FETCH FORWARD 5 FROM j",
      "FETCH ALL FROM j",
      "CLOSE j",
      "UPDATE t SET note = 'changed' WHERE id IN (37, 74, 111)",
      "DECLARE s SCROLL CURSOR FOR SELECT w.id, t.note FROM w LEFT JOIN t ON t.id = w.t_id "
      "WHERE w.id < 5 ORDER BY w.id",
      "FETCH LAST FROM s",
      "FETCH PRIOR FROM s",
      "FETCH ABSOLUTE 1 FROM s",
      "DECLARE g NO SCROLL CURSOR FOR SELECT t.v, count(*), max(w.label) FROM w JOIN t ON "
      "t.id = w.t_id GROUP BY t.v ORDER BY t.v",
      "FETCH 3 FROM g",
      "FETCH PRIOR FROM g",
      "ROLLBACK",
      "BEGIN",
      "DECLARE e CURSOR FOR SELECT w.id FROM w JOIN t ON t.id = w.t_id WHERE t.id / 0 = 1",
      "ROLLBACK",
      "DECLARE o CURSOR FOR SELECT w.id FROM w JOIN t ON t.id = w.t_id",
  });
  auto c = pq_connect(cluster_->proxy().dsn());
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  SqlResult hold =
      pq_exec(c.get(), "DECLARE h CURSOR WITH HOLD FOR SELECT w.id FROM w JOIN t ON t.id = w.t_id");
  EXPECT_EQ(hold.sqlstate, "0A000") << hold.message;
  ASSERT_TRUE(pq_exec(c.get(), "ROLLBACK").ok());
  EXPECT_EQ(cluster_->prepared_left(), 0);
}

TEST_F(CursorTest, CursorsWithHoldOfJoinsAcrossShards) {
  // Outside a block (psycopg2's withhold=True in autocommit): the tables' rows are read as the
  // DECLARE runs, and the cursor is one shard's, its rows the join's at that moment; SCROLL,
  // MOVE and BINARY are PostgreSQL's own, and it outlives later writes and transactions.
  same_answers({
      "DECLARE hj SCROLL CURSOR WITH HOLD FOR SELECT w.id, w.label, t.note FROM w JOIN t ON "
      "t.id = w.t_id WHERE w.id % 7 = 3 ORDER BY w.id",
      "FETCH 3 FROM hj",
      "UPDATE t SET note = 'after the declare' WHERE id IN (10, 1510, 2510)",
      "FETCH 2 FROM hj",
      "FETCH PRIOR FROM hj",
      "BEGIN",
      "FETCH ABSOLUTE 5 FROM hj",
      "COMMIT",
      "MOVE LAST IN hj",
      "FETCH BACKWARD 2 FROM hj",
      "DECLARE hj CURSOR WITH HOLD FOR SELECT 1",
      "DECLARE hg CURSOR WITH HOLD FOR SELECT t.v, count(*) FROM w JOIN t ON t.id = w.t_id "
      "GROUP BY t.v ORDER BY t.v",
      "FETCH ALL FROM hg",
      "CLOSE hj",
      "FETCH 1 FROM hj",
      "CLOSE ALL",
      "FETCH 1 FROM hg",
      "DECLARE he CURSOR WITH HOLD FOR SELECT w.id / (t.v - t.v) FROM w JOIN t ON t.id = "
      "w.t_id",
      "FETCH 1 FROM he",
  });
  EXPECT_EQ(cluster_->prepared_left(), 0);
}

// The same with binary results, as pgjdbc binds them once its statement is prepared on the
// server (per column), and BINARY cursors: what the merge passes on comes in binary from the
// shards, what it combines it converts; an ORDER BY column not selected stays pgrange's own.
TEST_F(CursorTest, BinaryPortalsAndBinaryCursorsAcrossShards) {
  const std::string spread =
      "SELECT id, note, v::numeric / 3 AS third FROM t WHERE id % 350 = $1 ORDER BY v DESC, id";
  const std::string grouped =
      "SELECT v, count(*), max(id), sum(id), min(note) FROM t GROUP BY v ORDER BY v";
  auto query = [](const std::string& sql) { return RawClient::message('Q', sql + '\0'); };
  std::vector<std::string> batches = {
      parse("", spread) + bind("", "", {"3"}, {1}) + describe('P', "") + execute("", 4) +
          execute("", 3) + sync(),
      parse("", grouped) + bind("", "", {}, {1, 1, 0, 1, 0}) + execute("", 3) + execute("", 0) +
          sync(),
      query("BEGIN"),
      parse("s1", spread) + bind("C_1", "s1", {"3"}, {1, 0, 1}) + describe('P', "C_1") +
          execute("C_1", 5) + sync(),
      execute("C_1", 5) + sync(),
      parse("", grouped) + bind("C_2", "", {}, {1}) + describe('P', "C_2") + execute("C_2", 4) +
          execute("C_2", 4) + sync(),
      query("DECLARE b BINARY CURSOR FOR " + grouped),
      query("FETCH 2 FROM b"),
      query("FETCH ALL FROM b"),
      query("DECLARE o BINARY CURSOR FOR SELECT id, note FROM t WHERE id % 100 = 7 ORDER BY v "
            "DESC, id"),
      query("FETCH 4 FROM o"),
      query("FETCH ALL FROM o"),
      query("ROLLBACK"),
  };
  same_raw_answers(batches);
  // Binary indeed: the shards' and pgrange's answers carry binary columns.
  std::vector<std::string> want =
      answers(cluster_->shard(0).port(), "postgres", "ref",
              {batches[0], query("BEGIN"), batches[6], batches[7], query("ROLLBACK")});
  ASSERT_EQ(want.size(), 5u);
  EXPECT_NE(want[0].find("T(20/1,25/1,1700/1)"), std::string::npos) << want[0];
  EXPECT_NE(want[3].find("T(20/1,20/1,20/1,1700/1,25/1)"), std::string::npos) << want[3];
}

TEST_F(CursorTest, ExecuteWithARowLimitFetchesAJoinInBatches) {
  // pgjdbc's fetch size over a join of spread tables, in and outside a transaction block, with
  // parameters in the join's conditions.
  const std::string join =
      "SELECT w.id, w.label, t.v, t.note FROM w JOIN t ON t.id = w.t_id WHERE w.id % 7 = $1 "
      "ORDER BY w.id DESC";
  const std::string counted =
      "SELECT t.v, count(*) FROM t JOIN w ON w.t_id = t.id GROUP BY t.v ORDER BY t.v";
  auto query = [](const std::string& sql) { return RawClient::message('Q', sql + '\0'); };
  std::vector<std::string> batches = {
      parse("", join) + bind("", "", {"3"}) + describe('P', "") + execute("", 4) + execute("", 3) +
          sync(),
      parse("", counted) + bind("", "") + execute("", 3) + execute("", 0) + sync(),
      query("BEGIN"),
      parse("s1", join) + bind("C_1", "s1", {"5"}) + describe('P', "C_1") + execute("C_1", 10) +
          sync(),
      execute("C_1", 10) + sync(),
      execute("C_1", 100) + sync(),
      query("UPDATE t SET note = 'seen' WHERE id IN (185, 370)"),
      bind("C_2", "s1", {"5"}) + execute("C_2", 2) + execute("C_2", 2) + sync(),
      parse("", "SELECT w.id FROM w JOIN t ON t.id = w.t_id WHERE t.id / $1 = 1") +
          bind("C_3", "", {"0"}) + execute("C_3", 2) + sync(),
      query("ROLLBACK"),
  };
  same_raw_answers(batches);
}

// A SCROLL cursor over one table's ranges on several shards: its rows are gathered into one
// shard at the DECLARE, and the cursor is that shard's own, so it reads backward and jumps as
// PostgreSQL's does (windows, which shards may not compute alone, too).
TEST_F(CursorTest, ScrollCursorsOverSeveralShardsReadBackward) {
  same_answers({
      "BEGIN",
      "DECLARE s SCROLL CURSOR FOR SELECT id, v, note FROM t WHERE v < 3 ORDER BY id",
      "FETCH 3 FROM s",
      "FETCH LAST FROM s",
      "FETCH PRIOR FROM s",
      "FETCH BACKWARD 4 FROM s",
      "FETCH ABSOLUTE 400 FROM s",
      "FETCH RELATIVE -2 FROM s",
      "MOVE FIRST IN s",
      "FETCH 0 FROM s",
      "FETCH ABSOLUTE -1 FROM s",
      "DECLARE r SCROLL CURSOR FOR SELECT v, row_number() OVER (PARTITION BY v ORDER BY id) AS n, "
      "id FROM t ORDER BY v, n",
      "FETCH 2 FROM r",
      "FETCH ABSOLUTE 2000 FROM r",
      "FETCH BACKWARD 3 FROM r",
      "DECLARE a SCROLL CURSOR FOR SELECT v, count(*) FROM t GROUP BY v ORDER BY v",
      "FETCH ALL FROM a",
      "FETCH BACKWARD ALL FROM a",
      "CLOSE ALL",
      "COMMIT",
      // Through a block's own writes, and WITH HOLD outside a block.
      "BEGIN",
      "UPDATE t SET note = 'scrolled' WHERE id IN (7, 1507, 2507)",
      "DECLARE w SCROLL CURSOR FOR SELECT id, note FROM t WHERE note = 'scrolled' ORDER BY id",
      "FETCH LAST FROM w",
      "FETCH PRIOR FROM w",
      "ROLLBACK",
      "DECLARE h SCROLL CURSOR WITH HOLD FOR SELECT id FROM t WHERE id % 500 = 0 ORDER BY id DESC",
      "FETCH 2 FROM h",
      "FETCH LAST FROM h",
      "FETCH BACKWARD 2 FROM h",
      "CLOSE h",
  });
}

TEST_F(CursorTest, CursorsOverTypesNoMergeComparesAreGathered) {
  // inet, interval and time have no order pgrange merges by: the shards' cursors are declared,
  // the merge refuses their columns before any row is read, and the table's rows are read into
  // one shard whose cursor answers, as PostgreSQL would.
  same_answers({
      "BEGIN",
      "DECLARE a CURSOR FOR SELECT ('10.0.' || v || '.' || (id % 200))::inet AS addr, id FROM t "
      "WHERE id % 13 = 0 ORDER BY addr, id",
      "FETCH 5 FROM a",
      "FETCH 300 FROM a",
      "DECLARE b NO SCROLL CURSOR FOR SELECT (v * interval '1 hour') AS d, count(*) FROM t GROUP "
      "BY d ORDER BY d",
      "FETCH ALL FROM b",
      "UPDATE t SET v = 6 WHERE id IN (13, 1313, 2613)",
      "DECLARE c CURSOR FOR SELECT DISTINCT (time '00:00' + v * interval '1 minute') AS m FROM t "
      "ORDER BY m DESC",
      "FETCH 3 FROM c",
      "CLOSE ALL",
      "ROLLBACK",
      "DECLARE h CURSOR WITH HOLD FOR SELECT max(('10.1.' || v || '.1')::inet), note FROM t "
      "WHERE id < 40 GROUP BY note ORDER BY note",
      "FETCH 4 FROM h",
      "CLOSE h",
  });
  // pgjdbc's fetch size: the portal's rows a batch per Execute.
  const std::string addr =
      "SELECT ('10.0.' || v || '.1')::inet AS a, id FROM t WHERE id % 97 = $1 ORDER BY a, id";
  auto query = [](const std::string& sql) { return RawClient::message('Q', sql + '\0'); };
  same_raw_answers({
      query("BEGIN"),
      parse("s1", addr) + bind("C_1", "s1", {"5"}) + describe('P', "C_1") + execute("C_1", 4) +
          sync(),
      execute("C_1", 4) + sync(),
      execute("C_1", 4) + sync(),
      execute("C_1", 40) + sync(),
      query("COMMIT"),
  });
}

TEST_F(CursorTest, WhatPgrangeCannotDoIsRefusedWithItsReason) {
  auto c = pq_connect(cluster_->proxy().dsn());
  for (const char* declare : {
           "DECLARE c CURSOR WITH HOLD FOR SELECT id FROM t ORDER BY id",
       }) {
    ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
    SqlResult r = pq_exec(c.get(), declare);
    EXPECT_EQ(r.sqlstate, "0A000") << declare << ": " << r.message;
    ASSERT_TRUE(pq_exec(c.get(), "ROLLBACK").ok());
  }
  // PostgreSQL may read backward a cursor declared neither SCROLL nor NO SCROLL, depending on
  // its plan; pgrange says it cannot.
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  ASSERT_TRUE(pq_exec(c.get(), "DECLARE c CURSOR FOR SELECT id FROM t ORDER BY id").ok());
  ASSERT_TRUE(pq_exec(c.get(), "FETCH 2 FROM c").ok());
  SqlResult prior = pq_exec(c.get(), "FETCH PRIOR FROM c");
  EXPECT_EQ(prior.sqlstate, "0A000") << prior.message;
  ASSERT_TRUE(pq_exec(c.get(), "ROLLBACK").ok());
  // Through the extended protocol a FETCH of such a cursor is pgrange's too (it reads every
  // shard's cursor).
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  ASSERT_TRUE(pq_exec(c.get(), "DECLARE c CURSOR FOR SELECT id FROM t ORDER BY id DESC").ok());
  std::string bound = answer_text(c.get(), ScriptStep("FETCH 3 FROM c", {}));
  EXPECT_NE(bound.find("FETCH 3\nid\n3000\n2999\n2998"), std::string::npos) << bound;
  ASSERT_TRUE(pq_exec(c.get(), "ROLLBACK").ok());
  // A cursor whose query stays on one shard runs there, SCROLL and all.
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  SqlResult scroll =
      pq_exec(c.get(), "DECLARE s SCROLL CURSOR FOR SELECT id FROM t WHERE id < 50 ORDER BY id");
  ASSERT_TRUE(scroll.ok()) << scroll.message;
  SqlResult last = pq_exec(c.get(), "FETCH LAST FROM s");
  EXPECT_EQ(last.at(0, 0), "49") << last.message;
  SqlResult before = pq_exec(c.get(), "FETCH PRIOR FROM s");
  EXPECT_EQ(before.at(0, 0), "48") << before.message;
  ASSERT_TRUE(pq_exec(c.get(), "COMMIT").ok());
  EXPECT_EQ(cluster_->prepared_left(), 0);
}

}  // namespace
}  // namespace pgrange::testing
