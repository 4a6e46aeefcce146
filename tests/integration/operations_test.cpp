// Operating pgrange: its HTTP endpoint (/metrics in Prometheus' text format, parsed by
// prometheus_client's parser; /healthz; the key space page, loaded in headless Chromium), the
// console statements (SHOW POOLS / CLIENTS / SERVERS / STATS / CONFIG / VERSION, RELOAD, PAUSE,
// RESUME) through ordinary connections, RELOAD and SIGHUP with a changed and a broken file,
// JSON log lines and slow statements. Three PostgreSQL 15 shards, real libpq clients.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/http_get.hpp"
#include "tests/support/pg_server.hpp"
#include "tests/support/ports.hpp"
#include "tests/support/process.hpp"
#include "tests/support/proxy_process.hpp"
#include "tests/support/shard_cluster.hpp"
#include "tests/support/text_file.hpp"

namespace pgrange::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr const char* kPython = "/usr/bin/python3";

/// The samples of a /metrics answer as prometheus_client parsed them: "name|labels" → value.
/// Fails the test (and returns nothing) when the parser or the checks reject the text.
std::map<std::string, double> parse_metrics(const std::string& text) {
  int status = -1;
  std::string out = run_command(
      {kPython, std::string(PGRANGE_SOURCE_DIR) + "/tests/integration/prometheus_check.py"}, text,
      &status);
  EXPECT_EQ(status, 0) << out;
  std::map<std::string, double> samples;
  if (status != 0) return samples;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    auto last = line.rfind('|');
    if (last == std::string::npos) continue;
    samples[line.substr(0, last)] = std::stod(line.substr(last + 1));
  }
  return samples;
}

/// The value of one sample ("name|labels"), 0 when absent.
double value(const std::map<std::string, double>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? 0 : it->second;
}

/// The rows of a console statement as maps column → value.
std::vector<std::map<std::string, std::string>> rows_of(PGconn* c, const std::string& sql) {
  PGresult* r = PQexec(c, sql.c_str());
  std::vector<std::map<std::string, std::string>> rows;
  EXPECT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << sql << ": " << PQresultErrorMessage(r);
  for (int i = 0; i < PQntuples(r); ++i) {
    std::map<std::string, std::string> row;
    for (int j = 0; j < PQnfields(r); ++j) {
      row[PQfname(r, j)] = PQgetisnull(r, i, j) ? "<null>" : PQgetvalue(r, i, j);
    }
    rows.push_back(std::move(row));
  }
  PQclear(r);
  return rows;
}

/// `text` with the first `from` replaced by `to` (a failure when there is none).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "no \"" << from << "\" in the configuration";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

class OperationsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    http_port_ = free_port();
    ShardCluster::Options o;
    o.pool_size = 8;
    o.extra_toml =
        "[[table]]\nname = \"ops_ref\"\nreference = true\n[http]\nlisten = \"127.0.0.1:" +
        std::to_string(http_port_) + "\"\n";
    cluster_ = ShardCluster::start(o).release();
    ASSERT_EQ(cluster_->run_setup({
                  "CREATE TABLE ops_kv (id int8 PRIMARY KEY, v text)",
                  "INSERT INTO ops_kv SELECT g, 'v' || g FROM generate_series(1, 3000) g",
                  "ALTER TABLE ops_kv SPLIT AT VALUES (1000), (2000)",
                  "ALTER TABLE ops_kv SCATTER",
                  "CREATE INDEX ops_kv_v ON ops_kv (v)",
                  "CREATE TABLE ops_ref (code text PRIMARY KEY, name text)",
                  "INSERT INTO ops_ref VALUES ('a', 'A'), ('b', 'B')",
              }),
              "");
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  static std::map<std::string, double> scrape() {
    HttpReply r = http_get(http_port_, "/metrics");
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_NE(r.headers.find("text/plain; version=0.0.4"), std::string::npos) << r.headers;
    return parse_metrics(r.body);
  }
  static PgConnPtr admin() { return cluster_->client(); }  // app is an admin in the harness
  static PgConnPtr not_admin() { return pq_connect(cluster_->proxy().dsn("md5user", "md5secret")); }
  static std::string config_path() { return cluster_->proxy().dir() + "/pgrange.toml"; }

  static ShardCluster* cluster_;
  static int http_port_;
};

ShardCluster* OperationsTest::cluster_ = nullptr;
int OperationsTest::http_port_ = 0;

TEST_F(OperationsTest, MetricsAreValidPrometheusTextAndMoveWithTheWork) {
  auto before = scrape();
  ASSERT_FALSE(before.empty());
  auto c = admin();
  ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
  constexpr int kPoints = 40, kFanOuts = 5;
  for (int i = 0; i < kPoints; ++i) {
    EXPECT_EQ(
        pq_exec(c.get(), "SELECT v FROM ops_kv WHERE id = " + std::to_string(1 + i * 70)).at(),
        "v" + std::to_string(1 + i * 70));
  }
  for (int i = 0; i < kFanOuts; ++i) {
    EXPECT_EQ(pq_exec(c.get(), "SELECT count(*) FROM ops_kv").at(), "3000");
  }
  EXPECT_EQ(pq_exec(c.get(), "UPDATE ops_kv SET v = v WHERE id IN (1, 1500, 2500)").tag,
            "UPDATE 3");
  EXPECT_EQ(pq_exec(c.get(), "SELECT * FROM ops_missing").sqlstate, "42P01");
  EXPECT_EQ(pq_exec(c.get(), "SELECT 1/0").sqlstate, "22012");
  auto wrong = pq_connect(cluster_->proxy().dsn("app", "wrong password"));
  EXPECT_NE(PQstatus(wrong.get()), CONNECTION_OK);
  auto after = scrape();

  auto delta = [&](const std::string& key) { return value(after, key) - value(before, key); };
  EXPECT_GE(delta("pgrange_queries_total|route=single_shard"), kPoints);
  EXPECT_GE(delta("pgrange_queries_total|route=fan_out"), kFanOuts);
  EXPECT_GE(delta("pgrange_queries_total|route=multi_shard"), 1);
  EXPECT_GE(delta("pgrange_query_duration_seconds_count|route=single_shard"), kPoints);
  EXPECT_GT(delta("pgrange_query_duration_seconds_sum|route=fan_out"), 0);
  EXPECT_GE(delta("pgrange_transactions_total|"), kPoints + kFanOuts);
  EXPECT_EQ(delta("pgrange_errors_total|sqlstate=42P01"), 1);
  EXPECT_EQ(delta("pgrange_errors_total|sqlstate=22012"), 1);
  EXPECT_EQ(delta("pgrange_client_login_failures_total|"), 1);
  EXPECT_GE(delta("pgrange_client_logins_total|"), 1);
  EXPECT_GE(delta("pgrange_two_phase_commits_total|"), 1);  // the UPDATE over three shards
  double shard_requests = 0;
  for (const char* s : {"s1", "s2", "s3"}) {
    EXPECT_GT(delta(std::string("pgrange_shard_requests_total|shard=") + s), 0) << s;
    shard_requests += delta(std::string("pgrange_shard_requests_total|shard=") + s);
  }
  EXPECT_GE(shard_requests, kPoints + 3 * kFanOuts);
  // This connection is open and idle while the scrape runs.
  EXPECT_GE(value(after, "pgrange_client_connections|state=idle"), 1);
  EXPECT_EQ(value(after, "pgrange_metadata_available|"), 1);
  EXPECT_GT(value(after, "pgrange_range_map_version|"), 0);
  double ranges = 0;
  for (const char* s : {"s1", "s2", "s3"}) {
    ranges += value(after, std::string("pgrange_ranges|shard=") + s);
  }
  EXPECT_EQ(ranges, static_cast<double>(rows_of(c.get(), "SHOW RANGES").size()));
  EXPECT_GE(value(after, "pgrange_range_splits_total|"), 2);  // SPLIT AT (1000), (2000)
  EXPECT_GE(value(after, "pgrange_range_moves_total|"), 1);   // SCATTER
  double idle = 0;
  for (const char* s : {"s1", "s2", "s3"}) {
    idle += value(after, std::string("pgrange_server_connections|shard=") + s + ",state=idle");
  }
  EXPECT_GE(idle, 3);
}

TEST_F(OperationsTest, HotRangesAppearInTheMetrics) {
  auto c = admin();
  // Reads of one range, counted and reported by pgrange every second or two.
  for (int i = 0; i < 300; ++i) pq_exec(c.get(), "SELECT v FROM ops_kv WHERE id = 2500");
  std::string range_id = pq_exec(c.get(), "SHOW RANGE FROM TABLE ops_kv FOR ROW (2500)").at(0, 2);
  auto deadline = steady_clock::now() + std::chrono::seconds(20);
  bool seen = false;
  while (!seen && steady_clock::now() < deadline) {
    for (const auto& [key, v] : scrape()) {
      if (key.rfind("pgrange_range_qps|", 0) == 0 &&
          key.find("range_id=" + range_id + ",") != std::string::npos &&
          key.find("kind=read") != std::string::npos && v > 0) {
        seen = true;
      }
    }
    if (!seen) std::this_thread::sleep_for(milliseconds(500));
  }
  EXPECT_TRUE(seen) << "range " << range_id << " never showed read qps";
}

TEST_F(OperationsTest, ConsoleShowsClientsPoolsServersStatsConfigAndVersion) {
  // One client idle, one inside a transaction block holding a connection to s? (ops_kv 2500's).
  auto idle = pq_connect(cluster_->proxy().dsn("app", "secret", "application_name=ops_idle"));
  auto busy = pq_connect(cluster_->proxy().dsn("app", "secret", "application_name=ops_busy"));
  ASSERT_EQ(PQstatus(busy.get()), CONNECTION_OK) << PQerrorMessage(busy.get());
  ASSERT_TRUE(pq_exec(busy.get(), "BEGIN").ok());
  ASSERT_EQ(pq_exec(busy.get(), "SELECT v FROM ops_kv WHERE id = 2500").at(), "v2500");
  auto c = admin();
  std::string busy_shard = pq_exec(c.get(), "SHOW RANGE FROM TABLE ops_kv FOR ROW (2500)").at(0, 3);

  auto clients = rows_of(c.get(), "SHOW CLIENTS");
  std::map<std::string, std::map<std::string, std::string>> by_app;
  for (auto& r : clients) by_app[r["application_name"]] = r;
  ASSERT_TRUE(by_app.count("ops_idle")) << clients.size();
  ASSERT_TRUE(by_app.count("ops_busy"));
  EXPECT_EQ(by_app["ops_idle"]["state"], "idle");
  EXPECT_EQ(by_app["ops_idle"]["user"], "app");
  EXPECT_EQ(by_app["ops_idle"]["addr"], "127.0.0.1");
  EXPECT_EQ(by_app["ops_idle"]["shard"], "<null>");
  EXPECT_EQ(by_app["ops_busy"]["state"], "idle in transaction");
  EXPECT_EQ(by_app["ops_busy"]["shard"], busy_shard);
  EXPECT_EQ(by_app["ops_busy"]["type"], "C");
  EXPECT_EQ(by_app[""]["state"], "active");  // the one asking
  EXPECT_EQ(by_app[""]["route"], "pgrange");

  auto servers = rows_of(c.get(), "SHOW SERVERS");
  int active_on_busy = 0;
  for (auto& s : servers) {
    EXPECT_EQ(s["type"], "S");
    EXPECT_EQ(s["user"], "postgres");  // the harness's shard DSNs force that role
    EXPECT_NE(s["remote_pid"], "0");
    if (s["shard"] == busy_shard && s["state"] == "active") ++active_on_busy;
  }
  EXPECT_EQ(active_on_busy, 1);

  auto pools = rows_of(c.get(), "SHOW POOLS");
  std::map<std::string, std::map<std::string, std::string>> pool;
  for (auto& p : pools) pool[p["shard"]] = p;
  ASSERT_EQ(pool.size(), 3u);
  EXPECT_EQ(pool[busy_shard]["sv_active"], "1");
  EXPECT_EQ(pool[busy_shard]["pool_mode"], "transaction");
  EXPECT_EQ(pool[busy_shard]["paused"], "f");
  EXPECT_EQ(pool["s1"]["database"], "app");

  auto stats = rows_of(c.get(), "SHOW STATS");
  ASSERT_EQ(stats.size(), 4u);  // the clients' row, then one per shard
  EXPECT_EQ(stats[0]["shard"], "*");
  EXPECT_GT(std::stoll(stats[0]["total_query_count"]), 0);
  for (size_t i = 1; i < stats.size(); ++i) {
    EXPECT_EQ(stats[i]["shard"], "s" + std::to_string(i));
    EXPECT_GT(std::stoll(stats[i]["total_query_count"]), 0) << stats[i]["shard"];
  }

  auto config = rows_of(c.get(), "SHOW CONFIG");
  std::map<std::string, std::map<std::string, std::string>> key;
  for (auto& r : config) {
    key[r["key"]] = r;
    // No password, in the users' entries or the DSNs, is ever shown.
    EXPECT_EQ(r["value"].find("secret"), std::string::npos) << r["key"];
  }
  EXPECT_EQ(key["shard.s1.pool_size"]["value"], "8");
  EXPECT_EQ(key["shard.s1.pool_size"]["changeable"], "t");
  EXPECT_EQ(key["workers"]["changeable"], "f");
  EXPECT_EQ(key["user.app.password"]["value"], "********");
  EXPECT_EQ(key["http.listen"]["value"], "127.0.0.1:" + std::to_string(http_port_));

  auto version = rows_of(c.get(), "SHOW VERSION");
  ASSERT_EQ(version.size(), 1u);
  EXPECT_EQ(version[0]["version"].rfind("pgrange ", 0), 0u) << version[0]["version"];

  // Through the extended protocol too (as drivers send it).
  PGresult* r = PQexecParams(c.get(), "SHOW POOLS", 0, nullptr, nullptr, nullptr, nullptr, 0);
  EXPECT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
  EXPECT_EQ(PQntuples(r), 3);
  PQclear(r);
  EXPECT_TRUE(pq_exec(busy.get(), "COMMIT").ok());
}

TEST_F(OperationsTest, ConsoleShowsRunInsideTransactionBlocks) {
  // As psycopg2 with autocommit off sends them: a BEGIN first.
  auto c = admin();
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  SqlResult pools = pq_exec(c.get(), "SHOW POOLS");
  EXPECT_TRUE(pools.ok()) << pools.message;
  EXPECT_EQ(pools.rows.size(), 3u);
  EXPECT_EQ(PQtransactionStatus(c.get()), PQTRANS_INTRANS);
  EXPECT_EQ(pq_exec(c.get(), "SELECT v FROM ops_kv WHERE id = 7").at(), "v7");
  EXPECT_TRUE(pq_exec(c.get(), "SHOW CLIENTS").ok());
  // What changes pgrange's state does not run inside a block.
  EXPECT_EQ(pq_exec(c.get(), "RELOAD").sqlstate, "25001");
  EXPECT_EQ(pq_exec(c.get(), "SHOW STATS").sqlstate, "25P02");  // the block failed
  EXPECT_TRUE(pq_exec(c.get(), "ROLLBACK").ok());
  EXPECT_TRUE(pq_exec(c.get(), "SHOW STATS").ok());
}

TEST_F(OperationsTest, TheConsoleIsForAdminsOnly) {
  auto c = not_admin();
  ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
  for (const char* sql : {"SHOW POOLS", "SHOW CLIENTS", "SHOW SERVERS", "SHOW STATS", "SHOW CONFIG",
                          "SHOW VERSION", "RELOAD", "PAUSE s1", "RESUME"}) {
    SqlResult r = pq_exec(c.get(), sql);
    EXPECT_EQ(r.sqlstate, "42501") << sql << ": " << r.message;
    EXPECT_NE(r.message.find("admin = true"), std::string::npos) << r.message;
  }
  // The shards were never paused by it.
  EXPECT_EQ(pq_exec(c.get(), "SELECT count(*) FROM ops_ref").at(), "2");
  EXPECT_EQ(value(scrape(), "pgrange_shard_paused|shard=s1"), 0);
}

TEST_F(OperationsTest, ReloadAppliesAChangedFileAndRefusesABrokenOne) {
  const std::string path = config_path();
  const std::string original = read_text(path);
  auto c = admin();
  // Connections to s1 that the smaller pool must give up: six transactions at once.
  std::vector<PgConnPtr> holders;
  for (int i = 0; i < 6; ++i) {
    holders.push_back(cluster_->client());
    ASSERT_TRUE(pq_exec(holders.back().get(), "BEGIN").ok());
    ASSERT_TRUE(pq_exec(holders.back().get(), "SELECT v FROM ops_kv WHERE id = 5").ok());
  }
  for (auto& h : holders) ASSERT_TRUE(pq_exec(h.get(), "COMMIT").ok());
  std::string first_shard = pq_exec(c.get(), "SHOW RANGE FROM TABLE ops_kv FOR ROW (5)").at(0, 3);
  auto open_to = [&](const std::string& shard) {
    int n = 0;
    for (auto& s : rows_of(c.get(), "SHOW SERVERS")) n += s["shard"] == shard ? 1 : 0;
    return n;
  };
  ASSERT_GE(open_to(first_shard), 4);

  // A smaller pool for that shard, a new user and another log level: applied, nobody dropped.
  std::string changed = original;
  {
    auto at = changed.find("name = \"" + first_shard + "\"");
    auto pool = changed.find("pool_size = 8", at);
    ASSERT_NE(pool, std::string::npos);
    changed.replace(pool, 13, "pool_size = 2");
  }
  changed = replaced(changed, "log_level = \"info\"", "log_level = \"debug\"");
  changed += "\n[[user]]\nname = \"newcomer\"\npassword = \"new-pw\"\n";
  write_text(path, changed);
  SqlResult reload = pq_exec(c.get(), "RELOAD");
  EXPECT_TRUE(reload.ok()) << reload.message;
  EXPECT_EQ(reload.tag, "RELOAD");
  auto config = rows_of(c.get(), "SHOW CONFIG");
  std::map<std::string, std::string> key;
  for (auto& r : config) key[r["key"]] = r["value"];
  EXPECT_EQ(key["shard." + first_shard + ".pool_size"], "2");
  EXPECT_EQ(key["log_level"], "debug");
  for (auto& p : rows_of(c.get(), "SHOW POOLS")) {
    if (p["shard"] == first_shard) {
      EXPECT_EQ(p["pool_size"], "2");
    }
  }
  // Idle connections past the new size closed (two workers: one each at most).
  EXPECT_LE(open_to(first_shard), 2);
  for (auto& h : holders) {
    EXPECT_EQ(pq_exec(h.get(), "SELECT v FROM ops_kv WHERE id = 5").at(), "v5");
  }
  auto newcomer = pq_connect(cluster_->proxy().dsn("newcomer", "new-pw"));
  EXPECT_EQ(PQstatus(newcomer.get()), CONNECTION_OK) << PQerrorMessage(newcomer.get());
  EXPECT_NE(cluster_->proxy().log().find("read again, changed:"), std::string::npos);

  // A file that does not parse: refused with the reason, the settings in use stay.
  write_text(path, changed + "\nbroken = \n");
  SqlResult broken = pq_exec(c.get(), "RELOAD");
  EXPECT_EQ(broken.sqlstate, "F0000") << broken.message;
  EXPECT_NE(broken.message.find("syntax error at line"), std::string::npos) << broken.message;
  EXPECT_NE(broken.message.find("the settings in use stay"), std::string::npos);
  // What only a restart changes: refused, naming the key.
  write_text(path, replaced(changed, "workers = 2", "workers = 3"));
  SqlResult restart = pq_exec(c.get(), "RELOAD");
  EXPECT_EQ(restart.sqlstate, "F0000");
  EXPECT_NE(restart.message.find("only a restart changes (workers)"), std::string::npos)
      << restart.message;
  for (auto& r : rows_of(c.get(), "SHOW CONFIG")) {
    if (r["key"] == "workers") {
      EXPECT_EQ(r["value"], "2");
    }
    if (r["key"] == "log_level") {
      EXPECT_EQ(r["value"], "debug");
    }
  }

  // SIGHUP reads the file again: back to the original (the newcomer goes, the pool grows back).
  write_text(path, original);
  ASSERT_TRUE(cluster_->proxy().process().signal(SIGHUP));
  auto deadline = steady_clock::now() + std::chrono::seconds(10);
  std::string level;
  while (level != "info" && steady_clock::now() < deadline) {
    for (auto& r : rows_of(c.get(), "SHOW CONFIG")) {
      if (r["key"] == "log_level") level = r["value"];
    }
    if (level != "info") std::this_thread::sleep_for(milliseconds(50));
  }
  EXPECT_EQ(level, "info");
  auto gone = pq_connect(cluster_->proxy().dsn("newcomer", "new-pw"));
  EXPECT_NE(PQstatus(gone.get()), CONNECTION_OK);
  // The connection logged in before that stays.
  EXPECT_EQ(pq_exec(newcomer.get(), "SELECT count(*) FROM ops_ref").at(), "2");
}

TEST_F(OperationsTest, PauseDrainsAShardUntilResume) {
  auto c = admin();
  std::string shard = pq_exec(c.get(), "SHOW RANGE FROM TABLE ops_kv FOR ROW (1500)").at(0, 3);
  std::string other_id;
  for (int id : {5, 2500}) {
    if (pq_exec(c.get(), "SHOW RANGE FROM TABLE ops_kv FOR ROW (" + std::to_string(id) + ")")
            .at(0, 3) != shard) {
      other_id = std::to_string(id);
    }
  }
  ASSERT_FALSE(other_id.empty());
  // A transaction holds a connection to the shard: PAUSE waits for it.
  auto open_txn = cluster_->client();
  ASSERT_TRUE(pq_exec(open_txn.get(), "BEGIN").ok());
  ASSERT_TRUE(pq_exec(open_txn.get(), "UPDATE ops_kv SET v = 'paused' WHERE id = 1500").ok());
  std::atomic<bool> paused{false};
  std::string pause_error;
  std::thread pauser([&] {
    auto a = admin();
    SqlResult r = pq_exec(a.get(), "PAUSE " + shard);
    if (!r.ok()) pause_error = r.message;
    paused = true;
  });
  std::this_thread::sleep_for(milliseconds(700));
  EXPECT_FALSE(paused.load()) << "PAUSE returned while a transaction held a connection";
  EXPECT_EQ(value(scrape(), "pgrange_shard_paused|shard=" + shard), 1);
  ASSERT_TRUE(pq_exec(open_txn.get(), "COMMIT").ok());
  pauser.join();
  EXPECT_EQ(pause_error, "");
  for (auto& s : rows_of(c.get(), "SHOW SERVERS")) {
    EXPECT_NE(s["shard"], shard) << "a connection to the paused shard is still open";
  }
  for (auto& p : rows_of(c.get(), "SHOW POOLS")) {
    EXPECT_EQ(p["paused"], p["shard"] == shard ? "t" : "f") << p["shard"];
  }
  // New work for the shard waits; other shards go on.
  std::atomic<bool> answered{false};
  std::string read;
  std::thread waiter([&] {
    auto w = cluster_->client();
    read = pq_exec(w.get(), "SELECT v FROM ops_kv WHERE id = 1500").at();
    answered = true;
  });
  EXPECT_EQ(pq_exec(c.get(), "SELECT v FROM ops_kv WHERE id = " + other_id).at(), "v" + other_id);
  std::this_thread::sleep_for(milliseconds(500));
  EXPECT_FALSE(answered.load()) << "a read of the paused shard was answered";
  EXPECT_TRUE(pq_exec(c.get(), "RESUME " + shard).ok());
  waiter.join();
  EXPECT_EQ(read, "paused");
  EXPECT_EQ(pq_exec(c.get(), "UPDATE ops_kv SET v = 'v1500' WHERE id = 1500").tag, "UPDATE 1");
  EXPECT_EQ(pq_exec(c.get(), "PAUSE nosuchshard").sqlstate, "42704");
}

TEST_F(OperationsTest, TheKeySpacePageDrawsEveryRangeInChromium) {
  auto c = admin();
  std::string ranges = std::to_string(rows_of(c.get(), "SHOW RANGES").size());
  HttpReply api = http_get(http_port_, "/api/ranges");
  ASSERT_EQ(api.status, 200) << api.body;
  EXPECT_NE(api.body.find("\"table\":\"ops_kv\""), std::string::npos);
  EXPECT_NE(api.body.find("\"index\":\"ops_kv_v\""), std::string::npos);
  HttpReply page = http_get(http_port_, "/");
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("<html"), std::string::npos);
  EXPECT_EQ(http_get(http_port_, "/nothing-here").status, 404);
  // The artifact stays in the build tree for a look after the run.
  std::string shot = std::string(PGRANGE_BINARY_DIR) + "/test-artifacts/key_space_page.png";
  run_command({"mkdir", "-p", std::string(PGRANGE_BINARY_DIR) + "/test-artifacts"});
  int status = -1;
  std::string out = run_command(
      {kPython, std::string(PGRANGE_SOURCE_DIR) + "/tests/integration/key_space_page_check.py",
       "--url", "http://127.0.0.1:" + std::to_string(http_port_) + "/", "--expect-ranges", ranges,
       "--screenshot", shot},
      "", &status, std::chrono::seconds(120));
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("OK: key space page"), std::string::npos) << out;
}

TEST_F(OperationsTest, HealthzFollowsTheShards) {
  HttpReply ok = http_get(http_port_, "/healthz");
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_NE(ok.body.find("\"status\":\"ok\""), std::string::npos) << ok.body;
  cluster_->shard(2).stop();
  std::this_thread::sleep_for(milliseconds(1100));  // past the one-second cache
  HttpReply down = http_get(http_port_, "/healthz");
  EXPECT_EQ(down.status, 503) << down.body;
  EXPECT_NE(down.body.find("\"s3\":"), std::string::npos) << down.body;
  EXPECT_EQ(down.body.find("\"s3\":\"ok\""), std::string::npos) << down.body;
  EXPECT_NE(down.body.find("\"s1\":\"ok\""), std::string::npos) << down.body;
  cluster_->shard(2).start_again();
  std::this_thread::sleep_for(milliseconds(1100));
  HttpReply back = http_get(http_port_, "/healthz");
  EXPECT_EQ(back.status, 200) << back.body;
}

/// JSON log lines and slow statements, with one shard.
class LogLinesTest : public ::testing::Test {};

TEST_F(LogLinesTest, JsonLinesAndSlowStatementsWithTheirRoute) {
  PgServer::Options o;
  o.databases = {"app"};
  auto server = PgServer::start(o);
  ProxyConfig cfg = ProxyConfig::with_shard(server->dsn("app"));
  auto proxy =
      ProxyProcess::start_toml("log_format = \"json\"\nslow_statement_ms = 500\n" + cfg.to_toml());
  auto c = pq_connect(proxy->dsn());
  ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
  ASSERT_TRUE(pq_exec(c.get(), "CREATE TABLE slow_t (id int8 PRIMARY KEY, v text)").ok());
  ASSERT_TRUE(pq_exec(c.get(), "INSERT INTO slow_t VALUES (1, 'a\"b')").ok());
  EXPECT_TRUE(pq_exec(c.get(), "SELECT pg_sleep(0.6), v FROM slow_t WHERE id = 1").ok());
  EXPECT_TRUE(pq_exec(c.get(), "SELECT v FROM slow_t WHERE id = 1").ok());  // quick: not logged
  // A slow statement that mentions a password is logged without its text.
  EXPECT_TRUE(pq_exec(c.get(), "SELECT pg_sleep(0.6) /* PASSWORD 'hunter2' */").ok());
  auto wrong = pq_connect(proxy->dsn("app", "not-the-password"));
  std::string log = proxy->log();
  // Every line is one JSON object (checked by Python's own parser).
  std::string check =
      "import json,sys\n"
      "n=0\n"
      "for line in sys.stdin:\n"
      "  if not line.strip(): continue\n"
      "  o=json.loads(line); n+=1\n"
      "  assert set(o)=={'time','level','thread','msg'}, o\n"
      "  assert o['time'].endswith('Z'), o\n"
      "print(n)\n";
  int status = -1;
  std::string out = run_command({kPython, "-c", check}, log, &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_GT(std::atoi(out.c_str()), 3) << out;
  // Only the two sleeping statements are surely slow; on a loaded machine the CREATE TABLE or
  // the INSERT may pass the threshold too, so their lines are not counted.
  int sleep_lines = 0;
  int withheld_lines = 0;
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("slow statement") == std::string::npos) continue;
    EXPECT_NE(line.find("\"level\":\"warning\""), std::string::npos) << line;
    EXPECT_EQ(line.find("SELECT v FROM slow_t"), std::string::npos) << "quick statement: " << line;
    if (line.find("withheld") != std::string::npos) {  // reads no table: any shard
      ++withheld_lines;
      EXPECT_NE(line.find("route single_shard"), std::string::npos) << line;
      continue;
    }
    if (line.find("pg_sleep(0.6)") == std::string::npos) continue;
    ++sleep_lines;
    EXPECT_NE(line.find("route single_shard"), std::string::npos) << line;
    EXPECT_NE(line.find("shards [s1]"), std::string::npos) << line;
  }
  EXPECT_EQ(sleep_lines, 1) << log;
  EXPECT_EQ(withheld_lines, 1) << log;
  EXPECT_NE(log.find("statement text withheld: it mentions a password"), std::string::npos);
  EXPECT_EQ(log.find("hunter2"), std::string::npos) << log;
  EXPECT_EQ(log.find("not-the-password"), std::string::npos);
  EXPECT_EQ(log.find("secret"), std::string::npos);
}

TEST(DockerConfig, TheComposeFilesConfigurationIsValid) {
  int status = -1;
  std::string binary = std::string(PGRANGE_BINARY_DIR) + "/proxy/pgrange";
  std::string out = run_command(
      {binary, "--check-config", std::string(PGRANGE_SOURCE_DIR) + "/docker/pgrange.toml"}, "",
      &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("configuration is valid"), std::string::npos) << out;
}

}  // namespace
}  // namespace pgrange::testing
