#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace pgrange::proxy::exec {

/// The rows of an INSERT … SELECT's query, as a shard answers it (RowDescription, DataRows,
/// CommandComplete, or an ErrorResponse in their place), written out as INSERT … VALUES
/// statements: the INSERT's text before its query, a part of the rows as VALUES, and its text
/// after the query (ON CONFLICT, RETURNING). A part holds at most kPartRows rows and stops
/// after the row that brings its values past kPartBytes. Each value is written as a quoted
/// literal of its text, which the column's type reads back as PostgreSQL sent it.
class InsertParts {
 public:
  static constexpr size_t kPartRows = 10000;
  static constexpr size_t kPartBytes = 8u << 20;

  InsertParts(std::string answer, std::string before_rows, std::string after_rows);

  /// The DataRows the answer holds.
  size_t rows() const { return rows_; }
  /// The answer's ErrorResponse, as pgrange's error: the query failed and nothing is written.
  const std::optional<Error>& error() const { return error_; }
  /// The rows not written yet.
  size_t rows_left() const { return rows_left_; }
  /// The next INSERT, nullopt when every row is written.
  std::optional<std::string> next();

 private:
  std::string answer_;
  std::string before_rows_;
  std::string after_rows_;
  size_t offset_ = 0;  // where the rows not written yet start in answer_
  size_t rows_ = 0;
  size_t rows_left_ = 0;
  std::optional<Error> error_;
};

}  // namespace pgrange::proxy::exec
