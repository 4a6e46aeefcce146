#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "proxy/asio.hpp"
#include "proxy/backend/backend_connection.hpp"
#include "proxy/exec/operator.hpp"
#include "proxy/exec/spill_queue.hpp"
#include "routing/plan/gather_plan.hpp"

namespace pgrange::proxy::exec {

struct BoundStatement;  // proxy/exec/merge_build.hpp

/// What running a gather plan (routing/plan/gather_plan.hpp) needs from the client's session.
struct GatherContext {
  /// A connection to a shard (pool index) for the statement: the transaction block's part
  /// there, or one the session holds until the statement ends.
  std::function<awaitable<Result<BackendConnection*>>(int)> connection;
  /// The shards a read of one table (SELECT … FROM t WHERE …) reaches: the router's answer.
  std::function<Result<std::vector<int>>(const std::string&)> route;
  /// The shards a query of one table that a merge answers reads (the router's answer, whose
  /// refusal only says that a merge must combine what they answer); none: unknown.
  std::function<Result<std::vector<int>>(const std::string&)> summary_route;
  /// No transaction block holds the connections: each shard's reads run in one REPEATABLE READ
  /// transaction of the statement's own (one snapshot per shard), ended when it is done.
  bool own_transaction = false;
  /// Where the statement runs when that shard does (a part the block already has), else -1.
  int preferred_shard = -1;
  /// The most bytes of rows pgrange holds for the statement (query_memory); past it a Gather's
  /// rows go to a temporary file in `temp_directory` ("": $TMPDIR, else /tmp) and from there to
  /// temporary tables on the statement's shard.
  size_t memory_limit = 0;
  std::string temp_directory;
  /// What gives the session's connections back the client's extra_float_digits after the reads
  /// set it to 3 (every float read exactly); empty when the session has PostgreSQL's default
  /// (1: floats are written exactly already), so nothing is set.
  std::string float_digits_sql;
  /// The extended protocol: the statement's Parse parameter types and its Bind after the
  /// statement name (formats, values, result formats).
  const std::string* parameter_types = nullptr;
  const std::string* bind_rest = nullptr;
  /// What the statement's shard sends besides rows (NoticeResponse, ParameterStatus).
  std::function<void(char type, const std::string& body)> other;
  /// Makes the Merge of one query run on several shards' connections, the session's
  /// settings and the shards' order of text checked (a broadcast join's last step); empty:
  /// no broadcast, the statement runs on one shard.
  std::function<awaitable<ExecResult<std::unique_ptr<Operator>>>(
      sql::MergeQuery, const std::vector<BackendConnection*>&, bool in_transaction)>
      merge;
  /// Makes the Merge of a query of one table (an input's Summary: text results; `bound`, when
  /// it has the statement's parameters, their types and values) on its shards' connections, in
  /// the statement's transactions there; empty: every input's table rows are read.
  std::function<awaitable<ExecResult<std::unique_ptr<Operator>>>(
      sql::MergeQuery, const std::vector<BackendConnection*>&, const BoundStatement* bound)>
      summarize;
  /// The types of every parameter of the statement `text` as a shard infers them (a
  /// ParameterDescription's body, which is a Parse's list of types too), asked on `conn`: for a
  /// Summary with parameters, whose statement then no longer names some of them. Err: the
  /// shard's error (its SQLSTATE and message), or why it could not answer.
  std::function<awaitable<Result<std::string>>(BackendConnection& conn, const std::string& text)>
      infer_parameter_types;
};

/// How it went: the rows sent, or a shard's ErrorResponse body, or pgrange's own error.
struct GatherOutcome {
  uint64_t rows = 0;
  std::optional<std::string> shard_error;
  std::optional<Error> error;
  /// After GatherReads alone: the statement with the rows read in place of its tables.
  std::string statement;
  /// What each operator did (EXPLAIN ANALYZE): each input's read, then the statement's run.
  struct Step {
    std::vector<int> shards;
    uint64_t rows = 0;
    double ms = 0;
    /// Its reads: more than one for a lookup by more values than one read lists.
    size_t reads = 0;
    /// Not read: the statement ran on its one shard, on the table itself.
    bool in_place = false;
    /// Its Summary's query was merged over the shards: its rows are that query's.
    bool summarized = false;
    /// Rows that went past query_memory to a temporary file, then a temporary table where
    /// the statement ran.
    uint64_t spilled_rows = 0;
    /// Its Summary's answer went past query_memory: the table's rows were read instead.
    bool summary_past_memory = false;
    /// Its lookup's values went past query_memory: every row its conditions allow was read.
    bool lookup_dropped = false;
  };
  std::vector<Step> steps;
  bool ok() const { return !shard_error && !error; }
};

/// Materialize: the reads of a gather plan's inputs (routing/plan/gather_plan.hpp), each a
/// Route on the shards its conditions reach (a lookup's after its source's rows, by their
/// values), the rows held in pgrange as literals of their tables' row types. Outside a
/// transaction block each shard read more than once is read in one REPEATABLE READ transaction
/// of the statement's own (one snapshot per shard), which close() ends (or the statement that
/// runs there last, see take_transaction()). Alone, it reads every input and
/// statement_with_rows() is the statement with them written in, for the caller to run (a
/// cursor's DECLARE, a write's reads); under a Gather, the last input may stay in place
/// instead, read where the statement runs (kept_shard(), broadcast_shards()).
class GatherReads final : public Operator {
 public:
  /// `for_statement`: a Gather runs the statement on a shard after the reads.
  GatherReads(const routing::GatherPlan& plan, GatherContext& ctx, bool for_statement);

  /// Reads every input (or leaves the last in place).
  awaitable<ExecResult<void>> open() override;
  std::string columns() const override { return {}; }
  /// Its rows are held for the statement, not handed up.
  awaitable<ExecResult<bool>> next(Batch&) override { co_return false; }
  /// Ends the statement's own transactions (COMMIT, or ROLLBACK after a failure) and gives the
  /// connections the reads changed back the client's float digits.
  awaitable<void> close(bool abandon) override;
  std::vector<const Operator*> inputs() const override { return {}; }
  std::string describe() const override;

  /// The statement with every input's rows written in place of its table (or its Summary's
  /// rows in place of that query).
  std::string statement_with_rows() const {
    return plan_.final_sql(rows_, std::vector<bool>(rows_.size(), false), summarized_);
  }
  /// The statement with the rows read, the inputs left in place kept as tables (Gather), those
  /// that went to disk read from their temporary tables (load_spilled).
  std::string statement_with_kept() const {
    return plan_.final_sql(rows_, kept_, summarized_, spill_tables_);
  }
  /// Whether some input's rows went to disk past query_memory (a Gather's reads only).
  bool spilled() const { return spilled_; }
  /// Creates on the statement's connection to `shard` a temporary table per input whose rows
  /// went to disk, dropped when the transaction there ends (one of the statement's own is
  /// opened if there is none: statement_runs_on then says so), and copies their rows into it
  /// (COPY … FROM STDIN, a buffer at a time). Failures are recorded in outcome().
  awaitable<void> load_spilled(int shard);
  /// The DROP TABLE of the tables load_spilled made in a transaction block ("" when it made
  /// none, or only temporary tables of the statement's own transaction, which its end drops).
  std::string drop_spilled_sql() const;
  /// A broadcast join's shard query, the rows read written in.
  std::string broadcast_sql() const { return plan_.broadcast_sql(rows_); }
  /// Frees the rows (written into the statement by now).
  void release_rows();

  /// A connection to `shard` for the statement (the same one its reads used, if any).
  awaitable<Result<BackendConnection*>> statement_connection(int shard);
  /// The shard where the last input stays, read by the statement there (-1: none).
  int kept_shard() const { return on_shard_; }
  /// The last input's shards, when the statement runs on each of them (a broadcast join).
  const std::vector<int>& broadcast_shards() const { return broadcast_shards_; }
  /// The shard that read the most (one whose own transaction is open first: its COMMIT can
  /// go with the statement), or -1.
  int busiest_shard() const;
  bool read_on(int shard) const { return reads_.count(shard) != 0; }
  bool in_own_transaction(int shard) const { return open_transactions_.count(shard) != 0; }
  /// The statement runs on `shard`: its own transaction there is the statement's to end (true
  /// when there was one), and the others' are ended now, their answers read at close().
  awaitable<bool> statement_runs_on(int shard);

  /// The statement's Parse parameter types: as a shard inferred them where a Summary needed
  /// them (its statement may no longer name some), else the client's.
  const std::string* parameter_types() const {
    return inferred_types_.empty() ? ctx_.parameter_types : &inferred_types_;
  }

  GatherOutcome& outcome() { return outcome_; }
  const GatherOutcome& outcome() const { return outcome_; }
  /// The first failure recorded, as an ExecResult.
  ExecResult<void> failure() const;
  /// Records what stopped an operator (the first failure counts).
  void fail(const ExecFailure& f);

 private:
  /// One read of input i's rows sent to a shard, not read yet.
  struct Pending {
    size_t input = 0;
    int shard = 0;
    BackendConnection* conn = nullptr;
    bool ends = false;  // its COMMIT ends the shard's transaction
  };
  awaitable<Result<BackendConnection*>> connection(int shard, bool read, bool last,
                                                   std::string& prefix);
  awaitable<void> send_input(size_t i);
  /// Input i's Summary: its query merged over its shards, its rows held as the query that
  /// gives them. false when the merge cannot compute it or its answer is past query_memory:
  /// the table's rows are read instead.
  awaitable<bool> read_summary(size_t i);
  awaitable<void> read_pending();
  /// Input i's rows go to disk from now on, those held too (a Gather's inputs, past
  /// query_memory): false when they may not (no Gather, a broadcast).
  Result<bool> spill(size_t i);
  /// Gives up the values input i holds for lookups (past query_memory, when its rows are on
  /// disk already): the lookups from it read every row their own conditions allow.
  void drop_values(size_t i);

  const routing::GatherPlan& plan_;
  GatherContext& ctx_;
  const bool for_statement_;
  GatherOutcome outcome_;
  std::map<int, BackendConnection*> used_;      // shard → connection, in the statement's snapshot
  std::map<int, size_t> reads_;                 // shard → how many reads ran there
  std::set<int> open_transactions_;             // shards with a transaction of the statement's own
  std::vector<std::vector<std::string>> rows_;  // per input, the text of each row read
  /// Per input, per provided column: its distinct non-NULL values, and their type.
  std::vector<std::vector<std::set<std::string>>> provided_;
  std::vector<std::vector<uint32_t>> provided_types_;
  /// Per input, what its provided values cost (query_memory), and whether they were given up
  /// past query_memory (a lookup from it then reads every row its own conditions allow).
  std::vector<size_t> values_held_;
  std::vector<bool> values_dropped_;
  /// What the rows cost pgrange, as query_memory counts it: each row's text and the string
  /// that holds it, and the text again twice for the statement written from the rows and the
  /// message that carries it to its shard.
  size_t held_ = 0;
  size_t text_ = 0;
  std::vector<std::chrono::steady_clock::time_point> started_;
  std::vector<Pending> pending_;  // in the order sent (a connection answers in order)
  std::vector<bool> read_;
  /// An input left in the statement as its table, read where the statement runs (on_shard_).
  std::vector<bool> kept_;
  /// An input whose Summary's rows were read (its rows_ hold the query that gives them).
  std::vector<bool> summarized_;
  /// Inputs whose rows went to a temporary file (past query_memory): the file, and the
  /// temporary table that holds them for the statement (load_spilled).
  SpillBudget spill_budget_;
  std::vector<std::unique_ptr<SpillRecords>> spills_;
  std::vector<std::string> spill_tables_;
  bool spilled_ = false;
  int on_shard_ = -1;
  /// For Summaries with parameters: the statement's parameter types as a shard infers them,
  /// and its Bind's values with text results.
  std::string inferred_types_;
  std::string summary_bind_;
  std::vector<int> broadcast_shards_;
  int statement_shard_ = -1;  // where the statement ran (its connection is its to settle)
  // Shards whose own transaction was ended when the statement was sent (every read of them
  // done): their answers are read at close(), having come meanwhile.
  std::vector<BackendConnection*> ending_early_;
  bool closed_ = false;
};

/// Reads up to ReadyForQuery, dropping what comes; the first error's body, if any.
awaitable<Result<std::optional<std::string>>> drain(BackendConnection& conn);

}  // namespace pgrange::proxy::exec
