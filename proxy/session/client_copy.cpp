// ClientSession's COPY … FROM STDIN over several shards: its transaction and its messages with
// the client. Its rows go, unchanged, to the COPY of the shard owning each (exec::CopyRouter),
// all in one transaction over the shards (two-phase commit outside a transaction block). (COPY
// … TO STDOUT runs as a read: routing/plan/copy_plan, exec::make_copy_out.)

#include <spdlog/spdlog.h>

#include "proxy/control/control_plane.hpp"
#include "proxy/exec/copy_in.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"
#include "sql/copy_statement.hpp"

namespace pgrange::proxy {

awaitable<bool> ClientSession::start_copy_in(std::string_view sql_text, const Plan& plan) {
  std::string out;
  emit_ready_synthetics(out);
  const sql::StatementInfo& info = (**plan.analysis).front();
  auto refuse_now = [&](const Error& e) {
    write_error(out, e);
    if (coord_ && !copy_in_) {
      coord_->failed = true;
      txn_status_ = 'E';
    }
    write_ready_for_query(out, txn_status_);
    channel_.send(std::move(out));
    leave_ranges_if_idle();
  };
  std::string text(sql_text.substr(info.begin, info.end - info.begin));
  if (coord_ && coord_->failed) {
    refuse_now(aborted_transaction_error());
    co_return true;
  }
  auto stmt = sql::read_copy_statement(text);
  if (!stmt) {
    refuse_now(stmt.error());
    co_return true;
  }
  auto router = exec::CopyRouter::make(routing_view(), *stmt, text, plan.route.shards,
                                       [this](int shard) { return coordinated_part(shard); });
  if (!router) {
    refuse_now(router.error());
    co_return true;
  }

  // The transaction the rows go into: the block's (over several shards from now on), or one
  // pgrange opens and commits.
  if (txn_status_ == 'I' && deferred_begin_.empty() && !coord_) {
    coord_ = std::make_unique<Coordinated>();
    coord_->begin_sql = "BEGIN";
    coord_->implicit = true;
  } else if (!coord_) {
    co_await become_coordinated();
  }
  copy_in_ = std::move(*router);
  exec::CopyRouter::Started started = co_await copy_in_->start();
  for (const std::string& n : started.notices) MessageWriter(out).begin('N').bytes(n).end();
  if (!started.response) {
    copy_in_.reset();
    if (coord_->implicit) {
      co_await end_implicit_transaction(false);
    } else {
      coord_->failed = true;
      txn_status_ = 'E';
    }
    if (started.shard_error) {
      write_shard_error(out, *started.shard_error);
    } else {
      write_error(out, *started.error);
    }
    write_ready_for_query(out, txn_status_);
    channel_.send(std::move(out));
    leave_ranges_if_idle();
    co_return true;
  }
  MessageWriter(out).begin('G').bytes(*started.response).end();
  channel_.send(std::move(out));
  co_return true;
}

awaitable<bool> ClientSession::continue_copy_in(char type, std::string_view body) {
  if (type == 'd') {
    // A failure waits for the client's CopyDone: PostgreSQL answers a COPY that failed only
    // after the client's data, too, when it reads the data as fast as it comes.
    co_await copy_in_->feed(body);
    co_return true;
  }
  if (type == 'H' || type == 'S') co_return true;  // ignored during COPY, as PostgreSQL does
  std::unique_ptr<exec::CopyRouter> copy = std::move(copy_in_);
  exec::CopyRouter::Outcome outcome = co_await copy->finish(type, body);
  copy.reset();
  std::string out;
  for (const std::string& n : outcome.notices) MessageWriter(out).begin('N').bytes(n).end();
  bool ok = outcome.ok();
  if (outcome.shard_error) {
    write_shard_error(out, *outcome.shard_error);
  } else if (outcome.error) {
    write_error(out, *outcome.error);
  }
  if (ok && !coord_->implicit) {
    // In a transaction block the rows' index entries are written now, so that a UNIQUE
    // index's violation fails the COPY itself, as in PostgreSQL.
    if (auto e = co_await write_coordinated_index_entries()) {
      write_error(out, *e);
      ok = false;
    }
  }
  if (coord_->implicit) {
    auto error = co_await end_implicit_transaction(ok);
    if (ok && error) {
      write_error(out, *error);
      ok = false;
    }
  } else if (!ok) {
    coord_->failed = true;
    txn_status_ = 'E';
  }
  if (ok) MessageWriter(out).begin('C').cstr(outcome.tag).end();
  write_ready_for_query(out, txn_status_);
  channel_.send(std::move(out));
  co_return true;
}

awaitable<std::optional<Error>> ClientSession::end_implicit_transaction(bool commit) {
  if (commit) co_await send_pending_lock_timeout();
  std::vector<TxnPart> parts = take_coordinated_parts();
  auto error = co_await end_transaction(parts, commit);
  txn_status_ = 'I';
  leave_ranges();
  co_return error;
}

void ClientSession::leave_ranges_if_idle() {
  if (txn_status_ == 'I' && deferred_begin_.empty() && !coord_ && !backend_) leave_ranges();
}

}  // namespace pgrange::proxy
