#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "routing/keys/key_codec.hpp"
#include "routing/keys/key_type.hpp"

namespace pgrange::routing {

/// PostgreSQL's hash_bytes (hash_any): Jenkins lookup3 over the bytes, little-endian words.
uint32_t pg_hash_bytes(std::string_view bytes);

/// PostgreSQL's hash_bytes_uint32 (hash_uint32).
uint32_t pg_hash_uint32(uint32_t k);

/// The per-column hash PostgreSQL 15 computes with the SQL function hash_column_sql returns
/// for the type: hashint4 (bool, int2, int4, date as days since 2000-01-01), hashint8 (int8;
/// timestamp/timestamptz as µs since 2000-01-01), hashfloat8 (float4/float8), hash_numeric,
/// hashtext (text, varchar), hashbpchar, uuid_hash, hashtext(encode(bytea, 'hex')).
/// The result is PostgreSQL's int4 reinterpreted as uint32.
uint32_t pg_hash_value(KeyType type, const KeyValue& value);

/// SQL (PostgreSQL 15) for the per-column hash of `column_sql` (an expression or quoted
/// identifier of the given type), as an int4; NULL hashes to 0. Infinite dates and
/// timestamps make the SQL fail (PostgreSQL cannot subtract or convert them).
std::string hash_column_sql(std::string_view column_sql, KeyType type);

/// One hash-sharding input column: its SQL expression and type (for hash_bucket_sql).
struct HashColumn {
  std::string sql;
  KeyType type;
};

/// The bucket in [0, buckets) of a row's hashed column values (nullopt = NULL): the
/// per-column hashes as unsigned 32-bit numbers u_i folded as h = (h * 31 + u_i) mod 2^32,
/// then h mod buckets. buckets must be > 0.
uint32_t hash_bucket(std::span<const KeyType> types,
                     std::span<const std::optional<KeyValue>> values, uint32_t buckets);

/// SQL (PostgreSQL 15, int8-valued) computing the same bucket as hash_bucket.
std::string hash_bucket_sql(std::span<const HashColumn> columns, uint32_t buckets);

/// The key column a hash-sharded index starts with: the bucket, an ascending int4.
inline constexpr KeyColumn kHashBucketColumn{KeyType::kInt4, false, NullsOrder::kDefault};

}  // namespace pgrange::routing
