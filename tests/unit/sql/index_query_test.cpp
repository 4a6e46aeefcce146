#include "sql/index_query.hpp"

#include <gtest/gtest.h>

namespace pgrange::sql {
namespace {

TEST(IndexQueryTest, ReferencedColumns) {
  auto use = referenced_columns(
      "SELECT u.name, count(*) FROM users u WHERE email = 'x' GROUP BY u.name ORDER BY 1");
  ASSERT_TRUE(use) << use.error().message;
  EXPECT_FALSE(use->star);
  EXPECT_EQ(use->columns, (std::vector<std::string>{"name", "email"}));
  auto star = referenced_columns("SELECT * FROM users WHERE email = 'x'");
  ASSERT_TRUE(star);
  EXPECT_TRUE(star->star);
  auto qualified = referenced_columns("SELECT u.* FROM users u");
  ASSERT_TRUE(qualified);
  EXPECT_TRUE(qualified->star);
  // Not a SELECT on one table: not for an index read.
  EXPECT_FALSE(referenced_columns("SELECT 1 FROM a, b"));
  EXPECT_FALSE(referenced_columns("DELETE FROM a"));
}

TEST(IndexQueryTest, RestrictSelectAndsTheConditionToTheWhere) {
  // A condition that is itself a conjunction stays one operand (the grammar would flatten it).
  auto r = restrict_select("SELECT id FROM u WHERE name = 'a' AND id > 3", "(x >= 1) AND (x <= 2)");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, "SELECT id FROM u WHERE (name = 'a' AND id > 3) AND (x >= 1 AND x <= 2)");
  auto none = restrict_select("SELECT id FROM u ORDER BY id LIMIT 3", "(id) IN (('1'), ('2'))");
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_EQ(*none, "SELECT id FROM u WHERE id IN ('1', '2') ORDER BY id LIMIT 3");
  auto either = restrict_select("SELECT id FROM u WHERE a OR b", "false");
  ASSERT_TRUE(either);
  EXPECT_EQ(*either, "SELECT id FROM u WHERE (a OR b) AND false");
  EXPECT_FALSE(restrict_select("SELECT id FROM u", "x >"));
}

TEST(IndexQueryTest, SelectFromRelationKeepsTheTableName) {
  auto r = select_from_relation("SELECT city FROM users WHERE users.email = 'x'", "public",
                                "users@users_email");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, "SELECT city FROM public.\"users@users_email\" users WHERE users.email = 'x'");
  auto aliased = select_from_relation("SELECT u.city FROM users AS u", "app", "users@i");
  ASSERT_TRUE(aliased);
  EXPECT_EQ(*aliased, "SELECT u.city FROM app.\"users@i\" u");
}

}  // namespace
}  // namespace pgrange::sql
