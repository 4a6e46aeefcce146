#pragma once

#include <optional>
#include <vector>

#include "routing/meta/cluster_view.hpp"
#include "sql/statement_info.hpp"

namespace pgrange::routing {

/// Statement `s` with what its join equalities imply (nullopt when they imply nothing): where
/// a relation's column equals another relation's (RelationUse::equalities) and the other's
/// conditions compare that column with values (`=`, `<`, `<=`, `>`, `>=`, `IN`), the relation
/// gets the same condition on its column (`a JOIN b ON b.id = a.id WHERE a.id = 7` reads b's
/// id 7 only; `… WHERE a.id BETWEEN 1 AND 9` its span), to a fixed point.
/// Only between key columns of the same key type of pgrange tables: equality is transitive
/// there (across types a cast may make `a.x = 0.1` differ from `b.y = 0.1`).
std::optional<sql::StatementInfo> with_implied_conditions(const ClusterView& view,
                                                          const sql::StatementInfo& s);

}  // namespace pgrange::routing
