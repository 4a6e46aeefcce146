#pragma once

#include <string_view>

namespace pgrange::proxy {

/// The page pgrange's HTTP endpoint serves at `/`: the range map drawn (HTML, CSS, JS, SVG in one
/// document, no external fetches; it reads /api/ranges and redraws itself every few seconds).
std::string_view key_space_page();

}  // namespace pgrange::proxy
