#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tests/support/process.hpp"

namespace pgrange::testing {

/// Directory holding the PostgreSQL 15 server binaries (initdb, postgres, pg_ctl, psql,
/// pgbench): $PGRANGE_PG_BINDIR if set, else /usr/lib/postgresql/15/bin, else `pg_config
/// --bindir`.
std::string pg_bin_dir();

/// Full path of one PostgreSQL binary, e.g. pg_bin("psql").
std::string pg_bin(std::string_view name);

/// Quotes a value for a libpq connection string (keyword='value') when needed.
std::string conninfo_quote(std::string_view value);

/// A real PostgreSQL 15 server started for a test on a loopback port; stopped by the destructor.
///
/// Each server gets a fresh data directory copied from a template that is initdb'd once per build
/// directory and PostgreSQL version (build/pg-template/<version>). It listens on 127.0.0.1 only,
/// keeps its Unix socket in the data directory (exec() uses that socket, which always trusts
/// local connections), and runs as the `postgres` user when the test runs as root. Settings for
/// tests: fsync/full_page_writes/synchronous_commit off, max_prepared_transactions=20,
/// wal_level=logical, max_connections=200. Each server's folder (data/ and server.log) is made
/// under /dev/shm when that is a large tmpfs, else /tmp (override: PGRANGE_TEST_TMPDIR); set
/// PGRANGE_KEEP_TEST_DIRS=1 to keep it after the test. Folders of crashed test processes are
/// removed by the next test process that starts a server.
class PgServer {
 public:
  /// How to start a server. With -Wextra, designated initializers must name every field, so
  /// prefer `PgServer::Options o; o.databases = {"app"}; PgServer::start(o);`.
  struct Options {
    /// Extra settings, written to postgresql.conf as name = 'value' (override the defaults).
    std::vector<std::pair<std::string, std::string>> settings;
    /// pg_hba method for `host` lines on 127.0.0.1: trust | md5 | scram-sha-256 | password.
    std::string host_auth = "trust";
    /// Password set for user postgres (stored as MD5 when host_auth is md5, else SCRAM).
    std::string superuser_password;
    /// Extra databases to CREATE after start (e.g. "app").
    std::vector<std::string> databases;
  };

  /// Starts a server (retrying on another port if the chosen one is taken). Throws
  /// std::runtime_error with the server log tail on failure.
  static std::unique_ptr<PgServer> start(Options opts);
  /// Starts a server with default options.
  static std::unique_ptr<PgServer> start() { return start(Options{}); }
  /// Fast shutdown, waitpid, remove the data directory.
  ~PgServer();
  PgServer(const PgServer&) = delete;
  PgServer& operator=(const PgServer&) = delete;

  /// TCP port on 127.0.0.1.
  int port() const { return port_; }
  /// "host=127.0.0.1 port=N dbname=X user=postgres" (+ " password=…" when one is set).
  std::string dsn(std::string_view dbname = "postgres") const;
  /// Connection string over the Unix socket in the data directory (local trust auth).
  std::string socket_dsn(std::string_view dbname = "postgres") const;
  /// Fast shutdown (SIGINT) and waitpid; keeps the data directory (for restart tests).
  void stop();
  /// Restarts on the same port and data directory; throws with the log tail on failure.
  void start_again();
  /// True while the postmaster runs.
  bool running() const;
  /// Postmaster pid of the current (or last) run; -1 before the first start.
  pid_t pid() const { return child_ ? child_->pid() : -1; }
  /// Runs SQL through libpq (Unix socket, as postgres); returns the first column of all rows of
  /// the last result joined by '\n' (NULL as empty). Throws std::runtime_error on error.
  std::string exec(std::string_view sql, std::string_view dbname = "postgres") const;
  /// The data directory.
  const std::string& data_dir() const { return data_dir_; }
  /// Server log file (outside the data directory).
  const std::string& log_path() const { return log_path_; }
  /// Last bytes of the server log, for failure messages.
  std::string log_tail(std::size_t max_bytes = 4000) const;
  /// Options the server was started with.
  const Options& options() const { return opts_; }

 private:
  PgServer() = default;
  /// Writes pgrange_test.conf (port and settings) and pg_hba.conf.
  void write_config() const;
  /// Starts postgres and waits until postmaster.pid says "ready". Returns false when the server
  /// exited because the port was taken; throws on other failures.
  bool launch();
  void setup();

  Options opts_;
  std::string root_dir_;  // mkdtemp folder: data/ and server.log
  std::string data_dir_;
  std::string log_path_;
  int port_ = 0;
  std::unique_ptr<ChildProcess> child_;
};

}  // namespace pgrange::testing
