#include "routing/plan/index_maintenance.hpp"

#include <algorithm>

#include "routing/keys/key_codec.hpp"
#include "routing/keys/key_space.hpp"
#include "routing/plan/router.hpp"
#include "sql/quoting.hpp"

namespace pgrange::routing {

namespace {

using sql::quote_ident;
using sql::quote_literal;

/// "<schema>"."<name>".
std::string qualified(std::string_view schema, std::string_view name) {
  return quote_ident(schema) + "." + quote_ident(name);
}

/// The SQL expression of a note's fields for the row `record` (OLD or NEW).
std::string fields_sql(std::string_view record, const std::vector<std::string>& columns) {
  std::string out;
  for (const std::string& c : columns) {
    std::string value = std::string(record) + "." + quote_ident(c) + "::text";
    if (!out.empty()) out += "\n      || ";
    out += quote_literal(std::to_string(c.size()) + ":" + c) + " || COALESCE(octet_length(" +
           value + ")::text || ':' || " + value + ", 'N')";
  }
  return out.empty() ? "''" : out;
}

/// A dollar-quoting tag ($pgrange$, $pgrange1$, …) that does not occur in `body`.
std::string dollar_tag(std::string_view body) {
  std::string tag = "$pgrange$";
  for (int n = 1; body.find(tag) != std::string_view::npos; ++n) {
    tag = "$pgrange" + std::to_string(n) + "$";
  }
  return tag;
}

/// A setting the trigger pins while it makes a note: its name, the SQL condition (over the
/// saved value `v`) under which it can stay, and the value it is set to otherwise.
struct PinnedSetting {
  const char* name;
  const char* variable;
  const char* keep_if;
  const char* value;
};

/// client_min_messages lets notices through; the others make ::text read the same everywhere.
constexpr PinnedSetting kPinned[] = {
    {"client_min_messages", "pgrange_cmm",
     "pgrange_cmm IN ('debug5', 'debug4', 'debug3', 'debug2', 'debug1', 'log', 'notice')",
     "notice"},
    {"DateStyle", "pgrange_ds", "pgrange_ds LIKE 'ISO,%'", "ISO"},
    {"bytea_output", "pgrange_bo", "pgrange_bo = 'hex'", "hex"},
    {"extra_float_digits", "pgrange_efd", "pgrange_efd::int >= 1", "1"},
};

/// Reads `<decimal>` followed by `end` from `in` (advancing it); nullopt when malformed.
std::optional<uint64_t> read_number(std::string_view& in, char end) {
  size_t i = 0;
  uint64_t n = 0;
  while (i < in.size() && in[i] >= '0' && in[i] <= '9') {
    uint64_t digit = static_cast<uint64_t>(in[i] - '0');
    if (n > (UINT64_MAX - digit) / 10) return std::nullopt;
    n = n * 10 + digit;
    ++i;
  }
  if (i == 0 || i >= in.size() || in[i] != end) return std::nullopt;
  in.remove_prefix(i + 1);
  return n;
}

/// Reads `<length>:<bytes>` from `in` (advancing it); nullopt when malformed.
std::optional<std::string> read_counted(std::string_view& in) {
  auto n = read_number(in, ':');
  if (!n || *n > in.size()) return std::nullopt;
  std::string out(in.substr(0, *n));
  in.remove_prefix(*n);
  return out;
}

/// The value of a column in a note, or null when the note lacks the column.
const std::optional<std::string>* find_value(const IndexNote& note, std::string_view column) {
  for (const auto& [name, value] : note.values) {
    if (name == column) return &value;
  }
  return nullptr;
}

/// A value as an SQL literal: quote_literal of its text, or NULL.
std::string literal(const std::optional<std::string>& v) {
  return v ? quote_literal(*v) : std::string("NULL");
}

/// One index entry as a note gives it: the shard owning its key and its column values.
struct Entry {
  int shard = -1;
  std::vector<std::optional<std::string>> values;  ///< index_relation columns order
};

/// The index entry a note's row has, placed on the shard owning its key.
Result<Entry> entry_of(const ClusterView& view, const TableDescriptor& t,
                       const IndexDescriptor& index, const TableDescriptor& relation,
                       const IndexNote& note) {
  auto where = [&] { return "index " + index.name + " of table " + t.name + ": "; };
  Entry e;
  for (const std::string& c : relation.columns) {
    const std::optional<std::string>* v = find_value(note, c);
    if (v == nullptr) {
      return fail(sqlstate::kInternalError,
                  where() + "the write did not report column " + c + " (reinstall the trigger)");
    }
    e.values.push_back(*v);
  }
  // relation.columns starts with the key columns a row gives (a hash-sharded index's bucket
  // is computed from them).
  auto key_columns = row_key_columns(relation);
  std::vector<std::optional<std::string>> key_values(
      e.values.begin(), e.values.begin() + static_cast<std::ptrdiff_t>(key_columns.size()));
  auto key = point_key(relation, key_values);
  if (!key) {
    Error err = key.error();
    for (size_t k = 0; k < key_columns.size(); ++k) {
      auto one = key_values[k] ? std::optional<std::string_view>(*key_values[k]) : std::nullopt;
      std::string probe;
      if (!append_text_value(probe, key_columns[k].column, one)) {
        err.message = where() + "column " + key_columns[k].name + ": " + err.message;
        return fail(std::move(err));
      }
    }
    err.message = where() + err.message;
    return fail(std::move(err));
  }
  const RangeDescriptor* range = view.ranges().lookup(*key);
  if (range == nullptr) return fail(sqlstate::kInternalError, where() + "no range owns the key");
  e.shard = view.shard_index(range->shard);
  if (e.shard < 0) {
    return fail(sqlstate::kInternalError,
                where() + "the key's range is on shard " + range->shard + ", not configured here");
  }
  return e;
}

/// The notes of one row (by row key): the first and the last.
struct RowNotes {
  const IndexNote* first = nullptr;
  const IndexNote* last = nullptr;
};

}  // namespace

std::string index_trigger_function_name(const TableDescriptor& t) {
  return "pgrange_index_" + std::to_string(t.table_id);
}

std::string index_trigger_sql(const TableDescriptor& t) {
  const std::vector<std::string> columns = index_source_columns(t);
  const std::string id = std::to_string(t.table_id);
  std::string body = "\nDECLARE\n";
  for (const PinnedSetting& s : kPinned) body += "  " + std::string(s.variable) + " text;\n";
  body += "BEGIN\n  IF TG_OP = 'UPDATE' THEN\n";
  if (columns.empty()) {
    body += "    RETURN NULL;\n";
  } else {
    body += "    IF ";
    for (size_t i = 0; i < columns.size(); ++i) {
      std::string c = quote_ident(columns[i]);
      if (i > 0) body += "\n        AND ";
      body += "OLD." + c + "::text IS NOT DISTINCT FROM NEW." + c + "::text";
    }
    body += " THEN\n      RETURN NULL;\n    END IF;\n";
  }
  body += "  END IF;\n";
  for (const PinnedSetting& s : kPinned) {
    std::string v = s.variable;
    body += "  " + v + " := current_setting(" + quote_literal(s.name) + ");\n";
    body += "  IF " + std::string(s.keep_if) + " THEN\n    " + v + " := NULL;\n  ELSE\n";
    body += "    PERFORM set_config(" + quote_literal(s.name) + ", " + quote_literal(s.value) +
            ", true);\n  END IF;\n";
  }
  body += "  IF TG_OP <> 'INSERT' THEN\n    RAISE NOTICE USING ERRCODE = " +
          quote_literal(kIndexNoteSqlstate) + ", MESSAGE = " + quote_literal(id + "-") +
          "\n      || " + fields_sql("OLD", columns) + ";\n  END IF;\n";
  body += "  IF TG_OP <> 'DELETE' THEN\n    RAISE NOTICE USING ERRCODE = " +
          quote_literal(kIndexNoteSqlstate) + ", MESSAGE = " + quote_literal(id + "+") +
          "\n      || " + fields_sql("NEW", columns) + ";\n  END IF;\n";
  for (const PinnedSetting& s : kPinned) {
    std::string v = s.variable;
    body += "  IF " + v + " IS NOT NULL THEN\n    PERFORM set_config(" + quote_literal(s.name) +
            ", " + v + ", true);\n  END IF;\n";
  }
  body += "  RETURN NULL;\nEND\n";
  const std::string tag = dollar_tag(body);
  const std::string function = qualified(t.schema, index_trigger_function_name(t));
  const std::string table = qualified(t.schema, t.name);
  const std::string trigger = quote_ident(kIndexTriggerName);
  // TRUNCATE fires no row trigger: it empties the index tables too (it runs on every shard).
  std::string tables;
  for (const IndexDescriptor& i : t.indexes) {
    tables += (tables.empty() ? "" : ", ") + qualified(t.schema, index_table_name(t, i));
  }
  std::string truncate_body = "BEGIN\n  TRUNCATE " + tables + ";\n  RETURN NULL;\nEND\n";
  const std::string truncate_tag = dollar_tag(truncate_body);
  const std::string truncate_function =
      qualified(t.schema, index_trigger_function_name(t) + "_truncate");
  const std::string truncate_trigger = quote_ident(std::string(kIndexTriggerName) + "_truncate");
  std::string out = "CREATE OR REPLACE FUNCTION " + function +
                    "() RETURNS trigger LANGUAGE plpgsql AS " + tag + body + tag + ";\n" +
                    "DROP TRIGGER IF EXISTS " + trigger + " ON " + table + ";\n" +
                    "CREATE TRIGGER " + trigger + " AFTER INSERT OR UPDATE OR DELETE ON " + table +
                    " FOR EACH ROW EXECUTE FUNCTION " + function + "();\n";
  if (t.indexes.empty()) return out;
  return out + "CREATE OR REPLACE FUNCTION " + truncate_function +
         "() RETURNS trigger LANGUAGE plpgsql AS " + truncate_tag + truncate_body + truncate_tag +
         ";\n" + "DROP TRIGGER IF EXISTS " + truncate_trigger + " ON " + table + ";\n" +
         "CREATE TRIGGER " + truncate_trigger + " AFTER TRUNCATE ON " + table +
         " FOR EACH STATEMENT EXECUTE FUNCTION " + truncate_function + "();\n";
}

std::string index_privileges_sql(const TableDescriptor& t) {
  if (t.indexes.empty()) return "";
  std::string tables;
  for (const IndexDescriptor& i : t.indexes) {
    tables += (tables.empty() ? "" : ", ") +
              quote_literal(qualified(t.schema, index_table_name(t, i))) + "::regclass";
  }
  const std::string who =
      "CASE WHEN r.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(r.grantee)) END";
  std::string body =
      "DECLARE\n  ix regclass;\n  r record;\nBEGIN\n"
      "  FOREACH ix IN ARRAY ARRAY[" +
      tables +
      "] LOOP\n"
      "    FOR r IN SELECT DISTINCT a.grantee FROM pg_class c, aclexplode(c.relacl) a\n"
      "             WHERE c.oid = ix AND a.grantee <> c.relowner LOOP\n"
      "      EXECUTE format('REVOKE ALL ON %s FROM %s', ix, " +
      who +
      ");\n"
      "    END LOOP;\n"
      "    FOR r IN SELECT a.grantee,\n"
      "               bool_or(a.privilege_type <> 'SELECT') AS writes\n"
      "             FROM pg_class c,\n"
      "                  aclexplode(coalesce(c.relacl, acldefault('r', c.relowner))) a\n"
      "             WHERE c.oid = " +
      quote_literal(qualified(t.schema, t.name)) +
      "::regclass\n"
      "               AND a.privilege_type IN ('SELECT', 'INSERT', 'UPDATE', 'DELETE', "
      "'TRUNCATE')\n"
      "             GROUP BY a.grantee LOOP\n"
      "      EXECUTE format('GRANT %s ON %s TO %s', CASE WHEN r.writes THEN\n"
      "        'SELECT, INSERT, UPDATE, DELETE, TRUNCATE' ELSE 'SELECT' END, ix, " +
      who +
      ");\n"
      "    END LOOP;\n"
      "  END LOOP;\n"
      "END\n";
  const std::string tag = dollar_tag(body);
  return "DO " + tag + body + tag + ";\n";
}

std::string drop_index_trigger_sql(const TableDescriptor& t) {
  const std::string table = qualified(t.schema, t.name);
  const std::string function = qualified(t.schema, index_trigger_function_name(t));
  return "DROP TRIGGER IF EXISTS " + quote_ident(kIndexTriggerName) + " ON " + table +
         ";\nDROP FUNCTION IF EXISTS " + function + "();\nDROP TRIGGER IF EXISTS " +
         quote_ident(std::string(kIndexTriggerName) + "_truncate") + " ON " + table +
         ";\nDROP FUNCTION IF EXISTS " +
         qualified(t.schema, index_trigger_function_name(t) + "_truncate") + "();\n";
}

Result<IndexNote> read_index_note_message(std::string_view message) {
  auto malformed = [&](std::string_view why) {
    std::string shown(message.substr(0, 80));
    return fail(sqlstate::kInternalError, "malformed index note (" + std::string(why) + "): \"" +
                                              shown + (message.size() > 80 ? "…" : "") + "\"");
  };
  std::string_view in = message;
  IndexNote note;
  size_t digits = 0;
  while (digits < in.size() && in[digits] >= '0' && in[digits] <= '9') ++digits;
  if (digits == 0 || digits >= in.size()) return malformed("no table id and sign");
  char sign = in[digits];
  if (sign != '+' && sign != '-') return malformed("no sign after the table id");
  auto id = read_number(in, sign);
  if (!id) return malformed("table id out of range");
  note.table_id = *id;
  note.insert = sign == '+';
  while (!in.empty()) {
    auto name = read_counted(in);
    if (!name) return malformed("bad column name");
    if (find_value(note, *name) != nullptr) return malformed("column " + *name + " twice");
    if (in.empty()) return malformed("no value for column " + *name);
    std::optional<std::string> value;
    if (in.front() == 'N') {
      in.remove_prefix(1);
    } else {
      value = read_counted(in);
      if (!value) return malformed("bad value for column " + *name);
    }
    note.values.emplace_back(std::move(*name), std::move(value));
  }
  return note;
}

Result<std::optional<IndexNote>> read_index_note(std::string_view notice_body) {
  std::optional<std::string_view> code;
  std::optional<std::string_view> message;
  std::string_view in = notice_body;
  while (!in.empty() && in.front() != '\0') {
    char type = in.front();
    in.remove_prefix(1);
    size_t end = in.find('\0');
    if (end == std::string_view::npos) break;  // a truncated field: read what came before
    std::string_view value = in.substr(0, end);
    in.remove_prefix(end + 1);
    if (type == 'C') code = value;
    if (type == 'M') message = value;
  }
  if (code != kIndexNoteSqlstate) return std::optional<IndexNote>();
  if (!message) return fail(sqlstate::kInternalError, "index note without a message");
  auto note = read_index_note_message(*message);
  if (!note) return tl::unexpected(note.error());
  return std::optional<IndexNote>(std::move(*note));
}

Result<std::map<int, std::string>> index_entry_writes(const ClusterView& view,
                                                      const TableDescriptor& t,
                                                      std::span<const IndexNote> notes) {
  std::map<int, std::string> out;
  if (t.indexes.empty()) return out;
  const auto row_key = row_key_columns(t);
  if (row_key.empty()) {
    return fail(sqlstate::kFeatureNotSupported, "index " + t.indexes.front().name + " of table " +
                                                    t.name +
                                                    ": a table without a key cannot have indexes");
  }
  // The notes of each row, by its encoded row key, in order of first appearance.
  std::vector<RowNotes> rows;
  std::map<std::string, size_t> row_of;
  for (const IndexNote& note : notes) {
    if (note.table_id != t.table_id) continue;
    std::string key;
    for (const KeyColumnDef& k : row_key) {
      const std::optional<std::string>* v = find_value(note, k.name);
      if (v == nullptr) {
        return fail(sqlstate::kInternalError, "index " + t.indexes.front().name + " of table " +
                                                  t.name + ": the write did not report column " +
                                                  k.name + " (reinstall the trigger)");
      }
      auto ok = append_text_value(key, k.column,
                                  *v ? std::optional<std::string_view>(**v) : std::nullopt);
      if (!ok) {
        Error err = ok.error();
        err.message = "index " + t.indexes.front().name + " of table " + t.name + ": column " +
                      k.name + ": " + err.message;
        return fail(std::move(err));
      }
    }
    auto [it, added] = row_of.emplace(std::move(key), rows.size());
    if (added) rows.push_back(RowNotes{&note, &note});
    rows[it->second].last = &note;
  }
  // Per shard, per index, in the rows' order: the row key tuples to delete and the entries to
  // insert.
  struct Op {
    bool insert = false;
    std::string tuple;
  };
  std::map<int, std::vector<std::vector<Op>>> ops;
  auto ops_of = [&](int shard, size_t x) -> std::vector<Op>& {
    auto& per_index = ops[shard];
    per_index.resize(t.indexes.size());
    return per_index[x];
  };
  for (size_t x = 0; x < t.indexes.size(); ++x) {
    const IndexDescriptor& index = t.indexes[x];
    const TableDescriptor relation = index_relation(t, index);
    for (const RowNotes& row : rows) {
      std::optional<Entry> before;
      std::optional<Entry> after;
      if (!row.first->insert) {
        auto e = entry_of(view, t, index, relation, *row.first);
        if (!e) return tl::unexpected(e.error());
        before = std::move(*e);
      }
      if (row.last->insert) {
        auto e = entry_of(view, t, index, relation, *row.last);
        if (!e) return tl::unexpected(e.error());
        after = std::move(*e);
      }
      if (before && after && before->shard == after->shard && before->values == after->values) {
        continue;  // the entry stays as it is
      }
      if (before) {
        std::string tuple;
        for (const KeyColumnDef& k : row_key) {
          tuple += (tuple.empty() ? "(" : ", ") + literal(*find_value(*row.first, k.name));
        }
        ops_of(before->shard, x).push_back({false, tuple + ")"});
      }
      if (after) {
        std::string tuple;
        for (const std::optional<std::string>& v : after->values) {
          tuple += (tuple.empty() ? "(" : ", ") + literal(v);
        }
        ops_of(after->shard, x).push_back({true, tuple + ")"});
      }
    }
  }
  std::string key_list;
  for (const KeyColumnDef& k : row_key) {
    key_list += (key_list.empty() ? "" : ", ") + quote_ident(k.name);
  }
  for (auto& [shard, per_index] : ops) {
    std::string& sql = out[shard];
    for (size_t x = 0; x < per_index.size(); ++x) {
      std::vector<Op>& list = per_index[x];
      if (list.empty()) continue;
      const TableDescriptor relation = index_relation(t, t.indexes[x]);
      const std::string table = qualified(t.schema, relation.name);
      std::string columns;
      for (const std::string& c : relation.columns) {
        columns += (columns.empty() ? "" : ", ") + quote_ident(c);
      }
      // A UNIQUE index's entries go in the rows' order, each row's old entry out before its new
      // one comes in, so that a value still held by a row the statement changes later collides
      // as in PostgreSQL (its equal values share a range, so one shard sees both). Other
      // indexes take all their deletes first (an entry's row key is unique).
      if (!t.indexes[x].unique) {
        std::stable_partition(list.begin(), list.end(), [](const Op& o) { return !o.insert; });
      }
      for (size_t i = 0; i < list.size();) {
        size_t j = i;
        std::string tuples;
        while (j < list.size() && list[j].insert == list[i].insert) {
          tuples += (tuples.empty() ? "" : ", ") + list[j].tuple;
          ++j;
        }
        if (list[i].insert) {
          sql += "INSERT INTO " + table + " (" + columns + ") VALUES " + tuples + ";\n";
        } else {
          // The entry may be in a transaction still committing on this shard (committed on
          // the row's shard already): inserting its row key first waits for that
          // transaction, so the DELETE then sees the entry instead of missing it.
          sql += "INSERT INTO " + table + " (" + key_list + ") VALUES " + tuples +
                 " ON CONFLICT (" + key_list + ") DO NOTHING;\nDELETE FROM " + table + " WHERE (" +
                 key_list + ") IN (" + tuples + ");\n";
        }
        i = j;
      }
    }
  }
  return out;
}

}  // namespace pgrange::routing
