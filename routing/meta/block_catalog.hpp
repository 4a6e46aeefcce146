#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "routing/meta/catalog.hpp"
#include "routing/meta/cluster_view.hpp"
#include "routing/ranges/range_map.hpp"

namespace pgrange::routing {

/// A table new to pgrange's catalog and where its first ranges go: split at `split_keys`
/// (encoded, sorted), the range starting at the table's prefix on shards[0] and the one
/// starting at split_keys[i] on shards[i + 1].
struct NewTable {
  TableDescriptor table;  ///< its table id taken
  std::vector<std::string> split_keys;
  std::vector<std::string> shards;
  bool operator==(const NewTable&) const = default;
};

/// The range changes that give `t` its ranges, made against `ranges` (a whole range map).
Result<std::vector<RangeChange>> new_table_ranges(const std::vector<RangeDescriptor>& ranges,
                                                  const NewTable& t);

/// One DDL statement's effect on pgrange's catalog inside a transaction block: made on the
/// shards in the block's transaction, applied to the catalog with the block's commit decision.
struct CatalogStep {
  enum class Kind {
    kCreate,  ///< a new table (`created`)
    kDrop,    ///< table `table.table_id` is gone
    kUpdate,  ///< table `table.table_id` is now `table` (name, key, columns)
  };
  Kind kind = Kind::kCreate;
  NewTable created;
  TableDescriptor table;
};

/// What a transaction block's DDL did to the catalog so far, in order (a ROLLBACK TO cuts it
/// back to what it was at the savepoint).
struct BlockCatalog {
  std::vector<CatalogStep> steps;
  /// Views or SQL functions may have changed: read again after the commit.
  bool readers = false;
  bool empty() const { return steps.empty() && !readers; }
};

/// The net effect of a block's steps on the catalog of `base`.
struct CatalogDelta {
  std::vector<NewTable> created;         ///< in the order they were made, as they end
  std::vector<uint64_t> dropped;         ///< tables of `base` that are gone
  std::vector<TableDescriptor> updated;  ///< tables of `base` that changed, as they end
  /// What gives the created tables their ranges on `base`'s map.
  std::vector<RangeChange> range_changes;
  bool empty() const { return created.empty() && dropped.empty() && updated.empty(); }
};
Result<CatalogDelta> net_change(const ClusterView& base, const BlockCatalog& block);

/// The view the block's own statements route with: `base` with the block's changes, as the
/// catalog will hold them once it commits.
Result<std::shared_ptr<const ClusterView>> block_view(const ClusterView& base,
                                                      const BlockCatalog& block);

}  // namespace pgrange::routing
