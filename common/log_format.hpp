#pragma once

#include <string_view>

namespace pgrange {

/// Sets how log lines look: "text" (`2026-12-06 23:10:05.123 [info] message`) or "json" (one
/// object per line: {"time":"2026-12-06T23:10:05.123Z","level":"info","thread":12,"msg":"…"}).
/// Thread-safe; RELOAD may switch it.
void set_log_format(std::string_view format);

/// `text` as a JSON string's contents (quotes, backslashes and control characters escaped;
/// bytes that are not valid UTF-8 become U+FFFD so the line stays valid JSON).
void append_json_escaped(std::string& out, std::string_view text);

}  // namespace pgrange
