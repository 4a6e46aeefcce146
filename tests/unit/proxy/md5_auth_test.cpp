#include "proxy/auth/md5_auth.hpp"

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <string>

namespace pgrange::proxy {
namespace {

TEST(Md5AuthTest, PasswordHashMatchesKnownValues) {
  // echo -n "secretalice" | md5sum  ->  4a0a68b43b6cd5cf266fa02f196e2371
  EXPECT_EQ(md5_password_hash("secret", "alice"), "md54a0a68b43b6cd5cf266fa02f196e2371");
  // echo -n "postgrespostgres" | md5sum  ->  3175bce1d3201d16594cebf9d7eb3f9d
  EXPECT_EQ(md5_password_hash("postgres", "postgres"), "md53175bce1d3201d16594cebf9d7eb3f9d");
  // echo -n "" | md5sum  ->  d41d8cd98f00b204e9800998ecf8427e
  EXPECT_EQ(md5_password_hash("", ""), "md5d41d8cd98f00b204e9800998ecf8427e");
}

TEST(Md5AuthTest, PasswordHashMatchesLibpq) {
  // PQencryptPasswordConn is PostgreSQL's own implementation; the handle is never connected.
  PGconn* conn = PQconnectStart("host=/nonexistent-pgrange-test-dir");
  ASSERT_NE(conn, nullptr);
  for (const char* password : {"secret", "", "p@ss,w=rd", "\xc3\xa9t\xc3\xa9"}) {
    char* hash = PQencryptPasswordConn(conn, password, "alice", "md5");
    ASSERT_NE(hash, nullptr) << PQerrorMessage(conn);
    EXPECT_EQ(md5_password_hash(password, "alice"), hash) << password;
    PQfreemem(hash);
  }
  PQfinish(conn);
}

TEST(Md5AuthTest, ResponseFromPlaintextAndFromStoredHashAgree) {
  // printf '4a0a68b43b6cd5cf266fa02f196e2371\x01\x02\x03\x04' | md5sum
  //   ->  98a0412b9c31436fc53776e863350083
  const std::array<uint8_t, 4> salt1{0x01, 0x02, 0x03, 0x04};
  EXPECT_EQ(md5_response("secret", "alice", salt1), "md598a0412b9c31436fc53776e863350083");
  EXPECT_EQ(md5_response("md54a0a68b43b6cd5cf266fa02f196e2371", "alice", salt1),
            "md598a0412b9c31436fc53776e863350083");
  // printf '4a0a68b43b6cd5cf266fa02f196e2371\xde\xad\xbe\xef' | md5sum
  //   ->  3e1d73ba00a55e8805aa0277d29996c5
  const std::array<uint8_t, 4> salt2{0xde, 0xad, 0xbe, 0xef};
  EXPECT_EQ(md5_response("secret", "alice", salt2), "md53e1d73ba00a55e8805aa0277d29996c5");
}

TEST(Md5AuthTest, RecognisesStoredHashShape) {
  EXPECT_TRUE(is_md5_password_hash("md54a0a68b43b6cd5cf266fa02f196e2371"));
  EXPECT_FALSE(is_md5_password_hash("md54A0A68B43B6CD5CF266FA02F196E2371"));  // uppercase
  EXPECT_FALSE(is_md5_password_hash("md54a0a68b43b6cd5cf266fa02f196e237"));   // 34 chars
  EXPECT_FALSE(is_md5_password_hash("md54a0a68b43b6cd5cf266fa02f196e23711"));
  EXPECT_FALSE(is_md5_password_hash("md5za0a68b43b6cd5cf266fa02f196e2371"));
  EXPECT_FALSE(is_md5_password_hash("xx54a0a68b43b6cd5cf266fa02f196e2371"));
  EXPECT_FALSE(is_md5_password_hash("secret"));
  // A plaintext password that does not look like a hash is hashed first: "md5short" is treated
  // as plaintext, so the response differs from hashing its literal hex part.
  const std::array<uint8_t, 4> salt{1, 2, 3, 4};
  EXPECT_EQ(md5_response("md5short", "alice", salt),
            md5_response(md5_password_hash("md5short", "alice"), "alice", salt));
}

TEST(Md5AuthTest, VerifyAcceptsOnlyTheRightResponse) {
  const std::array<uint8_t, 4> salt{0xde, 0xad, 0xbe, 0xef};
  const std::string good = "md53e1d73ba00a55e8805aa0277d29996c5";
  EXPECT_TRUE(md5_verify(good, "secret", "alice", salt));
  EXPECT_TRUE(md5_verify(good, "md54a0a68b43b6cd5cf266fa02f196e2371", "alice", salt));
  EXPECT_FALSE(md5_verify(good, "secret", "bob", salt));            // salted with the user name
  EXPECT_FALSE(md5_verify(good, "Secret", "alice", salt));          // wrong password
  EXPECT_FALSE(md5_verify(good, "secret", "alice", {1, 2, 3, 4}));  // replay with another salt
  EXPECT_FALSE(md5_verify("md53e1d73ba00a55e8805aa0277d29996c6", "secret", "alice", salt));
  EXPECT_FALSE(md5_verify("md53E1D73BA00A55E8805AA0277D29996C5", "secret", "alice", salt));
  EXPECT_FALSE(md5_verify("", "secret", "alice", salt));
  EXPECT_FALSE(md5_verify(good.substr(0, 34), "secret", "alice", salt));
  EXPECT_FALSE(md5_verify(good + "0", "secret", "alice", salt));
  // Sending the stored hash itself (a pass-the-hash attempt without the salt round) fails.
  EXPECT_FALSE(md5_verify("md54a0a68b43b6cd5cf266fa02f196e2371", "secret", "alice", salt));
}

}  // namespace
}  // namespace pgrange::proxy
