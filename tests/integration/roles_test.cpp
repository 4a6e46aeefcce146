// Users are roles: pgrange over three PostgreSQL 15 shards whose DSNs name no user, so that
// each client logs in to the shards as its own role (SCRAM pass-through, a plaintext password,
// or a mapped server_user), while pgrange's own connections use internal_user. Privileges,
// row-level security, current_user and 42501 are then PostgreSQL's own; pgrange's own objects
// and admin statements are out of reach of roles without admin = true.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/support/pg_server.hpp"
#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {
namespace {

constexpr int kShards = 3;
constexpr const char* kSuperPassword = "superpw";

class RolesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (int i = 0; i < kShards; ++i) {
      PgServer::Options o;
      o.host_auth = "scram-sha-256";
      o.superuser_password = kSuperPassword;
      servers_[i] = PgServer::start(o).release();
    }
    // The application role's SCRAM verifier is the same on every shard (set from the first's):
    // pgrange logs in to the shards with the proof of the client's own SCRAM login.
    servers_[0]->exec(
        "SET password_encryption = 'scram-sha-256'; "
        "CREATE ROLE app LOGIN PASSWORD 'secret'");
    app_verifier_ = servers_[0]->exec("SELECT rolpassword FROM pg_authid WHERE rolname = 'app'");
    // A role pgrange's configuration does not list: auth_query finds its verifier.
    servers_[0]->exec(
        "SET password_encryption = 'scram-sha-256'; "
        "CREATE ROLE analyst LOGIN PASSWORD 'an-pw'");
    std::string analyst =
        servers_[0]->exec("SELECT rolpassword FROM pg_authid WHERE rolname = 'analyst'");
    for (int i = 0; i < kShards; ++i) {
      if (i > 0) servers_[i]->exec("CREATE ROLE app LOGIN PASSWORD '" + app_verifier_ + "'");
      if (i > 0) servers_[i]->exec("CREATE ROLE analyst LOGIN PASSWORD '" + analyst + "'");
      servers_[i]->exec("CREATE ROLE reader LOGIN PASSWORD 'readpw'");
      servers_[i]->exec("CREATE ROLE ops LOGIN CREATEROLE PASSWORD 'opspw'");
      servers_[i]->exec("CREATE DATABASE app OWNER app");
    }
    std::string toml =
        "database = \"app\"\nworkers = 2\nlog_level = \"debug\"\ninternal_user = \"postgres\"\n"
        "auth_query = \"SELECT usename, passwd FROM pg_shadow WHERE usename=$1\"\n"
        "internal_password = \"" +
        std::string(kSuperPassword) + "\"\n[ranges]\nauto_split = false\nrebalance = false\n";
    for (int i = 0; i < kShards; ++i) {
      toml +=
          "\n[[shard]]\nname = \"s" + std::to_string(i + 1) +
          "\"\npool_size = 4\ndsn = \"host=127.0.0.1 port=" + std::to_string(servers_[i]->port()) +
          " dbname=app\"\n";
    }
    toml += "\n[[user]]\nname = \"app\"\npassword = \"" + app_verifier_ + "\"\n";
    toml += "\n[[user]]\nname = \"reader\"\npassword = \"readpw\"\n";
    toml +=
        "\n[[user]]\nname = \"report\"\npassword = \"reportpw\"\nserver_user = \"reader\"\n"
        "server_password = \"readpw\"\n";
    toml +=
        "\n[[user]]\nname = \"stale\"\npassword = \"stalepw\"\nserver_user = \"reader\"\n"
        "server_password = \"not-the-password\"\n";
    toml += "\n[[user]]\nname = \"ops\"\npassword = \"opspw\"\nadmin = true\n";
    proxy_ = ProxyProcess::start_toml(toml).release();

    auto app = connect("app", "secret");
    for (const char* sql : {
             "CREATE TABLE items (id int8 PRIMARY KEY, owner text NOT NULL, v int NOT NULL)",
             "GRANT SELECT ON items TO reader",
             "GRANT SELECT ON items TO analyst",
         }) {
      SqlResult r = pq_exec(app.get(), sql);
      ASSERT_TRUE(r.ok()) << sql << ": " << r.message;
    }
    auto ops = connect("ops", "opspw");
    for (const char* sql :
         {"ALTER TABLE items SPLIT AT VALUES (100), (200)", "ALTER TABLE items SCATTER"}) {
      SqlResult r = pq_exec(ops.get(), sql);
      ASSERT_TRUE(r.ok()) << sql << ": " << r.message;
    }
    SqlResult filled = pq_exec(
        app.get(),
        "INSERT INTO items SELECT g, CASE WHEN g % 3 = 0 THEN 'public' ELSE 'private' END, g % 10 "
        "FROM generate_series(1, 300) g");
    ASSERT_TRUE(filled.ok()) << filled.message;
  }
  static void TearDownTestSuite() {
    delete proxy_;
    proxy_ = nullptr;
    for (auto*& s : servers_) {
      delete s;
      s = nullptr;
    }
  }

  static PgConnPtr connect(const std::string& user, const std::string& password) {
    return pq_connect(proxy_->dsn(user, password));
  }
  static PgConnPtr connected(const std::string& user, const std::string& password) {
    PgConnPtr c = connect(user, password);
    EXPECT_EQ(PQstatus(c.get()), CONNECTION_OK) << user << ": " << PQerrorMessage(c.get());
    return c;
  }
  /// The first value `sql` reads on shard `i` directly (as postgres).
  static std::string on_shard(int i, const std::string& sql) {
    return servers_[i]->exec(sql, "app");
  }

  static PgServer* servers_[kShards];
  static ProxyProcess* proxy_;
  static std::string app_verifier_;
};

PgServer* RolesTest::servers_[kShards] = {};
ProxyProcess* RolesTest::proxy_ = nullptr;
std::string RolesTest::app_verifier_;

TEST_F(RolesTest, TheRowsAreSpreadOverEveryShard) {
  for (int i = 0; i < kShards; ++i) {
    EXPECT_GT(std::stoi(on_shard(i, "SELECT count(*) FROM items")), 0) << "shard " << i;
  }
}

TEST_F(RolesTest, AClientIsItsOwnRoleAndNoSuperuser) {
  auto app = connected("app", "secret");
  SqlResult who = pq_exec(app.get(),
                          "SELECT current_user, session_user, "
                          "(SELECT rolsuper FROM pg_roles WHERE rolname = current_user)");
  ASSERT_TRUE(who.ok()) << who.message;
  EXPECT_EQ(who.at(0, 0), "app");
  EXPECT_EQ(who.at(0, 1), "app");
  EXPECT_EQ(who.at(0, 2), "f");
  for (const char* sql :
       {"SELECT pg_read_file('/etc/passwd')", "COPY (SELECT 1) TO PROGRAM 'id'"}) {
    SqlResult r = pq_exec(app.get(), sql);
    EXPECT_EQ(r.sqlstate, "42501") << sql << ": " << r.message;
  }
  // pgrange's own connections (the internal role, a superuser here) are out of its reach.
  SqlResult kill = pq_exec(app.get(),
                           "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                           "WHERE usename = 'postgres' AND pid <> pg_backend_pid()");
  EXPECT_EQ(kill.sqlstate, "42501") << kill.message;
  SqlResult still = pq_exec(app.get(), "SELECT count(*) FROM items");
  ASSERT_TRUE(still.ok()) << still.message;
  EXPECT_EQ(still.at(), "300");
}

TEST_F(RolesTest, AReadOnlyRoleReadsEveryShardAndWritesNothing) {
  for (auto [user, password] : {std::pair{"reader", "readpw"}, std::pair{"report", "reportpw"}}) {
    auto c = connected(user, password);
    SqlResult who = pq_exec(c.get(), "SELECT current_user");
    EXPECT_EQ(who.at(), "reader") << user;  // report logs in to the shards as reader
    SqlResult n = pq_exec(c.get(), "SELECT count(*), sum(v) FROM items");
    ASSERT_TRUE(n.ok()) << user << ": " << n.message;
    EXPECT_EQ(n.at(0, 0), "300");
    EXPECT_EQ(n.at(0, 1), "1350");
    SqlResult top = pq_exec(c.get(), "SELECT id FROM items ORDER BY id DESC LIMIT 2");
    ASSERT_EQ(top.rows.size(), 2u) << top.message;
    EXPECT_EQ(top.at(0), "300");
    for (const char* sql :
         {"INSERT INTO items VALUES (1000, 'x', 1)", "UPDATE items SET v = 0 WHERE id = 150",
          "DELETE FROM items WHERE id > 250", "CREATE INDEX ON items (owner)"}) {
      SqlResult r = pq_exec(c.get(), sql);
      EXPECT_EQ(r.sqlstate, "42501") << user << ": " << sql << ": " << r.message;
    }
  }
  auto app = connected("app", "secret");
  EXPECT_EQ(pq_exec(app.get(), "SELECT count(*) FROM items WHERE id >= 1000").at(), "0");
}

TEST_F(RolesTest, RowLevelSecurityFiltersOnEveryShardAlike) {
  auto app = connected("app", "secret");
  for (const char* sql : {"CREATE TABLE notes (id int8 PRIMARY KEY, owner text, body text)",
                          "ALTER TABLE notes ENABLE ROW LEVEL SECURITY",
                          "CREATE POLICY readers_see_public ON notes FOR SELECT TO reader "
                          "USING (owner = 'public')",
                          "GRANT SELECT ON notes TO reader"}) {
    SqlResult r = pq_exec(app.get(), sql);
    ASSERT_TRUE(r.ok()) << sql << ": " << r.message;
  }
  auto ops = connected("ops", "opspw");
  ASSERT_TRUE(pq_exec(ops.get(), "ALTER TABLE notes SPLIT AT VALUES (100), (200)").ok());
  ASSERT_TRUE(pq_exec(ops.get(), "ALTER TABLE notes SCATTER").ok());
  SqlResult filled = pq_exec(app.get(),
                             "INSERT INTO notes SELECT g, CASE WHEN g % 4 = 0 THEN 'public' ELSE "
                             "'private' END, 'note ' || g FROM generate_series(1, 300) g");
  ASSERT_TRUE(filled.ok()) << filled.message;
  for (int i = 0; i < kShards; ++i) {
    EXPECT_EQ(
        on_shard(i, "SELECT count(*) > 0 FROM pg_policy WHERE polname = 'readers_see_public'"),
        "t");
    EXPECT_GT(std::stoi(on_shard(i, "SELECT count(*) FROM notes WHERE owner = 'public'")), 0);
  }
  auto reader = connected("reader", "readpw");
  SqlResult seen =
      pq_exec(reader.get(), "SELECT count(*), count(DISTINCT owner), min(owner) FROM notes");
  ASSERT_TRUE(seen.ok()) << seen.message;
  EXPECT_EQ(seen.at(0, 0), "75");
  EXPECT_EQ(seen.at(0, 1), "1");
  EXPECT_EQ(seen.at(0, 2), "public");
  SqlResult last = pq_exec(reader.get(), "SELECT id FROM notes ORDER BY id DESC LIMIT 1");
  EXPECT_EQ(last.at(), "300");
  SqlResult hidden = pq_exec(reader.get(), "SELECT count(*) FROM notes WHERE id = 299");
  EXPECT_EQ(hidden.at(), "0");
  // The owner sees every row.
  EXPECT_EQ(pq_exec(app.get(), "SELECT count(*) FROM notes").at(), "300");
}

TEST_F(RolesTest, AdminStatementsNeedAdmin) {
  auto app = connected("app", "secret");
  for (const char* sql : {"ALTER TABLE items SPLIT AT VALUES (50)", "ALTER TABLE items UNSPLIT ALL",
                          "ALTER TABLE items SCATTER", "ALTER RANGE 2 RELOCATE TO 's2'",
                          "IMPORT TABLE items", "ALTER SHARD s1 DRAIN", "CANCEL JOB 1"}) {
    SqlResult r = pq_exec(app.get(), sql);
    EXPECT_EQ(r.sqlstate, "42501") << sql << ": " << r.message;
    EXPECT_NE(r.message.find("admin = true"), std::string::npos) << r.message;
  }
  // Reading the ranges is every user's.
  SqlResult ranges = pq_exec(app.get(), "SHOW RANGES FROM TABLE items");
  ASSERT_TRUE(ranges.ok()) << ranges.message;
  EXPECT_EQ(ranges.rows.size(), 3u);
  EXPECT_TRUE(pq_exec(app.get(), "SHOW SHARDS").ok());
  // The session goes on.
  EXPECT_EQ(pq_exec(app.get(), "SELECT count(*) FROM items").at(), "300");
}

TEST_F(RolesTest, GlobalIndexesWorkForEveryRoleAndTheirTablesAreOutOfReach) {
  auto app = connected("app", "secret");
  ASSERT_TRUE(pq_exec(app.get(), "CREATE TABLE tags (id int8 PRIMARY KEY, tag text, n int)").ok());
  auto ops = connected("ops", "opspw");
  ASSERT_TRUE(pq_exec(ops.get(), "ALTER TABLE tags SPLIT AT VALUES (100), (200)").ok());
  ASSERT_TRUE(pq_exec(ops.get(), "ALTER TABLE tags SCATTER").ok());
  ASSERT_TRUE(pq_exec(app.get(),
                      "INSERT INTO tags SELECT g, 't' || (g % 7), g FROM "
                      "generate_series(1, 300) g")
                  .ok());
  SqlResult made = pq_exec(app.get(), "CREATE INDEX tags_tag ON tags (tag)");
  ASSERT_TRUE(made.ok()) << made.message;
  // The index table is pgrange's; the table's writers may write it (pgrange writes a write's
  // entries in its transaction, as its role), its readers read it, nobody else.
  for (int i = 0; i < kShards; ++i) {
    EXPECT_EQ(
        on_shard(i,
                 "SELECT pg_get_userbyid(relowner) FROM pg_class WHERE relname = 'tags@tags_tag'"),
        "postgres");
    EXPECT_EQ(on_shard(i, "SELECT has_table_privilege('app', '\"tags@tags_tag\"', 'INSERT')"), "t");
    EXPECT_EQ(on_shard(i, "SELECT has_table_privilege('reader', '\"tags@tags_tag\"', 'SELECT')"),
              "f");
  }
  SqlResult written = pq_exec(app.get(), "UPDATE tags SET tag = 'moved' WHERE id IN (5, 150, 250)");
  ASSERT_TRUE(written.ok()) << written.message;
  SqlResult found = pq_exec(app.get(), "SELECT id FROM tags WHERE tag = 'moved' ORDER BY id");
  ASSERT_EQ(found.rows.size(), 3u) << found.message;
  EXPECT_EQ(found.at(2), "250");

  // A GRANT follows onto the index table: the reader reads through the index.
  ASSERT_TRUE(pq_exec(app.get(), "GRANT SELECT ON tags TO reader").ok());
  for (int i = 0; i < kShards; ++i) {
    EXPECT_EQ(on_shard(i, "SELECT has_table_privilege('reader', '\"tags@tags_tag\"', 'SELECT')"),
              "t");
    EXPECT_EQ(on_shard(i, "SELECT has_table_privilege('reader', '\"tags@tags_tag\"', 'INSERT')"),
              "f");
  }
  auto reader = connected("reader", "readpw");
  SqlResult read = pq_exec(reader.get(), "SELECT count(*) FROM tags WHERE tag = 'moved'");
  ASSERT_TRUE(read.ok()) << read.message;
  EXPECT_EQ(read.at(), "3");
  SqlResult drop = pq_exec(reader.get(), "DROP INDEX tags_tag");
  EXPECT_EQ(drop.sqlstate, "42501") << drop.message;
  ASSERT_TRUE(pq_exec(app.get(), "REVOKE SELECT ON tags FROM reader").ok());
  EXPECT_EQ(on_shard(1, "SELECT has_table_privilege('reader', '\"tags@tags_tag\"', 'SELECT')"),
            "f");
  // In a transaction block (psycopg2's way): they follow once it commits, not if it rolls back.
  for (const char* end : {"ROLLBACK", "COMMIT"}) {
    ASSERT_TRUE(pq_exec(app.get(), "BEGIN").ok());
    SqlResult g = pq_exec(app.get(), "GRANT INSERT, SELECT ON tags TO reader");
    ASSERT_TRUE(g.ok()) << g.message;
    ASSERT_TRUE(pq_exec(app.get(), end).ok());
    std::string want = std::string(end) == "COMMIT" ? "t" : "f";
    for (int i = 0; i < kShards; ++i) {
      EXPECT_EQ(on_shard(i, "SELECT has_table_privilege('reader', '\"tags@tags_tag\"', 'INSERT')"),
                want)
          << end;
    }
  }
  SqlResult by_reader = pq_exec(reader.get(), "INSERT INTO tags VALUES (1000, 'by-reader', 0)");
  ASSERT_TRUE(by_reader.ok()) << by_reader.message;  // its index entry written as reader
  EXPECT_EQ(pq_exec(reader.get(), "SELECT id FROM tags WHERE tag = 'by-reader'").at(), "1000");
  ASSERT_TRUE(pq_exec(app.get(), "REVOKE ALL ON tags FROM reader").ok());

  // pgrange's own objects, named through pgrange by a user without admin: 42501.
  for (const char* sql :
       {"SELECT * FROM \"tags@tags_tag\"", "DELETE FROM \"tags@tags_tag\"",
        "SELECT t.id FROM tags t JOIN \"tags@tags_tag\" i ON i.id = t.id",
        "COPY \"tags@tags_tag\" TO STDOUT", "DROP TABLE \"tags@tags_tag\"",
        "DROP TRIGGER pgrange_index ON tags", "ALTER TABLE tags DISABLE TRIGGER pgrange_index",
        "ALTER TABLE tags DISABLE  TRIGGER   ALL", "ALTER TABLE tags DISABLE TRIGGER USER"}) {
    SqlResult r = pq_exec(app.get(), sql);
    EXPECT_EQ(r.sqlstate, "42501") << sql << ": " << r.message;
  }
  for (int i = 0; i < kShards; ++i) {
    EXPECT_EQ(on_shard(i,
                       "SELECT count(*) FROM pg_trigger WHERE tgname = 'pgrange_index' AND "
                       "tgenabled = 'O'"),
              "1");
  }
  // Through the extended protocol too.
  SqlResult ext =
      take_result(PQexecParams(app.get(), "SELECT count(*) FROM \"tags@tags_tag\" WHERE id > $1", 1,
                               nullptr, std::vector<const char*>{"0"}.data(), nullptr, nullptr, 0),
                  app.get());
  EXPECT_EQ(ext.sqlstate, "42501") << ext.message;
  // The index still answers, and its entries are all there.
  SqlResult all = pq_exec(app.get(), "SELECT count(*) FROM tags WHERE tag = 't3'");
  ASSERT_TRUE(all.ok()) << all.message;
  int64_t direct = 0;
  for (int i = 0; i < kShards; ++i) {
    direct += std::stoll(on_shard(i, "SELECT count(*) FROM tags WHERE tag = 't3'"));
  }
  EXPECT_EQ(all.at(), std::to_string(direct));
}

TEST_F(RolesTest, RolesAreMadeAndDroppedOnEveryServer) {
  auto ops = connected("ops", "opspw");
  auto everywhere = [](const std::string& sql) {
    std::vector<std::string> out;
    for (int i = 0; i < kShards; ++i) out.push_back(servers_[i]->exec(sql));
    return out;
  };
  using Values = std::vector<std::string>;
  SqlResult made = pq_exec(ops.get(), "CREATE ROLE auditor LOGIN PASSWORD 'a'");
  ASSERT_TRUE(made.ok()) << made.message;
  EXPECT_EQ(everywhere("SELECT count(*) FROM pg_roles WHERE rolname = 'auditor'"),
            (Values{"1", "1", "1"}));
  ASSERT_TRUE(pq_exec(ops.get(), "ALTER ROLE auditor NOLOGIN").ok());
  EXPECT_EQ(everywhere("SELECT rolcanlogin FROM pg_roles WHERE rolname = 'auditor'"),
            (Values{"f", "f", "f"}));
  // Inside a transaction block: every server's part commits with the block.
  ASSERT_TRUE(pq_exec(ops.get(), "BEGIN").ok());
  SqlResult in_block = pq_exec(ops.get(), "CREATE ROLE auditor2");
  ASSERT_TRUE(in_block.ok()) << in_block.message;
  ASSERT_TRUE(pq_exec(ops.get(), "COMMIT").ok());
  EXPECT_EQ(everywhere("SELECT count(*) FROM pg_roles WHERE rolname = 'auditor2'"),
            (Values{"1", "1", "1"}));
  // An error on one server leaves none with the role (CREATE ROLE is undone where it ran).
  servers_[2]->exec("CREATE ROLE clash");
  SqlResult clash = pq_exec(ops.get(), "CREATE ROLE clash");
  EXPECT_EQ(clash.sqlstate, "42710") << clash.message;
  EXPECT_EQ(everywhere("SELECT count(*) FROM pg_roles WHERE rolname = 'clash'"),
            (Values{"0", "0", "1"}));
  servers_[2]->exec("DROP ROLE clash");
  // PostgreSQL decides who may: app has no CREATEROLE.
  auto app = connected("app", "secret");
  EXPECT_EQ(pq_exec(app.get(), "CREATE ROLE nobody").sqlstate, "42501");
  ASSERT_TRUE(pq_exec(ops.get(), "DROP ROLE auditor, auditor2").ok());
  EXPECT_EQ(everywhere("SELECT count(*) FROM pg_roles WHERE rolname LIKE 'auditor%'"),
            (Values{"0", "0", "0"}));
}

TEST_F(RolesTest, AUserFoundByAuthQueryIsItsOwnRole) {
  // Not in the configuration: its SCRAM verifier comes from pg_shadow, its proof logs it in to
  // every shard (the same verifier there), with no password in pgrange's configuration.
  auto analyst = connected("analyst", "an-pw");
  EXPECT_EQ(pq_exec(analyst.get(), "SELECT current_user").at(), "analyst");
  SqlResult n = pq_exec(analyst.get(), "SELECT count(*) FROM items WHERE id > 0");
  ASSERT_TRUE(n.ok()) << n.message;
  EXPECT_EQ(n.at(), "300");
  EXPECT_EQ(pq_exec(analyst.get(), "DELETE FROM items").sqlstate, "42501");
  EXPECT_EQ(pq_exec(analyst.get(), "ALTER TABLE items SCATTER").sqlstate, "42501");  // no admin
  for (const char* wrong : {"an-pw ", "AN-PW"}) {
    PgConnPtr c = connect("analyst", wrong);
    EXPECT_NE(PQstatus(c.get()), CONNECTION_OK);
    EXPECT_NE(std::string(PQerrorMessage(c.get()))
                  .find("password authentication failed for user \"analyst\""),
              std::string::npos)
        << PQerrorMessage(c.get());
  }
}

TEST_F(RolesTest, WrongPasswordsAreRefused) {
  for (auto [user, password] :
       {std::pair{"app", "wrong"}, std::pair{"reader", "readpw2"}, std::pair{"nosuchuser", "x"}}) {
    PgConnPtr c = connect(user, password);
    EXPECT_NE(PQstatus(c.get()), CONNECTION_OK) << user;
    EXPECT_NE(std::string(PQerrorMessage(c.get())).find("password authentication failed"),
              std::string::npos)
        << user << ": " << PQerrorMessage(c.get());
  }
  // The client's password is right, the shards refuse the mapped role's: PostgreSQL's 28P01,
  // naming the shard.
  PgConnPtr stale = connect("stale", "stalepw");
  EXPECT_NE(PQstatus(stale.get()), CONNECTION_OK);
  std::string message = PQerrorMessage(stale.get());
  EXPECT_NE(message.find("password authentication failed for user \"reader\""), std::string::npos)
      << message;
  EXPECT_NE(message.find("shard \"s1\""), std::string::npos) << message;
  // Everybody else goes on.
  auto app = connected("app", "secret");
  EXPECT_EQ(pq_exec(app.get(), "SELECT count(*) FROM items").at(), "300");
}

TEST_F(RolesTest, SequencesPgrangeAnswersNeedPostgresRights) {
  // pgrange hands out a spread table's generated keys from its own cluster-wide sequences: only
  // to roles PostgreSQL would let call nextval() of the table's sequence.
  auto app = connected("app", "secret");
  ASSERT_TRUE(pq_exec(app.get(), "CREATE TABLE events (id bigserial PRIMARY KEY, what text)").ok());
  ASSERT_TRUE(pq_exec(app.get(), "GRANT SELECT, INSERT ON events TO reader").ok());
  auto ops = connected("ops", "opspw");
  ASSERT_TRUE(pq_exec(ops.get(), "ALTER TABLE events SPLIT AT VALUES (1000), (2000)").ok());
  ASSERT_TRUE(pq_exec(ops.get(), "ALTER TABLE events SCATTER").ok());
  auto reader = connected("reader", "readpw");
  SqlResult denied = pq_exec(reader.get(), "INSERT INTO events (what) VALUES ('x') RETURNING id");
  EXPECT_EQ(denied.sqlstate, "42501") << denied.message;
  EXPECT_NE(denied.message.find("events_id_seq"), std::string::npos) << denied.message;
  EXPECT_EQ(pq_exec(reader.get(), "SELECT nextval('events_id_seq')").sqlstate, "42501");
  // Inside a transaction block: the block fails as PostgreSQL's would, and the session goes on.
  ASSERT_TRUE(pq_exec(reader.get(), "BEGIN").ok());
  EXPECT_EQ(pq_exec(reader.get(), "SELECT count(*) FROM events").at(), "0");
  EXPECT_EQ(pq_exec(reader.get(), "INSERT INTO events (what) VALUES ('x')").sqlstate, "42501");
  EXPECT_EQ(pq_exec(reader.get(), "SELECT count(*) FROM events").sqlstate, "25P02");
  ASSERT_TRUE(pq_exec(reader.get(), "ROLLBACK").ok());
  EXPECT_EQ(pq_exec(reader.get(), "SELECT setval('events_id_seq', 5000)").sqlstate, "42501");
  SqlResult mine = pq_exec(app.get(), "INSERT INTO events (what) VALUES ('a') RETURNING id");
  ASSERT_TRUE(mine.ok()) << mine.message;
  // Granted: the same session goes on.
  ASSERT_TRUE(pq_exec(app.get(), "GRANT USAGE ON SEQUENCE events_id_seq TO reader").ok());
  SqlResult allowed = pq_exec(reader.get(), "INSERT INTO events (what) VALUES ('y') RETURNING id");
  ASSERT_TRUE(allowed.ok()) << allowed.message;
  EXPECT_GT(std::stoll(allowed.at()), std::stoll(mine.at()));
  EXPECT_EQ(pq_exec(reader.get(), "SELECT setval('events_id_seq', 5000)").sqlstate, "42501");
  EXPECT_EQ(pq_exec(app.get(), "SELECT count(*) FROM events").at(), "2");
}

TEST_F(RolesTest, TheLogHoldsNoPasswordVerifierOrKey) {
  // Every test above ran with log_level = debug; none of what proves a role may be written.
  std::string log = proxy_->log();
  ASSERT_NE(log.find("logged in"), std::string::npos);  // the debug lines are there
  std::string keys = app_verifier_.substr(app_verifier_.find('$', 14) + 1);
  for (const std::string& secret :
       {std::string(kSuperPassword), std::string("readpw"), std::string("opspw"),
        std::string("reportpw"), std::string("not-the-password"), std::string("an-pw"),
        app_verifier_, keys.substr(0, keys.find(':')), keys.substr(keys.find(':') + 1)}) {
    EXPECT_EQ(log.find(secret), std::string::npos) << secret;
  }
}

}  // namespace
}  // namespace pgrange::testing
