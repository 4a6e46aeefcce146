#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace pgrange::proxy {

/// The SASL mechanism name pgrange offers and uses (RFC 7677; no "-PLUS" channel binding).
inline constexpr std::string_view kScramSha256Mechanism = "SCRAM-SHA-256";

/// Default iteration count, as PostgreSQL's scram_iterations default (RFC 7677 section 4 minimum).
inline constexpr int kScramDefaultIterations = 4096;

/// Size of SHA-256 outputs: StoredKey, ServerKey, proofs and signatures.
inline constexpr size_t kScramKeyLen = 32;

/// Produces a nonce: printable ASCII without ',' (RFC 5802 section 7, "r=" attribute).
/// Returning "" signals failure (e.g. RAND_bytes failed); the state machines then report an error.
using ScramNonceGenerator = std::function<std::string()>;

/// The default nonce generator: 18 random bytes from RAND_bytes, base64-encoded, the same length
/// PostgreSQL's server (SCRAM_RAW_NONCE_LEN) and libpq use.
std::string scram_random_nonce();

/// A stored SCRAM-SHA-256 secret in PostgreSQL's pg_authid format
/// "SCRAM-SHA-256$<iterations>:<salt b64>$<StoredKey b64>:<ServerKey b64>" (RFC 5803 layout).
struct ScramVerifier {
  int iterations = 0;
  std::string salt;  ///< raw bytes
  std::array<uint8_t, kScramKeyLen> stored_key{};
  std::array<uint8_t, kScramKeyLen> server_key{};

  /// Parses PostgreSQL's format strictly; anything else is a 22P02 error.
  static Result<ScramVerifier> parse(std::string_view text);

  /// Derives a verifier from a plaintext password (RFC 5802 section 3): SaltedPassword =
  /// PBKDF2-HMAC-SHA-256(password, salt, iterations), StoredKey = H(HMAC(SaltedPassword,
  /// "Client Key")), ServerKey = HMAC(SaltedPassword, "Server Key"). The password first goes
  /// through saslprep() (RFC 4013), as PostgreSQL's CREATE ROLE and ALTER ROLE do, so the result
  /// equals the secret PostgreSQL stores for the same password and salt. This is a control-plane
  /// helper: it throws std::invalid_argument for iterations < 1 or an empty salt (parse() would
  /// reject the result) and std::runtime_error if OpenSSL's PBKDF2/HMAC or ICU's normaliser fails.
  static ScramVerifier from_password(std::string_view password, std::string salt,
                                     int iterations = kScramDefaultIterations);

  /// Formats the verifier in PostgreSQL's format (round-trips with parse()).
  std::string to_string() const;

  bool operator==(const ScramVerifier&) const = default;
};

/// Server side of SCRAM-SHA-256 (pgrange authenticating a client), as PostgreSQL speaks it
/// (protocol chapter "SASL Authentication"): no channel binding is offered, so the gs2 header must
/// be "n,," or "y,,"; an authzid or "p=" channel binding is refused. Call handle_client_first()
/// then handle_client_final() exactly once each; after any error the exchange is dead and every
/// later call fails. All errors are FATAL (authentication ends the connection on failure).
class ScramServer {
 public:
  /// `user_name` only feeds error messages (PostgreSQL takes the user from the startup message and
  /// ignores the SCRAM "n=" attribute); `nonce_generator` is injectable for tests.
  explicit ScramServer(ScramVerifier verifier, std::string user_name = {},
                       ScramNonceGenerator nonce_generator = scram_random_nonce);

  /// Consumes the client-first-message (RFC 5802 section 7) and returns the server-first-message
  /// "r=<client nonce><server nonce>,s=<salt b64>,i=<iterations>".
  Result<std::string> handle_client_first(std::string_view client_first_message);

  /// Consumes the client-final-message, checks channel binding data, nonce and ClientProof
  /// (RFC 5802 section 3) and returns the server-final-message "v=<ServerSignature b64>";
  /// a wrong proof is a 28P01 error.
  Result<std::string> handle_client_final(std::string_view client_final_message);

  /// True once handle_client_final() succeeded.
  bool authenticated() const { return state_ == State::kDone; }

  /// The client's ClientKey (its proof XOR the ClientSignature), once authenticated: with the
  /// verifier's ServerKey it logs in to a server holding the same verifier (PgBouncer's SCRAM
  /// pass-through), without the password.
  std::optional<std::array<uint8_t, kScramKeyLen>> client_key() const {
    if (state_ != State::kDone) return std::nullopt;
    return client_key_;
  }

 private:
  enum class State { kInitial, kFirstHandled, kDone, kFailed };

  ScramVerifier verifier_;
  std::string user_name_;
  ScramNonceGenerator nonce_generator_;
  State state_ = State::kInitial;
  std::string gs2_header_;
  std::string client_first_bare_;
  std::string server_first_;
  std::string nonce_;  ///< client nonce + server nonce
  std::array<uint8_t, kScramKeyLen> client_key_{};
};

/// Client side of SCRAM-SHA-256 (pgrange authenticating to a backend with the shard DSN's
/// password), matching libpq: gs2 header "n,,", empty user name "n=" (the user travels in the
/// startup message). Call client_first(), handle_server_first(), verify_server_final() in order.
class ScramClient {
 public:
  /// The password goes through saslprep() (RFC 4013) here, as libpq prepares it, so a backend's
  /// verifier made by PostgreSQL from the same password accepts it; throws std::runtime_error only
  /// if ICU's normaliser fails.
  /// `user_name` goes into "n=" (escaped per RFC 5802 section 5.1); leave it empty, as libpq does,
  /// when talking to PostgreSQL. It exists for RFC test vectors and non-PostgreSQL peers.
  explicit ScramClient(std::string password,
                       ScramNonceGenerator nonce_generator = scram_random_nonce,
                       std::string user_name = {});
  /// Logs in with the ClientKey of a client's own SCRAM login (ScramServer::client_key) and the
  /// verifier it was checked against, instead of a password: the server must hold the same
  /// verifier (salt, iteration count, keys), else handle_server_first() fails with 28P01.
  ScramClient(const std::array<uint8_t, kScramKeyLen>& client_key, const ScramVerifier& verifier,
              ScramNonceGenerator nonce_generator = scram_random_nonce);
  ~ScramClient();
  ScramClient(const ScramClient&) = delete;
  ScramClient& operator=(const ScramClient&) = delete;

  /// Returns the client-first-message "n,,n=<user>,r=<nonce>" (normally "n,,n=,r=...") for
  /// SASLInitialResponse. Returns "" only if the nonce generator failed; handle_server_first() then
  /// reports the error.
  std::string client_first();

  /// Consumes the server-first-message and returns the client-final-message
  /// "c=biws,r=<nonce>,p=<ClientProof b64>" (RFC 5802 section 7).
  Result<std::string> handle_server_first(std::string_view server_first_message);

  /// Checks the server-final-message: "v=" must carry the expected ServerSignature (RFC 5802
  /// section 3, mutual authentication); "e=<error>" is reported as an error.
  Result<void> verify_server_final(std::string_view server_final_message);

 private:
  enum class State { kInitial, kFirstSent, kFinalSent, kDone, kFailed };

  std::string password_;
  ScramNonceGenerator nonce_generator_;
  std::string user_name_;
  State state_ = State::kInitial;
  std::string client_nonce_;
  std::string client_first_bare_;
  std::array<uint8_t, kScramKeyLen> expected_server_signature_{};
  struct Keys {
    std::array<uint8_t, kScramKeyLen> client_key;
    ScramVerifier verifier;
  };
  std::optional<Keys> keys_;  ///< set: a login with a client's keys, not with password_
};

}  // namespace pgrange::proxy
