#include "tests/support/raw_protocol.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {

std::string parse(const std::string& name, const std::string& sql, std::vector<int32_t> types) {
  std::string body = name + '\0' + sql + '\0' + RawClient::i16(static_cast<int16_t>(types.size()));
  for (int32_t t : types) body += RawClient::i32(t);
  return RawClient::message('P', body);
}
std::string bind(const std::string& portal, const std::string& statement,
                 std::vector<std::string> params, std::vector<int16_t> result_formats) {
  std::string body = portal + '\0' + statement + '\0' + RawClient::i16(0) +
                     RawClient::i16(static_cast<int16_t>(params.size()));
  for (const auto& v : params) body += RawClient::i32(static_cast<int32_t>(v.size())) + v;
  body += RawClient::i16(static_cast<int16_t>(result_formats.size()));
  for (int16_t f : result_formats) body += RawClient::i16(f);
  return RawClient::message('B', body);
}
std::string describe(char what, const std::string& name) {
  return RawClient::message('D', std::string(1, what) + name + '\0');
}
std::string execute(const std::string& portal, int32_t max_rows) {
  return RawClient::message('E', portal + '\0' + RawClient::i32(max_rows));
}
std::string sync() {
  return RawClient::message('S', "");
}

namespace {

uint32_t be(std::string_view b, size_t at, int bytes) {
  uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) v = v << 8 | static_cast<uint8_t>(b[at + static_cast<size_t>(i)]);
  return v;
}

// "[v1][v2]…": "[null]", the value, or "[\\x…]" in hex when a byte is not printable.
std::string data_row(std::string_view body) {
  std::string out;
  if (body.size() < 2) return "[malformed]";
  size_t at = 2;
  for (uint32_t n = be(body, 0, 2); n > 0; --n) {
    if (at + 4 > body.size()) return out + "[malformed]";
    auto len = static_cast<int32_t>(be(body, at, 4));
    at += 4;
    if (len < 0) {
      out += "[null]";
      continue;
    }
    std::string_view v = body.substr(at, static_cast<size_t>(len));
    at += static_cast<size_t>(len);
    bool printable = std::all_of(v.begin(), v.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
    if (printable) {
      out += "[" + std::string(v) + "]";
      continue;
    }
    out += "[\\x";
    char hex[3];
    for (char c : v) {
      std::snprintf(hex, sizeof hex, "%02x", static_cast<uint8_t>(c));
      out += hex;
    }
    out += "]";
  }
  return out;
}

// "(oid/format,…)" of each column.
std::string row_description(std::string_view body) {
  std::string out = "(";
  if (body.size() < 2) return "(malformed)";
  size_t at = 2;
  for (uint32_t n = be(body, 0, 2); n > 0; --n) {
    size_t name_end = body.find('\0', at);
    if (name_end == std::string_view::npos || name_end + 19 > body.size())
      return out + "malformed)";
    at = name_end + 1;
    out += std::to_string(be(body, at + 6, 4)) + "/" + std::to_string(be(body, at + 16, 2));
    at += 18;
    if (n > 1) out += ",";
  }
  return out + ")";
}

}  // namespace

std::vector<std::string> answers(int port, const std::string& user, const std::string& database,
                                 const std::vector<std::string>& batches) {
  std::vector<std::string> out;
  RawClient raw(port);
  raw.send_startup({{"user", user}, {"database", database}});
  if (raw.read_until('Z').type != 'Z') return {"no login"};
  for (const std::string& batch : batches) {
    raw.send(batch);
    std::string kinds;
    for (;;) {
      RawMessage m = raw.read();
      if (m.type == 0) {
        kinds += " <closed>";
        break;
      }
      kinds += std::string(kinds.empty() ? "" : " ") + m.type;
      if (m.type == 'E') kinds += m.fields()['C'];
      if (m.type == 'C') kinds += "(" + m.body.substr(0, m.body.find('\0')) + ")";
      if (m.type == 'D') kinds += data_row(m.body);
      if (m.type == 'T') kinds += row_description(m.body);
      if (m.type == 'Z') {
        kinds += m.body;  // the transaction status
        break;
      }
    }
    out.push_back(kinds);
  }
  return out;
}

}  // namespace pgrange::testing
