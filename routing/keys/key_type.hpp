#pragma once

#include <cstdint>
#include <string_view>

#include "common/error.hpp"

namespace pgrange::routing {

/// SQLSTATEs used by the key codec that common/error.hpp does not (yet) name.
namespace key_sqlstate {
inline constexpr std::string_view kInvalidDatetimeFormat = "22007";
inline constexpr std::string_view kDatetimeFieldOverflow = "22008";
}  // namespace key_sqlstate

/// The PostgreSQL column types that can appear in a key.
enum class KeyType {
  kBool,
  kInt2,
  kInt4,
  kInt8,
  kFloat4,
  kFloat8,
  kNumeric,
  kText,
  kVarchar,
  kBpchar,
  kBytea,
  kUuid,
  kDate,
  kTimestamp,
  kTimestamptz,
};

/// Every KeyType, in declaration order (for tests and tables).
inline constexpr KeyType kAllKeyTypes[] = {
    KeyType::kBool,    KeyType::kInt2,      KeyType::kInt4,       KeyType::kInt8,
    KeyType::kFloat4,  KeyType::kFloat8,    KeyType::kNumeric,    KeyType::kText,
    KeyType::kVarchar, KeyType::kBpchar,    KeyType::kBytea,      KeyType::kUuid,
    KeyType::kDate,    KeyType::kTimestamp, KeyType::kTimestamptz};

/// Where NULLs sort in a key column; kDefault follows PostgreSQL (NULLS LAST for ASC,
/// NULLS FIRST for DESC, i.e. NULL is larger than every value).
enum class NullsOrder { kDefault, kFirst, kLast };

/// One key column: its type and sort direction.
struct KeyColumn {
  KeyType type = KeyType::kInt8;
  bool descending = false;
  NullsOrder nulls = NullsOrder::kDefault;

  /// True when NULL sorts before every value of this column.
  bool nulls_first() const {
    if (nulls == NullsOrder::kDefault) return descending;
    return nulls == NullsOrder::kFirst;
  }
  bool operator==(const KeyColumn&) const = default;
};

/// Maps a PostgreSQL type OID (pg_type.oid) to a KeyType; 0A000 for unsupported types.
Result<KeyType> key_type_from_oid(uint32_t oid);

/// Maps a PostgreSQL type name ("int4", "integer", "character varying", "timestamptz", ...)
/// to a KeyType, case-insensitively; 0A000 for unsupported types.
Result<KeyType> key_type_from_name(std::string_view name);

/// The PostgreSQL OID of a KeyType.
uint32_t key_type_oid(KeyType type);

/// The canonical PostgreSQL name of a KeyType ("int4", "timestamptz", ...).
std::string_view key_type_name(KeyType type);

/// text, varchar or bpchar: compared by bytes in key order (COLLATE "C" in SQL).
bool is_text_type(KeyType type);

}  // namespace pgrange::routing
