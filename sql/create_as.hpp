#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pgrange::sql {

/// CREATE TABLE … AS (or SELECT … INTO) taken apart into the two statements that do the same
/// inside one transaction: the table made from the query's columns, then its rows inserted.
/// pgrange runs them so that the new table is keyed, placed and filled like any other.
struct CreateAs {
  std::string create_sql;  ///< "CREATE [UNLOGGED] TABLE [IF NOT EXISTS] t [(…)] AS … WITH NO DATA"
  std::string insert_sql;  ///< "INSERT INTO t <query>"; empty WITH NO DATA
};

/// Reads `sql` when it is one CREATE TABLE … AS or SELECT … INTO of a table (not a
/// materialized view) whose query is a SELECT (not EXECUTE); nullopt otherwise.
std::optional<CreateAs> read_create_as(std::string_view sql);

}  // namespace pgrange::sql
