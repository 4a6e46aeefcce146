#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "proxy/backend/backend_connection.hpp"
#include "proxy/exec/operator.hpp"

namespace pgrange::proxy::exec {

/// Write: one INSERT, UPDATE or DELETE over several shards, each shard's part in a transaction
/// there (the caller's: ending it, with two-phase commit, is not the operator's). The shards run
/// one after the other, in shard order: two such writes that need the same rows queue on the
/// first shard they share instead of deadlocking across shards. Their answers are combined as
/// one statement's: the command tags' counts added, the RETURNING rows handed up (in the order
/// of the INSERT's VALUES rows when its rows were split over shards), the copies of a reference
/// table checked to answer alike. The rows' description (or NoData) and the shards' notices
/// come inside its batches, where the shards send them, as the rows of a write come.
class ShardWrite final : public Operator {
 public:
  /// A shard's part of the statement, sent: the connection its answer comes on, the
  /// ReadyForQuery messages that end it, and the CommandCompletes before the statement's own
  /// that belong to the opening of the transaction there (BEGIN, SET).
  struct Started {
    BackendConnection* conn = nullptr;
    int readies = 1;
    int opening_tags = 0;
    /// A named statement the request prepares on the connection: forgotten there if the
    /// request fails (whether its Parse went through is not known then).
    std::string parsed;
  };
  /// Sends `statement` to `shard` (opening the transaction there if it is new).
  using Start =
      std::function<awaitable<ExecResult<Started>>(int shard, const std::string& statement)>;

  struct Options {
    /// What each shard runs, by shard: the order they run in.
    std::map<int, std::string> statements;
    Start start;
    /// The rows' description (or NoData) goes up with the rows (a Describe asked for it, or
    /// the simple protocol).
    bool describe = true;
    /// A write to a reference table (`table`): every shard holds a copy, the first one's
    /// answer is the statement's, the others' must be the same.
    bool replicated = false;
    std::string table;
    /// The RETURNING rows go up only once every shard answered (as PostgreSQL's own are: a
    /// failed write returns none), in the order of the VALUES rows of an INSERT whose rows
    /// `row_shards` split over shards.
    bool hold_rows = false;
    std::vector<int> row_shards;
    /// Runs once every shard answered, before the write counts as done (the entries of global
    /// indexes: a UNIQUE index's violation fails the statement, as PostgreSQL's would).
    std::function<awaitable<std::optional<Error>>()> before_end;
  };

  explicit ShardWrite(Options o);

  awaitable<ExecResult<void>> open() override;
  /// The RowDescription a shard sent (empty: none yet, or a write without RETURNING).
  std::string columns() const override { return columns_; }
  awaitable<ExecResult<bool>> next(Batch& out) override;
  awaitable<void> close(bool abandon) override;
  std::vector<const Operator*> inputs() const override { return {}; }
  std::string describe() const override;
  bool described_up_front() const override { return false; }
  std::string command_tag() const override { return tag_; }

 private:
  /// Reads the current shard's answer up to its ReadyForQuery (or until `out` holds a batch);
  /// true once it ended.
  awaitable<ExecResult<bool>> read_shard(Batch& out);

  Options o_;
  std::map<int, std::string>::const_iterator at_;  // the shard running
  Started part_;
  bool replica_ = false;    // the current shard is a reference table's other copy
  bool described_ = false;  // a description (or NoData) went up
  std::string columns_;
  std::string tag_;
  std::optional<ExecFailure> failure_;  // the first thing that failed the statement
  std::vector<std::string> held_;
  std::map<int, size_t> returned_;  // shard → RETURNING rows it gave (held_)
  bool done_ = false;
};

/// The RETURNING rows of an INSERT split by shard (`rows`: each shard's, in shard order, and
/// `returned` of them from each) in the order of its VALUES rows (`row_shards`: each row's
/// shard), as PostgreSQL returns them: clients map the keys made back to their rows by
/// position. Left in shard order when a shard returned another number of rows than it was sent
/// (ON CONFLICT skipped some).
std::vector<std::string> in_values_order(std::vector<std::string> rows,
                                         const std::map<int, size_t>& returned,
                                         const std::vector<int>& row_shards);

}  // namespace pgrange::proxy::exec
