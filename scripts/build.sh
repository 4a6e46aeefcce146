#!/usr/bin/env bash
# Configures and builds pgrange into build/ (or build-asan/ with --sanitize).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build
args=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo)
if [ "${1:-}" = "--sanitize" ]; then
  dir=build-asan
  args+=(-DPGRANGE_SANITIZE=ON -DPGRANGE_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug)
  shift
fi
cmake -S . -B "$dir" "${args[@]}" >/dev/null
cmake --build "$dir" -j "$(nproc)" "$@"
