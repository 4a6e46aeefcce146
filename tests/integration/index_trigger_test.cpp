// The index trigger against a real PostgreSQL 15 server: index_trigger_sql installed on a table
// with two global secondary indexes reports exactly the changed rows (INSERT, UPDATE of indexed
// and other columns, UPDATE of the row key, DELETE) as PGRIX notices, also when the session's
// client_min_messages, DateStyle and bytea_output would hide or reshape them (and leaves those
// settings as they were); applying index_entry_writes of the notes on the same server (a
// one-shard view) leaves each index table holding exactly one entry per row.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <memory>
#include <string>
#include <vector>

#include "routing/keys/key_space.hpp"
#include "routing/meta/cluster_view.hpp"
#include "routing/moves/shard_link.hpp"
#include "routing/plan/index_maintenance.hpp"
#include "tests/support/pg_server.hpp"

namespace pgrange::routing {
namespace {

using testing::PgServer;

using shard_link::Conn;
using shard_link::PgResult;

/// What the notice receiver saw: the index notes (read back through a NoticeResponse body, as
/// pgrange reads them), the other notices' SQLSTATEs, and errors reading notes.
struct Seen {
  std::vector<IndexNote> notes;
  std::vector<std::string> other;
  std::vector<std::string> errors;
};

/// libpq notice receiver: rebuilds the NoticeResponse body from the notice's fields.
void receive_notice(void* arg, const PGresult* res) {
  auto* seen = static_cast<Seen*>(arg);
  std::string body;
  for (auto [type, code] : {std::pair<char, int>{'S', PG_DIAG_SEVERITY_NONLOCALIZED},
                            {'C', PG_DIAG_SQLSTATE},
                            {'M', PG_DIAG_MESSAGE_PRIMARY},
                            {'W', PG_DIAG_CONTEXT}}) {
    const char* v = PQresultErrorField(res, code);
    if (v == nullptr) continue;
    body += type;
    body += v;
    body += '\0';
  }
  body += '\0';
  auto note = read_index_note(body);
  if (!note) {
    seen->errors.push_back(note.error().message);
  } else if (*note) {
    seen->notes.push_back(std::move(**note));
  } else {
    const char* code = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    seen->other.push_back(code != nullptr ? code : "");
  }
}

/// The table: events (id 30) keyed (region text, id int8), indexes by_at (at timestamptz,
/// storing amount numeric) and unique by_body (body text, storing blob bytea); "Note's" is no
/// index's column.
TableDescriptor events_table() {
  TableDescriptor t;
  t.table_id = 30;
  t.name = "events";
  t.key_source = KeySource::kPrimaryKey;
  t.columns = {"region", "id", "at", "amount", "body", "blob", "Note's"};
  t.key.push_back({"region", KeyColumn{KeyType::kText}});
  t.key.push_back({"id", KeyColumn{KeyType::kInt8}});
  IndexDescriptor by_at;
  by_at.index_id = 2;
  by_at.name = "by_at";
  by_at.columns.push_back({"at", KeyColumn{KeyType::kTimestamptz}});
  by_at.storing = {"amount"};
  IndexDescriptor by_body;
  by_body.index_id = 3;
  by_body.name = "by_body";
  by_body.columns.push_back({"body", KeyColumn{KeyType::kText}});
  by_body.storing = {"blob"};
  by_body.unique = true;
  t.indexes = {by_at, by_body};
  return t;
}

class IndexTriggerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = PgServer::start();
    conn_.reset(PQconnectdb(server_->dsn().c_str()));
    ASSERT_EQ(PQstatus(conn_.get()), CONNECTION_OK) << PQerrorMessage(conn_.get());
    PQsetNoticeReceiver(conn_.get(), receive_notice, &seen_);
    table_ = events_table();
    exec(
        "CREATE TABLE events (region text, id int8, at timestamptz, amount numeric, body text, "
        "blob bytea, \"Note's\" text, PRIMARY KEY (region, id))");
    exec(
        "CREATE TABLE \"events@by_at\" (at timestamptz, region text, id int8, amount numeric, "
        "PRIMARY KEY (region, id));"
        "CREATE INDEX ON \"events@by_at\" (at);"
        "CREATE TABLE \"events@by_body\" (body text, region text, id int8, blob bytea, "
        "PRIMARY KEY (region, id));"
        "CREATE UNIQUE INDEX ON \"events@by_body\" (body);");
    exec(index_trigger_sql(table_));
    exec(index_trigger_sql(table_));  // reinstalling is fine

    MetadataSnapshot snap;
    snap.version = 1;
    snap.shards = {{"s1", server_->dsn()}};
    snap.tables = {table_};
    snap.ranges = {RangeDescriptor{1, std::string(kMinKey), std::string(kMaxKey), "s1", 1, {}}};
    auto v = ClusterView::build(std::move(snap), {"s1"});
    ASSERT_TRUE(v) << v.error().message;
    view_ = *v;
  }

  /// Runs SQL (several statements allowed); fails the test on error.
  PgResult exec(const std::string& sql) {
    PgResult r(PQexec(conn_.get(), sql.c_str()));
    auto st = PQresultStatus(r.get());
    EXPECT_TRUE(st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
        << sql.substr(0, 600) << ": " << PQerrorMessage(conn_.get());
    return r;
  }

  /// The rows of a query, each as its columns' text joined by '|' (NULL as "∅").
  std::vector<std::string> rows(const std::string& sql) {
    PgResult r = exec(sql);
    std::vector<std::string> out;
    for (int i = 0; i < PQntuples(r.get()); ++i) {
      std::string row;
      for (int j = 0; j < PQnfields(r.get()); ++j) {
        if (j > 0) row += "|";
        row += PQgetisnull(r.get(), i, j) ? "∅" : PQgetvalue(r.get(), i, j);
      }
      out.push_back(std::move(row));
    }
    return out;
  }

  /// The notes seen since the last call (and no errors reading them).
  std::vector<IndexNote> take_notes() {
    EXPECT_TRUE(seen_.errors.empty()) << seen_.errors.front();
    std::vector<IndexNote> out = std::move(seen_.notes);
    seen_ = Seen{};
    return out;
  }

  /// Applies index_entry_writes of the notes seen so far; checks each index table then holds
  /// exactly the entries of the table's rows.
  void apply_and_check(size_t expected_notes) {
    std::vector<IndexNote> notes = take_notes();
    EXPECT_EQ(notes.size(), expected_notes);
    auto writes = index_entry_writes(*view_, table_, notes);
    ASSERT_TRUE(writes) << writes.error().message;
    for (const auto& [shard, sql] : *writes) {
      EXPECT_EQ(shard, 0);
      exec(sql);
    }
    EXPECT_TRUE(take_notes().empty());  // the index tables have no trigger
    EXPECT_EQ(rows("SELECT at, region, id, amount FROM \"events@by_at\" ORDER BY region, id"),
              rows("SELECT at, region, id, amount FROM events ORDER BY region, id"));
    EXPECT_EQ(rows("SELECT body, region, id, blob FROM \"events@by_body\" ORDER BY region, id"),
              rows("SELECT body, region, id, blob FROM events ORDER BY region, id"));
  }

  /// The value of a setting in the session.
  std::string setting(const std::string& name) {
    auto r = rows("SELECT current_setting('" + name + "')");
    return r.empty() ? "" : r.front();
  }

  std::unique_ptr<PgServer> server_;
  Conn conn_;
  Seen seen_;
  TableDescriptor table_;
  std::shared_ptr<const ClusterView> view_;
};

TEST_F(IndexTriggerTest, NotesKeepTheIndexTablesInStep) {
  exec("SET TimeZone = 'Asia/Kolkata'");  // timestamptz text carries +05:30
  exec(
      "INSERT INTO events VALUES "
      "('eu', 1, '2024-01-02 03:04:05.123456+00', 1.50, 'plain', '\\x00ff', 'n1'), "
      "('eu', 2, NULL, NULL, NULL, NULL, NULL), "
      "('us', 1, '1999-12-31 23:59:59-08', -0.000001, E'it''s a \\\\ back\\nslash', "
      "'\\x', NULL), "
      "('', -9223372036854775808, 'infinity', 123456789012345678901234567890.5, '', "
      "'\\x5c27', 'n'), "
      "('日本', 9223372036854775807, '-infinity', 'NaN', 'héllo 日本 \U0001F600', NULL, 'x')");
  {
    std::vector<IndexNote> notes = seen_.notes;
    ASSERT_EQ(notes.size(), 5u);
    for (const IndexNote& n : notes) {
      EXPECT_EQ(n.table_id, 30u);
      EXPECT_TRUE(n.insert);
      ASSERT_EQ(n.values.size(), 6u);
      EXPECT_EQ(n.values[0].first, "region");
      EXPECT_EQ(n.values[5].first, "blob");
    }
    EXPECT_EQ(notes[0].values[2].second, "2024-01-02 08:34:05.123456+05:30");
    EXPECT_EQ(notes[0].values[5].second, "\\x00ff");
    EXPECT_EQ(notes[1].values[2].second, std::nullopt);
    EXPECT_EQ(notes[2].values[4].second, "it's a \\ back\nslash");
    EXPECT_EQ(notes[3].values[0].second, std::optional<std::string>(""));
    EXPECT_EQ(notes[4].values[4].second, "héllo 日本 \U0001F600");
  }
  apply_and_check(5);

  // Other columns: no note; indexed ones: the row before and after.
  exec("UPDATE events SET \"Note's\" = 'changed'");
  EXPECT_TRUE(take_notes().empty());
  exec("UPDATE events SET amount = amount WHERE id = 1");  // same value: no note
  EXPECT_TRUE(take_notes().empty());
  exec("UPDATE events SET body = coalesce(body, '') || '!' WHERE region = 'eu'");
  {
    const std::vector<IndexNote>& notes = seen_.notes;
    ASSERT_EQ(notes.size(), 4u);
    EXPECT_FALSE(notes[0].insert);
    EXPECT_TRUE(notes[1].insert);
  }
  apply_and_check(4);
  exec("UPDATE events SET amount = 2.5, at = at + interval '1 day' WHERE region = 'us'");
  apply_and_check(2);
  // The row key itself (its entries are deleted by the old key, inserted by the new).
  exec("UPDATE events SET id = id + 100 WHERE region = 'eu'");
  apply_and_check(4);

  // Settings that would hide or reshape the notes.
  exec("SET client_min_messages = error");
  exec("SET DateStyle = 'SQL, DMY'");
  exec("SET bytea_output = escape");
  exec("SET extra_float_digits = -2");
  exec("UPDATE events SET at = '2030-06-07 08:09:10+02', blob = '\\x0102' WHERE region = 'us'");
  ASSERT_EQ(seen_.notes.size(), 2u);
  EXPECT_EQ(seen_.notes[1].values[2].second, "2030-06-07 11:39:10+05:30");
  EXPECT_EQ(seen_.notes[1].values[5].second, "\\x0102");
  EXPECT_EQ(setting("client_min_messages"), "error");
  EXPECT_EQ(setting("DateStyle"), "SQL, DMY");
  EXPECT_EQ(setting("bytea_output"), "escape");
  EXPECT_EQ(setting("extra_float_digits"), "-2");
  apply_and_check(2);
  exec("RESET DateStyle; RESET bytea_output; RESET extra_float_digits");

  // A transaction's SET LOCAL stays as it was; the notes still arrive.
  exec("BEGIN");
  exec("SET LOCAL client_min_messages = warning");
  exec("INSERT INTO events VALUES ('eu', 7, now(), 7, 'seven', NULL, NULL)");
  EXPECT_EQ(setting("client_min_messages"), "warning");
  exec("COMMIT");
  EXPECT_EQ(setting("client_min_messages"), "error");
  apply_and_check(1);
  exec("RESET client_min_messages");

  // Several changes of one row in one batch net out.
  exec(
      "BEGIN;"
      "INSERT INTO events VALUES ('ap', 1, '2020-01-01 00:00:00+00', 1, 'one', NULL, NULL);"
      "UPDATE events SET body = 'uno', at = NULL WHERE region = 'ap' AND id = 1;"
      "UPDATE events SET body = 'eins' WHERE region = 'ap' AND id = 1;"
      "INSERT INTO events VALUES ('ap', 2, NULL, NULL, 'two', NULL, NULL);"
      "DELETE FROM events WHERE region = 'ap' AND id = 2;"
      "UPDATE events SET body = 'sieben' WHERE id = 7;"
      "UPDATE events SET body = 'seven' WHERE id = 7;"
      "COMMIT");
  apply_and_check(11);

  // Unique values changing hands through a temporary one, statement by statement (pgrange
  // writes a statement's entries before the next statement runs).
  exec("UPDATE events SET body = 'tmp' WHERE region = 'ap' AND id = 1");
  apply_and_check(2);
  exec("UPDATE events SET body = 'eins' WHERE id = 7");
  apply_and_check(2);
  exec("UPDATE events SET body = 'seven' WHERE region = 'ap' AND id = 1");
  apply_and_check(2);
  // Swapped by one statement: a UNIQUE index's entries go row by row, so the first row's new
  // value meets the second row's old one, as PostgreSQL's own unique check would.
  exec("BEGIN");
  exec(
      "UPDATE events SET body = CASE id WHEN 7 THEN 'seven' ELSE 'eins' END WHERE id IN (1, 7) "
      "AND region IN ('ap', 'eu') AND body IN ('seven', 'eins')");
  std::vector<IndexNote> swap = take_notes();
  EXPECT_EQ(swap.size(), 4u);
  auto writes = index_entry_writes(*view_, table_, swap);
  ASSERT_TRUE(writes) << writes.error().message;
  PgResult failed(PQexec(conn_.get(), writes->at(0).c_str()));
  EXPECT_STREQ(PQresultErrorField(failed.get(), PG_DIAG_SQLSTATE), "23505");
  exec("ROLLBACK");
  take_notes();

  exec("DELETE FROM events WHERE region <> 'us'");
  apply_and_check(6);
  exec("DELETE FROM events");
  apply_and_check(1);
  EXPECT_TRUE(rows("SELECT * FROM \"events@by_at\"").empty());
  EXPECT_TRUE(rows("SELECT * FROM \"events@by_body\"").empty());
}

TEST_F(IndexTriggerTest, DropRemovesTriggerAndFunction) {
  exec(drop_index_trigger_sql(table_));
  exec(drop_index_trigger_sql(table_));  // IF EXISTS
  exec("INSERT INTO events VALUES ('eu', 1, NULL, NULL, NULL, NULL, NULL)");
  EXPECT_TRUE(take_notes().empty());
  EXPECT_EQ(rows("SELECT count(*) FROM pg_proc WHERE proname = 'pgrange_index_30'"),
            std::vector<std::string>{"0"});
}

}  // namespace
}  // namespace pgrange::routing
