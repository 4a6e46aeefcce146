#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace pgrange::proxy {

/// PostgreSQL's stored md5 password: "md5" + hex(md5(password + user)), 35 characters
/// (PostgreSQL protocol docs, AuthenticationMD5Password; src/common/md5_common.c).
/// Returns "" only if OpenSSL cannot provide MD5 (FIPS-only configuration); the same holds for
/// md5_response().
std::string md5_password_hash(std::string_view password, std::string_view user);

/// True when `value` has the shape of a stored md5 hash: "md5" followed by 32 lowercase hex
/// digits, as PostgreSQL's isMD5() and md5_password_hash() produce it.
bool is_md5_password_hash(std::string_view value);

/// The PasswordMessage body a client sends for AuthenticationMD5Password:
/// "md5" + hex(md5(hex_part(md5_password_hash(password, user)) + salt)).
/// `stored_hash_or_password` may be the plaintext password or an already hashed "md5..." value
/// (see is_md5_password_hash); a plaintext password that happens to look like a hash is treated as
/// a hash, exactly as PostgreSQL does for stored passwords.
std::string md5_response(std::string_view stored_hash_or_password, std::string_view user,
                         std::array<uint8_t, 4> salt);

/// Checks a client's md5 response against the stored hash or plaintext password in constant time
/// (with respect to the response contents) using CRYPTO_memcmp.
bool md5_verify(std::string_view client_response, std::string_view stored_hash_or_password,
                std::string_view user, std::array<uint8_t, 4> salt);

}  // namespace pgrange::proxy
