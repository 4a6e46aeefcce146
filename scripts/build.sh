#!/usr/bin/env bash
# Configures and builds pgrange into build/ (or build-asan/ with --sanitize).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build
args=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo)
if [ "${1:-}" = "--sanitize" ]; then
  dir=build-asan
  # The integration tests that reach pgrange only through its port are not built here:
  # scripts/test.sh runs build/'s against build-asan/proxy/pgrange (PGRANGE_PROXY_BINARY).
  args+=(-DPGRANGE_SANITIZE=ON -DPGRANGE_BENCH=OFF -DPGRANGE_WIRE_TESTS=OFF -DCMAKE_BUILD_TYPE=Debug)
  shift
fi
# PGRANGE_LINE_INFO=1 keeps only line tables (-g1): stack traces and sanitizer reports still name
# files and lines, and the build is quicker (CI sets it).
if [ "${PGRANGE_LINE_INFO:-0}" = "1" ]; then
  args+=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_DEBUG="-g1")
fi
cmake -S . -B "$dir" "${args[@]}" >/dev/null
cmake --build "$dir" -j "$(nproc)" "$@"
