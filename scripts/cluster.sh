#!/usr/bin/env bash
# Local development cluster: three PostgreSQL 15 shards and pgrange in front of them.
#
#   scripts/cluster.sh start     install deps (as root), build pgrange, start shards + proxy
#   scripts/cluster.sh stop      stop pgrange and the shards (data is kept)
#   scripts/cluster.sh status    show what runs
#   scripts/cluster.sh destroy   stop everything and delete .state/
#   scripts/cluster.sh restart   stop, then start
#
# State (data directories, logs, pids, the generated pgrange.toml) lives in .state/.
# Environment:
#   PGRANGE_SHARD_PORTS="p1 p2 p3"  shard ports (default "55432 55433 55434")
#   PGRANGE_PROXY_PORT=N            pgrange port (default 6432)
#   PGRANGE_HTTP_PORT=N             pgrange's metrics and key space page (default 9930)
#   PGRANGE_PG_BINDIR=DIR           PostgreSQL binaries (default /usr/lib/postgresql/15/bin)
#   PGRANGE_SKIP_BUILD=1            do not run install-deps.sh / build.sh (use the existing binary)
#   PGRANGE_PROXY_WAIT=SECONDS      how long to wait for pgrange to accept connections (30)
#   PGRANGE_BIN=PATH                pgrange binary (default build/proxy/pgrange)
#   PGRANGE_CONFIG_EXTRA=FILE       settings appended to the generated pgrange.toml ([[table]] …)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
STATE="$ROOT/.state"
PG_BIN=${PGRANGE_PG_BINDIR:-/usr/lib/postgresql/15/bin}
# Ports given through the environment are remembered in .state/ports for later commands.
SAVED_SHARD_PORTS="" SAVED_PROXY_PORT=""
if [ -r "$STATE/ports" ]; then
  SAVED_SHARD_PORTS=$(sed -n 's/^shards=//p' "$STATE/ports")
  SAVED_PROXY_PORT=$(sed -n 's/^proxy=//p' "$STATE/ports")
fi
read -r -a SHARD_PORTS <<<"${PGRANGE_SHARD_PORTS:-${SAVED_SHARD_PORTS:-55432 55433 55434}}"
PROXY_PORT=${PGRANGE_PROXY_PORT:-${SAVED_PROXY_PORT:-6432}}
PROXY_WAIT=${PGRANGE_PROXY_WAIT:-30}
HTTP_PORT=${PGRANGE_HTTP_PORT:-9930}
PGRANGE_BIN=${PGRANGE_BIN:-"$ROOT/build/proxy/pgrange"}
NSHARDS=3

log() { echo "cluster: $*"; }
die() {
  echo "cluster: error: $*" >&2
  exit 1
}

is_root() { [ "$(id -u)" -eq 0 ]; }

# Runs a command as the postgres system user when we are root (PostgreSQL refuses root),
# from /tmp so that user can read its working directory.
as_pg() {
  if is_root; then
    (cd /tmp && setpriv --reuid=postgres --regid=postgres --init-groups -- env HOME=/tmp "$@")
  else
    (cd /tmp && "$@")
  fi
}

# True if pid runs and is not a zombie (PID 1 may reap our detached children late).
alive() {
  local pid=$1 state
  [ -n "$pid" ] && [ -r "/proc/$pid/stat" ] || return 1
  state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

# True if pid is alive and its command line contains the given word (guards against pid reuse).
alive_as() {
  local pid=$1 word=$2
  alive "$pid" && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$word"
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

shard_dir() { echo "$DATA_ROOT/shard$1"; }
shard_port() { echo "${SHARD_PORTS[$(($1 - 1))]}"; }

# Postmaster pid of shard i if it runs ("" otherwise), from the server's own postmaster.pid.
shard_pid() {
  local pidfile
  pidfile="$(shard_dir "$1")/data/postmaster.pid"
  [ -r "$pidfile" ] || return 0
  local pid
  pid=$(head -n 1 "$pidfile" 2>/dev/null || true)
  if alive_as "$pid" postgres; then echo "$pid"; fi
}

proxy_pid() {
  [ -r "$STATE/pgrange.pid" ] || return 0
  local pid
  pid=$(cat "$STATE/pgrange.pid")
  if alive_as "$pid" pgrange; then echo "$pid"; fi
}

# Data directories must be reachable by the postgres user; if the checkout is somewhere it cannot
# enter (e.g. /root), keep them under /var/lib/pgrange-dev/ and link them from .state/.
resolve_data_root() {
  DATA_ROOT="$STATE/shards"
  if [ -L "$DATA_ROOT" ]; then
    DATA_ROOT=$(readlink -f "$DATA_ROOT")
    return
  fi
  [ "${1:-}" = create ] || return 0
  mkdir -p "$STATE"
  if is_root && ! as_pg test -x "$STATE"; then
    local ext
    ext="/var/lib/pgrange-dev/$(echo "$ROOT" | sha1sum | cut -c1-12)"
    mkdir -p "$ext"
    chown postgres: "$ext" /var/lib/pgrange-dev 2>/dev/null || true
    chmod 755 /var/lib/pgrange-dev
    ln -sfn "$ext" "$STATE/shards"
    DATA_ROOT="$ext"
    log "postgres cannot enter $STATE; shard data lives in $ext (linked as .state/shards)"
  fi
  mkdir -p "$DATA_ROOT"
  if is_root; then chown postgres: "$DATA_ROOT"; fi
}

check_config() {
  [ ${#SHARD_PORTS[@]} -eq $NSHARDS ] || die "PGRANGE_SHARD_PORTS needs $NSHARDS ports, got '${SHARD_PORTS[*]}'"
  [ -x "$PG_BIN/postgres" ] || die "no PostgreSQL 15 in $PG_BIN (run scripts/install-deps.sh)"
  if is_root && ! id postgres >/dev/null 2>&1; then
    die "no 'postgres' system user (run scripts/install-deps.sh)"
  fi
}

init_shard() {
  local i=$1 dir data
  dir=$(shard_dir "$i")
  data="$dir/data"
  [ -f "$data/PG_VERSION" ] && return 0
  log "shard s$i: initdb $data"
  rm -rf "$dir"
  mkdir -p "$dir"
  if is_root; then chown postgres: "$dir"; fi
  as_pg "$PG_BIN/initdb" -D "$data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 \
    --no-instructions >"$dir/initdb.log" 2>&1 ||
    {
      cat "$dir/initdb.log" >&2
      die "initdb failed for shard s$i"
    }
  # Settings are regenerated on each start (ports may change); postgresql.conf includes them.
  echo "include_if_exists = 'pgrange_cluster.conf'" | as_pg tee -a "$data/postgresql.conf" >/dev/null
}

write_shard_conf() {
  local i=$1 data
  data="$(shard_dir "$i")/data"
  # Like the test servers, but durable: fsync and full_page_writes stay on (a crash must not
  # corrupt a developer's data); synchronous_commit=off only risks the last few commits.
  as_pg tee "$data/pgrange_cluster.conf" >/dev/null <<EOF
# generated by scripts/cluster.sh on each start
listen_addresses = '127.0.0.1'
port = $(shard_port "$i")
unix_socket_directories = '$data'
max_connections = 200
max_prepared_transactions = 100
wal_level = logical
synchronous_commit = off
logging_collector = off
EOF
}

start_shard() {
  local i=$1 dir data port pid
  dir=$(shard_dir "$i")
  data="$dir/data"
  port=$(shard_port "$i")
  pid=$(shard_pid "$i")
  if [ -n "$pid" ]; then
    local actual
    actual=$(sed -n 4p "$data/postmaster.pid")
    if [ -n "$actual" ] && [ "$actual" != "$port" ]; then
      log "shard s$i runs on port $actual, not $port; using $actual (stop the cluster to change ports)"
      port=$actual
      SHARD_PORTS[i - 1]=$actual
    fi
    log "shard s$i already running (pid $pid, port $port)"
    echo "$pid" >"$dir/postgres.pid"
    return 0
  fi
  port_in_use "$port" && die "port $port (shard s$i) is in use by another program; set PGRANGE_SHARD_PORTS"
  write_shard_conf "$i"
  # A direct background child, detached (own session, immune to hangup) so it outlives us.
  if is_root; then
    (cd /tmp && exec setsid nohup setpriv --reuid=postgres --regid=postgres --init-groups -- \
      env HOME=/tmp "$PG_BIN/postgres" -D "$data" >>"$dir/postgres.log" 2>&1 </dev/null) &
  else
    (cd /tmp && exec setsid nohup "$PG_BIN/postgres" -D "$data" >>"$dir/postgres.log" 2>&1 </dev/null) &
  fi
  local child=$! waited=0
  until "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$port" -t 1; do
    if ! alive "$child"; then
      tail -n 30 "$dir/postgres.log" >&2
      die "shard s$i (port $port) failed to start; log: $dir/postgres.log"
    fi
    waited=$((waited + 1))
    if [ $waited -gt 600 ]; then
      tail -n 30 "$dir/postgres.log" >&2
      die "shard s$i (port $port) not ready after 60 s; log: $dir/postgres.log"
    fi
    sleep 0.1
  done
  pid=$(shard_pid "$i")
  echo "$pid" >"$dir/postgres.pid"
  log "shard s$i started (pid $pid, port $port)"
}

psql_shard() {
  local port=$1 db=$2
  shift 2
  "$PG_BIN/psql" -X -A -t -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d "$db" "$@"
}

ensure_database() {
  local port=$1 db=$2 owner=${3:-postgres}
  if [ -z "$(psql_shard "$port" postgres -c "select 1 from pg_database where datname = '$db'")" ]; then
    psql_shard "$port" postgres -c "create database $db owner $owner"
    log "created database $db (owner $owner) on port $port"
  fi
}

# The application role: no superuser. It logs in to the shards as itself through pgrange and owns
# the database, so what it makes is its own; pgrange's own connections log in as postgres.
ensure_app_role() {
  local port=$1
  if [ -z "$(psql_shard "$port" postgres -c "select 1 from pg_roles where rolname = 'app'")" ]; then
    psql_shard "$port" postgres -c "create role app login password 'secret'"
    log "created role app on port $port"
  fi
  local owner
  owner=$(psql_shard "$port" postgres -c "select pg_get_userbyid(datdba) from pg_database where datname = 'app'")
  if [ -n "$owner" ] && [ "$owner" != app ]; then
    log "database app on port $port belongs to $owner, made by an older cluster.sh: tables made" \
      "before belong to it too (scripts/cluster.sh destroy starts afresh)"
  fi
}

write_proxy_config() {
  local p1 p2 p3
  p1=$(shard_port 1)
  p2=$(shard_port 2)
  p3=$(shard_port 3)
  cat >"$STATE/pgrange.toml" <<EOF
# generated by scripts/cluster.sh on each start (edits are overwritten)
listen = "127.0.0.1:$PROXY_PORT"
database = "app"
pool_mode = "transaction"
workers = 0
log_level = "info"
# Statements that take a second or more are logged with their route.
slow_statement_ms = 1000
# pgrange's own connections (its index tables, range moves, recovery).
internal_user = "postgres"
# /metrics (Prometheus), /healthz and the key space drawn at http://127.0.0.1:$HTTP_PORT/
[http]
listen = "127.0.0.1:$HTTP_PORT"
[metadata]
dsn = "host=127.0.0.1 port=$p1 dbname=pgrange_meta"
# No user= in the shard DSNs: each client logs in to the shards as its own role.
[[shard]]
name = "s1"
dsn  = "host=127.0.0.1 port=$p1 dbname=app"
pool_size = 20
[[shard]]
name = "s2"
dsn  = "host=127.0.0.1 port=$p2 dbname=app"
pool_size = 20
[[shard]]
name = "s3"
dsn  = "host=127.0.0.1 port=$p3 dbname=app"
pool_size = 20
# The application's user: the shards' role app, no superuser.
[[user]]
name = "app"
password = "secret"
auth = "scram-sha-256"
# The operator's: runs SPLIT AT, RELOCATE, IMPORT TABLE, … and acts on the shards as app.
[[user]]
name = "admin"
password = "secret"
auth = "scram-sha-256"
admin = true
server_user = "app"
server_password = "secret"
EOF
  # More settings (say [[table]] entries) from a file of the user's: PGRANGE_CONFIG_EXTRA=path.
  if [ -n "${PGRANGE_CONFIG_EXTRA:-}" ]; then
    cat "$PGRANGE_CONFIG_EXTRA" >>"$STATE/pgrange.toml"
  fi
}

stop_proxy_pid() {
  local pid=$1 waited=0
  kill -TERM "$pid" 2>/dev/null || true
  while alive "$pid"; do
    waited=$((waited + 1))
    if [ $waited -eq 100 ]; then
      log "pgrange (pid $pid) ignores SIGTERM for 10 s; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    sleep 0.1
  done
}

show_proxy_log() {
  if [ -s "$STATE/pgrange.log" ]; then
    echo "---- tail of $STATE/pgrange.log" >&2
    tail -n 30 "$STATE/pgrange.log" >&2
    echo "----" >&2
  else
    echo "(pgrange wrote nothing to $STATE/pgrange.log)" >&2
  fi
}

start_proxy() {
  local pid
  pid=$(proxy_pid)
  if [ -n "$pid" ]; then
    log "pgrange already running (pid $pid, port $PROXY_PORT)"
    return 0
  fi
  [ -x "$PGRANGE_BIN" ] || die "$PGRANGE_BIN not found (build failed?)"
  port_in_use "$PROXY_PORT" && die "port $PROXY_PORT is in use by another program; set PGRANGE_PROXY_PORT"
  (exec setsid nohup "$PGRANGE_BIN" --config "$STATE/pgrange.toml" >>"$STATE/pgrange.log" 2>&1 </dev/null) &
  pid=$!
  echo "$pid" >"$STATE/pgrange.pid"
  local waited=0
  until "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PROXY_PORT" -t 1; do
    if ! alive "$pid"; then
      rm -f "$STATE/pgrange.pid"
      show_proxy_log
      die "pgrange exited during startup (the shards keep running; 'scripts/cluster.sh stop' stops them)"
    fi
    waited=$((waited + 1))
    if [ $waited -ge $((PROXY_WAIT * 10)) ]; then
      stop_proxy_pid "$pid"
      rm -f "$STATE/pgrange.pid"
      show_proxy_log
      die "pgrange did not accept connections on 127.0.0.1:$PROXY_PORT within ${PROXY_WAIT} s; stopped it"
    fi
    sleep 0.1
  done
  log "pgrange started (pid $pid, port $PROXY_PORT)"
}

cmd_start() {
  check_config
  if [ "${PGRANGE_SKIP_BUILD:-0}" != 1 ]; then
    if is_root; then scripts/install-deps.sh; fi
    log "building pgrange"
    scripts/build.sh --target pgrange
  fi
  resolve_data_root create
  for i in 1 2 3; do init_shard "$i"; done
  for i in 1 2 3; do start_shard "$i"; done
  printf 'shards=%s\nproxy=%s\n' "${SHARD_PORTS[*]}" "$PROXY_PORT" >"$STATE/ports"
  for i in 1 2 3; do
    ensure_app_role "$(shard_port "$i")"
    ensure_database "$(shard_port "$i")" app app
  done
  ensure_database "$(shard_port 1)" pgrange_meta
  write_proxy_config
  start_proxy
  echo
  echo "Connect with:"
  echo "  psql \"host=127.0.0.1 port=$PROXY_PORT dbname=app user=app password=secret\"    (the application)"
  echo "  psql \"host=127.0.0.1 port=$PROXY_PORT dbname=app user=admin password=secret\"  (SPLIT AT, RELOCATE, …)"
  echo "  http://127.0.0.1:$HTTP_PORT/  (the key space drawn; /metrics for Prometheus, /healthz)"
}

stop_shard() {
  local i=$1 dir pid waited=0
  dir=$(shard_dir "$i")
  pid=$(shard_pid "$i")
  rm -f "$dir/postgres.pid"
  [ -n "$pid" ] || return 0
  kill -INT "$pid" 2>/dev/null || true # fast shutdown
  while alive "$pid" || [ -e "$dir/data/postmaster.pid" ]; do
    waited=$((waited + 1))
    if [ $waited -eq 600 ]; then
      log "shard s$i (pid $pid) still up after 60 s; immediate shutdown"
      kill -QUIT "$pid" 2>/dev/null || true
    fi
    if [ $waited -gt 900 ]; then
      die "shard s$i (pid $pid) does not stop"
    fi
    if ! alive "$pid" && [ $waited -gt 50 ]; then break; fi # killed hard: stale postmaster.pid
    sleep 0.1
  done
  log "shard s$i stopped"
}

cmd_stop() {
  local pid
  pid=$(proxy_pid)
  if [ -n "$pid" ]; then
    stop_proxy_pid "$pid"
    log "pgrange stopped"
  fi
  rm -f "$STATE/pgrange.pid"
  resolve_data_root
  if [ -d "$DATA_ROOT" ]; then
    for i in 1 2 3; do stop_shard "$i"; done
  fi
}

cmd_status() {
  resolve_data_root
  if [ ! -d "$STATE" ]; then
    echo "no cluster (run: scripts/cluster.sh start)"
    return 0
  fi
  local i pid port all=0
  for i in 1 2 3; do
    port=$(shard_port "$i")
    pid=$(shard_pid "$i")
    if [ -n "$pid" ]; then
      port=$(sed -n 4p "$(shard_dir "$i")/data/postmaster.pid")
      echo "shard s$i   running  pid $pid  port $port  data $(shard_dir "$i")/data"
    elif [ -f "$(shard_dir "$i")/data/PG_VERSION" ]; then
      echo "shard s$i   stopped  port $port"
      all=1
    else
      echo "shard s$i   not initialised"
      all=1
    fi
  done
  pid=$(proxy_pid)
  if [ -n "$pid" ]; then
    if "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PROXY_PORT" -t 2; then
      echo "pgrange    running  pid $pid  port $PROXY_PORT  (accepting connections)"
    else
      echo "pgrange    running  pid $pid  port $PROXY_PORT  (NOT accepting connections)"
      all=1
    fi
  else
    echo "pgrange    stopped"
    all=1
  fi
  return $all
}

cmd_destroy() {
  cmd_stop
  resolve_data_root
  if [ -L "$STATE/shards" ]; then rm -rf "$(readlink -f "$STATE/shards")"; fi
  rm -rf "$STATE"
  log "removed $STATE"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  destroy) cmd_destroy ;;
  restart)
    cmd_stop
    cmd_start
    ;;
  *)
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
    exit 2
    ;;
esac
