// The planning side of a join pgrange runs itself, per statement: the statement's analysis,
// its routing, the gather plan, and the merge a broadcast join would be planned with (what a
// gathered join costs pgrange before any shard is asked).

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "routing/keys/key_space.hpp"
#include "routing/meta/cluster_view.hpp"
#include "routing/plan/gather_plan.hpp"
#include "routing/plan/router.hpp"
#include "sql/merge_query.hpp"
#include "sql/statement_info.hpp"
#include "sql/statement_shape.hpp"

namespace {

using namespace pgrange;

/// users split at 30 and 60 over s1, s2, s3; orders keyed by id, split at 1000 and 2000.
std::shared_ptr<const routing::ClusterView> cluster() {
  routing::MetadataSnapshot snap;
  snap.version = 1;
  for (const char* s : {"s1", "s2", "s3"}) snap.shards.push_back({s, std::string("dsn-") + s});
  routing::TableDescriptor users;
  users.table_id = 100;
  users.name = "users";
  users.key_source = routing::KeySource::kPrimaryKey;
  users.key = {{"id", routing::KeyColumn{routing::KeyType::kInt8}}};
  users.columns = {"id", "name", "city"};
  routing::TableDescriptor orders = users;
  orders.table_id = 101;
  orders.name = "orders";
  orders.columns = {"id", "user_id", "amount"};
  snap.tables = {users, orders};
  auto key = [](uint64_t table, std::optional<int64_t> v) {
    if (!v) return routing::table_prefix(table);
    const std::string text = std::to_string(*v);
    std::vector<routing::KeyColumn> columns = {routing::KeyColumn{routing::KeyType::kInt8}};
    std::vector<std::optional<std::string_view>> values = {text};
    return *routing::encode_key_text(table, 1, columns, values);
  };
  uint64_t id = 1;
  std::string at(routing::kMinKey);
  auto add = [&](std::string start, std::string end, const char* shard) {
    snap.ranges.push_back({id++, std::move(start), std::move(end), shard, 1, {}});
  };
  add(at, key(100, std::nullopt), "s1");
  add(key(100, std::nullopt), key(100, 30), "s1");
  add(key(100, 30), key(100, 60), "s2");
  add(key(100, 60), key(101, std::nullopt), "s3");
  add(key(101, std::nullopt), key(101, 1000), "s1");
  add(key(101, 1000), key(101, 2000), "s2");
  add(key(101, 2000), key(102, std::nullopt), "s3");
  add(key(102, std::nullopt), std::string(routing::kMaxKey), "s1");
  auto view = routing::ClusterView::build(std::move(snap), {"s1", "s2", "s3"});
  return view ? *view : nullptr;
}

const std::string kLookup =
    "SELECT o.id, o.amount, u.name FROM orders o JOIN users u ON u.id = o.user_id "
    "WHERE o.id BETWEEN 100 AND 120";

void BM_AnalyzeAndRoute(benchmark::State& state) {
  auto view = cluster();
  for (auto _ : state) {
    auto infos = sql::analyze_statements(kLookup);
    auto route = routing::route_statements(*view, *infos);
    benchmark::DoNotOptimize(route);
  }
}

// Routing alone (the worker caches a statement's analysis by its shape): a point join of two
// tables against a point read of one.
void BM_RouteAnalysed(benchmark::State& state, const std::string& sql) {
  auto view = cluster();
  auto infos = sql::analyze_statements(sql);
  for (auto _ : state) {
    auto route = routing::route_statements(*view, *infos);
    benchmark::DoNotOptimize(route);
  }
}
BENCHMARK_CAPTURE(BM_RouteAnalysed, join_point,
                  std::string("SELECT u.name, o.amount FROM users u JOIN orders o ON o.id = u.id "
                              "WHERE u.id = 7"));
BENCHMARK_CAPTURE(BM_RouteAnalysed, one_table_point,
                  std::string("SELECT name FROM users WHERE id = 7"));

// The worker's analysis of a text whose shape it has seen (the literal changes each time).
void BM_CachedAnalysis(benchmark::State& state, const std::string& before,
                       const std::string& after) {
  sql::AnalysisCache cache;
  int64_t n = 0;
  for (auto _ : state) {
    auto a = cache.analyze(before + std::to_string(1 + n++ % 1000) + after);
    benchmark::DoNotOptimize(a);
  }
  state.SetLabel(std::to_string(cache.parses()) + " parses");
}
BENCHMARK_CAPTURE(BM_CachedAnalysis, join_point,
                  std::string("SELECT u.name, o.amount FROM users u JOIN orders o ON o.id = u.id "
                              "WHERE u.id = "),
                  std::string(""));
BENCHMARK_CAPTURE(BM_CachedAnalysis, one_table_point,
                  std::string("SELECT name FROM users WHERE id = "), std::string(""));

void BM_PlanGather(benchmark::State& state) {
  auto view = cluster();
  auto infos = sql::analyze_statements(kLookup);
  for (auto _ : state) {
    auto plan = routing::plan_gather(*view, infos->front(), kLookup, nullptr);
    benchmark::DoNotOptimize(plan);
  }
  state.SetLabel(routing::plan_gather(*view, infos->front(), kLookup, nullptr)->broadcast
                     ? "broadcast planned"
                     : "no broadcast");
}

void BM_PlanMergeOfJoin(benchmark::State& state) {
  const std::string marked =
      "SELECT o.id, o.amount, u.name FROM orders o JOIN (SELECT * FROM unnest(CAST('pgrange rows "
      "of input 0' AS \"public\".\"users\"[]))) AS u ON u.id = o.user_id WHERE o.id BETWEEN 100 "
      "AND 120";
  std::vector<std::string> columns = {"id", "name", "city", "user_id", "amount"};
  for (auto _ : state) {
    auto merge = sql::plan_merge(marked, {}, columns);
    benchmark::DoNotOptimize(merge);
  }
}

}  // namespace

BENCHMARK(BM_AnalyzeAndRoute);
BENCHMARK(BM_PlanGather);
BENCHMARK(BM_PlanMergeOfJoin);
BENCHMARK_MAIN();
