#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.hpp"

namespace pgrange::sql {

/// The INSERT … VALUES statement `insert_sql` keeping only its VALUES rows `rows` (0-based, in
/// the order given), for running each shard's rows there. Everything else (column list, ON
/// CONFLICT, RETURNING, WITH) is kept. 0A000 when the statement is not an INSERT … VALUES.
Result<std::string> insert_with_rows(std::string_view insert_sql, std::span<const size_t> rows);

/// Where an INSERT … VALUES statement's rows are in its text: [begin, end) of each row's
/// parentheses, in order, as PostgreSQL's scanner reads the text (literals, quoted names,
/// dollar quotes and comments skipped). nullopt when the text is not plainly `… INSERT … VALUES
/// (…), (…) …` at its top level (a parenthesized VALUES, say): insert_with_rows then.
std::optional<std::vector<std::pair<size_t, size_t>>> values_row_spans(
    const std::string& insert_sql);

/// insert_with_rows by the rows' places in the text (values_row_spans): the statement's own
/// text around the rows kept, no parse. The rows must be spans of `insert_sql`.
std::string insert_with_row_spans(std::string_view insert_sql,
                                  const std::vector<std::pair<size_t, size_t>>& spans,
                                  std::span<const size_t> rows);

}  // namespace pgrange::sql
