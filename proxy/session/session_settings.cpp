#include "proxy/session/session_settings.hpp"

#include "sql/quoting.hpp"

namespace pgrange::proxy {
namespace {

constexpr const char* kAuthorization = "session_authorization";
constexpr const char* kRole = "role";

bool is_identity(const std::string& name) {
  return name == kAuthorization || name == kRole;
}

}  // namespace

void apply_setting(SessionSettings& settings, const sql::SessionEffect& e,
                   const SessionSettings& startup) {
  switch (e.kind) {
    case sql::SessionEffectKind::kSet:
      settings[e.name] = e.statement;
      // SET SESSION AUTHORIZATION also ends SET ROLE (the current user becomes the new one).
      if (e.name == kAuthorization) settings.erase(kRole);
      break;
    case sql::SessionEffectKind::kReset: {
      auto it = startup.find(e.name);
      if (it != startup.end()) {
        settings[e.name] = it->second;
      } else {
        settings.erase(e.name);
      }
      if (e.name == kAuthorization) settings.erase(kRole);
      break;
    }
    case sql::SessionEffectKind::kResetAll: {
      // The session authorization and the role are not reset by RESET ALL (GUC_NO_RESET_ALL).
      SessionSettings kept;
      for (const char* name : {kAuthorization, kRole}) {
        if (auto it = settings.find(name); it != settings.end()) kept.insert(*it);
      }
      settings = startup;
      for (const char* name : {kAuthorization, kRole}) settings.erase(name);
      settings.insert(kept.begin(), kept.end());
      break;
    }
    case sql::SessionEffectKind::kDiscardAll:
      settings = startup;
      break;
    default:
      break;
  }
}

std::string settings_sync_sql(const SessionSettings& have, const SessionSettings& want) {
  if (have == want) return {};
  std::string sql;
  auto add = [&](const std::string& statement) {
    if (!sql.empty()) sql += ";\n";
    sql += statement;
  };
  const SessionSettings* from = &have;
  SessionSettings without_identity;
  if (have.count(kAuthorization) != 0 || have.count(kRole) != 0) {
    // The session authorization a previous client set may not reset what it set earlier as
    // the connection's own user (a superuser-only setting, say): back to that user first.
    add("SET SESSION AUTHORIZATION DEFAULT");
    add("RESET ROLE");
    without_identity = have;
    without_identity.erase(kAuthorization);
    without_identity.erase(kRole);
    from = &without_identity;
  }
  for (const auto& [name, statement] : *from) {
    // set_config(name, NULL, false) is RESET name, for any name (no quoting rules to follow).
    if (want.count(name) == 0) {
      add("SELECT pg_catalog.set_config(" + sql::quote_literal(name) + ", NULL, false)");
    }
  }
  for (const auto& [name, statement] : want) {
    if (is_identity(name)) continue;
    auto it = from->find(name);
    if (it == from->end() || it->second != statement) add(statement);
  }
  // `from` holds no identity here: the session authorization, then the role (setting the
  // session authorization ends any role).
  for (const char* name : {kAuthorization, kRole}) {
    if (auto it = want.find(name); it != want.end()) add(it->second);
  }
  return sql;
}

}  // namespace pgrange::proxy
