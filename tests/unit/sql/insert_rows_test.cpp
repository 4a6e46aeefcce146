#include "sql/insert_rows.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace pgrange::sql {
namespace {

TEST(InsertRows, KeepsTheRowsGivenAndEverythingElse) {
  std::vector<size_t> rows = {2, 0};
  auto r = insert_with_rows(
      "insert into t (id, name) values (1, 'a'), (2, 'b'), (3, $1) "
      "on conflict (id) do update set name = excluded.name returning id",
      rows);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(*r,
            "INSERT INTO t (id, name) VALUES (3, $1), (1, 'a') ON CONFLICT (id) DO UPDATE SET "
            "name = excluded.name RETURNING id");
}

TEST(InsertRows, RefusesWhatIsNotInsertValues) {
  std::vector<size_t> rows = {0};
  auto r = insert_with_rows("insert into t select * from u", rows);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().sqlstate, "0A000");
  r = insert_with_rows("update t set a = 1", rows);
  ASSERT_FALSE(r.has_value());
  r = insert_with_rows("insert into t values (1)", std::vector<size_t>{1});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().sqlstate, "XX000");
}

}  // namespace
}  // namespace pgrange::sql
