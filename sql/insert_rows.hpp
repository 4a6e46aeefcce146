#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace pgrange::sql {

/// The INSERT … VALUES statement `insert_sql` keeping only its VALUES rows `rows` (0-based, in
/// the order given), for running each shard's rows there. Everything else (column list, ON
/// CONFLICT, RETURNING, WITH) is kept. 0A000 when the statement is not an INSERT … VALUES.
Result<std::string> insert_with_rows(std::string_view insert_sql, std::span<const size_t> rows);

}  // namespace pgrange::sql
