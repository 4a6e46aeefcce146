#include "proxy/auth/md5_auth.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>

namespace pgrange::proxy {
namespace {

constexpr std::string_view kMd5Prefix = "md5";
constexpr size_t kMd5HexLen = 32;

/// Lowercase hex of md5(data), or "" when OpenSSL cannot compute MD5 (e.g. a FIPS-only
/// configuration without the default provider); callers propagate "" as "no usable hash".
std::string md5_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &len, EVP_md5(), nullptr) != 1 || len != 16) {
    return {};
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(kMd5HexLen);
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 0x0F]);
  }
  return out;
}

}  // namespace

std::string md5_password_hash(std::string_view password, std::string_view user) {
  std::string input;
  input.reserve(password.size() + user.size());
  input.append(password).append(user);
  std::string hex = md5_hex(input);
  if (hex.empty()) return {};
  return std::string(kMd5Prefix) + hex;
}

bool is_md5_password_hash(std::string_view value) {
  if (value.size() != kMd5Prefix.size() + kMd5HexLen || !value.starts_with(kMd5Prefix)) {
    return false;
  }
  for (char c : value.substr(kMd5Prefix.size())) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::string md5_response(std::string_view stored_hash_or_password, std::string_view user,
                         std::array<uint8_t, 4> salt) {
  const std::string stored = is_md5_password_hash(stored_hash_or_password)
                                 ? std::string(stored_hash_or_password)
                                 : md5_password_hash(stored_hash_or_password, user);
  if (stored.empty()) return {};
  // Second round hashes the 32 hex digits (without "md5") followed by the raw 4 salt bytes.
  std::string input = stored.substr(kMd5Prefix.size());
  input.append(reinterpret_cast<const char*>(salt.data()), salt.size());
  std::string hex = md5_hex(input);
  if (hex.empty()) return {};
  return std::string(kMd5Prefix) + hex;
}

bool md5_verify(std::string_view client_response, std::string_view stored_hash_or_password,
                std::string_view user, std::array<uint8_t, 4> salt) {
  const std::string expected = md5_response(stored_hash_or_password, user, salt);
  // The length is public (always 35 for a well-formed response), so an early length check leaks
  // nothing; the contents are compared without data-dependent timing.
  // An empty expectation means MD5 is unavailable; it must never match an empty response.
  if (expected.empty() || client_response.size() != expected.size()) return false;
  return CRYPTO_memcmp(client_response.data(), expected.data(), expected.size()) == 0;
}

}  // namespace pgrange::proxy
