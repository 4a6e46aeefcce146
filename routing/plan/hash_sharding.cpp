#include "routing/plan/hash_sharding.hpp"

#include <algorithm>

#include "routing/keys/hash_bucket.hpp"
#include "routing/keys/key_space.hpp"
#include "sql/quoting.hpp"

namespace pgrange::routing {

uint32_t row_bucket(const TableDescriptor& table, std::span<const std::optional<KeyValue>> values) {
  std::vector<KeyType> types;
  for (const KeyColumnDef& k : hashed_key_columns(table)) types.push_back(k.column.type);
  return hash_bucket(types, values.first(std::min(values.size(), types.size())),
                     table.hash_buckets);
}

std::string row_key(const TableDescriptor& table, std::span<const std::optional<KeyValue>> values) {
  std::string key = index_prefix(table.table_id, table.index_id);
  if (table.hash_buckets > 0) {
    append_key_value(key, table.key.front().column,
                     KeyValue{static_cast<int64_t>(row_bucket(table, values))});
  }
  auto columns = row_key_columns(table);
  for (size_t i = 0; i < values.size() && i < columns.size(); ++i) {
    if (values[i]) {
      append_key_value(key, columns[i].column, *values[i]);
    } else {
      append_key_null(key, columns[i].column);
    }
  }
  return key;
}

namespace {

/// The one bucket a span (computed without the bucket, under the index prefix) can be in: the
/// span starts with values of every hashed column and stays among keys with those values
/// (a point of the whole key, or a prefix of the hashed columns); else nullopt.
std::optional<uint32_t> span_bucket(const TableDescriptor& table, const std::string& index,
                                    const Span& s) {
  if (s.start.size() <= index.size() || s.start.compare(0, index.size(), index) != 0) {
    return std::nullopt;
  }
  std::string_view encoded = std::string_view(s.start).substr(index.size());
  std::vector<std::optional<KeyValue>> values;
  for (const KeyColumnDef& k : hashed_key_columns(table)) {
    auto v = read_key_value(encoded, k.column);
    if (!v) return std::nullopt;
    values.push_back(std::move(*v));
  }
  const std::string prefix = s.start.substr(0, s.start.size() - encoded.size());
  if (s.end > prefix_end(prefix)) return std::nullopt;
  return row_bucket(table, values);
}

}  // namespace

SpanSet spread_over_buckets(const TableDescriptor& table, const SpanSet& spans) {
  const std::string index = index_prefix(table.table_id, table.index_id);
  const KeyColumn& bucket_column = table.key.front().column;
  auto bucket_prefix = [&](uint32_t b) {
    std::string p = index;
    append_key_value(p, bucket_column, KeyValue{static_cast<int64_t>(b)});
    return p;
  };
  // A bound under the index prefix moves under the bucket's prefix; one below or above the
  // index clamps to the bucket's start or end.
  auto place = [&](const std::string& bound, const std::string& prefix) {
    if (bound.size() >= index.size() && bound.compare(0, index.size(), index) == 0) {
      return prefix + bound.substr(index.size());
    }
    return bound < index ? prefix : prefix_end(prefix);
  };
  std::vector<Span> out;
  for (const Span& s : spans) {
    std::optional<uint32_t> only = span_bucket(table, index, s);
    for (uint32_t b = 0; b < table.hash_buckets; ++b) {
      if (only && *only != b) continue;
      std::string prefix = bucket_prefix(b);
      out.push_back({place(s.start, prefix), place(s.end, prefix)});
    }
  }
  return normalize_spans(std::move(out));
}

std::vector<std::string> key_column_sql(const TableDescriptor& table) {
  std::vector<std::string> out;
  if (table.hash_buckets > 0) {
    std::vector<HashColumn> hashed;
    for (const KeyColumnDef& k : hashed_key_columns(table)) {
      hashed.push_back({sql::quote_ident(k.name), k.column.type});
    }
    out.push_back(hash_bucket_sql(hashed, table.hash_buckets));
  }
  for (const KeyColumnDef& k : row_key_columns(table)) out.push_back(sql::quote_ident(k.name));
  return out;
}

}  // namespace pgrange::routing
