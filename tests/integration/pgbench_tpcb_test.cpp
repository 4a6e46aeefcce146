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
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "tests/support/pg_server.hpp"
#include "tests/support/process.hpp"
#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {
namespace {

constexpr int kShards = 3;
constexpr int kScale = 2;
constexpr long kAccounts = 100000L * kScale;
constexpr long kTellers = 10L * kScale;
constexpr long kBranches = 1L * kScale;

std::string shard_name(int i) {
  return "s" + std::to_string(i + 1);
}

/// What one pgbench run printed, parsed.
struct PgbenchRun {
  int rc = -1;
  long processed = -1;
  long failed = -1;
  long retried = -1;  ///< transactions retried (printed only with --max-tries > 1)
  long retries = -1;  ///< total number of retries
  std::string tps;
  std::vector<std::string> errors;  ///< lines about aborted clients and ERRORs
  std::string output;
};

long match_long(const std::string& text, const std::string& pattern) {
  std::smatch m;
  if (std::regex_search(text, m, std::regex(pattern))) return std::stol(m[1]);
  return -1;
}

/// Three shards with the pgbench tables of scale kScale, imported into one pgrange, split and
/// scattered; shared by the tests of the suite, which run in order and add up what pgbench
/// committed.
class PgbenchTpcbTest : public ::testing::Test {
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
    delete proxy_;
    proxy_ = nullptr;
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

    // The rows on s1, the same empty tables (with their primary keys) on s2 and s3, as
    // bench/pgbench_compare.sh and the README do it.
    for (int i = 0; i < kShards; ++i) {
      std::vector<std::string> argv = {pg_bin("pgbench"), "-i", "-q", "-s", std::to_string(kScale)};
      if (i > 0) argv.insert(argv.end(), {"-I", "dtp"});
      argv.insert(argv.end(), {"-h", "127.0.0.1", "-p", std::to_string(shards_[i]->port()), "-U",
                               "postgres", "app"});
      int rc = -1;
      std::string out = run_command(argv, "", &rc, std::chrono::seconds(120));
      if (rc != 0) {
        setup_error_ += "pgbench -i on " + shard_name(i) + " failed:\n" + out + "\n";
        return;
      }
    }

    ProxyConfig cfg;
    for (int i = 0; i < kShards; ++i) {
      ProxyConfig::Shard s;
      s.name = shard_name(i);
      s.dsn = shards_[i]->dsn("app");
      s.pool_size = 10;
      cfg.shards.push_back(s);
    }
    cfg.users.push_back({"app", "secret", "scram-sha-256"});
    cfg.pool_mode = "transaction";
    cfg.workers = 2;
    // pgbench_history has no primary key; keyed by aid (not unique) it is spread like the
    // accounts, so that its INSERT is routed as well.
    cfg.extra_toml = "\n[metadata]\ndsn = \"" + shards_[0]->dsn("app_meta") +
                     "\"\n\n[[table]]\nname = \"pgbench_history\"\nkey = [\"aid\"]\n";
    proxy_ = ProxyProcess::start(cfg).release();

    auto c = pq_connect(proxy_->dsn());
    if (PQstatus(c.get()) != CONNECTION_OK) {
      setup_error_ += std::string("connect to pgrange: ") + PQerrorMessage(c.get()) + "\n";
      return;
    }
    const std::map<std::string, std::string> keys = {{"pgbench_accounts", "aid"},
                                                     {"pgbench_branches", "bid"},
                                                     {"pgbench_tellers", "tid"},
                                                     {"pgbench_history", "aid"}};
    for (const auto& [table, key] : keys) {
      SqlResult r = pq_exec(c.get(), "IMPORT TABLE " + table + " FROM SHARD 's1'");
      if (!r.ok() || r.at(0, 2) != key || r.at(0, 3) != "s1") {
        setup_error_ += "IMPORT TABLE " + table + ": " + r.sqlstate + " " + r.message + " (key " +
                        r.at(0, 2) + ", shard " + r.at(0, 3) + ", notice " + r.at(0, 4) + ")\n";
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

  /// The shard owning a row of `table` with key `value`, as pgrange says.
  static std::string shard_of(PGconn* c, const std::string& table, long value) {
    SqlResult r =
        pq_exec(c, "SHOW RANGE FROM TABLE " + table + " FOR ROW (" + std::to_string(value) + ")");
    EXPECT_TRUE(r.ok()) << table << " " << value << ": " << r.message;
    return r.at(0, 3);
  }

  /// A number read through pgrange (NULL as 0).
  static long through_pgrange(PGconn* c, const std::string& sql) {
    SqlResult r = pq_exec(c, sql);
    EXPECT_TRUE(r.ok()) << "through pgrange: " << sql << ": " << r.sqlstate << " " << r.message;
    if (!r.ok() || r.at() == "<null>") return 0;
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
        if (holder[v] >= 0) {
          if (++duplicates <= 5) {
            examples += " " + column + "=" + row[0] + " on " + shard_name(holder[v]) + " and " +
                        shard_name(i) + ";";
          }
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

  /// The bank invariant through pgrange and on the shards, with `transactions` history rows.
  static void expect_invariant(long transactions) {
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
      EXPECT_EQ(pgr[name], dir[name]) << name << ": through pgrange vs on the shards";
    }
    std::cout << " (through pgrange/on the shards)" << std::endl;
    EXPECT_EQ(dir["sum(abalance)"], dir["sum(bbalance)"]);
    EXPECT_EQ(dir["sum(abalance)"], dir["sum(tbalance)"]);
    EXPECT_EQ(dir["sum(abalance)"], dir["sum(delta)"]);
    EXPECT_EQ(dir["history rows"], transactions)
        << "one history row per transaction pgbench processed";
    EXPECT_EQ(dir["accounts"], kAccounts);

    expect_each_row_on_one_shard("pgbench_accounts", "aid", kAccounts);
    expect_each_row_on_one_shard("pgbench_tellers", "tid", kTellers);
    expect_each_row_on_one_shard("pgbench_branches", "bid", kBranches);

    // Nothing left prepared (a two-phase commit may still be finishing for a moment).
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    long prepared = on_shards("SELECT count(*) FROM pg_prepared_xacts");
    while (prepared != 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      prepared = on_shards("SELECT count(*) FROM pg_prepared_xacts");
    }
    EXPECT_EQ(prepared, 0) << "prepared transactions left on the shards";
  }

  /// pgbench's default (TPC-B-like) script through pgrange for `seconds` in `mode`.
  static PgbenchRun pgbench(const std::string& mode, int seconds) {
    ProcessOptions po;
    po.argv = {pg_bin("pgbench"),
               "-n",
               "-c",
               "8",
               "-j",
               "2",
               "-T",
               std::to_string(seconds),
               "-M",
               mode,
               "--max-tries=10",
               "--failures-detailed",
               "-h",
               "127.0.0.1",
               "-p",
               std::to_string(proxy_->port()),
               "-U",
               "app",
               "app"};
    po.env = {{"PGPASSWORD", "secret"}, {"PGCONNECT_TIMEOUT", "30"}};
    PgbenchRun run;
    run.output = run_process(po, "", &run.rc, std::chrono::seconds(120));
    run.processed = match_long(run.output, "number of transactions actually processed: (\\d+)");
    run.failed = match_long(run.output, "number of failed transactions: (\\d+)");
    run.retried = match_long(run.output, "number of transactions retried: (\\d+)");
    run.retries = match_long(run.output, "total number of retries: (\\d+)");
    std::smatch m;
    if (std::regex_search(run.output, m, std::regex("tps = ([0-9.]+)"))) run.tps = m[1];
    std::istringstream lines(run.output);
    for (std::string line; std::getline(lines, line);) {
      if (line.find("aborted") != std::string::npos || line.find("ERROR") != std::string::npos) {
        run.errors.push_back(line);
      }
    }
    std::cout << "[ pgbench  ] -M " << mode << " -T " << seconds << ": exit " << run.rc
              << ", processed " << run.processed << ", failed " << run.failed << ", retried "
              << run.retried << " (" << run.retries << " retries), tps " << run.tps << ", "
              << run.errors.size() << " error lines" << std::endl;
    for (size_t i = 0; i < run.errors.size() && i < 4; ++i) {
      std::cout << "             " << run.errors[i] << std::endl;
    }
    return run;
  }

  static void expect_clean(const PgbenchRun& run) {
    std::string first_errors;
    for (size_t i = 0; i < run.errors.size() && i < 10; ++i) first_errors += run.errors[i] + "\n";
    EXPECT_EQ(run.rc, 0) << run.output << "\nproxy log:\n" << proxy_->log_tail();
    EXPECT_TRUE(run.errors.empty()) << first_errors;
    EXPECT_GT(run.processed, 0) << run.output;
    EXPECT_EQ(run.failed, 0) << run.output;
    EXPECT_TRUE(proxy_->running()) << proxy_->log_tail();
  }

  static PgServer* shards_[kShards];
  static ProxyProcess* proxy_;
  static std::string setup_error_;
  /// Transactions pgbench reported processed so far: the history rows there must be.
  static long committed_;
};

PgServer* PgbenchTpcbTest::shards_[kShards] = {};
ProxyProcess* PgbenchTpcbTest::proxy_ = nullptr;
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
  auto c = pq_connect(proxy_->dsn());
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
  auto c = pq_connect(proxy_->dsn());
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
  expect_clean(run);
  expect_invariant(committed_);
}

TEST_F(PgbenchTpcbTest, TpcbWithPreparedStatementsKeepsTheBankInvariant) {
  PgbenchRun run = pgbench("prepared", 8);
  if (run.processed > 0) committed_ += run.processed;
  expect_clean(run);
  expect_invariant(committed_);
}

}  // namespace
}  // namespace pgrange::testing
