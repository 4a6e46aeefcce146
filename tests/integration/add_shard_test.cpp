// A shard added to the configuration and RELOADed, while clients write: pgrange brings it up
// (the cluster's schema and the reference tables' rows), every worker and open session takes
// it, ranges move to it and new tables use it, and no write is lost on the way, to the sharded
// table or to the reference table every shard holds. What RELOAD cannot do (remove a shard,
// change the shards' order, add one that does not answer, add one while a transaction stays
// open) is refused and changes nothing. Real PostgreSQL 15 servers, real libpq clients.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/pg_server.hpp"
#include "tests/support/ports.hpp"
#include "tests/support/proxy_process.hpp"
#include "tests/support/shard_cluster.hpp"
#include "tests/support/text_file.hpp"

namespace pgrange::testing {
namespace {

std::string shard_entry(const std::string& name, const std::string& dsn) {
  return "\n[[shard]]\nname = \"" + name + "\"\ndsn = \"" + dsn + "\"\npool_size = 8\n";
}

/// Clients that keep writing through pgrange: single-row increments of the sharded table and
/// rows added to the reference table, each counted once pgrange acknowledged it.
class Writers {
 public:
  Writers(ShardCluster& cluster, int64_t rows) {
    for (int w = 0; w < 2; ++w) {
      threads_.emplace_back([this, &cluster, rows, w] {
        auto c = cluster.client();
        for (int64_t i = w; !stop_; ++i) {
          std::string id = std::to_string(i % rows + 1);
          SqlResult r = pq_exec(c.get(), "UPDATE grow_kv SET n = n + 1 WHERE id = " + id);
          if (r.ok() && r.tag == "UPDATE 1") {
            ++increments_;
          } else {
            failed(r);
          }
        }
      });
    }
    // Transactions over two shards: each UPDATE takes its shard's connection in turn.
    threads_.emplace_back([this, &cluster, rows] {
      auto c = cluster.client();
      for (int64_t i = 0; !stop_; ++i) {
        std::string a = std::to_string(i % (rows / 2) + 1);
        std::string b = std::to_string(i % (rows / 2) + 1 + rows / 2);
        SqlResult r = pq_exec(c.get(), "BEGIN");
        if (r.ok()) r = pq_exec(c.get(), "UPDATE grow_kv SET n = n + 1 WHERE id = " + a);
        if (r.ok()) r = pq_exec(c.get(), "UPDATE grow_kv SET n = n + 1 WHERE id = " + b);
        if (r.ok()) r = pq_exec(c.get(), "COMMIT");
        if (r.ok() && r.tag == "COMMIT") {
          increments_ += 2;
        } else {
          if (r.ok()) {  // COMMIT answered ROLLBACK
            r.sqlstate = "XX000";
            r.message = "COMMIT answered " + r.tag;
          }
          failed(r);
          pq_exec(c.get(), "ROLLBACK");
        }
      }
    });
    threads_.emplace_back([this, &cluster] {
      auto c = cluster.client();
      for (int i = 0; !stop_; ++i) {
        SqlResult r = pq_exec(c.get(), "INSERT INTO grow_ref VALUES ('w" + std::to_string(i) +
                                           "', 'written while adding')");
        if (r.ok()) {
          ++references_;
        } else {
          failed(r);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
  }
  ~Writers() { stop(); }
  void stop() {
    stop_ = true;
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
  }
  int64_t increments() const { return increments_; }
  int64_t references() const { return references_; }
  int64_t failures() const { return failures_; }
  int64_t retries() const { return retries_; }
  std::string last_error() const {
    std::lock_guard lock(mu_);
    return last_error_;
  }

 private:
  void failed(const SqlResult& r) {
    // A statement that waited through the RELOAD may be asked to run again (40001): it did
    // nothing. Anything else is a failure.
    if (r.sqlstate == "40001") {
      ++retries_;
      return;
    }
    ++failures_;
    const std::string& message = r.message;
    std::lock_guard lock(mu_);
    last_error_ = message;
  }

  std::atomic<bool> stop_{false};
  std::atomic<int64_t> increments_{0}, references_{0}, failures_{0}, retries_{0};
  mutable std::mutex mu_;
  std::string last_error_;
  std::vector<std::thread> threads_;
};

class AddShardTest : public ::testing::Test {
 protected:
  static constexpr int64_t kRows = 4000;

  static void SetUpTestSuite() {
    ShardCluster::Options o;
    o.shards = 2;
    o.extra_toml = "[[table]]\nname = \"grow_ref\"\nreference = true\n";
    cluster_ = ShardCluster::start(o).release();
    ASSERT_EQ(cluster_->run_setup({
                  "CREATE TABLE grow_kv (id int8 PRIMARY KEY, n int8 NOT NULL DEFAULT 0)",
                  "INSERT INTO grow_kv (id) SELECT g FROM generate_series(1, 4000) g",
                  "ALTER TABLE grow_kv SPLIT AT VALUES (1000), (2000), (3000)",
                  "ALTER TABLE grow_kv SCATTER",
                  "CREATE INDEX grow_kv_n ON grow_kv (n) WITH (local)",
                  "CREATE TABLE grow_ref (code text PRIMARY KEY, name text NOT NULL)",
                  "INSERT INTO grow_ref VALUES ('eu', 'Europe'), ('us', 'Americas')",
                  // Owners and grants a new shard must have too (clients that log in to the
                  // shards as their own roles need them).
                  "CREATE ROLE grower",
                  "ALTER TABLE grow_ref OWNER TO grower",
                  "GRANT SELECT ON grow_kv TO grower",
              }),
              "");
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  static std::string config_path() { return cluster_->proxy().dir() + "/pgrange.toml"; }
  /// Every row of the reference table on shard `i`, as one text.
  static std::string reference_rows(int i) {
    return cluster_->shard(i).exec(
        "SELECT coalesce(string_agg(code || '=' || name, ',' ORDER BY code), '') FROM grow_ref",
        "app");
  }
  static std::vector<std::string> shard_names(PGconn* c) {
    SqlResult r = pq_exec(c, "SHOW SHARDS");
    EXPECT_TRUE(r.ok()) << r.message;
    std::vector<std::string> names;
    for (const auto& row : r.rows) names.push_back(row.at(0));
    return names;
  }

  static ShardCluster* cluster_;
};

ShardCluster* AddShardTest::cluster_ = nullptr;

TEST_F(AddShardTest, ReloadBringsUpANewShardWhileClientsWrite) {
  const std::string path = config_path();
  const std::string original = read_text(path);
  auto admin = cluster_->client();
  // Logged in before the shard exists: its session takes the new pools on first use.
  auto before = cluster_->client();
  ASSERT_EQ(pq_exec(before.get(), "SELECT count(*) FROM grow_kv").at(), "4000");
  PgServer& third = cluster_->start_shard_server();
  third.exec("CREATE ROLE grower");  // roles are the server's: the operator makes them

  int64_t increments = 0;
  {
    Writers writers(*cluster_, kRows);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    write_text(path, original + shard_entry("s3", third.dsn("app")));
    SqlResult reload = pq_exec(admin.get(), "RELOAD");
    ASSERT_TRUE(reload.ok()) << reload.message;
    EXPECT_EQ(reload.tag, "RELOAD");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    writers.stop();
    EXPECT_EQ(writers.failures(), 0) << writers.last_error();
    std::cout << "writers: " << writers.increments() << " increments, " << writers.references()
              << " reference rows, " << writers.retries() << " asked to run again\n";
    EXPECT_GT(writers.increments(), 0);
    EXPECT_GT(writers.references(), 0);
    increments = writers.increments();
  }
  EXPECT_NE(cluster_->proxy().log().find("shard s3 added"), std::string::npos)
      << cluster_->proxy().log_tail();

  // The new shard has the schema (the local index too) and every reference row, the ones
  // written during the RELOAD included: the same rows as the shards that were there.
  EXPECT_EQ(third.exec("SELECT count(*) FROM grow_kv", "app"), "0");
  EXPECT_EQ(third.exec("SELECT count(*) FROM pg_indexes WHERE indexname = 'grow_kv_n'", "app"),
            "1");
  EXPECT_EQ(third.exec("SELECT tableowner FROM pg_tables WHERE tablename = 'grow_ref'", "app"),
            "grower");
  EXPECT_EQ(third.exec("SELECT has_table_privilege('grower', 'grow_kv', 'SELECT')", "app"), "t");
  EXPECT_EQ(reference_rows(2), reference_rows(0));
  EXPECT_EQ(reference_rows(1), reference_rows(0));
  EXPECT_NE(reference_rows(2).find("=written while adding"), std::string::npos);
  EXPECT_EQ(shard_names(admin.get()), (std::vector<std::string>{"s1", "s2", "s3"}));
  bool listed = false;
  SqlResult config = pq_exec(admin.get(), "SHOW CONFIG");
  for (const auto& row : config.rows) listed = listed || row.at(0) == "shard.s3.dsn";
  EXPECT_TRUE(listed) << "SHOW CONFIG lists the new shard";

  // A range moves there; the session logged in before the RELOAD reads and writes it.
  SqlResult range = pq_exec(admin.get(), "SHOW RANGE FROM TABLE grow_kv FOR ROW (1500)");
  ASSERT_TRUE(range.ok()) << range.message;
  SqlResult moved = pq_exec(admin.get(), "ALTER RANGE " + range.at(0, 2) + " RELOCATE TO 's3'");
  ASSERT_TRUE(moved.ok()) << moved.message;
  EXPECT_EQ(pq_exec(admin.get(), "SHOW RANGE FROM TABLE grow_kv FOR ROW (1500)").at(0, 3), "s3");
  EXPECT_EQ(third.exec("SELECT count(*) FROM grow_kv", "app"), "1000");
  EXPECT_EQ(pq_exec(before.get(), "SELECT count(*), sum(n) FROM grow_kv").rows,
            (std::vector<std::vector<std::string>>{{"4000", std::to_string(increments)}}));
  SqlResult write = pq_exec(before.get(), "UPDATE grow_kv SET n = n + 1 WHERE id = 1500");
  ASSERT_TRUE(write.ok()) << write.message;
  EXPECT_EQ(third.exec("SELECT n FROM grow_kv WHERE id = 1500", "app"),
            pq_exec(admin.get(), "SELECT n FROM grow_kv WHERE id = 1500").at());
  // A cross-shard transaction over all three, and a write to the reference table from it.
  ASSERT_TRUE(pq_exec(before.get(), "BEGIN").ok());
  ASSERT_TRUE(
      pq_exec(before.get(), "UPDATE grow_kv SET n = n + 1 WHERE id IN (10, 1510, 3010)").ok());
  ASSERT_TRUE(pq_exec(before.get(), "INSERT INTO grow_ref VALUES ('ap', 'Asia')").ok());
  SqlResult commit = pq_exec(before.get(), "COMMIT");
  ASSERT_TRUE(commit.ok()) << commit.message;
  EXPECT_EQ(third.exec("SELECT name FROM grow_ref WHERE code = 'ap'", "app"), "Asia");
  EXPECT_EQ(pq_exec(before.get(), "SELECT sum(n) FROM grow_kv").at(),
            std::to_string(increments + 4));
  // A table made after the RELOAD spreads over the new shard too.
  ASSERT_TRUE(pq_exec(admin.get(), "CREATE TABLE grow_new (id int8 PRIMARY KEY)").ok());
  ASSERT_TRUE(pq_exec(admin.get(), "ALTER TABLE grow_new SPLIT AT VALUES (10), (20)").ok());
  ASSERT_TRUE(pq_exec(admin.get(), "ALTER TABLE grow_new SCATTER").ok());
  SqlResult spread = pq_exec(admin.get(), "SHOW RANGES FROM TABLE grow_new");
  std::set<std::string> on;
  for (const auto& row : spread.rows) on.insert(row.at(3));
  EXPECT_EQ(on, (std::set<std::string>{"s1", "s2", "s3"}));

  // RELOAD again with the same file: nothing to add, nothing changes.
  SqlResult again = pq_exec(admin.get(), "RELOAD");
  EXPECT_TRUE(again.ok()) << again.message;
  EXPECT_EQ(shard_names(admin.get()).size(), 3u);
}

TEST_F(AddShardTest, WhatReloadCannotDoIsRefusedAndChangesNothing) {
  const std::string path = config_path();
  const std::string current = read_text(path);
  auto admin = cluster_->client();
  const std::vector<std::string> shards = shard_names(admin.get());
  auto refused = [&](const std::string& text, const std::string& why) {
    write_text(path, text);
    SqlResult r = pq_exec(admin.get(), "RELOAD");
    EXPECT_EQ(r.sqlstate, "F0000") << why;
    EXPECT_NE(r.message.find(why), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("the settings in use stay"), std::string::npos) << r.message;
    EXPECT_EQ(shard_names(admin.get()), shards);
    EXPECT_EQ(pq_exec(admin.get(), "SELECT count(*) FROM grow_kv").at(), "4000");
  };
  // A shard that does not answer.
  int nobody = free_port();
  refused(current + shard_entry("s9", "host=127.0.0.1 port=" + std::to_string(nobody) +
                                          " dbname=app user=postgres connect_timeout=2"),
          "shard \"s9\" cannot be brought up");
  // Removed: the first shard's entry taken out of the file.
  {
    std::string without = current;
    auto at = without.find("\n[[shard]]\nname = \"s1\"");
    ASSERT_NE(at, std::string::npos);
    auto next = without.find("\n[[", at + 2);
    without.erase(at, next - at);
    refused(without, "only a restart changes");
  }
  // A new one written before the others: shards are numbered in the file's order.
  {
    std::string first = current;
    auto at = first.find("\n[[shard]]");
    first.insert(at, shard_entry("s0", cluster_->shard(0).dsn("app")));
    refused(first, "the order of the [[shard]] entries");
  }
  // A transaction that stays open: the new shard needs a moment when none runs.
  {
    auto open = cluster_->client();
    ASSERT_TRUE(pq_exec(open.get(), "BEGIN").ok());
    ASSERT_TRUE(pq_exec(open.get(), "UPDATE grow_kv SET n = n WHERE id = 7").ok());
    PgServer& fourth = cluster_->start_shard_server();
    refused(current + shard_entry("s4", fourth.dsn("app")), "needs a moment when no transaction");
    // Held back meanwhile, the open transaction goes on and commits.
    SqlResult commit = pq_exec(open.get(), "COMMIT");
    EXPECT_TRUE(commit.ok()) << commit.message;
    EXPECT_EQ(fourth.exec("SELECT count(*) FROM pg_tables WHERE tablename = 'grow_kv'", "app"),
              "0");
    // Its server lacks a role that owns a table: the copy fails whole, nothing changes.
    refused(current + shard_entry("s4", fourth.dsn("app")), "role \"grower\" does not exist");
    EXPECT_EQ(fourth.exec("SELECT count(*) FROM pg_tables WHERE tablename = 'grow_kv'", "app"),
              "0");
    fourth.exec("CREATE ROLE grower");

    // A transaction that runs already is not held back: while RELOAD waits for it, it takes
    // a second shard's connection and commits, and then the shard is added.
    auto shard_of = [&](int id) {
      return pq_exec(admin.get(),
                     "SHOW RANGE FROM TABLE grow_kv FOR ROW (" + std::to_string(id) + ")")
          .at(0, 3);
    };
    int other = 0;
    for (int id : {1010, 2010, 3010}) {
      if (other == 0 && shard_of(id) != shard_of(10)) other = id;
    }
    ASSERT_NE(other, 0) << "grow_kv is spread over several shards";
    ASSERT_TRUE(pq_exec(open.get(), "BEGIN").ok());
    ASSERT_TRUE(pq_exec(open.get(), "UPDATE grow_kv SET n = n + 1 WHERE id = 10").ok());
    const std::string with_fourth = current + shard_entry("s4", fourth.dsn("app"));
    write_text(path, with_fourth);
    SqlResult reload;
    std::thread reloader([&] {
      auto c = cluster_->client();
      reload = pq_exec(c.get(), "RELOAD");
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // RELOAD waits for `open`
    // Held back, it would keep RELOAD waiting until RELOAD gave up.
    SqlResult second =
        pq_exec(open.get(), "UPDATE grow_kv SET n = n + 1 WHERE id = " + std::to_string(other));
    EXPECT_TRUE(second.ok()) << second.message;
    SqlResult committed = pq_exec(open.get(), "COMMIT");
    EXPECT_EQ(committed.tag, "COMMIT") << committed.message;
    reloader.join();
    EXPECT_TRUE(reload.ok()) << reload.message;
    EXPECT_EQ(shard_names(admin.get()).back(), "s4");
    EXPECT_EQ(fourth.exec("SELECT count(*) FROM pg_tables WHERE tablename = 'grow_kv'", "app"),
              "1");
    write_text(path, with_fourth);  // the file as it is in use, for the tests after this one
  }
  SqlResult back = pq_exec(admin.get(), "RELOAD");
  EXPECT_TRUE(back.ok()) << back.message;
}

}  // namespace
}  // namespace pgrange::testing
