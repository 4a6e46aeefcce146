#!/usr/bin/env bash
# End-to-end large-join benchmark (a benchmark, not a test): the same joins of a small table with
# a big one, against
#   direct   one PostgreSQL 15 server holding every row,
#   pgrange  pgrange (transaction pooling) over three PostgreSQL 15 shards, each table split into
#            12 ranges placed round-robin on the shards with RELOCATE,
# each query ROUNDS times, interleaved direct / pgrange, timed by psql's \timing. Tables:
#   small (id int8 PRIMARY KEY, grp int4, label text)       ids 1..SMALL_ROWS, grp = id % 100
#   big   (id int8 PRIMARY KEY, small_id int8, amount int4)  ids 1..BIG_ROWS,
#                                                            small_id = 1 + id * 7919 % SMALL_ROWS
# made on direct with INSERT … SELECT generate_series; through pgrange created by CREATE TABLE
# through it, filled by COPY … FROM STDIN through it (the direct server's COPY … TO STDOUT piped
# in), then split and placed (rows move). Queries:
#   full_join    SELECT count(*), sum(b.amount) FROM small s JOIN big b ON b.small_id = s.id
#   group_join   SELECT s.grp, count(*), sum(b.amount) FROM … GROUP BY s.grp ORDER BY s.grp
#   lookup_100   the full_join with WHERE s.id BETWEEN 1000 AND 1099 (100 rows of small)
# pgrange's answer must be the text direct gives, every round (else the script dies). A query
# pgrange fails (e.g. SQLSTATE 53200, its rows past query_memory) is reported as "fails: …" and
# not run again in that pass. If full_join or group_join failed (RAISED_PASS=auto), pgrange is
# restarted with query_memory = RAISED_QUERY_MEMORY and both run again: a second pass.
# Each query's rounds run on a pgrange of their own, started afresh after the load (the catalog
# and ranges stay in its metadata store) and warmed by one SELECT count(*) FROM small through it:
# VmHWM (peak RSS, /proc/PID/status) only grows and pgrange keeps much of the memory a big join
# used, so one pgrange for all queries would give every later query the peak of the first. Figures: median
# wall ms per target (psql's \timing: the statement, not the connection); pgrange's VmHWM after
# the query's rounds and its increase over VmHWM after the warm-up; pgrange's CPU (utime+stime,
# all threads, /proc/PID/stat) per run, median. Then EXPLAIN ANALYZE of the query through the
# same pgrange (rows and ms per step; printed, and kept in the log folder).
#
# It starts four PostgreSQL servers (fsync=off, full_page_writes=off, synchronous_commit=off)
# and pgrange on free ports in 20000-32000, and removes them on exit (also on Ctrl-C).
#
# Usage: bench/hash_join_compare.sh       (as root; about 30 s with the defaults on 2 cores)
# Settings (environment):
#   SMALL_ROWS=100000 BIG_ROWS=1000000     rows of small (at least 12000) and big (at least 12)
#   ROUNDS=3                               timed runs of each query per target
#   QUERY_MEMORY=                          pgrange's query_memory in bytes (empty: its default,
#                                          256 MiB)
#   RAISED_QUERY_MEMORY=2147483648         query_memory of the second pass (2 GiB)
#   RAISED_PASS=auto                       auto: a second pass if a full join failed; 1: always;
#                                          0: never
#   QUERY_TIMEOUT=600                      seconds one psql may run before it counts as failed
#   WORKERS=1                              pgrange worker threads
#   SKIP_BUILD=1                           do not run scripts/build.sh --target pgrange first
#   LOG_DIR=DIR                            logs, outputs, EXPLAIN ANALYZEs and results.tsv
#                                          (default /tmp/hash_join_compare-logs.<time>)
#   PGBIN=DIR  PGRANGE=build/proxy/pgrange binaries to use
set -euo pipefail
. "$(dirname "$0")/lib.sh"
STOP_TENTHS=150 # up to 15 s for pgrange and the servers to stop

SMALL_ROWS=${SMALL_ROWS:-100000}
BIG_ROWS=${BIG_ROWS:-1000000}
ROUNDS=${ROUNDS:-3}
QUERY_MEMORY=${QUERY_MEMORY:-}
RAISED_QUERY_MEMORY=${RAISED_QUERY_MEMORY:-2147483648}
RAISED_PASS=${RAISED_PASS:-auto}
QUERY_TIMEOUT=${QUERY_TIMEOUT:-600}
WORKERS=${WORKERS:-1}
SKIP_BUILD=${SKIP_BUILD:-0}
LOG_DIR=${LOG_DIR:-/tmp/hash_join_compare-logs.$(date -u +%Y%m%dT%H%M%SZ)}
PGRANGE=${PGRANGE:-$REPO/build/proxy/pgrange}
RANGES=12

require_counts SMALL_ROWS BIG_ROWS ROUNDS RAISED_QUERY_MEMORY QUERY_TIMEOUT WORKERS
[ -z "$QUERY_MEMORY" ] || require_counts QUERY_MEMORY
if [ "$ROUNDS" -lt 1 ] || [ "$WORKERS" -lt 1 ] || [ "$QUERY_TIMEOUT" -lt 1 ]; then
  die "ROUNDS, WORKERS and QUERY_TIMEOUT must be at least 1"
fi
[ "$SMALL_ROWS" -ge 12000 ] || die "SMALL_ROWS must be at least 12000 (got $SMALL_ROWS)"
[ "$BIG_ROWS" -ge "$RANGES" ] || die "BIG_ROWS must be at least $RANGES (got $BIG_ROWS)"
case "$RAISED_PASS" in auto | 0 | 1) ;; *) die "RAISED_PASS must be auto, 0 or 1 (got \"$RAISED_PASS\")" ;; esac
require_environment psql pg_isready setpriv ss awk timeout

# ---------------------------------------------------------------- header
echo "== pgrange large-join benchmark: direct PostgreSQL vs pgrange over 3 shards"
echo "command: SMALL_ROWS=$SMALL_ROWS BIG_ROWS=$BIG_ROWS ROUNDS=$ROUNDS QUERY_MEMORY=$QUERY_MEMORY" \
  "RAISED_QUERY_MEMORY=$RAISED_QUERY_MEMORY RAISED_PASS=$RAISED_PASS WORKERS=$WORKERS" \
  "SKIP_BUILD=$SKIP_BUILD $0 $*"
print_date_machine
echo "versions: $("$PGBIN/postgres" --version), $(psql --version)"
echo "servers: $(durability_line); shared_buffers 256MB (direct) / 128MB (shards)"
echo "pgrange: query_memory $(memory_label "$QUERY_MEMORY"), workers=$WORKERS, transaction pooling"
echo "logs:    $LOG_DIR"
echo

begin_run # build, the pgrange header line, T_START, bench_setup, $TMP/pgrange (see lib.sh)

# ---------------------------------------------------------------- servers and data on direct
start_four_servers 20 "wal_level = logical" # prepared transactions on the shards: pgrange's moves may use them

SMALL_DDL="CREATE TABLE small (id int8 PRIMARY KEY, grp int4, label text)"
BIG_DDL="CREATE TABLE big (id int8 PRIMARY KEY, small_id int8, amount int4)"
SMALL_SELECT="SELECT g, (g % 100)::int4, 'label ' || g FROM generate_series(1::int8, $SMALL_ROWS) g"
BIG_SELECT="SELECT g, 1 + g * 7919 % $SMALL_ROWS, (g * 31 % 1000)::int4 FROM generate_series(1::int8, $BIG_ROWS) g"
echo "loading small ($SMALL_ROWS rows) and big ($BIG_ROWS rows) on direct"
t0=$(date +%s)
sql_on direct "$SMALL_DDL" "$BIG_DDL" "INSERT INTO small $SMALL_SELECT" "INSERT INTO big $BIG_SELECT" \
  "VACUUM ANALYZE small, big"
echo "  $(($(date +%s) - t0)) s"

# ---------------------------------------------------------------- pgrange
start_pgrange load "$QUERY_MEMORY"
export PGPASSWORD=bench

echo "small and big through pgrange: CREATE TABLE, COPY … FROM STDIN, SPLIT into $RANGES ranges, RELOCATE round-robin"
via_pgrange "$SMALL_DDL" "$BIG_DDL" >/dev/null
for t in small big; do copy_into_pgrange "$t"; done
t0=$(date +%s)
split_into small "$RANGES" "$SMALL_ROWS"
place_ranges small
split_into big "$RANGES" "$BIG_ROWS"
place_ranges big
echo "  split and placed in $(($(date +%s) - t0)) s"
for t in small big; do
  via_pgrange "SHOW RANGES FROM TABLE $t" >"$LOG_DIR/$t-ranges.txt"
done
for s in s1 s2 s3; do
  sql_on "$s" "VACUUM ANALYZE small, big"
  echo "  on $s: $(sql_on "$s" "SELECT (SELECT count(*) FROM small) || ' rows of small, ' ||
    (SELECT count(*) FROM big) || ' rows of big'")"
done
CHECK_SQL="SELECT (SELECT count(*) FROM small), (SELECT count(*) FROM big)"
SUMS_SQL="SELECT count(*), sum(small_id), sum(amount) FROM big"
d=$(sql_on direct "$CHECK_SQL")
p="$(via_pgrange "SELECT count(*) FROM small")|$(via_pgrange "SELECT count(*) FROM big")"
[ "$d" = "$SMALL_ROWS|$BIG_ROWS" ] || die "direct counts $d rows of small|big, expected $SMALL_ROWS|$BIG_ROWS"
[ "$p" = "$d" ] || die "pgrange counts $p rows of small|big, direct $d"
d=$(sql_on direct "$SUMS_SQL")
p=$(via_pgrange "$SUMS_SQL")
[ "$p" = "$d" ] || die "big differs: count, sum(small_id), sum(amount) $p through pgrange, $d direct"
echo "  row counts equal: small $SMALL_ROWS, big $BIG_ROWS (and big's sums); ANALYZE done on direct and the shards"
LOAD_RSS=$(status_kb VmRSS)
LOAD_HWM=$(status_kb VmHWM)
echo "  pgrange after the load: VmRSS $(mib "$LOAD_RSS") MiB, VmHWM $(mib "$LOAD_HWM") MiB"
echo "setup took $(($(date +%s) - T_START)) s"
echo

# ---------------------------------------------------------------- the queries
JOIN="FROM small s JOIN big b ON b.small_id = s.id"
QUERIES="full_join group_join lookup_100"
declare -A SQL DESC
SQL[full_join]="SELECT count(*), sum(b.amount) $JOIN"
DESC[full_join]="whole join: count(*), sum(b.amount)"
SQL[group_join]="SELECT s.grp, count(*), sum(b.amount) $JOIN GROUP BY s.grp ORDER BY s.grp"
DESC[group_join]="whole join, GROUP BY s.grp (100 groups)"
SQL[lookup_100]="SELECT count(*), sum(b.amount) $JOIN WHERE s.id BETWEEN 1000 AND 1099"
DESC[lookup_100]="s.id BETWEEN 1000 AND 1099 (100 rows of small)"

# run_sql TARGET SQL BASE: the statement once through psql with \timing, stdout to BASE.out and
# stderr to BASE.err (SQLSTATEs shown); psql's exit status (124: QUERY_TIMEOUT passed). WALL_MS:
# psql's whole run, connection included (reported for failed runs, which \timing does not time).
run_sql() {
  local port=${SERVER_PORT[direct]} t0 rc=0
  [ "$1" = direct ] || port=$PGRANGE_PORT
  t0=$(date +%s%N)
  timeout -k 10 "$QUERY_TIMEOUT" psql -X -q -At -v ON_ERROR_STOP=1 -v VERBOSITY=verbose \
    -h 127.0.0.1 -p "$port" -U bench -d bench -c '\timing on' -c "$2" >"$3.out" 2>"$3.err" || rc=$?
  WALL_MS=$((($(date +%s%N) - t0) / 1000000))
  return "$rc"
}
elapsed_ms() { awk '/^Time: / {print $2; exit}' "$1.out"; }
answer() { grep -v '^Time: ' "$1.out" || true; }
failure() {  # failure BASE RC: "SQLSTATE message" of a failed run
  if [ "$2" = 124 ]; then echo "timeout after $QUERY_TIMEOUT s"; return; fi
  local e
  e=$(sed -nE 's/^(ERROR|FATAL): +([0-9A-Z]{5}): (.*)/\2 \3/p' "$1.err" | head -n 1)
  [ -n "$e" ] || e=$(grep -m 1 . "$1.err" || echo "psql exit status $2")
  echo "$e"
}

RESULTS="$LOG_DIR/results.tsv"
printf 'pass\tquery\tround\ttarget\tms\tpgrange_cpu_s\tstatus\n' >"$RESULTS"
declare -A FAILED PEAK_KB BASE_KB
ANY_FULL_FAILED=0

# fresh_pgrange LABEL: a pgrange of its own for the next query (query_memory of the pass), warmed
# by one statement over the three shards; BASE_KB[LABEL] is its VmHWM then.
fresh_pgrange() {
  [ -z "$PGRANGE_PID" ] || stop_pgrange
  start_pgrange "$1" "${PASS_MEMORY[$PASS]}"
  via_pgrange "SELECT count(*) FROM small" >/dev/null
  BASE_KB[$1]=$(status_kb VmHWM)
}

# run_pass PASS QUERY...: for each QUERY, a fresh pgrange, then ROUNDS rounds, direct then pgrange;
# pgrange's VmHWM after them; then EXPLAIN ANALYZE through it.
run_pass() {
  PASS=$1
  shift
  local q r t base rc ms cpu before note ref=""
  echo "== pass $PASS: query_memory $(memory_label "${PASS_MEMORY[$PASS]}"), $ROUNDS rounds per query," \
    "a fresh pgrange for each query"
  printf '%-6s %-11s %-8s %12s %10s  %s\n' round query target ms "CPU s" note
  for q in "$@"; do
    fresh_pgrange "$PASS-$q"
    for ((r = 1; r <= ROUNDS; r++)); do
      for t in direct pgrange; do
        if [ "$t" = pgrange ] && [ -n "${FAILED[$PASS,$q]:-}" ]; then
          printf '%-6s %-11s %-8s %12s %10s  %s\n' "$r" "$q" "$t" - - "(failed before; not run again)"
          continue
        fi
        base="$LOG_DIR/$PASS-$q-r$r-$t"
        before=0
        [ "$t" = direct ] || before=$(proc_ticks "$PGRANGE_PID")
        rc=0
        run_sql "$t" "${SQL[$q]}" "$base" || rc=$?
        cpu=NA
        note=""
        if [ "$t" = pgrange ]; then
          if ! kill -0 "$PGRANGE_PID" 2>/dev/null; then
            FAILED[$PASS,$q]="pgrange exited (see $PGRANGE_LOG)"
            wait "$PGRANGE_PID" 2>/dev/null || true
            PGRANGE_PID=""
            printf '%s\t%s\t%s\t%s\tNA\tNA\t%s\n' "$PASS" "$q" "$r" "$t" "fails: ${FAILED[$PASS,$q]}" >>"$RESULTS"
            printf '%-6s %-11s %-8s %12s %10s  %s\n' "$r" "$q" "$t" - - "fails: ${FAILED[$PASS,$q]}"
            fresh_pgrange "$PASS-$q-restarted"
            continue
          fi
          cpu=$(ticks_to_seconds $(($(proc_ticks "$PGRANGE_PID") - before)))
        fi
        if [ "$rc" != 0 ]; then
          [ "$t" = pgrange ] || die "direct PostgreSQL failed $q: $(failure "$base" "$rc")"
          FAILED[$PASS,$q]="$(failure "$base" "$rc") (after $WALL_MS ms)"
          printf '%s\t%s\t%s\t%s\tNA\t%s\t%s\n' "$PASS" "$q" "$r" "$t" "$cpu" "fails: ${FAILED[$PASS,$q]}" >>"$RESULTS"
          printf '%-6s %-11s %-8s %12s %10s  %s\n' "$r" "$q" "$t" - "$cpu" "fails: ${FAILED[$PASS,$q]}"
          continue
        fi
        ms=$(elapsed_ms "$base")
        [ -n "$ms" ] || die "no \\timing line in $base.out"
        if [ "$t" = direct ]; then
          ref="$base"
          if [ "$r" -gt 1 ] && [ "$(answer "$base")" != "$(answer "$LOG_DIR/$PASS-$q-r1-direct")" ]; then
            die "direct PostgreSQL answered $q differently in round $r (see $base.out)"
          fi
        elif [ "$(answer "$base")" != "$(answer "$ref")" ]; then
          diff <(answer "$ref") <(answer "$base") >"$base.diff" || true
          die "pgrange's answer to $q differs from direct's in round $r: $(head -c 300 "$base.diff")" \
            "(see $base.out, $ref.out, $base.diff)"
        else
          note="answer = direct's ($(answer "$base" | wc -l) rows)"
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\tok\n' "$PASS" "$q" "$r" "$t" "$ms" "$cpu" >>"$RESULTS"
        printf '%-6s %-11s %-8s %12s %10s  %s\n' "$r" "$q" "$t" "$ms" "$cpu" "$note"
      done
    done
    PEAK_KB[$PASS,$q]=$(status_kb VmHWM)
    BASE_OF[$PASS,$q]=${BASE_KB[$PASS-$q]}
    [ -z "${FAILED[$PASS,$q]:-}" ] || BASE_OF[$PASS,$q]=${BASE_KB[$PASS-$q-restarted]:-${BASE_KB[$PASS-$q]}}
    echo "       pgrange VmHWM $(mib "${BASE_OF[$PASS,$q]}") MiB after its warm-up, $(mib "${PEAK_KB[$PASS,$q]}") MiB" \
      "after the rounds; VmRSS now $(mib "$(status_kb VmRSS)") MiB"
    if [ -n "${FAILED[$PASS,$q]:-}" ]; then
      [ "$q" = lookup_100 ] || ANY_FULL_FAILED=1
    else
      # Where the time goes: pgrange's steps, untimed (after the VmHWM was read).
      local x="$LOG_DIR/explain-analyze-$PASS-$q-pgrange.txt"
      via_pgrange "EXPLAIN ANALYZE ${SQL[$q]}" >"$x" 2>&1 || true
      grep -E '^ *actual:' "$x" | sed -E 's/^ */       EXPLAIN ANALYZE /' || true
      [ "$PASS" != 1 ] || sql_on direct "EXPLAIN ANALYZE ${SQL[$q]}" >"$LOG_DIR/explain-analyze-$q-direct.txt" 2>&1 || true
    fi
  done
  echo
}

# Caches: every table read once on each server (not through pgrange) before the timed runs.
for s in direct s1 s2 s3; do sql_on "$s" "SELECT count(*) FROM small" "SELECT count(*) FROM big" >/dev/null; done

# The bytes pgrange counts against query_memory for a whole join (proxy/exec/gather_run.cpp):
# each row's text + 3, three times (the row, the statement written from it, the message carrying
# that), + 48 per row (its string), + each distinct small.id a lookup reads (its text + 80).
# Estimated on direct.
# A broadcast join (big left on its shards, small's rows sent to each) holds small's rows only.
HELD=$(sql_on direct "SELECT (SELECT 3 * sum(length(s::text) + 3) + 48 * count(*) + sum(length(s.id::text) + 80) FROM small s) + (SELECT 3 * sum(length(b::text) + 3) + 48 * count(*) FROM big b)")
HELD_SMALL=$(sql_on direct "SELECT 3 * sum(length(s::text) + 3) + 48 * count(*) + sum(length(s.id::text) + 80) FROM small s")
echo "bytes a whole join makes pgrange count against query_memory (rows, their strings, the statement carrying them):" \
  "$(awk -v b="$HELD" 'BEGIN {printf "%.1f MiB", b / 1048576}') gathered on one shard," \
  "$(awk -v b="$HELD_SMALL" 'BEGIN {printf "%.1f MiB", b / 1048576}') as a broadcast join"
echo

declare -A PASS_MEMORY BASE_OF
PASS_MEMORY[1]=$QUERY_MEMORY
PASSES=1
# shellcheck disable=SC2086 # the list splits on purpose
run_pass 1 $QUERIES

if [ "$RAISED_PASS" = 1 ] || { [ "$RAISED_PASS" = auto ] && [ "$ANY_FULL_FAILED" = 1 ]; }; then
  PASSES=2
  PASS_MEMORY[2]=$RAISED_QUERY_MEMORY
  run_pass 2 full_join group_join
fi

# ---------------------------------------------------------------- summary
col() {  # col PASS QUERY TARGET COLUMN: the values of the runs that succeeded
  awk -F'\t' -v p="$1" -v q="$2" -v t="$3" -v c="$4" \
    'NR > 1 && $1 == p && $2 == q && $4 == t && $7 == "ok" {print $c}' "$RESULTS"
}
fmt_ms() { awk -v v="$1" 'BEGIN {if (v == "NA") print v; else if (v < 100) printf "%.1f", v; else printf "%.0f", v}'; }

echo "== medians over $ROUNDS rounds (small $SMALL_ROWS rows, big $BIG_ROWS rows, each in $RANGES ranges" \
  "round-robin over 3 shards; pgrange workers=$WORKERS)"
echo
echo "| query | direct ms (median) | pgrange ms (median) | ratio direct/pgrange | pgrange peak RSS MiB | pgrange CPU s |"
echo "|---|---|---|---|---|---|"
for ((pass = 1; pass <= PASSES; pass++)); do
  if [ "$pass" = 1 ]; then list=$QUERIES; else list="full_join group_join"; fi
  for q in $list; do
    label="$q: ${DESC[$q]}"
    [ "$pass" = 1 ] || label="$q, query_memory = $(memory_label "${PASS_MEMORY[$pass]}")"
    d=$(col "$pass" "$q" direct 5 | median)
    if [ -n "${FAILED[$pass,$q]:-}" ]; then
      p="fails: ${FAILED[$pass,$q]}"
      ratio=-
      cpu=$(awk -F'\t' -v p="$pass" -v q="$q" 'NR > 1 && $1 == p && $2 == q && $4 == "pgrange" && $6 != "NA" {print $6}' "$RESULTS" | median)
      [ "$cpu" = NA ] || cpu="$cpu (until it failed)"
    else
      p=$(col "$pass" "$q" pgrange 5 | median)
      ratio=$(awk -v a="$d" -v b="$p" 'BEGIN {if (b > 0 && a != "NA") { r = a / b;
        if (r < 0.1) printf "%.3f×", r; else printf "%.2f×", r } else print "NA"}')
      p=$(fmt_ms "$p")
      cpu=$(col "$pass" "$q" pgrange 6 | median)
      cpu=$(awk -v v="$cpu" 'BEGIN {printf "%.2f", v}')
    fi
    peak=${PEAK_KB[$pass,$q]}
    rss="$(mib "$peak") ($(awk -v a="$peak" -v b="${BASE_OF[$pass,$q]}" 'BEGIN {printf "%+.0f", (a - b) / 1024}'))"
    echo "| $label | $(fmt_ms "$d") | $p | $ratio | $rss | $cpu |"
  done
done
echo
echo "ratio: direct median ms / pgrange median ms (1.00× = as fast as one PostgreSQL; 0.10× = ten times slower)."
echo "peak RSS: VmHWM of the query's own pgrange after its $ROUNDS rounds; in brackets the increase over its"
echo "  VmHWM after the warm-up (the pgrange that loaded the tables: VmHWM $(mib "$LOAD_HWM") MiB after the load)."
echo "  query_memory caps what pgrange counts for a statement's rows (for a whole join:" \
  "$(awk -v b="$HELD" 'BEGIN {printf "%.1f MiB", b / 1048576}') gathered on one shard," \
  "$(awk -v b="$HELD_SMALL" 'BEGIN {printf "%.1f MiB", b / 1048576}') as a broadcast join), an estimate of its memory, not its RSS."
echo "CPU s: pgrange's utime+stime (all threads) per run, median; direct's CPU is not measured."
echo "EXPLAIN ANALYZE through pgrange (rows and ms per step): $LOG_DIR/explain-analyze-*.txt"
echo "Raw per-run figures: $RESULTS"
echo "finished $(date -u '+%Y-%m-%d %H:%M:%S UTC') after $(($(date +%s) - T_START)) s," \
  "load average $(load_average)"
