#pragma once

#include <string>
#include <string_view>

#include "common/error.hpp"
#include "routing/meta/catalog.hpp"

/// The rows of a key span of a table, as SQL a shard runs: what selects a range's rows (to
/// count, copy or delete them), an index's entries in its spans, a COPY's range by range.
namespace pgrange::routing {

/// A SQL boolean expression over the table's key columns (quoted, unqualified identifiers) that
/// is true for exactly the rows whose primary-index key lies in [start_key, end_key).
///
/// The bounds may be any keys of the space: /Min, /Max, table or index prefixes, keys of other
/// tables, full keys or keys of only the first few key columns. They are clamped to the table's
/// primary index: a start at or below /Table/<id>/1 sets no lower bound, an end at or above its
/// end sets no upper bound, and a range that misses the index gives "false" (for a table without
/// key columns: "true" when the range overlaps /Table/<id>, else "false"). A bound inside the
/// index must decode with the table's key columns, else the decoder's error is returned.
///
/// Comparisons follow the key order: each column's direction and NULL placement, text compared
/// by bytes (COLLATE "C"), float and numeric NaN above +Infinity (as PostgreSQL orders them).
/// Values are written as typed literals ('…'::type, bytea in hex form), which assumes
/// standard_conforming_strings = on (PostgreSQL's default) on the shard.
///
/// For a row outside the range the expression may be NULL rather than false (a NULL key column
/// compared with a value); use it in WHERE, or as COALESCE((…), false) before negating it.
/// IS NULL terms are left out for KeySource::kPrimaryKey tables, whose key columns are NOT NULL.
Result<std::string> key_range_predicate(const TableDescriptor& table, std::string_view start_key,
                                        std::string_view end_key);

/// The table's schema-qualified, quoted name: "schema"."name".
std::string qualified_table_name(const TableDescriptor& table);

}  // namespace pgrange::routing
