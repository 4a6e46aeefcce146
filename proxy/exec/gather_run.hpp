#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "proxy/asio.hpp"
#include "proxy/backend/backend_connection.hpp"
#include "routing/plan/gather_plan.hpp"

namespace pgrange::proxy::exec {

/// What running a gather plan (routing/plan/gather_plan.hpp) needs from the client's session.
struct GatherContext {
  /// A connection to a shard (pool index) for the statement: the transaction block's part
  /// there, or one the session holds until the statement ends.
  std::function<awaitable<Result<BackendConnection*>>(int)> connection;
  /// The shards a read of one table (SELECT … FROM t WHERE …) reaches: the router's answer.
  std::function<Result<std::vector<int>>(const std::string&)> route;
  /// Sends what `out` holds to the client (rows stream out while the shard sends them).
  std::function<awaitable<void>(std::string&)> flush;
  /// No transaction block holds the connections: each shard's reads run in one REPEATABLE READ
  /// transaction of the statement's own (one snapshot per shard), ended when it is done.
  bool own_transaction = false;
  /// Where the statement runs when that shard does (a part the block already has), else -1.
  int preferred_shard = -1;
  /// The most bytes of rows pgrange holds for the statement (query_memory).
  size_t memory_limit = 0;
  /// What gives the session's connections back the client's extra_float_digits after the reads
  /// set it to 3 (every float read exactly); empty when the session has PostgreSQL's default
  /// (1: floats are written exactly already), so nothing is set.
  std::string float_digits_sql;
  /// The extended protocol: the statement's Parse parameter types and its Bind after the
  /// statement name (formats, values, result formats); whether the client asked to Describe it.
  const std::string* parameter_types = nullptr;
  const std::string* bind_rest = nullptr;
  bool describe = true;
  /// Only read the inputs: the statement, with their rows written in, is the caller's to run
  /// (GatherOutcome::statement).
  bool inputs_only = false;
};

/// How it went: the rows sent, or a shard's ErrorResponse body, or pgrange's own error.
struct GatherOutcome {
  uint64_t rows = 0;
  std::optional<std::string> shard_error;
  std::optional<Error> error;
  /// With GatherContext::inputs_only: the statement with the rows read in place of its tables.
  std::string statement;
  /// What each operator did (EXPLAIN ANALYZE): each input's read, then the statement's run.
  struct Step {
    std::vector<int> shards;
    uint64_t rows = 0;
    double ms = 0;
    /// Not read: the statement ran on its one shard, on the table itself.
    bool in_place = false;
  };
  std::vector<Step> steps;
  bool ok() const { return !shard_error && !error; }
};

/// Runs the plan: reads every input from its shards, then the statement with those rows on one
/// shard, whose answer (RowDescription, DataRows, CommandComplete, notices) goes to `out`; the
/// caller writes an error and ReadyForQuery.
awaitable<GatherOutcome> run_gather(const routing::GatherPlan& plan, GatherContext& ctx,
                                    std::string& out);

}  // namespace pgrange::proxy::exec
