#include "sql/sequence_call.hpp"

#include <pg_query/pg_query.pb-c.h>

#include "sql/parse_node.hpp"

namespace pgrange::sql {
namespace {

bool is_sequence_function(std::string_view name) {
  return name == "nextval" || name == "currval" || name == "setval" || name == "lastval";
}

/// The call `fc` as a SequenceCall when it is one (pg_catalog or unqualified).
std::optional<SequenceCall> call_of(const PgQuery__FuncCall* fc) {
  const char* name = func_name(fc);
  if (name == nullptr || !is_sequence_function(name)) return std::nullopt;
  if (fc->n_funcname == 2) {
    const char* schema = string_of(fc->funcname[0]);
    if (schema == nullptr || std::string_view(schema) != "pg_catalog") return std::nullopt;
  }
  SequenceCall call;
  call.function = name;
  call.column = name;
  for (size_t i = 0; i < fc->n_args; ++i) {
    const PgQuery__Node* a = fc->args[i];
    // 't_seq'::regclass and the like: the constant inside the cast.
    while (a != nullptr && a->node_case == PG_QUERY__NODE__NODE_TYPE_CAST) a = a->type_cast->arg;
    if (a != nullptr && a->node_case == PG_QUERY__NODE__NODE_A_CONST) {
      call.args.push_back(constant_text(a->a_const));
    } else {
      call.args.emplace_back(std::nullopt);
    }
  }
  return call;
}

void collect(const ProtobufCMessage* m, std::vector<SequenceCall>& out) {
  if (m == nullptr) return;
  if (m->descriptor == &pg_query__func_call__descriptor) {
    if (auto c = call_of(reinterpret_cast<const PgQuery__FuncCall*>(m))) out.push_back(*c);
  }
  for_each_child(m, [&](const ProtobufCMessage* child) { collect(child, out); });
}

}  // namespace

std::optional<SequenceCall> sole_sequence_call(std::string_view sql) {
  auto tree = parse_tree(sql);
  if (!tree) return std::nullopt;
  const PgQuery__ParseResult* pr = tree->get();
  if (pr->n_stmts != 1 || pr->stmts[0]->stmt == nullptr ||
      pr->stmts[0]->stmt->node_case != PG_QUERY__NODE__NODE_SELECT_STMT) {
    return std::nullopt;
  }
  const PgQuery__SelectStmt* s = pr->stmts[0]->stmt->select_stmt;
  if (s->n_target_list != 1 || s->n_from_clause > 0 || s->where_clause != nullptr ||
      s->n_group_clause > 0 || s->having_clause != nullptr || s->n_sort_clause > 0 ||
      s->limit_count != nullptr || s->limit_offset != nullptr || s->n_distinct_clause > 0 ||
      s->into_clause != nullptr || s->with_clause != nullptr || s->n_values_lists > 0 ||
      s->n_locking_clause > 0 || s->n_window_clause > 0 || s->larg != nullptr) {
    return std::nullopt;
  }
  const PgQuery__Node* t = s->target_list[0];
  if (t->node_case != PG_QUERY__NODE__NODE_RES_TARGET || t->res_target->val == nullptr ||
      t->res_target->val->node_case != PG_QUERY__NODE__NODE_FUNC_CALL) {
    return std::nullopt;
  }
  const PgQuery__FuncCall* fc = t->res_target->val->func_call;
  if (fc->agg_star || fc->agg_distinct || fc->func_variadic || fc->over != nullptr ||
      fc->agg_filter != nullptr || fc->n_agg_order > 0) {
    return std::nullopt;
  }
  auto call = call_of(fc);
  if (!call) return std::nullopt;
  for (const auto& a : call->args) {
    if (!a) return std::nullopt;
  }
  if (t->res_target->name != nullptr && t->res_target->name[0] != '\0') {
    call->column = t->res_target->name;
  }
  return call;
}

std::vector<SequenceCall> sequence_calls(std::string_view sql) {
  std::vector<SequenceCall> out;
  auto tree = parse_tree(sql);
  if (!tree) return out;
  const PgQuery__ParseResult* pr = tree->get();
  for (size_t i = 0; i < pr->n_stmts; ++i) {
    const PgQuery__Node* st = pr->stmts[i]->stmt;
    if (st == nullptr) continue;
    // DDL that names a sequence function (a column's DEFAULT) does not call it.
    switch (st->node_case) {
      case PG_QUERY__NODE__NODE_SELECT_STMT:
      case PG_QUERY__NODE__NODE_INSERT_STMT:
      case PG_QUERY__NODE__NODE_UPDATE_STMT:
      case PG_QUERY__NODE__NODE_DELETE_STMT:
      case PG_QUERY__NODE__NODE_MERGE_STMT:
        collect(&st->base, out);
        break;
      default:
        break;
    }
  }
  return out;
}

std::optional<std::pair<std::string, std::string>> sequence_name_of(std::string_view text) {
  std::vector<std::string> parts(1);
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        parts.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        parts.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == '.') {
      parts.emplace_back();
    } else if (c == ' ') {
      continue;
    } else {
      parts.back() += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
  }
  if (quoted || parts.size() > 2) return std::nullopt;
  for (const auto& p : parts) {
    if (p.empty()) return std::nullopt;
  }
  if (parts.size() == 1) return std::pair{std::string(), parts[0]};
  return std::pair{parts[0], parts[1]};
}

bool mentions_sequence_function(std::string_view sql) {
  // "val" after "next", "curr", "last" or "set", any case; one pass, no library calls.
  auto lower = [&](size_t i) { return static_cast<char>(sql[i] | 0x20); };
  for (size_t p = 3; p + 2 < sql.size(); ++p) {
    if (lower(p) != 'v' || lower(p + 1) != 'a' || lower(p + 2) != 'l') continue;
    char a = lower(p - 3), b = lower(p - 2), c = lower(p - 1);
    if ((a == 'e' && b == 'x' && c == 't') || (a == 'u' && b == 'r' && c == 'r') ||
        (a == 'a' && b == 's' && c == 't') || (b == 'e' && c == 't')) {
      return true;
    }
  }
  return false;
}

}  // namespace pgrange::sql
