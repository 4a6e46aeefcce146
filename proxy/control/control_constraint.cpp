// The control plane and UNIQUE / EXCLUDE constraints over several shards. Each shard enforces a
// constraint on its own rows only, which is enough when two rows that violate it always have
// the same key (they are then on one shard). Any other UNIQUE constraint of a table with a key
// becomes a global index (enforced across shards); what cannot is refused when declared.
// Blocking; control thread.

#include <spdlog/spdlog.h>

#include <algorithm>
#include <pqxx/pqxx>
#include <set>

#include "proxy/control/control_plane.hpp"
#include "routing/meta/colocation.hpp"
#include "routing/plan/shard_unique_index.hpp"
#include "sql/quoting.hpp"

namespace pgrange::proxy {
namespace {

using Kind = sql::TableConstraint::Kind;

/// The key a table made by `info` (CREATE TABLE) will have, as describe_table gives it: the
/// configured key when its columns are all there, else the primary key; empty when unsharded.
/// `configured` tells which.
std::vector<std::string> new_table_key(const config::Config& config, const sql::StatementInfo& info,
                                       bool& configured) {
  configured = false;
  for (const auto& tc : config.tables) {
    bool named =
        tc.name == info.target.name ||
        (!info.target.schema.empty() && tc.name == info.target.schema + "." + info.target.name) ||
        (info.target.schema.empty() && tc.name == "public." + info.target.name);
    if (!named || tc.key.empty()) continue;
    for (const std::string& k : tc.key) {
      bool found = std::any_of(info.columns.begin(), info.columns.end(),
                               [&](const sql::ColumnInfo& c) { return c.name == k; });
      if (!found) return {};  // unsharded (describe_table says why)
    }
    configured = true;
    return tc.key;
  }
  return info.primary_key;
}

/// "UNIQUE constraint "name" (a, b)" / "UNIQUE constraint (a, b)": a constraint in messages.
std::string described(const sql::TableConstraint& c) {
  std::string kind = c.kind == Kind::kPrimaryKey ? "PRIMARY KEY"
                     : c.kind == Kind::kExclude  ? "EXCLUDE constraint"
                                                 : "UNIQUE constraint";
  std::string cols = sql::column_list(c.columns);
  return kind + (c.name.empty() ? "" : " \"" + c.name + "\"") +
         (c.kind == Kind::kExclude || cols.empty() ? "" : " (" + cols + ")");
}

}  // namespace

namespace {

Result<void> check_reference_defaults(const sql::StatementInfo& info,
                                      const std::vector<std::string>& key) {
  auto refusal = [&](const std::string& column, const std::string& what) {
    return fail(Error::make(sqlstate::kFeatureNotSupported,
                            "column \"" + column + "\" of reference table \"" + info.target.name +
                                "\" with a default of " + what +
                                " is not supported: each shard would compute a value of its own")
                    .with_hint("give the column no such default, and write its value in the "
                               "statements that write the table"));
  };
  // A key column's sequence or uuid is made by pgrange itself, the same for every shard.
  auto made_by_pgrange = [&](const sql::ColumnInfo& c) {
    bool in_key = std::find(key.begin(), key.end(), c.name) != key.end();
    const std::string& d = c.varying_default;
    return in_key && (d == "serial" || d == "bigserial" || d == "smallserial" ||
                      d == "GENERATED AS IDENTITY" || d == "nextval()" || d == "gen_random_uuid()");
  };
  for (const auto* columns : {&info.columns, &info.added_columns}) {
    for (const sql::ColumnInfo& c : *columns) {
      if (!c.varying_default.empty() && !made_by_pgrange(c)) {
        return refusal(c.name, c.varying_default);
      }
    }
  }
  for (const auto& [column, what] : info.default_changes) {
    if (!what.empty()) return refusal(column, what);
  }
  return {};
}

}  // namespace

Result<void> ControlPlane::check_colocation(const sql::StatementInfo& info,
                                            const routing::ClusterView& v) const {
  if (info.kind != sql::StatementKind::kCreateTable || info.temporary || info.create_as ||
      !info.parents.empty()) {
    return {};
  }
  for (const auto& tc : config_.tables) {
    bool named = tc.name == info.target.name ||
                 tc.name == (info.target.schema.empty() ? "public" : info.target.schema) + "." +
                                info.target.name;
    if (!named || tc.colocate_with.empty()) continue;
    std::string schema, name = tc.colocate_with;
    if (auto dot = name.find('.'); dot != std::string::npos) {
      schema = name.substr(0, dot);
      name = name.substr(dot + 1);
    }
    const routing::TableDescriptor* root = v.find_table(schema, name);
    std::string what = "table \"" + info.target.name + "\" cannot be co-located with table \"" +
                       tc.colocate_with + "\": ";
    if (root == nullptr) {
      return fail(Error::make(sqlstate::kUndefinedTable,
                              what + "that table does not exist (create it first)"));
    }
    // The new table's key as the shards will describe it: the configured one, or its primary
    // key, with the types its columns are declared with.
    std::vector<routing::KeyColumnDef> key;
    for (const std::string& k : tc.key.empty() ? info.primary_key : tc.key) {
      auto c = std::find_if(info.columns.begin(), info.columns.end(),
                            [&](const sql::ColumnInfo& col) { return col.name == k; });
      std::string type = c == info.columns.end() ? "" : c->type;
      if (type == "serial") type = "int4";
      if (type == "bigserial") type = "int8";
      if (type == "smallserial") type = "int2";
      auto t = routing::key_type_from_name(type);
      if (!t) {
        return fail(Error::make(sqlstate::kFeatureNotSupported,
                                what + "its key column \"" + k + "\" cannot be a pgrange key"));
      }
      key.push_back({k, routing::KeyColumn{*t}});
    }
    if (key.empty()) {
      return fail(Error::make(sqlstate::kFeatureNotSupported,
                              what + "it has no key (give it a PRIMARY KEY)"));
    }
    // Descending key columns are checked once the shards describe the table.
    for (size_t i = 0; i < key.size() && i < root->key.size(); ++i) {
      key[i].column.descending = root->key[i].column.descending;
      key[i].column.nulls = root->key[i].column.nulls;
    }
    if (auto why = routing::colocation_blocker(*root, key, info.hash_buckets)) {
      return fail(Error::make(sqlstate::kFeatureNotSupported, what + *why));
    }
  }
  return {};
}

Result<void> ControlPlane::check_foreign_keys(const sql::StatementInfo& info,
                                              const routing::ClusterView& v) const {
  if (info.foreign_keys.empty() || info.temporary) return {};
  // Each shard would check a FOREIGN KEY against its own rows only: a false 23503 where the
  // referenced row is on another shard, a missed one where nothing is there to check, and
  // ON DELETE / ON UPDATE actions that reach the shard's own rows only. pgrange does not
  // enforce them across shards (yet), and ranges move, so no placement keeps them local.
  // A reference table is whole on every shard: a key referencing one is checked exactly
  // there, and its actions reach every shard's rows, since its writes run on every shard.
  auto whole = [&](const sql::ForeignKeyConstraint& k) {
    const routing::TableDescriptor* r = v.find_table(k.referenced_schema, k.referenced_table);
    return r != nullptr && r->reference;
  };
  auto it = std::find_if(info.foreign_keys.begin(), info.foreign_keys.end(),
                         [&](const sql::ForeignKeyConstraint& k) { return !whole(k); });
  if (it == info.foreign_keys.end()) return {};
  const sql::ForeignKeyConstraint& fk = *it;
  std::string referenced =
      (fk.referenced_schema.empty() ? "" : fk.referenced_schema + ".") + fk.referenced_table;
  std::string what =
      "FOREIGN KEY" + (fk.name.empty() ? "" : " \"" + fk.name + "\"") + " (" +
      sql::column_list(fk.columns) + ") REFERENCES " + referenced +
      (fk.referenced_columns.empty() ? "" : " (" + sql::column_list(fk.referenced_columns) + ")");
  return fail(
      Error::make(sqlstate::kFeatureNotSupported,
                  what + " of table \"" + info.target.name +
                      "\" is not supported by pgrange over several shards")
          .with_detail("Each shard would check it against its own rows only: the referenced row "
                       "may be on another shard, and ON DELETE and ON UPDATE actions "
                       "would reach one shard's rows only.")
          .with_hint("declare the table without it and check the reference in the "
                     "application, or run pgrange with one shard, where PostgreSQL "
                     "enforces it"));
}

Result<void> ControlPlane::check_constraints(const sql::StatementInfo& info,
                                             const routing::ClusterView& v) const {
  if (config_.shards.size() < 2) return {};  // one shard enforces every constraint
  if (auto ok = check_foreign_keys(info, v); !ok) return ok;
  if (auto ok = check_colocation(info, v); !ok) return ok;
  // Every shard holds all of a reference table's rows and enforces its constraints on them;
  // each computes the defaults of the rows it writes.
  for (const auto& tc : config_.tables) {
    bool named = tc.name == info.target.name ||
                 tc.name == (info.target.schema.empty() ? "public" : info.target.schema) + "." +
                                info.target.name;
    if (named && tc.reference && info.kind == sql::StatementKind::kCreateTable) {
      std::vector<std::string> key = tc.key.empty() ? info.primary_key : tc.key;
      return check_reference_defaults(info, key);
    }
  }
  if (const auto* r = v.find_table(info.target.schema, info.target.name);
      r != nullptr && r->reference) {
    return check_reference_defaults(info, routing::row_key_names(*r));
  }
  std::vector<std::string> key;
  bool configured = false;
  std::string table = info.target.name;
  const routing::TableDescriptor* t = nullptr;
  if (info.kind == sql::StatementKind::kCreateTable) {
    if (info.temporary || info.create_as) return {};
    key = new_table_key(config_, info, configured);
    if (!info.parents.empty()) {
      // A partition or inheritance child: placed by its root's key.
      const sql::TableRef& p = info.parents.front();
      const routing::TableDescriptor* parent = v.find_table(p.schema, p.name);
      if (parent == nullptr) return {};
      key = routing::row_key_names(*parent);
      configured = false;  // its PRIMARY KEY, if any, is its root's (PostgreSQL's rule)
    }
  } else if (info.kind == sql::StatementKind::kAlterTable) {
    t = v.find_table(info.target.schema, info.target.name);
    if (t == nullptr) return {};
    key = routing::row_key_names(*t);
    configured = t->key_source == routing::KeySource::kConfig;
  } else {
    return {};
  }
  // An unsharded table lives on one shard, which enforces its constraints; moving its rows
  // apart once it has a key is refused while they would no longer hold (RangeAdmin).
  if (key.empty()) return {};
  const std::string keys = sql::column_list(key);
  const std::string why = " is not supported by pgrange on a table over several shards";
  for (const sql::TableConstraint& c : info.constraints) {
    if (sql::contains_key(c, key)) continue;
    switch (c.kind) {
      case Kind::kPrimaryKey:
        if (!configured) break;  // the primary key is the key (PostgreSQL refuses a second)
        return fail(Error::make(sqlstate::kFeatureNotSupported,
                                "a PRIMARY KEY (" + sql::column_list(c.columns) + ") of table \"" +
                                    table + "\" that does not contain the key configured for it (" +
                                    keys + ")" + why +
                                    ": each shard would enforce it on its own rows only")
                        .with_hint("make the configured key columns part of the primary key, or "
                                   "key the table by its primary key (no key in its [[table]] "
                                   "configuration)"));
      case Kind::kExclude:
        return fail(Error::make(sqlstate::kFeatureNotSupported,
                                "an EXCLUDE constraint that does not compare every key column of "
                                "table \"" +
                                    table + "\" (" + keys + ") with =" + why)
                        .with_hint("each shard would enforce it on its own rows only; add the key "
                                   "columns to it WITH ="));
      case Kind::kUnique: {
        // What a global index (the way pgrange enforces it across shards) cannot carry.
        std::string blocker = c.deferrable             ? "DEFERRABLE"
                              : !c.using_index.empty() ? "USING INDEX"
                                                       : c.global_blocker;
        if (!blocker.empty()) {
          return fail(Error::make(sqlstate::kFeatureNotSupported,
                                  "a " + described(c) + " with " + blocker +
                                      " that does not contain the key of table \"" + table +
                                      "\" (" + keys + ")" + why)
                          .with_hint("pgrange enforces such a constraint across shards as a "
                                     "global index, checked at each statement; write it without " +
                                     blocker));
        }
        if (c.added_column) {
          return fail(Error::make(sqlstate::kFeatureNotSupported,
                                  "ALTER TABLE … ADD COLUMN with a UNIQUE constraint that does not "
                                  "contain the key of table \"" +
                                      table + "\" (" + keys + ")" + why)
                          .with_hint("add the column, then ALTER TABLE " + table +
                                     " ADD CONSTRAINT … UNIQUE (" + sql::column_list(c.columns) +
                                     ") on its own"));
        }
        if (info.kind == sql::StatementKind::kAlterTable) {
          // Alone, it became a global index before it got here (plan_alter_constraint).
          return fail(Error::make(sqlstate::kFeatureNotSupported,
                                  "ALTER TABLE … ADD " + described(c) +
                                      " that does not contain the key of table \"" + table +
                                      "\" (" + keys + ") together with other subcommands" + why)
                          .with_hint("send it in an ALTER TABLE of its own: pgrange builds it as "
                                     "a global index, enforced across shards"));
        }
        if (!info.parents.empty()) {
          return fail(Error::make(sqlstate::kFeatureNotSupported,
                                  "a " + described(c) +
                                      " that does not contain the key of the table's family (" +
                                      keys + ") on a partition or inheritance child" + why)
                          .with_hint("each shard would enforce it on its own rows only; add the "
                                     "key columns to it"));
        }
        break;  // CREATE TABLE: after_ddl makes it a global index
      }
    }
  }
  if (t != nullptr) {
    for (const std::string& name : info.dropped_constraints) {
      const routing::IndexDescriptor* i = routing::find_index(*t, name);
      if (i == nullptr || !i->constraint) continue;
      return fail(Error::make(sqlstate::kFeatureNotSupported,
                              "ALTER TABLE … DROP CONSTRAINT \"" + name +
                                  "\" (a global index of pgrange's) together with other "
                                  "subcommands is not supported")
                      .with_hint("drop it in an ALTER TABLE of its own"));
    }
  }
  return {};
}

Result<void> ControlPlane::make_unique_constraints_global(const sql::TableRef& target) {
  if (config_.shards.size() < 2) return {};
  auto v = reload();
  const routing::TableDescriptor* found = v->find_table(target.schema, target.name);
  if (found == nullptr || found->key.empty() || found->reference) return {};
  routing::TableDescriptor table = *found;
  std::string rel = sql::quote_ident(table.schema) + "." + sql::quote_ident(table.name);
  std::vector<std::string> key = routing::row_key_names(table);
  std::vector<routing::ShardUniqueIndex> uniques;
  {
    pqxx::connection first(config_.shards.at(0).dsn);
    uniques = routing::shard_unique_indexes(first, table.schema, table.name);
  }
  Result<void> made;
  for (const routing::ShardUniqueIndex& u : uniques) {
    const sql::TableConstraint& c = u.index;
    if (c.kind != Kind::kUnique || u.index_only || sql::contains_key(c, key)) continue;
    // The shards' constraint goes first: the global index's own btree takes its name, which
    // its duplicate key errors report as PostgreSQL's would.
    run_on_every_shard("ALTER TABLE " + rel + " DROP CONSTRAINT " + sql::quote_ident(c.name) + ";",
                       false);
    sql::IndexSpec spec;
    spec.unique = true;
    spec.constraint = true;
    spec.name = c.name;
    spec.table = sql::TableRef{table.schema, table.name};
    spec.columns = c.columns;
    spec.storing = c.include;
    spec.nulls_not_distinct = c.nulls_not_distinct;
    auto r = create_global_index(spec);
    if (!r) {
      made = tl::unexpected(r.error());
      break;
    }
  }
  if (made) {
    // Whatever is left must hold with the table's rows wherever its ranges put them.
    auto now = reload();
    std::set<std::string> shards;
    for (size_t i : now->table_ranges(table.table_id)) shards.insert(now->ranges().at(i).shard);
    if (shards.size() > 1) {
      pqxx::connection first(config_.shards.at(0).dsn);
      if (auto blocked = routing::spread_blocker(
              table, routing::shard_unique_indexes(first, table.schema, table.name),
              "CREATE TABLE " + table.name)) {
        made = tl::unexpected(std::move(*blocked));
      }
    }
  }
  if (made) return made;
  // The CREATE TABLE fails as a whole: no shard and no catalog keeps the table.
  spdlog::warn("CREATE TABLE {}: {}; dropping the table", table.name, made.error().message);
  try {
    auto now = reload();
    if (const routing::TableDescriptor* t = now->find_table_id(table.table_id)) {
      drop_index_tables(*t);
      store_->drop_table(t->table_id);
    }
    run_on_every_shard("DROP TABLE IF EXISTS " + rel + ";", true);
    reload();
  } catch (const std::exception& e) {
    spdlog::error("undoing CREATE TABLE {}: {}", table.name, e.what());
  }
  return made;
}

std::optional<Error> ControlPlane::block_ddl_refusal(const sql::StatementInfo& info,
                                                     const routing::ClusterView& v) const {
  auto refuse = [](const std::string& what) {
    return Error::make(sqlstate::kFeatureNotSupported,
                       what + " inside a transaction block is not supported by pgrange yet")
        .with_hint("run it outside a transaction block");
  };
  if (info.kind == sql::StatementKind::kCreateTable && !info.temporary &&
      config_.shards.size() > 1) {
    // Such a constraint becomes a global index, which pgrange builds outside any transaction.
    bool configured = false;
    std::vector<std::string> key = new_table_key(config_, info, configured);
    for (const sql::TableConstraint& c : info.constraints) {
      if (!key.empty() && c.kind == Kind::kUnique && !sql::contains_key(c, key)) {
        return refuse("CREATE TABLE with a " + described(c) + " that does not contain the key (" +
                      sql::column_list(key) + "), enforced across shards as a global index,");
      }
    }
  }
  if (info.kind == sql::StatementKind::kCreateTable && info.has_like && !info.temporary &&
      config_.shards.size() > 1) {
    // Its unique indexes come from the other table; one without the key becomes a global index,
    // which pgrange builds outside any transaction.
    return refuse("CREATE TABLE (LIKE …)");
  }
  auto with_indexes = [&](const sql::TableRef& ref) {
    const routing::TableDescriptor* t = v.find_table(ref.schema, ref.name);
    return t != nullptr && !t->indexes.empty();
  };
  // A cluster-wide sequence follows such a change only once it is committed.
  bool cluster_wide = false;
  for (const routing::TableDescriptor& t : v.tables()) {
    for (const routing::GeneratedKey& g : t.generated) {
      bool named = !g.sequence_name.empty() && g.sequence_name == info.target.name &&
                   (info.target.schema.empty() || info.target.schema == g.sequence_schema);
      cluster_wide = cluster_wide || (info.alters_sequence && named);
    }
  }
  auto generated = [&](const sql::TableRef& ref) {
    const routing::TableDescriptor* t = v.find_table(ref.schema, ref.name);
    return t != nullptr && !t->generated.empty();
  };
  if (!info.identity_changes.empty() && generated(info.target)) cluster_wide = true;
  for (const sql::TableRef& ref : info.tables) {
    if (info.restart_identity && generated(ref)) cluster_wide = true;
  }
  if (cluster_wide) {
    return refuse(
        "changing a sequence pgrange hands out values of (ALTER SEQUENCE, identity "
        "options, TRUNCATE … RESTART IDENTITY)");
  }
  if (info.kind == sql::StatementKind::kDropTable) {
    for (const sql::TableRef& ref : info.tables) {
      if (with_indexes(ref))
        return refuse("DROP TABLE of \"" + ref.name + "\", which has global indexes,");
    }
  }
  if (info.kind == sql::StatementKind::kAlterTable && info.rename_to && with_indexes(info.target)) {
    return refuse("renaming table \"" + info.target.name + "\", which has global indexes,");
  }
  return std::nullopt;
}

}  // namespace pgrange::proxy
