#include "routing/moves/range_data.hpp"

#include <charconv>

#include "routing/moves/shard_link.hpp"
#include "routing/plan/key_predicate.hpp"

namespace pgrange::routing {
namespace {

int64_t to_int64(const char* text) {
  int64_t v = 0;
  std::string_view s(text);
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

}  // namespace

Result<RangeStats> range_stats(const std::string& dsn, const TableDescriptor& table,
                               std::string_view start_key, std::string_view end_key) {
  auto pred = key_range_predicate(table, start_key, end_key);
  if (!pred) return tl::unexpected(pred.error());
  auto conn = shard_link::connect(dsn, "");
  if (!conn) return tl::unexpected(conn.error());
  auto r =
      shard_link::exec(conn->get(),
                       "SELECT count(*), coalesce(sum(pg_column_size(pgrange_t.*)), 0) FROM ONLY " +
                           qualified_table_name(table) + " AS pgrange_t WHERE " + *pred,
                       "counting the rows of a range");
  if (!r) return tl::unexpected(r.error());
  RangeStats stats;
  stats.row_count = to_int64(PQgetvalue(r->get(), 0, 0));
  stats.bytes = to_int64(PQgetvalue(r->get(), 0, 1));
  return stats;
}

}  // namespace pgrange::routing
