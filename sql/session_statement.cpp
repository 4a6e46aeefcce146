#include "sql/session_statement.hpp"

#include <cctype>
#include <cstring>

#include "common/text.hpp"

namespace pgrange::sql {
namespace {

/// A token of the lexer: a word (keyword or identifier, folded to lower case unless quoted), or a
/// single punctuation character.
struct Token {
  std::string text;
  bool word = false;
  bool quoted = false;
  size_t begin = 0;
  size_t end = 0;
};

// PostgreSQL's scanner classifies bytes by ASCII ranges, not by locale (scan.l: ident_start).
bool ident_start(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return ((u | 0x20) >= 'a' && (u | 0x20) <= 'z') || u == '_' || u >= 0x80;
}
bool ident_char(char c) {
  return ident_start(c) || (c >= '0' && c <= '9') || c == '$';
}

/// Splits `q` into statements of tokens; skips comments, string literals and dollar quotes.
std::vector<std::vector<Token>> lex_statements(std::string_view q) {
  std::vector<std::vector<Token>> out(1);
  out.back().reserve(32);  // most statements fit: one allocation instead of six
  size_t i = 0;
  const size_t n = q.size();
  while (i < n) {
    char c = q[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '-' && i + 1 < n && q[i + 1] == '-') {
      while (i < n && q[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && q[i + 1] == '*') {
      // Block comments nest in PostgreSQL.
      int depth = 0;
      while (i < n) {
        if (q[i] == '/' && i + 1 < n && q[i + 1] == '*') {
          ++depth;
          i += 2;
        } else if (q[i] == '*' && i + 1 < n && q[i + 1] == '/') {
          i += 2;
          if (--depth == 0) break;
        } else {
          ++i;
        }
      }
    } else if (c == '\'' || ((c == 'e' || c == 'E') && i + 1 < n && q[i + 1] == '\'')) {
      bool escapes = c != '\'';
      size_t b = i;
      i += escapes ? 2 : 1;
      while (i < n) {
        if (escapes && q[i] == '\\') {
          i += 2;
        } else if (q[i] == '\'') {
          if (i + 1 < n && q[i + 1] == '\'') {
            i += 2;
          } else {
            ++i;
            break;
          }
        } else {
          ++i;
        }
      }
      out.back().push_back(Token{"'", false, false, b, i});
    } else if (c == '"') {
      size_t b = i++;
      std::string id;
      while (i < n) {
        if (q[i] == '"') {
          if (i + 1 < n && q[i + 1] == '"') {
            id.push_back('"');
            i += 2;
          } else {
            ++i;
            break;
          }
        } else {
          id.push_back(q[i++]);
        }
      }
      out.back().push_back(Token{id, true, true, b, i});
    } else if (c == '$' && i + 1 < n && (q[i + 1] == '$' || ident_start(q[i + 1]))) {
      // Dollar quote $tag$…$tag$ (a $n parameter is a '$' followed by digits, handled below).
      size_t j = i + 1;
      while (j < n && q[j] != '$' && ident_char(q[j]) && q[j] != '$') ++j;
      if (j < n && q[j] == '$') {
        std::string_view tag = q.substr(i, j - i + 1);
        size_t close = q.find(tag, j + 1);
        size_t b = i;
        i = close == std::string_view::npos ? n : close + tag.size();
        out.back().push_back(Token{"'", false, false, b, i});
      } else {
        ++i;
      }
    } else if (ident_start(c)) {
      size_t b = i;
      std::string w;
      while (i < n && ident_char(q[i])) {
        w.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(q[i]))));
        ++i;
      }
      out.back().push_back(Token{w, true, false, b, i});
    } else if (c == ';') {
      if (!out.back().empty()) out.emplace_back();
      ++i;
    } else {
      out.back().push_back(Token{std::string(1, c), false, false, i, i + 1});
      ++i;
    }
  }
  if (out.back().empty()) out.pop_back();
  return out;
}

bool is(const std::vector<Token>& t, size_t i, std::string_view w) {
  return i < t.size() && t[i].word && !t[i].quoted && t[i].text == w;
}

/// A possibly qualified name starting at token i (a.b.c); advances i past it.
std::string dotted_name(const std::vector<Token>& t, size_t& i) {
  std::string name;
  while (i < t.size() && t[i].word) {
    name += t[i].text;
    ++i;
    if (i + 1 < t.size() && t[i].text == "." && t[i + 1].word) {
      name += '.';
      ++i;
    } else {
      break;
    }
  }
  return name;
}

/// SET SESSION CHARACTERISTICS AS TRANSACTION modes (from token i): each mode is the session
/// default of a setting of its own, replayed as that setting so that another backend gets it.
template <typename Add>
void session_characteristics(const std::vector<Token>& t, size_t i, Add& add) {
  if (!is(t, i, "as") || !is(t, i + 1, "transaction")) return;
  struct Mode {
    std::string name, value;
  };
  std::vector<Mode> modes;
  for (i += 2; i < t.size();) {
    if (t[i].text == ",") {
      ++i;
    } else if (is(t, i, "isolation") && is(t, i + 1, "level")) {
      i += 2;
      std::string level;
      if (is(t, i, "serializable")) {
        level = "serializable";
        i += 1;
      } else if (is(t, i, "repeatable") && is(t, i + 1, "read")) {
        level = "repeatable read";
        i += 2;
      } else if (is(t, i, "read") && (is(t, i + 1, "committed") || is(t, i + 1, "uncommitted"))) {
        level = "read " + t[i + 1].text;
        i += 2;
      } else {
        return;  // not PostgreSQL's syntax: the server refuses it
      }
      modes.push_back({"default_transaction_isolation", "'" + level + "'"});
    } else if (is(t, i, "read") && (is(t, i + 1, "only") || is(t, i + 1, "write"))) {
      modes.push_back({"default_transaction_read_only", is(t, i + 1, "only") ? "on" : "off"});
      i += 2;
    } else if (is(t, i, "not") && is(t, i + 1, "deferrable")) {
      modes.push_back({"default_transaction_deferrable", "off"});
      i += 2;
    } else if (is(t, i, "deferrable")) {
      modes.push_back({"default_transaction_deferrable", "on"});
      i += 1;
    } else {
      return;
    }
  }
  for (auto& m : modes) add(SessionEffectKind::kSet, m.name, "SET " + m.name + " = " + m.value);
}

void classify(const std::vector<Token>& t, std::string_view q, bool sole, size_t index,
              std::vector<SessionEffect>& out) {
  std::string stmt(q.substr(t.front().begin, t.back().end - t.front().begin));
  auto add = [&](SessionEffectKind k, std::string name, std::string replay = {}) {
    SessionEffect e{k, std::move(name), replay.empty() ? stmt : std::move(replay)};
    e.sole_statement = sole;
    e.statement_index = index;
    e.statement_begin = t.front().begin;
    e.statement_end = t.back().end;
    out.push_back(std::move(e));
  };
  auto add_named = [&](SessionEffectKind k, const Token& tok) {
    SessionEffect e{k, tok.text, stmt};
    e.sole_statement = sole;
    e.name_begin = tok.begin;
    e.name_end = tok.end;
    e.statement_index = index;
    e.statement_begin = t.front().begin;
    e.statement_end = t.back().end;
    out.push_back(std::move(e));
  };
  // Function calls that change session state can appear in any statement.
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (!t[i].word || t[i].quoted || t[i + 1].text != "(") continue;
    const std::string& w = t[i].text;
    if (w == "pg_advisory_lock" || w == "pg_advisory_lock_shared" || w == "pg_try_advisory_lock" ||
        w == "pg_try_advisory_lock_shared") {
      add(SessionEffectKind::kAdvisoryLock, w);
    } else if (w == "pg_advisory_unlock_all") {
      add(SessionEffectKind::kAdvisoryUnlockAll, w);
    } else if (w == "set_config") {
      add(SessionEffectKind::kSetConfig, w);
    }
  }
  if (!t[0].word || t[0].quoted) return;
  const std::string& first = t[0].text;
  size_t i = 1;
  if (first == "set") {
    if (is(t, i, "local") || is(t, i, "transaction") || is(t, i, "constraints")) return;
    if (is(t, i, "session")) {
      ++i;
      if (is(t, i, "authorization")) {
        bool reset = is(t, i + 1, "default") && t.size() == i + 2;
        return add(reset ? SessionEffectKind::kReset : SessionEffectKind::kSet,
                   "session_authorization");
      }
      if (is(t, i, "characteristics")) return session_characteristics(t, i + 1, add);
    }
    if (is(t, i, "time") && is(t, i + 1, "zone")) {
      bool reset = (is(t, i + 2, "default") || is(t, i + 2, "local")) && t.size() == i + 3;
      return add(reset ? SessionEffectKind::kReset : SessionEffectKind::kSet, "timezone");
    }
    if (is(t, i, "names")) {
      bool reset = is(t, i + 1, "default") && t.size() == i + 2;
      return add(reset ? SessionEffectKind::kReset : SessionEffectKind::kSet, "client_encoding");
    }
    if (is(t, i, "role") && is(t, i + 1, "none") && t.size() == i + 2) {
      return add(SessionEffectKind::kReset, "role");
    }
    std::string name = dotted_name(t, i);
    // These last for the transaction only (SET TRANSACTION under another name).
    if (name.empty() || name == "transaction_isolation" || name == "transaction_read_only" ||
        name == "transaction_deferrable") {
      return;
    }
    // SET x TO DEFAULT is RESET x.
    bool reset = (is(t, i, "to") || (i < t.size() && t[i].text == "=")) &&
                 is(t, i + 1, "default") && t.size() == i + 2;
    add(reset ? SessionEffectKind::kReset : SessionEffectKind::kSet, name);
  } else if (first == "reset") {
    if (is(t, i, "all")) return add(SessionEffectKind::kResetAll, "");
    if (is(t, i, "time") && is(t, i + 1, "zone")) {
      return add(SessionEffectKind::kReset, "timezone");
    }
    if (is(t, i, "session") && is(t, i + 1, "authorization")) {
      return add(SessionEffectKind::kReset, "session_authorization");
    }
    std::string name = dotted_name(t, i);
    if (!name.empty()) add(SessionEffectKind::kReset, name);
  } else if (first == "discard") {
    if (is(t, i, "all"))
      add(SessionEffectKind::kDiscardAll, "");
    else if (is(t, i, "temp") || is(t, i, "temporary"))
      add(SessionEffectKind::kDiscardTemp, "");
  } else if (first == "prepare") {
    if (is(t, i, "transaction")) return;  // two-phase commit, not a prepared statement
    if (i < t.size() && t[i].word) add(SessionEffectKind::kPrepare, t[i].text);
  } else if (first == "deallocate") {
    if (is(t, i, "prepare")) ++i;
    if (is(t, i, "all")) {
      add(SessionEffectKind::kDeallocateAll, "");
    } else if (i < t.size() && t[i].word) {
      add_named(SessionEffectKind::kDeallocate, t[i]);
    }
  } else if (first == "execute") {
    if (i < t.size() && t[i].word) add_named(SessionEffectKind::kExecute, t[i]);
  } else if (first == "savepoint") {
    if (i < t.size() && t[i].word) add(SessionEffectKind::kSavepoint, t[i].text);
  } else if (first == "release") {
    if (is(t, i, "savepoint")) ++i;
    if (i < t.size() && t[i].word) add(SessionEffectKind::kRelease, t[i].text);
  } else if (first == "rollback" || first == "abort") {
    if (is(t, i, "work") || is(t, i, "transaction")) ++i;
    if (!is(t, i, "to")) return;
    ++i;
    if (is(t, i, "savepoint")) ++i;
    if (i < t.size() && t[i].word) add(SessionEffectKind::kRollbackTo, t[i].text);
  } else if (first == "listen") {
    if (i < t.size() && t[i].word) add(SessionEffectKind::kListen, t[i].text);
  } else if (first == "unlisten") {
    if (i < t.size() && t[i].text == "*")
      add(SessionEffectKind::kUnlistenAll, "");
    else if (i < t.size() && t[i].word)
      add(SessionEffectKind::kUnlisten, t[i].text);
  } else if (first == "declare") {
    if (i >= t.size() || !t[i].word) return;
    std::string name = t[i].text;
    for (size_t j = i + 1; j + 1 < t.size(); ++j) {
      if (is(t, j, "with") && is(t, j + 1, "hold"))
        return add(SessionEffectKind::kDeclareHold, name);
      if (is(t, j, "for")) break;  // options end at FOR
    }
  } else if (first == "close") {
    if (is(t, i, "all"))
      add(SessionEffectKind::kCloseAll, "");
    else if (i < t.size() && t[i].word)
      add(SessionEffectKind::kClose, t[i].text);
  } else if (first == "create") {
    if (is(t, i, "or") && is(t, i + 1, "replace")) i += 2;
    if (is(t, i, "global") || is(t, i, "local")) ++i;
    if (is(t, i, "temp") || is(t, i, "temporary")) return add(SessionEffectKind::kCreateTemp, "");
    // An object made in the session's temporary schema by name (pg_temp.x) is temporary too.
    for (size_t j = i; j + 1 < t.size(); ++j) {
      if (t[j].word && t[j].text.rfind("pg_temp", 0) == 0 && t[j + 1].text == ".") {
        return add(SessionEffectKind::kCreateTemp, "");
      }
    }
  }
  if (first == "select") {
    for (size_t j = 1; j + 1 < t.size(); ++j) {
      bool temp_schema = j + 2 < t.size() && t[j + 1].word &&
                         t[j + 1].text.rfind("pg_temp", 0) == 0 && t[j + 2].text == ".";
      if (is(t, j, "into") && (is(t, j + 1, "temp") || is(t, j + 1, "temporary") || temp_schema)) {
        return add(SessionEffectKind::kCreateTemp, "");
      }
    }
  }
}

/// A test that answers "could this query have session effects?" without lexing it: the
/// first word of each statement, and function names and TEMP anywhere. It may say yes for
/// nothing (a word in a string, a ';' in a comment), never no for a query that has one: the
/// full lexer runs only for the few queries it lets through. Almost every query of an
/// application says no here, so it is a handful of memchr-driven searches, not a lexer.
bool may_have_effects(std::string_view q) {
  static constexpr std::string_view kFirstWords[] = {
      "set",   "reset",  "discard", "prepare",   "deallocate", "listen",   "unlisten", "declare",
      "close", "create", "execute", "savepoint", "release",    "rollback", "abort"};
  // Nested comments are the lexer's to read; TEMP covers TEMPORARY and pg_temp.
  if (q.find("/*") != std::string_view::npos || icontains(q, "temp") ||
      icontains(q, "set_config") || icontains(q, "advisory")) {
    return true;
  }
  // Each statement's first word: at the start and after every ';' (one inside quotes or a
  // comment only costs a look).
  for (size_t start = 0; start <= q.size();) {
    std::string_view kw = leading_word(q.substr(start));
    for (std::string_view k : kFirstWords) {
      if (iequals(kw, k)) return true;
    }
    const void* semi = std::memchr(q.data() + start, ';', q.size() - start);
    if (semi == nullptr) break;
    start = static_cast<size_t>(static_cast<const char*>(semi) - q.data()) + 1;
  }
  return false;
}

}  // namespace

std::string_view leading_word(std::string_view sql) {
  size_t i = 0;
  while (i < sql.size()) {
    char c = sql[i];
    if (is_space(c) || c == '(' || c == ';') {
      ++i;
    } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      while (i < sql.size() && sql[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < sql.size() && sql[i + 1] == '*') {
      auto end = sql.find("*/", i + 2);
      i = end == std::string_view::npos ? sql.size() : end + 2;
    } else {
      break;
    }
  }
  // ASCII letters only (a keyword is never anything else), at most 16 of them.
  size_t b = i;
  while (i < sql.size() && i - b < 16 && ((sql[i] | 0x20) >= 'a' && (sql[i] | 0x20) <= 'z')) ++i;
  return sql.substr(b, i - b);
}

std::string leading_keyword(std::string_view sql) {
  std::string word(leading_word(sql));
  for (char& c : word) c = static_cast<char>(c | 0x20);
  return word;
}

bool commits_block(std::string_view query) {
  std::string kw = leading_keyword(query);
  if (kw == "commit" || kw == "end") return true;
  if (kw != "prepare") return false;
  // PREPARE name AS … prepares a statement; PREPARE TRANSACTION has no session effect.
  for (const auto& e : session_effects(query)) {
    if (e.kind == SessionEffectKind::kPrepare) return false;
  }
  return true;
}

std::vector<SessionEffect> session_effects(std::string_view query) {
  if (!may_have_effects(query)) return {};
  std::vector<SessionEffect> out;
  auto statements = lex_statements(query);
  for (size_t i = 0; i < statements.size(); ++i) {
    classify(statements[i], query, statements.size() == 1, i, out);
  }
  return out;
}

}  // namespace pgrange::sql
