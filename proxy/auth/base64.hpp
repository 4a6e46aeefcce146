#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace pgrange::proxy {

/// Encodes bytes as standard base64 (RFC 4648 section 4: "+/" alphabet, '=' padding).
std::string base64_encode(std::span<const uint8_t> bytes);

/// Encodes the bytes of a string as standard base64 (RFC 4648 section 4).
std::string base64_encode(std::string_view bytes);

/// Decodes standard padded base64 strictly: the length must be a multiple of 4, only the RFC 4648
/// section 4 alphabet is allowed, '=' may appear only as the final one or two characters, and the
/// unused bits before the padding must be zero (RFC 4648 section 3.5), so every accepted input is
/// the canonical encoding of its result. No whitespace is skipped. Returns nullopt on any
/// violation; the empty string decodes to the empty string.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace pgrange::proxy
