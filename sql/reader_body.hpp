#pragma once

#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "sql/statement_info.hpp"

namespace pgrange::sql {

/// What the query of a view or the body of a LANGUAGE sql function reads, writes and calls, as
/// written in it (names unqualified unless it qualifies them).
struct ReaderBody {
  std::vector<TableRef> reads;   ///< every relation named (CTE names excluded), once each
  std::vector<TableRef> writes;  ///< those of them an INSERT/UPDATE/DELETE/MERGE writes
  std::vector<TableRef> calls;   ///< every function called, once each
  /// A view whose query is a plain SELECT of one relation's rows: no join, subquery, CTE,
  /// grouping, aggregate, window, DISTINCT, ORDER BY, LIMIT, set operation or locking.
  bool plain = false;

  bool operator==(const ReaderBody&) const = default;
};

/// A view's query (a SELECT, as pg_get_viewdef() prints it).
Result<ReaderBody> read_view_query(std::string_view select_sql);

/// A function's definition (CREATE FUNCTION/PROCEDURE … as pg_get_functiondef() prints it) in
/// LANGUAGE sql: its body, a string or BEGIN ATOMIC … END. An Error for a definition that does
/// not parse or is not in LANGUAGE sql.
Result<ReaderBody> read_function_definition(std::string_view create_sql);

}  // namespace pgrange::sql
