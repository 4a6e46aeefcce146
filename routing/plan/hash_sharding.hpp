#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "routing/keys/key_codec.hpp"
#include "routing/keys/span.hpp"
#include "routing/meta/catalog.hpp"

namespace pgrange::routing {

/// The bucket of a row of a hash-sharded table from the values of its hashed key columns
/// (row_key_columns order; nullopt = NULL).
uint32_t row_bucket(const TableDescriptor& table, std::span<const std::optional<KeyValue>> values);

/// The encoded primary key of a row from the values of row_key_columns (nullopt = NULL): for a
/// hash-sharded table /Table/<id>/1/<bucket>/<values…>, else /Table/<id>/1/<values…>.
std::string row_key(const TableDescriptor& table, std::span<const std::optional<KeyValue>> values);

/// Key spans of a hash-sharded table's hashed columns (computed as if the bucket were not
/// there: under /Table/<id>/1) placed in its buckets: a point goes to its own bucket, any other
/// span to every bucket (bucket b + the span), so a range scan reaches every bucket's ranges.
SpanSet spread_over_buckets(const TableDescriptor& table, const SpanSet& spans);

/// The SQL (PostgreSQL 15) of each key column as a shard compares it: the quoted column name,
/// or for a hash-sharded table's bucket the hash_bucket_sql expression over its columns.
std::vector<std::string> key_column_sql(const TableDescriptor& table);

}  // namespace pgrange::routing
