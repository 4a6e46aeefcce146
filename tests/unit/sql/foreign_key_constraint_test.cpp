#include "sql/foreign_key_constraint.hpp"

#include <gtest/gtest.h>

#include "sql/statement_info.hpp"

namespace pgrange::sql {
namespace {

StatementInfo one(std::string_view sql) {
  auto r = analyze_statements(sql);
  EXPECT_TRUE(r) << sql << ": " << (r ? "" : r.error().message);
  if (!r || r->size() != 1) {
    ADD_FAILURE() << sql;
    return {};
  }
  return r->front();
}

ForeignKeyConstraint fk(std::string name, std::vector<std::string> columns, std::string schema,
                        std::string table, std::vector<std::string> referenced) {
  return ForeignKeyConstraint{std::move(name), std::move(columns), std::move(schema),
                              std::move(table), std::move(referenced)};
}

TEST(ForeignKeyConstraint, CreateTableColumnAndTableConstraints) {
  auto info =
      one("CREATE TABLE c (id int8 PRIMARY KEY, p_id int8 REFERENCES p (id) ON DELETE CASCADE, "
          "q int8 CONSTRAINT \"Q\" REFERENCES s.q DEFERRABLE, a int, b int, "
          "FOREIGN KEY (a, b) REFERENCES ab (x, y) MATCH FULL, UNIQUE (a))");
  ASSERT_EQ(info.foreign_keys.size(), 3u);
  EXPECT_EQ(info.foreign_keys[0], fk("", {"p_id"}, "", "p", {"id"}));
  EXPECT_EQ(info.foreign_keys[1], fk("Q", {"q"}, "s", "q", {}));
  EXPECT_EQ(info.foreign_keys[2], fk("", {"a", "b"}, "", "ab", {"x", "y"}));
  EXPECT_EQ(info.constraints.size(), 2u);  // PRIMARY KEY and UNIQUE, not the foreign keys

  EXPECT_TRUE(one("CREATE TABLE t (id int8 PRIMARY KEY, v text NOT NULL CHECK (v <> ''))")
                  .foreign_keys.empty());
}

TEST(ForeignKeyConstraint, AlterTable) {
  auto add = one("ALTER TABLE c ADD CONSTRAINT c_p FOREIGN KEY (p_id) REFERENCES p NOT VALID");
  ASSERT_EQ(add.foreign_keys.size(), 1u);
  EXPECT_EQ(add.foreign_keys[0], fk("c_p", {"p_id"}, "", "p", {}));

  auto column = one("ALTER TABLE c ADD COLUMN q int8 REFERENCES p (id), ADD COLUMN r int");
  ASSERT_EQ(column.foreign_keys.size(), 1u);
  EXPECT_EQ(column.foreign_keys[0], fk("", {"q"}, "", "p", {"id"}));

  EXPECT_TRUE(
      one("ALTER TABLE c ADD CONSTRAINT u UNIQUE (q), DROP CONSTRAINT c_p").foreign_keys.empty());
}

}  // namespace
}  // namespace pgrange::sql
