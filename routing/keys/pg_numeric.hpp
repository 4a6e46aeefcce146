#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace pgrange::routing {

/// SQLSTATE of PostgreSQL's "division by zero".
inline constexpr std::string_view kDivisionByZero = "22012";

/// A value of PostgreSQL's numeric type with the arithmetic numeric.c does on it, so that
/// results pgrange computes from several shards' numerics print exactly as PostgreSQL's own:
/// addition keeps the larger display scale, division picks its scale as select_div_scale()
/// does and rounds half away from zero, and NaN and ±Infinity follow numeric_add/numeric_div.
class PgNumeric {
 public:
  /// The value classes; finite values carry digits and a display scale.
  enum class Kind : uint8_t { kFinite, kNaN, kPosInfinity, kNegInfinity };

  /// Zero with display scale 0.
  PgNumeric() = default;

  /// Parses numeric's text input ("-12.340", "1.5e3", " 7 ", "NaN", "Infinity", "-inf"):
  /// 22P02 for bad syntax, 22003 when the value does not fit numeric's storage format.
  static Result<PgNumeric> parse(std::string_view text);
  /// Reads numeric's binary format (numeric_send: ndigits, weight, sign, dscale, base-10000
  /// digits); nullopt for bytes that are not one.
  static std::optional<PgNumeric> from_binary(std::string_view bytes);
  /// The numeric equal to an int8, with display scale 0 (int64_to_numeric).
  static PgNumeric from_int64(int64_t value);
  /// NaN, +Infinity or -Infinity.
  static PgNumeric special(Kind kind);

  /// numeric_out: the text PostgreSQL prints ("0.50", "-3", "NaN", "-Infinity").
  std::string to_string() const;

  Kind kind() const { return kind_; }
  /// The number of digits after the decimal point it prints with (0 for NaN and ±Infinity).
  int dscale() const { return dscale_; }
  /// True for finite values below zero (zero is never negative, as in PostgreSQL).
  bool negative() const { return negative_; }
  bool is_zero() const { return kind_ == Kind::kFinite && coefficient_.empty(); }

  /// cmp_numerics: <0, 0, >0; 1.0 equals 1.00, NaN equals NaN and sorts above +Infinity.
  int compare(const PgNumeric& other) const;
  /// numeric_add: the display scale is the larger of the operands'; NaN + x is NaN and
  /// Infinity + -Infinity is NaN. 22003 when the sum does not fit numeric's storage format.
  Result<PgNumeric> add(const PgNumeric& other) const;
  /// numeric_div: the quotient to select_div_scale()'s scale, rounded half away from zero;
  /// 22012 for a zero divisor, 22003 when the quotient does not fit numeric's storage format.
  Result<PgNumeric> divide(const PgNumeric& divisor) const;

 private:
  Kind kind_ = Kind::kFinite;
  bool negative_ = false;
  // Decimal digits without leading zeros (empty for zero); the value is coefficient_ x
  // 10^-dscale_, so the coefficient never has more fractional digits than are printed.
  std::string coefficient_;
  int dscale_ = 0;
};

}  // namespace pgrange::routing
