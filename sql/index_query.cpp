#include "sql/index_query.hpp"

#include <algorithm>

#include "sql/parse_node.hpp"

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
  PgQuery__SelectStmt* select = nullptr;
  auto tree = parse_select(select_sql, select);
  if (!tree) return tl::unexpected(tree.error());
  ColumnUse use;
  collect_columns(&select->base, use);
  return use;
}

Result<std::string> restrict_select(std::string_view select_sql, std::string_view condition) {
  PgQuery__SelectStmt* select = nullptr;
  auto tree = parse_select(select_sql, select);
  if (!tree) return tl::unexpected(tree.error());
  // The parser builds the conjunction: true AND (condition), whose `true` the WHERE replaces
  // (`true` first: the grammar flattens an AND on its left into the list).
  auto templ = parse_tree("SELECT WHERE true AND (" + std::string(condition) + ")");
  if (!templ) return tl::unexpected(templ.error());
  PgQuery__SelectStmt* t = only_select(templ->get());
  if (t == nullptr || t->where_clause == nullptr ||
      t->where_clause->node_case != PG_QUERY__NODE__NODE_BOOL_EXPR ||
      t->where_clause->bool_expr->n_args != 2) {
    return fail(sqlstate::kInternalError, "cannot read the index join's condition");
  }
  PgQuery__Node* where = select->where_clause;
  PgQuery__Node** args = t->where_clause->bool_expr->args;
  PgQuery__Node* placeholder = args[0];
  // Each tree keeps owning its nodes: the borrowed ones are put back before they are freed.
  if (where != nullptr) {
    args[0] = where;
    select->where_clause = t->where_clause;
  } else {
    select->where_clause = args[1];
  }
  auto text = deparse_tree(tree->get());
  args[0] = placeholder;
  select->where_clause = where;
  return text;
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
