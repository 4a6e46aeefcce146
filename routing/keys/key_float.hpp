#pragma once

#include <string>
#include <string_view>

#include "common/error.hpp"

namespace pgrange::routing {

/// Parses PostgreSQL's text form of float8 (or float4 when `single`): decimal or exponent
/// notation, NaN, [+-]Infinity, [+-]inf, surrounding whitespace. 22P02 for bad syntax, 22003
/// when the value overflows or underflows to zero. float4 values are returned widened.
Result<double> parse_float_text(std::string_view text, bool single);

/// Formats a float like PostgreSQL 15 with extra_float_digits = 1 (the default): shortest
/// round-trip digits, exponent notation outside [1e-4, 1e15) (float4: [1e-4, 1e6)).
std::string format_float_text(double value, bool single);

}  // namespace pgrange::routing
