#pragma once

#include <strings.h>

#include <cstring>
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

/// `c` in lower case if it is an ASCII capital letter (no locale, no library call: these
/// run over every statement a client sends).
inline char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c | 0x20) : c;
}

/// Whether `needle` occurs in `haystack`, ASCII case-insensitively. Positions are tried only
/// where the first character matches, so a miss costs a few instructions per byte.
inline bool icontains(std::string_view haystack, std::string_view needle) {
  if (needle.empty()) return true;
  if (needle.size() > haystack.size()) return false;
  const size_t last = haystack.size() - needle.size();
  auto at = [&](size_t i) {
    for (size_t k = 1; k < needle.size(); ++k) {
      if (ascii_lower(haystack[i + k]) != ascii_lower(needle[k])) return false;
    }
    return true;
  };
  // The first character's places found by memchr (vectorised), once per case.
  const char first = ascii_lower(needle.front());
  const char other = first >= 'a' && first <= 'z' ? static_cast<char>(first & ~0x20) : first;
  for (char f : {first, other}) {
    const char* base = haystack.data();
    for (size_t i = 0; i <= last;) {
      const void* hit = std::memchr(base + i, f, last + 1 - i);
      if (hit == nullptr) break;
      i = static_cast<size_t>(static_cast<const char*>(hit) - base);
      if (at(i)) return true;
      ++i;
    }
    if (other == first) break;
  }
  return false;
}

}  // namespace pgrange
