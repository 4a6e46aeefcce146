#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace pgrange::config {

/// How long a client keeps a backend connection.
enum class PoolMode { kSession, kTransaction };

/// How a client proves who it is.
enum class AuthMethod { kScramSha256, kMd5, kTrust, kCert };

/// One backend PostgreSQL server (a shard) and its pools (one per role clients log in as).
struct ShardConfig {
  std::string name;
  /// The libpq connection string pgrange's own connections use (DDL of its internal objects,
  /// range moves, recovery): the configured one with the internal role's user and password.
  std::string dsn;
  int pool_size = 20;  ///< per role
  // Parsed from the configured dsn:
  std::string host = "127.0.0.1";
  std::string port = "5432";
  std::string dbname;
  /// The role every client's connections log in as (the dsn's user=, a forced user), with its
  /// password; empty: each client logs in as its own role (or its entry's server_user).
  std::string user;
  std::string password;
  /// TLS to the shard, with libpq's meaning: sslmode disable, allow, prefer (the default),
  /// require, verify-ca or verify-full; the root certificates that verify the server's, and
  /// the client certificate and key pgrange presents (files; "" none).
  std::string sslmode = "prefer";
  std::string sslrootcert;
  std::string sslcert;
  std::string sslkey;
};

/// A user that may connect to pgrange.
struct UserConfig {
  std::string name;
  std::string password;  ///< plaintext, "md5…" hash, or a SCRAM-SHA-256 verifier
  AuthMethod auth = AuthMethod::kScramSha256;
  /// The role this user's connections to the shards log in as, and its password; empty: the
  /// user's own name (logging in with the user's password, or the proof of its SCRAM login).
  std::string server_user;
  std::string server_password;
  /// May run pgrange's admin statements (SPLIT AT, RELOCATE, IMPORT TABLE, …) and read or
  /// change pgrange's own objects on the shards.
  bool admin = false;
  /// The most connections this user may have open to pgrange at once (0: no limit of its own).
  int max_connections = 0;
};

/// A table whose key is given in configuration rather than by a PRIMARY KEY.
struct TableConfig {
  std::string name;
  std::vector<std::string> key;
  /// Where a table made through pgrange starts split: each entry one key (the text of each key
  /// column's value); its ranges are then spread over the shards in turn. Empty: one range.
  std::vector<std::vector<std::string>> split_at;
  /// A reference table: made through pgrange, every shard holds all of its rows (key optional).
  bool reference = false;
  /// Co-located with this table (its key a prefix of this one's): its ranges follow that
  /// table's. Empty: none.
  std::string colocate_with;
};

/// TLS offered to clients.
struct TlsConfig {
  std::string cert;
  std::string key;
  /// Certificates that verify clients' certificates (auth = "cert" users log in with one whose
  /// common name is their name); "": clients are not asked for one.
  std::string client_ca;
  /// Refuse clients that do not ask for TLS (28000).
  bool required = false;
};

/// The range manager ([ranges]): automatic splits, merges and moves of ranges.
struct RangesConfig {
  /// Split ranges bigger than range_max_mb (at their middle key) or busier than split_qps (at
  /// the key that halves their load), and merge small cold neighbours.
  bool auto_split = true;
  /// A range's size limit in MiB (a fraction is allowed: tests use small ones).
  double range_max_mb = 512;
  /// Requests per second (reads and writes, all instances) above which a range splits by load.
  double split_qps = 2500;
  /// How long two neighbours must have been small and cold before they merge; a split younger
  /// than this is never undone.
  std::chrono::seconds merge_delay{300};
  /// Move ranges between shards to even out size and load.
  bool rebalance = true;
  /// How often the range manager looks at the ranges.
  std::chrono::milliseconds check_interval{5000};
  /// Count the requests per range and report them to the metadata store every 2 s (SHOW HOT
  /// RANGES, qps, splits by load); false: nothing is counted (every qps shows 0).
  bool count_load = true;
};

/// The whole pgrange configuration, validated.
struct Config {
  std::string listen_host = "127.0.0.1";
  uint16_t listen_port = 6432;
  std::string database;  ///< the logical database name clients use
  PoolMode pool_mode = PoolMode::kTransaction;
  int workers = 0;  ///< 0 = one per core
  std::string log_level = "info";
  /// "text" (the default) or "json": one JSON object per log line.
  std::string log_format = "text";
  /// Requests that take at least this long are logged with their route (0: none are).
  std::chrono::milliseconds slow_statement{0};
  /// [http] listen: the metrics, health and key-space page endpoint (off unless given).
  bool http_enabled = false;
  std::string http_host;
  uint16_t http_port = 0;
  std::chrono::milliseconds pool_wait_timeout{10000};
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds shutdown_timeout{10000};
  int max_message_size = 64 * 1024 * 1024;
  /// The most client connections pgrange accepts at once (more get 53300).
  int max_client_conn = 1000;
  /// How long a client has to log in; a login that stops half-way is closed then.
  std::chrono::milliseconds authentication_timeout{60000};
  /// How long pgrange waits before it answers a failed login (as PostgreSQL's auth_delay), so
  /// that passwords cannot be guessed at wire speed.
  std::chrono::milliseconds auth_failure_delay{1000};
  /// The most bytes of rows pgrange holds for one query it runs over several shards (the rows
  /// of the tables it brings together for a join, say); past it the query fails with 53200.
  int64_t query_memory = 256LL * 1024 * 1024;
  /// Where a sort in pgrange writes the sorted runs it cannot hold within query_memory ("":
  /// $TMPDIR, else /tmp). The files are removed as they are made.
  std::string temp_directory;
  /// How often pgrange reads the tables' sizes from the shards' catalogs (pg_class), the
  /// estimates it orders the reads of a join by; 0: never (joins are planned without them).
  std::chrono::milliseconds table_sizes_interval{5000};
  /// How many values of a cluster-wide sequence an instance reserves at a time (a crash or
  /// restart leaves the rest of its block unused: a gap, as PostgreSQL's CACHE does).
  int sequence_block_size = 100;
  std::string metadata_dsn;  ///< "": the first shard's server, database pgrange_meta
  /// The role pgrange's own connections to the shards and the metadata store log in as (by
  /// default the user of [metadata] dsn, else of the first shard's dsn), and its password.
  std::string internal_user;
  std::string internal_password;
  /// Users not listed in [[user]]: their password (a SCRAM-SHA-256 verifier or an md5 hash) is
  /// looked up on the first shard by auth_query, $1 the user's name, run as auth_user with
  /// auth_password (by default the internal role), as PgBouncer's auth_query does. Off while
  /// both auth_query and auth_user are empty; auth_query's default is PgBouncer's.
  std::string auth_query;
  std::string auth_user;
  std::string auth_password;
  std::optional<TlsConfig> tls;
  std::vector<ShardConfig> shards;
  std::vector<UserConfig> users;
  std::vector<TableConfig> tables;
  RangesConfig ranges;

  /// The number of worker threads after resolving 0.
  int effective_workers() const;
  /// The user of that name, or nullptr.
  const UserConfig* find_user(std::string_view name) const;
};

/// Parses and validates a TOML document; relative paths resolve against base_dir.
Result<Config> parse_config(std::string_view toml_text, const std::string& base_dir = ".");

/// Reads, parses and validates a TOML file.
Result<Config> load_config(const std::string& path);

/// Parses a libpq connection string into its key/value pairs (validated by libpq itself).
Result<std::vector<std::pair<std::string, std::string>>> parse_dsn(const std::string& dsn);

/// A libpq connection string with one keyword set to `value` (replacing it if present).
std::string with_dsn_keyword(const std::string& dsn, const std::string& keyword,
                             const std::string& value);

}  // namespace pgrange::config
