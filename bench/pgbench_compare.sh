#!/usr/bin/env bash
# End-to-end pass-through benchmark (a benchmark, not a test): pgbench -S against
#   A  PostgreSQL directly,
#   B  PgBouncer (transaction mode for -M simple; session mode for -M prepared, because
#      PgBouncer 1.18 has no protocol-level prepared statements in transaction mode),
#   C  pgrange in transaction mode, once per worker count in WORKERS,
# interleaved A/B/C A/B/C for ROUNDS rounds. Prints median TPS per target and mode, the
# ratios pgrange/PgBouncer and pgrange/direct, and each proxy's CPU seconds per 10,000
# transactions (utime+stime from /proc/PID/stat around each run).
#
# It starts its own PostgreSQL (fsync=off, full_page_writes=off, synchronous_commit=off),
# PgBouncer and pgrange on free ports in 20000-32000 and removes them on exit.
#
# Usage: bench/pgbench_compare.sh
# Settings (environment):
#   ROUNDS=3 DURATION=10 CLIENTS=8 JOBS=2 SCALE=10   pgbench shape; DURATION in seconds
#   MODES="simple prepared"   pgbench -M protocols to run
#   WORKERS="1"               pgrange worker counts, e.g. WORKERS="1 2" adds a second pgrange
#   WARMUP=3                  seconds of unmeasured pgbench per target and mode before round 1
#   SKIP_BUILD=1              do not run scripts/build.sh --target pgrange first
#   IMPORT_TABLES=1           register the pgbench tables with pgrange (IMPORT TABLE), so every
#                             statement is analysed and routed by key (default: 0, pass-through)
#   LOG_DIR=DIR               where pgbench and server logs go (default /tmp/pgbench_compare-logs.<time>)
#   PGBIN=DIR                 PostgreSQL server binaries (default: pg_config --bindir)
#   PGBOUNCER=/usr/sbin/pgbouncer   PGRANGE=build/proxy/pgrange
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
SKIP_BUILD=${SKIP_BUILD:-0}
IMPORT_TABLES=${IMPORT_TABLES:-0}
LOG_DIR=${LOG_DIR:-/tmp/pgbench_compare-logs.$(date -u +%Y%m%dT%H%M%SZ)}
PGRANGE=${PGRANGE:-$REPO/build/proxy/pgrange}

require_counts ROUNDS DURATION CLIENTS JOBS SCALE WARMUP
if [ "$ROUNDS" -lt 1 ] || [ "$DURATION" -lt 1 ] || [ "$CLIENTS" -lt 1 ] || [ "$JOBS" -lt 1 ]; then
  die "ROUNDS, DURATION, CLIENTS and JOBS must be at least 1"
fi
read -r -a MODE_LIST <<<"$MODES"
read -r -a WORKER_LIST <<<"$WORKERS"
require_modes "${MODE_LIST[@]}"
for w in "${WORKER_LIST[@]}"; do
  [[ $w =~ ^[1-9][0-9]*$ ]] || die "WORKERS must list positive integers (got \"$w\")"
done
require_environment pgbench pg_isready setpriv getconf ss awk
[ -x "$PGBOUNCER" ] || die "no PgBouncer at $PGBOUNCER"

# ---------------------------------------------------------------- header
echo "== pgrange pass-through benchmark (pgbench -S)"
echo "command: ROUNDS=$ROUNDS DURATION=$DURATION CLIENTS=$CLIENTS JOBS=$JOBS SCALE=$SCALE" \
  "MODES=\"$MODES\" WORKERS=\"$WORKERS\" WARMUP=$WARMUP SKIP_BUILD=$SKIP_BUILD $0 $*"
print_date_machine
echo "versions: $("$PGBIN/postgres" --version), $("$PGBOUNCER" --version 2>&1 | head -n1)," \
  "$(pgbench --version), pgrange $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "server:  fsync=off full_page_writes=off synchronous_commit=off (not durable; reads only here)"
echo "logs:    $LOG_DIR"
echo

build_pgrange
bench_setup # the postgres user, cleanup on exit, LOG_DIR, TMP, cd /tmp (see lib.sh)

# ---------------------------------------------------------------- PostgreSQL
pick_port PG_PORT
DATA="$TMP/data"
MAX_CONN=$((CLIENTS + 2 * 20 + 10)) # direct clients, two PgBouncer pools, psql and slack
for w in "${WORKER_LIST[@]}"; do MAX_CONN=$((MAX_CONN + (CLIENTS * w > 20 ? CLIENTS * w : 20))); done
"${AS_POSTGRES[@]}" "$PGBIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 \
  >"$LOG_DIR/initdb.log" 2>&1 || die "initdb failed (see $LOG_DIR/initdb.log)"
postgres_conf "$DATA" "$PG_PORT" "$MAX_CONN" 256MB
start_postgres pg "$DATA" "$LOG_DIR/postgres.log"
wait_ready PostgreSQL "$PG_PORT" "${SERVER_PID[pg]}" postgres

psql_pg() {
  psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U postgres "$@"
}
psql_pg -d postgres -c "CREATE ROLE bench LOGIN PASSWORD 'bench'" \
  -c "CREATE DATABASE bench OWNER bench" -c "CREATE DATABASE pgrange_meta OWNER bench"
echo "initialising pgbench data, scale $SCALE"
pgbench -i -q -s "$SCALE" -h 127.0.0.1 -p "$PG_PORT" -U bench bench >"$LOG_DIR/pgbench-init.log" 2>&1 ||
  die "pgbench -i failed (see $LOG_DIR/pgbench-init.log)"

# ---------------------------------------------------------------- PgBouncer, twice
# Both proxies authenticate clients with md5 against the same plaintext password, and
# both reach PostgreSQL as "bench" over 127.0.0.1 with trust (start_pgbouncer, lib.sh).
declare -A PORT NAME PID PGB_MODE
start_bouncer() {  # start_bouncer TARGET POOL_MODE
  start_pgbouncer "$2" "$2" "$PG_PORT"
  PID[$1]=$PGBOUNCER_PID
  PORT[$1]=$PGBOUNCER_PORT
  NAME[$1]="pgbouncer ($2)"
  PGB_MODE[$1]=$2
}
start_bouncer bouncer_tx transaction
start_bouncer bouncer_session session

# ---------------------------------------------------------------- pgrange, per worker count
start_pgrange() {  # start_pgrange WORKERS
  local w=$1 target="pgrange_w$1" port cfg pool
  pick_port port
  pool=$((CLIENTS * w > 20 ? CLIENTS * w : 20))
  cfg="$TMP/pgrange-w$w.toml"
  pgrange_toml "$port" "$w" warn "$PG_PORT" "$pool" "s1:$PG_PORT" >"$cfg"
  "$PGRANGE" --config "$cfg" >"$LOG_DIR/pgrange-w$w.log" 2>&1 &
  PID[$target]=$!
  PROXY_PIDS+=("$!")
  PORT[$target]=$port
  NAME[$target]="pgrange workers=$w (transaction, pool_size $pool)"
  wait_ready "pgrange (workers=$w)" "$port" "${PID[$target]}" pgrange
  if [ "$IMPORT_TABLES" = 1 ]; then
    local t
    for t in pgbench_accounts pgbench_branches pgbench_tellers pgbench_history; do
      PGPASSWORD=bench psql -X -q -h 127.0.0.1 -p "$port" -U bench -d bench \
        -c "IMPORT TABLE $t" >/dev/null 2>&1 || true  # the second pgrange finds them imported
    done
    NAME[$target]+=", tables imported"
  fi
}
for w in "${WORKER_LIST[@]}"; do start_pgrange "$w"; done

PORT[direct]=$PG_PORT
NAME[direct]="direct"
PID[direct]=""

# Which targets run in a mode, in the order they run within a round.
targets_for() {
  local mode=$1 t w
  if [ "$mode" = simple ]; then t="direct bouncer_tx"; else t="direct bouncer_session"; fi
  for w in "${WORKER_LIST[@]}"; do t+=" pgrange_w$w"; done
  echo "$t"
}

echo "PostgreSQL :$PG_PORT  PgBouncer transaction :${PORT[bouncer_tx]}" \
  "session :${PORT[bouncer_session]}  pgrange $(for w in "${WORKER_LIST[@]}"; do
    printf 'workers=%s :%s ' "$w" "${PORT[pgrange_w$w]}"
  done)"
echo "PgBouncer runs in transaction mode for -M simple and in SESSION mode for -M prepared:"
echo "  PgBouncer 1.18 has no protocol-level prepared statements in transaction mode."
echo "pgrange runs in transaction mode for both; workers=${WORKER_LIST[*]} (PgBouncer is single-threaded)."
echo

# ---------------------------------------------------------------- runs
export PGPASSWORD=bench
run_pgbench() {  # run_pgbench TARGET MODE SECONDS LOGFILE
  local target=$1 mode=$2 secs=$3 log=$4
  pgbench -n -S -M "$mode" -c "$CLIENTS" -j "$JOBS" -T "$secs" \
    -h 127.0.0.1 -p "${PORT[$target]}" -U bench bench >"$log" 2>&1 &
  PGBENCH_PID=$!
  if ! wait "$PGBENCH_PID"; then
    PGBENCH_PID=""
    die "pgbench against ${NAME[$target]} (-M $mode) failed; see $log"
  fi
  PGBENCH_PID=""
}

if [ "$WARMUP" -gt 0 ]; then
  echo "warm-up: ${WARMUP}s per target and mode (not counted)"
  for mode in "${MODE_LIST[@]}"; do
    for target in $(targets_for "$mode"); do
      run_pgbench "$target" "$mode" "$WARMUP" "$LOG_DIR/warmup-$mode-$target.log"
    done
  done
fi

RESULTS="$LOG_DIR/results.tsv" # round mode target tps txns cpu_seconds
printf 'round\tmode\ttarget\ttps\ttransactions\tproxy_cpu_s\n' >"$RESULTS"
printf '%-6s %-9s %-46s %12s %12s %14s\n' round mode target TPS transactions "CPU s/10k txn"
for ((round = 1; round <= ROUNDS; round++)); do
  for mode in "${MODE_LIST[@]}"; do
    for target in $(targets_for "$mode"); do
      log="$LOG_DIR/r$round-$mode-$target.log"
      pid=${PID[$target]}
      before=0
      [ -n "$pid" ] && before=$(proc_ticks "$pid")
      run_pgbench "$target" "$mode" "$DURATION" "$log"
      after=0
      [ -n "$pid" ] && after=$(proc_ticks "$pid")
      tps=$(pgbench_tps "$log")
      txns=$(pgbench_field "$log" "number of transactions actually processed")
      if [ -z "$tps" ] || [ -z "$txns" ] || [ "$txns" -le 0 ]; then die "no TPS in $log"; fi
      if [ -n "$pid" ]; then
        cpu=$(ticks_to_seconds $((after - before)))
        per10k=$(awk -v c="$cpu" -v n="$txns" 'BEGIN {printf "%.3f", c / n * 10000}')
      else
        cpu=NA
        per10k=-
      fi
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$mode" "$target" "$tps" "$txns" "$cpu" >>"$RESULTS"
      printf '%-6s %-9s %-46s %12.1f %12s %14s\n' "$round" "$mode" "${NAME[$target]}" "$tps" "$txns" "$per10k"
    done
  done
done

# ---------------------------------------------------------------- summary
column_of() {  # column_of MODE TARGET tps|cpu10k: one value per round
  awk -F'\t' -v m="$1" -v t="$2" -v what="$3" 'NR > 1 && $2 == m && $3 == t {
    if (what == "tps") print $4; else print $6 / $5 * 10000 }' "$RESULTS"
}
paired_ratios() {  # paired_ratios MODE NUM DEN: per-round TPS ratio NUM/DEN
  awk -F'\t' -v m="$1" -v a="$2" -v b="$3" 'NR > 1 && $2 == m {
      if ($3 == a) x[$1] = $4; if ($3 == b) y[$1] = $4 }
    END { for (r in x) if (r in y && y[r] > 0) printf "%.3f\n", x[r] / y[r] }' "$RESULTS" | sort -g |
    paste -sd' ' -
}

echo
echo "== medians over $ROUNDS rounds (pgbench -S -c $CLIENTS -j $JOBS -T $DURATION, scale $SCALE;" \
  "server fsync=off full_page_writes=off synchronous_commit=off)"
printf '%-9s %-46s %12s %14s\n' mode target "median TPS" "CPU s/10k txn"
declare -A MED
for mode in "${MODE_LIST[@]}"; do
  for target in $(targets_for "$mode"); do
    MED[$mode,$target]=$(column_of "$mode" "$target" tps | median)
    if [ -n "${PID[$target]}" ]; then
      cpu10k=$(column_of "$mode" "$target" cpu10k | median)
      cpu10k=$(awk -v v="$cpu10k" 'BEGIN {printf "%.3f", v}')
    else
      cpu10k=-
    fi
    printf '%-9s %-46s %12.1f %14s\n' "$mode" "${NAME[$target]}" "${MED[$mode,$target]}" "$cpu10k"
  done
done

echo
echo "== ratios of median TPS (per-round paired ratios, sorted, in brackets)"
for mode in "${MODE_LIST[@]}"; do
  bouncer=bouncer_tx
  [ "$mode" = prepared ] && bouncer=bouncer_session
  printf '%-9s %-42s %6.3f  [%s]\n' "$mode" "PgBouncer(${PGB_MODE[$bouncer]})/direct" \
    "$(awk -v a="${MED[$mode,$bouncer]}" -v b="${MED[$mode,direct]}" 'BEGIN {print a / b}')" \
    "$(paired_ratios "$mode" "$bouncer" direct)"
  for w in "${WORKER_LIST[@]}"; do
    t=pgrange_w$w
    printf '%-9s %-42s %6.3f  [%s]\n' "$mode" "pgrange(workers=$w)/PgBouncer" \
      "$(awk -v a="${MED[$mode,$t]}" -v b="${MED[$mode,$bouncer]}" 'BEGIN {print a / b}')" \
      "$(paired_ratios "$mode" "$t" "$bouncer")"
    printf '%-9s %-42s %6.3f  [%s]\n' "$mode" "pgrange(workers=$w)/direct" \
      "$(awk -v a="${MED[$mode,$t]}" -v b="${MED[$mode,direct]}" 'BEGIN {print a / b}')" \
      "$(paired_ratios "$mode" "$t" direct)"
  done
done
echo
echo "CPU s/10k txn: the proxy process's utime+stime (all threads, /proc/PID/stat, CLK_TCK=$CLK_TCK)"
echo "over one run divided by the transactions pgbench reports for it; median over rounds."
echo "Raw per-run figures: $RESULTS"
echo "finished $(date -u '+%Y-%m-%d %H:%M:%S UTC'), load average $(load_average)"
