#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "routing/meta/catalog.hpp"
#include "routing/meta/cluster_view.hpp"

namespace pgrange::routing {

/// Co-location groups: a root table and the tables whose key starts with the root's key
/// (TableDescriptor::colocated_with), their ranges split at the same key prefixes and each on
/// the shard of the root's range holding that prefix. A join of group members on the key
/// prefix then finds every pair of matching rows on one shard.

/// The id of the root of `t`'s group: itself when it follows no table.
inline uint64_t group_root(const TableDescriptor& t) {
  return t.colocated_with != 0 ? t.colocated_with : t.table_id;
}

/// Why a table keyed by `key` cannot follow `root`'s ranges, or nullopt when it can: the root
/// must be keyed, neither a reference table nor hash-sharded nor itself a follower, and its key
/// columns (types and order) the first of `key`.
std::optional<std::string> colocation_blocker(const TableDescriptor& root,
                                              const std::vector<KeyColumnDef>& key,
                                              uint32_t hash_buckets);

/// The tables of `t`'s group in `view`: the root first, then its followers by table id (just
/// `t` when it is in no group). Family members (partitions) are not listed: they follow their
/// own root's ranges.
std::vector<const TableDescriptor*> group_of(const ClusterView& view, const TableDescriptor& t);

/// A key of table `from`'s primary index as the same place in table `to`'s: the same values
/// after /Table/<to>/1. Keys outside `from`'s primary index are returned unchanged.
std::string follow_key(const std::string& key, uint64_t from, uint64_t to);

/// The ranges of `table_id`'s primary index as its followers take them: the split keys inside
/// the index (as keys of `to`) and, per range, its shard (one more than split keys).
struct GroupLayout {
  std::vector<std::string> split_keys;
  std::vector<std::string> shards;
};
GroupLayout layout_for(const ClusterView& view, uint64_t table_id, uint64_t to);

/// Every table of `group` (group_of) has the root's ranges: the same split keys inside its
/// primary index, each range on the same shard as the root's. False while a split or a move of
/// the group is half done (a join pushed down then would miss rows).
bool aligned(const ClusterView& view, const std::vector<const TableDescriptor*>& group);

}  // namespace pgrange::routing
