#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "proxy/exec/merge_build.hpp"
#include "proxy/exec/operator.hpp"
#include "routing/meta/cluster_view.hpp"
#include "routing/plan/index_read.hpp"
#include "sql/merge_query.hpp"

namespace pgrange::proxy::exec {

/// What an index join needs from the client's session.
struct IndexJoinContext {
  /// The view the read was planned with (its IndexRead points into it).
  std::shared_ptr<const routing::ClusterView> view;
  /// Idle connections to these shards (pool indexes), held by the session until the statement
  /// ends.
  std::function<awaitable<Result<std::vector<BackendConnection*>>>(const std::vector<int>&)>
      connections;
  /// The plan of a SELECT over a table read from `shards` shards (the worker's cached merge
  /// plan, its bounds bound; on one shard, the statement relayed whole).
  std::function<std::shared_ptr<const Result<sql::MergeQuery>>(
      const std::string& sql, const routing::TableDescriptor&, size_t shards)>
      merge_plan;
  ShardSession session;
  /// The client's Bind (extended protocol): the statement of the second step carries its
  /// parameters, as the client's own statement does.
  std::optional<BoundStatement> bound;
};

/// The index join of `text` (one SELECT) read through a global index (`read`, not covering): a
/// Lookup whose source is the entries' keys, read from the index's shards (`index_shards`) one
/// shard after another, and whose second step is the statement narrowed to those keys
/// (routing::read_of_keys) on the shards owning them, merged as a SELECT of the table is.
awaitable<ExecResult<std::unique_ptr<Operator>>> make_index_join(routing::IndexRead read,
                                                                 std::vector<int> index_shards,
                                                                 std::string text,
                                                                 IndexJoinContext ctx);

}  // namespace pgrange::proxy::exec
