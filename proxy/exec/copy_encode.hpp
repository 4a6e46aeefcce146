#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "proxy/exec/operator.hpp"
#include "routing/merge/merge_rows.hpp"
#include "sql/copy_statement.hpp"
#include "sql/copy_writer.hpp"

namespace pgrange::proxy::exec {

/// The rows of a query (its tree) written as the client's COPY (query) TO STDOUT writes them:
/// each row a CopyData in the COPY's format (sql::CopyRowWriter), the HEADER line or binary
/// header before the first. Its columns are the CopyOutResponse; a CopyOut above it sends that
/// and ends the COPY. For the binary format a value the input has in text is turned into its
/// binary form where pgrange knows the type's (routing::binary_value); 0A000 for another type.
class CopyEncode final : public Operator {
 public:
  /// `exact_floats`: the session prints floats exactly, so that a float's text reads back as
  /// the same value (else the binary format refuses float columns it has as text).
  CopyEncode(std::unique_ptr<Operator> input, sql::CopyOptions options, bool exact_floats);

  awaitable<ExecResult<void>> open() override;
  std::string columns() const override { return response_; }
  awaitable<ExecResult<bool>> next(Batch& out) override;
  awaitable<void> close(bool abandon) override { co_await input_->close(abandon); }
  std::vector<const Operator*> inputs() const override { return {input_.get()}; }
  std::string describe() const override;

 private:
  /// One DataRow body as the COPY's data, appended to `data`.
  Result<void> encode(std::string body, std::string& data);

  std::unique_ptr<Operator> input_;
  sql::CopyOptions options_;
  bool exact_floats_;
  std::vector<routing::ResultField> fields_;
  std::optional<sql::CopyRowWriter> writer_;
  std::string response_;                                 // CopyOutResponse body
  bool started_ = false;                                 // the header went up
  std::string line_;                                     // reused for each row
  std::vector<std::optional<std::string_view>> values_;  // the row's values (reused)
  std::vector<std::string> converted_;  // binary forms made here for the row (reused)
};

}  // namespace pgrange::proxy::exec
