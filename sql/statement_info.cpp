#include "sql/statement_info.hpp"

#include <pg_query/pg_query.pb-c.h>
#include <protobuf-c/protobuf-c.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <iterator>
#include <memory>

#include "sql/count_query.hpp"
#include "sql/parse_node.hpp"
#include "sql/relation_uses.hpp"
#include "sql/where_condition.hpp"

namespace pgrange::sql {
namespace {

/// A name list such as DROP TABLE's objects ([catalog.][schema.]name) as a TableRef.
TableRef table_of_names(PgQuery__Node* const* names, size_t n) {
  TableRef t;
  if (n >= 1) {
    if (const char* s = string_of(names[n - 1])) t.name = s;
  }
  if (n >= 2) {
    if (const char* s = string_of(names[n - 2])) t.schema = s;
  }
  return t;
}

TableRef table_of(const PgQuery__RangeVar* rv) {
  if (rv == nullptr) return {};
  return TableRef{rv->schemaname, rv->relname};
}

/// Walks a whole statement once: collects every relation (minding CTE scopes) and notes the
/// constructs that make it more than a plain one-table statement.
class Walker {
 public:
  void visit(const ProtobufCMessage* m) {
    const ProtobufCMessageDescriptor* d = m->descriptor;
    if (d == &pg_query__range_var__descriptor) {
      relation(reinterpret_cast<const PgQuery__RangeVar*>(m), true);
      return;
    }
    if (d == &pg_query__locking_clause__descriptor) {
      // FOR UPDATE OF x names FROM items, not relations.
      return;
    }
    if (d == &pg_query__sub_link__descriptor || d == &pg_query__range_subselect__descriptor) {
      subquery = true;
    } else if (d == &pg_query__range_function__descriptor ||
               d == &pg_query__range_table_func__descriptor) {
      function_in_from = true;
    } else if (d == &pg_query__range_table_sample__descriptor) {
      tablesample = true;
    } else if (d == &pg_query__join_expr__descriptor) {
      join = true;
    } else if (d == &pg_query__sqlvalue_function__descriptor) {
      // CURRENT_DATE … LOCALTIMESTAMP(n): the time of the transaction where it runs.
      const auto* f = reinterpret_cast<const PgQuery__SQLValueFunction*>(m);
      if (f->op >= PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_DATE &&
          f->op <= PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIMESTAMP_N) {
        clock = true;
      }
    } else if (d == &pg_query__func_call__descriptor) {
      const auto* fc = reinterpret_cast<const PgQuery__FuncCall*>(m);
      TableRef f = table_of_names(fc->funcname, fc->n_funcname);
      if (!f.name.empty() && std::find(functions.begin(), functions.end(), f) == functions.end()) {
        functions.push_back(std::move(f));
      }
    } else if (d == &pg_query__select_stmt__descriptor) {
      const auto* s = reinterpret_cast<const PgQuery__SelectStmt*>(m);
      if (s->op != PG_QUERY__SET_OPERATION__SETOP_NONE &&
          s->op != PG_QUERY__SET_OPERATION__SET_OPERATION_UNDEFINED && set_operation.empty()) {
        set_operation = s->op == PG_QUERY__SET_OPERATION__SETOP_UNION       ? "UNION"
                        : s->op == PG_QUERY__SET_OPERATION__SETOP_INTERSECT ? "INTERSECT"
                                                                            : "EXCEPT";
      }
      if (s->n_from_clause > 1) join = true;
      size_t mark = with(s->with_clause);
      if (s->into_clause != nullptr) relation(s->into_clause->rel, false);
      // Field 16 is withClause, 2 intoClause.
      for_each_child(
          m, [this](const ProtobufCMessage* c) { visit(c); }, 16, 2);
      scope_.resize(mark);
      return;
    } else if (d == &pg_query__insert_stmt__descriptor) {
      const auto* s = reinterpret_cast<const PgQuery__InsertStmt*>(m);
      dml(m, s->with_clause, s->relation, 6);
      return;
    } else if (d == &pg_query__update_stmt__descriptor) {
      const auto* s = reinterpret_cast<const PgQuery__UpdateStmt*>(m);
      if (s->n_from_clause > 0) join = true;
      dml(m, s->with_clause, s->relation, 6);
      return;
    } else if (d == &pg_query__delete_stmt__descriptor) {
      const auto* s = reinterpret_cast<const PgQuery__DeleteStmt*>(m);
      if (s->n_using_clause > 0) join = true;
      dml(m, s->with_clause, s->relation, 5);
      return;
    }
    for_each_child(m, [this](const ProtobufCMessage* c) { visit(c); });
  }

  /// The relations in order of first appearance, deduplicated.
  std::vector<TableRef> tables() {
    std::stable_sort(found_.begin(), found_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<TableRef> out;
    for (auto& [loc, t] : found_) {
      if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(std::move(t));
    }
    return out;
  }

  size_t relation_mentions = 0;
  bool subquery = false;
  bool function_in_from = false;
  bool tablesample = false;
  bool join = false;
  bool clock = false;
  bool cte = false;
  std::string set_operation;
  std::vector<TableRef> functions;

 private:
  /// A relation: a CTE's name when one is in scope (only if `may_be_cte`), else a table.
  void relation(const PgQuery__RangeVar* rv, bool may_be_cte) {
    if (rv == nullptr) return;
    if (may_be_cte && rv->schemaname[0] == '\0' && rv->catalogname[0] == '\0' &&
        std::find(scope_.begin(), scope_.end(), std::string_view(rv->relname)) != scope_.end()) {
      return;
    }
    ++relation_mentions;
    found_.emplace_back(rv->location, table_of(rv));
  }

  /// Visits a WITH clause's CTE bodies and brings its names into scope; returns the scope size to
  /// restore after the statement that owns the clause.
  size_t with(const PgQuery__WithClause* w) {
    size_t mark = scope_.size();
    if (w == nullptr) return mark;
    cte = true;
    auto name_of = [](const PgQuery__Node* n) -> const char* {
      return n->node_case == PG_QUERY__NODE__NODE_COMMON_TABLE_EXPR ? n->common_table_expr->ctename
                                                                    : nullptr;
    };
    if (w->recursive) {
      for (size_t i = 0; i < w->n_ctes; ++i) {
        if (const char* name = name_of(w->ctes[i])) scope_.emplace_back(name);
      }
    }
    for (size_t i = 0; i < w->n_ctes; ++i) {
      const PgQuery__Node* n = w->ctes[i];
      if (n->node_case == PG_QUERY__NODE__NODE_COMMON_TABLE_EXPR &&
          n->common_table_expr->ctequery != nullptr) {
        visit(&n->common_table_expr->ctequery->base);
      }
      if (!w->recursive) {
        if (const char* name = name_of(n)) scope_.emplace_back(name);
      }
    }
    return mark;
  }

  /// INSERT/UPDATE/DELETE: the target is always a table (never a CTE).
  void dml(const ProtobufCMessage* m, const PgQuery__WithClause* w, const PgQuery__RangeVar* target,
           uint32_t with_field) {
    size_t mark = with(w);
    relation(target, false);
    // Field 1 is the target relation in all three.
    for_each_child(
        m, [this](const ProtobufCMessage* c) { visit(c); }, 1, with_field);
    scope_.resize(mark);
  }

  std::vector<std::pair<int, TableRef>> found_;
  std::vector<std::string> scope_;
};

void collect_equalities(const PgQuery__Node* where, const PgQuery__RangeVar* rv,
                        StatementInfo& info) {
  std::vector<const PgQuery__Node*> parts;
  conjuncts(where, parts);
  for (const PgQuery__Node* p : parts) {
    if (p->node_case != PG_QUERY__NODE__NODE_A_EXPR || !is_equals(p->a_expr)) continue;
    const PgQuery__AExpr* e = p->a_expr;
    std::optional<std::string> col = column_of(e->lexpr, rv);
    std::optional<ValueRef> val;
    if (col) {
      val = value_of(e->rexpr);
    } else {
      col = column_of(e->rexpr, rv);
      if (col) val = value_of(e->lexpr);
    }
    if (!col || !val || val->kind == ValueRef::Kind::kNull) continue;
    info.equalities.emplace_back(std::move(*col), std::move(*val));
  }
}

void add_set_columns(PgQuery__Node** targets, size_t n, StatementInfo& info) {
  for (size_t i = 0; i < n; ++i) {
    if (targets[i]->node_case != PG_QUERY__NODE__NODE_RES_TARGET) continue;
    const char* name = targets[i]->res_target->name;
    if (name != nullptr && name[0] != '\0') info.set_columns.emplace_back(name);
  }
}

/// What WHERE says about the columns of a single-table statement: its `col = value`
/// conjuncts and its condition tree.
void collect_key_conditions(const PgQuery__Node* where, const PgQuery__RangeVar* rv,
                            StatementInfo& info) {
  collect_equalities(where, rv, info);
  if (where != nullptr) info.where = condition_of(where, rv);
}

/// The one RangeVar of a single-table SELECT's FROM clause.
const PgQuery__RangeVar* sole_range_var(const PgQuery__SelectStmt* s) {
  if (s->n_from_clause != 1 || s->from_clause[0]->node_case != PG_QUERY__NODE__NODE_RANGE_VAR) {
    return nullptr;
  }
  return s->from_clause[0]->range_var;
}

bool is_null_const(const PgQuery__Node* n) {
  return n != nullptr && n->node_case == PG_QUERY__NODE__NODE_A_CONST && n->a_const->isnull;
}

std::string fanout_blocker(const PgQuery__SelectStmt* s, const Walker& w,
                           const StatementInfo& info) {
  if (w.cte) return "WITH";
  if (!w.set_operation.empty()) return w.set_operation;
  if (w.join) return "JOIN";
  if (w.subquery) return "subquery";
  if (w.relation_mentions > 1) return "JOIN";
  if (w.function_in_from) return "set-returning function";
  if (w.tablesample) return "TABLESAMPLE";
  if (!info.single_table) return s->n_values_lists > 0 ? "VALUES" : "no table";
  if (s->n_distinct_clause > 0) return "DISTINCT";
  auto in_clauses = [&](const auto& pred) -> const PgQuery__FuncCall* {
    for (size_t i = 0; i < s->n_target_list; ++i) {
      if (auto* fc = find_call(&s->target_list[i]->base, pred)) return fc;
    }
    if (s->having_clause != nullptr) {
      if (auto* fc = find_call(&s->having_clause->base, pred)) return fc;
    }
    for (size_t i = 0; i < s->n_sort_clause; ++i) {
      if (auto* fc = find_call(&s->sort_clause[i]->base, pred)) return fc;
    }
    return nullptr;
  };
  if (const PgQuery__FuncCall* agg = in_clauses(&is_aggregate_call)) {
    return "aggregate " + std::string(func_name(agg)) + "()";
  }
  if (in_clauses([](const PgQuery__FuncCall* fc) { return fc->over != nullptr; }) != nullptr) {
    return "window function";
  }
  if (s->n_group_clause > 0 || s->group_distinct) return "GROUP BY";
  if (s->having_clause != nullptr) return "HAVING";
  if (s->n_sort_clause > 0) return "ORDER BY";
  if (s->limit_count != nullptr && !is_null_const(s->limit_count)) return "LIMIT";
  if (s->limit_offset != nullptr) return "OFFSET";
  for (size_t i = 0; i < s->n_locking_clause; ++i) {
    const PgQuery__Node* n = s->locking_clause[i];
    if (n->node_case != PG_QUERY__NODE__NODE_LOCKING_CLAUSE) continue;
    switch (n->locking_clause->strength) {
      case PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORKEYSHARE:
        return "FOR KEY SHARE";
      case PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORSHARE:
        return "FOR SHARE";
      case PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORNOKEYUPDATE:
        return "FOR NO KEY UPDATE";
      default:
        return "FOR UPDATE";
    }
  }
  return {};
}

/// A FOR UPDATE / FOR SHARE clause anywhere under `m`.
bool locks_rows(const ProtobufCMessage* m) {
  if (m->descriptor == &pg_query__locking_clause__descriptor) return true;
  bool found = false;
  for_each_child(m, [&](const ProtobufCMessage* child) { found = found || locks_rows(child); });
  return found;
}

std::vector<std::string> string_list(PgQuery__Node* const* items, size_t n) {
  std::vector<std::string> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (const char* s = string_of(items[i])) out.emplace_back(s);
  }
  return out;
}

/// A column definition; a PRIMARY KEY constraint on it goes to `primary_key`.
/// Notes the collation a column definition names with COLLATE, if any.
void add_collation(const PgQuery__ColumnDef* c, StatementInfo& info) {
  if (c->coll_clause == nullptr || c->coll_clause->n_collname == 0) return;
  if (const char* name = string_of(c->coll_clause->collname[c->coll_clause->n_collname - 1])) {
    info.column_collations.emplace_back(name);
  }
}

/// The first construct under `m` whose value each server computes differently: a call of a
/// function that varies_by_server ("now()"), or a clock value ("CURRENT_TIMESTAMP"); "" if none.
std::string varying_construct(const ProtobufCMessage* m) {
  if (m->descriptor == &pg_query__func_call__descriptor) {
    const auto* fc = reinterpret_cast<const PgQuery__FuncCall*>(m);
    TableRef f = table_of_names(fc->funcname, fc->n_funcname);
    if (varies_by_server(f)) return f.name + "()";
  } else if (m->descriptor == &pg_query__sqlvalue_function__descriptor) {
    const auto* f = reinterpret_cast<const PgQuery__SQLValueFunction*>(m);
    if (f->op >= PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_DATE &&
        f->op <= PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIMESTAMP_N) {
      return "CURRENT_TIMESTAMP";
    }
  }
  std::string found;
  for_each_child(m, [&](const ProtobufCMessage* child) {
    if (found.empty()) found = varying_construct(child);
  });
  return found;
}

ColumnInfo column_def(const PgQuery__ColumnDef* c, std::vector<std::string>& primary_key) {
  ColumnInfo col;
  col.name = c->colname;
  col.type = type_name(c->type_name);
  col.not_null = c->is_not_null;
  if (col.type == "serial" || col.type == "bigserial" || col.type == "smallserial") {
    col.varying_default = col.type;
  }
  for (size_t i = 0; i < c->n_constraints; ++i) {
    const PgQuery__Node* n = c->constraints[i];
    if (n->node_case != PG_QUERY__NODE__NODE_CONSTRAINT) continue;
    switch (n->constraint->contype) {
      case PG_QUERY__CONSTR_TYPE__CONSTR_NOTNULL:
        col.not_null = true;
        break;
      case PG_QUERY__CONSTR_TYPE__CONSTR_PRIMARY:
        col.not_null = true;
        primary_key = {col.name};
        break;
      case PG_QUERY__CONSTR_TYPE__CONSTR_IDENTITY:
        col.varying_default = "GENERATED AS IDENTITY";
        break;
      case PG_QUERY__CONSTR_TYPE__CONSTR_DEFAULT:
        if (n->constraint->raw_expr != nullptr) {
          col.varying_default = varying_construct(&n->constraint->raw_expr->base);
        }
        break;
      default:
        break;
    }
  }
  return col;
}

/// A FROM item made of relations and joins of them only.
bool relations_only(const PgQuery__Node* n) {
  if (n == nullptr) return false;
  if (n->node_case == PG_QUERY__NODE__NODE_RANGE_VAR) return true;
  if (n->node_case != PG_QUERY__NODE__NODE_JOIN_EXPR) return false;
  return relations_only(n->join_expr->larg) && relations_only(n->join_expr->rarg);
}

void describe_select(const PgQuery__SelectStmt* s, const Walker& w, StatementInfo& info) {
  if (s->into_clause != nullptr) {
    info.kind = StatementKind::kCreateTable;
    info.create_as = true;
    info.select_into = true;
    info.target = table_of(s->into_clause->rel);
    if (s->into_clause->rel != nullptr) {
      info.temporary = std::string_view(s->into_clause->rel->relpersistence) == "t";
    }
    return;
  }
  info.kind = StatementKind::kSelect;
  if (info.single_table) {
    if (const PgQuery__RangeVar* rv = sole_range_var(s)) {
      collect_key_conditions(s->where_clause, rv, info);
    }
  }
  info.fanout_blocker = fanout_blocker(s, w, info);
  info.locks_rows = locks_rows(&s->base);
  info.plain_from = s->with_clause == nullptr && s->n_from_clause > 0 &&
                    s->op == PG_QUERY__SET_OPERATION__SETOP_NONE &&
                    std::all_of(s->from_clause, s->from_clause + s->n_from_clause,
                                [](const PgQuery__Node* n) { return relations_only(n); });
  info.sums_counts = (info.fanout_blocker == "aggregate count()" && sole_count(s)) ||
                     (info.fanout_blocker == "subquery" && counts_rows_of_one_table(s));
}

void describe_insert(const PgQuery__InsertStmt* s, StatementInfo& info) {
  info.kind = StatementKind::kInsert;
  info.target = table_of(s->relation);
  for (size_t i = 0; i < s->n_cols; ++i) {
    if (s->cols[i]->node_case == PG_QUERY__NODE__NODE_RES_TARGET) {
      info.insert_columns.emplace_back(s->cols[i]->res_target->name);
    }
  }
  if (s->select_stmt != nullptr && s->select_stmt->node_case == PG_QUERY__NODE__NODE_SELECT_STMT &&
      s->select_stmt->select_stmt->n_values_lists > 0) {
    const PgQuery__SelectStmt* v = s->select_stmt->select_stmt;
    info.insert_values = true;
    info.insert_rows.reserve(v->n_values_lists);
    for (size_t i = 0; i < v->n_values_lists; ++i) {
      const PgQuery__Node* row = v->values_lists[i];
      std::vector<std::optional<ValueRef>> values;
      if (row->node_case == PG_QUERY__NODE__NODE_LIST) {
        values.reserve(row->list->n_items);
        for (size_t j = 0; j < row->list->n_items; ++j) {
          values.push_back(value_of(row->list->items[j]));
        }
      }
      info.insert_rows.push_back(std::move(values));
    }
  }
  info.on_conflict = s->on_conflict_clause != nullptr;
  if (info.on_conflict) {
    add_set_columns(s->on_conflict_clause->target_list, s->on_conflict_clause->n_target_list, info);
    if (const PgQuery__InferClause* infer = s->on_conflict_clause->infer) {
      if (infer->conname != nullptr && infer->conname[0] != '\0') {
        info.conflict_constraint = infer->conname;
      }
      for (size_t i = 0; i < infer->n_index_elems; ++i) {
        const PgQuery__Node* n = infer->index_elems[i];
        bool column = n->node_case == PG_QUERY__NODE__NODE_INDEX_ELEM &&
                      n->index_elem->name != nullptr && n->index_elem->name[0] != '\0';
        info.conflict_columns.push_back(column ? n->index_elem->name : "");
      }
    }
  }
  info.on_conflict_update = info.on_conflict && s->on_conflict_clause->action ==
                                                    PG_QUERY__ON_CONFLICT_ACTION__ONCONFLICT_UPDATE;
  info.returning = s->n_returning_list > 0;
}

void describe_create(const PgQuery__CreateStmt* s, StatementInfo& info) {
  info.kind = StatementKind::kCreateTable;
  info.target = table_of(s->relation);
  info.if_not_exists = s->if_not_exists;
  info.temporary = s->relation != nullptr && std::string_view(s->relation->relpersistence) == "t";
  for (size_t i = 0; i < s->n_inh_relations; ++i) {
    const PgQuery__Node* n = s->inh_relations[i];
    if (n->node_case == PG_QUERY__NODE__NODE_RANGE_VAR)
      info.parents.push_back(table_of(n->range_var));
  }
  info.of_type = s->of_typename != nullptr;
  info.partition_of = s->partbound != nullptr;
  auto table_constraint = [&](const PgQuery__Constraint* c) {
    if (c->contype == PG_QUERY__CONSTR_TYPE__CONSTR_PRIMARY && c->n_keys > 0) {
      info.primary_key = string_list(c->keys, c->n_keys);
    }
  };
  for (size_t i = 0; i < s->n_table_elts; ++i) {
    const PgQuery__Node* n = s->table_elts[i];
    switch (n->node_case) {
      case PG_QUERY__NODE__NODE_COLUMN_DEF:
        info.columns.push_back(column_def(n->column_def, info.primary_key));
        add_collation(n->column_def, info);
        break;
      case PG_QUERY__NODE__NODE_CONSTRAINT:
        table_constraint(n->constraint);
        break;
      case PG_QUERY__NODE__NODE_TABLE_LIKE_CLAUSE: {
        // PostgreSQL's CREATE_TABLE_LIKE_INDEXES (INCLUDING INDEXES, INCLUDING ALL).
        constexpr uint32_t kLikeIndexes = 1u << 6;
        info.has_like = true;
        if ((n->table_like_clause->options & kLikeIndexes) != 0) {
          info.like_indexes.push_back(table_of(n->table_like_clause->relation));
        }
        break;
      }
      default:
        break;
    }
  }
  for (size_t i = 0; i < s->n_constraints; ++i) {
    if (s->constraints[i]->node_case == PG_QUERY__NODE__NODE_CONSTRAINT) {
      table_constraint(s->constraints[i]->constraint);
    }
  }
  info.constraints = create_table_constraints(s);
  info.foreign_keys = create_table_foreign_keys(s);
  for (ColumnInfo& c : info.columns) {
    if (std::find(info.primary_key.begin(), info.primary_key.end(), c.name) !=
        info.primary_key.end()) {
      c.not_null = true;
    }
  }
}

/// Whether a list of DefElem nodes holds the option `name` (RESTART, …).
bool has_option(PgQuery__Node* const* items, size_t n, std::string_view name) {
  for (size_t i = 0; i < n; ++i) {
    if (items[i]->node_case == PG_QUERY__NODE__NODE_DEF_ELEM &&
        name == items[i]->def_elem->defname) {
      return true;
    }
  }
  return false;
}

void describe_alter(const PgQuery__AlterTableStmt* s, StatementInfo& info) {
  if (s->objtype != PG_QUERY__OBJECT_TYPE__OBJECT_TABLE) {
    // ALTER VIEW, SEQUENCE, MATERIALIZED VIEW, INDEX, FOREIGN TABLE, TYPE (composite).
    info.kind = StatementKind::kSchemaDdl;
    info.target = table_of(s->relation);
    return;
  }
  info.kind = StatementKind::kAlterTable;
  info.target = table_of(s->relation);
  info.if_exists = s->missing_ok;
  for (size_t i = 0; i < s->n_cmds; ++i) {
    const PgQuery__Node* n = s->cmds[i];
    if (n->node_case != PG_QUERY__NODE__NODE_ALTER_TABLE_CMD) {
      ++info.alter_commands;
      info.alter_other = true;
      continue;
    }
    const PgQuery__AlterTableCmd* cmd = n->alter_table_cmd;
    ++info.alter_commands;
    for (TableConstraint& c : alter_table_constraints(cmd))
      info.constraints.push_back(std::move(c));
    for (ForeignKeyConstraint& c : alter_table_foreign_keys(cmd))
      info.foreign_keys.push_back(std::move(c));
    if (cmd->behavior == PG_QUERY__DROP_BEHAVIOR__DROP_CASCADE) info.cascade = true;
    switch (cmd->subtype) {
      case PG_QUERY__ALTER_TABLE_TYPE__AT_AddColumn:
        if (cmd->def != nullptr && cmd->def->node_case == PG_QUERY__NODE__NODE_COLUMN_DEF) {
          info.added_columns.push_back(column_def(cmd->def->column_def, info.primary_key));
          add_collation(cmd->def->column_def, info);
          if (cmd->missing_ok) info.if_not_exists = true;
        } else {
          info.alter_other = true;
        }
        break;
      case PG_QUERY__ALTER_TABLE_TYPE__AT_ColumnDefault:
        info.default_changes.emplace_back(
            cmd->name, cmd->def != nullptr ? varying_construct(&cmd->def->base) : "");
        info.alter_other = true;
        break;
      case PG_QUERY__ALTER_TABLE_TYPE__AT_DropConstraint:
        info.dropped_constraints.emplace_back(cmd->name);
        info.alter_other = true;
        break;
      case PG_QUERY__ALTER_TABLE_TYPE__AT_DropColumn:
        info.dropped_columns.emplace_back(cmd->name);
        break;
      case PG_QUERY__ALTER_TABLE_TYPE__AT_ChangeOwner:
        info.changes_privileges = true;
        info.alter_other = true;
        break;
      case PG_QUERY__ALTER_TABLE_TYPE__AT_AlterColumnType:
        info.altered_type_columns.emplace_back(cmd->name);
        if (cmd->def != nullptr && cmd->def->node_case == PG_QUERY__NODE__NODE_COLUMN_DEF) {
          add_collation(cmd->def->column_def, info);
        }
        info.alter_other = true;
        break;
      case PG_QUERY__ALTER_TABLE_TYPE__AT_SetIdentity: {
        const PgQuery__Node* d = cmd->def;
        bool restart = d != nullptr && d->node_case == PG_QUERY__NODE__NODE_LIST &&
                       has_option(d->list->items, d->list->n_items, "restart");
        info.identity_changes.emplace_back(cmd->name, restart);
        info.alter_other = true;
        break;
      }
      case PG_QUERY__ALTER_TABLE_TYPE__AT_AddConstraint:
        if (cmd->def != nullptr && cmd->def->node_case == PG_QUERY__NODE__NODE_CONSTRAINT &&
            cmd->def->constraint->contype == PG_QUERY__CONSTR_TYPE__CONSTR_PRIMARY &&
            cmd->def->constraint->n_keys > 0) {
          info.primary_key = string_list(cmd->def->constraint->keys, cmd->def->constraint->n_keys);
        } else {
          info.alter_other = true;
        }
        break;
      case PG_QUERY__ALTER_TABLE_TYPE__AT_AttachPartition:
      case PG_QUERY__ALTER_TABLE_TYPE__AT_DetachPartition:
      case PG_QUERY__ALTER_TABLE_TYPE__AT_DetachPartitionFinalize:
      case PG_QUERY__ALTER_TABLE_TYPE__AT_AddInherit:
      case PG_QUERY__ALTER_TABLE_TYPE__AT_DropInherit:
      case PG_QUERY__ALTER_TABLE_TYPE__AT_AddOf:
      case PG_QUERY__ALTER_TABLE_TYPE__AT_DropOf:
        info.changes_parents = true;
        info.alter_other = true;
        break;
      default:
        info.alter_other = true;
        break;
    }
  }
}

void describe_rename(const PgQuery__RenameStmt* s, StatementInfo& info) {
  const bool on_table = s->rename_type == PG_QUERY__OBJECT_TYPE__OBJECT_TABLE ||
                        ((s->rename_type == PG_QUERY__OBJECT_TYPE__OBJECT_COLUMN ||
                          s->rename_type == PG_QUERY__OBJECT_TYPE__OBJECT_TABCONSTRAINT) &&
                         s->relation_type == PG_QUERY__OBJECT_TYPE__OBJECT_TABLE);
  if (!on_table) {
    switch (s->rename_type) {
      case PG_QUERY__OBJECT_TYPE__OBJECT_ROLE:
        info.kind = StatementKind::kRoleDdl;
        break;
      case PG_QUERY__OBJECT_TYPE__OBJECT_DATABASE:
      case PG_QUERY__OBJECT_TYPE__OBJECT_TABLESPACE:
      case PG_QUERY__OBJECT_TYPE__OBJECT_PUBLICATION:
      case PG_QUERY__OBJECT_TYPE__OBJECT_SUBSCRIPTION:
        info.kind = StatementKind::kOtherUtility;  // the server's, not the database's schema
        break;
      default:
        info.kind = StatementKind::kSchemaDdl;
        info.target = table_of(s->relation);
        info.rename_to = s->newname;
        break;
    }
    return;
  }
  info.kind = StatementKind::kAlterTable;
  info.target = table_of(s->relation);
  info.if_exists = s->missing_ok;
  if (s->rename_type == PG_QUERY__OBJECT_TYPE__OBJECT_TABLE) {
    info.rename_to = s->newname;
    return;
  }
  info.alter_other = true;
  if (s->rename_type == PG_QUERY__OBJECT_TYPE__OBJECT_COLUMN) {
    info.renamed_column.emplace(s->subname, s->newname);
  }
}

void describe_drop(const PgQuery__DropStmt* s, StatementInfo& info) {
  switch (s->remove_type) {
    case PG_QUERY__OBJECT_TYPE__OBJECT_TABLE:
      info.kind = StatementKind::kDropTable;
      break;
    case PG_QUERY__OBJECT_TYPE__OBJECT_INDEX:
      info.kind = StatementKind::kDropIndex;
      break;
    case PG_QUERY__OBJECT_TYPE__OBJECT_PUBLICATION:  // the server's, for its replication
      info.kind = StatementKind::kOtherUtility;
      break;
    default:
      info.kind = StatementKind::kSchemaDdl;
      break;
  }
  info.if_exists = s->missing_ok;
  info.cascade = s->behavior == PG_QUERY__DROP_BEHAVIOR__DROP_CASCADE;
  for (size_t i = 0; i < s->n_objects; ++i) {
    const PgQuery__Node* n = s->objects[i];
    if (n->node_case == PG_QUERY__NODE__NODE_LIST) {
      info.dropped_objects.push_back(table_of_names(n->list->items, n->list->n_items));
    } else if (n->node_case == PG_QUERY__NODE__NODE_STRING) {
      info.dropped_objects.push_back(TableRef{{}, n->string->sval});
    }
  }
  if (info.kind == StatementKind::kDropTable) {
    for (const TableRef& t : info.dropped_objects) {
      if (std::find(info.tables.begin(), info.tables.end(), t) == info.tables.end()) {
        info.tables.push_back(t);
      }
    }
    info.single_table = info.tables.size() == 1;
  }
}

std::string_view transaction_kind(PgQuery__TransactionStmtKind k) {
  switch (k) {
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_BEGIN:
      return "begin";
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_START:
      return "start";
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_COMMIT:
      return "commit";
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK:
      return "rollback";
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_SAVEPOINT:
      return "savepoint";
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_RELEASE:
      return "release";
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK_TO:
      return "rollback_to";
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_PREPARE:
      return "prepare";
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_COMMIT_PREPARED:
      return "commit_prepared";
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK_PREPARED:
      return "rollback_prepared";
    default:
      return "";
  }
}

/// Statements on objects of the database's schema (other than those describe() reads more
/// closely) that every shard must run alike. Not the server's objects (roles, databases,
/// tablespaces, publications, subscriptions, ALTER SYSTEM) nor session commands.
bool is_schema_ddl(PgQuery__Node__NodeCase c) {
  switch (c) {
    case PG_QUERY__NODE__NODE_ALTER_DOMAIN_STMT:
    case PG_QUERY__NODE__NODE_GRANT_STMT:
    case PG_QUERY__NODE__NODE_ALTER_DEFAULT_PRIVILEGES_STMT:
    case PG_QUERY__NODE__NODE_CLUSTER_STMT:
    case PG_QUERY__NODE__NODE_DEFINE_STMT:
    case PG_QUERY__NODE__NODE_COMMENT_STMT:
    case PG_QUERY__NODE__NODE_ALTER_FUNCTION_STMT:
    case PG_QUERY__NODE__NODE_RULE_STMT:
    case PG_QUERY__NODE__NODE_CREATE_DOMAIN_STMT:
    case PG_QUERY__NODE__NODE_ALTER_SEQ_STMT:
    case PG_QUERY__NODE__NODE_CREATE_TRIG_STMT:
    case PG_QUERY__NODE__NODE_CREATE_PLANG_STMT:
    case PG_QUERY__NODE__NODE_REINDEX_STMT:
    case PG_QUERY__NODE__NODE_CREATE_SCHEMA_STMT:
    case PG_QUERY__NODE__NODE_CREATE_CONVERSION_STMT:
    case PG_QUERY__NODE__NODE_CREATE_CAST_STMT:
    case PG_QUERY__NODE__NODE_CREATE_OP_CLASS_STMT:
    case PG_QUERY__NODE__NODE_CREATE_OP_FAMILY_STMT:
    case PG_QUERY__NODE__NODE_ALTER_OP_FAMILY_STMT:
    case PG_QUERY__NODE__NODE_ALTER_OBJECT_DEPENDS_STMT:
    case PG_QUERY__NODE__NODE_ALTER_OWNER_STMT:
    case PG_QUERY__NODE__NODE_ALTER_OPERATOR_STMT:
    case PG_QUERY__NODE__NODE_ALTER_TYPE_STMT:
    case PG_QUERY__NODE__NODE_DROP_OWNED_STMT:
    case PG_QUERY__NODE__NODE_REASSIGN_OWNED_STMT:
    case PG_QUERY__NODE__NODE_COMPOSITE_TYPE_STMT:
    case PG_QUERY__NODE__NODE_CREATE_ENUM_STMT:
    case PG_QUERY__NODE__NODE_CREATE_RANGE_STMT:
    case PG_QUERY__NODE__NODE_ALTER_ENUM_STMT:
    case PG_QUERY__NODE__NODE_ALTER_TSDICTIONARY_STMT:
    case PG_QUERY__NODE__NODE_ALTER_TSCONFIGURATION_STMT:
    case PG_QUERY__NODE__NODE_CREATE_FDW_STMT:
    case PG_QUERY__NODE__NODE_ALTER_FDW_STMT:
    case PG_QUERY__NODE__NODE_CREATE_FOREIGN_SERVER_STMT:
    case PG_QUERY__NODE__NODE_ALTER_FOREIGN_SERVER_STMT:
    case PG_QUERY__NODE__NODE_CREATE_USER_MAPPING_STMT:
    case PG_QUERY__NODE__NODE_ALTER_USER_MAPPING_STMT:
    case PG_QUERY__NODE__NODE_DROP_USER_MAPPING_STMT:
    case PG_QUERY__NODE__NODE_SEC_LABEL_STMT:
    case PG_QUERY__NODE__NODE_CREATE_FOREIGN_TABLE_STMT:
    case PG_QUERY__NODE__NODE_IMPORT_FOREIGN_SCHEMA_STMT:
    case PG_QUERY__NODE__NODE_CREATE_EXTENSION_STMT:
    case PG_QUERY__NODE__NODE_ALTER_EXTENSION_STMT:
    case PG_QUERY__NODE__NODE_ALTER_EXTENSION_CONTENTS_STMT:
    case PG_QUERY__NODE__NODE_CREATE_EVENT_TRIG_STMT:
    case PG_QUERY__NODE__NODE_ALTER_EVENT_TRIG_STMT:
    case PG_QUERY__NODE__NODE_REFRESH_MAT_VIEW_STMT:
    case PG_QUERY__NODE__NODE_REPLICA_IDENTITY_STMT:
    case PG_QUERY__NODE__NODE_CREATE_POLICY_STMT:
    case PG_QUERY__NODE__NODE_ALTER_POLICY_STMT:
    case PG_QUERY__NODE__NODE_CREATE_TRANSFORM_STMT:
    case PG_QUERY__NODE__NODE_CREATE_AM_STMT:
    case PG_QUERY__NODE__NODE_CREATE_STATS_STMT:
    case PG_QUERY__NODE__NODE_ALTER_COLLATION_STMT:
    case PG_QUERY__NODE__NODE_ALTER_STATS_STMT:
      return true;
    default:
      return false;
  }
}

StatementInfo describe(const PgQuery__Node* stmt) {
  StatementInfo info;
  if (stmt == nullptr || stmt->node_case == PG_QUERY__NODE__NODE__NOT_SET) return info;
  Walker w;
  w.visit(&stmt->base);
  info.tables = w.tables();
  info.functions = std::move(w.functions);
  info.reads_clock = w.clock;
  info.single_table = info.tables.size() == 1 && w.relation_mentions == 1 && !w.subquery &&
                      !w.cte && !w.function_in_from && !w.tablesample && !w.join &&
                      w.set_operation.empty();
  if (!info.single_table && w.relation_mentions > 0) info.relations = relation_uses(stmt);
  info.kind = StatementKind::kOtherUtility;
  switch (stmt->node_case) {
    case PG_QUERY__NODE__NODE_SELECT_STMT:
      describe_select(stmt->select_stmt, w, info);
      break;
    case PG_QUERY__NODE__NODE_INSERT_STMT:
      describe_insert(stmt->insert_stmt, info);
      break;
    case PG_QUERY__NODE__NODE_DECLARE_CURSOR_STMT: {
      info.declares_cursor = true;
      const PgQuery__Node* q = stmt->declare_cursor_stmt->query;
      if (info.single_table && q != nullptr && q->node_case == PG_QUERY__NODE__NODE_SELECT_STMT) {
        if (const PgQuery__RangeVar* rv = sole_range_var(q->select_stmt)) {
          collect_key_conditions(q->select_stmt->where_clause, rv, info);
        }
      }
      break;
    }
    case PG_QUERY__NODE__NODE_UPDATE_STMT: {
      const PgQuery__UpdateStmt* s = stmt->update_stmt;
      info.kind = StatementKind::kUpdate;
      add_set_columns(s->target_list, s->n_target_list, info);
      info.target = table_of(s->relation);
      info.returning = s->n_returning_list > 0;
      if (info.single_table && s->relation != nullptr) {
        collect_key_conditions(s->where_clause, s->relation, info);
      }
      break;
    }
    case PG_QUERY__NODE__NODE_DELETE_STMT: {
      const PgQuery__DeleteStmt* s = stmt->delete_stmt;
      info.kind = StatementKind::kDelete;
      info.target = table_of(s->relation);
      info.returning = s->n_returning_list > 0;
      if (info.single_table && s->relation != nullptr) {
        collect_key_conditions(s->where_clause, s->relation, info);
      }
      break;
    }
    case PG_QUERY__NODE__NODE_CREATE_STMT:
      describe_create(stmt->create_stmt, info);
      break;
    case PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT: {
      const PgQuery__CreateTableAsStmt* s = stmt->create_table_as_stmt;
      if (s->objtype == PG_QUERY__OBJECT_TYPE__OBJECT_MATVIEW) {
        info.kind = StatementKind::kCreateView;
        info.materialized = true;
        info.if_not_exists = s->if_not_exists;
        if (s->into != nullptr && s->into->rel != nullptr) info.target = table_of(s->into->rel);
        break;
      }
      if (s->objtype != PG_QUERY__OBJECT_TYPE__OBJECT_TABLE) break;
      info.kind = StatementKind::kCreateTable;
      info.create_as = true;
      info.select_into = s->is_select_into;
      info.create_as_empty = s->into != nullptr && s->into->skip_data;
      info.if_not_exists = s->if_not_exists;
      if (s->into != nullptr && s->into->rel != nullptr) {
        info.target = table_of(s->into->rel);
        info.temporary = std::string_view(s->into->rel->relpersistence) == "t";
      }
      break;
    }
    case PG_QUERY__NODE__NODE_DROP_STMT:
      describe_drop(stmt->drop_stmt, info);
      if (stmt->drop_stmt->concurrent) info.block_refusal = "DROP INDEX CONCURRENTLY";
      break;
    case PG_QUERY__NODE__NODE_ALTER_TABLE_STMT:
      describe_alter(stmt->alter_table_stmt, info);
      break;
    case PG_QUERY__NODE__NODE_RENAME_STMT:
      describe_rename(stmt->rename_stmt, info);
      break;
    case PG_QUERY__NODE__NODE_VIEW_STMT: {
      const PgQuery__ViewStmt* s = stmt->view_stmt;
      info.kind = StatementKind::kCreateView;
      info.target = table_of(s->view);
      info.temporary = s->view != nullptr && std::string_view(s->view->relpersistence) == "t";
      break;
    }
    case PG_QUERY__NODE__NODE_CREATE_SEQ_STMT: {
      const PgQuery__CreateSeqStmt* s = stmt->create_seq_stmt;
      info.kind = StatementKind::kSchemaDdl;
      info.target = table_of(s->sequence);
      info.if_not_exists = s->if_not_exists;
      info.temporary =
          s->sequence != nullptr && std::string_view(s->sequence->relpersistence) == "t";
      break;
    }
    case PG_QUERY__NODE__NODE_CREATE_FUNCTION_STMT: {
      const PgQuery__CreateFunctionStmt* s = stmt->create_function_stmt;
      info.kind = StatementKind::kSchemaDdl;
      info.target = table_of_names(s->funcname, s->n_funcname);
      info.temporary = info.target.schema == "pg_temp";
      break;
    }
    case PG_QUERY__NODE__NODE_ALTER_OBJECT_SCHEMA_STMT: {
      const PgQuery__AlterObjectSchemaStmt* s = stmt->alter_object_schema_stmt;
      if (s->object_type != PG_QUERY__OBJECT_TYPE__OBJECT_TABLE) {
        info.kind = StatementKind::kSchemaDdl;
        break;
      }
      info.kind = StatementKind::kAlterTable;
      info.target = table_of(s->relation);
      info.if_exists = s->missing_ok;
      info.alter_other = true;
      break;
    }
    case PG_QUERY__NODE__NODE_ALTER_SEQ_STMT: {
      const PgQuery__AlterSeqStmt* s = stmt->alter_seq_stmt;
      info.kind = StatementKind::kSchemaDdl;
      info.target = table_of(s->sequence);
      info.if_exists = s->missing_ok;
      info.alters_sequence = true;
      info.restarts_sequence = has_option(s->options, s->n_options, "restart");
      break;
    }
    case PG_QUERY__NODE__NODE_TRUNCATE_STMT:
      info.restart_identity = stmt->truncate_stmt->restart_seqs;
      info.kind = StatementKind::kTruncate;
      info.cascade = stmt->truncate_stmt->behavior == PG_QUERY__DROP_BEHAVIOR__DROP_CASCADE;
      break;
    case PG_QUERY__NODE__NODE_INDEX_STMT: {
      const PgQuery__IndexStmt* s = stmt->index_stmt;
      info.kind = StatementKind::kCreateIndex;
      info.target = table_of(s->relation);
      info.if_not_exists = s->if_not_exists;
      info.index_name = s->idxname;
      info.unique_index = s->unique;
      if (s->concurrent) info.block_refusal = "CREATE INDEX CONCURRENTLY";
      break;
    }
    case PG_QUERY__NODE__NODE_VACUUM_STMT:
      info.kind =
          stmt->vacuum_stmt->is_vacuumcmd ? StatementKind::kVacuum : StatementKind::kAnalyze;
      if (stmt->vacuum_stmt->is_vacuumcmd) info.block_refusal = "VACUUM";
      break;
    case PG_QUERY__NODE__NODE_REINDEX_STMT: {
      // PostgreSQL checks CONCURRENTLY first, then the kinds that reindex many tables.
      const PgQuery__ReindexStmt* s = stmt->reindex_stmt;
      info.kind = StatementKind::kSchemaDdl;
      for (size_t i = 0; i < s->n_params; ++i) {
        const PgQuery__Node* n = s->params[i];
        if (n->node_case == PG_QUERY__NODE__NODE_DEF_ELEM &&
            std::string_view(n->def_elem->defname) == "concurrently" &&
            n->def_elem->arg == nullptr) {
          info.block_refusal = "REINDEX CONCURRENTLY";
        }
      }
      if (!info.block_refusal.empty()) break;
      if (s->kind == PG_QUERY__REINDEX_OBJECT_TYPE__REINDEX_OBJECT_SCHEMA) {
        info.block_refusal = "REINDEX SCHEMA";
      } else if (s->kind == PG_QUERY__REINDEX_OBJECT_TYPE__REINDEX_OBJECT_SYSTEM) {
        info.block_refusal = "REINDEX SYSTEM";
      } else if (s->kind == PG_QUERY__REINDEX_OBJECT_TYPE__REINDEX_OBJECT_DATABASE) {
        info.block_refusal = "REINDEX DATABASE";
      }
      break;
    }
    case PG_QUERY__NODE__NODE_CLUSTER_STMT:
      // CLUSTER of every table clustered before, one transaction each.
      info.kind = StatementKind::kSchemaDdl;
      if (stmt->cluster_stmt->relation == nullptr) info.block_refusal = "CLUSTER";
      break;
    case PG_QUERY__NODE__NODE_COPY_STMT: {
      const PgQuery__CopyStmt* s = stmt->copy_stmt;
      info.kind = StatementKind::kCopy;
      info.target = table_of(s->relation);
      info.copy_from = s->is_from;
      info.copy_query = s->query != nullptr;
      break;
    }
    case PG_QUERY__NODE__NODE_TRANSACTION_STMT: {
      const PgQuery__TransactionStmt* s = stmt->transaction_stmt;
      info.kind = StatementKind::kTransaction;
      info.transaction_kind = transaction_kind(s->kind);
      info.transaction_name = s->savepoint_name[0] != '\0' ? s->savepoint_name : s->gid;
      break;
    }
    case PG_QUERY__NODE__NODE_COMMENT_STMT: {
      // COMMENT ON TABLE / VIEW / SEQUENCE … names its relation as a list of names, COMMENT ON
      // COLUMN as one with the column last: the relation counts among the tables it names.
      const PgQuery__CommentStmt* s = stmt->comment_stmt;
      info.kind = StatementKind::kSchemaDdl;
      if (s->object == nullptr || s->object->node_case != PG_QUERY__NODE__NODE_LIST) break;
      size_t n = s->object->list->n_items;
      switch (s->objtype) {
        case PG_QUERY__OBJECT_TYPE__OBJECT_COLUMN:
          if (n > 0) --n;
          [[fallthrough]];
        case PG_QUERY__OBJECT_TYPE__OBJECT_TABLE:
        case PG_QUERY__OBJECT_TYPE__OBJECT_VIEW:
        case PG_QUERY__OBJECT_TYPE__OBJECT_MATVIEW:
        case PG_QUERY__OBJECT_TYPE__OBJECT_SEQUENCE:
        case PG_QUERY__OBJECT_TYPE__OBJECT_FOREIGN_TABLE:
          if (n > 0) info.tables.push_back(table_of_names(s->object->list->items, n));
          break;
        default:
          break;
      }
      break;
    }
    case PG_QUERY__NODE__NODE_GRANT_STMT:
    case PG_QUERY__NODE__NODE_ALTER_OWNER_STMT:
    case PG_QUERY__NODE__NODE_DROP_OWNED_STMT:
    case PG_QUERY__NODE__NODE_REASSIGN_OWNED_STMT:
      info.kind = StatementKind::kSchemaDdl;
      info.changes_privileges = true;
      break;
    case PG_QUERY__NODE__NODE_CREATE_ROLE_STMT:
      info.kind = StatementKind::kRoleDdl;
      info.target.name = stmt->create_role_stmt->role;
      break;
    case PG_QUERY__NODE__NODE_ALTER_ROLE_STMT:
    case PG_QUERY__NODE__NODE_ALTER_ROLE_SET_STMT:
    case PG_QUERY__NODE__NODE_DROP_ROLE_STMT:
    case PG_QUERY__NODE__NODE_GRANT_ROLE_STMT:
      info.kind = StatementKind::kRoleDdl;
      break;
    default:
      if (is_schema_ddl(stmt->node_case)) info.kind = StatementKind::kSchemaDdl;
      break;
  }
  return info;
}

}  // namespace

std::string_view statement_kind_name(StatementKind kind) {
  switch (kind) {
    case StatementKind::kEmpty:
      return "empty";
    case StatementKind::kSelect:
      return "select";
    case StatementKind::kInsert:
      return "insert";
    case StatementKind::kUpdate:
      return "update";
    case StatementKind::kDelete:
      return "delete";
    case StatementKind::kCreateTable:
      return "create_table";
    case StatementKind::kDropTable:
      return "drop_table";
    case StatementKind::kAlterTable:
      return "alter_table";
    case StatementKind::kTruncate:
      return "truncate";
    case StatementKind::kCreateIndex:
      return "create_index";
    case StatementKind::kDropIndex:
      return "drop_index";
    case StatementKind::kVacuum:
      return "vacuum";
    case StatementKind::kAnalyze:
      return "analyze";
    case StatementKind::kCopy:
      return "copy";
    case StatementKind::kTransaction:
      return "transaction";
    case StatementKind::kCreateView:
      return "create_view";
    case StatementKind::kSchemaDdl:
      return "schema_ddl";
    case StatementKind::kRoleDdl:
      return "role_ddl";
    case StatementKind::kOtherUtility:
      return "other_utility";
  }
  return "unknown";
}

Result<std::vector<StatementInfo>> analyze_statements(std::string_view sql) {
  auto tree = parse_tree(sql);
  if (!tree) return tl::unexpected(tree.error());
  PgQuery__ParseResult* pr = tree->get();

  std::vector<StatementInfo> out;
  out.reserve(pr->n_stmts);
  for (size_t i = 0; i < pr->n_stmts; ++i) {
    const PgQuery__RawStmt* raw = pr->stmts[i];
    StatementInfo info = describe(raw->stmt);
    // Writes too: UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED).
    if (raw->stmt != nullptr &&
        (info.kind == StatementKind::kUpdate || info.kind == StatementKind::kDelete ||
         info.kind == StatementKind::kInsert)) {
      info.locks_rows = locks_rows(&raw->stmt->base);
    }
    size_t begin = std::min(static_cast<size_t>(std::max(raw->stmt_location, 0)), sql.size());
    size_t end = raw->stmt_len > 0 ? begin + static_cast<size_t>(raw->stmt_len) : sql.size();
    info.begin = begin;
    info.end = std::min(end, sql.size());
    out.push_back(std::move(info));
  }
  return out;
}

std::optional<std::string> like_prefix_of(std::string_view pattern) {
  size_t cut = pattern.find_first_of("%_\\");
  if (cut == std::string_view::npos || pattern[cut] == '\\') return std::nullopt;
  return std::string(pattern.substr(0, cut));
}

bool varies_by_server(const TableRef& f) {
  static constexpr std::string_view kNames[] = {"random",
                                                "random_normal",
                                                "setseed",
                                                "now",
                                                "clock_timestamp",
                                                "statement_timestamp",
                                                "timeofday",
                                                "transaction_timestamp",
                                                "gen_random_uuid",
                                                "uuid_generate_v1",
                                                "uuid_generate_v1mc",
                                                "uuid_generate_v4",
                                                "txid_current",
                                                "pg_current_xact_id",
                                                "inet_server_addr",
                                                "inet_server_port",
                                                "pg_backend_pid",
                                                "nextval",
                                                "currval",
                                                "setval",
                                                "lastval"};
  if (!f.schema.empty() && f.schema != "pg_catalog" && f.schema != "public") return false;
  return std::find(std::begin(kNames), std::end(kNames), f.name) != std::end(kNames);
}

}  // namespace pgrange::sql
