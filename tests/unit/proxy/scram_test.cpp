#include "proxy/auth/scram.hpp"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "proxy/auth/base64.hpp"
#include "tests/unit/proxy/scram_exchange.hpp"

namespace pgrange::proxy {
namespace {

// RFC 7677 section 3 test vector.
constexpr std::string_view kRfcPassword = "pencil";
constexpr std::string_view kRfcClientNonce = "rOprNGfwEbeRWgbNEkqO";
constexpr std::string_view kRfcServerNonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
constexpr std::string_view kRfcSaltB64 = "W22ZaJ0SNY7soEsUEjb6gQ==";
constexpr std::string_view kRfcClientFirst = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
constexpr std::string_view kRfcServerFirst =
    "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
constexpr std::string_view kRfcClientFinal =
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
    "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
constexpr std::string_view kRfcServerFinal = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

// Produced by libpq 15.20's PQencryptPasswordConn(conn, "secret", "alice", "scram-sha-256"),
// i.e. PostgreSQL's own scram_build_secret() with a random salt.
constexpr std::string_view kRealPgVerifierSecret =
    "SCRAM-SHA-256$4096:SWqThN2c4uVnQWUski7YvQ==$mvlGPD06tNFZDSlgdwEdLyy69Y1N7LTg4wVvsnJ244M=:"
    "NYsDDQrwg0pF0RKaYxv5YyEQ+hd8jJ1AF46BOm/5/ew=";

ScramNonceGenerator fixed_nonce(std::string_view nonce) {
  return [n = std::string(nonce)] { return n; };
}

/// The RFC 7677 verifier, derived once (4096 PBKDF2 rounds are slow under sanitizers).
const ScramVerifier& rfc_verifier() {
  static const ScramVerifier v =
      ScramVerifier::from_password(kRfcPassword, *base64_decode(kRfcSaltB64), 4096);
  return v;
}

/// A cheap verifier for loops (few PBKDF2 iterations keeps the fuzz loops fast under ASan).
ScramVerifier cheap_verifier(std::string_view password) {
  return ScramVerifier::from_password(password, "0123456789abcdef", 16);
}

// ------------------------------------------------------------------ base64

TEST(Base64Test, EncodesRfc4648Vectors) {
  // RFC 4648 section 10.
  EXPECT_EQ(base64_encode(std::string_view("")), "");
  EXPECT_EQ(base64_encode(std::string_view("f")), "Zg==");
  EXPECT_EQ(base64_encode(std::string_view("fo")), "Zm8=");
  EXPECT_EQ(base64_encode(std::string_view("foo")), "Zm9v");
  EXPECT_EQ(base64_encode(std::string_view("foob")), "Zm9vYg==");
  EXPECT_EQ(base64_encode(std::string_view("fooba")), "Zm9vYmE=");
  EXPECT_EQ(base64_encode(std::string_view("foobar")), "Zm9vYmFy");
  EXPECT_EQ(base64_encode(std::string_view("\xfb\xff\xbf", 3)), "+/+/");
}

TEST(Base64Test, DecodesRfc4648Vectors) {
  EXPECT_EQ(base64_decode(""), std::string(""));
  EXPECT_EQ(base64_decode("Zg=="), std::string("f"));
  EXPECT_EQ(base64_decode("Zm8="), std::string("fo"));
  EXPECT_EQ(base64_decode("Zm9v"), std::string("foo"));
  EXPECT_EQ(base64_decode("Zm9vYg=="), std::string("foob"));
  EXPECT_EQ(base64_decode("Zm9vYmE="), std::string("fooba"));
  EXPECT_EQ(base64_decode("Zm9vYmFy"), std::string("foobar"));
  EXPECT_EQ(base64_decode("+/+/"), std::string("\xfb\xff\xbf", 3));
}

TEST(Base64Test, RejectsInvalidInput) {
  for (std::string_view bad :
       {"Z", "Zg", "Zg=", "Zm9vY", "Zg===", "====", "=Zg=", "Z=g=", "Zg==Zg==", "Zm9v\n", " Zm9v",
        "Zm-v", "Zm_v", "Zm9v====", "Zh==", "Zm9=", "Zg=A"}) {
    EXPECT_FALSE(base64_decode(bad).has_value()) << bad;
  }
  EXPECT_FALSE(base64_decode(std::string_view("Zm\0v", 4)).has_value());
}

TEST(Base64Test, RoundTripsAllByteValuesAndLengths) {
  std::mt19937 rng(7);
  for (size_t len = 0; len < 70; ++len) {
    std::string data(len, '\0');
    for (auto& c : data) c = static_cast<char>(rng());
    const std::string enc = base64_encode(data);
    EXPECT_EQ(enc.size() % 4, 0u);
    EXPECT_EQ(base64_decode(enc), data);
  }
}

// ------------------------------------------------------------------ verifier

TEST(ScramVerifierTest, ParsesRealPostgresSecretAndMatchesDerivation) {
  auto v = ScramVerifier::parse(kRealPgVerifierSecret);
  ASSERT_TRUE(v.has_value()) << v.error().to_string();
  EXPECT_EQ(v->iterations, 4096);
  EXPECT_EQ(v->salt, *base64_decode("SWqThN2c4uVnQWUski7YvQ=="));
  // Our PBKDF2/HMAC derivation must reproduce PostgreSQL's keys for the same salt.
  EXPECT_EQ(ScramVerifier::from_password("secret", v->salt, v->iterations), *v);
  EXPECT_NE(ScramVerifier::from_password("Secret", v->salt, v->iterations), *v);
  EXPECT_EQ(v->to_string(), kRealPgVerifierSecret);
}

TEST(ScramVerifierTest, MatchesLibpqAtRuntime) {
  // Cross-check against the linked libpq: PQencryptPasswordConn needs a PGconn object but no
  // connection for an explicit algorithm, so a never-connected handle suffices.
  PGconn* conn = PQconnectStart("host=/nonexistent-pgrange-test-dir");
  ASSERT_NE(conn, nullptr);
  for (const char* password : {"secret", "", "p@ss,w=rd with spaces", "\x7f\x01tricky"}) {
    char* secret = PQencryptPasswordConn(conn, password, "alice", "scram-sha-256");
    ASSERT_NE(secret, nullptr) << PQerrorMessage(conn);
    auto v = ScramVerifier::parse(secret);
    ASSERT_TRUE(v.has_value()) << secret;
    EXPECT_EQ(ScramVerifier::from_password(password, v->salt, v->iterations), *v) << password;
    EXPECT_EQ(v->to_string(), secret);
    PQfreemem(secret);
  }
  // Already-normalised UTF-8 ("\u00e9t\u00e9") is left alone by SASLprep, so raw bytes match.
  {
    char* secret = PQencryptPasswordConn(conn, "\xc3\xa9t\xc3\xa9", "alice", "scram-sha-256");
    ASSERT_NE(secret, nullptr);
    auto v = ScramVerifier::parse(secret);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(ScramVerifier::from_password("\xc3\xa9t\xc3\xa9", v->salt, v->iterations), *v);
    PQfreemem(secret);
  }
  // "e" + U+0301 is NFKC-composed by SASLprep, libpq's and pgrange's alike, so the decomposed and
  // the composed forms derive the same keys (saslprep_test.cpp covers SASLprep's other rules).
  {
    char* secret = PQencryptPasswordConn(conn, "e\xcc\x81", "alice", "scram-sha-256");
    ASSERT_NE(secret, nullptr);
    auto v = ScramVerifier::parse(secret);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(ScramVerifier::from_password("e\xcc\x81", v->salt, v->iterations), *v);
    EXPECT_EQ(ScramVerifier::from_password("\xc3\xa9", v->salt, v->iterations), *v);
    PQfreemem(secret);
  }
  PQfinish(conn);
}

TEST(ScramVerifierTest, FromPasswordRoundTrips) {
  const ScramVerifier v = ScramVerifier::from_password("secret", "fixed-salt-bytes", 4096);
  EXPECT_EQ(v.iterations, 4096);
  EXPECT_EQ(v.salt, "fixed-salt-bytes");
  const std::string text = v.to_string();
  EXPECT_TRUE(text.starts_with("SCRAM-SHA-256$4096:"));
  auto parsed = ScramVerifier::parse(text);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, v);
  // Deterministic for a fixed salt, different for another salt.
  EXPECT_EQ(ScramVerifier::from_password("secret", "fixed-salt-bytes", 4096), v);
  EXPECT_NE(ScramVerifier::from_password("secret", "other-salt-bytes", 4096), v);
}

TEST(ScramVerifierTest, FromPasswordRejectsUnparseableParameters) {
  EXPECT_THROW(ScramVerifier::from_password("pw", "salt", 0), std::invalid_argument);
  EXPECT_THROW(ScramVerifier::from_password("pw", "", 4096), std::invalid_argument);
}

TEST(ScramVerifierTest, RejectsMalformedSecrets) {
  const std::string good(kRealPgVerifierSecret);
  const std::string keys =
      "$mvlGPD06tNFZDSlgdwEdLyy69Y1N7LTg4wVvsnJ244M=:NYsDDQrwg0pF0RKaYxv5YyEQ+hd8jJ1AF46BOm/5/ew=";
  for (const std::string& bad : std::vector<std::string>{
           std::string(""),
           std::string("md54a0a68b43b6cd5cf266fa02f196e2371"),
           "scram-sha-256$4096:SWqThN2c4uVnQWUski7YvQ==" + keys,
           "SCRAM-SHA-256$0:SWqThN2c4uVnQWUski7YvQ==" + keys,
           "SCRAM-SHA-256$-1:SWqThN2c4uVnQWUski7YvQ==" + keys,
           "SCRAM-SHA-256$04096:SWqThN2c4uVnQWUski7YvQ==" + keys,
           "SCRAM-SHA-256$99999999999:SWqThN2c4uVnQWUski7YvQ==" + keys,
           "SCRAM-SHA-256$4096x:SWqThN2c4uVnQWUski7YvQ==" + keys,
           "SCRAM-SHA-256$:SWqThN2c4uVnQWUski7YvQ==" + keys,
           "SCRAM-SHA-256$4096:" + keys,                             // empty salt
           "SCRAM-SHA-256$4096:SWqThN2c4uVnQWUski7YvQ=" + keys,      // bad base64
           "SCRAM-SHA-256$4096SWqThN2c4uVnQWUski7YvQ==" + keys,      // missing ':'
           "SCRAM-SHA-256$4096:SWqThN2c4uVnQWUski7YvQ==",            // no keys
           good.substr(0, good.size() - 4),                          // truncated ServerKey
           good + "AAAA",                                            // ServerKey too long
           "SCRAM-SHA-256$4096:SWqThN2c4uVnQWUski7YvQ==$Zm9v:Zm9v",  // short keys
           good + "$",
       }) {
    auto v = ScramVerifier::parse(bad);
    ASSERT_FALSE(v.has_value()) << bad;
    EXPECT_EQ(v.error().sqlstate, sqlstate::kInvalidTextRepresentation);
  }
}

// ------------------------------------------------------------------ RFC 7677 vector

TEST(ScramServerTest, Rfc7677Vector) {
  ScramServer server(rfc_verifier(), "user", fixed_nonce(kRfcServerNonce));
  auto first = server.handle_client_first(kRfcClientFirst);
  ASSERT_TRUE(first.has_value()) << first.error().to_string();
  EXPECT_EQ(*first, kRfcServerFirst);
  EXPECT_FALSE(server.authenticated());
  auto final_msg = server.handle_client_final(kRfcClientFinal);
  ASSERT_TRUE(final_msg.has_value()) << final_msg.error().to_string();
  EXPECT_EQ(*final_msg, kRfcServerFinal);
  EXPECT_TRUE(server.authenticated());
}

TEST(ScramClientTest, Rfc7677Vector) {
  ScramClient client(std::string(kRfcPassword), fixed_nonce(kRfcClientNonce), "user");
  EXPECT_EQ(client.client_first(), kRfcClientFirst);
  auto final_msg = client.handle_server_first(kRfcServerFirst);
  ASSERT_TRUE(final_msg.has_value()) << final_msg.error().to_string();
  EXPECT_EQ(*final_msg, kRfcClientFinal);
  auto ok = client.verify_server_final(kRfcServerFinal);
  EXPECT_TRUE(ok.has_value()) << ok.error().to_string();
}

TEST(ScramClientTest, WrongServerSignatureRejected) {
  ScramClient client(std::string(kRfcPassword), fixed_nonce(kRfcClientNonce), "user");
  client.client_first();
  ASSERT_TRUE(client.handle_server_first(kRfcServerFirst).has_value());
  // Last signature byte changed: a server that does not know ServerKey.
  auto res = client.verify_server_final("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G0=");
  ASSERT_FALSE(res.has_value());
  EXPECT_EQ(res.error().sqlstate, sqlstate::kInvalidAuthorization);
}

TEST(ScramClientTest, ClientWithWrongPasswordIsRejectedByServer) {
  ScramClient client("pencil2", fixed_nonce(kRfcClientNonce), "user");
  client.client_first();
  auto final_msg = client.handle_server_first(kRfcServerFirst);
  ASSERT_TRUE(final_msg.has_value());
  EXPECT_NE(*final_msg, kRfcClientFinal);
  ScramServer server(rfc_verifier(), "user", fixed_nonce(kRfcServerNonce));
  ASSERT_TRUE(server.handle_client_first(kRfcClientFirst).has_value());
  auto res = server.handle_client_final(*final_msg);
  ASSERT_FALSE(res.has_value());
  EXPECT_EQ(res.error().sqlstate, sqlstate::kInvalidPassword);
  EXPECT_EQ(res.error().severity, Severity::kFatal);
  EXPECT_EQ(res.error().message, "password authentication failed for user \"user\"");
  EXPECT_FALSE(server.authenticated());
}

// ------------------------------------------------------------------ client <-> server

/// Runs a full exchange with a client of `password`; returns the first error.
Result<void> exchange(const ScramVerifier& verifier, std::string password) {
  ScramClient client(std::move(password));
  return scram_exchange(client, verifier);
}

TEST(ScramExchangeTest, TheClientKeyOfALoginLogsInWhereTheVerifierIsTheSame) {
  // pgrange checks a client's proof, keeps its ClientKey, and logs in to the shards with it.
  auto v = ScramVerifier::parse(kRealPgVerifierSecret);
  ASSERT_TRUE(v.has_value());
  ScramClient client("secret");
  ScramServer front(*v, "alice");
  auto sf = front.handle_client_first(client.client_first());
  ASSERT_TRUE(sf);
  EXPECT_FALSE(front.client_key());  // not before the proof
  auto cfin = client.handle_server_first(*sf);
  ASSERT_TRUE(cfin);
  ASSERT_TRUE(front.handle_client_final(*cfin));
  auto key = front.client_key();
  ASSERT_TRUE(key);

  ScramClient pass_through(*key, *v);
  auto ok = scram_exchange(pass_through, *v);
  EXPECT_TRUE(ok) << ok.error().to_string();

  // Another salt (the role's password set again on the shard): refused, saying why.
  ScramClient other_salt(*key, *v);
  auto bad = scram_exchange(other_salt, ScramVerifier::from_password("secret", "another-salt"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().sqlstate, sqlstate::kInvalidPassword);
  EXPECT_NE(bad.error().message.find("verifier"), std::string::npos);

  // A wrong proof gives no key.
  ScramClient wrong("Secret");
  ScramServer front2(*v, "alice");
  auto sf2 = front2.handle_client_first(wrong.client_first());
  ASSERT_TRUE(sf2);
  auto cfin2 = wrong.handle_server_first(*sf2);
  ASSERT_TRUE(cfin2);
  EXPECT_FALSE(front2.handle_client_final(*cfin2));
  EXPECT_FALSE(front2.client_key());
}

TEST(ScramExchangeTest, RealPostgresVerifierAcceptsRightPasswordOnly) {
  auto v = ScramVerifier::parse(kRealPgVerifierSecret);
  ASSERT_TRUE(v.has_value());
  auto ok = exchange(*v, "secret");
  EXPECT_TRUE(ok.has_value()) << ok.error().to_string();
  for (const char* wrong : {"Secret", "secret ", "", "secre"}) {
    auto bad = exchange(*v, wrong);
    ASSERT_FALSE(bad.has_value()) << wrong;
    EXPECT_EQ(bad.error().sqlstate, sqlstate::kInvalidPassword);
    EXPECT_EQ(bad.error().message, "password authentication failed for user \"alice\"");
  }
}

TEST(ScramExchangeTest, RandomNoncesDiffer) {
  const std::string a = scram_random_nonce();
  const std::string b = scram_random_nonce();
  EXPECT_EQ(a.size(), 24u);
  EXPECT_NE(a, b);
  ScramClient c1("x"), c2("x");
  EXPECT_NE(c1.client_first(), c2.client_first());
}

// ------------------------------------------------------------------ server-side validation

/// A server that already consumed the RFC client-first-message.
ScramServer rfc_server_after_first() {
  ScramServer server(rfc_verifier(), "user", fixed_nonce(kRfcServerNonce));
  EXPECT_TRUE(server.handle_client_first(kRfcClientFirst).has_value());
  return server;
}

/// Independent ClientProof computation straight from RFC 5802 section 3 with raw OpenSSL calls,
/// used to build client-final messages the production ScramClient never sends (e.g. "y,,").
std::string reference_proof(std::string_view password, std::string_view salt, int iterations,
                            const std::string& auth_message) {
  unsigned char salted[32], client_key[32], stored_key[32], signature[32], proof[32];
  unsigned int len = 0;
  EXPECT_EQ(PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                              reinterpret_cast<const unsigned char*>(salt.data()),
                              static_cast<int>(salt.size()), iterations, EVP_sha256(), 32, salted),
            1);
  HMAC(EVP_sha256(), salted, 32, reinterpret_cast<const unsigned char*>("Client Key"), 10,
       client_key, &len);
  EVP_Digest(client_key, 32, stored_key, &len, EVP_sha256(), nullptr);
  HMAC(EVP_sha256(), stored_key, 32, reinterpret_cast<const unsigned char*>(auth_message.data()),
       auth_message.size(), signature, &len);
  for (int i = 0; i < 32; ++i) proof[i] = client_key[i] ^ signature[i];
  return base64_encode(std::span<const uint8_t>(proof, 32));
}

TEST(ScramServerTest, ReferenceProofReproducesRfcVector) {
  const std::string auth = std::string(kRfcClientFirst.substr(3)) + "," +
                           std::string(kRfcServerFirst) + "," +
                           "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
  EXPECT_EQ("p=" + reference_proof(kRfcPassword, *base64_decode(kRfcSaltB64), 4096, auth),
            kRfcClientFinal.substr(kRfcClientFinal.rfind(',') + 1));
}

TEST(ScramServerTest, AcceptsYFlagWhenChannelBindingNotOffered) {
  // "y,," means the client supports channel binding but believes the server does not; since we
  // indeed offer no -PLUS mechanism this is accepted (RFC 5802 section 6), with c=base64("y,,").
  const ScramVerifier v = cheap_verifier("pw");
  ScramServer server(v, "u", fixed_nonce("SRV"));
  auto sf = server.handle_client_first("y,,n=,r=CLI");
  ASSERT_TRUE(sf.has_value()) << sf.error().to_string();
  const std::string without_proof = "c=eSws,r=CLISRV";
  const std::string proof =
      reference_proof("pw", v.salt, v.iterations, "n=,r=CLI," + *sf + "," + without_proof);
  auto fin = server.handle_client_final(without_proof + ",p=" + proof);
  ASSERT_TRUE(fin.has_value()) << fin.error().to_string();
  EXPECT_TRUE(fin->starts_with("v="));
  EXPECT_TRUE(server.authenticated());

  // The same exchange with c=biws ("n,,") is a downgrade mismatch and is refused, even with a
  // proof that is otherwise correct for that message.
  ScramServer wrong_cb(v, "u", fixed_nonce("SRV"));
  ASSERT_TRUE(wrong_cb.handle_client_first("y,,n=,r=CLI").has_value());
  const std::string n_without_proof = "c=biws,r=CLISRV";
  const std::string n_proof =
      reference_proof("pw", v.salt, v.iterations, "n=,r=CLI," + *sf + "," + n_without_proof);
  auto res = wrong_cb.handle_client_final(n_without_proof + ",p=" + n_proof);
  ASSERT_FALSE(res.has_value());
  EXPECT_EQ(res.error().message, "SCRAM channel binding check failed");
  EXPECT_FALSE(wrong_cb.authenticated());
}

TEST(ScramServerTest, RefusesChannelBindingAndAuthzid) {
  {
    ScramServer s(cheap_verifier("pw"));
    auto r = s.handle_client_first("p=tls-server-end-point,,n=,r=abc");
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().sqlstate, sqlstate::kProtocolViolation);
    EXPECT_EQ(r.error().severity, Severity::kFatal);
  }
  {
    ScramServer s(cheap_verifier("pw"));
    auto r = s.handle_client_first("n,a=admin,n=,r=abc");
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().sqlstate, sqlstate::kFeatureNotSupported);
  }
  {
    ScramServer s(cheap_verifier("pw"));
    auto r = s.handle_client_first("n,,m=ext,n=,r=abc");
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().sqlstate, sqlstate::kFeatureNotSupported);
  }
}

TEST(ScramServerTest, RejectsMalformedClientFirst) {
  for (std::string_view bad : {
           "",
           "n",
           "n,",
           "n,,",
           "x,,n=,r=abc",
           "n,,r=abc",
           "n,,n=,r=",
           "n,,n=,",
           "n,,n=",
           "n,,r=abc,n=",
           "n,,n=a=b,r=abc",   // bare '=' in saslname
           "n,,n=a=2,r=abc",   // truncated escape
           "n,,n=,r=ab c",     // space is not printable per RFC
           "n,,n=,r=abc,",     // empty extension
           "n,,n=,r=abc,1=x",  // extension name must be ALPHA
           "n,,n=,r=abc,x=",   // extension value must be non-empty
           "n,x,n=,r=abc",
           "nn,,n=,r=abc",
       }) {
    ScramServer s(cheap_verifier("pw"), "u", fixed_nonce("SRV"));
    auto r = s.handle_client_first(bad);
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_EQ(r.error().sqlstate, sqlstate::kProtocolViolation) << bad;
  }
  ScramServer s(cheap_verifier("pw"), "u", fixed_nonce("SRV"));
  EXPECT_FALSE(s.handle_client_first(std::string_view("n,,n=\0,r=abc", 12)).has_value());
  // Escaped names and extensions are fine.
  ScramServer ok(cheap_verifier("pw"), "u", fixed_nonce("SRV"));
  auto r = ok.handle_client_first("n,,n=a=2Cb=3D,r=abc,x=ext");
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  EXPECT_TRUE(r->starts_with("r=abcSRV,s="));
}

TEST(ScramServerTest, RejectsTamperedNonce) {
  for (std::string_view bad : {
           // server part altered
           "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k1,"
           "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
           // client part altered
           "c=biws,r=xOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
           "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
           // only the client nonce
           "c=biws,r=rOprNGfwEbeRWgbNEkqO,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
           // extended
           "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0X,"
           "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
       }) {
    ScramServer server = rfc_server_after_first();
    auto r = server.handle_client_final(bad);
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_EQ(r.error().message, "SCRAM nonce does not match");
    EXPECT_FALSE(server.authenticated());
  }
}

TEST(ScramServerTest, RejectsMalformedClientFinal) {
  const std::string nonce = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
  const std::string proof = "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
  for (const std::string& bad : std::vector<std::string>{
           std::string(""),
           "c=biws," + nonce,                                 // no proof
           nonce + ",c=biws," + proof,                        // wrong order
           "c=biws," + proof + "," + nonce,                   // proof not last
           "c=biws," + nonce + ",p=dHzbZapWIk4jUhN",          // short / bad proof
           "c=biws," + nonce + ",p=" + std::string(44, '!'),  // invalid base64 proof
           "c=biws," + nonce + ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ",  // bad padding
           "c=bi!s," + nonce + "," + proof,         // invalid base64 channel binding
           "c=eSws," + nonce + "," + proof,         // "y,," but client sent "n,,"
           "c=biwsAAAA," + nonce + "," + proof,     // extra cbind data
           "c=biws," + nonce + ",p=AAAA," + proof,  // duplicate proof
           "c=biws," + nonce + ",," + proof,        // empty attribute
       }) {
    ScramServer server = rfc_server_after_first();
    auto r = server.handle_client_final(bad);
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_EQ(r.error().sqlstate, sqlstate::kProtocolViolation) << bad;
  }
  // An extension before the proof is allowed by the grammar; it is covered by the proof, so the
  // RFC proof no longer matches.
  ScramServer server = rfc_server_after_first();
  auto r = server.handle_client_final("c=biws," + nonce + ",x=ext," + proof);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().sqlstate, sqlstate::kInvalidPassword);
}

TEST(ScramServerTest, EnforcesMessageOrder) {
  {
    ScramServer s(rfc_verifier(), "user", fixed_nonce(kRfcServerNonce));
    EXPECT_FALSE(s.handle_client_final(kRfcClientFinal).has_value());
    // Once failed, the exchange stays dead.
    EXPECT_FALSE(s.handle_client_first(kRfcClientFirst).has_value());
  }
  {
    ScramServer s = rfc_server_after_first();
    EXPECT_FALSE(s.handle_client_first(kRfcClientFirst).has_value());
    EXPECT_FALSE(s.handle_client_final(kRfcClientFinal).has_value());
  }
  {
    ScramServer s = rfc_server_after_first();
    ASSERT_TRUE(s.handle_client_final(kRfcClientFinal).has_value());
    // A replayed final message is not accepted twice.
    auto again = s.handle_client_final(kRfcClientFinal);
    EXPECT_FALSE(again.has_value());
  }
  {
    // A failed proof cannot be retried on the same exchange.
    ScramServer s = rfc_server_after_first();
    EXPECT_FALSE(
        s.handle_client_final("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                              "p=AHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
            .has_value());
    EXPECT_FALSE(s.handle_client_final(kRfcClientFinal).has_value());
    EXPECT_FALSE(s.authenticated());
  }
}

TEST(ScramServerTest, BadNonceGeneratorIsAnError) {
  for (std::string_view n : {"", "a,b", "sp ace"}) {
    ScramServer s(cheap_verifier("pw"), "u", fixed_nonce(n));
    auto r = s.handle_client_first("n,,n=,r=abc");
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().sqlstate, sqlstate::kInternalError);
  }
}

// ------------------------------------------------------------------ client-side validation

TEST(ScramClientTest, RejectsBadServerFirst) {
  const std::string salt = "s=W22ZaJ0SNY7soEsUEjb6gQ==";
  for (const std::string& bad : std::vector<std::string>{
           std::string(""),
           "r=rOprNGfwEbeRWgbNEkqO," + salt + ",i=4096",     // no server nonce part
           "r=XOprNGfwEbeRWgbNEkqOsrv," + salt + ",i=4096",  // not our nonce
           "r=rOprNGfwEbeRWgbNEkqOsrv,s=,i=4096",            // empty salt
           "r=rOprNGfwEbeRWgbNEkqOsrv,s=W22Z!,i=4096",       // bad base64
           "r=rOprNGfwEbeRWgbNEkqOsrv," + salt + ",i=0",
           "r=rOprNGfwEbeRWgbNEkqOsrv," + salt + ",i=-5",
           "r=rOprNGfwEbeRWgbNEkqOsrv," + salt + ",i=99999999999",
           "r=rOprNGfwEbeRWgbNEkqOsrv," + salt,         // no iterations
           "r=rOprNGfwEbeRWgbNEkqOsrv,i=4096," + salt,  // wrong order
           "m=ext,r=rOprNGfwEbeRWgbNEkqOsrv," + salt + ",i=4096",
           "e=other-error",
       }) {
    ScramClient client("pencil", fixed_nonce(kRfcClientNonce));
    client.client_first();
    auto r = client.handle_server_first(bad);
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_EQ(r.error().severity, Severity::kFatal);
  }
}

TEST(ScramClientTest, ServerErrorAttributeIsReported) {
  ScramClient client(std::string(kRfcPassword), fixed_nonce(kRfcClientNonce), "user");
  client.client_first();
  ASSERT_TRUE(client.handle_server_first(kRfcServerFirst).has_value());
  auto r = client.verify_server_final("e=invalid-proof");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().sqlstate, sqlstate::kInvalidPassword);
  EXPECT_NE(r.error().message.find("invalid-proof"), std::string::npos);
}

TEST(ScramClientTest, EnforcesMessageOrderAndNonceFailure) {
  {
    ScramClient client("pencil");
    EXPECT_FALSE(client.handle_server_first(kRfcServerFirst).has_value());
    EXPECT_FALSE(client.verify_server_final(kRfcServerFinal).has_value());
  }
  {
    ScramClient client("pencil", fixed_nonce(""));
    EXPECT_EQ(client.client_first(), "");
    auto r = client.handle_server_first(kRfcServerFirst);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().sqlstate, sqlstate::kInternalError);
  }
  {
    ScramClient client(std::string(kRfcPassword), fixed_nonce(kRfcClientNonce), "user");
    client.client_first();
    EXPECT_FALSE(client.verify_server_final(kRfcServerFinal).has_value());
  }
  {
    ScramClient client(std::string(kRfcPassword), fixed_nonce(kRfcClientNonce), "user");
    client.client_first();
    ASSERT_TRUE(client.handle_server_first(kRfcServerFirst).has_value());
    EXPECT_FALSE(client.verify_server_final("v=not base64").has_value());
    // After a failure the client does not accept the right signature anymore.
    EXPECT_FALSE(client.verify_server_final(kRfcServerFinal).has_value());
  }
}

TEST(ScramClientTest, EscapesUserName) {
  ScramClient client("pw", fixed_nonce("N"), "a,b=c");
  EXPECT_EQ(client.client_first(), "n,,n=a=2Cb=3Dc,r=N");
}

// ------------------------------------------------------------------ robustness loops

std::string random_bytes(std::mt19937& rng, size_t max_len) {
  std::string s(rng() % (max_len + 1), '\0');
  // Bias towards SCRAM's own alphabet so the parsers get past the first checks sometimes.
  static constexpr std::string_view kInteresting = "nyp,=rcsiemva2C3D0123456789+/AZaz ";
  for (auto& c : s) {
    c = (rng() % 2) ? kInteresting[rng() % kInteresting.size()] : static_cast<char>(rng());
  }
  return s;
}

std::string mutate(std::mt19937& rng, std::string s) {
  const int edits = 1 + static_cast<int>(rng() % 3);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    const size_t pos = rng() % s.size();
    switch (rng() % 3) {
      case 0:
        s[pos] = static_cast<char>(rng());
        break;
      case 1:
        s.erase(pos, 1);
        break;
      default:
        s.insert(pos, 1, static_cast<char>(rng()));
    }
  }
  return s;
}

TEST(ScramFuzzTest, RandomClientMessagesNeverCrashOrAuthenticate) {
  std::mt19937 rng(12345);
  const ScramVerifier v = cheap_verifier("pw");
  int reached_final = 0;
  for (int i = 0; i < 3000; ++i) {
    ScramServer s(v, "u", fixed_nonce("SRV"));
    auto first =
        s.handle_client_first(i % 2 ? random_bytes(rng, 64) : mutate(rng, "n,,n=,r=abcdef"));
    if (first) {
      ++reached_final;
      // Half the finals carry the right channel binding and nonce so the proof path is reached.
      const std::string nonce = first->substr(2, first->find(',') - 2);
      auto fin =
          s.handle_client_final(i % 4 == 0 ? "c=biws,r=" + nonce + ",p=" + random_bytes(rng, 48)
                                           : random_bytes(rng, 120));
      EXPECT_FALSE(fin.has_value());
      EXPECT_FALSE(s.authenticated());
    }
  }
  // The mutated well-formed messages must sometimes get through to the second step.
  EXPECT_GT(reached_final, 0);
}

TEST(ScramFuzzTest, AnyEditToAValidClientFinalIsRejected) {
  std::mt19937 rng(99);
  for (int i = 0; i < 1000; ++i) {
    ScramServer server = rfc_server_after_first();
    const std::string bad = mutate(rng, std::string(kRfcClientFinal));
    if (bad == kRfcClientFinal) continue;
    auto r = server.handle_client_final(bad);
    EXPECT_FALSE(r.has_value()) << bad;
    EXPECT_FALSE(server.authenticated());
  }
}

TEST(ScramFuzzTest, RandomServerMessagesNeverCrashTheClient) {
  std::mt19937 rng(4242);
  const ScramVerifier v = cheap_verifier("pw");
  int accepted = 0;
  for (int i = 0; i < 1500; ++i) {
    ScramClient client("pw", fixed_nonce("CLI"));
    ScramServer server(v, "u", fixed_nonce("SRV"));
    auto sf = server.handle_client_first(client.client_first());
    ASSERT_TRUE(sf.has_value());
    // Mutations can grow the iteration count by at most a few digits (bounded PBKDF2 cost).
    const std::string msg = i % 2 ? random_bytes(rng, 80) : mutate(rng, *sf);
    auto cf = client.handle_server_first(msg);
    if (!cf) continue;
    ++accepted;
    auto ok = client.verify_server_final(
        i % 3 ? random_bytes(rng, 60)
              : mutate(rng, "v=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="));
    EXPECT_FALSE(ok.has_value());
  }
  // Some mutants (e.g. an altered server nonce suffix) are still well-formed.
  EXPECT_GT(accepted, 0);
}

}  // namespace
}  // namespace pgrange::proxy
