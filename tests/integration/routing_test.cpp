// Routing by key through pgrange with three real PostgreSQL 15 shards: point statements in the
// simple and the extended protocol (text and binary parameters, named and unnamed statements)
// reach exactly the shard owning the key, transactions stay on one shard, and what cannot run
// correctly across shards is refused with 0A000. Every answer is checked against the shards
// themselves.
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <regex>

#include "tests/support/shard_cluster.hpp"

namespace pgrange::testing {
namespace {

class RoutingTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ShardCluster::Options o;
    o.pool_size = 6;
    cluster_ = ShardCluster::start(o);
    ASSERT_EQ(cluster_->run_setup(
                  {"CREATE TABLE t (id int8 PRIMARY KEY, name text, hits int NOT NULL DEFAULT 0)",
                   "INSERT INTO t (id, name) SELECT g, 'n' || g FROM generate_series(1, 300) g",
                   "ALTER TABLE t SPLIT AT VALUES (100), (200)", "ALTER TABLE t SCATTER"}),
              "");
  }
  static void TearDownTestSuite() { cluster_.reset(); }

  /// The shard index (0..2) the map gives the row with this id, from pgrange itself.
  static int owner(PGconn* c, int64_t id) {
    SqlResult r = pq_exec(c, "SHOW RANGE FROM TABLE t FOR ROW (" + std::to_string(id) + ")");
    EXPECT_TRUE(r.ok()) << r.message;
    return std::stoi(r.at(0, 3).substr(1)) - 1;
  }
  /// How many shards hold the row, and the row as the owner holds it ("" if none does).
  static std::pair<int, std::string> where(int64_t id) {
    int copies = 0;
    std::string row;
    for (int i = 0; i < 3; ++i) {
      auto d = cluster_->direct(i);
      SqlResult r =
          pq_exec(d.get(), "SELECT name || '/' || hits FROM t WHERE id = " + std::to_string(id));
      if (!r.rows.empty()) {
        ++copies;
        row = r.at();
      }
    }
    return {copies, row};
  }

  static std::unique_ptr<ShardCluster> cluster_;
};
std::unique_ptr<ShardCluster> RoutingTest::cluster_;

TEST_F(RoutingTest, ScatterPutsEachRangeOnItsShard) {
  auto c = cluster_->client();
  std::map<int, int> owners;
  for (int64_t id : {1, 99, 100, 150, 199, 200, 300}) {
    int o = owner(c.get(), id);
    ++owners[o];
    // The owner holds the row and no other shard does.
    auto d = cluster_->direct(o);
    EXPECT_EQ(pq_exec(d.get(), "SELECT name FROM t WHERE id = " + std::to_string(id)).at(),
              "n" + std::to_string(id));
    EXPECT_EQ(where(id).first, 1) << id;
  }
  EXPECT_EQ(owners.size(), 3u);  // three ranges (and a table range) over three shards
}

TEST_F(RoutingTest, PointStatementsInTheSimpleProtocol) {
  auto c = cluster_->client();
  for (int64_t id : {5, 120, 250}) {
    SqlResult r = pq_exec(c.get(), "SELECT name FROM t WHERE id = " + std::to_string(id));
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.at(), "n" + std::to_string(id));
  }
  SqlResult u = pq_exec(c.get(), "UPDATE t SET hits = hits + 1 WHERE id = 120");
  ASSERT_TRUE(u.ok()) << u.message;
  EXPECT_EQ(where(120), (std::pair<int, std::string>{1, "n120/1"}));
  SqlResult ins = pq_exec(c.get(), "INSERT INTO t VALUES (1001, 'new', 0)");  // no column list
  ASSERT_TRUE(ins.ok()) << ins.message;
  EXPECT_EQ(where(1001).first, 1);
  auto d = cluster_->direct(owner(c.get(), 1001));
  EXPECT_EQ(pq_exec(d.get(), "SELECT name FROM t WHERE id = 1001").at(), "new");
  // A count over every shard is the sum of theirs.
  SqlResult n = pq_exec(c.get(), "SELECT count(*) FROM t WHERE id <= 300");
  ASSERT_TRUE(n.ok()) << n.message;
  EXPECT_EQ(n.at(), "300");
  // A plain SELECT over every shard comes back whole.
  SqlResult all = pq_exec(c.get(), "SELECT id FROM t WHERE name LIKE 'n2%'");
  ASSERT_TRUE(all.ok()) << all.message;
  EXPECT_EQ(all.rows.size(), 111u);  // n2, n20..n29, n200..n299
}

TEST_F(RoutingTest, ExtendedProtocolRoutesAtBindWithTextAndBinaryValues) {
  auto c = cluster_->client();
  // Unnamed statement, text parameter.
  for (int64_t id : {7, 133, 266}) {
    std::string v = std::to_string(id);
    const char* values[1] = {v.c_str()};
    PGresult* res = PQexecParams(c.get(), "SELECT name FROM t WHERE id = $1", 1, nullptr, values,
                                 nullptr, nullptr, 0);
    SqlResult r = take_result(res, c.get());
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.at(), "n" + v);
  }
  // Named statement, binary int8 parameter, executed many times across shards.
  Oid types[1] = {20};
  SqlResult p = take_result(
      PQprepare(c.get(), "upd", "UPDATE t SET hits = hits + 1 WHERE id = $1", 1, types), c.get());
  ASSERT_TRUE(p.ok()) << p.message;
  for (int round = 0; round < 3; ++round) {
    for (int64_t id : {8, 140, 280}) {
      uint64_t be = (static_cast<uint64_t>(htonl(static_cast<uint32_t>(id))) << 32) |
                    htonl(static_cast<uint32_t>(static_cast<uint64_t>(id) >> 32));
      char buf[8];
      std::memcpy(buf, &be, 8);
      const char* values[1] = {buf};
      int lengths[1] = {8};
      int formats[1] = {1};
      SqlResult r =
          take_result(PQexecPrepared(c.get(), "upd", 1, values, lengths, formats, 0), c.get());
      ASSERT_TRUE(r.ok()) << r.message;
    }
  }
  for (int64_t id : {8, 140, 280}) {
    EXPECT_EQ(where(id), (std::pair<int, std::string>{1, "n" + std::to_string(id) + "/3"}));
  }
  // INSERT with parameters lands on the owner of its key only.
  const char* values[2] = {"2222", "param"};
  SqlResult ins = take_result(PQexecParams(c.get(), "INSERT INTO t (id, name) VALUES ($1, $2)", 2,
                                           nullptr, values, nullptr, nullptr, 0),
                              c.get());
  ASSERT_TRUE(ins.ok()) << ins.message;
  EXPECT_EQ(where(2222), (std::pair<int, std::string>{1, "param/0"}));
  // A parameter that is not on the key cannot pick a shard: every shard is asked.
  const char* name[1] = {"n5"};
  SqlResult r = take_result(PQexecParams(c.get(), "SELECT id FROM t WHERE name = $1", 1, nullptr,
                                         name, nullptr, nullptr, 0),
                            c.get());
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.rows, (std::vector<std::vector<std::string>>{{"5"}}));
  // …and merged: ordered, limited, aggregated.
  const char* bounds[2] = {"50", "3"};
  r = take_result(PQexecParams(c.get(), "SELECT id FROM t WHERE id > $1 ORDER BY id DESC LIMIT 3",
                               1, nullptr, bounds, nullptr, nullptr, 0),
                  c.get());
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.rows, (std::vector<std::vector<std::string>>{{"2222"}, {"1001"}, {"300"}}));
  r = take_result(PQexecParams(c.get(), "SELECT count(*), min(id), max(name) FROM t WHERE id > $1",
                               1, nullptr, bounds, nullptr, nullptr, 0),
                  c.get());
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.rows, (std::vector<std::vector<std::string>>{{"252", "51", "param"}}));
  // What no merge computes is gathered (the table's rows read into one shard), with the
  // Bind's values, window functions too; a float sum is refused, and the session goes on.
  r = take_result(
      PQexecParams(c.get(), "SELECT count(*), string_agg(name, ',') FROM t WHERE name = $1", 1,
                   nullptr, name, nullptr, nullptr, 0),
      c.get());
  ASSERT_TRUE(r.ok()) << r.message;
  SqlResult counted = take_result(PQexecParams(c.get(), "SELECT count(*) FROM t WHERE name = $1", 1,
                                               nullptr, name, nullptr, nullptr, 0),
                                  c.get());
  ASSERT_TRUE(counted.ok()) << counted.message;
  EXPECT_EQ(r.at(0, 0), counted.at());
  // A window function no merge computes: the rows are gathered on one shard.
  r = take_result(
      PQexecParams(c.get(),
                   "SELECT id, row_number() OVER (ORDER BY id) FROM t WHERE name = $1 ORDER BY id",
                   1, nullptr, name, nullptr, nullptr, 0),
      c.get());
  ASSERT_TRUE(r.ok()) << r.sqlstate << " " << r.message;
  EXPECT_EQ(std::to_string(r.rows.size()), counted.at());
  for (size_t i = 0; i < r.rows.size(); ++i) EXPECT_EQ(r.at(i, 1), std::to_string(i + 1));
  // avg of float4, averaged in float8 as PostgreSQL does (the shards sum the values as float8).
  r = take_result(PQexecParams(c.get(), "SELECT avg(hits::float4) FROM t WHERE name = $1", 1,
                               nullptr, name, nullptr, nullptr, 0),
                  c.get());
  ASSERT_TRUE(r.ok()) << r.sqlstate << " " << r.message;
  SqlResult as_float8 =
      take_result(PQexecParams(c.get(), "SELECT avg(hits::float8) FROM t WHERE name = $1", 1,
                               nullptr, name, nullptr, nullptr, 0),
                  c.get());
  ASSERT_TRUE(as_float8.ok()) << as_float8.message;
  EXPECT_EQ(r.at(), as_float8.at());
  EXPECT_TRUE(pq_exec(c.get(), "SELECT 1").ok());
}

TEST_F(RoutingTest, KeyBoundsWrittenAsSumsReachOnlyTheirRange) {
  auto c = cluster_->client();
  const int o = owner(c.get(), 120);
  ASSERT_EQ(owner(c.get(), 170), o);
  // The other shards' t is locked: a statement that reached one would fail at lock_timeout.
  std::vector<PgConnPtr> lockers;
  for (int i = 0; i < 3; ++i) {
    if (i == o) continue;
    lockers.push_back(cluster_->direct(i));
    ASSERT_TRUE(pq_exec(lockers.back().get(), "BEGIN").ok());
    ASSERT_TRUE(pq_exec(lockers.back().get(), "LOCK TABLE t IN ACCESS EXCLUSIVE MODE").ok());
  }
  ASSERT_TRUE(pq_exec(c.get(), "SET lock_timeout = '3s'").ok());
  ASSERT_TRUE(pq_exec(c.get(), "SET statement_timeout = '10s'").ok());
  SqlResult r = pq_exec(c.get(), "SELECT count(*) FROM t WHERE id BETWEEN 120 AND 120 + 50");
  ASSERT_TRUE(r.ok()) << r.sqlstate << " " << r.message;
  EXPECT_EQ(r.at(), "51");
  r = pq_exec(c.get(), "SELECT name FROM t WHERE id = 200 - 40 + 1");
  ASSERT_TRUE(r.ok()) << r.sqlstate << " " << r.message;
  EXPECT_EQ(r.at(), "n161");
  // Text parameters, and binary ones without types (read as the integers of their length).
  const char* text[2] = {"120", "50"};
  r = take_result(PQexecParams(c.get(), "SELECT count(*) FROM t WHERE id BETWEEN $1 AND $1 + $2", 2,
                               nullptr, text, nullptr, nullptr, 0),
                  c.get());
  ASSERT_TRUE(r.ok()) << r.sqlstate << " " << r.message;
  EXPECT_EQ(r.at(), "51");
  auto int8_be = [](int64_t v) {
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>(v >> (56 - 8 * i));
    return out;
  };
  const std::string lo = int8_be(130), width = int8_be(5);
  const char* binary[2] = {lo.data(), width.data()};
  int lengths[2] = {8, 8};
  int formats[2] = {1, 1};
  r = take_result(PQexecParams(c.get(), "SELECT count(*) FROM t WHERE id BETWEEN $1 AND $1 + $2", 2,
                               nullptr, binary, lengths, formats, 0),
                  c.get());
  ASSERT_TRUE(r.ok()) << r.sqlstate << " " << r.message;
  EXPECT_EQ(r.at(), "6");
  const char* below[1] = {"163"};
  r = take_result(PQexecParams(c.get(), "UPDATE t SET hits = hits + 1 WHERE id = $1 - 1", 1,
                               nullptr, below, nullptr, nullptr, 0),
                  c.get());
  ASSERT_TRUE(r.ok()) << r.sqlstate << " " << r.message;
  for (auto& l : lockers) ASSERT_TRUE(pq_exec(l.get(), "ROLLBACK").ok());
  EXPECT_EQ(where(162), (std::pair<int, std::string>{1, "n162/1"}));
  // The same bound as a product is not worked out: every shard is asked (they are free now).
  r = pq_exec(c.get(), "SELECT count(*) FROM t WHERE id BETWEEN 120 AND 60 * 2 + 50");
  ASSERT_TRUE(r.ok()) << r.sqlstate << " " << r.message;
  EXPECT_EQ(r.at(), "51");
}

TEST_F(RoutingTest, ATransactionSpansTheShardsItTouches) {
  auto c = cluster_->client();
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  ASSERT_TRUE(pq_exec(c.get(), "UPDATE t SET hits = hits + 100 WHERE id = 10").ok());
  // A statement on another shard: the transaction now spans both.
  SqlResult other = pq_exec(c.get(), "UPDATE t SET hits = hits + 100 WHERE id = 290");
  ASSERT_TRUE(other.ok()) << other.message;
  EXPECT_EQ(pq_exec(c.get(), "SELECT hits FROM t WHERE id = 290").at(), "100");
  // Not visible outside before COMMIT; rolled back on both shards by ROLLBACK.
  EXPECT_EQ(where(290), (std::pair<int, std::string>{1, "n290/0"}));
  ASSERT_TRUE(pq_exec(c.get(), "ROLLBACK").ok());
  EXPECT_EQ(PQtransactionStatus(c.get()), PQTRANS_IDLE);
  EXPECT_EQ(where(10), (std::pair<int, std::string>{1, "n10/0"}));
  EXPECT_EQ(where(290), (std::pair<int, std::string>{1, "n290/0"}));
  // An error aborts the whole transaction, as PostgreSQL's would be.
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  ASSERT_TRUE(pq_exec(c.get(), "UPDATE t SET hits = hits + 1 WHERE id = 10").ok());
  ASSERT_TRUE(pq_exec(c.get(), "UPDATE t SET hits = hits + 1 WHERE id = 290").ok());
  EXPECT_EQ(pq_exec(c.get(), "SELECT 1 / (id - 290) FROM t WHERE id = 290").sqlstate, "22012");
  EXPECT_EQ(pq_exec(c.get(), "SELECT 1").sqlstate, "25P02");
  EXPECT_TRUE(pq_exec(c.get(), "COMMIT").ok());  // answered ROLLBACK, as PostgreSQL does
  EXPECT_EQ(where(10), (std::pair<int, std::string>{1, "n10/0"}));
  EXPECT_EQ(where(290), (std::pair<int, std::string>{1, "n290/0"}));
  // Committed on both, atomically.
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  ASSERT_TRUE(pq_exec(c.get(), "UPDATE t SET hits = hits + 7 WHERE id = 10").ok());
  ASSERT_TRUE(pq_exec(c.get(), "UPDATE t SET hits = hits + 7 WHERE id = 290").ok());
  ASSERT_TRUE(pq_exec(c.get(), "COMMIT").ok());
  EXPECT_EQ(where(10), (std::pair<int, std::string>{1, "n10/7"}));
  EXPECT_EQ(where(290), (std::pair<int, std::string>{1, "n290/7"}));
  ASSERT_TRUE(pq_exec(c.get(), "UPDATE t SET hits = 0 WHERE id IN (10, 290)").ok());
  // A transaction whose statements share a shard commits there.
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  ASSERT_TRUE(pq_exec(c.get(), "UPDATE t SET hits = hits + 1 WHERE id = 11").ok());
  ASSERT_TRUE(pq_exec(c.get(), "UPDATE t SET hits = hits + 1 WHERE id = 12").ok());
  ASSERT_TRUE(pq_exec(c.get(), "COMMIT").ok());
  EXPECT_EQ(where(11).second, "n11/1");
  EXPECT_EQ(where(12).second, "n12/1");
  // BEGIN … COMMIT with nothing in between.
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  EXPECT_EQ(PQtransactionStatus(c.get()), PQTRANS_INTRANS);
  ASSERT_TRUE(pq_exec(c.get(), "COMMIT").ok());
  EXPECT_EQ(PQtransactionStatus(c.get()), PQTRANS_IDLE);
}

// A join pgrange runs in steps (a point of one table read on its shard, in a transaction of
// the statement's own; the statement then run with that row on the shard of the other table's
// row) answers right in both protocols, and leaves no transaction open on any shard: every
// connection it used is idle when the client has its answer.
TEST_F(RoutingTest, AJoinInStepsEndsItsTransactionsOnEveryShard) {
  auto c = cluster_->client();
  ASSERT_TRUE(pq_exec(c.get(), "CREATE TABLE jl (id int8 PRIMARY KEY, r int8 NOT NULL)").ok());
  ASSERT_TRUE(pq_exec(c.get(), "CREATE TABLE jr (id int8 PRIMARY KEY, name text NOT NULL)").ok());
  ASSERT_TRUE(
      pq_exec(c.get(), "INSERT INTO jl SELECT g, 301 - g FROM generate_series(1, 300) g").ok());
  ASSERT_TRUE(
      pq_exec(c.get(), "INSERT INTO jr SELECT g, 'r' || g FROM generate_series(1, 300) g").ok());
  for (const char* t : {"jl", "jr"}) {
    ASSERT_TRUE(
        pq_exec(c.get(), std::string("ALTER TABLE ") + t + " SPLIT AT VALUES (100), (200)").ok());
    ASSERT_TRUE(pq_exec(c.get(), std::string("ALTER TABLE ") + t + " SCATTER").ok());
  }
  const std::string join = "SELECT jl.id, jr.name FROM jl JOIN jr ON jr.id = jl.r WHERE jl.id = ";
  for (int64_t id : {5, 150, 295, 42, 250}) {
    SqlResult simple = pq_exec(c.get(), join + std::to_string(id));
    ASSERT_TRUE(simple.ok()) << simple.sqlstate << " " << simple.message;
    ASSERT_EQ(simple.rows.size(), 1u);
    EXPECT_EQ(simple.at(0, 1), "r" + std::to_string(301 - id));
    const std::string sql = join + "$1", value = std::to_string(id);
    const char* values[] = {value.c_str()};
    SqlResult extended = take_result(
        PQexecParams(c.get(), sql.c_str(), 1, nullptr, values, nullptr, nullptr, 0), c.get());
    ASSERT_TRUE(extended.ok()) << extended.sqlstate << " " << extended.message;
    ASSERT_EQ(extended.rows.size(), 1u);
    EXPECT_EQ(extended.at(0, 1), "r" + std::to_string(301 - id));
    for (int i = 0; i < 3; ++i) {
      auto d = cluster_->direct(i);
      SqlResult open = pq_exec(d.get(),
                               "SELECT count(*) FROM pg_stat_activity WHERE datname = "
                               "current_database() AND state LIKE 'idle in transaction%'");
      ASSERT_TRUE(open.ok()) << open.message;
      EXPECT_EQ(open.at(), "0") << "shard " << i << " after the join of id " << id;
    }
  }
  ASSERT_TRUE(pq_exec(c.get(), "DROP TABLE jl, jr").ok());
}

// EXPLAIN (FORMAT JSON | YAML | XML) gives one valid document of that format, as PostgreSQL
// does (tools parse it): pgrange's plan as a Custom Scan node, each shard's own plan under it.
// The JSON and XML are read back by a plain PostgreSQL server.
TEST_F(RoutingTest, ExplainInStructuredFormats) {
  auto c = cluster_->client();
  auto plain = cluster_->direct(0);
  const std::string query = "SELECT id, name FROM t WHERE id < 150 ORDER BY id LIMIT 5";
  // Reads `doc` on a plain server with `sql` ($1 the document).
  auto read_back = [&](const std::string& doc, const std::string& sql) {
    const char* values[] = {doc.c_str()};
    return take_result(
        PQexecParams(plain.get(), sql.c_str(), 1, nullptr, values, nullptr, nullptr, 0),
        plain.get());
  };

  PGresult* r = PQexec(c.get(), ("EXPLAIN (FORMAT JSON, COSTS OFF) " + query).c_str());
  ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQerrorMessage(c.get());
  ASSERT_EQ(PQntuples(r), 1);
  EXPECT_EQ(PQftype(r, 0), 114u);  // json
  EXPECT_STREQ(PQfname(r, 0), "QUERY PLAN");
  std::string json = PQgetvalue(r, 0, 0);
  PQclear(r);
  SqlResult j = read_back(
      json,
      "SELECT d->0->'Plan'->>'Node Type', d->0->'Plan'->>'Custom Plan Provider', "
      "json_array_length(d->0->'Plan'->'Shards'), "
      "(SELECT string_agg(s->>'Shard', ',') FROM json_array_elements(d->0->'Plan'->'Shards') s), "
      "d->0->'Plan'->'Shards'->0->'Remote Plan'->0->'Plan'->>'Node Type', "
      "d->0->'Plan'->'pgrange Plan'->>0 FROM (SELECT $1::json AS d) x");
  ASSERT_TRUE(j.ok()) << j.message << "\n" << json;
  EXPECT_EQ(j.at(0, 0), "Custom Scan");
  EXPECT_EQ(j.at(0, 1), "pgrange");
  EXPECT_EQ(j.at(0, 2), "2") << json;
  EXPECT_EQ(j.at(0, 3), "s1,s2");
  EXPECT_EQ(j.at(0, 4), "Limit") << json;
  EXPECT_EQ(j.at(0, 5).rfind("pgrange plan: fan-out to 2 shards", 0), 0u) << json;

  r = PQexec(c.get(), ("EXPLAIN (FORMAT XML, ANALYZE) " + query).c_str());
  ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQerrorMessage(c.get());
  EXPECT_EQ(PQftype(r, 0), 142u);  // xml
  std::string xml = PQgetvalue(r, 0, 0);
  PQclear(r);
  SqlResult x =
      read_back(xml,
                "SELECT xml_is_well_formed_document($1), "
                "array_length(xpath('/e:explain/e:Query/e:Plan/e:Shards/e:Shard', $1::xml, "
                "ARRAY[ARRAY['e', 'http://www.postgresql.org/2009/explain']]), 1), "
                "(xpath('//e:Remote-Plan/e:explain/e:Query/e:Plan/e:Node-Type/text()', $1::xml, "
                "ARRAY[ARRAY['e', 'http://www.postgresql.org/2009/explain']]))[1]::text");
  ASSERT_TRUE(x.ok()) << x.message << "\n" << xml;
  EXPECT_EQ(x.at(0, 0), "t") << xml;
  EXPECT_EQ(x.at(0, 1), "2") << xml;
  EXPECT_EQ(x.at(0, 2), "Limit") << xml;

  r = PQexec(c.get(), ("EXPLAIN (FORMAT YAML) " + query).c_str());
  ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQerrorMessage(c.get());
  std::string yaml = PQgetvalue(r, 0, 0);
  PQclear(r);
  EXPECT_EQ(yaml.rfind("- Plan: \n    Node Type: \"Custom Scan\"\n", 0), 0u) << yaml;
  EXPECT_NE(yaml.find("      - Shard: \"s2\"\n        Remote Plan: \n          - Plan: \n"),
            std::string::npos)
      << yaml;

  // PostgreSQL's own error for a format it does not know; text stays pgrange's lines.
  EXPECT_EQ(pq_exec(c.get(), "EXPLAIN (FORMAT CSV) " + query).sqlstate, "22023");
  SqlResult text = pq_exec(c.get(), "EXPLAIN (FORMAT TEXT) " + query);
  ASSERT_TRUE(text.ok()) << text.message;
  EXPECT_EQ(text.at(0).rfind("pgrange plan:", 0), 0u);
}

// EXPLAIN ANALYZE of a SELECT merged from several shards runs pgrange's tree too: the merge
// and each shard's Route with the rows they handed up and their time; a LIMIT that stops the
// merge early says which shards were left before their end.
TEST_F(RoutingTest, ExplainAnalyzeOfAMergeGivesEachOperatorsRows) {
  auto c = cluster_->client();
  auto text_of = [&](const std::string& sql) {
    SqlResult r = pq_exec(c.get(), sql);
    EXPECT_TRUE(r.ok()) << sql << ": " << r.message;
    std::string text;
    for (const auto& row : r.rows) text += row[0] + "\n";
    return text;
  };
  // Other tests of the suite add rows to t: the statement itself says how many there are.
  const std::string total = pq_exec(c.get(), "SELECT count(*) FROM t WHERE id > 50").at();
  std::string all = text_of("EXPLAIN ANALYZE SELECT id FROM t WHERE id > 50");
  // Each step of the merge is an operator: the client's columns of the shards' rows, shard
  // after shard.
  EXPECT_NE(all.find("actual: Project: 1 column for the client: " + total + " rows, "),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("  actual: Append: each shard's rows in turn: " + total + " rows, "),
            std::string::npos)
      << all;
  // One Route per shard, whose rows add up to the merge's.
  std::regex route(R"(actual: Route on shard s[123]: [^\n]*: ([0-9]+) rows?, [0-9.]+ ms)");
  int64_t routes = 0, sum = 0;
  for (std::sregex_iterator it(all.begin(), all.end(), route), e; it != e; ++it) {
    ++routes;
    sum += std::stoll((*it)[1]);
  }
  EXPECT_EQ(routes, 3) << all;
  EXPECT_EQ(std::to_string(sum), total) << all;
  std::string grouped =
      text_of("EXPLAIN ANALYZE SELECT id % 4, count(*) FROM t GROUP BY 1 ORDER BY 1");
  // The groups combined from the shards' partial counts, then sorted in pgrange.
  for (const char* line :
       {"actual: Sort: in pgrange, by ORDER BY (", "4 rows, ",
        "actual: Aggregate: partial aggregates combined per group: 4 rows, ",
        "actual: MergeSort: the shards' sorted rows merged in GROUP BY order: "}) {
    EXPECT_NE(grouped.find(line), std::string::npos) << line << "\n" << grouped;
  }
  std::string limited = text_of("EXPLAIN ANALYZE SELECT id FROM t ORDER BY id LIMIT 5");
  EXPECT_NE(limited.find("  actual: Limit: LIMIT 5: 5 rows"), std::string::npos) << limited;
  EXPECT_NE(limited.find("    actual: MergeSort: the shards' sorted rows merged in ORDER BY order: "
                         "5 rows (not read to its end"),
            std::string::npos)
      << limited;
  EXPECT_NE(limited.find("not read to its end"), std::string::npos) << limited;
  // The session goes on.
  EXPECT_EQ(pq_exec(c.get(), "SELECT count(*) FROM t WHERE id > 50").at(), total);
}

TEST_F(RoutingTest, WhatCannotBeRightAcrossShardsIsRefused) {
  auto c = cluster_->client();
  // count(DISTINCT) of a column no merge can count: the rows are gathered on one shard.
  SqlResult distinct = pq_exec(c.get(), "SELECT count(DISTINCT name) FROM t");
  ASSERT_TRUE(distinct.ok()) << distinct.message;
  SqlResult merged = pq_exec(c.get(), "SELECT count(*) FROM (SELECT DISTINCT name FROM t) d");
  ASSERT_TRUE(merged.ok()) << merged.message;
  EXPECT_EQ(distinct.at(), merged.at());
  // So are the rows of a window function: its answer is PostgreSQL's over all of them.
  SqlResult window = pq_exec(c.get(),
                             "SELECT count(*), sum((rn = n)::int) FROM (SELECT row_number() OVER "
                             "(ORDER BY id) AS rn, count(*) OVER () AS n FROM t) w");
  ASSERT_TRUE(window.ok()) << window.message;
  EXPECT_EQ(window.at(0, 0), pq_exec(c.get(), "SELECT count(*) FROM t").at());
  EXPECT_EQ(window.at(0, 1), "1");
  for (std::string sql :
       {"INSERT INTO t (id, name) VALUES (60, 'x') ON CONFLICT (id) DO UPDATE SET id = 1060",
        "BEGIN; UPDATE t SET hits = 0; COMMIT"}) {
    SqlResult r = pq_exec(c.get(), sql);
    EXPECT_EQ(r.sqlstate, "0A000") << sql << ": " << r.message;
  }
  // Nothing was half-applied.
  EXPECT_EQ(where(60).first, 1);
  EXPECT_EQ(where(1060).first, 0);
  // INSERT … SELECT over several shards: pgrange runs the query and routes each row.
  SqlResult ins =
      pq_exec(c.get(), "INSERT INTO t (id, name) SELECT -5, 'a' UNION ALL SELECT 3150, 'b'");
  EXPECT_TRUE(ins.ok()) << ins.message;
  EXPECT_EQ(where(-5).first, 1);
  EXPECT_EQ(where(3150).first, 1);
  ASSERT_TRUE(pq_exec(c.get(), "DELETE FROM t WHERE id IN (-5, 3150)").ok());
}

TEST_F(RoutingTest, TextsOfOneShapeShareAMergePlanOnlyWhereTheyMeanTheSame) {
  // Texts that differ only in literals share a plan, unless the plan read those literals
  // (LIMIT, OFFSET, ORDER BY positions).
  auto c = cluster_->client();
  using Rows = std::vector<std::vector<std::string>>;
  auto rows = [&](const std::string& sql) {
    SqlResult r = pq_exec(c.get(), sql);
    EXPECT_TRUE(r.ok()) << sql << ": " << r.message;
    return r.rows;
  };
  EXPECT_EQ(rows("SELECT id FROM t WHERE id > 98 ORDER BY id LIMIT 3"),
            (Rows{{"99"}, {"100"}, {"101"}}));
  EXPECT_EQ(rows("SELECT id FROM t WHERE id > 198 ORDER BY id LIMIT 3"),
            (Rows{{"199"}, {"200"}, {"201"}}));
  EXPECT_EQ(rows("SELECT id FROM t WHERE id > 198 ORDER BY id LIMIT 1"), (Rows{{"199"}}));
  EXPECT_EQ(rows("SELECT id FROM t WHERE id > 198 ORDER BY id LIMIT 2 OFFSET 1"),
            (Rows{{"200"}, {"201"}}));
  EXPECT_EQ(rows("SELECT id FROM t WHERE id > 198 ORDER BY id LIMIT 2 OFFSET 2"),
            (Rows{{"201"}, {"202"}}));
  EXPECT_EQ(rows("SELECT id, name FROM t WHERE id BETWEEN 98 AND 101 ORDER BY 2 DESC LIMIT 2"),
            (Rows{{"99", "n99"}, {"98", "n98"}}));
  EXPECT_EQ(rows("SELECT id, name FROM t WHERE id BETWEEN 98 AND 101 ORDER BY 1 DESC LIMIT 2"),
            (Rows{{"101", "n101"}, {"100", "n100"}}));
}

TEST_F(RoutingTest, TextIsMergedOnlyWhereTheShardsOrderItBytewise) {
  // Shards whose database orders text by ICU's rules: pgrange cannot merge text in that order.
  for (int i = 0; i < cluster_->size(); ++i) {
    auto d = pq_connect(cluster_->shard(i).dsn("postgres"));
    SqlResult r = pq_exec(d.get(),
                          "CREATE DATABASE icu LOCALE_PROVIDER icu ICU_LOCALE 'en-US' "
                          "TEMPLATE template0");
    ASSERT_TRUE(r.ok()) << r.message;
  }
  ProxyConfig cfg = ProxyConfig::with_shards(cluster_->dsns("icu"), 4);
  cfg.extra_toml = "\n[metadata]\ndsn = \"" + cluster_->shard(0).dsn("icu_meta") + "\"\n";
  {
    auto d = pq_connect(cluster_->shard(0).dsn("postgres"));
    ASSERT_TRUE(pq_exec(d.get(), "CREATE DATABASE icu_meta").ok());
  }
  auto proxy = ProxyProcess::start(cfg);
  auto c = pq_connect(proxy->dsn());
  ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
  for (std::string sql :
       {"CREATE TABLE words (id int8 PRIMARY KEY, w text)",
        "INSERT INTO words VALUES (1, 'b'), (2, 'B'), (3, 'a'), (4, 'A'), (5, 'ä')",
        "ALTER TABLE words SPLIT AT VALUES (2), (4)", "ALTER TABLE words SCATTER"}) {
    SqlResult r = pq_exec(c.get(), sql);
    ASSERT_TRUE(r.ok()) << sql << ": " << r.message;
  }
  // Merged, they would be refused (the shards' order is not bytewise): they are gathered, and
  // one shard orders them as ICU does, which the same query over the same rows on one database
  // of the shards shows.
  auto icu = pq_connect(cluster_->shard(0).dsn("icu"));
  const std::string rows =
      "(VALUES (1, 'b'), (2, 'B'), (3, 'a'), (4, 'A'), (5, 'ä')) AS words (id, w)";
  for (std::string sql : {"SELECT w FROM words ORDER BY w", "SELECT max(w), min(w) FROM words",
                          "SELECT DISTINCT w FROM words ORDER BY w DESC",
                          "SELECT w, count(*) FROM words GROUP BY w ORDER BY w",
                          "SELECT w FROM words ORDER BY w LIMIT 2 OFFSET 1",
                          "SELECT string_agg(w, '' ORDER BY w) FROM words"}) {
    SqlResult r = pq_exec(c.get(), sql);
    ASSERT_TRUE(r.ok()) << sql << ": " << r.message;
    std::string direct_sql = sql;
    direct_sql.replace(direct_sql.find("FROM words") + 5, 5, rows);
    SqlResult direct = pq_exec(icu.get(), direct_sql);
    ASSERT_TRUE(direct.ok()) << direct_sql << ": " << direct.message;
    EXPECT_EQ(r.rows, direct.rows) << sql;
  }
  // A column collation pgrange could not merge in is refused when the table is made.
  SqlResult ddl =
      pq_exec(c.get(), "CREATE TABLE named (id int8 PRIMARY KEY, w text COLLATE \"de-x-icu\")");
  EXPECT_EQ(ddl.sqlstate, "0A000") << ddl.message;
  ddl = pq_exec(c.get(), "ALTER TABLE words ADD COLUMN v text COLLATE \"und-x-icu\"");
  EXPECT_EQ(ddl.sqlstate, "0A000") << ddl.message;
  ddl = pq_exec(c.get(), "ALTER TABLE words ADD COLUMN v text COLLATE \"C\"");
  EXPECT_TRUE(ddl.ok()) << ddl.message;
  // What compares no text is merged as usual.
  SqlResult r = pq_exec(c.get(), "SELECT * FROM words ORDER BY id DESC LIMIT 2");
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.rows,
            (std::vector<std::vector<std::string>>{{"5", "ä", "<null>"}, {"4", "A", "<null>"}}));
  EXPECT_EQ(pq_exec(c.get(), "SELECT count(*) FROM words").at(), "5");
}

TEST_F(RoutingTest, ImportTableWorksAsTheFirstStatementOfAnEmptyCatalog) {
  ProxyConfig cfg = ProxyConfig::with_shards(cluster_->dsns("app"), 2);
  for (int i = 0; i < 3; ++i) {
    auto d = cluster_->direct(i);
    ASSERT_TRUE(pq_exec(d.get(), "CREATE TABLE adopted (k int8 PRIMARY KEY, v text)").ok());
  }
  {
    auto d = pq_connect(cluster_->shard(0).dsn("postgres"));
    ASSERT_TRUE(pq_exec(d.get(), "CREATE DATABASE empty_meta").ok());
  }
  cfg.extra_toml = "\n[metadata]\ndsn = \"" + cluster_->shard(0).dsn("empty_meta") + "\"\n";
  auto proxy = ProxyProcess::start(cfg);
  auto c = pq_connect(proxy->dsn());
  SqlResult r = pq_exec(c.get(), "IMPORT TABLE adopted");
  ASSERT_TRUE(r.ok()) << r.sqlstate << " " << r.message;
  EXPECT_TRUE(pq_exec(c.get(), "SHOW RANGES FROM TABLE adopted").ok());
}

TEST_F(RoutingTest, DdlRunsOnEveryShardAndTheCatalogFollows) {
  auto c = cluster_->client();
  ASSERT_TRUE(pq_exec(c.get(), "CREATE TABLE plain (v text)").ok());
  SqlResult sr = pq_exec(c.get(), "ALTER TABLE plain SPLIT AT VALUES ('x')");
  EXPECT_EQ(sr.sqlstate, "0A000") << sr.message;  // unsharded: says why it cannot split
  ASSERT_TRUE(pq_exec(c.get(), "ALTER TABLE plain ADD COLUMN id int8").ok());
  for (int i = 0; i < 3; ++i) {
    auto d = cluster_->direct(i);
    EXPECT_EQ(pq_exec(d.get(),
                      "SELECT count(*) FROM information_schema.columns WHERE "
                      "table_name = 'plain'")
                  .at(),
              "2")
        << "shard " << i;
  }
  ASSERT_TRUE(pq_exec(c.get(), "ALTER TABLE plain ADD PRIMARY KEY (id)").ok());
  SqlResult split = pq_exec(c.get(), "ALTER TABLE plain SPLIT AT VALUES (10)");
  EXPECT_TRUE(split.ok()) << split.message;  // keyed now
  // A CREATE TABLE that fails on one shard is undone on the others.
  auto d3 = cluster_->direct(2);
  ASSERT_TRUE(pq_exec(d3.get(), "CREATE TABLE clash (x int)").ok());
  SqlResult clash = pq_exec(c.get(), "CREATE TABLE clash (id int PRIMARY KEY)");
  EXPECT_EQ(clash.sqlstate, "42P07") << clash.message;
  EXPECT_NE(clash.message.find("s3"), std::string::npos) << clash.message;
  for (int i = 0; i < 2; ++i) {
    auto d = cluster_->direct(i);
    EXPECT_EQ(pq_exec(d.get(), "SELECT to_regclass('clash') IS NULL").at(), "t") << i;
  }
  SqlResult shown = pq_exec(c.get(), "SHOW RANGES FROM TABLE clash");
  EXPECT_EQ(shown.sqlstate, "42P01") << shown.message;
  ASSERT_TRUE(pq_exec(c.get(), "DROP TABLE plain").ok());
  EXPECT_EQ(pq_exec(c.get(), "SHOW RANGES FROM TABLE plain").sqlstate, "42P01");
  // DDL inside a transaction block runs in the block: rolled back, it leaves nothing.
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  SqlResult later = pq_exec(c.get(), "CREATE TABLE later (id int PRIMARY KEY)");
  EXPECT_TRUE(later.ok()) << later.message;
  ASSERT_TRUE(pq_exec(c.get(), "ROLLBACK").ok());
  EXPECT_EQ(pq_exec(c.get(), "SHOW RANGES FROM TABLE later").sqlstate, "42P01");
  for (int i = 0; i < 3; ++i) {
    auto d = cluster_->direct(i);
    EXPECT_EQ(pq_exec(d.get(), "SELECT to_regclass('later') IS NULL").at(), "t") << i;
  }
}

TEST_F(RoutingTest, AFailedMoveLeavesTheOldPlacementIntact) {
  auto c = cluster_->client();
  ASSERT_TRUE(pq_exec(c.get(), "CREATE TABLE fragile (id int8 PRIMARY KEY, v text)").ok());
  ASSERT_TRUE(
      pq_exec(c.get(), "INSERT INTO fragile SELECT g, 'v' || g FROM generate_series(1, 50) g")
          .ok());
  SqlResult where_now = pq_exec(c.get(), "SHOW RANGE FROM TABLE fragile FOR ROW (1)");
  ASSERT_TRUE(where_now.ok()) << where_now.message;
  std::string range_id = where_now.at(0, 2), shard = where_now.at(0, 3);
  int target = shard == "s1" ? 1 : 0;
  // The target lost the table behind pgrange's back: the copy fails there.
  auto d = cluster_->direct(target);
  ASSERT_TRUE(pq_exec(d.get(), "DROP TABLE fragile").ok());
  SqlResult moved = pq_exec(
      c.get(), "ALTER RANGE " + range_id + " RELOCATE TO 's" + std::to_string(target + 1) + "'");
  EXPECT_FALSE(moved.ok());
  EXPECT_NE(moved.message.find("fragile"), std::string::npos) << moved.message;
  // Same placement, every row still there and writable (the move's hold was let go).
  EXPECT_EQ(pq_exec(c.get(), "SHOW RANGE FROM TABLE fragile FOR ROW (1)").at(0, 3), shard);
  SqlResult upd = pq_exec(c.get(), "UPDATE fragile SET v = 'w' WHERE id = 7");
  ASSERT_TRUE(upd.ok()) << upd.message;
  auto src = cluster_->direct(std::stoi(shard.substr(1)) - 1);
  EXPECT_EQ(pq_exec(src.get(), "SELECT count(*) FROM fragile").at(), "50");
  EXPECT_EQ(pq_exec(src.get(), "SELECT v FROM fragile WHERE id = 7").at(), "w");
}

}  // namespace
}  // namespace pgrange::testing
