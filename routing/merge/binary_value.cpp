// Text → binary for the values a merge hands to a client that asked for binary results:
// the bytes of each type's send function (PostgreSQL's src/backend/utils/adt/*.c), computed
// from the text the type's output function printed.

#include "routing/merge/binary_value.hpp"

#include <bit>
#include <charconv>
#include <cstring>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "routing/keys/key_codec.hpp"
#include "routing/keys/key_datetime.hpp"
#include "routing/keys/key_float.hpp"
#include "routing/keys/value_order.hpp"

namespace pgrange::routing {
namespace {

constexpr uint32_t kBool = 16, kBytea = 17, kName = 19, kInt8 = 20, kInt2 = 21, kInt4 = 23,
                   kText = 25, kOid = 26, kJson = 114, kFloat4 = 700, kFloat8 = 701, kUnknown = 705,
                   kBpchar = 1042, kVarchar = 1043, kDate = 1082, kTimestamp = 1114,
                   kTimestamptz = 1184, kNumeric = 1700, kUuid = 2950, kJsonb = 3802;

void put_be(std::string& out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// A value the shards printed in a form pgrange does not read (a session's DateStyle): what
// pgrange cannot send, refused.
tl::unexpected<Error> unreadable(uint32_t type_oid, std::string_view text) {
  std::string shown(text.substr(0, 64));
  return fail(sqlstate::kFeatureNotSupported,
              "results of type " + type_display_name(type_oid) +
                  " combined over several shards are sent in binary format only when the "
                  "shards print them as pgrange reads them (DateStyle ISO): "
                  "\"" +
                  shown + "\"");
}

// int2/int4/int8 through the key codec's reader (PostgreSQL's ranges); oid is unsigned.
Result<std::string> integer(uint32_t type_oid, std::string_view text, int bytes) {
  std::string out;
  if (type_oid == kOid) {
    uint32_t v = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || p != text.data() + text.size()) return unreadable(type_oid, text);
    put_be(out, v, 4);
    return out;
  }
  KeyType type = bytes == 2 ? KeyType::kInt2 : (bytes == 4 ? KeyType::kInt4 : KeyType::kInt8);
  auto v = parse_text_value(type, text);
  if (!v) return unreadable(type_oid, text);
  put_be(out, static_cast<uint64_t>(std::get<int64_t>(*v)), bytes);
  return out;
}

// numeric_send: ndigits, weight, sign, dscale, then the base-10000 digits, leading and
// trailing zero digits stripped (as make_result leaves a value); zero is weight 0, positive.
Result<std::string> numeric(std::string_view text) {
  constexpr uint16_t kPos = 0x0000, kNeg = 0x4000, kNaN = 0xC000, kPinf = 0xD000, kNinf = 0xF000;
  std::string out;
  auto header = [&](int16_t ndigits, int16_t weight, uint16_t sign, int16_t dscale) {
    put_be(out, static_cast<uint16_t>(ndigits), 2);
    put_be(out, static_cast<uint16_t>(weight), 2);
    put_be(out, sign, 2);
    put_be(out, static_cast<uint16_t>(dscale), 2);
  };
  // The special values: what numeric_send reads from their header as the display scale
  // (the bits below the sign) goes too: 0 for NaN, 0x20 for ±Infinity.
  for (auto [word, sign, dscale] : {std::tuple<std::string_view, uint16_t, int16_t>{"NaN", kNaN, 0},
                                    {"Infinity", kPinf, 0x20},
                                    {"-Infinity", kNinf, 0x20}}) {
    if (text == word) {
      header(0, 0, sign, dscale);
      return out;
    }
  }
  std::string_view t = text;
  bool negative = !t.empty() && t.front() == '-';
  if (negative) t.remove_prefix(1);
  size_t dot = t.find('.');
  std::string_view whole = t.substr(0, dot);
  std::string_view fraction =
      dot == std::string_view::npos ? std::string_view{} : t.substr(dot + 1);
  auto digits_only = [](std::string_view s) {
    return s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (whole.empty() || !digits_only(whole) || !digits_only(fraction) ||
      (dot != std::string_view::npos && fraction.empty()) || fraction.size() > 0x3FFF) {
    return unreadable(kNumeric, text);
  }
  // Base-10000 digits aligned on the decimal point.
  std::string w(whole);
  w.insert(0, (4 - w.size() % 4) % 4, '0');
  std::string f(fraction);
  f.append((4 - f.size() % 4) % 4, '0');
  std::vector<int16_t> groups;
  auto add_groups = [&groups](const std::string& s) {
    for (size_t i = 0; i < s.size(); i += 4) {
      groups.push_back(static_cast<int16_t>((s[i] - '0') * 1000 + (s[i + 1] - '0') * 100 +
                                            (s[i + 2] - '0') * 10 + (s[i + 3] - '0')));
    }
  };
  add_groups(w);
  add_groups(f);
  int weight = static_cast<int>(w.size() / 4) - 1;
  size_t first = 0;
  while (first < groups.size() && groups[first] == 0) {
    ++first;
    --weight;
  }
  size_t last = groups.size();
  while (last > first && groups[last - 1] == 0) --last;
  if (first == last || last - first > 0x7FFF || weight < INT16_MIN || weight > INT16_MAX) {
    if (first != last) return unreadable(kNumeric, text);
    header(0, 0, kPos, static_cast<int16_t>(fraction.size()));
    return out;
  }
  header(static_cast<int16_t>(last - first), static_cast<int16_t>(weight), negative ? kNeg : kPos,
         static_cast<int16_t>(fraction.size()));
  for (size_t i = first; i < last; ++i) put_be(out, static_cast<uint16_t>(groups[i]), 2);
  return out;
}

}  // namespace

bool sends_binary(uint32_t type_oid) {
  switch (type_oid) {
    case kBool:
    case kBytea:
    case kName:
    case kInt8:
    case kInt2:
    case kInt4:
    case kText:
    case kOid:
    case kJson:
    case kFloat4:
    case kFloat8:
    case kUnknown:
    case kBpchar:
    case kVarchar:
    case kDate:
    case kTimestamp:
    case kTimestamptz:
    case kNumeric:
    case kUuid:
    case kJsonb:
      return true;
    default:
      return false;
  }
}

Result<std::string> binary_value(uint32_t type_oid, std::string_view text) {
  switch (type_oid) {
    case kBool:
      if (text == "t") return std::string(1, '\1');
      if (text == "f") return std::string(1, '\0');
      return unreadable(type_oid, text);
    case kInt2:
      return integer(type_oid, text, 2);
    case kInt4:
    case kOid:
      return integer(type_oid, text, 4);
    case kInt8:
      return integer(type_oid, text, 8);
    case kName:
    case kText:
    case kJson:
    case kUnknown:
    case kBpchar:
    case kVarchar:
      return std::string(text);  // textsend: the same bytes, in the client's encoding
    case kJsonb:
      return std::string(1, '\1') + std::string(text);  // format version 1, then the text
    case kFloat4:
    case kFloat8: {
      bool single = type_oid == kFloat4;
      auto v = parse_float_text(text, single);
      if (!v) return unreadable(type_oid, text);
      std::string out;
      if (single) {
        put_be(out, std::bit_cast<uint32_t>(static_cast<float>(*v)), 4);
      } else {
        put_be(out, std::bit_cast<uint64_t>(*v), 8);
      }
      return out;
    }
    case kNumeric:
      return numeric(text);
    case kDate: {
      auto days = parse_date_text(text);
      if (!days) return unreadable(type_oid, text);
      std::string out;
      put_be(out, static_cast<uint32_t>(*days), 4);
      return out;
    }
    case kTimestamp:
    case kTimestamptz: {
      auto micros = parse_timestamp_text(text, type_oid == kTimestamptz);
      if (!micros) return unreadable(type_oid, text);
      std::string out;
      put_be(out, static_cast<uint64_t>(*micros), 8);
      return out;
    }
    case kUuid:
    case kBytea: {
      // uuid_send and byteasend: the raw bytes, as the key codec reads them from the text.
      auto v = parse_text_value(type_oid == kUuid ? KeyType::kUuid : KeyType::kBytea, text);
      if (!v) return unreadable(type_oid, text);
      return std::get<std::string>(std::move(*v));
    }
    default:
      return fail(sqlstate::kFeatureNotSupported,
                  "results of type " + type_display_name(type_oid) +
                      " combined over several shards cannot be sent in binary format");
  }
}

}  // namespace pgrange::routing
