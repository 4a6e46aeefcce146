#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/pg_server.hpp"
#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {

/// How to run pgbench's default (TPC-B-like) script through pgrange.
struct PgbenchOptions {
  int port = 0;                 ///< pgrange's port (user app, password secret, database app)
  std::string mode = "simple";  ///< -M: simple | extended | prepared
  int seconds = 10;             ///< -T
  int clients = 8;              ///< -c (with -j 2)
  bool select_only = false;     ///< -S: the select-only script instead of TPC-B
  int connect_timeout_s = 30;   ///< PGCONNECT_TIMEOUT
  /// How long pgbench may take before it is killed.
  std::chrono::milliseconds timeout = std::chrono::seconds(120);
  /// Lines with a lower-case "error" (pgbench's own "pgbench: error: …") count as error lines
  /// too, not only those with "aborted" or "ERROR".
  bool lowercase_error_lines = false;
  /// Printed at the start of the summary line, e.g. "-M simple".
  std::string label;
};

/// What one pgbench run printed, parsed; -1 for a figure pgbench did not print.
struct PgbenchRun {
  int rc = -1;
  long processed = -1;
  long failed = -1;
  long retried = -1;         ///< transactions retried (printed only with --max-tries > 1)
  long retries = -1;         ///< total number of retries
  long aborted_clients = 0;  ///< "client N … aborted" lines
  std::string tps;
  std::vector<std::string> errors;  ///< lines about aborted clients and errors
  std::string output;
};

/// Runs pgbench -n with --max-tries=10 --failures-detailed as `options` say, prints a summary
/// line ("[ pgbench  ] label -T n: exit …") and the first error lines, and parses the output.
/// Any thread.
PgbenchRun run_pgbench(const PgbenchOptions& options);

/// The figures of the bank invariant by name ("sum(abalance)", "sum(bbalance)",
/// "sum(tbalance)", "sum(delta)", "history rows", "accounts"), read through pgrange and on the
/// shards themselves (added up).
struct BankFigures {
  bool read = false;  ///< false when pgrange did not take the connection
  std::map<std::string, long> through_pgrange;
  std::map<std::string, long> on_shards;
};

/// Three PostgreSQL shards s1, s2, s3 (database app) with pgbench's tables of scale kScale and
/// one pgrange in front of them, split and spread so that one TPC-B transaction runs on up to
/// three shards (Options::setup says how they are made). pgbench_history (no primary key) is
/// keyed by aid and spread like the accounts, except with Setup::kInitPlain. The metadata store
/// is the database app_meta on s1. The destructor stops pgrange, then the shards.
class PgbenchCluster {
 public:
  static constexpr int kShards = 3;
  static constexpr int kScale = 2;
  static constexpr long kAccounts = 100000L * kScale;
  static constexpr long kTellers = 10L * kScale;
  static constexpr long kBranches = 1L * kScale;

  /// How the pgbench tables come to be.
  enum class Setup {
    /// pgbench -i on s1, the empty tables on s2 and s3, IMPORT TABLE, SPLIT AT, SCATTER.
    kImport,
    /// pgbench -i -s kScale through pgrange, whose configuration keys the four tables (history
    /// by aid) and gives their split points: the tables start split and spread.
    kInitConfigured,
    /// pgbench -i -s kScale through pgrange without any table configuration: the tables start
    /// unsharded and become keyed by the primary keys pgbench adds last; then SPLIT AT and
    /// SCATTER through pgrange (pgbench_history, without a key, stays whole on one shard).
    kInitPlain,
    /// As kInitConfigured, with pgbench_tellers and pgbench_branches reference tables (every
    /// shard holds all of their rows): a TPC-B transaction writes them on every shard.
    kInitReference,
  };
  struct Options {
    Setup setup = Setup::kImport;
    /// Creates a table through pgrange before the imports (tpcb_first), so that pgrange's
    /// catalog is not empty when IMPORT TABLE comes.
    bool table_before_import = false;
  };

  PgbenchCluster() = default;
  ~PgbenchCluster();
  PgbenchCluster(const PgbenchCluster&) = delete;
  PgbenchCluster& operator=(const PgbenchCluster&) = delete;

  /// Starts the shards and pgrange and sets the tables up. Returns what went wrong (exceptions
  /// included, then pgrange's log tail), or "" when all went well.
  std::string set_up(const Options& options);

  /// "s1", "s2", … for shard 0, 1, ….
  static std::string shard_name(int i);

  PgServer& shard(int i) { return *shards_[i]; }
  ProxyProcess& proxy() { return *proxy_; }
  /// Stops the current pgrange (if still running) and starts a new one with the same
  /// configuration (same shards and metadata store).
  void restart_proxy();

  /// One more pgrange, configured as the first but for its [ranges] table (the body given):
  /// a range manager at work beside it.
  std::unique_ptr<ProxyProcess> start_managing_proxy(const std::string& ranges) const;

  /// Runs pgbench -i -s kScale through pgrange; "" or what went wrong.
  std::string init_through_pgrange();

  /// A connection to database app of shard `i`, directly.
  PgConnPtr direct(int i) const;
  /// A number read on every shard directly and added up (NULL as 0); a failed expectation for a
  /// shard where `sql` fails.
  long on_shards(const std::string& sql) const;
  /// Prepared transactions on all shards (pg_prepared_xacts).
  long prepared_left() const;
  /// Prepared transactions per running shard, e.g. "s1=0 s2=3 s3=down".
  std::string prepared_per_shard() const;
  /// Waits (up to `limit`) until no shard has a prepared transaction; returns the seconds it
  /// took, or -1 when some are still there.
  double wait_until_nothing_prepared(std::chrono::milliseconds limit) const;

  /// Every value of `column` in 1..n of `table` is on exactly one shard.
  void expect_each_row_on_one_shard(const std::string& table, const std::string& column,
                                    long n) const;
  /// Reads the BankFigures through a new connection to pgrange (a fatal failure when it is
  /// refused) and on the shards, prints them ("[ invariant] name=pgrange/shards … (through
  /// pgrange/on the shards`note`)"), and expects what holds whatever pgbench did: each figure
  /// the same through pgrange as on the shards; sum(abalance) = sum(bbalance) = sum(tbalance) =
  /// sum(delta) on the shards; kAccounts accounts; every account, teller and branch on exactly
  /// one shard (with reference tellers and branches: the same rows on every shard, counted
  /// once). The history rows are left to the caller.
  void expect_bank_invariant(const std::string& note, BankFigures* figures);
  /// What a pgbench run without failure shows: exit 0, no error line, transactions processed,
  /// none failed, and pgrange still running.
  void expect_clean(const PgbenchRun& run);

 private:
  std::string set_up_tables(const Options& options);
  /// SPLIT AT and SCATTER of the four tables through pgrange; "" or what went wrong.
  std::string split_and_scatter(bool history);
  /// Every table's ranges, printed; what went wrong when one is on a single shard.
  std::string check_spread(bool history);

  std::unique_ptr<PgServer> shards_[kShards];
  /// Tellers and branches are reference tables (Setup::kInitReference).
  bool reference_ = false;
  ProxyConfig config_;
  std::unique_ptr<ProxyProcess> proxy_;
};

}  // namespace pgrange::testing
