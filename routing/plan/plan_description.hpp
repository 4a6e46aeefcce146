#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "routing/meta/cluster_view.hpp"
#include "routing/plan/router.hpp"
#include "sql/statement_info.hpp"

namespace pgrange::routing {

/// Where pgrange would run the statements and why, as lines in the style of PostgreSQL's
/// EXPLAIN text output (what `EXPLAIN <statement>` through pgrange shows), e.g.
///
///   pgrange plan: fan-out to 2 shards (s1, s3), rows concatenated
///     table items: spans […/1/100, …/1/200/PrefixEnd) → ranges 7 (s1), 8 (s3)
///     reason: id >= 100 → span
///     reason: id <= 200 → span
///
///   pgrange plan: single shard s2 (point id = 5, range 12)
///     table items: point …/1/5 → range 12 (s2)
///     reason: id = 5 → point
///
///   pgrange plan: refused (SQLSTATE 0A000): DELETE touching several shards (…) is not …
///     hint: give every key column with = so that the statement runs on one shard
///     table items: …
///
/// The first line says what runs where; then, per statement and pgrange table, the key spans
/// (printed relative to the table, as SHOW RANGES FROM TABLE does), the ranges they overlap and
/// the reasons. `merge_lines` (how the shards' results are combined) end the description, each
/// as "  merge: <line>".
std::vector<std::string> describe_plan(const ClusterView& view,
                                       std::span<const sql::StatementInfo> statements,
                                       const BindParams* params = nullptr,
                                       std::span<const std::string> merge_lines = {});

/// describe_plan of a Route made by explain_statements for `statement_count` statements.
std::vector<std::string> describe_route(const ClusterView& view, const Route& route,
                                        size_t statement_count,
                                        std::span<const std::string> merge_lines = {});

/// The first line alone ("pgrange plan: single shard s2 (point id = 5, range 12)").
std::string describe_plan_summary(const ClusterView& view, const Route& route);

/// One table of one statement: "table items: spans [a, b), [c, d) → ranges 2 (s1), 3 (s2)";
/// "point …/1/5", "points …/1/5, …/1/7", "whole table", "no span" (a contradiction) and
/// "no range" as they apply.
std::string describe_table_route(const TableRoute& table);

/// The spans alone, as in describe_table_route: a point span as its key, others as
/// "[start, end)", keys relative to the table.
std::string describe_spans(const SpanSet& spans, uint64_t table_id);

}  // namespace pgrange::routing
