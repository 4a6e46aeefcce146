#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace pgrange::routing {

/// Whether pgrange can turn a value of type `type_oid` printed by PostgreSQL (text format)
/// into the bytes PostgreSQL's send function gives for it (binary format): the types a merge
/// compares or combines (bool, bytea, name, int2/int4/int8, oid, text, varchar, char, float4,
/// float8, numeric, date, timestamp, timestamptz, uuid) and json, jsonb.
bool sends_binary(uint32_t type_oid);

/// The binary format of a value PostgreSQL printed as `text` (its output with DateStyle ISO,
/// and float text exact: extra_float_digits 1 or more; bytea in either output format). The merge
/// combines values in text and hands them to a client that asked for binary results through this.
/// 0A000 for a type sends_binary() does not know, and for a value that does not read as the
/// type's output (another DateStyle).
Result<std::string> binary_value(uint32_t type_oid, std::string_view text);

}  // namespace pgrange::routing
