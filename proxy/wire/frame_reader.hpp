#pragma once

#include <cstdint>
#include <string_view>

#include "common/error.hpp"

namespace pgrange::proxy {

/// What a frame decoder says about the bytes it was given (Envoy's three-way result).
enum class FrameStatus {
  kReady,     ///< a whole message is at the front of the buffer
  kNeedMore,  ///< the message is incomplete; read more bytes
  kInvalid,   ///< the bytes cannot be a valid message; close the connection
};

/// One framed protocol message: a type byte (0 for startup-phase packets) and its body.
struct Frame {
  char type = 0;
  std::string_view body;  ///< the bytes after the length word
  size_t total_size = 0;  ///< bytes the whole message occupies in the buffer
};

/// Outcome of inspecting the front of a buffer.
struct FrameResult {
  FrameStatus status = FrameStatus::kNeedMore;
  Frame frame;
  std::string reason;  ///< why the frame is invalid
};

/// Messages a client may send after startup (protocol 3.0, "Message Formats").
bool is_known_frontend_type(char type);

/// Decodes a regular message (type byte + Int32 length including itself + body) at the front of
/// `buf`, without trusting the length: lengths below 4 or above `max_size` are invalid.
FrameResult read_typed_frame(std::string_view buf, size_t max_size);

/// Decodes a startup-phase packet (Int32 length + body, no type byte): StartupMessage,
/// SSLRequest, GSSENCRequest or CancelRequest. Startup packets are small (PostgreSQL caps them at
/// 10000 bytes), so anything larger is invalid.
FrameResult read_startup_frame(std::string_view buf);

/// Protocol codes carried in the first Int32 of a startup packet body (protocol §55.7).
inline constexpr int32_t kProtocolVersion3 = 196608;  // 3.0
inline constexpr int32_t kSslRequestCode = 80877103;
inline constexpr int32_t kGssEncRequestCode = 80877104;
inline constexpr int32_t kCancelRequestCode = 80877102;
inline constexpr size_t kMaxStartupPacket = 10000;

}  // namespace pgrange::proxy
