#include "sql/cursor_statement.hpp"

#include <gtest/gtest.h>

#include <string>

namespace pgrange::sql {
namespace {

using Kind = CursorStatement::Kind;
using Direction = CursorStatement::Direction;

CursorStatement read_ok(std::string_view sql) {
  auto c = read_cursor_statement(sql);
  EXPECT_TRUE(c.has_value()) << sql;
  return c ? *c : CursorStatement{};
}

TEST(CursorStatement, DeclareKeepsTheQueryAsWritten) {
  CursorStatement c =
      read_ok("DECLARE c CURSOR FOR SELECT id FROM t WHERE note = 'for' ORDER BY id");
  EXPECT_EQ(c.kind, Kind::kDeclare);
  EXPECT_EQ(c.name, "c");
  EXPECT_EQ(c.query, "SELECT id FROM t WHERE note = 'for' ORDER BY id");
  EXPECT_FALSE(c.scroll || c.hold || c.binary);

  c = read_ok("  declare \"My Cursor\" binary no scroll cursor without hold for\n  select 1;");
  EXPECT_EQ(c.name, "My Cursor");
  EXPECT_EQ(c.query, "select 1");
  EXPECT_TRUE(c.binary && c.no_scroll);
  EXPECT_FALSE(c.scroll || c.hold);

  // psycopg2's named cursors.
  c = read_ok("DECLARE \"c_1\" SCROLL CURSOR WITH HOLD FOR (SELECT * FROM t) UNION (SELECT 1)");
  EXPECT_EQ(c.query, "(SELECT * FROM t) UNION (SELECT 1)");
  EXPECT_TRUE(c.scroll && c.hold);
}

TEST(CursorStatement, FetchAndMoveAsPostgresReducesThem) {
  struct Case {
    const char* sql;
    Kind kind;
    Direction direction;
    int64_t count;
  };
  for (const Case& k : {
           Case{"FETCH c", Kind::kFetch, Direction::kForward, 1},
           Case{"FETCH NEXT FROM c", Kind::kFetch, Direction::kForward, 1},
           Case{"FETCH 25 IN c", Kind::kFetch, Direction::kForward, 25},
           Case{"FETCH FORWARD 3 FROM c", Kind::kFetch, Direction::kForward, 3},
           Case{"FETCH ALL FROM c", Kind::kFetch, Direction::kForward, CursorStatement::kAll},
           Case{"FETCH FORWARD ALL c", Kind::kFetch, Direction::kForward, CursorStatement::kAll},
           Case{"FETCH PRIOR FROM c", Kind::kFetch, Direction::kBackward, 1},
           Case{"FETCH BACKWARD 2 FROM c", Kind::kFetch, Direction::kBackward, 2},
           Case{"FETCH FIRST FROM c", Kind::kFetch, Direction::kAbsolute, 1},
           Case{"FETCH LAST FROM c", Kind::kFetch, Direction::kAbsolute, -1},
           Case{"FETCH ABSOLUTE 7 FROM c", Kind::kFetch, Direction::kAbsolute, 7},
           Case{"FETCH RELATIVE -2 FROM c", Kind::kFetch, Direction::kRelative, -2},
           Case{"MOVE 10 IN c", Kind::kMove, Direction::kForward, 10},
           Case{"move backward all from c", Kind::kMove, Direction::kBackward,
                CursorStatement::kAll},
       }) {
    CursorStatement c = read_ok(k.sql);
    EXPECT_EQ(c.kind, k.kind) << k.sql;
    EXPECT_EQ(c.direction, k.direction) << k.sql;
    EXPECT_EQ(c.count, k.count) << k.sql;
    EXPECT_EQ(c.name, "c") << k.sql;
  }
}

TEST(CursorStatement, CloseNamesTheCursorOrNone) {
  CursorStatement c = read_ok("CLOSE \"Big\"");
  EXPECT_EQ(c.kind, Kind::kClose);
  EXPECT_EQ(c.name, "Big");
  c = read_ok("close all");
  EXPECT_EQ(c.kind, Kind::kClose);
  EXPECT_EQ(c.name, "");
}

TEST(CursorStatement, OtherTextIsNotACursorStatement) {
  EXPECT_FALSE(read_cursor_statement("SELECT 1"));
  EXPECT_FALSE(read_cursor_statement("DECLARE c CURSOR FOR"));  // PostgreSQL says why
  EXPECT_FALSE(read_cursor_statement("FETCH 1 FROM c; FETCH 1 FROM c"));
  EXPECT_FALSE(read_cursor_statement("closed"));
}

TEST(CursorStatement, CursorKeywords) {
  for (const char* kw : {"declare", "fetch", "move", "close"}) EXPECT_TRUE(is_cursor_keyword(kw));
  for (const char* kw : {"select", "", "closed", "FETCH"}) EXPECT_FALSE(is_cursor_keyword(kw));
  EXPECT_TRUE(names_cursor("  Fetch 10 FROM c"));
  EXPECT_FALSE(names_cursor("SELECT 1"));
}

}  // namespace
}  // namespace pgrange::sql
