#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tests/support/process.hpp"

namespace pgrange::testing {

/// The parts of a pgrange TOML configuration that tests vary. `listen` is always chosen by
/// ProxyProcess (a free loopback port).
struct ProxyConfig {
  /// One [[shard]] table.
  struct Shard {
    std::string name = "s1";
    std::string dsn;
    int pool_size = 20;
  };
  /// One [[user]] table.
  struct User {
    std::string name;
    std::string password;
    std::string auth = "scram-sha-256";  ///< scram-sha-256 | md5 | trust
    bool admin = false;                  ///< may run admin statements (SPLIT AT, RELOCATE, …)
    int max_connections = 0;             ///< 0: no limit of its own
  };

  std::string database = "app";
  std::string pool_mode = "transaction";
  int workers = 2;
  std::string log_level = "info";
  int pool_wait_timeout_ms = 10000;
  int connect_timeout_ms = 5000;
  int shutdown_timeout_ms = 10000;
  std::optional<long long> max_message_size;
  std::optional<long long> query_memory;
  std::optional<std::string> temp_directory;
  /// table_sizes_interval_ms (0: pgrange plans joins without the shards' size estimates).
  std::optional<long long> table_sizes_interval_ms;
  /// The body of the [ranges] table: the range manager is off unless a test turns it on.
  std::string ranges = "auto_split = false\nrebalance = false\n";
  std::string tls_cert;  ///< both set: a [tls] table is written
  std::string tls_key;
  std::vector<Shard> shards;
  std::vector<User> users;
  /// Appended verbatim at the end of the file.
  std::string extra_toml;

  /// A config with one shard `s1` at `shard_dsn` and the test users app/secret (SCRAM; an
  /// admin: the suites reshape ranges as app), md5user/md5secret (md5) and trustuser (trust).
  static ProxyConfig with_shard(std::string shard_dsn, int pool_size = 20);
  /// A config with shards s1, s2, … at `shard_dsns` and the same test users.
  static ProxyConfig with_shards(const std::vector<std::string>& shard_dsns, int pool_size = 20);
  /// The TOML text of this configuration, without the `listen` line.
  std::string to_toml() const;
};

/// A pgrange process for a test: writes its config into a fresh temporary folder, picks a free
/// loopback port, starts build/proxy/pgrange (or $PGRANGE_PROXY_BINARY when set) and waits until it
/// accepts connections (retrying with another port if the chosen one was taken). The destructor
/// kills it and removes the folder (kept when PGRANGE_KEEP_TEST_DIRS=1).
class ProxyProcess {
 public:
  /// Starts pgrange with a configuration built from `config`. Throws std::runtime_error (with
  /// the log tail) when it does not start listening within `timeout`.
  static std::unique_ptr<ProxyProcess> start(
      const ProxyConfig& config, std::chrono::milliseconds timeout = std::chrono::seconds(20));
  /// Starts pgrange with raw TOML text; a `listen = "127.0.0.1:PORT"` line is put first.
  static std::unique_ptr<ProxyProcess> start_toml(
      std::string toml_text, std::chrono::milliseconds timeout = std::chrono::seconds(20));
  ~ProxyProcess();
  ProxyProcess(const ProxyProcess&) = delete;
  ProxyProcess& operator=(const ProxyProcess&) = delete;

  /// The loopback port pgrange listens on.
  int port() const { return port_; }
  /// "host=127.0.0.1 port=P dbname=app user=U [password=…] extra".
  std::string dsn(std::string_view user = "app", std::string_view password = "secret",
                  std::string_view extra = "") const;
  /// Last bytes of pgrange's stdout/stderr.
  std::string log_tail(std::size_t max_bytes = 6000) const;
  /// The whole log.
  std::string log() const;
  /// Sends SIGTERM and waits up to `timeout` for the exit; returns the exit status, or nullopt
  /// if it did not exit in time (the process is then left running for the destructor).
  std::optional<int> stop(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  /// True while the process runs.
  bool running() { return child_ && child_->running(); }
  /// The pgrange child process (to send signals).
  ChildProcess& process() { return *child_; }
  /// The temporary folder holding pgrange.toml and pgrange.log.
  const std::string& dir() const { return dir_; }

 private:
  ProxyProcess() = default;
  bool launch(const std::string& toml_text, std::chrono::milliseconds timeout);

  std::string dir_;
  std::string config_path_;
  std::string log_path_;
  std::string database_ = "app";
  int port_ = 0;
  std::unique_ptr<ChildProcess> child_;
  bool stopped_ = false;  // stop() was asked: its exit is expected
};

/// An owned libpq connection (PQfinish on destruction).
using PgConnPtr = std::unique_ptr<PGconn, decltype(&PQfinish)>;

/// Connects with libpq (blocking). Never null; check PQstatus.
PgConnPtr pq_connect(const std::string& conninfo);

/// The outcome of one libpq call, copied out of the PGresult.
struct SqlResult {
  ExecStatusType status = PGRES_FATAL_ERROR;
  std::string sqlstate;  ///< "" when no error
  std::string message;   ///< primary error message
  std::string severity;  ///< non-localized severity (ERROR, FATAL)
  std::string detail;
  std::string hint;
  std::vector<std::vector<std::string>> rows;  ///< text (NULL as "<null>")
  std::string tag;                             ///< the command tag ("UPDATE 3")
  bool ok() const { return status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK; }
  /// rows[r][c], or "<missing>".
  std::string at(size_t r = 0, size_t c = 0) const {
    return r < rows.size() && c < rows[r].size() ? rows[r][c] : "<missing>";
  }
};

/// Copies a PGresult (and clears it).
SqlResult take_result(PGresult* res, PGconn* conn);
/// PQexec and take_result.
SqlResult pq_exec(PGconn* conn, const std::string& sql);

/// The first line where two texts differ, both sides shown, for readable failure messages
/// of direct-vs-pgrange comparisons; "identical" when they do not differ.
std::string first_difference(const std::string& a, const std::string& b);

/// A message read from a raw protocol socket.
struct RawMessage {
  char type = 0;  ///< 0 when the socket closed or timed out before a whole message
  std::string body;
  /// For 'E'/'N': the fields by code ('S', 'V', 'C', 'M', …).
  std::map<char, std::string> fields() const;
};

/// A plain TCP client speaking bytes of the PostgreSQL protocol, for malformed-input tests.
class RawClient {
 public:
  /// Connects to 127.0.0.1:port; throws on failure.
  explicit RawClient(int port);
  ~RawClient();
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  /// Writes bytes; false when the peer closed.
  bool send(std::string_view bytes);
  /// Sends a startup packet (protocol 3.0) with these parameters.
  bool send_startup(const std::vector<std::pair<std::string, std::string>>& params);
  /// Reads one typed message (waits up to `timeout`).
  RawMessage read(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// Reads single bytes (for the SSLRequest answer); "" on EOF/timeout.
  std::string read_byte(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// Reads messages until one of type `type` (returned) or EOF/timeout (type 0).
  RawMessage read_until(char type, std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// True if the peer closes the connection (EOF or reset) within `timeout`; discards data.
  bool wait_closed(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// Reads until the peer closes the connection or `timeout` passes: every byte it sent (those
  /// not read yet included); `closed` tells whether it closed.
  std::string read_to_close(bool& closed,
                            std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// Ends this side's writing (the peer reads EOF) and keeps the socket open for reading.
  void shutdown_write();
  /// Builds a typed message: type, int32 length, body.
  static std::string message(char type, std::string_view body);
  /// Big-endian int32 / int16 bytes.
  static std::string i32(int32_t v);
  static std::string i16(int16_t v);

 private:
  bool fill(size_t want, std::chrono::steady_clock::time_point deadline);
  int fd_ = -1;
  std::string buf_;
};

}  // namespace pgrange::testing
