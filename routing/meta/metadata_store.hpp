#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "routing/meta/catalog.hpp"
#include "routing/meta/sequence_block.hpp"
#include "routing/ranges/range_load.hpp"
#include "routing/ranges/range_map.hpp"

namespace pgrange::routing {

/// Everything the metadata store holds, read in one transaction.
struct CatalogDelta;

struct MetadataSnapshot {
  int64_t version = 0;
  std::vector<ShardRecord> shards;
  std::vector<TableDescriptor> tables;
  std::vector<RangeDescriptor> ranges;  ///< sorted by start key
  std::vector<uint64_t> held_ranges;    ///< ranges being moved: writes to them wait
  /// Ranges in a move's cut-over, until the old owner's rows are gone: whole-table reads of
  /// them wait (writes may go on by then: not necessarily in held_ranges).
  std::vector<uint64_t> scan_held_ranges;
  std::vector<ReaderDescriptor> readers;  ///< views and SQL functions made through pgrange
};

/// A long-running operation of the range administration (a range move, …), as SHOW JOBS
/// shows it. status: running, succeeded, failed, canceled.
struct JobRecord {
  int64_t job_id = 0;
  std::string job_type;
  std::string description;
  std::string status;
  double fraction_completed = 0;
  std::string created;   ///< timestamptz as text
  std::string finished;  ///< "" while running
  std::string error;
  std::string instance_id;  ///< the pgrange instance running it
  uint64_t range_id = 0;    ///< a move's range (0: none)
  std::string source;       ///< a move's shards
  std::string target;
  bool cancel_requested = false;
};

/// Thrown by MetadataStore::apply_range_changes when a range it would change is moving (its
/// callers' 55006).
class RangeMovingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Thrown by MetadataStore::add_index when the table has an index of that name already (the
/// caller's 42P07). Not a pqxx::unique_violation, which callers retry as a concurrent change.
class DuplicateIndexError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The durable catalog and range map in a PostgreSQL database (the control plane; libpqxx).
/// Every change is one transaction that bumps the version and sends NOTIFY pgrange_metadata, so
/// other pgrange instances can reload. Control-plane code: methods throw on failure
/// (pqxx::failure or std::runtime_error); callers catch at their boundary.
class MetadataStore {
 public:
  static constexpr const char* kChannel = "pgrange_metadata";
  static constexpr int kSchemaVersion = 15;

  /// Connects (creating the database if its server lacks it) and migrates the schema. On a new
  /// store the range map is one range [/Min, /Max) on `first_shard`.
  static std::unique_ptr<MetadataStore> open(const std::string& dsn,
                                             const std::vector<ShardRecord>& shards);
  ~MetadataStore();

  /// Reads the whole catalog and range map.
  MetadataSnapshot load();
  /// The current version (cheap: one row).
  int64_t version();

  /// Registers a table with a fresh id (from 100, never reused) and returns it.
  TableDescriptor create_table(TableDescriptor table);
  /// A fresh table id (from 100, never reused, shared by every instance).
  uint64_t allocate_table_id();
  /// Registers a table under an id from allocate_table_id() together with the range changes
  /// that give it its own ranges, in one transaction.
  void register_table(const TableDescriptor& table, const std::vector<RangeChange>& changes);
  /// Records a cluster-wide sequence with its settings and state. An existing record of that
  /// name is overwritten with `replace` (a table's own sequence, made anew with it), else kept
  /// (a sequence several tables share).
  void register_sequence(const std::string& schema, const std::string& name,
                         const SequenceState& state, bool replace);
  /// Reads a sequence's state, lets `change` update it (reserve a block, setval, ALTER
  /// SEQUENCE's settings, …) and writes
  /// it back, in one transaction holding the sequence's row: every instance sees each change
  /// whole. 42P01 for a sequence the store does not know; `change`'s error leaves it as it was.
  Result<SequenceBlock> update_sequence(
      const std::string& schema, const std::string& name,
      const std::function<Result<SequenceBlock>(SequenceState&)>& change);
  /// Records a table's columns in table order (after ALTER TABLE changed them).
  void set_table_columns(uint64_t table_id, const std::vector<std::string>& columns);
  /// Makes a table follow the ranges of `root_id` (ALTER TABLE … COLOCATE WITH), once they are
  /// aligned; 0 follows none.
  void set_colocation(uint64_t table_id, uint64_t root_id);
  /// Renames a table (ALTER TABLE … RENAME TO).
  void rename_table(uint64_t table_id, const std::string& schema, const std::string& name);
  /// Replaces the views and SQL functions pgrange knows the bodies of. Bumps the version only
  /// when they change; returns whether they did.
  bool replace_readers(const std::vector<ReaderDescriptor>& readers);
  /// Evaluates a WITH EXPIRATION literal ('…', '…'::timestamptz, '…'::interval; an interval
  /// counts from now) to µs since the Unix epoch.
  Result<int64_t> expiration_micros(const std::string& literal, const std::string& type);

  /// Registers a global secondary index of a table in state kWriteOnly under a fresh index id
  /// (from 2, never reused on that table; index.index_id is ignored) together with the range
  /// changes that give it its own ranges (as apply_range_changes), in one transaction. Returns
  /// the index as registered. Throws DuplicateIndexError if the table has an index of that name.
  IndexDescriptor add_index(uint64_t table_id, IndexDescriptor index,
                            const std::vector<RangeChange>& changes);
  /// Moves an index to `state` (kPublic once it is built).
  void set_index_state(uint64_t table_id, uint32_t index_id, IndexDescriptor::State state);
  /// Forgets an index together with the range changes that merge its ranges away (as
  /// apply_range_changes), in one transaction. Its id is not reused.
  void drop_index(uint64_t table_id, uint32_t index_id, const std::vector<RangeChange>& changes);

  /// Forgets a table and its indexes (its ranges are the caller's to merge away).
  void drop_table(uint64_t table_id);
  /// Replaces a table's key (ALTER TABLE … ADD PRIMARY KEY on an unsharded table).
  void update_table_key(uint64_t table_id, KeySource source, const std::vector<KeyColumnDef>& key);

  /// Writes range changes: every `before` descriptor is deleted and every `after` inserted,
  /// checked against the stored generations (a concurrent writer makes this fail, 40001).
  /// With `hold`, only while that move's hold still stands (else it throws); without, none of
  /// the changed ranges may be moving (RangeMovingError). Returns the version.
  /// A range move's hold, by the instance that took it.
  struct HoldRef {
    uint64_t range_id = 0;
    std::string instance_id;
  };
  int64_t apply_range_changes(const std::vector<RangeChange>& changes,
                              std::optional<HoldRef> hold = std::nullopt);

  /// Range moves across pgrange instances: a hold makes every instance hold new writes to the
  /// range (it throws if the range is moving already), and with `scans` whole-table reads
  /// of it too. Each returns the new version.
  int64_t hold_range(uint64_t range_id, const std::string& target, const std::string& instance_id,
                     bool scans = true);
  /// Extends a hold to whole-table reads (a move's cut-over); throws when it no longer stands.
  int64_t hold_range_scans(const HoldRef& hold);
  /// Lets writes to the range go on while whole-table reads still wait (the map gives it to
  /// its new shard; the old one still has its rows); throws when the hold no longer stands.
  int64_t release_range_writes(const HoldRef& hold);
  int64_t release_range_hold(uint64_t range_id);
  /// Holds whose instance has been silent for `silence` (it died in the middle of a move), or
  /// whose move's job ended (it failed in a way that left rows to clean up).
  std::vector<uint64_t> orphaned_holds(std::chrono::seconds silence);

  /// Jobs (SHOW JOBS): records one in state running and returns its id.
  int64_t create_job(const JobRecord& job);
  /// Records a running job's progress; returns whether CANCEL JOB asked it to stop.
  bool update_job(int64_t job_id, double fraction_completed);
  /// Ends a job: status succeeded, failed or canceled, with the error that ended it.
  void finish_job(int64_t job_id, const std::string& status, const std::string& error);
  /// CANCEL JOB: asks a running job to stop; returns the job (nullopt when there is none).
  std::optional<JobRecord> request_job_cancel(int64_t job_id);
  /// Every job in id order, or the one asked for.
  std::vector<JobRecord> jobs(std::optional<int64_t> job_id = std::nullopt);
  /// Running jobs whose instance has been silent for `silence` (it died running them).
  std::vector<JobRecord> orphaned_jobs(std::chrono::seconds silence);

  /// Records shards (their name and DSN; an existing one's DSN is replaced), in a new version.
  void register_shards(const std::vector<ShardRecord>& shards);

  /// ALTER SHARD … DRAIN / UNDRAIN: marks the shard (a new version: every instance sees it).
  void set_shard_draining(const std::string& shard, bool draining);

  /// Leases: takes (or renews) the lease `name` for `holder` until `duration` from now, unless
  /// another holder's has not expired yet; returns whether `holder` holds it.
  bool take_lease(const std::string& name, const std::string& holder,
                  std::chrono::milliseconds duration);
  /// Gives the lease up if `holder` holds it.
  void release_lease(const std::string& name, const std::string& holder);

  /// Load: replaces what this instance last reported of its requests per range (and the keys
  /// it sampled from them, oldest first).
  void report_load(const std::string& instance_id, const std::vector<RangeRate>& rates);
  /// Every range's requests per second, summed over the instances with a heartbeat in the last
  /// `silence`, by range id (ranges with none left out), with every instance's sampled keys.
  std::vector<RangeRate> range_load(std::chrono::seconds silence);

  /// Instances: each reports the version it serves once its sessions no longer use what that
  /// version changed (and a heartbeat); a move waits until every live instance reported it.
  void report_instance(const std::string& instance_id, int64_t version);
  void heartbeat(const std::string& instance_id);
  void forget_instance(const std::string& instance_id);
  /// True once every instance with a heartbeat in the last few seconds serves `version` or a
  /// newer one; false after `timeout`.
  bool wait_for_instances(int64_t version, std::chrono::milliseconds timeout);
  /// The instances with a heartbeat in the last `silence`.
  std::vector<std::string> live_instances(std::chrono::seconds silence);

  /// Two-phase commit decisions: the first decision recorded for a transaction (by its gid)
  /// stands. Records `decision` ("commit" or "abort") unless one is recorded already, and
  /// returns the one that stands.
  /// With `change` (the catalog side of a transaction block's DDL), the change is made in
  /// the same transaction when the decision that stands is to commit: the catalog and the
  /// decision commit together or not at all. Throws pqxx::serialization_failure (nothing
  /// recorded) when the range map changed since `change` was computed.
  std::string decide(const std::string& gid, const std::string& decision,
                     const std::string& instance_id, const CatalogDelta* change = nullptr);
  /// decide(gid, "commit", instance_id) for many transactions at once, in one metadata commit:
  /// gid → the decision that stands.
  std::map<std::string, std::string> decide_commits(const std::vector<std::string>& gids,
                                                    const std::string& instance_id);
  /// Every recorded decision: gid → decision.
  std::vector<std::pair<std::string, std::string>> decisions();
  void forget_decision(const std::string& gid);
  void forget_decisions(const std::vector<std::string>& gids);

  /// A transaction the client prepared (PREPARE TRANSACTION `client_gid`) whose parts are all
  /// prepared under `gid`: held for the client's COMMIT PREPARED or ROLLBACK PREPARED (decision
  /// "prepared", which recovery leaves alone). Returns "prepared" when recorded, "in use" when
  /// another transaction holds `client_gid`, else the decision that stands for `gid`.
  std::string hold_prepared(const std::string& gid, const std::string& client_gid,
                            const std::string& instance_id);
  /// COMMIT PREPARED (`decision` "commit") or ROLLBACK PREPARED ("abort") of a transaction held
  /// for the client: (gid, the decision that stands), which is `decision` unless the other one
  /// was taken first; nullopt when no transaction is held under `client_gid`.
  std::optional<std::pair<std::string, std::string>> settle_prepared(const std::string& client_gid,
                                                                     const std::string& decision);

 private:
  /// Sets `set` (SQL) on a move's hold; throws when it no longer stands. Returns the version.
  int64_t change_hold(const HoldRef& hold, const std::string& set);

  struct Impl;  // holds the libpqxx connection, so this header needs no libpqxx
  explicit MetadataStore(std::unique_ptr<Impl> impl);
  void migrate(const std::vector<ShardRecord>& shards);

  std::unique_ptr<Impl> impl_;
};

}  // namespace pgrange::routing
