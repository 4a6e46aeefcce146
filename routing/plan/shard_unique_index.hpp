#pragma once

#include <optional>
#include <pqxx/connection>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "routing/meta/catalog.hpp"
#include "sql/table_constraint.hpp"

namespace pgrange::routing {

/// A unique or exclusion index a shard holds on one of its tables, as the shard's catalog has
/// it: PostgreSQL enforces it on that shard's rows only.
struct ShardUniqueIndex {
  /// The index as a constraint: its name is the index's (a constraint's index is named like
  /// the constraint); columns are its key columns ("" for an expression), include its INCLUDE
  /// columns; an exclusion index's operators.
  sql::TableConstraint index;
  /// A UNIQUE index that no constraint owns (CREATE UNIQUE INDEX).
  bool index_only = false;
  bool partial = false;  ///< WHERE …
};

/// The unique and exclusion indexes of `schema.table` on the shard `conn` is connected to, in
/// the order they were made. Throws on failure (control plane).
std::vector<ShardUniqueIndex> shard_unique_indexes(pqxx::connection& conn,
                                                   const std::string& schema,
                                                   const std::string& table);

/// The names of a table's row key columns (the key without a hash-sharded table's bucket, which
/// follows from them).
std::vector<std::string> row_key_names(const TableDescriptor& t);

/// Of the table's unique and exclusion indexes on a shard, the first that the shards cannot
/// enforce once the table's rows are on several of them (two rows that violate it need not
/// have the same key), as a 0A000 error that names it, says why and what to do; `what` says
/// what was asked ("ALTER TABLE t SCATTER"). nullopt when each shard can enforce them all.
std::optional<Error> spread_blocker(const TableDescriptor& t,
                                    const std::vector<ShardUniqueIndex>& indexes,
                                    const std::string& what);

}  // namespace pgrange::routing
