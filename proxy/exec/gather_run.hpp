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
#include "proxy/exec/gather_reads.hpp"
#include "proxy/exec/operator.hpp"
#include "routing/plan/gather_plan.hpp"

namespace pgrange::proxy::exec {

/// Gather: a gather plan (routing/plan/gather_plan.hpp) as an operator. open() reads every
/// input (its Materialize, GatherReads) and starts the statement with those rows on one shard;
/// its rows are that statement's. The last input may stay in place, read by the statement on
/// its one shard, or, over several shards, the statement runs on each of them under a Merge
/// (a broadcast join). close() ends the statement's own transactions on the shards.
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
  const GatherOutcome& outcome() const { return reads_.outcome(); }

 private:
  /// The statement's next message; false (the failure recorded) when its connection failed.
  awaitable<bool> read_final(char& type, std::string& body);
  /// One message of the statement's answer besides rows; false at its ReadyForQuery.
  bool take_final(char type, std::string& body);
  /// The broadcast join: the statement on each of the last input's shards, merged.
  awaitable<ExecResult<void>> open_broadcast();

  const routing::GatherPlan& plan_;
  GatherContext& ctx_;
  GatherReads reads_;
  std::unique_ptr<Operator> merge_;     // a broadcast join's Merge
  int shard_ = -1;                      // where the statement runs
  BackendConnection* final_ = nullptr;  // its connection
  bool ends_here_ = false;              // a COMMIT follows it there
  bool final_done_ = true;              // its ReadyForQuery came (or nothing was sent)
  bool final_ended_ = false;            // its CommandComplete came
  bool closed_ = false;
  std::string columns_;
  std::chrono::steady_clock::time_point final_started_;
};

}  // namespace pgrange::proxy::exec
