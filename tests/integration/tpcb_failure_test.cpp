// pgbench's TPC-B-like script through pgrange over three shards, with failures in the middle of
// the run: pgrange killed with SIGKILL (and a new pgrange started on the same shards and metadata
// store), and one shard stopped for a few seconds and started again. pgbench's clients fail
// meanwhile (expected), but afterwards the two-phase commits left prepared are finished by
// recovery, and the bank invariant holds, read on the shards themselves and through pgrange:
// sum(abalance) = sum(bbalance) = sum(tbalance) = sum(delta), every row on one shard, no more
// history rows than transactions that may have committed, nothing left prepared; and a new
// pgbench run has no failure.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "tests/support/pgbench_cluster.hpp"
#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {
namespace {

using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

constexpr int kClients = 8;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Three shards with the pgbench tables, imported into pgrange, split and scattered so that one
/// TPC-B transaction runs on up to three shards (a PgbenchCluster). The metadata store is a
/// database on the first shard; every pgrange of the suite uses the same configuration.
class TpcbFailureTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cluster_ = new PgbenchCluster();
    PgbenchCluster::Options o;
    o.table_before_import = true;
    setup_error_ = cluster_->set_up(o);
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }

  void SetUp() override { ASSERT_TRUE(setup_error_.empty()) << setup_error_; }

  static ProxyProcess& proxy() { return cluster_->proxy(); }
  static long prepared_left() { return cluster_->prepared_left(); }

  /// The bank invariant on the shards and through pgrange. pgbench saw `committed` transactions
  /// commit; up to `in_doubt` more may have committed without pgbench hearing of it (those in
  /// flight when pgrange died or a shard went away), so there are that many history rows or a
  /// few more.
  static void expect_invariant(long committed, long in_doubt) {
    ASSERT_EQ(prepared_left(), 0) << "prepared transactions left on the shards";
    BankFigures figures;
    cluster_->expect_bank_invariant("; pgbench committed " + std::to_string(committed) + ", " +
                                        std::to_string(in_doubt) + " in doubt",
                                    &figures);
    if (!figures.read) return;
    const long history = figures.on_shards["history rows"];
    EXPECT_GE(history, committed) << "a transaction pgbench saw commit is missing";
    EXPECT_LE(history, committed + in_doubt)
        << "more history rows than transactions that may have committed";
  }

  /// pgbench's default (TPC-B-like) script in the simple protocol through the pgrange listening
  /// on `port`, for `seconds`. Any thread.
  static PgbenchRun pgbench(int port, int seconds_to_run, const std::string& label) {
    PgbenchOptions o;
    o.port = port;
    o.mode = "simple";
    o.seconds = seconds_to_run;
    o.clients = kClients;
    o.connect_timeout_s = 10;
    o.timeout = seconds(seconds_to_run + 60);
    o.lowercase_error_lines = true;
    o.label = label;
    return run_pgbench(o);
  }

  /// A short pgbench run through the current pgrange must not fail at all.
  static void expect_clean_run(int seconds_to_run) {
    PgbenchRun run = pgbench(proxy().port(), seconds_to_run, "after");
    cluster_->expect_clean(run);
    if (run.processed > 0) committed_ += run.processed;
  }

  /// Lines of pgrange's log containing `text`.
  static long log_lines_with(const std::string& log, const std::string& text) {
    long n = 0;
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);) n += line.find(text) != std::string::npos;
    return n;
  }

  static PgbenchCluster* cluster_;
  static std::string setup_error_;
  /// Transactions pgbench saw commit so far, and how many more may have committed unseen.
  static long committed_;
  static long in_doubt_;
};

PgbenchCluster* TpcbFailureTest::cluster_ = nullptr;
std::string TpcbFailureTest::setup_error_;
long TpcbFailureTest::committed_ = 0;
long TpcbFailureTest::in_doubt_ = 0;

// pgrange killed with SIGKILL while pgbench runs, then a new pgrange on the same shards and
// metadata store: recovery finishes what the dead one left prepared, and the money adds up. The
// kill is repeated (up to three times) until one of them leaves a prepared transaction behind.
TEST_F(TpcbFailureTest, KillingPgrangeInTheMiddleOfTpcbKeepsTheBankInvariant) {
  long prepared_after_kills = 0;
  for (int attempt = 1; attempt <= 3 && prepared_after_kills == 0; ++attempt) {
    PgbenchRun run;
    const int port = proxy().port();
    std::thread bench([&] { run = pgbench(port, 20, "kill #" + std::to_string(attempt)); });
    std::this_thread::sleep_for(seconds(4));
    auto killed_at = Clock::now();
    EXPECT_TRUE(proxy().process().signal(SIGKILL));
    std::optional<int> status = proxy().process().wait(seconds(10));
    bench.join();
    EXPECT_EQ(status, 128 + SIGKILL);
    // The clients lose their connections: pgbench stops with aborted clients.
    EXPECT_NE(run.rc, 0) << run.output;
    if (run.processed > 0) committed_ += run.processed;
    in_doubt_ += kClients;

    long prepared = prepared_left();
    prepared_after_kills += prepared;
    std::cout << "[ kill #" << attempt << "  ] " << prepared
              << " prepared transactions on the shards after the kill ("
              << cluster_->prepared_per_shard() << ")" << std::endl;

    cluster_->restart_proxy();
    double took = cluster_->wait_until_nothing_prepared(seconds(30));
    std::string log = proxy().log();
    std::cout << "[ recovery ] nothing prepared " << took << " s after the restart (-1: still "
              << "prepared after 30 s; " << seconds_since(killed_at)
              << " s after the kill): committed " << log_lines_with(log, "recovery: committed")
              << ", rolled back " << log_lines_with(log, "recovery: rolled back")
              << " prepared transactions (per shard)" << std::endl;
    ASSERT_GE(took, 0) << "prepared transactions left on the shards\n" << proxy().log_tail();
    expect_invariant(committed_, in_doubt_);
    if (HasFatalFailure()) return;
  }
  std::cout << "[ kills    ] " << prepared_after_kills
            << " prepared transactions found right after the kills in all" << std::endl;

  expect_clean_run(5);
  expect_invariant(committed_, in_doubt_);
}

// One shard (not the one with the metadata store) stopped for ~4 s while pgbench runs, then
// started again on the same port and data directory: the transactions touching it fail, and once
// it is back, recovery leaves nothing prepared and the money adds up.
TEST_F(TpcbFailureTest, AShardStoppedInTheMiddleOfTpcbKeepsTheBankInvariant) {
  constexpr int kStopped = 2;
  // An account on a shard that stays up, read through pgrange while the other is down.
  long live_aid = 0;
  {
    auto c = pq_connect(proxy().dsn());
    for (long aid : {1L, 40000L, 70000L, 110000L, 140000L, 180000L}) {
      SqlResult r = pq_exec(
          c.get(), "SHOW RANGE FROM TABLE pgbench_accounts FOR ROW (" + std::to_string(aid) + ")");
      if (r.ok() && r.at(0, 3) != PgbenchCluster::shard_name(kStopped)) {
        live_aid = aid;
        break;
      }
    }
  }
  ASSERT_NE(live_aid, 0) << "every account on " << PgbenchCluster::shard_name(kStopped);
  const std::string log_before = proxy().log();
  const long committed_before = log_lines_with(log_before, "recovery: committed");
  const long rolled_back_before = log_lines_with(log_before, "recovery: rolled back");

  PgbenchRun run;
  const int port = proxy().port();
  std::thread bench([&] { run = pgbench(port, 15, "shard down"); });
  std::this_thread::sleep_for(seconds(4));
  cluster_->shard(kStopped).stop();
  const std::string prepared_at_stop = cluster_->prepared_per_shard();
  std::this_thread::sleep_for(seconds(1));
  {
    auto c = pq_connect(proxy().dsn());
    SqlResult r = pq_exec(
        c.get(), "SELECT abalance FROM pgbench_accounts WHERE aid = " + std::to_string(live_aid));
    EXPECT_TRUE(r.ok()) << "aid " << live_aid << " while " << PgbenchCluster::shard_name(kStopped)
                        << " is down: " << r.sqlstate << " " << r.message;
  }
  std::this_thread::sleep_for(seconds(3));
  auto restarted_at = Clock::now();
  cluster_->shard(kStopped).start_again();
  const std::string prepared_at_restart = cluster_->prepared_per_shard();
  bench.join();
  std::cout << "[ shard    ] " << PgbenchCluster::shard_name(kStopped)
            << " down ~4 s; prepared right after the stop " << prepared_at_stop
            << ", right after the restart " << prepared_at_restart << std::endl;
  if (run.processed > 0) committed_ += run.processed;
  in_doubt_ += kClients;
  EXPECT_TRUE(proxy().running()) << proxy().log_tail();

  double took = cluster_->wait_until_nothing_prepared(seconds(20));
  std::string log = proxy().log();
  std::cout << "[ recovery ] nothing prepared " << seconds_since(restarted_at)
            << " s after the restart (waited " << took << " s after pgbench ended, -1: still "
            << "prepared after 20 s); recovery "
            << "committed " << log_lines_with(log, "recovery: committed") - committed_before
            << " and rolled back "
            << log_lines_with(log, "recovery: rolled back") - rolled_back_before
            << " prepared transactions (per shard)" << std::endl;
  ASSERT_GE(took, 0) << "prepared transactions left on the shards\n" << proxy().log_tail();
  expect_invariant(committed_, in_doubt_);
  if (HasFatalFailure()) return;

  expect_clean_run(5);
  expect_invariant(committed_, in_doubt_);
}

}  // namespace
}  // namespace pgrange::testing
