#pragma once

#include <memory>
#include <string>
#include <vector>

#include "proxy/exec/operator.hpp"

namespace pgrange::proxy::exec {

/// Concatenate: its inputs' rows one input after the other, in order; each input is opened
/// when the one before it has ended (one shard at a time), so the order is the inputs' order.
class Concatenate final : public Operator {
 public:
  explicit Concatenate(std::vector<std::unique_ptr<Operator>> inputs);

  /// Opens the first input (the columns are its).
  awaitable<ExecResult<void>> open() override;
  std::string columns() const override;
  awaitable<ExecResult<bool>> next(Batch& out) override;
  awaitable<void> close(bool abandon) override;
  std::vector<const Operator*> inputs() const override;
  std::string describe() const override;

 private:
  std::vector<std::unique_ptr<Operator>> inputs_;
  size_t current_ = 0;  // the input being read; inputs before it are closed
  bool current_open_ = false;
};

}  // namespace pgrange::proxy::exec
