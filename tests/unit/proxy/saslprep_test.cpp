#include "proxy/auth/saslprep.hpp"

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <string>
#include <vector>

#include "proxy/auth/scram.hpp"
#include "tests/unit/proxy/scram_exchange.hpp"

namespace pgrange::proxy {
namespace {

// PostgreSQL 15.18's secret after `SET password_encryption = 'scram-sha-256'; CREATE ROLE x
// PASSWORD 'IX-Ⅸ'` (U+2168 ROMAN NUMERAL NINE) in a UTF8 database: the server derived it from
// the SASLprep form "IX-IX".
constexpr std::string_view kPg15RomanNineSecret =
    "SCRAM-SHA-256$4096:ZbLfwivKIUAIjRPGiC8n2Q==$+LMv74xhi8lEW0VKFJOcFAct2HpEMSJJEnzUnvgcDTU=:"
    "x1zBNebdmu6W27xXKG/is/LmlK17AtO3nQauUHuazxM=";

// ------------------------------------------------------------------ unchanged input

TEST(SaslprepTest, AsciiIsUnchanged) {
  for (const std::string& password :
       {std::string("pencil"), std::string(""), std::string("p@ss w,o=rd\t\x01\x7f"),
        std::string("nul\0inside", 10)}) {
    EXPECT_EQ(saslprep(password), password);
  }
}

TEST(SaslprepTest, InvalidUtf8IsUnchanged) {
  for (const std::string& password : {
           std::string("caf\xe9"),                   // Latin-1
           std::string("\xff\xfe"),                  // never in UTF-8
           std::string("\x80xyz"),                   // lone continuation byte
           std::string("\xc0\xaf"),                  // overlong '/'
           std::string("\xe0\x80\xaf"),              // overlong '/', 3 bytes
           std::string("\xed\xa0\x80"),              // surrogate U+D800
           std::string("\xf4\x90\x80\x80"),          // beyond U+10FFFF
           std::string("IX-\xe2\x85"),               // truncated U+2168
           std::string("\xc2\xa0\xe2\x85\xa8\xff"),  // mappable characters, then a bad byte
       }) {
    EXPECT_EQ(saslprep(password), password);
  }
}

TEST(SaslprepTest, AlreadyPreparedUtf8IsUnchanged) {
  for (const char* password : {"\u00e9t\u00e9", "\u043f\u0430\u0440\u043e\u043b\u044c",
                               "\u5bc6\u7801", "\u05d0\u05d1\u05d2"}) {
    EXPECT_EQ(saslprep(password), password);
  }
}

// ------------------------------------------------------------------ mapping and NFKC

TEST(SaslprepTest, NormalisesWithNfkc) {
  EXPECT_EQ(saslprep("IX-\u2168"), "IX-IX");
  EXPECT_EQ(saslprep("\u2168"), "IX");
  EXPECT_EQ(saslprep("e\u0301t\u00e9"), "\u00e9t\u00e9");  // composed
  EXPECT_EQ(saslprep("\ufb01x"), "fix");                   // ligature
  EXPECT_EQ(saslprep("\uff30\uff57"), "Pw");               // fullwidth
  EXPECT_EQ(saslprep("\u00bd"), "1\u20442");               // vulgar fraction one half
  EXPECT_EQ(saslprep("\U0001d400\U0001d41b"), "Ab");       // mathematical bold, 4-byte UTF-8
  // The longest expansion there is: one character into 18.
  EXPECT_EQ(saslprep("\ufdfa"),
            "\u0635\u0644\u0649 \u0627\u0644\u0644\u0647 \u0639\u0644\u064a\u0647 "
            "\u0648\u0633\u0644\u0645");
}

TEST(SaslprepTest, MapsNonAsciiSpacesToSpace) {
  EXPECT_EQ(saslprep("\u00a0"), " ");
  EXPECT_EQ(saslprep("a\u00a0b\u3000c\u2003d"), "a b c d");
  // U+200B ZERO WIDTH SPACE is in both tables C.1.2 and B.1: it becomes a space.
  EXPECT_EQ(saslprep("a\u200bb"), "a b");
}

TEST(SaslprepTest, RemovesCharactersMappedToNothing) {
  EXPECT_EQ(saslprep("pass\u00adword"), "password");  // soft hyphen
  EXPECT_EQ(saslprep("\ufeffI\u200dX\ufe0f-\u2168"), "IX-IX");
}

// ------------------------------------------------------------------ raw fallbacks

TEST(SaslprepTest, NothingLeftAfterMappingFallsBackToRawInput) {
  EXPECT_EQ(saslprep("\u00ad"), "\u00ad");
  EXPECT_EQ(saslprep("\u200d\ufe0f"), "\u200d\ufe0f");
}

TEST(SaslprepTest, ProhibitedCharacterFallsBackToRawInput) {
  // Each would lose its soft hyphen (and have U+2168 normalised) if it were prepared.
  for (const char* password : {
           "\u2168\u00ad\u0080",      // C.2.2 control character
           "\u2168\u00ad\u2028",      // C.2.2 line separator
           "\u2168\u00ad\ue000",      // C.3 private use
           "\u2168\u00ad\U000f0000",  // C.3 private use, plane 15
           "\u2168\u00ad\ufdd0",      // C.4 non-character
           "\u2168\u00ad\uffff",      // C.4 non-character
           "\u2168\u00ad\ufffd",      // C.6 replacement character
           "\u2168\u00ad\u2ff0",      // C.7 ideographic description character
           "\u2168\u00ad\u202e",      // C.8 right-to-left override
           "\u2168\u00ad\U000e0041",  // C.9 tag character
       }) {
    EXPECT_EQ(saslprep(password), password);
  }
  const std::string with_nul("\u2168\0", 4);
  EXPECT_EQ(saslprep(with_nul), with_nul);  // C.2.1
}

TEST(SaslprepTest, CodePointUnassignedInUnicode32FallsBackToRawInput) {
  EXPECT_EQ(saslprep("\u2168\u0221"), "\u2168\u0221");          // assigned in Unicode 4.0
  EXPECT_EQ(saslprep("\u2168\U0001f600"), "\u2168\U0001f600");  // an emoji (Unicode 6.1)
}

TEST(SaslprepTest, ChecksTheMappedStringBeforeNormalisation) {
  // U+0341 (C.8) normalises to the permitted U+0301, but the check sees U+0341, as PostgreSQL's.
  EXPECT_EQ(saslprep("a\u0341"), "a\u0341");
  // U+FB1D (RandALCat) normalises to U+05D9 U+05B4, which ends in a non-RandALCat mark; the bidi
  // check sees the single RandALCat character and passes, as PostgreSQL's.
  EXPECT_EQ(saslprep("\ufb1d"), "\u05d9\u05b4");
}

TEST(SaslprepTest, BidiRules) {
  // RandALCat first and last, nothing LCat in between: prepared.
  EXPECT_EQ(saslprep("\u05d0\u00ad1\u00a0\u05d1"), "\u05d01 \u05d1");
  EXPECT_EQ(saslprep("\u0627\u00ad\u0644"), "\u0627\u0644");
  // A RandALCat character with an LCat one: raw.
  EXPECT_EQ(saslprep("\u05d0\u00ada\u05d1"), "\u05d0\u00ada\u05d1");
  // RandALCat not first or not last: raw.
  EXPECT_EQ(saslprep("1\u00ad\u05d0"), "1\u00ad\u05d0");
  EXPECT_EQ(saslprep("\u05d0\u00ad1"), "\u05d0\u00ad1");
  // No RandALCat at all: the bidi rules do not apply.
  EXPECT_EQ(saslprep("1\u00ad2"), "12");
}

// ------------------------------------------------------------------ against PostgreSQL

TEST(SaslprepTest, MatchesLibpqForEveryRule) {
  // libpq's PQencryptPasswordConn runs PostgreSQL's own pg_saslprep() before PBKDF2 (falling back
  // to the raw password as the server does); the handle is never connected.
  PGconn* conn = PQconnectStart("host=/nonexistent-pgrange-test-dir");
  ASSERT_NE(conn, nullptr);
  for (const char* password : {
           "IX-\u2168",
           "e\u0301",
           "\ufdfa",
           "\U0001d400",
           "a\u00a0b\u200bc",
           "pass\u00adword",
           "\u00ad",
           "\u2168\ue000",
           "\u2168\U0001f600",
           "a\u0341",
           "\ufb1d",
           "\u05d0\u00ad1\u05d1",
           "\u05d0\u00ada\u05d1",
           "1\u00ad\u05d0",
           "caf\xe9",
           "\xc2\xa0\xff",
           "\xed\xa0\x80",
       }) {
    char* secret = PQencryptPasswordConn(conn, password, "alice", "scram-sha-256");
    ASSERT_NE(secret, nullptr) << PQerrorMessage(conn);
    auto v = ScramVerifier::parse(secret);
    ASSERT_TRUE(v.has_value()) << secret;
    EXPECT_EQ(ScramVerifier::from_password(password, v->salt, v->iterations), *v) << password;
    PQfreemem(secret);
  }
  PQfinish(conn);
}

/// A full SCRAM exchange of a client with `password`; the first error.
Result<void> exchange(const ScramVerifier& verifier, std::string password) {
  ScramClient client(std::move(password));
  return scram_exchange(client, verifier, "x");
}

TEST(SaslprepTest, PostgresVerifierAcceptsEitherFormOfThePassword) {
  auto v = ScramVerifier::parse(kPg15RomanNineSecret);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(ScramVerifier::from_password("IX-\u2168", v->salt, v->iterations), *v);
  EXPECT_EQ(ScramVerifier::from_password("IX-IX", v->salt, v->iterations), *v);
  for (const char* password : {"IX-\u2168", "IX-IX", "I\u00adX-\u2168"}) {
    auto ok = exchange(*v, password);
    EXPECT_TRUE(ok.has_value()) << password << ": " << ok.error().to_string();
  }
  for (const char* wrong : {"IX-\u2167", "IX-X", "ix-ix"}) {
    auto bad = exchange(*v, wrong);
    ASSERT_FALSE(bad.has_value()) << wrong;
    EXPECT_EQ(bad.error().sqlstate, sqlstate::kInvalidPassword);
  }
}

TEST(SaslprepTest, VerifierFromEitherFormAcceptsEitherForm) {
  // What pgrange stores for a configured user: a verifier made from the password as written.
  const ScramVerifier from_numeral = ScramVerifier::from_password("IX-\u2168", "fixed-salt", 64);
  const ScramVerifier from_letters = ScramVerifier::from_password("IX-IX", "fixed-salt", 64);
  EXPECT_EQ(from_numeral, from_letters);
  for (const ScramVerifier* v : {&from_numeral, &from_letters}) {
    for (const char* password : {"IX-\u2168", "IX-IX"}) {
      auto ok = exchange(*v, password);
      EXPECT_TRUE(ok.has_value()) << password << ": " << ok.error().to_string();
    }
  }
}

}  // namespace
}  // namespace pgrange::proxy
