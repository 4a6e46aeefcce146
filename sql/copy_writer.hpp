#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "sql/copy_statement.hpp"

namespace pgrange::sql {

/// Writes rows as COPY … TO writes them (PostgreSQL 15's copyto.c), for rows pgrange has as
/// values: text and CSV from the values' text, binary from their binary form. Text and CSV are
/// escaped and quoted byte by byte with ASCII delimiters, quotes and escapes: right for UTF-8 and
/// the encodings in which an ASCII byte is always an ASCII character.
class CopyRowWriter {
 public:
  /// For rows of a query's `columns` (their names, in order). 42703 for a FORCE_QUOTE column
  /// that is not one of them, as PostgreSQL reports it for COPY (query); 0A000 for an ENCODING
  /// (the values are in the client's encoding already).
  static Result<CopyRowWriter> make(CopyOptions options, std::vector<std::string> columns);

  /// What comes before the first row: the HEADER line (text, CSV), the binary format's
  /// signature, flags and header extension; empty otherwise.
  std::string start() const;
  /// Appends one row: text and CSV from each value's text, binary from each value's binary
  /// form; nullopt is NULL.
  void row(std::span<const std::optional<std::string_view>> values, std::string& out) const;
  /// The binary format's trailer (a tuple count of -1); empty for text and CSV.
  std::string_view trailer() const;

  bool binary() const { return options_.format == CopyFormat::kBinary; }

 private:
  CopyRowWriter(CopyOptions options, std::vector<std::string> columns, std::vector<bool> quoted);
  void text_value(std::string_view value, std::string& out) const;
  void csv_value(std::string_view value, bool quote, std::string& out) const;

  CopyOptions options_;
  std::vector<std::string> columns_;
  std::vector<bool> force_quote_;  // per column
};

}  // namespace pgrange::sql
