#pragma once

#include <memory>
#include <thread>
#include <vector>

#include "common/error.hpp"
#include "config/config.hpp"
#include "proxy/asio.hpp"
#include "proxy/control/control_plane.hpp"
#include "proxy/observe/http_endpoint.hpp"
#include "proxy/worker.hpp"

namespace pgrange::proxy {

/// The pgrange process: listens, hands each client to a worker thread, and shuts down cleanly
/// on SIGTERM/SIGINT (stop accepting, let sessions finish their transactions, then exit).
class Server {
 public:
  /// `config_path`: the file `config` came from (RELOAD and SIGHUP read it again; "" none).
  Server(config::Config config, std::string config_path);
  ~Server();

  /// Binds the listening socket and sets up TLS; errors are start-up errors.
  Result<void> open();
  /// Runs until shut down; returns the process exit code.
  int run();
  /// Starts a graceful shutdown (thread-safe).
  void shutdown();
  /// Reads the configuration file again and applies what changed (main thread): users, pool
  /// sizes, timeouts, log level and format, shards added after the others. A file that does
  /// not load, or that changes what only a restart changes (a shard's address, a shard
  /// removed, listen, workers, TLS, …), changes nothing: the error says why. Returns what
  /// changed.
  Result<std::string> reload();
  uint16_t port() const { return port_; }

 private:
  void accept_next();
  /// RELOAD's new shards (main thread): every shard held until no transaction runs, the new
  /// ones brought up (ControlPlane::bring_up_shards), every worker given `settings`, then the
  /// range map routes with them; the shards let go. An error changes nothing.
  Result<void> add_shards(const std::vector<config::ShardConfig>& added,
                          const std::shared_ptr<const Settings>& settings);
  void wait_for_hangup();

  SharedState shared_;
  std::unique_ptr<ControlPlane> control_;
  std::vector<std::unique_ptr<Worker>> workers_;
  asio::io_context main_io_;
  std::unique_ptr<tcp::acceptor> acceptor_;
  asio::signal_set signals_;
  asio::signal_set hangup_;
  std::unique_ptr<HttpEndpoint> http_;
  size_t next_worker_ = 0;
  uint16_t port_ = 0;
};

}  // namespace pgrange::proxy
