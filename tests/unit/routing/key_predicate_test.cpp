#include "routing/plan/key_predicate.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "routing/keys/key_space.hpp"

namespace pgrange::routing {
namespace {

constexpr uint64_t kId = 100;

TableDescriptor table_of(KeySource source, std::vector<KeyColumnDef> key) {
  TableDescriptor t;
  t.table_id = kId;
  t.schema = "app";
  t.name = "items";
  t.key_source = source;
  t.key = std::move(key);
  return t;
}

TableDescriptor int8_table() {
  return table_of(KeySource::kPrimaryKey, {{"id", {KeyType::kInt8}}});
}

// (a int4, b text), from the configuration: the columns may hold NULL.
TableDescriptor composite_table() {
  return table_of(KeySource::kConfig, {{"a", {KeyType::kInt4}}, {"b", {KeyType::kText}}});
}

std::string key_of(const TableDescriptor& t, std::vector<std::optional<std::string_view>> values) {
  std::vector<KeyColumn> cols;
  for (const auto& c : t.key) cols.push_back(c.column);
  auto k = encode_key_text(t.table_id, 1, cols, values);
  EXPECT_TRUE(k.has_value()) << k.error().message;
  return k.value_or("");
}

std::string pred(const TableDescriptor& t, std::string_view start, std::string_view end) {
  auto p = key_range_predicate(t, start, end);
  EXPECT_TRUE(p.has_value()) << p.error().message;
  return p.value_or("<error>");
}

TEST(KeyRangePredicateTest, WholeTableIsTrue) {
  auto t = int8_table();
  const std::string idx = index_prefix(kId, 1);
  EXPECT_EQ(pred(t, kMinKey, kMaxKey), "true");
  EXPECT_EQ(pred(t, table_prefix(kId), table_prefix(kId + 1)), "true");
  EXPECT_EQ(pred(t, idx, prefix_end(idx)), "true");
  EXPECT_EQ(pred(t, table_prefix(kId - 1), index_prefix(kId, 2)), "true");
  EXPECT_EQ(pred(t, index_prefix(kId, 0), kMaxKey), "true");
}

TEST(KeyRangePredicateTest, RangesMissingThePrimaryIndexAreFalse) {
  auto t = int8_table();
  const std::string idx = index_prefix(kId, 1);
  EXPECT_EQ(pred(t, kMinKey, table_prefix(kId)), "false");
  EXPECT_EQ(pred(t, kMinKey, idx), "false");
  EXPECT_EQ(pred(t, table_prefix(kId + 1), kMaxKey), "false");
  EXPECT_EQ(pred(t, prefix_end(idx), kMaxKey), "false");
  EXPECT_EQ(pred(t, index_prefix(kId, 2), table_prefix(kId + 1)), "false");
  EXPECT_EQ(pred(t, table_prefix(kId - 1), table_prefix(kId)), "false");
  // Empty and inverted ranges, even inside the table.
  EXPECT_EQ(pred(t, key_of(t, {"5"}), key_of(t, {"5"})), "false");
  EXPECT_EQ(pred(t, key_of(t, {"9"}), key_of(t, {"5"})), "false");
  EXPECT_EQ(pred(t, kMaxKey, kMinKey), "false");
}

TEST(KeyRangePredicateTest, FullKeyBounds) {
  auto t = int8_table();
  EXPECT_EQ(pred(t, key_of(t, {"5"}), key_of(t, {"10"})),
            R"("id" >= '5'::int8 AND "id" < '10'::int8)");
  EXPECT_EQ(pred(t, key_of(t, {"-5"}), kMaxKey), R"("id" >= '-5'::int8)");
  EXPECT_EQ(pred(t, kMinKey, key_of(t, {"10"})), R"("id" < '10'::int8)");
  // Bounds outside the table are clamped away, the other one stays.
  EXPECT_EQ(pred(t, table_prefix(kId), key_of(t, {"10"})), R"("id" < '10'::int8)");
  EXPECT_EQ(pred(t, key_of(t, {"5"}), table_prefix(kId + 1)), R"("id" >= '5'::int8)");
  EXPECT_EQ(pred(t, key_of(t, {"5"}), index_prefix(kId, 2)), R"("id" >= '5'::int8)");
}

TEST(KeyRangePredicateTest, CompositeKeysExpandLexicographically) {
  auto t = composite_table();
  // A prefix bound compares the first column only: (5, anything) >= (5).
  EXPECT_EQ(pred(t, key_of(t, {"5"}), kMaxKey), R"("a" >= '5'::int4 OR "a" IS NULL)");
  EXPECT_EQ(pred(t, kMinKey, key_of(t, {"5"})), R"("a" < '5'::int4)");
  EXPECT_EQ(pred(t, key_of(t, {"5", "x"}), kMaxKey),
            R"(("a" >= '5'::int4 OR "a" IS NULL) AND ("a" > '5'::int4 OR "a" IS NULL OR )"
            R"(("a" = '5'::int4 AND ("b" COLLATE "C" >= 'x'::text OR "b" IS NULL))))");
  EXPECT_EQ(pred(t, kMinKey, key_of(t, {"5", "x"})),
            R"("a" <= '5'::int4 AND ("a" < '5'::int4 OR ("a" = '5'::int4 AND )"
            R"("b" COLLATE "C" < 'x'::text)))");
}

TEST(KeyRangePredicateTest, PrimaryKeyColumnsHaveNoNullTerms) {
  auto t = composite_table();
  t.key_source = KeySource::kPrimaryKey;
  EXPECT_EQ(pred(t, key_of(t, {"5", "x"}), key_of(t, {"7"})),
            R"("a" >= '5'::int4 AND ("a" > '5'::int4 OR ("a" = '5'::int4 AND )"
            R"("b" COLLATE "C" >= 'x'::text)) AND "a" < '7'::int4)");
}

TEST(KeyRangePredicateTest, NullBoundValues) {
  auto t = composite_table();
  // NULL is above every value (ascending, default placement).
  EXPECT_EQ(pred(t, key_of(t, {std::nullopt}), kMaxKey), R"("a" IS NULL)");
  EXPECT_EQ(pred(t, kMinKey, key_of(t, {std::nullopt})), R"("a" IS NOT NULL)");
  EXPECT_EQ(pred(t, key_of(t, {"1", std::nullopt}), kMaxKey),
            R"(("a" >= '1'::int4 OR "a" IS NULL) AND ("a" > '1'::int4 OR "a" IS NULL OR )"
            R"(("a" = '1'::int4 AND "b" IS NULL)))");
  EXPECT_EQ(pred(t, key_of(t, {std::nullopt, "q"}), kMaxKey),
            R"("a" IS NULL AND "a" IS NULL AND ("b" COLLATE "C" >= 'q'::text OR "b" IS NULL))");
  // NULLS FIRST: NULL is below every value.
  t.key[0].column.nulls = NullsOrder::kFirst;
  EXPECT_EQ(pred(t, key_of(t, {std::nullopt}), kMaxKey), "true");
  EXPECT_EQ(pred(t, key_of(t, {"3"}), kMaxKey), R"("a" >= '3'::int4)");
  EXPECT_EQ(pred(t, kMinKey, key_of(t, {"3"})), R"("a" < '3'::int4 OR "a" IS NULL)");
}

TEST(KeyRangePredicateTest, ABoundThatLeavesNullsOutSparesTheOtherItsNullTerm) {
  auto t = composite_table();
  // NULL above every value: an end with a value for `a` leaves NULL out of the range.
  EXPECT_EQ(pred(t, key_of(t, {"1"}), key_of(t, {"3"})), R"("a" >= '1'::int4 AND "a" < '3'::int4)");
  // A whole prefix (a lookup's span: its end decodes as the next integer here).
  EXPECT_EQ(pred(t, key_of(t, {"2"}), prefix_end(key_of(t, {"2"}))),
            R"("a" >= '2'::int4 AND "a" < '3'::int4)");
  EXPECT_EQ(pred(t, key_of(t, {"1", "x"}), key_of(t, {"3", "y"})),
            R"("a" >= '1'::int4 AND ("a" > '1'::int4 OR ("a" = '1'::int4 AND )"
            R"(("b" COLLATE "C" >= 'x'::text OR "b" IS NULL))) AND "a" <= '3'::int4 AND )"
            R"(("a" < '3'::int4 OR ("a" = '3'::int4 AND "b" COLLATE "C" < 'y'::text)))");
  // An end whose `a` is NULL lets NULLs in: the start keeps its NULL term.
  EXPECT_EQ(pred(t, key_of(t, {"1"}), key_of(t, {std::nullopt, "q"})),
            R"(("a" >= '1'::int4 OR "a" IS NULL) AND ("a" IS NOT NULL OR ("a" IS NULL AND )"
            R"("b" COLLATE "C" < 'q'::text)))");
  // NULLS FIRST: the start leaves them out.
  t.key[0].column.nulls = NullsOrder::kFirst;
  EXPECT_EQ(pred(t, key_of(t, {"1"}), key_of(t, {"3"})), R"("a" >= '1'::int4 AND "a" < '3'::int4)");
}

TEST(KeyRangePredicateTest, DescendingColumnsFlipTheComparison) {
  auto t = table_of(KeySource::kConfig, {{"d", {KeyType::kInt8, true}}});
  // DESC: NULL first by default, larger values first. NULL is before 9: no NULL in [9, 2).
  EXPECT_EQ(pred(t, key_of(t, {"9"}), key_of(t, {"2"})), R"("d" <= '9'::int8 AND "d" > '2'::int8)");
  EXPECT_EQ(pred(t, kMinKey, key_of(t, {"2"})), R"("d" > '2'::int8 OR "d" IS NULL)");
  EXPECT_EQ(pred(t, key_of(t, {std::nullopt}), key_of(t, {"2"})),
            R"("d" > '2'::int8 OR "d" IS NULL)");
  EXPECT_EQ(pred(t, kMinKey, key_of(t, {std::nullopt})), "false");
}

TEST(KeyRangePredicateTest, LiteralsAreTypedAndQuoted) {
  auto t = table_of(KeySource::kPrimaryKey, {{"we\"ird", {KeyType::kText}}});
  EXPECT_EQ(pred(t, key_of(t, {"it's"}), kMaxKey), R"("we""ird" COLLATE "C" >= 'it''s'::text)");
  t.key[0].column.type = KeyType::kVarchar;
  // Backslashes: an E'' literal, the same whatever standard_conforming_strings says.
  EXPECT_EQ(pred(t, key_of(t, {"a\\b"}), kMaxKey), R"("we""ird" COLLATE "C" >= E'a\\b'::varchar)");
  t.key[0].column.type = KeyType::kBpchar;
  EXPECT_EQ(pred(t, key_of(t, {"ab  "}), kMaxKey), R"("we""ird" COLLATE "C" >= 'ab'::bpchar)");
  t.key[0].column.type = KeyType::kBytea;
  EXPECT_EQ(pred(t, key_of(t, {"\\x01ff"}), kMaxKey), R"("we""ird" >= E'\\x01ff'::bytea)");
  t.key[0].column.type = KeyType::kUuid;
  EXPECT_EQ(pred(t, key_of(t, {"A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"}), kMaxKey),
            R"("we""ird" >= 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid)");
  t.key[0].column.type = KeyType::kFloat8;
  EXPECT_EQ(pred(t, key_of(t, {"-Infinity"}), key_of(t, {"NaN"})),
            R"("we""ird" >= '-Infinity'::float8 AND "we""ird" < 'NaN'::float8)");
  t.key[0].column.type = KeyType::kTimestamptz;
  EXPECT_EQ(pred(t, key_of(t, {"infinity"}), kMaxKey), R"("we""ird" >= 'infinity'::timestamptz)");
  t.key[0].column.type = KeyType::kDate;
  EXPECT_EQ(pred(t, key_of(t, {"2024-02-29"}), kMaxKey), R"("we""ird" >= '2024-02-29'::date)");
}

TEST(KeyRangePredicateTest, UnshardedTablesAreWhole) {
  auto t = table_of(KeySource::kUnsharded, {});
  EXPECT_EQ(pred(t, kMinKey, kMaxKey), "true");
  EXPECT_EQ(pred(t, table_prefix(kId), table_prefix(kId + 1)), "true");
  EXPECT_EQ(pred(t, table_prefix(kId - 1), prefix_end(table_prefix(kId - 1))), "false");
  EXPECT_EQ(pred(t, table_prefix(kId + 1), kMaxKey), "false");
  EXPECT_EQ(pred(t, kMinKey, table_prefix(kId)), "false");
  // Any key inside the table's prefix overlaps it; no decoding needed.
  EXPECT_EQ(pred(t, table_prefix(kId) + "garbage", kMaxKey), "true");
}

TEST(KeyRangePredicateTest, UndecodableBoundsAreErrors) {
  auto t = int8_table();
  const std::string idx = index_prefix(kId, 1);
  EXPECT_FALSE(key_range_predicate(t, idx + "\x12garbage", kMaxKey).has_value());
  EXPECT_FALSE(key_range_predicate(t, kMinKey,
                                   idx + "\x12"
                                         "a")
                   .has_value());
  // More values than key columns.
  auto two = key_of(composite_table(), {"1", "x"});
  EXPECT_FALSE(key_range_predicate(t, two, kMaxKey).has_value());
  // A text value where an int8 belongs.
  auto text_key = key_of(table_of(KeySource::kPrimaryKey, {{"s", {KeyType::kText}}}), {"x"});
  auto r = key_range_predicate(t, text_key, kMaxKey);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("\"app\".\"items\""), std::string::npos) << r.error().message;
  // Garbage outside the table is simply out of range.
  EXPECT_EQ(pred(t, table_prefix(kId + 1) + "\x12garbage", kMaxKey), "false");
}

TEST(KeyRangePredicateTest, QualifiedTableName) {
  auto t = int8_table();
  t.schema = "My\"Schema";
  t.name = "Items";
  EXPECT_EQ(qualified_table_name(t), R"("My""Schema"."Items")");
}

// A hash-sharded (id int8) in 8 buckets: the bucket is hash_bucket_sql over "id", compared
// first, never NULL.
TEST(KeyRangePredicateTest, HashShardedRangesSelectTheirBucket) {
  auto t = int8_table();
  make_hash_sharded(t, 8);
  const std::string bucket = R"(((coalesce(hashint8(("id")), 0)::int8 & 4294967295) % 8))";
  // One bucket's range: [/1/3, /1/4).
  EXPECT_EQ(pred(t, key_of(t, {"3"}), key_of(t, {"4"})),
            bucket + " >= '3'::int4 AND " + bucket + " < '4'::int4");
  // The first and last buckets' ranges start and end at the table's bounds.
  EXPECT_EQ(pred(t, table_prefix(kId), key_of(t, {"1"})), bucket + " < '1'::int4");
  EXPECT_EQ(pred(t, key_of(t, {"7"}), table_prefix(kId + 1)), bucket + " >= '7'::int4");
  // A split inside a bucket at id 1000: the bucket, then the key.
  EXPECT_EQ(pred(t, key_of(t, {"3", "1000"}), key_of(t, {"4"})),
            bucket + " >= '3'::int4 AND (" + bucket + " > '3'::int4 OR (" + bucket +
                " = '3'::int4 AND \"id\" >= '1000'::int8)) AND " + bucket + " < '4'::int4");
}

}  // namespace
}  // namespace pgrange::routing
