// exec::InsertParts: an INSERT … SELECT's rows, as a shard answers its query, written out as
// INSERT … VALUES statements of at most a part's rows or bytes each.
#include "proxy/exec/insert_parts.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "proxy/wire/message_writer.hpp"

namespace pgrange::proxy::exec {
namespace {

using Cell = std::optional<std::string>;

void row_description(std::string& out, int columns) {
  MessageWriter w(out);
  w.begin('T').i16(static_cast<int16_t>(columns));
  for (int i = 0; i < columns; ++i) {
    w.cstr("c" + std::to_string(i)).i32(0).i16(0).i32(25).i16(-1).i32(-1).i16(0);
  }
  w.end();
}

void data_row(std::string& out, const std::vector<Cell>& cells) {
  MessageWriter w(out);
  w.begin('D').i16(static_cast<int16_t>(cells.size()));
  for (const Cell& c : cells) {
    if (!c) {
      w.i32(-1);
    } else {
      w.i32(static_cast<int32_t>(c->size())).bytes(*c);
    }
  }
  w.end();
}

void complete(std::string& out, size_t rows) {
  MessageWriter(out).begin('C').cstr("SELECT " + std::to_string(rows)).end();
}

/// An answer of `n` rows (i, 'v<i>').
std::string numbered(size_t n) {
  std::string out;
  row_description(out, 2);
  for (size_t i = 0; i < n; ++i) data_row(out, {std::to_string(i), "v" + std::to_string(i)});
  complete(out, n);
  return out;
}

size_t count_rows(const std::string& part) {
  size_t rows = 0;
  for (size_t at = part.find("('"); at != std::string::npos; at = part.find("('", at + 1)) ++rows;
  return rows;
}

TEST(InsertParts, ValuesAreQuotedLiteralsAndNulls) {
  std::string answer;
  row_description(answer, 3);
  data_row(answer, {"1", std::nullopt, "it's"});
  data_row(answer, {"2", "a\\b", ""});
  complete(answer, 2);
  InsertParts parts(answer, "INSERT INTO t (a, b, c)", " RETURNING a");
  EXPECT_FALSE(parts.error());
  EXPECT_EQ(parts.rows(), 2u);
  auto first = parts.next();
  ASSERT_TRUE(first);
  EXPECT_EQ(*first,
            "INSERT INTO t (a, b, c) VALUES ('1', NULL, 'it''s'), ('2', E'a\\\\b', '') "
            "RETURNING a");
  EXPECT_EQ(parts.rows_left(), 0u);
  EXPECT_FALSE(parts.next());
}

TEST(InsertParts, PartsHoldAtMostAPartsRowsInTheQuerysOrder) {
  const size_t n = 2 * InsertParts::kPartRows + 5000;
  InsertParts parts(numbered(n), "INSERT INTO t", "");
  EXPECT_EQ(parts.rows(), n);
  std::vector<size_t> sizes;
  std::string all;
  while (auto part = parts.next()) {
    ASSERT_EQ(part->rfind("INSERT INTO t VALUES ('", 0), 0u);
    sizes.push_back(count_rows(*part));
    all += *part + " ";
  }
  EXPECT_EQ(sizes, (std::vector<size_t>{InsertParts::kPartRows, InsertParts::kPartRows, 5000}));
  EXPECT_EQ(parts.rows_left(), 0u);
  // Every row once, in order: the last of each part is followed by the first of the next.
  EXPECT_NE(all.find("('9999', 'v9999') INSERT INTO t VALUES ('10000', 'v10000')"),
            std::string::npos);
  EXPECT_NE(all.find("('" + std::to_string(n - 1) + "', 'v" + std::to_string(n - 1) + "')"),
            std::string::npos);
  EXPECT_EQ(all.find("('" + std::to_string(n) + "'"), std::string::npos);
}

TEST(InsertParts, APartStopsAfterTheRowThatBringsItPastItsBytes) {
  std::string answer;
  row_description(answer, 1);
  const std::string big(1000000, 'x');
  for (int i = 0; i < 20; ++i) data_row(answer, {big});
  complete(answer, 20);
  InsertParts parts(answer, "INSERT INTO t", "");
  std::vector<size_t> sizes;
  while (auto part = parts.next()) {
    sizes.push_back(count_rows(*part));
    EXPECT_LT(part->size(), InsertParts::kPartBytes + 2 * big.size());
  }
  // 8 rows' values are under 8 MiB, the 9th takes them past it.
  EXPECT_EQ(sizes, (std::vector<size_t>{9, 9, 2}));
}

TEST(InsertParts, AFailedQueryWritesNothing) {
  std::string answer = numbered(3);
  write_error(answer, Error::make("22012", "division by zero"));
  InsertParts parts(answer, "INSERT INTO t", "");
  ASSERT_TRUE(parts.error());
  EXPECT_EQ(parts.error()->sqlstate, "22012");
  EXPECT_EQ(parts.error()->message, "division by zero");
  EXPECT_EQ(parts.rows(), 0u);
  EXPECT_FALSE(parts.next());
}

TEST(InsertParts, AQueryWithoutRowsHasNoPart) {
  InsertParts parts(numbered(0), "INSERT INTO t", "");
  EXPECT_FALSE(parts.error());
  EXPECT_EQ(parts.rows(), 0u);
  EXPECT_FALSE(parts.next());
}

}  // namespace
}  // namespace pgrange::proxy::exec
