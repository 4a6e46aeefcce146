#include "routing/meta/sequence_block.hpp"

namespace pgrange::routing {
namespace {

constexpr std::string_view kSequenceGeneratorLimitExceeded = "2200H";

}  // namespace

Result<SequenceBlock> reserve_block(SequenceState& state, int64_t wanted, const std::string& name) {
  if (wanted < 1) wanted = 1;
  const int64_t inc = state.increment;
  int64_t next = state.last_value;
  bool past = false;
  if (state.is_called) {
    // The value after last_value, unless it lies beyond the bound (or beyond int64).
    if (inc > 0) {
      past = state.last_value > state.max_value - inc;
    } else {
      past = state.last_value < state.min_value - inc;
    }
    if (!past) next = state.last_value + inc;
  }
  if (past) {
    if (!state.cycle) {
      bool up = inc > 0;
      return fail(kSequenceGeneratorLimitExceeded,
                  "nextval: reached " + std::string(up ? "maximum" : "minimum") +
                      " value of sequence \"" + name + "\" (" +
                      std::to_string(up ? state.max_value : state.min_value) + ")");
    }
    next = inc > 0 ? state.min_value : state.max_value;
  }
  // How many values fit between next and the bound, counted without overflowing.
  __int128 room = inc > 0 ? (static_cast<__int128>(state.max_value) - next) / inc + 1
                          : (static_cast<__int128>(next) - state.min_value) / -inc + 1;
  int64_t count = room < wanted ? static_cast<int64_t>(room) : wanted;
  SequenceBlock block{next, inc, count};
  state.last_value = static_cast<int64_t>(next + static_cast<__int128>(count - 1) * inc);
  state.is_called = true;
  return block;
}

Result<void> set_value(SequenceState& state, int64_t value, bool is_called,
                       const std::string& name) {
  if (value < state.min_value || value > state.max_value) {
    return fail(sqlstate::kNumericValueOutOfRange,
                "setval: value " + std::to_string(value) + " is out of bounds for sequence \"" +
                    name + "\" (" + std::to_string(state.min_value) + ".." +
                    std::to_string(state.max_value) + ")");
  }
  state.last_value = value;
  state.is_called = is_called;
  return {};
}

std::optional<int64_t> SequenceCache::next() {
  if (used_ >= block_.count) return std::nullopt;
  int64_t v = static_cast<int64_t>(block_.first + static_cast<__int128>(used_) * block_.increment);
  ++used_;
  return v;
}

}  // namespace pgrange::routing
