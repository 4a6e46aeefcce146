// `pgbench -i` through pgrange over three shards, unchanged: its DROP and CREATE TABLE, the
// transaction block with TRUNCATE and COPY … FREEZE of every table, VACUUM, and ALTER TABLE …
// ADD PRIMARY KEY. With the tables configured (keys and split points) they start split and
// spread, and COPY routes every row to its shard; without, they start unsharded and the primary
// keys pgbench adds last key them, ready for SPLIT AT and SCATTER. Either way pgbench's TPC-B
// (simple and prepared) and select-only scripts then run with no failure, and the bank invariant
// holds through pgrange and on the shards.
#include <gtest/gtest.h>

#include <iostream>
#include <set>
#include <string>

#include "tests/support/pgbench_cluster.hpp"
#include "tests/support/proxy_process.hpp"
#include "tests/support/sanitizer.hpp"

namespace pgrange::testing {
namespace {

/// What every initialised cluster must show: pgbench's row counts through pgrange and on the
/// shards, each row on exactly one shard, the invariant (all balances 0), nothing prepared.
void expect_initialised(PgbenchCluster& cluster, bool reference = false) {
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
    // A reference table's rows are on every shard.
    long copies = reference && (table == "pgbench_tellers" || table == "pgbench_branches")
                      ? PgbenchCluster::kShards
                      : 1;
    EXPECT_EQ(cluster.on_shards("SELECT count(*) FROM " + table), copies * n)
        << table << " on the shards";
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
    o.seconds = sanitized_run() ? 3 : 6;  // long enough for many transactions either way
    o.label = "-M " + mode;
    PgbenchRun run = run_pgbench(o);
    cluster.expect_clean(run);
    processed += run.processed;
  }
  PgbenchOptions o;
  o.port = cluster.proxy().port();
  o.select_only = true;
  o.seconds = sanitized_run() ? 2 : 4;
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

// pgbench_tellers and pgbench_branches as reference tables (every shard holds all of their
// rows), the accounts and history split in thirds: pgbench -i fills every copy, TPC-B writes
// them on every shard in both protocols, and afterwards every shard's copy is the same and the
// invariant holds. Joins with them stay on the accounts' shard; what would make the copies
// differ, split or move them is refused; a foreign key may reference them.
TEST(PgbenchInitTest, TellersAndBranchesAsReferenceTables) {
  PgbenchCluster cluster;
  PgbenchCluster::Options options;
  options.setup = PgbenchCluster::Setup::kInitReference;
  std::string error = cluster.set_up(options);
  ASSERT_TRUE(error.empty()) << error;
  expect_initialised(cluster, true);
  expect_pgbench_runs(cluster);

  auto c = pq_connect(cluster.proxy().dsn());
  ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
  // A join of one account with its branch and tellers runs where the account is; a join over
  // every account reads the branches once.
  SqlResult r = pq_exec(c.get(),
                        "SELECT a.aid, b.bid, count(t.tid) FROM pgbench_accounts a JOIN "
                        "pgbench_branches b ON b.bid = a.bid JOIN pgbench_tellers t ON t.bid = "
                        "b.bid WHERE a.aid = 150000 GROUP BY a.aid, b.bid");
  ASSERT_TRUE(r.ok()) << r.sqlstate << " " << r.message;
  EXPECT_EQ(r.at(0, 0), "150000");
  EXPECT_EQ(r.at(0, 1), "2");
  EXPECT_EQ(r.at(0, 2), "10");
  r = pq_exec(c.get(),
              "SELECT b.bid, count(*) FROM pgbench_accounts a JOIN pgbench_branches b USING (bid) "
              "GROUP BY b.bid ORDER BY b.bid");
  ASSERT_TRUE(r.ok()) << r.sqlstate << " " << r.message;
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.at(0, 1), "100000");
  EXPECT_EQ(r.at(1, 1), "100000");
  // An UPDATE reading a reference table runs on the accounts' shards, each with every branch.
  r = pq_exec(c.get(),
              "UPDATE pgbench_accounts a SET filler = 'b' || b.bid FROM pgbench_branches b WHERE "
              "b.bid = a.bid AND a.aid IN (1, 100001, 199999)");
  ASSERT_TRUE(r.ok()) << r.sqlstate << " " << r.message;
  EXPECT_EQ(r.tag, "UPDATE 3");
  EXPECT_EQ(cluster.on_shards("SELECT count(*) FROM pgbench_accounts WHERE filler LIKE 'b%'"), 3);

  // A read of reference tables only goes to any shard, in turns: with one copy changed behind
  // pgrange's back, consecutive reads of a session see both values.
  {
    auto d = cluster.direct(1);
    SqlResult marked =
        pq_exec(d.get(),
                "UPDATE pgbench_branches SET bbalance = bbalance + 1000000 WHERE bid = 1 "
                "RETURNING bbalance");
    ASSERT_TRUE(marked.ok()) << marked.message;
    std::set<std::string> seen;
    for (int i = 0; i < 6; ++i) {
      SqlResult one = pq_exec(c.get(), "SELECT bbalance FROM pgbench_branches WHERE bid = 1");
      ASSERT_TRUE(one.ok()) << one.message;
      seen.insert(one.at());
    }
    EXPECT_EQ(seen.size(), 2u) << "the reads did not take turns over the shards' copies";
    EXPECT_EQ(seen.count(marked.at()), 1u);
    pq_exec(d.get(), "UPDATE pgbench_branches SET bbalance = bbalance - 1000000 WHERE bid = 1");
  }

  // Writes: the first shard's answer, RETURNING once; the copies stay equal.
  r = pq_exec(c.get(), "UPDATE pgbench_tellers SET filler = 'x' WHERE tid <= 3 RETURNING tid");
  ASSERT_TRUE(r.ok()) << r.sqlstate << " " << r.message;
  EXPECT_EQ(r.tag, "UPDATE 3");
  EXPECT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(cluster.on_shards("SELECT count(*) FROM pgbench_tellers WHERE filler = 'x'"), 9);
  for (const char* sql :
       {"UPDATE pgbench_branches SET bbalance = bbalance + (random() * 10)::int",
        "UPDATE pgbench_tellers SET filler = now()::text WHERE tid = 1",
        "INSERT INTO pgbench_branches (bid, bbalance, filler) VALUES (99, 0, CURRENT_TIMESTAMP)"}) {
    r = pq_exec(c.get(), sql);
    EXPECT_EQ(r.sqlstate, "0A000") << sql << ": " << r.message;
  }
  // A write to a reference table that reads a table spread over the shards: each shard would
  // see only its own accounts.
  r = pq_exec(c.get(),
              "UPDATE pgbench_branches b SET filler = (SELECT count(*) FROM pgbench_accounts a "
              "WHERE a.bid = b.bid)::text");
  EXPECT_TRUE(r.ok() || r.sqlstate == "0A000") << r.sqlstate << " " << r.message;
  if (r.ok()) {
    EXPECT_EQ(cluster.on_shards("SELECT count(*) FROM pgbench_branches WHERE filler = '100000'"),
              PgbenchCluster::kShards * PgbenchCluster::kBranches);
  }
  // Its one range never splits or moves.
  r = pq_exec(c.get(), "ALTER TABLE pgbench_tellers SPLIT AT VALUES (5)");
  EXPECT_EQ(r.sqlstate, "0A000") << r.message;
  r = pq_exec(c.get(), "ALTER TABLE pgbench_tellers SCATTER");
  EXPECT_TRUE(r.ok() || r.sqlstate == "0A000") << r.sqlstate << " " << r.message;

  // A foreign key referencing a reference table is checked on every shard exactly.
  r = pq_exec(c.get(),
              "CREATE TABLE branch_notes (id int PRIMARY KEY, bid int NOT NULL REFERENCES "
              "pgbench_branches (bid), note text)");
  ASSERT_TRUE(r.ok()) << r.sqlstate << " " << r.message;
  r = pq_exec(c.get(), "ALTER TABLE branch_notes SPLIT AT VALUES (100)");
  ASSERT_TRUE(r.ok()) << r.sqlstate << " " << r.message;
  r = pq_exec(c.get(), "INSERT INTO branch_notes VALUES (1, 1, 'a'), (200, 2, 'b')");
  ASSERT_TRUE(r.ok()) << r.sqlstate << " " << r.message;
  r = pq_exec(c.get(), "INSERT INTO branch_notes VALUES (300, 99, 'none')");
  EXPECT_EQ(r.sqlstate, "23503") << r.message;
  r = pq_exec(c.get(), "DELETE FROM pgbench_branches WHERE bid = 2");
  EXPECT_EQ(r.sqlstate, "23503") << r.message;
  EXPECT_EQ(cluster.on_shards("SELECT count(*) FROM pgbench_branches"),
            PgbenchCluster::kShards * PgbenchCluster::kBranches);
  // A foreign key from a reference table to a spread one stays refused.
  r = pq_exec(c.get(),
              "ALTER TABLE pgbench_tellers ADD FOREIGN KEY (tid) REFERENCES branch_notes (id)");
  EXPECT_EQ(r.sqlstate, "0A000") << r.message;

  // Defaults each shard would compute on its own are refused; pgrange's own keys are not.
  for (const char* sql :
       {"CREATE TABLE ref_stamped (id serial PRIMARY KEY, at timestamptz DEFAULT now())",
        "CREATE TABLE ref_stamped (id int PRIMARY KEY, n bigserial)",
        "CREATE TABLE ref_stamped (id int PRIMARY KEY, u uuid DEFAULT gen_random_uuid())",
        "CREATE TABLE ref_stamped (id int PRIMARY KEY, d date DEFAULT CURRENT_DATE)"}) {
    r = pq_exec(c.get(), sql);
    EXPECT_EQ(r.sqlstate, "0A000") << sql << ": " << r.message;
  }
  r = pq_exec(c.get(), "CREATE TABLE ref_stamped (id serial PRIMARY KEY, note text DEFAULT 'x')");
  ASSERT_TRUE(r.ok()) << r.sqlstate << " " << r.message;
  r = pq_exec(c.get(), "INSERT INTO ref_stamped (note) VALUES ('a'), (DEFAULT) RETURNING id");
  ASSERT_TRUE(r.ok()) << r.sqlstate << " " << r.message;
  ASSERT_EQ(r.rows.size(), 2u);
  for (int i = 0; i < PgbenchCluster::kShards; ++i) {
    auto d = cluster.direct(i);
    SqlResult on =
        pq_exec(d.get(), "SELECT string_agg(id || note, ',' ORDER BY id) FROM ref_stamped");
    EXPECT_EQ(on.at(), r.at(0, 0) + "a," + r.at(1, 0) + "x") << PgbenchCluster::shard_name(i);
  }
  for (const char* sql : {"ALTER TABLE ref_stamped ALTER COLUMN note SET DEFAULT random()::text",
                          "ALTER TABLE ref_stamped ADD COLUMN at timestamptz DEFAULT now()"}) {
    r = pq_exec(c.get(), sql);
    EXPECT_EQ(r.sqlstate, "0A000") << sql << ": " << r.message;
  }
  r = pq_exec(c.get(), "ALTER TABLE ref_stamped ALTER COLUMN note SET DEFAULT 'y'");
  EXPECT_TRUE(r.ok()) << r.sqlstate << " " << r.message;

  // Made inside a transaction block, with its rows: a reference table once committed.
  for (const char* sql : {"BEGIN", "CREATE TABLE ref_block (k text PRIMARY KEY, v int)",
                          "INSERT INTO ref_block VALUES ('a', 1), ('b', 2)",
                          "UPDATE ref_block SET v = v + 10 WHERE k = 'b'", "COMMIT"}) {
    r = pq_exec(c.get(), sql);
    ASSERT_TRUE(r.ok()) << sql << ": " << r.sqlstate << " " << r.message;
  }
  EXPECT_EQ(cluster.on_shards("SELECT sum(v) FROM ref_block"), PgbenchCluster::kShards * 13);
  r = pq_exec(c.get(), "SHOW RANGES FROM TABLE ref_block WITH INDEXES");
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.at(0, 3), "s1,s2,s3");
  EXPECT_EQ(r.at(0, 6), "(reference)");

  BankFigures figures;
  cluster.expect_bank_invariant(" after the reference table checks", &figures);
}

}  // namespace
}  // namespace pgrange::testing
