#include "sql/create_as.hpp"

#include "sql/parse_node.hpp"
#include "sql/quoting.hpp"

namespace pgrange::sql {
namespace {

/// The table's name as written (schema-qualified when it was), quoted.
std::string table_name(const PgQuery__RangeVar* rel) {
  std::string name;
  if (rel->schemaname != nullptr && *rel->schemaname != '\0') {
    name = quote_ident(rel->schemaname) + ".";
  }
  return name + quote_ident(rel->relname == nullptr ? "" : rel->relname);
}

/// The INSERT that fills the table: no column list, as the table's columns are the query's in
/// its order (a shorter list in CREATE TABLE … AS only renames the first ones).
std::string insert_into(const PgQuery__RangeVar* rel, const std::string& query) {
  return "INSERT INTO " + table_name(rel) + " " + query;
}

/// SELECT … INTO [UNLOGGED] t …: the grammar leaves the INTO on the SELECT.
std::optional<CreateAs> read_select_into(const ParseTree& tree, PgQuery__Node* n) {
  PgQuery__SelectStmt* s = n->select_stmt;
  PgQuery__IntoClause* into = s->into_clause;
  if (into == nullptr || into->rel == nullptr) return std::nullopt;
  s->into_clause = nullptr;
  auto query = deparse_node(tree.get(), n);
  s->into_clause = into;
  if (!query) return std::nullopt;
  CreateAs out;
  bool unlogged =
      into->rel->relpersistence != nullptr && std::string_view(into->rel->relpersistence) == "u";
  out.create_sql = std::string("CREATE ") + (unlogged ? "UNLOGGED " : "") + "TABLE " +
                   table_name(into->rel) + " AS " + *query + " WITH NO DATA";
  out.insert_sql = insert_into(into->rel, *query);
  return out;
}

}  // namespace

std::optional<CreateAs> read_create_as(std::string_view sql) {
  auto tree = parse_tree(sql);
  if (!tree || (*tree)->n_stmts != 1 || (*tree)->stmts[0]->stmt == nullptr) return std::nullopt;
  PgQuery__Node* n = (*tree)->stmts[0]->stmt;
  if (n->node_case == PG_QUERY__NODE__NODE_SELECT_STMT) return read_select_into(*tree, n);
  if (n->node_case != PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT) return std::nullopt;
  PgQuery__CreateTableAsStmt* s = n->create_table_as_stmt;
  PgQuery__IntoClause* into = s->into;
  if (s->objtype != PG_QUERY__OBJECT_TYPE__OBJECT_TABLE || into == nullptr ||
      into->rel == nullptr || s->query == nullptr ||
      s->query->node_case != PG_QUERY__NODE__NODE_SELECT_STMT) {
    return std::nullopt;
  }
  // The query on its own, for the INSERT; the table without its rows.
  auto query = deparse_node(tree->get(), s->query);
  bool skip_data = into->skip_data;
  into->skip_data = true;
  auto create = deparse_tree(tree->get());
  if (!query || !create) return std::nullopt;
  CreateAs out;
  out.create_sql = std::move(*create);
  if (!skip_data) out.insert_sql = insert_into(into->rel, *query);
  return out;
}

}  // namespace pgrange::sql
