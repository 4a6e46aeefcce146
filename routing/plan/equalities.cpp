#include "routing/plan/equalities.hpp"

#include <algorithm>

#include "sql/where_condition.hpp"

namespace pgrange::routing {
namespace {

const KeyColumnDef* key_column(const TableDescriptor& t, const std::string& name) {
  for (const KeyColumnDef& k : t.key) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

/// A condition that narrows its column to values or a span (what a key is routed by).
bool gives_values(const sql::Condition& c) {
  return c.kind == sql::Condition::Kind::kCompare || c.kind == sql::Condition::Kind::kIn;
}

void add_conjunct(std::optional<sql::Condition>& where, sql::Condition extra) {
  if (!where) {
    where = std::move(extra);
    return;
  }
  if (where->kind != sql::Condition::Kind::kAnd) {
    sql::Condition all;
    all.kind = sql::Condition::Kind::kAnd;
    all.children.push_back(std::move(*where));
    where = std::move(all);
  }
  where->children.push_back(std::move(extra));
}

}  // namespace

std::optional<sql::StatementInfo> with_implied_conditions(const ClusterView& view,
                                                          const sql::StatementInfo& s) {
  bool any = std::any_of(s.relations.begin(), s.relations.end(),
                         [](const sql::RelationUse& u) { return !u.equalities.empty(); });
  if (!any) return std::nullopt;
  std::optional<sql::StatementInfo> out;
  for (int pass = 0; pass < 4; ++pass) {
    bool changed = false;
    const sql::StatementInfo& now = out ? *out : s;
    for (size_t i = 0; i < now.relations.size(); ++i) {
      const sql::RelationUse& mine = now.relations[i];
      const TableDescriptor* t = view.find_table(mine.table.schema, mine.table.name);
      if (t == nullptr || mine.equalities.empty()) continue;
      for (const sql::RelationUse::Equality& e : mine.equalities) {
        const KeyColumnDef* k = key_column(*t, e.column);
        if (k == nullptr) continue;
        for (size_t j = 0; j < now.relations.size(); ++j) {
          const sql::RelationUse& theirs = now.relations[j];
          if (j == i || theirs.location != e.other || !theirs.where) continue;
          const TableDescriptor* o = view.find_table(theirs.table.schema, theirs.table.name);
          const KeyColumnDef* ok = o != nullptr ? key_column(*o, e.other_column) : nullptr;
          if (ok == nullptr || ok->column.type != k->column.type) continue;
          std::vector<const sql::Condition*> given, have;
          sql::conjuncts(*theirs.where, given);
          if (mine.where) sql::conjuncts(*mine.where, have);
          std::vector<sql::Condition> implied;
          for (const sql::Condition* c : given) {
            if (!gives_values(*c) || c->column != e.other_column) continue;
            sql::Condition copy = *c;
            copy.column = e.column;
            bool known = std::any_of(have.begin(), have.end(),
                                     [&](const sql::Condition* h) { return *h == copy; });
            if (!known) implied.push_back(std::move(copy));
          }
          if (implied.empty()) continue;
          if (!out) out = s;
          for (sql::Condition& c : implied) add_conjunct(out->relations[i].where, std::move(c));
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  return out;
}

}  // namespace pgrange::routing
