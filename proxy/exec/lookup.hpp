#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "proxy/exec/operator.hpp"

namespace pgrange::proxy::exec {

/// Lookup: a tree that depends on rows read first. It reads every row of `source` (the keys a
/// global index's entries name, say), then runs the tree `then` makes of them (the rows those
/// keys name, from the shards that own them); its rows are that tree's.
class Lookup final : public Operator {
 public:
  /// Makes the second tree from the source's DataRow bodies.
  using Then = std::function<awaitable<ExecResult<std::unique_ptr<Operator>>>(
      const std::vector<std::string>& rows)>;

  Lookup(std::unique_ptr<Operator> source, Then then, std::string what);

  awaitable<ExecResult<void>> open() override;
  std::string columns() const override;
  awaitable<ExecResult<bool>> next(Batch& out) override;
  awaitable<void> close(bool abandon) override;
  std::vector<const Operator*> inputs() const override;
  std::string describe() const override { return what_; }

 private:
  std::unique_ptr<Operator> source_;
  Then then_;
  std::string what_;
  std::unique_ptr<Operator> inner_;
  bool source_open_ = false;  // opened and not closed yet
};

}  // namespace pgrange::proxy::exec
