#pragma once

#include <functional>
#include <memory>
#include <string>

#include "proxy/backend/backend_connection.hpp"
#include "proxy/exec/operator.hpp"

namespace pgrange::proxy::exec {

/// Route: one query on one shard's connection, its rows as they stream in. The request may be
/// a Query or the extended protocol's Parse/Bind/Describe/Execute/Sync; the connection is the
/// caller's (a pooled one, or a transaction block's part) and stays open after close().
class ShardQuery final : public ShardRows {
 public:
  struct Options {
    BackendConnection* conn = nullptr;
    /// What runs the query there (shared: a query carrying rows goes to several shards).
    std::shared_ptr<const std::string> request;
    std::string sql;  ///< the query, for describe()
    /// A transaction holds the connection: the query is read to its end, never cancelled (a
    /// cancel would abort that transaction).
    bool in_transaction = false;
    /// Its rows are bounded (a LIMIT pushed down): read to the end rather than cancelled when
    /// the rows above it are done.
    bool bounded = false;
    /// What the shard sends besides rows (NoticeResponse, ParameterStatus), passed on.
    std::function<void(char type, const std::string& body)> other;
  };

  explicit ShardQuery(Options o);

  awaitable<ExecResult<void>> start() override;
  awaitable<ExecResult<void>> open() override;
  std::string columns() const override { return columns_; }
  awaitable<ExecResult<bool>> next_row(std::string& body) override;
  awaitable<void> close(bool abandon) override;
  std::vector<const Operator*> inputs() const override { return {}; }
  std::string describe() const override;

  int shard() const { return o_.conn->shard_index(); }
  /// Its CommandComplete (or error) came: no rows left.
  bool ended() const override { return ended_; }

 private:
  /// Reads one message; what it means for the query is kept in the flags below.
  awaitable<ExecResult<char>> read(std::string& body);

  Options o_;
  std::string columns_;
  bool started_ = false;
  bool described_ = false;
  bool ended_ = false;
  bool ready_ = true;    // ReadyForQuery came: the connection is idle (nothing sent yet)
  bool failed_ = false;  // the connection cannot be used again
};

}  // namespace pgrange::proxy::exec
