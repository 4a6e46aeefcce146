// How one client message runs, given the route, the plan over several shards and the state of
// the client's session.

#include "routing/plan/statement_plan.hpp"

#include "sql/session_statement.hpp"

namespace pgrange::routing {

bool scriptable(std::span<const sql::StatementInfo> statements, std::string_view sql) {
  for (const sql::StatementInfo& s : statements) {
    bool dml = s.kind == sql::StatementKind::kSelect || s.kind == sql::StatementKind::kInsert ||
               s.kind == sql::StatementKind::kUpdate || s.kind == sql::StatementKind::kDelete;
    if (!dml || s.select_into) return false;
    if (!sql::session_effects(sql.substr(s.begin, s.end - s.begin)).empty()) return false;
  }
  return statements.size() > 1;
}

void choose_kind(StatementPlan& p, char type, std::span<const sql::StatementInfo> statements,
                 std::string_view text, const BindParams* params, const ClusterView& view,
                 const SessionState& s) {
  const bool several = s.shards > 1;
  const bool tied = s.tied_shard >= 0;
  auto refuse_with = [&p](Error e) {
    p.kind = StatementPlan::Kind::kRefuse;
    p.error = std::move(e);
  };
  // COPY over several shards (or inside a transaction pgrange coordinates) runs through
  // pgrange: rows routed one by one into the shards' COPYs, or read range by range.
  std::optional<StatementPlan::Kind> copy_kind;
  if (statements.size() == 1 && statements[0].kind == sql::StatementKind::kCopy && several &&
      !p.route.shards.empty() && !(p.route.side_reads && p.route.shards.size() > 1) &&
      (!p.route.refusal || p.route.refusal->sqlstate == sqlstate::kFeatureNotSupported)) {
    bool other_shard = tied && p.route.shards.size() == 1 &&
                       p.route.shards.front() != s.tied_shard && s.can_coordinate;
    if (p.route.shards.size() > 1 || s.coordinated || other_shard || p.route.maintains_index) {
      if (type != 'Q') {
        return refuse_with(not_supported(
            "COPY over several shards through the extended query protocol is not supported yet",
            "send it as a simple query (as psql's \\copy does)"));
      }
      if (s.in_block && !s.coordinated && !s.can_coordinate) {
        // The block is tied to its one connection (session pooling, or state pgrange cannot
        // move): its COPY cannot reach the other shards inside its transaction.
        return refuse_with(not_supported(
            "COPY of a table on several shards inside a transaction block tied to one "
            "connection is not supported",
            "run the COPY outside the transaction block, or use transaction pooling"));
      }
      copy_kind =
          statements[0].copy_from ? StatementPlan::Kind::kCopyIn : StatementPlan::Kind::kRead;
      p.route.refusal.reset();
    }
  }
  if (type == 'Q' && statements.size() > 1 && (p.route.several_statements || s.coordinated) &&
      scriptable(statements, text) && s.transaction_pooling && !s.pinned &&
      (s.coordinated || (!s.in_block && !tied) || (s.in_block && s.can_coordinate))) {
    // Several statements over several shards: one after the other, in one transaction.
    p.route.refusal.reset();
    p.kind = StatementPlan::Kind::kScript;
    return;
  }
  if (type == 'B' && params != nullptr && statements.size() == 1 && several && !text.empty() &&
      gatherable_write(statements[0], p.route) && s.runs_statements_itself && !s.failed && !tied &&
      (!s.in_block || s.coordinated || s.can_coordinate)) {
    // A write reading tables spread over other shards, bound: they are read at its Execute,
    // and the write with their rows (its own parameters still the Bind's) runs as any write
    // over several shards, in pgrange's transaction (run by the session at the Execute).
    auto gather = plan_gather(view, statements[0], text, params);
    if (!gather) return refuse_with(gather.error());
    p.gather = std::make_shared<const GatherPlan>(std::move(*gather));
    p.gathered_write = true;
    p.route.refusal.reset();
    p.kind = StatementPlan::Kind::kRead;
    return;
  }
  if (p.route.refusal) return refuse_with(*p.route.refusal);
  if (copy_kind == StatementPlan::Kind::kCopyIn) {
    p.kind = StatementPlan::Kind::kCopyIn;
  } else if (copy_kind) {
    // COPY … TO: the shards' COPYs one after the other, read as any read over several shards
    // (in a block, over the block's own connections: it sees the block's writes).
    const sql::StatementInfo& info = statements[0];
    auto stmt = sql::read_copy_statement(text.substr(info.begin, info.end - info.begin));
    if (!stmt) return refuse_with(stmt.error());
    auto copy = plan_copy_out(view, *stmt);
    if (!copy) return refuse_with(copy.error());
    p.copy_out = std::make_shared<const CopyOutPlan>(std::move(*copy));
    p.kind =
        s.in_block || s.coordinated ? StatementPlan::Kind::kCoordinate : StatementPlan::Kind::kRead;
  } else if (s.coordinated) {
    // Every statement of a transaction over several shards runs through its coordinator.
    if (type != 'Q' && type != 'B') {
      return refuse_with(not_supported(
          "this message inside a transaction over several shards is not supported yet"));
    }
    if (p.route.shards.size() > 1 && !p.route.distributed_write && !p.merge && !p.gather) {
      return refuse_with(not_supported("statement spans shards"));
    }
    p.kind = StatementPlan::Kind::kCoordinate;
  } else if (p.route.distributed_write && s.in_block && (type == 'Q' || type == 'B') &&
             s.can_coordinate) {
    p.kind = StatementPlan::Kind::kCoordinate;
  } else if (p.route.distributed_write) {
    if (type == 'B' && ((!tied && !s.in_block && s.transaction_pooling) || s.can_adopt_pipeline)) {
      // The extended protocol's implicit transaction: pgrange's own over the shards, from this
      // Execute to the Sync (client_transaction.cpp), committed there as PostgreSQL would.
      p.kind = StatementPlan::Kind::kCoordinate;
    } else if ((type != 'Q' || tied || s.in_block) && p.route.maintains_index &&
               p.route.shards.size() <= 1 && !p.route.moves_keys) {
      return refuse_with(not_supported(
          "a write to a table with global indexes runs only outside a transaction block in a "
          "session tied to no connection, or inside one over several shards, for now",
          "its index entries are written on other shards in the same transaction"));
    } else if (type != 'Q' || tied || s.in_block) {
      return refuse_with(not_supported(
          "a write touching several shards runs only outside a transaction block in a session "
          "tied to no connection, or inside one over several shards, for now",
          "give every key column with = so that the statement runs on one shard"));
    } else {
      // Run in a transaction pgrange coordinates, committed when the query is done.
      p.kind = StatementPlan::Kind::kScript;
    }
  } else if (p.route.shards.size() > 1) {
    if (!p.merge && !p.gather) return refuse_with(not_supported("statement spans shards"));
    if ((s.in_block && (type == 'Q' || type == 'B') && s.can_coordinate) ||
        (type == 'B' && s.can_adopt_pipeline)) {
      // The transaction's own connections run it, so that it sees the transaction's writes.
      p.kind = StatementPlan::Kind::kCoordinate;
    } else if (tied || s.in_block) {
      return refuse_with(not_supported(
          "a SELECT over several shards is not supported in a session tied to one connection "
          "(session pooling, or session state pgrange cannot move)",
          "give every key column with = so that the statement runs on one shard"));
    } else {
      p.kind = StatementPlan::Kind::kRead;  // a gather, a read through a global index, or a merge
    }
  } else if (p.route.reference_only && !tied && !s.in_block && s.transaction_pooling && several) {
    // Only reference tables: every shard answers alike; the reads take turns over them.
    p.any_shard = true;
  } else if (!p.route.shards.empty()) {
    p.shard = p.route.shards.front();
    if (tied && p.shard != s.tied_shard &&
        (((type == 'Q' || type == 'B') && s.can_coordinate) ||
         (type == 'B' && s.can_adopt_pipeline))) {
      p.kind = StatementPlan::Kind::kCoordinate;  // the transaction's second shard
    } else if (tied && p.shard != s.tied_shard) {
      return refuse_with(
          not_supported("this transaction runs on shard \"" + view.shard_name(s.tied_shard) +
                            "\"; a statement on shard \"" + view.shard_name(p.shard) +
                            "\" in the same transaction is not supported yet",
                        "run the statements for each shard in transactions of their own"));
    }
  }
}

}  // namespace pgrange::routing
