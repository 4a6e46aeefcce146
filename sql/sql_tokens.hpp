#pragma once

#include <pg_query/pg_query.pb-c.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace pgrange::sql {

/// A token of PostgreSQL's own scanner (libpg_query's pg_query_scan).
struct SqlToken {
  std::string_view text;  ///< into the scanned string
  PgQuery__Token kind;
  size_t start;
  size_t end;
};

/// The tokens of `sql` (which must outlive them), comments left out, as PostgreSQL's lexer
/// reads them (quoting, dollar quoting, comments). 42601 with the scanner's message when it
/// cannot be scanned.
Result<std::vector<SqlToken>> scan_tokens(const std::string& sql);

/// The highest parameter number (`$n`) written in `sql`; 0 when none (or it cannot be scanned).
int highest_parameter(const std::string& sql);

/// `sql` with each parameter `$n` (a token of its own: not in a literal, a quoted name or a
/// comment) replaced by `values[n - 1]`, SQL text written as it is; 42P02 for a parameter
/// without a value.
Result<std::string> replace_parameters(const std::string& sql,
                                       const std::vector<std::string>& values);

}  // namespace pgrange::sql
