// A multi-row INSERT over several shards is sent to each shard with that shard's VALUES rows
// only. Two ways of writing those statements, side by side: the rows cut out of the statement's
// text by one scan of it (routing::shard_statements' way), and each shard's statement written
// from the statement's parse tree (libpg_query parse and deparse per shard, the fallback).

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "sql/insert_rows.hpp"

namespace {

using namespace pgrange;

/// INSERT INTO w (id, v, note) VALUES … of `rows` rows, and the rows of each of three shards
/// (row r on shard r % 3).
struct Insert {
  std::string sql;
  std::vector<std::vector<size_t>> shard_rows{3};
};

Insert make_insert(size_t rows) {
  Insert in;
  in.sql = "INSERT INTO w (id, v, note) VALUES ";
  for (size_t r = 0; r < rows; ++r) {
    if (r > 0) in.sql += ", ";
    in.sql += "(" + std::to_string(r * 100003) + ", 'value " + std::to_string(r) + "', NULL)";
    in.shard_rows[r % 3].push_back(r);
  }
  in.sql += " ON CONFLICT (id) DO UPDATE SET v = excluded.v RETURNING id";
  return in;
}

void BM_SplitByText(benchmark::State& state) {
  Insert in = make_insert(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    auto spans = sql::values_row_spans(in.sql);
    for (const auto& rows : in.shard_rows) {
      benchmark::DoNotOptimize(sql::insert_with_row_spans(in.sql, *spans, rows));
    }
  }
}

void BM_SplitByParseTree(benchmark::State& state) {
  Insert in = make_insert(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    for (const auto& rows : in.shard_rows) {
      benchmark::DoNotOptimize(sql::insert_with_rows(in.sql, rows));
    }
  }
}

BENCHMARK(BM_SplitByText)->Arg(3)->Arg(30)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SplitByParseTree)->Arg(3)->Arg(30)->Arg(10000)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
