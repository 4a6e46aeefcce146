#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace pgrange::routing {

/// How big a table is, as the shards' catalogs say (pg_class), summed over the shards: what
/// PostgreSQL's own planner starts from, read every few seconds, never exact.
struct TableSize {
  /// Rows (reltuples); -1 when a shard holding some of it has not analysed it yet.
  double rows = 0;
  /// Bytes of its heap (pg_relation_size): known whether analysed or not.
  int64_t bytes = 0;
};

/// The sizes of the tables on the shards, by schema and name.
class TableSizes {
 public:
  /// Adds one shard's figures for a table.
  void add(const std::string& schema, const std::string& name, double rows, int64_t bytes);
  /// The table's size, or nullptr when no shard reported it.
  const TableSize* find(std::string_view schema, std::string_view name) const;
  size_t size() const { return sizes_.size(); }

 private:
  std::map<std::pair<std::string, std::string>, TableSize, std::less<>> sizes_;
};

/// "12345 rows, 1.2 MB" ("1.2 MB (not analysed)" when the rows are unknown), for EXPLAIN.
std::string describe_size(const TableSize& size);
/// "80 kB", "1.2 MB", "3.4 GB".
std::string describe_bytes(int64_t bytes);

}  // namespace pgrange::routing
