#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "sql/statement_info.hpp"

namespace pgrange::sql {

/// The data format of a COPY.
enum class CopyFormat { kText, kCsv, kBinary };

/// The options of a COPY statement with PostgreSQL 15's defaults filled in (copy.c
/// ProcessCopyOptions). PostgreSQL 15 has no FORCE_NOT_NULL * or FORCE_NULL * (only column lists).
struct CopyOptions {
  CopyFormat format = CopyFormat::kText;
  char delimiter = '\t';            ///< ',' for CSV
  std::string null_string = "\\N";  ///< "" for CSV
  char quote = '"';                 ///< CSV only
  char escape = '"';                ///< CSV only; defaults to quote
  bool header = false;              ///< HEADER true or MATCH
  bool header_match = false;        ///< HEADER MATCH
  bool freeze = false;
  std::vector<std::string> force_not_null;  ///< CSV, COPY FROM: column names
  std::vector<std::string> force_null;      ///< CSV, COPY FROM: column names
  std::vector<std::string> force_quote;     ///< CSV, COPY TO: column names
  bool force_quote_all = false;             ///< CSV, COPY TO: FORCE_QUOTE *
  std::string encoding;                     ///< ENCODING 'x' as written, if given

  bool operator==(const CopyOptions&) const = default;
};

/// A COPY statement as pgrange routes it.
struct CopyStatement {
  /// The table; empty name for COPY (query) TO.
  TableRef table;
  /// The column list as written (folded like PostgreSQL folds identifiers); empty = all columns.
  std::vector<std::string> columns;
  bool from = false;     ///< COPY … FROM (else TO)
  bool stdio = false;    ///< FROM STDIN / TO STDOUT (no file name, not PROGRAM)
  bool program = false;  ///< FROM/TO PROGRAM
  /// FROM/TO 'file' or PROGRAM 'command': the file name or command.
  std::string filename;
  /// COPY (query) TO: the query's text as written in the statement, without the parentheses.
  std::string query;
  bool has_where = false;  ///< COPY FROM … WHERE
  CopyOptions options;
};

/// Reads one COPY statement (the text must hold exactly one statement, a COPY) with PostgreSQL's
/// grammar. Option errors are those of PostgreSQL 15 (same SQLSTATE and message), plus a column
/// named twice in the column list (42701, as PostgreSQL reports once the columns exist).
Result<CopyStatement> read_copy_statement(std::string_view sql);

}  // namespace pgrange::sql
