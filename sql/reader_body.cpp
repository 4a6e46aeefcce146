#include "sql/reader_body.hpp"

#include <algorithm>
#include <string>

#include "sql/parse_node.hpp"
#include "sql/relation_uses.hpp"

namespace pgrange::sql {
namespace {

void add_once(std::vector<TableRef>& list, const TableRef& t) {
  if (std::find(list.begin(), list.end(), t) == list.end()) list.push_back(t);
}

/// Adds what analysed statements read, write and call.
void add_statements(const std::vector<StatementInfo>& infos, ReaderBody& body) {
  for (const StatementInfo& s : infos) {
    for (const TableRef& t : s.tables) add_once(body.reads, t);
    for (const TableRef& f : s.functions) add_once(body.calls, f);
    bool writes = s.kind == StatementKind::kInsert || s.kind == StatementKind::kUpdate ||
                  s.kind == StatementKind::kDelete;
    if (writes && !s.target.name.empty()) add_once(body.writes, s.target);
    for (const RelationUse& u : s.relations) {
      add_once(body.reads, u.table);
      if (u.writes) add_once(body.writes, u.table);
    }
  }
}

/// The String items of a List node (a function's AS clause).
std::vector<std::string> strings_of(const PgQuery__Node* n) {
  std::vector<std::string> out;
  if (n == nullptr || n->node_case != PG_QUERY__NODE__NODE_LIST) return out;
  for (size_t i = 0; i < n->list->n_items; ++i) {
    if (const char* s = string_of(n->list->items[i])) out.emplace_back(s);
  }
  return out;
}

}  // namespace

Result<ReaderBody> read_view_query(std::string_view select_sql) {
  auto infos = analyze_statements(select_sql);
  if (!infos) return tl::unexpected(infos.error());
  ReaderBody body;
  add_statements(*infos, body);
  if (infos->size() == 1) {
    const StatementInfo& s = infos->front();
    body.plain = s.kind == StatementKind::kSelect && s.single_table && !s.select_into &&
                 s.fanout_blocker.empty();
  }
  return body;
}

Result<ReaderBody> read_function_definition(std::string_view create_sql) {
  auto tree = parse_tree(create_sql);
  if (!tree) return tl::unexpected(tree.error());
  PgQuery__ParseResult* pr = tree->get();
  if (pr->n_stmts != 1 || pr->stmts[0]->stmt == nullptr ||
      pr->stmts[0]->stmt->node_case != PG_QUERY__NODE__NODE_CREATE_FUNCTION_STMT) {
    return fail(sqlstate::kSyntaxError, "not a CREATE FUNCTION or CREATE PROCEDURE statement");
  }
  const PgQuery__CreateFunctionStmt* f = pr->stmts[0]->stmt->create_function_stmt;
  std::string language;
  std::vector<std::string> as;
  for (size_t i = 0; i < f->n_options; ++i) {
    const PgQuery__Node* o = f->options[i];
    if (o->node_case != PG_QUERY__NODE__NODE_DEF_ELEM) continue;
    std::string_view name = o->def_elem->defname;
    if (name == "language") {
      if (const char* l = string_of(o->def_elem->arg)) language = l;
    } else if (name == "as") {
      as = strings_of(o->def_elem->arg);
    }
  }
  if (f->sql_body != nullptr) language = "sql";  // BEGIN ATOMIC / RETURN bodies are SQL
  if (language != "sql") {
    return fail(sqlstate::kFeatureNotSupported, "not a LANGUAGE sql function: " + language);
  }
  ReaderBody body;
  if (f->sql_body != nullptr) {
    for (const RelationUse& u : relation_uses(f->sql_body)) {
      add_once(body.reads, u.table);
      if (u.writes) add_once(body.writes, u.table);
    }
    for (const TableRef& c : function_calls(f->sql_body)) add_once(body.calls, c);
    return body;
  }
  if (as.size() != 1) return fail(sqlstate::kSyntaxError, "a LANGUAGE sql function without body");
  auto infos = analyze_statements(as.front());
  if (!infos) return tl::unexpected(infos.error());
  add_statements(*infos, body);
  return body;
}

}  // namespace pgrange::sql
