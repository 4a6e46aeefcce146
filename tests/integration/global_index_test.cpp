// Global secondary indexes through pgrange over three real PostgreSQL 15 shards, checked on the
// shards directly and against one plain PostgreSQL (database "ref" on the first server):
// CREATE INDEX builds the index's backend table on every shard, its own range and the entries
// of the rows already there; INSERT, UPDATE, DELETE and COPY keep every row's entry in step in
// the same transaction (two-phase commit across shards); a UNIQUE index refuses duplicates
// across shards with PostgreSQL's error; lookups by the indexed column answer as PostgreSQL
// does; SPLIT AT, RELOCATE and DROP INDEX reshape and remove the index's ranges.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/support/shard_cluster.hpp"

namespace pgrange::testing {
namespace {

/// The rows of a result as lines, for comparisons that show where they differ.
std::string text_of(const SqlResult& r) {
  if (!r.ok()) return "ERROR " + r.sqlstate + ": " + r.message + "\n";
  std::string out;
  for (const auto& row : r.rows) {
    for (size_t i = 0; i < row.size(); ++i) out += (i > 0 ? "|" : "") + row[i];
    out += "\n";
  }
  return out;
}

class GlobalIndexTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ShardCluster::Options o;
    o.databases = {"app", "ref"};
    cluster_ = ShardCluster::start(o).release();
    const std::string users =
        "CREATE TABLE users (id int8 PRIMARY KEY, email text, name text, city text, n int4)";
    ASSERT_EQ(cluster_->run_setup({users}, ShardCluster::Target::kPgrangeAndReference), "");
    ASSERT_EQ(cluster_->run_setup(
                  {"ALTER TABLE users SPLIT AT VALUES (400), (800)", "ALTER TABLE users SCATTER"}),
              "");
    // 1,200 rows over the three ranges before any index exists (the index build backfills).
    std::string values;
    for (int id = 1; id <= 1200; ++id) {
      values += (values.empty() ? "" : ", ") + ("(" + std::to_string(id)) + ", 'user" +
                std::to_string(id) + "@example.com', 'name" + std::to_string(id % 37) + "', 'city" +
                std::to_string(id % 11) + "', " + std::to_string(id % 7) + ")";
    }
    ASSERT_EQ(cluster_->run_setup({"INSERT INTO users VALUES " + values},
                                  ShardCluster::Target::kPgrangeAndReference),
              "");
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }

  /// Runs `sql` through pgrange and on the reference; both must give the same answer.
  static void expect_same(PGconn* c, PGconn* ref, const std::string& sql) {
    SCOPED_TRACE(sql);
    std::string got = text_of(pq_exec(c, sql));
    std::string want = text_of(pq_exec(ref, sql));
    EXPECT_EQ(got, want) << first_difference(got, want);
  }

  /// Every row of `table` on the shards has exactly one entry in `table@index` (its indexed
  /// column and key) and every entry its row; each entry is on the shard owning its key (the
  /// index ranges' row counts, each read on its shard, add up to all the entries).
  static void expect_consistent(const std::string& table, const std::string& index,
                                const std::string& column) {
    std::multiset<std::string> rows, entries;
    for (int i = 0; i < cluster_->size(); ++i) {
      auto d = cluster_->direct(i);
      SqlResult r = pq_exec(d.get(), "SELECT id::text || '/' || coalesce(" + column +
                                         "::text, 'NULL') FROM " + table);
      ASSERT_TRUE(r.ok()) << r.message;
      for (const auto& row : r.rows) rows.insert(row[0]);
      SqlResult e = pq_exec(d.get(), "SELECT id::text || '/' || coalesce(" + column +
                                         "::text, 'NULL') FROM \"" + table + "@" + index + "\"");
      ASSERT_TRUE(e.ok()) << e.message;
      for (const auto& row : e.rows) entries.insert(row[0]);
    }
    EXPECT_EQ(rows.size(), entries.size());
    std::vector<std::string> missing, extra;
    std::set_difference(rows.begin(), rows.end(), entries.begin(), entries.end(),
                        std::back_inserter(missing));
    std::set_difference(entries.begin(), entries.end(), rows.begin(), rows.end(),
                        std::back_inserter(extra));
    EXPECT_TRUE(missing.empty()) << "rows without their entry, e.g. " << missing.front();
    EXPECT_TRUE(extra.empty()) << "entries without their row, e.g. " << extra.front();
    auto c = cluster_->client();
    SqlResult ranges =
        pq_exec(c.get(), "SHOW RANGES FROM INDEX " + table + "@" + index + " WITH DETAILS");
    ASSERT_TRUE(ranges.ok()) << ranges.message;
    int64_t placed = 0;
    for (const auto& row : ranges.rows) placed += std::stoll(row[6]);
    EXPECT_EQ(placed, static_cast<int64_t>(entries.size()));
  }

  static ShardCluster* cluster_;
};

ShardCluster* GlobalIndexTest::cluster_ = nullptr;

TEST_F(GlobalIndexTest, CreateIndexBuildsTheIndexOnItsOwnRange) {
  auto c = cluster_->client();
  SqlResult r = pq_exec(c.get(), "CREATE INDEX users_city ON users (city) STORING (name)");
  ASSERT_TRUE(r.ok()) << r.message;
  // Its own range, on one shard, and a backend table on every shard.
  SqlResult ranges = pq_exec(c.get(), "SHOW RANGES FROM INDEX users@users_city");
  ASSERT_TRUE(ranges.ok()) << ranges.message;
  ASSERT_EQ(ranges.rows.size(), 1u);
  EXPECT_EQ(
      cluster_->on_each_shard("SELECT count(*) FROM pg_class WHERE relname = 'users@users_city'"),
      (std::vector<std::string>{"1", "1", "1"}));
  // The index table holds the indexed column, the key, the stored column: nothing else.
  EXPECT_EQ(cluster_->on_each_shard(
                "SELECT string_agg(attname, ',' ORDER BY attnum) FROM pg_attribute WHERE attrelid "
                "= '\"users@users_city\"'::regclass AND attnum > 0"),
            (std::vector<std::string>{"city,id,name", "city,id,name", "city,id,name"}));
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM \"users@users_city\""), 1200);
  expect_consistent("users", "users_city", "city");
  // An existing name: PostgreSQL's error, or its notice with IF NOT EXISTS.
  SqlResult again = pq_exec(c.get(), "CREATE INDEX users_city ON users (name)");
  EXPECT_EQ(again.sqlstate, "42P07");
  EXPECT_EQ(again.message, "relation \"users_city\" already exists");
  SqlResult skip = pq_exec(c.get(), "CREATE INDEX IF NOT EXISTS users_city ON users (name)");
  EXPECT_TRUE(skip.ok()) << skip.message;
  SqlResult missing = pq_exec(c.get(), "CREATE INDEX ON users (nope)");
  EXPECT_EQ(missing.sqlstate, "42703");
}

TEST_F(GlobalIndexTest, WritesKeepTheEntriesInStep) {
  auto c = cluster_->client();
  auto ref = cluster_->reference();
  ASSERT_TRUE(pq_exec(c.get(), "CREATE INDEX users_n ON users (n)").ok());
  for (std::string sql : {
           "INSERT INTO users VALUES (5001, 'a@x', 'anna', 'paris', 3)",
           "INSERT INTO users VALUES (5002, 'b@x', 'bob', 'oslo', NULL), (5, 'dup@x', 'z', 'z', 9)",
           "UPDATE users SET n = 42 WHERE id = 5001",
           "UPDATE users SET n = n + 1 WHERE id BETWEEN 100 AND 160",
           "UPDATE users SET name = 'renamed' WHERE id = 7",
           "DELETE FROM users WHERE id = 5002",
           "DELETE FROM users WHERE id BETWEEN 1100 AND 1150",
           "INSERT INTO users VALUES (5003, 'c@x', 'cy', 'rome', 1) ON CONFLICT (id) DO UPDATE "
           "SET n = 2",
           "INSERT INTO users VALUES (5003, 'c@x', 'cy', 'rome', 1) ON CONFLICT (id) DO UPDATE "
           "SET n = 3",
           "UPDATE users SET id = id + 10000 WHERE id = 5003",
       }) {
    SCOPED_TRACE(sql);
    SqlResult got = pq_exec(c.get(), sql);
    SqlResult want = pq_exec(ref.get(), sql);
    EXPECT_EQ(text_of(got), text_of(want));
  }
  expect_consistent("users", "users_n", "n");
  // A transaction block: its writes' entries commit or roll back with it.
  for (const char* end : {"ROLLBACK", "COMMIT"}) {
    ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
    EXPECT_TRUE(pq_exec(c.get(), "INSERT INTO users VALUES (6001, 'd@x', 'd', 'd', 77)").ok());
    EXPECT_TRUE(pq_exec(c.get(), "UPDATE users SET n = 78 WHERE id = 20").ok());
    SqlResult seen = pq_exec(c.get(), "SELECT id FROM users WHERE n IN (77, 78) ORDER BY id");
    EXPECT_EQ(text_of(seen), "20\n6001\n");
    ASSERT_TRUE(pq_exec(c.get(), end).ok());
    expect_consistent("users", "users_n", "n");
  }
  ASSERT_TRUE(pq_exec(ref.get(), "INSERT INTO users VALUES (6001, 'd@x', 'd', 'd', 77)").ok());
  ASSERT_TRUE(pq_exec(ref.get(), "UPDATE users SET n = 78 WHERE id = 20").ok());
  // A key moving to an earlier shard inside a block: its notes come from two shards, the
  // later shard's first; its entry must follow it.
  for (PGconn* conn : {c.get(), ref.get()}) {
    ASSERT_TRUE(pq_exec(conn, "BEGIN").ok());
    SqlResult moved = pq_exec(conn, "UPDATE users SET id = -13 WHERE id = 1180");
    EXPECT_TRUE(moved.ok()) << moved.message;
    ASSERT_TRUE(pq_exec(conn, "COMMIT").ok());
  }
  expect_consistent("users", "users_n", "n");
  // The extended protocol: its implicit transaction writes the entry too.
  const char* params[] = {"6002", "79"};
  SqlResult ext = take_result(PQexecParams(c.get(), "INSERT INTO users (id, n) VALUES ($1, $2)", 2,
                                           nullptr, params, nullptr, nullptr, 0),
                              c.get());
  EXPECT_TRUE(ext.ok()) << ext.message;
  ASSERT_TRUE(pq_exec(ref.get(), "INSERT INTO users (id, n) VALUES (6002, 79)").ok());
  expect_consistent("users", "users_n", "n");
  // COPY: every row's entry, in the COPY's transaction.
  ASSERT_EQ(take_result(PQexec(c.get(), "COPY users (id, n) FROM STDIN"), c.get()).status,
            PGRES_COPY_IN);
  std::string data;
  for (int id = 7000; id < 7300; ++id)
    data += std::to_string(id) + "\t" + std::to_string(id % 5) + "\n";
  ASSERT_EQ(PQputCopyData(c.get(), data.data(), static_cast<int>(data.size())), 1);
  ASSERT_EQ(PQputCopyEnd(c.get(), nullptr), 1);
  SqlResult copied = take_result(PQgetResult(c.get()), c.get());
  EXPECT_TRUE(copied.ok()) << copied.message;
  while (PGresult* extra = PQgetResult(c.get())) PQclear(extra);
  ASSERT_TRUE(pq_exec(ref.get(),
                      "INSERT INTO users (id, n) SELECT g, g % 5 FROM "
                      "generate_series(7000, 7299) g")
                  .ok());
  expect_consistent("users", "users_n", "n");
  expect_same(c.get(), ref.get(), "SELECT count(*), sum(n) FROM users");
}

TEST_F(GlobalIndexTest, LookupsThroughTheIndexAnswerAsPostgreSql) {
  auto c = cluster_->client();
  auto ref = cluster_->reference();
  ASSERT_TRUE(pq_exec(c.get(), "CREATE INDEX users_email ON users (email) STORING (city)").ok());
  for (std::string sql : {
           "SELECT * FROM users WHERE email = 'user17@example.com'",
           "SELECT * FROM users WHERE email = 'nobody@example.com'",
           "SELECT id, name FROM users WHERE email IN ('user1@example.com', 'user999@example.com', "
           "'user401@example.com') ORDER BY id",
           "SELECT id FROM users WHERE email > 'user1190' AND email < 'user1199' ORDER BY id",
           "SELECT id, email FROM users WHERE email LIKE 'user12%' ORDER BY email",
           "SELECT count(*) FROM users WHERE email LIKE 'user5%'",
           "SELECT count(*) FROM users WHERE email = 'nobody@example.com'",
           "SELECT email, city FROM users WHERE email = 'user33@example.com'",
           "SELECT city FROM users WHERE email BETWEEN 'user30' AND 'user31' ORDER BY city, email",
           "SELECT u.id, u.city FROM users u WHERE u.email = 'user700@example.com'",
           "SELECT id FROM users WHERE email = 'user5@example.com' AND name = 'nope'",
           "SELECT email FROM users WHERE email >= 'user99' ORDER BY email LIMIT 3",
           "SELECT max(id), min(n) FROM users WHERE email IN ('user2@example.com', "
           "'user1001@example.com')",
       }) {
    expect_same(c.get(), ref.get(), sql);
  }
}

// Prepared statements (pgjdbc, node-postgres) read through the index too: the Bind's values
// choose the index's entries, and only the shards owning their rows are read. The table is
// locked on every other shard: reading it there (every shard's rows merged) would wait for the
// lock until the statement timeout.
TEST_F(GlobalIndexTest, BoundLookupsReadOnlyTheShardsOfTheirRows) {
  auto c = cluster_->client();
  auto ref = cluster_->reference();
  ASSERT_TRUE(pq_exec(c.get(),
                      "CREATE INDEX IF NOT EXISTS users_email ON users (email) "
                      "STORING (city)")
                  .ok());
  const int id = 517;
  const std::string email = "user" + std::to_string(id) + "@example.com";
  std::vector<PgConnPtr> lockers;
  for (int i = 0; i < cluster_->size(); ++i) {
    auto d = cluster_->direct(i);
    SqlResult owns =
        pq_exec(d.get(), "SELECT count(*) FROM users WHERE id = " + std::to_string(id));
    ASSERT_TRUE(owns.ok()) << owns.message;
    if (owns.at() == "1") continue;
    ASSERT_TRUE(pq_exec(d.get(), "BEGIN").ok());
    SqlResult lock = pq_exec(d.get(), "LOCK TABLE users IN ACCESS EXCLUSIVE MODE");
    ASSERT_TRUE(lock.ok()) << lock.message;
    lockers.push_back(std::move(d));
  }
  ASSERT_EQ(lockers.size(), static_cast<size_t>(cluster_->size() - 1));
  ASSERT_TRUE(pq_exec(c.get(), "SET statement_timeout = '5s'").ok());
  struct Case {
    const char* sql;
    std::vector<std::string> values;
    bool binary = true;  ///< also with binary results (aggregates over shards combine text only;
                         ///< rows on one shard are its answer, in any format)
  };
  auto same = [&](const Case& k, int format) {
    SCOPED_TRACE(std::string(k.sql) + " with " + k.values[0] +
                 (format == 1 ? " (binary results)" : ""));
    std::vector<const char*> values;
    for (const auto& v : k.values) values.push_back(v.c_str());
    auto run = [&](PGconn* conn) {
      return text_of(take_result(PQexecParams(conn, k.sql, static_cast<int>(values.size()), nullptr,
                                              values.data(), nullptr, nullptr, format),
                                 conn));
    };
    std::string got = run(c.get());
    std::string want = run(ref.get());
    EXPECT_EQ(got, want) << first_difference(got, want);
  };
  const std::vector<Case> cases = {
      {"SELECT * FROM users WHERE email = $1", {email}},
      {"SELECT id, name, n + $2 FROM users WHERE email = $1", {email, "10"}},
      {"SELECT id, city FROM users WHERE email = $1", {email}},  // the index stores them
      {"SELECT id FROM users WHERE email IN ($1, $2) ORDER BY id", {email, "nobody"}},
      {"SELECT count(*), max(n) FROM users WHERE email = $1", {email}},
  };
  for (const Case& k : cases) {
    for (int format : {0, 1}) {
      if (format == 0 || k.binary) same(k, format);
    }
  }
  // A named statement, executed again with the same value.
  ASSERT_TRUE(take_result(PQprepare(c.get(), "by_email", "SELECT id, n FROM users WHERE email = $1",
                                    1, nullptr),
                          c.get())
                  .ok());
  for (int i = 0; i < 3; ++i) {
    const char* v[] = {email.c_str()};
    SqlResult r =
        take_result(PQexecPrepared(c.get(), "by_email", 1, v, nullptr, nullptr, 0), c.get());
    ASSERT_TRUE(r.ok()) << r.message;
    ASSERT_EQ(r.rows.size(), 1u);
    EXPECT_EQ(r.at(0, 0), std::to_string(id));
  }
  for (auto& d : lockers) ASSERT_TRUE(pq_exec(d.get(), "ROLLBACK").ok());
  // No entry at all: one shard answers over no row (an aggregate's row of none).
  for (const Case& k : std::vector<Case>{
           {"SELECT * FROM users WHERE email = $1", {"nobody@example.com"}},
           {"SELECT count(*), max(n) FROM users WHERE email = $1", {"nobody"}},
           // What no merge computes is read into one shard whole (not through the index).
           {"SELECT n, count(*) FROM users WHERE email = $1 GROUP BY n HAVING count(*) > $2",
            {email, "0"}},
           {"SELECT id, row_number() OVER (ORDER BY id) FROM users WHERE email = $1", {email}},
           {"SELECT count(*), max(n) FROM users WHERE email IN ($1, $2)",
            {email, "user5@example.com"},
            false},
           {"SELECT id, n FROM users WHERE email IN ($1, $2) ORDER BY n DESC, id LIMIT $3",
            {email, "user5@example.com", "1"}},
       }) {
    for (int format : {0, 1}) {
      if (format == 0 || k.binary) same(k, format);
    }
  }
  const char* nobody[] = {"nobody"};
  SqlResult none =
      take_result(PQexecPrepared(c.get(), "by_email", 1, nobody, nullptr, nullptr, 0), c.get());
  ASSERT_TRUE(none.ok()) << none.message;
  EXPECT_TRUE(none.rows.empty());
  ASSERT_TRUE(pq_exec(c.get(), "RESET statement_timeout").ok());
}

TEST_F(GlobalIndexTest, ExplainShowsTheTwoSteps) {
  auto c = cluster_->client();
  SqlResult r = pq_exec(c.get(), "EXPLAIN SELECT * FROM users WHERE email = 'user17@example.com'");
  ASSERT_TRUE(r.ok()) << r.message;
  std::string plan = text_of(r);
  EXPECT_NE(plan.find("pgrange plan: index join through global index users@users_email, in two "
                      "steps"),
            std::string::npos)
      << plan;
  EXPECT_NE(plan.find("  step 1: index users@users_email: "), std::string::npos) << plan;
  EXPECT_NE(plan.find("  step 2: table users: the rows of those keys"), std::string::npos) << plan;
  // The index's one shard explains the first step: a scan of the backend table.
  EXPECT_NE(plan.find("users@users_email"), std::string::npos) << plan;
  SqlResult covering = pq_exec(c.get(), "EXPLAIN SELECT city FROM users WHERE email = 'x'");
  ASSERT_TRUE(covering.ok()) << covering.message;
  EXPECT_NE(text_of(covering).find("stores every column the query uses"), std::string::npos)
      << text_of(covering);
}

TEST_F(GlobalIndexTest, HashShardedIndexSpreadsTimeOrderedEntries) {
  const std::string ev = "CREATE TABLE ev (id int8 PRIMARY KEY, ts timestamptz, v text)";
  ASSERT_EQ(cluster_->run_setup({ev}, ShardCluster::Target::kPgrangeAndReference), "");
  ASSERT_EQ(cluster_->run_setup(
                {"ALTER TABLE ev SPLIT AT VALUES (2000), (4000)", "ALTER TABLE ev SCATTER",
                 "CREATE INDEX ev_ts ON ev (ts) USING HASH WITH (bucket_count = 4)"}),
            "");
  auto ref = cluster_->reference();
  ASSERT_TRUE(pq_exec(ref.get(), "CREATE INDEX ev_ts ON ev (ts)").ok());
  // 6,000 rows, time-ordered: a plain index on ts would put every new entry in its last range.
  std::string values;
  for (int id = 1; id <= 6000; ++id) {
    values += (values.empty() ? "" : ", ") + ("(" + std::to_string(id)) +
              ", timestamptz '2026-01-01 00:00:00+00' + interval '1 second' * " +
              std::to_string(id) + ", 'v" + std::to_string(id % 13) + "')";
  }
  ASSERT_EQ(cluster_->run_setup({"INSERT INTO ev VALUES " + values},
                                ShardCluster::Target::kPgrangeAndReference),
            "");
  auto c = cluster_->client();
  SqlResult ranges = pq_exec(c.get(), "SHOW RANGES FROM INDEX ev@ev_ts WITH DETAILS");
  ASSERT_TRUE(ranges.ok()) << ranges.message;
  ASSERT_EQ(ranges.rows.size(), 4u);
  std::set<std::string> shards;
  for (size_t b = 0; b < 4; ++b) {
    int64_t n = std::stoll(ranges.at(b, 6));
    EXPECT_GE(n, 1500 * 8 / 10) << "bucket " << b;
    EXPECT_LE(n, 1500 * 12 / 10) << "bucket " << b;
    shards.insert(ranges.at(b, 3));
  }
  EXPECT_EQ(shards.size(), 3u);
  EXPECT_EQ(ranges.at(1, 0), "…/2/1");  // the index (id 2), bucket 1
  expect_consistent("ev", "ev_ts", "ts");
  for (std::string sql : {
           "SELECT id, v FROM ev WHERE ts = '2026-01-01 00:16:40+00'",
           "SELECT id FROM ev WHERE ts IN ('2026-01-01 00:00:07+00', '2026-01-01 01:00:00+00') "
           "ORDER BY id",
           "SELECT id, ts FROM ev WHERE ts BETWEEN '2026-01-01 00:30:00+00' AND "
           "'2026-01-01 00:30:09+00' ORDER BY ts",
           "SELECT ts FROM ev WHERE ts > '2026-01-01 01:00:00+00' ORDER BY ts LIMIT 5",
           "SELECT count(*) FROM ev WHERE ts < '2026-01-01 00:10:00+00'",
       }) {
    expect_same(c.get(), ref.get(), sql);
  }
  // Equality computes the bucket: one range, one shard.
  SqlResult plan = pq_exec(c.get(), "EXPLAIN SELECT v FROM ev WHERE ts = '2026-01-01 00:16:40+00'");
  ASSERT_TRUE(plan.ok()) << plan.message;
  std::string step1;
  for (const auto& row : plan.rows) {
    if (row[0].rfind("  step 1: index ev@ev_ts: ", 0) == 0) step1 = row[0];
  }
  EXPECT_NE(step1.find("→ ranges "), std::string::npos) << step1;
  EXPECT_EQ(std::count(step1.begin(), step1.end(), '('), 1) << step1;
  ASSERT_TRUE(pq_exec(c.get(), "UPDATE ev SET ts = ts + interval '1 day' WHERE id % 100 = 0").ok());
  ASSERT_TRUE(
      pq_exec(ref.get(), "UPDATE ev SET ts = ts + interval '1 day' WHERE id % 100 = 0").ok());
  expect_consistent("ev", "ev_ts", "ts");
  expect_same(c.get(), ref.get(),
              "SELECT id FROM ev WHERE ts >= '2026-01-02' ORDER BY id LIMIT 10");
}

TEST_F(GlobalIndexTest, UniqueIndexRefusesDuplicatesAcrossShards) {
  auto c = cluster_->client();
  auto ref = cluster_->reference();
  ASSERT_TRUE(pq_exec(ref.get(), "CREATE UNIQUE INDEX users_name_u ON users (email)").ok());
  SqlResult made = pq_exec(c.get(), "CREATE UNIQUE INDEX users_name_u ON users (email)");
  ASSERT_TRUE(made.ok()) << made.message;
  // Ids 1 and 1199 are on different shards: their emails still collide.
  for (std::string sql : {
           "UPDATE users SET email = 'user1@example.com' WHERE id = 1199",
           "INSERT INTO users VALUES (9001, 'user2@example.com', 'x', 'y', 1)",
           "INSERT INTO users VALUES (9002, 'fresh@example.com', 'x', 'y', 1)",
           "INSERT INTO users VALUES (9003, 'fresh@example.com', 'x', 'y', 1)",
           "UPDATE users SET email = 'moved@example.com' WHERE id = 9002",
           "INSERT INTO users VALUES (9003, 'fresh@example.com', 'x', 'y', 1)",
           "INSERT INTO users VALUES (9004, NULL, 'x', 'y', 1), (9005, NULL, 'x', 'y', 1)",
       }) {
    SCOPED_TRACE(sql);
    SqlResult got = pq_exec(c.get(), sql);
    SqlResult want = pq_exec(ref.get(), sql);
    EXPECT_EQ(got.sqlstate, want.sqlstate) << got.message;
    EXPECT_EQ(got.message, want.message);
    EXPECT_EQ(got.detail, want.detail);
  }
  // Swapping two rows' values collides as in PostgreSQL (each row's check sees the other's
  // old value).
  for (std::string sql : {
           "UPDATE users SET email = CASE id WHEN 9002 THEN 'fresh@example.com' ELSE "
           "'moved@example.com' END WHERE id IN (9002, 9003)",
           "INSERT INTO users VALUES (9010, 'fresh@example.com', 'x', 'y', 1) ON CONFLICT (id) "
           "DO NOTHING",
       }) {
    SCOPED_TRACE(sql);
    SqlResult got = pq_exec(c.get(), sql);
    SqlResult want = pq_exec(ref.get(), sql);
    EXPECT_EQ(got.sqlstate, want.sqlstate) << got.message;
    EXPECT_EQ(got.message, want.message);
  }
  // A conflict pgrange could only find on the index's shard is refused, not misanswered.
  for (std::string sql : {
           "INSERT INTO users VALUES (9011, 'fresh@example.com') ON CONFLICT DO NOTHING",
           "INSERT INTO users VALUES (9011, 'fresh@example.com') ON CONFLICT (email) DO NOTHING",
       }) {
    SqlResult got = pq_exec(c.get(), sql);
    EXPECT_EQ(got.sqlstate, "0A000") << sql << ": " << got.message;
  }
  expect_consistent("users", "users_name_u", "email");
  // In a transaction block, a COPY whose row collides fails itself (and the block).
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  ASSERT_EQ(take_result(PQexec(c.get(), "COPY users (id, email) FROM STDIN"), c.get()).status,
            PGRES_COPY_IN);
  std::string data = "9100\tunique-one@x\n9101\tuser3@example.com\n";
  ASSERT_EQ(PQputCopyData(c.get(), data.data(), static_cast<int>(data.size())), 1);
  ASSERT_EQ(PQputCopyEnd(c.get(), nullptr), 1);
  SqlResult copied = take_result(PQgetResult(c.get()), c.get());
  while (PGresult* extra = PQgetResult(c.get())) PQclear(extra);
  EXPECT_EQ(copied.sqlstate, "23505") << copied.message;
  EXPECT_EQ(pq_exec(c.get(), "SELECT 1").sqlstate, "25P02");
  ASSERT_TRUE(pq_exec(c.get(), "ROLLBACK").ok());
  expect_consistent("users", "users_name_u", "email");
  // Building a UNIQUE index over duplicate values fails as PostgreSQL's does and leaves nothing.
  SqlResult dup = pq_exec(c.get(), "CREATE UNIQUE INDEX users_city_u ON users (city)");
  SqlResult want = pq_exec(ref.get(), "CREATE UNIQUE INDEX users_city_u ON users (city)");
  EXPECT_EQ(dup.sqlstate, "23505");
  EXPECT_EQ(dup.message, want.message);
  EXPECT_EQ(cluster_->sum_direct(
                "SELECT count(*) FROM pg_class WHERE relname LIKE 'users@users_city_u%'"),
            0);
  SqlResult ranges = pq_exec(c.get(), "SHOW RANGES FROM INDEX users@users_city_u");
  EXPECT_EQ(ranges.sqlstate, "42704");
}

TEST_F(GlobalIndexTest, SplitRelocateAndDropIndexRanges) {
  auto c = cluster_->client();
  ASSERT_TRUE(pq_exec(c.get(), "CREATE INDEX users_name ON users (name)").ok());
  SqlResult split = pq_exec(c.get(), "ALTER INDEX users@users_name SPLIT AT VALUES ('name2')");
  ASSERT_TRUE(split.ok()) << split.message;
  SqlResult ranges = pq_exec(c.get(), "SHOW RANGES FROM INDEX users@users_name");
  ASSERT_TRUE(ranges.ok()) << ranges.message;
  ASSERT_EQ(ranges.rows.size(), 2u);
  // Index ids are never reused: this one's is the table's seventh (…/<index id>/"name2").
  EXPECT_EQ(ranges.at(1, 0).substr(ranges.at(1, 0).size() - 8), "/\"name2\"") << ranges.at(1, 0);
  // Move the second range to another shard: its entries go with it.
  std::string shard = ranges.at(1, 3) == "s1" ? "s2" : "s1";
  SqlResult moved =
      pq_exec(c.get(), "ALTER RANGE " + ranges.at(1, 2) + " RELOCATE TO '" + shard + "'");
  ASSERT_TRUE(moved.ok()) << moved.message;
  expect_consistent("users", "users_name", "name");
  auto ref = cluster_->reference();
  expect_same(c.get(), ref.get(), "SELECT id FROM users WHERE name = 'name30' ORDER BY id");
  // DROP INDEX: the catalog, the ranges and the backend tables go.
  SqlResult dropped = pq_exec(c.get(), "DROP INDEX users_name");
  ASSERT_TRUE(dropped.ok()) << dropped.message;
  EXPECT_EQ(
      cluster_->sum_direct("SELECT count(*) FROM pg_class WHERE relname = 'users@users_name'"), 0);
  SqlResult gone = pq_exec(c.get(), "SHOW RANGES FROM INDEX users@users_name");
  EXPECT_EQ(gone.sqlstate, "42704");
  expect_same(c.get(), ref.get(), "SELECT count(*) FROM users WHERE name = 'name30'");
}

TEST_F(GlobalIndexTest, TruncateEmptiesTheIndexes) {
  const std::string t = "CREATE TABLE tr (id int8 PRIMARY KEY, k text)";
  ASSERT_EQ(cluster_->run_setup({t, "ALTER TABLE tr SPLIT AT VALUES (50)", "ALTER TABLE tr SCATTER",
                                 "CREATE INDEX tr_k ON tr (k)", "INSERT INTO tr VALUES (1, 'a')",
                                 "INSERT INTO tr VALUES (99, 'b')"}),
            "");
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM \"tr@tr_k\""), 2);
  auto c = cluster_->client();
  ASSERT_TRUE(pq_exec(c.get(), "TRUNCATE tr").ok());
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM \"tr@tr_k\""), 0);
  ASSERT_TRUE(pq_exec(c.get(), "INSERT INTO tr VALUES (7, 'c')").ok());
  expect_consistent("tr", "tr_k", "k");
  // DROP TABLE takes the index tables along.
  ASSERT_TRUE(pq_exec(c.get(), "DROP TABLE tr").ok());
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM pg_class WHERE relname LIKE 'tr@%'"), 0);
}

TEST_F(GlobalIndexTest, LocalIndexIsAnOrdinaryIndexOnEveryShard) {
  auto c = cluster_->client();
  SqlResult r = pq_exec(c.get(), "CREATE INDEX users_local ON users (name) WITH (local = true)");
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(
      cluster_->on_each_shard("SELECT indexdef FROM pg_indexes WHERE indexname = 'users_local'"),
      std::vector<std::string>(3, "CREATE INDEX users_local ON public.users USING btree (name)"));
  EXPECT_EQ(
      cluster_->sum_direct("SELECT count(*) FROM pg_class WHERE relname LIKE '%@users_local'"), 0);
  SqlResult ranges = pq_exec(c.get(), "SHOW RANGES FROM INDEX users@users_local");
  EXPECT_EQ(ranges.sqlstate, "42704");
  // An index pgrange cannot keep globally says so and how to get a local one.
  SqlResult expr = pq_exec(c.get(), "CREATE INDEX ON users (lower(email))");
  EXPECT_EQ(expr.sqlstate, "0A000");
  EXPECT_NE(expr.message.find("expression"), std::string::npos) << expr.message;
  ASSERT_TRUE(pq_exec(c.get(), "DROP INDEX users_local").ok());
}

}  // namespace
}  // namespace pgrange::testing
