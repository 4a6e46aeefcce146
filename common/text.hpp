#pragma once

#include <strings.h>

#include <string_view>

namespace pgrange {

/// White space as PostgreSQL's input functions skip it (scanner_isspace).
inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/// `s` without leading and trailing white space.
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

/// ASCII case-insensitive equality.
inline bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

/// Whether `needle` occurs in `haystack`, ASCII case-insensitively.
inline bool icontains(std::string_view haystack, std::string_view needle) {
  for (size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
    if (strncasecmp(haystack.data() + i, needle.data(), needle.size()) == 0) return true;
  }
  return false;
}

}  // namespace pgrange
