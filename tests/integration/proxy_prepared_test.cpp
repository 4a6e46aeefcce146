// Protocol-level prepared statements through pgrange in transaction pooling: libpq
// PQprepare/PQexecPrepared (text and binary), PQdescribePrepared, Close, pipelines, many clients
// with the same statement names, and a libpqxx client.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <poll.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <pqxx/pqxx>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/pg_server.hpp"
#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {
namespace {

using Clock = std::chrono::steady_clock;

/// One server and one pgrange (workers=1, pool_size=3) for the suite; table `items`.
class ProxyPreparedTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    PgServer::Options o;
    o.databases = {"app"};
    server_ = PgServer::start(o).release();
    server_->exec(
        "create table items (id int primary key, name text not null, price numeric(12,2), "
        "data bytea)",
        "app");
    ProxyConfig c = ProxyConfig::with_shard(server_->dsn("app"), 3);
    c.workers = 1;
    proxy_ = ProxyProcess::start(c).release();
  }
  static void TearDownTestSuite() {
    delete proxy_;
    delete server_;
    proxy_ = nullptr;
    server_ = nullptr;
  }

  /// A connection through pgrange (fails the test if it cannot connect).
  static PgConnPtr connect_proxy() {
    auto c = pq_connect(proxy_->dsn());
    EXPECT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
    return c;
  }

  static PgServer* server_;
  static ProxyProcess* proxy_;
};

PgServer* ProxyPreparedTest::server_ = nullptr;
ProxyProcess* ProxyPreparedTest::proxy_ = nullptr;

/// PQprepare; the result copied.
SqlResult prepare(PGconn* c, const std::string& name, const std::string& sql, int n = 0,
                  const Oid* types = nullptr) {
  return take_result(PQprepare(c, name.c_str(), sql.c_str(), n, types), c);
}

/// PQexecPrepared with text parameters (nullptr entries are NULLs) and text results.
SqlResult exec_prepared(PGconn* c, const std::string& name,
                        const std::vector<const char*>& params) {
  return take_result(PQexecPrepared(c, name.c_str(), static_cast<int>(params.size()), params.data(),
                                    nullptr, nullptr, 0),
                     c);
}

TEST_F(ProxyPreparedTest, TextParametersInsertAndSelect) {
  auto c = connect_proxy();
  const Oid types[] = {23, 25, 1700, 17};
  SqlResult p =
      prepare(c.get(), "ins", "insert into items (id, name, price, data) values ($1, $2, $3, $4)",
              4, types);
  ASSERT_TRUE(p.ok()) << p.message;
  for (int i = 1; i <= 60; ++i) {
    std::string id = std::to_string(i), name = "item " + id, price = std::to_string(i) + ".25";
    std::string data = "\\x" + std::string(i % 2 ? "00ff" : "dead") + "0a";
    SqlResult r = exec_prepared(
        c.get(), "ins",
        {id.c_str(), name.c_str(), i % 10 == 0 ? nullptr : price.c_str(), data.c_str()});
    ASSERT_TRUE(r.ok()) << i << ": " << r.message;
  }
  // A duplicate key fails the execution, not the statement.
  SqlResult dup = exec_prepared(c.get(), "ins", {"1", "again", "1", "\\x00"});
  EXPECT_EQ(dup.sqlstate, "23505");

  ASSERT_TRUE(
      prepare(c.get(), "get", "select id, name, price, data from items where id = $1").ok());
  for (int i = 1; i <= 60; ++i) {
    std::string id = std::to_string(i);
    SqlResult r = exec_prepared(c.get(), "get", {id.c_str()});
    ASSERT_TRUE(r.ok()) << r.message;
    ASSERT_EQ(r.rows.size(), 1u);
    EXPECT_EQ(r.at(0, 0), id);
    EXPECT_EQ(r.at(0, 1), "item " + id);
    EXPECT_EQ(r.at(0, 2), i % 10 == 0 ? "<null>" : id + ".25");
    EXPECT_EQ(r.at(0, 3), "\\x" + std::string(i % 2 ? "00ff" : "dead") + "0a");
  }
  SqlResult none = exec_prepared(c.get(), "get", {"1000"});
  EXPECT_TRUE(none.ok());
  EXPECT_TRUE(none.rows.empty());
  SqlResult bad = exec_prepared(c.get(), "get", {"not a number"});
  EXPECT_EQ(bad.sqlstate, "22P02");
  // Still usable after the errors.
  EXPECT_EQ(exec_prepared(c.get(), "get", {"7"}).at(0, 1), "item 7");
  EXPECT_EQ(pq_exec(c.get(), "delete from items where id > 50").status, PGRES_COMMAND_OK);
}

TEST_F(ProxyPreparedTest, BinaryParametersAndResults) {
  auto c = connect_proxy();
  ASSERT_TRUE(pq_exec(c.get(),
                      "insert into items values (900, 'binary', 9.5, '\\x0102') "
                      "on conflict (id) do nothing")
                  .ok());
  const Oid types[] = {23, 17};
  ASSERT_TRUE(prepare(c.get(), "bin",
                      "select id, id::int8 * 1000, data || $2, length(name) from items where id "
                      "= $1",
                      2, types)
                  .ok());
  uint32_t id_be = htonl(900);
  const char blob[] = {'\x00', '\xff', '\x10'};
  const char* values[] = {reinterpret_cast<const char*>(&id_be), blob};
  const int lengths[] = {4, 3};
  const int formats[] = {1, 1};
  for (int round = 0; round < 5; ++round) {
    PGresult* res = PQexecPrepared(c.get(), "bin", 2, values, lengths, formats, 1);
    ASSERT_EQ(PQresultStatus(res), PGRES_TUPLES_OK) << PQresultErrorMessage(res);
    ASSERT_EQ(PQntuples(res), 1);
    ASSERT_EQ(PQfformat(res, 0), 1);
    ASSERT_EQ(PQgetlength(res, 0, 0), 4);
    uint32_t v = 0;
    std::memcpy(&v, PQgetvalue(res, 0, 0), 4);
    EXPECT_EQ(ntohl(v), 900u);
    ASSERT_EQ(PQgetlength(res, 0, 1), 8);
    uint64_t big = 0;
    std::memcpy(&big, PQgetvalue(res, 0, 1), 8);
    EXPECT_EQ(be64toh(big), 900000u);
    ASSERT_EQ(PQgetlength(res, 0, 2), 5);
    EXPECT_EQ(std::string(PQgetvalue(res, 0, 2), 5), std::string("\x01\x02\x00\xff\x10", 5));
    PQclear(res);
  }
  // Mixed: binary parameter, text result.
  PGresult* res = PQexecPrepared(c.get(), "bin", 2, values, lengths, formats, 0);
  ASSERT_EQ(PQresultStatus(res), PGRES_TUPLES_OK) << PQresultErrorMessage(res);
  EXPECT_STREQ(PQgetvalue(res, 0, 1), "900000");
  EXPECT_STREQ(PQgetvalue(res, 0, 2), "\\x010200ff10");
  PQclear(res);
  // Unnamed statements with binary parameters (PQexecParams) work too.
  const Oid int4[] = {23};
  res = PQexecParams(c.get(), "select $1 + 1", 1, int4, values, lengths, formats, 0);
  ASSERT_EQ(PQresultStatus(res), PGRES_TUPLES_OK) << PQresultErrorMessage(res);
  EXPECT_STREQ(PQgetvalue(res, 0, 0), "901");
  PQclear(res);
}

TEST_F(ProxyPreparedTest, DescribePrepared) {
  auto c = connect_proxy();
  ASSERT_TRUE(prepare(c.get(), "desc",
                      "select id, name, price, data, now() as ts from items where id = $1 and "
                      "name <> $2 and price > $3")
                  .ok());
  for (int round = 0; round < 3; ++round) {
    PGresult* d = PQdescribePrepared(c.get(), "desc");
    ASSERT_EQ(PQresultStatus(d), PGRES_COMMAND_OK) << PQresultErrorMessage(d);
    ASSERT_EQ(PQnparams(d), 3);
    EXPECT_EQ(PQparamtype(d, 0), 23u);
    EXPECT_EQ(PQparamtype(d, 1), 25u);
    EXPECT_EQ(PQparamtype(d, 2), 1700u);
    ASSERT_EQ(PQnfields(d), 5);
    EXPECT_STREQ(PQfname(d, 0), "id");
    EXPECT_STREQ(PQfname(d, 4), "ts");
    EXPECT_EQ(PQftype(d, 3), 17u);
    EXPECT_EQ(PQftype(d, 4), 1184u);
    PQclear(d);
  }
  PGresult* d = PQdescribePrepared(c.get(), "no_such_statement");
  EXPECT_EQ(PQresultStatus(d), PGRES_FATAL_ERROR);
  EXPECT_STREQ(PQresultErrorField(d, PG_DIAG_SQLSTATE), "26000");
  PQclear(d);
  EXPECT_EQ(pq_exec(c.get(), "select 1").at(), "1");
}

TEST_F(ProxyPreparedTest, StatementsSurviveBackendChanges) {
  // Another client holds a transaction open every other round, so the prepared statements of
  // `c` must be prepared again on whichever backend runs them.
  auto c = connect_proxy();
  auto other = connect_proxy();
  ASSERT_TRUE(prepare(c.get(), "pid", "select pg_backend_pid()").ok());
  ASSERT_TRUE(prepare(c.get(), "add", "select $1::int + $2::int").ok());
  std::set<std::string> pids;
  for (int i = 0; i < 30; ++i) {
    if (i % 2 == 0) {
      ASSERT_TRUE(pq_exec(other.get(), "begin").ok());
      ASSERT_EQ(pq_exec(other.get(), "select 1").at(), "1");
    }
    SqlResult pid = exec_prepared(c.get(), "pid", {});
    ASSERT_TRUE(pid.ok()) << pid.message;
    pids.insert(pid.at());
    std::string a = std::to_string(i), b = std::to_string(i * 7);
    SqlResult sum = exec_prepared(c.get(), "add", {a.c_str(), b.c_str()});
    ASSERT_TRUE(sum.ok()) << i << ": " << sum.message;
    EXPECT_EQ(sum.at(), std::to_string(i * 8));
    if (i % 2 == 0) {
      ASSERT_TRUE(pq_exec(other.get(), "commit").ok());
    }
  }
  EXPECT_GT(pids.size(), 1u) << "the statements never ran on another backend";
}

TEST_F(ProxyPreparedTest, ManyClientsSameNamesDifferentTexts) {
  constexpr int kClients = 8;
  std::atomic<int> failures{0};
  std::vector<std::string> errors(kClients);
  std::vector<std::thread> threads;
  for (int k = 0; k < kClients; ++k) {
    threads.emplace_back([&, k] {
      auto c = pq_connect(proxy_->dsn());
      if (PQstatus(c.get()) != CONNECTION_OK) {
        errors[k] = PQerrorMessage(c.get());
        ++failures;
        return;
      }
      // Same name "q" everywhere; each client's text (and for odd clients the parameter type)
      // differs.
      std::string sql = k % 2 ? "select 'client " + std::to_string(k) + ":' || $1::text"
                              : "select $1::int * " + std::to_string(k + 1);
      SqlResult p = prepare(c.get(), "q", sql);
      SqlResult p2 = prepare(c.get(), "r", "select " + std::to_string(k) + " as k");
      if (!p.ok() || !p2.ok()) {
        errors[k] = p.message + p2.message;
        ++failures;
        return;
      }
      for (int i = 0; i < 40; ++i) {
        std::string arg = std::to_string(i);
        SqlResult r = exec_prepared(c.get(), "q", {arg.c_str()});
        std::string want =
            k % 2 ? "client " + std::to_string(k) + ":" + arg : std::to_string(i * (k + 1));
        SqlResult r2 = exec_prepared(c.get(), "r", {});
        if (r.at() != want || r2.at() != std::to_string(k)) {
          errors[k] =
              "round " + arg + ": got " + r.at() + " / " + r2.at() + " " + r.message + r2.message;
          ++failures;
          return;
        }
        if (i % 10 == 0) pq_exec(c.get(), "begin; select 1; commit");
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  for (int k = 0; k < kClients; ++k) EXPECT_EQ(errors[k], "") << "client " << k;
}

TEST_F(ProxyPreparedTest, PipelineWithAnErrorInTheMiddle) {
  // The same pipeline directly and through pgrange gives the same sequence of results.
  auto run = [](PGconn* c) {
    std::string out;
    if (!prepare(c, "div", "select 100 / $1::int").ok()) return std::string("prepare failed");
    if (PQenterPipelineMode(c) != 1) return std::string("no pipeline mode");
    const char* args[] = {"1", "2", "0", "4", "5"};
    for (const char* a : args) {
      if (PQsendQueryPrepared(c, "div", 1, &a, nullptr, nullptr, 0) != 1) return out + "send!";
      if (a == args[2]) PQpipelineSync(c);
    }
    PQpipelineSync(c);
    for (int syncs = 0; syncs < 2;) {
      PGresult* r = PQgetResult(c);
      if (r == nullptr) continue;  // end of one query's results
      ExecStatusType st = PQresultStatus(r);
      out += PQresStatus(st);
      if (st == PGRES_TUPLES_OK) out += std::string(":") + PQgetvalue(r, 0, 0);
      if (st == PGRES_FATAL_ERROR)
        out += std::string(":") + PQresultErrorField(r, PG_DIAG_SQLSTATE);
      out += " ";
      if (st == PGRES_PIPELINE_SYNC) ++syncs;
      PQclear(r);
    }
    PQexitPipelineMode(c);
    SqlResult after = pq_exec(c, "select 'after'");
    return out + after.at();
  };
  auto direct = pq_connect(server_->dsn("app"));
  auto proxied = connect_proxy();
  std::string want = run(direct.get());
  EXPECT_EQ(want,
            "PGRES_TUPLES_OK:100 PGRES_TUPLES_OK:50 PGRES_FATAL_ERROR:22012 PGRES_PIPELINE_SYNC "
            "PGRES_TUPLES_OK:25 PGRES_TUPLES_OK:20 PGRES_PIPELINE_SYNC after");
  EXPECT_EQ(run(proxied.get()), want);
}

TEST_F(ProxyPreparedTest, PipelineFlushRequestDeliversResultsBeforeSync) {
  // PQsendFlushRequest sends Flush (H) without Sync: the results must arrive before any Sync.
  for (bool through_proxy : {false, true}) {
    SCOPED_TRACE(through_proxy ? "through pgrange" : "direct");
    auto c = through_proxy ? connect_proxy() : pq_connect(server_->dsn("app"));
    ASSERT_TRUE(prepare(c.get(), "flushed", "select $1::int * 3").ok());
    ASSERT_EQ(PQenterPipelineMode(c.get()), 1);
    ASSERT_EQ(PQsetnonblocking(c.get(), 1), 0);
    const char* arg = "14";
    ASSERT_EQ(PQsendQueryPrepared(c.get(), "flushed", 1, &arg, nullptr, nullptr, 0), 1);
    ASSERT_EQ(PQsendFlushRequest(c.get()), 1);
    auto deadline = Clock::now() + std::chrono::seconds(10);
    std::string value;
    while (value.empty() && Clock::now() < deadline) {
      PQflush(c.get());
      pollfd p{PQsocket(c.get()), POLLIN, 0};
      ::poll(&p, 1, 100);
      PQconsumeInput(c.get());
      while (!PQisBusy(c.get())) {
        PGresult* r = PQgetResult(c.get());
        if (r == nullptr) break;
        if (PQresultStatus(r) == PGRES_TUPLES_OK) value = PQgetvalue(r, 0, 0);
        PQclear(r);
      }
    }
    EXPECT_EQ(value, "42") << "no result before Sync";
    ASSERT_EQ(PQpipelineSync(c.get()), 1);
    PQsetnonblocking(c.get(), 0);
    for (int i = 0; i < 4; ++i) {
      PGresult* r = PQgetResult(c.get());
      bool sync = r && PQresultStatus(r) == PGRES_PIPELINE_SYNC;
      PQclear(r);
      if (sync) break;
    }
    EXPECT_EQ(PQexitPipelineMode(c.get()), 1);
    EXPECT_EQ(pq_exec(c.get(), "select 'after'").at(), "after");
  }
}

TEST_F(ProxyPreparedTest, FailedPrepareLeavesNoStatement) {
  // A Parse that fails defines nothing: executing the name reports 26000, as PostgreSQL does,
  // and the name can then be prepared properly.
  for (bool through_proxy : {false, true}) {
    SCOPED_TRACE(through_proxy ? "through pgrange" : "direct");
    auto c = through_proxy ? connect_proxy() : pq_connect(server_->dsn("app"));
    SqlResult p = prepare(c.get(), "broken", "selec 1");
    EXPECT_EQ(p.sqlstate, "42601");
    SqlResult e = exec_prepared(c.get(), "broken", {});
    EXPECT_EQ(e.sqlstate, "26000") << e.message;
    EXPECT_TRUE(prepare(c.get(), "broken", "select 'fixed'").ok());
    EXPECT_EQ(exec_prepared(c.get(), "broken", {}).at(), "fixed");
  }
}

TEST_F(ProxyPreparedTest, DuplicateStatementNameIsAnError) {
  // PostgreSQL refuses a second Parse of an existing name (42P05) and keeps the first text.
  for (bool through_proxy : {false, true}) {
    SCOPED_TRACE(through_proxy ? "through pgrange" : "direct");
    auto c = through_proxy ? connect_proxy() : pq_connect(server_->dsn("app"));
    ASSERT_TRUE(prepare(c.get(), "twice", "select 'first'").ok());
    SqlResult again = prepare(c.get(), "twice", "select 'second'");
    EXPECT_EQ(again.sqlstate, "42P05") << again.message;
    EXPECT_EQ(exec_prepared(c.get(), "twice", {}).at(), "first");
  }
}

/// Reads messages until ReadyForQuery; returns their types, with the SQLSTATE after each 'E'.
std::string read_to_ready(RawClient& raw) {
  std::string out;
  for (;;) {
    RawMessage m = raw.read();
    if (m.type == 0) return out + "<eof>";
    if (m.type == 'N' || m.type == 'S') continue;  // notices and parameter changes vary
    out.push_back(m.type);
    if (m.type == 'E') out += "(" + m.fields()['C'] + ")";
    if (m.type == 'D') out += "(" + m.body.substr(6) + ")";
    if (m.type == 'Z') return out;
  }
}

/// Logs a raw client in (trust) and reads up to the first ReadyForQuery.
void raw_login(RawClient& raw, const std::string& user, const std::string& db) {
  ASSERT_TRUE(raw.send_startup({{"user", user}, {"database", db}}));
  std::string seen = read_to_ready(raw);
  ASSERT_EQ(seen.back(), 'Z') << seen;
}

TEST_F(ProxyPreparedTest, CloseStatementThroughTheProtocol) {
  // libpq 15 has no PQclosePrepared: send Parse/Bind/Execute/Close/Sync by hand and compare the
  // replies with PostgreSQL's.
  auto script = [](RawClient& raw) {
    auto parse = [](const std::string& name, const std::string& sql) {
      return RawClient::message('P', name + '\0' + sql + '\0' + RawClient::i16(0));
    };
    auto bind_exec = [](const std::string& name) {
      std::string bind = std::string("\0", 1) + name + '\0' + RawClient::i16(0) +
                         RawClient::i16(0) + RawClient::i16(0);
      return RawClient::message('B', bind) +
             RawClient::message('E', std::string("\0", 1) + RawClient::i32(0));
    };
    auto close = [](const std::string& name) { return RawClient::message('C', "S" + name + '\0'); };
    const std::string sync = RawClient::message('S', "");
    std::string out;
    raw.send(parse("s1", "select 'one'") + sync);
    out += read_to_ready(raw) + " ";
    raw.send(bind_exec("s1") + sync);
    out += read_to_ready(raw) + " ";
    raw.send(close("s1") + sync);
    out += read_to_ready(raw) + " ";
    raw.send(bind_exec("s1") + sync);
    out += read_to_ready(raw) + " ";
    raw.send(close("never_existed") + sync);  // closing an unknown name is not an error
    out += read_to_ready(raw) + " ";
    raw.send(parse("s1", "select 'two'") + bind_exec("s1") + close("s1") + sync);
    out += read_to_ready(raw) + " ";
    raw.send(RawClient::message('Q', std::string("select 'still fine'") + '\0'));
    out += read_to_ready(raw);
    return out;
  };
  RawClient direct(server_->port());
  raw_login(direct, "postgres", "app");
  std::string want = script(direct);
  EXPECT_EQ(want, "1Z 2D(one)CZ 3Z E(26000)Z 3Z 12D(two)C3Z TD(still fine)CZ");
  RawClient proxied(proxy_->port());
  raw_login(proxied, "trustuser", "app");
  EXPECT_EQ(script(proxied), want);
}

TEST_F(ProxyPreparedTest, DiscardAllAndDeallocateAllDropProtocolStatements) {
  // In PostgreSQL, DISCARD ALL and DEALLOCATE ALL also drop statements prepared through the
  // protocol (they share one namespace with SQL PREPARE).
  for (const char* reset : {"discard all", "deallocate all"}) {
    for (bool through_proxy : {false, true}) {
      SCOPED_TRACE(std::string(reset) + (through_proxy ? " through pgrange" : " direct"));
      auto c = through_proxy ? connect_proxy() : pq_connect(server_->dsn("app"));
      ASSERT_TRUE(prepare(c.get(), "dropped", "select 'still here'::text").ok());
      ASSERT_EQ(exec_prepared(c.get(), "dropped", {}).at(), "still here");
      ASSERT_TRUE(pq_exec(c.get(), reset).ok());
      SqlResult gone = exec_prepared(c.get(), "dropped", {});
      EXPECT_EQ(gone.sqlstate, "26000") << gone.at();
      // The name is free again.
      EXPECT_TRUE(prepare(c.get(), "dropped", "select 'new'::text").ok());
      EXPECT_EQ(exec_prepared(c.get(), "dropped", {}).at(), "new");
    }
  }
}

TEST_F(ProxyPreparedTest, LargeParametersAndResults) {
  auto c = connect_proxy();
  ASSERT_TRUE(prepare(c.get(), "big", "select length($1::text), md5($1::text), $1::text").ok());
  std::string value;
  for (int i = 0; value.size() < 3 * 1024 * 1024; ++i) value += std::to_string(i) + ",";
  SqlResult r = exec_prepared(c.get(), "big", {value.c_str()});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.at(0, 0), std::to_string(value.size()));
  EXPECT_EQ(r.at(0, 2), value);
  // The same value through the simple protocol.
  SqlResult q = pq_exec(c.get(), "select length('" + value + "')");
  EXPECT_EQ(q.at(), std::to_string(value.size()));
  EXPECT_EQ(pq_exec(c.get(), "select 1").at(), "1");
}

TEST_F(ProxyPreparedTest, LibpqxxClient) {
  pqxx::connection c(proxy_->dsn());
  c.prepare("px_ins", "insert into items (id, name, price) values ($1, $2, $3)");
  c.prepare("px_get", "select name, price from items where id = $1");
  {
    pqxx::work w(c);
    for (int i = 2000; i < 2020; ++i) {
      w.exec_prepared("px_ins", i, "pqxx " + std::to_string(i), i / 4.0);
    }
    w.commit();
  }
  {
    pqxx::work w(c);
    w.exec_prepared("px_ins", 2100, "rolled back", 1);
    w.abort();
  }
  {
    pqxx::nontransaction n(c);
    pqxx::result r = n.exec_prepared("px_get", 2005);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0][0].as<std::string>(), "pqxx 2005");
    EXPECT_EQ(r[0][1].as<std::string>(), "501.25");
    EXPECT_TRUE(n.exec_prepared("px_get", 2100).empty());
    pqxx::result sum = n.exec_params(
        "select count(*), sum(price) from items where id between $1 and $2", 2000, 2099);
    EXPECT_EQ(sum[0][0].as<int>(), 20);
    EXPECT_EQ(sum[0][1].as<std::string>(), "10047.50");
  }
  // An error inside a transaction aborts it; the connection stays usable.
  {
    pqxx::work w(c);
    EXPECT_THROW(w.exec_prepared("px_ins", 2000, "duplicate", 1), pqxx::unique_violation);
  }
  {
    pqxx::work w(c);
    pqxx::result r = w.exec_params("select $1::text || '!' , $2::int * 2", "hi", 21);
    EXPECT_EQ(r[0][0].as<std::string>(), "hi!");
    EXPECT_EQ(r[0][1].as<int>(), 42);
    w.exec_prepared("px_ins", 2050, "committed", 3);
    w.commit();
  }
  EXPECT_EQ(server_->exec("select name from items where id = 2050", "app"), "committed");
  EXPECT_EQ(server_->exec("select count(*) from items where id = 2100", "app"), "0");
}

TEST_F(ProxyPreparedTest, LibpqxxUnprepare) {
  // libpqxx's unprepare() sends the SQL statement DEALLOCATE for a statement it prepared through
  // the protocol.
  pqxx::connection c(proxy_->dsn());
  c.prepare("px_tmp", "select 'tmp'::text");
  {
    pqxx::nontransaction n(c);
    EXPECT_EQ(n.exec_prepared("px_tmp")[0][0].as<std::string>(), "tmp");
  }
  EXPECT_NO_THROW(c.unprepare("px_tmp"));
  pqxx::nontransaction n(c);
  EXPECT_EQ(n.exec("select 1")[0][0].as<int>(), 1);
}

TEST_F(ProxyPreparedTest, SqlDeallocateAndExecuteSeeProtocolStatements) {
  // Protocol-level and SQL-level prepared statements share one namespace in PostgreSQL: EXECUTE
  // and DEALLOCATE work on a statement made with Parse (drivers rely on it to drop statements).
  for (bool through_proxy : {false, true}) {
    SCOPED_TRACE(through_proxy ? "through pgrange" : "direct");
    auto c = through_proxy ? connect_proxy() : pq_connect(server_->dsn("app"));
    ASSERT_TRUE(prepare(c.get(), "shared_ns", "select 'from parse'::text").ok());
    SqlResult e = pq_exec(c.get(), "execute shared_ns");
    EXPECT_EQ(e.at(), "from parse") << e.message;
    SqlResult d = pq_exec(c.get(), "deallocate shared_ns");
    EXPECT_TRUE(d.ok()) << d.sqlstate << " " << d.message;
    SqlResult gone = exec_prepared(c.get(), "shared_ns", {});
    EXPECT_EQ(gone.sqlstate, "26000");
    EXPECT_EQ(pq_exec(c.get(), "select 1").at(), "1");
  }
}

}  // namespace
}  // namespace pgrange::testing
