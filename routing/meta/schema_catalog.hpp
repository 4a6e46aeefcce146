#pragma once

#include <string>

namespace pgrange::routing {

/// A query that describes the schema a shard holds as lines of text, one per object (and per
/// column, constraint, enum label, …), in order, with no OIDs in them: shards that hold the same
/// schema give the same lines. It covers what DDL through pgrange must put on every shard alike
/// — schemas, tables, columns and their defaults, constraints, indexes, views, sequences'
/// definitions, types (enums, composites, domains, ranges), functions and procedures with their
/// bodies, triggers, rules, policies, extensions, comments and privileges — and leaves out the
/// system's objects, other sessions' temporary ones and the rows. One text column, `line`.
std::string schema_lines_sql();

/// schema_lines_sql() digested: one row, one text column `digest` (md5 of all lines).
std::string schema_digest_sql();

}  // namespace pgrange::routing
