// Logins under pressure: a flood of wrong passwords is slowed by auth_failure_delay while other
// clients log in; a login that stops half-way is closed after authentication_timeout;
// max_client_conn and a user's max_connections turn away connections past them with 53300,
// and leave room again when connections end. One PostgreSQL 15 shard, real libpq clients.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/pg_server.hpp"
#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr int kDelayMs = 3000;

class LoginLimitsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    PgServer::Options o;
    o.databases = {"app"};
    server_ = PgServer::start(o).release();
    ProxyConfig cfg = ProxyConfig::with_shard(server_->dsn("app"));
    cfg.users.push_back(ProxyConfig::User{"limited", "lpw", "scram-sha-256", false, 2});
    std::string toml =
        "max_client_conn = 6\nauthentication_timeout_ms = 5000\n"
        "auth_failure_delay_ms = " +
        std::to_string(kDelayMs) + "\n" + cfg.to_toml();
    proxy_ = ProxyProcess::start_toml(toml).release();
  }
  static void TearDownTestSuite() {
    delete proxy_;
    proxy_ = nullptr;
    delete server_;
    server_ = nullptr;
  }
  static PgServer* server_;
  static ProxyProcess* proxy_;
};

PgServer* LoginLimitsTest::server_ = nullptr;
ProxyProcess* LoginLimitsTest::proxy_ = nullptr;

TEST_F(LoginLimitsTest, WrongPasswordsAreAnsweredAfterTheDelayWhileOthersLogIn) {
  constexpr int kGuesses = 4;
  std::atomic<int> answered{0};
  std::vector<std::thread> guesses;
  std::vector<std::string> errors(kGuesses);
  std::vector<long long> took(kGuesses);
  for (int i = 0; i < kGuesses; ++i) {
    guesses.emplace_back([&, i] {
      auto start = steady_clock::now();
      PgConnPtr c = pq_connect(proxy_->dsn("app", "guess" + std::to_string(i)));
      took[i] = std::chrono::duration_cast<milliseconds>(steady_clock::now() - start).count();
      errors[i] = PQerrorMessage(c.get());
      answered.fetch_add(1);
    });
  }
  // A right password meanwhile: logged in and answered while the guesses still wait.
  std::this_thread::sleep_for(milliseconds(200));
  PgConnPtr good = pq_connect(proxy_->dsn("app", "secret"));
  ASSERT_EQ(PQstatus(good.get()), CONNECTION_OK) << PQerrorMessage(good.get());
  EXPECT_EQ(pq_exec(good.get(), "SELECT 41 + 1").at(), "42");
  EXPECT_EQ(answered.load(), 0) << "a wrong password was answered before the delay";
  for (auto& t : guesses) t.join();
  for (int i = 0; i < kGuesses; ++i) {
    EXPECT_NE(errors[i].find("password authentication failed for user \"app\""), std::string::npos)
        << errors[i];
    // Never faster than configured (a lower bound only: a busy machine is slower, not faster).
    EXPECT_GE(took[i], kDelayMs) << i;
  }
}

TEST_F(LoginLimitsTest, AHalfOpenLoginIsClosedAfterTheTimeout) {
  RawClient silent(proxy_->port());  // connects and says nothing
  RawClient halfway(proxy_->port());
  ASSERT_TRUE(halfway.send_startup({{"user", "app"}, {"database", "app"}}));
  RawMessage asked = halfway.read();
  ASSERT_EQ(asked.type, 'R');  // the SASL request, never answered
  EXPECT_TRUE(silent.wait_closed(std::chrono::seconds(30)));
  EXPECT_TRUE(halfway.wait_closed(std::chrono::seconds(30)));
  // A login that ends in time is not touched by the timer later. (The timer runs through a
  // failed login's delay too, as PostgreSQL's authentication_timeout runs through auth_delay.)
  PgConnPtr c = pq_connect(proxy_->dsn("app", "secret"));
  ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
  std::this_thread::sleep_for(milliseconds(5500));
  EXPECT_EQ(pq_exec(c.get(), "SELECT 1").at(), "1");
}

TEST_F(LoginLimitsTest, ConnectionsPastTheLimitsGet53300AndRoomComesBack) {
  // A user's own limit: max_connections = 2.
  PgConnPtr l1 = pq_connect(proxy_->dsn("limited", "lpw"));
  PgConnPtr l2 = pq_connect(proxy_->dsn("limited", "lpw"));
  ASSERT_EQ(PQstatus(l1.get()), CONNECTION_OK) << PQerrorMessage(l1.get());
  ASSERT_EQ(PQstatus(l2.get()), CONNECTION_OK) << PQerrorMessage(l2.get());
  PgConnPtr l3 = pq_connect(proxy_->dsn("limited", "lpw"));
  EXPECT_NE(PQstatus(l3.get()), CONNECTION_OK);
  EXPECT_NE(std::string(PQerrorMessage(l3.get())).find("too many connections for role \"limited\""),
            std::string::npos)
      << PQerrorMessage(l3.get());
  l2.reset();
  std::this_thread::sleep_for(milliseconds(300));  // the session ends after the socket closes
  PgConnPtr l4 = pq_connect(proxy_->dsn("limited", "lpw"));
  EXPECT_EQ(PQstatus(l4.get()), CONNECTION_OK) << PQerrorMessage(l4.get());

  // The whole proxy's: max_client_conn = 6 (l1 and l4 hold two).
  std::vector<PgConnPtr> held;
  for (int i = 0; i < 4; ++i) {
    held.push_back(pq_connect(proxy_->dsn("app", "secret")));
    ASSERT_EQ(PQstatus(held.back().get()), CONNECTION_OK) << PQerrorMessage(held.back().get());
  }
  PgConnPtr over = pq_connect(proxy_->dsn("app", "secret"));
  EXPECT_NE(PQstatus(over.get()), CONNECTION_OK);
  EXPECT_NE(std::string(PQerrorMessage(over.get())).find("too many clients"), std::string::npos)
      << PQerrorMessage(over.get());
  held.clear();
  std::this_thread::sleep_for(milliseconds(300));
  PgConnPtr again = pq_connect(proxy_->dsn("app", "secret"));
  ASSERT_EQ(PQstatus(again.get()), CONNECTION_OK) << PQerrorMessage(again.get());
  EXPECT_EQ(pq_exec(again.get(), "SELECT 2").at(), "2");
}

}  // namespace
}  // namespace pgrange::testing
