#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "proxy/backend/backend_connection.hpp"
#include "proxy/exec/merge_build.hpp"
#include "routing/meta/cluster_view.hpp"
#include "sql/statement_info.hpp"

namespace pgrange::proxy::exec {

/// What an UPDATE that moves rows between shards answered: the client's RowDescription (or
/// NoData) and DataRows in `rows` (without CommandComplete), its tag, or what failed it (a
/// shard's ErrorResponse body or pgrange's error).
struct KeyMoveAnswer {
  std::string rows;
  std::string tag;
  std::optional<std::string> shard_error;
  std::optional<Error> error;
};

/// What a key move needs from the client's session: the statement's transaction on each shard.
struct KeyMoveContext {
  std::shared_ptr<const routing::ClusterView> view;
  /// The statement's connection on a shard, its transaction there opened if it is new (with a
  /// lock timeout: see move_keys).
  std::function<awaitable<Result<BackendConnection*>>(int shard)> part;
  /// Sends a request on such a connection (the session's settings first).
  std::function<awaitable<std::optional<Error>>(BackendConnection&, std::string request)> start;
  /// Through the extended protocol: the statement's Parse and Bind (parameters, result
  /// formats), and whether a Describe asked for its rows' description.
  const BoundStatement* bound = nullptr;
  bool describe = false;
};

/// Runs an UPDATE assigning a key column of a table whose ranges are on several shards
/// (Route::moves_keys): on `shards` (those its WHERE reaches, in shard order) as the client
/// wrote it but returning every updated row whole (and its ctid there); a row whose new key
/// another shard owns is then deleted where it is and inserted, with the same column values, on
/// the shard that owns the new key. All of it runs in the statement's transaction (ctx.part: a
/// single write's, committed with two-phase commit when several shards took part, or the
/// coordinated block's), so the table holds exactly what one PostgreSQL would after the same
/// UPDATE, and every row is where the range map says.
///
/// PostgreSQL itself computes the new rows (SET expressions, defaults, generated columns,
/// triggers, constraints on the old shard); pgrange only carries finished rows, as text, to
/// their new shard. The rows moving out are deleted everywhere before any is inserted, so a row
/// taking the key another row gave up (on another shard) does not collide with it; a collision
/// with a row that stays is the new shard's 23505, which fails the statement. A lock wait that
/// runs out on a part (its lock timeout) is reported as a deadlock (40P01).
awaitable<KeyMoveAnswer> move_keys(const std::string& text, const sql::StatementInfo& info,
                                   const std::vector<int>& shards, const KeyMoveContext& ctx);

}  // namespace pgrange::proxy::exec
