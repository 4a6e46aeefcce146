// Session state follows a client across pooled backend connections (transaction pooling), or
// pins the client to its backend while the state exists: the same step-by-step script gives the
// same results directly against PostgreSQL and through pgrange while other clients churn.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/pg_server.hpp"
#include "tests/support/process.hpp"
#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {
namespace {

using namespace std::chrono_literals;

/// What running a script on one connection produced.
struct ScriptRun {
  std::string output;            ///< one block per step: the SQL, then its rows or error
  std::vector<int> free_pids;    ///< backend pids seen by "@pid" probes
  std::vector<int> pinned_pids;  ///< backend pids seen by "@pinned_pid" probes
  int hops = 0;                  ///< "@hop" steps run
  int hops_caught = 0;           ///< of those, how many took the client's last backend away
  int probes_after_hop = 0;      ///< "@pid" probes right after a "@hop" that caught
  int moved = 0;                 ///< of those, how many ran on another backend than before
};

/// The rows, or the error, of one result as text lines.
std::string describe(const SqlResult& r) {
  if (!r.ok()) return "ERROR " + r.sqlstate + " " + r.message + "\n";
  if (r.status == PGRES_COMMAND_OK) return "OK\n";
  std::string out;
  for (const auto& row : r.rows) {
    for (size_t i = 0; i < row.size(); ++i) out += (i ? "|" : "") + row[i];
    out += "\n";
  }
  return out.empty() ? "(no rows)\n" : out;
}

/// Moves notifications that have arrived on `conn` into `out` (channel and payload only).
int collect_notifies(PGconn* conn, std::string& out) {
  int n = 0;
  PQconsumeInput(conn);
  while (PGnotify* nt = PQnotifies(conn)) {
    out += "NOTIFY " + std::string(nt->relname) + " " + nt->extra + "\n";
    PQfreemem(nt);
    ++n;
  }
  return n;
}

/// Runs `steps` on a fresh connection `main_dsn`. Steps are SQL sent with PQexec, except:
///   "other: SQL"     runs SQL on a second connection (`other_dsn`, always direct)
///   "params: SQL"    runs SQL with PQexecParams (extended protocol, no parameters)
///   "@notifies N"    waits (up to 10 s) until N notifications in total arrived, then lists them
///   "@pid"           records pg_backend_pid() in free_pids (no output)
///   "@pinned_pid"    records pg_backend_pid() in pinned_pids (no output)
///   "@hop"           (only with a `holder_dsn`, i.e. through pgrange) a second pgrange client
///                    opens transactions until it holds the backend the main connection used
///                    last (at most 1000 tries), and keeps it until the next step has run: the
///                    next step then has to run on another backend, unless the client is pinned
///                    (then the holder cannot get it). No output.
///   "@try_hop"       the same with at most 40 tries, for pinned clients (not counted).
///   "@grab SQL => V" (only through pgrange) the holder opens transactions until SQL returns V
///                    (at most 1000 tries) and keeps that backend until the next step has run.
ScriptRun run_script(const std::string& main_dsn, const std::string& other_dsn,
                     const std::vector<std::string>& steps, const std::string& holder_dsn = "") {
  ScriptRun run;
  PgConnPtr holder(nullptr, &PQfinish);
  bool holding = false;
  std::string hop_pid;  // the backend the holder took at the last "@hop"
  if (!holder_dsn.empty()) holder = pq_connect(holder_dsn);
  auto release_holder = [&] {
    if (holding) pq_exec(holder.get(), "commit");
    holding = false;
    hop_pid.clear();
  };
  auto conn = pq_connect(main_dsn);
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    run.output = "connect failed: " + std::string(PQerrorMessage(conn.get()));
    return run;
  }
  auto other = pq_connect(other_dsn);
  int notifies = 0;
  std::string pending_notifies;
  for (const auto& step : steps) {
    if (step == "@hop" || step == "@try_hop") {
      if (!holder) continue;
      const int tries = step == "@hop" ? 1000 : 40;
      if (step == "@hop") ++run.hops;
      SqlResult mine = pq_exec(conn.get(), "select pg_backend_pid()");
      notifies += collect_notifies(conn.get(), pending_notifies);
      for (int i = 0; i < tries && !holding; ++i) {
        pq_exec(holder.get(), "begin");
        if (pq_exec(holder.get(), "select pg_backend_pid()").at() == mine.at()) {
          holding = true;
        } else {
          pq_exec(holder.get(), "commit");
        }
      }
      if (holding && step == "@hop") {
        ++run.hops_caught;
        hop_pid = mine.at();
      }
      continue;
    }
    if (step.rfind("@grab ", 0) == 0) {
      if (!holder) continue;
      size_t arrow = step.find(" => ");
      std::string sql = step.substr(6, arrow - 6), want = step.substr(arrow + 4);
      for (int i = 0; i < 1000 && !holding; ++i) {
        pq_exec(holder.get(), "begin");
        if (pq_exec(holder.get(), sql).at() == want) {
          holding = true;
        } else {
          pq_exec(holder.get(), "commit");
        }
      }
      continue;
    }
    if (step == "@pid" || step == "@pinned_pid") {
      SqlResult r = pq_exec(conn.get(), "select pg_backend_pid()");
      int pid = r.ok() ? std::stoi(r.at()) : -1;
      (step == "@pid" ? run.free_pids : run.pinned_pids).push_back(pid);
      if (step == "@pid" && !hop_pid.empty()) {
        ++run.probes_after_hop;
        if (std::to_string(pid) != hop_pid) ++run.moved;
      }
      hop_pid.clear();
      notifies += collect_notifies(conn.get(), pending_notifies);
      release_holder();
      continue;
    }
    if (step.rfind("@notifies ", 0) == 0) {
      int want = std::stoi(step.substr(10));
      auto deadline = std::chrono::steady_clock::now() + 10s;
      while (notifies < want && std::chrono::steady_clock::now() < deadline) {
        pollfd p{PQsocket(conn.get()), POLLIN, 0};
        ::poll(&p, 1, 100);
        notifies += collect_notifies(conn.get(), pending_notifies);
      }
      run.output += "> " + step + "\n" + pending_notifies;
      pending_notifies.clear();
      continue;
    }
    run.output += "> " + step + "\n";
    if (step.rfind("other: ", 0) == 0) {
      run.output += describe(pq_exec(other.get(), step.substr(7)));
    } else if (step.rfind("params: ", 0) == 0) {
      std::string sql = step.substr(8);
      run.output += describe(take_result(
          PQexecParams(conn.get(), sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0),
          conn.get()));
    } else {
      run.output += describe(pq_exec(conn.get(), step));
    }
    notifies += collect_notifies(conn.get(), pending_notifies);
    release_holder();
  }
  run.output += "connection: " + std::string(PQstatus(conn.get()) == CONNECTION_OK ? "ok" : "bad");
  return run;
}

/// Clients that run `select 1` in a loop through pgrange, so that backends get handed around.
class Churn {
 public:
  Churn(const std::string& dsn, int clients) {
    for (int i = 0; i < clients; ++i) {
      threads_.emplace_back([this, dsn] {
        auto c = pq_connect(dsn);
        if (PQstatus(c.get()) != CONNECTION_OK) {
          ++errors_;
          return;
        }
        while (!stop_) {
          SqlResult r = pq_exec(c.get(), "select 1");
          if (r.at() != "1") ++errors_;
          ++queries_;
          std::this_thread::sleep_for(1ms);  // leave idle backends in the pool
        }
      });
    }
  }
  ~Churn() { stop(); }
  /// Stops and joins the clients, once each has had time for a query: a short script must
  /// not end before the churn began (the suite asserts that it ran).
  void stop() {
    auto deadline = std::chrono::steady_clock::now() + 10s;
    while (queries_ < static_cast<long>(threads_.size()) && errors_ == 0 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(1ms);
    }
    stop_ = true;
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
  }
  int errors() const { return errors_; }
  long queries() const { return queries_; }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<int> errors_{0};
  std::atomic<long> queries_{0};
  std::vector<std::thread> threads_;
};

/// Backends in the pool of the shared pgrange: more than the clients of a test (main, holder
/// and three churning clients), so nobody waits and idle backends get handed around.
constexpr int kPoolSize = 6;

/// One server and one pgrange (workers=1, pool_size=kPoolSize, transaction pooling) for the
/// suite.
class ProxySessionStateTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    PgServer::Options o;
    o.databases = {"app"};
    server_ = PgServer::start(o).release();
    server_->exec(
        "create schema myschema; create table myschema.marker (v text); "
        "insert into myschema.marker values ('in myschema'); "
        "create role alice; create role bob; grant bob to alice",
        "app");
    ProxyConfig c = ProxyConfig::with_shard(server_->dsn("app"), kPoolSize);
    c.workers = 1;
    proxy_ = ProxyProcess::start(c).release();
  }
  static void TearDownTestSuite() {
    delete proxy_;
    delete server_;
    proxy_ = nullptr;
    server_ = nullptr;
  }

  void SetUp() override {
    // Open all backends at once, so the pool hands them out in turn from now on.
    std::vector<PgConnPtr> warm;
    for (int i = 0; i < kPoolSize; ++i) {
      warm.push_back(pq_connect(proxy_->dsn()));
      ASSERT_EQ(PQstatus(warm.back().get()), CONNECTION_OK) << PQerrorMessage(warm.back().get());
      ASSERT_TRUE(pq_exec(warm.back().get(), "begin").ok());
      ASSERT_EQ(pq_exec(warm.back().get(), "select 1").at(), "1");
    }
    for (auto& w : warm) ASSERT_TRUE(pq_exec(w.get(), "commit").ok());
  }

  /// Runs the script directly and through pgrange (with churning clients) and expects the same
  /// output; returns the proxy run for further checks.
  static ScriptRun compare(const std::vector<std::string>& steps, const std::string& extra = "") {
    ScriptRun direct = run_script(server_->dsn("app") + " " + extra, server_->dsn("app"), steps);
    Churn churn(proxy_->dsn(), 3);
    ScriptRun proxied = run_script(proxy_->dsn("app", "secret", extra), server_->dsn("app"), steps,
                                   proxy_->dsn("md5user", "md5secret"));
    churn.stop();
    EXPECT_EQ(churn.errors(), 0);
    EXPECT_GT(churn.queries(), 0);
    if (::getenv("PGRANGE_SHOW_OUTPUT")) std::cerr << proxied.output << "\n";
    EXPECT_TRUE(direct.output == proxied.output)
        << "outputs differ at " << first_difference(direct.output, proxied.output)
        << "\n--- direct:\n"
        << direct.output << "\n--- proxy:\n"
        << proxied.output << "\n--- log:\n"
        << proxy_->log_tail(3000);
    return proxied;
  }

  /// Expects every "@hop" to have moved the client to another backend (so state really moved).
  static void expect_swapped(const ScriptRun& run) {
    EXPECT_GT(run.hops, 0);
    EXPECT_EQ(run.hops_caught, run.hops) << "the client's backend was not handed to others";
    expect_moved(run);
  }
  /// Expects the client to have moved: every "@pid" probe right after a "@hop" ran on another
  /// backend than the one the holder took (two clients never share a backend at once).
  static void expect_moved(const ScriptRun& run) {
    EXPECT_GT(run.probes_after_hop, 0) << "no hop ever took the client's backend; log:\n"
                                       << proxy_->log_tail(2000);
    EXPECT_EQ(run.moved, run.probes_after_hop)
        << "a probe ran on the backend another client held in a transaction";
  }
  /// Expects all "@pinned_pid" probes to have seen one backend.
  static void expect_pinned(const ScriptRun& run) {
    ASSERT_FALSE(run.pinned_pids.empty());
    std::set<int> pids(run.pinned_pids.begin(), run.pinned_pids.end());
    EXPECT_EQ(pids.size(), 1u) << "the client moved while it had session state";
    EXPECT_EQ(pids.count(-1), 0u);
  }

  static PgServer* server_;
  static ProxyProcess* proxy_;
};

PgServer* ProxySessionStateTest::server_ = nullptr;
ProxyProcess* ProxySessionStateTest::proxy_ = nullptr;

TEST_F(ProxySessionStateTest, SetResetRollbackAndSetLocal) {
  ScriptRun run = compare(
      {
          "show statement_timeout",
          "set statement_timeout = '7s'",
          "@hop",
          "@pid",
          "show statement_timeout",
          "@hop",
          "@pid",
          "begin",
          "set statement_timeout = '9s'",
          "show statement_timeout",
          "rollback",
          "@hop",
          "@pid",
          "show statement_timeout",
          "begin",
          "set local statement_timeout = '3s'",
          "show statement_timeout",
          "commit",
          "@hop",
          "@pid",
          "show statement_timeout",
          "begin",
          "set work_mem = '5MB'",
          "commit",
          "@hop",
          "@pid",
          "show work_mem",
          "set time zone 'Europe/Berlin'",
          "@hop",
          "@pid",
          "select '2024-06-01 12:00:00+00'::timestamptz::text",
          "set datestyle to postgres, ymd",
          "@hop",
          "@pid",
          "select '2024-06-01'::date::text",
          "set search_path = myschema, public",
          "@hop",
          "@pid",
          "select v from marker",
          "set session application_name = 'changed'",
          "@hop",
          "@pid",
          "show application_name",
          "reset statement_timeout",
          "@hop",
          "@pid",
          "show statement_timeout",
          "set statement_timeout = 1234; set lock_timeout = 4321",
          "@hop",
          "@pid",
          "select current_setting('statement_timeout'), current_setting('lock_timeout')",
          "set statement_timeout = 5000; select 1/0",
          "@hop",
          "@pid",
          "show statement_timeout",
          "reset all",
          "@hop",
          "@pid",
          "show statement_timeout",
          "show application_name",
          "show timezone",
          "show work_mem",
          "@hop",
          "@pid",
          "select current_schemas(false)::text",
      },
      "application_name=session_test");
  expect_swapped(run);
}

TEST_F(ProxySessionStateTest, StartupParametersFollowTheClient) {
  ScriptRun run = compare(
      {
          "show timezone",
          "@hop",
          "@pid",
          "show datestyle",
          "@hop",
          "@pid",
          "show search_path",
          "@hop",
          "@pid",
          "show application_name",
          "@hop",
          "@pid",
          "show statement_timeout",
          "@hop",
          "@pid",
          "show work_mem",
          "@hop",
          "@pid",
          "select v from marker",
          "@hop",
          "@pid",
          "select '2024-01-02 03:04:05+00'::timestamptz::text",
          "set timezone = 'UTC'",
          "@hop",
          "@pid",
          "show timezone",
          "reset timezone",
          "@hop",
          "@pid",
          "show timezone",
          "set application_name = 'other'",
          "@hop",
          "@pid",
          "reset all",
          "@hop",
          "@pid",
          "show application_name",
          "show datestyle",
          "@hop",
          "@pid",
          "show work_mem",
      },
      "application_name=startup_app options='-c TimeZone=Asia/Tokyo -c DateStyle=German "
      "-c search_path=myschema,public -c statement_timeout=12345 --work-mem=5MB'");
  expect_swapped(run);
}

TEST_F(ProxySessionStateTest, ResetInsideTransactionRestoresTheStartupValue) {
  // RESET goes back to the value of the client's startup packet, also before the transaction
  // ends (the next statement in the same transaction sees it).
  ScriptRun run = compare(
      {
          "@hop",
          "@pid",
          "show datestyle",
          "begin",
          "reset datestyle",
          "show datestyle",
          "commit",
          "@hop",
          "@pid",
          "set timezone = 'UTC'",
          "reset timezone; select current_setting('timezone')",
          "set application_name = 'x'",
          "reset all; select current_setting('application_name')",
          "@hop",
          "@pid",
          "show datestyle",
      },
      "application_name=startup_app options='-c DateStyle=German -c TimeZone=Asia/Tokyo'");
  expect_swapped(run);
}

TEST_F(ProxySessionStateTest, ResetOfAListParameterKeepsTheStartupText) {
  // search_path is a list whose startup text PostgreSQL keeps as given (mixed case, quotes);
  // after RESET, SHOW prints that text again, and names resolve as before.
  ScriptRun run = compare(
      {
          "show search_path",
          "set search_path = public",
          "@hop",
          "@pid",
          "show search_path",
          "reset search_path",
          "show search_path",
          "select v from marker",
          "set search_path = public",
          "reset all; show search_path",
          "@hop",
          "@pid",
          "show search_path",
          "select v from marker",
      },
      "options='-c search_path=MySchema,\\\"Not\\\\ There\\\",public'");
  expect_swapped(run);
}

TEST_F(ProxySessionStateTest, SetRolledBackToSavepointDoesNotStick) {
  ScriptRun run = compare({
      "set work_mem = '8MB'",
      "begin",
      "savepoint a",
      "set work_mem = '16MB'",
      "rollback to savepoint a",
      "show work_mem",
      "commit",
      "@hop",
      "@pid",
      "show work_mem",
      "@hop",
      "@pid",
      "show work_mem",
      "@hop",
      "@pid",
      "show work_mem",
      "@hop",
      "@pid",
      "show work_mem",
      "@hop",
      "@pid",
      "show work_mem",
  });
  expect_swapped(run);
}

TEST_F(ProxySessionStateTest, SetInAPreparedTransactionSticksWhateverIsDecided) {
  ScriptRun run = compare({
      "begin",
      "set work_mem = '9MB'",
      "prepare transaction 'pgrange_state_test'",
      "show work_mem",
      "rollback prepared 'pgrange_state_test'",
      "@hop",
      "@pid",
      "show work_mem",
      "@hop",
      "@pid",
      "show work_mem",
  });
  expect_swapped(run);
}

TEST_F(ProxySessionStateTest, SetThroughExtendedProtocolFollowsTheClient) {
  // libpq's PQexecParams (and drivers like libpqxx's exec_params, JDBC) send SET as
  // Parse/Bind/Execute: the setting is still the session's.
  // The holder takes the backend that ran the SET (if its setting is still there when another
  // client uses it), so the next statement runs elsewhere.
  ScriptRun run = compare({
      "params: set work_mem = '3MB'",
      "@grab show work_mem => 3MB",
      "show work_mem",
      "@hop",
      "@pid",
      "@grab show work_mem => 3MB",
      "params: show work_mem",
      "@hop",
      "@pid",
      "show work_mem",
  });
  expect_swapped(run);
}

TEST_F(ProxySessionStateTest, SqlPrepareExecuteDeallocate) {
  ScriptRun run = compare({
      "prepare q(int) as select $1 * 2",
      "@hop",
      "@pinned_pid",
      "execute q(21)",
      "@hop",
      "@pinned_pid",
      "begin",
      "execute q(5)",
      "commit",
      "@hop",
      "@pinned_pid",
      "prepare r as select 'r'",
      "@hop",
      "@pinned_pid",
      "execute r",
      "deallocate q",
      "@hop",
      "@pinned_pid",
      "execute q(1)",
      "execute r",
      "deallocate all",
      "execute r",
      "@hop",
      "@pid",
      "@hop",
      "@pid",
      "@hop",
      "@pid",
      "@hop",
      "@pid",
      "select 1",
  });
  expect_pinned(run);
  expect_moved(run);  // unpinned after DEALLOCATE ALL
}

TEST_F(ProxySessionStateTest, TempTable) {
  ScriptRun run = compare({
      "create temp table tt (x int)",
      "@hop",
      "@pinned_pid",
      "insert into tt values (1), (2)",
      "@hop",
      "@pinned_pid",
      "begin",
      "insert into tt values (3)",
      "rollback",
      "@hop",
      "@pinned_pid",
      "select count(*), sum(x) from tt",
      "@hop",
      "@pinned_pid",
      "select count(*) from pg_tables where tablename = 'tt' and schemaname like 'pg_temp%'",
      "discard temp",
      "select count(*) from tt",
      "@hop",
      "@pid",
      "@hop",
      "@pid",
      "@hop",
      "@pid",
      "@hop",
      "@pid",
  });
  expect_pinned(run);
  expect_moved(run);
}

TEST_F(ProxySessionStateTest, TempTableCreatedThroughExtendedProtocol) {
  ScriptRun run = compare({
      "params: create temp table tx (x int)",
      "@hop",
      "@pinned_pid",
      "params: insert into tx values (1)",
      "@hop",
      "@pinned_pid",
      "params: insert into tx values (2)",
      "@hop",
      "@pinned_pid",
      "select count(*) from tx",
      "@hop",
      "@pinned_pid",
      "select count(*) from tx",
  });
  expect_pinned(run);
}

TEST_F(ProxySessionStateTest, CursorWithHoldAcrossTransactions) {
  ScriptRun run = compare({
      "begin",
      "declare c cursor with hold for select g from generate_series(1, 10) g",
      "commit",
      "@hop",
      "@pinned_pid",
      "fetch 3 from c",
      "@hop",
      "@pinned_pid",
      "begin",
      "fetch 2 from c",
      "commit",
      "@hop",
      "@pinned_pid",
      "move 2 in c",
      "fetch next from c",
      "@hop",
      "@pinned_pid",
      "declare d cursor with hold for select 'd'",
      "fetch all from d",
      "close d",
      "fetch all from c",
      "close c",
      "fetch 1 from c",
      "@hop",
      "@pid",
      "@hop",
      "@pid",
      "@hop",
      "@pid",
      "@hop",
      "@pid",
  });
  expect_pinned(run);
  expect_moved(run);
}

TEST_F(ProxySessionStateTest, ListenNotify) {
  ScriptRun run = compare({
      "listen chan",
      "@hop",
      "@pinned_pid",
      "notify chan, 'to myself'",
      "@notifies 1",
      "@hop",
      "@pinned_pid",
      "other: notify chan, 'from another session'",
      "@hop",
      "@pinned_pid",
      "@notifies 2",
      "other: select pg_notify('chan', 'second')",
      "select 1",
      "@notifies 3",
      "@hop",
      "@pinned_pid",
      "begin",
      "notify chan, 'rolled back'",
      "rollback",
      "@hop",
      "@pinned_pid",
      "unlisten *",
      "other: notify chan, 'nobody listens'",
      "select 1",
      "@hop",
      "@pid",
      "@hop",
      "@pid",
      "@hop",
      "@pid",
      "@hop",
      "@pid",
  });
  expect_pinned(run);
  expect_moved(run);
}

TEST_F(ProxySessionStateTest, AdvisoryLockHeldAcrossTransactions) {
  const std::string held =
      "other: select count(*) from pg_locks where locktype = 'advisory' and objid = 4242 and "
      "granted";
  ScriptRun run = compare({
      "select pg_advisory_lock(4242)::text",
      "@hop",
      "@pinned_pid",
      held,
      "@hop",
      "@pinned_pid",
      "begin",
      "select 1",
      "commit",
      "@hop",
      "@pinned_pid",
      held,
      "other: select pg_try_advisory_lock(4242)",
      "@hop",
      "@pinned_pid",
      "select pg_advisory_lock(4242)::text",
      "select pg_advisory_unlock(4242)",
      held,
      "select pg_advisory_unlock_all()::text",
      held,
      "other: select pg_try_advisory_lock(4242)",
      "other: select pg_advisory_unlock_all()::text",
      "@hop",
      "@pid",
      "@hop",
      "@pid",
      "@hop",
      "@pid",
      "@hop",
      "@pid",
  });
  expect_pinned(run);
  expect_moved(run);
}

TEST_F(ProxySessionStateTest, SetInsideOneQueryStringTransaction) {
  // A whole transaction in one simple Query message: the SET sticks only if it committed.
  ScriptRun run = compare({
      "begin; set work_mem = '11MB'; rollback",
      "@hop",
      "@pid",
      "show work_mem",
      "begin; set work_mem = '12MB'; commit",
      "@hop",
      "@pid",
      "show work_mem",
      "begin; set work_mem = '13MB'; commit; select 1/0",
      "@hop",
      "@pid",
      "show work_mem",
      "set work_mem = '14MB'; select 1/0",
      "@hop",
      "@pid",
      "show work_mem",
  });
  expect_swapped(run);
}

TEST_F(ProxySessionStateTest, SessionCharacteristicsFollowTheClient) {
  // Each mode of SET SESSION CHARACTERISTICS is a setting of its own
  // (default_transaction_isolation, _read_only, _deferrable): all of them follow.
  ScriptRun run = compare({
      "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE",
      "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY, DEFERRABLE",
      "@hop",
      "@pid",
      "SHOW default_transaction_isolation",
      "SHOW default_transaction_read_only",
      "SHOW default_transaction_deferrable",
      "BEGIN",
      "SHOW transaction_isolation",
      "SHOW transaction_read_only",
      "COMMIT",
      "CREATE TEMP TABLE read_only (x int)",
      "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
      "@hop",
      "@pid",
      "SHOW default_transaction_read_only",
      "SHOW default_transaction_isolation",
      "RESET default_transaction_isolation",
      "SET default_transaction_deferrable TO DEFAULT",
      "@hop",
      "@pid",
      "SHOW default_transaction_isolation",
      "SHOW default_transaction_deferrable",
      "SET transaction_isolation = 'serializable'",
      "SET default_transaction_isolation = 'repeatable read'",
      "@hop",
      "@pid",
      "SHOW transaction_isolation",
      "SHOW default_transaction_isolation",
      "params: SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY",
      "@hop",
      "@pid",
      "SHOW default_transaction_read_only",
      "RESET ALL",
      "@hop",
      "@pid",
      "SHOW default_transaction_read_only",
      "SHOW default_transaction_isolation",
  });
  expect_swapped(run);
}

TEST_F(ProxySessionStateTest, SessionAuthorizationAndRoleFollowTheClient) {
  ScriptRun run = compare({
      "SELECT current_user, session_user",
      "SET SESSION AUTHORIZATION alice",
      "@hop",
      "@pid",
      "SELECT current_user, session_user",
      "SET ROLE bob",
      "@hop",
      "@pid",
      "SELECT current_user, session_user",
      "SHOW role",
      // SET SESSION AUTHORIZATION ends the role.
      "SET SESSION AUTHORIZATION alice",
      "@hop",
      "@pid",
      "SELECT current_user",
      "SHOW role",
      // RESET ALL keeps both.
      "SET ROLE bob",
      "RESET ALL",
      "@hop",
      "@pid",
      "SELECT current_user, session_user",
      "RESET ROLE",
      "@hop",
      "@pid",
      "SELECT current_user",
      "RESET SESSION AUTHORIZATION",
      "@hop",
      "@pid",
      "SELECT current_user, session_user",
      "SET ROLE bob",
      "SET SESSION AUTHORIZATION DEFAULT",
      "@hop",
      "@pid",
      "SELECT current_user, session_user",
      "SHOW role",
      "BEGIN",
      "SET SESSION AUTHORIZATION alice",
      "ROLLBACK",
      "@hop",
      "@pid",
      "SELECT current_user, session_user",
      "SET ROLE bob",
      "SET ROLE NONE",
      "@hop",
      "@pid",
      "SELECT current_user",
  });
  expect_swapped(run);
}

TEST_F(ProxySessionStateTest, DiscardAllAfterStartupParameters) {
  // DISCARD ALL is a query of its own (PostgreSQL refuses it inside a transaction block, and
  // a query of several statements is one): it resets what PostgreSQL's resets, the session
  // authorization and role included, back to the client's startup values, through both
  // protocols.
  ScriptRun run = compare(
      {
          "SET work_mem = '9MB'",
          "SET search_path = public",
          "SET SESSION AUTHORIZATION alice",
          "SET ROLE bob",
          "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY",
          "DISCARD ALL",
          "SELECT current_user, session_user",
          "SHOW work_mem",
          "SHOW search_path",
          "SHOW application_name",
          "SHOW default_transaction_read_only",
          "select v from marker",
          "@hop",
          "@pid",
          "SELECT current_user, session_user",
          "SHOW work_mem",
          "SHOW search_path",
          "SHOW application_name",
          "SET work_mem = '9MB'",
          "BEGIN",
          "DISCARD ALL",
          "ROLLBACK",
          "SHOW work_mem",
          "DISCARD ALL; SELECT 1",
          "SHOW work_mem",
          "SET SESSION AUTHORIZATION alice",
          "params: DISCARD ALL",
          "SELECT current_user, session_user",
          "SHOW work_mem",
          "SHOW search_path",
          "@hop",
          "@pid",
          "SHOW work_mem",
          "SHOW search_path",
          "SHOW application_name",
          "SET work_mem = '9MB'",
          "params: RESET work_mem",
          "SHOW work_mem",
          "SET search_path = public",
          "params: RESET ALL",
          "SHOW search_path",
          "@hop",
          "@pid",
          "SHOW work_mem",
          "SHOW search_path",
          "select v from marker",
      },
      "application_name=discard_test options='-c search_path=myschema,public -c work_mem=5MB'");
  expect_swapped(run);
}

/// Runs psql with `commands` (one -c each: separate queries) against `dsn` with PGOPTIONS and
/// PGAPPNAME set; its output.
std::string psql_with_startup_settings(const std::string& dsn,
                                       const std::vector<std::string>& commands) {
  ProcessOptions po;
  po.argv = {pg_bin("psql"), "-X", "-A", "-d", dsn};
  for (const auto& c : commands) {
    po.argv.push_back("-c");
    po.argv.push_back(c);
  }
  po.env = {{"PGOPTIONS", "-c search_path=myschema,public -c work_mem=5MB"},
            {"PGAPPNAME", "psql_discard"}};
  int rc = -1;
  return run_process(po, "", &rc, std::chrono::seconds(60));
}

TEST_F(ProxySessionStateTest, PsqlDiscardAllWithStartupParameters) {
  const std::vector<std::string> commands = {
      "SET work_mem = '9MB'",  "SET SESSION AUTHORIZATION alice",
      "DISCARD ALL",           "SELECT current_user, session_user",
      "SHOW search_path",      "SHOW work_mem",
      "SHOW application_name", "SELECT v FROM marker",
      "BEGIN; DISCARD ALL",    "RESET ALL",
      "SHOW search_path"};
  std::string direct = psql_with_startup_settings(server_->dsn("app"), commands);
  std::string via = psql_with_startup_settings(proxy_->dsn(), commands);
  EXPECT_EQ(via, direct) << first_difference(direct, via);
  EXPECT_NE(direct.find("DISCARD ALL"), std::string::npos) << direct;
}

TEST(ProxyStateLeakTest, DisconnectedClientLeavesNoStateBehind) {
  // workers=1, pool_size=1: b gets the very backend a used. Nothing a set may show through,
  // neither in results nor in the ParameterStatus values b is given at login.
  PgServer::Options o;
  o.databases = {"app"};
  auto server = PgServer::start(o);
  ProxyConfig c = ProxyConfig::with_shard(server->dsn("app"), 1);
  c.workers = 1;
  auto proxy = ProxyProcess::start(c);
  auto reference = pq_connect(server->dsn("app"));
  ASSERT_EQ(PQstatus(reference.get()), CONNECTION_OK);
  std::string pid_a;
  {
    auto a = pq_connect(proxy->dsn());
    ASSERT_EQ(PQstatus(a.get()), CONNECTION_OK) << PQerrorMessage(a.get());
    for (const char* sql : {"set work_mem = '13MB'", "set timezone = 'Asia/Tokyo'",
                            "set datestyle = 'German'", "set application_name = 'leaky'",
                            "set search_path = pg_catalog", "set standard_conforming_strings = off",
                            "set intervalstyle = 'sql_standard'", "set myapp.user_id = '42'"}) {
      SqlResult r = pq_exec(a.get(), sql);
      ASSERT_TRUE(r.ok()) << sql << ": " << r.message;
    }
    EXPECT_STREQ(PQparameterStatus(a.get(), "TimeZone"), "Asia/Tokyo");
    pid_a = pq_exec(a.get(), "select pg_backend_pid()").at();
  }
  auto b = pq_connect(proxy->dsn());
  ASSERT_EQ(PQstatus(b.get()), CONNECTION_OK) << PQerrorMessage(b.get());
  for (const char* param :
       {"TimeZone", "DateStyle", "standard_conforming_strings", "IntervalStyle"}) {
    const char* want = PQparameterStatus(reference.get(), param);
    const char* got = PQparameterStatus(b.get(), param);
    EXPECT_STREQ(got ? got : "<none>", want ? want : "<none>") << param;
  }
  const std::string settings =
      "select current_setting('work_mem') || ' ' || current_setting('timezone') || ' ' || "
      "current_setting('datestyle') || ' ' || current_setting('search_path') || ' ' || "
      "current_setting('standard_conforming_strings') || ' ' || current_setting('intervalstyle')";
  std::string want = pq_exec(reference.get(), settings).at();
  EXPECT_EQ(pq_exec(b.get(), settings).at(), want);
  EXPECT_EQ(pq_exec(b.get(), "select pg_backend_pid()").at(), pid_a);  // the same backend
  EXPECT_NE(pq_exec(b.get(), "show application_name").at(), "leaky");
  // A custom setting (the usual way to pass a user id to row level security) must not leak.
  SqlResult custom = pq_exec(b.get(), "select current_setting('myapp.user_id', true)");
  EXPECT_TRUE(custom.ok()) << custom.message;
  EXPECT_NE(custom.at(), "42");
  EXPECT_STRNE(PQparameterStatus(b.get(), "application_name"), "leaky");
}

/// Starts a server (with roles alice and bob, alice a member of bob) and a pgrange in front of
/// it with one worker.
std::pair<std::unique_ptr<PgServer>, std::unique_ptr<ProxyProcess>> server_and_proxy(
    int pool_size, const std::string& pool_mode = "transaction") {
  PgServer::Options o;
  o.databases = {"app"};
  auto server = PgServer::start(o);
  server->exec("create role alice; create role bob; grant bob to alice", "app");
  ProxyConfig c = ProxyConfig::with_shard(server->dsn("app"), pool_size);
  c.workers = 1;
  c.pool_mode = pool_mode;
  return {std::move(server), ProxyProcess::start(c)};
}

class ProxySessionResetTest : public ::testing::TestWithParam<int> {};

TEST_P(ProxySessionResetTest, SessionCharacteristicsAndIdentityLeakToNoOne) {
  // One worker: the next client gets the connection the last one used (the most recent idle
  // one). Its login must work and nothing of the other client's session may show, while the
  // other client keeps its own settings.
  auto [server, proxy] = server_and_proxy(GetParam());
  auto reference = pq_connect(server->dsn("app"));
  const std::string probe =
      "SELECT current_user, session_user, current_setting('role'), "
      "current_setting('default_transaction_isolation'), "
      "current_setting('default_transaction_read_only'), "
      "current_setting('default_transaction_deferrable')";
  const std::string want = describe(pq_exec(reference.get(), probe));
  for (const std::string leaky :
       {"SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY",
        "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE",
        "SET SESSION CHARACTERISTICS AS TRANSACTION DEFERRABLE",
        "SET default_transaction_read_only = on", "SET SESSION AUTHORIZATION alice", "SET ROLE bob",
        "SET SESSION AUTHORIZATION alice; SET ROLE bob"}) {
    SCOPED_TRACE(leaky);
    auto a = pq_connect(proxy->dsn());
    ASSERT_EQ(PQstatus(a.get()), CONNECTION_OK) << PQerrorMessage(a.get());
    ASSERT_TRUE(pq_exec(a.get(), leaky).ok());
    std::string mine = describe(pq_exec(a.get(), probe));
    std::string pid_a = pq_exec(a.get(), "SELECT pg_backend_pid()").at();
    for (int round = 0; round < 2; ++round) {
      auto b = pq_connect(proxy->dsn());
      ASSERT_EQ(PQstatus(b.get()), CONNECTION_OK) << PQerrorMessage(b.get());
      EXPECT_EQ(describe(pq_exec(b.get(), probe)), want);
      if (GetParam() == 1) {
        EXPECT_EQ(pq_exec(b.get(), "SELECT pg_backend_pid()").at(), pid_a);
      }
      SqlResult write = pq_exec(b.get(), "CREATE TABLE written_by_b (x int)");
      EXPECT_TRUE(write.ok()) << write.sqlstate << " " << write.message;
      EXPECT_TRUE(pq_exec(b.get(), "DROP TABLE written_by_b").ok());
      // a keeps what it set, on whichever connection it gets.
      EXPECT_EQ(describe(pq_exec(a.get(), probe)), mine);
      if (round == 1) a.reset();  // and when a is gone, nothing of it stays behind either
    }
    auto c = pq_connect(proxy->dsn());
    EXPECT_EQ(describe(pq_exec(c.get(), probe)), want);
  }
}

TEST_P(ProxySessionResetTest, AConnectionWhoseSyncFailsIsClosed) {
  // a's role is dropped while a is idle: a connection cannot be given a's settings any more.
  // The connection that failed is closed, not handed to anyone; other clients go on.
  auto [server, proxy] = server_and_proxy(GetParam());
  server->exec("create role gone", "app");
  auto a = pq_connect(proxy->dsn());
  ASSERT_TRUE(pq_exec(a.get(), "SET ROLE gone").ok());
  std::string pid_a = pq_exec(a.get(), "SELECT pg_backend_pid()").at();
  server->exec("drop role gone", "app");
  auto b = pq_connect(proxy->dsn());
  ASSERT_EQ(PQstatus(b.get()), CONNECTION_OK) << PQerrorMessage(b.get());
  EXPECT_EQ(pq_exec(b.get(), "SELECT current_user").at(), "postgres");
  std::string pid_b = pq_exec(b.get(), "SELECT pg_backend_pid()").at();
  if (GetParam() == 1) {
    EXPECT_EQ(pid_b, pid_a);
  }
  SqlResult r = pq_exec(a.get(), "SELECT 1");
  EXPECT_EQ(r.sqlstate, "22023") << r.message;  // as SET ROLE of a role that does not exist
  EXPECT_NE(r.message.find("role \"gone\" does not exist"), std::string::npos) << r.message;
  EXPECT_EQ(PQstatus(a.get()), CONNECTION_OK);
  // The connection the sync failed on is gone from the server.
  EXPECT_EQ(server->exec("select count(*) from pg_stat_activity where pid = " + pid_b), "0");
  EXPECT_EQ(pq_exec(b.get(), "SELECT current_user").at(), "postgres");
  EXPECT_NE(pq_exec(b.get(), "SELECT pg_backend_pid()").at(), pid_b);
}

TEST_P(ProxySessionResetTest, DiscardAllWithStartupParameters) {
  // DISCARD ALL returns to the startup parameters (pgrange set them on a connection that did
  // not start with them) and ends SET SESSION AUTHORIZATION, in session pooling too.
  for (const char* mode : {"transaction", "session"}) {
    SCOPED_TRACE(mode);
    auto [server, proxy] = server_and_proxy(GetParam(), mode);
    server->exec(
        "create schema myschema; create table myschema.marker (v text); "
        "insert into myschema.marker values ('in myschema')",
        "app");
    const std::vector<std::string> commands = {
        "SET search_path = public",
        "SET SESSION AUTHORIZATION alice",
        "DISCARD ALL",
        "SELECT current_user, session_user, current_setting('search_path'), "
        "current_setting('work_mem'), current_setting('application_name')",
        "SELECT v FROM marker",
        "SET work_mem = '1MB'",
        "RESET work_mem",
        "SHOW work_mem"};
    std::string direct = psql_with_startup_settings(server->dsn("app"), commands);
    std::string via = psql_with_startup_settings(proxy->dsn(), commands);
    EXPECT_EQ(via, direct) << first_difference(direct, via);
  }
}

INSTANTIATE_TEST_SUITE_P(PoolSize, ProxySessionResetTest, ::testing::Values(1, 3));

TEST_F(ProxySessionStateTest, CustomSettingsFollowTheClient) {
  ScriptRun run = compare({
      "set myapp.user_id = '42'",
      "@hop",
      "@pid",
      "select current_setting('myapp.user_id')",
      "begin",
      "set local myapp.user_id = '7'",
      "select current_setting('myapp.user_id')",
      "commit",
      "@hop",
      "@pid",
      "select current_setting('myapp.user_id')",
      "reset myapp.user_id",
      "@hop",
      "@pid",
      "select current_setting('myapp.user_id', true) is distinct from '42'",
  });
  expect_swapped(run);
}

TEST_F(ProxySessionStateTest, InvalidStartupOptionFailsTheLogin) {
  const std::string extra = "options='-c work_mem=banana'";
  auto direct = pq_connect(server_->dsn("app") + " " + extra);
  auto proxied = pq_connect(proxy_->dsn("app", "secret", extra));
  EXPECT_EQ(PQstatus(direct.get()), CONNECTION_BAD);
  EXPECT_EQ(PQstatus(proxied.get()), CONNECTION_BAD);
  std::string want = PQerrorMessage(direct.get()), got = PQerrorMessage(proxied.get());
  EXPECT_NE(want.find("invalid value for parameter \"work_mem\": \"banana\""), std::string::npos)
      << want;
  EXPECT_NE(got.find("invalid value for parameter \"work_mem\": \"banana\""), std::string::npos)
      << got;
  // pgrange keeps serving.
  auto ok = pq_connect(proxy_->dsn());
  EXPECT_EQ(pq_exec(ok.get(), "select 1").at(), "1");
}

TEST(ProxyStateLeakTest, ApplicationNameDefaultsToEmptyLikePostgres) {
  // A client that sets no application_name sees "" in PostgreSQL, not the proxy's own name for
  // its backend connections.
  PgServer::Options o;
  o.databases = {"app"};
  auto server = PgServer::start(o);
  auto proxy = ProxyProcess::start(ProxyConfig::with_shard(server->dsn("app"), 2));
  auto direct = pq_connect(server->dsn("app"));
  auto b = pq_connect(proxy->dsn());
  ASSERT_EQ(PQstatus(b.get()), CONNECTION_OK) << PQerrorMessage(b.get());
  EXPECT_STREQ(PQparameterStatus(direct.get(), "application_name"), "");
  EXPECT_STREQ(PQparameterStatus(b.get(), "application_name"), "");
  EXPECT_EQ(pq_exec(b.get(), "show application_name").at(), "");
}

TEST_F(ProxySessionStateTest, SetConfigFunctionPinsOrFollows) {
  compare({
      "select set_config('work_mem', '6MB', false)",
      "@hop",
      "@pid",
      "show work_mem",
      "@hop",
      "@pid",
      "show work_mem",
      "select set_config('work_mem', '7MB', true)",
      "show work_mem",
      "@hop",
      "@pid",
      "show work_mem",
  });
}

/// workers=1, pool_size=2: two clients share two backends.
TEST(ProxyBackendSwapTest, TransactionPoolingSwapsBackendsUnlessPinned) {
  PgServer::Options o;
  o.databases = {"app"};
  auto server = PgServer::start(o);
  ProxyConfig c = ProxyConfig::with_shard(server->dsn("app"), 2);
  c.workers = 1;
  auto proxy = ProxyProcess::start(c);
  auto a = pq_connect(proxy->dsn());
  auto b = pq_connect(proxy->dsn());
  ASSERT_EQ(PQstatus(a.get()), CONNECTION_OK) << PQerrorMessage(a.get());
  ASSERT_EQ(PQstatus(b.get()), CONNECTION_OK) << PQerrorMessage(b.get());
  // Both backends open: a holds one while b takes the other.
  ASSERT_TRUE(pq_exec(a.get(), "begin").ok());
  ASSERT_EQ(pq_exec(a.get(), "select 1").at(), "1");
  ASSERT_EQ(pq_exec(b.get(), "select 1").at(), "1");
  ASSERT_TRUE(pq_exec(a.get(), "commit").ok());

  // Each round b holds a transaction open while a runs one, then a runs two more after b's
  // commit: a pool that hands out idle connections first-in-first-out or last-in-first-out
  // gives a both backends within a round, unless a is pinned.
  auto alternate = [&](int rounds) {
    std::set<std::string> pids_a, pids_b;
    for (int i = 0; i < rounds; ++i) {
      EXPECT_TRUE(pq_exec(b.get(), "begin").ok());
      SqlResult rb = pq_exec(b.get(), "select pg_backend_pid()");
      SqlResult ra1 = pq_exec(a.get(), "select pg_backend_pid()");
      EXPECT_TRUE(pq_exec(b.get(), "commit").ok());
      SqlResult ra2 = pq_exec(a.get(), "select pg_backend_pid()");
      SqlResult ra3 = pq_exec(a.get(), "select pg_backend_pid()");
      EXPECT_TRUE(ra1.ok() && ra2.ok() && ra3.ok() && rb.ok())
          << ra1.message << ra2.message << ra3.message << rb.message;
      pids_a.insert(ra3.at());
      EXPECT_NE(ra1.at(), rb.at());  // concurrent transactions never share a backend
      pids_a.insert(ra1.at());
      pids_a.insert(ra2.at());
      pids_b.insert(rb.at());
    }
    return std::make_pair(pids_a, pids_b);
  };
  auto [free_a, free_b] = alternate(7);  // 21 transactions of a
  EXPECT_GT(free_a.size(), 1u);
  std::set<std::string> all = free_a;
  all.insert(free_b.begin(), free_b.end());
  EXPECT_EQ(all.size(), 2u);  // only two backend connections exist

  // A session advisory lock pins a to one backend; b keeps working on the other.
  ASSERT_EQ(pq_exec(a.get(), "select pg_advisory_lock(1)::text").at(), "");
  auto [pinned_a, rest_b] = alternate(10);
  EXPECT_EQ(pinned_a.size(), 1u);
  EXPECT_EQ(rest_b.size(), 1u);
  EXPECT_NE(*pinned_a.begin(), *rest_b.begin());

  // Without the lock a moves again.
  ASSERT_EQ(pq_exec(a.get(), "select pg_advisory_unlock_all()::text").at(), "");
  auto again_a = alternate(10).first;
  EXPECT_GT(again_a.size(), 1u);
}

}  // namespace
}  // namespace pgrange::testing
