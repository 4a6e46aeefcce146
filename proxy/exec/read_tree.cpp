// The tree of operators of a read over several shards, made from its plan.

#include "proxy/exec/read_tree.hpp"

#include <spdlog/spdlog.h>

#include "proxy/exec/copy_encode.hpp"
#include "proxy/exec/copy_range.hpp"
#include "proxy/exec/index_join.hpp"
#include "routing/plan/index_read.hpp"

namespace pgrange::proxy::exec {

namespace {

awaitable<ExecResult<std::unique_ptr<Operator>>> make_query_tree(const ReadPlan& plan,
                                                                 ReadContext ctx);

}  // namespace

awaitable<ExecResult<std::unique_ptr<Operator>>> make_read_tree(const ReadPlan& plan,
                                                                ReadContext ctx) {
  if (plan.copy_rows == nullptr) co_return co_await make_query_tree(plan, std::move(ctx));
  const bool exact_floats = ctx.session.exact_floats;
  auto tree = co_await make_query_tree(plan, std::move(ctx));
  if (!tree) co_return tree;
  auto encode = std::make_unique<CopyEncode>(std::move(*tree), *plan.copy_rows, exact_floats);
  co_return std::unique_ptr<Operator>(std::make_unique<CopyOut>(
      std::move(encode), plan.copy_rows->format == sql::CopyFormat::kBinary));
}

namespace {

awaitable<ExecResult<std::unique_ptr<Operator>>> make_query_tree(const ReadPlan& plan,
                                                                 ReadContext ctx) {
  using Tree = std::unique_ptr<Operator>;
  if (plan.copy_out != nullptr) {
    co_return make_copy_out(*plan.copy_out, *ctx.view, std::move(ctx.connection),
                            std::move(ctx.session));
  }
  if (plan.gather != nullptr) {
    // Several tables: each read with its conditions pushed down, the statement run with their
    // rows.
    co_return Tree(std::make_unique<Gather>(*plan.gather, *ctx.gather));
  }
  std::shared_ptr<const Result<sql::MergeQuery>> merge = plan.merge;
  const std::vector<int>* shards = &plan.route->shards;
  if (plan.route->index_lookup && !plan.statement.empty()) {
    const routing::Route::IndexLookup& lookup = *plan.route->index_lookup;
    auto read = routing::plan_index_read(*ctx.view, plan.statement, lookup);
    if (!read && !(merge && *merge)) co_return tl::unexpected(ExecFailure::of(read.error()));
    if (!read) {
      // The index went away since the statement was planned (or its read cannot be written):
      // every shard holding the table answers.
      if (read.error().sqlstate != "40001") {
        spdlog::warn("reading through index {} of table {}: {}", lookup.index_id, lookup.table_id,
                     read.error().message);
      }
    } else if (read->covering) {
      // The index stores every column the statement uses: its entries alone.
      merge = ctx.merge_plan(read->first_step_sql, read->relation, lookup.shards.size());
      if (!*merge) co_return tl::unexpected(ExecFailure::of(merge->error()));
      shards = &lookup.shards;
    } else {
      // 1. The entries in the index's spans, from the shards of the index ranges they overlap,
      // then 2. the rows those keys name, from the shards owning them: a Lookup.
      IndexJoinContext join;
      join.view = ctx.view;
      join.connections =
          [connection = ctx.connection](
              const std::vector<int>& to) -> awaitable<Result<std::vector<BackendConnection*>>> {
        std::vector<BackendConnection*> conns;
        for (int shard : to) {
          auto conn = co_await connection(shard);
          if (!conn) co_return tl::unexpected(conn.error());
          conns.push_back(*conn);
        }
        co_return conns;
      };
      join.merge_plan = ctx.merge_plan;
      join.session = std::move(ctx.session);
      join.bound = std::move(ctx.bound);
      co_return co_await make_index_join(*read, lookup.shards, plan.statement, std::move(join));
    }
  }
  if (!merge || !*merge) {
    co_return tl::unexpected(
        ExecFailure::of(merge ? merge->error() : not_supported("this SELECT over several shards")));
  }
  // In a block, the block's parts (opened where it has none yet): the merge sees its writes.
  std::vector<BackendConnection*> conns;
  for (int shard : *shards) {
    auto conn = co_await ctx.connection(shard);
    if (!conn) co_return tl::unexpected(ExecFailure::of(conn.error()));
    conns.push_back(*conn);
  }
  auto tree = co_await make_merge(**merge, conns, ctx.session, ctx.bound ? &*ctx.bound : nullptr,
                                  ctx.in_block);
  if (!tree) co_return tl::unexpected(tree.error());
  co_return Tree(std::move(*tree));
}

}  // namespace

}  // namespace pgrange::proxy::exec
