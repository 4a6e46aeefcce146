#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace pgrange::sql {

/// A query inside a SELECT statement that reads nothing but one table and whose answer is
/// usually far smaller than that table (GROUP BY, an aggregate, DISTINCT or LIMIT): a CTE's body
/// or a derived table in FROM that is not LATERAL, at any depth of such queries (never a
/// subquery in an expression, which may read the query around it). Its answer is the same run on
/// its own, so pgrange may compute it over the shards first (a merge) and write its rows in its
/// place, instead of reading the table's rows for the statement.
struct SummaryQuery {
  size_t begin = 0;         ///< its text: from just after its opening parenthesis
  size_t end = 0;           ///< to its closing parenthesis
  int table_location = -1;  ///< its one table's name in the text (RelationUse::location)
  bool parameters = false;  ///< it has $n (the statement's parameters)
};

/// The SummaryQuery's of `sql` (one SELECT statement; none for anything else): queries whose
/// FROM is one table (no join, no function, no ONLY, no TABLESAMPLE) and that have no
/// subquery, WITH, set operation, locking clause or INTO of their own. They may have the
/// statement's parameters ($n), which must then be bound when they run on their own.
std::vector<SummaryQuery> summary_queries(std::string_view sql);

}  // namespace pgrange::sql
