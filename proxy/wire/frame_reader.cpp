#include "proxy/wire/frame_reader.hpp"

#include <array>

#include "proxy/wire/byte_buffer.hpp"

namespace pgrange::proxy {
namespace {

/// Frontend message types of protocol 3.0, as a lookup table rather than a switch.
constexpr std::array<bool, 256> make_frontend_table() {
  std::array<bool, 256> t{};
  for (char c : std::string_view("BCcdDEfFHPpQSX")) t[static_cast<uint8_t>(c)] = true;
  return t;
}
constexpr std::array<bool, 256> kFrontendTypes = make_frontend_table();

}  // namespace

bool is_known_frontend_type(char type) {
  return kFrontendTypes[static_cast<uint8_t>(type)];
}

FrameResult read_typed_frame(std::string_view buf, size_t max_size) {
  FrameResult r;
  if (buf.size() < 5) return r;
  int32_t len = read_i32(buf.data() + 1);
  // Like PgBouncer's get_header(): don't believe nonsense lengths.
  if (len < 4) {
    r.status = FrameStatus::kInvalid;
    r.reason = "invalid message length " + std::to_string(len);
    return r;
  }
  if (static_cast<size_t>(len) > max_size) {
    r.status = FrameStatus::kInvalid;
    r.reason = "message of " + std::to_string(len) + " bytes exceeds the limit of " +
               std::to_string(max_size);
    return r;
  }
  size_t total = static_cast<size_t>(len) + 1;
  if (buf.size() < total) return r;
  r.status = FrameStatus::kReady;
  r.frame.type = buf[0];
  r.frame.body = buf.substr(5, total - 5);
  r.frame.total_size = total;
  return r;
}

FrameResult read_startup_frame(std::string_view buf) {
  FrameResult r;
  if (buf.size() < 4) return r;
  int32_t len = read_i32(buf.data());
  if (len < 8 || static_cast<size_t>(len) > kMaxStartupPacket) {
    r.status = FrameStatus::kInvalid;
    r.reason = "invalid startup packet length " + std::to_string(len);
    return r;
  }
  if (buf.size() < static_cast<size_t>(len)) return r;
  r.status = FrameStatus::kReady;
  r.frame.type = 0;
  r.frame.body = buf.substr(4, static_cast<size_t>(len) - 4);
  r.frame.total_size = static_cast<size_t>(len);
  return r;
}

}  // namespace pgrange::proxy
