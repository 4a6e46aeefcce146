#include "sql/insert_defaults.hpp"

#include <pg_query/pg_query.pb-c.h>

#include <functional>
#include <optional>

#include "sql/parse_node.hpp"
#include "sql/quoting.hpp"

namespace pgrange::sql {
namespace {

/// The one INSERT of a parse tree, or null.
PgQuery__InsertStmt* insert_of(PgQuery__ParseResult* pr) {
  if (pr->n_stmts != 1 || pr->stmts[0]->stmt == nullptr ||
      pr->stmts[0]->stmt->node_case != PG_QUERY__NODE__NODE_INSERT_STMT) {
    return nullptr;
  }
  return pr->stmts[0]->stmt->insert_stmt;
}

/// The VALUES rows of an INSERT, or null for DEFAULT VALUES; `other` is set for INSERT … SELECT.
PgQuery__SelectStmt* values_of(PgQuery__InsertStmt* ins, bool& other) {
  other = false;
  if (ins->select_stmt == nullptr) return nullptr;
  if (ins->select_stmt->node_case == PG_QUERY__NODE__NODE_SELECT_STMT &&
      ins->select_stmt->select_stmt->n_values_lists > 0) {
    return ins->select_stmt->select_stmt;
  }
  other = true;
  return nullptr;
}

/// The items of a VALUES row.
PgQuery__List* row_list(PgQuery__Node* row) {
  return row->node_case == PG_QUERY__NODE__NODE_LIST ? row->list : nullptr;
}

/// Where the rows of an INSERT put `column`.
struct Layout {
  /// Position of the column in each row; nullopt: the rows do not reach it (it is appended).
  std::optional<size_t> position;
  /// Without a column list and not reaching the column: how many columns the rows give.
  std::optional<size_t> implicit_width;
};

/// How the INSERT's rows reach `column`, or nullopt when they cannot be filled.
std::optional<Layout> layout_of(PgQuery__InsertStmt* ins, PgQuery__SelectStmt* values,
                                std::string_view column,
                                std::span<const std::string> table_columns) {
  Layout l;
  if (ins->n_cols > 0) {
    for (size_t i = 0; i < ins->n_cols; ++i) {
      const PgQuery__Node* c = ins->cols[i];
      if (c->node_case == PG_QUERY__NODE__NODE_RES_TARGET && c->res_target->name == column) {
        if (c->res_target->n_indirection > 0) return std::nullopt;
        l.position = i;
      }
    }
    return l;
  }
  if (values == nullptr) return l;  // DEFAULT VALUES
  size_t p = 0;
  while (p < table_columns.size() && table_columns[p] != column) ++p;
  if (p == table_columns.size()) return std::nullopt;
  std::optional<size_t> width;
  for (size_t r = 0; r < values->n_values_lists; ++r) {
    PgQuery__List* row = row_list(values->values_lists[r]);
    if (row == nullptr || (width && *width != row->n_items)) return std::nullopt;
    width = row->n_items;
  }
  if (!width) return std::nullopt;
  if (p < *width) {
    l.position = p;
  } else {
    l.implicit_width = width;
  }
  return l;
}

/// Whether the rows of an INSERT … SELECT leave `column` to its default: the column list
/// leaves it out, or, without one, the select list has fewer items than the column's position
/// (a `*` or a set operation in it: unknown, taken as reaching it).
bool select_leaves_out(PgQuery__InsertStmt* ins, std::string_view column,
                       std::span<const std::string> table_columns) {
  if (ins->n_cols > 0) {
    for (size_t i = 0; i < ins->n_cols; ++i) {
      const PgQuery__Node* c = ins->cols[i];
      if (c->node_case == PG_QUERY__NODE__NODE_RES_TARGET && c->res_target->name == column) {
        return false;
      }
    }
    return true;
  }
  size_t p = 0;
  while (p < table_columns.size() && table_columns[p] != column) ++p;
  if (p == table_columns.size() || ins->select_stmt == nullptr ||
      ins->select_stmt->node_case != PG_QUERY__NODE__NODE_SELECT_STMT) {
    return false;
  }
  const PgQuery__SelectStmt* s = ins->select_stmt->select_stmt;
  if (s->op != PG_QUERY__SET_OPERATION__SETOP_NONE || s->n_target_list == 0) return false;
  for (size_t i = 0; i < s->n_target_list; ++i) {
    const PgQuery__Node* t = s->target_list[i];
    if (t->node_case != PG_QUERY__NODE__NODE_RES_TARGET || t->res_target->val == nullptr) {
      return false;
    }
    const PgQuery__Node* v = t->res_target->val;
    if (v->node_case == PG_QUERY__NODE__NODE_COLUMN_REF && v->column_ref->n_fields > 0 &&
        v->column_ref->fields[v->column_ref->n_fields - 1]->node_case ==
            PG_QUERY__NODE__NODE_A_STAR) {
      return false;  // t.* or *: how many columns it gives is unknown here
    }
  }
  return s->n_target_list <= p;
}

}  // namespace

Result<ColumnDefaults> insert_column_defaults(std::string_view insert_sql, std::string_view column,
                                              std::span<const std::string> table_columns) {
  ColumnDefaults out;
  auto tree = parse_tree(insert_sql);
  if (!tree) return tl::unexpected(tree.error());
  PgQuery__InsertStmt* ins = insert_of(tree->get());
  if (ins == nullptr) return out;
  out.overriding_system = ins->override == PG_QUERY__OVERRIDING_KIND__OVERRIDING_SYSTEM_VALUE;
  out.overriding_user = ins->override == PG_QUERY__OVERRIDING_KIND__OVERRIDING_USER_VALUE;
  bool other = false;
  PgQuery__SelectStmt* values = values_of(ins, other);
  if (other) {
    out.left_out = select_leaves_out(ins, column, table_columns);
    return out;
  }
  auto layout = layout_of(ins, values, column, table_columns);
  if (!layout) return out;
  out.fillable = true;
  if (values == nullptr) {
    out.rows.push_back(0);
    return out;
  }
  for (size_t r = 0; r < values->n_values_lists; ++r) {
    PgQuery__List* row = row_list(values->values_lists[r]);
    if (!layout->position) {
      out.rows.push_back(r);
      continue;
    }
    if (row == nullptr || *layout->position >= row->n_items) {
      out.fillable = false;  // PostgreSQL refuses a row shorter than the column list
      out.rows.clear();
      return out;
    }
    if (row->items[*layout->position]->node_case == PG_QUERY__NODE__NODE_SET_TO_DEFAULT) {
      out.rows.push_back(r);
    } else {
      out.given = true;
    }
  }
  return out;
}

Result<std::string> insert_with_column_values(std::string_view insert_sql, std::string_view column,
                                              std::span<const std::string> table_columns,
                                              std::span<const std::string> literals,
                                              bool overriding_system) {
  auto defaults = insert_column_defaults(insert_sql, column, table_columns);
  if (!defaults) return tl::unexpected(defaults.error());
  if (!defaults->fillable || defaults->rows.size() != literals.size()) {
    return fail(sqlstate::kInternalError, "the INSERT's rows do not match the values made");
  }
  auto tree = parse_tree(insert_sql);
  if (!tree) return tl::unexpected(tree.error());
  PgQuery__InsertStmt* ins = insert_of(tree->get());
  bool other = false;
  PgQuery__SelectStmt* values = values_of(ins, other);
  auto layout = layout_of(ins, values, column, table_columns);
  if (ins == nullptr || other || !layout) {
    return fail(sqlstate::kInternalError, "the INSERT changed while pgrange filled it");
  }

  // The nodes to graft come from a statement of their own: its column list (the target column
  // after those an INSERT without a list fills) and one VALUES row per literal.
  std::string donor = "INSERT INTO x (";
  size_t lead = layout->implicit_width.value_or(0);
  for (size_t i = 0; i < lead; ++i) donor += quote_ident(table_columns[i]) + ", ";
  donor += quote_ident(std::string(column)) + ") VALUES ";
  for (size_t i = 0; i < literals.size(); ++i) {
    donor += (i > 0 ? ", (" : "(") + literals[i] + ")";
  }
  auto donor_tree = parse_tree(donor);
  if (!donor_tree) return tl::unexpected(donor_tree.error());
  PgQuery__InsertStmt* d = insert_of(donor_tree->get());
  bool d_other = false;
  PgQuery__SelectStmt* d_values = values_of(d, d_other);
  if (d == nullptr || d_values == nullptr || d_values->n_values_lists != literals.size()) {
    return fail(sqlstate::kInternalError, "pgrange made a value it cannot write in SQL");
  }
  auto literal_node = [&](size_t i) { return row_list(d_values->values_lists[i])->items[0]; };

  // Both trees keep owning their nodes: every change is undone before they are freed.
  std::vector<std::function<void()>> undo;
  std::vector<std::vector<PgQuery__Node*>> arrays;
  arrays.reserve(literals.size() + 1);
  auto replace_array = [&](size_t& n, PgQuery__Node**& items, std::vector<PgQuery__Node*> next) {
    arrays.push_back(std::move(next));
    undo.push_back([&n, &items, old_n = n, old = items] {
      n = old_n;
      items = old;
    });
    items = arrays.back().data();
    n = arrays.back().size();
  };
  auto old_override = ins->override;
  undo.push_back([ins, old_override] { ins->override = old_override; });
  if (overriding_system) ins->override = PG_QUERY__OVERRIDING_KIND__OVERRIDING_SYSTEM_VALUE;

  if (values == nullptr) {
    // DEFAULT VALUES: the donor's column list and row.
    PgQuery__Node* old_select = ins->select_stmt;
    undo.push_back([ins, old_select] { ins->select_stmt = old_select; });
    ins->select_stmt = d->select_stmt;
    replace_array(ins->n_cols, ins->cols,
                  std::vector<PgQuery__Node*>(d->cols, d->cols + d->n_cols));
  } else if (layout->position) {
    for (size_t i = 0; i < defaults->rows.size(); ++i) {
      PgQuery__List* row = row_list(values->values_lists[defaults->rows[i]]);
      PgQuery__Node** slot = &row->items[*layout->position];
      undo.push_back([slot, old = *slot] { *slot = old; });
      *slot = literal_node(i);
    }
  } else {
    std::vector<PgQuery__Node*> cols(ins->cols, ins->cols + ins->n_cols);
    cols.insert(cols.end(), d->cols, d->cols + d->n_cols);
    replace_array(ins->n_cols, ins->cols, std::move(cols));
    for (size_t r = 0; r < values->n_values_lists; ++r) {
      PgQuery__List* row = row_list(values->values_lists[r]);
      std::vector<PgQuery__Node*> items(row->items, row->items + row->n_items);
      items.push_back(literal_node(r));
      replace_array(row->n_items, row->items, std::move(items));
    }
  }
  auto text = deparse_tree(tree->get());
  for (auto it = undo.rbegin(); it != undo.rend(); ++it) (*it)();
  return text;
}

}  // namespace pgrange::sql
