#include "routing/meta/block_catalog.hpp"

#include <algorithm>
#include <map>

#include "routing/keys/key_space.hpp"

namespace pgrange::routing {

namespace {

/// new_table_ranges on a map that goes on to give later tables theirs.
Result<std::vector<RangeChange>> add_table_ranges(RangeMap& map, const NewTable& t) {
  if (t.table.member_id != 0) return std::vector<RangeChange>{};  // its root's ranges hold it
  std::string start = table_prefix(t.table.table_id);
  std::string end = table_prefix(t.table.table_id + 1);
  if (t.shards.size() != t.split_keys.size() + 1) {
    return tl::unexpected(
        Error::make(sqlstate::kInternalError, "a new table's ranges and shards do not match"));
  }
  std::vector<RangeOp> ops{RangeOp::split(start), RangeOp::split(end)};
  for (const std::string& k : t.split_keys) ops.push_back(RangeOp::split(k));
  auto changes = map.apply(ops);
  if (!changes) return tl::unexpected(changes.error());
  // The table is new and empty: its ranges can start on any shard.
  std::vector<std::string> starts{start};
  starts.insert(starts.end(), t.split_keys.begin(), t.split_keys.end());
  for (size_t i = 0; i < starts.size(); ++i) {
    const RangeDescriptor* r = map.snapshot()->lookup(starts[i]);
    auto moved = map.reassign(r->range_id, t.shards[i]);
    if (!moved) return tl::unexpected(moved.error());
    changes->push_back(std::move(*moved));
  }
  return changes;
}

}  // namespace

Result<std::vector<RangeChange>> new_table_ranges(const std::vector<RangeDescriptor>& ranges,
                                                  const NewTable& t) {
  auto map = RangeMap::from_descriptors(ranges);
  if (!map) return tl::unexpected(map.error());
  return add_table_ranges(**map, t);
}

namespace {

/// net_change, and the map it leaves (for block_view).
Result<std::pair<CatalogDelta, std::unique_ptr<RangeMap>>> fold(const ClusterView& base,
                                                                const BlockCatalog& block) {
  CatalogDelta d;
  std::map<uint64_t, TableDescriptor> updated;
  for (const CatalogStep& s : block.steps) {
    uint64_t id = catalog_id(s.kind == CatalogStep::Kind::kCreate ? s.created.table : s.table);
    auto made = std::find_if(d.created.begin(), d.created.end(),
                             [&](const NewTable& t) { return catalog_id(t.table) == id; });
    switch (s.kind) {
      case CatalogStep::Kind::kCreate:
        d.created.push_back(s.created);
        break;
      case CatalogStep::Kind::kDrop:
        if (made != d.created.end()) {
          d.created.erase(made);  // made and dropped in the block: nothing for the catalog
        } else {
          updated.erase(id);
          if (std::find(d.dropped.begin(), d.dropped.end(), id) == d.dropped.end()) {
            d.dropped.push_back(id);
          }
        }
        break;
      case CatalogStep::Kind::kUpdate:
        if (made != d.created.end()) {
          made->table = s.table;  // it keeps the ranges it was given
        } else {
          updated[id] = s.table;
        }
        break;
    }
  }
  auto known = [&](uint64_t id) {
    return std::any_of(base.tables().begin(), base.tables().end(),
                       [&](const TableDescriptor& t) { return catalog_id(t) == id; });
  };
  for (auto& [id, t] : updated) {
    if (known(id)) d.updated.push_back(std::move(t));
  }
  std::erase_if(d.dropped, [&](uint64_t id) { return !known(id); });
  auto ranges = base.ranges().ranges();
  auto map = RangeMap::from_descriptors(std::vector<RangeDescriptor>(ranges.begin(), ranges.end()));
  if (!map) return tl::unexpected(map.error());
  for (const NewTable& t : d.created) {
    auto changes = add_table_ranges(**map, t);
    if (!changes) return tl::unexpected(changes.error());
    d.range_changes.insert(d.range_changes.end(), changes->begin(), changes->end());
  }
  return std::pair{std::move(d), std::move(*map)};
}

}  // namespace

Result<CatalogDelta> net_change(const ClusterView& base, const BlockCatalog& block) {
  auto folded = fold(base, block);
  if (!folded) return tl::unexpected(folded.error());
  return std::move(folded->first);
}

Result<std::shared_ptr<const ClusterView>> block_view(const ClusterView& base,
                                                      const BlockCatalog& block) {
  auto folded = fold(base, block);
  if (!folded) return tl::unexpected(folded.error());
  const CatalogDelta& d = folded->first;
  MetadataSnapshot s = base.snapshot();
  // A dropped root takes its family with it.
  std::erase_if(s.tables, [&](const TableDescriptor& t) {
    auto gone = [&](uint64_t id) {
      return std::find(d.dropped.begin(), d.dropped.end(), id) != d.dropped.end();
    };
    return gone(catalog_id(t)) || gone(t.table_id);
  });
  for (const TableDescriptor& u : d.updated) {
    for (TableDescriptor& t : s.tables) {
      if (catalog_id(t) == catalog_id(u)) t = u;
    }
  }
  for (const NewTable& n : d.created) s.tables.push_back(n.table);
  auto ranges = folded->second->snapshot()->ranges();
  s.ranges.assign(ranges.begin(), ranges.end());
  return ClusterView::build(std::move(s), base.shard_order());
}

}  // namespace pgrange::routing
