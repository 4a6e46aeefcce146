#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pgrange::testing {

/// How to start a ChildProcess.
struct ProcessOptions {
  /// Program and arguments; argv[0] is looked up in PATH unless it contains a '/'.
  std::vector<std::string> argv;
  /// Variables added to (or replacing those of) the parent's environment.
  std::vector<std::pair<std::string, std::string>> env;
  /// When the test runs as root, run the child as the `postgres` system user (initdb, postgres
  /// and pgbouncer refuse to run as root); HOME is then set to /tmp unless `env` sets it. Ignored
  /// when not root.
  bool as_postgres_when_root = false;
  /// File that receives the child's stdout and stderr (appended, created if missing); empty means
  /// /dev/null. Opened by the parent, so it need not be writable by the `postgres` user.
  std::string log_file;
  /// Working directory of the child; empty means the parent's, or /tmp when running as postgres.
  std::string working_dir;
  /// Signal the kernel sends the child when the test process dies (0 = none), so a crashed test
  /// does not leave servers behind. Only applied when started from the main thread (Linux sends
  /// it when the forking thread exits, which would kill children started from worker threads).
  int parent_death_signal = 9;  // SIGKILL
  /// Put the child in its own process group (Ctrl-C on the test then does not reach it).
  bool new_process_group = false;
};

/// A child process started with fork/exec; killed (SIGTERM, then SIGKILL) and reaped on
/// destruction if still running. Typical use for the proxy:
///
///   ProcessOptions po;
///   po.argv = {std::string(PGRANGE_BINARY_DIR) + "/proxy/pgrange", "--config", config_path};
///   po.log_file = dir + "/pgrange.log";
///   ChildProcess proxy(po);
///   ASSERT_TRUE(wait_until_listening(port, std::chrono::seconds(10),
///                                    [&] { return proxy.running(); }))
///       << proxy.log_tail();
class ChildProcess {
 public:
  /// Starts the process; throws std::runtime_error when fork or exec fails (exec failure is
  /// detected synchronously, e.g. a missing binary).
  explicit ChildProcess(ProcessOptions opts);
  /// Convenience: runs argv with output to log_file.
  ChildProcess(std::vector<std::string> argv, std::string log_file,
               bool as_postgres_when_root = false);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  /// Process id (still valid after the process was reaped, for diagnostics).
  pid_t pid() const { return pid_; }
  /// Sends `sig` to the process if it has not been reaped yet; returns false otherwise.
  bool signal(int sig);
  /// Waits until the process exits or `timeout` passes. Returns the exit status (exit code, or
  /// 128 + signal number when killed by a signal), or nullopt on timeout.
  std::optional<int> wait(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  /// True while the process has not exited (reaps it if it has).
  bool running();
  /// Exit status once the process has been reaped (see wait()).
  std::optional<int> exit_status() const { return exit_status_; }
  /// Sends SIGTERM, waits up to `grace`, then SIGKILLs; always reaps. Returns the exit status.
  int terminate(std::chrono::milliseconds grace = std::chrono::seconds(10));
  /// Last bytes of the log file (stdout and stderr), for failure messages.
  std::string log_tail(std::size_t max_bytes = 4000) const;
  /// The options the process was started with.
  const ProcessOptions& options() const { return opts_; }

 private:
  bool try_reap();

  ProcessOptions opts_;
  pid_t pid_ = -1;
  std::optional<int> exit_status_;
};

/// Runs argv to completion, feeding `stdin_text` on stdin, and returns stdout and stderr
/// interleaved as one string. When `exit_code` is null a non-zero exit throws
/// std::runtime_error (with the output); otherwise the status is stored there (128 + signal
/// when killed). Times out (kill, throw) after `timeout`.
std::string run_command(const std::vector<std::string>& argv, std::string stdin_text = "",
                        int* exit_code = nullptr,
                        std::chrono::milliseconds timeout = std::chrono::seconds(300));

/// Like run_command, but with full ProcessOptions (env, working directory, run as postgres when
/// root); `opts.log_file` is ignored (output is returned).
std::string run_process(ProcessOptions opts, std::string stdin_text = "", int* exit_code = nullptr,
                        std::chrono::milliseconds timeout = std::chrono::seconds(300));

/// True when the test process runs as root (servers must then run as the `postgres` user).
bool running_as_root();

/// Returns the last `max_bytes` of a file ("" when missing), for error messages.
std::string file_tail(const std::string& path, std::size_t max_bytes = 4000);

}  // namespace pgrange::testing
