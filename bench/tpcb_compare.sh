#!/usr/bin/env bash
# End-to-end pgbench benchmark with writes (a benchmark, not a test), one PostgreSQL 15 server
# (direct) against pgrange (transaction pooling) over three PostgreSQL 15 shards, where the
# tables are made by pgbench -i THROUGH pgrange: its configuration keys the four pgbench tables
# (pgbench_history by aid) and splits each in thirds, so pgbench -i's CREATE TABLEs make them split
# and spread over the three shards and its COPY sends every row to its shard. Interleaved, pair by
# pair:
#   1. pgbench -i -s SCALE, timed (wall clock), INIT_ROUNDS pairs, direct then pgrange;
#   2. ROUNDS rounds of, for each WORKLOAD (tpcb: pgbench's default TPC-B script,
#        BEGIN; UPDATE pgbench_accounts …; SELECT abalance …; UPDATE pgbench_tellers …;
#        UPDATE pgbench_branches …; INSERT INTO pgbench_history …; END;
#      select: pgbench -S) and each MODE (simple, prepared): direct, then pgrange.
# A TPC-B transaction whose account, teller and branch are not all on one shard is coordinated by
# pgrange and committed with two-phase commit (PREPARE TRANSACTION on each shard, a decision row
# in its metadata store, COMMIT PREPARED). pgrange is started afresh for every pgbench through it,
# so the count of two-phase commits its shutdown line gives belongs to that one run.
# Afterwards it checks the bank invariant through pgrange and on the shards themselves —
# sum(abalance) = sum(bbalance) = sum(tbalance) = sum(delta), no row lost or duplicated, nothing
# left in pg_prepared_xacts. Exits 1 if the invariant is violated.
#
# It starts four PostgreSQL servers (by default fsync=off, full_page_writes=off,
# synchronous_commit=off: not durable, so the WAL flushes PREPARE TRANSACTION and COMMIT PREPARED
# force cost nothing; DURABLE=1 turns all three on; the shards have max_prepared_transactions=100)
# and pgrange on free ports in 20000-32000, and removes them on exit (also on Ctrl-C).
#
# Usage: bench/tpcb_compare.sh           (as root; about 7 minutes with the defaults)
#        DURABLE=1 bench/tpcb_compare.sh
# Settings (environment):
#   ROUNDS=3 DURATION=10 CLIENTS=8 JOBS=2  pgbench shape; DURATION in seconds per run
#   SCALE=10                               pgbench -i -s (at least 3)
#   INIT_ROUNDS=3                          timed pgbench -i pairs (the last one's tables are used)
#   WORKLOADS="tpcb select"                pgbench's default script and/or -S
#   MODES="simple prepared"                pgbench -M protocols
#   MAX_TRIES=10                           pgbench --max-tries (retries of 40001 / 40P01)
#   DURABLE=0                              1: fsync, full_page_writes, synchronous_commit on
#   REFERENCE=0                            1: pgbench_tellers and pgbench_branches are reference
#                                          tables (every shard holds them; TPC-B writes them on
#                                          every shard), the accounts and history split in thirds
#   WORKERS=1                              pgrange worker threads
#   WARMUP=2                               unmeasured seconds of TPC-B per target before round 1
#   LOAD_MAX=1.5 LOAD_WAIT=180             before the first timed run, wait up to LOAD_WAIT s for
#                                          the 1-minute load average to be at most LOAD_MAX
#   LOAD_EACH=0                            1: that wait before every timed run
#   SKIP_BUILD=1                           do not run scripts/build.sh --target pgrange first
#   LOG_DIR=DIR                            logs, results.tsv, init.tsv (default
#                                          /tmp/tpcb_compare-logs.<time>)
#   PGBIN=DIR  PGRANGE=build/proxy/pgrange binaries to use
set -euo pipefail
. "$(dirname "$0")/lib.sh"
DIE_STATUS=2     # exit status 1 means the bank invariant does not hold
STOP_TENTHS=150  # up to 15 s for pgrange and the servers to stop on exit

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
CLIENTS=${CLIENTS:-8}
JOBS=${JOBS:-2}
SCALE=${SCALE:-10}
INIT_ROUNDS=${INIT_ROUNDS:-3}
WORKLOADS=${WORKLOADS:-tpcb select}
MODES=${MODES:-simple prepared}
MAX_TRIES=${MAX_TRIES:-10}
DURABLE=${DURABLE:-0}
REFERENCE=${REFERENCE:-0}
WORKERS=${WORKERS:-1}
WARMUP=${WARMUP:-2}
LOAD_MAX=${LOAD_MAX:-1.5}
LOAD_WAIT=${LOAD_WAIT:-180}
LOAD_EACH=${LOAD_EACH:-0}
SKIP_BUILD=${SKIP_BUILD:-0}
LOG_DIR=${LOG_DIR:-/tmp/tpcb_compare-logs.$(date -u +%Y%m%dT%H%M%SZ)}
PGRANGE=${PGRANGE:-$REPO/build/proxy/pgrange}

require_counts ROUNDS DURATION CLIENTS JOBS SCALE INIT_ROUNDS MAX_TRIES WORKERS WARMUP LOAD_WAIT
if [ "$ROUNDS" -lt 1 ] || [ "$DURATION" -lt 1 ] || [ "$CLIENTS" -lt 1 ] || [ "$JOBS" -lt 1 ] ||
  [ "$WORKERS" -lt 1 ] || [ "$MAX_TRIES" -lt 1 ] || [ "$INIT_ROUNDS" -lt 1 ]; then
  die "ROUNDS, DURATION, CLIENTS, JOBS, WORKERS, MAX_TRIES and INIT_ROUNDS must be at least 1"
fi
[ "$SCALE" -ge 3 ] || die "SCALE must be at least 3, so that the branches spread over 3 shards"
[ "$DURABLE" = 0 ] || [ "$DURABLE" = 1 ] || die "DURABLE must be 0 or 1"
[[ $LOAD_MAX =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "LOAD_MAX must be a number"
# shellcheck disable=SC2086 # lists on purpose
require_modes $MODES
for w in $WORKLOADS; do
  [ "$w" = tpcb ] || [ "$w" = select ] || die "WORKLOADS may contain tpcb and select (got \"$w\")"
done
require_environment pgbench psql pg_isready setpriv ss awk timeout

ACCOUNTS=$((SCALE * 100000))
TELLERS=$((SCALE * 10))
BRANCHES=$SCALE
# Every run; --failures-detailed and --verbose-errors only add to what pgbench prints.
PGBENCH_OPTS=(-n -c "$CLIENTS" -j "$JOBS" --max-tries="$MAX_TRIES" --failures-detailed --verbose-errors)
TABLES_TOML=$(pgbench_tables_toml "$SCALE")
if [ "$REFERENCE" = 1 ]; then
  # Tellers and branches as reference tables: no key, no split points.
  TABLES_TOML=$(awk '/^name = "pgbench_(tellers|branches)"/ {print; print "reference = true"; skip = 2; next}
                     skip > 0 {skip--; next} {print}' <<<"$TABLES_TOML")
fi


# ---------------------------------------------------------------- header
echo "== pgrange pgbench benchmark: direct PostgreSQL vs pgrange over 3 shards, tables made by"
echo "   pgbench -i through pgrange (two-phase commit for TPC-B over several shards)"
echo "command: ROUNDS=$ROUNDS DURATION=$DURATION CLIENTS=$CLIENTS JOBS=$JOBS SCALE=$SCALE" \
  "INIT_ROUNDS=$INIT_ROUNDS WORKLOADS=\"$WORKLOADS\" MODES=\"$MODES\" MAX_TRIES=$MAX_TRIES" \
  "DURABLE=$DURABLE WORKERS=$WORKERS WARMUP=$WARMUP LOAD_MAX=$LOAD_MAX LOAD_WAIT=$LOAD_WAIT" \
  "LOAD_EACH=$LOAD_EACH REFERENCE=$REFERENCE SKIP_BUILD=$SKIP_BUILD $0 $*"
echo "pgbench: pgbench ${PGBENCH_OPTS[*]} -T $DURATION -M MODE [-S]"
print_date_machine
echo "versions: $("$PGBIN/postgres" --version), $(pgbench --version)"
echo "servers: $(durability_line); shards max_prepared_transactions=100"
echo "pgrange tables (split in thirds):" \
  "$(awk -F'"' '/^name = / {n = $2} /^key = / {k = $2} /^split_at/ {printf "%s by %s at %s; ", n, k, $0}
                /^reference/ {printf "%s: a reference table; ", n}' \
    <<<"$TABLES_TOML" | sed 's/split_at = //g')"
echo "logs:    $LOG_DIR"
echo

begin_run # build, the pgrange header line, T_START, bench_setup (see lib.sh)
start_four_servers 100
export PGPASSWORD=bench

# ---------------------------------------------------------------- pgrange, one per pgbench
# A coordinated transaction holds a connection on every shard it touched.
POOL=$((2 * CLIENTS * WORKERS > 20 ? 2 * CLIENTS * WORKERS : 20))
MISBEHAVIOUR=()
PGRANGE_STARTS=0
declare -A PORT
PORT[direct]=${SERVER_PORT[direct]}

start_pgrange() {  # start_pgrange LABEL: a fresh pgrange; its log is pgrange-N-LABEL.log
  PGRANGE_STARTS=$((PGRANGE_STARTS + 1))
  PGRANGE_LOG="$LOG_DIR/pgrange-$(printf '%02d' "$PGRANGE_STARTS")-$1.log"
  start_sharded_pgrange "$POOL" info "$PGRANGE_LOG" "$TABLES_TOML"
  PORT[pgrange]=$PGRANGE_PORT
}

# stop_pgrange: SIGTERM, then TWO_PC from its last log line, "pgrange stopped (N pins, M two-phase
# commits during its run)" ("NA" if that line is missing). M counts every two-phase commit pgrange
# began, so it includes any whose PREPARE then failed.
stop_pgrange() {
  local i stopped=0 last
  kill -s TERM "$PGRANGE_PID"
  for ((i = 0; i < 300; i++)); do
    if ! kill -0 "$PGRANGE_PID" 2>/dev/null; then stopped=1; break; fi
    sleep 0.1
  done
  if [ "$stopped" = 1 ]; then
    wait "$PGRANGE_PID" 2>/dev/null || true
  else
    MISBEHAVIOUR+=("pgrange did not stop within 30 s of SIGTERM (see $PGRANGE_LOG)")
    stop_pid "$PGRANGE_PID" KILL
  fi
  PGRANGE_PID=""
  last=$(tail -n 1 "$PGRANGE_LOG")
  TWO_PC=$(sed -nE 's/.*pgrange stopped \(([0-9]+) pins, ([0-9]+) two-phase commits.*/\2/p' <<<"$last")
  if [ -z "$TWO_PC" ]; then
    TWO_PC=NA
    MISBEHAVIOUR+=("the last line of $PGRANGE_LOG is not pgrange's \"pgrange stopped (…)\" line")
  fi
}

timed_run() {  # timed_run: the load gate before a timed run when LOAD_EACH=1
  [ "$LOAD_EACH" != 1 ] || wait_for_load "$LOAD_MAX" "$LOAD_WAIT"
}

# ---------------------------------------------------------------- 1. pgbench -i pairs
echo "waiting for a quiet machine: 1-minute load average at most $LOAD_MAX (up to $LOAD_WAIT s)"
wait_for_load "$LOAD_MAX" "$LOAD_WAIT"
LOAD_BEFORE=$(load_average)
echo "load average before the timed runs: $LOAD_BEFORE"
echo
INIT="$LOG_DIR/init.tsv"
printf 'pair\ttarget\twall_s\tstatus\ttwo_pc\tload1\tpgbench_done\n' >"$INIT"
echo "== pgbench -i -s $SCALE, $INIT_ROUNDS pairs (direct, then through pgrange over 3 shards)"
printf '%-5s %-8s %8s %6s %7s  %s\n' pair target "wall s" load1 "2PC" "pgbench"
for ((pair = 1; pair <= INIT_ROUNDS; pair++)); do
  for t in direct pgrange; do
    [ "$t" = direct ] || start_pgrange "init$pair"
    timed_run
    log="$LOG_DIR/init$pair-$t.log"
    load1=$(load_1min)
    rc=0
    t0=$(date +%s.%N)
    timeout -s INT -k 10 900 pgbench -i -s "$SCALE" -h 127.0.0.1 -p "${PORT[$t]}" -U bench bench \
      >"$log" 2>&1 || rc=$?
    t1=$(date +%s.%N)
    TWO_PC=""
    [ "$t" = direct ] || stop_pgrange
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')
    status=ok
    [ "$rc" = 0 ] || status="rc=$rc"
    done_line=$(grep -m1 '^done in' "$log" || true)
    done_line=${done_line%.}
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$pair" "$t" "$wall" "$status" "${TWO_PC:-}" "$load1" \
      "$done_line" >>"$INIT"
    printf '%-5s %-8s %8s %6s %7s  %s\n' "$pair" "$t" "$wall" "$load1" "${TWO_PC:--}" \
      "$([ "$status" = ok ] && echo "${done_line:-?}" || echo "FAILED $status: $(tail -n 2 "$log" | tr '\n' ' ')")"
    [ "$status" = ok ] || die "pgbench -i on $t failed (see $log)"
  done
done

# The layout pgbench -i made through pgrange, and where the rows are.
start_pgrange layout
LAYOUT="$LOG_DIR/ranges.txt"
: >"$LAYOUT"
for t in pgbench_accounts pgbench_history pgbench_tellers pgbench_branches; do
  via_pgrange "SHOW RANGES FROM TABLE $t" | sed "s/^/$t|/" >>"$LAYOUT"
done
for t in pgbench_accounts:$ACCOUNTS pgbench_tellers:$TELLERS pgbench_branches:$BRANCHES; do
  n=$(via_pgrange "SELECT count(*) FROM ${t%%:*}")
  [ "$n" = "${t##*:}" ] || die "pgrange counts $n rows of ${t%%:*}, expected ${t##*:}"
done
stop_pgrange
echo "  layout through pgrange (ranges per shard; rows per shard, counted on the shards):"
for t in pgbench_accounts pgbench_tellers pgbench_branches pgbench_history; do
  rows=""
  for s in s1 s2 s3; do rows+="$s: $(sql_on "$s" "SELECT count(*) FROM $t")  "; done
  printf '    %-17s ranges %s rows %s\n' "$t" "$(awk -F'|' -v t="$t" '$1 == t {print $5}' "$LAYOUT" |
    sort | uniq -c | awk '{printf "%s: %s  ", $2, $1}')" "$rows"
done
for s in s1 s2 s3; do
  [ "$(sql_on "$s" "SELECT count(*) > 0 FROM pgbench_accounts")" = t ] ||
    MISBEHAVIOUR+=("pgbench -i through pgrange left no account on $s: the tables are not spread (see $LAYOUT)")
done

# The share of TPC-B transactions expected to touch several shards, from the layout: one stays on
# one shard only if its account, its history row (keyed by the same aid), its teller and its branch
# are all on one shard; aid, tid and bid are drawn independently and uniformly. Bounds are …/1/N
# or the table's ends.
P_SEVERAL=$(awk -F'|' -v A="$ACCOUNTS" -v T="$TELLERS" -v B="$BRANCHES" '
  function bound(p, dflt) { if (p ~ /\/1\/[0-9]+$/) { sub(/.*\//, "", p); return p + 0 } return dflt }
  {
    max = ($1 == "pgbench_tellers") ? T : ($1 == "pgbench_branches") ? B : A
    lo = bound($2, 1); hi = bound($3, max + 1) - 1; if (hi > max) hi = max
    if ($1 == "pgbench_accounts" || $1 == "pgbench_history") {
      k = $1; n[k]++; L[k, n[k]] = lo; H[k, n[k]] = hi; S[k, n[k]] = $5
    } else if (hi >= lo) share[$1, $5] += (hi - lo + 1) / max
  }
  END {
    a = "pgbench_accounts"; h = "pgbench_history"; one = 0
    for (i = 1; i <= n[a]; i++) for (j = 1; j <= n[h]; j++) {
      if (S[a, i] != S[h, j]) continue
      lo = L[a, i] > L[h, j] ? L[a, i] : L[h, j]; hi = H[a, i] < H[h, j] ? H[a, i] : H[h, j]
      if (hi >= lo) one += (hi - lo + 1) / A * share["pgbench_tellers", S[a, i]] * share["pgbench_branches", S[a, i]]
    }
    printf "%.1f", (1 - one) * 100
  }' "$LAYOUT")
# With reference tellers and branches every TPC-B transaction writes every shard.
[ "$REFERENCE" = 1 ] && P_SEVERAL=100.0
echo "  expected share of TPC-B transactions over several shards (uniform aid/tid/bid): $P_SEVERAL %"
echo

# ---------------------------------------------------------------- 2. the runs
# run_pgbench TARGET WORKLOAD MODE SECONDS LOG: pgbench's exit status; 124 when it overran
# SECONDS + 60 (a hang).
run_pgbench() {
  local target=$1 workload=$2 mode=$3 secs=$4 log=$5 extra=()
  [ "$workload" = select ] && extra=(-S)
  timeout -s INT -k 10 $((secs + 60)) pgbench "${PGBENCH_OPTS[@]}" "${extra[@]}" -M "$mode" \
    -T "$secs" -h 127.0.0.1 -p "${PORT[$target]}" -U bench bench >"$log" 2>&1 &
  PGBENCH_PID=$!
  local rc=0
  wait "$PGBENCH_PID" || rc=$?
  PGBENCH_PID=""
  return $rc
}

# TPC-B transactions processed through pgrange since the last pgbench -i (warm-up included), to
# compare with the history rows afterwards.
PGR_TPCB_ALL=0
add_pgrange_tpcb() {  # add_pgrange_tpcb LOG
  local n
  n=$(pgbench_field "$1" "number of transactions actually processed")
  [[ $n =~ ^[0-9]+$ ]] && PGR_TPCB_ALL=$((PGR_TPCB_ALL + n))
  return 0
}
# Errors pgbench saw, by message: retried ones are "repeats the transaction after the error",
# the others abort a client.
summarise_errors() {  # summarise_errors LOG: "count message" lines
  grep -E 'ERROR|FATAL|aborted|error:' "$1" | grep -v 'repeats the transaction' |
    sed -E 's/client [0-9]+/client N/g' | sort | uniq -c | sort -rn | head -5 || true
}
retry_causes() {  # retry_causes LOG: what the retried errors were
  grep -A1 'repeats the transaction after the error' "$1" | grep -E 'ERROR|DETAIL' |
    sed -E 's/[0-9]{3,}/N/g' | sort | uniq -c | sort -rn | head -3 | awk '{$1 = $1 "×"; print}' |
    paste -sd';' - || true
}

if [ "$WARMUP" -gt 0 ]; then
  echo "warm-up: ${WARMUP}s of TPC-B per target (simple; not counted in the tables)"
  for t in direct pgrange; do
    [ "$t" = direct ] || start_pgrange warmup
    run_pgbench "$t" tpcb simple "$WARMUP" "$LOG_DIR/warmup-$t.log" || true
    [ "$t" = direct ] || { stop_pgrange; add_pgrange_tpcb "$LOG_DIR/warmup-$t.log"; }
  done
fi

RESULTS="$LOG_DIR/results.tsv"
printf 'round\tworkload\tmode\ttarget\ttps\tprocessed\tfailed\tretried\tretries\tstatus\tpgrange_cpu_s\ttwo_pc\tload1\tlatency_ms\n' >"$RESULTS"
echo "== pgbench -T $DURATION -c $CLIENTS -j $JOBS, $ROUNDS rounds, direct then pgrange"
printf '%-5s %-6s %-8s %-8s %9s %9s %6s %7s %7s %6s %7s %6s  %s\n' round work mode target TPS processed \
  failed retried retries "lat ms" "2PC" load1 note
for ((round = 1; round <= ROUNDS; round++)); do
  for w in $WORKLOADS; do
    for m in $MODES; do
      for t in direct pgrange; do
        [ "$t" = direct ] || start_pgrange "r$round-$w-$m"
        timed_run
        log="$LOG_DIR/r$round-$w-$m-$t.log"
        load1=$(load_1min)
        before=0
        [ "$t" = direct ] || before=$(proc_ticks "$PGRANGE_PID")
        rc=0
        run_pgbench "$t" "$w" "$m" "$DURATION" "$log" || rc=$?
        cpu=NA
        TWO_PC=NA
        if [ "$t" = pgrange ]; then
          cpu=$(ticks_to_seconds $(($(proc_ticks "$PGRANGE_PID") - before)))
          stop_pgrange
          [ "$w" = tpcb ] && add_pgrange_tpcb "$log"
        fi
        tps=$(pgbench_tps "$log")
        processed=$(pgbench_field "$log" "number of transactions actually processed")
        failed=$(pgbench_field "$log" "number of failed transactions")
        retried=$(pgbench_field "$log" "number of transactions retried")
        retries=$(pgbench_field "$log" "total number of retries")
        latency=$(awk '/^latency average = / {print $4; exit}' "$log")
        status=ok
        [ "$rc" = 0 ] || status="rc=$rc"
        [ "$rc" = 124 ] && status=hang
        grep -q 'aborted in command' "$log" && status="$status,clients-aborted"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$w" "$m" "$t" \
          "${tps:-NA}" "${processed:-NA}" "${failed:-NA}" "${retried:-NA}" "${retries:-NA}" "$status" \
          "$cpu" "$TWO_PC" "$load1" "${latency:-NA}" >>"$RESULTS"
        note=""
        [ "$status" = ok ] || note="$status"
        causes=$(retry_causes "$log")
        [ -n "$causes" ] && note="$note retried on: $causes"
        printf '%-5s %-6s %-8s %-8s %9s %9s %6s %7s %7s %6s %7s %6s  %s\n' "$round" "$w" "$m" "$t" \
          "$(awk -v v="${tps:-NA}" 'BEGIN {if (v == "NA") print v; else printf "%.1f", v}')" \
          "${processed:-NA}" "${failed:-NA}" "${retried:-NA}" "${retries:-NA}" "${latency:-NA}" \
          "$([ "$t" = pgrange ] && echo "$TWO_PC" || echo -)" "$load1" "$note"
        if [ "$status" != ok ] || { [[ ${failed:-x} =~ ^[0-9]+$ ]] && [ "$failed" -gt 0 ]; }; then
          MISBEHAVIOUR+=("round $round $w $m $t: $status, ${failed:-NA} failed (see $log)")
          while read -r line; do MISBEHAVIOUR+=("    $line"); done < <(summarise_errors "$log")
        fi
      done
    done
  done
done
LOAD_AFTER=$(load_average)

# ---------------------------------------------------------------- summary
fmt1() { awk -v v="$1" 'BEGIN {if (v == "NA" || v == "") print "NA"; else printf "%.1f", v}'; }
ratio_of() { awk -v a="$1" -v b="$2" 'BEGIN {if (a != "NA" && b != "NA" && b > 0) printf "%.3f", a / b; else print "NA"}'; }

echo
echo "== summary (medians; per pair / per round ratios in brackets; $(durability_line))"
init_col() { awk -F'\t' -v t="$1" 'NR > 1 && $2 == t && $4 == "ok" {print $3}' "$INIT"; }
di=$(init_col direct | median)
pi=$(init_col pgrange | median)
pairs=$(awk -F'\t' 'NR > 1 && $4 == "ok" { if ($2 == "pgrange") x[$1] = $3; else y[$1] = $3 }
  END { for (r in x) if (r in y && y[r] > 0) printf "%.2f\n", x[r] / y[r] }' "$INIT" | sort -g | paste -sd' ' -)
init_2pc=$(awk -F'\t' 'NR > 1 && $2 == "pgrange" {print $5}' "$INIT" | sort -u | paste -sd/ -)
echo "pgbench -i -s $SCALE wall clock: direct $(fmt1 "$di") s, pgrange $(fmt1 "$pi") s," \
  "ratio pgrange/direct $(ratio_of "$pi" "$di") ($pairs); two-phase commits per pgbench -i through pgrange: $init_2pc"
printf '%-6s %-8s %10s %10s %7s  %-21s %7s %7s %9s %9s  %s\n' workload mode "direct TPS" "pgrange TPS" \
  ratio "(per round)" "lat d" "lat p" "failed" "retried" "pgrange CPU s/10k txn; two-phase commits"
col() {  # col WORKLOAD MODE TARGET COLUMN: one value per round (runs that printed a TPS)
  awk -F'\t' -v w="$1" -v m="$2" -v t="$3" -v c="$4" 'NR > 1 && $2 == w && $3 == m && $4 == t && $5 != "NA" {print $c}' "$RESULTS"
}
sum_of() { awk -F'\t' -v w="$1" -v m="$2" -v t="$3" -v c="$4" 'NR > 1 && $2 == w && $3 == m && $4 == t && $c ~ /^[0-9]+$/ {s += $c} END {print s + 0}' "$RESULTS"; }
for w in $WORKLOADS; do
  for m in $MODES; do
    d=$(col "$w" "$m" direct 5 | median)
    p=$(col "$w" "$m" pgrange 5 | median)
    rr=$(awk -F'\t' -v w="$w" -v m="$m" 'NR > 1 && $2 == w && $3 == m && $5 != "NA" {
        if ($4 == "pgrange") x[$1] = $5; else y[$1] = $5 }
      END { for (r in x) if (r in y && y[r] > 0) printf "%.2f\n", x[r] / y[r] }' "$RESULTS" | sort -g | paste -sd' ' -)
    cpu=$(awk -F'\t' -v w="$w" -v m="$m" 'NR > 1 && $2 == w && $3 == m && $4 == "pgrange" && $6 > 0 {print $11 / $6 * 10000}' "$RESULTS" | median)
    twopc=$(sum_of "$w" "$m" pgrange 12)
    proc=$(sum_of "$w" "$m" pgrange 6)
    printf '%-6s %-8s %10s %10s %7s  %-21s %7s %7s %9s %9s  %s\n' "$w" "$m" "$(fmt1 "$d")" "$(fmt1 "$p")" \
      "$(ratio_of "$p" "$d")" "($rr)" "$(col "$w" "$m" direct 14 | median)" "$(col "$w" "$m" pgrange 14 | median)" \
      "$(sum_of "$w" "$m" direct 7)/$(sum_of "$w" "$m" pgrange 7)" "$(sum_of "$w" "$m" direct 8)/$(sum_of "$w" "$m" pgrange 8)" \
      "$(awk -v v="$cpu" 'BEGIN {if (v == "NA") print v; else printf "%.3f", v}'); $twopc of $proc ($(awk -v a="$twopc" -v b="$proc" 'BEGIN {if (b > 0) printf "%.1f", a / b * 100; else print "NA"}') %)"
  done
done
echo "(lat d / lat p: median latency average in ms, direct / pgrange; failed and retried: direct/pgrange," \
  "summed over the rounds; two-phase commits: summed from pgrange's shutdown lines, of the transactions"
echo " pgbench processed through it; expected for TPC-B from the layout: $P_SEVERAL %)"
echo "load average: $LOAD_BEFORE before the timed runs, $LOAD_AFTER after"

# ---------------------------------------------------------------- the bank invariant
echo
echo "== bank invariant after the runs"
start_pgrange check
VIOLATIONS=()
check() {  # check WHAT OK-CONDITION(0/1)
  if [ "$2" = 1 ]; then echo "  ok    $1"; else echo "  FAIL  $1"; VIOLATIONS+=("$1"); fi
}
# Through pgrange: each sum is combined by pgrange from the shards' partial sums.
read -r pa pac < <(via_pgrange "SELECT sum(abalance), count(*) FROM pgbench_accounts" | tr '|' ' ')
read -r pb pbc < <(via_pgrange "SELECT sum(bbalance), count(*) FROM pgbench_branches" | tr '|' ' ')
read -r pt ptc < <(via_pgrange "SELECT sum(tbalance), count(*) FROM pgbench_tellers" | tr '|' ' ')
read -r ph phc < <(via_pgrange "SELECT sum(delta), count(*) FROM pgbench_history" | tr '|' ' ')
pa=${pa:-0} pb=${pb:-0} pt=${pt:-0} ph=${ph:-0}
echo "  through pgrange: sum(abalance)=$pa sum(bbalance)=$pb sum(tbalance)=$pt sum(delta)=$ph;" \
  "rows: accounts $pac, branches $pbc, tellers $ptc, history $phc"
check "through pgrange: sum(abalance) = sum(bbalance) = sum(tbalance) = sum(delta)" \
  "$([ "$pa" = "$pb" ] && [ "$pb" = "$pt" ] && [ "$pt" = "$ph" ] && echo 1 || echo 0)"
check "through pgrange: $ACCOUNTS accounts, $BRANCHES branches, $TELLERS tellers" \
  "$([ "$pac" = "$ACCOUNTS" ] && [ "$pbc" = "$BRANCHES" ] && [ "$ptc" = "$TELLERS" ] && echo 1 || echo 0)"
check "history rows ($phc) = TPC-B transactions pgbench processed through pgrange since its last pgbench -i ($PGR_TPCB_ALL, warm-up included)" \
  "$([ "$phc" = "$PGR_TPCB_ALL" ] && echo 1 || echo 0)"

# On the shards themselves: add up each shard's sums and counts.
SA=0 SB=0 ST=0 SH=0 CA=0 CB=0 CT=0 CH=0
prepared_check() {  # prepared_check WHEN
  local s n
  for s in s1 s2 s3; do
    n=$(sql_on "$s" "SELECT count(*) FROM pg_prepared_xacts")
    check "$s: pg_prepared_xacts is empty $1 ($n)" "$([ "$n" = 0 ] && echo 1 || echo 0)"
  done
}
for s in s1 s2 s3; do
  read -r a ac b bc t tc h hc < <(sql_on "$s" "SELECT
      (SELECT coalesce(sum(abalance), 0) || ' ' || count(*) FROM pgbench_accounts),
      (SELECT coalesce(sum(bbalance), 0) || ' ' || count(*) FROM pgbench_branches),
      (SELECT coalesce(sum(tbalance), 0) || ' ' || count(*) FROM pgbench_tellers),
      (SELECT coalesce(sum(delta), 0) || ' ' || count(*) FROM pgbench_history)" | tr '|' ' ')
  echo "  on $s: accounts $ac rows sum $a; branches $bc rows sum $b; tellers $tc rows sum $t; history $hc rows sum $h"
  SA=$((SA + a)) SH=$((SH + h)) CA=$((CA + ac)) CH=$((CH + hc))
  if [ "$REFERENCE" = 1 ]; then
    # Every shard holds all tellers and branches: each shard's copy must be the first's.
    copy=$(sql_on "$s" "SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) FROM pgbench_tellers t")
    copy+=$(sql_on "$s" "SELECT md5(string_agg(b::text, ',' ORDER BY b::text)) FROM pgbench_branches b")
    if [ "$s" = s1 ]; then
      FIRST_COPY=$copy SB=$b ST=$t CB=$bc CT=$tc
    else
      check "$s: the same tellers and branches as s1 (reference tables)" \
        "$([ "$copy" = "$FIRST_COPY" ] && echo 1 || echo 0)"
    fi
  else
    SB=$((SB + b)) ST=$((ST + t)) CB=$((CB + bc)) CT=$((CT + tc))
  fi
done
[ "$REFERENCE" = 1 ] && echo "  (tellers and branches: s1's copy, each shard's checked equal to it)"
echo "  on the shards, added up: sum(abalance)=$SA sum(bbalance)=$SB sum(tbalance)=$ST sum(delta)=$SH;" \
  "rows: accounts $CA, branches $CB, tellers $CT, history $CH"
check "on the shards: sum(abalance) = sum(bbalance) = sum(tbalance) = sum(delta)" \
  "$([ "$SA" = "$SB" ] && [ "$SB" = "$ST" ] && [ "$ST" = "$SH" ] && echo 1 || echo 0)"
check "on the shards: the same sums as through pgrange" \
  "$([ "$SA" = "$pa" ] && [ "$SB" = "$pb" ] && [ "$ST" = "$pt" ] && [ "$SH" = "$ph" ] && echo 1 || echo 0)"
check "on the shards: every row once ($CA accounts, $CB branches, $CT tellers, $CH history)" \
  "$([ "$CA" = "$ACCOUNTS" ] && [ "$CB" = "$BRANCHES" ] && [ "$CT" = "$TELLERS" ] && [ "$CH" = "$phc" ] && echo 1 || echo 0)"
prepared_check "(pgrange running, idle)"
read -r da db dt dh < <(sql_on direct "SELECT (SELECT sum(abalance) FROM pgbench_accounts),
    (SELECT sum(bbalance) FROM pgbench_branches), (SELECT sum(tbalance) FROM pgbench_tellers),
    (SELECT coalesce(sum(delta), 0) FROM pgbench_history)" | tr '|' ' ')
check "direct server: sum(abalance)=$da = sum(bbalance)=$db = sum(tbalance)=$dt = sum(delta)=$dh" \
  "$([ "$da" = "$db" ] && [ "$db" = "$dt" ] && [ "$dt" = "$dh" ] && echo 1 || echo 0)"

# ---------------------------------------------------------------- stop pgrange
stop_pgrange
echo "  pgrange stopped; two-phase commits while it served the checks: $TWO_PC"
prepared_check "(pgrange stopped)"
warn_lines=$(cat "$LOG_DIR"/pgrange-*.log | grep -cE '\[(warning|error|critical)\]' || true)
echo "  pgrange logs ($PGRANGE_STARTS starts): $warn_lines warning/error lines$([ "$warn_lines" -gt 0 ] && echo ', the most frequent:')"
cat "$LOG_DIR"/pgrange-*.log | grep -E '\[(warning|error|critical)\]' |
  sed -E 's/^\[[^]]*\] //; s/session [0-9]+/session N/g; s/[0-9a-f]{8,}|[0-9]{2,}/N/g' |
  sort | uniq -c | sort -rn | head -6 | sed 's/^/   /' || true

echo
if [ "${#MISBEHAVIOUR[@]}" -gt 0 ]; then
  echo "== misbehaviour (failed transactions, errors other than retried 40001/40P01, hangs)"
  printf '  %s\n' "${MISBEHAVIOUR[@]}"
else
  echo "== no pgbench run failed a transaction or ended with an error other than retried ones, none hung"
fi
echo "Raw per-run figures: $RESULTS and $INIT; pgbench outputs, server and pgrange logs: $LOG_DIR"
echo "finished $(date -u '+%Y-%m-%d %H:%M:%S UTC') after $(($(date +%s) - T_START)) s," \
  "load average $(load_average)"
if [ "${#VIOLATIONS[@]}" -gt 0 ]; then
  echo "BANK INVARIANT VIOLATED: ${#VIOLATIONS[@]} check(s) failed" >&2
  exit 1
fi
echo "bank invariant holds"
