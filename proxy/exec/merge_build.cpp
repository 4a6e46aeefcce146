#include "proxy/exec/merge_build.hpp"

#include <utility>

#include "proxy/exec/aggregate.hpp"
#include "proxy/exec/row_stages.hpp"
#include "proxy/exec/shard_query.hpp"
#include "proxy/exec/sort.hpp"
#include "proxy/exec/window.hpp"
#include "proxy/wire/message_writer.hpp"
#include "sql/session_statement.hpp"

namespace pgrange::proxy::exec {

namespace {

/// The collation of the connection's database (what orders its text by default).
awaitable<Result<std::string>> database_collation(BackendConnection& conn) {
  std::string q;
  write_query(q,
              "SELECT CASE WHEN datlocprovider = 'i' THEN 'ICU ' || daticulocale ELSE datcollate "
              "END FROM pg_database WHERE datname = current_database()");
  if (auto r = co_await conn.send(q); !r) co_return tl::unexpected(r.error());
  std::string collation;
  std::optional<Error> error;
  for (;;) {
    char type = 0;
    std::string body;
    if (auto r = co_await conn.read_message(type, body); !r) co_return tl::unexpected(r.error());
    if (type == 'Z') break;
    if (type == 'E' && !error) {
      error = Error::make(sqlstate::kInternalError, "cannot read the shard database's collation");
    }
    if (type != 'D') continue;
    BodyReader br(body);
    int16_t n = 0;
    int32_t len = 0;
    std::string_view v;
    if (br.i16(n) && n == 1 && br.i32(len) && len >= 0 && br.bytes(static_cast<size_t>(len), v)) {
      collation = std::string(v);
    }
  }
  if (error) co_return tl::unexpected(*error);
  co_return collation;
}

}  // namespace

MergeFormats merge_formats(const sql::MergeQuery& merge, std::vector<int16_t> client) {
  MergeFormats f;
  if (merge.mode != sql::MergeQuery::Mode::kOrdered) {
    f.client = std::move(client);
    return f;
  }
  f.shard = std::move(client);
  if (merge.hidden == 0 || f.shard.empty()) return f;
  if (f.shard.size() == 1) {
    // One format for every column: spelt out per column when the client's columns are known.
    if (merge.visible < 0) return f;
    f.shard.assign(static_cast<size_t>(merge.visible), f.shard[0]);
  }
  f.shard.resize(f.shard.size() + static_cast<size_t>(merge.hidden), 0);
  return f;
}

std::unique_ptr<RowOperator> make_merge_tree(sql::MergeQuery q,
                                             std::vector<std::unique_ptr<ShardRows>> inputs,
                                             MergeTreeOptions o) {
  std::unique_ptr<RowOperator> root;
  auto limited = [&]() {
    if (q.offset > 0 || q.limit) root = std::make_unique<Limit>(std::move(root), q.offset, q.limit);
  };
  Project::Options project;
  if (q.mode == sql::MergeQuery::Mode::kOrdered) {
    // The shards' rows are the answer's: merged in ORDER BY order, equal ones dropped for
    // DISTINCT (the order covers every column then), cut, the hidden sort columns dropped.
    const char* what = q.distinct ? "SELECT DISTINCT" : "ORDER BY";
    root = std::make_unique<MergeSort>(std::move(inputs), q.order, what, o.text_order);
    if (q.distinct) root = std::make_unique<Distinct>(std::move(root), q.order, o.text_order);
    limited();
    project.hidden = q.hidden;
    project.expected = q.visible;
    return std::make_unique<Project>(std::move(root), std::move(project));
  }
  if (q.mode == sql::MergeQuery::Mode::kWindow) {
    // The shards' rows in the windows' order, the windows computed over them.
    root = std::make_unique<MergeSort>(std::move(inputs), q.window_order, "window", o.text_order);
    root = std::make_unique<Window>(std::move(root), q, o.text_order, o.exact_floats,
                                    o.memory_limit, o.temp_directory);
  } else {
    // The shards' partial aggregates, sorted by their groups: combined, filtered, sorted.
    std::vector<sql::MergeSortKey> groups;
    for (int g = 0; g < q.group_columns; ++g) groups.push_back({g, false, false});
    root =
        std::make_unique<MergeSort>(std::move(inputs), std::move(groups), "GROUP BY", o.text_order);
    root = std::make_unique<Aggregate>(std::move(root), q, o.text_order, o.exact_floats);
    if (q.having) root = std::make_unique<Filter>(std::move(root), *q.having, o.text_order);
  }
  if (q.distinct) {
    std::vector<sql::MergeSortKey> all;
    for (int c = 0; c < q.visible_outputs; ++c) all.push_back({c, false, false});
    root = std::make_unique<Sort>(std::move(root), all, "SELECT DISTINCT", o.memory_limit,
                                  o.text_order, o.temp_directory);
    root = std::make_unique<Distinct>(std::move(root), std::move(all), o.text_order);
  }
  if (q.ordered()) {
    root = std::make_unique<Sort>(std::move(root), q.order,
                                  q.distinct ? "SELECT DISTINCT" : "ORDER BY", o.memory_limit,
                                  o.text_order, o.temp_directory);
  }
  limited();
  const int outputs = static_cast<int>(q.outputs.size());
  project.hidden = outputs - q.visible_outputs;
  project.expected = q.visible_outputs;
  project.client_formats = std::move(o.client_formats);
  project.exact_floats = o.exact_floats;
  return std::make_unique<Project>(std::move(root), std::move(project));
}

namespace {

/// A shard's answer of which only its columns are known: no rows.
class DescribedRows final : public ShardRows {
 public:
  explicit DescribedRows(std::string columns) : columns_(std::move(columns)) {}
  awaitable<ExecResult<void>> start() override { co_return ExecResult<void>{}; }
  awaitable<ExecResult<void>> open() override { co_return ExecResult<void>{}; }
  std::string columns() const override { return columns_; }
  awaitable<ExecResult<bool>> next_row(std::string&) override { co_return false; }
  awaitable<void> close(bool) override { co_return; }
  std::vector<const Operator*> inputs() const override { return {}; }
  std::string describe() const override { return "the columns a shard described"; }
  bool ended() const override { return true; }

 private:
  std::string columns_;
};

}  // namespace

awaitable<std::optional<ExecFailure>> merge_refusal(const sql::MergeQuery& query,
                                                    const std::string& columns, size_t shards,
                                                    MergeTreeOptions options) {
  std::vector<std::unique_ptr<ShardRows>> inputs;
  for (size_t i = 0; i < shards; ++i) inputs.push_back(std::make_unique<DescribedRows>(columns));
  auto tree = make_merge_tree(query, std::move(inputs), std::move(options));
  std::optional<ExecFailure> failure;
  if (auto opened = co_await tree->open(); !opened) {
    failure = opened.error();
  } else {
    // Some operators meet their inputs' columns with the first rows asked.
    std::vector<std::string> rows;
    if (auto more = co_await tree->next_rows(rows, 1); !more) failure = more.error();
  }
  co_await tree->close(true);
  co_return failure;
}

awaitable<ExecResult<std::unique_ptr<RowOperator>>> make_merge(
    sql::MergeQuery merge, const std::vector<BackendConnection*>& conns,
    const ShardSession& session, const BoundStatement* bound, bool in_transaction) {
  // One request for every shard; the plan keeps only the start of a long query (one that
  // carries rows read for it), for EXPLAIN.
  std::string request;
  std::vector<int16_t> client_formats;
  if (bound == nullptr) {
    write_query(request, merge.shard_sql);
  } else {
    MessageWriter(request)
        .begin('P')
        .cstr("")
        .cstr(merge.shard_sql)
        .bytes(bound->parameter_types)
        .end();
    MessageWriter bind(request);
    bind.begin('B').cstr("").cstr("");
    std::string_view parameters;
    if (!split_bind(bound->bind_rest, parameters, client_formats)) {
      bind.bytes(bound->bind_rest);  // malformed: the shard says how
      client_formats.clear();
    } else {
      MergeFormats formats = merge_formats(merge, std::move(client_formats));
      bind.bytes(parameters).i16(static_cast<int16_t>(formats.shard.size()));
      for (int16_t f : formats.shard) bind.i16(f);
      client_formats = std::move(formats.client);
    }
    bind.end();
    MessageWriter(request).begin('D').byte('P').cstr("").end();
    MessageWriter(request).begin('E').cstr("").i32(0).end();
    MessageWriter(request).begin('S').end();
  }
  auto shared_request = std::make_shared<const std::string>(std::move(request));
  constexpr size_t kShown = 1000;
  if (merge.shard_sql.size() > 2 * kShown) {
    merge.shard_sql.resize(kShown);
    merge.shard_sql.shrink_to_fit();
    merge.shard_sql += "…";
  }
  // What orders text on each shard: the merge compares it bytewise (checked once it knows).
  bool compares =
      merge.ordered() || merge.distinct || merge.mode != sql::MergeQuery::Mode::kOrdered;
  std::vector<BackendPool*> pools;
  for (const auto& conn : conns) {
    // The session's settings first, on each connection.
    if (auto e = co_await session.sync(*conn)) co_return tl::unexpected(ExecFailure::of(*e));
    BackendPool& pool = session.pool(conn->shard_index());
    pools.push_back(&pool);
    if (!compares || pool.collation()) continue;
    auto c = co_await database_collation(*conn);
    if (!c) {
      conn->mark_broken();
      co_return tl::unexpected(ExecFailure::of(c.error()));
    }
    pool.collation() = *c;
  }
  // pgrange compares text bytewise: right only where the shards order it so too.
  auto text_order = [pools]() -> std::optional<Error> {
    for (BackendPool* pool : pools) {
      const auto& c = pool->collation();
      if (c && !sql::orders_bytewise(*c)) {
        return Error::make(sqlstate::kFeatureNotSupported,
                           "comparing text over a table spread across several shards is not "
                           "supported when the shards' databases use collation \"" +
                               *c + "\": pgrange merges text in the C collation's order")
            .with_hint("create the shards' databases with LC_COLLATE 'C'");
      }
    }
    return std::nullopt;
  };
  // The query on each shard (Route), merged (Merge).
  std::vector<std::unique_ptr<ShardRows>> routes;
  for (const auto& conn : conns) {
    ShardQuery::Options o;
    o.conn = conn;
    o.request = shared_request;
    o.sql = merge.shard_sql;
    o.in_transaction = in_transaction;
    o.bounded = merge.limit_pushed;
    o.other = session.other;
    routes.push_back(std::make_unique<ShardQuery>(std::move(o)));
  }
  MergeTreeOptions options;
  options.text_order = std::move(text_order);
  options.client_formats = std::move(client_formats);
  options.exact_floats = session.exact_floats;
  options.memory_limit = session.query_memory;
  options.temp_directory = session.temp_directory;
  co_return make_merge_tree(std::move(merge), std::move(routes), std::move(options));
}

}  // namespace pgrange::proxy::exec
