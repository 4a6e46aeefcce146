// Write differential test: pgrange must never write a wrong row. Every statement of
// tests/integration/differential_writes/corpus.sql — writes that read other tables (UPDATE …
// FROM, DELETE … USING, subqueries, writing CTEs, INSERT … SELECT, views, SQL functions),
// constraint checks across shards (UNIQUE, FOREIGN KEY and their actions), row-locking reads —
// runs through a three-shard pgrange and on one plain PostgreSQL 15 database holding the same
// rows, once in the simple protocol and once in the extended protocol (constants bound as $n),
// each run on a fresh cluster. After every statement the whole of every table is read on both
// sides (ORDER BY its key) and compared, so a write that changed the wrong rows — or a refused
// write that changed anything — is caught at the statement that did it.
//
// A statement is identical (SQLSTATE, command tag, columns, rows — in order under a total
// top-level ORDER BY, as a multiset otherwise — transaction status, then every table) or refused
// with 0A000 by a message naming the construct; the refused statement is not run on the
// reference. Anything else is a mismatch; after one, the reference takes pgrange's rows so that
// the next statements are judged on their own. Groups marked `-- expect: run` must not be
// refused. Expected results come only from the reference server.
//
// Files (tests/support/statement_file.hpp has the format): setup.sql makes the tables, views,
// functions and other objects on both sides; a statement pgrange refuses there (0A000 naming the
// construct) is skipped on both sides and the corpus groups requiring what it provides are
// skipped and counted; splits.sql splits and places the ranges (through pgrange only). In
// corpus.sql, `\hold STATEMENT` runs STATEMENT on both sides in a second session's open
// transaction (to hold row locks while the next statements run), `\release` rolls it back.
//
// PGRANGE_WRITE_CORPUS names another corpus file to run instead (e.g. statements under
// investigation).
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/differential.hpp"
#include "tests/support/differential_setup.hpp"
#include "tests/support/index_entries.hpp"
#include "tests/support/proxy_process.hpp"
#include "tests/support/shard_cluster.hpp"
#include "tests/support/statement_file.hpp"
#include "tests/support/table_compare.hpp"
#include "tests/support/write_comparer.hpp"

namespace pgrange::testing {
namespace {

const std::string kDir =
    std::string(PGRANGE_SOURCE_DIR) + "/tests/integration/differential_writes/";

/// A second session on each side holding row locks in an open transaction (`\hold`).
class LockHolder {
 public:
  explicit LockHolder(const ShardCluster& cluster) : cluster_(cluster) {}

  /// Runs `sql` in the holder's transaction on both sides; "" when pgrange ran it (a reference
  /// failure is a corpus error: ADD_FAILURE), else why not.
  std::string hold(const std::string& sql) {
    if (pgrange_ == nullptr) {
      pgrange_ = cluster_.client();
      reference_ = cluster_.reference();
      pq_exec(pgrange_.get(), "BEGIN");
      pq_exec(reference_.get(), "BEGIN");
    }
    SqlResult a = pq_exec(pgrange_.get(), sql);
    if (!a.ok()) {
      release();
      return a.sqlstate + " " + a.message;
    }
    SqlResult b = pq_exec(reference_.get(), sql);
    EXPECT_TRUE(b.ok()) << "the reference fails \\hold " << sql << ": " << b.message;
    return "";
  }

  /// Rolls the holder's transactions back (and lets its locks go).
  void release() {
    if (pgrange_ == nullptr) return;
    pq_exec(pgrange_.get(), "ROLLBACK");
    pq_exec(reference_.get(), "ROLLBACK");
    pgrange_.reset();
    reference_.reset();
  }

 private:
  const ShardCluster& cluster_;
  PgConnPtr pgrange_{nullptr, &PQfinish};
  PgConnPtr reference_{nullptr, &PQfinish};
};

/// "" when every shard holds the same rows of reference table `table`, else which differ.
std::string reference_copies_differ(const std::vector<PGconn*>& shards, const std::string& table) {
  std::vector<std::string> copies;
  for (PGconn* c : shards) {
    SqlResult r = pq_exec(c, "SELECT coalesce(string_agg(t::text, ' ' ORDER BY t::text), '') FROM " +
                                 table + " t");
    copies.push_back(r.ok() ? r.at() : "error: " + r.message);
  }
  std::string out;
  for (size_t i = 1; i < copies.size(); ++i) {
    if (copies[i] != copies[0]) {
      out += "\n  reference table " + table + ": shard " + std::to_string(i + 1) + " holds " +
             copies[i] + ", shard 1 holds " + copies[0];
    }
  }
  return out;
}

class WriteDifferentialTest : public ::testing::Test {
 protected:
  /// A fresh cluster and reference per protocol run: both start from setup.sql's rows.
  void SetUp() override {
    ShardCluster::Options o;
    o.databases = {"app", "ref"};
    // rf is a reference table: every shard holds all of its rows.
    o.extra_toml = "\n[[table]]\nname = \"rf\"\nreference = true\n";
    cluster_ = ShardCluster::start(o);
    auto p = cluster_->client();
    auto r = cluster_->reference();
    ASSERT_EQ(PQstatus(p.get()), CONNECTION_OK) << PQerrorMessage(p.get());
    ASSERT_EQ(PQstatus(r.get()), CONNECTION_OK) << PQerrorMessage(r.get());
    run_setup(p.get(), r.get(), read_statements(kDir + "setup.sql"), &setup_);
    run_ranges(p.get(), read_statements(kDir + "splits.sql"), &setup_);
    tables_ = reference_tables(r.get());
    std::vector<std::string> names;
    for (const auto& t : tables_) names.push_back(t.name);
    ranges_ = range_map_text(p.get(), names);
  }

  void TearDown() override { cluster_.reset(); }

  /// Runs the corpus on new connections; `extended` binds constants as parameters.
  Tally run_corpus(bool extended) {
    Tally t;
    auto p = cluster_->client();
    auto r = cluster_->reference();
    EXPECT_EQ(PQstatus(p.get()), CONNECTION_OK) << PQerrorMessage(p.get());
    EXPECT_EQ(PQstatus(r.get()), CONNECTION_OK) << PQerrorMessage(r.get());
    // A lock wait that should not be there ends instead of hanging the test.
    for (PGconn* c : {p.get(), r.get()}) pq_exec(c, "SET lock_timeout = '5s'");
    WriteComparer comparer(p.get(), r.get(), tables_);
    // The set-up itself must leave both sides with the same rows, and the indexes with theirs.
    std::string setup_differences = comparer.compare_tables();
    if (!setup_differences.empty()) {
      setup_.failures.push_back("the tables differ after set-up:" + setup_differences);
    }
    std::vector<PgConnPtr> direct;
    std::vector<PGconn*> shards;
    for (int i = 0; i < cluster_->size(); ++i) {
      direct.push_back(cluster_->direct(i));
      shards.push_back(direct.back().get());
    }
    IndexEntryCheck indexes(shards);
    std::string index_differences = indexes.check();
    if (!index_differences.empty()) {
      setup_.failures.push_back("global indexes differ from their rows after set-up:" +
                                index_differences);
    }
    comparer.add_check([&indexes] { return indexes.check(); });
    // Every shard's copy of the reference table is the same.
    comparer.add_check([&shards] { return reference_copies_differ(shards, "rf"); });
    LockHolder holder(*cluster_);
    std::string hold_failed;
    for (const Statement& s : corpus()) {
      std::string why;
      if (!setup_.has(s.requires_features, &why)) {
        t.add_skipped(s.group, why);
        continue;
      }
      if (s.meta) {
        if (s.sql.rfind("hold ", 0) == 0) {
          if (hold_failed.empty()) hold_failed = holder.hold(s.sql.substr(5));
        } else if (s.sql == "release") {
          holder.release();
          hold_failed.clear();
        } else {
          ADD_FAILURE() << "line " << s.line << ": unknown meta-command \\" << s.sql;
        }
        continue;
      }
      if (!hold_failed.empty()) {
        t.add_skipped(s.group, "the lock holder's statement failed through pgrange: " +
                                   construct_of(hold_failed));
        continue;
      }
      WriteComparer::count(&t, s.group, s.must_run, comparer.run(s.sql, s.group, s.line, extended));
    }
    holder.release();
    checks_can_fail(r.get(), shards[0], &comparer, &indexes);
    // Reported as mismatches where they happened; listed again for the summary.
    for (const auto& [table, why] : comparer.diverged()) {
      std::cout << "table " << table
                << " differed, and the reference could not take pgrange's rows: " << why << "\n";
    }
    std::cout << setup_.report() << "ranges:\n"
              << ranges_ << "table comparisons: " << comparer.comparisons() << "\n"
              << "global indexes checked against their rows after every statement:";
    for (const auto& i : indexes.indexes()) std::cout << " " << i;
    std::cout << "\n";
    return t;
  }

  /// The comparisons are not vacuous: a row changed behind pgrange's back on the reference, and
  /// an index entry removed on a shard, are found (and put back).
  void checks_can_fail(PGconn* reference, PGconn* shard, WriteComparer* comparer,
                       IndexEntryCheck* indexes) {
    EXPECT_GE(tables_.size(), 10u) << "the corpus tables were not found on the reference";
    pq_exec(reference, "UPDATE a SET v = v || ' changed' WHERE id = (SELECT min(id) FROM a)");
    EXPECT_NE(comparer->compare_tables(), "") << "a changed row of a went unnoticed";
    EXPECT_EQ(comparer->compare_tables(), "") << "the reference did not take pgrange's rows";
    // A copy of the reference table changed on one shard behind pgrange's back is found.
    std::vector<PgConnPtr> direct;
    std::vector<PGconn*> shards;
    for (int i = 0; i < cluster_->size(); ++i) {
      direct.push_back(cluster_->direct(i));
      shards.push_back(direct.back().get());
    }
    EXPECT_EQ(reference_copies_differ(shards, "rf"), "");
    pq_exec(shards.back(), "UPDATE rf SET label = label || ' changed' WHERE id = 1");
    EXPECT_NE(reference_copies_differ(shards, "rf"), "") << "a changed copy of rf went unnoticed";
    pq_exec(shards.back(), "UPDATE rf SET label = left(label, -8) WHERE id = 1");
    EXPECT_EQ(reference_copies_differ(shards, "rf"), "");
    EXPECT_FALSE(indexes->indexes().empty()) << "no global index found on the shards";
    int removed = 0;
    for (const auto& index : indexes->indexes()) {
      std::string name = "\"" + index + "\"";
      SqlResult gone =
          pq_exec(shard, "DELETE FROM " + name + " WHERE ctid = (SELECT min(ctid) FROM " + name +
                             ") RETURNING *");
      if (!gone.ok() || gone.rows.empty()) continue;  // no entry on this shard
      ++removed;
      EXPECT_NE(indexes->check(), "") << "a missing entry of " << index << " went unnoticed";
      std::string values;
      for (const auto& v : gone.rows[0]) values += (values.empty() ? "" : ", ") + literal(v);
      pq_exec(shard, "INSERT INTO " + name + " VALUES (" + values + ")");
      indexes->check();
    }
    EXPECT_GT(removed, 0) << "no index entry on the first shard to test the index check with";
  }

  static std::string literal(const std::string& v) {
    if (v == "<null>") return "NULL";
    std::string out = "'";
    for (char c : v) out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
  }

  static std::vector<Statement> corpus() {
    const char* other = std::getenv("PGRANGE_WRITE_CORPUS");
    return read_statements(other && *other ? std::string(other) : kDir + "corpus.sql");
  }

  /// Fails on every mismatch, set-up failure and refusal naming no construct (or of a
  /// statement that must run).
  void check(const Tally& t) {
    for (const auto& f : setup_.failures) ADD_FAILURE() << "set-up: " << f;
    for (const auto& f : t.failures) ADD_FAILURE() << f;
    for (const auto& m : t.mismatches) ADD_FAILURE() << "wrong answer from pgrange: " << m;
    if (std::getenv("PGRANGE_WRITE_CORPUS") == nullptr) {
      EXPECT_GE(t.run + t.skipped, 300);
    }
  }

  std::unique_ptr<ShardCluster> cluster_;
  SetupResult setup_;
  std::vector<TableSpec> tables_;
  std::string ranges_;
};

TEST(WriteDifferentialCorpus, DirectivesAndConstructNames) {
  EXPECT_TRUE(names_construct("UPDATE … FROM over tables spread across several shards"));
  EXPECT_TRUE(names_construct("subquery over tables spread across several shards"));
  EXPECT_TRUE(names_construct("FOR UPDATE/SHARE over a table spread across several shards"));
  EXPECT_TRUE(names_construct("FOREIGN KEY to a table on several shards is not supported"));
  EXPECT_TRUE(names_construct("a view over tables spread across several shards"));
  EXPECT_TRUE(names_construct("INSERT … SELECT touching several shards is not supported"));
  EXPECT_FALSE(names_construct(
      "statement touching several shards (\"s1\", \"s2\") is not supported yet: it could not be "
      "applied atomically"));
  EXPECT_FALSE(names_construct(
      "INSERT touching several shards (\"s1\") is not supported yet: it could not be applied "
      "atomically"));
  auto statements = read_statements(kDir + "corpus.sql");
  ASSERT_FALSE(statements.empty());
  int must_run = 0, requiring = 0, meta = 0;
  for (const auto& s : statements) {
    must_run += s.must_run;
    requiring += !s.requires_features.empty();
    meta += s.meta;
  }
  EXPECT_GT(must_run, 20);
  EXPECT_GT(requiring, 50);
  EXPECT_GT(meta, 2);
}

TEST_F(WriteDifferentialTest, SimpleProtocolWritesLikePostgres) {
  Tally t = run_corpus(false);
  std::cout << t.report("write corpus, simple protocol") << std::flush;
  check(t);
}

TEST_F(WriteDifferentialTest, ExtendedProtocolWithParametersWritesLikePostgres) {
  Tally t = run_corpus(true);
  std::cout << t.report("write corpus, extended protocol") << std::flush;
  check(t);
  EXPECT_GE(t.parameterised, 150);
}

}  // namespace
}  // namespace pgrange::testing
