#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "routing/keys/key_codec.hpp"
#include "routing/keys/key_type.hpp"

/// The key space: one ordered space of byte strings compared with memcmp.
///
///   /Table/<table_id>/<index_id>/<col1>/<col2>/...   (index 1 = primary key)
///
/// table_id and index_id are order-preserving unsigned varints (CockroachDB's layout; first
/// byte 0x88..0xfd). Each column value starts with a marker byte naming its kind and
/// direction (routing/key_encoding.hpp), so keys can be walked without the schema. Nothing
/// follows the key columns. DESC columns store order-inverted bytes under their own markers.
///
/// NULL placement follows PostgreSQL's default ORDER BY, because the key order must equal
/// what PostgreSQL returns: NULL is larger than every value, so NULLS LAST for ASC and NULLS
/// FIRST for DESC (not NULLS FIRST for ASC, which would disagree with PostgreSQL's order).
/// NULLS FIRST/LAST can be chosen per column (KeyColumn::nulls).
namespace pgrange::routing {

/// The smallest key of the space (/Min): the empty string.
inline constexpr std::string_view kMinKey{};
/// The end of the space (/Max): every table key is below it (table ids are varints, whose
/// first byte is at most 0xfd).
inline constexpr std::string_view kMaxKey{"\xff\xff", 2};

/// The prefix of every key of a table: /Table/<table_id>.
std::string table_prefix(uint64_t table_id);

/// The prefix of every key of an index: /Table/<table_id>/<index_id> (index 1 = primary).
std::string index_prefix(uint64_t table_id, uint64_t index_id);

/// The first key after every key that starts with `prefix`: drop trailing 0xff bytes and
/// increment the last byte. kMaxKey when no such key exists below /Max (empty or all-0xff
/// prefix).
std::string prefix_end(std::string_view prefix);

/// Encodes a full or partial index key from text-form values (nullopt = NULL):
/// /Table/<table_id>/<index_id>/<values[0]>/... with values.size() <= columns.size().
Result<std::string> encode_key_text(uint64_t table_id, uint64_t index_id,
                                    std::span<const KeyColumn> columns,
                                    std::span<const std::optional<std::string_view>> values);

/// A key split into its table id, index id and remaining column bytes.
struct KeyHeader {
  uint64_t table_id = 0;
  std::optional<uint64_t> index_id;
  std::string_view columns;
};

/// Reads the /Table/<id>[/<index>] header of a key.
Result<KeyHeader> read_key_header(std::string_view key);

/// Decodes the column values of a key of the given index into their PostgreSQL text forms
/// (nullopt = NULL); fails if the key has more values than columns or trailing bytes.
Result<std::vector<std::optional<std::string>>> decode_key_text(std::string_view key,
                                                                std::span<const KeyColumn> columns);

/// A key whose last value is the start of a byte string (its terminator missing): the bound of
/// a span of strings with a prefix (`LIKE 'abc%'`), or that bound's prefix_end().
struct PartialKeyText {
  /// The values before it, in text form (nullopt = NULL).
  std::vector<std::optional<std::string>> values;
  /// The string's bytes present in the key.
  std::string prefix;
  bool descending = false;
  /// The key ends past every string of the column (its marker raised: the prefix_end() of an
  /// empty prefix); `prefix` is empty.
  bool past_every_string = false;
};

/// Decodes a key whose last value is an unterminated byte string of its column's direction, or
/// that column's marker raised by one; fails for any other key.
Result<PartialKeyText> decode_partial_key_text(std::string_view key,
                                               std::span<const KeyColumn> columns);

}  // namespace pgrange::routing
