#include "routing/plan/router.hpp"

#include <gtest/gtest.h>

#include "routing/keys/key_space.hpp"
#include "routing/plan/plan_description.hpp"
#include "tests/unit/routing/tiled_ranges.hpp"

namespace pgrange::routing {
namespace {

/// Tables: users (id int8 key) split at 100 and 200 over s1, s2, s3; pairs ((a int4, b text)
/// key) on s2; notes (unsharded) on s3. Shards s1, s2, s3 have pool indexes 0, 1, 2.
class RouterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MetadataSnapshot snap;
    snap.version = 7;
    snap.shards = {{"s1", "dsn1"}, {"s2", "dsn2"}, {"s3", "dsn3"}};
    TableDescriptor users{100, "public", "users", KeySource::kPrimaryKey, {}, {"id", "name"}};
    users.key.push_back({"id", KeyColumn{KeyType::kInt8}});
    TableDescriptor pairs{101, "public", "pairs", KeySource::kPrimaryKey, {}, {"a", "b", "v"}};
    pairs.key.push_back({"a", KeyColumn{KeyType::kInt4}});
    pairs.key.push_back({"b", KeyColumn{KeyType::kText}});
    TableDescriptor notes{102, "public", "notes", KeySource::kUnsharded, {}, {"body"}};
    snap.tables = {users, pairs, notes};
    auto k = [](int64_t v) {
      std::vector<KeyColumn> cols{KeyColumn{KeyType::kInt8}};
      std::string text = std::to_string(v);
      std::optional<std::string_view> vals[1] = {text};
      return *encode_key_text(100, 1, cols, vals);
    };
    std::vector<std::pair<std::string, std::string>> bounds = {{std::string(kMinKey), "s1"},
                                                               {table_prefix(100), "s1"},
                                                               {k(100), "s2"},
                                                               {k(200), "s3"},
                                                               {table_prefix(101), "s2"},
                                                               {table_prefix(102), "s3"},
                                                               {table_prefix(103), "s1"}};
    snap.ranges = tiled_ranges(bounds);
    auto v = ClusterView::build(std::move(snap), {"s1", "s2", "s3"});
    ASSERT_TRUE(v) << v.error().message;
    view_ = *v;
  }

  Route route(std::string_view sql) {
    auto infos = sql::analyze_statements(sql);
    EXPECT_TRUE(infos) << sql << ": " << (infos ? "" : infos.error().message);
    if (!infos) return {};
    return route_statements(*view_, *infos);
  }

  std::shared_ptr<const ClusterView> view_;
};

TEST_F(RouterTest, PointStatementsGoToTheOwningShard) {
  for (auto [sql, shard] : std::vector<std::pair<std::string, int>>{
           {"SELECT * FROM users WHERE id = 5", 0},
           {"SELECT * FROM users WHERE id = 150 AND name = 'x'", 1},
           {"select name from users u where 250 = u.id", 2},
           {"SELECT * FROM users WHERE id = '100'::int8", 1},
           {"UPDATE users SET name = 'y' WHERE id = 199", 1},
           {"DELETE FROM users WHERE id = -3", 0},
           {"INSERT INTO users (id, name) VALUES (201, 'a'), (999, 'b')", 2},
           {"INSERT INTO users VALUES (7, 'no column list')", 0},
           {"INSERT INTO users (name, id) VALUES ('reordered', 150)", 1},
           {"SELECT * FROM pairs WHERE a = 1 AND b = 'x'", 1},
           {"SELECT * FROM notes", 2},
           {"UPDATE notes SET body = ''", 2},
       }) {
    Route r = route(sql);
    EXPECT_FALSE(r.refusal) << sql << ": " << r.refusal->message;
    ASSERT_EQ(r.shards.size(), 1u) << sql;
    EXPECT_EQ(r.shards[0], shard) << sql;
    EXPECT_FALSE(r.uses.empty()) << sql;
  }
}

TEST_F(RouterTest, UsesRecordRangesAndWhetherTheyAreWritten) {
  Route r = route("UPDATE users SET name = 'y' WHERE id = 150");
  ASSERT_EQ(r.uses.size(), 1u);
  EXPECT_EQ(r.uses[0].range_id, 3u);
  EXPECT_EQ(r.uses[0].shard, 1);
  EXPECT_TRUE(r.uses[0].write);
  EXPECT_FALSE(r.uses[0].scan);
  EXPECT_TRUE(r.writes);
  r = route("SELECT * FROM users WHERE id = 150");
  ASSERT_EQ(r.uses.size(), 1u);
  EXPECT_FALSE(r.uses[0].write);
  EXPECT_FALSE(r.writes);
}

TEST_F(RouterTest, AnythingElseOnAKeyedTableGoesToEveryShardOfIt) {
  for (std::string sql :
       {"SELECT * FROM users", "SELECT * FROM users WHERE id > 5",
        "SELECT * FROM users WHERE id = $1", "SELECT * FROM users WHERE name = 'x'"}) {
    Route r = route(sql);
    EXPECT_FALSE(r.refusal) << sql;
    EXPECT_EQ(r.shards, (std::vector<int>{0, 1, 2})) << sql;
    EXPECT_TRUE(r.fanout_select) << sql;
    EXPECT_EQ(r.uses.size(), 3u) << sql;
    for (const auto& u : r.uses) EXPECT_TRUE(u.scan) << sql;
  }
  // A prefix of a composite key is not a point: every range of the table (all on s2 here).
  Route r = route("SELECT * FROM pairs WHERE a = 1");
  EXPECT_EQ(r.shards, (std::vector<int>{1}));
}

TEST_F(RouterTest, KeyConditionsGoToExactlyTheRangesTheyTouch) {
  for (auto [sql, shards, scan] : std::vector<std::tuple<std::string, std::vector<int>, bool>>{
           {"SELECT * FROM users WHERE id = 1 OR id = 2", {0}, false},
           // Keys of several ranges: each shard gets all of them, so the statement waits out
           // a cut-over as a whole-table read does (a shard may hold a copy of a range it does
           // not own then); keys of one range go to its owner alone.
           {"SELECT * FROM users WHERE id IN (5, 150)", {0, 1}, true},
           {"SELECT * FROM users WHERE id BETWEEN 120 AND 180", {1}, true},
           {"SELECT * FROM users WHERE id >= 150", {1, 2}, true},
           {"SELECT * FROM users WHERE id < 100", {0}, true},
           {"SELECT * FROM users WHERE id <= 100", {0, 1}, true},
           {"SELECT * FROM users WHERE 100 > id", {0}, true},
           {"SELECT * FROM users WHERE id < 100 OR id >= 200", {0, 2}, true},
           {"SELECT * FROM users WHERE id > 150 AND id < 160 AND name = 'x'", {1}, true},
           {"SELECT * FROM users WHERE (id = 5 OR id = 250) AND id > 100", {2}, false},
           // Contradictions find no row anywhere; any shard gives that answer.
           {"SELECT * FROM users WHERE id = 1 AND id = 300", {0}, false},
           {"SELECT * FROM users WHERE id > 250 AND id < 100", {}, true},
           {"UPDATE users SET name = 'y' WHERE id BETWEEN 120 AND 130", {1}, true},
           {"SELECT * FROM users WHERE NOT (id = 5)", {0, 1, 2}, true},
           {"SELECT * FROM users WHERE id <> 5", {0, 1, 2}, true},
           {"SELECT * FROM users WHERE id + 0 = 5", {0, 1, 2}, true},
           {"SELECT * FROM users WHERE id < 5.5", {0, 1, 2}, true},  // not an int8: not narrowed
           {"SELECT * FROM users WHERE id > 5 OR name = 'x'", {0, 1, 2}, true},
       }) {
    Route r = route(sql);
    EXPECT_FALSE(r.refusal) << sql << ": " << (r.refusal ? r.refusal->message : "");
    EXPECT_EQ(r.shards, shards) << sql;
    for (const auto& u : r.uses) EXPECT_EQ(u.scan, scan) << sql;
  }
  // A DELETE over two shards' ranges runs on both, committed atomically.
  Route del = route("DELETE FROM users WHERE id > 150");
  EXPECT_FALSE(del.refusal);
  EXPECT_TRUE(del.distributed_write);
  EXPECT_EQ(del.shards, (std::vector<int>{1, 2}));
  // Bind values narrow like literals.
  auto infos = sql::analyze_statements("SELECT * FROM users WHERE id BETWEEN $1 AND $2");
  ASSERT_TRUE(infos);
  BindParams params{{}, {std::string_view("120"), std::string_view("130")}, {}};
  EXPECT_EQ(route_statements(*view_, *infos, &params).shards, (std::vector<int>{1}));
}

TEST_F(RouterTest, ExplainingShowsTheSpansTheirReasonsAndRanges) {
  auto infos = sql::analyze_statements("SELECT * FROM users WHERE id BETWEEN 120 AND 250");
  ASSERT_TRUE(infos);
  Route plain = route_statements(*view_, *infos);
  EXPECT_TRUE(plain.explanation.empty());  // the hot path builds no explanation
  Route r = explain_statements(*view_, *infos);
  EXPECT_EQ(r.shards, plain.shards);
  EXPECT_EQ(r.uses, plain.uses);
  ASSERT_EQ(r.explanation.size(), 1u);
  const TableRoute& t = r.explanation[0];
  EXPECT_EQ(t.table, "users");
  EXPECT_EQ(t.table_id, 100u);
  EXPECT_EQ(t.reach, TableRoute::Reach::kSpans);
  ASSERT_EQ(t.spans.size(), 1u);
  EXPECT_EQ(describe_spans(t.spans, 100), "[…/1/120, …/1/251)");
  ASSERT_EQ(t.ranges.size(), 2u);
  EXPECT_EQ(t.ranges[0].range_id, 3u);
  EXPECT_EQ(t.ranges[0].shard, "s2");
  EXPECT_EQ(t.ranges[1].range_id, 4u);
  ASSERT_EQ(t.reasons.size(), 2u);
  EXPECT_EQ(t.reasons[0].text(), "id >= 120 → span");
  EXPECT_EQ(t.reasons[1].text(), "id <= 250 → span");

  // Unknown parameters are routed at Bind: until then, the whole table.
  infos = sql::analyze_statements("SELECT * FROM users WHERE id = $1");
  ASSERT_TRUE(infos);
  r = explain_statements(*view_, *infos);
  ASSERT_EQ(r.explanation.size(), 1u);
  EXPECT_EQ(r.explanation[0].reach, TableRoute::Reach::kWholeTable);
  ASSERT_FALSE(r.explanation[0].reasons.empty());
  EXPECT_EQ(r.explanation[0].reasons[0].text(),
            "id = $1 → not read: parameter $1 is only known at Bind");
  BindParams params{{}, {std::string_view("5")}, {}};
  r = explain_statements(*view_, *infos, &params);
  EXPECT_EQ(r.explanation[0].reach, TableRoute::Reach::kPoints);
  EXPECT_EQ(r.shards, (std::vector<int>{0}));
}

TEST_F(RouterTest, IntegerArithmeticInKeyValuesIsWorkedOut) {
  for (auto [sql, shards] : std::vector<std::pair<std::string, std::vector<int>>>{
           {"SELECT * FROM users WHERE id BETWEEN 120 AND 120 + 50", {1}},
           {"SELECT * FROM users WHERE id < 50 + 40", {0}},
           {"SELECT * FROM users WHERE id >= 300 - 150 + 100", {2}},
           {"SELECT * FROM users WHERE id = 100 - (50 - 60)", {1}},
           {"SELECT * FROM users WHERE id = 99 + 1", {1}},
           {"SELECT * FROM users WHERE id < (90 + 5)::int8", {0}},
           {"SELECT * FROM users WHERE id < 90::int4 + 5", {0}},
           {"UPDATE users SET name = 'y' WHERE id = 250 - 1", {2}},
           {"INSERT INTO users (id, name) VALUES (200 + 1, 'a')", {2}},
           {"INSERT INTO users (id, name) VALUES (1 + 1, 'a'), (300 - 200, 'b')", {0, 1}},
           // What is not an integer sum, or not one pgrange can be sure of, reads every range.
           {"SELECT * FROM users WHERE id < 90 + 0.5", {0, 1, 2}},
           {"SELECT * FROM users WHERE id < 90 + 1e1", {0, 1, 2}},
           {"SELECT * FROM users WHERE id < (90 + 5)::numeric", {0, 1, 2}},
           {"SELECT * FROM users WHERE id < '90'::text + 5", {0, 1, 2}},
           {"SELECT * FROM users WHERE id < 9223372036854775807 + 1", {0, 1, 2}},
           {"SELECT * FROM users WHERE id < 90 + NULL", {0, 1, 2}},
           {"SELECT * FROM users WHERE id < 90 * 1", {0, 1, 2}},
           {"SELECT * FROM users WHERE id < $1 + 1", {0, 1, 2}},  // known at Bind
       }) {
    Route r = route(sql);
    EXPECT_FALSE(r.refusal) << sql << ": " << (r.refusal ? r.refusal->message : "");
    EXPECT_EQ(r.shards, shards) << sql;
  }
  // Only integer keys: a text key's '1' + 1 is an error on the shard, not a key.
  Route text = route("SELECT * FROM pairs WHERE a = 1 AND b = 'x' + 1");
  EXPECT_EQ(text.shards, (std::vector<int>{1}));

  // Parameters: text; binary of a Parse type; binary without one, read by its length (what
  // PostgreSQL takes for an integer operand); a float8 is no integer.
  auto infos = sql::analyze_statements("SELECT * FROM users WHERE id BETWEEN $1 AND $1 + $2");
  ASSERT_TRUE(infos);
  auto shards_for = [&](BindParams p) { return route_statements(*view_, *infos, &p).shards; };
  EXPECT_EQ(shards_for({{}, {std::string_view("120"), std::string_view("50")}, {}}),
            (std::vector<int>{1}));
  EXPECT_EQ(shards_for({{}, {std::string_view("120"), std::string_view("90")}, {}}),
            (std::vector<int>{1, 2}));
  EXPECT_EQ(shards_for({{}, {std::string_view("120"), std::string_view(" 90")}, {}}),
            (std::vector<int>{1, 2}));  // the upper bound not read: every range above 120
  const std::string int4_50("\x00\x00\x00\x32", 4);
  const std::string int8_50("\x00\x00\x00\x00\x00\x00\x00\x32", 8);
  const std::string float8_50("\x40\x49\x00\x00\x00\x00\x00\x00", 8);
  EXPECT_EQ(shards_for({{0, 1}, {std::string_view("120"), std::string_view(int4_50)}, {}}),
            (std::vector<int>{1}));
  EXPECT_EQ(shards_for({{0, 1}, {std::string_view("120"), std::string_view(int8_50)}, {0, 20}}),
            (std::vector<int>{1}));
  EXPECT_EQ(shards_for({{0, 1}, {std::string_view("120"), std::string_view(float8_50)}, {0, 701}}),
            (std::vector<int>{1, 2}));
  EXPECT_EQ(shards_for({{}, {std::string_view("120"), std::nullopt}, {}}),
            (std::vector<int>{1, 2}));

  // Explained as written, with what it adds up to.
  infos = sql::analyze_statements("SELECT * FROM users WHERE id <= $1 + 50 - 1");
  ASSERT_TRUE(infos);
  BindParams p{{}, {std::string_view("100")}, {}};
  Route r = explain_statements(*view_, *infos, &p);
  ASSERT_EQ(r.explanation.size(), 1u);
  ASSERT_EQ(r.explanation[0].reasons.size(), 1u);
  EXPECT_EQ(r.explanation[0].reasons[0].text(), "id <= $1 + 50 - 1 → span");
  EXPECT_EQ(describe_spans(r.explanation[0].spans, 100), "[…/1, …/1/150)");
  infos = sql::analyze_statements("SELECT * FROM users WHERE id <= 5 + 0.5");
  ASSERT_TRUE(infos);
  r = explain_statements(*view_, *infos);
  ASSERT_FALSE(r.explanation[0].reasons.empty());
  EXPECT_EQ(r.explanation[0].reasons[0].text(),
            "id <= 5 + 0.5 → not read: only sums of integer constants and parameters are added up");
}

TEST(BindParamsTest, ABinaryValueIsReadAsTheTypeItsParseGaveIt) {
  const std::string int2_150("\x00\x96", 2);
  const std::string int4_150("\x00\x00\x00\x96", 4);
  const std::string int8_150("\x00\x00\x00\x00\x00\x00\x00\x96", 8);
  const std::string float8_5("\x40\x14\x00\x00\x00\x00\x00\x00", 8);  // 5.0
  BindParams p;
  p.formats = {1};
  p.values = {std::string_view(int2_150), std::string_view(int4_150), std::string_view(int8_150),
              std::string_view(float8_5), std::string_view("abc")};
  // Left to PostgreSQL (no types): the key column's type.
  EXPECT_EQ(p.text(3, KeyType::kInt8), "150");
  EXPECT_EQ(p.text(1, KeyType::kInt8), std::nullopt);  // two bytes are no int8
  // Given: an integer of another width, for an integer or numeric key.
  p.types = {21, 23, 20, 701, 1043};
  EXPECT_EQ(p.text(1, KeyType::kInt8), "150");
  EXPECT_EQ(p.text(2, KeyType::kInt8), "150");
  EXPECT_EQ(p.text(1, KeyType::kInt4), "150");
  EXPECT_EQ(p.text(2, KeyType::kNumeric), "150");
  EXPECT_EQ(p.text(3, KeyType::kInt2), "150");
  // A float8 5.0 compared with an int8 key is not the int8 of its bytes: not known.
  EXPECT_EQ(p.text(4, KeyType::kInt8), std::nullopt);
  EXPECT_EQ(p.text(4, KeyType::kFloat8), "5");
  // varchar for a text key: the same characters; for a bytea or uuid key: not known.
  EXPECT_EQ(p.text(5, KeyType::kText), "abc");
  EXPECT_EQ(p.text(5, KeyType::kUuid), std::nullopt);
  // A timestamptz for a timestamp key depends on the session's TimeZone: not known.
  const std::string ts("\x00\x02\x8f\x1d\x6a\x3b\x60\x00", 8);
  p.values = {std::string_view(ts)};
  p.types = {1184};
  EXPECT_EQ(p.text(1, KeyType::kTimestamp), std::nullopt);
  EXPECT_NE(p.text(1, KeyType::kTimestamptz), std::nullopt);
  // Text values are PostgreSQL's to read, whatever the type.
  p.formats = {0};
  p.values = {std::string_view("150")};
  p.types = {21};
  EXPECT_EQ(p.text(1, KeyType::kInt8), "150");
}

TEST_F(RouterTest, APlanDescriptionReadsLikeExplain) {
  auto infos = sql::analyze_statements("SELECT * FROM users WHERE id = 150");
  ASSERT_TRUE(infos);
  EXPECT_EQ(describe_plan(*view_, *infos),
            (std::vector<std::string>{"pgrange plan: single shard s2 (point id = 150, range 3)",
                                      "  table users: point …/1/150 → range 3 (s2)",
                                      "  reason: id = 150 → point"}));
  infos = sql::analyze_statements("SELECT count(*) FROM users WHERE id >= 150");
  ASSERT_TRUE(infos);
  std::vector<std::string> merge{"sum of the shards' counts"};
  auto lines = describe_plan(*view_, *infos, nullptr, merge);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "pgrange plan: fan-out to 2 shards (s2, s3), counts summed");
  EXPECT_EQ(lines[1], "  table users: span […/1/150, …/1/NULL) → ranges 3 (s2), 4 (s3)");
  EXPECT_EQ(lines[3], "  merge: sum of the shards' counts");
  infos = sql::analyze_statements("DELETE FROM users WHERE id > 150");
  ASSERT_TRUE(infos);
  lines = describe_plan(*view_, *infos);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[0],
            "pgrange plan: fan-out to 2 shards (s2, s3), one transaction on each, committed on "
            "all or none (two-phase commit)");
  infos = sql::analyze_statements("INSERT INTO users (id) SELECT 1");
  ASSERT_TRUE(infos);
  lines = describe_plan(*view_, *infos);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_TRUE(lines[0].starts_with("pgrange plan: refused (SQLSTATE 0A000): INSERT … SELECT"))
      << lines[0];
  EXPECT_TRUE(lines[1].starts_with("  hint: ")) << lines[1];
}

TEST_F(RouterTest, ACountOverSeveralShardsIsTheSumOfTheirs) {
  for (std::string sql :
       {"SELECT count(*) FROM users", "select COUNT(name) from users where id > 5",
        "SELECT pg_catalog.count(*) AS n FROM users"}) {
    Route r = route(sql);
    EXPECT_FALSE(r.refusal) << sql;
    EXPECT_TRUE(r.sum_counts) << sql;
    EXPECT_EQ(r.shards.size(), 3u) << sql;
  }
  EXPECT_FALSE(route("SELECT count(*) FROM users WHERE id = 5").sum_counts);  // one shard
}

TEST_F(RouterTest, CastsThatMayChangeAValueDoNotPickAShard) {
  // Between integer types and to the column's own type the value stays; a cast with a possible
  // modifier or to another type may not ('abc  '::char(5) is 'abc').
  EXPECT_EQ(route("SELECT * FROM users WHERE id = '150'::int4").shards, (std::vector<int>{1}));
  EXPECT_EQ(route("SELECT * FROM users WHERE id = 150::int8").shards, (std::vector<int>{1}));
  EXPECT_EQ(route("SELECT * FROM users WHERE id = '150'::numeric").shards,
            (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(route("SELECT * FROM pairs WHERE a = 1 AND b = 'x  '::char(3)").shards,
            (std::vector<int>{1}));  // every range of pairs is on s2 anyway
  auto r = route("SELECT * FROM users WHERE id < '150'::numeric(3,0)");
  EXPECT_EQ(r.shards, (std::vector<int>{0, 1, 2}));
}

TEST_F(RouterTest, AnUpdateOfTheKeyMovesRowsAsADistributedWrite) {
  // Routed where its WHERE reaches, but run as a distributed write even on one shard: the new
  // key may belong to another.
  Route r = route("UPDATE users SET id = 5 WHERE id = 150");
  EXPECT_FALSE(r.refusal);
  EXPECT_TRUE(r.moves_keys);
  EXPECT_TRUE(r.distributed_write);
  EXPECT_EQ(r.shards, (std::vector<int>{1}));
  // It writes every range of the table (a move of any of them waits for it).
  size_t written = 0;
  for (const auto& u : r.uses) written += u.write ? 1 : 0;
  EXPECT_EQ(written, 3u);
  r = route("UPDATE users SET id = id + 1 WHERE id > 150");
  EXPECT_TRUE(r.moves_keys);
  EXPECT_TRUE(r.distributed_write);
  EXPECT_EQ(r.shards, (std::vector<int>{1, 2}));
  // Refused: ON CONFLICT DO UPDATE of the key, and a key update among several statements.
  r = route("INSERT INTO users (id, name) VALUES (5, 'a') ON CONFLICT (id) DO UPDATE SET id = 6");
  ASSERT_TRUE(r.refusal);
  EXPECT_EQ(r.refusal->sqlstate, "0A000");
  EXPECT_NE(r.refusal->message.find("\"id\""), std::string::npos) << r.refusal->message;
  r = route("UPDATE users SET id = 5 WHERE id = 150; SELECT 1");
  ASSERT_TRUE(r.refusal);
  EXPECT_EQ(r.refusal->sqlstate, "0A000");
  // Other columns, and keys of a table that lives on one shard, move nothing.
  r = route("UPDATE users SET name = 'n' WHERE id = 150");
  EXPECT_FALSE(r.refusal);
  EXPECT_FALSE(r.moves_keys);
  EXPECT_FALSE(r.distributed_write);
  r = route("UPDATE pairs SET a = 2 WHERE a = 1 AND b = 'x'");
  EXPECT_FALSE(r.refusal);
  EXPECT_FALSE(r.moves_keys);
}

TEST_F(RouterTest, WhatCannotBeConcatenatedOrCommittedAtomicallyIsRefused) {
  for (auto [sql, words] : std::vector<std::pair<std::string, std::string>>{
           {"SELECT count(DISTINCT name) FROM users", "aggregate"},
           {"SELECT count(*), max(id) FROM users", "aggregate"},
           {"SELECT count(*) FROM users GROUP BY name", "aggregate"},
           {"SELECT * FROM users ORDER BY id", "ORDER BY"},
           {"SELECT * FROM users LIMIT 3", "LIMIT"},
           {"SELECT DISTINCT name FROM users", "DISTINCT"},
           {"SELECT * FROM users JOIN notes ON true", "JOIN"},
           {"INSERT INTO users (id) SELECT 1", "INSERT"},
           {"INSERT INTO users (name) VALUES ('a'), ('b')", "INSERT"},
           {"SELECT * FROM users WHERE id = 1; SELECT * FROM users WHERE id = 300",
            "several shards"},
       }) {
    Route r = route(sql);
    ASSERT_TRUE(r.refusal) << sql;
    EXPECT_EQ(r.refusal->sqlstate, "0A000") << sql;
    EXPECT_NE(r.refusal->message.find(words), std::string::npos)
        << sql << ": " << r.refusal->message;
  }
}

TEST_F(RouterTest, WritesAcrossShardsAreOneDistributedTransaction) {
  Route r = route("UPDATE users SET name = 'z'");
  EXPECT_FALSE(r.refusal);
  EXPECT_TRUE(r.distributed_write);
  EXPECT_EQ(r.shards.size(), 3u);
  r = route("INSERT INTO users (id, name) VALUES (1, 'a'), (300, 'b'), (2, 'c')");
  EXPECT_FALSE(r.refusal);
  EXPECT_TRUE(r.distributed_write);
  // Each VALUES row's shard, in order, for splitting the INSERT.
  EXPECT_EQ(r.row_shards, (std::vector<int>{0, 2, 0}));
  // One shard: no distributed transaction.
  r = route("UPDATE users SET name = 'z' WHERE id = 5");
  EXPECT_FALSE(r.distributed_write);
  EXPECT_EQ(r.shards.size(), 1u);
}

TEST_F(RouterTest, StatementsWithoutPgrangeTablesAreFree) {
  for (std::string sql : {"SELECT 1", "SET search_path = x", "SELECT * FROM pg_class",
                          "SELECT * FROM other_schema.users WHERE id = 1", "BEGIN"}) {
    Route r = route(sql);
    EXPECT_FALSE(r.refusal) << sql;
    EXPECT_TRUE(r.shards.empty()) << sql;
  }
}

TEST_F(RouterTest, ARangeOnAShardThisProcessDoesNotKnowIsAnError) {
  auto v = ClusterView::build(
      MetadataSnapshot{1,
                       {{"s1", "d"}, {"gone", "d"}},
                       view_->tables(),
                       {RangeDescriptor{1, "", table_prefix(101), "s1", 1, {}},
                        RangeDescriptor{2, table_prefix(101), std::string(kMaxKey), "gone", 1, {}}},
                       {},
                       {},
                       {}},
      {"s1"});
  ASSERT_TRUE(v);
  auto infos = sql::analyze_statements("SELECT * FROM notes");
  Route r = route_statements(**v, *infos);
  ASSERT_TRUE(r.refusal);
  EXPECT_EQ(r.refusal->sqlstate, "08006");
  EXPECT_NE(r.refusal->message.find("gone"), std::string::npos);
}

}  // namespace
}  // namespace pgrange::routing
