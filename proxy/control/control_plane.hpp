#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "common/error.hpp"
#include "config/config.hpp"
#include "proxy/asio.hpp"
#include "proxy/control/job_runner.hpp"
#include "proxy/control/thread_call.hpp"
#include "routing/meta/block_catalog.hpp"
#include "routing/meta/cluster_view.hpp"
#include "routing/meta/sequence_block.hpp"
#include "routing/meta/table_description.hpp"
#include "routing/meta/table_sizes.hpp"
#include "routing/moves/range_admin.hpp"
#include "routing/ranges/range_activity.hpp"
#include "routing/ranges/range_load.hpp"
#include "sql/index_statement.hpp"
#include "sql/statement_info.hpp"

namespace pgrange::proxy {

/// The control plane of one pgrange process: the metadata store (libpqxx, blocking, on a thread
/// of its own), the published ClusterView every session routes with, the LISTEN loop that
/// reloads it when another instance changes the store, and the catalog side of DDL.
class ControlPlane : public routing::ClusterControl {
 public:
  explicit ControlPlane(const config::Config& config);
  ~ControlPlane() override;

  /// Starts the control thread and opens (creates, migrates) the metadata store; an unreachable
  /// store is retried every second, and view() is nullptr until it opens.
  Result<void> start();
  /// The metadata store's connection string (/healthz connects to it).
  const std::string& store_dsn() const { return metadata_dsn_; }
  /// Why the metadata store could not be opened (while view() is nullptr).
  std::string unavailable_reason() const;
  void stop();

  std::shared_ptr<const routing::ClusterView> view() const override {
    return view_.load(std::memory_order_acquire);
  }
  /// The version of the view last published (-1 before the first): a cheap check for workers
  /// that cache the view.
  int64_t published_version() const { return published_version_.load(); }
  std::shared_ptr<const routing::ClusterView> reload() override;
  routing::MetadataStore& store() override { return *store_; }
  /// The tables' sizes as the shards' catalogs last said (every few seconds; nullptr before
  /// the first time every shard answered): estimates the planner orders joins by.
  std::shared_ptr<const routing::TableSizes> table_sizes() const {
    return sizes_.load(std::memory_order_acquire);
  }
  routing::RangeActivity& activity() override { return activity_; }
  const std::string& database() const override { return config_.database; }
  const std::string& instance_id() const override { return instance_id_; }

  /// A worker's requests per range (any thread): added on the control thread, reported to the
  /// metadata store as rates every housekeeping round (SHOW HOT RANGES).
  void add_load(routing::RangeCounts counts);

  /// reload() from a thread other than the control thread: run there, waited for (the view as
  /// it is when the control plane is stopping).
  std::shared_ptr<const routing::ClusterView> reload_from_elsewhere();
  /// stop() was called.
  bool stopping() const { return stopping_; }
  /// Where the admin statements that move rows run (JobRunner::runs).
  JobRunner& jobs() { return *jobs_; }

  /// Runs fn on the control thread and resumes the caller on its own executor with the result.
  template <typename T>
  awaitable<T> call(std::function<T()> fn) {
    return call_on<T>(io_, std::move(fn));
  }

  /// The next `count` values of cluster-wide sequence `schema`.`name`, in the order nextval()
  /// would give them, from this instance's reserved block (a new block from the metadata store
  /// when it runs out). Control thread.
  Result<std::vector<int64_t>> next_values(const std::string& schema, const std::string& name,
                                           int64_t count);

  /// setval(schema.name, value, is_called) on a cluster-wide sequence: recorded in the metadata
  /// store, this instance's reserved values of it dropped. Returns `value`. Control thread.
  Result<int64_t> set_sequence(const std::string& schema, const std::string& name, int64_t value,
                               bool is_called);

  /// After DDL that changed sequences on every shard (ALTER SEQUENCE, identity options, TRUNCATE
  /// … RESTART IDENTITY): the cluster-wide ones among them take the shards' new settings, and
  /// their state too where the statement restarted them; this instance's reserved values of
  /// them are dropped (other instances use theirs up, as other sessions do a cached sequence's
  /// on PostgreSQL). Control thread; throws on failure.
  void follow_sequences(const sql::StatementInfo& info, const routing::ClusterView& v);
  /// After a GRANT, REVOKE or change of owner: the tables of the global indexes of the tables
  /// it names (of every table, when it names none) get their tables' privileges again.
  void follow_privileges(const sql::StatementInfo& info, const routing::ClusterView& v);
  /// The same after a transaction block with such statements committed (control thread;
  /// failures are logged: the next GRANT or REVOKE of the table sets them again).
  void follow_privileges(const std::vector<sql::StatementInfo>& infos);
  /// RELOAD adding shards, first step (blocking; control thread): gives each the cluster's
  /// schema and the reference tables' rows from an existing shard (ShardSchema; a shard that
  /// already has tables is left as it is). Nothing else changes, so a failure leaves pgrange
  /// as it was. The caller holds every transaction back meanwhile (PAUSE).
  Result<void> bring_up_shards(const std::vector<config::ShardConfig>& added);
  /// Second step, once every worker has pools for them (control thread): records them in the
  /// metadata store and routes with them from the next view on (new tables and range moves
  /// may use them). A failure to record is logged; the next map change routes with them.
  void join_shards(const std::vector<config::ShardConfig>& added);
  /// Runs fn on the control thread and waits for it (from a thread that is not a worker's:
  /// RELOAD on the main thread).
  template <typename T>
  T run_here(std::function<T()> fn) {
    return wait_on<T>(io_, std::move(fn));
  }
  /// Admin statements (blocking; control thread).
  Result<routing::ResultSet> execute_admin(const sql::AdminStatement& stmt);

  /// The catalog side of a DDL statement that succeeded on every shard (blocking; control
  /// thread). Returns a notice for the client, if any. `hash_buckets` > 0: the CREATE TABLE's
  /// primary key was hash-sharded into that many buckets (its USING HASH stripped).
  Result<std::string> after_ddl(const sql::StatementInfo& info, uint32_t hash_buckets = 0);

  /// CREATE [UNIQUE] INDEX … of a global secondary index on a pgrange table (control_index.cpp):
  /// its backend table "<table>@<index>" on every shard, its catalog entry and range, the
  /// trigger that reports writes, the entries of the rows already there; the index is used by
  /// lookups once all that is done. Everything is undone if a step fails (a UNIQUE index's
  /// duplicate values: 23505). Returns a notice for the client, if any.
  Result<std::string> create_global_index(const sql::IndexSpec& spec);
  /// DROP INDEX of a global index: its catalog entry, its ranges (merged into their left
  /// neighbour), the trigger (made again without it) and its backend tables. Throws on failure.
  void drop_global_index(uint64_t table_id, uint32_t index_id);

  /// Checks a DDL statement before it is broadcast: what pgrange cannot follow is refused.
  Result<void> check_ddl(const sql::StatementInfo& info) const;
  /// …against view `v` (a transaction block's, with its own DDL in it).
  Result<void> check_ddl(const sql::StatementInfo& info, const routing::ClusterView& v) const;
  /// The part of check_ddl about PRIMARY KEY, UNIQUE and EXCLUDE constraints
  /// (control_constraint.cpp): over several shards, a constraint of a table with a key that two
  /// rows on two shards could violate is refused unless pgrange enforces it as a global index (a
  /// UNIQUE one).
  Result<void> check_constraints(const sql::StatementInfo& info,
                                 const routing::ClusterView& v) const;
  /// What pgrange cannot do yet inside a transaction block (0A000): DDL that builds or drops
  /// global indexes, which run outside any transaction (control_constraint.cpp).
  std::optional<Error> block_ddl_refusal(const sql::StatementInfo& info,
                                         const routing::ClusterView& v) const;
  /// …and about FOREIGN KEYs: over several shards, refused when declared (0A000).
  Result<void> check_foreign_keys(const sql::StatementInfo& info,
                                  const routing::ClusterView& v) const;
  /// …and about co-location: a CREATE TABLE the configuration co-locates with another table
  /// whose key cannot follow that table's (0A000), or with a table that does not exist.
  Result<void> check_colocation(const sql::StatementInfo& info,
                                const routing::ClusterView& v) const;

  /// Two-phase commit of a write across shards. A new gid, registered as in flight until
  /// end_distributed (recovery leaves it alone meanwhile). Any thread.
  std::string begin_distributed();
  /// How many two-phase commits this process began.
  uint64_t two_phase_commits() const { return next_transaction_.load() - 1; }
  /// How many prepared transactions recovery finished (committed or rolled back).
  uint64_t recovered_transactions() const { return recovered_.load(std::memory_order_relaxed); }
  /// The range changes this process applied (splits, merges, moves).
  const routing::RangeAdmin::ChangeCounts& range_changes() const {
    return routing::RangeAdmin::change_counts();
  }
  /// With `forget`: every part committed, and the decision record is deleted with others' at
  /// the next housekeeping (one metadata transaction for many).
  void end_distributed(const std::string& gid, bool forget = false);
  bool in_flight(const std::string& gid) const;
  /// Announces that decide_commit(gid) follows (without a block's catalog change): the
  /// decisions announced by the time the control thread gets to the first of them are
  /// recorded together, in one metadata commit. Any thread.
  void propose_commit(const std::string& gid);
  /// Records the decision to commit `gid` in the metadata store; returns the decision that
  /// stands ("abort" when recovery decided first). Control thread.
  /// With `block`, the catalog side of the transaction block's DDL is recorded with the
  /// decision (in the same metadata store transaction), and the view reloaded.
  Result<std::string> decide_commit(const std::string& gid,
                                    const routing::BlockCatalog* block = nullptr);
  /// A table made by CREATE TABLE inside a transaction block, as the block's connection
  /// described it: its id taken, its first ranges placed, its sequences recorded, but not in
  /// the catalog until the block commits (decide_commit). Control thread.
  /// With `parent`: a partition or inheritance child of it, placed by its root's ranges.
  Result<routing::NewTable> plan_block_table(routing::TableDescription described,
                                             uint32_t hash_buckets,
                                             const routing::TableDescriptor* parent = nullptr);
  /// The configured key columns of a table (its `[[table]] key`), for describe_table_rows.
  routing::ConfiguredKey configured_key() const;
  /// PREPARE TRANSACTION `client_gid` of a transaction whose parts are prepared under `gid`:
  /// held for the client (MetadataStore::hold_prepared). Control thread.
  Result<std::string> hold_prepared(const std::string& gid, const std::string& client_gid);
  /// COMMIT PREPARED / ROLLBACK PREPARED `client_gid`: (gid, the decision that stands), or
  /// nullopt when pgrange holds no such transaction. Control thread.
  Result<std::optional<std::pair<std::string, std::string>>> settle_prepared(
      const std::string& client_gid, bool commit);
  /// Forgets a decision every shard has applied. Control thread; failures are only logged
  /// (recovery forgets it later).
  void forget_decision(const std::string& gid);

 private:
  void listen_loop();
  /// Every few seconds, on a thread of its own: the tables' sizes from every shard's pg_class.
  void size_loop();
  /// Gives shards just added to the configuration the cluster's schema (ShardSchema).
  void bring_up_new_shards(const routing::ClusterView& view);
  /// The shards' names and DSNs (any thread).
  std::vector<std::pair<std::string, std::string>> shard_dsns() const;
  void open_store();
  /// Every few seconds: finish the moves of instances that died holding a range.
  void schedule_housekeeping();
  /// Publishes a freshly loaded view: holds new range moves, lets go of finished ones, waits
  /// for this instance's sessions to stop using what moved, then reports the version served.
  void publish(std::shared_ptr<const routing::ClusterView> next);
  /// Reports drain_version_ once no session uses what drains_ lists any more (checked again
  /// every 2 ms, on the control thread, until drain_deadline_).
  void check_drains();
  Result<std::string> register_table(const sql::StatementInfo& info, uint32_t hash_buckets);
  /// The encoded split keys a new table starts with: a hash-sharded table's buckets, and those
  /// the configuration gives (`[[table]] split_at`).
  Result<std::vector<std::string>> configured_splits(const routing::TableDescriptor& table) const;
  /// The configuration declares the table a reference table.
  bool configured_reference(const routing::TableDescriptor& table) const;
  /// The table the configuration co-locates the table with (`colocate_with`), if any.
  std::optional<std::string> configured_colocation(const routing::TableDescriptor& table) const;
  /// Registers a described table with its own range on `shard` (-1: the least-loaded shard;
  /// with configured split points, range i goes to shard i, in turn from the first).
  Result<routing::TableDescriptor> register_described(routing::TableDescription described,
                                                      int shard);
  /// Where a new table's first ranges go, on view `v` (see register_described).
  Result<routing::NewTable> place_new_table(routing::TableDescriptor table, int shard,
                                            const routing::ClusterView& v);
  /// Records the sequences of a table's generated keys in the metadata store with their
  /// settings and state as a shard described them (`states`, in the order of
  /// table.generated; control_sequence.cpp). Throws on failure.
  void register_sequences(const routing::TableDescriptor& table,
                          const std::vector<routing::SequenceState>& states);
  /// Re-reads the views and LANGUAGE sql functions of the first shard's catalog and records
  /// what their bodies read, write and call (control_readers.cpp). Throws on failure.
  void refresh_readers();
  /// After CREATE TABLE of a table with a key over several shards: each UNIQUE constraint
  /// whose columns do not contain the key becomes a global index of the same name (its shards'
  /// constraints dropped). On failure the table is dropped (catalog and shards) and the error
  /// returned (control_constraint.cpp).
  Result<void> make_unique_constraints_global(const sql::TableRef& target);
  /// IMPORT TABLE: adopts a table that exists on the shards but was made without pgrange.
  Result<routing::ResultSet> import_table(const sql::AdminStatement& stmt);
  Result<std::string> rekey_table(const routing::TableDescriptor& table);
  /// Runs `sql` in a transaction on every shard; throws the first failure unless
  /// `ignore_errors` (then they are logged).
  void run_on_every_shard(const std::string& sql, bool ignore_errors);
  /// Drops a dropped table's index backend tables and trigger function from every shard.
  void drop_index_tables(const routing::TableDescriptor& table);
  /// The key of a table from the first shard's catalog: the configured key columns, else the
  /// primary key. kUnsharded with a reason when there is none or a type is not supported.
  Result<routing::TableDescription> describe_table(const std::string& schema,
                                                   const std::string& name, size_t shard = 0);

  /// The configuration pgrange started with, and the shards RELOAD added since (control
  /// thread; shards_mu_ when changing the shards, which the sizer reads).
  config::Config config_;
  mutable std::mutex shards_mu_;
  std::string metadata_dsn_;
  std::vector<std::string> shard_order_;
  std::unique_ptr<routing::MetadataStore> store_;
  std::atomic<std::shared_ptr<const routing::ClusterView>> view_;
  std::atomic<int64_t> published_version_{-1};
  routing::RangeActivity activity_;
  std::unique_ptr<routing::RangeAdmin> admin_;
  std::atomic<uint64_t> recovered_{0};
  std::unique_ptr<JobRunner> jobs_;
  asio::io_context io_{1};
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  std::thread thread_;
  std::thread listener_;
  std::thread sizer_;
  std::atomic<std::shared_ptr<const routing::TableSizes>> sizes_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> reload_queued_{false};
  asio::steady_timer retry_{io_};
  asio::steady_timer housekeeping_{io_};
  /// What this instance's sessions must stop using before it reports drain_version_.
  struct Drain {
    std::string start, end;
    int shard = -1;
    routing::RangeActivity::Waiting waiting;
  };
  std::vector<Drain> drains_;
  routing::RangeLoad load_;
  std::chrono::steady_clock::time_point load_ticked_ = std::chrono::steady_clock::now();
  int64_t drain_version_ = -1;
  std::chrono::steady_clock::time_point drain_deadline_;
  asio::steady_timer drain_timer_{io_};
  bool open_failed_ = false;
  mutable std::mutex in_flight_mu_;
  std::set<std::string> in_flight_;
  std::vector<std::string> forgettable_;  ///< decisions every part applied (under in_flight_mu_)
  std::vector<std::string> proposed_;     ///< propose_commit's gids not decided yet (in_flight_mu_)
  std::map<std::string, std::string> decided_;  ///< decided with another's; control thread
  std::atomic<uint64_t> next_transaction_{1};
  mutable std::mutex error_mu_;
  std::string last_open_error_;
  size_t next_shard_ = 0;
  /// This instance's reserved values of each cluster-wide sequence ("schema.name").
  std::map<std::string, routing::SequenceCache> sequence_caches_;
  std::string instance_id_;  ///< this process in pgrange_instances
};

/// The metadata store's connection string: [metadata] dsn, else the first shard's server with
/// database pgrange_meta.
std::string metadata_dsn(const config::Config& config);

}  // namespace pgrange::proxy
