// PostgreSQL 15 as the oracle for the key codec and the hash-bucket function: random values of
// every key type (with NULL, NaN, ±Infinity, -0, empty and non-ASCII strings that are prefixes
// of each other) are stored in a real server, read back in PostgreSQL's ORDER BY order (ASC
// and DESC, default NULL placement, COLLATE "C" for text), encoded from the text PostgreSQL
// returns, and the keys must sort identically; decoding must give PostgreSQL's own text; the
// C++ hash bucket must equal the SQL expression's value.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "routing/keys/hash_bucket.hpp"
#include "routing/keys/key_codec.hpp"
#include "routing/keys/key_space.hpp"
#include "tests/support/pg_server.hpp"

namespace pgrange::routing {
namespace {

using testing::PgServer;

constexpr int kRowsPerType = 3000;

struct PgResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResultPtr = std::unique_ptr<PGresult, PgResultDeleter>;

class KeyOrderOracleTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    PgServer::Options opts;
    opts.settings = {{"timezone", "UTC"}};
    server_ = PgServer::start(opts).release();
    conn_ = PQconnectdb(server_->dsn().c_str());
    ASSERT_EQ(PQstatus(conn_), CONNECTION_OK) << PQerrorMessage(conn_);
  }
  static void TearDownTestSuite() {
    PQfinish(conn_);
    delete server_;
  }

  static PgResultPtr exec(const std::string& sql) {
    PgResultPtr r(PQexec(conn_, sql.c_str()));
    auto st = PQresultStatus(r.get());
    EXPECT_TRUE(st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
        << sql.substr(0, 300) << ": " << PQerrorMessage(conn_);
    return r;
  }

  // Loads text-form values (nullopt = NULL) into a one-column table with COPY.
  static void load(const std::string& table, const std::string& type,
                   const std::vector<std::optional<std::string>>& values) {
    exec("DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table + " (v " + type + ")");
    PgResultPtr copy(PQexec(conn_, ("COPY " + table + " (v) FROM STDIN").c_str()));
    ASSERT_EQ(PQresultStatus(copy.get()), PGRES_COPY_IN) << PQerrorMessage(conn_);
    std::string data;
    for (const auto& v : values) {
      if (!v) {
        data += "\\N\n";
        continue;
      }
      for (char c : *v) {
        switch (c) {
          case '\\':
            data += "\\\\";
            break;
          case '\n':
            data += "\\n";
            break;
          case '\r':
            data += "\\r";
            break;
          case '\t':
            data += "\\t";
            break;
          default:
            data.push_back(c);
        }
      }
      data += "\n";
    }
    ASSERT_EQ(PQputCopyData(conn_, data.data(), static_cast<int>(data.size())), 1);
    ASSERT_EQ(PQputCopyEnd(conn_, nullptr), 1);
    PgResultPtr r(PQgetResult(conn_));
    ASSERT_EQ(PQresultStatus(r.get()), PGRES_COMMAND_OK) << PQerrorMessage(conn_);
    while (PGresult* more = PQgetResult(conn_)) PQclear(more);
  }

  // Checks the key order against ORDER BY v [DESC] and decode(encode(v)) against `expected`.
  static void check_order(const std::string& table, KeyType type, const std::string& expected_sql) {
    const bool text_like =
        type == KeyType::kText || type == KeyType::kVarchar || type == KeyType::kBpchar;
    const std::string collate = text_like ? " COLLATE \"C\"" : "";
    for (bool desc : {false, true}) {
      const std::string order = "v" + collate + (desc ? " DESC" : "");
      auto r = exec("SELECT v AS out_v, " + expected_sql +
                    " AS out_text, v IS NOT DISTINCT FROM lag(v) OVER (ORDER BY " + order +
                    ") AS out_eq FROM " + table + " ORDER BY " + order);
      const int n = PQntuples(r.get());
      ASSERT_GE(n, kRowsPerType / 2);
      KeyColumn col{type, desc};
      std::string prev;
      for (int i = 0; i < n; ++i) {
        std::optional<std::string_view> v;
        if (!PQgetisnull(r.get(), i, 0)) v = PQgetvalue(r.get(), i, 0);
        std::string key;
        auto enc = append_text_value(key, col, v);
        ASSERT_TRUE(enc.has_value())
            << key_type_name(type) << " " << (v ? *v : "NULL") << ": " << enc.error().message;
        if (i > 0) {
          const bool pg_equal = PQgetvalue(r.get(), i, 2)[0] == 't';
          if (pg_equal) {
            ASSERT_EQ(key, prev) << key_type_name(type) << " desc=" << desc << " row " << i << " "
                                 << (v ? *v : "NULL");
          } else {
            ASSERT_LT(prev, key) << key_type_name(type) << " desc=" << desc << " row " << i << " "
                                 << (v ? *v : "NULL") << " after "
                                 << (PQgetisnull(r.get(), i - 1, 0)
                                         ? "NULL"
                                         : PQgetvalue(r.get(), i - 1, 0));
          }
        }
        std::string_view in = key;
        auto decoded = decode_text_value(in, col);
        ASSERT_TRUE(decoded.has_value()) << decoded.error().message;
        ASSERT_TRUE(in.empty());
        if (v) {
          ASSERT_TRUE(decoded->has_value());
          ASSERT_EQ(**decoded, PQgetvalue(r.get(), i, 1)) << key_type_name(type) << " " << *v;
        } else {
          ASSERT_FALSE(decoded->has_value());
        }
        prev = std::move(key);
      }
    }
  }

  // Checks the C++ per-column hash and bucket against PostgreSQL for every non-NULL value.
  static void check_hash(const std::string& table, KeyType type, const std::string& where) {
    HashColumn col{"v", type};
    auto r = exec("SELECT v, " + hash_column_sql("v", type) + ", " +
                  hash_bucket_sql(std::span<const HashColumn>(&col, 1), 1000) + " FROM " + table +
                  " WHERE v IS NOT NULL" + where);
    const int n = PQntuples(r.get());
    ASSERT_GT(n, kRowsPerType / 2);
    const std::vector<KeyType> types = {type};
    for (int i = 0; i < n; ++i) {
      auto v = parse_text_value(type, PQgetvalue(r.get(), i, 0));
      ASSERT_TRUE(v.has_value());
      EXPECT_EQ(static_cast<int32_t>(pg_hash_value(type, *v)), std::stol(PQgetvalue(r.get(), i, 1)))
          << key_type_name(type) << " " << PQgetvalue(r.get(), i, 0);
      std::vector<std::optional<KeyValue>> vals = {*v};
      ASSERT_EQ(hash_bucket(types, vals, 1000), std::stoul(PQgetvalue(r.get(), i, 2)))
          << key_type_name(type) << " " << PQgetvalue(r.get(), i, 0);
    }
  }

  static PgServer* server_;
  static PGconn* conn_;
};

PgServer* KeyOrderOracleTest::server_ = nullptr;
PGconn* KeyOrderOracleTest::conn_ = nullptr;

// Random text-form inputs for a type; PostgreSQL normalises them, and the test encodes
// PostgreSQL's output, not these.
std::vector<std::optional<std::string>> random_inputs(KeyType type, std::mt19937_64& rng) {
  std::vector<std::optional<std::string>> out;
  static const std::vector<std::string> kPieces = {
      "a", "ab", "b",    "\xc3\xa9", "\xc3\xa9t\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", " ",
      "Z", "~",  "\x01", "0"};
  char buf[64];
  for (int i = 0; i < kRowsPerType; ++i) {
    if (rng() % 25 == 0) {
      out.push_back(std::nullopt);
      continue;
    }
    std::string s;
    switch (type) {
      case KeyType::kBool:
        s = rng() % 2 ? "true" : "false";
        break;
      case KeyType::kInt2:
        s = std::to_string(static_cast<int16_t>(rng()));
        break;
      case KeyType::kInt4:
        s = std::to_string(rng() % 3 ? static_cast<int32_t>(rng() % 2000) - 1000
                                     : static_cast<int32_t>(rng()));
        break;
      case KeyType::kInt8: {
        int shift = static_cast<int>(rng() % 64);
        s = std::to_string(static_cast<int64_t>(rng()) >> shift);
        break;
      }
      case KeyType::kFloat4:
      case KeyType::kFloat8: {
        static const char* kSpecial[] = {"NaN", "Infinity", "-Infinity", "-0",
                                         "0",   "1e-310",   "-1e-45"};
        int r = static_cast<int>(rng() % 10);
        if (r == 0) {
          s = kSpecial[rng() % 7];
          if (type == KeyType::kFloat4 && s == "1e-310") s = "1e-40";
        } else if (r < 4) {
          s = std::to_string(static_cast<int64_t>(rng() % 2001) - 1000) + "." +
              std::to_string(rng() % 100);
        } else if (type == KeyType::kFloat4) {
          float f;
          do {
            uint32_t bits = static_cast<uint32_t>(rng());
            std::memcpy(&f, &bits, 4);
          } while (std::isnan(f) || std::isinf(f));
          std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(f));
          s = buf;
        } else {
          double d;
          do {
            uint64_t bits = rng();
            std::memcpy(&d, &bits, 8);
          } while (std::isnan(d) || std::isinf(d));
          std::snprintf(buf, sizeof buf, "%.17g", d);
          s = buf;
        }
        break;
      }
      case KeyType::kNumeric: {
        int r = static_cast<int>(rng() % 20);
        if (r == 0) {
          static const char* kSpecial[] = {"NaN", "Infinity", "-Infinity", "-0.000",
                                           "0",   "1.000",    "1"};
          s = kSpecial[rng() % 7];
          break;
        }
        if (rng() % 2) s = "-";
        int int_digits = static_cast<int>(rng() % 25), frac_digits = static_cast<int>(rng() % 25);
        for (int d = 0; d < int_digits; ++d) s.push_back(static_cast<char>('0' + rng() % 10));
        if (int_digits == 0) s += "0";
        s += ".";
        for (int d = 0; d < frac_digits; ++d)
          s.push_back(static_cast<char>('0' + (rng() % 3 ? rng() % 10 : 0)));
        if (frac_digits == 0) s += "0";
        if (rng() % 5 == 0) s += "e" + std::to_string(static_cast<int>(rng() % 200) - 100);
        break;
      }
      case KeyType::kText:
      case KeyType::kVarchar:
      case KeyType::kBpchar: {
        int n = static_cast<int>(rng() % 5);
        for (int d = 0; d < n; ++d) s += kPieces[rng() % kPieces.size()];
        if (type == KeyType::kBpchar && rng() % 3 == 0) s += "  ";
        break;
      }
      case KeyType::kBytea: {
        s = "\\x";
        int n = static_cast<int>(rng() % 6);
        for (int d = 0; d < n; ++d) {
          int b = rng() % 3 == 0 ? (rng() % 2 ? 0 : 255) : static_cast<int>(rng() % 256);
          std::snprintf(buf, sizeof buf, "%02x", b);
          s += buf;
        }
        break;
      }
      case KeyType::kUuid: {
        for (int d = 0; d < 16; ++d) {
          std::snprintf(buf, sizeof buf, "%02x",
                        rng() % 4 == 0 ? 0 : static_cast<int>(rng() % 256));
          s += buf;
        }
        break;
      }
      default:
        break;
    }
    out.push_back(s);
  }
  return out;
}

std::string expected_text_sql(KeyType type) {
  switch (type) {
    case KeyType::kNumeric:
      return "trim_scale(v)::text";  // the codec normalises 1.00 to 1
    case KeyType::kFloat4:
    case KeyType::kFloat8:
      return "CASE WHEN v = 0 THEN '0' ELSE v::text END";  // -0 is stored as 0
    case KeyType::kBpchar:
      return "v::text";  // bpchar -> text drops the trailing spaces, as the key does
    default:
      return "v";  // the output function's text (bool prints t/f, unlike bool::text)
  }
}

TEST_F(KeyOrderOracleTest, NonTemporalTypesSortAndRoundTripLikePostgres) {
  std::mt19937_64 rng(20240101);
  for (KeyType type : kAllKeyTypes) {
    if (type == KeyType::kDate || type == KeyType::kTimestamp || type == KeyType::kTimestamptz)
      continue;
    SCOPED_TRACE(std::string(key_type_name(type)));
    std::string table = "t_" + std::string(key_type_name(type));
    load(table, std::string(key_type_name(type)), random_inputs(type, rng));
    check_order(table, type, expected_text_sql(type));
    check_hash(table, type, "");
    if (HasFatalFailure()) return;
  }
}

TEST_F(KeyOrderOracleTest, DatesAndTimestampsSortAndRoundTripLikePostgres) {
  std::mt19937_64 rng(77);
  // Generated on the server from day/µs offsets so that the inputs do not depend on the
  // codec's own formatting; covers BC years and the ends of PostgreSQL's ranges.
  std::string days, micros;
  for (int i = 0; i < kRowsPerType; ++i) {
    int64_t d = rng() % 3 ? static_cast<int64_t>(rng() % 200000) - 100000
                          : static_cast<int64_t>(rng() % (2145031948ull + 2451544ull)) - 2451544;
    int64_t us =
        rng() % 3 ? static_cast<int64_t>(rng() % 20000000000000000ull) - 10000000000000000
                  : static_cast<int64_t>(rng() % 9000000000000000000ull) - 211813487999999999 / 2;
    days += (i ? "," : "") + std::to_string(d);
    micros += (i ? "," : "") + std::string("'") + std::to_string(us) + "'";
  }
  exec(
      "CREATE TABLE t_date AS SELECT date '2000-01-01' + d AS v FROM unnest(ARRAY[" + days +
      "]::int4[]) d UNION ALL VALUES (NULL::date), ('infinity'), ('-infinity'), ('4714-11-24 BC'), "
      "('5874897-12-31')");
  exec(
      "CREATE TABLE t_ts AS SELECT timestamp '2000-01-01' + (x || ' microseconds')::interval AS v "
      "FROM unnest(ARRAY[" +
      micros +
      "]::text[]) x UNION ALL VALUES (NULL::timestamp), ('infinity'), "
      "('-infinity'), ('4714-11-24 00:00:00 BC'), ('294276-12-31 23:59:59.999999')");
  exec(
      "CREATE TABLE t_tstz AS SELECT timestamptz '2000-01-01 00:00:00+00' + (x || ' "
      "microseconds')::interval AS v "
      "FROM unnest(ARRAY[" +
      micros +
      "]::text[]) x UNION ALL VALUES (NULL::timestamptz), ('infinity'), "
      "('-infinity'), ('1970-01-01 00:00:00+00')");
  check_order("t_date", KeyType::kDate, "v");
  check_order("t_ts", KeyType::kTimestamp, "v");
  check_order("t_tstz", KeyType::kTimestamptz, "v");
  // PostgreSQL cannot subtract or convert infinite values, so the hash covers finite ones.
  check_hash("t_date", KeyType::kDate, " AND isfinite(v)");
  // After ~292277 AD PostgreSQL's extract(epoch) overflows its µs-since-1970 arithmetic.
  check_hash("t_ts", KeyType::kTimestamp, " AND isfinite(v) AND v < '292000-01-01'");
  check_hash("t_tstz", KeyType::kTimestamptz, " AND isfinite(v) AND v < '292000-01-01+00'");
}

TEST_F(KeyOrderOracleTest, CompositeKeysSortLikeMultiColumnOrderBy) {
  // Few distinct values per column so that ties on leading columns are common.
  exec(
      "CREATE TABLE t_multi AS SELECT "
      "CASE WHEN random() < 0.1 THEN NULL ELSE (random() * 5)::int4 END AS a, "
      "CASE WHEN random() < 0.1 THEN NULL ELSE (ARRAY['', 'a', 'ab', 'é', 'éa', 'b'])[1 + "
      "(random() * 5)::int] END AS b, "
      "CASE WHEN random() < 0.1 THEN NULL ELSE (ARRAY['NaN', '-Infinity', '-0', '0', '1.5', "
      "'-2'])[1 + (random() * 5)::int]::float8 END AS c "
      "FROM generate_series(1, 3000)");
  const std::vector<KeyColumn> cols = {
      {KeyType::kInt4}, {KeyType::kText, true}, {KeyType::kFloat8}};
  const std::string order = "a, b COLLATE \"C\" DESC, c";
  auto r = exec("SELECT a, b, c, (a, b, c) IS NOT DISTINCT FROM lag((a, b, c)) OVER (ORDER BY " +
                order + ") FROM t_multi ORDER BY " + order);
  ASSERT_EQ(PQntuples(r.get()), 3000);
  std::string prev;
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    std::string key = index_prefix(53, 2);
    for (int c = 0; c < 3; ++c) {
      std::optional<std::string_view> v;
      if (!PQgetisnull(r.get(), i, c)) v = PQgetvalue(r.get(), i, c);
      ASSERT_TRUE(append_text_value(key, cols[c], v).has_value());
    }
    if (i > 0) {
      if (PQgetvalue(r.get(), i, 3)[0] == 't') {
        ASSERT_EQ(key, prev) << "row " << i;
      } else {
        ASSERT_LT(prev, key) << "row " << i;
      }
    }
    auto decoded = decode_key_text(key, cols);
    ASSERT_TRUE(decoded.has_value());
    ASSERT_EQ(decoded->size(), 3u);
    prev = std::move(key);
  }
}

TEST_F(KeyOrderOracleTest, CompositeHashBucketMatchesSql) {
  exec(
      "CREATE TABLE t_comp AS SELECT (random() * 1e12)::int8 - 500000000000 AS a, md5(i::text) AS "
      "b, "
      "timestamptz '2020-01-01 00:00:00+00' + (i || ' seconds')::interval AS c FROM "
      "generate_series(1, 3000) i "
      "UNION ALL VALUES (NULL::int8, NULL::text, NULL::timestamptz)");
  const std::vector<HashColumn> cols = {
      {"a", KeyType::kInt8}, {"b", KeyType::kText}, {"c", KeyType::kTimestamptz}};
  auto r = exec("SELECT a, b, c, " + hash_bucket_sql(cols, 64) + " FROM t_comp");
  const std::vector<KeyType> types = {KeyType::kInt8, KeyType::kText, KeyType::kTimestamptz};
  ASSERT_EQ(PQntuples(r.get()), 3001);
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    std::vector<std::optional<KeyValue>> vals;
    for (int c = 0; c < 3; ++c) {
      if (PQgetisnull(r.get(), i, c)) {
        vals.emplace_back();
      } else {
        auto v = parse_text_value(types[c], PQgetvalue(r.get(), i, c));
        ASSERT_TRUE(v.has_value()) << PQgetvalue(r.get(), i, c);
        vals.emplace_back(std::move(*v));
      }
    }
    ASSERT_EQ(hash_bucket(types, vals, 64), std::stoul(PQgetvalue(r.get(), i, 3))) << "row " << i;
  }
}

}  // namespace
}  // namespace pgrange::routing
