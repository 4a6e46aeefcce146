#pragma once

#include <string>

namespace pgrange::testing {

/// The whole file at `path` ("" when it cannot be read).
std::string read_text(const std::string& path);

/// Writes `text` as the whole file at `path`, making its directory if need be.
void write_text(const std::string& path, const std::string& text);

}  // namespace pgrange::testing
