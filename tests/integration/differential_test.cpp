// Differential test: pgrange must never give a wrong answer. Every statement of
// tests/integration/differential/corpus.sql (and of joins.sql and queries.sql, below) runs through
// a three-shard pgrange (tables split into many ranges and scattered) and on one plain PostgreSQL
// 15 holding the same rows. pgrange either answers exactly what the plain server answers (SQLSTATE,
// column names, command tag and rows — in order under a total top-level ORDER BY, as multisets
// otherwise) or refuses with 0A000. The corpus runs twice: in the simple protocol, and in the
// extended protocol with the constants a WHERE clause compares columns with (and the values of
// INSERT … VALUES, LIMIT and OFFSET) bound as $n text parameters.
//
// Corpus format (tests/support/statement_file.hpp): one statement per line, or several lines up
// to one ending in ';'. `--` lines are comments; `-- group: NAME` starts a group (counted in the
// summary). A statement whose top-level ORDER BY leaves ties is marked `/*ties*/` and compared
// as a multiset. Set
// PGRANGE_DIFFERENTIAL_EXTRA to the path of another file of that format to run it after the
// corpus (e.g. statements under investigation, kept out of the corpus).
//
// setup.sql may use pgrange's own CREATE TABLE / CREATE INDEX syntax (USING HASH WITH
// (bucket_count = n), STORING (…), WITH (local = true)): the reference server gets the statement
// without it (reference_sql). splits.sql may say `ALTER INDEX t@i SCATTER`; while pgrange does
// not take it, the test spreads the index's ranges over the shards itself with ALTER RANGE …
// RELOCATE TO.
#include "tests/support/differential.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/differential_setup.hpp"
#include "tests/support/pg_server.hpp"
#include "tests/support/proxy_process.hpp"
#include "tests/support/sanitizer.hpp"
#include "tests/support/sql_parameters.hpp"
#include "tests/support/statement_file.hpp"

namespace pgrange::testing {
namespace {

const std::string kDir = std::string(PGRANGE_SOURCE_DIR) + "/tests/integration/differential/";

/// What EXPLAIN ANALYZE of `sql` answers on `conn`, its lines as one string (a failed
/// expectation when it fails).
std::string explain_analyze(PGconn* conn, const std::string& sql) {
  SqlResult plan = pq_exec(conn, "EXPLAIN ANALYZE " + sql);
  EXPECT_TRUE(plan.ok()) << sql << ": " << plan.sqlstate << " " << plan.message;
  std::string text;
  for (const auto& row : plan.rows) text += row.at(0) + "\n";
  return text;
}

/// A seeded random statement over the join corpus' tables (setup.sql): 2–4 of them (a table
/// may come twice) joined by their join columns with every kind of join, conditions on them
/// (sometimes a subquery, correlated or not), and either every key column under a total ORDER
/// BY (sometimes with LIMIT/OFFSET; the join sometimes in a CTE, in a set operation with
/// itself, or with window functions over it) or aggregates grouped by a column.
std::string random_join_query(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  struct Table {
    const char* name;
    std::vector<const char*> keys;
    std::vector<const char*> columns;     // others, for select lists and conditions
    std::vector<const char*> conditions;  // on alias `$`
  };
  const std::vector<Table> tables = {
      {"j_users",
       {"id"},
       {"name", "city", "score"},
       {"$.id = 7", "$.id IN (3, 31, 64, 95)", "$.id BETWEEN 20 AND 70", "$.city = 'Rome'",
        "$.city IS NULL", "$.score < 30", "$.id > 100"}},
      {"j_orders",
       {"user_id", "id"},
       {"amount", "status", "item_code"},
       {"$.user_id = 44", "$.user_id < 25", "$.amount > 700", "$.status IS NULL",
        "$.status = 'open'", "$.id % 11 = 0"}},
      {"j_items",
       {"code"},
       {"title", "price", "cat"},
       {"$.code = 'i12'", "$.code > 'i40'", "$.cat IS NULL", "$.price < 20"}},
      {"j_cats", {"id"}, {"label"}, {"$.id IN (2, 5)", "$.label <> 'other'"}},
      {"j_events",
       {"id"},
       {"user_id", "kind", "at"},
       {"$.kind = 'buy'", "$.user_id IS NULL", "$.user_id < 40"}},
      {"j_visits",
       {"user_id", "n"},
       {"page", "secs"},
       {"$.user_id = 61", "$.user_id BETWEEN 25 AND 70", "$.page IS NULL", "$.secs > 200"}},
  };
  // Join columns: (table, column) = (table, column).
  struct Edge {
    size_t a;
    const char* ca;
    size_t b;
    const char* cb;
  };
  const std::vector<Edge> edges = {{0, "id", 1, "user_id"},
                                   {0, "id", 4, "user_id"},
                                   {1, "item_code", 2, "code"},
                                   {2, "cat", 3, "id"},
                                   {1, "user_id", 4, "user_id"},
                                   {0, "score", 3, "id"},
                                   {0, "id", 0, "id"},
                                   {1, "user_id", 1, "user_id"},
                                   // j_visits, co-located with j_users: joins on the key
                                   // prefix are pushed down, the others gathered.
                                   {0, "id", 5, "user_id"},
                                   {5, "user_id", 5, "user_id"},
                                   {1, "user_id", 5, "user_id"},
                                   {5, "n", 3, "id"}};
  const char* kinds[] = {"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"};
  struct Alias {
    size_t table;
    std::string name;
  };
  std::vector<Alias> aliases;
  auto alias_of = [&](size_t table) {
    Alias a{table, std::string(1, "uoicev"[table]) + std::to_string(aliases.size())};
    aliases.push_back(a);
    return a.name;
  };
  auto cond = [&](const Alias& a) {
    const auto& cs = tables[a.table].conditions;
    std::string c = cs[pick(cs.size())];
    for (size_t p; (p = c.find('$')) != std::string::npos;) c.replace(p, 1, a.name);
    return c;
  };
  size_t first = pick(tables.size());
  std::string from = std::string(tables[first].name) + " " + alias_of(first);
  size_t n = 2 + pick(3);
  while (aliases.size() < n) {
    // An edge from a table already there to the next one.
    std::vector<std::pair<size_t, bool>> options;  // edge, reversed
    for (size_t k = 0; k < edges.size(); ++k) {
      for (const Alias& a : aliases) {
        if (a.table == edges[k].a) options.emplace_back(k, false);
        if (a.table == edges[k].b) options.emplace_back(k, true);
      }
    }
    auto [k, reversed] = options[pick(options.size())];
    const Edge& e = edges[k];
    size_t from_table = reversed ? e.b : e.a;
    size_t to_table = reversed ? e.a : e.b;
    std::vector<const Alias*> sources;
    for (const Alias& a : aliases) {
      if (a.table == from_table) sources.push_back(&a);
    }
    std::string source = sources[pick(sources.size())]->name;
    std::string next = alias_of(to_table);
    std::string on =
        next + "." + (reversed ? e.ca : e.cb) + " = " + source + "." + (reversed ? e.cb : e.ca);
    if (e.a == e.b && pick(2) == 0) on += " + 1";  // a self-join on an expression
    if (pick(3) == 0) on += " AND " + cond(aliases.back());
    from +=
        std::string(" ") + kinds[pick(4)] + " " + tables[to_table].name + " " + next + " ON " + on;
  }
  std::string where;
  for (size_t w = pick(3); w > 0; --w) {
    std::string c = cond(aliases[pick(aliases.size())]);
    where += where.empty() ? " WHERE " + c : (pick(2) ? " AND " : " OR ") + c;
  }
  std::string keys;
  for (const Alias& a : aliases) {
    for (const char* k : tables[a.table].keys) {
      keys += (keys.empty() ? "" : ", ") + a.name + "." + k;
      if (pick(4) == 0) keys += " DESC";
      if (pick(4) == 0) keys += pick(2) ? " NULLS FIRST" : " NULLS LAST";
    }
  }
  if (pick(4) == 0) {
    // Aggregates grouped by one column of one of the tables.
    const Alias& g = aliases[pick(aliases.size())];
    const auto& cols = tables[g.table].columns;
    std::string col = g.name + "." + cols[pick(cols.size())];
    const Alias& c = aliases[pick(aliases.size())];
    return "SELECT " + col + ", count(*), count(" + c.name + "." + tables[c.table].keys[0] +
           "), count(DISTINCT " + c.name + ".*) FROM " + from + where + " GROUP BY " + col +
           " ORDER BY " + col;
  }
  std::string select;
  size_t width = 0;
  for (const Alias& a : aliases) {
    for (const char* k : tables[a.table].keys) {
      select += (select.empty() ? "" : ", ") + a.name + "." + k;
      ++width;
    }
    const auto& cols = tables[a.table].columns;
    select += ", " + a.name + "." + cols[pick(cols.size())];
    ++width;
  }
  // A subquery in the WHERE clause: uncorrelated (IN, NOT IN over a column with NULLs, a
  // scalar) or correlated (EXISTS), on the first table's alias.
  const Alias& front = aliases.front();
  const bool integer_key = front.table == 0 || front.table == 1 || front.table == 3 ||
                           front.table == 5;  // j_users, j_orders, j_cats, j_visits
  if (integer_key && pick(4) == 0) {
    const Alias& a = front;
    const std::string k = a.name + "." + tables[a.table].keys[0];
    const std::string subqueries[] = {
        k + " IN (SELECT user_id FROM j_orders WHERE amount > 600)",
        k + " NOT IN (SELECT user_id FROM j_events WHERE kind = 'view')",
        "EXISTS (SELECT 1 FROM j_events x WHERE x.user_id = " + k + ")",
        "(SELECT count(*) FROM j_cats) > 3",
        k + " IN (SELECT id FROM j_cats UNION SELECT user_id FROM j_visits WHERE secs > 250)"};
    const std::string& sub = subqueries[pick(5)];
    where += where.empty() ? " WHERE " + sub : " AND " + sub;
  }
  // Every selected column, in order: a total order (the keys of every table are among them).
  std::string positions;
  for (size_t c = 1; c <= width; ++c) positions += (c > 1 ? ", " : "") + std::to_string(c);
  std::string sql;
  switch (pick(8)) {
    case 0:  // the join in a CTE, read under its ORDER BY
      sql = "WITH q AS (SELECT " + select + " FROM " + from + where +
            ") SELECT * FROM q ORDER BY " + positions;
      break;
    case 1: {  // a set operation of the join with itself under another condition
      const char* ops[] = {"UNION", "UNION ALL", "INTERSECT", "EXCEPT"};
      std::string other = cond(aliases[pick(aliases.size())]);
      std::string second = where.empty() ? " WHERE " + other : where + " AND " + other;
      sql = "SELECT " + select + " FROM " + from + where + " " + ops[pick(4)] + " SELECT " +
            select + " FROM " + from + second + " ORDER BY " + positions;
      break;
    }
    case 2:  // window functions over the join, in the ORDER BY's order
      sql = "SELECT " + select + ", row_number() OVER (ORDER BY " + keys +
            ") AS rn, count(*) OVER () AS total FROM " + from + where + " ORDER BY " + keys;
      break;
    default:
      sql = "SELECT " + select + " FROM " + from + where + " ORDER BY " + keys;
  }
  if (pick(3) == 0) sql += " LIMIT " + std::to_string(1 + pick(20));
  if (pick(5) == 0) sql += " OFFSET " + std::to_string(pick(10));
  return sql;
}

class DifferentialTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    PgServer::Options o;
    o.databases = {"app"};
    ProxyConfig cfg;
    for (int i = 0; i < 3; ++i) {
      shards_[i] = PgServer::start(o).release();
      ProxyConfig::Shard s;
      s.name = "s" + std::to_string(i + 1);
      s.dsn = shards_[i]->dsn("app") + " user=postgres";
      s.pool_size = 4;
      cfg.shards.push_back(s);
    }
    reference_ = PgServer::start(o).release();
    cfg.users.push_back({"app", "secret", "scram-sha-256", true});
    // The join corpus' categories are a reference table (every shard holds all of them); the
    // users' visits are co-located with the users (their ranges follow the users').
    cfg.extra_toml =
        "\n[[table]]\nname = \"j_cats\"\nreference = true\n"
        "[[table]]\nname = \"j_visits\"\ncolocate_with = \"j_users\"\n";
    // Two instances over the same shards and metadata: one that plans joins with the shards'
    // size estimates (read often here), one without any.
    cfg.table_sizes_interval_ms = 200;
    config_ = new ProxyConfig(cfg);
    proxy_ = ProxyProcess::start(cfg).release();
    cfg.table_sizes_interval_ms = 0;
    unsized_ = ProxyProcess::start(cfg).release();

    auto p = pq_connect(proxy_->dsn());
    ASSERT_EQ(PQstatus(p.get()), CONNECTION_OK) << PQerrorMessage(p.get());
    auto r = pq_connect(reference_->dsn("app"));
    ASSERT_EQ(PQstatus(r.get()), CONNECTION_OK) << PQerrorMessage(r.get());
    SetupResult setup;
    run_setup(p.get(), r.get(), read_statements(kDir + "setup.sql"), &setup);
    run_ranges(p.get(), read_statements(kDir + "splits.sql"), &setup);
    // This corpus needs every table: set-up refusals are failures here too.
    ASSERT_TRUE(setup.failures.empty() && setup.refusals.empty()) << setup.report();
    // The sizes of the tables just loaded, once every shard has reported them.
    const char* probe =
        "EXPLAIN SELECT count(*) FROM j_users u JOIN j_orders o ON o.user_id = u.id";
    std::string plan;
    for (int i = 0; i < 100 && plan.find("estimated size") == std::string::npos; ++i) {
      if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      SqlResult e = pq_exec(p.get(), probe);
      plan.clear();
      for (const auto& row : e.rows) plan += row[0] + "\n";
    }
    ASSERT_NE(plan.find("estimated size"), std::string::npos) << plan;
  }

  static void TearDownTestSuite() {
    delete config_;
    config_ = nullptr;
    delete unsized_;
    unsized_ = nullptr;
    delete proxy_;
    proxy_ = nullptr;
    for (auto*& s : shards_) {
      delete s;
      s = nullptr;
    }
    delete reference_;
    reference_ = nullptr;
  }

  /// Runs every statement on both sides and compares; `extended` binds constants as parameters,
  /// `binary` asks for binary results.
  static Tally run_corpus(const std::vector<Statement>& corpus, bool extended,
                          ProxyProcess* through = nullptr, bool binary = false) {
    Tally t;
    auto p = pq_connect((through != nullptr ? through : proxy_)->dsn());
    auto r = pq_connect(reference_->dsn("app"));
    EXPECT_EQ(PQstatus(p.get()), CONNECTION_OK) << PQerrorMessage(p.get());
    EXPECT_EQ(PQstatus(r.get()), CONNECTION_OK) << PQerrorMessage(r.get());
    for (const Statement& s : corpus) {
      t.add(s.group, compare_statement(p.get(), r.get(), s.sql, s.group, s.line, extended, binary));
    }
    return t;
  }

  static void report(const char* protocol, const Tally& t) {
    std::cout << t.report(std::string(protocol) + " protocol") << std::flush;
  }

  static std::vector<Statement> corpus() {
    std::vector<Statement> c = read_statements(kDir + "corpus.sql");
    if (const char* extra = std::getenv("PGRANGE_DIFFERENTIAL_EXTRA"); extra && *extra) {
      for (Statement& s : read_statements(extra)) c.push_back(std::move(s));
    }
    return c;
  }

  static void check(const Tally& t) {
    for (const auto& m : t.mismatches) ADD_FAILURE() << "wrong answer from pgrange: " << m;
    EXPECT_GE(t.run, 300);
    // Refusing everything would pass trivially: most of the corpus must be answered.
    EXPECT_GE(t.identical * 10, t.run * 4) << "fewer than 40% identical answers";
  }

  /// An instance with 1 KiB of query_memory (its least) writing into a temporary directory of
  /// its own, with a connection to it and one to the reference.
  struct SmallInstance {
    std::string temp;
    std::unique_ptr<ProxyProcess> proxy;
    PgConnPtr p, r;
  };
  static SmallInstance start_small(const char* name) {
    std::string temp =
        std::filesystem::temp_directory_path().string() + "/pgrange-" + name + "-XXXXXX";
    if (::mkdtemp(temp.data()) == nullptr) throw std::runtime_error("mkdtemp " + temp);
    ProxyConfig cfg = *config_;
    cfg.table_sizes_interval_ms = 0;
    cfg.query_memory = 1024;
    cfg.temp_directory = temp;
    auto proxy = ProxyProcess::start(cfg);
    PgConnPtr p = pq_connect(proxy->dsn());
    return SmallInstance{temp, std::move(proxy), std::move(p), pq_connect(reference_->dsn("app"))};
  }

  static PgServer* shards_[3];
  static PgServer* reference_;
  static ProxyConfig* config_;  ///< the instances' configuration
  static ProxyProcess* unsized_;
  static ProxyProcess* proxy_;
};
PgServer* DifferentialTest::shards_[3] = {nullptr, nullptr, nullptr};
PgServer* DifferentialTest::reference_ = nullptr;
ProxyProcess* DifferentialTest::proxy_ = nullptr;
ProxyProcess* DifferentialTest::unsized_ = nullptr;
ProxyConfig* DifferentialTest::config_ = nullptr;

TEST_F(DifferentialTest, ParameterisationBindsTheComparedConstants) {
  Parameterised p = parameterise(
      "SELECT x, 'lit' FROM t WHERE a = 5 AND b <= 'it''s' AND c IN (1, -2, 'z') AND d BETWEEN 3 "
      "AND 4 AND e LIKE 'ab%' AND u = 'x'::uuid AND f + 1 = 2 ORDER BY x LIMIT 3 OFFSET 7");
  EXPECT_EQ(p.sql,
            "SELECT x, 'lit' FROM t WHERE a = $1 AND b <= $2 AND c IN ($3, $4, $5) AND d BETWEEN "
            "$6 AND $7 AND e LIKE $8 AND u = $9::uuid AND f + 1 = $10 ORDER BY x LIMIT $11 "
            "OFFSET $12");
  EXPECT_EQ(p.values, (std::vector<std::string>{"5", "it's", "1", "-2", "z", "3", "4", "ab%", "x",
                                                "2", "3", "7"}));
  Parameterised ins = parameterise("INSERT INTO t (a, b) VALUES (1, 'x'), (-2, 'y' || 'z')");
  EXPECT_EQ(ins.sql, "INSERT INTO t (a, b) VALUES ($1, $2), ($3, 'y' || 'z')");
  EXPECT_TRUE(ordered("SELECT * FROM t WHERE a IN (SELECT 1 ORDER BY 1) ORDER BY a"));
  EXPECT_FALSE(ordered("SELECT * FROM t WHERE a IN (SELECT 1 ORDER BY 1)"));
  EXPECT_FALSE(ordered("SELECT * FROM t ORDER BY grp /*ties*/"));
}

TEST_F(DifferentialTest, SimpleProtocolAnswersLikePostgres) {
  Tally t = run_corpus(corpus(), false);
  report("simple", t);
  check(t);
}

// Then again with binary results (as pgjdbc asks for them once a statement is prepared on the
// server): the values a merge passes through come in the client's format from the shards;
// those it combines (aggregates, their groups) it combines in text and sends in binary. The
// bytes must be PostgreSQL's, and nothing may be refused that text results answer. A regclass
// goes as its OID in binary, and OIDs differ between databases: those statements are left to
// the text run.
// Under the sanitizer only the binary run: it binds the same parameters.
TEST_F(DifferentialTest, ExtendedProtocolWithParametersAnswersLikePostgres) {
  std::vector<Statement> statements = corpus();
  Tally t;
  if (!sanitized_run()) {
    t = run_corpus(statements, true);
    report("extended", t);
    check(t);
    EXPECT_GE(t.parameterised, 100);
  }
  std::vector<Statement> oid_free;
  for (Statement& s : statements) {
    if (s.sql.find("regclass") == std::string::npos) oid_free.push_back(std::move(s));
  }
  Tally b = run_corpus(oid_free, true, nullptr, true);
  report("extended, binary results", b);
  check(b);
  EXPECT_GE(b.parameterised, 100);
  if (sanitized_run()) return;
  for (const std::string& r : b.refusals) {
    EXPECT_NE(std::find(t.refusals.begin(), t.refusals.end(), r), t.refusals.end())
        << "refused with binary results only: " << r;
  }
}

// joins.sql: statements over several tables spread across the shards (joins of every kind,
// subqueries, CTEs, set operations, windows over joins), which pgrange runs by reading each
// table's rows and running the statement on one shard with them. Refusals must stay rare.
TEST_F(DifferentialTest, JoinsAnswerLikePostgresInBothProtocols) {
  std::vector<Statement> joins = read_statements(kDir + "joins.sql");
  ASSERT_GE(joins.size(), 600u);
  // With the shards' size estimates (the largest table left where it is: broadcast joins) and
  // without (the tables read in the statement's order). Under the sanitizer two runs that
  // between them take every path: simple with estimates, extended and binary without.
  for (int run = 0; run < 4; ++run) {
    if (sanitized_run() && (run == 1 || run == 2)) continue;
    bool extended = run % 2 == 1;
    bool sized = run < 2;
    // The last run asks for binary results (merged joins convert what they combine).
    bool binary = run == 3;
    Tally t = run_corpus(joins, extended, sized ? proxy_ : unsized_, binary);
    report(sized ? (extended ? "joins, extended" : "joins, simple")
                 : (extended ? "joins without size estimates, extended, binary results"
                             : "joins without size estimates, simple"),
           t);
    for (const auto& m : t.mismatches) ADD_FAILURE() << "wrong answer from pgrange: " << m;
    EXPECT_EQ(t.run, joins.size());
    EXPECT_LT(t.refused * 20, t.run) << "5% or more of the join corpus refused";
    if (extended) {
      EXPECT_GE(t.parameterised, 300);
    }
  }
}

// queries.sql: subqueries (correlated too, LATERAL), CTEs (recursive too), set operations,
// window functions with frames, and aggregates (ordered, statistical, FILTER, DISTINCT,
// GROUPING SETS) over tables of every key type spread across the shards, in both protocols and
// with binary results. Refusals must stay below 2%.
TEST_F(DifferentialTest, SubqueriesWindowsAndAggregatesAnswerLikePostgres) {
  std::vector<Statement> queries = read_statements(kDir + "queries.sql");
  ASSERT_GE(queries.size(), 1000u);
  for (int run = 0; run < 3; ++run) {
    if (sanitized_run() && run == 1) continue;  // the binary run binds the same parameters
    bool extended = run > 0;
    bool binary = run == 2;
    Tally t = run_corpus(queries, extended, nullptr, binary);
    report(run == 0 ? "queries, simple"
           : binary ? "queries, extended, binary results"
                    : "queries, extended",
           t);
    for (const auto& m : t.mismatches) ADD_FAILURE() << "wrong answer from pgrange: " << m;
    EXPECT_EQ(t.run, queries.size());
    EXPECT_LT(t.refused * 50, t.run) << "2% or more of the queries refused";
    // What no merge compares is gathered, never refused.
    const Tally::Group& uncompared = t.groups["q merged types pgrange cannot compare"];
    EXPECT_EQ(uncompared.refused, 0);
    EXPECT_GE(uncompared.identical, 20);
    const Tally::Group& summaries =
        t.groups["q ctes and derived tables answered over the shards first"];
    EXPECT_EQ(summaries.refused, 0);
    EXPECT_GE(summaries.identical, 55);
    if (extended) {
      EXPECT_GE(t.parameterised, 300);
    }
  }
}

// A grouping CTE with the statement's parameters in it is merged over its shards first through
// the extended protocol too (its $n bound, the statement parsed with their inferred types, as
// the CTE's $n no longer appear in it): through an instance whose query_memory holds the groups
// but not j_orders' rows, which reading the table would need, it answers as PostgreSQL does
// with the constants as parameters, in text and in binary, and in the simple protocol.
TEST_F(DifferentialTest, AGroupingCteWithParametersIsAnsweredOverItsShardsFirst) {
  ProxyConfig cfg = *config_;
  cfg.table_sizes_interval_ms = 0;
  cfg.query_memory = 4096;
  auto small = ProxyProcess::start(cfg);
  auto p = pq_connect(small->dsn());
  auto r = pq_connect(reference_->dsn("app"));
  ASSERT_EQ(PQstatus(p.get()), CONNECTION_OK) << PQerrorMessage(p.get());
  ASSERT_EQ(PQstatus(r.get()), CONNECTION_OK) << PQerrorMessage(r.get());
  // What EXPLAIN ANALYZE of `sql` says (its lines, one string).
  // j_orders' rows do not fit in 4 KiB: read whole, they go through a temporary file.
  EXPECT_NE(explain_analyze(p.get(),
                            "SELECT o.status, count(*) FROM j_orders o JOIN j_users u ON u.id = "
                            "o.user_id GROUP BY 1")
                .find("through a temporary file"),
            std::string::npos);
  for (const char* sql : {
           // Parameters only in the CTE: the statement written with its rows has none left.
           "WITH s AS (SELECT status, count(*) AS n, sum(amount) AS total FROM j_orders WHERE "
           "amount > 100 GROUP BY status) SELECT s.status, s.n, s.total, c.label FROM s LEFT "
           "JOIN j_cats c ON c.id = s.n % 7 ORDER BY 1",
           // In the CTE, in HAVING, and in the statement too.
           "WITH s AS (SELECT status, count(*) AS n, max(item_code) AS top FROM j_orders WHERE "
           "amount BETWEEN 50 AND 900 AND status <> 'void' GROUP BY status HAVING count(*) > 3) "
           "SELECT s.status, s.n, s.top, c.label FROM s LEFT JOIN j_cats c ON c.id = s.n % 7 "
           "WHERE s.n > 10 ORDER BY 1",
           // A derived table with DISTINCT and a parameter of text.
           "SELECT d.status, c.label FROM (SELECT DISTINCT status FROM j_orders WHERE item_code "
           "> 'i20') d LEFT JOIN j_cats c ON c.label = d.status ORDER BY 1",
       }) {
    // The CTE is answered over j_orders' shards: its groups, not the table's rows, are read.
    std::string text = explain_analyze(p.get(), sql);
    EXPECT_NE(text.find("actual: Materialize the rows of a query of j_orders"), std::string::npos)
        << text;
    EXPECT_EQ(text.find("temporary file"), std::string::npos) << text;
    for (int run = 0; run < 3; ++run) {
      const bool extended = run > 0, binary = run == 2;
      Comparison c = compare_statement(p.get(), r.get(), sql, "summary", 0, extended, binary);
      EXPECT_TRUE(c.identical) << c.where << "\n" << c.difference;
      if (extended) {
        EXPECT_FALSE(c.query.values.empty()) << sql;
      }
    }
  }
}

// Rows a gather reads past query_memory go to a temporary file and from there to temporary
// tables on the shard that runs the statement: the whole queries corpus through an instance
// with 1 KiB of query_memory (its least) answers as PostgreSQL does, in both protocols and inside
// a transaction block. Past the cap a lookup's values are given up (it reads every row its
// conditions allow), a grouping CTE's answer is not kept (its table's rows are read) and a join
// that would carry the rows to each shard of its last table (a broadcast) reads that table too.
// What must still be held (the rows lag() reads back, a cursor's DECLARE) fails with 53200,
// counted apart.
TEST_F(DifferentialTest, GathersPastQueryMemoryGoThroughTemporaryTables) {
  std::vector<Statement> queries = read_statements(kDir + "queries.sql");
  ASSERT_GE(queries.size(), 1000u);
  SmallInstance small = start_small("gather");
  const std::string& temp = small.temp;
  const PgConnPtr &p = small.p, &r = small.r;
  ASSERT_EQ(PQstatus(p.get()), CONNECTION_OK) << PQerrorMessage(p.get());
  ASSERT_EQ(PQstatus(r.get()), CONNECTION_OK) << PQerrorMessage(r.get());
  for (bool extended : {false, true}) {
    int identical = 0, over = 0, refused = 0;
    for (const Statement& s : queries) {
      Comparison c = compare_statement(p.get(), r.get(), s.sql, s.group, s.line, extended);
      if (c.refused) {
        ++refused;
        continue;
      }
      if (!c.identical && c.got.sqlstate == "53200") {
        ++over;
        if (!extended) std::cout << "past query_memory: " << c.where << "\n";
        continue;
      }
      EXPECT_TRUE(c.identical) << "wrong answer from pgrange: " << c.where << ": " << c.difference;
      identical += c.identical ? 1 : 0;
    }
    std::cout << (extended ? "extended" : "simple") << ": " << identical << " identical, " << over
              << " past query_memory, " << refused << " refused, of " << queries.size()
              << " statements\n";
    // What stays past it is what a window computed in pgrange must hold (the rows lag()
    // reads back): 2 statements of the corpus at 1 KiB.
    EXPECT_GE(identical * 100, static_cast<int>(queries.size()) * 99);
  }
  // Past 1 KiB the values held for a lookup are given up (the lookup reads every row its
  // conditions allow), and a grouping CTE's answer is not kept (its table's rows are read):
  // PostgreSQL's answers still, and EXPLAIN ANALYZE says which happened.
  const std::pair<std::string, std::string> given_up[] = {
      {"SELECT o.id, o.amount, i.title FROM j_orders o JOIN j_items i ON i.code = o.item_code "
       "WHERE o.status = 'open' ORDER BY 1",
       "the values to look up past query_memory"},
      {"WITH t AS (SELECT user_id, sum(amount) AS s, count(*) AS n FROM j_orders GROUP BY "
       "user_id) SELECT u.name, t.s, t.n FROM j_users u JOIN t ON t.user_id = u.id ORDER BY 1",
       "its query's answer past query_memory"}};
  for (const auto& [statement, says] : given_up) {
    for (bool extended : {false, true}) {
      Comparison c = compare_statement(p.get(), r.get(), statement, "given up", 0, extended);
      EXPECT_TRUE(c.identical) << c.where << "\n" << c.difference;
    }
    std::string text = explain_analyze(p.get(), statement);
    EXPECT_NE(text.find(says), std::string::npos) << statement << "\n" << text;
  }
  SqlResult after = pq_exec(p.get(), "SELECT count(*) FROM j_orders");
  ASSERT_TRUE(after.ok()) << after.sqlstate << " " << after.message;
  EXPECT_EQ(after.rows.at(0).at(0), "700");
  // A cursor's DECLARE still holds its rows (its query is declared with them written in):
  // past 1 KiB it fails with 53200, its block fails as PostgreSQL's would, and the session
  // goes on (it used to end, the client finding its connection closed).
  ASSERT_TRUE(pq_exec(p.get(), "BEGIN").ok());
  SqlResult declared = pq_exec(p.get(),
                               "DECLARE big CURSOR FOR SELECT o.id, i.title FROM j_orders o JOIN "
                               "j_items i ON i.code = o.item_code ORDER BY 1");
  EXPECT_EQ(declared.sqlstate, "53200") << declared.message;
  EXPECT_EQ(pq_exec(p.get(), "FETCH 3 FROM big").sqlstate, "25P02");
  EXPECT_TRUE(pq_exec(p.get(), "ROLLBACK").ok());
  ASSERT_EQ(PQstatus(p.get()), CONNECTION_OK);
  EXPECT_EQ(pq_exec(p.get(), "SELECT count(*) FROM j_orders").at(), "700");
  // Inside a block, twice (the temporary tables live until it ends), seeing its own write.
  const std::string sql =
      "SELECT status, count(DISTINCT item_code), string_agg(id::text, ',' ORDER BY id) FROM "
      "j_orders GROUP BY status ORDER BY status";
  ASSERT_TRUE(pq_exec(p.get(), "BEGIN").ok());
  ASSERT_TRUE(pq_exec(r.get(), "BEGIN").ok());
  for (const char* write : {"UPDATE j_orders SET status = 'void' WHERE id % 50 = 1",
                            "DELETE FROM j_orders WHERE id % 70 = 3"}) {
    ASSERT_TRUE(pq_exec(p.get(), write).ok()) << write;
    ASSERT_TRUE(pq_exec(r.get(), write).ok()) << write;
    Comparison c = compare_statement(p.get(), r.get(), sql, "block", 0, false);
    EXPECT_TRUE(c.identical) << c.where << "\n" << c.difference;
  }
  std::string text = explain_analyze(p.get(), sql);
  EXPECT_NE(text.find("through a temporary file into a temporary table"), std::string::npos)
      << text;
  ASSERT_TRUE(pq_exec(p.get(), "ROLLBACK").ok());
  ASSERT_TRUE(pq_exec(r.get(), "ROLLBACK").ok());
  // A block that wrote on several shards commits after such a statement (two-phase commit,
  // which a transaction that touched a temporary table could not take: in a block the rows go
  // into tables of the block's transaction, dropped when the statement is done), PREPARE
  // TRANSACTION too. The write changes no value: the corpus stays as it is.
  for (const char* end : {"COMMIT", "PREPARE TRANSACTION 'spilled'"}) {
    ASSERT_TRUE(pq_exec(p.get(), "BEGIN").ok());
    SqlResult w = pq_exec(p.get(), "UPDATE j_orders SET status = status WHERE id % 50 = 1");
    ASSERT_TRUE(w.ok()) << w.message;
    Comparison c = compare_statement(p.get(), r.get(), sql, "block", 0, false);
    EXPECT_TRUE(c.identical) << c.where << "\n" << c.difference;
    SqlResult ended = pq_exec(p.get(), end);
    EXPECT_TRUE(ended.ok()) << end << ": " << ended.sqlstate << " " << ended.message;
  }
  SqlResult finished = pq_exec(p.get(), "COMMIT PREPARED 'spilled'");
  EXPECT_TRUE(finished.ok()) << finished.message;
  for (PgServer* shard : shards_) {
    EXPECT_EQ(
        shard->exec("SELECT count(*) FROM pg_class WHERE relname LIKE 'pgrange_rows%'", "app"),
        "0");
  }
  EXPECT_TRUE(std::filesystem::is_empty(temp)) << "a gather left a file in " << temp;
  std::filesystem::remove_all(temp);
}

// Windows computed in pgrange whose waiting rows do not fit in query_memory go to a temporary
// file: the window groups of the queries corpus through an instance with 1 KiB of query_memory
// (its least) answer as PostgreSQL does, in both protocols. What must still be held (the rows
// lag() reads back, what a gather's lookup reads) fails with 53200, counted apart.
TEST_F(DifferentialTest, WindowsPastQueryMemoryAnswerFromDisk) {
  std::vector<Statement> windows;
  for (Statement& s : read_statements(kDir + "queries.sql")) {
    if (s.group.rfind("q window", 0) == 0) windows.push_back(std::move(s));
  }
  ASSERT_GE(windows.size(), 60u);
  SmallInstance small = start_small("window");
  const std::string& temp = small.temp;
  const PgConnPtr &p = small.p, &r = small.r;
  ASSERT_EQ(PQstatus(p.get()), CONNECTION_OK) << PQerrorMessage(p.get());
  ASSERT_EQ(PQstatus(r.get()), CONNECTION_OK) << PQerrorMessage(r.get());
  for (bool extended : {false, true}) {
    int identical = 0, over = 0;
    for (const Statement& s : windows) {
      Comparison c = compare_statement(p.get(), r.get(), s.sql, s.group, s.line, extended);
      if (!c.identical && !c.refused && c.got.sqlstate == "53200" && c.want.ok) {
        ++over;
        continue;
      }
      EXPECT_TRUE(c.identical) << "wrong answer from pgrange: " << c.where << ": " << c.difference;
      identical += c.identical ? 1 : 0;
    }
    std::cout << (extended ? "extended" : "simple") << ": " << identical << " identical, " << over
              << " past query_memory of " << windows.size() << " window statements\n";
    EXPECT_GE(identical * 10, static_cast<int>(windows.size()) * 9);  // 200 of 203 here
  }
  // They did go to disk, and left nothing there.
  SqlResult plan =
      pq_exec(p.get(),
              "EXPLAIN ANALYZE SELECT user_id, id, count(*) OVER (PARTITION BY status) "
              "FROM j_orders");
  ASSERT_TRUE(plan.ok()) << plan.sqlstate << " " << plan.message;
  std::string text;
  for (const auto& row : plan.rows) text += row[0] + "\n";
  EXPECT_NE(text.find("bytes written to a temporary file"), std::string::npos) << text;
  EXPECT_TRUE(std::filesystem::is_empty(temp)) << "a window left a file in " << temp;
  std::filesystem::remove_all(temp);
}

// Seeded random joins (random_join_query) against one PostgreSQL, alternating the protocols.
// PGRANGE_RANDOM_QUERIES sets how many (default 200), PGRANGE_RANDOM_SEED the first seed; a
// failing statement prints its seed, and PGRANGE_RANDOM_SEED=<it> PGRANGE_RANDOM_QUERIES=1
// runs it alone.
TEST_F(DifferentialTest, RandomJoinsAnswerLikePostgres) {
  auto env = [](const char* name, uint64_t fallback) {
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0' ? std::stoull(v) : fallback;
  };
  uint64_t seed = env("PGRANGE_RANDOM_SEED", 20261202);
  uint64_t count = env("PGRANGE_RANDOM_QUERIES", 200);
  auto p = pq_connect(proxy_->dsn());
  auto r = pq_connect(reference_->dsn("app"));
  ASSERT_EQ(PQstatus(p.get()), CONNECTION_OK) << PQerrorMessage(p.get());
  ASSERT_EQ(PQstatus(r.get()), CONNECTION_OK) << PQerrorMessage(r.get());
  Tally t;
  for (uint64_t i = 0; i < count; ++i) {
    std::string sql = random_join_query(seed + i);
    Comparison c =
        compare_statement(p.get(), r.get(), sql, "random", static_cast<int>(i), i % 2 == 1);
    if (!c.identical && !c.refused) {
      ADD_FAILURE() << "seed " << seed + i << (i % 2 == 1 ? " (extended)" : " (simple)") << ": "
                    << c.where << "\\n"
                    << c.difference;
    }
    t.add("random", c);
  }
  report("random joins", t);
  EXPECT_EQ(t.run, static_cast<int>(count));
  EXPECT_LT(t.refused * 20, t.run) << "5% or more of the random joins refused";
  // The generator writes only statements PostgreSQL answers: an error would compare equal and
  // test nothing.
  EXPECT_TRUE(t.reference_errors.empty()) << t.report("random joins");
}

// The rows a join reads are written exactly whatever the session's extra_float_digits (the
// reads set it to 3 where it is lower), and the session keeps its own value.
// A CTE or derived table that groups one spread table is answered over that table's shards
// first (a merge): only its groups are read into pgrange, never the table's rows.
TEST_F(DifferentialTest, AGroupingCteIsAnsweredOverItsShardsFirst) {
  auto p = pq_connect(proxy_->dsn());
  auto r = pq_connect(reference_->dsn("app"));
  ASSERT_EQ(PQstatus(p.get()), CONNECTION_OK) << PQerrorMessage(p.get());
  ASSERT_EQ(PQstatus(r.get()), CONNECTION_OK) << PQerrorMessage(r.get());
  SqlResult groups = pq_exec(r.get(), "SELECT count(DISTINCT user_id), count(*) FROM j_orders");
  ASSERT_TRUE(groups.ok()) << groups.message;
  ASSERT_NE(groups.at(0, 0), groups.at(0, 1));  // fewer groups than rows, or nothing to show
  const std::string sql =
      "WITH spend AS (SELECT user_id, sum(amount) AS total FROM j_orders GROUP BY user_id) "
      "SELECT u.city, sum(s.total) FROM j_users u JOIN spend s ON s.user_id = u.id GROUP BY "
      "u.city ORDER BY u.city";
  std::string all = explain_analyze(p.get(), sql);
  EXPECT_NE(all.find("Merge: SELECT user_id, sum(amount) AS total FROM j_orders GROUP BY user_id"),
            std::string::npos)
      << all;
  const std::string read =
      "actual: Materialize the rows of a query of j_orders (as \"j_orders\"): " + groups.at(0, 0) +
      " rows from ";
  EXPECT_NE(all.find(read), std::string::npos) << read << "\n" << all;
  for (bool extended : {false, true}) {
    Comparison c = compare_statement(p.get(), r.get(), sql, "summary", 0, extended);
    EXPECT_TRUE(c.identical) << c.where << "\n" << c.difference;
  }
}

TEST_F(DifferentialTest, JoinsReadFloatsExactlyWhateverTheSessionsDigits) {
  auto p = pq_connect(proxy_->dsn());
  auto r = pq_connect(reference_->dsn("app"));
  ASSERT_EQ(PQstatus(p.get()), CONNECTION_OK) << PQerrorMessage(p.get());
  ASSERT_EQ(PQstatus(r.get()), CONNECTION_OK) << PQerrorMessage(r.get());
  const std::vector<std::string> joins = {
      "SELECT a.id, a.f4, a.f8, b.f4, b.f8 FROM t_types a JOIN t_types b ON b.id = a.id + 1 "
      "WHERE a.id < 100 ORDER BY a.id",
      "SELECT a.id, b.id FROM t_types a JOIN t_types b ON b.f8 = a.f8 * 1 WHERE a.id < b.id "
      "ORDER BY a.id, b.id",
      "SELECT a.id, a.f8 + b.f8, a.f4 * b.f4 FROM t_types a LEFT JOIN t_types b ON b.id = "
      "a.id - 7 ORDER BY a.id",
      // A CTE answered over the shards first: its rows are written in as text, exactly.
      "WITH s AS (SELECT id % 5 AS g, min(f8) AS lo, max(f4) AS hi FROM t_types GROUP BY 1) "
      "SELECT s.g, s.lo, s.hi, s.lo * 3 FROM s JOIN j_cats c ON c.id = s.g + 1 ORDER BY 1",
  };
  for (const char* digits : {"0", "-3", "2", "1"}) {
    for (PGconn* c : {p.get(), r.get()}) {
      ASSERT_TRUE(pq_exec(c, std::string("SET extra_float_digits = ") + digits).ok());
    }
    for (const std::string& sql : joins) {
      for (bool extended : {false, true}) {
        Comparison c = compare_statement(p.get(), r.get(), sql, "floats", 0, extended);
        EXPECT_TRUE(c.identical) << "extra_float_digits " << digits << ": " << c.where << "\n"
                                 << c.difference;
      }
    }
    EXPECT_EQ(pq_exec(p.get(), "SHOW extra_float_digits").at(0, 0), digits);
  }
}

// Inside transaction blocks the joins read through the block's own connections: they see the
// block's own writes (on several shards), and what the block rolls back is gone after.
TEST_F(DifferentialTest, JoinsInsideTransactionBlocksSeeTheBlocksWrites) {
  auto p = pq_connect(proxy_->dsn());
  auto r = pq_connect(reference_->dsn("app"));
  ASSERT_EQ(PQstatus(p.get()), CONNECTION_OK) << PQerrorMessage(p.get());
  ASSERT_EQ(PQstatus(r.get()), CONNECTION_OK) << PQerrorMessage(r.get());
  const std::vector<std::string> joins = {
      "SELECT u.id, u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id "
      "WHERE u.id IN (5, 45, 125) ORDER BY u.id, o.id",
      "SELECT u.city, count(o.id), sum(o.amount) FROM j_users u LEFT JOIN j_orders o ON "
      "o.user_id = u.id GROUP BY u.city ORDER BY u.city",
      "SELECT count(*) FROM j_users u WHERE NOT EXISTS (SELECT 1 FROM j_orders o WHERE "
      "o.user_id = u.id)",
      "SELECT o.user_id, o.id, i.title FROM j_orders o JOIN j_items i ON i.code = o.item_code "
      "WHERE o.user_id IN (5, 125) ORDER BY o.user_id, o.id",
      "WITH s AS (SELECT user_id, sum(amount) AS total, count(*) AS n FROM j_orders GROUP BY "
      "user_id) SELECT u.city, sum(s.total), sum(s.n) FROM j_users u JOIN s ON s.user_id = u.id "
      "GROUP BY u.city ORDER BY u.city",
  };
  const std::vector<std::string> writes = {
      "INSERT INTO j_users VALUES (125, 'user 125', 'Oslo', 1)",
      "INSERT INTO j_orders VALUES (125, 9001, 12.5, 'new', 'i01'), (5, 9002, 7.25, NULL, 'i02')",
      "UPDATE j_orders SET amount = amount + 1 WHERE user_id = 45",
      "DELETE FROM j_orders WHERE user_id = 5 AND id < 300",
  };
  for (const char* end : {"ROLLBACK", "COMMIT"}) {
    for (bool extended : {false, true}) {
      for (PGconn* c : {p.get(), r.get()}) ASSERT_TRUE(pq_exec(c, "BEGIN").ok());
      for (const std::string& sql : joins) {
        Comparison c = compare_statement(p.get(), r.get(), sql, "block", 0, extended);
        EXPECT_TRUE(c.identical) << "before the writes: " << c.where << "\n" << c.difference;
      }
      for (const std::string& w : writes) {
        SqlResult a = pq_exec(p.get(), w);
        SqlResult b = pq_exec(r.get(), w);
        ASSERT_EQ(a.ok(), b.ok()) << w << ": " << a.message << " / " << b.message;
      }
      for (const std::string& sql : joins) {
        Comparison c = compare_statement(p.get(), r.get(), sql, "block", 0, extended);
        EXPECT_TRUE(c.identical) << "after the writes: " << c.where << "\n" << c.difference;
      }
      for (PGconn* c : {p.get(), r.get()}) ASSERT_TRUE(pq_exec(c, end).ok());
      for (const std::string& sql : joins) {
        Comparison c = compare_statement(p.get(), r.get(), sql, "block", 0, extended);
        EXPECT_TRUE(c.identical) << "after " << end << ": " << c.where << "\n" << c.difference;
      }
      if (std::string(end) == "COMMIT") {
        // Back to the corpus' rows for the other protocol and the tests after this one.
        for (const char* undo :
             {"DELETE FROM j_orders WHERE id > 9000", "DELETE FROM j_users WHERE id = 125"}) {
          ASSERT_TRUE(pq_exec(p.get(), undo).ok());
          ASSERT_TRUE(pq_exec(r.get(), undo).ok());
        }
      }
    }
  }
}

}  // namespace
}  // namespace pgrange::testing
