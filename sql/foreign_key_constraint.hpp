#pragma once

#include <string>
#include <vector>

// libpg_query's parse tree nodes (pg_query.pb-c.h), for the readers below.
struct PgQuery__CreateStmt;
struct PgQuery__AlterTableCmd;

namespace pgrange::sql {

/// A FOREIGN KEY (REFERENCES) constraint of CREATE TABLE or ALTER TABLE … ADD, as written: what
/// pgrange needs to name it when it refuses it. Names are folded as PostgreSQL folds them.
struct ForeignKeyConstraint {
  /// CONSTRAINT name; empty when PostgreSQL picks it.
  std::string name;
  /// The referencing columns (the column itself for a column constraint).
  std::vector<std::string> columns;
  /// The referenced table (schema empty when not qualified) and columns (empty: its primary
  /// key).
  std::string referenced_schema;
  std::string referenced_table;
  std::vector<std::string> referenced_columns;

  bool operator==(const ForeignKeyConstraint&) const = default;
};

/// The FOREIGN KEY constraints of a CREATE TABLE, column and table constraints alike, in the
/// order they are written in.
std::vector<ForeignKeyConstraint> create_table_foreign_keys(const PgQuery__CreateStmt* s);

/// The FOREIGN KEY constraints one ALTER TABLE subcommand adds (ADD CONSTRAINT, or ADD COLUMN
/// with a REFERENCES constraint).
std::vector<ForeignKeyConstraint> alter_table_foreign_keys(const PgQuery__AlterTableCmd* cmd);

}  // namespace pgrange::sql
