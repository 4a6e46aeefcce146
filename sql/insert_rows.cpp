#include "sql/insert_rows.hpp"

#include <pg_query/pg_query.pb-c.h>

#include <vector>

#include "sql/parse_node.hpp"
#include "sql/sql_tokens.hpp"

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

std::optional<std::vector<std::pair<size_t, size_t>>> values_row_spans(
    const std::string& insert_sql) {
  auto tokens = scan_tokens(insert_sql);
  if (!tokens) return std::nullopt;
  std::vector<std::pair<size_t, size_t>> spans;
  int depth = 0;
  bool insert = false;  // the INSERT keyword at the top level went by
  bool values = false;  // and then VALUES: its rows follow
  size_t row_begin = 0;
  for (const SqlToken& t : *tokens) {
    bool open = t.kind == PG_QUERY__TOKEN__ASCII_40;
    bool close = t.kind == PG_QUERY__TOKEN__ASCII_41;
    if (depth == 0 && values) {
      if (open) {
        row_begin = t.start;
      } else if (t.kind != PG_QUERY__TOKEN__ASCII_44) {
        break;  // ON CONFLICT, RETURNING, ';': the rows ended
      }
    }
    if (open) ++depth;
    if (close && --depth < 0) return std::nullopt;
    if (depth == 0 && values && close) spans.emplace_back(row_begin, t.end);
    if (depth == 0 && !values) {
      if (t.kind == PG_QUERY__TOKEN__INSERT) insert = true;
      if (t.kind == PG_QUERY__TOKEN__VALUES) {
        if (!insert) return std::nullopt;
        values = true;
      }
    }
  }
  if (spans.empty()) return std::nullopt;
  return spans;
}

std::string insert_with_row_spans(std::string_view insert_sql,
                                  const std::vector<std::pair<size_t, size_t>>& spans,
                                  std::span<const size_t> rows) {
  std::string out(insert_sql.substr(0, spans.front().first));
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& [begin, end] = spans.at(rows[i]);
    if (i > 0) out += ", ";
    out += insert_sql.substr(begin, end - begin);
  }
  out += insert_sql.substr(spans.back().second);
  return out;
}

}  // namespace pgrange::sql
