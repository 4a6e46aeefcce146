#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (build-fuzz/) and runs each for SECONDS (default 30).
# Usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
args=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPGRANGE_FUZZ=ON -DPGRANGE_BENCH=OFF
  -DPGRANGE_INTEGRATION=OFF)
# As scripts/build.sh: PGRANGE_LINE_INFO=1 keeps line tables only (CI sets it).
if [ "${PGRANGE_LINE_INFO:-0}" = "1" ]; then
  args+=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG")
fi
CC=clang CXX=clang++ cmake -S . -B build-fuzz "${args[@]}" >/dev/null
targets=$(cd tests/fuzz && ls ./*_fuzz.cpp | sed 's|./||; s|\.cpp$||')
# shellcheck disable=SC2086
cmake --build build-fuzz -j "$(nproc)" --target $targets
status=0
for t in $targets; do
  corpus=build-fuzz/corpus/$t
  mkdir -p "$corpus"
  echo "fuzz: $t for ${seconds}s"
  if ! build-fuzz/tests/fuzz/"$t" -max_total_time="$seconds" -print_final_stats=0 \
      "$corpus" >"build-fuzz/$t.log" 2>&1; then
    echo "fuzz: $t FAILED"; tail -40 "build-fuzz/$t.log"; status=1
  else
    grep -E "^#[0-9]+.*DONE|Done [0-9]+ runs" "build-fuzz/$t.log" | tail -1 || true
  fi
done
exit $status
