// psql scripts give the same output directly against PostgreSQL and through pgrange.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/pg_server.hpp"
#include "tests/support/process.hpp"
#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {
namespace {

/// Replaces every occurrence of `from` in `s` by `to`.
std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

/// One PostgreSQL server (database "app") and one pgrange in front of it for all tests here.
class ProxyPsqlTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    PgServer::Options o;
    o.databases = {"app"};
    server_ = PgServer::start(o).release();
    proxy_ = ProxyProcess::start(ProxyConfig::with_shard(server_->dsn("app"), 8)).release();
    ProxyConfig session = ProxyConfig::with_shard(server_->dsn("app"), 8);
    session.pool_mode = "session";
    session_proxy_ = ProxyProcess::start(session).release();
  }
  static void TearDownTestSuite() {
    delete session_proxy_;
    session_proxy_ = nullptr;
    delete proxy_;
    delete server_;
    proxy_ = nullptr;
    server_ = nullptr;
  }

  /// Runs psql with a script file (or "-c" command) against `conninfo`; returns stdout+stderr
  /// with the server's and the proxy's ports normalised.
  static std::string psql(const std::string& conninfo, std::vector<std::string> args,
                          int* exit_code) {
    ProcessOptions po;
    po.argv = {pg_bin("psql"), "-X", "-A", "-q", "-v", "ON_ERROR_STOP=0", "-d", conninfo};
    for (auto& a : args) po.argv.push_back(a);
    po.env = {{"PGCONNECT_TIMEOUT", "20"}, {"PGOPTIONS", ""}, {"PGTZ", "UTC"}};
    std::string out = run_process(po, "", exit_code, std::chrono::seconds(120));
    out = replace_all(out, "port " + std::to_string(server_->port()), "port PORT");
    out = replace_all(out, "port " + std::to_string(proxy_->port()), "port PORT");
    out = replace_all(out, "port " + std::to_string(session_proxy_->port()), "port PORT");
    return out;
  }

  static std::string script(const std::string& name) {
    return std::string(PGRANGE_SOURCE_DIR) + "/tests/integration/sql/" + name;
  }

  /// Runs a script directly and through pgrange and expects the same output and exit code.
  static void expect_same_output(const std::string& name,
                                 const std::vector<std::string>& must_contain) {
    int direct_rc = -1, proxy_rc = -1;
    std::string direct = psql(server_->dsn("app"), {"-f", script(name)}, &direct_rc);
    std::string proxied = psql(proxy_->dsn(), {"-f", script(name)}, &proxy_rc);
    // The reference run must itself show what the script exercises.
    for (const auto& s : must_contain) {
      EXPECT_NE(direct.find(s), std::string::npos) << "direct output lacks: " << s << "\n"
                                                   << direct.substr(0, 3000);
    }
    EXPECT_EQ(direct.find("could not connect"), std::string::npos) << direct;
    EXPECT_EQ(direct_rc, proxy_rc);
    EXPECT_TRUE(direct == proxied)
        << name << ": outputs differ at " << first_difference(direct, proxied) << "\nproxy log:\n"
        << proxy_->log_tail();
    EXPECT_TRUE(proxy_->running()) << proxy_->log_tail();
    // Session pooling gives the same output too.
    int session_rc = -1;
    std::string in_session = psql(session_proxy_->dsn(), {"-f", script(name)}, &session_rc);
    EXPECT_EQ(direct_rc, session_rc);
    EXPECT_TRUE(direct == in_session) << name << " (session pooling): outputs differ at "
                                      << first_difference(direct, in_session) << "\nproxy log:\n"
                                      << session_proxy_->log_tail();
  }

  static PgServer* server_;
  static ProxyProcess* proxy_;
  static ProxyProcess* session_proxy_;  ///< the same shard with pool_mode = "session"
};

PgServer* ProxyPsqlTest::server_ = nullptr;
ProxyProcess* ProxyPsqlTest::proxy_ = nullptr;
ProxyProcess* ProxyPsqlTest::session_proxy_ = nullptr;

TEST_F(ProxyPsqlTest, DdlAndDml) {
  expect_same_output("psql_ddl_dml.sql", {"Table \"public.psql_t\"", "1|one|1.50", "rows: 2",
                                          "hello 42", "1000000", "three", "40", "unicode ✓"});
}

TEST_F(ProxyPsqlTest, ErrorsAndTransactions) {
  expect_same_output(
      "psql_errors.sql",
      {"ERROR:  42601: syntax error at or near \"selec\"", "ERROR:  22012: division by zero",
       "relation \"no_such_table\" does not exist",
       "duplicate key value violates unique constraint", "sqlstate: 23514",
       "current transaction is aborted", "custom failure 7", "HINT:  a hint",
       "WARNING:  25P01: there is no transaction in progress", "1|a\n6|f"});
}

TEST_F(ProxyPsqlTest, CopyInAndOut) {
  expect_same_output(
      "psql_copy.sql",
      {"1\tone\t1.50", "3\ttab\\there\t3.00", "id,name,amount", "5,\"five \"\"dq\"\"\",", "20000\t",
       "invalid input syntax for type numeric", "division by zero"});
}

TEST_F(ProxyPsqlTest, MultiStatementCommand) {
  // psql -c sends the whole string as one simple Query message.
  const std::string cmd =
      "create temp table m(x int); insert into m values (1),(2); select sum(x) from m; "
      "select 1/0; select 'not reached'";
  int direct_rc = -1, proxy_rc = -1;
  std::string direct = psql(server_->dsn("app"), {"-c", cmd}, &direct_rc);
  std::string proxied = psql(proxy_->dsn(), {"-c", cmd}, &proxy_rc);
  EXPECT_NE(direct.find("ERROR:  division by zero"), std::string::npos) << direct;
  EXPECT_EQ(direct.find("not reached"), std::string::npos) << direct;
  EXPECT_EQ(direct, proxied) << first_difference(direct, proxied);
  EXPECT_EQ(direct_rc, proxy_rc);
}

TEST_F(ProxyPsqlTest, UnknownDatabaseIsRejectedLikePostgres) {
  int direct_rc = -1, proxy_rc = -1;
  std::string direct_dsn = server_->dsn("app");
  direct_dsn = replace_all(direct_dsn, "dbname=app", "dbname=nosuchdb");
  std::string direct = psql(direct_dsn, {"-c", "select 1"}, &direct_rc);
  std::string proxied = psql(replace_all(proxy_->dsn(), "dbname=app", "dbname=nosuchdb"),
                             {"-c", "select 1"}, &proxy_rc);
  EXPECT_NE(direct.find("FATAL:  database \"nosuchdb\" does not exist"), std::string::npos)
      << direct;
  EXPECT_EQ(direct, proxied);
  EXPECT_EQ(direct_rc, 2);
  EXPECT_EQ(proxy_rc, 2);

  // The error's SQLSTATE, read from the wire: 3D000 (trust user, so no password exchange).
  RawClient raw(proxy_->port());
  ASSERT_TRUE(raw.send_startup({{"user", "trustuser"}, {"database", "other"}}));
  RawMessage m = raw.read_until('E');
  ASSERT_EQ(m.type, 'E');
  auto f = m.fields();
  EXPECT_EQ(f['S'], "FATAL");
  EXPECT_EQ(f['C'], "3D000");
  EXPECT_EQ(f['M'], "database \"other\" does not exist");
  EXPECT_TRUE(raw.wait_closed());

  // The right database still works afterwards.
  auto conn = pq_connect(proxy_->dsn());
  ASSERT_EQ(PQstatus(conn.get()), CONNECTION_OK) << PQerrorMessage(conn.get());
  EXPECT_EQ(pq_exec(conn.get(), "select current_database()").at(), "app");
}

}  // namespace
}  // namespace pgrange::testing
