#include "sql/cursor_statement.hpp"

#include <string>

#include "sql/parse_node.hpp"
#include "sql/session_statement.hpp"
#include "sql/sql_tokens.hpp"

namespace pgrange::sql {
namespace {

// PostgreSQL's CURSOR_OPT_* bits (portal.h).
constexpr int32_t kCursorBinary = 0x0001;
constexpr int32_t kCursorScroll = 0x0002;
constexpr int32_t kCursorNoScroll = 0x0004;
constexpr int32_t kCursorHold = 0x0020;

/// Where the query of DECLARE … CURSOR [WITH HOLD] FOR query starts: after the first FOR that
/// follows the keyword CURSOR.
std::optional<size_t> query_start(const std::string& text) {
  auto tokens = scan_tokens(text);
  if (!tokens) return std::nullopt;
  bool cursor = false;
  for (const SqlToken& t : *tokens) {
    if (t.kind == PG_QUERY__TOKEN__CURSOR) cursor = true;
    if (cursor && t.kind == PG_QUERY__TOKEN__FOR) return t.end;
  }
  return std::nullopt;
}

}  // namespace

bool names_cursor(std::string_view sql) {
  return is_cursor_keyword(leading_keyword(sql));
}

bool is_cursor_keyword(std::string_view kw) {
  return kw == "declare" || kw == "fetch" || kw == "move" || kw == "close";
}

std::optional<CursorStatement> read_cursor_statement(std::string_view sql) {
  if (!names_cursor(sql)) return std::nullopt;
  auto tree = parse_tree(sql);
  if (!tree || (*tree)->n_stmts != 1 || (*tree)->stmts[0]->stmt == nullptr) return std::nullopt;
  const PgQuery__RawStmt* raw = (*tree)->stmts[0];
  const PgQuery__Node* n = raw->stmt;
  CursorStatement c;
  switch (n->node_case) {
    case PG_QUERY__NODE__NODE_DECLARE_CURSOR_STMT: {
      const PgQuery__DeclareCursorStmt* d = n->declare_cursor_stmt;
      c.kind = CursorStatement::Kind::kDeclare;
      c.name = d->portalname;
      c.binary = (d->options & kCursorBinary) != 0;
      c.scroll = (d->options & kCursorScroll) != 0;
      c.no_scroll = (d->options & kCursorNoScroll) != 0;
      c.hold = (d->options & kCursorHold) != 0;
      size_t begin = static_cast<size_t>(raw->stmt_location);
      size_t end = raw->stmt_len > 0 ? begin + static_cast<size_t>(raw->stmt_len) : sql.size();
      std::string text(sql.substr(begin, end - begin));
      auto start = query_start(text);
      if (!start) return std::nullopt;
      c.query = text.substr(*start);
      size_t first = c.query.find_first_not_of(" \t\r\n");
      c.query.erase(0, first == std::string::npos ? c.query.size() : first);
      return c;
    }
    case PG_QUERY__NODE__NODE_FETCH_STMT: {
      const PgQuery__FetchStmt* f = n->fetch_stmt;
      c.kind = f->ismove ? CursorStatement::Kind::kMove : CursorStatement::Kind::kFetch;
      c.name = f->portalname;
      c.count = f->how_many;
      switch (f->direction) {
        case PG_QUERY__FETCH_DIRECTION__FETCH_BACKWARD:
          c.direction = CursorStatement::Direction::kBackward;
          break;
        case PG_QUERY__FETCH_DIRECTION__FETCH_ABSOLUTE:
          c.direction = CursorStatement::Direction::kAbsolute;
          break;
        case PG_QUERY__FETCH_DIRECTION__FETCH_RELATIVE:
          c.direction = CursorStatement::Direction::kRelative;
          break;
        default:
          c.direction = CursorStatement::Direction::kForward;
          break;
      }
      return c;
    }
    case PG_QUERY__NODE__NODE_CLOSE_PORTAL_STMT:
      c.kind = CursorStatement::Kind::kClose;
      c.name = n->close_portal_stmt->portalname;
      return c;
    default:
      return std::nullopt;
  }
}

}  // namespace pgrange::sql
