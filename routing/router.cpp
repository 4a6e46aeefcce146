#include "routing/router.hpp"

#include <algorithm>

#include "routing/key_codec.hpp"
#include "routing/key_space.hpp"

namespace pgrange::routing {
namespace {

bool is_write(const sql::StatementInfo& s) {
  using K = sql::StatementKind;
  return s.kind == K::kInsert || s.kind == K::kUpdate || s.kind == K::kDelete ||
         (s.kind == K::kCopy && s.copy_from);
}

std::string_view kind_name(const sql::StatementInfo& s) {
  using K = sql::StatementKind;
  switch (s.kind) {
    case K::kInsert:
      return "INSERT";
    case K::kUpdate:
      return "UPDATE";
    case K::kDelete:
      return "DELETE";
    case K::kCopy:
      return "COPY";
    case K::kSelect:
      return "SELECT";
    default:
      return "statement";
  }
}

/// A key value's text (inner nullopt = NULL), or nullopt when it is not known: a parameter
/// without a Bind value.
std::optional<std::optional<std::string>> value_text(const sql::ValueRef& v, KeyType type,
                                                     const BindParams* params) {
  switch (v.kind) {
    case sql::ValueRef::Kind::kNull:
      return std::optional<std::string>();
    case sql::ValueRef::Kind::kConst:
      return std::optional<std::string>(v.text);
    case sql::ValueRef::Kind::kParam:
      if (params != nullptr) {
        if (auto text = params->text(v.param, type)) return std::optional<std::string>(*text);
      }
      return std::nullopt;
  }
  return std::nullopt;
}

/// The point keys a statement pins its target table to, or nullopt for "the whole table".
std::optional<std::vector<std::string>> point_keys(const TableDescriptor& t,
                                                   const sql::StatementInfo& s,
                                                   const BindParams* params) {
  if (t.key.empty() || !s.single_table) return std::nullopt;
  using K = sql::StatementKind;
  std::vector<std::string> keys;
  if (s.kind == K::kSelect || s.kind == K::kUpdate || s.kind == K::kDelete) {
    std::vector<std::optional<std::string>> values;
    for (const KeyColumnDef& col : t.key) {
      const sql::ValueRef* found = nullptr;
      for (const auto& [name, value] : s.equalities) {
        if (name == col.name) {
          found = &value;
          break;
        }
      }
      if (found == nullptr || found->kind == sql::ValueRef::Kind::kNull) return std::nullopt;
      auto text = value_text(*found, col.column.type, params);
      if (!text || !*text) return std::nullopt;
      values.push_back(std::move(*text));
    }
    auto key = point_key(t, values);
    if (!key) return std::nullopt;  // the shard will report the bad value itself
    keys.push_back(std::move(*key));
    return keys;
  }
  // Without a column list the VALUES fill the table's columns in order.
  const std::vector<std::string>& columns = s.insert_columns.empty() ? t.columns : s.insert_columns;
  if (s.kind == K::kInsert && s.insert_values && !columns.empty()) {
    std::vector<size_t> positions;
    for (const KeyColumnDef& col : t.key) {
      auto it = std::find(columns.begin(), columns.end(), col.name);
      if (it == columns.end()) return std::nullopt;  // a default fills the key
      positions.push_back(static_cast<size_t>(it - columns.begin()));
    }
    for (const auto& row : s.insert_rows) {
      std::vector<std::optional<std::string>> values;
      for (size_t i = 0; i < positions.size(); ++i) {
        size_t p = positions[i];
        if (p >= row.size() || !row[p]) return std::nullopt;
        auto text = value_text(*row[p], t.key[i].column.type, params);
        if (!text) return std::nullopt;
        values.push_back(std::move(*text));
      }
      auto key = point_key(t, values);
      if (!key) return std::nullopt;
      keys.push_back(std::move(*key));
    }
    return keys;
  }
  return std::nullopt;
}

}  // namespace

Result<std::string> point_key(const TableDescriptor& table,
                              std::span<const std::optional<std::string>> values) {
  std::vector<KeyColumn> columns;
  std::vector<std::optional<std::string_view>> views;
  for (const KeyColumnDef& k : table.key) columns.push_back(k.column);
  for (const auto& v : values) {
    views.push_back(v ? std::optional<std::string_view>(*v) : std::nullopt);
  }
  return encode_key_text(table.table_id, 1, columns, views);
}

std::optional<std::string> BindParams::text(int n, KeyType type) const {
  if (n < 1 || static_cast<size_t>(n) > values.size()) return std::nullopt;
  const auto& v = values[static_cast<size_t>(n - 1)];
  if (!v) return std::nullopt;
  int16_t format = formats.empty()                            ? 0
                   : formats.size() == 1                      ? formats[0]
                   : static_cast<size_t>(n) <= formats.size() ? formats[static_cast<size_t>(n - 1)]
                                                              : 0;
  if (format == 0) return std::string(*v);
  auto value = parse_binary_value(type, *v);
  if (!value) return std::nullopt;
  return format_text_value(type, *value);
}

Route route_statements(const ClusterView& view, std::span<const sql::StatementInfo> statements,
                       const BindParams* params) {
  Route route;
  const RangeMapSnapshot& ranges = view.ranges();
  const sql::StatementInfo* multi_shard = nullptr;
  for (const sql::StatementInfo& s : statements) {
    bool write = is_write(s);
    route.writes = route.writes || write;
    std::vector<int> mine;
    auto use = [&](const RangeDescriptor& r, bool w, bool scan) {
      int shard = view.shard_index(r.shard);
      if (shard < 0) {
        route.refusal = Error::make(sqlstate::kConnectionFailure,
                                    "range " + std::to_string(r.range_id) + " is on shard \"" +
                                        r.shard + "\", which this pgrange has not configured");
        return;
      }
      mine.push_back(shard);
      route.uses.push_back(
          RangeActivity::Use{r.range_id, r.generation, shard, w, scan, r.start_key, r.end_key});
    };
    for (const sql::TableRef& ref : s.tables) {
      const TableDescriptor* t = view.find_table(ref.schema, ref.name);
      if (t == nullptr) continue;
      bool is_target = ref.schema == s.target.schema && ref.name == s.target.name;
      bool w = write && is_target;
      std::optional<std::vector<std::string>> keys;
      if (is_target || s.kind == sql::StatementKind::kSelect) keys = point_keys(*t, s, params);
      if (keys) {
        for (const std::string& k : *keys) {
          if (const RangeDescriptor* r = ranges.lookup(k)) use(*r, w, false);
        }
      } else {
        for (size_t i : view.table_ranges(t->table_id)) use(ranges.at(i), w, true);
      }
    }
    std::sort(mine.begin(), mine.end());
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
    if (mine.size() > 1 && multi_shard == nullptr) multi_shard = &s;
    route.shards.insert(route.shards.end(), mine.begin(), mine.end());
  }
  std::sort(route.shards.begin(), route.shards.end());
  route.shards.erase(std::unique(route.shards.begin(), route.shards.end()), route.shards.end());
  std::sort(route.uses.begin(), route.uses.end(), [](const auto& a, const auto& b) {
    return std::tie(a.range_id, a.generation, a.shard, a.write, a.scan) <
           std::tie(b.range_id, b.generation, b.shard, b.write, b.scan);
  });
  route.uses.erase(std::unique(route.uses.begin(), route.uses.end()), route.uses.end());
  if (route.refusal || route.shards.size() <= 1) return route;

  auto names = [&] {
    std::string out;
    for (int i : route.shards) {
      if (!out.empty()) out += ", ";
      out += "\"" + view.shard_name(i) + "\"";
    }
    return out;
  };
  if (statements.size() > 1) {
    route.refusal = Error::make(sqlstate::kFeatureNotSupported,
                                "a query string whose statements run on several shards (" +
                                    names() + ") is not supported yet")
                        .with_hint("send the statements one at a time");
    return route;
  }
  const sql::StatementInfo& s = multi_shard ? *multi_shard : statements.front();
  if (s.kind == sql::StatementKind::kCopy && !s.copy_from) {
    route.refusal = Error::make(sqlstate::kFeatureNotSupported,
                                "COPY … TO of a table spread over several shards (" + names() +
                                    ") is not supported yet")
                        .with_hint("a plain SELECT over the table works");
    return route;
  }
  if (s.kind != sql::StatementKind::kSelect) {
    route.refusal = Error::make(sqlstate::kFeatureNotSupported,
                                std::string(kind_name(s)) + " touching several shards (" + names() +
                                    ") is not supported yet: it could not be applied atomically")
                        .with_hint(s.kind == sql::StatementKind::kInsert
                                       ? "insert the rows of each shard with a statement of its "
                                         "own (SHOW RANGE FROM TABLE … FOR ROW tells where a row "
                                         "goes)"
                                       : "give every key column with = so that the statement "
                                         "runs on one shard");
    return route;
  }
  if (!s.fanout_blocker.empty() || s.select_into) {
    route.refusal =
        Error::make(sqlstate::kFeatureNotSupported,
                    (s.select_into ? std::string("SELECT INTO") : s.fanout_blocker) +
                        " over tables spread across several shards (" + names() +
                        ") is not supported yet")
            .with_hint("give every key column with = so that the statement runs on one shard");
    return route;
  }
  route.fanout_select = true;
  return route;
}

}  // namespace pgrange::routing
