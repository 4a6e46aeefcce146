#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tests/support/pg_server.hpp"
#include "tests/support/proxy_process.hpp"

namespace pgrange::testing {

/// Real PostgreSQL 15 shards s1, s2, … with one pgrange in front of them (user app, database app,
/// the metadata store in its default place on s1), and the ways a test looks behind pgrange: the
/// shards directly, and a plain PostgreSQL database "ref" on the first shard's server to compare
/// pgrange's answers with. The destructor stops pgrange, then the shards.
class ShardCluster {
 public:
  /// How to start a cluster.
  struct Options {
    int shards = 3;
    /// Databases made on every shard's server: "app" is the one pgrange uses, "ref" the one
    /// reference() opens.
    std::vector<std::string> databases = {"app"};
    /// Each shard's connection pool in pgrange.
    int pool_size = 8;
    /// More of pgrange's configuration (TOML appended to it), e.g. [[table]] entries.
    std::string extra_toml;
    /// pgrange's pool_mode and worker threads.
    std::string pool_mode = "transaction";
    int workers = 2;
    /// The body of pgrange's [ranges] table (ProxyConfig::ranges: the range manager is off).
    std::optional<std::string> ranges;
  };

  /// Starts the shards and pgrange; throws std::runtime_error (with the log tail) when one of
  /// them does not start.
  static std::unique_ptr<ShardCluster> start(const Options& options);
  ~ShardCluster();
  ShardCluster(const ShardCluster&) = delete;
  ShardCluster& operator=(const ShardCluster&) = delete;

  /// Number of shards.
  int size() const { return static_cast<int>(shards_.size()); }
  /// Shard `i` (0-based; pgrange calls it s<i+1>).
  PgServer& shard(int i) const { return *shards_[i]; }
  /// The pgrange started with the cluster.
  ProxyProcess& proxy() const { return *proxy_; }
  /// Every shard's DSN for database `dbname`, as pgrange's configuration takes them.
  std::vector<std::string> dsns(std::string_view dbname = "app") const;
  /// One more pgrange over the shards, configured as the first (same metadata store). A non-empty
  /// `fault` is put in its environment as PGRANGE_TEST_FAULT (where it dies on purpose).
  std::unique_ptr<ProxyProcess> start_proxy(std::string_view fault = {}) const;
  /// Starts one more shard (s<size()+1>) and restarts the cluster's pgrange with it in its
  /// configuration, as an operator adds a shard. Connections to the old pgrange break.
  void add_shard();
  /// Starts one more shard's server (s<size()+1>, its databases made) without telling pgrange:
  /// for adding it to the configuration and RELOADing. Stopped after pgrange, as the others.
  PgServer& start_shard_server();
  /// One more pgrange whose [ranges] table is `ranges` (its range manager's settings).
  std::unique_ptr<ProxyProcess> start_managing_proxy(const std::string& ranges) const;

  /// A connection to the first pgrange as user app.
  PgConnPtr client() const;
  /// A connection to database app of shard `i`, directly.
  PgConnPtr direct(int i) const;
  /// A connection to the plain PostgreSQL database "ref" on the first shard's server.
  PgConnPtr reference() const;
  /// A number read on every shard directly and added up (NULL as 0); a failed expectation for
  /// a shard where `sql` fails.
  int64_t sum_direct(const std::string& sql) const;
  /// Prepared transactions left on the shards' servers (pg_prepared_xacts).
  int64_t prepared_left() const;

  /// Checks that every row of `table` (a table keyed by one int8 column `id`) is on exactly one
  /// shard, the one pgrange's map (SHOW RANGES through `c`) gives its range; adds a failure for
  /// each of the first few that is not. Returns how many are not; `rows` gets the ids seen.
  int misplaced_rows(PGconn* c, const std::string& table, int64_t* rows = nullptr) const;
  /// Expects what range moves leave behind while they run gone from every shard: replication
  /// slots, publications, prepared transactions.
  void expect_no_move_leftovers() const;
  /// The first value `sql` reads on each shard directly, shard by shard ("<null>" for NULL, the
  /// error message when it fails).
  std::vector<std::string> on_each_shard(const std::string& sql) const;

  /// Where run_setup runs its statements.
  enum class Target { kPgrange, kPgrangeAndReference };
  /// Runs `statements` one after the other through a new connection to pgrange (each also on
  /// reference() right after, with kPgrangeAndReference): "" when all succeed, else which one
  /// failed where, and why. For a suite's set-up, as ASSERT_EQ(cluster.run_setup(…), "").
  std::string run_setup(const std::vector<std::string>& statements,
                        Target target = Target::kPgrange) const;

 private:
  ShardCluster() = default;

  Options options_;
  std::vector<std::unique_ptr<PgServer>> shards_;
  std::unique_ptr<ProxyProcess> proxy_;
};

/// One statement of a script run through pgrange and on PostgreSQL: a simple Query; with
/// `extended`, PQexecParams with `params`; with `prepare`, PQprepare of `sql` under that name;
/// with `execute`, PQexecPrepared of that name with `params` (`sql` then only names it).
struct ScriptStep {
  ScriptStep(const char* s) : sql(s) {}  // NOLINT: scripts are lists of plain strings
  ScriptStep(std::string s, std::vector<std::string> p)
      : sql(std::move(s)), params(std::move(p)), extended(true) {}
  std::string sql;
  std::vector<std::string> params;
  bool extended = false;
  std::string prepare;
  std::string execute;
};

/// A statement for the extended protocol (unnamed statement, text parameters).
ScriptStep ext(std::string sql, std::vector<std::string> params = {});

/// Runs `step` and renders everything a client sees of its answer as text: status, command tag,
/// SQLSTATE, message, column names and rows (NULL as <null>). The rows of a statement with
/// RETURNING are sorted (pgrange returns them shard by shard, PostgreSQL in its scan order),
/// except those of an INSERT … VALUES: PostgreSQL returns them in the order of its rows, and
/// clients rely on it.
std::string answer_text(PGconn* conn, const ScriptStep& step);

}  // namespace pgrange::testing
