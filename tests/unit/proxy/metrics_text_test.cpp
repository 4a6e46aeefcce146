#include "proxy/observe/metrics_text.hpp"

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

#include "proxy/observe/worker_stats.hpp"

namespace pgrange::proxy {
namespace {

/// The samples of an exposition: "name{labels}" → value (every line checked for its shape).
std::map<std::string, double> samples(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto space = line.rfind(' ');
    EXPECT_NE(space, std::string::npos) << line;
    EXPECT_EQ(line.rfind("pgrange_", 0), 0u) << line;
    out[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  return out;
}

TEST(WorkerStats, HistogramBucketsByUpperBound) {
  WorkerStats w(2);
  w.count_request(RouteKind::kSingleShard, true, 100);       // ≤ 100 µs: the first bucket
  w.count_request(RouteKind::kSingleShard, true, 101);       // the second
  w.count_request(RouteKind::kSingleShard, true, 20000000);  // past the last bound: +Inf
  w.count_request(RouteKind::kSingleShard, false, 0);        // counted, not timed
  w.count_request(RouteKind::kFanOut, true, 3000);
  w.shard(1).requests.add(3);
  w.count_error("42P01");
  w.count_error("42P01");
  StatsTotals t;
  w.add_to(t);
  w.add_to(t);  // two workers alike
  auto single = static_cast<size_t>(RouteKind::kSingleShard);
  EXPECT_EQ(t.queries[single], 8u);
  EXPECT_EQ(t.latency[single].count, 6u);
  EXPECT_EQ(t.latency[single].buckets[0], 2u);
  EXPECT_EQ(t.latency[single].buckets[1], 2u);
  EXPECT_EQ(t.latency[single].buckets.back(), 2u);
  EXPECT_EQ(t.latency[single].sum_us, 2u * (100 + 101 + 20000000));
  EXPECT_EQ(t.shards.size(), 2u);
  EXPECT_EQ(t.shards[1].requests, 6u);
  EXPECT_EQ(t.errors["42P01"], 4u);
}

TEST(WorkerStats, ShardsAddedKeepTheCountersThereAre) {
  WorkerStats w(2);
  ShardCounters* first = &w.shard(0);
  w.shard(0).requests.add(5);
  w.add_shards(4);  // RELOAD added two shards
  EXPECT_EQ(&w.shard(0), first) << "pools keep pointers to their shard's counters";
  w.shard(3).errors.add(2);
  w.add_shards(3);  // fewer: nothing removed
  StatsTotals t;
  w.add_to(t);
  ASSERT_EQ(t.shards.size(), 4u);
  EXPECT_EQ(t.shards[0].requests, 5u);
  EXPECT_EQ(t.shards[3].errors, 2u);
  EXPECT_EQ(t.shards[2].requests, 0u);
}

TEST(MetricsText, CumulativeBucketsAndEscapedLabels) {
  WorkerStats w(1);
  w.count_request(RouteKind::kFanOut, true, 50);
  w.count_request(RouteKind::kFanOut, true, 700);
  w.count_request(RouteKind::kFanOut, true, 30000000);
  ProxySnapshot snap;
  w.add_to(snap.stats);
  ClientRow idle;
  idle.state = "idle";
  snap.clients = {idle, idle};
  ServerRow active;
  active.shard = "s\"1";
  active.state = "active";
  snap.servers = {active};
  ClusterFigures cluster;
  cluster.available = true;
  cluster.range_map_version = 7;
  cluster.ranges_per_shard = {{"s\"1", 3}};
  cluster.hot.push_back({"5", "t\\x", "primary", "s\"1", 2.5, 0.5});
  std::string text =
      render_metrics(snap, cluster, {"s\"1"}, {true}, std::chrono::system_clock::from_time_t(1000));
  auto m = samples(text);
  EXPECT_EQ(m["pgrange_query_duration_seconds_bucket{route=\"fan_out\",le=\"0.0001\"}"], 1);
  EXPECT_EQ(m["pgrange_query_duration_seconds_bucket{route=\"fan_out\",le=\"0.001\"}"], 2);
  EXPECT_EQ(m["pgrange_query_duration_seconds_bucket{route=\"fan_out\",le=\"10\"}"], 2);
  EXPECT_EQ(m["pgrange_query_duration_seconds_bucket{route=\"fan_out\",le=\"+Inf\"}"], 3);
  EXPECT_EQ(m["pgrange_query_duration_seconds_count{route=\"fan_out\"}"], 3);
  EXPECT_NEAR(m["pgrange_query_duration_seconds_sum{route=\"fan_out\"}"], 30.00075, 1e-9);
  EXPECT_EQ(m["pgrange_client_connections{state=\"idle\"}"], 2);
  EXPECT_EQ(m["pgrange_server_connections{shard=\"s\\\"1\",state=\"active\"}"], 1);
  EXPECT_EQ(m["pgrange_shard_paused{shard=\"s\\\"1\"}"], 1);
  EXPECT_EQ(m["pgrange_range_map_version"], 7);
  EXPECT_EQ(m["pgrange_start_time_seconds"], 1000);
  EXPECT_EQ(
      m["pgrange_range_qps{range_id=\"5\",table=\"t\\\\x\",index=\"primary\",shard=\"s\\\"1\","
        "kind=\"read\"}"],
      2.5);
  // Each family is declared once, before its samples.
  EXPECT_EQ(text.find("# TYPE pgrange_query_duration_seconds histogram"),
            text.rfind("# TYPE pgrange_query_duration_seconds histogram"));
  EXPECT_LT(text.find("# TYPE pgrange_queries_total counter"), text.find("pgrange_queries_total{"));
}

TEST(MetricsText, WithoutTheMetadataStoreTheRangeFiguresAreLeftOut) {
  ProxySnapshot snap;
  std::string text =
      render_metrics(snap, ClusterFigures{}, {"s1"}, {false}, std::chrono::system_clock::now());
  auto m = samples(text);
  EXPECT_EQ(m["pgrange_metadata_available"], 0);
  EXPECT_EQ(text.find("pgrange_range_map_version"), std::string::npos);
  EXPECT_EQ(m["pgrange_shard_requests_total{shard=\"s1\"}"], 0);
}

}  // namespace
}  // namespace pgrange::proxy
