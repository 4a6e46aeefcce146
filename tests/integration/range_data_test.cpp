// Range data against real PostgreSQL 15 servers: the key-range predicate selects exactly the rows
// whose encoded key lies in the range (PostgreSQL as the oracle, for many key types, directions,
// NULL placements and bound shapes), and range statistics.
#include "routing/moves/range_data.hpp"

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "routing/keys/key_space.hpp"
#include "routing/moves/shard_link.hpp"
#include "routing/plan/key_predicate.hpp"
#include "tests/support/pg_server.hpp"

namespace pgrange::routing {
namespace {

using testing::PgServer;

using shard_link::Conn;
using shard_link::PgResult;

Conn connect(const std::string& dsn) {
  Conn c(PQconnectdb(dsn.c_str()));
  EXPECT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
  return c;
}

PgResult run(PGconn* c, const std::string& sql) {
  PgResult r(PQexec(c, sql.c_str()));
  auto st = PQresultStatus(r.get());
  EXPECT_TRUE(st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
      << sql.substr(0, 400) << ": " << PQerrorMessage(c);
  return r;
}

std::string quote(const std::optional<std::string>& v) {
  if (!v) return "NULL";
  std::string out = "'";
  for (char c : *v) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::set<int> int_set(PGresult* r) {
  std::set<int> out;
  for (int i = 0; i < PQntuples(r); ++i) out.insert(std::stoi(PQgetvalue(r, i, 0)));
  return out;
}

std::string printable(std::string_view key) {
  std::string out;
  char buf[4];
  for (unsigned char c : key) {
    std::snprintf(buf, sizeof buf, "%02x", c);
    out += buf;
  }
  return out;
}

class RangeDataTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    PgServer::Options opts;
    opts.settings = {{"timezone", "UTC"}};
    source_ = PgServer::start(opts).release();
    target_ = PgServer::start(opts).release();
  }
  static void TearDownTestSuite() {
    delete source_;
    delete target_;
    source_ = target_ = nullptr;
  }

  static PgServer* source_;
  static PgServer* target_;
};
PgServer* RangeDataTest::source_ = nullptr;
PgServer* RangeDataTest::target_ = nullptr;

// ---------------------------------------------------------------------------------------------
// The predicate against PostgreSQL

using Rng = std::mt19937_64;

// Random text-form input of a key type (PostgreSQL normalises it; the test encodes its output).
std::string random_value(KeyType type, Rng& rng) {
  static const std::vector<std::string> kPieces = {
      "a", "ab", "b", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", " ", "Z",
      "~", "0",  "'", "\\"};
  static const std::vector<std::string> kFloats = {"NaN", "Infinity", "-Infinity", "0",       "-0",
                                                   "1.5", "-2.25",    "1e300",     "-1e-300", "3"};
  char buf[64];
  switch (type) {
    case KeyType::kInt4:
      return std::to_string(static_cast<int>(rng() % 21) - 10);
    case KeyType::kInt8:
      if (rng() % 4 == 0) return std::to_string(static_cast<int64_t>(rng()));
      return std::to_string(static_cast<int>(rng() % 101) - 50);
    case KeyType::kText: {
      std::string s;
      for (int n = static_cast<int>(rng() % 4); n > 0; --n) s += kPieces[rng() % kPieces.size()];
      return s;
    }
    case KeyType::kFloat8:
      if (rng() % 3 == 0) {
        std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(rng() % 20001) / 7.0 - 1400);
        return buf;
      }
      return kFloats[rng() % kFloats.size()];
    case KeyType::kUuid: {
      // Few distinct first bytes, so UUIDs share prefixes.
      std::string s;
      const char* hex = "0123456789abcdef";
      for (int i = 0; i < 32; ++i) {
        s += i < 2 ? hex[rng() % 3] : hex[rng() % 16];
        if (i == 7 || i == 11 || i == 15 || i == 19) s += '-';
      }
      return s;
    }
    case KeyType::kTimestamptz: {
      if (rng() % 8 == 0) return rng() % 2 ? "infinity" : "-infinity";
      int year = 1990 + static_cast<int>(rng() % 60);
      std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d.%03d+%02d", year,
                    static_cast<int>(rng() % 12) + 1, static_cast<int>(rng() % 28) + 1,
                    static_cast<int>(rng() % 24), static_cast<int>(rng() % 60),
                    static_cast<int>(rng() % 60), static_cast<int>(rng() % 1000),
                    static_cast<int>(rng() % 12));
      return buf;
    }
    case KeyType::kBytea: {
      const char* bytes[] = {"00", "01", "61", "ff"};
      std::string s = "\\x";
      for (int n = static_cast<int>(rng() % 4); n > 0; --n) s += bytes[rng() % 4];
      return s;
    }
    default:
      ADD_FAILURE() << "no generator for " << key_type_name(type);
      return "";
  }
}

struct OracleTable {
  std::string name;
  std::string columns;  // column definitions ('@': a collation); the test adds rid
  std::string constraint;
  KeySource source;
  std::vector<KeyColumnDef> key;
};

struct Row {
  int rid;
  std::string key;
};

class PredicateOracle {
 public:
  PredicateOracle(PGconn* conn, TableDescriptor table, Rng& rng)
      : conn_(conn), table_(std::move(table)), rng_(rng) {
    for (const auto& c : table_.key) columns_.push_back(c.column);
  }

  std::optional<std::string> random_column_value(size_t i) {
    const bool nullable = table_.key_source != KeySource::kPrimaryKey;
    if (nullable && rng_() % 8 == 0) return std::nullopt;
    return random_value(columns_[i].type, rng_);
  }

  void load(int rows) {
    std::string sql = "INSERT INTO " + qualified_table_name(table_) + " (rid";
    for (const auto& c : table_.key) sql += ", \"" + c.name + "\"";
    sql += ") VALUES ";
    for (int i = 0; i < rows; ++i) {
      sql += (i ? ", (" : "(") + std::to_string(i);
      for (size_t c = 0; c < columns_.size(); ++c) sql += ", " + quote(random_column_value(c));
      sql += ")";
    }
    if (table_.key_source == KeySource::kPrimaryKey) sql += " ON CONFLICT DO NOTHING";
    run(conn_, sql);
    // Encode PostgreSQL's own text output of each row's key.
    std::string select = "SELECT rid";
    for (const auto& c : table_.key) select += ", \"" + c.name + "\"::text";
    auto r = run(conn_, select + " FROM " + qualified_table_name(table_));
    for (int i = 0; i < PQntuples(r.get()); ++i) {
      std::vector<std::optional<std::string_view>> values;
      for (size_t c = 0; c < columns_.size(); ++c) {
        if (PQgetisnull(r.get(), i, static_cast<int>(c) + 1)) {
          values.emplace_back();
        } else {
          values.emplace_back(PQgetvalue(r.get(), i, static_cast<int>(c) + 1));
        }
      }
      auto key = encode_key_text(table_.table_id, 1, columns_, values);
      ASSERT_TRUE(key.has_value()) << key.error().message;
      rows_.push_back(Row{std::stoi(PQgetvalue(r.get(), i, 0)), *key});
    }
    ASSERT_GT(rows_.size(), static_cast<size_t>(rows / 3));
  }

  // Bounds: table and index boundaries, row keys, prefixes of row keys, fresh keys.
  std::vector<std::string> split_keys() {
    const uint64_t id = table_.table_id;
    std::vector<std::string> keys = {std::string(kMinKey), std::string(kMaxKey),
                                     table_prefix(id),     table_prefix(id + 1),
                                     table_prefix(id - 1), index_prefix(id, 1),
                                     index_prefix(id, 2),  prefix_end(index_prefix(id, 1))};
    for (int i = 0; i < 25; ++i) keys.push_back(rows_[rng_() % rows_.size()].key);
    for (int i = 0; i < 25; ++i) {
      // A row's key cut after its first value(s).
      const std::string& key = rows_[rng_() % rows_.size()].key;
      std::string_view rest = key;
      auto h = read_key_header(rest);
      EXPECT_TRUE(h.has_value());
      rest = h->columns;
      const size_t keep = 1 + rng_() % columns_.size();
      for (size_t c = 0; c < keep; ++c) {
        auto v = read_key_value(rest, columns_[c]);
        EXPECT_TRUE(v.has_value());
      }
      keys.push_back(key.substr(0, key.size() - rest.size()));
    }
    for (int i = 0; i < 20; ++i) {
      std::vector<std::optional<std::string>> text;
      const size_t n = 1 + rng_() % columns_.size();
      for (size_t c = 0; c < n; ++c) text.push_back(random_column_value(c));
      std::vector<std::optional<std::string_view>> values(text.begin(), text.end());
      auto key = encode_key_text(id, 1, columns_, values);
      EXPECT_TRUE(key.has_value()) << key.error().message;
      if (key) keys.push_back(*key);
    }
    return keys;
  }

  // Checks `pairs` random ranges: the predicate selects exactly the rows with keys inside.
  void check(int pairs) {
    auto keys = split_keys();
    int nonempty = 0;
    for (int i = 0; i < pairs; ++i) {
      std::string start = keys[rng_() % keys.size()];
      std::string end = keys[rng_() % keys.size()];
      if (start > end && rng_() % 8 != 0) std::swap(start, end);
      auto pred = key_range_predicate(table_, start, end);
      ASSERT_TRUE(pred.has_value()) << pred.error().message;
      std::set<int> expected;
      for (const auto& row : rows_) {
        if (start <= row.key && row.key < end) expected.insert(row.rid);
      }
      auto r = run(conn_, "SELECT rid FROM " + qualified_table_name(table_) + " WHERE " + *pred);
      ASSERT_EQ(PQresultStatus(r.get()), PGRES_TUPLES_OK);
      std::set<int> got = int_set(r.get());
      if (got != expected) {
        std::vector<int> missing, extra;
        std::set_difference(expected.begin(), expected.end(), got.begin(), got.end(),
                            std::back_inserter(missing));
        std::set_difference(got.begin(), got.end(), expected.begin(), expected.end(),
                            std::back_inserter(extra));
        FAIL() << table_.name << ": [" << printable(start) << ", " << printable(end)
               << ") predicate " << *pred << ": " << missing.size() << " rows missing (first rid "
               << (missing.empty() ? -1 : missing[0]) << "), " << extra.size()
               << " rows extra (first rid " << (extra.empty() ? -1 : extra[0]) << ")";
      }
      if (!expected.empty() && expected.size() < rows_.size()) ++nonempty;
    }
    EXPECT_GT(nonempty, pairs / 4) << table_.name << ": too few ranges split the table";
  }

 private:
  PGconn* conn_;
  TableDescriptor table_;
  Rng& rng_;
  std::vector<KeyColumn> columns_;
  std::vector<Row> rows_;
};

TEST_F(RangeDataTest, PredicateSelectsExactlyTheRowsWhoseKeysAreInTheRange) {
  KeyColumn desc_nulls_last{KeyType::kInt4, true, NullsOrder::kLast};
  KeyColumn asc_nulls_first{KeyType::kFloat8, false, NullsOrder::kFirst};
  const std::vector<OracleTable> tables = {
      {"t_int8", "id int8", "PRIMARY KEY (id)", KeySource::kPrimaryKey, {{"id", {KeyType::kInt8}}}},
      {"t_text", "k text@", "PRIMARY KEY (k)", KeySource::kPrimaryKey, {{"k", {KeyType::kText}}}},
      {"t_comp",
       "a int4, b text@",
       "PRIMARY KEY (a, b)",
       KeySource::kPrimaryKey,
       {{"a", {KeyType::kInt4}}, {"b", {KeyType::kText}}}},
      {"t_desc",
       "d int8, s text@",
       "",
       KeySource::kConfig,
       {{"d", {KeyType::kInt8, true}}, {"s", {KeyType::kText}}}},
      {"t_nulls",
       "x int4, y float8",
       "",
       KeySource::kConfig,
       {{"x", desc_nulls_last}, {"y", asc_nulls_first}}},
      {"t_uuid", "u uuid", "PRIMARY KEY (u)", KeySource::kPrimaryKey, {{"u", {KeyType::kUuid}}}},
      {"t_float",
       "f float8, g float8",
       "",
       KeySource::kConfig,
       {{"f", {KeyType::kFloat8}}, {"g", {KeyType::kFloat8}}}},
      {"t_misc",
       "ts timestamptz, by bytea",
       "",
       KeySource::kConfig,
       {{"ts", {KeyType::kTimestamptz}}, {"by", {KeyType::kBytea, true}}}},
  };
  Conn conn = connect(source_->dsn());
  run(conn.get(), "CREATE SCHEMA oracle");
  // Text columns get a linguistic collation when the server has ICU, so the predicate's
  // COLLATE "C" matters (the test servers' default collation is C).
  const bool icu =
      PQntuples(run(conn.get(), "SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu'").get()) >
      0;
  Rng rng(20240601);
  uint64_t id = 200;
  for (const auto& spec : tables) {
    SCOPED_TRACE(spec.name);
    std::string columns = spec.columns;
    for (size_t at; (at = columns.find('@')) != std::string::npos;) {
      columns.replace(at, 1, icu ? " COLLATE \"und-x-icu\"" : "");
    }
    run(conn.get(), "CREATE TABLE oracle." + spec.name + " (rid int NOT NULL, " + columns +
                        (spec.constraint.empty() ? "" : ", " + spec.constraint) + ")");
    TableDescriptor t;
    t.table_id = id++;
    t.schema = "oracle";
    t.name = spec.name;
    t.key_source = spec.source;
    t.key = spec.key;
    PredicateOracle oracle(conn.get(), t, rng);
    oracle.load(300);
    if (HasFatalFailure()) return;
    oracle.check(80);
    if (HasFatalFailure()) return;
  }
}

// ---------------------------------------------------------------------------------------------
// Range statistics (range_copy_test moves ranges)

TableDescriptor move_table(const std::string& name) {
  TableDescriptor t;
  t.table_id = 300;
  t.schema = "public";
  t.name = name;
  t.key_source = KeySource::kPrimaryKey;
  t.key = {{"id", {KeyType::kInt8}}};
  return t;
}

std::string int_key(const TableDescriptor& t, int64_t v) {
  std::vector<KeyColumn> cols = {t.key[0].column};
  std::string text = std::to_string(v);
  std::vector<std::optional<std::string_view>> values = {text};
  return encode_key_text(t.table_id, 1, cols, values).value();
}

// Creates `name` on both shards (a generated column and a dropped one, so column lists matter)
// and fills the source with ids 1..rows.
void create_move_table(PgServer& source, PgServer& target, const std::string& name, int rows) {
  for (PgServer* s : {&source, &target}) {
    s->exec("CREATE TABLE " + name +
            " (id int8 PRIMARY KEY, gone int, v text, twice int8 GENERATED ALWAYS AS (id * 2) "
            "STORED); ALTER TABLE " +
            name + " DROP COLUMN gone");
  }
  source.exec("INSERT INTO " + name + " (id, v) SELECT i, 'value ' || i FROM generate_series(1, " +
              std::to_string(rows) + ") i");
}

TEST_F(RangeDataTest, RangeStatsCountTheRowsOfTheRange) {
  const auto t = move_table("stats");
  create_move_table(*source_, *target_, "stats", 200);
  auto part = range_stats(source_->dsn(), t, int_key(t, 50), int_key(t, 150));
  ASSERT_TRUE(part.has_value()) << part.error().message;
  EXPECT_EQ(part->row_count, 100);
  EXPECT_GT(part->bytes, 100 * 16);
  auto whole = range_stats(source_->dsn(), t, kMinKey, kMaxKey);
  ASSERT_TRUE(whole.has_value()) << whole.error().message;
  EXPECT_EQ(whole->row_count, 200);
  EXPECT_GT(whole->bytes, part->bytes);
  EXPECT_EQ(std::to_string(whole->bytes),
            source_->exec("SELECT sum(pg_column_size(s.*)) FROM stats s"));
  auto none = range_stats(source_->dsn(), t, table_prefix(301), kMaxKey);
  ASSERT_TRUE(none.has_value()) << none.error().message;
  EXPECT_EQ(none->row_count, 0);
  EXPECT_EQ(none->bytes, 0);
  auto on_target = range_stats(target_->dsn(), t, kMinKey, kMaxKey);
  ASSERT_TRUE(on_target.has_value());
  EXPECT_EQ(on_target->row_count, 0);

  auto missing = range_stats(source_->dsn(), move_table("no_such_table"), kMinKey, kMaxKey);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().sqlstate, "42P01");
  auto unreachable = range_stats("host=127.0.0.1 port=1 connect_timeout=5", t, kMinKey, kMaxKey);
  ASSERT_FALSE(unreachable.has_value());
  EXPECT_EQ(unreachable.error().sqlstate, "08006");
}

}  // namespace
}  // namespace pgrange::routing
