#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "sql/statement_info.hpp"

namespace pgrange::sql {

/// A CREATE INDEX statement as pgrange reads it to build a global secondary index (an index
/// table of its own, range-partitioned over the shards) or a local one (an ordinary index on
/// every shard). Names are folded as PostgreSQL folds them: unquoted in lower case, quoted kept.
struct IndexSpec {
  bool unique = false;         ///< CREATE UNIQUE INDEX
  bool if_not_exists = false;  ///< IF NOT EXISTS
  bool concurrently = false;   ///< CONCURRENTLY
  /// The index name; empty when the statement gives none (default_index_name picks PostgreSQL's).
  std::string name;
  /// The indexed table (schema empty when not given).
  TableRef table;
  /// The indexed columns (plain column references), in key order; expression columns are left
  /// out (global_blocker names them).
  std::vector<std::string> columns;
  /// STORING (…) (CockroachDB) or INCLUDE (…) columns.
  std::vector<std::string> storing;
  /// NULLS NOT DISTINCT: NULLs are equal values of the index (PostgreSQL 15).
  bool nulls_not_distinct = false;
  /// The index of a UNIQUE constraint (ALTER TABLE … ADD [CONSTRAINT name] UNIQUE, or one of a
  /// CREATE TABLE): its default name is the constraint's ("<table>_<cols>_key"), and ALTER
  /// TABLE … DROP CONSTRAINT drops it. Never set by read_index_statement.
  bool constraint = false;
  /// WITH (local = true|on|1) or WITH (local): an ordinary index on every shard.
  bool local = false;
  /// `(cols) USING HASH` (CockroachDB's hash sharding, after the column list).
  bool hashed = false;
  /// WITH (bucket_count = N) (or CockroachDB's older `USING HASH WITH BUCKET_COUNT = N`): N,
  /// 16 when hashed without it, 0 when not hashed; in [2, 2048].
  uint32_t buckets = 0;
  /// The statement as the shards run it for a local index: STORING → INCLUDE, the pgrange-only
  /// storage parameters (local, bucket_count) removed (and an empty WITH () dropped), USING HASH
  /// removed. The rest of the text is kept as written.
  std::string shard_sql;
  /// Why the index cannot be a global one, as a short SQL construct name for a 0A000 message
  /// ("expression", "DESC", "NULLS FIRST", "NULLS LAST", "COLLATE", "operator class", "WHERE",
  /// "USING <method>" for an access method other than btree, "storage parameter fillfactor"
  /// (every other parameter named, "storage parameters a, b"), "ONLY");
  /// the first one in the statement. Empty when it can be global.
  std::string global_blocker;
};

/// Reads a CREATE INDEX statement (the whole string is one statement). libpg_query cannot parse
/// CockroachDB's `STORING (…)` nor `USING HASH` after the column list: they are found with
/// PostgreSQL's scanner and rewritten before the statement is parsed. nullopt when `sql` is not
/// CREATE INDEX (or cannot be scanned: the shard reports that error as PostgreSQL does).
/// Errors: a syntax error, a malformed STORING / USING HASH / WITH, or STORING together with
/// INCLUDE (42601); a bucket count that is not an integer in [2, 2048], bucket_count without
/// USING HASH, `local` together with USING HASH, a `local` value that is not a boolean, or
/// local / bucket_count given twice (22023); several statements (0A000).
Result<std::optional<IndexSpec>> read_index_statement(std::string_view sql);

/// PostgreSQL's default name for an index created without one (ChooseIndexName,
/// ChooseIndexColumnNames, ChooseIndexNameAddition and makeObjectName in PostgreSQL's
/// indexcmds.c and namespace.c): "<table>_<col1>_<col2>_idx", a repeated column name numbered
/// ("t_b_b1_idx"), truncated to 63 bytes as makeObjectName does (the longer of the table name and
/// the column part is shortened first, keeping whole UTF-8 characters). PostgreSQL names an
/// index after its INCLUDE columns too: pass `columns` followed by `storing`. `label` is "idx"
/// for an index, "key" for a UNIQUE constraint's ("t_a_key"); when that name is taken,
/// PostgreSQL tries the label followed by 1, 2, … ("idx1", "key1"; ChooseRelationName), which
/// shortens the rest as needed.
std::string default_index_name(const std::string& table, const std::vector<std::string>& columns,
                               std::string_view label = "idx");

}  // namespace pgrange::sql
