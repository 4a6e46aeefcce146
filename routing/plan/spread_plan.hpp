#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string_view>

#include "common/error.hpp"
#include "routing/meta/cluster_view.hpp"
#include "routing/meta/table_sizes.hpp"
#include "routing/plan/gather_plan.hpp"
#include "routing/plan/router.hpp"
#include "sql/merge_query.hpp"
#include "sql/statement_info.hpp"

namespace pgrange::routing {

/// How pgrange answers a statement the router sent to several shards, or refused for reading
/// tables spread over them: a merge of the shards' answers (one table, or one joined with
/// tables that are whole or co-located on every shard it reaches), or a gather (several spread
/// tables, or what no merge computes over one table). Neither: the shards' answers are passed
/// on as they are (the route's fan-out), or the statement runs where the route says.
struct SpreadPlan {
  std::shared_ptr<const Result<sql::MergeQuery>> merge;
  std::shared_ptr<const GatherPlan> gather;
};

/// The merge of a SELECT over the rows of `table` (sql::plan_merge, or a cache of it), shared.
using SharedMergePlanner = std::function<std::shared_ptr<const Result<sql::MergeQuery>>(
    std::string_view sql, const TableDescriptor& table)>;

/// Plans how a statement routed as `route` (route_statements of `statements`) is answered over
/// several shards: what the client's session runs, and what EXPLAIN describes. `text` is the
/// query string (empty: not known, nothing is merged or gathered); `params` the Bind's values
/// (LIMIT/OFFSET $n, conditions pushed down); `several`: the cluster has more than one shard.
/// Where a merge or a gather answers what the router refused, route.refusal is cleared; the
/// error is why the statement is refused when neither can answer it.
Result<SpreadPlan> plan_spread(const ClusterView& view,
                               std::span<const sql::StatementInfo> statements,
                               std::string_view text, const BindParams* params,
                               const TableSizes* sizes, bool several,
                               const SharedMergePlanner& merge_plan, Route& route);

/// `merge` with its `LIMIT $n` / `OFFSET $n` set from the Bind's values (`params`; the plan
/// unchanged without them), or PostgreSQL's error for a negative one.
std::shared_ptr<const Result<sql::MergeQuery>> bind_merge_bounds(
    std::shared_ptr<const Result<sql::MergeQuery>> merge, const BindParams* params);

}  // namespace pgrange::routing
