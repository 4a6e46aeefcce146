#!/usr/bin/env bash
# Range-move benchmark (a benchmark, not a test): write and read latency through pgrange while
# ALTER RANGE … RELOCATE moves a range of ROWS rows between shards, against the same workload
# with no move, in the same run.
#
# pgrange (transaction pooling) over three PostgreSQL 15 shards (wal_level = logical). Table
# items (id int8 primary key, v int8, pad text) in two ranges, both on s1:
#   moving  [1, ROWS]                 the range that moves (to s2)
#   other   [ROWS + 1, ROWS + 100000] another range of the table on the same shard
# pgbench runs three scripts at once, CLIENTS clients, for DURATION seconds, each logging every
# transaction (-l): an UPDATE of a random row of the moving range, an UPDATE of a random row of
# the other range, and a point SELECT in the moving range. Run "still": no move. Run "move": the
# move starts MOVE_AFTER seconds in. Latencies are reported per script for the transactions that
# ended while the move ran (and, for the still run, over the same window), as p50 / p99 / max in
# milliseconds; the move's time and the cut-over (the write hold: its job's log lines) too.
#
# It starts four PostgreSQL servers (fsync=off, full_page_writes=off, synchronous_commit=off;
# the "direct" one stays unused) and one pgrange on free ports in 20000-32000, and removes them
# on exit (also on Ctrl-C).
#
# Usage: bench/move_compare.sh      (as root; about 3 minutes with the defaults)
# Settings (environment):
#   ROWS=1000000 DURATION=70 MOVE_AFTER=5 CLIENTS=6 JOBS=2 MODE=simple
#   WORKERS=2                         pgrange's worker threads
#   SKIP_BUILD=0                      1: use the pgrange binary already built
#   PGRANGE=build/proxy/pgrange       the pgrange binary (default: the build folder's)
#   LOG_DIR=/tmp/move_compare-logs    server, pgrange and pgbench logs are kept there
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ROWS=${ROWS:-1000000}
DURATION=${DURATION:-70}
MOVE_AFTER=${MOVE_AFTER:-5}
CLIENTS=${CLIENTS:-6}
JOBS=${JOBS:-2}
MODE=${MODE:-simple}
WORKERS=${WORKERS:-2}
SKIP_BUILD=${SKIP_BUILD:-0}
PGRANGE=${PGRANGE:-$REPO/build/proxy/pgrange}
LOG_DIR=${LOG_DIR:-/tmp/move_compare-logs}
require_counts ROWS DURATION MOVE_AFTER CLIENTS JOBS WORKERS
require_modes "$MODE"
require_environment pgbench psql pg_isready ss
export PGPASSWORD=bench

print_date_machine
begin_run
echo "settings: ROWS=$ROWS DURATION=$DURATION s MOVE_AFTER=$MOVE_AFTER s CLIENTS=$CLIENTS" \
  "JOBS=$JOBS MODE=$MODE WORKERS=$WORKERS; $(durability_line)"
start_four_servers 100 "wal_level = logical"
start_sharded_pgrange 16 info "$LOG_DIR/pgrange.log"

echo "loading $ROWS + 100000 rows into s1"
via_pgrange "CREATE TABLE items (id int8 PRIMARY KEY, v int8 NOT NULL, pad text NOT NULL)" \
  "ALTER TABLE items SPLIT AT VALUES ($((ROWS + 1)))" >/dev/null
sql_on s1 "INSERT INTO items SELECT g, 0, md5(g::text) FROM generate_series(1, $((ROWS + 100000))) g" \
  "ANALYZE items" >/dev/null
MOVING=$(via_pgrange "SHOW RANGE FROM TABLE items FOR ROW (1)" | cut -d'|' -f3)
echo "moving range: $MOVING ($(via_pgrange "SELECT count(*) FROM items WHERE id <= $ROWS") rows)"

cat >"$TMP/moving.sql" <<EOF
\\set id random(1, $ROWS)
UPDATE items SET v = v + 1 WHERE id = :id;
EOF
cat >"$TMP/other.sql" <<EOF
\\set id random($((ROWS + 1)), $((ROWS + 100000)))
UPDATE items SET v = v + 1 WHERE id = :id;
EOF
cat >"$TMP/read.sql" <<EOF
\\set id random(1, $ROWS)
SELECT v FROM items WHERE id = :id;
EOF

# run NAME TARGET: pgbench over the three scripts; with TARGET, RELOCATE the moving range there
# MOVE_AFTER seconds in. Leaves the per-transaction logs in $TMP/NAME.* and sets WINDOW to
# "start end" (epoch µs) of the move, or of the same seconds of the run without one.
run() {
  local name=$1 target=${2:-} t0 t1 t2
  t0=$(date +%s%6N)
  pgbench -n -M "$MODE" -c "$CLIENTS" -j "$JOBS" -T "$DURATION" -l --log-prefix="$TMP/$name" \
    -f "$TMP/moving.sql" -f "$TMP/other.sql" -f "$TMP/read.sql" \
    -h 127.0.0.1 -p "$PGRANGE_PORT" -U bench bench >"$LOG_DIR/pgbench-$name.log" 2>&1 &
  PGBENCH_PID=$!
  sleep "$MOVE_AFTER"
  t1=$(date +%s%6N)
  if [ -n "$target" ]; then
    via_pgrange "ALTER RANGE $MOVING RELOCATE TO '$target'" >/dev/null
    t2=$(date +%s%6N)
  else
    t2=$((t1 + MOVE_SECONDS * 1000000))
  fi
  wait "$PGBENCH_PID" || die "pgbench failed (see $LOG_DIR/pgbench-$name.log)"
  PGBENCH_PID=""
  if [ -n "$target" ]; then
    [ "$(date +%s%6N)" -gt "$t2" ] || die "the move outlasted pgbench: raise DURATION"
  elif [ "$t2" -gt "$(date +%s%6N)" ]; then
    t2=$(date +%s%6N)  # the still run compares what it has of the move's seconds
  fi
  WINDOW="$t1 $t2"
  echo "  $name: pgbench $(pgbench_tps "$LOG_DIR/pgbench-$name.log") TPS over $((($(date +%s%6N) - t0) / 1000000)) s"
}

# report NAME: p50 / p99 / max latency per script of the transactions that ended in WINDOW
report() {
  local name=$1 s label
  local labels=("update, moving range" "update, other range" "read, moving range")
  for s in 0 1 2; do
    label=${labels[$s]}
    cat "$TMP/$name".* | awk -v w="$WINDOW" -v s="$s" '
      BEGIN { split(w, b, " ") }
      $4 == s { end = $5 * 1000000 + $6; if (end >= b[1] && end <= b[2])
                  printf "%.3f %.1f\n", $3 / 1000, (end - $3 - b[1]) / 1e6 }' |
      sort -n | awk -v name="$name" -v label="$label" '
        { v[NR] = $1; at[NR] = $2 }
        END {
          if (NR == 0) { printf "  %-6s %-22s none\n", name, label; exit }
          printf "  %-6s %-22s %7d txns   p50 %7.2f ms   p99 %8.2f ms   max %8.2f ms (began at +%s s)\n",
            name, label, NR, v[int((NR - 1) * 0.50) + 1], v[int((NR - 1) * 0.99) + 1], v[NR], at[NR]
        }'
  done
}

echo
echo "move: range $MOVING to s2 during pgbench"
run move s2
read -r MOVE_START MOVE_END <<<"$WINDOW"
MOVE_SECONDS=$(((MOVE_END - MOVE_START + 999999) / 1000000))
echo "  the move took $(awk -v a="$MOVE_START" -v b="$MOVE_END" 'BEGIN {printf "%.2f", (b - a) / 1e6}') s"
grep -E "job [0-9]+: |moved from" "$LOG_DIR/pgrange.log" | sed 's/^/  pgrange: /'
report move
echo
echo "still: the same workload, no move, over the same seconds of the run"
run still
report still
echo
via_pgrange "SHOW JOBS" | tail -1 | sed 's/^/SHOW JOBS: /'
echo "done in $(($(date +%s) - T_START)) s"
