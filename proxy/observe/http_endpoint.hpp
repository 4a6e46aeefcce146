#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <thread>

#include "common/error.hpp"
#include "proxy/asio.hpp"

namespace pgrange::proxy {

struct SharedState;

/// pgrange's HTTP endpoint ([http] listen), on a thread of its own so that nothing it does
/// touches the workers' hot path: /metrics (Prometheus text format), /healthz (for load
/// balancers: 200 when the metadata store and every shard answer, else 503), / (the key space
/// drawn) and /api/ranges (what the page draws, JSON). GET and HEAD only.
class HttpEndpoint {
 public:
  explicit HttpEndpoint(SharedState& shared);
  ~HttpEndpoint();

  /// Binds the listening socket (a start-up error when it cannot).
  Result<void> open(const std::string& host, uint16_t port);
  /// Starts serving on its thread.
  void start();
  /// Stops serving and joins the thread.
  void stop();
  uint16_t port() const { return port_; }

  /// One answer.
  struct Reply {
    unsigned status = 200;
    std::string content_type = "text/plain; charset=utf-8";
    std::string body;
  };

 private:
  awaitable<void> accept_loop();
  awaitable<void> serve(tcp::socket socket);
  awaitable<Reply> answer(std::string_view target);
  awaitable<Reply> metrics();
  Reply health();
  awaitable<Reply> ranges(bool details);

  SharedState& shared_;
  asio::io_context io_{1};
  tcp::acceptor acceptor_{io_};
  std::thread thread_;
  uint16_t port_ = 0;
  /// The last health check (checks connect to every server: at most one a second).
  std::chrono::steady_clock::time_point checked_at_{};
  Reply last_health_;
  std::vector<bool> reachable_;  ///< per shard, as the last check found
};

}  // namespace pgrange::proxy
