// Range map lookup against std::map and a sorted std::vector + std::upper_bound (the
// baseline the range map must beat: <= 0.7x its time at 100k ranges), the batched merge
// walk, and key encoding cost. Run: build/bench/range_map_bench --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "routing/keys/key_codec.hpp"
#include "routing/keys/key_space.hpp"
#include "routing/ranges/range_map.hpp"

namespace pgrange::routing {
namespace {

constexpr size_t kProbeKeys = 1 << 16;

// Keys of /Table/53/1/<int8 id> for random ids: the usual primary-key layout.
std::string id_key(int64_t id) {
  std::string k = index_prefix(53, 1);
  append_key_value(k, {KeyType::kInt8}, id);
  return k;
}

struct Fixture {
  std::vector<std::string> starts;  // sorted, starts[0] == /Min
  std::unique_ptr<RangeMapSnapshot> snapshot;
  std::map<std::string, size_t, std::less<>> tree;
  std::vector<std::string> probes;
};

const Fixture& fixture(size_t ranges) {
  static std::map<size_t, std::unique_ptr<Fixture>> cache;
  auto& f = cache[ranges];
  if (f) return *f;
  f = std::make_unique<Fixture>();
  std::mt19937_64 rng(ranges);
  std::vector<std::string> starts = {std::string(kMinKey)};
  while (starts.size() < ranges) starts.push_back(id_key(static_cast<int64_t>(rng() >> 1)));
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  std::vector<RangeDescriptor> descs;
  for (size_t i = 0; i < starts.size(); ++i) {
    descs.push_back({i + 1, starts[i], i + 1 < starts.size() ? starts[i + 1] : std::string(kMaxKey),
                     "shard" + std::to_string(i % 8), 1, std::nullopt});
    f->tree.emplace(starts[i], i);
  }
  f->snapshot = std::make_unique<RangeMapSnapshot>(std::move(descs), 1);
  f->starts = std::move(starts);
  for (size_t i = 0; i < kProbeKeys; ++i)
    f->probes.push_back(id_key(static_cast<int64_t>(rng() >> 1)));
  return *f;
}

void BM_RangeMapLookup(benchmark::State& state) {
  const Fixture& f = fixture(static_cast<size_t>(state.range(0)));
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(f.snapshot->find_index(f.probes[i++ & (kProbeKeys - 1)]));
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_SortedVectorUpperBound(benchmark::State& state) {
  const Fixture& f = fixture(static_cast<size_t>(state.range(0)));
  size_t i = 0;
  for (auto _ : state) {
    const std::string& key = f.probes[i++ & (kProbeKeys - 1)];
    auto it = std::upper_bound(f.starts.begin(), f.starts.end(), key);
    benchmark::DoNotOptimize(static_cast<size_t>(it - f.starts.begin()) - 1);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_StdMapUpperBound(benchmark::State& state) {
  const Fixture& f = fixture(static_cast<size_t>(state.range(0)));
  size_t i = 0;
  for (auto _ : state) {
    auto it = f.tree.upper_bound(f.probes[i++ & (kProbeKeys - 1)]);
    benchmark::DoNotOptimize(std::prev(it)->second);
  }
  state.SetItemsProcessed(state.iterations());
}

// Sorted batches of 1024 keys resolved by the merge walk; items = keys.
void BM_RangeMapLookupSortedBatch(benchmark::State& state) {
  const Fixture& f = fixture(static_cast<size_t>(state.range(0)));
  // Each batch owns its sorted keys contiguously, as a caller that sorted its keys would;
  // views into the shuffled probe pool would measure cache misses on the keys instead.
  std::vector<std::vector<std::string>> storage;
  std::vector<std::vector<std::string_view>> batches;
  for (size_t b = 0; b < kProbeKeys / 1024; ++b) {
    std::vector<std::string> keys(f.probes.begin() + static_cast<ptrdiff_t>(b * 1024),
                                  f.probes.begin() + static_cast<ptrdiff_t>((b + 1) * 1024));
    std::sort(keys.begin(), keys.end());
    storage.push_back(std::move(keys));
  }
  for (const auto& keys : storage) batches.emplace_back(keys.begin(), keys.end());
  std::vector<size_t> out;
  size_t b = 0;
  for (auto _ : state) {
    f.snapshot->lookup_sorted(batches[b++ % batches.size()], out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * 1024);
}

void BM_EncodeInt8Text(benchmark::State& state) {
  std::mt19937_64 rng(1);
  std::vector<std::string> texts;
  for (int i = 0; i < 1024; ++i) texts.push_back(std::to_string(static_cast<int64_t>(rng())));
  std::string key;
  size_t i = 0;
  for (auto _ : state) {
    key.assign(index_prefix(53, 1));
    auto r = append_text_value(key, {KeyType::kInt8}, texts[i++ & 1023]);
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(key.data());
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_EncodeInt8Value(benchmark::State& state) {
  std::string key;
  int64_t v = 123456789;
  for (auto _ : state) {
    key.clear();
    append_key_value(key, {KeyType::kInt8}, KeyValue{v++});
    benchmark::DoNotOptimize(key.data());
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_EncodeText(benchmark::State& state) {
  std::vector<std::string> texts;
  for (int i = 0; i < 1024; ++i)
    texts.push_back("user" + std::to_string(i * 7919) + "@example.com");
  std::string key;
  size_t i = 0;
  for (auto _ : state) {
    key.clear();
    auto r = append_text_value(key, {KeyType::kText}, texts[i++ & 1023]);
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(key.data());
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(BM_RangeMapLookup)->Arg(1000)->Arg(100000)->Arg(1000000);
BENCHMARK(BM_SortedVectorUpperBound)->Arg(1000)->Arg(100000)->Arg(1000000);
BENCHMARK(BM_StdMapUpperBound)->Arg(1000)->Arg(100000)->Arg(1000000);
BENCHMARK(BM_RangeMapLookupSortedBatch)->Arg(1000)->Arg(100000)->Arg(1000000);
BENCHMARK(BM_EncodeInt8Text);
BENCHMARK(BM_EncodeInt8Value);
BENCHMARK(BM_EncodeText);

}  // namespace
}  // namespace pgrange::routing

BENCHMARK_MAIN();
