#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>  // before asio/awaitable.hpp (Boost 1.74)
#include <vector>

#include "common/error.hpp"
#include "proxy/asio.hpp"

namespace pgrange::proxy::exec {

/// Why an operator stopped: pgrange's own error, or the first ErrorResponse body a shard sent
/// (passed on to the client as the shard said it).
struct ExecFailure {
  std::optional<Error> error;
  std::optional<std::string> shard_error;

  static ExecFailure of(Error e) { return ExecFailure{std::move(e), std::nullopt}; }
  static ExecFailure from_shard(std::string body) {
    return ExecFailure{std::nullopt, std::move(body)};
  }
};

template <typename T>
using ExecResult = tl::expected<T, ExecFailure>;

/// Rows handed from an operator to the one above it: DataRow messages as the client gets them
/// (type byte and length included), so that the root writes them out as they are.
struct Batch {
  std::string data;
  uint64_t rows = 0;
  /// The most rows the caller wants now (a cursor's FETCH count): an operator may stop there
  /// rather than read further ahead.
  uint64_t max_rows = UINT64_MAX;
};

/// One step of a plan over several shards, run by pgrange. A plan is a tree of them: each
/// pulls rows from its inputs, the root's rows go to the client. The life of one: open()
/// (work starts: shards get their SQL), columns() (the rows' RowDescription), next() until it
/// says there is no more, close() (what still runs is stopped or read out).
class Operator {
 public:
  virtual ~Operator() = default;

  /// Starts it and its inputs; after it, columns() is known.
  virtual awaitable<ExecResult<void>> open() = 0;
  /// The RowDescription body of its rows.
  virtual std::string columns() const = 0;
  /// Appends its next rows to `out`; false once it has none left (`out` may still have got
  /// some).
  virtual awaitable<ExecResult<bool>> next(Batch& out) = 0;
  /// Ends it and its inputs. With `abandon` (an error, or no more rows wanted) work still
  /// running is stopped; connections that cannot be used again are marked broken.
  virtual awaitable<void> close(bool abandon) = 0;
  /// The operators it reads, in order.
  virtual std::vector<const Operator*> inputs() const = 0;
  /// What it does, in one line (EXPLAIN).
  virtual std::string describe() const = 0;

  /// Whether columns() describes its rows before the first batch; false when the description
  /// (or NoData) comes inside its batches, where a shard sent it (a write's RETURNING rows).
  virtual bool described_up_front() const { return true; }
  /// Its CommandComplete tag once it has no rows left ("" for none).
  virtual std::string command_tag() const { return "SELECT " + std::to_string(rows_out_); }

  /// Rows it handed up so far (EXPLAIN ANALYZE, CommandComplete).
  uint64_t rows_out() const { return rows_out_; }

  /// From the start of its work to its last row (EXPLAIN ANALYZE), for operators that time
  /// themselves and have ended; nullopt otherwise.
  std::optional<double> elapsed_ms() const {
    if (started_at_ == Clock::time_point{} || ended_at_ == Clock::time_point{}) {
      return std::nullopt;
    }
    return std::chrono::duration<double, std::milli>(ended_at_ - started_at_).count();
  }

 protected:
  using Clock = std::chrono::steady_clock;
  void mark_started() {
    if (started_at_ == Clock::time_point{}) started_at_ = Clock::now();
  }
  void mark_ended() {
    if (ended_at_ == Clock::time_point{}) ended_at_ = Clock::now();
  }

  uint64_t rows_out_ = 0;

 private:
  Clock::time_point started_at_{};
  Clock::time_point ended_at_{};
};

/// How many rows an operator asks of its input at once, when it wants them all.
inline constexpr size_t kRowsAtOnce = 256;

/// An operator that hands up its rows to the operator above it in batches of DataRow bodies
/// (next_rows); next() makes them the messages of the root's batch.
class RowOperator : public Operator {
 public:
  /// Appends the DataRow bodies of up to `max` of its next rows to `rows` (never more, so that
  /// what is below reads no further than the rows asked need); false once it has none left
  /// (`rows` may still have got some). Counts rows_out_.
  virtual awaitable<ExecResult<bool>> next_rows(std::vector<std::string>& rows, size_t max) = 0;
  /// The rows of next_rows() as DataRow messages, up to about 64 KiB or `out.max_rows`.
  awaitable<ExecResult<bool>> next(Batch& out) override;
};

/// The rows of one shard, which a merge reads a row at a time (Route, a shard's cursor).
class ShardRows : public RowOperator {
 public:
  /// Sends the shard its work without waiting for the answer (open() does it if not done
  /// before): a plan starts every shard before it waits for any.
  virtual awaitable<ExecResult<void>> start() = 0;
  /// The next row's DataRow body into `body`; false once the shard has no more. Counts
  /// rows_out_.
  virtual awaitable<ExecResult<bool>> next_row(std::string& body) = 0;
  /// next_row() up to `max` times.
  awaitable<ExecResult<bool>> next_rows(std::vector<std::string>& rows, size_t max) override;
  /// No rows are left to read.
  virtual bool ended() const = 0;
};

}  // namespace pgrange::proxy::exec
