#include "routing/keys/pretty_key.hpp"

#include <charconv>
#include <optional>

#include "routing/keys/key_codec.hpp"
#include "routing/keys/key_datetime.hpp"
#include "routing/keys/key_decimal.hpp"
#include "routing/keys/key_encoding.hpp"
#include "routing/keys/key_float.hpp"
#include "routing/keys/key_space.hpp"

namespace pgrange::routing {
namespace {

constexpr std::string_view kPrefixEnd = "PrefixEnd";
constexpr std::string_view kRaw = "raw:";
constexpr std::string_view kStringPrefix = "prefix:";

void append_quoted(std::string& out, std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (unsigned char c : bytes) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c >= 0x20 && c < 0x7f && c != '/') {
      out.push_back(static_cast<char>(c));
    } else {
      // '/' is escaped too, so a printed key splits on '/' without looking at quotes.
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  out.push_back('"');
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Reads an unsigned varint that must be canonical (so that printing it is reversible).
bool read_canonical_uvarint(std::string_view& in, uint64_t& v) {
  std::string_view start = in;
  auto r = read_uvarint(in);
  if (!r) {
    in = start;
    return false;
  }
  std::string again;
  append_uvarint(again, *r);
  if (again != start.substr(0, start.size() - in.size())) {
    in = start;
    return false;
  }
  v = *r;
  return true;
}

// Prints one tagged value; false when it cannot be printed reversibly (out-of-range dates).
bool append_value(std::string& out, const TaggedValue& v) {
  if (v.kind == ValueKind::kNull) {
    out += v.null_first ? "~NULL" : "NULL";
    return true;
  }
  if (v.descending) out.push_back('~');
  switch (v.kind) {
    case ValueKind::kInt:
      out += std::to_string(std::get<int64_t>(v.value));
      return true;
    case ValueKind::kFloat:
      out += "f:" + format_float_text(std::get<double>(v.value), false);
      return true;
    case ValueKind::kDecimal:
      out += "n:" + format_decimal_text(std::get<Decimal>(v.value));
      return true;
    case ValueKind::kBytes:
      append_quoted(out, std::get<std::string>(v.value));
      return true;
    case ValueKind::kDate: {
      int64_t d = std::get<int64_t>(v.value);
      if (!check_date(d)) return false;
      out += "d:" + format_date_text(static_cast<int32_t>(d));
      return true;
    }
    case ValueKind::kTimestamp:
    case ValueKind::kTimestamptz: {
      int64_t t = std::get<int64_t>(v.value);
      if (!check_timestamp(t)) return false;
      bool tz = v.kind == ValueKind::kTimestamptz;
      out += (tz ? "tstz:" : "ts:") + format_timestamp_text(t, tz);
      return true;
    }
    case ValueKind::kNull:
      break;
  }
  return false;
}

// A byte string whose terminator is missing at the key's end (the bound of a span of strings
// with a prefix: `LIKE 'abc%'`), as prefix:"abc" (~prefix: descending); nullopt unless that
// spelling gives these bytes back.
std::optional<std::string> string_prefix(std::string_view rest) {
  if (rest.size() < 2) return std::nullopt;
  const auto m = static_cast<uint8_t>(rest.front());
  if (m != marker::kBytesAsc && m != marker::kBytesDesc) return std::nullopt;
  const bool descending = m == marker::kBytesDesc;
  auto bytes = read_unterminated_bytes(rest.substr(1), descending);
  if (!bytes) return std::nullopt;
  std::string again;
  append_escaped_bytes(again, *bytes, descending);
  again.resize(again.size() - 2);  // its terminator
  if (again != rest.substr(1)) return std::nullopt;
  std::string out = descending ? "~" : "";
  out += kStringPrefix;
  append_quoted(out, *bytes);
  return out;
}

// Prints the structured part of key into out; returns the bytes it could not decode.
std::string_view print_structured(std::string_view key, std::string& out) {
  std::string_view in = key;
  uint64_t id;
  if (!read_canonical_uvarint(in, id)) return key;
  out += "/Table/" + std::to_string(id);
  if (in.empty()) return in;
  if (!read_canonical_uvarint(in, id)) return in;
  out += "/" + std::to_string(id);
  while (!in.empty()) {
    std::string_view before = in;
    auto v = read_tagged_value(in);
    std::string piece = "/";
    if (!v || !append_value(piece, *v)) {
      auto prefix = v ? std::nullopt : string_prefix(before);
      if (!prefix) return before;
      out += "/" + *prefix;
      return {};
    }
    out += piece;
  }
  return in;
}

tl::unexpected<Error> bad_pretty(std::string_view pretty, std::string_view why) {
  return fail(sqlstate::kInvalidTextRepresentation,
              "invalid pretty key \"" + std::string(pretty) + "\": " + std::string(why));
}

Result<std::string> parse_quoted(std::string_view s) {
  if (s.size() < 2 || s.front() != '"' || s.back() != '"') {
    return fail(sqlstate::kInvalidTextRepresentation, "expected a quoted string");
  }
  std::string out;
  for (size_t i = 1; i + 1 < s.size(); ++i) {
    char c = s[i];
    if (c == '"') return fail(sqlstate::kInvalidTextRepresentation, "unescaped quote");
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (i + 2 < s.size() && (s[i + 1] == '"' || s[i + 1] == '\\')) {
      out.push_back(s[i + 1]);
      ++i;
    } else if (i + 4 < s.size() && s[i + 1] == 'x' && hex_value(s[i + 2]) >= 0 &&
               hex_value(s[i + 3]) >= 0) {
      out.push_back(static_cast<char>(hex_value(s[i + 2]) * 16 + hex_value(s[i + 3])));
      i += 3;
    } else {
      return fail(sqlstate::kInvalidTextRepresentation, "bad escape");
    }
  }
  return out;
}

template <typename T>
bool parse_number(std::string_view s, T& v) {
  if (s.empty() || s.front() == '+') return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// Parses one value segment (not PrefixEnd/raw) and appends its encoding.
Result<void> parse_value(std::string_view seg, std::string& key) {
  TaggedValue v;
  if (seg == "NULL" || seg == "~NULL") {
    v.kind = ValueKind::kNull;
    v.null_first = seg.front() == '~';
    append_tagged_value(key, v);
    return {};
  }
  if (!seg.empty() && seg.front() == '~') {
    v.descending = true;
    seg.remove_prefix(1);
  }
  auto tagged = [&](std::string_view tag) {
    if (seg.substr(0, tag.size()) != tag) return false;
    seg.remove_prefix(tag.size());
    return true;
  };
  auto bad = [&] { return fail(sqlstate::kInvalidTextRepresentation, "bad value segment"); };
  if (!seg.empty() && seg.front() == '"') {
    auto s = parse_quoted(seg);
    if (!s) return tl::unexpected(s.error());
    v.kind = ValueKind::kBytes;
    v.value = std::move(*s);
  } else if (tagged("f:")) {
    auto d = parse_float_text(seg, false);
    if (!d) return tl::unexpected(d.error());
    v.kind = ValueKind::kFloat;
    v.value = *d;
  } else if (tagged("n:")) {
    auto d = parse_decimal_text(seg);
    if (!d) return tl::unexpected(d.error());
    v.kind = ValueKind::kDecimal;
    v.value = std::move(*d);
  } else if (tagged("d:")) {
    auto d = parse_date_text(seg);
    if (!d) return tl::unexpected(d.error());
    v.kind = ValueKind::kDate;
    v.value = int64_t{*d};
  } else if (bool tz = tagged("tstz:"); tz || tagged("ts:")) {
    v.kind = tz ? ValueKind::kTimestamptz : ValueKind::kTimestamp;
    auto t = parse_timestamp_text(seg, tz);
    if (!t) return tl::unexpected(t.error());
    v.value = *t;
  } else {
    int64_t x;
    if (!parse_number(seg, x)) return bad();
    v.kind = ValueKind::kInt;
    v.value = x;
  }
  append_tagged_value(key, v);
  return {};
}

}  // namespace

std::string pretty_key(std::string_view key) {
  if (key == kMinKey) return "/Min";
  if (key == kMaxKey) return "/Max";
  std::string out;
  std::string_view rest = print_structured(key, out);
  if (rest.empty()) return out;
  // Not on a value boundary. The common case is PrefixEnd(k) of a printable k: undo the
  // increment of the last byte and see whether that prints completely.
  if (static_cast<uint8_t>(key.back()) != 0) {
    std::string before(key);
    before.back() = static_cast<char>(static_cast<uint8_t>(before.back()) - 1);
    std::string printed;
    if (before != kMinKey && print_structured(before, printed).empty() &&
        prefix_end(before) == key) {
      return printed + "/" + std::string(kPrefixEnd);
    }
  }
  out += "/";
  out += kRaw;
  append_quoted(out, rest);
  return out;
}

Result<std::string> parse_pretty_key(std::string_view pretty) {
  if (pretty == "/Min") return std::string(kMinKey);
  if (pretty == "/Max") return std::string(kMaxKey);
  if (pretty.empty() || pretty.front() != '/') return bad_pretty(pretty, "must start with /");
  // Split on '/', which never occurs unescaped inside a value.
  std::vector<std::string_view> segs;
  for (std::string_view s = pretty.substr(1);;) {
    size_t slash = s.find('/');
    segs.push_back(s.substr(0, slash));
    if (slash == std::string_view::npos) break;
    s.remove_prefix(slash + 1);
  }
  std::string key;
  size_t i = 0;
  if (segs[0] == "Table") {
    uint64_t id;
    if (segs.size() < 2 || !parse_number(segs[1], id)) return bad_pretty(pretty, "bad table id");
    append_uvarint(key, id);
    i = 2;
    if (i < segs.size() && parse_number(segs[i], id)) {
      append_uvarint(key, id);
      ++i;
    }
  }
  for (; i < segs.size(); ++i) {
    std::string_view seg = segs[i];
    bool last = i + 1 == segs.size();
    if (seg == kPrefixEnd && last && !key.empty()) {
      // pretty_key prints PrefixEnd only when it is exactly an increment of the last byte.
      if (static_cast<uint8_t>(key.back()) == 0xff) return bad_pretty(pretty, "PrefixEnd of 0xff");
      key.back() = static_cast<char>(static_cast<uint8_t>(key.back()) + 1);
      return key;
    }
    // A string prefix ends the key (or comes before its PrefixEnd).
    const bool before_end = i + 2 == segs.size() && segs[i + 1] == kPrefixEnd;
    if (std::string_view p = seg.substr(seg.starts_with('~') ? 1 : 0);
        p.starts_with(kStringPrefix) && (last || before_end) && !key.empty()) {
      auto bytes = parse_quoted(p.substr(kStringPrefix.size()));
      if (!bytes) return bad_pretty(pretty, bytes.error().message);
      if (bytes->empty()) return bad_pretty(pretty, "empty string prefix");
      const bool descending = seg.front() == '~';
      key.push_back(static_cast<char>(descending ? marker::kBytesDesc : marker::kBytesAsc));
      append_escaped_bytes(key, *bytes, descending);
      key.resize(key.size() - 2);  // no terminator: the string goes on
      if (last) return key;
      continue;
    }
    if (seg.substr(0, kRaw.size()) == kRaw && last) {
      auto raw = parse_quoted(seg.substr(kRaw.size()));
      if (!raw) return bad_pretty(pretty, raw.error().message);
      key += *raw;
      return key;
    }
    if (i == 0) return bad_pretty(pretty, "expected /Table, /Min, /Max or /raw:");
    auto r = parse_value(seg, key);
    if (!r) return bad_pretty(pretty, r.error().message);
  }
  return key;
}

std::string pretty_key_in_table(std::string_view key, uint64_t table_id) {
  const std::string start = table_prefix(table_id);
  if (key == start) return "…/<TableMin>";
  if (key == prefix_end(start)) return "…/<TableMax>";
  std::string full = pretty_key(key);
  const std::string head = "/Table/" + std::to_string(table_id) + "/";
  if (key.substr(0, start.size()) == start && full.substr(0, head.size()) == head) {
    return "…/" + full.substr(head.size());
  }
  return full;
}

}  // namespace pgrange::routing
