#include "routing/keys/pg_numeric.hpp"

#include <algorithm>
#include <vector>

#include "common/text.hpp"

namespace pgrange::routing {
namespace {

// numeric's storage format (numeric.c): an int16 weight in base-10000 digits allows 32768
// such digits, 131072 decimal ones, before the point; the display scale has 14 bits.
constexpr int64_t kMaxIntegerDigits = 131072;
constexpr int kMaxDisplayScaleStored = 0x3FFF;
// select_div_scale(): at least this many significant digits, within these display scales.
constexpr int kMinSigDigits = 16;
constexpr int kMinDisplayScale = 0;
constexpr int kMaxDisplayScale = 1000;
constexpr int kDecDigits = 4;  // decimal digits per base-10000 digit
// Exponents beyond this are refused as bad input before any digit string is built.
constexpr int64_t kMaxExponent = 1'000'000;

// Natural numbers as little-endian base-10^9 limbs without high zero limbs (zero is empty):
// enough arithmetic for an exact long division.
using Limbs = std::vector<uint32_t>;
constexpr uint64_t kLimbBase = 1'000'000'000;
constexpr int kLimbDigits = 9;

Limbs limbs_from_digits(std::string_view digits) {
  Limbs out;
  for (size_t end = digits.size(); end > 0;) {
    size_t begin = end >= kLimbDigits ? end - kLimbDigits : 0;
    uint32_t limb = 0;
    for (size_t i = begin; i < end; ++i) limb = limb * 10 + static_cast<uint32_t>(digits[i] - '0');
    out.push_back(limb);
    end = begin;
  }
  while (!out.empty() && out.back() == 0) out.pop_back();
  return out;
}

std::string digits_from_limbs(const Limbs& limbs) {
  if (limbs.empty()) return {};
  std::string out = std::to_string(limbs.back());
  for (size_t i = limbs.size() - 1; i-- > 0;) {
    std::string part = std::to_string(limbs[i]);
    out.append(kLimbDigits - part.size(), '0');
    out += part;
  }
  return out;
}

int compare_limbs(const Limbs& a, const Limbs& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  for (size_t i = a.size(); i-- > 0;) {
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

void multiply_small(Limbs& a, uint32_t factor) {
  uint64_t carry = 0;
  for (uint32_t& limb : a) {
    uint64_t p = uint64_t{limb} * factor + carry;
    limb = static_cast<uint32_t>(p % kLimbBase);
    carry = p / kLimbBase;
  }
  if (carry != 0) a.push_back(static_cast<uint32_t>(carry));
  while (!a.empty() && a.back() == 0) a.pop_back();
}

void add_one(Limbs& a) {
  for (uint32_t& limb : a) {
    if (++limb < kLimbBase) return;
    limb = 0;
  }
  a.push_back(1);
}

// Divides in place by a small divisor and returns the remainder.
uint32_t divide_small(Limbs& a, uint32_t divisor) {
  uint64_t rem = 0;
  for (size_t i = a.size(); i-- > 0;) {
    uint64_t cur = rem * kLimbBase + a[i];
    a[i] = static_cast<uint32_t>(cur / divisor);
    rem = cur % divisor;
  }
  while (!a.empty() && a.back() == 0) a.pop_back();
  return static_cast<uint32_t>(rem);
}

// Long division (Knuth, TAOCP vol. 2, 4.3.1 algorithm D) in base 10^9: quotient and
// remainder of num / den, den non-zero.
void divide_limbs(const Limbs& num, const Limbs& den, Limbs& quotient, Limbs& remainder) {
  if (compare_limbs(num, den) < 0) {
    quotient.clear();
    remainder = num;
    return;
  }
  if (den.size() == 1) {
    quotient = num;
    uint32_t r = divide_small(quotient, den[0]);
    remainder.clear();
    if (r != 0) remainder.push_back(r);
    return;
  }
  // Scale both so that the divisor's top limb is at least half the base, which keeps each
  // estimated quotient limb at most two above the true one.
  const auto factor = static_cast<uint32_t>(kLimbBase / (uint64_t{den.back()} + 1));
  Limbs u = num;
  Limbs v = den;
  multiply_small(u, factor);
  multiply_small(v, factor);
  const size_t n = v.size();
  if (u.size() == num.size()) u.push_back(0);
  const size_t quotient_size = u.size() - n;
  quotient.assign(quotient_size, 0);
  for (size_t j = quotient_size; j-- > 0;) {
    uint64_t top = uint64_t{u[j + n]} * kLimbBase + u[j + n - 1];
    uint64_t qhat = top / v[n - 1];
    uint64_t rhat = top % v[n - 1];
    while (qhat >= kLimbBase || qhat * v[n - 2] > rhat * kLimbBase + u[j + n - 2]) {
      --qhat;
      rhat += v[n - 1];
      if (rhat >= kLimbBase) break;
    }
    // u[j..j+n] -= qhat * v
    uint64_t carry = 0;
    int64_t borrow = 0;
    for (size_t i = 0; i < n; ++i) {
      uint64_t p = qhat * v[i] + carry;
      carry = p / kLimbBase;
      int64_t t = int64_t{u[i + j]} - static_cast<int64_t>(p % kLimbBase) - borrow;
      borrow = t < 0 ? 1 : 0;
      u[i + j] = static_cast<uint32_t>(t < 0 ? t + static_cast<int64_t>(kLimbBase) : t);
    }
    int64_t t = int64_t{u[j + n]} - static_cast<int64_t>(carry) - borrow;
    if (t < 0) {
      // qhat was one too large: add v back.
      u[j + n] = static_cast<uint32_t>(t + static_cast<int64_t>(kLimbBase));
      --qhat;
      uint64_t c = 0;
      for (size_t i = 0; i < n; ++i) {
        uint64_t s = uint64_t{u[i + j]} + v[i] + c;
        u[i + j] = static_cast<uint32_t>(s % kLimbBase);
        c = s / kLimbBase;
      }
      u[j + n] = static_cast<uint32_t>((u[j + n] + c) % kLimbBase);
    } else {
      u[j + n] = static_cast<uint32_t>(t);
    }
    quotient[j] = static_cast<uint32_t>(qhat);
  }
  while (!quotient.empty() && quotient.back() == 0) quotient.pop_back();
  u.resize(n);
  while (!u.empty() && u.back() == 0) u.pop_back();
  divide_small(u, factor);
  remainder = std::move(u);
}

tl::unexpected<Error> overflow() {
  return fail(sqlstate::kNumericValueOutOfRange, "value overflows numeric format");
}

// Compares two magnitudes coefficient x 10^-scale (coefficients without leading zeros).
int compare_magnitude(const std::string& a, int a_scale, const std::string& b, int b_scale) {
  if (a.empty() || b.empty()) return a.empty() ? (b.empty() ? 0 : -1) : 1;
  // Decimal position of the leading digit.
  int64_t a_top = static_cast<int64_t>(a.size()) - 1 - a_scale;
  int64_t b_top = static_cast<int64_t>(b.size()) - 1 - b_scale;
  if (a_top != b_top) return a_top < b_top ? -1 : 1;
  size_t n = std::max(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    char x = i < a.size() ? a[i] : '0';
    char y = i < b.size() ? b[i] : '0';
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

// The coefficient re-expressed at a larger scale (appends zeros).
std::string rescale(const std::string& coefficient, int from, int to) {
  if (coefficient.empty()) return {};
  return coefficient + std::string(static_cast<size_t>(to - from), '0');
}

// Subtracts decimal digit strings, a >= b, both at the same scale; strips leading zeros.
std::string subtract_digits(const std::string& a, const std::string& b) {
  std::string out(a.size(), '0');
  int borrow = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    int x = a[a.size() - 1 - i] - '0' - borrow;
    int y = i < b.size() ? b[b.size() - 1 - i] - '0' : 0;
    borrow = x < y ? 1 : 0;
    out[a.size() - 1 - i] = static_cast<char>('0' + x - y + borrow * 10);
  }
  size_t first = out.find_first_not_of('0');
  return first == std::string::npos ? std::string() : out.substr(first);
}

std::string add_digits(const std::string& a, const std::string& b) {
  std::string out;
  out.reserve(std::max(a.size(), b.size()) + 1);
  int carry = 0;
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    int x = i < a.size() ? a[a.size() - 1 - i] - '0' : 0;
    int y = i < b.size() ? b[b.size() - 1 - i] - '0' : 0;
    int s = x + y + carry;
    out.push_back(static_cast<char>('0' + s % 10));
    carry = s / 10;
  }
  if (carry) out.push_back('1');
  std::reverse(out.begin(), out.end());
  size_t first = out.find_first_not_of('0');
  return first == std::string::npos ? std::string() : out.substr(first);
}

// Weight (base-10000) and first base-10000 digit of coefficient x 10^-scale, as
// select_div_scale() reads them from the stored, stripped value; zero gives (0, 0).
void base_10000_head(const std::string& coefficient, int scale, int64_t& weight, int& first) {
  weight = 0;
  first = 0;
  if (coefficient.empty()) return;
  const int64_t top = static_cast<int64_t>(coefficient.size()) - 1 - scale;
  weight = top >= 0 ? top / kDecDigits : -((-top + kDecDigits - 1) / kDecDigits);
  const int64_t group = top - weight * kDecDigits + 1;  // decimal digits in the first one
  for (int64_t i = 0; i < group; ++i) {
    first = first * 10 + (i < static_cast<int64_t>(coefficient.size())
                              ? coefficient[static_cast<size_t>(i)] - '0'
                              : 0);
  }
}

}  // namespace

Result<PgNumeric> PgNumeric::parse(std::string_view text) {
  std::string_view t = trim(text);
  auto syntax = [&] {
    return fail(sqlstate::kInvalidTextRepresentation,
                "invalid input syntax for type numeric: \"" + std::string(text) + "\"");
  };
  if (iequals(t, "NaN")) return special(Kind::kNaN);
  for (std::string_view w : {"Infinity", "+Infinity", "inf", "+inf"}) {
    if (iequals(t, w)) return special(Kind::kPosInfinity);
  }
  for (std::string_view w : {"-Infinity", "-inf"}) {
    if (iequals(t, w)) return special(Kind::kNegInfinity);
  }
  size_t i = 0;
  bool negative = false;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) negative = t[i++] == '-';
  std::string digits;
  int64_t fraction_digits = 0;
  bool seen_point = false;
  bool any_digit = false;
  for (; i < t.size(); ++i) {
    char c = t[i];
    if (c >= '0' && c <= '9') {
      if (!digits.empty() || c != '0') digits.push_back(c);
      any_digit = true;
      if (seen_point) ++fraction_digits;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!any_digit) return syntax();
  int64_t exponent = 0;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) exp_negative = t[i++] == '-';
    if (i == t.size() || t[i] < '0' || t[i] > '9') return syntax();
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) {
      exponent = exponent * 10 + (t[i] - '0');
      if (exponent > kMaxExponent) return overflow();
    }
    if (exp_negative) exponent = -exponent;
  }
  if (i != t.size()) return syntax();
  PgNumeric out;
  // value = digits x 10^(exponent - fraction_digits)
  int64_t scale = fraction_digits - exponent;
  if (scale < 0) {
    if (!digits.empty()) digits.append(static_cast<size_t>(-scale), '0');
    scale = 0;
  }
  if (scale > kMaxDisplayScaleStored ||
      static_cast<int64_t>(digits.size()) - scale > kMaxIntegerDigits) {
    return overflow();
  }
  out.coefficient_ = std::move(digits);
  out.dscale_ = static_cast<int>(scale);
  out.negative_ = negative && !out.coefficient_.empty();
  return out;
}

std::optional<PgNumeric> PgNumeric::from_binary(std::string_view bytes) {
  auto u16 = [&bytes](size_t at) {
    return static_cast<uint16_t>(static_cast<uint8_t>(bytes[at]) << 8 |
                                 static_cast<uint8_t>(bytes[at + 1]));
  };
  if (bytes.size() < 8) return std::nullopt;
  const int ndigits = static_cast<int16_t>(u16(0));
  const int weight = static_cast<int16_t>(u16(2));
  const uint16_t sign = u16(4);
  const int dscale = static_cast<int16_t>(u16(6));
  if (ndigits < 0 || bytes.size() != 8 + 2 * static_cast<size_t>(ndigits)) return std::nullopt;
  switch (sign) {
    case 0xC000:
      return special(Kind::kNaN);
    case 0xD000:
      return special(Kind::kPosInfinity);
    case 0xF000:
      return special(Kind::kNegInfinity);
    case 0x0000:
    case 0x4000:
      break;
    default:
      return std::nullopt;
  }
  if (dscale < 0 || dscale > 0x3FFF) return std::nullopt;
  // The digits as decimal text, the point after weight + 1 groups, then numeric's parser.
  std::string digits;
  for (int i = 0; i < ndigits; ++i) {
    uint16_t d = u16(8 + 2 * static_cast<size_t>(i));
    if (d >= 10000) return std::nullopt;
    for (int div = 1000; div > 0; div /= 10)
      digits.push_back(static_cast<char>('0' + d / div % 10));
  }
  long point = (static_cast<long>(weight) + 1) * 4;
  if (point < 0) {
    digits.insert(0, static_cast<size_t>(-point), '0');
    point = 0;
  }
  if (static_cast<size_t>(point) > digits.size()) digits.resize(static_cast<size_t>(point), '0');
  std::string text = sign == 0x4000 ? "-" : "";
  text += point == 0 ? "0" : digits.substr(0, static_cast<size_t>(point));
  if (dscale > 0) {
    std::string fraction = digits.substr(static_cast<size_t>(point));
    fraction.resize(static_cast<size_t>(dscale), '0');
    text += "." + fraction;
  }
  auto n = parse(text);
  if (!n) return std::nullopt;
  return std::move(*n);
}

PgNumeric PgNumeric::from_int64(int64_t value) {
  PgNumeric out;
  uint64_t magnitude = value < 0 ? ~static_cast<uint64_t>(value) + 1 : static_cast<uint64_t>(value);
  if (magnitude != 0) out.coefficient_ = std::to_string(magnitude);
  out.negative_ = value < 0;
  return out;
}

PgNumeric PgNumeric::special(Kind kind) {
  PgNumeric out;
  out.kind_ = kind;
  return out;
}

std::string PgNumeric::to_string() const {
  switch (kind_) {
    case Kind::kNaN:
      return "NaN";
    case Kind::kPosInfinity:
      return "Infinity";
    case Kind::kNegInfinity:
      return "-Infinity";
    case Kind::kFinite:
      break;
  }
  std::string digits = coefficient_;
  const auto scale = static_cast<size_t>(dscale_);
  if (digits.size() < scale + 1) digits.insert(0, scale + 1 - digits.size(), '0');
  if (scale > 0) digits.insert(digits.size() - scale, 1, '.');
  if (negative_) digits.insert(0, 1, '-');
  return digits;
}

int PgNumeric::compare(const PgNumeric& other) const {
  // The order of the classes: -Infinity < finite < +Infinity < NaN.
  auto rank = [](Kind k) {
    switch (k) {
      case Kind::kNegInfinity:
        return 0;
      case Kind::kFinite:
        return 1;
      case Kind::kPosInfinity:
        return 2;
      case Kind::kNaN:
        return 3;
    }
    return 3;
  };
  if (kind_ != other.kind_) return rank(kind_) < rank(other.kind_) ? -1 : 1;
  if (kind_ != Kind::kFinite) return 0;
  if (negative_ != other.negative_) return negative_ ? -1 : 1;
  int c = compare_magnitude(coefficient_, dscale_, other.coefficient_, other.dscale_);
  return negative_ ? -c : c;
}

Result<PgNumeric> PgNumeric::add(const PgNumeric& other) const {
  if (kind_ != Kind::kFinite || other.kind_ != Kind::kFinite) {
    if (kind_ == Kind::kNaN || other.kind_ == Kind::kNaN) return special(Kind::kNaN);
    if (kind_ != Kind::kFinite && other.kind_ != Kind::kFinite && kind_ != other.kind_) {
      return special(Kind::kNaN);
    }
    return special(kind_ != Kind::kFinite ? kind_ : other.kind_);
  }
  const int scale = std::max(dscale_, other.dscale_);
  std::string a = rescale(coefficient_, dscale_, scale);
  std::string b = rescale(other.coefficient_, other.dscale_, scale);
  PgNumeric out;
  out.dscale_ = scale;
  if (negative_ == other.negative_) {
    out.coefficient_ = add_digits(a, b);
    out.negative_ = negative_;
  } else {
    int c = compare_magnitude(a, scale, b, scale);
    if (c == 0) return out;  // zero is never negative
    out.coefficient_ = c > 0 ? subtract_digits(a, b) : subtract_digits(b, a);
    out.negative_ = c > 0 ? negative_ : other.negative_;
  }
  out.negative_ = out.negative_ && !out.coefficient_.empty();
  if (static_cast<int64_t>(out.coefficient_.size()) - scale > kMaxIntegerDigits) return overflow();
  return out;
}

Result<PgNumeric> PgNumeric::divide(const PgNumeric& divisor) const {
  auto division_by_zero = [] { return fail(kDivisionByZero, "division by zero"); };
  if (kind_ != Kind::kFinite || divisor.kind_ != Kind::kFinite) {
    if (kind_ == Kind::kNaN || divisor.kind_ == Kind::kNaN) return special(Kind::kNaN);
    if (kind_ != Kind::kFinite) {
      if (divisor.kind_ != Kind::kFinite) return special(Kind::kNaN);  // ±Inf / ±Inf
      if (divisor.is_zero()) return division_by_zero();
      bool positive = (kind_ == Kind::kPosInfinity) != divisor.negative_;
      return special(positive ? Kind::kPosInfinity : Kind::kNegInfinity);
    }
    // A finite value over ±Infinity: numeric has no underflow, so it is plain zero.
    return PgNumeric();
  }
  if (divisor.is_zero()) return division_by_zero();

  // select_div_scale(): estimate the quotient's weight from the base-10000 weights and first
  // digits; if the first digits are equal, assume the dividend's is the smaller.
  int64_t weight1, weight2;
  int first1, first2;
  base_10000_head(coefficient_, dscale_, weight1, first1);
  base_10000_head(divisor.coefficient_, divisor.dscale_, weight2, first2);
  int64_t qweight = weight1 - weight2;
  if (first1 <= first2) --qweight;
  int64_t rscale = kMinSigDigits - qweight * kDecDigits;
  rscale = std::max<int64_t>(rscale, dscale_);
  rscale = std::max<int64_t>(rscale, divisor.dscale_);
  rscale = std::max<int64_t>(rscale, kMinDisplayScale);
  rscale = std::min<int64_t>(rscale, kMaxDisplayScale);

  // div_var() with rounding: the quotient to rscale digits, rounded half away from zero.
  // With a = A x 10^-s1 and b = B x 10^-s2, that is round(A x 10^(rscale + s2 - s1) / B).
  PgNumeric out;
  out.dscale_ = static_cast<int>(rscale);
  if (coefficient_.empty()) return out;
  const int64_t shift = rscale + divisor.dscale_ - dscale_;
  std::string num = coefficient_;
  std::string den = divisor.coefficient_;
  if (shift >= 0) {
    num.append(static_cast<size_t>(shift), '0');
  } else {
    den.append(static_cast<size_t>(-shift), '0');
  }
  Limbs den_limbs = limbs_from_digits(den);
  Limbs quotient, remainder;
  divide_limbs(limbs_from_digits(num), den_limbs, quotient, remainder);
  multiply_small(remainder, 2);
  if (compare_limbs(remainder, den_limbs) >= 0) add_one(quotient);
  out.coefficient_ = digits_from_limbs(quotient);
  out.negative_ = negative_ != divisor.negative_ && !out.coefficient_.empty();
  if (static_cast<int64_t>(out.coefficient_.size()) - rscale > kMaxIntegerDigits) {
    return overflow();
  }
  return out;
}

}  // namespace pgrange::routing
