#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "routing/key_type.hpp"

namespace pgrange::routing {

/// Where a table's key came from.
enum class KeySource {
  kPrimaryKey,  ///< the table's PRIMARY KEY
  kConfig,      ///< a [[table]] entry in the configuration (need not be unique)
  kUnsharded,   ///< no key: the table lives whole in one range on one shard
};

/// One key column of a table: its name and how it is encoded.
struct KeyColumnDef {
  std::string name;
  KeyColumn column;
  bool operator==(const KeyColumnDef&) const = default;
};

/// A global secondary index of a table: its entries are rows of a backend table of their own
/// ("<table>@<index>" on the shards), keyed /Table/<table_id>/<index_id>/<columns>/<row key>
/// and placed by ranges of their own.
struct IndexDescriptor {
  /// Where a new index stands: written by every write from kWriteOnly on (while it is built),
  /// read by lookups only once kPublic.
  enum class State { kWriteOnly, kPublic };
  uint32_t index_id = 0;  ///< 2, 3, … in creation order (1 is the primary index)
  std::string name;
  std::vector<KeyColumnDef> columns;  ///< the indexed columns, in index order
  std::vector<std::string> storing;   ///< STORING/INCLUDE columns (in neither columns nor key)
  bool unique = false;
  /// A UNIQUE index whose NULLs are equal values (NULLS NOT DISTINCT).
  bool nulls_not_distinct = false;
  /// The index of a UNIQUE constraint (named like it, dropped with it by ALTER TABLE … DROP
  /// CONSTRAINT; DROP INDEX refuses it, as PostgreSQL does).
  bool constraint = false;
  /// A hash-sharded index (CREATE INDEX … USING HASH WITH (bucket_count = N)): N > 0, and its
  /// keys start with a bucket, hash_bucket of the indexed columns mod N.
  uint32_t hash_buckets = 0;
  State state = State::kWriteOnly;
  bool operator==(const IndexDescriptor&) const = default;
};

/// A table pgrange knows: its id in the key space and its key.
struct TableDescriptor {
  uint64_t table_id = 0;
  std::string schema = "public";
  std::string name;
  KeySource key_source = KeySource::kUnsharded;
  std::vector<KeyColumnDef> key;
  /// Every column in table order (what an INSERT without a column list fills), when known.
  std::vector<std::string> columns;
  /// A hash-sharded key (PRIMARY KEY … USING HASH WITH (bucket_count = N)): N > 0, and key[0]
  /// is the hidden bucket, hash_bucket of the other key columns mod N (no column of the rows).
  uint32_t hash_buckets = 0;
  /// With hash_buckets: how many of the columns after the bucket the bucket hashes (0: all of
  /// them; a hash-sharded index's relation hashes only its indexed columns, not the row key).
  uint32_t hashed_columns = 0;
  /// The global secondary indexes, by index id.
  std::vector<IndexDescriptor> indexes = {};
  /// The index whose keys `key` describes: 1 for a table; an index's id for index_relation().
  uint32_t index_id = 1;
  bool operator==(const TableDescriptor&) const = default;
};

/// The backend table holding an index's entries on the shards: "<table>@<index>".
std::string index_table_name(const TableDescriptor& t, const IndexDescriptor& i);

/// An index seen as a keyed relation of its own (for routing, splits, moves, range data): the
/// backend table index_table_name(), key = the indexed columns then the row key columns not
/// among them, columns = that key then the stored columns, index_id = the index's.
TableDescriptor index_relation(const TableDescriptor& t, const IndexDescriptor& i);

/// The table's index named `name`, or null.
const IndexDescriptor* find_index(const TableDescriptor& t, std::string_view name);

/// The columns a write must report for the table's indexes to follow it: the row key columns,
/// then each index's columns and stored columns, each once, in that order.
std::vector<std::string> index_source_columns(const TableDescriptor& t);

/// The key columns whose values a row gives: the key without a hash-sharded table's bucket.
std::span<const KeyColumnDef> row_key_columns(const TableDescriptor& t);

/// The columns a hash-sharded key's bucket hashes: the first hashed_columns of
/// row_key_columns (all of them when 0).
std::span<const KeyColumnDef> hashed_key_columns(const TableDescriptor& t);

/// The name of a hash-sharded key's bucket column (CockroachDB's: crdb_internal_<cols>_shard_N).
std::string hash_bucket_column_name(const std::vector<KeyColumnDef>& hashed, uint32_t buckets);

/// Makes a table's key hash-sharded into `buckets` buckets: the bucket column goes first.
void make_hash_sharded(TableDescriptor& t, uint32_t buckets);

/// The default bucket count of USING HASH without WITH (bucket_count = N), as CockroachDB's.
inline constexpr uint32_t kDefaultHashBuckets = 16;
/// The largest bucket count pgrange accepts (each bucket starts as a range of its own).
inline constexpr uint32_t kMaxHashBuckets = 2048;

/// A relation or function as a statement names it (`schema` empty when not qualified).
struct QualifiedName {
  std::string schema;
  std::string name;
  bool operator==(const QualifiedName&) const = default;
};

/// A view, or a function in LANGUAGE sql, made through pgrange: what its query or body reads,
/// so that a statement that reads the view or calls the function accounts for those relations
/// as if it named them itself.
struct ReaderDescriptor {
  enum class Kind { kView, kFunction };
  Kind kind = Kind::kView;
  std::string schema = "public";
  std::string name;
  /// A function's argument types as CREATE FUNCTION gave them ("int4,text"); empty for a view.
  std::string signature;
  std::vector<QualifiedName> reads;   ///< the relations its query or body names
  std::vector<QualifiedName> writes;  ///< those of them it writes (INSERT/UPDATE/DELETE)
  std::vector<QualifiedName> calls;   ///< the functions it calls
  /// A view whose query is a plain SELECT of the rows of one relation (`reads` holds it): no
  /// join, subquery, CTE, grouping, aggregate, window, DISTINCT, ORDER BY, LIMIT, set operation
  /// or locking. Its rows on a shard are those of that relation there, so a plain SELECT of the
  /// view spreads over the shards as one of the relation does.
  bool plain = false;
  bool operator==(const ReaderDescriptor&) const = default;
};

std::string_view reader_kind_name(ReaderDescriptor::Kind k);
std::optional<ReaderDescriptor::Kind> reader_kind_from_name(std::string_view s);

/// A shard as the metadata store records it.
struct ShardRecord {
  std::string name;
  std::string dsn;
  bool operator==(const ShardRecord&) const = default;
};

std::string_view key_source_name(KeySource s);
std::optional<KeySource> key_source_from_name(std::string_view s);

}  // namespace pgrange::routing
