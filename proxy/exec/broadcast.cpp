#include "proxy/exec/broadcast.hpp"

#include <spdlog/spdlog.h>

#include "proxy/wire/message_writer.hpp"
#include "sql/quoting.hpp"

namespace pgrange::proxy::exec {

std::string undo_of_broadcast(const std::vector<sql::StatementInfo>& statements) {
  std::string undo;
  for (const auto& info : statements) {
    if (info.kind == sql::StatementKind::kRoleDdl && !info.target.name.empty()) {
      undo += "DROP ROLE IF EXISTS " + sql::quote_ident(info.target.name) + ";";
      continue;
    }
    if (info.kind != sql::StatementKind::kCreateTable || info.if_not_exists) continue;
    undo += "DROP TABLE IF EXISTS " +
            (info.target.schema.empty() ? "" : sql::quote_ident(info.target.schema) + ".") +
            sql::quote_ident(info.target.name) + ";";
  }
  return undo;
}

Broadcast::Broadcast(Options o) : o_(std::move(o)) {}

std::string Broadcast::describe() const {
  return "Broadcast to " + std::to_string(o_.shards.size()) + " shards, one after the other" +
         (o_.in_transaction ? ", in their transactions" : "");
}

awaitable<void> Broadcast::run_on(int shard, std::string& reply,
                                  std::optional<ExecFailure>& failure) {
  auto acquired = co_await o_.acquire(shard);
  if (!acquired) {
    failure = ExecFailure::of(acquired.error());
    co_return;
  }
  std::shared_ptr<BackendConnection> conn = std::move(*acquired);
  std::optional<Error> broke;
  if (auto sent = co_await conn->send(o_.request); !sent) broke = sent.error();
  while (!broke) {
    char type = 0;
    std::string body;
    if (auto r = co_await conn->read_message(type, body); !r) {
      broke = r.error();
      break;
    }
    if (type == 'Z') break;
    if (type == '1' || type == '2') continue;  // ParseComplete, BindComplete: pgrange's own
    if (type == 'E') {
      // Read on to ReadyForQuery (the connection goes back idle); the first error counts.
      if (!failure) failure = ExecFailure::from_shard(body);
      continue;
    }
    if (failure) continue;
    if (type == 'C' && first_tag_.empty() && shard == o_.shards.front()) {
      first_tag_.assign(body.c_str());
    }
    if (o_.relay.empty() || o_.relay.find(type) != std::string::npos) {
      MessageWriter(reply).begin(type).bytes(body).end();
    }
  }
  if (broke) {
    conn->mark_broken();
    if (!failure) failure = ExecFailure::of(*broke);
  }
  if (o_.release) o_.release(std::move(conn));
}

awaitable<void> Broadcast::undo_before(size_t failed, Error& e) {
  std::string names;
  for (size_t i = 0; i < failed; ++i) {
    names += (i == 0 ? "\"" : ", \"") + o_.shard_name(o_.shards[i]) + "\"";
  }
  if (o_.undo.empty()) {
    e.detail = "The statement had already run on " + names + "; run it again once shard \"" +
               o_.shard_name(o_.shards[failed]) +
               "\" accepts it (IF EXISTS / IF NOT EXISTS make that safe).";
    co_return;
  }
  std::string left;  // where the undo did not run
  for (size_t i = 0; i < failed; ++i) {
    const int shard = o_.shards[i];
    auto c = co_await o_.acquire(shard);
    std::optional<Error> undo_failed;
    if (!c) {
      undo_failed = c.error();
    } else {
      if (auto r = co_await (*c)->run_simple(o_.undo); !r) undo_failed = r.error();
      if (o_.release) o_.release(std::move(*c));
    }
    if (undo_failed) {
      spdlog::warn("undoing {} on shard {}: {}", o_.undo, o_.shard_name(shard),
                   undo_failed->message);
      left += (left.empty() ? "\"" : ", \"") + o_.shard_name(shard) + "\"";
    }
  }
  e.detail = "The statement was undone on " + names + ".";
  if (!left.empty())
    e.detail += " Undoing it failed on " + left + ": run \"" + o_.undo + "\" there.";
}

awaitable<ExecResult<void>> Broadcast::open() {
  mark_started();
  for (size_t i = 0; i < o_.shards.size(); ++i) {
    const int shard = o_.shards[i];
    std::string reply;
    std::optional<ExecFailure> failure;
    co_await run_on(shard, reply, failure);
    if (i == 0) answer_ = std::move(reply);  // the statement's answer is the first shard's
    if (!failure) continue;
    if (i > 0) answer_.clear();  // the first shard's answer up to its error stays
    if (i == 0 || o_.in_transaction) {
      failure_ = std::move(failure);  // the shard's own error: undone by the transaction's end
      break;
    }
    // Committed on the shards before this one.
    Error e = failure->error ? *failure->error : error_of_response(*failure->shard_error);
    const std::string named = "shard \"" + o_.shard_name(shard) + "\"";
    if (e.message.find(named) == std::string::npos) e.message = named + ": " + e.message;
    co_await undo_before(i, e);
    failure_ = ExecFailure::of(std::move(e));
    break;
  }
  mark_ended();
  co_return ExecResult<void>{};
}

awaitable<ExecResult<bool>> Broadcast::next(Batch& out) {
  if (sent_) co_return false;
  sent_ = true;
  out.data += answer_;
  if (failure_) co_return tl::unexpected(*failure_);
  co_return false;
}

}  // namespace pgrange::proxy::exec
