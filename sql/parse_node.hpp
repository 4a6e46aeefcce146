#pragma once

#include <pg_query/pg_query.pb-c.h>

#include <optional>
#include <string>

namespace pgrange::sql {

/// The text of a non-NULL constant in libpg_query's parse tree as PostgreSQL's grammar gives it:
/// integers from their value, other numbers and strings as written, booleans "true"/"false";
/// nullopt for a NULL or a kind of constant pgrange does not read.
std::optional<std::string> constant_text(const PgQuery__AConst* c);

}  // namespace pgrange::sql
