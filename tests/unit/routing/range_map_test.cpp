#include "routing/ranges/range_map.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <thread>

#include "routing/keys/key_codec.hpp"
#include "routing/keys/key_space.hpp"

namespace pgrange::routing {
namespace {

// Brute-force model: range starts in order with id and shard; ends are implied.
struct ModelRange {
  std::string start;
  uint64_t id;
  std::string shard;
};

class Model {
 public:
  Model() { ranges_.push_back({"", 1, "s0"}); }

  size_t index_of(std::string_view key) const {
    size_t i = 0;
    for (size_t j = 0; j < ranges_.size(); ++j) {
      if (ranges_[j].start <= key) i = j;
    }
    return i;
  }
  std::string end_of(size_t i) const {
    return i + 1 < ranges_.size() ? ranges_[i + 1].start : std::string(kMaxKey);
  }
  bool split(const std::string& key) {
    size_t i = index_of(key);
    if (ranges_[i].start == key) return false;
    ranges_.insert(ranges_.begin() + static_cast<ptrdiff_t>(i) + 1,
                   {key, next_id_++, ranges_[i].shard});
    return true;
  }
  void merge(size_t i) { ranges_.erase(ranges_.begin() + static_cast<ptrdiff_t>(i) + 1); }
  std::vector<ModelRange> ranges_;
  uint64_t next_id_ = 2;
};

std::string random_key(std::mt19937& rng) {
  static const char kAlphabet[] = {'\x00', '\x01', 'a', '\x7f', '\x80', '\xfe', '\xff'};
  std::string k;
  // Half of the keys share a 7-byte prefix so that the 8-byte-prefix ties path is exercised.
  if (rng() % 2) k = "\x89\x8a\x12user";
  int n = static_cast<int>(rng() % 6) + 1;
  for (int i = 0; i < n; ++i) k.push_back(kAlphabet[rng() % sizeof kAlphabet]);
  if (k >= kMaxKey) k = "\xfe";
  return k;
}

void expect_tiles(const RangeMapSnapshot& s) {
  ASSERT_GT(s.size(), 0u);
  ASSERT_EQ(s.at(0).start_key, kMinKey);
  ASSERT_EQ(s.at(s.size() - 1).end_key, kMaxKey);
  for (size_t i = 0; i < s.size(); ++i) {
    ASSERT_LT(s.at(i).start_key, s.at(i).end_key);
    if (i > 0) {
      ASSERT_EQ(s.at(i - 1).end_key, s.at(i).start_key);
    }
  }
}

TEST(RangeMapTest, AgreesWithBruteForceModelOver100kRandomOps) {
  std::mt19937 rng(42);
  RangeMap map("s0");
  Model model;
  int total_ops = 0;
  while (total_ops < 100000) {
    std::vector<RangeOp> batch;
    for (int k = 0; k < 100; ++k, ++total_ops) {
      int r = static_cast<int>(rng() % 100);
      // Keep the map between a few and ~600 ranges: split more when small, merge when big.
      bool want_split = model.ranges_.size() < 600 && (r < 45 || model.ranges_.size() < 5);
      if (want_split) {
        std::string key = random_key(rng);
        model.split(key);
        batch.push_back(RangeOp::split(key));
      } else if (r < 75 && model.ranges_.size() > 1) {
        size_t i = rng() % (model.ranges_.size() - 1);
        // Merging needs both sides on one shard; move the right one over first.
        if (model.ranges_[i + 1].shard != model.ranges_[i].shard) {
          model.ranges_[i + 1].shard = model.ranges_[i].shard;
          batch.push_back(RangeOp::reassign(model.ranges_[i + 1].id, model.ranges_[i].shard));
        }
        batch.push_back(RangeOp::merge(model.ranges_[i].id));
        model.merge(i);
      } else {
        size_t i = rng() % model.ranges_.size();
        std::string shard = "s" + std::to_string(rng() % 4);
        model.ranges_[i].shard = shard;
        batch.push_back(RangeOp::reassign(model.ranges_[i].id, shard));
      }
    }
    auto changes = map.apply(batch);
    ASSERT_TRUE(changes.has_value()) << changes.error().message;
    ASSERT_EQ(changes->size(), batch.size());
    auto snap = map.snapshot();
    expect_tiles(*snap);
    ASSERT_EQ(snap->size(), model.ranges_.size());
    for (size_t i = 0; i < snap->size(); ++i) {
      ASSERT_EQ(snap->at(i).start_key, model.ranges_[i].start);
      ASSERT_EQ(snap->at(i).range_id, model.ranges_[i].id);
      ASSERT_EQ(snap->at(i).shard, model.ranges_[i].shard);
    }
    std::vector<std::string> keys;
    for (int q = 0; q < 50; ++q) {
      keys.push_back(random_key(rng));
      // Probe exact boundaries too.
      keys.push_back(model.ranges_[rng() % model.ranges_.size()].start);
    }
    for (const auto& key : keys) {
      ASSERT_EQ(snap->find_index(key), model.index_of(key));
      ASSERT_TRUE(snap->lookup(key)->contains(key));
    }
    std::sort(keys.begin(), keys.end());
    std::vector<std::string_view> views(keys.begin(), keys.end());
    std::vector<size_t> batch_out;
    snap->lookup_sorted(views, batch_out);
    for (size_t q = 0; q < keys.size(); ++q) ASSERT_EQ(batch_out[q], model.index_of(keys[q]));
    for (int q = 0; q < 20; ++q) {
      std::string a = random_key(rng), b = random_key(rng);
      if (q == 0) b = std::string(kMaxKey);
      if (b < a) std::swap(a, b);
      auto hit = snap->scan(a, b);
      std::vector<uint64_t> expected;
      for (size_t i = 0; i < model.ranges_.size(); ++i) {
        if (a < b && model.ranges_[i].start < b && model.end_of(i) > a) {
          expected.push_back(model.ranges_[i].id);
        }
      }
      std::vector<uint64_t> got;
      for (const auto& d : hit) got.push_back(d.range_id);
      ASSERT_EQ(got, expected);
    }
    // Many spans at once: every overlapping range once, in key order.
    std::vector<Span> spans;
    for (int q = 0; q < 4; ++q) spans.push_back({random_key(rng), random_key(rng)});
    SpanSet set = normalize_spans(spans);
    std::vector<size_t> expected_idx;
    for (size_t i = 0; i < model.ranges_.size(); ++i) {
      for (const auto& sp : set) {
        if (model.ranges_[i].start < sp.end && model.end_of(i) > sp.start) {
          expected_idx.push_back(i);
          break;
        }
      }
    }
    ASSERT_EQ(snap->scan_spans(set), expected_idx);
  }
  EXPECT_EQ(map.snapshot()->lookup(kMaxKey), nullptr);
}

TEST(RangeMapTest, SplitThenMergeIsIdentityUpToGeneration) {
  std::mt19937 rng(7);
  RangeMap map("a");
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(map.split(random_key(rng)).has_value());
  for (int i = 0; i < 500; ++i) {
    auto before = map.snapshot();
    std::string key = random_key(rng);
    auto split = map.split(key);
    ASSERT_TRUE(split.has_value());
    if (split->no_op) {
      EXPECT_EQ(map.snapshot()->size(), before->size());
      continue;
    }
    ASSERT_EQ(split->before.size(), 1u);
    ASSERT_EQ(split->after.size(), 2u);
    EXPECT_EQ(split->after[0].end_key, key);
    EXPECT_EQ(split->after[1].start_key, key);
    EXPECT_EQ(split->after[0].generation, split->before[0].generation + 1);
    auto merged = map.merge(split->after[0].range_id);
    ASSERT_TRUE(merged.has_value());
    auto after = map.snapshot();
    ASSERT_EQ(after->size(), before->size());
    for (size_t j = 0; j < after->size(); ++j) {
      RangeDescriptor x = after->at(j), y = before->at(j);
      EXPECT_GE(x.generation, y.generation);
      x.generation = y.generation = 0;
      EXPECT_EQ(x, y);
    }
  }
}

TEST(RangeMapTest, ChangesReportOldAndNewDescriptorsAndErrors) {
  RangeMap map("a");
  auto s = map.split("m");
  ASSERT_TRUE(s.has_value());
  EXPECT_FALSE(s->no_op);
  auto again = map.split("m");
  ASSERT_TRUE(again.has_value());
  EXPECT_TRUE(again->no_op);
  EXPECT_EQ(map.snapshot()->size(), 2u);
  uint64_t right = s->after[1].range_id;
  auto moved = map.reassign(right, "b");
  ASSERT_TRUE(moved.has_value());
  EXPECT_EQ(moved->before[0].shard, "a");
  EXPECT_EQ(moved->after[0].shard, "b");
  EXPECT_EQ(moved->after[0].generation, moved->before[0].generation + 1);
  EXPECT_TRUE(map.reassign(right, "b")->no_op);
  EXPECT_EQ(map.merge(1).error().sqlstate, "55000");      // different shards
  EXPECT_EQ(map.merge(right).error().sqlstate, "55000");  // last range
  EXPECT_EQ(map.merge(999).error().sqlstate, "22023");
  EXPECT_EQ(map.split("").error().sqlstate, "22023");
  EXPECT_EQ(map.split(kMaxKey).error().sqlstate, "22023");
  // A failing batch publishes nothing.
  uint64_t version = map.snapshot()->version();
  std::vector<RangeOp> ops = {RangeOp::split("c"), RangeOp::merge(999)};
  EXPECT_FALSE(map.apply(ops).has_value());
  EXPECT_EQ(map.snapshot()->version(), version);
  EXPECT_EQ(map.snapshot()->size(), 2u);
  // A split keeps its enforced-until time on the new right-hand range.
  auto e = map.split("d", 12345);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->after[1].split_enforced_until, 12345);
}

TEST(RangeMapTest, SplitAtAPrefixOfTheKeyColumns) {
  // Split a (tenant_id, ts) index at tenant 7: every key of tenant 7 lands right of it.
  RangeMap map("a");
  std::string tenant7 = index_prefix(53, 1);
  append_key_value(tenant7, {KeyType::kInt8}, int64_t{7});
  ASSERT_FALSE(map.split(tenant7)->no_op);
  ASSERT_FALSE(map.split(prefix_end(tenant7))->no_op);
  auto snap = map.snapshot();
  for (int64_t ts : {INT64_MIN, int64_t{0}, INT64_MAX}) {
    std::string k = tenant7;
    append_key_value(k, {KeyType::kTimestamptz}, ts);
    EXPECT_EQ(snap->find_index(k), 1u);
  }
  std::string k6 = index_prefix(53, 1);
  append_key_value(k6, {KeyType::kInt8}, int64_t{6});
  append_key_null(k6, {KeyType::kTimestamptz});
  EXPECT_EQ(snap->find_index(k6), 0u);
  auto hit = snap->scan_spans({prefix_span(tenant7)});
  EXPECT_EQ(hit, std::vector<size_t>{1});
}

TEST(RangeMapTest, FromDescriptorsValidatesTiling) {
  std::vector<RangeDescriptor> good = {{1, "", "m", "a", 1, {}},
                                       {2, "m", std::string(kMaxKey), "b", 1, {}}};
  auto m = RangeMap::from_descriptors(good);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ((*m)->snapshot()->lookup("z")->shard, "b");
  // New ids continue after the largest loaded one.
  EXPECT_EQ((*m)->split("x")->after[1].range_id, 3u);
  auto gap = good;
  gap[1].start_key = "n";
  EXPECT_EQ(RangeMap::from_descriptors(gap).error().sqlstate, "22023");
  auto dup = good;
  dup[1].range_id = 1;
  EXPECT_FALSE(RangeMap::from_descriptors(dup).has_value());
  auto short_end = good;
  short_end[1].end_key = "z";
  EXPECT_FALSE(RangeMap::from_descriptors(short_end).has_value());
  EXPECT_FALSE(RangeMap::from_descriptors({}).has_value());
}

TEST(RangeMapTest, ReadersNeverSeeATornMap) {
  RangeMap map("a");
  std::atomic<bool> done{false};
  std::atomic<int> checks{0};
  auto reader = [&] {
    std::mt19937 rng(std::hash<std::thread::id>{}(std::this_thread::get_id()));
    while (!done.load()) {
      auto snap = map.snapshot();
      // Tiling and lookups must hold for every published snapshot.
      bool ok = snap->at(0).start_key.empty() && snap->at(snap->size() - 1).end_key == kMaxKey;
      for (size_t i = 1; i < snap->size(); ++i)
        ok = ok && snap->at(i - 1).end_key == snap->at(i).start_key;
      std::string key = random_key(rng);
      ok = ok && snap->lookup(key)->contains(key);
      EXPECT_TRUE(ok);
      checks.fetch_add(1);
    }
  };
  std::vector<std::thread> readers;
  for (int i = 0; i < 3; ++i) readers.emplace_back(reader);
  std::mt19937 rng(1);
  for (int i = 0; i < 3000; ++i) {
    auto snap = map.snapshot();
    if (snap->size() > 50 && rng() % 2) {
      ASSERT_TRUE(map.merge(snap->at(rng() % (snap->size() - 1)).range_id).has_value());
    } else {
      ASSERT_TRUE(map.split(random_key(rng)).has_value());
    }
  }
  done = true;
  for (auto& t : readers) t.join();
  EXPECT_GT(checks.load(), 0);
}

}  // namespace
}  // namespace pgrange::routing
