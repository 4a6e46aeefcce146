#include "proxy/session/client_channel.hpp"

namespace pgrange::proxy {

ClientChannel::ClientChannel(tcp::socket socket)
    : socket_(std::move(socket)), drained_(socket_.get_executor()), wake_(socket_.get_executor()) {
  drained_.expires_at(asio::steady_timer::time_point::max());
  // Synchronous writes in send() must never block the worker thread.
  error_code ec;
  socket_.non_blocking(true, ec);
}

awaitable<size_t> ClientChannel::read_some(char* p, size_t n, error_code& ec) {
  if (tls_) co_return co_await tls_->async_read_some(asio::buffer(p, n), no_throw(ec));
  co_return co_await socket_.async_read_some(asio::buffer(p, n), no_throw(ec));
}

awaitable<void> ClientChannel::wait_readable(error_code& ec) {
  co_await socket_.async_wait(tcp::socket::wait_read, no_throw(ec));
}

size_t ClientChannel::try_write_now(std::string_view bytes) {
  if (!writer_idle_ || !pending_.empty() || tls_ || held_) return 0;
  // Nothing is queued or being written: hand the bytes to the kernel right away. A reply
  // usually fits the socket buffer, which saves the writer's wake-up and an asynchronous
  // write per reply; whatever does not fit goes through the writer.
  error_code ec;
  size_t n = socket_.write_some(asio::buffer(bytes.data(), bytes.size()), ec);
  if (ec == asio::error::would_block || ec == asio::error::try_again) return 0;
  if (ec) {
    failed_ = true;
    drained_.cancel();
    wake_.cancel();
    return std::string_view::npos;
  }
  return n;
}

void ClientChannel::send(std::string bytes) {
  if (divert_ != nullptr) {
    divert_->append(bytes);
    return;
  }
  if (failed_ || bytes.empty()) return;
  size_t n = try_write_now(bytes);
  if (n == std::string_view::npos || n == bytes.size()) return;
  if (n > 0) bytes.erase(0, n);
  if (pending_.empty()) {
    pending_.swap(bytes);
  } else {
    pending_.append(bytes);
  }
  if (writer_idle_ && !held_) wake_.cancel();
}

void ClientChannel::send_view(std::string_view bytes) {
  if (divert_ != nullptr) {
    divert_->append(bytes);
    return;
  }
  if (failed_ || bytes.empty()) return;
  size_t n = try_write_now(bytes);
  if (n == std::string_view::npos || n == bytes.size()) return;
  pending_.append(bytes.substr(n));
  if (writer_idle_ && !held_) wake_.cancel();
}

void ClientChannel::release() {
  if (!held_) return;
  held_ = false;
  if (failed_ || pending_.empty() || !writer_idle_) return;  // a busy writer takes it next
  std::string bytes;
  bytes.swap(pending_);
  size_t n = try_write_now(bytes);
  if (n == std::string_view::npos || n == bytes.size()) return;
  bytes.erase(0, n);
  pending_.swap(bytes);
  wake_.cancel();
}

awaitable<void> ClientChannel::write_loop() {
  while (!failed_) {
    if (pending_.empty()) {
      writer_idle_ = true;
      wake_.expires_at(asio::steady_timer::time_point::max());
      error_code ec;
      co_await wake_.async_wait(no_throw(ec));
      writer_idle_ = false;
      continue;
    }
    writing_.clear();
    writing_.swap(pending_);
    error_code ec;
    if (tls_) {
      co_await asio::async_write(*tls_, asio::buffer(writing_), no_throw(ec));
    } else {
      co_await asio::async_write(socket_, asio::buffer(writing_), no_throw(ec));
    }
    if (ec) {
      failed_ = true;
      pending_.clear();
    }
    writing_.clear();
    // Keep big result buffers from pinning memory once a burst is over.
    if (writing_.capacity() > (1u << 20)) std::string().swap(writing_);
    drained_.cancel();  // wakes everyone in wait_below()
  }
  drained_.cancel();
}

awaitable<void> ClientChannel::wait_below(size_t limit) {
  release();  // what is held would wait for nothing
  while (!failed_ && queued() > limit) {
    drained_.expires_at(asio::steady_timer::time_point::max());
    error_code ec;
    co_await drained_.async_wait(no_throw(ec));
  }
}

awaitable<bool> ClientChannel::start_tls(asio::ssl::context& ctx) {
  tls_ = std::make_unique<asio::ssl::stream<tcp::socket&>>(socket_, ctx);
  error_code ec;
  co_await tls_->async_handshake(asio::ssl::stream_base::server, no_throw(ec));
  if (ec) {
    failed_ = true;
    co_return false;
  }
  co_return true;
}

void ClientChannel::close() {
  failed_ = true;
  wake_.cancel();
  error_code ec;
  socket_.shutdown(tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  drained_.cancel();
}

}  // namespace pgrange::proxy
