#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace pgrange::routing {

/// PostgreSQL's date value for 'infinity' / '-infinity' (days since 2000-01-01).
inline constexpr int32_t kDateInfinity = INT32_MAX;
inline constexpr int32_t kDateNegInfinity = INT32_MIN;
/// PostgreSQL's timestamp value for 'infinity' / '-infinity' (µs since 2000-01-01).
inline constexpr int64_t kTimestampInfinity = INT64_MAX;
inline constexpr int64_t kTimestampNegInfinity = INT64_MIN;

/// Parses a date in ISO form: "YYYY-MM-DD" (4+ digit year, optional " BC"), "infinity",
/// "-infinity"; returns days since 2000-01-01. Other DateStyles (e.g. "01/02/2024"),
/// month names and "today"/"epoch" are not supported: 22007. Bad fields or out of range: 22008.
Result<int32_t> parse_date_text(std::string_view text);

/// Parses a timestamp: "YYYY-MM-DD[( |T)HH:MM[:SS[.ffffff]]][ BC]", "infinity",
/// "-infinity"; returns µs since 2000-01-01. With `with_zone` (timestamptz) a UTC offset
/// ("Z", "+HH", "+HH:MM", "+HHMM", "-HH:MM:SS") is required (the session TimeZone is not
/// known here) and the result is in UTC. More than 6 fractional digits, zone names and
/// other DateStyles are not supported (22007).
Result<int64_t> parse_timestamp_text(std::string_view text, bool with_zone);

/// Checks a binary date (days since 2000-01-01) is in PostgreSQL's range; 22008 if not.
Result<int32_t> check_date(int64_t days);

/// Checks a binary timestamp (µs since 2000-01-01) is in PostgreSQL's range; 22008 if not.
Result<int64_t> check_timestamp(int64_t micros);

/// PostgreSQL's ISO output of a date: "2024-01-02", "0044-03-15 BC", "infinity".
std::string format_date_text(int32_t days);

/// PostgreSQL's ISO output of a timestamp ("2024-01-02 03:04:05.123456"); with_zone
/// appends "+00" (the value is printed in UTC).
std::string format_timestamp_text(int64_t micros, bool with_zone);

}  // namespace pgrange::routing
