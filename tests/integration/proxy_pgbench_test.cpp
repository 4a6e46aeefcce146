// pgbench through pgrange in transaction pooling: select-only in all three query modes and the
// TPC-B-like default script, with no failed transactions and the bank invariant intact.
#include <gtest/gtest.h>

#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "tests/support/pg_server.hpp"
#include "tests/support/process.hpp"
#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {
namespace {

/// One server initialised with `pgbench -i -s 2` and one pgrange (2 workers, pool_size 16).
class ProxyPgbenchTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    PgServer::Options o;
    o.databases = {"app"};
    server_ = PgServer::start(o).release();
    int rc = -1;
    init_output_ = run_command({pg_bin("pgbench"), "-i", "-s", "2", "-q", "-h", "127.0.0.1", "-p",
                                std::to_string(server_->port()), "-U", "postgres", "app"},
                               "", &rc, std::chrono::seconds(300));
    init_rc_ = rc;
    ProxyConfig c = ProxyConfig::with_shard(server_->dsn("app"), 16);
    c.workers = 2;
    proxy_ = ProxyProcess::start(c).release();
  }
  static void TearDownTestSuite() {
    delete proxy_;
    delete server_;
    proxy_ = nullptr;
    server_ = nullptr;
  }

  void SetUp() override { ASSERT_EQ(init_rc_, 0) << init_output_; }

  /// Runs pgbench through pgrange with extra arguments; checks exit code 0, no failed
  /// transactions and some processed ones; returns the processed count.
  static long pgbench(const std::vector<std::string>& args) {
    ProcessOptions po;
    po.argv = {pg_bin("pgbench"), "-n", "-c", "8", "-j", "2", "-T", "5"};
    po.argv.insert(po.argv.end(), args.begin(), args.end());
    for (std::string a : {"-h", "127.0.0.1", "-p"}) po.argv.push_back(a);
    po.argv.push_back(std::to_string(proxy_->port()));
    for (std::string a : {"-U", "app", "app"}) po.argv.push_back(a);
    po.env = {{"PGPASSWORD", "secret"}, {"PGCONNECT_TIMEOUT", "30"}};
    int rc = -1;
    std::string out = run_process(po, "", &rc, std::chrono::seconds(120));
    EXPECT_EQ(rc, 0) << out << "\nproxy log:\n" << proxy_->log_tail();
    EXPECT_NE(out.find("number of failed transactions: 0 "), std::string::npos) << out;
    std::smatch m;
    long processed = -1;
    if (std::regex_search(out, m,
                          std::regex("number of transactions actually processed: (\\d+)"))) {
      processed = std::stol(m[1]);
    }
    EXPECT_GT(processed, 0) << out;
    EXPECT_TRUE(proxy_->running()) << proxy_->log_tail();
    return processed;
  }

  static PgServer* server_;
  static ProxyProcess* proxy_;
  static std::string init_output_;
  static int init_rc_;
};

PgServer* ProxyPgbenchTest::server_ = nullptr;
ProxyProcess* ProxyPgbenchTest::proxy_ = nullptr;
std::string ProxyPgbenchTest::init_output_;
int ProxyPgbenchTest::init_rc_ = -1;

TEST_F(ProxyPgbenchTest, SelectOnlySimple) {
  pgbench({"-S", "-M", "simple"});
}

TEST_F(ProxyPgbenchTest, SelectOnlyExtended) {
  pgbench({"-S", "-M", "extended"});
}

TEST_F(ProxyPgbenchTest, SelectOnlyPrepared) {
  pgbench({"-S", "-M", "prepared"});
}

TEST_F(ProxyPgbenchTest, TpcbSimpleAndPreparedKeepTheBankInvariant) {
  EXPECT_EQ(server_->exec("select count(*) from pgbench_accounts", "app"), "200000");
  long simple = pgbench({"-M", "simple"});
  long prepared = pgbench({"-M", "prepared"});
  // Every transaction adds one history row and the same delta to one account, teller and
  // branch: checked directly on the shard.
  EXPECT_EQ(server_->exec("select count(*) from pgbench_history", "app"),
            std::to_string(simple + prepared));
  std::string sums = server_->exec(
      "select (select sum(abalance) from pgbench_accounts)::text || ',' || "
      "(select sum(bbalance) from pgbench_branches) || ',' || "
      "(select sum(tbalance) from pgbench_tellers) || ',' || "
      "(select coalesce(sum(delta), 0) from pgbench_history)",
      "app");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(sums, m, std::regex("(-?\\d+),(-?\\d+),(-?\\d+),(-?\\d+)"))) << sums;
  EXPECT_EQ(m[1], m[2]) << sums;
  EXPECT_EQ(m[1], m[3]) << sums;
  EXPECT_EQ(m[1], m[4]) << sums;
}

}  // namespace
}  // namespace pgrange::testing
