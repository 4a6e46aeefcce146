#include "routing/keys/key_datetime.hpp"

#include <strings.h>

#include <cstdio>

#include "common/text.hpp"
#include "routing/keys/key_type.hpp"

namespace pgrange::routing {
namespace {

constexpr int64_t kUnixToPgDays = 10957;  // days from 1970-01-01 to 2000-01-01
constexpr int64_t kMicrosPerDay = 86'400'000'000;
// PostgreSQL's limits: Julian day 0 (4714-11-24 BC) up to, excluding, 5874898-01-01 for dates
// and 294277-01-01 for timestamps.
constexpr int64_t kMinDate = -2451545;
constexpr int64_t kEndDate = 2145031949;
constexpr int64_t kMinTimestamp = -211813488000000000;
constexpr int64_t kEndTimestamp = 9223371331200000000;

// Days since 1970-01-01 of a proleptic Gregorian date (astronomical year: 0 = 1 BC).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void civil_from_days(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
}

bool is_leap(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

unsigned days_in_month(int64_t y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : kDays[m - 1];
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Reads exactly `n` digits (or at least n when `at_least`) from the front of s.
bool read_digits(std::string_view& s, size_t n, bool at_least, int64_t& out) {
  size_t k = 0;
  out = 0;
  while (k < s.size() && s[k] >= '0' && s[k] <= '9' && (at_least || k < n)) {
    if (k >= 9) return false;  // more digits than any field we accept
    out = out * 10 + (s[k] - '0');
    ++k;
  }
  if (k < n) return false;
  s.remove_prefix(k);
  return true;
}

// Reads a one- or two-digit field (PostgreSQL accepts "2024-1-2 3:04:05").
bool read_field(std::string_view& s, int64_t& out) {
  if (!read_digits(s, 1, false, out)) return false;
  int64_t second;
  if (read_digits(s, 1, false, second)) out = out * 10 + second;
  return true;
}

bool consume(std::string_view& s, char c) {
  if (s.empty() || s.front() != c) return false;
  s.remove_prefix(1);
  return true;
}

tl::unexpected<Error> bad_format(std::string_view type, std::string_view text) {
  return fail(
      key_sqlstate::kInvalidDatetimeFormat,
      "invalid input syntax for type " + std::string(type) + ": \"" + std::string(text) + "\"");
}

tl::unexpected<Error> overflow(std::string_view type, std::string_view text) {
  return fail(key_sqlstate::kDatetimeFieldOverflow, "date/time field value out of range: \"" +
                                                        std::string(text) + "\" (" +
                                                        std::string(type) + ")");
}

// Strips a trailing " BC" era marker (case-insensitive) and reports whether it was present.
bool strip_bc(std::string_view& s) {
  if (s.size() >= 3 && iequals(s.substr(s.size() - 2), "BC") && is_space(s[s.size() - 3])) {
    s.remove_suffix(3);
    s = trim(s);
    return true;
  }
  return false;
}

enum class Special { kNone, kInfinity, kNegInfinity };

Special special_word(std::string_view t) {
  if (iequals(t, "infinity") || iequals(t, "+infinity")) return Special::kInfinity;
  if (iequals(t, "-infinity")) return Special::kNegInfinity;
  return Special::kNone;
}

// Parses "YYYY-MM-DD" from the front of s into days since 1970 (not yet range-checked).
// Returns false on bad syntax; sets `field_error` for a month/day outside the calendar.
bool parse_ymd(std::string_view& s, bool bc, int64_t& days, bool& field_error) {
  int64_t y, m, d;
  if (!read_digits(s, 4, true, y) || !consume(s, '-') || !read_field(s, m) || !consume(s, '-') ||
      !read_field(s, d)) {
    return false;
  }
  if (bc) {
    if (y == 0) {
      field_error = true;
      return true;
    }
    y = 1 - y;  // 1 BC is astronomical year 0
  } else if (y == 0) {
    field_error = true;
    return true;
  }
  if (m < 1 || m > 12 || d < 1 || d > days_in_month(y, static_cast<unsigned>(m))) {
    field_error = true;
    return true;
  }
  days = days_from_civil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  return true;
}

}  // namespace

Result<int32_t> check_date(int64_t days) {
  if (days == kDateInfinity || days == kDateNegInfinity) return static_cast<int32_t>(days);
  if (days < kMinDate || days >= kEndDate) {
    return fail(key_sqlstate::kDatetimeFieldOverflow, "date out of range");
  }
  return static_cast<int32_t>(days);
}

Result<int64_t> check_timestamp(int64_t micros) {
  if (micros == kTimestampInfinity || micros == kTimestampNegInfinity) return micros;
  if (micros < kMinTimestamp || micros >= kEndTimestamp) {
    return fail(key_sqlstate::kDatetimeFieldOverflow, "timestamp out of range");
  }
  return micros;
}

Result<int32_t> parse_date_text(std::string_view text) {
  std::string_view t = trim(text);
  switch (special_word(t)) {
    case Special::kInfinity:
      return kDateInfinity;
    case Special::kNegInfinity:
      return kDateNegInfinity;
    case Special::kNone:
      break;
  }
  bool bc = strip_bc(t);
  int64_t days = 0;
  bool field_error = false;
  if (!parse_ymd(t, bc, days, field_error) || !t.empty()) return bad_format("date", text);
  if (field_error) return overflow("date", text);
  auto r = check_date(days - kUnixToPgDays);
  if (!r)
    return fail(key_sqlstate::kDatetimeFieldOverflow,
                "date out of range: \"" + std::string(text) + "\"");
  return r;
}

Result<int64_t> parse_timestamp_text(std::string_view text, bool with_zone) {
  const std::string_view type = with_zone ? "timestamp with time zone" : "timestamp";
  std::string_view t = trim(text);
  switch (special_word(t)) {
    case Special::kInfinity:
      return kTimestampInfinity;
    case Special::kNegInfinity:
      return kTimestampNegInfinity;
    case Special::kNone:
      break;
  }
  bool bc = strip_bc(t);
  int64_t days = 0;
  bool field_error = false;
  if (!parse_ymd(t, bc, days, field_error)) return bad_format(type, text);
  int64_t hh = 0, mi = 0, ss = 0, frac = 0;
  if (!t.empty() && (t.front() == ' ' || t.front() == 'T' || t.front() == 't')) {
    t.remove_prefix(1);
    if (!read_field(t, hh) || !consume(t, ':') || !read_field(t, mi)) {
      return bad_format(type, text);
    }
    if (consume(t, ':')) {
      if (!read_field(t, ss)) return bad_format(type, text);
      if (consume(t, '.')) {
        int64_t scale = 100000;
        size_t n = 0;
        while (!t.empty() && t.front() >= '0' && t.front() <= '9') {
          // Beyond microseconds PostgreSQL rounds; rather than imitate its float rounding,
          // refuse the input.
          if (++n > 6) return bad_format(type, text);
          frac += (t.front() - '0') * scale;
          scale /= 10;
          t.remove_prefix(1);
        }
      }
    }
  }
  int64_t offset_seconds = 0;
  bool has_zone = false;
  if (!t.empty() && (t.front() == 'Z' || t.front() == 'z') && t.size() == 1) {
    has_zone = true;
    t.remove_prefix(1);
  } else if (!t.empty() && (t.front() == '+' || t.front() == '-')) {
    bool neg = t.front() == '-';
    t.remove_prefix(1);
    int64_t oh = 0, om = 0, os = 0;
    if (!read_field(t, oh)) return bad_format(type, text);
    if (consume(t, ':')) {
      if (!read_field(t, om)) return bad_format(type, text);
      if (consume(t, ':') && !read_field(t, os)) return bad_format(type, text);
    } else if (!t.empty()) {
      if (!read_digits(t, 2, false, om)) return bad_format(type, text);
    }
    if (oh > 15 || om > 59 || os > 59) {
      return fail(key_sqlstate::kInvalidDatetimeFormat,
                  "time zone displacement out of range: \"" + std::string(text) + "\"");
    }
    offset_seconds = (oh * 3600 + om * 60 + os) * (neg ? -1 : 1);
    has_zone = true;
  }
  if (!t.empty()) return bad_format(type, text);
  if (with_zone && !has_zone) {
    return fail(key_sqlstate::kInvalidDatetimeFormat,
                "timestamptz input without a UTC offset is not supported (the session TimeZone "
                "is unknown to the key codec): \"" +
                    std::string(text) + "\"");
  }
  // PostgreSQL ignores an offset given to a timestamp without time zone.
  if (!with_zone) offset_seconds = 0;
  if (field_error) return overflow(type, text);
  bool end_of_day = hh == 24 && mi == 0 && ss == 0 && frac == 0;
  if ((hh > 23 && !end_of_day) || mi > 59 || ss > 59) return overflow(type, text);
  int64_t pg_days = days - kUnixToPgDays;
  // Far-out years would overflow the µs arithmetic; they are out of range anyway.
  if (pg_days < kMinTimestamp / kMicrosPerDay - 1 || pg_days > kEndTimestamp / kMicrosPerDay + 1) {
    return fail(key_sqlstate::kDatetimeFieldOverflow,
                "timestamp out of range: \"" + std::string(text) + "\"");
  }
  int64_t micros =
      pg_days * kMicrosPerDay + ((hh * 60 + mi) * 60 + ss - offset_seconds) * 1000000 + frac;
  auto r = check_timestamp(micros);
  if (!r || micros == kTimestampInfinity || micros == kTimestampNegInfinity) {
    return fail(key_sqlstate::kDatetimeFieldOverflow,
                "timestamp out of range: \"" + std::string(text) + "\"");
  }
  return micros;
}

std::string format_date_text(int32_t days) {
  if (days == kDateInfinity) return "infinity";
  if (days == kDateNegInfinity) return "-infinity";
  int64_t y;
  unsigned m, d;
  civil_from_days(int64_t{days} + kUnixToPgDays, y, m, d);
  bool bc = y <= 0;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u%s", static_cast<long long>(bc ? 1 - y : y), m, d,
                bc ? " BC" : "");
  return buf;
}

std::string format_timestamp_text(int64_t micros, bool with_zone) {
  if (micros == kTimestampInfinity) return "infinity";
  if (micros == kTimestampNegInfinity) return "-infinity";
  int64_t days = micros / kMicrosPerDay;
  int64_t rem = micros % kMicrosPerDay;
  if (rem < 0) {
    rem += kMicrosPerDay;
    --days;
  }
  int64_t y;
  unsigned m, d;
  civil_from_days(days + kUnixToPgDays, y, m, d);
  bool bc = y <= 0;
  int64_t secs = rem / 1000000;
  int64_t frac = rem % 1000000;
  char buf[80];
  int n = std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u %02lld:%02lld:%02lld",
                        static_cast<long long>(bc ? 1 - y : y), m, d,
                        static_cast<long long>(secs / 3600), static_cast<long long>(secs / 60 % 60),
                        static_cast<long long>(secs % 60));
  std::string out(buf, static_cast<size_t>(n));
  if (frac != 0) {
    char f[8];
    std::snprintf(f, sizeof f, ".%06lld", static_cast<long long>(frac));
    std::string fs(f);
    while (fs.back() == '0') fs.pop_back();
    out += fs;
  }
  if (with_zone) out += "+00";
  if (bc) out += " BC";
  return out;
}

}  // namespace pgrange::routing
