#!/usr/bin/env bash
# End-to-end window-function benchmark (a benchmark, not a test): window functions over ROWS rows,
# against
#   direct   one PostgreSQL 15 server holding every row,
#   pgrange  pgrange (transaction pooling) over three PostgreSQL 15 shards, the table split into
#            12 ranges at values of g only (never inside one g) placed round-robin on the shards
#            with RELOCATE,
# interleaved direct / pgrange. Table:
#   w (g int4, id int8, v int4, PRIMARY KEY (g, id))   ids 1..ROWS, g = id % GROUPS,
#                                                      v = id * 7919 % 1000003
# made on direct with INSERT … SELECT generate_series; through pgrange created by CREATE TABLE
# through it, split with ALTER TABLE w SPLIT AT VALUES (g) at g = GROUPS * k / 12 for k = 1..11
# (prefixes of the key: each g's rows in one range) and placed while empty (no rows move), then
# filled by COPY … FROM STDIN through it (the direct server's COPY … TO STDOUT piped in); count(*)
# and sum(v) must be equal on both. Queries, each run as COPY (…) TO STDOUT so that psql streams
# the rows rather than holding them, the same text on both targets, the output to md5sum (and
# wc -c):
#   pushed    SELECT g, id, sum(v) OVER (PARTITION BY g ORDER BY id),
#                    row_number() OVER (PARTITION BY g ORDER BY v, id) FROM w ORDER BY g, id
#             Every window partition (a g) has all its rows on one shard, so each shard computes
#             the windows over its own rows and pgrange merges the shards' sorted rows in a
#             streaming k-way merge (one row per shard held): its memory should stay flat. The
#             script dies unless EXPLAIN of it through pgrange says "window functions computed on
#             each shard". pgrange's md5 must be direct's, every round (else the script dies).
#             ROUNDS rounds per target.
#   computed  SELECT id, row_number() OVER (ORDER BY v, id), sum(v) OVER (ORDER BY v, id)
#                    FROM w ORDER BY id
#             No PARTITION BY: one window partition of all ROWS rows, spread over every shard.
#             pgrange computes the windows itself: the shards send their rows sorted by (v, id),
#             pgrange merges them in a streaming k-way merge and computes row_number and the
#             running sum(v) (frame UNBOUNDED PRECEDING to the current row) as the rows go by,
#             holding only what a frame still needs; then it sorts the ROWS rows by id itself (its
#             Sort holds at most query_memory and spills sorted runs to temp_directory, default
#             $TMPDIR else /tmp, past it). Its memory should stay bounded by query_memory plus the
#             merge. Handled as pushed: the script dies unless EXPLAIN of it through pgrange says
#             "window functions computed in pgrange"; pgrange's md5 must be direct's, every round
#             (else the script dies); any failure is fatal. ROUNDS rounds per target.
#   whole     SELECT id, v, percent_rank() OVER o, sum(v) OVER (o ROWS BETWEEN UNBOUNDED PRECEDING
#                    AND UNBOUNDED FOLLOWING) FROM w WINDOW o AS (ORDER BY v, id)
#             One partition of all ROWS rows whose every value needs the partition's end (its
#             row count, its total): every row waits for the last one. pgrange computes it (the
#             script dies unless EXPLAIN says "window functions computed in pgrange") holding
#             query_memory of the waiting rows and appending the rest to a temporary file in
#             temp_directory, read back in order once the partition ends; md5 must be direct's
#             (the output comes in the window's order on both); any failure is fatal.
#   gathered  SELECT id, sum(v) OVER (ORDER BY v, id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)
#             FROM w ORDER BY id
#             a sliding frame is one pgrange does not compute (its frames start at UNBOUNDED
#             PRECEDING), and with no PARTITION BY its one window spans the shards, so
#             pgrange gathers the table's rows into one shard and PostgreSQL computes the
#             statement there. pgrange holds the rows within query_memory (256 MiB by default);
#             past it, the rows go to a temporary file in temp_directory and from there into a
#             temporary table on the shard that computes (COPY), so the default 10,000,000 rows
#             are expected to succeed too.
#             Direct runs ROUNDS times; pgrange once (in the first round): the script records its
#             time and md5 (which must be direct's, else it dies) or its error's SQLSTATE and
#             message (psql with VERBOSITY=verbose), and does not die on an error; then pgrange
#             must still be running and answer SELECT count(*) FROM w WHERE g = 1 as direct does.
# Each query's rounds run on a pgrange of their own, started afresh (the catalog and ranges stay
# in its metadata store) and warmed by one SELECT count(*) FROM w WHERE g = 1 through it: VmHWM
# (peak RSS, /proc/PID/status) only grows, so a pgrange that had loaded the table or run the
# other queries would show their peak rather than this query's. Figures per query: median wall ms
# per target (date +%s%N around psql, connection included); the ratio pgrange/direct; pgrange's
# CPU (utime+stime, all threads, /proc/PID/stat) per run, median; pgrange's VmHWM after the
# warm-up and after the query's rounds, and the growth. (Direct PostgreSQL sorts within work_mem,
# 4MB by default, and spills.)
#
# It starts four PostgreSQL servers (fsync=off, full_page_writes=off, synchronous_commit=off)
# and pgrange on free ports in 20000-32000, and removes them on exit (also on Ctrl-C).
#
# Usage: bench/window_compare.sh           (as root; the 10,000,000-row default not yet timed)
#        SKIP_BUILD=1 ROWS=200000 ROUNDS=1 bench/window_compare.sh
#                                          (a quick check: computed's rows then fit in the
#                                          default query_memory; a small QUERY_MEMORY makes its
#                                          Sort spill, and gathered's rows go to temporary tables)
#        env GROUPS=100 SKIP_BUILD=1 bench/window_compare.sh
#                                          (GROUPS through env: see below)
# Settings (environment):
#   ROWS=10000000                         rows of w (at least GROUPS)
#   GROUPS=1000                           values of g, hence window partitions (at least 12).
#                                         GROUPS is also a variable of bash itself (the user's
#                                         group ids), which a bash prompt does not pass on with
#                                         "GROUPS=100 bench/…": give it with env, as above
#   ROUNDS=3                              timed runs of each query per target (gathered: direct)
#   QUERY_MEMORY=                         pgrange's query_memory in bytes (empty: pgrange's
#                                         default, 256 MiB); 1024 .. 68719476736. It bounds
#                                         what gathered and computed's Sort hold (both spill)
#   QUERY_TIMEOUT=1200                    seconds one psql may run before the script gives up
#                                         (for the gathered query through pgrange: recorded as
#                                         its failure)
#   WORKERS=1                             pgrange worker threads
#   SKIP_BUILD=1                          do not run scripts/build.sh --target pgrange first
#   LOG_DIR=DIR                           logs, EXPLAINs, results.tsv and queries.tsv
#                                         (default /tmp/window_compare-logs.<time>)
#   PGBIN=DIR  PGRANGE=build/proxy/pgrange binaries to use
set -euo pipefail
. "$(dirname "$0")/lib.sh"
STOP_TENTHS=150 # up to 15 s for pgrange and the servers to stop

ROWS=${ROWS:-10000000}
# GROUPS: read from the environment itself. In bash $GROUPS is the special array of the user's
# group ids (0 for root) unless the environment holds GROUPS, and assignments to it are ignored:
# the script keeps the count in NGROUPS.
NGROUPS=$(printenv GROUPS || true)
NGROUPS=${NGROUPS:-1000}
ROUNDS=${ROUNDS:-3}
QUERY_MEMORY=${QUERY_MEMORY:-}
QUERY_TIMEOUT=${QUERY_TIMEOUT:-1200}
WORKERS=${WORKERS:-1}
SKIP_BUILD=${SKIP_BUILD:-0}
LOG_DIR=${LOG_DIR:-/tmp/window_compare-logs.$(date -u +%Y%m%dT%H%M%SZ)}
PGRANGE=${PGRANGE:-$REPO/build/proxy/pgrange}
RANGES=12
QUERIES=(pushed computed whole gathered)
declare -A QUERY
QUERY[pushed]="SELECT g, id, sum(v) OVER (PARTITION BY g ORDER BY id), row_number() OVER (PARTITION BY g ORDER BY v, id) FROM w ORDER BY g, id"
QUERY[computed]="SELECT id, row_number() OVER (ORDER BY v, id), sum(v) OVER (ORDER BY v, id) FROM w ORDER BY id"
QUERY[whole]="SELECT id, v, percent_rank() OVER o, sum(v) OVER (o ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM w WINDOW o AS (ORDER BY v, id)"
QUERY[gathered]="SELECT id, sum(v) OVER (ORDER BY v, id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM w ORDER BY id"
declare -A EXPLAIN_LINE # what EXPLAIN through pgrange must say (gathered: nothing required)
EXPLAIN_LINE[pushed]="window functions computed on each shard"
EXPLAIN_LINE[computed]="window functions computed in pgrange"
EXPLAIN_LINE[whole]="window functions computed in pgrange"
WARM_SQL="SELECT count(*) FROM w WHERE g = 1"

require_counts ROWS ROUNDS QUERY_TIMEOUT WORKERS
[[ $NGROUPS =~ ^[0-9]+$ ]] || die "GROUPS must be a non-negative integer (got \"$NGROUPS\")"
[ -z "$QUERY_MEMORY" ] || require_counts QUERY_MEMORY
if [ "$ROUNDS" -lt 1 ] || [ "$WORKERS" -lt 1 ] || [ "$QUERY_TIMEOUT" -lt 1 ]; then
  die "ROUNDS, WORKERS and QUERY_TIMEOUT must be at least 1"
fi
[ "$NGROUPS" -ge "$RANGES" ] || die "GROUPS must be at least $RANGES (got $NGROUPS)"
[ "$ROWS" -ge "$NGROUPS" ] || die "ROWS must be at least GROUPS, $NGROUPS (got $ROWS)"
if [ -n "$QUERY_MEMORY" ] && { [ "$QUERY_MEMORY" -lt 1024 ] || [ "$QUERY_MEMORY" -gt 68719476736 ]; }; then
  die "QUERY_MEMORY must be between 1024 and 68719476736 bytes (got $QUERY_MEMORY)" # config/config.cpp
fi
require_environment psql pg_isready setpriv ss awk timeout md5sum tee wc mkfifo

# ---------------------------------------------------------------- header
echo "== pgrange window-function benchmark: $ROWS rows in $NGROUPS partitions, direct PostgreSQL vs pgrange over 3 shards"
echo "command: ROWS=$ROWS GROUPS=$NGROUPS ROUNDS=$ROUNDS QUERY_MEMORY=$QUERY_MEMORY QUERY_TIMEOUT=$QUERY_TIMEOUT" \
  "WORKERS=$WORKERS SKIP_BUILD=$SKIP_BUILD $0 $*"
print_date_machine
for q in "${QUERIES[@]}"; do
  printf 'query:   %-8s COPY (%s) TO STDOUT, through md5sum and wc -c\n' "$q" "${QUERY[$q]}"
done
echo "versions: $("$PGBIN/postgres" --version), $(psql --version)"
echo "servers: $(durability_line); shared_buffers 256MB (direct) / 128MB (shards); work_mem default"
echo "pgrange: query_memory $(memory_label "$QUERY_MEMORY"), workers=$WORKERS, transaction pooling"
echo "logs:    $LOG_DIR"
echo

begin_run # build, the pgrange header line, T_START, bench_setup, $TMP/pgrange (see lib.sh)

# ---------------------------------------------------------------- servers and data on direct
start_four_servers 20 "wal_level = logical" # prepared transactions on the shards: pgrange's moves may use them

W_DDL="CREATE TABLE w (g int4, id int8, v int4, PRIMARY KEY (g, id))"
W_SELECT="SELECT (i % $NGROUPS)::int4, i, (i * 7919 % 1000003)::int4 FROM generate_series(1::int8, $ROWS) i"
echo "loading w ($ROWS rows, $NGROUPS values of g) on direct"
t0=$(date +%s)
sql_on direct "$W_DDL" "INSERT INTO w $W_SELECT" "VACUUM ANALYZE w"
echo "  $(($(date +%s) - t0)) s"

# ---------------------------------------------------------------- pgrange
start_pgrange load "$QUERY_MEMORY"
export PGPASSWORD=bench

# The split points: g = GROUPS * k / RANGES for k = 1..RANGES-1, one value each (a prefix of the
# key (g, id)), so that no g spans two ranges. (lib.sh's split_into cuts ids 1..MAX at
# MAX * k / N + 1, one key column; place_ranges reads SHOW RANGES of any table.)
splits=""
for ((k = 1; k < RANGES; k++)); do splits+="($((NGROUPS * k / RANGES))), "; done
SPLIT_SQL="ALTER TABLE w SPLIT AT VALUES ${splits%, }"
echo "w through pgrange: CREATE TABLE, $SPLIT_SQL, RELOCATE round-robin (empty), COPY … FROM STDIN"
via_pgrange "$W_DDL" >/dev/null
t0=$(date +%s)
via_pgrange "$SPLIT_SQL" >/dev/null
place_ranges w
echo "  split and placed in $(($(date +%s) - t0)) s"
via_pgrange "SHOW RANGES FROM TABLE w" >"$LOG_DIR/w-ranges.txt"
n=$(grep -c . "$LOG_DIR/w-ranges.txt" || true)
[ "$n" = "$RANGES" ] || die "w has $n ranges through pgrange, expected $RANGES (see $LOG_DIR/w-ranges.txt)"
copy_into_pgrange w
for s in s1 s2 s3; do
  sql_on "$s" "VACUUM ANALYZE w"
  echo "  on $s: $(sql_on "$s" "SELECT count(*) FROM w") rows of w"
done
SUMS_SQL="SELECT count(*), sum(v) FROM w"
d=$(sql_on direct "$SUMS_SQL")
p=$(via_pgrange "$SUMS_SQL")
[ "${d%%|*}" = "$ROWS" ] || die "direct counts ${d%%|*} rows of w, expected $ROWS"
[ "$p" = "$d" ] || die "w differs: count, sum(v) $p through pgrange, $d direct"
echo "  count and sum(v) equal: $d; ANALYZE done on direct and the shards"
WARM_COUNT=$(sql_on direct "$WARM_SQL")

# The plans: pushed's windows must be computed on each shard, computed's and whole's in pgrange (else this
# is not the benchmark it claims to be); gathered's plan is kept for reference (EXPLAIN without
# ANALYZE runs nothing).
for q in pushed computed whole; do
  x="$LOG_DIR/explain-$q-pgrange.txt"
  via_pgrange "EXPLAIN ${QUERY[$q]}" >"$x" 2>&1 || { cat "$x" >&2; die "EXPLAIN of $q through pgrange failed"; }
  if ! grep -q -F "${EXPLAIN_LINE[$q]}" "$x"; then
    cat "$x" >&2
    die "EXPLAIN of $q through pgrange (above, and in $x) does not say \"${EXPLAIN_LINE[$q]}\""
  fi
  echo "  EXPLAIN of $q through pgrange: \"${EXPLAIN_LINE[$q]}\""
done
x="$LOG_DIR/explain-gathered-pgrange.txt"
via_pgrange "EXPLAIN ${QUERY[gathered]}" >"$x" 2>&1 || echo "  (EXPLAIN of gathered through pgrange failed: see $x)"
LOAD_HWM=$(status_kb VmHWM)
echo "  pgrange after the load: VmRSS $(mib "$(status_kb VmRSS)") MiB, VmHWM $(mib "$LOAD_HWM") MiB"
stop_pgrange
echo "setup took $(($(date +%s) - T_START)) s"
echo

# ---------------------------------------------------------------- the queries
RESULTS="$LOG_DIR/results.tsv"
QUERIES_TSV="$LOG_DIR/queries.tsv"
printf 'query\tround\ttarget\tms\tbytes\tmd5\tpgrange_cpu_s\tresult\n' >"$RESULTS"
printf 'query\tquery_memory\tdirect_ms\tpgrange_ms\tratio_pgrange_direct\tpgrange_cpu_s\tvmhwm_warm_kb\tvmhwm_after_kb\tvmhwm_growth_kb\tpgrange_result\n' >"$QUERIES_TSV"

declare -A BASE_KB PEAK_KB REF_MD5 REF_BYTES PGRANGE_RESULT
# run_query Q: a fresh pgrange, warmed; ROUNDS rounds, direct then pgrange, each pgrange md5
# compared with direct's. pushed and computed: pgrange every round, any failure fatal. gathered:
# pgrange in the first round only, a failure recorded (not fatal), then pgrange must still answer
# WARM_SQL.
# pgrange's VmHWM after the warm-up and after the rounds.
run_query() {
  local q=$1 r t base before cpu note c
  echo "== $q: ${QUERY[$q]}"
  echo "   query_memory $(memory_label "$QUERY_MEMORY"), $ROUNDS rounds$([ "$q" != gathered ] ||
    echo " (pgrange in the first only)"), a fresh pgrange"
  start_pgrange "$q" "$QUERY_MEMORY"
  via_pgrange "$WARM_SQL" >/dev/null
  BASE_KB[$q]=$(status_kb VmHWM)
  PGRANGE_RESULT[$q]=ok
  printf '%-6s %-8s %10s %12s %8s  %s\n' round target ms bytes "CPU s" note
  for ((r = 1; r <= ROUNDS; r++)); do
    for t in direct pgrange; do
      [ "$t" = direct ] || [ "$q" != gathered ] || [ "$r" = 1 ] || continue
      base="$LOG_DIR/$q-r$r-$t"
      before=0
      [ "$t" = direct ] || before=$(proc_ticks "$PGRANGE_PID")
      run_copy "$t" "$base" "${QUERY[$q]}"
      cpu=NA
      if [ "$t" = direct ]; then
        ms_or_error "$t" "$base"
        if [ -n "${REF_MD5[$q]:-}" ] && [ "$RUN_MD5" != "${REF_MD5[$q]}" ]; then
          die "direct PostgreSQL's output of $q changed: md5 $RUN_MD5 in round $r, ${REF_MD5[$q]} before"
        fi
        REF_MD5[$q]=$RUN_MD5
        REF_BYTES[$q]=$RUN_BYTES
        note="md5 $RUN_MD5"
      else
        kill -0 "$PGRANGE_PID" 2>/dev/null || die "pgrange exited during $q (see $PGRANGE_LOG)"
        cpu=$(ticks_to_seconds $(($(proc_ticks "$PGRANGE_PID") - before)))
        if [ "$q" != gathered ] || [ -z "$RUN_ERROR" ]; then
          ms_or_error "$t" "$base"
          if [ "$RUN_MD5" != "${REF_MD5[$q]}" ] || [ "$RUN_BYTES" != "${REF_BYTES[$q]}" ]; then
            die "pgrange's output of $q differs from direct's in round $r: md5 $RUN_MD5 ($RUN_BYTES bytes)," \
              "direct ${REF_MD5[$q]} (${REF_BYTES[$q]} bytes)"
          fi
          note="md5 = direct's"
        else
          PGRANGE_RESULT[$q]="failed: $RUN_ERROR"
          RUN_MD5=NA
          RUN_BYTES=NA
          note="FAILED: $RUN_ERROR"
          [ "$RUN_SQLSTATE" = 53200 ] || note+=" (expected 53200, or success)"
        fi
      fi
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$q" "$r" "$t" "$RUN_MS" "$RUN_BYTES" "$RUN_MD5" "$cpu" \
        "$([ -z "$RUN_ERROR" ] && echo ok || echo "${RUN_SQLSTATE:-error}")" >>"$RESULTS"
      printf '%-6s %-8s %10s %12s %8s  %s\n' "$r" "$t" "$RUN_MS" "$RUN_BYTES" "$cpu" "$note"
      if [ "$t" = pgrange ] && [ "$q" = gathered ]; then # still there, and still answering?
        kill -0 "$PGRANGE_PID" 2>/dev/null || die "pgrange exited after gathered (see $PGRANGE_LOG)"
        c=$(via_pgrange "$WARM_SQL" 2>"$base.after.err") ||
          die "pgrange does not answer $WARM_SQL after gathered (see $base.after.err, $PGRANGE_LOG)"
        [ "$c" = "$WARM_COUNT" ] || die "$WARM_SQL through pgrange after gathered: $c, direct $WARM_COUNT"
        echo "       pgrange still running after it, and answers $WARM_SQL: $c (= direct's)"
      fi
    done
  done
  PEAK_KB[$q]=$(status_kb VmHWM)
  echo "       pgrange VmHWM $(mib "${BASE_KB[$q]}") MiB after its warm-up, $(mib "${PEAK_KB[$q]}") MiB" \
    "after the rounds (+$(mib $((PEAK_KB[$q] - BASE_KB[$q]))) MiB); VmRSS now $(mib "$(status_kb VmRSS)") MiB"
  stop_pgrange
  echo
}

# Caches: the table read once on each server (not through pgrange) before the timed runs.
for s in direct s1 s2 s3; do sql_on "$s" "SELECT count(*) FROM w" >/dev/null; done

for q in "${QUERIES[@]}"; do run_query "$q"; done

# ---------------------------------------------------------------- summary
col() {  # col QUERY TARGET COLUMN: the values of the query's successful runs of TARGET
  awk -F'\t' -v q="$1" -v t="$2" -v c="$3" 'NR > 1 && $1 == q && $3 == t && $8 == "ok" {print $c}' "$RESULTS"
}
fmt_ms() { awk -v v="$1" 'BEGIN {if (v == "NA") print v; else if (v < 100) printf "%.1f", v; else printf "%.0f", v}'; }

echo "== medians over the rounds (w $ROWS rows, $NGROUPS values of g, in $RANGES ranges split at g values," \
  "round-robin over 3 shards; pgrange workers=$WORKERS, query_memory $(memory_label "$QUERY_MEMORY"))"
echo
echo "| query | output bytes | direct ms | pgrange ms | ratio pgrange/direct | pgrange CPU s | pgrange VmHWM MiB warm-up → after (growth) | pgrange's result |"
echo "|---|---|---|---|---|---|---|---|"
for q in "${QUERIES[@]}"; do
  d=$(col "$q" direct 4 | median)
  p=$(col "$q" pgrange 4 | median)
  ratio=$(awk -v a="$p" -v b="$d" 'BEGIN {if (a != "NA" && b > 0) printf "%.2f×", a / b; else print "NA"}')
  # CPU: of every pgrange run, a failed one too (what it spent before the error)
  cpu=$(awk -F'\t' -v q="$q" 'NR > 1 && $1 == q && $3 == "pgrange" {print $7}' "$RESULTS" | median)
  cpu=$(awk -v v="$cpu" 'BEGIN {if (v == "NA") print v; else printf "%.2f", v}')
  growth=$(awk -v a="${PEAK_KB[$q]}" -v b="${BASE_KB[$q]}" 'BEGIN {printf "%+.0f", (a - b) / 1024}')
  result=${PGRANGE_RESULT[$q]}
  [ "$result" != ok ] || result="md5 = direct's"
  p_cell=$(fmt_ms "$p")
  [ "${PGRANGE_RESULT[$q]}" = ok ] || p_cell="failed after $(awk -F'\t' -v q="$q" \
    'NR > 1 && $1 == q && $3 == "pgrange" {print $4; exit}' "$RESULTS") ms"
  echo "| $q | ${REF_BYTES[$q]} | $(fmt_ms "$d") | $p_cell | $ratio | $cpu |" \
    "$(mib "${BASE_KB[$q]}") → $(mib "${PEAK_KB[$q]}") ($growth) | ${result//|/\\|} |"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$q" "${QUERY_MEMORY:-default}" "$d" "$p" "${ratio%×}" \
    "$cpu" "${BASE_KB[$q]}" "${PEAK_KB[$q]}" $((PEAK_KB[$q] - BASE_KB[$q])) "${PGRANGE_RESULT[$q]//$'\t'/ }" >>"$QUERIES_TSV"
done
echo
echo "ms: wall time of psql's whole run (connection included), its COPY output read by md5sum and wc -c;"
echo "  pushed and computed: pgrange's md5 equalled direct's in every round ($ROUNDS); gathered: pgrange"
echo "  ran once, direct $ROUNDS times (a pgrange md5, when it succeeded, equalled direct's)."
echo "ratio: pgrange median ms / direct median ms (1.00× = as fast as one PostgreSQL; 2.00× = twice as slow)."
echo "VmHWM: peak RSS of the query's own pgrange after its warm-up ($WARM_SQL) and after the query's"
echo "  rounds (the pgrange that loaded the table: VmHWM $(mib "$LOAD_HWM") MiB after the load)."
echo "CPU s: pgrange's utime+stime (all threads) per run, median; direct's CPU is not measured."
echo "pgrange's result: pushed computes the windows on each shard and merges (flat memory); computed"
echo "  runs in pgrange (shards' rows merged in window order, the windows computed as they stream, then"
echo "  pgrange's Sort by id), its memory bounded by query_memory plus the merge (the Sort spills past"
echo "  query_memory); whole (a frame to the partition's end, and percent_rank: every row waits for the"
echo "  last) holds query_memory of the waiting rows and writes the rest to a temporary file;"
echo "  gathered (a sliding frame, not computed in pgrange) is expected to fail with 53200 (its"
echo "  rows past query_memory) when the table does not fit; pgrange then still answered $WARM_SQL."
echo "EXPLAIN through pgrange: $LOG_DIR/explain-*-pgrange.txt"
echo "Raw per-run figures: $RESULTS; per query: $QUERIES_TSV"
echo "finished $(date -u '+%Y-%m-%d %H:%M:%S UTC') after $(($(date +%s) - T_START)) s," \
  "load average $(load_average)"
