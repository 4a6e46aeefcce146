// PostgreSQL 15 as the oracle for CopyRowReader: tricky text, CSV and binary COPY data (escapes,
// quotes, NULLs, quoted line ends, \r\n files, end-of-data markers) is loaded into a real table
// with COPY … FROM STDIN, and the rows the reader splits it into must hold the values PostgreSQL
// stored, in order; malformed data (written by hand, and made by mutating good data) must fail
// in the reader with PostgreSQL's SQLSTATE, message, CONTEXT line and column.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <memory>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "sql/copy_rows.hpp"
#include "sql/copy_statement.hpp"
#include "tests/support/pg_server.hpp"

namespace pgrange::sql {
namespace {

using testing::PgServer;
using Fields = std::vector<std::optional<std::string>>;

struct PgResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResultPtr = std::unique_ptr<PGresult, PgResultDeleter>;

// What reading one COPY's data ended with: the rows, or the failure.
struct Outcome {
  bool ok = true;
  std::vector<Fields> rows;
  std::string sqlstate, message;
  uint64_t line = 0;
  std::string column;
  std::string context;  ///< the whole CONTEXT
};

std::ostream& operator<<(std::ostream& os, const Outcome& o) {
  if (!o.ok) {
    return os << "error " << o.sqlstate << " \"" << o.message << "\" line " << o.line << " column '"
              << o.column << "'";
  }
  return os << o.rows.size() << " rows";
}

std::vector<size_t> random_cuts(size_t size, std::mt19937_64& rng) {
  std::vector<size_t> cuts;
  size_t at = 0;
  while (size > 0 && at < size) {
    at += 1 + rng() % (rng() % 4 == 0 ? 8 : 200);
    if (at < size) cuts.push_back(at);
  }
  return cuts;
}

class CopyRowsOracleTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = PgServer::start().release();
    conn_ = PQconnectdb(server_->dsn().c_str());
    ASSERT_EQ(PQstatus(conn_), CONNECTION_OK) << PQerrorMessage(conn_);
    exec("CREATE TABLE o (rn bigserial, a text, b text, c text)");
  }
  static void TearDownTestSuite() {
    PQfinish(conn_);
    delete server_;
  }

  static PgResultPtr exec(const std::string& sql) {
    PgResultPtr r(PQexec(conn_, sql.c_str()));
    auto st = PQresultStatus(r.get());
    EXPECT_TRUE(st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
        << sql << ": " << PQerrorMessage(conn_);
    return r;
  }

  static std::string statement(const std::string& options) {
    return "COPY o (a, b, c) FROM STDIN " + options;
  }

  // COPY `data` into a fresh table through libpq, in random CopyData messages.
  static Outcome postgres(const std::string& options, const std::string& data,
                          std::mt19937_64& rng) {
    exec("TRUNCATE o RESTART IDENTITY");
    PgResultPtr copy(PQexec(conn_, statement(options).c_str()));
    EXPECT_EQ(PQresultStatus(copy.get()), PGRES_COPY_IN) << PQerrorMessage(conn_);
    size_t from = 0;
    for (size_t cut : random_cuts(data.size(), rng)) {
      PQputCopyData(conn_, data.data() + from, static_cast<int>(cut - from));
      from = cut;
    }
    if (from < data.size()) {
      PQputCopyData(conn_, data.data() + from, static_cast<int>(data.size() - from));
    }
    EXPECT_EQ(PQputCopyEnd(conn_, nullptr), 1);
    PgResultPtr r(PQgetResult(conn_));
    while (PGresult* more = PQgetResult(conn_)) PQclear(more);
    Outcome out;
    if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) {
      out.ok = false;
      auto field = [&](int code) {
        const char* v = PQresultErrorField(r.get(), code);
        return std::string(v != nullptr ? v : "");
      };
      out.sqlstate = field(PG_DIAG_SQLSTATE);
      out.message = field(PG_DIAG_MESSAGE_PRIMARY);
      static const std::regex kContext("^COPY o, line ([0-9]+)(, column ([a-z]+))?");
      std::smatch m;
      const std::string context = field(PG_DIAG_CONTEXT);
      out.context = context;
      if (std::regex_search(context, m, kContext)) {
        out.line = std::stoull(m[1]);
        out.column = m[3];
      }
      return out;
    }
    auto rows = exec("SELECT a, b, c FROM o ORDER BY rn");
    for (int i = 0; i < PQntuples(rows.get()); ++i) {
      Fields f;
      for (int j = 0; j < 3; ++j) {
        f.push_back(PQgetisnull(rows.get(), i, j)
                        ? std::nullopt
                        : std::optional<std::string>(PQgetvalue(rows.get(), i, j)));
      }
      out.rows.push_back(std::move(f));
    }
    return out;
  }

  // The same data through CopyRowReader, in other random chunks.
  static Outcome reader(const std::string& options, const std::string& data, std::mt19937_64& rng) {
    auto st = read_copy_statement(statement(options));
    EXPECT_TRUE(st.has_value()) << options;
    if (!st) return {};
    CopyRowReader r(st->options, {"a", "b", "c"}, {0, 1, 2});
    Outcome out;
    auto on_row = [&](const CopyRowReader::Row& row) {
      Fields f;
      for (const auto& v : row.fields) {
        f.push_back(v ? std::optional<std::string>(std::string(*v)) : std::nullopt);
      }
      out.rows.push_back(std::move(f));
    };
    std::optional<CopyRowReader::Failure> failure;
    size_t from = 0;
    for (size_t cut : random_cuts(data.size(), rng)) {
      if (!failure) failure = r.feed(std::string_view(data).substr(from, cut - from), on_row);
      from = cut;
    }
    if (!failure) failure = r.feed(std::string_view(data).substr(from), on_row);
    if (!failure) failure = r.finish(on_row);
    if (failure) {
      out.ok = false;
      out.rows.clear();
      out.sqlstate = failure->error.sqlstate;
      out.message = failure->error.message;
      out.line = failure->line;
      out.column = failure->column;
      out.context = failure->context("o");
    }
    return out;
  }

  // Both read `data` the same way.
  static void compare(const std::string& options, const std::string& data, std::mt19937_64& rng,
                      bool expect_ok) {
    const Outcome pg = postgres(options, data, rng);
    const Outcome ours = reader(options, data, rng);
    const std::string shown = data.size() > 600 ? data.substr(0, 600) + "…" : data;
    if (expect_ok) {
      ASSERT_TRUE(pg.ok) << pg << "\n" << options << "\n" << shown;
    }
    ASSERT_EQ(ours.ok, pg.ok) << "postgres: " << pg << "\nreader: " << ours << "\n"
                              << options << "\n"
                              << shown;
    if (pg.ok) {
      ASSERT_EQ(ours.rows.size(), pg.rows.size()) << options << "\n" << shown;
      for (size_t i = 0; i < pg.rows.size(); ++i) {
        ASSERT_EQ(ours.rows[i], pg.rows[i]) << "row " << i << "\n" << options << "\n" << shown;
      }
    } else {
      EXPECT_EQ(ours.sqlstate, pg.sqlstate) << options << "\n" << shown;
      EXPECT_EQ(ours.message, pg.message) << options << "\n" << shown;
      EXPECT_EQ(ours.line, pg.line) << pg.message << "\n" << options << "\n" << shown;
      EXPECT_EQ(ours.column, pg.column) << pg.message << "\n" << options << "\n" << shown;
      EXPECT_EQ(ours.context, pg.context) << pg.message << "\n" << options << "\n" << shown;
    }
  }

  static PgServer* server_;
  static PGconn* conn_;
};

PgServer* CopyRowsOracleTest::server_ = nullptr;
PGconn* CopyRowsOracleTest::conn_ = nullptr;

// Values made of pieces that matter to COPY. No digits but '1' and no hex letters after a
// backslash can arise, so that no escape (or mutation of one) makes a byte that is not UTF-8.
std::optional<std::string> random_value(std::mt19937_64& rng) {
  static const std::vector<std::string> kPieces = {"g",
                                                   "K",
                                                   "\xc3\xa9",
                                                   "\xe2\x82\xac",
                                                   "\xf0\x9f\x98\x80",
                                                   " ",
                                                   ",",
                                                   "\"",
                                                   "'",
                                                   "\\",
                                                   "\t",
                                                   "\n",
                                                   "\r",
                                                   ".",
                                                   "\\.",
                                                   "N",
                                                   "\\N",
                                                   "x1",
                                                   "|",
                                                   ";",
                                                   "NULL",
                                                   "h"};
  if (rng() % 8 == 0) return std::nullopt;
  std::string v;
  const int n = static_cast<int>(rng() % 7);
  for (int i = 0; i < n; ++i) v += kPieces[rng() % kPieces.size()];
  return v;
}

struct Format {
  std::string options;
  CopyFormat format = CopyFormat::kText;
  char delimiter = '\t';
  std::string null_string = "\\N";
  char quote = '"';
  char escape = '"';
  bool header = false;
};

std::string encode_text(const std::optional<std::string>& v, const Format& f,
                        std::mt19937_64& rng) {
  if (!v) return f.null_string;
  std::string out;
  for (char c : *v) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += rng() % 2 ? "\\n" : "\\12";
        break;
      case '\r':
        out += rng() % 2 ? "\\r" : "\\15";
        break;
      case '\t':
        out += rng() % 2 ? "\\t" : "\\x9";
        break;
      default:
        if (c == f.delimiter || (c == 'g' && rng() % 3 == 0)) out += '\\';
        out += c;
    }
  }
  // A value written like the NULL string must differ from it in the raw data.
  if (out == f.null_string) out = "\\" + out;
  return out;
}

std::string encode_csv(const std::optional<std::string>& v, const Format& f, std::mt19937_64& rng) {
  if (!v) return f.null_string;
  const bool quote =
      rng() % 4 == 0 || *v == f.null_string || v->rfind("\\.", 0) == 0 ||
      v->find_first_of(std::string{f.delimiter, f.quote, '\r', '\n'}) != std::string::npos;
  if (!quote) return *v;
  std::string out(1, f.quote);
  for (char c : *v) {
    if (c == f.quote || c == f.escape) out += f.escape;
    out += c;
  }
  out += f.quote;
  return out;
}

std::string be16(int v) {
  return {static_cast<char>((v >> 8) & 0xff), static_cast<char>(v & 0xff)};
}
std::string be32(int64_t v) {
  return {static_cast<char>((v >> 24) & 0xff), static_cast<char>((v >> 16) & 0xff),
          static_cast<char>((v >> 8) & 0xff), static_cast<char>(v & 0xff)};
}
const std::string kBinaryHeader = std::string("PGCOPY\n\377\r\n\0", 11) + be32(0) + be32(0);

// A file of `rows` random rows in format `f`, ended in one of the ways PostgreSQL accepts.
std::string random_file(const Format& f, int rows, std::mt19937_64& rng) {
  std::string data;
  if (f.format == CopyFormat::kBinary) {
    data = kBinaryHeader;
    for (int i = 0; i < rows; ++i) {
      data += be16(3);
      for (int j = 0; j < 3; ++j) {
        auto v = random_value(rng);
        data += v ? be32(static_cast<int64_t>(v->size())) + *v : be32(-1);
      }
    }
    if (rng() % 2) data += be16(-1);
    return data;
  }
  const std::string eol = rng() % 3 == 0 ? "\r\n" : "\n";
  if (f.header) data += std::string("a") + f.delimiter + "b" + f.delimiter + "c" + eol;
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < 3; ++j) {
      if (j > 0) data += f.delimiter;
      auto v = random_value(rng);
      data += f.format == CopyFormat::kCsv ? encode_csv(v, f, rng) : encode_text(v, f, rng);
    }
    data += eol;
  }
  switch (rng() % 3) {
    case 0:
      data += "\\." + eol + "ignored" + eol;
      break;
    case 1:
      if (rows > 0) data.resize(data.size() - eol.size());
      break;
    default:
      break;
  }
  return data;
}

std::vector<Format> formats() {
  std::vector<Format> out;
  out.push_back(Format{});
  Format f;
  f.options = "(DELIMITER '|', NULL 'NULL', HEADER)";
  f.delimiter = '|';
  f.null_string = "NULL";
  f.header = true;
  out.push_back(f);
  f = Format{};
  f.options = "(FORMAT csv)";
  f.format = CopyFormat::kCsv;
  f.delimiter = ',';
  f.null_string = "";
  out.push_back(f);
  f.options = "(FORMAT csv, HEADER MATCH, DELIMITER ';', NULL 'NULL', FORCE_NULL (b))";
  f.delimiter = ';';
  f.null_string = "NULL";
  f.header = true;
  out.push_back(f);
  f = out[2];
  f.options = "(FORMAT csv, QUOTE '''', ESCAPE '\\', FORCE_NOT_NULL (a, c))";
  f.quote = '\'';
  f.escape = '\\';
  out.push_back(f);
  f = Format{};
  f.options = "(FORMAT binary)";
  f.format = CopyFormat::kBinary;
  out.push_back(f);
  return out;
}

TEST_F(CopyRowsOracleTest, RowsAndValuesAsPostgresStoresThem) {
  std::mt19937_64 rng(20240615);
  for (const Format& f : formats()) {
    for (int round = 0; round < 6; ++round) {
      SCOPED_TRACE(f.options + " round " + std::to_string(round));
      compare(f.options, random_file(f, round == 0 ? 0 : 300, rng), rng, true);
    }
  }
}

TEST_F(CopyRowsOracleTest, MalformedDataFailsAsInPostgres) {
  const std::string bin = kBinaryHeader;
  const std::string tuple = be16(3) + be32(1) + "1" + be32(-1) + be32(2) + "xy";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "1\t2\t3\n1\t2\n"},
      {"", "1\t2\t3\t4\n"},
      {"", "\n"},
      {"", "1\t2\t3\r\n4\t5\t6\n"},
      {"", "1\t2\t3\r4\t5\t6\n"},
      {"", "1\t2\t3\n4\t5\t6\r"},
      {"", "1\t2\t3\r\n4\t5\t6\r7\r\n"},
      {"", "1\t2\t3\r\n4\t5\t6\r"},
      {"", "1\t2\t3\n\\.x\n"},
      {"", "1\t2\t3\n\\."},
      {"", "1\t2\t3\\.\n"},
      {"", "1\t2\t3\r\n\\.\n"},
      {"", "1\t2\t3\n\\.\r"},
      {"", "a\\\nb\tc\n"},
      {"", "a\\"},
      {"(HEADER MATCH)", "a\tx\tc\n"},
      {"(HEADER MATCH)", "a\t\\N\tc\n"},
      {"(HEADER MATCH)", "a\tb\n"},
      {"(HEADER MATCH)", ""},
      {"(HEADER MATCH)", "\\a\tb\tc\n1\t2\t3\n"},
      {"(FORMAT csv)", "1,\"x\ny\",z\n2,\"p\nq\nr\",s\n3\n"},
      {"(FORMAT csv)", "1,\"x\r\ny\",z\r\n2,\"\r\n\",s\r\n3\r\n"},
      {"(FORMAT csv)", "1,\"x\ry\",z\r2,\"\r\",s\r3\r"},
      {"(FORMAT csv)", "0,0,0\n1,\"x\ny\nz"},
      {"(FORMAT csv)", "a,b,c\nd,e\rf\n"},
      {"(FORMAT csv)", "a,b,c\r\nd,e\nf\r\n"},
      {"(FORMAT csv)", "a,b,c\r\n\\.\ny\r\n"},
      {"(FORMAT csv)", "a,b,c\n\\.\r\n"},
      {"(FORMAT csv)", "a,b,c\n\\.x,y,z\n\\."},
      {"(FORMAT csv)", "a,b,\"c\"d\"\n"},
      {"(FORMAT csv, ESCAPE '\\')", "a,\"b\\\"\",\"c\\\\\"\n1,2\n"},
      {"(FORMAT csv, HEADER MATCH)", "a,,c\n"},
      {"(FORMAT binary)", ""},
      {"(FORMAT binary)", "1\t2\t3\n"},
      {"(FORMAT binary)", bin.substr(0, 13)},
      {"(FORMAT binary)", bin.substr(0, 11) + be32(1 << 16) + be32(0)},
      {"(FORMAT binary)", bin.substr(0, 11) + be32(1 << 17) + be32(0)},
      {"(FORMAT binary)", bin.substr(0, 17)},
      {"(FORMAT binary)", bin.substr(0, 15) + be32(-2)},
      {"(FORMAT binary)", bin.substr(0, 15) + be32(5) + "abc"},
      {"(FORMAT binary)", bin + tuple + be16(1) + be32(1) + "1"},
      {"(FORMAT binary)", bin + be16(-2)},
      {"(FORMAT binary)", bin + tuple + be16(3) + be32(1) + "1" + be32(-2)},
      {"(FORMAT binary)", bin + tuple + be16(3) + be32(1) + "1" + be32(5) + "ab"},
      {"(FORMAT binary)", bin + be16(3) + be32(1) + "1" + be32(1) + "2" + "\0\0"},
      {"(FORMAT binary)", bin + tuple + "\0"},
      {"(FORMAT binary)", bin + tuple + be16(-1) + "x"},
  };
  std::mt19937_64 rng(7);
  for (const auto& [options, data] : cases) {
    SCOPED_TRACE(options + " " + data);
    compare(options, data, rng, false);
  }
}

// Good files broken in random places with the bytes COPY's syntax is made of.
TEST_F(CopyRowsOracleTest, MutatedDataReadsAsInPostgres) {
  std::mt19937_64 rng(99);
  std::vector<Format> text_formats;
  for (const Format& f : formats()) {
    if (f.format != CopyFormat::kBinary) text_formats.push_back(f);
  }
  for (int round = 0; round < 400; ++round) {
    const Format& f = text_formats[rng() % text_formats.size()];
    std::string data = random_file(f, 1 + static_cast<int>(rng() % 6), rng);
    const int mutations = 1 + static_cast<int>(rng() % 3);
    for (int m = 0; m < mutations && !data.empty(); ++m) {
      // A position between characters, so the data stays UTF-8.
      size_t at = rng() % (data.size() + 1);
      while (at < data.size() && (static_cast<unsigned char>(data[at]) & 0xc0) == 0x80) ++at;
      switch (rng() % 4) {
        case 0: {
          static const std::string kInserted = "\r\n\t,;|\"'.";
          data.insert(at, 1, kInserted[rng() % kInserted.size()]);
          break;
        }
        case 1:
          if (at < data.size() &&
              std::string_view("\r\n\t,;|\"'\\.").find(data[at]) != std::string_view::npos) {
            data.erase(at, 1);
          }
          break;
        case 2:
          if (at < data.size() &&
              std::string_view("\r\n\t.N\"").find(data[at]) != std::string_view::npos) {
            data.insert(at, 1, '\\');
          }
          break;
        default:
          data.resize(at);
      }
    }
    SCOPED_TRACE(f.options + " round " + std::to_string(round));
    compare(f.options, data, rng, false);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace pgrange::sql
