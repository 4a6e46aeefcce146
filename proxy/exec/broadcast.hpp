#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "proxy/backend/backend_connection.hpp"
#include "proxy/exec/operator.hpp"
#include "sql/statement_info.hpp"

namespace pgrange::proxy::exec {

/// Broadcast: one utility statement (DDL) on every shard, one shard after the other in shard
/// order, each committing there on its own as PostgreSQL's autocommit does. The first shard's
/// answer is the statement's: its CommandCompletes and notices go up as it sent them, and an
/// error there is its own (the statement ran nowhere else). An error on a later shard comes
/// after the statement committed on the shards before it: there `undo` runs (what a CREATE
/// TABLE made), and the error names the failing shard and what became of the others, so that
/// no shard keeps a table pgrange does not know and the user knows what to run again.
class Broadcast final : public Operator {
 public:
  struct Options {
    int shards = 0;
    /// What each shard is sent: a Query, or Parse/Bind/Execute/Sync of the client's statement
    /// (the shards then answer with the client's parameters as PostgreSQL would).
    std::string request;
    /// A pooled connection to `shard`, brought to the session's settings.
    std::function<awaitable<Result<std::shared_ptr<BackendConnection>>>(int shard)> acquire;
    /// Gives a connection back to its pool (broken ones are closed there).
    std::function<void(std::shared_ptr<BackendConnection>)> release;
    std::function<std::string(int shard)> shard_name;
    /// SQL that undoes the statement on the shards where it ran when a later one fails (""
    /// when it cannot be undone: the error then says where it ran).
    std::string undo;
  };

  explicit Broadcast(Options o);

  /// Runs the statement on every shard (or up to the first that fails).
  awaitable<ExecResult<void>> open() override;
  std::string columns() const override { return {}; }
  /// The first shard's answer, then the failure if there was one.
  awaitable<ExecResult<bool>> next(Batch& out) override;
  awaitable<void> close(bool) override { co_return; }
  std::vector<const Operator*> inputs() const override { return {}; }
  std::string describe() const override;
  /// Its rows' description never comes: DDL answers with CommandCompletes only.
  bool described_up_front() const override { return false; }
  /// The tags are the first shard's own, inside the answer.
  std::string command_tag() const override { return {}; }

 private:
  /// Runs the request on `shard`: its answer (without ParseComplete, BindComplete and
  /// ReadyForQuery) into `reply`, its first error into `failure`.
  awaitable<void> run_on(int shard, std::string& reply, std::optional<ExecFailure>& failure);
  /// Undoes the statement on the shards before `failed` and says so in `e`'s detail.
  awaitable<void> undo_before(int failed, Error& e);

  Options o_;
  std::string answer_;
  std::optional<ExecFailure> failure_;
  bool sent_ = false;
};

/// What undoes `statements` on a shard where they ran: the DROP TABLE of each table a CREATE
/// TABLE made ("" when there is none, or the CREATE had IF NOT EXISTS and may have made
/// nothing).
std::string undo_of_broadcast(const std::vector<sql::StatementInfo>& statements);

}  // namespace pgrange::proxy::exec
