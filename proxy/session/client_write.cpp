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
#include "proxy/session/client_session.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"
#include "sql/insert_rows.hpp"

namespace pgrange::proxy {

Result<std::map<int, std::string>> statements_by_shard(const std::string& text,
                                                       const sql::StatementInfo& info,
                                                       const routing::Route& route) {
  std::map<int, std::string> out;
  if (route.shards.size() > 1 && info.kind == sql::StatementKind::kInsert && !route.replicated) {
    std::map<int, std::vector<size_t>> rows;
    for (size_t r = 0; r < route.row_shards.size(); ++r) rows[route.row_shards[r]].push_back(r);
    for (const auto& [shard, indexes] : rows) {
      auto shard_sql = sql::insert_with_rows(text, indexes);
      if (!shard_sql) return tl::unexpected(shard_sql.error());
      out[shard] = std::move(*shard_sql);
    }
    return out;
  }
  for (int shard : route.shards) out[shard] = text;
  return out;
}

std::vector<std::string> in_values_order(std::vector<std::string> rows,
                                         const std::map<int, size_t>& returned,
                                         const routing::Route& route) {
  std::map<int, size_t> sent;
  for (int s : route.row_shards) ++sent[s];
  if (sent.size() < 2 || sent.size() != returned.size()) return rows;
  std::map<int, size_t> next;  // shard → index in `rows` of its next row
  size_t offset = 0;
  for (const auto& [shard, n] : returned) {
    auto it = sent.find(shard);
    if (it == sent.end() || it->second != n) return rows;
    next[shard] = offset;
    offset += n;
  }
  std::vector<std::string> ordered;
  ordered.reserve(rows.size());
  for (int s : route.row_shards) ordered.push_back(std::move(rows[next[s]++]));
  return ordered;
}

std::optional<Error> replica_mismatch(const sql::StatementInfo& info, const std::string& first,
                                      const std::string& other, const std::string& shard) {
  if (other == first) return std::nullopt;
  return Error::make(sqlstate::kInternalError,
                     "the copies of reference table \"" + info.target.name + "\" differ: shard \"" +
                         shard + "\" answered \"" + other + "\" where the first shard answered \"" +
                         first + "\"")
      .with_detail("The statement was rolled back on every shard.");
}

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
    KeyMoveAnswer answer = co_await run_key_move(text, info, route, &parts, nullptr);
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
  auto statements = statements_by_shard(text, info, route);
  if (!statements) {
    error = statements.error();
    finish();
    co_return true;
  }

  std::vector<TxnPart> parts;
  std::optional<std::string> description;
  std::vector<std::string> rows;
  std::map<int, size_t> returned;  // shard → RETURNING rows it gave
  std::string tag;

  // One shard after the other, in shard order: two such writes that need the same rows queue
  // on the first shard they share instead of deadlocking across shards.
  for (const auto& [shard, statement] : *statements) {
    auto acquired = co_await acquire_for_client(static_cast<size_t>(shard));
    if (!acquired) {
      error = acquired.error();
      break;
    }
    TxnPart& part = parts.emplace_back();
    part.shard = shard;
    part.conn = *acquired;
    std::string request;
    write_query(request, "BEGIN");
    write_query(request, statement);
    if (auto e = co_await start_request(*part.conn, std::move(request))) {
      error = *e;
      part.broken = true;
      break;
    }
    part.in_transaction = true;
    BackendReply reply;
    for (int i = 0; i < 2; ++i) {
      auto r = co_await read_replies(*part.conn);
      if (!r) {
        error = r.error();
        part.broken = true;
        break;
      }
      reply = std::move(*r);
      if (reply.error) break;
    }
    if (error) break;
    if (reply.error) {
      shard_error = std::move(reply.error);
      break;
    }
    if (route.replicated && !tag.empty()) {
      // Another copy of a reference table: the same answer, or the copies differ.
      if (auto e = replica_mismatch(info, tag, reply.tag, part.conn->shard().name)) {
        error = std::move(e);
        break;
      }
      continue;
    }
    if (!description && reply.description) description = std::move(reply.description);
    returned[shard] = reply.rows.size();
    for (auto& row : reply.rows) rows.push_back(std::move(row));
    tag = add_tag_counts(tag, reply.tag);
  }
  if (!error && !shard_error) rows = in_values_order(std::move(rows), returned, route);

  auto outcome = co_await end_transaction(parts, !error && !shard_error);
  bool committed = !error && !shard_error && !outcome;
  if (!error && !shard_error) error = outcome;
  if (committed) {
    if (description) MessageWriter(out).begin('T').bytes(*description).end();
    for (const std::string& row : rows) MessageWriter(out).begin('D').bytes(row).end();
    MessageWriter(out).begin('C').cstr(tag).end();
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
