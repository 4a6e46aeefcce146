#pragma once

#include <memory>
#include <optional>
#include <string>

#include "proxy/asio.hpp"

namespace pgrange::proxy {

/// The client's end of a session: a TCP socket, upgraded to TLS when the client asks, with
/// writes serialised through one queue (so replies from the backend reader and from the session
/// never interleave) and back-pressure for the backend reader.
class ClientChannel {
 public:
  explicit ClientChannel(tcp::socket socket);

  /// Reads what is available; 0 with `ec` set at end of stream or on error.
  awaitable<size_t> read_some(char* p, size_t n, error_code& ec);
  /// Whether wait_readable() can wait without a buffer: a plain socket (TLS may hold bytes it
  /// already read from the socket).
  bool can_wait_readable() const { return tls_ == nullptr; }
  /// Waits until the client sent something; then read_now() reads it without suspending.
  awaitable<void> wait_readable(error_code& ec);
  /// Reads what is available without waiting; 0 with `ec` would_block when nothing is.
  size_t read_now(char* p, size_t n, error_code& ec) {
    return socket_.read_some(asio::buffer(p, n), ec);
  }

  /// Queues bytes for the client; writing starts at once if nothing is being written.
  void send(std::string bytes);
  /// Like send(), but the caller keeps its buffer: bytes are copied only if they cannot be
  /// written at once.
  void send_view(std::string_view bytes);

  /// From hold() to release(), what is sent is queued and not written: the replies to several
  /// messages go out together, where PostgreSQL flushes (ReadyForQuery, a Flush), instead of a
  /// write per reply. wait_below() releases first, so a large answer still streams.
  void hold() { held_ = true; }
  /// Writes what hold() kept (at once if the socket takes it, else through the writer).
  void release();

  /// While `sink` is set, what is sent goes into it instead of to the client: pgrange runs
  /// statements of its own for one of the client's and answers for them together.
  void divert(std::string* sink) { divert_ = sink; }

  /// Waits until at most `limit` queued bytes remain (or the channel failed).
  awaitable<void> wait_below(size_t limit);

  /// Waits until everything queued is written (or the channel failed).
  awaitable<void> flush() { return wait_below(0); }

  /// Performs the server side of a TLS handshake on the socket.
  awaitable<bool> start_tls(asio::ssl::context& ctx);

  /// Closes the socket; pending reads and writes end with an error.
  void close();

  /// The writer: one coroutine per channel, started once by the session and alive until close.
  awaitable<void> write_loop();

  bool failed() const { return failed_; }
  bool tls() const { return tls_ != nullptr; }
  /// The TLS connection (its peer's certificate), or nullptr.
  SSL* tls_handle() { return tls_ ? tls_->native_handle() : nullptr; }
  size_t queued() const { return pending_.size() + writing_.size(); }
  tcp::socket& socket() { return socket_; }
  const tcp::socket& socket() const { return socket_; }

 private:
  /// Writes what it can without blocking when nothing is queued; returns the bytes written, or
  /// npos after marking the channel failed.
  size_t try_write_now(std::string_view bytes);

  tcp::socket socket_;
  std::unique_ptr<asio::ssl::stream<tcp::socket&>> tls_;
  std::string pending_;
  std::string writing_;
  std::string* divert_ = nullptr;
  bool writer_idle_ = false;
  bool held_ = false;
  bool failed_ = false;
  asio::steady_timer drained_;
  asio::steady_timer wake_;
};

}  // namespace pgrange::proxy
