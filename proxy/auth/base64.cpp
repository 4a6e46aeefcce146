#include "proxy/auth/base64.hpp"

#include <array>

namespace pgrange::proxy {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Marks bytes outside the alphabet in the reverse table.
constexpr uint8_t kInvalid = 0xFF;

/// Maps each byte to its 6-bit value, or kInvalid.
constexpr std::array<uint8_t, 256> make_decode_table() {
  std::array<uint8_t, 256> table{};
  for (auto& v : table) v = kInvalid;
  for (size_t i = 0; i < kAlphabet.size(); ++i) {
    table[static_cast<uint8_t>(kAlphabet[i])] = static_cast<uint8_t>(i);
  }
  return table;
}

constexpr std::array<uint8_t, 256> kDecodeTable = make_decode_table();

}  // namespace

std::string base64_encode(std::span<const uint8_t> bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    out.push_back(kAlphabet[(v >> 18) & 0x3F]);
    out.push_back(kAlphabet[(v >> 12) & 0x3F]);
    out.push_back(kAlphabet[(v >> 6) & 0x3F]);
    out.push_back(kAlphabet[v & 0x3F]);
  }
  // The final quantum of one or two bytes is padded with '=' (RFC 4648 section 4, cases 2-3).
  const size_t rest = bytes.size() - i;
  if (rest == 1) {
    const uint32_t v = uint32_t{bytes[i]} << 16;
    out.push_back(kAlphabet[(v >> 18) & 0x3F]);
    out.push_back(kAlphabet[(v >> 12) & 0x3F]);
    out.append("==");
  } else if (rest == 2) {
    const uint32_t v = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8);
    out.push_back(kAlphabet[(v >> 18) & 0x3F]);
    out.push_back(kAlphabet[(v >> 12) & 0x3F]);
    out.push_back(kAlphabet[(v >> 6) & 0x3F]);
    out.push_back('=');
  }
  return out;
}

std::string base64_encode(std::string_view bytes) {
  return base64_encode(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    // Padding is legal only in the last quantum, as "xx==" or "xxx=" (RFC 4648 section 3.2).
    size_t pad = 0;
    if (last) {
      if (text[i + 3] == '=') pad = text[i + 2] == '=' ? 2 : 1;
    }
    uint32_t v = 0;
    for (size_t k = 0; k < 4 - pad; ++k) {
      const uint8_t d = kDecodeTable[static_cast<uint8_t>(text[i + k])];
      if (d == kInvalid) return std::nullopt;  // also rejects '=' in the middle
      v |= uint32_t{d} << (18 - 6 * k);
    }
    out.push_back(static_cast<char>((v >> 16) & 0xFF));
    if (pad == 2) {
      // Non-zero discarded bits would make two encodings decode alike (RFC 4648 section 3.5).
      if ((v & 0xFFFF) != 0) return std::nullopt;
      continue;
    }
    out.push_back(static_cast<char>((v >> 8) & 0xFF));
    if (pad == 1) {
      if ((v & 0xFF) != 0) return std::nullopt;
      continue;
    }
    out.push_back(static_cast<char>(v & 0xFF));
  }
  return out;
}

}  // namespace pgrange::proxy
