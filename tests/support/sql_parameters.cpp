#include "tests/support/sql_parameters.hpp"

#include <algorithm>
#include <cctype>

namespace pgrange::testing {
namespace {

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

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

bool is_word(const Token& t, const char* word) {
  return t.kind == Token::kWord && upper(t.text) == word;
}

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
    if (t.kind == Token::kNumber && !negative &&
        (is_word(prev, "LIMIT") || is_word(prev, "OFFSET"))) {
      bind = true;  // what ORMs page with: LIMIT $1 OFFSET $2
    } else if (in_where) {
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

}  // namespace pgrange::testing
