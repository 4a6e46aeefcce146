// The control plane and global secondary indexes: CREATE INDEX (the index's backend table on
// every shard, its ranges, the trigger that reports writes, the backfill of existing rows) and
// DROP INDEX (all of that undone). Blocking; control thread.

#include <spdlog/spdlog.h>

#include <algorithm>
#include <pqxx/pqxx>

#include "proxy/control/control_plane.hpp"
#include "routing/keys/key_codec.hpp"
#include "routing/keys/key_space.hpp"
#include "routing/moves/range_data.hpp"
#include "routing/plan/index_maintenance.hpp"
#include "sql/index_statement.hpp"
#include "sql/quoting.hpp"

namespace pgrange::proxy {
namespace {

using sql::quote_ident;

/// How long CREATE INDEX waits for statements planned before the index existed.
constexpr auto kPlannedWait = std::chrono::seconds(10);
/// How often a change of the range map is tried again when another one got in first.
constexpr int kIndexAttempts = 5;

/// A column of the indexed table as the first shard's catalog has it.
struct ShardColumn {
  uint32_t type_oid = 0;
  std::string type;       ///< format_type(): "bigint", "character varying(20)", …
  std::string collation;  ///< a collation other than the type's default, else empty
};

/// The columns of schema.table on a shard: name → type.
std::map<std::string, ShardColumn> shard_columns(pqxx::connection& conn, const std::string& rel) {
  pqxx::read_transaction tx(conn);
  std::map<std::string, ShardColumn> out;
  for (const auto& row :
       tx.exec_params("SELECT a.attname, a.atttypid::int8, format_type(a.atttypid, a.atttypmod), "
                      "CASE WHEN a.attcollation <> 0 AND a.attcollation <> t.typcollation "
                      "THEN c.collname END "
                      "FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid "
                      "LEFT JOIN pg_collation c ON c.oid = a.attcollation "
                      "WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped",
                      rel)) {
    ShardColumn c;
    c.type_oid = row[1].as<uint32_t>();
    c.type = row[2].as<std::string>();
    if (!row[3].is_null()) c.collation = row[3].as<std::string>();
    out[row[0].as<std::string>()] = std::move(c);
  }
  return out;
}

/// Whether a relation of that name exists in the schema on a shard.
bool relation_exists(pqxx::connection& conn, const std::string& schema, const std::string& name) {
  pqxx::read_transaction tx(conn);
  return !tx.exec_params(
                "SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = $1 AND c.relname = $2",
                schema, name)
              .empty();
}

/// The SQL that creates an index's backend table and its local btree on a shard.
std::string index_table_sql(const routing::TableDescriptor& t, const routing::IndexDescriptor& i,
                            const std::map<std::string, ShardColumn>& types) {
  routing::TableDescriptor rel = routing::index_relation(t, i);
  std::string table = quote_ident(rel.schema) + "." + quote_ident(rel.name);
  std::string cols, pk, indexed, include;
  for (const std::string& c : rel.columns) {
    const ShardColumn& sc = types.at(c);
    cols += (cols.empty() ? "" : ", ") + quote_ident(c) + " " + sc.type;
    if (!sc.collation.empty()) cols += " COLLATE " + quote_ident(sc.collation);
  }
  for (const auto& k : routing::row_key_columns(t)) {
    pk += (pk.empty() ? "" : ", ") + quote_ident(k.name);
  }
  // The local btree orders text as the key space does (C), so that the range predicates
  // pgrange sends for a lookup can use it.
  for (const auto& k : routing::row_key_columns(rel)) {
    bool key_column = std::any_of(i.columns.begin(), i.columns.end(),
                                  [&](const routing::KeyColumnDef& c) { return c.name == k.name; });
    if (i.unique && !key_column) continue;  // a UNIQUE index: the indexed columns alone
    indexed += (indexed.empty() ? "" : ", ") + quote_ident(k.name);
    if (routing::is_text_type(k.column.type)) indexed += " COLLATE \"C\"";
  }
  for (const std::string& c : i.storing) include += (include.empty() ? "" : ", ") + quote_ident(c);
  if (i.unique) {
    // INCLUDE the rest of the key too: an index-only scan then answers the lookup.
    for (const auto& k : routing::row_key_columns(rel)) {
      bool key_column =
          std::any_of(i.columns.begin(), i.columns.end(),
                      [&](const routing::KeyColumnDef& c) { return c.name == k.name; });
      if (!key_column) include = quote_ident(k.name) + (include.empty() ? "" : ", ") + include;
    }
  }
  return "CREATE TABLE " + table + " (" + cols + ", PRIMARY KEY (" + pk + "));\nCREATE " +
         (i.unique ? "UNIQUE " : "") + "INDEX " + quote_ident(i.name) + " ON " + table + " (" +
         indexed + ")" + (include.empty() ? "" : " INCLUDE (" + include + ")") +
         (i.unique && i.nulls_not_distinct ? " NULLS NOT DISTINCT" : "") + ";";
}

/// Whether a constraint of that name exists in the schema on a shard (PostgreSQL names a new
/// constraint so that it does not: ChooseConstraintName).
bool constraint_exists(pqxx::connection& conn, const std::string& schema, const std::string& name) {
  pqxx::read_transaction tx(conn);
  return !tx.exec_params(
                "SELECT 1 FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace "
                "WHERE n.nspname = $1 AND c.conname = $2",
                schema, name)
              .empty();
}

/// PostgreSQL's error for duplicate values found while a UNIQUE index is built.
Error duplicate_error(const std::string& index, const Error& e) {
  Error out = Error::make("23505", "could not create unique index \"" + index + "\"");
  out.detail = e.detail;
  const std::string exists = " already exists.";
  if (out.detail.size() > exists.size() &&
      out.detail.compare(out.detail.size() - exists.size(), exists.size(), exists) == 0) {
    out.detail = out.detail.substr(0, out.detail.size() - exists.size()) + " is duplicated.";
  }
  return out;
}

}  // namespace

void ControlPlane::run_on_every_shard(const std::string& sql, bool ignore_errors) {
  for (size_t s = 0; s < config_.shards.size(); ++s) {
    try {
      pqxx::connection conn(config_.shards[s].dsn);
      pqxx::work tx(conn);
      tx.exec(sql);
      tx.commit();
    } catch (const std::exception& e) {
      if (!ignore_errors) throw;
      spdlog::warn("shard {}: {}", config_.shards[s].name, e.what());
    }
  }
}

Result<std::string> ControlPlane::create_global_index(const sql::IndexSpec& spec) {
  if (!store_) return fail(sqlstate::kConnectionFailure, "the metadata store is not reachable");
  std::optional<uint32_t> registered;
  bool tables_made = false;
  routing::TableDescriptor table;
  routing::IndexDescriptor index;
  try {
    auto v = reload();
    const routing::TableDescriptor* t = v->find_table(spec.table.schema, spec.table.name);
    if (t == nullptr) {
      return fail(sqlstate::kUndefinedTable, "relation \"" + spec.table.name + "\" does not exist");
    }
    if (v->in_family(*t)) {
      // Writes to the family's other tables would not reach it.
      return fail(sqlstate::kFeatureNotSupported,
                  "a global index on table \"" + t->name +
                      "\", which has partitions or inheritance children or is one, is not "
                      "supported yet (a UNIQUE index there must contain the key)");
    }
    table = *t;
    pqxx::connection first(config_.shards.at(0).dsn);
    std::string rel = quote_ident(table.schema) + "." + quote_ident(table.name);
    auto types = shard_columns(first, rel);

    // The name: the given one, or PostgreSQL's default made unique as PostgreSQL does
    // (ChooseRelationName: a constraint's also differs from every constraint's in the schema).
    std::string name = spec.name;
    if (name.empty()) {
      std::vector<std::string> named = spec.columns;  // PostgreSQL names INCLUDE columns too
      named.insert(named.end(), spec.storing.begin(), spec.storing.end());
      std::string label = spec.constraint ? "key" : "idx";
      name = sql::default_index_name(table.name, named, label);
      for (int n = 1; relation_exists(first, table.schema, name) ||
                      routing::find_index(table, name) != nullptr ||
                      (spec.constraint && constraint_exists(first, table.schema, name));
           ++n) {
        name = sql::default_index_name(table.name, named, label + std::to_string(n));
      }
    }
    if (routing::find_index(table, name) != nullptr || relation_exists(first, table.schema, name)) {
      if (spec.if_not_exists) return "relation \"" + name + "\" already exists, skipping";
      return fail("42P07", "relation \"" + name + "\" already exists");
    }
    if (spec.constraint) {
      pqxx::read_transaction tx(first);
      if (!tx.exec_params("SELECT 1 FROM pg_constraint WHERE conrelid = to_regclass($1) "
                          "AND conname = $2",
                          rel, name)
               .empty()) {
        return fail("42710", "constraint \"" + name + "\" for relation \"" + table.name +
                                 "\" already exists");
      }
    }
    index.name = name;
    index.unique = spec.unique;
    index.nulls_not_distinct = spec.unique && spec.nulls_not_distinct;
    index.constraint = spec.constraint;
    index.hash_buckets = spec.hashed ? spec.buckets : 0;
    for (const std::string& c : spec.columns) {
      auto it = types.find(c);
      if (it == types.end()) {
        return fail("42703", "column \"" + c + "\" " + (spec.constraint ? "named in key " : "") +
                                 "does not exist");
      }
      auto type = routing::key_type_from_oid(it->second.type_oid);
      if (!type && spec.constraint) {
        return fail(sqlstate::kFeatureNotSupported,
                    "UNIQUE constraint \"" + name + "\" on column \"" + c + "\" of type " +
                        it->second.type +
                        " is not supported by pgrange over several shards: it is enforced "
                        "there as a global index, and that type cannot be an index key yet");
      }
      if (!type) {
        return fail(Error::make(sqlstate::kFeatureNotSupported,
                                "column \"" + c + "\" of type " + it->second.type +
                                    " cannot be a key column of a global index yet")
                        .with_hint(spec.unique ? ""
                                               : "create a local index: CREATE INDEX … WITH "
                                                 "(local = true)"));
      }
      if (std::any_of(index.columns.begin(), index.columns.end(),
                      [&](const routing::KeyColumnDef& k) { return k.name == c; })) {
        if (spec.constraint) {
          return fail("42701", "column \"" + c + "\" appears twice in unique constraint");
        }
        return fail(sqlstate::kFeatureNotSupported,
                    "column \"" + c + "\" appears twice in a global index");
      }
      routing::KeyColumnDef def;
      def.name = c;
      def.column.type = *type;
      index.columns.push_back(def);
    }
    for (const std::string& c : spec.storing) {
      if (types.find(c) == types.end()) {
        return fail("42703", "column \"" + c + "\" " + (spec.constraint ? "named in key " : "") +
                                 "does not exist");
      }
      bool keyed = std::any_of(index.columns.begin(), index.columns.end(),
                               [&](const routing::KeyColumnDef& k) { return k.name == c; });
      for (const auto& k : routing::row_key_columns(table)) keyed = keyed || k.name == c;
      bool twice = std::find(index.storing.begin(), index.storing.end(), c) != index.storing.end();
      if (!keyed && !twice) index.storing.push_back(c);
    }

    // 1. The backend table on every shard (nothing writes to it yet), with the privileges of
    //    the table's.
    tables_made = true;
    routing::TableDescriptor made = table;
    made.indexes = {index};
    run_on_every_shard(
        index_table_sql(table, index, types) + "\n" + routing::index_privileges_sql(made), false);

    // 2. The catalog (write-only: writes maintain it, reads do not use it yet) and its range,
    //    on the shard holding the fewest ranges.
    index = store_->add_index(table.table_id, index, {});
    registered = index.index_id;
    for (int attempt = 1;; ++attempt) {
      v = reload();
      std::vector<int> load(shard_order_.size(), 0);
      for (const auto& r : v->ranges().ranges()) {
        int s = v->shard_index(r.shard);
        if (s >= 0) ++load[static_cast<size_t>(s)];
      }
      size_t best = (next_shard_ + 1) % shard_order_.size();
      for (size_t k = 0; k < shard_order_.size(); ++k) {
        size_t s = (next_shard_ + 1 + k) % shard_order_.size();
        if (load[s] < load[best]) best = s;
      }
      auto map = routing::RangeMap::from_descriptors(std::vector<routing::RangeDescriptor>(
          v->ranges().ranges().begin(), v->ranges().ranges().end()));
      if (!map) return tl::unexpected(map.error());
      std::string start = routing::index_prefix(table.table_id, index.index_id);
      std::string end = routing::index_prefix(table.table_id, index.index_id + 1);
      std::vector<routing::RangeOp> ops{routing::RangeOp::split(start),
                                        routing::RangeOp::split(end)};
      // A hash-sharded index starts with one range per bucket, spread over the shards.
      std::vector<std::string> starts{start};
      routing::TableDescriptor rel = routing::index_relation(table, index);
      for (uint32_t b = 1; b < index.hash_buckets; ++b) {
        std::string key = start;
        routing::append_key_value(key, rel.key.front().column,
                                  routing::KeyValue{static_cast<int64_t>(b)});
        ops.push_back(routing::RangeOp::split(key));
        starts.push_back(std::move(key));
      }
      auto changes = (*map)->apply(ops);
      if (!changes) return tl::unexpected(changes.error());
      for (size_t n = 0; n < starts.size(); ++n) {
        const routing::RangeDescriptor* r = (*map)->snapshot()->lookup(starts[n]);
        auto moved = (*map)->reassign(r->range_id, shard_order_[(best + n) % shard_order_.size()]);
        if (!moved) return tl::unexpected(moved.error());
        changes->push_back(*moved);
      }
      try {
        store_->apply_range_changes(*changes);
        next_shard_ = best;
        break;
      } catch (const pqxx::serialization_failure&) {
        if (attempt == kIndexAttempts) throw;
      }
    }
    v = reload();
    table = *v->find_table_id(table.table_id);

    // 3. Statements planned before the index existed (they would not write its entries) end
    //    before the trigger reports rows; later ones plan with it.
    for (size_t i : v->table_ranges(table.table_id)) {
      const routing::RangeDescriptor& r = v->ranges().at(i);
      if (!activity_.wait_idle(r.start_key, r.end_key, v->shard_index(r.shard),
                               routing::RangeActivity::Waiting::kWritersAndScans, kPlannedWait)) {
        spdlog::warn("CREATE INDEX {}: writes to range {} kept going for {} s; going on",
                     index.name, r.range_id, kPlannedWait.count());
      }
    }
    run_on_every_shard(routing::index_trigger_sql(table), false);

    // 4. The entries of the rows already there, shard by shard, each shard's rows locked
    //    against writes (SHARE) while its entries are written.
    routing::TableDescriptor only = table;
    only.indexes.clear();
    for (const auto& i : table.indexes) {
      if (i.index_id == index.index_id) only.indexes.push_back(i);
    }
    std::vector<std::string> source = routing::index_source_columns(only);
    std::string select;
    for (const std::string& c : source) {
      select += (select.empty() ? "" : ", ") + quote_ident(c) + "::text";
    }
    std::string conflict;
    for (const auto& k : routing::row_key_columns(table)) {
      conflict += (conflict.empty() ? "" : ", ") + quote_ident(k.name);
    }
    for (size_t s = 0; s < config_.shards.size(); ++s) {
      pqxx::connection conn(config_.shards[s].dsn);
      pqxx::work tx(conn);
      tx.exec(
          "SET LOCAL DateStyle = ISO; SET LOCAL bytea_output = hex; "
          "SET LOCAL extra_float_digits = 1");
      tx.exec("LOCK TABLE " + rel + " IN SHARE MODE");
      pqxx::result rows = tx.exec("SELECT " + select + " FROM " + rel);
      if (rows.empty()) continue;
      std::vector<routing::IndexNote> notes;
      notes.reserve(rows.size());
      for (const auto& row : rows) {
        routing::IndexNote n;
        n.table_id = table.table_id;
        n.insert = true;
        for (size_t c = 0; c < source.size(); ++c) {
          n.values.emplace_back(source[c], row[static_cast<int>(c)].is_null()
                                               ? std::nullopt
                                               : std::optional<std::string>(
                                                     row[static_cast<int>(c)].as<std::string>()));
        }
        notes.push_back(std::move(n));
      }
      auto writes = routing::index_entry_writes(*v, only, notes);
      if (!writes) throw std::runtime_error(writes.error().message);
      for (const auto& [target, sql] : *writes) {
        std::string text = sql;
        while (!text.empty() && (text.back() == ';' || text.back() == '\n')) text.pop_back();
        // An entry a write made meanwhile stands (ON CONFLICT on the row key); a duplicate
        // value of a UNIQUE index fails the build.
        pqxx::connection tc(config_.shards.at(static_cast<size_t>(target)).dsn);
        pqxx::work ttx(tc);
        ttx.exec(text + " ON CONFLICT (" + conflict + ") DO NOTHING");
        ttx.commit();
      }
      tx.commit();
    }

    // 5. Built: lookups may use it.
    store_->set_index_state(table.table_id, index.index_id,
                            routing::IndexDescriptor::State::kPublic);
    reload();
    spdlog::info("index {}@{} registered as /Table/{}/{}", table.name, index.name, table.table_id,
                 index.index_id);
    return std::string();
  } catch (const routing::DuplicateIndexError& e) {
    // Another instance made an index of that name meanwhile.
    if (tables_made) {
      routing::TableDescriptor rel = routing::index_relation(table, index);
      run_on_every_shard(
          "DROP TABLE IF EXISTS " + quote_ident(rel.schema) + "." + quote_ident(rel.name), true);
    }
    return fail("42P07", e.what());
  } catch (const std::exception& e) {
    Error err = Error::make(sqlstate::kInternalError, e.what());
    if (const auto* sqle = dynamic_cast<const pqxx::sql_error*>(&e)) {
      err = Error::make(
          sqle->sqlstate().empty() ? std::string(sqlstate::kInternalError) : sqle->sqlstate(),
          e.what());
      if (sqle->sqlstate() == "23505") {
        // The message's first line is PostgreSQL's; its DETAIL line names the value.
        std::string what = e.what();
        auto at = what.find("DETAIL:  ");
        Error shard = Error::make("23505", "");
        if (at != std::string::npos) {
          shard.detail = what.substr(at + 9);
          while (!shard.detail.empty() && shard.detail.back() == '\n') shard.detail.pop_back();
        }
        err = duplicate_error(index.name, shard);
      } else {
        // libpq's text: "ERROR:  message\n…"; keep the message line.
        std::string what = e.what();
        if (what.rfind("ERROR:  ", 0) == 0) what = what.substr(8);
        err.message = what.substr(0, what.find('\n'));
      }
    }
    // Undo: the catalog entry, the trigger as it was, the backend tables.
    if (registered) {
      try {
        drop_global_index(table.table_id, *registered);
      } catch (const std::exception& u) {
        spdlog::error("undoing CREATE INDEX {}: {}", index.name, u.what());
      }
    } else if (tables_made) {
      routing::TableDescriptor rel = routing::index_relation(table, index);
      run_on_every_shard(
          "DROP TABLE IF EXISTS " + quote_ident(rel.schema) + "." + quote_ident(rel.name), true);
    }
    return tl::unexpected(std::move(err));
  }
}

void ControlPlane::drop_global_index(uint64_t table_id, uint32_t index_id) {
  auto v = reload();
  const routing::TableDescriptor* t = v->find_table_id(table_id);
  if (t == nullptr) return;
  routing::TableDescriptor table = *t;
  const routing::IndexDescriptor* found = nullptr;
  for (const auto& i : table.indexes) {
    if (i.index_id == index_id) found = &i;
  }
  if (found == nullptr) return;
  routing::IndexDescriptor index = *found;
  routing::TableDescriptor rel = routing::index_relation(table, index);

  // The index's ranges go back into their left neighbour (moved to its shard first: they hold
  // nothing once the backend table is gone, so that is only a change of the map).
  for (int attempt = 1;; ++attempt) {
    auto map = routing::RangeMap::from_descriptors(std::vector<routing::RangeDescriptor>(
        v->ranges().ranges().begin(), v->ranges().ranges().end()));
    if (!map) throw std::runtime_error(map.error().message);
    std::vector<routing::RangeChange> changes;
    auto ids = v->index_ranges(table_id, index_id);
    const std::string start = routing::index_prefix(table_id, index_id);
    const std::string end = routing::index_prefix(table_id, index_id + 1);
    for (size_t k : ids) {
      const routing::RangeDescriptor& r = v->ranges().at(k);
      if (r.start_key < start || r.end_key > end) continue;  // shared with a neighbour
      auto snap = (*map)->snapshot();
      size_t pos = snap->find_index(r.start_key);
      if (pos == 0) continue;
      const routing::RangeDescriptor& left = snap->at(pos - 1);
      const routing::RangeDescriptor& self = snap->at(pos);
      if (self.shard != left.shard) {
        auto moved = (*map)->reassign(self.range_id, left.shard);
        if (!moved) throw std::runtime_error(moved.error().message);
        changes.push_back(*moved);
      }
      std::vector<routing::RangeOp> ops{routing::RangeOp::merge(left.range_id)};
      auto merged = (*map)->apply(ops);
      if (!merged) throw std::runtime_error(merged.error().message);
      changes.insert(changes.end(), merged->begin(), merged->end());
    }
    try {
      store_->drop_index(table_id, index_id, changes);
      break;
    } catch (const pqxx::serialization_failure&) {
      if (attempt == kIndexAttempts) throw;
      v = reload();
    }
  }
  v = reload();
  const routing::TableDescriptor* now = v->find_table_id(table_id);
  std::string trigger = now != nullptr && !now->indexes.empty()
                            ? routing::index_trigger_sql(*now)
                            : routing::drop_index_trigger_sql(table);
  run_on_every_shard(trigger + "\nDROP TABLE IF EXISTS " + quote_ident(rel.schema) + "." +
                         quote_ident(rel.name) + ";",
                     true);
  spdlog::info("index {}@{} dropped", table.name, index.name);
}

void ControlPlane::follow_privileges(const sql::StatementInfo& info,
                                     const routing::ClusterView& v) {
  std::string sql;
  for (const routing::TableDescriptor& t : v.tables()) {
    if (t.indexes.empty()) continue;
    bool named = info.tables.empty() ||
                 std::any_of(info.tables.begin(), info.tables.end(), [&](const sql::TableRef& r) {
                   return r.name == t.name && (r.schema.empty() || r.schema == t.schema);
                 });
    if (named) sql += routing::index_privileges_sql(t);
  }
  if (!sql.empty()) run_on_every_shard(sql, true);
}

void ControlPlane::follow_privileges(const std::vector<sql::StatementInfo>& infos) {
  try {
    auto v = reload();
    for (const sql::StatementInfo& info : infos) follow_privileges(info, *v);
  } catch (const std::exception& e) {
    spdlog::warn("giving global indexes' tables their tables' privileges: {}", e.what());
  }
}

void ControlPlane::drop_index_tables(const routing::TableDescriptor& table) {
  std::string sql;
  for (const auto& i : table.indexes) {
    routing::TableDescriptor rel = routing::index_relation(table, i);
    sql += "DROP TABLE IF EXISTS " + quote_ident(rel.schema) + "." + quote_ident(rel.name) + ";\n";
  }
  sql += routing::drop_index_trigger_sql(table);
  if (!table.indexes.empty()) run_on_every_shard(sql, true);
}

}  // namespace pgrange::proxy
