#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace pgrange::routing {

/// Prints any key without its schema, walking the value markers:
///   /Min, /Max, /Table/53, /Table/53/1/4718, /Table/53/2/"alice@example.com"/4718.
/// Values: integers as decimal; strings/bytes quoted ("\x00"-style escapes for bytes outside
/// printable ASCII and for " \ /); f:<float8>, n:<numeric>, d:<date>, ts:<timestamp>,
/// tstz:<timestamptz in UTC>; a leading ~ marks a DESC-encoded value; NULL is a NULL that
/// sorts last and ~NULL one that sorts first. A key that is not on a value boundary ends in
/// /PrefixEnd (the key is PrefixEnd of the printed one) or in /raw:"<escaped bytes>".
/// parse_pretty_key(pretty_key(k)) == k for every byte string k.
std::string pretty_key(std::string_view key);

/// Parses the form pretty_key prints back into the exact key bytes; 22P02 on bad syntax.
Result<std::string> parse_pretty_key(std::string_view pretty);

/// SHOW RANGES' short form relative to a table: "…/1/4718", "…/<TableMin>" (the table's
/// first key), "…/<TableMax>" (its end); keys outside the table print in full.
std::string pretty_key_in_table(std::string_view key, uint64_t table_id);

}  // namespace pgrange::routing
