#include "sql/admin_statement.hpp"

#include <gtest/gtest.h>

namespace pgrange::sql {
namespace {

AdminStatement parse_ok(std::string_view sql) {
  auto r = parse_admin_statement(sql);
  EXPECT_TRUE(r) << sql << ": " << (r ? "" : r.error().message);
  if (!r || !*r) {
    ADD_FAILURE() << "not recognised as an admin statement: " << sql;
    return AdminStatement{};
  }
  return **r;
}

Error parse_err(std::string_view sql) {
  auto r = parse_admin_statement(sql);
  EXPECT_FALSE(r) << sql << " should be an error";
  return r ? Error{} : r.error();
}

bool not_admin(std::string_view sql) {
  auto r = parse_admin_statement(sql);
  return r && !*r;
}

TEST(AdminStatement, SplitAtOneAndManyTuples) {
  AdminStatement st = parse_ok("ALTER TABLE users SPLIT AT VALUES (1000)");
  EXPECT_EQ(st.kind, AdminKind::kSplitAt);
  EXPECT_EQ(st.table, "users");
  ASSERT_EQ(st.rows.size(), 1u);
  ASSERT_EQ(st.rows[0].size(), 1u);
  EXPECT_EQ(st.rows[0][0].text, "1000");
  EXPECT_FALSE(st.expiration);

  st = parse_ok("alter table Public.Events split at values (7, '2024-01-01'), (-3, 'it''s');");
  EXPECT_EQ(st.table, "public.events");
  ASSERT_EQ(st.rows.size(), 2u);
  EXPECT_EQ(st.rows[0][1].text, "2024-01-01");
  EXPECT_EQ(st.rows[1][0].text, "-3");
  EXPECT_EQ(st.rows[1][1].text, "it's");
}

TEST(AdminStatement, ValuesKeepCastsNullsAndDecimals) {
  AdminStatement st = parse_ok(
      "ALTER TABLE t SPLIT AT VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, NULL, 1.50, "
      "true)");
  ASSERT_EQ(st.rows[0].size(), 4u);
  EXPECT_EQ(st.rows[0][0].cast_type, "uuid");
  EXPECT_EQ(st.rows[0][0].text, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
  EXPECT_TRUE(st.rows[0][1].is_null);
  EXPECT_EQ(st.rows[0][2].text, "1.50");
  EXPECT_EQ(st.rows[0][3].text, "true");
}

TEST(AdminStatement, Expiration) {
  AdminStatement st =
      parse_ok("ALTER TABLE t SPLIT AT VALUES (5) WITH EXPIRATION '2030-01-01 00:00:00'");
  ASSERT_TRUE(st.expiration);
  EXPECT_EQ(*st.expiration, "'2030-01-01 00:00:00'");
  st = parse_ok("ALTER TABLE t SPLIT AT VALUES (5) WITH EXPIRATION INTERVAL '1 day';");
  EXPECT_EQ(*st.expiration, "INTERVAL '1 day'");
  st = parse_ok("ALTER TABLE t SPLIT AT VALUES (5) WITH EXPIRATION NULL");
  EXPECT_EQ(*st.expiration, "NULL");
  EXPECT_EQ(parse_err("ALTER TABLE t UNSPLIT AT VALUES (5) WITH EXPIRATION NULL").sqlstate,
            "42601");
}

TEST(AdminStatement, IndexSplitUnsplitScatterRelocate) {
  AdminStatement st = parse_ok("ALTER INDEX users@by_email SPLIT AT VALUES ('m')");
  EXPECT_EQ(st.scope, RangeScope::kIndex);
  EXPECT_EQ(st.table, "users");
  EXPECT_EQ(st.index, "by_email");
  EXPECT_EQ(parse_ok("ALTER TABLE t UNSPLIT AT VALUES (1), (2)").kind, AdminKind::kUnsplitAt);
  EXPECT_EQ(parse_ok("ALTER TABLE t UNSPLIT ALL").kind, AdminKind::kUnsplitAll);
  EXPECT_EQ(parse_ok("ALTER TABLE t SCATTER").kind, AdminKind::kScatter);
  st = parse_ok("ALTER RANGE 42 RELOCATE TO 's2'");
  EXPECT_EQ(st.kind, AdminKind::kRelocate);
  EXPECT_EQ(st.range_id, 42);
  EXPECT_EQ(st.shard, "s2");
  st = parse_ok("alter table Orders colocate with app.\"Users\"");
  EXPECT_EQ(st.kind, AdminKind::kColocate);
  EXPECT_EQ(st.table, "orders");
  EXPECT_EQ(st.colocate_with, "app.Users");
  // Not ours: PostgreSQL's own ALTER TABLE (no column may be named like that here).
  auto other = parse_admin_statement("ALTER TABLE t ADD COLUMN colocate int");
  ASSERT_TRUE(other);
  EXPECT_FALSE(other->has_value());
  auto bad = parse_admin_statement("ALTER TABLE t COLOCATE WITH u, v");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().sqlstate, "42601");
}

TEST(AdminStatement, ShowForms) {
  AdminStatement st = parse_ok("SHOW RANGES");
  EXPECT_EQ(st.kind, AdminKind::kShowRanges);
  EXPECT_EQ(st.scope, RangeScope::kDatabase);
  st = parse_ok("show ranges from table t with details, keys");
  EXPECT_EQ(st.scope, RangeScope::kTable);
  EXPECT_EQ(st.table, "t");
  EXPECT_TRUE(st.with_details);
  EXPECT_TRUE(st.with_keys);
  EXPECT_FALSE(st.with_indexes);
  st = parse_ok("SHOW RANGES FROM INDEX t@i");
  EXPECT_EQ(st.scope, RangeScope::kIndex);
  EXPECT_EQ(st.index, "i");
  st = parse_ok("SHOW RANGES FROM DATABASE app WITH INDEXES");
  EXPECT_EQ(st.database, "app");
  EXPECT_TRUE(st.with_indexes);
  st = parse_ok("SHOW RANGE FROM TABLE t FOR ROW (7, 'x')");
  EXPECT_EQ(st.kind, AdminKind::kShowRangeForRow);
  ASSERT_EQ(st.rows.size(), 1u);
  EXPECT_EQ(st.rows[0][1].text, "x");
  EXPECT_EQ(parse_ok("SHOW SHARDS").kind, AdminKind::kShowShards);
  EXPECT_EQ(parse_ok("SHOW HOT RANGES").kind, AdminKind::kShowHotRanges);
  EXPECT_EQ(parse_ok("SHOW JOBS;").kind, AdminKind::kShowJobs);
  EXPECT_FALSE(parse_ok("SHOW JOBS").job_id.has_value());
  st = parse_ok("show job 12");
  EXPECT_EQ(st.kind, AdminKind::kShowJobs);
  EXPECT_EQ(st.job_id, 12);
  st = parse_ok("CANCEL JOB 7;");
  EXPECT_EQ(st.kind, AdminKind::kCancelJob);
  EXPECT_EQ(st.job_id, 7);
  st = parse_ok("ALTER SHARD s2 DRAIN");
  EXPECT_EQ(st.kind, AdminKind::kDrainShard);
  EXPECT_EQ(st.shard, "s2");
  EXPECT_FALSE(st.undrain);
  st = parse_ok("alter shard 'Shard-B' undrain;");
  EXPECT_EQ(st.shard, "Shard-B");
  EXPECT_TRUE(st.undrain);
  EXPECT_EQ(parse_ok("ALTER SHARD \"S3\" DRAIN").shard, "S3");
  EXPECT_EQ(parse_ok("ALTER SHARD S3 DRAIN").shard, "s3");
}

TEST(AdminStatement, OrdinaryStatementsAreNotClaimed) {
  EXPECT_TRUE(not_admin("SELECT 1"));
  EXPECT_TRUE(not_admin("SHOW search_path"));
  EXPECT_TRUE(not_admin("SHOW ALL"));
  EXPECT_TRUE(not_admin("ALTER TABLE t ADD COLUMN split int"));
  EXPECT_TRUE(not_admin("ALTER TABLE t RENAME TO u"));
  EXPECT_TRUE(not_admin("ALTER INDEX i RENAME TO j"));
  EXPECT_TRUE(not_admin("ALTER ROLE app PASSWORD 'x'"));
  EXPECT_TRUE(not_admin("alter table t alter column scatter type int"));
  EXPECT_TRUE(not_admin("SHOW job"));  // a setting named job
  EXPECT_TRUE(not_admin("CANCEL"));
  EXPECT_TRUE(not_admin(""));
}

TEST(AdminStatement, MalformedAdminStatementsAreSyntaxErrors) {
  for (const char* sql : {"ALTER TABLE t SPLIT AT (1)",
                          "ALTER TABLE t SPLIT AT VALUES",
                          "ALTER TABLE t SPLIT AT VALUES (1) extra",
                          "ALTER TABLE t SPLIT AT VALUES (now())",
                          "ALTER TABLE t SPLIT AT VALUES (1 +)",
                          "ALTER RANGE x RELOCATE TO 's'",
                          "ALTER RANGE 3 RELOCATE TO s2",
                          "SHOW RANGES FROM t",
                          "SHOW RANGES WITH COLORS",
                          "SHOW RANGE FROM TABLE t FOR ROW (1), (2)",
                          "ALTER INDEX t SPLIT AT VALUES (1)",
                          "CANCEL JOB",
                          "CANCEL JOB x",
                          "CANCEL JOB 1 2",
                          "SHOW JOB 1 2",
                          "ALTER SHARD",
                          "ALTER SHARD s2",
                          "ALTER SHARD s2 EMPTY",
                          "ALTER SHARD s2 DRAIN now",
                          "ALTER SHARD 3 DRAIN"}) {
    Error e = parse_err(sql);
    EXPECT_EQ(e.sqlstate, "42601") << sql;
    EXPECT_FALSE(e.message.empty()) << sql;
  }
}

}  // namespace
}  // namespace pgrange::sql

namespace pgrange::sql {
namespace {

TEST(AdminStatement, ImportTable) {
  AdminStatement st = parse_ok("IMPORT TABLE legacy");
  EXPECT_EQ(st.kind, AdminKind::kImportTable);
  EXPECT_EQ(st.table, "legacy");
  EXPECT_TRUE(st.shard.empty());
  st = parse_ok("import table app.\"Legacy\" FROM SHARD 's2';");
  EXPECT_EQ(st.kind, AdminKind::kImportTable);
  EXPECT_EQ(st.table, "app.Legacy");
  EXPECT_EQ(st.shard, "s2");
  EXPECT_EQ(parse_err("IMPORT TABLE").sqlstate, "42601");
  EXPECT_EQ(parse_err("IMPORT TABLE t FROM SHARD s2").sqlstate, "42601");
  EXPECT_EQ(parse_err("IMPORT TABLE t extra").sqlstate, "42601");
  EXPECT_TRUE(not_admin("IMPORT FOREIGN SCHEMA x FROM SERVER y INTO z"));
}

TEST(AdminStatement, OnlyTheShowStatementsAreForEveryUser) {
  EXPECT_FALSE(changes_ranges(AdminKind::kShowRanges));
  EXPECT_FALSE(changes_ranges(AdminKind::kShowRangeForRow));
  EXPECT_FALSE(changes_ranges(AdminKind::kShowShards));
  EXPECT_FALSE(changes_ranges(AdminKind::kShowHotRanges));
  EXPECT_FALSE(changes_ranges(AdminKind::kShowJobs));
  for (AdminKind k : {AdminKind::kSplitAt, AdminKind::kUnsplitAt, AdminKind::kUnsplitAll,
                      AdminKind::kScatter, AdminKind::kRelocate, AdminKind::kCancelJob,
                      AdminKind::kImportTable, AdminKind::kColocate, AdminKind::kDrainShard}) {
    EXPECT_TRUE(changes_ranges(k)) << admin_statement_name(k);
  }
  EXPECT_EQ(admin_statement_name(AdminKind::kSplitAt), "ALTER TABLE … SPLIT AT");
}

}  // namespace
}  // namespace pgrange::sql

namespace pgrange::sql {
namespace {

AdminStatement console(std::string_view sql) {
  auto r = parse_admin_statement(sql);
  EXPECT_TRUE(r) << sql << ": " << (r ? "" : r.error().message);
  EXPECT_TRUE(r && *r) << sql << " was not recognised";
  return r && *r ? **r : AdminStatement{};
}

TEST(ConsoleStatement, ShowFormsAreTheConsoles) {
  EXPECT_EQ(console("SHOW POOLS").kind, AdminKind::kShowPools);
  EXPECT_EQ(console("show clients;").kind, AdminKind::kShowClients);
  EXPECT_EQ(console("  SHOW Servers").kind, AdminKind::kShowServers);
  EXPECT_EQ(console("SHOW STATS").kind, AdminKind::kShowStats);
  EXPECT_EQ(console("SHOW CONFIG").kind, AdminKind::kShowConfig);
  EXPECT_EQ(console("SHOW VERSION").kind, AdminKind::kShowVersion);
  EXPECT_EQ(console("RELOAD").kind, AdminKind::kReload);
  EXPECT_EQ(console("reload;").kind, AdminKind::kReload);
}

TEST(ConsoleStatement, PauseAndResumeTakeAShard) {
  AdminStatement all = console("PAUSE");
  EXPECT_EQ(all.kind, AdminKind::kPause);
  EXPECT_EQ(all.shard, "");
  EXPECT_EQ(console("PAUSE s2").shard, "s2");
  EXPECT_EQ(console("pause 'Shard One';").shard, "Shard One");
  AdminStatement resume = console("RESUME s2");
  EXPECT_EQ(resume.kind, AdminKind::kResume);
  EXPECT_EQ(resume.shard, "s2");
  EXPECT_EQ(console("RESUME").shard, "");
}

TEST(ConsoleStatement, MalformedOnesAreSyntaxErrors) {
  for (std::string_view sql : {"SHOW POOLS extra", "RELOAD now", "PAUSE s1 s2", "RESUME s1 x"}) {
    auto r = parse_admin_statement(sql);
    ASSERT_FALSE(r) << sql;
    EXPECT_EQ(r.error().sqlstate, "42601") << sql;
  }
}

TEST(ConsoleStatement, PostgresSettingsAreNotClaimed) {
  // SHOW of PostgreSQL's settings, quoted names and other SHOW forms stay PostgreSQL's.
  for (std::string_view sql : {"SHOW server_version", "SHOW \"pools\"", "SHOW config_file",
                               "SHOW ALL", "SHOW statement_timeout", "SELECT 'RELOAD'"}) {
    auto r = parse_admin_statement(sql);
    ASSERT_TRUE(r) << sql;
    EXPECT_FALSE(*r) << sql << " was claimed";
  }
}

TEST(ConsoleStatement, NeedAdminButChangeNoRanges) {
  for (AdminKind k : {AdminKind::kShowPools, AdminKind::kShowClients, AdminKind::kShowServers,
                      AdminKind::kShowStats, AdminKind::kShowConfig, AdminKind::kShowVersion,
                      AdminKind::kReload, AdminKind::kPause, AdminKind::kResume}) {
    EXPECT_TRUE(console_statement(k)) << admin_statement_name(k);
    EXPECT_FALSE(changes_ranges(k)) << admin_statement_name(k);
  }
  for (AdminKind k : {AdminKind::kSplitAt, AdminKind::kShowRanges, AdminKind::kCancelJob}) {
    EXPECT_FALSE(console_statement(k)) << admin_statement_name(k);
  }
  EXPECT_EQ(admin_statement_name(AdminKind::kPause), "PAUSE");
  EXPECT_TRUE(console_reads_only(AdminKind::kShowPools));
  EXPECT_TRUE(console_reads_only(AdminKind::kShowConfig));
  for (AdminKind k :
       {AdminKind::kReload, AdminKind::kPause, AdminKind::kResume, AdminKind::kShowRanges}) {
    EXPECT_FALSE(console_reads_only(k)) << admin_statement_name(k);
  }
}

}  // namespace
}  // namespace pgrange::sql
