#include "routing/plan/index_read.hpp"

#include <gtest/gtest.h>

#include "routing/keys/key_codec.hpp"
#include "routing/keys/key_space.hpp"
#include "tests/unit/routing/tiled_ranges.hpp"

namespace pgrange::routing {
namespace {

/// items (id 60, key id int8, index by_name (name text)): rows below 100 on s1, from 100 on
/// s2; every by_name entry on s3.
class IndexReadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TableDescriptor items;
    items.table_id = 60;
    items.name = "items";
    items.key_source = KeySource::kPrimaryKey;
    items.columns = {"id", "name", "note"};
    items.key.push_back({"id", KeyColumn{KeyType::kInt8}});
    IndexDescriptor by_name;
    by_name.index_id = 2;
    by_name.name = "by_name";
    by_name.columns.push_back({"name", KeyColumn{KeyType::kText}});
    by_name.state = IndexDescriptor::State::kPublic;
    items.indexes = {by_name};
    MetadataSnapshot snap;
    snap.version = 1;
    snap.shards = {{"s1", "dsn1"}, {"s2", "dsn2"}, {"s3", "dsn3"}};
    snap.tables = {items};
    std::vector<KeyColumn> cols{KeyColumn{KeyType::kInt8}};
    std::optional<std::string_view> hundred[1] = {"100"};
    std::vector<std::pair<std::string, std::string>> bounds = {
        {std::string(kMinKey), "s1"},
        {*encode_key_text(60, 1, cols, hundred), "s2"},
        {index_prefix(60, 2), "s3"},
        {table_prefix(61), "s1"}};
    snap.ranges = tiled_ranges(bounds);
    auto v = ClusterView::build(std::move(snap), {"s1", "s2", "s3"});
    ASSERT_TRUE(v) << v.error().message;
    view_ = *v;
    lookup_.table_id = 60;
    lookup_.index_id = 2;
    std::vector<KeyColumn> name{KeyColumn{KeyType::kText}};
    std::optional<std::string_view> kiwi[1] = {"kiwi"};
    std::string k = *encode_key_text(60, 2, name, kiwi);
    lookup_.spans = {Span{k, prefix_end(k)}};
    lookup_.shards = {2};
  }

  std::shared_ptr<const ClusterView> view_;
  Route::IndexLookup lookup_;
};

TEST_F(IndexReadTest, ReadsTheEntriesKeysThenTheRowsFromTheirShards) {
  const std::string text = "SELECT name, note FROM items WHERE name = 'kiwi'";
  auto read = plan_index_read(*view_, text, lookup_);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_FALSE(read->covering);  // note is not in the index
  EXPECT_EQ(read->key_columns, "\"id\"");
  EXPECT_EQ(read->first_step_sql.substr(0, 47),
            "SELECT \"id\" FROM \"public\".\"items@by_name\" WHERE");

  // Keys on both shards of the table: both read, the statement narrowed to the keys.
  std::set<std::vector<std::optional<std::string>>> keys = {{"150"}, {"7"}};
  auto keyed = read_of_keys(*view_, *read, text, keys);
  ASSERT_TRUE(keyed) << keyed.error().message;
  EXPECT_EQ(keyed->shards, (std::vector<int>{0, 1}));
  EXPECT_EQ(
      keyed->sql,
      "SELECT name, note FROM items WHERE (name = 'kiwi') AND ((\"id\") IN (('150'), ('7')))");

  // A key of one shard: that shard alone.
  keyed = read_of_keys(*view_, *read, text, {{"99"}});
  ASSERT_TRUE(keyed);
  EXPECT_EQ(keyed->shards, (std::vector<int>{0}));
}

TEST_F(IndexReadTest, NoEntryStillAsksOneShardForTheAnswerOverNoRow) {
  const std::string text = "SELECT count(*) FROM items WHERE name = 'kiwi'";
  auto read = plan_index_read(*view_, text, lookup_);
  ASSERT_TRUE(read) << read.error().message;
  auto keyed = read_of_keys(*view_, *read, text, {});
  ASSERT_TRUE(keyed) << keyed.error().message;
  EXPECT_EQ(keyed->shards, (std::vector<int>{0}));  // the table's first range's
  EXPECT_EQ(keyed->sql, "SELECT count(*) FROM items WHERE (name = 'kiwi') AND (false)");
}

TEST_F(IndexReadTest, AnIndexStoringEveryColumnUsedAnswersAlone) {
  auto read = plan_index_read(*view_, "SELECT id FROM items WHERE name = 'kiwi'", lookup_);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_TRUE(read->covering);
  EXPECT_TRUE(read->key_columns.empty());
  EXPECT_EQ(read->first_step_sql.substr(0, 49),
            "SELECT id FROM public.\"items@by_name\" items WHERE");
  auto lines = describe_index_read(*view_, *read, lookup_);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0],
            "pgrange plan: global index items@by_name stores every column the query uses: the "
            "index alone answers it");
  EXPECT_NE(lines[1].find("ranges 3 (s3)"), std::string::npos) << lines[1];
}

TEST_F(IndexReadTest, AnIndexDroppedSinceThePlanIsARetry) {
  Route::IndexLookup gone = lookup_;
  gone.index_id = 3;
  auto read = plan_index_read(*view_, "SELECT * FROM items WHERE name = 'kiwi'", gone);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().sqlstate, "40001");
}

}  // namespace
}  // namespace pgrange::routing
