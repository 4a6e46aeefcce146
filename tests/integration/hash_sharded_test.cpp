// Hash-sharded primary keys through pgrange over three real PostgreSQL 15 shards, checked on
// the shards directly and against one plain PostgreSQL (database "ref" on the first server):
// `PRIMARY KEY (id) USING HASH WITH (bucket_count = 8)` starts the table with one range per
// bucket spread over the shards; sequential inserts (VALUES and COPY) spread evenly over the
// buckets where a plain range table puts them all in its last range; SELECTs answer as on
// PostgreSQL; SPLIT AT and RELOCATE of a bucket's range move exactly that range's rows.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/support/pg_server.hpp"
#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {
namespace {

constexpr int kBuckets = 8;
constexpr int64_t kFirstId = 2001;
constexpr int64_t kRows = 100000;
/// The bucket of an int8 id, as pgrange computes it (routing::hash_bucket_sql).
const std::string kBucketSql = "((coalesce(hashint8((id)), 0)::int8 & 4294967295) % 8)";

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

class HashShardedTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    PgServer::Options o;
    o.databases = {"app", "ref"};
    for (auto*& s : shards_) s = PgServer::start(o).release();
    std::vector<std::string> dsns;
    for (auto* s : shards_) dsns.push_back(s->dsn("app") + " user=postgres");
    proxy_ = ProxyProcess::start(ProxyConfig::with_shards(dsns, 8)).release();
    auto c = pq_connect(proxy_->dsn());
    ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
    auto ref = reference();
    const std::string columns = "(id int8, ts timestamptz, v text, ";
    for (const std::string& sql : std::vector<std::string>{
             "CREATE TABLE ev " + columns + "PRIMARY KEY (id) USING HASH WITH (bucket_count = 8))",
             // The monotonic-key demonstration: a range table split where its rows so far were.
             "CREATE TABLE plain " + columns + "PRIMARY KEY (id))",
             "ALTER TABLE plain SPLIT AT VALUES (1000), (2000)", "ALTER TABLE plain SCATTER"}) {
      SqlResult r = pq_exec(c.get(), sql);
      ASSERT_TRUE(r.ok()) << sql << ": " << r.message;
    }
    SqlResult r = pq_exec(ref.get(), "CREATE TABLE ev " + columns + "PRIMARY KEY (id))");
    ASSERT_TRUE(r.ok()) << r.message;
    // 100,000 sequential ids in multi-row INSERTs of 1,000 rows.
    for (int64_t at = kFirstId; at < kFirstId + kRows; at += 1000) {
      std::string values;
      for (int64_t id = at; id < at + 1000; ++id) {
        values += (values.empty() ? "" : ", ") + ("(" + std::to_string(id)) +
                  ", timestamptz '2024-01-01 00:00:00+00' + interval '1 second' * " +
                  std::to_string(id) + ", 'v" + std::to_string(id % 997) + "')";
      }
      for (std::string table : {"ev", "plain"}) {
        SqlResult w = pq_exec(c.get(), "INSERT INTO " + table + " VALUES " + values);
        ASSERT_TRUE(w.ok()) << table << ": " << w.message;
      }
      SqlResult w = pq_exec(ref.get(), "INSERT INTO ev VALUES " + values);
      ASSERT_TRUE(w.ok()) << w.message;
    }
  }
  static void TearDownTestSuite() {
    delete proxy_;
    for (auto*& s : shards_) {
      delete s;
      s = nullptr;
    }
  }

  static PgConnPtr direct(int shard) {
    return pq_connect(shards_[shard]->dsn("app") + " user=postgres");
  }
  static PgConnPtr reference() { return pq_connect(shards_[0]->dsn("ref") + " user=postgres"); }
  static int shard_number(const std::string& name) { return name.back() - '1'; }

  /// A count read on every shard directly, added up.
  static int64_t sum_direct(const std::string& sql) {
    int64_t total = 0;
    for (int i = 0; i < 3; ++i) {
      auto d = direct(i);
      SqlResult r = pq_exec(d.get(), sql);
      EXPECT_TRUE(r.ok()) << sql << ": " << r.message;
      if (r.ok()) total += std::stoll(r.at());
    }
    return total;
  }

  /// SHOW RANGES FROM TABLE t WITH DETAILS: start_key, end_key, range_id, shard,
  /// split_enforced_until, range_size_mb, row_count, generation.
  static SqlResult ranges_of(const std::string& table) {
    auto c = pq_connect(proxy_->dsn());
    SqlResult r = pq_exec(c.get(), "SHOW RANGES FROM TABLE " + table + " WITH DETAILS");
    EXPECT_TRUE(r.ok()) << r.message;
    return r;
  }

  /// Every row of the table is on the shard of its range: the ranges' row counts (each counted
  /// on its shard with the range's predicate) add up to all the rows on the shards.
  static void expect_every_row_in_place(const std::string& table) {
    SqlResult r = ranges_of(table);
    int64_t in_ranges = 0;
    for (const auto& row : r.rows) in_ranges += std::stoll(row[6]);
    EXPECT_EQ(in_ranges, sum_direct("SELECT count(*) FROM " + table));
  }

  static PgServer* shards_[3];
  static ProxyProcess* proxy_;
};

PgServer* HashShardedTest::shards_[3] = {};
ProxyProcess* HashShardedTest::proxy_ = nullptr;

TEST_F(HashShardedTest, TheTableStartsWithOneRangePerBucketSpreadOverTheShards) {
  SqlResult r = ranges_of("ev");
  ASSERT_GE(r.rows.size(), static_cast<size_t>(kBuckets));
  EXPECT_EQ(r.at(0, 0), "…/<TableMin>");
  for (int b = 1; b < kBuckets; ++b)
    EXPECT_EQ(r.at(static_cast<size_t>(b), 0), "…/1/" + std::to_string(b));
  EXPECT_EQ(r.at(kBuckets - 1, 1), "…/<TableMax>");
  for (int b = 0; b < kBuckets; ++b) {
    EXPECT_EQ(r.at(static_cast<size_t>(b), 3), "s" + std::to_string(b % 3 + 1)) << "bucket " << b;
  }
  // The shards got a plain PRIMARY KEY (id).
  for (int i = 0; i < 3; ++i) {
    auto d = direct(i);
    SqlResult pk = pq_exec(d.get(),
                           "SELECT pg_get_constraintdef(oid) FROM pg_constraint "
                           "WHERE conrelid = 'ev'::regclass AND contype = 'p'");
    EXPECT_EQ(pk.at(), "PRIMARY KEY (id)") << pk.message;
  }
}

TEST_F(HashShardedTest, SequentialInsertsSpreadEvenlyOverTheBuckets) {
  SqlResult r = ranges_of("ev");
  ASSERT_EQ(r.rows.size(), static_cast<size_t>(kBuckets));
  const int64_t even = kRows / kBuckets;
  int64_t total = 0;
  for (const auto& row : r.rows) {
    int64_t n = std::stoll(row[6]);
    total += n;
    EXPECT_GE(n, even * 9 / 10) << row[0];
    EXPECT_LE(n, even * 11 / 10) << row[0];
  }
  EXPECT_EQ(total, kRows);
  // Directly on the shards: each bucket's rows are on its range's shard, and only there.
  for (int i = 0; i < 3; ++i) {
    auto d = direct(i);
    SqlResult b = pq_exec(d.get(), "SELECT " + kBucketSql + ", count(*) FROM ev GROUP BY 1");
    ASSERT_TRUE(b.ok()) << b.message;
    for (const auto& row : b.rows) {
      int bucket = std::stoi(row[0]);
      EXPECT_EQ(bucket % 3, i) << "bucket " << bucket << " rows on shard " << i + 1;
    }
  }
  expect_every_row_in_place("ev");
  // A range table keyed the same way puts every new (larger) key in its last range.
  SqlResult p = ranges_of("plain");
  ASSERT_EQ(p.rows.size(), 3u);
  EXPECT_EQ(p.at(0, 6), "0");
  EXPECT_EQ(p.at(1, 6), "0");
  EXPECT_EQ(p.at(2, 6), std::to_string(kRows));
}

TEST_F(HashShardedTest, SelectsAnswerAsPostgreSql) {
  auto c = pq_connect(proxy_->dsn());
  auto ref = reference();
  for (std::string sql : {
           "SELECT * FROM ev WHERE id = 2001",
           "SELECT * FROM ev WHERE id = 101999",
           "SELECT * FROM ev WHERE id = 5",
           "SELECT id, v FROM ev WHERE id BETWEEN 10000 AND 10020 ORDER BY id",
           "SELECT id FROM ev WHERE id IN (3000, 4000, 5000, 77777, 1) ORDER BY id",
           "SELECT id, ts FROM ev ORDER BY id LIMIT 10",
           "SELECT id FROM ev ORDER BY id DESC LIMIT 7 OFFSET 3",
           "SELECT id FROM ev WHERE id > 50000 ORDER BY id LIMIT 5",
           "SELECT v, id FROM ev WHERE id < 3000 ORDER BY v, id LIMIT 12",
           "SELECT count(*), sum(id), min(id), max(id), avg(id) FROM ev",
           "SELECT count(*) FROM ev WHERE id >= 60000 AND id < 70000",
           "SELECT min(ts), max(ts) FROM ev WHERE id BETWEEN 2500 AND 9000",
           "SELECT id % 8 AS m, count(*) FROM ev GROUP BY 1 ORDER BY 1",
           "SELECT v, count(*) FROM ev WHERE id < 20000 GROUP BY v HAVING count(*) > 17 ORDER BY v",
           "SELECT DISTINCT v FROM ev WHERE id < 5000 ORDER BY v LIMIT 9",
           "SELECT count(*) FROM ev WHERE v = 'v13'",
       }) {
    SCOPED_TRACE(sql);
    std::string got = text_of(pq_exec(c.get(), sql));
    std::string want = text_of(pq_exec(ref.get(), sql));
    EXPECT_EQ(got, want) << first_difference(want, got);
  }
}

TEST_F(HashShardedTest, PointStatementsRunOnTheBucketsShardOnly) {
  auto c = pq_connect(proxy_->dsn());
  auto ref = reference();
  for (int64_t id : {2001, 31337, 99999}) {
    int bucket = std::stoi(
        pq_exec(ref.get(), "SELECT " + kBucketSql + " FROM ev WHERE id = " + std::to_string(id))
            .at());
    SqlResult range =
        pq_exec(c.get(), "SHOW RANGE FROM TABLE ev FOR ROW (" + std::to_string(id) + ")");
    ASSERT_TRUE(range.ok()) << range.message;
    EXPECT_EQ(range.at(0, 0), bucket == 0 ? "…/<TableMin>" : "…/1/" + std::to_string(bucket));
    SqlResult plan =
        pq_exec(c.get(), "EXPLAIN (COSTS OFF) SELECT * FROM ev WHERE id = " + std::to_string(id));
    ASSERT_TRUE(plan.ok()) << plan.message;
    EXPECT_EQ(
        plan.at(0, 0).rfind("pgrange plan: single shard s" + std::to_string(bucket % 3 + 1), 0), 0u)
        << plan.at(0, 0);
  }
}

TEST_F(HashShardedTest, ExtendedProtocolRoutesByTheBoundKey) {
  auto c = pq_connect(proxy_->dsn());
  for (int64_t id : {2010, 45678, 101000}) {
    std::string text = std::to_string(id);
    const char* values[1] = {text.c_str()};
    SqlResult r = take_result(PQexecParams(c.get(), "SELECT v FROM ev WHERE id = $1", 1, nullptr,
                                           values, nullptr, nullptr, 0),
                              c.get());
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.at(), "v" + std::to_string(id % 997));
    r = take_result(PQexecParams(c.get(), "SELECT count(*) FROM ev WHERE id BETWEEN $1 AND $1 + 9",
                                 1, nullptr, values, nullptr, nullptr, 0),
                    c.get());
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.at(), "10");
  }
}

TEST_F(HashShardedTest, CopyRoutesEachRowToItsBucket) {
  auto c = pq_connect(proxy_->dsn());
  auto ref = reference();
  std::string data;
  for (int64_t id = 500001; id <= 502000; ++id) {
    data += std::to_string(id) + "\t2024-06-01 00:00:00+00\tcopied\n";
  }
  for (PGconn* conn : {c.get(), ref.get()}) {
    PGresult* res = PQexec(conn, "COPY ev (id, ts, v) FROM STDIN");
    ASSERT_EQ(PQresultStatus(res), PGRES_COPY_IN) << PQerrorMessage(conn);
    PQclear(res);
    ASSERT_EQ(PQputCopyData(conn, data.data(), static_cast<int>(data.size())), 1);
    ASSERT_EQ(PQputCopyEnd(conn, nullptr), 1);
    res = PQgetResult(conn);
    EXPECT_EQ(PQresultStatus(res), PGRES_COMMAND_OK) << PQresultErrorMessage(res);
    EXPECT_STREQ(PQcmdStatus(res), "COPY 2000");
    PQclear(res);
    while (PGresult* more = PQgetResult(conn)) PQclear(more);
  }
  expect_every_row_in_place("ev");
  EXPECT_EQ(sum_direct("SELECT count(*) FROM ev WHERE v = 'copied'"), 2000);
  // Every bucket got some of them.
  const std::string per_bucket =
      "SELECT " + kBucketSql + ", count(*) FROM ev WHERE v = 'copied' GROUP BY 1 ORDER BY 1";
  EXPECT_EQ(pq_exec(ref.get(), per_bucket).rows.size(), static_cast<size_t>(kBuckets));
  // COPY TO reads the table range by range: bucket by bucket, each in key order.
  PGresult* out = PQexec(c.get(), "COPY ev (id) TO STDOUT");
  ASSERT_EQ(PQresultStatus(out), PGRES_COPY_OUT) << PQerrorMessage(c.get());
  PQclear(out);
  int64_t lines = 0;
  for (char* buf = nullptr; PQgetCopyData(c.get(), &buf, 0) > 0; PQfreemem(buf)) ++lines;
  while (PGresult* more = PQgetResult(c.get())) {
    EXPECT_EQ(PQresultStatus(more), PGRES_COMMAND_OK) << PQresultErrorMessage(more);
    PQclear(more);
  }
  EXPECT_EQ(lines, std::stoll(pq_exec(ref.get(), "SELECT count(*) FROM ev").at()));
  const std::string sql = "SELECT id, v FROM ev WHERE v = 'copied' ORDER BY id DESC LIMIT 4";
  EXPECT_EQ(text_of(pq_exec(c.get(), sql)), text_of(pq_exec(ref.get(), sql)));
}

TEST_F(HashShardedTest, KeyUpdatesMoveRowsToTheirNewBucket) {
  auto c = pq_connect(proxy_->dsn());
  auto ref = reference();
  const std::string sql = "UPDATE ev SET id = id + 1000000 WHERE id BETWEEN 2002 AND 2005";
  SqlResult r = pq_exec(c.get(), sql);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_TRUE(pq_exec(ref.get(), sql).ok());
  expect_every_row_in_place("ev");
  const std::string check = "SELECT id, v FROM ev WHERE id BETWEEN 1002000 AND 1002010 ORDER BY id";
  EXPECT_EQ(text_of(pq_exec(c.get(), check)), text_of(pq_exec(ref.get(), check)));
  EXPECT_EQ(pq_exec(c.get(), "SELECT v FROM ev WHERE id = 1002003").at(), "v9");
}

TEST_F(HashShardedTest, SplitAndRelocateMoveExactlyOneBucketRange) {
  auto c = pq_connect(proxy_->dsn());
  auto ref = reference();
  // Bucket 3 is on s1; split it at id 50000 (the bucket is the first value, as in CockroachDB).
  SqlResult split = pq_exec(c.get(), "ALTER TABLE ev SPLIT AT VALUES (3, 50000)");
  ASSERT_TRUE(split.ok()) << split.message;
  EXPECT_EQ(split.at(0, 1).substr(split.at(0, 1).find("/1/")), "/1/3/50000");
  SqlResult r = ranges_of("ev");
  std::string range_id, shard;
  for (const auto& row : r.rows) {
    if (row[0] == "…/1/3/50000") {
      range_id = row[2];
      shard = row[3];
      EXPECT_EQ(row[1], "…/1/4");
    }
  }
  ASSERT_FALSE(range_id.empty()) << text_of(r);
  const int source = shard_number(shard);
  const int target = (source + 1) % 3;
  const std::string in_range = kBucketSql + " = 3 AND id >= 50000";
  const std::string rest_of_bucket = kBucketSql + " = 3 AND id < 50000";
  const int64_t moving =
      std::stoll(pq_exec(ref.get(), "SELECT count(*) FROM ev WHERE " + in_range).at());
  const int64_t staying =
      std::stoll(pq_exec(ref.get(), "SELECT count(*) FROM ev WHERE " + rest_of_bucket).at());
  ASSERT_GT(moving, 1000);
  ASSERT_GT(staying, 1000);
  auto count_on = [&](int s, const std::string& where) {
    auto d = direct(s);
    return std::stoll(pq_exec(d.get(), "SELECT count(*) FROM ev WHERE " + where).at());
  };
  const int64_t target_before = count_on(target, "true");
  const int64_t total = sum_direct("SELECT count(*) FROM ev");

  SqlResult moved = pq_exec(
      c.get(), "ALTER RANGE " + range_id + " RELOCATE TO 's" + std::to_string(target + 1) + "'");
  ASSERT_TRUE(moved.ok()) << moved.message;
  EXPECT_EQ(count_on(target, in_range), moving);
  EXPECT_EQ(count_on(source, in_range), 0);
  EXPECT_EQ(count_on(source, rest_of_bucket), staying);
  EXPECT_EQ(count_on(target, "true"), target_before + moving);  // nothing else came along
  EXPECT_EQ(sum_direct("SELECT count(*) FROM ev"), total);
  expect_every_row_in_place("ev");
  // And the answers stay PostgreSQL's.
  for (std::string sql : {
           "SELECT count(*), sum(id) FROM ev",
           "SELECT id, v FROM ev WHERE id BETWEEN 49990 AND 50010 ORDER BY id",
           "SELECT id FROM ev ORDER BY id DESC LIMIT 3",
       }) {
    EXPECT_EQ(text_of(pq_exec(c.get(), sql)), text_of(pq_exec(ref.get(), sql))) << sql;
  }
  SqlResult show = pq_exec(c.get(), "SHOW RANGES FROM TABLE ev");
  ASSERT_TRUE(show.ok()) << show.message;
  bool found = false;
  for (const auto& row : show.rows) {
    if (row[0] == "…/1/3/50000") found = row[3] == "s" + std::to_string(target + 1);
  }
  EXPECT_TRUE(found) << text_of(show);
}

TEST_F(HashShardedTest, BadHashClausesAreRefused) {
  auto c = pq_connect(proxy_->dsn());
  SqlResult r = pq_exec(
      c.get(), "CREATE TABLE bad (id int8, PRIMARY KEY (id) USING HASH WITH (bucket_count = 1))");
  EXPECT_EQ(r.sqlstate, "22023") << r.message;
  r = pq_exec(c.get(), "CREATE TABLE bad (id int8, PRIMARY KEY (id) USING HASH WITH (x = 3))");
  EXPECT_EQ(r.sqlstate, "22023") << r.message;
  r = pq_exec(c.get(), "ALTER TABLE plain ADD PRIMARY KEY (id) USING HASH");
  EXPECT_EQ(r.sqlstate, "0A000") << r.message;
  // Nothing was created anywhere.
  EXPECT_EQ(sum_direct("SELECT count(*) FROM pg_class WHERE relname = 'bad'"), 0);
  // The default is 16 buckets.
  r = pq_exec(c.get(), "CREATE TABLE sixteen (k text PRIMARY KEY USING HASH, v int)");
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(ranges_of("sixteen").rows.size(), 16u);
  // INSERT … SELECT over several buckets: pgrange routes each row to its bucket.
  r = pq_exec(c.get(), "INSERT INTO sixteen SELECT 'k' || g, g FROM generate_series(1, 10) g");
  ASSERT_TRUE(r.ok()) << r.message;
  expect_every_row_in_place("sixteen");
  std::string values;
  for (int i = 11; i <= 200; ++i) {
    values += (values.empty() ? "" : ", ") + ("('k" + std::to_string(i)) + "', " +
              std::to_string(i) + ")";
  }
  r = pq_exec(c.get(), "INSERT INTO sixteen VALUES " + values);
  ASSERT_TRUE(r.ok()) << r.message;
  expect_every_row_in_place("sixteen");
  EXPECT_EQ(pq_exec(c.get(), "SELECT v FROM sixteen WHERE k = 'k77'").at(), "77");
  EXPECT_EQ(pq_exec(c.get(), "SELECT sum(v) FROM sixteen").at(), "20100");
}

}  // namespace
}  // namespace pgrange::testing
