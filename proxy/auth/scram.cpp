#include "proxy/auth/scram.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <charconv>
#include <climits>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "proxy/auth/base64.hpp"
#include "proxy/auth/saslprep.hpp"

namespace pgrange::proxy {
namespace {

using Key = std::array<uint8_t, kScramKeyLen>;

constexpr std::string_view kVerifierPrefix = "SCRAM-SHA-256$";
/// Raw nonce length before base64, as PostgreSQL's SCRAM_RAW_NONCE_LEN.
constexpr int kRawNonceLen = 18;
/// The only gs2 headers acceptable when no channel binding is offered (RFC 5802 section 6/7).
constexpr std::string_view kGs2HeaderNo = "n,,";

// --- crypto primitives (RFC 5802 section 2.2 notation) ---

/// HMAC-SHA-256(key, data), or nullopt if OpenSSL fails.
std::optional<Key> hmac(const uint8_t* key, size_t key_len, std::string_view data) {
  Key out{};
  unsigned int len = 0;
  if (HMAC(EVP_sha256(), key, static_cast<int>(key_len),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data(),
           &len) == nullptr ||
      len != kScramKeyLen) {
    return std::nullopt;
  }
  return out;
}

std::optional<Key> hmac(const Key& key, std::string_view data) {
  return hmac(key.data(), key.size(), data);
}

/// SHA-256(data), or nullopt if OpenSSL fails.
std::optional<Key> sha256(const Key& data) {
  Key out{};
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), out.data(), &len, EVP_sha256(), nullptr) != 1 ||
      len != kScramKeyLen) {
    return std::nullopt;
  }
  return out;
}

/// Hi(password, salt, i) = PBKDF2 with HMAC-SHA-256 (RFC 5802 section 2.2).
std::optional<Key> salted_password(std::string_view password, std::string_view salt,
                                   int iterations) {
  Key out{};
  if (PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                        reinterpret_cast<const unsigned char*>(salt.data()),
                        static_cast<int>(salt.size()), iterations, EVP_sha256(),
                        static_cast<int>(out.size()), out.data()) != 1) {
    return std::nullopt;
  }
  return out;
}

/// ClientKey and ServerKey derived from SaltedPassword.
struct DerivedKeys {
  Key client_key;
  Key stored_key;
  Key server_key;
};

std::optional<DerivedKeys> derive_keys(std::string_view password, std::string_view salt,
                                       int iterations) {
  auto salted = salted_password(password, salt, iterations);
  if (!salted) return std::nullopt;
  auto client_key = hmac(*salted, "Client Key");
  auto server_key = hmac(*salted, "Server Key");
  OPENSSL_cleanse(salted->data(), salted->size());
  if (!client_key || !server_key) return std::nullopt;
  auto stored_key = sha256(*client_key);
  if (!stored_key) return std::nullopt;
  return DerivedKeys{*client_key, *stored_key, *server_key};
}

std::string encode_key(const Key& key) {
  return base64_encode(std::span<const uint8_t>(key));
}

/// Decodes base64 that must hold exactly one SHA-256 output.
std::optional<Key> decode_key(std::string_view b64) {
  auto raw = base64_decode(b64);
  if (!raw || raw->size() != kScramKeyLen) return std::nullopt;
  Key out{};
  std::copy(raw->begin(), raw->end(), out.begin());
  return out;
}

// --- message syntax (RFC 5802 section 7) ---

/// Authentication failures end the connection, as in PostgreSQL.
tl::unexpected<Error> auth_fail(std::string_view code, std::string msg) {
  return fail(Error::fatal(code, std::move(msg)));
}

tl::unexpected<Error> malformed(std::string_view what) {
  return auth_fail(sqlstate::kProtocolViolation, "malformed SCRAM message: " + std::string(what));
}

/// Splits on ','. Safe because no SCRAM attribute value may contain a raw ',' (saslname escapes
/// it as "=2C", nonces, base64 and extension values exclude it).
std::vector<std::string_view> split_attributes(std::string_view msg) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t comma = msg.find(',', start);
    if (comma == std::string_view::npos) {
      parts.push_back(msg.substr(start));
      return parts;
    }
    parts.push_back(msg.substr(start, comma - start));
    start = comma + 1;
  }
}

/// Returns the value of `attr` if it is "<name>=<value>", else nullopt.
std::optional<std::string_view> attribute_value(std::string_view attr, char name) {
  if (attr.size() < 2 || attr[0] != name || attr[1] != '=') return std::nullopt;
  return attr.substr(2);
}

/// printable = %x21-2B / %x2D-7E (any printable ASCII except ','); nonces must be non-empty.
bool is_valid_nonce(std::string_view nonce) {
  if (nonce.empty()) return false;
  for (char c : nonce) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x21 || u > 0x7E || c == ',') return false;
  }
  return true;
}

/// saslname: value-safe-char / "=2C" / "=3D"; NUL, ',' and a bare '=' are forbidden.
bool is_valid_saslname(std::string_view name) {
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '\0' || c == ',') return false;
    if (c == '=') {
      const std::string_view esc = name.substr(i + 1, 2);
      if (esc != "2C" && esc != "3D") return false;
      i += 2;
    }
  }
  return true;
}

/// attr-val = ALPHA "=" value; value = 1*value-char (no NUL, no ',').
bool is_valid_extension(std::string_view attr) {
  if (attr.size() < 3 || attr[1] != '=') return false;
  const char a = attr[0];
  if (!((a >= 'a' && a <= 'z') || (a >= 'A' && a <= 'Z'))) return false;
  return attr.find('\0') == std::string_view::npos;
}

/// posit-number = %x31-39 *DIGIT, bounded by INT_MAX as PostgreSQL's iteration count is an int.
std::optional<int> parse_iterations(std::string_view text) {
  if (text.empty() || text[0] < '1' || text[0] > '9') return std::nullopt;
  int value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value <= 0) return std::nullopt;
  return value;
}

/// saslname encoding: ',' becomes "=2C" and '=' becomes "=3D" (RFC 5802 section 5.1, "n").
std::string escape_saslname(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    if (c == ',') {
      out.append("=2C");
    } else if (c == '=') {
      out.append("=3D");
    } else {
      out.push_back(c);
    }
  }
  return out;
}

/// Messages arrive in length-delimited protocol frames; an embedded NUL is never legal.
bool has_nul(std::string_view msg) {
  return msg.find('\0') != std::string_view::npos;
}

}  // namespace

std::string scram_random_nonce() {
  unsigned char raw[kRawNonceLen];
  if (RAND_bytes(raw, kRawNonceLen) != 1) return {};
  return base64_encode(std::span<const uint8_t>(raw, kRawNonceLen));
}

// ---------------------------------------------------------------- ScramVerifier

Result<ScramVerifier> ScramVerifier::parse(std::string_view text) {
  auto bad = [] {
    return fail(sqlstate::kInvalidTextRepresentation,
                "invalid SCRAM-SHA-256 secret: expected "
                "SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>");
  };
  if (!text.starts_with(kVerifierPrefix)) return bad();
  text.remove_prefix(kVerifierPrefix.size());
  // "<iter>:<salt>" '$' "<StoredKey>:<ServerKey>"; base64 never contains ':' or '$'.
  const size_t dollar = text.find('$');
  if (dollar == std::string_view::npos) return bad();
  const std::string_view params = text.substr(0, dollar);
  const std::string_view keys = text.substr(dollar + 1);
  const size_t c1 = params.find(':');
  const size_t c2 = keys.find(':');
  if (c1 == std::string_view::npos || c2 == std::string_view::npos) return bad();

  ScramVerifier v;
  auto iterations = parse_iterations(params.substr(0, c1));
  auto salt = base64_decode(params.substr(c1 + 1));
  auto stored = decode_key(keys.substr(0, c2));
  auto server = decode_key(keys.substr(c2 + 1));
  if (!iterations || !salt || salt->empty() || !stored || !server) return bad();
  v.iterations = *iterations;
  v.salt = std::move(*salt);
  v.stored_key = *stored;
  v.server_key = *server;
  return v;
}

ScramVerifier ScramVerifier::from_password(std::string_view password, std::string salt,
                                           int iterations) {
  // parse() rejects both, so allowing them here would produce secrets that cannot round-trip.
  if (iterations < 1) throw std::invalid_argument("SCRAM iteration count must be positive");
  if (salt.empty()) throw std::invalid_argument("SCRAM salt must not be empty");
  std::string prepared = saslprep(password);
  auto keys = derive_keys(prepared, salt, iterations);
  if (!prepared.empty()) OPENSSL_cleanse(prepared.data(), prepared.size());
  if (!keys) throw std::runtime_error("SCRAM-SHA-256 key derivation failed in OpenSSL");
  OPENSSL_cleanse(keys->client_key.data(), keys->client_key.size());
  ScramVerifier v;
  v.iterations = iterations;
  v.salt = std::move(salt);
  v.stored_key = keys->stored_key;
  v.server_key = keys->server_key;
  return v;
}

std::string ScramVerifier::to_string() const {
  return std::string(kVerifierPrefix) + std::to_string(iterations) + ":" + base64_encode(salt) +
         "$" + encode_key(stored_key) + ":" + encode_key(server_key);
}

// ---------------------------------------------------------------- ScramServer

ScramServer::ScramServer(ScramVerifier verifier, std::string user_name,
                         ScramNonceGenerator nonce_generator)
    : verifier_(std::move(verifier)),
      user_name_(std::move(user_name)),
      nonce_generator_(std::move(nonce_generator)) {}

Result<std::string> ScramServer::handle_client_first(std::string_view msg) {
  if (state_ != State::kInitial) {
    state_ = State::kFailed;
    return auth_fail(sqlstate::kProtocolViolation, "unexpected SCRAM client-first-message");
  }
  // Any early return below leaves the exchange failed; success flips the state at the end.
  state_ = State::kFailed;
  if (has_nul(msg)) return malformed("unexpected NUL byte");

  // gs2-header = gs2-cbind-flag "," [authzid] "," (RFC 5802 section 7).
  if (msg.starts_with("p=")) {
    // We never advertise SCRAM-SHA-256-PLUS, so a client must not select channel binding
    // (RFC 5802 section 6).
    return auth_fail(sqlstate::kProtocolViolation,
                     "client selected SCRAM channel binding, but the server did not offer "
                     "SCRAM-SHA-256-PLUS");
  }
  if (!msg.starts_with("n,") && !msg.starts_with("y,")) {
    return malformed("unexpected channel-binding flag");
  }
  if (msg.substr(2).starts_with("a=")) {
    // Same stance as PostgreSQL: authorization identities are not supported.
    return auth_fail(sqlstate::kFeatureNotSupported,
                     "client uses SCRAM authorization identity, but it is not supported");
  }
  if (msg.size() < 3 || msg[2] != ',') return malformed("invalid gs2 header");
  const std::string_view gs2_header = msg.substr(0, 3);
  const std::string_view bare = msg.substr(3);

  // client-first-message-bare = [reserved-mext ","] username "," nonce ["," extensions]
  const auto attrs = split_attributes(bare);
  if (!attrs.empty() && attrs[0].starts_with("m=")) {
    return auth_fail(sqlstate::kFeatureNotSupported,
                     "client requires an unsupported SCRAM extension");
  }
  if (attrs.size() < 2) return malformed("client-first-message is too short");
  auto user = attribute_value(attrs[0], 'n');
  if (!user || !is_valid_saslname(*user)) return malformed("invalid username attribute");
  auto client_nonce = attribute_value(attrs[1], 'r');
  if (!client_nonce || !is_valid_nonce(*client_nonce)) return malformed("invalid nonce attribute");
  for (size_t i = 2; i < attrs.size(); ++i) {
    if (!is_valid_extension(attrs[i])) return malformed("invalid extension attribute");
  }

  const std::string server_nonce = nonce_generator_ ? nonce_generator_() : std::string();
  if (!is_valid_nonce(server_nonce)) {
    return auth_fail(sqlstate::kInternalError, "could not generate SCRAM nonce");
  }

  gs2_header_ = std::string(gs2_header);
  client_first_bare_ = std::string(bare);
  nonce_ = std::string(*client_nonce) + server_nonce;
  server_first_ = "r=" + nonce_ + ",s=" + base64_encode(verifier_.salt) +
                  ",i=" + std::to_string(verifier_.iterations);
  state_ = State::kFirstHandled;
  return server_first_;
}

Result<std::string> ScramServer::handle_client_final(std::string_view msg) {
  if (state_ != State::kFirstHandled) {
    state_ = State::kFailed;
    return auth_fail(sqlstate::kProtocolViolation, "unexpected SCRAM client-final-message");
  }
  state_ = State::kFailed;
  if (has_nul(msg)) return malformed("unexpected NUL byte");

  // client-final-message = channel-binding "," nonce ["," extensions] "," proof
  const auto attrs = split_attributes(msg);
  if (attrs.size() < 3) return malformed("client-final-message is too short");
  auto cbind = attribute_value(attrs[0], 'c');
  if (!cbind) return malformed("expected channel-binding attribute");
  auto cbind_raw = base64_decode(*cbind);
  if (!cbind_raw) return malformed("invalid base64 in channel-binding attribute");
  // Without channel binding, c= carries just the gs2 header, which must be the one the client
  // sent first (RFC 5802 section 7, cbind-input); this catches gs2 flag downgrade tampering.
  if (*cbind_raw != gs2_header_) {
    return auth_fail(sqlstate::kProtocolViolation, "SCRAM channel binding check failed");
  }
  auto nonce = attribute_value(attrs[1], 'r');
  if (!nonce) return malformed("expected nonce attribute");
  if (*nonce != nonce_) {
    return auth_fail(sqlstate::kProtocolViolation, "SCRAM nonce does not match");
  }
  for (size_t i = 2; i + 1 < attrs.size(); ++i) {
    if (!is_valid_extension(attrs[i]) || attrs[i][0] == 'p') {
      return malformed("invalid extension attribute");
    }
  }
  auto proof_b64 = attribute_value(attrs.back(), 'p');
  if (!proof_b64) return malformed("expected proof attribute last");
  auto proof = decode_key(*proof_b64);
  if (!proof) return malformed("invalid ClientProof");

  // AuthMessage = client-first-message-bare "," server-first-message ","
  //               client-final-message-without-proof (RFC 5802 section 3).
  const std::string_view without_proof = msg.substr(0, msg.size() - attrs.back().size() - 1);
  std::string auth_message;
  auth_message.reserve(client_first_bare_.size() + server_first_.size() + without_proof.size() + 2);
  auth_message.append(client_first_bare_).append(",").append(server_first_).append(",");
  auth_message.append(without_proof);

  auto client_signature = hmac(verifier_.stored_key, auth_message);
  if (!client_signature) return auth_fail(sqlstate::kInternalError, "HMAC computation failed");
  // ClientKey = ClientProof XOR ClientSignature; the client knows the password iff
  // H(ClientKey) == StoredKey.
  Key client_key{};
  for (size_t i = 0; i < kScramKeyLen; ++i) client_key[i] = (*proof)[i] ^ (*client_signature)[i];
  auto computed_stored = sha256(client_key);
  if (!computed_stored ||
      CRYPTO_memcmp(computed_stored->data(), verifier_.stored_key.data(), kScramKeyLen) != 0) {
    OPENSSL_cleanse(client_key.data(), client_key.size());
    if (!computed_stored) return auth_fail(sqlstate::kInternalError, "SHA-256 computation failed");
    return auth_fail(sqlstate::kInvalidPassword,
                     "password authentication failed for user \"" + user_name_ + "\"");
  }
  client_key_ = client_key;
  OPENSSL_cleanse(client_key.data(), client_key.size());

  auto server_signature = hmac(verifier_.server_key, auth_message);
  if (!server_signature) return auth_fail(sqlstate::kInternalError, "HMAC computation failed");
  state_ = State::kDone;
  return "v=" + encode_key(*server_signature);
}

// ---------------------------------------------------------------- ScramClient

ScramClient::ScramClient(std::string password, ScramNonceGenerator nonce_generator,
                         std::string user_name)
    : password_(saslprep(password)),
      nonce_generator_(std::move(nonce_generator)),
      user_name_(std::move(user_name)) {
  // Only the prepared form is kept; the given one should not linger in freed memory either.
  if (!password.empty()) OPENSSL_cleanse(password.data(), password.size());
}

ScramClient::ScramClient(const std::array<uint8_t, kScramKeyLen>& client_key,
                         const ScramVerifier& verifier, ScramNonceGenerator nonce_generator)
    : nonce_generator_(std::move(nonce_generator)), keys_(Keys{client_key, verifier}) {}

ScramClient::~ScramClient() {
  if (keys_) OPENSSL_cleanse(keys_->client_key.data(), keys_->client_key.size());
  // The backend password should not linger in freed memory.
  if (!password_.empty()) OPENSSL_cleanse(password_.data(), password_.size());
}

std::string ScramClient::client_first() {
  if (state_ != State::kInitial) {
    state_ = State::kFailed;
    return {};
  }
  client_nonce_ = nonce_generator_ ? nonce_generator_() : std::string();
  if (!is_valid_nonce(client_nonce_)) {
    state_ = State::kFailed;
    return {};
  }
  // Like libpq: no channel binding ("n,,") and an empty user name, because the server takes the
  // user from the startup message (PostgreSQL protocol docs, "SCRAM-SHA-256 Authentication").
  client_first_bare_ = "n=" + escape_saslname(user_name_) + ",r=" + client_nonce_;
  state_ = State::kFirstSent;
  return std::string(kGs2HeaderNo) + client_first_bare_;
}

Result<std::string> ScramClient::handle_server_first(std::string_view msg) {
  if (state_ != State::kFirstSent) {
    const bool nonce_failed = state_ == State::kFailed && client_nonce_.empty();
    state_ = State::kFailed;
    if (nonce_failed) return auth_fail(sqlstate::kInternalError, "could not generate SCRAM nonce");
    return auth_fail(sqlstate::kProtocolViolation, "unexpected SCRAM server-first-message");
  }
  state_ = State::kFailed;
  if (has_nul(msg)) return malformed("unexpected NUL byte");

  // server-first-message = [reserved-mext ","] nonce "," salt "," iteration-count ["," ext]
  const auto attrs = split_attributes(msg);
  if (!attrs.empty() && attrs[0].starts_with("m=")) {
    return auth_fail(sqlstate::kFeatureNotSupported,
                     "server requires an unsupported SCRAM extension");
  }
  if (attrs.size() < 3) return malformed("server-first-message is too short");
  auto nonce = attribute_value(attrs[0], 'r');
  if (!nonce || !is_valid_nonce(*nonce)) return malformed("invalid nonce attribute");
  // The server must echo our nonce and append its own part (RFC 5802 section 5.1, "r").
  if (nonce->size() <= client_nonce_.size() || !nonce->starts_with(client_nonce_)) {
    return auth_fail(sqlstate::kProtocolViolation, "SCRAM nonce mismatch in server-first-message");
  }
  auto salt_b64 = attribute_value(attrs[1], 's');
  if (!salt_b64) return malformed("expected salt attribute");
  auto salt = base64_decode(*salt_b64);
  if (!salt || salt->empty()) return malformed("invalid salt");
  auto iter_text = attribute_value(attrs[2], 'i');
  if (!iter_text) return malformed("expected iteration-count attribute");
  auto iterations = parse_iterations(*iter_text);
  if (!iterations) return malformed("invalid iteration count");
  for (size_t i = 3; i < attrs.size(); ++i) {
    if (!is_valid_extension(attrs[i])) return malformed("invalid extension attribute");
  }

  std::optional<DerivedKeys> keys;
  if (keys_) {
    // A login with the keys of a client's own SCRAM login: the server's verifier of the role
    // must be the one the client's proof was checked against.
    if (*salt != keys_->verifier.salt || *iterations != keys_->verifier.iterations) {
      return auth_fail(sqlstate::kInvalidPassword,
                       "the server's SCRAM verifier of the role differs from pgrange's (another "
                       "salt or iteration count): give the role the same verifier everywhere");
    }
    auto stored = sha256(keys_->client_key);
    if (!stored) return auth_fail(sqlstate::kInternalError, "SHA-256 computation failed");
    keys = DerivedKeys{keys_->client_key, *stored, keys_->verifier.server_key};
  } else {
    keys = derive_keys(password_, *salt, *iterations);
  }
  if (!keys) return auth_fail(sqlstate::kInternalError, "SCRAM key derivation failed");

  // "biws" is base64("n,,"): no channel binding data follows the gs2 header.
  const std::string without_proof =
      "c=" + base64_encode(kGs2HeaderNo) + ",r=" + std::string(*nonce);
  const std::string auth_message =
      client_first_bare_ + "," + std::string(msg) + "," + without_proof;

  auto client_signature = hmac(keys->stored_key, auth_message);
  auto server_signature = hmac(keys->server_key, auth_message);
  if (!client_signature || !server_signature) {
    OPENSSL_cleanse(keys->client_key.data(), keys->client_key.size());
    return auth_fail(sqlstate::kInternalError, "HMAC computation failed");
  }
  // ClientProof = ClientKey XOR ClientSignature (RFC 5802 section 3).
  Key proof{};
  for (size_t i = 0; i < kScramKeyLen; ++i) {
    proof[i] = keys->client_key[i] ^ (*client_signature)[i];
  }
  OPENSSL_cleanse(keys->client_key.data(), keys->client_key.size());
  expected_server_signature_ = *server_signature;
  state_ = State::kFinalSent;
  return without_proof + ",p=" + encode_key(proof);
}

Result<void> ScramClient::verify_server_final(std::string_view msg) {
  if (state_ != State::kFinalSent) {
    state_ = State::kFailed;
    return auth_fail(sqlstate::kProtocolViolation, "unexpected SCRAM server-final-message");
  }
  state_ = State::kFailed;
  if (has_nul(msg)) return malformed("unexpected NUL byte");

  // server-final-message = (server-error / verifier) ["," extensions] (RFC 5802 section 7).
  const auto attrs = split_attributes(msg);
  for (size_t i = 1; i < attrs.size(); ++i) {
    if (!is_valid_extension(attrs[i])) return malformed("invalid extension attribute");
  }
  if (auto error = attribute_value(attrs[0], 'e')) {
    return auth_fail(sqlstate::kInvalidPassword, "SCRAM authentication failed: server reported \"" +
                                                     std::string(*error) + "\"");
  }
  auto verifier_b64 = attribute_value(attrs[0], 'v');
  if (!verifier_b64) return malformed("expected verifier attribute");
  auto signature = decode_key(*verifier_b64);
  if (!signature) return malformed("invalid ServerSignature");
  // A matching ServerSignature proves the backend knows ServerKey (mutual authentication).
  if (CRYPTO_memcmp(signature->data(), expected_server_signature_.data(), kScramKeyLen) != 0) {
    return auth_fail(sqlstate::kInvalidAuthorization,
                     "SCRAM server signature mismatch: the server did not prove it knows the "
                     "password");
  }
  state_ = State::kDone;
  return {};
}

}  // namespace pgrange::proxy
