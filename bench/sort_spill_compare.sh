#!/usr/bin/env bash
# End-to-end sort benchmark (a benchmark, not a test): a sort pgrange itself must do, of ROWS rows,
# within query_memory (spilling sorted runs to temp_directory) and all in memory, against
#   direct   one PostgreSQL 15 server holding every row,
#   pgrange  pgrange (transaction pooling) over three PostgreSQL 15 shards, the table split into
#            12 ranges placed round-robin on the shards with RELOCATE,
# ROUNDS times per pass, interleaved direct / pgrange. Table:
#   big (id int8 PRIMARY KEY, v int4)   ids 1..ROWS, v = id * 7919 % 1000003
# made on direct with INSERT … SELECT generate_series; through pgrange created by CREATE TABLE
# through it, split and placed while empty (no rows move), then filled by COPY … FROM STDIN through
# it (the direct server's COPY … TO STDOUT piped in). Query, run as a COPY so that psql streams
# the rows rather than holding them, the same text on both targets:
#   COPY (SELECT id + 0, sum(v) FROM big GROUP BY id + 0 ORDER BY 2 DESC, 1) TO STDOUT
# Each shard groups its rows (GROUP BY 1 ORDER BY 1), pgrange combines the groups of the shards
# in a streaming merge and then sorts the ROWS groups by their sum: the Sort holds at most
# query_memory bytes and writes what it cannot hold as sorted runs to a file in temp_directory
# (unlinked at once), merged at the end. "id + 0", not "id": GROUP BY the range key itself makes
# each shard's groups the answer's, so pgrange sends GROUP BY … ORDER BY 2 DESC, 1 to the shards
# and merges their sorted rows without a Sort of its own; an expression of the key is not
# recognised as the key, so the groups are combined and sorted in pgrange (same output as GROUP BY
# id). The script dies if EXPLAIN ANALYZE shows no "Sort: in pgrange". (Direct PostgreSQL sorts
# within work_mem, 4MB by default, and spills too.) The output goes to md5sum (and wc -c):
# pgrange's md5 must be direct's, every round (else the script dies).
# Passes: 1 with query_memory = QUERY_MEMORY (default 256 MiB: 10,000,000 groups spill), 2 with
# query_memory = RAISED_QUERY_MEMORY (16 GiB: all in memory), for comparison. Each pass runs on a
# pgrange of its own, started afresh (the catalog and ranges stay in its metadata store) and warmed
# by one SELECT count(*) FROM big WHERE id < 10 through it: VmHWM (peak RSS, /proc/PID/status)
# only grows, so a pgrange that had loaded the table or run the other pass would show their peak
# rather than this pass's. Figures per
# pass: median wall ms per target (date +%s%N around psql, connection included); the ratio
# pgrange/direct; pgrange's CPU (utime+stime, all threads, /proc/PID/stat) per run, median;
# pgrange's VmHWM after the warm-up and after the rounds, and the growth; then EXPLAIN ANALYZE of
# the query with LIMIT 1 through the same pgrange (its "Sort:" line gives the bytes held and the
# runs on disk; printed, and kept in the log folder); then whether temp_directory (a folder in the
# scratch folder) is empty and pgrange holds no file of it open.
#
# It starts four PostgreSQL servers (fsync=off, full_page_writes=off, synchronous_commit=off)
# and pgrange on free ports in 20000-32000, and removes them on exit (also on Ctrl-C).
#
# Usage: bench/sort_spill_compare.sh      (as root; the 10,000,000-row default not yet timed:
#                                          ROWS=1000000 ROUNDS=2 took about 35 s on 2 cores)
#        SKIP_BUILD=1 ROWS=200000 ROUNDS=2 QUERY_MEMORY=4194304 bench/sort_spill_compare.sh
#                                         (a quick check that spills)
# Settings (environment):
#   ROWS=10000000                         rows of big (at least 12), hence groups sorted
#   ROUNDS=3                              timed runs of the query per target and pass
#   QUERY_MEMORY=                         pass 1's query_memory in bytes (empty: pgrange's default,
#                                         256 MiB); 1024 .. 68719476736
#   RAISED_QUERY_MEMORY=17179869184       pass 2's query_memory (16 GiB: the sort held in memory)
#   RAISED_PASS=1                         0: no pass 2
#   QUERY_TIMEOUT=1200                    seconds one psql may run before the script gives up
#   WORKERS=1                             pgrange worker threads
#   SKIP_BUILD=1                          do not run scripts/build.sh --target pgrange first
#   LOG_DIR=DIR                           logs, EXPLAIN ANALYZEs, results.tsv and passes.tsv
#                                         (default /tmp/sort_spill_compare-logs.<time>)
#   PGBIN=DIR  PGRANGE=build/proxy/pgrange binaries to use
set -euo pipefail
. "$(dirname "$0")/lib.sh"
STOP_TENTHS=150 # up to 15 s for pgrange and the servers to stop

ROWS=${ROWS:-10000000}
ROUNDS=${ROUNDS:-3}
QUERY_MEMORY=${QUERY_MEMORY:-}
RAISED_QUERY_MEMORY=${RAISED_QUERY_MEMORY:-17179869184}
RAISED_PASS=${RAISED_PASS:-1}
QUERY_TIMEOUT=${QUERY_TIMEOUT:-1200}
WORKERS=${WORKERS:-1}
SKIP_BUILD=${SKIP_BUILD:-0}
LOG_DIR=${LOG_DIR:-/tmp/sort_spill_compare-logs.$(date -u +%Y%m%dT%H%M%SZ)}
PGRANGE=${PGRANGE:-$REPO/build/proxy/pgrange}
RANGES=12
# The query: see the top (why "id + 0").
QUERY="SELECT id + 0, sum(v) FROM big GROUP BY id + 0 ORDER BY 2 DESC, 1"

require_counts ROWS ROUNDS RAISED_QUERY_MEMORY QUERY_TIMEOUT WORKERS
[ -z "$QUERY_MEMORY" ] || require_counts QUERY_MEMORY
if [ "$ROUNDS" -lt 1 ] || [ "$WORKERS" -lt 1 ] || [ "$QUERY_TIMEOUT" -lt 1 ]; then
  die "ROUNDS, WORKERS and QUERY_TIMEOUT must be at least 1"
fi
[ "$ROWS" -ge "$RANGES" ] || die "ROWS must be at least $RANGES (got $ROWS)"
for m in QUERY_MEMORY RAISED_QUERY_MEMORY; do # pgrange's bounds (config/config.cpp)
  if [ -n "${!m}" ] && { [ "${!m}" -lt 1024 ] || [ "${!m}" -gt 68719476736 ]; }; then
    die "$m must be between 1024 and 68719476736 bytes (got ${!m})"
  fi
done
case "$RAISED_PASS" in 0 | 1) ;; *) die "RAISED_PASS must be 0 or 1 (got \"$RAISED_PASS\")" ;; esac
require_environment psql pg_isready setpriv ss awk timeout md5sum tee wc mkfifo

# ---------------------------------------------------------------- header
echo "== pgrange sort benchmark: ORDER BY an aggregate of $ROWS groups, direct PostgreSQL vs pgrange over 3 shards"
echo "command: ROWS=$ROWS ROUNDS=$ROUNDS QUERY_MEMORY=$QUERY_MEMORY RAISED_QUERY_MEMORY=$RAISED_QUERY_MEMORY" \
  "RAISED_PASS=$RAISED_PASS WORKERS=$WORKERS SKIP_BUILD=$SKIP_BUILD $0 $*"
print_date_machine
echo "query:   COPY ($QUERY) TO STDOUT, through md5sum and wc -c"
echo "versions: $("$PGBIN/postgres" --version), $(psql --version)"
echo "servers: $(durability_line); shared_buffers 256MB (direct) / 128MB (shards); work_mem default"
echo "pgrange: query_memory $(memory_label "$QUERY_MEMORY") (pass 1)$([ "$RAISED_PASS" = 0 ] ||
  echo ", $(memory_label "$RAISED_QUERY_MEMORY") (pass 2)"), workers=$WORKERS, transaction pooling"
echo "logs:    $LOG_DIR"
echo

begin_run # build, the pgrange header line, T_START, bench_setup, $TMP/pgrange (see lib.sh)
# pgrange's temp_directory. pgrange runs as the user running this script (root; only the servers
# run as postgres), so the folder is that user's, for it alone.
SPILL_DIR="$TMP/sort-temp"
mkdir -m 700 "$SPILL_DIR"
chown "$(id -u):$(id -g)" "$SPILL_DIR"

# ---------------------------------------------------------------- servers and data on direct
start_four_servers 20 "wal_level = logical" # prepared transactions on the shards: pgrange's moves may use them

BIG_DDL="CREATE TABLE big (id int8 PRIMARY KEY, v int4)"
BIG_SELECT="SELECT g, (g * 7919 % 1000003)::int4 FROM generate_series(1::int8, $ROWS) g"
echo "loading big ($ROWS rows) on direct"
t0=$(date +%s)
sql_on direct "$BIG_DDL" "INSERT INTO big $BIG_SELECT" "VACUUM ANALYZE big"
echo "  $(($(date +%s) - t0)) s"

# ---------------------------------------------------------------- pgrange
# spill_state: what is left of the sort's files: "empty" or the entries of SPILL_DIR, and the
# files in it pgrange still holds open (unlinked ones included)
spill_state() {
  local left open
  left=$(find "$SPILL_DIR" -mindepth 1 | wc -l)
  open=0
  [ -z "$PGRANGE_PID" ] ||
    open=$(find "/proc/$PGRANGE_PID/fd" -mindepth 1 -printf '%l\n' 2>/dev/null | grep -c -F "$SPILL_DIR/" || true)
  if [ "$left" = 0 ] && [ "$open" = 0 ]; then
    echo "empty"
  else
    echo "NOT EMPTY: $left entries, $open open by pgrange"
  fi
}

start_pgrange load "$QUERY_MEMORY" "$SPILL_DIR"
export PGPASSWORD=bench

echo "big through pgrange: CREATE TABLE, SPLIT into $RANGES ranges, RELOCATE round-robin (empty), COPY … FROM STDIN"
via_pgrange "$BIG_DDL" >/dev/null
t0=$(date +%s)
split_into big "$RANGES" "$ROWS"
place_ranges big
echo "  split and placed in $(($(date +%s) - t0)) s"
copy_into_pgrange big
via_pgrange "SHOW RANGES FROM TABLE big" >"$LOG_DIR/big-ranges.txt"
for s in s1 s2 s3; do
  sql_on "$s" "VACUUM ANALYZE big"
  echo "  on $s: $(sql_on "$s" "SELECT count(*) FROM big") rows of big"
done
SUMS_SQL="SELECT count(*), sum(v) FROM big"
d=$(sql_on direct "$SUMS_SQL")
p=$(via_pgrange "$SUMS_SQL")
[ "${d%%|*}" = "$ROWS" ] || die "direct counts ${d%%|*} rows of big, expected $ROWS"
[ "$p" = "$d" ] || die "big differs: count, sum(v) $p through pgrange, $d direct"
echo "  count and sum(v) equal: $d; ANALYZE done on direct and the shards"
LOAD_HWM=$(status_kb VmHWM)
echo "  pgrange after the load: VmRSS $(mib "$(status_kb VmRSS)") MiB, VmHWM $(mib "$LOAD_HWM") MiB"
stop_pgrange
echo "setup took $(($(date +%s) - T_START)) s"
echo

# ---------------------------------------------------------------- the query
RESULTS="$LOG_DIR/results.tsv"
PASSES_TSV="$LOG_DIR/passes.tsv"
printf 'pass\tround\ttarget\tms\tbytes\tmd5\tpgrange_cpu_s\n' >"$RESULTS"
printf 'pass\tquery_memory\tdirect_ms\tpgrange_ms\tratio_pgrange_direct\tpgrange_cpu_s\tvmhwm_warm_kb\tvmhwm_after_kb\tsort_held_bytes\tspilled_bytes\tspilled_runs\ttemp_directory_after\n' >"$PASSES_TSV"

declare -A PASS_MEMORY PEAK_KB BASE_KB SORT_LINE SPILL_AFTER
# run_pass PASS: a fresh pgrange with the pass's query_memory, warmed; ROUNDS rounds, direct then
# pgrange, each md5 compared with direct's; pgrange's VmHWM after them; then EXPLAIN ANALYZE through
# it and the state of temp_directory.
run_pass() {
  PASS=$1
  local r t base before cpu note ref_md5="" x
  echo "== pass $PASS: query_memory $(memory_label "${PASS_MEMORY[$PASS]}"), $ROUNDS rounds, a fresh pgrange"
  start_pgrange "pass$PASS" "${PASS_MEMORY[$PASS]}" "$SPILL_DIR"
  via_pgrange "SELECT count(*) FROM big WHERE id < 10" >/dev/null
  BASE_KB[$PASS]=$(status_kb VmHWM)
  printf '%-6s %-8s %10s %12s %8s  %s\n' round target ms bytes "CPU s" note
  for ((r = 1; r <= ROUNDS; r++)); do
    for t in direct pgrange; do
      base="$LOG_DIR/$PASS-r$r-$t"
      before=0
      [ "$t" = direct ] || before=$(proc_ticks "$PGRANGE_PID")
      run_copy "$t" "$base" "$QUERY"
      ms_or_error "$t" "$base"
      cpu=NA
      note=""
      if [ "$t" = direct ]; then
        if [ -n "${REF_MD5:-}" ] && [ "$RUN_MD5" != "$REF_MD5" ]; then
          die "direct PostgreSQL's output changed: md5 $RUN_MD5 in pass $PASS round $r, $REF_MD5 before"
        fi
        REF_MD5=$RUN_MD5
        REF_BYTES=$RUN_BYTES
        ref_md5=$RUN_MD5
        note="md5 $RUN_MD5"
      else
        kill -0 "$PGRANGE_PID" 2>/dev/null || die "pgrange exited (see $PGRANGE_LOG)"
        cpu=$(ticks_to_seconds $(($(proc_ticks "$PGRANGE_PID") - before)))
        if [ "$RUN_MD5" != "$ref_md5" ] || [ "$RUN_BYTES" != "$REF_BYTES" ]; then
          die "pgrange's output differs from direct's in pass $PASS round $r: md5 $RUN_MD5 ($RUN_BYTES bytes)," \
            "direct $ref_md5 ($REF_BYTES bytes)"
        fi
        note="md5 = direct's"
      fi
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$PASS" "$r" "$t" "$RUN_MS" "$RUN_BYTES" "$RUN_MD5" "$cpu" >>"$RESULTS"
      printf '%-6s %-8s %10s %12s %8s  %s\n' "$r" "$t" "$RUN_MS" "$RUN_BYTES" "$cpu" "$note"
    done
  done
  PEAK_KB[$PASS]=$(status_kb VmHWM)
  echo "       pgrange VmHWM $(mib "${BASE_KB[$PASS]}") MiB after its warm-up, $(mib "${PEAK_KB[$PASS]}") MiB" \
    "after the rounds (+$(mib $((PEAK_KB[$PASS] - BASE_KB[$PASS]))) MiB); VmRSS now $(mib "$(status_kb VmRSS)") MiB"
  # Where the time goes: pgrange's steps, untimed (after the VmHWM was read).
  x="$LOG_DIR/explain-analyze-$PASS-pgrange.txt"
  via_pgrange "EXPLAIN ANALYZE $QUERY LIMIT 1" >"$x" 2>&1 || die "EXPLAIN ANALYZE through pgrange failed (see $x)"
  SORT_LINE[$PASS]=$(grep -m 1 -E 'Sort: in pgrange' "$x" | sed -E 's/^ *(actual: *)?//' || true)
  [ -n "${SORT_LINE[$PASS]}" ] || die "no \"Sort: in pgrange\" line in $x: pgrange did not sort?"
  echo "       EXPLAIN ANALYZE … LIMIT 1: ${SORT_LINE[$PASS]}"
  if [ "$PASS" = 1 ]; then # without LIMIT: with it PostgreSQL makes a top-N heapsort
    x="$LOG_DIR/explain-analyze-direct.txt"
    sql_on direct "EXPLAIN ANALYZE $QUERY" >"$x" 2>&1 || true
    echo "       direct EXPLAIN ANALYZE (no LIMIT): $(grep -m 1 -E 'Sort Method' "$x" | sed -E 's/^ *//' || true)"
  fi
  SPILL_AFTER[$PASS]=$(spill_state)
  echo "       temp_directory after the pass: ${SPILL_AFTER[$PASS]}"
  stop_pgrange
  echo
}

# Caches: the table read once on each server (not through pgrange) before the timed runs.
for s in direct s1 s2 s3; do sql_on "$s" "SELECT count(*) FROM big" >/dev/null; done

PASS_MEMORY[1]=$QUERY_MEMORY
PASSES=1
run_pass 1
if [ "$RAISED_PASS" = 1 ]; then
  PASSES=2
  PASS_MEMORY[2]=$RAISED_QUERY_MEMORY
  run_pass 2
fi

# ---------------------------------------------------------------- summary
col() {  # col PASS TARGET COLUMN: the values of the pass's runs of TARGET
  awk -F'\t' -v p="$1" -v t="$2" -v c="$3" 'NR > 1 && $1 == p && $3 == t {print $c}' "$RESULTS"
}
fmt_ms() { awk -v v="$1" 'BEGIN {if (v == "NA") print v; else if (v < 100) printf "%.1f", v; else printf "%.0f", v}'; }
# sort_fields LINE: "HELD SPILLED_BYTES RUNS" from a Sort: line (0 0 when it did not spill)
sort_fields() {
  local held spilled=0 runs=0
  held=$(sed -nE 's/.*\(([0-9]+) bytes held.*/\1/p' <<<"$1")
  if [[ $1 =~ ([0-9]+)\ bytes\ in\ ([0-9]+)\ sorted\ runs ]]; then
    spilled=${BASH_REMATCH[1]}
    runs=${BASH_REMATCH[2]}
  fi
  echo "${held:-NA} $spilled $runs"
}
mb() { awk -v b="$1" 'BEGIN {if (b == "NA") print b; else printf "%.1f", b / 1048576}'; } # bytes → MiB

echo "== medians over $ROUNDS rounds (big $ROWS rows in $RANGES ranges round-robin over 3 shards;" \
  "$REF_BYTES bytes of output; pgrange workers=$WORKERS)"
echo
echo "| pass: query_memory | direct ms | pgrange ms | ratio pgrange/direct | pgrange CPU s | pgrange VmHWM MiB warm-up → after (growth) | pgrange's Sort (EXPLAIN ANALYZE) | temp_directory after |"
echo "|---|---|---|---|---|---|---|---|"
for ((pass = 1; pass <= PASSES; pass++)); do
  d=$(col "$pass" direct 4 | median)
  p=$(col "$pass" pgrange 4 | median)
  ratio=$(awk -v a="$p" -v b="$d" 'BEGIN {if (b > 0) printf "%.2f×", a / b; else print "NA"}')
  cpu=$(awk -v v="$(col "$pass" pgrange 7 | median)" 'BEGIN {printf "%.2f", v}')
  read -r held spilled runs <<<"$(sort_fields "${SORT_LINE[$pass]}")"
  if [ "$runs" != 0 ]; then
    sort_desc="spilled: $(mb "$spilled") MiB in $runs runs on disk, $(mb "$held") MiB held"
  else
    sort_desc="in memory: $(mb "$held") MiB held"
  fi
  growth=$(awk -v a="${PEAK_KB[$pass]}" -v b="${BASE_KB[$pass]}" 'BEGIN {printf "%+.0f", (a - b) / 1024}')
  echo "| $pass: $(memory_label "${PASS_MEMORY[$pass]}") | $(fmt_ms "$d") | $(fmt_ms "$p") | $ratio | $cpu |" \
    "$(mib "${BASE_KB[$pass]}") → $(mib "${PEAK_KB[$pass]}") ($growth) | $sort_desc | ${SPILL_AFTER[$pass]} |"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$pass" "${PASS_MEMORY[$pass]:-default}" "$d" "$p" \
    "${ratio%×}" "$cpu" "${BASE_KB[$pass]}" "${PEAK_KB[$pass]}" "$held" "$spilled" "$runs" "${SPILL_AFTER[$pass]}" >>"$PASSES_TSV"
done
echo
echo "ms: wall time of psql's whole run (connection included), its COPY output read by md5sum and wc -c;"
echo "  pgrange's md5 equalled direct's in every round."
echo "ratio: pgrange median ms / direct median ms (1.00× = as fast as one PostgreSQL; 2.00× = twice as slow)."
echo "VmHWM: peak RSS of the pass's own pgrange after its warm-up and after its $ROUNDS rounds (the pgrange"
echo "  that loaded the table: VmHWM $(mib "$LOAD_HWM") MiB after the load)."
echo "Sort: from EXPLAIN ANALYZE of the query with LIMIT 1 through the pass's pgrange, after the rounds;"
echo "  \"held\" is the most bytes the Sort counted against query_memory, not its RSS."
echo "temp_directory: $SPILL_DIR after the pass: files left in it, and its files pgrange still held open."
echo "CPU s: pgrange's utime+stime (all threads) per run, median; direct's CPU is not measured."
echo "EXPLAIN ANALYZE through pgrange (LIMIT 1) and on direct (no LIMIT): $LOG_DIR/explain-analyze-*.txt"
echo "Raw per-run figures: $RESULTS; per pass: $PASSES_TSV"
echo "finished $(date -u '+%Y-%m-%d %H:%M:%S UTC') after $(($(date +%s) - T_START)) s," \
  "load average $(load_average)"
