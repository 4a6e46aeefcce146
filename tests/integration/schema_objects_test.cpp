// Schema objects, views and SQL functions through pgrange over three real PostgreSQL 15 shards,
// against one plain PostgreSQL (database "ref" on the first server) running the same statements:
// DDL of every kind of schema object lands on every shard alike (the shards' catalogs compared
// line by line, and SHOW SHARDS' digests); the objects work on tables spread over the shards; a
// statement that reads a view, calls an SQL function or reads another table is placed by what
// it really reads, and refused (0A000, naming the construct) when a shard would see only part of
// a table — never run on part of it.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "routing/meta/schema_catalog.hpp"
#include "tests/support/side_by_side.hpp"

namespace pgrange::testing {
namespace {

class SchemaObjectsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ShardCluster::Options o;
    o.databases = {"app", "ref"};
    cluster_ = ShardCluster::start(o).release();
    // a split at 50 and 75, b at 20 and 50: related rows mostly on different shards.
    SideBySide s(*cluster_);
    for (const char* sql :
         {"CREATE TABLE a (id int8 PRIMARY KEY, v text, n int)",
          "CREATE TABLE b (id int8 PRIMARY KEY, w text)",
          "CREATE TABLE u (id int8, x text)",  // no key: unsharded, on one shard
          "INSERT INTO a SELECT g, 'a' || g, g % 7 FROM generate_series(1, 100) g",
          "INSERT INTO b SELECT g, 'b' || g FROM generate_series(1, 100) g",
          "INSERT INTO u SELECT g, 'u' || g FROM generate_series(1, 5) g"}) {
      s.both(sql);
    }
    s.spread("a", "(50), (75)");
    s.spread("b", "(20), (50)");
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override { s_.emplace(*cluster_); }

  /// The schema each shard holds, as lines; a failure names the first shard that differs from
  /// the first one.
  void shards_hold_the_same_schema() {
    std::vector<std::vector<std::string>> lines;
    for (int i = 0; i < cluster_->size(); ++i) {
      auto c = cluster_->direct(i);
      SqlResult r = pq_exec(c.get(), routing::schema_lines_sql());
      ASSERT_TRUE(r.ok()) << "shard " << i + 1 << ": " << r.message;
      std::vector<std::string> l;
      for (const auto& row : r.rows) l.push_back(row.at(0));
      lines.push_back(std::move(l));
    }
    for (int i = 1; i < cluster_->size(); ++i) {
      std::string a, b;
      for (const auto& l : lines[0]) a += l + "\n";
      for (const auto& l : lines[static_cast<size_t>(i)]) b += l + "\n";
      EXPECT_EQ(a, b) << "shard s" << i + 1
                      << " holds another schema than s1: " << first_difference(a, b);
    }
    // SHOW SHARDS says the same: one digest for all. Its probe of a shard gives up after
    // connect_timeout (2 s), which a loaded machine can pass: asked again then (the shards
    // answered just above).
    SqlResult shards;
    for (int attempt = 0; attempt < 5; ++attempt) {
      shards = pq_exec(s_->pgrange(), "SHOW SHARDS");
      ASSERT_TRUE(shards.ok()) << shards.message;
      if (std::none_of(shards.rows.begin(), shards.rows.end(),
                       [](const auto& row) { return row.at(2) == "f"; })) {
        break;
      }
    }
    std::set<std::string> digests;
    for (const auto& row : shards.rows) digests.insert(row.at(5));
    EXPECT_EQ(digests.size(), 1u) << outcome_text(shards);
    EXPECT_EQ(digests.count("<null>"), 0u) << outcome_text(shards);
  }

  static ShardCluster* cluster_;
  std::optional<SideBySide> s_;
};

ShardCluster* SchemaObjectsTest::cluster_ = nullptr;

TEST_F(SchemaObjectsTest, SchemaDdlRunsOnEveryShard) {
  for (const char* sql : {
           "CREATE SCHEMA other",
           "CREATE TYPE mood AS ENUM ('sad', 'ok')",
           "ALTER TYPE mood ADD VALUE 'happy'",
           "CREATE TYPE pair AS (l int, r text)",
           "CREATE DOMAIN posint AS int CHECK (VALUE > 0)",
           "CREATE SEQUENCE other.seq START 10",
           "CREATE FUNCTION twice(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT 2 * $1'",
           "CREATE FUNCTION shout(text) RETURNS text LANGUAGE plpgsql AS "
           "$$BEGIN RETURN upper($1) || '!'; END$$",
           "CREATE PROCEDURE noop() LANGUAGE sql AS $$ SELECT 1 $$",
           "CREATE VIEW va AS SELECT id, v FROM a WHERE n > 2",
           "CREATE FUNCTION stamp() RETURNS trigger LANGUAGE plpgsql AS "
           "$$BEGIN NEW.w := NEW.w || '*'; RETURN NEW; END$$",
           "CREATE TRIGGER stamp_b BEFORE UPDATE OF w ON b FOR EACH ROW EXECUTE FUNCTION stamp()",
           "COMMENT ON TABLE a IS 'the a table'",
           "COMMENT ON COLUMN a.v IS 'a value'",
           "GRANT SELECT ON a TO PUBLIC",
           "CREATE POLICY only_small ON u USING (id < 100)",
           "CREATE EXTENSION IF NOT EXISTS pgcrypto",
           "CREATE INDEX a_n ON a (n) WITH (local = true)",
           "ALTER SEQUENCE other.seq INCREMENT BY 5",
           "ALTER VIEW va RENAME TO va2",
           "ALTER VIEW va2 RENAME TO va",
           "ALTER FUNCTION twice(int) STABLE",
           "DROP TRIGGER stamp_b ON b",
           "DROP PROCEDURE noop()",
       }) {
    SCOPED_TRACE(sql);
    s_->ok(sql);
    shards_hold_the_same_schema();
  }
  // The check can fail: a domain made on one shard behind pgrange's back shows.
  auto direct = cluster_->direct(1);
  ASSERT_TRUE(pq_exec(direct.get(), "CREATE DOMAIN stray AS int").ok());
  SqlResult shards = pq_exec(s_->pgrange(), "SHOW SHARDS");
  std::set<std::string> digests;
  for (const auto& row : shards.rows) digests.insert(row.at(5));
  EXPECT_EQ(digests.size(), 2u) << outcome_text(shards);
  ASSERT_TRUE(pq_exec(direct.get(), "DROP DOMAIN stray").ok());
  shards_hold_the_same_schema();
}

TEST_F(SchemaObjectsTest, ObjectsWorkOnTablesSpreadOverShards) {
  for (const char* sql :
       {"CREATE TYPE color AS ENUM ('red', 'green', 'blue')",
        "CREATE DOMAIN qty AS int CHECK (VALUE >= 0)",
        "CREATE FUNCTION plus1(int) RETURNS int LANGUAGE sql AS 'SELECT $1 + 1'",
        "CREATE TABLE tc (id int8 PRIMARY KEY, c color, q qty)",
        "INSERT INTO tc SELECT g, (ARRAY['red','green','blue'])[g % 3 + 1]::color, "
        "g FROM generate_series(1, 60) g"}) {
    s_->both(sql);
  }
  s_->spread("tc", "(20), (40)");
  s_->same("SELECT id, c, q, plus1(q) FROM tc WHERE c = 'green' ORDER BY id");
  s_->same("SELECT count(*) FROM tc WHERE c <> 'red'");
  s_->same("SELECT id, c FROM tc WHERE id IN (5, 25, 45) ORDER BY id");
  s_->same("UPDATE tc SET q = plus1(q) WHERE c = 'blue'");
  s_->same_contents("tc");
  // The domain's CHECK holds on every shard.
  s_->same("INSERT INTO tc VALUES (55, 'red', -1)");
  s_->same("UPDATE tc SET q = -5 WHERE id = 59");
  // An enum is no value pgrange compares: its ORDER BY or GROUP BY is not merged (wrongly) but
  // gathered, and PostgreSQL orders it over the rows read into one shard.
  s_->same("SELECT id FROM tc ORDER BY c, id LIMIT 5");
  s_->same("SELECT c, count(*), min(c) FROM tc GROUP BY c ORDER BY c");
}

TEST_F(SchemaObjectsTest, TablesMadeLikeAnotherAreKeyedAndSplitLikeAnyOther) {
  for (const char* sql : {
           "CREATE TABLE like_src (id int8 PRIMARY KEY, email text, n int DEFAULT 7 CHECK (n > 0))",
           "CREATE UNLOGGED TABLE like_all (LIKE like_src INCLUDING ALL)",
           "CREATE TABLE like_plain (LIKE like_src, extra text)",
           "INSERT INTO like_all (id, email) SELECT g, 'u' || g FROM generate_series(1, 60) g",
           "INSERT INTO like_plain SELECT g, 'p' || g, g, 'x' FROM generate_series(1, 60) g",
       }) {
    s_->both(sql);
  }
  // INCLUDING ALL copied the key: the table is split and spread by it.
  s_->spread("like_all", "(20), (40)");
  s_->same("SELECT id, email, n FROM like_all WHERE id IN (5, 25, 45) ORDER BY id");
  s_->same("INSERT INTO like_all (id, email, n) VALUES (61, 'bad', 0)");  // the CHECK came along
  s_->same("INSERT INTO like_all (id, email) VALUES (25, 'again')");      // and the key
  s_->same("SELECT count(*), sum(n) FROM like_all");
  s_->same_contents("like_all");
  s_->same("SELECT count(*), min(extra) FROM like_plain");
  // A table whose unique constraint is a global index: LIKE would not copy it.
  s_->both("CREATE TABLE like_uniq (id int8 PRIMARY KEY, email text UNIQUE)");
  std::string refusal = s_->refused("CREATE TABLE like_u2 (LIKE like_uniq INCLUDING ALL)");
  EXPECT_NE(refusal.find("global indexes"), std::string::npos) << refusal;
  s_->both("CREATE TABLE like_u3 (LIKE like_uniq INCLUDING ALL EXCLUDING INDEXES)");
  // Inside a block it is refused for now (its copied unique indexes would need global ones).
  ASSERT_TRUE(pq_exec(s_->pgrange(), "BEGIN").ok());
  EXPECT_EQ(pq_exec(s_->pgrange(), "CREATE TABLE like_b (LIKE like_src)").sqlstate, "0A000");
  ASSERT_TRUE(pq_exec(s_->pgrange(), "ROLLBACK").ok());
  // OF a composite type stays refused, with the reason.
  s_->both("CREATE TYPE like_row AS (id int8, v text)");
  s_->refused("CREATE TABLE like_of OF like_row");
}

TEST_F(SchemaObjectsTest, PartitionsAndInheritanceChildrenLiveWhereTheirRootsRangesPutThem) {
  // Declarative partitioning: PostgreSQL's partitions inside every shard, the root's ranges
  // across the shards, keyed by the root's key (id, at).
  for (const char* sql : {
           "CREATE TABLE ev (id int8, at date NOT NULL, v text, PRIMARY KEY (id, at)) "
           "PARTITION BY RANGE (at)",
           "CREATE TABLE ev_2025 PARTITION OF ev FOR VALUES FROM ('2025-01-01') TO ('2026-01-01')",
           "CREATE TABLE ev_2026 PARTITION OF ev FOR VALUES FROM ('2026-01-01') TO ('2027-01-01') "
           "PARTITION BY RANGE (id)",
           "CREATE TABLE ev_2026_x PARTITION OF ev_2026 FOR VALUES FROM (MINVALUE) TO (150)",
           "CREATE TABLE ev_2026_rest PARTITION OF ev_2026 DEFAULT",
           "CREATE TABLE ev_rest PARTITION OF ev DEFAULT",
           "INSERT INTO ev SELECT g, date '2025-06-01' + g * 3, CASE WHEN g % 4 = 0 THEN 'x' "
           "ELSE 'e' || g END FROM generate_series(1, 300) g",
           "CREATE INDEX ON ev (v)",
           // Inheritance: a child's rows are read with its parent's, placed by the parent's key.
           "CREATE TABLE city (id int8 PRIMARY KEY, name text)",
           "CREATE TABLE capital (state text) INHERITS (city)",
           "INSERT INTO city SELECT g, 'c' || g FROM generate_series(1, 150) g",
           "INSERT INTO capital VALUES (7, 'c7', 'A'), (77, 'c77', 'B'), (140, 'c140', 'C')",
       }) {
    s_->both(sql);
  }
  s_->spread("ev", "(100, '2020-01-01'), (200, '2020-01-01')");
  s_->spread("city", "(50), (100)");
  // Every read, through the root or a member, by key or not, sees what one PostgreSQL sees.
  for (const char* sql : {
           "SELECT count(*), sum(id) FROM ev",
           "SELECT count(*), sum(id) FROM ONLY ev",
           "SELECT tableoid::regclass::text AS part, count(*) FROM ev GROUP BY 1 ORDER BY 1",
           "SELECT count(*), min(at), max(at) FROM ev_2025",
           "SELECT count(*), min(id), max(id) FROM ev_2026",
           "SELECT * FROM ev_2026_x ORDER BY id LIMIT 5",
           "SELECT * FROM ev_rest ORDER BY id DESC LIMIT 3",
           "SELECT * FROM ev WHERE id = 150",
           "SELECT * FROM ev_2026 WHERE id BETWEEN 95 AND 105 ORDER BY id",
           "SELECT count(*), sum(id) FROM city",
           "SELECT count(*) FROM ONLY city",
           "SELECT * FROM capital ORDER BY id",
           "SELECT id, name FROM city WHERE id IN (7, 77, 140) ORDER BY id, name",
       }) {
    s_->same(sql);
  }
  // Writes through a member or the root land where the root's ranges say, in every shard's
  // partition of that key; the whole tables after each write are the reference's.
  for (const char* sql : {
           "INSERT INTO ev_2026 VALUES (301, '2026-05-05', 'x'), (-5, '2026-06-06', 'y')",
           "INSERT INTO ev_2025 VALUES (302, '2026-05-05', 'no')",  // 23514: not its partition
           "UPDATE ev_2025 SET v = 'upd' WHERE id IN (5, 150, 250)",
           "UPDATE ev SET at = at + 365 WHERE id IN (10, 110, 210)",  // to the next partition
           "UPDATE ev SET id = id + 1000 WHERE id IN (20, 120)",      // to another range
           "DELETE FROM ev_2026_rest WHERE id % 10 = 1",
           "INSERT INTO capital VALUES (500, 'c500', 'D')",
           "UPDATE city SET name = upper(name) WHERE id IN (7, 8, 140)",
           "UPDATE city SET id = id + 1 WHERE id IN (30, 130)",  // another shard, city's own rows
           "UPDATE capital SET id = 160 WHERE id = 7",           // the child's, to another shard
           "DELETE FROM capital WHERE id = 77",
       }) {
    s_->same(sql);
    for (const char* t : {"ev", "ev_2025", "ev_2026_x", "ev_rest", "city", "capital"}) {
      s_->same_contents(t);
    }
  }
  // A key update on the parent would move a child's row without the child's own columns.
  s_->refused("UPDATE city SET id = id - 100 WHERE id = 140");
  // The family moves together: every range's rows, root and members, on its shard only.
  s_->ok("ALTER TABLE ev SCATTER");
  s_->same(
      "SELECT tableoid::regclass::text AS part, count(*), sum(id) FROM ev GROUP BY 1 ORDER "
      "BY 1");
  // Inside a block, and through ALTER and DROP, the catalog follows.
  s_->same("BEGIN");
  s_->same("CREATE TABLE village (pop int) INHERITS (city)");
  s_->same("INSERT INTO village VALUES (3, 'v3', 10), (120, 'v120', 20)");
  s_->same("SELECT count(*), sum(id) FROM city");
  s_->same("COMMIT");
  s_->same("ALTER TABLE city ADD COLUMN zip text");
  s_->same("INSERT INTO village VALUES (60, 'v60', NULL, 30)");
  s_->same("SELECT * FROM village ORDER BY id");
  s_->same("ALTER TABLE village RENAME TO villages");
  s_->same("SELECT count(*) FROM villages WHERE id > 50");
  s_->same("DROP TABLE villages");
  s_->same("SELECT count(*), sum(id) FROM city");
  // What would move rows between families, or a global index they would not all maintain.
  s_->refused("ALTER TABLE capital NO INHERIT city");
  s_->refused("ALTER TABLE ev DETACH PARTITION ev_rest");
  s_->refused("CREATE TABLE twice (x int) INHERITS (city, ev)");
  s_->refused("CREATE UNIQUE INDEX ON capital (state)");
  s_->refused("CREATE TABLE branch (code text UNIQUE) INHERITS (city)");
  s_->same("DROP TABLE city CASCADE");
  s_->same("DROP TABLE ev");
  s_->same("SELECT count(*) FROM ev_2025");
  shards_hold_the_same_schema();
}

TEST_F(SchemaObjectsTest, TablesMadeFromAQueryAreFilledFromEveryShard) {
  // The command tag (SELECT n, CREATE TABLE AS) and the SQLSTATE, through pgrange and on the
  // reference.
  // With `extended`, through the extended protocol (PQexecParams, no parameters).
  auto same_tag = [&](const std::string& sql, bool extended = false) {
    auto run = [&](PGconn* c) {
      PGresult* r = extended
                        ? PQexecParams(c, sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0)
                        : PQexec(c, sql.c_str());
      const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
      std::string out = std::string(PQcmdStatus(r)) + "|" + (state != nullptr ? state : "");
      PQclear(r);
      return out;
    };
    std::string got = run(s_->pgrange());
    EXPECT_EQ(got, run(s_->reference())) << sql;
    return got;
  };
  EXPECT_EQ(same_tag("CREATE TABLE cta1 AS SELECT id, v, n * 2 AS n2 FROM a WHERE n < 3"),
            "SELECT 44|");
  s_->same_contents("cta1");
  EXPECT_EQ(same_tag("SELECT id, w INTO cta2 FROM b WHERE id > 40"), "SELECT 60|");
  s_->same_contents("cta2");
  EXPECT_EQ(same_tag("CREATE TABLE IF NOT EXISTS cta1 AS SELECT 1"), "CREATE TABLE AS|");
  s_->same("SELECT count(*) FROM cta1");
  EXPECT_EQ(same_tag("CREATE UNLOGGED TABLE cta3 (x, y) AS SELECT id, v, n FROM a WHERE false"),
            "SELECT 0|");
  s_->same("SELECT x, y, n FROM cta3");
  s_->same("SELECT relpersistence FROM pg_class WHERE relname = 'cta3'");
  EXPECT_EQ(same_tag("CREATE TABLE cta5 AS SELECT * FROM a WITH NO DATA"), "CREATE TABLE AS|");
  s_->same("SELECT count(*) FROM cta5");
  // A query that fails leaves no table, on any shard.
  EXPECT_EQ(same_tag("CREATE TABLE cta4 AS SELECT id / (n - n) AS q FROM a"), "|22012");
  s_->same("SELECT count(*) FROM cta4");
  for (const std::string& n :
       cluster_->on_each_shard("SELECT count(*) FROM pg_class WHERE relname = 'cta4'")) {
    EXPECT_EQ(n, "0");
  }
  // Inside a block: it sees the block's writes, and goes with the block's ROLLBACK or COMMIT.
  for (const char* end : {"ROLLBACK", "COMMIT"}) {
    s_->same("BEGIN");
    s_->same("INSERT INTO a VALUES (500, 'in block', 1)");
    EXPECT_EQ(same_tag("CREATE TABLE cta6 AS SELECT id, v FROM a WHERE id > 90"), "SELECT 11|");
    s_->same("ALTER TABLE cta6 ADD PRIMARY KEY (id)");
    s_->same("SELECT count(*), max(v) FROM cta6");
    s_->same(end);
    s_->same("SELECT count(*) FROM cta6");
  }
  // Keyed afterwards, it splits and spreads like any other table.
  s_->spread("cta6", "(94), (97)");
  s_->same("SELECT * FROM cta6 WHERE id >= 95 ORDER BY id");
  s_->same_contents("cta6");
  s_->same("DELETE FROM a WHERE id = 500");
  // Through the extended protocol (JDBC, and so Flyway and Liquibase, send everything so),
  // without parameters: the same, CTAS and INSERT … SELECT, in a block and out.
  EXPECT_EQ(same_tag("CREATE TABLE cta7 AS SELECT id, v FROM a WHERE id % 10 = 3", true),
            "SELECT 10|");
  s_->same_contents("cta7");
  s_->both("ALTER TABLE cta7 ADD PRIMARY KEY (id)");
  s_->spread("cta7", "(30), (60)");
  EXPECT_EQ(same_tag("INSERT INTO cta7 SELECT id + 1000, v FROM a WHERE id % 10 = 4", true),
            "INSERT 0 10|");
  s_->same_contents("cta7");
  EXPECT_EQ(same_tag("INSERT INTO cta7 SELECT id, v FROM a WHERE false", true), "INSERT 0 0|");
  EXPECT_EQ(same_tag("INSERT INTO cta7 SELECT id, v FROM a WHERE id = 3", true), "|23505");
  s_->same_contents("cta7");
  s_->same("BEGIN");
  EXPECT_EQ(same_tag("INSERT INTO cta7 SELECT id + 2000, v FROM a WHERE id % 10 = 5", true),
            "INSERT 0 10|");
  EXPECT_EQ(same_tag("CREATE TABLE cta8 AS SELECT id FROM cta7 WHERE id > 2000", true),
            "SELECT 10|");
  s_->same("SELECT count(*), sum(id) FROM cta8");
  s_->same("ROLLBACK");
  s_->same("SELECT count(*) FROM cta8");
  s_->same_contents("cta7");
  // With parameters (node-postgres, pgjdbc): written into the query as literals of the types
  // PostgreSQL infers for them (an enum's too, NULL too); RETURNING rows come back, with
  // parameters or without.
  s_->both("CREATE TYPE pace AS ENUM ('calm', 'busy')");
  s_->both("ALTER TABLE cta7 ADD COLUMN m pace");
  auto same_answer = [&](const std::string& sql, std::vector<std::string> params) {
    std::string got = answer_text(s_->pgrange(), ScriptStep(sql, params));
    EXPECT_EQ(got, answer_text(s_->reference(), ScriptStep(sql, params))) << sql;
    return got;
  };
  same_answer("INSERT INTO cta7 SELECT id + $1, v || $2, $3 FROM a WHERE id % 10 = $4",
              {"5000", " (copied)", "busy", "6"});
  same_answer(
      "INSERT INTO cta7 SELECT id + 6000, v, $1 FROM a WHERE id BETWEEN $2 AND $3 RETURNING id, m",
      {"calm", "44", "52"});
  same_answer("INSERT INTO cta7 SELECT id + 7000, $1, NULL FROM a WHERE id < 4 RETURNING id, v",
              {"$1 stays text"});
  same_answer("INSERT INTO cta7 SELECT id + 8000, v FROM a WHERE id > 97 RETURNING *", {});
  same_answer("INSERT INTO cta7 SELECT id, v FROM a WHERE id = $1", {"3"});  // 23505
  same_answer("INSERT INTO cta7 SELECT id + $1, v, $2 FROM a WHERE id < 3", {"9000", "sad"});
  s_->same("BEGIN");
  same_answer("INSERT INTO cta7 SELECT id + $1, v FROM a WHERE id % 10 = $2", {"10000", "7"});
  s_->same("SELECT count(*) FROM cta7 WHERE id > 10000");
  s_->same("ROLLBACK");
  s_->same_contents("cta7");
  shards_hold_the_same_schema();
}

TEST_F(SchemaObjectsTest, SequencesCountOnTheFirstShard) {
  s_->both("CREATE SEQUENCE s_seq");
  // nextval() in a statement of its own (or with rows on the first shard) goes to one place.
  for (int i = 0; i < 3; ++i) s_->same("SELECT nextval('s_seq')");
  // currval() is the session's: through transaction pooling only within the transaction (or
  // query string) that called nextval() on that connection.
  s_->refused("SELECT currval('s_seq')");
  s_->same("SELECT nextval('s_seq'), currval('s_seq')");
  s_->same("BEGIN");
  s_->same("SELECT nextval('s_seq')");
  s_->same("SELECT currval('s_seq'), lastval()");
  s_->same("COMMIT");
  // With rows elsewhere it would use another shard's sequence: refused.
  std::string m = s_->refused("UPDATE a SET n = nextval('s_seq') WHERE id = 77");
  EXPECT_NE(m.find("sequence function nextval()"), std::string::npos) << m;
  s_->same("SELECT nextval('s_seq')");
}

TEST_F(SchemaObjectsTest, ViewsAreReadAsTheirQuery) {
  for (const char* sql : {"CREATE VIEW vb AS SELECT id, w FROM b",
                          "CREATE VIEW vb_odd AS SELECT * FROM vb WHERE id % 2 = 1",
                          "CREATE VIEW vab AS SELECT a.id, v, w FROM a JOIN b ON a.id = b.id",
                          "CREATE VIEW vu AS SELECT * FROM u",
                          "CREATE VIEW vcount AS "
                          "SELECT count(*) AS n FROM b"}) {
    s_->both(sql);
  }
  // A plain view of one table spreads like it: concatenated, counted, merged.
  s_->same("SELECT count(*) FROM vb");
  s_->same("SELECT * FROM vb WHERE id BETWEEN 18 AND 22 ORDER BY id");
  s_->same("SELECT * FROM vb ORDER BY id DESC LIMIT 3");
  s_->same("SELECT count(*) FROM vb_odd");
  s_->same("SELECT max(w), min(id) FROM vb");
  s_->refused("SELECT w, count(*) FROM vb GROUP BY w");
  // EXPLAIN of a query over such a view says what runs: the merge, then each shard's plan.
  SqlResult explained = pq_exec(s_->pgrange(), "EXPLAIN SELECT * FROM vb ORDER BY id DESC LIMIT 3");
  ASSERT_TRUE(explained.ok()) << outcome_text(explained);
  std::string plan;
  for (const auto& row : explained.rows) plan += row.at(0) + "\n";
  EXPECT_NE(plan.find("read through view \"vb\""), std::string::npos) << plan;
  EXPECT_NE(plan.find("merge: streaming k-way merge"), std::string::npos) << plan;
  EXPECT_NE(plan.find("shard s1:"), std::string::npos) << plan;
  // Views of an unsharded table go where it is.
  s_->same("SELECT * FROM vu ORDER BY id");
  // Anything else over tables spread across shards: refused, naming the view.
  std::string m = s_->refused("SELECT * FROM vab WHERE id = 5");
  EXPECT_NE(m.find("view \"vab\""), std::string::npos) << m;
  m = s_->refused("SELECT * FROM vcount");
  EXPECT_NE(m.find("view \"vcount\""), std::string::npos) << m;
  m = s_->refused("UPDATE a SET n = (SELECT n FROM vcount) WHERE id = 1");
  EXPECT_NE(m.find("vcount"), std::string::npos) << m;
  // Writes through a view of a spread table are not split up by pgrange.
  s_->refused("UPDATE vb SET w = 'x' WHERE id = 3");
  s_->same_contents("b");
  // A materialized view would hold each shard's own rows only.
  s_->refused("CREATE MATERIALIZED VIEW mb AS SELECT count(*) FROM b");
  s_->both("CREATE MATERIALIZED VIEW mconst AS SELECT 42 AS answer");
  s_->ok("REFRESH MATERIALIZED VIEW mconst");
  s_->same("SELECT * FROM mconst");
}

TEST_F(SchemaObjectsTest, SqlFunctionsAreReadThroughTheirBodies) {
  for (const char* sql :
       {"CREATE FUNCTION b_count() RETURNS bigint LANGUAGE sql AS 'SELECT count(*) FROM b'",
        "CREATE FUNCTION u_label(int8) RETURNS text LANGUAGE sql BEGIN ATOMIC SELECT x FROM u "
        "WHERE id = $1; END",
        "CREATE FUNCTION indirect() RETURNS bigint LANGUAGE sql AS 'SELECT b_count()'",
        "CREATE FUNCTION bump(int8) RETURNS void LANGUAGE sql AS "
        "'UPDATE b SET w = w || ''+'' WHERE id = $1'"}) {
    s_->both(sql);
  }
  // What b_count() reads is spread over the shards: every call is refused, directly or not.
  std::string m = s_->refused("SELECT b_count()");
  EXPECT_NE(m.find("function b_count()"), std::string::npos) << m;
  s_->refused("SELECT indirect()");
  s_->refused("UPDATE a SET n = b_count() WHERE id = 1");
  s_->refused("SELECT id, b_count() FROM a WHERE id = 60");
  // What u_label() reads is on one shard: a statement there runs, elsewhere it is refused.
  s_->same("SELECT u_label(3)");
  s_->refused("UPDATE a SET v = u_label(2) WHERE id BETWEEN 1 AND 100");
  // A function that writes b, called with b's rows on other shards than the statement's.
  s_->refused("SELECT bump(id) FROM a WHERE id = 60");
  s_->same_contents("b");
  // Functions in other languages are not read: they run where the statement runs.
  s_->both(
      "CREATE FUNCTION plpgsql_id(int) RETURNS int LANGUAGE plpgsql AS "
      "$$BEGIN RETURN $1; END$$");
  s_->same("SELECT id, plpgsql_id(n) FROM a WHERE id > 95 ORDER BY id");
}

TEST_F(SchemaObjectsTest, WritesThatReadAnotherTableRunOnlyWhereItIsWhole) {
  // Over several shards each would read only its own part of b: pgrange reads the tables the
  // write reads (all of their rows it needs) and runs the write, with those rows, on the shards
  // of its own table, in one transaction.
  for (const char* sql : {
           "UPDATE a SET v = 'x' FROM b WHERE a.id = b.id AND b.id < 30",
           "UPDATE a SET v = (SELECT w FROM b WHERE b.id = a.id) WHERE a.id < 3",
           "DELETE FROM a WHERE id IN (SELECT id FROM b WHERE id BETWEEN 30 AND 32)",
           "UPDATE a SET v = 'e' WHERE EXISTS (SELECT 1 FROM b WHERE b.id = a.id AND b.id = 40)",
           "WITH x AS (SELECT id FROM b WHERE id = 41) UPDATE a SET v = 'c' FROM x "
           "WHERE a.id = x.id",
           "DELETE FROM a USING b WHERE a.id = b.id AND b.w = 'b7'",
           "UPDATE a SET (v, n) = (SELECT w, 7 FROM b WHERE b.id = a.id) WHERE a.id BETWEEN 45 AND "
           "55",
           "UPDATE a SET n = 0 WHERE id IN (SELECT id FROM a WHERE v = 'a3')",
           "UPDATE a SET n = (SELECT count(*) FROM u)",
       }) {
    s_->same(sql);
    s_->same_contents("a");
  }
  // What it cannot read that way stays refused, naming how.
  struct Refusal {
    const char* sql;
    const char* construct;
  };
  for (const Refusal& r : std::vector<Refusal>{
           {"UPDATE a SET n = 1 WHERE id IN (SELECT id FROM b WHERE id < 5 FOR UPDATE)",
            "FOR UPDATE"},
       }) {
    std::string m = s_->refused(r.sql);
    EXPECT_NE(m.find(r.construct), std::string::npos) << r.sql << ": " << m;
  }
  s_->same_contents("a");
  // Where every relation's rows are on one shard, the same kinds of statement run there.
  s_->same("UPDATE a SET v = 'x' FROM b WHERE a.id = b.id AND a.id = 5 AND b.id = 5");
  s_->same("UPDATE a SET v = (SELECT w FROM b WHERE id = 10) WHERE id = 10");
  s_->same("DELETE FROM a USING b WHERE a.id = 80 AND b.id = 80 AND b.w = 'b80'");
  s_->same("INSERT INTO a VALUES (7000, (SELECT w FROM b WHERE id = 75), 1)");
  // INSERT … SELECT runs its query through pgrange and routes each row to its shard.
  s_->same("INSERT INTO a SELECT id + 1000, w, 0 FROM b WHERE id < 5");
  s_->same(
      "UPDATE a SET n = n + 1 WHERE id > 10 AND EXISTS (SELECT 1 FROM b WHERE id > 5 AND id < 3)");
  s_->same("SELECT a.v, b.w FROM a JOIN b ON a.id = b.id WHERE a.id = 5 AND b.id = 5");
  // A query reading several tables over several shards: pgrange runs it, then routes its rows.
  s_->same("INSERT INTO a SELECT a.id + 2000, b.w, 0 FROM a JOIN b ON a.id = b.id");
  s_->same("INSERT INTO a SELECT a.id + 3000, b.w, 0 FROM a JOIN b ON a.id = b.id WHERE b.id < 0");
  s_->same_contents("a");
  s_->same("DELETE FROM a WHERE id > 2000 AND id < 4000");
  s_->same_contents("b");
}

TEST_F(SchemaObjectsTest, RowLocksOverSeveralShards) {
  s_->same("SELECT id FROM a WHERE id BETWEEN 45 AND 55 ORDER BY id FOR UPDATE");
  s_->same("SELECT id, v FROM a WHERE id > 95 FOR SHARE");
  // Inside a block the locks hold until it ends, on every shard: another session waits.
  ASSERT_TRUE(pq_exec(s_->pgrange(), "BEGIN").ok());
  SqlResult locked = pq_exec(s_->pgrange(), "SELECT id FROM a WHERE id IN (1, 99) FOR UPDATE");
  ASSERT_TRUE(locked.ok()) << locked.message;
  EXPECT_EQ(locked.rows.size(), 2u);
  auto other = cluster_->client();
  SqlResult nowait = pq_exec(other.get(), "SELECT id FROM a WHERE id = 99 FOR UPDATE NOWAIT");
  EXPECT_EQ(nowait.sqlstate, "55P03") << outcome_text(nowait);
  SqlResult skipped = pq_exec(
      other.get(), "SELECT id FROM a WHERE id IN (1, 2, 99) ORDER BY id FOR UPDATE SKIP LOCKED");
  EXPECT_EQ(outcome_text(skipped), "2\n");
  ASSERT_TRUE(pq_exec(s_->pgrange(), "COMMIT").ok());
  // With LIMIT each shard would lock rows the merge drops: refused.
  s_->refused("SELECT id FROM a ORDER BY id LIMIT 3 FOR UPDATE");
}

}  // namespace
}  // namespace pgrange::testing
