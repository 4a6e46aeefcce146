// COPY through pgrange over three real PostgreSQL 15 shards, each run side by side with the same
// COPY on one plain PostgreSQL (a database of its own on the first server): COPY … FROM STDIN in
// text, CSV and binary lands every row on the shard owning its key and loads exactly what
// PostgreSQL loads; a bad row fails the COPY with PostgreSQL's error and line and loads nothing
// anywhere; COPY … TO STDOUT gives PostgreSQL's bytes, in key order.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <random>
#include <sstream>

#include "tests/support/sanitizer.hpp"
#include "tests/support/shard_cluster.hpp"

namespace pgrange::testing {
namespace {

constexpr int kMillion = 1000000;
/// The rows of the large loads: a million, spread over ids up to a million. Under the sanitizer
/// build a quarter of them, over the same ids: the same code paths, at a fifth of the time.
const int kRows = sanitized_run() ? kMillion / 4 : kMillion;
const std::string kRowsTag = "COPY " + std::to_string(kRows);

/// What a COPY came back with.
struct CopyResult {
  bool ok = false;
  std::string tag;  ///< "COPY n"
  std::string sqlstate, message, context;
  std::string data;  ///< COPY … TO: every CopyData byte
};

CopyResult result_fields(PGresult* res) {
  CopyResult out;
  out.ok = PQresultStatus(res) == PGRES_COMMAND_OK;
  out.tag = PQcmdStatus(res);
  auto field = [&](int code) {
    const char* v = PQresultErrorField(res, code);
    return std::string(v != nullptr ? v : "");
  };
  out.sqlstate = field(PG_DIAG_SQLSTATE);
  out.message = field(PG_DIAG_MESSAGE_PRIMARY);
  out.context = field(PG_DIAG_CONTEXT);
  return out;
}

/// The COPY's outcome (the first result after the data).
CopyResult finish_copy(PGconn* c) {
  CopyResult out;
  bool first = true;
  while (PGresult* res = PQgetResult(c)) {
    if (first) out = result_fields(res);
    first = false;
    PQclear(res);
  }
  return out;
}

/// COPY … FROM STDIN with `data` sent in chunks of random sizes (rows cut anywhere); with
/// `fail`, the client ends it with CopyFail instead.
CopyResult copy_in(PGconn* c, const std::string& sql, const std::string& data, unsigned seed,
                   const char* fail = nullptr) {
  PGresult* res = PQexec(c, sql.c_str());
  if (PQresultStatus(res) != PGRES_COPY_IN) {
    CopyResult r = result_fields(res);
    PQclear(res);
    while (PGresult* more = PQgetResult(c)) PQclear(more);
    return r;
  }
  PQclear(res);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<size_t> size(1, 200000);
  for (size_t at = 0; at < data.size();) {
    size_t n = std::min(size(rng), data.size() - at);
    if (PQputCopyData(c, data.data() + at, static_cast<int>(n)) != 1) break;
    at += n;
  }
  PQputCopyEnd(c, fail);
  return finish_copy(c);
}

CopyResult copy_out(PGconn* c, const std::string& sql) {
  PGresult* res = PQexec(c, sql.c_str());
  if (PQresultStatus(res) != PGRES_COPY_OUT) {
    CopyResult r = result_fields(res);
    PQclear(res);
    while (PGresult* more = PQgetResult(c)) PQclear(more);
    return r;
  }
  PQclear(res);
  std::string data;
  for (;;) {
    char* buf = nullptr;
    int n = PQgetCopyData(c, &buf, 0);
    if (n < 0) break;
    data.append(buf, static_cast<size_t>(n));
    PQfreemem(buf);
  }
  CopyResult r = finish_copy(c);
  r.data = std::move(data);
  return r;
}

/// The value text of row `i` in COPY text format (tabs, newlines, backslashes escaped).
std::string text_escape(const std::string& v) {
  std::string out;
  for (char ch : v) {
    switch (ch) {
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string csv_quote(const std::string& v) {
  std::string out = "\"";
  for (char ch : v) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

/// Row i (1-based) of n rows of test data: ids spread over 1…1,000,000 in a scrambled order so
/// that consecutive rows go to different shards; names with tabs, quotes, backslashes, newlines
/// and non-ASCII; some NULLs.
struct Row {
  int64_t id;
  std::optional<int> grp;
  std::optional<std::string> name;
  std::string price;
};
Row make_row(int i, int n) {
  Row r;
  r.id = ((static_cast<int64_t>(i) * 7919) % n + 1) * (kMillion / n);
  if (i % 97 != 0) r.grp = static_cast<int>(r.id % 10);
  if (i % 89 != 0) {
    static const char* parts[] = {"plain",       "tab\there", "quote\"d",
                                  "back\\slash", "new\nline", "crème brûlée",
                                  "comma,semi;", "\\N",       ""};
    r.name = std::string(parts[i % 9]) + " " + std::to_string(i);
  }
  r.price = std::to_string(r.id % 100000) + "." + std::to_string(r.id % 100 / 10) +
            std::to_string(r.id % 10);
  return r;
}

std::string text_data(int n) {
  std::string out;
  out.reserve(static_cast<size_t>(n) * 40);
  for (int i = 1; i <= n; ++i) {
    Row r = make_row(i, n);
    out += std::to_string(r.id) + "\t" + (r.grp ? std::to_string(*r.grp) : "\\N") + "\t" +
           (r.name ? text_escape(*r.name) : "\\N") + "\t" + r.price + "\n";
  }
  return out;
}

std::string csv_data(int n) {
  std::string out = "id,grp,name,price\r\n";
  out.reserve(static_cast<size_t>(n) * 44);
  for (int i = 1; i <= n; ++i) {
    Row r = make_row(i, n);
    out += std::to_string(r.id) + "," + (r.grp ? std::to_string(*r.grp) : "") + "," +
           (r.name ? csv_quote(*r.name) : "") + "," + r.price + "\r\n";
  }
  return out;
}

class CopyRoutingTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ShardCluster::Options o;
    o.databases = {"app", "ref"};
    cluster_ = ShardCluster::start(o);
    ASSERT_EQ(cluster_->run_setup({"CREATE TABLE items (id int8 PRIMARY KEY, grp int4, name text, "
                                   "price numeric(12,2))"},
                                  ShardCluster::Target::kPgrangeAndReference),
              "");
    ASSERT_EQ(cluster_->run_setup({"ALTER TABLE items SPLIT AT VALUES (250000), (500000), (750000)",
                                   "ALTER TABLE items SCATTER"}),
              "");
  }
  static void TearDownTestSuite() { cluster_.reset(); }
  void SetUp() override {
    auto c = cluster_->client();
    ASSERT_TRUE(pq_exec(c.get(), "TRUNCATE items").ok());
    auto ref = cluster_->reference();
    ASSERT_TRUE(pq_exec(ref.get(), "TRUNCATE items").ok());
  }

  /// Every shard's rows lie in the ranges pgrange gives that shard, and every shard has some.
  static void expect_rows_where_ranges_say() {
    auto c = cluster_->client();
    for (int i = 0; i < 3; ++i) {
      auto d = cluster_->direct(i);
      SqlResult r = pq_exec(d.get(), "SELECT id FROM items");
      ASSERT_TRUE(r.ok()) << r.message;
      EXPECT_FALSE(r.rows.empty()) << "shard " << i << " got no row";
      std::map<int64_t, std::string> bounds;  // a few ids of this shard → the shard pgrange names
      for (size_t k = 0; k < r.rows.size(); k += r.rows.size() / 50 + 1) {
        SqlResult where =
            pq_exec(c.get(), "SHOW RANGE FROM TABLE items FOR ROW (" + r.rows[k][0] + ")");
        ASSERT_TRUE(where.ok()) << where.message;
        EXPECT_EQ(where.at(0, 3), "s" + std::to_string(i + 1)) << "id " << r.rows[k][0];
      }
    }
  }
  /// The table through pgrange (COPY TO, key order) and on the reference, as text.
  static void expect_same_table() {
    auto c = cluster_->client();
    auto ref = cluster_->reference();
    CopyResult ours = copy_out(c.get(), "COPY items TO STDOUT");
    CopyResult theirs = copy_out(ref.get(), "COPY (SELECT * FROM items ORDER BY id) TO STDOUT");
    ASSERT_TRUE(ours.ok) << ours.message;
    ASSERT_TRUE(theirs.ok) << theirs.message;
    EXPECT_EQ(ours.tag, theirs.tag);
    EXPECT_TRUE(ours.data == theirs.data) << first_difference(ours.data, theirs.data);
  }
  /// The same COPY FROM through pgrange and on the reference: same outcome, same error.
  static CopyResult copy_both(const std::string& sql, const std::string& data, unsigned seed) {
    auto c = cluster_->client();
    auto ref = cluster_->reference();
    CopyResult theirs = copy_in(ref.get(), sql, data, seed);
    CopyResult ours = copy_in(c.get(), sql, data, seed + 1);
    EXPECT_EQ(ours.ok, theirs.ok) << ours.message << " / " << theirs.message;
    EXPECT_EQ(ours.tag, theirs.tag);
    EXPECT_EQ(ours.sqlstate, theirs.sqlstate);
    EXPECT_EQ(ours.message, theirs.message);
    EXPECT_EQ(ours.context, theirs.context);
    // The connection goes on working.
    EXPECT_EQ(pq_exec(c.get(), "SELECT 1").at(), "1");
    return ours;
  }

  static std::unique_ptr<ShardCluster> cluster_;
};

std::unique_ptr<ShardCluster> CopyRoutingTest::cluster_;

TEST_F(CopyRoutingTest, AMillionRowsInTextFormat) {
  CopyResult r = copy_both("COPY items FROM STDIN", text_data(kRows), 1);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.tag, kRowsTag);
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM items"), kRows);
  EXPECT_EQ(cluster_->prepared_left(), 0);
  expect_rows_where_ranges_say();
  expect_same_table();
}

TEST_F(CopyRoutingTest, AMillionRowsInCsvWithHeader) {
  CopyResult r =
      copy_both("COPY items (id, grp, name, price) FROM STDIN WITH (FORMAT csv, HEADER MATCH)",
                csv_data(kRows), 2);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.tag, kRowsTag);
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM items"), kRows);
  expect_rows_where_ranges_say();
  expect_same_table();
}

TEST_F(CopyRoutingTest, AMillionRowsInBinaryFormat) {
  // The binary data PostgreSQL itself writes for the rows.
  auto ref = cluster_->reference();
  ASSERT_TRUE(copy_in(ref.get(), "COPY items FROM STDIN", text_data(kRows), 3).ok);
  CopyResult binary = copy_out(ref.get(), "COPY items TO STDOUT (FORMAT binary)");
  ASSERT_TRUE(binary.ok) << binary.message;
  ASSERT_TRUE(pq_exec(ref.get(), "TRUNCATE items").ok());
  CopyResult r = copy_both("COPY items FROM STDIN (FORMAT binary)", binary.data, 4);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.tag, kRowsTag);
  expect_rows_where_ranges_say();
  expect_same_table();
  // Binary out: the same bytes as PostgreSQL's, in key order.
  auto c = cluster_->client();
  CopyResult ours = copy_out(c.get(), "COPY items TO STDOUT (FORMAT binary)");
  CopyResult theirs =
      copy_out(ref.get(), "COPY (SELECT * FROM items ORDER BY id) TO STDOUT (FORMAT binary)");
  ASSERT_TRUE(ours.ok) << ours.message;
  EXPECT_EQ(ours.tag, theirs.tag);
  EXPECT_TRUE(ours.data == theirs.data) << ours.data.size() << " vs " << theirs.data.size();
}

TEST_F(CopyRoutingTest, ABadRowLoadsNothingAnywhere) {
  const int n = 200000;
  std::string good = text_data(n);
  // The same bad rows, one at a time: a value the shard rejects, a key pgrange cannot read, a
  // missing column, an extra column.
  std::vector<std::pair<int, std::string>> bad = {{150000, "150000000\tx\tname\t1.00"},
                                                  {777, "abc\t1\tname\t1.00"},
                                                  {199999, "199999000\t1\tname"},
                                                  {3, "3000000\t1\tname\t1.00\textra"},
                                                  {120000, "120000000\t1\tname\t1.0e99999"}};
  for (const auto& [line, row] : bad) {
    SCOPED_TRACE(row);
    std::string data;
    std::istringstream lines(good);
    int at = 0;
    for (std::string l; std::getline(lines, l);) {
      data += ++at == line ? row : l;
      data += '\n';
    }
    CopyResult r = copy_both("COPY items FROM STDIN", data, static_cast<unsigned>(line));
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.context.find("line " + std::to_string(line)), std::string::npos) << r.context;
    EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM items"), 0);
    EXPECT_EQ(cluster_->prepared_left(), 0);
  }
  // A CSV quote never closed.
  CopyResult r = copy_both("COPY items FROM STDIN (FORMAT csv)", "1,1,a,1\n2,2,\"b,2\n", 9);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM items"), 0);
}

TEST_F(CopyRoutingTest, TheClientGivingUpLoadsNothing) {
  auto c = cluster_->client();
  auto ref = cluster_->reference();
  std::string data = text_data(50000);
  CopyResult ours = copy_in(c.get(), "COPY items FROM STDIN", data, 5, "no, thanks");
  CopyResult theirs = copy_in(ref.get(), "COPY items FROM STDIN", data, 5, "no, thanks");
  EXPECT_FALSE(ours.ok);
  EXPECT_EQ(ours.sqlstate, theirs.sqlstate);
  EXPECT_EQ(ours.message, theirs.message);
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM items"), 0);
  EXPECT_EQ(pq_exec(c.get(), "SELECT count(*) FROM items").at(), "0");
}

TEST_F(CopyRoutingTest, CopyInsideATransactionBlockCommitsOrRollsBackWithIt) {
  auto c = cluster_->client();
  std::string data = text_data(30000);
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  ASSERT_TRUE(copy_in(c.get(), "COPY items FROM STDIN", data, 6).ok);
  // The block reads its own rows.
  EXPECT_EQ(
      pq_exec(c.get(), "SELECT name FROM items WHERE id = " + std::to_string(make_row(9, 30000).id))
          .at(),
      *make_row(9, 30000).name);
  CopyResult inside = copy_out(c.get(), "COPY items (id) TO STDOUT");
  ASSERT_TRUE(inside.ok) << inside.message;
  EXPECT_EQ(inside.tag, "COPY 30000");
  ASSERT_TRUE(pq_exec(c.get(), "ROLLBACK").ok());
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM items"), 0);

  // As pgbench -i loads its tables: TRUNCATE and COPY … FREEZE in one block.
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  ASSERT_TRUE(pq_exec(c.get(), "INSERT INTO items VALUES (999999999, 1, 'gone', 1)").ok());
  SqlResult t = pq_exec(c.get(), "TRUNCATE items");
  ASSERT_TRUE(t.ok()) << t.message;
  CopyResult r = copy_in(c.get(), "COPY items FROM STDIN WITH (FREEZE ON)", data, 7);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.tag, "COPY 30000");
  SqlResult commit = pq_exec(c.get(), "COMMIT");
  ASSERT_TRUE(commit.ok()) << commit.message;
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM items"), 30000);
  EXPECT_EQ(cluster_->prepared_left(), 0);

  // A block on one shard whose COPY TO needs every shard reads its own writes too.
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  ASSERT_TRUE(
      pq_exec(c.get(), "DELETE FROM items WHERE id = " + std::to_string(make_row(9, 30000).id))
          .ok());
  CopyResult after_delete = copy_out(c.get(), "COPY items (id) TO STDOUT");
  ASSERT_TRUE(after_delete.ok) << after_delete.message;
  EXPECT_EQ(after_delete.tag, "COPY 29999");
  ASSERT_TRUE(pq_exec(c.get(), "ROLLBACK").ok());

  // A failed COPY aborts the block, as PostgreSQL's does.
  ASSERT_TRUE(pq_exec(c.get(), "BEGIN").ok());
  EXPECT_FALSE(copy_in(c.get(), "COPY items FROM STDIN", "1\tx\ta\t1\n", 8).ok);
  EXPECT_EQ(pq_exec(c.get(), "SELECT 1").sqlstate, "25P02");
  ASSERT_TRUE(pq_exec(c.get(), "ROLLBACK").ok());
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM items"), 30000);
}

/// `ours` through pgrange and `theirs` on the reference give the same bytes and tag.
void expect_same_copy(PGconn* c, const std::string& ours, PGconn* ref, const std::string& theirs) {
  CopyResult mine = copy_out(c, ours);
  CopyResult plain = copy_out(ref, theirs);
  ASSERT_TRUE(plain.ok) << plain.message;
  ASSERT_TRUE(mine.ok) << mine.message;
  EXPECT_EQ(mine.tag, plain.tag);
  EXPECT_TRUE(mine.data == plain.data) << first_difference(mine.data, plain.data);
}

TEST_F(CopyRoutingTest, CopyToGivesPostgresqlsBytesInKeyOrder) {
  ASSERT_TRUE(copy_both("COPY items FROM STDIN", text_data(100000), 10).ok);
  auto c = cluster_->client();
  auto ref = cluster_->reference();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"COPY items TO STDOUT WITH (FORMAT csv, HEADER)",
       "COPY (SELECT * FROM items ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)"},
      {"COPY items (name, id) TO STDOUT (FORMAT csv, FORCE_QUOTE *, NULL 'nil', DELIMITER '|')",
       "COPY (SELECT name, id FROM items ORDER BY id) TO STDOUT (FORMAT csv, FORCE_QUOTE *, NULL "
       "'nil', DELIMITER '|')"},
      {"COPY items (price) TO STDOUT (FORMAT binary)",
       "COPY (SELECT price FROM items ORDER BY id) TO STDOUT (FORMAT binary)"},
      {"COPY items TO STDOUT WITH NULL 'none'",
       "COPY (SELECT * FROM items ORDER BY id) TO STDOUT WITH NULL 'none'"}};
  for (const auto& [ours_sql, ref_sql] : cases) {
    SCOPED_TRACE(ours_sql);
    expect_same_copy(c.get(), ours_sql, ref.get(), ref_sql);
  }
}

TEST_F(CopyRoutingTest, CopyOfAQueryGivesPostgresqlsBytes) {
  // The query runs as the SELECT it is (pruned, merged, joined), its rows written as COPY
  // writes them: every byte as one PostgreSQL gives them.
  ASSERT_TRUE(copy_both("COPY items FROM STDIN", text_data(20000), 11).ok);
  auto c = cluster_->client();
  auto ref = cluster_->reference();
  const std::vector<std::string> cases = {
      "COPY (SELECT * FROM items ORDER BY name, id) TO STDOUT",
      "COPY (SELECT * FROM items WHERE id < 100000 ORDER BY id) TO STDOUT",
      "COPY (SELECT * FROM items WHERE id BETWEEN 240000 AND 260000 ORDER BY id DESC) TO STDOUT "
      "(FORMAT csv, HEADER)",
      "COPY (SELECT name, id, grp FROM items ORDER BY id LIMIT 300 OFFSET 50) TO STDOUT (FORMAT "
      "csv, FORCE_QUOTE (name), NULL 'nil', DELIMITER '|')",
      "COPY (SELECT name AS \"odd\tname\", price FROM items ORDER BY id LIMIT 100) TO STDOUT "
      "(FORMAT csv, HEADER, QUOTE '''', ESCAPE '\\')",
      "COPY (SELECT name FROM items ORDER BY id LIMIT 200) TO STDOUT (FORMAT text, HEADER, "
      "DELIMITER ',', NULL '')",
      "COPY (SELECT CASE WHEN id % 3 = 0 THEN '\\.' ELSE name END FROM items ORDER BY id LIMIT "
      "100) TO STDOUT (FORMAT csv)",
      "COPY (SELECT grp, count(*), sum(price), min(name) FROM items GROUP BY grp ORDER BY grp) "
      "TO STDOUT",
      "COPY (SELECT grp, count(*), sum(price), max(id) FROM items GROUP BY grp ORDER BY grp) TO "
      "STDOUT (FORMAT binary)",
      "COPY (SELECT id, grp, name, price FROM items ORDER BY id LIMIT 500) TO STDOUT (FORMAT "
      "binary)",
      "COPY (SELECT DISTINCT grp FROM items ORDER BY grp) TO STDOUT (FORMAT csv, FORCE_QUOTE *)",
      "COPY (SELECT a.id, b.name, a.price FROM items a JOIN items b ON b.id = a.id + 50 WHERE "
      "a.grp = 3 ORDER BY a.id) TO STDOUT",
      "COPY (SELECT a.id, b.price FROM items a LEFT JOIN items b ON b.id = a.id * 2 ORDER BY a.id "
      "LIMIT 400) TO STDOUT (FORMAT binary)",
      "COPY (SELECT count(*) FROM items WHERE id > 500000) TO STDOUT",
      "COPY (SELECT * FROM items WHERE id = 50) TO STDOUT",
      "COPY (SELECT * FROM items WHERE false) TO STDOUT (FORMAT csv, HEADER)",
      // Types no merge compares (inet, interval): the query's table is gathered instead.
      "COPY (SELECT ('10.0.' || grp || '.1')::inet AS a, id FROM items WHERE id % 97 = 0 ORDER "
      "BY a, id) TO STDOUT",
      "COPY (SELECT grp * interval '1 day' AS d, count(*) FROM items GROUP BY d ORDER BY d) TO "
      "STDOUT (FORMAT csv, HEADER)"};
  for (const std::string& sql : cases) {
    SCOPED_TRACE(sql);
    expect_same_copy(c.get(), sql, ref.get(), sql);
  }
  // Without ORDER BY the rows come in no particular order, as a SELECT's.
  const std::string unordered = "COPY (SELECT id, name FROM items WHERE grp = 3) TO STDOUT";
  CopyResult ours = copy_out(c.get(), unordered);
  CopyResult theirs = copy_out(ref.get(), unordered);
  ASSERT_TRUE(ours.ok) << ours.message;
  EXPECT_EQ(ours.tag, theirs.tag);
  auto sorted_lines = [](const std::string& s) {
    std::vector<std::string> lines;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    std::sort(lines.begin(), lines.end());
    return lines;
  };
  EXPECT_EQ(sorted_lines(ours.data), sorted_lines(theirs.data));
  // Errors are PostgreSQL's, and the session goes on.
  for (const char* bad : {"COPY (SELECT id FROM items ORDER BY id) TO STDOUT (FORMAT csv, "
                          "FORCE_QUOTE (nope))",
                          "COPY (SELECT nope FROM items) TO STDOUT"}) {
    SCOPED_TRACE(bad);
    CopyResult mine = copy_out(c.get(), bad);
    CopyResult plain = copy_out(ref.get(), bad);
    EXPECT_FALSE(mine.ok);
    EXPECT_EQ(mine.sqlstate, plain.sqlstate);
    EXPECT_EQ(mine.message, plain.message);
  }
  EXPECT_EQ(pq_exec(c.get(), "SELECT 1").at(), "1");
  // Inside a transaction block the query sees the block's writes.
  for (PGconn* conn : {c.get(), ref.get()}) {
    ASSERT_TRUE(pq_exec(conn, "BEGIN").ok());
    ASSERT_TRUE(pq_exec(conn, "UPDATE items SET name = 'changed' WHERE id % 7 = 0").ok());
  }
  const std::string in_block =
      "COPY (SELECT id, name FROM items WHERE id % 7 = 0 ORDER BY id) TO STDOUT (FORMAT csv)";
  ours = copy_out(c.get(), in_block);
  theirs = copy_out(ref.get(), in_block);
  ASSERT_TRUE(ours.ok) << ours.message;
  EXPECT_TRUE(ours.data == theirs.data) << first_difference(ours.data, theirs.data);
  for (PGconn* conn : {c.get(), ref.get()}) ASSERT_TRUE(pq_exec(conn, "ROLLBACK").ok());
}

}  // namespace
}  // namespace pgrange::testing
