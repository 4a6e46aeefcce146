// ClientSession's writes across shards: one INSERT, UPDATE or DELETE that touches several
// shards runs in a transaction on each and commits on all of them or on none (two-phase commit
// with the decision recorded in the metadata store; routing/prepared_recovery finishes what a
// crash interrupts).

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <functional>
#include <map>

#include "proxy/backend/fault_point.hpp"
#include "proxy/control/control_plane.hpp"
#include "proxy/exec/shard_write.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"
#include "routing/plan/write_plan.hpp"

namespace pgrange::proxy {

awaitable<bool> ClientSession::run_distributed_write(std::string_view sql_text,
                                                     const sql::StatementInfo& info,
                                                     const routing::Route& route) {
  std::string out;
  std::optional<Error> error;
  std::optional<std::string> shard_error;
  auto finish = [&]() {
    if (shard_error) {
      write_shard_error(out, *shard_error);
    } else if (error) {
      write_error(out, *error);
    }
    write_ready_for_query(out, txn_status_);
    channel_.send(std::move(out));
    leave_ranges();
  };

  std::string text(sql_text.substr(info.begin, info.end - info.begin));
  if (route.moves_keys) {
    // An UPDATE of the key: its rows may move to shards the WHERE does not reach.
    std::vector<TxnPart> parts;
    exec::KeyMoveAnswer answer = co_await run_key_move(text, info, route, &parts, nullptr);
    bool ok = !answer.error && !answer.shard_error;
    auto outcome = co_await end_transaction(parts, ok);
    error = ok ? outcome : answer.error;
    shard_error = std::move(answer.shard_error);
    if (ok && !outcome) {
      out += answer.rows;
      MessageWriter(out).begin('C').cstr(answer.tag).end();
    }
    finish();
    co_return true;
  }
  auto statements = routing::shard_statements(text, info, route);
  if (!statements) {
    error = statements.error();
    finish();
    co_return true;
  }

  // The write on each shard, in a transaction there that this statement's end commits on all
  // of them or none (end_transaction).
  std::vector<TxnPart> parts;
  exec::ShardWrite::Options o;
  o.statements = std::move(*statements);
  o.replicated = route.replicated;
  o.table = info.target.name;
  o.hold_rows = true;  // the client sees the rows once the write committed
  o.row_shards = route.row_shards;
  o.start = [this, &parts](int shard, const std::string& statement)
      -> awaitable<exec::ExecResult<exec::ShardWrite::Started>> {
    auto acquired = co_await acquire_for_client(static_cast<size_t>(shard));
    if (!acquired) co_return tl::unexpected(exec::ExecFailure::of(acquired.error()));
    TxnPart& part = parts.emplace_back();
    part.shard = shard;
    part.conn = *acquired;
    // One Query: if the BEGIN failed, the statement does not run.
    std::string request;
    write_query(request, "BEGIN;\n" + statement);
    if (auto e = co_await start_request(*part.conn, std::move(request))) {
      part.broken = true;
      co_return tl::unexpected(exec::ExecFailure::of(*e));
    }
    part.in_transaction = true;
    co_return exec::ShardWrite::Started{part.conn.get(), 1, 1};
  };
  exec::ShardWrite write(std::move(o));
  std::string answer;
  bool ok = co_await send_tree(&write, std::nullopt, nullptr, answer, false);
  // Failed, the answer ends with the error; done, it stands once the transaction committed.
  auto outcome = co_await end_transaction(parts, ok);
  if (ok && outcome) {
    error = outcome;
  } else {
    out += answer;
  }
  finish();
  co_return true;
}

awaitable<std::optional<Error>> ClientSession::end_transaction(std::vector<TxnPart>& parts,
                                                               bool commit,
                                                               const routing::BlockCatalog* block,
                                                               const std::string* client_gid) {
  ControlPlane* cp = worker_.shared().control;
  std::optional<Error> error;
  bool committed = false;
  std::string gid;
  auto release_all = [&] {
    for (TxnPart& part : parts) {
      worker_.pool(static_cast<size_t>(part.shard))
          .release(part.conn, !part.broken && !part.conn->broken());
    }
  };
  if (commit) {
    // The index entries of what the statements wrote (a COPY's rows among them) that are not
    // written yet: in the same transaction, so that they commit (or fail) with the rows.
    error = co_await write_index_entries(parts);
    commit = !error;
  }
  if (block != nullptr && block->empty()) block = nullptr;
  bool held = false;  // prepared and held for the client (its PREPARE TRANSACTION)
  if (commit && parts.size() == 1 && block == nullptr && client_gid == nullptr) {
    // One shard: a plain commit.
    auto r = co_await parts.front().conn->run_simple("COMMIT");
    if (!r) error = r.error();
    parts.front().in_transaction = false;
    release_all();
    co_return error;
  }
  if (commit) {
    gid = cp->begin_distributed();
    for (TxnPart& part : parts) {
      auto r = co_await part.conn->run_simple("PREPARE TRANSACTION '" + gid + "'");
      part.in_transaction = false;  // prepared, or ended by the failed PREPARE
      if (!r) {
        error = r.error();
        break;
      }
      part.prepared = true;
    }
    if (!error && client_gid != nullptr) {
      // The client decides, later and perhaps through another session or pgrange instance.
      std::function<Result<std::string>()> hold = [cp, gid, name = *client_gid]() {
        return cp->hold_prepared(gid, name);
      };
      auto standing = co_await cp->call<Result<std::string>>(std::move(hold));
      if (!standing) {
        // Whether it was recorded is unknown: recovery reads it, and rolls the parts back
        // unless it was (then they wait for the client).
        cp->end_distributed(gid);
        release_all();
        co_return standing.error();
      }
      if (*standing == "prepared") {
        held = true;
      } else if (*standing == "in use") {
        error = Error::make("42710",
                            "transaction identifier \"" + *client_gid + "\" is already in use");
      } else {
        error = Error::make("40001",
                            "the prepared transaction was rolled back: pgrange's recovery decided "
                            "to abort it before it could be held");
      }
    } else if (!error) {
      fault_point("after_prepare");
      // A named task: g++ 12 mishandles lambda temporaries inside co_await.
      // With the catalog change of the block's DDL, if any: both commit or neither.
      std::function<Result<std::string>()> decide = [cp, gid, block]() {
        return cp->decide_commit(gid, block);
      };
      auto decision = co_await cp->call<Result<std::string>>(std::move(decide));
      if (!decision) {
        // Whether the decision was recorded is unknown: recovery reads it and finishes the
        // prepared transactions one way or the other.
        cp->end_distributed(gid);
        release_all();
        co_return decision.error();
      }
      if (*decision != "commit") {
        error = Error::make("40001",
                            "the transaction across shards was rolled back: pgrange's recovery "
                            "decided to abort it before it could commit");
      } else {
        committed = true;
        fault_point("after_decision");
      }
    }
  }
  // Every shard's part: COMMIT PREPARED, or rolled back.
  bool all_done = true;
  for (TxnPart& part : parts) {
    if (held) break;  // every part stays prepared
    if (part.broken || part.conn->broken()) {
      all_done = false;  // a prepared part waits for recovery; a lost one rolled back
      continue;
    }
    Result<void> r;
    if (part.prepared) {
      r = co_await part.conn->run_simple((committed ? "COMMIT PREPARED '" : "ROLLBACK PREPARED '") +
                                         gid + "'");
    } else if (part.in_transaction) {
      r = co_await part.conn->run_simple("ROLLBACK");
    }
    if (!r) {
      all_done = false;
      // A connection whose rollback failed may still hold the transaction: never reused.
      if (!part.prepared) part.broken = true;
      spdlog::warn("{} on shard {}: {} (recovery will finish it)", gid, part.conn->shard().name,
                   r.error().message);
    }
  }
  if (committed && all_done) {
    std::function<bool()> forget = [cp, gid]() {
      cp->forget_decision(gid);
      return true;
    };
    co_await cp->call<bool>(std::move(forget));
  }
  if (!gid.empty()) cp->end_distributed(gid);
  release_all();
  co_return error;
}

}  // namespace pgrange::proxy
