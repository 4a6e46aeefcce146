#include "routing/plan/hash_sharding.hpp"

#include <gtest/gtest.h>

#include "routing/keys/hash_bucket.hpp"
#include "routing/keys/key_space.hpp"

namespace pgrange::routing {
namespace {

TableDescriptor hashed_table(uint32_t buckets) {
  TableDescriptor t;
  t.table_id = 120;
  t.name = "ev";
  t.key_source = KeySource::kPrimaryKey;
  t.key = {{"id", {KeyType::kInt8}}};
  make_hash_sharded(t, buckets);
  return t;
}

std::string key_of(uint64_t table_id, std::vector<std::optional<std::string_view>> values,
                   std::vector<KeyColumn> columns) {
  auto k = encode_key_text(table_id, 1, columns, values);
  EXPECT_TRUE(k.has_value());
  return k.value_or("");
}

TEST(HashSharding, TheBucketColumnComesFirst) {
  TableDescriptor t = hashed_table(8);
  ASSERT_EQ(t.key.size(), 2u);
  EXPECT_EQ(t.key[0].name, "crdb_internal_id_shard_8");
  EXPECT_EQ(t.key[0].column, kHashBucketColumn);
  ASSERT_EQ(row_key_columns(t).size(), 1u);
  EXPECT_EQ(row_key_columns(t)[0].name, "id");
}

TEST(HashSharding, RowKeysStartWithTheRowsBucket) {
  TableDescriptor t = hashed_table(8);
  for (int64_t id : {1, 2, 1000, -5}) {
    std::optional<KeyValue> v[1] = {KeyValue{id}};
    KeyType types[1] = {KeyType::kInt8};
    uint32_t b = hash_bucket(types, v, 8);
    EXPECT_EQ(row_bucket(t, v), b);
    std::string b_text = std::to_string(b), id_text = std::to_string(id);
    EXPECT_EQ(row_key(t, v), key_of(120, {b_text, id_text}, {kHashBucketColumn, {KeyType::kInt8}}));
  }
}

TEST(HashSharding, PointsStayInTheirBucketOtherSpansGoToEveryBucket) {
  TableDescriptor t = hashed_table(4);
  const std::string index = index_prefix(120, 1);
  std::string five = index;
  append_key_value(five, {KeyType::kInt8}, KeyValue{int64_t{5}});
  std::optional<KeyValue> v[1] = {KeyValue{int64_t{5}}};
  SpanSet points = spread_over_buckets(t, {point_span(five)});
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0], point_span(row_key(t, v)));

  SpanSet all = spread_over_buckets(t, {prefix_span(index)});
  ASSERT_EQ(all.size(), 1u);  // the buckets' spans touch: one span over the index
  EXPECT_EQ(all[0].start, key_of(120, {"0"}, {kHashBucketColumn}));
  EXPECT_EQ(all[0].end, prefix_end(key_of(120, {"3"}, {kHashBucketColumn})));

  std::string ten = index, twenty = index;
  append_key_value(ten, {KeyType::kInt8}, KeyValue{int64_t{10}});
  append_key_value(twenty, {KeyType::kInt8}, KeyValue{int64_t{20}});
  SpanSet spans = spread_over_buckets(t, {Span{ten, twenty}});
  ASSERT_EQ(spans.size(), 4u);
  for (uint32_t b = 0; b < 4; ++b) {
    std::string bt = std::to_string(b);
    EXPECT_EQ(spans[b].start, key_of(120, {bt, "10"}, {kHashBucketColumn, {KeyType::kInt8}}));
    EXPECT_EQ(spans[b].end, key_of(120, {bt, "20"}, {kHashBucketColumn, {KeyType::kInt8}}));
  }
}

TEST(HashSharding, KeyColumnSqlComputesTheBucket) {
  TableDescriptor t = hashed_table(8);
  auto sql = key_column_sql(t);
  ASSERT_EQ(sql.size(), 2u);
  EXPECT_EQ(sql[0], "((coalesce(hashint8((\"id\")), 0)::int8 & 4294967295) % 8)");
  EXPECT_EQ(sql[1], "\"id\"");
}

}  // namespace
}  // namespace pgrange::routing
