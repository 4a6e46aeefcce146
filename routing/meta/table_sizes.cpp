#include "routing/meta/table_sizes.hpp"

#include <cmath>
#include <cstdio>

namespace pgrange::routing {

void TableSizes::add(const std::string& schema, const std::string& name, double rows,
                     int64_t bytes) {
  auto [it, fresh] = sizes_.try_emplace({schema, name});
  TableSize& s = it->second;
  if (fresh) {
    s = TableSize{rows < 0 ? -1 : rows, bytes};
    return;
  }
  s.rows = rows < 0 || s.rows < 0 ? -1 : s.rows + rows;
  s.bytes += bytes;
}

const TableSize* TableSizes::find(std::string_view schema, std::string_view name) const {
  auto it = sizes_.find(std::make_pair(std::string(schema), std::string(name)));
  return it == sizes_.end() ? nullptr : &it->second;
}

std::string describe_bytes(int64_t bytes) {
  char out[32];
  double b = static_cast<double>(bytes);
  if (b >= 1024.0 * 1024.0 * 1024.0) {
    std::snprintf(out, sizeof out, "%.1f GB", b / (1024.0 * 1024.0 * 1024.0));
  } else if (b >= 1024.0 * 1024.0) {
    std::snprintf(out, sizeof out, "%.1f MB", b / (1024.0 * 1024.0));
  } else {
    std::snprintf(out, sizeof out, "%.0f kB", std::ceil(b / 1024.0));
  }
  return out;
}

std::string describe_size(const TableSize& size) {
  if (size.rows < 0) return describe_bytes(size.bytes) + " (not analysed)";
  return std::to_string(static_cast<int64_t>(size.rows)) + " rows, " + describe_bytes(size.bytes);
}

}  // namespace pgrange::routing
