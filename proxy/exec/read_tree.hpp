#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>  // before asio/awaitable.hpp (Boost 1.74)
#include <vector>

#include "common/error.hpp"
#include "proxy/asio.hpp"
#include "proxy/backend/backend_connection.hpp"
#include "proxy/exec/gather_run.hpp"
#include "proxy/exec/merge_build.hpp"
#include "proxy/exec/operator.hpp"
#include "routing/meta/cluster_view.hpp"
#include "routing/plan/copy_plan.hpp"
#include "routing/plan/gather_plan.hpp"
#include "routing/plan/router.hpp"
#include "sql/merge_query.hpp"

namespace pgrange::proxy::exec {

/// A read over several shards as the planner left it: the tables a gather reads (`gather`),
/// else one table's route (a global index's spans in `route.index_lookup`) and the merge of
/// its shards' answers.
struct ReadPlan {
  const routing::Route* route = nullptr;
  std::shared_ptr<const Result<sql::MergeQuery>> merge;
  const routing::GatherPlan* gather = nullptr;
  /// The statement's text, for a read through a global index; empty: the index is not used
  /// (inside a transaction block, whose parts hold what it wrote, the route's shards answer).
  std::string statement;
  /// A COPY … TO STDOUT of a table: its steps (then nothing else here is used).
  const routing::CopyOutPlan* copy_out = nullptr;
  /// COPY (query) TO STDOUT: the query's rows (the rest of this plan) written as this COPY
  /// writes them (CopyEncode under a CopyOut).
  const sql::CopyOptions* copy_rows = nullptr;
};

/// What making a read's tree needs from the client's session.
struct ReadContext {
  /// The view the read was planned with.
  std::shared_ptr<const routing::ClusterView> view;
  /// A connection to a shard (pool index) for the read: a transaction block's part
  /// (`in_block`), or one the session holds until the statement ends. The operators give it
  /// the session's settings.
  std::function<awaitable<Result<BackendConnection*>>(int)> connection;
  bool in_block = false;
  /// The plan of a SELECT over a table read from that many shards (IndexJoinContext's).
  std::function<std::shared_ptr<const Result<sql::MergeQuery>>(
      const std::string& sql, const routing::TableDescriptor&, size_t shards)>
      merge_plan;
  ShardSession session;
  /// The client's Parse and Bind (extended protocol).
  std::optional<BoundStatement> bound;
  /// The context of `plan.gather`'s Gather, kept by the caller while the tree runs.
  GatherContext* gather = nullptr;
};

/// The tree of operators of a read over several shards: a COPY table TO's steps one after the
/// other (make_copy_out); a Gather of several tables; a read
/// through a global index (its entries, then the rows they name: an index join; or the index
/// alone when it stores every column the query uses); else a Merge of the route's shards'
/// answers. For a COPY (query) TO, that tree under a CopyEncode and a CopyOut.
awaitable<ExecResult<std::unique_ptr<Operator>>> make_read_tree(const ReadPlan& plan,
                                                                ReadContext ctx);

}  // namespace pgrange::proxy::exec
