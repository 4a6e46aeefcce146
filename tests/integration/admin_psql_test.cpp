// pgrange's admin statements (SPLIT AT, UNSPLIT, SCATTER, RELOCATE, SHOW RANGES, SHOW RANGE …
// FOR ROW, SHOW SHARDS) typed into real psql against a pgrange over three PostgreSQL shards;
// the output must match tests/integration/expected/<script>.out exactly.
//
// PGRANGE_UPDATE_EXPECTED=1 rewrites the expected files from the actual output (read them before
// committing: they are the specification). On a mismatch the actual output is written to
// <build dir>/tests/integration/admin_psql_actual/<script>.out.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/pg_server.hpp"
#include "tests/support/process.hpp"
#include "tests/support/proxy_process.hpp"
#include "tests/support/text_file.hpp"

namespace pgrange::testing {
namespace {

constexpr int kShards = 3;

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

bool update_expected() {
  const char* v = std::getenv("PGRANGE_UPDATE_EXPECTED");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

/// Three PostgreSQL servers (shards s1, s2, s3) for the whole suite; each test runs its script
/// through a pgrange of its own over databases of its own (and its own metadata database), so
/// table ids start at 100 and range ids at 2 in every script, whatever ran before.
class AdminPsqlTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (int i = 0; i < kShards; ++i) servers_[i] = PgServer::start().release();
  }
  static void TearDownTestSuite() {
    for (auto*& s : servers_) {
      delete s;
      s = nullptr;
    }
  }
  void TearDown() override { proxy_.reset(); }

  static std::string shard_name(int i) { return "s" + std::to_string(i + 1); }

  /// Starts pgrange over database `db` on the three servers.
  void start_proxy(const std::string& db) {
    ProxyConfig cfg = ProxyConfig::with_shard("", 8);
    cfg.shards.clear();
    for (int i = 0; i < kShards; ++i) {
      servers_[i]->exec("CREATE DATABASE " + db);
      ProxyConfig::Shard s;
      s.name = shard_name(i);
      s.dsn = servers_[i]->dsn(db);
      s.pool_size = 8;
      cfg.shards.push_back(s);
    }
    // EXPLAIN's expected output has no size estimates: without this, whether the shards'
    // sizes were read before the statement depends on the machine's speed.
    cfg.table_sizes_interval_ms = 0;
    // Nor rates of requests (SHOW RANGES … WITH DETAILS' qps): nothing is counted.
    cfg.ranges += "count_load = false\n";
    cfg.extra_toml = "\n[metadata]\ndsn = \"" + servers_[0]->dsn(db + "_meta") +
                     "\"\n\n[[table]]\nname = \"tk\"\nkey = [\"k\"]\n";
    proxy_ = ProxyProcess::start(cfg);
    db_ = db;
  }

  /// Runs tests/integration/sql/<name>.sql with psql through pgrange; returns stdout+stderr
  /// with the shards' ports (five digits) replaced by PORT1, PORT2, PORT3, so columns stay
  /// aligned. Throws when psql does not finish within `timeout`.
  std::string run_script(const std::string& name, int* exit_code, std::chrono::seconds timeout) {
    ProcessOptions po;
    po.argv = {pg_bin("psql"), "-X",          "-a", "-v",         "ON_ERROR_STOP=0",
               "-d",           proxy_->dsn(), "-f", name + ".sql"};
    // Relative script path: psql prefixes errors with it.
    po.working_dir = std::string(PGRANGE_SOURCE_DIR) + "/tests/integration/sql";
    po.env = {{"PGCONNECT_TIMEOUT", "20"}, {"PGOPTIONS", ""},  {"PGTZ", "UTC"}, {"LC_ALL", "C"},
              {"PGDATESTYLE", ""},         {"PSQL_PAGER", ""}, {"PAGER", ""}};
    std::string out = run_process(po, "", exit_code, timeout);
    for (int i = 0; i < kShards; ++i) {
      out = replace_all(out, "port=" + std::to_string(servers_[i]->port()),
                        "port=PORT" + std::to_string(i + 1));
    }
    return out;
  }

  /// Runs the script and compares its output with the expected file.
  void expect_script_output(const std::string& name,
                            std::chrono::seconds timeout = std::chrono::seconds(60)) {
    int rc = -1;
    std::string actual;
    try {
      actual = run_script(name, &rc, timeout);
    } catch (const std::exception& e) {
      ADD_FAILURE() << name << ": psql did not finish: " << e.what() << "\npgrange log:\n"
                    << proxy_->log_tail();
      return;
    }
    EXPECT_EQ(rc, 0) << actual.substr(0, 3000);
    std::string expected_path =
        std::string(PGRANGE_SOURCE_DIR) + "/tests/integration/expected/" + name + ".out";
    if (update_expected()) {
      write_text(expected_path, actual);
      std::cout << "rewrote " << expected_path << "\n";
    } else {
      std::string expected = read_text(expected_path);
      std::string actual_path =
          std::string(PGRANGE_BINARY_DIR) + "/tests/integration/admin_psql_actual/" + name + ".out";
      if (expected != actual) write_text(actual_path, actual);
      EXPECT_TRUE(expected == actual)
          << name << ": output differs from " << expected_path << " at "
          << first_difference(expected, actual) << "\n(\"direct\" is the expected line, \"proxy\" "
          << "the actual one; the whole actual output is in " << actual_path << ")\npgrange log:\n"
          << proxy_->log_tail();
    }
    EXPECT_TRUE(proxy_->running()) << proxy_->log_tail();
  }

  /// A connection through pgrange.
  PgConnPtr proxy_conn() {
    auto c = pq_connect(proxy_->dsn());
    EXPECT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
    return c;
  }

  /// A connection straight to shard i (not through pgrange).
  PgConnPtr shard_conn(int i) {
    auto c = pq_connect(servers_[i]->dsn(db_));
    EXPECT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
    return c;
  }

  /// Checks, on each shard directly, that every row of `table` lies in a range SHOW RANGES
  /// assigns to that shard, and that the shards together hold `expected_rows` rows, each once.
  /// `key_sql` selects the key columns as SQL literals (joined into a FOR ROW tuple).
  void expect_rows_where_ranges_say(PGconn* proxy, const std::string& table,
                                    const std::string& key_sql, size_t expected_rows) {
    SCOPED_TRACE("table " + table);
    SqlResult ranges = pq_exec(proxy, "show ranges from table " + table);
    ASSERT_TRUE(ranges.ok()) << ranges.message;
    std::map<std::string, std::string> shard_of_range;  // range_id -> shard
    for (const auto& r : ranges.rows) shard_of_range[r.at(2)] = r.at(3);
    std::set<std::string> seen;
    for (int i = 0; i < kShards; ++i) {
      auto c = shard_conn(i);
      SqlResult rows = pq_exec(c.get(), "select " + key_sql + " from " + table);
      ASSERT_TRUE(rows.ok()) << rows.message;
      for (const auto& row : rows.rows) {
        const std::string& key = row.at(0);
        EXPECT_TRUE(seen.insert(key).second) << "row " << key << " is on more than one shard";
        SqlResult where =
            pq_exec(proxy, "show range from table " + table + " for row (" + key + ")");
        ASSERT_TRUE(where.ok()) << where.message;
        EXPECT_EQ(where.at(0, 3), shard_name(i))
            << "row (" << key << ") is on shard " << shard_name(i) << " but in range "
            << where.at(0, 2) << " of shard " << where.at(0, 3);
        EXPECT_EQ(shard_of_range[where.at(0, 2)], shard_name(i))
            << "SHOW RANGES puts range " << where.at(0, 2) << " elsewhere";
      }
    }
    EXPECT_EQ(seen.size(), expected_rows);
  }

  static PgServer* servers_[kShards];
  std::unique_ptr<ProxyProcess> proxy_;
  std::string db_;
};

PgServer* AdminPsqlTest::servers_[kShards] = {};

TEST_F(AdminPsqlTest, SplitAndUnsplit) {
  start_proxy("admin_split");
  expect_script_output("admin_split");
}

TEST_F(AdminPsqlTest, ShowRangesAndShards) {
  start_proxy("admin_show");
  expect_script_output("admin_show");
}

TEST_F(AdminPsqlTest, ScatterAndRelocate) {
  start_proxy("admin_move");
  expect_script_output("admin_move");
  auto proxy = proxy_conn();

  // An int8 key is placed by comparing it with the split points SHOW RANGES prints
  // (…/<TableMin>, …/1/N, …/<TableMax>), independently of SHOW RANGE … FOR ROW.
  SqlResult ranges = pq_exec(proxy.get(), "show ranges from table ti");
  ASSERT_TRUE(ranges.ok()) << ranges.message;
  auto bound = [](const std::string& pretty) -> int64_t {
    if (pretty == "…/<TableMin>") return INT64_MIN;
    if (pretty == "…/<TableMax>") return INT64_MAX;
    EXPECT_EQ(pretty.rfind("…/1/", 0), 0u) << pretty;
    return std::stoll(pretty.substr(std::string("…/1/").size()));
  };
  std::map<int64_t, int64_t> expected_count;  // id -> times seen
  for (int i = 0; i < kShards; ++i) {
    auto c = shard_conn(i);
    SqlResult rows = pq_exec(c.get(), "select id from ti");
    ASSERT_TRUE(rows.ok()) << rows.message;
    for (const auto& row : rows.rows) {
      int64_t id = std::stoll(row.at(0));
      ++expected_count[id];
      std::string owner;
      for (const auto& r : ranges.rows) {
        if (bound(r.at(0)) <= id && id < bound(r.at(1))) owner = r.at(3);
      }
      EXPECT_EQ(owner, shard_name(i)) << "ti row " << id << " is on " << shard_name(i);
    }
  }
  EXPECT_EQ(expected_count.size(), 20u);
  for (auto& [id, n] : expected_count) EXPECT_EQ(n, 1) << "ti row " << id;

  expect_rows_where_ranges_say(proxy.get(), "ti", "id::text", 20);
  expect_rows_where_ranges_say(proxy.get(), "tt", "quote_literal(name)", 6);
  expect_rows_where_ranges_say(proxy.get(), "tc", "a || ', ' || quote_literal(b)", 6);
  expect_rows_where_ranges_say(proxy.get(), "tu", "quote_literal(id)", 4);
  // The unsharded table is one range: all its rows on that range's shard, none elsewhere.
  expect_rows_where_ranges_say(proxy.get(), "tn", "x::text", 7);
}

TEST_F(AdminPsqlTest, TransactionBlocksAndMalformedStatements) {
  start_proxy("admin_errors");
  expect_script_output("admin_errors");
  // Admin statements run through the extended protocol too, answering as the simple one does;
  // a Describe of the prepared statement (before it ran) is refused.
  auto proxy = proxy_conn();
  PGresult* res = PQprepare(proxy.get(), "", "show ranges", 0, nullptr);
  SqlResult prepared = take_result(res, proxy.get());
  EXPECT_EQ(prepared.status, PGRES_COMMAND_OK) << prepared.message;
  SqlResult described = take_result(PQdescribePrepared(proxy.get(), ""), proxy.get());
  EXPECT_EQ(described.sqlstate, "0A000")
      << PQresStatus(described.status) << " " << described.message;
  SqlResult bound = take_result(
      PQexecParams(proxy.get(), "show ranges", 0, nullptr, nullptr, nullptr, nullptr, 0),
      proxy.get());
  SqlResult simple = pq_exec(proxy.get(), "show ranges");
  EXPECT_EQ(bound.status, PGRES_TUPLES_OK) << bound.message;
  EXPECT_EQ(bound.rows, simple.rows);
  EXPECT_FALSE(bound.rows.empty());
  EXPECT_EQ(pq_exec(proxy.get(), "select 1").at(), "1");
}

// The scripts below record answers pgrange does not give yet (their expected files say what
// the answer should be).

TEST_F(AdminPsqlTest, AdminStatementAfterAStatementInTheSameTransaction) {
  start_proxy("admin_in_transaction");
  expect_script_output("admin_in_transaction", std::chrono::seconds(15));
}

TEST_F(AdminPsqlTest, AnswersAgreeWithTheRangeMap) {
  start_proxy("admin_answers");
  expect_script_output("admin_answers");
}

}  // namespace
}  // namespace pgrange::testing
