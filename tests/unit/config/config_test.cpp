#include "config/config.hpp"

#include <gtest/gtest.h>

#include <map>

namespace pgrange::config {
namespace {

constexpr const char* kMinimal = R"(
[[shard]]
name = "s1"
dsn = "host=127.0.0.1 port=55432 dbname=app user=postgres password=pw"
)";

TEST(Config, DefaultsFromAMinimalFile) {
  auto cfg = parse_config(kMinimal);
  ASSERT_TRUE(cfg) << cfg.error().message;
  EXPECT_EQ(cfg->listen_host, "127.0.0.1");
  EXPECT_EQ(cfg->listen_port, 6432);
  EXPECT_EQ(cfg->database, "app");  // the first shard's dbname
  EXPECT_EQ(cfg->pool_mode, PoolMode::kTransaction);
  ASSERT_EQ(cfg->shards.size(), 1u);
  EXPECT_EQ(cfg->shards[0].port, "55432");
  EXPECT_EQ(cfg->shards[0].user, "postgres");
  EXPECT_EQ(cfg->shards[0].password, "pw");
  EXPECT_EQ(cfg->shards[0].pool_size, 20);
  EXPECT_EQ(cfg->shards[0].sslmode, "prefer");  // libpq's default
  EXPECT_GE(cfg->effective_workers(), 1);
  EXPECT_EQ(cfg->sequence_block_size, 100);
}

TEST(Config, SequenceBlockSize) {
  auto cfg = parse_config(std::string("sequence_block_size = 7\n") + kMinimal);
  ASSERT_TRUE(cfg) << cfg.error().message;
  EXPECT_EQ(cfg->sequence_block_size, 7);
  auto bad = parse_config(std::string("sequence_block_size = 0\n") + kMinimal);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("sequence_block_size"), std::string::npos);
}

TEST(Config, QueryMemory) {
  auto defaults = parse_config(kMinimal);
  ASSERT_TRUE(defaults) << defaults.error().message;
  EXPECT_EQ(defaults->query_memory, 256LL * 1024 * 1024);
  auto cfg = parse_config(std::string("query_memory = 8589934592\n") + kMinimal);
  ASSERT_TRUE(cfg) << cfg.error().message;
  EXPECT_EQ(cfg->query_memory, 8589934592LL);
  auto bad = parse_config(std::string("query_memory = 10\n") + kMinimal);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("query_memory"), std::string::npos);
}

TEST(Config, TempDirectory) {
  auto defaults = parse_config(kMinimal);
  ASSERT_TRUE(defaults) << defaults.error().message;
  EXPECT_EQ(defaults->temp_directory, "");
  auto cfg = parse_config(std::string("temp_directory = \"/var/tmp/pgrange\"\n") + kMinimal);
  ASSERT_TRUE(cfg) << cfg.error().message;
  EXPECT_EQ(cfg->temp_directory, "/var/tmp/pgrange");
  auto bad = parse_config(std::string("temp_directory = 5\n") + kMinimal);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("temp_directory"), std::string::npos);
}

TEST(Config, TableSizesInterval) {
  auto defaults = parse_config(kMinimal);
  ASSERT_TRUE(defaults) << defaults.error().message;
  EXPECT_EQ(defaults->table_sizes_interval, std::chrono::milliseconds(5000));
  auto off = parse_config(std::string("table_sizes_interval_ms = 0\n") + kMinimal);
  ASSERT_TRUE(off) << off.error().message;
  EXPECT_EQ(off->table_sizes_interval.count(), 0);
  auto bad = parse_config(std::string("table_sizes_interval_ms = -1\n") + kMinimal);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("table_sizes_interval_ms"), std::string::npos);
}

TEST(Config, RangeManagerSettings) {
  auto defaults = parse_config(kMinimal);
  ASSERT_TRUE(defaults) << defaults.error().message;
  EXPECT_TRUE(defaults->ranges.auto_split);
  EXPECT_EQ(defaults->ranges.range_max_mb, 512);
  EXPECT_EQ(defaults->ranges.split_qps, 2500);
  EXPECT_EQ(defaults->ranges.merge_delay, std::chrono::seconds(300));
  EXPECT_TRUE(defaults->ranges.rebalance);
  EXPECT_EQ(defaults->ranges.check_interval, std::chrono::milliseconds(5000));
  EXPECT_TRUE(defaults->ranges.count_load);
  auto small = parse_config(std::string("[ranges]\nauto_split = false\nrange_max_mb = 0.5\n"
                                        "split_qps = 20\nmerge_delay_s = 2\nrebalance = false\n"
                                        "check_interval_ms = 200\ncount_load = false\n") +
                            kMinimal);
  ASSERT_TRUE(small) << small.error().message;
  EXPECT_FALSE(small->ranges.auto_split);
  EXPECT_EQ(small->ranges.range_max_mb, 0.5);
  EXPECT_EQ(small->ranges.split_qps, 20);
  EXPECT_EQ(small->ranges.merge_delay, std::chrono::seconds(2));
  EXPECT_FALSE(small->ranges.rebalance);
  EXPECT_EQ(small->ranges.check_interval, std::chrono::milliseconds(200));
  EXPECT_FALSE(small->ranges.count_load);
  auto whole = parse_config(std::string("[ranges]\nrange_max_mb = 64\n") + kMinimal);
  ASSERT_TRUE(whole) << whole.error().message;
  EXPECT_EQ(whole->ranges.range_max_mb, 64);
  for (const char* bad : {"[ranges]\nauto_split = 1\n", "[ranges]\nrange_max_mb = 0\n",
                          "[ranges]\nsplit_qps = \"fast\"\n", "[ranges]\ncheck_interval_ms = 5\n",
                          "[ranges]\nmerge_delay = 3\n", "ranges = 3\n"}) {
    auto refused = parse_config(std::string(bad) + kMinimal);
    ASSERT_FALSE(refused) << bad;
    EXPECT_NE(refused.error().message.find("ranges"), std::string::npos) << refused.error().message;
  }
}

TEST(Config, TheDocumentedExample) {
  auto cfg = parse_config(R"(
listen = "127.0.0.1:7432"
database = "app"
pool_mode = "session"
workers = 3
[metadata]
dsn = "host=127.0.0.1 port=55432 dbname=pgrange_meta user=postgres"
[[shard]]
name = "s1"
dsn  = "host=127.0.0.1 port=55432 dbname=app user=postgres"
pool_size = 5
[[shard]]
name = "s2"
dsn  = "host=127.0.0.1 port=55433 dbname=app user=postgres"
[[user]]
name = "app"
password = "secret"
auth = "md5"
[[user]]
name = "ro"
auth = "trust"
[[table]]
name = "pgbench_accounts"
key = ["aid"]
)");
  ASSERT_TRUE(cfg) << cfg.error().message;
  EXPECT_EQ(cfg->listen_port, 7432);
  EXPECT_EQ(cfg->pool_mode, PoolMode::kSession);
  EXPECT_EQ(cfg->effective_workers(), 3);
  EXPECT_EQ(cfg->shards.size(), 2u);
  EXPECT_EQ(cfg->shards[0].pool_size, 5);
  ASSERT_NE(cfg->find_user("app"), nullptr);
  EXPECT_EQ(cfg->find_user("app")->auth, AuthMethod::kMd5);
  EXPECT_EQ(cfg->find_user("ro")->auth, AuthMethod::kTrust);
  EXPECT_EQ(cfg->find_user("nobody"), nullptr);
  ASSERT_EQ(cfg->tables.size(), 1u);
  EXPECT_EQ(cfg->tables[0].key, std::vector<std::string>{"aid"});
  EXPECT_NE(cfg->metadata_dsn.find("pgrange_meta"), std::string::npos);
}

/// Each bad document must fail with a message that names the offending key.
struct BadCase {
  const char* toml;
  const char* expect_in_message;
};

class ConfigErrors : public testing::TestWithParam<BadCase> {};

TEST_P(ConfigErrors, NameTheKey) {
  auto cfg = parse_config(GetParam().toml);
  ASSERT_FALSE(cfg);
  EXPECT_EQ(cfg.error().sqlstate, "F0000");
  EXPECT_NE(cfg.error().message.find(GetParam().expect_in_message), std::string::npos)
      << cfg.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    All, ConfigErrors,
    testing::Values(
        BadCase{"lisen = \"x\"\n[[shard]]\nname=\"s\"\ndsn=\"user=u\"", "\"lisen\""},
        BadCase{"pool_mode = \"statement\"\n[[shard]]\nname=\"s\"\ndsn=\"user=u\"", "pool_mode"},
        BadCase{"workers = -1\n[[shard]]\nname=\"s\"\ndsn=\"user=u\"", "workers"},
        BadCase{"workers = \"two\"\n[[shard]]\nname=\"s\"\ndsn=\"user=u\"", "workers"},
        BadCase{"listen = \"127.0.0.1\"\n[[shard]]\nname=\"s\"\ndsn=\"user=u\"", "listen"},
        BadCase{"listen = \"127.0.0.1:99999\"\n[[shard]]\nname=\"s\"\ndsn=\"user=u\"", "listen"},
        BadCase{"database = \"app\"", "[[shard]]"},
        BadCase{"[[shard]]\nname=\"s\"\ndsn=\"user=u\"\npoolsize=3", "shard[0].poolsize"},
        BadCase{"[[shard]]\nname=\"s\"\ndsn=\"host=\"", "shard[0].dsn"},
        BadCase{"[[shard]]\nname=\"s\"\ndsn=\"nonsense\"", "shard[0].dsn"},
        BadCase{"[[shard]]\nname=\"s\"\ndsn=\"dbname=x\"", "internal_user"},
        BadCase{"internal_user=\"p\"\n[[shard]]\nname=\"s\"\ndsn=\"host=h\"", "needs dbname="},
        BadCase{"[[shard]]\nname=\"s\"\ndsn=\"user=u sslmode=maybe\"", "invalid sslmode"},
        BadCase{
            "auth_query=\"SELECT passwd FROM pg_shadow\"\n[[shard]]\nname=\"s\"\ndsn=\"user=u\"",
            "must use $1"},
        BadCase{"[[shard]]\nname=\"s\"\ndsn=\"user=u\"\n[[user]]\nname=\"a\"\nauth=\"cert\"",
                "needs [tls] client_ca"},
        BadCase{"[[shard]]\nname=\"s\"\ndsn=\"user=u sslmode=verify-full\"", "needs sslrootcert"},
        BadCase{"[[shard]]\nname=\"s\"\ndsn=\"user=u sslmode=require sslrootcert=/nonexistent\"",
                "cannot be read"},
        BadCase{"[[shard]]\nname=\"s\"\ndsn=\"user=u\"\n[[user]]\nname=\"a\"\npassword=\"p\"\n"
                "server_password=\"x\"",
                "needs server_user"},
        BadCase{"[[shard]]\nname=\"s\"\ndsn=\"user=u\"\n[[user]]\nname=\"a\"\npassword=\"p\"\n"
                "admin=\"yes\"",
                "user[0].admin"},
        BadCase{"[[shard]]\nname=\"s\"\ndsn=\"user=u\"\n[[shard]]\nname=\"s\"\ndsn=\"user=u\"",
                "appears twice"},
        BadCase{"[[shard]]\nname=\"s\"\ndsn=\"user=u\"\n[[user]]\nname=\"a\"\nauth=\"ldap\"\n"
                "password=\"x\"",
                "user[0].auth"},
        BadCase{"[[shard]]\nname=\"s\"\ndsn=\"user=u\"\n[[user]]\nname=\"a\"", "user[0].password"},
        BadCase{"[[shard]]\nname=\"s\"\ndsn=\"user=u\"\n[tls]\ncert=\"/nonexistent\"\nkey=\"/x\"",
                "/nonexistent"},
        BadCase{"[[shard]]\nname=\"s\"\ndsn=\"user=u\"\n[metadata]\nurl=\"x\"", "metadata.url"},
        BadCase{"[[shard]]\nname=\"s\"\ndsn=\"user=u\"\n[[table]]\nname=\"t\"\nkey=[]",
                "table[0].key"},
        BadCase{"[[shard]]\nname=\"s\"\ndsn=\"user=u\"\n[[table]]\nname=\"t\"\nkey=[\"a\"]\n"
                "split_at=[[1, 2]]",
                "table[0].split_at"},
        BadCase{"[[shard]]\nname=\"s\"\ndsn=\"user=u\"\n[[table]]\nname=\"t\"\nkey=[\"a\"]\n"
                "split_at=[true]",
                "table[0].split_at"},
        BadCase{"[[shard]]\nname=\"s\"\ndsn=\"user=u\"\n[[table]]\nname=\"t\"\nkey=[\"a\"]\n"
                "split_at=5",
                "table[0].split_at"},
        BadCase{"[[shard]]\nname=\"s\"\ndsn=\"user=u\"\n[[table]]\nname=\"t\"", "table[0].key"},
        BadCase{"[[shard]]\nname=\"s\"\ndsn=\"user=u\"\n[[table]]\nname=\"t\"\nreference=1",
                "table[0].reference"},
        BadCase{"[[shard]]\nname=\"s\"\ndsn=\"user=u\"\n[[table]]\nname=\"t\"\nreference=true\n"
                "key=[\"a\"]\nsplit_at=[5]",
                "table[0].split_at"},
        BadCase{"[[shard]]\nname=\"s\"\ndsn=\"user=u\"\n[[table]]\nname=\"t\"\ncolocate_with=\"\"",
                "table[0].colocate_with"},
        BadCase{
            "[[shard]]\nname=\"s\"\ndsn=\"user=u\"\n[[table]]\nname=\"t\"\ncolocate_with=\"u\"\n"
            "reference=true",
            "table[0].colocate_with"},
        BadCase{
            "[[shard]]\nname=\"s\"\ndsn=\"user=u\"\n[[table]]\nname=\"t\"\ncolocate_with=\"u\"\n"
            "key=[\"a\"]\nsplit_at=[1]",
            "table[0].colocate_with"},
        BadCase{"[[shard]\nname=\"s\"", "line 1"}));

TEST(Config, CoLocatedTables) {
  auto cfg = parse_config(R"(
[[shard]]
name = "s1"
dsn = "user=u"
[[table]]
name = "orders"
colocate_with = "users"
[[table]]
name = "lines"
key = ["user_id", "order_id", "n"]
colocate_with = "public.users"
)");
  ASSERT_TRUE(cfg) << cfg.error().message;
  ASSERT_EQ(cfg->tables.size(), 2u);
  EXPECT_EQ(cfg->tables[0].colocate_with, "users");
  EXPECT_TRUE(cfg->tables[0].key.empty());
  EXPECT_EQ(cfg->tables[1].colocate_with, "public.users");
  EXPECT_EQ(cfg->tables[1].key.size(), 3u);
}

TEST(Config, ReferenceTables) {
  auto cfg = parse_config(R"(
[[shard]]
name = "s1"
dsn = "user=u"
[[table]]
name = "regions"
reference = true
[[table]]
name = "kinds"
key = ["code"]
reference = true
[[table]]
name = "users"
key = ["id"]
reference = false
)");
  ASSERT_TRUE(cfg) << cfg.error().message;
  ASSERT_EQ(cfg->tables.size(), 3u);
  EXPECT_TRUE(cfg->tables[0].reference);
  EXPECT_TRUE(cfg->tables[0].key.empty());
  EXPECT_TRUE(cfg->tables[1].reference);
  EXPECT_EQ(cfg->tables[1].key, std::vector<std::string>{"code"});
  EXPECT_FALSE(cfg->tables[2].reference);
}

TEST(Config, TableSplitPoints) {
  auto cfg = parse_config(R"(
[[shard]]
name = "s1"
dsn = "user=u"
[[table]]
name = "pgbench_accounts"
key = ["aid"]
split_at = [33334, 66667]
[[table]]
name = "events"
key = ["kind", "at"]
split_at = [["b", "2024-01-01"], ["m"], [-1.5, "x"]]
)");
  ASSERT_TRUE(cfg) << cfg.error().message;
  ASSERT_EQ(cfg->tables.size(), 2u);
  EXPECT_EQ(cfg->tables[0].split_at, (std::vector<std::vector<std::string>>{{"33334"}, {"66667"}}));
  EXPECT_EQ(cfg->tables[1].split_at,
            (std::vector<std::vector<std::string>>{{"b", "2024-01-01"}, {"m"}, {"-1.5", "x"}}));
}

TEST(Config, ShardsWithoutUserLogInAsEachClientsRole) {
  // No user= in the shard DSNs: clients log in as their own roles; pgrange's own connections
  // as internal_user.
  auto cfg = parse_config(R"(
internal_user = "pgrange"
internal_password = "it's"
[[shard]]
name = "s1"
dsn = "host=127.0.0.1 port=55432 dbname=app"
[[user]]
name = "app"
password = "secret"
[[user]]
name = "report"
password = "r"
server_user = "reader"
server_password = "readpw"
[[user]]
name = "ops"
password = "o"
admin = true
)");
  ASSERT_TRUE(cfg) << cfg.error().message;
  EXPECT_EQ(cfg->shards[0].user, "");
  EXPECT_EQ(cfg->internal_user, "pgrange");
  auto kv = parse_dsn(cfg->shards[0].dsn);
  ASSERT_TRUE(kv);
  std::map<std::string, std::string> m(kv->begin(), kv->end());
  EXPECT_EQ(m["user"], "pgrange");
  EXPECT_EQ(m["password"], "it's");
  EXPECT_EQ(m["dbname"], "app");
  EXPECT_EQ(m["port"], "55432");
  ASSERT_NE(cfg->find_user("report"), nullptr);
  EXPECT_EQ(cfg->find_user("report")->server_user, "reader");
  EXPECT_EQ(cfg->find_user("report")->server_password, "readpw");
  EXPECT_FALSE(cfg->find_user("app")->admin);
  EXPECT_TRUE(cfg->find_user("ops")->admin);
}

TEST(Config, AuthQueryRunsAsTheInternalRoleByDefault) {
  auto cfg =
      parse_config(std::string("auth_user = \"lookup\"\nauth_password = \"lp\"\n") + kMinimal);
  ASSERT_TRUE(cfg) << cfg.error().message;
  EXPECT_EQ(cfg->auth_query, "SELECT usename, passwd FROM pg_shadow WHERE usename=$1");
  EXPECT_EQ(cfg->auth_user, "lookup");
  EXPECT_EQ(cfg->auth_password, "lp");
  auto own = parse_config(
      std::string("auth_query = \"SELECT passwd FROM pg_authid WHERE rolname = $1\"\n") + kMinimal);
  ASSERT_TRUE(own) << own.error().message;
  EXPECT_EQ(own->auth_user, "postgres");  // the internal role
  EXPECT_EQ(own->auth_password, "pw");
  auto off = parse_config(kMinimal);
  ASSERT_TRUE(off);
  EXPECT_EQ(off->auth_query, "");
}

TEST(Config, InternalRoleDefaultsToTheMetadataStoresThenTheForcedUser) {
  auto from_metadata = parse_config(R"(
[metadata]
dsn = "host=127.0.0.1 port=55432 dbname=meta user=keeper password=k"
[[shard]]
name = "s1"
dsn = "host=127.0.0.1 port=55432 dbname=app"
)");
  ASSERT_TRUE(from_metadata) << from_metadata.error().message;
  EXPECT_EQ(from_metadata->internal_user, "keeper");
  EXPECT_EQ(from_metadata->internal_password, "k");
  EXPECT_NE(from_metadata->shards[0].dsn.find("user='keeper'"), std::string::npos);
  // A forced user stays the role of every connection to its shard.
  auto forced = parse_config(kMinimal);
  ASSERT_TRUE(forced);
  EXPECT_EQ(forced->internal_user, "postgres");
  EXPECT_EQ(forced->shards[0].dsn,
            "host=127.0.0.1 port=55432 dbname=app user=postgres password=pw");
}

TEST(Config, ParseDsn) {
  auto kv = parse_dsn("host=h port=1 dbname='my db' user=u");
  ASSERT_TRUE(kv);
  bool found = false;
  for (auto& [k, v] : *kv) {
    if (k == "dbname") {
      EXPECT_EQ(v, "my db");
      found = true;
    }
  }
  EXPECT_TRUE(found);
  EXPECT_FALSE(parse_dsn("host"));
}

TEST(Config, LoadMissingFile) {
  auto cfg = load_config("/nonexistent/pgrange.toml");
  ASSERT_FALSE(cfg);
  EXPECT_NE(cfg.error().message.find("/nonexistent/pgrange.toml"), std::string::npos);
}

}  // namespace
}  // namespace pgrange::config
