#pragma once

#include <string>

#include "common/error.hpp"
#include "routing/meta/cluster_view.hpp"

namespace pgrange::routing {

/// A shard added to the configuration starts empty: its database has none of the cluster's
/// tables, so no range could move there and no reference table's write could go there.
/// bring_up_new_shard() gives it the cluster's schema, taken from another shard with pg_dump
/// (`--schema-only`: tables, their indexes, constraints, defaults and sequences, types,
/// functions, views, their owners and privileges — everything a shard holds, made the way
/// PostgreSQL itself restores it; the roles must exist on the new shard's server), and every
/// reference table's rows, in one transaction: after a failure the shard is as empty as before
/// and the next start (or RELOAD) tries again.
///
/// A shard is new when its database has no table, view or sequence outside the system schemas
/// while the cluster has tables; a shard that has some is left alone. Concurrent instances
/// starting at once take turns (an advisory lock on the new shard) and the second finds it
/// brought up.
class ShardSchema {
 public:
  /// Brings `shard` up from `from` (both in `view`) if it is new: true if it was, false if
  /// there was nothing to do. pg_dump must be on the PATH (the PostgreSQL client tools).
  static Result<bool> bring_up_new_shard(const ClusterView& view, const std::string& shard,
                                         const std::string& from);

  /// The schema of the database at `dsn`, as pg_dump writes it for a restore into another
  /// database (owners and grants kept; no publications or subscriptions; psql's meta-commands
  /// left out): SQL text for one simple query.
  static Result<std::string> dump(const std::string& dsn);
};

}  // namespace pgrange::routing
