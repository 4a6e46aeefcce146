#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.hpp"
#include "routing/meta/catalog.hpp"

/// The rows of one key range of a table on a shard (RangeCopy, range_copy.hpp, moves them).
///
/// A row of a table belongs to the range holding its primary-index key
/// (/Table/<table_id>/1/<key columns>, routing/key_space.hpp). key_range_predicate
/// (routing/plan/key_predicate.hpp) turns a key range into SQL over the key columns that selects
/// exactly those rows, so a shard can count, copy or delete them.
namespace pgrange::routing {

/// What a shard holds of one range of a table.
struct RangeStats {
  int64_t row_count = 0;
  /// Approximate size: the sum of pg_column_size over the rows (no page or index overhead).
  int64_t bytes = 0;
};

/// Counts the rows of [start_key, end_key) of `table` on the shard at `dsn` (one read-only
/// transaction). Errors carry the server's SQLSTATE, or 08006 when the connection fails.
Result<RangeStats> range_stats(const std::string& dsn, const TableDescriptor& table,
                               std::string_view start_key, std::string_view end_key);

/// The key at the middle of the range's rows on the shard at `dsn` (the key of its median row,
/// from a sample of about 100,000 rows when it has more; `row_count` from range_stats): where a
/// range too big splits. An error (22023) when no key of its rows lies after its start (one key
/// holds all of them).
Result<std::string> middle_key(const std::string& dsn, const TableDescriptor& table,
                               std::string_view start_key, std::string_view end_key,
                               int64_t row_count);

}  // namespace pgrange::routing
