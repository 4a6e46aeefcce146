#pragma once

#include <boost/container/deque.hpp>
#include <boost/container/options.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/error.hpp"
#include "proxy/asio.hpp"
#include "proxy/backend/backend_connection.hpp"
#include "proxy/backend/cancel_registry.hpp"
#include "proxy/exec/copy_in.hpp"
#include "proxy/exec/gather_run.hpp"
#include "proxy/exec/insert_parts.hpp"
#include "proxy/exec/key_move.hpp"
#include "proxy/exec/merge_build.hpp"
#include "proxy/exec/merged_cursor.hpp"
#include "proxy/observe/proxy_snapshot.hpp"
#include "proxy/observe/worker_stats.hpp"
#include "proxy/session/client_channel.hpp"
#include "proxy/settings.hpp"
#include "proxy/wire/byte_buffer.hpp"
#include "routing/merge/merge_rows.hpp"
#include "routing/merge/result_set.hpp"
#include "routing/meta/block_catalog.hpp"
#include "routing/meta/table_description.hpp"
#include "routing/plan/gather_plan.hpp"
#include "routing/plan/router.hpp"
#include "routing/plan/statement_plan.hpp"
#include "routing/ranges/range_activity.hpp"
#include "sql/admin_statement.hpp"
#include "sql/cursor_statement.hpp"
#include "sql/index_statement.hpp"
#include "sql/merge_query.hpp"
#include "sql/modifying_with.hpp"
#include "sql/sequence_call.hpp"
#include "sql/session_statement.hpp"
#include "sql/statement_info.hpp"

namespace pgrange::proxy {

class Worker;

/// One client connection from startup to Terminate: authentication, then the message loop that
/// forwards the client's messages to a pooled backend and streams the replies back, keeping
/// session state (SET, prepared statements) intact across backends in transaction pooling.

class ClientSession : public std::enable_shared_from_this<ClientSession> {
 public:
  ClientSession(Worker& worker, tcp::socket socket);
  ~ClientSession();

  /// Runs the session to its end.
  awaitable<void> run();

  /// Ends the session after its current transaction (used when pgrange shuts down).
  void drain();

  /// The session as SHOW CLIENTS lists it (on its worker's thread; client_stats.cpp).
  ClientRow describe() const;

 private:
  /// The settings the session started with (RELOAD changes later sessions').
  const config::Config& config() const { return settings_->config; }
  /// An ErrorResponse for the client (proxy::write_error), counted by SQLSTATE for the metrics.
  void write_error(std::string& out, const Error& e);
  /// ReadyForQuery for the client (proxy::write_ready_for_query): the end of a request, counted
  /// with its route kind and time, logged when slow (client_stats.cpp).
  void write_ready_for_query(std::string& out, char status);
  /// The end of a request whose ReadyForQuery the shard sent and the client gets as it is.
  void request_done(char status);
  /// Counts a shard's ReadyForQuery or ErrorResponse the backend loop read (`forwarded`: the
  /// client gets it).
  void count_backend_message(BackendConnection& conn, char type, std::string_view body,
                             bool forwarded);
  /// A client message that starts a request (Query, or the first after a Sync).
  void request_started() {
    if (request_start_ == std::chrono::steady_clock::time_point{}) {
      request_start_ = std::chrono::steady_clock::now();
      last_request_ = request_start_;
    }
  }
  /// The route kind of the request the session plans (and, when slow statements are logged,
  /// what the log line says of it).
  void note_route(const routing::StatementPlan& p, std::string_view text);
  void log_slow_request(uint64_t us);
  /// What a request sent to the backend will produce, in order (protocol §55.2.3: responses
  /// come in the order of requests; after an error, everything until Sync is skipped).
  enum class Pending : uint8_t {
    kParse,         ///< the client's Parse: forward ParseComplete
    kSwallowParse,  ///< a Parse pgrange added: hide its ParseComplete
    kBind,
    kDescribe,
    kExecute,
    kClose,
    kSync,
    kQuery,           ///< simple Query: ends at ReadyForQuery
    kFunctionCall,    ///< FunctionCall: ends at ReadyForQuery
    kSwallowQuery,    ///< a Query pgrange added (session state sync): hide everything
    kSyntheticParse,  ///< answer ParseComplete without the backend (statement already there)
    kSyntheticClose,  ///< answer CloseComplete without the backend
    kSyntheticError,  ///< answer an ErrorResponse pgrange raised (payload holds it)
    kSyntheticReply,  ///< answer messages pgrange made or relayed (payload holds them)
    kSyntheticQuery,  ///< answer a whole simple Query without the backend (payload + RFQ)
  };
  /// Whether pgrange answers an entry of this kind itself (no connection's reply is due).
  static bool answered_by_pgrange(Pending kind) {
    return kind == Pending::kSyntheticParse || kind == Pending::kSyntheticClose ||
           kind == Pending::kSyntheticError || kind == Pending::kSyntheticReply ||
           kind == Pending::kSyntheticQuery;
  }
  struct PendingEntry {
    Pending kind;
    bool error = false;   ///< an ErrorResponse came for this Query
    bool raised = false;  ///< a statement pgrange made fail on purpose: hide where it was raised
    bool hidden = false;  ///< a request pgrange added (Bind, Execute, Close): hide its answer
    /// A Query or Execute of COMMIT (END, PREPARE TRANSACTION) inside a transaction block: if
    /// the connection is lost under it, whether it committed is unknown.
    bool ends_block = false;
    /// kSwallowQuery: failing because the transaction is aborted (25P02) is expected.
    bool tolerate_aborted = false;
    /// kDescribe of a statement with parameters pgrange fills: hidden from its
    /// ParameterDescription.
    int16_t made_params = 0;
    std::string name;                         ///< backend statement name for Parse entries
    std::string client_name;                  ///< the client's statement name for Parse entries
    std::string payload;                      ///< bytes a synthetic entry sends
    std::vector<sql::SessionEffect> effects;  ///< session effects of a Query or Execute
    std::vector<std::string> tags;     ///< CommandComplete tags of a Query, in statement order
    uint32_t completions = 0;          ///< CommandCompletes seen for a Query
    std::vector<uint8_t> tag_actions;  ///< per CommandComplete: 0 forward, 1 hide, 2 as RESET
  };
  /// Completed statements of a sync point: their tags and session effects.
  using StatementLog = std::vector<std::pair<std::string, std::vector<sql::SessionEffect>>>;
  /// A client's named prepared statement.
  using Analysis = std::shared_ptr<const Result<std::vector<sql::StatementInfo>>>;
  struct ClientStatement {
    std::string backend_name;
    Analysis analysis;                        ///< for routing each Bind with the map of that moment
    std::string parse_tail;                   ///< query text, NUL, parameter count and types
    std::vector<sql::SessionEffect> effects;  ///< what executing it does to the session
  };

  /// How long a statement waits for a move of a range it writes before it fails (55006).
  static constexpr std::chrono::seconds kMoveWaitLimit{30};
  /// How one client message is routed (routing/plan/statement_plan.hpp).
  using Plan = routing::StatementPlan;
  /// CREATE INDEX through pgrange: a global index on a table with a key (unless WITH (local)),
  /// else an ordinary index on every shard.
  Plan plan_create_index(char type, sql::IndexSpec spec);
  /// DROP INDEX naming global indexes (nullopt: none, the shards drop what they have).
  std::optional<Plan> plan_drop_index(char type, const Analysis& analysis);
  /// ALTER TABLE … ADD [CONSTRAINT name] UNIQUE (…) on a table over several shards whose
  /// columns do not contain its key (a global index, as CREATE UNIQUE INDEX makes), or …
  /// DROP CONSTRAINT of such a constraint (its global index dropped); nullopt for any other
  /// ALTER TABLE.
  std::optional<Plan> plan_alter_constraint(char type, const Analysis& analysis);
  struct ExtendedMerge;
  /// Runs CREATE INDEX of a global index or DROP INDEX of global ones (control_index.cpp); for
  /// an extended-protocol Execute when `ext` is given.
  awaitable<bool> run_index_ddl(const Plan& plan, ExtendedMerge* ext = nullptr);
  /// EXPLAIN [options] statement, when the statement involves pgrange tables.
  std::optional<Plan> plan_explain(std::string_view sql, bool in_block);
  /// Answers an EXPLAIN: pgrange's plan (spans, ranges, shards, merge), then each shard's own
  /// EXPLAIN of what it would run.
  awaitable<bool> run_explain(const Plan& plan);
  /// Plans a Query ('Q') or Parse ('P') text, or a Bind ('B') of an analysed statement.
  Plan plan_text(char type, std::string_view sql);
  /// `p` (kWait: a range the statement writes is moving) planned again by `plan` every 5 ms
  /// until the move lets go of the range; past kMoveWaitLimit a refusal (55006).
  awaitable<Plan> wait_out_moves(Plan p, std::function<Plan()> plan);
  /// The parameters of a Bind body after its portal and statement names (they point into
  /// `rest`), with the types its statement's Parse gave them (`parameter_types`: the Parse's
  /// tail after its text); nullopt when it is malformed.
  static std::optional<routing::BindParams> bind_params(std::string_view rest,
                                                        std::string_view parameter_types = {});
  /// `text` is the statement text (for planning a merge over several shards), when known.
  Plan plan_analysis(char type, const Analysis& analysis,
                     const routing::BindParams* params = nullptr, std::string_view text = {});
  /// COPY (SELECT …) TO STDOUT (a simple query): its query planned as that SELECT; on one
  /// shard the COPY goes there whole (kPass), over several the query's tree runs under the
  /// COPY's encoding (Plan::copy_query). nullopt when it is no such COPY: planned as any COPY.
  std::optional<Plan> plan_copy_query(const Analysis& analysis, std::string_view text);
  /// What of this session decides how a statement runs (routing::choose_kind).
  routing::SessionState session_state() const;
  /// Registers the plan's range uses for the open transaction; kWait when a move holds one
  /// of them or the map changed meanwhile.
  Plan hold_ranges(Plan p);
  /// Whether a relation a statement names is one of the session's temporary relations: named
  /// in pg_temp, made temporary by the statement itself, or among temp_names_.
  bool names_temp(const sql::StatementInfo& s, const sql::TableRef& ref) const;
  /// Whether any statement names one of the session's temporary relations.
  bool touches_temp(const std::vector<sql::StatementInfo>& infos) const;
  /// Asks the session's connection which of the unqualified names in `analysis` that matter
  /// (pgrange tables' names, names in DDL) are temporary relations there now (temp_names_);
  /// the error to refuse the statement with, if any (client_temp.cpp).
  awaitable<std::optional<Error>> resolve_temp_names(const Analysis& analysis);
  /// A statement naming temporary relations: on the session's connection, DDL included, unless
  /// it also needs rows of pgrange tables from other shards (refused, 0A000).
  Plan plan_temp(char type, const Analysis& analysis, const routing::BindParams* params);
  void leave_ranges();
  /// The tables' sizes the shards last reported (nullptr: not known yet), for planning joins.
  std::shared_ptr<const routing::TableSizes> table_sizes() const;
  /// The key columns an INSERT leaves to a default pgrange makes, and how many values each needs.
  struct KeyFill {
    routing::TableDescriptor table;
    std::vector<std::pair<routing::GeneratedKey, size_t>> columns;
  };
  /// Whether the one statement `sql` is an INSERT that leaves keys pgrange makes to their
  /// defaults (client_generated_key.cpp): nullopt when not; PostgreSQL's 428C9 for a value
  /// given to a GENERATED ALWAYS key without OVERRIDING SYSTEM VALUE; 0A000 for rows pgrange
  /// cannot give the values (INSERT … SELECT leaving the key out).
  Result<std::optional<KeyFill>> generated_key_fill(std::string_view sql);
  /// The values for the keys of `fill`, column by column, row by row, as text (sequence values
  /// reserved by the control plane, random uuids); the session's currval/lastval follow.
  awaitable<Result<std::vector<std::vector<std::string>>>> make_keys(const KeyFill& fill);
  /// The query string `sql` with the values made written into each of its INSERTs that leaves
  /// keys pgrange makes to their defaults; nullopt when none does. A coroutine: where every
  /// query passes (route_message) a text without the word INSERT does not call it.
  awaitable<Result<std::optional<std::string>>> fill_generated_keys(std::string_view sql);
  /// A COPY FROM into a table whose key pgrange makes, without that column: refused (0A000),
  /// since the shards' own defaults would make keys pgrange also hands out.
  /// `kw`: the statement's leading keyword (sql::leading_keyword).
  std::optional<Error> copy_leaves_key(std::string_view kw, std::string_view sql);
  /// A sequence function call on a cluster-wide sequence that pgrange answers: the call of a
  /// `SELECT f(…)` of its own, and the sequence ("schema.name"; empty for lastval).
  struct SequenceAnswer {
    sql::SequenceCall call;
    std::string sequence;
  };
  /// Whether `sql` calls nextval, currval, setval or lastval on a cluster-wide sequence
  /// (client_sequence.cpp): nullopt when not; the call when pgrange answers it; 0A000 when the
  /// call is part of something else.
  Result<std::optional<SequenceAnswer>> sequence_answer(std::string_view sql);
  /// The value that call gives, as PostgreSQL's (nextval reserves it, currval/lastval are the
  /// session's: 55000 before its first value; setval sets it).
  awaitable<Result<int64_t>> sequence_value(const SequenceAnswer& answer);
  /// A simple-protocol statement calling a sequence function on a cluster-wide sequence:
  /// answered by pgrange, or refused. False when it is not such a statement.
  awaitable<bool> answer_sequence_call(std::string_view sql, std::string& out, bool& ok);
  /// A statement prepared through the extended protocol to which pgrange gives the values it
  /// makes as parameters after the client's own: the keys an INSERT leaves to their defaults
  /// (one per row and column), or the value of the sequence function a SELECT calls.
  struct MadeParams {
    int16_t client_params = 0;  ///< what the client binds
    int16_t made = 0;           ///< what pgrange adds
    std::optional<KeyFill> keys;
    std::optional<SequenceAnswer> sequence;
  };
  /// Through the extended protocol, a Parse of such a statement gets its text with the
  /// parameters added, and each Bind of it the values (client_generated_key.cpp). Sets
  /// rewritten_message_ to the message to use instead; false when the message was refused.
  awaitable<bool> add_made_params(char type, std::string_view body, std::string& out, bool& ok);
  /// Routes one client message before it is dispatched. Returns false when it was consumed
  /// here (answered, refused or run specially); may suspend.
  awaitable<bool> route_message(char type, std::string_view body, std::string_view raw,
                                std::string& out, bool& ok);
  /// Answers the message with pgrange's error `e`; the transaction it is in (the attached
  /// connection's, a deferred BEGIN's, a coordinated one) aborts as PostgreSQL's would, and
  /// after an extended-protocol message everything up to the Sync is skipped.
  bool refuse(char type, const Error& e, std::string& out);
  /// The analysis of the statement a Bind binds (nullptr when there is none).
  Analysis bound_analysis(std::string_view bind_body) const;
  /// The text of the statement a Bind binds ("" when there is none).
  std::string_view bound_text(std::string_view bind_body) const;
  /// Whether `sql` is an INSERT … SELECT leaving out a key pgrange makes: the shards' own
  /// defaults must never make it, so pgrange runs it (expand_insert_select) or refuses it.
  bool leaves_made_key_to_select(std::string_view sql);
  /// `ext`: bound through the extended protocol (run at its Execute).
  awaitable<bool> run_admin(const sql::AdminStatement& stmt, ExtendedMerge* ext = nullptr);
  /// A statement of the console (client_console.cpp); `notice`: what to tell the client.
  awaitable<Result<routing::ResultSet>> run_console(const sql::AdminStatement& stmt,
                                                    std::string& notice);
  /// Brings a pooled connection to the client's session settings and sends a simple Query.
  awaitable<std::optional<Error>> start_query(BackendConnection& conn, const std::string& sql);
  /// Runs DDL on every shard, then the catalog follows (ControlPlane::after_ddl); for an
  /// extended-protocol Execute when `ext` is given (no ReadyForQuery: its Sync brings it).
  /// What the shards get for DDL: a Query, or through the extended protocol Parse/Bind/Execute/
  /// Sync of it with the client's parameters (PostgreSQL refuses them in most DDL, and the
  /// client sees a shard's own words for it).
  static std::string utility_request(std::string_view sql, const ExtendedMerge* ext);
  awaitable<bool> run_broadcast(std::string_view sql, const std::vector<sql::StatementInfo>& infos,
                                ExtendedMerge* ext = nullptr);
  /// The start of the answer to a statement pgrange runs itself at an extended-protocol
  /// Execute (`ext`; nothing for a simple Query): what was answered before it (ParseComplete),
  /// its BindComplete, NoData for a Describe of its portal.
  void begin_answer(ExtendedMerge* ext, std::string& out);
  /// Sends the answer: ReadyForQuery ends a simple Query's; after an Execute that failed,
  /// everything up to the Sync is skipped.
  void end_answer(ExtendedMerge* ext, bool failed, std::string& out);
  /// Refuses an extended-protocol message while a connection is attached: a statement made to
  /// fail there raises `e`, so that the transaction the connection holds (a block, or the
  /// implicit one of the pipeline up to its Sync) aborts as PostgreSQL's would.
  bool fail_on_backend(const Error& e, std::string& out);
  /// PostgreSQL's refusal (08P01) of a Bind pgrange answers whose parameter count is not the
  /// one the statement was parsed with.
  std::optional<Error> bind_count_error(const ExtendedMerge& m, std::string_view bind_body) const;
  /// Whether a statement's text is DDL pgrange runs on every shard or in its catalog (planned
  /// from its text at each Bind).
  bool runs_as_ddl(std::string_view sql);
  /// Whether `sql` is one of pgrange's admin statements (SPLIT AT, SHOW RANGES, …), or
  /// malformed as one.
  static bool admin_text(std::string_view sql);
  /// A SELECT over several shards bound through the extended protocol: pgrange answered its
  /// Bind and runs it on the shards at its Execute.
  struct ExtendedMerge {
    std::string portal;
    std::string parameter_types;  ///< the statement's Parse tail after its text
    std::string bind_rest;        ///< the Bind body after the portal and statement names
    std::shared_ptr<const Result<sql::MergeQuery>> merge;
    std::shared_ptr<const routing::GatherPlan> gather;  ///< instead of `merge`
    /// A write reading tables from other shards: what reads them (Plan::gathered_write).
    std::shared_ptr<const routing::GatherPlan> write_gather;
    /// A data-modifying WITH over several shards (run_bound_modifying_with).
    bool modifying_with = false;
    routing::Route route;
    bool describe = false;       ///< the client asked for the portal's RowDescription
    bool bind_answered = false;  ///< BindComplete already sent
    bool failed = false;         ///< run_read answered an error
    /// A statement of a coordinated transaction (not a merge): its plan and text.
    std::optional<Plan> coordinated;
    /// BEGIN, COMMIT or ROLLBACK pgrange answers without a connection (kBegin, kEnd).
    std::optional<Plan> transaction;
    /// DDL pgrange runs at the Execute (kBroadcast, kCreateIndex, kDropIndex).
    std::optional<Plan> utility;
    /// CREATE TABLE … AS, SELECT … INTO or INSERT … SELECT bound without parameters, which
    /// pgrange runs at the Execute as it runs them for a Query (client_create_as.cpp).
    bool as_query = false;
    /// DECLARE, FETCH, MOVE or CLOSE of a cursor pgrange reads over several shards
    /// (client_cursor.cpp), run at the Execute; a DECLARE's query as its Bind planned it.
    bool cursor = false;
    std::optional<Plan> cursor_query;
    std::string statement_text;
    /// The client bound a named statement (prepared once, run many times): a shard of a
    /// coordinated transaction may keep it prepared too.
    bool named = false;
  };
  /// One shard's connection in a transaction pgrange runs over several shards.
  struct TxnPart {
    int shard = 0;
    std::shared_ptr<BackendConnection> conn;
    bool in_transaction = false;  ///< a transaction is open there
    bool prepared = false;        ///< PREPARE TRANSACTION succeeded there
    bool broken = false;          ///< the connection failed
  };
  /// Ends a transaction over the parts: with `commit`, a plain COMMIT on one shard, else
  /// two-phase commit (PREPARE TRANSACTION on each, the decision recorded in the metadata
  /// store, COMMIT PREPARED on each); without, or after a failure before the decision, a
  /// rollback everywhere. Returns the error for the client, if any; releases the connections.
  /// With `client_gid` (the client's PREPARE TRANSACTION): every part is prepared and the
  /// transaction held under that name for the client's COMMIT PREPARED or ROLLBACK PREPARED.
  awaitable<std::optional<Error>> end_transaction(std::vector<TxnPart>& parts, bool commit,
                                                  const routing::BlockCatalog* block = nullptr,
                                                  const std::string* client_gid = nullptr);
  /// Ends with COMMIT the parts of a transaction about to commit that wrote nothing (those
  /// its server did not report a write on are asked), all at once; the error that fails the
  /// transaction, if one of them fails to commit.
  awaitable<std::optional<Error>> commit_readers(std::vector<TxnPart>& parts);
  /// The connection on a shard in the current statement's transaction (opened there if new).
  using PartOpener = std::function<awaitable<Result<BackendConnection*>>(int)>;
  /// Writes the index entries of the rows the shards reported (the index notes `sources` took
  /// since the last call) on the shards owning them, through `part_on`; the error that fails
  /// the transaction, if any (a UNIQUE index's 23505 among them).
  awaitable<std::optional<Error>> write_index_entries(
      const std::vector<BackendConnection*>& sources, const PartOpener& part_on);
  /// …for the coordinated transaction (coord_), which gains a part on each new shard.
  awaitable<std::optional<Error>> write_coordinated_index_entries();
  /// …for a transaction over `parts`, which gains a part (BEGIN) on each new shard it writes.
  awaitable<std::optional<Error>> write_index_entries(std::vector<TxnPart>& parts);
  /// Runs an UPDATE assigning a key column (route.moves_keys, client_key_move.cpp) on the
  /// route's shards and moves each row whose new key another shard owns there, in the
  /// coordinated transaction. `ext`: bound through the extended protocol (its parameters,
  /// result formats and Describe).
  awaitable<exec::KeyMoveAnswer> run_key_move(const std::string& text,
                                              const sql::StatementInfo& info,
                                              const routing::Route& route,
                                              const ExtendedMerge* ext);
  /// A transaction block over several shards: pgrange holds a connection in the transaction on
  /// each shard it touched and runs the client's statements itself; COMMIT is a two-phase
  /// commit. Simple protocol only.
  struct Coordinated {
    std::map<int, std::shared_ptr<BackendConnection>> parts;  ///< shard → its connection
    std::string begin_sql;  ///< what opens the transaction on one more shard
    int first_shard = -1;   ///< where statements on no pgrange table run
    bool failed = false;    ///< a statement failed: only ROLLBACK (or COMMIT) goes on
    /// No transaction block: pgrange's own transaction for a COPY, a query string, or the
    /// extended protocol's implicit transaction (a write over several shards), ended at its
    /// Sync.
    bool implicit = false;
    /// A lock wait on a part ends after 2 s as a deadlock (40P01): it may be half of a
    /// deadlock across shards. Not for one write over several shards outside a block, which
    /// visits its shards in order and waits as long as PostgreSQL would.
    bool lock_timeout = true;
    /// The shard of the part adopted from the block (the connection that ran its statements
    /// before it spread) while that part has not had the lock timeout yet: it goes with the
    /// part's next request rather than in a round trip of its own (-1: none pending).
    int lock_timeout_pending = -1;
    /// The savepoints and settings in force, in the order they were made: a part opened later
    /// runs them after its BEGIN, so every part holds the same savepoint stack.
    struct Replayed {
      bool savepoint = false;
      std::string name;  ///< the savepoint's name, as PostgreSQL folds it
      std::string sql;   ///< what a part runs
      /// A savepoint's: how many steps block_catalog_ had when it was taken.
      size_t catalog_steps = 0;
    };
    std::vector<Replayed> replay;
    /// A cursor over several shards (client_cursor.cpp): a cursor of the same name on each
    /// shard of its query, in this transaction, read forward batch by batch as the client
    /// fetches, and merged.
    struct Cursor {
      /// Its rows: each shard's cursor merged (exec::MergedCursor); not for `whole`.
      std::unique_ptr<exec::MergedCursor> rows;
      std::vector<int> shards;  ///< the shard of each merge input
      size_t replay_mark = 0;   ///< replay.size() when it was declared
      /// The connection holding each input's cursor: the transaction's parts, or for a cursor
      /// WITH HOLD connections out of the pool until CLOSE (`held`).
      std::vector<std::shared_ptr<BackendConnection>> conns;
      bool held = false;
      /// A cursor WITH HOLD over tables read from several shards: one cursor of its one
      /// connection (the query with the tables' rows written in), which FETCH, MOVE and CLOSE
      /// reach as the client wrote them (`rows` is not used).
      bool whole = false;
    };
    std::map<std::string, Cursor> cursors;  ///< by name, as PostgreSQL folds it
    /// Cursors whose query stays on one shard, declared in the coordinated transaction: the
    /// shard whose part holds each (a cursor declared before the transaction was coordinated
    /// is on `first_shard`).
    std::map<std::string, int> shard_cursors;
    /// Portals of SELECTs over several shards run with a row limit (Execute's, as pgjdbc's
    /// fetch size): a cursor of pgrange's own on each shard, by the client's portal name.
    std::map<std::string, Cursor> portals;
    uint64_t portals_made = 0;  ///< names the shards' cursors of portals
  };
  /// DDL inside a transaction block (client_block_ddl.cpp): run on every shard in the block's
  /// transaction, its catalog change recorded in block_catalog_; the answer (without
  /// ReadyForQuery) is appended to `out`.
  awaitable<void> run_block_ddl(std::string_view sql, const Plan& plan, ExtendedMerge* ext,
                                std::string& out);
  /// The catalog step of DDL that succeeded in the block (`v`: the block's view before it),
  /// described through the block's connection `conn`; returns a notice for the client, if any.
  awaitable<Result<std::string>> record_block_ddl(const sql::StatementInfo& info,
                                                  const routing::ClusterView& v,
                                                  BackendConnection& conn);
  /// A table as the transaction on `conn` sees it (its own DDL included).
  awaitable<Result<routing::TableDescription>> describe_in_block(BackendConnection& conn,
                                                                 const std::string& schema,
                                                                 const std::string& name);
  /// The view this session routes with: the published one, with the catalog steps of the
  /// open block's DDL (nullptr when the metadata store is not reachable).
  std::shared_ptr<const routing::ClusterView> routing_view();
  /// ROLLBACK TO a savepoint: the block's catalog steps as they were when it was taken.
  void cut_block_catalog(size_t steps);
  /// The block ended: its catalog steps are committed or gone.
  void forget_block_catalog();
  /// DECLARE, FETCH, MOVE or CLOSE of a cursor whose query spans several shards
  /// (client_cursor.cpp): run and answered here (true), or false for one that runs as any other
  /// statement.
  /// `ext`: bound through the extended protocol, run at its Execute (`max_rows`: the
  /// Execute's row limit), and answered without ReadyForQuery.
  awaitable<bool> run_cursor_statement(std::string_view sql, bool& ok, ExtendedMerge* ext = nullptr,
                                       int32_t max_rows = 0);
  /// Whether the bound cursor statement `sql` runs through run_cursor_statement: a FETCH,
  /// MOVE or CLOSE of a cursor it declared, or a DECLARE whose query (with the Bind's values)
  /// spans several shards (its plan then in `query_plan`).
  bool runs_cursor_through_pgrange(std::string_view sql, std::string_view bind_body,
                                   std::optional<Plan>& query_plan);
  /// What a shard runs to declare its part of a cursor: a Query, or bound through the
  /// extended protocol (`ext`) a Parse, Bind and Execute with the client's parameters.
  static std::string cursor_declare_request(const std::string& declare, const ExtendedMerge* ext);
  /// The plan of a cursor's query: as a Query, or bound with `params`. `scroll`: a SCROLL
  /// cursor, whose query of one table is gathered rather than merged over several shards.
  Plan plan_cursor_query(std::string_view query, const routing::BindParams* params,
                         bool scroll = false);
  /// Answers a Describe of a portal that is a cursor pgrange declared over several shards
  /// (drivers describe the cursor by name after DECLARE): its RowDescription. False when
  /// `name` is no such cursor.
  awaitable<bool> describe_cursor_portal(std::string_view name);
  /// DECLARE … CURSOR over several shards: the cursor on each shard, in the coordinated
  /// transaction; appends the answer (no ReadyForQuery) to `out`.
  /// With `instead`, a gather of the query's table: where the merge refuses the columns the
  /// shards' cursors describe (values it cannot compare), they are closed, nothing is answered
  /// and true says to declare the gathered cursor instead.
  awaitable<bool> declare_cursor(const sql::CursorStatement& stmt, const Plan& plan,
                                 std::string& out, const ExtendedMerge* ext,
                                 const routing::GatherPlan* instead = nullptr);
  /// DECLARE … CURSOR WITH HOLD over several shards, outside a transaction block: the cursor
  /// on a connection to each shard of its query (materialized there as its implicit
  /// transaction commits), the connections kept out of the pool until CLOSE or the end of the
  /// session; appends the answer to `out`.
  /// With `instead`, as declare_cursor: the gathered cursor WITH HOLD is declared instead
  /// where the merge refuses the columns.
  awaitable<void> declare_held_cursor(const sql::CursorStatement& stmt, const Plan& plan,
                                      std::string& out, const ExtendedMerge* ext,
                                      const routing::GatherPlan* instead = nullptr);
  /// DECLARE … CURSOR WITH HOLD outside a transaction block of a query reading tables spread
  /// over several shards: their rows are read, and the query with them written in becomes a
  /// cursor WITH HOLD on one shard's connection, kept out of the pool until CLOSE (every
  /// cursor option is PostgreSQL's own).
  awaitable<void> declare_gathered_held_cursor(const sql::CursorStatement& stmt,
                                               const routing::GatherPlan& gather, std::string& out,
                                               const ExtendedMerge* ext = nullptr);
  /// A FETCH or MOVE (`sql`, as the client wrote it) of such a cursor, run on its connection.
  awaitable<void> forward_to_held_cursor(Coordinated::Cursor& cursor, std::string_view sql,
                                         std::string& out);
  /// Closes a held cursor (taken out of held_cursors_, or one being declared) on each of its
  /// connections, which hold nothing else, and gives them back to the pool.
  awaitable<void> close_held_cursor(Coordinated::Cursor cursor);
  /// FETCH or MOVE forward on a cursor over several shards (the transaction's, or a held one);
  /// appends the answer to `out`.
  awaitable<void> fetch_cursor(Coordinated::Cursor& cursor, const sql::CursorStatement& stmt,
                               std::string& out);
  /// Answers a cursor's error: fails the coordinated transaction, or the block, when there is
  /// one.
  void fail_cursor(const Error& e, const std::optional<std::string>& shard_error, std::string& out);
  /// The session's settings (a SET since the DECLARE) on `cursor`'s connections, before they
  /// answer a FETCH.
  awaitable<std::optional<Error>> sync_cursor(Coordinated::Cursor& cursor);
  /// Makes `cursor`'s rows: the cursor `name` on each of its connections, fetched with
  /// `fetch`, merged as `merge` says; `client_formats`: the formats the Merge sends the values
  /// it combines in (exec::merge_formats).
  void build_cursor_tree(Coordinated::Cursor& cursor, const sql::MergeQuery& merge,
                         const std::string& fetch, const std::string& name, bool no_scroll,
                         std::vector<int16_t> client_formats = {});
  /// The options of a cursor's merge tree.
  exec::MergeTreeOptions cursor_tree_options(std::vector<int16_t> client_formats) const;
  /// Whether `merge` refuses (0A000: values it cannot compare or combine) the columns of the
  /// shards' cursor `name` in `cursor`, as its first shard describes them (`shard_formats`:
  /// the formats its rows are fetched in, none: as declared), before any row is read.
  awaitable<bool> merge_refuses_cursor(const Coordinated::Cursor& cursor,
                                       const sql::MergeQuery& merge, const std::string& name,
                                       const std::vector<int16_t>& shard_formats,
                                       std::vector<int16_t> client_formats);
  /// Closes the cursor `name` on each of `cursor`'s connections (parts of the coordinated
  /// transaction); false (the error in `out`, the transaction failed) when one cannot.
  awaitable<bool> close_shard_cursors(const Coordinated::Cursor& cursor, const std::string& name,
                                      std::string& out);
  /// A gather of the one table `query` reads (the cursor's rows read into one shard), for
  /// when its merge cannot run; nullptr where no gather runs it.
  std::shared_ptr<const routing::GatherPlan> one_table_gather(std::string_view query,
                                                              const routing::BindParams* params);
  /// Answers `e` (or the shard's ErrorResponse `shard_error`, as it came) in `out` and fails
  /// the coordinated transaction.
  void fail_coordinated(const Error& e, const std::optional<std::string>& shard_error,
                        std::string& out);
  /// Runs `request` (a DECLARE of the merge's shard query) on the coordinated transaction's
  /// part on each of `shards`, and records them in `cursor` (build_cursor_tree makes its tree);
  /// false (the error answered in `out`, the transaction failed) when a shard refuses or cannot
  /// be reached.
  awaitable<bool> open_shard_cursors(Coordinated::Cursor& cursor, const std::vector<int>& shards,
                                     const std::string& request, std::string& out);
  /// INSERT … SELECT whose rows the shards cannot make on their own (client_insert_select.cpp):
  /// runs its query and writes the INSERT with the rows as VALUES into expanded_sql_ (true),
  /// or, when one INSERT (next_insert_part) does not hold them all, keeps them in insert_rows_
  /// (true, expanded_sql_ empty: write_insert_parts writes them), or, when the query found
  /// none, the answer into expanded_answer_; false for one the shards can run as it is.
  awaitable<Result<bool>> expand_insert_select(std::string_view sql);
  /// The next INSERT … VALUES of insert_rows_'s rows (exec::InsertParts), nullopt when every row is
  /// written.
  std::optional<std::string> next_insert_part();
  /// Writes insert_rows_'s rows as INSERTs of a part of them each, in the coordinated
  /// transaction (begun here when there is none), their answers collected in `steps`; stops at
  /// the first that fails.
  awaitable<void> write_insert_parts(std::string& steps);
  /// A Query's INSERT … SELECT whose rows expand_insert_select kept in insert_rows_: written
  /// in parts in the block's transaction or one of its own, answered as one INSERT.
  awaitable<bool> run_insert_parts();
  /// `sql` with the Bind's text values (`params`) written in place of its `$n`, each a literal
  /// of the type PostgreSQL infers for it (asked of the coordinated transaction's first part,
  /// the Parse's `parameter_types` given): what pgrange runs of a bound INSERT … SELECT.
  awaitable<Result<std::string>> write_parameters_in(const std::string& sql,
                                                     std::string_view parameter_types,
                                                     const routing::BindParams& params);
  /// Whether `sql` (whose first keyword is `kw`) may be CREATE TABLE … AS or SELECT … INTO: a
  /// cheap look at its words.
  static bool may_create_as(std::string_view kw, std::string_view sql);
  /// CREATE TABLE … AS or SELECT … INTO of a table pgrange spreads (client_create_as.cpp): the
  /// table made WITH NO DATA, then filled by INSERT … SELECT, in one transaction; answered
  /// here (true), or false for one that goes the normal way. For an extended-protocol Execute
  /// when `ext` is given (the Bind said it runs so: as_query_bind).
  awaitable<bool> run_create_as(std::string_view sql, ExtendedMerge* ext = nullptr);
  /// An extended-protocol INSERT … SELECT whose rows pgrange routes (as_query_bind): run as
  /// expand_insert_select runs it for a Query, in the block's transaction or one of its own.
  awaitable<bool> run_insert_select(std::string_view sql, ExtendedMerge& ext);
  /// Whether a Bind (its body, and its statement's plan) is of a CREATE TABLE … AS, SELECT …
  /// INTO or INSERT … SELECT that pgrange runs itself, as for a Query: only without parameters.
  bool as_query_bind(std::string_view bind_body, const Plan& plan, bool made_key_select);
  /// Whether run_create_as and expand_insert_select can run in this session at all.
  bool runs_statements_itself() const;
  /// The statements run_create_as and run_insert_select run for one of the client's: in the
  /// block's transaction, or in one of their own (begun here: true) committed after them by
  /// end_own_steps; their answers are collected in `steps` meanwhile.
  bool begin_own_steps(std::string& steps);
  awaitable<void> end_own_steps(bool own, std::string& steps);
  /// The INSERT … SELECT step of those (its answer into `steps`).
  awaitable<void> insert_select_step(std::string_view insert_sql, std::string& steps);
  /// The one answer PostgreSQL gives for the statement the steps ran: their notices, then the
  /// first error, else CommandComplete `tag`; sent, as a Query's or as `ext`'s Execute's.
  void answer_steps(const std::string& steps, const std::string& tag, ExtendedMerge* ext);
  /// Execute with a row limit of a SELECT over several shards (`plan`, bound as `run`): the
  /// portal becomes a cursor on each shard, in the coordinated transaction (pgrange's own
  /// until the Sync outside a block); its first `max_rows` rows are answered.
  awaitable<bool> run_portal(ExtendedMerge& run, const Plan& plan, int32_t max_rows);
  /// The same for a SELECT reading tables from several shards (`gather`): their rows are read
  /// in the coordinated transaction, and the query with them written in is the cursor of one
  /// shard.
  awaitable<bool> run_gathered_portal(ExtendedMerge& run, const routing::GatherPlan& gather,
                                      int32_t max_rows);
  /// The Execute of a bound write reading tables spread over other shards (`run.write_gather`):
  /// their rows are read in pgrange's transaction over the shards (the block's, or its own until
  /// the Sync), then the write with them written in runs there with the client's Bind.
  awaitable<bool> run_gathered_write(ExtendedMerge& run, int32_t max_rows);
  /// The reads of a bound statement's gather plan, in the coordinated transaction (pgrange's
  /// own until the Sync outside a block): the statement with their rows written in, or nullopt
  /// once the failure is answered (fail_bound).
  awaitable<std::optional<std::string>> read_for_bound(ExtendedMerge& run,
                                                       const routing::GatherPlan& gather);
  /// Answers a bound statement pgrange runs itself with `e` (or the shard's error as it came)
  /// after its BindComplete; the coordinated transaction fails, the rest up to the Sync is
  /// skipped.
  void fail_bound(ExtendedMerge& run, const Error& e,
                  const std::optional<std::string>& shard_error);
  /// A later Execute of such a portal (`body`: the Execute's).
  awaitable<void> continue_portal(std::string_view body);
  /// DECLARE of a query reading tables spread over several shards, inside a block: the tables'
  /// rows are read in the block's transaction, and the query with them written in is declared
  /// on one part (FETCH, MOVE and CLOSE go there); answers the client, its error too (the
  /// block then failed). False when the session must end.
  awaitable<bool> declare_gathered_cursor(const sql::CursorStatement& stmt,
                                          const routing::GatherPlan& gather,
                                          ExtendedMerge* ext = nullptr);
  /// Up to `max_rows` rows of `portal` (all with 0) and PortalSuspended or CommandComplete,
  /// appended to `out` (its RowDescription first with `describe`).
  awaitable<void> answer_portal(Coordinated::Cursor& portal, int32_t max_rows, bool describe,
                                std::string& out);
  /// Makes the open transaction block a coordinated one (its backend, if any, its first part);
  /// outside a block, a transaction of pgrange's own (Coordinated::implicit).
  awaitable<void> become_coordinated();
  /// The coordinated transaction's connection on `shard`, opening the transaction there first
  /// if the block has not touched that shard yet.
  awaitable<Result<BackendConnection*>> coordinated_part(int shard);
  /// Whether the part on `shard` still needs the lock timeout (the adopted part, while
  /// Coordinated::lock_timeout_pending names it and the block takes one); counts it as sent.
  bool take_pending_lock_timeout(int shard);
  /// The lock timeout on the adopted part `conn` of `shard`, in a round trip of its own, if it
  /// is still pending there (Coordinated::lock_timeout_pending); before any request that does
  /// not carry it.
  awaitable<void> send_pending_lock_timeout(int shard, BackendConnection& conn);
  /// The same before the transaction ends on its parts (deferred constraints may wait for
  /// locks at PREPARE TRANSACTION).
  awaitable<void> send_pending_lock_timeout();
  /// `request` on every part of the block, one after the other in its transaction there
  /// (exec::Broadcast): the first part's messages of the kinds in `relay` ("": all but
  /// ParseComplete, BindComplete, ReadyForQuery and errors), its first tag into `first_tag`;
  /// or the failure, a shard's own error.
  awaitable<exec::ExecResult<std::string>> broadcast_to_parts(std::string request,
                                                              std::string relay,
                                                              std::string* first_tag = nullptr);
  /// COPY … FROM STDIN into a table over several shards (exec::CopyRouter routes its rows):
  /// opens the COPY on the table's first shard and answers the client's CopyInResponse.
  awaitable<bool> start_copy_in(std::string_view sql, const Plan& plan);
  /// A client message while such a COPY runs: CopyData, CopyDone, CopyFail (others fail it).
  awaitable<bool> continue_copy_in(char type, std::string_view body);
  /// Ends the coordinated transaction pgrange opened outside a transaction block (a COPY, or
  /// the extended protocol's implicit transaction): commits (two-phase commit over several
  /// shards) or rolls back; the error for the client, if any.
  awaitable<std::optional<Error>> end_implicit_transaction(bool commit);
  /// Leaves the ranges used when no transaction holds them any more.
  void leave_ranges_if_idle();
  /// Whether the open transaction can become a coordinated one now.
  bool can_coordinate() const;
  /// Whether the attached connection holds work of the pipeline since the last Sync (the
  /// extended protocol's implicit transaction, or a block's) that pgrange can take over to
  /// coordinate the transaction, once that work has answered (settle_pipeline).
  bool can_adopt_pipeline() const;
  /// Sends what is queued for the attached connection with a Flush and waits for the replies
  /// due from it. False when the pipeline failed there meanwhile (the connection skips to the
  /// Sync, and so must the client) or the connection is gone.
  awaitable<bool> settle_pipeline(std::string& out);
  /// Whether a reply from the attached connection is still due.
  bool awaiting_backend() const;
  /// What opens the coordinated transaction on one more part: its BEGIN, the lock timeout and
  /// the savepoints and settings made so far.
  std::string coordinated_opener() const;
  /// SAVEPOINT, RELEASE, ROLLBACK TO, SET or RESET in a coordinated transaction: run on every
  /// part, then remembered for the parts opened later; the answer (without ReadyForQuery) is
  /// appended to `out`.
  awaitable<void> run_on_every_part(const sql::StatementInfo& info, std::string text, bool describe,
                                    std::string& out);
  /// The types of every parameter of `text` as the part infers them (Parse and Describe of
  /// it with the client's `given` types): a ParameterDescription's body, which is a Parse's
  /// list of types too. For the Parses of an INSERT's rows split over shards, which leave
  /// some parameters out. Err: the shard's ErrorResponse body, or why it could not answer.
  awaitable<tl::expected<std::string, std::string>> inferred_parameter_types(
      BackendConnection& conn, const std::string& text, std::string_view given);
  /// Runs one statement of a coordinated transaction (starting it, when it is the statement
  /// that needs a second shard). `more`: the query string goes on (no ReadyForQuery);
  /// `into`: its answer is added there instead of being sent.
  awaitable<bool> run_coordinated(std::string_view sql, const Plan& plan,
                                  ExtendedMerge* ext = nullptr, bool more = false,
                                  std::string* into = nullptr);
  /// A query string over several shards pgrange runs in the transaction it coordinates: a
  /// write on several shards, or several statements touching several shards. One after the
  /// other in the block's transaction, or outside a block in one of their own committed after
  /// the last statement with two-phase commit, stopping at the first error, as PostgreSQL runs
  /// a query string in one transaction.
  awaitable<bool> run_script(std::string_view sql, const Plan& plan);
  /// A message of the extended protocol (or Sync) in a coordinated transaction that is not part
  /// of a Bind pgrange answered: Parse is recorded, Sync and Close answered here.
  bool coordinated_message(char type, std::string_view body, std::string_view raw,
                           std::string& out);
  /// A Sync no connection waits for: what pgrange answered before it, the end of the extended
  /// protocol's implicit transaction over several shards (if one is open), ReadyForQuery.
  awaitable<void> answer_sync();
  /// Describe of a prepared statement ('S') in a coordinated transaction: asked of a part in
  /// the transaction under a name of pgrange's own; its ParameterDescription (the client's
  /// parameters only) and RowDescription or NoData are answered in order.
  awaitable<void> describe_coordinated_statement(std::string_view body);
  /// The coordinated transaction's connections as parts in their transactions (coord_ ends).
  std::vector<TxnPart> take_coordinated_parts();
  /// COMMIT PREPARED or ROLLBACK PREPARED outside a transaction block (client_prepared.cpp):
  /// the decision recorded for a transaction pgrange holds for the client, then carried out on
  /// every shard that holds a part of it.
  awaitable<bool> run_prepared(const Plan& plan, ExtendedMerge* ext = nullptr);
  /// Ends the coordinated transaction: two-phase commit (or a plain one on one shard) or
  /// rollback; appends the answer (without ReadyForQuery) to `out`. With `client_gid`, the
  /// client's PREPARE TRANSACTION of the block (prepared and held, not committed).
  awaitable<void> finish_coordinated(bool commit, std::string& out,
                                     const std::string* client_gid = nullptr);
  /// Takes the session's backend out of the reader's hands once no reply is pending (for the
  /// coordinator, or to ask it something); nullptr when there is none (or it died meanwhile).
  awaitable<std::shared_ptr<BackendConnection>> take_backend();
  /// Connections a statement holds for its reads over several shards, given back at its end.
  using HeldConnections = std::vector<std::shared_ptr<BackendConnection>>;
  /// The most bytes of answer a read kept whole in pgrange may hold (an INSERT … SELECT's
  /// query): past them it stops reading and fails with `error`.
  struct AnswerCap {
    uint64_t bytes = 0;
    Error error;
  };
  /// Runs a SELECT or COPY … TO over several shards outside a transaction block (kRead,
  /// client_read.cpp):
  /// the tree of operators its plan makes, its answer streamed to the client (for an
  /// extended-protocol Execute when `ext` is given: no ReadyForQuery, the Sync brings it).
  awaitable<bool> run_read(const Plan& plan, std::string_view text, ExtendedMerge* ext = nullptr);
  /// The tree of such a SELECT run and its answer written to `out` (no ReadyForQuery), inside a
  /// coordinated block too (over its parts); false when it failed. `stream`: as send_tree's
  /// (false: the whole answer stays in `out`, for an INSERT … SELECT).
  awaitable<bool> send_read(const Plan& plan, std::string_view text, ExtendedMerge* ext,
                            std::string& out, bool stream = true, const AnswerCap* cap = nullptr);
  /// `plan`'s merge replaced by a gather of its table's rows (with a join's reference tables),
  /// for when the merge refuses what the shards answered; nullopt when no gather runs it.
  std::optional<Plan> gather_instead(const Plan& plan, std::string_view text,
                                     const ExtendedMerge* ext);
  /// The tree of a read over several shards: a gather of several tables (plan.gather, whose
  /// context `gather_ctx` keeps), a read through a global index (route.index_lookup, simple
  /// protocol: its entries, then the rows they name, or the index alone when it stores every
  /// column the query uses), else a merge of the route's shards' answers. Its connections are
  /// acquired into `held`.
  awaitable<exec::ExecResult<std::unique_ptr<exec::Operator>>> read_tree(
      const Plan& plan, std::string_view text, ExtendedMerge* ext, std::string& out,
      HeldConnections& held, std::optional<exec::GatherContext>& gather_ctx);
  /// A pooled connection to a shard, tracked for the client's cancel and kept in `held` until
  /// the statement ends; given the session's settings here with `sync` (else the operator
  /// using it does that).
  awaitable<Result<BackendConnection*>> hold_connection(int shard, HeldConnections& held,
                                                        bool sync);
  /// An UPDATE, DELETE or INSERT … VALUES reading other tables spread over several shards
  /// (UPDATE … FROM, DELETE … USING, subqueries, CTEs that read): those tables read here, the
  /// write with their rows written in left in expanded_sql_ to be routed as any write (true);
  /// false when it is no such write.
  awaitable<Result<bool>> expand_write_reads(std::string_view sql);
  /// A Query of one statement whose WITH holds data-modifying CTEs over several shards
  /// (client_modifying_with.cpp): each such CTE run as a statement of its own, its RETURNING
  /// rows written into the statement in its place, the statement run with them, in one
  /// transaction; answered here (true). false: not such a statement, or one that runs on one
  /// shard as it is. Err: refused before anything ran.
  awaitable<Result<bool>> run_modifying_with(std::string_view sql);
  /// The same at the Execute of a Bind that binds such a statement (ExtendedMerge::
  /// modifying_with): its parameters written in as literals, its answer in the Bind's formats.
  awaitable<bool> run_bound_modifying_with(ExtendedMerge& run);
  /// Whether `sql` is a data-modifying WITH over several shards pgrange runs in parts, taken
  /// apart (nullopt: not one). Err: one it refuses, and why.
  Result<std::optional<sql::ModifyingWith>> modifying_with_plan(std::string_view sql);
  /// Its data-modifying CTEs, then the statement with their rows, in the coordinated
  /// transaction: the statement's answer (or the error that failed it) appended to `answer`.
  awaitable<void> modifying_with_steps(const sql::ModifyingWith& with, std::string& answer);
  /// One statement of a data-modifying WITH run in the coordinated transaction as a Query of it
  /// would run (INSERT … SELECT rows routed, reads of other shards, keys made), its answer
  /// appended to `out`; a failure fails the transaction (its error in `out`).
  awaitable<void> run_with_part(const std::string& sql, std::string& out);
  /// The answer of a data-modifying CTE (RowDescription and DataRows) as a query of its rows
  /// (VALUES, their types as the part names them), within query_memory.
  awaitable<Result<std::string>> rows_written_in(std::string_view answer);
  /// `e` for the client, and the coordinated transaction failed.
  void fail_modifying_with(const Error& e, std::string& answer);
  /// Where the answer of a gather plan goes: to the client (read_tree's Gather, whose answer
  /// goes where the tree's does), nowhere (EXPLAIN ANALYZE), or no answer: only the inputs are
  /// read (the statement with their rows is the outcome's).
  enum class GatherSink { kClient, kDiscard, kInputs };
  /// What a gather plan needs of the session: the block's parts (coord_) or connections held
  /// in `held`, the router, the client's settings and Bind; the shards' notices go to `out`.
  exec::GatherContext gather_context(ExtendedMerge* ext, std::string& out, GatherSink sink,
                                     HeldConnections& held);
  /// EXPLAIN ANALYZE of a merge: runs its tree (read_tree: over the block's parts in a block)
  /// with its rows dropped, and answers each operator's rows and time.
  awaitable<exec::ExecResult<std::vector<std::string>>> analyze_merge(
      std::shared_ptr<const Result<sql::MergeQuery>> merge, const std::vector<int>& shards);
  /// Runs a gather plan (exec::Gather) with the block's parts (coord_) or with connections it
  /// holds itself (and gives back), for EXPLAIN ANALYZE (kDiscard) or its inputs alone
  /// (kInputs); the shards' notices go to `out`.
  awaitable<exec::GatherOutcome> execute_gather(const routing::GatherPlan& plan, std::string& out,
                                                GatherSink sink);
  /// What operators need of this session for their shard connections (exec::make_merge): its
  /// settings, the shards' pools; what the shards send besides rows goes to `buf`.
  exec::ShardSession shard_session(std::string& buf);
  /// Whether the session prints floats exactly: extra_float_digits not set, or set to 1 or more.
  bool floats_exact() const;
  /// The extended protocol's Parse and Bind of `ext`'s statement (nullopt: a simple Query).
  static std::optional<exec::BoundStatement> bound_statement(const ExtendedMerge* ext);
  /// Runs a tree (unless `failure` says it could not be made) and writes its answer to `buf`:
  /// RowDescription (when described), the rows, then CommandComplete or the error (no
  /// ReadyForQuery). With `stream`, `buf` goes to the client whenever it grows past a batch
  /// (the caller sends the rest); without, all of it stays in `buf` for the caller (the rows of
  /// an INSERT … SELECT). With `bind_pending`, the BindComplete goes first, once the tree has
  /// opened, unless it failed as PostgreSQL fails a Bind (a wrong count or code of result
  /// formats): then only the error, as PostgreSQL answers such a Bind. Returns false when the
  /// statement failed.
  /// With `refused`: a refusal of pgrange's own (0A000) before anything was sent goes there,
  /// and nothing of the answer is written to `buf`, for the caller to try another way.
  awaitable<bool> send_tree(exec::Operator* root, std::optional<exec::ExecFailure> failure,
                            const ExtendedMerge* ext, std::string& buf, bool stream = true,
                            bool bind_pending = false, const AnswerCap* cap = nullptr,
                            std::optional<exec::ExecFailure>* refused = nullptr);
  /// A message that follows a Bind pgrange answered for a merge (Describe, Execute, Sync, …).
  awaitable<bool> continue_extended_merge(char type, std::string_view body, std::string& out);
  /// A Bind pgrange answers itself (merge or coordinated statement): what it binds, from its
  /// body.
  ExtendedMerge answer_bind(std::string_view bind_body);
  /// answer_bind's result as the session's extended_merge_. Not a coroutine: a coroutine that
  /// held an ExtendedMerge of its own (several kilobytes) would carry it in every frame.
  ExtendedMerge& bound_merge(std::string_view bind_body);
  /// The parameter types (count and OIDs) a statement was parsed with ("" = the unnamed one).
  std::string_view parameter_types(std::string_view statement) const;
  /// Sends what brings a pooled connection to the client's session settings, then `request`.
  awaitable<std::optional<Error>> start_request(BackendConnection& conn, std::string request);
  /// The rows (text values) of a Query `sql` on `conn` (after start_request's settings); Err:
  /// its error, or why it could not be read.
  awaitable<Result<std::vector<std::vector<std::optional<std::string>>>>> query_rows(
      BackendConnection& conn, const std::string& sql);
  /// `describe`: with its RowDescription first; `formats`: the result formats a Bind asked for
  /// (none: text). The error (and nothing written) when a value has no binary form pgrange
  /// knows, or the formats do not fit the columns.
  std::optional<Error> send_result(const routing::ResultSet& rs, std::string& out,
                                   bool describe = true, const std::vector<int16_t>& formats = {});
  int route_shard() const { return route_shard_ < 0 ? 0 : route_shard_; }
  /// The pool of `shard`'s connections logged in as the client's role (after authentication).
  BackendPool& pool(size_t shard) {
    if (shard >= pools_.size()) add_pools();  // a shard RELOAD added since the login
    return *pools_[shard];
  }
  /// Takes the pools of the shards the worker has and this session does not yet.
  void add_pools();
  /// 40001 when RELOAD added a shard since the client message being handled arrived: what
  /// the statement planned may leave the new shard out (a reference table's write, DDL). It
  /// holds no connection then (RELOAD waits until no transaction holds one), so nothing ran.
  std::optional<Error> shards_changed() const;
  /// A connection of `shard`'s pool for this session (recorded as its holder).
  awaitable<Result<std::shared_ptr<BackendConnection>>> take_from(size_t shard);
  /// The client's user entry (nullptr before authentication) and whether it may run admin
  /// statements and touch pgrange's own objects.
  bool admin() const { return user_entry_ != nullptr && user_entry_->admin; }
  /// 42501 when a user without admin names pgrange's own objects on the shards: a global
  /// index's table, the trigger and functions that report writes to it (client_privileges.cpp).
  std::optional<Error> internal_object_refusal(std::string_view sql);
  /// 42501 unless the client's role owns `table` (or is a member of its owner's role), as
  /// PostgreSQL requires for CREATE INDEX and DROP INDEX; asked of the first shard.
  awaitable<std::optional<Error>> check_owner(const std::string& schema, const std::string& table);
  /// 42501 unless the client's role has PostgreSQL's rights for `function` (nextval, setval,
  /// currval; a key default is a nextval) of the sequence. Asked of the first shard once per
  /// session and sequence, again after a GRANT or REVOKE through this instance.
  awaitable<std::optional<Error>> check_sequence_right(const std::string& schema,
                                                       const std::string& name,
                                                       std::string_view function);
  /// Runs `sql` on the first shard on a connection logged in as `login` (pgrange's own
  /// questions: auth_query, privileges): its rows, or the error.
  awaitable<Result<std::vector<std::vector<std::optional<std::string>>>>> query_as(
      const BackendLogin& login, const std::string& sql);
  BackendLogin internal_login() const;
  /// The role the client's connections to the first shard log in as.
  const std::string& shard_role() const;
  /// The shards DDL runs on: every one, or for role DDL one per server (host and port).
  std::vector<int> ddl_shards(const std::vector<sql::StatementInfo>& infos) const;

  awaitable<bool> startup();
  awaitable<bool> authenticate(const std::string& user);
  /// A user not in the configuration, as auth_query finds it on the first shard (its
  /// verifier or md5 hash): nullopt when there is none; the error when the query failed.
  awaitable<Result<std::optional<config::UserConfig>>> look_up_user(const std::string& user);
  /// Answers a failed login (28P01) after auth_failure_delay; returns false.
  awaitable<bool> refuse_login(const std::string& user);
  /// Reads one whole startup-phase packet (startup=true) or authentication message.
  awaitable<bool> read_client_frame(bool startup, std::string& body, char& type);
  awaitable<bool> login();
  awaitable<void> message_loop();
  /// Handles every whole message in in_ (the backend's part appended to `out` and sent),
  /// flushes the answers; false when the session ends.
  awaitable<bool> handle_input(std::string& out);
  awaitable<void> backend_loop(std::shared_ptr<BackendConnection> conn);

  /// Handles one client message; appends what goes to the backend to `out`.
  awaitable<bool> handle_message(char type, std::string_view body, std::string_view raw,
                                 std::string& out);
  /// The synchronous part of handle_message, once a backend is attached.
  bool dispatch_message(char type, std::string_view body, std::string_view raw, std::string& out);
  awaitable<bool> ensure_backend(std::string& out);
  /// Attaches an idle pooled connection if there is one, without suspending.
  bool try_attach_idle(std::string& out);
  /// Makes `conn` (whose settings are the client's) this session's backend: cancel target,
  /// a deferred BEGIN, reader.
  void attach(std::shared_ptr<BackendConnection> conn, std::string& out);
  /// Makes `conn` this session's backend and starts its reader.
  void start_reader(std::shared_ptr<BackendConnection> conn);
  void push(Pending kind, std::string name = {});
  void ensure_prepared(const ClientStatement& st, std::string& out);
  /// Sends a client message on to the backend (or answers it in its place); records whether
  /// extended-protocol messages reached the backend since its last Sync.
  bool forward_message(char type, std::string_view body, std::string_view raw, std::string& out);
  /// A Parse inside a transaction block waits for its Bind, which picks the shard (a statement
  /// on another shard makes the block one over several shards).
  bool defer_to_bind() const;
  void emit_ready_synthetics(std::string& out);
  void process_backend_messages(BackendConnection& conn, std::string& out, bool& release);
  void finish_sync_point(StatementLog log, bool error, char start_status, char end_status);
  void add_txn_effect(sql::SessionEffect e);
  bool handle_query_effects(std::string_view sql, PendingEntry& entry, std::string& out);
  /// After the Execute of a RESET, RESET ALL or DISCARD ALL: hidden requests, in its implicit
  /// transaction, that set the client's startup values it returned to the server's defaults.
  void restore_in_batch(const std::vector<sql::SessionEffect>& effects, std::string& out);
  void request_release();
  void apply_effects(const std::vector<sql::SessionEffect>& effects, bool committed);
  void pin_effects(const std::vector<sql::SessionEffect>& effects);
  bool pinned() const;
  bool can_release() const;
  /// Brings `conn` (no reader on it) to the client's session settings and waits for that: the
  /// error when it failed (the connection is then marked broken).
  awaitable<std::optional<Error>> sync_settings(BackendConnection& conn);
  /// A connection to `shard` with the client's settings: `conn` if given, else one from the
  /// pool. A connection whose settings cannot be brought to the client's is closed, never
  /// handed to anyone; one more is tried when it carried another client's settings.
  awaitable<Result<std::shared_ptr<BackendConnection>>> acquire_synced(
      size_t shard, std::shared_ptr<BackendConnection> conn = nullptr);
  /// A pooled connection to `shard` for the client's statement besides its attached backend (a
  /// merge, a write or a transaction over several shards): a cancel of the client reaches it
  /// while the client holds it.
  awaitable<Result<std::shared_ptr<BackendConnection>>> acquire_for_client(size_t shard);
  void release_backend(bool reusable);
  void send_error(const Error& e);
  void fail_pending(bool server_already_reported);
  /// The backend died: the transaction block it held, if any, is gone. The client then stays
  /// in the failed-transaction state until it ends the block (txn_lost_).
  void lose_transaction(bool in_block);
  /// Whether the backend may hold a transaction block of the client's (so losing it loses the
  /// transaction).
  bool block_open() const {
    return txn_status_ != 'I' || began_unconfirmed_ || !deferred_begin_.empty();
  }
  /// A client message while txn_lost_ (client_lost.cpp): answered as PostgreSQL answers it in
  /// a failed transaction block (25P02, or the tag ROLLBACK for COMMIT and ROLLBACK).
  awaitable<bool> run_in_lost_transaction(char type, std::string_view body, std::string_view raw,
                                          std::string& out);

  Worker& worker_;
  std::shared_ptr<const Settings> settings_;
  ClientChannel channel_;
  ByteBuffer in_;
  // What SHOW CLIENTS and the metrics see of the session.
  bool logged_in_ = false;
  std::chrono::system_clock::time_point connected_at_ = std::chrono::system_clock::now();
  std::string application_name_;
  /// When the running request started (zero: none runs), and the last one.
  std::chrono::steady_clock::time_point request_start_{};
  /// The worker's number of shards when the client message being handled arrived.
  size_t shards_at_message_ = 0;
  std::chrono::steady_clock::time_point last_request_{};
  RouteKind route_kind_ = RouteKind::kSingleShard;
  /// With slow statements logged: the running request's text (at most 1,000 bytes) and route,
  /// kept as they are; the log line is made only for a request that turns out slow.
  std::string slow_text_;
  std::vector<int> slow_shards_;
  std::vector<uint64_t> slow_ranges_;
  bool slow_noted_ = false;  ///< note_route() ran for the running request
  std::string user_;
  std::string database_;
  const config::UserConfig* user_entry_ = nullptr;
  /// The entry auth_query made for a user not in the configuration (user_entry_ points here).
  std::optional<config::UserConfig> looked_up_user_;
  /// Counted in SharedState::user_sessions (undone when the session ends).
  bool user_counted_ = false;
  /// Closes a login that has not ended after authentication_timeout.
  std::unique_ptr<asio::steady_timer> login_timer_;  ///< until the login ends
  /// The keys of the client's SCRAM login, when it gave one (logins to the shards as its role).
  std::optional<BackendLogin::ScramKeys> scram_keys_;
  /// The GRANTs, REVOKEs and changes of owner of the transaction block (its DDL on every
  /// shard): the tables of global indexes follow them once it commits.
  std::vector<sql::StatementInfo> block_privileges_;
  /// Sequence rights checked (check_sequence_right), with SharedState::privilege_changes then.
  std::map<std::string, uint64_t> sequence_rights_;
  /// Per shard, the pool of connections logged in as the client's role.
  std::vector<BackendPool*> pools_;
  /// Startup parameters as set_config(…) calls that restore them, by name.
  std::map<std::string, std::string> startup_calls_;
  /// …and as statements (SELECT set_config(…)), the settings the client's session starts with.
  std::map<std::string, std::string> startup_settings_;
  std::map<std::string, std::string> desired_settings_;
  bool transaction_pooling_ = true;
  std::shared_ptr<BackendConnection> backend_;
  /// An idle connection taken for the next message whose settings must be synced first.
  std::shared_ptr<BackendConnection> idle_taken_;
  bool reader_running_ = false;
  /// Answers due from the backend, in order. Boost's deque allocates nothing until used and
  /// gives its blocks back when emptied (shrink_to_fit), so a client that waits holds none.
  /// Blocks of 4 entries (under 1 KiB, which glibc's thread cache serves): what a statement
  /// queues (Bind, Execute, Sync) fits one block, made once when the first is queued, where
  /// the default (512-byte blocks, two entries) grew block by block through the slow path.
  using PendingQueue =
      boost::container::deque<PendingEntry, void,
                              boost::container::deque_options_t<boost::container::block_size<4u>>>;
  static_assert(sizeof(PendingEntry) * 4 <= 1024, "a block of pending_ outgrew glibc's tcache");
  PendingQueue pending_;
  /// The next shard a read of reference tables only goes to (they take turns).
  size_t reference_turn_ = reinterpret_cast<uintptr_t>(this) / 64;
  bool unsynced_ = false;
  /// Extended-protocol messages went to the backend since its last Sync.
  bool backend_extended_ = false;
  bool skip_until_sync_ = false;
  bool in_copy_ = false;
  char txn_status_ = 'I';
  bool closing_ = false;
  bool draining_ = false;
  bool fatal_seen_ = false;
  std::unordered_map<std::string, ClientStatement> statements_;
  std::vector<sql::SessionEffect> txn_effects_;  ///< SETs inside the open transaction block
  std::vector<std::pair<std::string, size_t>> savepoints_;  ///< name → size of txn_effects_
  std::vector<sql::SessionEffect> unnamed_effects_;         ///< of the unnamed statement
  std::unordered_map<std::string, std::vector<sql::SessionEffect>> portal_effects_;
  StatementLog sync_log_;            ///< Executes completed since the last Sync
  bool sync_error_ = false;          ///< an error since the last Sync
  std::optional<Error> lost_error_;  ///< the backend died while idle: tell the client
  /// The transaction block lost its shard connection: failed until COMMIT or ROLLBACK.
  bool txn_lost_ = false;
  /// Statements and portals of COMMIT/ROLLBACK made while txn_lost_ (the client may run them).
  std::set<std::string, std::less<>> lost_statements_;
  std::set<std::string, std::less<>> lost_portals_;
  /// A BEGIN completed since the last ReadyForQuery (txn_status_ does not show it yet).
  bool began_unconfirmed_ = false;
  /// The connection died under a COMMIT (its FATAL already reported as 08007).
  bool commit_lost_ = false;
  /// A portal bound to a COMMIT inside a transaction block (its Execute gets ends_block).
  std::optional<std::string> commit_portal_;
  bool release_requested_ = false;
  // Session state that cannot move between backends pins the client to its backend.
  int sql_prepared_ = 0;
  int hold_cursors_ = 0;
  bool listening_ = false;
  bool temp_objects_ = false;
  bool advisory_locks_ = false;
  bool set_config_used_ = false;
  bool was_pinned_ = false;
  /// The unqualified names that are temporary relations on the session's connection, for the
  /// message being routed (resolve_temp_names), and the analysis they were asked for.
  std::set<std::string, std::less<>> temp_names_;
  Analysis temp_analysis_;
  std::set<std::string, std::less<>> temp_answer_;
  /// Something may have removed the session's temporary relations: ask whether any are left.
  bool temp_check_due_ = false;
  std::shared_ptr<CancelTarget> cancel_target_;
  int32_t key_pid_ = 0;
  int32_t key_secret_ = 0;
  asio::steady_timer released_;
  // Routing.
  int route_shard_ = -1;                           ///< the shard the next backend comes from
  std::vector<routing::RangeActivity::Use> uses_;  ///< ranges used by the open transaction
  std::string deferred_begin_;  ///< a BEGIN not sent yet: the first statement picks the shard
  Analysis unnamed_analysis_;   ///< of the unnamed statement
  Analysis parse_analysis_;     ///< of the Parse being dispatched
  /// A Parse of DECLARE, FETCH, MOVE or CLOSE came: from then on each Bind asks whether it binds
  /// one pgrange runs (runs_cursor_through_pgrange); until then a Bind costs nothing more.
  bool cursor_parsed_ = false;
  bool defer_parse_ = false;  ///< the Parse being dispatched waits for its Bind's shard
  /// The Parse being dispatched is of an INSERT … SELECT pgrange runs at its Execute
  /// (leaves_made_key_to_select): it waits for its Bind, which must not pass it to a shard.
  bool as_query_parse_ = false;
  std::string deferred_parse_;  ///< an unnamed Parse not sent yet (sent before its Bind)
  /// The message pgrange handles instead of the client's, when it wrote values it made into the
  /// client's statement (a Query or Parse) or its Bind (empty otherwise).
  std::string rewritten_message_;
  /// The statement expand_insert_select made of the client's, or its answer (no rows).
  std::string expanded_sql_;
  std::string expanded_answer_;
  /// An INSERT … SELECT's rows (expand_insert_select), written out in parts; `ready`, a part
  /// made already and not written yet.
  struct InsertRows {
    exec::InsertParts parts;
    std::optional<std::string> ready;
  };
  std::unique_ptr<InsertRows> insert_rows_;  ///< on the heap: large, and rarely set
  /// The statements (by the client's name; "" unnamed) given parameters pgrange fills.
  std::unordered_map<std::string, MadeParams> made_params_;
  /// The values this session's nextval() and setval() gave, by "schema.name" of the
  /// cluster-wide sequence (currval), and the one nextval() used last (lastval).
  std::map<std::string, int64_t> sequence_values_;
  std::string last_sequence_;
  std::string unnamed_tail_;  ///< the unnamed statement's Parse body after its name
  std::unique_ptr<ExtendedMerge> extended_merge_;  ///< on the heap: large, and rarely set
  std::unique_ptr<Coordinated> coord_;             ///< on the heap: large, and only in some blocks
  /// Cursors WITH HOLD over several shards (client_cursor.cpp), by name; they outlive
  /// transactions.
  std::map<std::string, Coordinated::Cursor> held_cursors_;
  /// What the open block's DDL changes in pgrange's catalog, committed with the block.
  routing::BlockCatalog block_catalog_;
  /// routing_view() with block_catalog_, and the published view it was made from.
  std::shared_ptr<const routing::ClusterView> block_view_;
  std::shared_ptr<const routing::ClusterView> block_view_base_;
  std::unique_ptr<exec::CopyRouter> copy_in_;  ///< a COPY FROM STDIN pgrange routes row by row
  std::string txn_begin_sql_;  ///< the BEGIN of the open transaction block, as the client wrote it
  bool handover_requested_ = false;
  std::shared_ptr<BackendConnection> handed_over_;
};

}  // namespace pgrange::proxy
