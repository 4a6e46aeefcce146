// The metadata store against a real PostgreSQL 15: schema creation, table ids, durable range
// changes with generation checks, global secondary indexes, and NOTIFY on every change.
#include "routing/meta/metadata_store.hpp"

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <pqxx/pqxx>
#include <thread>

#include "routing/keys/key_space.hpp"
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
    return {ShardRecord{"s1", "host=a", false}, ShardRecord{"s2", "host=b", false},
            ShardRecord{"s3", "host=c", false}};
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

/// Takes a store back to what schema version 14 left: a hold's writes and scans end together.
void undo_version_15(pqxx::work& tx) {
  tx.exec0("ALTER TABLE pgrange_range_holds DROP COLUMN writes");
  tx.exec0("UPDATE pgrange_schema SET version = 14");
}

/// Takes a store back to what schema version 13 left: no leases, no sampled keys.
void undo_version_14(pqxx::work& tx) {
  undo_version_15(tx);
  tx.exec0("DROP TABLE pgrange_leases, pgrange_range_samples");
  tx.exec0("ALTER TABLE pgrange_shards DROP COLUMN draining");
  tx.exec0("UPDATE pgrange_schema SET version = 13");
}

/// Takes a store back to what schema version 12 left: holds of writes and scans together, no
/// jobs.
void undo_version_13(pqxx::work& tx) {
  undo_version_14(tx);
  tx.exec0("ALTER TABLE pgrange_range_holds DROP COLUMN scans");
  tx.exec0("DROP TABLE pgrange_jobs, pgrange_range_load");
  tx.exec0("UPDATE pgrange_schema SET version = 12");
}

/// Takes a store back to what schema version 11 left: no co-location groups.
void undo_version_12(pqxx::work& tx) {
  undo_version_13(tx);
  tx.exec0("ALTER TABLE pgrange_tables DROP COLUMN colocated_with");
  tx.exec0("UPDATE pgrange_schema SET version = 11");
}

/// Takes a store back to what schema version 10 left: no reference tables.
void undo_version_11(pqxx::work& tx) {
  undo_version_12(tx);
  tx.exec0("ALTER TABLE pgrange_tables DROP COLUMN reference");
  tx.exec0("UPDATE pgrange_schema SET version = 10");
}

/// Takes a store back to what schema version 9 left: no transactions held for their clients,
/// no families of tables.
void undo_version_10(pqxx::work& tx) {
  undo_version_11(tx);
  tx.exec0("ALTER TABLE pgrange_tables DROP COLUMN root_id");
  tx.exec0("ALTER TABLE pgrange_decisions DROP COLUMN client_gid");
  tx.exec0("ALTER TABLE pgrange_decisions DROP CONSTRAINT pgrange_decisions_decision_check");
  tx.exec0(
      "ALTER TABLE pgrange_decisions ADD CONSTRAINT pgrange_decisions_decision_check CHECK "
      "(decision IN ('commit', 'abort'))");
  tx.exec0("UPDATE pgrange_schema SET version = 9");
}

/// Takes a store back to what schema version 8 left: no cluster-wide sequences.
void undo_version_9(pqxx::work& tx) {
  undo_version_10(tx);
  tx.exec0("DROP TABLE pgrange_generated_keys, pgrange_sequences");
  tx.exec0("UPDATE pgrange_schema SET version = 8");
}

/// Takes a store back to what schema version 7 left: no views or SQL functions.
void undo_version_8(pqxx::work& tx) {
  undo_version_9(tx);
  tx.exec0("DROP TABLE pgrange_reader_names, pgrange_readers");
  tx.exec0("UPDATE pgrange_schema SET version = 7");
}

/// Takes a store back to what schema version 5 left: no indexes and no index id counter.
void undo_version_6(pqxx::work& tx) {
  undo_version_8(tx);  // version 7 only added columns to the index tables dropped here
  tx.exec0("DROP TABLE pgrange_index_storing, pgrange_index_columns, pgrange_indexes");
  tx.exec0("ALTER TABLE pgrange_tables DROP COLUMN next_index_id");
  tx.exec0("UPDATE pgrange_schema SET version = 5");
}

TEST_F(MetadataStoreTest, SequenceBlocksOfTwoStoresNeverOverlap) {
  std::string dsn = fresh_dsn();
  auto a = MetadataStore::open(dsn, shards());
  auto b = MetadataStore::open(dsn, shards());
  SequenceState s;
  s.max_value = 25;
  a->register_sequence("public", "t_id_seq", s, true);
  // A sequence several tables share keeps its state when registered again.
  SequenceState other = s;
  other.last_value = 20;
  b->register_sequence("public", "t_id_seq", other, false);
  auto reserve = [](MetadataStore& m) {
    return m.update_sequence("public", "t_id_seq",
                             [](SequenceState& st) { return reserve_block(st, 10, "t_id_seq"); });
  };
  auto b1 = reserve(*a);
  auto b2 = reserve(*b);
  auto b3 = reserve(*a);
  ASSERT_TRUE(b1 && b2 && b3);
  EXPECT_EQ(*b1, (SequenceBlock{1, 1, 10}));
  EXPECT_EQ(*b2, (SequenceBlock{11, 1, 10}));
  EXPECT_EQ(*b3, (SequenceBlock{21, 1, 5}));  // up to MAXVALUE
  auto end = reserve(*b);
  ASSERT_FALSE(end);
  EXPECT_EQ(end.error().sqlstate, "2200H");
  auto missing = b->update_sequence("public", "nope",
                                    [](SequenceState& st) { return reserve_block(st, 1, "nope"); });
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().sqlstate, "42P01");
}

TEST_F(MetadataStoreTest, JobsAndTheHoldsOfTheirMoves) {
  auto store = MetadataStore::open(fresh_dsn(), shards());
  store->report_instance("me", store->version());
  JobRecord job;
  job.job_type = "MOVE RANGE";
  job.description = "range 1 from s1 to s2";
  job.instance_id = "me";
  job.range_id = 1;
  job.source = "s1";
  job.target = "s2";
  const int64_t id = store->create_job(job);
  EXPECT_FALSE(store->update_job(id, 0.5));  // not asked to stop
  auto listed = store->jobs();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].status, "running");
  EXPECT_EQ(listed[0].fraction_completed, 0.5);
  EXPECT_EQ(listed[0].finished, "");
  EXPECT_EQ(listed[0].range_id, 1u);

  // A hold of writes only, then of scans too; neither is orphaned while its job runs.
  const int64_t v0 = store->version();
  EXPECT_GT(store->hold_range(1, "s2", "me", false), v0);
  MetadataSnapshot snap = store->load();
  EXPECT_EQ(snap.held_ranges, std::vector<uint64_t>{1});
  EXPECT_TRUE(snap.scan_held_ranges.empty());
  EXPECT_TRUE(store->orphaned_holds(std::chrono::seconds(30)).empty());
  store->hold_range_scans({1, "me"});
  EXPECT_EQ(store->load().scan_held_ranges, std::vector<uint64_t>{1});
  EXPECT_THROW(store->hold_range_scans({1, "someone else"}), std::runtime_error);
  // The map switched: writes go on, whole-table reads still wait.
  EXPECT_THROW(store->release_range_writes({1, "someone else"}), std::runtime_error);
  const int64_t v1 = store->version();
  EXPECT_GT(store->release_range_writes({1, "me"}), v1);
  snap = store->load();
  EXPECT_TRUE(snap.held_ranges.empty());
  EXPECT_EQ(snap.scan_held_ranges, std::vector<uint64_t>{1});
  EXPECT_TRUE(store->orphaned_holds(std::chrono::seconds(30)).empty());
  // Nobody but its move changes a moving range: a split of it is refused, the move's own
  // change goes through.
  {
    auto map = RangeMap::from_descriptors(store->load().ranges);
    ASSERT_TRUE(map);
    auto split = (*map)->split(table_prefix(100));
    ASSERT_TRUE(split) << split.error().message;
    EXPECT_THROW(store->apply_range_changes({*split}), RangeMovingError);
    EXPECT_NO_THROW(store->apply_range_changes({*split}, MetadataStore::HoldRef{1, "me"}));
  }

  // CANCEL JOB: the job sees it at its next step; a second job, never started, is not running.
  auto asked = store->request_job_cancel(id);
  ASSERT_TRUE(asked.has_value());
  EXPECT_TRUE(asked->cancel_requested);
  EXPECT_TRUE(store->update_job(id, 0.6));
  EXPECT_FALSE(store->request_job_cancel(id + 100).has_value());
  store->finish_job(id, "canceled", "canceled by CANCEL JOB");
  auto ended = store->jobs(id);
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0].status, "canceled");
  EXPECT_NE(ended[0].finished, "");
  EXPECT_EQ(ended[0].error, "canceled by CANCEL JOB");
  // Its job ended: the hold is left over and cleaned up.
  EXPECT_EQ(store->orphaned_holds(std::chrono::seconds(30)), std::vector<uint64_t>{1});
  store->release_range_hold(1);

  // A running job of an instance gone silent is orphaned; a succeeded one counts fraction 1.
  job.instance_id = "gone";
  const int64_t lost = store->create_job(job);
  EXPECT_TRUE(store->orphaned_jobs(std::chrono::seconds(30)).size() == 1 &&
              store->orphaned_jobs(std::chrono::seconds(30))[0].job_id == lost);
  store->finish_job(lost, "succeeded", "");
  EXPECT_EQ(store->jobs(lost)[0].fraction_completed, 1.0);
  EXPECT_TRUE(store->orphaned_jobs(std::chrono::seconds(30)).empty());
}

TEST_F(MetadataStoreTest, LoadIsSummedOverLiveInstances) {
  auto store = MetadataStore::open(fresh_dsn(), shards());
  store->report_instance("a", store->version());
  store->report_instance("b", store->version());
  store->report_load("a", {{1, 10, 2, {std::string("\x89\x00\x01", 3), "k2"}}, {2, 5, 0, {}}});
  store->report_load("b", {{1, 1.5, 0.5, {"b1"}}});
  auto load = store->range_load(std::chrono::seconds(30));
  ASSERT_EQ(load.size(), 2u);
  EXPECT_EQ(load[0].range_id, 1u);
  EXPECT_DOUBLE_EQ(load[0].read_qps, 11.5);
  EXPECT_DOUBLE_EQ(load[0].write_qps, 2.5);
  EXPECT_DOUBLE_EQ(load[1].read_qps, 5);
  // Every live instance's samples, older before newer, bytes as they were.
  EXPECT_EQ(load[0].samples,
            (std::vector<std::string>{std::string("\x89\x00\x01", 3), "b1", "k2"}));
  EXPECT_TRUE(load[1].samples.empty());
  // A report replaces the instance's last; a gone instance counts no more.
  store->report_load("a", {});
  store->forget_instance("b");
  EXPECT_TRUE(store->range_load(std::chrono::seconds(30)).empty());
}

TEST_F(MetadataStoreTest, ALeaseHasOneHolderUntilItExpires) {
  auto store = MetadataStore::open(fresh_dsn(), shards());
  using std::chrono::milliseconds;
  EXPECT_TRUE(store->take_lease("range_manager", "a", milliseconds(60000)));
  EXPECT_FALSE(store->take_lease("range_manager", "b", milliseconds(60000)));
  EXPECT_TRUE(store->take_lease("range_manager", "a", milliseconds(200)));  // renewed, shorter
  EXPECT_TRUE(store->take_lease("other", "b", milliseconds(60000)));        // leases are by name
  std::this_thread::sleep_for(milliseconds(400));
  EXPECT_TRUE(store->take_lease("range_manager", "b", milliseconds(60000)));  // a's lapsed
  EXPECT_FALSE(store->take_lease("range_manager", "a", milliseconds(60000)));
  store->release_lease("range_manager", "a");  // not a's: nothing happens
  EXPECT_FALSE(store->take_lease("range_manager", "a", milliseconds(60000)));
  store->release_lease("range_manager", "b");
  EXPECT_TRUE(store->take_lease("range_manager", "a", milliseconds(60000)));
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

TEST_F(MetadataStoreTest, AFamilyMemberTakesItsRootsKeySpaceAndGoesWithIt) {
  std::string dsn = fresh_dsn();
  auto store = MetadataStore::open(dsn, shards());
  TableDescriptor root = store->create_table(keyed_table("root"));
  TableDescriptor member;
  member.schema = "public";
  member.name = "member";
  member.columns = {"tenant", "ts", "extra"};
  join_family(member, root);
  member.member_id = store->allocate_table_id();
  store->register_table(member, {});
  MetadataSnapshot snap = store->load();
  ASSERT_EQ(snap.tables.size(), 2u);
  EXPECT_EQ(snap.tables[0].name, "root");  // the root first: find_table_id finds it
  const TableDescriptor& m = snap.tables[1];
  EXPECT_EQ(m.name, "member");
  EXPECT_EQ(m.table_id, root.table_id);
  EXPECT_EQ(m.member_id, member.member_id);
  EXPECT_EQ(catalog_id(m), member.member_id);
  EXPECT_EQ(m.key, snap.tables[0].key);
  EXPECT_EQ(m.columns, member.columns);
  store->drop_table(root.table_id);
  EXPECT_TRUE(store->load().tables.empty());
}

TEST_F(MetadataStoreTest, AReferenceTableIsKeptAndItsMembersAreToo) {
  std::string dsn = fresh_dsn();
  auto store = MetadataStore::open(dsn, shards());
  store->create_table(keyed_table("spread"));
  TableDescriptor ref = keyed_table("ref");
  ref.reference = true;
  TableDescriptor root = store->create_table(ref);
  TableDescriptor member;
  member.schema = "public";
  member.name = "ref_part";
  member.columns = {"tenant", "ts"};
  join_family(member, root);
  member.member_id = store->allocate_table_id();
  store->register_table(member, {});
  MetadataSnapshot snap = store->load();
  ASSERT_EQ(snap.tables.size(), 3u);
  EXPECT_FALSE(snap.tables[0].reference);
  EXPECT_TRUE(snap.tables[1].reference);
  EXPECT_TRUE(snap.tables[2].reference) << "a member of a reference table's family is one too";
}

TEST_F(MetadataStoreTest, ACoLocatedTableKeepsItsRootAndLosesItWithTheRoot) {
  std::string dsn = fresh_dsn();
  auto store = MetadataStore::open(dsn, shards());
  TableDescriptor root = store->create_table(keyed_table("root"));
  TableDescriptor follower = keyed_table("follower");
  follower.colocated_with = root.table_id;
  follower = store->create_table(follower);
  MetadataSnapshot snap = store->load();
  ASSERT_EQ(snap.tables.size(), 2u);
  EXPECT_EQ(snap.tables[0].colocated_with, 0u);
  EXPECT_EQ(snap.tables[1].colocated_with, root.table_id);
  store->drop_table(root.table_id);
  snap = store->load();
  ASSERT_EQ(snap.tables.size(), 1u);
  EXPECT_EQ(snap.tables[0].colocated_with, 0u) << "a dropped root's followers follow nothing";
}

TEST_F(MetadataStoreTest, HashShardedKeysAreKeptAndOlderStoresMigrate) {
  std::string dsn = fresh_dsn();
  {
    auto store = MetadataStore::open(dsn, shards());
    store->create_table(keyed_table("plain"));
    // A store as schema version 4 left it: no hash_buckets column yet.
    pqxx::connection c(dsn);
    pqxx::work tx(c);
    undo_version_6(tx);
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

/// An index over `columns` (int8, ascending) storing `storing`.
IndexDescriptor index_on(std::string name, std::vector<std::string> columns,
                         std::vector<std::string> storing = {}) {
  IndexDescriptor i;
  i.name = std::move(name);
  for (std::string& c : columns) {
    i.columns.push_back(KeyColumnDef{std::move(c), KeyColumn{KeyType::kInt8, false}});
  }
  i.storing = std::move(storing);
  return i;
}

/// Range changes that split off `key` in the store's current map.
std::vector<RangeChange> split_off(MetadataStore& store, const std::string& key) {
  auto map = RangeMap::from_descriptors(store.load().ranges);
  EXPECT_TRUE(map);
  auto c = (*map)->split(key);
  EXPECT_TRUE(c) << c.error().message;
  return {*c};
}

TEST_F(MetadataStoreTest, IndexesRoundTripThroughLoad) {
  std::string dsn = fresh_dsn();
  auto store = MetadataStore::open(dsn, shards());
  TableDescriptor t = store->create_table(keyed_table("orders"));
  int64_t v0 = store->version();
  IndexDescriptor by_customer = index_on("orders_by_customer", {"customer"}, {"total", "note"});
  by_customer.columns.push_back(KeyColumnDef{"placed", KeyColumn{KeyType::kTimestamptz, true}});
  by_customer.unique = true;
  by_customer.index_id = 77;                            // ignored: the store allocates
  by_customer.state = IndexDescriptor::State::kPublic;  // ignored: a new index is write-only
  IndexDescriptor a =
      store->add_index(t.table_id, by_customer, split_off(*store, table_prefix(500)));
  EXPECT_EQ(a.index_id, 2u);
  EXPECT_EQ(a.state, IndexDescriptor::State::kWriteOnly);
  EXPECT_GT(store->version(), v0);
  IndexDescriptor b = store->add_index(t.table_id, index_on("orders_by_note", {"note"}), {});
  EXPECT_EQ(b.index_id, 3u);
  IndexDescriptor other = store->add_index(store->create_table(keyed_table("other")).table_id,
                                           index_on("orders_by_customer", {"x"}), {});
  EXPECT_EQ(other.index_id, 2u);  // ids and names count per table

  // Another instance reads the same indexes, in index id order, and the range change.
  auto reader = MetadataStore::open(dsn, shards());
  MetadataSnapshot snap = reader->load();
  ASSERT_EQ(snap.tables.size(), 2u);
  EXPECT_EQ(snap.ranges.size(), 2u);
  ASSERT_EQ(snap.tables[0].indexes.size(), 2u);
  EXPECT_EQ(snap.tables[0].indexes[0], a);
  EXPECT_EQ(snap.tables[0].indexes[1], b);
  EXPECT_EQ(snap.tables[0].indexes[0].storing, (std::vector<std::string>{"total", "note"}));
  ASSERT_EQ(snap.tables[0].indexes[0].columns.size(), 2u);
  EXPECT_TRUE(snap.tables[0].indexes[0].columns[1].column.descending);
  EXPECT_TRUE(snap.tables[0].indexes[0].unique);
  ASSERT_EQ(snap.tables[1].indexes.size(), 1u);
  EXPECT_EQ(snap.tables[1].indexes[0], other);
}

TEST_F(MetadataStoreTest, IndexIdsAreNeverReusedAfterADrop) {
  auto store = MetadataStore::open(fresh_dsn(), shards());
  TableDescriptor t = store->create_table(keyed_table("t"));
  IndexDescriptor a = store->add_index(t.table_id, index_on("a", {"x"}), {});
  IndexDescriptor b = store->add_index(t.table_id, index_on("b", {"y"}), {});
  EXPECT_EQ(b.index_id, 3u);
  int64_t v0 = store->version();
  store->drop_index(t.table_id, b.index_id, split_off(*store, table_prefix(500)));
  EXPECT_GT(store->version(), v0);
  MetadataSnapshot snap = store->load();
  EXPECT_EQ(snap.ranges.size(), 2u);  // the range change went with the drop
  ASSERT_EQ(snap.tables[0].indexes.size(), 1u);
  EXPECT_EQ(snap.tables[0].indexes[0], a);
  // Neither the dropped id nor the dropped name's id comes back.
  EXPECT_EQ(store->add_index(t.table_id, index_on("b", {"y"}), {}).index_id, 4u);
  EXPECT_THROW(store->drop_index(t.table_id, b.index_id, {}), std::runtime_error);
}

TEST_F(MetadataStoreTest, DuplicateIndexNamesAreRefusedAtomically) {
  auto store = MetadataStore::open(fresh_dsn(), shards());
  TableDescriptor t = store->create_table(keyed_table("t"));
  store->add_index(t.table_id, index_on("t_x", {"x"}), {});
  int64_t v0 = store->version();
  try {
    store->add_index(t.table_id, index_on("t_x", {"y"}), split_off(*store, table_prefix(500)));
    ADD_FAILURE() << "a duplicate index name was accepted";
  } catch (const DuplicateIndexError& e) {
    EXPECT_STREQ(e.what(), "relation \"t_x\" already exists");
  }
  // Nothing of it stayed: no version, no range change, no index id used up.
  EXPECT_EQ(store->version(), v0);
  MetadataSnapshot snap = store->load();
  EXPECT_EQ(snap.ranges.size(), 1u);
  ASSERT_EQ(snap.tables[0].indexes.size(), 1u);
  EXPECT_EQ(snap.tables[0].indexes[0].columns[0].name, "x");
  EXPECT_EQ(store->add_index(t.table_id, index_on("t_y", {"y"}), {}).index_id, 3u);
  EXPECT_THROW(store->add_index(999, index_on("u", {"y"}), {}), std::runtime_error);
}

TEST_F(MetadataStoreTest, IndexRangeChangesAreCheckedLikeAnyOther) {
  auto store = MetadataStore::open(fresh_dsn(), shards());
  TableDescriptor t = store->create_table(keyed_table("t"));
  std::vector<RangeChange> stale = split_off(*store, table_prefix(600));
  store->apply_range_changes(split_off(*store, table_prefix(500)));
  EXPECT_THROW(store->add_index(t.table_id, index_on("t_x", {"x"}), stale),
               pqxx::serialization_failure);
  EXPECT_TRUE(store->load().tables[0].indexes.empty());
  EXPECT_EQ(store->add_index(t.table_id, index_on("t_x", {"x"}), {}).index_id, 2u);
}

TEST_F(MetadataStoreTest, IndexStateChanges) {
  auto store = MetadataStore::open(fresh_dsn(), shards());
  TableDescriptor t = store->create_table(keyed_table("t"));
  IndexDescriptor i = store->add_index(t.table_id, index_on("t_x", {"x"}), {});
  EXPECT_EQ(store->load().tables[0].indexes[0].state, IndexDescriptor::State::kWriteOnly);
  int64_t v0 = store->version();
  store->set_index_state(t.table_id, i.index_id, IndexDescriptor::State::kPublic);
  EXPECT_GT(store->version(), v0);
  EXPECT_EQ(store->load().tables[0].indexes[0].state, IndexDescriptor::State::kPublic);
  store->set_index_state(t.table_id, i.index_id, IndexDescriptor::State::kWriteOnly);
  EXPECT_EQ(store->load().tables[0].indexes[0].state, IndexDescriptor::State::kWriteOnly);
  EXPECT_THROW(store->set_index_state(t.table_id, 9, IndexDescriptor::State::kPublic),
               std::runtime_error);
}

TEST_F(MetadataStoreTest, DroppingATableForgetsItsIndexes) {
  std::string dsn = fresh_dsn();
  auto store = MetadataStore::open(dsn, shards());
  TableDescriptor t = store->create_table(keyed_table("t"));
  store->add_index(t.table_id, index_on("t_x", {"x"}, {"z"}), {});
  store->rename_table(t.table_id, "public", "renamed");
  EXPECT_EQ(store->load().tables[0].indexes.size(), 1u);  // a rename keeps them
  store->drop_table(t.table_id);
  EXPECT_TRUE(store->load().tables.empty());
  pqxx::connection c(dsn);
  pqxx::work tx(c);
  for (const char* table : {"pgrange_indexes", "pgrange_index_columns", "pgrange_index_storing"}) {
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM " + std::string(table))[0].as<int>(), 0) << table;
  }
}

TEST_F(MetadataStoreTest, IndexesAfterMigratingAVersion5Store) {
  std::string dsn = fresh_dsn();
  {
    auto store = MetadataStore::open(dsn, shards());
    store->create_table(keyed_table("old"));
    pqxx::connection c(dsn);
    pqxx::work tx(c);
    undo_version_6(tx);
    tx.commit();
  }
  auto store = MetadataStore::open(dsn, shards());
  MetadataSnapshot snap = store->load();
  ASSERT_EQ(snap.tables.size(), 1u);
  EXPECT_TRUE(snap.tables[0].indexes.empty());
  IndexDescriptor i = store->add_index(snap.tables[0].table_id, index_on("old_x", {"x"}), {});
  EXPECT_EQ(i.index_id, 2u);
  EXPECT_EQ(store->load().tables[0].indexes, std::vector<IndexDescriptor>{i});
  pqxx::connection c(dsn);
  pqxx::work tx(c);
  EXPECT_EQ(tx.exec1("SELECT version FROM pgrange_schema")[0].as<int>(),
            MetadataStore::kSchemaVersion);
}

}  // namespace
}  // namespace pgrange::routing
