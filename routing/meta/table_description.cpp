#include "routing/meta/table_description.hpp"

#include <algorithm>
#include <charconv>

#include "common/error.hpp"
#include "routing/keys/key_type.hpp"
#include "sql/quoting.hpp"

namespace pgrange::routing {

namespace {

enum Column : size_t {
  kSchema,
  kName,
  kAttribute,
  kType,
  kKeyPosition,  ///< place in the primary key (1-based), null when not in it
  kDescending,
  kIdentity,  ///< pg_attribute.attidentity: "", "a" or "d"
  kDefault,   ///< the default's expression, "" when none
  kSequenceSchema,
  kSequenceName,
  kOwned,  ///< the sequence is the column's own (serial, identity)
  kStart,
  kIncrement,
  kMin,
  kMax,
  kCycle,
  kLastValue,  ///< null before the sequence's first value
  kColumns
};

using Row = std::vector<std::optional<std::string>>;

const std::string& text(const Row& row, Column c) {
  static const std::string empty;
  return row.at(c) ? *row.at(c) : empty;
}

int64_t number(const Row& row, Column c) {
  int64_t v = 0;
  const std::string& s = text(row, c);
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

bool flag(const Row& row, Column c) {
  return text(row, c) == "t";
}

/// The generated key of key column `k` (its row), if pgrange can make its values: an identity
/// column or a DEFAULT nextval('seq') on an integer key, DEFAULT gen_random_uuid() on a uuid
/// key. Anything else in a default (nextval('s') * 10, …) is left to the shard.
std::optional<GeneratedKey> generated_key(const KeyColumnDef& k, const Row& row) {
  KeyType type = k.column.type;
  bool integer = type == KeyType::kInt2 || type == KeyType::kInt4 || type == KeyType::kInt8;
  const std::string& expr = text(row, kDefault);
  GeneratedKey g;
  g.column = k.name;
  if (type == KeyType::kUuid) {
    if (expr != "gen_random_uuid()") return std::nullopt;
    g.kind = GeneratedKey::Kind::kUuid;
    return g;
  }
  if (!integer || !row.at(kSequenceName)) return std::nullopt;
  const std::string& identity = text(row, kIdentity);
  if (identity == "a") {
    g.kind = GeneratedKey::Kind::kIdentityAlways;
  } else if (identity == "d") {
    g.kind = GeneratedKey::Kind::kIdentityByDefault;
  } else if (expr.rfind("nextval(", 0) == 0 && expr.ends_with("::regclass)") &&
             expr.find(')') == expr.size() - 1) {
    g.kind = GeneratedKey::Kind::kSequence;
  } else {
    return std::nullopt;
  }
  g.sequence_schema = text(row, kSequenceSchema);
  g.sequence_name = text(row, kSequenceName);
  g.owned = flag(row, kOwned);
  return g;
}

}  // namespace

std::string table_description_sql(const std::string& relation) {
  std::string rel = sql::quote_literal(relation);
  // The sequence of a column: an identity's or serial's own (pg_get_serial_sequence), else the
  // one its default's nextval() depends on.
  return "SELECT n.nspname, c.relname, a.attname, a.atttypid::int8, "
         "array_position(i.indkey::int2[], a.attnum), "
         "(i.indoption[array_position(i.indkey::int2[], a.attnum) - 1] & 1) = 1, "
         "a.attidentity::text, coalesce(pg_get_expr(d.adbin, d.adrelid), ''), "
         "sn.nspname, sc.relname, serial IS NOT NULL, s.seqstart, s.seqincrement, s.seqmin, "
         "s.seqmax, s.seqcycle, CASE WHEN sc.oid IS NOT NULL THEN "
         "pg_sequence_last_value(sc.oid) END "
         "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
         "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped "
         "LEFT JOIN pg_index i ON i.indrelid = c.oid AND i.indisprimary "
         "LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum "
         "CROSS JOIN LATERAL (SELECT pg_get_serial_sequence(format('%I.%I', n.nspname, "
         "c.relname), a.attname)::regclass::oid AS serial) ss "
         "LEFT JOIN pg_class sc ON sc.oid = coalesce(ss.serial, (SELECT dep.refobjid FROM "
         "pg_depend dep JOIN pg_class x ON x.oid = dep.refobjid AND x.relkind = 'S' WHERE "
         "dep.classid = 'pg_attrdef'::regclass AND dep.objid = d.oid LIMIT 1)) "
         "LEFT JOIN pg_namespace sn ON sn.oid = sc.relnamespace "
         "LEFT JOIN pg_sequence s ON s.seqrelid = sc.oid "
         "WHERE c.oid = to_regclass(" +
         rel + ") ORDER BY a.attnum";
}

Result<TableDescription> describe_table_rows(const std::vector<Row>& rows, const std::string& name,
                                             const ConfiguredKey& configured) {
  if (rows.empty()) {
    return tl::unexpected(
        Error::make(sqlstate::kUndefinedTable, "relation \"" + name + "\" does not exist"));
  }
  for (const Row& row : rows) {
    if (row.size() != kColumns) {
      return tl::unexpected(
          Error::make(sqlstate::kInternalError,
                      "a table description row has " + std::to_string(row.size()) + " columns"));
    }
  }
  TableDescription out;
  TableDescriptor& t = out.table;
  t.schema = text(rows.front(), kSchema);
  t.name = text(rows.front(), kName);
  for (const Row& row : rows) t.columns.push_back(text(row, kAttribute));
  auto row_of = [&](const std::string& column) -> const Row* {
    for (const Row& row : rows) {
      if (text(row, kAttribute) == column) return &row;
    }
    return nullptr;
  };
  // The key columns in key order, each with its row.
  std::vector<std::pair<std::string, const Row*>> key;
  const std::vector<std::string>* configured_key =
      configured ? configured(t.schema, t.name) : nullptr;
  if (configured_key != nullptr) {
    for (const std::string& c : *configured_key) {
      const Row* row = row_of(c);
      if (row == nullptr) {
        out.notice = "key column \"" + c + "\" configured for table \"" + t.name +
                     "\" does not exist: the table is unsharded";
        return out;
      }
      key.emplace_back(c, row);
    }
    t.key_source = KeySource::kConfig;
  } else {
    std::vector<std::pair<int64_t, const Row*>> primary;
    for (const Row& row : rows) {
      if (row.at(kKeyPosition)) primary.emplace_back(number(row, kKeyPosition), &row);
    }
    std::sort(primary.begin(), primary.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [position, row] : primary) key.emplace_back(text(*row, kAttribute), row);
    t.key_source = key.empty() ? KeySource::kUnsharded : KeySource::kPrimaryKey;
  }
  for (const auto& [column, row] : key) {
    auto type = key_type_from_oid(static_cast<uint32_t>(number(*row, kType)));
    if (!type) {
      t.key_source = KeySource::kUnsharded;
      t.key.clear();
      out.notice = "the type of key column \"" + column +
                   "\" cannot be a pgrange key yet, so table \"" + t.name +
                   "\" is unsharded (one range, on one shard)";
      return out;
    }
    KeyColumnDef def;
    def.name = column;
    def.column.type = *type;
    def.column.descending = configured_key == nullptr && flag(*row, kDescending);
    t.key.push_back(def);
  }
  for (size_t i = 0; i < key.size(); ++i) {
    const Row& row = *key[i].second;
    auto g = generated_key(t.key[i], row);
    if (!g) continue;
    SequenceState s;
    if (!g->sequence_name.empty()) {
      s.start_value = number(row, kStart);
      s.increment = number(row, kIncrement);
      s.min_value = number(row, kMin);
      s.max_value = number(row, kMax);
      s.cycle = flag(row, kCycle);
      // Before its first value a sequence's next one is its start.
      s.is_called = row.at(kLastValue).has_value();
      s.last_value = s.is_called ? number(row, kLastValue) : s.start_value;
    }
    t.generated.push_back(std::move(*g));
    out.sequences.push_back(s);
  }
  return out;
}

}  // namespace pgrange::routing
