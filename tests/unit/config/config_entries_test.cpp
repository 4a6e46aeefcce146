#include "config/config_entries.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace pgrange::config {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

constexpr const char* kBase = R"(
listen = "127.0.0.1:6432"
workers = 2
pool_wait_timeout_ms = 10000
[metadata]
dsn = "host=127.0.0.1 port=5432 dbname=meta user=postgres password=topsecret"
[[shard]]
name = "s1"
dsn = "host=127.0.0.1 port=5432 dbname=app user=postgres password=topsecret"
pool_size = 20
[[shard]]
name = "s2"
dsn = "host=127.0.0.1 port=5433 dbname=app user=postgres password=topsecret"
[[user]]
name = "app"
password = "secret"
)";

Config parse(const std::string& text) {
  auto cfg = parse_config(text);
  EXPECT_TRUE(cfg) << (cfg ? "" : cfg.error().message);
  return cfg ? *cfg : Config{};
}

std::string with(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(ConfigEntries, NoChangeMeansNothingToDo) {
  Config a = parse(kBase);
  EXPECT_THAT(changed_keys(a, a), IsEmpty());
  EXPECT_THAT(restart_only_changes(a, a), IsEmpty());
}

TEST(ConfigEntries, PoolSizesTimeoutsAndUsersReload) {
  Config a = parse(kBase);
  std::string text = with(kBase, "pool_size = 20", "pool_size = 5");
  text = with(text, "pool_wait_timeout_ms = 10000",
              "pool_wait_timeout_ms = 500\nlog_level = \"debug\"");
  text = with(text, "password = \"secret\"\n",
              "password = \"changed\"\nadmin = true\n[[user]]\nname = \"new\"\npassword = \"x\"\n");
  Config b = parse(text);
  EXPECT_THAT(restart_only_changes(a, b), IsEmpty());
  EXPECT_THAT(changed_keys(a, b),
              UnorderedElementsAre(
                  "shard.s1.pool_size", "pool_wait_timeout_ms", "log_level", "user.app.password",
                  "user.app.admin", "user.new.auth", "user.new.password", "user.new.server_user",
                  "user.new.server_password", "user.new.admin", "user.new.max_connections"));
  // A user removed is reloadable too.
  EXPECT_THAT(restart_only_changes(b, a), IsEmpty());
  EXPECT_THAT(describe_changes(a, b),
              UnorderedElementsAre("user new added", "shard.s1.pool_size", "pool_wait_timeout_ms",
                                   "log_level", "user.app.password", "user.app.admin"));
  EXPECT_THAT(describe_changes(b, a),
              UnorderedElementsAre("user new removed", "shard.s1.pool_size", "pool_wait_timeout_ms",
                                   "log_level", "user.app.password", "user.app.admin"));
}

TEST(ConfigEntries, ShardsListenWorkersAndTheStoreNeedARestart) {
  Config a = parse(kBase);
  EXPECT_THAT(restart_only_changes(a, parse(with(kBase, "workers = 2", "workers = 3"))),
              ElementsAre("workers"));
  EXPECT_THAT(restart_only_changes(a, parse(with(kBase, "127.0.0.1:6432", "127.0.0.1:6433"))),
              ElementsAre("listen"));
  EXPECT_THAT(
      restart_only_changes(a, parse(with(kBase, "port=5433 dbname=app", "port=5434 dbname=app"))),
      UnorderedElementsAre("shard.s2.port", "shard.s2.dsn"));
  EXPECT_THAT(restart_only_changes(a, parse(with(kBase, "dbname=meta", "dbname=meta2"))),
              ElementsAre("metadata.dsn"));
  // A shard added after the others is applied by RELOAD; removing it needs a restart.
  std::string added = std::string(kBase) +
                      "[[shard]]\nname = \"s3\"\ndsn = \"host=127.0.0.1 port=5435 dbname=app\"\n";
  EXPECT_THAT(restart_only_changes(a, parse(added)), IsEmpty());
  EXPECT_THAT(describe_changes(a, parse(added)), ElementsAre("shard s3 added"));
  auto removed = restart_only_changes(parse(added), a);
  EXPECT_NE(std::find(removed.begin(), removed.end(), "shard.s3.host"), removed.end());
  // Shards are numbered in the file's order: one added before the others needs a restart.
  std::string first = with(kBase, "[[shard]]",
                           "[[shard]]\nname = \"s0\"\ndsn = \"host=127.0.0.1 port=5435 "
                           "dbname=app\"\n[[shard]]");
  EXPECT_THAT(restart_only_changes(a, parse(first)),
              ElementsAre("the order of the [[shard]] entries"));
  auto http = restart_only_changes(
      a, parse(with(kBase, "[metadata]", "[http]\nlisten = \"127.0.0.1:9930\"\n[metadata]")));
  EXPECT_THAT(http, ElementsAre("http.listen"));
}

TEST(ConfigEntries, SecretsAreNeverShown) {
  for (const ConfigEntry& e : config_entries(parse(kBase))) {
    EXPECT_EQ(e.value.find("topsecret"), std::string::npos) << e.key;
    EXPECT_EQ(e.value.find("secret"), std::string::npos) << e.key;
    if (e.secret && !e.raw.empty()) {
      EXPECT_EQ(e.value, "********") << e.key;
    }
  }
}

TEST(ConfigEntries, NewKeysParse) {
  Config c = parse(std::string("log_format = \"json\"\nslow_statement_ms = 250\n") + kBase +
                   "[http]\nlisten = \"127.0.0.1:9930\"\n");
  EXPECT_EQ(c.log_format, "json");
  EXPECT_EQ(c.slow_statement.count(), 250);
  EXPECT_TRUE(c.http_enabled);
  EXPECT_EQ(c.http_host, "127.0.0.1");
  EXPECT_EQ(c.http_port, 9930);
  Config d = parse(kBase);
  EXPECT_FALSE(d.http_enabled);
  EXPECT_EQ(d.log_format, "text");
  EXPECT_EQ(d.slow_statement.count(), 0);
  EXPECT_FALSE(parse_config(std::string("log_format = \"xml\"\n") + kBase));
  EXPECT_FALSE(parse_config(std::string(kBase) + "[http]\nlisten = \"nowhere\"\n"));
  EXPECT_FALSE(parse_config(std::string(kBase) + "[http]\nport = 1\n"));
}

}  // namespace
}  // namespace pgrange::config
