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
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/pg_server.hpp"
#include "tests/support/process.hpp"
#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

constexpr int kShards = 3;
constexpr int kScale = 2;
constexpr long kAccounts = 100000L * kScale;
constexpr long kTellers = 10L * kScale;
constexpr long kBranches = 1L * kScale;
constexpr int kClients = 8;

std::string shard_name(int i) {
  return "s" + std::to_string(i + 1);
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// What one pgbench run printed, parsed.
struct PgbenchRun {
  int rc = -1;
  long processed = -1;
  long failed = -1;
  long aborted_clients = 0;         ///< "client N aborted" lines
  std::vector<std::string> errors;  ///< lines about aborted clients and errors
  std::string output;
};

long match_long(const std::string& text, const std::string& pattern) {
  std::smatch m;
  if (std::regex_search(text, m, std::regex(pattern))) return std::stol(m[1]);
  return -1;
}

/// Three shards with the pgbench tables of scale kScale, imported into pgrange, split and
/// scattered so that one TPC-B transaction runs on up to three shards. The metadata store is a
/// database on the first shard; every pgrange of the suite uses the same configuration.
class TpcbFailureTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    try {
      set_up();
    } catch (const std::exception& e) {
      setup_error_ += std::string("exception: ") + e.what() + "\n";
    }
    if (!setup_error_.empty() && proxy_ != nullptr) {
      setup_error_ += "proxy log:\n" + proxy_->log_tail();
    }
  }
  static void TearDownTestSuite() {
    proxy_.reset();
    for (auto*& s : shards_) {
      delete s;
      s = nullptr;
    }
  }

  void SetUp() override { ASSERT_TRUE(setup_error_.empty()) << setup_error_; }

  static void set_up() {
    PgServer::Options o;
    o.databases = {"app"};
    for (auto*& s : shards_) s = PgServer::start(o).release();

    // The rows on s1, the same empty tables (with their primary keys) on s2 and s3.
    for (int i = 0; i < kShards; ++i) {
      std::vector<std::string> argv = {pg_bin("pgbench"), "-i", "-q", "-s", std::to_string(kScale)};
      if (i > 0) argv.insert(argv.end(), {"-I", "dtp"});
      argv.insert(argv.end(), {"-h", "127.0.0.1", "-p", std::to_string(shards_[i]->port()), "-U",
                               "postgres", "app"});
      int rc = -1;
      std::string out = run_command(argv, "", &rc, seconds(120));
      if (rc != 0) {
        setup_error_ += "pgbench -i on " + shard_name(i) + " failed:\n" + out + "\n";
        return;
      }
    }

    for (int i = 0; i < kShards; ++i) {
      ProxyConfig::Shard s;
      s.name = shard_name(i);
      s.dsn = shards_[i]->dsn("app");
      s.pool_size = 10;
      config_.shards.push_back(s);
    }
    config_.users.push_back({"app", "secret", "scram-sha-256"});
    config_.pool_mode = "transaction";
    config_.workers = 2;
    // pgbench_history has no primary key; keyed by aid it is spread like the accounts.
    config_.extra_toml = "\n[metadata]\ndsn = \"" + shards_[0]->dsn("app_meta") +
                         "\"\n\n[[table]]\nname = \"pgbench_history\"\nkey = [\"aid\"]\n";
    proxy_ = ProxyProcess::start(config_);

    auto c = pq_connect(proxy_->dsn());
    if (PQstatus(c.get()) != CONNECTION_OK) {
      setup_error_ += std::string("connect to pgrange: ") + PQerrorMessage(c.get()) + "\n";
      return;
    }
    // While pgrange's catalog is empty, it passes IMPORT TABLE to the shard unread; a table made
    // through pgrange first avoids that.
    if (SqlResult r = pq_exec(c.get(), "CREATE TABLE tpcb_first (id int8 PRIMARY KEY)"); !r.ok()) {
      setup_error_ += "CREATE TABLE tpcb_first: " + r.sqlstate + " " + r.message + "\n";
    }
    const std::map<std::string, std::string> keys = {{"pgbench_accounts", "aid"},
                                                     {"pgbench_branches", "bid"},
                                                     {"pgbench_tellers", "tid"},
                                                     {"pgbench_history", "aid"}};
    for (const auto& [table, key] : keys) {
      SqlResult r = pq_exec(c.get(), "IMPORT TABLE " + table + " FROM SHARD 's1'");
      if (!r.ok() || r.at(0, 2) != key || r.at(0, 3) != "s1") {
        setup_error_ += "IMPORT TABLE " + table + ": " + r.sqlstate + " " + r.message + " (key " +
                        r.at(0, 2) + ", shard " + r.at(0, 3) + ")\n";
      }
    }
    if (!setup_error_.empty()) return;

    const std::vector<std::pair<std::string, std::string>> splits = {
        {"pgbench_accounts", "(33334), (66667), (100001), (133334), (166667)"},
        {"pgbench_branches", "(2)"},
        {"pgbench_tellers", "(8), (15)"},
        {"pgbench_history", "(50001), (100001), (150001)"}};
    for (const auto& [table, values] : splits) {
      for (const std::string& sql : {"ALTER TABLE " + table + " SPLIT AT VALUES " + values,
                                     "ALTER TABLE " + table + " SCATTER"}) {
        SqlResult r = pq_exec(c.get(), sql);
        if (!r.ok()) setup_error_ += sql + ": " + r.sqlstate + " " + r.message + "\n";
      }
      SqlResult r = pq_exec(c.get(), "SHOW RANGES FROM TABLE " + table);
      std::set<std::string> on;
      for (const auto& row : r.rows) on.insert(row.size() > 3 ? row[3] : "?");
      std::string shards;
      for (const auto& s : on) shards += " " + s;
      std::cout << "[ ranges   ] " << table << ": " << r.rows.size() << " ranges on" << shards
                << std::endl;
      if (!r.ok() || on.size() < 2) {
        setup_error_ += "SHOW RANGES FROM TABLE " + table + ": " + r.message + ", " +
                        std::to_string(r.rows.size()) + " ranges on" + shards + "\n";
      }
    }
  }

  static PgConnPtr direct(int shard) { return pq_connect(shards_[shard]->dsn("app")); }

  /// A number read through pgrange (NULL as 0; -1, and a failed expectation, on error).
  static long through_pgrange(PGconn* c, const std::string& sql) {
    SqlResult r = pq_exec(c, sql);
    EXPECT_TRUE(r.ok()) << "through pgrange: " << sql << ": " << r.sqlstate << " " << r.message;
    if (!r.ok()) return -1;
    if (r.at() == "<null>") return 0;
    return std::stol(r.at());
  }
  /// A number read on every shard directly and added up (NULL as 0).
  static long on_shards(const std::string& sql) {
    long total = 0;
    for (int i = 0; i < kShards; ++i) {
      auto d = direct(i);
      SqlResult r = pq_exec(d.get(), sql);
      EXPECT_TRUE(r.ok()) << shard_name(i) << ": " << sql << ": " << r.message;
      if (r.ok() && r.at() != "<null>") total += std::stol(r.at());
    }
    return total;
  }
  static long prepared_left() { return on_shards("SELECT count(*) FROM pg_prepared_xacts"); }
  /// Prepared transactions per running shard, e.g. "s1=0 s2=3 s3=down".
  static std::string prepared_per_shard() {
    std::string out;
    for (int i = 0; i < kShards; ++i) {
      out += (i > 0 ? " " : "") + shard_name(i) + "=";
      if (!shards_[i]->running()) {
        out += "down";
        continue;
      }
      auto d = direct(i);
      SqlResult r = pq_exec(d.get(), "SELECT count(*) FROM pg_prepared_xacts");
      out += r.ok() ? r.at() : "?";
    }
    return out;
  }

  /// Waits up to `limit` for `done`.
  template <typename F>
  static bool eventually(F done, milliseconds limit) {
    auto deadline = Clock::now() + limit;
    while (Clock::now() < deadline) {
      if (done()) return true;
      std::this_thread::sleep_for(milliseconds(200));
    }
    return done();
  }

  /// Waits (up to `limit`) until no shard has a prepared transaction; returns the seconds it
  /// took, or -1 when some are still there.
  static double wait_until_nothing_prepared(seconds limit) {
    auto start = Clock::now();
    if (!eventually([] { return prepared_left() == 0; }, limit)) return -1;
    return seconds_since(start);
  }

  /// Every value of `column` in 1..n is on exactly one shard.
  static void expect_each_row_on_one_shard(const std::string& table, const std::string& column,
                                           long n) {
    std::vector<int> holder(static_cast<size_t>(n) + 1, -1);
    long duplicates = 0, outside = 0;
    std::string examples;
    for (int i = 0; i < kShards; ++i) {
      auto d = direct(i);
      SqlResult r = pq_exec(d.get(), "SELECT " + column + " FROM " + table);
      ASSERT_TRUE(r.ok()) << shard_name(i) << ": " << r.message;
      for (const auto& row : r.rows) {
        long v = std::stol(row[0]);
        if (v < 1 || v > n) {
          ++outside;
          continue;
        }
        if (holder[v] >= 0 && ++duplicates <= 5) {
          examples += " " + column + "=" + row[0] + " on " + shard_name(holder[v]) + " and " +
                      shard_name(i) + ";";
        }
        holder[v] = i;
      }
    }
    long missing = 0;
    for (long v = 1; v <= n; ++v) missing += holder[v] < 0;
    EXPECT_EQ(duplicates, 0) << table << ": rows on two shards:" << examples;
    EXPECT_EQ(missing, 0) << table << ": " << column << " values missing on every shard";
    EXPECT_EQ(outside, 0) << table << ": unexpected " << column << " values";
  }

  /// The bank invariant on the shards and through pgrange. pgbench saw `committed` transactions
  /// commit; up to `in_doubt` more may have committed without pgbench hearing of it (those in
  /// flight when pgrange died or a shard went away), so there are that many history rows or a
  /// few more.
  static void expect_invariant(long committed, long in_doubt) {
    ASSERT_EQ(prepared_left(), 0) << "prepared transactions left on the shards";
    auto c = pq_connect(proxy_->dsn());
    ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
    const std::vector<std::pair<std::string, std::string>> figures = {
        {"sum(abalance)", "SELECT sum(abalance) FROM pgbench_accounts"},
        {"sum(bbalance)", "SELECT sum(bbalance) FROM pgbench_branches"},
        {"sum(tbalance)", "SELECT sum(tbalance) FROM pgbench_tellers"},
        {"sum(delta)", "SELECT sum(delta) FROM pgbench_history"},
        {"history rows", "SELECT count(*) FROM pgbench_history"},
        {"accounts", "SELECT count(*) FROM pgbench_accounts"}};
    std::map<std::string, long> pgr, dir;
    std::cout << "[ invariant]";
    for (const auto& [name, sql] : figures) {
      pgr[name] = through_pgrange(c.get(), sql);
      dir[name] = on_shards(sql);
      std::cout << " " << name << "=" << pgr[name] << "/" << dir[name];
    }
    std::cout << " (through pgrange/on the shards; pgbench committed " << committed << ", "
              << in_doubt << " in doubt)" << std::endl;
    for (const auto& [name, sql] : figures) {
      EXPECT_EQ(pgr[name], dir[name]) << name << ": through pgrange vs on the shards";
    }
    EXPECT_EQ(dir["sum(abalance)"], dir["sum(bbalance)"]);
    EXPECT_EQ(dir["sum(abalance)"], dir["sum(tbalance)"]);
    EXPECT_EQ(dir["sum(abalance)"], dir["sum(delta)"]);
    EXPECT_GE(dir["history rows"], committed) << "a transaction pgbench saw commit is missing";
    EXPECT_LE(dir["history rows"], committed + in_doubt)
        << "more history rows than transactions that may have committed";
    EXPECT_EQ(dir["accounts"], kAccounts);

    expect_each_row_on_one_shard("pgbench_accounts", "aid", kAccounts);
    expect_each_row_on_one_shard("pgbench_tellers", "tid", kTellers);
    expect_each_row_on_one_shard("pgbench_branches", "bid", kBranches);
  }

  /// pgbench's default (TPC-B-like) script in the simple protocol through the pgrange listening
  /// on `port`, for `seconds`. Any thread.
  static PgbenchRun pgbench(int port, int seconds_to_run, const std::string& label) {
    ProcessOptions po;
    po.argv = {pg_bin("pgbench"),
               "-n",
               "-c",
               std::to_string(kClients),
               "-j",
               "2",
               "-T",
               std::to_string(seconds_to_run),
               "-M",
               "simple",
               "--max-tries=10",
               "--failures-detailed",
               "-h",
               "127.0.0.1",
               "-p",
               std::to_string(port),
               "-U",
               "app",
               "app"};
    po.env = {{"PGPASSWORD", "secret"}, {"PGCONNECT_TIMEOUT", "10"}};
    PgbenchRun run;
    run.output = run_process(po, "", &run.rc, seconds(seconds_to_run + 60));
    run.processed = match_long(run.output, "number of transactions actually processed: (\\d+)");
    run.failed = match_long(run.output, "number of failed transactions: (\\d+)");
    std::istringstream lines(run.output);
    for (std::string line; std::getline(lines, line);) {
      if (std::regex_search(line, std::regex("client \\d+ .*aborted"))) ++run.aborted_clients;
      if (line.find("aborted") != std::string::npos || line.find("error") != std::string::npos ||
          line.find("ERROR") != std::string::npos) {
        run.errors.push_back(line);
      }
    }
    std::cout << "[ pgbench  ] " << label << " -T " << seconds_to_run << ": exit " << run.rc
              << ", processed " << run.processed << ", failed " << run.failed << ", "
              << run.aborted_clients << " clients aborted, " << run.errors.size() << " error lines"
              << std::endl;
    for (size_t i = 0; i < run.errors.size() && i < 3; ++i) {
      std::cout << "             " << run.errors[i] << std::endl;
    }
    return run;
  }

  /// A short pgbench run through the current pgrange must not fail at all.
  static void expect_clean_run(int seconds_to_run) {
    PgbenchRun run = pgbench(proxy_->port(), seconds_to_run, "after");
    std::string first_errors;
    for (size_t i = 0; i < run.errors.size() && i < 10; ++i) first_errors += run.errors[i] + "\n";
    EXPECT_EQ(run.rc, 0) << run.output << "\nproxy log:\n" << proxy_->log_tail();
    EXPECT_TRUE(run.errors.empty()) << first_errors;
    EXPECT_GT(run.processed, 0) << run.output;
    EXPECT_EQ(run.failed, 0) << run.output;
    EXPECT_TRUE(proxy_->running()) << proxy_->log_tail();
    if (run.processed > 0) committed_ += run.processed;
  }

  /// Lines of pgrange's log containing `text`.
  static long log_lines_with(const std::string& log, const std::string& text) {
    long n = 0;
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);) n += line.find(text) != std::string::npos;
    return n;
  }

  static PgServer* shards_[kShards];
  static std::unique_ptr<ProxyProcess> proxy_;
  static ProxyConfig config_;
  static std::string setup_error_;
  /// Transactions pgbench saw commit so far, and how many more may have committed unseen.
  static long committed_;
  static long in_doubt_;
};

PgServer* TpcbFailureTest::shards_[kShards] = {};
std::unique_ptr<ProxyProcess> TpcbFailureTest::proxy_;
ProxyConfig TpcbFailureTest::config_;
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
    const int port = proxy_->port();
    std::thread bench([&] { run = pgbench(port, 20, "kill #" + std::to_string(attempt)); });
    std::this_thread::sleep_for(seconds(4));
    auto killed_at = Clock::now();
    EXPECT_TRUE(proxy_->process().signal(SIGKILL));
    std::optional<int> status = proxy_->process().wait(seconds(10));
    bench.join();
    EXPECT_EQ(status, 128 + SIGKILL);
    // The clients lose their connections: pgbench stops with aborted clients.
    EXPECT_NE(run.rc, 0) << run.output;
    if (run.processed > 0) committed_ += run.processed;
    in_doubt_ += kClients;

    long prepared = prepared_left();
    prepared_after_kills += prepared;
    std::cout << "[ kill #" << attempt << "  ] " << prepared
              << " prepared transactions on the shards after the kill (" << prepared_per_shard()
              << ")" << std::endl;

    proxy_.reset();
    proxy_ = ProxyProcess::start(config_);
    double took = wait_until_nothing_prepared(seconds(30));
    std::string log = proxy_->log();
    std::cout << "[ recovery ] nothing prepared " << took << " s after the restart (-1: still "
              << "prepared after 30 s; " << seconds_since(killed_at)
              << " s after the kill): committed " << log_lines_with(log, "recovery: committed")
              << ", rolled back " << log_lines_with(log, "recovery: rolled back")
              << " prepared transactions (per shard)" << std::endl;
    ASSERT_GE(took, 0) << "prepared transactions left on the shards\n" << proxy_->log_tail();
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
    auto c = pq_connect(proxy_->dsn());
    for (long aid : {1L, 40000L, 70000L, 110000L, 140000L, 180000L}) {
      SqlResult r = pq_exec(
          c.get(), "SHOW RANGE FROM TABLE pgbench_accounts FOR ROW (" + std::to_string(aid) + ")");
      if (r.ok() && r.at(0, 3) != shard_name(kStopped)) {
        live_aid = aid;
        break;
      }
    }
  }
  ASSERT_NE(live_aid, 0) << "every account on " << shard_name(kStopped);
  const std::string log_before = proxy_->log();
  const long committed_before = log_lines_with(log_before, "recovery: committed");
  const long rolled_back_before = log_lines_with(log_before, "recovery: rolled back");

  PgbenchRun run;
  const int port = proxy_->port();
  std::thread bench([&] { run = pgbench(port, 15, "shard down"); });
  std::this_thread::sleep_for(seconds(4));
  shards_[kStopped]->stop();
  const std::string prepared_at_stop = prepared_per_shard();
  std::this_thread::sleep_for(seconds(1));
  {
    auto c = pq_connect(proxy_->dsn());
    SqlResult r = pq_exec(
        c.get(), "SELECT abalance FROM pgbench_accounts WHERE aid = " + std::to_string(live_aid));
    EXPECT_TRUE(r.ok()) << "aid " << live_aid << " while " << shard_name(kStopped)
                        << " is down: " << r.sqlstate << " " << r.message;
  }
  std::this_thread::sleep_for(seconds(3));
  auto restarted_at = Clock::now();
  shards_[kStopped]->start_again();
  const std::string prepared_at_restart = prepared_per_shard();
  bench.join();
  std::cout << "[ shard    ] " << shard_name(kStopped)
            << " down ~4 s; prepared right after the stop " << prepared_at_stop
            << ", right after the restart " << prepared_at_restart << std::endl;
  if (run.processed > 0) committed_ += run.processed;
  in_doubt_ += kClients;
  EXPECT_TRUE(proxy_->running()) << proxy_->log_tail();

  double took = wait_until_nothing_prepared(seconds(20));
  std::string log = proxy_->log();
  std::cout << "[ recovery ] nothing prepared " << seconds_since(restarted_at)
            << " s after the restart (waited " << took << " s after pgbench ended, -1: still "
            << "prepared after 20 s); recovery "
            << "committed " << log_lines_with(log, "recovery: committed") - committed_before
            << " and rolled back "
            << log_lines_with(log, "recovery: rolled back") - rolled_back_before
            << " prepared transactions (per shard)" << std::endl;
  ASSERT_GE(took, 0) << "prepared transactions left on the shards\n" << proxy_->log_tail();
  expect_invariant(committed_, in_doubt_);
  if (HasFatalFailure()) return;

  expect_clean_run(5);
  expect_invariant(committed_, in_doubt_);
}

}  // namespace
}  // namespace pgrange::testing
