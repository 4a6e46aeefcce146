#include "routing/plan/write_plan.hpp"

#include <vector>

#include "sql/insert_rows.hpp"

namespace pgrange::routing {

Result<std::map<int, std::string>> shard_statements(const std::string& text,
                                                    const sql::StatementInfo& info,
                                                    const Route& route) {
  std::map<int, std::string> out;
  if (route.shards.size() > 1 && info.kind == sql::StatementKind::kInsert && !route.replicated) {
    std::map<int, std::vector<size_t>> rows;
    for (size_t r = 0; r < route.row_shards.size(); ++r) rows[route.row_shards[r]].push_back(r);
    // Each shard's rows cut out of the text (one scan), else written from its parse tree.
    auto spans = sql::values_row_spans(text);
    if (spans && spans->size() == route.row_shards.size()) {
      for (const auto& [shard, indexes] : rows) {
        out[shard] = sql::insert_with_row_spans(text, *spans, indexes);
      }
      return out;
    }
    for (const auto& [shard, indexes] : rows) {
      auto shard_sql = sql::insert_with_rows(text, indexes);
      if (!shard_sql) return tl::unexpected(shard_sql.error());
      out[shard] = std::move(*shard_sql);
    }
    return out;
  }
  for (int shard : route.shards) out[shard] = text;
  return out;
}

}  // namespace pgrange::routing
