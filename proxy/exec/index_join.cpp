#include "proxy/exec/index_join.hpp"

#include <set>

#include "proxy/exec/lookup.hpp"
#include "proxy/wire/message_writer.hpp"

namespace pgrange::proxy::exec {

awaitable<ExecResult<std::unique_ptr<Operator>>> make_index_join(routing::IndexRead read,
                                                                 std::vector<int> index_shards,
                                                                 std::string text,
                                                                 IndexJoinContext ctx) {
  // 1. The entries in the index's spans, from the shards of the index ranges they overlap.
  sql::MergeQuery entries;
  entries.shard_sql = read.first_step_sql;
  auto conns = co_await ctx.connections(index_shards);
  if (!conns) co_return tl::unexpected(ExecFailure::of(conns.error()));
  auto source = co_await make_merge(std::move(entries), *conns, ctx.session, nullptr, false);
  if (!source) co_return tl::unexpected(source.error());
  // 2. The rows those keys name, from the shards owning them.
  std::string what = "Lookup: table " + read.table->name +
                     "'s rows of the keys the entries name, from their shards";
  Lookup::Then then = [read, text, ctx](const std::vector<std::string>& rows)
      -> awaitable<ExecResult<std::unique_ptr<Operator>>> {
    std::set<std::vector<std::optional<std::string>>> keys;
    for (const std::string& row : rows) keys.insert(data_row_values(row));
    auto keyed = routing::read_of_keys(*ctx.view, read, text, keys);
    if (!keyed) co_return tl::unexpected(ExecFailure::of(keyed.error()));
    auto merge = ctx.merge_plan(keyed->sql, *read.table, keyed->shards.size());
    if (!*merge) co_return tl::unexpected(ExecFailure::of(merge->error()));
    auto conns = co_await ctx.connections(keyed->shards);
    if (!conns) co_return tl::unexpected(ExecFailure::of(conns.error()));
    auto rows_of_keys =
        co_await make_merge(**merge, *conns, ctx.session, ctx.bound ? &*ctx.bound : nullptr, false);
    if (!rows_of_keys) co_return tl::unexpected(rows_of_keys.error());
    co_return std::unique_ptr<Operator>(std::move(*rows_of_keys));
  };
  co_return std::make_unique<Lookup>(std::move(*source), std::move(then), std::move(what));
}

}  // namespace pgrange::proxy::exec
