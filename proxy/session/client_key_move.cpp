// ClientSession's part in UPDATEs that move rows between shards (proxy/exec/key_move.cpp runs
// them): the statement's transaction on each shard it needs.

#include "proxy/exec/key_move.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"

namespace pgrange::proxy {
namespace {

/// A lock wait in a key move may be half of a deadlock across shards (rows are inserted on
/// shards in another order than the UPDATE visits them): it ends after this long, as 40P01.
constexpr const char* kOpenPart = "BEGIN;\nSET LOCAL lock_timeout = '2s'";

}  // namespace

awaitable<Result<BackendConnection*>> ClientSession::key_move_part(int shard,
                                                                   std::vector<TxnPart>* parts) {
  if (parts == nullptr) co_return co_await coordinated_part(shard);
  for (TxnPart& p : *parts) {
    if (p.shard == shard) co_return p.conn.get();
  }
  auto acquired = co_await acquire_for_client(static_cast<size_t>(shard));
  if (!acquired) co_return tl::unexpected(acquired.error());
  std::shared_ptr<BackendConnection> conn = *acquired;
  parts->push_back(TxnPart{shard, conn, false, false, false});
  // Nothing else adds parts while this runs: the index stays good across the awaits.
  size_t at = parts->size() - 1;
  std::string request;
  write_query(request, kOpenPart);
  if (auto e = co_await start_request(*conn, std::move(request))) {
    (*parts)[at].broken = true;
    co_return tl::unexpected(*e);
  }
  (*parts)[at].in_transaction = true;
  auto reply = co_await read_replies(*conn, 1);
  if (!reply) {
    (*parts)[at].broken = true;
    co_return tl::unexpected(reply.error());
  }
  if (reply->error) {
    ErrorFields f = parse_error_fields(*reply->error);
    co_return tl::unexpected(Error::make(f.sqlstate, f.message));
  }
  co_return conn.get();
}

awaitable<exec::KeyMoveAnswer> ClientSession::run_key_move(const std::string& text,
                                                           const sql::StatementInfo& info,
                                                           const routing::Route& route,
                                                           std::vector<TxnPart>* parts,
                                                           const ExtendedMerge* ext) {
  exec::KeyMoveContext ctx;
  ctx.view = routing_view();
  ctx.part = [this, parts](int shard) { return key_move_part(shard, parts); };
  ctx.start = [this](BackendConnection& conn, std::string request) {
    return start_request(conn, std::move(request));
  };
  auto bound = bound_statement(ext);
  ctx.bound = bound ? &*bound : nullptr;
  ctx.describe = ext != nullptr && ext->describe;
  co_return co_await exec::move_keys(text, info, route.shards, ctx);
}

}  // namespace pgrange::proxy
