#include "common/utc_time.hpp"

#include <cstdio>
#include <ctime>

namespace pgrange {

std::string utc_time_text(std::chrono::system_clock::time_point t, UtcStyle style) {
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  long long fraction = us % 1000000;
  if (fraction < 0) {
    fraction += 1000000;
    us -= 1000000;
  }
  std::time_t secs = static_cast<std::time_t>(us / 1000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char date[96];
  std::snprintf(date, sizeof date, "%04d-%02d-%02d%c%02d:%02d:%02d", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, style == UtcStyle::kPostgres ? ' ' : 'T', tm.tm_hour,
                tm.tm_min, tm.tm_sec);
  char out[128];
  switch (style) {
    case UtcStyle::kIsoSeconds:
      std::snprintf(out, sizeof out, "%sZ", date);
      break;
    case UtcStyle::kIsoMillis:
      std::snprintf(out, sizeof out, "%s.%03lldZ", date, fraction / 1000);
      break;
    case UtcStyle::kPostgres:
      std::snprintf(out, sizeof out, "%s.%06lld+00", date, fraction);
      break;
  }
  return out;
}

}  // namespace pgrange
