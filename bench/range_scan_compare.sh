#!/usr/bin/env bash
# End-to-end range-scan benchmark (a benchmark, not a test): the same pgbench workloads against
#   direct   one PostgreSQL 15 server holding every row,
#   bouncer  PgBouncer in front of that one server (transaction pooling for -M simple, session
#            pooling for -M prepared): what a proxy that only forwards costs on this machine
#            (BOUNCER=0 leaves it out),
#   pgrange  pgrange (transaction pooling) over three PostgreSQL 15 shards, the tables split
#            into 12 ranges placed round-robin on the shards with RELOCATE,
# interleaved direct / bouncer / pgrange, for -M simple and -M prepared, over ROUNDS rounds.
# Workloads:
#   between_1   SELECT * FROM items WHERE id BETWEEN a AND b   200 rows inside one range (1 shard)
#   between_2   the same, a..b across a boundary between two shards (2 shards)
#   between_3   the same, a..b across two boundaries, three ranges on three shards (3 shards)
#   between_sum between_1 with its upper bound written as a sum, BETWEEN :a AND :a + 199 (in
#               -M prepared $1 + 199): pgrange works the sum out, so still 1 shard
#   top10_all   SELECT * FROM items ORDER BY id LIMIT 10         (every range: 3 shards)
#   after_1     SELECT * FROM items WHERE id > x ORDER BY id LIMIT 10, x in the last range (1 shard)
#   after_2     the same, x in the last-but-one range (2 shards)
#   after_3     the same, x anywhere in the first 80 % of the ids (3 shards)
#   join_point  SELECT … FROM items a JOIN items b ON b.id = a.v WHERE a.id = x: a point, then the
#               row it names on (usually) another shard: pgrange's lookup join (2 reads + the join)
#   join_100    the same for a.id BETWEEN x AND x + 99 (100 rows, their 100 lookups over 3 shards)
#   colo_point  SELECT … FROM owners o JOIN visits v ON v.owner_id = o.id WHERE o.id = x: visits
#               co-located with owners (ranges follow theirs): one shard, byte for byte
#   colo_1000   the same for o.id BETWEEN x AND x + 99 (1000 rows; 1 or 2 shards, pushed down)
#   ref_join    SELECT … FROM items i JOIN kinds k ON k.id = i.v % 100 WHERE i.id BETWEEN a AND
#               a + 199, kinds a reference table (every shard has it): pushed down, merged
#   pgbench_S   pgbench -S (scale SCALE), pgbench_accounts split into 12 ranges (1 shard per txn)
# A statement pgrange refuses (SQLSTATE 0A000, e.g. ORDER BY … LIMIT or an extended-protocol
# SELECT over several shards) is probed once per workload and mode before round 1 and reported
# as "refused"; the direct figure is still measured.
#
# It starts four PostgreSQL servers (fsync=off, full_page_writes=off, synchronous_commit=off)
# and one pgrange on free ports in 20000-32000, and removes them on exit (also on Ctrl-C).
#
# Usage: bench/range_scan_compare.sh      (as root; about 3 to 4 minutes with the defaults)
# Settings (environment):
#   ROUNDS=2 DURATION=3 CLIENTS=4 JOBS=2   pgbench shape; DURATION in seconds per run
#   ROWS=300000                            rows of items (id 1..ROWS, pad = md5 text)
#   SCALE=10                               pgbench -i -s for pgbench_S
#   MODES="simple prepared"                pgbench -M protocols
#   WORKLOADS="between_1 … pgbench_S"      the workloads to run (default: all, in the order above)
#   WORKERS=1                              pgrange worker threads
#   BOUNCER=1                              measure PgBouncer in front of direct too (0: not)
#   WARMUP=2                               unmeasured seconds per target before round 1
#   SKIP_BUILD=1                           do not run scripts/build.sh --target pgrange first
#   LOG_DIR=DIR                            logs and results.tsv (default /tmp/range_scan_compare-logs.<time>)
#   PGBIN=DIR  PGRANGE=build/proxy/pgrange binaries to use
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ROUNDS=${ROUNDS:-2}
DURATION=${DURATION:-3}
CLIENTS=${CLIENTS:-4}
JOBS=${JOBS:-2}
ROWS=${ROWS:-300000}
SCALE=${SCALE:-10}
MODES=${MODES:-simple prepared}
ALL_WORKLOADS="between_1 between_2 between_3 between_sum top10_all after_1 after_2 after_3 join_point join_100 colo_point colo_1000 ref_join pgbench_S"
WORKLOADS=${WORKLOADS:-$ALL_WORKLOADS}
WORKERS=${WORKERS:-1}
BOUNCER=${BOUNCER:-1}
WARMUP=${WARMUP:-2}
SKIP_BUILD=${SKIP_BUILD:-0}
LOG_DIR=${LOG_DIR:-/tmp/range_scan_compare-logs.$(date -u +%Y%m%dT%H%M%SZ)}
PGRANGE=${PGRANGE:-$REPO/build/proxy/pgrange}

require_counts ROUNDS DURATION CLIENTS JOBS ROWS SCALE WORKERS WARMUP BOUNCER
TARGETS=(direct pgrange)
if [ "$BOUNCER" -gt 0 ]; then
  TARGETS=(direct bouncer pgrange)
  require_environment "$PGBOUNCER"
fi
if [ "$ROUNDS" -lt 1 ] || [ "$DURATION" -lt 1 ] || [ "$CLIENTS" -lt 1 ] || [ "$JOBS" -lt 1 ] ||
  [ "$WORKERS" -lt 1 ] || [ "$SCALE" -lt 1 ]; then
  die "ROUNDS, DURATION, CLIENTS, JOBS, WORKERS and SCALE must be at least 1"
fi
[ "$ROWS" -ge 20000 ] || die "ROWS must be at least 20000 (got $ROWS)"
read -r -a MODE_LIST <<<"$MODES"
read -r -a WORKLOAD_LIST <<<"$WORKLOADS"
require_modes "${MODE_LIST[@]}"
for w in "${WORKLOAD_LIST[@]}"; do
  case " $ALL_WORKLOADS " in *" $w "*) ;; *) die "unknown workload \"$w\" (known: $ALL_WORKLOADS)" ;; esac
done
require_environment pgbench psql pg_isready setpriv ss awk cc
require_libpq

# ---------------------------------------------------------------- the layout of items
# 12 ranges, range i on shard s((i mod 3) + 1); U = ROWS / 10. The narrow range [5U, 5U+100)
# lets a 200-row BETWEEN touch three shards.
U=$((ROWS / 10))
TOP=$((ROWS - U / 2))
BOUNDS=("$U" $((2 * U)) $((3 * U)) $((4 * U)) $((5 * U)) $((5 * U + 100)) $((6 * U)) $((7 * U))
  $((8 * U)) $((9 * U)) "$TOP")

# ---------------------------------------------------------------- header
echo "== pgrange range-scan benchmark: direct PostgreSQL (and PgBouncer before it) vs pgrange over 3 shards"
echo "command: ROUNDS=$ROUNDS DURATION=$DURATION CLIENTS=$CLIENTS JOBS=$JOBS ROWS=$ROWS SCALE=$SCALE" \
  "MODES=\"$MODES\" WORKERS=$WORKERS BOUNCER=$BOUNCER WARMUP=$WARMUP SKIP_BUILD=$SKIP_BUILD $0 $*"
print_date_machine
echo "versions: $("$PGBIN/postgres" --version), $(pgbench --version)"
echo "servers: fsync=off full_page_writes=off synchronous_commit=off (not durable; reads only here)"
echo "logs:    $LOG_DIR"
echo

begin_run # build, the pgrange header line, T_START, bench_setup (see lib.sh)

# ---------------------------------------------------------------- the probe
# Runs one statement once, the way pgbench -M simple (PQexec) or -M prepared (PQprepare +
# PQexecPrepared) would, and prints "ok <rows>" or "error <SQLSTATE> <message>".
build_probe <<'EOF'
#include <libpq-fe.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char** argv) {
  if (argc < 4) return 2;
  PGconn* c = PQconnectdb(argv[1]);
  if (PQstatus(c) != CONNECTION_OK) {
    printf("error connect %s\n", PQerrorMessage(c));
    return 1;
  }
  PGresult* r;
  if (strcmp(argv[2], "prepared") == 0) {
    r = PQprepare(c, "probe", argv[3], argc - 4, NULL);
    if (PQresultStatus(r) == PGRES_COMMAND_OK) {
      PQclear(r);
      r = PQexecPrepared(c, "probe", argc - 4, (const char* const*)(argv + 4), NULL, NULL, 0);
    }
  } else {
    r = PQexec(c, argv[3]);
  }
  if (PQresultStatus(r) == PGRES_TUPLES_OK || PQresultStatus(r) == PGRES_COMMAND_OK) {
    printf("ok %d\n", PQntuples(r));
  } else {
    const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    const char* msg = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
    printf("error %s %s\n", state ? state : "?????", msg ? msg : PQerrorMessage(c));
  }
  PQclear(r);
  PQfinish(c);
  return 0;
}
EOF

# ---------------------------------------------------------------- four PostgreSQL servers
start_four_servers 20 "wal_level = logical"  # prepared transactions: writes to the reference table

# pgbench data: on direct and on s1 (later imported and spread), empty twins on s2 and s3.
# The two big initialisations run side by side.
if [[ " ${WORKLOAD_LIST[*]} " == *" pgbench_S "* ]]; then
  echo "initialising pgbench data, scale $SCALE (direct and s1), empty tables on s2 and s3"
  pgbench -i -q -s "$SCALE" -h 127.0.0.1 -p "${SERVER_PORT[direct]}" -U bench bench \
    >"$LOG_DIR/pgbench-init-direct.log" 2>&1 &
  init_direct=$!
  pgbench -i -q -s "$SCALE" -h 127.0.0.1 -p "${SERVER_PORT[s1]}" -U bench bench \
    >"$LOG_DIR/pgbench-init-s1.log" 2>&1 &
  init_s1=$!
  empty_pgbench_tables s2 s3
  wait "$init_direct" || die "pgbench -i on direct failed (see $LOG_DIR/pgbench-init-direct.log)"
  wait "$init_s1" || die "pgbench -i on s1 failed (see $LOG_DIR/pgbench-init-s1.log)"
fi

echo "loading items ($ROWS rows) on direct"
ITEMS_DDL="CREATE TABLE items (id int8 PRIMARY KEY, v int4, pad text)"
items_rows() {  # items_rows LO HI: the SELECT that generates ids LO..HI
  echo "SELECT g, (g::int8 * 7919 % 100000)::int4, md5(g::text) FROM generate_series($1, $2) g"
}
sql_on direct "$ITEMS_DDL" "INSERT INTO items $(items_rows 1 "$ROWS")" "VACUUM ANALYZE items"

# Owners and their visits (10 each), visits co-located with owners; kinds, a reference table.
OWNERS=$((ROWS / 10))
OWNERS_DDL="CREATE TABLE owners (id int8 PRIMARY KEY, name text)"
VISITS_DDL="CREATE TABLE visits (owner_id int8, n int4, secs int4, PRIMARY KEY (owner_id, n))"
KINDS_DDL="CREATE TABLE kinds (id int4 PRIMARY KEY, label text)"
owners_rows() { echo "SELECT g, 'owner ' || g FROM generate_series($1, $2) g"; }
visits_rows() {
  echo "SELECT g, n, (g * 7 + n * 13) % 300 FROM generate_series($1, $2) g, generate_series(1, 10) n"
}
KINDS_ROWS="INSERT INTO kinds SELECT g, 'kind ' || g FROM generate_series(0, 99) g"
echo "loading owners ($OWNERS), visits ($((OWNERS * 10))) and kinds (100) on direct"
sql_on direct "$OWNERS_DDL" "$VISITS_DDL" "$KINDS_DDL" "INSERT INTO owners $(owners_rows 1 "$OWNERS")" \
  "INSERT INTO visits $(visits_rows 1 "$OWNERS")" "$KINDS_ROWS" "VACUUM ANALYZE owners, visits, kinds"

# ---------------------------------------------------------------- pgrange
POOL=$((CLIENTS * WORKERS > 8 ? CLIENTS * WORKERS : 8))
start_sharded_pgrange "$POOL" warn "$LOG_DIR/pgrange.log" \
  $'[[table]]\nname = "visits"\ncolocate_with = "owners"\n[[table]]\nname = "kinds"\nreference = true'
export PGPASSWORD=bench

bound_of() {  # bound_of PRETTY DEFAULT: …/1/N → N; …/<TableMin> or …/<TableMax> → DEFAULT
  case "$1" in
    */1/*) echo "${1##*/}" ;;
    *) echo "$2" ;;
  esac
}

echo "items through pgrange: CREATE, SPLIT AT ${BOUNDS[*]}, RELOCATE round-robin, rows loaded on each shard"
split_values=$(printf '(%s), ' "${BOUNDS[@]}")
via_pgrange "$ITEMS_DDL" "ALTER TABLE items SPLIT AT VALUES ${split_values%, }" >/dev/null
place_ranges items
LAYOUT="$LOG_DIR/items-ranges.txt"
: >"$LAYOUT"
while IFS='|' read -r start end id shard _; do
  lo=$(bound_of "$start" 1)
  hi=$(($(bound_of "$end" $((ROWS + 1))) - 1))
  [ "$hi" -gt "$ROWS" ] && hi=$ROWS
  echo "range $id  ids $lo..$hi  on $shard" >>"$LAYOUT"
  sql_on "$shard" "INSERT INTO items $(items_rows "$lo" "$hi")"
done < <(via_pgrange "SHOW RANGES FROM TABLE items")
for s in s1 s2 s3; do sql_on "$s" "VACUUM ANALYZE items"; done
sed 's/^/  /' "$LAYOUT"
n=$(via_pgrange "SELECT count(*) FROM items")
[ "$n" = "$ROWS" ] || die "pgrange counts $n rows of items, expected $ROWS"
via_pgrange "SHOW RANGES FROM TABLE items WITH DETAILS" >"$LOG_DIR/items-ranges-details.txt"

echo "owners and visits through pgrange: owners split into 12 ranges placed round-robin, visits co-located"
via_pgrange "$OWNERS_DDL" >/dev/null
split_into owners 12 "$OWNERS"
place_ranges owners
via_pgrange "$VISITS_DDL" "$KINDS_DDL" "$KINDS_ROWS" >/dev/null
while IFS='|' read -r start end _ shard _; do
  lo=$(bound_of "$start" 1)
  hi=$(($(bound_of "$end" $((OWNERS + 1))) - 1))
  [ "$hi" -gt "$OWNERS" ] && hi=$OWNERS
  sql_on "$shard" "INSERT INTO owners $(owners_rows "$lo" "$hi")" "INSERT INTO visits $(visits_rows "$lo" "$hi")"
done < <(via_pgrange "SHOW RANGES FROM TABLE owners")
for s in s1 s2 s3; do sql_on "$s" "VACUUM ANALYZE owners, visits, kinds"; done
via_pgrange "SHOW RANGES FROM TABLE visits" >"$LOG_DIR/visits-ranges.txt"
n=$(via_pgrange "SELECT count(*) FROM owners o JOIN visits v ON v.owner_id = o.id")
[ "$n" = $((OWNERS * 10)) ] || die "pgrange joins $n visits with their owners, expected $((OWNERS * 10))"

if [[ " ${WORKLOAD_LIST[*]} " == *" pgbench_S "* ]]; then
  accounts=$((SCALE * 100000))
  echo "pgbench tables through pgrange: IMPORT TABLE, pgbench_accounts split into 12 ranges, RELOCATE round-robin"
  t0=$(date +%s)
  for t in pgbench_accounts pgbench_branches pgbench_tellers pgbench_history; do
    via_pgrange "IMPORT TABLE $t FROM SHARD 's1'" >/dev/null
  done
  split_into pgbench_accounts 12 "$accounts"
  place_ranges pgbench_accounts
  for s in s1 s2 s3; do sql_on "$s" "VACUUM ANALYZE pgbench_accounts"; done
  via_pgrange "SHOW RANGES FROM TABLE pgbench_accounts" >"$LOG_DIR/pgbench_accounts-ranges.txt"
  n=$(via_pgrange "SELECT count(*) FROM pgbench_accounts")
  [ "$n" = "$accounts" ] || die "pgrange counts $n rows of pgbench_accounts, expected $accounts"
  echo "  12 ranges placed in $(($(date +%s) - t0)) s ($(awk -F'|' '{print $4}' \
    "$LOG_DIR/pgbench_accounts-ranges.txt" | sort | uniq -c | awk '{printf "%s: %s ranges  ", $2, $1}'))"
fi
echo "setup took $(($(date +%s) - T_START)) s"
echo

# ---------------------------------------------------------------- workloads
# Each workload: a pgbench script (none for pgbench_S, which is -S), how many shards it touches,
# and a probe: the statement with representative values, as literal SQL and as $n + parameters.
declare -A DESC SHARDS PROBE_SQL PROBE_PSQL PROBE_PARAMS
write_script() { cat >"$TMP/$1.sql"; }

# describe_workload NAME SHARDS DESCRIPTION SQL PSQL PARAMS: what the report says of a workload,
# and its probe (SQL with literal values; PSQL with $n, and the values of PARAMS).
describe_workload() {
  DESC[$1]=$3
  SHARDS[$1]=$2
  PROBE_SQL[$1]=$4
  PROBE_PSQL[$1]=$5
  PROBE_PARAMS[$1]=$6
}

# between_workload NAME SHARDS A DESCRIPTION: a BETWEEN workload whose pgbench script is on
# stdin; the probe reads ids A..A+199.
between_workload() {
  write_script "$1"
  describe_workload "$1" "$2" "$4" "SELECT * FROM items WHERE id BETWEEN $3 AND $(($3 + 199))" \
    "SELECT * FROM items WHERE id BETWEEN \$1 AND \$2" "$3 $(($3 + 199))"
}

between_workload between_1 1 $((2 * U + 1000)) "BETWEEN, 200 rows in one range" <<EOF
\set k random(0, 3)
\set a :k * $U + random(1, $((U - 200)))
\set b :a + 199
SELECT * FROM items WHERE id BETWEEN :a AND :b;
EOF

between_workload between_2 2 $((2 * U - 100)) "BETWEEN, 200 rows across a boundary" <<EOF
\set k random(1, 4)
\set a :k * $U - random(1, 199)
\set b :a + 199
SELECT * FROM items WHERE id BETWEEN :a AND :b;
EOF

between_workload between_3 3 $((5 * U - 50)) "BETWEEN, 200 rows over 3 ranges" <<EOF
\set a random($((5 * U - 99)), $((5 * U - 1)))
\set b :a + 199
SELECT * FROM items WHERE id BETWEEN :a AND :b;
EOF

write_script between_sum <<EOF
\set k random(0, 3)
\set a :k * $U + random(1, $((U - 200)))
SELECT * FROM items WHERE id BETWEEN :a AND :a + 199;
EOF
describe_workload between_sum 1 "BETWEEN a AND a + 199, one range" \
  "SELECT * FROM items WHERE id BETWEEN $((2 * U + 1000)) AND $((2 * U + 1000)) + 199" \
  "SELECT * FROM items WHERE id BETWEEN \$1 AND \$1 + 199" "$((2 * U + 1000))"

write_script top10_all <<EOF
SELECT * FROM items ORDER BY id LIMIT 10;
EOF
describe_workload top10_all 3 "ORDER BY id LIMIT 10" "SELECT * FROM items ORDER BY id LIMIT 10" \
  "SELECT * FROM items ORDER BY id LIMIT 10" ""

after_workload() {  # after_workload NAME SHARDS LO HI
  write_script "$1" <<EOF
\set x random($3, $4)
SELECT * FROM items WHERE id > :x ORDER BY id LIMIT 10;
EOF
  describe_workload "$1" "$2" "id > x ORDER BY id LIMIT 10" \
    "SELECT * FROM items WHERE id > $3 ORDER BY id LIMIT 10" \
    "SELECT * FROM items WHERE id > \$1 ORDER BY id LIMIT 10" "$3"
}
after_workload after_1 1 "$TOP" $((ROWS - 20))
after_workload after_2 2 $((9 * U)) $((TOP - 20))
after_workload after_3 3 1 $((8 * U))

# Joins of items with itself: b's row is the one a.v names (a.v < 100000 < ROWS spreads them).
JOIN_SQL="SELECT a.id, a.v, b.pad FROM items a JOIN items b ON b.id = a.v"
write_script join_point <<EOF
\set x random(1, $ROWS)
$JOIN_SQL WHERE a.id = :x;
EOF
describe_workload join_point 2 "join, a point and its lookup" "$JOIN_SQL WHERE a.id = 4242" \
  "$JOIN_SQL WHERE a.id = \$1" "4242"
write_script join_100 <<EOF
\set x random(1, $((ROWS - 100)))
\set y :x + 99
$JOIN_SQL WHERE a.id BETWEEN :x AND :y;
EOF
describe_workload join_100 3 "join, 100 rows and their lookups" \
  "$JOIN_SQL WHERE a.id BETWEEN 4242 AND 4341" "$JOIN_SQL WHERE a.id BETWEEN \$1 AND \$2" \
  "4242 4341"

COLO_SQL="SELECT o.name, v.n, v.secs FROM owners o JOIN visits v ON v.owner_id = o.id"
write_script colo_point <<EOF
\set x random(1, $OWNERS)
$COLO_SQL WHERE o.id = :x;
EOF
describe_workload colo_point 1 "co-located join, a point" "$COLO_SQL WHERE o.id = 4242" \
  "$COLO_SQL WHERE o.id = \$1" "4242"
write_script colo_1000 <<EOF
\set x random(1, $((OWNERS - 100)))
\set y :x + 99
$COLO_SQL WHERE o.id BETWEEN :x AND :y;
EOF
describe_workload colo_1000 2 "co-located join, 1000 rows" \
  "$COLO_SQL WHERE o.id BETWEEN 2450 AND 2549" "$COLO_SQL WHERE o.id BETWEEN \$1 AND \$2" \
  "2450 2549"
REF_SQL="SELECT i.id, k.label FROM items i JOIN kinds k ON k.id = i.v % 100"
write_script ref_join <<EOF
\set a random(1, $((ROWS - 200)))
\set b :a + 199
$REF_SQL WHERE i.id BETWEEN :a AND :b;
EOF
describe_workload ref_join 2 "join with a reference table, 200 rows" \
  "$REF_SQL WHERE i.id BETWEEN $((U - 100)) AND $((U + 99))" \
  "$REF_SQL WHERE i.id BETWEEN \$1 AND \$2" "$((U - 100)) $((U + 99))"

describe_workload pgbench_S 1 "pgbench -S, scale $SCALE" \
  "SELECT abalance FROM pgbench_accounts WHERE aid = 4242" \
  "SELECT abalance FROM pgbench_accounts WHERE aid = \$1" "4242"

declare -A PORT
PORT[direct]=${SERVER_PORT[direct]}
PORT[pgrange]=$PGRANGE_PORT
if [ "$BOUNCER" -gt 0 ]; then
  # Transaction pooling for -M simple; session pooling for -M prepared, whose statements
  # PgBouncer's transaction pooling would lose between server connections.
  start_pgbouncer transaction transaction "${SERVER_PORT[direct]}"
  PORT[bouncer,simple]=$PGBOUNCER_PORT
  start_pgbouncer session session "${SERVER_PORT[direct]}"
  PORT[bouncer,prepared]=$PGBOUNCER_PORT
fi
port_of() {  # port_of TARGET MODE
  if [ "$1" = bouncer ]; then echo "${PORT[bouncer,$2]}"; else echo "${PORT[$1]}"; fi
}
conninfo() {  # conninfo TARGET MODE
  echo "host=127.0.0.1 port=$(port_of "$1" "$2") dbname=bench user=bench password=bench"
}

# Probe every workload and mode through pgrange (and directly, which must answer).
declare -A STATE # STATE[workload,mode]: "" = runs, else the reason pgrange does not run it
echo "probing what pgrange answers"
for w in "${WORKLOAD_LIST[@]}"; do
  for m in "${MODE_LIST[@]}"; do
    for t in "${TARGETS[@]}"; do
      if [ "$m" = simple ]; then
        out=$("$TMP/probe" "$(conninfo "$t" "$m")" simple "${PROBE_SQL[$w]}")
      else
        # shellcheck disable=SC2086 # the parameters split on purpose
        out=$("$TMP/probe" "$(conninfo "$t" "$m")" prepared "${PROBE_PSQL[$w]}" ${PROBE_PARAMS[$w]})
      fi
      echo "$t $w $m: $out" >>"$LOG_DIR/probes.txt"
      case "$out" in
        ok*) ;;
        "error 0A000 "*)
          [ "$t" = pgrange ] || die "$t refused $w ($m): $out"
          STATE[$w,$m]="refused"
          printf '  %-10s %-9s refused by pgrange (0A000): %s\n' "$w" "$m" "${out#error 0A000 }"
          ;;
        *)
          [ "$t" = pgrange ] || die "$t failed $w ($m): $out"
          STATE[$w,$m]="error"
          printf '  %-10s %-9s FAILED through pgrange: %s\n' "$w" "$m" "${out#error }"
          ;;
      esac
    done
  done
done
echo

# run_pgbench TARGET WORKLOAD MODE SECONDS LOG: 0 when pgbench finished and reported a TPS
run_pgbench() {
  local target=$1 w=$2 mode=$3 secs=$4 log=$5 script
  if [ "$w" = pgbench_S ]; then script=(-S); else script=(-f "$TMP/$w.sql"); fi
  pgbench -n "${script[@]}" -M "$mode" -c "$CLIENTS" -j "$JOBS" -T "$secs" \
    -h 127.0.0.1 -p "$(port_of "$target" "$mode")" -U bench bench >"$log" 2>&1 &
  PGBENCH_PID=$!
  local rc=0
  wait "$PGBENCH_PID" || rc=$?
  PGBENCH_PID=""
  return $rc
}

if [ "$WARMUP" -gt 0 ]; then
  echo "warm-up: ${WARMUP}s per target (between_3 and pgbench -S, simple; not counted)"
  for t in "${TARGETS[@]}"; do
    run_pgbench "$t" between_3 simple "$WARMUP" "$LOG_DIR/warmup-$t-between_3.log" || true
    if [[ " ${WORKLOAD_LIST[*]} " == *" pgbench_S "* ]]; then
      run_pgbench "$t" pgbench_S simple "$WARMUP" "$LOG_DIR/warmup-$t-pgbench_S.log" || true
    fi
  done
fi

RESULTS="$LOG_DIR/results.tsv" # round workload mode target tps transactions pgrange_cpu_s
printf 'round\tworkload\tmode\ttarget\ttps\ttransactions\tpgrange_cpu_s\n' >"$RESULTS"
printf '%-6s %-10s %-9s %-8s %12s %12s\n' round workload mode target TPS note
for ((round = 1; round <= ROUNDS; round++)); do
  for w in "${WORKLOAD_LIST[@]}"; do
    for mode in "${MODE_LIST[@]}"; do
      for t in "${TARGETS[@]}"; do
        if [ "$t" = pgrange ] && [ -n "${STATE[$w,$mode]:-}" ]; then
          printf '%-6s %-10s %-9s %-8s %12s %12s\n' "$round" "$w" "$mode" "$t" - "${STATE[$w,$mode]}"
          continue
        fi
        log="$LOG_DIR/r$round-$w-$mode-$t.log"
        before=$(proc_ticks "$PGRANGE_PID")
        ok=1
        run_pgbench "$t" "$w" "$mode" "$DURATION" "$log" || ok=0
        after=$(proc_ticks "$PGRANGE_PID")
        tps=$(pgbench_tps "$log")
        txns=$(pgbench_field "$log" "number of transactions actually processed")
        if [ "$ok" = 0 ] || [ -z "$tps" ] || [ -z "$txns" ] || [ "$txns" -le 0 ]; then
          reason=error
          grep -q "not supported" "$log" && reason=refused
          [ "$t" = pgrange ] && STATE[$w,$mode]=$reason
          printf '%-6s %-10s %-9s %-8s %12s %12s  (%s)\n' "$round" "$w" "$mode" "$t" - "$reason" "$log"
          continue
        fi
        cpu=NA
        if [ "$t" = pgrange ]; then
          cpu=$(ticks_to_seconds $((after - before)))
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$w" "$mode" "$t" "$tps" "$txns" "$cpu" >>"$RESULTS"
        printf '%-6s %-10s %-9s %-8s %12.1f\n' "$round" "$w" "$mode" "$t" "$tps"
      done
    done
  done
done

# ---------------------------------------------------------------- summary
column_of() {  # column_of WORKLOAD MODE TARGET tps|cpu10k: one value per round
  awk -F'\t' -v w="$1" -v m="$2" -v t="$3" -v what="$4" 'NR > 1 && $2 == w && $3 == m && $4 == t {
    if (what == "tps") print $5; else print $7 / $6 * 10000 }' "$RESULTS"
}
paired_ratios() {  # paired_ratios WORKLOAD MODE: per-round TPS ratio pgrange/direct
  awk -F'\t' -v w="$1" -v m="$2" 'NR > 1 && $2 == w && $3 == m {
      if ($4 == "pgrange") x[$1] = $5; if ($4 == "direct") y[$1] = $5 }
    END { for (r in x) if (r in y && y[r] > 0) printf "%.2f\n", x[r] / y[r] }' "$RESULTS" | sort -g |
    paste -sd' ' -
}

echo
echo "== medians over $ROUNDS rounds (pgbench -c $CLIENTS -j $JOBS -T $DURATION; items $ROWS rows in 12 ranges;" \
  "pgrange workers=$WORKERS, transaction pooling)"
printf '%-11s %-36s %6s %-9s %11s %11s %11s %7s  %-13s %9s %8s\n' workload statement shards mode \
  "direct TPS" "bouncer TPS" "pgrange TPS" ratio "per round" "CPU/10k" "/bouncer"
for w in "${WORKLOAD_LIST[@]}"; do
  for mode in "${MODE_LIST[@]}"; do
    d=$(column_of "$w" "$mode" direct tps | median)
    b=NA
    [ "$BOUNCER" -gt 0 ] && b=$(column_of "$w" "$mode" bouncer tps | median)
    if [ -n "${STATE[$w,$mode]:-}" ]; then
      p=${STATE[$w,$mode]}
      ratio=-
      pairs=
      cpu=-
    else
      p=$(column_of "$w" "$mode" pgrange tps | median)
      ratio=$(awk -v a="$p" -v b="$d" 'BEGIN {if (b > 0 && a != "NA") printf "%.2f", a / b; else print "NA"}')
      pairs="[$(paired_ratios "$w" "$mode")]"
      cpu=$(column_of "$w" "$mode" pgrange cpu10k | median)
      cpu=$(awk -v v="$cpu" 'BEGIN {printf "%.3f", v}')
      p=$(awk -v v="$p" 'BEGIN {printf "%.1f", v}')
    fi
    vs_bouncer=$(awk -v a="$p" -v b="$b" 'BEGIN {
      if (b != "NA" && b > 0 && a + 0 > 0) printf "%.2f", a / b; else print "-" }')
    d=$(awk -v v="$d" 'BEGIN {if (v == "NA") print v; else printf "%.1f", v}')
    b=$(awk -v v="$b" 'BEGIN {if (v == "NA" || v == "") print "-"; else printf "%.1f", v}')
    printf '%-11s %-36s %6s %-9s %11s %11s %11s %7s  %-13s %9s %8s\n' "$w" "${DESC[$w]}" \
      "${SHARDS[$w]}" "$mode" "$d" "$b" "$p" "$ratio" "$pairs" "$cpu" "$vs_bouncer"
  done
done
echo
echo "ratio: pgrange median TPS / direct median TPS (per-round paired ratios in brackets);" \
  "/bouncer: pgrange median TPS / PgBouncer's in front of direct (transaction pooling for" \
  "simple, session pooling for prepared)."
echo "CPU/10k: pgrange's utime+stime (all threads, /proc/PID/stat) per 10,000 transactions."
echo "refused: pgrange answers the statement with SQLSTATE 0A000 (not supported yet); see $LOG_DIR/probes.txt"
echo "Raw per-run figures: $RESULTS"
echo "finished $(date -u '+%Y-%m-%d %H:%M:%S UTC') after $(($(date +%s) - T_START)) s," \
  "load average $(load_average)"
