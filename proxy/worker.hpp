#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "config/config.hpp"
#include "proxy/asio.hpp"
#include "proxy/auth/scram.hpp"
#include "proxy/backend/backend_pool.hpp"
#include "proxy/backend/cancel_registry.hpp"
#include "proxy/observe/proxy_snapshot.hpp"
#include "proxy/observe/worker_stats.hpp"
#include "proxy/settings.hpp"
#include "routing/meta/cluster_view.hpp"
#include "routing/plan/router.hpp"
#include "routing/ranges/range_activity.hpp"
#include "routing/ranges/range_load.hpp"
#include "sql/merge_query.hpp"
#include "sql/statement_shape.hpp"

namespace pgrange::proxy {

class ClientSession;
class ControlPlane;

class Worker;

/// State shared by every worker: configuration, TLS context, cancel keys, shutdown flag.
struct SharedState {
  /// The configuration pgrange started with: what RELOAD cannot change (listen address,
  /// metadata store, TLS, workers) is read from here; the rest, shards included (RELOAD adds
  /// some), from `settings`.
  config::Config config;
  /// The settings of the last load (start or RELOAD); workers hold their own copy of the
  /// pointer, swapped in on their thread. Written by the main thread, read by any.
  std::atomic<std::shared_ptr<const Settings>> settings;
  /// The configuration file (RELOAD reads it again).
  std::string config_path;
  /// Every worker (SHOW POOLS / CLIENTS / SERVERS and /metrics ask each for its part).
  std::vector<Worker*> workers;
  /// The main thread's io_context: RELOAD runs there.
  asio::io_context* main_io = nullptr;
  /// Reads the configuration file again and applies it (on main_io's thread); says what
  /// changed, or why nothing did.
  std::function<Result<std::string>()> reload;
  /// When the process started (SHOW STATS, /metrics).
  std::chrono::system_clock::time_point started_at = std::chrono::system_clock::now();
  std::unique_ptr<asio::ssl::context> tls;
  CancelRegistry cancels;
  std::atomic<bool> draining{false};
  std::atomic<int> sessions{0};
  /// Logged-in sessions per user (for [[user]] max_connections).
  std::mutex user_sessions_mutex;
  std::unordered_map<std::string, int> user_sessions;
  std::atomic<uint64_t> pins{0};  ///< how many times a client was pinned to its backend
  /// How many GRANTs, REVOKEs and changes of owner went through this instance (sessions check
  /// privileges they cached again after one).
  std::atomic<uint64_t> privilege_changes{0};
  /// The catalog, range map and metadata store (nullptr only in tests of the bare pooler).
  ControlPlane* control = nullptr;
};

/// One thread with its own io_context, its own pools (one per shard) and its own sessions, so
/// the request path takes no locks.
class Worker {
 public:
  Worker(SharedState& shared, int index);

  asio::io_context& io() { return io_; }
  SharedState& shared() { return shared_; }
  /// The settings of the last load this worker took (start or RELOAD).
  const config::Config& config() const { return settings_->config; }
  const std::shared_ptr<const Settings>& settings() const { return settings_; }
  /// Takes new settings (on this worker's thread): later sessions log in with them, the pools
  /// take their new sizes and timeouts at once, shards added get their place (open sessions
  /// make their pools on first use).
  void apply_settings(std::shared_ptr<const Settings> settings);
  int index() const { return index_; }
  /// This worker's counters (written on its thread, read from any).
  WorkerStats& stats() { return stats_; }
  /// Its clients, pools and server connections, as SHOW CLIENTS / POOLS / SERVERS list them
  /// (on this worker's thread).
  WorkerSnapshot snapshot();
  /// PAUSE: closes the idle connections of the shard's pools (on this worker's thread).
  void drop_idle(size_t shard);
  /// How many of its server connections a client holds (on this worker's thread).
  size_t connections_in_use();
  /// Whether the session `holder` holds one of its server connections (on its thread).
  bool holds_connection(const void* holder);
  /// The pool of connections to `shard` logged in as `login`, made on first use (kept while
  /// the worker runs: pools are per shard and role, as PgBouncer's per database and user).
  BackendPool& pool(size_t shard, const BackendLogin& login);
  /// The number of shards, as this worker's settings have them.
  size_t pool_count() const { return settings_->config.shards.size(); }
  /// A shard's configuration, as this worker's settings have it.
  const config::ShardConfig& shard_config(size_t shard) const {
    return settings_->config.shards[shard];
  }

  /// The backend-side name for a client's prepared statement text: equal texts (and parameter
  /// types) share one name, so a backend prepares each statement once for all clients.
  const std::string& statement_name(const std::string& parse_tail);

  /// The cluster view sessions route with: the control plane's, cached on this thread while
  /// its version stands (nullptr while the metadata store has not been opened). A copy: a
  /// newer map replaces the cached one whenever any session asks, and pointers into the view a
  /// statement planned with must outlive that.
  std::shared_ptr<const routing::ClusterView> view();

  /// The analysis of a statement text, cached per worker by text and by literal-free shape
  /// (texts repeat, or differ only in their literals). A syntax error is cached too.
  std::shared_ptr<const Result<std::vector<sql::StatementInfo>>> analyze(std::string_view sql);

  /// How to merge a SELECT over several shards of `table` (or why it cannot be), cached per
  /// worker by statement text while the view's version stands.
  std::shared_ptr<const Result<sql::MergeQuery>> merge_plan(std::string_view sql,
                                                            const routing::TableDescriptor& table);

  /// Counts a statement's requests to its ranges (SHOW HOT RANGES; no lock: this thread only).
  void count_uses(const std::vector<routing::RangeActivity::Use>& uses,
                  std::vector<routing::Route::KeySample>& samples);

  /// Read buffers of this worker's clients while they wait for their next message (a waiting
  /// client holds none; ByteBuffer::park).
  std::vector<std::vector<char>>& spare_buffers() { return spare_buffers_; }

  /// Starts a session on an accepted socket (on this worker's thread).
  void start_session(tcp::socket socket);
  /// Asks every session to end after its current transaction (SIGTERM).
  void drain();

 private:
  SharedState& shared_;
  int index_;
  std::shared_ptr<const Settings> settings_;
  WorkerStats stats_;
  asio::io_context io_{1};  // one thread runs it: lets Asio skip cross-thread wake-ups
  /// Per shard: the pools by login (BackendLogin::pool_key).
  std::vector<std::unordered_map<std::string, std::unique_ptr<BackendPool>>> pools_;
  std::unordered_map<std::string, std::string> statement_names_;
  sql::AnalysisCache analyses_;
  std::unordered_map<std::string, std::shared_ptr<const Result<sql::MergeQuery>>> merges_;
  /// Merge plans whose shard query is the client's text, by statement shape: texts of one shape
  /// share a plan when the literals it read (`used`, by index) are equal.
  struct MergeShape {
    std::vector<size_t> used;
    std::unordered_map<std::string, std::shared_ptr<const Result<sql::MergeQuery>>> plans;
  };
  std::unordered_map<std::string, MergeShape> merge_shapes_;
  int64_t merges_version_ = -1;
  std::shared_ptr<const routing::ClusterView> view_;
  int64_t view_version_ = -1;
  std::list<std::weak_ptr<ClientSession>> sessions_;
  std::vector<std::vector<char>> spare_buffers_;
  /// Sessions ended since memory was last given back to the system (malloc_trim).
  size_t ended_since_trim_ = 0;
  static constexpr size_t kTrimAfterSessions = 1000;
  /// Requests per range since they were last handed to the control plane (every second).
  routing::RangeCounts load_;
  asio::steady_timer load_timer_{io_};
  void hand_over_load();
};

}  // namespace pgrange::proxy
