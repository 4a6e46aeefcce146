#pragma once

#include <pg_query/pg_query.pb-c.h>

#include <optional>
#include <string>
#include <vector>

#include "sql/statement_info.hpp"

namespace pgrange::sql {

/// The canonical name of a type as written in a cast or column definition (ColumnInfo::type).
std::string type_name(const PgQuery__TypeName* t);

/// The constant, NULL or $n that `n` is (possibly cast, possibly a negated number).
std::optional<ValueRef> value_of(const PgQuery__Node* n);

/// The constant or NULL `v` is as SQL text that means the same (cast included), for writing
/// it into another statement; nullopt for a $n and what pgrange cannot write back.
std::optional<std::string> value_sql(const ValueRef& v);

/// The column `n` names if it is a plain column reference to the relation `rv` names:
/// unqualified, or qualified with its alias (else its name, possibly with its schema).
std::optional<std::string> column_of(const PgQuery__Node* n, const PgQuery__RangeVar* rv);

/// Appends the AND-ed parts of `n` to `out` (`n` itself when it is no AND).
void conjuncts(const PgQuery__Node* n, std::vector<const PgQuery__Node*>& out);
/// …of a Condition: its parts under ANDs at any depth (BETWEEN is an AND of two comparisons).
void conjuncts(const Condition& c, std::vector<const Condition*>& out);

/// An `=` operator (possibly written OPERATOR(pg_catalog.=)).
bool is_equals(const PgQuery__AExpr* e);

/// What the boolean expression `n` says about the columns of the relation `rv` names: AND/OR
/// of comparisons of its columns with values; anything else is Condition::Kind::kOpaque.
Condition condition_of(const PgQuery__Node* n, const PgQuery__RangeVar* rv);

}  // namespace pgrange::sql
