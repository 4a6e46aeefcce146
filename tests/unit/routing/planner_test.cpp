// Data-driven tests of pgrange's routing plans: every tests/unit/routing/planner/*.test file
// declares a cluster (shards, tables, range map) and cases (SQL → expected route).
//
// File format (line based; '#' starts a comment line; blank lines separate cases):
//
//   shards s1 s2 s3
//       The shards, in pool order (the order `expect shards:` lists them in).
//   table <name> <id> key (<column> <type> [desc], …) [hash <N>] [columns (<column>, …)]
//   table <name> <id> unsharded [columns (<column>, …)]
//   table <name> <id> key (…) reference [columns (<column>, …)]
//   table <name> <id> key (…) follows <table> [columns (<column>, …)]
//       A table of schema public: its id in the key space, its key columns in key order (type
//       names as PostgreSQL spells them: int8, text, uuid, timestamptz, …) and every column in
//       table order (what an INSERT without a column list fills; default: the key columns).
//       `hash N`: the key is hash-sharded into N buckets (its first key column is the bucket,
//       so a range's values start with it). `reference`: a reference table (every shard
//       holds all of its rows; its one range is a nominal one). `follows t`: co-located with
//       the earlier table t (its ranges should be t's: the file's ranges say whether they are).
//   range <range id> <table> start <shard>
//   range <range id> <table> (<value>, …) <shard>
//       A range of the table starting at its first key (/Table/<id>) or at the key of the
//       values (a prefix of a composite key is allowed): 'text' ('' for a quote), NULL, or a
//       bare token (numbers, …). A range ends where the table's next range starts; the last
//       one at /Table/<id+1>. A split at 100 puts 100 in the range starting at (100). The keys
//       outside the tables (/Min up to the first table, between tables, up to /Max) are ranges
//       9001, 9002, … on the first shard.
//
//   index <table> <index id> <name> (<column> <type> [desc], …) [storing (<column>, …)] [unique]
//   range <range id> <table>@<index> start <shard>
//   range <range id> <table>@<index> (<value>, …) <shard>
//       A global index of the table (public: lookups read it) and the ranges of its entries,
//       keyed /Table/<id>/<index id>/<columns>/<row key>: `start` at the index's first key, or
//       at the key of the values (of its columns, then the row key's).
//
//   view <name> [plain] reads (<relation>, …) [calls (<function>, …)]
//   function <name> reads (<relation>, …) [writes (<relation>, …)] [calls (<function>, …)]
//       A view or SQL function pgrange knows the body of (schema public; a relation may be
//       written schema.name): what it reads, writes and calls. `plain`: a plain SELECT of its one
//       relation's rows.
//
//   The cluster lines come before the first case. Each case then is:
//
//   sql: <statement, or several separated by ';', on one line>
//   params: <value>, …
//       Optional: the Bind parameters $1, $2, … as text-format values (same value syntax as
//       in `range`); without it, $n are unknown (as when a statement is prepared).
//   expect shards: <shard> …           the route's shards, or "none"; then ", rows
//                                      concatenated" or ", counts summed" for a fan-out
//   expect spans:                      per statement and table: spans and ranges
//     table t: span […/1/100, …/1/200/PrefixEnd) → ranges 2 (s2), 3 (s3)
//   expect reasons:                    per statement and table: why
//     t: id >= 100 → span
//   expect refusal: <SQLSTATE> <message>     exactly when the statement is refused
//   expect merge:                      a merged SELECT: describe_merge's lines
//     shard query: SELECT … ORDER BY 1 LIMIT 15
//     streaming k-way merge on column 1 (one row per shard held)
//   expect tree:                       a SELECT of several tables over several shards: the tree
//     Gather: …                        the proxy runs (GatherPlan::describe), in place of the
//                                      router's refusal; `expect refusal:` is then the gather
//                                      planner's own, if it refuses
//   expect index:                      a SELECT read through a global index over several
//     pgrange plan: index join …       shards: its steps (describe_index_read, as EXPLAIN)
//   expect plan:                       optional: what EXPLAIN through pgrange shows first
//     pgrange plan: …                  (describe_plan's lines, then the merge's)
//
// A statement that is one single-table SELECT (not SELECT INTO) routed to several shards, which
// the router either concatenates or refuses only for what a merge does (ORDER BY, LIMIT,
// OFFSET, aggregates, GROUP BY, HAVING, DISTINCT), is planned as the proxy plans it
// (mergeable_select, plan_analysis): sql::plan_merge of the statement's text with the table's
// key columns and columns. When it gives a merge, the statement is not refused and `expect
// merge:` holds describe_merge's lines (the first is the SQL each shard runs); when it refuses,
// `expect refusal:` is its refusal (in place of the router's), as the client would get it.
// `expect shards:`, `spans:` and `reasons:` stay the router's.
//
// Every section the case's route produces must be present and equal (a missing `expect
// refusal:` for a refused statement fails, as does a stale one). The expectations are
// generated, not written by hand: run the test with PGRANGE_REWRITE=1 (or UPDATE=1) in the
// environment to rewrite every file's expect sections from the actual routes (comments,
// cluster lines, sql: and params: lines are kept); then review the diff. Without it the test
// only compares.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "routing/keys/key_space.hpp"
#include "routing/meta/cluster_view.hpp"
#include "routing/plan/gather_plan.hpp"
#include "routing/plan/index_read.hpp"
#include "routing/plan/plan_description.hpp"
#include "routing/plan/router.hpp"
#include "routing/plan/spread_plan.hpp"
#include "sql/merge_query.hpp"
#include "sql/statement_info.hpp"

namespace pgrange::routing {
namespace {

const std::filesystem::path kDir =
    std::filesystem::path(PGRANGE_SOURCE_DIR) / "tests/unit/routing/planner";

bool rewriting() {
  for (const char* name : {"PGRANGE_REWRITE", "UPDATE"}) {
    const char* v = std::getenv(name);
    if (v != nullptr && *v != '\0' && std::string_view(v) != "0") return true;
  }
  return false;
}

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

/// Splits "a, 'b, c', NULL" at commas outside quotes; quoted items lose their quotes ('' is a
/// quote); NULL (unquoted) is nullopt.
std::vector<std::optional<std::string>> parse_values(std::string_view text) {
  std::vector<std::optional<std::string>> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    if (i >= text.size()) break;
    if (text[i] == '\'') {
      std::string v;
      ++i;
      while (i < text.size()) {
        if (text[i] == '\'') {
          if (i + 1 < text.size() && text[i + 1] == '\'') {
            v += '\'';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        v += text[i++];
      }
      out.emplace_back(std::move(v));
      while (i < text.size() && text[i] != ',') ++i;
    } else {
      size_t comma = text.find(',', i);
      if (comma == std::string_view::npos) comma = text.size();
      std::string v = trim(text.substr(i, comma - i));
      if (v == "NULL") {
        out.emplace_back(std::nullopt);
      } else {
        out.emplace_back(std::move(v));
      }
      i = comma;
    }
    if (i < text.size() && text[i] == ',') ++i;
  }
  return out;
}

/// The text between the first '(' after `from` and its matching ')', outside quotes.
std::optional<std::pair<std::string, size_t>> parenthesised(const std::string& s, size_t from) {
  size_t open = s.find('(', from);
  if (open == std::string::npos) return std::nullopt;
  bool quoted = false;
  for (size_t i = open + 1; i < s.size(); ++i) {
    if (s[i] == '\'') quoted = !quoted;
    if (s[i] == ')' && !quoted) return std::pair{s.substr(open + 1, i - open - 1), i + 1};
  }
  return std::nullopt;
}

std::vector<std::string> words(std::string_view s) {
  std::istringstream in{std::string(s)};
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

struct Case {
  int line = 0;
  std::string sql;
  std::optional<std::string> params;
  /// Section name ("shards", "spans", "reasons", "refusal", "merge", "plan") → its lines.
  std::map<std::string, std::vector<std::string>> expected;
};

/// One file: its lines, kept for rewriting, with the cases found in them.
struct TestFile {
  std::vector<std::string> shards;
  MetadataSnapshot snapshot;
  /// `size <table> <rows> <bytes>` lines: the shards' estimates (none: no sizes known).
  std::optional<TableSizes> sizes;
  std::vector<Case> cases;
  /// The file as segments: a verbatim line, or (when case_index >= 0) a case.
  struct Segment {
    std::string line;
    int case_index = -1;
  };
  std::vector<Segment> segments;
};

struct RangeLine {
  uint64_t id;
  std::string table;
  std::string start;
  std::string shard;
  int line;
};

/// Parses a file; adds a gtest failure (and returns nullopt) on a syntax error.
std::optional<TestFile> parse_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) {
    ADD_FAILURE() << "cannot read " << path;
    return std::nullopt;
  }
  TestFile file;
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::vector<RangeLine> range_lines;
  auto fail = [&](size_t i, const std::string& why) {
    ADD_FAILURE() << path.filename().string() << ":" << i + 1 << ": " << why << "\n  " << lines[i];
    return std::nullopt;
  };
  Case* current = nullptr;
  std::string section;  // the expect section continuation lines belong to
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    std::string t = trim(l);
    if (t.empty() || t[0] == '#') {
      current = nullptr;
      if (t.empty()) section.clear();
      file.segments.push_back({l});
      continue;
    }
    if (t.starts_with("sql:")) {
      file.cases.push_back({static_cast<int>(i + 1), trim(t.substr(4)), std::nullopt, {}});
      current = &file.cases.back();
      section.clear();
      file.segments.push_back({"", static_cast<int>(file.cases.size() - 1)});
      continue;
    }
    if (current != nullptr) {
      if (t.starts_with("params:")) {
        current->params = trim(t.substr(7));
      } else if (t.starts_with("expect ")) {
        size_t colon = t.find(':');
        if (colon == std::string::npos) return fail(i, "expect line without ':'");
        section = trim(t.substr(7, colon - 7));
        static const std::set<std::string> known{"shards", "spans", "reasons", "refusal",
                                                 "merge",  "tree",  "index",   "plan"};
        if (!known.contains(section)) return fail(i, "unknown section " + section);
        if (current->expected.contains(section)) return fail(i, "section given twice");
        auto& body = current->expected[section];
        std::string rest = trim(t.substr(colon + 1));
        if (!rest.empty()) body.push_back(rest);
      } else if (l.starts_with("  ") && !section.empty()) {
        // Two spaces indent a section's line; more are part of it (describe_plan indents).
        std::string body = l.substr(2);
        while (!body.empty() && (body.back() == ' ' || body.back() == '\r')) body.pop_back();
        current->expected[section].push_back(body);
      } else {
        return fail(i, "unexpected line in a case");
      }
      continue;
    }
    if (!file.cases.empty()) return fail(i, "cluster line after the first case");
    file.segments.push_back({l});
    std::vector<std::string> w = words(t);
    if (w[0] == "shards") {
      file.shards.assign(w.begin() + 1, w.end());
      for (const auto& s : file.shards) file.snapshot.shards.push_back({s, "dsn-" + s});
    } else if (w[0] == "table" && w.size() >= 4) {
      TableDescriptor d;
      d.name = w[1];
      d.table_id = std::stoull(w[2]);
      size_t after = 0;
      if (w[3] == "unsharded") {
        d.key_source = KeySource::kUnsharded;
        after = t.find("unsharded") + 9;
      } else if (w[3].starts_with("key")) {
        d.key_source = KeySource::kPrimaryKey;
        auto key = parenthesised(t, t.find(" key"));
        if (!key) return fail(i, "key (…) expected");
        for (const auto& col : parse_values(key->first)) {
          std::vector<std::string> cw = words(col.value_or(""));
          if (cw.size() < 2) return fail(i, "key column: <name> <type> [desc]");
          auto type = key_type_from_name(cw[1]);
          if (!type) return fail(i, type.error().message);
          KeyColumn kc{*type};
          kc.descending = cw.size() > 2 && cw[2] == "desc";
          d.key.push_back({cw[0], kc});
        }
        after = key->second;
        if (size_t h = t.find(" hash ", after); h != std::string::npos) {
          size_t end = 0;
          uint32_t buckets = static_cast<uint32_t>(std::stoul(t.substr(h + 6), &end));
          make_hash_sharded(d, buckets);
          after = h + 6 + end;
        }
      } else {
        return fail(i, "table <name> <id> key (…) | unsharded");
      }
      if (size_t r = t.find(" reference", after);
          r != std::string::npos && r < t.find("columns", after)) {
        d.reference = true;
        after = r + 10;
      }
      if (size_t f = t.find(" follows ", after);
          f != std::string::npos && f < t.find("columns", after)) {
        std::vector<std::string> fw = words(t.substr(f + 9));
        for (const TableDescriptor& root : file.snapshot.tables) {
          if (!fw.empty() && root.name == fw[0]) d.colocated_with = root.table_id;
        }
        if (d.colocated_with == 0) return fail(i, "follows <an earlier table>");
        after = f + 9 + fw[0].size();
      }
      if (t.find("columns", after) != std::string::npos) {
        auto cols = parenthesised(t, t.find("columns", after));
        if (!cols) return fail(i, "columns (…) expected");
        for (const auto& c : parse_values(cols->first)) d.columns.push_back(c.value_or(""));
      } else {
        for (const auto& k : row_key_columns(d)) d.columns.push_back(k.name);
      }
      file.snapshot.tables.push_back(d);
    } else if (w[0] == "index" && w.size() >= 5) {
      // index <table> <id> <name> (<column> <type> [desc], …) [storing (…)] [unique]
      auto table = std::find_if(file.snapshot.tables.begin(), file.snapshot.tables.end(),
                                [&](const TableDescriptor& d) { return d.name == w[1]; });
      if (table == file.snapshot.tables.end()) return fail(i, "index of an unknown table");
      IndexDescriptor index;
      index.index_id = static_cast<uint32_t>(std::stoul(w[2]));
      index.name = w[3];
      index.state = IndexDescriptor::State::kPublic;
      auto cols = parenthesised(t, t.find(" " + w[3]) + w[3].size() + 1);
      if (!cols) return fail(i, "index columns (…) expected");
      for (const auto& col : parse_values(cols->first)) {
        std::vector<std::string> cw = words(col.value_or(""));
        if (cw.size() < 2) return fail(i, "index column: <name> <type> [desc]");
        auto type = key_type_from_name(cw[1]);
        if (!type) return fail(i, type.error().message);
        KeyColumn kc{*type};
        kc.descending = cw.size() > 2 && cw[2] == "desc";
        index.columns.push_back({cw[0], kc});
      }
      if (size_t at = t.find(" storing ", cols->second); at != std::string::npos) {
        auto storing = parenthesised(t, at);
        if (!storing) return fail(i, "storing (…) expected");
        for (const auto& c : parse_values(storing->first)) index.storing.push_back(c.value_or(""));
      }
      index.unique = std::find(w.begin(), w.end(), "unique") != w.end();
      table->indexes.push_back(std::move(index));
    } else if (w[0] == "range" && w.size() >= 5) {
      std::string start = w[3] == "start" ? "start" : "";
      if (start.empty()) {
        auto v = parenthesised(t, t.find(w[2]) + w[2].size());
        if (!v) return fail(i, "start or (values) expected");
        start = "(" + v->first + ")";
      }
      range_lines.push_back({std::stoull(w[1]), w[2], start, w.back(), static_cast<int>(i)});
    } else if (w[0] == "size" && w.size() == 4) {
      if (!file.sizes) file.sizes.emplace();
      file.sizes->add("public", w[1], std::stod(w[2]), std::stoll(w[3]));
    } else if ((w[0] == "view" || w[0] == "function") && w.size() >= 2) {
      ReaderDescriptor r;
      r.kind = w[0] == "view" ? ReaderDescriptor::Kind::kView : ReaderDescriptor::Kind::kFunction;
      r.name = w[1];
      r.plain = std::find(w.begin(), w.end(), "plain") != w.end();
      auto names = [&](std::string_view word) {
        std::vector<QualifiedName> out;
        size_t at = t.find(std::string(" ") + std::string(word) + " (");
        if (at == std::string::npos) return out;
        auto list = parenthesised(t, at);
        for (const auto& n : parse_values(list ? list->first : "")) {
          std::string name = n.value_or("");
          size_t dot = name.find('.');
          out.push_back(dot == std::string::npos
                            ? QualifiedName{"", name}
                            : QualifiedName{name.substr(0, dot), name.substr(dot + 1)});
        }
        return out;
      };
      r.reads = names("reads");
      r.writes = names("writes");
      r.calls = names("calls");
      file.snapshot.readers.push_back(std::move(r));
    } else {
      return fail(i, "unknown cluster line");
    }
  }
  if (file.shards.empty()) return fail(0, "no shards line");
  // The range map: each table's ranges tile [/Table/<id>, /Table/<id+1>); the rest of the
  // key space is filled with ranges 9001, … on the first shard.
  std::vector<RangeDescriptor> ranges;
  for (const RangeLine& r : range_lines) {
    // <table>, or <table>@<index> for a range of a global index's entries.
    size_t at = r.table.find('@');
    std::string table_name = r.table.substr(0, at);
    auto t = std::find_if(file.snapshot.tables.begin(), file.snapshot.tables.end(),
                          [&](const TableDescriptor& d) { return d.name == table_name; });
    if (t == file.snapshot.tables.end()) return fail(static_cast<size_t>(r.line), "no such table");
    TableDescriptor keyed = *t;
    if (at != std::string::npos) {
      auto index = std::find_if(t->indexes.begin(), t->indexes.end(),
                                [&](const auto& i) { return i.name == r.table.substr(at + 1); });
      if (index == t->indexes.end()) return fail(static_cast<size_t>(r.line), "no such index");
      keyed = index_relation(*t, *index);
    }
    RangeDescriptor d;
    d.range_id = r.id;
    d.shard = r.shard;
    d.generation = 1;
    if (r.start == "start") {
      d.start_key = at == std::string::npos ? table_prefix(t->table_id)
                                            : index_prefix(t->table_id, keyed.index_id);
    } else {
      auto values = parse_values(std::string_view(r.start).substr(1, r.start.size() - 2));
      std::vector<KeyColumn> cols;
      for (size_t c = 0; c < values.size() && c < keyed.key.size(); ++c) {
        cols.push_back(keyed.key[c].column);
      }
      std::vector<std::optional<std::string_view>> views;
      for (const auto& v : values)
        views.emplace_back(v ? std::optional<std::string_view>(*v) : std::nullopt);
      auto key = encode_key_text(t->table_id, keyed.index_id, cols, views);
      if (!key) return fail(static_cast<size_t>(r.line), key.error().message);
      d.start_key = *key;
    }
    d.end_key = table_prefix(t->table_id + 1);  // fixed below for all but the last
    ranges.push_back(d);
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const auto& a, const auto& b) { return a.start_key < b.start_key; });
  std::vector<RangeDescriptor> tiled;
  uint64_t filler = 9001;
  std::string at(kMinKey);
  for (size_t i = 0; i < ranges.size(); ++i) {
    RangeDescriptor r = ranges[i];
    if (r.start_key > at) {
      tiled.push_back({filler++, at, r.start_key, file.shards.front(), 1, {}});
    }
    if (i + 1 < ranges.size() && ranges[i + 1].start_key < r.end_key) {
      r.end_key = ranges[i + 1].start_key;
    }
    at = r.end_key;
    tiled.push_back(r);
  }
  tiled.push_back({filler, at, std::string(kMaxKey), file.shards.front(), 1, {}});
  file.snapshot.ranges = std::move(tiled);
  file.snapshot.version = 1;
  return file;
}

/// What a case's route says, section by section, as the file writes it.
std::map<std::string, std::vector<std::string>> actual_sections(const ClusterView& view,
                                                                const TableSizes* sizes,
                                                                const Case& c, bool with_plan,
                                                                std::string& error) {
  std::map<std::string, std::vector<std::string>> out;
  auto infos = sql::analyze_statements(c.sql);
  if (!infos) {
    error = "does not parse: " + infos.error().message;
    return out;
  }
  std::vector<std::optional<std::string>> values;
  BindParams params;
  if (c.params) {
    values = parse_values(*c.params);
    for (const auto& v : values) {
      params.values.emplace_back(v ? std::optional<std::string_view>(*v) : std::nullopt);
    }
  }
  const BindParams* p = c.params ? &params : nullptr;
  Route route = explain_statements(view, *infos, p);

  // explain_statements must route exactly as route_statements does.
  Route plain = route_statements(view, *infos, p);
  if (plain.shards != route.shards || plain.uses != route.uses ||
      plain.fanout_select != route.fanout_select || plain.sum_counts != route.sum_counts ||
      plain.writes != route.writes || plain.refusal.has_value() != route.refusal.has_value() ||
      !plain.explanation.empty()) {
    error = "explain_statements routes differently from route_statements";
  }
  // The explanation's ranges are the ranges the route uses.
  std::set<uint64_t> used, explained;
  for (const auto& u : route.uses) used.insert(u.range_id);
  for (const auto& t : route.explanation) {
    for (const auto& r : t.ranges) explained.insert(r.range_id);
  }
  // A key-moving UPDATE also writes every other range of its table (rows may move there); a
  // read through a global index also reads the index's ranges.
  bool covered = route.moves_keys || route.index_lookup
                     ? std::includes(used.begin(), used.end(), explained.begin(), explained.end())
                     : used == explained;
  if (!covered && !route.refusal) error = "explained ranges differ from the uses";

  std::string shards;
  for (int s : route.shards) shards += (shards.empty() ? "" : " ") + view.shard_name(s);
  if (shards.empty()) shards = "none";
  if (route.sum_counts) {
    shards += ", counts summed";
  } else if (route.fanout_select) {
    shards += ", rows concatenated";
  }
  out["shards"] = {shards};
  auto& spans = out["spans"];
  auto& reasons = out["reasons"];
  for (const TableRoute& t : route.explanation) {
    std::string head =
        infos->size() > 1 ? "statement " + std::to_string(t.statement + 1) + ", " : "";
    spans.push_back(head + describe_table_route(t));
    for (const RouteReason& r : t.reasons) reasons.push_back(head + t.table + ": " + r.text());
  }
  if (spans.empty()) {
    out.erase("spans");
    out.erase("reasons");
  }
  // How the proxy answers it over several shards (plan_spread, as the session plans it and
  // EXPLAIN describes it): a merge, in place of the router's refusal of ORDER BY, LIMIT,
  // aggregates, …; or the tree it runs (a gather of several tables, or of one table whose
  // statement no merge computes); or the planner's own refusal.
  std::vector<std::string> merge_lines;
  auto spread = plan_spread(
      view, *infos, c.sql, p, sizes, view.shards().size() > 1,
      [](std::string_view sql, const TableDescriptor& t) {
        std::vector<std::string> keys;
        for (const auto& k : row_key_columns(t)) keys.push_back(k.name);
        return std::make_shared<const Result<sql::MergeQuery>>(
            sql::plan_merge(sql, keys, t.columns));
      },
      route);
  if (!spread) {
    route.refusal = spread.error();
  } else if (spread->merge) {
    merge_lines = sql::describe_merge(**spread->merge);
    out["merge"] = merge_lines;
  } else if (spread->gather) {
    out["tree"] = spread->gather->describe();
  }
  // A read through a global index over several shards: its steps (as EXPLAIN gives them).
  if (route.index_lookup && !route.refusal && route.shards.size() > 1) {
    auto read = plan_index_read(view, c.sql, *route.index_lookup);
    if (read) {
      out["index"] = describe_index_read(view, *read, *route.index_lookup);
    } else {
      out["index"] = {"error: " + read.error().message};
    }
  }
  if (route.refusal) out["refusal"] = {route.refusal->sqlstate + " " + route.refusal->message};
  if (with_plan) out["plan"] = describe_route(view, route, infos->size(), merge_lines);
  return out;
}

/// A line as the file keeps it: without trailing blanks.
std::string_view rtrimmed(std::string_view l) {
  while (!l.empty() && (l.back() == ' ' || l.back() == '\r')) l.remove_suffix(1);
  return l;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "  " + std::string(rtrimmed(l)) + "\n";
  return out;
}

void write_case(std::ostream& out, const Case& c,
                const std::map<std::string, std::vector<std::string>>& sections) {
  out << "sql: " << c.sql << "\n";
  if (c.params) out << "params: " << *c.params << "\n";
  for (const char* name :
       {"shards", "refusal", "spans", "reasons", "merge", "tree", "index", "plan"}) {
    auto it = sections.find(name);
    if (it == sections.end()) continue;
    const auto& lines = it->second;
    bool inline_form = std::string_view(name) == "shards" || std::string_view(name) == "refusal";
    if (inline_form && lines.size() == 1) {
      out << "expect " << name << ": " << rtrimmed(lines.front()) << "\n";
      continue;
    }
    out << "expect " << name << ":\n";
    for (const auto& l : lines) out << "  " << rtrimmed(l) << "\n";
  }
}

std::vector<std::filesystem::path> test_files() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(kDir)) {
    if (e.path().extension() == ".test") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

class PlannerTest : public ::testing::TestWithParam<std::filesystem::path> {};

TEST_P(PlannerTest, RoutesAsExpected) {
  const std::filesystem::path& path = GetParam();
  auto file = parse_file(path);
  ASSERT_TRUE(file);
  ASSERT_FALSE(file->cases.empty()) << path;
  auto view = ClusterView::build(file->snapshot, file->shards);
  ASSERT_TRUE(view) << view.error().message;

  bool rewrite = rewriting();
  std::vector<std::map<std::string, std::vector<std::string>>> actual;
  for (const Case& c : file->cases) {
    std::string where = path.filename().string() + ":" + std::to_string(c.line) + ": " + c.sql;
    std::string error;
    auto sections = actual_sections(**view, file->sizes ? &*file->sizes : nullptr, c,
                                    c.expected.contains("plan"), error);
    EXPECT_TRUE(error.empty()) << where << "\n  " << error;
    if (!rewrite) {
      std::set<std::string> names;
      for (const auto& [name, lines] : sections) names.insert(name);
      for (const auto& [name, lines] : c.expected) names.insert(name);
      for (const std::string& name : names) {
        auto e = c.expected.find(name);
        auto a = sections.find(name);
        std::string expected = e == c.expected.end() ? "(no section)\n" : joined(e->second);
        std::string got = a == sections.end() ? "(no section)\n" : joined(a->second);
        EXPECT_EQ(expected, got) << where << "\n  expect " << name << ": differs"
                                 << " (PGRANGE_REWRITE=1 rewrites the expectations)";
      }
    }
    actual.push_back(std::move(sections));
  }
  if (rewrite) {
    std::ostringstream out;
    for (const auto& seg : file->segments) {
      if (seg.case_index < 0) {
        out << seg.line << "\n";
      } else {
        write_case(out, file->cases[static_cast<size_t>(seg.case_index)],
                   actual[static_cast<size_t>(seg.case_index)]);
      }
    }
    std::ofstream(path) << out.str();
  }
}

INSTANTIATE_TEST_SUITE_P(Files, PlannerTest, ::testing::ValuesIn(test_files()),
                         [](const ::testing::TestParamInfo<std::filesystem::path>& info) {
                           std::string name = info.param.stem().string();
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

TEST(PlannerFiles, ThereAreEnoughCases) {
  size_t cases = 0, merged = 0;
  auto files = test_files();
  for (const auto& path : files) {
    auto file = parse_file(path);
    ASSERT_TRUE(file);
    cases += file->cases.size();
    for (const Case& c : file->cases) merged += c.expected.contains("merge") ? 1 : 0;
  }
  EXPECT_GE(files.size(), 4u);
  EXPECT_GE(cases, 80u);
  EXPECT_GE(merged, 40u);
}

}  // namespace
}  // namespace pgrange::routing
