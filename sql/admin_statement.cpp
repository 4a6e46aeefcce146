#include "sql/admin_statement.hpp"

#include <pg_query.h>
#include <pg_query/pg_query.pb-c.h>

#include <cctype>
#include <charconv>
#include <memory>

#include "sql/parse_node.hpp"

namespace pgrange::sql {
namespace {

/// A token from libpg_query's scanner, with its text.
struct Tok {
  std::string_view text;
  PgQuery__Token kind;
  bool keyword;
  int start;
  int end;
};

tl::unexpected<Error> syntax(std::string msg) {
  return fail(sqlstate::kSyntaxError, std::move(msg));
}

/// Scans `sql` with PostgreSQL's own lexer (pg_query_scan), so quoting and comments follow
/// PostgreSQL's rules exactly.
Result<std::vector<Tok>> scan(std::string_view sql, const std::string& owned) {
  PgQueryScanResult r = pg_query_scan(owned.c_str());
  std::unique_ptr<PgQueryScanResult, void (*)(PgQueryScanResult*)> guard(
      new PgQueryScanResult(r), [](PgQueryScanResult* p) {
        pg_query_free_scan_result(*p);
        delete p;
      });
  if (r.error) return syntax(std::string(r.error->message));
  PgQuery__ScanResult* sr = pg_query__scan_result__unpack(
      nullptr, r.pbuf.len, reinterpret_cast<const uint8_t*>(r.pbuf.data));
  if (sr == nullptr) return fail(sqlstate::kInternalError, "cannot decode the scanner's output");
  std::vector<Tok> out;
  for (size_t i = 0; i < sr->n_tokens; ++i) {
    const PgQuery__ScanToken* t = sr->tokens[i];
    Tok tok;
    tok.start = t->start;
    tok.end = t->end;
    tok.text = sql.substr(static_cast<size_t>(t->start), static_cast<size_t>(t->end - t->start));
    tok.kind = t->token;
    tok.keyword = t->keyword_kind != PG_QUERY__KEYWORD_KIND__NO_KEYWORD;
    if (t->token == PG_QUERY__TOKEN__SQL_COMMENT || t->token == PG_QUERY__TOKEN__C_COMMENT) {
      continue;
    }
    out.push_back(tok);
  }
  pg_query__scan_result__free_unpacked(sr, nullptr);
  return out;
}

std::string fold(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// Reads tokens front to back.
class Cursor {
 public:
  Cursor(const std::vector<Tok>& toks, std::string_view sql) : toks_(toks), sql_(sql) {}

  bool done() const { return pos_ >= toks_.size() || (pos_ + 1 == toks_.size() && is(";")); }
  /// True if the current token is the keyword or punctuation `w` (case-insensitive).
  bool is(std::string_view w) const {
    if (pos_ >= toks_.size()) return false;
    const Tok& t = toks_[pos_];
    if (t.text.size() != w.size()) return false;
    if (t.text.front() == '"') return false;
    for (size_t i = 0; i < w.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(t.text[i])) != w[i]) return false;
    }
    return true;
  }
  bool accept(std::string_view w) {
    if (!is(w)) return false;
    ++pos_;
    return true;
  }
  Result<void> expect(std::string_view w) {
    if (accept(w)) return {};
    return syntax("syntax error at or near \"" + current() + "\": expected " + std::string(w));
  }
  std::string current() const {
    return pos_ < toks_.size() ? std::string(toks_[pos_].text) : std::string("end of input");
  }
  /// An identifier: folded to lower case, or the exact text of a quoted identifier.
  Result<std::string> name(std::string_view what) {
    if (pos_ >= toks_.size()) return syntax("expected " + std::string(what) + " at end of input");
    const Tok& t = toks_[pos_];
    if (t.kind != PG_QUERY__TOKEN__IDENT && !t.keyword) {
      return syntax("syntax error at or near \"" + std::string(t.text) + "\": expected " +
                    std::string(what));
    }
    ++pos_;
    if (t.text.front() == '"') {
      std::string out;
      for (size_t i = 1; i + 1 < t.text.size(); ++i) {
        out.push_back(t.text[i]);
        if (t.text[i] == '"') ++i;  // "" inside a quoted identifier
      }
      return out;
    }
    return fold(t.text);
  }
  /// A possibly schema-qualified name: "a" or "a.b".
  Result<std::string> qualified_name(std::string_view what) {
    auto first = name(what);
    if (!first) return first;
    if (accept(".")) {
      auto second = name(what);
      if (!second) return second;
      return *first + "." + *second;
    }
    return first;
  }
  size_t pos() const { return pos_; }
  void set_pos(size_t p) { pos_ = p; }
  const Tok& tok(size_t i) const { return toks_[i]; }
  size_t size() const { return toks_.size(); }
  /// The source text from token `from` up to (not including) token `to`.
  std::string_view text(size_t from, size_t to) const {
    size_t b = static_cast<size_t>(toks_[from].start);
    size_t e = to < toks_.size() ? static_cast<size_t>(toks_[to].start) : sql_.size();
    if (to == toks_.size() || (to + 1 == toks_.size() && toks_[to].text == ";")) {
      e = static_cast<size_t>(toks_[to - 1].end);
    }
    return sql_.substr(b, e - b);
  }

 private:
  const std::vector<Tok>& toks_;
  std::string_view sql_;
  size_t pos_ = 0;
};

/// Extracts one constant from a VALUES item: a literal, a negative number, NULL, or a cast of
/// one of these.
Result<AdminValue> constant(const PgQuery__Node* n) {
  AdminValue v;
  if (n->node_case == PG_QUERY__NODE__NODE_TYPE_CAST) {
    const PgQuery__TypeCast* tc = n->type_cast;
    if (tc->type_name && tc->type_name->n_names > 0) {
      const PgQuery__Node* last = tc->type_name->names[tc->type_name->n_names - 1];
      if (last->node_case == PG_QUERY__NODE__NODE_STRING) v.cast_type = fold(last->string->sval);
    }
    auto inner = constant(tc->arg);
    if (!inner) return inner;
    inner->cast_type = v.cast_type;
    return inner;
  }
  if (n->node_case != PG_QUERY__NODE__NODE_A_CONST) {
    return fail(sqlstate::kSyntaxError,
                "SPLIT AT and FOR ROW take constant values only (literals, NULL, casts)");
  }
  const PgQuery__AConst* c = n->a_const;
  if (c->isnull) {
    v.is_null = true;
    return v;
  }
  auto text = constant_text(c);
  if (!text) return fail(sqlstate::kSyntaxError, "unsupported constant");
  v.text = std::move(*text);
  return v;
}

/// Parses "(…), (…)" with PostgreSQL's grammar (as the VALUES list of a SELECT).
Result<std::vector<std::vector<AdminValue>>> parse_tuples(std::string_view tuples) {
  std::string sql = "VALUES " + std::string(tuples);
  PgQueryProtobufParseResult r = pg_query_parse_protobuf(sql.c_str());
  std::unique_ptr<PgQueryProtobufParseResult, void (*)(PgQueryProtobufParseResult*)> guard(
      new PgQueryProtobufParseResult(r), [](PgQueryProtobufParseResult* p) {
        pg_query_free_protobuf_parse_result(*p);
        delete p;
      });
  if (r.error) return syntax(std::string(r.error->message) + " in VALUES " + std::string(tuples));
  PgQuery__ParseResult* pr = pg_query__parse_result__unpack(
      nullptr, r.parse_tree.len, reinterpret_cast<const uint8_t*>(r.parse_tree.data));
  if (pr == nullptr) return fail(sqlstate::kInternalError, "cannot decode the parse tree");
  std::unique_ptr<PgQuery__ParseResult, void (*)(PgQuery__ParseResult*)> pr_guard(
      pr, [](PgQuery__ParseResult* p) { pg_query__parse_result__free_unpacked(p, nullptr); });
  if (pr->n_stmts != 1 || pr->stmts[0]->stmt->node_case != PG_QUERY__NODE__NODE_SELECT_STMT) {
    return syntax("expected a list of value tuples, got \"" + std::string(tuples) + "\"");
  }
  const PgQuery__SelectStmt* sel = pr->stmts[0]->stmt->select_stmt;
  std::vector<std::vector<AdminValue>> rows;
  for (size_t i = 0; i < sel->n_values_lists; ++i) {
    const PgQuery__Node* list = sel->values_lists[i];
    if (list->node_case != PG_QUERY__NODE__NODE_LIST) return syntax("malformed VALUES list");
    std::vector<AdminValue> row;
    for (size_t j = 0; j < list->list->n_items; ++j) {
      auto v = constant(list->list->items[j]);
      if (!v) return fail(v.error());
      row.push_back(std::move(*v));
    }
    rows.push_back(std::move(row));
  }
  if (rows.empty()) return syntax("expected at least one value tuple");
  return rows;
}

/// Finds the end of a parenthesised tuple list: the first top-level token that is `stop`.
size_t find_top_level(const Cursor& c, size_t from, std::string_view stop_a,
                      std::string_view stop_b) {
  int depth = 0;
  for (size_t i = from; i < c.size(); ++i) {
    std::string_view t = c.tok(i).text;
    if (t == "(")
      ++depth;
    else if (t == ")")
      --depth;
    else if (depth == 0 && t == ";")
      return i;
    else if (depth == 0 && fold(t) == stop_a && i + 1 < c.size() &&
             fold(c.tok(i + 1).text) == stop_b) {
      return i;
    }
  }
  return c.size();
}

Result<AdminStatement> parse_alter_table(Cursor& c, bool index) {
  AdminStatement st{};
  auto table = c.qualified_name(index ? "table@index" : "table name");
  if (!table) return fail(table.error());
  st.table = *table;
  st.scope = index ? RangeScope::kIndex : RangeScope::kTable;
  if (index) {
    if (!c.accept("@")) return syntax("expected table@index after ALTER INDEX");
    auto idx = c.name("index name");
    if (!idx) return fail(idx.error());
    st.index = *idx;
  }
  if (c.accept("split")) {
    st.kind = AdminKind::kSplitAt;
  } else if (c.accept("unsplit")) {
    if (c.accept("all")) {
      st.kind = AdminKind::kUnsplitAll;
      if (!c.done()) return syntax("syntax error at or near \"" + c.current() + "\"");
      return st;
    }
    st.kind = AdminKind::kUnsplitAt;
  } else if (!index && c.accept("scatter")) {
    st.kind = AdminKind::kScatter;
    if (!c.done()) return syntax("syntax error at or near \"" + c.current() + "\"");
    return st;
  } else if (!index && c.accept("colocate")) {
    st.kind = AdminKind::kColocate;
    if (auto ok = c.expect("with"); !ok) return fail(ok.error());
    auto root = c.qualified_name("table name");
    if (!root) return fail(root.error());
    st.colocate_with = *root;
    if (!c.done()) return syntax("syntax error at or near \"" + c.current() + "\"");
    return st;
  } else {
    return syntax("syntax error at or near \"" + c.current() +
                  "\": expected SPLIT AT, UNSPLIT AT, UNSPLIT ALL, SCATTER or COLOCATE WITH");
  }
  if (auto ok = c.expect("at"); !ok) return fail(ok.error());
  if (auto ok = c.expect("values"); !ok) return fail(ok.error());
  size_t from = c.pos();
  size_t to = find_top_level(c, from, "with", "expiration");
  if (from >= to) return syntax("expected value tuples after VALUES");
  auto rows = parse_tuples(c.text(from, to));
  if (!rows) return fail(rows.error());
  st.rows = std::move(*rows);
  c.set_pos(to);
  if (c.accept("with")) {
    if (st.kind != AdminKind::kSplitAt) return syntax("WITH EXPIRATION belongs to SPLIT AT");
    if (auto ok = c.expect("expiration"); !ok) return fail(ok.error());
    if (c.done()) return syntax("expected an expiration after WITH EXPIRATION");
    size_t e = c.pos();
    size_t end = c.size();
    if (c.tok(end - 1).text == ";") --end;
    st.expiration = std::string(c.text(e, end));
    c.set_pos(end);
  }
  if (!c.done()) return syntax("syntax error at or near \"" + c.current() + "\"");
  return st;
}

/// The job number of SHOW JOB n / CANCEL JOB n.
Result<int64_t> job_number(Cursor& c) {
  if (c.pos() >= c.size() || c.tok(c.pos()).kind != PG_QUERY__TOKEN__ICONST) {
    return syntax("expected a job number");
  }
  int64_t id = 0;
  std::string_view text = c.tok(c.pos()).text;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return syntax("expected a job number");
  }
  c.set_pos(c.pos() + 1);
  return id;
}

Result<AdminStatement> parse_show(Cursor& c) {
  AdminStatement st{};
  if (c.accept("shards")) {
    st.kind = AdminKind::kShowShards;
  } else if (c.accept("jobs")) {
    st.kind = AdminKind::kShowJobs;
  } else if (c.accept("job")) {
    st.kind = AdminKind::kShowJobs;
    auto id = job_number(c);
    if (!id) return fail(id.error());
    st.job_id = *id;
  } else if (c.accept("hot")) {
    if (auto ok = c.expect("ranges"); !ok) return fail(ok.error());
    st.kind = AdminKind::kShowHotRanges;
  } else if (c.accept("range")) {
    st.kind = AdminKind::kShowRangeForRow;
    st.scope = RangeScope::kTable;
    if (auto ok = c.expect("from"); !ok) return fail(ok.error());
    bool index = false;
    if (c.accept("index")) {
      index = true;
      st.scope = RangeScope::kIndex;
    } else if (auto ok = c.expect("table"); !ok) {
      return fail(ok.error());
    }
    auto t = c.qualified_name("table name");
    if (!t) return fail(t.error());
    st.table = *t;
    if (index) {
      if (!c.accept("@")) return syntax("expected table@index");
      auto i = c.name("index name");
      if (!i) return fail(i.error());
      st.index = *i;
    }
    if (auto ok = c.expect("for"); !ok) return fail(ok.error());
    if (auto ok = c.expect("row"); !ok) return fail(ok.error());
    size_t from = c.pos();
    size_t to = find_top_level(c, from, "\x01", "\x01");
    if (from >= to) return syntax("expected (values) after FOR ROW");
    auto rows = parse_tuples(c.text(from, to));
    if (!rows) return fail(rows.error());
    if (rows->size() != 1) return syntax("FOR ROW takes exactly one tuple");
    st.rows = std::move(*rows);
    c.set_pos(to);
  } else if (c.accept("ranges")) {
    st.kind = AdminKind::kShowRanges;
    if (c.accept("from")) {
      if (c.accept("table")) {
        st.scope = RangeScope::kTable;
        auto t = c.qualified_name("table name");
        if (!t) return fail(t.error());
        st.table = *t;
      } else if (c.accept("index")) {
        st.scope = RangeScope::kIndex;
        auto t = c.qualified_name("table@index");
        if (!t) return fail(t.error());
        st.table = *t;
        if (!c.accept("@")) return syntax("expected table@index after FROM INDEX");
        auto i = c.name("index name");
        if (!i) return fail(i.error());
        st.index = *i;
      } else if (c.accept("database")) {
        st.scope = RangeScope::kDatabase;
        auto d = c.name("database name");
        if (!d) return fail(d.error());
        st.database = *d;
      } else {
        return syntax("syntax error at or near \"" + c.current() +
                      "\": expected TABLE, INDEX or DATABASE");
      }
    }
    if (c.accept("with")) {
      do {
        if (c.accept("details"))
          st.with_details = true;
        else if (c.accept("keys"))
          st.with_keys = true;
        else if (c.accept("indexes"))
          st.with_indexes = true;
        else {
          return syntax("syntax error at or near \"" + c.current() +
                        "\": expected DETAILS, KEYS or INDEXES");
        }
      } while (c.accept(","));
    }
  } else {
    return syntax("not an admin statement");  // caller turns this into "not ours"
  }
  if (!c.done()) return syntax("syntax error at or near \"" + c.current() + "\"");
  return st;
}

}  // namespace

Result<std::optional<AdminStatement>> parse_admin_statement(std::string_view sql) {
  // Cheap pre-check: every admin statement starts with ALTER or SHOW.
  size_t i = 0;
  while (i < sql.size() && std::isspace(static_cast<unsigned char>(sql[i]))) ++i;
  std::string head = fold(sql.substr(i, 5));
  if (head.rfind("alter", 0) != 0 && head.rfind("show", 0) != 0 && head != "impor" &&
      head != "cance" && head != "reloa" && head != "pause" && head != "resum") {
    return std::nullopt;
  }

  std::string owned(sql);
  auto toks = scan(sql, owned);
  if (!toks) return std::nullopt;  // PostgreSQL will report the syntax error itself
  Cursor c(*toks, sql);
  if (c.size() > 0 && c.tok(0).text.front() != '"') {
    // The console's statements; RELOAD, PAUSE and RESUME are no PostgreSQL statements, and
    // PostgreSQL has no setting named pools, clients, servers, stats, config or version.
    static const std::pair<std::string_view, AdminKind> kConsole[] = {
        {"pools", AdminKind::kShowPools},     {"clients", AdminKind::kShowClients},
        {"servers", AdminKind::kShowServers}, {"stats", AdminKind::kShowStats},
        {"config", AdminKind::kShowConfig},   {"version", AdminKind::kShowVersion}};
    std::string first = fold(c.tok(0).text);
    if (first == "show" && c.size() > 1 && c.tok(1).text.front() != '"') {
      std::string what = fold(c.tok(1).text);
      for (const auto& [word, kind] : kConsole) {
        if (what != word) continue;
        c.set_pos(2);
        if (!c.done()) return syntax("syntax error at or near \"" + c.current() + "\"");
        AdminStatement st{};
        st.kind = kind;
        return std::optional<AdminStatement>(std::move(st));
      }
    }
    if (first == "reload" || first == "pause" || first == "resume") {
      AdminStatement st{};
      st.kind = first == "reload"  ? AdminKind::kReload
                : first == "pause" ? AdminKind::kPause
                                   : AdminKind::kResume;
      c.set_pos(1);
      if (st.kind != AdminKind::kReload && !c.done()) {
        if (c.tok(c.pos()).kind == PG_QUERY__TOKEN__SCONST) {
          auto rows = parse_tuples("(" + std::string(c.tok(c.pos()).text) + ")");
          if (!rows) return fail(rows.error());
          st.shard = (*rows)[0][0].text;
          c.set_pos(c.pos() + 1);
        } else {
          auto name = c.name("a shard name");
          if (!name) return fail(name.error());
          st.shard = *name;
        }
      }
      if (!c.done()) return syntax("syntax error at or near \"" + c.current() + "\"");
      return std::optional<AdminStatement>(std::move(st));
    }
  }
  if (c.accept("show")) {
    // SHOW RANGES / RANGE / SHARDS / HOT RANGES / JOBS; anything else is PostgreSQL's SHOW.
    if (!(c.is("ranges") || c.is("range") || c.is("shards") || c.is("jobs") || c.is("hot") ||
          c.is("job"))) {
      return std::nullopt;
    }
    // "SHOW job" alone could be a GUC named job: only SHOW JOB <number> is ours.
    if (c.is("job") && !(c.size() > 2 && c.tok(2).kind == PG_QUERY__TOKEN__ICONST)) {
      return std::nullopt;
    }
    if (c.size() > 1 && c.tok(1).text.front() == '"') return std::nullopt;
    if (c.is("hot") && !(c.size() > 2 && fold(c.tok(2).text) == "ranges")) return std::nullopt;
    // "SHOW range" without more could be a GUC named range: only claim the known shapes.
    if (c.is("range") && !(c.size() > 2 && fold(c.tok(2).text) == "from")) return std::nullopt;
    if ((c.is("shards") || c.is("jobs") || c.is("ranges")) && c.size() > 2 &&
        !(fold(c.tok(2).text) == "from" || fold(c.tok(2).text) == "with" || c.tok(2).text == ";")) {
      return std::nullopt;
    }
    auto st = parse_show(c);
    if (!st) return fail(st.error());
    return std::optional<AdminStatement>(std::move(*st));
  }
  if (c.accept("cancel")) {
    // CANCEL JOB n; nothing else starts with CANCEL in PostgreSQL.
    if (!c.is("job")) return std::nullopt;
    c.set_pos(c.pos() + 1);
    AdminStatement st{};
    st.kind = AdminKind::kCancelJob;
    auto id = job_number(c);
    if (!id) return fail(id.error());
    st.job_id = *id;
    if (!c.done()) return syntax("syntax error at or near \"" + c.current() + "\"");
    return std::optional<AdminStatement>(std::move(st));
  }
  if (c.accept("import")) {
    // IMPORT TABLE t [FROM SHARD 's']; PostgreSQL's own IMPORT FOREIGN SCHEMA is not ours.
    if (!c.is("table")) return std::nullopt;
    AdminStatement st{};
    st.kind = AdminKind::kImportTable;
    st.scope = RangeScope::kTable;
    if (auto ok = c.expect("table"); !ok) return fail(ok.error());
    auto t = c.qualified_name("table name");
    if (!t) return fail(t.error());
    st.table = *t;
    if (c.accept("from")) {
      if (auto ok = c.expect("shard"); !ok) return fail(ok.error());
      if (c.pos() >= c.size() || c.tok(c.pos()).kind != PG_QUERY__TOKEN__SCONST) {
        return syntax("expected a quoted shard name after FROM SHARD");
      }
      auto rows = parse_tuples("(" + std::string(c.tok(c.pos()).text) + ")");
      if (!rows) return fail(rows.error());
      st.shard = (*rows)[0][0].text;
      c.set_pos(c.pos() + 1);
    }
    if (!c.done()) return syntax("syntax error at or near \"" + c.current() + "\"");
    return std::optional<AdminStatement>(std::move(st));
  }
  if (!c.accept("alter")) return std::nullopt;
  if (c.accept("shard")) {
    AdminStatement st{};
    st.kind = AdminKind::kDrainShard;
    if (c.pos() < c.size() && c.tok(c.pos()).kind == PG_QUERY__TOKEN__SCONST) {
      auto rows = parse_tuples("(" + std::string(c.tok(c.pos()).text) + ")");
      if (!rows) return fail(rows.error());
      st.shard = (*rows)[0][0].text;
      c.set_pos(c.pos() + 1);
    } else {
      auto name = c.name("a shard name after ALTER SHARD");
      if (!name) return fail(name.error());
      st.shard = *name;
    }
    if (c.accept("undrain")) {
      st.undrain = true;
    } else if (auto ok = c.expect("drain"); !ok) {
      return fail(ok.error());
    }
    if (!c.done()) return syntax("syntax error at or near \"" + c.current() + "\"");
    return std::optional<AdminStatement>(std::move(st));
  }
  if (c.accept("range")) {
    AdminStatement st{};
    st.kind = AdminKind::kRelocate;
    if (c.pos() >= c.size() || c.tok(c.pos()).kind != PG_QUERY__TOKEN__ICONST) {
      return syntax("expected a range id after ALTER RANGE");
    }
    st.range_id = std::stoll(std::string(c.tok(c.pos()).text));
    c.set_pos(c.pos() + 1);
    if (auto ok = c.expect("relocate"); !ok) return fail(ok.error());
    if (auto ok = c.expect("to"); !ok) return fail(ok.error());
    if (c.pos() >= c.size() || c.tok(c.pos()).kind != PG_QUERY__TOKEN__SCONST) {
      return syntax("expected a quoted shard name after RELOCATE TO");
    }
    auto rows = parse_tuples("(" + std::string(c.tok(c.pos()).text) + ")");
    if (!rows) return fail(rows.error());
    st.shard = (*rows)[0][0].text;
    c.set_pos(c.pos() + 1);
    if (!c.done()) return syntax("syntax error at or near \"" + c.current() + "\"");
    return std::optional<AdminStatement>(std::move(st));
  }
  bool index = false;
  if (c.accept("index")) {
    index = true;
  } else if (!c.accept("table")) {
    return std::nullopt;
  }
  // Only claim ALTER TABLE/INDEX whose action is one of ours; the rest is PostgreSQL's DDL.
  // The action must follow the name directly: t, schema.t, or t@index.
  size_t j = c.pos() + 1;
  if (j + 1 < c.size() && (c.tok(j).text == "." || c.tok(j).text == "@")) j += 2;
  if (j + 1 < c.size() && c.tok(j).text == "@") j += 2;
  bool ours = false;
  if (j < c.size() && c.tok(j).text.front() != '"') {
    std::string w = fold(c.tok(j).text);
    std::string next = j + 1 < c.size() ? fold(c.tok(j + 1).text) : "";
    ours = (w == "split" && next == "at") || (w == "unsplit" && (next == "at" || next == "all")) ||
           (w == "scatter" && (next.empty() || next == ";")) ||
           (!index && w == "colocate" && next == "with");
  }
  if (!ours) return std::nullopt;
  auto st = parse_alter_table(c, index);
  if (!st) return fail(st.error());
  return std::optional<AdminStatement>(std::move(*st));
}

bool changes_ranges(AdminKind kind) {
  switch (kind) {
    case AdminKind::kShowRanges:
    case AdminKind::kShowRangeForRow:
    case AdminKind::kShowShards:
    case AdminKind::kShowHotRanges:
    case AdminKind::kShowJobs:
      return false;
    default:
      return !console_statement(kind);
  }
}

bool console_statement(AdminKind kind) {
  switch (kind) {
    case AdminKind::kShowPools:
    case AdminKind::kShowClients:
    case AdminKind::kShowServers:
    case AdminKind::kShowStats:
    case AdminKind::kShowConfig:
    case AdminKind::kShowVersion:
    case AdminKind::kReload:
    case AdminKind::kPause:
    case AdminKind::kResume:
      return true;
    default:
      return false;
  }
}

bool console_reads_only(AdminKind kind) {
  return console_statement(kind) && kind != AdminKind::kReload && kind != AdminKind::kPause &&
         kind != AdminKind::kResume;
}

std::string_view admin_statement_name(AdminKind kind) {
  switch (kind) {
    case AdminKind::kSplitAt:
      return "ALTER TABLE … SPLIT AT";
    case AdminKind::kUnsplitAt:
    case AdminKind::kUnsplitAll:
      return "ALTER TABLE … UNSPLIT";
    case AdminKind::kScatter:
      return "ALTER TABLE … SCATTER";
    case AdminKind::kRelocate:
      return "ALTER RANGE … RELOCATE";
    case AdminKind::kShowRanges:
      return "SHOW RANGES";
    case AdminKind::kShowRangeForRow:
      return "SHOW RANGE … FOR ROW";
    case AdminKind::kShowShards:
      return "SHOW SHARDS";
    case AdminKind::kShowHotRanges:
      return "SHOW HOT RANGES";
    case AdminKind::kShowJobs:
      return "SHOW JOBS";
    case AdminKind::kCancelJob:
      return "CANCEL JOB";
    case AdminKind::kImportTable:
      return "IMPORT TABLE";
    case AdminKind::kColocate:
      return "ALTER TABLE … COLOCATE WITH";
    case AdminKind::kDrainShard:
      return "ALTER SHARD … DRAIN";
    case AdminKind::kShowPools:
      return "SHOW POOLS";
    case AdminKind::kShowClients:
      return "SHOW CLIENTS";
    case AdminKind::kShowServers:
      return "SHOW SERVERS";
    case AdminKind::kShowStats:
      return "SHOW STATS";
    case AdminKind::kShowConfig:
      return "SHOW CONFIG";
    case AdminKind::kShowVersion:
      return "SHOW VERSION";
    case AdminKind::kReload:
      return "RELOAD";
    case AdminKind::kPause:
      return "PAUSE";
    case AdminKind::kResume:
      return "RESUME";
  }
  return "an admin statement";
}

}  // namespace pgrange::sql
