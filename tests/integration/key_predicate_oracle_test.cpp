// PostgreSQL 15 as the oracle for the SQL of a key span: the rows a span's predicate selects on
// a real server must be exactly the rows whose keys fall in the span. The spans' bounds include
// the ones a string prefix makes (`LIKE 'abc%'`), which end inside a string: ascending and
// descending columns, prefixes of each other, non-ASCII strings whose raised last byte is no
// longer valid UTF-8, NULLs, and a bound of a prefix paired with a full key.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "routing/keys/key_space.hpp"
#include "routing/keys/span.hpp"
#include "routing/plan/key_predicate.hpp"
#include "tests/support/pg_server.hpp"

namespace pgrange::routing {
namespace {

using testing::PgServer;

constexpr uint64_t kId = 100;

struct Row {
  std::optional<std::string> a, b;
  bool operator<(const Row& o) const { return std::tie(a, b) < std::tie(o.a, o.b); }
  bool operator==(const Row& o) const = default;
};

std::string show(const std::vector<Row>& rows) {
  std::string out;
  for (const Row& r : rows) {
    out += "(" + r.a.value_or("NULL") + ", " + (r.b ? "'" + *r.b + "'" : "NULL") + ") ";
  }
  return out;
}

class KeyPredicateOracleTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = PgServer::start().release();
    conn_ = PQconnectdb(server_->dsn().c_str());
    ASSERT_EQ(PQstatus(conn_), CONNECTION_OK) << PQerrorMessage(conn_);
    exec("CREATE SCHEMA app; CREATE TABLE app.items (a int4, b text)");
    const std::vector<std::optional<std::string>> strings = {"",
                                                             "m",
                                                             "ma",
                                                             "mab",
                                                             "maz",
                                                             "mb",
                                                             "mA",
                                                             "m\x7f",
                                                             "m\x01",
                                                             "l",
                                                             "n",
                                                             "é",
                                                             "éa",
                                                             "ê",
                                                             "ÿ",
                                                             "ÿa",
                                                             "ÿÿ",
                                                             "Ā",
                                                             "À",
                                                             "Àz",
                                                             "\xc3\xbf\xc3\xbf\xc3\xbf",
                                                             "😀",
                                                             "😀a",
                                                             "😁",
                                                             "\xf4\x8f\xbf\xbf",
                                                             "zz",
                                                             "zzz",
                                                             std::nullopt};
    for (const char* a : {"1", "2", "3"}) {
      for (const auto& b : strings) rows_.push_back({a, b});
    }
    rows_.push_back({std::nullopt, "ma"});
    rows_.push_back({std::nullopt, std::nullopt});
    for (const Row& r : rows_) {
      std::string a = r.a ? *r.a : "NULL";
      std::string b = "NULL";
      if (r.b) {
        b = "'";
        for (char c : *r.b) b += c == '\'' ? std::string("''") : std::string(1, c);
        b += "'";
      }
      exec("INSERT INTO app.items VALUES (" + a + ", " + b + ")");
    }
  }
  static void TearDownTestSuite() {
    PQfinish(conn_);
    delete server_;
  }

  static void exec(const std::string& sql) {
    PGresult* r = PQexec(conn_, sql.c_str());
    EXPECT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << sql << ": " << PQerrorMessage(conn_);
    PQclear(r);
  }

  static TableDescriptor table(bool descending) {
    TableDescriptor t;
    t.table_id = kId;
    t.schema = "app";
    t.name = "items";
    t.key_source = KeySource::kConfig;
    t.key = {{"a", {KeyType::kInt4}}, {"b", {KeyType::kText, descending}}};
    return t;
  }

  static std::string key(const TableDescriptor& t, std::optional<std::string_view> a,
                         std::optional<std::optional<std::string_view>> b = std::nullopt) {
    std::vector<KeyColumn> cols{t.key[0].column, t.key[1].column};
    std::vector<std::optional<std::string_view>> values{a};
    if (b) values.push_back(*b);
    auto k = encode_key_text(t.table_id, 1, cols, values);
    EXPECT_TRUE(k.has_value());
    return k.value_or("");
  }

  /// The rows PostgreSQL selects with the span's predicate against the rows whose keys it
  /// holds.
  static void check(const TableDescriptor& t, const std::string& start, const std::string& end,
                    const std::string& what) {
    SCOPED_TRACE(what + (t.key[1].column.descending ? " (b DESC)" : " (b ASC)"));
    std::vector<Row> want;
    for (const Row& r : rows_) {
      std::string k = key(t, r.a, std::optional<std::string_view>(r.b));
      if (start <= k && k < end) want.push_back(r);
    }
    auto p = key_range_predicate(t, start, end);
    ASSERT_TRUE(p.has_value()) << p.error().message;
    std::string sql = "SELECT a::text, b FROM app.items WHERE " + *p;
    PGresult* res = PQexec(conn_, sql.c_str());
    ASSERT_EQ(PQresultStatus(res), PGRES_TUPLES_OK) << sql << ": " << PQerrorMessage(conn_);
    std::vector<Row> got;
    for (int i = 0; i < PQntuples(res); ++i) {
      Row r;
      if (!PQgetisnull(res, i, 0)) r.a = PQgetvalue(res, i, 0);
      if (!PQgetisnull(res, i, 1)) r.b = PQgetvalue(res, i, 1);
      got.push_back(r);
    }
    PQclear(res);
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, want) << sql << "\n  got:  " << show(got) << "\n  want: " << show(want);
    ++checked_;
  }

  static PgServer* server_;
  static PGconn* conn_;
  static std::vector<Row> rows_;
  static int checked_;
};

PgServer* KeyPredicateOracleTest::server_ = nullptr;
PGconn* KeyPredicateOracleTest::conn_ = nullptr;
std::vector<Row> KeyPredicateOracleTest::rows_;
int KeyPredicateOracleTest::checked_ = 0;

TEST_F(KeyPredicateOracleTest, StringPrefixSpansSelectTheirRows) {
  const std::vector<std::string> prefixes = {
      "", "m", "ma", "mab", "m\x7f", "é", "ÿ", "ÿÿ", "À", "😀", "\xf4\x8f\xbf\xbf", "z", "zzzz"};
  for (bool desc : {false, true}) {
    TableDescriptor t = table(desc);
    for (const std::string& p : prefixes) {
      for (const char* a : {"1", "2"}) {
        Span s = string_prefix_span(key(t, a), t.key[1].column, p);
        std::string what = "a = " + std::string(a) + " AND b LIKE '" + p + "%'";
        check(t, s.start, s.end, what);
        // A prefix's bound paired with a full key, and spans over several values of a.
        check(t, s.start, key(t, a, std::optional<std::string_view>("n")), what + ", up to n");
        check(t, key(t, a, std::optional<std::string_view>("l")), s.end, what + ", from l");
        check(t, s.start, key(t, "3"), what + ", up to a = 3");
        check(t, key(t, "1"), s.end, what + ", from a = 1");
        check(t, s.start, key(t, std::nullopt), what + ", up to a NULL");
      }
    }
  }
  EXPECT_GT(checked_, 300);
}

// Full keys and prefixes of keys (one column of two) keep their meaning.
TEST_F(KeyPredicateOracleTest, FullKeyBoundsSelectTheirRows) {
  const std::vector<std::optional<std::string>> bs = {"", "m", "ma", "ÿ", "😀", std::nullopt};
  for (bool desc : {false, true}) {
    TableDescriptor t = table(desc);
    for (const auto& lo : bs) {
      for (const auto& hi : bs) {
        std::optional<std::string_view> l = lo, h = hi;
        check(t, key(t, "1", l), key(t, "2", h), "(1, lo) to (2, hi)");
        check(t, key(t, "2", l), key(t, "2", h), "(2, lo) to (2, hi)");
        check(t, key(t, "2", l), prefix_end(key(t, "2", h)), "(2, lo) to past (2, hi)");
      }
    }
    check(t, key(t, "2"), prefix_end(key(t, "2")), "a = 2");
  }
}

}  // namespace
}  // namespace pgrange::routing
