#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace pgrange::sql {

/// A CREATE TABLE whose primary key is hash-sharded (CockroachDB's
/// `PRIMARY KEY (…) USING HASH [WITH (bucket_count = N)]`), as PostgreSQL can run it.
struct HashShardedCreate {
  std::string sql;       ///< the statement without the USING HASH clause (a plain PRIMARY KEY)
  uint32_t buckets = 0;  ///< N (16 without WITH)
};

/// Recognises a hash-sharded PRIMARY KEY (libpg_query cannot parse USING HASH there) and strips
/// it, with PostgreSQL's own scanner. nullopt when `sql` has none. Errors: a bucket count that
/// is not an integer in [2, 2048] or another parameter (22023), a malformed WITH (42601), and
/// USING HASH in ALTER TABLE (0A000: only CREATE TABLE makes a table hash-sharded).
Result<std::optional<HashShardedCreate>> strip_hash_sharding(std::string_view sql);

}  // namespace pgrange::sql
