#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "routing/key_type.hpp"

namespace pgrange::routing {

/// Where a table's key came from.
enum class KeySource {
  kPrimaryKey,  ///< the table's PRIMARY KEY
  kConfig,      ///< a [[table]] entry in the configuration (need not be unique)
  kUnsharded,   ///< no key: the table lives whole in one range on one shard
};

/// One key column of a table: its name and how it is encoded.
struct KeyColumnDef {
  std::string name;
  KeyColumn column;
  bool operator==(const KeyColumnDef&) const = default;
};

/// A table pgrange knows: its id in the key space and its key.
struct TableDescriptor {
  uint64_t table_id = 0;
  std::string schema = "public";
  std::string name;
  KeySource key_source = KeySource::kUnsharded;
  std::vector<KeyColumnDef> key;
  /// Every column in table order (what an INSERT without a column list fills), when known.
  std::vector<std::string> columns;
  bool operator==(const TableDescriptor&) const = default;
};

/// A shard as the metadata store records it.
struct ShardRecord {
  std::string name;
  std::string dsn;
  bool operator==(const ShardRecord&) const = default;
};

std::string_view key_source_name(KeySource s);
std::optional<KeySource> key_source_from_name(std::string_view s);

}  // namespace pgrange::routing
