#include "proxy/settings.hpp"

#include <gtest/gtest.h>

#include "config/config.hpp"

namespace pgrange::proxy {
namespace {

config::Config with_shards(std::initializer_list<const char*> names) {
  config::Config c;
  for (const char* n : names) {
    config::ShardConfig s;
    s.name = n;
    s.dsn = std::string("host=127.0.0.1 port=5432 dbname=") + n;
    s.sslmode = "disable";
    c.shards.push_back(s);
  }
  return c;
}

TEST(Settings, ALoadSharesTheShardsThereAreAndMakesTheNewOnes) {
  auto first = make_settings(with_shards({"s1", "s2"}));
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_EQ((*first)->shards.size(), 2u);
  (*first)->shards[1]->paused = true;  // PAUSE s2 before the RELOAD
  auto second = make_settings(with_shards({"s1", "s2", "s3"}), first->get());
  ASSERT_TRUE(second) << second.error().message;
  ASSERT_EQ((*second)->shards.size(), 3u);
  // Pools made with the first load point into its ShardStates: the same ones, still paused.
  EXPECT_EQ((*second)->shards[0], (*first)->shards[0]);
  EXPECT_EQ((*second)->shards[1], (*first)->shards[1]);
  EXPECT_TRUE((*second)->shards[1]->paused);
  EXPECT_FALSE((*second)->shards[2]->paused);
  EXPECT_EQ((*second)->shards[2]->tls, nullptr) << "sslmode disable: no TLS";
}

TEST(Settings, ANewShardsTlsFileThatDoesNotLoadIsAnError) {
  auto first = make_settings(with_shards({"s1"}));
  ASSERT_TRUE(first) << first.error().message;
  config::Config c = with_shards({"s1", "s2"});
  c.shards[1].sslmode = "verify-full";
  c.shards[1].sslrootcert = "/nonexistent/root.crt";
  auto second = make_settings(c, first->get());
  ASSERT_FALSE(second);
  EXPECT_NE(second.error().message.find("/nonexistent/root.crt"), std::string::npos)
      << second.error().message;
}

}  // namespace
}  // namespace pgrange::proxy
