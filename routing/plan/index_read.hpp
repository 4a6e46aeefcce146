#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "routing/meta/catalog.hpp"
#include "routing/meta/cluster_view.hpp"
#include "routing/plan/router.hpp"

/// A SELECT read through a global index (Route::index_lookup): the index alone when it stores
/// every column the statement needs, else its entries' keys first and then the rows those keys
/// name, from the shards owning them (the index join). Plans only: proxy/exec runs them.
namespace pgrange::routing {

/// How the SELECT reads through the index.
struct IndexRead {
  /// In the view the read was planned with (which must outlive it).
  const TableDescriptor* table = nullptr;
  const IndexDescriptor* index = nullptr;
  TableDescriptor relation;  ///< index_relation(table, index): the index's backend table
  /// The index stores every column the statement refers to: the statement itself runs on the
  /// index's backend table (first_step_sql), merged over the index's shards.
  bool covering = false;
  /// What runs on the index's shards: the covering statement, or the entries' keys.
  std::string first_step_sql;
  /// The row key columns the entries give (quoted, comma-separated); empty when covering.
  std::string key_columns;
};

/// The read of `text` (one SELECT) through `lookup`'s index: 40001 when the index is gone from
/// `view` (dropped since the statement was planned).
Result<IndexRead> plan_index_read(const ClusterView& view, const std::string& text,
                                  const Route::IndexLookup& lookup);

/// EXPLAIN's lines for the read: its steps, with the index's ranges.
std::vector<std::string> describe_index_read(const ClusterView& view, const IndexRead& read,
                                             const Route::IndexLookup& lookup);

/// The index join's second step: the statement restricted to the row keys the entries named
/// (`keys`: each a row's key column values as text), and the shards owning those keys. With no
/// key at all, one shard of the table answers the statement over no row (an aggregate over none
/// still answers a row).
struct KeyedRead {
  std::vector<int> shards;
  std::string sql;
};
Result<KeyedRead> read_of_keys(const ClusterView& view, const IndexRead& read,
                               const std::string& text,
                               const std::set<std::vector<std::optional<std::string>>>& keys);

}  // namespace pgrange::routing
