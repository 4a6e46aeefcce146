#include "proxy/backend/backend_connection.hpp"

#include <spdlog/spdlog.h>

#include <atomic>

#include "proxy/auth/md5_auth.hpp"
#include "proxy/auth/scram.hpp"
#include "proxy/backend/backend_tls.hpp"
#include "proxy/wire/frame_reader.hpp"
#include "proxy/wire/message_writer.hpp"

namespace pgrange::proxy {

BackendConnection::BackendConnection(tcp::socket socket, const config::ShardConfig& shard,
                                     int shard_index)
    : socket_(std::move(socket)), shard_(shard), shard_index_(shard_index) {}

BackendConnection::~BackendConnection() {
  boost::system::error_code ec;
  if (socket_.is_open()) {
    // Terminate ('X') lets the server end the session cleanly instead of logging an EOF.
    if (!broken_) {
      static const char kTerminate[5] = {'X', 0, 0, 0, 4};
      if (tls_) {
        asio::write(*tls_, asio::buffer(kTerminate, 5), ec);
      } else {
        asio::write(socket_, asio::buffer(kTerminate, 5), ec);
      }
    }
    socket_.close(ec);
  }
}

Error BackendConnection::shard_error(std::string what) const {
  return Error::make(sqlstate::kConnectionFailure, "shard \"" + shard_.name + "\" (" + shard_.host +
                                                       ":" + shard_.port + "): " + std::move(what));
}

awaitable<Result<std::shared_ptr<BackendConnection>>> BackendConnection::connect(
    const config::ShardConfig& shard, int shard_index, asio::ssl::context* tls,
    const BackendLogin& login, std::chrono::milliseconds timeout) {
  auto ex = co_await asio::this_coro::executor;
  tcp::resolver resolver(ex);
  error_code rec;
  auto endpoints = co_await resolver.async_resolve(shard.host, shard.port, no_throw(rec));
  auto make_err = [&](std::string what) {
    return Error::make(sqlstate::kConnectionFailure, "cannot connect to shard \"" + shard.name +
                                                         "\" (" + shard.host + ":" + shard.port +
                                                         "): " + std::move(what));
  };
  if (rec) co_return fail(make_err(rec.message()));
  tcp::socket sock(ex);
  // A timer closes the socket if connecting and authenticating take too long.
  auto timer = std::make_shared<asio::steady_timer>(ex, timeout);
  bool timed_out = false;
  timer->async_wait([&sock, &timed_out](boost::system::error_code ec) {
    if (!ec) {
      timed_out = true;
      boost::system::error_code ignored;
      sock.close(ignored);
    }
  });
  error_code cec;
  auto ep = co_await asio::async_connect(sock, endpoints, no_throw(cec));
  (void)ep;
  if (cec) {
    timer->cancel();
    co_return fail(make_err(timed_out ? "timed out" : cec.message()));
  }
  sock.set_option(tcp::no_delay(true));
  // The session writes requests synchronously when the socket buffer has room.
  sock.non_blocking(true, cec);
  auto conn = std::make_shared<BackendConnection>(std::move(sock), shard, shard_index);
  // The timer lambda holds a reference to the moved-from socket; rebind it to the connection.
  timer->cancel();
  auto timer2 = std::make_shared<asio::steady_timer>(ex, timeout);
  std::weak_ptr<BackendConnection> weak = conn;
  timer2->async_wait([weak](boost::system::error_code ec) {
    if (ec) return;
    if (auto c = weak.lock()) {
      boost::system::error_code ignored;
      c->socket_.close(ignored);
    }
  });
  if (tls != nullptr) {
    auto stream = co_await start_shard_tls(conn->socket_, *tls, shard);
    if (!stream) {
      timer2->cancel();
      co_return fail(stream.error());
    }
    conn->tls_ = std::move(*stream);
  }
  auto started = co_await conn->startup(login);
  timer2->cancel();
  if (!started) co_return fail(started.error());
  co_return conn;
}

awaitable<size_t> BackendConnection::read_some(char* data, size_t size, error_code& ec) {
  if (tls_) co_return co_await tls_->async_read_some(asio::buffer(data, size), no_throw(ec));
  co_return co_await socket_.async_read_some(asio::buffer(data, size), no_throw(ec));
}

awaitable<void> BackendConnection::write(std::string_view bytes, error_code& ec) {
  if (tls_) {
    co_await asio::async_write(*tls_, asio::buffer(bytes.data(), bytes.size()), no_throw(ec));
  } else {
    co_await asio::async_write(socket_, asio::buffer(bytes.data(), bytes.size()), no_throw(ec));
  }
}

size_t BackendConnection::try_write(std::string_view bytes, error_code& ec) {
  if (tls_) return 0;  // a TLS record half written cannot be taken back: write() does it all
  size_t n = socket_.write_some(asio::buffer(bytes.data(), bytes.size()), ec);
  if (ec == asio::error::would_block || ec == asio::error::try_again) {
    ec = {};
    n = 0;
  }
  return n;
}

bool is_index_note(std::string_view notice_body) {
  return notice_body.find(std::string_view("CPGRIX\0", 7)) != std::string_view::npos;
}

/// Whether a CommandComplete tag is of a command that surely wrote: every command but the
/// ones that read or only steer the session (SELECT among them, although a SELECT may call a
/// function that writes, or be a SELECT INTO; DO and CALL may write too).
static bool writes_tag(std::string_view body) {
  std::string_view tag = body.substr(0, body.find('\0'));
  std::string_view word = tag.substr(0, tag.find(' '));
  static constexpr std::string_view kOthers[] = {
      "SELECT",   "SHOW",       "SET",     "RESET",  "BEGIN",  "START",   "SAVEPOINT", "RELEASE",
      "ROLLBACK", "DECLARE",    "FETCH",   "MOVE",   "CLOSE",  "DISCARD", "LISTEN",    "UNLISTEN",
      "PREPARE",  "DEALLOCATE", "EXPLAIN", "COMMIT", "NOTIFY", "LOCK",    "DO",        "CALL"};
  for (std::string_view w : kOthers) {
    if (word == w) return false;
  }
  return true;
}

awaitable<Result<void>> BackendConnection::read_message(char& type, std::string& body) {
  for (;;) {
    FrameResult fr = read_typed_frame(in_.view(), 1u << 30);
    if (fr.status == FrameStatus::kInvalid) {
      broken_ = true;
      co_return fail(shard_error("invalid message from server: " + fr.reason));
    }
    if (fr.status == FrameStatus::kReady) {
      if (fr.frame.type == 'N' && is_index_note(fr.frame.body)) {
        // A write's report for the global indexes: kept for the session, never shown.
        static std::atomic<uint64_t> read_order{0};
        index_notes_.emplace_back(read_order.fetch_add(1, std::memory_order_relaxed),
                                  std::string(fr.frame.body));
        in_.consume(fr.frame.total_size);
        continue;
      }
      type = fr.frame.type;
      body.assign(fr.frame.body);
      in_.consume(fr.frame.total_size);
      if (type == 'Z') {
        count_ready(body.empty() ? 'I' : body[0]);
        if (body.empty() || body[0] == 'I') surely_wrote_ = false;
      } else if (type == 'C') {
        surely_wrote_ = surely_wrote_ || writes_tag(body);
      } else if (type == 'E') {
        count_error();
      }
      co_return Result<void>{};
    }
    char* p = in_.prepare(16384);
    error_code ec;
    auto n = co_await read_some(p, 16384, ec);
    if (ec) {
      broken_ = true;
      co_return fail(
          shard_error(ec == asio::error::eof ? "server closed the connection" : ec.message()));
    }
    in_.commit(n);
  }
}

awaitable<Result<void>> BackendConnection::startup(const BackendLogin& login) {
  std::string out;
  // No application_name: a client that sets none must see PostgreSQL's default (empty).
  write_startup_message(out, {{"user", login.user}, {"database", shard_.dbname}});
  auto no_password = [&] {
    return shard_error("the server asks for a password of role \"" + login.user +
                       "\" that pgrange does not have (give the user's password, or "
                       "server_user and server_password, in its [[user]] entry)");
  };
  error_code wec;
  co_await write(out, wec);
  if (wec) co_return fail(shard_error(wec.message()));

  std::unique_ptr<ScramClient> scram;
  std::string body;
  char type = 0;
  for (;;) {
    auto r = co_await read_message(type, body);
    if (!r) co_return r;
    if (type == 'E') {
      ErrorFields f = parse_error_fields(body);
      Error e = shard_error(f.message);
      if (!f.sqlstate.empty()) e.sqlstate = f.sqlstate;
      co_return fail(std::move(e));
    }
    if (type == 'R') {
      BodyReader br(body);
      int32_t code = 0;
      if (!br.i32(code)) co_return fail(shard_error("malformed authentication request"));
      out.clear();
      MessageWriter w(out);
      if (code == kAuthOk) continue;
      if (code == kAuthCleartext) {
        if (login.password.empty() || is_md5_password_hash(login.password)) {
          co_return fail(no_password());
        }
        w.begin('p').cstr(login.password).end();
      } else if (code == kAuthMd5) {
        std::string_view salt;
        if (!br.bytes(4, salt)) co_return fail(shard_error("malformed md5 request"));
        std::array<uint8_t, 4> s{};
        std::memcpy(s.data(), salt.data(), 4);
        if (login.password.empty()) co_return fail(no_password());
        w.begin('p').cstr(md5_response(login.password, login.user, s)).end();
      } else if (code == kAuthSasl) {
        // The server lists mechanisms; pgrange speaks SCRAM-SHA-256 without channel binding.
        bool offered = false;
        std::string_view mech;
        while (br.cstr(mech) && !mech.empty()) offered = offered || mech == "SCRAM-SHA-256";
        if (!offered) co_return fail(shard_error("server offers no SASL mechanism pgrange knows"));
        if (login.scram) {
          scram = std::make_unique<ScramClient>(login.scram->client_key, login.scram->verifier);
        } else if (!login.password.empty() && !is_md5_password_hash(login.password)) {
          scram = std::make_unique<ScramClient>(login.password);
        } else {
          co_return fail(no_password());
        }
        std::string first = scram->client_first();
        w.begin('p')
            .cstr("SCRAM-SHA-256")
            .i32(static_cast<int32_t>(first.size()))
            .bytes(first)
            .end();
      } else if (code == kAuthSaslContinue) {
        if (!scram) co_return fail(shard_error("unexpected SASL continue"));
        auto final_msg = scram->handle_server_first(br.rest());
        if (!final_msg) {
          Error e = shard_error(final_msg.error().message);
          e.sqlstate = final_msg.error().sqlstate;  // 28P01: another verifier there
          co_return fail(std::move(e));
        }
        w.begin('p').bytes(*final_msg).end();
      } else if (code == kAuthSaslFinal) {
        if (!scram) co_return fail(shard_error("unexpected SASL final"));
        auto ok = scram->verify_server_final(br.rest());
        if (!ok) co_return fail(shard_error(ok.error().message));
        continue;
      } else {
        co_return fail(shard_error("unsupported authentication method " + std::to_string(code)));
      }
      error_code ec;
      co_await write(out, ec);
      if (ec) co_return fail(shard_error(ec.message()));
    } else if (type == 'S') {
      BodyReader br(body);
      std::string_view k, v;
      if (br.cstr(k) && br.cstr(v)) reported_[std::string(k)] = std::string(v);
    } else if (type == 'K') {
      BodyReader br(body);
      br.i32(pid_);
      br.i32(secret_);
    } else if (type == 'Z') {
      co_return Result<void>{};
    }
    // NoticeResponse and NegotiateProtocolVersion need no answer.
  }
}

awaitable<Result<void>> BackendConnection::send(std::string_view bytes) {
  error_code ec;
  co_await write(bytes, ec);
  if (ec) {
    broken_ = true;
    co_return fail(shard_error(ec.message()));
  }
  co_return Result<void>{};
}

awaitable<Result<void>> BackendConnection::run_simple(std::string sql) {
  std::string out;
  write_query(out, sql);
  if (auto sent = co_await send(out); !sent) co_return sent;
  co_return co_await finish_simple();
}

awaitable<Result<void>> BackendConnection::finish_simple() {
  std::optional<Error> first_error;
  std::string body;
  char type = 0;
  for (;;) {
    auto r = co_await read_message(type, body);
    if (!r) co_return r;
    if (type == 'E' && !first_error) {
      first_error = error_of_response(body);
    } else if (type == 'S') {
      BodyReader br(body);
      std::string_view k, v;
      if (br.cstr(k) && br.cstr(v)) reported_[std::string(k)] = std::string(v);
    } else if (type == 'Z') {
      break;
    }
  }
  if (first_error) co_return fail(std::move(*first_error));
  co_return Result<void>{};
}

awaitable<void> send_cancel_request(const config::ShardConfig& shard, int32_t pid, int32_t secret) {
  auto ex = co_await asio::this_coro::executor;
  tcp::resolver resolver(ex);
  error_code rec;
  auto endpoints = co_await resolver.async_resolve(shard.host, shard.port, no_throw(rec));
  if (rec) co_return;
  tcp::socket sock(ex);
  error_code cec;
  auto ep = co_await asio::async_connect(sock, endpoints, no_throw(cec));
  (void)ep;
  if (cec) {
    spdlog::warn("cancel: cannot connect to shard {}: {}", shard.name, cec.message());
    co_return;
  }
  std::string out;
  MessageWriter(out).begin(0).i32(kCancelRequestCode).i32(pid).i32(secret).end();
  error_code wec;
  co_await asio::async_write(sock, asio::buffer(out), no_throw(wec));
  // The server closes the connection once it has read the request.
  char c;
  co_await sock.async_read_some(asio::buffer(&c, 1), no_throw(wec));
}

awaitable<Result<BackendReply>> read_replies(BackendConnection& conn, int readies) {
  BackendReply reply;
  while (readies > 0) {
    char type = 0;
    std::string body;
    if (auto r = co_await conn.read_message(type, body); !r) {
      conn.mark_broken();
      co_return tl::unexpected(r.error());
    }
    switch (type) {
      case 'Z':
        --readies;
        break;
      case 'T':
        reply.description = std::move(body);
        break;
      case 'D':
        reply.rows.push_back(std::move(body));
        break;
      case 'C':
        reply.tag.assign(body.c_str());
        break;
      case 'E':
        if (!reply.error) reply.error = std::move(body);
        break;
      case 'N':
        reply.notices.push_back(std::move(body));
        break;
      default:
        break;
    }
  }
  co_return reply;
}

}  // namespace pgrange::proxy
