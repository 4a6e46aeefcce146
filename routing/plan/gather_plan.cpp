#include "routing/plan/gather_plan.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <functional>

#include "routing/keys/key_type.hpp"
#include "routing/plan/equalities.hpp"
#include "sql/quoting.hpp"
#include "sql/relation_uses.hpp"
#include "sql/summary_query.hpp"
#include "sql/where_condition.hpp"

namespace pgrange::routing {
namespace {

/// The smallest and largest values of an integer type by its name; nullopt for another type.
std::optional<std::pair<int64_t, int64_t>> integer_bounds(std::string_view type) {
  if (type == "int2") return std::make_pair(int64_t{INT16_MIN}, int64_t{INT16_MAX});
  if (type == "int4") return std::make_pair(int64_t{INT32_MIN}, int64_t{INT32_MAX});
  if (type == "int8") return std::make_pair(int64_t{INT64_MIN}, int64_t{INT64_MAX});
  return std::nullopt;
}

/// Lookup values of type `type` (their text) written as untyped literals of a key of type
/// `key_type` that compare with the key's values as the join compares them: values of the
/// key's own type; integers of another width (PostgreSQL compares int2, int4 and int8 exactly
/// across widths), those out of the key's range left out (they equal no key); varchar values
/// for a text key and text ones for a varchar key (both compared as text). nullopt: not such
/// a pair of types.
std::optional<std::vector<std::string>> key_literals(const std::vector<std::string>& values,
                                                     std::string_view type,
                                                     std::string_view key_type) {
  if (key_type.empty()) return std::nullopt;
  bool texts =
      (type == "text" || type == "varchar") && (key_type == "text" || key_type == "varchar");
  if (type == key_type || texts) return values;
  auto key = integer_bounds(key_type);
  if (!key || !integer_bounds(type)) return std::nullopt;
  std::vector<std::string> fitting;
  for (const std::string& v : values) {
    int64_t n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || end != v.data() + v.size()) return std::nullopt;  // not expected
    if (n >= key->first && n <= key->second) fitting.push_back(v);
  }
  return fitting;
}

bool ident_char(char c) {
  auto u = static_cast<unsigned char>(c);
  return std::isalnum(u) != 0 || c == '_' || c == '$' || u >= 0x80;
}

/// The end of the (possibly qualified, possibly quoted) relation name starting at `pos`.
size_t name_end(std::string_view text, size_t pos) {
  size_t end = pos;
  for (;;) {
    size_t i = end;
    if (i < text.size() && text[i] == '"') {
      ++i;
      while (i < text.size()) {
        if (text[i] == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') {
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        ++i;
      }
    } else {
      while (i < text.size() && ident_char(text[i])) ++i;
    }
    if (i == end) return end;
    end = i;
    size_t j = end;
    while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j])) != 0) ++j;
    if (j >= text.size() || text[j] != '.') return end;
    ++j;
    while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j])) != 0) ++j;
    end = j;
  }
}

/// The text of parameter n when the Bind gave it as text (nullopt: unknown, or binary).
std::optional<std::optional<std::string>> param_text(const BindParams* params, int n) {
  if (params == nullptr || n < 1 || static_cast<size_t>(n) > params->values.size()) {
    return std::nullopt;
  }
  const auto& f = params->formats;
  int16_t format = f.empty()                            ? 0
                   : f.size() == 1                      ? f[0]
                   : static_cast<size_t>(n) <= f.size() ? f[static_cast<size_t>(n - 1)]
                                                        : 0;
  if (format != 0) return std::nullopt;
  const auto& v = params->values[static_cast<size_t>(n - 1)];
  if (!v) return std::optional<std::string>{};
  return std::optional<std::string>(std::string(*v));
}

/// Writes conditions of one relation as SQL on `qualifier`, for the columns it knows.
class ConditionWriter {
 public:
  ConditionWriter(std::string qualifier, const TableDescriptor& t, const BindParams* params)
      : q_(std::move(qualifier)), t_(t), params_(params) {}

  std::optional<std::string> write(const sql::Condition& c) const {
    using K = sql::Condition::Kind;
    switch (c.kind) {
      case K::kCompare: {
        auto col = column(c.column);
        auto v = c.values.empty() ? std::nullopt : value(c.values[0]);
        if (!col || !v) return std::nullopt;
        return *col + " " + c.op + " " + *v;
      }
      case K::kIn: {
        auto col = column(c.column);
        if (!col) return std::nullopt;
        if (c.values.empty()) return std::string("false");
        std::string list;
        for (const sql::ValueRef& r : c.values) {
          auto v = value(r);
          if (!v) return std::nullopt;
          list += (list.empty() ? "" : ", ") + *v;
        }
        return *col + " IN (" + list + ")";
      }
      case K::kIsNull: {
        auto col = column(c.column);
        if (!col) return std::nullopt;
        return *col + " IS NULL";
      }
      case K::kLike: {
        auto col = column(c.column);
        auto v = c.values.empty() ? std::nullopt : value(c.values[0]);
        if (!col || !v) return std::nullopt;
        return *col + " LIKE " + *v;
      }
      case K::kAnd: {
        // A part pgrange cannot write is left to the statement: the rows read are more.
        std::string out;
        for (const sql::Condition& child : c.children) {
          if (auto w = write(child)) out += (out.empty() ? "" : " AND ") + *w;
        }
        if (out.empty()) return std::nullopt;
        return out;
      }
      case K::kOr: {
        std::string out;
        for (const sql::Condition& child : c.children) {
          auto w = write(child);
          if (!w) return std::nullopt;  // a branch left out would lose its rows
          out += (out.empty() ? "(" : " OR ") + ("(" + *w + ")");
        }
        if (out.empty()) return std::nullopt;
        return out + ")";
      }
      default:
        return std::nullopt;
    }
  }

  /// The column as SQL on the qualifier, when the table has it.
  std::optional<std::string> column(const std::string& name) const {
    bool known = std::find(t_.columns.begin(), t_.columns.end(), name) != t_.columns.end() ||
                 std::any_of(t_.key.begin(), t_.key.end(),
                             [&](const KeyColumnDef& k) { return k.name == name; });
    if (!known) return std::nullopt;
    return q_ + "." + sql::quote_ident(name);
  }

 private:
  std::optional<std::string> value(const sql::ValueRef& v) const {
    if (v.kind == sql::ValueRef::Kind::kParam) {
      // An untyped literal, as an untyped $n: its type is the column's.
      auto text = param_text(params_, v.param);
      if (!text) return std::nullopt;
      return *text ? sql::quote_literal(**text) : std::string("NULL");
    }
    return sql::value_sql(v);
  }

  std::string q_;
  const TableDescriptor& t_;
  const BindParams* params_;
};

std::string dollar_quoted(std::string_view body) {
  std::string tag = "$pgr$";
  for (int n = 1; body.find(tag) != std::string_view::npos; ++n) {
    tag = "$pgr" + std::to_string(n) + "$";
  }
  std::string out;
  out.reserve(body.size() + 2 * tag.size());
  out += tag;
  out += body;
  out += tag;
  return out;
}

std::string array_text(const std::vector<std::string>& values) {
  size_t size = 2;
  for (const std::string& v : values) size += v.size() + 3;
  std::string body;
  body.reserve(size);
  body.push_back('{');
  bool first = true;
  for (const std::string& v : values) {
    if (!first) body.push_back(',');
    first = false;
    body.push_back('"');
    for (char c : v) {
      if (c == '"' || c == '\\') body.push_back('\\');
      body.push_back(c);
    }
    body.push_back('"');
  }
  body.push_back('}');
  return body;
}

/// What stands for input i's rows in a broadcast's shard query until they are read (a string
/// constant, which the merge's rewriting of the statement keeps as it is).
std::string rows_marker(size_t i) {
  return "pgrange rows of input " + std::to_string(i);
}

/// The plan's statement with each input not `kept` replaced by a derived table of the rows
/// `literal(i)` gives (an array of its row type), or for an input marked in `summarized`, its
/// Summary's query replaced by the query `literal(i)` gives.
std::string with_rows(const GatherPlan& plan, const std::vector<bool>& kept,
                      const std::function<std::string(size_t)>& literal,
                      const std::vector<bool>& summarized = {},
                      const std::vector<std::string>& tables = {}) {
  struct Place {
    size_t begin = 0;
    size_t end = 0;
    size_t input = 0;
    bool summary = false;
  };
  std::vector<Place> places;
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    const GatherInput& in = plan.inputs[i];
    if (i < summarized.size() && summarized[i] && in.summary) {
      places.push_back({in.summary->begin, in.summary->end, i, true});
    } else if (i >= kept.size() || !kept[i]) {
      places.push_back({in.name_begin, in.name_end, i, false});
    }
  }
  std::sort(places.begin(), places.end(),
            [](const Place& a, const Place& b) { return a.begin < b.begin; });
  std::string out;
  size_t at = 0;
  for (const Place& p : places) {
    const GatherInput& in = plan.inputs[p.input];
    if (p.begin < at) continue;  // never: one input per mention
    out.append(plan.text, at, p.begin - at);
    if (p.summary) {
      out += literal(p.input);
    } else {
      if (p.input < tables.size() && !tables[p.input].empty()) {
        out += "(SELECT (r).* FROM " + tables[p.input] + ")";
      } else {
        out += "(SELECT * FROM unnest(" + literal(p.input) + "))";
      }
      if (!in.aliased) out += " AS " + sql::quote_ident(in.name);
    }
    at = p.end;
  }
  out.append(plan.text, at, std::string::npos);
  return out;
}

/// The broadcast of plan's last input (GatherPlan::broadcast), when the statement allows one.
std::optional<sql::MergeQuery> plan_broadcast(const ClusterView& view, const sql::StatementInfo& s,
                                              const GatherPlan& plan, const BindParams* params,
                                              const MergePlanner& merges) {
  bool summaries = std::any_of(plan.inputs.begin(), plan.inputs.end(),
                               [](const GatherInput& in) { return in.summary.has_value(); });
  if (s.kind != sql::StatementKind::kSelect || !s.plain_from || s.select_into || summaries ||
      plan.inputs.size() < 2 || plan.text.find("pgrange rows of input") != std::string::npos) {
    return std::nullopt;
  }
  const GatherInput& last = plan.inputs.back();
  const sql::RelationUse& u = s.relations[last.use];
  const TableDescriptor* t = view.find_table(u.table.schema, u.table.name);
  if (!u.preserved || !u.top_from || t == nullptr || t->reference) return std::nullopt;
  // Every other mention of its table (a self-join, a subquery reading it) is an input, replaced
  // by all the rows read for it on each shard: only this one is each shard's own part.
  TableDescriptor rows;  // what the merge is planned with: every relation's columns, no key
  rows.schema = t->schema;
  rows.name = t->name;
  for (size_t i = 0; i < s.relations.size(); ++i) {
    const sql::RelationUse& other = s.relations[i];
    const TableDescriptor* o = view.find_table(other.table.schema, other.table.name);
    if (o == nullptr) return std::nullopt;
    bool replaced = std::any_of(plan.inputs.begin(), plan.inputs.end() - 1, [&](const auto& in) {
      return s.relations[in.use].location == other.location;
    });
    if (i != last.use && o->table_id == t->table_id && !replaced) return std::nullopt;
    for (const std::string& c : o->columns) {
      if (std::find(rows.columns.begin(), rows.columns.end(), c) == rows.columns.end()) {
        rows.columns.push_back(c);
      }
    }
  }
  std::vector<bool> kept(plan.inputs.size(), false);
  kept.back() = true;
  std::string marked = with_rows(plan, kept, [&](size_t i) {
    return "CAST('" + rows_marker(i) + "' AS " + plan.inputs[i].relation + "[])";
  });
  auto merge = merges ? merges(marked, rows) : sql::plan_merge(marked, {}, rows.columns);
  if (!merge) return std::nullopt;  // what the merge cannot combine runs on one shard
  // Windows over the last table's parts: a partition may have rows on several shards.
  if (merge->window_partition) return std::nullopt;
  if (merge->limit_param > 0 || merge->offset_param > 0) {
    if (params == nullptr) return std::nullopt;
    auto bound = sql::bind_bounds(*merge, [&](int n) { return params->bigint(n); });
    if (!bound) return std::nullopt;
    merge = std::move(*bound);
  }
  // Every marker once in its shard query, or no broadcast.
  for (size_t i = 0; i + 1 < plan.inputs.size(); ++i) {
    const std::string quoted = "'" + rows_marker(i) + "'";
    size_t p = merge->shard_sql.find(quoted);
    if (p == std::string::npos || merge->shard_sql.find(quoted, p + 1) != std::string::npos) {
      return std::nullopt;
    }
  }
  return std::move(*merge);
}

}  // namespace

bool gatherable(const sql::StatementInfo& s, const Route& route) {
  return s.kind == sql::StatementKind::kSelect && !s.select_into && !s.relations.empty() &&
         route.refusal && route.refusal->sqlstate == sqlstate::kFeatureNotSupported &&
         !route.several_statements && !route.distributed_write;
}

bool gatherable_write(const sql::StatementInfo& s, const Route& route) {
  bool values = s.kind == sql::StatementKind::kInsert && s.insert_values;
  if (s.kind != sql::StatementKind::kUpdate && s.kind != sql::StatementKind::kDelete && !values) {
    return false;
  }
  if (!route.refusal || route.refusal->sqlstate != sqlstate::kFeatureNotSupported ||
      route.several_statements || s.relations.size() < 2) {
    return false;
  }
  size_t targets = 0;
  for (const sql::RelationUse& u : s.relations) {
    if (u.writes && !u.target) return false;  // a data-modifying WITH
    targets += u.target ? 1 : 0;
  }
  return targets == 1;
}

Result<GatherPlan> plan_gather(const ClusterView& view, const sql::StatementInfo& statement,
                               std::string_view whole, const BindParams* params,
                               const TableSizes* sizes, const MergePlanner& merges) {
  // Conditions its join equalities imply are pushed down too (read in parallel, not looked up).
  auto implied = with_implied_conditions(view, statement);
  const sql::StatementInfo& s = implied ? *implied : statement;
  GatherPlan plan;
  if (s.end > whole.size() || s.begin > s.end) {
    return tl::unexpected(not_supported("this statement over several shards"));
  }
  plan.text = std::string(whole.substr(s.begin, s.end - s.begin));
  if (s.locks_rows) {
    return tl::unexpected(not_supported(
        "FOR UPDATE or FOR SHARE in a query over tables spread across several shards is not "
        "supported yet",
        "lock the rows of each table with a statement of its own"));
  }
  for (const sql::TableRef& f : s.functions) {
    bool sequence =
        (f.schema.empty() || f.schema == "pg_catalog") &&
        (f.name == "nextval" || f.name == "currval" || f.name == "setval" || f.name == "lastval");
    bool reads = false;
    for (const ReaderDescriptor* r : view.find_functions(f.schema, f.name)) {
      reads = reads || !r->reads.empty() || !r->calls.empty();
    }
    if (sequence || reads) {
      return tl::unexpected(not_supported("function " + f.name +
                                          "() in a query over tables spread across several "
                                          "shards is not supported yet"));
    }
  }
  // One input per mention of a table.
  std::vector<GatherInput> found;
  std::vector<const TableDescriptor*> tables;
  for (size_t i = 0; i < s.relations.size(); ++i) {
    const sql::RelationUse& u = s.relations[i];
    if (u.target) continue;  // a write's own table: the write runs where its rows are
    // The same mention met twice (UPDATE … SET (a, b) = (SELECT …) names its subquery once
    // per column): one input.
    if (std::any_of(found.begin(), found.end(), [&](const GatherInput& f) {
          return s.relations[f.use].location == u.location;
        })) {
      continue;
    }
    const TableDescriptor* t = view.find_table(u.table.schema, u.table.name);
    std::string name = u.table.schema.empty() ? u.table.name : u.table.schema + "." + u.table.name;
    if (t == nullptr) {
      return tl::unexpected(
          not_supported("relation \"" + name + "\" (" + u.construct +
                            "), which is no table pgrange manages, in a query over tables spread "
                            "across several shards is not supported",
                        "run the statement so that its tables' rows are on one shard"));
    }
    if (u.writes) {
      return tl::unexpected(not_supported(
          "a data-modifying WITH over tables spread across several shards is not supported yet"));
    }
    if (!u.from_item || u.location < 0 || static_cast<size_t>(u.location) < s.begin) {
      return tl::unexpected(not_supported("TABLESAMPLE of table \"" + name +
                                          "\" in a query over tables spread across several "
                                          "shards is not supported yet"));
    }
    if (u.only) {
      return tl::unexpected(not_supported("FROM ONLY \"" + name +
                                          "\" in a query over tables spread across several "
                                          "shards is not supported yet"));
    }
    GatherInput in;
    in.use = i;
    in.table = t->name;
    in.name = u.table.name;
    in.schema = sql::quote_ident(t->schema);
    in.relation = in.schema + "." + sql::quote_ident(t->name);
    in.aliased = u.aliased;
    in.name_begin = static_cast<size_t>(u.location) - s.begin;
    in.name_end = name_end(plan.text, in.name_begin);
    if (in.name_end <= in.name_begin) {
      return tl::unexpected(
          not_supported("table \"" + name + "\" written this way in a query over several shards"));
    }
    // The alias (or the name) the statement's conditions qualify its columns with. An alias is
    // found after the name: FROM t x, FROM t AS x.
    if (u.aliased) {
      std::string_view rest = std::string_view(plan.text).substr(in.name_end);
      size_t p = 0;
      while (p < rest.size() && std::isspace(static_cast<unsigned char>(rest[p])) != 0) ++p;
      if (rest.size() >= p + 2 && (rest[p] == 'a' || rest[p] == 'A') &&
          (rest[p + 1] == 's' || rest[p + 1] == 'S') &&
          (rest.size() == p + 2 || !ident_char(rest[p + 2]))) {
        p += 2;
        while (p < rest.size() && std::isspace(static_cast<unsigned char>(rest[p])) != 0) ++p;
      }
      size_t e = name_end(rest, p);
      in.qualifier = std::string(rest.substr(p, e - p));
      if (in.qualifier.empty() || in.qualifier.find('.') != std::string::npos) {
        return tl::unexpected(
            not_supported("an alias written this way in a query over several "
                          "shards is not supported"));
      }
    } else {
      in.qualifier = sql::quote_ident(u.table.name);
    }
    ConditionWriter writer(in.qualifier, *t, params);
    if (u.where) {
      if (auto f = writer.write(*u.where)) {
        in.filter = *f;
        in.reasons.push_back("its conditions pushed down: " + in.filter);
      }
    }
    if (in.filter.empty()) in.reasons.push_back("no condition on it that pgrange can push down");
    found.push_back(std::move(in));
    tables.push_back(t);
  }

  // Queries of one table that answer fewer rows than it has (a CTE's body, a derived table with
  // GROUP BY, …): answered over the table's shards first where a merge computes them, as it
  // would as statements of their own, so that only their rows are read.
  if (s.kind == sql::StatementKind::kSelect && !s.select_into) {
    for (const sql::SummaryQuery& q : sql::summary_queries(plan.text)) {
      for (size_t k = 0; k < found.size(); ++k) {
        const sql::RelationUse& u = s.relations[found[k].use];
        if (u.location < 0 ||
            static_cast<size_t>(u.location) - s.begin != static_cast<size_t>(q.table_location) ||
            tables[k]->reference) {
          continue;
        }
        std::string body = plan.text.substr(q.begin, q.end - q.begin);
        std::vector<std::string> keys;
        for (const auto& key : row_key_columns(*tables[k])) keys.push_back(key.name);
        auto merge =
            merges ? merges(body, *tables[k]) : sql::plan_merge(body, keys, tables[k]->columns);
        if (!merge || merge->window_partition || merge->limit_param > 0 ||
            merge->offset_param > 0) {
          continue;
        }
        bool smaller =
            merge->mode == sql::MergeQuery::Mode::kAggregate ||
            (merge->mode == sql::MergeQuery::Mode::kOrdered && (merge->limit || merge->distinct));
        if (!smaller) continue;
        found[k].summary = GatherInput::Summary{q.begin, q.end, std::move(*merge), q.parameters};
      }
    }
  }

  // Whether input k's own conditions give its first key column by = or IN.
  auto keyed = [&](size_t k) {
    const auto& where = s.relations[found[k].use].where;
    if (!where || found[k].filter.empty() || tables[k]->hash_buckets != 0) return false;
    auto rk = row_key_columns(*tables[k]);
    if (rk.empty()) return false;
    std::vector<const sql::Condition*> parts;
    sql::conjuncts(*where, parts);
    return std::any_of(parts.begin(), parts.end(), [&](const sql::Condition* c) {
      bool gives = (c->kind == sql::Condition::Kind::kCompare && c->op == "=") ||
                   c->kind == sql::Condition::Kind::kIn;
      return gives && c->column == rk.front().name;
    });
  };
  // Whether input k's own conditions give every column of its key by = (one row at most).
  auto one_row = [&](size_t k) {
    const auto& where = s.relations[found[k].use].where;
    if (!where || found[k].filter.empty() || tables[k]->hash_buckets != 0) return false;
    auto rk = row_key_columns(*tables[k]);
    if (rk.empty()) return false;
    std::vector<const sql::Condition*> parts;
    sql::conjuncts(*where, parts);
    return std::all_of(rk.begin(), rk.end(), [&](const auto& key) {
      return std::any_of(parts.begin(), parts.end(), [&](const sql::Condition* c) {
        return c->kind == sql::Condition::Kind::kCompare && c->op == "=" && c->column == key.name;
      });
    });
  };
  // What input k's own conditions leave of it, guessed as PostgreSQL guesses without
  // statistics (its DEFAULT_EQ_SEL, DEFAULT_RANGE_INEQ_SEL, DEFAULT_INEQ_SEL): = or IN 0.005,
  // a range of the first key column 0.005, any other condition a third; the most selective
  // conjunct counts.
  auto selectivity = [&](size_t k) {
    const auto& where = s.relations[found[k].use].where;
    if (!where || found[k].filter.empty()) return 1.0;
    auto rk = row_key_columns(*tables[k]);
    std::vector<const sql::Condition*> parts;
    sql::conjuncts(*where, parts);
    double least = 1.0 / 3;
    for (const sql::Condition* c : parts) {
      bool equal = (c->kind == sql::Condition::Kind::kCompare && c->op == "=") ||
                   c->kind == sql::Condition::Kind::kIn;
      bool on_key =
          !rk.empty() && c->kind == sql::Condition::Kind::kCompare && c->column == rk.front().name;
      if (equal || on_key) least = 0.005;
    }
    return least;
  };
  // With the shards' estimates: the largest table a broadcast join can leave where it is, read
  // last (so not read) when it outweighs what the others would bring.
  size_t deferred = SIZE_MAX;                    // the found index, if any
  std::vector<double> weight(found.size(), -1);  // estimated bytes read, -1 unknown
  if (sizes != nullptr) {
    for (size_t k = 0; k < found.size(); ++k) {
      const TableSize* size = sizes->find(tables[k]->schema, tables[k]->name);
      if (size == nullptr) continue;
      weight[k] = keyed(k) ? 0.0 : static_cast<double>(size->bytes) * selectivity(k);
      found[k].reasons.push_back("estimated size: " + describe_size(*size) +
                                 " (the shards' pg_class)");
    }
    bool known = std::none_of(weight.begin(), weight.end(), [](double w) { return w < 0; });
    bool broadcastable = s.kind == sql::StatementKind::kSelect && s.plain_from && !s.select_into;
    for (size_t k = 0; k < found.size() && known && broadcastable; ++k) {
      const sql::RelationUse& u = s.relations[found[k].use];
      if (!u.preserved || !u.top_from || tables[k]->reference || keyed(k)) continue;
      if (deferred == SIZE_MAX || weight[k] > weight[deferred]) deferred = k;
    }
    if (deferred != SIZE_MAX) {
      double others = 0;
      for (size_t k = 0; k < found.size(); ++k) others += k == deferred ? 0 : weight[k];
      if (!(weight[deferred] > others)) deferred = SIZE_MAX;
    }
  }

  // The order of reading: the inputs narrowed by their own conditions first, then the ones a
  // lookup can narrow with what was read before, then the others.
  std::vector<bool> placed(found.size(), false);
  std::vector<size_t> order;
  std::vector<size_t> input_of(found.size(), SIZE_MAX);  // found index → plan input
  auto place = [&](size_t k) {
    placed[k] = true;
    input_of[k] = order.size();
    order.push_back(k);
  };
  for (size_t k = 0; k < found.size(); ++k) {
    if (found[k].summary) place(k);  // answered first, on their own
  }
  for (size_t k = 0; k < found.size(); ++k) {
    if (!found[k].filter.empty() && k != deferred && !placed[k]) place(k);
  }
  auto lookup_for =
      [&](size_t k) -> std::optional<std::pair<size_t, const sql::RelationUse::Equality*>> {
    const sql::RelationUse& u = s.relations[found[k].use];
    std::optional<std::pair<size_t, const sql::RelationUse::Equality*>> best;
    auto rk = row_key_columns(*tables[k]);
    for (const sql::RelationUse::Equality& e : u.equalities) {
      for (size_t j = 0; j < found.size(); ++j) {
        if (!placed[j] || s.relations[found[j].use].location != e.other) continue;
        ConditionWriter mine(found[k].qualifier, *tables[k], nullptr);
        ConditionWriter theirs(found[j].qualifier, *tables[j], nullptr);
        if (!mine.column(e.column) || !theirs.column(e.other_column)) continue;
        bool keyed = !rk.empty() && rk.front().name == e.column;
        if (!best || keyed) best = std::make_pair(j, &e);
        if (keyed) return best;
      }
    }
    return best;
  };
  while (order.size() + (deferred != SIZE_MAX ? 1 : 0) < found.size()) {
    bool progress = false;
    for (size_t k = 0; k < found.size(); ++k) {
      if (placed[k] || k == deferred || !lookup_for(k)) continue;
      place(k);
      progress = true;
    }
    if (progress) continue;
    for (size_t k = 0; k < found.size(); ++k) {
      if (!placed[k] && k != deferred) {
        place(k);
        break;
      }
    }
  }
  if (deferred != SIZE_MAX) place(deferred);
  // Lookups, with the columns their sources must provide.
  for (size_t k : order) {
    GatherInput in = found[k];
    placed.assign(found.size(), false);
    for (size_t j = 0; j < found.size(); ++j) placed[j] = input_of[j] < input_of[k];
    // A table whose own (or implied) conditions give its first key column by = or IN is read
    // by them, at once with the others: a lookup would only make it wait.
    if (auto l = keyed(k) || in.summary ? std::nullopt : lookup_for(k)) {
      auto [j, e] = *l;
      GatherInput& source = plan.inputs[input_of[j]];
      auto it = std::find(source.provides.begin(), source.provides.end(), e->other_column);
      size_t column = static_cast<size_t>(it - source.provides.begin());
      if (it == source.provides.end()) source.provides.push_back(e->other_column);
      GatherInput::Lookup lookup;
      lookup.source = input_of[j];
      lookup.source_column = column;
      lookup.column = e->column;
      auto rk = row_key_columns(*tables[k]);
      if (!rk.empty() && rk.front().name == e->column && tables[k]->hash_buckets == 0) {
        lookup.key_type = std::string(key_type_name(rk.front().column.type));
      }
      in.reasons.push_back("lookup: only its rows whose " + e->column + " is a " + e->other_column +
                           " read from " + source.table);
      in.lookup = std::move(lookup);
    }
    plan.inputs.push_back(std::move(in));
  }
  // A reference table no lookup reads first stays in the statement: whichever shard runs it
  // holds all its rows, so reading them into pgrange would only cost a round trip.
  std::vector<size_t> new_index(plan.inputs.size(), SIZE_MAX);
  std::vector<GatherInput> kept;
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    const GatherInput& in = plan.inputs[i];
    const TableDescriptor* t =
        view.find_table(s.relations[in.use].table.schema, s.relations[in.use].table.name);
    if (t != nullptr && t->reference && in.provides.empty()) {
      plan.in_place.push_back(in.table);
      continue;
    }
    new_index[i] = kept.size();
    kept.push_back(in);
  }
  for (GatherInput& in : kept) {
    if (in.lookup) in.lookup->source = new_index[in.lookup->source];
  }
  // Columns read for a lookup of a table left in place are not read.
  for (size_t i = 0; i < kept.size(); ++i) {
    std::vector<std::string> provides;
    for (size_t c = 0; c < kept[i].provides.size(); ++c) {
      bool used = false;
      for (GatherInput& other : kept) {
        if (!other.lookup || other.lookup->source != i || other.lookup->source_column != c) {
          continue;
        }
        other.lookup->source_column = provides.size();
        used = true;
      }
      if (used) provides.push_back(kept[i].provides[c]);
    }
    kept[i].provides = std::move(provides);
  }
  plan.inputs = std::move(kept);
  // A last table looked up by its first key column with the one value of a row named by its
  // whole key (a point joined with the row it names) is on one shard: no broadcast to plan.
  bool one_value = false;
  if (!plan.inputs.empty() && plan.inputs.back().lookup &&
      !plan.inputs.back().lookup->key_type.empty()) {
    size_t source = plan.inputs.back().lookup->source;
    for (size_t k = 0; k < found.size(); ++k) {
      if (found[k].use == plan.inputs[source].use) one_value = one_row(k);
    }
  }
  if (!one_value) plan.broadcast = plan_broadcast(view, s, plan, params, merges);
  if (plan.broadcast && deferred != SIZE_MAX) {
    plan.reasons.push_back("order: " + found[deferred].table +
                           " last, the most to read by the estimates: where its rows are on "
                           "several shards, the statement runs on each of them");
  }
  if (plan.broadcast && sizes != nullptr) {
    // The rows read for the others go to every shard of the last table: worth it while they
    // weigh less than that table (decided when they are read; unknown size: always).
    const sql::RelationUse& u = s.relations[plan.inputs.back().use];
    const TableDescriptor* t = view.find_table(u.table.schema, u.table.name);
    if (const TableSize* size = t != nullptr ? sizes->find(t->schema, t->name) : nullptr) {
      plan.broadcast_limit = size->bytes;
    }
  }
  return plan;
}

std::optional<std::string> GatherPlan::fetch_sql(size_t i,
                                                 const std::vector<std::string>* lookup_values,
                                                 std::string_view lookup_type) const {
  const GatherInput& in = inputs[i];
  std::string sql = "SELECT " + in.qualifier;
  for (const std::string& c : in.provides) sql += ", " + in.qualifier + "." + sql::quote_ident(c);
  sql += " FROM " + in.relation + " AS " + in.qualifier;
  std::vector<std::string> where;
  if (!in.filter.empty()) where.push_back(in.filter);
  if (in.lookup && lookup_values != nullptr) {
    if (lookup_values->empty()) return std::nullopt;
    std::string col = in.qualifier + "." + sql::quote_ident(in.lookup->column);
    if (lookup_values->size() > kLookupBatch || lookup_type.empty()) {
      // Too many values to list, or of a type pgrange cannot name: the rows are not narrowed.
    } else if (auto listed = key_literals(*lookup_values, lookup_type, in.lookup->key_type)) {
      // Untyped literals the key's type reads as the same values: the router reads them and
      // prunes its ranges.
      if (listed->empty()) return std::nullopt;  // none fits the key's type: no row matches
      std::string list;
      for (const std::string& v : *listed) {
        list += (list.empty() ? "" : ", ") + sql::quote_literal(v);
      }
      where.push_back(col + " IN (" + list + ")");
    } else {
      where.push_back(col + " = ANY(CAST(" + dollar_quoted(array_text(*lookup_values)) + " AS " +
                      std::string(lookup_type) + "[]))");
    }
  }
  for (size_t k = 0; k < where.size(); ++k) sql += (k == 0 ? " WHERE " : " AND ") + where[k];
  return sql;
}

std::vector<std::string> GatherPlan::fetch_sqls(size_t i, const std::set<std::string>& values,
                                                std::string_view lookup_type) const {
  std::vector<std::string> list(values.begin(), values.end());
  std::vector<std::string> out;
  if (list.size() <= kLookupBatch || lookup_type.empty()) {
    // One read: listed, or (too many values of a type pgrange cannot name) not narrowed.
    if (auto sql = fetch_sql(i, &list, lookup_type)) out.push_back(std::move(*sql));
    return out;
  }
  if (integer_bounds(lookup_type)) {
    auto number = [](const std::string& v) {
      int64_t n = 0;
      std::from_chars(v.data(), v.data() + v.size(), n);
      return n;
    };
    std::sort(list.begin(), list.end(),
              [&](const std::string& a, const std::string& b) { return number(a) < number(b); });
  }
  for (size_t at = 0; at < list.size(); at += kLookupBatch) {
    std::vector<std::string> batch(
        list.begin() + static_cast<std::ptrdiff_t>(at),
        list.begin() + static_cast<std::ptrdiff_t>(std::min(list.size(), at + kLookupBatch)));
    if (auto sql = fetch_sql(i, &batch, lookup_type)) out.push_back(std::move(*sql));
  }
  return out;
}

std::string rows_literal(const std::vector<std::string>& rows, std::string_view relation) {
  return "CAST(" + dollar_quoted(array_text(rows)) + " AS " + std::string(relation) + "[])";
}

std::string GatherPlan::final_sql(const std::vector<std::vector<std::string>>& rows,
                                  const std::vector<bool>& kept,
                                  const std::vector<bool>& summarized,
                                  const std::vector<std::string>& tables) const {
  return with_rows(
      *this, kept,
      [&](size_t i) {
        if (i < summarized.size() && summarized[i])
          return rows[i].empty() ? std::string() : rows[i][0];
        return rows_literal(rows[i], inputs[i].relation);
      },
      summarized, tables);
}

std::string GatherPlan::summary_sql(size_t i) const {
  const GatherInput& in = inputs[i];
  if (!in.summary) return {};
  return text.substr(in.summary->begin, in.summary->end - in.summary->begin);
}

std::string summary_rows_sql(const std::vector<std::string>& names,
                             const std::vector<std::string>& types,
                             const std::vector<std::vector<std::optional<std::string>>>& columns,
                             bool ordered) {
  std::string select;
  std::string arrays;
  std::string aliases;
  for (size_t c = 0; c < names.size(); ++c) {
    std::string column = "c" + std::to_string(c + 1);
    select += (c > 0 ? ", " : "") + ("CAST(" + column + " AS " + types[c] + ") AS ") +
              sql::quote_ident(names[c]);
    // The column's values as a text array: each quoted, NULL bare.
    std::string body = "{";
    if (c < columns.size()) {
      for (size_t r = 0; r < columns[c].size(); ++r) {
        if (r > 0) body.push_back(',');
        const auto& v = columns[c][r];
        if (!v) {
          body += "NULL";
          continue;
        }
        body.push_back('"');
        for (char ch : *v) {
          if (ch == '"' || ch == '\\') body.push_back('\\');
          body.push_back(ch);
        }
        body.push_back('"');
      }
    }
    body.push_back('}');
    arrays += (c > 0 ? ", " : "") + ("CAST(" + dollar_quoted(body) + " AS text[])");
    aliases += (c > 0 ? ", " : "") + column;
  }
  std::string out = "SELECT " + select + " FROM unnest(" + arrays + ")";
  if (ordered) {
    // Qualified: an output column may have the ordinality's name.
    return out + " WITH ORDINALITY AS pgrange_rows (" + aliases +
           ", pgrange_n) ORDER BY pgrange_rows.pgrange_n";
  }
  return out + " AS pgrange_rows (" + aliases + ")";
}

std::string GatherPlan::broadcast_sql(const std::vector<std::vector<std::string>>& rows) const {
  if (!broadcast) return {};
  const std::string& shard_sql = broadcast->shard_sql;
  std::string out;
  size_t at = 0;
  // The markers in the order they appear (the merge's rewriting keeps the FROM clause's).
  std::vector<std::pair<size_t, size_t>> found;  // position, input
  for (size_t i = 0; i + 1 < inputs.size() && i < rows.size(); ++i) {
    size_t p = shard_sql.find("'" + rows_marker(i) + "'");
    if (p != std::string::npos) found.emplace_back(p, i);
  }
  std::sort(found.begin(), found.end());
  for (auto [p, i] : found) {
    out.append(shard_sql, at, p - at);
    out += dollar_quoted(array_text(rows[i]));
    at = p + rows_marker(i).size() + 2;
  }
  out.append(shard_sql, at, std::string::npos);
  return out;
}

std::vector<std::string> GatherPlan::describe() const {
  std::vector<std::string> out;
  out.push_back(
      "Gather: the statement runs on one shard, each table below replaced by the rows read "
      "for it");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const GatherInput& in = inputs[i];
    if (in.summary) {
      out.push_back("  Materialize the rows of a query of " + in.table + " (as " + in.qualifier +
                    "): answered over its shards first, only its rows read");
      out.push_back("    Merge: " + summary_sql(i));
      for (const std::string& line : sql::describe_merge(in.summary->merge)) {
        out.push_back("      " + line);
      }
      out.push_back("    where the merge cannot compare the values it meets, Route: " +
                    *fetch_sql(i));
      for (const std::string& r : in.reasons) out.push_back("      " + r);
      continue;
    }
    out.push_back("  Materialize " + in.table + " (as " + in.qualifier + ")");
    std::string sql = *fetch_sql(i);
    if (in.lookup) {
      sql += std::string(in.filter.empty() ? " WHERE " : " AND ") + in.qualifier + "." +
             sql::quote_ident(in.lookup->column) + " IN (<" +
             inputs[in.lookup->source].provides[in.lookup->source_column] + " of " +
             inputs[in.lookup->source].table + ">)";
    }
    out.push_back("    Route: " + sql);
    for (const std::string& r : in.reasons) out.push_back("      " + r);
    if (i + 1 == inputs.size()) {
      out.push_back(
          "      when the rows it reads are all on one shard: not read, the statement runs "
          "there on the table itself");
      if (broadcast) {
        out.push_back(
            "      when they are on several shards: not read, the statement runs on each of them "
            "with the other tables' rows (broadcast join), merged:");
        if (broadcast_limit) {
          out.push_back("        unless the rows read for the others pass its estimated " +
                        describe_bytes(*broadcast_limit) + " (then it is read)");
        }
        for (const std::string& line : sql::describe_merge(*broadcast)) {
          out.push_back("        " + line);
        }
      }
    }
  }
  for (const std::string& t : in_place) {
    out.push_back("  In place: reference table " + t + " (every shard holds its rows)");
  }
  for (const std::string& r : reasons) out.push_back("  " + r);
  return out;
}

std::string_view builtin_type_name(uint32_t oid) {
  switch (oid) {
    case 16:
      return "bool";
    case 17:
      return "bytea";
    case 20:
      return "int8";
    case 21:
      return "int2";
    case 23:
      return "int4";
    case 25:
      return "text";
    case 700:
      return "float4";
    case 701:
      return "float8";
    case 1042:
      return "bpchar";
    case 1043:
      return "varchar";
    case 1082:
      return "date";
    case 1114:
      return "timestamp";
    case 1184:
      return "timestamptz";
    case 1700:
      return "numeric";
    case 2950:
      return "uuid";
    default:
      return {};
  }
}

Result<GatherPlan> plan_gather_one_table(const ClusterView& view, const sql::StatementInfo& s,
                                         std::string_view whole, const BindParams* params,
                                         const TableSizes* sizes, const MergePlanner& merges) {
  if (s.kind != sql::StatementKind::kSelect || s.select_into || !s.single_table || s.begin != 0 ||
      s.end > whole.size()) {
    return tl::unexpected(not_supported("this statement over several shards"));
  }
  auto uses = sql::relation_uses_of(whole.substr(0, s.end));
  if (!uses) return tl::unexpected(uses.error());
  sql::StatementInfo with_uses = s;
  with_uses.relations = std::move(*uses);
  return plan_gather(view, with_uses, whole, params, sizes, merges);
}

}  // namespace pgrange::routing
