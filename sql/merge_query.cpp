#include "sql/merge_query.hpp"

#include <pg_query/pg_query.pb-c.h>
#include <protobuf-c/protobuf-c.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <memory>
#include <vector>

#include "sql/count_query.hpp"
#include "sql/parse_node.hpp"

namespace pgrange::sql {
namespace {

using Node = PgQuery__Node;

Error refuse(std::string what, std::string why = {}) {
  std::string msg = what + " over a table spread across several shards is not supported";
  if (!why.empty()) msg += ": " + why;
  return Error::make(sqlstate::kFeatureNotSupported, std::move(msg))
      .with_hint("give every key column with = so that the statement runs on one shard");
}

/// Owns the parse-tree nodes pgrange adds to a statement (the tree libpg_query unpacked keeps
/// owning its own).
class Arena {
 public:
  template <typename T>
  T* make(const T& init) {
    auto p = std::make_shared<T>(init);
    owned_.push_back(p);
    return p.get();
  }
  Node** nodes(const std::vector<Node*>& v) {
    auto p = std::make_shared<std::vector<Node*>>(v);
    owned_.push_back(p);
    return p->data();
  }
  char* str(std::string_view s) {
    auto p = std::make_shared<std::string>(s);
    owned_.push_back(p);
    return p->data();
  }

  Node* node(PgQuery__ResTarget* t) {
    Node n = PG_QUERY__NODE__INIT;
    n.node_case = PG_QUERY__NODE__NODE_RES_TARGET;
    n.res_target = t;
    return make(n);
  }
  Node* node(PgQuery__FuncCall* f) {
    Node n = PG_QUERY__NODE__INIT;
    n.node_case = PG_QUERY__NODE__NODE_FUNC_CALL;
    n.func_call = f;
    return make(n);
  }
  Node* node(PgQuery__SortBy* s) {
    Node n = PG_QUERY__NODE__INIT;
    n.node_case = PG_QUERY__NODE__NODE_SORT_BY;
    n.sort_by = s;
    return make(n);
  }
  Node* string(std::string_view s) {
    PgQuery__String v = PG_QUERY__STRING__INIT;
    v.sval = str(s);
    Node n = PG_QUERY__NODE__INIT;
    n.node_case = PG_QUERY__NODE__NODE_STRING;
    n.string = make(v);
    return make(n);
  }
  /// An integer constant (written as a numeric constant when it needs more than 32 bits, as
  /// PostgreSQL's grammar does).
  Node* integer(int64_t value) {
    PgQuery__AConst c = PG_QUERY__A__CONST__INIT;
    if (value >= INT32_MIN && value <= INT32_MAX) {
      PgQuery__Integer i = PG_QUERY__INTEGER__INIT;
      i.ival = static_cast<int32_t>(value);
      c.val_case = PG_QUERY__A__CONST__VAL_IVAL;
      c.ival = make(i);
    } else {
      PgQuery__Float f = PG_QUERY__FLOAT__INIT;
      f.fval = str(std::to_string(value));
      c.val_case = PG_QUERY__A__CONST__VAL_FVAL;
      c.fval = make(f);
    }
    return node(c);
  }
  Node* null_const() {
    PgQuery__AConst c = PG_QUERY__A__CONST__INIT;
    c.isnull = true;
    return node(c);
  }
  Node* node(PgQuery__AConst c) {
    c.location = -1;
    Node n = PG_QUERY__NODE__INIT;
    n.node_case = PG_QUERY__NODE__NODE_A_CONST;
    n.a_const = make(c);
    return make(n);
  }
  /// `what::pg_catalog.int8`
  Node* bigint(Node* what) {
    PgQuery__TypeName t = PG_QUERY__TYPE_NAME__INIT;
    t.n_names = 2;
    t.names = nodes({string("pg_catalog"), string("int8")});
    t.typemod = -1;
    t.location = -1;
    PgQuery__TypeCast c = PG_QUERY__TYPE_CAST__INIT;
    c.arg = what;
    c.type_name = make(t);
    c.location = -1;
    Node n = PG_QUERY__NODE__INIT;
    n.node_case = PG_QUERY__NODE__NODE_TYPE_CAST;
    n.type_cast = make(c);
    return make(n);
  }
  /// `a + b`
  Node* plus(Node* a, Node* b) {
    PgQuery__AExpr e = PG_QUERY__A__EXPR__INIT;
    e.kind = PG_QUERY__A__EXPR__KIND__AEXPR_OP;
    e.n_name = 1;
    e.name = nodes({string("+")});
    e.lexpr = a;
    e.rexpr = b;
    e.location = -1;
    Node n = PG_QUERY__NODE__INIT;
    n.node_case = PG_QUERY__NODE__NODE_A_EXPR;
    n.a_expr = make(e);
    return make(n);
  }
  Node* target(Node* val, const char* name = nullptr) {
    PgQuery__ResTarget t = PG_QUERY__RES_TARGET__INIT;
    t.val = val;
    if (name != nullptr) t.name = str(name);
    t.location = -1;
    return node(make(t));
  }
  Node* sort(Node* what, bool descending, bool nulls_first) {
    PgQuery__SortBy s = PG_QUERY__SORT_BY__INIT;
    s.node = what;
    s.sortby_dir =
        descending ? PG_QUERY__SORT_BY_DIR__SORTBY_DESC : PG_QUERY__SORT_BY_DIR__SORTBY_DEFAULT;
    s.sortby_nulls = nulls_first == descending ? PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_DEFAULT
                     : nulls_first             ? PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_FIRST
                                               : PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_LAST;
    s.location = -1;
    return node(make(s));
  }
  /// `a * 1`
  Node* times_one(Node* a) {
    PgQuery__AExpr e = PG_QUERY__A__EXPR__INIT;
    e.kind = PG_QUERY__A__EXPR__KIND__AEXPR_OP;
    e.n_name = 1;
    e.name = nodes({string("*")});
    e.lexpr = a;
    e.rexpr = integer(1);
    e.location = -1;
    Node n = PG_QUERY__NODE__INIT;
    n.node_case = PG_QUERY__NODE__NODE_A_EXPR;
    n.a_expr = make(e);
    return make(n);
  }
  /// `CASE WHEN NULL THEN a ELSE b END`: b, of the type PostgreSQL resolves for a and b.
  Node* typed_like(Node* a, Node* b) {
    PgQuery__CaseWhen w = PG_QUERY__CASE_WHEN__INIT;
    w.expr = null_const();
    w.result = a;
    w.location = -1;
    Node wn = PG_QUERY__NODE__INIT;
    wn.node_case = PG_QUERY__NODE__NODE_CASE_WHEN;
    wn.case_when = make(w);
    PgQuery__CaseExpr c = PG_QUERY__CASE_EXPR__INIT;
    c.n_args = 1;
    c.args = nodes({make(wn)});
    c.defresult = b;
    c.location = -1;
    Node n = PG_QUERY__NODE__INIT;
    n.node_case = PG_QUERY__NODE__NODE_CASE_EXPR;
    n.case_expr = make(c);
    return make(n);
  }
  /// A call of `name` with the arguments and FILTER of `like`.
  Node* call(std::string_view name, const PgQuery__FuncCall* like) {
    PgQuery__FuncCall f = *like;
    f.n_funcname = 1;
    f.funcname = nodes({string(name)});
    f.agg_star = false;
    f.agg_distinct = false;
    return node(make(f));
  }

 private:
  std::vector<std::shared_ptr<void>> owned_;
};

bool is_node(const Node* n, PgQuery__Node__NodeCase c) {
  return n != nullptr && n->node_case == c;
}

/// A bare column name (`x`, not `t.x` or `*`), else nullptr.
const char* bare_column(const Node* n) {
  if (!is_node(n, PG_QUERY__NODE__NODE_COLUMN_REF) || n->column_ref->n_fields != 1) return nullptr;
  return string_of(n->column_ref->fields[0]);
}

/// The last name of a column reference (`x` of `t.x`), else nullptr.
const char* column_name(const Node* n) {
  if (!is_node(n, PG_QUERY__NODE__NODE_COLUMN_REF) || n->column_ref->n_fields == 0) return nullptr;
  return string_of(n->column_ref->fields[n->column_ref->n_fields - 1]);
}

bool is_star(const Node* n) {
  if (!is_node(n, PG_QUERY__NODE__NODE_COLUMN_REF)) return false;
  const PgQuery__ColumnRef* c = n->column_ref;
  return c->n_fields > 0 && is_node(c->fields[c->n_fields - 1], PG_QUERY__NODE__NODE_A_STAR);
}

/// An integer constant's value.
std::optional<int64_t> integer_of(const Node* n) {
  if (!is_node(n, PG_QUERY__NODE__NODE_A_CONST) || n->a_const->isnull) return std::nullopt;
  const PgQuery__AConst* c = n->a_const;
  if (c->val_case == PG_QUERY__A__CONST__VAL_IVAL) return c->ival->ival;
  if (c->val_case == PG_QUERY__A__CONST__VAL_FVAL) {
    std::string_view s(c->fval->fval);
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && p == s.data() + s.size()) return v;
  }
  return std::nullopt;
}

/// Two expressions of the SELECT that are the same. Over one table, column references by their
/// column name (`t.x` is `x`); over a join, written alike (`u.id` is not `o.id`, nor `id`,
/// which may be either: taken as different, the merge sorts or groups by both, which is
/// right either way). Anything else written alike.
bool same_expr(const Node* a, const Node* b, bool one_table) {
  const char* ca = is_star(a) ? nullptr : column_name(a);
  const char* cb = is_star(b) ? nullptr : column_name(b);
  if (ca != nullptr && cb != nullptr && one_table) return std::string_view(ca) == cb;
  return same_tree(&a->base, &b->base);
}

/// The FROM clause is one relation (no join, no list of several).
bool one_relation(const PgQuery__SelectStmt* s) {
  return s->n_from_clause == 1 && is_node(s->from_clause[0], PG_QUERY__NODE__NODE_RANGE_VAR);
}

/// The first COLLATE under `m` naming a collation that does not order text bytewise.
const PgQuery__CollateClause* foreign_collation(const ProtobufCMessage* m) {
  if (m == nullptr) return nullptr;
  if (m->descriptor == &pg_query__collate_clause__descriptor) {
    const auto* c = reinterpret_cast<const PgQuery__CollateClause*>(m);
    const char* name = c->n_collname > 0 ? string_of(c->collname[c->n_collname - 1]) : nullptr;
    if (name == nullptr || !orders_bytewise(name)) return c;
  }
  const PgQuery__CollateClause* found = nullptr;
  for_each_child(m, [&](const ProtobufCMessage* child) {
    if (found == nullptr) found = foreign_collation(child);
  });
  return found;
}

bool contains_aggregate(const Node* n) {
  return n != nullptr && find_call(&n->base, &is_aggregate_call) != nullptr;
}

/// The number of `$n`, or of `$n::type`; 0 for anything else.
int param_number(const Node* n) {
  if (is_node(n, PG_QUERY__NODE__NODE_TYPE_CAST)) n = n->type_cast->arg;
  return is_node(n, PG_QUERY__NODE__NODE_PARAM_REF) ? n->param_ref->number : 0;
}

/// A LIMIT or OFFSET: a constant (nullopt for none: absent, NULL, ALL) or a parameter.
struct Bound {
  std::optional<int64_t> value;
  int param = 0;
};

/// An Error for a LIMIT/OFFSET pgrange cannot apply.
Result<Bound> bound_of(const Node* n, const char* clause) {
  if (n == nullptr) return Bound{};
  if (is_node(n, PG_QUERY__NODE__NODE_A_CONST) && n->a_const->isnull) return Bound{};
  if (int param = param_number(n); param > 0) return Bound{std::nullopt, param};
  std::optional<int64_t> v = integer_of(n);
  if (!v) {
    return tl::unexpected(
        refuse(std::string(clause) + " with anything but a constant or a parameter"));
  }
  if (*v < 0) return tl::unexpected(refuse(std::string("a negative ") + clause));
  return Bound{v, 0};
}

void sort_options(const PgQuery__SortBy* s, MergeSortKey& key);

/// One ORDER BY item: its expression and direction (the column is the caller's to find).
Result<std::pair<Node*, MergeSortKey>> sort_item(const Node* n) {
  if (!is_node(n, PG_QUERY__NODE__NODE_SORT_BY)) return tl::unexpected(refuse("ORDER BY"));
  const PgQuery__SortBy* sb = n->sort_by;
  if (sb->sortby_dir == PG_QUERY__SORT_BY_DIR__SORTBY_USING) {
    return tl::unexpected(refuse("ORDER BY … USING"));
  }
  MergeSortKey key;
  sort_options(sb, key);
  return std::make_pair(sb->node, key);
}

void sort_options(const PgQuery__SortBy* s, MergeSortKey& key) {
  key.descending = s->sortby_dir == PG_QUERY__SORT_BY_DIR__SORTBY_DESC;
  switch (s->sortby_nulls) {
    case PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_FIRST:
      key.nulls_first = true;
      break;
    case PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_LAST:
      key.nulls_first = false;
      break;
    default:
      key.nulls_first = key.descending;
  }
}

struct Target {
  Node* val = nullptr;
  const char* alias = nullptr;  ///< AS name
  /// The name PostgreSQL gives the column when it is a plain column reference or aliased.
  const char* name = nullptr;
  bool position_known = true;  ///< no `*` before it (or in it)
};

class Planner {
 public:
  /// `windows_in_pgrange`: plan the window functions as pgrange computes them (kWindow).
  Planner(PgQuery__SelectStmt* s, std::span<const std::string> keys,
          std::span<const std::string> columns, bool windows_in_pgrange = false)
      : s_(s),
        keys_(keys),
        columns_(columns),
        one_table_(one_relation(s)),
        windows_in_pgrange_(windows_in_pgrange) {}

  /// The statement needs no rewriting: the shards run the client's text.
  bool unchanged() const { return unchanged_; }

  /// An integer constant's value, noting that the plan depends on it.
  std::optional<int64_t> read_integer(const Node* n) {
    std::optional<int64_t> v = integer_of(n);
    if (v) note_constant(n);
    return v;
  }
  void note_constant(const Node* n) {
    if (is_node(n, PG_QUERY__NODE__NODE_A_CONST)) {
      q_.constants_read.push_back(n->a_const->location);
    }
  }

  Result<MergeQuery> plan() {
    if (auto r = check(); !r) return tl::unexpected(r.error());
    bool star = false;
    for (size_t i = 0; i < s_->n_target_list; ++i) {
      const Node* n = s_->target_list[i];
      if (!is_node(n, PG_QUERY__NODE__NODE_RES_TARGET)) return tl::unexpected(refuse("target"));
      Target t;
      t.val = n->res_target->val;
      if (n->res_target->name != nullptr && *n->res_target->name != '\0') {
        t.alias = n->res_target->name;
      }
      t.name = t.alias != nullptr ? t.alias : column_name(t.val);
      if (is_star(t.val)) star = true;
      t.position_known = !star;
      targets_.push_back(t);
    }
    star_ = star;
    note_constant(s_->limit_count);
    note_constant(s_->limit_offset);
    auto limit = bound_of(s_->limit_count, "LIMIT");
    if (!limit) return tl::unexpected(limit.error());
    auto offset = bound_of(s_->limit_offset, "OFFSET");
    if (!offset) return tl::unexpected(offset.error());
    q_.limit = limit->value;
    q_.limit_param = limit->param;
    q_.offset = offset->value.value_or(0);
    q_.offset_param = offset->param;
    limit_node_ = s_->limit_count;
    offset_node_ = s_->limit_offset;

    bool aggregates = s_->having_clause != nullptr;
    for (const Target& t : targets_) aggregates = aggregates || contains_aggregate(t.val);
    for (size_t i = 0; i < s_->n_sort_clause; ++i) {
      aggregates = aggregates || contains_aggregate(s_->sort_clause[i]);
    }
    if (windows_in_pgrange_) {
      if (s_->n_group_clause > 0 || aggregates) {
        return tl::unexpected(refuse("window functions over groups"));
      }
      return windowed();
    }
    if (s_->n_group_clause == 0 && !aggregates) return ordered();
    if (groups_by_key()) return ordered();
    return aggregate();
  }

 private:
  Result<void> check() {
    if (s_->op != PG_QUERY__SET_OPERATION__SETOP_NONE) return tl::unexpected(refuse("UNION"));
    if (s_->into_clause != nullptr) return tl::unexpected(refuse("SELECT INTO"));
    if (s_->with_clause != nullptr) return tl::unexpected(refuse("WITH"));
    if (s_->n_locking_clause > 0 && (s_->limit_count != nullptr || s_->limit_offset != nullptr)) {
      // Each shard would lock the rows of its own LIMIT, more than the client gets.
      return tl::unexpected(refuse("FOR UPDATE/SHARE with LIMIT or OFFSET",
                                   "each shard would lock rows that the merged LIMIT drops"));
    }
    if (s_->n_values_lists > 0) return tl::unexpected(refuse("VALUES"));
    if (s_->group_distinct) return tl::unexpected(refuse("GROUP BY DISTINCT"));
    if (s_->limit_option == PG_QUERY__LIMIT_OPTION__LIMIT_OPTION_WITH_TIES) {
      return tl::unexpected(refuse("FETCH FIRST … WITH TIES"));
    }
    if (s_->n_distinct_clause > 0) {
      const Node* d = s_->distinct_clause[0];
      if (s_->n_distinct_clause > 1 ||
          (d != nullptr && d->node_case != PG_QUERY__NODE__NODE__NOT_SET)) {
        return tl::unexpected(refuse("DISTINCT ON",
                                     "which row of each group it keeps depends on "
                                     "the order rows arrive in"));
      }
      q_.distinct = true;
    }
    // pgrange compares text bytewise: a collation that orders it otherwise anywhere in what
    // the merge compares would make the shards' order and pgrange's disagree.
    std::vector<const Node*> compared(s_->target_list, s_->target_list + s_->n_target_list);
    compared.insert(compared.end(), s_->sort_clause, s_->sort_clause + s_->n_sort_clause);
    compared.insert(compared.end(), s_->group_clause, s_->group_clause + s_->n_group_clause);
    compared.push_back(s_->having_clause);
    for (const Node* n : compared) {
      const PgQuery__CollateClause* c = n != nullptr ? foreign_collation(&n->base) : nullptr;
      if (c == nullptr) continue;
      const char* name = c->n_collname > 0 ? string_of(c->collname[c->n_collname - 1]) : nullptr;
      return tl::unexpected(refuse(std::string("COLLATE \"") + (name != nullptr ? name : "") + "\"",
                                   "pgrange merges text in the C collation's order"));
    }
    windows();
    return {};
  }

  /// Window functions: each shard computes them over its own rows, which is PostgreSQL's answer
  /// exactly when every partition's rows are on one shard. The plan names the columns every
  /// window partitions by; whether the ranges keep such partitions together is the range map's
  /// to say (plan_spread).
  void windows() {
    std::vector<const PgQuery__WindowDef*> used;
    auto collect = [&](const PgQuery__FuncCall* fc) {
      if (fc->over != nullptr) used.push_back(fc->over);
      return false;
    };
    for (size_t i = 0; i < s_->n_target_list; ++i) find_call(&s_->target_list[i]->base, collect);
    for (size_t i = 0; i < s_->n_sort_clause; ++i) find_call(&s_->sort_clause[i]->base, collect);
    if (used.empty()) return;
    std::vector<std::string> common;
    bool first = true;
    for (const PgQuery__WindowDef* w : used) {
      std::vector<std::string> names;
      if (const PgQuery__WindowDef* base = window_base(w, true)) {
        for (size_t i = 0; i < base->n_partition_clause; ++i) {
          if (const char* c = column_name(base->partition_clause[i])) names.emplace_back(c);
        }
      }
      if (first) {
        common = std::move(names);
        first = false;
        continue;
      }
      std::erase_if(common, [&](const std::string& c) {
        return std::find(names.begin(), names.end(), c) == names.end();
      });
    }
    q_.window_partition = std::move(common);
  }

  /// The definition holding a window's PARTITION BY: `OVER w` and `OVER (w …)` name one of the
  /// WINDOW clause, which may name another; nullptr for a name the clause lacks.
  const PgQuery__WindowDef* window_base(const PgQuery__WindowDef* w, bool in_over) const {
    for (size_t hops = 0; w != nullptr && hops <= s_->n_window_clause; ++hops) {
      const char* ref = w->refname != nullptr && *w->refname != '\0' ? w->refname : nullptr;
      if (ref == nullptr && in_over && w->name != nullptr && *w->name != '\0') ref = w->name;
      if (ref == nullptr) return w;
      in_over = false;
      const PgQuery__WindowDef* next = nullptr;
      for (size_t i = 0; i < s_->n_window_clause && next == nullptr; ++i) {
        const Node* n = s_->window_clause[i];
        if (is_node(n, PG_QUERY__NODE__NODE_WINDOW_DEF) && n->window_def->name != nullptr &&
            std::string_view(n->window_def->name) == ref) {
          next = n->window_def;
        }
      }
      w = next;
    }
    return nullptr;
  }

  /// GROUP BY every key column: each group's rows are all on one shard, so the shards' groups
  /// are the answer's groups.
  bool groups_by_key() const {
    if (keys_.empty()) return false;
    for (const std::string& k : keys_) {
      bool found = false;
      for (size_t i = 0; i < s_->n_group_clause && !found; ++i) {
        const char* c = column_name(s_->group_clause[i]);
        found = c != nullptr && k == c;
      }
      if (!found) return false;
    }
    for (size_t i = 0; i < s_->n_group_clause; ++i) {
      if (is_node(s_->group_clause[i], PG_QUERY__NODE__NODE_GROUPING_SET)) return false;
    }
    return true;
  }

  /// The output a bare name in ORDER BY refers to (PostgreSQL looks at output names first).
  std::optional<size_t> output_named(const char* name) const {
    if (name == nullptr) return std::nullopt;
    for (size_t i = 0; i < targets_.size(); ++i) {
      if (targets_[i].name != nullptr && std::string_view(targets_[i].name) == name) return i;
    }
    return std::nullopt;
  }

  Result<MergeQuery> ordered() {
    q_.mode = MergeQuery::Mode::kOrdered;
    q_.visible = star_ ? -1 : static_cast<int>(targets_.size());
    if (s_->n_sort_clause == 0 && !q_.limit && q_.limit_param == 0 && q_.offset == 0 &&
        q_.offset_param == 0 && !q_.distinct) {
      unchanged_ = true;
      return q_;
    }
    std::vector<Node*> hidden;
    auto hide = [&](Node* expr) {
      hidden.push_back(arena_.target(expr));
      return -static_cast<int>(hidden.size());  // resolved below
    };
    for (size_t i = 0; i < s_->n_sort_clause; ++i) {
      auto item = sort_item(s_->sort_clause[i]);
      if (!item) return tl::unexpected(item.error());
      auto [e, key] = *item;
      if (auto pos = read_integer(e)) {
        if (*pos < 1 || (q_.visible >= 0 && *pos > q_.visible)) {
          return tl::unexpected(refuse("ORDER BY a position not in the select list"));
        }
        key.column = static_cast<int>(*pos - 1);
      } else if (auto out = output_named(bare_column(e))) {
        if (targets_[*out].position_known) {
          key.column = static_cast<int>(*out);
        } else if (q_.distinct) {
          return tl::unexpected(refuse("SELECT DISTINCT *"));
        } else {
          key.column = hide(targets_[*out].val);
        }
      } else {
        std::optional<int> same;
        for (size_t t = 0; t < targets_.size() && !same; ++t) {
          if (targets_[t].position_known && same_expr(targets_[t].val, e, one_table_)) {
            same = static_cast<int>(t);
          }
        }
        if (same) {
          key.column = *same;
        } else if (q_.distinct) {
          return tl::unexpected(
              refuse("ORDER BY an expression that is not selected, with SELECT DISTINCT"));
        } else {
          key.column = hide(e);
        }
      }
      q_.order.push_back(key);
    }
    std::vector<Node*> sort(s_->sort_clause, s_->sort_clause + s_->n_sort_clause);
    if (q_.distinct) {
      if (star_) return tl::unexpected(refuse("SELECT DISTINCT *"));
      // Every selected column joins the order, so that equal rows meet in the merge.
      for (int c = 0; c < q_.visible; ++c) {
        bool present = std::any_of(q_.order.begin(), q_.order.end(),
                                   [&](const MergeSortKey& k) { return k.column == c; });
        if (present) continue;
        q_.order.push_back({c, false, false});
      }
      sort.clear();
      for (const MergeSortKey& k : q_.order) {
        sort.push_back(arena_.sort(arena_.integer(k.column + 1), k.descending, k.nulls_first));
      }
    }
    q_.hidden = static_cast<int>(hidden.size());
    // LIMIT n with nothing added and no OFFSET: the client's text is the shard query.
    unchanged_ = hidden.empty() && !q_.distinct && q_.offset == 0 && q_.offset_param == 0;
    for (MergeSortKey& k : q_.order) {
      // Hidden columns count from the end: -1 is the first hidden one, which is column
      // (columns - hidden); the merge resolves them once it knows the number of columns.
      if (k.column < 0) k.column = -(q_.hidden + 1) - k.column;  // → -hidden … -1
    }
    std::vector<Node*> targets(s_->target_list, s_->target_list + s_->n_target_list);
    targets.insert(targets.end(), hidden.begin(), hidden.end());
    set_targets(targets);
    set_sort(sort);
    set_shard_limit(true);
    return q_;
  }

  /// The shard query's LIMIT (no OFFSET: the merge skips rows): offset+limit when `push`, else
  /// none.
  void set_shard_limit(bool push) {
    s_->limit_offset = nullptr;
    s_->limit_count = nullptr;
    s_->limit_option = PG_QUERY__LIMIT_OPTION__LIMIT_OPTION_DEFAULT;
    bool has_limit = q_.limit || q_.limit_param > 0;
    if (q_.limit_param == 0 && q_.offset_param == 0) {
      if (!push || !has_limit) return;
      int64_t pushed = *q_.limit > INT64_MAX - q_.offset ? INT64_MAX : *q_.limit + q_.offset;
      s_->limit_count = arena_.integer(pushed);
    } else {
      // Parameters are known at Bind only: the shard adds them up itself. A shard query that
      // pushes no limit still names each parameter (NULL + …: no limit), so that PostgreSQL
      // infers its type as it does for the client's statement.
      std::vector<Node*> terms;
      if (push && has_limit) {
        terms.push_back(q_.limit_param > 0 ? arena_.bigint(limit_node_)
                                           : arena_.integer(*q_.limit));
      } else {
        terms.push_back(arena_.null_const());
        if (q_.limit_param > 0) terms.push_back(arena_.bigint(limit_node_));
      }
      if (q_.offset_param > 0) {
        terms.push_back(arena_.bigint(offset_node_));
      } else if (q_.offset > 0) {
        terms.push_back(arena_.integer(q_.offset));
      }
      Node* sum = terms[0];
      for (size_t i = 1; i < terms.size(); ++i) sum = arena_.plus(sum, terms[i]);
      s_->limit_count = sum;
    }
    s_->limit_option = PG_QUERY__LIMIT_OPTION__LIMIT_OPTION_COUNT;
    q_.limit_pushed = push && has_limit;
  }

  /// The output an ORDER BY item names by its position or its name (outputs are counted in
  /// visible_outputs); nullopt for any other expression.
  Result<std::optional<int>> output_at_or_named(const Node* e) {
    if (auto pos = read_integer(e)) {
      if (*pos < 1 || *pos > q_.visible_outputs) {
        return tl::unexpected(refuse("ORDER BY a position not in the select list"));
      }
      return std::optional<int>(static_cast<int>(*pos - 1));
    }
    if (auto out = output_named(bare_column(e))) return std::optional<int>(static_cast<int>(*out));
    return std::optional<int>();
  }

  // --- window mode ---

  /// The shard column computing `e` (added once).
  int shard_column(Node* e, const char* name = nullptr) {
    for (size_t i = 0; i < shard_exprs_.size(); ++i) {
      if (same_expr(shard_exprs_[i], e, one_table_)) return static_cast<int>(i);
    }
    shard_exprs_.push_back(e);
    shard_names_.push_back(name);
    return static_cast<int>(shard_exprs_.size() - 1);
  }

  /// The WINDOW clause's definition named `name`, or nullptr.
  const PgQuery__WindowDef* named_window(const char* name) const {
    for (size_t i = 0; i < s_->n_window_clause; ++i) {
      const Node* n = s_->window_clause[i];
      if (is_node(n, PG_QUERY__NODE__NODE_WINDOW_DEF) && n->window_def->name != nullptr &&
          std::string_view(n->window_def->name) == name) {
        return n->window_def;
      }
    }
    return nullptr;
  }

  /// A window as its call resolves it: PARTITION BY and ORDER BY through the windows it names,
  /// and its frame.
  struct WindowShape {
    std::vector<Node*> partition;
    std::vector<Node*> order;  ///< SortBy nodes
    int32_t frame = 0;
  };
  std::optional<WindowShape> window_shape(const PgQuery__WindowDef* over) const {
    auto set = [](const char* s) { return s != nullptr && *s != '\0'; };
    WindowShape w;
    const PgQuery__WindowDef* d = over;
    if (!set(over->refname) && set(over->name)) d = named_window(over->name);  // OVER w
    if (d == nullptr) return std::nullopt;
    w.frame = d->frame_options;
    bool have_order = false;
    for (size_t hops = 0; d != nullptr; ++hops) {
      if (hops > s_->n_window_clause) return std::nullopt;
      if (!have_order && d->n_order_clause > 0) {
        w.order.assign(d->order_clause, d->order_clause + d->n_order_clause);
        have_order = true;
      }
      if (d->n_partition_clause > 0 && w.partition.empty()) {
        w.partition.assign(d->partition_clause, d->partition_clause + d->n_partition_clause);
      }
      if (!set(d->refname)) return w;
      d = named_window(d->refname);
    }
    return std::nullopt;
  }

  bool same_list(const std::vector<Node*>& a, const std::vector<Node*>& b) const {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (is_node(a[i], PG_QUERY__NODE__NODE_SORT_BY) &&
          is_node(b[i], PG_QUERY__NODE__NODE_SORT_BY)) {
        const PgQuery__SortBy* x = a[i]->sort_by;
        const PgQuery__SortBy* y = b[i]->sort_by;
        if (x->sortby_dir != y->sortby_dir || x->sortby_nulls != y->sortby_nulls ||
            !same_expr(x->node, y->node, one_table_)) {
          return false;
        }
      } else if (!same_expr(a[i], b[i], one_table_)) {
        return false;
      }
    }
    return true;
  }

  /// The window function `fc` (registered once), or an Error when pgrange does not compute it.
  Result<int> window_of(const PgQuery__FuncCall* fc) {
    for (size_t w = 0; w < window_calls_.size(); ++w) {
      if (same_tree(&window_calls_[w]->base, &fc->base)) return static_cast<int>(w);
    }
    auto shape = window_shape(fc->over);
    if (!shape) return tl::unexpected(refuse("a window that names an unknown window"));
    if (window_calls_.empty()) {
      window_partition_exprs_ = shape->partition;
      window_order_items_ = shape->order;
    } else if (!same_list(window_partition_exprs_, shape->partition) ||
               !same_list(window_order_items_, shape->order)) {
      return tl::unexpected(refuse("window functions over different windows",
                                   "pgrange computes the windows of one PARTITION BY and "
                                   "ORDER BY"));
    }
    std::string name = func_name(fc);
    if (fc->n_funcname == 2) {
      const char* schema = string_of(fc->funcname[0]);
      if (schema == nullptr || std::string_view(schema) != "pg_catalog") name = "?";
    } else if (fc->n_funcname != 1) {
      name = "?";
    }
    using Kind = MergeWindowCall::Kind;
    static const std::pair<std::string_view, Kind> kKinds[] = {{"row_number", Kind::kRowNumber},
                                                               {"rank", Kind::kRank},
                                                               {"dense_rank", Kind::kDenseRank},
                                                               {"lag", Kind::kLag},
                                                               {"lead", Kind::kLead},
                                                               {"first_value", Kind::kFirstValue},
                                                               {"last_value", Kind::kLastValue},
                                                               {"nth_value", Kind::kNthValue},
                                                               {"percent_rank", Kind::kPercentRank},
                                                               {"cume_dist", Kind::kCumeDist},
                                                               {"ntile", Kind::kNtile},
                                                               {"count", Kind::kCount},
                                                               {"sum", Kind::kSum},
                                                               {"min", Kind::kMin},
                                                               {"max", Kind::kMax},
                                                               {"avg", Kind::kAvg}};
    MergeWindowCall call;
    call.name = name;
    auto kind = std::find_if(std::begin(kKinds), std::end(kKinds),
                             [&](const auto& k) { return k.first == name; });
    if (kind == std::end(kKinds)) {
      return tl::unexpected(refuse("window function " + std::string(func_name(fc)) + "()"));
    }
    call.kind = kind->second;
    if (fc->agg_distinct || fc->agg_filter != nullptr || fc->n_agg_order > 0 ||
        fc->agg_within_group || fc->func_variadic) {
      return tl::unexpected(
          refuse("window function " + name + "() with DISTINCT, FILTER or ORDER BY"));
    }
    for (size_t i = 0; i < fc->n_args; ++i) {
      if (contains_aggregate(fc->args[i])) {
        return tl::unexpected(refuse("an aggregate inside a window function"));
      }
    }
    // The frame: from the partition's first row to the current row's last peer, the current
    // row, or the partition's last row.
    constexpr int32_t kRows = 0x4, kStartUnboundedPreceding = 0x20, kEndUnboundedFollowing = 0x100,
                      kEndCurrentRow = 0x400, kPlain = 0x1 | 0x2 | 0x4 | 0x8 | 0x10;
    const int32_t f = shape->frame;
    if ((f & ~(kPlain | kStartUnboundedPreceding | kEndUnboundedFollowing | kEndCurrentRow)) != 0 ||
        (f & kStartUnboundedPreceding) == 0) {
      return tl::unexpected(refuse("this window frame",
                                   "pgrange computes frames from UNBOUNDED PRECEDING to the "
                                   "current row or UNBOUNDED FOLLOWING"));
    }
    call.frame = (f & kEndUnboundedFollowing) != 0 ? MergeWindowCall::Frame::kPartition
                 : (f & kRows) != 0                ? MergeWindowCall::Frame::kRow
                                                   : MergeWindowCall::Frame::kPeers;
    auto args = [&](size_t lo, size_t hi) { return fc->n_args >= lo && fc->n_args <= hi; };
    bool ok = true;
    switch (call.kind) {
      case Kind::kRowNumber:
      case Kind::kRank:
      case Kind::kDenseRank:
      case Kind::kPercentRank:
      case Kind::kCumeDist:
        ok = args(0, 0) && !fc->agg_star;
        break;
      case Kind::kNtile: {
        ok = args(1, 1) && !fc->agg_star;
        if (!ok) break;
        auto n = read_integer(fc->args[0]);
        if (!n || *n < 1 || *n > INT32_MAX) {
          return tl::unexpected(refuse("ntile() with a number that is not a positive constant"));
        }
        call.offset = *n;
        break;
      }
      case Kind::kLag:
      case Kind::kLead: {
        ok = args(1, 3) && !fc->agg_star;
        if (!ok) break;
        if (fc->n_args >= 2) {
          auto n = read_integer(fc->args[1]);
          if (!n || *n < 0) {
            return tl::unexpected(refuse(name + "() with an offset that is not a constant"));
          }
          call.offset = *n;
        }
        call.argument = shard_column(fc->args[0]);
        if (fc->n_args == 3) {
          call.default_value = shard_column(arena_.typed_like(fc->args[0], fc->args[2]));
        }
        break;
      }
      case Kind::kNthValue: {
        ok = args(2, 2) && !fc->agg_star;
        if (!ok) break;
        auto n = read_integer(fc->args[1]);
        if (!n || *n < 1) {
          return tl::unexpected(refuse("nth_value() with an n that is not a positive constant"));
        }
        call.offset = *n;
        call.argument = shard_column(fc->args[0]);
        break;
      }
      case Kind::kCount:
        ok = fc->agg_star ? args(0, 0) : args(1, 1);
        if (ok && !fc->agg_star) call.argument = shard_column(fc->args[0]);
        break;
      default:
        ok = args(1, 1) && !fc->agg_star;
        if (ok) call.argument = shard_column(fc->args[0]);
    }
    if (!ok) return tl::unexpected(refuse("window function " + name + "() with these arguments"));
    window_calls_.push_back(fc);
    q_.windows.push_back(std::move(call));
    return static_cast<int>(window_calls_.size() - 1);
  }

  static bool is_window_call(const Node* n) {
    return is_node(n, PG_QUERY__NODE__NODE_FUNC_CALL) && n->func_call->over != nullptr;
  }
  static bool contains_window(const Node* n) {
    auto window = [](const PgQuery__FuncCall* fc) { return fc->over != nullptr; };
    return n != nullptr && find_call(&n->base, window) != nullptr;
  }

  /// The windows computed in pgrange: the shards send the rows' columns, the windows'
  /// arguments, PARTITION BY and ORDER BY values, sorted by the last two; pgrange merges them,
  /// computes the windows, then DISTINCT, ORDER BY, OFFSET and LIMIT over its outputs.
  Result<MergeQuery> windowed() {
    q_.mode = MergeQuery::Mode::kWindow;
    q_.window_partition.reset();
    if (star_) return tl::unexpected(refuse("* with window functions"));
    for (const Target& t : targets_) {
      if (is_window_call(t.val)) {
        auto w = window_of(t.val->func_call);
        if (!w) return tl::unexpected(w.error());
        q_.outputs.push_back({false, *w});
        q_.output_names.push_back(t.alias != nullptr ? t.alias : q_.windows[*w].name);
      } else if (contains_window(t.val)) {
        return tl::unexpected(refuse("an expression over window functions",
                                     "select the window functions themselves"));
      } else {
        q_.outputs.push_back({true, shard_column(t.val, t.alias)});
        q_.output_names.push_back(t.alias != nullptr ? t.alias : "");
      }
    }
    q_.visible_outputs = static_cast<int>(q_.outputs.size());
    for (size_t i = 0; i < s_->n_sort_clause; ++i) {
      auto item = sort_item(s_->sort_clause[i]);
      if (!item) return tl::unexpected(item.error());
      auto [e, key] = *item;
      auto named = output_at_or_named(e);
      if (!named) return tl::unexpected(named.error());
      if (*named) {
        key.column = **named;
      } else if (is_window_call(e)) {
        auto w = window_of(e->func_call);
        if (!w) return tl::unexpected(w.error());
        key.column = output_of(false, *w);
      } else if (contains_window(e)) {
        return tl::unexpected(refuse("ORDER BY an expression over window functions"));
      } else {
        std::optional<int> same;
        for (int o = 0; o < q_.visible_outputs && !same; ++o) {
          if (q_.outputs[static_cast<size_t>(o)].is_group &&
              same_expr(targets_[static_cast<size_t>(o)].val, e, one_table_)) {
            same = o;
          }
        }
        key.column = same ? *same : output_of(true, shard_column(e));
      }
      if (q_.distinct && key.column >= q_.visible_outputs) {
        return tl::unexpected(
            refuse("ORDER BY an expression that is not selected, with SELECT DISTINCT"));
      }
      q_.order.push_back(key);
    }
    if (window_calls_.empty()) return tl::unexpected(refuse("a WINDOW clause no function uses"));
    // The rows in the windows' order: PARTITION BY (any order groups them), then ORDER BY.
    for (Node* p : window_partition_exprs_) {
      if (contains_window(p) || contains_aggregate(p)) {
        return tl::unexpected(refuse("PARTITION BY an aggregate or a window function"));
      }
      q_.window_order.push_back({shard_column(p), false, false});
    }
    q_.window_partition_keys = static_cast<int>(q_.window_order.size());
    for (Node* o : window_order_items_) {
      auto item = sort_item(o);
      if (!item) return tl::unexpected(item.error());
      auto [e, key] = *item;
      if (contains_window(e) || contains_aggregate(e)) {
        return tl::unexpected(refuse("a window's ORDER BY an aggregate or a window function"));
      }
      key.column = shard_column(e);
      q_.window_order.push_back(key);
    }
    std::vector<Node*> targets, sort;
    for (size_t c = 0; c < shard_exprs_.size(); ++c) {
      targets.push_back(arena_.target(shard_exprs_[c], shard_names_[c]));
    }
    for (const MergeSortKey& k : q_.window_order) {
      sort.push_back(arena_.sort(arena_.integer(k.column + 1), k.descending, k.nulls_first));
    }
    set_targets(targets);
    set_sort(sort);
    s_->window_clause = nullptr;
    s_->n_window_clause = 0;
    s_->n_distinct_clause = 0;
    s_->distinct_clause = nullptr;
    set_shard_limit(false);
    return q_;
  }

  // --- aggregate mode ---

  Result<int> group_of(Node* e) {
    for (size_t g = 0; g < groups_.size(); ++g) {
      if (same_expr(groups_[g], e, one_table_)) return static_cast<int>(g);
    }
    return -1;
  }

  /// The aggregate `fc` (registered once), or an Error when pgrange cannot combine it.
  Result<int> aggregate_of(const PgQuery__FuncCall* fc) {
    for (size_t a = 0; a < calls_.size(); ++a) {
      if (same_tree(&calls_[a]->base, &fc->base)) return static_cast<int>(a);
    }
    std::string name = func_name(fc);
    if (fc->n_funcname == 2) {
      const char* schema = string_of(fc->funcname[0]);
      if (schema == nullptr || std::string_view(schema) != "pg_catalog") name = "?";
    } else if (fc->n_funcname != 1) {
      name = "?";
    }
    MergeAggregate agg;
    agg.name = name;
    if (name == "count") {
      agg.kind = MergeAggregate::Kind::kCount;
    } else if (name == "sum") {
      agg.kind = MergeAggregate::Kind::kSum;
    } else if (name == "min") {
      agg.kind = MergeAggregate::Kind::kMin;
    } else if (name == "max") {
      agg.kind = MergeAggregate::Kind::kMax;
    } else if (name == "avg") {
      agg.kind = MergeAggregate::Kind::kAvg;
    } else {
      return tl::unexpected(refuse("aggregate " + std::string(func_name(fc)) + "()",
                                   "pgrange combines count, sum, min, max and avg"));
    }
    if (fc->agg_within_group || fc->n_agg_order > 0 || fc->func_variadic) {
      return tl::unexpected(refuse("aggregate " + name + "() with ORDER BY or WITHIN GROUP"));
    }
    if (fc->agg_star != (fc->n_args == 0) || (!fc->agg_star && fc->n_args != 1) ||
        (fc->agg_star && agg.kind != MergeAggregate::Kind::kCount)) {
      return tl::unexpected(refuse("aggregate " + name + "() with these arguments"));
    }
    if (fc->agg_distinct) {
      const char* col = fc->n_args == 1 ? column_name(fc->args[0]) : nullptr;
      bool by_key = agg.kind == MergeAggregate::Kind::kCount && keys_.size() == 1 &&
                    col != nullptr && keys_[0] == col;
      bool harmless =
          agg.kind == MergeAggregate::Kind::kMin || agg.kind == MergeAggregate::Kind::kMax;
      if (!by_key && !harmless) {
        return tl::unexpected(refuse(name + "(DISTINCT …)",
                                     "a value may occur on several shards; count(DISTINCT "
                                     "key) of a one-column key is supported"));
      }
    }
    agg.column = -1;  // set when the shard query is built
    calls_.push_back(fc);
    q_.aggregates.push_back(agg);
    return static_cast<int>(calls_.size() - 1);
  }

  int output_of(bool is_group, int index) {
    for (size_t o = 0; o < q_.outputs.size(); ++o) {
      if (q_.outputs[o].is_group == is_group && q_.outputs[o].index == index) {
        return static_cast<int>(o);
      }
    }
    q_.outputs.push_back({is_group, index});
    return static_cast<int>(q_.outputs.size() - 1);
  }

  /// The output an expression of ORDER BY or HAVING stands for (adding a hidden one if needed).
  Result<int> output_for(Node* e, const char* clause) {
    if (is_node(e, PG_QUERY__NODE__NODE_FUNC_CALL) && is_aggregate_call(e->func_call)) {
      auto a = aggregate_of(e->func_call);
      if (!a) return tl::unexpected(a.error());
      return output_of(false, *a);
    }
    auto g = group_of(e);
    if (!g) return tl::unexpected(g.error());
    if (*g >= 0) return output_of(true, *g);
    for (int o = 0; o < q_.visible_outputs; ++o) {
      if (same_expr(targets_[static_cast<size_t>(o)].val, e, one_table_)) return o;
    }
    return tl::unexpected(refuse(std::string(clause) + " on an expression over aggregates",
                                 "pgrange combines plain aggregates and GROUP BY columns"));
  }

  Result<MergePredicate> predicate(Node* n) {
    MergePredicate p;
    if (is_node(n, PG_QUERY__NODE__NODE_BOOL_EXPR)) {
      const PgQuery__BoolExpr* b = n->bool_expr;
      p.kind = b->boolop == PG_QUERY__BOOL_EXPR_TYPE__AND_EXPR  ? MergePredicate::Kind::kAnd
               : b->boolop == PG_QUERY__BOOL_EXPR_TYPE__OR_EXPR ? MergePredicate::Kind::kOr
                                                                : MergePredicate::Kind::kNot;
      for (size_t i = 0; i < b->n_args; ++i) {
        auto c = predicate(b->args[i]);
        if (!c) return c;
        p.children.push_back(std::move(*c));
      }
      return p;
    }
    if (is_node(n, PG_QUERY__NODE__NODE_NULL_TEST)) {
      const PgQuery__NullTest* t = n->null_test;
      auto o = output_for(t->arg, "HAVING");
      if (!o) return tl::unexpected(o.error());
      p.kind = t->nulltesttype == PG_QUERY__NULL_TEST_TYPE__IS_NULL
                   ? MergePredicate::Kind::kIsNull
                   : MergePredicate::Kind::kIsNotNull;
      p.left = *o;
      return p;
    }
    if (is_node(n, PG_QUERY__NODE__NODE_A_EXPR) &&
        n->a_expr->kind == PG_QUERY__A__EXPR__KIND__AEXPR_OP && n->a_expr->n_name == 1) {
      const PgQuery__AExpr* e = n->a_expr;
      std::string op = string_of(e->name[0]) != nullptr ? string_of(e->name[0]) : "";
      if (op == "!=") op = "<>";
      static constexpr std::string_view kOps[] = {"=", "<>", "<", "<=", ">", ">="};
      if (std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps)) {
        auto constant = [](const Node* x) -> std::optional<std::optional<std::string>> {
          if (is_node(x, PG_QUERY__NODE__NODE_TYPE_CAST)) x = x->type_cast->arg;
          if (!is_node(x, PG_QUERY__NODE__NODE_A_CONST)) return std::nullopt;
          return constant_text(x->a_const);
        };
        Node* left = e->lexpr;
        Node* right = e->rexpr;
        if (constant(left) && !constant(right)) {
          std::swap(left, right);
          static const std::pair<std::string_view, std::string_view> kFlip[] = {
              {"<", ">"}, {"<=", ">="}, {">", "<"}, {">=", "<="}};
          for (const auto& [a, b] : kFlip) {
            if (op == a) {
              op = b;
              break;
            }
          }
        }
        auto l = output_for(left, "HAVING");
        if (!l) return tl::unexpected(l.error());
        p.kind = MergePredicate::Kind::kCompare;
        p.op = op;
        p.left = *l;
        if (auto c = constant(right)) {
          p.right_text = *c;
        } else {
          auto r = output_for(right, "HAVING");
          if (!r) return tl::unexpected(r.error());
          p.right_output = *r;
        }
        return p;
      }
    }
    return tl::unexpected(refuse("this HAVING condition",
                                 "pgrange evaluates AND/OR/NOT of comparisons of aggregates and "
                                 "GROUP BY columns with constants"));
  }

  Result<MergeQuery> aggregate() {
    q_.mode = MergeQuery::Mode::kAggregate;
    // Windows over groups the shards only begin: the groups exist once pgrange combined them.
    if (q_.window_partition) return tl::unexpected(refuse("window function"));
    if (star_) return tl::unexpected(refuse("* with aggregates"));
    for (size_t i = 0; i < s_->n_group_clause; ++i) {
      Node* g = s_->group_clause[i];
      if (is_node(g, PG_QUERY__NODE__NODE_GROUPING_SET)) {
        return tl::unexpected(refuse("GROUPING SETS, ROLLUP or CUBE"));
      }
      if (auto pos = read_integer(g)) {
        if (*pos < 1 || *pos > static_cast<int64_t>(targets_.size())) {
          return tl::unexpected(refuse("GROUP BY a position not in the select list"));
        }
        g = targets_[static_cast<size_t>(*pos - 1)].val;
      } else if (const char* name = bare_column(g)) {
        bool is_column = std::find(columns_.begin(), columns_.end(), name) != columns_.end();
        if (!is_column) {
          for (const Target& t : targets_) {
            if (t.alias != nullptr && std::string_view(t.alias) == name) {
              g = t.val;
              break;
            }
          }
        }
      }
      if (contains_aggregate(g)) return tl::unexpected(refuse("GROUP BY an aggregate"));
      auto same = group_of(g);
      if (*same < 0) groups_.push_back(g);
    }
    q_.group_columns = static_cast<int>(groups_.size());
    // The client's columns.
    for (const Target& t : targets_) {
      Node* v = t.val;
      if (is_node(v, PG_QUERY__NODE__NODE_FUNC_CALL) && is_aggregate_call(v->func_call)) {
        auto a = aggregate_of(v->func_call);
        if (!a) return tl::unexpected(a.error());
        q_.outputs.push_back({false, *a});
      } else if (int g = *group_of(v); g >= 0) {
        q_.outputs.push_back({true, g});
      } else if (contains_aggregate(v)) {
        return tl::unexpected(refuse("an expression over aggregates in the select list",
                                     "select the aggregates themselves"));
      } else {
        return tl::unexpected(
            refuse("a selected expression that is neither a GROUP BY column nor an aggregate"));
      }
      q_.output_names.push_back(t.alias != nullptr ? t.alias : "");
    }
    q_.visible_outputs = static_cast<int>(q_.outputs.size());
    if (s_->having_clause != nullptr) {
      auto h = predicate(s_->having_clause);
      if (!h) return tl::unexpected(h.error());
      q_.having = std::move(*h);
    }
    for (size_t i = 0; i < s_->n_sort_clause; ++i) {
      auto item = sort_item(s_->sort_clause[i]);
      if (!item) return tl::unexpected(item.error());
      auto [e, key] = *item;
      auto named = output_at_or_named(e);
      if (!named) return tl::unexpected(named.error());
      if (*named) {
        key.column = **named;
      } else {
        auto o = output_for(e, "ORDER BY");
        if (!o) return tl::unexpected(o.error());
        key.column = *o;
      }
      if (q_.distinct && key.column >= q_.visible_outputs) {
        return tl::unexpected(
            refuse("ORDER BY an expression that is not selected, with SELECT DISTINCT"));
      }
      q_.order.push_back(key);
    }
    // The shard query: the GROUP BY expressions, then the partial aggregates, grouped and
    // sorted by the former.
    std::vector<Node*> targets;
    for (size_t g = 0; g < groups_.size(); ++g) {
      const char* name = nullptr;
      for (size_t o = 0; o < targets_.size(); ++o) {
        if (q_.outputs[o].is_group && q_.outputs[o].index == static_cast<int>(g)) {
          name = targets_[o].alias;
          break;
        }
      }
      targets.push_back(arena_.target(groups_[g], name));
    }
    for (size_t a = 0; a < calls_.size(); ++a) {
      MergeAggregate& agg = q_.aggregates[a];
      agg.column = static_cast<int>(targets.size());
      const char* alias = nullptr;
      for (size_t o = 0; o < targets_.size(); ++o) {
        if (!q_.outputs[o].is_group && q_.outputs[o].index == static_cast<int>(a)) {
          alias = targets_[o].alias;
          break;
        }
      }
      Node* call = arena_.node(const_cast<PgQuery__FuncCall*>(calls_[a]));
      if (agg.kind == MergeAggregate::Kind::kAvg) {
        targets.push_back(arena_.target(arena_.call("sum", avg_argument(calls_[a])),
                                        alias != nullptr ? alias : "avg"));
        targets.push_back(arena_.target(arena_.call("count", calls_[a])));
      } else {
        targets.push_back(arena_.target(call, alias));
      }
    }
    set_targets(targets);
    std::vector<Node*> positions, sort;
    for (size_t g = 0; g < groups_.size(); ++g) {
      positions.push_back(arena_.integer(static_cast<int64_t>(g + 1)));
      sort.push_back(arena_.sort(arena_.integer(static_cast<int64_t>(g + 1)), false, false));
    }
    s_->group_clause = positions.empty() ? nullptr : arena_.nodes(positions);
    s_->n_group_clause = positions.size();
    set_sort(sort);
    s_->having_clause = nullptr;
    s_->n_distinct_clause = 0;
    s_->distinct_clause = nullptr;
    set_shard_limit(false);
    return q_;
  }

  void set_targets(const std::vector<Node*>& t) {
    s_->n_target_list = t.size();
    s_->target_list = arena_.nodes(t);
  }
  void set_sort(const std::vector<Node*>& t) {
    s_->n_sort_clause = t.size();
    s_->sort_clause = t.empty() ? nullptr : arena_.nodes(t);
  }

  PgQuery__SelectStmt* s_;
  std::span<const std::string> keys_;
  // window mode
  std::vector<Node*> shard_exprs_;        ///< the shard query's columns
  std::vector<const char*> shard_names_;  ///< their aliases (nullptr: PostgreSQL's name)
  std::vector<const PgQuery__FuncCall*> window_calls_;
  std::vector<Node*> window_partition_exprs_;
  std::vector<Node*> window_order_items_;  ///< SortBy nodes
  std::span<const std::string> columns_;
  bool one_table_ = true;
  bool windows_in_pgrange_ = false;
  Arena arena_;
  MergeQuery q_;
  Node* limit_node_ = nullptr;   ///< the client's LIMIT expression
  Node* offset_node_ = nullptr;  ///< the client's OFFSET expression
  std::vector<Target> targets_;
  bool star_ = false;
  std::vector<Node*> groups_;
  std::vector<const PgQuery__FuncCall*> calls_;
  bool unchanged_ = false;

  /// avg(x) as the shards sum it: of `x * 1`, which is x for the integer, numeric and float8
  /// types and x as float8 for float4 (PostgreSQL averages float4 values as float8; each
  /// shard's sum(float4) would round every step to float4). A constant or a parameter stays as
  /// it is (its type is the call's to decide).
  const PgQuery__FuncCall* avg_argument(const PgQuery__FuncCall* call) {
    if (call->n_args != 1 || is_node(call->args[0], PG_QUERY__NODE__NODE_A_CONST) ||
        is_node(call->args[0], PG_QUERY__NODE__NODE_PARAM_REF)) {
      return call;
    }
    PgQuery__FuncCall f = *call;
    f.args = arena_.nodes({arena_.times_one(call->args[0])});
    return arena_.make(f);
  }
};

/// The plan of the one SELECT of `pr` (the text `select_sql`).
Result<MergeQuery> plan_tree(PgQuery__ParseResult* pr, std::string_view select_sql,
                             std::span<const std::string> key_columns,
                             std::span<const std::string> table_columns, bool windows_in_pgrange) {
  PgQuery__SelectStmt* s = pr->stmts[0]->stmt->select_stmt;
  // The planner rewrites the statement in place with nodes it owns; the original fields are put
  // back before libpg_query's tree is freed.
  const PgQuery__SelectStmt saved = *s;
  Planner planner(s, key_columns, table_columns, windows_in_pgrange);
  Result<MergeQuery> q = planner.plan();
  if (q && planner.unchanged()) {
    q->shard_sql = std::string(select_sql);
    q->shard_sql_is_text = true;
  } else if (q) {
    auto text = deparse_tree(pr);
    if (!text) {
      *s = saved;
      return tl::unexpected(text.error());
    }
    q->shard_sql = std::move(*text);
  }
  *s = saved;
  return q;
}

}  // namespace

Result<MergeQuery> plan_merge(std::string_view select_sql, std::span<const std::string> key_columns,
                              std::span<const std::string> table_columns) {
  auto tree = parse_tree(select_sql);
  if (!tree) return tl::unexpected(tree.error());
  PgQuery__ParseResult* pr = tree->get();
  if (pr->n_stmts != 1 || pr->stmts[0]->stmt == nullptr ||
      pr->stmts[0]->stmt->node_case != PG_QUERY__NODE__NODE_SELECT_STMT) {
    return tl::unexpected(refuse("this statement"));
  }
  PgQuery__SelectStmt* s = pr->stmts[0]->stmt->select_stmt;
  if (counts_rows_of_one_table(s)) {
    // SELECT count(…) FROM (a query keeping or dropping each row of the table): every shard
    // counts its own rows, the answer is their sum.
    MergeQuery q;
    q.mode = MergeQuery::Mode::kAggregate;
    q.shard_sql = std::string(select_sql);
    q.shard_sql_is_text = true;
    q.aggregates.push_back({MergeAggregate::Kind::kCount, 0, "count"});
    q.outputs.push_back({false, 0});
    q.visible_outputs = 1;
    q.output_names.emplace_back();
    return q;
  }
  Result<MergeQuery> q = plan_tree(pr, select_sql, key_columns, table_columns, false);
  if (q && q->window_partition) {
    // Where the partitions span shards, pgrange computes the windows: planned on a tree of its
    // own (planning rewrites the tree).
    auto again = parse_tree(select_sql);
    if (!again) return tl::unexpected(again.error());
    q->windows_in_pgrange = std::make_shared<const Result<MergeQuery>>(
        plan_tree(again->get(), select_sql, key_columns, table_columns, true));
  }
  return q;
}

bool orders_bytewise(std::string_view collation) {
  std::string l;
  for (char ch : collation) {
    l.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
  }
  return l == "c" || l == "posix" || l == "ucs_basic" || l == "c.utf8" || l == "c.utf-8";
}

std::vector<std::string> describe_merge(const MergeQuery& q) {
  std::vector<std::string> out;
  out.push_back("shard query: " + q.shard_sql);
  auto keys = [](const std::vector<MergeSortKey>& order, const char* what) {
    std::string s;
    for (const MergeSortKey& k : order) {
      if (!s.empty()) s += ", ";
      s += k.column < 0 ? "hidden column " + std::to_string(-k.column)
                        : std::string(what) + " " + std::to_string(k.column + 1);
      s += k.descending ? " DESC" : "";
      if (k.nulls_first != k.descending) s += k.nulls_first ? " NULLS FIRST" : " NULLS LAST";
    }
    return s;
  };
  auto cut = [&]() {
    if (q.offset_param > 0 && q.offset == 0) {
      out.push_back("OFFSET $" + std::to_string(q.offset_param) + " after the merge");
    }
    if (q.offset > 0) out.push_back("OFFSET " + std::to_string(q.offset) + " after the merge");
    if (q.limit_param > 0 && !q.limit) {
      out.push_back("LIMIT $" + std::to_string(q.limit_param) + " after the merge" +
                    (q.limit_pushed ? " (the shards add up LIMIT and OFFSET themselves)" : ""));
    }
    if (q.limit) {
      std::string line = "LIMIT " + std::to_string(*q.limit) + " after the merge";
      if (q.limit_pushed) {
        int64_t pushed = *q.limit > INT64_MAX - q.offset ? INT64_MAX : *q.limit + q.offset;
        line +=
            " (LIMIT " + std::to_string(pushed) + " on each shard; shards stop when it is reached)";
      }
      out.push_back(line);
    }
  };
  if (q.mode == MergeQuery::Mode::kOrdered) {
    if (q.order.empty()) {
      out.push_back("rows passed on shard after shard, as they arrive");
    } else {
      out.push_back("streaming k-way merge on " + keys(q.order, "column") +
                    " (one row per shard held)");
    }
    if (q.hidden > 0) {
      out.push_back(std::to_string(q.hidden) +
                    " ORDER BY column(s) added to the shard query, removed from the result");
    }
    if (q.window_partition) {
      out.push_back(
          "window functions computed on each shard: every partition's rows are on one "
          "shard");
    }
    if (q.distinct) out.push_back("DISTINCT: equal neighbours in the merge sent once");
    cut();
    return out;
  }
  if (q.mode == MergeQuery::Mode::kWindow) {
    std::vector<MergeSortKey> partition(q.window_order.begin(),
                                        q.window_order.begin() + q.window_partition_keys);
    std::vector<MergeSortKey> order(q.window_order.begin() + q.window_partition_keys,
                                    q.window_order.end());
    std::string calls;
    for (const MergeWindowCall& w : q.windows) calls += (calls.empty() ? "" : ", ") + w.name;
    out.push_back(
        "streaming k-way merge on " +
        (q.window_order.empty() ? std::string("nothing") : keys(q.window_order, "column")) +
        " (the windows' " + (partition.empty() ? "" : "PARTITION BY") +
        (!partition.empty() && !order.empty() ? " and " : "") + (order.empty() ? "" : "ORDER BY") +
        (q.window_order.empty() ? "order" : "") + ")");
    out.push_back("window functions computed in pgrange over the merged rows: " + calls);
    if (q.distinct) out.push_back("DISTINCT applied to the computed rows");
    if (!q.order.empty()) {
      out.push_back("ORDER BY " + keys(q.order, "output") + " of the computed rows");
    }
    cut();
    return out;
  }
  std::string aggs;
  for (const MergeAggregate& a : q.aggregates) {
    if (!aggs.empty()) aggs += ", ";
    aggs += a.name + (a.kind == MergeAggregate::Kind::kAvg ? " (as sum and count)" : "");
  }
  if (!aggs.empty()) {
    out.push_back("aggregates combined from the shards' partial results: " + aggs);
  }
  if (q.group_columns > 0) {
    out.push_back("groups of " + std::to_string(q.group_columns) +
                  " GROUP BY column(s), sorted on each shard and combined in a streaming merge");
  }
  if (q.having) out.push_back("HAVING applied to the combined groups");
  if (q.distinct) out.push_back("DISTINCT applied to the combined rows");
  if (!q.order.empty())
    out.push_back("ORDER BY " + keys(q.order, "output") + " of the combined rows");
  cut();
  return out;
}

MergeQuery relayed(std::string shard_sql) {
  MergeQuery q;
  q.shard_sql = std::move(shard_sql);
  q.shard_sql_is_text = true;
  return q;
}

Result<MergeQuery> bind_bounds(MergeQuery query,
                               const std::function<Result<std::optional<int64_t>>(int)>& value) {
  if (query.limit_param > 0) {
    auto v = value(query.limit_param);
    if (!v) return tl::unexpected(v.error());
    if (*v && **v < 0) return tl::unexpected(Error::make("2201W", "LIMIT must not be negative"));
    query.limit = *v;
  }
  if (query.offset_param > 0) {
    auto v = value(query.offset_param);
    if (!v) return tl::unexpected(v.error());
    if (*v && **v < 0) return tl::unexpected(Error::make("2201X", "OFFSET must not be negative"));
    query.offset = v->value_or(0);
  }
  return query;
}

}  // namespace pgrange::sql
