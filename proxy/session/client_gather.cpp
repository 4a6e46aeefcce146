// ClientSession's part in running a gather plan (proxy/exec/gather_run.cpp runs it): which
// connections it reads through, and what the client is answered.

#include <algorithm>

#include "proxy/exec/merge_build.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"

namespace pgrange::proxy {

exec::GatherContext ClientSession::gather_context(ExtendedMerge* ext, std::string& out,
                                                  GatherSink sink, HeldConnections& held) {
  exec::GatherContext ctx;
  // The shards are read through the block's transaction where pgrange coordinates one, else
  // through connections the statement holds (and its own transaction on them).
  if (coord_) {
    ctx.preferred_shard = coord_->first_shard;
    ctx.connection = [this](int shard) -> awaitable<Result<BackendConnection*>> {
      co_return co_await coordinated_part(shard);
    };
  } else {
    ctx.own_transaction = true;
    ctx.connection = [this, &held](int shard) -> awaitable<Result<BackendConnection*>> {
      co_return co_await hold_connection(shard, held, true);
    };
  }
  auto view = routing_view();
  ctx.route = [this, view](const std::string& sql) -> Result<std::vector<int>> {
    auto analysis = worker_.analyze(sql);
    if (!*analysis) return tl::unexpected(analysis->error());
    routing::Route route = routing::route_statements(*view, **analysis);
    if (route.refusal) return tl::unexpected(*route.refusal);
    return route.shards;
  };
  ctx.summary_route = [this, view](const std::string& sql) -> Result<std::vector<int>> {
    auto analysis = worker_.analyze(sql);
    if (!*analysis) return tl::unexpected(analysis->error());
    routing::Route route = routing::route_statements(*view, **analysis);
    // Refused only for what a merge computes (GROUP BY, aggregates…): the shards its table's
    // rows are on. Not where a global index's shards stand for them.
    if (route.index_lookup || route.several_statements || route.writes ||
        (route.refusal && route.refusal->sqlstate != sqlstate::kFeatureNotSupported)) {
      return std::vector<int>{};
    }
    return route.shards;
  };
  ctx.other = [&out](char type, const std::string& b) {
    MessageWriter(out).begin(type).bytes(b).end();
  };
  ctx.memory_limit = static_cast<size_t>(config().query_memory);
  ctx.temp_directory = config().temp_directory;
  if (sink != GatherSink::kInputs) {
    ctx.merge =
        [this, ext, &out](
            sql::MergeQuery query, const std::vector<BackendConnection*>& conns,
            bool in_transaction) -> awaitable<exec::ExecResult<std::unique_ptr<exec::Operator>>> {
      auto bound = bound_statement(ext);
      auto tree = co_await exec::make_merge(std::move(query), conns, shard_session(out),
                                            bound ? &*bound : nullptr, in_transaction);
      if (!tree) co_return tl::unexpected(tree.error());
      co_return std::unique_ptr<exec::Operator>(std::move(*tree));
    };
  }
  ctx.summarize = [this, &out](sql::MergeQuery query, const std::vector<BackendConnection*>& conns,
                               const exec::BoundStatement* bound)
      -> awaitable<exec::ExecResult<std::unique_ptr<exec::Operator>>> {
    // A query of the statement's, in text, on the statement's transactions.
    auto tree = co_await exec::make_merge(std::move(query), conns, shard_session(out), bound, true);
    if (!tree) co_return tl::unexpected(tree.error());
    co_return std::unique_ptr<exec::Operator>(std::move(*tree));
  };
  if (ext != nullptr) {
    ctx.infer_parameter_types = [this, ext](
                                    BackendConnection& conn,
                                    const std::string& text) -> awaitable<Result<std::string>> {
      auto types = co_await inferred_parameter_types(conn, text, ext->parameter_types);
      if (!types) co_return tl::unexpected(error_of_response(types.error()));
      co_return std::move(*types);
    };
  }
  // A session that set extra_float_digits may have it below 1: the reads set it to 3, and
  // back to the session's value after.
  if (!floats_exact()) ctx.float_digits_sql = desired_settings_.at("extra_float_digits");
  if (ext != nullptr) {
    ctx.parameter_types = &ext->parameter_types;
    ctx.bind_rest = &ext->bind_rest;
  }
  return ctx;
}

bool ClientSession::floats_exact() const {
  auto digits = desired_settings_.find("extra_float_digits");
  if (digits == desired_settings_.end()) return true;
  // "SET extra_float_digits = 3", "… TO '2'": a value of 1 or more is exact already.
  const std::string& set = digits->second;
  size_t end = set.find_last_of("0123456789");
  size_t begin = end == std::string::npos ? end : set.find_last_not_of("0123456789", end);
  return end != std::string::npos && begin != std::string::npos && set[begin] != '-' &&
         set.substr(begin + 1, end - begin) != "0" &&
         set.find_first_not_of(" '\"", end + 1) == std::string::npos;
}

awaitable<exec::GatherOutcome> ClientSession::execute_gather(const routing::GatherPlan& plan,
                                                             std::string& out, GatherSink sink) {
  HeldConnections held;
  exec::GatherContext ctx = gather_context(nullptr, out, sink, held);
  exec::GatherOutcome outcome;
  if (sink == GatherSink::kInputs) {
    // Only the reads: the statement, with their rows written in, is the caller's to run.
    exec::GatherReads reads(plan, ctx, false);
    auto opened = co_await reads.open();
    if (opened) reads.outcome().statement = reads.statement_with_rows();
    reads.release_rows();
    co_await reads.close(!opened);
    outcome = reads.outcome();
  } else {
    exec::Gather gather(plan, ctx);
    auto opened = co_await gather.open();
    for (bool more = opened.has_value(); more;) {
      exec::Batch batch;
      auto next = co_await gather.next(batch);
      more = next && *next;
    }
    co_await gather.close(!opened);
    outcome = gather.outcome();
  }
  for (auto& conn : held) {
    pool(static_cast<size_t>(conn->shard_index())).release(conn, !conn->broken());
  }
  co_return outcome;
}

awaitable<std::optional<std::string>> ClientSession::read_for_bound(
    ExtendedMerge& run, const routing::GatherPlan& gather) {
  // Outside a block, pgrange's own transaction over the shards, ended at the Sync as
  // PostgreSQL's implicit one is: the reads and what runs with them end together.
  if (!coord_) co_await become_coordinated();
  std::optional<Error> error;
  std::optional<std::string> shard_error;
  std::optional<std::string> statement;
  if (coord_->failed) {
    error = aborted_transaction_error();
  } else {
    std::string unused;
    exec::GatherOutcome read = co_await execute_gather(gather, unused, GatherSink::kInputs);
    if (read.ok()) co_return std::move(read.statement);
    error = read.error.value_or(Error::make(sqlstate::kInternalError, ""));
    shard_error = std::move(read.shard_error);
  }
  fail_bound(run, *error, shard_error);
  co_return std::nullopt;
}

void ClientSession::fail_bound(ExtendedMerge& run, const Error& e,
                               const std::optional<std::string>& shard_error) {
  std::string out;
  emit_ready_synthetics(out);
  if (!run.bind_answered) MessageWriter(out).begin('2').end();
  run.bind_answered = true;
  fail_coordinated(e, shard_error, out);
  skip_until_sync_ = true;
  channel_.send(std::move(out));
}

awaitable<bool> ClientSession::run_gathered_write(ExtendedMerge& run, int32_t max_rows) {
  if (!coord_) co_await become_coordinated();  // its error below fails that transaction
  const Analysis analysis = worker_.analyze(run.statement_text);
  bool returning = *analysis && (*analysis)->size() == 1 && (*analysis)->front().returning;
  if (max_rows != 0 && returning) {
    fail_bound(run,
               not_supported("fetching the RETURNING rows of a write that reads tables on other "
                             "shards in parts (Execute with a row limit) is not supported"),
               std::nullopt);
    co_return true;
  }
  auto statement = co_await read_for_bound(run, *run.write_gather);
  if (!statement) co_return true;
  // The write with the rows read: routed with the Bind's values, run in the transaction.
  auto params = bind_params(run.bind_rest, run.parameter_types);
  if (!params) {
    fail_bound(run, Error::make(sqlstate::kProtocolViolation, "invalid Bind message"),
               std::nullopt);
    co_return true;
  }
  Plan plan = plan_analysis('B', worker_.analyze(*statement), &*params, *statement);
  if (plan.kind == Plan::Kind::kRefuse || plan.kind == Plan::Kind::kWait || plan.gather) {
    fail_bound(run, plan.error.value_or(not_supported("this write reading tables on other shards")),
               std::nullopt);
    co_return true;
  }
  if (plan.route.shards.empty() && plan.shard >= 0) plan.route.shards = {plan.shard};
  plan.kind = Plan::Kind::kCoordinate;
  run.statement_text = std::move(*statement);
  skip_until_sync_ = true;
  bool ok = co_await run_coordinated(run.statement_text, plan, &run);
  // What follows it up to the Sync goes on in the transaction, unless it failed.
  if (coord_ && !coord_->failed) skip_until_sync_ = false;
  co_return ok;
}

awaitable<Result<bool>> ClientSession::expand_write_reads(std::string_view sql) {
  expanded_sql_.clear();
  expanded_answer_.clear();
  if (worker_.pool_count() < 2 || !transaction_pooling_ || pinned() || temp_objects_ ||
      txn_status_ == 'E') {
    co_return false;
  }
  const Analysis analysis = worker_.analyze(sql);
  if (!*analysis || (*analysis)->size() != 1) co_return false;
  const sql::StatementInfo& info = (*analysis)->front();
  if (info.kind != sql::StatementKind::kUpdate && info.kind != sql::StatementKind::kDelete &&
      !(info.kind == sql::StatementKind::kInsert && info.insert_values)) {
    co_return false;
  }
  // A write of one table alone (pgbench's, most writes) stops here, before any routing.
  if (info.relations.size() < 2) co_return false;
  auto view = routing_view();
  if (view == nullptr) co_return false;
  routing::Route route = routing::route_statements(*view, **analysis);
  if (!routing::gatherable_write(info, route)) co_return false;
  auto plan = routing::plan_gather(*view, info, sql, nullptr);
  if (!plan) co_return tl::unexpected(plan.error());
  bool in_block = txn_status_ != 'I' || !deferred_begin_.empty();
  if (backend_ || (in_block && !coord_ && !can_coordinate())) {
    co_return tl::unexpected(not_supported(
        "a write that reads tables on other shards, in a transaction tied to one connection, "
        "is not supported yet",
        "run it outside a transaction block, or before the block's other statements"));
  }
  if (in_block && !coord_) co_await become_coordinated();
  // The tables it reads, read here; the write, with their rows written in, goes on from here
  // as if the client had sent it.
  std::string unused;
  exec::GatherOutcome outcome = co_await execute_gather(*plan, unused, GatherSink::kInputs);
  if (!outcome.ok()) {
    if (coord_) coord_->failed = true;
    if (outcome.shard_error) {
      co_return tl::unexpected(error_of_response(*outcome.shard_error));
    }
    co_return tl::unexpected(*outcome.error);
  }
  expanded_sql_ = std::move(outcome.statement);
  co_return true;
}

}  // namespace pgrange::proxy
