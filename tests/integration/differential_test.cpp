// Differential test: pgrange must never give a wrong answer. Every statement of
// tests/integration/differential/corpus.sql runs through a three-shard pgrange (tables split into
// many ranges and scattered) and on one plain PostgreSQL 15 holding the same rows. pgrange either
// answers exactly what the plain server answers (SQLSTATE, column names, command tag and rows —
// in order under a total top-level ORDER BY, as multisets otherwise) or refuses with 0A000. The
// corpus runs twice: in the simple protocol, and in the extended protocol with the constants a
// WHERE clause compares columns with (and the values of INSERT … VALUES) bound as $n text
// parameters.
//
// Corpus format: one statement per line, or several lines up to one ending in ';'. `--` lines
// are comments; `-- group: NAME` starts a group (counted in the summary). A statement whose top-
// level ORDER BY leaves ties is marked `/*ties*/` and compared as a multiset. Set
// PGRANGE_DIFFERENTIAL_EXTRA to the path of another file of that format to run it after the
// corpus (e.g. statements under investigation, kept out of the corpus).
//
// setup.sql may use pgrange's own CREATE TABLE / CREATE INDEX syntax (USING HASH WITH
// (bucket_count = n), STORING (…), WITH (local = true)): the reference server gets the statement
// without it (reference_sql). splits.sql may say `ALTER INDEX t@i SCATTER`; while pgrange does
// not take it, the test spreads the index's ranges over the shards itself with ALTER RANGE …
// RELOCATE TO.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/pg_server.hpp"
#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {
namespace {

const std::string kDir = std::string(PGRANGE_SOURCE_DIR) + "/tests/integration/differential/";

struct Statement {
  std::string group;
  std::string sql;
  int line = 0;
};

/// Reads a file of statements (see the header comment for the format).
std::vector<Statement> read_statements(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<Statement> out;
  std::string group = "(none)", line, pending;
  int number = 0, first = 0;
  while (std::getline(in, line)) {
    ++number;
    size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos) continue;
    size_t e = line.find_last_not_of(" \t\r");
    std::string text = line.substr(b, e + 1 - b);
    if (pending.empty() && text.rfind("--", 0) == 0) {
      if (text.rfind("-- group:", 0) == 0) {
        group = text.substr(9);
        group.erase(0, group.find_first_not_of(' '));
      }
      continue;
    }
    if (pending.empty()) first = number;
    pending += pending.empty() ? text : "\n" + text;
    // One statement per line unless it is continued (does not end with ';' and the next line
    // is indented); a ';' always ends it.
    bool ends = text.back() == ';';
    if (!ends) {
      int c = in.peek();
      ends = !(c == ' ' || c == '\t');
    }
    if (ends) {
      if (pending.back() == ';') pending.pop_back();
      out.push_back({group, pending, first});
      pending.clear();
    }
  }
  if (!pending.empty()) out.push_back({group, pending, first});
  return out;
}

// ---------------------------------------------------------------------------------------------
// A small SQL tokenizer: enough to find the top-level ORDER BY and the literals to parameterise.

struct Token {
  enum Kind { kWord, kString, kNumber, kOp, kOpen, kClose, kComma, kOther } kind;
  std::string text;  ///< as written
  size_t begin = 0, end = 0;
};

std::vector<Token> tokenize(const std::string& s) {
  std::vector<Token> out;
  size_t i = 0, n = s.size();
  auto is_ident = [](unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; };
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t start = i;
    if (std::isspace(c)) {
      ++i;
      continue;
    }
    if (c == '-' && i + 1 < n && s[i + 1] == '-') {
      while (i < n && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      size_t e = s.find("*/", i + 2);
      i = e == std::string::npos ? n : e + 2;
      out.push_back({Token::kOther, s.substr(start, i - start), start, i});
      continue;
    }
    if (c == '\'') {
      ++i;
      while (i < n) {
        if (s[i] == '\'') {
          if (i + 1 < n && s[i + 1] == '\'') {
            i += 2;
            continue;
          }
          break;
        }
        ++i;
      }
      ++i;
      // E'…', U&'…' and the like: the prefix word makes it something else.
      bool prefixed = !out.empty() && out.back().end == start && out.back().kind == Token::kWord;
      out.push_back({prefixed ? Token::kOther : Token::kString, s.substr(start, i - start), start,
                     std::min(i, n)});
      continue;
    }
    if (c == '"') {
      size_t e = s.find('"', i + 1);
      i = e == std::string::npos ? n : e + 1;
      out.push_back({Token::kWord, s.substr(start, i - start), start, i});
      continue;
    }
    if (std::isdigit(c) ||
        (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      while (i < n && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
      if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
        while (i < n && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      }
      out.push_back({Token::kNumber, s.substr(start, i - start), start, i});
      continue;
    }
    if (is_ident(c) || c == '$') {
      while (i < n && (is_ident(static_cast<unsigned char>(s[i])) || s[i] == '$')) ++i;
      out.push_back({Token::kWord, s.substr(start, i - start), start, i});
      continue;
    }
    if (c == '(' || c == ')' || c == ',') {
      ++i;
      out.push_back({c == '('   ? Token::kOpen
                     : c == ')' ? Token::kClose
                                : Token::kComma,
                     s.substr(start, 1), start, i});
      continue;
    }
    static const std::string op_chars = "+-*/<>=~!@#%^&|`?:";
    if (op_chars.find(static_cast<char>(c)) != std::string::npos) {
      while (i < n && op_chars.find(s[i]) != std::string::npos) ++i;
      out.push_back({Token::kOp, s.substr(start, i - start), start, i});
      continue;
    }
    ++i;
    out.push_back({Token::kOther, s.substr(start, 1), start, i});
  }
  return out;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool is_word(const Token& t, const char* w) {
  return t.kind == Token::kWord && upper(t.text) == w;
}

/// True when the statement ends in a top-level ORDER BY (outside parentheses) that the corpus
/// says is total (no `/*ties*/` mark).
bool ordered(const std::string& sql) {
  if (sql.find("/*ties*/") != std::string::npos) return false;
  auto tokens = tokenize(sql);
  int depth = 0;
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (tokens[i].kind == Token::kOpen) ++depth;
    if (tokens[i].kind == Token::kClose) --depth;
    if (depth == 0 && is_word(tokens[i], "ORDER") && is_word(tokens[i + 1], "BY")) return true;
  }
  return false;
}

/// A statement with its literal constants replaced by $n, and their texts.
struct Parameterised {
  std::string sql;
  std::vector<std::string> values;
};

/// Binds as parameters: in WHERE clauses, each constant (string or number, optionally negative)
/// that a comparison operator, LIKE, BETWEEN … AND … or an IN list sets against something; in
/// INSERT … VALUES, each item that is just a constant. Casts written after a constant stay on
/// the parameter ($1::uuid). Constants inside expressions (x + 1) stay as written.
Parameterised parameterise(const std::string& sql) {
  auto tokens = tokenize(sql);
  Parameterised p;
  std::string out;
  size_t copied = 0;
  bool in_where = false, in_values = false;
  int depth = 0, where_depth = 0, values_depth = -1;
  std::vector<int> in_lists;  // depths of open IN (…) lists
  bool between = false;       // after BETWEEN x, the AND takes the upper bound
  static const std::vector<std::string> cmp = {"=", "<", "<=", ">", ">=", "<>", "!="};
  static const std::vector<std::string> ends = {"ORDER",     "GROUP", "LIMIT",  "OFFSET",
                                                "RETURNING", "FOR",   "HAVING", "WINDOW"};
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.kind == Token::kOpen) ++depth;
    if (t.kind == Token::kClose) {
      if (!in_lists.empty() && in_lists.back() == depth) in_lists.pop_back();
      --depth;
      if (in_values && depth < values_depth - 1) in_values = false;
      if (in_where && depth < where_depth) in_where = false;
    }
    // VALUES (…), (…) ends at the first word after its rows (ON CONFLICT, RETURNING).
    if (in_values && depth == values_depth - 1 && t.kind == Token::kWord) in_values = false;
    if (is_word(t, "WHERE")) {
      in_where = true;
      where_depth = depth;
    } else if (in_where && depth == where_depth && t.kind == Token::kWord &&
               std::find(ends.begin(), ends.end(), upper(t.text)) != ends.end()) {
      in_where = false;
    }
    if (is_word(t, "VALUES") && i + 1 < tokens.size() && tokens[i + 1].kind == Token::kOpen) {
      in_values = true;
      values_depth = depth + 1;
    }
    if (is_word(t, "IN") && i + 1 < tokens.size() && tokens[i + 1].kind == Token::kOpen) {
      in_lists.push_back(depth + 1);
    }
    bool literal = t.kind == Token::kString || t.kind == Token::kNumber;
    bool negative = false;
    if (t.kind == Token::kOp && t.text == "-" && i + 1 < tokens.size() &&
        tokens[i + 1].kind == Token::kNumber) {
      literal = negative = true;
    }
    if (!literal || i == 0) continue;
    const Token& prev = tokens[i - 1];
    size_t last = negative ? i + 1 : i;
    const Token* next = last + 1 < tokens.size() ? &tokens[last + 1] : nullptr;
    bool next_ok = next == nullptr || next->kind == Token::kComma || next->kind == Token::kClose ||
                   next->kind == Token::kWord || (next->kind == Token::kOp && next->text == "::");
    bool bind = false;
    if (in_where) {
      if (prev.kind == Token::kOp && std::find(cmp.begin(), cmp.end(), prev.text) != cmp.end()) {
        bind = true;
      } else if (is_word(prev, "LIKE") || is_word(prev, "BETWEEN")) {
        bind = true;
        between = is_word(prev, "BETWEEN");
      } else if (is_word(prev, "AND") && between) {
        bind = true;
        between = false;
      } else if (!in_lists.empty() && in_lists.back() == depth &&
                 (prev.kind == Token::kOpen || prev.kind == Token::kComma)) {
        bind = true;
      }
    } else if (in_values && depth == values_depth &&
               (prev.kind == Token::kOpen || prev.kind == Token::kComma)) {
      bind = next != nullptr && (next->kind == Token::kComma || next->kind == Token::kClose ||
                                 (next->kind == Token::kOp && next->text == "::"));
    }
    if (!bind || !next_ok) continue;
    std::string value;
    if (t.kind == Token::kString) {
      value = t.text.substr(1, t.text.size() - 2);
      for (size_t k = value.find("''"); k != std::string::npos; k = value.find("''", k + 1)) {
        value.erase(k, 1);
      }
    } else {
      value = negative ? "-" + tokens[i + 1].text : t.text;
    }
    p.values.push_back(value);
    out += sql.substr(copied, t.begin - copied);
    out += "$" + std::to_string(p.values.size());
    copied = tokens[last].end;
    i = last;
  }
  out += sql.substr(copied);
  p.sql = out;
  return p;
}

/// A setup statement as the plain server takes it: without pgrange's hash sharding and local
/// index options, and with STORING spelled INCLUDE.
std::string reference_sql(const std::string& sql) {
  static const std::regex hash(R"(\s+USING\s+HASH\b)", std::regex::icase);
  static const std::regex options(R"(\s+WITH\s*\(\s*(bucket_count|local)\s*=\s*\w+\s*\))",
                                  std::regex::icase);
  static const std::regex storing(R"(\bSTORING\s*\()", std::regex::icase);
  std::string out = std::regex_replace(sql, hash, "");
  out = std::regex_replace(out, options, "");
  return std::regex_replace(out, storing, "INCLUDE (");
}

// ---------------------------------------------------------------------------------------------

struct Outcome {
  bool ok = false;
  std::string sqlstate;
  std::string message;
  std::string command;  ///< CommandComplete tag ("SELECT 3", "UPDATE 1")
  std::vector<std::string> columns;
  std::vector<std::string> rows;  ///< each row as one line: values separated by " | "
};

std::string escape(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '|' || c == '\\') {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

Outcome outcome_of(PGresult* res, PGconn* conn) {
  Outcome o;
  if (res == nullptr) {
    o.sqlstate = "<no result>";
    o.message = PQerrorMessage(conn);
    return o;
  }
  ExecStatusType st = PQresultStatus(res);
  o.ok = st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK;
  if (const char* s = PQresultErrorField(res, PG_DIAG_SQLSTATE)) o.sqlstate = s;
  if (const char* m = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY)) o.message = m;
  if (!o.ok && o.sqlstate.empty()) {
    o.sqlstate = "<" + std::string(PQresStatus(st)) + ">";
    o.message = PQresultErrorMessage(res);
  }
  o.command = PQcmdStatus(res);
  for (int c = 0; c < PQnfields(res); ++c) o.columns.push_back(PQfname(res, c));
  for (int r = 0; r < PQntuples(res); ++r) {
    std::string line;
    for (int c = 0; c < PQnfields(res); ++c) {
      if (c > 0) line += " | ";
      line += PQgetisnull(res, r, c) ? "<null>" : escape(PQgetvalue(res, r, c));
    }
    o.rows.push_back(std::move(line));
  }
  PQclear(res);
  // Drain anything else (there should be nothing for one statement).
  while (PGresult* more = PQgetResult(conn)) PQclear(more);
  return o;
}

/// What is compared, as text: status, columns, tag, rows (sorted unless `in_order`).
std::string rendering(const Outcome& o, bool in_order) {
  std::ostringstream s;
  if (!o.ok) {
    s << "error " << o.sqlstate << "\n";
    return s.str();
  }
  s << "command: " << o.command << "\n";
  s << "columns:";
  for (const auto& c : o.columns) s << " " << c;
  s << "\n";
  std::vector<std::string> rows = o.rows;
  if (!in_order) std::sort(rows.begin(), rows.end());
  for (const auto& r : rows) s << r << "\n";
  return s.str();
}

/// A refusal's construct: its message without the shard list.
std::string construct_of(const std::string& message) {
  std::string m = message;
  size_t open = m.find(" (\"");
  if (open != std::string::npos) {
    size_t close = m.find(')', open);
    if (close != std::string::npos) m.erase(open, close + 1 - open);
  }
  return m;
}

class DifferentialTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    PgServer::Options o;
    o.databases = {"app"};
    ProxyConfig cfg;
    for (int i = 0; i < 3; ++i) {
      shards_[i] = PgServer::start(o).release();
      ProxyConfig::Shard s;
      s.name = "s" + std::to_string(i + 1);
      s.dsn = shards_[i]->dsn("app") + " user=postgres";
      s.pool_size = 4;
      cfg.shards.push_back(s);
    }
    reference_ = PgServer::start(o).release();
    cfg.users.push_back({"app", "secret", "scram-sha-256"});
    proxy_ = ProxyProcess::start(cfg).release();

    auto p = pq_connect(proxy_->dsn());
    ASSERT_EQ(PQstatus(p.get()), CONNECTION_OK) << PQerrorMessage(p.get());
    auto r = pq_connect(reference_->dsn("app"));
    ASSERT_EQ(PQstatus(r.get()), CONNECTION_OK) << PQerrorMessage(r.get());
    for (const Statement& s : read_statements(kDir + "setup.sql")) {
      SqlResult a = pq_exec(p.get(), s.sql);
      ASSERT_TRUE(a.ok()) << "pgrange: " << s.sql << ": " << a.message;
      SqlResult b = pq_exec(r.get(), reference_sql(s.sql));
      ASSERT_TRUE(b.ok()) << "reference: " << reference_sql(s.sql) << ": " << b.message;
    }
    static const std::regex scatter_index(R"(ALTER\s+INDEX\s+(\S+@\S+)\s+SCATTER)",
                                          std::regex::icase);
    for (const Statement& s : read_statements(kDir + "splits.sql")) {
      SqlResult a = pq_exec(p.get(), s.sql);
      std::smatch m;
      if (!a.ok() && a.sqlstate == "42601" && std::regex_match(s.sql, m, scatter_index)) {
        ASSERT_NO_FATAL_FAILURE(scatter_index_ranges(p.get(), m[1].str()));
        continue;
      }
      ASSERT_TRUE(a.ok()) << "pgrange: " << s.sql << ": " << a.message;
    }
  }

  /// The ranges of index `table@index` round-robin over the shards, from the second one (the
  /// table's SCATTER starts with the first).
  static void scatter_index_ranges(PGconn* p, const std::string& index) {
    SqlResult ranges = pq_exec(p, "SHOW RANGES FROM INDEX " + index);
    ASSERT_TRUE(ranges.ok()) << index << ": " << ranges.message;
    for (size_t n = 0; n < ranges.rows.size(); ++n) {
      std::string shard = "s" + std::to_string((n + 1) % 3 + 1);
      if (ranges.at(n, 3) == shard) continue;
      std::string sql = "ALTER RANGE " + ranges.at(n, 2) + " RELOCATE TO '" + shard + "'";
      SqlResult moved = pq_exec(p, sql);
      ASSERT_TRUE(moved.ok()) << sql << ": " << moved.message;
    }
  }

  static void TearDownTestSuite() {
    delete proxy_;
    proxy_ = nullptr;
    for (auto*& s : shards_) {
      delete s;
      s = nullptr;
    }
    delete reference_;
    reference_ = nullptr;
  }

  struct Tally {
    int run = 0, identical = 0, refused = 0, mismatched = 0, parameterised = 0;
    std::map<std::string, std::pair<int, int>> groups;  // group → (identical, refused)
    std::vector<std::string> refusals;
    std::map<std::string, int> constructs;
    std::vector<std::string> mismatches;
  };

  /// Runs every statement on both sides and compares; `extended` binds constants as parameters.
  static Tally run_corpus(const std::vector<Statement>& corpus, bool extended) {
    Tally t;
    auto p = pq_connect(proxy_->dsn());
    auto r = pq_connect(reference_->dsn("app"));
    EXPECT_EQ(PQstatus(p.get()), CONNECTION_OK) << PQerrorMessage(p.get());
    EXPECT_EQ(PQstatus(r.get()), CONNECTION_OK) << PQerrorMessage(r.get());
    auto exec = [&](PGconn* c, const Parameterised& q) {
      if (!extended) return outcome_of(PQexec(c, q.sql.c_str()), c);
      std::vector<const char*> values;
      for (const auto& v : q.values) values.push_back(v.c_str());
      return outcome_of(PQexecParams(c, q.sql.c_str(), static_cast<int>(values.size()), nullptr,
                                     values.empty() ? nullptr : values.data(), nullptr, nullptr, 0),
                        c);
    };
    for (const Statement& s : corpus) {
      Parameterised q = extended ? parameterise(s.sql) : Parameterised{s.sql, {}};
      if (!q.values.empty()) ++t.parameterised;
      ++t.run;
      std::string where = "line " + std::to_string(s.line) + " [" + s.group + "] " + q.sql;
      if (!q.values.empty()) {
        where += "  -- params:";
        for (const auto& v : q.values) where += " '" + v + "'";
      }
      // pgrange first: a refused write is not run on the reference, so both keep the same rows.
      Outcome got = exec(p.get(), q);
      if (got.sqlstate == "0A000") {
        ++t.refused;
        ++t.groups[s.group].second;
        ++t.constructs[construct_of(got.message)];
        t.refusals.push_back(where + "\n      → " + got.message);
        continue;
      }
      Outcome want = exec(r.get(), q);
      bool in_order = ordered(s.sql);
      std::string a = rendering(want, in_order), b = rendering(got, in_order);
      if (a == b) {
        ++t.identical;
        ++t.groups[s.group].first;
        continue;
      }
      ++t.mismatched;
      std::string detail = first_difference(a, b);
      if (!got.ok) detail += "\n  pgrange's error: " + got.message;
      if (!want.ok) detail += "\n  reference's error: " + want.message;
      t.mismatches.push_back(where + "\n  " + detail);
    }
    return t;
  }

  static void report(const char* protocol, const Tally& t) {
    std::ostringstream s;
    auto pct = [&](int n) { return t.run == 0 ? 0.0 : 100.0 * n / t.run; };
    s << "\n==== " << protocol << " protocol ====\n";
    s << "refused statements:\n";
    for (const auto& r : t.refusals) s << "  " << r << "\n";
    s << "refusals by construct:\n";
    for (const auto& [c, n] : t.constructs) s << "  " << n << "  " << c << "\n";
    s << "per group (identical / refused):\n";
    for (const auto& [g, n] : t.groups)
      s << "  " << g << ": " << n.first << " / " << n.second << "\n";
    for (const auto& m : t.mismatches) s << "MISMATCH " << m << "\n";
    s << "statements run: " << t.run << " (parameterised: " << t.parameterised << ")"
      << ", identical: " << t.identical << " (" << pct(t.identical) << "%)"
      << ", refused: " << t.refused << " (" << pct(t.refused) << "%)"
      << ", mismatched: " << t.mismatched << "\n";
    std::cout << s.str() << std::flush;
  }

  static std::vector<Statement> corpus() {
    std::vector<Statement> c = read_statements(kDir + "corpus.sql");
    if (const char* extra = std::getenv("PGRANGE_DIFFERENTIAL_EXTRA"); extra && *extra) {
      for (Statement& s : read_statements(extra)) c.push_back(std::move(s));
    }
    return c;
  }

  static void check(const Tally& t) {
    for (const auto& m : t.mismatches) ADD_FAILURE() << "wrong answer from pgrange: " << m;
    EXPECT_GE(t.run, 300);
    // Refusing everything would pass trivially: most of the corpus must be answered.
    EXPECT_GE(t.identical * 10, t.run * 4) << "fewer than 40% identical answers";
  }

  static PgServer* shards_[3];
  static PgServer* reference_;
  static ProxyProcess* proxy_;
};
PgServer* DifferentialTest::shards_[3] = {nullptr, nullptr, nullptr};
PgServer* DifferentialTest::reference_ = nullptr;
ProxyProcess* DifferentialTest::proxy_ = nullptr;

TEST_F(DifferentialTest, ParameterisationBindsTheComparedConstants) {
  Parameterised p = parameterise(
      "SELECT x, 'lit' FROM t WHERE a = 5 AND b <= 'it''s' AND c IN (1, -2, 'z') AND d BETWEEN 3 "
      "AND 4 AND e LIKE 'ab%' AND u = 'x'::uuid AND f + 1 = 2 ORDER BY x LIMIT 3");
  EXPECT_EQ(p.sql,
            "SELECT x, 'lit' FROM t WHERE a = $1 AND b <= $2 AND c IN ($3, $4, $5) AND d BETWEEN "
            "$6 AND $7 AND e LIKE $8 AND u = $9::uuid AND f + 1 = $10 ORDER BY x LIMIT 3");
  EXPECT_EQ(p.values,
            (std::vector<std::string>{"5", "it's", "1", "-2", "z", "3", "4", "ab%", "x", "2"}));
  Parameterised ins = parameterise("INSERT INTO t (a, b) VALUES (1, 'x'), (-2, 'y' || 'z')");
  EXPECT_EQ(ins.sql, "INSERT INTO t (a, b) VALUES ($1, $2), ($3, 'y' || 'z')");
  EXPECT_TRUE(ordered("SELECT * FROM t WHERE a IN (SELECT 1 ORDER BY 1) ORDER BY a"));
  EXPECT_FALSE(ordered("SELECT * FROM t WHERE a IN (SELECT 1 ORDER BY 1)"));
  EXPECT_FALSE(ordered("SELECT * FROM t ORDER BY grp /*ties*/"));
}

TEST_F(DifferentialTest, SimpleProtocolAnswersLikePostgres) {
  Tally t = run_corpus(corpus(), false);
  report("simple", t);
  check(t);
}

TEST_F(DifferentialTest, ExtendedProtocolWithParametersAnswersLikePostgres) {
  Tally t = run_corpus(corpus(), true);
  report("extended", t);
  check(t);
  EXPECT_GE(t.parameterised, 100);
}

}  // namespace
}  // namespace pgrange::testing
