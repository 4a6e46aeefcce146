// pgbench's TPC-B-like script through a pgrange whose range manager is busy the whole time:
// ranges of the pgbench tables split by size and by load, move between the three shards and
// merge again, while eight clients run transactions over up to three shards. No transaction
// fails, and afterwards the bank invariant holds, on the shards and through pgrange:
// sum(abalance) = sum(bbalance) = sum(tbalance) = sum(delta), every row on one shard, one
// history row per committed transaction, nothing left prepared, no replication slot or
// publication behind.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <string>

#include "tests/support/pgbench_cluster.hpp"
#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {
namespace {

TEST(TpcbManagerTest, TheBankAddsUpWhileRangesSplitMoveAndMerge) {
  PgbenchCluster cluster;
  PgbenchCluster::Options o;
  o.table_before_import = true;
  std::string error = cluster.set_up(o);
  ASSERT_TRUE(error.empty()) << error;
  // Small limits: pgbench_accounts (some 24 MB of rows in 6 ranges) splits by size however fast
  // the machine is, the busy ranges by load as far as it is fast enough, and the shards' load
  // and size even out; cold small neighbours merge after 5 s.
  auto manager = cluster.start_managing_proxy(
      "range_max_mb = 2\nsplit_qps = 150\nmerge_delay_s = 5\ncheck_interval_ms = 500\n");
  PgbenchOptions run_options;
  run_options.port = manager->port();
  run_options.mode = "simple";
  run_options.seconds = 40;
  run_options.clients = 8;
  run_options.timeout = std::chrono::seconds(160);
  run_options.lowercase_error_lines = true;
  run_options.label = "range manager busy";
  PgbenchRun run = run_pgbench(run_options);
  cluster.expect_clean(run);
  // Extended protocol too, after the first wave of changes.
  run_options.mode = "extended";
  run_options.seconds = 15;
  run_options.label = "range manager busy, extended";
  PgbenchRun extended = run_pgbench(run_options);
  cluster.expect_clean(extended);

  // What the manager did, by kind.
  auto c = pq_connect(manager->dsn());
  SqlResult jobs = pq_exec(c.get(), "SHOW JOBS");
  ASSERT_TRUE(jobs.ok()) << jobs.message;
  std::map<std::string, int> done, failed;
  for (const auto& row : jobs.rows) {
    (row[3] == "succeeded" ? done : failed)[row[1]]++;
    if (row[3] != "succeeded") std::cout << "[ job      ] " << row[3] << ": " << row[2] << "\n";
  }
  std::cout << "[ manager  ] splits " << done["SPLIT RANGE"] << ", moves " << done["MOVE RANGE"]
            << ", merges " << done["MERGE RANGES"] << " (failed: " << failed.size() << " kinds)\n";
  EXPECT_GT(done["SPLIT RANGE"], 0);
  EXPECT_GT(done["MOVE RANGE"], 0);
  manager.reset();  // a move in progress stops with it

  ASSERT_EQ(cluster.prepared_left(), 0) << "prepared transactions left on the shards";
  BankFigures figures;
  cluster.expect_bank_invariant("; range manager at work", &figures);
  if (figures.read) {
    EXPECT_EQ(figures.on_shards["history rows"], run.processed + extended.processed);
  }
  for (int i = 0; i < PgbenchCluster::kShards; ++i) {
    EXPECT_EQ(cluster.shard(i).exec("SELECT count(*) FROM pg_replication_slots"), "0");
    EXPECT_EQ(cluster.shard(i).exec("SELECT count(*) FROM pg_publication", "app"), "0");
  }
}

}  // namespace
}  // namespace pgrange::testing
