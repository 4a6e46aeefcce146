#include "sql/index_statement.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <memory>
#include <utility>

#include "sql/parse_node.hpp"
#include "sql/sql_tokens.hpp"

namespace pgrange::sql {
namespace {

constexpr uint32_t kDefaultBuckets = 16;  // CockroachDB's default bucket_count
constexpr int64_t kMinBuckets = 2;
constexpr int64_t kMaxBuckets = 2048;
constexpr size_t kMaxNameBytes = 63;  // NAMEDATALEN - 1

using Token = SqlToken;

/// The tokens of `sql` (which must outlive them); nullopt when it cannot be scanned.
std::optional<std::vector<Token>> scan(const std::string& sql) {
  auto tokens = scan_tokens(sql);
  if (!tokens) return std::nullopt;
  return std::move(*tokens);
}

bool same_word(std::string_view text, std::string_view w) {
  if (text.size() != w.size()) return false;
  for (size_t k = 0; k < w.size(); ++k) {
    if (std::tolower(static_cast<unsigned char>(text[k])) != w[k]) return false;
  }
  return true;
}

/// True when toks[i] is the unquoted word (or punctuation) `w`, case-insensitively.
bool is(const std::vector<Token>& toks, size_t i, std::string_view w) {
  return i < toks.size() && same_word(toks[i].text, w);
}

/// True when toks[i] is an identifier PostgreSQL folds to `w` (lower case): unquoted in any
/// case, or quoted exactly.
bool names(const std::vector<Token>& toks, size_t i, std::string_view w) {
  if (is(toks, i, w)) return true;
  return i < toks.size() && toks[i].text.size() == w.size() + 2 && toks[i].text.front() == '"' &&
         toks[i].text.back() == '"' && toks[i].text.substr(1, w.size()) == w;
}

tl::unexpected<Error> syntax_at(const std::vector<Token>& toks, size_t i, std::string_view what) {
  std::string near = i < toks.size() ? std::string(toks[i].text) : std::string("end of input");
  return fail(sqlstate::kSyntaxError,
              "syntax error at or near \"" + near + "\": expected " + std::string(what));
}

/// The index of the ')' closing the '(' at toks[open], or nullopt when it is not closed.
std::optional<size_t> closing(const std::vector<Token>& toks, size_t open) {
  int depth = 0;
  for (size_t i = open; i < toks.size(); ++i) {
    if (is(toks, i, "(")) ++depth;
    if (is(toks, i, ")") && --depth == 0) return i;
  }
  return std::nullopt;
}

tl::unexpected<Error> bad_bucket_count(std::string_view got) {
  return fail(sqlstate::kInvalidParameterValue,
              "hash sharded index bucket count must be in range [" + std::to_string(kMinBuckets) +
                  ", " + std::to_string(kMaxBuckets) + "], got " + std::string(got));
}

/// A bucket count written as `text` (an integer constant's digits, possibly negative).
Result<uint32_t> bucket_count_of(std::string_view text, bool integer) {
  int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (!integer || ec != std::errc() || end != text.data() + text.size() || n < kMinBuckets ||
      n > kMaxBuckets) {
    return bad_bucket_count(text);
  }
  return static_cast<uint32_t>(n);
}

/// One change to the statement text: [begin, end) becomes `text`.
struct Edit {
  size_t begin;
  size_t end;
  std::string text;
  /// Only in shard_sql; the text libpg_query parses keeps these (the storage parameters are
  /// read from its parse tree).
  bool shard_only = false;
};

/// A character that may continue a word token (identifier, keyword, number, quoted name).
bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '"' || c == '$' ||
         (static_cast<unsigned char>(c) & 0x80) != 0;
}

/// `sql` with the edits applied. For `parse_text` (without the shard-only ones) every offset is
/// kept, a replacement padded with spaces to the length it replaces, so that the parser's error
/// positions are those of the original.
std::string apply(std::string_view sql, std::vector<Edit> edits, bool parse_text) {
  std::sort(edits.begin(), edits.end(),
            [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
  std::string out;
  size_t copied = 0;
  for (const Edit& e : edits) {
    if (parse_text && e.shard_only) continue;
    out.append(sql.substr(copied, e.begin - copied)).append(e.text);
    if (!parse_text && e.text.empty() && !out.empty() && e.end < sql.size() &&
        word_char(out.back()) && word_char(sql[e.end])) {
      out += ' ';  // the words on either side stay apart
    }
    if (parse_text) out.append(e.end - e.begin - std::min(e.text.size(), e.end - e.begin), ' ');
    copied = e.end;
  }
  return out.append(sql.substr(copied));
}

/// Where removing the tokens from toks[first] on should begin: before the whitespace that
/// separates them from the preceding token, unless a comment is in between (taking a line
/// comment's newline would comment out what follows).
size_t removal_start(std::string_view sql, const std::vector<Token>& toks, size_t first) {
  size_t p = toks[first].start;
  while (p > 0 && std::isspace(static_cast<unsigned char>(sql[p - 1]))) --p;
  return first > 0 && p == toks[first - 1].end ? p : toks[first].start;
}

/// What the clauses after the column list say, and the edits that make them PostgreSQL.
struct Clauses {
  bool hashed = false;
  std::optional<uint32_t> buckets;  ///< CockroachDB's old `USING HASH WITH BUCKET_COUNT = N`
  bool storing = false;
  std::vector<Edit> edits;
};

/// Reads the unparenthesised `BUCKET_COUNT = N` at toks[i]; advances i past it.
Result<uint32_t> old_bucket_count(const std::vector<Token>& toks, size_t& i) {
  if (!names(toks, i, "bucket_count")) return syntax_at(toks, i, "( or BUCKET_COUNT after WITH");
  ++i;
  if (!is(toks, i, "=")) return syntax_at(toks, i, "=");
  ++i;
  bool negative = is(toks, i, "-");
  if (negative) ++i;
  if (i >= toks.size() || is(toks, i, ";")) return syntax_at(toks, i, "a bucket count");
  std::string text = (negative ? "-" : "") + std::string(toks[i].text);
  bool integer = toks[i].kind == PG_QUERY__TOKEN__ICONST;
  ++i;
  return bucket_count_of(text, integer);
}

/// Reads the clauses right after the index's column list at toks[i]: CockroachDB's USING HASH
/// and STORING (…), and PostgreSQL's INCLUDE (…), in any order.
Result<Clauses> read_clauses(std::string_view sql, const std::vector<Token>& toks, size_t i) {
  Clauses c;
  bool include = false;
  while (i < toks.size()) {
    if (is(toks, i, "using") && is(toks, i + 1, "hash")) {
      if (c.hashed) return fail(sqlstate::kSyntaxError, "USING HASH is given twice");
      c.hashed = true;
      size_t j = i + 2;
      if (is(toks, j, "with") && !is(toks, j + 1, "(")) {
        ++j;
        auto n = old_bucket_count(toks, j);
        if (!n) return tl::unexpected(n.error());
        c.buckets = *n;
      }
      c.edits.push_back({removal_start(sql, toks, i), toks[j - 1].end, "", false});
      i = j;
      continue;
    }
    bool storing = is(toks, i, "storing");
    if (storing || (is(toks, i, "include") && is(toks, i + 1, "("))) {
      if (!is(toks, i + 1, "(")) return syntax_at(toks, i + 1, "( after STORING");
      if ((storing && c.storing) || (!storing && include)) {
        return fail(sqlstate::kSyntaxError,
                    std::string(storing ? "STORING" : "INCLUDE") + " is given twice");
      }
      (storing ? c.storing : include) = true;
      if (c.storing && include) {
        return fail(sqlstate::kSyntaxError,
                    "STORING and INCLUDE cannot both be given: they name the same columns");
      }
      auto close = closing(toks, i + 1);
      if (!close) return syntax_at(toks, toks.size(), ")");
      if (*close == i + 2) return syntax_at(toks, *close, "a column name");
      if (storing) {
        // In the case STORING was written in.
        bool lower = std::islower(static_cast<unsigned char>(toks[i].text.front())) != 0;
        c.edits.push_back({toks[i].start, toks[i].end, lower ? "include" : "INCLUDE", false});
      }
      i = *close + 1;
      continue;
    }
    break;
  }
  return c;
}

/// Removes the pgrange-only storage parameters (local, bucket_count) from the WITH (…) list at
/// toks[with] (which precedes '('), for the shards' text.
Result<std::optional<Edit>> strip_options(std::string_view sql, const std::vector<Token>& toks,
                                          size_t with) {
  auto close = closing(toks, with + 1);
  if (!close) return syntax_at(toks, toks.size(), ")");
  std::vector<std::pair<size_t, size_t>> kept;  // token ranges [first, last] of the parameters
  bool removed = false;
  size_t first = with + 2;
  int depth = 0;
  for (size_t i = with + 2; i <= *close; ++i) {
    if (i < *close && (depth > 0 || !is(toks, i, ","))) {
      if (is(toks, i, "(")) ++depth;
      if (is(toks, i, ")")) --depth;
      continue;
    }
    if (i == first) return syntax_at(toks, i, "a storage parameter");
    bool ours = (names(toks, first, "local") || names(toks, first, "bucket_count")) &&
                !is(toks, first + 1, ".");
    if (ours) {
      removed = true;
    } else {
      kept.emplace_back(first, i - 1);
    }
    first = i + 1;
  }
  if (!removed) return std::nullopt;
  if (kept.empty()) return Edit{removal_start(sql, toks, with), toks[*close].end, "", true};
  std::string text = std::string(toks[with].text) + " (";
  for (size_t k = 0; k < kept.size(); ++k) {
    if (k > 0) text += ", ";
    size_t b = toks[kept[k].first].start;
    text.append(sql.substr(b, toks[kept[k].second].end - b));
  }
  return Edit{toks[with].start, toks[*close].end, text + ")", true};
}

/// The value of a storage parameter as text (nullopt for none or one pgrange does not read).
std::optional<std::string> option_text(const PgQuery__Node* arg) {
  if (arg == nullptr) return std::nullopt;
  switch (arg->node_case) {
    case PG_QUERY__NODE__NODE_INTEGER:
      return std::to_string(arg->integer->ival);
    case PG_QUERY__NODE__NODE_FLOAT:
      return std::string(arg->float_->fval);
    case PG_QUERY__NODE__NODE_STRING:
      return std::string(arg->string->sval);
    case PG_QUERY__NODE__NODE_BOOLEAN:
      return std::string(arg->boolean->boolval ? "true" : "false");
    case PG_QUERY__NODE__NODE_TYPE_NAME: {
      // An unreserved keyword or a name (`local = off`) reads as a type name.
      const PgQuery__TypeName* t = arg->type_name;
      if (t->n_names != 1 || t->n_typmods != 0 || t->n_array_bounds != 0) return std::nullopt;
      const char* s = string_of(t->names[0]);
      return s == nullptr ? std::nullopt : std::optional<std::string>(s);
    }
    default:
      return std::nullopt;
  }
}

Result<bool> local_value(const PgQuery__DefElem* d) {
  if (d->arg == nullptr) return true;
  auto text = option_text(d->arg);
  std::string v = text ? *text : std::string();
  for (char& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (v == "true" || v == "on" || v == "1" || v == "yes") return true;
  if (v == "false" || v == "off" || v == "0" || v == "no") return false;
  return fail(
      Error::make(sqlstate::kInvalidParameterValue, "invalid value for parameter \"local\": \"" +
                                                        (text ? *text : std::string("?")) + "\"")
          .with_hint("local takes a boolean: WITH (local = true) makes an ordinary "
                     "index on every shard"));
}

Result<uint32_t> bucket_value(const PgQuery__DefElem* d) {
  if (d->arg == nullptr) return bad_bucket_count("no value");
  auto text = option_text(d->arg);
  if (!text) return bad_bucket_count("a value that is not a number");
  bool integer = d->arg->node_case == PG_QUERY__NODE__NODE_INTEGER ||
                 d->arg->node_case == PG_QUERY__NODE__NODE_STRING;
  return bucket_count_of(*text, integer);
}

/// What keeps the IndexStmt from being a global index ("" when nothing), and the storage
/// parameters pgrange reads.
Result<std::string> read_tree(const PgQuery__IndexStmt* s, IndexSpec& spec,
                              std::optional<uint32_t>& buckets) {
  std::vector<std::string> blockers;
  auto block = [&](std::string b) { blockers.push_back(std::move(b)); };
  if (s->relation != nullptr && !s->relation->inh) block("ONLY");
  std::string method = s->access_method;
  if (!method.empty() && method != "btree") block("USING " + method);
  for (size_t i = 0; i < s->n_index_params; ++i) {
    if (s->index_params[i]->node_case != PG_QUERY__NODE__NODE_INDEX_ELEM) continue;
    const PgQuery__IndexElem* e = s->index_params[i]->index_elem;
    if (e->name != nullptr && e->name[0] != '\0') {
      spec.columns.emplace_back(e->name);
    } else {
      block("expression");
    }
    if (e->n_collation > 0) block("COLLATE");
    if (e->n_opclass > 0) block("operator class");
    if (e->ordering == PG_QUERY__SORT_BY_DIR__SORTBY_DESC) block("DESC");
    if (e->nulls_ordering == PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_FIRST) block("NULLS FIRST");
    if (e->nulls_ordering == PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_LAST) block("NULLS LAST");
  }
  for (size_t i = 0; i < s->n_index_including_params; ++i) {
    if (s->index_including_params[i]->node_case != PG_QUERY__NODE__NODE_INDEX_ELEM) continue;
    const PgQuery__IndexElem* e = s->index_including_params[i]->index_elem;
    if (e->name != nullptr && e->name[0] != '\0') {
      spec.storing.emplace_back(e->name);
    } else {
      block("expression");
    }
  }
  std::vector<std::string> others;
  bool local_seen = false;
  for (size_t i = 0; i < s->n_options; ++i) {
    if (s->options[i]->node_case != PG_QUERY__NODE__NODE_DEF_ELEM) continue;
    const PgQuery__DefElem* d = s->options[i]->def_elem;
    std::string ns = d->defnamespace;
    std::string name = d->defname;
    bool twice = false;
    if (ns.empty() && name == "local") {
      twice = local_seen;
      local_seen = true;
      auto v = local_value(d);
      if (!v) return tl::unexpected(v.error());
      spec.local = *v;
    } else if (ns.empty() && name == "bucket_count") {
      twice = buckets.has_value();
      auto v = bucket_value(d);
      if (!v) return tl::unexpected(v.error());
      buckets = *v;
    } else {
      others.push_back(ns.empty() ? name : ns + "." + name);
    }
    if (twice) {
      return fail(sqlstate::kInvalidParameterValue,
                  "parameter \"" + name + "\" specified more than once");
    }
  }
  if (!others.empty()) {
    std::string b = others.size() == 1 ? "storage parameter " : "storage parameters ";
    for (size_t i = 0; i < others.size(); ++i) b += (i > 0 ? ", " : "") + others[i];
    block(std::move(b));
  }
  if (s->where_clause != nullptr) block("WHERE");
  return blockers.empty() ? std::string() : blockers.front();
}

/// The length in bytes of the UTF-8 character that starts with `c` (pg_utf_mblen).
size_t utf8_length(unsigned char c) {
  if ((c & 0x80) == 0) return 1;
  if ((c & 0xe0) == 0xc0) return 2;
  if ((c & 0xf0) == 0xe0) return 3;
  if ((c & 0xf8) == 0xf0) return 4;
  return 1;
}

/// The longest prefix of `s` of at most `limit` bytes that ends on a character boundary
/// (pg_mbcliplen).
std::string_view clip(std::string_view s, size_t limit) {
  size_t len = 0;
  while (len < s.size()) {
    size_t l = utf8_length(static_cast<unsigned char>(s[len]));
    if (len + l > limit) break;
    len += l;
  }
  return s.substr(0, std::min(len, s.size()));
}

}  // namespace

Result<std::optional<IndexSpec>> read_index_statement(std::string_view sql) {
  std::string owned(sql);
  auto scanned = scan(owned);
  if (!scanned) return std::nullopt;
  const std::vector<Token>& toks = *scanned;
  size_t i = 1;
  if (!is(toks, 0, "create")) return std::nullopt;
  if (is(toks, i, "unique")) ++i;
  if (!is(toks, i, "index")) return std::nullopt;

  // CREATE [UNIQUE] INDEX [CONCURRENTLY] [[IF NOT EXISTS] name] ON [ONLY] table [USING method]
  // (columns) [clauses] [WITH (…)] [TABLESPACE x] [WHERE …]. ON is a reserved word: the first
  // one is the clause, and the first '(' after it opens the column list.
  Clauses clauses;
  std::vector<Edit> edits;
  size_t on = i;
  while (on < toks.size() && !is(toks, on, "on") && !is(toks, on, ";")) ++on;
  size_t open = on;
  while (open < toks.size() && !is(toks, open, "(") && !is(toks, open, ";")) ++open;
  std::optional<size_t> close = is(toks, open, "(") ? closing(toks, open) : std::nullopt;
  if (close) {
    auto c = read_clauses(owned, toks, *close + 1);
    if (!c) return tl::unexpected(c.error());
    clauses = std::move(*c);
    edits = clauses.edits;
    for (size_t k = *close + 1; k < toks.size() && !is(toks, k, "where") && !is(toks, k, ";");
         ++k) {
      if (is(toks, k, "(")) {
        auto skip = closing(toks, k);
        if (!skip) break;
        k = *skip;
        continue;
      }
      if (!is(toks, k, "with") || !is(toks, k + 1, "(")) continue;
      auto e = strip_options(owned, toks, k);
      if (!e) return tl::unexpected(e.error());
      if (*e) edits.push_back(std::move(**e));
      break;
    }
  }

  auto tree = parse_tree(apply(owned, edits, true));
  if (!tree) return tl::unexpected(tree.error());
  const PgQuery__ParseResult* pr = tree->get();
  if (pr->n_stmts == 0 || pr->stmts[0]->stmt == nullptr ||
      pr->stmts[0]->stmt->node_case != PG_QUERY__NODE__NODE_INDEX_STMT) {
    return std::nullopt;
  }
  if (pr->n_stmts > 1) {
    return fail(sqlstate::kFeatureNotSupported,
                "pgrange takes a CREATE INDEX alone: send the other statements separately");
  }
  const PgQuery__IndexStmt* s = pr->stmts[0]->stmt->index_stmt;

  IndexSpec spec;
  spec.unique = s->unique;
  spec.if_not_exists = s->if_not_exists;
  spec.concurrently = s->concurrent;
  spec.nulls_not_distinct = s->nulls_not_distinct;
  spec.name = s->idxname;
  if (s->relation != nullptr) spec.table = TableRef{s->relation->schemaname, s->relation->relname};
  std::optional<uint32_t> buckets = clauses.buckets;
  auto blocker = read_tree(s, spec, buckets);
  if (!blocker) return tl::unexpected(blocker.error());
  spec.global_blocker = std::move(*blocker);
  spec.hashed = clauses.hashed;
  if (buckets && !spec.hashed) {
    return fail(Error::make(sqlstate::kInvalidParameterValue,
                            "bucket_count is only valid for a hash-sharded index")
                    .with_hint("write the column list followed by USING HASH"));
  }
  if (spec.hashed && spec.local) {
    return fail(Error::make(sqlstate::kInvalidParameterValue,
                            "a local index cannot be hash-sharded (USING HASH)")
                    .with_hint("drop USING HASH or WITH (local)"));
  }
  if (spec.hashed) spec.buckets = buckets.value_or(kDefaultBuckets);
  spec.shard_sql = apply(owned, edits, false);
  return spec;
}

std::string default_index_name(const std::string& table, const std::vector<std::string>& columns,
                               std::string_view label) {
  // ChooseIndexColumnNames: each name clipped to 63 bytes, a repeated one numbered.
  std::vector<std::string> chosen;
  for (const std::string& col : columns) {
    std::string name(clip(col, kMaxNameBytes));
    for (int n = 1; std::find(chosen.begin(), chosen.end(), name) != chosen.end(); ++n) {
      std::string suffix = std::to_string(n);
      name = std::string(clip(col, kMaxNameBytes - suffix.size())) + suffix;
    }
    chosen.push_back(std::move(name));
  }
  // ChooseIndexNameAddition: the names joined with '_', stopping once past 63 bytes.
  std::string addition;
  for (const std::string& name : chosen) {
    if (!addition.empty()) addition += '_';
    addition += name;
    if (addition.size() > kMaxNameBytes) break;
  }
  // makeObjectName(table, addition, label): shorten the longer part until both fit.
  const size_t available = kMaxNameBytes - 1 - (label.size() + 1);
  size_t table_bytes = table.size();
  size_t addition_bytes = addition.size();
  while (table_bytes + addition_bytes > available) {
    if (table_bytes > addition_bytes) {
      --table_bytes;
    } else {
      --addition_bytes;
    }
  }
  std::string out(clip(table, table_bytes));
  out.append("_").append(clip(addition, addition_bytes)).append("_").append(label);
  return out;
}

}  // namespace pgrange::sql
