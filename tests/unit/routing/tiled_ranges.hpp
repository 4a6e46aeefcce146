#pragma once

#include <string>
#include <utility>
#include <vector>

#include "routing/keys/key_space.hpp"
#include "routing/ranges/range_map.hpp"

namespace pgrange::routing {

/// Ranges that tile the key space from `bounds` (each range's start key and shard, in key
/// order; the first should start at /Min): range ids 1, 2, … in that order, each ending where
/// the next starts, the last at /Max. For test fixtures' range maps.
inline std::vector<RangeDescriptor> tiled_ranges(
    const std::vector<std::pair<std::string, std::string>>& bounds) {
  std::vector<RangeDescriptor> out;
  for (size_t i = 0; i < bounds.size(); ++i) {
    RangeDescriptor r;
    r.range_id = i + 1;
    r.start_key = bounds[i].first;
    r.end_key = i + 1 < bounds.size() ? bounds[i + 1].first : std::string(kMaxKey);
    r.shard = bounds[i].second;
    out.push_back(r);
  }
  return out;
}

}  // namespace pgrange::routing
