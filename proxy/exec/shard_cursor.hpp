#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "proxy/backend/backend_connection.hpp"
#include "proxy/exec/operator.hpp"

namespace pgrange::proxy::exec {

/// The rows of a cursor declared on one shard (DECLARE … CURSOR, or a portal's cursor), read a
/// batch at a time: `fetch` (FETCH FORWARD `batch` FROM it, as a Query or through the extended
/// protocol) is sent whenever the rows read are used up, never before. The connection holds
/// the cursor (a transaction block's part, or a connection kept for a cursor WITH HOLD); it is
/// the caller's, and so is closing the cursor.
class ShardCursor final : public ShardRows {
 public:
  ShardCursor(std::shared_ptr<BackendConnection> conn, std::string fetch, uint64_t batch,
              std::string name);

  awaitable<ExecResult<void>> start() override;
  awaitable<ExecResult<void>> open() override;
  std::string columns() const override { return columns_; }
  awaitable<ExecResult<bool>> next(Batch& out) override;
  awaitable<ExecResult<bool>> next_row(std::string& body) override;
  /// Nothing is running between fetches: there is nothing to stop.
  awaitable<void> close(bool) override { co_return; }
  std::vector<const Operator*> inputs() const override { return {}; }
  std::string describe() const override;
  bool ended() const override { return drained_ && rows_.empty(); }

 private:
  /// Reads the answer to the fetch sent.
  awaitable<ExecResult<void>> read_batch();

  std::shared_ptr<BackendConnection> conn_;
  std::string fetch_;
  uint64_t batch_;
  std::string name_;
  std::string columns_;
  std::deque<std::string> rows_;  // fetched, not handed up yet
  bool sent_ = false;             // a fetch is out, its answer not read
  bool drained_ = false;          // the shard's cursor has no rows left
};

}  // namespace pgrange::proxy::exec
