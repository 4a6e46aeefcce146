#include "sql/table_constraint.hpp"

#include <algorithm>
#include <optional>

#include "sql/parse_node.hpp"

namespace pgrange::sql {
namespace {

std::vector<std::string> names_of(PgQuery__Node* const* items, size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) {
    if (const char* s = string_of(items[i])) {
      out.emplace_back(s);
    } else if (items[i]->node_case == PG_QUERY__NODE__NODE_INDEX_ELEM) {
      // INCLUDE lists are index elements naming columns.
      const char* col = items[i]->index_elem->name;
      out.emplace_back(col != nullptr ? col : "");
    }
  }
  return out;
}

/// The storage parameters and tablespace of the constraint's index: pgrange's own index of it
/// does not take them.
std::string index_blocker(const PgQuery__Constraint* c) {
  std::vector<std::string> params;
  for (size_t i = 0; i < c->n_options; ++i) {
    if (c->options[i]->node_case != PG_QUERY__NODE__NODE_DEF_ELEM) continue;
    const PgQuery__DefElem* d = c->options[i]->def_elem;
    std::string ns = d->defnamespace;
    params.push_back(ns.empty() ? std::string(d->defname) : ns + "." + d->defname);
  }
  if (!params.empty()) {
    std::string b = params.size() == 1 ? "storage parameter " : "storage parameters ";
    for (size_t i = 0; i < params.size(); ++i) b += (i > 0 ? ", " : "") + params[i];
    return b;
  }
  if (c->indexspace != nullptr && c->indexspace[0] != '\0') return "USING INDEX TABLESPACE";
  return {};
}

/// One PRIMARY KEY / UNIQUE / EXCLUDE constraint node; nullopt for other kinds. `column`: the
/// column it is written on (empty for a table constraint).
std::optional<TableConstraint> read_constraint(const PgQuery__Constraint* c,
                                               const std::string& column) {
  TableConstraint out;
  switch (c->contype) {
    case PG_QUERY__CONSTR_TYPE__CONSTR_PRIMARY:
      out.kind = TableConstraint::Kind::kPrimaryKey;
      break;
    case PG_QUERY__CONSTR_TYPE__CONSTR_UNIQUE:
      out.kind = TableConstraint::Kind::kUnique;
      break;
    case PG_QUERY__CONSTR_TYPE__CONSTR_EXCLUSION:
      out.kind = TableConstraint::Kind::kExclude;
      break;
    default:
      return std::nullopt;
  }
  if (c->conname != nullptr) out.name = c->conname;
  out.column_constraint = !column.empty();
  out.nulls_not_distinct = c->nulls_not_distinct;
  out.deferrable = c->deferrable;
  if (c->indexname != nullptr) out.using_index = c->indexname;
  out.include = names_of(c->including, c->n_including);
  out.global_blocker = index_blocker(c);
  if (out.kind != TableConstraint::Kind::kExclude) {
    out.columns = column.empty() ? names_of(c->keys, c->n_keys) : std::vector<std::string>{column};
    return out;
  }
  // EXCLUDE [USING method] (element WITH operator, …) [WHERE (…)]: each exclusion is a list of
  // the index element and the operator's (possibly qualified) name.
  for (size_t i = 0; i < c->n_exclusions; ++i) {
    const PgQuery__Node* n = c->exclusions[i];
    std::string col, op;
    if (n->node_case == PG_QUERY__NODE__NODE_LIST && n->list->n_items == 2) {
      const PgQuery__Node* elem = n->list->items[0];
      const PgQuery__Node* name = n->list->items[1];
      if (elem->node_case == PG_QUERY__NODE__NODE_INDEX_ELEM && elem->index_elem->name != nullptr) {
        col = elem->index_elem->name;
      }
      if (name->node_case == PG_QUERY__NODE__NODE_LIST && name->list->n_items > 0) {
        if (const char* s = string_of(name->list->items[name->list->n_items - 1])) op = s;
      }
    }
    out.columns.push_back(std::move(col));
    out.operators.push_back(std::move(op));
  }
  if (out.global_blocker.empty() && c->where_clause != nullptr) out.global_blocker = "WHERE";
  return out;
}

/// The constraints written on a column definition. DEFERRABLE on a column constraint is a
/// node of its own after the one it qualifies (PostgreSQL's transformConstraintAttrs).
void column_constraints(const PgQuery__ColumnDef* def, bool added,
                        std::vector<TableConstraint>& out) {
  const std::string column = def->colname != nullptr ? def->colname : "";
  TableConstraint* last = nullptr;
  for (size_t i = 0; i < def->n_constraints; ++i) {
    const PgQuery__Node* n = def->constraints[i];
    if (n->node_case != PG_QUERY__NODE__NODE_CONSTRAINT) continue;
    const PgQuery__Constraint* c = n->constraint;
    if (c->contype == PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_DEFERRABLE ||
        c->contype == PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_DEFERRED) {
      if (last != nullptr) last->deferrable = true;
      continue;
    }
    if (c->contype == PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_NOT_DEFERRABLE) {
      if (last != nullptr) last->deferrable = false;
      continue;
    }
    if (c->contype == PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_IMMEDIATE) continue;
    last = nullptr;
    if (auto read = read_constraint(c, column)) {
      read->added_column = added;
      out.push_back(std::move(*read));
      last = &out.back();
    }
  }
}

}  // namespace

std::vector<TableConstraint> create_table_constraints(const PgQuery__CreateStmt* s) {
  std::vector<TableConstraint> out;
  std::vector<TableConstraint> table;
  for (size_t i = 0; i < s->n_table_elts; ++i) {
    const PgQuery__Node* n = s->table_elts[i];
    if (n->node_case == PG_QUERY__NODE__NODE_COLUMN_DEF) {
      column_constraints(n->column_def, false, out);
    } else if (n->node_case == PG_QUERY__NODE__NODE_CONSTRAINT) {
      if (auto c = read_constraint(n->constraint, "")) table.push_back(std::move(*c));
    }
  }
  for (size_t i = 0; i < s->n_constraints; ++i) {
    if (s->constraints[i]->node_case != PG_QUERY__NODE__NODE_CONSTRAINT) continue;
    if (auto c = read_constraint(s->constraints[i]->constraint, "")) table.push_back(std::move(*c));
  }
  out.insert(out.end(), table.begin(), table.end());
  return out;
}

std::vector<TableConstraint> alter_table_constraints(const PgQuery__AlterTableCmd* cmd) {
  std::vector<TableConstraint> out;
  if (cmd->def == nullptr) return out;
  if (cmd->subtype == PG_QUERY__ALTER_TABLE_TYPE__AT_AddConstraint &&
      cmd->def->node_case == PG_QUERY__NODE__NODE_CONSTRAINT) {
    if (auto c = read_constraint(cmd->def->constraint, "")) out.push_back(std::move(*c));
  } else if (cmd->subtype == PG_QUERY__ALTER_TABLE_TYPE__AT_AddColumn &&
             cmd->def->node_case == PG_QUERY__NODE__NODE_COLUMN_DEF) {
    column_constraints(cmd->def->column_def, true, out);
  }
  return out;
}

bool contains_key(const TableConstraint& c, const std::vector<std::string>& key) {
  if (key.empty()) return false;
  return std::all_of(key.begin(), key.end(), [&](const std::string& k) {
    for (size_t i = 0; i < c.columns.size(); ++i) {
      if (c.columns[i] != k) continue;
      if (c.kind != TableConstraint::Kind::kExclude) return true;
      if (i < c.operators.size() && c.operators[i] == "=") return true;
    }
    return false;
  });
}

std::string column_list(const std::vector<std::string>& columns) {
  std::string out;
  for (const std::string& c : columns) out += (out.empty() ? "" : ", ") + c;
  return out;
}

}  // namespace pgrange::sql
