#include "routing/meta/catalog.hpp"

#include <algorithm>

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

std::string_view generated_key_kind_name(GeneratedKey::Kind k) {
  switch (k) {
    case GeneratedKey::Kind::kSequence:
      return "sequence";
    case GeneratedKey::Kind::kIdentityAlways:
      return "identity_always";
    case GeneratedKey::Kind::kIdentityByDefault:
      return "identity_by_default";
    case GeneratedKey::Kind::kUuid:
      return "uuid";
  }
  return "sequence";
}

std::optional<GeneratedKey::Kind> generated_key_kind_from_name(std::string_view s) {
  for (auto k : {GeneratedKey::Kind::kSequence, GeneratedKey::Kind::kIdentityAlways,
                 GeneratedKey::Kind::kIdentityByDefault, GeneratedKey::Kind::kUuid}) {
    if (generated_key_kind_name(k) == s) return k;
  }
  return std::nullopt;
}

std::span<const KeyColumnDef> row_key_columns(const TableDescriptor& t) {
  std::span<const KeyColumnDef> key(t.key);
  return t.hash_buckets > 0 && !key.empty() ? key.subspan(1) : key;
}

std::span<const KeyColumnDef> hashed_key_columns(const TableDescriptor& t) {
  auto columns = row_key_columns(t);
  return t.hashed_columns > 0 && t.hashed_columns < columns.size() ? columns.first(t.hashed_columns)
                                                                   : columns;
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

std::string index_table_name(const TableDescriptor& t, const IndexDescriptor& i) {
  return t.name + "@" + i.name;
}

void join_family(TableDescriptor& member, const TableDescriptor& root) {
  member.table_id = root.table_id;
  member.index_id = 1;
  member.key_source = root.key_source;
  member.key = root.key;
  member.hash_buckets = root.hash_buckets;
  member.hashed_columns = root.hashed_columns;
  member.reference = root.reference;
  member.colocated_with = root.colocated_with;
  member.indexes.clear();
  // The root's defaults (PostgreSQL copies them to the member): their sequences are the root's.
  member.generated = root.generated;
  for (GeneratedKey& g : member.generated) g.owned = false;
}

TableDescriptor index_relation(const TableDescriptor& t, const IndexDescriptor& i) {
  TableDescriptor r;
  r.table_id = t.table_id;
  r.index_id = i.index_id;
  r.schema = t.schema;
  r.name = index_table_name(t, i);
  r.key_source = KeySource::kConfig;  // indexed columns may be NULL, and need not be unique
  r.key = i.columns;
  for (const KeyColumnDef& k : row_key_columns(t)) {
    bool indexed = std::any_of(i.columns.begin(), i.columns.end(),
                               [&](const KeyColumnDef& c) { return c.name == k.name; });
    if (!indexed) r.key.push_back(k);
  }
  for (const KeyColumnDef& k : r.key) r.columns.push_back(k.name);
  r.columns.insert(r.columns.end(), i.storing.begin(), i.storing.end());
  if (i.hash_buckets > 0) {
    // The bucket hashes the indexed columns: a lookup by them computes it.
    KeyColumnDef bucket;
    bucket.name = hash_bucket_column_name(i.columns, i.hash_buckets);
    bucket.column = KeyColumn{KeyType::kInt4, false, NullsOrder::kDefault};
    r.key.insert(r.key.begin(), std::move(bucket));
    r.hash_buckets = i.hash_buckets;
    r.hashed_columns = static_cast<uint32_t>(i.columns.size());
  }
  return r;
}

const IndexDescriptor* find_index(const TableDescriptor& t, std::string_view name) {
  for (const IndexDescriptor& i : t.indexes) {
    if (i.name == name) return &i;
  }
  return nullptr;
}

std::vector<std::string> index_source_columns(const TableDescriptor& t) {
  std::vector<std::string> out;
  auto add = [&](const std::string& c) {
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  };
  for (const KeyColumnDef& k : row_key_columns(t)) add(k.name);
  for (const IndexDescriptor& i : t.indexes) {
    for (const KeyColumnDef& k : i.columns) add(k.name);
    for (const std::string& c : i.storing) add(c);
  }
  return out;
}

std::string_view reader_kind_name(ReaderDescriptor::Kind k) {
  return k == ReaderDescriptor::Kind::kView ? "view" : "function";
}

std::optional<ReaderDescriptor::Kind> reader_kind_from_name(std::string_view s) {
  if (s == "view") return ReaderDescriptor::Kind::kView;
  if (s == "function") return ReaderDescriptor::Kind::kFunction;
  return std::nullopt;
}

}  // namespace pgrange::routing
