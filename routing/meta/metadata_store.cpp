#include "routing/meta/metadata_store.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <pqxx/pqxx>
#include <stdexcept>
#include <thread>
#include <tuple>

#include "routing/keys/key_space.hpp"
#include "routing/meta/block_catalog.hpp"

namespace pgrange::routing {
namespace {

/// A text[] literal of `items` (each quoted, '"' and '\\' escaped).
std::string text_array(const std::vector<std::string>& items) {
  std::string out = "{";
  for (const std::string& item : items) {
    if (out.size() > 1) out += ',';
    out += '"';
    for (char c : item) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + "}";
}

/// The same connection string with another dbname.
std::string with_dbname(const std::string& dsn, const std::string& dbname) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(dsn.c_str(), &err);
  if (opts == nullptr) {
    std::string msg = err ? err : "invalid connection string";
    if (err) PQfreemem(err);
    throw std::runtime_error("metadata dsn: " + msg);
  }
  std::string out;
  for (PQconninfoOption* o = opts; o->keyword != nullptr; ++o) {
    if (o->val == nullptr || std::string(o->keyword) == "dbname") continue;
    out += std::string(o->keyword) + "='" + o->val + "' ";
  }
  PQconninfoFree(opts);
  return out + "dbname='" + dbname + "'";
}

std::string dbname_of(const std::string& dsn) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(dsn.c_str(), &err);
  if (opts == nullptr) {
    if (err) PQfreemem(err);
    return "";
  }
  std::string name;
  for (PQconninfoOption* o = opts; o->keyword != nullptr; ++o) {
    if (std::string(o->keyword) == "dbname" && o->val) name = o->val;
  }
  PQconninfoFree(opts);
  return name;
}

int64_t bump_version(pqxx::work& tx) {
  int64_t v =
      tx.exec1("UPDATE pgrange_meta SET version = version + 1 RETURNING version")[0].as<int64_t>();
  tx.exec0("NOTIFY " + std::string(MetadataStore::kChannel) + ", " + tx.quote(std::to_string(v)));
  return v;
}

void upsert_shards(pqxx::work& tx, const std::vector<ShardRecord>& shards) {
  for (const ShardRecord& s : shards) {
    tx.exec_params0(
        "INSERT INTO pgrange_shards (name, dsn) VALUES ($1, $2) "
        "ON CONFLICT (name) DO UPDATE SET dsn = excluded.dsn",
        s.name, s.dsn);
  }
}

void insert_range(pqxx::work& tx, const RangeDescriptor& r) {
  tx.exec_params0(
      "INSERT INTO pgrange_ranges (range_id, start_key, end_key, shard, generation, "
      "split_enforced_until) VALUES ($1, $2, $3, $4, $5, $6)",
      static_cast<int64_t>(r.range_id), pqxx::binarystring(r.start_key),
      pqxx::binarystring(r.end_key), r.shard, static_cast<int64_t>(r.generation),
      r.split_enforced_until ? std::optional<int64_t>(*r.split_enforced_until)
                             : std::optional<int64_t>());
}

/// A key column as stored: its name, its type's name and its direction.
KeyColumnDef key_column_from(const pqxx::field& name, const pqxx::field& type_name,
                             const pqxx::field& descending) {
  auto type = key_type_from_name(type_name.as<std::string>());
  if (!type) throw std::runtime_error("metadata store: " + type.error().message);
  KeyColumnDef def;
  def.name = name.as<std::string>();
  def.column.type = *type;
  def.column.descending = descending.as<bool>();
  return def;
}

/// How an index state is stored.
std::string index_state_name(IndexDescriptor::State s) {
  switch (s) {
    case IndexDescriptor::State::kWriteOnly:
      return "write_only";
    case IndexDescriptor::State::kPublic:
      return "public";
  }
  throw std::logic_error("bad index state");
}

/// The index state stored as `name`.
IndexDescriptor::State index_state_from_name(const std::string& name) {
  if (name == "write_only") return IndexDescriptor::State::kWriteOnly;
  if (name == "public") return IndexDescriptor::State::kPublic;
  throw std::runtime_error("metadata store: bad index state " + name);
}

/// The loaded table with id `id`, or null.
TableDescriptor* find_loaded(std::vector<TableDescriptor>& tables, uint64_t id) {
  for (TableDescriptor& t : tables) {
    if (t.table_id == id) return &t;
  }
  return nullptr;
}

/// The loaded index `index_id` of the loaded table `table_id`, or null.
IndexDescriptor* find_loaded(std::vector<TableDescriptor>& tables, uint64_t table_id,
                             uint32_t index_id) {
  TableDescriptor* t = find_loaded(tables, table_id);
  if (t == nullptr) return nullptr;
  for (IndexDescriptor& i : t->indexes) {
    if (i.index_id == index_id) return &i;
  }
  return nullptr;
}

}  // namespace

struct MetadataStore::Impl {
  explicit Impl(const std::string& dsn) : conn(dsn) {}
  pqxx::connection conn;
};

MetadataStore::MetadataStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MetadataStore::~MetadataStore() = default;

std::unique_ptr<MetadataStore> MetadataStore::open(const std::string& dsn,
                                                   const std::vector<ShardRecord>& shards) {
  std::unique_ptr<Impl> conn;
  try {
    conn = std::make_unique<Impl>(dsn);
  } catch (const pqxx::broken_connection& e) {
    // A fresh server lacks the metadata database: create it through the maintenance database.
    std::string db = dbname_of(dsn);
    if (db.empty() || std::string(e.what()).find("does not exist") == std::string::npos) throw;
    pqxx::connection admin(with_dbname(dsn, "postgres"));
    pqxx::nontransaction ntx(admin);
    try {
      ntx.exec0("CREATE DATABASE " + admin.quote_name(db));
    } catch (const pqxx::sql_error& ce) {
      // Another pgrange instance may have created it at the same moment.
      if (std::string(ce.sqlstate()) != "42P04") throw;
    }
    conn = std::make_unique<Impl>(dsn);
  }
  std::unique_ptr<MetadataStore> store(new MetadataStore(std::move(conn)));
  store->migrate(shards);
  return store;
}

void MetadataStore::migrate(const std::vector<ShardRecord>& shards) {
  if (shards.empty()) throw std::runtime_error("metadata store: no shards configured");
  pqxx::work tx(impl_->conn);
  // One migration at a time, even with several pgrange instances starting together.
  tx.exec("SELECT pg_advisory_xact_lock(7401001)");
  tx.exec0("CREATE TABLE IF NOT EXISTS pgrange_schema (version int NOT NULL)");
  pqxx::result v = tx.exec("SELECT version FROM pgrange_schema");
  int current = v.empty() ? 0 : v[0][0].as<int>();
  if (current > kSchemaVersion) {
    throw std::runtime_error("metadata store schema version " + std::to_string(current) +
                             " is newer than this pgrange understands (" +
                             std::to_string(kSchemaVersion) + ")");
  }
  if (current < 1) {
    tx.exec0(R"sql(
      CREATE TABLE pgrange_meta (id int PRIMARY KEY CHECK (id = 1), version bigint NOT NULL);
      INSERT INTO pgrange_meta VALUES (1, 1);
      CREATE TABLE pgrange_shards (name text PRIMARY KEY, dsn text NOT NULL);
      CREATE SEQUENCE pgrange_table_id START 100;
      CREATE TABLE pgrange_tables (
        table_id bigint PRIMARY KEY,
        schema_name text NOT NULL,
        name text NOT NULL,
        key_source text NOT NULL CHECK (key_source IN ('primary_key', 'config', 'unsharded')),
        UNIQUE (schema_name, name));
      CREATE TABLE pgrange_table_keys (
        table_id bigint NOT NULL REFERENCES pgrange_tables ON DELETE CASCADE,
        ordinal int NOT NULL,
        column_name text NOT NULL,
        type_name text NOT NULL,
        descending bool NOT NULL,
        PRIMARY KEY (table_id, ordinal));
      CREATE SEQUENCE pgrange_range_id START 2;
      CREATE TABLE pgrange_ranges (
        range_id bigint PRIMARY KEY,
        start_key bytea NOT NULL UNIQUE,
        end_key bytea NOT NULL,
        shard text NOT NULL,
        generation bigint NOT NULL,
        split_enforced_until bigint);
    )sql");
    // The whole key space starts as one range on the first shard.
    RangeDescriptor all;
    all.range_id = 1;
    all.shard = shards.front().name;
    all.end_key = std::string(kMaxKey);
    insert_range(tx, all);
    tx.exec0("DELETE FROM pgrange_schema");
    tx.exec0("INSERT INTO pgrange_schema VALUES (1)");
  }
  if (current < 2) {
    // v2: the column order of each table, for INSERTs without a column list.
    tx.exec0(R"sql(
      CREATE TABLE pgrange_table_columns (
        table_id bigint NOT NULL REFERENCES pgrange_tables ON DELETE CASCADE,
        ordinal int NOT NULL,
        column_name text NOT NULL,
        PRIMARY KEY (table_id, ordinal));
    )sql");
    tx.exec0("DELETE FROM pgrange_schema");
    tx.exec0("INSERT INTO pgrange_schema VALUES (2)");
  }
  if (current < 3) {
    // v3: range moves coordinated across instances.
    tx.exec0(R"sql(
      CREATE TABLE pgrange_range_holds (
        range_id bigint PRIMARY KEY,
        target text NOT NULL,
        instance_id text NOT NULL,
        since timestamptz NOT NULL DEFAULT now());
      CREATE TABLE pgrange_instances (
        instance_id text PRIMARY KEY,
        loaded_version bigint NOT NULL,
        heartbeat_at timestamptz NOT NULL DEFAULT now());
    )sql");
    tx.exec0("DELETE FROM pgrange_schema");
    tx.exec0("INSERT INTO pgrange_schema VALUES (3)");
  }
  if (current < 4) {
    // v4: two-phase commit decisions for writes across shards.
    tx.exec0(R"sql(
      CREATE TABLE pgrange_decisions (
        gid text PRIMARY KEY,
        decision text NOT NULL CHECK (decision IN ('commit', 'abort')),
        instance_id text NOT NULL,
        decided_at timestamptz NOT NULL DEFAULT now());
    )sql");
    tx.exec0("DELETE FROM pgrange_schema");
    tx.exec0("INSERT INTO pgrange_schema VALUES (4)");
  }
  if (current < 5) {
    // v5: hash-sharded keys (their first key column is the bucket of the others).
    tx.exec0(
        "ALTER TABLE pgrange_tables ADD COLUMN hash_buckets int NOT NULL DEFAULT 0 "
        "CHECK (hash_buckets >= 0)");
    tx.exec0("DELETE FROM pgrange_schema");
    tx.exec0("INSERT INTO pgrange_schema VALUES (5)");
  }
  if (current < 6) {
    // v6: global secondary indexes. Their ids count per table from 2 (1 is the primary index)
    // and are never reused, so a dropped index's keys can never be mistaken for a new one's.
    tx.exec0(R"sql(
      ALTER TABLE pgrange_tables ADD COLUMN next_index_id int NOT NULL DEFAULT 2
        CHECK (next_index_id >= 2);
      CREATE TABLE pgrange_indexes (
        table_id bigint NOT NULL REFERENCES pgrange_tables ON DELETE CASCADE,
        index_id int NOT NULL CHECK (index_id >= 2),
        name text NOT NULL,
        is_unique bool NOT NULL,
        hash_buckets int NOT NULL DEFAULT 0 CHECK (hash_buckets >= 0),
        state text NOT NULL CHECK (state IN ('write_only', 'public')),
        PRIMARY KEY (table_id, index_id),
        UNIQUE (table_id, name));
      CREATE TABLE pgrange_index_columns (
        table_id bigint NOT NULL,
        index_id int NOT NULL,
        ordinal int NOT NULL,
        column_name text NOT NULL,
        type_name text NOT NULL,
        descending bool NOT NULL,
        PRIMARY KEY (table_id, index_id, ordinal),
        FOREIGN KEY (table_id, index_id) REFERENCES pgrange_indexes ON DELETE CASCADE);
      CREATE TABLE pgrange_index_storing (
        table_id bigint NOT NULL,
        index_id int NOT NULL,
        ordinal int NOT NULL,
        column_name text NOT NULL,
        PRIMARY KEY (table_id, index_id, ordinal),
        FOREIGN KEY (table_id, index_id) REFERENCES pgrange_indexes ON DELETE CASCADE);
    )sql");
    tx.exec0("DELETE FROM pgrange_schema");
    tx.exec0("INSERT INTO pgrange_schema VALUES (6)");
  }
  if (current < 7) {
    // v7: UNIQUE global indexes that treat NULLs as equal, and those that are the index of a
    // UNIQUE constraint (dropped by ALTER TABLE … DROP CONSTRAINT).
    tx.exec0(R"sql(
      ALTER TABLE pgrange_indexes
        ADD COLUMN nulls_not_distinct bool NOT NULL DEFAULT false,
        ADD COLUMN is_constraint bool NOT NULL DEFAULT false;
    )sql");
    tx.exec0("DELETE FROM pgrange_schema");
    tx.exec0("INSERT INTO pgrange_schema VALUES (7)");
  }
  if (current < 8) {
    // v8: views and SQL functions, with what their bodies read, write and call, so a statement
    // using them accounts for those relations.
    tx.exec0(R"sql(
      CREATE TABLE pgrange_readers (
        kind text NOT NULL CHECK (kind IN ('view', 'function')),
        schema_name text NOT NULL,
        name text NOT NULL,
        signature text NOT NULL,
        plain bool NOT NULL,
        PRIMARY KEY (kind, schema_name, name, signature));
      CREATE TABLE pgrange_reader_names (
        kind text NOT NULL,
        schema_name text NOT NULL,
        name text NOT NULL,
        signature text NOT NULL,
        role text NOT NULL CHECK (role IN ('reads', 'writes', 'calls')),
        ordinal int NOT NULL,
        ref_schema text NOT NULL,
        ref_name text NOT NULL,
        PRIMARY KEY (kind, schema_name, name, signature, role, ordinal),
        FOREIGN KEY (kind, schema_name, name, signature) REFERENCES pgrange_readers
          ON DELETE CASCADE);
    )sql");
    tx.exec0("DELETE FROM pgrange_schema");
    tx.exec0("INSERT INTO pgrange_schema VALUES (8)");
  }
  if (current < 9) {
    // v9: cluster-wide sequences (their state; each instance reserves blocks of values) and the
    // key columns whose defaults pgrange makes.
    tx.exec0(R"sql(
      CREATE TABLE pgrange_sequences (
        schema_name text NOT NULL,
        name text NOT NULL,
        last_value bigint NOT NULL,
        is_called bool NOT NULL,
        increment bigint NOT NULL CHECK (increment <> 0),
        min_value bigint NOT NULL,
        max_value bigint NOT NULL,
        start_value bigint NOT NULL,
        cycle bool NOT NULL,
        PRIMARY KEY (schema_name, name));
      CREATE TABLE pgrange_generated_keys (
        table_id bigint NOT NULL REFERENCES pgrange_tables ON DELETE CASCADE,
        column_name text NOT NULL,
        kind text NOT NULL
          CHECK (kind IN ('sequence', 'identity_always', 'identity_by_default', 'uuid')),
        sequence_schema text NOT NULL,
        sequence_name text NOT NULL,
        owned bool NOT NULL,
        PRIMARY KEY (table_id, column_name));
    )sql");
    tx.exec0("DELETE FROM pgrange_schema");
    tx.exec0("INSERT INTO pgrange_schema VALUES (9)");
  }
  if (current < 10) {
    // v10: transactions the client prepared (PREPARE TRANSACTION 'x' over several shards), held
    // under the client's name until its COMMIT PREPARED or ROLLBACK PREPARED.
    tx.exec0(R"sql(
      ALTER TABLE pgrange_decisions DROP CONSTRAINT pgrange_decisions_decision_check;
      ALTER TABLE pgrange_decisions ADD CONSTRAINT pgrange_decisions_decision_check
        CHECK (decision IN ('commit', 'abort', 'prepared'));
      ALTER TABLE pgrange_decisions ADD COLUMN client_gid text UNIQUE;
    )sql");
    // Partitions and inheritance children: placed by their root's ranges, gone with it.
    tx.exec0(
        "ALTER TABLE pgrange_tables ADD COLUMN root_id bigint REFERENCES pgrange_tables "
        "ON DELETE CASCADE");
    tx.exec0("DELETE FROM pgrange_schema");
    tx.exec0("INSERT INTO pgrange_schema VALUES (10)");
  }
  if (current < 11) {
    // v11: reference tables (every shard holds all of their rows).
    tx.exec0("ALTER TABLE pgrange_tables ADD COLUMN reference bool NOT NULL DEFAULT false");
    tx.exec0("DELETE FROM pgrange_schema");
    tx.exec0("INSERT INTO pgrange_schema VALUES (11)");
  }
  if (current < 12) {
    // v12: co-location groups (a table's ranges follow its group root's).
    tx.exec0(
        "ALTER TABLE pgrange_tables ADD COLUMN colocated_with bigint REFERENCES pgrange_tables "
        "ON DELETE SET NULL");
    tx.exec0("DELETE FROM pgrange_schema");
    tx.exec0("INSERT INTO pgrange_schema VALUES (12)");
  }
  if (current < 13) {
    // v13: moves that hold writes only until their cut-over (scans: whether whole-table reads
    // wait too), jobs, and each instance's requests per range.
    tx.exec0(R"sql(
      ALTER TABLE pgrange_range_holds ADD COLUMN scans boolean NOT NULL DEFAULT true;
      CREATE TABLE pgrange_jobs (
        job_id bigserial PRIMARY KEY,
        job_type text NOT NULL,
        description text NOT NULL,
        status text NOT NULL,
        fraction_completed float8 NOT NULL DEFAULT 0,
        created timestamptz NOT NULL DEFAULT now(),
        finished timestamptz,
        error text NOT NULL DEFAULT '',
        instance_id text NOT NULL,
        range_id bigint,
        source text NOT NULL DEFAULT '',
        target text NOT NULL DEFAULT '',
        cancel_requested boolean NOT NULL DEFAULT false);
      CREATE TABLE pgrange_range_load (
        instance_id text NOT NULL,
        range_id bigint NOT NULL,
        read_qps float8 NOT NULL,
        write_qps float8 NOT NULL,
        PRIMARY KEY (instance_id, range_id));
    )sql");
    tx.exec0("DELETE FROM pgrange_schema");
    tx.exec0("INSERT INTO pgrange_schema VALUES (13)");
  }
  if (current < 14) {
    // v14: the range manager's lease (one instance at a time), the keys each instance
    // sampled from its requests per range (where a busy range splits), draining shards.
    tx.exec0(R"sql(
      ALTER TABLE pgrange_shards ADD COLUMN draining boolean NOT NULL DEFAULT false;
      CREATE TABLE pgrange_leases (
        name text PRIMARY KEY,
        holder text NOT NULL,
        expires_at timestamptz NOT NULL);
      CREATE TABLE pgrange_range_samples (
        instance_id text NOT NULL,
        range_id bigint NOT NULL,
        seq int NOT NULL,
        key bytea NOT NULL,
        PRIMARY KEY (instance_id, range_id, seq));
    )sql");
    tx.exec0("DELETE FROM pgrange_schema");
    tx.exec0("INSERT INTO pgrange_schema VALUES (14)");
  }
  if (current < 15) {
    // v15: a move lets writes to its range go on (at the new owner) while whole-table reads
    // still wait for the old owner's rows to go.
    tx.exec0("ALTER TABLE pgrange_range_holds ADD COLUMN writes boolean NOT NULL DEFAULT true");
    tx.exec0("DELETE FROM pgrange_schema");
    tx.exec0("INSERT INTO pgrange_schema VALUES (15)");
  }
  upsert_shards(tx, shards);
  tx.commit();
}

int64_t MetadataStore::version() {
  pqxx::read_transaction tx(impl_->conn);
  return tx.exec1("SELECT version FROM pgrange_meta")[0].as<int64_t>();
}

namespace {

/// The views and SQL functions of the store, in key order, with their names in order.
template <typename Tx>
std::vector<ReaderDescriptor> load_readers(Tx& tx) {
  std::vector<ReaderDescriptor> out;
  for (const auto& row :
       tx.exec("SELECT kind, schema_name, name, signature, plain FROM pgrange_readers "
               "ORDER BY kind, schema_name, name, signature")) {
    ReaderDescriptor r;
    auto kind = reader_kind_from_name(row[0].template as<std::string>());
    if (!kind) throw std::runtime_error("metadata store: bad reader kind");
    r.kind = *kind;
    r.schema = row[1].template as<std::string>();
    r.name = row[2].template as<std::string>();
    r.signature = row[3].template as<std::string>();
    r.plain = row[4].template as<bool>();
    out.push_back(std::move(r));
  }
  for (const auto& row :
       tx.exec("SELECT kind, schema_name, name, signature, role, ref_schema, ref_name FROM "
               "pgrange_reader_names ORDER BY kind, schema_name, name, signature, role, "
               "ordinal")) {
    for (ReaderDescriptor& r : out) {
      if (reader_kind_name(r.kind) != row[0].template as<std::string>() ||
          r.schema != row[1].template as<std::string>() ||
          r.name != row[2].template as<std::string>() ||
          r.signature != row[3].template as<std::string>()) {
        continue;
      }
      std::string role = row[4].template as<std::string>();
      QualifiedName n{row[5].template as<std::string>(), row[6].template as<std::string>()};
      (role == "reads" ? r.reads : role == "writes" ? r.writes : r.calls).push_back(std::move(n));
      break;
    }
  }
  return out;
}

}  // namespace

MetadataSnapshot MetadataStore::load() {
  MetadataSnapshot snap;
  // Repeatable read: the version, tables and ranges come from one consistent moment.
  pqxx::transaction<pqxx::repeatable_read, pqxx::readwrite_policy::read_only> tx(impl_->conn);
  snap.version = tx.exec1("SELECT version FROM pgrange_meta")[0].as<int64_t>();
  for (const auto& row : tx.exec("SELECT name, dsn, draining FROM pgrange_shards ORDER BY name")) {
    snap.shards.push_back(
        ShardRecord{row[0].as<std::string>(), row[1].as<std::string>(), row[2].as<bool>()});
  }
  // Members of a family (partitions, inheritance children) and their roots' ids.
  std::vector<std::pair<uint64_t, uint64_t>> members;
  for (const auto& row :
       tx.exec("SELECT table_id, schema_name, name, key_source, hash_buckets, root_id, "
               "reference, colocated_with FROM pgrange_tables ORDER BY table_id")) {
    TableDescriptor t;
    t.table_id = row[0].as<uint64_t>();
    t.schema = row[1].as<std::string>();
    t.name = row[2].as<std::string>();
    auto src = key_source_from_name(row[3].as<std::string>());
    if (!src) throw std::runtime_error("metadata store: bad key_source for table " + t.name);
    t.key_source = *src;
    t.hash_buckets = row[4].as<uint32_t>();
    t.reference = row[6].as<bool>();
    t.colocated_with = row[7].is_null() ? 0 : row[7].as<uint64_t>();
    if (!row[5].is_null()) members.emplace_back(t.table_id, row[5].as<uint64_t>());
    snap.tables.push_back(std::move(t));
  }
  for (const auto& row :
       tx.exec("SELECT table_id, column_name, type_name, descending FROM pgrange_table_keys "
               "ORDER BY table_id, ordinal")) {
    if (TableDescriptor* t = find_loaded(snap.tables, row[0].as<uint64_t>())) {
      t->key.push_back(key_column_from(row[1], row[2], row[3]));
    }
  }
  for (const auto& row : tx.exec(
           "SELECT table_id, column_name FROM pgrange_table_columns ORDER BY table_id, ordinal")) {
    if (TableDescriptor* t = find_loaded(snap.tables, row[0].as<uint64_t>())) {
      t->columns.push_back(row[1].as<std::string>());
    }
  }
  for (const auto& row :
       tx.exec("SELECT table_id, column_name, kind, sequence_schema, sequence_name, owned FROM "
               "pgrange_generated_keys ORDER BY table_id, column_name")) {
    if (TableDescriptor* t = find_loaded(snap.tables, row[0].as<uint64_t>())) {
      auto kind = generated_key_kind_from_name(row[2].as<std::string>());
      if (!kind) throw std::runtime_error("metadata store: bad generated key of table " + t->name);
      t->generated.push_back(GeneratedKey{row[1].as<std::string>(), *kind, row[3].as<std::string>(),
                                          row[4].as<std::string>(), row[5].as<bool>()});
    }
  }
  for (const auto& row : tx.exec("SELECT table_id, index_id, name, is_unique, state, hash_buckets, "
                                 "nulls_not_distinct, is_constraint FROM pgrange_indexes "
                                 "ORDER BY table_id, index_id")) {
    if (TableDescriptor* t = find_loaded(snap.tables, row[0].as<uint64_t>())) {
      IndexDescriptor i;
      i.index_id = row[1].as<uint32_t>();
      i.name = row[2].as<std::string>();
      i.unique = row[3].as<bool>();
      i.state = index_state_from_name(row[4].as<std::string>());
      i.hash_buckets = row[5].as<uint32_t>();
      i.nulls_not_distinct = row[6].as<bool>();
      i.constraint = row[7].as<bool>();
      t->indexes.push_back(std::move(i));
    }
  }
  for (const auto& row :
       tx.exec("SELECT table_id, index_id, column_name, type_name, descending FROM "
               "pgrange_index_columns ORDER BY table_id, index_id, ordinal")) {
    if (IndexDescriptor* i =
            find_loaded(snap.tables, row[0].as<uint64_t>(), row[1].as<uint32_t>())) {
      i->columns.push_back(key_column_from(row[2], row[3], row[4]));
    }
  }
  for (const auto& row :
       tx.exec("SELECT table_id, index_id, column_name FROM pgrange_index_storing "
               "ORDER BY table_id, index_id, ordinal")) {
    if (IndexDescriptor* i =
            find_loaded(snap.tables, row[0].as<uint64_t>(), row[1].as<uint32_t>())) {
      i->storing.push_back(row[2].as<std::string>());
    }
  }
  // A member takes its root's key space, key and defaults (its root has a smaller id: it
  // comes first, and find_table_id of the shared id finds the root).
  for (const auto& [id, root_id] : members) {
    TableDescriptor* member = find_loaded(snap.tables, id);
    const TableDescriptor* root = find_loaded(snap.tables, root_id);
    if (member == nullptr || root == nullptr || root->member_id != 0) {
      throw std::runtime_error("metadata store: table " + std::to_string(id) +
                               " belongs to a family whose root is missing");
    }
    join_family(*member, *root);
    member->member_id = id;
  }
  for (const auto& row :
       tx.exec("SELECT range_id, writes, scans FROM pgrange_range_holds ORDER BY range_id")) {
    if (row[1].as<bool>()) snap.held_ranges.push_back(row[0].as<uint64_t>());
    if (row[2].as<bool>()) snap.scan_held_ranges.push_back(row[0].as<uint64_t>());
  }
  snap.readers = load_readers(tx);
  for (const auto& row :
       tx.exec("SELECT range_id, start_key, end_key, shard, generation, split_enforced_until "
               "FROM pgrange_ranges ORDER BY start_key")) {
    RangeDescriptor r;
    r.range_id = row[0].as<uint64_t>();
    r.start_key = pqxx::binarystring(row[1]).str();
    r.end_key = pqxx::binarystring(row[2]).str();
    r.shard = row[3].as<std::string>();
    r.generation = row[4].as<uint64_t>();
    if (!row[5].is_null()) r.split_enforced_until = row[5].as<int64_t>();
    snap.ranges.push_back(std::move(r));
  }
  tx.commit();
  return snap;
}

namespace {

void insert_columns(pqxx::work& tx, uint64_t table_id, const std::vector<std::string>& columns) {
  for (size_t i = 0; i < columns.size(); ++i) {
    tx.exec_params0(
        "INSERT INTO pgrange_table_columns (table_id, ordinal, column_name) VALUES ($1, $2, $3)",
        static_cast<int64_t>(table_id), static_cast<int>(i), columns[i]);
  }
}

/// Writes a table's key columns in order.
void insert_key(pqxx::work& tx, uint64_t table_id, const std::vector<KeyColumnDef>& key) {
  for (size_t i = 0; i < key.size(); ++i) {
    tx.exec_params0(
        "INSERT INTO pgrange_table_keys (table_id, ordinal, column_name, type_name, descending) "
        "VALUES ($1, $2, $3, $4, $5)",
        static_cast<int64_t>(table_id), static_cast<int>(i), key[i].name,
        std::string(key_type_name(key[i].column.type)), key[i].column.descending);
  }
}

void insert_generated(pqxx::work& tx, const TableDescriptor& table);

void insert_table(pqxx::work& tx, const TableDescriptor& table) {
  if (table.member_id != 0) {
    // A member keeps its name and columns; the rest is its root's (load() joins them).
    tx.exec_params0(
        "INSERT INTO pgrange_tables (table_id, schema_name, name, key_source, hash_buckets, "
        "root_id) VALUES ($1, $2, $3, $4, 0, $5)",
        static_cast<int64_t>(table.member_id), table.schema, table.name,
        std::string(key_source_name(table.key_source)), static_cast<int64_t>(table.table_id));
    insert_columns(tx, table.member_id, table.columns);
    return;
  }
  tx.exec_params0(
      "INSERT INTO pgrange_tables (table_id, schema_name, name, key_source, hash_buckets, "
      "reference, colocated_with) VALUES ($1, $2, $3, $4, $5, $6, $7)",
      static_cast<int64_t>(table.table_id), table.schema, table.name,
      std::string(key_source_name(table.key_source)), static_cast<int64_t>(table.hash_buckets),
      table.reference,
      table.colocated_with == 0
          ? std::optional<int64_t>()
          : std::optional<int64_t>(static_cast<int64_t>(table.colocated_with)));
  insert_key(tx, table.table_id, table.key);
  insert_columns(tx, table.table_id, table.columns);
  insert_generated(tx, table);
}

void insert_generated(pqxx::work& tx, const TableDescriptor& table) {
  for (const GeneratedKey& g : table.generated) {
    tx.exec_params0(
        "INSERT INTO pgrange_generated_keys (table_id, column_name, kind, sequence_schema, "
        "sequence_name, owned) VALUES ($1, $2, $3, $4, $5, $6)",
        static_cast<int64_t>(table.table_id), g.column,
        std::string(generated_key_kind_name(g.kind)), g.sequence_schema, g.sequence_name, g.owned);
  }
}

/// Writes an index of a table under its index_id: its row, its key columns and its stored
/// columns, in order. Throws DuplicateIndexError if the table has an index of that name.
void insert_index(pqxx::work& tx, uint64_t table_id, const IndexDescriptor& index) {
  auto tid = static_cast<int64_t>(table_id);
  auto iid = static_cast<int64_t>(index.index_id);
  pqxx::result r = tx.exec_params(
      "INSERT INTO pgrange_indexes (table_id, index_id, name, is_unique, state, hash_buckets, "
      "nulls_not_distinct, is_constraint) "
      "VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (table_id, name) DO NOTHING",
      tid, iid, index.name, index.unique, index_state_name(index.state),
      static_cast<int64_t>(index.hash_buckets), index.nulls_not_distinct, index.constraint);
  if (r.affected_rows() != 1) {
    throw DuplicateIndexError("relation \"" + index.name + "\" already exists");
  }
  for (size_t i = 0; i < index.columns.size(); ++i) {
    const KeyColumnDef& k = index.columns[i];
    tx.exec_params0(
        "INSERT INTO pgrange_index_columns (table_id, index_id, ordinal, column_name, type_name, "
        "descending) VALUES ($1, $2, $3, $4, $5, $6)",
        tid, iid, static_cast<int>(i), k.name, std::string(key_type_name(k.column.type)),
        k.column.descending);
  }
  for (size_t i = 0; i < index.storing.size(); ++i) {
    tx.exec_params0(
        "INSERT INTO pgrange_index_storing (table_id, index_id, ordinal, column_name) "
        "VALUES ($1, $2, $3, $4)",
        tid, iid, static_cast<int>(i), index.storing[i]);
  }
}

void write_range_changes(pqxx::work& tx, const std::vector<RangeChange>& changes) {
  for (const RangeChange& c : changes) {
    if (c.no_op) continue;
    for (const RangeDescriptor& b : c.before) {
      pqxx::result r =
          tx.exec_params("DELETE FROM pgrange_ranges WHERE range_id = $1 AND generation = $2",
                         static_cast<int64_t>(b.range_id), static_cast<int64_t>(b.generation));
      if (r.affected_rows() != 1) {
        // Someone else changed this range since our snapshot: the caller reloads and retries.
        throw pqxx::serialization_failure("range " + std::to_string(b.range_id) +
                                          " changed concurrently (generation " +
                                          std::to_string(b.generation) + ")");
      }
    }
    // Changes apply in order: a later change may replace what an earlier one created.
    for (const RangeDescriptor& a : c.after) insert_range(tx, a);
  }
  // New range ids must stay ahead of any id used so far, by this or another instance.
  tx.exec(
      "SELECT setval('pgrange_range_id', greatest(nextval('pgrange_range_id'), "
      "(SELECT max(range_id) + 1 FROM pgrange_ranges)))");
}

/// Ends a change: writes its range changes (if any), bumps the version (with NOTIFY) and
/// commits. Returns the new version.
int64_t commit_change(pqxx::work& tx, const std::vector<RangeChange>& changes = {}) {
  if (!changes.empty()) write_range_changes(tx, changes);
  int64_t v = bump_version(tx);
  tx.commit();
  return v;
}

}  // namespace

TableDescriptor MetadataStore::create_table(TableDescriptor table) {
  pqxx::work tx(impl_->conn);
  table.table_id = tx.exec1("SELECT nextval('pgrange_table_id')")[0].as<uint64_t>();
  insert_table(tx, table);
  bump_version(tx);
  tx.commit();
  return table;
}

void MetadataStore::register_sequence(const std::string& schema, const std::string& name,
                                      const SequenceState& state, bool replace) {
  pqxx::work tx(impl_->conn);
  tx.exec_params0(
      "INSERT INTO pgrange_sequences (schema_name, name, last_value, is_called, increment, "
      "min_value, max_value, start_value, cycle) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) "
      "ON CONFLICT (schema_name, name) DO " +
          std::string(replace ? "UPDATE SET last_value = excluded.last_value, is_called = "
                                "excluded.is_called, increment = excluded.increment, "
                                "min_value = excluded.min_value, max_value = excluded.max_value, "
                                "start_value = excluded.start_value, cycle = excluded.cycle"
                              : "NOTHING"),
      schema, name, state.last_value, state.is_called, state.increment, state.min_value,
      state.max_value, state.start_value, state.cycle);
  tx.commit();
}

Result<SequenceBlock> MetadataStore::update_sequence(
    const std::string& schema, const std::string& name,
    const std::function<Result<SequenceBlock>(SequenceState&)>& change) {
  pqxx::work tx(impl_->conn);
  // The row lock makes the read and the write one step for every instance.
  pqxx::result r = tx.exec_params(
      "SELECT last_value, is_called, increment, min_value, max_value, start_value, cycle FROM "
      "pgrange_sequences WHERE schema_name = $1 AND name = $2 FOR UPDATE",
      schema, name);
  if (r.empty()) {
    return fail(sqlstate::kUndefinedTable,
                "relation \"" + schema + "." + name + "\" does not exist");
  }
  SequenceState state{r[0][0].as<int64_t>(), r[0][1].as<bool>(),    r[0][2].as<int64_t>(),
                      r[0][3].as<int64_t>(), r[0][4].as<int64_t>(), r[0][5].as<int64_t>(),
                      r[0][6].as<bool>()};
  auto block = change(state);
  if (!block) return block;
  tx.exec_params0(
      "UPDATE pgrange_sequences SET last_value = $3, is_called = $4, increment = $5, min_value = "
      "$6, max_value = $7, start_value = $8, cycle = $9 WHERE schema_name = $1 AND name = $2",
      schema, name, state.last_value, state.is_called, state.increment, state.min_value,
      state.max_value, state.start_value, state.cycle);
  tx.commit();
  return block;
}

uint64_t MetadataStore::allocate_table_id() {
  pqxx::work tx(impl_->conn);
  uint64_t id = tx.exec1("SELECT nextval('pgrange_table_id')")[0].as<uint64_t>();
  tx.commit();
  return id;
}

void MetadataStore::register_table(const TableDescriptor& table,
                                   const std::vector<RangeChange>& changes) {
  pqxx::work tx(impl_->conn);
  insert_table(tx, table);
  commit_change(tx, changes);
}

void MetadataStore::set_table_columns(uint64_t table_id, const std::vector<std::string>& columns) {
  pqxx::work tx(impl_->conn);
  tx.exec_params0("DELETE FROM pgrange_table_columns WHERE table_id = $1",
                  static_cast<int64_t>(table_id));
  insert_columns(tx, table_id, columns);
  bump_version(tx);
  tx.commit();
}

void MetadataStore::set_colocation(uint64_t table_id, uint64_t root_id) {
  pqxx::work tx(impl_->conn);
  tx.exec_params0("UPDATE pgrange_tables SET colocated_with = $2 WHERE table_id = $1",
                  static_cast<int64_t>(table_id),
                  root_id == 0 ? std::optional<int64_t>()
                               : std::optional<int64_t>(static_cast<int64_t>(root_id)));
  bump_version(tx);
  tx.commit();
}

void MetadataStore::rename_table(uint64_t table_id, const std::string& schema,
                                 const std::string& name) {
  pqxx::work tx(impl_->conn);
  tx.exec_params0("UPDATE pgrange_tables SET schema_name = $2, name = $3 WHERE table_id = $1",
                  static_cast<int64_t>(table_id), schema, name);
  bump_version(tx);
  tx.commit();
}

bool MetadataStore::replace_readers(const std::vector<ReaderDescriptor>& given) {
  // In the order load_readers() gives them, to tell whether anything changed.
  std::vector<ReaderDescriptor> readers = given;
  std::sort(readers.begin(), readers.end(), [](const auto& a, const auto& b) {
    return std::tuple(reader_kind_name(a.kind), a.schema, a.name, a.signature) <
           std::tuple(reader_kind_name(b.kind), b.schema, b.name, b.signature);
  });
  pqxx::work tx(impl_->conn);
  tx.exec("LOCK TABLE pgrange_readers IN EXCLUSIVE MODE");
  if (load_readers(tx) == readers) return false;
  tx.exec0("DELETE FROM pgrange_readers");
  for (const ReaderDescriptor& r : readers) {
    std::string kind(reader_kind_name(r.kind));
    tx.exec_params0(
        "INSERT INTO pgrange_readers (kind, schema_name, name, signature, plain) "
        "VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
        kind, r.schema, r.name, r.signature, r.plain);
    auto names = [&](const char* role, const std::vector<QualifiedName>& list) {
      for (size_t i = 0; i < list.size(); ++i) {
        tx.exec_params0(
            "INSERT INTO pgrange_reader_names (kind, schema_name, name, signature, role, "
            "ordinal, ref_schema, ref_name) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
            "ON CONFLICT DO NOTHING",
            kind, r.schema, r.name, r.signature, std::string(role), static_cast<int>(i),
            list[i].schema, list[i].name);
      }
    };
    names("reads", r.reads);
    names("writes", r.writes);
    names("calls", r.calls);
  }
  bump_version(tx);
  tx.commit();
  return true;
}

Result<int64_t> MetadataStore::expiration_micros(const std::string& literal,
                                                 const std::string& type) {
  const char* as_time = "SELECT (extract(epoch FROM $1::timestamptz) * 1000000)::int8";
  const char* as_interval = "SELECT (extract(epoch FROM now() + $1::interval) * 1000000)::int8";
  std::vector<const char*> tries;
  if (type.empty() || type.find("timestamp") == 0) tries.push_back(as_time);
  if (type.empty() || type == "interval") tries.push_back(as_interval);
  if (tries.empty()) {
    return fail(sqlstate::kSyntaxError,
                "WITH EXPIRATION takes a timestamp or an interval, not " + type);
  }
  std::string last;
  for (const char* q : tries) {
    try {
      pqxx::work tx(impl_->conn);
      int64_t v = tx.exec_params1(q, literal)[0].as<int64_t>();
      tx.commit();
      return v;
    } catch (const pqxx::data_exception& e) {
      last = e.what();
    }
  }
  // Keep PostgreSQL's message only: "ERROR:  <message>\nCONTEXT: …" → "<message>".
  last = last.substr(0, last.find('\n'));
  if (last.rfind("ERROR:", 0) == 0) last.erase(0, 6);
  while (!last.empty() && last.front() == ' ') last.erase(0, 1);
  return fail(sqlstate::kInvalidParameterValue,
              "invalid WITH EXPIRATION value \"" + literal + "\": " + last);
}

void MetadataStore::drop_table(uint64_t table_id) {
  pqxx::work tx(impl_->conn);
  // Its keys, columns and indexes go with it (ON DELETE CASCADE).
  tx.exec_params0("DELETE FROM pgrange_tables WHERE table_id = $1", static_cast<int64_t>(table_id));
  bump_version(tx);
  tx.commit();
}

IndexDescriptor MetadataStore::add_index(uint64_t table_id, IndexDescriptor index,
                                         const std::vector<RangeChange>& changes) {
  pqxx::work tx(impl_->conn);
  // Taking the id locks the table's row: concurrent additions to one table queue up here.
  pqxx::result r = tx.exec_params(
      "UPDATE pgrange_tables SET next_index_id = next_index_id + 1 WHERE table_id = $1 "
      "RETURNING next_index_id - 1",
      static_cast<int64_t>(table_id));
  if (r.empty()) {
    throw std::runtime_error("metadata store: no table with id " + std::to_string(table_id));
  }
  index.index_id = r[0][0].as<uint32_t>();
  index.state = IndexDescriptor::State::kWriteOnly;
  insert_index(tx, table_id, index);
  commit_change(tx, changes);
  return index;
}

void MetadataStore::set_index_state(uint64_t table_id, uint32_t index_id,
                                    IndexDescriptor::State state) {
  pqxx::work tx(impl_->conn);
  pqxx::result r = tx.exec_params(
      "UPDATE pgrange_indexes SET state = $3 WHERE table_id = $1 AND index_id = $2",
      static_cast<int64_t>(table_id), static_cast<int64_t>(index_id), index_state_name(state));
  if (r.affected_rows() != 1) {
    throw std::runtime_error("metadata store: no index " + std::to_string(index_id) + " on table " +
                             std::to_string(table_id));
  }
  commit_change(tx);
}

void MetadataStore::drop_index(uint64_t table_id, uint32_t index_id,
                               const std::vector<RangeChange>& changes) {
  pqxx::work tx(impl_->conn);
  // Its columns go with it (ON DELETE CASCADE); next_index_id stays, so the id is not reused.
  pqxx::result r =
      tx.exec_params("DELETE FROM pgrange_indexes WHERE table_id = $1 AND index_id = $2",
                     static_cast<int64_t>(table_id), static_cast<int64_t>(index_id));
  if (r.affected_rows() != 1) {
    throw std::runtime_error("metadata store: no index " + std::to_string(index_id) + " on table " +
                             std::to_string(table_id));
  }
  commit_change(tx, changes);
}

void MetadataStore::update_table_key(uint64_t table_id, KeySource source,
                                     const std::vector<KeyColumnDef>& key) {
  pqxx::work tx(impl_->conn);
  pqxx::result r =
      tx.exec_params("UPDATE pgrange_tables SET key_source = $2 WHERE table_id = $1",
                     static_cast<int64_t>(table_id), std::string(key_source_name(source)));
  if (r.affected_rows() != 1) {
    throw std::runtime_error("metadata store: no table with id " + std::to_string(table_id));
  }
  tx.exec_params0("DELETE FROM pgrange_table_keys WHERE table_id = $1",
                  static_cast<int64_t>(table_id));
  insert_key(tx, table_id, key);
  bump_version(tx);
  tx.commit();
}

int64_t MetadataStore::apply_range_changes(const std::vector<RangeChange>& changes,
                                           std::optional<HoldRef> hold) {
  pqxx::work tx(impl_->conn);
  if (hold) {
    // A move switches the map only while its hold stands (nobody cleaned it up as stale).
    pqxx::result r = tx.exec_params(
        "SELECT 1 FROM pgrange_range_holds WHERE range_id = $1 AND instance_id = $2 FOR UPDATE",
        static_cast<int64_t>(hold->range_id), hold->instance_id);
    if (r.empty()) {
      throw std::runtime_error("the hold on range " + std::to_string(hold->range_id) +
                               " was taken away (its move was presumed dead)");
    }
  } else {
    // Nobody else splits, merges or moves a range while it moves: its move (or the recovery of
    // its move) settles by the range's id.
    std::string ids = "{";
    for (const RangeChange& c : changes) {
      for (const RangeDescriptor& d : c.before) {
        ids += (ids.size() > 1 ? "," : "") + std::to_string(d.range_id);
      }
    }
    pqxx::result r = tx.exec_params(
        "SELECT range_id FROM pgrange_range_holds WHERE range_id = ANY($1::bigint[]) FOR SHARE",
        ids + "}");
    if (!r.empty()) {
      throw RangeMovingError("range " + r[0][0].as<std::string>() +
                             " is moving; try again when its move has ended (SHOW JOBS)");
    }
  }
  return commit_change(tx, changes);
}

int64_t MetadataStore::hold_range(uint64_t range_id, const std::string& target,
                                  const std::string& instance_id, bool scans) {
  pqxx::work tx(impl_->conn);
  pqxx::result r = tx.exec_params(
      "INSERT INTO pgrange_range_holds (range_id, target, instance_id, scans) VALUES ($1, $2, "
      "$3, $4) ON CONFLICT (range_id) DO NOTHING",
      static_cast<int64_t>(range_id), target, instance_id, scans);
  if (r.affected_rows() != 1) {
    throw std::runtime_error("range " + std::to_string(range_id) + " is moving already");
  }
  int64_t v = bump_version(tx);
  tx.commit();
  return v;
}

int64_t MetadataStore::change_hold(const HoldRef& hold, const std::string& set) {
  pqxx::work tx(impl_->conn);
  pqxx::result r = tx.exec_params(
      "UPDATE pgrange_range_holds SET " + set + " WHERE range_id = $1 AND instance_id = $2",
      static_cast<int64_t>(hold.range_id), hold.instance_id);
  if (r.affected_rows() != 1) {
    throw std::runtime_error("the hold on range " + std::to_string(hold.range_id) +
                             " was taken away (its move was presumed dead)");
  }
  int64_t v = bump_version(tx);
  tx.commit();
  return v;
}

int64_t MetadataStore::hold_range_scans(const HoldRef& hold) {
  return change_hold(hold, "scans = true");
}

int64_t MetadataStore::release_range_writes(const HoldRef& hold) {
  return change_hold(hold, "writes = false");
}

int64_t MetadataStore::release_range_hold(uint64_t range_id) {
  pqxx::work tx(impl_->conn);
  tx.exec_params0("DELETE FROM pgrange_range_holds WHERE range_id = $1",
                  static_cast<int64_t>(range_id));
  int64_t v = bump_version(tx);
  tx.commit();
  return v;
}

std::vector<uint64_t> MetadataStore::orphaned_holds(std::chrono::seconds silence) {
  pqxx::work tx(impl_->conn);
  std::vector<uint64_t> out;
  for (const auto& row : tx.exec_params(
           "SELECT h.range_id FROM pgrange_range_holds h WHERE NOT EXISTS (SELECT 1 FROM "
           "pgrange_instances i WHERE i.instance_id = h.instance_id AND i.heartbeat_at > now() - "
           "make_interval(secs => $1)) OR NOT EXISTS (SELECT 1 FROM pgrange_jobs j WHERE "
           "j.range_id = h.range_id AND j.instance_id = h.instance_id AND j.status = 'running') "
           "ORDER BY h.range_id",
           static_cast<int>(silence.count()))) {
    out.push_back(row[0].as<uint64_t>());
  }
  tx.commit();
  return out;
}

namespace {

JobRecord job_from(const pqxx::row& row) {
  JobRecord j;
  j.job_id = row[0].as<int64_t>();
  j.job_type = row[1].as<std::string>();
  j.description = row[2].as<std::string>();
  j.status = row[3].as<std::string>();
  j.fraction_completed = row[4].as<double>();
  j.created = row[5].as<std::string>();
  j.finished = row[6].is_null() ? "" : row[6].as<std::string>();
  j.error = row[7].as<std::string>();
  j.instance_id = row[8].as<std::string>();
  j.range_id = row[9].is_null() ? 0 : row[9].as<uint64_t>();
  j.source = row[10].as<std::string>();
  j.target = row[11].as<std::string>();
  j.cancel_requested = row[12].as<bool>();
  return j;
}

constexpr const char* kJobColumns =
    "job_id, job_type, description, status, fraction_completed, created::text, finished::text, "
    "error, instance_id, range_id, source, target, cancel_requested";

}  // namespace

int64_t MetadataStore::create_job(const JobRecord& job) {
  pqxx::work tx(impl_->conn);
  int64_t id =
      tx.exec_params1(
            "INSERT INTO pgrange_jobs (job_type, description, status, instance_id, range_id, "
            "source, target) VALUES ($1, $2, 'running', $3, $4, $5, $6) RETURNING job_id",
            job.job_type, job.description, job.instance_id,
            job.range_id == 0 ? std::optional<int64_t>() : static_cast<int64_t>(job.range_id),
            job.source, job.target)[0]
          .as<int64_t>();
  tx.commit();
  return id;
}

bool MetadataStore::update_job(int64_t job_id, double fraction_completed) {
  pqxx::work tx(impl_->conn);
  pqxx::result r = tx.exec_params(
      "UPDATE pgrange_jobs SET fraction_completed = $2 WHERE job_id = $1 RETURNING "
      "cancel_requested",
      job_id, fraction_completed);
  tx.commit();
  return !r.empty() && r[0][0].as<bool>();
}

void MetadataStore::finish_job(int64_t job_id, const std::string& status,
                               const std::string& error) {
  pqxx::work tx(impl_->conn);
  tx.exec_params0(
      "UPDATE pgrange_jobs SET status = $2, error = $3, finished = now(), fraction_completed = "
      "CASE WHEN $2 = 'succeeded' THEN 1 ELSE fraction_completed END WHERE job_id = $1",
      job_id, status, error);
  tx.commit();
}

std::optional<JobRecord> MetadataStore::request_job_cancel(int64_t job_id) {
  pqxx::work tx(impl_->conn);
  tx.exec_params0(
      "UPDATE pgrange_jobs SET cancel_requested = true WHERE job_id = $1 AND status = 'running'",
      job_id);
  pqxx::result r = tx.exec_params(
      std::string("SELECT ") + kJobColumns + " FROM pgrange_jobs WHERE job_id = $1", job_id);
  tx.commit();
  if (r.empty()) return std::nullopt;
  return job_from(r[0]);
}

std::vector<JobRecord> MetadataStore::jobs(std::optional<int64_t> job_id) {
  pqxx::read_transaction tx(impl_->conn);
  std::vector<JobRecord> out;
  pqxx::result r =
      job_id ? tx.exec_params(
                   std::string("SELECT ") + kJobColumns + " FROM pgrange_jobs WHERE job_id = $1",
                   *job_id)
             : tx.exec(std::string("SELECT ") + kJobColumns + " FROM pgrange_jobs ORDER BY job_id");
  for (const auto& row : r) out.push_back(job_from(row));
  return out;
}

std::vector<JobRecord> MetadataStore::orphaned_jobs(std::chrono::seconds silence) {
  pqxx::read_transaction tx(impl_->conn);
  std::vector<JobRecord> out;
  for (const auto& row : tx.exec_params(
           std::string("SELECT ") + kJobColumns +
               " FROM pgrange_jobs j WHERE status = 'running' AND NOT EXISTS (SELECT 1 FROM "
               "pgrange_instances i WHERE i.instance_id = j.instance_id AND i.heartbeat_at > "
               "now() - make_interval(secs => $1)) ORDER BY job_id",
           static_cast<int>(silence.count()))) {
    out.push_back(job_from(row));
  }
  return out;
}

void MetadataStore::report_load(const std::string& instance_id,
                                const std::vector<RangeRate>& rates) {
  std::string ids = "{", reads = "{", writes = "{";
  for (size_t i = 0; i < rates.size(); ++i) {
    const char* sep = i == 0 ? "" : ",";
    ids += sep + std::to_string(rates[i].range_id);
    reads += sep + std::to_string(rates[i].read_qps);
    writes += sep + std::to_string(rates[i].write_qps);
  }
  // The sampled keys travel as hex text (an array literal of hex digits needs no quoting).
  std::string sample_ids = "{", seqs = "{", keys = "{";
  static const char* kHex = "0123456789abcdef";
  bool first = true;
  for (const RangeRate& r : rates) {
    for (size_t k = 0; k < r.samples.size(); ++k) {
      const char* sep = first ? "" : ",";
      first = false;
      sample_ids += sep + std::to_string(r.range_id);
      seqs += sep + std::to_string(k);
      keys += sep;
      keys += '"';
      for (unsigned char c : r.samples[k]) {
        keys += kHex[c >> 4];
        keys += kHex[c & 15];
      }
      keys += '"';
    }
  }
  pqxx::work tx(impl_->conn);
  tx.exec_params0("DELETE FROM pgrange_range_load WHERE instance_id = $1", instance_id);
  tx.exec_params0("DELETE FROM pgrange_range_samples WHERE instance_id = $1", instance_id);
  if (!rates.empty()) {
    tx.exec_params0(
        "INSERT INTO pgrange_range_load (instance_id, range_id, read_qps, write_qps) SELECT $1, "
        "unnest($2::bigint[]), unnest($3::float8[]), unnest($4::float8[])",
        instance_id, ids + "}", reads + "}", writes + "}");
  }
  if (!first) {
    tx.exec_params0(
        "INSERT INTO pgrange_range_samples (instance_id, range_id, seq, key) SELECT $1, r, s, "
        "decode(k, 'hex') FROM unnest($2::bigint[], $3::int[], $4::text[]) AS u(r, s, k)",
        instance_id, sample_ids + "}", seqs + "}", keys + "}");
  }
  tx.commit();
}

void MetadataStore::register_shards(const std::vector<ShardRecord>& shards) {
  pqxx::work tx(impl_->conn);
  upsert_shards(tx, shards);
  bump_version(tx);
  tx.commit();
}

void MetadataStore::set_shard_draining(const std::string& shard, bool draining) {
  pqxx::work tx(impl_->conn);
  tx.exec_params0("UPDATE pgrange_shards SET draining = $2 WHERE name = $1", shard, draining);
  bump_version(tx);
  tx.commit();
}

bool MetadataStore::take_lease(const std::string& name, const std::string& holder,
                               std::chrono::milliseconds duration) {
  pqxx::work tx(impl_->conn);
  pqxx::result r = tx.exec_params(
      "INSERT INTO pgrange_leases (name, holder, expires_at) VALUES ($1, $2, clock_timestamp() + "
      "make_interval(secs => $3)) ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, "
      "expires_at = excluded.expires_at WHERE pgrange_leases.holder = excluded.holder OR "
      "pgrange_leases.expires_at < clock_timestamp() RETURNING holder",
      name, holder, static_cast<double>(duration.count()) / 1000.0);
  tx.commit();
  return !r.empty();
}

void MetadataStore::release_lease(const std::string& name, const std::string& holder) {
  pqxx::work tx(impl_->conn);
  tx.exec_params0("DELETE FROM pgrange_leases WHERE name = $1 AND holder = $2", name, holder);
  tx.commit();
}

std::vector<RangeRate> MetadataStore::range_load(std::chrono::seconds silence) {
  pqxx::read_transaction tx(impl_->conn);
  std::vector<RangeRate> out;
  for (const auto& row : tx.exec_params(
           "SELECT l.range_id, sum(l.read_qps), sum(l.write_qps) FROM pgrange_range_load l JOIN "
           "pgrange_instances i USING (instance_id) WHERE i.heartbeat_at > now() - "
           "make_interval(secs => $1) GROUP BY l.range_id ORDER BY l.range_id",
           static_cast<int>(silence.count()))) {
    out.push_back(RangeRate{row[0].as<uint64_t>(), row[1].as<double>(), row[2].as<double>(), {}});
  }
  size_t at = 0;
  for (const auto& row : tx.exec_params(
           "SELECT s.range_id, s.key FROM pgrange_range_samples s JOIN pgrange_instances i "
           "USING (instance_id) WHERE i.heartbeat_at > now() - make_interval(secs => $1) "
           "ORDER BY s.range_id, s.seq, s.instance_id",
           static_cast<int>(silence.count()))) {
    uint64_t id = row[0].as<uint64_t>();
    while (at < out.size() && out[at].range_id < id) ++at;
    if (at == out.size() || out[at].range_id != id) continue;
    pqxx::binarystring key(row[1]);
    out[at].samples.push_back(key.str());
  }
  return out;
}

std::vector<std::string> MetadataStore::live_instances(std::chrono::seconds silence) {
  pqxx::read_transaction tx(impl_->conn);
  std::vector<std::string> out;
  for (const auto& row :
       tx.exec_params("SELECT instance_id FROM pgrange_instances WHERE heartbeat_at > now() - "
                      "make_interval(secs => $1)",
                      static_cast<int>(silence.count()))) {
    out.push_back(row[0].as<std::string>());
  }
  return out;
}

std::string MetadataStore::decide(const std::string& gid, const std::string& decision,
                                  const std::string& instance_id, const CatalogDelta* change) {
  pqxx::work tx(impl_->conn);
  tx.exec_params0(
      "INSERT INTO pgrange_decisions (gid, decision, instance_id) VALUES ($1, $2, $3) "
      "ON CONFLICT (gid) DO NOTHING",
      gid, decision, instance_id);
  std::string standing =
      tx.exec_params1("SELECT decision FROM pgrange_decisions WHERE gid = $1", gid)[0]
          .as<std::string>();
  if (change != nullptr && !change->empty() && standing == "commit" && decision == "commit") {
    // Drops and renames before the new tables: a block may drop or rename a table and create
    // another under its name (DROP TABLE IF EXISTS t; CREATE TABLE t …).
    for (uint64_t id : change->dropped) {
      // Its keys, columns and indexes go with it (ON DELETE CASCADE).
      tx.exec_params0("DELETE FROM pgrange_tables WHERE table_id = $1", static_cast<int64_t>(id));
    }
    // Renames may trade names (a → tmp, b → a, tmp → b): each renamed table first gets a name
    // no table has.
    for (const TableDescriptor& t : change->updated) {
      tx.exec_params0(
          "UPDATE pgrange_tables SET name = 'pgrange renaming ' || table_id WHERE table_id = $1",
          static_cast<int64_t>(catalog_id(t)));
    }
    for (const TableDescriptor& t : change->updated) {
      auto id = static_cast<int64_t>(catalog_id(t));
      if (t.member_id != 0) {
        // A member's name and columns; the rest is its root's.
        tx.exec_params0("UPDATE pgrange_tables SET schema_name = $2, name = $3 WHERE table_id = $1",
                        id, t.schema, t.name);
        tx.exec_params0("DELETE FROM pgrange_table_columns WHERE table_id = $1", id);
        insert_columns(tx, t.member_id, t.columns);
        continue;
      }
      tx.exec_params0(
          "UPDATE pgrange_tables SET schema_name = $2, name = $3, key_source = $4 WHERE "
          "table_id = $1",
          id, t.schema, t.name, std::string(key_source_name(t.key_source)));
      tx.exec_params0("DELETE FROM pgrange_table_keys WHERE table_id = $1", id);
      insert_key(tx, t.table_id, t.key);
      tx.exec_params0("DELETE FROM pgrange_table_columns WHERE table_id = $1", id);
      insert_columns(tx, t.table_id, t.columns);
      tx.exec_params0("DELETE FROM pgrange_generated_keys WHERE table_id = $1", id);
      insert_generated(tx, t);
    }
    for (const NewTable& t : change->created) insert_table(tx, t.table);
    write_range_changes(tx, change->range_changes);
    bump_version(tx);
  }
  tx.commit();
  return standing;
}

std::map<std::string, std::string> MetadataStore::decide_commits(
    const std::vector<std::string>& gids, const std::string& instance_id) {
  // One statement, so one commit: those it inserts are decided "commit"; another decision
  // (recovery's "abort") stands for the others.
  pqxx::nontransaction tx(impl_->conn);
  std::map<std::string, std::string> standing;
  for (const auto& row :
       tx.exec_params("INSERT INTO pgrange_decisions (gid, decision, instance_id) "
                      "SELECT g, 'commit', $2 FROM unnest($1::text[]) AS g "
                      "ON CONFLICT (gid) DO NOTHING RETURNING gid",
                      text_array(gids), instance_id)) {
    standing.emplace(row[0].as<std::string>(), "commit");
  }
  if (standing.size() < gids.size()) {
    for (const auto& row :
         tx.exec_params("SELECT gid, decision FROM pgrange_decisions WHERE gid = ANY($1::text[])",
                        text_array(gids))) {
      standing.emplace(row[0].as<std::string>(), row[1].as<std::string>());
    }
  }
  return standing;
}

std::vector<std::pair<std::string, std::string>> MetadataStore::decisions() {
  pqxx::read_transaction tx(impl_->conn);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& row : tx.exec("SELECT gid, decision FROM pgrange_decisions ORDER BY gid")) {
    out.emplace_back(row[0].as<std::string>(), row[1].as<std::string>());
  }
  return out;
}

void MetadataStore::forget_decision(const std::string& gid) {
  pqxx::work tx(impl_->conn);
  tx.exec_params0("DELETE FROM pgrange_decisions WHERE gid = $1", gid);
  tx.commit();
}

void MetadataStore::forget_decisions(const std::vector<std::string>& gids) {
  pqxx::nontransaction tx(impl_->conn);
  tx.exec_params0("DELETE FROM pgrange_decisions WHERE gid = ANY($1::text[])", text_array(gids));
}

std::string MetadataStore::hold_prepared(const std::string& gid, const std::string& client_gid,
                                         const std::string& instance_id) {
  pqxx::work tx(impl_->conn);
  pqxx::result held = tx.exec_params(
      "INSERT INTO pgrange_decisions (gid, decision, instance_id, client_gid) "
      "VALUES ($1, 'prepared', $2, $3) ON CONFLICT DO NOTHING RETURNING gid",
      gid, instance_id, client_gid);
  std::string standing = "prepared";
  if (held.empty()) {
    pqxx::result own = tx.exec_params("SELECT decision FROM pgrange_decisions WHERE gid = $1", gid);
    standing = own.empty() ? "in use" : own[0][0].as<std::string>();
  }
  tx.commit();
  return standing;
}

std::optional<std::pair<std::string, std::string>> MetadataStore::settle_prepared(
    const std::string& client_gid, const std::string& decision) {
  pqxx::work tx(impl_->conn);
  pqxx::result rows = tx.exec_params(
      "UPDATE pgrange_decisions SET decision = CASE decision WHEN 'prepared' THEN $2 ELSE "
      "decision END, decided_at = now() WHERE client_gid = $1 RETURNING gid, decision",
      client_gid, decision);
  tx.commit();
  if (rows.empty()) return std::nullopt;
  return std::make_pair(rows[0][0].as<std::string>(), rows[0][1].as<std::string>());
}

void MetadataStore::report_instance(const std::string& instance_id, int64_t version) {
  pqxx::work tx(impl_->conn);
  tx.exec_params0(
      "INSERT INTO pgrange_instances (instance_id, loaded_version) VALUES ($1, $2) "
      "ON CONFLICT (instance_id) DO UPDATE SET loaded_version = greatest("
      "pgrange_instances.loaded_version, excluded.loaded_version), heartbeat_at = now()",
      instance_id, version);
  tx.commit();
}

void MetadataStore::heartbeat(const std::string& instance_id) {
  pqxx::work tx(impl_->conn);
  tx.exec_params0("UPDATE pgrange_instances SET heartbeat_at = now() WHERE instance_id = $1",
                  instance_id);
  tx.commit();
}

void MetadataStore::forget_instance(const std::string& instance_id) {
  pqxx::work tx(impl_->conn);
  tx.exec_params0("DELETE FROM pgrange_instances WHERE instance_id = $1", instance_id);
  tx.commit();
}

bool MetadataStore::wait_for_instances(int64_t version, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    {
      pqxx::work tx(impl_->conn);
      int64_t behind = tx.exec_params1(
                             "SELECT count(*) FROM pgrange_instances WHERE loaded_version < $1 "
                             "AND heartbeat_at > now() - interval '5 seconds'",
                             version)[0]
                           .as<int64_t>();
      tx.commit();
      if (behind == 0) return true;
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace pgrange::routing
