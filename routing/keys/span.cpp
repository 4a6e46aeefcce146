#include "routing/keys/span.hpp"

#include <algorithm>

#include "routing/keys/key_encoding.hpp"
#include "routing/keys/key_space.hpp"

namespace pgrange::routing {

Span full_span() {
  return {std::string(kMinKey), std::string(kMaxKey)};
}

Span table_span(uint64_t table_id) {
  return prefix_span(table_prefix(table_id));
}

Span index_span(uint64_t table_id, uint64_t index_id) {
  return prefix_span(index_prefix(table_id, index_id));
}

Span prefix_span(std::string_view prefix) {
  return {std::string(prefix), prefix_end(prefix)};
}

Span point_span(std::string_view key) {
  // Nothing follows the key columns, so key + 0x00 is the next possible key.
  std::string end(key);
  end.push_back('\0');
  return {std::string(key), std::move(end)};
}

Span null_span(std::string_view prefix, const KeyColumn& column) {
  std::string k(prefix);
  append_key_null(k, column);
  return prefix_span(k);
}

Span interval_span(std::string_view prefix, const KeyColumn& column,
                   const std::optional<ColumnBound>& lower,
                   const std::optional<ColumnBound>& upper) {
  auto encoded = [&](const KeyValue& v) {
    std::string k(prefix);
    append_key_value(k, column, v);
    return k;
  };
  // The non-NULL values of the column occupy [values_start, values_end) after the prefix:
  // NULL is one marker byte either below (0x00) or above (0xfe) every value marker.
  std::string values_start(prefix), values_end(prefix);
  if (column.nulls_first()) {
    values_start.push_back(static_cast<char>(marker::kNullFirst + 1));
    values_end = prefix_end(prefix);
  } else {
    values_end.push_back(static_cast<char>(marker::kNullLast));
  }
  // A descending column stores larger values first, so the SQL lower bound limits the end
  // of the key span and the SQL upper bound its start.
  const auto& key_low = column.descending ? upper : lower;
  const auto& key_high = column.descending ? lower : upper;
  Span s;
  if (!key_low) {
    s.start = values_start;
  } else {
    std::string k = encoded(key_low->value);
    // Excluding v means skipping every key that starts with v's encoding.
    s.start = key_low->inclusive ? k : prefix_end(k);
  }
  if (!key_high) {
    s.end = values_end;
  } else {
    std::string k = encoded(key_high->value);
    s.end = key_high->inclusive ? prefix_end(k) : k;
  }
  return s;
}

Span string_prefix_span(std::string_view prefix, const KeyColumn& column,
                        std::string_view text_prefix) {
  // Every string starting with text_prefix encodes as marker + escaped(text_prefix) + more;
  // the escaping is prefix-free per byte, so nothing else shares those bytes. Drop the
  // terminator append_escaped_bytes writes (2 bytes).
  std::string k(prefix);
  k.push_back(static_cast<char>(column.descending ? marker::kBytesDesc : marker::kBytesAsc));
  append_escaped_bytes(k, text_prefix, column.descending);
  k.resize(k.size() - 2);
  return prefix_span(k);
}

SpanSet normalize_spans(std::vector<Span> spans) {
  std::erase_if(spans, [](const Span& s) { return s.empty(); });
  std::sort(spans.begin(), spans.end(),
            [](const Span& a, const Span& b) { return a.start < b.start; });
  SpanSet out;
  for (auto& s : spans) {
    if (!out.empty() && s.start <= out.back().end) {
      if (s.end > out.back().end) out.back().end = std::move(s.end);
    } else {
      out.push_back(std::move(s));
    }
  }
  return out;
}

SpanSet union_spans(const SpanSet& a, const SpanSet& b) {
  std::vector<Span> all(a.begin(), a.end());
  all.insert(all.end(), b.begin(), b.end());
  return normalize_spans(std::move(all));
}

SpanSet intersect_spans(const SpanSet& a, const SpanSet& b) {
  // Both inputs are sorted and disjoint: a merge walk advancing whichever span ends first.
  SpanSet out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const std::string& start = std::max(a[i].start, b[j].start);
    const std::string& end = std::min(a[i].end, b[j].end);
    if (start < end) out.push_back({start, end});
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

}  // namespace pgrange::routing
