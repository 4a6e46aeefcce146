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

/// COPY … TO STDOUT of rows on several shards, as steps whose output follows one another.
struct CopyOutPlan {
  /// In output order. A table's rows are copied range by range in key order (each range's
  /// rows in key order), so the whole comes out in key order; a query's rows shard by shard.
  std::vector<CopyOutStep> steps;
  bool binary = false;  ///< one binary header (the first step's) and one trailer, pgrange's
  bool header = false;  ///< a CSV/text header line (the first step's only)
};

/// Plans `stmt` (a COPY … TO) over `view`; `route_shards` are the shards its query (COPY
/// (query) TO) was routed to. Refused (0A000) when it is not TO STDOUT, or when its query's
/// rows cannot simply follow one another (not one plain SELECT of one table); 42P01 for an
/// unknown table.
Result<CopyOutPlan> plan_copy_out(const ClusterView& view, const sql::CopyStatement& stmt,
                                  const std::vector<int>& route_shards);

}  // namespace pgrange::routing
