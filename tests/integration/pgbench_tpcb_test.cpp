// pgbench's TPC-B-like default script through pgrange over three shards: the pgbench tables are
// initialised on the first shard (with empty twins on the others), imported, split and scattered,
// so that one TPC-B transaction (BEGIN; UPDATE an account; SELECT it; UPDATE a teller; UPDATE a
// branch; INSERT a history row; END) runs on up to three shards. pgbench runs in the simple and
// in the prepared protocol with no failed transaction, and afterwards the bank invariant holds,
// read through pgrange and read on the shards themselves: sum(abalance) = sum(bbalance) =
// sum(tbalance) = sum(delta), one history row per transaction pgbench processed, no row on two
// shards, nothing left prepared. Before pgbench, one such transaction is run by hand (and rolled
// back) in both protocols, which shows the SQLSTATE of anything pgrange refuses.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "tests/support/pgbench_cluster.hpp"
#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {
namespace {

/// Three shards with the pgbench tables, imported into one pgrange, split and scattered (a
/// PgbenchCluster); shared by the tests of the suite, which run in order and add up what pgbench
/// committed.
class PgbenchTpcbTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cluster_ = new PgbenchCluster();
    setup_error_ = cluster_->set_up({});
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }

  void SetUp() override { ASSERT_TRUE(setup_error_.empty()) << setup_error_; }

  static ProxyProcess& proxy() { return cluster_->proxy(); }
  static long on_shards(const std::string& sql) { return cluster_->on_shards(sql); }

  /// The shard owning a row of `table` with key `value`, as pgrange says.
  static std::string shard_of(PGconn* c, const std::string& table, long value) {
    SqlResult r =
        pq_exec(c, "SHOW RANGE FROM TABLE " + table + " FOR ROW (" + std::to_string(value) + ")");
    EXPECT_TRUE(r.ok()) << table << " " << value << ": " << r.message;
    return r.at(0, 3);
  }

  /// The bank invariant through pgrange and on the shards, with `transactions` history rows,
  /// and nothing left prepared.
  static void expect_invariant(long transactions) {
    BankFigures figures;
    cluster_->expect_bank_invariant("", &figures);
    if (!figures.read) return;
    EXPECT_EQ(figures.on_shards["history rows"], transactions)
        << "one history row per transaction pgbench processed";

    // Nothing left prepared (a two-phase commit may still be finishing for a moment).
    cluster_->wait_until_nothing_prepared(std::chrono::seconds(5));
    EXPECT_EQ(cluster_->prepared_left(), 0) << "prepared transactions left on the shards";
  }

  /// pgbench's default (TPC-B-like) script through pgrange for `seconds` in `mode`.
  static PgbenchRun pgbench(const std::string& mode, int seconds) {
    PgbenchOptions o;
    o.port = proxy().port();
    o.mode = mode;
    o.seconds = seconds;
    o.connect_timeout_s = 30;
    o.timeout = std::chrono::seconds(120);
    o.label = "-M " + mode;
    return run_pgbench(o);
  }

  static PgbenchCluster* cluster_;
  static std::string setup_error_;
  /// Transactions pgbench reported processed so far: the history rows there must be.
  static long committed_;
};

PgbenchCluster* PgbenchTpcbTest::cluster_ = nullptr;
std::string PgbenchTpcbTest::setup_error_;
long PgbenchTpcbTest::committed_ = 0;

/// Runs one statement of the probe transaction: simple protocol, or a named prepared statement
/// (Parse once, then Bind/Execute) as pgbench -M prepared sends it.
SqlResult run_statement(PGconn* c, bool prepared, const std::string& name, const std::string& sql,
                        const std::vector<std::string>& params) {
  if (!prepared) {
    std::string text = sql;
    for (size_t i = params.size(); i-- > 0;) {
      text = std::regex_replace(text, std::regex("\\$" + std::to_string(i + 1)), params[i]);
    }
    return pq_exec(c, text);
  }
  SqlResult p = take_result(
      PQprepare(c, name.c_str(), sql.c_str(), static_cast<int>(params.size()), nullptr), c);
  if (!p.ok()) return p;
  std::vector<const char*> values;
  for (const auto& v : params) values.push_back(v.c_str());
  return take_result(PQexecPrepared(c, name.c_str(), static_cast<int>(values.size()), values.data(),
                                    nullptr, nullptr, 0),
                     c);
}

// One TPC-B transaction whose account, teller and branch are on three different shards, in the
// simple protocol and with prepared statements, rolled back: every statement is accepted and
// nothing stays behind. Shows the SQLSTATE of whatever pgrange refuses, which pgbench's log
// does not.
TEST_F(PgbenchTpcbTest, OneTransactionOverThreeShardsInBothProtocols) {
  auto c = pq_connect(proxy().dsn());
  ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
  long aid = 0, tid = 0, bid = 0;
  size_t best = 0;
  for (long a : {1L, 40000L, 70000L, 110000L, 140000L, 180000L}) {
    for (long t : {1L, 10L, 20L}) {
      for (long b : {1L, 2L}) {
        std::set<std::string> on = {shard_of(c.get(), "pgbench_accounts", a),
                                    shard_of(c.get(), "pgbench_tellers", t),
                                    shard_of(c.get(), "pgbench_branches", b)};
        if (on.size() > best) {
          best = on.size();
          aid = a;
          tid = t;
          bid = b;
        }
      }
    }
  }
  ASSERT_EQ(best, 3u) << "no account, teller and branch on three different shards";
  std::cout << "[ probe    ] aid " << aid << " on " << shard_of(c.get(), "pgbench_accounts", aid)
            << ", tid " << tid << " on " << shard_of(c.get(), "pgbench_tellers", tid) << ", bid "
            << bid << " on " << shard_of(c.get(), "pgbench_branches", bid) << ", history on "
            << shard_of(c.get(), "pgbench_history", aid) << std::endl;

  const std::string a = std::to_string(aid), t = std::to_string(tid), b = std::to_string(bid);
  const std::string delta = "7777";  // outside pgbench's -5000..5000: this probe's rows
  struct Step {
    std::string name, sql;
    std::vector<std::string> params;
  };
  const std::vector<Step> steps = {
      {"probe_begin", "BEGIN", {}},
      {"probe_acc",
       "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2",
       {delta, a}},
      {"probe_sel", "SELECT abalance FROM pgbench_accounts WHERE aid = $1", {a}},
      {"probe_tel",
       "UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2",
       {delta, t}},
      {"probe_bra",
       "UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2",
       {delta, b}},
      {"probe_his",
       "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, "
       "CURRENT_TIMESTAMP)",
       {t, b, a, delta}},
  };
  for (bool prepared : {false, true}) {
    const char* protocol = prepared ? "prepared" : "simple";
    std::string failure;
    for (const auto& s : steps) {
      SqlResult r = run_statement(c.get(), prepared, s.name, s.sql, s.params);
      if (!r.ok()) {
        failure = s.sql + " -> " + r.sqlstate + " " + r.message;
        std::cout << "[ probe    ] " << protocol << ": " << failure << std::endl;
        break;
      }
    }
    EXPECT_TRUE(failure.empty()) << protocol << ": " << failure;
    SqlResult r = run_statement(c.get(), prepared, "probe_rollback", "ROLLBACK", {});
    EXPECT_TRUE(r.ok()) << protocol << ": ROLLBACK: " << r.sqlstate << " " << r.message;
    EXPECT_EQ(PQtransactionStatus(c.get()), PQTRANS_IDLE) << protocol;
    // Rolled back everywhere.
    EXPECT_EQ(on_shards("SELECT count(*) FROM pgbench_history WHERE delta = " + delta), 0);
    EXPECT_EQ(on_shards("SELECT count(*) FROM pgbench_accounts WHERE abalance <> 0"), 0)
        << protocol;
    EXPECT_EQ(on_shards("SELECT count(*) FROM pgbench_tellers WHERE tbalance <> 0"), 0) << protocol;
    EXPECT_EQ(on_shards("SELECT count(*) FROM pgbench_branches WHERE bbalance <> 0"), 0)
        << protocol;
  }
  expect_invariant(committed_);
}

// A transaction with prepared statements whose every statement is on one shard, not the first
// one: BEGIN must not tie it to the first shard.
TEST_F(PgbenchTpcbTest, APreparedTransactionOnOneShardOtherThanTheFirst) {
  auto c = pq_connect(proxy().dsn());
  ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
  long aid = 0;
  for (long a : {40000L, 70000L, 110000L, 140000L, 180000L}) {
    if (shard_of(c.get(), "pgbench_accounts", a) != "s1") {
      aid = a;
      break;
    }
  }
  ASSERT_NE(aid, 0) << "every account on s1";
  const std::string a = std::to_string(aid), on = shard_of(c.get(), "pgbench_accounts", aid);
  std::string failure;
  for (const auto& [name, sql, params] :
       std::vector<std::tuple<std::string, std::string, std::vector<std::string>>>{
           {"one_begin", "BEGIN", {}},
           {"one_acc",
            "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2",
            {"7777", a}},
           {"one_sel", "SELECT abalance FROM pgbench_accounts WHERE aid = $1", {a}}}) {
    SqlResult r = run_statement(c.get(), true, name, sql, params);
    if (!r.ok()) {
      failure = sql + " -> " + r.sqlstate + " " + r.message;
      std::cout << "[ one shard] aid " << a << " on " << on << ": " << failure << std::endl;
      break;
    }
  }
  EXPECT_TRUE(failure.empty()) << "aid " << a << " on " << on << ": " << failure;
  SqlResult r = run_statement(c.get(), true, "one_rollback", "ROLLBACK", {});
  EXPECT_TRUE(r.ok()) << "ROLLBACK: " << r.sqlstate << " " << r.message;
  EXPECT_EQ(on_shards("SELECT count(*) FROM pgbench_accounts WHERE abalance <> 0"), 0);
}

TEST_F(PgbenchTpcbTest, TpcbInTheSimpleProtocolKeepsTheBankInvariant) {
  PgbenchRun run = pgbench("simple", 15);
  if (run.processed > 0) committed_ += run.processed;
  cluster_->expect_clean(run);
  expect_invariant(committed_);
}

TEST_F(PgbenchTpcbTest, TpcbWithPreparedStatementsKeepsTheBankInvariant) {
  PgbenchRun run = pgbench("prepared", 8);
  if (run.processed > 0) committed_ += run.processed;
  cluster_->expect_clean(run);
  expect_invariant(committed_);
}

}  // namespace
}  // namespace pgrange::testing
