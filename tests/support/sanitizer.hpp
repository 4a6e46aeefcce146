#pragma once

#include <cstdlib>
#include <cstring>

namespace pgrange::testing {

/// True when the pgrange under test is the AddressSanitizer build: this test program was built
/// with it, or PGRANGE_PROXY_SANITIZED=1 says the pgrange it starts was (scripts/test.sh runs the
/// tests that reach pgrange only through its port from the normal build against
/// build-asan/proxy/pgrange). There the heaviest tests run the same code paths over less
/// repetition (fewer protocol combinations, shorter load runs): the normal build runs them all,
/// and the sanitizer run's time stays within CI's budget.
inline bool sanitized_run() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#else
  const char* v = std::getenv("PGRANGE_PROXY_SANITIZED");
  return v != nullptr && std::strcmp(v, "1") == 0;
#endif
}

}  // namespace pgrange::testing
