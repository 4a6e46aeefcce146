#include "proxy/backend/backend_login.hpp"

#include <gtest/gtest.h>

namespace pgrange::proxy {
namespace {

config::ShardConfig shard(std::string user = "", std::string password = "") {
  config::ShardConfig s;
  s.name = "s1";
  s.dbname = "app";
  s.user = std::move(user);
  s.password = std::move(password);
  return s;
}

config::UserConfig user(std::string name, std::string password) {
  config::UserConfig u;
  u.name = std::move(name);
  u.password = std::move(password);
  return u;
}

TEST(BackendLogin, EachClientLogsInAsItsOwnRoleWithItsPassword) {
  auto login = backend_login(shard(), user("app", "secret"), std::nullopt);
  EXPECT_EQ(login.user, "app");
  EXPECT_EQ(login.password, "secret");
  EXPECT_FALSE(login.scram);
  // A stored md5 hash answers the shard's md5 requests as it is.
  auto md5 = backend_login(shard(), user("m", "md5aaaabbbbccccddddeeeeffff00001111"), std::nullopt);
  EXPECT_EQ(md5.password, "md5aaaabbbbccccddddeeeeffff00001111");
}

TEST(BackendLogin, AVerifierLogsInWithTheKeysOfTheClientsScramLogin) {
  ScramVerifier v = ScramVerifier::from_password("secret", "salt-bytes");
  BackendLogin::ScramKeys keys{{}, v};
  keys.client_key[0] = 7;
  auto login = backend_login(shard(), user("app", v.to_string()), keys);
  EXPECT_EQ(login.user, "app");
  EXPECT_EQ(login.password, "");
  ASSERT_TRUE(login.scram);
  EXPECT_EQ(login.scram->client_key[0], 7);
  // Without a SCRAM login (trust), no proof: the shard must trust the role.
  auto none = backend_login(shard(), user("app", v.to_string()), std::nullopt);
  EXPECT_FALSE(none.scram);
  EXPECT_EQ(none.password, "");
}

TEST(BackendLogin, ServerUserAndForcedUserWin) {
  config::UserConfig report = user("report", "r");
  report.server_user = "reader";
  report.server_password = "readpw";
  auto mapped = backend_login(shard(), report, std::nullopt);
  EXPECT_EQ(mapped.user, "reader");
  EXPECT_EQ(mapped.password, "readpw");
  auto forced = backend_login(shard("postgres", "pw"), report, std::nullopt);
  EXPECT_EQ(forced.user, "postgres");
  EXPECT_EQ(forced.password, "pw");
}

TEST(BackendLogin, PoolKeysDifferByRoleAndProof) {
  auto a = backend_login(shard(), user("a", "x"), std::nullopt);
  auto b = backend_login(shard(), user("b", "x"), std::nullopt);
  auto a2 = backend_login(shard(), user("a", "y"), std::nullopt);
  EXPECT_NE(a.pool_key(), b.pool_key());
  EXPECT_NE(a.pool_key(), a2.pool_key());
  EXPECT_EQ(a.pool_key(), backend_login(shard(), user("a", "x"), std::nullopt).pool_key());
}

}  // namespace
}  // namespace pgrange::proxy
