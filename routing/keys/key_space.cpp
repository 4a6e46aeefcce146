#include "routing/keys/key_space.hpp"

#include "routing/keys/key_encoding.hpp"

namespace pgrange::routing {

std::string table_prefix(uint64_t table_id) {
  std::string out;
  append_uvarint(out, table_id);
  return out;
}

std::string index_prefix(uint64_t table_id, uint64_t index_id) {
  std::string out = table_prefix(table_id);
  append_uvarint(out, index_id);
  return out;
}

std::string prefix_end(std::string_view prefix) {
  std::string out(prefix);
  while (!out.empty() && static_cast<uint8_t>(out.back()) == 0xff) out.pop_back();
  if (out.empty()) return std::string(kMaxKey);
  out.back() = static_cast<char>(static_cast<uint8_t>(out.back()) + 1);
  // Anything at or above /Max is outside the space; clamp so spans stay inside it.
  if (out > kMaxKey) return std::string(kMaxKey);
  return out;
}

Result<std::string> encode_key_text(uint64_t table_id, uint64_t index_id,
                                    std::span<const KeyColumn> columns,
                                    std::span<const std::optional<std::string_view>> values) {
  if (values.size() > columns.size()) {
    return fail(sqlstate::kInternalError, "more key values than key columns");
  }
  std::string key = index_prefix(table_id, index_id);
  for (size_t i = 0; i < values.size(); ++i) {
    auto r = append_text_value(key, columns[i], values[i]);
    if (!r) return tl::unexpected(r.error());
  }
  return key;
}

Result<KeyHeader> read_key_header(std::string_view key) {
  KeyHeader h;
  auto t = read_uvarint(key);
  if (!t) return tl::unexpected(t.error());
  h.table_id = *t;
  if (!key.empty()) {
    auto i = read_uvarint(key);
    if (!i) return tl::unexpected(i.error());
    h.index_id = *i;
  }
  h.columns = key;
  return h;
}

Result<std::vector<std::optional<std::string>>> decode_key_text(
    std::string_view key, std::span<const KeyColumn> columns) {
  auto h = read_key_header(key);
  if (!h) return tl::unexpected(h.error());
  std::string_view rest = h->columns;
  std::vector<std::optional<std::string>> out;
  while (!rest.empty()) {
    if (out.size() >= columns.size()) return malformed_key("more values than key columns");
    auto v = decode_text_value(rest, columns[out.size()]);
    if (!v) return tl::unexpected(v.error());
    out.push_back(std::move(*v));
  }
  return out;
}

Result<PartialKeyText> decode_partial_key_text(std::string_view key,
                                               std::span<const KeyColumn> columns) {
  auto h = read_key_header(key);
  if (!h) return tl::unexpected(h.error());
  std::string_view rest = h->columns;
  PartialKeyText out;
  while (!rest.empty()) {
    if (out.values.size() >= columns.size()) return malformed_key("more values than key columns");
    const KeyColumn& column = columns[out.values.size()];
    const uint8_t own = column.descending ? marker::kBytesDesc : marker::kBytesAsc;
    const uint8_t m = static_cast<uint8_t>(rest.front());
    if (is_text_type(column.type) && m == own + 1 && rest.size() == 1) {
      out.descending = column.descending;
      out.past_every_string = true;
      return out;
    }
    if (is_text_type(column.type) && m == own) {
      // An unterminated string ends the key; a terminated one is a value like any other.
      if (auto prefix = read_unterminated_bytes(rest.substr(1), column.descending)) {
        out.prefix = std::move(*prefix);
        out.descending = column.descending;
        return out;
      }
    }
    auto v = decode_text_value(rest, columns[out.values.size()]);
    if (!v) return tl::unexpected(v.error());
    out.values.push_back(std::move(*v));
  }
  return malformed_key("no unterminated byte string at the key's end");
}

}  // namespace pgrange::routing
