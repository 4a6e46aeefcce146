// The operators that merge the shards' answers (exec::make_merge_tree), per row, over shards
// held in memory: a k-way merge in ORDER BY order, an Append, a merge that drops a hidden sort
// column and stops at a LIMIT, and partial aggregates combined per group. The baseline is the
// floor of any merge: the same rows handed up as DataRow messages with nothing merged.

#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "proxy/exec/merge_build.hpp"
#include "routing/merge/merge_rows.hpp"
#include "sql/merge_query.hpp"

namespace {

using namespace pgrange;
using proxy::awaitable;
namespace asio = boost::asio;

constexpr uint32_t kInt4 = 23, kInt8 = 20, kText = 25;

/// A shard whose rows are in memory.
class MemoryShard final : public proxy::exec::ShardRows {
 public:
  MemoryShard(std::string columns, const std::vector<std::string>* rows)
      : columns_(std::move(columns)), rows_(rows) {}
  awaitable<proxy::exec::ExecResult<void>> start() override {
    co_return proxy::exec::ExecResult<void>{};
  }
  awaitable<proxy::exec::ExecResult<void>> open() override {
    co_return proxy::exec::ExecResult<void>{};
  }
  std::string columns() const override { return columns_; }
  bool ended() const override { return next_ == rows_->size(); }
  awaitable<proxy::exec::ExecResult<bool>> next_row(std::string& body) override {
    if (next_ == rows_->size()) co_return false;
    body = (*rows_)[next_++];
    ++rows_out_;
    co_return true;
  }
  awaitable<void> close(bool) override { co_return; }
  std::vector<const proxy::exec::Operator*> inputs() const override { return {}; }
  std::string describe() const override { return "memory"; }

 private:
  std::string columns_;
  const std::vector<std::string>* rows_;
  size_t next_ = 0;
};

std::string describe(const std::vector<std::pair<std::string, uint32_t>>& columns) {
  std::vector<routing::ResultField> fields;
  for (const auto& [name, oid] : columns) {
    routing::ResultField f;
    f.name = name;
    f.type_oid = oid;
    f.type_len = oid == kText ? -1 : (oid == kInt8 ? 8 : 4);
    fields.push_back(f);
  }
  return routing::write_row_description(fields);
}

constexpr int kShards = 3;
constexpr int kRowsPerShard = 100'000;

/// Shard s holds ids s, s+3, s+6, …: (id, name, and the id again as a hidden sort column).
const std::vector<std::vector<std::string>>& ordered_rows(bool hidden) {
  static std::vector<std::vector<std::string>> plain, with_hidden;
  auto& rows = hidden ? with_hidden : plain;
  if (rows.empty()) {
    rows.resize(kShards);
    for (int s = 0; s < kShards; ++s) {
      for (int i = 0; i < kRowsPerShard; ++i) {
        std::string id = std::to_string(i * kShards + s);
        routing::RowValues v = {id, "name-" + id};
        if (hidden) v.push_back(id);
        rows[s].push_back(routing::data_row_body(v));
      }
    }
  }
  return rows;
}

/// Partial (count, sum) per group: each shard has every group of 10,000.
const std::vector<std::vector<std::string>>& group_rows() {
  static std::vector<std::vector<std::string>> rows;
  if (rows.empty()) {
    rows.resize(kShards);
    for (int s = 0; s < kShards; ++s) {
      for (int g = 0; g < 10'000; ++g) {
        rows[s].push_back(routing::data_row_body(
            {std::to_string(g), std::to_string(10 + s), std::to_string(1000 * g + s)}));
      }
    }
  }
  return rows;
}

sql::MergeQuery plan(const std::string& sql) {
  static const std::vector<std::string> keys = {"id"};
  static const std::vector<std::string> columns = {"id", "grp", "name", "amount"};
  return *sql::plan_merge(sql, keys, columns);
}

/// Runs the merge tree of `q` over the shards' rows to its end; the rows it handed up.
uint64_t run(const sql::MergeQuery& q, const std::string& columns,
             const std::vector<std::vector<std::string>>& shards) {
  std::vector<std::unique_ptr<proxy::exec::ShardRows>> inputs;
  for (const auto& rows : shards) inputs.push_back(std::make_unique<MemoryShard>(columns, &rows));
  auto root = proxy::exec::make_merge_tree(q, std::move(inputs), {});
  asio::io_context io;
  uint64_t rows = 0;
  asio::co_spawn(
      io,
      [&]() -> awaitable<void> {
        if (!co_await root->open()) co_return;
        for (;;) {
          proxy::exec::Batch batch;
          auto more = co_await root->next(batch);
          rows += batch.rows;
          benchmark::DoNotOptimize(batch.data.data());
          if (!more || !*more) break;
        }
        co_await root->close(false);
      },
      asio::detached);
  io.run();
  return rows;
}

void BM_Baseline_RowsHandedUp(benchmark::State& state) {
  const auto& shards = ordered_rows(false);
  uint64_t rows = 0;
  for (auto _ : state) {
    for (const auto& shard : shards) {
      std::string batch;
      for (const std::string& body : shard) {
        std::string copy = body;  // what a shard's row costs to take
        routing::append_data_row(batch, copy);
        ++rows;
        if (batch.size() > 64 * 1024) {
          benchmark::DoNotOptimize(batch.data());
          batch.clear();
        }
      }
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(rows));
}
BENCHMARK(BM_Baseline_RowsHandedUp)->Unit(benchmark::kMillisecond);

void BM_MergeTree_Append(benchmark::State& state) {
  auto q = plan("SELECT id, name FROM t");
  const std::string d = describe({{"id", kInt4}, {"name", kText}});
  uint64_t rows = 0;
  for (auto _ : state) rows += run(q, d, ordered_rows(false));
  state.SetItemsProcessed(static_cast<int64_t>(rows));
}
BENCHMARK(BM_MergeTree_Append)->Unit(benchmark::kMillisecond);

void BM_MergeTree_OrderBy(benchmark::State& state) {
  auto q = plan("SELECT id, name FROM t ORDER BY id");
  const std::string d = describe({{"id", kInt4}, {"name", kText}});
  uint64_t rows = 0;
  for (auto _ : state) rows += run(q, d, ordered_rows(false));
  state.SetItemsProcessed(static_cast<int64_t>(rows));
}
BENCHMARK(BM_MergeTree_OrderBy)->Unit(benchmark::kMillisecond);

void BM_MergeTree_OrderByHiddenColumnWithOffset(benchmark::State& state) {
  // ORDER BY a column not selected: the shards add it, Project drops it; OFFSET skips most.
  auto q = plan("SELECT id, name FROM t ORDER BY amount OFFSET 100000 LIMIT 100000");
  const std::string d = describe({{"id", kInt4}, {"name", kText}, {"amount", kInt4}});
  uint64_t rows = 0;
  for (auto _ : state) rows += run(q, d, ordered_rows(true));
  state.SetItemsProcessed(static_cast<int64_t>(rows));
}
BENCHMARK(BM_MergeTree_OrderByHiddenColumnWithOffset)->Unit(benchmark::kMillisecond);

void BM_MergeTree_GroupsCombined(benchmark::State& state) {
  // 3 × 10,000 partial groups in, 10,000 combined groups out.
  auto q = plan("SELECT grp, count(*), sum(amount) FROM t GROUP BY grp");
  const std::string d = describe({{"grp", kInt4}, {"count", kInt8}, {"sum", kInt8}});
  uint64_t in = 0;
  for (auto _ : state) {
    run(q, d, group_rows());
    in += kShards * 10'000;
  }
  state.SetItemsProcessed(static_cast<int64_t>(in));
}
BENCHMARK(BM_MergeTree_GroupsCombined)->Unit(benchmark::kMillisecond);

void BM_MergeTree_GroupsCombinedAndSorted(benchmark::State& state) {
  auto q = plan("SELECT grp, count(*), sum(amount) FROM t GROUP BY grp ORDER BY 3 DESC");
  const std::string d = describe({{"grp", kInt4}, {"count", kInt8}, {"sum", kInt8}});
  uint64_t in = 0;
  for (auto _ : state) {
    run(q, d, group_rows());
    in += kShards * 10'000;
  }
  state.SetItemsProcessed(static_cast<int64_t>(in));
}
BENCHMARK(BM_MergeTree_GroupsCombinedAndSorted)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
