// Queries inside a SELECT that read one table and nothing else: pgrange may answer them over the
// shards first (routing/plan/gather_plan.cpp).

#include "sql/summary_query.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>

#include "sql/parse_node.hpp"
#include "sql/sql_tokens.hpp"

namespace pgrange::sql {
namespace {

/// Whether anything under `m` is a subquery (or a function in FROM).
bool reads_outside(const ProtobufCMessage* m) {
  if (m == nullptr) return false;
  if (m->descriptor == &pg_query__sub_link__descriptor ||
      m->descriptor == &pg_query__range_subselect__descriptor ||
      m->descriptor == &pg_query__range_function__descriptor) {
    return true;
  }
  bool found = false;
  for_each_child(m, [&](const ProtobufCMessage* child) { found = found || reads_outside(child); });
  return found;
}

/// Whether anything under `m` is a parameter ($n).
bool has_parameter(const ProtobufCMessage* m) {
  if (m == nullptr) return false;
  if (m->descriptor == &pg_query__param_ref__descriptor) return true;
  bool found = false;
  for_each_child(m, [&](const ProtobufCMessage* child) { found = found || has_parameter(child); });
  return found;
}

/// The table of a query that reads one and nothing else, with something that makes its answer
/// smaller than the table; nullptr otherwise.
const PgQuery__RangeVar* summary_table(const PgQuery__SelectStmt* s) {
  if (s->op != PG_QUERY__SET_OPERATION__SETOP_NONE || s->with_clause != nullptr ||
      s->into_clause != nullptr || s->n_locking_clause > 0 || s->n_values_lists > 0 ||
      s->n_from_clause != 1 || s->from_clause[0]->node_case != PG_QUERY__NODE__NODE_RANGE_VAR) {
    return nullptr;
  }
  const PgQuery__RangeVar* table = s->from_clause[0]->range_var;
  if (!table->inh || table->location < 0) return nullptr;
  if (reads_outside(&s->base)) return nullptr;
  bool smaller = s->n_group_clause > 0 || s->n_distinct_clause > 0 || s->limit_count != nullptr ||
                 find_call(&s->base, [](const PgQuery__FuncCall* fc) {
                   return is_aggregate_call(fc);
                 }) != nullptr;
  return smaller ? table : nullptr;
}

class Finder {
 public:
  using Found = std::vector<std::pair<const PgQuery__RangeVar*, bool>>;  ///< table, parameters
  explicit Finder(Found& out) : out_(out) {}

  /// A query that reads nothing outside itself (the statement, a CTE's body, a derived table).
  void query(const PgQuery__Node* n, bool top) {
    if (n == nullptr || n->node_case != PG_QUERY__NODE__NODE_SELECT_STMT) return;
    const PgQuery__SelectStmt* s = n->select_stmt;
    if (!top) {
      if (const PgQuery__RangeVar* t = summary_table(s)) {
        out_.emplace_back(t, has_parameter(&s->base));
        return;
      }
    }
    if (s->with_clause != nullptr) {
      for (size_t i = 0; i < s->with_clause->n_ctes; ++i) {
        const PgQuery__Node* c = s->with_clause->ctes[i];
        if (c->node_case == PG_QUERY__NODE__NODE_COMMON_TABLE_EXPR) {
          query(c->common_table_expr->ctequery, false);
        }
      }
    }
    if (s->op != PG_QUERY__SET_OPERATION__SETOP_NONE) {
      // The arms of a set operation read nothing outside the statement either.
      if (s->larg != nullptr) arm(s->larg);
      if (s->rarg != nullptr) arm(s->rarg);
      return;
    }
    for (size_t i = 0; i < s->n_from_clause; ++i) from_item(s->from_clause[i]);
  }

 private:
  void arm(const PgQuery__SelectStmt* s) {
    PgQuery__Node n = PG_QUERY__NODE__INIT;
    n.node_case = PG_QUERY__NODE__NODE_SELECT_STMT;
    n.select_stmt = const_cast<PgQuery__SelectStmt*>(s);
    query(&n, true);  // an arm is no query of its own in the text: its parts may be
  }

  void from_item(const PgQuery__Node* n) {
    switch (n->node_case) {
      case PG_QUERY__NODE__NODE_RANGE_SUBSELECT:
        if (!n->range_subselect->lateral) query(n->range_subselect->subquery, false);
        break;
      case PG_QUERY__NODE__NODE_JOIN_EXPR:
        if (n->join_expr->larg != nullptr) from_item(n->join_expr->larg);
        if (n->join_expr->rarg != nullptr) from_item(n->join_expr->rarg);
        break;
      default:
        break;
    }
  }

  Found& out_;
};

}  // namespace

std::vector<SummaryQuery> summary_queries(std::string_view sql) {
  std::vector<SummaryQuery> out;
  auto tree = parse_tree(sql);
  if (!tree || (*tree)->n_stmts != 1 || (*tree)->stmts[0]->stmt == nullptr ||
      (*tree)->stmts[0]->stmt->node_case != PG_QUERY__NODE__NODE_SELECT_STMT) {
    return out;
  }
  Finder::Found tables;
  Finder(tables).query((*tree)->stmts[0]->stmt, true);
  if (tables.empty()) return out;
  const std::string text(sql);  // the tokens point into it
  auto tokens = scan_tokens(text);
  if (!tokens) return out;
  for (const auto& [t, parameters] : tables) {
    // Its query's text: inside the innermost parentheses around its table's name (the query
    // has none of its own around it: no join, no subquery).
    std::vector<size_t> open;
    size_t at = 0;
    for (; at < tokens->size() && (*tokens)[at].start < static_cast<size_t>(t->location); ++at) {
      if ((*tokens)[at].text == "(") open.push_back(at);
      if ((*tokens)[at].text == ")" && !open.empty()) open.pop_back();
    }
    if (open.empty() || at >= tokens->size() ||
        (*tokens)[at].start != static_cast<size_t>(t->location)) {
      continue;
    }
    size_t first = open.back() + 1;
    if (first >= tokens->size()) continue;
    std::string word((*tokens)[first].text);
    std::transform(word.begin(), word.end(), word.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (word != "select") continue;
    int depth = 0;
    size_t close = open.back();
    for (; close < tokens->size(); ++close) {
      if ((*tokens)[close].text == "(") ++depth;
      if ((*tokens)[close].text == ")" && --depth == 0) break;
    }
    if (close >= tokens->size()) continue;
    SummaryQuery q;
    q.begin = (*tokens)[open.back()].end;
    q.end = (*tokens)[close].start;
    q.table_location = t->location;
    q.parameters = parameters;
    out.push_back(q);
  }
  return out;
}

}  // namespace pgrange::sql
