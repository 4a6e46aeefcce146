// ClientSession's transactions over several shards: once a transaction block needs a second
// shard, pgrange coordinates it. It holds one connection in the transaction on each shard the
// block touched, runs the client's statements there itself, and ends the block with a two-phase
// commit (the decision recorded in the metadata store, as for single writes across shards).

#include <spdlog/spdlog.h>

#include <algorithm>

#include "proxy/control/control_plane.hpp"
#include "proxy/exec/broadcast.hpp"
#include "proxy/exec/shard_write.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/session/session_settings.hpp"
#include "proxy/wire/frame_reader.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"
#include "routing/plan/write_plan.hpp"
#include "sql/quoting.hpp"
#include "sql/session_statement.hpp"

namespace pgrange::proxy {
namespace {

/// A lock wait on one shard of a coordinated transaction may be half of a deadlock across
/// shards, which no shard can see: it ends after this long, reported as a deadlock (40P01, so
/// that clients retry).
constexpr const char* kSetLockTimeout = "SET LOCAL lock_timeout = '2s'";

using sql::quote_ident;

bool is_setting(sql::SessionEffectKind k) {
  return k == sql::SessionEffectKind::kSet || k == sql::SessionEffectKind::kReset ||
         k == sql::SessionEffectKind::kResetAll;
}

/// Removes the last message of `answer` from `from` on if it is a CommandComplete.
void drop_last_command_complete(std::string& answer, size_t from) {
  size_t last = std::string::npos;
  for (size_t at = from;;) {
    FrameResult f = read_typed_frame(std::string_view(answer).substr(at), answer.size());
    if (f.status != FrameStatus::kReady) break;
    last = at;
    at += f.frame.total_size;
  }
  if (last != std::string::npos && answer[last] == 'C') answer.resize(last);
}

bool is_savepoint(sql::SessionEffectKind k) {
  return k == sql::SessionEffectKind::kSavepoint || k == sql::SessionEffectKind::kRelease ||
         k == sql::SessionEffectKind::kRollbackTo;
}

}  // namespace

bool ClientSession::can_coordinate() const {
  // The connection must wait for nothing: what is pending is answered by pgrange itself (a
  // Parse deferred to its Bind), and no extended message reached it since its last Sync.
  bool idle = std::all_of(pending_.begin(), pending_.end(), [](const PendingEntry& e) {
    return e.kind == Pending::kSyntheticParse || e.kind == Pending::kSyntheticClose;
  });
  return transaction_pooling_ && worker_.pool_count() > 1 && !pinned() && !in_copy_ &&
         !extended_merge_ && (!backend_ || (idle && !backend_extended_)) && txn_status_ == 'T';
}

bool ClientSession::can_adopt_pipeline() const {
  bool implicit_or_block = (txn_status_ == 'I' && deferred_begin_.empty()) || txn_status_ == 'T';
  return backend_ && backend_extended_ && !coord_ && implicit_or_block && transaction_pooling_ &&
         worker_.pool_count() > 1 && !pinned() && !in_copy_ && !extended_merge_;
}

bool ClientSession::awaiting_backend() const {
  return std::any_of(pending_.begin(), pending_.end(),
                     [](const PendingEntry& e) { return !answered_by_pgrange(e.kind); });
}

awaitable<bool> ClientSession::settle_pipeline(std::string& out) {
  // A server answers Execute only at a Flush or a Sync: the statements before this one are
  // still unanswered on the connection.
  auto conn = backend_;
  MessageWriter(out).begin('H').end();
  error_code ec;
  co_await conn->write(out, ec);
  out.clear();
  if (ec) {
    conn->mark_broken();
    conn->socket().cancel(ec);
    co_return false;
  }
  // The session's reader forwards those replies; this waits until it has (a rare path: the
  // pipeline's statements reached a second shard).
  asio::steady_timer timer(worker_.io());
  while (backend_ == conn && !conn->broken() && awaiting_backend()) {
    timer.expires_after(std::chrono::milliseconds(1));
    co_await timer.async_wait(no_throw(ec));
  }
  co_return backend_ == conn && !conn->broken() && !sync_error_;
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
  backend_extended_ = false;
  cancel_target_->shard_index = -1;
  co_return conn;
}

awaitable<void> ClientSession::become_coordinated() {
  Coordinated c;
  c.begin_sql = txn_begin_sql_.empty() ? "BEGIN" : txn_begin_sql_;
  // Outside a block: pgrange's own transaction, ended as PostgreSQL's implicit one is.
  c.implicit = txn_status_ == 'I' && deferred_begin_.empty();
  // The extended protocol's implicit transaction on the connection (the statements of the
  // pipeline so far) becomes a block there: PostgreSQL's BEGIN converts it.
  bool adopt_implicit = backend_ && txn_status_ == 'I' && deferred_begin_.empty();
  auto conn = co_await take_backend();
  if (conn) {
    if (adopt_implicit) {
      if (auto r = co_await conn->run_simple("BEGIN"); !r) {
        spdlog::warn("session {}: {}", key_pid_, r.error().message);
      }
    }
    // Its lock timeout goes with its next request (lock_timeout_pending).
    c.lock_timeout_pending = conn->shard_index();
    c.first_shard = conn->shard_index();
    cancel_target_->track(conn);  // no longer the attached backend, still the client's
    c.parts[conn->shard_index()] = std::move(conn);
  }
  // The savepoints and settings the block made so far on its first shard, in their order
  // (savepoints_ holds each savepoint's place among txn_effects_), for the parts opened later.
  size_t next_savepoint = 0;
  auto add_savepoints = [&](size_t upto) {
    for (; next_savepoint < savepoints_.size() && savepoints_[next_savepoint].second <= upto;
         ++next_savepoint) {
      const std::string& name = savepoints_[next_savepoint].first;
      c.replay.push_back({true, name, "SAVEPOINT " + quote_ident(name)});
    }
  };
  for (size_t i = 0; i < txn_effects_.size(); ++i) {
    add_savepoints(i);
    const sql::SessionEffect& e = txn_effects_[i];
    if (e.kind == sql::SessionEffectKind::kSet) {
      c.replay.push_back({false, {}, e.statement});
    } else if (e.kind == sql::SessionEffectKind::kReset) {
      auto it = startup_settings_.find(e.name);
      c.replay.push_back(
          {false, {}, it != startup_settings_.end() ? it->second : "RESET " + quote_ident(e.name)});
    } else if (e.kind == sql::SessionEffectKind::kResetAll) {
      c.replay.push_back({false, {}, "RESET ALL"});
      for (const auto& [name, stmt] : startup_settings_) c.replay.push_back({false, {}, stmt});
    }
  }
  add_savepoints(txn_effects_.size());
  deferred_begin_.clear();
  coord_ = std::make_unique<Coordinated>(std::move(c));
  spdlog::debug("session {}: transaction coordinated over several shards", key_pid_);
}

awaitable<Result<BackendConnection*>> ClientSession::coordinated_part(int shard) {
  Coordinated& c = *coord_;
  if (auto it = c.parts.find(shard); it != c.parts.end()) {
    co_await send_pending_lock_timeout(shard, *it->second);
    co_return it->second.get();
  }
  auto acquired = co_await acquire_for_client(static_cast<size_t>(shard));
  if (!acquired) co_return tl::unexpected(acquired.error());
  auto conn = *acquired;
  c.parts.emplace(shard, conn);
  if (c.first_shard < 0) c.first_shard = shard;
  std::string request;
  write_query(request, coordinated_opener());
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
      failure = error_of_response(body);
    }
    if (type == 'Z') break;
  }
  if (failure) co_return tl::unexpected(*failure);
  co_return conn.get();
}

bool ClientSession::take_pending_lock_timeout(int shard) {
  Coordinated& c = *coord_;
  if (c.lock_timeout_pending != shard) return false;
  c.lock_timeout_pending = -1;
  return c.lock_timeout;
}

awaitable<void> ClientSession::send_pending_lock_timeout(int shard, BackendConnection& conn) {
  if (!take_pending_lock_timeout(shard)) co_return;
  if (auto r = co_await conn.run_simple(kSetLockTimeout); !r) {
    spdlog::warn("session {}: {}", key_pid_, r.error().message);
  }
}

awaitable<void> ClientSession::send_pending_lock_timeout() {
  if (!coord_ || coord_->lock_timeout_pending < 0) co_return;
  auto it = coord_->parts.find(coord_->lock_timeout_pending);
  if (it == coord_->parts.end()) {
    coord_->lock_timeout_pending = -1;
    co_return;
  }
  std::shared_ptr<BackendConnection> conn = it->second;
  co_await send_pending_lock_timeout(it->first, *conn);
}

awaitable<exec::ExecResult<std::string>> ClientSession::broadcast_to_parts(std::string request,
                                                                           std::string relay,
                                                                           std::string* first_tag) {
  exec::Broadcast::Options o;
  for (const auto& [shard, conn] : coord_->parts) o.shards.push_back(shard);
  o.in_transaction = true;
  o.request = std::move(request);
  o.relay = std::move(relay);
  // The parts stay the block's; each is brought to the session's settings first.
  o.acquire = [this](int shard) -> awaitable<Result<std::shared_ptr<BackendConnection>>> {
    std::shared_ptr<BackendConnection> conn = coord_->parts.at(shard);
    co_await send_pending_lock_timeout(shard, *conn);
    if (auto e = co_await sync_settings(*conn)) {
      conn->mark_broken();
      co_return tl::unexpected(*e);
    }
    co_return conn;
  };
  o.shard_name = [this](int shard) { return pool(static_cast<size_t>(shard)).shard().name; };
  exec::Broadcast broadcast(std::move(o));
  co_await broadcast.open();
  exec::Batch answer;
  if (auto ran = co_await broadcast.next(answer); !ran) co_return tl::unexpected(ran.error());
  if (first_tag != nullptr) *first_tag = broadcast.first_tag();
  co_return std::move(answer.data);
}

std::string ClientSession::coordinated_opener() const {
  // A part opened after savepoints were taken gets them too (rather than being rolled back and
  // let go by a ROLLBACK TO one of them): every part then holds the same savepoint stack, so
  // SAVEPOINT, RELEASE and ROLLBACK TO run unchanged on each and PostgreSQL itself resolves
  // repeated names, RELEASE of an outer savepoint and the undoing of work (and locks) done
  // after it. Settings are replayed in their place among the savepoints, so a ROLLBACK TO undoes
  // the same ones everywhere.
  std::string sql = coord_->begin_sql;
  if (coord_->lock_timeout) sql += std::string(";\n") + kSetLockTimeout;
  for (const auto& r : coord_->replay) sql += ";\n" + r.sql;
  return sql;
}

awaitable<void> ClientSession::run_on_every_part(const sql::StatementInfo& info, std::string text,
                                                 bool describe, std::string& out) {
  Coordinated& c = *coord_;
  const std::string& tk = info.transaction_kind;
  std::vector<sql::SessionEffect> effects = sql::session_effects(text);
  // RESET of a startup parameter returns to the client's startup value, not the server's
  // default (as handle_query_effects does outside such blocks); its row is hidden.
  std::string run = text;
  std::string tag;
  for (const auto& e : effects) {
    if (e.kind == sql::SessionEffectKind::kReset && startup_settings_.count(e.name) != 0) {
      run = startup_settings_.at(e.name);
      tag = "RESET";
    } else if (e.kind == sql::SessionEffectKind::kResetAll && !startup_settings_.empty()) {
      for (const auto& [name, stmt] : startup_settings_) run += ";\n" + stmt;
      tag = "RESET";
    }
  }
  auto find_savepoint = [&](const std::string& name) -> std::optional<size_t> {
    for (size_t i = c.replay.size(); i-- > 0;) {
      if (c.replay[i].savepoint && c.replay[i].name == name) return i;
    }
    return std::nullopt;
  };
  std::optional<Error> error;
  std::optional<std::string> shard_error;
  if (c.parts.empty() && (tk == "release" || tk == "rollback_to") &&
      !find_savepoint(info.transaction_name)) {
    error = Error::make("3B001", "savepoint \"" + info.transaction_name + "\" does not exist");
  }
  // Shard by shard, in the block's transaction on each; the first part's notices and settings
  // reports are the client's.
  if (!error) {
    std::string request;
    write_query(request, run);
    std::string relay = "NS";  // named: see run_block_ddl
    std::string first_tag;
    auto ran = co_await broadcast_to_parts(std::move(request), std::move(relay), &first_tag);
    if (!ran) {
      error = ran.error().error;
      shard_error = ran.error().shard_error;
    } else {
      out += *ran;
      if (tag.empty()) tag = std::move(first_tag);
    }
  }
  if (shard_error || error) {
    if (shard_error) {
      write_shard_error(out, *shard_error);
    } else {
      write_error(out, *error);
    }
    c.failed = true;
    txn_status_ = 'E';
    co_return;
  }
  if (tag.empty()) {
    tag = tk == "savepoint" ? "SAVEPOINT" : tk == "release" ? "RELEASE" : "ROLLBACK";
  }
  if (tk == "savepoint") {
    c.replay.push_back({true, info.transaction_name,
                        "SAVEPOINT " + quote_ident(info.transaction_name),
                        block_catalog_.steps.size()});
  } else if (tk == "release") {
    // The savepoint and those taken after it are gone; the settings made meanwhile stay.
    if (auto i = find_savepoint(info.transaction_name)) {
      std::erase_if(c.replay, [&, n = size_t{0}](const Coordinated::Replayed& r) mutable {
        return n++ >= *i && r.savepoint;
      });
    }
  } else if (tk == "rollback_to") {
    // As in PostgreSQL the savepoint stays, what came after it is undone, and the transaction
    // is no longer failed.
    if (auto i = find_savepoint(info.transaction_name)) {
      c.replay.resize(*i + 1);
      cut_block_catalog(c.replay[*i].catalog_steps);  // the DDL since is undone on the shards
      // So are the cursors declared since (PostgreSQL closes them).
      std::erase_if(c.cursors, [&](const auto& kv) { return kv.second.replay_mark > *i; });
    }
    c.failed = false;
    txn_status_ = 'T';
  } else {
    c.replay.push_back({false, {}, run});
  }
  for (auto& e : effects) {
    if (is_setting(e.kind) || is_savepoint(e.kind)) add_txn_effect(std::move(e));
  }
  if (describe) MessageWriter(out).begin('n').end();
  MessageWriter(out).begin('C').cstr(tag).end();
}

awaitable<tl::expected<std::string, std::string>> ClientSession::inferred_parameter_types(
    BackendConnection& conn, const std::string& text, std::string_view given) {
  std::string request;
  MessageWriter(request).begin('P').cstr("").cstr(text).bytes(given).end();
  MessageWriter(request).begin('D').byte('S').cstr("").end();
  MessageWriter(request).begin('S').end();
  if (auto e = co_await start_request(conn, std::move(request))) {
    conn.mark_broken();
    co_return tl::unexpected(e->message);
  }
  std::optional<std::string> types;
  std::optional<std::string> error;
  for (;;) {
    char type = 0;
    std::string body;
    if (auto r = co_await conn.read_message(type, body); !r) {
      conn.mark_broken();
      co_return tl::unexpected(r.error().message);
    }
    if (type == 't') types = std::move(body);
    if (type == 'E' && !error) error = std::move(body);
    if (type == 'Z') break;
  }
  if (error) co_return tl::unexpected(std::move(*error));
  if (!types) co_return tl::unexpected(std::string("no parameter description"));
  co_return std::move(*types);
}

awaitable<bool> ClientSession::run_coordinated(std::string_view sql_text, const Plan& plan,
                                               ExtendedMerge* ext, bool more, std::string* into) {
  std::string out;
  emit_ready_synthetics(out);  // a BEGIN or Parse answered before comes first
  const auto& infos = **plan.analysis;
  const sql::StatementInfo& info = infos.front();
  // A SELECT over several shards answers its Bind once its tree has opened (send_read); every
  // other way it leaves here is an error, which fails the Bind as PostgreSQL's would.
  const bool read = (plan.gather || plan.copy_out || plan.copy_query ||
                     (plan.merge && *plan.merge && plan.route.shards.size() > 1)) &&
                    infos.size() == 1 && info.kind != sql::StatementKind::kTransaction;
  if (ext != nullptr && !read) {
    if (!ext->bind_answered) MessageWriter(out).begin('2').end();
    ext->bind_answered = true;
  }
  auto reply_error = [&](const Error& e) {
    write_error(out, e);
    if (coord_) coord_->failed = true;
    txn_status_ = coord_ ? 'E' : 'I';
  };
  // The simple protocol ends with ReadyForQuery; the extended one's Sync brings it.
  auto send = [&]() {
    if (ext == nullptr && !more) write_ready_for_query(out, txn_status_);
    if (into != nullptr) {
      *into += out;
      out.clear();
    } else {
      channel_.send(std::move(out));
    }
  };

  // The statement that needs a second shard (or several): the transaction becomes ours.
  if (!coord_) co_await become_coordinated();
  Coordinated& c = *coord_;
  if (infos.size() > 1) {
    // Only the first would run below: refuse rather than drop the others.
    reply_error(Error::make(sqlstate::kFeatureNotSupported,
                            "several statements in one query inside a transaction over several "
                            "shards are not supported yet")
                    .with_hint("send the statements one by one"));
    send();
    co_return true;
  }

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
    } else if (tk == "savepoint" || tk == "release" || tk == "rollback_to") {
      // After an error only ROLLBACK TO goes on, as in PostgreSQL.
      if (c.failed && tk != "rollback_to") {
        reply_error(aborted_transaction_error());
      } else {
        co_await run_on_every_part(info,
                                   std::string(sql_text.substr(info.begin, info.end - info.begin)),
                                   ext != nullptr && ext->describe, out);
      }
    } else if (tk == "prepare") {
      // The client's two-phase commit: every part prepared, held until its COMMIT PREPARED.
      co_await finish_coordinated(!c.failed, out, &info.transaction_name);
    } else {
      reply_error(
          Error::make("25001", (tk == "commit_prepared" ? "COMMIT PREPARED" : "ROLLBACK PREPARED") +
                                   std::string(" cannot run inside a transaction block")));
    }
    send();
    co_return true;
  }
  if (c.failed) {
    reply_error(aborted_transaction_error());
    send();
    co_return true;
  }
  if (plan.block_ddl) {
    co_await run_block_ddl(sql_text, plan, ext, out);
    send();
    co_return true;
  }
  std::string text(sql_text.substr(info.begin, info.end - info.begin));
  std::string word = sql::leading_keyword(text);
  if (word == "set" || word == "reset") {
    // SET, SET LOCAL, RESET, SET TRANSACTION …: on every part, and on the parts opened later.
    co_await run_on_every_part(info, text, ext != nullptr && ext->describe, out);
    send();
    co_return true;
  }
  auto effects = sql::session_effects(sql_text);
  if (!effects.empty()) {
    reply_error(Error::make(sqlstate::kFeatureNotSupported,
                            "\"" + effects.front().statement.substr(0, 40) +
                                "\" inside a transaction over several shards is not supported "
                                "yet: it changes the session of one shard's connection"));
    send();
    co_return true;
  }
  if (read) {
    // A SELECT over several shards (a merge, or several tables read and the statement run with
    // their rows) or a COPY … TO of their rows: its tree runs on the transaction's own parts
    // (opened where the block has not been yet), so that it sees the block's own writes.
    if (!co_await send_read(plan, sql_text, ext, out)) {
      c.failed = true;
      txn_status_ = 'E';
    }
    send();
    co_return true;
  }

  // What each shard runs; a statement on no pgrange table runs on the first shard.
  const routing::Route& route = plan.route;
  if (route.moves_keys && !route.shards.empty()) {
    // An UPDATE of the key: rows move to the shards owning their new keys (client_key_move.cpp).
    exec::KeyMoveAnswer answer = co_await run_key_move(text, info, route, ext);
    if (answer.shard_error) {
      write_shard_error(out, *answer.shard_error);
      c.failed = true;
      txn_status_ = 'E';
    } else if (answer.error) {
      reply_error(*answer.error);
    } else {
      out += answer.rows;
      MessageWriter(out).begin('C').cstr(answer.tag).end();
      txn_status_ = 'T';
    }
    send();
    co_return true;
  }
  auto statements = routing::shard_statements(text, info, route);
  if (!statements) {
    reply_error(statements.error());
    send();
    co_return true;
  }
  if (route.shards.empty()) (*statements)[c.first_shard >= 0 ? c.first_shard : 0] = text;

  // A multi-row INSERT split over shards: its RETURNING rows are held until every shard
  // answered, then given in the order of its VALUES rows, as PostgreSQL gives them.
  const bool split_rows = info.kind == sql::StatementKind::kInsert && statements->size() > 1 &&
                          !route.row_shards.empty();
  // Through the extended protocol each shard's rows leave the other rows' parameters out:
  // their Parses give every parameter's type, as the whole statement infers them.
  std::optional<std::string> split_types;
  if (split_rows && ext != nullptr) {
    int shard = statements->begin()->first;
    auto part = co_await coordinated_part(shard);
    if (!part) {
      reply_error(part.error());
      send();
      co_return true;
    }
    auto types = co_await inferred_parameter_types(**part, text, ext->parameter_types);
    if (!types) {
      if (types.error().empty() || (*part)->broken()) {
        reply_error(Error::make(sqlstate::kConnectionFailure,
                                "shard \"" + (*part)->shard().name + "\": " + types.error()));
      } else {
        write_shard_error(out, types.error());
        c.failed = true;
        txn_status_ = 'E';
      }
      send();
      co_return true;
    }
    split_types = std::move(*types);
  }

  // The write on each shard, in the transaction's part there (opened if new).
  exec::ShardWrite::Options o;
  o.statements = std::move(*statements);
  o.describe = ext == nullptr || ext->describe;
  o.replicated = route.replicated;
  o.table = info.target.name;
  o.hold_rows = split_rows && info.returning;
  o.row_shards = route.row_shards;
  o.start = [this, ext, &split_types, &text](int shard, const std::string& statement)
      -> awaitable<exec::ExecResult<exec::ShardWrite::Started>> {
    Coordinated& c = *coord_;
    auto it = c.parts.find(shard);
    bool opening = it == c.parts.end();
    if (opening && !c.replay.empty()) {
      // Savepoints and settings to replay: the part opens on its own first, their answers
      // hidden.
      auto part = co_await coordinated_part(shard);
      if (!part) co_return tl::unexpected(exec::ExecFailure::of(part.error()));
      it = c.parts.find(shard);
      opening = false;
    } else if (opening) {
      auto acquired = co_await acquire_for_client(static_cast<size_t>(shard));
      if (!acquired) co_return tl::unexpected(exec::ExecFailure::of(acquired.error()));
      it = c.parts.emplace(shard, *acquired).first;
      if (c.first_shard < 0) c.first_shard = shard;
    }
    exec::ShardWrite::Started started;
    started.conn = it->second.get();
    started.opening_tags = opening ? (c.lock_timeout ? 2 : 1) : 0;  // the BEGIN's, the SET's
    std::string opener;
    if (opening) {
      opener = coordinated_opener();
    } else if (take_pending_lock_timeout(shard)) {
      // The adopted part's lock timeout, in this request rather than a round trip of its own.
      opener = kSetLockTimeout;
      started.opening_tags = 1;
    }
    std::string request;
    if (ext == nullptr) {
      // One Query: if the BEGIN opening the transaction here failed, the statement does not run.
      write_query(request, opener.empty() ? statement : opener + ";\n" + statement);
    } else {
      if (!opener.empty()) {
        write_query(request, opener);
        ++started.readies;
      }
      // A statement the client prepared, run whole (not an INSERT's rows cut apart): prepared
      // once on the connection under pgrange's name for its text, so the shard parses and
      // plans it once, as through the pass-through.
      const std::string* name = nullptr;
      if (ext->named && !split_types && statement == text) {
        name = &worker_.statement_name(statement + '\0' + ext->parameter_types);
      }
      if (name == nullptr || !started.conn->prepared().count(*name)) {
        if (name != nullptr) {
          // Closing a statement that does not exist is no error: after a failed request the
          // name may or may not be there.
          MessageWriter(request).begin('C').byte('S').cstr(*name).end();
          started.conn->prepared().insert(*name);
          started.parsed = *name;
        }
        MessageWriter(request)
            .begin('P')
            .cstr(name != nullptr ? *name : std::string())
            .cstr(statement)
            .bytes(split_types ? std::string_view(*split_types)
                               : std::string_view(ext->parameter_types))
            .end();
      }
      MessageWriter(request)
          .begin('B')
          .cstr("")
          .cstr(name != nullptr ? *name : std::string())
          .bytes(ext->bind_rest)
          .end();
      MessageWriter(request).begin('D').byte('P').cstr("").end();
      MessageWriter(request).begin('E').cstr("").i32(0).end();
      MessageWriter(request).begin('S').end();
    }
    if (auto e = co_await start_request(*started.conn, std::move(request))) {
      started.conn->mark_broken();
      co_return tl::unexpected(exec::ExecFailure::of(*e));
    }
    co_return started;
  };
  // The index entries of the rows it wrote, before it counts as done.
  o.before_end = [this]() { return write_coordinated_index_entries(); };
  exec::ShardWrite write(std::move(o));
  if (co_await send_tree(&write, std::nullopt, ext, out)) {
    txn_status_ = 'T';
  } else {
    c.failed = true;
    txn_status_ = 'E';
  }
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
      if (what == 'P') coord_->portals.erase(std::string(name));
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

awaitable<void> ClientSession::describe_coordinated_statement(std::string_view body) {
  BodyReader br(body);
  char what = 0;
  std::string_view name;
  br.byte(what);
  br.cstr(name);
  PendingEntry entry;
  entry.kind = Pending::kSyntheticReply;
  auto fail = [&](std::string error_body) {
    entry.kind = Pending::kSyntheticError;
    entry.payload.clear();
    MessageWriter(entry.payload).begin('E').bytes(error_body).end();
    coord_->failed = true;
    txn_status_ = 'E';
    skip_until_sync_ = true;
  };
  auto fail_with = [&](const Error& e) {
    std::string m;
    write_error(m, e);
    fail(m.substr(5));
  };
  std::string_view tail = unnamed_tail_;
  int16_t made = 0;
  if (auto it = made_params_.find(std::string(name)); it != made_params_.end()) {
    made = it->second.made;
  }
  if (!name.empty()) {
    auto it = statements_.find(std::string(name));
    tail = it == statements_.end() ? std::string_view{} : std::string_view(it->second.parse_tail);
  }
  if (tail.empty()) {
    fail_with(
        Error::make("26000", "prepared statement \"" + std::string(name) + "\" does not exist"));
  } else if (coord_->failed) {
    fail_with(aborted_transaction_error());
  } else {
    // Asked of a part in the transaction, which sees the tables the block made.
    int shard = coord_->first_shard >= 0 ? coord_->first_shard : 0;
    auto part = co_await coordinated_part(shard);
    if (!part) {
      fail_with(part.error());
    } else {
      const std::string own = "pgrange_describe";
      std::string request;
      MessageWriter(request)
          .begin('P')
          .cstr(own)
          .cstr(tail.substr(0, tail.find('\0')))
          .bytes(parameter_types(name))
          .end();
      MessageWriter(request).begin('D').byte('S').cstr(own).end();
      MessageWriter(request).begin('C').byte('S').cstr(own).end();
      MessageWriter(request).begin('S').end();
      BackendConnection& conn = **part;
      if (auto e = co_await start_request(conn, std::move(request))) {
        conn.mark_broken();
        fail_with(*e);
      } else {
        for (;;) {
          char type = 0;
          std::string reply;
          if (auto r = co_await conn.read_message(type, reply); !r) {
            conn.mark_broken();
            fail_with(r.error());
            break;
          }
          if (type == 'Z') break;
          if (type == 'E' && entry.kind != Pending::kSyntheticError) fail(reply);
          if (entry.kind == Pending::kSyntheticError) continue;
          if (type == 't') {
            // The client's parameters only: those pgrange fills come last.
            BodyReader pr(reply);
            int16_t n = 0;
            if (pr.i16(n) && made > 0 && n >= made) {
              auto keep = static_cast<int16_t>(n - made);
              MessageWriter(entry.payload)
                  .begin('t')
                  .i16(keep)
                  .bytes(std::string_view(reply).substr(2, static_cast<size_t>(keep) * 4))
                  .end();
              continue;
            }
          }
          if (type == 't' || type == 'T' || type == 'n') {
            MessageWriter(entry.payload).begin(type).bytes(reply).end();
          }
        }
      }
    }
  }
  pending_.push_back(std::move(entry));
  std::string out;
  emit_ready_synthetics(out);
  if (!out.empty()) channel_.send(std::move(out));
}

awaitable<bool> ClientSession::run_script(std::string_view sql_text, const Plan& plan) {
  const auto& infos = **plan.analysis;
  // Outside a block the statements share one transaction of their own, as on PostgreSQL,
  // which this query string ends.
  bool implicit = !coord_ && txn_status_ == 'I' && deferred_begin_.empty();
  if (!coord_) {
    co_await become_coordinated();
    // One write outside a block visits its shards in order: two of them queue on the first
    // shard they share rather than deadlock, and a lock wait lasts as long as on PostgreSQL.
    coord_->lock_timeout = !implicit || infos.size() > 1 || plan.route.moves_keys;
  }
  // The answer, sent once the transaction ended (nothing reaches the client before anyway:
  // the channel is held until the query is done).
  std::string answer;
  size_t last_begins = 0;  // where the last statement's answer begins in `answer`
  for (size_t i = 0; i < infos.size() && !coord_->failed; ++i) {
    std::string one(sql_text.substr(infos[i].begin, infos[i].end - infos[i].begin));
    Plan p;
    if (infos.size() == 1) {
      // Planned already: it runs in the transaction just made ours.
      p = plan;
      p.kind = Plan::Kind::kCoordinate;
    } else {
      p = plan_text('Q', one);
      if (p.kind == Plan::Kind::kWait) {
        p = co_await wait_out_moves(std::move(p), [&] { return plan_text('Q', one); });
      }
    }
    last_begins = answer.size();
    if (p.kind == Plan::Kind::kCoordinate) {
      co_await run_coordinated(one, p, nullptr, true, &answer);
      continue;
    }
    emit_ready_synthetics(answer);
    write_error(answer, p.kind == Plan::Kind::kRefuse && p.error
                            ? *p.error
                            : not_supported("this statement in a query string over several "
                                            "shards is not supported yet",
                                            "send the statements one at a time"));
    coord_->failed = true;
    txn_status_ = 'E';
  }
  if (implicit) {
    bool commit = !coord_->failed;
    if (auto e = co_await end_implicit_transaction(commit)) {
      // PostgreSQL commits before it reports the last statement done: when the commit fails,
      // its rows came and its CommandComplete does not.
      if (commit) drop_last_command_complete(answer, last_begins);
      write_error(answer, *e);
    }
  }
  write_ready_for_query(answer, txn_status_);
  channel_.send(std::move(answer));
  co_return true;
}

std::vector<ClientSession::TxnPart> ClientSession::take_coordinated_parts() {
  std::vector<TxnPart> parts;
  for (auto& [shard, conn] : coord_->parts) {
    TxnPart& part = parts.emplace_back();
    part.shard = shard;
    part.conn = std::move(conn);
    part.in_transaction = true;
    part.broken = part.conn->broken();
  }
  coord_.reset();
  forget_block_catalog();
  return parts;
}

awaitable<void> ClientSession::finish_coordinated(bool commit, std::string& out,
                                                  const std::string* client_gid) {
  if (commit) co_await send_pending_lock_timeout();
  routing::BlockCatalog block = std::move(block_catalog_);
  std::vector<sql::StatementInfo> privileges = std::move(block_privileges_);
  std::vector<TxnPart> parts = take_coordinated_parts();
  std::vector<sql::SessionEffect> effects = std::move(txn_effects_);
  txn_effects_.clear();
  savepoints_.clear();
  // The session settings the block's SET and RESET leave behind where they stick.
  SessionSettings after = desired_settings_;
  for (const auto& e : effects) apply_setting(after, e, startup_settings_);
  std::optional<Error> error;
  if (commit && client_gid != nullptr && !block.empty()) {
    // Its catalog change would have to wait in the metadata store for the client's decision.
    error = Error::make(sqlstate::kFeatureNotSupported,
                        "PREPARE TRANSACTION of a transaction with DDL over several shards is not "
                        "supported by pgrange yet; the transaction was rolled back");
    commit = false;
  }
  std::optional<Error> ended = co_await end_transaction(parts, commit, &block, client_gid);
  if (!error) error = ended;
  bool committed = commit && !error;
  if (committed) apply_effects(effects, true);
  if (committed && client_gid == nullptr && !privileges.empty()) {
    // The block's GRANTs and REVOKEs stand on the shards now: global indexes' tables follow.
    ControlPlane* cp = worker_.shared().control;
    std::function<bool()> follow = [cp, &privileges]() {
      cp->follow_privileges(privileges);
      return true;
    };
    co_await cp->call<bool>(std::move(follow));
  }
  // Every part's connection held the client's settings when it opened. A COMMIT keeps what
  // the block set, a ROLLBACK undoes it, and PREPARE TRANSACTION keeps it in the session
  // whatever is decided later. The connections went back to this worker's pools just now and
  // nothing else has run on this thread since, so their bookkeeping is still ours to fix.
  for (const TxnPart& part : parts) {
    if (committed || part.prepared) part.conn->session_settings() = after;
  }
  if (error) {
    write_error(out, *error);
  } else {
    // PREPARE TRANSACTION of a failed block answers ROLLBACK, as PostgreSQL's does.
    const char* tag = !commit                 ? "ROLLBACK"
                      : client_gid != nullptr ? "PREPARE TRANSACTION"
                                              : "COMMIT";
    MessageWriter(out).begin('C').cstr(tag).end();
  }
  txn_status_ = 'I';
  txn_begin_sql_.clear();
  deferred_begin_.clear();
  leave_ranges();
}

}  // namespace pgrange::proxy
