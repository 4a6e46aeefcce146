#include "routing/catalog.hpp"

namespace pgrange::routing {

std::string_view key_source_name(KeySource s) {
  switch (s) {
    case KeySource::kPrimaryKey:
      return "primary_key";
    case KeySource::kConfig:
      return "config";
    case KeySource::kUnsharded:
      return "unsharded";
  }
  return "unsharded";
}

std::optional<KeySource> key_source_from_name(std::string_view s) {
  if (s == "primary_key") return KeySource::kPrimaryKey;
  if (s == "config") return KeySource::kConfig;
  if (s == "unsharded") return KeySource::kUnsharded;
  return std::nullopt;
}

std::span<const KeyColumnDef> row_key_columns(const TableDescriptor& t) {
  std::span<const KeyColumnDef> key(t.key);
  return t.hash_buckets > 0 && !key.empty() ? key.subspan(1) : key;
}

std::string hash_bucket_column_name(const std::vector<KeyColumnDef>& hashed, uint32_t buckets) {
  std::string name = "crdb_internal";
  for (const KeyColumnDef& k : hashed) name += "_" + k.name;
  return name + "_shard_" + std::to_string(buckets);
}

void make_hash_sharded(TableDescriptor& t, uint32_t buckets) {
  if (t.key.empty() || buckets == 0) return;
  KeyColumnDef bucket;
  bucket.name = hash_bucket_column_name(t.key, buckets);
  bucket.column = KeyColumn{KeyType::kInt4, false, NullsOrder::kDefault};
  t.key.insert(t.key.begin(), std::move(bucket));
  t.hash_buckets = buckets;
}

}  // namespace pgrange::routing
