#include "sql/copy_writer.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sql/copy_statement.hpp"

namespace pgrange::sql {
namespace {

using Values = std::vector<std::optional<std::string_view>>;

// The options of `COPY (query) TO STDOUT <options>` as PostgreSQL reads them.
CopyOptions options_of(std::string_view with) {
  auto stmt = read_copy_statement("COPY (SELECT 1) TO STDOUT " + std::string(with));
  EXPECT_TRUE(stmt) << with;
  return stmt ? stmt->options : CopyOptions{};
}

std::string written(std::string_view with, std::vector<std::string> columns,
                    const std::vector<Values>& rows) {
  auto w = CopyRowWriter::make(options_of(with), std::move(columns));
  EXPECT_TRUE(w) << with;
  if (!w) return {};
  std::string out = w->start();
  for (const Values& r : rows) w->row(r, out);
  out.append(w->trailer());
  return out;
}

// Expected bytes are what PostgreSQL 15's COPY (SELECT …) TO STDOUT writes for the same values.
TEST(CopyRowWriter, TextEscapesControlCharactersBackslashesAndTheDelimiter) {
  EXPECT_EQ(written("", {"a", "b"}, {{"tab\there", "new\nline\r"}, {"back\\slash", std::nullopt}}),
            "tab\\there\tnew\\nline\\r\nback\\\\slash\t\\N\n");
  EXPECT_EQ(written("", {"a"}, {{std::string_view("\b\f\v\x01", 4)}}),
            std::string("\\b\\f\\v\x01\n"));
  EXPECT_EQ(written("(DELIMITER ',', NULL '', HEADER)", {"x,y", "z"}, {{"1,2", ""}}),
            "x\\,y,z\n1\\,2,\n");
}

TEST(CopyRowWriter, CsvQuotesWhatWouldNotReadBack) {
  // The delimiter, the quote, line ends; a value equal to the NULL string; "\." alone.
  EXPECT_EQ(written("(FORMAT csv)", {"a", "b", "c"},
                    {{"a,b", "say \"hi\"", "two\nlines"}, {"", std::nullopt, "plain"}}),
            "\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\"\n\"\",,plain\n");
  EXPECT_EQ(written("(FORMAT csv)", {"a"}, {{"\\."}}), "\"\\.\"\n");
  EXPECT_EQ(written("(FORMAT csv)", {"a", "b"}, {{"\\.", "x"}}), "\\.,x\n");
  EXPECT_EQ(written("(FORMAT csv, NULL 'nil')", {"a", "b"}, {{"nil", std::nullopt}}),
            "\"nil\",nil\n");
  // Another quote and escape.
  EXPECT_EQ(written("(FORMAT csv, QUOTE '''', ESCAPE '\\')", {"a"}, {{"it's a \\ b,c"}}),
            "'it\\'s a \\\\ b,c'\n");
}

TEST(CopyRowWriter, CsvHeaderAndForcedQuotes) {
  EXPECT_EQ(written("(FORMAT csv, HEADER, FORCE_QUOTE (b))", {"a", "b"},
                    {{"1", "2"}, {"3", std::nullopt}}),
            "a,b\n1,\"2\"\n3,\n");
  EXPECT_EQ(written("(FORMAT csv, HEADER, FORCE_QUOTE *)", {"a b", "c,d"}, {{"1", "2"}}),
            "a b,\"c,d\"\n\"1\",\"2\"\n");
  auto w = CopyRowWriter::make(options_of("(FORMAT csv, FORCE_QUOTE (nope))"), {"a"});
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().sqlstate, "42703");
  EXPECT_EQ(w.error().message, "column \"nope\" does not exist");
  w = CopyRowWriter::make(options_of("(ENCODING 'LATIN1')"), {"a"});
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().sqlstate, "0A000");
}

TEST(CopyRowWriter, BinaryTuplesBetweenTheHeaderAndTheTrailer) {
  std::string out =
      written("(FORMAT binary)", {"a", "b"}, {{std::string_view("\0\0\0\x07", 4), std::nullopt}});
  const std::string expected = std::string("PGCOPY\n\377\r\n\0", 11) +
                               std::string("\0\0\0\0\0\0\0\0", 8) +      // flags, extension
                               std::string("\0\x02", 2) +                // two fields
                               std::string("\0\0\0\x04\0\0\0\x07", 8) +  // 4 bytes: 7
                               std::string("\xff\xff\xff\xff", 4) +      // NULL
                               std::string("\xff\xff", 2);               // trailer
  EXPECT_EQ(out, expected);
}

}  // namespace
}  // namespace pgrange::sql
