#include "sql/foreign_key_constraint.hpp"

#include <optional>

#include "sql/parse_node.hpp"

namespace pgrange::sql {
namespace {

std::vector<std::string> strings_of(PgQuery__Node* const* items, size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) {
    if (const char* s = string_of(items[i])) out.emplace_back(s);
  }
  return out;
}

/// A FOREIGN KEY constraint node (`column`: the column it is written on, empty for a table
/// constraint); nullopt for other kinds.
std::optional<ForeignKeyConstraint> read_foreign_key(const PgQuery__Node* n,
                                                     const std::string& column) {
  if (n->node_case != PG_QUERY__NODE__NODE_CONSTRAINT) return std::nullopt;
  const PgQuery__Constraint* c = n->constraint;
  if (c->contype != PG_QUERY__CONSTR_TYPE__CONSTR_FOREIGN) return std::nullopt;
  ForeignKeyConstraint out;
  if (c->conname != nullptr) out.name = c->conname;
  out.columns =
      column.empty() ? strings_of(c->fk_attrs, c->n_fk_attrs) : std::vector<std::string>{column};
  if (c->pktable != nullptr) {
    if (c->pktable->schemaname != nullptr) out.referenced_schema = c->pktable->schemaname;
    if (c->pktable->relname != nullptr) out.referenced_table = c->pktable->relname;
  }
  out.referenced_columns = strings_of(c->pk_attrs, c->n_pk_attrs);
  return out;
}

void column_foreign_keys(const PgQuery__ColumnDef* def, std::vector<ForeignKeyConstraint>& out) {
  const std::string column = def->colname != nullptr ? def->colname : "";
  for (size_t i = 0; i < def->n_constraints; ++i) {
    if (auto c = read_foreign_key(def->constraints[i], column)) out.push_back(std::move(*c));
  }
}

}  // namespace

std::vector<ForeignKeyConstraint> create_table_foreign_keys(const PgQuery__CreateStmt* s) {
  std::vector<ForeignKeyConstraint> out;
  for (size_t i = 0; i < s->n_table_elts; ++i) {
    const PgQuery__Node* n = s->table_elts[i];
    if (n->node_case == PG_QUERY__NODE__NODE_COLUMN_DEF) {
      column_foreign_keys(n->column_def, out);
    } else if (auto c = read_foreign_key(n, "")) {
      out.push_back(std::move(*c));
    }
  }
  for (size_t i = 0; i < s->n_constraints; ++i) {
    if (auto c = read_foreign_key(s->constraints[i], "")) out.push_back(std::move(*c));
  }
  return out;
}

std::vector<ForeignKeyConstraint> alter_table_foreign_keys(const PgQuery__AlterTableCmd* cmd) {
  std::vector<ForeignKeyConstraint> out;
  if (cmd->def == nullptr) return out;
  if (cmd->subtype == PG_QUERY__ALTER_TABLE_TYPE__AT_AddConstraint) {
    if (auto c = read_foreign_key(cmd->def, "")) out.push_back(std::move(*c));
  } else if (cmd->subtype == PG_QUERY__ALTER_TABLE_TYPE__AT_AddColumn &&
             cmd->def->node_case == PG_QUERY__NODE__NODE_COLUMN_DEF) {
    column_foreign_keys(cmd->def->column_def, out);
  }
  return out;
}

}  // namespace pgrange::sql
