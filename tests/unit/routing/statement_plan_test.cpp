// routing::choose_kind: how one statement runs, given its route, its plan over several shards
// (plan_spread) and the state of the client's session, as the session plans it.
#include "routing/plan/statement_plan.hpp"

#include <gtest/gtest.h>

#include "routing/keys/key_codec.hpp"
#include "routing/keys/key_space.hpp"
#include "routing/plan/spread_plan.hpp"
#include "tests/unit/routing/tiled_ranges.hpp"

namespace pgrange::routing {
namespace {

using Kind = StatementPlan::Kind;

/// t (id 70, key id int8): below 100 on s1, from 100 on s2, from 200 on s3.
class StatementPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TableDescriptor t;
    t.table_id = 70;
    t.name = "t";
    t.key_source = KeySource::kPrimaryKey;
    t.columns = {"id", "v"};
    t.key.push_back({"id", KeyColumn{KeyType::kInt8}});
    MetadataSnapshot snap;
    snap.version = 1;
    snap.shards = {{"s1", "dsn1"}, {"s2", "dsn2"}, {"s3", "dsn3"}};
    snap.tables = {t};
    std::vector<KeyColumn> cols{KeyColumn{KeyType::kInt8}};
    std::optional<std::string_view> hundred[1] = {"100"};
    std::optional<std::string_view> two_hundred[1] = {"200"};
    snap.ranges = tiled_ranges({{std::string(kMinKey), "s1"},
                                {table_prefix(70), "s1"},
                                {*encode_key_text(70, 1, cols, hundred), "s2"},
                                {*encode_key_text(70, 1, cols, two_hundred), "s3"},
                                {table_prefix(71), "s1"}});
    auto v = ClusterView::build(std::move(snap), {"s1", "s2", "s3"});
    ASSERT_TRUE(v) << v.error().message;
    view_ = *v;
  }

  /// The plan of `sql` sent as a Query ('Q') or bound ('B') in a session of state `s`.
  StatementPlan plan(const std::string& sql, char type, const SessionState& s) {
    auto infos = sql::analyze_statements(sql);
    EXPECT_TRUE(infos) << sql;
    StatementPlan p;
    p.route = route_statements(*view_, *infos);
    auto spread = plan_spread(
        *view_, *infos, sql, nullptr, nullptr, true,
        [](std::string_view text, const TableDescriptor& t) {
          const std::vector<std::string> keys = {"id"};
          return std::make_shared<const Result<sql::MergeQuery>>(
              sql::plan_merge(text, keys, t.columns));
        },
        p.route);
    if (!spread) {
      p.kind = Kind::kRefuse;
      p.error = spread.error();
      return p;
    }
    p.merge = spread->merge;
    p.gather = spread->gather;
    choose_kind(p, type, *infos, sql, nullptr, *view_, s);
    return p;
  }

  /// A session outside any block, with transaction pooling and nothing pinning it.
  static SessionState idle() {
    SessionState s;
    s.shards = 3;
    s.transaction_pooling = true;
    s.runs_statements_itself = true;
    return s;
  }
  /// Inside a block begun on s1 (index 0), which may become one over several shards.
  static SessionState block_on_s1(bool can_coordinate) {
    SessionState s = idle();
    s.in_block = true;
    s.tied_shard = 0;
    s.can_coordinate = can_coordinate;
    return s;
  }

  std::shared_ptr<const ClusterView> view_;
};

TEST_F(StatementPlanTest, APointGoesToItsShard) {
  StatementPlan p = plan("SELECT v FROM t WHERE id = 150", 'Q', idle());
  EXPECT_EQ(p.kind, Kind::kPass);
  EXPECT_EQ(p.shard, 1);
  // In a block on s1 it is the transaction's second shard: pgrange coordinates it.
  EXPECT_EQ(plan("SELECT v FROM t WHERE id = 150", 'Q', block_on_s1(true)).kind, Kind::kCoordinate);
  // Or, when the block cannot move off its connection, it is refused, naming both shards.
  p = plan("SELECT v FROM t WHERE id = 150", 'Q', block_on_s1(false));
  ASSERT_EQ(p.kind, Kind::kRefuse);
  EXPECT_EQ(p.error->sqlstate, "0A000");
  EXPECT_EQ(p.error->message,
            "this transaction runs on shard \"s1\"; a statement on shard \"s2\" in the same "
            "transaction is not supported yet");
  // On the block's own shard it runs there.
  EXPECT_EQ(plan("SELECT v FROM t WHERE id = 5", 'Q', block_on_s1(false)).kind, Kind::kPass);
}

TEST_F(StatementPlanTest, AReadOverSeveralShardsRunsAsATreeOrInTheBlock) {
  const std::string sql = "SELECT id FROM t ORDER BY id LIMIT 5";
  StatementPlan p = plan(sql, 'Q', idle());
  EXPECT_EQ(p.kind, Kind::kRead);
  ASSERT_TRUE(p.merge && *p.merge);
  EXPECT_EQ(p.route.shards, (std::vector<int>{0, 1, 2}));
  // In a block: through the block's own connections, which see its writes.
  EXPECT_EQ(plan(sql, 'Q', block_on_s1(true)).kind, Kind::kCoordinate);
  SessionState coordinated = idle();
  coordinated.in_block = true;
  coordinated.coordinated = true;
  EXPECT_EQ(plan(sql, 'Q', coordinated).kind, Kind::kCoordinate);
  p = plan(sql, 'Q', block_on_s1(false));
  ASSERT_EQ(p.kind, Kind::kRefuse);
  EXPECT_NE(p.error->message.find("session tied to one connection"), std::string::npos);
}

TEST_F(StatementPlanTest, AWriteOverSeveralShardsIsCommittedAcrossThem) {
  const std::string sql = "UPDATE t SET v = 1 WHERE id > 50";
  EXPECT_EQ(plan(sql, 'Q', idle()).kind, Kind::kScript);
  // Bound: pgrange's own transaction up to the Sync, as PostgreSQL's implicit one.
  EXPECT_EQ(plan(sql, 'B', idle()).kind, Kind::kCoordinate);
  EXPECT_EQ(plan(sql, 'Q', block_on_s1(true)).kind, Kind::kCoordinate);
  StatementPlan p = plan(sql, 'Q', block_on_s1(false));
  ASSERT_EQ(p.kind, Kind::kRefuse);
  EXPECT_NE(p.error->message.find("a write touching several shards"), std::string::npos);
}

TEST_F(StatementPlanTest, AQueryStringOverSeveralShardsIsOneTransaction) {
  const std::string sql = "UPDATE t SET v = 1 WHERE id = 5; UPDATE t SET v = 2 WHERE id = 150";
  EXPECT_EQ(plan(sql, 'Q', idle()).kind, Kind::kScript);
  EXPECT_EQ(plan(sql, 'Q', block_on_s1(true)).kind, Kind::kScript);
  // A statement that changes the session is not one a script runs.
  EXPECT_EQ(plan("SET search_path = public; UPDATE t SET v = 2 WHERE id > 50", 'Q', idle()).kind,
            Kind::kRefuse);
  // Pinned (a temporary table, a prepared statement…): not run as a script.
  SessionState pinned = idle();
  pinned.pinned = true;
  EXPECT_NE(plan(sql, 'Q', pinned).kind, Kind::kScript);
}

TEST_F(StatementPlanTest, CopyOverSeveralShardsRunsThroughPgrangeAsASimpleQueryOnly) {
  EXPECT_EQ(plan("COPY t FROM STDIN", 'Q', idle()).kind, Kind::kCopyIn);
  // COPY … TO runs as a read: its steps range by range, in key order.
  StatementPlan p = plan("COPY t TO STDOUT", 'Q', idle());
  EXPECT_EQ(p.kind, Kind::kRead);
  ASSERT_TRUE(p.copy_out);
  EXPECT_EQ(p.copy_out->steps.size(), 3u);
  // In a block: through the block's own connections.
  EXPECT_EQ(plan("COPY t TO STDOUT", 'Q', block_on_s1(true)).kind, Kind::kCoordinate);
  // What plan_copy_out cannot run is refused when planned.
  p = plan("COPY t TO '/tmp/t.txt'", 'Q', idle());
  ASSERT_EQ(p.kind, Kind::kRefuse);
  EXPECT_EQ(p.error->sqlstate, "0A000");
  p = plan("COPY t TO STDOUT", 'B', idle());
  ASSERT_EQ(p.kind, Kind::kRefuse);
  EXPECT_NE(p.error->message.find("extended query protocol"), std::string::npos);
  p = plan("COPY t FROM STDIN", 'Q', block_on_s1(false));
  ASSERT_EQ(p.kind, Kind::kRefuse);
  EXPECT_NE(p.error->message.find("tied to one connection"), std::string::npos);
}

}  // namespace
}  // namespace pgrange::routing
