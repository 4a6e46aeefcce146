#!/usr/bin/env bash
# End-to-end TPC-B benchmark (a benchmark, not a test): pgbench's default read-write script
#   BEGIN; UPDATE pgbench_accounts …; SELECT abalance …; UPDATE pgbench_tellers …;
#   UPDATE pgbench_branches …; INSERT INTO pgbench_history …; END;
# against
#   direct   one PostgreSQL 15 server initialised with pgbench -i -s SCALE,
#   pgrange  pgrange (transaction pooling) over three PostgreSQL 15 shards holding the same tables,
#            imported (IMPORT TABLE) and spread: pgbench_accounts in 12 ranges, pgbench_tellers in
#            6, pgbench_branches in 3, placed round-robin on the shards with RELOCATE;
#            pgbench_history has no key, so it stays unsharded on s1.
# Most transactions then touch two or three shards, which pgrange coordinates and commits with
# two-phase commit (PREPARE TRANSACTION on each shard, a decision row in its metadata store,
# COMMIT PREPARED). Runs pgbench -M simple --max-tries=MAX_TRIES interleaved direct / pgrange for
# ROUNDS rounds, then one -M prepared run each, direct and pgrange, after a libpq probe of one
# such block in the extended protocol (a pgrange that refuses transaction blocks over several
# shards there, with 0A000, is reported as "refused", not as an error). Also times pgbench -i
# on the direct server (pgbench -i through pgrange over several shards is not supported yet: its
# DDL runs inside a transaction block). Afterwards it checks the bank invariant through pgrange and
# on the shards themselves — sum(abalance) = sum(bbalance) = sum(tbalance) = sum(delta), no row
# lost or duplicated, nothing left in pg_prepared_xacts — stops pgrange with SIGTERM and reads
# the number of two-phase commits from its last log line. Exits 1 if the invariant is violated.
#
# It starts four PostgreSQL servers (fsync=off, full_page_writes=off, synchronous_commit=off:
# not durable, so WAL flushes — including the ones PREPARE TRANSACTION and COMMIT PREPARED
# force — cost nothing here; the shards have max_prepared_transactions=100) and one pgrange on
# free ports in 20000-32000, and removes them on exit (also on Ctrl-C).
#
# Usage: bench/tpcb_compare.sh      (as root; about 2 minutes with the defaults)
# Settings (environment):
#   ROUNDS=3 DURATION=10 CLIENTS=8 JOBS=2  pgbench shape; DURATION in seconds per run
#   SCALE=10                               pgbench -i -s (at least 3)
#   MAX_TRIES=10                           pgbench --max-tries (retries of 40001 / 40P01)
#   PROBE_DURATION=10                      seconds of the -M prepared runs, direct and pgrange (0: skip)
#   WORKERS=1                              pgrange worker threads
#   WARMUP=2                               unmeasured seconds per target before round 1
#   SKIP_BUILD=1                           do not run scripts/build.sh --target pgrange first
#   LOG_DIR=DIR                            logs and results.tsv (default /tmp/tpcb_compare-logs.<time>)
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
MAX_TRIES=${MAX_TRIES:-10}
PROBE_DURATION=${PROBE_DURATION:-10}
WORKERS=${WORKERS:-1}
WARMUP=${WARMUP:-2}
SKIP_BUILD=${SKIP_BUILD:-0}
LOG_DIR=${LOG_DIR:-/tmp/tpcb_compare-logs.$(date -u +%Y%m%dT%H%M%SZ)}
PGRANGE=${PGRANGE:-$REPO/build/proxy/pgrange}

require_counts ROUNDS DURATION CLIENTS JOBS SCALE MAX_TRIES PROBE_DURATION WORKERS WARMUP
if [ "$ROUNDS" -lt 1 ] || [ "$DURATION" -lt 1 ] || [ "$CLIENTS" -lt 1 ] || [ "$JOBS" -lt 1 ] ||
  [ "$WORKERS" -lt 1 ] || [ "$MAX_TRIES" -lt 1 ]; then
  die "ROUNDS, DURATION, CLIENTS, JOBS, WORKERS and MAX_TRIES must be at least 1"
fi
[ "$SCALE" -ge 3 ] || die "SCALE must be at least 3, so that the branches spread over 3 shards"
require_environment pgbench psql pg_isready setpriv ss awk cc timeout
require_libpq

ACCOUNTS=$((SCALE * 100000))
TELLERS=$((SCALE * 10))
BRANCHES=$SCALE
# The TPC-B run; --failures-detailed and --verbose-errors only add to what pgbench prints.
PGBENCH_OPTS=(-n -c "$CLIENTS" -j "$JOBS" --max-tries="$MAX_TRIES" --failures-detailed --verbose-errors)

# ---------------------------------------------------------------- header
echo "== pgrange TPC-B benchmark: direct PostgreSQL vs pgrange over 3 shards (two-phase commit)"
echo "command: ROUNDS=$ROUNDS DURATION=$DURATION CLIENTS=$CLIENTS JOBS=$JOBS SCALE=$SCALE" \
  "MAX_TRIES=$MAX_TRIES PROBE_DURATION=$PROBE_DURATION WORKERS=$WORKERS WARMUP=$WARMUP" \
  "SKIP_BUILD=$SKIP_BUILD $0 $*"
echo "pgbench: pgbench ${PGBENCH_OPTS[*]} -T $DURATION -M simple   (TPC-B, the default script)"
print_date_machine
echo "versions: $("$PGBIN/postgres" --version), $(pgbench --version)"
echo "servers: fsync=off full_page_writes=off synchronous_commit=off — NOT durable: WAL flushes"
echo "         (also those of PREPARE TRANSACTION / COMMIT PREPARED) cost nothing here;"
echo "         shards: max_prepared_transactions=100"
echo "logs:    $LOG_DIR"
echo

build_pgrange
print_pgrange_build
T_START=$(date +%s)
bench_setup # the postgres user, cleanup on exit, LOG_DIR, TMP, cd /tmp (see lib.sh)

# ---------------------------------------------------------------- the probe
# Runs a transaction block the way pgbench -M prepared does: BEGIN, then each statement with
# PQprepare + PQexecPrepared (one parameter each), then ROLLBACK. Prints one line per statement:
# "ok" or "error <SQLSTATE> <message>".
build_probe <<'EOF'
#include <libpq-fe.h>
#include <stdio.h>
int main(int argc, char** argv) {
  if (argc < 4 || argc % 2 != 0) return 2;
  PGconn* c = PQconnectdb(argv[1]);
  if (PQstatus(c) != CONNECTION_OK) {
    printf("error connect %s\n", PQerrorMessage(c));
    return 1;
  }
  PQclear(PQexec(c, "BEGIN"));
  for (int i = 2; i + 1 < argc; i += 2) {
    char name[16];
    snprintf(name, sizeof name, "p%d", i);
    PGresult* r = PQprepare(c, name, argv[i], 1, NULL);
    if (PQresultStatus(r) == PGRES_COMMAND_OK) {
      PQclear(r);
      const char* values[1] = {argv[i + 1]};
      r = PQexecPrepared(c, name, 1, values, NULL, NULL, 0);
    }
    if (PQresultStatus(r) == PGRES_TUPLES_OK || PQresultStatus(r) == PGRES_COMMAND_OK) {
      printf("ok %s\n", argv[i]);
    } else {
      const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
      const char* msg = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
      printf("error %s %s (%s)\n", state ? state : "?????", msg ? msg : PQerrorMessage(c), argv[i]);
      PQclear(r);
      break;
    }
    PQclear(r);
  }
  PQclear(PQexec(c, "ROLLBACK"));
  PQfinish(c);
  return 0;
}
EOF

# ---------------------------------------------------------------- four PostgreSQL servers
start_four_servers 100

# pgbench -i on direct, alone and timed; then the same on s1 (later imported and spread), and
# empty tables with their keys on s2 and s3.
echo "pgbench -i -s $SCALE on direct (timed)"
t0=$(date +%s.%N)
pgbench -i -s "$SCALE" -h 127.0.0.1 -p "${SERVER_PORT[direct]}" -U bench bench \
  >"$LOG_DIR/pgbench-init-direct.log" 2>&1 || die "pgbench -i on direct failed (see $LOG_DIR)"
t1=$(date +%s.%N)
INIT_SECONDS=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}')
INIT_DETAIL=$(grep -m1 '^done in' "$LOG_DIR/pgbench-init-direct.log" || true)
INIT_DETAIL=${INIT_DETAIL%.}
echo "  ${INIT_SECONDS} s wall clock; pgbench: ${INIT_DETAIL:-?}"
echo "  (pgbench -i through pgrange over several shards is not supported yet: its DDL runs"
echo "   inside a transaction block; not tried)"
echo "pgbench -i -s $SCALE on s1, empty tables on s2 and s3"
pgbench -i -q -s "$SCALE" -h 127.0.0.1 -p "${SERVER_PORT[s1]}" -U bench bench \
  >"$LOG_DIR/pgbench-init-s1.log" 2>&1 || die "pgbench -i on s1 failed (see $LOG_DIR)"
empty_pgbench_tables s2 s3

# ---------------------------------------------------------------- pgrange
# A coordinated transaction holds a connection on every shard it touched.
POOL=$((2 * CLIENTS * WORKERS > 20 ? 2 * CLIENTS * WORKERS : 20))
PGRANGE_LOG="$LOG_DIR/pgrange.log"
start_sharded_pgrange "$POOL" info "$PGRANGE_LOG"
export PGPASSWORD=bench

echo "pgbench tables through pgrange: IMPORT TABLE; accounts in 12 ranges, tellers in 6, branches"
echo "in 3, RELOCATE round-robin (rows move); pgbench_history has no key: unsharded, on s1"
t0=$(date +%s)
for t in pgbench_accounts pgbench_branches pgbench_tellers pgbench_history; do
  via_pgrange "IMPORT TABLE $t FROM SHARD 's1'" >>"$LOG_DIR/import.txt" 2>&1 ||
    die "IMPORT TABLE $t failed (see $LOG_DIR/import.txt)"
done
split_into pgbench_accounts 12 "$ACCOUNTS"
split_into pgbench_tellers 6 "$TELLERS"
split_into pgbench_branches 3 "$BRANCHES"
for t in pgbench_accounts pgbench_tellers pgbench_branches; do place_ranges "$t"; done
for s in s1 s2 s3; do
  sql_on "$s" "VACUUM ANALYZE pgbench_accounts" "VACUUM ANALYZE pgbench_tellers" \
    "VACUUM ANALYZE pgbench_branches" "VACUUM ANALYZE pgbench_history"
done
LAYOUT="$LOG_DIR/ranges.txt"
: >"$LAYOUT"
for t in pgbench_accounts pgbench_tellers pgbench_branches pgbench_history; do
  via_pgrange "SHOW RANGES FROM TABLE $t" | sed "s/^/$t|/" >>"$LAYOUT"
done
for t in pgbench_accounts:$ACCOUNTS pgbench_tellers:$TELLERS pgbench_branches:$BRANCHES; do
  n=$(via_pgrange "SELECT count(*) FROM ${t%%:*}")
  [ "$n" = "${t##*:}" ] || die "pgrange counts $n rows of ${t%%:*}, expected ${t##*:}"
done
HISTORY_SHARD=$(awk -F'|' '$1 == "pgbench_history" {print $5; exit}' "$LAYOUT")

# The share of each table's keys on each shard, from the layout: bound …/1/N, or the table's ends.
# share[table,shard] = keys of the table on the shard / all its keys.
layout_shares() {
  awk -F'|' -v A="$ACCOUNTS" -v T="$TELLERS" -v B="$BRANCHES" '
    function bound(p, dflt) { if (p ~ /\/1\/[0-9]+$/) { sub(/.*\//, "", p); return p + 0 } return dflt }
    $1 != "pgbench_history" {
      max = ($1 == "pgbench_accounts") ? A : ($1 == "pgbench_tellers") ? T : B
      lo = bound($2, 1); hi = bound($3, max + 1) - 1; if (hi > max) hi = max
      if (hi >= lo) n[$1 "," $5] += hi - lo + 1
      total[$1] = max }
    END { for (k in n) { split(k, p, ","); printf "%s %s %.6f\n", p[1], p[2], n[k] / total[p[1]] } }' "$LAYOUT"
}
SHARES=$(layout_shares)
share() { awk -v t="$1" -v s="$2" '$1 == t && $2 == s {v = $3} END {print v + 0}' <<<"$SHARES"; }
echo "  placed in $(($(date +%s) - t0)) s; ranges per shard:"
for t in pgbench_accounts pgbench_tellers pgbench_branches; do
  printf '    %-17s %s\n' "$t" "$(awk -F'|' -v t="$t" '$1 == t {print $5}' "$LAYOUT" | sort | uniq -c |
    awk '{printf "%s: %s  ", $2, $1}')"
done
echo "    pgbench_history   unsharded, on $HISTORY_SHARD"
# A TPC-B transaction stays on one shard only if its account, teller and branch are all on the
# shard of pgbench_history (its INSERT goes there).
P_ONE=$(awk -v a="$(share pgbench_accounts "$HISTORY_SHARD")" -v t="$(share pgbench_tellers "$HISTORY_SHARD")" \
  -v b="$(share pgbench_branches "$HISTORY_SHARD")" 'BEGIN {printf "%.4f", a * t * b}')
P_SEVERAL=$(awk -v p="$P_ONE" 'BEGIN {printf "%.1f", (1 - p) * 100}')
echo "  expected share of TPC-B transactions over several shards (uniform aid/tid/bid): $P_SEVERAL %"
echo "setup took $(($(date +%s) - T_START)) s"
echo

declare -A PORT
PORT[direct]=${SERVER_PORT[direct]}
PORT[pgrange]=$PGRANGE_PORT

# run_pgbench TARGET MODE SECONDS LOG: pgbench's exit status; 124 when it overran SECONDS + 60
# (a hang).
run_pgbench() {
  local target=$1 mode=$2 secs=$3 log=$4
  timeout -s INT -k 10 $((secs + 60)) pgbench "${PGBENCH_OPTS[@]}" -M "$mode" -T "$secs" \
    -h 127.0.0.1 -p "${PORT[$target]}" -U bench bench >"$log" 2>&1 &
  PGBENCH_PID=$!
  local rc=0
  wait "$PGBENCH_PID" || rc=$?
  PGBENCH_PID=""
  return $rc
}

# Transactions processed through pgrange in every run (warm-up and probe included), to compare
# with the history rows and the two-phase commits afterwards.
PGR_TXNS_ALL=0
add_pgrange_txns() {  # add_pgrange_txns LOG
  local n
  n=$(pgbench_field "$1" "number of transactions actually processed")
  [[ $n =~ ^[0-9]+$ ]] && PGR_TXNS_ALL=$((PGR_TXNS_ALL + n))
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
  echo "warm-up: ${WARMUP}s per target (simple; not counted in the table)"
  for t in direct pgrange; do
    run_pgbench "$t" simple "$WARMUP" "$LOG_DIR/warmup-$t.log" || true
  done
  add_pgrange_txns "$LOG_DIR/warmup-pgrange.log"
fi

RESULTS="$LOG_DIR/results.tsv" # round target tps processed failed retried retries aborted pgrange_cpu_s
printf 'round\ttarget\ttps\tprocessed\tfailed\tretried\tretries\tstatus\tpgrange_cpu_s\n' >"$RESULTS"
printf '%-6s %-8s %10s %10s %8s %9s %9s  %s\n' round target TPS processed failed retried retries note
MISBEHAVIOUR=()
PGR_TXNS=0
for ((round = 1; round <= ROUNDS; round++)); do
  for t in direct pgrange; do
    log="$LOG_DIR/r$round-$t.log"
    before=$(proc_ticks "$PGRANGE_PID")
    rc=0
    run_pgbench "$t" simple "$DURATION" "$log" || rc=$?
    after=$(proc_ticks "$PGRANGE_PID")
    tps=$(pgbench_tps "$log")
    processed=$(pgbench_field "$log" "number of transactions actually processed")
    failed=$(pgbench_field "$log" "number of failed transactions")
    retried=$(pgbench_field "$log" "number of transactions retried")
    retries=$(pgbench_field "$log" "total number of retries")
    status=ok
    [ "$rc" = 0 ] || status="rc=$rc"
    [ "$rc" = 124 ] && status=hang
    grep -q 'aborted in command' "$log" && status="$status,clients-aborted"
    [ "$t" = pgrange ] && add_pgrange_txns "$log"
    [ "$t" = pgrange ] && [[ ${processed:-} =~ ^[0-9]+$ ]] && PGR_TXNS=$((PGR_TXNS + processed))
    cpu=NA
    [ "$t" = pgrange ] && cpu=$(ticks_to_seconds $((after - before)))
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$t" "${tps:-NA}" "${processed:-NA}" \
      "${failed:-NA}" "${retried:-NA}" "${retries:-NA}" "$status" "$cpu" >>"$RESULTS"
    note=""
    [ "$status" = ok ] || note="$status"
    causes=$(retry_causes "$log")
    [ -n "$causes" ] && note="$note retried on: $causes"
    printf '%-6s %-8s %10s %10s %8s %9s %9s  %s\n' "$round" "$t" "$(awk -v v="${tps:-NA}" \
      'BEGIN {if (v == "NA") print v; else printf "%.1f", v}')" "${processed:-NA}" "${failed:-NA}" \
      "${retried:-NA}" "${retries:-NA}" "$note"
    if [ "$status" != ok ]; then
      MISBEHAVIOUR+=("round $round $t: $status (see $log)")
      while read -r line; do MISBEHAVIOUR+=("    $line"); done < <(summarise_errors "$log")
    fi
  done
done

# ---------------------------------------------------------------- the -M prepared probe
# First one transaction block by hand (libpq, extended protocol) whose second statement needs
# another shard, for the SQLSTATE; then pgbench -M prepared for PROBE_DURATION seconds, directly
# and through pgrange. "refused" when pgrange answers 0A000.
PREPARED_NOTE="not run (PROBE_DURATION=0)"
if [ "$PROBE_DURATION" -gt 0 ]; then
  echo
  echo "-M prepared probe"
  shard_a=$(awk -F'|' '$1 == "pgbench_accounts" {print $5; exit}' "$LAYOUT")
  tid=$(awk -F'|' -v s="$shard_a" '
    $1 == "pgbench_tellers" && $5 != s { p = $2; if (p ~ /\/1\/[0-9]+$/) { sub(/.*\//, "", p); print p } else print 1; exit }' "$LAYOUT")
  # shellcheck disable=SC2016 # $1 is a statement parameter
  probe_out=$("$TMP/probe" "host=127.0.0.1 port=$PGRANGE_PORT dbname=bench user=bench password=bench" \
    'UPDATE pgbench_accounts SET abalance = abalance + 0 WHERE aid = $1' 1 \
    'UPDATE pgbench_tellers SET tbalance = tbalance + 0 WHERE tid = $1' "$tid" 2>&1 || true)
  echo "$probe_out" >"$LOG_DIR/probe-prepared.txt"
  echo "  libpq through pgrange: BEGIN; UPDATE account 1 (on $shard_a); UPDATE teller $tid (another shard); ROLLBACK:"
  while read -r line; do echo "    $line"; done <<<"$probe_out"
  declare -A PTPS
  for t in direct pgrange; do
    log="$LOG_DIR/prepared-$t.log"
    rc=0
    before=$(proc_ticks "$PGRANGE_PID")
    run_pgbench "$t" prepared "$PROBE_DURATION" "$log" || rc=$?
    after=$(proc_ticks "$PGRANGE_PID")
    [ "$t" = pgrange ] && add_pgrange_txns "$log"
    tps=$(pgbench_tps "$log")
    processed=$(pgbench_field "$log" "number of transactions actually processed")
    failed=$(pgbench_field "$log" "number of failed transactions")
    retried=$(pgbench_field "$log" "number of transactions retried")
    aborted=$(grep -c 'aborted in command' "$log" || true)
    [ -n "$tps" ] && tps=$(awk -v v="$tps" 'BEGIN {printf "%.1f", v}')
    PTPS[$t]=${tps:-NA}
    note="${tps:-NA} TPS, ${processed:-NA} processed, ${failed:-NA} failed, ${retried:-NA} retried"
    if [ "$t" = pgrange ] && [[ ${processed:-} =~ ^[0-9]+$ ]] && [ "$processed" -gt 0 ]; then
      note="$note, pgrange CPU $(awk -v t=$((after - before)) -v hz="$CLK_TCK" -v n="$processed" \
        'BEGIN {printf "%.3f", t / hz / n * 10000}') s/10k txn"
    fi
    if [ "$t" = pgrange ] && { grep -q '0A000' <<<"$probe_out" || grep -q 'not supported' "$log"; }; then
      msg=$(grep -m1 -oE 'ERROR: +[^"]*not supported[^"]*' "$log" || grep -m1 -oE 'error 0A000 .*' <<<"$probe_out" || true)
      note="refused (0A000: ${msg#ERROR:  }); $aborted of $CLIENTS clients aborted, ${processed:-0} transactions (those on one shard) processed before"
      PTPS[$t]=refused
    elif [ "$rc" != 0 ]; then
      note="error: pgbench rc=$rc, $aborted clients aborted; $note"
      [ "$rc" = 124 ] && note="hang: $note"
      [ "$t" = pgrange ] && MISBEHAVIOUR+=("-M prepared, pgrange: $note (see $log)")
      [ "$t" = pgrange ] && while read -r line; do MISBEHAVIOUR+=("    $line"); done < <(summarise_errors "$log")
    fi
    causes=$(retry_causes "$log")
    [ -n "$causes" ] && note="$note; retried on: $causes"
    printf '  pgbench -M prepared -T %s, %-8s %s\n' "$PROBE_DURATION" "$t:" "$note"
    [ "$t" = pgrange ] && PREPARED_NOTE=$note
  done
  if [[ ${PTPS[pgrange]} =~ ^[0-9.]+$ ]] && [[ ${PTPS[direct]} =~ ^[0-9.]+$ ]]; then
    PREPARED_NOTE="$PREPARED_NOTE; direct ${PTPS[direct]} TPS, ratio $(awk -v a="${PTPS[pgrange]}" -v b="${PTPS[direct]}" 'BEGIN {printf "%.3f", a / b}') (one run each)"
  fi
fi

# pgrange's own CPU while no client is connected, for scale (should be ~0).
before=$(proc_ticks "$PGRANGE_PID")
sleep 3
IDLE_CPU=$(ticks_to_seconds $(($(proc_ticks "$PGRANGE_PID") - before)))
# CPU seconds of each pgrange thread since it started (thread ids in start order: the acceptor,
# the workers, then the control plane's threads).
THREAD_CPU=$(for task in /proc/"$PGRANGE_PID"/task/*; do
  printf '%s:%s ' "${task##*/}" "$(awk -v t="$(proc_ticks "$PGRANGE_PID/task/${task##*/}")" -v hz="$CLK_TCK" \
    'BEGIN {printf "%.1fs", t / hz}')"
done)

# ---------------------------------------------------------------- summary
column_of() {  # column_of TARGET COLUMN: one value per round (runs that printed a TPS)
  awk -F'\t' -v t="$1" -v c="$2" 'NR > 1 && $2 == t && $3 != "NA" {print $c}' "$RESULTS"
}
d=$(column_of direct 3 | median)
p=$(column_of pgrange 3 | median)
ratio=$(awk -v a="$p" -v b="$d" 'BEGIN {if (b > 0 && a != "NA") printf "%.3f", a / b; else print "NA"}')
pairs=$(awk -F'\t' 'NR > 1 && $3 != "NA" { if ($2 == "pgrange") x[$1] = $3; if ($2 == "direct") y[$1] = $3 }
  END { for (r in x) if (r in y && y[r] > 0) printf "%.3f\n", x[r] / y[r] }' "$RESULTS" | sort -g | paste -sd' ' -)
cpu=$(awk -F'\t' 'NR > 1 && $2 == "pgrange" && $4 > 0 {print $9 / $4 * 10000}' "$RESULTS" | median)
sum_col() { awk -F'\t' -v t="$1" -v c="$2" 'NR > 1 && $2 == t && $c ~ /^[0-9]+$/ {s += $c} END {print s + 0}' "$RESULTS"; }

echo
echo "== TPC-B, medians over $ROUNDS rounds (pgbench -c $CLIENTS -j $JOBS -T $DURATION -M simple" \
  "--max-tries=$MAX_TRIES; scale $SCALE; pgrange workers=$WORKERS, transaction pooling)"
printf '%-8s %10s %10s %8s %9s %9s\n' target "median TPS" processed failed retried retries
for t in direct pgrange; do
  printf '%-8s %10s %10s %8s %9s %9s\n' "$t" "$(awk -v v="$(column_of "$t" 3 | median)" \
    'BEGIN {if (v == "NA") print v; else printf "%.1f", v}')" "$(sum_col "$t" 4)" "$(sum_col "$t" 5)" \
    "$(sum_col "$t" 6)" "$(sum_col "$t" 7)"
done
echo "ratio pgrange/direct: $ratio  (per round: $pairs)"
echo "pgrange CPU: $(awk -v v="$cpu" 'BEGIN {if (v == "NA") print v; else printf "%.3f", v}') s per 10,000 transactions" \
  "(utime+stime, all threads; median of the rounds); ${IDLE_CPU} s over 3 s idle"
echo "pgrange CPU per thread since start (tid:seconds): $THREAD_CPU"
echo "-M prepared: $PREPARED_NOTE"
echo "pgbench -i -s $SCALE on direct: $INIT_SECONDS s wall clock (pgbench: ${INIT_DETAIL:-?})"
echo "pgbench -i through pgrange over several shards: not supported yet (DDL inside a transaction block)"

# ---------------------------------------------------------------- the bank invariant
echo
echo "== bank invariant after the pgrange runs"
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
check "history rows ($phc) = transactions pgbench processed through pgrange ($PGR_TXNS_ALL, warm-up and probe included)" \
  "$([ "$phc" = "$PGR_TXNS_ALL" ] && echo 1 || echo 0)"

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
  SA=$((SA + a)) SB=$((SB + b)) ST=$((ST + t)) SH=$((SH + h))
  CA=$((CA + ac)) CB=$((CB + bc)) CT=$((CT + tc)) CH=$((CH + hc))
done
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
echo
echo "== stopping pgrange (SIGTERM)"
kill -s TERM "$PGRANGE_PID"
stopped=0
for ((i = 0; i < 300; i++)); do
  if ! kill -0 "$PGRANGE_PID" 2>/dev/null; then stopped=1; break; fi
  sleep 0.1
done
if [ "$stopped" = 1 ]; then
  wait "$PGRANGE_PID" 2>/dev/null || true
else
  MISBEHAVIOUR+=("pgrange did not stop within 30 s of SIGTERM")
  stop_pid "$PGRANGE_PID" KILL
fi
PGRANGE_PID=""
last=$(tail -n 1 "$PGRANGE_LOG")
echo "  last log line: $last"
TWO_PC=$(sed -nE 's/.*pgrange stopped \(([0-9]+) pins, ([0-9]+) two-phase commits.*/\2/p' <<<"$last")
PINS=$(sed -nE 's/.*pgrange stopped \(([0-9]+) pins.*/\1/p' <<<"$last")
if [ -n "$TWO_PC" ]; then
  echo "  two-phase commits during the run: $TWO_PC, of $PGR_TXNS_ALL transactions pgbench processed" \
    "through pgrange ($(awk -v a="$TWO_PC" -v b="$PGR_TXNS_ALL" 'BEGIN {if (b > 0) printf "%.1f", a / b * 100; else print "NA"}') %;" \
    "expected about $P_SEVERAL % from the layout); $PGR_TXNS in the measured rounds; pins: $PINS"
else
  MISBEHAVIOUR+=("pgrange's last log line is not the \"pgrange stopped (…)\" line")
fi
prepared_check "(pgrange stopped)"
warn_lines=$(grep -cE '\[(warning|error|critical)\]' "$PGRANGE_LOG" || true)
echo "  pgrange log: $warn_lines warning/error lines$([ "$warn_lines" -gt 0 ] && echo ', the most frequent:')"
grep -E '\[(warning|error|critical)\]' "$PGRANGE_LOG" | sed -E 's/^\[[^]]*\] //; s/session [0-9]+/session N/g; s/[0-9a-f]{8,}|[0-9]{2,}/N/g' |
  sort | uniq -c | sort -rn | head -6 | sed 's/^/   /' || true

echo
if [ "${#MISBEHAVIOUR[@]}" -gt 0 ]; then
  echo "== pgrange misbehaviour (errors other than retried 40001/40P01, hangs)"
  printf '  %s\n' "${MISBEHAVIOUR[@]}"
else
  echo "== no pgbench run through pgrange ended with an error other than retried ones, none hung"
fi
echo "Raw per-run figures: $RESULTS; pgbench outputs, server and pgrange logs: $LOG_DIR"
echo "finished $(date -u '+%Y-%m-%d %H:%M:%S UTC') after $(($(date +%s) - T_START)) s," \
  "load average $(load_average)"
if [ "${#VIOLATIONS[@]}" -gt 0 ]; then
  echo "BANK INVARIANT VIOLATED: ${#VIOLATIONS[@]} check(s) failed" >&2
  exit 1
fi
echo "bank invariant holds"
