#include "proxy/session/client_session.hpp"

#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <spdlog/spdlog.h>

#include <array>
#include <cstring>
#include <set>

#include "proxy/auth/md5_auth.hpp"
#include "proxy/auth/scram.hpp"
#include "proxy/backend/fault_point.hpp"
#include "proxy/session/session_settings.hpp"
#include "proxy/wire/frame_reader.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"
#include "sql/cursor_statement.hpp"
#include "sql/quoting.hpp"

namespace pgrange::proxy {
namespace {

constexpr size_t kReadChunk = 16384;
/// Read buffers a worker keeps for its clients between their messages.
constexpr size_t kSpareBuffers = 64;
/// A batch's backend bytes over this are not kept while the client waits.
constexpr size_t kIdleOutCapacity = 4096;
/// The backend reader pauses when this much is queued for a slow client, so a huge result
/// streams through a bounded buffer instead of piling up in memory.
constexpr size_t kClientBacklog = 256 * 1024;

/// Startup parameters that are not session settings.
bool is_connection_param(std::string_view k) {
  return k == "user" || k == "database" || k == "replication" || k == "options" ||
         k.substr(0, 4) == "_pq_";
}

std::string set_config_call(const std::string& name, const std::string& value) {
  // set_config() takes the value exactly as a startup packet gives it (lists included).
  return "pg_catalog.set_config(" + sql::quote_literal(name) + ", " + sql::quote_literal(value) +
         ", false)";
}

/// Splits libpq's "options" startup parameter ("-c a=b --c=d") into settings.
std::vector<std::pair<std::string, std::string>> parse_options(std::string_view opts) {
  std::vector<std::pair<std::string, std::string>> out;
  std::vector<std::string> words;
  std::string cur;
  for (size_t i = 0; i < opts.size(); ++i) {
    char c = opts[i];
    if (c == '\\' && i + 1 < opts.size()) {
      cur.push_back(opts[++i]);
    } else if (c == ' ' || c == '\t') {
      if (!cur.empty()) words.push_back(std::move(cur));
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) words.push_back(cur);
  for (size_t i = 0; i < words.size(); ++i) {
    std::string kv;
    if (words[i] == "-c" && i + 1 < words.size()) {
      kv = words[++i];
    } else if (words[i].rfind("-c", 0) == 0 && words[i].size() > 2) {
      kv = words[i].substr(2);
    } else if (words[i].rfind("--", 0) == 0) {
      kv = words[i].substr(2);
    } else {
      continue;
    }
    auto eq = kv.find('=');
    if (eq == std::string::npos) continue;
    std::string name = kv.substr(0, eq);
    std::replace(name.begin(), name.end(), '-', '_');
    out.emplace_back(name, kv.substr(eq + 1));
  }
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

ClientSession::ClientSession(Worker& worker, tcp::socket socket)
    : worker_(worker),
      settings_(worker.settings()),
      channel_(std::move(socket)),
      transaction_pooling_(worker.config().pool_mode == config::PoolMode::kTransaction),
      cancel_target_(std::make_shared<CancelTarget>()),
      released_(worker.io()) {
  worker_.shared().sessions.fetch_add(1);
}

ClientSession::~ClientSession() {
  leave_ranges();
  if (user_counted_) {
    SharedState& shared = worker_.shared();
    std::lock_guard lock(shared.user_sessions_mutex);
    if (--shared.user_sessions[user_] == 0) shared.user_sessions.erase(user_);
  }
  if (key_pid_ != 0) worker_.shared().cancels.remove(key_pid_, key_secret_);
  worker_.shared().sessions.fetch_sub(1);
}

void ClientSession::drain() {
  draining_ = true;
  // Idle between transactions (pinned or in session pooling, a backend may still be attached):
  // the session ends now. Otherwise it ends when its transaction does (see backend_loop).
  if (!backend_ || (pending_.empty() && !unsynced_ && txn_status_ == 'I' && !in_copy_)) {
    Error e = Error::fatal(sqlstate::kAdminShutdown,
                           "terminating connection because pgrange is shutting down");
    send_error(e);
    closing_ = true;
    // Give the error a moment to be written, then close: the read in message_loop then ends.
    auto self = shared_from_this();
    asio::co_spawn(
        worker_.io(),
        [self]() -> awaitable<void> {
          co_await self->channel_.flush();
          self->channel_.close();
        },
        asio::detached);
  }
}

void ClientSession::send_error(const Error& e) {
  std::string out;
  write_error(out, e);
  channel_.send(std::move(out));
}

awaitable<void> ClientSession::run() {
  auto self = shared_from_this();
  asio::co_spawn(
      worker_.io(), [self]() -> awaitable<void> { co_await self->channel_.write_loop(); },
      asio::detached);
  std::string failure;
  // A login that stops half-way is closed after authentication_timeout, as PostgreSQL does:
  // half-open logins cannot pile up.
  login_timer_ =
      std::make_unique<asio::steady_timer>(worker_.io(), config().authentication_timeout);
  login_timer_->async_wait([self](const error_code& ec) {
    if (ec) return;
    spdlog::info("closing a connection: its login took longer than authentication_timeout");
    self->channel_.close();
  });
  try {
    bool ok = co_await startup();
    if (ok) ok = co_await login();
    login_timer_.reset();  // cancels its wait: the handler runs once, aborted
    if (ok) co_await message_loop();
  } catch (const std::exception& ex) {
    failure = ex.what();
  } catch (...) {
    failure = "an exception of unknown type";
  }
  login_timer_.reset();  // its handler holds the session
  if (!failure.empty()) {
    // A bug in pgrange: the session's state cannot be trusted past it. As PostgreSQL ends a
    // backend after an internal error it cannot recover from, the client is told and
    // disconnected, and every connection to the shards the session held is closed (below,
    // not reused), which rolls back what it had open there.
    spdlog::error("session {} of {}: ended by an unexpected exception: {}", key_pid_, user_,
                  failure);
    channel_.release();
    send_error(Error::fatal(sqlstate::kInternalError,
                            "internal error in pgrange, the connection is closed: " + failure));
  }
  closing_ = true;
  spdlog::debug("session {}: client gone (reader_running={} backend={})", key_pid_, reader_running_,
                backend_ != nullptr);
  if (reader_running_ && backend_) {
    // The reader owns the backend while it runs: make it stop and decide the backend's fate.
    error_code ec;
    backend_->socket().cancel(ec);
    while (reader_running_) {
      released_.expires_after(std::chrono::seconds(5));
      co_await released_.async_wait(no_throw(ec));
    }
  } else if (backend_) {
    release_backend(false);
  }
  if (idle_taken_) {
    pool(static_cast<size_t>(idle_taken_->shard_index())).release(idle_taken_, failure.empty());
    idle_taken_.reset();
  }
  if (coord_) {
    // A transaction over several shards the client left open: closed connections roll back.
    for (auto& [shard, conn] : coord_->parts) {
      pool(static_cast<size_t>(shard)).release(conn, false);
    }
    coord_.reset();
  }
  for (auto& [name, cursor] : held_cursors_) {
    // Held cursors the client left open: closed with their connections.
    for (size_t i = 0; i < cursor.conns.size(); ++i) {
      pool(static_cast<size_t>(cursor.shards[i])).release(cursor.conns[i], false);
    }
  }
  held_cursors_.clear();
  co_await channel_.flush();
  channel_.close();
  if (was_pinned_) spdlog::debug("session of {} ended while pinned", user_);
}

awaitable<bool> ClientSession::read_client_frame(bool startup, std::string& body, char& type) {
  for (;;) {
    // During authentication only small messages are expected (a password, a SASL response).
    FrameResult fr = startup ? read_startup_frame(in_.view()) : read_typed_frame(in_.view(), 65536);
    if (fr.status == FrameStatus::kInvalid) {
      // PostgreSQL only logs a startup packet of an invalid length (COMMERROR) and closes the
      // connection without a word: a client that sends Terminate before its startup packet
      // (node-postgres' connect() then end()) expects nothing back.
      if (startup) {
        spdlog::debug("closing a connection: {}", fr.reason);
      } else {
        send_error(Error::fatal(sqlstate::kProtocolViolation, fr.reason));
      }
      co_return false;
    }
    if (fr.status == FrameStatus::kReady) {
      type = fr.frame.type;
      body.assign(fr.frame.body);
      in_.consume(fr.frame.total_size);
      co_return true;
    }
    error_code ec;
    size_t n = co_await channel_.read_some(in_.prepare(kReadChunk), kReadChunk, ec);
    if (ec) co_return false;
    in_.commit(n);
  }
}

awaitable<bool> ClientSession::startup() {
  bool tls_done = false;
  for (;;) {
    std::string body;
    char ignored_type = 0;
    if (!co_await read_client_frame(true, body, ignored_type)) co_return false;
    BodyReader br(body);
    int32_t code = 0;
    br.i32(code);
    if (code == kSslRequestCode || code == kGssEncRequestCode) {
      if (!in_.empty()) {
        // Bytes after an SSLRequest would be read in plaintext: a man-in-the-middle sign.
        send_error(Error::fatal(sqlstate::kProtocolViolation,
                                "received unencrypted data after SSL request"));
        co_return false;
      }
      auto& tls = worker_.shared().tls;
      if (code == kSslRequestCode && tls && !tls_done) {
        channel_.send(std::string("S"));
        co_await channel_.flush();
        if (!co_await channel_.start_tls(*tls)) co_return false;
        tls_done = true;
      } else {
        channel_.send(std::string("N"));
      }
      continue;
    }
    if (code == kCancelRequestCode) {
      int32_t pid = 0, secret = 0;
      if (br.i32(pid) && br.i32(secret)) {
        // Every shard the client's statement runs on (PostgreSQL's cancel is for one backend).
        for (const CancelKey& k : worker_.shared().cancels.resolve(pid, secret)) {
          if (k.shard_index < 0 || static_cast<size_t>(k.shard_index) >= worker_.pool_count()) {
            continue;
          }
          co_await send_cancel_request(worker_.shard_config(static_cast<size_t>(k.shard_index)),
                                       k.pid, k.secret);
        }
      }
      co_return false;  // the protocol closes a cancel connection without a reply
    }
    if ((code >> 16) != 3) {
      send_error(Error::fatal(sqlstate::kFeatureNotSupported,
                              "unsupported frontend protocol " + std::to_string(code >> 16) + "." +
                                  std::to_string(code & 0xffff) + ": server supports 3.0 to 3.0"));
      co_return false;
    }
    std::vector<std::string> unknown_options;
    std::string_view k, v;
    while (br.cstr(k) && !k.empty()) {
      if (!br.cstr(v)) {
        send_error(Error::fatal(sqlstate::kProtocolViolation, "invalid startup packet layout"));
        co_return false;
      }
      if (k == "application_name") application_name_ = v;  // SHOW CLIENTS
      if (k == "user") {
        user_ = v;
      } else if (k == "database") {
        database_ = v;
      } else if (k.substr(0, 4) == "_pq_") {
        unknown_options.emplace_back(k);
      } else if (k == "options") {
        for (auto& [name, value] : parse_options(v)) {
          startup_calls_[lower(name)] = set_config_call(lower(name), value);
        }
      } else if (!is_connection_param(k)) {
        startup_calls_[lower(k)] = set_config_call(lower(k), std::string(v));
      }
    }
    if ((code & 0xffff) != 0 || !unknown_options.empty()) {
      // Protocol §55.2.1: tell a newer client which minor version and options we speak.
      std::string out;
      MessageWriter w(out);
      w.begin('v').i32(kProtocolVersion3).i32(static_cast<int32_t>(unknown_options.size()));
      for (auto& o : unknown_options) w.cstr(o);
      w.end();
      channel_.send(std::move(out));
    }
    if (user_.empty()) {
      send_error(Error::fatal(sqlstate::kInvalidAuthorization,
                              "no PostgreSQL user name specified in startup packet"));
      co_return false;
    }
    if (database_.empty()) database_ = user_;
    for (const auto& [name, call] : startup_calls_) startup_settings_[name] = "SELECT " + call;
    if (config().tls && config().tls->required && !channel_.tls()) {
      send_error(Error::fatal(sqlstate::kInvalidAuthorization,
                              "pgrange accepts TLS connections only (connect with sslmode=require "
                              "or stronger)"));
      co_return false;
    }
    if (worker_.shared().sessions.load() > config().max_client_conn) {
      send_error(Error::fatal(sqlstate::kTooManyConnections,
                              "sorry, too many clients already (max_client_conn " +
                                  std::to_string(config().max_client_conn) + ")"));
      co_return false;
    }
    co_return co_await authenticate(user_);
  }
}

awaitable<bool> ClientSession::refuse_login(const std::string& user) {
  spdlog::info("authentication failed for user \"{}\"", user);
  worker_.stats().login_failures().add();
  // Slowed down so that passwords cannot be guessed at wire speed; other sessions go on.
  asio::steady_timer delay(worker_.io(), config().auth_failure_delay);
  error_code ec;
  co_await delay.async_wait(no_throw(ec));
  send_error(Error::fatal(sqlstate::kInvalidPassword,
                          "password authentication failed for user \"" + user + "\""));
  co_return false;
}

awaitable<Result<std::optional<config::UserConfig>>> ClientSession::look_up_user(
    const std::string& user) {
  const config::Config& cfg = config();
  BackendLogin login;
  login.user = cfg.auth_user;
  login.password = cfg.auth_password;
  std::string sql = cfg.auth_query;
  const std::string name = sql::quote_literal(user);
  for (size_t at = 0; (at = sql.find("$1", at)) != std::string::npos; at += name.size()) {
    sql.replace(at, 2, name);
  }
  auto rows = co_await query_as(login, sql);
  if (!rows) co_return tl::unexpected(rows.error());
  if (rows->empty()) co_return std::nullopt;
  // (usename, passwd) as PgBouncer's query reads it, or the password alone.
  const std::vector<std::optional<std::string>>& row = rows->front();
  if (row.empty() || !row.back()) co_return std::nullopt;
  config::UserConfig found;
  found.name = user;
  found.password = *row.back();
  if (found.password.rfind("SCRAM-SHA-256$", 0) == 0) {
    found.auth = config::AuthMethod::kScramSha256;
  } else if (is_md5_password_hash(found.password)) {
    found.auth = config::AuthMethod::kMd5;
  } else {
    co_return std::nullopt;  // a plaintext password PostgreSQL itself no longer stores
  }
  co_return found;
}

awaitable<bool> ClientSession::authenticate(const std::string& user) {
  const config::UserConfig* u = config().find_user(user);
  if (u == nullptr && !config().auth_query.empty()) {
    // Not configured: its verifier from the shards' own catalog (auth_query).
    auto found = co_await look_up_user(user);
    if (!found) {
      spdlog::warn("auth_query for user \"{}\" failed: {}", user, found.error().message);
      Error e = found.error();
      e.severity = Severity::kFatal;
      send_error(e);
      co_return false;
    }
    if (*found) {
      looked_up_user_ = std::move(**found);
      u = &*looked_up_user_;
    }
  }
  // An unknown user still has to answer a password request, so that a client cannot tell which
  // user names exist.
  config::AuthMethod method = u ? u->auth : config::AuthMethod::kScramSha256;
  std::string body;
  auto read_password_message = [&]() -> awaitable<bool> {
    co_await channel_.flush();
    char type = 0;
    if (!co_await read_client_frame(false, body, type)) co_return false;
    if (type != 'p') {
      send_error(Error::fatal(sqlstate::kProtocolViolation,
                              "expected password response, got message type " +
                                  std::to_string(static_cast<int>(type))));
      co_return false;
    }
    co_return true;
  };

  user_entry_ = u;
  if (u && method == config::AuthMethod::kTrust) co_return true;
  if (u && method == config::AuthMethod::kCert) {
    // As PostgreSQL's cert method: a client certificate that verified, whose common name is
    // the user's name.
    SSL* ssl = channel_.tls_handle();
    X509* cert = ssl != nullptr ? SSL_get1_peer_certificate(ssl) : nullptr;
    if (cert == nullptr || SSL_get_verify_result(ssl) != X509_V_OK) {
      if (cert != nullptr) X509_free(cert);
      spdlog::info("certificate authentication failed for user \"{}\": no valid certificate", user);
      send_error(Error::fatal(sqlstate::kInvalidAuthorization,
                              "connection requires a valid client certificate"));
      co_return false;
    }
    char cn[256] = {0};
    int len = X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, cn, sizeof cn);
    X509_free(cert);
    if (len < 0 || std::string_view(cn, static_cast<size_t>(len)) != user) {
      spdlog::info("certificate authentication failed for user \"{}\": its common name is \"{}\"",
                   user, cn);
      send_error(Error::fatal(sqlstate::kInvalidAuthorization,
                              "certificate authentication failed for user \"" + user + "\""));
      co_return false;
    }
    co_return true;
  }

  if (method == config::AuthMethod::kMd5) {
    std::array<uint8_t, 4> salt{};
    RAND_bytes(salt.data(), 4);
    std::string out;
    write_auth_request(out, kAuthMd5, std::string_view(reinterpret_cast<char*>(salt.data()), 4));
    channel_.send(std::move(out));
    if (!co_await read_password_message()) co_return false;
    BodyReader br(body);
    std::string_view resp;
    if (!br.cstr(resp) || !u || !md5_verify(resp, u->password, user, salt)) {
      co_return co_await refuse_login(user);
    }
    co_return true;
  }

  // SCRAM-SHA-256 (protocol §55.3.1).
  auto vit = u ? settings_->scram_verifiers.find(user) : settings_->scram_verifiers.end();
  std::optional<ScramVerifier> looked_up;
  if (looked_up_user_) {
    if (auto parsed = ScramVerifier::parse(looked_up_user_->password)) looked_up = *parsed;
  }
  const ScramVerifier& verifier = looked_up ? *looked_up
                                  : vit != settings_->scram_verifiers.end()
                                      ? vit->second
                                      : settings_->unknown_user_verifier;
  std::string out;
  write_auth_request(out, kAuthSasl, std::string_view("SCRAM-SHA-256\0\0", 15));
  channel_.send(std::move(out));
  if (!co_await read_password_message()) co_return false;
  BodyReader br(body);
  std::string_view mech, first;
  int32_t len = 0;
  if (!br.cstr(mech) || !br.i32(len) || len < 0 || !br.bytes(static_cast<size_t>(len), first)) {
    send_error(Error::fatal(sqlstate::kProtocolViolation, "malformed SASLInitialResponse"));
    co_return false;
  }
  if (mech != "SCRAM-SHA-256") {
    send_error(Error::fatal(sqlstate::kProtocolViolation,
                            "client selected an invalid SASL authentication mechanism"));
    co_return false;
  }
  ScramServer server(verifier, user);
  auto server_first = server.handle_client_first(first);
  if (!server_first) {
    send_error(server_first.error());
    co_return false;
  }
  out.clear();
  write_auth_request(out, kAuthSaslContinue, *server_first);
  channel_.send(std::move(out));
  if (!co_await read_password_message()) co_return false;
  auto server_final = server.handle_client_final(body);
  if (!server_final || !u) co_return co_await refuse_login(user);
  if (auto key = server.client_key()) scram_keys_ = BackendLogin::ScramKeys{*key, verifier};
  out.clear();
  write_auth_request(out, kAuthSaslFinal, *server_final);
  channel_.send(std::move(out));
  co_return true;
}

awaitable<bool> ClientSession::login() {
  if (database_ != config().database) {
    send_error(Error::fatal(sqlstate::kInvalidCatalogName,
                            "database \"" + database_ + "\" does not exist"));
    co_return false;
  }
  desired_settings_ = startup_settings_;
  if (int limit = user_entry_->max_connections; limit > 0) {
    SharedState& shared = worker_.shared();
    std::lock_guard lock(shared.user_sessions_mutex);
    int& open = shared.user_sessions[user_];
    if (open >= limit) {
      send_error(Error::fatal(sqlstate::kTooManyConnections,
                              "too many connections for role \"" + user_ + "\""));
      co_return false;
    }
    ++open;
    user_counted_ = true;
  }
  add_pools();

  std::string out;
  write_auth_request(out, kAuthOk);
  channel_.send(std::move(out));

  // A bad startup setting (say, an unknown TimeZone) fails the login as PostgreSQL does.
  auto conn = co_await acquire_synced(0);
  if (!conn) {
    Error e = conn.error();
    e.severity = Severity::kFatal;
    send_error(e);
    co_return false;
  }
  backend_ = *conn;
  out.clear();
  for (auto& [k, v] : backend_->reported_params()) write_parameter_status(out, k, v);
  std::tie(key_pid_, key_secret_) = worker_.shared().cancels.add(cancel_target_);
  write_backend_key_data(out, key_pid_, key_secret_);
  write_ready_for_query(out, 'I');
  channel_.send(std::move(out));
  logged_in_ = true;
  worker_.stats().logins().add();
  spdlog::debug("client {} logged in", user_);
  if (transaction_pooling_) {
    release_backend(true);
  } else {
    cancel_target_->shard_index = backend_->shard_index();
    cancel_target_->pid = backend_->pid();
    cancel_target_->secret = backend_->secret();
    reader_running_ = true;
    asio::co_spawn(worker_.io(), backend_loop(backend_), asio::detached);
  }
  co_return true;
}

awaitable<std::optional<Error>> ClientSession::sync_settings(BackendConnection& conn) {
  std::string sync = settings_sync_sql(conn.session_settings(), desired_settings_);
  if (sync.empty()) co_return std::nullopt;
  auto r = co_await conn.run_simple(std::move(sync));
  if (!r) {
    // Its session is now in a state pgrange does not know: it must not serve anyone.
    conn.mark_broken();
    spdlog::warn("shard {}: bringing a connection to a client's session settings failed: {}",
                 conn.shard().name, r.error().message);
    co_return r.error();
  }
  conn.session_settings() = desired_settings_;
  co_return std::nullopt;
}

awaitable<Result<std::shared_ptr<BackendConnection>>> ClientSession::take_from(size_t shard) {
  BackendPool& p = pool(shard);
  // While RELOAD holds new transactions back, one that holds a connection already goes on (it
  // would otherwise keep RELOAD waiting for it while it waits for RELOAD).
  bool through_hold = p.held() && worker_.holds_connection(this);
  auto acquired = co_await p.acquire(through_hold);
  if (acquired) (*acquired)->holder = this;
  co_return acquired;
}

std::optional<Error> ClientSession::shards_changed() const {
  if (shards_at_message_ == 0 || worker_.pool_count() == shards_at_message_) return std::nullopt;
  Error e = Error::make(sqlstate::kSerializationFailure,
                        "RELOAD added a shard while this statement waited: run it again");
  e.detail = "What it planned could leave the new shard out; nothing was sent to any shard.";
  return e;
}

awaitable<Result<std::shared_ptr<BackendConnection>>> ClientSession::acquire_for_client(
    size_t shard) {
  if (auto changed = shards_changed()) co_return tl::unexpected(*changed);
  auto acquired = co_await take_from(shard);
  if (auto changed = shards_changed()) {
    if (acquired) pool(shard).release(std::move(*acquired), true);
    co_return tl::unexpected(*changed);
  }
  if (acquired) cancel_target_->track(*acquired);
  co_return acquired;
}

awaitable<Result<std::shared_ptr<BackendConnection>>> ClientSession::acquire_synced(
    size_t shard, std::shared_ptr<BackendConnection> conn) {
  for (int attempt = 0;; ++attempt) {
    if (!conn) {
      if (auto changed = shards_changed()) co_return tl::unexpected(*changed);
      auto acquired = co_await take_from(shard);
      if (!acquired) co_return tl::unexpected(acquired.error());
      conn = std::move(*acquired);
      if (auto changed = shards_changed()) {
        pool(shard).release(std::move(conn), true);
        co_return tl::unexpected(*changed);
      }
    }
    // A failure on a connection another client left its settings on may be theirs: one more
    // try (the pool has closed the failed one).
    bool carried = !conn->session_settings().empty();
    std::optional<Error> failed = co_await sync_settings(*conn);
    if (!failed) co_return conn;
    pool(shard).release(std::move(conn), false);
    conn.reset();
    if (!carried || attempt > 0) {
      failed->detail = "pgrange could not give a connection to shard \"" +
                       pool(shard).shard().name + "\" this session's settings";
      co_return tl::unexpected(*failed);
    }
  }
}

void ClientSession::release_backend(bool reusable) {
  if (!backend_) return;
  cancel_target_->shard_index = -1;
  auto conn = std::move(backend_);
  backend_.reset();
  backend_extended_ = false;
  pool(static_cast<size_t>(conn->shard_index())).release(std::move(conn), reusable);
}

bool ClientSession::pinned() const {
  return sql_prepared_ > 0 || hold_cursors_ > 0 || listening_ || temp_objects_ || advisory_locks_ ||
         set_config_used_;
}

bool ClientSession::can_release() const {
  return transaction_pooling_ && pending_.empty() && !unsynced_ && txn_status_ == 'I' &&
         !pinned() && !in_copy_;
}

void ClientSession::push(Pending kind, std::string name) {
  PendingEntry e;
  e.kind = kind;
  e.name = std::move(name);
  pending_.push_back(std::move(e));
}

awaitable<bool> ClientSession::ensure_backend(std::string& out) {
  if (backend_) co_return true;
  std::shared_ptr<BackendConnection> taken = std::move(idle_taken_);
  idle_taken_.reset();
  auto shard = static_cast<size_t>(route_shard());
  if (taken && static_cast<size_t>(taken->shard_index()) != shard) {
    pool(static_cast<size_t>(taken->shard_index())).release(std::move(taken), true);
    taken.reset();
  }
  auto conn = co_await acquire_synced(shard, std::move(taken));
  if (!conn) {
    std::string answered;
    emit_ready_synthetics(answered);  // keep the order of replies
    if (!answered.empty()) channel_.send(std::move(answered));
    send_error(conn.error());
    co_return false;
  }
  attach(std::move(*conn), out);
  co_return true;
}

bool ClientSession::try_attach_idle(std::string& out) {
  if (shards_changed()) return false;  // ensure_backend says so
  auto conn = pool(static_cast<size_t>(route_shard())).take_idle();
  if (!conn) return false;
  conn->holder = this;
  if (conn->session_settings() != desired_settings_) {
    // Its settings must be brought to the client's before anything of the client's runs on
    // it, and a failure must keep the client's statement off it: ensure_backend waits for that.
    idle_taken_ = std::move(conn);
    return false;
  }
  attach(std::move(conn), out);
  return true;
}

void ClientSession::attach(std::shared_ptr<BackendConnection> conn, std::string& out) {
  // A connection just taken from the pool has none of this client's extended-protocol messages
  // waiting for a Sync, whatever the last connection had (a statement the session ran over
  // several shards ends its connections without passing its Sync through here).
  backend_extended_ = false;
  if (!deferred_begin_.empty()) {
    // The transaction's first statement chose this shard: open the client's BEGIN here.
    write_query(out, deferred_begin_);
    push(Pending::kSwallowQuery);
    deferred_begin_.clear();
  }
  start_reader(std::move(conn));
}

void ClientSession::start_reader(std::shared_ptr<BackendConnection> conn) {
  backend_ = std::move(conn);
  cancel_target_->pid = backend_->pid();
  cancel_target_->secret = backend_->secret();
  cancel_target_->shard_index = backend_->shard_index();
  reader_running_ = true;
  asio::co_spawn(worker_.io(), backend_loop(backend_), asio::detached);
}

void ClientSession::ensure_prepared(const ClientStatement& st, std::string& out) {
  if (backend_->prepared().count(st.backend_name)) return;
  backend_->prepared().insert(st.backend_name);
  MessageWriter(out).begin('P').cstr(st.backend_name).bytes(st.parse_tail).end();
  push(Pending::kSwallowParse, st.backend_name);
}

void ClientSession::pin_effects(const std::vector<sql::SessionEffect>& effects) {
  bool before = pinned();
  for (const auto& e : effects) {
    switch (e.kind) {
      case sql::SessionEffectKind::kPrepare:
        ++sql_prepared_;
        break;
      case sql::SessionEffectKind::kListen:
        listening_ = true;
        break;
      case sql::SessionEffectKind::kDeclareHold:
        ++hold_cursors_;
        break;
      case sql::SessionEffectKind::kCreateTemp:
        temp_objects_ = true;
        break;
      case sql::SessionEffectKind::kAdvisoryLock:
        advisory_locks_ = true;
        break;
      case sql::SessionEffectKind::kSetConfig:
        set_config_used_ = true;
        break;
      default:
        break;
    }
  }
  if (!before && pinned()) {
    was_pinned_ = true;
    worker_.shared().pins.fetch_add(1);
    spdlog::info("client {} pinned to its backend connection (session state: {})", user_,
                 effects.empty() ? "" : effects.front().statement.substr(0, 60));
  }
}

void ClientSession::apply_effects(const std::vector<sql::SessionEffect>& effects, bool committed) {
  if (!committed) return;
  bool before = pinned();
  auto* conn = backend_.get();
  for (const auto& e : effects) {
    // pgrange restored the startup values a RESET, RESET ALL or DISCARD ALL returned to on the
    // connection (see handle_query_effects), so it follows the client.
    apply_setting(desired_settings_, e, startup_settings_);
    if (conn) apply_setting(conn->session_settings(), e, startup_settings_);
    switch (e.kind) {
      case sql::SessionEffectKind::kDiscardAll:
        if (conn) conn->prepared().clear();
        statements_.clear();
        made_params_.clear();
        sql_prepared_ = 0;
        hold_cursors_ = 0;
        listening_ = false;
        temp_objects_ = false;
        advisory_locks_ = false;
        set_config_used_ = false;
        break;
      case sql::SessionEffectKind::kDiscardTemp:
        temp_objects_ = false;
        break;
      case sql::SessionEffectKind::kDeallocate:
        if (sql_prepared_ > 0) --sql_prepared_;
        break;
      case sql::SessionEffectKind::kDeallocateAll:
        // DEALLOCATE ALL drops protocol-level statements too, pgrange's names included.
        sql_prepared_ = 0;
        statements_.clear();
        made_params_.clear();
        if (conn) conn->prepared().clear();
        break;
      case sql::SessionEffectKind::kUnlistenAll:
        listening_ = false;
        break;
      case sql::SessionEffectKind::kClose:
        if (hold_cursors_ > 0) --hold_cursors_;
        break;
      case sql::SessionEffectKind::kCloseAll:
        hold_cursors_ = 0;
        break;
      case sql::SessionEffectKind::kAdvisoryUnlockAll:
        advisory_locks_ = false;
        break;
      default:
        break;
    }
  }
  if (before && !pinned()) spdlog::info("client {} unpinned: session state gone", user_);
}

void ClientSession::add_txn_effect(sql::SessionEffect e) {
  auto find_savepoint = [&](const std::string& name) -> std::optional<size_t> {
    for (size_t i = savepoints_.size(); i-- > 0;) {
      if (savepoints_[i].first == name) return i;
    }
    return std::nullopt;
  };
  switch (e.kind) {
    case sql::SessionEffectKind::kSavepoint:
      savepoints_.emplace_back(e.name, txn_effects_.size());
      break;
    case sql::SessionEffectKind::kRollbackTo:
      if (auto i = find_savepoint(e.name)) {
        txn_effects_.resize(savepoints_[*i].second);
        savepoints_.resize(*i + 1);
      }
      break;
    case sql::SessionEffectKind::kRelease:
      if (auto i = find_savepoint(e.name)) savepoints_.resize(*i);
      break;
    default:
      txn_effects_.push_back(std::move(e));
  }
}

void ClientSession::finish_sync_point(StatementLog log, bool error, char start_status,
                                      char end_status) {
  // Replays the statements that completed, in order, the way PostgreSQL scopes their effects:
  // inside a transaction block they count when it commits (savepoints cut them back); outside
  // one they belong to the implicit transaction of this query, which commits unless an error
  // ended it.
  bool in_block = start_status != 'I';
  std::vector<sql::SessionEffect> implicit;
  for (auto& [tag, effects] : log) {
    if (tag == "BEGIN" || tag == "START TRANSACTION") in_block = true;
    bool rollback_to = false;
    for (auto& e : effects) {
      if (e.kind == sql::SessionEffectKind::kRollbackTo) rollback_to = true;
      if (in_block) {
        add_txn_effect(std::move(e));
      } else {
        implicit.push_back(std::move(e));
      }
    }
    if (!in_block) continue;
    // PREPARE TRANSACTION keeps the block's session settings, as COMMIT does, whatever
    // COMMIT/ROLLBACK PREPARED decides later (PostgreSQL ends the GUC changes at PREPARE).
    if (tag == "COMMIT" || tag == "PREPARE TRANSACTION") {
      apply_effects(txn_effects_, true);
      txn_effects_.clear();
      savepoints_.clear();
      in_block = false;
    } else if (tag == "ROLLBACK" && !rollback_to) {
      txn_effects_.clear();
      savepoints_.clear();
      in_block = false;
    }
  }
  if (!error) apply_effects(implicit, true);
  if (end_status == 'I') {
    txn_effects_.clear();
    savepoints_.clear();
  }
}

bool ClientSession::handle_query_effects(std::string_view sql, PendingEntry& e, std::string& out) {
  e.effects = sql::session_effects(sql);
  if (e.effects.empty()) return false;
  if (transaction_pooling_) pin_effects(e.effects);
  const sql::SessionEffect& first = e.effects.front();
  // In session pooling statement names are the client's own: only RESET needs help there.
  bool pooled_names = transaction_pooling_;
  if (pooled_names && first.sole_statement && first.kind == sql::SessionEffectKind::kDeallocate) {
    // Drivers drop protocol-level statements with SQL DEALLOCATE: only this client forgets it;
    // the backend keeps it for the other clients that share it.
    auto it = statements_.find(first.name);
    if (it != statements_.end()) {
      statements_.erase(it);
      made_params_.erase(first.name);
      e.kind = Pending::kSyntheticQuery;
      e.effects.clear();
      MessageWriter(e.payload).begin('C').cstr("DEALLOCATE").end();
      pending_.push_back(std::move(e));
      return true;
    }
  }
  if (pooled_names && first.sole_statement && first.kind == sql::SessionEffectKind::kExecute) {
    // EXECUTE of a protocol-level statement runs it under its backend name.
    auto it = statements_.find(first.name);
    if (it != statements_.end()) {
      ensure_prepared(it->second, out);
      std::string rewritten(sql.substr(0, first.name_begin));
      rewritten += it->second.backend_name;
      rewritten += sql.substr(first.name_end);
      pending_.push_back(std::move(e));
      write_query(out, rewritten);
      return true;
    }
  }
  // RESET goes back to the value the session started with, which on a pooled backend is the
  // server's default, not the client's startup value. So a RESET of a startup parameter runs
  // as set_config() of that value, exactly as the startup packet set it (its row is hidden and
  // the client sees the tag RESET), and RESET ALL is followed by hidden set_config() calls for
  // every startup value. DISCARD ALL runs only as a query of its own (PostgreSQL refuses it in
  // a transaction block, which a query of several statements is): the calls follow it as a
  // query of their own.
  std::string rewritten;
  size_t copied = 0;
  std::vector<uint8_t> actions;
  size_t extra = 0;  // statements added so far shift the CommandComplete ordinals
  bool discard_all = false;
  for (const auto& fx : e.effects) {
    if (fx.kind == sql::SessionEffectKind::kDiscardAll) discard_all = fx.sole_statement;
    bool reset_one =
        fx.kind == sql::SessionEffectKind::kReset && startup_settings_.count(fx.name) != 0;
    bool reset_all = fx.kind == sql::SessionEffectKind::kResetAll;
    if (!reset_one && (!reset_all || startup_settings_.empty())) continue;
    if (actions.size() < fx.statement_index + extra) {
      actions.resize(fx.statement_index + extra, 0);
    }
    rewritten.append(sql.substr(copied, fx.statement_begin - copied));
    if (reset_one) {
      rewritten += startup_settings_.at(fx.name);
      actions.push_back(2);
    } else {
      rewritten.append(sql.substr(fx.statement_begin, fx.statement_end - fx.statement_begin));
      actions.push_back(0);
      for (auto& [name, stmt] : startup_settings_) {
        rewritten += "; " + stmt;
        actions.push_back(1);
        ++extra;
      }
    }
    copied = fx.statement_end;
  }
  if (actions.empty()) {
    pending_.push_back(std::move(e));
    MessageWriter(out).begin('Q').bytes(sql).byte('\0').end();
  } else {
    // Statements after the last rewritten one keep action 0 (beyond the vector).
    rewritten.append(sql.substr(copied));
    e.tag_actions = std::move(actions);
    pending_.push_back(std::move(e));
    write_query(out, rewritten);
  }
  if (discard_all && !startup_calls_.empty()) {
    // If DISCARD ALL failed (inside a transaction block) nothing changed, and the calls fail
    // too, as the block is aborted: that failure is expected.
    std::string calls;
    for (const auto& [name, call] : startup_calls_) calls += (calls.empty() ? "" : ", ") + call;
    write_query(out, "SELECT " + calls);
    push(Pending::kSwallowQuery);
    pending_.back().tolerate_aborted = true;
  }
  return true;
}

void ClientSession::restore_in_batch(const std::vector<sql::SessionEffect>& effects,
                                     std::string& out) {
  // Through the extended protocol the RESET runs as the client sent it, returning to the
  // server's default: right behind it, in the same implicit transaction (skipped with it if it
  // fails), pgrange sets the startup values again under names of its own, hidden.
  std::set<std::string> names;
  for (const auto& e : effects) {
    for (const auto& [name, call] : startup_calls_) {
      bool all = e.kind == sql::SessionEffectKind::kResetAll ||
                 e.kind == sql::SessionEffectKind::kDiscardAll;
      if (all || (e.kind == sql::SessionEffectKind::kReset && e.name == name)) names.insert(name);
    }
  }
  if (names.empty()) return;
  std::string calls;
  for (const auto& name : names) calls += (calls.empty() ? "" : ", ") + startup_calls_.at(name);
  static constexpr const char* kName = "pgrange_restore_settings";
  MessageWriter(out).begin('P').cstr(kName).cstr("SELECT " + calls).i16(0).end();
  push(Pending::kSwallowParse);
  MessageWriter(out).begin('B').cstr(kName).cstr(kName).i16(0).i16(0).i16(0).end();
  push(Pending::kBind);
  pending_.back().hidden = true;
  MessageWriter(out).begin('E').cstr(kName).i32(0).end();
  push(Pending::kExecute);
  pending_.back().hidden = true;
  MessageWriter(out).begin('C').byte('P').cstr(kName).end();
  push(Pending::kClose);
  pending_.back().hidden = true;
  MessageWriter(out).begin('C').byte('S').cstr(kName).end();
  push(Pending::kClose);
  pending_.back().hidden = true;
}

void ClientSession::request_release() {
  // The reader owns the backend while it runs: wake it so it hands the backend back.
  if (!reader_running_ || !backend_) return;
  release_requested_ = true;
  error_code ec;
  backend_->socket().cancel(ec);
}

void ClientSession::emit_ready_synthetics(std::string& out) {
  while (!pending_.empty()) {
    Pending k = pending_.front().kind;
    if (k == Pending::kSyntheticParse) {
      MessageWriter(out).begin('1').end();
    } else if (k == Pending::kSyntheticClose) {
      MessageWriter(out).begin('3').end();
    } else if (k == Pending::kSyntheticError || k == Pending::kSyntheticReply) {
      out += pending_.front().payload;
    } else if (k == Pending::kSyntheticQuery) {
      out += pending_.front().payload;
      write_ready_for_query(out, txn_status_);
    } else {
      break;
    }
    pending_.pop_front();
  }
}

awaitable<void> ClientSession::message_loop() {
  std::string out;  // what goes to the backend; its capacity is kept from one batch to the next
  for (;;) {
    // What the client sent is handled in a coroutine frame of its own, freed before the wait:
    // a client that waits keeps only this loop's small frame.
    if (!co_await handle_input(out)) co_return;
    if (out.capacity() > kIdleOutCapacity) std::string().swap(out);
    error_code ec;
    if (in_.empty() && channel_.can_wait_readable()) {
      // A client that waits holds no read buffer (its worker keeps it until it sends), nor
      // blocks of an empty queue of answers due.
      in_.park(worker_.spare_buffers(), kSpareBuffers, 1 << 16);
      if (pending_.empty()) pending_.shrink_to_fit();
      co_await channel_.wait_readable(ec);
      if (ec) co_return;
      in_.unpark(worker_.spare_buffers());
      size_t n = channel_.read_now(in_.prepare(kReadChunk), kReadChunk, ec);
      if (!ec) {
        if (n == 0) co_return;  // end of stream
        in_.commit(n);
        continue;
      }
      if (ec != asio::error::would_block && ec != asio::error::try_again) co_return;
      ec = {};
    }
    in_.shrink_if_idle(1 << 16);
    size_t n = co_await channel_.read_some(in_.prepare(kReadChunk), kReadChunk, ec);
    if (ec) co_return;
    in_.commit(n);
  }
}

awaitable<bool> ClientSession::handle_input(std::string& out) {
  out.clear();
  bool keep_going = true;
  // The replies to the messages read together go out together, flushed where PostgreSQL
  // flushes: after a Query, a Sync or a Flush, and before waiting for the client.
  channel_.hold();
  char last = 0;
  for (;;) {
    if (last == 'Q' || last == 'S' || last == 'H') {
      channel_.release();
      channel_.hold();
    }
    FrameResult fr = read_typed_frame(in_.view(), config().max_message_size);
    if (fr.status == FrameStatus::kNeedMore) break;
    last = fr.status == FrameStatus::kReady ? fr.frame.type : 0;
    if (fr.status == FrameStatus::kInvalid) {
      send_error(Error::fatal(sqlstate::kProtocolViolation, fr.reason));
      keep_going = false;
      break;
    }
    const Frame& f = fr.frame;
    if (!is_known_frontend_type(f.type)) {
      send_error(Error::fatal(
          sqlstate::kProtocolViolation,
          "invalid frontend message type " + std::to_string(static_cast<uint8_t>(f.type))));
      keep_going = false;
      break;
    }
    if (f.type == 'X') {
      keep_going = false;
      break;
    }
    raise_point(f.body);
    if (f.type != 'H' && f.type != 'd' && f.type != 'c' && f.type != 'f') request_started();
    shards_at_message_ = worker_.pool_count();
    std::string_view raw(in_.data(), f.total_size);
    std::string_view body = f.body;
    // Copy the frame: acquiring a backend may suspend, and in_ may grow meanwhile? No: in_
    // is only filled by this loop, so the views stay valid until consume().
    // The common case needs no suspension: skip the coroutine frame of handle_message.
    bool plain = !lost_error_ && !skip_until_sync_ && !txn_lost_;
    if (copy_in_) {
      // A COPY pgrange routes row by row takes every message until it ends.
      bool ok = co_await continue_copy_in(f.type, f.body);
      in_.consume(f.total_size);
      if (!ok) {
        keep_going = false;
        break;
      }
      continue;
    }
    if (plain && coord_ && (f.type == 'd' || f.type == 'c' || f.type == 'f')) {
      in_.consume(f.total_size);  // after a COPY that failed: PostgreSQL drops these too
      continue;
    }
    if (plain && extended_merge_) {
      bool ok = co_await continue_extended_merge(f.type, f.body, out);
      in_.consume(f.total_size);
      if (!ok) {
        keep_going = false;
        break;
      }
      continue;
    }
    rewritten_message_.clear();
    if (plain && worker_.shared().control != nullptr &&
        (f.type == 'P' || f.type == 'B' || (f.type == 'C' && !made_params_.empty()))) {
      // Values pgrange makes (generated keys, sequence values) become parameters.
      bool ok = true;
      if (!co_await add_made_params(f.type, body, out, ok)) {
        in_.consume(f.total_size);
        if (!ok) {
          keep_going = false;
          break;
        }
        continue;
      }
      if (!rewritten_message_.empty()) {
        raw = rewritten_message_;
        body = raw.substr(5);
      }
    }
    if (plain && coord_ && coord_->implicit && f.type == 'S') {
      co_await answer_sync();
      in_.consume(f.total_size);
      continue;
    }
    if (plain && f.type == 'D' && body.starts_with('P') && (coord_ || !held_cursors_.empty())) {
      // A cursor pgrange reads over several shards, described by name (as psycopg does
      // after its DECLARE).
      std::string_view name = body.substr(1);
      if (co_await describe_cursor_portal(name.substr(0, name.find('\0')))) {
        in_.consume(f.total_size);
        continue;
      }
    }
    if (plain && coord_ && f.type == 'D' && body.starts_with('S')) {
      co_await describe_coordinated_statement(body);
      in_.consume(f.total_size);
      continue;
    }
    if (plain && coord_ && f.type == 'E' && !coord_->portals.empty()) {
      std::string_view portal;
      if (BodyReader(body).cstr(portal) && coord_->portals.count(std::string(portal))) {
        co_await continue_portal(body);  // a portal over several shards, suspended
        in_.consume(f.total_size);
        continue;
      }
    }
    if (plain && coord_ && f.type != 'Q' && f.type != 'B' && f.type != 'X') {
      // A coordinated transaction has no backend: pgrange answers these itself.
      bool ok = coordinated_message(f.type, body, raw, out);
      in_.consume(f.total_size);
      if (!ok) {
        keep_going = false;
        break;
      }
      continue;
    }
    if (plain && worker_.shared().control != nullptr &&
        (f.type == 'Q' || f.type == 'P' || f.type == 'B')) {
      // Route: which shard, or something pgrange answers or runs itself.
      bool ok = true;
      bool forward = co_await route_message(f.type, body, raw, out, ok);
      if (!forward) {
        in_.consume(f.total_size);
        if (!ok) {
          keep_going = false;
          break;
        }
        continue;
      }
      if (!rewritten_message_.empty()) {
        raw = rewritten_message_;  // the statement with the values pgrange made
        body = raw.substr(5);
      }
    }
    // A message that needs a backend usually finds an idle one: attach it without suspending.
    // A Sync needs one only when something before it went to a connection: after what
    // pgrange answered itself (a SELECT over several shards, a Bind it ran), handle_message
    // answers it without a round trip.
    if (plain && !backend_ && !defer_parse_ &&
        (f.type == 'Q' || f.type == 'P' || f.type == 'B' || f.type == 'E' ||
         (f.type == 'S' && awaiting_backend()) || f.type == 'D')) {
      try_attach_idle(out);
    }
    bool deferred = defer_parse_;
    defer_parse_ = false;
    bool ok = (plain && backend_) || deferred ? dispatch_message(f.type, body, raw, out)
                                              : co_await handle_message(f.type, body, raw, out);
    in_.consume(f.total_size);
    if (!ok) {
      keep_going = false;
      break;
    }
  }
  if (!out.empty() && backend_) {
    auto conn = backend_;
    // Try the write at once (the socket is non-blocking); only a full socket buffer makes
    // the session wait for the rest.
    error_code ec;
    size_t n = conn->try_write(out, ec);
    if (!ec && n < out.size()) co_await conn->write(std::string_view(out).substr(n), ec);
    if (ec) {
      conn->mark_broken();
      error_code ignored;
      conn->socket().cancel(ignored);
    }
  }
  if (backend_ || !pending_.empty()) {
    std::string synth;
    emit_ready_synthetics(synth);
    if (!synth.empty()) channel_.send(std::move(synth));
    if (backend_ && can_release()) request_release();
  }
  channel_.release();
  co_return keep_going && !closing_;
}

awaitable<void> ClientSession::answer_sync() {
  unsynced_ = false;  // no backend waits for this Sync
  std::string z;
  emit_ready_synthetics(z);  // what was answered before comes first
  if (coord_ && coord_->implicit) {
    // The extended protocol's implicit transaction ends at its Sync.
    if (auto e = co_await end_implicit_transaction(!coord_->failed)) write_error(z, *e);
  }
  write_ready_for_query(z, txn_status_);
  channel_.send(std::move(z));
}

awaitable<bool> ClientSession::handle_message(char type, std::string_view body,
                                              std::string_view raw, std::string& out) {
  SPDLOG_TRACE("session {}: client '{}' backend={} pending={}", key_pid_, type, backend_ != nullptr,
               pending_.size());
  if (lost_error_ && type != 'H' && type != 'd' && type != 'c' && type != 'f') {
    // The backend died while the client was idle (inside a transaction block, or holding
    // session state): its next message learns it, in place of running. A transaction block
    // stays failed (txn_lost_) until the client ends it, which a ROLLBACK does at once.
    bool rollback = false;
    if (txn_lost_ && type == 'Q') {
      BodyReader br(body);
      std::string_view text;
      if (br.cstr(text)) {
        std::string kw = sql::leading_keyword(text);
        rollback = (kw == "rollback" || kw == "abort") && sql::session_effects(text).empty();
      }
    }
    if (!rollback) {
      send_error(*lost_error_);
      lost_error_.reset();
      if (type == 'Q' || type == 'F' || type == 'S') {
        std::string z;
        write_ready_for_query(z, txn_status_);
        channel_.send(std::move(z));
      } else {
        skip_until_sync_ = true;
      }
      co_return true;
    }
    lost_error_.reset();
  }
  if (skip_until_sync_) {
    // After an error pgrange raised itself, skip to Sync like PostgreSQL does (§55.2.3).
    if (type != 'S') co_return true;
    skip_until_sync_ = false;
    if (!backend_) {
      co_await answer_sync();
      co_return true;
    }
    // With a backend, the Sync goes through so its ReadyForQuery comes in order.
  }
  if (txn_lost_) co_return co_await run_in_lost_transaction(type, body, raw, out);
  if (type == 'H' && (!backend_ || (pending_.empty() && !unsynced_))) {
    co_return true;  // nothing to flush
  }
  if ((type == 'd' || type == 'c' || type == 'f') && !backend_) {
    co_return true;  // copy data after the COPY already ended: PostgreSQL ignores it too
  }
  if (type == 'S' && !backend_ && !coord_ && !awaiting_backend()) {
    // Nothing reached a connection since the last Sync (all answered by pgrange): so is this.
    unsynced_ = false;
    std::string z;
    emit_ready_synthetics(z);
    write_ready_for_query(z, txn_status_);
    channel_.send(std::move(z));
    co_return true;
  }
  if (!backend_) {
    if (!co_await ensure_backend(out)) {
      if (type == 'Q' || type == 'F') {
        std::string z;
        write_ready_for_query(z, txn_status_);
        channel_.send(std::move(z));
      } else if (type == 'S') {
        std::string z;
        write_ready_for_query(z, txn_status_);
        channel_.send(std::move(z));
      } else {
        skip_until_sync_ = true;
      }
      co_return !draining_;
    }
  }
  co_return dispatch_message(type, body, raw, out);
}

bool ClientSession::dispatch_message(char type, std::string_view body, std::string_view raw,
                                     std::string& out) {
  size_t before = out.size();
  bool ok = forward_message(type, body, raw, out);
  if (type == 'S') {
    backend_extended_ = false;
  } else if (backend_ && out.size() > before && type != 'Q' && type != 'F') {
    backend_extended_ = true;
  }
  return ok;
}

bool ClientSession::defer_to_bind() const {
  // Inside a block a statement may need the block's other shards (the coordinator takes the
  // connection then): nothing reaches the connection before its Bind says where it runs.
  return backend_ && transaction_pooling_ && txn_status_ == 'T' && worker_.pool_count() > 1 &&
         !pinned();
}

bool ClientSession::forward_message(char type, std::string_view body, std::string_view raw,
                                    std::string& out) {
  BodyReader br(body);
  switch (type) {
    case 'Q': {
      PendingEntry e;
      e.kind = Pending::kQuery;
      std::string_view sql;
      if (block_open()) {
        BodyReader text(body);
        e.ends_block = text.cstr(sql) && sql::commits_block(sql);
      }
      // In session pooling only a client with startup settings needs help (for RESET).
      if ((!transaction_pooling_ && startup_calls_.empty()) || !br.cstr(sql)) {
        pending_.push_back(std::move(e));
        out.append(raw);
        break;
      }
      if (handle_query_effects(sql, e, out)) break;
      pending_.push_back(std::move(e));
      out.append(raw);
      break;
    }
    case 'P': {
      std::string_view name;
      if (!br.cstr(name)) {
        send_error(Error::fatal(sqlstate::kProtocolViolation, "invalid Parse message"));
        return false;
      }
      unsynced_ = true;
      if (!cursor_parsed_) {
        std::string_view query;
        BodyReader qb(br.rest());
        cursor_parsed_ = qb.cstr(query) && sql::names_cursor(query);
      }
      if (name.empty()) {
        unnamed_analysis_ = parse_analysis_;
        unnamed_tail_.assign(br.rest());
        deferred_parse_.clear();
      }
      if (name.empty() || !transaction_pooling_) {
        if (name.empty() && (transaction_pooling_ || !startup_calls_.empty())) {
          std::string_view query;
          unnamed_effects_ =
              br.cstr(query) ? sql::session_effects(query) : std::vector<sql::SessionEffect>{};
        }
        if (!backend_ || (transaction_pooling_ && defer_to_bind())) {
          // Its Bind picks the shard: answer now, send the Parse there, before the Bind.
          deferred_parse_.assign(raw);
          push(Pending::kSyntheticParse);
          break;
        }
        push(Pending::kParse);
        out.append(raw);
        break;
      }
      std::string tail(br.rest());
      if (statements_.count(std::string(name))) {
        // PostgreSQL refuses to redefine a named statement (42P05) and skips to Sync.
        PendingEntry e;
        e.kind = Pending::kSyntheticError;
        write_error(e.payload, Error::make("42P05", "prepared statement \"" + std::string(name) +
                                                        "\" already exists"));
        pending_.push_back(std::move(e));
        skip_until_sync_ = true;
        break;
      }
      const std::string& backend_name = worker_.statement_name(tail);
      ClientStatement st{backend_name, parse_analysis_, tail, {}};
      st.effects = sql::session_effects(std::string_view(tail.c_str()));
      statements_[std::string(name)] = st;
      if (!backend_ || backend_->prepared().count(backend_name) || defer_to_bind()) {
        // Without a backend (its Bind picks the shard) it is prepared where it first runs.
        push(Pending::kSyntheticParse);
      } else {
        backend_->prepared().insert(backend_name);
        MessageWriter(out).begin('P').cstr(backend_name).bytes(tail).end();
        push(Pending::kParse, backend_name);
        pending_.back().client_name = std::string(name);
      }
      break;
    }
    case 'B': {
      std::string_view portal, stmt;
      unsynced_ = true;
      if (!br.cstr(portal) || !br.cstr(stmt)) {
        send_error(Error::fatal(sqlstate::kProtocolViolation, "invalid Bind message"));
        return false;
      }
      auto it = stmt.empty() || !transaction_pooling_ ? statements_.end()
                                                      : statements_.find(std::string(stmt));
      if (transaction_pooling_ || !startup_calls_.empty()) {
        const auto& effects = it != statements_.end() ? it->second.effects
                              : stmt.empty()          ? unnamed_effects_
                                                      : std::vector<sql::SessionEffect>{};
        if (effects.empty()) {
          if (!portal_effects_.empty()) portal_effects_.erase(std::string(portal));
        } else {
          portal_effects_[std::string(portal)] = effects;
        }
      }
      if (block_open()) {
        // Which portal runs a COMMIT: a connection lost under it leaves the outcome unknown.
        std::string_view text = stmt.empty()              ? std::string_view(unnamed_tail_)
                                : it != statements_.end() ? std::string_view(it->second.parse_tail)
                                                          : std::string_view();
        if (sql::commits_block(text.substr(0, text.find('\0')))) {
          commit_portal_ = std::string(portal);
        } else if (commit_portal_ == portal) {
          commit_portal_.reset();
        }
      }
      if (stmt.empty() && !deferred_parse_.empty()) {
        out += deferred_parse_;  // the unnamed statement, on the shard this Bind chose
        push(Pending::kSwallowParse);
        deferred_parse_.clear();
      }
      if (it == statements_.end()) {
        out.append(raw);
      } else {
        ensure_prepared(it->second, out);
        MessageWriter(out)
            .begin('B')
            .cstr(portal)
            .cstr(it->second.backend_name)
            .bytes(br.rest())
            .end();
      }
      push(Pending::kBind);
      break;
    }
    case 'D': {
      char what = 0;
      std::string_view name;
      unsynced_ = true;
      if (!br.byte(what) || !br.cstr(name)) {
        send_error(Error::fatal(sqlstate::kProtocolViolation, "invalid Describe message"));
        return false;
      }
      if (what == 'S') {
        // pgrange's admin statements have no shard to describe them, and their columns are
        // known once they ran: their portal is described at its Execute.
        auto named = statements_.find(std::string(name));
        std::string_view tail = name.empty() ? std::string_view(unnamed_tail_)
                                : named != statements_.end()
                                    ? std::string_view(named->second.parse_tail)
                                    : std::string_view();
        if (!tail.empty() && admin_text(tail.substr(0, tail.find('\0')))) {
          PendingEntry e;
          e.kind = Pending::kSyntheticError;
          write_error(e.payload,
                      not_supported("Describe of a prepared pgrange admin statement is not "
                                    "supported",
                                    "describe its portal after the Bind, as drivers do"));
          pending_.push_back(std::move(e));
          skip_until_sync_ = true;
          break;
        }
      }
      auto it = what != 'S' || name.empty() || !transaction_pooling_
                    ? statements_.end()
                    : statements_.find(std::string(name));
      if (what == 'S' && name.empty() && !deferred_parse_.empty()) {
        out += deferred_parse_;
        push(Pending::kSwallowParse);
        deferred_parse_.clear();
      }
      if (it == statements_.end()) {
        out.append(raw);
      } else {
        ensure_prepared(it->second, out);
        MessageWriter(out).begin('D').byte('S').cstr(it->second.backend_name).end();
      }
      push(Pending::kDescribe);
      if (what == 'S') {
        // The parameters pgrange fills are not the client's to see.
        auto made = made_params_.find(std::string(name));
        if (made != made_params_.end()) pending_.back().made_params = made->second.made;
      }
      break;
    }
    case 'C': {
      char what = 0;
      std::string_view name;
      unsynced_ = true;
      if (!br.byte(what) || !br.cstr(name)) {
        send_error(Error::fatal(sqlstate::kProtocolViolation, "invalid Close message"));
        return false;
      }
      if (what == 'S' && !name.empty() && transaction_pooling_) {
        // The backend keeps the statement for other clients; only this client forgets it.
        statements_.erase(std::string(name));
        push(Pending::kSyntheticClose);
      } else {
        out.append(raw);
        push(Pending::kClose);
      }
      break;
    }
    case 'E': {
      unsynced_ = true;
      out.append(raw);
      push(Pending::kExecute);
      std::string_view portal;
      if (commit_portal_ && BodyReader(body).cstr(portal) && portal == *commit_portal_) {
        pending_.back().ends_block = true;
        commit_portal_.reset();
      }
      if (!portal_effects_.empty() && br.cstr(portal)) {
        auto it = portal_effects_.find(std::string(portal));
        if (it != portal_effects_.end()) {
          if (transaction_pooling_) {
            pin_effects(it->second);
            pending_.back().effects = it->second;
          }
          restore_in_batch(it->second, out);
        }
      }
      break;
    }
    case 'S':
      unsynced_ = false;
      out.append(raw);
      push(Pending::kSync);
      break;
    case 'F':
      out.append(raw);
      push(Pending::kFunctionCall);
      break;
    default:  // 'H', 'd', 'c', 'f'
      out.append(raw);
      if (type == 'c' || type == 'f') in_copy_ = false;
      break;
  }
  return true;
}

void ClientSession::process_backend_messages(BackendConnection& conn, std::string& out,
                                             bool& release) {
  ByteBuffer& in = conn.input();
  for (;;) {
    FrameResult fr = read_typed_frame(in.view(), 1u << 30);
    if (fr.status != FrameStatus::kReady) {
      if (fr.status == FrameStatus::kInvalid) {
        spdlog::error("shard {}: invalid message from server: {}", conn.shard().name, fr.reason);
        conn.mark_broken();
      }
      return;
    }
    const Frame& f = fr.frame;
    std::string_view raw(in.data(), f.total_size);
    emit_ready_synthetics(out);
    SPDLOG_TRACE("session {}: backend '{}' pending={} head={}", key_pid_, f.type, pending_.size(),
                 pending_.empty() ? -1 : static_cast<int>(pending_.front().kind));
    bool forward = true;
    if (f.type == 'S') {
      BodyReader br(f.body);
      std::string_view k, v;
      if (br.cstr(k) && br.cstr(v)) conn.reported_params()[std::string(k)] = std::string(v);
    }
    if (pending_.empty() && f.type == 'E') {
      ErrorFields ef = parse_error_fields(f.body);
      if (ef.severity == "FATAL" || ef.severity == "PANIC") {
        // Nothing was asked of this backend (an idle transaction, or session pooling): keep the
        // news for the client's next statement instead of a FATAL it would take as its own.
        conn.mark_broken();
        fatal_seen_ = true;
        bool in_block = block_open();
        if (in_block || !transaction_pooling_) {
          Error e = Error::make(ef.sqlstate, ef.message);
          e.detail = "shard \"" + conn.shard().name + "\" closed the connection" +
                     (in_block ? "; the transaction is rolled back: end it with ROLLBACK" : "");
          lost_error_ = std::move(e);
        }
        lose_transaction(in_block);
        in.consume(f.total_size);
        continue;
      }
    }
    if (!pending_.empty()) {
      PendingEntry& head = pending_.front();
      if (head.kind == Pending::kSwallowQuery) {
        forward = false;
        if (f.type == 'E') {
          ErrorFields ef = parse_error_fields(f.body);
          if (!head.tolerate_aborted || ef.sqlstate != sqlstate::kInFailedSqlTransaction) {
            // Its session is not what pgrange believes: never hand it to another client.
            conn.retire();
            spdlog::warn("shard {}: a statement pgrange added failed: {}", conn.shard().name,
                         ef.message);
          }
        } else if (f.type == 'Z') {
          pending_.pop_front();
        }
      } else {
        switch (f.type) {
          case '1':
            if (head.kind == Pending::kSwallowParse) forward = false;
            pending_.pop_front();
            break;
          case '2':
          case '3':
            forward = !head.hidden;
            pending_.pop_front();
            break;
          case 't':
            if (head.kind == Pending::kDescribe && head.made_params > 0) {
              // The client's parameters only: those pgrange fills come last.
              BodyReader pr(f.body);
              int16_t n = 0;
              if (pr.i16(n) && n >= head.made_params) {
                auto keep = static_cast<int16_t>(n - head.made_params);
                MessageWriter(out)
                    .begin('t')
                    .i16(keep)
                    .bytes(f.body.substr(2, static_cast<size_t>(keep) * 4))
                    .end();
                forward = false;
              }
            }
            break;
          case 'T':
          case 'n':
          case 'D':
            if (head.kind == Pending::kDescribe) {
              if (f.type != 'D') pending_.pop_front();
            } else if (head.hidden) {
              forward = false;
            } else if (head.kind == Pending::kQuery && head.completions < head.tag_actions.size() &&
                       head.tag_actions[head.completions] != 0) {
              // Rows of a set_config() pgrange put in place of a RESET are not the client's.
              forward = false;
            }
            break;
          case 'C': {
            std::string tag(f.body.substr(0, f.body.find('\0')));
            in_copy_ = false;
            if (txn_status_ == 'I' && (tag == "BEGIN" || tag == "START TRANSACTION")) {
              began_unconfirmed_ = true;
            }
            if (head.hidden) {
              forward = false;
              pending_.pop_front();
            } else if (head.kind == Pending::kExecute) {
              sync_log_.emplace_back(tag, std::move(head.effects));
              pending_.pop_front();
            } else if (head.kind == Pending::kQuery) {
              uint32_t k = head.completions++;
              uint8_t action = k < head.tag_actions.size() ? head.tag_actions[k] : 0;
              if (action == 1) {
                forward = false;  // a statement pgrange added
                break;
              }
              if (action == 2) {
                // RESET done as set_config() of the startup value: the client sees its RESET.
                forward = false;
                MessageWriter(out).begin('C').cstr("RESET").end();
                tag = "RESET";
              }
              // Tags matter only when there are session effects to scope (see 'Z').
              if (!head.effects.empty() || !txn_effects_.empty() || !savepoints_.empty()) {
                head.tags.push_back(tag);
              }
            }
            break;
          }
          case 'I':
          case 's':
            if (head.kind == Pending::kExecute) pending_.pop_front();
            break;
          case 'G':
            in_copy_ = true;
            break;
          case 'E': {
            if (head.hidden || head.kind == Pending::kSwallowParse) {
              // What pgrange added to the client's requests failed: the client's requests after
              // it are skipped, so it sees this error; the connection serves nobody else.
              conn.retire();
            }
            if (head.raised) {
              // pgrange's own refusal, raised on the backend: without the PL/pgSQL context.
              MessageWriter w(out);
              w.begin('E');
              for (size_t p = 0; p < f.body.size() && f.body[p] != '\0';) {
                size_t end = f.body.find('\0', p + 1);
                if (end == std::string_view::npos) break;
                char field = f.body[p];
                if (field != 'W' && field != 'F' && field != 'L' && field != 'R') {
                  w.bytes(f.body.substr(p, end + 1 - p));
                }
                p = end + 1;
              }
              w.byte('\0').end();
              forward = false;
            }
            ErrorFields ef = parse_error_fields(f.body);
            if (ef.severity == "FATAL" || ef.severity == "PANIC") {
              // The backend is going away, not the client's session: report it as an ERROR
              // so the client keeps its pgrange connection.
              fatal_seen_ = true;
              conn.mark_broken();
              Error e = Error::make(ef.sqlstate, ef.message);
              e.detail = "shard \"" + conn.shard().name + "\" closed the connection";
              if (head.ends_block) {
                // The commit may have happened before the connection went: nobody can tell.
                commit_lost_ = true;
                e = Error::make(sqlstate::kTransactionResolutionUnknown,
                                "lost the connection to shard \"" + conn.shard().name +
                                    "\" during COMMIT: whether the transaction committed is "
                                    "unknown")
                        .with_detail("the shard said: " + ef.message);
              }
              write_error(out, e);
              forward = false;
            }
            in_copy_ = false;
            if (head.kind == Pending::kQuery || head.kind == Pending::kFunctionCall) {
              head.error = true;
            } else {
              sync_error_ = true;
            }
            if (head.kind != Pending::kQuery && head.kind != Pending::kFunctionCall &&
                head.kind != Pending::kSync) {
              // Extended protocol: the backend skips everything up to the next Sync.
              while (!pending_.empty() && pending_.front().kind != Pending::kSync &&
                     pending_.front().kind != Pending::kQuery) {
                PendingEntry& p = pending_.front();
                if ((p.kind == Pending::kParse || p.kind == Pending::kSwallowParse) &&
                    !p.name.empty()) {
                  conn.prepared().erase(p.name);
                  // A statement whose Parse failed or was skipped does not exist.
                  auto it = statements_.find(p.client_name);
                  if (!p.client_name.empty() && it != statements_.end() &&
                      it->second.backend_name == p.name) {
                    statements_.erase(it);
                  }
                }
                pending_.pop_front();
              }
            }
            break;
          }
          case 'Z': {
            char status = f.body.empty() ? 'I' : f.body[0];
            char start_status = txn_status_;
            txn_status_ = status;
            began_unconfirmed_ = false;
            // A failed statement may have been the CREATE that pinned the session for its
            // temporary relation: the next message asks whether any is left.
            if (temp_objects_ && (head.error || sync_error_)) temp_check_due_ = true;
            if (status == 'I' && !uses_.empty()) leave_ranges();
            if (head.kind == Pending::kQuery &&
                (!head.effects.empty() || !txn_effects_.empty() || !savepoints_.empty())) {
              StatementLog log;
              for (size_t i = 0; i < head.tags.size(); ++i) {
                log.emplace_back(head.tags[i], std::vector<sql::SessionEffect>{});
              }
              for (auto& e : head.effects) {
                if (e.statement_index < log.size()) {
                  log[e.statement_index].second.push_back(std::move(e));
                }
              }
              finish_sync_point(std::move(log), head.error, start_status, status);
            } else if (head.kind == Pending::kSync) {
              finish_sync_point(std::move(sync_log_), sync_error_, start_status, status);
              sync_log_.clear();
              sync_error_ = false;
            }
            pending_.pop_front();
            break;
          }
          default:
            break;
        }
      }
    }
    if (forward) out.append(raw);
    if (f.type == 'Z' || f.type == 'E') count_backend_message(conn, f.type, f.body, forward);
    in.consume(f.total_size);
    if (f.type == 'Z' && can_release() && !handover_requested_) {
      if (!in.empty()) conn.mark_broken();  // unexpected bytes after the end: don't reuse
      release = true;
      return;
    }
  }
}

void ClientSession::fail_pending(bool server_already_reported) {
  std::string out;
  std::string shard = backend_ ? backend_->shard().name : std::string("?");
  bool in_block = block_open();
  bool commit_lost =
      commit_lost_ || std::any_of(pending_.begin(), pending_.end(),
                                  [](const PendingEntry& p) { return p.ends_block; });
  commit_lost_ = false;
  Error lost = Error::make(sqlstate::kConnectionFailure,
                           "lost the connection to shard \"" + shard + "\"" +
                               (in_block ? " inside a transaction block: the transaction is "
                                           "rolled back; end it with ROLLBACK"
                                         : ""));
  if (commit_lost) {
    // Whatever the COMMIT did, the block is over.
    lost = Error::make(sqlstate::kTransactionResolutionUnknown,
                       "lost the connection to shard \"" + shard +
                           "\" during COMMIT: whether the transaction committed is unknown");
    in_block = false;
  }
  // Each request that ends with ReadyForQuery gets an error: the one the loss interrupted
  // says why (unless the server said so already), later ones in a failed block get 25P02.
  bool reported = server_already_reported;
  bool first = true;
  bool open_batch = false;  // extended-protocol requests not followed by their Sync yet
  auto fail_one = [&] {
    if (!reported) write_error(out, first || !in_block ? lost : aborted_transaction_error());
    reported = false;
    first = false;
  };
  for (const auto& p : pending_) {
    switch (p.kind) {
      case Pending::kSync:
      case Pending::kQuery:
      case Pending::kFunctionCall:
      case Pending::kSyntheticQuery:
        fail_one();
        write_ready_for_query(out, in_block ? 'E' : 'I');
        open_batch = false;
        break;
      case Pending::kSwallowQuery:
      case Pending::kSwallowParse:
        break;
      default:
        open_batch = open_batch || !p.hidden;
        break;
    }
  }
  if (open_batch) {
    // The client's Sync is still to come: what it sends until then is skipped (§55.2.3).
    fail_one();
    skip_until_sync_ = true;
  }
  pending_.clear();
  unsynced_ = false;
  in_copy_ = false;
  lose_transaction(in_block);
  channel_.send(std::move(out));
}

awaitable<void> ClientSession::backend_loop(std::shared_ptr<BackendConnection> conn) {
  auto self = shared_from_this();
  std::string out;
  bool release = false;
  for (;;) {
    ByteBuffer& in = conn->input();
    error_code ec;
    size_t n = co_await conn->read_some(in.prepare(kReadChunk), kReadChunk, ec);
    if (ec) {
      if (closing_) break;
      if (handover_requested_ && ec == asio::error::operation_aborted) {
        // The session takes the backend over (a coordinator, or a question of its own) once
        // the replies still due have come.
        if (!awaiting_backend()) {
          handover_requested_ = false;
          handed_over_ = conn;
          break;
        }
        continue;
      }
      if (release_requested_ && ec == asio::error::operation_aborted) {
        release_requested_ = false;
        if (can_release()) {
          release = true;
          break;
        }
        continue;
      }
      spdlog::warn("shard {}: connection lost: {}", conn->shard().name, ec.message());
      conn->mark_broken();
      if (pending_.empty() && !lost_error_ && (block_open() || !transaction_pooling_)) {
        lost_error_ = Error::make(sqlstate::kConnectionFailure,
                                  "lost the connection to shard \"" + conn->shard().name + "\"" +
                                      (block_open() ? " inside a transaction block: the "
                                                      "transaction is rolled back; end it with "
                                                      "ROLLBACK"
                                                    : ""));
      }
      fail_pending(fatal_seen_);
      break;
    }
    in.commit(n);
    out.clear();
    process_backend_messages(*conn, out, release);
    if (!out.empty()) channel_.send_view(out);
    if (release || conn->broken() || closing_) break;
    if (handover_requested_ && !awaiting_backend()) {
      handover_requested_ = false;
      handed_over_ = conn;
      break;
    }
    if (channel_.failed()) {
      closing_ = true;
      break;
    }
    if (channel_.queued() > kClientBacklog) co_await channel_.wait_below(kClientBacklog / 2);
  }
  fatal_seen_ = false;
  if (handed_over_ == conn && backend_ == conn) {
    cancel_target_->shard_index = -1;
    backend_.reset();
  } else if (backend_ == conn) {
    bool clean = pending_.empty() && !unsynced_ && txn_status_ == 'I' && !in_copy_ &&
                 transaction_pooling_ && !pinned() && !conn->broken();
    if (conn->broken() && !pending_.empty()) fail_pending(true);
    release_backend(clean);
    if (pending_.empty()) pending_.shrink_to_fit();  // nothing due: no blocks kept for it
    if (conn->broken()) {
      // Whatever the backend had prepared is gone with it, its temporary relations too.
      pending_.clear();
      unsynced_ = false;
      temp_objects_ = false;
    }
  }
  spdlog::debug(
      "session {}: backend reader done (release={} closing={} pending={} status={} unsynced={} "
      "pinned={} copy={})",
      key_pid_, release, closing_, pending_.size(), txn_status_, unsynced_, pinned(), in_copy_);
  commit_lost_ = false;
  reader_running_ = false;
  released_.cancel();
  if (draining_ && !closing_) {
    closing_ = true;
    send_error(Error::fatal(sqlstate::kAdminShutdown,
                            "terminating connection because pgrange is shutting down"));
    co_await channel_.flush();
    channel_.close();
  }
}

void ClientSession::add_pools() {
  for (size_t i = pools_.size(); i < worker_.pool_count(); ++i) {
    pools_.push_back(
        &worker_.pool(i, backend_login(worker_.shard_config(i), *user_entry_, scram_keys_)));
  }
}

}  // namespace pgrange::proxy
