#include "sql/where_condition.hpp"

#include <array>
#include <cctype>

#include "sql/parse_node.hpp"
#include "sql/quoting.hpp"

namespace pgrange::sql {
namespace {

/// A cast's type as SQL text (every name component quoted), or empty for a type with modifiers,
/// array bounds or %TYPE, which pgrange does not write back.
std::string cast_sql(const PgQuery__TypeName* t) {
  if (t == nullptr || t->n_names == 0 || t->n_typmods > 0 || t->n_array_bounds > 0 || t->pct_type ||
      t->setof) {
    return {};
  }
  std::string out;
  for (size_t i = 0; i < t->n_names; ++i) {
    const char* part = string_of(t->names[i]);
    if (part == nullptr) return {};
    out += (out.empty() ? "" : ".") + quote_ident(part);
  }
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

const char* operator_of(const PgQuery__AExpr* e) {
  if (e->n_name == 0 || e->n_name > 2) return nullptr;
  if (e->n_name == 2) {
    const char* schema = string_of(e->name[0]);
    if (schema == nullptr || std::string_view(schema) != "pg_catalog") return nullptr;
  }
  return string_of(e->name[e->n_name - 1]);
}

std::string flip(std::string_view op) {
  if (op == "<") return ">";
  if (op == "<=") return ">=";
  if (op == ">") return "<";
  if (op == ">=") return "<=";
  return std::string(op);
}

Condition compare(std::string column, std::string op, ValueRef v) {
  Condition c;
  c.kind = Condition::Kind::kCompare;
  c.column = std::move(column);
  c.op = std::move(op);
  c.values.push_back(std::move(v));
  return c;
}

/// `a + b` or `a - b` (pg_catalog's or unqualified) of values as a kSum, its terms flattened:
/// `$1 + 100 - 5` has three. Which types the sum has, and whether it can be worked out, is the
/// reader's business (the router folds integers); anything else in it makes it no value.
std::optional<ValueRef> sum_of(const PgQuery__AExpr* e) {
  const char* op = operator_of(e);
  if (op == nullptr || e->rexpr == nullptr) return std::nullopt;
  std::string_view o(op);
  if (o != "+" && o != "-") return std::nullopt;
  auto left = value_of(e->lexpr);
  auto right = value_of(e->rexpr);
  if (!left || !right) return std::nullopt;
  ValueRef sum;
  sum.kind = ValueRef::Kind::kSum;
  sum.unwritable = true;
  auto add = [&](ValueRef v, bool minus) {
    if (v.kind != ValueRef::Kind::kSum) {
      v.subtracted = minus;
      sum.terms.push_back(std::move(v));
      return true;
    }
    if (!v.cast_type.empty()) return false;  // (a + b)::type: the cast may change the sum
    for (ValueRef& t : v.terms) {
      t.subtracted = t.subtracted != minus;
      sum.terms.push_back(std::move(t));
    }
    return true;
  };
  if (!add(std::move(*left), false) || !add(std::move(*right), o == "-")) return std::nullopt;
  return sum;
}

}  // namespace

/// The canonical name of a type as written in a cast or column definition.
std::string type_name(const PgQuery__TypeName* t) {
  if (t == nullptr || t->n_names == 0) return {};
  const char* last = string_of(t->names[t->n_names - 1]);
  std::string name = lower(last == nullptr ? "" : last);
  if (name == "serial4") {
    name = "serial";
  } else if (name == "serial8") {
    name = "bigserial";
  } else if (name == "serial2") {
    name = "smallserial";
  }
  if (t->n_array_bounds > 0) name += "[]";
  return name;
}

/// The constant, NULL or $n that `n` is (possibly cast, possibly a negated number).
std::optional<ValueRef> value_of(const PgQuery__Node* n) {
  if (n == nullptr) return std::nullopt;
  switch (n->node_case) {
    case PG_QUERY__NODE__NODE_A_CONST: {
      const PgQuery__AConst* c = n->a_const;
      ValueRef v;
      v.location = c->location;
      if (c->isnull) {
        v.kind = ValueRef::Kind::kNull;
        return v;
      }
      auto text = constant_text(c);
      if (!text) return std::nullopt;
      v.text = std::move(*text);
      v.quoted = c->val_case == PG_QUERY__A__CONST__VAL_SVAL;
      v.unwritable = c->val_case == PG_QUERY__A__CONST__VAL_BSVAL;
      return v;
    }
    case PG_QUERY__NODE__NODE_TYPE_CAST: {
      auto v = value_of(n->type_cast->arg);
      if (v) {
        v->cast_type = type_name(n->type_cast->type_name);
        // Nested casts: only one is written back.
        v->unwritable = v->unwritable || !v->cast_sql.empty();
        v->cast_sql = cast_sql(n->type_cast->type_name);
        v->unwritable = v->unwritable || v->cast_sql.empty();
      }
      return v;
    }
    case PG_QUERY__NODE__NODE_PARAM_REF: {
      ValueRef v;
      v.kind = ValueRef::Kind::kParam;
      v.param = n->param_ref->number;
      return v;
    }
    case PG_QUERY__NODE__NODE_A_EXPR: {
      const PgQuery__AExpr* e = n->a_expr;
      if (e->kind == PG_QUERY__A__EXPR__KIND__AEXPR_OP && e->lexpr != nullptr) return sum_of(e);
      // Unary minus on a numeric constant (the grammar usually folds it already).
      if (e->kind != PG_QUERY__A__EXPR__KIND__AEXPR_OP || e->n_name != 1) return std::nullopt;
      const char* op = string_of(e->name[0]);
      if (op == nullptr || std::string_view(op) != "-" || e->rexpr == nullptr ||
          e->rexpr->node_case != PG_QUERY__NODE__NODE_A_CONST) {
        return std::nullopt;
      }
      const PgQuery__AConst* c = e->rexpr->a_const;
      if (c->isnull || (c->val_case != PG_QUERY__A__CONST__VAL_IVAL &&
                        c->val_case != PG_QUERY__A__CONST__VAL_FVAL)) {
        return std::nullopt;
      }
      auto v = value_of(e->rexpr);
      if (!v) return v;
      if (!v->text.empty() && v->text.front() == '-') {
        v->text.erase(0, 1);
      } else {
        v->text.insert(0, "-");
      }
      return v;
    }
    default:
      return std::nullopt;
  }
}

std::optional<std::string> value_sql(const ValueRef& v) {
  if (v.unwritable || v.kind == ValueRef::Kind::kParam || v.kind == ValueRef::Kind::kSum) {
    return std::nullopt;
  }
  std::string sql = v.kind == ValueRef::Kind::kNull ? std::string("NULL")
                    : v.quoted                      ? quote_literal(v.text)
                                                    : v.text;
  if (!v.cast_sql.empty()) sql = "CAST(" + sql + " AS " + v.cast_sql + ")";
  return sql;
}

/// The column `n` names if it is a plain column reference to the statement's one table.
std::optional<std::string> column_of(const PgQuery__Node* n, const PgQuery__RangeVar* rv) {
  if (n == nullptr || n->node_case != PG_QUERY__NODE__NODE_COLUMN_REF) return std::nullopt;
  const PgQuery__ColumnRef* c = n->column_ref;
  std::array<const char*, 3> parts{};
  if (c->n_fields == 0 || c->n_fields > 3) return std::nullopt;
  for (size_t i = 0; i < c->n_fields; ++i) {
    parts[i] = string_of(c->fields[i]);
    if (parts[i] == nullptr) return std::nullopt;  // t.* and the like
  }
  const bool aliased = rv->alias != nullptr && rv->alias->aliasname[0] != '\0';
  if (c->n_fields == 2) {
    std::string_view qualifier = parts[0];
    if (qualifier != (aliased ? std::string_view(rv->alias->aliasname) : rv->relname)) {
      return std::nullopt;
    }
  } else if (c->n_fields == 3) {
    if (aliased || std::string_view(parts[1]) != rv->relname) return std::nullopt;
    if (rv->schemaname[0] != '\0' && std::string_view(parts[0]) != rv->schemaname) {
      return std::nullopt;
    }
  }
  return std::string(parts[c->n_fields - 1]);
}

void conjuncts(const PgQuery__Node* n, std::vector<const PgQuery__Node*>& out) {
  if (n == nullptr) return;
  if (n->node_case == PG_QUERY__NODE__NODE_BOOL_EXPR &&
      n->bool_expr->boolop == PG_QUERY__BOOL_EXPR_TYPE__AND_EXPR) {
    for (size_t i = 0; i < n->bool_expr->n_args; ++i) conjuncts(n->bool_expr->args[i], out);
    return;
  }
  out.push_back(n);
}

void conjuncts(const Condition& c, std::vector<const Condition*>& out) {
  if (c.kind == Condition::Kind::kAnd) {
    for (const Condition& child : c.children) conjuncts(child, out);
    return;
  }
  out.push_back(&c);
}

bool is_equals(const PgQuery__AExpr* e) {
  if (e->kind != PG_QUERY__A__EXPR__KIND__AEXPR_OP || e->n_name == 0 || e->n_name > 2) return false;
  const char* op = string_of(e->name[e->n_name - 1]);
  if (op == nullptr || std::string_view(op) != "=") return false;
  if (e->n_name == 2) {
    const char* schema = string_of(e->name[0]);
    return schema != nullptr && std::string_view(schema) == "pg_catalog";
  }
  return true;
}

/// What `n` says about the columns of the table `rv` names.
Condition condition_of(const PgQuery__Node* n, const PgQuery__RangeVar* rv) {
  Condition opaque;
  if (n == nullptr) return opaque;
  switch (n->node_case) {
    case PG_QUERY__NODE__NODE_BOOL_EXPR: {
      const PgQuery__BoolExpr* b = n->bool_expr;
      if (b->boolop == PG_QUERY__BOOL_EXPR_TYPE__NOT_EXPR) return opaque;
      Condition c;
      c.kind = b->boolop == PG_QUERY__BOOL_EXPR_TYPE__AND_EXPR ? Condition::Kind::kAnd
                                                               : Condition::Kind::kOr;
      for (size_t i = 0; i < b->n_args; ++i) c.children.push_back(condition_of(b->args[i], rv));
      return c;
    }
    case PG_QUERY__NODE__NODE_NULL_TEST: {
      const PgQuery__NullTest* t = n->null_test;
      if (t->nulltesttype != PG_QUERY__NULL_TEST_TYPE__IS_NULL) return opaque;
      auto col = column_of(t->arg, rv);
      if (!col) return opaque;
      Condition c;
      c.kind = Condition::Kind::kIsNull;
      c.column = std::move(*col);
      return c;
    }
    case PG_QUERY__NODE__NODE_A_EXPR:
      break;
    default:
      return opaque;
  }
  const PgQuery__AExpr* e = n->a_expr;
  const char* op = operator_of(e);
  if (op == nullptr) return opaque;
  std::string_view o(op);
  switch (e->kind) {
    case PG_QUERY__A__EXPR__KIND__AEXPR_OP: {
      if (o != "=" && o != "<" && o != "<=" && o != ">" && o != ">=") return opaque;
      if (auto col = column_of(e->lexpr, rv)) {
        auto v = value_of(e->rexpr);
        if (!v || v->kind == ValueRef::Kind::kNull) return opaque;
        return compare(std::move(*col), std::string(o), std::move(*v));
      }
      if (auto col = column_of(e->rexpr, rv)) {
        auto v = value_of(e->lexpr);
        if (!v || v->kind == ValueRef::Kind::kNull) return opaque;
        return compare(std::move(*col), flip(o), std::move(*v));
      }
      return opaque;
    }
    case PG_QUERY__A__EXPR__KIND__AEXPR_IN: {
      if (o != "=") return opaque;  // NOT IN
      auto col = column_of(e->lexpr, rv);
      if (!col || e->rexpr == nullptr || e->rexpr->node_case != PG_QUERY__NODE__NODE_LIST) {
        return opaque;
      }
      Condition c;
      c.kind = Condition::Kind::kIn;
      c.column = std::move(*col);
      const PgQuery__List* list = e->rexpr->list;
      for (size_t i = 0; i < list->n_items; ++i) {
        auto v = value_of(list->items[i]);
        if (!v) return opaque;
        if (v->kind == ValueRef::Kind::kNull) continue;  // = NULL is never true
        c.values.push_back(std::move(*v));
      }
      return c;
    }
    case PG_QUERY__A__EXPR__KIND__AEXPR_BETWEEN: {
      auto col = column_of(e->lexpr, rv);
      if (!col || e->rexpr == nullptr || e->rexpr->node_case != PG_QUERY__NODE__NODE_LIST ||
          e->rexpr->list->n_items != 2) {
        return opaque;
      }
      auto lo = value_of(e->rexpr->list->items[0]);
      auto hi = value_of(e->rexpr->list->items[1]);
      if (!lo || !hi || lo->kind == ValueRef::Kind::kNull || hi->kind == ValueRef::Kind::kNull) {
        return opaque;
      }
      Condition c;
      c.kind = Condition::Kind::kAnd;
      c.children.push_back(compare(*col, ">=", std::move(*lo)));
      c.children.push_back(compare(*col, "<=", std::move(*hi)));
      return c;
    }
    case PG_QUERY__A__EXPR__KIND__AEXPR_LIKE: {
      if (o != "~~") return opaque;  // LIKE, not NOT LIKE
      auto col = column_of(e->lexpr, rv);
      auto v = value_of(e->rexpr);
      if (!col || !v || v->kind == ValueRef::Kind::kNull) return opaque;
      Condition c;
      c.kind = Condition::Kind::kLike;
      c.column = std::move(*col);
      c.values.push_back(std::move(*v));
      return c;
    }
    default:
      return opaque;
  }
}

}  // namespace pgrange::sql
