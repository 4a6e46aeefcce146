#include "routing/plan/copy_plan.hpp"

#include <gtest/gtest.h>

#include "routing/keys/key_codec.hpp"
#include "routing/keys/key_space.hpp"
#include "tests/unit/routing/tiled_ranges.hpp"

namespace pgrange::routing {
namespace {

/// t (id 70, key id int8): rows below 100 on s2, from 100 on s1 (key order is not shard order).
class CopyPlanTest : public ::testing::Test {
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
    snap.shards = {{"s1", "dsn1"}, {"s2", "dsn2"}};
    snap.tables = {t};
    std::vector<KeyColumn> cols{KeyColumn{KeyType::kInt8}};
    std::optional<std::string_view> hundred[1] = {"100"};
    std::vector<std::pair<std::string, std::string>> bounds = {
        {std::string(kMinKey), "s1"},
        {table_prefix(70), "s2"},
        {*encode_key_text(70, 1, cols, hundred), "s1"},
        {table_prefix(71), "s1"}};
    snap.ranges = tiled_ranges(bounds);
    auto v = ClusterView::build(std::move(snap), {"s1", "s2"});
    ASSERT_TRUE(v) << v.error().message;
    view_ = *v;
  }

  Result<CopyOutPlan> plan(std::string_view copy) {
    auto stmt = sql::read_copy_statement(copy);
    EXPECT_TRUE(stmt) << stmt.error().message;
    if (!stmt) return tl::unexpected(stmt.error());
    return plan_copy_out(*view_, *stmt);
  }

  std::shared_ptr<const ClusterView> view_;
};

TEST_F(CopyPlanTest, ATableIsCopiedRangeByRangeInKeyOrder) {
  auto p = plan("COPY t TO STDOUT");
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->steps.size(), 2u);
  EXPECT_FALSE(p->binary);
  EXPECT_FALSE(p->header);
  // The range below 100 first (on s2), then the one from 100 (on s1).
  EXPECT_EQ(p->steps[0].shard, 1);
  EXPECT_EQ(p->steps[1].shard, 0);
  EXPECT_EQ(p->steps[0].sql,
            "COPY (SELECT * FROM \"public\".\"t\" WHERE \"id\" < '100'::int8 ORDER BY \"id\") TO "
            "STDOUT WITH (FORMAT text, DELIMITER '\t', NULL E'\\\\N')");
  EXPECT_EQ(p->steps[1].sql,
            "COPY (SELECT * FROM \"public\".\"t\" WHERE \"id\" >= '100'::int8 ORDER BY \"id\") "
            "TO STDOUT WITH (FORMAT text, DELIMITER '\t', NULL E'\\\\N')");
}

TEST_F(CopyPlanTest, ColumnsAndOptionsGoToEveryStep) {
  auto p = plan("COPY t (v, id) TO STDOUT WITH (FORMAT csv, HEADER, FORCE_QUOTE (v))");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(p->header);
  for (const CopyOutStep& step : p->steps) {
    EXPECT_EQ(step.sql.rfind("COPY (SELECT \"v\", \"id\" FROM", 0), 0u) << step.sql;
    EXPECT_NE(step.sql.find("FORMAT csv"), std::string::npos) << step.sql;
    EXPECT_NE(step.sql.find(", HEADER"), std::string::npos) << step.sql;
    EXPECT_NE(step.sql.find("FORCE_QUOTE (\"v\")"), std::string::npos) << step.sql;
  }
  p = plan("COPY t TO STDOUT (FORMAT binary)");
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->binary);
  EXPECT_FALSE(p->header);
}

TEST_F(CopyPlanTest, AQueryOrAFileIsNotCopiedByTheTablesRanges) {
  for (const char* copy : {"COPY (SELECT id FROM t WHERE v > 'a') TO STDOUT",
                           "COPY (DELETE FROM t RETURNING id) TO STDOUT", "COPY t TO '/tmp/t.txt'",
                           "COPY t TO PROGRAM 'cat'"}) {
    auto p = plan(copy);
    ASSERT_FALSE(p) << copy;
    EXPECT_EQ(p.error().sqlstate, "0A000") << copy;
  }
  auto p = plan("COPY nowhere TO STDOUT");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().sqlstate, "42P01");
  EXPECT_EQ(p.error().message, "relation \"nowhere\" does not exist");
}

}  // namespace
}  // namespace pgrange::routing
