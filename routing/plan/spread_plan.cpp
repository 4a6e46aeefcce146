// How a statement over several shards is answered: a merge, a gather, or the route as it is.

#include "routing/plan/spread_plan.hpp"

#include <algorithm>
#include <utility>

#include "routing/keys/key_space.hpp"

namespace pgrange::routing {

namespace {

/// Whether every partition of windows partitioned by `partition` (columns of `t`) has its rows
/// on one shard: each boundary between ranges of `t` on different shards splits the key at a
/// prefix of columns the partitions all name (a hash-sharded key's bucket: its columns named).
bool partitions_stay_together(const ClusterView& view, const TableDescriptor& t,
                              const std::vector<std::string>& partition) {
  auto named = [&](const std::string& c) {
    return std::find(partition.begin(), partition.end(), c) != partition.end();
  };
  size_t covered = 0;
  for (size_t i = 0; i < t.key.size(); ++i) {
    bool ok = true;
    if (i == 0 && t.hash_buckets > 0) {
      for (const KeyColumnDef& h : hashed_key_columns(t)) ok = ok && named(h.name);
    } else {
      ok = named(t.key[i].name);
    }
    if (!ok) break;
    ++covered;
  }
  if (covered == 0 || t.key.empty()) return false;
  std::vector<KeyColumn> columns;
  for (const KeyColumnDef& k : t.key) columns.push_back(k.column);
  const std::string start = index_prefix(t.table_id, 1);
  const std::vector<size_t> ranges = view.table_ranges(t.table_id);
  for (size_t j = 1; j < ranges.size(); ++j) {
    const RangeDescriptor& before = view.ranges().at(ranges[j - 1]);
    const RangeDescriptor& r = view.ranges().at(ranges[j]);
    if (before.shard == r.shard || r.start_key <= start) continue;
    auto values = decode_key_text(r.start_key, columns);
    if (!values || values->size() > covered) return false;
  }
  return true;
}

}  // namespace

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
      if (*p.merge && (*p.merge)->window_partition &&
          (route.joined || t == &view_rows || route.index_lookup ||
           !partitions_stay_together(view, *t, *(*p.merge)->window_partition))) {
        // A partition with rows on several shards: no shard computes its windows alone, so
        // pgrange does, over the shards' rows merged in the windows' order, or the table's rows
        // are gathered. Not over a join or a global index's reads, whose rows are not the
        // table's on each shard.
        auto in_pgrange = (*p.merge)->windows_in_pgrange;
        bool table_rows = !route.joined && t != &view_rows && !route.index_lookup;
        p.merge = table_rows && in_pgrange && *in_pgrange
                      ? in_pgrange
                      : std::make_shared<const Result<sql::MergeQuery>>(
                            tl::unexpected(not_supported("window functions whose partitions span "
                                                         "several shards are not supported")));
      }
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
