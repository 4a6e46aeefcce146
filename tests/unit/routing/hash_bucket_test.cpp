#include "routing/keys/hash_bucket.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "routing/keys/key_space.hpp"
#include "routing/ranges/range_map.hpp"

namespace pgrange::routing {
namespace {

int32_t h(KeyType type, std::string_view text) {
  auto v = parse_text_value(type, text);
  EXPECT_TRUE(v.has_value()) << text;
  return static_cast<int32_t>(pg_hash_value(type, *v));
}

// Known answers from PostgreSQL 15 (SELECT hashint4(0), hashtext('a'), ...).
TEST(HashBucketTest, MatchesPostgresHashFunctions) {
  EXPECT_EQ(h(KeyType::kInt4, "0"), -272711505);
  EXPECT_EQ(h(KeyType::kInt4, "1"), -1905060026);
  EXPECT_EQ(h(KeyType::kInt4, "-1"), 385747274);
  EXPECT_EQ(h(KeyType::kInt2, "7"), -978793473);
  EXPECT_EQ(h(KeyType::kInt8, "0"), -272711505);
  EXPECT_EQ(h(KeyType::kInt8, "-1"), 385747274);
  EXPECT_EQ(h(KeyType::kInt8, "5000000000"), -694934712);
  EXPECT_EQ(h(KeyType::kInt8, "-5000000000"), 954517114);
  EXPECT_EQ(h(KeyType::kText, ""), -1477818771);
  EXPECT_EQ(h(KeyType::kText, "a"), 1075015857);
  EXPECT_EQ(h(KeyType::kText, "abcdefghijkl"), -1586087212);
  EXPECT_EQ(h(KeyType::kVarchar, "hello world, this is long"), -1137652777);
  EXPECT_EQ(h(KeyType::kBpchar, "ab  "), 1718550461);
  EXPECT_EQ(h(KeyType::kFloat8, "1.5"), 630860146);
  EXPECT_EQ(h(KeyType::kFloat4, "1.5"), 630860146);
  EXPECT_EQ(h(KeyType::kFloat8, "-0"), 0);
  EXPECT_EQ(h(KeyType::kFloat8, "NaN"), -1275764840);
  EXPECT_EQ(h(KeyType::kNumeric, "0"), -1);
  EXPECT_EQ(h(KeyType::kNumeric, "1.000"), 1324868424);
  EXPECT_EQ(h(KeyType::kNumeric, "12345.678"), 573919094);
  EXPECT_EQ(h(KeyType::kNumeric, "-0.0001"), -1324868425);
  EXPECT_EQ(h(KeyType::kNumeric, "100000000"), 1324868426);
  EXPECT_EQ(h(KeyType::kNumeric, "1.5e-9"), -2110138894);
  EXPECT_EQ(h(KeyType::kNumeric, "NaN"), 0);
  EXPECT_EQ(h(KeyType::kUuid, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), 1154666245);
  EXPECT_EQ(h(KeyType::kBytea, "\\x00ff"), 1010687097);
}

TEST(HashBucketTest, BucketsAreInRangeAndSqlNamesEveryColumn) {
  std::vector<KeyType> types = {KeyType::kInt8, KeyType::kText};
  for (int i = 0; i < 1000; ++i) {
    std::vector<std::optional<KeyValue>> vals = {KeyValue{int64_t{i}},
                                                 KeyValue{std::string("u") + std::to_string(i)}};
    EXPECT_LT(hash_bucket(types, vals, 7), 7u);
  }
  // A single column: the bucket is the unsigned hash mod N.
  std::vector<std::optional<KeyValue>> one = {KeyValue{int64_t{-1}}};
  std::vector<KeyType> one_type = {KeyType::kInt8};
  EXPECT_EQ(hash_bucket(one_type, one, 1000), 385747274u % 1000);
  std::vector<HashColumn> cols = {{"\"id\"", KeyType::kInt8}, {"email", KeyType::kText}};
  std::string sql = hash_bucket_sql(cols, 16);
  EXPECT_NE(sql.find("hashint8((\"id\"))"), std::string::npos) << sql;
  EXPECT_NE(sql.find("hashtext((email)::text COLLATE \"C\")"), std::string::npos) << sql;
  EXPECT_NE(sql.find("% 16"), std::string::npos) << sql;
}

// The hot spot: sequential ids all hit the last of 64 ranges; behind a hash-bucket prefix
// the same ids spread over all 64.
TEST(HashBucketTest, HashPrefixSpreadsMonotonicKeysOverAllRanges) {
  const KeyColumn id_col{KeyType::kInt8};
  std::vector<std::string> keys;
  for (int64_t id = 1; id <= 100000; ++id) {
    std::string k = index_prefix(53, 1);
    append_key_value(k, id_col, id);
    keys.push_back(std::move(k));
  }
  RangeMap plain("s");
  std::vector<RangeOp> splits;
  for (int i = 1; i < 64; ++i) {
    // Even split of the int8 key space.
    std::string k = index_prefix(53, 1);
    append_key_value(
        k, id_col,
        static_cast<int64_t>(INT64_MIN + static_cast<uint64_t>(i) * (uint64_t{1} << 58)));
    splits.push_back(RangeOp::split(k));
  }
  ASSERT_TRUE(plain.apply(splits).has_value());
  ASSERT_EQ(plain.snapshot()->size(), 64u);
  std::set<uint64_t> hit;
  for (const auto& k : keys) hit.insert(plain.snapshot()->lookup(k)->range_id);
  EXPECT_EQ(hit.size(), 1u);

  RangeMap hashed("s");
  splits.clear();
  for (int b = 1; b < 64; ++b) {
    std::string k = index_prefix(53, 2);
    append_key_value(k, kHashBucketColumn, int64_t{b});
    splits.push_back(RangeOp::split(k));
  }
  ASSERT_TRUE(hashed.apply(splits).has_value());
  std::vector<std::string> hashed_keys;
  const std::vector<KeyType> types = {KeyType::kInt8};
  for (int64_t id = 1; id <= 100000; ++id) {
    std::vector<std::optional<KeyValue>> vals = {KeyValue{id}};
    std::string k = index_prefix(53, 2);
    append_key_value(k, kHashBucketColumn, int64_t{hash_bucket(types, vals, 64)});
    append_key_value(k, id_col, id);
    hashed_keys.push_back(std::move(k));
  }
  std::sort(hashed_keys.begin(), hashed_keys.end());
  std::vector<std::string_view> views(hashed_keys.begin(), hashed_keys.end());
  std::vector<size_t> idx;
  auto snap = hashed.snapshot();
  snap->lookup_sorted(views, idx);
  std::map<size_t, int> per_range;
  for (size_t i : idx) ++per_range[i];
  EXPECT_EQ(per_range.size(), 64u);
  for (auto [range, count] : per_range) {
    EXPECT_GT(count, 100000 / 64 * 8 / 10) << "range " << range;
    EXPECT_LT(count, 100000 / 64 * 12 / 10) << "range " << range;
  }
}

}  // namespace
}  // namespace pgrange::routing
