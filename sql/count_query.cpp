#include "sql/count_query.hpp"

#include <string_view>

#include "sql/parse_node.hpp"

namespace pgrange::sql {
namespace {

/// A function call or a subquery anywhere under `m`.
bool has_call_or_subquery(const ProtobufCMessage* m) {
  if (m->descriptor == &pg_query__func_call__descriptor ||
      m->descriptor == &pg_query__sub_link__descriptor) {
    return true;
  }
  bool found = false;
  for_each_child(m, [&](const ProtobufCMessage* c) { found = found || has_call_or_subquery(c); });
  return found;
}

}  // namespace

bool sole_count(const PgQuery__SelectStmt* s) {
  if (s->n_target_list != 1 || s->n_distinct_clause > 0 || s->n_group_clause > 0 ||
      s->group_distinct || s->having_clause != nullptr || s->n_sort_clause > 0 ||
      s->limit_count != nullptr || s->limit_offset != nullptr || s->n_locking_clause > 0 ||
      s->target_list[0]->node_case != PG_QUERY__NODE__NODE_RES_TARGET) {
    return false;
  }
  const PgQuery__Node* v = s->target_list[0]->res_target->val;
  if (v == nullptr || v->node_case != PG_QUERY__NODE__NODE_FUNC_CALL) return false;
  const PgQuery__FuncCall* fc = v->func_call;
  if (fc->agg_distinct || fc->agg_filter != nullptr || fc->over != nullptr || fc->n_agg_order > 0 ||
      fc->agg_within_group || fc->func_variadic) {
    return false;
  }
  if (!(fc->agg_star || fc->n_args == 1)) return false;
  if (fc->n_funcname == 2) {
    const char* schema = string_of(fc->funcname[0]);
    if (schema == nullptr || std::string_view(schema) != "pg_catalog") return false;
  } else if (fc->n_funcname != 1) {
    return false;
  }
  const char* name = string_of(fc->funcname[fc->n_funcname - 1]);
  return name != nullptr && std::string_view(name) == "count";
}

bool counts_rows_of_one_table(const PgQuery__SelectStmt* s) {
  if (!sole_count(s) || s->where_clause != nullptr || s->with_clause != nullptr ||
      s->n_from_clause != 1 ||
      s->from_clause[0]->node_case != PG_QUERY__NODE__NODE_RANGE_SUBSELECT) {
    return false;
  }
  const PgQuery__RangeSubselect* from = s->from_clause[0]->range_subselect;
  if (from->lateral || from->subquery == nullptr ||
      from->subquery->node_case != PG_QUERY__NODE__NODE_SELECT_STMT) {
    return false;
  }
  const PgQuery__SelectStmt* q = from->subquery->select_stmt;
  if (q->op != PG_QUERY__SET_OPERATION__SETOP_NONE || q->with_clause != nullptr ||
      q->n_distinct_clause > 0 || q->n_group_clause > 0 || q->having_clause != nullptr ||
      q->limit_count != nullptr || q->limit_offset != nullptr || q->n_window_clause > 0 ||
      q->n_values_lists > 0 || q->into_clause != nullptr || q->n_locking_clause > 0 ||
      q->n_from_clause != 1 || q->from_clause[0]->node_case != PG_QUERY__NODE__NODE_RANGE_VAR) {
    return false;
  }
  for (size_t i = 0; i < q->n_target_list; ++i) {
    if (has_call_or_subquery(&q->target_list[i]->base)) return false;
  }
  return q->where_clause == nullptr || !has_call_or_subquery(&q->where_clause->base);
}

}  // namespace pgrange::sql
