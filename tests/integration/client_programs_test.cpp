// Programs written the way applications use their client libraries, run through pgrange over
// three real PostgreSQL 15 shards with the tables split and spread, and against one plain
// PostgreSQL (database "ref"): the same output, line by line. psycopg2 (Debian's
// python3-psycopg2) with autocommit off, its default: every statement inside a transaction
// block, migrations included. SQLAlchemy's ORM (Debian's python3-sqlalchemy) over psycopg2,
// as an application written with it runs. JDBC (Debian's libpostgresql-jdbc-java): the extended
// query protocol for everything, server-side prepared statements, batches, getGeneratedKeys.
// node-postgres (npm's pg, installed into .node/ by scripts/install-deps.sh): parameterised
// and named statements, transactions sent as queries.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/process.hpp"
#include "tests/support/side_by_side.hpp"

namespace pgrange::testing {
namespace {

class ClientProgramsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ShardCluster::Options o;
    o.databases = {"app", "ref"};
    // The programs' joins phases read these reference tables (every shard holds them).
    o.extra_toml =
        "\n[[table]]\nname = \"ref_cities\"\nreference = true\n"
        "[[table]]\nname = \"ref_kinds\"\nreference = true\n"
        "[[table]]\nname = \"ref_groups\"\nreference = true\n";
    cluster_ = ShardCluster::start(o).release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }

  /// The program's output (stdout and stderr); a failing exit is a test failure.
  static std::string run(const std::vector<std::string>& argv) {
    int code = 0;
    std::string out = run_command(argv, "", &code);
    EXPECT_EQ(code, 0) << out;
    return out;
  }

  /// A program's command line for a database (its libpq connection string) and a phase.
  using Program =
      std::function<std::vector<std::string>(const std::string& dsn, const std::string& phase)>;

  /// Runs `phase` of `program` through pgrange, then against the reference: the same output
  /// (returned) is required.
  static std::string same_output(const Program& program, const std::string& phase) {
    std::string got = run(program(cluster_->proxy().dsn(), phase));
    std::string want = run(program(cluster_->shard(0).dsn("ref"), phase));
    EXPECT_EQ(got, want) << phase << ": " << first_difference(want, got);
    return got;
  }

  /// A Python program's command line.
  static Program python(const std::string& path) {
    return [path](const std::string& dsn, const std::string& phase) {
      return std::vector<std::string>{"/usr/bin/python3", path, dsn, phase};
    };
  }

  /// A field of a libpq connection string ("" when absent; values without spaces).
  static std::string field(const std::string& dsn, const std::string& name) {
    size_t at = dsn.find(name + "=");
    if (at == std::string::npos) return "";
    at += name.size() + 1;
    return dsn.substr(at, dsn.find(' ', at) - at);
  }

  static ShardCluster* cluster_;
};

ShardCluster* ClientProgramsTest::cluster_ = nullptr;

TEST_F(ClientProgramsTest, Psycopg2ProgramWithAutocommitOff) {
  Program program = python(PGRANGE_SOURCE_DIR "/tests/integration/clients/psycopg2_app.py");
  std::string migrated = same_output(program, "migrate");
  EXPECT_NE(migrated.find("migrated: True"), std::string::npos) << migrated;
  // The new tables are pgrange's: split and spread over the shards before the work starts.
  SideBySide s(*cluster_);
  s.spread("customers", "(2), (4)");
  s.spread("orders", "(10), (25)");
  s.spread("line_items", "(10), (25)");
  s.spread("events",
           "('55555555-0000-0000-0000-000000000000'), ('aaaaaaaa-0000-0000-0000-000000000000')");
  std::string worked = same_output(program, "work");
  EXPECT_NE(worked.find("failing step: 42P01"), std::string::npos) << worked;
  // The rows really are spread, and the failed migration left nothing on any shard.
  for (const std::string& n : cluster_->on_each_shard("SELECT count(*) FROM orders")) {
    EXPECT_NE(n, "0");
  }
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM audit"), 2);
  s.same("SELECT * FROM orders ORDER BY id");
  s.same("SELECT * FROM line_items ORDER BY order_id, line");
  s.same("SELECT * FROM customers ORDER BY id");
  // Joins: the lines co-located with their orders, a reference table of cities.
  s.ok("ALTER TABLE line_items COLOCATE WITH orders");
  s.both("CREATE TABLE ref_cities (city text PRIMARY KEY, country text NOT NULL)");
  s.both(
      "INSERT INTO ref_cities VALUES ('london', 'UK'), ('arlington', 'US'), "
      "('nuenen', 'NL'), ('boston', 'US'), ('milwaukee', 'US')");
  std::string joined = same_output(program, "joins");
  EXPECT_NE(joined.find("local orders: "), std::string::npos) << joined;
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM ref_cities WHERE country = 'NL'"), 3)
      << "every shard's copy of the reference table took the update";
  s.same("SELECT * FROM orders ORDER BY id");
}

TEST_F(ClientProgramsTest, SqlAlchemyOrmProgram) {
  // The ORM itself (Debian's python3-sqlalchemy over psycopg2): its introspection, unit of
  // work with batched INSERT … RETURNING, savepoints, paging, Query.count(), streamed results.
  Program program = python(PGRANGE_SOURCE_DIR "/tests/integration/clients/sqlalchemy_app.py");
  std::string migrated = same_output(program, "migrate");
  EXPECT_NE(migrated.find("failing step: 42P01"), std::string::npos) << migrated;
  SideBySide s(*cluster_);
  s.spread("sa_customers", "(3), (6)");
  s.spread("sa_orders", "(10), (25)");
  s.spread("sa_line_items", "(10), (25)");
  s.spread("sa_events",
           "('55555555-0000-0000-0000-000000000000'), ('aaaaaaaa-0000-0000-0000-000000000000')");
  std::string worked = same_output(program, "work");
  EXPECT_NE(worked.find("events found by their keys"), std::string::npos) << worked;
  for (const char* table : {"sa_customers", "sa_orders", "sa_line_items", "sa_events"}) {
    for (const std::string& n :
         cluster_->on_each_shard(std::string("SELECT count(*) FROM ") + table)) {
      EXPECT_NE(n, "0") << table;
    }
  }
  s.same("SELECT id, name, city, tier FROM sa_customers ORDER BY id");
  s.same("SELECT order_id, line, sku, qty FROM sa_line_items ORDER BY order_id, line");
  s.same("SELECT id, customer_id, total, status FROM sa_orders ORDER BY id");
  s.same("SELECT seq, kind, payload FROM sa_events ORDER BY seq");
}

TEST_F(ClientProgramsTest, JdbcProgram) {
  // Compiled here, with the driver on the class path.
  const std::string jar = "/usr/share/java/postgresql.jar";
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "pgrange-jdbc-app";
  std::filesystem::create_directories(dir);
  run({"/usr/bin/javac", "-cp", jar, "-d", dir.string(),
       PGRANGE_SOURCE_DIR "/tests/integration/clients/JdbcApp.java"});
  const std::string classpath = jar + ":" + dir.string();
  Program program = [&](const std::string& dsn, const std::string& phase) {
    std::string url =
        "jdbc:postgresql://127.0.0.1:" + field(dsn, "port") + "/" + field(dsn, "dbname");
    return std::vector<std::string>{
        "/usr/bin/java",        "-cp", classpath, "JdbcApp", url, field(dsn, "user"),
        field(dsn, "password"), phase};
  };
  std::string migrated = same_output(program, "migrate");
  EXPECT_NE(migrated.find("migrated: true"), std::string::npos) << migrated;
  SideBySide s(*cluster_);
  s.spread("accounts", "(4), (8)");
  s.spread("transfers", "(7), (14)");
  std::string worked = same_output(program, "work");
  EXPECT_NE(worked.find("duplicate: 23505"), std::string::npos) << worked;
  // The ORM part ran to its end: its savepoint, versioned updates and rewritten batch.
  EXPECT_NE(worked.find("savepoint insert: 23505"), std::string::npos) << worked;
  EXPECT_NE(worked.find("versioned update 1: 0"), std::string::npos) << worked;
  EXPECT_NE(worked.find("insert select: 3"), std::string::npos) << worked;
  EXPECT_NE(worked.find("batched rows: [9|36.00|-1007|1008]"), std::string::npos) << worked;
  for (const std::string& n : cluster_->on_each_shard("SELECT count(*) FROM transfers")) {
    EXPECT_NE(n, "0");
  }
  s.same("SELECT * FROM accounts ORDER BY id");
  s.same("SELECT * FROM transfers ORDER BY id");
  s.both("CREATE TABLE ref_kinds (id int PRIMARY KEY, label text NOT NULL)");
  s.both("INSERT INTO ref_kinds VALUES (0, 'even'), (1, 'odd'), (2, 'other')");
  std::string joined = same_output(program, "joins");
  EXPECT_NE(joined.find("renamed kinds: 1"), std::string::npos) << joined;
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM ref_kinds WHERE label = 'renamed'"), 3);
}

TEST_F(ClientProgramsTest, NodePostgresProgram) {
  const std::string modules = PGRANGE_SOURCE_DIR "/.node/node_modules";
  ASSERT_TRUE(std::filesystem::exists(modules + "/pg"))
      << "npm's pg is missing: run scripts/install-deps.sh";
  Program program = [&](const std::string& dsn, const std::string& phase) {
    std::string password = field(dsn, "password");
    std::string url = "postgresql://" + field(dsn, "user") + (password.empty() ? "" : ":") +
                      password + "@127.0.0.1:" + field(dsn, "port") + "/" + field(dsn, "dbname");
    return std::vector<std::string>{"/usr/bin/env",
                                    "NODE_PATH=" + modules,
                                    "node",
                                    PGRANGE_SOURCE_DIR "/tests/integration/clients/node_app.js",
                                    url,
                                    phase};
  };
  std::string migrated = same_output(program, "migrate");
  EXPECT_NE(migrated.find("migrated: true"), std::string::npos) << migrated;
  SideBySide s(*cluster_);
  s.spread("node_items", "(4), (8)");
  s.spread("node_moves",
           "('55555555-0000-0000-0000-000000000000'), ('aaaaaaaa-0000-0000-0000-000000000000')");
  std::string worked = same_output(program, "work");
  EXPECT_NE(worked.find("failed update: \"23514\""), std::string::npos) << worked;
  for (const std::string& n : cluster_->on_each_shard("SELECT count(*) FROM node_items")) {
    EXPECT_NE(n, "0");
  }
  s.same("SELECT * FROM node_items ORDER BY id");
  s.same("SELECT item_id, delta, at_step FROM node_moves ORDER BY item_id, at_step");
  s.both("CREATE TABLE ref_groups (id int PRIMARY KEY, name text NOT NULL)");
  s.both("INSERT INTO ref_groups VALUES (0, 'g0'), (1, 'g1'), (2, 'g2'), (3, 'g3')");
  std::string joined = same_output(program, "joins");
  EXPECT_NE(joined.find("\"name\":\"zero\""), std::string::npos) << joined;
  EXPECT_EQ(cluster_->sum_direct("SELECT count(*) FROM ref_groups WHERE name = 'zero'"), 3);
}

}  // namespace
}  // namespace pgrange::testing
