#include "sql/copy_statement.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pgrange::sql {
namespace {

CopyStatement read_ok(std::string_view sql) {
  auto r = read_copy_statement(sql);
  EXPECT_TRUE(r.has_value()) << sql << ": " << (r ? "" : r.error().message);
  return r ? *r : CopyStatement{};
}

// The SQLSTATE and message of a statement PostgreSQL 15 refuses.
void expect_error(std::string_view sql, std::string_view sqlstate, std::string_view message) {
  auto r = read_copy_statement(sql);
  ASSERT_FALSE(r.has_value()) << sql;
  EXPECT_EQ(r.error().sqlstate, sqlstate) << sql;
  EXPECT_EQ(r.error().message, message) << sql;
}

TEST(CopyStatement, DefaultsOfEachFormat) {
  CopyStatement s = read_ok("COPY t FROM STDIN");
  EXPECT_EQ(s.table, (TableRef{"", "t"}));
  EXPECT_TRUE(s.from);
  EXPECT_TRUE(s.stdio);
  EXPECT_FALSE(s.program);
  EXPECT_TRUE(s.columns.empty());
  EXPECT_EQ(s.options, CopyOptions{});
  EXPECT_EQ(s.options.delimiter, '\t');
  EXPECT_EQ(s.options.null_string, "\\N");

  s = read_ok("copy Public.\"T x\" (a, \"B\", C) from stdin with (format csv)");
  EXPECT_EQ(s.table, (TableRef{"public", "T x"}));
  EXPECT_EQ(s.columns, (std::vector<std::string>{"a", "B", "c"}));
  EXPECT_EQ(s.options.format, CopyFormat::kCsv);
  EXPECT_EQ(s.options.delimiter, ',');
  EXPECT_EQ(s.options.null_string, "");
  EXPECT_EQ(s.options.quote, '"');
  EXPECT_EQ(s.options.escape, '"');

  s = read_ok("COPY t FROM STDIN (FORMAT binary)");
  EXPECT_EQ(s.options.format, CopyFormat::kBinary);
}

TEST(CopyStatement, EveryOption) {
  CopyStatement s = read_ok(
      "COPY t FROM STDIN (FORMAT csv, DELIMITER '|', NULL 'nil', QUOTE '''', ESCAPE '\\', "
      "HEADER MATCH, FREEZE, FORCE_NOT_NULL (a, \"B\"), FORCE_NULL (c), ENCODING 'latin1')");
  const CopyOptions& o = s.options;
  EXPECT_EQ(o.format, CopyFormat::kCsv);
  EXPECT_EQ(o.delimiter, '|');
  EXPECT_EQ(o.null_string, "nil");
  EXPECT_EQ(o.quote, '\'');
  EXPECT_EQ(o.escape, '\\');
  EXPECT_TRUE(o.header);
  EXPECT_TRUE(o.header_match);
  EXPECT_TRUE(o.freeze);
  EXPECT_EQ(o.force_not_null, (std::vector<std::string>{"a", "B"}));
  EXPECT_EQ(o.force_null, (std::vector<std::string>{"c"}));
  EXPECT_EQ(o.encoding, "latin1");

  s = read_ok("COPY t FROM STDIN (HEADER true, FREEZE off)");
  EXPECT_TRUE(s.options.header);
  EXPECT_FALSE(s.options.header_match);
  EXPECT_FALSE(s.options.freeze);
  s = read_ok("COPY t FROM STDIN (HEADER 0, FREEZE 1)");
  EXPECT_FALSE(s.options.header);
  EXPECT_TRUE(s.options.freeze);
  s = read_ok("COPY t FROM STDIN (HEADER 'ON', ENCODING 'UTF-8')");
  EXPECT_TRUE(s.options.header);
  EXPECT_EQ(s.options.encoding, "UTF-8");
  s = read_ok("COPY t TO STDOUT (FORMAT csv, FORCE_QUOTE *)");
  EXPECT_TRUE(s.options.force_quote_all);
  s = read_ok("COPY t TO STDOUT (FORMAT csv, FORCE_QUOTE (a, b))");
  EXPECT_EQ(s.options.force_quote, (std::vector<std::string>{"a", "b"}));
  // A delimiter upper-case letter or punctuation is allowed in text mode.
  s = read_ok("COPY t FROM STDIN (DELIMITER 'A')");
  EXPECT_EQ(s.options.delimiter, 'A');
  // The escape defaults to a custom quote.
  s = read_ok("COPY t FROM STDIN (FORMAT csv, QUOTE '$')");
  EXPECT_EQ(s.options.escape, '$');
}

TEST(CopyStatement, OldSyntax) {
  CopyStatement s = read_ok(
      "COPY t FROM STDIN WITH CSV HEADER DELIMITER ',' NULL 'x' QUOTE AS "
      "'''' ESCAPE '\\' FORCE NOT NULL a, b FORCE NULL c");
  EXPECT_EQ(s.options.format, CopyFormat::kCsv);
  EXPECT_TRUE(s.options.header);
  EXPECT_EQ(s.options.delimiter, ',');
  EXPECT_EQ(s.options.null_string, "x");
  EXPECT_EQ(s.options.quote, '\'');
  EXPECT_EQ(s.options.escape, '\\');
  EXPECT_EQ(s.options.force_not_null, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(s.options.force_null, (std::vector<std::string>{"c"}));

  s = read_ok("COPY t FROM STDIN BINARY");
  EXPECT_EQ(s.options.format, CopyFormat::kBinary);
  s = read_ok("COPY BINARY t FROM STDIN");
  EXPECT_EQ(s.options.format, CopyFormat::kBinary);
  s = read_ok("COPY t FROM STDIN DELIMITER '|' NULL AS ''");
  EXPECT_EQ(s.options.delimiter, '|');
  EXPECT_EQ(s.options.null_string, "");
  s = read_ok("COPY t FROM STDIN USING DELIMITERS ';'");
  EXPECT_EQ(s.options.delimiter, ';');
  s = read_ok("COPY t FROM STDIN FREEZE CSV ENCODING 'utf8'");
  EXPECT_TRUE(s.options.freeze);
  EXPECT_EQ(s.options.encoding, "utf8");
  s = read_ok("COPY t TO STDOUT CSV FORCE QUOTE *");
  EXPECT_TRUE(s.options.force_quote_all);
  expect_error("COPY t FROM STDIN CSV DELIMITER ',' DELIMITER ';'", "42601",
               "conflicting or redundant options");
  expect_error("COPY BINARY t FROM STDIN CSV", "42601", "conflicting or redundant options");
}

TEST(CopyStatement, SourcesAndTargets) {
  CopyStatement s = read_ok("COPY t FROM '/tmp/x.csv' CSV");
  EXPECT_TRUE(s.from);
  EXPECT_FALSE(s.stdio);
  EXPECT_FALSE(s.program);
  EXPECT_EQ(s.filename, "/tmp/x.csv");
  s = read_ok("COPY t FROM PROGRAM 'zcat x.gz'");
  EXPECT_TRUE(s.program);
  EXPECT_FALSE(s.stdio);
  EXPECT_EQ(s.filename, "zcat x.gz");
  s = read_ok("COPY t (a) TO STDOUT");
  EXPECT_FALSE(s.from);
  EXPECT_TRUE(s.stdio);
  s = read_ok("COPY t TO PROGRAM 'gzip > x'");
  EXPECT_TRUE(s.program);
  s = read_ok("COPY t FROM STDIN WHERE a > 1");
  EXPECT_TRUE(s.has_where);
  s = read_ok("COPY t FROM STDIN");
  EXPECT_FALSE(s.has_where);
}

TEST(CopyStatement, QueryText) {
  CopyStatement s = read_ok(
      "  COPY ( SELECT a, ')' AS \"x)\" /* ) */ FROM t WHERE (b) = 1 ) TO STDOUT (FORMAT csv);");
  EXPECT_TRUE(s.table.name.empty());
  EXPECT_FALSE(s.from);
  EXPECT_EQ(s.query, "SELECT a, ')' AS \"x)\" /* ) */ FROM t WHERE (b) = 1");
  EXPECT_EQ(s.options.format, CopyFormat::kCsv);
  s = read_ok("copy (with w as (select 1) select * from w) to stdout");
  EXPECT_EQ(s.query, "with w as (select 1) select * from w");
  s = read_ok("COPY t TO STDOUT");
  EXPECT_TRUE(s.query.empty());
}

TEST(CopyStatement, OptionErrorsAsPostgres) {
  expect_error("COPY t FROM STDIN (FORMAT csv, FORMAT text)", "42601",
               "conflicting or redundant options");
  expect_error("COPY t FROM STDIN (HEADER, HEADER false)", "42601",
               "conflicting or redundant options");
  expect_error("COPY t FROM STDIN (FREEZE, FREEZE)", "42601", "conflicting or redundant options");
  expect_error("COPY t FROM STDIN (NULL 'a', NULL 'b')", "42601",
               "conflicting or redundant options");
  expect_error("COPY t FROM STDIN (ENCODING 'utf8', ENCODING 'utf8')", "42601",
               "conflicting or redundant options");
  expect_error("COPY t FROM STDIN (FORMAT csv, FORCE_NULL (a), FORCE_NULL (b))", "42601",
               "conflicting or redundant options");
  expect_error("COPY t FROM STDIN (FORMAT 'CSV')", "22023", "COPY format \"CSV\" not recognized");
  expect_error("COPY t FROM STDIN (FORMAT)", "42601", "format requires a parameter");
  expect_error("COPY t FROM STDIN (HEADER 2)", "42601",
               "header requires a Boolean value or \"match\"");
  expect_error("COPY t TO STDOUT (HEADER match)", "0A000",
               "cannot use \"match\" with HEADER in COPY TO");
  expect_error("COPY t FROM STDIN (FREEZE 'x')", "42601", "freeze requires a Boolean value");
  expect_error("COPY t FROM STDIN (OIDS)", "42601", "option \"oids\" not recognized");
  expect_error("COPY t FROM STDIN (FORMAT csv, FORCE_NOT_NULL *)", "22023",
               "argument to option \"force_not_null\" must be a list of column names");
  expect_error("COPY t FROM STDIN (FORMAT csv, FORCE_NULL 'a')", "22023",
               "argument to option \"force_null\" must be a list of column names");
  expect_error("COPY t FROM STDIN (ENCODING 'x')", "22023",
               "argument to option \"encoding\" must be a valid encoding name");
  expect_error("COPY t FROM STDIN (FORMAT binary, DELIMITER '|')", "42601",
               "cannot specify DELIMITER in BINARY mode");
  expect_error("COPY t FROM STDIN (NULL 1.5, FORMAT binary)", "42601",
               "cannot specify NULL in BINARY mode");
  expect_error("COPY t FROM STDIN (DELIMITER 12)", "0A000",
               "COPY delimiter must be a single one-byte character");
  expect_error("COPY t FROM STDIN (DELIMITER '\xc3\xa9')", "0A000",
               "COPY delimiter must be a single one-byte character");
  expect_error("COPY t FROM STDIN (DELIMITER E'\\n')", "22023",
               "COPY delimiter cannot be newline or carriage return");
  expect_error("COPY t FROM STDIN (NULL E'a\\r')", "22023",
               "COPY null representation cannot use newline or carriage return");
  expect_error("COPY t FROM STDIN (DELIMITER 'x')", "22023", "COPY delimiter cannot be \"x\"");
  expect_error("COPY t FROM STDIN (DELIMITER '\\')", "22023", "COPY delimiter cannot be \"\\\"");
  expect_error("COPY t FROM STDIN (DELIMITER '7')", "22023", "COPY delimiter cannot be \"7\"");
  expect_error("COPY t FROM STDIN (FORMAT binary, HEADER)", "0A000",
               "cannot specify HEADER in BINARY mode");
  expect_error("COPY t FROM STDIN (QUOTE '\"')", "0A000", "COPY quote available only in CSV mode");
  expect_error("COPY t FROM STDIN (FORMAT csv, QUOTE '')", "0A000",
               "COPY quote must be a single one-byte character");
  expect_error("COPY t FROM STDIN (FORMAT csv, DELIMITER '\"')", "22023",
               "COPY delimiter and quote must be different");
  expect_error("COPY t FROM STDIN (ESCAPE '\\')", "0A000",
               "COPY escape available only in CSV mode");
  expect_error("COPY t FROM STDIN (FORMAT csv, ESCAPE 'ab')", "0A000",
               "COPY escape must be a single one-byte character");
  expect_error("COPY t FROM STDIN (FORCE_QUOTE (a))", "0A000",
               "COPY force quote available only in CSV mode");
  expect_error("COPY t FROM STDIN (FORMAT csv, FORCE_QUOTE *)", "0A000",
               "COPY force quote only available using COPY TO");
  expect_error("COPY t FROM STDIN (FORCE_NOT_NULL (a))", "0A000",
               "COPY force not null available only in CSV mode");
  expect_error("COPY t TO STDOUT (FORMAT csv, FORCE_NOT_NULL (a))", "0A000",
               "COPY force not null only available using COPY FROM");
  expect_error("COPY t FROM STDIN (FORCE_NULL (a))", "0A000",
               "COPY force null available only in CSV mode");
  expect_error("COPY t TO STDOUT (FORMAT csv, FORCE_NULL (a))", "0A000",
               "COPY force null only available using COPY FROM");
  expect_error("COPY t FROM STDIN (FORMAT csv, NULL 'a,b')", "0A000",
               "COPY delimiter must not appear in the NULL specification");
  expect_error("COPY t FROM STDIN (NULL E'x\\ty')", "0A000",
               "COPY delimiter must not appear in the NULL specification");
  expect_error("COPY t FROM STDIN (FORMAT csv, NULL '\"')", "0A000",
               "CSV quote character must not appear in the NULL specification");
  // Option errors come before the column list's.
  expect_error("COPY t (a, a) FROM STDIN", "42701", "column \"a\" specified more than once");
  expect_error("COPY t (a, a) FROM STDIN (FOO)", "42601", "option \"foo\" not recognized");
}

TEST(CopyStatement, NotOneCopy) {
  EXPECT_FALSE(read_copy_statement("SELECT 1").has_value());
  EXPECT_FALSE(read_copy_statement("COPY t FROM STDIN; COPY u FROM STDIN").has_value());
  auto r = read_copy_statement("COPY t FROM");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().sqlstate, "42601");
}

}  // namespace
}  // namespace pgrange::sql
