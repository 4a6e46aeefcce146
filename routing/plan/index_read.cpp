#include "routing/plan/index_read.hpp"

#include <algorithm>

#include "routing/plan/key_predicate.hpp"
#include "routing/plan/plan_description.hpp"
#include "sql/index_query.hpp"
#include "sql/quoting.hpp"

namespace pgrange::routing {

Result<IndexRead> plan_index_read(const ClusterView& view, const std::string& text,
                                  const Route::IndexLookup& lookup) {
  IndexRead read;
  read.table = view.find_table_id(lookup.table_id);
  if (read.table != nullptr) {
    for (const auto& i : read.table->indexes) {
      if (i.index_id == lookup.index_id) read.index = &i;
    }
  }
  if (read.index == nullptr) {
    return tl::unexpected(
        Error::make("40001", "the index the statement was planned with was dropped"));
  }
  const TableDescriptor& t = *read.table;
  read.relation = index_relation(t, *read.index);
  const TableDescriptor& rel = read.relation;
  // The index stores every column the query needs: the index alone answers it.
  auto use = sql::referenced_columns(text);
  read.covering =
      use && !use->star &&
      std::all_of(use->columns.begin(), use->columns.end(), [&](const std::string& c) {
        return std::find(rel.columns.begin(), rel.columns.end(), c) != rel.columns.end();
      });
  // The index's spans as a condition on its backend table, in the key space's (C) order: what
  // its local btree serves.
  std::string predicate;
  for (const Span& span : lookup.spans) {
    auto p = key_range_predicate(rel, span.start, span.end);
    if (!p) return tl::unexpected(p.error());
    predicate += (predicate.empty() ? "(" : " OR (") + *p + ")";
  }
  if (predicate.empty()) predicate = "false";
  if (read.covering) {
    // The statement itself on the index table, narrowed to the spans as well (its own text
    // comparisons may be in another collation than the btree's).
    auto rewritten = sql::select_from_relation(text, t.schema, rel.name);
    if (!rewritten) return tl::unexpected(rewritten.error());
    auto narrowed = sql::restrict_select(*rewritten, predicate);
    if (!narrowed) return tl::unexpected(narrowed.error());
    read.first_step_sql = std::move(*narrowed);
    return read;
  }
  // Else the keys of the entries in the index's spans.
  for (const auto& k : row_key_columns(t)) {
    read.key_columns += (read.key_columns.empty() ? "" : ", ") + sql::quote_ident(k.name);
  }
  read.first_step_sql =
      "SELECT " + read.key_columns + " FROM " + qualified_table_name(rel) + " WHERE " + predicate;
  return read;
}

std::vector<std::string> describe_index_read(const ClusterView& view, const IndexRead& read,
                                             const Route::IndexLookup& lookup) {
  std::vector<std::string> lines;
  std::string name = read.table->name + "@" + read.index->name;
  std::string ranges;
  for (size_t i : view.ranges().scan_spans(lookup.spans)) {
    const RangeDescriptor& r = view.ranges().at(i);
    ranges += (ranges.empty() ? "" : ", ") + std::to_string(r.range_id) + " (" + r.shard + ")";
  }
  if (read.covering) {
    lines.push_back("pgrange plan: global index " + name +
                    " stores every column the query uses: the index alone answers it");
  } else {
    lines.push_back("pgrange plan: index join through global index " + name + ", in two steps");
  }
  lines.push_back("  step 1: index " + name + ": " + describe_spans(lookup.spans, lookup.table_id) +
                  " → " + (ranges.empty() ? std::string("no range") : "ranges " + ranges));
  if (read.covering) {
    lines.push_back("  step 1 runs on the index's shards: " + read.first_step_sql);
  } else {
    lines.push_back("  step 1 reads the entries' keys (" + read.key_columns +
                    "): " + read.first_step_sql);
    lines.push_back("  step 2: table " + read.table->name +
                    ": the rows of those keys, from the shards owning them (batched per "
                    "shard: the statement with its WHERE and the keys), merged");
  }
  return lines;
}

Result<KeyedRead> read_of_keys(const ClusterView& view, const IndexRead& read,
                               const std::string& text,
                               const std::set<std::vector<std::optional<std::string>>>& keys) {
  const TableDescriptor& t = *read.table;
  std::set<int> shards;
  std::string in_list;
  for (const auto& values : keys) {
    auto key = point_key(t, values);
    if (!key) return tl::unexpected(key.error());
    if (const RangeDescriptor* r = view.ranges().lookup(*key)) {
      int shard = view.shard_index(r->shard);
      if (shard >= 0) shards.insert(shard);
    }
    std::string tuple;
    for (const auto& v : values) {
      tuple += (tuple.empty() ? "" : ", ") + (v ? sql::quote_literal(*v) : std::string("NULL"));
    }
    in_list += (in_list.empty() ? "(" : ", (") + tuple + ")";
  }
  std::string condition =
      in_list.empty() ? std::string("false") : "(" + read.key_columns + ") IN (" + in_list + ")";
  if (shards.empty()) {
    // No entry: one shard answers (no row, or the aggregates of none) with the right columns.
    auto ranges = view.table_ranges(t.table_id);
    if (!ranges.empty()) shards.insert(view.shard_index(view.ranges().at(ranges[0]).shard));
  }
  auto restricted = sql::restrict_select(text, condition);
  if (!restricted) return tl::unexpected(restricted.error());
  return KeyedRead{std::vector<int>(shards.begin(), shards.end()), std::move(*restricted)};
}

}  // namespace pgrange::routing
