#include "routing/keys/key_float.hpp"

#include <strings.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "common/text.hpp"

namespace pgrange::routing {
namespace {}  // namespace

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
    // Appended piece by piece: g++ 12 -O3 warns (-Wrestrict) on "\"" + std::string(…).
    std::string message = "\"";
    message += t;
    message += "\" is out of range for type ";
    message += type_name;
    return fail(sqlstate::kNumericValueOutOfRange, std::move(message));
  }
  // strtod also takes "nan(...)"/"infinity" spellings PostgreSQL rejected above.
  if (std::isnan(v) || std::isinf(v)) return syntax();
  return v;
}

namespace {

// Splits to_chars' scientific output ("d.ddde±xx", no sign) into digits and exponent.
void split_scientific(std::string_view sci, std::string& digits, int& exp) {
  size_t e = sci.find('e');
  digits.clear();
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  exp = 0;
  std::from_chars(sci.data() + e + 1 + (sci[e + 1] == '+' ? 1 : 0), sci.data() + sci.size(), exp);
}

// True when the decimal digits x 10^exp equal `mid` exactly (glibc prints exact expansions).
bool equals_exactly(const std::string& digits, int exp, long double mid) {
  char buf[160];
  int n = std::snprintf(buf, sizeof buf, "%.110Le", mid);
  std::string mid_digits;
  int mid_exp;
  split_scientific(std::string_view(buf, static_cast<size_t>(n)), mid_digits, mid_exp);
  return mid_digits == digits && mid_exp == exp;
}

// The digits PostgreSQL's Ryu prints: the shortest that round-trip, but (unlike
// std::to_chars) never a decimal exactly halfway to a neighbouring float, since PostgreSQL
// does not count on the reader rounding half to even. Then the next precision up is used.
void pg_shortest_digits(double value, bool single, std::string& digits, int& exp) {
  const double v = std::abs(value);
  long double lo, hi;
  if (single) {
    auto f = static_cast<float>(v);
    lo = (static_cast<long double>(f) + std::nextafter(f, 0.0f)) / 2;
    hi = (static_cast<long double>(f) + std::nextafter(f, HUGE_VALF)) / 2;
  } else {
    lo = (static_cast<long double>(v) + std::nextafter(v, 0.0)) / 2;
    hi = (static_cast<long double>(v) + std::nextafter(v, HUGE_VAL)) / 2;
  }
  char buf[64];
  auto res = single ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v),
                                    std::chars_format::scientific)
                    : std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  split_scientific(std::string_view(buf, res.ptr - buf), digits, exp);
  if (v == 0 || (!equals_exactly(digits, exp, lo) && !equals_exactly(digits, exp, hi))) return;
  for (int precision = static_cast<int>(digits.size()); precision < 20; ++precision) {
    res = single
              ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v),
                              std::chars_format::scientific, precision)
              : std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific, precision);
    *res.ptr = '\0';
    bool round_trips = single ? std::strtof(buf, nullptr) == static_cast<float>(v)
                              : std::strtod(buf, nullptr) == v;
    split_scientific(std::string_view(buf, res.ptr - buf), digits, exp);
    if (round_trips && !equals_exactly(digits, exp, lo) && !equals_exactly(digits, exp, hi)) return;
  }
}

}  // namespace

std::string format_float_text(double value, bool single) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  const bool negative = std::signbit(value);
  std::string digits;
  int exp = 0;
  pg_shortest_digits(value, single, digits, exp);
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
