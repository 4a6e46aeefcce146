// ClientSession's part in a SELECT over several shards: the tree of operators its plan makes
// (proxy/exec: a Merge of Routes, an index join, a Gather), the connections it reads through
// (pooled ones it holds, or a coordinated block's parts), and what the client is answered.

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "proxy/exec/gather_run.hpp"
#include "proxy/exec/merge_build.hpp"
#include "proxy/exec/read_tree.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"
#include "routing/plan/spread_plan.hpp"
#include "sql/relation_uses.hpp"

namespace pgrange::proxy {

awaitable<bool> ClientSession::run_read(const Plan& plan, std::string_view text,
                                        ExtendedMerge* ext) {
  std::string out;
  bool ok = co_await send_read(plan, text, ext, out);
  if (ext != nullptr) ext->failed = !ok;
  if (ext == nullptr) write_ready_for_query(out, txn_status_);
  channel_.send(std::move(out));
  leave_ranges();
  co_return true;
}

awaitable<bool> ClientSession::send_read(const Plan& plan, std::string_view text,
                                         ExtendedMerge* ext, std::string& out, bool stream,
                                         const AnswerCap* cap) {
  // The Bind is answered once the tree has opened: a wrong number of result formats for its
  // columns fails the Bind, as PostgreSQL's does.
  bool bind_pending = false;
  if (ext != nullptr) {
    emit_ready_synthetics(out);
    bind_pending = !ext->bind_answered;
    ext->bind_answered = true;
  }
  // What a merge of the shards' answers refuses once it sees them (a type pgrange cannot
  // compare in ORDER BY, GROUP BY, a window, min/max) is gathered instead, as long as nothing
  // reached the client: PostgreSQL computes it over the rows read into one shard.
  bool may_gather = plan.merge && !plan.gather && !plan.copy_out && !plan.route.index_lookup &&
                    plan.route.shards.size() > 1;
  std::optional<Plan> gathered;
  std::optional<exec::ExecFailure> refused;
  bool ok = false;
  for (const Plan* p = &plan; p != nullptr;) {
    HeldConnections held;
    std::optional<exec::GatherContext> gather_ctx;
    auto tree = co_await read_tree(*p, text, ext, out, held, gather_ctx);
    std::optional<exec::ExecFailure> failure;
    if (!tree) failure = tree.error();
    ok = co_await send_tree(tree ? tree->get() : nullptr, std::move(failure), ext, out, stream,
                            bind_pending, cap, may_gather && p == &plan ? &refused : nullptr);
    if (tree) tree->reset();  // before its connections go back
    for (auto& conn : held) {
      pool(static_cast<size_t>(conn->shard_index())).release(conn, !conn->broken());
    }
    p = nullptr;
    if (!refused) continue;
    std::optional<exec::ExecFailure> merge_refusal = std::exchange(refused, std::nullopt);
    gathered = gather_instead(plan, text, ext);
    if (gathered) {
      spdlog::debug("session {}: gathered, as the merge refused: {}", key_pid_,
                    merge_refusal->error->message);
      p = &*gathered;
    } else {
      // No gather runs it: the merge's refusal is the answer.
      ok = co_await send_tree(nullptr, std::move(merge_refusal), ext, out, stream, bind_pending,
                              cap);
    }
  }
  co_return ok;
}

std::optional<ClientSession::Plan> ClientSession::gather_instead(const Plan& plan,
                                                                 std::string_view text,
                                                                 const ExtendedMerge* ext) {
  auto view = routing_view();
  if (view == nullptr) return std::nullopt;
  std::optional<routing::BindParams> params;
  std::string_view whole = text;
  if (plan.copy_query) {
    // COPY (query) TO: its query is gathered, and its rows written as the COPY writes them.
    whole = plan.copy_query->query;
  } else if (ext != nullptr) {
    params = bind_params(ext->bind_rest, ext->parameter_types);
    if (!params) return std::nullopt;
    whole = ext->statement_text;
  }
  // (A bound statement's plan keeps no analysis: it is the statement's, cached; a COPY's is
  // the COPY's.)
  const Analysis analysis =
      plan.analysis && !plan.copy_query ? plan.analysis : worker_.analyze(whole);
  if (!analysis || !*analysis || (*analysis)->size() != 1) return std::nullopt;
  const sql::StatementInfo& s = (*analysis)->front();
  if (s.kind != sql::StatementKind::kSelect || s.select_into || s.end > whole.size()) {
    return std::nullopt;
  }
  // One table (with its conditions pushed down), or a join of one with reference tables: how
  // the statement uses them, where its analysis did not say.
  sql::StatementInfo with_uses = s;
  if (with_uses.relations.empty()) {
    if (s.begin != 0) return std::nullopt;
    auto uses = sql::relation_uses_of(whole.substr(0, s.end));
    if (!uses) return std::nullopt;
    with_uses.relations = std::move(*uses);
  }
  // Without the shards' size estimates: no table is left in place to be merged again, every
  // one is read into one shard.
  auto gather = routing::plan_gather(*view, with_uses, whole, params ? &*params : nullptr, nullptr);
  if (!gather) return std::nullopt;
  Plan p = plan;
  p.merge.reset();
  p.gather = std::make_shared<const routing::GatherPlan>(std::move(*gather));
  return p;
}

awaitable<Result<BackendConnection*>> ClientSession::hold_connection(int shard,
                                                                     HeldConnections& held,
                                                                     bool sync) {
  // (Not a conditional expression of two co_awaits: g++ 12 destroys its result twice.)
  Result<std::shared_ptr<BackendConnection>> conn;
  if (sync) {
    conn = co_await acquire_synced(static_cast<size_t>(shard), nullptr);
  } else {
    conn = co_await acquire_for_client(static_cast<size_t>(shard));
  }
  if (!conn) co_return tl::unexpected(conn.error());
  if (sync) cancel_target_->track(*conn);  // acquire_for_client tracks its own
  held.push_back(*conn);
  co_return conn->get();
}

awaitable<exec::ExecResult<std::unique_ptr<exec::Operator>>> ClientSession::read_tree(
    const Plan& plan, std::string_view text, ExtendedMerge* ext, std::string& out,
    HeldConnections& held, std::optional<exec::GatherContext>& gather_ctx) {
  exec::ReadPlan read{&plan.route, plan.merge, plan.gather.get(), {}, plan.copy_out.get()};
  if (plan.copy_query) {
    // COPY (query) TO: the plan is its query's.
    read.copy_rows = &plan.copy_query->options;
    text = plan.copy_query->query;
  }
  exec::ReadContext ctx;
  if (plan.gather) {
    gather_ctx = gather_context(ext, out, GatherSink::kClient, held);
    ctx.gather = &*gather_ctx;
    co_return co_await exec::make_read_tree(read, std::move(ctx));
  }
  // Through a global index outside a coordinated block (whose parts hold what it wrote). Bound
  // (extended protocol), the index's spans are the Bind's values already, and the rows' step
  // carries its parameters.
  if (plan.route.index_lookup && !coord_) {
    if (ext != nullptr) {
      read.statement = ext->statement_text;
    } else if (plan.analysis && *plan.analysis && (*plan.analysis)->size() == 1) {
      const sql::StatementInfo& info = (**plan.analysis)[0];
      read.statement = std::string(text.substr(info.begin, info.end - info.begin));
    }
  }
  // The plans made here for a bound statement take its LIMIT and OFFSET from the Bind.
  std::optional<routing::BindParams> params;
  if (!read.statement.empty() && ext != nullptr) {
    params = bind_params(ext->bind_rest, ext->parameter_types);
    if (!params) {
      co_return tl::unexpected(
          exec::ExecFailure::of(Error::make(sqlstate::kProtocolViolation, "invalid Bind message")));
    }
  }
  // On one shard (a point, or keys that stay together) the statement runs there whole: nothing
  // to combine, so whatever it computes and the result format are the shard's. (Kept by the
  // index join past this frame: the Bind's values by copy; they point into `ext`.)
  ctx.merge_plan = [this, params](const std::string& sql, const routing::TableDescriptor& t,
                                  size_t shard_count) {
    if (shard_count == 1) return std::make_shared<const Result<sql::MergeQuery>>(sql::relayed(sql));
    return routing::bind_merge_bounds(worker_.merge_plan(sql, t), params ? &*params : nullptr);
  };
  ctx.view = routing_view();
  ctx.in_block = (coord_ != nullptr);
  // In a block, the block's parts (opened where it has none yet): the read sees its writes.
  ctx.connection = [this, &held](int shard) -> awaitable<Result<BackendConnection*>> {
    if (coord_) co_return co_await coordinated_part(shard);
    co_return co_await hold_connection(shard, held, false);  // the operators sync them
  };
  ctx.session = shard_session(out);
  ctx.bound = bound_statement(ext);
  if (read.copy_rows != nullptr && read.copy_rows->format == sql::CopyFormat::kBinary) {
    // A binary COPY's values: the shards send them in binary (bound as a Bind asking for
    // binary results, with no parameters), the merge turns what it combines into binary.
    static constexpr std::string_view kNoTypes{"\0\0", 2};
    static constexpr std::string_view kBinaryResults{"\0\0\0\0\0\1\0\1", 8};
    ctx.bound = exec::BoundStatement{kNoTypes, kBinaryResults};
  }
  co_return co_await exec::make_read_tree(read, std::move(ctx));
}

}  // namespace pgrange::proxy
