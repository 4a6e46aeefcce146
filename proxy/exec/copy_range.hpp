#pragma once

#include <functional>
#include <memory>
#include <string>

#include "proxy/backend/backend_connection.hpp"
#include "proxy/exec/merge_build.hpp"
#include "proxy/exec/operator.hpp"
#include "routing/meta/cluster_view.hpp"
#include "routing/plan/copy_plan.hpp"

namespace pgrange::proxy::exec {

/// The binary COPY format's trailer (a tuple count of -1), written once after every part.
inline constexpr std::string_view kCopyBinaryTrailer{"\377\377", 2};

/// A Route for COPY … TO STDOUT: one shard's `COPY (…) TO STDOUT`, its CopyData messages handed
/// up as they come (Batch::rows counts its rows when the shard's COPY completes). Its columns
/// are the CopyOutResponse. Several of them, concatenated, make one COPY of the client's: all
/// but the first leave out the header line (CSV HEADER) and the binary format's header, and
/// each leaves out the binary trailer, which the root writes once at the end.
class CopyRange final : public Operator {
 public:
  struct Options {
    int shard = 0;
    std::string shard_name;
    std::string statement;  ///< COPY (…) TO STDOUT …
    bool first = true;      ///< the first of the client's COPY: header lines kept
    bool binary = false;
    bool header = false;
    /// The connection to run it on (a pool index's; the statement's, or a transaction block's
    /// part), given the session's settings here before the COPY; what the shard sends besides
    /// its COPY (NoticeResponse) goes to the session's `other`.
    std::function<awaitable<Result<BackendConnection*>>(int)> connection;
    ShardSession session;
  };

  explicit CopyRange(Options o);

  awaitable<ExecResult<void>> open() override;
  std::string columns() const override { return columns_; }
  awaitable<ExecResult<bool>> next(Batch& out) override;
  awaitable<void> close(bool abandon) override;
  std::vector<const Operator*> inputs() const override { return {}; }
  std::string describe() const override;

 private:
  /// The shard's next message (a failed connection ends it).
  awaitable<ExecResult<void>> read(char& type, std::string& body);

  Options o_;
  BackendConnection* conn_ = nullptr;
  std::string columns_;
  bool first_data_ = true;
  std::string held_;  // binary: the last CopyData, until it is known not to be the trailer
  bool holding_ = false;
  bool done_ = false;  // ReadyForQuery came
  std::optional<std::string> shard_error_;
};

/// The root of a COPY … TO STDOUT over several shards: the client's answer around its input's
/// CopyData (Concatenate of CopyRanges): the CopyOutResponse (the first part's) before the
/// first batch, the binary format's trailer and CopyDone after the last, "COPY n" of the rows
/// of every part.
class CopyOut final : public Operator {
 public:
  CopyOut(std::unique_ptr<Operator> input, bool binary);

  awaitable<ExecResult<void>> open() override;
  std::string columns() const override { return input_->columns(); }
  awaitable<ExecResult<bool>> next(Batch& out) override;
  awaitable<void> close(bool abandon) override { co_await input_->close(abandon); }
  std::vector<const Operator*> inputs() const override { return {input_.get()}; }
  std::string describe() const override;
  /// The CopyOutResponse comes in the first batch (it is not a RowDescription).
  bool described_up_front() const override { return false; }
  std::string command_tag() const override { return "COPY " + std::to_string(rows_out_); }

 private:
  std::unique_ptr<Operator> input_;
  bool binary_;
  bool started_ = false;  // the CopyOutResponse went up
};

/// The tree of a COPY … TO STDOUT over several shards: a CopyRange per step of `plan`,
/// concatenated in its order, under a CopyOut. The steps on one shard run on one connection
/// (`connection` is asked once per shard, when its first step opens).
std::unique_ptr<Operator> make_copy_out(
    const routing::CopyOutPlan& plan, const routing::ClusterView& view,
    std::function<awaitable<Result<BackendConnection*>>(int)> connection, ShardSession session);

}  // namespace pgrange::proxy::exec
