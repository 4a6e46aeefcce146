#include "sql/insert_rows.hpp"

#include <pg_query/pg_query.pb-c.h>

#include <vector>

#include "sql/parse_node.hpp"

namespace pgrange::sql {

Result<std::string> insert_with_rows(std::string_view insert_sql, std::span<const size_t> rows) {
  auto tree = parse_tree(insert_sql);
  if (!tree) return tl::unexpected(tree.error());
  PgQuery__ParseResult* pr = tree->get();
  PgQuery__SelectStmt* values = nullptr;
  if (pr->n_stmts == 1 && pr->stmts[0]->stmt != nullptr &&
      pr->stmts[0]->stmt->node_case == PG_QUERY__NODE__NODE_INSERT_STMT) {
    const PgQuery__InsertStmt* ins = pr->stmts[0]->stmt->insert_stmt;
    if (ins->select_stmt != nullptr &&
        ins->select_stmt->node_case == PG_QUERY__NODE__NODE_SELECT_STMT &&
        ins->select_stmt->select_stmt->n_values_lists > 0) {
      values = ins->select_stmt->select_stmt;
    }
  }
  if (values == nullptr) {
    return fail(sqlstate::kFeatureNotSupported, "only INSERT … VALUES rows can be split by shard");
  }
  std::vector<PgQuery__Node*> kept;
  for (size_t r : rows) {
    if (r >= values->n_values_lists) return fail(sqlstate::kInternalError, "no such VALUES row");
    kept.push_back(values->values_lists[r]);
  }
  // The tree keeps owning its rows: the subset is put back before it is freed.
  PgQuery__Node** all = values->values_lists;
  size_t n = values->n_values_lists;
  values->values_lists = kept.data();
  values->n_values_lists = kept.size();
  auto text = deparse_tree(pr);
  values->values_lists = all;
  values->n_values_lists = n;
  return text;
}

}  // namespace pgrange::sql
