#include "sql/insert_select.hpp"

#include "sql/parse_node.hpp"

namespace pgrange::sql {

std::optional<InsertSelect> read_insert_select(std::string_view sql) {
  auto tree = parse_tree(sql);
  if (!tree || (*tree)->n_stmts != 1 || (*tree)->stmts[0]->stmt == nullptr) return std::nullopt;
  PgQuery__Node* n = (*tree)->stmts[0]->stmt;
  if (n->node_case != PG_QUERY__NODE__NODE_INSERT_STMT) return std::nullopt;
  PgQuery__InsertStmt* ins = n->insert_stmt;
  PgQuery__Node* source = ins->select_stmt;
  if (source == nullptr || ins->with_clause != nullptr ||
      source->node_case != PG_QUERY__NODE__NODE_SELECT_STMT ||
      source->select_stmt->n_values_lists > 0) {
    return std::nullopt;
  }
  InsertSelect out;
  out.returning = ins->n_returning_list > 0;
  out.limited =
      source->select_stmt->limit_count != nullptr || source->select_stmt->limit_offset != nullptr;
  auto query = deparse_node(tree->get(), source);  // the query on its own
  // The INSERT without it: PostgreSQL's grammar reads no query as DEFAULT VALUES, which is
  // where the rows go.
  ins->select_stmt = nullptr;
  auto rest = deparse_tree(tree->get());
  ins->select_stmt = source;
  if (!query || !rest) return std::nullopt;
  constexpr std::string_view kMark = " DEFAULT VALUES";
  size_t at = rest->find(kMark);
  if (at == std::string::npos || rest->find(kMark, at + 1) != std::string::npos) {
    return std::nullopt;
  }
  out.query = std::move(*query);
  out.before_rows = rest->substr(0, at);
  out.after_rows = rest->substr(at + kMark.size());
  return out;
}

}  // namespace pgrange::sql
