#pragma once

#include <pg_query/pg_query.pb-c.h>

#include <vector>

#include "sql/statement_info.hpp"

namespace pgrange::sql {

/// Every mention of a relation in one statement, with how the statement uses it: the construct
/// it is read through, whether it is written, and what the conditions of its query level say
/// about its columns (RelationUse). Names of CTEs in scope are not relations. Covers FROM and
/// JOIN items, UPDATE … FROM, DELETE … USING, MERGE … USING, subqueries anywhere (SELECT list,
/// WHERE, HAVING, SET, VALUES, RETURNING, ON CONFLICT, function arguments), derived tables and
/// LATERAL, CTE bodies (data-modifying ones written), set operations, COPY, EXPLAIN and the
/// relations of any other statement (LOCK, DECLARE …), in order of appearance.
std::vector<RelationUse> relation_uses(const PgQuery__Node* stmt);

/// relation_uses of the one statement `sql` (its text parsed again): for a single-table
/// statement, whose analysis leaves them out (StatementInfo::relations), when pgrange runs it
/// the way it runs statements over several tables.
Result<std::vector<RelationUse>> relation_uses_of(std::string_view sql);

/// The functions called anywhere under `n` ([schema.]name as written), once each, in order.
std::vector<TableRef> function_calls(const PgQuery__Node* n);

}  // namespace pgrange::sql
