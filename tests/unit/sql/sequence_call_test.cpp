#include "sql/sequence_call.hpp"

#include <gtest/gtest.h>

namespace pgrange::sql {
namespace {

TEST(SequenceCall, ASelectOfOneCallAlone) {
  auto c = sole_sequence_call("select nextval('t_id_seq'::regclass) as n");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->function, "nextval");
  EXPECT_EQ(c->column, "n");
  ASSERT_EQ(c->args.size(), 1u);
  EXPECT_EQ(c->args[0], "t_id_seq");
  c = sole_sequence_call("SELECT setval('s', 100, false)");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->column, "setval");
  EXPECT_EQ(c->args, (std::vector<std::optional<std::string>>{"s", "100", "false"}));
  EXPECT_FALSE(sole_sequence_call("select nextval('s') + 1"));
  EXPECT_FALSE(sole_sequence_call("select nextval('s') from t"));
  EXPECT_FALSE(sole_sequence_call("select nextval(name) from (values ('s')) v(name)"));
  EXPECT_FALSE(sole_sequence_call("select now()"));
}

TEST(SequenceCall, CallsInsideStatementsButNotInDdl) {
  EXPECT_EQ(sequence_calls("select id, nextval('s') from t; select currval('s')").size(), 2u);
  EXPECT_EQ(sequence_calls("insert into t values (nextval('s'))").size(), 1u);
  EXPECT_TRUE(sequence_calls("create table t (id int8 default nextval('s') primary key)").empty());
  EXPECT_TRUE(sequence_calls("alter table t alter id set default nextval('s')").empty());
}

TEST(SequenceCall, NamesAsNextvalReadsThem) {
  EXPECT_EQ(sequence_name_of("T_Id_Seq"), (std::pair<std::string, std::string>{"", "t_id_seq"}));
  EXPECT_EQ(sequence_name_of("app.\"My Seq\""),
            (std::pair<std::string, std::string>{"app", "My Seq"}));
  EXPECT_FALSE(sequence_name_of("a.b.c"));
  EXPECT_FALSE(sequence_name_of("\"open"));
}

TEST(SequenceCall, MentionIsFoundInAnyCaseAndNothingElse) {
  EXPECT_TRUE(mentions_sequence_function("SELECT nextval('s')"));
  EXPECT_TRUE(mentions_sequence_function("select CURRVAL('s')"));
  EXPECT_TRUE(mentions_sequence_function("SELECT SetVal('s', 5)"));
  EXPECT_TRUE(mentions_sequence_function("SELECT lastval()"));
  EXPECT_TRUE(mentions_sequence_function("setval"));  // at the very start
  EXPECT_FALSE(mentions_sequence_function("SELECT abalance FROM pgbench_accounts WHERE aid = 1"));
  EXPECT_FALSE(mentions_sequence_function("SELECT interval '1 day'"));
  EXPECT_FALSE(mentions_sequence_function("val"));
  EXPECT_FALSE(mentions_sequence_function(""));
}

}  // namespace
}  // namespace pgrange::sql
