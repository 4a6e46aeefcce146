// Keys pgrange makes itself over a table split into ranges on three real PostgreSQL shards:
//  - ConcurrentInsertsThroughTwoInstances: four clients on two pgrange processes sharing one
//    metadata store insert hundreds of rows into a bigserial-keyed table, leaving the key out;
//    every key is unique, RETURNING gives the key stored, and each row sits on the shard the
//    range map gives its key (read on the shards directly).
//  - SameAnswersAsPostgres: identity, serial and bounded sequences compared statement by
//    statement with one plain PostgreSQL: rows, RETURNING, command tags and errors (428C9,
//    2200H).
//  - SameAnswersThroughExtendedProtocol: the same, each statement sent as Parse/Bind/Execute;
//    writes whose keys the shards' own defaults would make (INSERT … SELECT, COPY without the
//    key) are refused in both protocols.
//  - PreparedInsertsBoundManyTimes: a named INSERT prepared once and bound 33 times (text and
//    binary parameters), its Describe, a prepared nextval(), a script of INSERTs in one string,
//    each compared with one plain PostgreSQL.
//  - UuidKeys: DEFAULT gen_random_uuid() keys are made by pgrange and land where they belong.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/pg_server.hpp"
#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {
namespace {

constexpr int kShards = 3;

/// A statement's outcome as a client sees it: the command tag or the error, and the rows.
struct Outcome {
  std::string tag;
  std::string sqlstate;
  std::string message;
  std::vector<std::vector<std::string>> rows;

  std::string describe() const {
    std::string s = sqlstate.empty() ? tag : sqlstate + " " + message;
    for (const auto& r : rows) {
      s += "\n ";
      for (const auto& v : r) s += " " + v;
    }
    return s;
  }
};

/// The result of `res` (cleared here) as an Outcome.
Outcome outcome(PGconn* c, PGresult* res) {
  Outcome o;
  if (PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK) {
    o.tag = PQcmdStatus(res);
    for (int r = 0; r < PQntuples(res); ++r) {
      std::vector<std::string> row;
      for (int f = 0; f < PQnfields(res); ++f) {
        row.push_back(PQgetisnull(res, r, f) ? "<null>" : PQgetvalue(res, r, f));
      }
      o.rows.push_back(std::move(row));
    }
  } else {
    const char* st = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    const char* msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
    o.sqlstate = st ? st : "?";
    o.message = msg ? msg : PQerrorMessage(c);
  }
  PQclear(res);
  return o;
}

/// Runs `sql` through the simple query protocol, or the extended one (Parse, Bind, Execute of
/// the unnamed statement) when `extended`.
Outcome run(PGconn* c, const std::string& sql, bool extended = false) {
  return outcome(c, extended
                        ? PQexecParams(c, sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0)
                        : PQexec(c, sql.c_str()));
}

class GeneratedKeyTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (auto*& s : servers_) s = PgServer::start().release();
  }
  static void TearDownTestSuite() {
    for (auto*& s : servers_) {
      delete s;
      s = nullptr;
    }
  }

  /// pgrange over database `db` on each server, metadata in `<db>_meta`, blocks of `block`.
  ProxyConfig make_config(const std::string& db, int block) {
    ProxyConfig cfg = ProxyConfig::with_shard("", 8);
    cfg.shards.clear();
    for (int i = 0; i < kShards; ++i) {
      servers_[i]->exec("CREATE DATABASE " + db);
      ProxyConfig::Shard s;
      s.name = "s" + std::to_string(i + 1);
      s.dsn = servers_[i]->dsn(db);
      s.pool_size = 8;
      cfg.shards.push_back(s);
    }
    cfg.workers = 2;
    cfg.extra_toml = "\n[metadata]\ndsn = \"" + servers_[0]->dsn(db + "_meta") + "\"\n";
    block_ = block;
    db_ = db;
    return cfg;
  }

  static PgConnPtr connect(const std::string& dsn) {
    auto c = pq_connect(dsn);
    EXPECT_EQ(PQstatus(c.get()), CONNECTION_OK) << dsn << ": " << PQerrorMessage(c.get());
    return c;
  }

  static Outcome must(PGconn* c, const std::string& sql) {
    Outcome o = run(c, sql);
    EXPECT_TRUE(o.sqlstate.empty()) << sql << "\n  -> " << o.describe();
    return o;
  }

  /// The shard ("s1"…) SHOW RANGE FROM TABLE … FOR ROW gives for a key literal.
  static std::string shard_for(PGconn* c, const std::string& table, const std::string& key) {
    Outcome o = must(c, "SHOW RANGE FROM TABLE " + table + " FOR ROW (" + key + ")");
    return o.rows.empty() ? "<none>" : o.rows[0].at(3);
  }

  /// The keys each shard holds of `table`, read on the shards directly.
  std::map<std::string, std::string> keys_on_shards(const std::string& table) {
    std::map<std::string, std::string> where;  // key → shard
    for (int i = 0; i < kShards; ++i) {
      auto sc = connect(servers_[i]->dsn(db_));
      for (const auto& row : must(sc.get(), "SELECT id::text FROM " + table).rows) {
        EXPECT_TRUE(where.emplace(row[0], "s" + std::to_string(i + 1)).second)
            << "key " << row[0] << " is on two shards";
      }
    }
    return where;
  }

  /// Starts pgrange with `cfg` and the test's sequence block size.
  std::unique_ptr<ProxyProcess> start(const ProxyConfig& cfg) {
    return ProxyProcess::start_toml("sequence_block_size = " + std::to_string(block_) + "\n" +
                                    cfg.to_toml());
  }

  void same_answers(const std::string& db, bool extended);

  static PgServer* servers_[kShards];
  std::string db_;
  int block_ = 100;
};

PgServer* GeneratedKeyTest::servers_[kShards] = {};

TEST_F(GeneratedKeyTest, ConcurrentInsertsThroughTwoInstances) {
  ProxyConfig cfg = make_config("genkey_two", 7);
  auto p1 = start(cfg);
  auto p2 = start(cfg);
  auto c = connect(p1->dsn());
  must(c.get(), "CREATE TABLE t (id bigserial PRIMARY KEY, v text NOT NULL)");
  must(c.get(), "ALTER TABLE t SPLIT AT VALUES (60), (150), (260)");
  must(c.get(), "ALTER TABLE t SCATTER");

  constexpr int kClients = 4;
  constexpr int kStatements = 25;
  constexpr int kRowsPerStatement = 4;
  std::mutex mu;
  std::map<int64_t, std::string> returned;  // id → v
  std::vector<std::string> errors;
  std::vector<std::thread> threads;
  for (int k = 0; k < kClients; ++k) {
    threads.emplace_back([&, k] {
      auto conn = pq_connect((k % 2 == 0 ? p1 : p2)->dsn());
      for (int s = 0; s < kStatements; ++s) {
        std::string sql = "INSERT INTO t (v) VALUES ";
        for (int r = 0; r < kRowsPerStatement; ++r) {
          sql += (r > 0 ? ", ('" : "('") + std::to_string(k) + "/" + std::to_string(s) + "/" +
                 std::to_string(r) + "')";
        }
        Outcome o = run(conn.get(), sql + " RETURNING id, v");
        std::lock_guard lock(mu);
        if (!o.sqlstate.empty() || o.tag != "INSERT 0 4" || o.rows.size() != 4) {
          errors.push_back(sql + " -> " + o.describe());
          continue;
        }
        for (const auto& row : o.rows) {
          if (!returned.emplace(std::stoll(row[0]), row[1]).second) {
            errors.push_back("key " + row[0] + " returned twice");
          }
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_TRUE(errors.empty()) << errors.front() << "\n" << p1->log_tail() << p2->log_tail();
  EXPECT_EQ(returned.size(), static_cast<size_t>(kClients * kStatements * kRowsPerStatement));

  // The stored rows are those returned, each on the shard its key's range is on.
  auto where = keys_on_shards("t");
  EXPECT_EQ(where.size(), returned.size());
  std::set<std::string> shards_used;
  for (const auto& [id, v] : returned) {
    std::string key = std::to_string(id);
    ASSERT_TRUE(where.count(key)) << "returned key " << key << " is on no shard";
    EXPECT_EQ(where[key], shard_for(c.get(), "t", key)) << "key " << key;
    shards_used.insert(where[key]);
    Outcome o = must(c.get(), "SELECT v FROM t WHERE id = " + key);
    ASSERT_EQ(o.rows.size(), 1u);
    EXPECT_EQ(o.rows[0][0], v);
  }
  EXPECT_EQ(shards_used.size(), 3u) << "the keys did not reach every shard";
  // Simple statements through both protocols' way in: DEFAULT VALUES needs a nullable column.
  Outcome count = must(c.get(), "SELECT count(*) FROM t");
  EXPECT_EQ(count.rows.at(0).at(0), std::to_string(returned.size()));
}

/// Identity, serial and bounded sequences compared statement by statement with one plain
/// PostgreSQL, each statement sent through the simple or the extended protocol.
void GeneratedKeyTest::same_answers(const std::string& db, bool extended) {
  ProxyConfig cfg = make_config(db, 5);
  auto proxy = start(cfg);
  auto p = connect(proxy->dsn());
  servers_[0]->exec("CREATE DATABASE " + db + "_plain");
  auto pg = connect(servers_[0]->dsn(db + "_plain"));

  const std::vector<std::string> setup = {
      "CREATE TABLE a (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v text)",
      "CREATE TABLE b (id bigint GENERATED BY DEFAULT AS IDENTITY (START 10 INCREMENT 5) "
      "PRIMARY KEY, v text)",
      "CREATE TABLE c (id serial PRIMARY KEY, v text)",
      "CREATE SEQUENCE d_seq MINVALUE -100 MAXVALUE -1 INCREMENT -7",
      "CREATE TABLE d (id int8 DEFAULT nextval('d_seq') PRIMARY KEY, v text)",
      "CREATE TABLE e (id int2 GENERATED BY DEFAULT AS IDENTITY (MAXVALUE 4) PRIMARY KEY, v text)",
  };
  for (const auto& s : setup) {
    must(p.get(), s);
    must(pg.get(), s);
  }
  for (const char* split :
       {"ALTER TABLE a SPLIT AT VALUES (3), (6)", "ALTER TABLE b SPLIT AT VALUES (20), (40)",
        "ALTER TABLE c SPLIT AT VALUES (2), (4)", "ALTER TABLE d SPLIT AT VALUES (-30), (-10)",
        "ALTER TABLE e SPLIT AT VALUES (2), (3)", "ALTER TABLE a SCATTER", "ALTER TABLE b SCATTER",
        "ALTER TABLE c SCATTER", "ALTER TABLE d SCATTER", "ALTER TABLE e SCATTER"}) {
    must(p.get(), split);
  }

  const std::vector<std::string> statements = {
      "SELECT currval('a_id_seq')",
      "INSERT INTO a (v) VALUES ('a1'), ('a2'), ('a3') RETURNING id, v",
      "SELECT currval('a_id_seq')",
      "INSERT INTO a (id, v) VALUES (DEFAULT, 'a4'), (DEFAULT, 'a5') RETURNING *",
      "INSERT INTO a VALUES (DEFAULT, 'a6')",
      "INSERT INTO a DEFAULT VALUES RETURNING id",
      "INSERT INTO a (id, v) VALUES (100, 'no')",
      "INSERT INTO a (id, v) VALUES (DEFAULT, 'no'), (101, 'no')",
      "INSERT INTO a (id, v) OVERRIDING SYSTEM VALUE VALUES (100, 'a100') RETURNING id",
      "INSERT INTO a (v) VALUES ('a8'), ('a9'), ('a10'), ('a11') RETURNING id",
      "SELECT id, v FROM a ORDER BY id",
      "INSERT INTO b (v) VALUES ('b1'), ('b2'), ('b3'), ('b4'), ('b5'), ('b6') RETURNING id",
      "INSERT INTO b (id, v) VALUES (12, 'b12'), (DEFAULT, 'b7') RETURNING id, v",
      "SELECT id, v FROM b ORDER BY id",
      "INSERT INTO c (v) VALUES ('c1'), ('c2'), ('c3'), ('c4'), ('c5') RETURNING id",
      "INSERT INTO c VALUES (DEFAULT, 'c6') RETURNING *",
      "SELECT id, v FROM c ORDER BY id",
      "SELECT lastval()",
      "SELECT nextval('c_id_seq')",
      "SELECT setval('c_id_seq', 100)",
      "SELECT nextval('public.c_id_seq') AS n",
      "SELECT setval('c_id_seq', 200, false)",
      "SELECT currval('c_id_seq')",
      "SELECT nextval('c_id_seq')",
      "INSERT INTO c (v) VALUES ('c7') RETURNING id",
      "SELECT lastval()",
      "SELECT setval('e_id_seq', 99)",
      "INSERT INTO d (v) VALUES ('d1'), ('d2'), ('d3'), ('d4'), ('d5') RETURNING id",
      "SELECT id, v FROM d ORDER BY id",
      "INSERT INTO e (v) VALUES ('e1'), ('e2'), ('e3') RETURNING id",
      "INSERT INTO e (v) VALUES ('e4') RETURNING id",
      "INSERT INTO e (v) VALUES ('e5') RETURNING id",
      "INSERT INTO e (v) VALUES ('e6') RETURNING id",
      "SELECT id, v FROM e ORDER BY id",
      // DDL that restarts or changes the sequences.
      "ALTER SEQUENCE c_id_seq RESTART WITH 500 INCREMENT BY 3",
      "INSERT INTO c (v) VALUES ('c8') RETURNING id",
      "SELECT nextval('c_id_seq')",
      "INSERT INTO c (v) VALUES ('c9') RETURNING id",
      "ALTER TABLE b ALTER COLUMN id RESTART WITH 300",
      "INSERT INTO b (v) VALUES ('b8') RETURNING id",
      "ALTER TABLE b ALTER COLUMN id SET INCREMENT BY 2 RESTART WITH 1000",
      "INSERT INTO b (v) VALUES ('b9') RETURNING id",
      "INSERT INTO b (v) VALUES ('b10') RETURNING id",
      "TRUNCATE a RESTART IDENTITY",
      "INSERT INTO a (v) VALUES ('again') RETURNING id",
      "SELECT id, v FROM a ORDER BY id",
      "ALTER SEQUENCE d_seq RESTART",
      "INSERT INTO d (v) VALUES ('d6') RETURNING id",
      "SELECT pg_get_serial_sequence('c', 'id')",
      // Rows made by a query, their keys left to the sequence.
      "INSERT INTO c (v) SELECT v || '-copy' FROM b WHERE id < 30 ORDER BY id RETURNING id, v",
      "SELECT id, v FROM c ORDER BY id",
  };
  for (const auto& s : statements) {
    SCOPED_TRACE(s);
    // Through the extended protocol an INSERT whose rows go to several shards is refused for
    // now (below): the rows of several are left out on both sides.
    if (extended && s.find("), (") != std::string::npos) continue;
    Outcome want = run(pg.get(), s, extended);
    Outcome got = run(p.get(), s, extended);
    EXPECT_EQ(got.describe(), want.describe()) << proxy->log_tail(2000);
  }
  // The errors compared are those of PostgreSQL, not a refusal of pgrange's.
  EXPECT_EQ(run(p.get(), "INSERT INTO a (id, v) VALUES (100, 'no')", extended).sqlstate, "428C9");
  Outcome last;  // e's sequence ends at 4
  for (int i = 0; i < 5 && last.sqlstate.empty(); ++i) {
    last = run(p.get(), "INSERT INTO e (v) VALUES ('e7')", extended);
  }
  EXPECT_EQ(last.sqlstate, "2200H");

  // Inside a block a change of a cluster-wide sequence is refused: it would not follow.
  run(p.get(), "BEGIN", extended);
  EXPECT_EQ(run(p.get(), "ALTER SEQUENCE c_id_seq RESTART", extended).sqlstate, "0A000");
  run(p.get(), "ROLLBACK", extended);
  const std::string after = "INSERT INTO c (v) VALUES ('c10') RETURNING id";
  EXPECT_EQ(run(p.get(), after, extended).describe(), run(pg.get(), after, extended).describe());

  // A sequence function inside other work is refused, not run on one shard's sequence.
  EXPECT_EQ(run(p.get(), "SELECT nextval('c_id_seq') + 1", extended).sqlstate, "0A000");
  EXPECT_EQ(run(p.get(), "SELECT id, nextval('b_id_seq') FROM b", extended).sqlstate, "0A000");
  EXPECT_EQ(run(p.get(), "SELECT nextval('c_' || 'id_seq')", extended).sqlstate, "0A000");
  // INSERT … SELECT leaving the key out gets pgrange's keys through either protocol (through
  // the extended one pgrange runs it at its Execute); COPY without the key is refused, the
  // shards' own defaults would make keys pgrange also hands out.
  const std::string copied =
      "INSERT INTO c (v) SELECT v || '-again' FROM b WHERE id < 4 ORDER BY id RETURNING id, v";
  EXPECT_EQ(run(p.get(), copied, extended).describe(), run(pg.get(), copied, extended).describe());
  EXPECT_EQ(run(p.get(), "COPY c (v) FROM STDIN", extended).sqlstate, "0A000");
  // Rows of several whose keys all fall into one range (the last) run through either protocol.
  const std::string rows = "INSERT INTO c (v) VALUES ('m1'), ('m2'), ('m3'), ('m4') RETURNING v";
  EXPECT_EQ(run(p.get(), rows, extended).describe(), "INSERT 0 4\n  m1\n  m2\n  m3\n  m4");

  // Each row sits where the range map puts it.
  for (const std::string t : {"a", "b", "c", "d", "e"}) {
    for (const auto& [key, shard] : keys_on_shards(t)) {
      EXPECT_EQ(shard, shard_for(p.get(), t, key)) << t << " key " << key;
    }
  }
}

TEST_F(GeneratedKeyTest, SameAnswersAsPostgres) {
  same_answers("genkey_diff", false);
}

TEST_F(GeneratedKeyTest, SameAnswersThroughExtendedProtocol) {
  same_answers("genkey_ext", true);
}

// What drivers do: a statement prepared once and bound many times (JDBC past
// prepareThreshold, node-postgres' named queries), parameters in text and binary, the
// statement's description, and a script of several INSERTs in one query string.
TEST_F(GeneratedKeyTest, PreparedInsertsBoundManyTimes) {
  ProxyConfig cfg = make_config("genkey_prep", 4);
  auto proxy = start(cfg);
  auto p = connect(proxy->dsn());
  servers_[0]->exec("CREATE DATABASE genkey_prep_plain");
  auto pg = connect(servers_[0]->dsn("genkey_prep_plain"));
  const std::string ddl =
      "CREATE TABLE t (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v text, n int)";
  must(p.get(), ddl);
  must(pg.get(), ddl);
  must(p.get(), "ALTER TABLE t SPLIT AT VALUES (10), (20)");
  must(p.get(), "ALTER TABLE t SCATTER");

  for (PGconn* c : {p.get(), pg.get()}) {
    PGresult* r =
        PQprepare(c, "ins", "INSERT INTO t (v, n) VALUES ($1, $2) RETURNING id, v, n", 2, nullptr);
    ASSERT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQerrorMessage(c);
    PQclear(r);
    // The client sees its own two parameters, not those pgrange fills.
    r = PQdescribePrepared(c, "ins");
    ASSERT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQerrorMessage(c);
    EXPECT_EQ(PQnparams(r), 2);
    EXPECT_EQ(PQnfields(r), 3);
    PQclear(r);
  }
  for (int i = 0; i < 30; ++i) {
    std::string v = "row" + std::to_string(i);
    uint32_t n_be = htonl(static_cast<uint32_t>(i));
    const char* values[] = {v.c_str(), reinterpret_cast<const char*>(&n_be)};
    int lengths[] = {0, 4};
    int formats[] = {0, 1};  // the int in binary: each parameter its own format code
    Outcome want =
        outcome(pg.get(), PQexecPrepared(pg.get(), "ins", 2, values, lengths, formats, 0));
    Outcome got = outcome(p.get(), PQexecPrepared(p.get(), "ins", 2, values, lengths, formats, 0));
    EXPECT_EQ(got.describe(), want.describe()) << i << proxy->log_tail(2000);
  }
  // All parameters binary (one format code for all).
  for (int i = 30; i < 33; ++i) {
    std::string v = "bin" + std::to_string(i);
    uint32_t n_be = htonl(static_cast<uint32_t>(i));
    const char* values[] = {v.c_str(), reinterpret_cast<const char*>(&n_be)};
    int lengths[] = {static_cast<int>(v.size()), 4};
    int formats[] = {1, 1};
    Outcome want =
        outcome(pg.get(), PQexecPrepared(pg.get(), "ins", 2, values, lengths, formats, 0));
    Outcome got = outcome(p.get(), PQexecPrepared(p.get(), "ins", 2, values, lengths, formats, 0));
    EXPECT_EQ(got.describe(), want.describe()) << i;
  }
  // A wrong number of values is PostgreSQL's error, counting the client's parameters.
  const char* one[] = {"x"};
  Outcome wrong = outcome(p.get(), PQexecPrepared(p.get(), "ins", 1, one, nullptr, nullptr, 0));
  EXPECT_EQ(wrong.sqlstate, "08P01");
  EXPECT_NE(wrong.message.find("requires 2"), std::string::npos) << wrong.message;
  // nextval prepared, as Hibernate fetches ids, and currval after it.
  for (PGconn* c : {p.get(), pg.get()}) {
    PGresult* r = PQprepare(c, "seq", "SELECT nextval('t_id_seq')", 0, nullptr);
    ASSERT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQerrorMessage(c);
    PQclear(r);
  }
  for (int i = 0; i < 3; ++i) {
    Outcome want =
        outcome(pg.get(), PQexecPrepared(pg.get(), "seq", 0, nullptr, nullptr, nullptr, 0));
    Outcome got = outcome(p.get(), PQexecPrepared(p.get(), "seq", 0, nullptr, nullptr, nullptr, 0));
    EXPECT_EQ(got.describe(), want.describe());
  }
  {
    PGresult* r = PQdescribePrepared(p.get(), "seq");
    EXPECT_EQ(PQnparams(r), 0);
    ASSERT_EQ(PQnfields(r), 1);
    EXPECT_STREQ(PQfname(r, 0), "nextval");
    EXPECT_EQ(PQftype(r, 0), 20u);  // int8
    PQclear(r);
  }
  // A closed statement is gone; the name can be prepared again, with the keys still made.
  for (PGconn* c : {p.get(), pg.get()}) {
    PQclear(PQexec(c, "DEALLOCATE ins"));
    PGresult* r = PQprepare(c, "ins", "INSERT INTO t (v) VALUES ($1) RETURNING id", 1, nullptr);
    ASSERT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQerrorMessage(c);
    PQclear(r);
  }
  const char* again[] = {"again"};
  EXPECT_EQ(
      outcome(p.get(), PQexecPrepared(p.get(), "ins", 1, again, nullptr, nullptr, 0)).describe(),
      outcome(pg.get(), PQexecPrepared(pg.get(), "ins", 1, again, nullptr, nullptr, 0)).describe());
  // Rows made by a query with parameters, their keys left to pgrange: a prepared statement
  // bound twice, in text; with a binary parameter it is refused (its value cannot be written
  // into the query).
  for (PGconn* c : {p.get(), pg.get()}) {
    PGresult* r = PQprepare(c, "copy",
                            "INSERT INTO t (v, n) SELECT v || $1, n + $2 FROM t WHERE n < $2 ORDER "
                            "BY id RETURNING id, v",
                            2, nullptr);
    ASSERT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQerrorMessage(c);
    PQclear(r);
  }
  for (const char* n : {"3", "5"}) {
    const char* values[] = {"-copy", n};
    EXPECT_EQ(outcome(p.get(), PQexecPrepared(p.get(), "copy", 2, values, nullptr, nullptr, 0))
                  .describe(),
              outcome(pg.get(), PQexecPrepared(pg.get(), "copy", 2, values, nullptr, nullptr, 0))
                  .describe());
  }
  {
    // A value in the binary format (pgjdbc's integers) is written in as its text.
    uint32_t n_be = htonl(4u);
    const char* values[] = {"-bin", reinterpret_cast<const char*>(&n_be)};
    int lengths[] = {0, 4};
    int formats[] = {0, 1};
    EXPECT_EQ(outcome(p.get(), PQexecPrepared(p.get(), "copy", 2, values, lengths, formats, 0))
                  .describe(),
              outcome(pg.get(), PQexecPrepared(pg.get(), "copy", 2, values, lengths, formats, 0))
                  .describe());
  }
  // A script of INSERTs in one query string (psycopg2's execute_batch).
  const std::string script =
      "INSERT INTO t (v) VALUES ('s1'); INSERT INTO t (v, n) VALUES ('s2', 2), ('s3', 3);"
      "INSERT INTO t (v) VALUES ('s4')";
  EXPECT_EQ(run(p.get(), script).describe(), run(pg.get(), script).describe());
  const std::string all = "SELECT id, v, n FROM t ORDER BY id";
  EXPECT_EQ(run(p.get(), all).describe(), run(pg.get(), all).describe());
  for (const auto& [key, shard] : keys_on_shards("t")) {
    EXPECT_EQ(shard, shard_for(p.get(), "t", key)) << "key " << key;
  }
}

TEST_F(GeneratedKeyTest, UuidKeys) {
  ProxyConfig cfg = make_config("genkey_uuid", 100);
  auto proxy = start(cfg);
  auto c = connect(proxy->dsn());
  must(c.get(), "CREATE TABLE u (id uuid DEFAULT gen_random_uuid() PRIMARY KEY, v int NOT NULL)");
  must(c.get(),
       "ALTER TABLE u SPLIT AT VALUES ('55555555-0000-0000-0000-000000000000'), "
       "('aaaaaaaa-0000-0000-0000-000000000000')");
  must(c.get(), "ALTER TABLE u SCATTER");
  std::set<std::string> returned;
  for (int s = 0; s < 20; ++s) {
    std::string sql = "INSERT INTO u (v) VALUES ";
    for (int r = 0; r < 10; ++r) sql += (r > 0 ? ", (" : "(") + std::to_string(s * 10 + r) + ")";
    Outcome o = must(c.get(), sql + " RETURNING id");
    EXPECT_EQ(o.tag, "INSERT 0 10");
    for (const auto& row : o.rows) returned.insert(row[0]);
  }
  ASSERT_EQ(returned.size(), 200u);
  std::regex v4("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  auto where = keys_on_shards("u");
  EXPECT_EQ(where.size(), 200u);
  std::set<std::string> shards_used;
  for (const auto& id : returned) {
    EXPECT_TRUE(std::regex_match(id, v4)) << id;
    ASSERT_TRUE(where.count(id)) << id;
    EXPECT_EQ(where[id], shard_for(c.get(), "u", "'" + id + "'")) << id;
    shards_used.insert(where[id]);
  }
  EXPECT_EQ(shards_used.size(), 3u);
}

}  // namespace
}  // namespace pgrange::testing
