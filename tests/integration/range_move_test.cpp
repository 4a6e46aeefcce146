// Moving a range while it is used, through pgrange over three real PostgreSQL 15 shards:
//  - WritesAndReadsGoOnWhileARangeMoves: a 100,000-row range moves while clients write it
//    (simple and extended protocol, autocommit and blocks across shards) and read it (point
//    reads, whole-table sums and counts): no error, every acknowledged write present exactly
//    once, no read seeing a row twice or missing one, the rows only where the map says, the job
//    in SHOW JOBS; the writes' latency during the move is printed.
//  - WritesGoOnWhileTheOldRowsGoButWholeTableReadsWait: after the switch, writes to the range
//    go on at the target while the source's rows are deleted; whole-table reads wait for that.
//  - ASourceDownWhenItsRowsShouldGoIsCleanedUpWhenBack: the source stops after the switch; its
//    copy of the range is deleted when it is back, whole-table reads waiting until then.
//  - CancelJobRollsTheMoveBack: CANCEL JOB from another session stops a move; nothing moved.
//  - ACrashAtEachStepOfAMoveIsRecovered: a pgrange that dies (as kill -9 would) at each step of
//    a move: the other instance settles what it left, every row once, where the map says.
//  - AShardStoppedDuringACopyFailsTheMoveCleanly: the target shard, then the source, stops (as
//    a crash would) while the rows copy.
//  - HotRangesShowTheLoadOfEveryInstance: SHOW HOT RANGES on one pgrange shows the load another
//    one serves, hottest first.
// Every case ends with no publication, replication slot or prepared transaction on any shard.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <iostream>
#include <map>
#include <memory>
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

constexpr int64_t kRows = 300000;      // 100,000 per range
constexpr int64_t kBalance = 1000;     // every row's starting balance
constexpr int64_t kGapFirst = 150000;  // ids [kGapFirst, kGapFirst + kGap) start missing
constexpr int64_t kGap = 2000;

class RangeMoveTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ShardCluster::Options options;
    options.pool_size = 12;
    cluster_ = ShardCluster::start(options).release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }

  /// Table `name`: three ranges [min, 100000), [100000, 200000), [200000, max) on s1, s2, s3,
  /// ids 1..kRows but the gap, each with balance kBalance (written on the shards directly).
  static void make_table(const std::string& name) {
    ASSERT_EQ(cluster_->run_setup(
                  {"CREATE TABLE " + name +
                       " (id int8 PRIMARY KEY, balance int8 NOT NULL, n int8 NOT NULL DEFAULT 0, "
                       "m int8 NOT NULL DEFAULT 0, note text)",
                   "ALTER TABLE " + name + " SPLIT AT VALUES (100000), (200000)",
                   "ALTER TABLE " + name + " SCATTER"}),
              "");
    for (int i = 0; i < 3; ++i) {
      const int64_t lo = i == 0 ? 1 : i * 100000;
      const int64_t hi = i == 2 ? kRows : (i + 1) * 100000 - 1;
      SqlResult r =
          pq_exec(cluster_->direct(i).get(),
                  "INSERT INTO " + name + " (id, balance) SELECT g, " + std::to_string(kBalance) +
                      " FROM generate_series(" + std::to_string(lo) + ", " + std::to_string(hi) +
                      ") g WHERE g NOT BETWEEN " + std::to_string(kGapFirst) + " AND " +
                      std::to_string(kGapFirst + kGap - 1));
      ASSERT_TRUE(r.ok()) << r.message;
    }
  }

  /// The range holding id 150000 of `name`: its id and shard.
  static std::pair<std::string, std::string> middle_range(PGconn* c, const std::string& name) {
    SqlResult r = pq_exec(c, "SHOW RANGE FROM TABLE " + name + " FOR ROW (150000)");
    EXPECT_TRUE(r.ok()) << r.message;
    return {r.at(0, 2), r.at(0, 3)};
  }

  /// A move of the range holding id 150000 of `table` (made by make_table, its middle range
  /// split at 125000 so that the source keeps a range of it and whole-table reads still go
  /// there) from s2 to s3, by a pgrange that pauses `pause_ms` once the map has switched and
  /// writes go on; the constructor returns when the map gives the range to s3.
  class PausedMove {
   public:
    PausedMove(const std::string& table, int pause_ms) {
      auto admin = cluster_->client();
      SqlResult split = pq_exec(admin.get(), "ALTER TABLE " + table + " SPLIT AT VALUES (125000)");
      EXPECT_TRUE(split.ok()) << split.message;
      auto [range_id, from] = middle_range(admin.get(), table);
      EXPECT_EQ(from, "s2");
      // pgrange reads the delay once; the environment is copied when it starts.
      setenv("PGRANGE_TEST_DELAY", ("move_writes_released:" + std::to_string(pause_ms)).c_str(), 1);
      pausing_ = cluster_->start_proxy();
      unsetenv("PGRANGE_TEST_DELAY");
      mover_ = std::thread([this, id = range_id] {
        auto c = pq_connect(pausing_->dsn());
        result_ = pq_exec(c.get(), "ALTER RANGE " + id + " RELOCATE TO 's3'");
        ended_ = true;
      });
      auto deadline = Clock::now() + std::chrono::seconds(60);
      while (!ended_ && Clock::now() < deadline &&
             middle_range(admin.get(), table).second != "s3") {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    ~PausedMove() { join(); }
    /// Whether ALTER RANGE … RELOCATE has answered.
    bool ended() const { return ended_; }
    /// Its answer, once ended.
    const SqlResult& join() {
      if (mover_.joinable()) mover_.join();
      return result_;
    }

   private:
    std::unique_ptr<ProxyProcess> pausing_;
    std::thread mover_;
    std::atomic<bool> ended_{false};
    SqlResult result_;
  };

  /// Nothing a move leaves behind on any shard's server.
  static void expect_no_leftovers() { cluster_->expect_no_move_leftovers(); }

  /// Every row of `name` once, on the shard the map gives its range: the count of ids seen on
  /// more than one shard or on the wrong one.
  static int misplaced_rows(const std::string& name) {
    return cluster_->misplaced_rows(cluster_->client().get(), name);
  }

  /// The job's status, from SHOW JOB n.
  static std::string job_status(PGconn* c, const std::string& id) {
    SqlResult r = pq_exec(c, "SHOW JOB " + id);
    return r.ok() ? r.at(0, 3) : "error: " + r.message;
  }

  /// The id of the newest job.
  static std::string newest_job(PGconn* c) {
    SqlResult r = pq_exec(c, "SHOW JOBS");
    return r.ok() && !r.rows.empty() ? r.rows.back()[0] : "";
  }

  static ShardCluster* cluster_;
};
ShardCluster* RangeMoveTest::cluster_ = nullptr;

/// Write latencies, in milliseconds, of one kind of write.
struct Latencies {
  std::mutex mu;
  std::vector<double> during, outside;
  void add(double ms, bool moving) {
    std::lock_guard lock(mu);
    (moving ? during : outside).push_back(ms);
  }
  static std::string summary(std::vector<double> v) {
    if (v.empty()) return "none";
    std::sort(v.begin(), v.end());
    auto at = [&](double q) {
      return v[std::min(v.size() - 1, static_cast<size_t>(q * v.size()))];
    };
    return std::to_string(v.size()) + " writes, p50 " + std::to_string(at(0.5)) + " ms, p99 " +
           std::to_string(at(0.99)) + " ms, max " + std::to_string(v.back()) + " ms";
  }
};

TEST_F(RangeMoveTest, WritesAndReadsGoOnWhileARangeMoves) {
  make_table("acct");
  if (HasFatalFailure()) return;
  auto admin = cluster_->client();
  auto [range_id, from] = middle_range(admin.get(), "acct");
  ASSERT_EQ(from, "s2");
  const int64_t total = (kRows - kGap) * kBalance;

  std::atomic<bool> stop{false};
  std::atomic<bool> moving{false};
  std::atomic<int> during_move{0};  // writes acknowledged while the move ran
  std::mutex mu;
  std::vector<std::string> errors;
  auto error = [&](const std::string& what) {
    std::lock_guard lock(mu);
    errors.push_back(what);
  };
  Latencies latency;
  auto timed = [&](auto&& write) {
    const bool was_moving = moving;
    auto t0 = Clock::now();
    bool ok = write();
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (ok) {
      latency.add(ms, was_moving && moving);
      if (was_moving && moving) ++during_move;
    }
  };

  // Inserts into the gap (simple protocol); each acknowledged id must be there once.
  std::vector<int64_t> inserted;
  std::atomic<int64_t> acked_inserts{0};
  std::thread inserter([&] {
    auto c = pq_connect(cluster_->proxy().dsn());
    for (int64_t id = kGapFirst; !stop && id < kGapFirst + kGap; ++id) {
      timed([&] {
        SqlResult r = pq_exec(
            c.get(), "INSERT INTO acct (id, balance) VALUES (" + std::to_string(id) + ", 0)");
        if (!r.ok()) error("insert " + std::to_string(id) + ": " + r.sqlstate + " " + r.message);
        if (r.ok()) {
          inserted.push_back(id);
          ++acked_inserts;
        }
        return r.ok();
      });
    }
  });
  // Counters (extended protocol): n of a random row of the range, one per acknowledged update.
  std::map<int64_t, int64_t> increments;
  std::thread counter([&] {
    auto c = pq_connect(cluster_->proxy().dsn());
    std::mt19937 rng(1);
    while (!stop) {
      int64_t id = 100000 + static_cast<int64_t>(rng() % 40000);
      std::string text = std::to_string(id);
      const char* params[] = {text.c_str()};
      timed([&] {
        SqlResult r = take_result(PQexecParams(c.get(), "UPDATE acct SET n = n + 1 WHERE id = $1",
                                               1, nullptr, params, nullptr, nullptr, 0),
                                  c.get());
        if (!r.ok() || r.tag != "UPDATE 1") {
          error("counter " + text + ": " + r.sqlstate + " " + r.message + " " + r.tag);
          return false;
        }
        ++increments[id];
        return true;
      });
    }
  });
  // Blocks: transfers inside the moving range (one shard: the total of balances never
  // changes, in any read), and blocks that mark a row of the range and one of another range
  // (two shards, two-phase commit: m counts them).
  std::atomic<int64_t> marked{0};
  std::thread transfers([&] {
    auto c = pq_connect(cluster_->proxy().dsn());
    std::mt19937 rng(2);
    for (int k = 0; !stop; ++k) {
      int64_t a = 100000 + static_cast<int64_t>(rng() % 40000);
      int64_t b = 100000 + static_cast<int64_t>(rng() % 40000);
      if (a == b) continue;
      const bool across = k % 2 == 1;
      if (across) b = rng() % 2 == 0 ? 1 + rng() % 99999 : 200000 + rng() % 99999;
      timed([&] {
        // One statement per Query: a query string over several shards is refused.
        std::vector<std::string> block = {"BEGIN"};
        if (across) {
          block.push_back("UPDATE acct SET m = m + 1 WHERE id = " + std::to_string(a));
          block.push_back("UPDATE acct SET m = m + 1, note = 'x' WHERE id = " + std::to_string(b));
        } else {
          block.push_back("UPDATE acct SET balance = balance - 7 WHERE id = " + std::to_string(a));
          block.push_back("UPDATE acct SET balance = balance + 7 WHERE id = " + std::to_string(b));
        }
        for (const std::string& sql : block) {
          SqlResult r = pq_exec(c.get(), sql);
          if (!r.ok() || (sql != "BEGIN" && r.tag != "UPDATE 1")) {
            error("block: " + sql + ": " + r.sqlstate + " " + r.message + " " + r.tag);
            pq_exec(c.get(), "ROLLBACK");
            return false;
          }
        }
        SqlResult r = pq_exec(c.get(), "COMMIT");
        if (!r.ok() || r.tag != "COMMIT") {
          error("block: COMMIT: " + r.sqlstate + " " + r.message + " " + r.tag);
          return false;
        }
        if (across) ++marked;
        return true;
      });
    }
  });
  // Readers: the total never changes; a point read always finds its row.
  std::atomic<int> sums{0}, points{0};
  std::thread reader([&] {
    auto c = pq_connect(cluster_->proxy().dsn());
    std::mt19937 rng(3);
    while (!stop) {
      // The transfers stay on one shard: the total is exact in every read (a row read twice or
      // missed would be ~1000 off). Inserts are on one shard each: the count is between those
      // acknowledged before and after.
      const int64_t acked_before = acked_inserts;
      SqlResult r = pq_exec(c.get(), "SELECT sum(balance), count(*) FROM acct");
      const int64_t acked_after = acked_inserts;
      const int64_t off = r.ok() ? std::stoll(r.at(0, 0)) - total : -1;
      const int64_t count = r.ok() ? std::stoll(r.at(0, 1)) - (kRows - kGap) : -1;
      if (!r.ok() || off != 0 || count < acked_before || count > acked_after + 1) {
        error("sum and count: " + r.sqlstate + " " + r.message + " " + r.at(0, 0) + " " +
              r.at(0, 1) + " with " + std::to_string(acked_before) + ".." +
              std::to_string(acked_after) + " inserts acknowledged");
      }
      ++sums;
      for (int k = 0; k < 20; ++k) {
        int64_t id = 100000 + static_cast<int64_t>(rng() % 40000);
        SqlResult p = pq_exec(c.get(), "SELECT id FROM acct WHERE id = " + std::to_string(id));
        if (!p.ok() || p.rows.size() != 1) {
          error("point read " + std::to_string(id) + ": " + p.sqlstate + " " + p.message + " " +
                std::to_string(p.rows.size()) + " rows");
        }
        ++points;
      }
    }
  });

  // Keys of three ranges in one statement, the moving one's and its target's among them, read
  // over and over: each shard the statement goes to gets all three keys, and the target holds
  // a committed copy of the moving range just before the map switches. Every row once.
  std::atomic<int> in_lists{0};
  std::thread in_reader([&] {
    auto c = pq_connect(cluster_->proxy().dsn());
    std::mt19937 rng(5);
    while (!stop) {
      const int64_t a = 1 + static_cast<int64_t>(rng() % 90000);
      const int64_t b = 100000 + static_cast<int64_t>(rng() % 40000);
      const int64_t d = 210000 + static_cast<int64_t>(rng() % 80000);
      SqlResult in =
          pq_exec(c.get(), "SELECT id FROM acct WHERE id IN (" + std::to_string(a) + ", " +
                               std::to_string(b) + ", " + std::to_string(d) + ") ORDER BY id");
      const std::string want = std::to_string(a) + std::to_string(b) + std::to_string(d);
      std::string got;
      for (const auto& row : in.rows) got += row[0];
      if (!in.ok() || got != want) {
        error("keys of three ranges: " + in.sqlstate + " " + in.message + " " + got);
      }
      ++in_lists;
    }
  });

  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  moving = true;
  auto started = Clock::now();
  SqlResult moved = pq_exec(admin.get(), "ALTER RANGE " + range_id + " RELOCATE TO 's3'");
  double took = std::chrono::duration<double>(Clock::now() - started).count();
  moving = false;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  stop = true;
  for (auto* t : {&inserter, &counter, &transfers, &reader, &in_reader}) t->join();
  ASSERT_TRUE(moved.ok()) << moved.sqlstate << " " << moved.message;

  std::cout << "[move under load] 100,000 rows moved in " << took << " s; " << during_move
            << " writes acknowledged during the move; " << sums << " whole-table sums, " << points
            << " point reads\n"
            << "  writes during the move:  " << Latencies::summary(latency.during) << "\n"
            << "  writes outside the move: " << Latencies::summary(latency.outside) << "\n";
  for (size_t i = 0; i < errors.size() && i < 20; ++i) std::cout << "  " << errors[i] << "\n";
  EXPECT_TRUE(errors.empty()) << errors.size() << " errors (listed above)";
  EXPECT_GT(during_move, 100) << "the writes did not go on while the range moved";

  // Every acknowledged write, once.
  EXPECT_EQ(misplaced_rows("acct"), 0);
  auto direct_sum = cluster_->sum_direct("SELECT sum(balance) FROM acct");
  EXPECT_EQ(direct_sum, total);
  // The gap's rows on every shard, read once per shard: each acknowledged insert exactly once
  // over all of them, and nothing else in the gap.
  std::map<int64_t, int> gap_rows;
  for (int i = 0; i < cluster_->size(); ++i) {
    SqlResult g = pq_exec(cluster_->direct(i).get(), "SELECT id FROM acct WHERE id BETWEEN " +
                                                         std::to_string(kGapFirst) + " AND " +
                                                         std::to_string(kGapFirst + kGap - 1));
    ASSERT_TRUE(g.ok()) << "s" << i + 1 << ": " << g.message;
    for (const auto& row : g.rows) ++gap_rows[std::stoll(row.at(0))];
  }
  for (int64_t id : inserted) {
    EXPECT_EQ(gap_rows[id], 1) << "inserted row " << id;
  }
  int64_t gap_total = 0;
  for (const auto& [id, n] : gap_rows) gap_total += n;
  EXPECT_EQ(gap_total, static_cast<int64_t>(inserted.size()));
  int64_t counted = 0;
  for (const auto& [id, k] : increments) counted += k;
  EXPECT_EQ(cluster_->sum_direct("SELECT sum(n) FROM acct"), counted);
  EXPECT_GT(marked, 0);
  EXPECT_EQ(cluster_->sum_direct("SELECT sum(m) FROM acct"), 2 * marked);
  auto [after_id, after_shard] = middle_range(admin.get(), "acct");
  EXPECT_EQ(after_shard, "s3");
  const std::string job = newest_job(admin.get());
  SqlResult shown = pq_exec(admin.get(), "SHOW JOB " + job);
  ASSERT_TRUE(shown.ok()) << shown.message;
  EXPECT_EQ(shown.at(0, 1), "MOVE RANGE");
  EXPECT_EQ(shown.at(0, 3), "succeeded");
  EXPECT_EQ(shown.at(0, 4), "1");
  EXPECT_NE(shown.at(0, 2).find("from shard s2 to shard s3"), std::string::npos) << shown.at(0, 2);
  EXPECT_NE(shown.at(0, 6), "<null>");
  expect_no_leftovers();
}

// Once the map gives the range to the target, writes go on there while the source's rows are
// deleted (a large range's delete takes long); whole-table reads wait until they are gone (they
// would count the range twice). The moving pgrange pauses after letting writes go, widening the
// window.
TEST_F(RangeMoveTest, WritesGoOnWhileTheOldRowsGoButWholeTableReadsWait) {
  make_table("released");
  if (HasFatalFailure()) return;
  auto admin = cluster_->client();
  PausedMove move("released", 4000);
  ASSERT_FALSE(move.ended()) << "the move ended before its map switched: " << move.join().message;
  // A write to the moving range, through another pgrange, while the source still has the rows.
  SqlResult write = pq_exec(admin.get(), "UPDATE released SET n = n + 1 WHERE id = 160000");
  EXPECT_TRUE(write.ok() && write.tag == "UPDATE 1") << write.message << " " << write.tag;
  EXPECT_FALSE(move.ended()) << "the write waited for the old rows' delete";
  EXPECT_EQ(cluster_->shard(1).exec("SELECT count(*) FROM released WHERE id = 160000", "app"),
            "1");  // the source's copy is still there
  SqlResult point = pq_exec(admin.get(), "SELECT n FROM released WHERE id = 160000");
  EXPECT_TRUE(point.ok() && point.at(0, 0) == "1") << point.message;
  // A whole-table read waits for the delete, then counts every row once.
  SqlResult whole = pq_exec(admin.get(), "SELECT count(*), sum(n) FROM released");
  // The hold ends after the source's delete, a moment before the move's own answer reaches its
  // client: the source's copy is gone, whether or not the move's client heard of it yet.
  EXPECT_EQ(cluster_->shard(1).exec("SELECT count(*) FROM released WHERE id = 160000", "app"), "0")
      << "a whole-table read ran while the range was on two shards";
  ASSERT_TRUE(whole.ok()) << whole.message;
  EXPECT_EQ(whole.at(0, 0), std::to_string(kRows - kGap));
  EXPECT_EQ(whole.at(0, 1), "1");
  EXPECT_TRUE(move.join().ok()) << move.join().message;
  EXPECT_EQ(middle_range(admin.get(), "released").second, "s3");
  EXPECT_EQ(misplaced_rows("released"), 0);
  expect_no_leftovers();
}

// The source stops (as a crash would) after the switch, before its rows are deleted: the move
// has happened (writes go to the target), whole-table reads wait, and once the source is back
// the clean-up deletes its copy of the range and lets them go on.
TEST_F(RangeMoveTest, ASourceDownWhenItsRowsShouldGoIsCleanedUpWhenBack) {
  make_table("source_down");
  if (HasFatalFailure()) return;
  auto admin = cluster_->client();
  PausedMove move("source_down", 3000);
  ASSERT_FALSE(move.ended()) << "the move ended before its map switched: " << move.join().message;
  cluster_->shard(1).stop();
  // The map switched: the move succeeded, saying what is left to do.
  EXPECT_TRUE(move.join().ok()) << move.join().message;
  SqlResult job = pq_exec(admin.get(), "SHOW JOB " + newest_job(admin.get()));
  ASSERT_TRUE(job.ok()) << job.message;
  EXPECT_EQ(job.at(0, 3), "succeeded");
  EXPECT_NE(job.at(0, 7).find("retried in the background"), std::string::npos) << job.at(0, 7);
  // Writes to the moved range go on at the target while the source is down.
  SqlResult write = pq_exec(admin.get(), "UPDATE source_down SET n = n + 1 WHERE id = 160000");
  EXPECT_TRUE(write.ok() && write.tag == "UPDATE 1") << write.message << " " << write.tag;
  cluster_->shard(1).start_again();
  // Whole-table reads wait for the clean-up, then see every row once.
  SqlResult whole = pq_exec(admin.get(), "SELECT count(*), sum(n) FROM source_down");
  ASSERT_TRUE(whole.ok()) << whole.message;
  EXPECT_EQ(whole.at(0, 0), std::to_string(kRows - kGap));
  EXPECT_EQ(whole.at(0, 1), "1");
  EXPECT_EQ(cluster_->shard(1).exec("SELECT count(*) FROM source_down WHERE id >= 125000", "app"),
            "0");
  EXPECT_EQ(misplaced_rows("source_down"), 0);
  auto deadline = Clock::now() + std::chrono::seconds(30);
  while (Clock::now() < deadline &&
         cluster_->shard(1).exec("SELECT count(*) FROM pg_publication", "app") != "0") {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  expect_no_leftovers();
}

TEST_F(RangeMoveTest, CancelJobRollsTheMoveBack) {
  make_table("cancelled");
  if (HasFatalFailure()) return;
  auto admin = cluster_->client();
  auto [range_id, from] = middle_range(admin.get(), "cancelled");
  const std::string before = cluster_->shard(1).exec("SELECT sum(id) FROM cancelled", "app");
  SqlResult moved;
  std::thread mover([&] {
    auto c = pq_connect(cluster_->proxy().dsn());
    moved = pq_exec(c.get(), "ALTER RANGE " + range_id + " RELOCATE TO 's1'");
  });
  // As soon as the job shows, from another session: cancel it.
  std::string job;
  auto deadline = Clock::now() + std::chrono::seconds(30);
  while (Clock::now() < deadline) {
    SqlResult jobs = pq_exec(admin.get(), "SHOW JOBS");
    if (jobs.ok() && !jobs.rows.empty() && jobs.rows.back()[3] == "running" &&
        jobs.rows.back()[2].find("of cancelled") != std::string::npos) {
      job = jobs.rows.back()[0];
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_FALSE(job.empty());
  SqlResult cancel = pq_exec(admin.get(), "CANCEL JOB " + job);
  EXPECT_TRUE(cancel.ok()) << cancel.message;
  mover.join();
  EXPECT_FALSE(moved.ok());
  EXPECT_EQ(moved.sqlstate, "57014") << moved.message;
  EXPECT_EQ(job_status(admin.get(), job), "canceled");
  // Cancelling it again, or a job that does not exist, says why.
  EXPECT_EQ(pq_exec(admin.get(), "CANCEL JOB " + job).sqlstate, "55000");
  EXPECT_EQ(pq_exec(admin.get(), "CANCEL JOB 999999").sqlstate, "42704");
  EXPECT_EQ(pq_exec(admin.get(), "SHOW JOB 999999").sqlstate, "42704");
  EXPECT_EQ(middle_range(admin.get(), "cancelled").second, from);
  EXPECT_EQ(cluster_->shard(1).exec("SELECT sum(id) FROM cancelled", "app"), before);
  EXPECT_EQ(misplaced_rows("cancelled"), 0);
  expect_no_leftovers();
  // The range moves once asked again.
  SqlResult again = pq_exec(admin.get(), "ALTER RANGE " + range_id + " RELOCATE TO 's1'");
  EXPECT_TRUE(again.ok()) << again.message;
  EXPECT_EQ(misplaced_rows("cancelled"), 0);
}

TEST_F(RangeMoveTest, ACrashAtEachStepOfAMoveIsRecovered) {
  make_table("crashed");
  if (HasFatalFailure()) return;
  auto admin = cluster_->client();
  const std::string sum = std::to_string(cluster_->sum_direct("SELECT sum(id) FROM crashed"));
  struct Step {
    const char* point;
    bool moves;  // the map had switched: recovery finishes the move
  };
  for (Step step : {Step{"move_copied", false}, Step{"move_prepared", false},
                    Step{"move_target_committed", false}, Step{"move_switched", true},
                    Step{"move_writes_released", true}}) {
    SCOPED_TRACE(step.point);
    auto [range_id, from] = middle_range(admin.get(), "crashed");
    const std::string to = from == "s2" ? "s3" : "s2";
    auto dying = cluster_->start_proxy(step.point);
    auto c = pq_connect(dying->dsn());
    SqlResult moved = pq_exec(c.get(), "ALTER RANGE " + range_id + " RELOCATE TO '" + to + "'");
    EXPECT_FALSE(moved.ok()) << "pgrange did not die at " << step.point;
    const std::string job = newest_job(admin.get());
    // The surviving pgrange notices the silence (10 s) and settles the move: the prepared copy,
    // then the rows on the shard the map does not name, then the hold.
    std::string status;
    auto holds = [&] {
      return cluster_->shard(0).exec("SELECT count(*) FROM pgrange_range_holds", "pgrange_meta");
    };
    auto deadline = Clock::now() + std::chrono::seconds(60);
    while (Clock::now() < deadline) {
      status = job_status(admin.get(), job);
      if (status != "running" && cluster_->prepared_left() == 0 && holds() == "0") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    EXPECT_EQ(status, step.moves ? "succeeded" : "failed");
    // Writes to the range go through (its hold is gone) and the rows are where the map says.
    SqlResult write = pq_exec(admin.get(), "UPDATE crashed SET n = n + 1 WHERE id = 100001");
    EXPECT_TRUE(write.ok() && write.tag == "UPDATE 1") << write.message << " " << write.tag;
    EXPECT_EQ(middle_range(admin.get(), "crashed").second, step.moves ? to : from);
    EXPECT_EQ(misplaced_rows("crashed"), 0);
    EXPECT_EQ(std::to_string(cluster_->sum_direct("SELECT sum(id) FROM crashed")), sum);
    expect_no_leftovers();
  }
}

TEST_F(RangeMoveTest, AShardStoppedDuringACopyFailsTheMoveCleanly) {
  // The target (s3), then the source (s2), stops as a crash would (immediate shutdown: no
  // checkpoint, the server recovers from its WAL when it starts again) while the rows copy.
  for (int down : {2, 1}) {
    SCOPED_TRACE(down == 2 ? "the target stops" : "the source stops");
    const std::string table = down == 2 ? "stopped" : "stopped_source";
    make_table(table);
    if (HasFatalFailure()) return;
    auto admin = cluster_->client();
    auto [range_id, from] = middle_range(admin.get(), table);
    ASSERT_EQ(from, "s2");
    SqlResult moved;
    std::thread mover([&] {
      auto c = pq_connect(cluster_->proxy().dsn());
      moved = pq_exec(c.get(), "ALTER RANGE " + range_id + " RELOCATE TO 's3'");
    });
    auto deadline = Clock::now() + std::chrono::seconds(30);
    while (Clock::now() < deadline &&
           job_status(admin.get(), newest_job(admin.get())) != "running") {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    cluster_->shard(down).stop();
    mover.join();
    EXPECT_FALSE(moved.ok()) << "the move went through while a shard of it was down";
    EXPECT_EQ(job_status(admin.get(), newest_job(admin.get())), "failed");
    cluster_->shard(down).start_again();
    EXPECT_EQ(middle_range(admin.get(), table).second, "s2");
    EXPECT_EQ(misplaced_rows(table), 0);
    // What the failed move could not clean up while the shard was down (a prepared
    // transaction, the source's publication) is settled by recovery.
    deadline = Clock::now() + std::chrono::seconds(30);
    auto publications = [&] {
      return cluster_->shard(1).exec("SELECT count(*) FROM pg_publication", "app");
    };
    while (Clock::now() < deadline && (cluster_->prepared_left() != 0 || publications() != "0")) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    expect_no_leftovers();
    SqlResult write = pq_exec(admin.get(), "UPDATE " + table + " SET n = n + 1 WHERE id = 100001");
    EXPECT_TRUE(write.ok() && write.tag == "UPDATE 1") << write.message << " " << write.tag;
    SqlResult sum = pq_exec(admin.get(), "SELECT sum(balance), count(*) FROM " + table);
    ASSERT_TRUE(sum.ok()) << sum.message;
    EXPECT_EQ(sum.at(0, 0), std::to_string((kRows - kGap) * kBalance));
    EXPECT_EQ(sum.at(0, 1), std::to_string(kRows - kGap));
  }
}

TEST_F(RangeMoveTest, HotRangesShowTheLoadOfEveryInstance) {
  make_table("hot");
  if (HasFatalFailure()) return;
  auto admin = cluster_->client();
  auto [hot_id, hot_shard] = middle_range(admin.get(), "hot");
  // The load goes through a second pgrange; the first one answers SHOW HOT RANGES.
  auto other = cluster_->start_proxy();
  std::atomic<bool> stop{false};
  std::atomic<int> done{0};
  std::thread load([&] {
    auto c = pq_connect(other->dsn());
    std::mt19937 rng(4);
    while (!stop) {
      int64_t id = 100000 + static_cast<int64_t>(rng() % 40000);
      pq_exec(c.get(), (done % 4 == 0 ? "UPDATE hot SET n = n + 1 WHERE id = "
                                      : "SELECT n FROM hot WHERE id = ") +
                           std::to_string(id));
      ++done;
    }
  });
  SqlResult shown;
  auto deadline = Clock::now() + std::chrono::seconds(30);
  while (Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    shown = pq_exec(admin.get(), "SHOW HOT RANGES");
    if (shown.ok() && !shown.rows.empty() && shown.at(0, 0) == hot_id &&
        std::stod(shown.at(0, 7)) > 0 && std::stod(shown.at(0, 8)) > 0) {
      break;
    }
  }
  stop = true;
  load.join();
  ASSERT_TRUE(shown.ok()) << shown.message;
  ASSERT_EQ(shown.at(0, 0), hot_id) << "the hottest range";
  EXPECT_EQ(shown.at(0, 1), "hot");
  EXPECT_EQ(shown.at(0, 2), "hot_pkey");
  EXPECT_EQ(shown.at(0, 3), hot_shard);
  EXPECT_EQ(shown.at(0, 4).rfind("/Table/", 0), 0u) << shown.at(0, 4);  // a full key
  EXPECT_NE(shown.at(0, 4).find("/1/100000"), std::string::npos) << shown.at(0, 4);
  EXPECT_NE(shown.at(0, 5).find("/1/200000"), std::string::npos) << shown.at(0, 5);
  const double qps = std::stod(shown.at(0, 6));
  const double reads = std::stod(shown.at(0, 7));
  const double writes = std::stod(shown.at(0, 8));
  EXPECT_GT(qps, 20) << done << " statements";
  EXPECT_NEAR(qps, reads + writes, 0.2);
  EXPECT_GT(reads, writes);  // three reads to one write
  // Every range is listed, the idle ones after it.
  SqlResult all = pq_exec(admin.get(), "SHOW RANGES");
  EXPECT_EQ(shown.rows.size(), all.rows.size());
  for (size_t i = 1; i < shown.rows.size(); ++i) {
    EXPECT_LE(std::stod(shown.rows[i][6]), qps) << "row " << i;
  }
}

}  // namespace
}  // namespace pgrange::testing
