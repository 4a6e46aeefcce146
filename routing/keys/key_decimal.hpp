#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace pgrange::routing {

/// A PostgreSQL numeric value, normalised so that equal values (1.0, 1.00) are identical:
/// value = 0.<digits> x 10^exponent with no leading or trailing zero digit.
struct Decimal {
  /// The value classes in ascending PostgreSQL order (NaN sorts above +Infinity).
  enum class Kind : uint8_t {
    kNegInfinity = 1,
    kNegative = 2,
    kZero = 3,
    kPositive = 4,
    kPosInfinity = 5,
    kNaN = 6
  };
  Kind kind = Kind::kZero;
  /// Decimal exponent of the digit string (only for kNegative/kPositive).
  int64_t exponent = 0;
  /// ASCII digits '1'..'9' first and last (only for kNegative/kPositive).
  std::string digits;

  bool operator==(const Decimal&) const = default;
};

/// Parses numeric's text form ("-12.50", "1e-3", "NaN", "Infinity", "-inf", ...).
/// 22P02 for bad syntax, 22003 when it exceeds numeric's range.
Result<Decimal> parse_decimal_text(std::string_view text);

/// Parses numeric's binary send format (ndigits, weight, sign, dscale, base-10000 digits).
Result<Decimal> parse_decimal_binary(std::string_view bytes);

/// Builds a Decimal from a decimal digit string (may have leading/trailing zeros) whose
/// value is 0.<digits> x 10^exponent; applies the sign; normalises.
Decimal make_decimal(bool negative, std::string digits, int64_t exponent);

/// PostgreSQL's text form of the normalised value (no trailing fractional zeros).
std::string format_decimal_text(const Decimal& d);

/// Appends the order-preserving encoding of d (no marker); descending inverts it.
void append_decimal(std::string& out, const Decimal& d, bool descending);

/// Reads a value written by append_decimal and advances `in`.
Result<Decimal> read_decimal(std::string_view& in, bool descending);

}  // namespace pgrange::routing
