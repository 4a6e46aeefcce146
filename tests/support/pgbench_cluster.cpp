#include "tests/support/pgbench_cluster.hpp"

#include <gtest/gtest.h>

#include <exception>
#include <iostream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "tests/support/process.hpp"

namespace pgrange::testing {
namespace {

using Clock = std::chrono::steady_clock;

long match_long(const std::string& text, const std::string& pattern) {
  std::smatch m;
  if (std::regex_search(text, m, std::regex(pattern))) return std::stol(m[1]);
  return -1;
}

/// A number read through pgrange (NULL as 0; -1, and a failed expectation, on error).
long through_pgrange(PGconn* c, const std::string& sql) {
  SqlResult r = pq_exec(c, sql);
  EXPECT_TRUE(r.ok()) << "through pgrange: " << sql << ": " << r.sqlstate << " " << r.message;
  if (!r.ok()) return -1;
  if (r.at() == "<null>") return 0;
  return std::stol(r.at());
}

}  // namespace

PgbenchRun run_pgbench(const PgbenchOptions& options) {
  ProcessOptions po;
  po.argv = {pg_bin("pgbench"),
             "-n",
             "-c",
             std::to_string(options.clients),
             "-j",
             "2",
             "-T",
             std::to_string(options.seconds),
             "-M",
             options.mode,
             "--max-tries=10",
             "--failures-detailed",
             "-h",
             "127.0.0.1",
             "-p",
             std::to_string(options.port),
             "-U",
             "app",
             "app"};
  if (options.select_only) po.argv.insert(po.argv.begin() + 1, "-S");
  po.env = {{"PGPASSWORD", "secret"},
            {"PGCONNECT_TIMEOUT", std::to_string(options.connect_timeout_s)}};
  PgbenchRun run;
  run.output = run_process(po, "", &run.rc, options.timeout);
  run.processed = match_long(run.output, "number of transactions actually processed: (\\d+)");
  run.failed = match_long(run.output, "number of failed transactions: (\\d+)");
  run.retried = match_long(run.output, "number of transactions retried: (\\d+)");
  run.retries = match_long(run.output, "total number of retries: (\\d+)");
  std::smatch m;
  if (std::regex_search(run.output, m, std::regex("tps = ([0-9.]+)"))) run.tps = m[1];
  const std::regex aborted_client("client \\d+ .*aborted");
  std::istringstream lines(run.output);
  for (std::string line; std::getline(lines, line);) {
    if (std::regex_search(line, aborted_client)) ++run.aborted_clients;
    if (line.find("aborted") != std::string::npos || line.find("ERROR") != std::string::npos ||
        (options.lowercase_error_lines && line.find("error") != std::string::npos)) {
      run.errors.push_back(line);
    }
  }
  std::cout << "[ pgbench  ] " << options.label << " -T " << options.seconds << ": exit " << run.rc
            << ", processed " << run.processed << ", failed " << run.failed << ", retried "
            << run.retried << " (" << run.retries << " retries), tps " << run.tps << ", "
            << run.aborted_clients << " clients aborted, " << run.errors.size() << " error lines"
            << std::endl;
  for (size_t i = 0; i < run.errors.size() && i < 4; ++i) {
    std::cout << "             " << run.errors[i] << std::endl;
  }
  return run;
}

PgbenchCluster::~PgbenchCluster() {
  proxy_.reset();
  for (auto& s : shards_) s.reset();
}

std::string PgbenchCluster::shard_name(int i) {
  return "s" + std::to_string(i + 1);
}

std::string PgbenchCluster::set_up(const Options& options) {
  std::string error;
  try {
    error = set_up_tables(options);
  } catch (const std::exception& e) {
    error += std::string("exception: ") + e.what() + "\n";
  }
  if (!error.empty() && proxy_ != nullptr) error += "proxy log:\n" + proxy_->log_tail();
  return error;
}

std::string PgbenchCluster::set_up_tables(const Options& options) {
  std::string error;
  PgServer::Options o;
  o.databases = {"app"};
  for (auto& s : shards_) s = PgServer::start(o);

  // The rows on s1, the same empty tables (with their primary keys) on s2 and s3, as
  // bench/pgbench_compare.sh and the README do it.
  for (int i = 0; i < kShards && options.setup == Setup::kImport; ++i) {
    std::vector<std::string> argv = {pg_bin("pgbench"), "-i", "-q", "-s", std::to_string(kScale)};
    if (i > 0) argv.insert(argv.end(), {"-I", "dtp"});
    argv.insert(argv.end(), {"-h", "127.0.0.1", "-p", std::to_string(shards_[i]->port()), "-U",
                             "postgres", "app"});
    int rc = -1;
    std::string out = run_command(argv, "", &rc, std::chrono::seconds(120));
    if (rc != 0) return "pgbench -i on " + shard_name(i) + " failed:\n" + out + "\n";
  }

  for (int i = 0; i < kShards; ++i) {
    ProxyConfig::Shard s;
    s.name = shard_name(i);
    s.dsn = shards_[i]->dsn("app");
    s.pool_size = 10;
    config_.shards.push_back(s);
  }
  config_.users.push_back({"app", "secret", "scram-sha-256", true});
  config_.pool_mode = "transaction";
  config_.workers = 2;
  // pgbench_history has no primary key; keyed by aid (not unique) it is spread like the
  // accounts, so that its INSERT is routed as well.
  config_.extra_toml = "\n[metadata]\ndsn = \"" + shards_[0]->dsn("app_meta") + "\"\n";
  if (options.setup == Setup::kImport) {
    config_.extra_toml += "\n[[table]]\nname = \"pgbench_history\"\nkey = [\"aid\"]\n";
  } else if (options.setup == Setup::kInitReference) {
    reference_ = true;
    const std::string accounts =
        std::to_string(kAccounts / 3 + 1) + ", " + std::to_string(2 * kAccounts / 3 + 1);
    config_.extra_toml +=
        "\n[[table]]\nname = \"pgbench_accounts\"\nkey = [\"aid\"]\nsplit_at = [" + accounts +
        "]\n[[table]]\nname = \"pgbench_history\"\nkey = [\"aid\"]\nsplit_at = [" + accounts +
        "]\n[[table]]\nname = \"pgbench_tellers\"\nreference = true\n"
        "[[table]]\nname = \"pgbench_branches\"\nreference = true\n"
        "[[table]]\nname = \"ref_stamped\"\nreference = true\n"
        "[[table]]\nname = \"ref_block\"\nreference = true\n";
  } else if (options.setup == Setup::kInitConfigured) {
    // As the README shows it: the four tables keyed and split in thirds.
    const std::string accounts =
        std::to_string(kAccounts / 3 + 1) + ", " + std::to_string(2 * kAccounts / 3 + 1);
    config_.extra_toml +=
        "\n[[table]]\nname = \"pgbench_accounts\"\nkey = [\"aid\"]\nsplit_at = [" + accounts +
        "]\n[[table]]\nname = \"pgbench_history\"\nkey = [\"aid\"]\nsplit_at = [" + accounts +
        "]\n[[table]]\nname = \"pgbench_tellers\"\nkey = [\"tid\"]\nsplit_at = [" +
        std::to_string(kTellers / 3 + 1) + ", " + std::to_string(2 * kTellers / 3 + 1) +
        "]\n[[table]]\nname = \"pgbench_branches\"\nkey = [\"bid\"]\nsplit_at = [2]\n";
  }
  proxy_ = ProxyProcess::start(config_);
  if (options.setup == Setup::kInitConfigured || options.setup == Setup::kInitReference) {
    error = init_through_pgrange();
    return error.empty() ? check_spread(true) : error;
  }
  if (options.setup == Setup::kInitPlain) {
    error = init_through_pgrange();
    if (!error.empty()) return error;
    error = split_and_scatter(false);
    return error.empty() ? check_spread(false) : error;
  }

  auto c = pq_connect(proxy_->dsn());
  if (PQstatus(c.get()) != CONNECTION_OK) {
    return std::string("connect to pgrange: ") + PQerrorMessage(c.get()) + "\n";
  }
  if (options.table_before_import) {
    // While pgrange's catalog is empty, it passes IMPORT TABLE to the shard unread; a table made
    // through pgrange first avoids that.
    if (SqlResult r = pq_exec(c.get(), "CREATE TABLE tpcb_first (id int8 PRIMARY KEY)"); !r.ok()) {
      error += "CREATE TABLE tpcb_first: " + r.sqlstate + " " + r.message + "\n";
    }
  }
  const std::map<std::string, std::string> keys = {{"pgbench_accounts", "aid"},
                                                   {"pgbench_branches", "bid"},
                                                   {"pgbench_tellers", "tid"},
                                                   {"pgbench_history", "aid"}};
  for (const auto& [table, key] : keys) {
    SqlResult r = pq_exec(c.get(), "IMPORT TABLE " + table + " FROM SHARD 's1'");
    if (!r.ok() || r.at(0, 2) != key || r.at(0, 3) != "s1") {
      error += "IMPORT TABLE " + table + ": " + r.sqlstate + " " + r.message + " (key " +
               r.at(0, 2) + ", shard " + r.at(0, 3) + ", notice " + r.at(0, 4) + ")\n";
    }
  }
  if (!error.empty()) return error;
  error = split_and_scatter(true);
  return error.empty() ? check_spread(true) : error;
}

std::string PgbenchCluster::init_through_pgrange() {
  int rc = -1;
  ProcessOptions po;
  po.argv = {pg_bin("pgbench"),
             "-i",
             "-q",
             "-s",
             std::to_string(kScale),
             "-h",
             "127.0.0.1",
             "-p",
             std::to_string(proxy_->port()),
             "-U",
             "app",
             "app"};
  po.env = {{"PGPASSWORD", "secret"}};
  std::string out = run_process(po, "", &rc, std::chrono::seconds(300));
  std::cout << "[ init     ] pgbench -i -s " << kScale << " through pgrange: exit " << rc
            << std::endl;
  if (rc != 0) return "pgbench -i through pgrange failed:\n" + out + "\n";
  return "";
}

std::string PgbenchCluster::split_and_scatter(bool history) {
  std::string error;
  auto c = pq_connect(proxy_->dsn());
  const std::vector<std::pair<std::string, std::string>> splits = {
      {"pgbench_accounts", "(33334), (66667), (100001), (133334), (166667)"},
      {"pgbench_branches", "(2)"},
      {"pgbench_tellers", "(8), (15)"},
      {"pgbench_history", "(50001), (100001), (150001)"}};
  for (const auto& [table, values] : splits) {
    if (!history && table == "pgbench_history") continue;
    for (const std::string& sql : {"ALTER TABLE " + table + " SPLIT AT VALUES " + values,
                                   "ALTER TABLE " + table + " SCATTER"}) {
      SqlResult r = pq_exec(c.get(), sql);
      if (!r.ok()) error += sql + ": " + r.sqlstate + " " + r.message + "\n";
    }
  }
  return error;
}

std::string PgbenchCluster::check_spread(bool history) {
  std::string error;
  auto c = pq_connect(proxy_->dsn());
  for (std::string table :
       {"pgbench_accounts", "pgbench_branches", "pgbench_tellers", "pgbench_history"}) {
    SqlResult r = pq_exec(c.get(), "SHOW RANGES FROM TABLE " + table);
    std::set<std::string> on;
    for (const auto& row : r.rows) on.insert(row.size() > 3 ? row[3] : "?");
    bool reference = reference_ && (table == "pgbench_tellers" || table == "pgbench_branches");
    if (reference) {
      // One range, whose shard column names every shard.
      std::string all;
      for (int i = 0; i < kShards; ++i) all += (i == 0 ? "" : ",") + shard_name(i);
      if (!r.ok() || r.rows.size() != 1 || on.count(all) == 0) {
        error += "SHOW RANGES FROM TABLE " + table + " of a reference table: " + r.message + ", " +
                 std::to_string(r.rows.size()) + " ranges, not on \"" + all + "\"\n";
      }
      continue;
    }
    std::string shards;
    for (const auto& s : on) shards += " " + s;
    std::cout << "[ ranges   ] " << table << ": " << r.rows.size() << " ranges on" << shards
              << std::endl;
    if (!r.ok() || (on.size() < 2 && (history || table != "pgbench_history"))) {
      error += "SHOW RANGES FROM TABLE " + table + ": " + r.message + ", " +
               std::to_string(r.rows.size()) + " ranges on" + shards + "\n";
    }
  }
  return error;
}

void PgbenchCluster::restart_proxy() {
  proxy_.reset();
  proxy_ = ProxyProcess::start(config_);
}

std::unique_ptr<ProxyProcess> PgbenchCluster::start_managing_proxy(
    const std::string& ranges) const {
  ProxyConfig config = config_;
  config.ranges = ranges;
  return ProxyProcess::start(config);
}

PgConnPtr PgbenchCluster::direct(int i) const {
  return pq_connect(shards_[i]->dsn("app"));
}

long PgbenchCluster::on_shards(const std::string& sql) const {
  long total = 0;
  for (int i = 0; i < kShards; ++i) {
    auto d = direct(i);
    SqlResult r = pq_exec(d.get(), sql);
    EXPECT_TRUE(r.ok()) << shard_name(i) << ": " << sql << ": " << r.message;
    if (r.ok() && r.at() != "<null>") total += std::stol(r.at());
  }
  return total;
}

long PgbenchCluster::prepared_left() const {
  return on_shards("SELECT count(*) FROM pg_prepared_xacts");
}

std::string PgbenchCluster::prepared_per_shard() const {
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

double PgbenchCluster::wait_until_nothing_prepared(std::chrono::milliseconds limit) const {
  auto start = Clock::now();
  auto deadline = start + limit;
  while (prepared_left() != 0) {
    if (Clock::now() >= deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void PgbenchCluster::expect_each_row_on_one_shard(const std::string& table,
                                                  const std::string& column, long n) const {
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

void PgbenchCluster::expect_bank_invariant(const std::string& note, BankFigures* figures) {
  auto c = pq_connect(proxy_->dsn());
  ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
  const std::vector<std::pair<std::string, std::string>> queries = {
      {"sum(abalance)", "SELECT sum(abalance) FROM pgbench_accounts"},
      {"sum(bbalance)", "SELECT sum(bbalance) FROM pgbench_branches"},
      {"sum(tbalance)", "SELECT sum(tbalance) FROM pgbench_tellers"},
      {"sum(delta)", "SELECT sum(delta) FROM pgbench_history"},
      {"history rows", "SELECT count(*) FROM pgbench_history"},
      {"accounts", "SELECT count(*) FROM pgbench_accounts"}};
  auto& pgr = figures->through_pgrange;
  auto& dir = figures->on_shards;
  std::cout << "[ invariant]";
  for (const auto& [name, sql] : queries) {
    pgr[name] = through_pgrange(c.get(), sql);
    bool whole = reference_ && (name == "sum(bbalance)" || name == "sum(tbalance)");
    if (whole) {
      // A reference table: every shard holds the same rows; one shard's figure is the table's.
      std::vector<std::string> copies;
      for (int i = 0; i < kShards; ++i) {
        auto d = direct(i);
        std::string table = name == "sum(bbalance)" ? "pgbench_branches" : "pgbench_tellers";
        SqlResult r = pq_exec(
            d.get(), "SELECT string_agg(t::text, ',' ORDER BY t::text) FROM " + table + " t");
        EXPECT_TRUE(r.ok()) << shard_name(i) << ": " << r.message;
        copies.push_back(r.ok() ? r.at() : "?");
      }
      for (int i = 1; i < kShards; ++i) {
        EXPECT_EQ(copies[i], copies[0]) << name << ": the copy on " << shard_name(i)
                                        << " differs from the one on " << shard_name(0);
      }
      auto d = direct(0);
      SqlResult r = pq_exec(d.get(), sql);
      dir[name] = r.ok() && r.at() != "<null>" ? std::stol(r.at()) : 0;
    } else {
      dir[name] = on_shards(sql);
    }
    std::cout << " " << name << "=" << pgr[name] << "/" << dir[name];
  }
  std::cout << " (through pgrange/on the shards" << note << ")" << std::endl;
  figures->read = true;
  for (const auto& [name, sql] : queries) {
    EXPECT_EQ(pgr[name], dir[name]) << name << ": through pgrange vs on the shards";
  }
  EXPECT_EQ(dir["sum(abalance)"], dir["sum(bbalance)"]);
  EXPECT_EQ(dir["sum(abalance)"], dir["sum(tbalance)"]);
  EXPECT_EQ(dir["sum(abalance)"], dir["sum(delta)"]);
  EXPECT_EQ(dir["accounts"], kAccounts);

  expect_each_row_on_one_shard("pgbench_accounts", "aid", kAccounts);
  if (reference_) {
    EXPECT_EQ(on_shards("SELECT count(*) FROM pgbench_tellers"), kShards * kTellers);
    EXPECT_EQ(on_shards("SELECT count(*) FROM pgbench_branches"), kShards * kBranches);
    return;
  }
  expect_each_row_on_one_shard("pgbench_tellers", "tid", kTellers);
  expect_each_row_on_one_shard("pgbench_branches", "bid", kBranches);
}

void PgbenchCluster::expect_clean(const PgbenchRun& run) {
  std::string first_errors;
  for (size_t i = 0; i < run.errors.size() && i < 10; ++i) first_errors += run.errors[i] + "\n";
  EXPECT_EQ(run.rc, 0) << run.output << "\nproxy log:\n" << proxy_->log_tail();
  EXPECT_TRUE(run.errors.empty()) << first_errors;
  EXPECT_GT(run.processed, 0) << run.output;
  EXPECT_EQ(run.failed, 0) << run.output;
  EXPECT_TRUE(proxy_->running()) << proxy_->log_tail();
}

}  // namespace pgrange::testing
