#include "tests/support/statement_file.hpp"

#include <fstream>
#include <stdexcept>

namespace pgrange::testing {
namespace {

std::string trimmed(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e + 1 - b);
}

/// The value of directive `name` when `text` is `-- name: value`.
bool directive(const std::string& text, const std::string& name, std::string* value) {
  std::string prefix = "-- " + name + ":";
  if (text.rfind(prefix, 0) != 0) return false;
  *value = trimmed(text.substr(prefix.size()));
  return true;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    std::string item = trimmed(s.substr(start, comma - start));
    if (!item.empty()) out.push_back(item);
    start = comma + 1;
  }
  return out;
}

}  // namespace

std::vector<Statement> read_statements(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<Statement> out;
  Statement next;  // the directives in force for the next statement
  std::string line, pending;
  int number = 0, first = 0;
  auto finish = [&](std::string sql) {
    if (!sql.empty() && sql.back() == ';') sql.pop_back();
    Statement s = next;
    s.sql = std::move(sql);
    s.line = first;
    out.push_back(std::move(s));
    next.provides.clear();
    next.unless.clear();
  };
  while (std::getline(in, line)) {
    ++number;
    std::string text = trimmed(line);
    if (text.empty()) continue;
    if (pending.empty() && text.rfind("--", 0) == 0) {
      std::string value;
      if (directive(text, "group", &value)) {
        next = Statement{};
        next.group = value;
      } else if (directive(text, "requires", &value)) {
        for (auto& f : split_list(value)) next.requires_features.push_back(f);
      } else if (directive(text, "expect", &value)) {
        if (value != "run")
          throw std::runtime_error(path + ":" + std::to_string(number) + ": unknown expectation '" +
                                   value + "'");
        next.must_run = true;
      } else if (directive(text, "provides", &value)) {
        next.provides = value;
      } else if (directive(text, "unless", &value)) {
        next.unless = value;
      }
      continue;
    }
    if (pending.empty() && text[0] == '\\') {
      first = number;
      finish(text.substr(1));
      out.back().meta = true;
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
      finish(pending);
      pending.clear();
    }
  }
  if (!pending.empty()) finish(pending);
  return out;
}

}  // namespace pgrange::testing
