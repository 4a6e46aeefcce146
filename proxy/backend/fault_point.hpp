#pragma once

namespace pgrange::proxy {

/// A test hook: when the environment variable PGRANGE_TEST_FAULT names this point, pgrange
/// exits at once (exit status 9), leaving the shards as a crash there would. Points:
/// "after_prepare" (every shard prepared, no decision yet) and "after_decision" (the decision to
/// commit recorded, nothing committed yet).
void fault_point(const char* name);

}  // namespace pgrange::proxy
