// FOREIGN KEY constraints through pgrange. Over several shards each shard would check a
// constraint against its own rows only (a false 23503 where the referenced row is on another
// shard, a missed one where nothing is there to check, cascades that reach one shard), so
// pgrange refuses them when they are declared and nothing of the statement is left behind. With
// one shard PostgreSQL enforces them, compared here with one plain PostgreSQL (database "ref").
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "tests/support/side_by_side.hpp"

namespace pgrange::testing {
namespace {

ShardCluster* start_cluster(int shards) {
  ShardCluster::Options o;
  o.shards = shards;
  o.databases = {"app", "ref"};
  return ShardCluster::start(o).release();
}

/// How many shards have a FOREIGN KEY constraint on the table, or a table of that name.
int shards_with(const ShardCluster& cluster, const std::string& sql) {
  int n = 0;
  for (const std::string& v : cluster.on_each_shard(sql)) n += v != "0" ? 1 : 0;
  return n;
}

int shards_with_foreign_keys(const ShardCluster& cluster, const std::string& table) {
  return shards_with(cluster,
                     "SELECT count(*) FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid "
                     "WHERE r.relname = '" +
                         table + "' AND c.contype = 'f'");
}

int shards_with_table(const ShardCluster& cluster, const std::string& table) {
  return shards_with(cluster, "SELECT count(*) FROM pg_class WHERE relname = '" + table + "'");
}

class ForeignKeyOverShardsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { cluster_ = start_cluster(3); }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override { sbs_.emplace(*cluster_); }

  static ShardCluster* cluster_;
  std::optional<SideBySide> sbs_;
};

ShardCluster* ForeignKeyOverShardsTest::cluster_ = nullptr;

TEST_F(ForeignKeyOverShardsTest, RefusedWhenDeclaredAndNothingIsLeft) {
  sbs_->same("CREATE TABLE p (id int8 PRIMARY KEY, name text)");
  sbs_->same("INSERT INTO p SELECT g, 'p' || g FROM generate_series(1, 300) g");
  sbs_->spread("p", "(100), (200)");

  // A column constraint, a table constraint with a name, a self-reference.
  std::string m = sbs_->refused(
      "CREATE TABLE c (id int8 PRIMARY KEY, p_id int8 REFERENCES p (id) ON DELETE CASCADE)");
  EXPECT_NE(m.find("FOREIGN KEY (p_id) REFERENCES p (id) of table \"c\""), std::string::npos) << m;
  EXPECT_NE(m.find("several shards"), std::string::npos) << m;
  m = sbs_->refused(
      "CREATE TABLE c (id int8 PRIMARY KEY, p_id int8, "
      "CONSTRAINT c_p FOREIGN KEY (p_id) REFERENCES public.p)");
  EXPECT_NE(m.find("FOREIGN KEY \"c_p\" (p_id) REFERENCES public.p of table \"c\""),
            std::string::npos)
      << m;
  m = sbs_->refused("CREATE TABLE tree (id int8 PRIMARY KEY, up int8 REFERENCES tree)");
  EXPECT_NE(m.find("REFERENCES tree of table \"tree\""), std::string::npos) << m;
  EXPECT_EQ(shards_with_table(*cluster_, "c"), 0);
  EXPECT_EQ(shards_with_table(*cluster_, "tree"), 0);
  SqlResult gone = pq_exec(sbs_->pgrange(), "SELECT count(*) FROM c");
  EXPECT_EQ(gone.sqlstate, "42P01") << outcome_text(gone);

  // On a table that exists: ADD CONSTRAINT, ADD COLUMN … REFERENCES, and a constraint among
  // other subcommands; none of the ALTER TABLE is applied.
  sbs_->same("CREATE TABLE c (id int8 PRIMARY KEY, p_id int8)");
  sbs_->same("INSERT INTO c SELECT g, g FROM generate_series(1, 300) g");
  sbs_->spread("c", "(50), (250)");
  m = sbs_->refused("ALTER TABLE c ADD CONSTRAINT c_p FOREIGN KEY (p_id) REFERENCES p (id)");
  EXPECT_NE(m.find("FOREIGN KEY \"c_p\" (p_id) REFERENCES p (id)"), std::string::npos) << m;
  sbs_->refused("ALTER TABLE c ADD COLUMN q int8 REFERENCES p");
  sbs_->refused("ALTER TABLE c ADD COLUMN note text, ADD FOREIGN KEY (p_id) REFERENCES p");
  EXPECT_EQ(shards_with_foreign_keys(*cluster_, "c"), 0);
  sbs_->same("SELECT count(*) FROM information_schema.columns WHERE table_name = 'c'");

  // The tables keep working without the constraint, as the reference does.
  sbs_->same("DELETE FROM p WHERE id BETWEEN 95 AND 105");
  sbs_->same("INSERT INTO c VALUES (301, 100)");
  sbs_->same("SELECT count(*) FROM c WHERE p_id BETWEEN 95 AND 105");  // their parents are gone
  sbs_->same_contents("c");
}

TEST_F(ForeignKeyOverShardsTest, TemporaryTablesKeepTheirConstraints) {
  // Temporary tables live in the client's own session on one shard, which enforces them.
  sbs_->same("CREATE TEMP TABLE tp (id int8 PRIMARY KEY)");
  sbs_->same(
      "CREATE TEMP TABLE tc (id int8 PRIMARY KEY, p_id int8 REFERENCES tp ON DELETE CASCADE)");
  sbs_->same("INSERT INTO tp VALUES (1), (2)");
  sbs_->same("INSERT INTO tc VALUES (10, 1), (20, 2)");
  sbs_->same("INSERT INTO tc VALUES (30, 3)");  // 23503 on both
  sbs_->same("DELETE FROM tp WHERE id = 1");
  sbs_->same_contents("tc");
}

class ForeignKeyOneShardTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { cluster_ = start_cluster(1); }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override { sbs_.emplace(*cluster_); }

  static ShardCluster* cluster_;
  std::optional<SideBySide> sbs_;
};

ShardCluster* ForeignKeyOneShardTest::cluster_ = nullptr;

TEST_F(ForeignKeyOneShardTest, PostgresEnforcesThem) {
  sbs_->same("CREATE TABLE p (id int8 PRIMARY KEY, name text)");
  sbs_->same(
      "CREATE TABLE c (id int8 PRIMARY KEY, p_id int8 REFERENCES p (id) ON DELETE CASCADE, "
      "p_set int8 REFERENCES p ON DELETE SET NULL)");
  sbs_->same("CREATE TABLE r (id int8 PRIMARY KEY, p_id int8)");
  sbs_->same("ALTER TABLE r ADD CONSTRAINT r_p FOREIGN KEY (p_id) REFERENCES p (id)");
  sbs_->spread("p", "(100), (200)");
  sbs_->same("INSERT INTO p SELECT g, 'p' || g FROM generate_series(1, 300) g");
  sbs_->same("INSERT INTO c SELECT g, g, 301 - g FROM generate_series(1, 300) g");
  sbs_->same("INSERT INTO r VALUES (1, 150)");
  sbs_->same("INSERT INTO c VALUES (1000, 999, NULL)");  // 23503 on both
  sbs_->same("DELETE FROM p WHERE id = 150");            // 23503: r references it
  sbs_->same("DELETE FROM p WHERE id BETWEEN 95 AND 105");
  sbs_->same_contents("p");
  sbs_->same_contents("c");
  EXPECT_EQ(shards_with_foreign_keys(*cluster_, "c"), 1);
}

}  // namespace
}  // namespace pgrange::testing
