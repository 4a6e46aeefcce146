#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "routing/meta/catalog.hpp"
#include "routing/meta/metadata_store.hpp"
#include "routing/ranges/range_map.hpp"

namespace pgrange::routing {

/// One immutable picture of the cluster as the metadata store described it at one version: the
/// shards, the tables and the range map. Sessions route with the view they loaded; the control
/// plane publishes a new one after every change (its own or another instance's).
class ClusterView {
 public:
  /// Builds a view; `shard_order` gives each shard name its pool index (configuration order).
  static Result<std::shared_ptr<const ClusterView>> build(
      MetadataSnapshot snapshot, const std::vector<std::string>& shard_order);

  int64_t version() const { return version_; }
  const RangeMapSnapshot& ranges() const { return *ranges_; }
  const std::vector<ShardRecord>& shards() const { return shards_; }
  const std::vector<TableDescriptor>& tables() const { return tables_; }
  /// Every keyed relation whose rows ranges hold: each table, then each global index as
  /// index_relation() sees it. What moves with a range.
  const std::vector<TableDescriptor>& relations() const { return relations_; }
  /// Ranges being moved (writes to them wait until the move lets go).
  const std::vector<uint64_t>& held_ranges() const { return held_; }
  /// Ranges whose whole-table reads wait (a move's cut-over, until the old shard's rows are
  /// gone); writes to them may go on by then.
  const std::vector<uint64_t>& scan_held_ranges() const { return scan_held_; }
  /// The range with this id, or nullptr.
  const RangeDescriptor* find_range(uint64_t range_id) const;

  /// The table registered under schema.name (an empty schema means "public"), or nullptr.
  const TableDescriptor* find_table(std::string_view schema, std::string_view name) const;
  const TableDescriptor* find_table_id(uint64_t table_id) const;
  /// Whether `t` is a member of a family (a partition or inheritance child) or the root of one.
  bool in_family(const TableDescriptor& t) const;
  /// The views and SQL functions pgrange knows the bodies of.
  const std::vector<ReaderDescriptor>& readers() const { return readers_; }
  /// The view registered under schema.name (an empty schema means "public"), or nullptr.
  const ReaderDescriptor* find_view(std::string_view schema, std::string_view name) const;
  /// Every SQL function registered under schema.name (its overloads), possibly none.
  std::vector<const ReaderDescriptor*> find_functions(std::string_view schema,
                                                      std::string_view name) const;

  /// The pool index of a shard name, or -1 when this pgrange has no such shard configured.
  int shard_index(std::string_view shard) const;
  /// The shard named `name` in the metadata store, or nullptr.
  const ShardRecord* find_shard(std::string_view name) const;
  /// The shard names in pool index order.
  const std::vector<std::string>& shard_order() const { return shard_order_; }
  /// What the view was built from (build(snapshot(), shard_order()) is the same view).
  MetadataSnapshot snapshot() const;
  /// The name of the shard with that pool index.
  const std::string& shard_name(int index) const {
    return shard_order_.at(static_cast<size_t>(index));
  }

  /// The indexes (into ranges()) of the ranges that hold rows of a table: those overlapping its
  /// primary index, [/Table/<id>/1, /Table/<id>/2).
  std::vector<size_t> table_ranges(uint64_t table_id) const { return index_ranges(table_id, 1); }
  /// …of the ranges that hold entries of one index of a table: those overlapping
  /// [/Table/<id>/<index>, /Table/<id>/<index+1>).
  std::vector<size_t> index_ranges(uint64_t table_id, uint64_t index_id) const;

 private:
  int64_t version_ = 0;
  std::vector<ShardRecord> shards_;
  std::vector<TableDescriptor> relations_;
  std::vector<TableDescriptor> tables_;
  std::vector<uint64_t> held_;
  std::vector<uint64_t> scan_held_;
  std::unordered_map<std::string, size_t> by_name_;  ///< "schema.name" → index into tables_
  std::vector<ReaderDescriptor> readers_;
  /// "schema.name" → indexes into readers_: views, and functions (all overloads).
  std::unordered_map<std::string, size_t> views_;
  std::unordered_multimap<std::string, size_t> functions_;
  std::unordered_map<std::string, int> shard_index_;
  std::vector<std::string> shard_order_;
  std::shared_ptr<const RangeMapSnapshot> ranges_;
};

/// "schema.name" with the default schema filled in, as the view keys its tables.
std::string qualified_table_name(std::string_view schema, std::string_view name);

}  // namespace pgrange::routing
