#pragma once

#include <chrono>
#include <string>

namespace pgrange {

/// How utc_time_text writes a time.
enum class UtcStyle {
  kIsoSeconds,  ///< 2026-12-06T23:10:05Z
  kIsoMillis,   ///< 2026-12-06T23:10:05.123Z (log lines)
  kPostgres,    ///< 2026-12-06 23:10:05.123456+00 (a timestamptz as PostgreSQL prints it in UTC)
};

/// A time as text in UTC.
std::string utc_time_text(std::chrono::system_clock::time_point t, UtcStyle style);

}  // namespace pgrange
