// PostgreSQL 15 as the oracle for merging results from several shards: values of every type
// ValueOrder supports (with NaN, ±Infinity, -0, BC and far-future dates, UTC offsets with
// seconds, blank-padded and prefix strings) are read back in PostgreSQL's ORDER BY order, in
// text and binary format and under several TimeZones, and ValueOrder must sort them the same
// way with the same ties; PgNumeric's division, addition and comparison must give
// PostgreSQL's text for thousands of random operands; AggregateCombiner must turn per-part
// count/sum/min/max (and sum+count for avg) of rows split into 3 random parts into exactly
// what PostgreSQL answers over all of the rows; binary_value must turn the text of every type a
// merge combines into the bytes PostgreSQL sends in binary.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "routing/keys/pg_numeric.hpp"
#include "routing/keys/value_order.hpp"
#include "routing/merge/aggregate_combine.hpp"
#include "routing/merge/binary_value.hpp"
#include "tests/support/pg_server.hpp"

namespace pgrange::routing {
namespace {

using testing::PgServer;

constexpr int kValuesPerType = 400;

struct PgResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResultPtr = std::unique_ptr<PGresult, PgResultDeleter>;

class ValueOrderOracleTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    PgServer::Options opts;
    opts.settings = {{"timezone", "UTC"}, {"datestyle", "ISO, MDY"}};
    server_ = PgServer::start(opts).release();
    conn_ = PQconnectdb(server_->dsn().c_str());
    ASSERT_EQ(PQstatus(conn_), CONNECTION_OK) << PQerrorMessage(conn_);
  }
  static void TearDownTestSuite() {
    PQfinish(conn_);
    delete server_;
  }

  // Runs SQL; `binary` asks for binary results (extended protocol, no parameters).
  static PgResultPtr exec(const std::string& sql, bool binary = false) {
    PgResultPtr r(binary
                      ? PQexecParams(conn_, sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 1)
                      : PQexec(conn_, sql.c_str()));
    auto st = PQresultStatus(r.get());
    EXPECT_TRUE(st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
        << sql.substr(0, 300) << ": " << PQerrorMessage(conn_);
    return r;
  }

  // Loads rows of text-form values (nullopt = NULL) into `table` with COPY.
  static void load(const std::string& table, const std::string& columns,
                   const std::vector<std::vector<std::optional<std::string>>>& rows) {
    exec("DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table + " (" + columns + ")");
    PgResultPtr copy(PQexec(conn_, ("COPY " + table + " FROM STDIN").c_str()));
    ASSERT_EQ(PQresultStatus(copy.get()), PGRES_COPY_IN) << PQerrorMessage(conn_);
    std::string data;
    for (const auto& row : rows) {
      for (size_t i = 0; i < row.size(); ++i) {
        if (i > 0) data += '\t';
        if (!row[i]) {
          data += "\\N";
          continue;
        }
        for (char c : *row[i]) {
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
      }
      data += '\n';
    }
    ASSERT_EQ(PQputCopyData(conn_, data.data(), static_cast<int>(data.size())), 1);
    ASSERT_EQ(PQputCopyEnd(conn_, nullptr), 1);
    PgResultPtr r(PQgetResult(conn_));
    ASSERT_EQ(PQresultStatus(r.get()), PGRES_COMMAND_OK) << PQerrorMessage(conn_);
    while (PGresult* more = PQgetResult(conn_)) PQclear(more);
  }

  // `table`'s non-NULL v in PostgreSQL's order, with the number of each row's run of equal
  // values.
  struct Sorted {
    uint32_t oid = 0;
    std::vector<std::string> values;
    std::vector<int> run;
  };

  static Sorted fetch_sorted(const std::string& table, bool text_like, bool binary) {
    const std::string v = text_like ? "v COLLATE \"C\"" : "v";
    auto r = exec("SELECT v, (v = lag(v) OVER (ORDER BY " + v + "))::int4 FROM " + table +
                      " WHERE v IS NOT NULL ORDER BY " + v,
                  binary);
    Sorted out;
    out.oid = PQftype(r.get(), 0);
    for (int i = 0; i < PQntuples(r.get()); ++i) {
      out.values.emplace_back(PQgetvalue(r.get(), i, 0), PQgetlength(r.get(), i, 0));
      bool tie = false;
      if (i > 0) {
        const char* t = PQgetvalue(r.get(), i, 1);
        tie = binary ? std::memcmp(t, "\0\0\0\1", 4) == 0 : t[0] == '1';
      }
      out.run.push_back(i == 0 ? 0 : out.run.back() + (tie ? 0 : 1));
    }
    return out;
  }

  // ValueOrder must agree with PostgreSQL's order: each value equals its predecessor exactly
  // when PostgreSQL says so and is greater otherwise, and random pairs compare as their
  // positions and tie runs say.
  static void check_sorted(const Sorted& sorted, bool binary, std::mt19937_64& rng) {
    const auto& values = sorted.values;
    const auto& run = sorted.run;
    const int n = static_cast<int>(values.size());
    ASSERT_GE(n, 50);
    auto order = ValueOrder::for_type(sorted.oid, binary ? 1 : 0);
    ASSERT_TRUE(order.has_value()) << type_display_name(sorted.oid);
    const std::string what = type_display_name(sorted.oid) + (binary ? " binary" : " text");
    auto show = [&](int i) {
      if (!binary) return values[i];
      std::string hex;
      char buf[4];
      for (unsigned char c : values[i]) {
        std::snprintf(buf, sizeof buf, "%02x", c);
        hex += buf;
      }
      return hex;
    };
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE(order->valid(values[i])) << what << " " << show(i);
      if (i == 0) continue;
      int expected = run[i] == run[i - 1] ? 0 : -1;
      ASSERT_EQ(order->compare(values[i - 1], values[i]), expected)
          << what << ": " << show(i - 1) << " vs " << show(i);
      ASSERT_EQ(order->compare(values[i], values[i - 1]), -expected);
    }
    for (int k = 0; k < 4 * n; ++k) {
      int i = static_cast<int>(rng() % n), j = static_cast<int>(rng() % n);
      int expected = run[i] == run[j] ? 0 : (run[i] < run[j] ? -1 : 1);
      ASSERT_EQ(order->compare(values[i], values[j]), expected)
          << what << ": " << show(i) << " vs " << show(j);
    }
  }

  static void check_order(const std::string& table, bool text_like, bool binary,
                          std::mt19937_64& rng) {
    check_sorted(fetch_sorted(table, text_like, binary), binary, rng);
  }

  // binary_value must turn each value's text into the bytes PostgreSQL sends in binary.
  static void check_binary(const std::string& table) {
    const std::string sql = "SELECT v FROM " + table + " WHERE v IS NOT NULL";
    auto text = exec(sql);
    auto binary = exec(sql, true);
    const int n = PQntuples(text.get());
    ASSERT_EQ(n, PQntuples(binary.get()));
    ASSERT_GE(n, 5);
    const uint32_t oid = PQftype(text.get(), 0);
    ASSERT_TRUE(sends_binary(oid)) << type_display_name(oid);
    for (int i = 0; i < n; ++i) {
      std::string_view t(PQgetvalue(text.get(), i, 0), PQgetlength(text.get(), i, 0));
      std::string expected(PQgetvalue(binary.get(), i, 0), PQgetlength(binary.get(), i, 0));
      auto b = binary_value(oid, t);
      ASSERT_TRUE(b.has_value()) << type_display_name(oid) << " " << t << ": " << b.error().message;
      ASSERT_EQ(hex(*b), hex(expected)) << type_display_name(oid) << " " << t;
    }
  }

  static std::string hex(std::string_view bytes) {
    std::string out;
    char buf[4];
    for (unsigned char c : bytes) {
      std::snprintf(buf, sizeof buf, "%02x", c);
      out += buf;
    }
    return out;
  }

  static PgServer* server_;
  static PGconn* conn_;
};

PgServer* ValueOrderOracleTest::server_ = nullptr;
PGconn* ValueOrderOracleTest::conn_ = nullptr;

std::string random_numeric(std::mt19937_64& rng, int max_int_digits, int max_frac_digits) {
  std::string s;
  if (rng() % 2) s = "-";
  int int_digits = static_cast<int>(rng() % (max_int_digits + 1));
  int frac_digits = static_cast<int>(rng() % (max_frac_digits + 1));
  for (int d = 0; d < int_digits; ++d) s.push_back(static_cast<char>('0' + rng() % 10));
  if (int_digits == 0) s += "0";
  if (frac_digits > 0) {
    s += ".";
    for (int d = 0; d < frac_digits; ++d) {
      s.push_back(static_cast<char>('0' + (rng() % 3 ? rng() % 10 : 0)));
    }
  }
  return s;
}

// Text inputs for a type; PostgreSQL normalises them and the test compares its output.
std::vector<std::vector<std::optional<std::string>>> random_rows(const std::string& type,
                                                                 std::mt19937_64& rng) {
  std::vector<std::vector<std::optional<std::string>>> rows;
  static const std::vector<std::string> kPieces = {
      "a", "ab", "b", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", " ", "Z", "~", "\x01", "0"};
  char buf[64];
  for (int i = 0; i < kValuesPerType; ++i) {
    std::string s;
    if (type == "bool") {
      s = rng() % 2 ? "true" : "false";
    } else if (type == "int2") {
      s = std::to_string(rng() % 3 ? static_cast<int>(rng() % 21) - 10
                                   : static_cast<int>(static_cast<int16_t>(rng())));
    } else if (type == "int4") {
      s = std::to_string(rng() % 3 ? static_cast<int32_t>(rng() % 2000) - 1000
                                   : static_cast<int32_t>(rng()));
    } else if (type == "int8") {
      s = std::to_string(static_cast<int64_t>(rng()) >> (rng() % 64));
    } else if (type == "oid") {
      s = std::to_string(rng() % 3 ? rng() % 1000 : static_cast<uint32_t>(rng()));
    } else if (type == "float4" || type == "float8") {
      static const char* kSpecial[] = {"NaN", "Infinity", "-Infinity", "-0",
                                       "0",   "1e-310",   "-1e-45"};
      int r = static_cast<int>(rng() % 10);
      if (r == 0) {
        s = kSpecial[rng() % 7];
        if (type == "float4" && s == "1e-310") s = "1e-40";
      } else if (r < 4) {
        s = std::to_string(static_cast<int64_t>(rng() % 2001) - 1000) + "." +
            std::to_string(rng() % 100);
      } else if (type == "float4") {
        float f;
        do {
          auto bits = static_cast<uint32_t>(rng());
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
    } else if (type == "numeric") {
      int r = static_cast<int>(rng() % 20);
      if (r == 0) {
        static const char* kSpecial[] = {"NaN", "Infinity", "-Infinity", "-0.000",
                                         "0",   "1.000",    "1",         "1e-100"};
        s = kSpecial[rng() % 8];
      } else {
        s = random_numeric(rng, 25, 25);
        if (rng() % 5 == 0) s += "e" + std::to_string(static_cast<int>(rng() % 200) - 100);
      }
    } else if (type == "bytea") {
      s = "\\x";
      int n = static_cast<int>(rng() % 6);
      for (int d = 0; d < n; ++d) {
        int b = rng() % 3 == 0 ? (rng() % 2 ? 0 : 255) : static_cast<int>(rng() % 256);
        std::snprintf(buf, sizeof buf, "%02x", b);
        s += buf;
      }
    } else if (type == "uuid") {
      for (int d = 0; d < 16; ++d) {
        std::snprintf(buf, sizeof buf, "%02x", rng() % 4 == 0 ? 0 : static_cast<int>(rng() % 256));
        s += buf;
      }
    } else {  // text, varchar, name, bpchar, char(6)
      int n = static_cast<int>(rng() % 5);
      for (int d = 0; d < n; ++d) s += kPieces[rng() % kPieces.size()];
      if (rng() % 3 == 0) s += "  ";
      if (type == "char(6)" && s.size() > 6) s.resize(6);  // keep whole characters below
      if (type == "char(6)") {
        while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.pop_back();
        if (!s.empty() && static_cast<unsigned char>(s.back()) >= 0xC0) s.pop_back();
      }
    }
    rows.push_back({rng() % 40 == 0 ? std::nullopt : std::optional<std::string>(s)});
  }
  return rows;
}

TEST_F(ValueOrderOracleTest, ScalarTypesSortLikePostgres) {
  std::mt19937_64 rng(20240615);
  const std::vector<std::pair<std::string, bool>> types = {
      {"bool", false},   {"int2", false},   {"int4", false},    {"int8", false},  {"oid", false},
      {"float4", false}, {"float8", false}, {"numeric", false}, {"text", true},   {"varchar", true},
      {"name", true},    {"bpchar", true},  {"char(6)", true},  {"bytea", false}, {"uuid", false},
  };
  for (const auto& [type, text_like] : types) {
    SCOPED_TRACE(type);
    load("t_values", "v " + type, random_rows(type, rng));
    check_order("t_values", text_like, false, rng);
    check_order("t_values", text_like, true, rng);
    check_binary("t_values");
    if (HasFatalFailure()) return;
  }
}

// The values a merge combines in text go to a client that asked for binary results as
// PostgreSQL would send them: every type a merge compares or combines, plus json and jsonb.
TEST_F(ValueOrderOracleTest, BinaryValuesAreWhatPostgresSends) {
  std::mt19937_64 rng(4242);
  load("t_numeric", "v numeric", random_rows("numeric", rng));
  exec(
      "INSERT INTO t_numeric VALUES (0), (0.000), (-0.5), (12345.678), (1e-20), (1e20), "
      "('NaN'), ('Infinity'), ('-Infinity'), (99999999.99999), (-10000), (0.0001), (10000.0000), "
      "(123456789012345678901234567890.123456789012345678901234567890)");
  exec(
      "INSERT INTO t_numeric SELECT sum(v) FROM t_numeric WHERE v < 1e30 UNION ALL SELECT avg(v) "
      "FROM t_numeric WHERE v < 1e30");
  check_binary("t_numeric");
  load("t_float", "v float8", random_rows("float8", rng));
  exec(
      "INSERT INTO t_float VALUES ('NaN'), ('Infinity'), ('-Infinity'), ('-0'), (1e308), "
      "(5e-324), (2.2250738585072014e-308), (0.1), (1.0000000000000002)");
  check_binary("t_float");
  load("t_float4", "v float4", random_rows("float4", rng));
  exec("INSERT INTO t_float4 VALUES ('NaN'), ('-0'), (3.4028235e38), (1e-45), (0.1)");
  check_binary("t_float4");
  exec(
      "DROP TABLE IF EXISTS t_json; CREATE TABLE t_json AS SELECT x::json AS v FROM (VALUES "
      "('{\"a\": [1, 2.50, null]}'), ('\"é\\u00e9\"'), ('[]'), ('  {\"b\":1,\"b\":2}'), "
      "('-1.5e3')) s(x)");
  check_binary("t_json");
  exec("DROP TABLE IF EXISTS t_jsonb; CREATE TABLE t_jsonb AS SELECT v::jsonb AS v FROM t_json");
  check_binary("t_jsonb");
  exec("SET extra_float_digits = 3");
  check_binary("t_float");
  check_binary("t_float4");
  exec("RESET extra_float_digits");
  // Types the merge cannot convert are refused, not guessed.
  EXPECT_FALSE(sends_binary(1186));  // interval
  auto refused = binary_value(1186, "1 day");
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().sqlstate, "0A000");
  auto bad = binary_value(1082, "01/02/2024");  // DateStyle SQL
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().sqlstate, "0A000");
}

TEST_F(ValueOrderOracleTest, DatesAndTimestampsSortLikePostgresInEveryTimeZone) {
  std::mt19937_64 rng(77);
  // Generated on the server from day/µs offsets; covers BC years, far-future years with more
  // than 4 digits and the ends of PostgreSQL's ranges.
  std::string days, micros;
  for (int i = 0; i < kValuesPerType; ++i) {
    int64_t d = rng() % 3 ? static_cast<int64_t>(rng() % 200000) - 100000
                          : static_cast<int64_t>(rng() % (2145031948ull + 2451544ull)) - 2451544;
    int64_t us =
        rng() % 3 ? static_cast<int64_t>(rng() % 20000000000000000ull) - 10000000000000000
                  : static_cast<int64_t>(rng() % 9000000000000000000ull) - 211813487999999999 / 2;
    if (rng() % 5 == 0) us -= us % 1000000;  // whole seconds, and some equal instants
    days += (i ? "," : "") + std::to_string(d);
    micros += (i ? "," : "") + std::string("'") + std::to_string(us) + "'";
  }
  exec("DROP TABLE IF EXISTS t_date, t_ts, t_tstz");
  exec("CREATE TABLE t_date AS SELECT date '2000-01-01' + d AS v FROM unnest(ARRAY[" + days +
       "]::int4[]) d UNION ALL VALUES ('infinity'::date), ('-infinity'), ('4714-11-24 BC'), "
       "('5874897-12-31'), ('0001-01-01'), ('0001-12-31 BC')");
  exec(
      "CREATE TABLE t_ts AS SELECT timestamp '2000-01-01' + (x || ' microseconds')::interval AS "
      "v FROM unnest(ARRAY[" +
      micros +
      "]::text[]) x UNION ALL VALUES ('infinity'::timestamp), ('-infinity'), ('4714-11-24 00:00:00 "
      "BC'), "
      "('294276-12-31 23:59:59.999999'), ('10000-01-01 00:00:00.5')");
  exec(
      "CREATE TABLE t_tstz AS SELECT timestamptz '2000-01-01 00:00:00+00' + (x || ' "
      "microseconds')::interval AS v FROM unnest(ARRAY[" +
      micros +
      "]::text[]) x UNION ALL VALUES ('infinity'::timestamptz), ('-infinity'), ('1970-01-01 "
      "00:00:00+00'), "
      "('1800-01-01 00:00:00+00'), ('1800-01-01 00:00:00+00'), ('1937-07-01 00:00:00+00'), "
      "('4714-11-25 00:00:00+00 BC'), ('294276-12-30 23:59:59.999999+00')");
  // Instants around daylight-saving and local-mean-time changes, where local times do not
  // sort as the instants do.
  exec(
      "INSERT INTO t_tstz SELECT generate_series(timestamptz '2023-11-05 04:00+00', "
      "'2023-11-05 08:00+00', '7 minutes') UNION ALL SELECT generate_series(timestamptz "
      "'2023-04-01 12:00+00', '2023-04-01 16:00+00', '11 minutes') UNION ALL SELECT "
      "generate_series(timestamptz '1937-06-30 23:00+00', '1937-07-01 01:00+00', '13 seconds') "
      "UNION ALL SELECT generate_series(timestamptz '1901-12-31 23:30+00', '1902-01-01 "
      "00:30+00', '1 minute')");
  const std::vector<const char*> zones = {"UTC",
                                          "Asia/Kolkata",
                                          "America/St_Johns",
                                          "Asia/Kathmandu",
                                          "Europe/Amsterdam",
                                          "Pacific/Chatham",
                                          "America/New_York",
                                          "Australia/Lord_Howe"};
  std::vector<Sorted> tstz_in_zone;
  for (const char* zone : zones) {
    SCOPED_TRACE(zone);
    exec(std::string("SET TimeZone = '") + zone + "'");
    for (bool binary : {false, true}) {
      check_order("t_date", false, binary, rng);
      check_order("t_ts", false, binary, rng);
      check_order("t_tstz", false, binary, rng);
      if (HasFatalFailure()) return;
    }
    check_binary("t_date");
    check_binary("t_ts");
    check_binary("t_tstz");
    if (HasFatalFailure()) return;
    tstz_in_zone.push_back(fetch_sorted("t_tstz", false, false));
  }
  exec("SET TimeZone = 'UTC'");
  // Shards may print in different zones: each position takes its text from a random zone
  // (equal instants sit at the same positions in every zone's order).
  Sorted mixed = tstz_in_zone.front();
  for (size_t i = 0; i < mixed.values.size(); ++i) {
    const Sorted& from = tstz_in_zone[rng() % tstz_in_zone.size()];
    ASSERT_EQ(from.run[i], mixed.run[i]);
    mixed.values[i] = from.values[i];
  }
  check_sorted(mixed, false, rng);
}

TEST_F(ValueOrderOracleTest, NumericArithmeticMatchesPostgres) {
  std::mt19937_64 rng(4242);
  std::vector<std::vector<std::optional<std::string>>> rows;
  auto operand = [&](bool divisor) -> std::string {
    switch (rng() % 8) {
      case 0:  // a count
        return std::to_string(1 + rng() % (rng() % 2 ? 100 : 10000000000ull));
      case 1:  // int64 range
        return std::to_string(static_cast<int64_t>(rng()) >> (rng() % 63));
      case 2: {  // big values with big scales
        std::string s = random_numeric(rng, 60, 40);
        if (rng() % 3 == 0) s += "e" + std::to_string(static_cast<int>(rng() % 80) - 40);
        return s;
      }
      case 3:  // leading base-10000 digits that are equal or close
        return (rng() % 2 ? "-" : "") + std::to_string(rng() % 3 ? 9999 : 10000 + rng() % 3) +
               (rng() % 2 ? "." + std::to_string(rng() % 10000) : "");
      case 4:
        if (!divisor && rng() % 3 == 0) {
          static const char* kSpecial[] = {"NaN", "Infinity", "-Infinity", "0", "0.00000"};
          return kSpecial[rng() % 5];
        }
        return random_numeric(rng, 3, 30);
      default:
        return random_numeric(rng, 12, 12);
    }
  };
  for (int i = 0; i < 4000; ++i) {
    std::string s = operand(false), c = operand(true);
    rows.push_back({s, c});
  }
  rows.push_back({"1", "Infinity"});
  rows.push_back({"-Infinity", "-7"});
  rows.push_back({"1e-16000", "7e1000"});
  rows.push_back({"7e1000", "3e-1000"});
  load("t_div", "s numeric, c numeric", rows);
  auto r = exec(
      "SELECT s::text, c::text, CASE WHEN c = 0 THEN NULL ELSE (s / c)::text END, (s + c)::text, "
      "CASE WHEN s < c THEN -1 WHEN s = c THEN 0 ELSE 1 END FROM t_div");
  ASSERT_EQ(PQntuples(r.get()), static_cast<int>(rows.size()));
  int divisions = 0;
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    std::string s_text = PQgetvalue(r.get(), i, 0), c_text = PQgetvalue(r.get(), i, 1);
    auto s = PgNumeric::parse(s_text);
    auto c = PgNumeric::parse(c_text);
    ASSERT_TRUE(s && c) << s_text << " " << c_text;
    ASSERT_EQ(s->to_string(), s_text);
    auto q = s->divide(*c);
    if (PQgetisnull(r.get(), i, 2)) {
      ASSERT_FALSE(q.has_value()) << s_text << " / " << c_text;
      EXPECT_EQ(q.error().sqlstate, "22012");
    } else {
      ASSERT_TRUE(q.has_value()) << s_text << " / " << c_text << ": " << q.error().message;
      ASSERT_EQ(q->to_string(), PQgetvalue(r.get(), i, 2)) << s_text << " / " << c_text;
      ++divisions;
    }
    auto sum = s->add(*c);
    ASSERT_TRUE(sum.has_value());
    ASSERT_EQ(sum->to_string(), PQgetvalue(r.get(), i, 3)) << s_text << " + " << c_text;
    ASSERT_EQ(s->compare(*c), std::stoi(PQgetvalue(r.get(), i, 4))) << s_text << " vs " << c_text;
  }
  EXPECT_GT(divisions, 3800);
}

// Rows of one input type in groups, each row in one of three parts (shards): the per-part
// partial aggregates combined must equal PostgreSQL's aggregates over each whole group.
void check_aggregates(
    const std::string& type, std::mt19937_64& rng,
    const std::function<std::optional<std::string>()>& value,
    const std::function<PgResultPtr(const std::string&)>& run,
    const std::function<void(const std::string&, const std::string&,
                             const std::vector<std::vector<std::optional<std::string>>>&)>& load) {
  constexpr int kGroups = 300;
  std::vector<std::vector<std::optional<std::string>>> rows;
  for (int g = 0; g < kGroups; ++g) {
    int n = static_cast<int>(rng() % 4 == 0 ? rng() % 3 : rng() % 40);
    bool all_null = rng() % 15 == 0;
    for (int k = 0; k < n; ++k) {
      rows.push_back(
          {std::to_string(g), std::to_string(rng() % 3), all_null ? std::nullopt : value()});
    }
  }
  load("t_agg", "g int4, part int4, v " + type, rows);
  auto parts =
      run("SELECT g, part, sum(v), count(v), min(v), max(v), count(*) FROM t_agg GROUP BY g, part");
  auto totals =
      run("SELECT g, avg(v)::text, sum(v)::text, min(v)::text, max(v)::text, count(v), count(*) "
          "FROM t_agg GROUP BY g ORDER BY g");
  const uint32_t sum_oid = PQftype(parts.get(), 2);
  const uint32_t value_oid = PQftype(parts.get(), 4);
  std::map<std::string, std::map<std::string, int>> part_rows;  // g -> part -> row
  for (int i = 0; i < PQntuples(parts.get()); ++i) {
    part_rows[PQgetvalue(parts.get(), i, 0)][PQgetvalue(parts.get(), i, 1)] = i;
  }
  auto order = ValueOrder::for_type(value_oid, 0);
  ASSERT_TRUE(order.has_value());
  auto make = [&](AggregateKind kind, uint32_t oid) {
    auto c = AggregateCombiner::make(kind, oid, kind == AggregateKind::kAvg ? 20 : 0);
    EXPECT_TRUE(c.has_value()) << (c ? "" : c.error().message);
    return std::move(*c);
  };
  AggregateCombiner avg = make(AggregateKind::kAvg, sum_oid);
  AggregateCombiner sum = make(AggregateKind::kSum, sum_oid);
  AggregateCombiner min = make(AggregateKind::kMin, value_oid);
  AggregateCombiner max = make(AggregateKind::kMax, value_oid);
  AggregateCombiner count = make(AggregateKind::kCount, 20);
  AggregateCombiner count_star = make(AggregateKind::kCount, 20);
  ASSERT_GT(PQntuples(totals.get()), kGroups / 2);
  for (int i = 0; i < PQntuples(totals.get()); ++i) {
    const std::string g = PQgetvalue(totals.get(), i, 0);
    for (auto* c : {&avg, &sum, &min, &max, &count, &count_star}) c->reset();
    for (const char* part : {"0", "1", "2"}) {
      auto it = part_rows[g].find(part);
      auto cell = [&](int col) -> std::optional<std::string_view> {
        if (it == part_rows[g].end()) {
          if (col == 3 || col == 6) return "0";
          return std::nullopt;
        }
        if (PQgetisnull(parts.get(), it->second, col)) return std::nullopt;
        return PQgetvalue(parts.get(), it->second, col);
      };
      // A part without rows is a shard whose aggregate saw no rows: NULLs and zero counts.
      ASSERT_TRUE(avg.add(cell(2), cell(3)).has_value());
      ASSERT_TRUE(sum.add(cell(2)).has_value());
      ASSERT_TRUE(min.add(cell(4)).has_value());
      ASSERT_TRUE(max.add(cell(5)).has_value());
      ASSERT_TRUE(count.add(cell(3)).has_value());
      ASSERT_TRUE(count_star.add(cell(6)).has_value());
    }
    auto expect = [&](const AggregateCombiner& c, int col, const char* what, bool by_value) {
      auto got = c.result();
      ASSERT_TRUE(got.has_value()) << what << " group " << g << ": " << got.error().message;
      if (PQgetisnull(totals.get(), i, col)) {
        ASSERT_FALSE(got->has_value()) << what << " group " << g << ": " << **got;
        return;
      }
      ASSERT_TRUE(got->has_value()) << what << " group " << g;
      const std::string pg = PQgetvalue(totals.get(), i, col);
      if (by_value) {
        // min/max among equal numerics of different scales: PostgreSQL keeps whichever its
        // scan order gives, so only the value must match.
        ASSERT_EQ(order->compare(**got, pg), 0)
            << what << " group " << g << ": " << **got << " vs " << pg;
      } else if (type == "float8" && (col == 1 || col == 2) && **got != pg) {
        // Float sums added part by part differ from one server's sum in their last digits, as
        // a parallel plan's do: equal to 12 significant digits (the values are positive, so
        // nothing cancels).
        double a = std::strtod((*got)->c_str(), nullptr), b = std::strtod(pg.c_str(), nullptr);
        ASSERT_LE(std::fabs(a - b), 1e-12 * std::max(std::fabs(a), std::fabs(b)))
            << what << " group " << g << ": " << **got << " vs " << pg;
      } else {
        ASSERT_EQ(**got, pg) << type << " " << what << " group " << g;
      }
    };
    expect(avg, 1, "avg", false);
    expect(sum, 2, "sum", false);
    expect(min, 3, "min", type == "numeric");
    expect(max, 4, "max", type == "numeric");
    expect(count, 5, "count", false);
    expect(count_star, 6, "count(*)", false);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST_F(ValueOrderOracleTest, CombinedAggregatesEqualPostgresOverAllRows) {
  std::mt19937_64 rng(99);
  auto run = [](const std::string& sql) { return exec(sql); };
  auto loader = [](const std::string& t, const std::string& cols,
                   const std::vector<std::vector<std::optional<std::string>>>& rows) {
    load(t, cols, rows);
  };
  auto maybe_null = [&](std::string s) -> std::optional<std::string> {
    if (rng() % 10 == 0) return std::nullopt;
    return s;
  };
  {
    SCOPED_TRACE("int2");
    check_aggregates(
        "int2", rng, [&] { return maybe_null(std::to_string(static_cast<int16_t>(rng()))); }, run,
        loader);
  }
  {
    SCOPED_TRACE("int4");
    check_aggregates(
        "int4", rng,
        [&] {
          return maybe_null(std::to_string(rng() % 2 ? static_cast<int32_t>(rng())
                                                     : static_cast<int32_t>(rng() % 100)));
        },
        run, loader);
  }
  {
    SCOPED_TRACE("int8");
    check_aggregates(
        "int8", rng,
        [&] { return maybe_null(std::to_string(static_cast<int64_t>(rng()) >> (rng() % 64))); },
        run, loader);
  }
  {
    SCOPED_TRACE("float8");
    check_aggregates(
        "float8", rng,
        [&]() -> std::optional<std::string> {
          int r = static_cast<int>(rng() % 400);
          if (r == 0) return "NaN";
          if (r == 1) return "Infinity";
          if (r < 20) return "0.1";
          std::uniform_real_distribution<double> d(0, r % 2 ? 1e6 : 1e-3);
          char buf[40];
          std::snprintf(buf, sizeof buf, "%.17g", d(rng));
          return maybe_null(buf);
        },
        run, loader);
  }
  {
    SCOPED_TRACE("numeric");
    check_aggregates(
        "numeric", rng,
        [&]() -> std::optional<std::string> {
          int r = static_cast<int>(rng() % 400);
          if (r == 0) return "NaN";
          if (r == 1) return "Infinity";
          if (r == 2) return "-Infinity";
          if (r < 30) return r % 2 ? "1.0" : "1.00";
          if (r < 60) return random_numeric(rng, 120, 2);  // big values
          if (r < 90) return random_numeric(rng, 0, 60);   // tiny ones with big scales
          return maybe_null(random_numeric(rng, rng() % 2 ? 4 : 25, rng() % 2 ? 2 : 20));
        },
        run, loader);
  }
}

}  // namespace
}  // namespace pgrange::routing
