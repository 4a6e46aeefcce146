#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace pgrange::sql {

/// The columns a SELECT on one table refers to (ColumnRef names, the last component), and
/// whether it reads every column (`*`, `t.*`).
struct ColumnUse {
  bool star = false;
  std::vector<std::string> columns;
};

/// What the SELECT `select_sql` refers to of its table.
Result<ColumnUse> referenced_columns(std::string_view select_sql);

/// The SELECT with `condition` (an SQL boolean expression) ANDed to its WHERE clause (or as its
/// WHERE clause), as libpg_query's deparser writes it: the rows the index join fetches.
Result<std::string> restrict_select(std::string_view select_sql, std::string_view condition);

/// The SELECT reading `schema`.`relation` in place of its one table, under the table's name (or
/// the alias it had), so that every column reference still resolves: a covering index read.
Result<std::string> select_from_relation(std::string_view select_sql, const std::string& schema,
                                         const std::string& relation);

}  // namespace pgrange::sql
