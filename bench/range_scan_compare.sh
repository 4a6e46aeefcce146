#!/usr/bin/env bash
# End-to-end range-scan benchmark (a benchmark, not a test): the same pgbench workloads against
#   direct   one PostgreSQL 15 server holding every row,
#   pgrange  pgrange (transaction pooling) over three PostgreSQL 15 shards, the tables split
#            into 12 ranges placed round-robin on the shards with RELOCATE,
# interleaved direct / pgrange, for -M simple and -M prepared, over ROUNDS rounds. Workloads:
#   between_1   SELECT * FROM items WHERE id BETWEEN a AND b   200 rows inside one range (1 shard)
#   between_2   the same, a..b across a boundary between two shards (2 shards)
#   between_3   the same, a..b across two boundaries, three ranges on three shards (3 shards)
#   top10_all   SELECT * FROM items ORDER BY id LIMIT 10         (every range: 3 shards)
#   after_1     SELECT * FROM items WHERE id > x ORDER BY id LIMIT 10, x in the last range (1 shard)
#   after_2     the same, x in the last-but-one range (2 shards)
#   after_3     the same, x anywhere in the first 80 % of the ids (3 shards)
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
#   WARMUP=2                               unmeasured seconds per target before round 1
#   SKIP_BUILD=1                           do not run scripts/build.sh --target pgrange first
#   LOG_DIR=DIR                            logs and results.tsv (default /tmp/range_scan_compare-logs.<time>)
#   PGBIN=DIR  PGRANGE=build/proxy/pgrange binaries to use
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)

ROUNDS=${ROUNDS:-2}
DURATION=${DURATION:-3}
CLIENTS=${CLIENTS:-4}
JOBS=${JOBS:-2}
ROWS=${ROWS:-300000}
SCALE=${SCALE:-10}
MODES=${MODES:-simple prepared}
ALL_WORKLOADS="between_1 between_2 between_3 top10_all after_1 after_2 after_3 pgbench_S"
WORKLOADS=${WORKLOADS:-$ALL_WORKLOADS}
WORKERS=${WORKERS:-1}
WARMUP=${WARMUP:-2}
SKIP_BUILD=${SKIP_BUILD:-0}
LOG_DIR=${LOG_DIR:-/tmp/range_scan_compare-logs.$(date -u +%Y%m%dT%H%M%SZ)}
PGRANGE=${PGRANGE:-$REPO/build/proxy/pgrange}
if [ -z "${PGBIN:-}" ]; then
  if command -v pg_config >/dev/null 2>&1; then
    PGBIN=$(pg_config --bindir)
  else
    PGBIN=$(dirname "$(command -v postgres)")
  fi
fi

die() {
  echo "range_scan_compare: $*" >&2
  exit 1
}

for v in ROUNDS DURATION CLIENTS JOBS ROWS SCALE WORKERS WARMUP; do
  [[ ${!v} =~ ^[0-9]+$ ]] || die "$v must be a non-negative integer (got \"${!v}\")"
done
if [ "$ROUNDS" -lt 1 ] || [ "$DURATION" -lt 1 ] || [ "$CLIENTS" -lt 1 ] || [ "$JOBS" -lt 1 ] ||
  [ "$WORKERS" -lt 1 ] || [ "$SCALE" -lt 1 ]; then
  die "ROUNDS, DURATION, CLIENTS, JOBS, WORKERS and SCALE must be at least 1"
fi
[ "$ROWS" -ge 20000 ] || die "ROWS must be at least 20000 (got $ROWS)"
read -r -a MODE_LIST <<<"$MODES"
read -r -a WORKLOAD_LIST <<<"$WORKLOADS"
for m in "${MODE_LIST[@]}"; do
  [ "$m" = simple ] || [ "$m" = prepared ] || die "MODES may contain simple and prepared (got \"$m\")"
done
for w in "${WORKLOAD_LIST[@]}"; do
  case " $ALL_WORKLOADS " in *" $w "*) ;; *) die "unknown workload \"$w\" (known: $ALL_WORKLOADS)" ;; esac
done
[ "$(id -u)" -eq 0 ] || die "run as root: the servers are started as the postgres system user"
for tool in pgbench psql pg_isready setpriv ss awk cc; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool not found"
done
if [ ! -x "$PGBIN/postgres" ] || [ ! -x "$PGBIN/initdb" ]; then die "no postgres/initdb in $PGBIN"; fi
PQ_INCLUDE=$(pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)
[ -r "$PQ_INCLUDE/libpq-fe.h" ] || die "no libpq-fe.h in $PQ_INCLUDE (install libpq-dev)"

# ---------------------------------------------------------------- the layout of items
# 12 ranges, range i on shard s((i mod 3) + 1); U = ROWS / 10. The narrow range [5U, 5U+100)
# lets a 200-row BETWEEN touch three shards.
U=$((ROWS / 10))
TOP=$((ROWS - U / 2))
BOUNDS=("$U" $((2 * U)) $((3 * U)) $((4 * U)) $((5 * U)) $((5 * U + 100)) $((6 * U)) $((7 * U))
  $((8 * U)) $((9 * U)) "$TOP")

# ---------------------------------------------------------------- header
echo "== pgrange range-scan benchmark: direct PostgreSQL vs pgrange over 3 shards"
echo "command: ROUNDS=$ROUNDS DURATION=$DURATION CLIENTS=$CLIENTS JOBS=$JOBS ROWS=$ROWS SCALE=$SCALE" \
  "MODES=\"$MODES\" WORKERS=$WORKERS WARMUP=$WARMUP SKIP_BUILD=$SKIP_BUILD $0 $*"
echo "date:    $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
cpu_model=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo)
echo "machine: nproc=$(nproc), CPU ${cpu_model:-unknown}, $(uname -sr)," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "versions: $("$PGBIN/postgres" --version), $(pgbench --version)"
echo "servers: fsync=off full_page_writes=off synchronous_commit=off (not durable; reads only here)"
echo "logs:    $LOG_DIR"
echo

if [ "$SKIP_BUILD" != 1 ]; then
  echo "building pgrange (scripts/build.sh --target pgrange)"
  "$REPO/scripts/build.sh" --target pgrange
fi
[ -x "$PGRANGE" ] || die "no pgrange binary at $PGRANGE (build it or set PGRANGE)"
echo "pgrange: $PGRANGE (built $(date -u -r "$PGRANGE" '+%Y-%m-%d %H:%M UTC' 2>/dev/null || echo '?'));" \
  "tree at $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?')" \
  "$( [ -n "$(git --no-optional-locks -C "$REPO" status --porcelain --untracked-files=no 2>/dev/null)" ] && echo '(with uncommitted changes)')"
echo

id postgres >/dev/null 2>&1 || useradd --system postgres
CLK_TCK=$(getconf CLK_TCK)
T_START=$(date +%s)

# ---------------------------------------------------------------- cleanup
TMP=""
PGBENCH_PID=""
PGRANGE_PID=""
declare -A SERVER_PID

stop_pid() {  # stop_pid PID SIGNAL: signal a child of ours and wait for it
  local pid=$1 sig=$2
  [ -n "$pid" ] || return 0
  if kill -0 "$pid" 2>/dev/null; then
    kill -s "$sig" "$pid" 2>/dev/null || true
    local i
    for ((i = 0; i < 100; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && kill -s KILL "$pid" 2>/dev/null
  fi
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  stop_pid "$PGBENCH_PID" TERM
  stop_pid "$PGRANGE_PID" INT
  local s
  for s in "${!SERVER_PID[@]}"; do stop_pid "${SERVER_PID[$s]}" INT; done # SIGINT = fast shutdown
  if [ -n "$TMP" ] && [ -d "$TMP" ]; then
    cp "$TMP"/*.log "$LOG_DIR/" 2>/dev/null || true
    rm -rf "$TMP"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- ports and dirs
USED_PORTS=" "
pick_port() {  # pick_port VAR: sets VAR to a free TCP port in 20000-32000 not picked before
  local _candidate _try
  for ((_try = 0; _try < 200; _try++)); do
    _candidate=$((20000 + RANDOM % 12001))
    case "$USED_PORTS" in *" $_candidate "*) continue ;; esac
    if ! ss -Htln "sport = :$_candidate" | grep -q .; then
      USED_PORTS+="$_candidate "
      printf -v "$1" '%s' "$_candidate"
      return 0
    fi
  done
  die "no free port found"
}

mkdir -p "$LOG_DIR"
LOG_DIR=$(cd "$LOG_DIR" && pwd)
TMP=$(mktemp -d /tmp/range_scan_compare.XXXXXX)
chown postgres:postgres "$TMP"
chmod 755 "$TMP"

AS_POSTGRES=(setpriv --reuid=postgres --regid=postgres --init-groups -- env HOME=/tmp)

wait_ready() {  # wait_ready NAME PORT PID: wait until it accepts connections to database bench
  local name=$1 port=$2 pid=$3 i
  for ((i = 0; i < 300; i++)); do
    kill -0 "$pid" 2>/dev/null || die "$name exited during startup (see $LOG_DIR)"
    if pg_isready -q -h 127.0.0.1 -p "$port" -d bench -U bench -t 1; then return 0; fi
    sleep 0.1
  done
  die "$name did not accept connections on port $port"
}

cd /tmp # servers run from a directory postgres can read

# ---------------------------------------------------------------- the probe
# Runs one statement once, the way pgbench -M simple (PQexec) or -M prepared (PQprepare +
# PQexecPrepared) would, and prints "ok <rows>" or "error <SQLSTATE> <message>".
cat >"$TMP/probe.c" <<'EOF'
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
cc -O1 -o "$TMP/probe" "$TMP/probe.c" -I"$PQ_INCLUDE" -lpq 2>"$LOG_DIR/probe-build.log" ||
  die "could not build the probe (see $LOG_DIR/probe-build.log)"

# ---------------------------------------------------------------- four PostgreSQL servers
echo "starting PostgreSQL: direct, s1, s2, s3"
"${AS_POSTGRES[@]}" "$PGBIN/initdb" -D "$TMP/template" -U postgres --auth=trust -E UTF8 \
  --locale=C.UTF-8 >"$LOG_DIR/initdb.log" 2>&1 || die "initdb failed (see $LOG_DIR/initdb.log)"
declare -A SERVER_PORT
for s in direct s1 s2 s3; do
  pick_port port
  SERVER_PORT[$s]=$port
  cp -a "$TMP/template" "$TMP/data-$s"
  buffers=128MB
  [ "$s" = direct ] && buffers=256MB
  cat >>"$TMP/data-$s/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$TMP/data-$s'
max_connections = 100
shared_buffers = $buffers
fsync = off
full_page_writes = off
synchronous_commit = off
EOF
  "${AS_POSTGRES[@]}" "$PGBIN/postgres" -D "$TMP/data-$s" >"$LOG_DIR/postgres-$s.log" 2>&1 &
  SERVER_PID[$s]=$!
done
for s in direct s1 s2 s3; do
  for ((i = 0; i < 300; i++)); do
    pg_isready -q -h 127.0.0.1 -p "${SERVER_PORT[$s]}" -t 1 && break
    kill -0 "${SERVER_PID[$s]}" 2>/dev/null || die "PostgreSQL $s exited (see $LOG_DIR)"
    sleep 0.1
  done
  psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "${SERVER_PORT[$s]}" -U postgres -d postgres \
    -c "CREATE ROLE bench LOGIN PASSWORD 'bench'" -c "CREATE DATABASE bench OWNER bench" >/dev/null
done
psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "${SERVER_PORT[s1]}" -U postgres -d postgres \
  -c "CREATE DATABASE pgrange_meta OWNER bench" >/dev/null

sql_on() {  # sql_on SERVER SQL...: psql as bench on database bench of a server, unaligned output
  local s=$1
  shift
  local args=() q
  for q in "$@"; do args+=(-c "$q"); done
  psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "${SERVER_PORT[$s]}" -U bench -d bench "${args[@]}"
}

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
  for s in s2 s3; do
    pgbench -i -q -I dtp -h 127.0.0.1 -p "${SERVER_PORT[$s]}" -U bench bench \
      >"$LOG_DIR/pgbench-init-$s.log" 2>&1 || die "pgbench -i on $s failed (see $LOG_DIR)"
  done
  wait "$init_direct" || die "pgbench -i on direct failed (see $LOG_DIR/pgbench-init-direct.log)"
  wait "$init_s1" || die "pgbench -i on s1 failed (see $LOG_DIR/pgbench-init-s1.log)"
fi

echo "loading items ($ROWS rows) on direct"
ITEMS_DDL="CREATE TABLE items (id int8 PRIMARY KEY, v int4, pad text)"
items_rows() {  # items_rows LO HI: the SELECT that generates ids LO..HI
  echo "SELECT g, (g::int8 * 7919 % 100000)::int4, md5(g::text) FROM generate_series($1, $2) g"
}
sql_on direct "$ITEMS_DDL" "INSERT INTO items $(items_rows 1 "$ROWS")" "VACUUM ANALYZE items"

# ---------------------------------------------------------------- pgrange
pick_port PGRANGE_PORT
POOL=$((CLIENTS * WORKERS > 8 ? CLIENTS * WORKERS : 8))
cat >"$TMP/pgrange.toml" <<EOF
listen = "127.0.0.1:$PGRANGE_PORT"
database = "bench"
pool_mode = "transaction"
workers = $WORKERS
log_level = "warn"

[metadata]
dsn = "host=127.0.0.1 port=${SERVER_PORT[s1]} dbname=pgrange_meta user=bench"
EOF
for s in s1 s2 s3; do
  cat >>"$TMP/pgrange.toml" <<EOF

[[shard]]
name = "$s"
dsn = "host=127.0.0.1 port=${SERVER_PORT[$s]} dbname=bench user=bench"
pool_size = $POOL
EOF
done
cat >>"$TMP/pgrange.toml" <<EOF

[[user]]
name = "bench"
password = "bench"
auth = "md5"
EOF
"$PGRANGE" --config "$TMP/pgrange.toml" >"$LOG_DIR/pgrange.log" 2>&1 &
PGRANGE_PID=$!
wait_ready pgrange "$PGRANGE_PORT" "$PGRANGE_PID"
export PGPASSWORD=bench

via_pgrange() {  # via_pgrange SQL...: statements through pgrange, unaligned output
  local args=() q
  for q in "$@"; do args+=(-c "$q"); done
  psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PGRANGE_PORT" -U bench -d bench "${args[@]}"
}

place_ranges() {  # place_ranges TABLE: range i (in key order) to shard s((i mod 3) + 1)
  local table=$1 i=0 id shard want
  while IFS='|' read -r _ _ id shard _; do
    want="s$((i % 3 + 1))"
    if [ "$shard" != "$want" ]; then
      via_pgrange "ALTER RANGE $id RELOCATE TO '$want'" >/dev/null
    fi
    i=$((i + 1))
  done < <(via_pgrange "SHOW RANGES FROM TABLE $table")
}

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

if [[ " ${WORKLOAD_LIST[*]} " == *" pgbench_S "* ]]; then
  accounts=$((SCALE * 100000))
  splits=""
  for ((k = 1; k < 12; k++)); do splits+="($((accounts * k / 12 + 1))), "; done
  echo "pgbench tables through pgrange: IMPORT TABLE, pgbench_accounts split into 12 ranges, RELOCATE round-robin"
  t0=$(date +%s)
  for t in pgbench_accounts pgbench_branches pgbench_tellers pgbench_history; do
    via_pgrange "IMPORT TABLE $t FROM SHARD 's1'" >/dev/null
  done
  via_pgrange "ALTER TABLE pgbench_accounts SPLIT AT VALUES ${splits%, }" >/dev/null
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

a=$((2 * U + 1000))
write_script between_1 <<EOF
\set k random(0, 3)
\set a :k * $U + random(1, $((U - 200)))
\set b :a + 199
SELECT * FROM items WHERE id BETWEEN :a AND :b;
EOF
DESC[between_1]="BETWEEN, 200 rows in one range"
SHARDS[between_1]=1
PROBE_SQL[between_1]="SELECT * FROM items WHERE id BETWEEN $a AND $((a + 199))"
PROBE_PSQL[between_1]="SELECT * FROM items WHERE id BETWEEN \$1 AND \$2"
PROBE_PARAMS[between_1]="$a $((a + 199))"

a=$((2 * U - 100))
write_script between_2 <<EOF
\set k random(1, 4)
\set a :k * $U - random(1, 199)
\set b :a + 199
SELECT * FROM items WHERE id BETWEEN :a AND :b;
EOF
DESC[between_2]="BETWEEN, 200 rows across a boundary"
SHARDS[between_2]=2
PROBE_SQL[between_2]="SELECT * FROM items WHERE id BETWEEN $a AND $((a + 199))"
PROBE_PSQL[between_2]="SELECT * FROM items WHERE id BETWEEN \$1 AND \$2"
PROBE_PARAMS[between_2]="$a $((a + 199))"

a=$((5 * U - 50))
write_script between_3 <<EOF
\set a random($((5 * U - 99)), $((5 * U - 1)))
\set b :a + 199
SELECT * FROM items WHERE id BETWEEN :a AND :b;
EOF
DESC[between_3]="BETWEEN, 200 rows over 3 ranges"
SHARDS[between_3]=3
PROBE_SQL[between_3]="SELECT * FROM items WHERE id BETWEEN $a AND $((a + 199))"
PROBE_PSQL[between_3]="SELECT * FROM items WHERE id BETWEEN \$1 AND \$2"
PROBE_PARAMS[between_3]="$a $((a + 199))"

write_script top10_all <<EOF
SELECT * FROM items ORDER BY id LIMIT 10;
EOF
DESC[top10_all]="ORDER BY id LIMIT 10"
SHARDS[top10_all]=3
PROBE_SQL[top10_all]="SELECT * FROM items ORDER BY id LIMIT 10"
PROBE_PSQL[top10_all]="SELECT * FROM items ORDER BY id LIMIT 10"
PROBE_PARAMS[top10_all]=""

after_workload() {  # after_workload NAME SHARDS LO HI
  write_script "$1" <<EOF
\set x random($3, $4)
SELECT * FROM items WHERE id > :x ORDER BY id LIMIT 10;
EOF
  DESC[$1]="id > x ORDER BY id LIMIT 10"
  SHARDS[$1]=$2
  PROBE_SQL[$1]="SELECT * FROM items WHERE id > $3 ORDER BY id LIMIT 10"
  PROBE_PSQL[$1]="SELECT * FROM items WHERE id > \$1 ORDER BY id LIMIT 10"
  PROBE_PARAMS[$1]="$3"
}
after_workload after_1 1 "$TOP" $((ROWS - 20))
after_workload after_2 2 $((9 * U)) $((TOP - 20))
after_workload after_3 3 1 $((8 * U))

DESC[pgbench_S]="pgbench -S, scale $SCALE"
SHARDS[pgbench_S]=1
PROBE_SQL[pgbench_S]="SELECT abalance FROM pgbench_accounts WHERE aid = 4242"
PROBE_PSQL[pgbench_S]="SELECT abalance FROM pgbench_accounts WHERE aid = \$1"
PROBE_PARAMS[pgbench_S]="4242"

declare -A PORT
PORT[direct]=${SERVER_PORT[direct]}
PORT[pgrange]=$PGRANGE_PORT
conninfo() { echo "host=127.0.0.1 port=${PORT[$1]} dbname=bench user=bench password=bench"; }

# Probe every workload and mode through pgrange (and directly, which must answer).
declare -A STATE # STATE[workload,mode]: "" = runs, else the reason pgrange does not run it
echo "probing what pgrange answers"
for w in "${WORKLOAD_LIST[@]}"; do
  for m in "${MODE_LIST[@]}"; do
    for t in direct pgrange; do
      if [ "$m" = simple ]; then
        out=$("$TMP/probe" "$(conninfo "$t")" simple "${PROBE_SQL[$w]}")
      else
        # shellcheck disable=SC2086 # the parameters split on purpose
        out=$("$TMP/probe" "$(conninfo "$t")" prepared "${PROBE_PSQL[$w]}" ${PROBE_PARAMS[$w]})
      fi
      echo "$t $w $m: $out" >>"$LOG_DIR/probes.txt"
      case "$out" in
        ok*) ;;
        "error 0A000 "*)
          [ "$t" = pgrange ] || die "direct PostgreSQL refused $w ($m): $out"
          STATE[$w,$m]="refused"
          printf '  %-10s %-9s refused by pgrange (0A000): %s\n' "$w" "$m" "${out#error 0A000 }"
          ;;
        *)
          [ "$t" = pgrange ] || die "direct PostgreSQL failed $w ($m): $out"
          STATE[$w,$m]="error"
          printf '  %-10s %-9s FAILED through pgrange: %s\n' "$w" "$m" "${out#error }"
          ;;
      esac
    done
  done
done
echo

proc_ticks() {  # utime+stime of a process (all threads), in clock ticks
  local stat
  stat=$(<"/proc/$1/stat")
  stat=${stat##*) }
  # shellcheck disable=SC2086 # split the fields on purpose
  set -- $stat
  echo $((${12} + ${13}))
}

# run_pgbench TARGET WORKLOAD MODE SECONDS LOG: 0 when pgbench finished and reported a TPS
run_pgbench() {
  local target=$1 w=$2 mode=$3 secs=$4 log=$5 script
  if [ "$w" = pgbench_S ]; then script=(-S); else script=(-f "$TMP/$w.sql"); fi
  pgbench -n "${script[@]}" -M "$mode" -c "$CLIENTS" -j "$JOBS" -T "$secs" \
    -h 127.0.0.1 -p "${PORT[$target]}" -U bench bench >"$log" 2>&1 &
  PGBENCH_PID=$!
  local rc=0
  wait "$PGBENCH_PID" || rc=$?
  PGBENCH_PID=""
  return $rc
}

if [ "$WARMUP" -gt 0 ]; then
  echo "warm-up: ${WARMUP}s per target (between_3 and pgbench -S, simple; not counted)"
  for t in direct pgrange; do
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
      for t in direct pgrange; do
        if [ "$t" = pgrange ] && [ -n "${STATE[$w,$mode]:-}" ]; then
          printf '%-6s %-10s %-9s %-8s %12s %12s\n' "$round" "$w" "$mode" "$t" - "${STATE[$w,$mode]}"
          continue
        fi
        log="$LOG_DIR/r$round-$w-$mode-$t.log"
        before=$(proc_ticks "$PGRANGE_PID")
        ok=1
        run_pgbench "$t" "$w" "$mode" "$DURATION" "$log" || ok=0
        after=$(proc_ticks "$PGRANGE_PID")
        tps=$(awk '/^tps = / {print $3; exit}' "$log")
        txns=$(awk -F': *' '/^number of transactions actually processed/ {print $2; exit}' "$log")
        txns=${txns%%/*}
        if [ "$ok" = 0 ] || [ -z "$tps" ] || [ -z "$txns" ] || [ "$txns" -le 0 ]; then
          reason=error
          grep -q "not supported" "$log" && reason=refused
          [ "$t" = pgrange ] && STATE[$w,$mode]=$reason
          printf '%-6s %-10s %-9s %-8s %12s %12s  (%s)\n' "$round" "$w" "$mode" "$t" - "$reason" "$log"
          continue
        fi
        cpu=NA
        if [ "$t" = pgrange ]; then
          cpu=$(awk -v t=$((after - before)) -v hz="$CLK_TCK" 'BEGIN {printf "%.2f", t / hz}')
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$w" "$mode" "$t" "$tps" "$txns" "$cpu" >>"$RESULTS"
        printf '%-6s %-10s %-9s %-8s %12.1f\n' "$round" "$w" "$mode" "$t" "$tps"
      done
    done
  done
done

# ---------------------------------------------------------------- summary
median() {  # median of the numbers on stdin
  sort -g | awk '{v[NR] = $1} END {
    if (NR == 0) { print "NA"; exit }
    if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
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
printf '%-10s %-36s %6s %-9s %11s %11s %7s  %-13s %9s\n' workload statement shards mode \
  "direct TPS" "pgrange TPS" ratio "per round" "CPU/10k"
for w in "${WORKLOAD_LIST[@]}"; do
  for mode in "${MODE_LIST[@]}"; do
    d=$(column_of "$w" "$mode" direct tps | median)
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
    d=$(awk -v v="$d" 'BEGIN {if (v == "NA") print v; else printf "%.1f", v}')
    printf '%-10s %-36s %6s %-9s %11s %11s %7s  %-13s %9s\n' "$w" "${DESC[$w]}" "${SHARDS[$w]}" \
      "$mode" "$d" "$p" "$ratio" "$pairs" "$cpu"
  done
done
echo
echo "ratio: pgrange median TPS / direct median TPS (per-round paired ratios in brackets)."
echo "CPU/10k: pgrange's utime+stime (all threads, /proc/PID/stat) per 10,000 transactions."
echo "refused: pgrange answers the statement with SQLSTATE 0A000 (not supported yet); see $LOG_DIR/probes.txt"
echo "Raw per-run figures: $RESULTS"
echo "finished $(date -u '+%Y-%m-%d %H:%M:%S UTC') after $(($(date +%s) - T_START)) s," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
