#include "tests/support/raw_protocol.hpp"

#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {

std::string parse(const std::string& name, const std::string& sql, std::vector<int32_t> types) {
  std::string body = name + '\0' + sql + '\0' + RawClient::i16(static_cast<int16_t>(types.size()));
  for (int32_t t : types) body += RawClient::i32(t);
  return RawClient::message('P', body);
}
std::string bind(const std::string& portal, const std::string& statement,
                 std::vector<std::string> params) {
  std::string body = portal + '\0' + statement + '\0' + RawClient::i16(0) +
                     RawClient::i16(static_cast<int16_t>(params.size()));
  for (const auto& v : params) body += RawClient::i32(static_cast<int32_t>(v.size())) + v;
  return RawClient::message('B', body + RawClient::i16(0));
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
      if (m.type == 'D' && m.body.size() >= 6) {
        int32_t len = (static_cast<uint8_t>(m.body[2]) << 24) |
                      (static_cast<uint8_t>(m.body[3]) << 16) |
                      (static_cast<uint8_t>(m.body[4]) << 8) | static_cast<uint8_t>(m.body[5]);
        kinds += len < 0 ? "[null]" : "[" + m.body.substr(6, static_cast<size_t>(len)) + "]";
      }
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
