#!/usr/bin/env bash
# Installs dependencies, builds, and runs the whole test suite:
#   1. unit + integration tests (real PostgreSQL 15 servers started by the tests themselves),
#   2. the whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer: the unit tests
#      and the integration tests that run pgrange's code in their own process, built sanitized;
#      then the integration tests that reach pgrange only through its port (label "wire"), from
#      the normal build, against the sanitized pgrange binary,
#   3. a short run of each libFuzzer target.
# Usage: scripts/test.sh [--quick]   (--quick skips the sanitizer and fuzz stages)
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -eq 0 ]; then
  scripts/install-deps.sh
else
  scripts/install-deps.sh || { echo "test: install the packages above first" >&2; exit 1; }
fi

quick=0
[ "${1:-}" = "--quick" ] && quick=1

status=0
# Each stage says when it starts (seconds since the script began), for CI's time budget.
stage() { echo "== $1 (at ${SECONDS}s)"; }
stage "build"
scripts/build.sh
stage "tests"
(cd build && ctest --output-on-failure -j 2 --timeout 600) || status=1

if [ $quick -eq 0 ]; then
  stage "sanitizer build (all tests)"
  scripts/build.sh --sanitize
  # Allocation and free stacks of 6 frames rather than 30: the sanitized suite runs a sixth
  # quicker, and a report still shows the whole stack of the bad access (set ASAN_OPTIONS for
  # more).
  export ASAN_OPTIONS="${ASAN_OPTIONS:-malloc_context_size=6}"
  (cd build-asan && ctest --output-on-failure -j 2 --timeout 600) || status=1
  stage "wire tests against the sanitized pgrange"
  (cd build && PGRANGE_PROXY_BINARY="$PWD/../build-asan/proxy/pgrange" PGRANGE_PROXY_SANITIZED=1 \
    ctest --output-on-failure -j 2 --timeout 600 -L wire) || status=1
  if [ -x scripts/fuzz.sh ]; then
    stage "fuzz (short runs)"
    scripts/fuzz.sh 10 || status=1
  fi
fi
stage "done"
exit $status
