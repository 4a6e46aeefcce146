#pragma once

#include <pg_query/pg_query.pb-c.h>

namespace pgrange::sql {

/// SELECT count(*) or count(expr) alone: no DISTINCT, FILTER, window, ORDER BY inside; no GROUP
/// BY, HAVING, ORDER BY, LIMIT, OFFSET, DISTINCT or locking around it.
bool sole_count(const PgQuery__SelectStmt* s);

/// SELECT count(…) FROM (SELECT … FROM t [WHERE …]) AS x, as ORMs count a query's rows
/// (SQLAlchemy's Query.count()): the inner query keeps or drops each row of one table on its
/// own (no DISTINCT, grouping, LIMIT, window, set operation, function call or subquery), so
/// each shard counts its rows and the answer is the sum of theirs.
bool counts_rows_of_one_table(const PgQuery__SelectStmt* s);

}  // namespace pgrange::sql
