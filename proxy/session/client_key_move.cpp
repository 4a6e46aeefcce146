// ClientSession's part in UPDATEs that move rows between shards (proxy/exec/key_move.cpp runs
// them): the coordinated transaction's part on each shard it needs.

#include "proxy/exec/key_move.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"

namespace pgrange::proxy {

awaitable<exec::KeyMoveAnswer> ClientSession::run_key_move(const std::string& text,
                                                           const sql::StatementInfo& info,
                                                           const routing::Route& route,
                                                           const ExtendedMerge* ext) {
  exec::KeyMoveContext ctx;
  ctx.view = routing_view();
  // A lock wait in a key move may be half of a deadlock across shards (rows are inserted on
  // shards in another order than the UPDATE visits them): the parts' lock_timeout ends it.
  ctx.part = [this](int shard) { return coordinated_part(shard); };
  ctx.start = [this](BackendConnection& conn, std::string request) {
    return start_request(conn, std::move(request));
  };
  auto bound = bound_statement(ext);
  ctx.bound = bound ? &*bound : nullptr;
  ctx.describe = ext != nullptr && ext->describe;
  co_return co_await exec::move_keys(text, info, route.shards, ctx);
}

}  // namespace pgrange::proxy
