# Shell code the end-to-end benchmarks share (pgbench_compare.sh, range_scan_compare.sh,
# tpcb_compare.sh, index_compare.sh, hash_join_compare.sh, sort_spill_compare.sh,
# reporting_compare.sh). Not run by itself: each script sources it first,
#   . "$(dirname "$0")/lib.sh"
# under set -euo pipefail. Sourcing only defines functions and sets the variables below; the
# scripts call what they need, in their own order.
#
# Set here:
#   BENCH_NAME       the script's name without .sh: the prefix of die's messages and of the
#                    scratch folder /tmp/BENCH_NAME.XXXXXX
#   REPO             the checkout the script belongs to
#   PGBIN            PostgreSQL server binaries, unless set (default: pg_config --bindir)
#   DIE_STATUS=1     the exit status of die (a script may set another after sourcing)
#   STOP_TENTHS=100  tenths of a second stop_pid waits before SIGKILL (likewise)
#   AS_POSTGRES      a command prefix that runs a command as the postgres system user
# Filled in as the run goes, and read by cleanup on exit:
#   TMP              the scratch folder (bench_setup); copied *.log to LOG_DIR, then removed
#   PGBENCH_PID      the pgbench running now, if any (stopped with SIGTERM)
#   PGRANGE_PID      the one pgrange, if the script has one (stopped with SIGINT)
#   PROXY_PIDS       further proxies (stopped with SIGINT, in order)
#   SERVER_PID[NAME], SERVER_PORT[NAME]   PostgreSQL servers (stopped with SIGINT = fast shutdown)
#   CLK_TCK          clock ticks per second, for proc_ticks (bench_setup)
#   PGRANGE_STARTS, PGRANGE_LOG, PGRANGE_PORT   start_pgrange's count, last log and port
# The scripts set LOG_DIR, PGRANGE, SKIP_BUILD and (for start_sharded_pgrange and start_pgrange)
# WORKERS themselves; start_pgrange runs the copy of pgrange the script put in $TMP/pgrange;
# postgres_conf reads DURABLE (default 0); pgrange_toml reads RANGES_TOML and USER_AUTH (default md5).

BENCH_NAME=$(basename "$0" .sh)
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -z "${PGBIN:-}" ]; then
  if command -v pg_config >/dev/null 2>&1; then
    PGBIN=$(pg_config --bindir)
  else
    PGBIN=$(dirname "$(command -v postgres)")
  fi
fi
DIE_STATUS=1
STOP_TENTHS=100

die() {
  echo "$BENCH_NAME: $*" >&2
  exit "$DIE_STATUS"
}

# ---------------------------------------------------------------- checks
require_counts() {  # require_counts VAR...: each VAR must hold a non-negative integer
  local v
  for v in "$@"; do
    [[ ${!v} =~ ^[0-9]+$ ]] || die "$v must be a non-negative integer (got \"${!v}\")"
  done
}

require_modes() {  # require_modes MODE...: only pgbench's simple and prepared protocols
  local m
  for m in "$@"; do
    [ "$m" = simple ] || [ "$m" = prepared ] || die "MODES may contain simple and prepared (got \"$m\")"
  done
}

# require_environment TOOL...: root, the TOOLs on PATH, postgres and initdb in PGBIN
require_environment() {
  [ "$(id -u)" -eq 0 ] || die "run as root: the servers are started as the postgres system user"
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool not found"
  done
  if [ ! -x "$PGBIN/postgres" ] || [ ! -x "$PGBIN/initdb" ]; then die "no postgres/initdb in $PGBIN"; fi
}

require_libpq() {  # require_libpq: sets PQ_INCLUDE to the folder holding libpq-fe.h
  PQ_INCLUDE=$(pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)
  [ -r "$PQ_INCLUDE/libpq-fe.h" ] || die "no libpq-fe.h in $PQ_INCLUDE (install libpq-dev)"
}

# ---------------------------------------------------------------- header
load_average() { cut -d' ' -f1-3 /proc/loadavg; }
load_1min() { cut -d' ' -f1 /proc/loadavg; }

# wait_for_load MAX SECONDS: on a shared machine, wait up to SECONDS for the 1-minute load
# average to be at most MAX; prints what it waited for. Returns 0 either way.
wait_for_load() {
  local max=$1 secs=$2 waited=0
  while awk -v l="$(load_1min)" -v m="$max" 'BEGIN {exit !(l > m)}'; do
    if [ "$waited" -ge "$secs" ]; then
      echo "  load average $(load_average) still above $max after ${waited} s; going on"
      return 0
    fi
    [ "$waited" -gt 0 ] || echo "  load average $(load_average) above $max: waiting (up to ${secs} s)"
    sleep 5
    waited=$((waited + 5))
  done
  [ "$waited" -eq 0 ] || echo "  load average $(load_average) after waiting ${waited} s"
  return 0
}

print_date_machine() {  # the "date:" and "machine:" header lines
  echo "date:    $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  local cpu_model
  cpu_model=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo)
  echo "machine: nproc=$(nproc), CPU ${cpu_model:-unknown}, $(uname -sr)," \
    "load average $(load_average)"
}

build_pgrange() {  # build pgrange unless SKIP_BUILD=1; PGRANGE must then be there
  if [ "$SKIP_BUILD" != 1 ]; then
    echo "building pgrange (scripts/build.sh --target pgrange)"
    "$REPO/scripts/build.sh" --target pgrange
  fi
  [ -x "$PGRANGE" ] || die "no pgrange binary at $PGRANGE (build it or set PGRANGE)"
}

print_pgrange_build() {  # the "pgrange:" header line (binary, its date, the tree) and a blank line
  echo "pgrange: $PGRANGE (built $(date -u -r "$PGRANGE" '+%Y-%m-%d %H:%M UTC' 2>/dev/null || echo '?'));" \
    "tree at $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?')" \
    "$( [ -n "$(git --no-optional-locks -C "$REPO" status --porcelain --untracked-files=no 2>/dev/null)" ] && echo '(with uncommitted changes)')"
  echo
}

# ---------------------------------------------------------------- cleanup
TMP=""
PGBENCH_PID=""
PGRANGE_PID=""
PROXY_PIDS=()
declare -A SERVER_PID SERVER_PORT

stop_pid() {  # stop_pid PID SIGNAL: signal a child of ours and wait for it (SIGKILL after STOP_TENTHS)
  local pid=$1 sig=$2
  [ -n "$pid" ] || return 0
  if kill -0 "$pid" 2>/dev/null; then
    kill -s "$sig" "$pid" 2>/dev/null || true
    local i
    for ((i = 0; i < STOP_TENTHS; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && kill -s KILL "$pid" 2>/dev/null
  fi
  wait "$pid" 2>/dev/null || true
}

cleanup() {  # on exit: stop pgbench, the proxies and the servers; keep the logs, remove TMP
  local rc=$?
  trap - EXIT INT TERM
  stop_pid "$PGBENCH_PID" TERM
  stop_pid "$PGRANGE_PID" INT
  local p s
  for p in "${PROXY_PIDS[@]}"; do stop_pid "$p" INT; done
  for s in "${!SERVER_PID[@]}"; do stop_pid "${SERVER_PID[$s]}" INT; done # SIGINT = fast shutdown
  if [ -n "$TMP" ] && [ -d "$TMP" ]; then
    cp "$TMP"/*.log "$LOG_DIR/" 2>/dev/null || true
    rm -rf "$TMP"
  fi
  exit "$rc"
}

# ---------------------------------------------------------------- ports and dirs
USED_PORTS=" "
# begin_run: build pgrange (unless SKIP_BUILD=1), its header line, T_START (the run's start),
# bench_setup, and a copy of pgrange in $TMP/pgrange (what start_pgrange runs: a rebuild during
# the run cannot mix binaries).
begin_run() {
  build_pgrange
  print_pgrange_build
  T_START=$(date +%s)
  bench_setup
  cp "$PGRANGE" "$TMP/pgrange"
}

pick_port() {  # pick_port VAR: sets VAR to a free TCP port in 20000-32000 not picked before
  local _candidate _try # names that cannot shadow the caller's VAR
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

# A command prefix, not a function: "cmd &" on a function would fork a subshell and $! would
# be that subshell rather than the server. setpriv and env exec, so $! is the server itself.
AS_POSTGRES=(setpriv --reuid=postgres --regid=postgres --init-groups -- env HOME=/tmp)

# bench_setup: the postgres system user, CLK_TCK, the cleanup traps, LOG_DIR (made absolute) and
# the scratch folder TMP (readable by postgres); then cd /tmp, a directory postgres can read,
# for the servers to run from.
bench_setup() {
  id postgres >/dev/null 2>&1 || useradd --system postgres
  CLK_TCK=$(getconf CLK_TCK)
  trap cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  mkdir -p "$LOG_DIR"
  LOG_DIR=$(cd "$LOG_DIR" && pwd)
  TMP=$(mktemp -d "/tmp/$BENCH_NAME.XXXXXX")
  chown postgres:postgres "$TMP"
  chmod 755 "$TMP"
  cd /tmp || die "no /tmp"
}

# ---------------------------------------------------------------- servers and pgrange
wait_ready() {  # wait_ready NAME PORT PID [COMM]: wait for connections; PID must be COMM itself
  local name=$1 port=$2 pid=$3 comm=${4:-} i
  for ((i = 0; i < 300; i++)); do
    kill -0 "$pid" 2>/dev/null || die "$name exited during startup (see $LOG_DIR)"
    if pg_isready -q -h 127.0.0.1 -p "$port" -d bench -U bench -t 1; then
      if [ -n "$comm" ] && [ "$(<"/proc/$pid/comm")" != "$comm" ]; then
        die "PID $pid is not $comm; CPU figures would be wrong"
      fi
      return 0
    fi
    sleep 0.1
  done
  die "$name did not accept connections on port $port"
}

# postgres_conf DATA PORT MAX_CONNECTIONS SHARED_BUFFERS [LINE...]: append the benchmark's
# settings to DATA/postgresql.conf (127.0.0.1 only); LINEs go after max_connections. Not durable
# (fsync, full_page_writes and synchronous_commit off) unless DURABLE=1: then all three on.
postgres_conf() {
  local data=$1 port=$2 max_conn=$3 buffers=$4
  shift 4
  {
    echo "listen_addresses = '127.0.0.1'"
    echo "port = $port"
    echo "unix_socket_directories = '$data'"
    echo "max_connections = $max_conn"
    [ "$#" -eq 0 ] || printf '%s\n' "$@"
    echo "shared_buffers = $buffers"
    local on=off
    [ "${DURABLE:-0}" = 1 ] && on=on
    echo "fsync = $on"
    echo "full_page_writes = $on"
    echo "synchronous_commit = $on"
  } >>"$data/postgresql.conf"
}

durability_line() {  # what postgres_conf sets, for the header
  if [ "${DURABLE:-0}" = 1 ]; then
    echo "fsync=on full_page_writes=on synchronous_commit=on (durable)"
  else
    echo "fsync=off full_page_writes=off synchronous_commit=off (NOT durable)"
  fi
}

start_postgres() {  # start_postgres NAME DATA LOG: start a server as postgres; SERVER_PID[NAME]
  "${AS_POSTGRES[@]}" "$PGBIN/postgres" -D "$2" >"$3" 2>&1 &
  SERVER_PID[$1]=$!
}

# start_four_servers SHARD_PREPARED [SHARD_LINE]: the servers direct, s1, s2 and s3 from one
# initdb, with max_prepared_transactions = 0 on direct and SHARD_PREPARED on the shards (and the
# postgresql.conf line SHARD_LINE on the shards, e.g. "wal_level = logical", which also makes
# bench a REPLICATION role there: range moves need both); waits for them, creates role and
# database bench on each and database pgrange_meta on s1. Sets SERVER_PORT.
# start_pgbouncer NAME POOL_MODE SERVER_PORT [MAX_CLIENT_CONN [AUTH_TYPE [LINE...]]]: PgBouncer
# (PGBOUNCER) in front of database bench of the server on SERVER_PORT, clients authenticated with
# AUTH_TYPE (default md5) against bench's plaintext password, at most MAX_CLIENT_CONN (default 100)
# of them, the server reached as bench with trust; LINEs go at the end of [pgbouncer]. Sets
# PGBOUNCER_PORT and PGBOUNCER_PID (stopped on exit).
PGBOUNCER=${PGBOUNCER:-/usr/sbin/pgbouncer}
start_pgbouncer() {
  local name=$1 mode=$2 server=$3 max_clients=${4:-100} auth=${5:-md5} cfg
  shift $(($# < 5 ? $# : 5))
  if [ ! -f "$TMP/userlist.txt" ]; then
    printf '"bench" "bench"\n' >"$TMP/userlist.txt"
    chown postgres:postgres "$TMP/userlist.txt"
    chmod 600 "$TMP/userlist.txt"
  fi
  pick_port PGBOUNCER_PORT
  cfg="$TMP/pgbouncer-$name.ini"
  cat >"$cfg" <<EOF
[databases]
bench = host=127.0.0.1 port=$server dbname=bench

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PGBOUNCER_PORT
unix_socket_dir =
auth_type = $auth
auth_file = $TMP/userlist.txt
pool_mode = $mode
default_pool_size = 20
max_client_conn = $max_clients
logfile = $TMP/pgbouncer-$name.log
pidfile =
ignore_startup_parameters = extra_float_digits
EOF
  [ "$#" -eq 0 ] || printf '%s\n' "$@" >>"$cfg"
  "${AS_POSTGRES[@]}" "$PGBOUNCER" "$cfg" >"$LOG_DIR/pgbouncer-$name.stderr" 2>&1 &
  PGBOUNCER_PID=$!
  PROXY_PIDS+=("$PGBOUNCER_PID")
  wait_ready "PgBouncer ($name)" "$PGBOUNCER_PORT" "$PGBOUNCER_PID" pgbouncer
}

start_four_servers() {
  local shard_prepared=$1 shard_line=${2:-} s port buffers prepared lines
  echo "starting PostgreSQL: direct, s1, s2, s3"
  "${AS_POSTGRES[@]}" "$PGBIN/initdb" -D "$TMP/template" -U postgres --auth=trust -E UTF8 \
    --locale=C.UTF-8 >"$LOG_DIR/initdb.log" 2>&1 || die "initdb failed (see $LOG_DIR/initdb.log)"
  for s in direct s1 s2 s3; do
    pick_port port
    SERVER_PORT[$s]=$port
    cp -a "$TMP/template" "$TMP/data-$s"
    buffers=128MB
    prepared=$shard_prepared
    lines=("max_prepared_transactions = $prepared")
    [ -z "$shard_line" ] || lines+=("$shard_line")
    if [ "$s" = direct ]; then buffers=256MB; lines=("max_prepared_transactions = 0"); fi
    postgres_conf "$TMP/data-$s" "$port" 100 "$buffers" "${lines[@]}"
    start_postgres "$s" "$TMP/data-$s" "$LOG_DIR/postgres-$s.log"
  done
  for s in direct s1 s2 s3; do
    wait_ready "PostgreSQL $s" "${SERVER_PORT[$s]}" "${SERVER_PID[$s]}"
    psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "${SERVER_PORT[$s]}" -U postgres -d postgres \
      -c "CREATE ROLE bench LOGIN PASSWORD 'bench'" -c "CREATE DATABASE bench OWNER bench" >/dev/null
    if [ "$s" != direct ] && [[ "$shard_line" == *"wal_level = logical"* ]]; then
      # Moves read the source's logical replication stream as the shard DSN's role.
      psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "${SERVER_PORT[$s]}" -U postgres -d postgres \
        -c "ALTER ROLE bench REPLICATION" >/dev/null
    fi
  done
  psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "${SERVER_PORT[s1]}" -U postgres -d postgres \
    -c "CREATE DATABASE pgrange_meta OWNER bench" >/dev/null
}

empty_pgbench_tables() {  # empty_pgbench_tables SERVER...: pgbench's tables and keys, no rows
  local s
  for s in "$@"; do
    pgbench -i -q -I dtp -h 127.0.0.1 -p "${SERVER_PORT[$s]}" -U bench bench \
      >"$LOG_DIR/pgbench-init-$s.log" 2>&1 || die "pgbench -i on $s failed (see $LOG_DIR)"
  done
}

# pgrange_toml PORT WORKERS LOG_LEVEL META_PORT POOL SHARD:PORT...: a pgrange configuration on
# stdout: transaction pooling, its metadata in pgrange_meta on META_PORT, one [[shard]] per SHARD
# (database bench, pool_size POOL), and the user bench with USER_AUTH (default md5).
pgrange_toml() {
  local port=$1 workers=$2 level=$3 meta=$4 pool=$5 shard
  shift 5
  cat <<EOF
listen = "127.0.0.1:$port"
database = "bench"
pool_mode = "transaction"
workers = $workers
log_level = "$level"

# The benchmarks measure the placement they set up: no automatic splits or moves meanwhile
# (RANGES_TOML, the body of [ranges], says otherwise).
[ranges]
${RANGES_TOML:-auto_split = false
rebalance = false}

[metadata]
dsn = "host=127.0.0.1 port=$meta dbname=pgrange_meta user=bench"
EOF
  for shard in "$@"; do
    cat <<EOF

[[shard]]
name = "${shard%%:*}"
dsn = "host=127.0.0.1 port=${shard##*:} dbname=bench user=bench"
pool_size = $pool
EOF
  done
  cat <<EOF

[[user]]
name = "bench"
password = "bench"
auth = "${USER_AUTH:-md5}"
admin = true
EOF
}

# pgbench_tables_toml SCALE: [[table]] entries for pgbench's four tables at that scale, each
# split in thirds of its keys (as split_into TABLE 3 MAX would), so that pgbench -i through
# pgrange makes them split and spread over three shards; pgbench_history (no primary key) is
# keyed by aid, split like pgbench_accounts.
pgbench_tables_toml() {
  local scale=$1 t key max
  for t in pgbench_accounts:aid:100000 pgbench_history:aid:100000 pgbench_tellers:tid:10 \
    pgbench_branches:bid:1; do
    IFS=: read -r t key max <<<"$t"
    max=$((max * scale))
    cat <<EOF

[[table]]
name = "$t"
key = ["$key"]
split_at = [$((max / 3 + 1)), $((max * 2 / 3 + 1))]
EOF
  done
}

# start_sharded_pgrange POOL LOG_LEVEL LOG [EXTRA]: pgrange with WORKERS workers over s1, s2 and
# s3 (metadata on s1) on a free port, the TOML text EXTRA appended to its configuration; sets
# PGRANGE_PORT and PGRANGE_PID and waits for connections.
start_sharded_pgrange() {
  pick_port PGRANGE_PORT
  {
    # shellcheck disable=SC2153 # WORKERS is the script's setting
    pgrange_toml "$PGRANGE_PORT" "$WORKERS" "$2" "${SERVER_PORT[s1]}" "$1" "s1:${SERVER_PORT[s1]}" \
      "s2:${SERVER_PORT[s2]}" "s3:${SERVER_PORT[s3]}"
    [ -z "${4:-}" ] || printf '%s\n' "$4"
  } >"$TMP/pgrange.toml"
  "$PGRANGE" --config "$TMP/pgrange.toml" >"$3" 2>&1 &
  PGRANGE_PID=$!
  wait_ready pgrange "$PGRANGE_PORT" "$PGRANGE_PID"
}

# build_probe: compile the C program on stdin, a libpq client, to $TMP/probe
build_probe() {
  cat >"$TMP/probe.c"
  cc -O1 -o "$TMP/probe" "$TMP/probe.c" -I"$PQ_INCLUDE" -lpq 2>"$LOG_DIR/probe-build.log" ||
    die "could not build the probe (see $LOG_DIR/probe-build.log)"
}

# ---------------------------------------------------------------- SQL
sql_on() {  # sql_on SERVER SQL...: psql as bench on database bench of a server, unaligned output
  local s=$1
  shift
  local args=() q
  for q in "$@"; do args+=(-c "$q"); done
  psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "${SERVER_PORT[$s]}" -U bench -d bench "${args[@]}"
}

via_pgrange() {  # via_pgrange SQL...: statements through pgrange (PGRANGE_PORT), unaligned output
  local args=() q
  for q in "$@"; do args+=(-c "$q"); done
  psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PGRANGE_PORT" -U bench -d bench "${args[@]}"
}

copy_into_pgrange() {  # copy_into_pgrange TABLE: direct's rows of TABLE into it through pgrange (COPY)
  local t0
  t0=$(date +%s%N)
  sql_on direct "COPY $1 TO STDOUT" |
    psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PGRANGE_PORT" -U bench -d bench \
      -c "COPY $1 FROM STDIN" >"$LOG_DIR/copy-$1.log" 2>&1 ||
    die "COPY $1 FROM STDIN through pgrange failed (see $LOG_DIR/copy-$1.log)"
  echo "  COPY $1 through pgrange: $((($(date +%s%N) - t0) / 1000000)) ms"
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

split_into() {  # split_into TABLE N MAX: SPLIT AT the values that cut keys 1..MAX into N ranges
  local table=$1 n=$2 max=$3 k splits=""
  for ((k = 1; k < n; k++)); do splits+="($((max * k / n + 1))), "; done
  via_pgrange "ALTER TABLE $table SPLIT AT VALUES ${splits%, }" >/dev/null
}

# ---------------------------------------------------------------- a pgrange of a memory benchmark
# (hash_join_compare.sh, sort_spill_compare.sh: the copy of pgrange in TMP, WORKERS threads)
mib() { awk -v k="$1" 'BEGIN {printf "%.0f", k / 1024}'; } # kB → MiB
memory_label() {  # memory_label BYTES|"": "256 MiB (pgrange's default)" or the size in MiB / GiB
  if [ -z "$1" ]; then echo "256 MiB (pgrange's default)"; return; fi
  awk -v b="$1" 'BEGIN {if (b % 1073741824 == 0) printf "%d GiB", b / 1073741824;
    else printf "%.0f MiB", b / 1048576}'
}
PGRANGE_STARTS=0
PGRANGE_LOG=""
# start_pgrange LABEL [QUERY_MEMORY [TEMP_DIRECTORY]]: "$TMP/pgrange" over s1, s2, s3 (metadata on
# s1) on a free port, with query_memory = QUERY_MEMORY (bytes) and temp_directory when given; its
# configuration and log are pgrange-N-LABEL.toml and .log in LOG_DIR. The top-level TOML keys go
# first: after pgrange_toml's [metadata] they would belong to a table.
start_pgrange() {
  PGRANGE_STARTS=$((PGRANGE_STARTS + 1))
  PGRANGE_LOG="$LOG_DIR/pgrange-$PGRANGE_STARTS-$1.log"
  pick_port PGRANGE_PORT
  {
    [ -z "${2:-}" ] || echo "query_memory = $2"
    [ -z "${3:-}" ] || echo "temp_directory = \"$3\""
    pgrange_toml "$PGRANGE_PORT" "$WORKERS" warn "${SERVER_PORT[s1]}" 8 "s1:${SERVER_PORT[s1]}" \
      "s2:${SERVER_PORT[s2]}" "s3:${SERVER_PORT[s3]}"
  } >"${PGRANGE_LOG%.log}.toml"
  "$TMP/pgrange" --config "${PGRANGE_LOG%.log}.toml" >"$PGRANGE_LOG" 2>&1 &
  PGRANGE_PID=$!
  wait_ready pgrange "$PGRANGE_PORT" "$PGRANGE_PID" pgrange
}
stop_pgrange() {
  stop_pid "$PGRANGE_PID" INT
  PGRANGE_PID=""
}
status_kb() {  # status_kb FIELD: VmHWM / VmRSS of pgrange in kB
  awk -v f="$1:" '$1 == f {print $2}' "/proc/$PGRANGE_PID/status"
}

# ---------------------------------------------------------------- figures
proc_ticks() {  # utime+stime of a process (all threads), in clock ticks
  local stat
  stat=$(<"/proc/$1/stat")
  stat=${stat##*) } # drop "pid (comm) "; fields now start at 3 (state)
  # shellcheck disable=SC2086 # split the fields on purpose
  set -- $stat
  echo $((${12} + ${13}))
}

ticks_to_seconds() {  # ticks_to_seconds TICKS: CPU seconds, two decimals
  awk -v t="$1" -v hz="$CLK_TCK" 'BEGIN {printf "%.2f", t / hz}'
}

pgbench_tps() {  # pgbench_tps LOG: the TPS a pgbench log reports (empty if none)
  awk '/^tps = / {print $3; exit}' "$1"
}

pgbench_field() {  # pgbench_field LOG PATTERN: the first number after "PATTERN: " in a pgbench log
  awk -v p="$2" 'index($0, p ": ") == 1 {s = substr($0, length(p) + 3); split(s, w, /[ \/]/); print w[1]; exit}' "$1"
}

median() {  # median of the numbers on stdin
  sort -g | awk '{v[NR] = $1} END {
    if (NR == 0) { print "NA"; exit }
    if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# run_copy TARGET BASE SQL: SQL once as COPY (SQL) TO STDOUT through psql (as user and database
# bench, within QUERY_TIMEOUT seconds; TARGET direct or pgrange), its output to md5sum
# (BASE.md5) and wc -c (BASE.bytes, through a FIFO), stderr to BASE.err (SQLSTATEs shown). Sets
# RUN_MS (psql's whole run, connection included), RUN_MD5, RUN_BYTES; RUN_ERROR is empty when
# psql succeeded, else "SQLSTATE message" (or what else went wrong), RUN_SQLSTATE then the
# SQLSTATE (or empty). Does not die when the query fails: the caller decides.
run_copy() {
  local port=${SERVER_PORT[direct]} t0 wc_pid st fifo="$TMP/bytes.fifo"
  [ "$1" = direct ] || port=$PGRANGE_PORT
  rm -f "$fifo"
  mkfifo "$fifo"
  wc -c <"$fifo" >"$2.bytes" &
  wc_pid=$!
  t0=$(date +%s%N)
  set +e
  timeout -k 10 "$QUERY_TIMEOUT" psql -X -q -v ON_ERROR_STOP=1 -v VERBOSITY=verbose \
    -h 127.0.0.1 -p "$port" -U bench -d bench -c "COPY ($3) TO STDOUT" 2>"$2.err" |
    tee "$fifo" | md5sum >"$2.md5"
  st=("${PIPESTATUS[@]}")
  set -e
  RUN_MS=$((($(date +%s%N) - t0) / 1000000))
  wait "$wc_pid" || true
  if [ "${st[1]}" != 0 ] || [ "${st[2]}" != 0 ]; then die "tee or md5sum failed for $2 (${st[*]})"; fi
  RUN_MD5=$(cut -d' ' -f1 "$2.md5")
  RUN_BYTES=$(<"$2.bytes")
  RUN_ERROR=""
  RUN_SQLSTATE=""
  if [ "${st[0]}" != 0 ]; then
    if [ "${st[0]}" = 124 ] || [ "${st[0]}" = 137 ]; then
      RUN_ERROR="timeout after $QUERY_TIMEOUT s"
    else
      RUN_ERROR=$(sed -nE 's/^(ERROR|FATAL): +([0-9A-Z]{5}): (.*)/\2 \3/p' "$2.err" | head -n 1)
      if [ -n "$RUN_ERROR" ]; then
        RUN_SQLSTATE=${RUN_ERROR%% *}
      else
        RUN_ERROR=$(grep -m 1 . "$2.err" || echo "psql exit status ${st[0]}")
      fi
    fi
  fi
}

# ms_or_error TARGET BASE: dies with RUN_ERROR (of run_copy) when it is set
ms_or_error() {
  [ -n "$RUN_ERROR" ] || return 0
  local e=$RUN_ERROR
  [ "$1" = direct ] || kill -0 "$PGRANGE_PID" 2>/dev/null || e+="; pgrange exited (see $PGRANGE_LOG)"
  die "$1 failed the query after $RUN_MS ms: $e (see $2.err)"
}
