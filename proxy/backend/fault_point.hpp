#pragma once

#include <string_view>

namespace pgrange::proxy {

/// A test hook: when the environment variable PGRANGE_TEST_FAULT names this point, pgrange
/// exits at once (exit status 9), leaving the shards as a crash there would. Points:
/// "after_prepare" (every shard prepared, no decision yet) and "after_decision" (the decision to
/// commit recorded, nothing committed yet); the steps of a range move (routing::ClusterControl::
/// fault_point).
void fault_point(const char* name);

/// A test hook: when PGRANGE_TEST_FAULT is "raise_in_session", a client message whose bytes
/// contain "pgrange_test_raise" makes its session throw std::logic_error where the message is
/// read, as a bug in pgrange would.
void raise_point(std::string_view message);

/// A test hook: when the environment variable PGRANGE_TEST_DELAY is "<name>:<milliseconds>",
/// the calling thread sleeps that long here, widening a window a race needs. Points:
/// "before_hold" (a statement routed, its ranges not yet registered against moves); the steps
/// of a range move, as for fault_point.
void delay_point(const char* name);

}  // namespace pgrange::proxy
