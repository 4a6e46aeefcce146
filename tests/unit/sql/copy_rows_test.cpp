#include "sql/copy_rows.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pgrange::sql {
namespace {

using Fields = std::vector<std::optional<std::string>>;

struct ReadRow {
  std::string raw;
  uint64_t line = 0;
  Fields fields;
  bool operator==(const ReadRow&) const = default;
};

struct ReadAll {
  std::vector<ReadRow> rows;
  bool failed = false;
  std::string sqlstate, message, hint;
  uint64_t line = 0;
  std::string column;
  std::string header;
  bool ended = false;
  bool operator==(const ReadAll&) const = default;
};

std::ostream& operator<<(std::ostream& os, const ReadAll& r) {
  for (const auto& row : r.rows) {
    os << "[line " << row.line << " raw '" << row.raw << "'";
    for (const auto& f : row.fields) os << " " << (f ? "'" + *f + "'" : "NULL");
    os << "] ";
  }
  if (r.failed)
    os << "FAIL " << r.sqlstate << " " << r.message << " line " << r.line << " col " << r.column;
  return os;
}

struct Layout {
  CopyOptions options;
  std::vector<std::string> columns = {"a", "b", "c"};
  std::vector<size_t> wanted = {0, 1, 2};
};

CopyOptions csv() {
  CopyOptions o;
  o.format = CopyFormat::kCsv;
  o.delimiter = ',';
  o.null_string = "";
  return o;
}

// Reads `input` cut at the given positions.
ReadAll read_cut(const Layout& s, std::string_view input, const std::vector<size_t>& cuts) {
  CopyRowReader reader(s.options, s.columns, s.wanted);
  ReadAll out;
  auto on_row = [&](const CopyRowReader::Row& row) {
    EXPECT_TRUE(reader.header_ready());
    ReadRow r{std::string(row.raw), row.line, {}};
    for (const auto& f : row.fields) {
      r.fields.push_back(f ? std::optional<std::string>(std::string(*f)) : std::nullopt);
    }
    out.rows.push_back(std::move(r));
  };
  std::optional<CopyRowReader::Failure> failure;
  size_t from = 0;
  for (size_t cut : cuts) {
    if (!failure) failure = reader.feed(input.substr(from, cut - from), on_row);
    from = cut;
  }
  if (!failure) failure = reader.feed(input.substr(from), on_row);
  if (!failure) failure = reader.finish(on_row);
  if (failure) {
    out.failed = true;
    out.sqlstate = failure->error.sqlstate;
    out.message = failure->error.message;
    out.hint = failure->error.hint;
    out.line = failure->line;
    out.column = failure->column;
  }
  out.header = std::string(reader.header());
  out.ended = reader.ended();
  EXPECT_EQ(reader.rows(), out.rows.size());
  return out;
}

// Reads `input` whole, cut at every byte position and one byte at a time; all must agree.
ReadAll read(const Layout& s, std::string_view input) {
  ReadAll whole = read_cut(s, input, {});
  for (size_t i = 0; i <= input.size(); ++i) {
    EXPECT_EQ(read_cut(s, input, {i}), whole) << "cut at " << i;
    for (size_t j = i; j <= input.size(); j += 7) {
      EXPECT_EQ(read_cut(s, input, {i, j}), whole) << "cut at " << i << " and " << j;
    }
  }
  std::vector<size_t> bytes;
  for (size_t i = 1; i < input.size(); ++i) bytes.push_back(i);
  EXPECT_EQ(read_cut(s, input, bytes), whole) << "byte by byte";
  return whole;
}

void expect_failure(const ReadAll& r, std::string_view message, uint64_t line,
                    std::string_view column = "") {
  EXPECT_TRUE(r.failed) << r;
  EXPECT_EQ(r.message, message) << r;
  EXPECT_EQ(r.line, line) << r;
  EXPECT_EQ(r.column, column) << r;
}

TEST(CopyRowsText, FieldsNullsAndLineNumbers) {
  Layout s;
  ReadAll r = read(s, "1\tab\t\\N\n2\tc\\td\tx\n");
  ASSERT_FALSE(r.failed) << r;
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[0], (ReadRow{"1\tab\t\\N\n", 1, {"1", "ab", std::nullopt}}));
  EXPECT_EQ(r.rows[1], (ReadRow{"2\tc\\td\tx\n", 2, {"2", "c\td", "x"}}));
  EXPECT_FALSE(r.ended);
  EXPECT_EQ(r.header, "");

  // Only the wanted fields, in the order asked.
  s.wanted = {2, 0};
  r = read(s, "1\tb\tc\n");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].fields, (Fields{"c", "1"}));
}

TEST(CopyRowsText, Escapes) {
  Layout s;
  s.columns = {"a"};
  s.wanted = {0};
  ReadAll r = read(s, "\\b\\f\\n\\r\\t\\v|\\101\\1012\\7|\\x41\\x4g\\xg|\\q\\\\x\n");
  ASSERT_EQ(r.rows.size(), 1u) << r;
  EXPECT_EQ(r.rows[0].fields[0], "\b\f\n\r\t\v|AA2\a|A\x04gxg|q\\x");
  // The NULL string is matched on the raw field: an escaped \N is the text \N.
  r = read(s, "\\N\n\\\\N\n\\N \n");
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[0].fields[0], std::nullopt);
  EXPECT_EQ(r.rows[1].fields[0], "\\N");
  EXPECT_EQ(r.rows[2].fields[0], "N ");
  s.options.null_string = "NULL";
  r = read(s, "NULL\nNU\\LL\n\n");
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[0].fields[0], std::nullopt);
  EXPECT_EQ(r.rows[1].fields[0], "NULL");
  EXPECT_EQ(r.rows[2].fields[0], "");
  // A backslash before a line end makes it data; a last backslash at the end of data is dropped.
  s.options.null_string = "\\N";
  r = read(s, "a\\\nb\nc\\");
  ASSERT_EQ(r.rows.size(), 2u) << r;
  EXPECT_EQ(r.rows[0], (ReadRow{"a\\\nb\n", 1, {"a\nb"}}));
  EXPECT_EQ(r.rows[1], (ReadRow{"c\\", 2, {"c"}}));
}

TEST(CopyRowsText, HexEscapeHidesADelimiter) {
  Layout s;
  s.columns = {"a", "b"};
  s.wanted = {0, 1};
  s.options.delimiter = 'A';
  ReadAll r = read(s, "x\\x4AAy\n");
  ASSERT_EQ(r.rows.size(), 1u) << r;
  EXPECT_EQ(r.rows[0].fields, (Fields{"xJ", "y"}));
}

TEST(CopyRowsText, EndOfDataMarker) {
  Layout s;
  ReadAll r = read(s, "1\t2\t3\n\\.\nignored\tgarbage\n");
  ASSERT_FALSE(r.failed) << r;
  EXPECT_EQ(r.rows.size(), 1u);
  EXPECT_TRUE(r.ended);
  // In text format the marker ends the data after a row's fields too.
  r = read(s, "1\t2\t3\\.\nx\n");
  ASSERT_EQ(r.rows.size(), 1u) << r;
  EXPECT_EQ(r.rows[0], (ReadRow{"1\t2\t3", 1, {"1", "2", "3"}}));
  EXPECT_TRUE(r.ended);
  r = read(s, "1\t2\t3\r\n\\.\r\nx");
  EXPECT_EQ(r.rows.size(), 1u);
  EXPECT_TRUE(r.ended);
  EXPECT_FALSE(r.failed);
  // An escaped backslash before a dot is data.
  s.columns = {"a"};
  s.wanted = {0};
  r = read(s, "\\\\.\n");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].fields[0], "\\.");
  expect_failure(read(s, "1\n\\.x\n"), "end-of-copy marker corrupt", 2);
  expect_failure(read(s, "1\n\\."), "end-of-copy marker corrupt", 2);
  expect_failure(read(s, "1\r\n\\.\n"), "end-of-copy marker does not match previous newline style",
                 2);
  expect_failure(read(s, "1\n\\.\r"), "end-of-copy marker does not match previous newline style",
                 2);
  expect_failure(read(s, "1\r\n\\.x"), "end-of-copy marker corrupt", 2);
}

TEST(CopyRowsText, LineEnds) {
  Layout s;
  s.columns = {"a"};
  s.wanted = {0};
  ReadAll r = read(s, "x\r\ny\r\n");
  ASSERT_EQ(r.rows.size(), 2u) << r;
  EXPECT_EQ(r.rows[1], (ReadRow{"y\r\n", 2, {"y"}}));
  r = read(s, "x\ry\r");
  ASSERT_EQ(r.rows.size(), 2u) << r;
  EXPECT_EQ(r.rows[1], (ReadRow{"y\r", 2, {"y"}}));
  r = read(s, "x\n\ny");
  ASSERT_EQ(r.rows.size(), 3u) << r;
  EXPECT_EQ(r.rows[1], (ReadRow{"\n", 2, {""}}));
  EXPECT_EQ(r.rows[2], (ReadRow{"y", 3, {"y"}}));

  r = read(s, "x\r\ny\nz\n");
  expect_failure(r, "literal newline found in data", 2);
  EXPECT_EQ(r.hint, "Use \"\\n\" to represent newline.");
  EXPECT_EQ(r.rows.size(), 1u);
  expect_failure(read(s, "x\ry\n"), "literal newline found in data", 2);
  r = read(s, "x\ny\rz\n");
  expect_failure(r, "literal carriage return found in data", 2);
  EXPECT_EQ(r.hint, "Use \"\\r\" to represent carriage return.");
  expect_failure(read(s, "x\r\ny\rz\r\n"), "literal carriage return found in data", 2);
  // A last carriage return of a \r\n file with nothing after it.
  expect_failure(read(s, "x\r\ny\r"), "literal carriage return found in data", 2);
}

TEST(CopyRowsText, FieldCounts) {
  Layout s;
  ReadAll r = read(s, "1\t2\t3\n1\t2\n");
  expect_failure(r, "missing data for column \"c\"", 2);
  EXPECT_EQ(r.sqlstate, "22P04");
  EXPECT_EQ(r.rows.size(), 1u);
  expect_failure(read(s, "1\t2\t3\t4\n"), "extra data after last expected column", 1);
  expect_failure(read(s, "\n"), "missing data for column \"b\"", 1);
  expect_failure(read(s, "1\t2\t3\n\n"), "missing data for column \"b\"", 2);
  // A wanted subset still checks every field.
  s.wanted = {0};
  expect_failure(read(s, "1\t2\n"), "missing data for column \"c\"", 1);
  // No columns: only empty lines.
  s.columns = {};
  s.wanted = {};
  r = read(s, "\n\n");
  EXPECT_EQ(r.rows.size(), 2u);
  expect_failure(read(s, "\nx\n"), "extra data after last expected column", 2);
}

TEST(CopyRowsText, Header) {
  Layout s;
  s.options.header = true;
  ReadAll r = read(s, "a\tb\tc\n1\t2\t3\n");
  ASSERT_FALSE(r.failed) << r;
  EXPECT_EQ(r.header, "a\tb\tc\n");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].line, 2u);
  r = read(s, "whatever\n");
  EXPECT_EQ(r.header, "whatever\n");
  EXPECT_TRUE(r.rows.empty());
  r = read(s, "");
  EXPECT_FALSE(r.failed);

  s.options.header_match = true;
  r = read(s, "a\tb\tc\r\n1\t2\t3\r\n");
  EXPECT_FALSE(r.failed) << r;
  EXPECT_EQ(r.rows.size(), 1u);
  expect_failure(read(s, "a\tx\tc\n"),
                 "column name mismatch in header line field 2: got \"x\", expected \"b\"", 1);
  expect_failure(read(s, "a\t\\N\tc\n"),
                 "column name mismatch in header line field 2: got null value (\"\\N\"), "
                 "expected \"b\"",
                 1);
  expect_failure(read(s, "a\tb\n"), "wrong number of fields in header line: got 2, expected 3", 1);
  // PostgreSQL checks the header line even when the data is empty.
  expect_failure(read(s, ""), "wrong number of fields in header line: got 1, expected 3", 1);
  // Names are de-escaped first.
  EXPECT_FALSE(read(s, "\\a\tb\tc\n").failed);
}

TEST(CopyRowsCsv, QuotingAndNulls) {
  Layout s;
  s.options = csv();
  ReadAll r = read(s, "1,\"a,b\",\"\"\n2,,x\n\"3\"\"\",\"\"\"\",\"a\"b\"c\"\n");
  ASSERT_FALSE(r.failed) << r;
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[0].fields, (Fields{"1", "a,b", ""}));
  EXPECT_EQ(r.rows[1].fields, (Fields{"2", std::nullopt, "x"}));
  EXPECT_EQ(r.rows[2].fields, (Fields{"3\"", "\"", "abc"}));

  s.options.null_string = "NA";
  r = read(s, "NA,\"NA\",NA \n");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].fields, (Fields{std::nullopt, "NA", "NA "}));
}

TEST(CopyRowsCsv, CustomQuoteAndEscape) {
  Layout s;
  s.options = csv();
  s.options.escape = '\\';
  ReadAll r = read(s, "\"a\\\"b\\\\c\\d\",\"x\"\"\",e\\\n");
  ASSERT_EQ(r.rows.size(), 1u) << r;
  // Outside quotes the escape is data; a doubled quote with another escape closes and reopens.
  EXPECT_EQ(r.rows[0].fields, (Fields{"a\"b\\c\\d", "x", "e\\"}));
  s.options.quote = '\'';
  s.options.escape = '\'';
  s.options.delimiter = ';';
  r = read(s, "'a;b';'it''s';\"\n");
  ASSERT_EQ(r.rows.size(), 1u) << r;
  EXPECT_EQ(r.rows[0].fields, (Fields{"a;b", "it's", "\""}));
}

TEST(CopyRowsCsv, QuotedLineEnds) {
  Layout s;
  s.options = csv();
  // PostgreSQL numbers a row by its last line, but on the first line counts only quoted '\r's.
  ReadAll r = read(s, "1,\"x\ny\",z\n2,\"p\nq\nr\",s\n3,b,c\n");
  ASSERT_FALSE(r.failed) << r;
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[0], (ReadRow{"1,\"x\ny\",z\n", 1, {"1", "x\ny", "z"}}));
  EXPECT_EQ(r.rows[1], (ReadRow{"2,\"p\nq\nr\",s\n", 4, {"2", "p\nq\nr", "s"}}));
  EXPECT_EQ(r.rows[2].line, 5u);
  r = read(s, "1,\"x\r\ny\",z\r\n2,\"\r\n\",s\r\n");
  ASSERT_FALSE(r.failed) << r;
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[0].fields[1], "x\r\ny");
  EXPECT_EQ(r.rows[0].line, 2u);
  EXPECT_EQ(r.rows[1].line, 4u);
  r = read(s, "1,\"x\ny");
  expect_failure(r, "unterminated CSV quoted field", 1);
  r = read(s, "0,0,0\n1,\"x\ny\nz");
  expect_failure(r, "unterminated CSV quoted field", 4);
  r = read(s, "a,b,c\nd,e\rf\n");
  expect_failure(r, "unquoted carriage return found in data", 2);
  EXPECT_EQ(r.hint, "Use quoted CSV field to represent carriage return.");
  r = read(s, "a,b,c\r\nd,e\nf\r\n");
  expect_failure(r, "unquoted newline found in data", 2);
  EXPECT_EQ(r.hint, "Use quoted CSV field to represent newline.");
}

TEST(CopyRowsCsv, EndOfDataMarker) {
  Layout s;
  s.options = csv();
  s.columns = {"a"};
  s.wanted = {0};
  ReadAll r = read(s, "x\n\\.\ny\n");
  EXPECT_EQ(r.rows.size(), 1u);
  EXPECT_TRUE(r.ended);
  // Quoted, after other data or followed by more, "\." is a value.
  r = read(s, "\"\\.\"\n\\.x\na\\.\n\\.\n");
  ASSERT_EQ(r.rows.size(), 3u) << r;
  EXPECT_EQ(r.rows[0].fields[0], "\\.");
  EXPECT_EQ(r.rows[1].fields[0], "\\.x");
  EXPECT_EQ(r.rows[2].fields[0], "a\\.");
  EXPECT_TRUE(r.ended);
  // At the end of the data without a line end.
  r = read(s, "x\n\\.");
  ASSERT_EQ(r.rows.size(), 2u) << r;
  EXPECT_EQ(r.rows[1].fields[0], "\\.");
  expect_failure(read(s, "x\n\\.\r\n"), "end-of-copy marker does not match previous newline style",
                 2);
  // With \r\n line ends, "\.\n" is data, and its \n a line end of the wrong style.
  expect_failure(read(s, "x\r\n\\.\ny\r\n"), "unquoted newline found in data", 2);
}

TEST(CopyRowsCsv, ForceNullAndForceNotNull) {
  Layout s;
  s.options = csv();
  s.options.force_not_null = {"b"};
  s.options.force_null = {"c"};
  ReadAll r = read(s, "1,,\n2,\"\",\"\"\n");
  ASSERT_EQ(r.rows.size(), 2u) << r;
  EXPECT_EQ(r.rows[0].fields, (Fields{"1", "", std::nullopt}));
  EXPECT_EQ(r.rows[1].fields, (Fields{"2", "", std::nullopt}));
  s.options.force_null = {"b"};
  s.options.force_not_null = {};
  r = read(s, "1,\"\",x\n");
  EXPECT_EQ(r.rows[0].fields, (Fields{"1", std::nullopt, "x"}));

  EXPECT_FALSE(CopyRowReader::check_columns(s.options, s.columns));
  auto e = CopyRowReader::check_columns(s.options, {"a"});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->sqlstate, "42P10");
  EXPECT_EQ(e->message, "FORCE_NULL column \"b\" not referenced by COPY");
}

TEST(CopyRowsCsv, Header) {
  Layout s;
  s.options = csv();
  s.options.header = true;
  s.options.header_match = true;
  ReadAll r = read(s, "a,\"b\",c\n1,2,3\n");
  EXPECT_FALSE(r.failed) << r;
  EXPECT_EQ(r.header, "a,\"b\",c\n");
  EXPECT_EQ(r.rows.size(), 1u);
  expect_failure(read(s, "a,,c\n"),
                 "column name mismatch in header line field 2: got null value (\"\"), expected "
                 "\"b\"",
                 1);
}

// The binary COPY format (PostgreSQL documentation, COPY, Binary Format).
std::string be16(int v) {
  return {static_cast<char>((v >> 8) & 0xff), static_cast<char>(v & 0xff)};
}
std::string be32(int64_t v) {
  return {static_cast<char>((v >> 24) & 0xff), static_cast<char>((v >> 16) & 0xff),
          static_cast<char>((v >> 8) & 0xff), static_cast<char>(v & 0xff)};
}
std::string binary_header(uint32_t flags = 0, const std::string& ext = "") {
  return std::string("PGCOPY\n\377\r\n\0", 11) + be32(flags) +
         be32(static_cast<int64_t>(ext.size())) + ext;
}
std::string tuple(const std::vector<std::optional<std::string>>& fields) {
  std::string t = be16(static_cast<int>(fields.size()));
  for (const auto& f : fields) {
    t += f ? be32(static_cast<int64_t>(f->size())) + *f : be32(-1);
  }
  return t;
}

TEST(CopyRowsBinary, TuplesAndTrailer) {
  Layout s;
  s.options.format = CopyFormat::kBinary;
  const std::string t1 = tuple({std::string("\0\0\0\1", 4), std::nullopt, std::string("")});
  const std::string t2 = tuple({std::string("xy"), std::string("\n\r"), std::string("z")});
  ReadAll r = read(s, binary_header(0, "ext") + t1 + t2 + be16(-1));
  ASSERT_FALSE(r.failed) << r;
  EXPECT_EQ(r.header, binary_header(0, "ext"));
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[0], (ReadRow{t1, 1, {std::string("\0\0\0\1", 4), std::nullopt, ""}}));
  EXPECT_EQ(r.rows[1], (ReadRow{t2, 2, {"xy", "\n\r", "z"}}));
  EXPECT_TRUE(r.ended);
  // Without a trailer, and with a tuple's field count cut short, the data just ends.
  r = read(s, binary_header() + t1 + std::string(1, '\0'));
  EXPECT_FALSE(r.failed);
  EXPECT_EQ(r.rows.size(), 1u);
  s.wanted = {1};
  r = read(s, binary_header() + t2);
  EXPECT_EQ(r.rows[0].fields, (Fields{"\n\r"}));
}

TEST(CopyRowsBinary, Errors) {
  Layout s;
  s.options.format = CopyFormat::kBinary;
  const std::string t = tuple({std::string("1"), std::string("2"), std::string("3")});
  expect_failure(read(s, ""), "COPY file signature not recognized", 0);
  expect_failure(read(s, "PGCOPY\n\377\r\n"), "COPY file signature not recognized", 0);
  expect_failure(read(s, "1\t2\t3\n"), "COPY file signature not recognized", 0);
  expect_failure(read(s, std::string("PGCOPY\n\377\r\n\0\0\0", 13)),
                 "invalid COPY file header (missing flags)", 0);
  expect_failure(read(s, binary_header(1u << 16)), "invalid COPY file header (WITH OIDS)", 0);
  expect_failure(read(s, binary_header(1u << 17)),
                 "unrecognized critical flags in COPY file header", 0);
  EXPECT_FALSE(read(s, binary_header(1)).failed);
  expect_failure(read(s, binary_header().substr(0, 17)),
                 "invalid COPY file header (missing length)", 0);
  expect_failure(read(s, binary_header().substr(0, 15) + be32(-2)),
                 "invalid COPY file header (missing length)", 0);
  expect_failure(read(s, binary_header().substr(0, 15) + be32(5) + "abc"),
                 "invalid COPY file header (wrong length)", 0);
  ReadAll r = read(s, binary_header() + t + tuple({std::string("1")}));
  expect_failure(r, "row field count is 1, expected 3", 2);
  EXPECT_EQ(r.rows.size(), 1u);
  expect_failure(read(s, binary_header() + be16(-2)), "row field count is -2, expected 3", 1);
  expect_failure(read(s, binary_header() + t + be16(3) + be32(1) + "1" + be32(-2)),
                 "invalid field size", 2, "b");
  expect_failure(read(s, binary_header() + be16(3) + be32(1) + "1" + be32(5) + "ab"),
                 "unexpected EOF in COPY data", 1, "b");
  expect_failure(read(s, binary_header() + be16(3) + be32(1) + "1" + be32(1) + "2" + "\0\0"),
                 "unexpected EOF in COPY data", 1, "c");
  r = read(s, binary_header() + be16(3) + be32(0x3fffffff));
  expect_failure(r, "out of memory", 1, "a");
  EXPECT_EQ(r.sqlstate, "54000");
  r = read(s, binary_header() + t + be16(-1) + "x");
  expect_failure(r, "received copy data after EOF marker", 2);
  EXPECT_EQ(r.rows.size(), 1u);
}

TEST(CopyRows, RowsAreViewsIntoTheChunk) {
  Layout s;
  const std::string data = "1\t2\t3\n4\t5\t6\n7\t8\t";
  CopyRowReader reader(s.options, s.columns, s.wanted);
  std::vector<const char*> at;
  ASSERT_FALSE(reader.feed(data, [&](const CopyRowReader::Row& r) { at.push_back(r.raw.data()); }));
  ASSERT_EQ(at.size(), 2u);
  EXPECT_EQ(at[0], data.data());
  EXPECT_EQ(at[1], data.data() + 6);
  ASSERT_FALSE(reader.feed("9\n1\t2\t3\n", [&](const CopyRowReader::Row& r) {
    at.push_back(r.raw.data());
    EXPECT_EQ(r.fields[0].value(), at.size() == 3 ? "7" : "1");
  }));
  EXPECT_EQ(at.size(), 4u);
  EXPECT_EQ(reader.rows(), 4u);
}

TEST(CopyRows, AMillionRows) {
  Layout s;
  s.wanted = {0};
  std::string chunk;
  for (int i = 0; i < 10000; ++i) {
    chunk += std::to_string(i) + "\tsome text value " + std::to_string(i) + "\t\\N\n";
  }
  CopyRowReader reader(s.options, s.columns, s.wanted);
  uint64_t sum = 0;
  auto on_row = [&](const CopyRowReader::Row& r) { sum += r.fields[0]->size(); };
  // 100 times the chunk, cut into uneven CopyData messages.
  for (int round = 0; round < 100; ++round) {
    for (size_t from = 0; from < chunk.size(); from += 65519) {
      ASSERT_FALSE(reader.feed(std::string_view(chunk).substr(from, 65519), on_row));
    }
  }
  ASSERT_FALSE(reader.finish(on_row));
  EXPECT_EQ(reader.rows(), 1000000u);
  EXPECT_GT(sum, 0u);
}

}  // namespace
}  // namespace pgrange::sql
