// The metadata store against a real PostgreSQL 15: schema creation, table ids, durable range
// changes with generation checks, and NOTIFY on every change.
#include "routing/metadata_store.hpp"

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <pqxx/pqxx>

#include "routing/key_space.hpp"
#include "tests/support/pg_server.hpp"

namespace pgrange::routing {
namespace {

using testing::PgServer;

class MetadataStoreTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = PgServer::start().release(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  /// A fresh metadata database per test (created by the store itself).
  std::string fresh_dsn() {
    static int n = 0;
    return server_->dsn("meta_" + std::to_string(++n));
  }
  std::vector<ShardRecord> shards() {
    return {ShardRecord{"s1", "host=a"}, ShardRecord{"s2", "host=b"}, ShardRecord{"s3", "host=c"}};
  }
  static PgServer* server_;
};
PgServer* MetadataStoreTest::server_ = nullptr;

TableDescriptor keyed_table(std::string name) {
  TableDescriptor t;
  t.name = std::move(name);
  t.key_source = KeySource::kPrimaryKey;
  t.key.push_back(KeyColumnDef{"tenant", KeyColumn{KeyType::kInt8, false}});
  t.key.push_back(KeyColumnDef{"ts", KeyColumn{KeyType::kTimestamptz, true}});
  return t;
}

TEST_F(MetadataStoreTest, NewStoreHasOneRangeOverTheWholeSpace) {
  auto store = MetadataStore::open(fresh_dsn(), shards());
  MetadataSnapshot snap = store->load();
  EXPECT_EQ(snap.shards.size(), 3u);
  EXPECT_TRUE(snap.tables.empty());
  ASSERT_EQ(snap.ranges.size(), 1u);
  EXPECT_EQ(snap.ranges[0].start_key, std::string(kMinKey));
  EXPECT_EQ(snap.ranges[0].end_key, std::string(kMaxKey));
  EXPECT_EQ(snap.ranges[0].shard, "s1");
  auto map = RangeMap::from_descriptors(snap.ranges);
  ASSERT_TRUE(map) << map.error().message;
}

TEST_F(MetadataStoreTest, TableIdsStartAt100AndAreNeverReused) {
  auto store = MetadataStore::open(fresh_dsn(), shards());
  TableDescriptor a = store->create_table(keyed_table("a"));
  TableDescriptor b = store->create_table(keyed_table("b"));
  EXPECT_EQ(a.table_id, 100u);
  EXPECT_EQ(b.table_id, 101u);
  store->drop_table(b.table_id);
  TableDescriptor c = store->create_table(keyed_table("b"));
  EXPECT_EQ(c.table_id, 102u);
  MetadataSnapshot snap = store->load();
  ASSERT_EQ(snap.tables.size(), 2u);
  EXPECT_EQ(snap.tables[0], a);
  EXPECT_EQ(snap.tables[1], c);
  // A duplicate name is refused by the store's constraint.
  EXPECT_THROW(store->create_table(keyed_table("a")), pqxx::unique_violation);
}

TEST_F(MetadataStoreTest, KeyChangeOfAnUnshardedTable) {
  auto store = MetadataStore::open(fresh_dsn(), shards());
  TableDescriptor t;
  t.name = "pgbench_accounts";
  t = store->create_table(t);
  EXPECT_TRUE(store->load().tables[0].key.empty());
  std::vector<KeyColumnDef> key = {KeyColumnDef{"aid", KeyColumn{KeyType::kInt4, false}}};
  store->update_table_key(t.table_id, KeySource::kPrimaryKey, key);
  MetadataSnapshot snap = store->load();
  EXPECT_EQ(snap.tables[0].key_source, KeySource::kPrimaryKey);
  EXPECT_EQ(snap.tables[0].key, key);
  EXPECT_THROW(store->update_table_key(999, KeySource::kPrimaryKey, key), std::runtime_error);
}

TEST_F(MetadataStoreTest, RangeChangesAreDurableAndVersioned) {
  std::string dsn = fresh_dsn();
  auto store = MetadataStore::open(dsn, shards());
  int64_t v0 = store->version();
  auto map = RangeMap::from_descriptors(store->load().ranges);
  ASSERT_TRUE(map);
  std::vector<RangeChange> changes;
  for (uint64_t id : {100, 101, 102}) {
    auto c = (*map)->split(table_prefix(id));
    ASSERT_TRUE(c) << c.error().message;
    changes.push_back(*c);
  }
  auto moved = (*map)->reassign((*map)->snapshot()->at(2).range_id, "s2");
  ASSERT_TRUE(moved);
  changes.push_back(*moved);
  store->apply_range_changes(changes);
  EXPECT_GT(store->version(), v0);

  // A second store (another pgrange instance, or a restart) reads exactly the same map.
  auto other = MetadataStore::open(dsn, shards());
  MetadataSnapshot snap = other->load();
  auto expected = (*map)->snapshot()->ranges();
  ASSERT_EQ(snap.ranges.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(snap.ranges[i], expected[i]) << i;
}

TEST_F(MetadataStoreTest, StaleGenerationsAreRejected) {
  std::string dsn = fresh_dsn();
  auto store = MetadataStore::open(dsn, shards());
  auto map_a = RangeMap::from_descriptors(store->load().ranges);
  auto map_b = RangeMap::from_descriptors(store->load().ranges);
  ASSERT_TRUE(map_a && map_b);
  auto ca = (*map_a)->split(table_prefix(100));
  auto cb = (*map_b)->split(table_prefix(200));
  ASSERT_TRUE(ca && cb);
  store->apply_range_changes({*ca});
  // b was planned against the old generation of the same range.
  EXPECT_THROW(store->apply_range_changes({*cb}), pqxx::serialization_failure);
  auto snap = store->load();
  EXPECT_EQ(snap.ranges.size(), 2u);  // b's change left nothing behind
}

TEST_F(MetadataStoreTest, ChangesSendNotify) {
  std::string dsn = fresh_dsn();
  auto store = MetadataStore::open(dsn, shards());
  PGconn* listener = PQconnectdb(dsn.c_str());
  ASSERT_EQ(PQstatus(listener), CONNECTION_OK);
  PQclear(PQexec(listener, "LISTEN pgrange_metadata"));
  store->create_table(keyed_table("n"));
  // The notification arrives after the committing transaction; poll for it.
  PGnotify* n = nullptr;
  for (int i = 0; i < 100 && n == nullptr; ++i) {
    PQconsumeInput(listener);
    n = PQnotifies(listener);
    if (n == nullptr) usleep(20000);
  }
  ASSERT_NE(n, nullptr);
  EXPECT_STREQ(n->relname, "pgrange_metadata");
  EXPECT_EQ(std::stoll(n->extra), store->version());
  PQfreemem(n);
  PQfinish(listener);
}

TEST_F(MetadataStoreTest, ReopeningKeepsEverything) {
  std::string dsn = fresh_dsn();
  {
    auto store = MetadataStore::open(dsn, shards());
    store->create_table(keyed_table("kept"));
  }
  auto store = MetadataStore::open(dsn, shards());
  MetadataSnapshot snap = store->load();
  ASSERT_EQ(snap.tables.size(), 1u);
  EXPECT_EQ(snap.tables[0].name, "kept");
  EXPECT_EQ(snap.tables[0].key.size(), 2u);
  EXPECT_TRUE(snap.tables[0].key[1].column.descending);
}

TEST_F(MetadataStoreTest, HashShardedKeysAreKeptAndOlderStoresMigrate) {
  std::string dsn = fresh_dsn();
  {
    auto store = MetadataStore::open(dsn, shards());
    store->create_table(keyed_table("plain"));
    // A store as schema version 4 left it: no hash_buckets column yet.
    pqxx::connection c(dsn);
    pqxx::work tx(c);
    tx.exec0("ALTER TABLE pgrange_tables DROP COLUMN hash_buckets");
    tx.exec0("UPDATE pgrange_schema SET version = 4");
    tx.commit();
  }
  auto store = MetadataStore::open(dsn, shards());
  TableDescriptor hashed = keyed_table("hashed");
  make_hash_sharded(hashed, 8);
  store->create_table(hashed);
  MetadataSnapshot snap = store->load();
  ASSERT_EQ(snap.tables.size(), 2u);
  EXPECT_EQ(snap.tables[0].name, "plain");
  EXPECT_EQ(snap.tables[0].hash_buckets, 0u);
  EXPECT_EQ(snap.tables[1].hash_buckets, 8u);
  ASSERT_EQ(snap.tables[1].key.size(), 3u);
  EXPECT_EQ(snap.tables[1].key[0].name, "crdb_internal_tenant_ts_shard_8");
  EXPECT_EQ(snap.tables[1].key[0].column.type, KeyType::kInt4);
  EXPECT_EQ(row_key_columns(snap.tables[1]).size(), 2u);
  pqxx::connection c(dsn);
  pqxx::work tx(c);
  EXPECT_EQ(tx.exec1("SELECT version FROM pgrange_schema")[0].as<int>(),
            MetadataStore::kSchemaVersion);
}

}  // namespace
}  // namespace pgrange::routing
