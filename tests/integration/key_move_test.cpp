// UPDATEs that change a row's key through pgrange with three real PostgreSQL 15 shards: a row
// whose new key another shard owns moves there (deleted on the old shard, inserted on the new,
// in the statement's transaction). Each script runs statement by statement through pgrange and
// on one plain PostgreSQL (a database of its own on the first shard's server) holding the same
// rows; every answer (status, tag, SQLSTATE, message, rows) must be the same, then the tables are
// compared whole, every row must be on exactly the shard SHOW RANGE … FOR ROW names (read on the
// shards directly), and no prepared transaction may be left on any shard.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "tests/support/pg_server.hpp"
#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {
namespace {

/// One statement of a script: a simple Query, or (`extended`) PQexecParams with `params`.
struct Step {
  Step(const char* s) : sql(s) {}  // NOLINT: scripts are lists of plain strings
  std::string sql;
  std::vector<std::string> params;
  bool extended = false;
};

Step ext(std::string sql, std::vector<std::string> params) {
  Step s(sql.c_str());
  s.params = std::move(params);
  s.extended = true;
  return s;
}

/// Everything a client sees of one statement's answer, as text. The rows of an UPDATE …
/// RETURNING are sorted: pgrange returns them shard by shard, PostgreSQL in its scan order.
std::string answer(PGconn* conn, const Step& step) {
  PGresult* res = nullptr;
  if (step.extended) {
    std::vector<const char*> values;
    for (const auto& p : step.params) values.push_back(p.c_str());
    res = PQexecParams(conn, step.sql.c_str(), static_cast<int>(values.size()), nullptr,
                       values.data(), nullptr, nullptr, 0);
  } else {
    res = PQexec(conn, step.sql.c_str());
  }
  std::ostringstream out;
  if (res == nullptr) return std::string("no result: ") + PQerrorMessage(conn);
  ExecStatusType st = PQresultStatus(res);
  out << PQresStatus(st) << " " << PQcmdStatus(res);
  if (const char* s = PQresultErrorField(res, PG_DIAG_SQLSTATE)) out << " " << s;
  if (const char* m = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY)) out << " " << m;
  if (st == PGRES_TUPLES_OK) {
    out << "\n";
    for (int c = 0; c < PQnfields(res); ++c) out << (c ? "|" : "") << PQfname(res, c);
    std::vector<std::string> rows;
    for (int r = 0; r < PQntuples(res); ++r) {
      std::string row;
      for (int c = 0; c < PQnfields(res); ++c) {
        row += (c ? "|" : "");
        row += PQgetisnull(res, r, c) ? "<null>" : PQgetvalue(res, r, c);
      }
      rows.push_back(std::move(row));
    }
    if (step.sql.find("RETURNING") != std::string::npos) std::sort(rows.begin(), rows.end());
    for (const auto& row : rows) out << "\n" << row;
  }
  PQclear(res);
  return out.str();
}

class KeyMoveTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    PgServer::Options o;
    o.databases = {"app", "ref"};
    for (auto*& s : shards_) s = PgServer::start(o).release();
    std::vector<std::string> dsns;
    for (auto* s : shards_) dsns.push_back(s->dsn("app") + " user=postgres");
    proxy_ = ProxyProcess::start(ProxyConfig::with_shards(dsns, 8)).release();
    auto c = pq_connect(proxy_->dsn());
    ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
    auto r = reference();
    // Even ids 2..300 (odd ones are free to move to); a generated column and a default, which
    // the moved rows keep as the UPDATE left them.
    std::vector<std::string> setup = {
        "CREATE TABLE t (id int8 PRIMARY KEY, v int8 NOT NULL, note text, "
        "twice int8 GENERATED ALWAYS AS (v * 2) STORED, made date DEFAULT '2020-01-01')",
        "INSERT INTO t (id, v, note) SELECT 2 * g, g % 7, 'row ' || g FROM "
        "generate_series(1, 150) g",
        "CREATE TABLE p (a int4, b text, v int4, PRIMARY KEY (a, b))",
        "INSERT INTO p SELECT g, b, g FROM generate_series(1, 300, 7) g, "
        "(VALUES ('x'), ('y')) AS bs(b)"};
    for (const std::string& sql : setup) {
      SqlResult a = pq_exec(c.get(), sql);
      ASSERT_TRUE(a.ok()) << sql << ": " << a.message;
      SqlResult b = pq_exec(r.get(), sql);
      ASSERT_TRUE(b.ok()) << sql << ": " << b.message;
    }
    for (const char* sql :
         {"ALTER TABLE t SPLIT AT VALUES (100), (200)", "ALTER TABLE t SCATTER",
          "ALTER TABLE p SPLIT AT VALUES (100), (200)", "ALTER TABLE p SCATTER"}) {
      SqlResult a = pq_exec(c.get(), sql);
      ASSERT_TRUE(a.ok()) << sql << ": " << a.message;
    }
    // The rows 10, 150 and 250 live on three different shards (the scripts rely on it).
    for (int i = 0; i < 3; ++i) {
      auto d = direct(i);
      EXPECT_EQ(pq_exec(d.get(), "SELECT count(*) FROM t WHERE id IN (10, 150, 250)").at(), "1")
          << i;
    }
  }
  static void TearDownTestSuite() {
    delete proxy_;
    for (auto*& s : shards_) {
      delete s;
      s = nullptr;
    }
  }

  static PgConnPtr direct(int shard) {
    return pq_connect(shards_[shard]->dsn("app") + " user=postgres");
  }
  static PgConnPtr reference() { return pq_connect(shards_[0]->dsn("ref") + " user=postgres"); }

  /// Runs the script through pgrange and on the reference, answer by answer, then compares the
  /// tables and checks where every row is.
  static void run_script(const std::vector<Step>& script) {
    auto c = pq_connect(proxy_->dsn());
    auto r = reference();
    for (const Step& step : script) {
      std::string got = answer(c.get(), step);
      std::string want = answer(r.get(), step);
      EXPECT_EQ(got, want) << step.sql;
    }
    compare_tables();
  }

  static void compare_tables() {
    auto c = pq_connect(proxy_->dsn());
    auto r = reference();
    for (const char* sql : {"SELECT * FROM t ORDER BY id", "SELECT * FROM p ORDER BY a, b"}) {
      EXPECT_EQ(answer(c.get(), sql), answer(r.get(), sql)) << sql;
    }
    check_placement("t", "id");
    check_placement("p", "a, b");
    int64_t prepared = 0;
    for (int i = 0; i < 3; ++i) {
      auto d = direct(i);
      prepared += std::stoll(pq_exec(d.get(), "SELECT count(*) FROM pg_prepared_xacts").at());
    }
    EXPECT_EQ(prepared, 0) << "prepared transactions left on the shards";
  }

  /// Every row of `table` is on exactly the shard SHOW RANGE FROM TABLE … FOR ROW names.
  static void check_placement(const std::string& table, const std::string& key) {
    auto c = pq_connect(proxy_->dsn());
    std::map<std::string, std::set<std::string>> on_shard;  // key text → shard names
    for (int i = 0; i < 3; ++i) {
      auto d = direct(i);
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

  static PgServer* shards_[3];
  static ProxyProcess* proxy_;
};

PgServer* KeyMoveTest::shards_[3] = {};
ProxyProcess* KeyMoveTest::proxy_ = nullptr;

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
  auto c = pq_connect(proxy_->dsn());
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
