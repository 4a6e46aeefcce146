// UNIQUE and EXCLUDE constraints through pgrange over three real PostgreSQL 15 shards, against
// one plain PostgreSQL (database "ref" on the first server) running the same statements: a
// UNIQUE constraint whose columns do not contain the table's key is enforced across shards (a
// global index) with PostgreSQL's errors, or refused when declared; one that contains the key
// stays the shards' own; moves that would spread a table whose shards enforce a constraint on
// their own rows only are refused until it is made global.
#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tests/support/side_by_side.hpp"

namespace pgrange::testing {
namespace {

class UniqueConstraintTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ShardCluster::Options o;
    o.databases = {"app", "ref"};
    // A table keyed by configuration (not by its primary key), spread from its creation.
    o.extra_toml = "\n[[table]]\nname = \"ck\"\nkey = [\"k\"]\nsplit_at = [100, 200]\n";
    cluster_ = ShardCluster::start(o).release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override { sbs_.emplace(*cluster_); }

  void same(const std::string& sql) { sbs_->same(sql); }
  void same_contents(const std::string& table) { sbs_->same_contents(table); }
  void ok(const std::string& sql) { sbs_->ok(sql); }
  std::string refused(const std::string& sql) { return sbs_->refused(sql); }
  void spread(const std::string& table, const std::string& at) { sbs_->spread(table, at); }
  /// How many shards have a constraint of that name on the table.
  int shards_with_constraint(const std::string& table, const std::string& name) {
    int n = 0;
    for (const std::string& v :
         cluster_->on_each_shard("SELECT count(*) FROM pg_constraint WHERE conrelid = '" + table +
                                 "'::regclass AND conname = '" + name + "'")) {
      n += v == "1" ? 1 : 0;
    }
    return n;
  }
  /// How many shards hold the backend table of a global index.
  int shards_with_index_table(const std::string& table, const std::string& index) {
    int n = 0;
    for (const std::string& v : cluster_->on_each_shard(
             "SELECT count(*) FROM pg_class WHERE relname = '" + table + "@" + index + "'")) {
      n += v == "1" ? 1 : 0;
    }
    return n;
  }

  static ShardCluster* cluster_;
  std::optional<SideBySide> sbs_;
};

ShardCluster* UniqueConstraintTest::cluster_ = nullptr;

TEST_F(UniqueConstraintTest, CreateTableConstraintsHoldAcrossShards) {
  same(
      "CREATE TABLE p (id int8 PRIMARY KEY, email text UNIQUE, a int, b int, code text, "
      "CONSTRAINT p_pair UNIQUE (a, b), UNIQUE NULLS NOT DISTINCT (code))");
  spread("p", "(100), (200)");
  // Global indexes with PostgreSQL's names; the shards no longer have the constraints.
  for (const char* name : {"p_email_key", "p_pair", "p_code_key"}) {
    EXPECT_EQ(shards_with_constraint("p", name), 0) << name;
    EXPECT_EQ(shards_with_index_table("p", name), 3) << name;
  }
  EXPECT_EQ(shards_with_constraint("p", "p_pkey"), 3);
  same("INSERT INTO p VALUES (1, 'a@x', 1, 1, 'c1'), (150, 'b@x', 1, 2, NULL)");
  same("INSERT INTO p VALUES (250, 'c@x', NULL, NULL, 'c2')");
  // Duplicates on other shards than the first row's.
  same("INSERT INTO p VALUES (160, 'a@x', 7, 7, 'c7')");
  same("INSERT INTO p VALUES (260, 'z@x', 1, 1, 'c8')");
  same("INSERT INTO p VALUES (261, 'y@x', 9, 9, 'c1')");
  // NULLs: distinct in (a, b), equal in code (NULLS NOT DISTINCT).
  same("INSERT INTO p VALUES (170, 'n1@x', NULL, 1, 'c3'), (270, 'n2@x', NULL, 1, 'c4')");
  same("INSERT INTO p VALUES (280, 'n3@x', 5, 5, NULL)");
  // A duplicate within one multi-row INSERT over two shards.
  same("INSERT INTO p VALUES (290, 'd@x', 11, 11, 'c11'), (50, 'd@x', 12, 12, 'c12')");
  // UPDATEs: onto another shard's value; a swap (refused by PostgreSQL too: it checks each row).
  same("UPDATE p SET email = 'a@x' WHERE id = 250");
  same("UPDATE p SET a = 1, b = 2 WHERE id = 1");
  {
    // Which row's new value collides first depends on the order the rows are written in
    // (PostgreSQL's physical order; here the order the shards answer): the DETAIL may differ.
    const std::string swap =
        "UPDATE p SET email = CASE id WHEN 1 THEN 'b@x' ELSE 'a@x' END WHERE id IN (1, 150)";
    SqlResult got = pq_exec(sbs_->pgrange(), swap);
    SqlResult want = pq_exec(sbs_->reference(), swap);
    EXPECT_EQ(got.sqlstate, want.sqlstate);
    EXPECT_EQ(got.message, want.message);
    EXPECT_EQ(want.sqlstate, "23505");
  }
  same("UPDATE p SET email = 'e@x' WHERE id = 150");
  same("UPDATE p SET email = 'b@x' WHERE id = 1");
  same_contents("p");
  // COPY with a value another shard holds: the whole COPY fails.
  for (PGconn* conn : {sbs_->pgrange(), sbs_->reference()}) {
    SCOPED_TRACE(conn == sbs_->pgrange() ? "pgrange" : "reference");
    ASSERT_EQ(take_result(PQexec(conn, "COPY p (id, email, code) FROM STDIN"), conn).status,
              PGRES_COPY_IN);
    std::string data = "20\tf@x\tc20\n120\tg@x\tc120\n220\te@x\tc220\n";
    ASSERT_EQ(PQputCopyData(conn, data.data(), static_cast<int>(data.size())), 1);
    ASSERT_EQ(PQputCopyEnd(conn, nullptr), 1);
    SqlResult copied = take_result(PQgetResult(conn), conn);
    EXPECT_EQ(copied.sqlstate, "23505");
    EXPECT_EQ(copied.message, "duplicate key value violates unique constraint \"p_email_key\"");
    EXPECT_EQ(copied.detail, "Key (email)=(e@x) already exists.");
    while (PGresult* extra = PQgetResult(conn)) PQclear(extra);
  }
  same_contents("p");
  // ON CONFLICT on such a constraint keeps the refusal of UNIQUE global indexes.
  refused("INSERT INTO p VALUES (300, 'a@x') ON CONFLICT (email) DO NOTHING");
  refused("INSERT INTO p VALUES (300, 'a@x') ON CONFLICT ON CONSTRAINT p_email_key DO NOTHING");
  same("INSERT INTO p VALUES (1, 'q@x') ON CONFLICT (id) DO UPDATE SET a = 40");
  same_contents("p");
  // DROP INDEX of a constraint's index: PostgreSQL's refusal. DROP CONSTRAINT drops it.
  same("DROP INDEX p_email_key");
  same("ALTER TABLE p DROP CONSTRAINT p_email_key");
  EXPECT_EQ(shards_with_index_table("p", "p_email_key"), 0);
  same("INSERT INTO p VALUES (160, 'a@x', 7, 7, 'c7')");
  same("ALTER TABLE p DROP CONSTRAINT p_email_key");
  same_contents("p");
}

TEST_F(UniqueConstraintTest, AddConstraintOverExistingRows) {
  same("CREATE TABLE q (id int8 PRIMARY KEY, email text, x int, y int)");
  spread("q", "(100), (200)");
  same(
      "INSERT INTO q VALUES (1, 'a@x', 1, 1), (150, 'b@x', 2, 2), (250, 'a@x', 3, 3), "
      "(260, 'c@x', 3, 4)");
  // Duplicates on two shards: PostgreSQL's error, and nothing left behind anywhere.
  same("ALTER TABLE q ADD UNIQUE (email)");
  same("ALTER TABLE q ADD CONSTRAINT q_x UNIQUE (x) INCLUDE (y)");
  for (const char* name : {"q_email_key", "q_x"}) {
    EXPECT_EQ(shards_with_constraint("q", name), 0) << name;
    EXPECT_EQ(shards_with_index_table("q", name), 0) << name;
    EXPECT_EQ(cluster_->on_each_shard("SELECT count(*) FROM pg_class WHERE relname = '" +
                                      std::string(name) + "'"),
              (std::vector<std::string>{"0", "0", "0"}));
    EXPECT_FALSE(pq_exec(sbs_->pgrange(), "SHOW RANGES FROM INDEX q@" + std::string(name)).ok());
  }
  same("INSERT INTO q VALUES (2, 'c@x', 9, 9)");  // no constraint was left
  same("DELETE FROM q WHERE id IN (2, 250)");
  same("UPDATE q SET x = 4 WHERE id = 260");
  // Over clean data: built, and enforced from then on.
  same("ALTER TABLE q ADD UNIQUE (email)");
  same("ALTER TABLE q ADD CONSTRAINT q_x UNIQUE (x) INCLUDE (y)");
  same("ALTER TABLE q ADD UNIQUE (x, y)");
  EXPECT_EQ(shards_with_index_table("q", "q_email_key"), 3);
  EXPECT_EQ(shards_with_index_table("q", "q_x_y_key"), 3);
  same("INSERT INTO q VALUES (270, 'a@x', 10, 10)");
  same("INSERT INTO q VALUES (271, 'n@x', 1, 10)");
  same("INSERT INTO q VALUES (272, 'm@x', 12, 12), (5, 'm2@x', 12, 13)");
  same_contents("q");
  // A name that is taken: PostgreSQL's errors.
  same("ALTER TABLE q ADD CONSTRAINT q_x UNIQUE (y)");
  same("ALTER TABLE q ADD CONSTRAINT q_pkey UNIQUE (y)");
  same("ALTER TABLE q ADD UNIQUE (nope)");
  same("ALTER TABLE q DROP CONSTRAINT q_x");
  same("INSERT INTO q VALUES (273, 'k@x', 1, 11)");
  same_contents("q");
  // Where pgrange cannot build it yet: refused, naming the construct.
  ok("BEGIN");
  EXPECT_NE(refused("ALTER TABLE q ADD UNIQUE (y)").find("ADD CONSTRAINT … UNIQUE"),
            std::string::npos);
  ok("ROLLBACK");
  // Through the extended protocol (as JDBC sends it) it runs as through the simple one.
  for (const char* sql :
       {"ALTER TABLE q DROP CONSTRAINT q_x_y_key", "ALTER TABLE q ADD UNIQUE (x, y)"}) {
    for (PGconn* c : {sbs_->pgrange(), sbs_->reference()}) {
      SqlResult ext =
          take_result(PQexecParams(c, sql, 0, nullptr, nullptr, nullptr, nullptr, 0), c);
      EXPECT_TRUE(ext.ok()) << sql << ": " << outcome_text(ext);
    }
  }
  EXPECT_EQ(shards_with_index_table("q", "q_x_y_key"), 3);
  same("INSERT INTO q VALUES (274, 'z@x', 12, 12)");  // 23505 on both
  EXPECT_NE(refused("ALTER TABLE q ADD COLUMN z int UNIQUE").find("ADD COLUMN"), std::string::npos);
  EXPECT_NE(refused("ALTER TABLE q ADD UNIQUE (y), ADD COLUMN z int").find("other subcommands"),
            std::string::npos);
  EXPECT_NE(refused("ALTER TABLE q ADD UNIQUE (y) DEFERRABLE").find("DEFERRABLE"),
            std::string::npos);
  same_contents("q");
}

TEST_F(UniqueConstraintTest, RefusedWhenDeclaredAndOrdinaryWithTheKey) {
  // EXCLUDE not on the key: refused, and nothing is made.
  std::string m = refused(
      "CREATE TABLE r (id int PRIMARY KEY, during tsrange, EXCLUDE USING gist (during WITH &&))");
  EXPECT_NE(m.find("EXCLUDE constraint"), std::string::npos) << m;
  EXPECT_EQ(cluster_->on_each_shard("SELECT count(*) FROM pg_class WHERE relname = 'r'"),
            (std::vector<std::string>{"0", "0", "0"}));
  // On the key (every key column with =): the shards' own.
  same("CREATE TABLE r (id int PRIMARY KEY, room int, EXCLUDE USING btree (id WITH =))");
  same("CREATE TABLE s (id int8 PRIMARY KEY, email text, UNIQUE (email, id))");
  same("INSERT INTO r VALUES (1, 1), (2, 1)");
  spread("s", "(100), (200)");
  EXPECT_EQ(shards_with_constraint("s", "s_email_id_key"), 3);
  EXPECT_EQ(shards_with_index_table("s", "s_email_id_key"), 0);
  same("INSERT INTO s VALUES (1, 'a@x'), (150, 'a@x'), (250, 'a@x')");
  same("INSERT INTO s VALUES (150, 'a@x')");
  same_contents("s");
  EXPECT_NE(refused("ALTER TABLE s ADD CONSTRAINT s_e EXCLUDE USING btree (email WITH =)")
                .find("EXCLUDE constraint"),
            std::string::npos);
  // A type a global index cannot take: the CREATE TABLE fails and leaves no table behind.
  m = refused("CREATE TABLE t_inet (id int PRIMARY KEY, addr inet UNIQUE)");
  EXPECT_NE(m.find("t_inet_addr_key"), std::string::npos) << m;
  EXPECT_EQ(cluster_->on_each_shard("SELECT count(*) FROM pg_class WHERE relname = 't_inet'"),
            (std::vector<std::string>{"0", "0", "0"}));
  EXPECT_FALSE(pq_exec(sbs_->pgrange(), "SHOW RANGES FROM TABLE t_inet").ok());
  same("CREATE TABLE t_inet (id int PRIMARY KEY, addr inet, UNIQUE (addr, id))");
  refused("CREATE TABLE d (id int PRIMARY KEY, v int UNIQUE DEFERRABLE INITIALLY DEFERRED)");
  refused("CREATE TABLE d (id int PRIMARY KEY, v int, UNIQUE (v) WITH (fillfactor = 70))");
  // An ordinary index on every shard would enforce it on each shard's rows only.
  EXPECT_NE(refused("CREATE UNIQUE INDEX s_email_local ON s (email) WITH (local = true)")
                .find("local UNIQUE index"),
            std::string::npos);
  refused("CREATE UNIQUE INDEX s_email_part ON s (email) WHERE email <> ''");
  refused("CREATE UNIQUE INDEX s_email_lower ON s (lower(email))");
  ok("CREATE UNIQUE INDEX s_email_id_local ON s (email, id) WITH (local = true)");
  // A configured key that the primary key does not contain: refused.
  EXPECT_NE(refused("CREATE TABLE ck (id int PRIMARY KEY, k int)").find("PRIMARY KEY"),
            std::string::npos);
  same("CREATE TABLE ck (id int, k int, v text UNIQUE, PRIMARY KEY (k, id))");
  EXPECT_EQ(shards_with_index_table("ck", "ck_v_key"), 3);
  same("INSERT INTO ck VALUES (1, 50, 'a'), (2, 150, 'b')");
  same("INSERT INTO ck VALUES (3, 250, 'a')");
  same_contents("ck");
}

TEST_F(UniqueConstraintTest, SpreadingIsRefusedWhileShardsEnforceOnTheirOwnRows) {
  // A spread table whose shards have a unique index of their own (as an older pgrange let
  // through): it is not what the moves below are about, and does not stop them.
  same("CREATE TABLE legacy (id int8 PRIMARY KEY, v int)");
  spread("legacy", "(100), (200)");
  for (int i = 0; i < cluster_->size(); ++i) {
    auto d = cluster_->direct(i);
    ASSERT_TRUE(pq_exec(d.get(), "CREATE UNIQUE INDEX legacy_v ON legacy (v)").ok());
  }
  // An unsharded table: its constraint and unique index are the shard's own.
  same("CREATE TABLE u (id int8 NOT NULL, email text UNIQUE, code text)");
  same("CREATE UNIQUE INDEX u_code ON u (code)");
  same("INSERT INTO u SELECT g, 'e' || g, 'c' || g FROM generate_series(1, 300) g");
  // It becomes keyed, but stays on one shard while those would no longer hold across shards.
  same("ALTER TABLE u ADD PRIMARY KEY (id)");
  ok("ALTER TABLE u SPLIT AT VALUES (100), (200)");
  std::string m = refused("ALTER TABLE u SCATTER");
  EXPECT_NE(m.find("UNIQUE constraint \"u_email_key\""), std::string::npos) << m;
  SqlResult hint = pq_exec(sbs_->pgrange(), "ALTER TABLE u SCATTER");
  EXPECT_EQ(hint.hint,
            "drop the constraint and add it again (ALTER TABLE u DROP CONSTRAINT u_email_key, "
            "then ALTER TABLE u ADD CONSTRAINT u_email_key UNIQUE (email)): pgrange then makes "
            "it a global index, enforced across shards");
  SqlResult ranges = pq_exec(sbs_->pgrange(), "SHOW RANGES FROM TABLE u");
  ASSERT_EQ(ranges.rows.size(), 3u);
  std::string other = ranges.at(1, 3) == "s1" ? "s2" : "s1";
  SqlResult moved =
      pq_exec(sbs_->pgrange(), "ALTER RANGE " + ranges.at(1, 2) + " RELOCATE TO '" + other + "'");
  EXPECT_EQ(moved.sqlstate, "0A000") << outcome_text(moved);
  same_contents("u");
  // What the message says to do makes it global; then the unique index is in the way.
  same("ALTER TABLE u DROP CONSTRAINT u_email_key");
  same("ALTER TABLE u ADD CONSTRAINT u_email_key UNIQUE (email)");
  m = refused("ALTER TABLE u SCATTER");
  EXPECT_NE(m.find("UNIQUE index \"u_code\""), std::string::npos) << m;
  same("DROP INDEX u_code");
  same("CREATE UNIQUE INDEX u_code ON u (code)");
  spread("u", "(100), (200)");
  same("INSERT INTO u VALUES (400, 'e5', 'x')");
  same("INSERT INTO u VALUES (401, 'y', 'c250')");
  same_contents("u");

  // A keyed table's UNIQUE index made while it was one range: global, still enforced once
  // split and spread.
  same("CREATE TABLE w (id int8 PRIMARY KEY, email text)");
  same("CREATE UNIQUE INDEX w_email ON w (email)");
  same("INSERT INTO w SELECT g, 'e' || g FROM generate_series(1, 300) g");
  spread("w", "(100), (200)");
  same("INSERT INTO w VALUES (301, 'e10')");
  same("UPDATE w SET email = 'e290' WHERE id = 5");
  same_contents("w");

  // IMPORT TABLE of a table whose shard enforces a UNIQUE constraint: not spread.
  for (int i = 0; i < cluster_->size(); ++i) {
    auto d = cluster_->direct(i);
    ASSERT_TRUE(pq_exec(d.get(), "CREATE TABLE imp (id int8 PRIMARY KEY, email text UNIQUE)").ok());
  }
  {
    auto d = cluster_->direct(0);
    ASSERT_TRUE(
        pq_exec(d.get(), "INSERT INTO imp SELECT g, 'e' || g FROM generate_series(1, 300) g").ok());
  }
  ok("IMPORT TABLE imp");
  ok("ALTER TABLE imp SPLIT AT VALUES (100), (200)");
  m = refused("ALTER TABLE imp SCATTER");
  EXPECT_NE(m.find("imp_email_key"), std::string::npos) << m;
}

// A cluster of one shard: that shard holds every row, so its constraints stay its own.
TEST(UniqueConstraintOneShard, ConstraintsStayTheShards) {
  ShardCluster::Options o;
  o.shards = 1;
  auto cluster = ShardCluster::start(o);
  auto c = cluster->client();
  for (const char* sql : {
           "CREATE TABLE p (id int8 PRIMARY KEY, email text UNIQUE, during tsrange, "
           "EXCLUDE USING gist (during WITH &&))",
           "ALTER TABLE p ADD CONSTRAINT p_id_email UNIQUE (email) DEFERRABLE",
           "INSERT INTO p VALUES (1, 'a@x', '[2020-01-01, 2020-02-01)')",
       }) {
    SqlResult r = pq_exec(c.get(), sql);
    EXPECT_TRUE(r.ok()) << sql << ": " << r.message;
  }
  EXPECT_EQ(cluster->on_each_shard("SELECT count(*) FROM pg_constraint WHERE conrelid = "
                                   "'p'::regclass AND contype IN ('u', 'x')"),
            std::vector<std::string>{"3"});
  EXPECT_EQ(cluster->on_each_shard("SELECT count(*) FROM pg_class WHERE relname LIKE 'p@%'"),
            std::vector<std::string>{"0"});
  SqlResult dup = pq_exec(c.get(), "INSERT INTO p VALUES (2, 'a@x')");
  EXPECT_EQ(dup.sqlstate, "23505");
  EXPECT_EQ(dup.message, "duplicate key value violates unique constraint \"p_email_key\"");
}

}  // namespace
}  // namespace pgrange::testing
