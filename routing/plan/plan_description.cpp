#include "routing/plan/plan_description.hpp"

#include "routing/keys/pretty_key.hpp"

namespace pgrange::routing {
namespace {

bool is_point(const Span& s) {
  return s.end.size() == s.start.size() + 1 && s.end.back() == '\0' &&
         s.end.compare(0, s.start.size(), s.start) == 0;
}

std::string shard_list(const ClusterView& view, const std::vector<int>& shards) {
  std::string out;
  for (int i : shards) {
    if (!out.empty()) out += ", ";
    out += view.shard_name(i);
  }
  return out;
}

}  // namespace

std::string describe_spans(const SpanSet& spans, uint64_t table_id) {
  std::string out;
  for (const Span& s : spans) {
    if (!out.empty()) out += ", ";
    if (is_point(s)) {
      out += pretty_key_in_table(s.start, table_id);
    } else {
      out += "[" + pretty_key_in_table(s.start, table_id) + ", " +
             pretty_key_in_table(s.end, table_id) + ")";
    }
  }
  return out;
}

std::string describe_table_route(const TableRoute& t) {
  std::string out = "table " + t.table + ": ";
  bool several = t.spans.size() > 1;
  switch (t.reach) {
    case TableRoute::Reach::kPoints:
      out += std::string(several ? "points " : "point ") + describe_spans(t.spans, t.table_id);
      break;
    case TableRoute::Reach::kSpans:
      if (t.spans.empty()) {
        out += "no span";
      } else {
        out += std::string(several ? "spans " : "span ") + describe_spans(t.spans, t.table_id);
      }
      break;
    case TableRoute::Reach::kWholeTable:
      out += "whole table";
      break;
  }
  if (t.ranges.empty()) return out + " → no range";
  out += t.ranges.size() > 1 ? " → ranges " : " → range ";
  for (size_t i = 0; i < t.ranges.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(t.ranges[i].range_id) + " (" + t.ranges[i].shard + ")";
  }
  return out;
}

/// What a key-moving UPDATE adds to its plan's summary.
constexpr const char* kMovesRows =
    "; a row whose new key another shard owns moves there (deleted, inserted) in the statement's "
    "transaction";

std::string describe_plan_summary(const ClusterView& view, const Route& route) {
  std::string out = "pgrange plan: ";
  if (route.refusal) {
    return out + "refused (SQLSTATE " + route.refusal->sqlstate + "): " + route.refusal->message;
  }
  if (route.shards.empty()) {
    if (route.explanation.empty()) {
      return out + "no pgrange table: the session's shard (or the first) runs it";
    }
    return out + "no range can hold a matching row: the session's shard (or the first) answers";
  }
  if (route.shards.size() == 1) {
    out += "single shard " + shard_list(view, route.shards);
    if (route.explanation.size() == 1) {
      const TableRoute& t = route.explanation.front();
      if (t.reach == TableRoute::Reach::kPoints && t.spans.size() == 1 && t.ranges.size() == 1 &&
          !t.reasons.empty() && t.reasons.back().effect == "point") {
        out += " (point " + t.reasons.back().condition + ", range " +
               std::to_string(t.ranges.front().range_id) + ")";
      }
    }
    if (route.moves_keys) out += kMovesRows;
    return out;
  }
  out += "fan-out to " + std::to_string(route.shards.size()) + " shards (" +
         shard_list(view, route.shards) + ")";
  if (route.distributed_write) {
    out += ", one transaction on each, committed on all or none (two-phase commit)";
    if (route.moves_keys) out += kMovesRows;
  } else if (route.sum_counts) {
    out += ", counts summed";
  } else if (route.fanout_select) {
    out += ", rows concatenated";
  }
  return out;
}

std::vector<std::string> describe_route(const ClusterView& view, const Route& route,
                                        size_t statement_count,
                                        std::span<const std::string> merge_lines) {
  std::vector<std::string> lines{describe_plan_summary(view, route)};
  if (route.refusal && !route.refusal->hint.empty()) {
    lines.push_back("  hint: " + route.refusal->hint);
  }
  for (const TableRoute& t : route.explanation) {
    std::string head = "  ";
    if (statement_count > 1) head += "statement " + std::to_string(t.statement + 1) + ", ";
    lines.push_back(head + describe_table_route(t));
    for (const RouteReason& r : t.reasons) lines.push_back("  reason: " + r.text());
  }
  for (const std::string& m : merge_lines) lines.push_back("  merge: " + m);
  return lines;
}

std::vector<std::string> describe_plan(const ClusterView& view,
                                       std::span<const sql::StatementInfo> statements,
                                       const BindParams* params,
                                       std::span<const std::string> merge_lines) {
  Route route = explain_statements(view, statements, params);
  return describe_route(view, route, statements.size(), merge_lines);
}

}  // namespace pgrange::routing
