#pragma once

#include <map>
#include <string>

#include "common/error.hpp"
#include "routing/plan/router.hpp"
#include "sql/statement_info.hpp"

namespace pgrange::routing {

/// What each shard runs of a write routed to `route.shards`, by shard (ascending: the order
/// the shards run it in). A multi-row INSERT over several shards gets each shard's own VALUES
/// rows (`route.row_shards`); anything else, and a reference table's write, runs as it is on
/// each.
Result<std::map<int, std::string>> shard_statements(const std::string& text,
                                                    const sql::StatementInfo& info,
                                                    const Route& route);

}  // namespace pgrange::routing
