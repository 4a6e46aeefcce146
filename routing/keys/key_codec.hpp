#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "common/error.hpp"
#include "routing/keys/key_decimal.hpp"
#include "routing/keys/key_type.hpp"

namespace pgrange::routing {

/// A non-NULL key column value, normalised so that equal SQL values are equal here:
/// int64_t for bool/int2/int4/int8 and for date (days), timestamp and timestamptz (µs since
/// 2000-01-01 UTC); double for float4/float8; Decimal for numeric; std::string for
/// text/varchar/bpchar (trailing spaces stripped)/bytea/uuid (16 raw bytes).
using KeyValue = std::variant<int64_t, double, Decimal, std::string>;

/// What an encoded value's marker says about it (readable without the schema).
enum class ValueKind { kNull, kInt, kFloat, kDecimal, kBytes, kDate, kTimestamp, kTimestamptz };

/// One encoded value as found in a key: its kind, direction and value.
struct TaggedValue {
  ValueKind kind = ValueKind::kNull;
  /// The value was written for a DESC column (meaningless for kNull).
  bool descending = false;
  /// For kNull: the NULL sorts before every value (else after).
  bool null_first = false;
  KeyValue value;

  bool operator==(const TaggedValue&) const = default;
};

/// The ValueKind a KeyType's values are encoded as.
ValueKind value_kind_of(KeyType type);

/// Parses PostgreSQL's text form of a value of `type` (what a client sends in a text-format
/// Bind parameter or a literal). 22P02 for bad syntax, 22003 out of range, 22007/22008 for
/// dates and timestamps.
Result<KeyValue> parse_text_value(KeyType type, std::string_view text);

/// Parses PostgreSQL's binary send format of a value of `type`. 22P03 for a malformed
/// value, 22008 for an out-of-range date/timestamp.
Result<KeyValue> parse_binary_value(KeyType type, std::string_view bytes);

/// Appends the encoding of a (type-correct) value for `column` to `key`.
void append_key_value(std::string& key, const KeyColumn& column, const KeyValue& value);

/// Appends the encoding of NULL for `column` to `key`.
void append_key_null(std::string& key, const KeyColumn& column);

/// Parses a text-form value (nullopt = NULL) and appends its encoding for `column`.
Result<void> append_text_value(std::string& key, const KeyColumn& column,
                               std::optional<std::string_view> text);

/// Parses a binary-form value (nullopt = NULL) and appends its encoding for `column`.
Result<void> append_binary_value(std::string& key, const KeyColumn& column,
                                 std::optional<std::string_view> bytes);

/// Appends a tagged value exactly as read_tagged_value would read it back.
void append_tagged_value(std::string& key, const TaggedValue& value);

/// Reads the next encoded value from `in` using only its marker and advances `in`. Accepts
/// only canonical encodings (re-encoding gives back the same bytes), so every byte string
/// has at most one decoding. On failure `in` is left unchanged.
Result<TaggedValue> read_tagged_value(std::string_view& in);

/// Reads the next value of `column` from `in` (nullopt = NULL); checks the marker and the
/// value's range against the column.
Result<std::optional<KeyValue>> read_key_value(std::string_view& in, const KeyColumn& column);

/// PostgreSQL's text output of a value of `type` (e.g. "t", "1.5", "\\x01ff", UUIDs in
/// 8-4-4-4-12 form, timestamptz in UTC with "+00"). Numerics print normalised (1.00 -> 1).
std::string format_text_value(KeyType type, const KeyValue& value);

/// Reads the next value of `column` and returns its text form (nullopt = NULL).
Result<std::optional<std::string>> decode_text_value(std::string_view& in, const KeyColumn& column);

}  // namespace pgrange::routing
