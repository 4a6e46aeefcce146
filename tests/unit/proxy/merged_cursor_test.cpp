// exec::forward_steps: where FETCH and MOVE go on a cursor over several shards, which pgrange
// reads forward only, compared with where PostgreSQL's cursor would go.
#include "proxy/exec/merged_cursor.hpp"

#include <gtest/gtest.h>

#include <optional>

#include "sql/cursor_statement.hpp"

namespace pgrange::proxy::exec {
namespace {

sql::CursorStatement parsed(const char* text) {
  std::optional<sql::CursorStatement> stmt = sql::read_cursor_statement(text);
  EXPECT_TRUE(stmt) << text;
  return stmt.value_or(sql::CursorStatement{});
}

/// (skip, take) of `text` at `position` (sitting on a row when it is not 0), "again" for the
/// current row again, or the SQLSTATE of its refusal.
std::string steps(const char* text, uint64_t position, bool no_scroll = false,
                  std::optional<bool> on_row = std::nullopt) {
  auto s = forward_steps(parsed(text), position, no_scroll, on_row.value_or(position > 0));
  if (!s) return s.error().sqlstate;
  if (s->again) return s->skip == 0 && s->take == 0 ? "again" : "again and more?";
  return std::to_string(s->skip) + "," + std::to_string(s->take);
}

TEST(ForwardSteps, ForwardReadsTheNextRows) {
  EXPECT_EQ(steps("FETCH 5 FROM c", 0), "0,5");
  EXPECT_EQ(steps("FETCH NEXT FROM c", 7), "0,1");
  EXPECT_EQ(steps("FETCH FORWARD 3 FROM c", 2), "0,3");
  EXPECT_EQ(steps("MOVE FORWARD 10 IN c", 2), "0,10");
  EXPECT_EQ(steps("FETCH ALL FROM c", 2), "0," + std::to_string(sql::CursorStatement::kAll));
  EXPECT_EQ(steps("FETCH FORWARD 0 FROM c", 0), "0,0");  // before the first row: none
}

TEST(ForwardSteps, AbsoluteAndRelativeSkipToTheirRow) {
  // At position p the next row is p + 1: ABSOLUTE n skips n - p - 1 rows and takes one.
  EXPECT_EQ(steps("FETCH ABSOLUTE 5 FROM c", 0), "4,1");
  EXPECT_EQ(steps("FETCH ABSOLUTE 5 FROM c", 3), "1,1");
  EXPECT_EQ(steps("FETCH FIRST FROM c", 0), "0,1");
  EXPECT_EQ(steps("FETCH ABSOLUTE 0 FROM c", 0), "0,0");  // before the first row: no row
  EXPECT_EQ(steps("FETCH RELATIVE 3 FROM c", 4), "2,1");
  EXPECT_EQ(steps("MOVE RELATIVE 1 IN c", 0), "0,1");
}

TEST(ForwardSteps, BackwardIsRefusedAsPostgresRefusesANoScrollCursor) {
  EXPECT_EQ(steps("FETCH PRIOR FROM c", 3, true), "55000");
  EXPECT_EQ(steps("FETCH BACKWARD 2 FROM c", 3, true), "55000");
  EXPECT_EQ(steps("FETCH ABSOLUTE 2 FROM c", 5, true), "55000");
  EXPECT_EQ(steps("FETCH LAST FROM c", 0, true), "55000");
  EXPECT_EQ(steps("FETCH RELATIVE -1 FROM c", 3, true), "55000");
  EXPECT_EQ(steps("FETCH BACKWARD ALL FROM c", 3, true), "55000");
  // Declared neither way: PostgreSQL might read it backward, pgrange says it does not.
  EXPECT_EQ(steps("FETCH PRIOR FROM c", 3, false), "0A000");
  auto e = forward_steps(parsed("FETCH PRIOR FROM c"), 3, true, true);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().message, "cursor can only scan forward");
}

// As PostgreSQL 15 answers them (checked against it): a count of 0 off a row gives nothing;
// on a row MOVE counts it and FETCH reads it again, backing up a row, which a NO SCROLL cursor
// refuses; ABSOLUTE n at row n backs up too, FETCH or MOVE.
TEST(ForwardSteps, TheCurrentRowAgainAsPostgresGivesIt) {
  // Off a row: before the first, or after running off the end.
  EXPECT_EQ(steps("FETCH RELATIVE 0 FROM c", 0, true), "0,0");
  EXPECT_EQ(steps("MOVE 0 IN c", 0, true), "0,0");
  EXPECT_EQ(steps("FETCH 0 FROM c", 5, true, false), "0,0");
  EXPECT_EQ(steps("MOVE 0 IN c", 5, false, false), "0,0");
  // On a row.
  EXPECT_EQ(steps("MOVE 0 IN c", 3, true), "again");
  EXPECT_EQ(steps("MOVE RELATIVE 0 IN c", 3, true), "again");
  EXPECT_EQ(steps("MOVE BACKWARD 0 IN c", 3, true), "again");
  EXPECT_EQ(steps("FETCH RELATIVE 0 FROM c", 3, true), "55000");
  EXPECT_EQ(steps("FETCH 0 FROM c", 3, true), "55000");
  EXPECT_EQ(steps("FETCH RELATIVE 0 FROM c", 3), "again");
  EXPECT_EQ(steps("FETCH FORWARD 0 FROM c", 3), "again");
  EXPECT_EQ(steps("FETCH BACKWARD 0 FROM c", 3), "again");
  // ABSOLUTE n at row n, on it or having run off the end just after it.
  EXPECT_EQ(steps("FETCH ABSOLUTE 3 FROM c", 3), "again");
  EXPECT_EQ(steps("FETCH ABSOLUTE 5 FROM c", 5, false, false), "again");
  EXPECT_EQ(steps("FETCH ABSOLUTE 3 FROM c", 3, true), "55000");
  EXPECT_EQ(steps("MOVE ABSOLUTE 3 IN c", 3, true), "55000");
  EXPECT_EQ(steps("MOVE ABSOLUTE 3 IN c", 3), "again");
  // Back to the start: pgrange cannot (PostgreSQL might, for a cursor declared neither way).
  EXPECT_EQ(steps("FETCH ABSOLUTE 0 FROM c", 2), "0A000");
  EXPECT_EQ(steps("FETCH ABSOLUTE 0 FROM c", 2, true), "55000");
}

}  // namespace
}  // namespace pgrange::proxy::exec
