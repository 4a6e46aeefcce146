#pragma once

#include <string>
#include <string_view>

namespace pgrange::sql {

/// Quotes a name as an SQL identifier: "…" with quotes doubled (always quoted, so the name is
/// taken exactly as it is, case included).
std::string quote_ident(std::string_view s);

/// Quotes a string as an SQL literal ('…' with quotes doubled; E'' when it has backslashes, so
/// the result means the same whatever standard_conforming_strings says).
std::string quote_literal(std::string_view s);

}  // namespace pgrange::sql
