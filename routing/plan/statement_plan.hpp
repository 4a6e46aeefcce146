#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "routing/meta/cluster_view.hpp"
#include "routing/plan/copy_plan.hpp"
#include "routing/plan/gather_plan.hpp"
#include "routing/plan/router.hpp"
#include "sql/admin_statement.hpp"
#include "sql/index_statement.hpp"
#include "sql/merge_query.hpp"
#include "sql/statement_info.hpp"

namespace pgrange::routing {

/// How one client message runs: what the session does with it (its kind) and what that needs.
struct StatementPlan {
  enum class Kind {
    kPass,        ///< forward it to `shard` (-1: any shard)
    kAdmin,       ///< SPLIT AT, SHOW RANGES, …: answered by pgrange
    kBroadcast,   ///< DDL: run on every shard, then the catalog follows
    kRead,        ///< a SELECT or COPY … TO over several shards: a tree of operators
    kExplain,     ///< EXPLAIN of a statement on pgrange tables: pgrange's plan, the shards'
    kCoordinate,  ///< a statement of a transaction over several shards pgrange coordinates
    kBegin,       ///< BEGIN: deferred until a statement says which shard
    kEnd,         ///< COMMIT/ROLLBACK of a deferred BEGIN that ran nothing
    kRefuse,      ///< `error`
    kWait,        ///< a range it writes to is moving: wait, then plan again
    kCopyIn,      ///< COPY … FROM STDIN into a table on several shards, or in a coordinated block
    kCreateIndex,  ///< CREATE INDEX of a global index (`index`)
    kDropIndex,    ///< DROP INDEX of global indexes (`dropped`)
    /// A query string pgrange runs in the transaction it coordinates (its own outside a block,
    /// committed with two-phase commit): one write over several shards, or several statements
    /// over several shards.
    kScript,
    kPrepared,  ///< COMMIT PREPARED or ROLLBACK PREPARED: on every shard that holds it
  };
  Kind kind = Kind::kPass;
  int shard = -1;
  /// Only reference tables, outside any transaction: every shard answers alike, and the
  /// session's reads take turns over them (it sets `shard`).
  bool any_shard = false;
  std::shared_ptr<const Result<std::vector<sql::StatementInfo>>> analysis;
  std::optional<sql::AdminStatement> admin;
  Route route;
  std::shared_ptr<const Result<sql::MergeQuery>> merge;
  /// A SELECT reading several tables (joins, subqueries, CTEs, …) over several shards: the
  /// tables' rows read by pgrange, the statement run on one shard with them (proxy/exec).
  std::shared_ptr<const GatherPlan> gather;
  /// `gather` reads the tables a bound write reads from other shards (UPDATE … FROM,
  /// DELETE … USING, subqueries): the write runs with their rows at its Execute.
  bool gathered_write = false;
  /// COPY … TO STDOUT of rows on several shards (or in a coordinated block): its steps, run as
  /// a read (kRead; kCoordinate in a block).
  std::shared_ptr<const CopyOutPlan> copy_out;
  /// COPY (SELECT …) TO STDOUT whose query reads several shards: the query, planned as any
  /// SELECT (this plan's analysis, route, merge or gather are the query's), its rows written as
  /// the COPY writes them.
  struct CopyQuery {
    sql::CopyOptions options;
    std::string query;
  };
  std::shared_ptr<const CopyQuery> copy_query;
  std::optional<Error> error;
  std::string explain_options;          ///< kExplain: the options between EXPLAIN and the statement
  std::string explain_statement;        ///< kExplain: the statement explained
  std::optional<sql::IndexSpec> index;  ///< kCreateIndex
  /// kDropIndex: (table id, index id) of each global index dropped.
  std::vector<std::pair<uint64_t, uint32_t>> dropped;
  /// DDL bound through the extended protocol (planned from its text at the Bind).
  bool ddl = false;
  /// DDL inside a transaction block: it runs on every shard in the block's transaction there
  /// (kCoordinate), its catalog change waits for the block's commit.
  bool block_ddl = false;
  /// With block_ddl: a notice for the client about how the DDL was taken.
  std::string block_notice;
};

/// What of the client's session decides how a statement runs (the session knows it; the
/// planner needs no connection).
struct SessionState {
  size_t shards = 1;  ///< how many shards the cluster has
  /// Inside a transaction block (or after a BEGIN pgrange has not sent anywhere yet).
  bool in_block = false;
  /// pgrange coordinates the session's transaction over several shards.
  bool coordinated = false;
  /// The session is tied to one connection (session pooling, a block begun on one shard, state
  /// pgrange cannot move): that connection's shard, else -1.
  int tied_shard = -1;
  /// Its transaction on one shard could become one pgrange coordinates over several.
  bool can_coordinate = false;
  /// The extended protocol's statements before this one (in the implicit transaction up to
  /// the Sync) could become one pgrange coordinates.
  bool can_adopt_pipeline = false;
  /// Transaction pooling, and no session state keeps the client on one connection.
  bool transaction_pooling = false;
  bool pinned = false;
  /// pgrange may run statements itself over the shards (INSERT … SELECT, CREATE TABLE … AS).
  bool runs_statements_itself = false;
  /// The block failed: only ROLLBACK runs.
  bool failed = false;
};

/// Whether the statements of a query string are ones pgrange runs one after the other in one
/// transaction over several shards (reads and writes, none of which changes the session).
bool scriptable(std::span<const sql::StatementInfo> statements, std::string_view sql);

/// The kind of a statement of a Query ('Q') or Bind ('B') whose route (and, over several shards,
/// merge or gather: plan_spread) `p` holds, in a session of state `s`: COPY through pgrange, a
/// query string run as one transaction, a bound write whose reads pgrange gathers (planned
/// here), a statement of the coordinated transaction, a write over several shards, a read over
/// several shards, or one forwarded to its shard; kRefuse with the error for what this session
/// cannot run that way. `text`: the query string; `params`: the Bind's values.
void choose_kind(StatementPlan& p, char type, std::span<const sql::StatementInfo> statements,
                 std::string_view text, const BindParams* params, const ClusterView& view,
                 const SessionState& s);

}  // namespace pgrange::routing
