// Keys pgrange makes itself over a table split into ranges on three real PostgreSQL shards:
//  - ConcurrentInsertsThroughTwoInstances: four clients on two pgrange processes sharing one
//    metadata store insert hundreds of rows into a bigserial-keyed table, leaving the key out;
//    every key is unique, RETURNING gives the key stored, and each row sits on the shard the
//    range map gives its key (read on the shards directly).
//  - SameAnswersAsPostgres: identity, serial and bounded sequences compared statement by
//    statement with one plain PostgreSQL: rows, RETURNING, command tags and errors (428C9,
//    2200H).
//  - UuidKeys: DEFAULT gen_random_uuid() keys are made by pgrange and land where they belong.
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

Outcome run(PGconn* c, const std::string& sql) {
  PGresult* res = PQexec(c, sql.c_str());
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

TEST_F(GeneratedKeyTest, SameAnswersAsPostgres) {
  ProxyConfig cfg = make_config("genkey_diff", 5);
  auto proxy = start(cfg);
  auto p = connect(proxy->dsn());
  servers_[0]->exec("CREATE DATABASE genkey_plain");
  auto pg = connect(servers_[0]->dsn("genkey_plain"));

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
  };
  for (const auto& s : statements) {
    SCOPED_TRACE(s);
    Outcome want = run(pg.get(), s);
    Outcome got = run(p.get(), s);
    EXPECT_EQ(got.describe(), want.describe()) << proxy->log_tail(2000);
  }
  // The errors compared are those of PostgreSQL, not a refusal of pgrange's.
  EXPECT_EQ(run(p.get(), "INSERT INTO a (id, v) VALUES (100, 'no')").sqlstate, "428C9");
  EXPECT_EQ(run(p.get(), "INSERT INTO e (v) VALUES ('e7')").sqlstate, "2200H");

  // A sequence function inside other work is refused, not run on one shard's sequence.
  EXPECT_EQ(run(p.get(), "SELECT nextval('c_id_seq') + 1").sqlstate, "0A000");
  EXPECT_EQ(run(p.get(), "SELECT id, nextval('b_id_seq') FROM b").sqlstate, "0A000");

  // Each row sits where the range map puts it.
  for (const std::string t : {"a", "b", "c", "d", "e"}) {
    for (const auto& [key, shard] : keys_on_shards(t)) {
      EXPECT_EQ(shard, shard_for(p.get(), t, key)) << t << " key " << key;
    }
  }

  // Through the extended protocol such an INSERT is refused, not run with a shard's default.
  const char* values[] = {"x"};
  PGresult* r = PQexecParams(p.get(), "INSERT INTO c (v) VALUES ($1) RETURNING id", 1, nullptr,
                             values, nullptr, nullptr, 0);
  const char* st = PQresultErrorField(r, PG_DIAG_SQLSTATE);
  EXPECT_STREQ(st ? st : "", "0A000");
  PQclear(r);
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
