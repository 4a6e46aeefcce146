// Writes across shards through pgrange with three real PostgreSQL 15 shards: a multi-row INSERT,
// an UPDATE or a DELETE touching several shards commits on all of them or on none (two-phase
// commit), concurrent ones neither deadlock nor lose updates, and a pgrange killed between
// PREPARE TRANSACTION and COMMIT PREPARED leaves nothing prepared once recovery has run: what it
// had decided to commit is committed, the rest rolled back. Every check reads the shards
// directly.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <random>
#include <thread>

#include "tests/support/raw_protocol.hpp"
#include "tests/support/shard_cluster.hpp"

namespace pgrange::testing {
namespace {

class DistributedWriteTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cluster_ = ShardCluster::start(ShardCluster::Options{});
    ASSERT_EQ(cluster_->run_setup(
                  {"CREATE TABLE acc (id int8 PRIMARY KEY, bal int8 NOT NULL, note text)",
                   "INSERT INTO acc SELECT g, 0, NULL FROM generate_series(1, 300) g",
                   "ALTER TABLE acc SPLIT AT VALUES (100), (200)", "ALTER TABLE acc SCATTER"}),
              "");
  }
  static void TearDownTestSuite() { cluster_.reset(); }

  /// Decisions to commit still recorded in the metadata store (on the first shard's server).
  static int64_t decisions_left() {
    auto d = pq_connect(cluster_->shard(0).dsn("pgrange_meta"));
    SqlResult r = pq_exec(d.get(), "SELECT count(*) FROM pgrange_decisions");
    EXPECT_TRUE(r.ok()) << r.message;
    return r.ok() ? std::stoll(r.at()) : -1;
  }
  /// The shard (0..2) holding the row, or -1.
  static int holder(int64_t id) {
    int found = -1;
    for (int i = 0; i < 3; ++i) {
      auto d = cluster_->direct(i);
      if (!pq_exec(d.get(), "SELECT 1 FROM acc WHERE id = " + std::to_string(id)).rows.empty()) {
        EXPECT_EQ(found, -1) << "row " << id << " on two shards";
        found = i;
      }
    }
    return found;
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

  static std::unique_ptr<ShardCluster> cluster_;
};

std::unique_ptr<ShardCluster> DistributedWriteTest::cluster_;

TEST_F(DistributedWriteTest, AMultiRowInsertLandsEachRowOnItsShardAtomically) {
  auto c = cluster_->client();
  SqlResult r = pq_exec(c.get(),
                        "INSERT INTO acc VALUES (1001, 5, 'a'), (-7, 5, 'b'), (150, 0, 'dup') "
                        "ON CONFLICT (id) DO NOTHING RETURNING id");
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.rows.size(), 2u);  // 150 exists: nothing for it
  EXPECT_NE(holder(1001), holder(-7));
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM acc WHERE id IN (1001, -7)"), 2);
  // One row that fails on its shard: no row lands anywhere.
  r = pq_exec(c.get(), "INSERT INTO acc VALUES (1002, 1, 'x'), (-8, 1, 'y'), (250, 1, 'dup')");
  EXPECT_EQ(r.sqlstate, "23505") << r.message;
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM acc WHERE id IN (1002, -8)"), 0);
  EXPECT_EQ(cluster_->prepared_left(), 0);
  // Forgotten at pgrange's next housekeeping (every 2 s).
  EXPECT_TRUE(eventually([] { return decisions_left() == 0; }, std::chrono::seconds(5)));
  // The session goes on.
  EXPECT_EQ(pq_exec(c.get(), "SELECT count(*) FROM acc WHERE id > 1000").at(), "1");
}

TEST_F(DistributedWriteTest, UpdatesAndDeletesByRangeApplyOnEveryShardTheyTouch) {
  auto c = cluster_->client();
  SqlResult r = pq_exec(c.get(), "UPDATE acc SET note = 'between' WHERE id BETWEEN 90 AND 210");
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.status, PGRES_COMMAND_OK);
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM acc WHERE note = 'between'"), 121);
  r = pq_exec(c.get(), "DELETE FROM acc WHERE id < 0 OR id > 1000 RETURNING id");
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM acc WHERE id < 0 OR id > 1000"), 0);
  // An UPDATE failing on one shard changes nothing on the others.
  r = pq_exec(c.get(), "UPDATE acc SET bal = 1 / (id - 250) WHERE id BETWEEN 1 AND 300");
  EXPECT_EQ(r.sqlstate, "22012") << r.message;
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM acc WHERE bal <> 0"), 0);
  EXPECT_EQ(cluster_->prepared_left(), 0);
}

TEST_F(DistributedWriteTest, ExtendedProtocolWritesAcrossShardsCommitAtTheirSync) {
  auto c = cluster_->client();
  auto exec_params = [&](const std::string& sql, std::vector<std::string> values) {
    std::vector<const char*> p;
    for (const auto& v : values) p.push_back(v.c_str());
    return take_result(PQexecParams(c.get(), sql.c_str(), static_cast<int>(p.size()), nullptr,
                                    p.data(), nullptr, nullptr, 0),
                       c.get());
  };
  // Unnamed statements (Parse, Bind, Execute, Sync each time), outside a transaction block.
  SqlResult r = exec_params("UPDATE acc SET note = $1 WHERE id BETWEEN $2 AND $3 RETURNING id",
                            {"ext", "95", "205"});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.rows.size(), 111u);
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM acc WHERE note = 'ext'"), 111);
  // One failing shard: nothing changes anywhere.
  r = exec_params("UPDATE acc SET bal = 1 / (id - $1) WHERE id BETWEEN 1 AND 300", {"250"});
  EXPECT_EQ(r.sqlstate, "22012") << r.message;
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM acc WHERE bal <> 0"), 0);
  r = exec_params("UPDATE acc SET note = NULL WHERE note = $1 AND id > $2", {"ext", "200"});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM acc WHERE note = 'ext'"), 106);
  // Named prepared statements, as drivers send them.
  SqlResult prepared = take_result(
      PQprepare(c.get(), "mark", "UPDATE acc SET note = $1 WHERE id IN ($2, $3)", 0, nullptr),
      c.get());
  ASSERT_TRUE(prepared.ok()) << prepared.message;
  const char* values[] = {"named", "5", "295"};
  r = take_result(PQexecPrepared(c.get(), "mark", 3, values, nullptr, nullptr, 0), c.get());
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM acc WHERE note = 'named'"), 2);
  // The session goes on in autocommit.
  EXPECT_EQ(pq_exec(c.get(), "SELECT count(*) FROM acc WHERE note = 'named'").at(), "2");
  ASSERT_TRUE(pq_exec(c.get(), "UPDATE acc SET note = NULL WHERE note IS NOT NULL").ok());
  // A multi-row INSERT with parameters whose rows go to several shards (node-postgres' and
  // TypeORM's bulk inserts, pgjdbc's reWriteBatchedInserts): each shard gets its rows, with
  // every parameter's type as the whole statement has it, in one atomic commit; RETURNING in
  // VALUES order. Untyped parameters, as node-postgres sends them.
  r = exec_params(
      "INSERT INTO acc VALUES ($1, $2, $3), ($4, $2 + 1, $5), ($6, $2 + 2, NULL) "
      "RETURNING id, bal, note",
      {"2001", "10", "a", "-2001", "b", "2002"});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.rows, (std::vector<std::vector<std::string>>{
                        {"2001", "10", "a"}, {"-2001", "11", "b"}, {"2002", "12", "<null>"}}));
  EXPECT_NE(holder(2001), holder(-2001));
  // One row that fails on its shard: none lands.
  r = exec_params("INSERT INTO acc VALUES ($1, 0, NULL), ($2, 0, NULL)", {"-2002", "2001"});
  EXPECT_EQ(r.sqlstate, "23505") << r.message;
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM acc WHERE id = -2002"), 0);
  // Inside a transaction block, named and prepared (as a driver's batch), then rolled back.
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  prepared =
      take_result(PQprepare(c.get(), "rows2", "INSERT INTO acc (id, bal) VALUES ($1, $3), ($2, $3)",
                            0, nullptr),
                  c.get());
  ASSERT_TRUE(prepared.ok()) << prepared.message;
  for (int k = 0; k < 3; ++k) {
    std::string a = std::to_string(3000 + k), b = std::to_string(-3000 - k);
    const char* v[] = {a.c_str(), b.c_str(), "7"};
    r = take_result(PQexecPrepared(c.get(), "rows2", 3, v, nullptr, nullptr, 0), c.get());
    ASSERT_TRUE(r.ok()) << r.message;
  }
  EXPECT_EQ(pq_exec(c.get(), "SELECT count(*), sum(bal) FROM acc WHERE id >= 3000 OR id <= -3000")
                .at(0, 1),
            "42");
  ASSERT_TRUE(pq_exec(c.get(), "ROLLBACK").ok());
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM acc WHERE id >= 3000 OR id <= -3000"), 0);
  ASSERT_TRUE(pq_exec(c.get(), "DELETE FROM acc WHERE id IN (2001, -2001, 2002)").ok());
  EXPECT_EQ(cluster_->prepared_left(), 0);
}

TEST_F(DistributedWriteTest, ConcurrentTransfersAcrossShardsNeitherDeadlockNorLoseUpdates) {
  constexpr int kClients = 4, kEach = 60;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kClients; ++t) {
    threads.emplace_back([&, t] {
      auto c = cluster_->client();
      std::mt19937 rng(static_cast<unsigned>(t + 1));
      for (int i = 0; i < kEach; ++i) {
        // A debit on one shard and a credit on another, in either order of the ids.
        int a = 1 + static_cast<int>(rng() % 99), b = 201 + static_cast<int>(rng() % 99);
        if (rng() % 2 == 0) std::swap(a, b);
        SqlResult r =
            pq_exec(c.get(), "UPDATE acc SET bal = bal + CASE WHEN id = " + std::to_string(a) +
                                 " THEN -10 ELSE 10 END WHERE id IN (" + std::to_string(a) + ", " +
                                 std::to_string(b) + ")");
        if (!r.ok() || r.rows.size() != 0) {
          ADD_FAILURE() << r.sqlstate << " " << r.message;
          ++failures;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(cluster_->sum_direct("SELECT sum(bal) FROM acc"), 0);
  EXPECT_EQ(cluster_->sum_direct("SELECT sum(abs(bal)) FROM acc") > 0, true);
  EXPECT_EQ(cluster_->prepared_left(), 0);
  // Forgotten at pgrange's next housekeeping (every 2 s).
  EXPECT_TRUE(eventually([] { return decisions_left() == 0; }, std::chrono::seconds(5)));
}

TEST_F(DistributedWriteTest, TransactionBlocksAcrossShardsCommitAtomicallyUnderConcurrency) {
  // Transfers in explicit transactions, the two updates in either order: a deadlock across
  // shards can happen and must end as 40P01 (then retried), never hang or lose money.
  constexpr int kClients = 4, kEach = 40;
  std::atomic<int> failures{0}, retries{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kClients; ++t) {
    threads.emplace_back([&, t] {
      auto c = cluster_->client();
      std::mt19937 rng(static_cast<unsigned>(100 + t));
      for (int i = 0; i < kEach; ++i) {
        int a = 1 + static_cast<int>(rng() % 20), b = 281 + static_cast<int>(rng() % 20);
        if (rng() % 2 == 0) std::swap(a, b);
        for (int attempt = 0;; ++attempt) {
          std::vector<std::string> steps = {
              "BEGIN", "UPDATE acc SET bal = bal - 10 WHERE id = " + std::to_string(a),
              "UPDATE acc SET bal = bal + 10 WHERE id = " + std::to_string(b), "COMMIT"};
          std::string failed;
          for (const std::string& sql : steps) {
            SqlResult r = pq_exec(c.get(), sql);
            if (!r.ok()) {
              failed = r.sqlstate + " " + r.message;
              break;
            }
          }
          if (failed.empty()) break;
          pq_exec(c.get(), "ROLLBACK");
          if ((failed.rfind("40P01", 0) == 0 || failed.rfind("40001", 0) == 0) && attempt < 20) {
            ++retries;
            continue;
          }
          ADD_FAILURE() << failed;
          ++failures;
          break;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  std::cout << "[distributed] " << kClients * kEach << " transfers, " << retries.load()
            << " retried after a deadlock across shards\n";
  EXPECT_EQ(cluster_->sum_direct("SELECT sum(bal) FROM acc"), 0);
  auto c = cluster_->client();
  EXPECT_EQ(pq_exec(c.get(), "SELECT sum(bal) FROM acc").at(), "0");
  EXPECT_TRUE(eventually([] { return cluster_->prepared_left() == 0; }, std::chrono::seconds(5)));
}

/// Every result a query string gives, in order: status, SQLSTATE, tag and rows.
std::vector<std::string> all_results(PGconn* c, const std::string& sql) {
  std::vector<std::string> out;
  if (PQsendQuery(c, sql.c_str()) != 1) return {"send failed"};
  while (PGresult* res = PQgetResult(c)) {
    SqlResult r = take_result(res, c);
    std::string line = std::string(PQresStatus(r.status)) + " " + r.sqlstate + " " + r.tag;
    for (const auto& row : r.rows) line += " (" + row.at(0) + ")";
    out.push_back(line);
  }
  out.push_back(std::string("status ") + std::to_string(PQtransactionStatus(c)));
  return out;
}

TEST_F(DistributedWriteTest, AWriteWhoseCommitFailsAnswersAsPostgreSQLDoes) {
  // A deferred constraint trigger refuses a row when the transaction commits (at PREPARE
  // TRANSACTION on a shard). PostgreSQL commits a query string's implicit transaction before it
  // reports the last statement done: the rows it returned came, its CommandComplete does not,
  // the error does. One plain PostgreSQL database holding the same table and trigger says what
  // the answers must be.
  const std::vector<std::string> trigger = {
      "CREATE FUNCTION refuse_late() RETURNS trigger LANGUAGE plpgsql AS "
      "$$BEGIN RAISE EXCEPTION 'refused at commit' USING ERRCODE = '23514'; END$$",
      "CREATE CONSTRAINT TRIGGER late AFTER INSERT ON acc DEFERRABLE INITIALLY DEFERRED "
      "FOR EACH ROW WHEN (NEW.note = 'late') EXECUTE FUNCTION refuse_late()"};
  for (int i = 0; i < 3; ++i) {
    auto d = cluster_->direct(i);
    for (const auto& sql : trigger) ASSERT_TRUE(pq_exec(d.get(), sql).ok()) << sql;
  }
  {
    auto admin = cluster_->direct(0);
    ASSERT_TRUE(pq_exec(admin.get(), "CREATE DATABASE commit_ref").ok());
  }
  auto ref = pq_connect(cluster_->shard(0).dsn("commit_ref"));
  ASSERT_TRUE(
      pq_exec(ref.get(), "CREATE TABLE acc (id int8 PRIMARY KEY, bal int8 NOT NULL, note text)")
          .ok());
  for (const auto& sql : trigger) ASSERT_TRUE(pq_exec(ref.get(), sql).ok()) << sql;

  auto c = cluster_->client();
  const std::vector<std::string> statements = {
      // Refused on both shards, on one, then not at all.
      "INSERT INTO acc VALUES (6001, 0, 'late'), (-6001, 0, 'late') RETURNING id",
      "INSERT INTO acc VALUES (6002, 0, 'x'), (-6002, 0, 'late') RETURNING id",
      "INSERT INTO acc VALUES (6003, 0, 'x'), (-6003, 0, 'x') RETURNING id",
      // Several statements: the first's rows and tag, the last's rows, the error.
      "INSERT INTO acc VALUES (6004, 0, 'x'), (-6004, 0, 'x') RETURNING id; "
      "INSERT INTO acc VALUES (6005, 0, 'late'), (-6005, 0, 'x') RETURNING id",
      // Without RETURNING, and an UPDATE over several shards refused by nothing.
      "INSERT INTO acc VALUES (6006, 0, 'late'), (-6006, 0, 'x')",
      "UPDATE acc SET bal = bal + 1 WHERE id IN (6003, -6003)",
  };
  // The whole table after each statement: the rows these statements write as on the plain
  // database, every other row as it was.
  const std::string written = "SELECT id, bal, note FROM acc WHERE abs(id) > 6000 ORDER BY id";
  const std::string others = "SELECT id, bal, note FROM acc WHERE abs(id) <= 6000 ORDER BY id";
  SqlResult before = pq_exec(c.get(), others);
  ASSERT_TRUE(before.ok()) << before.message;
  for (const auto& sql : statements) {
    EXPECT_EQ(all_results(c.get(), sql), all_results(ref.get(), sql)) << sql;
    SqlResult through = pq_exec(c.get(), written);
    ASSERT_TRUE(through.ok()) << through.message;
    EXPECT_EQ(through.rows, pq_exec(ref.get(), written).rows) << sql;
    EXPECT_EQ(pq_exec(c.get(), others).rows, before.rows) << sql;
  }
  EXPECT_EQ(pq_exec(c.get(), written).rows.size(), 2u);  // 6003 and -6003
  EXPECT_EQ(cluster_->prepared_left(), 0);

  ASSERT_TRUE(pq_exec(c.get(), "DELETE FROM acc WHERE abs(id) > 6000").ok());
  for (int i = 0; i < 3; ++i) {
    auto d = cluster_->direct(i);
    EXPECT_TRUE(pq_exec(d.get(), "DROP TRIGGER late ON acc").ok());
    EXPECT_TRUE(pq_exec(d.get(), "DROP FUNCTION refuse_late()").ok());
  }
}

TEST_F(DistributedWriteTest, ASerializationFailureOnAShardReachesTheClientAs40001) {
  // A REPEATABLE READ block over two shards (the client's BEGIN opens it on each) whose row was
  // changed by another client after its snapshot: PostgreSQL's 40001, so the client retries.
  auto c = cluster_->client();
  auto other = cluster_->client();
  for (std::string sql :
       {"BEGIN ISOLATION LEVEL REPEATABLE READ", "SELECT bal FROM acc WHERE id = 7",
        "SELECT bal FROM acc WHERE id = 277"}) {
    SqlResult r = pq_exec(c.get(), sql);
    ASSERT_TRUE(r.ok()) << sql << ": " << r.message;
  }
  EXPECT_EQ(pq_exec(c.get(), "SHOW transaction_isolation").at(), "repeatable read");
  ASSERT_TRUE(pq_exec(other.get(), "UPDATE acc SET note = 'first' WHERE id = 277").ok());
  SqlResult r = pq_exec(c.get(), "UPDATE acc SET note = 'second' WHERE id = 277");
  EXPECT_EQ(r.sqlstate, "40001") << r.message;
  EXPECT_TRUE(pq_exec(c.get(), "COMMIT").ok());  // of a failed block: it rolls back
  EXPECT_EQ(pq_exec(c.get(), "SELECT note FROM acc WHERE id = 277").at(), "first");
  ASSERT_TRUE(pq_exec(c.get(), "UPDATE acc SET note = NULL WHERE id = 277").ok());
  EXPECT_EQ(cluster_->prepared_left(), 0);
}

TEST_F(DistributedWriteTest, ADeadlockAcrossShardsEndsAs40P01) {
  // Each transaction holds a row on one shard and waits for the other's row on another shard:
  // no shard sees the cycle. The waits end as deadlocks (40P01) instead of hanging.
  int64_t before = cluster_->sum_direct("SELECT sum(bal) FROM acc WHERE id IN (50, 250)");
  auto c1 = cluster_->client();
  auto c2 = cluster_->client();
  ASSERT_TRUE(pq_exec(c1.get(), "BEGIN").ok());
  ASSERT_TRUE(pq_exec(c1.get(), "UPDATE acc SET bal = bal + 1 WHERE id = 50").ok());
  ASSERT_TRUE(pq_exec(c2.get(), "BEGIN").ok());
  ASSERT_TRUE(pq_exec(c2.get(), "UPDATE acc SET bal = bal + 1 WHERE id = 250").ok());
  SqlResult r1;
  auto start = std::chrono::steady_clock::now();
  std::thread t([&] {
    r1 = pq_exec(c1.get(), "UPDATE acc SET bal = bal - 1 WHERE id = 250");
    if (!r1.ok()) pq_exec(c1.get(), "ROLLBACK");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  SqlResult r2 = pq_exec(c2.get(), "UPDATE acc SET bal = bal - 1 WHERE id = 50");
  t.join();
  auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_LT(waited, std::chrono::seconds(15));
  EXPECT_TRUE(r1.sqlstate == "40P01" || r2.sqlstate == "40P01")
      << "c1: " << r1.sqlstate << " " << r1.message << "; c2: " << r2.sqlstate << " " << r2.message;
  if (r2.ok()) {
    ASSERT_TRUE(pq_exec(c2.get(), "COMMIT").ok());
  } else {
    pq_exec(c2.get(), "ROLLBACK");
  }
  if (r1.ok()) {
    ASSERT_TRUE(pq_exec(c1.get(), "COMMIT").ok());
  }
  // Whatever committed committed whole: each transaction moves nothing in total.
  EXPECT_EQ(cluster_->sum_direct("SELECT sum(bal) FROM acc WHERE id IN (50, 250)"), before);
  EXPECT_TRUE(eventually([] { return cluster_->prepared_left() == 0; }, std::chrono::seconds(5)));
}

// The same cycle, each wait on the shard where the transaction began: the part it ran on
// before it spread over two shards, whose lock timeout goes with its next statement rather
// than in a round trip of its own. The clients' statement_timeout bounds the test if it did not.
TEST_F(DistributedWriteTest, ADeadlockOnTheShardsWhereTheBlocksBeganEndsAs40P01) {
  int64_t before = cluster_->sum_direct("SELECT sum(bal) FROM acc WHERE id IN (50, 51, 250, 251)");
  auto c1 = cluster_->client();
  auto c2 = cluster_->client();
  for (PGconn* c : {c1.get(), c2.get()}) {
    ASSERT_TRUE(pq_exec(c, "SET statement_timeout = '20s'").ok());
    ASSERT_TRUE(pq_exec(c, "BEGIN").ok());
  }
  // c1 begins on 50's shard and spreads to 250's; c2 begins on 251's and spreads to 51's.
  ASSERT_TRUE(pq_exec(c1.get(), "UPDATE acc SET bal = bal + 1 WHERE id = 50").ok());
  ASSERT_TRUE(pq_exec(c1.get(), "UPDATE acc SET bal = bal + 1 WHERE id = 250").ok());
  ASSERT_TRUE(pq_exec(c2.get(), "UPDATE acc SET bal = bal + 1 WHERE id = 251").ok());
  ASSERT_TRUE(pq_exec(c2.get(), "UPDATE acc SET bal = bal + 1 WHERE id = 51").ok());
  SqlResult r1;
  std::thread t([&] {
    // On c1's first shard, behind c2's row 51.
    r1 = pq_exec(c1.get(), "UPDATE acc SET bal = bal - 1 WHERE id = 51");
    if (!r1.ok()) pq_exec(c1.get(), "ROLLBACK");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // On c2's first shard, behind c1's row 250.
  SqlResult r2 = pq_exec(c2.get(), "UPDATE acc SET bal = bal - 1 WHERE id = 250");
  if (!r2.ok()) pq_exec(c2.get(), "ROLLBACK");
  t.join();
  EXPECT_TRUE(r1.sqlstate == "40P01" || r2.sqlstate == "40P01")
      << "c1: " << r1.sqlstate << " " << r1.message << "; c2: " << r2.sqlstate << " " << r2.message;
  for (auto [c, r] : {std::pair{c1.get(), &r1}, std::pair{c2.get(), &r2}}) {
    if (r->ok()) {
      ASSERT_TRUE(pq_exec(c, "COMMIT").ok());
    }
  }
  // What went on committed its three updates (+1 +1 -1 on the four rows), the other nothing.
  const int64_t committed = (r1.ok() ? 1 : 0) + (r2.ok() ? 1 : 0);
  EXPECT_LE(committed, 1);
  EXPECT_EQ(cluster_->sum_direct("SELECT sum(bal) FROM acc WHERE id IN (50, 51, 250, 251)"),
            before + committed);
  EXPECT_TRUE(eventually([] { return cluster_->prepared_left() == 0; }, std::chrono::seconds(5)));
}

TEST_F(DistributedWriteTest, RecoveryFinishesWhatAKilledPgrangeLeftPrepared) {
  // Killed after PREPARE on every shard, before the decision: rolled back.
  {
    auto dying = cluster_->start_proxy("after_prepare");
    auto c = pq_connect(dying->dsn());
    SqlResult r = pq_exec(c.get(), "INSERT INTO acc VALUES (5001, 0, 'p'), (-5001, 0, 'p')");
    EXPECT_FALSE(r.ok());
    EXPECT_TRUE(eventually([&] { return !dying->running(); }, std::chrono::seconds(10)));
  }
  EXPECT_EQ(cluster_->prepared_left(), 2);  // held by nobody: the shards keep them
  // Killed after the decision to commit, before COMMIT PREPARED: committed.
  {
    auto dying = cluster_->start_proxy("after_decision");
    auto c = pq_connect(dying->dsn());
    SqlResult r = pq_exec(c.get(), "INSERT INTO acc VALUES (5002, 0, 'd'), (-5002, 0, 'd')");
    EXPECT_FALSE(r.ok());
    EXPECT_TRUE(eventually([&] { return !dying->running(); }, std::chrono::seconds(10)));
  }
  // The same for a transaction block over two shards, killed after its decision.
  {
    auto dying = cluster_->start_proxy("after_decision");
    auto c = pq_connect(dying->dsn());
    for (std::string sql : {"BEGIN", "INSERT INTO acc VALUES (5003, 0, 'b')",
                            "INSERT INTO acc VALUES (-5003, 0, 'b')"}) {
      SqlResult r = pq_exec(c.get(), sql);
      ASSERT_TRUE(r.ok()) << sql << ": " << r.message;
    }
    EXPECT_FALSE(pq_exec(c.get(), "COMMIT").ok());
    EXPECT_TRUE(eventually([&] { return !dying->running(); }, std::chrono::seconds(10)));
  }
  EXPECT_EQ(cluster_->prepared_left(), 6);
  EXPECT_TRUE(eventually([] { return decisions_left() == 2; }, std::chrono::seconds(5)));
  // The running pgrange finishes both once the dead instance has been silent long enough.
  EXPECT_TRUE(eventually([] { return cluster_->prepared_left() == 0; }, std::chrono::seconds(30)))
      << cluster_->proxy().log_tail();
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM acc WHERE id IN (5001, -5001)"), 0);
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM acc WHERE id IN (5002, -5002)"), 2);
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM acc WHERE id IN (5003, -5003)"), 2);
  EXPECT_TRUE(eventually([] { return decisions_left() == 0; }, std::chrono::seconds(10)));
  auto c = cluster_->client();
  EXPECT_EQ(pq_exec(c.get(), "SELECT count(*) FROM acc WHERE id IN (5002, -5002)").at(), "2");
}

TEST_F(DistributedWriteTest, ABugInASessionEndsOnlyThatSessionAndLeavesNothingOpen) {
  // An exception pgrange did not foresee (PGRANGE_TEST_FAULT=raise_in_session throws one where a
  // message naming pgrange_test_raise is read) ends that session as PostgreSQL ends a backend
  // after an internal error: a FATAL XX000, the connection closed, what it had open on the
  // shards rolled back. Its client never waits, and every other client goes on.
  auto faulty = cluster_->start_proxy("raise_in_session");
  auto other = pq_connect(faulty->dsn());
  ASSERT_TRUE(pq_exec(other.get(), "BEGIN").ok());
  ASSERT_TRUE(pq_exec(other.get(), "UPDATE acc SET note = 'other' WHERE id = 2").ok());
  auto login = [&](RawClient& raw) {
    ASSERT_TRUE(raw.send_startup({{"user", "trustuser"}, {"database", "app"}}));
    ASSERT_EQ(raw.read_until('Z').type, 'Z');
  };
  auto expect_fatal = [&](RawClient& raw, const std::string& what) {
    RawMessage e = raw.read_until('E');
    ASSERT_EQ(e.type, 'E') << what << "\n" << faulty->log_tail();
    EXPECT_EQ(e.fields()['S'], "FATAL") << what;
    EXPECT_EQ(e.fields()['C'], "XX000") << what;
    EXPECT_NE(e.fields()['M'].find("internal error in pgrange"), std::string::npos)
        << what << ": " << e.fields()['M'];
    EXPECT_TRUE(raw.wait_closed()) << what << ": the connection stayed open";
  };
  // More times than the pool has connections (8 per shard): what a failed session held is
  // given back, or the later ones would wait for a connection and time out.
  for (int round = 0; round < 10; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    RawClient raw(faulty->port());
    login(raw);
    // A transaction block holding a connection on each of three shards.
    for (std::string sql : {"BEGIN", "UPDATE acc SET note = 'lost' WHERE id IN (50, 150, 250)"}) {
      raw.send(RawClient::message('Q', sql + '\0'));
      RawMessage m = raw.read();
      while (m.type != 0 && m.type != 'Z') {
        EXPECT_NE(m.type, 'E') << sql << ": " << m.fields()['M'];
        m = raw.read();
      }
      ASSERT_EQ(m.type, 'Z') << sql;
      ASSERT_EQ(m.body, "T") << sql;
    }
    if (round % 2 == 0) {
      raw.send(RawClient::message('Q', std::string("SELECT 'pgrange_test_raise'") + '\0'));
    } else {
      raw.send(parse("", "SELECT 'pgrange_test_raise'") + bind("", "") + execute("") + sync());
    }
    expect_fatal(raw, round % 2 == 0 ? "simple protocol" : "extended protocol");
  }
  {
    // Outside a transaction, with nothing held.
    RawClient raw(faulty->port());
    login(raw);
    raw.send(RawClient::message('Q', std::string("SELECT 1 AS pgrange_test_raise") + '\0'));
    expect_fatal(raw, "idle session");
  }
  // Nothing of theirs is left: no change, no lock (an UPDATE of the same rows does not wait),
  // nothing prepared, no shard connection idle in a transaction but the other client's.
  auto c = pq_connect(faulty->dsn());
  EXPECT_EQ(pq_exec(c.get(), "SELECT count(*) FROM acc WHERE note = 'lost'").at(), "0");
  ASSERT_TRUE(pq_exec(c.get(), "SET lock_timeout = '5s'").ok());
  SqlResult u = pq_exec(c.get(), "UPDATE acc SET note = NULL WHERE id IN (50, 150, 250)");
  EXPECT_TRUE(u.ok()) << u.message;
  EXPECT_EQ(cluster_->prepared_left(), 0);
  // (The failed sessions' parts are rolled back after their clients were told: soon.)
  EXPECT_TRUE(eventually(
      [] {
        return cluster_->sum_direct(
                   "SELECT count(*) FROM pg_stat_activity WHERE datname = "
                   "'app' AND state LIKE 'idle in transaction%'") == 1;
      },
      std::chrono::seconds(10)));
  // The client whose session was not touched finishes its transaction.
  EXPECT_TRUE(pq_exec(other.get(), "UPDATE acc SET note = NULL WHERE id = 2").ok());
  EXPECT_TRUE(pq_exec(other.get(), "COMMIT").ok());
  EXPECT_EQ(pq_exec(c.get(), "SELECT count(*) FROM acc WHERE note = 'other'").at(), "0");
  EXPECT_TRUE(faulty->running());
  EXPECT_NE(faulty->log().find("ended by an unexpected exception"), std::string::npos);
}

TEST_F(DistributedWriteTest, TransactionsTheClientPreparesAcrossShardsWaitForItsDecision) {
  ASSERT_EQ(holder(40) == holder(140) && holder(140) == holder(240), false);
  auto c = cluster_->client();
  auto other = cluster_->client();
  auto note_of = [&](int64_t id) {
    return pq_exec(other.get(),
                   "SELECT coalesce(note, '-') FROM acc WHERE id = " + std::to_string(id))
        .at();
  };
  auto run = [&](PGconn* conn, const std::string& sql) {
    SqlResult r = pq_exec(conn, sql);
    EXPECT_TRUE(r.ok()) << sql << ": " << r.message;
    return r;
  };
  const int64_t before = cluster_->prepared_left();
  run(c.get(), "BEGIN");
  run(c.get(), "UPDATE acc SET note = 'tpc' WHERE id IN (40, 140, 240)");
  run(c.get(), "INSERT INTO acc VALUES (6001, 1, 'tpc'), (-6001, 1, 'tpc')");
  run(c.get(), "PREPARE TRANSACTION 'tpc-one'");
  EXPECT_EQ(PQtransactionStatus(c.get()), PQTRANS_IDLE);
  // Prepared on every shard it wrote to, visible nowhere, and the session goes on.
  EXPECT_EQ(cluster_->prepared_left() - before, 3);
  EXPECT_EQ(note_of(140), "-");
  EXPECT_EQ(note_of(6001), "<missing>");
  EXPECT_EQ(run(c.get(), "SELECT count(*) FROM acc WHERE note = 'tpc'").at(), "0");
  // The name is taken until the decision: a second PREPARE of it fails and rolls back.
  run(c.get(), "BEGIN");
  run(c.get(), "UPDATE acc SET note = 'dup' WHERE id IN (41, 241)");
  SqlResult dup = pq_exec(c.get(), "PREPARE TRANSACTION 'tpc-one'");
  EXPECT_EQ(dup.sqlstate, "42710") << dup.message;
  EXPECT_EQ(PQtransactionStatus(c.get()), PQTRANS_IDLE);
  EXPECT_EQ(note_of(41), "-");
  EXPECT_EQ(cluster_->prepared_left() - before, 3);
  // Recovery passes (every 2 s) leave it to the client.
  std::this_thread::sleep_for(std::chrono::seconds(5));
  EXPECT_EQ(cluster_->prepared_left() - before, 3) << cluster_->proxy().log_tail();
  // COMMIT PREPARED is refused inside a block, as PostgreSQL refuses it.
  run(other.get(), "BEGIN");
  run(other.get(), "UPDATE acc SET bal = bal WHERE id IN (1, 299)");
  SqlResult inside = pq_exec(other.get(), "COMMIT PREPARED 'tpc-one'");
  EXPECT_EQ(inside.sqlstate, "25001") << inside.message;
  run(other.get(), "ROLLBACK");
  // Decided by another pgrange instance: every part commits.
  {
    auto second = cluster_->start_proxy();
    auto s = pq_connect(second->dsn());
    run(s.get(), "COMMIT PREPARED 'tpc-one'");
    SqlResult again = pq_exec(s.get(), "COMMIT PREPARED 'tpc-one'");
    EXPECT_EQ(again.sqlstate, "42704") << again.message;
  }
  EXPECT_EQ(note_of(40) + note_of(140) + note_of(240) + note_of(6001) + note_of(-6001),
            "tpctpctpctpctpc");
  EXPECT_EQ(cluster_->prepared_left(), before);
  // Forgotten at pgrange's next housekeeping (every 2 s).
  EXPECT_TRUE(eventually([] { return decisions_left() == 0; }, std::chrono::seconds(5)));

  // ROLLBACK PREPARED undoes every part; a failed block's PREPARE answers ROLLBACK.
  run(c.get(), "BEGIN");
  run(c.get(), "UPDATE acc SET note = 'undone' WHERE id IN (42, 242)");
  run(c.get(), "PREPARE TRANSACTION 'tpc-two'");
  run(other.get(), "ROLLBACK PREPARED 'tpc-two'");
  EXPECT_EQ(note_of(42) + note_of(242), "--");
  run(c.get(), "BEGIN");
  run(c.get(), "UPDATE acc SET note = 'failed' WHERE id IN (43, 243)");
  EXPECT_FALSE(pq_exec(c.get(), "SELECT 1/0").ok());
  run(c.get(), "PREPARE TRANSACTION 'tpc-three'");
  EXPECT_EQ(note_of(43) + note_of(243), "--");
  EXPECT_EQ(pq_exec(c.get(), "COMMIT PREPARED 'tpc-three'").sqlstate, "42704");
  // A transaction on one shard, prepared where it ran, whichever shard that is.
  for (int64_t id : {44, 144, 244}) {
    const std::string name = "tpc-one-shard-" + std::to_string(id);
    run(c.get(), "BEGIN");
    run(c.get(), "UPDATE acc SET note = 'single' WHERE id = " + std::to_string(id));
    run(c.get(), "PREPARE TRANSACTION '" + name + "'");
    EXPECT_EQ(note_of(id), "-");
    run(other.get(), "COMMIT PREPARED '" + name + "'");
    EXPECT_EQ(note_of(id), "single");
  }
  // The same through the extended protocol (as JDBC sends every statement), parameters in
  // the transaction's statements.
  auto ext = [&](PGconn* conn, const std::string& sql, std::vector<const char*> values = {}) {
    SqlResult r = take_result(PQexecParams(conn, sql.c_str(), static_cast<int>(values.size()),
                                           nullptr, values.data(), nullptr, nullptr, 0),
                              conn);
    EXPECT_TRUE(r.ok()) << sql << ": " << r.message;
  };
  ext(c.get(), "BEGIN");
  ext(c.get(), "UPDATE acc SET note = $1 WHERE id = $2", {"ext", "45"});
  ext(c.get(), "UPDATE acc SET note = $1 WHERE id = $2", {"ext", "245"});
  ext(c.get(), "PREPARE TRANSACTION 'tpc-ext'");
  EXPECT_EQ(PQtransactionStatus(c.get()), PQTRANS_IDLE);
  EXPECT_EQ(note_of(45) + note_of(245), "--");
  ext(other.get(), "COMMIT PREPARED 'tpc-ext'");
  EXPECT_EQ(note_of(45) + note_of(245), "extext");
  EXPECT_EQ(cluster_->prepared_left(), before);
  // Forgotten at pgrange's next housekeeping (every 2 s).
  EXPECT_TRUE(eventually([] { return decisions_left() == 0; }, std::chrono::seconds(5)));
}

TEST_F(DistributedWriteTest, ShardsThatAreDatabasesOfOneServerCommitTogether) {
  // Gids are global to a PostgreSQL server: each shard's part is prepared under its own.
  {
    auto d = pq_connect(cluster_->shard(1).dsn("postgres"));
    for (std::string db : {"one", "two", "one_meta"}) {
      SqlResult r = pq_exec(d.get(), "CREATE DATABASE " + db);
      ASSERT_TRUE(r.ok()) << r.message;
    }
  }
  ProxyConfig cfg =
      ProxyConfig::with_shards({cluster_->shard(1).dsn("one"), cluster_->shard(1).dsn("two")}, 4);
  cfg.extra_toml = "\n[metadata]\ndsn = \"" + cluster_->shard(1).dsn("one_meta") + "\"\n";
  auto proxy = ProxyProcess::start(cfg);
  auto c = pq_connect(proxy->dsn());
  auto run = [&](PGconn* conn, const std::string& sql) {
    SqlResult r = pq_exec(conn, sql);
    EXPECT_TRUE(r.ok()) << sql << ": " << r.message;
    return r;
  };
  run(c.get(), "CREATE TABLE pair (id int8 PRIMARY KEY, v int8 NOT NULL)");
  run(c.get(), "INSERT INTO pair SELECT g, 0 FROM generate_series(1, 20) g");
  run(c.get(), "ALTER TABLE pair SPLIT AT VALUES (10)");
  run(c.get(), "ALTER TABLE pair SCATTER");
  auto one = pq_connect(cluster_->shard(1).dsn("one"));
  auto two = pq_connect(cluster_->shard(1).dsn("two"));
  auto count_on = [&](PGconn* db, const std::string& where) {
    return pq_exec(db, "SELECT count(*) FROM pair WHERE " + where).at();
  };
  // One range on each database.
  ASSERT_NE(count_on(one.get(), "true"), "0");
  ASSERT_NE(count_on(two.get(), "true"), "0");
  ASSERT_NE(count_on(one.get(), "id = 3"), count_on(one.get(), "id = 13"));
  // A write over both, a block over both, an UPDATE over both, the client's own two-phase
  // commit: each commits on both databases.
  run(c.get(), "INSERT INTO pair VALUES (-1, 1), (101, 1)");
  run(c.get(), "BEGIN");
  run(c.get(), "UPDATE pair SET v = v + 5 WHERE id = 3");
  run(c.get(), "UPDATE pair SET v = v - 5 WHERE id = 13");
  run(c.get(), "COMMIT");
  run(c.get(), "UPDATE pair SET v = v + 1 WHERE id IN (4, 14)");
  run(c.get(), "BEGIN");
  run(c.get(), "INSERT INTO pair VALUES (-2, 2), (102, 2)");
  run(c.get(), "PREPARE TRANSACTION 'two-dbs'");
  EXPECT_EQ(count_on(one.get(), "id IN (-2, 102)") + count_on(two.get(), "id IN (-2, 102)"), "00");
  run(c.get(), "COMMIT PREPARED 'two-dbs'");
  // Concurrent transfers between the two databases.
  std::atomic<int> failed{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 4; ++t) {
    clients.emplace_back([&, t] {
      auto conn = pq_connect(proxy->dsn());
      for (int i = 0; i < 25; ++i) {
        const int from = 1 + (t + i) % 9;
        const std::string sql = "UPDATE pair SET v = v + CASE WHEN id = " + std::to_string(from) +
                                " THEN -1 ELSE 1 END WHERE id IN (" + std::to_string(from) + ", " +
                                std::to_string(from + 10) + ")";
        if (!pq_exec(conn.get(), sql).ok()) ++failed;
      }
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(failed.load(), 0);
  auto through = [&](const std::string& sql) { return run(c.get(), sql).at(); };
  EXPECT_EQ(through("SELECT count(*) FROM pair"), "24");
  EXPECT_EQ(through("SELECT sum(v) FROM pair"), "8");  // 1+1, 5-5, 1+1, 2+2; transfers add 0
  EXPECT_EQ(through("SELECT sum(v) FROM pair WHERE id IN (3, 13)"), "0");
  // 5 and 1 added below 10, and 100 transfers of 1 each from below 10 to above.
  EXPECT_EQ(through("SELECT sum(v) FROM pair WHERE id BETWEEN 1 AND 9"), "-94");
  EXPECT_EQ(through("SELECT sum(v) FROM pair WHERE id BETWEEN 11 AND 19"), "96");
  EXPECT_EQ(count_on(one.get(), "id IN (-1, -2)") + count_on(two.get(), "id IN (101, 102)"), "22");
  for (PGconn* db : {one.get(), two.get()}) {
    EXPECT_EQ(pq_exec(db, "SELECT count(*) FROM pg_prepared_xacts").at(), "0");
  }
}

TEST_F(DistributedWriteTest, ATransactionThatWritesOnOneShardCommitsThereWithoutTwoPhaseCommit) {
  // A pgrange that dies right after PREPARE TRANSACTION: what it commits without one lives.
  auto dying = cluster_->start_proxy("after_prepare");
  auto c = pq_connect(dying->dsn());
  auto run = [&](const std::string& sql) {
    SqlResult r = pq_exec(c.get(), sql);
    EXPECT_TRUE(r.ok()) << sql << ": " << r.message;
    return r;
  };
  ASSERT_EQ(holder(70) == holder(170) || holder(170) == holder(270), false);
  // Reads on every shard, a write on one: the readers end with COMMIT, the writer commits.
  run("BEGIN");
  const std::string total = run("SELECT sum(bal) FROM acc").at();
  run("UPDATE acc SET note = 'one-phase' WHERE id = 170");
  EXPECT_EQ(run("SELECT count(*) FROM acc WHERE id IN (70, 270)").at(), "2");
  run("COMMIT");
  EXPECT_TRUE(dying->running());
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM acc WHERE note = 'one-phase'"), 1);
  // Only reads, over every shard.
  run("BEGIN");
  EXPECT_EQ(run("SELECT sum(bal) FROM acc").at(), total);
  run("SELECT * FROM acc WHERE id IN (71, 171, 271)");
  run("COMMIT");
  EXPECT_TRUE(dying->running());
  // A SELECT whose function writes is a write: with another shard's UPDATE, two shards wrote
  // and the commit is two-phase (this pgrange dies after PREPARE; recovery rolls it back).
  for (int i = 0; i < cluster_->size(); ++i) {
    auto d = cluster_->direct(i);
    for (std::string sql : {"CREATE TABLE side_log (at int8)",
                            "CREATE FUNCTION log_side(k int8) RETURNS int8 LANGUAGE sql AS "
                            "'INSERT INTO side_log VALUES (k) RETURNING at'"}) {
      SqlResult r = pq_exec(d.get(), sql);
      ASSERT_TRUE(r.ok()) << sql << ": " << r.message;
    }
  }
  run("BEGIN");
  EXPECT_EQ(run("SELECT log_side(id) FROM acc WHERE id = 72").at(), "72");
  run("UPDATE acc SET note = 'two-phase' WHERE id = 172");
  SqlResult commit = pq_exec(c.get(), "COMMIT");
  EXPECT_FALSE(commit.ok());
  EXPECT_TRUE(eventually([&] { return !dying->running(); }, std::chrono::seconds(10)));
  EXPECT_GE(cluster_->prepared_left(), 2);
  // The running pgrange rolls both parts back once the dead instance has been silent long
  // enough.
  EXPECT_TRUE(eventually([] { return cluster_->prepared_left() == 0; }, std::chrono::seconds(30)));
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM side_log"), 0);
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM acc WHERE note = 'two-phase'"), 0);
}

}  // namespace
}  // namespace pgrange::testing
