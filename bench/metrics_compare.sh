#!/usr/bin/env bash
# What pgrange's metrics cost (a benchmark, not a test): pgbench -S through three pgranges in
# pass-through (one shard, transaction pooling), interleaved in rounds:
#   base  a pgrange built from the commit before metrics existed (BASE_PGRANGE; left out when
#         unset),
#   off   the current pgrange without [http]: its workers' counters count every request, nobody
#         reads them,
#   on    the current pgrange with [http] listen, and a scraper fetching /metrics every
#         SCRAPE_INTERVAL seconds during each of its runs.
# Prints median TPS and pgrange's CPU seconds per 10,000 transactions (utime+stime from
# /proc/PID/stat around each run) per target and mode, and the ratios on/off, on/base and
# off/base of CPU per transaction (of the medians, and per round). The goal: on/off <= 1.02.
#
# It starts its own PostgreSQL (fsync=off, full_page_writes=off, synchronous_commit=off) and the
# pgranges on free ports in 20000-32000 and removes them on exit.
#
# Usage: BASE_PGRANGE=/path/to/old/pgrange bench/metrics_compare.sh
# Settings (environment):
#   BASE_PGRANGE=FILE         pgrange built without metrics: the base target (default: none)
#   ROUNDS=3 DURATION=10 CLIENTS=8 JOBS=2 SCALE=10   pgbench shape; DURATION in seconds
#   MODES="simple prepared"   pgbench -M protocols to run
#   WORKERS=1                 pgrange's workers, the same for every target
#   WARMUP=3                  seconds of unmeasured pgbench per target and mode before round 1
#   SCRAPE_INTERVAL=1         seconds between two scrapes of /metrics (on)
#   SKIP_BUILD=1              do not run scripts/build.sh --target pgrange first
#   LOG_DIR=DIR               where pgbench, scraper and server logs go
#                             (default /tmp/metrics_compare-logs.<time>)
#   PGBIN=DIR                 PostgreSQL server binaries (default: pg_config --bindir)
#   PGRANGE=build/proxy/pgrange   the current pgrange (off and on)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
CLIENTS=${CLIENTS:-8}
JOBS=${JOBS:-2}
SCALE=${SCALE:-10}
MODES=${MODES:-simple prepared}
WORKERS=${WORKERS:-1}
WARMUP=${WARMUP:-3}
SCRAPE_INTERVAL=${SCRAPE_INTERVAL:-1}
SKIP_BUILD=${SKIP_BUILD:-0}
BASE_PGRANGE=${BASE_PGRANGE:-}
LOG_DIR=${LOG_DIR:-/tmp/metrics_compare-logs.$(date -u +%Y%m%dT%H%M%SZ)}
PGRANGE=${PGRANGE:-$REPO/build/proxy/pgrange}
[[ $PGRANGE == /* ]] || PGRANGE="$PWD/$PGRANGE" # bench_setup changes to /tmp before the copy

require_counts ROUNDS DURATION CLIENTS JOBS SCALE WARMUP SCRAPE_INTERVAL
if [ "$ROUNDS" -lt 1 ] || [ "$DURATION" -lt 1 ] || [ "$CLIENTS" -lt 1 ] || [ "$JOBS" -lt 1 ] ||
  [ "$SCRAPE_INTERVAL" -lt 1 ]; then
  die "ROUNDS, DURATION, CLIENTS, JOBS and SCRAPE_INTERVAL must be at least 1"
fi
[[ $WORKERS =~ ^[1-9][0-9]*$ ]] || die "WORKERS must be a positive integer (got \"$WORKERS\")"
read -r -a MODE_LIST <<<"$MODES"
require_modes "${MODE_LIST[@]}"
require_environment pgbench psql pg_isready setpriv getconf ss awk
if [ -n "$BASE_PGRANGE" ]; then
  if [ ! -f "$BASE_PGRANGE" ] || [ ! -x "$BASE_PGRANGE" ]; then
    die "BASE_PGRANGE=$BASE_PGRANGE is not an executable file"
  fi
  # absolute: bench_setup changes to /tmp before the copy
  BASE_PGRANGE="$(cd "$(dirname "$BASE_PGRANGE")" && pwd)/$(basename "$BASE_PGRANGE")"
  TARGETS=(base off on)
else
  TARGETS=(off on)
fi

# The scraper: curl in a bash loop, else one python3 process looping with urllib.
if command -v curl >/dev/null 2>&1; then
  SCRAPER="curl ($(command -v curl)) in a bash loop"
else
  PYTHON=/usr/bin/python3
  [ -x "$PYTHON" ] || PYTHON=$(command -v python3 || true)
  [ -n "$PYTHON" ] || die "neither curl nor python3 found: nothing can scrape /metrics"
  SCRAPER="$PYTHON (urllib) in one process"
fi

binary_line() {  # binary_line FILE: the file, its date and the start of its SHA-256
  echo "$1 (built $(date -u -r "$1" '+%Y-%m-%d %H:%M UTC'), sha256 $(sha256sum "$1" | cut -c1-12))"
}

# ---------------------------------------------------------------- header
echo "== pgrange metrics overhead (pgbench -S through pgrange, pass-through)"
echo "command: BASE_PGRANGE=${BASE_PGRANGE:-\"\"} ROUNDS=$ROUNDS DURATION=$DURATION CLIENTS=$CLIENTS" \
  "JOBS=$JOBS SCALE=$SCALE MODES=\"$MODES\" WORKERS=$WORKERS WARMUP=$WARMUP" \
  "SCRAPE_INTERVAL=$SCRAPE_INTERVAL SKIP_BUILD=$SKIP_BUILD $0 $*"
print_date_machine
echo "versions: $("$PGBIN/postgres" --version), $(pgbench --version)"
echo "server:  fsync=off full_page_writes=off synchronous_commit=off (not durable; reads only here)"
echo "targets: ${TARGETS[*]}, in that order in round 1, rotated by one each round;" \
  "one pgrange per target, started once and kept for the whole run"
if [ -n "$BASE_PGRANGE" ]; then
  echo "base:    $(binary_line "$BASE_PGRANGE")"
else
  echo "base:    none: BASE_PGRANGE is not set, so only off and on run (set it to a pgrange built" \
    "from the commit before metrics existed)"
fi
echo "off:     the current pgrange, no [http] (its counters count, nobody reads them)"
echo "on:      the current pgrange, [http] listen, /metrics fetched every ${SCRAPE_INTERVAL}s" \
  "during each of its runs by $SCRAPER"
echo "logs:    $LOG_DIR"

begin_run # build (unless SKIP_BUILD=1), the pgrange: line, bench_setup, $TMP/pgrange (lib.sh)
if [ -n "$BASE_PGRANGE" ]; then
  cmp -s "$BASE_PGRANGE" "$PGRANGE" && echo "warning: BASE_PGRANGE is the same file as PGRANGE"
  mkdir "$TMP/base"
  cp "$BASE_PGRANGE" "$TMP/base/pgrange" # same name, so its comm is pgrange too
fi
declare -A BIN=([base]="$TMP/base/pgrange" [off]="$TMP/pgrange" [on]="$TMP/pgrange")

# ---------------------------------------------------------------- PostgreSQL
POOL=$((CLIENTS * WORKERS > 20 ? CLIENTS * WORKERS : 20)) # as pgbench_compare.sh
pick_port PG_PORT
DATA="$TMP/data"
"${AS_POSTGRES[@]}" "$PGBIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 \
  >"$LOG_DIR/initdb.log" 2>&1 || die "initdb failed (see $LOG_DIR/initdb.log)"
# each pgrange's pool, its metadata connections, psql and slack
postgres_conf "$DATA" "$PG_PORT" $((${#TARGETS[@]} * (POOL + 10) + 10)) 256MB
start_postgres pg "$DATA" "$LOG_DIR/postgres.log"
wait_ready PostgreSQL "$PG_PORT" "${SERVER_PID[pg]}" postgres

meta_dbs=()
for t in "${TARGETS[@]}"; do meta_dbs+=(-c "CREATE DATABASE pgrange_meta_$t OWNER bench"); done
psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres \
  -c "CREATE ROLE bench LOGIN PASSWORD 'bench'" -c "CREATE DATABASE bench OWNER bench" "${meta_dbs[@]}"
echo "initialising pgbench data, scale $SCALE"
pgbench -i -q -s "$SCALE" -h 127.0.0.1 -p "$PG_PORT" -U bench bench >"$LOG_DIR/pgbench-init.log" 2>&1 ||
  die "pgbench -i failed (see $LOG_DIR/pgbench-init.log)"

# ---------------------------------------------------------------- the pgranges
http_get() {  # http_get URL: the body on stdout; fails unless the answer is 200
  if command -v curl >/dev/null 2>&1; then
    curl -s -f --max-time 5 "$1"
  else
    "$PYTHON" -c 'import sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=5) as r: sys.stdout.write(r.read().decode())' "$1"
  fi
}

# start_target TARGET: pgrange (BIN[TARGET]) in pass-through over the one server, its metadata
# in a database of its own (no NOTIFY or load reports of the others reach it); "on" gets
# [http] at the end of its configuration. Sets PORT, PID (and HTTP_URL for on).
declare -A PORT PID
start_target() {
  local t=$1 port http cfg="$LOG_DIR/pgrange-$1.toml" i
  pick_port port
  {
    pgrange_toml "$port" "$WORKERS" warn "$PG_PORT" "$POOL" "s1:$PG_PORT" |
      sed "s/dbname=pgrange_meta /dbname=pgrange_meta_$t /"
    if [ "$t" = on ]; then
      pick_port http
      printf '\n[http]\nlisten = "127.0.0.1:%s"\n' "$http"
    fi
  } >"$cfg"
  grep -q "dbname=pgrange_meta_$t " "$cfg" || die "no metadata database of $t in $cfg"
  "${BIN[$t]}" --config "$cfg" >"$LOG_DIR/pgrange-$t.log" 2>&1 &
  PID[$t]=$!
  PROXY_PIDS+=("$!")
  PORT[$t]=$port
  wait_ready "pgrange ($t)" "$port" "${PID[$t]}" pgrange
  if [ "$t" = on ]; then
    HTTP_URL="http://127.0.0.1:$http/metrics"
    for ((i = 0; i < 50; i++)); do
      http_get "$HTTP_URL" >"$LOG_DIR/metrics-first.txt" 2>/dev/null && break
      sleep 0.1
    done
    grep -q '^pgrange_transactions_total ' "$LOG_DIR/metrics-first.txt" ||
      die "pgrange (on) does not serve /metrics at $HTTP_URL (see $LOG_DIR/pgrange-on.log)"
  fi
}
for t in "${TARGETS[@]}"; do start_target "$t"; done
echo "PostgreSQL :$PG_PORT  pgrange $(for t in "${TARGETS[@]}"; do printf '%s :%s  ' "$t" "${PORT[$t]}"; done)" \
  "/metrics: $HTTP_URL"
echo "pgrange: transaction pooling, one shard (pass-through, no IMPORT), workers=$WORKERS," \
  "pool_size $POOL"
echo

# ---------------------------------------------------------------- the scraper
# start_scraper OUT: fetch HTTP_URL every SCRAPE_INTERVAL s, one HTTP status per line to OUT
# (000 when no answer), until stop_scraper; the loop also ends when TMP is removed on exit.
SCRAPER_PID=""
start_scraper() {
  touch "$TMP/scraping"
  if command -v curl >/dev/null 2>&1; then
    while [ -e "$TMP/scraping" ]; do
      curl -s -o /dev/null -w '%{http_code}\n' --max-time 5 "$HTTP_URL" || true
      sleep "$SCRAPE_INTERVAL"
    done >"$1" 2>&1 &
  else
    "$PYTHON" -c 'import os, sys, time, urllib.error, urllib.request
url, flag, every = sys.argv[1], sys.argv[2], float(sys.argv[3])
while os.path.exists(flag):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            r.read()
            code = r.status
    except urllib.error.HTTPError as e:
        code = e.code
    except Exception:
        code = 0
    print("%03d" % code, flush=True)
    time.sleep(every)' "$HTTP_URL" "$TMP/scraping" "$SCRAPE_INTERVAL" >"$1" 2>&1 &
  fi
  SCRAPER_PID=$!
}
stop_scraper() {  # stop_scraper OUT WHAT: waits for the loop; sets SCRAPES_OK, SCRAPES; dies on no 200
  rm -f "$TMP/scraping"
  wait "$SCRAPER_PID" || true
  SCRAPER_PID=""
  SCRAPES=$(grep -c . "$1" || true)
  SCRAPES_OK=$(grep -c '^200$' "$1" || true)
  [ "$SCRAPES_OK" -gt 0 ] ||
    die "the scraper got no 200 answer from $HTTP_URL during the run of $2 ($SCRAPES tries, see $1)"
}

# ---------------------------------------------------------------- runs
export PGPASSWORD=bench
# run_target TARGET MODE SECONDS LOG: pgbench through the target (with the scraper for on);
# sets TICKS (pgrange's CPU ticks over the run) and, for on, SCRAPES_OK and SCRAPES.
run_target() {
  local t=$1 mode=$2 secs=$3 log=$4 before after
  before=$(proc_ticks "${PID[$t]}")
  [ "$t" != on ] || start_scraper "${log%.log}.scrapes"
  pgbench -n -S -M "$mode" -c "$CLIENTS" -j "$JOBS" -T "$secs" \
    -h 127.0.0.1 -p "${PORT[$t]}" -U bench bench >"$log" 2>&1 &
  PGBENCH_PID=$!
  if ! wait "$PGBENCH_PID"; then
    PGBENCH_PID=""
    die "pgbench through pgrange ($t, -M $mode) failed; see $log"
  fi
  PGBENCH_PID=""
  after=$(proc_ticks "${PID[$t]}")
  TICKS=$((after - before))
  SCRAPES_OK=-
  SCRAPES=-
  [ "$t" != on ] || stop_scraper "${log%.log}.scrapes" "$log"
}

order_of_round() {  # order_of_round ROUND: TARGETS rotated by ROUND-1
  local n=${#TARGETS[@]} i
  for ((i = 0; i < n; i++)); do printf '%s ' "${TARGETS[(i + $1 - 1) % n]}"; done
}

if [ "$WARMUP" -gt 0 ]; then
  echo "warm-up: ${WARMUP}s per target and mode (not counted)"
  for mode in "${MODE_LIST[@]}"; do
    for t in "${TARGETS[@]}"; do
      run_target "$t" "$mode" "$WARMUP" "$LOG_DIR/warmup-$mode-$t.log"
    done
  done
fi

RESULTS="$LOG_DIR/results.tsv"
printf 'round\tmode\ttarget\ttps\ttransactions\tpgrange_cpu_s\tscrapes_200\tscrapes\n' >"$RESULTS"
printf '%-6s %-9s %-6s %12s %12s %10s %14s %12s\n' round mode target TPS transactions "CPU s" \
  "CPU s/10k txn" "scrapes 200"
for ((round = 1; round <= ROUNDS; round++)); do
  for mode in "${MODE_LIST[@]}"; do
    for t in $(order_of_round "$round"); do
      log="$LOG_DIR/r$round-$mode-$t.log"
      run_target "$t" "$mode" "$DURATION" "$log"
      tps=$(pgbench_tps "$log")
      txns=$(pgbench_field "$log" "number of transactions actually processed")
      if [ -z "$tps" ] || [ -z "$txns" ] || [ "$txns" -le 0 ]; then die "no TPS in $log"; fi
      cpu=$(ticks_to_seconds "$TICKS")
      [ "$TICKS" -gt 0 ] || die "pgrange ($t) used no CPU over a run of $txns transactions ($log)"
      per10k=$(awk -v c="$cpu" -v n="$txns" 'BEGIN {printf "%.4f", c / n * 10000}')
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$mode" "$t" "$tps" "$txns" "$cpu" \
        "$SCRAPES_OK" "$SCRAPES" >>"$RESULTS"
      scr=-
      [ "$t" != on ] || scr="$SCRAPES_OK/$SCRAPES"
      printf '%-6s %-9s %-6s %12.1f %12s %10s %14s %12s\n' "$round" "$mode" "$t" "$tps" "$txns" \
        "$cpu" "$per10k" "$scr"
    done
  done
done

# ---------------------------------------------------------------- summary
column_of() {  # column_of MODE TARGET tps|cpu10k: one value per round
  awk -F'\t' -v m="$1" -v t="$2" -v what="$3" 'NR > 1 && $2 == m && $3 == t {
    if (what == "tps") print $4; else print $6 / $5 * 10000 }' "$RESULTS"
}
cpu_ratios() {  # cpu_ratios MODE NUM DEN: per-round ratio of CPU per transaction NUM/DEN, sorted
  awk -F'\t' -v m="$1" -v a="$2" -v b="$3" 'NR > 1 && $2 == m {
      if ($3 == a) x[$1] = $6 / $5; if ($3 == b) y[$1] = $6 / $5 }
    END { for (r in x) if (r in y && y[r] > 0) printf "%.3f\n", x[r] / y[r] }' "$RESULTS" | sort -g |
    paste -sd' ' -
}

echo
echo "== medians over $ROUNDS rounds (pgbench -S -c $CLIENTS -j $JOBS -T $DURATION, scale $SCALE," \
  "pgrange workers=$WORKERS)"
printf '%-9s %-6s %12s %14s\n' mode target "median TPS" "CPU s/10k txn"
declare -A MED_CPU
for mode in "${MODE_LIST[@]}"; do
  for t in "${TARGETS[@]}"; do
    MED_CPU[$mode,$t]=$(column_of "$mode" "$t" cpu10k | median)
    printf '%-9s %-6s %12.1f %14.4f\n' "$mode" "$t" "$(column_of "$mode" "$t" tps | median)" \
      "${MED_CPU[$mode,$t]}"
  done
done

echo
echo "== pgrange CPU per transaction: ratio of the medians (per-round paired ratios, sorted," \
  "in brackets); the goal is on/off <= 1.02"
pairs=("on off")
[ -z "$BASE_PGRANGE" ] || pairs+=("on base" "off base")
for mode in "${MODE_LIST[@]}"; do
  for p in "${pairs[@]}"; do
    read -r a b <<<"$p"
    r=$(awk -v x="${MED_CPU[$mode,$a]}" -v y="${MED_CPU[$mode,$b]}" 'BEGIN {printf "%.3f", x / y}')
    printf '%-9s %-9s %6s  [%s]%s\n' "$mode" "$a/$b" "$r" "$(cpu_ratios "$mode" "$a" "$b")" \
      "$(awk -v r="$r" 'BEGIN {if (r > 1.02) print "  (above 1.02)"}')"
  done
done
[ -n "$BASE_PGRANGE" ] || echo "(no base: set BASE_PGRANGE for on/base and off/base)"

# What the on pgrange counted, against what pgbench sent through it (warm-up included; pgbench's
# own set-up statements are counted by pgrange too, so its figure is a little higher).
sent=0
for log in "$LOG_DIR"/warmup-*-on.log "$LOG_DIR"/r*-on.log; do
  [ -e "$log" ] || continue
  sent=$((sent + $(pgbench_field "$log" "number of transactions actually processed")))
done
counted=$(http_get "$HTTP_URL" | awk '$1 == "pgrange_transactions_total" {print $2}')
scrapes_ok=$(awk -F'\t' 'NR > 1 && $3 == "on" {s += $7} END {print s + 0}' "$RESULTS")
scrapes=$(awk -F'\t' 'NR > 1 && $3 == "on" {s += $8} END {print s + 0}' "$RESULTS")
echo
echo "on: $scrapes_ok of $scrapes scrapes of /metrics answered 200 during the measured runs;" \
  "pgrange_transactions_total ${counted:-?} after $sent transactions from pgbench"
if [ -z "$counted" ] || [ "$counted" -lt "$sent" ]; then
  echo "warning: pgrange (on) counted fewer transactions than pgbench made"
fi
echo
echo "CPU s/10k txn: the pgrange process's utime+stime (all threads, the HTTP thread included;"
echo "/proc/PID/stat, CLK_TCK=$CLK_TCK) over one run divided by the transactions pgbench reports"
echo "for it; median over rounds. Raw per-run figures: $RESULTS"
echo "finished $(date -u '+%Y-%m-%d %H:%M:%S UTC') ($(($(date +%s) - T_START)) s), load average $(load_average)"
