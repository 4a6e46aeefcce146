#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "proxy/observe/proxy_snapshot.hpp"

namespace pgrange::proxy {

/// What the control plane knows that the metrics show: the range map and what this process did
/// to it, and the ranges with the most requests.
struct ClusterFigures {
  bool available = false;  ///< the metadata store was open (the rest is empty when not)
  int64_t range_map_version = -1;
  uint64_t two_phase_commits = 0;
  uint64_t recovered_transactions = 0;
  uint64_t range_splits = 0;
  uint64_t range_merges = 0;
  uint64_t range_moves = 0;
  std::vector<std::pair<std::string, int64_t>> ranges_per_shard;
  struct HotRange {
    std::string range_id, table, index, shard;
    double read_qps = 0;
    double write_qps = 0;
  };
  std::vector<HotRange> hot;  ///< the busiest ranges, busiest first (those with requests)
};

/// The whole process's figures in Prometheus' text exposition format (version 0.0.4), every
/// name prefixed pgrange_. `shards`: the shard names by index; `paused`: which are PAUSEd.
std::string render_metrics(const ProxySnapshot& snap, const ClusterFigures& cluster,
                           const std::vector<std::string>& shards, const std::vector<bool>& paused,
                           std::chrono::system_clock::time_point started);

/// A label value escaped as the text format wants (backslash, double quote, newline).
std::string escape_label(std::string_view value);

}  // namespace pgrange::proxy
