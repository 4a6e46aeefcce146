#pragma once

#include <map>
#include <string>

#include "sql/session_statement.hpp"

namespace pgrange::proxy {

/// The session settings of a client, or of a pooled connection: parameter → the statement that
/// set it (SET …, or set_config(…) for a startup parameter). A parameter that is absent has the
/// server's default.
using SessionSettings = std::map<std::string, std::string>;

/// How a committed SET or RESET (or RESET ALL, DISCARD ALL) changes `settings`, as PostgreSQL
/// changes them: RESET returns to `startup` (what the client's startup packet set), SET and
/// RESET SESSION AUTHORIZATION also end a SET ROLE, RESET ALL leaves the session authorization
/// and the role alone. Other effects leave `settings` unchanged.
void apply_setting(SessionSettings& settings, const sql::SessionEffect& effect,
                   const SessionSettings& startup);

/// The SQL that brings a connection whose session has the settings `have` to `want` ("" when
/// they are equal): one simple query, so that it takes effect entirely or not at all. Settings
/// `want` lacks are reset; a session authorization or role the connection has is dropped first
/// (a previous client's identity may lack the right to reset what it set); the session
/// authorization, then the role, are set last.
std::string settings_sync_sql(const SessionSettings& have, const SessionSettings& want);

}  // namespace pgrange::proxy
