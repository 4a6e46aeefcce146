// RangeCopy against two real PostgreSQL 15 servers: a range's rows copied while a writer keeps
// changing them at the source (inserts, updates, deletes, keys moving into and out of the
// range), the copy invisible on the target until its prepared transaction commits, the
// source's rows gone only when its own commits; abort before and after prepare; tables whose
// replica identity cannot follow writes; a source without wal_level = logical; nothing left
// behind (publication, slot, prepared transactions) in every case.
#include "routing/moves/range_copy.hpp"

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "routing/keys/key_codec.hpp"
#include "routing/keys/key_space.hpp"
#include "tests/support/pg_server.hpp"

namespace pgrange::routing {
namespace {

using std::chrono::seconds;
using testing::PgServer;

class RangeCopyTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    PgServer::Options opts;
    opts.settings = {{"timezone", "UTC"}};
    source_ = PgServer::start(opts).release();
    target_ = PgServer::start(opts).release();
  }
  static void TearDownTestSuite() {
    delete source_;
    delete target_;
    source_ = target_ = nullptr;
  }

  /// The table `name` (id int8 key, a text value, a generated column and a dropped one, so
  /// that column lists matter) on both servers, ids 1..rows on the source.
  static TableDescriptor make_table(const std::string& name, int rows) {
    for (PgServer* s : {source_, target_}) {
      s->exec("CREATE TABLE " + name +
              " (id int8 PRIMARY KEY, gone int, v text, n int, twice int8 GENERATED ALWAYS AS "
              "(id * 2) STORED); ALTER TABLE " +
              name + " DROP COLUMN gone");
    }
    source_->exec("INSERT INTO " + name +
                  " (id, v, n) SELECT i, 'value ' || i, i % 7 FROM generate_series(1, " +
                  std::to_string(rows) + ") i");
    TableDescriptor t;
    t.table_id = 400;
    t.schema = "public";
    t.name = name;
    t.key_source = KeySource::kPrimaryKey;
    t.key = {{"id", {KeyType::kInt8}}};
    return t;
  }

  static std::string key(const TableDescriptor& t, int64_t v) {
    std::vector<KeyColumn> cols = {t.key[0].column};
    std::string text = std::to_string(v);
    std::vector<std::optional<std::string_view>> values = {text};
    return encode_key_text(t.table_id, 1, cols, values).value();
  }

  /// The rows of [lo, hi) as one string, in id order.
  static std::string rows(PgServer& s, const std::string& table, int lo, int hi) {
    return s.exec(
        "SELECT coalesce(string_agg(id || ':' || coalesce(v, 'null') || ':' || "
        "coalesce(n::text, 'null') || ':' || twice, ',' ORDER BY id), '') FROM " +
        table + " WHERE id >= " + std::to_string(lo) + " AND id < " + std::to_string(hi));
  }

  /// Nothing a copy leaves on a server when it is over.
  static void expect_clean(PgServer& s) {
    EXPECT_EQ(s.exec("SELECT count(*) FROM pg_publication"), "0");
    EXPECT_EQ(s.exec("SELECT count(*) FROM pg_replication_slots"), "0");
    EXPECT_EQ(s.exec("SELECT count(*) FROM pg_prepared_xacts"), "0");
  }

  static PgServer* source_;
  static PgServer* target_;
};
PgServer* RangeCopyTest::source_ = nullptr;
PgServer* RangeCopyTest::target_ = nullptr;

TEST_F(RangeCopyTest, FollowsWritesAndShowsTheCopyOnlyWhenItCommits) {
  const auto t = make_table("followed", 1000);
  // Left over from an earlier failed move (inside the range), and a row the target owns.
  target_->exec("INSERT INTO followed (id, v) VALUES (400, 'stale'), (5000, 'kept')");
  std::vector<RangePart> parts = {{t, key(t, 300), key(t, 600)}};
  auto follow = RangeCopy::can_follow_writes(source_->dsn(), parts);
  ASSERT_TRUE(follow.has_value()) << follow.error().message;
  EXPECT_TRUE(*follow);

  // A writer changes the range (and rows around it) all through the copy.
  std::atomic<bool> stop{false};
  std::atomic<int> writes{0};
  std::string writer_error;
  std::thread writer([&] {
    PGconn* c = PQconnectdb(source_->dsn().c_str());
    std::mt19937 rng(7);
    while (!stop) {
      const int id = 250 + static_cast<int>(rng() % 400);  // inside and around [300, 600)
      std::string sql;
      switch (rng() % 5) {
        case 0:
          sql = "UPDATE followed SET v = 'w" + std::to_string(writes) +
                "', n = NULL WHERE id = " + std::to_string(id);
          break;
        case 1:
          sql = "DELETE FROM followed WHERE id = " + std::to_string(id);
          break;
        case 2:
          sql = "INSERT INTO followed (id, v, n) VALUES (" + std::to_string(id) +
                ", NULL, 1) ON CONFLICT (id) DO UPDATE SET n = followed.n + 1";
          break;
        case 3:  // a key leaves the range, or comes into it
          sql = "UPDATE followed SET id = id + 1000 WHERE id = " + std::to_string(id);
          break;
        default:
          sql = "BEGIN; UPDATE followed SET n = n + 1 WHERE id = " + std::to_string(id) +
                "; UPDATE followed SET id = " + std::to_string(id) +
                " WHERE id = " + std::to_string(id + 1000) + "; COMMIT";
      }
      PGresult* r = PQexec(c, sql.c_str());
      if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) {
        // A key moved back onto one that exists: the block fails, as it would anywhere.
        const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
        if (state == nullptr || std::string(state) != "23505") {
          writer_error = PQerrorMessage(c);
        }
        if (PQtransactionStatus(c) == PQTRANS_INERROR) PQclear(PQexec(c, "ROLLBACK"));
      }
      PQclear(r);
      ++writes;
    }
    PQfinish(c);
  });
  while (writes < 50) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  auto copy = RangeCopy::start(source_->dsn(), target_->dsn(), parts, "pgrange_move_test1", true);
  ASSERT_TRUE(copy.has_value()) << copy.error().message;
  EXPECT_GT(copy->rows_copied(), 0);  // the writer deletes and moves rows out, too
  // Not yet visible: the target shows what it showed before.
  EXPECT_EQ(target_->exec("SELECT string_agg(id::text, ',' ORDER BY id) FROM followed"),
            "400,5000");
  int64_t followed = 0;
  for (int round = 0; round < 3; ++round) {
    const int before = writes;
    while (writes < before + 100) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    auto applied = copy->catch_up(seconds(30));
    ASSERT_TRUE(applied.has_value()) << applied.error().message;
    followed += *applied;
  }
  stop = true;
  writer.join();
  EXPECT_EQ(writer_error, "");
  auto last = copy->catch_up(seconds(30));
  ASSERT_TRUE(last.has_value()) << last.error().message;
  followed += *last;
  EXPECT_GT(followed, 50);
  EXPECT_EQ(copy->changes_applied(), followed);
  EXPECT_EQ(target_->exec("SELECT count(*) FROM followed"), "2");

  const std::string expected = rows(*source_, "followed", 300, 600);
  const std::string outside =
      rows(*source_, "followed", 0, 300) + "|" + rows(*source_, "followed", 600, 100000);
  const std::string in_range =
      source_->exec("SELECT count(*) FROM followed WHERE id >= 300 AND id < 600");
  ASSERT_TRUE(copy->prepare(seconds(30)).has_value());
  EXPECT_EQ(std::to_string(copy->source_rows()), in_range);
  // The copy is prepared, the source untouched: each still shows what it showed.
  EXPECT_EQ(rows(*source_, "followed", 300, 600), expected);
  EXPECT_EQ(target_->exec("SELECT string_agg(id::text, ',' ORDER BY id) FROM followed"),
            "400,5000");
  // The publication is emptied (dropped with the source's rows, after the switch); the slot
  // is gone.
  EXPECT_EQ(source_->exec("SELECT count(*) FROM pg_publication_tables"), "0");
  EXPECT_EQ(source_->exec("SELECT count(*) FROM pg_replication_slots"), "0");
  ASSERT_TRUE(copy->commit_target().has_value());
  EXPECT_EQ(rows(*target_, "followed", 300, 600), expected);
  EXPECT_EQ(target_->exec("SELECT v FROM followed WHERE id = 5000"), "kept");
  EXPECT_EQ(rows(*source_, "followed", 300, 600), expected);  // until the map has switched
  copy->switched();
  auto deleted = copy->delete_source();
  ASSERT_TRUE(deleted.has_value()) << deleted.error().message;
  EXPECT_EQ(std::to_string(*deleted), in_range);
  EXPECT_EQ(rows(*source_, "followed", 300, 600), "");
  EXPECT_EQ(rows(*source_, "followed", 0, 300) + "|" + rows(*source_, "followed", 600, 100000),
            outside);
  expect_clean(*source_);
  expect_clean(*target_);
}

TEST_F(RangeCopyTest, AbortBeforeOrAfterPrepareChangesNothing) {
  const auto t = make_table("aborted", 100);
  std::vector<RangePart> parts = {{t, key(t, 20), key(t, 40)}};
  const std::string before = rows(*source_, "aborted", 0, 1000);
  {
    auto copy = RangeCopy::start(source_->dsn(), target_->dsn(), parts, "pgrange_move_test2", true);
    ASSERT_TRUE(copy.has_value()) << copy.error().message;
    EXPECT_EQ(copy->rows_copied(), 20);
    source_->exec("UPDATE aborted SET v = 'changed' WHERE id = 25");
    auto applied = copy->catch_up(seconds(30));
    ASSERT_TRUE(applied.has_value()) << applied.error().message;
    EXPECT_EQ(*applied, 1);
    ASSERT_TRUE(copy->abort().has_value());
  }
  source_->exec("UPDATE aborted SET v = 'value 25' WHERE id = 25");
  EXPECT_EQ(target_->exec("SELECT count(*) FROM aborted"), "0");
  expect_clean(*source_);
  {
    auto copy = RangeCopy::start(source_->dsn(), target_->dsn(), parts, "pgrange_move_test3", true);
    ASSERT_TRUE(copy.has_value()) << copy.error().message;
    ASSERT_TRUE(copy->prepare(seconds(30)).has_value());
    EXPECT_EQ(target_->exec("SELECT count(*) FROM pg_prepared_xacts"), "1");
    EXPECT_EQ(source_->exec("SELECT count(*) FROM pg_prepared_xacts"), "0");
    ASSERT_TRUE(copy->abort().has_value());
  }
  EXPECT_EQ(rows(*source_, "aborted", 0, 1000), before);
  EXPECT_EQ(target_->exec("SELECT count(*) FROM aborted"), "0");
  {
    // Dropped without abort(): the destructor aborts.
    auto copy = RangeCopy::start(source_->dsn(), target_->dsn(), parts, "pgrange_move_test4", true);
    ASSERT_TRUE(copy.has_value()) << copy.error().message;
  }
  expect_clean(*source_);
  expect_clean(*target_);
  // The source's rows can be written at once: no lock was left.
  source_->exec("SET lock_timeout = '5s'; UPDATE aborted SET n = 0");

  // A failed start leaves nothing behind: the target lacks the table's new column.
  source_->exec("ALTER TABLE aborted ADD COLUMN extra int DEFAULT 7");
  auto failed = RangeCopy::start(source_->dsn(), target_->dsn(), parts, "pgrange_move_test5", true);
  ASSERT_FALSE(failed.has_value());
  EXPECT_EQ(failed.error().sqlstate, "42703") << failed.error().message;
  EXPECT_EQ(target_->exec("SELECT count(*) FROM aborted"), "0");
  expect_clean(*source_);
}

TEST_F(RangeCopyTest, TablesWithoutAKeyedReplicaIdentityCopyWithoutFollowing) {
  TableDescriptor t;
  t.table_id = 401;
  t.schema = "Odd \"Schema\"";
  t.name = "Settings";
  t.key_source = KeySource::kUnsharded;
  for (PgServer* s : {source_, target_}) {
    s->exec(R"(CREATE SCHEMA "Odd ""Schema"""; CREATE TABLE "Odd ""Schema"""."Settings" )"
            R"(("Name" text, value jsonb))");
  }
  source_->exec(R"(INSERT INTO "Odd ""Schema"""."Settings" VALUES ('a', '{"x": 1}'), ('b', NULL))");
  std::vector<RangePart> parts = {{t, table_prefix(401), table_prefix(402)}};
  auto follow = RangeCopy::can_follow_writes(source_->dsn(), parts);
  ASSERT_TRUE(follow.has_value()) << follow.error().message;
  EXPECT_FALSE(*follow);  // no primary key: the source could not publish its updates
  auto copy = RangeCopy::start(source_->dsn(), target_->dsn(), parts, "pgrange_move_test6", false);
  ASSERT_TRUE(copy.has_value()) << copy.error().message;
  EXPECT_EQ(copy->rows_copied(), 2);
  auto none = copy->catch_up(seconds(1));
  ASSERT_TRUE(none.has_value());
  EXPECT_EQ(*none, 0);
  ASSERT_TRUE(copy->prepare(seconds(30)).has_value());
  ASSERT_TRUE(copy->commit_target().has_value());
  copy->switched();
  ASSERT_EQ(copy->delete_source().value_or(-1), 2);
  EXPECT_EQ(target_->exec(R"(SELECT string_agg("Name" || '=' || coalesce(value::text, 'null'), )"
                          R"(',' ORDER BY "Name") FROM "Odd ""Schema"""."Settings")"),
            R"(a={"x": 1},b=null)");
  EXPECT_EQ(source_->exec(R"(SELECT count(*) FROM "Odd ""Schema"""."Settings")"), "0");

  // REPLICA IDENTITY FULL follows writes by the whole row, equal rows included.
  for (PgServer* s : {source_, target_}) {
    s->exec(
        "CREATE TABLE full_ident (k int, v text); ALTER TABLE full_ident REPLICA IDENTITY FULL");
  }
  source_->exec("INSERT INTO full_ident VALUES (1, 'a'), (1, 'a'), (2, NULL)");
  t.table_id = 402;
  t.schema = "public";
  t.name = "full_ident";
  parts = {{t, table_prefix(402), table_prefix(403)}};
  follow = RangeCopy::can_follow_writes(source_->dsn(), parts);
  ASSERT_TRUE(follow.has_value()) << follow.error().message;
  EXPECT_TRUE(*follow);
  auto full = RangeCopy::start(source_->dsn(), target_->dsn(), parts, "pgrange_move_test7", true);
  ASSERT_TRUE(full.has_value()) << full.error().message;
  source_->exec(
      "UPDATE full_ident SET v = 'b' WHERE ctid = (SELECT min(ctid) FROM full_ident WHERE k = 1); "
      "DELETE FROM full_ident WHERE k = 2; INSERT INTO full_ident VALUES (3, NULL)");
  auto applied = full->catch_up(seconds(30));
  ASSERT_TRUE(applied.has_value()) << applied.error().message;
  EXPECT_EQ(*applied, 3);
  ASSERT_TRUE(full->prepare(seconds(30)).has_value());
  ASSERT_TRUE(full->commit_target().has_value());
  full->switched();
  ASSERT_EQ(full->delete_source().value_or(-1), 3);
  EXPECT_EQ(target_->exec("SELECT string_agg(k || coalesce(v, '-'), ',' ORDER BY k, v) FROM "
                          "full_ident"),
            "1a,1b,3-");
  expect_clean(*source_);
  expect_clean(*target_);
}

TEST_F(RangeCopyTest, ATransactionLeftOpenOnTheSourceMakesStartGiveUp) {
  const auto t = make_table("waited", 10);
  std::vector<RangePart> parts = {{t, key(t, 1), key(t, 5)}};
  // A session idle in a transaction that wrote: the slot's snapshot would wait for it.
  PGconn* idle = PQconnectdb(source_->dsn().c_str());
  PQclear(PQexec(idle, "BEGIN; INSERT INTO waited (id) VALUES (100)"));
  auto copy = RangeCopy::start(source_->dsn(), target_->dsn(), parts, "pgrange_move_test9", true,
                               std::chrono::milliseconds(1500));
  ASSERT_FALSE(copy.has_value());
  EXPECT_EQ(copy.error().sqlstate, "57014");
  EXPECT_NE(copy.error().message.find("stayed open"), std::string::npos) << copy.error().message;
  PQclear(PQexec(idle, "COMMIT"));
  PQfinish(idle);
  expect_clean(*source_);
  auto again = RangeCopy::start(source_->dsn(), target_->dsn(), parts, "pgrange_move_test10", true);
  ASSERT_TRUE(again.has_value()) << again.error().message;
  ASSERT_TRUE(again->abort().has_value());
  expect_clean(*source_);
}

TEST_F(RangeCopyTest, ASourceWithoutLogicalDecodingIsNamed) {
  PgServer::Options opts;
  opts.settings = {{"wal_level", "replica"}};
  auto plain = PgServer::start(opts);
  plain->exec("CREATE TABLE t (id int8 PRIMARY KEY)");
  target_->exec("CREATE TABLE t (id int8 PRIMARY KEY)");
  TableDescriptor t;
  t.table_id = 403;
  t.schema = "public";
  t.name = "t";
  t.key_source = KeySource::kPrimaryKey;
  t.key = {{"id", {KeyType::kInt8}}};
  std::vector<RangePart> parts = {{t, table_prefix(403), table_prefix(404)}};
  auto copy = RangeCopy::start(plain->dsn(), target_->dsn(), parts, "pgrange_move_test8", true);
  ASSERT_FALSE(copy.has_value());
  EXPECT_EQ(copy.error().sqlstate, "55000");
  EXPECT_NE(copy.error().message.find("wal_level = logical"), std::string::npos)
      << copy.error().message;
  EXPECT_EQ(plain->exec("SELECT count(*) FROM pg_publication"), "0");
}

}  // namespace
}  // namespace pgrange::routing
