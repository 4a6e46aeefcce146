#include "sql/relation_uses.hpp"

#include <protobuf-c/protobuf-c.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

#include "sql/parse_node.hpp"
#include "sql/where_condition.hpp"

namespace pgrange::sql {
namespace {

/// A FROM item that is a relation, with the conditions that may narrow it: those of the joins
/// above it that cannot add rows of NULLs for it, and (while `open`) the WHERE clause.
struct FromItem {
  const PgQuery__RangeVar* rv = nullptr;
  size_t use = 0;  ///< index into the collected uses
  std::vector<const PgQuery__Node*> quals;
  /// No outer join above it puts it on its NULL-extended side (so far up the join tree): a
  /// condition on the joined rows then holds for every row of it that counts.
  bool open = true;
  /// Equalities with another item that JOIN … USING (…) puts on it (they have no qual node).
  std::vector<RelationUse::Equality> using_equalities;
};

/// Walks one statement and collects its relation uses (see relation_uses()).
class UseCollector {
 public:
  std::vector<RelationUse> take() {
    std::stable_sort(order_.begin(), order_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<RelationUse> out;
    out.reserve(order_.size());
    for (auto& [location, index] : order_) out.push_back(std::move(uses_[index]));
    return out;
  }

  /// The statement itself: its own query level is the top one.
  void statement(const PgQuery__Node* n) {
    if (n == nullptr) return;
    switch (n->node_case) {
      case PG_QUERY__NODE__NODE_SELECT_STMT:
        select(n->select_stmt, Context{"FROM", true});
        return;
      case PG_QUERY__NODE__NODE_INSERT_STMT:
        insert(n->insert_stmt, Context{"INSERT", true});
        return;
      case PG_QUERY__NODE__NODE_UPDATE_STMT:
        update(n->update_stmt, Context{"UPDATE", true});
        return;
      case PG_QUERY__NODE__NODE_DELETE_STMT:
        remove(n->delete_stmt, Context{"DELETE", true});
        return;
      case PG_QUERY__NODE__NODE_MERGE_STMT:
        merge(n->merge_stmt, Context{"MERGE", true});
        return;
      case PG_QUERY__NODE__NODE_COPY_STMT: {
        const PgQuery__CopyStmt* c = n->copy_stmt;
        if (c->relation != nullptr) add(c->relation, "COPY", true, c->is_from);
        if (c->query != nullptr) statement(c->query);
        children(&c->base, Context{"COPY", false}, 1, 2);  // relation and query: done
        return;
      }
      case PG_QUERY__NODE__NODE_EXPLAIN_STMT:
        statement(n->explain_stmt->query);
        return;
      default:
        // Any other statement (DECLARE … CURSOR FOR, LOCK, CREATE … AS, …): its relations.
        expression(&n->base, Context{"statement", false});
        return;
    }
  }

 private:
  /// The construct a use is read through, and whether it is the statement's own query level
  /// (then a nested construct names the uses below it; below that, the outer one does).
  struct Context {
    std::string_view construct;
    bool top = false;
  };

  static Context enter(const Context& outer, std::string_view construct) {
    return outer.top ? Context{construct, false} : outer;
  }

  size_t add(const PgQuery__RangeVar* rv, std::string_view construct, bool target, bool writes) {
    RelationUse u;
    u.table = TableRef{rv->schemaname, rv->relname};
    u.construct = std::string(construct);
    u.target = target;
    u.writes = writes;
    u.location = rv->location;
    u.aliased = rv->alias != nullptr && rv->alias->aliasname[0] != '\0';
    u.only = !rv->inh;
    uses_.push_back(std::move(u));
    order_.emplace_back(rv->location, uses_.size() - 1);
    return uses_.size() - 1;
  }

  bool is_cte(const PgQuery__RangeVar* rv) const {
    return rv->schemaname[0] == '\0' && rv->catalogname[0] == '\0' &&
           std::find(scope_.begin(), scope_.end(), std::string_view(rv->relname)) != scope_.end();
  }

  /// A WITH clause: visits the CTE bodies with their names in scope as PostgreSQL has them
  /// (all of them for WITH RECURSIVE, the earlier ones otherwise); returns the scope size to
  /// restore once the statement owning the clause is done.
  size_t with(const PgQuery__WithClause* w, const Context& c) {
    size_t mark = scope_.size();
    if (w == nullptr) return mark;
    auto name_of = [](const PgQuery__Node* n) -> const char* {
      return n->node_case == PG_QUERY__NODE__NODE_COMMON_TABLE_EXPR ? n->common_table_expr->ctename
                                                                    : nullptr;
    };
    if (w->recursive) {
      for (size_t i = 0; i < w->n_ctes; ++i) {
        if (const char* name = name_of(w->ctes[i])) scope_.emplace_back(name);
      }
    }
    Context body = enter(c, "WITH");
    for (size_t i = 0; i < w->n_ctes; ++i) {
      const PgQuery__Node* n = w->ctes[i];
      if (n->node_case == PG_QUERY__NODE__NODE_COMMON_TABLE_EXPR) {
        nested(n->common_table_expr->ctequery, body);
      }
      if (!w->recursive) {
        if (const char* name = name_of(n)) scope_.emplace_back(name);
      }
    }
    return mark;
  }

  /// A query nested in another (CTE body, subquery): a statement of its own level.
  void nested(const PgQuery__Node* n, const Context& c) {
    if (n == nullptr) return;
    switch (n->node_case) {
      case PG_QUERY__NODE__NODE_SELECT_STMT:
        select(n->select_stmt, c);
        return;
      case PG_QUERY__NODE__NODE_INSERT_STMT:
        insert(n->insert_stmt, c);
        return;
      case PG_QUERY__NODE__NODE_UPDATE_STMT:
        update(n->update_stmt, c);
        return;
      case PG_QUERY__NODE__NODE_DELETE_STMT:
        remove(n->delete_stmt, c);
        return;
      case PG_QUERY__NODE__NODE_MERGE_STMT:
        merge(n->merge_stmt, c);
        return;
      default:
        expression(&n->base, c);
        return;
    }
  }

  void select(const PgQuery__SelectStmt* s, const Context& c) {
    size_t mark = with(s->with_clause, c);
    if (s->op != PG_QUERY__SET_OPERATION__SETOP_NONE &&
        s->op != PG_QUERY__SET_OPERATION__SET_OPERATION_UNDEFINED) {
      std::string_view op = s->op == PG_QUERY__SET_OPERATION__SETOP_UNION       ? "UNION"
                            : s->op == PG_QUERY__SET_OPERATION__SETOP_INTERSECT ? "INTERSECT"
                                                                                : "EXCEPT";
      Context branch = enter(c, op);
      if (s->larg != nullptr) select(s->larg, branch);
      if (s->rarg != nullptr) select(s->rarg, branch);
      // ORDER BY / LIMIT of the whole set operation (fields 16 withClause, 19 larg, 20 rarg:
      // done).
      children(&s->base, enter(c, "subquery"), 16, 19, 20);
      scope_.resize(mark);
      return;
    }
    std::vector<FromItem> items;
    bool several =
        s->n_from_clause > 1 ||
        (s->n_from_clause == 1 && s->from_clause[0]->node_case == PG_QUERY__NODE__NODE_JOIN_EXPR);
    Context from = c.top ? Context{several ? "JOIN" : "FROM", c.top} : c;
    for (size_t i = 0; i < s->n_from_clause; ++i) from_item(s->from_clause[i], from, items);
    narrow(items, s->where_clause);
    if (c.top) {
      // The statement's own query: its rows are made from each row of an item no outer join
      // extends with NULLs, and from no other of its rows.
      for (const FromItem& item : items) {
        if (!uses_[item.use].from_item) continue;
        uses_[item.use].top_from = true;
        if (item.open) uses_[item.use].preserved = true;
      }
    }
    // Everything else of the level: expressions, whose subqueries are relations' uses too.
    // Fields: 2 intoClause (SELECT INTO's new table), 4 fromClause and 16 withClause (done).
    children(&s->base, enter(c, "subquery"), 2, 4, 16);
    scope_.resize(mark);
  }

  void insert(const PgQuery__InsertStmt* s, const Context& c) {
    size_t mark = with(s->with_clause, c);
    if (s->relation != nullptr) add(s->relation, c.top ? "INSERT" : c.construct, c.top, true);
    const PgQuery__Node* source = s->select_stmt;
    if (source != nullptr && source->node_case == PG_QUERY__NODE__NODE_SELECT_STMT &&
        source->select_stmt->n_values_lists == 0) {
      select(source->select_stmt, enter(c, "INSERT … SELECT"));
    } else if (source != nullptr) {
      expression(&source->base, enter(c, "subquery"));
    }
    for (size_t i = 0; i < s->n_cols; ++i) expression(&s->cols[i]->base, enter(c, "subquery"));
    if (s->on_conflict_clause != nullptr) {
      expression(&s->on_conflict_clause->base, enter(c, "subquery"));
    }
    for (size_t i = 0; i < s->n_returning_list; ++i) {
      expression(&s->returning_list[i]->base, enter(c, "subquery"));
    }
    scope_.resize(mark);
  }

  /// UPDATE and DELETE: the target and the FROM/USING items are inner-joined, so the WHERE
  /// narrows each of them.
  void write_with_from(const PgQuery__RangeVar* target, PgQuery__Node* const* from, size_t n_from,
                       const PgQuery__Node* where, const ProtobufCMessage* m, uint32_t from_field,
                       uint32_t with_field, std::string_view own, std::string_view from_construct,
                       const Context& c) {
    std::vector<FromItem> items;
    if (target != nullptr) {
      FromItem item;
      item.rv = target;
      item.use = add(target, c.top ? own : c.construct, c.top, true);
      items.push_back(std::move(item));
    }
    Context joined = c.top ? Context{from_construct, true} : c;
    for (size_t i = 0; i < n_from; ++i) from_item(from[i], joined, items);
    narrow(items, where);
    // Field 1 is the target relation in both.
    children(m, enter(c, "subquery"), 1, from_field, with_field);
  }

  void update(const PgQuery__UpdateStmt* s, const Context& c) {
    size_t mark = with(s->with_clause, c);
    write_with_from(s->relation, s->from_clause, s->n_from_clause, s->where_clause, &s->base, 4, 6,
                    "UPDATE", "UPDATE … FROM", c);
    scope_.resize(mark);
  }

  void remove(const PgQuery__DeleteStmt* s, const Context& c) {
    size_t mark = with(s->with_clause, c);
    write_with_from(s->relation, s->using_clause, s->n_using_clause, s->where_clause, &s->base, 2,
                    5, "DELETE", "DELETE … USING", c);
    scope_.resize(mark);
  }

  void merge(const PgQuery__MergeStmt* s, const Context& c) {
    size_t mark = with(s->with_clause, c);
    if (s->relation != nullptr) add(s->relation, c.top ? "MERGE" : c.construct, c.top, true);
    std::vector<FromItem> items;
    if (s->source_relation != nullptr) {
      from_item(s->source_relation, c.top ? Context{"MERGE … USING", true} : c, items);
    }
    // Fields: 1 relation, 2 source_relation (done), 5 with_clause (done).
    children(&s->base, enter(c, "subquery"), 1, 2, 5);
    scope_.resize(mark);
  }

  /// A FROM item: relations become items (a CTE's name is none), joins narrow their sides,
  /// derived tables are queries of their own.
  void from_item(const PgQuery__Node* n, const Context& c, std::vector<FromItem>& items) {
    if (n == nullptr) return;
    switch (n->node_case) {
      case PG_QUERY__NODE__NODE_RANGE_VAR: {
        const PgQuery__RangeVar* rv = n->range_var;
        if (is_cte(rv)) return;
        FromItem item;
        item.rv = rv;
        item.use = add(rv, c.construct, false, false);
        uses_[item.use].from_item = !sampled_;
        items.push_back(std::move(item));
        return;
      }
      case PG_QUERY__NODE__NODE_JOIN_EXPR: {
        const PgQuery__JoinExpr* j = n->join_expr;
        size_t left = items.size();
        from_item(j->larg, c, items);
        size_t right = items.size();
        from_item(j->rarg, c, items);
        std::vector<const PgQuery__Node*> quals;
        conjuncts(j->quals, quals);
        // Which side's rows the ON condition decides on: an inner join's rows all satisfy it;
        // an outer join keeps the rows of its preserved side whatever it says, and adds rows of
        // NULLs for them, so only its other side is narrowed, and nothing above narrows that
        // side any more.
        auto apply = [&](size_t from, size_t to, bool close) {
          for (size_t i = from; i < to; ++i) {
            if (!items[i].open) continue;
            items[i].quals.insert(items[i].quals.end(), quals.begin(), quals.end());
            if (close) items[i].open = false;
          }
        };
        auto close = [&](size_t from, size_t to) {
          for (size_t i = from; i < to; ++i) items[i].open = false;
        };
        // JOIN … USING (c) of two relations: each row of a side it narrows has a row of the
        // other with an equal c.
        if (j->n_using_clause > 0 && right == left + 1 && items.size() == right + 1) {
          auto equate = [&](FromItem& mine, const FromItem& other) {
            if (!mine.open || renamed(other)) return;
            for (size_t k = 0; k < j->n_using_clause; ++k) {
              if (const char* col = string_of(j->using_clause[k])) {
                mine.using_equalities.push_back(
                    RelationUse::Equality{col, other.rv->location, col});
              }
            }
          };
          FromItem& l = items[left];
          FromItem& r = items[right];
          if (j->jointype == PG_QUERY__JOIN_TYPE__JOIN_INNER) {
            equate(l, r);
            equate(r, l);
          } else if (j->jointype == PG_QUERY__JOIN_TYPE__JOIN_LEFT) {
            equate(r, l);
          } else if (j->jointype == PG_QUERY__JOIN_TYPE__JOIN_RIGHT) {
            equate(l, r);
          }
        }
        if (c.top && j->jointype != PG_QUERY__JOIN_TYPE__JOIN_INNER) {
          // The statement's own outer join: what it extends with NULLs, against what.
          bool left_nullable = j->jointype != PG_QUERY__JOIN_TYPE__JOIN_LEFT;
          bool right_nullable = j->jointype != PG_QUERY__JOIN_TYPE__JOIN_RIGHT;
          if (left_nullable) outer_join(items, left, right, right, items.size(), quals);
          if (right_nullable) outer_join(items, right, items.size(), left, right, quals);
        }
        switch (j->jointype) {
          case PG_QUERY__JOIN_TYPE__JOIN_INNER:
            apply(left, items.size(), false);
            break;
          case PG_QUERY__JOIN_TYPE__JOIN_LEFT:
            apply(right, items.size(), true);
            break;
          case PG_QUERY__JOIN_TYPE__JOIN_RIGHT:
            apply(left, right, true);
            break;
          default:  // FULL, and anything newer: narrows neither side
            close(left, items.size());
            break;
        }
        if (j->quals != nullptr) expression(&j->quals->base, enter(c, "subquery"));
        return;
      }
      case PG_QUERY__NODE__NODE_RANGE_SUBSELECT: {
        const PgQuery__RangeSubselect* r = n->range_subselect;
        nested(r->subquery, enter(c, r->lateral ? "LATERAL" : "subquery in FROM"));
        return;
      }
      case PG_QUERY__NODE__NODE_RANGE_TABLE_SAMPLE: {
        const PgQuery__RangeTableSample* r = n->range_table_sample;
        sampled_ = true;
        from_item(r->relation, c, items);
        sampled_ = false;
        children(&r->base, enter(c, "subquery"), 1);  // field 1: relation, done
        return;
      }
      default:  // functions in FROM, XMLTABLE: their arguments may hold subqueries
        expression(&n->base, enter(c, "subquery"));
        return;
    }
  }

  /// Notes on every item of [nb, ne) that an outer join extends it with NULLs against the
  /// items of [kb, ke), with the equalities of the join's ON between the two sides.
  void outer_join(const std::vector<FromItem>& items, size_t nb, size_t ne, size_t kb, size_t ke,
                  const std::vector<const PgQuery__Node*>& quals) {
    RelationUse::OuterJoin oj;
    for (size_t k = kb; k < ke; ++k) oj.kept.push_back(items[k].rv->location);
    for (const PgQuery__Node* q : quals) {
      if (q->node_case != PG_QUERY__NODE__NODE_A_EXPR) continue;
      const PgQuery__AExpr* e = q->a_expr;
      if (e->kind != PG_QUERY__A__EXPR__KIND__AEXPR_OP || !is_equals(e)) continue;
      auto qualified = [](const PgQuery__Node* n) {
        return n != nullptr && n->node_case == PG_QUERY__NODE__NODE_COLUMN_REF &&
               n->column_ref->n_fields >= 2;
      };
      if (!qualified(e->lexpr) || !qualified(e->rexpr)) continue;
      for (int side = 0; side < 2; ++side) {
        const PgQuery__Node* mine = side == 0 ? e->lexpr : e->rexpr;
        const PgQuery__Node* theirs = side == 0 ? e->rexpr : e->lexpr;
        for (size_t n = nb; n < ne; ++n) {
          if (renamed(items[n])) continue;
          auto col = column_of(mine, items[n].rv);
          if (!col) continue;
          for (size_t k = kb; k < ke; ++k) {
            if (renamed(items[k])) continue;
            auto other = column_of(theirs, items[k].rv);
            if (!other) continue;
            oj.pairs.push_back(RelationUse::OuterJoin::Pair{items[n].rv->location, *col,
                                                            items[k].rv->location, *other});
          }
        }
      }
    }
    for (size_t n = nb; n < ne; ++n) uses_[items[n].use].null_extended_by.push_back(oj);
  }

  /// Gives each item the condition its joins and (while open) the WHERE clause put on it.
  void narrow(std::vector<FromItem>& items, const PgQuery__Node* where) {
    std::vector<const PgQuery__Node*> parts;
    conjuncts(where, parts);
    for (FromItem& item : items) {
      if (item.open) item.quals.insert(item.quals.end(), parts.begin(), parts.end());
      if (renamed(item)) continue;
      auto& eqs = uses_[item.use].equalities;
      eqs.insert(eqs.end(), item.using_equalities.begin(), item.using_equalities.end());
      if (item.quals.empty()) continue;
      for (const PgQuery__Node* q : item.quals) equality(item, items, q);
      Condition all;
      all.kind = Condition::Kind::kAnd;
      bool readable = false;
      for (const PgQuery__Node* q : item.quals) {
        Condition part = condition_of(q, item.rv);
        readable = readable || part.kind != Condition::Kind::kOpaque;
        all.children.push_back(std::move(part));
      }
      if (!readable) continue;
      uses_[item.use].where =
          all.children.size() == 1 ? std::move(all.children.front()) : std::move(all);
    }
  }

  /// FROM t AS x(a, b) renames its columns: what the conditions name is not the table's.
  static bool renamed(const FromItem& item) {
    return item.rv->alias != nullptr && item.rv->alias->n_colnames > 0;
  }

  /// Records `q` on `item` when it equates a column of it with one of another item of the
  /// same FROM list, both written qualified (so that neither could name another relation).
  void equality(const FromItem& item, const std::vector<FromItem>& items, const PgQuery__Node* q) {
    if (q->node_case != PG_QUERY__NODE__NODE_A_EXPR) return;
    const PgQuery__AExpr* e = q->a_expr;
    if (e->kind != PG_QUERY__A__EXPR__KIND__AEXPR_OP || !is_equals(e)) return;
    auto qualified = [](const PgQuery__Node* n) {
      return n != nullptr && n->node_case == PG_QUERY__NODE__NODE_COLUMN_REF &&
             n->column_ref->n_fields >= 2;
    };
    if (!qualified(e->lexpr) || !qualified(e->rexpr)) return;
    for (int side = 0; side < 2; ++side) {
      const PgQuery__Node* mine = side == 0 ? e->lexpr : e->rexpr;
      const PgQuery__Node* theirs = side == 0 ? e->rexpr : e->lexpr;
      auto col = column_of(mine, item.rv);
      if (!col) continue;
      for (const FromItem& other : items) {
        if (&other == &item || renamed(other)) continue;
        auto other_col = column_of(theirs, other.rv);
        if (!other_col) continue;
        uses_[item.use].equalities.push_back(
            RelationUse::Equality{*col, other.rv->location, *other_col});
      }
    }
  }

  /// The sub-messages of `m` but the fields numbered skip_*, each as an expression.
  void children(const ProtobufCMessage* m, const Context& c, uint32_t skip_a = 0,
                uint32_t skip_b = 0, uint32_t skip_c = 0) {
    for_each_child(
        m, [&](const ProtobufCMessage* child) { expression(child, c); }, skip_a, skip_b, skip_c);
  }

  /// Anything else: relations met in it are read; subqueries and nested statements are
  /// queries of their own.
  void expression(const ProtobufCMessage* m, const Context& c) {
    const ProtobufCMessageDescriptor* d = m->descriptor;
    if (d == &pg_query__range_var__descriptor) {
      const auto* rv = reinterpret_cast<const PgQuery__RangeVar*>(m);
      if (!is_cte(rv)) add(rv, c.construct, false, false);
      return;
    }
    if (d == &pg_query__locking_clause__descriptor) return;  // FOR UPDATE OF names FROM items
    if (d == &pg_query__sub_link__descriptor) {
      const auto* s = reinterpret_cast<const PgQuery__SubLink*>(m);
      if (s->testexpr != nullptr) expression(&s->testexpr->base, c);
      nested(s->subselect, enter(c, "subquery"));
      return;
    }
    if (d == &pg_query__select_stmt__descriptor) {
      select(reinterpret_cast<const PgQuery__SelectStmt*>(m), c);
      return;
    }
    if (d == &pg_query__insert_stmt__descriptor) {
      insert(reinterpret_cast<const PgQuery__InsertStmt*>(m), c);
      return;
    }
    if (d == &pg_query__update_stmt__descriptor) {
      update(reinterpret_cast<const PgQuery__UpdateStmt*>(m), c);
      return;
    }
    if (d == &pg_query__delete_stmt__descriptor) {
      remove(reinterpret_cast<const PgQuery__DeleteStmt*>(m), c);
      return;
    }
    if (d == &pg_query__merge_stmt__descriptor) {
      merge(reinterpret_cast<const PgQuery__MergeStmt*>(m), c);
      return;
    }
    children(m, c);
  }

  std::vector<RelationUse> uses_;
  std::vector<std::pair<int, size_t>> order_;  ///< (location, index into uses_)
  std::vector<std::string> scope_;
  bool sampled_ = false;  ///< inside TABLESAMPLE
};

void collect_calls(const ProtobufCMessage* m, std::vector<TableRef>& out) {
  if (m->descriptor == &pg_query__func_call__descriptor) {
    const auto* fc = reinterpret_cast<const PgQuery__FuncCall*>(m);
    TableRef f;
    if (fc->n_funcname >= 1) {
      if (const char* s = string_of(fc->funcname[fc->n_funcname - 1])) f.name = s;
    }
    if (fc->n_funcname >= 2) {
      if (const char* s = string_of(fc->funcname[fc->n_funcname - 2])) f.schema = s;
    }
    if (!f.name.empty() && std::find(out.begin(), out.end(), f) == out.end()) {
      out.push_back(std::move(f));
    }
  }
  for_each_child(m, [&](const ProtobufCMessage* child) { collect_calls(child, out); });
}

}  // namespace

std::vector<TableRef> function_calls(const PgQuery__Node* n) {
  std::vector<TableRef> out;
  if (n != nullptr) collect_calls(&n->base, out);
  return out;
}

std::vector<RelationUse> relation_uses(const PgQuery__Node* stmt) {
  UseCollector c;
  c.statement(stmt);
  return c.take();
}

Result<std::vector<RelationUse>> relation_uses_of(std::string_view sql) {
  auto tree = parse_tree(sql);
  if (!tree) return tl::unexpected(tree.error());
  PgQuery__ParseResult* pr = tree->get();
  if (pr->n_stmts != 1 || pr->stmts[0]->stmt == nullptr) {
    return tl::unexpected(Error::make(sqlstate::kInternalError, "not one statement"));
  }
  return relation_uses(pr->stmts[0]->stmt);
}

}  // namespace pgrange::sql
