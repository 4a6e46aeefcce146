// Co-located tables through pgrange over three real PostgreSQL 15 shards: a table configured
// with colocate_with (and one co-located later with ALTER TABLE … COLOCATE WITH) has its group
// root's ranges, and SPLIT AT, SCATTER, RELOCATE and UNSPLIT of any table of the group keep them
// so. After each step every shard holds, of every follower, exactly the rows whose key prefix
// the root's ranges there hold (read on the shards themselves), and a join on the key prefix is
// pushed down (EXPLAIN says so) with the answer the rows give.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "tests/support/shard_cluster.hpp"

namespace pgrange::testing {
namespace {

class CoLocationTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ShardCluster::Options o;
    o.pool_size = 6;
    o.extra_toml = "\n[[table]]\nname = \"c_orders\"\ncolocate_with = \"c_users\"\n";
    cluster_ = ShardCluster::start(o);
    ASSERT_EQ(
        cluster_->run_setup(
            {"CREATE TABLE c_users (id int8 PRIMARY KEY, name text)",
             "INSERT INTO c_users SELECT g, 'u' || g FROM generate_series(1, 300) g",
             "CREATE TABLE c_orders (user_id int8, id int8, amount int4, PRIMARY KEY (user_id, "
             "id))",
             "INSERT INTO c_orders SELECT g % 310 + 1, g, g % 97 FROM generate_series(1, 3000) g",
             "CREATE TABLE c_lines (user_id int8, n int4, qty int4, PRIMARY KEY (user_id, n))",
             "INSERT INTO c_lines SELECT u, n, u * n FROM generate_series(1, 300) u, "
             "generate_series(1, 3) n"}),
        "");
  }
  static void TearDownTestSuite() { cluster_.reset(); }

  /// Every shard holds, of `follower`, exactly the rows whose user_id c_users' ranges there
  /// hold: no row without its range's shard, and all of them somewhere.
  static void expect_follows(const std::string& follower, long total) {
    long rows = 0;
    for (int i = 0; i < 3; ++i) {
      auto d = cluster_->direct(i);
      // The shard's c_users key ranges, as pgrange's map gives them, hold its rows' user ids.
      SqlResult misplaced =
          pq_exec(d.get(), "SELECT count(*) FROM " + follower + " f WHERE f.user_id NOT IN " +
                               "(SELECT g FROM generate_series(" + lo(i) + ", " + hi(i) + ") g)");
      ASSERT_TRUE(misplaced.ok()) << misplaced.message;
      EXPECT_EQ(misplaced.at(), "0") << follower << " on shard s" << i + 1;
      SqlResult n = pq_exec(d.get(), "SELECT count(*) FROM " + follower);
      rows += std::stol(n.at());
    }
    EXPECT_EQ(rows, total) << follower << ": every row on exactly one shard";
  }

  /// The lowest and highest user id (1..400) whose c_users range is on shard i ("0" and "-1"
  /// when none is), read from SHOW RANGE … FOR ROW: the ranges tile the ids contiguously here.
  static std::string lo(int i) { return bound(i, true); }
  static std::string hi(int i) { return bound(i, false); }
  static std::string bound(int i, bool low) {
    auto c = cluster_->client();
    long found = -1;
    for (long id = 1; id <= 400; ++id) {
      SqlResult r =
          pq_exec(c.get(), "SHOW RANGE FROM TABLE c_users FOR ROW (" + std::to_string(id) + ")");
      if (r.at(0, 3) != "s" + std::to_string(i + 1)) continue;
      if (low) return std::to_string(id);
      found = id;
    }
    return low ? "0" : std::to_string(found);
  }

  /// <p>_a (2,000 rows, b_id = 2001 - id) and <p>_b (2,000 rows) split and scattered over the
  /// shards, and an empty <p>_c: a join of _a and _b reads both from several shards.
  static void make_joined_tables(PGconn* c, const std::string& p) {
    for (const std::string& sql :
         {"CREATE TABLE " + p + "_a (id int8 PRIMARY KEY, b_id int8)",
          "CREATE TABLE " + p + "_b (id int8 PRIMARY KEY, v text)",
          "CREATE TABLE " + p + "_c (id int8 PRIMARY KEY, v text)",
          "INSERT INTO " + p + "_a SELECT g, 2001 - g FROM generate_series(1, 2000) g",
          "INSERT INTO " + p + "_b SELECT g, 'b' || g FROM generate_series(1, 2000) g",
          "ALTER TABLE " + p + "_a SPLIT AT VALUES (700), (1400)",
          "ALTER TABLE " + p + "_a SCATTER", "ALTER TABLE " + p + "_b SPLIT AT VALUES (500)",
          "ALTER TABLE " + p + "_b SCATTER"}) {
      SqlResult r = pq_exec(c, sql);
      ASSERT_TRUE(r.ok()) << sql << ": " << r.message;
    }
  }

  /// The join on the key prefix: pushed down, with the rows' own answer.
  static void expect_pushed_down_join(const std::string& follower) {
    auto c = cluster_->client();
    std::string join = "SELECT count(*) FROM c_users u JOIN " + follower + " f ON f.user_id = u.id";
    SqlResult plan = pq_exec(c.get(), "EXPLAIN " + join);
    ASSERT_TRUE(plan.ok()) << plan.message;
    std::string text;
    for (const auto& row : plan.rows) text += row[0] + "\n";
    EXPECT_NE(text.find("each shard joins its own rows"), std::string::npos) << text;
    SqlResult got = pq_exec(c.get(), join);
    ASSERT_TRUE(got.ok()) << got.message;
    EXPECT_EQ(std::stol(got.at()),
              cluster_->sum_direct("SELECT count(*) FROM " + follower + " WHERE user_id <= 300"));
  }

  static std::unique_ptr<ShardCluster> cluster_;
};
std::unique_ptr<ShardCluster> CoLocationTest::cluster_;

TEST_F(CoLocationTest, TheGroupSplitsMovesAndUnsplitsTogether) {
  auto c = cluster_->client();
  // Splits and a scatter of the root: the follower's ranges go along.
  for (const char* sql :
       {"ALTER TABLE c_users SPLIT AT VALUES (100), (200)", "ALTER TABLE c_users SCATTER"}) {
    SqlResult r = pq_exec(c.get(), sql);
    ASSERT_TRUE(r.ok()) << sql << ": " << r.message;
  }
  expect_follows("c_orders", 3000);
  expect_pushed_down_join("c_orders");
  SqlResult ranges = pq_exec(c.get(), "SHOW RANGES FROM TABLE c_orders");
  ASSERT_TRUE(ranges.ok()) << ranges.message;
  ASSERT_EQ(ranges.rows.size(), 3u);
  for (const auto& row : ranges.rows) EXPECT_EQ(row.back(), "c_users");

  // A split through the follower splits the root too; one inside a key prefix is refused.
  SqlResult r = pq_exec(c.get(), "ALTER TABLE c_orders SPLIT AT VALUES (150, 7)");
  EXPECT_EQ(r.sqlstate, "0A000") << r.message;
  r = pq_exec(c.get(), "ALTER TABLE c_orders SPLIT AT VALUES (150)");
  ASSERT_TRUE(r.ok()) << r.message;
  r = pq_exec(c.get(), "SHOW RANGE FROM TABLE c_users FOR ROW (150)");
  ASSERT_TRUE(r.ok()) << r.message;
  std::string range_150 = r.at(0, 2);
  EXPECT_EQ(r.at(0, 0), "…/1/150") << "the root split where the follower did";

  // Moving the follower's range moves the root's with it.
  r = pq_exec(c.get(), "SHOW RANGE FROM TABLE c_orders FOR ROW (150, 1)");
  ASSERT_TRUE(r.ok()) << r.message;
  std::string from = r.at(0, 3);
  std::string to = from == "s1" ? "s3" : "s1";
  r = pq_exec(c.get(), "ALTER RANGE " + r.at(0, 2) + " RELOCATE TO '" + to + "'");
  ASSERT_TRUE(r.ok()) << r.message;
  r = pq_exec(c.get(), "SHOW RANGE FROM TABLE c_users FOR ROW (150)");
  EXPECT_EQ(r.at(0, 3), to);
  expect_follows("c_orders", 3000);
  expect_pushed_down_join("c_orders");

  // Back where it was, then unsplit: both merge.
  r = pq_exec(c.get(), "ALTER RANGE " + range_150 + " RELOCATE TO '" + from + "'");
  ASSERT_TRUE(r.ok()) << r.message;
  r = pq_exec(c.get(), "ALTER TABLE c_users UNSPLIT AT VALUES (150)");
  ASSERT_TRUE(r.ok()) << r.message;
  for (const char* table : {"c_users", "c_orders"}) {
    r = pq_exec(c.get(), std::string("SHOW RANGES FROM TABLE ") + table);
    EXPECT_EQ(r.rows.size(), 3u) << table;
  }
  expect_follows("c_orders", 3000);
}

TEST_F(CoLocationTest, ATableSplitElsewhereIsAlignedByColocateWith) {
  auto c = cluster_->client();
  for (const char* sql :
       {"ALTER TABLE c_lines SPLIT AT VALUES (50), (250, 2)", "ALTER TABLE c_lines SCATTER"}) {
    SqlResult r = pq_exec(c.get(), sql);
    ASSERT_TRUE(r.ok()) << sql << ": " << r.message;
  }
  // Not co-located yet: the join is gathered, and right.
  SqlResult plan = pq_exec(c.get(),
                           "EXPLAIN SELECT count(*) FROM c_users u JOIN c_lines l ON "
                           "l.user_id = u.id");
  ASSERT_TRUE(plan.ok()) << plan.message;
  EXPECT_EQ(plan.at(0, 0).find("pgrange plan: tables read from"), 0u) << plan.at(0, 0);
  // EXPLAIN ANALYZE runs the tree and says what each operator read, from which shards.
  plan = pq_exec(c.get(),
                 "EXPLAIN ANALYZE SELECT count(*) FROM c_users u JOIN c_lines l ON "
                 "l.user_id = u.id");
  ASSERT_TRUE(plan.ok()) << plan.message;
  std::string all;
  for (const auto& row : plan.rows) all += row[0] + "\n";
  EXPECT_NE(all.find("  actual: Materialize c_users (as u): 300 rows from s1, s2, s3, "),
            std::string::npos)
      << all;
  // c_lines is on every shard: not read, the count runs on each of them with c_users' rows
  // (a broadcast join), and their counts are added up.
  EXPECT_NE(all.find("  actual: Materialize c_lines (as l): not read, its rows all on s1, s2, "
                     "s3, where the statement ran on the table"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("  actual: Gather: 1 rows from s1, s2, s3, "), std::string::npos) << all;
  SqlResult r =
      pq_exec(c.get(), "SELECT count(*) FROM c_users u JOIN c_lines l ON l.user_id = u.id");
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.at(0, 0), "900");
  r = pq_exec(c.get(), "ALTER TABLE c_lines COLOCATE WITH c_users");
  ASSERT_TRUE(r.ok()) << r.message;
  expect_follows("c_lines", 900);
  expect_pushed_down_join("c_lines");
  // What cannot follow is refused, naming why.
  for (const char* sql : {"ALTER TABLE c_users COLOCATE WITH c_orders",
                          "ALTER TABLE c_users COLOCATE WITH c_users"}) {
    r = pq_exec(c.get(), sql);
    EXPECT_EQ(r.sqlstate, "0A000") << sql << ": " << r.message;
  }
  r = pq_exec(c.get(), "CREATE TABLE c_text (k text PRIMARY KEY)");
  ASSERT_TRUE(r.ok()) << r.message;
  r = pq_exec(c.get(), "ALTER TABLE c_text COLOCATE WITH c_users");
  EXPECT_EQ(r.sqlstate, "0A000") << r.message;
  r = pq_exec(c.get(), "ALTER TABLE c_lines COLOCATE WITH nosuch");
  EXPECT_EQ(r.sqlstate, "42P01") << r.message;
}

// A point of one table and the row it names in another, whose rows are all on one other
// shard: the second table is not read into pgrange; the statement runs on its shard, on the
// table itself, with the point's row written in (two round trips, not three).
TEST_F(CoLocationTest, TheLastTableOfAJoinOnOneShardIsReadInPlace) {
  auto c = cluster_->client();
  for (const char* sql : {"CREATE TABLE g_a (id int8 PRIMARY KEY, b_id int8)",
                          "CREATE TABLE g_b (id int8 PRIMARY KEY, v text)",
                          "INSERT INTO g_a VALUES (1, 10), (2, 20), (3, NULL)",
                          "INSERT INTO g_b VALUES (10, 'ten'), (20, 'twenty'), (30, 'thirty')"}) {
    SqlResult r = pq_exec(c.get(), sql);
    ASSERT_TRUE(r.ok()) << sql << ": " << r.message;
  }
  auto place = [&](const std::string& table, const std::string& shard) {
    SqlResult r = pq_exec(c.get(), "SHOW RANGE FROM TABLE " + table + " FOR ROW (1)");
    ASSERT_TRUE(r.ok()) << r.message;
    if (r.at(0, 3) == shard) return;
    r = pq_exec(c.get(), "ALTER RANGE " + r.at(0, 2) + " RELOCATE TO '" + shard + "'");
    ASSERT_TRUE(r.ok()) << r.message;
  };
  place("g_a", "s1");
  place("g_b", "s2");
  const std::string point = "SELECT a.id, b.v FROM g_a a JOIN g_b b ON b.id = a.b_id WHERE a.id = ";
  SqlResult plan = pq_exec(c.get(), "EXPLAIN ANALYZE " + point + "1");
  ASSERT_TRUE(plan.ok()) << plan.message;
  std::string all;
  for (const auto& row : plan.rows) all += row[0] + "\n";
  EXPECT_NE(all.find("  actual: Materialize g_a (as a): 1 rows from s1, "), std::string::npos)
      << all;
  EXPECT_NE(all.find("  actual: Materialize g_b (as b): not read, its rows all on s2, where the "
                     "statement ran on the table"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("  actual: Gather: 1 rows from s2, "), std::string::npos) << all;
  // The answers, in both protocols and inside a block (whose own write the join sees).
  EXPECT_EQ(pq_exec(c.get(), point + "1").rows,
            (std::vector<std::vector<std::string>>{{"1", "ten"}}));
  EXPECT_TRUE(pq_exec(c.get(), point + "3").rows.empty());
  auto bound = answer_text(c.get(), ScriptStep(point + "$1", {"2"}));
  EXPECT_NE(bound.find("2|twenty"), std::string::npos) << bound;
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  ASSERT_TRUE(pq_exec(c.get(), "UPDATE g_b SET v = 'TEN' WHERE id = 10").ok());
  EXPECT_EQ(pq_exec(c.get(), point + "1").rows,
            (std::vector<std::vector<std::string>>{{"1", "TEN"}}));
  ASSERT_TRUE(pq_exec(c.get(), "ROLLBACK").ok());
  EXPECT_EQ(pq_exec(c.get(), point + "1").rows,
            (std::vector<std::vector<std::string>>{{"1", "ten"}}));
  // An outer join keeps the point's row without a match.
  SqlResult outer = pq_exec(c.get(),
                            "SELECT a.id, b.v FROM g_a a LEFT JOIN g_b b ON b.id = "
                            "a.b_id WHERE a.id = 3");
  EXPECT_EQ(outer.rows, (std::vector<std::vector<std::string>>{{"3", "<null>"}})) << outer.message;
}

// A table joined with itself, looked up by an int4 column naming its int8 key: the lookup's
// values prune its ranges as the key's own would, so a point's row on another shard is read
// there in place; rows named on several shards leave the second mention in place on each of
// them (a broadcast join), the first mention's rows sent to each.
TEST_F(CoLocationTest, ASelfJoinLooksUpByAnotherIntegerWidthAndStaysInPlace) {
  auto c = cluster_->client();
  for (const char* sql :
       {"CREATE TABLE g_s (id int8 PRIMARY KEY, ref int4, v text)",
        "INSERT INTO g_s SELECT g, (g * 37) % 200 + 1, 'v' || g FROM generate_series(1, 200) g",
        "ALTER TABLE g_s SPLIT AT VALUES (100)"}) {
    SqlResult r = pq_exec(c.get(), sql);
    ASSERT_TRUE(r.ok()) << sql << ": " << r.message;
  }
  for (auto [row, shard] : {std::pair{"1", "s1"}, std::pair{"150", "s2"}}) {
    SqlResult r = pq_exec(c.get(), std::string("SHOW RANGE FROM TABLE g_s FOR ROW (") + row + ")");
    ASSERT_TRUE(r.ok()) << r.message;
    if (r.at(0, 3) == shard) continue;
    r = pq_exec(c.get(), "ALTER RANGE " + r.at(0, 2) + " RELOCATE TO '" + shard + "'");
    ASSERT_TRUE(r.ok()) << r.message;
  }
  auto explained = [&](const std::string& sql) {
    SqlResult plan = pq_exec(c.get(), "EXPLAIN ANALYZE " + sql);
    EXPECT_TRUE(plan.ok()) << plan.message;
    std::string all;
    for (const auto& row : plan.rows) all += row[0] + "\n";
    return all;
  };
  // Row 4 names row 149 (on s2): read there with the point's row written in.
  const std::string join = "SELECT a.id, b.id, b.v FROM g_s a JOIN g_s b ON b.id = a.ref WHERE ";
  // The broadcast below weighs the shards' size estimates, read every 5 s: one read between the
  // CREATE and the INSERT says 0 kB until the next. Wait for one that counts the rows.
  for (int i = 0; i < 200; ++i) {
    SqlResult e = pq_exec(c.get(), "EXPLAIN " + join + "a.id BETWEEN 1 AND 10");
    ASSERT_TRUE(e.ok()) << e.message;
    std::string text;
    for (const auto& row : e.rows) text += row[0] + "\n";
    if (text.find("estimated size: 0 kB") == std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::string all = explained(join + "a.id = 4");
  EXPECT_NE(all.find("  actual: Materialize g_s (as a): 1 rows from s1, "), std::string::npos)
      << all;
  EXPECT_NE(all.find("  actual: Materialize g_s (as b): not read, its rows all on s2, where the "
                     "statement ran on the table"),
            std::string::npos)
      << all;
  EXPECT_EQ(pq_exec(c.get(), join + "a.id = 4").rows,
            (std::vector<std::vector<std::string>>{{"4", "149", "v149"}}));
  // Rows 1..10 name rows on both shards: the second mention stays on each of them.
  all = explained(join + "a.id BETWEEN 1 AND 10 ORDER BY a.id");
  EXPECT_NE(all.find("  actual: Materialize g_s (as a): 10 rows from s1, "), std::string::npos)
      << all;
  EXPECT_NE(all.find("  actual: Materialize g_s (as b): not read, its rows all on s1, s2, where "
                     "the statement ran on the table"),
            std::string::npos)
      << all;
  SqlResult r = pq_exec(c.get(), join + "a.id BETWEEN 1 AND 10 ORDER BY a.id");
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_EQ(r.rows.size(), 10u);
  for (size_t i = 0; i < r.rows.size(); ++i) {
    int id = static_cast<int>(i) + 1;
    int ref = (id * 37) % 200 + 1;
    EXPECT_EQ(r.rows[i], (std::vector<std::string>{std::to_string(id), std::to_string(ref),
                                                   "v" + std::to_string(ref)}));
  }
  // Grouped over both shards' parts: b.ref is what a.ref names.
  r = pq_exec(c.get(),
              "SELECT count(*), sum(b.ref) FROM g_s a JOIN g_s b ON b.id = a.ref WHERE a.id <= 50");
  SqlResult expected =
      pq_exec(c.get(), "SELECT count(*), sum((a.ref * 37) % 200 + 1) FROM g_s a WHERE a.id <= 50");
  ASSERT_TRUE(r.ok() && expected.ok()) << r.message << expected.message;
  EXPECT_EQ(r.rows, expected.rows);
}

// An answer larger than what pgrange sends at once goes where it belongs: to the client for a
// SELECT, nowhere for EXPLAIN ANALYZE, into the rows of an INSERT … SELECT (gathered or merged).
// A lookup by more values than one read lists (12,000 against 10,000) is read in batches, each
// pruned to the ranges of its values, rather than the whole table.
TEST_F(CoLocationTest, ALookupByManyValuesIsReadInBatches) {
  auto c = cluster_->client();
  for (const char* sql :
       {"CREATE TABLE g_k (id int8 PRIMARY KEY, ref int8)",
        "CREATE TABLE g_l (id int8 PRIMARY KEY, v text)",
        "INSERT INTO g_k SELECT g, g * 2 FROM generate_series(1, 12000) g",
        "INSERT INTO g_l SELECT g, 'v' || (g % 1000) FROM generate_series(1, 30000) g",
        "ALTER TABLE g_l SPLIT AT VALUES (10000), (20000)", "ALTER TABLE g_l SCATTER",
        "ALTER TABLE g_k SPLIT AT VALUES (6000)", "ALTER TABLE g_k SCATTER"}) {
    SqlResult r = pq_exec(c.get(), sql);
    ASSERT_TRUE(r.ok()) << sql << ": " << r.message;
  }
  // count(DISTINCT …) is not merged: the statement runs on one shard with g_l's rows read.
  const std::string sql =
      "SELECT count(DISTINCT l.v), count(*), sum(l.id) FROM g_k k JOIN g_l l ON l.id = k.ref "
      "WHERE k.id <= ";
  SqlResult plan = pq_exec(c.get(), "EXPLAIN ANALYZE " + sql + "12000");
  ASSERT_TRUE(plan.ok()) << plan.message;
  std::string all;
  for (const auto& row : plan.rows) all += row[0] + "\n";
  EXPECT_NE(all.find("  actual: Materialize g_l (as l): 12000 rows from s1, s2, s3 (looked up in "
                     "2 reads of at most 10000 values), "),
            std::string::npos)
      << all;
  const std::vector<std::vector<std::string>> want = {{"500", "12000", "144012000"}};
  EXPECT_EQ(pq_exec(c.get(), sql + "12000").rows, want);
  std::string bound = answer_text(c.get(), ScriptStep(sql + "$1", {"12000"}));
  EXPECT_NE(bound.find("\n500|12000|144012000"), std::string::npos) << bound;
  // Inside a block, with the block's own write seen by the batches.
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  ASSERT_TRUE(pq_exec(c.get(), "UPDATE g_l SET v = 'new' WHERE id IN (2, 24000)").ok());
  EXPECT_EQ(pq_exec(c.get(), sql + "12000").rows,
            (std::vector<std::vector<std::string>>{{"501", "12000", "144012000"}}));
  ASSERT_TRUE(pq_exec(c.get(), "ROLLBACK").ok());
}

TEST_F(CoLocationTest, LargeAnswersGoWhereTheyBelong) {
  auto c = cluster_->client();
  ASSERT_NO_FATAL_FAILURE(make_joined_tables(c.get(), "h"));
  const std::string join =
      "SELECT a.id, b.v, repeat('x', 60) AS pad FROM h_a a JOIN h_b b ON b.id = a.b_id";
  SqlResult all = pq_exec(c.get(), join + " ORDER BY a.id");
  ASSERT_TRUE(all.ok()) << all.message;
  ASSERT_EQ(all.rows.size(), 2000u);
  EXPECT_EQ(all.rows[0][1], "b2000");
  SqlResult plan = pq_exec(c.get(), "EXPLAIN ANALYZE " + join);
  ASSERT_TRUE(plan.ok()) << plan.message;
  std::string lines;
  for (const auto& row : plan.rows) lines += row[0] + "\n";
  EXPECT_NE(lines.find("  actual: Gather: 2000 rows from s"), std::string::npos) << lines;
  SqlResult insert = pq_exec(c.get(),
                             "INSERT INTO h_c SELECT a.id, b.v || repeat('x', 60) FROM "
                             "h_a a JOIN h_b b ON b.id = a.b_id");
  ASSERT_TRUE(insert.ok()) << insert.message;
  EXPECT_EQ(
      pq_exec(c.get(), "SELECT count(*), min(v), max(id) FROM h_c").rows,
      (std::vector<std::vector<std::string>>{{"2000", "b1000" + std::string(60, 'x'), "2000"}}));
  // The same from one table over several shards (merged): every row goes into the INSERT, in
  // and outside a block, through both protocols.
  SqlResult merged = pq_exec(c.get(),
                             "INSERT INTO h_c SELECT id + 10000, v || repeat('y', 60) "
                             "FROM h_b ORDER BY id DESC");
  ASSERT_TRUE(merged.ok()) << merged.message;
  EXPECT_EQ(pq_exec(c.get(), "SELECT count(*) FROM h_c WHERE id > 10000").at(0, 0), "2000");
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  merged = pq_exec(c.get(), "INSERT INTO h_c SELECT id + 20000, v || repeat('z', 60) FROM h_b");
  ASSERT_TRUE(merged.ok()) << merged.message;
  EXPECT_EQ(pq_exec(c.get(), "SELECT count(*) FROM h_c WHERE id > 20000").at(0, 0), "2000");
  ASSERT_TRUE(pq_exec(c.get(), "COMMIT").ok());
  auto bound = answer_text(c.get(), ScriptStep("INSERT INTO h_c SELECT id + 30000, v || "
                                               "repeat('w', 60) FROM h_b WHERE id > $1",
                                               {"0"}));
  EXPECT_NE(bound.find("INSERT 0 2000"), std::string::npos) << bound.substr(0, 300);
  EXPECT_EQ(pq_exec(c.get(), "SELECT count(*) FROM h_c").at(0, 0), "8000");
  // The connection goes on as usual.
  EXPECT_EQ(pq_exec(c.get(), "SELECT count(*) FROM h_a").at(0, 0), "2000");
}

// Inside a transaction block (psycopg2 opens one before every statement), EXPLAIN of a join
// over several shards prints pgrange's tree as outside one; EXPLAIN ANALYZE, which would run
// the join outside the block's transaction, is refused with 0A000 saying so.
TEST_F(CoLocationTest, ExplainInsideATransactionBlock) {
  auto c = cluster_->client();
  ASSERT_NO_FATAL_FAILURE(make_joined_tables(c.get(), "x"));
  const std::string join = "SELECT count(*) FROM x_a a JOIN x_b b ON b.id = a.b_id";
  for (bool wrote : {false, true}) {
    SqlResult r = pq_exec(c.get(), "BEGIN");
    ASSERT_TRUE(r.ok()) << r.message;
    if (wrote) {
      r = pq_exec(c.get(), "INSERT INTO x_c VALUES (1, 'in the block')");
      ASSERT_TRUE(r.ok()) << r.message;
    }
    SqlResult plan = pq_exec(c.get(), "EXPLAIN " + join);
    ASSERT_TRUE(plan.ok()) << plan.message;
    EXPECT_EQ(plan.at(0, 0).find("pgrange plan: tables read from"), 0u) << plan.at(0, 0);
    r = pq_exec(c.get(), join);
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.at(), "2000");
    // EXPLAIN ANALYZE runs in the block: the join and a SELECT over several shards read the
    // block's own rows (x_a's row 2001, written in the block, joins x_b's row 1).
    if (wrote) {
      r = pq_exec(c.get(), "INSERT INTO x_a VALUES (2001, 1)");
      ASSERT_TRUE(r.ok()) << r.message;
    }
    r = pq_exec(c.get(), "EXPLAIN ANALYZE " + join);
    ASSERT_TRUE(r.ok()) << r.message;
    std::string text;
    for (const auto& row : r.rows) text += row[0] + "\n";
    EXPECT_NE(text.find("actual: "), std::string::npos) << text;
    EXPECT_EQ(text.find("actual: failed"), std::string::npos) << text;
    r = pq_exec(c.get(), "EXPLAIN ANALYZE SELECT * FROM x_a WHERE id > 1990");
    ASSERT_TRUE(r.ok()) << r.message;
    text.clear();
    for (const auto& row : r.rows) text += row[0] + "\n";
    EXPECT_NE(text.find(wrote ? "rows=11 loops=1" : "rows=10 loops=1"), std::string::npos) << text;
    // Over the three shards of x_a: 601…699, 700…1399, 1400…2000 (and 2001).
    r = pq_exec(c.get(), "EXPLAIN ANALYZE SELECT * FROM x_a WHERE id > 600");
    ASSERT_TRUE(r.ok()) << r.message;
    text.clear();
    for (const auto& row : r.rows) text += row[0] + "\n";
    for (const char* rows : {"rows=99 loops=1", "rows=700 loops=1"}) {
      EXPECT_NE(text.find(rows), std::string::npos) << rows << "\n" << text;
    }
    EXPECT_NE(text.find(wrote ? "rows=602 loops=1" : "rows=601 loops=1"), std::string::npos)
        << text;
    // pgrange's own operators ran too, over the block's parts: the merge and each shard's rows.
    EXPECT_NE(text.find(std::string("actual: Append: each shard's rows in turn: ") +
                        (wrote ? "1401" : "1400") + " rows, "),
              std::string::npos)
        << text;
    for (const char* rows :
         {": 99 rows, ", ": 700 rows, ", wrote ? ": 602 rows, " : ": 601 rows, "}) {
      EXPECT_NE(text.find(rows), std::string::npos) << rows << "\n" << text;
    }
    r = pq_exec(c.get(), join);
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.at(), wrote ? "2001" : "2000");
    // A write over several shards stays refused: each shard would run all of it.
    r = pq_exec(c.get(), "EXPLAIN ANALYZE UPDATE x_a SET b_id = b_id WHERE id > 600");
    EXPECT_EQ(r.sqlstate, "0A000") << r.message;
    EXPECT_NE(r.message.find("EXPLAIN ANALYZE"), std::string::npos) << r.message;
    r = pq_exec(c.get(), "ROLLBACK");
    ASSERT_TRUE(r.ok()) << r.message;
  }
  SqlResult left = pq_exec(c.get(), "SELECT count(*) FROM x_c");
  ASSERT_TRUE(left.ok()) << left.message;
  EXPECT_EQ(left.at(), "0");
  left = pq_exec(c.get(), "SELECT count(*) FROM x_a");
  ASSERT_TRUE(left.ok()) << left.message;
  EXPECT_EQ(left.at(), "2000");
  // An error of EXPLAIN ANALYZE in the block fails the block, as PostgreSQL's does.
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  SqlResult bad = pq_exec(c.get(), "EXPLAIN ANALYZE SELECT 1 / (id - id) FROM x_a");
  EXPECT_EQ(bad.sqlstate, "22012") << bad.message;
  bad = pq_exec(c.get(), "SELECT count(*) FROM x_a");
  EXPECT_EQ(bad.sqlstate, "25P02") << bad.message;
  ASSERT_TRUE(pq_exec(c.get(), "ROLLBACK").ok());
}

// Results in the binary format (pgjdbc asks for them once a statement is prepared on the
// server): a join whose answers pgrange merges from several shards (a broadcast join) has its
// aggregates combined in text and sent in the format asked.
TEST_F(CoLocationTest, BinaryResultsOfAJoinOverSeveralShards) {
  auto c = cluster_->client();
  ASSERT_NO_FATAL_FAILURE(make_joined_tables(c.get(), "y"));
  const char* join =
      "SELECT count(*), sum(b.id) FROM y_a a JOIN y_b b ON b.id = a.b_id WHERE a.id > $1";
  const char* values[] = {"1000"};
  PGresult* r = PQexecParams(c.get(), join, 1, nullptr, values, nullptr, nullptr, 1);
  ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
  ASSERT_EQ(PQntuples(r), 1);
  ASSERT_EQ(PQgetlength(r, 0, 0), 8);  // int8, binary: big-endian
  uint64_t count = 0;
  for (int i = 0; i < 8; ++i) {
    count = count << 8 | static_cast<unsigned char>(PQgetvalue(r, 0, 0)[i]);
  }
  EXPECT_EQ(count, 1000u);
  EXPECT_EQ(PQfformat(r, 0), 1);
  PQclear(r);
  // In text, the same join is merged from the shards.
  SqlResult text = pq_exec(c.get(),
                           "SELECT count(*), sum(b.id) FROM y_a a JOIN y_b b ON b.id = "
                           "a.b_id WHERE a.id > 1000");
  ASSERT_TRUE(text.ok()) << text.message;
  EXPECT_EQ(text.at(0, 0), "1000");
  EXPECT_EQ(text.at(0, 1), "500500");
}

}  // namespace
}  // namespace pgrange::testing
