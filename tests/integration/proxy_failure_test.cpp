// Failures through pgrange: cancel, bad passwords, TLS, a shard going away and coming back, pool
// wait timeout, malformed protocol bytes, a backend killed under a client, and SIGTERM.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/pg_server.hpp"
#include "tests/support/ports.hpp"
#include "tests/support/process.hpp"
#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

/// Seconds since `t0`.
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Waits (up to 20 s) until the shard runs a query with this text: a cancel sent before the
/// query reached its backend would find nothing to cancel, on PostgreSQL as through pgrange.
void wait_until_running(PgServer& server, const std::string& query) {
  auto deadline = Clock::now() + std::chrono::seconds(20);
  while (Clock::now() < deadline) {
    std::string n = server.exec(
        "select count(*) from pg_stat_activity where state = 'active' and query = '" + query + "'",
        "app");
    if (n != "0") return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ADD_FAILURE() << "the query never started on the shard: " << query;
}

/// Connects and expects success.
PgConnPtr must_connect(const std::string& dsn) {
  auto c = pq_connect(dsn);
  EXPECT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
  return c;
}

/// The error text of a failed connection attempt ("" when it succeeded).
std::string connect_error(const std::string& dsn) {
  auto c = pq_connect(dsn);
  return PQstatus(c.get()) == CONNECTION_OK ? "" : PQerrorMessage(c.get());
}

/// True when `select 1` works on `c`.
bool works(PGconn* c) {
  return pq_exec(c, "select 1").at() == "1";
}

/// Runs `psql -c 'select 42'` through the proxy and returns its output.
std::string psql_select(const ProxyProcess& proxy) {
  ProcessOptions po;
  po.argv = {pg_bin("psql"), "-X", "-A", "-t", "-d", proxy.dsn(), "-c", "select 42"};
  po.env = {{"PGCONNECT_TIMEOUT", "20"}};
  int rc = -1;
  return run_process(po, "", &rc, 60s);
}

/// One server and one pgrange (2 workers, no TLS) shared by the tests that leave them intact.
class ProxyFailureTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    PgServer::Options o;
    o.databases = {"app"};
    server_ = PgServer::start(o).release();
    ProxyConfig c = ProxyConfig::with_shard(server_->dsn("app"), 8);
    c.workers = 2;
    proxy_ = ProxyProcess::start(c).release();
  }
  static void TearDownTestSuite() {
    delete proxy_;
    delete server_;
    proxy_ = nullptr;
    server_ = nullptr;
  }
  void TearDown() override { EXPECT_TRUE(proxy_->running()) << proxy_->log_tail(); }

  /// Logs a raw client in as the trust user and reads up to ReadyForQuery.
  static void raw_login(RawClient& raw) {
    ASSERT_TRUE(raw.send_startup({{"user", "trustuser"}, {"database", "app"}}));
    RawMessage z = raw.read_until('Z');
    ASSERT_EQ(z.type, 'Z');
  }

  /// Expects the next message to be FATAL 08P01 and the connection to close afterwards; the
  /// proxy keeps serving others.
  static void expect_protocol_violation(RawClient& raw, PGconn* bystander) {
    RawMessage m = raw.read_until('E');
    ASSERT_EQ(m.type, 'E') << "no error message before the connection ended";
    auto f = m.fields();
    EXPECT_EQ(f['S'], "FATAL") << f['M'];
    EXPECT_EQ(f['C'], "08P01") << f['M'];
    EXPECT_TRUE(raw.wait_closed(10s));
    EXPECT_TRUE(works(bystander));
    EXPECT_EQ(psql_select(*proxy_), "42\n");
  }

  static PgServer* server_;
  static ProxyProcess* proxy_;
};

PgServer* ProxyFailureTest::server_ = nullptr;
ProxyProcess* ProxyFailureTest::proxy_ = nullptr;

TEST_F(ProxyFailureTest, CancelInterruptsTheQueryAndTheSessionGoesOn) {
  // Several sessions, so both workers get some: the cancel connection may be accepted by a
  // different worker than the session's.
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE("session " + std::to_string(i));
    auto c = must_connect(proxy_->dsn());
    ASSERT_EQ(PQsendQuery(c.get(), "select pg_sleep(30)"), 1);
    wait_until_running(*server_, "select pg_sleep(30)");
    auto t0 = Clock::now();
    PGcancel* cancel = PQgetCancel(c.get());
    char err[256] = {0};
    EXPECT_EQ(PQcancel(cancel, err, sizeof err), 1) << err;
    PQfreeCancel(cancel);
    SqlResult r = take_result(PQgetResult(c.get()), c.get());
    while (PGresult* extra = PQgetResult(c.get())) PQclear(extra);
    EXPECT_EQ(r.sqlstate, "57014") << r.message;
    EXPECT_LT(seconds_since(t0), 20.0) << "the query ran to its end: the cancel was lost";
    EXPECT_TRUE(works(c.get()));
    EXPECT_EQ(pq_exec(c.get(), "begin; select 2; commit").status, PGRES_COMMAND_OK);
  }
}

TEST_F(ProxyFailureTest, CancelInsideATransactionAbortsIt) {
  auto c = must_connect(proxy_->dsn());
  ASSERT_TRUE(pq_exec(c.get(), "begin").ok());
  ASSERT_EQ(PQsendQuery(c.get(), "select pg_sleep(30)"), 1);
  wait_until_running(*server_, "select pg_sleep(30)");
  PGcancel* cancel = PQgetCancel(c.get());
  char err[256] = {0};
  EXPECT_EQ(PQcancel(cancel, err, sizeof err), 1) << err;
  PQfreeCancel(cancel);
  SqlResult r = take_result(PQgetResult(c.get()), c.get());
  while (PGresult* extra = PQgetResult(c.get())) PQclear(extra);
  EXPECT_EQ(r.sqlstate, "57014");
  EXPECT_EQ(PQtransactionStatus(c.get()), PQTRANS_INERROR);
  EXPECT_EQ(pq_exec(c.get(), "select 1").sqlstate, "25P02");
  EXPECT_TRUE(pq_exec(c.get(), "rollback").ok());
  EXPECT_TRUE(works(c.get()));
}

TEST_F(ProxyFailureTest, BadPasswordsAndUnknownUsers) {
  auto bystander = must_connect(proxy_->dsn());
  ASSERT_TRUE(pq_exec(bystander.get(), "begin").ok());
  ASSERT_TRUE(works(bystander.get()));
  struct Case {
    std::string user, password;
  };
  for (const Case& k : {Case{"app", "wrong"}, Case{"md5user", "wrong"}, Case{"app", ""},
                        Case{"nosuchuser", "whatever"}, Case{"md5user", "secret"}}) {
    SCOPED_TRACE(k.user + "/" + k.password);
    std::string err = connect_error(proxy_->dsn(k.user, k.password.empty() ? "x" : k.password));
    EXPECT_NE(err.find("password authentication failed for user \"" + k.user + "\""),
              std::string::npos)
        << err;
    // The SQLSTATE, read from the wire for the md5 path (libpq has no result on login failure).
  }
  {
    RawClient raw(proxy_->port());
    ASSERT_TRUE(raw.send_startup({{"user", "md5user"}, {"database", "app"}}));
    RawMessage req = raw.read();
    ASSERT_EQ(req.type, 'R');
    ASSERT_EQ(req.body.substr(0, 4), RawClient::i32(5));  // AuthenticationMD5Password
    raw.send(RawClient::message('p', std::string("md5") + std::string(32, '0') + '\0'));
    RawMessage e = raw.read_until('E');
    ASSERT_EQ(e.type, 'E');
    EXPECT_EQ(e.fields()['C'], "28P01");
    EXPECT_EQ(e.fields()['S'], "FATAL");
    EXPECT_TRUE(raw.wait_closed());
  }
  // The right passwords work, and the open session never noticed.
  for (auto [user, password] : {std::pair{"app", "secret"}, std::pair{"md5user", "md5secret"},
                                std::pair{"trustuser", ""}}) {
    auto c = must_connect(proxy_->dsn(user, password));
    EXPECT_TRUE(works(c.get())) << user;
  }
  EXPECT_TRUE(works(bystander.get()));
  EXPECT_TRUE(pq_exec(bystander.get(), "commit").ok());
}

TEST_F(ProxyFailureTest, NoTlsConfigured) {
  std::string err = connect_error(proxy_->dsn("app", "secret", "sslmode=require"));
  EXPECT_NE(err.find("does not support SSL"), std::string::npos) << err;
  auto c = must_connect(proxy_->dsn("app", "secret", "sslmode=prefer"));
  EXPECT_EQ(PQsslInUse(c.get()), 0);
  EXPECT_TRUE(works(c.get()));
  // A raw SSLRequest and GSSENCRequest are both answered 'N', then a normal startup follows.
  RawClient raw(proxy_->port());
  raw.send(RawClient::i32(8) + RawClient::i32(80877103));
  EXPECT_EQ(raw.read_byte(), "N");
  raw.send(RawClient::i32(8) + RawClient::i32(80877104));
  EXPECT_EQ(raw.read_byte(), "N");
  raw_login(raw);
  raw.send(RawClient::message('Q', std::string("select 'plain'") + '\0'));
  RawMessage d = raw.read_until('D');
  EXPECT_NE(d.body.find("plain"), std::string::npos);
}

/// What a server sends back for these startup-phase bytes (then, with `half_close`, EOF from
/// the client) before it closes the connection; "<still open>" when it does not close it.
std::string startup_answer(int port, const std::string& bytes, bool half_close) {
  RawClient raw(port);
  raw.send(bytes);
  if (half_close) raw.shutdown_write();
  bool closed = false;
  std::string got = raw.read_to_close(closed);
  return closed ? got : got + "<still open>";
}

/// Sends each startup packet PostgreSQL closes without a word to PostgreSQL and to pgrange:
/// neither sends a byte back, both close, and pgrange goes on serving everyone else.
TEST_F(ProxyFailureTest, StartupPacketsPostgresClosesSilently) {
  auto bystander = must_connect(proxy_->dsn());
  struct Case {
    std::string name;
    std::string bytes;
    bool half_close;
  };
  std::vector<Case> cases = {
      // node-postgres' connect() then end(): Terminate before the startup packet.
      {"Terminate first", std::string("X") + RawClient::i32(4), false},
      {"length below 8", RawClient::i32(3) + "abcdefgh", false},
      {"length 4", RawClient::i32(4), false},
      {"negative length", RawClient::i32(-8) + RawClient::i32(196608), false},
      {"length above 10000", RawClient::i32(10005) + RawClient::i32(196608) + "user", false},
      {"huge length", RawClient::i32(0x7fffffff) + RawClient::i32(196608) + "user", false},
      {"cut short", RawClient::i32(40) + RawClient::i32(196608) + std::string("user\0tru", 8),
       true},
      {"half a length word", std::string("\0\0", 2), true},
      {"nothing at all", "", true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(startup_answer(server_->port(), c.bytes, c.half_close), "")
        << "PostgreSQL itself answers this one";
    EXPECT_EQ(startup_answer(proxy_->port(), c.bytes, c.half_close), "");
    EXPECT_TRUE(works(bystander.get()));
  }
  auto fresh = must_connect(proxy_->dsn());
  EXPECT_TRUE(works(fresh.get()));
  EXPECT_EQ(psql_select(*proxy_), "42\n");
}

TEST_F(ProxyFailureTest, UnsupportedProtocolVersion) {
  // PostgreSQL's answer: FATAL 0A000, then it closes the connection (protocol 4.0: one newer
  // than both, so the error comes in the 3.0 format).
  auto bystander = must_connect(proxy_->dsn());
  for (int port : {server_->port(), proxy_->port()}) {
    SCOPED_TRACE(port == server_->port() ? "PostgreSQL" : "pgrange");
    RawClient raw(port);
    std::string body = RawClient::i32(4 << 16) + "user" + '\0' + "trustuser" + '\0' + '\0';
    raw.send(RawClient::i32(static_cast<int32_t>(body.size() + 4)) + body);
    RawMessage m = raw.read_until('E');
    ASSERT_EQ(m.type, 'E');
    EXPECT_EQ(m.fields()['S'], "FATAL");
    EXPECT_EQ(m.fields()['C'], "0A000");
    EXPECT_EQ(m.fields()['M'], "unsupported frontend protocol 4.0: server supports 3.0 to 3.0");
    EXPECT_TRUE(raw.wait_closed());
  }
  EXPECT_TRUE(works(bystander.get()));
}

TEST_F(ProxyFailureTest, UnknownMessageTypeAfterLogin) {
  auto bystander = must_connect(proxy_->dsn());
  RawClient raw(proxy_->port());
  raw_login(raw);
  raw.send(RawClient::message('y', "junk"));
  expect_protocol_violation(raw, bystander.get());
}

TEST_F(ProxyFailureTest, UnknownMessageTypeInsideATransaction) {
  // The connection that breaks the protocol holds a backend in an open transaction: it must be
  // closed without leaking the backend (the pool of 4 per worker keeps serving).
  auto bystander = must_connect(proxy_->dsn());
  for (int i = 0; i < 10; ++i) {
    RawClient raw(proxy_->port());
    raw_login(raw);
    raw.send(RawClient::message('Q', std::string("begin; create temp table t(x int)") + '\0'));
    ASSERT_EQ(raw.read_until('Z').type, 'Z');
    raw.send(RawClient::message('\x01', ""));
    expect_protocol_violation(raw, bystander.get());
  }
}

TEST_F(ProxyFailureTest, BadMessageLengthAfterLogin) {
  auto bystander = must_connect(proxy_->dsn());
  RawClient raw(proxy_->port());
  raw_login(raw);
  raw.send(std::string("Q") + RawClient::i32(2) + "select 1");
  expect_protocol_violation(raw, bystander.get());
}

TEST_F(ProxyFailureTest, MessageAboveMaxMessageSize) {
  auto bystander = must_connect(proxy_->dsn());
  RawClient raw(proxy_->port());
  raw_login(raw);
  // Only the header: the length alone (100 MB > 64 MB) must be refused.
  raw.send(std::string("Q") + RawClient::i32(100 * 1024 * 1024) + "select ");
  expect_protocol_violation(raw, bystander.get());
}

TEST_F(ProxyFailureTest, TruncatedMessageThenClose) {
  auto bystander = must_connect(proxy_->dsn());
  for (int i = 0; i < 3; ++i) {
    RawClient raw(proxy_->port());
    raw_login(raw);
    raw.send(std::string("Q") + RawClient::i32(100) + "select 1");
  }  // closed with half a message sent
  {
    RawClient raw(proxy_->port());
    raw.send(RawClient::i32(40) + RawClient::i32(196608) + "user\0tru");  // half a startup
  }
  EXPECT_TRUE(works(bystander.get()));
  EXPECT_EQ(psql_select(*proxy_), "42\n");
}

TEST_F(ProxyFailureTest, BackendKilledDuringAQuery) {
  // A backend FATAL while the client's query runs reaches the client as an ERROR; the client's
  // pgrange connection stays usable.
  auto c = must_connect(proxy_->dsn());
  ASSERT_TRUE(pq_exec(c.get(), "begin").ok());
  std::string pid = pq_exec(c.get(), "select pg_backend_pid()").at();
  ASSERT_EQ(PQsendQuery(c.get(), "select pg_sleep(30)"), 1);
  // With a timeout, pg_terminate_backend waits until the backend is gone.
  ASSERT_EQ(server_->exec("select pg_terminate_backend(" + pid + ", 20000)", "app"), "t");
  SqlResult r = take_result(PQgetResult(c.get()), c.get());
  while (PGresult* extra = PQgetResult(c.get())) PQclear(extra);
  EXPECT_EQ(r.sqlstate, "57P01") << r.message;
  EXPECT_EQ(r.severity, "ERROR");
  EXPECT_EQ(PQstatus(c.get()), CONNECTION_OK);
  pq_exec(c.get(), "rollback");
  EXPECT_TRUE(works(c.get()));
  EXPECT_NE(pq_exec(c.get(), "select pg_backend_pid()").at(), pid);
}

TEST_F(ProxyFailureTest, BackendKilledWhileIdleInTransaction) {
  // The backend of a client that is idle inside a transaction dies. The transaction is lost, so
  // the client's next statement must fail (not run on another backend outside any
  // transaction); afterwards the session goes on.
  server_->exec("create table if not exists killed_txn (x int)", "app");
  auto c = must_connect(proxy_->dsn());
  ASSERT_TRUE(pq_exec(c.get(), "begin").ok());
  ASSERT_TRUE(pq_exec(c.get(), "insert into killed_txn values (1)").ok());
  std::string pid = pq_exec(c.get(), "select pg_backend_pid()").at();
  ASSERT_EQ(server_->exec("select pg_terminate_backend(" + pid + ", 20000)", "app"), "t");
  SqlResult r = pq_exec(c.get(), "insert into killed_txn values (2)");
  EXPECT_FALSE(r.ok()) << "the statement ran although its transaction was gone";
  EXPECT_TRUE(r.sqlstate == "57P01" || r.sqlstate == "08006") << r.sqlstate << " " << r.message;
  EXPECT_EQ(r.severity, "ERROR");
  EXPECT_EQ(PQstatus(c.get()), CONNECTION_OK);
  pq_exec(c.get(), "rollback");
  // Nothing of the lost transaction was committed, not even the statement after the loss.
  EXPECT_EQ(server_->exec("select count(*) from killed_txn", "app"), "0");
  EXPECT_TRUE(works(c.get()));
}

TEST(ProxyTlsTest, SelfSignedCertificate) {
  std::string dir = std::filesystem::temp_directory_path().string() + "/pgrange-tls-XXXXXX";
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  /// Removes the certificate folder however the test ends.
  struct RemoveDir {
    std::string path;
    ~RemoveDir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  } remove_dir{dir};
  run_command({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
               "-days", "1", "-keyout", dir + "/server.key", "-out", dir + "/server.crt"});
  PgServer::Options o;
  o.databases = {"app"};
  auto server = PgServer::start(o);
  ProxyConfig cfg = ProxyConfig::with_shard(server->dsn("app"), 4);
  cfg.tls_cert = dir + "/server.crt";
  cfg.tls_key = dir + "/server.key";
  auto proxy = ProxyProcess::start(cfg);
  for (auto [user, password] : {std::pair{"app", "secret"}, std::pair{"md5user", "md5secret"},
                                std::pair{"trustuser", ""}}) {
    SCOPED_TRACE(user);
    auto c = must_connect(proxy->dsn(user, password, "sslmode=require"));
    EXPECT_EQ(PQsslInUse(c.get()), 1);
    EXPECT_TRUE(works(c.get()));
    // A larger result over TLS.
    EXPECT_EQ(pq_exec(c.get(),
                      "select length(string_agg(md5(g::text), '')) from "
                      "generate_series(1, 20000) g")
                  .at(),
              "640000");
  }
  // The certificate verifies against itself as the root.
  auto v = must_connect(
      proxy->dsn("app", "secret", "sslmode=verify-full sslrootcert=" + dir + "/server.crt") +
      " host=localhost hostaddr=127.0.0.1");
  EXPECT_EQ(PQsslInUse(v.get()), 1);
  // Plain connections are still allowed.
  auto plain = must_connect(proxy->dsn("app", "secret", "sslmode=disable"));
  EXPECT_EQ(PQsslInUse(plain.get()), 0);
  EXPECT_TRUE(works(plain.get()));
}

TEST(ProxyAuthTest, HashedPasswordsInTheConfig) {
  // A SCRAM verifier and an md5 hash, both made by PostgreSQL itself, work as [[user]] passwords.
  PgServer::Options o;
  o.databases = {"app"};
  auto server = PgServer::start(o);
  std::string verifier = server->exec(
      "set password_encryption = 'scram-sha-256'; create role hashed_scram password 'pw-s1'; "
      "select rolpassword from pg_authid where rolname = 'hashed_scram'");
  ASSERT_EQ(verifier.rfind("SCRAM-SHA-256$", 0), 0u) << verifier;
  std::string md5 = server->exec("select 'md5' || md5('pw-m1' || 'hashed_md5')");
  ProxyConfig cfg = ProxyConfig::with_shard(server->dsn("app"), 2);
  cfg.users.push_back(ProxyConfig::User{"hashed_scram", verifier, "scram-sha-256"});
  cfg.users.push_back(ProxyConfig::User{"hashed_md5", md5, "md5"});
  auto proxy = ProxyProcess::start(cfg);
  auto s = must_connect(proxy->dsn("hashed_scram", "pw-s1"));
  EXPECT_TRUE(works(s.get()));
  auto m = must_connect(proxy->dsn("hashed_md5", "pw-m1"));
  EXPECT_TRUE(works(m.get()));
  EXPECT_NE(
      connect_error(proxy->dsn("hashed_scram", "pw-s2")).find("password authentication failed"),
      std::string::npos);
  EXPECT_NE(connect_error(proxy->dsn("hashed_md5", "pw-m2")).find("password authentication failed"),
            std::string::npos);
}

TEST(ProxyMessageSizeTest, MessagesAboveTheLimitCloseOnlyThatConnection) {
  PgServer::Options o;
  o.databases = {"app"};
  auto server = PgServer::start(o);
  ProxyConfig cfg = ProxyConfig::with_shard(server->dsn("app"), 4);
  cfg.max_message_size = 1024 * 1024;
  auto proxy = ProxyProcess::start(cfg);
  auto bystander = must_connect(proxy->dsn());
  auto c = must_connect(proxy->dsn());
  // Below the limit: fine.
  std::string half(512 * 1024, 'a');
  EXPECT_EQ(pq_exec(c.get(), "select length('" + half + "')").at(), "524288");
  // Above: FATAL 08P01, and that connection is closed.
  std::string two(2 * 1024 * 1024, 'b');
  SqlResult r = pq_exec(c.get(), "select length('" + two + "')");
  EXPECT_FALSE(r.ok());
  std::string err = PQerrorMessage(c.get());
  EXPECT_TRUE(r.sqlstate == "08P01" || err.find("exceeds the limit") != std::string::npos)
      << r.sqlstate << " " << err;
  EXPECT_FALSE(works(c.get()));
  EXPECT_TRUE(works(bystander.get()));
  EXPECT_TRUE(proxy->running());
}

TEST(ProxyDisconnectTest, ClientGoneInsideATransactionLeavesNothingOpen) {
  // workers=1, pool_size=1: the next client would get the very backend; the dead client's
  // transaction must be gone (rolled back), whether it said goodbye (Terminate) or not.
  PgServer::Options o;
  o.databases = {"app"};
  auto server = PgServer::start(o);
  server->exec("create table left_open (x int)", "app");
  ProxyConfig cfg = ProxyConfig::with_shard(server->dsn("app"), 1);
  cfg.workers = 1;
  auto proxy = ProxyProcess::start(cfg);
  {
    auto a = must_connect(proxy->dsn());
    ASSERT_TRUE(pq_exec(a.get(), "begin").ok());
    ASSERT_TRUE(pq_exec(a.get(), "insert into left_open values (1)").ok());
  }  // PQfinish sends Terminate
  {
    RawClient raw(proxy->port());
    ASSERT_TRUE(raw.send_startup({{"user", "trustuser"}, {"database", "app"}}));
    ASSERT_EQ(raw.read_until('Z').type, 'Z');
    raw.send(
        RawClient::message('Q', std::string("begin; insert into left_open values (2)") + '\0'));
    ASSERT_EQ(raw.read_until('Z').type, 'Z');
  }  // the socket just closes
  auto b = must_connect(proxy->dsn());
  EXPECT_EQ(pq_exec(b.get(), "select count(*) from left_open").at(), "0");
  EXPECT_EQ(PQtransactionStatus(b.get()), PQTRANS_IDLE);
  SqlResult begin = pq_exec(b.get(), "begin");
  EXPECT_TRUE(begin.ok());
  EXPECT_EQ(pq_exec(b.get(), "select count(*) from left_open").at(), "0");
  EXPECT_TRUE(pq_exec(b.get(), "commit").ok());
  EXPECT_EQ(server->exec("select count(*) from left_open", "app"), "0");
  EXPECT_EQ(server->exec("select count(*) from pg_stat_activity where datname = 'app' and state "
                         "like 'idle in transaction%'"),
            "0");
}

TEST(ProxyShardRestartTest, ShardStoppedAndStartedAgain) {
  PgServer::Options o;
  o.databases = {"app"};
  auto server = PgServer::start(o);
  ProxyConfig cfg = ProxyConfig::with_shard(server->dsn("app"), 4);
  cfg.workers = 1;
  cfg.connect_timeout_ms = 2000;
  auto proxy = ProxyProcess::start(cfg);
  auto idle = must_connect(proxy->dsn());
  auto in_txn = must_connect(proxy->dsn());
  ASSERT_TRUE(works(idle.get()));
  ASSERT_TRUE(pq_exec(in_txn.get(), "begin").ok());
  ASSERT_TRUE(works(in_txn.get()));

  server->stop();
  // The client in a transaction loses it: an ERROR, not a closed connection.
  SqlResult r = pq_exec(in_txn.get(), "select 1");
  EXPECT_TRUE(r.sqlstate == "57P01" || r.sqlstate == "08006") << r.sqlstate << " " << r.message;
  EXPECT_EQ(PQstatus(in_txn.get()), CONNECTION_OK);
  // The idle client's next query cannot get a backend: 08006 naming the shard.
  SqlResult down = pq_exec(idle.get(), "select 1");
  EXPECT_EQ(down.sqlstate, "08006") << down.message;
  EXPECT_NE((down.message + down.detail).find("shard \"s1\""), std::string::npos)
      << down.message << " / " << down.detail;
  EXPECT_EQ(PQstatus(idle.get()), CONNECTION_OK);
  EXPECT_TRUE(proxy->running()) << proxy->log_tail();

  server->start_again();
  pq_exec(in_txn.get(), "rollback");
  EXPECT_TRUE(works(idle.get())) << proxy->log_tail();
  EXPECT_TRUE(works(in_txn.get())) << proxy->log_tail();
  auto fresh = must_connect(proxy->dsn());
  EXPECT_TRUE(works(fresh.get()));
  EXPECT_TRUE(proxy->running());
}

TEST(ProxyShardDownTest, UnreachableShardAtLogin) {
  // A shard that is not there at all: login fails with 08006 naming the shard.
  ProxyConfig cfg = ProxyConfig::with_shard(
      "host=127.0.0.1 port=" + std::to_string(free_port()) + " dbname=app user=postgres", 2);
  cfg.connect_timeout_ms = 2000;
  auto proxy = ProxyProcess::start(cfg);
  std::string err = connect_error(proxy->dsn());
  EXPECT_NE(err.find("shard \"s1\""), std::string::npos) << err;
  EXPECT_TRUE(proxy->running());
}

TEST(ProxyPoolTimeoutTest, WaitTimesOutThenRecovers) {
  PgServer::Options o;
  o.databases = {"app"};
  auto server = PgServer::start(o);
  ProxyConfig cfg = ProxyConfig::with_shard(server->dsn("app"), 1);
  cfg.workers = 1;
  cfg.pool_wait_timeout_ms = 500;
  auto proxy = ProxyProcess::start(cfg);
  auto holder = must_connect(proxy->dsn());
  auto waiter = must_connect(proxy->dsn());
  ASSERT_TRUE(pq_exec(holder.get(), "begin").ok());
  ASSERT_TRUE(works(holder.get()));
  SqlResult r = pq_exec(waiter.get(), "select 1");
  EXPECT_EQ(r.sqlstate, "53300") << r.message;
  EXPECT_NE(r.message.find("timed out"), std::string::npos) << r.message;
  EXPECT_EQ(r.severity, "ERROR");
  EXPECT_EQ(PQstatus(waiter.get()), CONNECTION_OK);
  // Extended protocol waits time out the same way and the session skips to Sync.
  SqlResult p = take_result(PQexecParams(waiter.get(), "select $1::int", 1, nullptr,
                                         std::vector<const char*>{"5"}.data(), nullptr, nullptr, 0),
                            waiter.get());
  EXPECT_EQ(p.sqlstate, "53300") << p.message;
  ASSERT_TRUE(pq_exec(holder.get(), "commit").ok());
  EXPECT_TRUE(works(waiter.get()));
  SqlResult p2 =
      take_result(PQexecParams(waiter.get(), "select $1::int", 1, nullptr,
                               std::vector<const char*>{"5"}.data(), nullptr, nullptr, 0),
                  waiter.get());
  EXPECT_EQ(p2.at(), "5") << p2.message;
  EXPECT_TRUE(works(holder.get()));
}

TEST(ProxyShutdownTest, SigtermWithAnIdleClient) {
  PgServer::Options o;
  o.databases = {"app"};
  auto server = PgServer::start(o);
  ProxyConfig cfg = ProxyConfig::with_shard(server->dsn("app"), 4);
  cfg.shutdown_timeout_ms = 5000;
  auto proxy = ProxyProcess::start(cfg);
  auto c = must_connect(proxy->dsn());
  ASSERT_TRUE(works(c.get()));
  auto t0 = Clock::now();
  std::optional<int> rc = proxy->stop(30s);
  ASSERT_TRUE(rc.has_value()) << "pgrange did not exit\n" << proxy->log_tail();
  EXPECT_EQ(*rc, 0) << proxy->log_tail();
  EXPECT_LT(seconds_since(t0), 20.0);
  // The client was told (FATAL 57P01) or saw the connection end.
  SqlResult r = pq_exec(c.get(), "select 1");
  EXPECT_FALSE(r.ok());
  std::string err = PQerrorMessage(c.get());
  EXPECT_TRUE(r.sqlstate == "57P01" || err.find("shutting down") != std::string::npos ||
              err.find("closed the connection") != std::string::npos ||
              err.find("no connection") != std::string::npos)
      << r.sqlstate << " " << err;
}

TEST(ProxyShutdownTest, SigtermLetsATransactionFinish) {
  PgServer::Options o;
  o.databases = {"app"};
  auto server = PgServer::start(o);
  server->exec("create table drained (x int)", "app");
  ProxyConfig cfg = ProxyConfig::with_shard(server->dsn("app"), 4);
  cfg.shutdown_timeout_ms = 20000;
  auto proxy = ProxyProcess::start(cfg);
  auto c = must_connect(proxy->dsn());
  ASSERT_TRUE(pq_exec(c.get(), "begin").ok());
  ASSERT_TRUE(pq_exec(c.get(), "insert into drained values (1)").ok());
  ASSERT_TRUE(proxy->process().signal(SIGTERM));
  // New connections are refused once draining started (poll: the signal is asynchronous).
  bool refused = false;
  for (int i = 0; i < 200 && !refused; ++i) {
    refused = !connect_error(proxy->dsn()).empty();
    if (!refused) std::this_thread::sleep_for(20ms);
  }
  EXPECT_TRUE(refused);
  // The open transaction still completes.
  EXPECT_TRUE(pq_exec(c.get(), "insert into drained values (2)").ok()) << proxy->log_tail();
  EXPECT_TRUE(pq_exec(c.get(), "commit").ok()) << proxy->log_tail();
  EXPECT_EQ(server->exec("select count(*) from drained", "app"), "2");
  std::optional<int> rc = proxy->process().wait(30s);
  ASSERT_TRUE(rc.has_value()) << proxy->log_tail();
  EXPECT_EQ(*rc, 0);
  EXPECT_FALSE(works(c.get()));
}

TEST(ProxyCancelTest, CancelOfAnIdleClientDoesNotHitOthers) {
  // workers=1, pool_size=1: a and b share one backend. a's cancel key, used while a is idle,
  // must not cancel b's query on the backend a used before.
  PgServer::Options o;
  o.databases = {"app"};
  auto server = PgServer::start(o);
  ProxyConfig cfg = ProxyConfig::with_shard(server->dsn("app"), 1);
  cfg.workers = 1;
  auto proxy = ProxyProcess::start(cfg);
  auto a = must_connect(proxy->dsn());
  auto b = must_connect(proxy->dsn());
  std::string pid_a = pq_exec(a.get(), "select pg_backend_pid()").at();
  ASSERT_EQ(PQsendQuery(b.get(), "select pg_backend_pid(), pg_sleep(1.5)"), 1);
  std::this_thread::sleep_for(300ms);
  PGcancel* cancel = PQgetCancel(a.get());
  char err[256] = {0};
  PQcancel(cancel, err, sizeof err);
  PQfreeCancel(cancel);
  SqlResult r = take_result(PQgetResult(b.get()), b.get());
  while (PGresult* extra = PQgetResult(b.get())) PQclear(extra);
  EXPECT_TRUE(r.ok()) << r.sqlstate << " " << r.message;
  EXPECT_EQ(r.at(), pid_a);  // it really ran on the backend a had used
  EXPECT_TRUE(works(a.get()));
}

TEST(ProxyCancelTest, CancelInSessionMode) {
  PgServer::Options o;
  o.databases = {"app"};
  auto server = PgServer::start(o);
  ProxyConfig cfg = ProxyConfig::with_shard(server->dsn("app"), 4);
  cfg.pool_mode = "session";
  auto proxy = ProxyProcess::start(cfg);
  auto c = must_connect(proxy->dsn());
  ASSERT_EQ(PQsendQuery(c.get(), "select pg_sleep(30)"), 1);
  wait_until_running(*server, "select pg_sleep(30)");
  auto t0 = Clock::now();
  PGcancel* cancel = PQgetCancel(c.get());
  char err[256] = {0};
  EXPECT_EQ(PQcancel(cancel, err, sizeof err), 1) << err;
  PQfreeCancel(cancel);
  SqlResult r = take_result(PQgetResult(c.get()), c.get());
  while (PGresult* extra = PQgetResult(c.get())) PQclear(extra);
  EXPECT_EQ(r.sqlstate, "57014") << r.message;
  EXPECT_LT(seconds_since(t0), 20.0);
  EXPECT_TRUE(works(c.get()));
}

/// Starts a server and a pgrange with the given pool mode and shutdown timeout.
std::pair<std::unique_ptr<PgServer>, std::unique_ptr<ProxyProcess>> server_and_proxy(
    const std::string& pool_mode, int shutdown_timeout_ms) {
  PgServer::Options o;
  o.databases = {"app"};
  auto server = PgServer::start(o);
  ProxyConfig cfg = ProxyConfig::with_shard(server->dsn("app"), 4);
  cfg.pool_mode = pool_mode;
  cfg.shutdown_timeout_ms = shutdown_timeout_ms;
  auto proxy = ProxyProcess::start(cfg);
  return {std::move(server), std::move(proxy)};
}

/// After pgrange exited: the client's next query fails; returns libpq's error text.
std::string error_after_exit(PGconn* c) {
  SqlResult r = pq_exec(c, "select 1");
  EXPECT_FALSE(r.ok());
  return PQerrorMessage(c);
}

TEST(ProxyShutdownTest, SigtermWithAPinnedIdleClient) {
  // The client is idle (not in a transaction) but pinned by a temp table: its session is over
  // after its transaction like any other, so it is told FATAL 57P01 (it does not just lose the
  // connection when the shutdown timeout runs out).
  auto [server, proxy] = server_and_proxy("transaction", 5000);
  auto c = must_connect(proxy->dsn());
  ASSERT_TRUE(pq_exec(c.get(), "create temp table pinned (x int)").ok());
  std::optional<int> rc = proxy->stop(60s);
  ASSERT_TRUE(rc.has_value()) << proxy->log_tail();
  EXPECT_EQ(*rc, 0);
  std::string err = error_after_exit(c.get());
  EXPECT_NE(err.find("pgrange is shutting down"), std::string::npos) << err << "\nlog:\n"
                                                                     << proxy->log_tail();
}

TEST(ProxyShutdownTest, SigtermInSessionModeWithAnIdleClient) {
  auto [server, proxy] = server_and_proxy("session", 5000);
  auto c = must_connect(proxy->dsn());
  ASSERT_TRUE(works(c.get()));
  std::optional<int> rc = proxy->stop(60s);
  ASSERT_TRUE(rc.has_value()) << proxy->log_tail();
  EXPECT_EQ(*rc, 0);
  std::string err = error_after_exit(c.get());
  EXPECT_NE(err.find("pgrange is shutting down"), std::string::npos) << err << "\nlog:\n"
                                                                     << proxy->log_tail();
}

TEST(ProxyShutdownTest, ShutdownTimeoutEndsAnOpenTransaction) {
  // A transaction left open does not keep pgrange alive past shutdown_timeout_ms.
  auto [server, proxy] = server_and_proxy("transaction", 1000);
  auto c = must_connect(proxy->dsn());
  ASSERT_TRUE(pq_exec(c.get(), "begin").ok());
  ASSERT_TRUE(works(c.get()));
  std::optional<int> rc = proxy->stop(30s);
  ASSERT_TRUE(rc.has_value()) << "pgrange still runs 30 s after SIGTERM\n" << proxy->log_tail();
  EXPECT_EQ(*rc, 0);
  error_after_exit(c.get());
}

}  // namespace
}  // namespace pgrange::testing
