#include "sql/index_query.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "sql/parse_node.hpp"
#include "sql/sql_tokens.hpp"
#include "sql/statement_shape.hpp"

namespace pgrange::sql {

namespace {

/// The one SELECT of a parse tree, or null.
PgQuery__SelectStmt* only_select(PgQuery__ParseResult* pr) {
  if (pr->n_stmts != 1 || pr->stmts[0]->stmt == nullptr ||
      pr->stmts[0]->stmt->node_case != PG_QUERY__NODE__NODE_SELECT_STMT) {
    return nullptr;
  }
  return pr->stmts[0]->stmt->select_stmt;
}

/// The one table a single-table SELECT reads, or null.
PgQuery__RangeVar* only_table(PgQuery__SelectStmt* s) {
  if (s == nullptr || s->n_from_clause != 1 || s->from_clause[0] == nullptr ||
      s->from_clause[0]->node_case != PG_QUERY__NODE__NODE_RANGE_VAR) {
    return nullptr;
  }
  return s->from_clause[0]->range_var;
}

void collect_columns(const ProtobufCMessage* m, ColumnUse& use) {
  if (m->descriptor == &pg_query__column_ref__descriptor) {
    const auto* c = reinterpret_cast<const PgQuery__ColumnRef*>(m);
    if (c->n_fields == 0) return;
    const PgQuery__Node* last = c->fields[c->n_fields - 1];
    if (last->node_case == PG_QUERY__NODE__NODE_A_STAR) {
      use.star = true;
    } else if (const char* name = string_of(last)) {
      if (std::find(use.columns.begin(), use.columns.end(), name) == use.columns.end()) {
        use.columns.emplace_back(name);
      }
    }
    return;
  }
  for_each_child(m, [&](const ProtobufCMessage* child) { collect_columns(child, use); });
}

Result<ParseTree> parse_select(std::string_view sql, PgQuery__SelectStmt*& select) {
  auto tree = parse_tree(sql);
  if (!tree) return tl::unexpected(tree.error());
  select = only_select(tree->get());
  if (only_table(select) == nullptr) {
    return fail(sqlstate::kInternalError, "not a SELECT on one table");
  }
  return tree;
}

}  // namespace

Result<ColumnUse> referenced_columns(std::string_view select_sql) {
  // Remembered by the statement's shape (its text without its literals, which name no
  // column): an index join asks per lookup, and a parse costs far more than the shape.
  thread_local std::unordered_map<std::string, ColumnUse> by_shape;
  constexpr size_t kMaxShapes = 1024;
  auto shape = statement_shape(select_sql);
  if (shape) {
    if (auto it = by_shape.find(shape->key); it != by_shape.end()) return it->second;
  }
  PgQuery__SelectStmt* select = nullptr;
  auto tree = parse_select(select_sql, select);
  if (!tree) return tl::unexpected(tree.error());
  ColumnUse use;
  collect_columns(&select->base, use);
  if (shape) {
    if (by_shape.size() >= kMaxShapes) by_shape.clear();
    by_shape.emplace(std::move(shape->key), use);
  }
  return use;
}

Result<std::string> restrict_select(std::string_view select_sql, std::string_view condition) {
  // Cut in by the scanner's tokens (a parse and a deparse cost about thirty times as much, and
  // an index join restricts a statement per lookup): the clause after the top-level FROM
  // list, WHERE or not, ends at the first top-level GROUP BY, HAVING, WINDOW, ORDER BY,
  // LIMIT, OFFSET, FETCH, FOR (locking) or `;`.
  const std::string sql(select_sql);
  auto scanned = scan_tokens(sql);
  if (!scanned) return tl::unexpected(scanned.error());
  const std::vector<SqlToken>& t = *scanned;
  auto not_one_select = [] { return fail(sqlstate::kInternalError, "not a SELECT on one table"); };
  if (t.empty() || (t[0].kind != PG_QUERY__TOKEN__SELECT && t[0].kind != PG_QUERY__TOKEN__WITH)) {
    return not_one_select();
  }
  int depth = 0;
  std::optional<size_t> from, where;
  size_t end = t.size();  // the token that ends the FROM list or the WHERE clause
  for (size_t i = 0; i < t.size() && end == t.size(); ++i) {
    const PgQuery__Token k = t[i].kind;
    if (k == PG_QUERY__TOKEN__ASCII_40) ++depth;
    if (k == PG_QUERY__TOKEN__ASCII_41) --depth;
    if (depth != 0) continue;
    const PgQuery__Token before = i > 0 ? t[i - 1].kind : PG_QUERY__TOKEN__NUL;
    switch (k) {
      case PG_QUERY__TOKEN__UNION:
      case PG_QUERY__TOKEN__INTERSECT:
      case PG_QUERY__TOKEN__EXCEPT:
        return not_one_select();
      case PG_QUERY__TOKEN__FROM:  // not IS [NOT] DISTINCT FROM in the select list
        if (!from && before != PG_QUERY__TOKEN__DISTINCT) from = i;
        break;
      case PG_QUERY__TOKEN__WHERE:
        if (from && !where) where = i;
        break;
      case PG_QUERY__TOKEN__GROUP_P:  // not an aggregate's WITHIN GROUP
        if (from && before != PG_QUERY__TOKEN__WITHIN) end = i;
        break;
      case PG_QUERY__TOKEN__HAVING:
      case PG_QUERY__TOKEN__WINDOW:
      case PG_QUERY__TOKEN__ORDER:
      case PG_QUERY__TOKEN__LIMIT:
      case PG_QUERY__TOKEN__OFFSET:
      case PG_QUERY__TOKEN__FETCH:
      case PG_QUERY__TOKEN__FOR:
      case PG_QUERY__TOKEN__ASCII_59:
        if (from) end = i;
        break;
      default:
        break;
    }
  }
  if (!from || end == 0 || (where && *where + 1 >= end)) return not_one_select();
  // After the clause's last token (a comment after it stays after what is added).
  const size_t cut = t[end - 1].end;
  std::string out;
  out.reserve(sql.size() + condition.size() + 16);
  if (where) {
    const size_t expr = t[*where + 1].start;
    out.append(sql, 0, expr).append("(").append(sql, expr, cut - expr).append(") AND (");
  } else {
    out.append(sql, 0, cut).append(" WHERE (");
  }
  out.append(condition).append(")").append(sql, cut, std::string::npos);
  return out;
}

Result<std::string> select_from_relation(std::string_view select_sql, const std::string& schema,
                                         const std::string& relation) {
  PgQuery__SelectStmt* select = nullptr;
  auto tree = parse_select(select_sql, select);
  if (!tree) return tl::unexpected(tree.error());
  PgQuery__RangeVar* rv = only_table(select);
  char* old_schema = rv->schemaname;
  char* old_name = rv->relname;
  PgQuery__Alias* old_alias = rv->alias;
  PgQuery__Alias alias = PG_QUERY__ALIAS__INIT;
  alias.aliasname = old_name;
  if (old_alias == nullptr) rv->alias = &alias;
  rv->schemaname = const_cast<char*>(schema.c_str());
  rv->relname = const_cast<char*>(relation.c_str());
  auto text = deparse_tree(tree->get());
  rv->schemaname = old_schema;
  rv->relname = old_name;
  rv->alias = old_alias;
  return text;
}

}  // namespace pgrange::sql
