#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "proxy/asio.hpp"
#include "proxy/observe/worker_stats.hpp"

namespace pgrange::proxy {

class Worker;

/// One client connection as SHOW CLIENTS lists it.
struct ClientRow {
  int worker = 0;
  int32_t pid = 0;  ///< the process id pgrange gave it (BackendKeyData)
  std::string user;
  std::string database;
  /// login, active (a request running), idle in transaction, idle.
  std::string state;
  std::string addr;
  int port = 0;
  std::string local_addr;
  int local_port = 0;
  std::chrono::system_clock::time_point connect_time;
  /// When its last request started (connect_time before any).
  std::chrono::system_clock::time_point request_time;
  /// How long its running request has taken so far (0 when none runs).
  std::chrono::microseconds running{0};
  std::string application_name;
  bool tls = false;
  std::string route;  ///< the route kind of its last request
  std::string shard;  ///< the shard whose connection it holds, "" none
};

/// One connection to a shard as SHOW SERVERS lists it.
struct ServerRow {
  int worker = 0;
  std::string shard;
  std::string user;
  std::string database;
  std::string state;  ///< active (a client holds it) or idle (in its pool)
  std::string addr;
  int port = 0;
  std::string local_addr;
  int local_port = 0;
  std::chrono::system_clock::time_point connect_time;
  int32_t remote_pid = 0;
  bool tls = false;
};

/// One pool (shard and role) as SHOW POOLS lists it; added up over workers.
struct PoolRow {
  std::string shard;
  std::string database;
  std::string user;
  int cl_waiting = 0;
  int sv_active = 0;
  int sv_idle = 0;
  int pool_size = 0;
  std::chrono::microseconds maxwait{0};
  bool paused = false;
};

/// What one worker has at the moment it is asked.
struct WorkerSnapshot {
  std::vector<ClientRow> clients;
  std::vector<ServerRow> servers;
  std::vector<PoolRow> pools;
};

/// The whole process at one moment: every worker's clients, servers and pools, and the
/// counters added up.
struct ProxySnapshot {
  StatsTotals stats;
  std::vector<ClientRow> clients;
  std::vector<ServerRow> servers;
  /// By shard and user, over workers.
  std::vector<PoolRow> pools;
};

/// Asks each worker for its part (on its thread, one after the other) and adds the counters
/// up; from a coroutine on any io_context.
awaitable<ProxySnapshot> collect_snapshot(const std::vector<Worker*>& workers);

/// Only the counters (no thread hop: they are read where they are).
StatsTotals collect_stats(const std::vector<Worker*>& workers);

}  // namespace pgrange::proxy
