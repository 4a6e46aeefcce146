// The range manager ([ranges]) at work through pgrange over three real PostgreSQL 15 shards,
// each case with a pgrange of its own whose settings are small enough for a test:
//  - AHotRangeSplitsByLoadAndSpreadsOverTheShards: clients (simple and extended protocol, in
//    and out of blocks) read and write keys all over one range; it splits by load and its
//    parts move to the other shards, while every acknowledged write stays exactly once.
//  - AGrowingTableSplitsBySize: rows inserted through pgrange grow a range past range_max_mb;
//    it splits at its middle key until every range is under the limit.
//  - SmallColdNeighboursMergeAfterTheDelay: ranges whose splits expired merge after
//    merge_delay_s, not before; a split SPLIT AT enforces stays.
//  - ADrainedShardEndsEmptyAndAnEmptyShardGetsRanges: ALTER SHARD s2 DRAIN while clients write
//    moves every range off s2 (rows, the ranges of no table, a reference table's); undrained,
//    the empty shard (as a newly added one) gets ranges from the rebalancer.
// Every decision is a job with its reason (SHOW JOBS); nothing is left on the shards.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/shard_cluster.hpp"

namespace pgrange::testing {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

class RangeManagerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ShardCluster::Options options;
    options.pool_size = 12;
    // A reference table: a shard added later must get its rows too.
    options.extra_toml = "[[table]]\nname = \"regions\"\nreference = true\n";
    cluster_ = ShardCluster::start(options).release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }

  /// SHOW RANGES FROM TABLE `name`'s rows (start, end, range id, shard, …).
  static std::vector<std::vector<std::string>> ranges_of(PGconn* c, const std::string& name,
                                                         bool details = false) {
    SqlResult r = pq_exec(c, "SHOW RANGES FROM TABLE " + name + (details ? " WITH DETAILS" : ""));
    EXPECT_TRUE(r.ok()) << r.message;
    return r.rows;
  }

  static std::set<std::string> shards_of(const std::vector<std::vector<std::string>>& ranges) {
    std::set<std::string> out;
    for (const auto& row : ranges) out.insert(row[3]);
    return out;
  }

  /// The jobs of `type` whose description contains `reason`, as "status: description".
  static std::vector<std::string> jobs(PGconn* c, const std::string& type,
                                       const std::string& reason) {
    SqlResult r = pq_exec(c, "SHOW JOBS");
    EXPECT_TRUE(r.ok()) << r.message;
    std::vector<std::string> out;
    for (const auto& row : r.rows) {
      if (row[1] == type && row[2].find(reason) != std::string::npos) {
        out.push_back(row[3] + ": " + row[2]);
      }
    }
    return out;
  }

  /// Each row of `name` (by id) on exactly one shard, the one the map gives its range: the
  /// ids counted, or -1 after a failure was added.
  static int64_t rows_where_the_map_says(PGconn* c, const std::string& name) {
    int64_t rows = 0;
    return cluster_->misplaced_rows(c, name, &rows) == 0 ? rows : -1;
  }

  /// Three clients through the cluster's pgrange, each adding 1 to n of a random row of
  /// `table` (ids 1..rows) every 10 ms until stop(): the increments acknowledged, the errors.
  class Incrementers {
   public:
    Incrementers(const std::string& table, int64_t rows) {
      for (int t = 0; t < 3; ++t) {
        threads_.emplace_back([this, table, rows, t] {
          auto c = cluster_->client();
          std::mt19937 rng(static_cast<unsigned>(t + 11));
          while (!stop_) {
            auto t0 = Clock::now();
            SqlResult r = pq_exec(c.get(), "UPDATE " + table + " SET n = n + 1 WHERE id = " +
                                               std::to_string(1 + rng() % rows));
            if (r.ok() && r.tag == "UPDATE 1") {
              ++increments_;
            } else {
              std::lock_guard lock(mu_);
              errors_.push_back(r.message);
            }
            std::this_thread::sleep_until(t0 + milliseconds(10));
          }
        });
      }
    }
    ~Incrementers() { stop(); }
    void stop() {
      stop_ = true;
      for (auto& t : threads_) {
        if (t.joinable()) t.join();
      }
    }
    int64_t increments() const { return increments_; }
    /// After stop(): "" or how many failed and the first error.
    std::string errors() const {
      std::lock_guard lock(mu_);
      return errors_.empty()
                 ? ""
                 : std::to_string(errors_.size()) + " errors, the first: " + errors_.front();
    }

   private:
    std::atomic<bool> stop_{false};
    std::atomic<int64_t> increments_{0};
    mutable std::mutex mu_;
    std::vector<std::string> errors_;
    std::vector<std::thread> threads_;
  };

  static void expect_no_leftovers() { cluster_->expect_no_move_leftovers(); }

  /// Runs a pgrange whose range manager rebalances by load (split_qps 100) until a range of
  /// `table` is on `shard` (60 s at most); the table's ranges then.
  static std::vector<std::vector<std::string>> rebalance_until_on(PGconn* c,
                                                                  const std::string& table,
                                                                  const std::string& shard) {
    auto manager = cluster_->start_managing_proxy(
        "auto_split = false\ncheck_interval_ms = 300\nsplit_qps = 100\n");
    std::vector<std::vector<std::string>> ranges;
    auto deadline = Clock::now() + seconds(60);
    while (Clock::now() < deadline) {
      std::this_thread::sleep_for(milliseconds(500));
      ranges = ranges_of(c, table);
      if (shards_of(ranges).count(shard)) break;
    }
    return ranges;
  }

  /// `table` (ids 1..rows) holds every row once where the map says, and each increment the
  /// stopped writers had acknowledged; no move left anything behind.
  static void expect_every_increment(PGconn* c, const std::string& table, int64_t rows,
                                     const Incrementers& writers) {
    EXPECT_EQ(writers.errors(), "");
    SqlResult sum = pq_exec(c, "SELECT sum(n), count(*) FROM " + table);
    ASSERT_TRUE(sum.ok()) << sum.message;
    EXPECT_EQ(sum.at(0, 0), std::to_string(writers.increments()));
    EXPECT_EQ(sum.at(0, 1), std::to_string(rows));
    EXPECT_EQ(rows_where_the_map_says(c, table), rows);
    expect_no_leftovers();
  }

  static ShardCluster* cluster_;
};
ShardCluster* RangeManagerTest::cluster_ = nullptr;

TEST_F(RangeManagerTest, AHotRangeSplitsByLoadAndSpreadsOverTheShards) {
  constexpr int64_t kRows = 20000;
  ASSERT_EQ(cluster_->run_setup({"CREATE TABLE hot_acct (id int8 PRIMARY KEY, n int8 NOT NULL "
                                 "DEFAULT 0)",
                                 "INSERT INTO hot_acct (id) SELECT g FROM generate_series(1, " +
                                     std::to_string(kRows) + ") g"}),
            "");
  auto manager = cluster_->start_managing_proxy(
      "split_qps = 60\ncheck_interval_ms = 300\nmerge_delay_s = 3600\n");
  auto admin = pq_connect(manager->dsn());
  ASSERT_EQ(ranges_of(admin.get(), "hot_acct").size(), 1u);

  // Four clients, about 50 statements a second each, keys all over the range: a load of some
  // 200 per second that no range of it should carry alone. Each writes in blocks (simple
  // protocol) and with the extended protocol, and reads.
  std::atomic<bool> stop{false};
  std::atomic<int64_t> increments{0};
  std::mutex mu;
  std::vector<std::string> errors;
  std::vector<std::thread> clients;
  for (int t = 0; t < 4; ++t) {
    clients.emplace_back([&, t] {
      auto c = pq_connect(manager->dsn());
      std::mt19937 rng(static_cast<unsigned>(t + 7));
      auto id = [&] { return std::to_string(1 + rng() % kRows); };
      for (int i = 0; !stop; ++i) {
        auto t0 = Clock::now();
        SqlResult r;
        int64_t adds = 0;
        if (i % 10 == 9) {
          // A block over two keys, which may be in different ranges by now.
          std::vector<std::string> block = {
              "BEGIN", "UPDATE hot_acct SET n = n + 1 WHERE id = " + id(),
              "UPDATE hot_acct SET n = n + 1 WHERE id = " + id(), "COMMIT"};
          for (const std::string& sql : block) {
            r = pq_exec(c.get(), sql);
            if (!r.ok()) {
              r.message += " (" + sql + ")";
              break;
            }
          }
          if (r.ok() && r.tag == "COMMIT") adds = 2;
          if (!r.ok()) pq_exec(c.get(), "ROLLBACK");
        } else if (i % 4 == 0) {
          std::string key = id();
          const char* values[] = {key.c_str()};
          r = take_result(PQexecParams(c.get(), "UPDATE hot_acct SET n = n + 1 WHERE id = $1", 1,
                                       nullptr, values, nullptr, nullptr, 0),
                          c.get());
          if (r.ok() && r.tag == "UPDATE 1") adds = 1;
        } else {
          r = pq_exec(c.get(), "SELECT n FROM hot_acct WHERE id = " + id());
        }
        if (!r.ok()) {
          std::lock_guard lock(mu);
          errors.push_back(r.message);
        }
        increments += adds;
        std::this_thread::sleep_until(t0 + milliseconds(20));
      }
    });
  }
  // Split and spread over the three shards, within a bound.
  std::vector<std::vector<std::string>> ranges;
  auto deadline = Clock::now() + seconds(120);
  while (Clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(500));
    ranges = ranges_of(admin.get(), "hot_acct");
    if (ranges.size() >= 3 && shards_of(ranges).size() == 3) break;
  }
  stop = true;
  for (auto& c : clients) c.join();
  EXPECT_GE(ranges.size(), 3u);
  EXPECT_EQ(shards_of(ranges).size(), 3u) << "the ranges of hot_acct stayed on fewer shards";
  {
    std::lock_guard lock(mu);
    EXPECT_TRUE(errors.empty()) << errors.size() << " errors, the first: " << errors.front();
  }
  // Why, in SHOW JOBS.
  auto splits = jobs(admin.get(), "SPLIT RANGE", "of hot_acct");
  ASSERT_FALSE(splits.empty());
  EXPECT_NE(splits[0].find("over split_qps 60.0 qps"), std::string::npos) << splits[0];
  EXPECT_EQ(splits[0].rfind("succeeded: ", 0), 0u) << splits[0];
  auto moves = jobs(admin.get(), "MOVE RANGE", "of hot_acct");
  ASSERT_FALSE(moves.empty());
  EXPECT_NE(moves[0].find("evening out load"), std::string::npos) << moves[0];
  // Every write once, every row where the map says.
  manager.reset();  // its moves stop with it
  auto c = cluster_->client();
  SqlResult sum = pq_exec(c.get(), "SELECT sum(n), count(*) FROM hot_acct");
  ASSERT_TRUE(sum.ok()) << sum.message;
  EXPECT_EQ(sum.at(0, 0), std::to_string(increments.load()));
  EXPECT_EQ(sum.at(0, 1), std::to_string(kRows));
  EXPECT_EQ(rows_where_the_map_says(c.get(), "hot_acct"), kRows);
  expect_no_leftovers();
}

TEST_F(RangeManagerTest, AGrowingTableSplitsBySize) {
  ASSERT_EQ(cluster_->run_setup({"CREATE TABLE grown (id int8 PRIMARY KEY, payload text NOT NULL)",
                                 // A global index: its entries' ranges split by size too.
                                 "CREATE INDEX grown_payload ON grown (payload)"}),
            "");
  // 0.25 MB ranges: about 2,000 of these rows.
  auto manager = cluster_->start_managing_proxy(
      "range_max_mb = 0.25\nsplit_qps = 1000000\nrebalance = false\ncheck_interval_ms = 300\n"
      "merge_delay_s = 3600\n");
  auto c = pq_connect(manager->dsn());
  constexpr int kBatches = 20, kBatch = 1000;
  for (int b = 0; b < kBatches; ++b) {
    SqlResult r = pq_exec(c.get(),
                          "INSERT INTO grown SELECT g, repeat('x', 100) || g FROM "
                          "generate_series(" +
                              std::to_string(b * kBatch + 1) + ", " +
                              std::to_string((b + 1) * kBatch) + ") g");
    ASSERT_TRUE(r.ok()) << r.message;
    std::this_thread::sleep_for(milliseconds(300));
  }
  // Split until no range is over the limit (sizes as SHOW RANGES … WITH DETAILS gives them).
  std::vector<std::vector<std::string>> ranges;
  auto over = [&] {
    int n = 0;
    // … range_size_mb, row_count, generation, qps.
    for (const auto& row : ranges) n += std::stod(row[row.size() - 4]) > 0.25 ? 1 : 0;
    return n;
  };
  std::vector<std::vector<std::string>> index_ranges;
  auto index_over = [&] {
    int n = 0;
    for (const auto& row : index_ranges) n += std::stod(row[row.size() - 4]) > 0.25 ? 1 : 0;
    return n;
  };
  auto deadline = Clock::now() + seconds(120);
  while (Clock::now() < deadline) {
    ranges = ranges_of(c.get(), "grown", true);
    SqlResult r = pq_exec(c.get(), "SHOW RANGES FROM INDEX grown@grown_payload WITH DETAILS");
    EXPECT_TRUE(r.ok()) << r.message;
    index_ranges = r.rows;
    if (ranges.size() >= 8 && over() == 0 && index_ranges.size() >= 6 && index_over() == 0) break;
    std::this_thread::sleep_for(milliseconds(500));
  }
  EXPECT_GE(ranges.size(), 8u);  // 2.5 MB or so of rows
  EXPECT_EQ(over(), 0);
  EXPECT_GE(index_ranges.size(), 6u);  // 2 MB or so of entries
  EXPECT_EQ(index_over(), 0);
  // Lookups through the index find each row once.
  for (int id : {1, 4321, 12345, 20000}) {
    SqlResult r = pq_exec(c.get(), "SELECT id FROM grown WHERE payload = repeat('x', 100) || '" +
                                       std::to_string(id) + "'");
    ASSERT_TRUE(r.ok()) << r.message;
    ASSERT_EQ(r.rows.size(), 1u) << id;
    EXPECT_EQ(r.at(0, 0), std::to_string(id));
  }
  auto splits = jobs(c.get(), "SPLIT RANGE", "of grown");
  ASSERT_FALSE(splits.empty());
  EXPECT_NE(splits[0].find("over range_max_mb 0.25 MB"), std::string::npos) << splits[0];
  SqlResult count = pq_exec(c.get(), "SELECT count(*), count(DISTINCT id) FROM grown");
  ASSERT_TRUE(count.ok()) << count.message;
  EXPECT_EQ(count.at(0, 0), std::to_string(kBatches * kBatch));
  EXPECT_EQ(count.at(0, 1), std::to_string(kBatches * kBatch));
  EXPECT_EQ(rows_where_the_map_says(c.get(), "grown"), kBatches * kBatch);
}

TEST_F(RangeManagerTest, SmallColdNeighboursMergeAfterTheDelay) {
  ASSERT_EQ(
      cluster_->run_setup({"CREATE TABLE idle (id int8 PRIMARY KEY, v text)",
                           "INSERT INTO idle SELECT g, 'v' || g FROM generate_series(1, 100) g",
                           "ALTER TABLE idle SPLIT AT VALUES (50)"}),
      "");
  auto manager = cluster_->start_managing_proxy(
      "merge_delay_s = 2\ncheck_interval_ms = 300\nrebalance = false\n");
  auto c = pq_connect(manager->dsn());
  // Splits that hold for one second more, then are the manager's to merge.
  SqlResult until =
      pq_exec(cluster_->direct(0).get(), "SELECT (now() + interval '1 second')::text");
  ASSERT_TRUE(until.ok()) << until.message;
  SqlResult split = pq_exec(c.get(),
                            "ALTER TABLE idle SPLIT AT VALUES (10), (20), (30) WITH "
                            "EXPIRATION '" +
                                until.at(0, 0) + "'");
  ASSERT_TRUE(split.ok()) << split.message;
  const auto split_at = Clock::now();
  ASSERT_EQ(ranges_of(c.get(), "idle").size(), 5u);
  std::vector<std::vector<std::string>> ranges;
  auto deadline = Clock::now() + seconds(60);
  while (Clock::now() < deadline) {
    ranges = ranges_of(c.get(), "idle");
    if (ranges.size() == 2) break;
    std::this_thread::sleep_for(milliseconds(200));
  }
  // Not before the splits expired and stayed small and cold for merge_delay_s (a lower bound,
  // whatever the machine's speed).
  EXPECT_GE(Clock::now() - split_at, seconds(3));
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_NE(ranges[1][0].find("/50"), std::string::npos) << ranges[1][0] << ": SPLIT AT's stays";
  auto merges = jobs(c.get(), "MERGE RANGES", "of idle");
  ASSERT_FALSE(merges.empty());
  EXPECT_NE(merges[0].find("merge_delay_s 2"), std::string::npos) << merges[0];
  SqlResult count = pq_exec(c.get(), "SELECT count(*), sum(id) FROM idle");
  ASSERT_TRUE(count.ok()) << count.message;
  EXPECT_EQ(count.at(0, 0), "100");
  EXPECT_EQ(count.at(0, 1), "5050");
}

// Small cold neighbours on different shards: the smaller moves to the other's shard, then they
// merge, while a client writes and reads the table.
TEST_F(RangeManagerTest, SmallColdNeighboursOnSeveralShardsComeTogetherAndMerge) {
  ASSERT_EQ(cluster_->run_setup(
                {"CREATE TABLE scattered_idle (id int8 PRIMARY KEY, n int8 NOT NULL DEFAULT 0)",
                 "INSERT INTO scattered_idle (id) SELECT g FROM generate_series(1, 300) g"}),
            "");
  auto admin = cluster_->client();
  SqlResult until =
      pq_exec(cluster_->direct(0).get(), "SELECT (now() + interval '1 second')::text");
  ASSERT_TRUE(until.ok()) << until.message;
  SqlResult split = pq_exec(admin.get(),
                            "ALTER TABLE scattered_idle SPLIT AT VALUES (100), (200) WITH "
                            "EXPIRATION '" +
                                until.at(0, 0) + "'");
  ASSERT_TRUE(split.ok()) << split.message;
  SqlResult scatter = pq_exec(admin.get(), "ALTER TABLE scattered_idle SCATTER");
  ASSERT_TRUE(scatter.ok()) << scatter.message;
  ASSERT_EQ(shards_of(ranges_of(admin.get(), "scattered_idle")).size(), 3u);
  std::atomic<bool> stop{false};
  std::atomic<int64_t> increments{0};
  std::vector<std::string> errors;
  std::thread writer([&] {
    auto c = cluster_->client();
    std::mt19937 rng(7);
    while (!stop) {
      SqlResult r = pq_exec(c.get(), "UPDATE scattered_idle SET n = n + 1 WHERE id = " +
                                         std::to_string(1 + rng() % 300));
      SqlResult whole = pq_exec(c.get(), "SELECT count(*) FROM scattered_idle");
      if (r.ok() && r.tag == "UPDATE 1" && whole.ok() && whole.at(0, 0) == "300") {
        ++increments;
      } else {
        errors.push_back(r.message + " / " + whole.message + " " + whole.at(0, 0));
      }
      std::this_thread::sleep_for(milliseconds(50));  // cold: a few requests a second
    }
  });
  auto manager = cluster_->start_managing_proxy(
      "merge_delay_s = 2\ncheck_interval_ms = 300\nrebalance = false\n");
  std::vector<std::vector<std::string>> ranges;
  auto deadline = Clock::now() + seconds(90);
  while (Clock::now() < deadline) {
    ranges = ranges_of(admin.get(), "scattered_idle");
    if (ranges.size() == 1) break;
    std::this_thread::sleep_for(milliseconds(200));
  }
  stop = true;
  writer.join();
  EXPECT_EQ(ranges.size(), 1u);
  EXPECT_TRUE(errors.empty()) << errors.size() << " failed, first: " << errors.front();
  EXPECT_GT(increments.load(), 0);
  auto moves = jobs(admin.get(), "MOVE RANGE", "to merge with range");
  EXPECT_GE(moves.size(), 1u);
  for (const auto& m : moves) EXPECT_EQ(m.rfind("succeeded", 0), 0u) << m;
  EXPECT_GE(jobs(admin.get(), "MERGE RANGES", "of scattered_idle").size(), 2u);
  SqlResult sum = pq_exec(admin.get(), "SELECT count(*), sum(n) FROM scattered_idle");
  ASSERT_TRUE(sum.ok()) << sum.message;
  EXPECT_EQ(sum.at(0, 0), "300");
  EXPECT_EQ(sum.at(0, 1), std::to_string(increments.load()));
  EXPECT_EQ(cluster_->misplaced_rows(admin.get(), "scattered_idle"), 0);
}

TEST_F(RangeManagerTest, ADrainedShardEndsEmptyAndAnEmptyShardGetsRanges) {
  constexpr int64_t kRows = 30000;
  ASSERT_EQ(cluster_->run_setup({"CREATE TABLE drained (id int8 PRIMARY KEY, n int8 NOT NULL "
                                 "DEFAULT 0)",
                                 "INSERT INTO drained (id) SELECT g FROM generate_series(1, " +
                                     std::to_string(kRows) + ") g",
                                 "ALTER TABLE drained SPLIT AT VALUES (10000), (20000)",
                                 "ALTER TABLE drained SCATTER"}),
            "");
  auto admin = cluster_->client();
  ASSERT_EQ(shards_of(ranges_of(admin.get(), "drained")).size(), 3u);
  // Writers through the cluster's pgrange (its range manager is off) the whole time.
  Incrementers writers("drained", kRows);
  SqlResult drain = pq_exec(admin.get(), "ALTER SHARD s2 DRAIN");
  ASSERT_TRUE(drain.ok()) << drain.message;
  EXPECT_FALSE(drain.rows.empty());
  for (const auto& row : drain.rows) EXPECT_NE(row[2], "s2") << row[0];
  SqlResult shards = pq_exec(admin.get(), "SHOW SHARDS");
  ASSERT_TRUE(shards.ok()) << shards.message;
  for (const auto& row : shards.rows) {
    EXPECT_EQ(row[6], row[0] == "s2" ? "t" : "f") << row[0] << " draining";
    if (row[0] == "s2") {
      EXPECT_EQ(row[3], "0") << "ranges left on s2";
    }
  }
  EXPECT_EQ(cluster_->shard(1).exec("SELECT count(*) FROM drained", "app"), "0");
  auto jobs_done = jobs(admin.get(), "DRAIN SHARD", "shard s2");
  ASSERT_EQ(jobs_done.size(), 1u);
  EXPECT_EQ(jobs_done[0].rfind("succeeded: ", 0), 0u) << jobs_done[0];
  // Drained, it gets nothing new: not a new table, not a SCATTER.
  ASSERT_EQ(cluster_->run_setup({"CREATE TABLE after_drain (id int8 PRIMARY KEY)",
                                 "ALTER TABLE after_drain SPLIT AT VALUES (10), (20), (30)",
                                 "ALTER TABLE after_drain SCATTER"}),
            "");
  EXPECT_EQ(shards_of(ranges_of(admin.get(), "after_drain")).count("s2"), 0u);

  // Undrained and empty, as a shard just added: the rebalancer brings it ranges (by load).
  SqlResult undrain = pq_exec(admin.get(), "ALTER SHARD s2 UNDRAIN");
  ASSERT_TRUE(undrain.ok()) << undrain.message;
  EXPECT_EQ(undrain.tag, "ALTER SHARD");
  auto ranges = rebalance_until_on(admin.get(), "drained", "s2");
  writers.stop();
  EXPECT_EQ(shards_of(ranges).count("s2"), 1u) << "no range of drained came back to s2";
  expect_every_increment(admin.get(), "drained", kRows, writers);
}

// Last: it leaves the cluster with a fourth shard. A shard added to the configuration (pgrange
// restarted with it) has no ranges; the rebalancer brings it some while clients write.
TEST_F(RangeManagerTest, AShardAddedToTheConfigurationGetsRanges) {
  constexpr int64_t kRows = 30000;
  ASSERT_EQ(cluster_->run_setup({"CREATE TABLE widened (id int8 PRIMARY KEY, n int8 NOT NULL "
                                 "DEFAULT 0)",
                                 "INSERT INTO widened (id) SELECT g FROM generate_series(1, " +
                                     std::to_string(kRows) + ") g",
                                 "ALTER TABLE widened SPLIT AT VALUES (5000), (10000), (15000), "
                                 "(20000), (25000)",
                                 "ALTER TABLE widened SCATTER",
                                 "CREATE INDEX widened_n ON widened (n) WITH (local)",
                                 "CREATE TABLE regions (code text PRIMARY KEY, name text NOT NULL)",
                                 "INSERT INTO regions VALUES ('eu', 'Europe'), ('us', 'Americas')",
                                 "CREATE VIEW busy_widened AS SELECT id FROM widened WHERE n > 0"}),
            "");
  ASSERT_EQ(cluster_->size(), 3);
  cluster_->add_shard();
  // Started with it, pgrange gave the new shard the cluster's schema and the reference
  // table's rows.
  EXPECT_EQ(cluster_->shard(3).exec("SELECT count(*) FROM widened", "app"), "0");
  EXPECT_EQ(cluster_->shard(3).exec("SELECT count(*) FROM pg_indexes WHERE indexname = "
                                    "'widened_n'",
                                    "app"),
            "1");
  EXPECT_EQ(cluster_->shard(3).exec(
                "SELECT string_agg(code || '=' || name, ',' ORDER BY code) FROM regions", "app"),
            "eu=Europe,us=Americas");
  EXPECT_EQ(cluster_->shard(3).exec("SELECT count(*) FROM busy_widened", "app"), "0");
  auto admin = cluster_->client();
  // A write to the reference table reaches the new shard too.
  SqlResult region = pq_exec(admin.get(), "INSERT INTO regions VALUES ('ap', 'Asia')");
  ASSERT_TRUE(region.ok()) << region.message;
  EXPECT_EQ(cluster_->shard(3).exec("SELECT name FROM regions WHERE code = 'ap'", "app"), "Asia");
  SqlResult shards = pq_exec(admin.get(), "SHOW SHARDS");
  ASSERT_TRUE(shards.ok()) << shards.message;
  ASSERT_EQ(shards.rows.size(), 4u);
  EXPECT_EQ(shards.rows[3][0], "s4");
  EXPECT_EQ(shards.rows[3][3], "0") << "ranges on the new shard";
  EXPECT_EQ(shards_of(ranges_of(admin.get(), "widened")).count("s4"), 0u);
  Incrementers writers("widened", kRows);
  auto ranges = rebalance_until_on(admin.get(), "widened", "s4");
  writers.stop();
  EXPECT_EQ(shards_of(ranges).count("s4"), 1u) << "no range of widened went to the new shard";
  EXPECT_GT(writers.increments(), 0);
  EXPECT_NE(cluster_->shard(3).exec("SELECT count(*) FROM widened", "app"), "0");
  expect_every_increment(admin.get(), "widened", kRows, writers);
}

}  // namespace
}  // namespace pgrange::testing
