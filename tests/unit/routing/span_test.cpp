#include "routing/keys/span.hpp"

#include <gtest/gtest.h>

#include <random>

#include "routing/keys/key_space.hpp"

namespace pgrange::routing {
namespace {

std::string with(std::string_view prefix, const KeyColumn& col, const std::optional<KeyValue>& v) {
  std::string k(prefix);
  if (v) {
    append_key_value(k, col, *v);
  } else {
    append_key_null(k, col);
  }
  return k;
}

TEST(SpanTest, StringPrefixSpanHoldsExactlyTheExtensions) {
  std::mt19937 rng(3);
  const char alphabet[] = {'\x00', '\x01', 'a', 'b', '\xfe', '\xff'};
  auto random_string = [&] {
    std::string s;
    int n = static_cast<int>(rng() % 5);
    for (int i = 0; i < n; ++i) s.push_back(alphabet[rng() % sizeof alphabet]);
    return s;
  };
  const std::string prefix = index_prefix(53, 1);
  for (bool desc : {false, true}) {
    KeyColumn col{KeyType::kBytea, desc};
    for (int i = 0; i < 300; ++i) {
      std::string p = random_string();
      Span span = string_prefix_span(prefix, col, p);
      for (int j = 0; j < 100; ++j) {
        std::string s = j < 5 ? p + random_string() : random_string();
        // A second key column after the string must not matter.
        std::string k =
            with(with(prefix, col, KeyValue{s}), {KeyType::kInt8}, KeyValue{int64_t{j}});
        ASSERT_EQ(span.contains(k), s.substr(0, p.size()) == p) << "desc=" << desc;
      }
      ASSERT_FALSE(span.contains(with(prefix, col, std::nullopt)));
    }
  }
}

TEST(SpanTest, IntervalSpansMatchComparisonsAndExcludeNull) {
  std::mt19937 rng(9);
  std::string prefix = index_prefix(53, 1);
  append_key_value(prefix, {KeyType::kInt8}, int64_t{7});  // tenant_id = 7
  for (bool desc : {false, true}) {
    for (NullsOrder nulls : {NullsOrder::kDefault, NullsOrder::kFirst, NullsOrder::kLast}) {
      KeyColumn col{KeyType::kInt4, desc, nulls};
      for (int i = 0; i < 500; ++i) {
        std::optional<ColumnBound> lo, hi;
        int64_t l = static_cast<int64_t>(rng() % 21) - 10,
                h = static_cast<int64_t>(rng() % 21) - 10;
        if (rng() % 3) lo = ColumnBound{l, rng() % 2 == 0};
        if (rng() % 3) hi = ColumnBound{h, rng() % 2 == 0};
        Span span = interval_span(prefix, col, lo, hi);
        for (int64_t v = -12; v <= 12; ++v) {
          bool want = (!lo || (lo->inclusive ? v >= l : v > l)) &&
                      (!hi || (hi->inclusive ? v <= h : v < h));
          std::string k =
              with(with(prefix, col, KeyValue{v}), {KeyType::kText}, KeyValue{std::string("x")});
          ASSERT_EQ(span.contains(k), want) << v << " desc=" << desc;
          ASSERT_EQ(span.contains(with(prefix, col, KeyValue{v})), want);
        }
        ASSERT_FALSE(span.contains(with(prefix, col, std::nullopt)));
        ASSERT_FALSE(span.contains(with(prefix, col, std::nullopt) + "\x12x"));
      }
      Span nulls_only = null_span(prefix, col);
      EXPECT_TRUE(nulls_only.contains(with(prefix, col, std::nullopt)));
      EXPECT_FALSE(nulls_only.contains(with(prefix, col, KeyValue{int64_t{0}})));
    }
  }
}

TEST(SpanTest, PointPrefixTableAndIndexSpans) {
  std::string k = index_prefix(53, 1);
  append_key_value(k, {KeyType::kInt8}, int64_t{4718});
  Span p = point_span(k);
  EXPECT_TRUE(p.contains(k));
  std::string next = index_prefix(53, 1);
  append_key_value(next, {KeyType::kInt8}, int64_t{4719});
  EXPECT_FALSE(p.contains(next));
  EXPECT_TRUE(index_span(53, 1).contains(k));
  EXPECT_FALSE(index_span(53, 2).contains(k));
  EXPECT_TRUE(table_span(53).contains(k));
  EXPECT_FALSE(table_span(54).contains(k));
  EXPECT_EQ(full_span().start, kMinKey);
  EXPECT_EQ(full_span().end, kMaxKey);
  EXPECT_TRUE(prefix_span(index_prefix(53, 1)).contains(k));
}

TEST(SpanTest, UnionAndIntersectionMatchBruteForce) {
  std::mt19937 rng(13);
  auto key = [](int i) { return std::string(1, static_cast<char>('a' + i)); };
  auto random_set = [&] {
    std::vector<Span> spans;
    int n = static_cast<int>(rng() % 5);
    for (int i = 0; i < n; ++i) {
      int a = static_cast<int>(rng() % 20), b = static_cast<int>(rng() % 20);
      spans.push_back({key(a), key(b)});
    }
    return normalize_spans(spans);
  };
  auto in = [](const SpanSet& s, const std::string& k) {
    for (const auto& sp : s) {
      if (sp.contains(k)) return true;
    }
    return false;
  };
  for (int i = 0; i < 2000; ++i) {
    SpanSet a = random_set(), b = random_set();
    SpanSet u = union_spans(a, b), x = intersect_spans(a, b);
    for (size_t j = 1; j < u.size(); ++j) ASSERT_LT(u[j - 1].end, u[j].start);
    for (size_t j = 1; j < x.size(); ++j) ASSERT_LE(x[j - 1].end, x[j].start);
    for (int c = 0; c < 21; ++c) {
      std::string k = key(c);
      ASSERT_EQ(in(u, k), in(a, k) || in(b, k));
      ASSERT_EQ(in(x, k), in(a, k) && in(b, k));
    }
  }
}

}  // namespace
}  // namespace pgrange::routing
