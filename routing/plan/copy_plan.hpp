#pragma once

#include <string>
#include <vector>

#include "common/error.hpp"
#include "routing/meta/cluster_view.hpp"
#include "sql/copy_statement.hpp"

namespace pgrange::routing {

/// One step of a COPY … TO STDOUT over several shards: a COPY run on one shard.
struct CopyOutStep {
  int shard = 0;  ///< pool index
  std::string sql;
};

/// COPY … TO STDOUT of a table's rows on several shards, as steps whose output follows one
/// another.
struct CopyOutPlan {
  /// In output order: the table's rows range by range in key order (each range's rows in key
  /// order), so the whole comes out in key order.
  std::vector<CopyOutStep> steps;
  bool binary = false;  ///< one binary header (the first step's) and one trailer, pgrange's
  bool header = false;  ///< a CSV/text header line (the first step's only)
};

/// Plans `stmt` (a COPY table TO) over `view`. Refused (0A000) when it is not TO STDOUT, or
/// is COPY (query) TO (whose query the session plans as a SELECT); 42P01 for an unknown table.
Result<CopyOutPlan> plan_copy_out(const ClusterView& view, const sql::CopyStatement& stmt);

}  // namespace pgrange::routing
