#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "routing/cluster_view.hpp"
#include "routing/range_activity.hpp"
#include "sql/statement_info.hpp"

namespace pgrange::routing {

/// Where the statements of one client message must run.
struct Route {
  /// Pool indexes of the shards, ascending; empty when no pgrange table is involved (any
  /// shard will do: the session's current one, or the first).
  std::vector<int> shards;
  /// The ranges used on those shards (for range moves to wait on).
  std::vector<RangeActivity::Use> uses;
  /// Several shards and one plain SELECT whose shard results can simply be concatenated.
  bool fanout_select = false;
  /// …or a SELECT count(…) whose answer is the sum of the shards' counts.
  bool sum_counts = false;
  /// Why this cannot run (0A000 naming the construct), when it cannot.
  std::optional<Error> refusal;
  /// Some statement writes (INSERT, UPDATE, DELETE, COPY FROM).
  bool writes = false;
};

/// The parameter values of a Bind message, for routing by `$n` on key columns.
struct BindParams {
  std::vector<int16_t> formats;  ///< none: all text; one: for all; else one per parameter
  std::vector<std::optional<std::string_view>> values;  ///< nullopt = NULL
  /// Parameter n (1-based) as PostgreSQL's text form of a `type` value; nullopt when it is
  /// missing, NULL, or its binary form does not decode as `type`.
  std::optional<std::string> text(int n, KeyType type) const;
};

/// Routes the analysed statements of one message with the view: a statement that gives every
/// key column by `=` (or an INSERT whose VALUES rows give them) goes to the shard owning that
/// key; any other statement on a pgrange table goes to every shard holding one of its ranges.
/// Statements on tables pgrange does not know are not constrained.
Route route_statements(const ClusterView& view, std::span<const sql::StatementInfo> statements,
                       const BindParams* params = nullptr);

/// The encoded primary key of a row given as text values of all key columns, for lookups.
Result<std::string> point_key(const TableDescriptor& table,
                              std::span<const std::optional<std::string>> values);

}  // namespace pgrange::routing
