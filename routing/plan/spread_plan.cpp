// How a statement over several shards is answered: a merge, a gather, or the route as it is.

#include "routing/plan/spread_plan.hpp"

#include <utility>

namespace pgrange::routing {

std::shared_ptr<const Result<sql::MergeQuery>> bind_merge_bounds(
    std::shared_ptr<const Result<sql::MergeQuery>> merge, const BindParams* params) {
  if (params == nullptr || !*merge || ((*merge)->limit_param == 0 && (*merge)->offset_param == 0)) {
    return merge;
  }
  auto bound = sql::bind_bounds(**merge, [&](int n) { return params->bigint(n); });
  return std::make_shared<const Result<sql::MergeQuery>>(std::move(bound));
}

Result<SpreadPlan> plan_spread(const ClusterView& view,
                               std::span<const sql::StatementInfo> statements,
                               std::string_view text, const BindParams* params,
                               const TableSizes* sizes, bool several,
                               const SharedMergePlanner& merge_plan, Route& route) {
  SpreadPlan p;
  auto merges = [&merge_plan](std::string_view sql, const TableDescriptor& rows) {
    return *merge_plan(sql, rows);
  };
  if ((route.refusal || route.fanout_select) && mergeable_select(statements, route) &&
      !text.empty()) {
    const sql::TableRef& one = statements[0].tables[0];
    // A spread table joined with reference tables: merged as that table's rows.
    const TableDescriptor* t =
        route.joined ? &*route.joined : view.find_table(one.schema, one.name);
    // A plain view of a table spread over shards: its columns are not the table's, so the merge
    // knows neither key nor columns, and GROUP BY (whose names may be columns of the view) is
    // not merged.
    TableDescriptor view_rows;
    if (t == nullptr && view.find_view(one.schema, one.name) != nullptr) {
      view_rows.name = one.name;
      t = &view_rows;
    }
    if (t != nullptr) {
      p.merge = merge_plan(text, *t);
      if (!*p.merge && route.joined) {
        // What a merge cannot answer over the join is gathered (below).
        p.merge.reset();
      } else if (!*p.merge && t != &view_rows && statements.size() == 1 && several &&
                 !route.writes && !route.several_statements) {
        // What no merge of the shards' answers computes (a window function, DISTINCT ON, an
        // aggregate pgrange does not combine…): PostgreSQL computes it over the table's rows,
        // read into one shard (a gather of one table), or the merge's refusal stands.
        auto gather = plan_gather_one_table(view, statements[0], text, params, sizes, merges);
        if (!gather) return tl::unexpected(p.merge->error());
        p.merge.reset();
        p.gather = std::make_shared<const GatherPlan>(std::move(*gather));
        route.refusal.reset();
      } else if (!*p.merge) {
        return tl::unexpected(p.merge->error());
      }
    }
    if (t != nullptr && p.merge) {
      p.merge = bind_merge_bounds(std::move(p.merge), params);
      if (!*p.merge) return tl::unexpected(p.merge->error());
      if (t == &view_rows && (*p.merge)->mode == sql::MergeQuery::Mode::kAggregate &&
          (*p.merge)->group_columns > 0) {
        return tl::unexpected(not_supported("GROUP BY over view \"" + one.name +
                                            "\" of a table spread across several shards is not "
                                            "supported yet"));
      }
      route.refusal.reset();
    }
  }
  if (statements.size() == 1 && !p.merge && !p.gather && several && !text.empty() &&
      gatherable(statements[0], route)) {
    // Several tables over several shards (joins, subqueries, CTEs, set operations): pgrange
    // reads each table's rows and runs the statement on one shard with them.
    auto gather = plan_gather(view, statements[0], text, params, sizes, merges);
    if (!gather) return tl::unexpected(gather.error());
    p.gather = std::make_shared<const GatherPlan>(std::move(*gather));
    route.refusal.reset();
  }
  return p;
}

}  // namespace pgrange::routing
