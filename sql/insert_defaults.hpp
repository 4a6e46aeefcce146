#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace pgrange::sql {

/// Where an INSERT leaves one column to its default, so that pgrange can make those values
/// itself (a key from a cluster-wide sequence) and write them into the statement.
struct ColumnDefaults {
  /// The statement is an INSERT … VALUES or INSERT … DEFAULT VALUES whose rows pgrange can
  /// give the column in (false for INSERT … SELECT, or rows without a column list that do not
  /// reach the column).
  bool fillable = false;
  /// The rows (0-based; DEFAULT VALUES is one row) that leave the column to its default:
  /// they omit it or write DEFAULT.
  std::vector<size_t> rows;
  /// Some row writes a value of its own for the column.
  bool given = false;
  /// An INSERT … SELECT whose column list leaves the column out (or whose select list, without
  /// a column list, is too short to reach it): every row gets the column's default, and pgrange
  /// cannot write values into them.
  bool left_out = false;
  /// The statement says OVERRIDING SYSTEM VALUE / OVERRIDING USER VALUE.
  bool overriding_system = false;
  bool overriding_user = false;
};

/// Reads where the INSERT `insert_sql` leaves `column` to its default; `table_columns` are the
/// table's columns in order (for an INSERT without a column list). Not an INSERT: all false.
Result<ColumnDefaults> insert_column_defaults(std::string_view insert_sql, std::string_view column,
                                              std::span<const std::string> table_columns);

/// The INSERT `insert_sql` with the SQL literal `literals[i]` written for `column` in the i-th
/// row that insert_column_defaults() lists (the column added to the column list when the rows
/// omit it), and OVERRIDING SYSTEM VALUE when `overriding_system`. Everything else is kept.
Result<std::string> insert_with_column_values(std::string_view insert_sql, std::string_view column,
                                              std::span<const std::string> table_columns,
                                              std::span<const std::string> literals,
                                              bool overriding_system);

}  // namespace pgrange::sql
