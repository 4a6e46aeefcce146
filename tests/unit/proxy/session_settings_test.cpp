#include "proxy/session/session_settings.hpp"

#include <gtest/gtest.h>

namespace pgrange::proxy {
namespace {

sql::SessionEffect effect(std::string_view statement) {
  auto effects = sql::session_effects(statement);
  EXPECT_EQ(effects.size(), 1u) << statement;
  return effects.empty() ? sql::SessionEffect{sql::SessionEffectKind::kSavepoint, "", ""}
                         : effects.front();
}

TEST(SessionSettings, EqualSettingsNeedNoSql) {
  SessionSettings s{{"work_mem", "SET work_mem = '8MB'"}};
  EXPECT_EQ(settings_sync_sql(s, s), "");
  EXPECT_EQ(settings_sync_sql({}, {}), "");
}

TEST(SessionSettings, ResetsWhatTheClientDidNotSetWithValidSql) {
  SessionSettings have{{"default_transaction_read_only", "SET default_transaction_read_only = on"},
                       {"myapp.user_id", "SET myapp.user_id = '42'"},
                       {"timezone", "SET TIME ZONE 'Asia/Tokyo'"}};
  SessionSettings want{{"timezone", "SET TIME ZONE 'Asia/Tokyo'"}};
  EXPECT_EQ(settings_sync_sql(have, want),
            "SELECT pg_catalog.set_config('default_transaction_read_only', NULL, false);\n"
            "SELECT pg_catalog.set_config('myapp.user_id', NULL, false)");
}

TEST(SessionSettings, IdentityIsDroppedFirstAndSetLast) {
  SessionSettings have{{"log_min_messages", "SET log_min_messages = debug1"},
                       {"session_authorization", "SET SESSION AUTHORIZATION alice"}};
  EXPECT_EQ(settings_sync_sql(have, {}),
            "SET SESSION AUTHORIZATION DEFAULT;\nRESET ROLE;\n"
            "SELECT pg_catalog.set_config('log_min_messages', NULL, false)");
  SessionSettings want{{"role", "SET ROLE bob"},
                       {"search_path", "SET search_path = s"},
                       {"session_authorization", "SET SESSION AUTHORIZATION alice"}};
  EXPECT_EQ(settings_sync_sql({}, want),
            "SET search_path = s;\nSET SESSION AUTHORIZATION alice;\nSET ROLE bob");
  // The same identity, another setting: the identity is set again after the change.
  SessionSettings have2 = want;
  have2["search_path"] = "SET search_path = t";
  EXPECT_EQ(settings_sync_sql(have2, want),
            "SET SESSION AUTHORIZATION DEFAULT;\nRESET ROLE;\nSET search_path = s;\n"
            "SET SESSION AUTHORIZATION alice;\nSET ROLE bob");
}

TEST(SessionSettings, ApplyFollowsPostgres) {
  SessionSettings startup{{"application_name", "SELECT set_config('application_name', 'a')"},
                          {"search_path", "SELECT set_config('search_path', 'x')"}};
  SessionSettings s = startup;
  apply_setting(s, effect("SET ROLE bob"), startup);
  apply_setting(s, effect("SET search_path = y"), startup);
  EXPECT_EQ(s.at("role"), "SET ROLE bob");
  // SET SESSION AUTHORIZATION ends the role.
  apply_setting(s, effect("SET SESSION AUTHORIZATION alice"), startup);
  EXPECT_EQ(s.count("role"), 0u);
  apply_setting(s, effect("SET ROLE bob"), startup);
  // RESET ALL keeps the identity, resets the rest to the startup values.
  apply_setting(s, effect("RESET ALL"), startup);
  EXPECT_EQ(s.at("search_path"), startup.at("search_path"));
  EXPECT_EQ(s.at("role"), "SET ROLE bob");
  EXPECT_EQ(s.at("session_authorization"), "SET SESSION AUTHORIZATION alice");
  // RESET of a startup parameter returns to its startup value, of another one drops it.
  apply_setting(s, effect("SET search_path = z"), startup);
  apply_setting(s, effect("RESET search_path"), startup);
  EXPECT_EQ(s.at("search_path"), startup.at("search_path"));
  apply_setting(s, effect("SET work_mem = '1MB'"), startup);
  apply_setting(s, effect("SET work_mem TO DEFAULT"), startup);
  EXPECT_EQ(s.count("work_mem"), 0u);
  // DISCARD ALL: the startup settings, nothing else.
  apply_setting(s, effect("DISCARD ALL"), startup);
  EXPECT_EQ(s, startup);
}

}  // namespace
}  // namespace pgrange::proxy
