#include "routing/keys/key_decimal.hpp"

#include <strings.h>

#include "common/text.hpp"
#include "routing/keys/key_encoding.hpp"

namespace pgrange::routing {
namespace {

// numeric's storage limits: 131072 digits before the point, 16383 after (NUMERIC_DSCALE_MAX).
constexpr int64_t kMaxIntegerDigits = 131072;
constexpr int64_t kMaxFractionDigits = 16383;

Result<Decimal> check_range(Decimal d) {
  if (d.kind == Decimal::Kind::kNegative || d.kind == Decimal::Kind::kPositive) {
    int64_t fraction_digits = static_cast<int64_t>(d.digits.size()) - d.exponent;
    if (d.exponent > kMaxIntegerDigits || fraction_digits > kMaxFractionDigits) {
      return fail(sqlstate::kNumericValueOutOfRange, "value overflows numeric format");
    }
  }
  return d;
}

}  // namespace

Decimal make_decimal(bool negative, std::string digits, int64_t exponent) {
  size_t first = digits.find_first_not_of('0');
  Decimal d;
  if (first == std::string::npos) return d;  // every zero is the same value
  size_t last = digits.find_last_not_of('0');
  d.kind = negative ? Decimal::Kind::kNegative : Decimal::Kind::kPositive;
  d.exponent = exponent - static_cast<int64_t>(first);
  d.digits = digits.substr(first, last - first + 1);
  return d;
}

Result<Decimal> parse_decimal_text(std::string_view text) {
  std::string_view t = text;
  while (!t.empty() && is_space(t.front())) t.remove_prefix(1);
  while (!t.empty() && is_space(t.back())) t.remove_suffix(1);
  auto syntax = [&] {
    return fail(sqlstate::kInvalidTextRepresentation,
                "invalid input syntax for type numeric: \"" + std::string(text) + "\"");
  };
  Decimal special;
  if (iequals(t, "NaN")) {
    special.kind = Decimal::Kind::kNaN;
    return special;
  }
  for (std::string_view w : {"Infinity", "+Infinity", "inf", "+inf"}) {
    if (iequals(t, w)) {
      special.kind = Decimal::Kind::kPosInfinity;
      return special;
    }
  }
  for (std::string_view w : {"-Infinity", "-inf"}) {
    if (iequals(t, w)) {
      special.kind = Decimal::Kind::kNegInfinity;
      return special;
    }
  }
  size_t i = 0;
  bool negative = false;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) negative = t[i++] == '-';
  std::string digits;
  int64_t int_digits = 0;
  bool seen_point = false;
  bool any_digit = false;
  for (; i < t.size(); ++i) {
    char c = t[i];
    if (c >= '0' && c <= '9') {
      digits.push_back(c);
      any_digit = true;
      if (!seen_point) ++int_digits;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!any_digit) return syntax();
  int64_t exp10 = 0;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) exp_negative = t[i++] == '-';
    if (i >= t.size()) return syntax();
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) {
      exp10 = exp10 * 10 + (t[i] - '0');
      // PostgreSQL rejects |exponent| >= INT_MAX/2 as an overflow before anything else.
      if (exp10 >= 1073741823) {
        return fail(sqlstate::kNumericValueOutOfRange, "value overflows numeric format");
      }
    }
    if (exp_negative) exp10 = -exp10;
  }
  if (i != t.size()) return syntax();
  return check_range(make_decimal(negative, std::move(digits), int_digits + exp10));
}

Result<Decimal> parse_decimal_binary(std::string_view bytes) {
  auto bad = [] { return fail("22P03", "invalid binary representation for type numeric"); };
  auto u16 = [&](size_t at) {
    return static_cast<uint16_t>((static_cast<uint8_t>(bytes[at]) << 8) |
                                 static_cast<uint8_t>(bytes[at + 1]));
  };
  if (bytes.size() < 8) return bad();
  int ndigits = static_cast<int16_t>(u16(0));
  int weight = static_cast<int16_t>(u16(2));
  uint16_t sign = u16(4);
  if (ndigits < 0 || bytes.size() != 8 + 2 * static_cast<size_t>(ndigits)) return bad();
  Decimal special;
  switch (sign) {
    case 0xC000:
      special.kind = Decimal::Kind::kNaN;
      return special;
    case 0xD000:
      special.kind = Decimal::Kind::kPosInfinity;
      return special;
    case 0xF000:
      special.kind = Decimal::Kind::kNegInfinity;
      return special;
    case 0x0000:
    case 0x4000:
      break;
    default:
      return bad();
  }
  std::string digits;
  for (int k = 0; k < ndigits; ++k) {
    uint16_t g = u16(8 + 2 * k);
    if (g >= 10000) return bad();
    char group[4] = {static_cast<char>('0' + g / 1000), static_cast<char>('0' + g / 100 % 10),
                     static_cast<char>('0' + g / 10 % 10), static_cast<char>('0' + g % 10)};
    digits.append(group, 4);
  }
  // The first base-10000 digit has place value 10000^weight, i.e. it covers decimal places
  // 4*weight+3 .. 4*weight, so the string is 0.<digits> x 10^(4*(weight+1)).
  return check_range(make_decimal(sign == 0x4000, std::move(digits), 4 * (int64_t{weight} + 1)));
}

std::string format_decimal_text(const Decimal& d) {
  switch (d.kind) {
    case Decimal::Kind::kNaN:
      return "NaN";
    case Decimal::Kind::kPosInfinity:
      return "Infinity";
    case Decimal::Kind::kNegInfinity:
      return "-Infinity";
    case Decimal::Kind::kZero:
      return "0";
    default:
      break;
  }
  std::string out = d.kind == Decimal::Kind::kNegative ? "-" : "";
  int64_t n = static_cast<int64_t>(d.digits.size());
  if (d.exponent <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-d.exponent), '0');
    out += d.digits;
  } else if (d.exponent >= n) {
    out += d.digits;
    out.append(static_cast<size_t>(d.exponent - n), '0');
  } else {
    out += d.digits.substr(0, d.exponent);
    out += '.';
    out += d.digits.substr(d.exponent);
  }
  return out;
}

void append_decimal(std::string& out, const Decimal& d, bool descending) {
  size_t start = out.size();
  out.push_back(static_cast<char>(d.kind));
  if (d.kind == Decimal::Kind::kPositive) {
    // Bigger exponent = bigger magnitude; digits as d+1 and a 0x00 terminator so that a
    // mantissa sorts before its extensions (trailing zeros never occur after normalising).
    append_varint(out, d.exponent);
    for (char c : d.digits) out.push_back(static_cast<char>(c - '0' + 1));
    out.push_back('\0');
  } else if (d.kind == Decimal::Kind::kNegative) {
    // For negatives a bigger magnitude is a smaller value: negate the exponent and invert
    // digits and terminator.
    append_varint(out, -d.exponent);
    for (char c : d.digits) out.push_back(static_cast<char>(0xff - (c - '0' + 1)));
    out.push_back(static_cast<char>(0xff));
  }
  if (descending) {
    for (size_t i = start; i < out.size(); ++i) out[i] = static_cast<char>(~out[i]);
  }
}

Result<Decimal> read_decimal(std::string_view& in, bool descending) {
  // Undo the descending inversion on a private copy of the bytes this value can span.
  const uint8_t flip = descending ? 0xff : 0x00;
  auto byte_at = [&](size_t i) { return static_cast<uint8_t>(static_cast<uint8_t>(in[i]) ^ flip); };
  if (in.empty()) return malformed_key("missing numeric");
  Decimal d;
  uint8_t kind = byte_at(0);
  if (kind < 1 || kind > 6) return malformed_key("bad numeric class");
  d.kind = static_cast<Decimal::Kind>(kind);
  if (d.kind != Decimal::Kind::kPositive && d.kind != Decimal::Kind::kNegative) {
    in.remove_prefix(1);
    return d;
  }
  bool negative = d.kind == Decimal::Kind::kNegative;
  // The exponent varint is at most 9 bytes; un-invert it into a scratch buffer to parse.
  std::string scratch;
  for (size_t i = 1; i < in.size() && i <= 9; ++i) scratch.push_back(static_cast<char>(byte_at(i)));
  std::string_view sv = scratch;
  auto e = read_varint(sv);
  if (!e) return tl::unexpected(e.error());
  size_t pos = 1 + (scratch.size() - sv.size());
  if (*e == INT64_MIN) return malformed_key("numeric exponent out of range");
  d.exponent = negative ? -*e : *e;
  for (;; ++pos) {
    if (pos >= in.size()) return malformed_key("unterminated numeric");
    uint8_t b = byte_at(pos);
    if (negative) b = static_cast<uint8_t>(0xff - b);
    if (b == 0) break;
    if (b > 10) return malformed_key("bad numeric digit");
    d.digits.push_back(static_cast<char>('0' + b - 1));
  }
  if (d.digits.empty() || d.digits.front() == '0' || d.digits.back() == '0') {
    return malformed_key("numeric not normalised");
  }
  // Keys only ever hold values numeric can store; refuse others so printing stays bounded.
  if (!check_range(d)) return malformed_key("numeric out of range");
  in.remove_prefix(pos + 1);
  return d;
}

}  // namespace pgrange::routing
