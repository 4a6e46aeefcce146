// DDL through the extended query protocol (what JDBC and every driver that prepares sends) over
// three real PostgreSQL 15 shards, against one plain PostgreSQL (database "ref") running the
// same messages: PQexecParams, PQprepare/PQexecPrepared, PQdescribePrepared and libpq's
// pipeline mode. The catalog follows (SHOW RANGES, SPLIT AT, rows across shards, an added
// column, a global index); errors keep PostgreSQL's SQLSTATE and its rule of skipping to the
// Sync. DDL inside every kind of block runs in its transaction; the statements PostgreSQL
// refuses inside a transaction block get its own 25001. pgrange's admin statements run through
// the extended protocol as through the simple one.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <optional>
#include <string>
#include <vector>

#include "tests/support/raw_protocol.hpp"
#include "tests/support/side_by_side.hpp"

namespace pgrange::testing {
namespace {

/// A statement's outcome as the client sees it: the command tag, or ERROR and the SQLSTATE
/// (its message too, with `message`), or the result status when it is neither.
std::string outcome(PGresult* res, bool message = false) {
  std::string s;
  ExecStatusType st = PQresultStatus(res);
  if (st == PGRES_COMMAND_OK) {
    s = PQcmdStatus(res);
  } else if (st == PGRES_TUPLES_OK) {
    s = std::string(PQcmdStatus(res)) + ":";
    for (int r = 0; r < PQntuples(res); ++r) {
      for (int c = 0; c < PQnfields(res); ++c) {
        s += std::string(c == 0 ? " " : "|") +
             (PQgetisnull(res, r, c) ? "<null>" : PQgetvalue(res, r, c));
      }
    }
  } else if (st == PGRES_FATAL_ERROR) {
    const char* code = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    s = std::string("ERROR ") + (code ? code : "?");
    if (message) s += std::string(" ") + PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
  } else {
    s = PQresStatus(st);
  }
  return s;
}

/// PQexecParams of `sql` with text parameters.
std::string exec_params(PGconn* c, const std::string& sql, std::vector<std::string> params = {},
                        bool message = false) {
  std::vector<const char*> values;
  for (const auto& p : params) values.push_back(p.c_str());
  PGresult* res = PQexecParams(c, sql.c_str(), static_cast<int>(values.size()), nullptr,
                               values.data(), nullptr, nullptr, 0);
  std::string s = outcome(res, message);
  PQclear(res);
  return s;
}

/// Sends `statements` in one pipeline (each Parse/Bind/Describe/Execute, one Sync at the end):
/// each one's outcome, then what the Sync brought, then whether the connection still answers.
std::vector<std::string> pipeline(PGconn* c, const std::vector<std::string>& statements) {
  std::vector<std::string> out;
  if (PQenterPipelineMode(c) != 1) return {"cannot enter pipeline mode"};
  for (const auto& sql : statements) {
    if (PQsendQueryParams(c, sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0) != 1) {
      out.push_back(std::string("cannot send: ") + PQerrorMessage(c));
    }
  }
  if (PQpipelineSync(c) != 1) out.push_back("cannot sync");
  for (size_t i = 0; i < statements.size(); ++i) {
    PGresult* res = PQgetResult(c);
    if (res == nullptr) {
      out.push_back("no result");
      continue;
    }
    out.push_back(outcome(res));
    PQclear(res);
    if (PGresult* end = PQgetResult(c)) {  // the NULL that ends each statement's results
      out.push_back("unexpected " + outcome(end));
      PQclear(end);
    }
  }
  PGresult* sync = PQgetResult(c);
  out.push_back(sync ? outcome(sync) : "no sync");
  PQclear(sync);
  if (PQexitPipelineMode(c) != 1) out.push_back(std::string("stuck: ") + PQerrorMessage(c));
  out.push_back(exec_params(c, "SELECT 1"));
  return out;
}

class ExtendedDdlTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ShardCluster::Options o;
    o.databases = {"app", "ref"};
    cluster_ = ShardCluster::start(o).release();
    SideBySide s(*cluster_);
    s.both("CREATE TABLE a (id int8 PRIMARY KEY, v text, n int)");
    s.both("INSERT INTO a SELECT g, 'a' || g, g % 7 FROM generate_series(1, 100) g");
    s.spread("a", "(50), (75)");
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override { s_.emplace(*cluster_); }

  /// Runs `sql` through PQexecParams on pgrange and on the reference: the same outcome.
  std::string both_params(const std::string& sql, std::vector<std::string> params = {}) {
    std::string got = exec_params(s_->pgrange(), sql, params, true);
    std::string want = exec_params(s_->reference(), sql, params, true);
    EXPECT_EQ(got, want) << sql;
    return got;
  }

  /// How many of the shards hold a relation of this name.
  int shards_holding(const std::string& relation) {
    int n = 0;
    for (const std::string& v : cluster_->on_each_shard(
             "SELECT count(*) FROM pg_class WHERE relname = '" + relation + "'")) {
      n += v == "1" ? 1 : 0;
    }
    return n;
  }

  static ShardCluster* cluster_;
  std::optional<SideBySide> s_;
};

ShardCluster* ExtendedDdlTest::cluster_ = nullptr;

TEST_F(ExtendedDdlTest, DdlThroughExecParamsAndTheCatalogFollows) {
  EXPECT_EQ(both_params("CREATE TABLE x (id int8 PRIMARY KEY, v text)"), "CREATE TABLE");
  EXPECT_EQ(shards_holding("x"), 3);
  // The catalog knows it: SHOW RANGES, SPLIT AT and SCATTER work on it, rows go by key.
  SqlResult ranges = pq_exec(s_->pgrange(), "SHOW RANGES FROM TABLE x");
  ASSERT_TRUE(ranges.ok()) << ranges.message;
  EXPECT_EQ(ranges.rows.size(), 1u) << outcome_text(ranges);
  s_->spread("x", "(100), (200)");
  for (int id : {5, 150, 250}) {
    std::string sql = "INSERT INTO x VALUES ($1, $2)";
    EXPECT_EQ(both_params(sql, {std::to_string(id), "v" + std::to_string(id)}), "INSERT 0 1");
  }
  // Each row on the shard that owns its range, one row per shard.
  EXPECT_EQ(cluster_->on_each_shard("SELECT count(*) FROM x"),
            (std::vector<std::string>{"1", "1", "1"}));
  s_->same("SELECT * FROM x ORDER BY id");

  EXPECT_EQ(both_params("ALTER TABLE x ADD COLUMN w int"), "ALTER TABLE");
  both_params("UPDATE x SET w = id * 2 WHERE id = $1", {"150"});
  both_params("INSERT INTO x VALUES ($1, $2, $3)", {"260", "v260", "7"});
  s_->same("SELECT id, v, w FROM x ORDER BY id");

  // A local index on every shard, a global index in pgrange's catalog.
  EXPECT_EQ(exec_params(s_->pgrange(), "CREATE INDEX x_v ON x (v) WITH (local = true)"),
            "CREATE INDEX");
  EXPECT_EQ(exec_params(s_->reference(), "CREATE INDEX x_v ON x (v)"), "CREATE INDEX");
  EXPECT_EQ(shards_holding("x_v"), 3);
  EXPECT_EQ(both_params("CREATE INDEX x_w ON x (w)"), "CREATE INDEX");
  SqlResult index_ranges = pq_exec(s_->pgrange(), "SHOW RANGES FROM INDEX x@x_w");
  EXPECT_TRUE(index_ranges.ok()) << index_ranges.message;
  both_params("INSERT INTO x VALUES ($1, $2, $3)", {"40", "v40", "300"});
  s_->same("SELECT id, v, w FROM x WHERE w = 300 ORDER BY id");
  s_->same("SELECT id, v, w FROM x WHERE w = 7");

  // A hash-sharded primary key (pgrange's own clause): one range per bucket.
  EXPECT_EQ(exec_params(s_->pgrange(),
                        "CREATE TABLE hs (id int8, v text, PRIMARY KEY (id) USING "
                        "HASH WITH (bucket_count = 4))"),
            "CREATE TABLE");
  SqlResult buckets = pq_exec(s_->pgrange(), "SHOW RANGES FROM TABLE hs");
  EXPECT_EQ(buckets.rows.size(), 4u) << outcome_text(buckets);
  for (int id = 1; id <= 20; ++id) {
    EXPECT_EQ(exec_params(s_->pgrange(), "INSERT INTO hs VALUES ($1, 'h')", {std::to_string(id)}),
              "INSERT 0 1");
  }
  EXPECT_EQ(exec_params(s_->pgrange(), "SELECT count(*), sum(id) FROM hs"), "SELECT 1: 20|210");
  EXPECT_EQ(exec_params(s_->pgrange(), "DROP TABLE hs"), "DROP TABLE");

  EXPECT_EQ(both_params("CREATE VIEW xv AS SELECT id, w FROM x WHERE w IS NOT NULL"),
            "CREATE VIEW");
  EXPECT_EQ(shards_holding("xv"), 3);
  s_->same("SELECT * FROM xv ORDER BY id");
  EXPECT_EQ(both_params("COMMENT ON TABLE x IS 'made through Parse/Bind/Execute'"), "COMMENT");
  EXPECT_EQ(cluster_->on_each_shard("SELECT obj_description('x'::regclass)"),
            std::vector<std::string>(3, "made through Parse/Bind/Execute"));
  EXPECT_EQ(both_params("DROP INDEX x_w"), "DROP INDEX");
  EXPECT_EQ(both_params("DROP VIEW xv"), "DROP VIEW");
  EXPECT_EQ(both_params("DROP TABLE x"), "DROP TABLE");
  EXPECT_EQ(shards_holding("x"), 0);
  SqlResult gone = pq_exec(s_->pgrange(), "SHOW RANGES FROM TABLE x");
  EXPECT_FALSE(gone.ok()) << "the catalog still knows table x";
}

TEST_F(ExtendedDdlTest, RepliesComeInPostgresKindsAndOrder) {
  std::vector<std::string> batches = {
      // The unnamed statement, described and executed, as libpq's PQexecParams sends it.
      parse("", "CREATE TABLE r1 (id int8 PRIMARY KEY)") + bind("", "") + describe('P', "") +
          execute("") + sync(),
      // A named one: described first (ParameterDescription, NoData), then run twice (the
      // second time PostgreSQL's notice: it is gone already).
      parse("drop_r1", "DROP TABLE IF EXISTS r1") + describe('S', "drop_r1") + sync(),
      bind("", "drop_r1") + execute("") + sync(),
      bind("", "drop_r1") + describe('P', "") + execute("") + sync(),
      // A parameter PostgreSQL refuses in DDL: the shards' own error, at the Execute.
      parse("", "CREATE TABLE r2 (a int DEFAULT $1)", {23}) + bind("", "", {"5"}) + execute("") +
          sync(),
      // More parameters than the statement has: PostgreSQL refuses the Bind itself.
      parse("two", "CREATE TABLE r2 (a int)") + bind("", "two", {"5"}) + describe('P', "") +
          execute("") + sync(),
      // A pipeline: the second CREATE fails, the rest is skipped until the Sync.
      parse("", "CREATE TABLE r3 (id int8 PRIMARY KEY)") + bind("", "") + execute("") +
          parse("", "CREATE TABLE r3 (id int8 PRIMARY KEY)") + bind("", "") + execute("") +
          parse("", "CREATE TABLE r4 (id int8 PRIMARY KEY)") + bind("", "") + execute("") + sync(),
      // Close of a statement and a portal, then DDL of a name that exists: 42P07.
      parse("mk", "CREATE TABLE a (id int8)") + bind("p", "mk") + execute("p") +
          RawClient::message('C', std::string("P") + "p" + '\0') +
          RawClient::message('C', std::string("S") + "mk" + '\0') + sync(),
  };
  std::vector<std::string> got = answers(cluster_->proxy().port(), "trustuser", "app", batches);
  std::vector<std::string> want = answers(cluster_->shard(0).port(), "postgres", "ref", batches);
  EXPECT_EQ(got, want);
  ASSERT_EQ(got.size(), batches.size());
  EXPECT_EQ(got[0], "1 2 n C(CREATE TABLE) ZI");
  EXPECT_EQ(got[1], "1 t n ZI");
  EXPECT_EQ(got[3], "2 n N C(DROP TABLE) ZI");
  EXPECT_EQ(got[5], "1 E08P01 ZI");
  EXPECT_EQ(got[6], "1 2 C(CREATE TABLE) 1 2 E42P07 ZI");
  EXPECT_EQ(shards_holding("r4"), 0);
  for (const char* t : {"r1", "r2", "r3", "r4"}) {
    std::string drop = std::string("DROP TABLE IF EXISTS ") + t;
    EXPECT_TRUE(pq_exec(s_->pgrange(), drop).ok());
    EXPECT_TRUE(pq_exec(s_->reference(), drop).ok());
  }
}

TEST_F(ExtendedDdlTest, AdminStatementsRunThroughTheExtendedProtocol) {
  // What a driver that prepares everything (pgjdbc's default) sends: SPLIT AT, SCATTER and
  // SHOW RANGES give the rows and tags they give as simple queries (checked against pgrange's
  // own simple-protocol answer: no PostgreSQL has these statements).
  PGconn* c = s_->pgrange();
  ASSERT_TRUE(pq_exec(c, "CREATE TABLE adm (id int8 PRIMARY KEY, v text)").ok());
  ASSERT_TRUE(pq_exec(c, "INSERT INTO adm SELECT g, 'v' FROM generate_series(1, 30) g").ok());
  std::string split = exec_params(c, "ALTER TABLE adm SPLIT AT VALUES (10), (20)", {}, true);
  EXPECT_EQ(split.substr(0, split.find(':')), "SELECT 2") << split;
  EXPECT_NE(split.find("/1/10|infinity "), std::string::npos) << split;
  EXPECT_EQ(exec_params(c, "ALTER TABLE adm SCATTER", {}, true).substr(0, 7), "SELECT ");
  const std::string show = "SHOW RANGES FROM TABLE adm";
  SqlResult simple = pq_exec(c, show);
  ASSERT_TRUE(simple.ok()) << simple.message;
  EXPECT_EQ(simple.rows.size(), 3u);
  std::string as_simple = simple.tag + ":";
  for (const auto& row : simple.rows) {
    for (size_t i = 0; i < row.size(); ++i) as_simple += (i == 0 ? " " : "|") + row[i];
  }
  EXPECT_EQ(exec_params(c, show), as_simple);
  // Prepared, and executed more than once.
  PGresult* prep = PQprepare(c, "ranges", show.c_str(), 0, nullptr);
  EXPECT_EQ(PQresultStatus(prep), PGRES_COMMAND_OK) << PQresultErrorMessage(prep);
  PQclear(prep);
  for (int i = 0; i < 2; ++i) {
    PGresult* res = PQexecPrepared(c, "ranges", 0, nullptr, nullptr, nullptr, 0);
    EXPECT_EQ(outcome(res), as_simple);
    PQclear(res);
  }
  // Binary results, as pgjdbc asks for them once it knows the columns: range_id an int8.
  PGresult* bin = PQexecParams(c, show.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 1);
  ASSERT_EQ(PQresultStatus(bin), PGRES_TUPLES_OK) << PQresultErrorMessage(bin);
  int id_col = PQfnumber(bin, "range_id");
  ASSERT_GE(id_col, 0);
  ASSERT_EQ(PQgetlength(bin, 0, id_col), 8);
  int64_t id = 0;
  for (int i = 0; i < 8; ++i) {
    id = (id << 8) | static_cast<unsigned char>(PQgetvalue(bin, 0, id_col)[i]);
  }
  EXPECT_EQ(std::to_string(id), simple.rows[0][static_cast<size_t>(id_col)]);
  PQclear(bin);
  // An unknown table: the error, and the connection goes on. In a block: PostgreSQL's 25001
  // for what cannot run in one.
  EXPECT_EQ(exec_params(c, "ALTER TABLE nope SPLIT AT VALUES (1)"), "ERROR 42P01");
  ASSERT_TRUE(pq_exec(c, "BEGIN").ok());
  EXPECT_EQ(exec_params(c, show), "ERROR 25001");
  ASSERT_TRUE(pq_exec(c, "ROLLBACK").ok());
  // The replies' kinds and order: RowDescription only for a described portal; in a pipeline
  // after an error, the rest is skipped to the Sync. (trustuser is no admin: its SCATTER gets
  // 42501, SHOW RANGES is every user's.)
  std::vector<std::string> got = answers(
      cluster_->proxy().port(), "trustuser", "app",
      {parse("", "SHOW RANGES FROM TABLE adm WITH DETAILS") + bind("", "") + execute("") + sync(),
       parse("", "ALTER TABLE nope SCATTER") + bind("", "") + execute("") + parse("", "SELECT 1") +
           bind("", "") + execute("") + sync(),
       parse("", "SELECT count(*) FROM adm") + bind("", "") + execute("") + sync()});
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].substr(0, 6), "1 2 D[") << got[0];
  EXPECT_EQ(got[0].substr(got[0].size() - 14), "C(SELECT 3) ZI") << got[0];
  EXPECT_EQ(got[1], "1 2 E42501 ZI");
  EXPECT_EQ(got[2], "1 2 D[30] C(SELECT 1) ZI");
  // A Describe of the statement itself: refused, and the connection goes on.
  PGresult* described = PQdescribePrepared(c, "ranges");
  EXPECT_EQ(outcome(described), "ERROR 0A000");
  PQclear(described);
  EXPECT_EQ(exec_params(c, "SELECT count(*) FROM adm"), "SELECT 1: 30");
  EXPECT_EQ(
      pipeline(c, {show, "SELECT count(*) FROM adm"}),
      (std::vector<std::string>{as_simple, "SELECT 1: 30", "PGRES_PIPELINE_SYNC", "SELECT 1: 1"}));
  EXPECT_TRUE(pq_exec(c, "DROP TABLE adm").ok());
}

TEST_F(ExtendedDdlTest, ParametersOfAnotherTypeRouteByTheirValue) {
  // psycopg 3 sends a small Python int as a binary int2, whatever the column; a float as a
  // binary float8. Each statement runs through PQexecParams with those types and formats on
  // pgrange and on the reference: the same outcome, and the table the same after the writes.
  auto run = [&](PGconn* c, const std::string& sql, std::vector<Oid> types,
                 std::vector<std::string> values) {
    std::vector<const char*> v;
    std::vector<int> lengths, formats;
    for (const auto& x : values) {
      v.push_back(x.data());
      lengths.push_back(static_cast<int>(x.size()));
      formats.push_back(1);
    }
    PGresult* res = PQexecParams(c, sql.c_str(), static_cast<int>(v.size()), types.data(), v.data(),
                                 lengths.data(), formats.data(), 0);
    std::string s = outcome(res, true);
    PQclear(res);
    return s;
  };
  auto both = [&](const std::string& sql, std::vector<Oid> types, std::vector<std::string> values) {
    std::string got = run(s_->pgrange(), sql, types, values);
    EXPECT_EQ(got, run(s_->reference(), sql, types, values)) << sql;
    return got;
  };
  const std::string int2_60("\x00\x3c", 2), int4_90("\x00\x00\x00\x5a", 4);
  const std::string float8_5("\x40\x14\x00\x00\x00\x00\x00\x00", 8);
  const std::string int2_7("\x00\x07", 2);
  EXPECT_EQ(both("SELECT id, v FROM a WHERE id = $1", {21}, {int2_60}), "SELECT 1: 60|a60");
  EXPECT_EQ(both("SELECT id, v FROM a WHERE id = $1", {23}, {int4_90}), "SELECT 1: 90|a90");
  // A float8 5.0 equals the int8 5; read as an int8's bytes it would be a key of no row.
  EXPECT_EQ(both("SELECT id, v FROM a WHERE id = $1", {701}, {float8_5}), "SELECT 1: 5|a5");
  EXPECT_EQ(
      both("INSERT INTO a VALUES ($1, 'p', $2)", {21, 21}, {std::string("\x00\x65", 2), int2_7}),
      "INSERT 0 1");
  EXPECT_EQ(both("INSERT INTO a VALUES ($1, 'q', 1), ($2, 'r', 2)", {21, 23},
                 {std::string("\x00\x66", 2), std::string("\x00\x00\x00\x3d", 4)}),
            "ERROR 23505 duplicate key value violates unique constraint \"a_pkey\"");
  EXPECT_EQ(both("UPDATE a SET n = n + 1 WHERE id = $1", {21}, {std::string("\x00\x65", 2)}),
            "UPDATE 1");
  EXPECT_EQ(both("DELETE FROM a WHERE id = $1", {21}, {std::string("\x00\x65", 2)}), "DELETE 1");
  s_->same("SELECT * FROM a ORDER BY id");
}

TEST_F(ExtendedDdlTest, PreparedDdlRunsEachTimeItIsExecuted) {
  for (PGconn* c : {s_->pgrange(), s_->reference()}) {
    SCOPED_TRACE(c == s_->pgrange() ? "pgrange" : "PostgreSQL");
    PGresult* p =
        PQprepare(c, "mk", "CREATE TABLE IF NOT EXISTS p (id int8 PRIMARY KEY)", 0, nullptr);
    EXPECT_EQ(PQresultStatus(p), PGRES_COMMAND_OK) << PQresultErrorMessage(p);
    PQclear(p);
    p = PQprepare(c, "rm", "DROP TABLE IF EXISTS p", 0, nullptr);
    EXPECT_EQ(PQresultStatus(p), PGRES_COMMAND_OK) << PQresultErrorMessage(p);
    PQclear(p);
    // Describe of a utility statement: no parameters, no columns.
    PGresult* d = PQdescribePrepared(c, "rm");
    EXPECT_EQ(PQresultStatus(d), PGRES_COMMAND_OK);
    EXPECT_EQ(PQnparams(d), 0);
    EXPECT_EQ(PQnfields(d), 0);
    PQclear(d);
    for (int round = 0; round < 3; ++round) {
      SCOPED_TRACE("round " + std::to_string(round));
      PGresult* r = PQexecPrepared(c, "mk", 0, nullptr, nullptr, nullptr, 0);
      EXPECT_EQ(outcome(r), "CREATE TABLE");
      PQclear(r);
      if (c == s_->pgrange()) {
        EXPECT_EQ(shards_holding("p"), 3);
        EXPECT_TRUE(pq_exec(c, "SHOW RANGES FROM TABLE p").ok()) << "not in the catalog";
      }
      r = PQexecPrepared(c, "rm", 0, nullptr, nullptr, nullptr, 0);
      EXPECT_EQ(outcome(r), "DROP TABLE");
      PQclear(r);
      r = PQexecPrepared(c, "rm", 0, nullptr, nullptr, nullptr, 0);  // IF EXISTS: a notice
      EXPECT_EQ(outcome(r), "DROP TABLE");
      PQclear(r);
      if (c == s_->pgrange()) {
        EXPECT_EQ(shards_holding("p"), 0);
      }
    }
    EXPECT_EQ(exec_params(c, "SELECT count(*) FROM a"), "SELECT 1: 100");
  }
}

TEST_F(ExtendedDdlTest, FailingDdlGivesPostgresErrorAndTheConnectionGoesOn) {
  both_params("CREATE TABLE dup (id int8 PRIMARY KEY)");
  EXPECT_EQ(both_params("CREATE TABLE dup (id int8 PRIMARY KEY)"),
            "ERROR 42P07 relation \"dup\" already exists");
  EXPECT_EQ(both_params("SELECT count(*) FROM dup"), "SELECT 1: 0");
  // Parameters in DDL: PostgreSQL refuses them, each shard too.
  std::string params = both_params("CREATE TABLE withparam (id int8 DEFAULT $1)", {"1"});
  EXPECT_EQ(params.rfind("ERROR ", 0), 0u) << params;
  EXPECT_EQ(shards_holding("withparam"), 0);
  EXPECT_EQ(both_params("DROP TABLE nosuch"), "ERROR 42P01 table \"nosuch\" does not exist");
  EXPECT_EQ(both_params("SELECT n FROM a WHERE id = $1", {"9"}), "SELECT 1: 2");
  both_params("DROP TABLE dup");
}

/// `sql` on `c` by the simple protocol (PQexec) or the extended one (PQexecParams): SQLSTATE,
/// message and detail of its error, or its command tag.
std::string with_detail(PGconn* c, const std::string& sql, bool extended) {
  PGresult* res = extended ? PQexecParams(c, sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0)
                           : PQexec(c, sql.c_str());
  std::string s;
  if (PQresultStatus(res) == PGRES_FATAL_ERROR) {
    const char* detail = PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL);
    s = std::string(PQresultErrorField(res, PG_DIAG_SQLSTATE)) + " " +
        PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) + " | " + (detail ? detail : "");
  } else {
    s = PQcmdStatus(res);
  }
  PQclear(res);
  return s;
}

// DDL runs on the shards one after the other, each committing on its own: when the last shard
// refuses it, the first two have it already. A CREATE TABLE is undone there (no shard keeps a
// table pgrange does not know); anything else says where it ran, and runs again once the last
// shard accepts it.
TEST_F(ExtendedDdlTest, DdlThatFailsOnALaterShardIsUndoneOrSaysWhereItRan) {
  const int last = cluster_->size() - 1;
  const std::string last_name = "s" + std::to_string(cluster_->size());
  PgConnPtr direct = cluster_->direct(last);
  ASSERT_TRUE(pq_exec(direct.get(), "CREATE TABLE clash (id int8 PRIMARY KEY)").ok());
  for (bool extended : {false, true}) {
    SCOPED_TRACE(extended ? "extended protocol" : "simple protocol");
    EXPECT_EQ(
        with_detail(s_->pgrange(), "CREATE TABLE clash (id int8 PRIMARY KEY, v text)", extended),
        "42P07 shard \"" + last_name +
            "\": relation \"clash\" already exists | The statement was undone on \"s1\", "
            "\"s2\".");
    EXPECT_EQ(shards_holding("clash"), 1);  // the one made on the last shard, not pgrange's
    SqlResult ranges = pq_exec(s_->pgrange(), "SHOW RANGES FROM TABLE clash");
    EXPECT_FALSE(ranges.ok()) << "pgrange's catalog kept the table";
  }
  ASSERT_TRUE(pq_exec(direct.get(), "DROP TABLE clash").ok());

  // An added column the last shard has already: not undone (ALTER TABLE … DROP COLUMN would
  // lose what the others wrote since), said so, and IF NOT EXISTS makes running it again safe.
  ASSERT_EQ(exec_params(s_->pgrange(), "CREATE TABLE alt (id int8 PRIMARY KEY)"), "CREATE TABLE");
  ASSERT_TRUE(pq_exec(direct.get(), "ALTER TABLE alt ADD COLUMN extra int").ok());
  for (bool extended : {false, true}) {
    SCOPED_TRACE(extended ? "extended protocol" : "simple protocol");
    std::string got = with_detail(s_->pgrange(), "ALTER TABLE alt ADD COLUMN extra int", extended);
    if (!extended) {
      EXPECT_EQ(got, "42701 shard \"" + last_name +
                         "\": column \"extra\" of relation \"alt\" already exists | The "
                         "statement had already run on \"s1\", \"s2\"; run it again once shard "
                         "\"" +
                         last_name + "\" accepts it (IF EXISTS / IF NOT EXISTS make that safe).");
    } else {
      // The column is on every shard now: the first shard's own error, nothing ran elsewhere.
      EXPECT_EQ(got, "42701 column \"extra\" of relation \"alt\" already exists | ");
    }
  }
  EXPECT_EQ(with_detail(s_->pgrange(), "ALTER TABLE alt ADD COLUMN IF NOT EXISTS extra int", true),
            "ALTER TABLE");
  for (const std::string& v : cluster_->on_each_shard(
           "SELECT count(*) FROM pg_attribute WHERE attrelid = 'alt'::regclass AND attname = "
           "'extra'")) {
    EXPECT_EQ(v, "1");
  }
  EXPECT_EQ(exec_params(s_->pgrange(), "INSERT INTO alt VALUES ($1, $2)", {"1", "7"}),
            "INSERT 0 1");
  EXPECT_EQ(exec_params(s_->pgrange(), "SELECT extra FROM alt WHERE id = 1"), "SELECT 1: 7");
  EXPECT_EQ(exec_params(s_->pgrange(), "DROP TABLE alt"), "DROP TABLE");
  EXPECT_EQ(exec_params(s_->pgrange(), "SELECT count(*) FROM a"), "SELECT 1: 100");
}

// The last shard down: a CREATE TABLE is undone on the others and says why in the shard's own
// connection error; once the shard is back, the same statement runs everywhere.
TEST_F(ExtendedDdlTest, DdlWithTheLastShardDownIsUndoneOnTheOthers) {
  const int last = cluster_->size() - 1;
  const std::string last_name = "s" + std::to_string(cluster_->size());
  cluster_->shard(last).stop();
  for (bool extended : {false, true}) {
    SCOPED_TRACE(extended ? "extended protocol" : "simple protocol");
    std::string got =
        with_detail(s_->pgrange(), "CREATE TABLE while_down (id int8 PRIMARY KEY)", extended);
    EXPECT_EQ(got.rfind("08006 cannot connect to shard \"" + last_name + "\"", 0), 0u) << got;
    EXPECT_NE(got.find(" | The statement was undone on \"s1\", \"s2\"."), std::string::npos) << got;
  }
  cluster_->shard(last).start_again();
  EXPECT_EQ(shards_holding("while_down"), 0);
  EXPECT_EQ(with_detail(s_->pgrange(), "CREATE TABLE while_down (id int8 PRIMARY KEY)", true),
            "CREATE TABLE");
  EXPECT_EQ(shards_holding("while_down"), 3);
  EXPECT_EQ(exec_params(s_->pgrange(), "INSERT INTO while_down VALUES ($1)", {"5"}), "INSERT 0 1");
  EXPECT_EQ(exec_params(s_->pgrange(), "DROP TABLE while_down"), "DROP TABLE");
}

TEST_F(ExtendedDdlTest, PipelinesRunDdlAndSkipToSyncAfterAnError) {
  std::vector<std::string> ok = {
      "CREATE TABLE pl (id int8 PRIMARY KEY, v text)",
      "ALTER TABLE pl ADD COLUMN w int",
      "CREATE VIEW plv AS SELECT id, v FROM pl",
      "COMMENT ON TABLE pl IS 'pipelined'",
      "INSERT INTO pl VALUES (1, 'one')",
      "SELECT id, v FROM pl",
  };
  std::vector<std::string> got = pipeline(s_->pgrange(), ok);
  EXPECT_EQ(got, pipeline(s_->reference(), ok));
  EXPECT_EQ(got.back(), "SELECT 1: 1");
  EXPECT_TRUE(pq_exec(s_->pgrange(), "SHOW RANGES FROM TABLE pl").ok());
  EXPECT_EQ(shards_holding("pl"), 3);
  EXPECT_EQ(shards_holding("plv"), 3);

  // A failing DDL: the rest is skipped until the Sync, as on PostgreSQL.
  std::vector<std::string> failing = {
      "CREATE TABLE pl (id int8 PRIMARY KEY)",
      "INSERT INTO pl VALUES (2, 'two')",
      "CREATE TABLE pl_never (id int8)",
  };
  got = pipeline(s_->pgrange(), failing);
  EXPECT_EQ(got, pipeline(s_->reference(), failing));
  EXPECT_EQ(got[0], "ERROR 42P07");
  EXPECT_EQ(got[1], "PGRES_PIPELINE_ABORTED");
  EXPECT_EQ(shards_holding("pl_never"), 0);
  s_->same("SELECT id, v FROM pl ORDER BY id");

  // DDL after a statement that holds a shard's transaction until the Sync: pgrange refuses
  // it, and that transaction rolls back as PostgreSQL's does after an error.
  got = pipeline(s_->pgrange(),
                 {"INSERT INTO pl VALUES (3, 'three')", "CREATE TABLE pl_late (id int8)",
                  "INSERT INTO pl VALUES (4, 'four')"});
  EXPECT_EQ(got, (std::vector<std::string>{"INSERT 0 1", "ERROR 0A000", "PGRES_PIPELINE_ABORTED",
                                           "PGRES_PIPELINE_SYNC", "SELECT 1: 1"}));
  EXPECT_EQ(exec_params(s_->pgrange(), "SELECT count(*) FROM pl WHERE id > 1"), "SELECT 1: 0");
  EXPECT_EQ(shards_holding("pl_late"), 0);
  both_params("DROP VIEW plv");
  both_params("DROP TABLE pl");
}

TEST_F(ExtendedDdlTest, DdlInsideEveryKindOfBlockRunsInItsTransaction) {
  // A BEGIN alone (pgrange defers it), a block on one shard, a block over two shards.
  std::vector<std::vector<std::string>> openings = {
      {},
      {"SELECT v FROM a WHERE id = 1"},
      {"SELECT v FROM a WHERE id = 1", "SELECT v FROM a WHERE id = 90"},
  };
  for (const auto& opening : openings) {
    SCOPED_TRACE("block reading " + std::to_string(opening.size()) + " rows first");
    for (bool commit : {false, true}) {
      ASSERT_EQ(pq_exec(s_->pgrange(), "BEGIN").status, PGRES_COMMAND_OK);
      for (const auto& sql : opening) {
        SqlResult r = pq_exec(s_->pgrange(), sql);
        EXPECT_TRUE(r.ok()) << sql << ": " << r.message;
      }
      EXPECT_EQ(exec_params(s_->pgrange(), "CREATE TABLE inblock (id int8 PRIMARY KEY)"),
                "CREATE TABLE");
      EXPECT_EQ(exec_params(s_->pgrange(), "INSERT INTO inblock VALUES ($1), ($2)", {"1", "2"}),
                "INSERT 0 2");
      EXPECT_EQ(exec_params(s_->pgrange(), "SELECT count(*) FROM inblock"), "SELECT 1: 2");
      EXPECT_EQ(pq_exec(s_->pgrange(), commit ? "COMMIT" : "ROLLBACK").status, PGRES_COMMAND_OK);
      EXPECT_EQ(shards_holding("inblock"), commit ? 3 : 0);
      EXPECT_EQ(exec_params(s_->pgrange(), "SELECT count(*) FROM inblock"),
                commit ? "SELECT 1: 2" : "ERROR 42P01");
      if (commit) {
        EXPECT_EQ(exec_params(s_->pgrange(), "DROP TABLE inblock"), "DROP TABLE");
      }
    }
  }
}

TEST_F(ExtendedDdlTest, StatementsPostgresRefusesInsideABlockGetItsOwnError) {
  // The block's state before the statement: a BEGIN alone (pgrange defers it), a block on one
  // shard, a block over two shards (coordinated by pgrange).
  std::vector<std::vector<std::string>> openings = {
      {"BEGIN"},
      {"BEGIN", "SELECT v FROM a WHERE id = 1"},
      {"BEGIN", "SELECT v FROM a WHERE id = 1", "SELECT v FROM a WHERE id = 90"},
  };
  std::vector<std::string> statements = {
      "CREATE INDEX CONCURRENTLY a_conc ON a (n)",
      "CREATE UNIQUE INDEX CONCURRENTLY a_conc ON a (v)",
      "DROP INDEX CONCURRENTLY IF EXISTS a_conc",
      "REINDEX TABLE CONCURRENTLY a",
      "REINDEX SCHEMA public",
      "VACUUM a",
      "VACUUM",
      "VACUUM (ANALYZE) a",
      "CLUSTER",
      "CREATE DATABASE never_made",
      "DROP DATABASE IF EXISTS never_made",
      "ALTER SYSTEM SET work_mem = '4MB'",
      "CREATE TABLESPACE never_made LOCATION '/nonexistent'",
      "DROP TABLESPACE IF EXISTS never_made",
  };
  for (const auto& opening : openings) {
    for (const std::string& sql : statements) {
      for (bool extended : {false, true}) {
        SCOPED_TRACE(opening.back() + " / " + sql + (extended ? " (extended)" : " (simple)"));
        std::vector<std::string> seen[2];
        int side = 0;
        for (PGconn* c : {s_->pgrange(), s_->reference()}) {
          for (const auto& o : opening) {
            SqlResult r = pq_exec(c, o);
            EXPECT_TRUE(r.ok()) << r.message;
          }
          seen[side].push_back(extended ? exec_params(c, sql, {}, true)
                                        : outcome_text(pq_exec(c, sql)));
          seen[side].push_back(outcome_text(pq_exec(c, "SELECT 1")));  // aborted: 25P02
          seen[side].push_back(outcome_text(pq_exec(c, "ROLLBACK")));
          ++side;
        }
        EXPECT_EQ(seen[0], seen[1]);
        EXPECT_NE(seen[0][0].find("25001"), std::string::npos) << seen[0][0];
        EXPECT_NE(seen[0][1].find("25P02"), std::string::npos) << seen[0][1];
      }
    }
  }
  EXPECT_EQ(shards_holding("a_conc"), 0);
  s_->same("SELECT count(*), sum(n) FROM a");
}

}  // namespace
}  // namespace pgrange::testing
