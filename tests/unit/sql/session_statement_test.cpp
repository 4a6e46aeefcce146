#include "sql/session_statement.hpp"

#include <gtest/gtest.h>

namespace pgrange::sql {
namespace {

using K = SessionEffectKind;

std::vector<K> kinds(std::string_view q) {
  std::vector<K> out;
  for (auto& e : session_effects(q)) out.push_back(e.kind);
  return out;
}

TEST(SessionEffects, PlainStatementsHaveNone) {
  EXPECT_TRUE(session_effects("SELECT abalance FROM pgbench_accounts WHERE aid = 7;").empty());
  EXPECT_TRUE(session_effects("UPDATE t SET a = 1 WHERE id = 2").empty());
  EXPECT_TRUE(session_effects("INSERT INTO t VALUES ('set x = 1; listen y')").empty());
  EXPECT_TRUE(session_effects("").empty());
  EXPECT_TRUE(session_effects(";;  ;").empty());
}

TEST(SessionEffects, SetForms) {
  auto e = session_effects("SET search_path TO a, b");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].kind, K::kSet);
  EXPECT_EQ(e[0].name, "search_path");
  EXPECT_EQ(e[0].statement, "SET search_path TO a, b");

  e = session_effects("set session TimeZone = 'UTC'");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].name, "timezone");

  e = session_effects("SET TIME ZONE 'Europe/Paris'");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].name, "timezone");

  e = session_effects("SET myapp.tenant = '7'");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].name, "myapp.tenant");

  e = session_effects("SET NAMES 'UTF8'");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].name, "client_encoding");

  e = session_effects("SET SESSION AUTHORIZATION bob");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].name, "session_authorization");
}

TEST(SessionEffects, TransactionScopedSetsAreIgnored) {
  EXPECT_TRUE(session_effects("SET LOCAL work_mem = '1MB'").empty());
  EXPECT_TRUE(session_effects("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE").empty());
  EXPECT_TRUE(session_effects("SET CONSTRAINTS ALL DEFERRED").empty());
}

TEST(SessionEffects, SessionCharacteristicsAreTheirOwnSettings) {
  // Each mode is a setting of its own, replayed alone: a later SET SESSION CHARACTERISTICS of
  // another mode must not undo an earlier one on the next backend.
  auto e = session_effects(
      "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY "
      "NOT DEFERRABLE");
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].name, "default_transaction_isolation");
  EXPECT_EQ(e[0].statement, "SET default_transaction_isolation = 'repeatable read'");
  EXPECT_EQ(e[1].name, "default_transaction_read_only");
  EXPECT_EQ(e[1].statement, "SET default_transaction_read_only = on");
  EXPECT_EQ(e[2].name, "default_transaction_deferrable");
  EXPECT_EQ(e[2].statement, "SET default_transaction_deferrable = off");
  for (const auto& x : e) {
    EXPECT_EQ(x.kind, K::kSet);
    EXPECT_EQ(x.statement_index, 0u);
  }
  e = session_effects("set session characteristics as transaction read write, deferrable");
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].statement, "SET default_transaction_read_only = off");
  EXPECT_EQ(e[1].statement, "SET default_transaction_deferrable = on");
  e = session_effects("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL read committed");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].statement, "SET default_transaction_isolation = 'read committed'");
  // Not PostgreSQL's syntax: nothing to replay (the server refuses it).
  EXPECT_TRUE(session_effects("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL DEFAULT")
                  .empty());
}

TEST(SessionEffects, SetToDefaultIsAReset) {
  auto e = session_effects("SET search_path TO DEFAULT");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].kind, K::kReset);
  EXPECT_EQ(e[0].name, "search_path");
  EXPECT_EQ(kinds("set work_mem = default"), std::vector<K>{K::kReset});
  EXPECT_EQ(kinds("SET search_path TO \"default\""), std::vector<K>{K::kSet});
  EXPECT_EQ(kinds("SET search_path TO default, public"), std::vector<K>{K::kSet});
  e = session_effects("SET SESSION AUTHORIZATION DEFAULT");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].kind, K::kReset);
  EXPECT_EQ(e[0].name, "session_authorization");
  e = session_effects("SET ROLE NONE");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].kind, K::kReset);
  EXPECT_EQ(e[0].name, "role");
  e = session_effects("SET ROLE bob");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].kind, K::kSet);
  EXPECT_EQ(e[0].name, "role");
  e = session_effects("SET TIME ZONE LOCAL");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].kind, K::kReset);
  EXPECT_EQ(e[0].name, "timezone");
}

TEST(SessionEffects, TransactionSettingsUnderTheirOwnNamesAreIgnored) {
  EXPECT_TRUE(session_effects("SET transaction_isolation = 'serializable'").empty());
  EXPECT_TRUE(session_effects("SET SESSION transaction_read_only TO on").empty());
  EXPECT_TRUE(session_effects("set transaction_deferrable = on").empty());
}

TEST(SessionEffects, ResetForms) {
  EXPECT_EQ(kinds("RESET ALL"), std::vector<K>{K::kResetAll});
  auto e = session_effects("reset DateStyle");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].kind, K::kReset);
  EXPECT_EQ(e[0].name, "datestyle");
  e = session_effects("RESET TIME ZONE");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].name, "timezone");
  EXPECT_EQ(kinds("DISCARD ALL"), std::vector<K>{K::kDiscardAll});
  EXPECT_EQ(kinds("discard temporary"), std::vector<K>{K::kDiscardTemp});
  EXPECT_TRUE(session_effects("DISCARD PLANS").empty());
}

TEST(SessionEffects, PinningStatements) {
  EXPECT_EQ(kinds("PREPARE q(int) AS SELECT $1"), std::vector<K>{K::kPrepare});
  EXPECT_TRUE(session_effects("PREPARE TRANSACTION 'x'").empty());
  EXPECT_EQ(kinds("DEALLOCATE q"), std::vector<K>{K::kDeallocate});
  EXPECT_EQ(kinds("DEALLOCATE PREPARE ALL"), std::vector<K>{K::kDeallocateAll});
  EXPECT_EQ(kinds("LISTEN jobs"), std::vector<K>{K::kListen});
  EXPECT_EQ(kinds("UNLISTEN *"), std::vector<K>{K::kUnlistenAll});
  EXPECT_EQ(kinds("DECLARE c CURSOR WITH HOLD FOR SELECT 1"), std::vector<K>{K::kDeclareHold});
  EXPECT_TRUE(session_effects("DECLARE c CURSOR FOR SELECT 1").empty());
  EXPECT_TRUE(session_effects("DECLARE c CURSOR WITHOUT HOLD FOR SELECT 'with hold'").empty());
  EXPECT_EQ(kinds("CLOSE ALL"), std::vector<K>{K::kCloseAll});
  EXPECT_EQ(kinds("CREATE TEMP TABLE x (a int)"), std::vector<K>{K::kCreateTemp});
  EXPECT_EQ(kinds("create local temporary table x (a int)"), std::vector<K>{K::kCreateTemp});
  EXPECT_EQ(kinds("SELECT * INTO TEMP x FROM t"), std::vector<K>{K::kCreateTemp});
  EXPECT_TRUE(session_effects("CREATE TABLE temp (a int)").empty());
  EXPECT_EQ(kinds("CREATE TABLE pg_temp.x (a int)"), std::vector<K>{K::kCreateTemp});
  EXPECT_EQ(kinds("create function \"pg_temp\".f() returns int as 'select 1' language sql"),
            std::vector<K>{K::kCreateTemp});
  EXPECT_EQ(kinds("SELECT 1 AS a INTO pg_temp.y"), std::vector<K>{K::kCreateTemp});
  EXPECT_EQ(kinds("CREATE TEMP VIEW v AS SELECT 1"), std::vector<K>{K::kCreateTemp});
  EXPECT_EQ(kinds("CREATE TEMPORARY SEQUENCE s"), std::vector<K>{K::kCreateTemp});
  EXPECT_EQ(kinds("SELECT pg_advisory_lock(1)"), std::vector<K>{K::kAdvisoryLock});
  EXPECT_TRUE(session_effects("SELECT pg_advisory_xact_lock(1)").empty());
  EXPECT_EQ(kinds("select pg_advisory_unlock_all()"), std::vector<K>{K::kAdvisoryUnlockAll});
  EXPECT_EQ(kinds("SELECT set_config('a.b', '1', false)"), std::vector<K>{K::kSetConfig});
}

TEST(SessionEffects, LiteralsAndCommentsDoNotCount) {
  EXPECT_TRUE(session_effects("SELECT 'SET x = 1'").empty());
  EXPECT_TRUE(session_effects("SELECT $$; SET x = 1; $$").empty());
  EXPECT_TRUE(session_effects("SELECT $tag$ LISTEN a $tag$").empty());
  EXPECT_TRUE(session_effects("-- SET x = 1\nSELECT 1").empty());
  EXPECT_TRUE(session_effects("/* outer /* SET x = 1; */ still */ SELECT 1").empty());
  EXPECT_TRUE(session_effects("SELECT E'it\\'s; SET x = 1'").empty());
  EXPECT_TRUE(session_effects("SELECT \"pg_advisory_lock\"(1)").empty());
}

TEST(SessionEffects, SeveralStatementsInOneQuery) {
  auto e = session_effects("BEGIN; SET a.b = 1; SELECT 1; RESET a.b; COMMIT");
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].kind, K::kSet);
  EXPECT_EQ(e[0].statement, "SET a.b = 1");
  EXPECT_EQ(e[1].kind, K::kReset);
}

TEST(SessionEffects, SavepointsExecuteAndPositions) {
  EXPECT_EQ(kinds("SAVEPOINT a"), std::vector<K>{K::kSavepoint});
  EXPECT_EQ(kinds("ROLLBACK TO SAVEPOINT a"), std::vector<K>{K::kRollbackTo});
  EXPECT_EQ(kinds("rollback work to a"), std::vector<K>{K::kRollbackTo});
  EXPECT_TRUE(session_effects("ROLLBACK").empty());
  EXPECT_EQ(kinds("RELEASE SAVEPOINT a"), std::vector<K>{K::kRelease});
  std::string q = "select 1; EXECUTE stmt_1 (5)";
  auto e = session_effects(q);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].kind, K::kExecute);
  EXPECT_FALSE(e[0].sole_statement);
  EXPECT_EQ(e[0].statement_index, 1u);
  EXPECT_EQ(q.substr(e[0].name_begin, e[0].name_end - e[0].name_begin), "stmt_1");
  EXPECT_EQ(q.substr(e[0].statement_begin, e[0].statement_end - e[0].statement_begin),
            "EXECUTE stmt_1 (5)");
  e = session_effects("DEALLOCATE PREPARE s");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_TRUE(e[0].sole_statement);
  EXPECT_EQ(e[0].name, "s");
}

TEST(SessionEffects, FoundPastQuotesCommentsAndOtherStatements) {
  // What the quick test before the lexer must not miss.
  EXPECT_EQ(kinds("SELECT 'a;b'; SET search_path = x"), std::vector<K>{K::kSet});
  EXPECT_EQ(kinds("SELECT E'it\\'s; '; SET work_mem = '1MB'"), std::vector<K>{K::kSet});
  EXPECT_EQ(kinds("/* a /* b */ c */ SET work_mem = '1MB'"), std::vector<K>{K::kSet});
  EXPECT_EQ(kinds("SELECT 1; -- note\n  reset work_mem"), std::vector<K>{K::kReset});
  EXPECT_EQ(kinds("SELECT $$;$$;\tLISTEN chan"), std::vector<K>{K::kListen});
  EXPECT_FALSE(kinds("SELECT pg_advisory_lock(1)").empty());
  EXPECT_FALSE(kinds("SELECT set_config('a.b', 'c', false)").empty());
  EXPECT_FALSE(kinds("CREATE TEMPORARY TABLE t (a int)").empty());
  // A word in a string is no statement.
  EXPECT_TRUE(kinds("SELECT 'x; SET y = 1'").empty());
  EXPECT_TRUE(kinds("SELECT temperature FROM readings WHERE id = 1;").empty());
}

TEST(LeadingKeyword, FirstWordFoldedPastSpaceCommentsAndParentheses) {
  EXPECT_EQ(leading_keyword("SELECT 1"), "select");
  EXPECT_EQ(leading_keyword("  \t\n(SeLeCt 1)"), "select");
  EXPECT_EQ(leading_keyword("-- a note\nInsert INTO t VALUES (1)"), "insert");
  EXPECT_EQ(leading_keyword("/* x */ ;UPDATE t SET a = 1"), "update");
  EXPECT_EQ(leading_keyword("WITH x AS (SELECT 1) SELECT * FROM x"), "with");
  // Letters only, ASCII only, at most 16 of them.
  EXPECT_EQ(leading_keyword("begin;"), "begin");
  EXPECT_EQ(leading_keyword("end_of"), "end");
  EXPECT_EQ(leading_keyword("1 + 1"), "");
  EXPECT_EQ(leading_keyword("\xc3\xa9t\xc3\xa9"), "");
  EXPECT_EQ(leading_keyword("[x"), "");
  EXPECT_EQ(leading_keyword(std::string(20, 'A')), std::string(16, 'a'));
  EXPECT_EQ(leading_keyword(""), "");
  EXPECT_EQ(leading_keyword("/* never closed"), "");
}

}  // namespace
}  // namespace pgrange::sql
