// UPDATEs that change a row's key through pgrange with three real PostgreSQL 15 shards: a row
// whose new key another shard owns moves there (deleted on the old shard, inserted on the new,
// in the statement's transaction). Each script runs statement by statement through pgrange and
// on one plain PostgreSQL (a database of its own on the first shard's server) holding the same
// rows; every answer (status, tag, SQLSTATE, message, rows) must be the same, then the tables are
// compared whole, every row must be on exactly the shard SHOW RANGE … FOR ROW names (read on the
// shards directly), and no prepared transaction may be left on any shard.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "tests/support/shard_cluster.hpp"

namespace pgrange::testing {
namespace {

class KeyMoveTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ShardCluster::Options o;
    o.databases = {"app", "ref"};
    cluster_ = ShardCluster::start(o);
    // Even ids 2..300 (odd ones are free to move to); a generated column and a default, which
    // the moved rows keep as the UPDATE left them.
    ASSERT_EQ(cluster_->run_setup(
                  {"CREATE TABLE t (id int8 PRIMARY KEY, v int8 NOT NULL, note text, "
                   "twice int8 GENERATED ALWAYS AS (v * 2) STORED, made date DEFAULT '2020-01-01')",
                   "INSERT INTO t (id, v, note) SELECT 2 * g, g % 7, 'row ' || g FROM "
                   "generate_series(1, 150) g",
                   "CREATE TABLE p (a int4, b text, v int4, PRIMARY KEY (a, b))",
                   "INSERT INTO p SELECT g, b, g FROM generate_series(1, 300, 7) g, "
                   "(VALUES ('x'), ('y')) AS bs(b)"},
                  ShardCluster::Target::kPgrangeAndReference),
              "");
    ASSERT_EQ(cluster_->run_setup(
                  {"ALTER TABLE t SPLIT AT VALUES (100), (200)", "ALTER TABLE t SCATTER",
                   "ALTER TABLE p SPLIT AT VALUES (100), (200)", "ALTER TABLE p SCATTER"}),
              "");
    // The rows 10, 150 and 250 live on three different shards (the scripts rely on it).
    EXPECT_EQ(cluster_->on_each_shard("SELECT count(*) FROM t WHERE id IN (10, 150, 250)"),
              (std::vector<std::string>{"1", "1", "1"}));
  }
  static void TearDownTestSuite() { cluster_.reset(); }

  /// Runs the script through pgrange and on the reference, answer by answer, then compares the
  /// tables and checks where every row is.
  static void run_script(const std::vector<ScriptStep>& script) {
    auto c = cluster_->client();
    auto r = cluster_->reference();
    for (const ScriptStep& step : script) {
      std::string got = answer_text(c.get(), step);
      std::string want = answer_text(r.get(), step);
      EXPECT_EQ(got, want) << step.sql;
    }
    compare_tables();
  }

  static void compare_tables() {
    auto c = cluster_->client();
    auto r = cluster_->reference();
    for (const char* sql : {"SELECT * FROM t ORDER BY id", "SELECT * FROM p ORDER BY a, b"}) {
      EXPECT_EQ(answer_text(c.get(), sql), answer_text(r.get(), sql)) << sql;
    }
    check_placement("t", "id");
    check_placement("p", "a, b");
    EXPECT_EQ(cluster_->prepared_left(), 0) << "prepared transactions left on the shards";
  }

  /// Every row of `table` is on exactly the shard SHOW RANGE FROM TABLE … FOR ROW names.
  static void check_placement(const std::string& table, const std::string& key) {
    auto c = cluster_->client();
    std::map<std::string, std::set<std::string>> on_shard;  // key text → shard names
    for (int i = 0; i < 3; ++i) {
      auto d = cluster_->direct(i);
      SqlResult rows = pq_exec(d.get(), "SELECT " + key + " FROM " + table);
      ASSERT_TRUE(rows.ok()) << rows.message;
      for (const auto& row : rows.rows) {
        std::string k;
        for (const auto& v : row) k += (k.empty() ? "" : ", ") + ("'" + v + "'");
        on_shard[k].insert("s" + std::to_string(i + 1));
      }
    }
    for (const auto& [k, shards] : on_shard) {
      SqlResult where = pq_exec(c.get(), "SHOW RANGE FROM TABLE " + table + " FOR ROW (" + k + ")");
      ASSERT_TRUE(where.ok()) << k << ": " << where.message;
      EXPECT_EQ(shards, std::set<std::string>{where.at(0, 3)}) << table << " row (" << k << ")";
    }
  }

  static std::unique_ptr<ShardCluster> cluster_;
};

std::unique_ptr<ShardCluster> KeyMoveTest::cluster_;

TEST_F(KeyMoveTest, ASingleRowMovesToTheShardOwningItsNewKey) {
  run_script({
      "UPDATE t SET id = 151, note = 'moved' WHERE id = 10",
      "SELECT * FROM t WHERE id IN (10, 151) ORDER BY id",
      "UPDATE t SET id = 1010, v = v + 1 WHERE id = 151",
      "SELECT id, v, twice, made FROM t WHERE id = 1010",
      // Back to a shard the row was on before.
      "UPDATE t SET id = 11 WHERE id = 1010",
  });
}

TEST_F(KeyMoveTest, ARangeUpdateMovesSomeRowsAndKeepsOthers) {
  run_script({
      "UPDATE t SET id = id + 1000 WHERE id BETWEEN 190 AND 210",
      "SELECT count(*) FROM t WHERE id > 1000",
      // From two shards to a third.
      "UPDATE t SET id = id + 2001 WHERE id BETWEEN 90 AND 110",
      // Every row keeps its key: nothing moves, every row counts.
      "UPDATE t SET id = id WHERE id BETWEEN 120 AND 160",
      "UPDATE t SET id = id + 1 WHERE id = 999999",
  });
}

TEST_F(KeyMoveTest, AKeyChangeWithinItsShardStaysThere) {
  run_script({
      "UPDATE t SET id = 51 WHERE id = 50",
      "UPDATE t SET id = id - 1, note = 'down' WHERE id BETWEEN 120 AND 130",
      "SELECT id, note FROM t WHERE id BETWEEN 115 AND 131 ORDER BY id",
  });
}

TEST_F(KeyMoveTest, ACollisionFailsWithUniqueViolationAndChangesNothing) {
  run_script({
      "UPDATE t SET id = 250 WHERE id = 20",
      // One row moves fine, the other collides on its new shard: neither stays changed.
      "UPDATE t SET id = CASE WHEN id = 40 THEN 141 ELSE 230 END WHERE id IN (40, 130)",
      "SELECT id FROM t WHERE id IN (20, 40, 130, 141, 230) ORDER BY id",
      // Two rows taking the same new key on one new shard.
      "UPDATE t SET id = 233 WHERE id IN (42, 44)",
      // A collision on the old shard (PostgreSQL's own check there).
      "UPDATE t SET id = 46 WHERE id = 48",
  });
}

TEST_F(KeyMoveTest, InABlockThenRollback) {
  run_script({
      "BEGIN",
      "UPDATE t SET id = 161 WHERE id = 60",
      "SELECT id, note FROM t WHERE id IN (60, 161) ORDER BY id",
      "UPDATE t SET id = id + 3000 WHERE id BETWEEN 62 AND 66",
      "SELECT count(*) FROM t WHERE id > 3000",
      "ROLLBACK",
      "SELECT id FROM t WHERE id IN (60, 161, 62, 3062) ORDER BY id",
  });
}

TEST_F(KeyMoveTest, InABlockThenCommit) {
  run_script({
      "BEGIN",
      "UPDATE t SET note = 'before' WHERE id = 70",
      "UPDATE t SET id = 271 WHERE id = 70",
      "UPDATE t SET v = v + 1 WHERE id = 271",
      "SELECT * FROM t WHERE id IN (70, 271)",
      ext("UPDATE t SET id = $1 WHERE id = $2", {"173", "72"}),
      ext("UPDATE t SET id = id + $1 WHERE id BETWEEN $2 AND 180 RETURNING id, note, twice",
          {"5000", "174"}),
      "COMMIT",
      "SELECT id, v, note FROM t WHERE id IN (70, 271, 72, 173) OR id > 5000 ORDER BY id",
  });
}

TEST_F(KeyMoveTest, InABlockACollisionFailsTheBlockAndASavepointUndoesAMove) {
  run_script({
      "BEGIN",
      "SAVEPOINT a",
      "UPDATE t SET id = 181 WHERE id = 80",
      "ROLLBACK TO a",
      "UPDATE t SET id = 183 WHERE id = 82",
      "UPDATE t SET id = 250 WHERE id = 84",
      "SELECT 1",
      "ROLLBACK TO a",
      "UPDATE t SET id = 285 WHERE id = 86",
      "COMMIT",
      "SELECT id FROM t WHERE id IN (80, 181, 82, 183, 84, 86, 285) ORDER BY id",
      "BEGIN",
      "UPDATE t SET id = 287 WHERE id = 88",
      "UPDATE t SET id = 252 WHERE id = 90",
      "COMMIT",
  });
}

TEST_F(KeyMoveTest, CompositeKeysMoveByTheirWholeKey) {
  run_script({
      "UPDATE p SET a = a + 100 WHERE a = 50 AND b = 'x'",
      "UPDATE p SET b = b || 'z' WHERE a = 155",
      "UPDATE p SET a = 250, b = 'new' WHERE a = 8 AND b = 'y'",
      "UPDATE p SET a = a + 100 WHERE a BETWEEN 1 AND 30",
      "UPDATE p SET a = 260 WHERE a = 43",  // 260 exists with both b: 23505
      "BEGIN",
      "UPDATE p SET a = 5, v = -1 WHERE a = 267",
      "COMMIT",
  });
}

TEST_F(KeyMoveTest, ReturningGivesTheNewRows) {
  run_script({
      "UPDATE t SET id = id + 4000 WHERE id IN (100, 140, 244) RETURNING *",
      "UPDATE t SET id = id - 1, v = 9 WHERE id > 4000 RETURNING id * 2 AS double_id, twice, "
      "upper(note)",
      "UPDATE t AS x SET id = 13 WHERE x.id = 4099 RETURNING x.id, x.note",
      "UPDATE t SET id = 99 WHERE id = 4000 RETURNING id",
  });
}

TEST_F(KeyMoveTest, WhatCannotMoveCorrectlyIsRefused) {
  auto c = cluster_->client();
  // A subquery in RETURNING would read the old shard's rows only.
  SqlResult r = pq_exec(c.get(), "UPDATE t SET id = 1201 WHERE id = 202 RETURNING (SELECT 1)");
  EXPECT_EQ(r.sqlstate, "0A000") << r.message;
  r = pq_exec(c.get(),
              "INSERT INTO t (id, v) VALUES (204, 1) ON CONFLICT (id) DO UPDATE SET id = 1205");
  EXPECT_EQ(r.sqlstate, "0A000") << r.message;
  r = pq_exec(c.get(), "EXPLAIN ANALYZE UPDATE t SET id = 1207 WHERE id = 206");
  EXPECT_EQ(r.sqlstate, "0A000") << r.message;
  compare_tables();
}

TEST_F(KeyMoveTest, TheExtendedProtocolOutsideABlock) {
  run_script({
      ext("UPDATE t SET id = $1 WHERE id = $2", {"1209", "208"}),
      ext("UPDATE t SET id = $1 WHERE id = $2", {"155", "212"}),
      ext("UPDATE t SET id = id + $1 WHERE id BETWEEN $2 AND $3 RETURNING *",
          {"3000", "114", "118"}),
      ext("UPDATE t SET id = $1 WHERE id = $2", {"250", "216"}),
  });
}

}  // namespace
}  // namespace pgrange::testing
