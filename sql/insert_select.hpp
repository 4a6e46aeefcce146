#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pgrange::sql {

/// INSERT … SELECT (or … TABLE, a set operation, a parenthesized query) taken apart so that
/// pgrange can run its query and insert the rows itself: `before_rows` + " VALUES (…), (…)" +
/// `after_rows` is the same INSERT with the rows written out (its column list, OVERRIDING,
/// ON CONFLICT and RETURNING kept).
struct InsertSelect {
  std::string query;        ///< the SELECT, as libpg_query writes it
  std::string before_rows;  ///< "INSERT INTO t (a, b)" …
  std::string after_rows;   ///< " ON CONFLICT … RETURNING …", or empty
  bool returning = false;
  /// The query has a LIMIT or OFFSET of its own (at its top level).
  bool limited = false;
};

/// Reads `sql` when it is one INSERT whose rows come from a query (not VALUES, not DEFAULT
/// VALUES, and with no WITH of its own); nullopt otherwise.
std::optional<InsertSelect> read_insert_select(std::string_view sql);

}  // namespace pgrange::sql
