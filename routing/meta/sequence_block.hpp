#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/error.hpp"

namespace pgrange::routing {

/// A cluster-wide sequence as the metadata store keeps it: PostgreSQL's pg_sequence settings
/// and its state (last_value, is_called as in a sequence relation).
struct SequenceState {
  int64_t last_value = 1;
  /// false: the next value is last_value itself (a fresh sequence, setval(…, false)).
  bool is_called = false;
  int64_t increment = 1;
  int64_t min_value = 1;
  int64_t max_value = INT64_MAX;
  int64_t start_value = 1;
  bool cycle = false;

  bool operator==(const SequenceState&) const = default;
};

/// Values a pgrange instance may hand out: first, first + increment, … (count of them).
struct SequenceBlock {
  int64_t first = 0;
  int64_t increment = 1;
  int64_t count = 0;

  bool operator==(const SequenceBlock&) const = default;
};

/// Reserves up to `wanted` (≥ 1) values of sequence `name` from `state`, as that many nextval()
/// calls would give them, and advances `state` past them. A block stops at the sequence's bound
/// (the next reservation wraps when it CYCLEs); at the bound without CYCLE it is PostgreSQL's
/// 2200H "nextval: reached maximum (minimum) value of sequence".
Result<SequenceBlock> reserve_block(SequenceState& state, int64_t wanted, const std::string& name);

/// setval(name, value, is_called): 22003 when `value` is outside the sequence's bounds, as
/// PostgreSQL's.
Result<void> set_value(SequenceState& state, int64_t value, bool is_called,
                       const std::string& name);

/// Hands out the values of reserved blocks one at a time.
class SequenceCache {
 public:
  /// The next value of the block, or nullopt when it is used up.
  std::optional<int64_t> next();
  /// How many values are left.
  int64_t left() const { return block_.count - used_; }
  /// Starts handing out `block` (what was left of the previous one is dropped, a gap).
  void refill(const SequenceBlock& block) {
    block_ = block;
    used_ = 0;
  }
  /// Drops what is left (after setval or ALTER SEQUENCE, the next value comes from the store).
  void clear() { refill({}); }

 private:
  SequenceBlock block_;
  int64_t used_ = 0;
};

}  // namespace pgrange::routing
