#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>  // before asio/awaitable.hpp (Boost 1.74)
#include <vector>

#include "common/error.hpp"
#include "proxy/asio.hpp"
#include "proxy/backend/backend_connection.hpp"
#include "routing/meta/cluster_view.hpp"
#include "sql/copy_rows.hpp"
#include "sql/copy_statement.hpp"

namespace pgrange::proxy::exec {

/// COPY … FROM STDIN into a table over several shards: each row the client sends is keyed and
/// streamed, unchanged, to the same COPY on the shard that owns it (to every shard for a
/// reference table), in CopyData messages of about 64 KiB. The COPYs run in the caller's
/// transaction (`Part`); ending it is the caller's too. An error names the client's line, as
/// PostgreSQL's would: a shard's is mapped from its own line numbers, and of several the
/// earliest line's is the one reported.
class CopyRouter {
 public:
  /// The statement's connection on a shard, in its transaction.
  using Part = std::function<awaitable<Result<BackendConnection*>>(int shard)>;

  /// Plans the COPY `stmt` (the text `statement`, which each shard runs) into its table of
  /// `view`: 42P01 for an unknown table, 0A000 for what cannot be routed (FROM a file or
  /// program, a key column left out of the column list), PostgreSQL's errors for the columns.
  /// `route_shards`: the router's shards for it (the first opens the COPY when the table has a
  /// key).
  static Result<std::unique_ptr<CopyRouter>> make(std::shared_ptr<const routing::ClusterView> view,
                                                  const sql::CopyStatement& stmt,
                                                  std::string statement,
                                                  const std::vector<int>& route_shards, Part part);

  /// Opens the COPY on the first shard: its CopyInResponse body for the client, or what failed
  /// it (a shard's ErrorResponse body, or pgrange's error); what the shard noted meanwhile.
  struct Started {
    std::optional<std::string> response;
    std::optional<std::string> shard_error;
    std::optional<Error> error;
    std::vector<std::string> notices;
  };
  awaitable<Started> start();

  /// The client's CopyData: its rows to their shards (a failure waits for the end).
  awaitable<void> feed(std::string_view data);

  /// How the COPY ended: the shards' notices, then its CommandComplete tag, or the error
  /// PostgreSQL would have reported (a shard's ErrorResponse body, or pgrange's error).
  struct Outcome {
    std::vector<std::string> notices;
    std::string tag;
    std::optional<std::string> shard_error;
    std::optional<Error> error;
    bool ok() const { return !shard_error && !error; }
  };
  /// Ends every shard's COPY after the client's CopyDone ('c'), CopyFail ('f', with its body)
  /// or any other message (a protocol violation, as PostgreSQL reports it).
  awaitable<Outcome> finish(char type, std::string_view body);

 private:
  /// Consecutive rows one shard received: its lines [shard_line, shard_line + count) are the
  /// client's lines [client_line, client_line + count).
  struct LineRun {
    uint64_t shard_line = 0;
    uint64_t client_line = 0;
    uint64_t count = 0;
  };
  /// One shard's COPY.
  struct Target {
    BackendConnection* conn = nullptr;
    std::string pending;  ///< rows not sent yet
    bool header_sent = false;
    uint64_t rows = 0;
    std::vector<LineRun> lines;
  };

  CopyRouter() = default;
  uint64_t client_line(int shard, uint64_t line) const;
  void add_row(int shard, const sql::CopyRowReader::Row& row);
  void route_row(const sql::CopyRowReader::Row& row);
  void record(std::optional<sql::CopyRowReader::Failure> f);
  /// The COPY statement sent on `shard`'s connection (opened once).
  awaitable<Result<BackendConnection*>> target(int shard);
  /// Sends the rows gathered for `shard` once there are enough (or any, with `all`).
  awaitable<bool> flush(int shard, bool all);

  std::string statement_;  ///< what each shard runs: the client's COPY
  std::shared_ptr<const routing::ClusterView> view_;
  routing::TableDescriptor table_;
  std::optional<sql::CopyRowReader> reader_;
  Part part_;
  bool binary_ = false;
  uint64_t header_lines_ = 0;
  std::map<int, Target> targets_;
  int first_shard_ = -1;
  std::optional<Error> failure_;    ///< pgrange's own: a malformed row, a key it cannot read
  uint64_t failure_line_ = 0;       ///< …and its line
  std::optional<Error> transport_;  ///< a shard connection failed
  std::string key_;                 ///< scratch
};

}  // namespace pgrange::proxy::exec
