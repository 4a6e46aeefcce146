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
#include "routing/plan/gather_plan.hpp"

namespace pgrange::proxy::exec {

/// What running a gather plan (routing/plan/gather_plan.hpp) needs from the client's session.
struct GatherContext {
  /// A connection to a shard (pool index) for the statement: the transaction block's part
  /// there, or one the session holds until the statement ends.
  std::function<awaitable<Result<BackendConnection*>>(int)> connection;
  /// The shards a read of one table (SELECT … FROM t WHERE …) reaches: the router's answer.
  std::function<Result<std::vector<int>>(const std::string&)> route;
  /// No transaction block holds the connections: each shard's reads run in one REPEATABLE READ
  /// transaction of the statement's own (one snapshot per shard), ended when it is done.
  bool own_transaction = false;
  /// Where the statement runs when that shard does (a part the block already has), else -1.
  int preferred_shard = -1;
  /// The most bytes of rows pgrange holds for the statement (query_memory).
  size_t memory_limit = 0;
  /// What gives the session's connections back the client's extra_float_digits after the reads
  /// set it to 3 (every float read exactly); empty when the session has PostgreSQL's default
  /// (1: floats are written exactly already), so nothing is set.
  std::string float_digits_sql;
  /// The extended protocol: the statement's Parse parameter types and its Bind after the
  /// statement name (formats, values, result formats).
  const std::string* parameter_types = nullptr;
  const std::string* bind_rest = nullptr;
  /// Only read the inputs: the statement, with their rows written in, is the caller's to run
  /// (GatherOutcome::statement).
  bool inputs_only = false;
  /// What the statement's shard sends besides rows (NoticeResponse, ParameterStatus).
  std::function<void(char type, const std::string& body)> other;
  /// Makes the Merge of one query run on several shards' connections, the session's
  /// settings and the shards' order of text checked (a broadcast join's last step); empty:
  /// no broadcast, the statement runs on one shard.
  std::function<awaitable<ExecResult<std::unique_ptr<Operator>>>(
      sql::MergeQuery, const std::vector<BackendConnection*>&, bool in_transaction)>
      merge;
};

/// How it went: the rows sent, or a shard's ErrorResponse body, or pgrange's own error.
struct GatherOutcome {
  uint64_t rows = 0;
  std::optional<std::string> shard_error;
  std::optional<Error> error;
  /// With GatherContext::inputs_only: the statement with the rows read in place of its tables.
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
  };
  std::vector<Step> steps;
  bool ok() const { return !shard_error && !error; }
};

/// Gather: a gather plan (routing/plan/gather_plan.hpp) as an operator. open() reads every
/// input from its shards (Routes, lookups, Materialize: the rows held in pgrange) and starts the
/// statement with those rows on one shard; its rows are that statement's. A broadcast join
/// runs it instead on each shard of the last input's rows, under a Merge (its input then). With
/// GatherContext::inputs_only it only reads the inputs (outcome().statement is the statement
/// with their rows written in). close() ends the statement's own transactions on the shards.
class Gather final : public Operator {
 public:
  Gather(const routing::GatherPlan& plan, GatherContext& ctx);

  awaitable<ExecResult<void>> open() override;
  std::string columns() const override { return columns_; }
  awaitable<ExecResult<bool>> next(Batch& out) override;
  awaitable<void> close(bool abandon) override;
  std::vector<const Operator*> inputs() const override;
  std::string describe() const override;

  /// What it did (after close): each input's read and the statement's run, or its failure.
  const GatherOutcome& outcome() const { return outcome_; }

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
  awaitable<void> read_pending();
  void release_rows();
  /// The statement's next message; false (the failure recorded) when its connection failed.
  awaitable<bool> read_final(char& type, std::string& body);
  /// One message of the statement's answer besides rows; false at its ReadyForQuery.
  bool take_final(char type, std::string& body);
  ExecResult<void> failure() const;
  /// Records what stopped an operator under it.
  void fail(const ExecFailure& f);
  /// The broadcast join: the statement on each of broadcast_shards_, merged.
  awaitable<ExecResult<void>> open_broadcast();

  const routing::GatherPlan& plan_;
  GatherContext& ctx_;
  GatherOutcome outcome_;
  std::map<int, BackendConnection*> used_;      // shard → connection, in the statement's snapshot
  std::map<int, size_t> reads_;                 // shard → how many reads ran there
  std::set<int> open_transactions_;             // shards with a transaction of the statement's own
  std::vector<std::vector<std::string>> rows_;  // per input, the text of each row read
  /// Per input, per provided column: its distinct non-NULL values, and their type.
  std::vector<std::vector<std::set<std::string>>> provided_;
  std::vector<std::vector<uint32_t>> provided_types_;
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
  int on_shard_ = -1;
  /// The last input's shards, when the statement runs on each of them (a broadcast join), and
  /// the Merge of their answers.
  std::vector<int> broadcast_shards_;
  std::unique_ptr<Operator> merge_;
  int shard_ = -1;                      // where the statement runs
  BackendConnection* final_ = nullptr;  // its connection
  bool ends_here_ = false;              // a COMMIT follows it there
  // Shards whose own transaction was ended when the statement was sent (every read of them
  // done): their answers are read at close(), having come meanwhile.
  std::vector<BackendConnection*> ending_early_;
  bool final_done_ = true;    // its ReadyForQuery came (or nothing was sent)
  bool final_ended_ = false;  // its CommandComplete came
  bool closed_ = false;
  std::string columns_;
  std::chrono::steady_clock::time_point final_started_;
};

}  // namespace pgrange::proxy::exec
