#include "sql/quoting.hpp"

namespace pgrange::sql {

std::string quote_ident(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string quote_literal(std::string_view s) {
  bool backslash = s.find('\\') != std::string_view::npos;
  std::string out = backslash ? "E'" : "'";
  for (char c : s) {
    if (c == '\'') {
      out += "''";
    } else if (c == '\\') {
      out += "\\\\";
    } else {
      out.push_back(c);
    }
  }
  out.push_back('\'');
  return out;
}

}  // namespace pgrange::sql
