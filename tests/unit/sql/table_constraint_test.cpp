#include "sql/table_constraint.hpp"

#include <gtest/gtest.h>

#include "sql/statement_info.hpp"

namespace pgrange::sql {
namespace {

using Kind = TableConstraint::Kind;

StatementInfo one(std::string_view sql) {
  auto r = analyze_statements(sql);
  EXPECT_TRUE(r) << sql << ": " << (r ? "" : r.error().message);
  if (!r || r->size() != 1) {
    ADD_FAILURE() << sql;
    return {};
  }
  return r->front();
}

TableConstraint unique(std::vector<std::string> cols, std::string name = {}) {
  TableConstraint c;
  c.kind = Kind::kUnique;
  c.columns = std::move(cols);
  c.name = std::move(name);
  return c;
}

TEST(TableConstraint, CreateTableColumnAndTableConstraintsInPostgresOrder) {
  auto info =
      one("CREATE TABLE p (id int8 PRIMARY KEY, email text UNIQUE, a int, b int, "
          "CONSTRAINT ab UNIQUE (a, b), code text CONSTRAINT \"Code\" UNIQUE)");
  ASSERT_EQ(info.constraints.size(), 4u);
  TableConstraint pk;
  pk.kind = Kind::kPrimaryKey;
  pk.columns = {"id"};
  pk.column_constraint = true;
  EXPECT_EQ(info.constraints[0], pk);
  TableConstraint email = unique({"email"});
  email.column_constraint = true;
  EXPECT_EQ(info.constraints[1], email);
  TableConstraint code = unique({"code"}, "Code");
  code.column_constraint = true;
  EXPECT_EQ(info.constraints[2], code);  // column constraints first, as PostgreSQL makes them
  EXPECT_EQ(info.constraints[3], unique({"a", "b"}, "ab"));
  EXPECT_EQ(info.primary_key, std::vector<std::string>{"id"});
}

TEST(TableConstraint, UniqueOptions) {
  auto info =
      one("CREATE TABLE t (id int PRIMARY KEY, a int, b int, c int, "
          "UNIQUE NULLS NOT DISTINCT (a) INCLUDE (b, c), "
          "UNIQUE (b) DEFERRABLE INITIALLY DEFERRED, "
          "UNIQUE (c) WITH (fillfactor = 70), "
          "UNIQUE (a, c) USING INDEX TABLESPACE pg_default)");
  ASSERT_EQ(info.constraints.size(), 5u);
  EXPECT_TRUE(info.constraints[1].nulls_not_distinct);
  EXPECT_EQ(info.constraints[1].include, (std::vector<std::string>{"b", "c"}));
  EXPECT_FALSE(info.constraints[1].deferrable);
  EXPECT_TRUE(info.constraints[2].deferrable);
  EXPECT_EQ(info.constraints[3].global_blocker, "storage parameter fillfactor");
  EXPECT_EQ(info.constraints[4].global_blocker, "USING INDEX TABLESPACE");
  EXPECT_EQ(info.constraints[1].global_blocker, "");
}

TEST(TableConstraint, ColumnConstraintAttributesApplyToTheOneBefore) {
  auto info =
      one("CREATE TABLE t (id int PRIMARY KEY, a int UNIQUE DEFERRABLE INITIALLY IMMEDIATE "
          "NOT NULL, b int NOT NULL UNIQUE NOT DEFERRABLE, c int UNIQUE NULLS NOT DISTINCT)");
  ASSERT_EQ(info.constraints.size(), 4u);
  EXPECT_TRUE(info.constraints[1].deferrable);
  EXPECT_FALSE(info.constraints[2].deferrable);
  EXPECT_TRUE(info.constraints[3].nulls_not_distinct);
  EXPECT_EQ(info.constraints[3].columns, std::vector<std::string>{"c"});
}

TEST(TableConstraint, Exclude) {
  auto info =
      one("CREATE TABLE r (id int, room int, during tsrange, "
          "EXCLUDE USING gist (room WITH =, during WITH &&), "
          "CONSTRAINT x EXCLUDE (id WITH OPERATOR(pg_catalog.=)) WHERE (id > 0), "
          "EXCLUDE ((id + 1) WITH =))");
  ASSERT_EQ(info.constraints.size(), 3u);
  EXPECT_EQ(info.constraints[0].kind, Kind::kExclude);
  EXPECT_EQ(info.constraints[0].columns, (std::vector<std::string>{"room", "during"}));
  EXPECT_EQ(info.constraints[0].operators, (std::vector<std::string>{"=", "&&"}));
  EXPECT_EQ(info.constraints[1].name, "x");
  EXPECT_EQ(info.constraints[1].operators, std::vector<std::string>{"="});
  EXPECT_EQ(info.constraints[1].global_blocker, "WHERE");
  EXPECT_EQ(info.constraints[2].columns, std::vector<std::string>{""});
}

TEST(TableConstraint, AlterTable) {
  auto add = one("ALTER TABLE p ADD CONSTRAINT p_u UNIQUE (email)");
  EXPECT_EQ(add.kind, StatementKind::kAlterTable);
  EXPECT_EQ(add.alter_commands, 1u);
  ASSERT_EQ(add.constraints.size(), 1u);
  EXPECT_EQ(add.constraints[0], unique({"email"}, "p_u"));

  auto column = one("ALTER TABLE p ADD COLUMN c text UNIQUE, ADD COLUMN d int");
  EXPECT_EQ(column.alter_commands, 2u);
  ASSERT_EQ(column.constraints.size(), 1u);
  EXPECT_TRUE(column.constraints[0].added_column);
  EXPECT_TRUE(column.constraints[0].column_constraint);
  EXPECT_EQ(column.constraints[0].columns, std::vector<std::string>{"c"});

  auto using_index = one("ALTER TABLE p ADD UNIQUE USING INDEX p_idx");
  ASSERT_EQ(using_index.constraints.size(), 1u);
  EXPECT_EQ(using_index.constraints[0].using_index, "p_idx");
  EXPECT_TRUE(using_index.constraints[0].columns.empty());

  auto drop = one("ALTER TABLE p DROP CONSTRAINT IF EXISTS \"P_u\", DROP CONSTRAINT b");
  EXPECT_EQ(drop.dropped_constraints, (std::vector<std::string>{"P_u", "b"}));
  EXPECT_EQ(drop.alter_commands, 2u);
  EXPECT_TRUE(drop.constraints.empty());

  auto pk = one("ALTER TABLE p ADD PRIMARY KEY (id), ADD CONSTRAINT c CHECK (id > 0)");
  ASSERT_EQ(pk.constraints.size(), 1u);
  EXPECT_EQ(pk.constraints[0].kind, Kind::kPrimaryKey);
  EXPECT_EQ(pk.primary_key, std::vector<std::string>{"id"});
}

TEST(TableConstraint, ContainsKey) {
  EXPECT_TRUE(contains_key(unique({"email", "id"}), {"id"}));
  EXPECT_FALSE(contains_key(unique({"email"}), {"id"}));
  EXPECT_FALSE(contains_key(unique({"a"}), {"a", "b"}));
  EXPECT_TRUE(contains_key(unique({"b", "x", "a"}), {"a", "b"}));
  EXPECT_FALSE(contains_key(unique({"a"}), {}));
  TableConstraint include = unique({"email"});
  include.include = {"id"};
  EXPECT_FALSE(contains_key(include, {"id"}));  // INCLUDE columns do not constrain
  TableConstraint ex;
  ex.kind = Kind::kExclude;
  ex.columns = {"id", "during"};
  ex.operators = {"=", "&&"};
  EXPECT_TRUE(contains_key(ex, {"id"}));
  EXPECT_FALSE(contains_key(ex, {"during"}));
  EXPECT_FALSE(contains_key(ex, {"id", "during"}));
  EXPECT_EQ(column_list({"a", "b"}), "a, b");
}

}  // namespace
}  // namespace pgrange::sql
