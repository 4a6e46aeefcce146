// Tests of the integration-test harness itself: PgServer, ChildProcess, run_command, free_port.
#include "tests/support/pg_server.hpp"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "tests/support/ports.hpp"
#include "tests/support/process.hpp"

namespace pgrange::testing {
namespace {

namespace fs = std::filesystem;

/// True if a process with this pid exists (zombies included).
bool process_exists(pid_t pid) {
  return ::kill(pid, 0) == 0 || errno != ESRCH;
}

/// Connects with libpq; returns "" on success or the error message.
std::string try_connect(const std::string& conninfo) {
  PGconn* conn = PQconnectdb(conninfo.c_str());
  std::string err = PQstatus(conn) == CONNECTION_OK ? "" : PQerrorMessage(conn);
  if (err.empty()) {
    PGresult* res = PQexec(conn, "select 1");
    if (PQresultStatus(res) != PGRES_TUPLES_OK) err = PQerrorMessage(conn);
    PQclear(res);
  }
  PQfinish(conn);
  return err;
}

TEST(PgServerTest, TwoServersAtOnceWithSettingsAndDatabases) {
  PgServer::Options opts;
  opts.settings = {{"work_mem", "8MB"}, {"application_name", "pgrange test"}};
  opts.databases = {"app", "other db"};
  auto a = PgServer::start(opts);
  auto b = PgServer::start(opts);
  ASSERT_TRUE(a->running());
  ASSERT_TRUE(b->running());
  EXPECT_NE(a->port(), b->port());
  EXPECT_NE(a->data_dir(), b->data_dir());
  for (PgServer* s : {a.get(), b.get()}) {
    EXPECT_GE(s->port(), 20000);
    EXPECT_LT(s->port(), 32000);
    EXPECT_NE(s->exec("select version()").find("PostgreSQL 15"), std::string::npos);
    EXPECT_EQ(s->exec("show max_prepared_transactions"), "100");
    EXPECT_EQ(s->exec("show max_connections"), "200");
    EXPECT_EQ(s->exec("show wal_level"), "logical");
    EXPECT_EQ(s->exec("show fsync"), "off");
    EXPECT_EQ(s->exec("show synchronous_commit"), "off");
    EXPECT_EQ(s->exec("show listen_addresses"), "127.0.0.1");
    EXPECT_EQ(s->exec("show work_mem"), "8MB");
    EXPECT_EQ(s->exec("show application_name"), "pgrange test");
    EXPECT_EQ(s->exec("select current_database()", "app"), "app");
    EXPECT_EQ(s->exec("select current_database()", "other db"), "other db");
    EXPECT_EQ(s->exec("select datname from pg_database where datname in ('app', 'other db') "
                      "order by 1"),
              "app\nother db");
    // The TCP dsn works too (trust auth by default) and reports the server's own port.
    PGconn* conn = PQconnectdb(s->dsn("app").c_str());
    ASSERT_EQ(PQstatus(conn), CONNECTION_OK) << PQerrorMessage(conn);
    PGresult* res = PQexec(conn, "select inet_server_port(), current_database()");
    ASSERT_EQ(PQresultStatus(res), PGRES_TUPLES_OK);
    EXPECT_EQ(std::stoi(PQgetvalue(res, 0, 0)), s->port());
    EXPECT_STREQ(PQgetvalue(res, 0, 1), "app");
    PQclear(res);
    PQfinish(conn);
  }
  // The two servers are independent.
  a->exec("create table only_on_a(x int)");
  EXPECT_EQ(a->exec("select count(*) from pg_class where relname = 'only_on_a'"), "1");
  EXPECT_EQ(b->exec("select count(*) from pg_class where relname = 'only_on_a'"), "0");
}

TEST(PgServerTest, ExecReturnsFirstColumnAndThrowsOnError) {
  auto s = PgServer::start();
  EXPECT_EQ(s->exec("select g, g * 10 from generate_series(1, 3) g"), "1\n2\n3");
  EXPECT_EQ(s->exec("select null::text"), "");
  EXPECT_EQ(s->exec("create table t(x int)"), "");
  EXPECT_EQ(s->exec("insert into t values (1), (2); select sum(x) from t"), "3");
  EXPECT_THROW(s->exec("select * from no_such_table"), std::runtime_error);
  EXPECT_THROW(s->exec("select 1", "no_such_db"), std::runtime_error);
  EXPECT_EQ(s->dsn("app"),
            "host=127.0.0.1 port=" + std::to_string(s->port()) + " dbname=app user=postgres");
}

TEST(PgServerTest, StopAndStartAgainKeepsDataAndPort) {
  auto s = PgServer::start(
      {.settings = {}, .host_auth = "trust", .superuser_password = "", .databases = {"app"}});
  s->exec("create table kept(v text)", "app");
  s->exec("insert into kept values ('before restart')", "app");
  const int port = s->port();
  const pid_t first_pid = s->pid();
  const std::string dir = s->data_dir();

  s->stop();
  EXPECT_FALSE(s->running());
  EXPECT_FALSE(process_exists(first_pid));
  EXPECT_TRUE(fs::exists(dir + "/PG_VERSION"));
  EXPECT_FALSE(fs::exists(dir + "/postmaster.pid"));  // clean (fast) shutdown
  EXPECT_NE(try_connect(s->dsn("app")), "");
  EXPECT_THROW(s->exec("select 1"), std::runtime_error);

  s->start_again();
  EXPECT_TRUE(s->running());
  EXPECT_EQ(s->port(), port);
  EXPECT_EQ(s->data_dir(), dir);
  EXPECT_NE(s->pid(), first_pid);
  EXPECT_EQ(s->exec("select v from kept", "app"), "before restart");
  EXPECT_EQ(try_connect(s->dsn("app")), "");
  EXPECT_EQ(s->exec("show max_prepared_transactions"), "100");
  s->stop();
  s->stop();  // idempotent
  EXPECT_FALSE(s->running());
}

TEST(PgServerTest, ScramAuthRejectsWrongPasswordAndAcceptsRightOne) {
  auto s = PgServer::start({.settings = {},
                            .host_auth = "scram-sha-256",
                            .superuser_password = "s3cret 'pw'",
                            .databases = {"app"}});
  EXPECT_EQ(s->exec("select rolpassword like 'SCRAM-SHA-256$%' from pg_authid "
                    "where rolname = 'postgres'"),
            "t");
  EXPECT_EQ(s->exec("select auth_method from pg_hba_file_rules where type = 'host' limit 1"),
            "scram-sha-256");
  EXPECT_NE(s->dsn().find("password="), std::string::npos);
  EXPECT_EQ(try_connect(s->dsn("app")), "");
  const std::string base =
      "host=127.0.0.1 port=" + std::to_string(s->port()) + " dbname=app user=postgres";
  const std::string wrong = try_connect(base + " password=wrong");
  EXPECT_NE(wrong.find("password authentication failed"), std::string::npos) << wrong;
  EXPECT_NE(try_connect(base + " password=''"), "");
  EXPECT_EQ(try_connect(base + " password=" + conninfo_quote("s3cret 'pw'")), "");
}

TEST(PgServerTest, Md5AuthStoresMd5Password) {
  auto s = PgServer::start(
      {.settings = {}, .host_auth = "md5", .superuser_password = "pw", .databases = {}});
  EXPECT_EQ(s->exec("select rolpassword like 'md5%' from pg_authid where rolname = 'postgres'"),
            "t");
  EXPECT_EQ(try_connect(s->dsn()), "");
  EXPECT_NE(try_connect("host=127.0.0.1 port=" + std::to_string(s->port()) +
                        " dbname=postgres user=postgres password=nope"),
            "");
}

TEST(PgServerTest, DestructorStopsServerAndRemovesDataDir) {
  auto s = PgServer::start();
  const pid_t pid = s->pid();
  const std::string dir = s->data_dir();
  const int port = s->port();
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(process_exists(pid));
  // A backend process that must be gone too.
  const std::string backend = s->exec("select pg_backend_pid()");
  s.reset();
  EXPECT_EQ(::kill(pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
  EXPECT_FALSE(process_exists(static_cast<pid_t>(std::stoi(backend))));
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_TRUE(port_is_free(port));
}

TEST(PgServerTest, StartFailureThrowsWithLogAndCleansUp) {
  PgServer::Options opts;
  opts.settings = {{"max_connections", "not_a_number"}};
  try {
    PgServer::start(opts);
    FAIL() << "start with an invalid setting succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("max_connections"), std::string::npos) << e.what();
  }
  EXPECT_THROW(PgServer::start({.settings = {},
                                .host_auth = "trust",
                                .superuser_password = "",
                                .databases = {"bad\"name", "bad\"name"}}),
               std::runtime_error);  // second CREATE DATABASE fails
}

TEST(PgServerTest, StartAgainFailsWhenPortTaken) {
  auto s = PgServer::start();
  s->stop();
  // Squat on the server's port; start_again must give up with the log, not hang.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(s->port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  // The stopped server's connections may leave the port in TIME_WAIT: a listener may still
  // bind it with SO_REUSEADDR (PostgreSQL's own does), and holds it as long as it listens.
  const int on = 1;
  ASSERT_EQ(::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on), 0);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << std::strerror(errno);
  ASSERT_EQ(::listen(fd, 1), 0);
  try {
    s->start_again();
    FAIL() << "start_again succeeded on a taken port";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("Address already in use"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(s->running());
  ::close(fd);
  s->start_again();  // free again
  EXPECT_EQ(s->exec("select 1"), "1");
}

TEST(PgServerTest, StartsFromTemplate) {
  PgServer::start();  // warm the template cache
  const auto t0 = std::chrono::steady_clock::now();
  auto s = PgServer::start();
  EXPECT_EQ(s->exec("select 1"), "1");
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  RecordProperty("start_ms", static_cast<int>(ms));
  std::printf("PgServer::start took %lld ms\n", static_cast<long long>(ms));
  // A figure, not a pass/fail criterion: timings don't belong in tests on a shared machine.
  const auto t1 = std::chrono::steady_clock::now();
  s.reset();
  std::printf("~PgServer took %lld ms\n",
              static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                         std::chrono::steady_clock::now() - t1)
                                         .count()));
}

TEST(ChildProcessTest, CapturesOutputEnvAndExitStatus) {
  const std::string log =
      fs::temp_directory_path() / ("pgrange-child-" + std::to_string(::getpid()) + ".log");
  fs::remove(log);
  {
    ProcessOptions opts;
    opts.argv = {"sh", "-c", "echo out $PGRANGE_X; echo err >&2; exit 3"};
    opts.env = {{"PGRANGE_X", "hello"}};
    opts.log_file = log;
    ChildProcess p(opts);
    EXPECT_GT(p.pid(), 0);
    auto status = p.wait(std::chrono::seconds(10));
    ASSERT_TRUE(status.has_value());
    EXPECT_EQ(*status, 3);
    EXPECT_FALSE(p.running());
    EXPECT_FALSE(p.signal(SIGTERM));
  }
  std::ifstream in(log);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(content.find("out hello"), std::string::npos) << content;
  EXPECT_NE(content.find("err"), std::string::npos) << content;
  fs::remove(log);
}

TEST(ChildProcessTest, DestructorKillsAndReaps) {
  pid_t pid;
  {
    ChildProcess p({"sleep", "100"}, "");
    pid = p.pid();
    EXPECT_TRUE(p.running());
    EXPECT_FALSE(p.wait(std::chrono::milliseconds(50)).has_value());
  }
  EXPECT_EQ(::kill(pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);

  // A process ignoring SIGTERM is SIGKILLed after the grace period.
  ChildProcess stubborn({"sh", "-c", "trap '' TERM; while :; do sleep 0.05; done"}, "");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(stubborn.terminate(std::chrono::milliseconds(300)), 128 + SIGKILL);
  EXPECT_FALSE(stubborn.running());
}

TEST(ChildProcessTest, SignalAndRunAsPostgres) {
  ChildProcess p({"sleep", "100"}, "");
  EXPECT_TRUE(p.signal(SIGINT));
  EXPECT_EQ(p.wait(std::chrono::seconds(10)), 128 + SIGINT);

  if (running_as_root()) {
    ProcessOptions opts;
    opts.argv = {"sh", "-c", "id -un; pwd; echo $HOME"};
    opts.as_postgres_when_root = true;
    EXPECT_EQ(run_process(opts), "postgres\n/tmp\n/tmp\n");
  }
}

TEST(ChildProcessTest, OutlivesTheThreadThatStartedIt) {
  std::unique_ptr<ChildProcess> p;
  std::thread([&] {
    p = std::make_unique<ChildProcess>(std::vector<std::string>{"sleep", "100"}, "");
  }).join();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(p->running());
  EXPECT_EQ(p->terminate(), 128 + SIGTERM);
}

TEST(ChildProcessTest, MissingBinaryThrows) {
  EXPECT_THROW(ChildProcess({"/nonexistent/binary"}, ""), std::runtime_error);
  EXPECT_THROW(ChildProcess({"no-such-program-pgrange"}, ""), std::runtime_error);
  EXPECT_THROW(run_command({"no-such-program-pgrange"}), std::runtime_error);
}

TEST(RunCommandTest, CapturesOutputStdinAndExitCode) {
  EXPECT_EQ(run_command({"sh", "-c", "echo a; echo b >&2"}), "a\nb\n");
  EXPECT_EQ(run_command({"cat"}, "line1\nline2\n"), "line1\nline2\n");
  std::string big(1 << 20, 'x');  // larger than pipe buffers in both directions
  EXPECT_EQ(run_command({"cat"}, big).size(), big.size());
  int code = 0;
  EXPECT_EQ(run_command({"sh", "-c", "echo failing; exit 7"}, "", &code), "failing\n");
  EXPECT_EQ(code, 7);
  EXPECT_THROW(run_command({"sh", "-c", "exit 1"}), std::runtime_error);
  // A child that exits without reading stdin must not kill us with SIGPIPE.
  EXPECT_EQ(run_command({"true"}, big, &code), "");
  EXPECT_EQ(code, 0);
  EXPECT_THROW(run_command({"sleep", "10"}, "", &code, std::chrono::milliseconds(200)),
               std::runtime_error);
}

TEST(RunCommandTest, ChildGetsOnlyStandardFileDescriptors) {
  const int leaky = ::open("/dev/null", O_RDONLY);  // not close-on-exec
  ASSERT_GE(leaky, 0);
  EXPECT_EQ(run_command({"sh", "-c", "ls /proc/$$/fd"}), "0\n1\n2\n");
  const std::string log =
      fs::temp_directory_path() / ("pgrange-fd-" + std::to_string(::getpid()) + ".log");
  {
    ChildProcess p({"sh", "-c", "ls /proc/$$/fd"}, log);
    EXPECT_EQ(p.wait(std::chrono::seconds(10)), 0);
    EXPECT_EQ(p.log_tail(), "0\n1\n2\n");
  }
  fs::remove(log);
  ::close(leaky);
}

TEST(RunCommandTest, PsqlAgainstPgServer) {
  auto s = PgServer::start();
  const std::string out = run_command(
      {pg_bin("psql"), s->dsn(), "-XAtq", "-v", "ON_ERROR_STOP=1", "-c", "select 40 + 2"});
  EXPECT_EQ(out, "42\n");
  int code = 0;
  run_command({pg_bin("psql"), s->dsn(), "-XAtq", "-v", "ON_ERROR_STOP=1"}, "select nope;\n",
              &code);
  EXPECT_NE(code, 0);
}

TEST(FreePortTest, ReturnsDistinctBindablePortsInRange) {
  std::set<int> seen;
  for (int i = 0; i < 20; ++i) {
    const int port = free_port();
    EXPECT_GE(port, 20000);
    EXPECT_LT(port, 32000);
    EXPECT_TRUE(port_is_free(port));
    EXPECT_TRUE(seen.insert(port).second) << "port handed out twice: " << port;
  }
}

TEST(FreePortTest, WaitUntilListening) {
  auto s = PgServer::start();
  EXPECT_TRUE(wait_until_listening(s->port(), std::chrono::seconds(1)));
  const int unused = free_port();
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(wait_until_listening(unused, std::chrono::milliseconds(200)));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(200));
  // keep_waiting=false (e.g. the process died) ends the wait at once.
  const auto t1 = std::chrono::steady_clock::now();
  EXPECT_FALSE(wait_until_listening(unused, std::chrono::seconds(30), [] { return false; }));
  EXPECT_LT(std::chrono::steady_clock::now() - t1, std::chrono::seconds(5));
}

}  // namespace
}  // namespace pgrange::testing
