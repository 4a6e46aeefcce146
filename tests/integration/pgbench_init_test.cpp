// `pgbench -i` through pgrange over three shards, unchanged: its DROP and CREATE TABLE, the
// transaction block with TRUNCATE and COPY … FREEZE of every table, VACUUM, and ALTER TABLE …
// ADD PRIMARY KEY. With the tables configured (keys and split points) they start split and
// spread, and COPY routes every row to its shard; without, they start unsharded and the primary
// keys pgbench adds last key them, ready for SPLIT AT and SCATTER. Either way pgbench's TPC-B
// (simple and prepared) and select-only scripts then run with no failure, and the bank invariant
// holds through pgrange and on the shards.
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "tests/support/pgbench_cluster.hpp"
#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {
namespace {

/// What every initialised cluster must show: pgbench's row counts through pgrange and on the
/// shards, each row on exactly one shard, the invariant (all balances 0), nothing prepared.
void expect_initialised(PgbenchCluster& cluster) {
  auto c = pq_connect(cluster.proxy().dsn());
  ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
  const std::vector<std::pair<std::string, long>> counts = {
      {"pgbench_accounts", PgbenchCluster::kAccounts},
      {"pgbench_tellers", PgbenchCluster::kTellers},
      {"pgbench_branches", PgbenchCluster::kBranches},
      {"pgbench_history", 0}};
  for (const auto& [table, n] : counts) {
    SqlResult r = pq_exec(c.get(), "SELECT count(*) FROM " + table);
    ASSERT_TRUE(r.ok()) << table << ": " << r.message;
    EXPECT_EQ(r.at(), std::to_string(n)) << table << " through pgrange";
    EXPECT_EQ(cluster.on_shards("SELECT count(*) FROM " + table), n) << table << " on the shards";
  }
  // pgbench's VACUUM ran on every shard; its primary keys exist everywhere.
  EXPECT_EQ(cluster.on_shards("SELECT count(*) FROM pg_indexes WHERE indexname = "
                              "'pgbench_accounts_pkey'"),
            PgbenchCluster::kShards);
  BankFigures figures;
  cluster.expect_bank_invariant(" after pgbench -i", &figures);
  EXPECT_EQ(cluster.prepared_left(), 0);
}

/// TPC-B in both protocols and select-only: no failure, the invariant holds.
void expect_pgbench_runs(PgbenchCluster& cluster) {
  long processed = 0;
  for (const std::string mode : {"simple", "prepared"}) {
    PgbenchOptions o;
    o.port = cluster.proxy().port();
    o.mode = mode;
    o.seconds = 6;
    o.label = "-M " + mode;
    PgbenchRun run = run_pgbench(o);
    cluster.expect_clean(run);
    processed += run.processed;
  }
  PgbenchOptions o;
  o.port = cluster.proxy().port();
  o.select_only = true;
  o.seconds = 4;
  o.label = "-S";
  cluster.expect_clean(run_pgbench(o));
  BankFigures figures;
  cluster.expect_bank_invariant(" after TPC-B", &figures);
  EXPECT_EQ(figures.on_shards["history rows"], processed);
  EXPECT_EQ(cluster.wait_until_nothing_prepared(std::chrono::seconds(10)) >= 0, true);
}

TEST(PgbenchInitTest, ConfiguredTablesStartSplitAndSpread) {
  PgbenchCluster cluster;
  PgbenchCluster::Options options;
  options.setup = PgbenchCluster::Setup::kInitConfigured;
  std::string error = cluster.set_up(options);
  ASSERT_TRUE(error.empty()) << error;
  expect_initialised(cluster);
  // Every shard got a third of the accounts, straight from pgbench's COPY.
  for (int i = 0; i < PgbenchCluster::kShards; ++i) {
    auto d = cluster.direct(i);
    SqlResult r = pq_exec(d.get(), "SELECT count(*) FROM pgbench_accounts");
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_GT(std::stol(r.at()), PgbenchCluster::kAccounts / 4) << PgbenchCluster::shard_name(i);
  }
  expect_pgbench_runs(cluster);
  // Initialising again (dropping the tables pgbench ran on) starts over the same way.
  error = cluster.init_through_pgrange();
  ASSERT_TRUE(error.empty()) << error;
  expect_initialised(cluster);
}

TEST(PgbenchInitTest, UnconfiguredTablesAreKeyedByTheirPrimaryKeys) {
  PgbenchCluster cluster;
  PgbenchCluster::Options options;
  options.setup = PgbenchCluster::Setup::kInitPlain;
  std::string error = cluster.set_up(options);
  ASSERT_TRUE(error.empty()) << error;
  auto c = pq_connect(cluster.proxy().dsn());
  SqlResult key = pq_exec(c.get(), "SHOW RANGE FROM TABLE pgbench_accounts FOR ROW (1)");
  ASSERT_TRUE(key.ok()) << key.message;
  expect_initialised(cluster);
  expect_pgbench_runs(cluster);
}

}  // namespace
}  // namespace pgrange::testing
