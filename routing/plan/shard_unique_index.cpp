#include "routing/plan/shard_unique_index.hpp"

#include <cctype>
#include <pqxx/pqxx>

#include "sql/quoting.hpp"

namespace pgrange::routing {
namespace {

/// A name as an SQL statement in a hint writes it: bare when it is a plain lower-case
/// identifier, else quoted.
std::string sql_name(const std::string& name) {
  bool plain =
      !name.empty() && (std::islower(static_cast<unsigned char>(name[0])) != 0 || name[0] == '_');
  for (char c : name) {
    plain = plain && (std::islower(static_cast<unsigned char>(c)) != 0 ||
                      std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '_');
  }
  return plain ? name : sql::quote_ident(name);
}

}  // namespace

std::vector<ShardUniqueIndex> shard_unique_indexes(pqxx::connection& conn,
                                                   const std::string& schema,
                                                   const std::string& table) {
  pqxx::read_transaction tx(conn);
  std::string rel = (schema.empty() ? "" : conn.quote_name(schema) + ".") + conn.quote_name(table);
  // One row per index column, in order: the first indnkeyatts are its key, the rest INCLUDE.
  pqxx::result rows = tx.exec_params(
      "SELECT ic.relname, coalesce(c.contype::text, 'i'), i.indnkeyatts, i.indnullsnotdistinct, "
      "coalesce(c.condeferrable, false), i.indpred IS NOT NULL, k.ord, coalesce(a.attname, ''), "
      "coalesce(op.oprname, '') "
      "FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid "
      "LEFT JOIN pg_constraint c ON c.conindid = i.indexrelid AND c.conrelid = i.indrelid "
      "  AND c.contype IN ('p', 'u', 'x') "
      "CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord) "
      "LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum "
      "  AND k.attnum > 0 "
      "LEFT JOIN pg_operator op ON op.oid = c.conexclop[k.ord::int] "
      "WHERE i.indrelid = to_regclass($1) AND (i.indisunique OR i.indisexclusion) "
      "ORDER BY i.indexrelid, k.ord",
      rel);
  std::vector<ShardUniqueIndex> out;
  std::string last;
  for (const auto& row : rows) {
    std::string name = row[0].as<std::string>();
    if (out.empty() || name != last) {
      last = name;
      ShardUniqueIndex u;
      u.index.name = name;
      std::string type = row[1].as<std::string>();
      u.index.kind = type == "p"   ? sql::TableConstraint::Kind::kPrimaryKey
                     : type == "x" ? sql::TableConstraint::Kind::kExclude
                                   : sql::TableConstraint::Kind::kUnique;
      u.index_only = type == "i";
      u.index.nulls_not_distinct = row[3].as<bool>();
      u.index.deferrable = row[4].as<bool>();
      u.partial = row[5].as<bool>();
      out.push_back(std::move(u));
    }
    ShardUniqueIndex& u = out.back();
    auto key_columns = row[2].as<int64_t>();
    std::string column = row[7].as<std::string>();
    if (row[6].as<int64_t>() <= key_columns) {
      u.index.columns.push_back(std::move(column));
      if (u.index.kind == sql::TableConstraint::Kind::kExclude) {
        u.index.operators.push_back(row[8].as<std::string>());
      }
    } else {
      u.index.include.push_back(std::move(column));
    }
  }
  return out;
}

std::vector<std::string> row_key_names(const TableDescriptor& t) {
  std::vector<std::string> out;
  for (const auto& k : row_key_columns(t)) out.push_back(k.name);
  return out;
}

std::optional<Error> spread_blocker(const TableDescriptor& t,
                                    const std::vector<ShardUniqueIndex>& indexes,
                                    const std::string& what) {
  std::vector<std::string> key = row_key_names(t);
  using Kind = sql::TableConstraint::Kind;
  for (const ShardUniqueIndex& u : indexes) {
    const sql::TableConstraint& c = u.index;
    if (sql::contains_key(c, key)) continue;
    std::string table = sql_name(t.name);
    std::string name = sql_name(c.name);
    std::string columns = sql::column_list(c.columns);
    std::string written;  // the columns as the hint's SQL writes them
    for (const std::string& col : c.columns)
      written += (written.empty() ? "" : ", ") + sql_name(col);
    std::string head =
        what + " would spread table \"" + t.name + "\" over several shards, but its ";
    std::string why = ": each shard would enforce it on its own rows only";
    std::string hint;
    switch (c.kind) {
      case Kind::kPrimaryKey:
        head += "PRIMARY KEY \"" + c.name + "\" (" + columns +
                ") does not contain the key pgrange places its rows by (" + sql::column_list(key) +
                ")";
        hint = "make the key columns part of the primary key, or key the table by its primary key";
        break;
      case Kind::kExclude:
        head += "EXCLUDE constraint \"" + c.name + "\" does not compare every key column (" +
                sql::column_list(key) + ") with =";
        hint = "drop it (ALTER TABLE " + table + " DROP CONSTRAINT " + name +
               ") or add the key columns to it WITH =";
        break;
      case Kind::kUnique: {
        bool plain = !u.partial && std::none_of(c.columns.begin(), c.columns.end(),
                                                [](const std::string& s) { return s.empty(); });
        head += std::string(u.index_only ? "UNIQUE index" : "UNIQUE constraint") + " \"" + c.name +
                "\" does not contain its key (" + sql::column_list(key) + ")";
        if (!plain) {
          hint = "drop it, or add the key columns to it";
        } else if (u.index_only) {
          hint = "drop the index and create it again (DROP INDEX " + name +
                 ", then CREATE UNIQUE INDEX " + name + " ON " + table + " (" + written +
                 ")): pgrange then makes it a global index, enforced across shards";
        } else {
          hint = "drop the constraint and add it again (ALTER TABLE " + table +
                 " DROP CONSTRAINT " + name + ", then ALTER TABLE " + table + " ADD CONSTRAINT " +
                 name + " UNIQUE (" + written +
                 ")): pgrange then makes it a global index, enforced across shards";
        }
        break;
      }
    }
    return Error::make(sqlstate::kFeatureNotSupported, head + why).with_hint(hint);
  }
  return std::nullopt;
}

}  // namespace pgrange::routing
