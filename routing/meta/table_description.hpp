#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "routing/meta/catalog.hpp"
#include "routing/meta/sequence_block.hpp"

namespace pgrange::routing {

/// A table as a shard's catalog describes it, for pgrange's catalog: its name, columns, key
/// (the primary key, or the configured key columns) and generated keys, with the state of
/// their sequences. Read by one query (table_description_sql) through any connection: the
/// control plane's own, or a transaction block's, which sees the block's uncommitted DDL.
struct TableDescription {
  TableDescriptor table;
  /// The state of each generated key's sequence, in the order of table.generated (an entry
  /// for a uuid key too, unused).
  std::vector<SequenceState> sequences;
  /// Why the table is not keyed as it might have expected (empty when it is).
  std::string notice;
};

/// The configured key columns of schema.name, or null (the table is keyed by its primary key).
using ConfiguredKey = std::function<const std::vector<std::string>*(const std::string& schema,
                                                                    const std::string& name)>;

/// The query describing relation `relation` (a name as SQL writes it: quoted, maybe
/// schema-qualified): one row per column, in column order. No parameters.
std::string table_description_sql(const std::string& relation);

/// The description from table_description_sql's rows (text values; null as nullopt). No rows:
/// 42P01 naming `name`.
Result<TableDescription> describe_table_rows(
    const std::vector<std::vector<std::optional<std::string>>>& rows, const std::string& name,
    const ConfiguredKey& configured);

}  // namespace pgrange::routing
