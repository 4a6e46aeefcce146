// ClientSession's transactions over several shards: once a transaction block needs a second
// shard, pgrange coordinates it. It holds one connection in the transaction on each shard the
// block touched, runs the client's statements there itself, and ends the block with a two-phase
// commit (the decision recorded in the metadata store, as for single writes across shards).

#include <spdlog/spdlog.h>

#include "proxy/client_session.hpp"
#include "proxy/control_plane.hpp"
#include "proxy/message_writer.hpp"
#include "proxy/worker.hpp"
#include "sql/session_statement.hpp"

namespace pgrange::proxy {
namespace {

constexpr size_t kBatch = 64 * 1024;
/// A lock wait on one shard of a coordinated transaction may be half of a deadlock across
/// shards, which no shard can see: it ends after this long, reported as a deadlock (40P01, so
/// that clients retry).
constexpr const char* kSetLockTimeout = "SET LOCAL lock_timeout = '2s'";
constexpr size_t kBacklog = 256 * 1024;

Error aborted_error() {
  return Error::make("25P02",
                     "current transaction is aborted, commands ignored until end of transaction "
                     "block");
}

}  // namespace

bool ClientSession::can_coordinate() const {
  return transaction_pooling_ && worker_.pool_count() > 1 && savepoints_.empty() &&
         txn_effects_.empty() && !pinned() && !in_copy_ && !extended_merge_ &&
         (!backend_ || (pending_.empty() && !unsynced_)) && txn_status_ == 'T';
}

awaitable<std::shared_ptr<BackendConnection>> ClientSession::take_backend() {
  if (!backend_) co_return nullptr;
  if (reader_running_) {
    handover_requested_ = true;
    error_code ec;
    backend_->socket().cancel(ec);
    while (reader_running_) {
      released_.expires_after(std::chrono::seconds(5));
      co_await released_.async_wait(no_throw(ec));
    }
    handover_requested_ = false;
    auto conn = std::move(handed_over_);
    handed_over_.reset();
    co_return conn;
  }
  auto conn = std::move(backend_);
  backend_.reset();
  cancel_target_->shard_index = -1;
  co_return conn;
}

awaitable<void> ClientSession::become_coordinated() {
  Coordinated c;
  c.begin_sql = txn_begin_sql_.empty() ? "BEGIN" : txn_begin_sql_;
  auto conn = co_await take_backend();
  if (conn) {
    if (auto r = co_await conn->run_simple(kSetLockTimeout); !r) {
      spdlog::warn("session {}: {}", key_pid_, r.error().message);
    }
    c.first_shard = conn->shard_index();
    c.parts[conn->shard_index()] = std::move(conn);
  }
  deferred_begin_.clear();
  coord_ = std::move(c);
  spdlog::debug("session {}: transaction coordinated over several shards", key_pid_);
}

awaitable<Result<BackendConnection*>> ClientSession::coordinated_part(int shard) {
  Coordinated& c = *coord_;
  if (auto it = c.parts.find(shard); it != c.parts.end()) co_return it->second.get();
  auto acquired = co_await worker_.pool(static_cast<size_t>(shard)).acquire();
  if (!acquired) co_return tl::unexpected(acquired.error());
  auto conn = *acquired;
  c.parts.emplace(shard, conn);
  if (c.first_shard < 0) c.first_shard = shard;
  std::string request;
  write_query(request, c.begin_sql + ";\n" + kSetLockTimeout);
  if (auto e = co_await start_request(*conn, std::move(request))) {
    conn->mark_broken();
    co_return tl::unexpected(*e);
  }
  std::optional<Error> failure;
  for (;;) {
    char type = 0;
    std::string body;
    if (auto r = co_await conn->read_message(type, body); !r) {
      conn->mark_broken();
      co_return tl::unexpected(r.error());
    }
    if (type == 'E' && !failure) {
      ErrorFields f = parse_error_fields(body);
      failure = Error::make(f.sqlstate, f.message);
    }
    if (type == 'Z') break;
  }
  if (failure) co_return tl::unexpected(*failure);
  co_return conn.get();
}

awaitable<bool> ClientSession::run_coordinated(std::string_view sql_text, const Plan& plan,
                                               ExtendedMerge* ext) {
  std::string out;
  emit_ready_synthetics(out);  // a BEGIN or Parse answered before comes first
  if (ext != nullptr && !ext->bind_answered) MessageWriter(out).begin('2').end();
  const auto& infos = **plan.analysis;
  const sql::StatementInfo& info = infos.front();
  auto reply_error = [&](const Error& e) {
    write_error(out, e);
    if (coord_) coord_->failed = true;
    txn_status_ = coord_ ? 'E' : 'I';
  };
  // The simple protocol ends with ReadyForQuery; the extended one's Sync brings it.
  auto send = [&]() {
    if (ext == nullptr) write_ready_for_query(out, txn_status_);
    channel_.send(std::move(out));
  };

  // The statement that needs a second shard (or several): the transaction becomes ours.
  if (!coord_) co_await become_coordinated();
  Coordinated& c = *coord_;

  if (info.kind == sql::StatementKind::kTransaction) {
    const std::string& tk = info.transaction_kind;
    if (tk == "commit" || tk == "rollback") {
      co_await finish_coordinated(tk == "commit" && !c.failed, out);
    } else if (tk == "begin" || tk == "start") {
      // PostgreSQL warns and goes on.
      MessageWriter(out)
          .begin('N')
          .byte('S')
          .cstr("WARNING")
          .byte('V')
          .cstr("WARNING")
          .byte('C')
          .cstr("25001")
          .byte('M')
          .cstr("there is already a transaction in progress")
          .byte('\0')
          .end();
      MessageWriter(out).begin('C').cstr("BEGIN").end();
    } else {
      reply_error(Error::make(sqlstate::kFeatureNotSupported,
                              "savepoints and PREPARE TRANSACTION inside a transaction over "
                              "several shards are not supported yet"));
    }
    send();
    co_return true;
  }
  if (c.failed) {
    reply_error(aborted_error());
    send();
    co_return true;
  }
  if (!sql::session_effects(sql_text).empty()) {
    reply_error(Error::make(sqlstate::kFeatureNotSupported,
                            "SET inside a transaction over several shards is not supported yet"));
    send();
    co_return true;
  }

  // What each shard runs; a statement on no pgrange table runs on the first shard.
  std::string text(sql_text.substr(info.begin, info.end - info.begin));
  const routing::Route& route = plan.route;
  auto statements = statements_by_shard(text, info, route);
  if (!statements) {
    reply_error(statements.error());
    send();
    co_return true;
  }
  if (route.shards.empty()) (*statements)[c.first_shard >= 0 ? c.first_shard : 0] = text;

  // Shard by shard, in shard order (see run_distributed_write).
  bool described = false;
  std::string tag;
  for (const auto& [shard, statement] : *statements) {
    auto it = c.parts.find(shard);
    bool opening = it == c.parts.end();
    if (opening) {
      auto acquired = co_await worker_.pool(static_cast<size_t>(shard)).acquire();
      if (!acquired) {
        reply_error(acquired.error());
        break;
      }
      it = c.parts.emplace(shard, *acquired).first;
      if (c.first_shard < 0) c.first_shard = shard;
    }
    std::string request;
    int readies = 1;
    std::string opener = c.begin_sql + ";\n" + kSetLockTimeout;
    if (ext == nullptr) {
      // One Query: if the BEGIN opening the transaction here failed, the statement does not run.
      write_query(request, opening ? opener + ";\n" + statement : statement);
    } else {
      if (opening) {
        write_query(request, opener);
        ++readies;
      }
      MessageWriter(request).begin('P').cstr("").cstr(statement).bytes(ext->parameter_types).end();
      MessageWriter(request).begin('B').cstr("").cstr("").bytes(ext->bind_rest).end();
      MessageWriter(request).begin('D').byte('P').cstr("").end();
      MessageWriter(request).begin('E').cstr("").i32(0).end();
      MessageWriter(request).begin('S').end();
    }
    BackendConnection& conn = *it->second;
    if (auto e = co_await start_request(conn, std::move(request))) {
      conn.mark_broken();
      reply_error(*e);
      break;
    }
    int ours = opening ? 2 : 0;  // the first CommandCompletes are our BEGIN's and SET's
    bool failed = false;
    while (readies > 0) {
      char type = 0;
      std::string body;
      if (auto r = co_await conn.read_message(type, body); !r) {
        conn.mark_broken();
        reply_error(r.error());
        failed = true;
        break;
      }
      switch (type) {
        case 'Z':
          --readies;
          break;
        case 'E':
          if (!failed) {
            if (parse_error_fields(body).sqlstate == "55P03") {
              write_error(out, Error::make("40P01", "deadlock detected")
                                   .with_detail("a lock wait on shard \"" + conn.shard().name +
                                                "\" of a transaction over several shards lasted "
                                                "2 s: it may be part of a deadlock across shards"));
            } else {
              MessageWriter(out).begin('E').bytes(body).end();
            }
          }
          c.failed = true;
          txn_status_ = 'E';
          failed = true;
          break;
        case 'C':
          if (ours > 0) {
            --ours;
          } else {
            tag = add_tag_counts(tag, std::string(body.c_str()));
          }
          break;
        case 'T':
          if (!described && (ext == nullptr || ext->describe)) {
            MessageWriter(out).begin('T').bytes(body).end();
          }
          described = true;
          break;
        case 'D':
        case 'N':
          MessageWriter(out).begin(type).bytes(body).end();
          break;
        default:  // ParseComplete, BindComplete, NoData
          break;
      }
      if (out.size() >= kBatch) {
        channel_.send(std::move(out));
        out.clear();
        if (channel_.queued() > kBacklog) co_await channel_.wait_below(kBacklog / 2);
      }
    }
    if (failed) break;
  }
  if (!c.failed && !tag.empty()) MessageWriter(out).begin('C').cstr(tag).end();
  if (!c.failed) txn_status_ = 'T';
  send();
  co_return true;
}

bool ClientSession::coordinated_message(char type, std::string_view body, std::string_view raw,
                                        std::string& out) {
  (void)out;
  BodyReader br(body);
  switch (type) {
    case 'P': {
      // Recorded without a backend (ParseComplete answered in order); it runs where its Bind
      // goes.
      std::string_view name, query;
      if (br.cstr(name) && br.cstr(query)) parse_analysis_ = worker_.analyze(query);
      return dispatch_message(type, body, raw, out);
    }
    case 'S': {
      std::string z;
      emit_ready_synthetics(z);
      write_ready_for_query(z, txn_status_);
      channel_.send(std::move(z));
      unsynced_ = false;
      return true;
    }
    case 'C': {
      char what = 0;
      std::string_view name;
      if (br.byte(what) && br.cstr(name) && what == 'S') statements_.erase(std::string(name));
      push(Pending::kSyntheticClose);
      return true;
    }
    case 'H':
      return true;
    default: {
      Error e = Error::make(sqlstate::kFeatureNotSupported,
                            "this message inside a transaction over several shards is not "
                            "supported yet");
      coord_->failed = true;
      txn_status_ = 'E';
      PendingEntry entry;
      entry.kind = Pending::kSyntheticError;
      write_error(entry.payload, e);
      pending_.push_back(std::move(entry));
      skip_until_sync_ = true;
      return true;
    }
  }
}

awaitable<void> ClientSession::finish_coordinated(bool commit, std::string& out) {
  Coordinated c = std::move(*coord_);
  coord_.reset();
  std::vector<TxnPart> parts;
  for (auto& [shard, conn] : c.parts) {
    TxnPart& part = parts.emplace_back();
    part.shard = shard;
    part.conn = std::move(conn);
    part.in_transaction = true;
    part.broken = part.conn->broken();
  }
  std::optional<Error> error = co_await end_transaction(parts, commit);
  if (error) {
    write_error(out, *error);
  } else {
    MessageWriter(out).begin('C').cstr(commit ? "COMMIT" : "ROLLBACK").end();
  }
  txn_status_ = 'I';
  txn_begin_sql_.clear();
  deferred_begin_.clear();
  leave_ranges();
}

}  // namespace pgrange::proxy
