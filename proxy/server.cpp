#include "proxy/server.hpp"

#include <spdlog/spdlog.h>

#include <thread>

#include "common/log_format.hpp"
#include "config/config_entries.hpp"
#include "proxy/backend/backend_tls.hpp"
#include "proxy/control/thread_call.hpp"

namespace pgrange::proxy {

Server::Server(config::Config config, std::string config_path)
    : signals_(main_io_, SIGTERM, SIGINT), hangup_(main_io_, SIGHUP) {
  shared_.config = std::move(config);
  shared_.config_path = std::move(config_path);
}

Server::~Server() {
  if (http_) http_->stop();
  if (control_) control_->stop();
}

Result<std::string> Server::reload() {
  const std::string& path = shared_.config_path;
  auto refused = [&](const std::string& why) {
    spdlog::error("RELOAD: {}; the settings in use stay", why);
    return fail(sqlstate::kConfigFileError, "RELOAD: " + why + "; the settings in use stay");
  };
  if (path.empty()) return refused("pgrange was started without a configuration file");
  auto cfg = config::load_config(path);
  if (!cfg) return refused(path + ": " + cfg.error().message);
  std::shared_ptr<const Settings> current = shared_.settings.load();
  if (auto restart = config::restart_only_changes(current->config, *cfg); !restart.empty()) {
    std::string keys;
    for (const std::string& k : restart) keys += (keys.empty() ? "" : ", ") + k;
    return refused(path + " changes what only a restart changes (" + keys + ")");
  }
  auto settings = make_settings(*cfg, current.get());
  if (!settings) return refused(settings.error().message);
  std::vector<std::string> changed = config::describe_changes(current->config, *cfg);
  std::vector<config::ShardConfig> added(
      cfg->shards.begin() + static_cast<std::ptrdiff_t>(current->config.shards.size()),
      cfg->shards.end());
  if (!added.empty()) {
    if (auto ok = add_shards(added, *settings); !ok) return refused(ok.error().message);
  } else {
    for (auto& w : workers_) {
      asio::post(w->io(), [wp = w.get(), s = *settings] { wp->apply_settings(s); });
    }
  }
  shared_.settings.store(*settings);
  spdlog::set_level(spdlog::level::from_str((*settings)->config.log_level));
  set_log_format((*settings)->config.log_format);
  std::string what;
  for (const std::string& k : changed) what += (what.empty() ? "" : ", ") + k;
  std::string message = changed.empty() ? "RELOAD: " + path + " read again, nothing changed"
                                        : "RELOAD: " + path + " read again, changed: " + what;
  spdlog::info("{}", message);
  return message;
}

Result<void> Server::add_shards(const std::vector<config::ShardConfig>& added,
                                const std::shared_ptr<const Settings>& settings) {
  std::string names;
  for (const config::ShardConfig& s : added) names += (names.empty() ? "" : ", ") + s.name;
  if (control_ == nullptr || !control_->view()) {
    return fail(sqlstate::kConnectionFailure,
                "adding shard " + names + " needs the metadata store, which is not reachable");
  }
  // The new shards get the schema and the reference tables' rows copied while no transaction
  // runs: every shard held (new transactions wait, pool_wait_timeout at most; connections stay
  // open) until the open ones end, so no write to a reference table or DDL slips between the
  // copy and the moment every worker sends such writes to the new shards too.
  std::shared_ptr<const Settings> current = shared_.settings.load();
  for (const auto& state : current->shards) state->held.store(true);
  struct Release {
    const Settings& settings;
    ~Release() {
      for (const auto& state : settings.shards) state->held.store(false);
    }
  } release{*current};
  spdlog::info("RELOAD: adding shard {}: new transactions wait until it is brought up", names);
  auto wait = current->config.pool_wait_timeout / 2;
  auto until = std::chrono::steady_clock::now() + wait;
  for (;;) {
    size_t in_use = 0;
    for (auto& w : workers_) {
      in_use += wait_on<size_t>(w->io(), [wp = w.get()] { return wp->connections_in_use(); });
    }
    if (in_use == 0) break;
    if (std::chrono::steady_clock::now() >= until) {
      return fail(sqlstate::kConfigFileError,
                  "adding shard " + names +
                      " needs a moment when no transaction runs: " + std::to_string(in_use) +
                      " server connection(s) still in use after " + std::to_string(wait.count()) +
                      " ms (open transactions, or clients of pool_mode session)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::function<Result<void>()> bring_up = [&] { return control_->bring_up_shards(added); };
  if (auto up = control_->run_here(std::move(bring_up)); !up) return up;
  // Every worker has the new shards before any view routes to them.
  for (auto& w : workers_) {
    wait_on<bool>(w->io(), [wp = w.get(), settings] {
      wp->apply_settings(settings);
      return true;
    });
  }
  std::function<bool()> join = [&] {
    control_->join_shards(added);
    return true;
  };
  control_->run_here(std::move(join));
  spdlog::info("RELOAD: shard {} added", names);
  return {};
}

void Server::wait_for_hangup() {
  hangup_.async_wait([this](error_code ec, int) {
    if (ec) return;
    spdlog::info("received SIGHUP: reading the configuration again");
    (void)reload();  // logged either way
    wait_for_hangup();
  });
}

Result<void> Server::open() {
  const config::Config& cfg = shared_.config;
  if (cfg.tls) {
    auto ctx = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
    ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                     asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                     asio::ssl::context::no_tlsv1_1);
    error_code ec;
    ctx->use_certificate_chain_file(cfg.tls->cert, ec);
    if (ec)
      return fail(sqlstate::kConfigFileError,
                  "TLS certificate " + cfg.tls->cert + ": " + ec.message());
    ctx->use_private_key_file(cfg.tls->key, asio::ssl::context::pem, ec);
    if (ec)
      return fail(sqlstate::kConfigFileError, "TLS key " + cfg.tls->key + ": " + ec.message());
    if (!cfg.tls->client_ca.empty()) {
      // Clients may present a certificate (auth = "cert" users must): it must verify.
      ctx->load_verify_file(cfg.tls->client_ca, ec);
      if (ec) {
        return fail(sqlstate::kConfigFileError,
                    "TLS client_ca " + cfg.tls->client_ca + ": " + ec.message());
      }
      ctx->set_verify_mode(asio::ssl::verify_peer);
    }
    shared_.tls = std::move(ctx);
  }
  auto settings = make_settings(cfg);
  if (!settings) return fail(settings.error());
  shared_.settings.store(std::move(*settings));
  shared_.main_io = &main_io_;
  shared_.reload = [this] { return reload(); };
  control_ = std::make_unique<ControlPlane>(shared_.config);
  if (auto started = control_->start(); !started) return started;
  shared_.control = control_.get();
  for (int i = 0; i < cfg.effective_workers(); ++i) {
    workers_.push_back(std::make_unique<Worker>(shared_, i));
    shared_.workers.push_back(workers_.back().get());
  }
  error_code ec;
  auto addr = asio::ip::make_address(cfg.listen_host, ec);
  if (ec) {
    tcp::resolver r(main_io_);
    auto res = r.resolve(cfg.listen_host, std::to_string(cfg.listen_port), ec);
    if (ec || res.empty()) {
      return fail(sqlstate::kConfigFileError, "cannot resolve listen address " + cfg.listen_host);
    }
    addr = res.begin()->endpoint().address();
  }
  tcp::endpoint ep(addr, cfg.listen_port);
  acceptor_ = std::make_unique<tcp::acceptor>(main_io_);
  acceptor_->open(ep.protocol(), ec);
  if (!ec) acceptor_->set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_->bind(ep, ec);
  if (!ec) acceptor_->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return fail(sqlstate::kConfigFileError, "cannot listen on " + cfg.listen_host + ":" +
                                                std::to_string(cfg.listen_port) + ": " +
                                                ec.message());
  }
  port_ = acceptor_->local_endpoint().port();
  if (cfg.http_enabled) {
    http_ = std::make_unique<HttpEndpoint>(shared_);
    if (auto ok = http_->open(cfg.http_host, cfg.http_port); !ok) return ok;
  }
  return {};
}

void Server::accept_next() {
  Worker& w = *workers_[next_worker_];
  next_worker_ = (next_worker_ + 1) % workers_.size();
  // The socket belongs to the worker's io_context: its session runs entirely on that thread.
  acceptor_->async_accept(w.io(), [this, &w](error_code ec, tcp::socket sock) {
    if (ec) {
      if (ec == asio::error::operation_aborted) return;
      spdlog::warn("accept failed: {}", ec.message());
    } else {
      asio::post(w.io(), [&w, s = std::move(sock)]() mutable { w.start_session(std::move(s)); });
    }
    if (!shared_.draining) accept_next();
  });
}

void Server::shutdown() {
  asio::post(main_io_, [this] {
    if (shared_.draining.exchange(true)) return;
    spdlog::info("shutting down: no new connections; sessions end after their transactions");
    error_code ec;
    acceptor_->close(ec);
    for (auto& w : workers_) {
      asio::post(w->io(), [wp = w.get()] { wp->drain(); });
    }
    auto deadline = std::chrono::steady_clock::now() + shared_.config.shutdown_timeout;
    auto timer = std::make_shared<asio::steady_timer>(main_io_);
    auto check = std::make_shared<std::function<void()>>();
    *check = [this, timer, deadline, check] {
      if (shared_.sessions.load() == 0 || std::chrono::steady_clock::now() >= deadline) {
        if (shared_.sessions.load() != 0) {
          spdlog::warn("shutdown timeout: closing {} sessions", shared_.sessions.load());
        }
        for (auto& w : workers_) w->io().stop();
        main_io_.stop();
        *check = nullptr;  // break the self-reference
        return;
      }
      timer->expires_after(std::chrono::milliseconds(50));
      timer->async_wait([check](error_code) {
        if (*check) (*check)();
      });
    };
    (*check)();
  });
}

int Server::run() {
  signals_.async_wait([this](error_code ec, int sig) {
    if (!ec) {
      spdlog::info("received signal {}", sig);
      shutdown();
    }
  });
  wait_for_hangup();
  accept_next();
  if (http_) http_->start();
  std::vector<std::thread> threads;
  for (auto& w : workers_) {
    threads.emplace_back([wp = w.get()] {
      auto guard = asio::make_work_guard(wp->io());
      wp->io().run();
    });
  }
  spdlog::info(
      "pgrange listening on {}:{} with {} workers, {} shards, pool_mode {}",
      shared_.config.listen_host, port_, workers_.size(), shared_.config.shards.size(),
      shared_.config.pool_mode == config::PoolMode::kTransaction ? "transaction" : "session");
  main_io_.run();
  for (auto& t : threads) t.join();
  if (http_) http_->stop();
  if (control_) control_->stop();
  spdlog::info("pgrange stopped ({} pins, {} two-phase commits during its run)",
               shared_.pins.load(), control_ ? control_->two_phase_commits() : 0);
  return 0;
}

}  // namespace pgrange::proxy
