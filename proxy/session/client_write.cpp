// The end of ClientSession's transactions over several shards: what they wrote commits on all
// of them or on none (two-phase commit with the decision recorded in the metadata store;
// routing/prepared_recovery finishes what a crash interrupts).

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "proxy/backend/fault_point.hpp"
#include "proxy/control/control_plane.hpp"
#include "proxy/exec/shard_write.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"
#include "routing/meta/prepared_recovery.hpp"
#include "routing/plan/write_plan.hpp"
#include "sql/quoting.hpp"

namespace pgrange::proxy {
namespace {

/// Sends each connection its Query, then reads every answer: the shards work at once.
awaitable<std::vector<Result<void>>> run_each(
    const std::vector<std::pair<BackendConnection*, std::string>>& work) {
  std::vector<Result<void>> results(work.size());
  std::vector<bool> sent(work.size(), false);
  for (size_t i = 0; i < work.size(); ++i) {
    std::string out;
    write_query(out, work[i].second);
    results[i] = co_await work[i].first->send(out);
    sent[i] = results[i].has_value();
  }
  for (size_t i = 0; i < work.size(); ++i) {
    if (sent[i]) results[i] = co_await work[i].first->finish_simple();
  }
  co_return results;
}

}  // namespace

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
  if (commit && block == nullptr && client_gid == nullptr) {
    // The parts that did not write end with a plain COMMIT, first (a serializable read can
    // still fail there, and then nothing commits); if at most one part wrote, it commits
    // alone, without two-phase commit.
    error = co_await commit_readers(parts);
    commit = !error;
    size_t writers = 0;
    for (const TxnPart& part : parts) writers += part.in_transaction ? 1 : 0;
    if (commit && writers <= 1) {
      for (TxnPart& part : parts) {
        if (!part.in_transaction) continue;
        auto r = co_await part.conn->run_simple("COMMIT");
        if (!r) error = r.error();
        part.in_transaction = false;
      }
      release_all();
      co_return error;
    }
  }
  if (commit) {
    gid = cp->begin_distributed();
    // Every part prepared at once, each under its own gid (several shards may be databases of
    // one PostgreSQL server, whose gids are global).
    std::vector<std::pair<BackendConnection*, std::string>> prepare;
    std::vector<TxnPart*> preparing;
    for (TxnPart& part : parts) {
      if (!part.in_transaction) continue;  // ended by commit_readers
      preparing.push_back(&part);
      prepare.emplace_back(part.conn.get(),
                           "PREPARE TRANSACTION " +
                               sql::quote_literal(routing::part_gid(gid, part.conn->shard().name)));
    }
    std::vector<Result<void>> prepared = co_await run_each(prepare);
    for (size_t i = 0; i < preparing.size(); ++i) {
      preparing[i]->in_transaction = false;  // prepared, or ended by the failed PREPARE
      if (prepared[i]) {
        preparing[i]->prepared = true;
      } else if (!error) {
        error = prepared[i].error();
      }
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
      if (block == nullptr) cp->propose_commit(gid);
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
  // Every shard's part at once: COMMIT PREPARED, or rolled back.
  bool all_done = true;
  std::vector<std::pair<BackendConnection*, std::string>> finish;
  std::vector<TxnPart*> finishing;
  for (TxnPart& part : parts) {
    if (held) break;  // every part stays prepared
    if (part.broken || part.conn->broken()) {
      all_done = false;  // a prepared part waits for recovery; a lost one rolled back
      continue;
    }
    if (part.prepared) {
      finish.emplace_back(part.conn.get(),
                          (committed ? "COMMIT PREPARED " : "ROLLBACK PREPARED ") +
                              sql::quote_literal(routing::part_gid(gid, part.conn->shard().name)));
    } else if (part.in_transaction) {
      finish.emplace_back(part.conn.get(), "ROLLBACK");
    } else {
      continue;
    }
    finishing.push_back(&part);
  }
  std::vector<Result<void>> finished = co_await run_each(finish);
  for (size_t i = 0; i < finishing.size(); ++i) {
    TxnPart& part = *finishing[i];
    if (!finished[i]) {
      all_done = false;
      // A connection whose rollback failed may still hold the transaction: never reused.
      if (!part.prepared) part.broken = true;
      spdlog::warn("{} on shard {}: {} (recovery will finish it)", gid, part.conn->shard().name,
                   finished[i].error().message);
    }
  }
  // Its decision record, once every part committed, goes with others' at the next housekeeping.
  if (!gid.empty()) cp->end_distributed(gid, committed && all_done);
  release_all();
  co_return error;
}

awaitable<std::optional<Error>> ClientSession::commit_readers(std::vector<TxnPart>& parts) {
  // Which parts wrote: those whose server reported a write surely did; the others are asked
  // (a transaction that wrote anything, or locked a row, has a transaction id).
  std::vector<TxnPart*> asked;
  for (TxnPart& part : parts) {
    if (part.in_transaction && !part.broken && !part.conn->surely_wrote()) asked.push_back(&part);
  }
  if (asked.empty()) co_return std::nullopt;
  std::string probe;
  write_query(probe, "SELECT pg_current_xact_id_if_assigned() IS NULL");
  std::vector<bool> sent(asked.size(), false);
  for (size_t i = 0; i < asked.size(); ++i)
    sent[i] = (co_await asked[i]->conn->send(probe)).has_value();
  std::vector<std::pair<BackendConnection*, std::string>> commits;
  std::vector<TxnPart*> readers;
  for (size_t i = 0; i < asked.size(); ++i) {
    if (!sent[i]) continue;
    auto reply = co_await read_replies(*asked[i]->conn);
    if (!reply || reply->error || reply->rows.size() != 1) continue;  // left to PREPARE
    // DataRow: one column, "t" when no transaction id was assigned.
    BodyReader br(reply->rows.front());
    int16_t columns = 0;
    int32_t length = 0;
    std::string_view value;
    if (br.i16(columns) && columns == 1 && br.i32(length) && length == 1 && br.bytes(1, value) &&
        value == "t") {
      readers.push_back(asked[i]);
      commits.emplace_back(asked[i]->conn.get(), "COMMIT");
    }
  }
  std::vector<Result<void>> ended = co_await run_each(commits);
  std::optional<Error> error;
  for (size_t i = 0; i < readers.size(); ++i) {
    readers[i]->in_transaction = false;
    if (!ended[i] && !error) error = ended[i].error();
  }
  co_return error;
}

}  // namespace pgrange::proxy
