#!/usr/bin/env bash
# Skewed-workload benchmark (a benchmark, not a test): all traffic on one range, and what the
# range manager makes of it. TPS through pgrange in the first 10 s (one range on one shard)
# against the TPS once the manager has split the range by load and spread its parts over the
# three shards, in the same run; and, side by side, the same workload with the manager off.
#
# pgrange (transaction pooling) over three PostgreSQL 15 shards (wal_level = logical). Table
# items (id int8 primary key, v int8, pad text) of ROWS rows in one range on s1. pgbench runs
# CLIENTS clients for DURATION seconds, each transaction one point UPDATE or one point SELECT
# (half each) of a random row, and prints its TPS every second (-P 1). Run "manager": [ranges]
# split_qps = SPLIT_QPS, check_interval_ms = 1000, rebalance on. Run "still": the manager off.
# Run "spread": the manager off, the table split by hand into as many ranges as the manager
# made and scattered before pgbench starts (what spreading costs or gains on this machine,
# without the moves).
# Reported: the TPS of seconds 1-10 and of the last LAST seconds of each run, the ranges the
# table ended with and where, the manager's jobs.
#
# Starts four PostgreSQL servers (fsync=off, full_page_writes=off, synchronous_commit=off; the
# "direct" one unused) and pgrange on free ports in 20000-32000, removed on exit.
#
# Usage: bench/skew_compare.sh      (as root; about 3 minutes with the defaults)
# Settings (environment):
#   ROWS=300000 DURATION=60 LAST=20 CLIENTS=8 JOBS=2 MODE=simple SPLIT_QPS=1000
#   WORKERS=2                         pgrange's worker threads
#   SKIP_BUILD=0                      1: use the pgrange binary already built
#   PGRANGE=build/proxy/pgrange       the pgrange binary (default: the build folder's)
#   LOG_DIR=/tmp/skew_compare-logs    server, pgrange and pgbench logs are kept there
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ROWS=${ROWS:-300000}
DURATION=${DURATION:-60}
LAST=${LAST:-20}
CLIENTS=${CLIENTS:-8}
JOBS=${JOBS:-2}
MODE=${MODE:-simple}
SPLIT_QPS=${SPLIT_QPS:-1000}
WORKERS=${WORKERS:-2}
SKIP_BUILD=${SKIP_BUILD:-0}
PGRANGE=${PGRANGE:-$REPO/build/proxy/pgrange}
LOG_DIR=${LOG_DIR:-/tmp/skew_compare-logs}
require_counts ROWS DURATION LAST CLIENTS JOBS WORKERS SPLIT_QPS
require_modes "$MODE"
require_environment pgbench psql pg_isready ss
[ "$DURATION" -gt $((LAST + 10)) ] || die "DURATION must exceed LAST + 10"
export PGPASSWORD=bench

print_date_machine
begin_run
echo "settings: ROWS=$ROWS DURATION=$DURATION s LAST=$LAST s CLIENTS=$CLIENTS JOBS=$JOBS" \
  "MODE=$MODE SPLIT_QPS=$SPLIT_QPS WORKERS=$WORKERS; $(durability_line)"
start_four_servers 100 "wal_level = logical"

cat >"$TMP/workload.sql" <<EOF
\\set id random(1, $ROWS)
\\set write random(0, 1)
\\if :write
UPDATE items SET v = v + 1 WHERE id = :id;
\\else
SELECT v FROM items WHERE id = :id;
\\endif
EOF

# tps_of LOG FROM TO: the mean of pgbench's per-second TPS (-P 1) for seconds FROM..TO
tps_of() {
  awk -v a="$2" -v b="$3" '/^progress: / { t = $2 + 0; if (t >= a && t <= b) { s += $4; n++ } }
    END { if (n) printf "%.0f", s / n; else printf "-" }' "$1"
}

# run NAME RANGES [N]: a fresh table items in one range on s1 (with N, split into N ranges
# scattered over the shards before pgbench starts) and pgbench over it through a pgrange whose
# [ranges] body is RANGES.
run() {
  local name=$1 pieces=${3:-}
  RANGES_TOML=$2 start_sharded_pgrange 16 info "$LOG_DIR/pgrange-$name.log"
  via_pgrange "DROP TABLE IF EXISTS items" \
    "CREATE TABLE items (id int8 PRIMARY KEY, v int8 NOT NULL, pad text NOT NULL)" >/dev/null
  local shard
  shard=$(via_pgrange "SHOW RANGE FROM TABLE items FOR ROW (1)" | cut -d'|' -f4)
  sql_on "$shard" "INSERT INTO items SELECT g, 0, md5(g::text) FROM generate_series(1, $ROWS) g" \
    "ANALYZE items" >/dev/null
  if [ -n "$pieces" ]; then
    split_into items "$pieces" "$ROWS"
    via_pgrange "ALTER TABLE items SCATTER" >/dev/null
  fi
  pgbench -n -M "$MODE" -c "$CLIENTS" -j "$JOBS" -T "$DURATION" -P 1 -f "$TMP/workload.sql" \
    -h 127.0.0.1 -p "$PGRANGE_PORT" -U bench bench >"$LOG_DIR/pgbench-$name.log" 2>&1 ||
    die "pgbench failed (see $LOG_DIR/pgbench-$name.log)"
  echo "  $name: TPS seconds 1-10 $(tps_of "$LOG_DIR/pgbench-$name.log" 1 10)," \
    "last $LAST s $(tps_of "$LOG_DIR/pgbench-$name.log" $((DURATION - LAST + 1)) "$DURATION")," \
    "whole run $(pgbench_tps "$LOG_DIR/pgbench-$name.log")" \
    "(failed: $(pgbench_field "$LOG_DIR/pgbench-$name.log" "number of failed transactions"))"
  [ "$name" != manager ] || MANAGER_RANGES=$(via_pgrange "SHOW RANGES FROM TABLE items" | wc -l)
  echo "  $name: items in $(via_pgrange "SHOW RANGES FROM TABLE items" | wc -l) ranges on" \
    "$(via_pgrange "SHOW RANGES FROM TABLE items" | cut -d'|' -f4 | sort | uniq -c |
      awk '{printf "%s%s: %s", (NR > 1 ? ", " : ""), $2, $1}') (first on $shard)"
  # The jobs of this run (the metadata store keeps the earlier runs').
  echo "  $name: jobs: $(via_pgrange "SHOW JOBS" | awk -F'|' -v n="$JOBS_BEFORE" 'NR > n' |
    cut -d'|' -f2,4 | sort | uniq -c | awk '{printf "%s%s", (NR > 1 ? ", " : ""), $0}')"
  JOBS_BEFORE=$(via_pgrange "SHOW JOBS" | wc -l)
  stop_pid "$PGRANGE_PID" INT
  PGRANGE_PID=""
}

JOBS_BEFORE=0
echo
echo "manager: split_qps = $SPLIT_QPS, rebalance on"
run manager "split_qps = $SPLIT_QPS
check_interval_ms = 1000
merge_delay_s = 3600"
echo
echo "still: the manager off"
run still "auto_split = false
rebalance = false"
echo
echo "spread: the manager off, items split in as many ranges as the manager made, scattered first"
run spread "auto_split = false
rebalance = false" "$MANAGER_RANGES"
echo
echo "done in $(($(date +%s) - T_START)) s"
