#!/usr/bin/env bash
# End-to-end reporting benchmark (a benchmark, not a test): a mix of reporting queries — a window
# over a key range, a join grouped with string_agg(DISTINCT …), a CTE of per-customer totals joined
# and grouped, the top customers by spend — against
#   direct   one PostgreSQL 15 server holding every row,
#   pgrange  pgrange (transaction pooling) over three PostgreSQL 15 shards, each table split into
#            12 ranges placed round-robin on the shards with RELOCATE,
# each query ROUNDS times, interleaved: in every round each query runs on direct, then through
# pgrange. Tables:
#   customers (id int8 PRIMARY KEY, region text NOT NULL, name text)
#       ids 1..CUSTOMERS, region one of 12 names by id % 12, name 'customer <id>'
#   orders (id int8 PRIMARY KEY, customer_id int8 NOT NULL, amount numeric(10,2) NOT NULL,
#           status text NOT NULL, created date NOT NULL)
#       ids 1..ORDERS, customer_id = 1 + id * 7919 % CUSTOMERS, amount = (id * 7907 % 100000) / 100,
#       status one of 4 by id % 4, created = date '2024-01-01' + id % 365
# made on direct with INSERT … SELECT generate_series and VACUUM ANALYZE; through pgrange created
# by CREATE TABLE through it, split and placed while empty (no rows move), then filled by COPY …
# FROM STDIN through it (the direct server's COPY … TO STDOUT piped in); counts and sums checked
# equal, VACUUM ANALYZE on each shard; then the script waits (up to 30 s) until pgrange's plans show
# both tables' analysed sizes (it reads them from the shards every 5 s, and orders the tables a
# gather reads by them). Queries (each with a total ORDER BY):
#   window_range      SELECT id, amount, sum(amount) OVER (ORDER BY id ROWS BETWEEN 9 PRECEDING AND
#                     CURRENT ROW), rank() OVER (PARTITION BY status ORDER BY amount DESC, id)
#                     FROM orders WHERE id BETWEEN LO AND HI ORDER BY id
#                     (LO, HI = 40 % and 42 % of ORDERS: 400000 and 420000 by default, keys on
#                     both sides of the boundary between ranges 5 and 6)
#   group_string_agg  orders of 2024-03-01 .. 03-07 joined to customers, GROUP BY region: count,
#                     sum(amount), string_agg(DISTINCT status, ',' ORDER BY status)
#   cte_join          WITH spend AS (per customer_id: sum(amount), count(*) of orders) joined to
#                     customers, GROUP BY region: count, round(avg(total), 2), max(n)
#   top_customers     customers joined to the 20 customer_ids of the largest sum(amount)
#                     (a subquery with ORDER BY total DESC, customer_id LIMIT 20)
# (the exact texts are SQL[…] below). The output of psql -At goes to a file and md5sum: pgrange's
# md5 must be direct's in the same round (else the script dies, the diff kept). A query pgrange
# refuses (0A000) or fails (e.g. 53200 past query_memory, a timeout, pgrange exiting: then it is
# restarted) is reported as "fails: SQLSTATE message" and not run through pgrange again.
# One pgrange, started for the load, runs the whole benchmark (its peak RSS is not the point here),
# warmed by one SELECT through it before round 1. Figures per query: median wall ms per target
# (date +%s%N around psql, connection included); the ratio pgrange/direct; pgrange's CPU
# (utime+stime, all threads, /proc/PID/stat) per run, median. After the rounds, EXPLAIN ANALYZE of
# each query through pgrange (EXPLAIN for one it failed) and on direct, kept in the log folder;
# the lines of pgrange's plan that say how it ran the query (merged from the shards' answers,
# gathered: the tables' rows read and the statement run on one shard, broadcast…) are printed.
#
# It starts four PostgreSQL servers (fsync=off, full_page_writes=off, synchronous_commit=off)
# and pgrange on free ports in 20000-32000, and removes them on exit (also on Ctrl-C).
#
# Usage: bench/reporting_compare.sh       (as root; the defaults not yet timed)
#        SKIP_BUILD=1 CUSTOMERS=20000 ORDERS=200000 ROUNDS=1 bench/reporting_compare.sh
#                                         (a quick check)
# Settings (environment):
#   CUSTOMERS=100000 ORDERS=1000000       rows of customers (at least 12) and orders (at least 1200)
#   ROUNDS=3                              timed runs of each query per target
#   QUERY_TIMEOUT=600                     seconds one psql may run before it counts as failed
#   WORKERS=1                             pgrange worker threads
#   SKIP_BUILD=1                          do not run scripts/build.sh --target pgrange first
#   LOG_DIR=DIR                           logs, outputs, EXPLAIN ANALYZEs and results.tsv
#                                         (default /tmp/reporting_compare-logs.<time>)
#   PGBIN=DIR  PGRANGE=build/proxy/pgrange binaries to use
set -euo pipefail
. "$(dirname "$0")/lib.sh"
STOP_TENTHS=150 # up to 15 s for pgrange and the servers to stop

CUSTOMERS=${CUSTOMERS:-100000}
ORDERS=${ORDERS:-1000000}
ROUNDS=${ROUNDS:-3}
QUERY_TIMEOUT=${QUERY_TIMEOUT:-600}
WORKERS=${WORKERS:-1}
SKIP_BUILD=${SKIP_BUILD:-0}
LOG_DIR=${LOG_DIR:-/tmp/reporting_compare-logs.$(date -u +%Y%m%dT%H%M%SZ)}
PGRANGE=${PGRANGE:-$REPO/build/proxy/pgrange}
RANGES=12

require_counts CUSTOMERS ORDERS ROUNDS QUERY_TIMEOUT WORKERS
if [ "$ROUNDS" -lt 1 ] || [ "$WORKERS" -lt 1 ] || [ "$QUERY_TIMEOUT" -lt 1 ]; then
  die "ROUNDS, WORKERS and QUERY_TIMEOUT must be at least 1"
fi
[ "$CUSTOMERS" -ge "$RANGES" ] || die "CUSTOMERS must be at least $RANGES (got $CUSTOMERS)"
[ "$ORDERS" -ge 1200 ] || die "ORDERS must be at least 1200 (got $ORDERS)"
[ $((CUSTOMERS % 7919)) -ne 0 ] || die "CUSTOMERS must not be a multiple of 7919 (orders would miss customers)"
require_environment psql pg_isready setpriv ss awk timeout md5sum diff

# ---------------------------------------------------------------- the queries
QUERIES="window_range group_string_agg cte_join top_customers"
WINDOW_LO=$((ORDERS * 40 / 100))
WINDOW_HI=$((ORDERS * 42 / 100))
declare -A SQL
SQL[window_range]="SELECT id, amount, sum(amount) OVER (ORDER BY id ROWS BETWEEN 9 PRECEDING AND CURRENT ROW), rank() OVER (PARTITION BY status ORDER BY amount DESC, id) FROM orders WHERE id BETWEEN $WINDOW_LO AND $WINDOW_HI ORDER BY id"
SQL[group_string_agg]="SELECT c.region, count(*), sum(o.amount), string_agg(DISTINCT o.status, ',' ORDER BY o.status) FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.created BETWEEN date '2024-03-01' AND date '2024-03-07' GROUP BY c.region ORDER BY c.region"
SQL[cte_join]="WITH spend AS (SELECT customer_id, sum(amount) AS total, count(*) AS n FROM orders GROUP BY customer_id) SELECT c.region, count(*), round(avg(s.total), 2), max(s.n) FROM spend s JOIN customers c ON c.id = s.customer_id GROUP BY c.region ORDER BY c.region"
SQL[top_customers]="SELECT c.id, c.name, t.total FROM customers c JOIN (SELECT customer_id, sum(amount) AS total FROM orders GROUP BY customer_id ORDER BY total DESC, customer_id LIMIT 20) t ON t.customer_id = c.id ORDER BY t.total DESC, c.id"

# ---------------------------------------------------------------- header
echo "== pgrange reporting benchmark: window, string_agg, CTE and top-N queries, direct PostgreSQL vs pgrange over 3 shards"
echo "command: CUSTOMERS=$CUSTOMERS ORDERS=$ORDERS ROUNDS=$ROUNDS QUERY_TIMEOUT=$QUERY_TIMEOUT WORKERS=$WORKERS" \
  "SKIP_BUILD=$SKIP_BUILD $0 $*"
print_date_machine
echo "versions: $("$PGBIN/postgres" --version), $(psql --version)"
echo "servers: $(durability_line); shared_buffers 256MB (direct) / 128MB (shards); work_mem default"
echo "pgrange: query_memory $(memory_label ""), workers=$WORKERS, transaction pooling, one pgrange for the run"
echo "logs:    $LOG_DIR"
echo

begin_run # build, the pgrange header line, T_START, bench_setup, $TMP/pgrange (see lib.sh)

# ---------------------------------------------------------------- servers and data on direct
start_four_servers 20 "wal_level = logical" # prepared transactions on the shards: pgrange's moves may use them

CUSTOMERS_DDL="CREATE TABLE customers (id int8 PRIMARY KEY, region text NOT NULL, name text)"
ORDERS_DDL="CREATE TABLE orders (id int8 PRIMARY KEY, customer_id int8 NOT NULL, amount numeric(10,2) NOT NULL, status text NOT NULL, created date NOT NULL)"
REGIONS="ARRAY['north', 'south', 'east', 'west', 'central', 'coast', 'mountain', 'plains', 'islands', 'valley', 'delta', 'highlands']"
STATUSES="ARRAY['new', 'paid', 'shipped', 'returned']"
echo "loading customers ($CUSTOMERS rows) and orders ($ORDERS rows) on direct"
t0=$(date +%s)
sql_on direct "$CUSTOMERS_DDL" "$ORDERS_DDL" \
  "INSERT INTO customers SELECT g, ($REGIONS)[1 + g % 12], 'customer ' || g FROM generate_series(1::int8, $CUSTOMERS) g" \
  "INSERT INTO orders SELECT g, 1 + g * 7919 % $CUSTOMERS, (g * 7907 % 100000) / 100.0, ($STATUSES)[1 + g % 4],
     date '2024-01-01' + (g % 365)::int4 FROM generate_series(1::int8, $ORDERS) g" \
  "VACUUM ANALYZE customers, orders"
echo "  $(($(date +%s) - t0)) s"

# ---------------------------------------------------------------- pgrange
start_pgrange run
export PGPASSWORD=bench

echo "customers and orders through pgrange: CREATE TABLE, SPLIT into $RANGES ranges, RELOCATE round-robin (empty), COPY … FROM STDIN"
via_pgrange "$CUSTOMERS_DDL" "$ORDERS_DDL" >/dev/null
t0=$(date +%s)
split_into customers "$RANGES" "$CUSTOMERS"
place_ranges customers
split_into orders "$RANGES" "$ORDERS"
place_ranges orders
echo "  split and placed in $(($(date +%s) - t0)) s"
for t in customers orders; do
  copy_into_pgrange "$t"
  via_pgrange "SHOW RANGES FROM TABLE $t" >"$LOG_DIR/$t-ranges.txt"
done
for s in s1 s2 s3; do
  sql_on "$s" "VACUUM ANALYZE customers, orders"
  echo "  on $s: $(sql_on "$s" "SELECT count(*) FROM customers") rows of customers," \
    "$(sql_on "$s" "SELECT count(*) FROM orders") rows of orders"
done
for check in "customers:SELECT count(*), sum(id), count(DISTINCT region) FROM customers:$CUSTOMERS" \
  "orders:SELECT count(*), sum(customer_id), sum(amount), min(created), max(created) FROM orders:$ORDERS"; do
  IFS=: read -r t check_sql rows <<<"$check"
  d=$(sql_on direct "$check_sql")
  p=$(via_pgrange "$check_sql")
  [ "${d%%|*}" = "$rows" ] || die "direct counts ${d%%|*} rows of $t, expected $rows"
  [ "$p" = "$d" ] || die "$t differs: $p through pgrange, $d direct ($check_sql)"
  echo "  $t equal on both: $d ($check_sql)"
done
echo "  ANALYZE done on direct and the shards"
# pgrange orders the tables a gather reads by their sizes, which it reads from the shards' pg_class
# every table_sizes_interval_ms (5 s by default): until it has read them after the ANALYZE, a plan
# may differ from the settled one. Wait (up to 30 s) for both tables' analysed sizes in a plan.
for ((i = 0; i < 60; i++)); do
  sized=$(via_pgrange "EXPLAIN SELECT count(*) FROM orders o JOIN customers c ON c.id = o.customer_id" |
    grep -cE 'estimated size: [0-9]+ rows' || true)
  [ "$sized" -lt 2 ] || break
  sleep 0.5
done
if [ "$sized" -ge 2 ]; then
  echo "  pgrange's plans have the tables' analysed sizes (after waiting $((i / 2)) s)"
else
  echo "  pgrange's plans still lack the tables' analysed sizes after 30 s; going on"
fi
echo "setup took $(($(date +%s) - T_START)) s"
echo

# ---------------------------------------------------------------- the rounds
# Caches: every table read once on each server (not through pgrange), and pgrange warmed by one
# SELECT over the three shards.
for s in direct s1 s2 s3; do sql_on "$s" "SELECT count(*) FROM customers" "SELECT count(*) FROM orders" >/dev/null; done
via_pgrange "SELECT count(*) FROM orders" >/dev/null

# timed TARGET SQL BASE: the statement once through psql -At; its output in BASE.out, its errors
# (SQLSTATEs shown) in BASE.err. Sets MS (psql's whole run); returns psql's exit status (124: timeout).
timed() {
  local port=$PGRANGE_PORT start status=0
  [ "$1" = pgrange ] || port=${SERVER_PORT[$1]}
  start=$(date +%s%N)
  timeout -k 10 "$QUERY_TIMEOUT" psql -X -q -At -v ON_ERROR_STOP=1 -v VERBOSITY=verbose \
    -h 127.0.0.1 -p "$port" -U bench -d bench -c "$2" >"$3.out" 2>"$3.err" || status=$?
  MS=$((($(date +%s%N) - start) / 1000000))
  return "$status"
}
# why_failed BASE STATUS: "SQLSTATE message" of a failed run (or what else stopped it)
why_failed() {
  [ "$2" != 124 ] || { echo "timeout after $QUERY_TIMEOUT s"; return; }
  awk '/^(ERROR|FATAL): +[0-9A-Z]+: / {sub(/^[A-Z]+: +/, ""); sub(/: /, " "); print; found = 1; exit}
    END {if (!found) print "psql exit status " s}' s="$2" "$1.err"
}
row() { printf '%-6s %-17s %-8s %10s %8s  %s\n' "$@"; }

RESULTS="$LOG_DIR/results.tsv"
printf 'query\tround\ttarget\tms\trows\tmd5\tpgrange_cpu_s\tstatus\n' >"$RESULTS"
declare -A FAILED DIRECT_MD5
echo "== $ROUNDS rounds: each query on direct, then through pgrange"
row round query target ms "CPU s" note
for ((r = 1; r <= ROUNDS; r++)); do
  for q in $QUERIES; do
    for t in direct pgrange; do
      if [ "$t" = pgrange ] && [ -n "${FAILED[$q]:-}" ]; then
        row "$r" "$q" "$t" - - "(failed before; not run again)"
        continue
      fi
      base="$LOG_DIR/r$r-$q-$t"
      ticks=0
      [ "$t" = direct ] || ticks=$(proc_ticks "$PGRANGE_PID")
      status=0
      timed "$t" "${SQL[$q]}" "$base" || status=$?
      cpu=NA
      if [ "$t" = direct ]; then
        [ "$status" = 0 ] || die "direct PostgreSQL failed $q: $(why_failed "$base" "$status") (see $base.err)"
      elif ! kill -0 "$PGRANGE_PID" 2>/dev/null; then
        FAILED[$q]="pgrange exited (see $PGRANGE_LOG)"
        wait "$PGRANGE_PID" 2>/dev/null || true
        PGRANGE_PID=""
        start_pgrange "restarted-after-$q"
        via_pgrange "SELECT count(*) FROM orders" >/dev/null
      else
        cpu=$(ticks_to_seconds $(($(proc_ticks "$PGRANGE_PID") - ticks)))
        [ "$status" = 0 ] || FAILED[$q]="$(why_failed "$base" "$status") (after $MS ms)"
      fi
      if [ "$t" = pgrange ] && [ -n "${FAILED[$q]:-}" ]; then
        printf '%s\t%s\t%s\tNA\tNA\tNA\t%s\tfails: %s\n' "$q" "$r" "$t" "$cpu" "${FAILED[$q]}" >>"$RESULTS"
        row "$r" "$q" "$t" - "$cpu" "fails: ${FAILED[$q]}"
        continue
      fi
      md5=$(md5sum <"$base.out" | cut -d' ' -f1)
      lines=$(wc -l <"$base.out")
      if [ "$t" = direct ]; then
        [ -z "${DIRECT_MD5[$q]:-}" ] || [ "${DIRECT_MD5[$q]}" = "$md5" ] ||
          die "direct PostgreSQL answered $q differently in round $r (see $base.out)"
        DIRECT_MD5[$q]=$md5
        ref="$base.out"
        note="md5 $md5"
      elif [ "$md5" = "${DIRECT_MD5[$q]}" ]; then
        note="md5 = direct's"
      else
        diff "$ref" "$base.out" >"$base.diff" || true
        die "pgrange's answer to $q differs from direct's in round $r (md5 $md5, direct ${DIRECT_MD5[$q]}):" \
          "$(head -c 300 "$base.diff") (see $base.diff)"
      fi
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\tok\n' "$q" "$r" "$t" "$MS" "$lines" "$md5" "$cpu" >>"$RESULTS"
      row "$r" "$q" "$t" "$MS" "$cpu" "$lines rows, $note"
    done
  done
done
echo

# ---------------------------------------------------------------- how pgrange ran them
# how_it_ran EXPLAIN_FILE: "merged", "gathered on SHARD (N rows read)", "broadcast join over SHARDS
# (N rows read)" or "refused", from pgrange's plan and its "actual:" lines
how_it_ran() {
  awk '/pgrange plan: refused/ {r = 1}
    /pgrange plan: tables read/ {g = 1}
    /^ *merge: / {m = 1}
    /^ *actual: Materialize .*: [0-9]+ rows from/ {match($0, /: [0-9]+ rows from/); n += substr($0, RSTART + 2, RLENGTH)}
    /^ *actual: Gather: / {on = $0; sub(/, [0-9.]+ ms$/, "", on); sub(/.* rows from /, "", on)}
    END {
      if (r) print "refused"
      else if (g && on ~ /, /) printf "broadcast join over %s (%d rows read)\n", on, n
      else if (g && on != "") printf "gathered on %s (%d rows read)\n", on, n
      else if (g) print "gathered"
      else if (m) print "merged"
      else print "?"
    }' "$1"
}
# EXPLAIN ANALYZE through pgrange, untimed: pgrange's own plan first (then the shards' plans);
# EXPLAIN alone for a query it failed (its refusal, or the plan it could not carry out).
declare -A HOW
echo "== how pgrange ran each query (EXPLAIN ANALYZE through it; whole plans in $LOG_DIR/explain-*)"
for q in $QUERIES; do
  x="$LOG_DIR/explain-analyze-$q-pgrange.txt"
  explain="EXPLAIN ANALYZE"
  if [ -n "${FAILED[$q]:-}" ]; then
    x="$LOG_DIR/explain-$q-pgrange.txt"
    explain=EXPLAIN
  fi
  timeout -k 10 "$QUERY_TIMEOUT" psql -X -q -At -v VERBOSITY=verbose -h 127.0.0.1 -p "$PGRANGE_PORT" \
    -U bench -d bench -c "$explain ${SQL[$q]}" >"$x" 2>&1 || true
  sql_on direct "EXPLAIN ANALYZE ${SQL[$q]}" >"$LOG_DIR/explain-analyze-$q-direct.txt" 2>&1 || true
  echo "$q:"
  grep -m 8 -E '^pgrange plan|^ *(hint|merge|actual): |^(ERROR|psql)' "$x" |
    cut -c 1-200 | sed 's/^/    /' || echo "    (no pgrange plan line: see $x)"
  HOW[$q]=$(how_it_ran "$x")
done
echo

# ---------------------------------------------------------------- summary
runs_of() {  # runs_of QUERY TARGET COLUMN: the column of the query's successful runs on TARGET
  awk -F'\t' -v q="$1" -v t="$2" -v c="$3" '$1 == q && $3 == t && $8 == "ok" {print $c}' "$RESULTS"
}
echo "== medians over $ROUNDS rounds (customers $CUSTOMERS rows, orders $ORDERS rows, each in $RANGES ranges" \
  "round-robin over 3 shards; pgrange workers=$WORKERS)"
echo
echo "| query | direct ms (median) | pgrange ms (median) | ratio pgrange/direct | pgrange CPU s (median) | note |"
echo "|---|---:|---:|---:|---:|---|"
for q in $QUERIES; do
  d=$(runs_of "$q" direct 4 | median)
  if [ -n "${FAILED[$q]:-}" ]; then
    p=-
    ratio=-
    cpu=-
    note="fails: ${FAILED[$q]}"
  else
    p=$(runs_of "$q" pgrange 4 | median)
    ratio=$(awk -v a="$p" -v b="$d" 'BEGIN {printf (b > 0 ? "%.2f×" : "NA"), a / (b > 0 ? b : 1)}')
    cpu=$(awk -v v="$(runs_of "$q" pgrange 7 | median)" 'BEGIN {printf "%.2f", v}')
    note="${HOW[$q]}; $(runs_of "$q" pgrange 5 | head -n 1) rows, md5 = direct's"
  fi
  echo "| $q | $d | $p | $ratio | $cpu | $note |"
done
echo
echo "ms: wall time of psql's whole run (connection included), its output written to a file;"
echo "  pgrange's md5 of the psql -At output equalled direct's in every round it answered."
echo "ratio: pgrange median ms / direct median ms (1.00× = as fast as one PostgreSQL; 2.00× = twice as slow)."
echo "CPU s: pgrange's utime+stime (all threads) per run, median; direct's CPU is not measured."
echo "note: how pgrange ran the query, from its EXPLAIN ANALYZE: merged (the shards' answers combined),"
echo "  gathered on a shard (the tables' rows read into pgrange, the statement run there with them),"
echo "  broadcast join (the statement run on each shard of the last table with the other tables' rows)."
echo "EXPLAIN ANALYZE through pgrange and on direct: $LOG_DIR/explain-*.txt"
echo "Raw per-run figures: $RESULTS"
echo "finished $(date -u '+%Y-%m-%d %H:%M:%S UTC') after $(($(date +%s) - T_START)) s," \
  "load average $(load_average)"
