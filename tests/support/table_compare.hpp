#pragma once

#include <libpq-fe.h>

#include <optional>
#include <string>
#include <vector>

namespace pgrange::testing {

/// A table the write tests compare after every statement, and the columns that order its rows.
struct TableSpec {
  std::string name;
  std::vector<std::string> order_by;  ///< the primary key's columns, else every column
};

/// The ordinary tables of schema public on the reference server (sorted by name), each ordered
/// by its primary key (by all its columns when it has none).
std::vector<TableSpec> reference_tables(PGconn* reference);

/// A table's rows as `SELECT * FROM t ORDER BY <order_by>` returned them.
struct TableImage {
  bool ok = false;
  std::string error;  ///< SQLSTATE and message when the read failed
  std::vector<std::string> columns;
  std::vector<std::vector<std::optional<std::string>>> rows;  ///< text values; nullopt = NULL

  /// One line per row ("v1 | v2 | <null>"), after a line naming the columns; for a failed read
  /// the SQLSTATE only (so that two failed reads compare equal).
  std::string text() const;
};

/// Reads the whole table through `conn` (simple protocol).
TableImage read_table(PGconn* conn, const TableSpec& table);

/// Makes the reference's table hold exactly `image`'s rows: DELETE and INSERT with
/// session_replication_role = replica (no triggers, no foreign key checks), so that the
/// statements after a wrong write are judged from the same rows again. "" on success, else why
/// not (e.g. rows that break a UNIQUE constraint).
std::string copy_rows_into(PGconn* reference, const TableSpec& table, const TableImage& image);

/// The lines only one of two multisets of lines holds.
struct LineDifference {
  std::vector<std::string> only_first, only_second;
};

/// Compares two multisets of lines (in any order).
LineDifference line_difference(std::vector<std::string> first, std::vector<std::string> second);

/// "\n    N <label>: (line) (line) (line) (line) …" — a few of `lines`, for a report; "" when
/// there are none.
std::string sample_lines(const std::vector<std::string>& lines, const std::string& label);

}  // namespace pgrange::testing
