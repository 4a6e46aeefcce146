#include "sql/copy_statement.hpp"

#include <pg_query.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>

#include "sql/parse_node.hpp"

namespace pgrange::sql {

namespace {

constexpr std::string_view kDuplicateColumn = "42701";

// A failure of one option check, as PostgreSQL's ereport in copy.c / define.c.
tl::unexpected<Error> option_error(std::string_view code, std::string msg) {
  return fail(code, std::move(msg));
}

tl::unexpected<Error> conflicting() {
  return option_error(sqlstate::kSyntaxError, "conflicting or redundant options");
}

// define.c defGetString: the option's argument as text; 42601 when there is none.
Result<std::string> def_string(const PgQuery__DefElem* d) {
  const PgQuery__Node* a = d->arg;
  if (a == nullptr) {
    return option_error(sqlstate::kSyntaxError, std::string(d->defname) + " requires a parameter");
  }
  switch (a->node_case) {
    case PG_QUERY__NODE__NODE_INTEGER:
      return std::to_string(a->integer->ival);
    case PG_QUERY__NODE__NODE_FLOAT:
      return std::string(a->float_->fval);
    case PG_QUERY__NODE__NODE_BOOLEAN:
      return std::string(a->boolean->boolval ? "true" : "false");
    case PG_QUERY__NODE__NODE_STRING:
      return std::string(a->string->sval);
    case PG_QUERY__NODE__NODE_A_STAR:
      return std::string("*");
    case PG_QUERY__NODE__NODE_LIST: {
      // NameListToString: the names joined with '.'.
      std::string out;
      for (size_t i = 0; i < a->list->n_items; ++i) {
        if (i > 0) out += '.';
        if (const char* s = string_of(a->list->items[i])) out += s;
      }
      return out;
    }
    default:
      return option_error(sqlstate::kSyntaxError,
                          std::string(d->defname) + " requires a parameter");
  }
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// define.c defGetBoolean: no argument, 0/1, true/false/on/off (any case).
Result<bool> def_boolean(const PgQuery__DefElem* d) {
  if (d->arg == nullptr) return true;
  if (d->arg->node_case == PG_QUERY__NODE__NODE_INTEGER) {
    if (d->arg->integer->ival == 0) return false;
    if (d->arg->integer->ival == 1) return true;
  } else {
    auto s = def_string(d);
    if (!s) return tl::unexpected(s.error());
    if (equals_ignoring_case(*s, "true") || equals_ignoring_case(*s, "on")) return true;
    if (equals_ignoring_case(*s, "false") || equals_ignoring_case(*s, "off")) return false;
  }
  return option_error(sqlstate::kSyntaxError,
                      std::string(d->defname) + " requires a Boolean value");
}

enum class HeaderChoice { kFalse, kTrue, kMatch };

// copy.c defGetCopyHeaderChoice: a Boolean or "match" (COPY FROM only).
Result<HeaderChoice> def_header(const PgQuery__DefElem* d, bool is_from) {
  if (d->arg == nullptr) return HeaderChoice::kTrue;
  if (d->arg->node_case == PG_QUERY__NODE__NODE_INTEGER) {
    if (d->arg->integer->ival == 0) return HeaderChoice::kFalse;
    if (d->arg->integer->ival == 1) return HeaderChoice::kTrue;
  } else {
    auto s = def_string(d);
    if (!s) return tl::unexpected(s.error());
    if (equals_ignoring_case(*s, "true") || equals_ignoring_case(*s, "on")) {
      return HeaderChoice::kTrue;
    }
    if (equals_ignoring_case(*s, "false") || equals_ignoring_case(*s, "off")) {
      return HeaderChoice::kFalse;
    }
    if (equals_ignoring_case(*s, "match")) {
      if (!is_from) {
        return option_error(sqlstate::kFeatureNotSupported,
                            "cannot use \"" + *s + "\" with HEADER in COPY TO");
      }
      return HeaderChoice::kMatch;
    }
  }
  return option_error(sqlstate::kSyntaxError,
                      std::string(d->defname) + " requires a Boolean value or \"match\"");
}

// The column names of a FORCE_* option: a parenthesised list (or, for FORCE_QUOTE, *).
Result<std::vector<std::string>> def_column_list(const PgQuery__DefElem* d) {
  if (d->arg == nullptr || d->arg->node_case != PG_QUERY__NODE__NODE_LIST) {
    return option_error(
        sqlstate::kInvalidParameterValue,
        "argument to option \"" + std::string(d->defname) + "\" must be a list of column names");
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < d->arg->list->n_items; ++i) {
    if (const char* s = string_of(d->arg->list->items[i])) out.emplace_back(s);
  }
  return out;
}

// encnames.c pg_char_to_encoding: the encoding names and aliases PostgreSQL 15 knows, compared
// after dropping everything but letters and digits and folding to lower case.
bool valid_encoding_name(std::string_view name) {
  static constexpr std::array kNames = {
      "abc",         "alt",         "big5",        "euccn",        "eucjis2004",  "eucjp",
      "euckr",       "euctw",       "gb18030",     "gbk",          "iso88591",    "iso885910",
      "iso885913",   "iso885914",   "iso885915",   "iso885916",    "iso88592",    "iso88593",
      "iso88594",    "iso88595",    "iso88596",    "iso88597",     "iso88598",    "iso88599",
      "johab",       "koi8",        "koi8r",       "koi8u",        "latin1",      "latin10",
      "latin2",      "latin3",      "latin4",      "latin5",       "latin6",      "latin7",
      "latin8",      "latin9",      "mskanji",     "muleinternal", "shiftjis",    "shiftjis2004",
      "sjis",        "sqlascii",    "tcvn",        "tcvn5712",     "uhc",         "unicode",
      "utf8",        "vscii",       "win",         "win1250",      "win1251",     "win1252",
      "win1253",     "win1254",     "win1255",     "win1256",      "win1257",     "win1258",
      "win866",      "win874",      "win932",      "win936",       "win949",      "win950",
      "windows1250", "windows1251", "windows1252", "windows1253",  "windows1254", "windows1255",
      "windows1256", "windows1257", "windows1258", "windows866",   "windows874",  "windows932",
      "windows936",  "windows949",  "windows950"};
  std::string clean;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      clean += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return std::find(kNames.begin(), kNames.end(), clean) != kNames.end();
}

// copy.c ProcessCopyOptions of PostgreSQL 15, check for check and in the same order:
//  - per option: "conflicting or redundant options" (42601) for a repeated format, freeze,
//    delimiter, null, header, quote, escape, force_quote, force_not_null, force_null,
//    convert_selectively, encoding; COPY format "x" not recognized (22023); defGetString's
//    "x requires a parameter" and defGetBoolean's "x requires a Boolean value" (42601);
//    defGetCopyHeaderChoice's "x requires a Boolean value or \"match\"" (42601) and "cannot use
//    \"match\" with HEADER in COPY TO" (0A000); "argument to option \"x\" must be a list of
//    column names" (22023); "argument to option \"encoding\" must be a valid encoding name"
//    (22023); option "x" not recognized (42601);
//  - then: cannot specify DELIMITER / NULL in BINARY mode (42601); COPY delimiter must be a
//    single one-byte character (0A000); COPY delimiter cannot be newline or carriage return,
//    COPY null representation cannot use newline or carriage return, COPY delimiter cannot be
//    "x" (22023); cannot specify HEADER in BINARY mode, COPY quote available only in CSV mode,
//    COPY quote must be a single one-byte character (0A000); COPY delimiter and quote must be
//    different (22023); COPY escape available only in CSV mode, COPY escape must be a single
//    one-byte character, COPY force quote available only in CSV mode, COPY force quote only
//    available using COPY TO, COPY force not null available only in CSV mode, COPY force not
//    null only available using COPY FROM, COPY force null available only in CSV mode, COPY force
//    null only available using COPY FROM, COPY delimiter must not appear in the NULL
//    specification, CSV quote character must not appear in the NULL specification (0A000).
// Checks that need the table (FORCE_* columns exist and are in the column list) are left to
// the caller (CopyRowReader::check_columns) or the shards.
Result<CopyOptions> process_options(const PgQuery__CopyStmt* s) {
  const bool is_from = s->is_from;
  std::optional<std::string> format, delim, null_print, quote, escape, encoding;
  bool freeze_specified = false, header_specified = false, convert_selectively = false;
  bool force_quote_set = false, force_not_null_set = false, force_null_set = false;
  HeaderChoice header = HeaderChoice::kFalse;
  CopyOptions o;

  auto string_option = [](const PgQuery__DefElem* d,
                          std::optional<std::string>& slot) -> Result<void> {
    if (slot) return conflicting();
    auto v = def_string(d);
    if (!v) return tl::unexpected(v.error());
    slot = std::move(*v);
    return {};
  };

  for (size_t i = 0; i < s->n_options; ++i) {
    const PgQuery__Node* n = s->options[i];
    if (n == nullptr || n->node_case != PG_QUERY__NODE__NODE_DEF_ELEM) continue;
    const PgQuery__DefElem* d = n->def_elem;
    const std::string_view name = d->defname;
    Result<void> r;
    if (name == "format") {
      if (format) return conflicting();
      auto v = def_string(d);
      if (!v) return tl::unexpected(v.error());
      format = *v;
      // Compared case-sensitively, as PostgreSQL does (the grammar folds unquoted words).
      if (*v == "text") {
        o.format = CopyFormat::kText;
      } else if (*v == "csv") {
        o.format = CopyFormat::kCsv;
      } else if (*v == "binary") {
        o.format = CopyFormat::kBinary;
      } else {
        return option_error(sqlstate::kInvalidParameterValue,
                            "COPY format \"" + *v + "\" not recognized");
      }
    } else if (name == "freeze") {
      if (freeze_specified) return conflicting();
      freeze_specified = true;
      auto v = def_boolean(d);
      if (!v) return tl::unexpected(v.error());
      o.freeze = *v;
    } else if (name == "delimiter") {
      r = string_option(d, delim);
    } else if (name == "null") {
      r = string_option(d, null_print);
    } else if (name == "header") {
      if (header_specified) return conflicting();
      header_specified = true;
      auto v = def_header(d, is_from);
      if (!v) return tl::unexpected(v.error());
      header = *v;
    } else if (name == "quote") {
      r = string_option(d, quote);
    } else if (name == "escape") {
      r = string_option(d, escape);
    } else if (name == "force_quote") {
      if (force_quote_set) return conflicting();
      force_quote_set = true;
      if (d->arg != nullptr && d->arg->node_case == PG_QUERY__NODE__NODE_A_STAR) {
        o.force_quote_all = true;
      } else {
        auto v = def_column_list(d);
        if (!v) return tl::unexpected(v.error());
        o.force_quote = std::move(*v);
      }
    } else if (name == "force_not_null") {
      if (force_not_null_set) return conflicting();
      auto v = def_column_list(d);
      if (!v) return tl::unexpected(v.error());
      force_not_null_set = true;
      o.force_not_null = std::move(*v);
    } else if (name == "force_null") {
      if (force_null_set) return conflicting();
      auto v = def_column_list(d);
      if (!v) return tl::unexpected(v.error());
      force_null_set = true;
      o.force_null = std::move(*v);
    } else if (name == "convert_selectively") {
      // Undocumented; it only leaves columns out of the conversion, the data is read the same.
      if (convert_selectively) return conflicting();
      convert_selectively = true;
      if (d->arg != nullptr) {
        auto v = def_column_list(d);
        if (!v) return tl::unexpected(v.error());
      }
    } else if (name == "encoding") {
      if (encoding) return conflicting();
      auto v = def_string(d);
      if (!v) return tl::unexpected(v.error());
      if (!valid_encoding_name(*v)) {
        return option_error(sqlstate::kInvalidParameterValue,
                            "argument to option \"encoding\" must be a valid encoding name");
      }
      encoding = *v;
      o.encoding = *v;
    } else {
      return option_error(sqlstate::kSyntaxError,
                          "option \"" + std::string(name) + "\" not recognized");
    }
    if (!r) return tl::unexpected(r.error());
  }

  const bool binary = o.format == CopyFormat::kBinary;
  const bool csv = o.format == CopyFormat::kCsv;
  if (binary && delim) {
    return option_error(sqlstate::kSyntaxError, "cannot specify DELIMITER in BINARY mode");
  }
  if (binary && null_print) {
    return option_error(sqlstate::kSyntaxError, "cannot specify NULL in BINARY mode");
  }
  if (!delim) delim = csv ? "," : "\t";
  if (!null_print) null_print = csv ? "" : "\\N";
  if (csv) {
    if (!quote) quote = "\"";
    if (!escape) escape = quote;
  }
  if (delim->size() != 1) {
    return option_error(sqlstate::kFeatureNotSupported,
                        "COPY delimiter must be a single one-byte character");
  }
  const char dc = (*delim)[0];
  if (dc == '\r' || dc == '\n') {
    return option_error(sqlstate::kInvalidParameterValue,
                        "COPY delimiter cannot be newline or carriage return");
  }
  if (null_print->find_first_of("\r\n") != std::string::npos) {
    return option_error(sqlstate::kInvalidParameterValue,
                        "COPY null representation cannot use newline or carriage return");
  }
  if (!csv && std::string_view("\\.abcdefghijklmnopqrstuvwxyz0123456789").find(dc) !=
                  std::string_view::npos) {
    return option_error(sqlstate::kInvalidParameterValue,
                        "COPY delimiter cannot be \"" + *delim + "\"");
  }
  if (binary && header != HeaderChoice::kFalse) {
    return option_error(sqlstate::kFeatureNotSupported, "cannot specify HEADER in BINARY mode");
  }
  if (!csv && quote) {
    return option_error(sqlstate::kFeatureNotSupported, "COPY quote available only in CSV mode");
  }
  if (csv && quote->size() != 1) {
    return option_error(sqlstate::kFeatureNotSupported,
                        "COPY quote must be a single one-byte character");
  }
  if (csv && dc == (*quote)[0]) {
    return option_error(sqlstate::kInvalidParameterValue,
                        "COPY delimiter and quote must be different");
  }
  if (!csv && escape) {
    return option_error(sqlstate::kFeatureNotSupported, "COPY escape available only in CSV mode");
  }
  if (csv && escape->size() != 1) {
    return option_error(sqlstate::kFeatureNotSupported,
                        "COPY escape must be a single one-byte character");
  }
  if (!csv && force_quote_set) {
    return option_error(sqlstate::kFeatureNotSupported,
                        "COPY force quote available only in CSV mode");
  }
  if (force_quote_set && is_from) {
    return option_error(sqlstate::kFeatureNotSupported,
                        "COPY force quote only available using COPY TO");
  }
  if (!csv && force_not_null_set) {
    return option_error(sqlstate::kFeatureNotSupported,
                        "COPY force not null available only in CSV mode");
  }
  if (force_not_null_set && !is_from) {
    return option_error(sqlstate::kFeatureNotSupported,
                        "COPY force not null only available using COPY FROM");
  }
  if (!csv && force_null_set) {
    return option_error(sqlstate::kFeatureNotSupported,
                        "COPY force null available only in CSV mode");
  }
  if (force_null_set && !is_from) {
    return option_error(sqlstate::kFeatureNotSupported,
                        "COPY force null only available using COPY FROM");
  }
  if (null_print->find(dc) != std::string::npos) {
    return option_error(sqlstate::kFeatureNotSupported,
                        "COPY delimiter must not appear in the NULL specification");
  }
  if (csv && null_print->find((*quote)[0]) != std::string::npos) {
    return option_error(sqlstate::kFeatureNotSupported,
                        "CSV quote character must not appear in the NULL specification");
  }

  o.delimiter = dc;
  o.null_string = *null_print;
  if (csv) {
    o.quote = (*quote)[0];
    o.escape = (*escape)[0];
  }
  o.header = header != HeaderChoice::kFalse;
  o.header_match = header == HeaderChoice::kMatch;
  return o;
}

// The text between the parentheses of COPY (query) TO, found with PostgreSQL's scanner so that
// parentheses in strings, quoted names and comments do not count.
Result<std::string> query_text(std::string_view sql) {
  std::string owned(sql);
  PgQueryScanResult r = pg_query_scan(owned.c_str());
  std::unique_ptr<PgQueryScanResult, void (*)(PgQueryScanResult*)> guard(
      new PgQueryScanResult(r), [](PgQueryScanResult* p) {
        pg_query_free_scan_result(*p);
        delete p;
      });
  if (r.error != nullptr) {
    return fail(sqlstate::kSyntaxError,
                r.error->message != nullptr ? r.error->message : "syntax error");
  }
  std::unique_ptr<PgQuery__ScanResult, void (*)(PgQuery__ScanResult*)> scan(
      pg_query__scan_result__unpack(nullptr, r.pbuf.len,
                                    reinterpret_cast<const uint8_t*>(r.pbuf.data)),
      [](PgQuery__ScanResult* p) { pg_query__scan_result__free_unpacked(p, nullptr); });
  if (!scan) return fail(sqlstate::kInternalError, "cannot decode the scanned statement");
  int depth = 0;
  int32_t open_end = -1;
  for (size_t i = 0; i < scan->n_tokens; ++i) {
    const PgQuery__ScanToken* t = scan->tokens[i];
    if (t->token == PG_QUERY__TOKEN__ASCII_40) {
      if (depth++ == 0 && open_end < 0) open_end = t->end;
    } else if (t->token == PG_QUERY__TOKEN__ASCII_41 && depth > 0 && --depth == 0) {
      std::string_view inner =
          sql.substr(static_cast<size_t>(open_end), static_cast<size_t>(t->start - open_end));
      const auto b = inner.find_first_not_of(" \t\r\n\f\v");
      if (b == std::string_view::npos) return std::string();
      const auto e = inner.find_last_not_of(" \t\r\n\f\v");
      return std::string(inner.substr(b, e - b + 1));
    }
  }
  return fail(sqlstate::kInternalError, "cannot find the query of COPY (query) TO");
}

}  // namespace

Result<CopyStatement> read_copy_statement(std::string_view sql) {
  auto tree = parse_tree(sql);
  if (!tree) return tl::unexpected(tree.error());
  const PgQuery__ParseResult* pr = tree->get();
  if (pr->n_stmts != 1 || pr->stmts[0]->stmt == nullptr ||
      pr->stmts[0]->stmt->node_case != PG_QUERY__NODE__NODE_COPY_STMT) {
    return fail(sqlstate::kSyntaxError, "expected exactly one COPY statement");
  }
  const PgQuery__CopyStmt* s = pr->stmts[0]->stmt->copy_stmt;
  CopyStatement out;
  if (s->relation != nullptr) {
    out.table.schema = s->relation->schemaname != nullptr ? s->relation->schemaname : "";
    out.table.name = s->relation->relname != nullptr ? s->relation->relname : "";
  }
  out.from = s->is_from;
  out.program = s->is_program;
  out.filename = s->filename != nullptr ? s->filename : "";
  // The grammar gives STDIN/STDOUT as no file name (an empty string in the protobuf tree).
  out.stdio = !out.program && out.filename.empty();
  out.has_where = s->where_clause != nullptr;
  if (s->query != nullptr) {
    const PgQuery__RawStmt* raw = pr->stmts[0];
    const size_t begin = static_cast<size_t>(std::max(raw->stmt_location, 0));
    const size_t len = raw->stmt_len > 0 ? static_cast<size_t>(raw->stmt_len) : sql.size() - begin;
    auto q = query_text(sql.substr(begin, len));
    if (!q) return tl::unexpected(q.error());
    out.query = std::move(*q);
  }
  auto options = process_options(s);
  if (!options) return tl::unexpected(options.error());
  out.options = std::move(*options);
  // After the options, as PostgreSQL checks the column list (CopyGetAttnums) after them.
  for (size_t i = 0; i < s->n_attlist; ++i) {
    const char* name = string_of(s->attlist[i]);
    if (name == nullptr) continue;
    if (std::find(out.columns.begin(), out.columns.end(), name) != out.columns.end()) {
      return fail(kDuplicateColumn,
                  "column \"" + std::string(name) + "\" specified more than once");
    }
    out.columns.emplace_back(name);
  }
  return out;
}

}  // namespace pgrange::sql
