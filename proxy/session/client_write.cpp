// The end of ClientSession's transactions over several shards: what they wrote commits on all
// of them or on none (two-phase commit with the decision recorded in the metadata store;
// routing/prepared_recovery finishes what a crash interrupts).

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
      pool(static_cast<size_t>(part.shard))
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
