#pragma once

#include <string>
#include <vector>

// libpg_query's parse tree nodes (pg_query.pb-c.h), for the readers below.
struct PgQuery__CreateStmt;
struct PgQuery__AlterTableCmd;

namespace pgrange::sql {

/// A PRIMARY KEY, UNIQUE or EXCLUDE constraint of CREATE TABLE or ALTER TABLE … ADD, as pgrange
/// reads it to decide whether each shard can enforce it on its own rows (it can when two rows
/// that violate it always have the same key, so that they are on one shard) or whether it must
/// become a global index. Names are folded as PostgreSQL folds them.
struct TableConstraint {
  enum class Kind { kPrimaryKey, kUnique, kExclude };
  Kind kind = Kind::kUnique;
  /// CONSTRAINT name; empty when PostgreSQL picks it.
  std::string name;
  /// The constrained columns in order: the key columns of PRIMARY KEY / UNIQUE (the column
  /// itself for a column constraint); EXCLUDE: each element's column ("" for an expression).
  std::vector<std::string> columns;
  /// EXCLUDE: the operator each element is compared with ("=", "&&"; the last component of a
  /// qualified name), one per column.
  std::vector<std::string> operators;
  /// INCLUDE (…) columns.
  std::vector<std::string> include;
  bool nulls_not_distinct = false;  ///< UNIQUE NULLS NOT DISTINCT
  bool deferrable = false;          ///< DEFERRABLE (initially deferred or not)
  /// ADD CONSTRAINT … UNIQUE / PRIMARY KEY USING INDEX name: that index.
  std::string using_index;
  /// What an index of pgrange's own cannot carry over from the constraint, as a short SQL
  /// construct name ("storage parameter fillfactor", "USING INDEX TABLESPACE"; for EXCLUDE
  /// also "WHERE"); the first one written, empty when nothing.
  std::string global_blocker;
  bool column_constraint = false;  ///< written on a column definition
  bool added_column = false;       ///< on a column that ALTER TABLE … ADD COLUMN adds

  bool operator==(const TableConstraint&) const = default;
};

/// The PRIMARY KEY, UNIQUE and EXCLUDE constraints of a CREATE TABLE, in the order PostgreSQL
/// makes them: the column constraints with their columns, then the table constraints.
std::vector<TableConstraint> create_table_constraints(const PgQuery__CreateStmt* s);

/// The PRIMARY KEY, UNIQUE and EXCLUDE constraints one ALTER TABLE subcommand adds (ADD
/// CONSTRAINT, or ADD COLUMN with column constraints).
std::vector<TableConstraint> alter_table_constraints(const PgQuery__AlterTableCmd* cmd);

/// True when two rows that violate `c` always have equal values in every column of `key`, so
/// that they are on one shard and that shard's own constraint finds them: every key column is
/// one of a PRIMARY KEY's or UNIQUE's key columns (INCLUDE columns do not count), or is an
/// EXCLUDE element compared with "=". False for an empty key.
bool contains_key(const TableConstraint& c, const std::vector<std::string>& key);

/// The columns written as `key`, for messages: "a, b".
std::string column_list(const std::vector<std::string>& columns);

}  // namespace pgrange::sql
