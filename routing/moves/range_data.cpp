#include "routing/moves/range_data.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "routing/keys/key_space.hpp"
#include "routing/moves/shard_link.hpp"
#include "routing/plan/hash_sharding.hpp"
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

Result<std::string> middle_key(const std::string& dsn, const TableDescriptor& table,
                               std::string_view start_key, std::string_view end_key,
                               int64_t row_count) {
  auto pred = key_range_predicate(table, start_key, end_key);
  if (!pred) return tl::unexpected(pred.error());
  auto conn = shard_link::connect(dsn, "");
  if (!conn) return tl::unexpected(conn.error());
  // Values in the text forms the key encoding reads.
  auto set = shard_link::exec(conn->get(),
                              "SET TimeZone = 'UTC'; SET DateStyle = 'ISO'; SET IntervalStyle = "
                              "'postgres'; SET extra_float_digits = 3",
                              "setting up a read of a range's keys");
  if (!set) return tl::unexpected(set.error());
  constexpr int64_t kSampleRows = 100000;
  std::string sample;
  if (row_count > kSampleRows) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.6f",
                  100.0 * static_cast<double>(kSampleRows) / static_cast<double>(row_count));
    sample = std::string(" TABLESAMPLE BERNOULLI (") + pct + ")";
  }
  std::string cols;
  for (const std::string& c : key_column_sql(table)) {
    cols += (cols.empty() ? "" : ", ") + c + "::text";
  }
  auto r = shard_link::exec(conn->get(),
                            "SELECT " + cols + " FROM ONLY " + qualified_table_name(table) +
                                " AS pgrange_t" + sample + " WHERE " + *pred,
                            "reading the keys of a range");
  if (!r) return tl::unexpected(r.error());
  std::vector<KeyColumn> columns;
  for (const KeyColumnDef& k : table.key) columns.push_back(k.column);
  std::vector<std::string> keys;
  const int n = PQntuples(r->get());
  const int width = PQnfields(r->get());
  keys.reserve(static_cast<size_t>(n));
  std::vector<std::optional<std::string_view>> values(static_cast<size_t>(width));
  for (int i = 0; i < n; ++i) {
    for (int c = 0; c < width; ++c) {
      values[static_cast<size_t>(c)] =
          PQgetisnull(r->get(), i, c) ? std::nullopt
                                      : std::optional<std::string_view>(PQgetvalue(r->get(), i, c));
    }
    auto key = encode_key_text(table.table_id, table.index_id, columns, values);
    if (!key) return tl::unexpected(key.error());
    keys.push_back(std::move(*key));
  }
  std::sort(keys.begin(), keys.end());
  // The median row's key, unless no row lies before it (many rows of one key): then the first
  // key after it. Both sides keep rows.
  auto at = keys.end();
  if (!keys.empty()) {
    const std::string& median = keys[keys.size() / 2];
    at = std::lower_bound(keys.begin(), keys.end(), median);
    if (at == keys.begin()) at = std::upper_bound(keys.begin(), keys.end(), median);
  }
  if (at == keys.end() || *at <= start_key || *at >= end_key) {
    return tl::unexpected(Error::make(sqlstate::kInvalidParameterValue,
                                      "no key splits the range: one key holds all of its rows"));
  }
  return *at;
}

}  // namespace pgrange::routing
