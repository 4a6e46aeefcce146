#include "routing/meta/block_catalog.hpp"

#include <gtest/gtest.h>

#include "routing/keys/key_space.hpp"
#include "routing/meta/table_description.hpp"

namespace pgrange::routing {
namespace {

TableDescriptor table(uint64_t id, std::string name) {
  TableDescriptor t;
  t.table_id = id;
  t.name = std::move(name);
  t.key_source = KeySource::kPrimaryKey;
  KeyColumnDef k;
  k.name = "id";
  k.column.type = KeyType::kInt8;
  t.key.push_back(k);
  t.columns = {"id", "v"};
  return t;
}

/// A cluster of shards s1, s2 holding table 100 ("old") as one range on s2.
std::shared_ptr<const ClusterView> base() {
  MetadataSnapshot s;
  s.version = 7;
  s.shards = {{"s1", "dsn1"}, {"s2", "dsn2"}};
  s.tables = {table(100, "old")};
  RangeDescriptor a{1, std::string(kMinKey), table_prefix(100), "s1", 1, std::nullopt};
  RangeDescriptor b{2, table_prefix(100), table_prefix(101), "s2", 1, std::nullopt};
  RangeDescriptor c{3, table_prefix(101), std::string(kMaxKey), "s1", 1, std::nullopt};
  s.ranges = {a, b, c};
  auto v = ClusterView::build(std::move(s), {"s1", "s2"});
  EXPECT_TRUE(v.has_value());
  return *v;
}

CatalogStep create(uint64_t id, std::string name, std::vector<std::string> shards,
                   std::vector<std::string> splits = {}) {
  CatalogStep s;
  s.kind = CatalogStep::Kind::kCreate;
  s.created.table = table(id, std::move(name));
  s.created.shards = std::move(shards);
  s.created.split_keys = std::move(splits);
  return s;
}

CatalogStep drop(const TableDescriptor& t) {
  CatalogStep s;
  s.kind = CatalogStep::Kind::kDrop;
  s.table = t;
  return s;
}

TEST(BlockCatalogTest, ANewTableGetsItsRangesOnItsShardsInTheBlocksView) {
  auto b = base();
  BlockCatalog block;
  std::string split = index_prefix(105, 1) + "\x90";  // a key of the table's rows
  block.steps.push_back(create(105, "fresh", {"s2", "s1"}, {split}));
  auto v = block_view(*b, block);
  ASSERT_TRUE(v.has_value()) << v.error().message;
  const TableDescriptor* t = (*v)->find_table("", "fresh");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->table_id, 105u);
  auto ranges = (*v)->table_ranges(105);
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ((*v)->ranges().at(ranges[0]).shard, "s2");
  EXPECT_EQ((*v)->ranges().at(ranges[0]).start_key, table_prefix(105));
  EXPECT_EQ((*v)->ranges().at(ranges[1]).shard, "s1");
  EXPECT_EQ((*v)->ranges().at(ranges[1]).end_key, table_prefix(106));
  // The published view is untouched, and the old table keeps its range.
  EXPECT_EQ(b->find_table("", "fresh"), nullptr);
  EXPECT_EQ((*v)->ranges().at((*v)->table_ranges(100).at(0)).shard, "s2");
  EXPECT_EQ((*v)->version(), 7);
}

TEST(BlockCatalogTest, TheNetChangeFoldsTheSteps) {
  auto b = base();
  BlockCatalog block;
  block.steps.push_back(create(105, "made_and_dropped", {"s1"}));
  block.steps.push_back(create(106, "kept", {"s2"}));
  CatalogStep renamed;
  renamed.kind = CatalogStep::Kind::kUpdate;
  renamed.table = table(106, "kept_renamed");
  block.steps.push_back(renamed);
  block.steps.push_back(drop(table(105, "made_and_dropped")));
  block.steps.push_back(drop(*b->find_table("", "old")));
  auto d = net_change(*b, block);
  ASSERT_TRUE(d.has_value()) << d.error().message;
  ASSERT_EQ(d->created.size(), 1u);
  EXPECT_EQ(d->created[0].table.name, "kept_renamed");
  EXPECT_EQ(d->created[0].shards, (std::vector<std::string>{"s2"}));
  EXPECT_EQ(d->dropped, (std::vector<uint64_t>{100}));
  EXPECT_TRUE(d->updated.empty());
  EXPECT_FALSE(d->range_changes.empty());
  auto v = block_view(*b, block);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ((*v)->find_table("", "old"), nullptr);
  EXPECT_EQ((*v)->find_table("", "made_and_dropped"), nullptr);
  EXPECT_NE((*v)->find_table("", "kept_renamed"), nullptr);
  // Nothing for the catalog once every step is cut back (ROLLBACK TO SAVEPOINT).
  block.steps.clear();
  auto none = net_change(*b, block);
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->empty());
}

TEST(BlockCatalogTest, AnUpdateOfAnExistingTableReplacesIt) {
  auto b = base();
  BlockCatalog block;
  CatalogStep s;
  s.kind = CatalogStep::Kind::kUpdate;
  s.table = table(100, "old");
  s.table.columns = {"id", "v", "added"};
  block.steps.push_back(s);
  auto d = net_change(*b, block);
  ASSERT_TRUE(d.has_value());
  ASSERT_EQ(d->updated.size(), 1u);
  EXPECT_EQ(d->updated[0].columns.size(), 3u);
  EXPECT_TRUE(d->range_changes.empty());
  auto v = block_view(*b, block);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ((*v)->find_table("", "old")->columns.size(), 3u);
}

/// A row of table_description_sql: schema, name, column, type, key position, descending,
/// identity, default, sequence schema and name, owned, start, increment, min, max, cycle, last.
using Row = std::vector<std::optional<std::string>>;
Row column(std::string name, std::string type, std::optional<std::string> key = std::nullopt) {
  return {"public",
          "t",
          std::move(name),
          std::move(type),
          std::move(key),
          "f",
          "",
          "",
          std::nullopt,
          std::nullopt,
          "f",
          std::nullopt,
          std::nullopt,
          std::nullopt,
          std::nullopt,
          std::nullopt,
          std::nullopt};
}

TEST(TableDescriptionTest, KeyInPrimaryKeyOrderWithItsSequence) {
  Row id = column("id", "20", "2");
  id[6] = "d";  // GENERATED BY DEFAULT AS IDENTITY
  id[8] = "public";
  id[9] = "t_id_seq";
  id[10] = "t";
  id[11] = "10";
  id[12] = "5";
  id[13] = "1";
  id[14] = "1000";
  id[15] = "f";
  Row region = column("region", "25", "1");
  auto d = describe_table_rows({region, column("v", "25"), id}, "t", nullptr);
  ASSERT_TRUE(d.has_value()) << d.error().message;
  EXPECT_EQ(d->table.columns, (std::vector<std::string>{"region", "v", "id"}));
  ASSERT_EQ(d->table.key.size(), 2u);
  EXPECT_EQ(d->table.key[0].name, "region");
  EXPECT_EQ(d->table.key[1].name, "id");
  ASSERT_EQ(d->table.generated.size(), 1u);
  EXPECT_EQ(d->table.generated[0].kind, GeneratedKey::Kind::kIdentityByDefault);
  EXPECT_TRUE(d->table.generated[0].owned);
  ASSERT_EQ(d->sequences.size(), 1u);
  // Never called: its next value is its start.
  EXPECT_FALSE(d->sequences[0].is_called);
  EXPECT_EQ(d->sequences[0].last_value, 10);
  EXPECT_EQ(d->sequences[0].increment, 5);
  EXPECT_EQ(d->sequences[0].max_value, 1000);
  id[16] = "25";
  d = describe_table_rows({region, id}, "t", nullptr);
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(d->sequences[0].is_called);
  EXPECT_EQ(d->sequences[0].last_value, 25);
}

TEST(TableDescriptionTest, ConfiguredKeyUnsupportedTypesAndMissingTables) {
  std::vector<std::string> key{"v"};
  ConfiguredKey configured = [&](const std::string&, const std::string& name) {
    return name == "t" ? &key : nullptr;
  };
  auto d = describe_table_rows({column("id", "20", "1"), column("v", "25")}, "t", configured);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->table.key_source, KeySource::kConfig);
  ASSERT_EQ(d->table.key.size(), 1u);
  EXPECT_EQ(d->table.key[0].name, "v");
  key = {"missing"};
  d = describe_table_rows({column("id", "20", "1")}, "t", configured);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->table.key_source, KeySource::kUnsharded);
  EXPECT_NE(d->notice.find("missing"), std::string::npos);
  // A key of a type pgrange cannot encode (point, oid 600): unsharded, and why.
  d = describe_table_rows({column("p", "600", "1")}, "t", nullptr);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->table.key_source, KeySource::kUnsharded);
  EXPECT_TRUE(d->table.key.empty());
  EXPECT_FALSE(d->notice.empty());
  auto missing = describe_table_rows({}, "nothere", nullptr);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().sqlstate, "42P01");
}

}  // namespace
}  // namespace pgrange::routing
