#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace pgrange::sql {

/// DECLARE, FETCH, MOVE or CLOSE of a cursor, as pgrange runs cursors over several shards.
struct CursorStatement {
  enum class Kind { kDeclare, kFetch, kMove, kClose };
  /// FETCH and MOVE as PostgreSQL's grammar reduces them (NEXT is FORWARD 1, PRIOR BACKWARD 1,
  /// FIRST ABSOLUTE 1, LAST ABSOLUTE -1, a bare count FORWARD count).
  enum class Direction { kForward, kBackward, kAbsolute, kRelative };
  /// FETCH ALL, FORWARD ALL, BACKWARD ALL: PostgreSQL's FETCH_ALL.
  static constexpr int64_t kAll = INT64_MAX;

  Kind kind = Kind::kDeclare;
  /// The cursor's name as PostgreSQL folds it; empty for CLOSE ALL.
  std::string name;
  // DECLARE
  std::string query;  ///< the query's text as written
  bool binary = false;
  bool scroll = false;     ///< SCROLL
  bool no_scroll = false;  ///< NO SCROLL (neither: PostgreSQL decides by the query's plan)
  bool hold = false;       ///< WITH HOLD
  // FETCH, MOVE
  Direction direction = Direction::kForward;
  int64_t count = 1;
};

/// Whether `sql` starts with DECLARE, FETCH, MOVE or CLOSE (cheap: no parsing).
bool names_cursor(std::string_view sql);
/// The same for a statement's leading keyword already read (sql::leading_keyword).
bool is_cursor_keyword(std::string_view kw);

/// Reads `sql` when it is one DECLARE … CURSOR, FETCH, MOVE or CLOSE statement (nullopt for any
/// other text, and for one PostgreSQL's grammar refuses: the shard then says why).
std::optional<CursorStatement> read_cursor_statement(std::string_view sql);

}  // namespace pgrange::sql
