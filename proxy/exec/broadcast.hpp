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

/// Broadcast: one utility statement (DDL) on each of a set of shards, one shard after the
/// other in their order. The first shard's answer is the statement's: its CommandCompletes and
/// notices go up as it sent them, and an error there is its own (the statement ran nowhere
/// else). Outside a transaction each shard commits it on its own, as PostgreSQL's autocommit
/// does, so an error on a later shard comes after it committed on the shards before: there
/// `undo` runs (what a CREATE TABLE made), and the error names the failing shard and what
/// became of the others, so that no shard keeps a table pgrange does not know and the user
/// knows what to run again. Inside the caller's transaction on every shard, an error anywhere
/// is the statement's, as that shard said it: the transaction's end undoes it everywhere.
class Broadcast final : public Operator {
 public:
  struct Options {
    /// The shards, in the order they run it.
    std::vector<int> shards;
    /// Each shard's part runs in the caller's transaction there (a transaction block's).
    bool in_transaction = false;
    /// What each shard is sent: a Query, or Parse/Bind/Execute/Sync of the client's statement
    /// (the shards then answer with the client's parameters as PostgreSQL would).
    std::string request;
    /// A pooled connection to `shard`, brought to the session's settings.
    std::function<awaitable<Result<std::shared_ptr<BackendConnection>>>(int shard)> acquire;
    /// Gives a connection back to its pool (broken ones are closed there); empty, when the
    /// connections stay the caller's.
    std::function<void(std::shared_ptr<BackendConnection>)> release;
    std::function<std::string(int shard)> shard_name;
    /// The kinds of the first shard's messages that go up ("": all but ParseComplete,
    /// BindComplete, ReadyForQuery and errors).
    std::string relay;
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
  /// The first shard's first CommandComplete tag ("" before it came, or when none did).
  const std::string& first_tag() const { return first_tag_; }

 private:
  /// Runs the request on `shard`: its answer (without ParseComplete, BindComplete and
  /// ReadyForQuery) into `reply`, its first error into `failure`.
  awaitable<void> run_on(int shard, std::string& reply, std::optional<ExecFailure>& failure);
  /// Undoes the statement on the shards before the `failed`th and says so in `e`'s detail.
  awaitable<void> undo_before(size_t failed, Error& e);

  Options o_;
  std::string answer_;
  std::string first_tag_;
  std::optional<ExecFailure> failure_;
  bool sent_ = false;
};

/// What undoes `statements` on a shard where they ran: the DROP TABLE of each table a CREATE
/// TABLE made, the DROP ROLE of each role a CREATE ROLE made ("" when there is none, or the
/// CREATE TABLE had IF NOT EXISTS and may have made nothing).
std::string undo_of_broadcast(const std::vector<sql::StatementInfo>& statements);

}  // namespace pgrange::proxy::exec
