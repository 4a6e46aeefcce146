#include "routing/key_float.hpp"

#include <strings.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace pgrange::routing {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

Result<double> parse_float_text(std::string_view text, bool single) {
  const char* type_name = single ? "real" : "double precision";
  std::string_view t = trim(text);
  auto syntax = [&] {
    return fail(sqlstate::kInvalidTextRepresentation,
                std::string("invalid input syntax for type ") + type_name + ": \"" +
                    std::string(text) + "\"");
  };
  if (iequals(t, "NaN")) return std::numeric_limits<double>::quiet_NaN();
  for (std::string_view inf : {"Infinity", "+Infinity", "inf", "+inf"}) {
    if (iequals(t, inf)) return std::numeric_limits<double>::infinity();
  }
  for (std::string_view inf : {"-Infinity", "-inf"}) {
    if (iequals(t, inf)) return -std::numeric_limits<double>::infinity();
  }
  // PostgreSQL hands the rest to strtod/strtof (C locale), so do the same to accept exactly
  // what it accepts (hex floats included); the words above were already handled.
  if (t.empty()) return syntax();
  std::string buf(t);
  char* end = nullptr;
  errno = 0;
  double v =
      single ? static_cast<double>(std::strtof(buf.c_str(), &end)) : std::strtod(buf.c_str(), &end);
  if (end != buf.c_str() + buf.size() || end == buf.c_str()) return syntax();
  if (errno == ERANGE && (v == 0 || std::isinf(v))) {
    return fail(sqlstate::kNumericValueOutOfRange,
                "\"" + std::string(t) + "\" is out of range for type " + type_name);
  }
  // strtod also takes "nan(...)"/"infinity" spellings PostgreSQL rejected above.
  if (std::isnan(v) || std::isinf(v)) return syntax();
  return v;
}

std::string format_float_text(double value, bool single) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  auto res = single ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(value),
                                    std::chars_format::scientific)
                    : std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string_view sci(buf, res.ptr - buf);
  // Split "-d.ddde±xx" into sign, digits and the decimal exponent of the first digit.
  bool negative = sci.front() == '-';
  if (negative) sci.remove_prefix(1);
  size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  int exp = 0;
  std::from_chars(sci.data() + e + 1 + (sci[e + 1] == '+' ? 1 : 0), sci.data() + sci.size(), exp);
  std::string out = negative ? "-" : "";
  // Ryu-in-PostgreSQL switches to exponent form with the same thresholds as printf %g.
  const int fixed_limit = single ? 6 : 15;
  if (exp >= -4 && exp < fixed_limit) {
    int n = static_cast<int>(digits.size());
    if (exp < 0) {
      out += "0.";
      out.append(static_cast<size_t>(-exp - 1), '0');
      out += digits;
    } else if (exp + 1 >= n) {
      out += digits;
      out.append(static_cast<size_t>(exp + 1 - n), '0');
    } else {
      out += digits.substr(0, exp + 1);
      out += '.';
      out += digits.substr(exp + 1);
    }
    return out;
  }
  out += digits[0];
  if (digits.size() > 1) {
    out += '.';
    out += digits.substr(1);
  }
  out += exp < 0 ? "e-" : "e+";
  int a = exp < 0 ? -exp : exp;
  if (a < 10) out += '0';
  out += std::to_string(a);
  return out;
}

}  // namespace pgrange::routing
