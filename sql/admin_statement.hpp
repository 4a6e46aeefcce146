#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace pgrange::sql {

/// The range-administration statements pgrange answers itself (CockroachDB's syntax).
enum class AdminKind {
  kSplitAt,          ///< ALTER TABLE t SPLIT AT VALUES (…)[, (…)] [WITH EXPIRATION e]
  kUnsplitAt,        ///< ALTER TABLE t UNSPLIT AT VALUES (…)[, (…)]
  kUnsplitAll,       ///< ALTER TABLE t UNSPLIT ALL
  kScatter,          ///< ALTER TABLE t SCATTER
  kRelocate,         ///< ALTER RANGE id RELOCATE TO 'shard'
  kShowRanges,       ///< SHOW RANGES [FROM TABLE t | FROM INDEX t@i | FROM DATABASE d] [WITH …]
  kShowRangeForRow,  ///< SHOW RANGE FROM TABLE t FOR ROW (…)
  kShowShards,       ///< SHOW SHARDS
  kShowHotRanges,    ///< SHOW HOT RANGES
  kShowJobs,         ///< SHOW JOBS, SHOW JOB n (job_id)
  kCancelJob,        ///< CANCEL JOB n
  kImportTable,      ///< IMPORT TABLE t [FROM SHARD 's']: adopt a table made without pgrange
  kColocate,         ///< ALTER TABLE t COLOCATE WITH u: t's ranges follow u's from now on
  kDrainShard,       ///< ALTER SHARD s DRAIN (every range moves off it), ALTER SHARD s UNDRAIN
  // The console (PgBouncer's statements, answered by the proxy itself):
  kShowPools,    ///< SHOW POOLS
  kShowClients,  ///< SHOW CLIENTS
  kShowServers,  ///< SHOW SERVERS
  kShowStats,    ///< SHOW STATS
  kShowConfig,   ///< SHOW CONFIG
  kShowVersion,  ///< SHOW VERSION
  kReload,       ///< RELOAD: read the configuration file again
  kPause,        ///< PAUSE [shard]: new transactions wait, the shard's connections drain
  kResume,       ///< RESUME [shard]
};

/// One value of a VALUES tuple, as written: its literal text, or NULL.
struct AdminValue {
  bool is_null = false;
  std::string text;       ///< the constant's text (numbers as written, strings unquoted)
  std::string cast_type;  ///< the type of an explicit cast ('…'::uuid), lower case, else empty
};

/// What SHOW RANGES lists.
enum class RangeScope { kDatabase, kTable, kIndex };

/// A parsed admin statement.
struct AdminStatement {
  AdminKind kind;
  std::string table;     ///< table name (folded to lower case unless quoted)
  std::string index;     ///< index name for ALTER INDEX t@i / FROM INDEX t@i
  std::string database;  ///< FROM DATABASE d
  RangeScope scope = RangeScope::kDatabase;
  std::vector<std::vector<AdminValue>> rows;  ///< SPLIT/UNSPLIT AT values, FOR ROW values
  std::optional<std::string> expiration;      ///< WITH EXPIRATION expression text ("NULL" kept)
  int64_t range_id = 0;                       ///< ALTER RANGE id
  std::optional<int64_t> job_id;              ///< SHOW JOB n, CANCEL JOB n
  std::string shard;          ///< RELOCATE TO 'shard', IMPORT … FROM SHARD 's', PAUSE s
  std::string colocate_with;  ///< COLOCATE WITH u (as written, qualified or not)
  bool undrain = false;       ///< ALTER SHARD s UNDRAIN
  bool with_details = false;
  bool with_keys = false;
  bool with_indexes = false;
};

/// Whether a statement of this kind changes the ranges or jobs (SPLIT AT, RELOCATE, IMPORT
/// TABLE, CANCEL JOB, …): only users with admin = true may run it. The SHOW statements read.
bool changes_ranges(AdminKind kind);

/// Whether it is one of the console's statements (SHOW POOLS, RELOAD, PAUSE, …): the proxy
/// answers it from its own state, and only users with admin = true may run it.
bool console_statement(AdminKind kind);

/// Whether it is one of the console's SHOW statements, which read only the proxy's own state
/// (so they may run inside a transaction block, as PostgreSQL's SHOW does).
bool console_reads_only(AdminKind kind);

/// The statement's name as a user writes it ("ALTER TABLE … SPLIT AT"), for messages.
std::string_view admin_statement_name(AdminKind kind);

/// Recognises an admin statement before PostgreSQL's grammar sees it (libpg_query cannot parse
/// these). Returns nullopt when `sql` is not one, so it goes the normal way; an Error (42601)
/// when it starts like one but is malformed, naming what was expected.
Result<std::optional<AdminStatement>> parse_admin_statement(std::string_view sql);

}  // namespace pgrange::sql
