#include "routing/keys/key_type.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace pgrange::routing {
namespace {

struct TypeInfo {
  KeyType type;
  uint32_t oid;
  std::string_view name;
};

constexpr TypeInfo kTypes[] = {
    {KeyType::kBool, 16, "bool"},
    {KeyType::kInt2, 21, "int2"},
    {KeyType::kInt4, 23, "int4"},
    {KeyType::kInt8, 20, "int8"},
    {KeyType::kFloat4, 700, "float4"},
    {KeyType::kFloat8, 701, "float8"},
    {KeyType::kNumeric, 1700, "numeric"},
    {KeyType::kText, 25, "text"},
    {KeyType::kVarchar, 1043, "varchar"},
    {KeyType::kBpchar, 1042, "bpchar"},
    {KeyType::kBytea, 17, "bytea"},
    {KeyType::kUuid, 2950, "uuid"},
    {KeyType::kDate, 1082, "date"},
    {KeyType::kTimestamp, 1114, "timestamp"},
    {KeyType::kTimestamptz, 1184, "timestamptz"},
};

// SQL-standard spellings PostgreSQL accepts as aliases of the catalog names.
struct Alias {
  std::string_view alias;
  KeyType type;
};
constexpr Alias kAliases[] = {
    {"boolean", KeyType::kBool},
    {"smallint", KeyType::kInt2},
    {"integer", KeyType::kInt4},
    {"int", KeyType::kInt4},
    {"bigint", KeyType::kInt8},
    {"real", KeyType::kFloat4},
    {"double precision", KeyType::kFloat8},
    {"float", KeyType::kFloat8},
    {"decimal", KeyType::kNumeric},
    {"character varying", KeyType::kVarchar},
    {"character", KeyType::kBpchar},
    {"char", KeyType::kBpchar},
    {"timestamp without time zone", KeyType::kTimestamp},
    {"timestamp with time zone", KeyType::kTimestamptz},
};

}  // namespace

Result<KeyType> key_type_from_oid(uint32_t oid) {
  for (const auto& t : kTypes) {
    if (t.oid == oid) return t.type;
  }
  return fail(sqlstate::kFeatureNotSupported,
              "type with OID " + std::to_string(oid) + " cannot be a key column");
}

Result<KeyType> key_type_from_name(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const auto& t : kTypes) {
    if (t.name == lower) return t.type;
  }
  for (const auto& a : kAliases) {
    if (a.alias == lower) return a.type;
  }
  return fail(sqlstate::kFeatureNotSupported,
              "type \"" + std::string(name) + "\" cannot be a key column");
}

uint32_t key_type_oid(KeyType type) {
  return kTypes[static_cast<int>(type)].oid;
}

std::string_view key_type_name(KeyType type) {
  return kTypes[static_cast<int>(type)].name;
}

bool is_text_type(KeyType type) {
  return type == KeyType::kText || type == KeyType::kVarchar || type == KeyType::kBpchar;
}

}  // namespace pgrange::routing
