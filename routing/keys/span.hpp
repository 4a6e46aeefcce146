#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "routing/keys/key_codec.hpp"
#include "routing/keys/key_type.hpp"

namespace pgrange::routing {

/// A half-open interval [start, end) of keys; empty when start >= end.
struct Span {
  std::string start;
  std::string end;

  /// True when no key lies in the span.
  bool empty() const { return start >= end; }
  /// True when key lies in [start, end).
  bool contains(std::string_view key) const { return key >= start && key < end; }
  bool operator==(const Span&) const = default;
};

/// Sorted, non-overlapping, non-adjacent, non-empty spans (the output of normalize_spans).
using SpanSet = std::vector<Span>;

/// The whole key space [/Min, /Max).
Span full_span();

/// Every key of a table: [/Table/<id>, /Table/<id+1>).
Span table_span(uint64_t table_id);

/// Every key of an index: [/Table/<id>/<index>, PrefixEnd).
Span index_span(uint64_t table_id, uint64_t index_id);

/// Every key that starts with `prefix` (e.g. an index prefix plus equal leading columns):
/// [prefix, PrefixEnd(prefix)).
Span prefix_span(std::string_view prefix);

/// The single key `key` (a key with all its columns): [key, key + "\x00").
Span point_span(std::string_view key);

/// One bound of a range condition on a column: value and whether it is included.
struct ColumnBound {
  KeyValue value;
  bool inclusive = true;
};

/// The keys whose next column after `prefix` (an encoded index prefix plus equal leading
/// columns) satisfies lower <(=) col <(=) upper; a missing bound is unbounded. NULLs never
/// satisfy a comparison, so they are excluded whatever the column's NULL order.
Span interval_span(std::string_view prefix, const KeyColumn& column,
                   const std::optional<ColumnBound>& lower,
                   const std::optional<ColumnBound>& upper);

/// The keys whose next column after `prefix` is NULL (col IS NULL).
Span null_span(std::string_view prefix, const KeyColumn& column);

/// The keys whose next column after `prefix` is a string starting with `text_prefix`
/// (col LIKE 'abc%' with COLLATE "C" / bytea); column must be a string type.
Span string_prefix_span(std::string_view prefix, const KeyColumn& column,
                        std::string_view text_prefix);

/// Sorts spans, drops empty ones and merges overlapping or adjacent ones.
SpanSet normalize_spans(std::vector<Span> spans);

/// The keys in a or in b.
SpanSet union_spans(const SpanSet& a, const SpanSet& b);

/// The keys in both a and b.
SpanSet intersect_spans(const SpanSet& a, const SpanSet& b);

}  // namespace pgrange::routing
