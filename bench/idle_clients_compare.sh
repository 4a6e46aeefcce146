#!/usr/bin/env bash
# What an idle client costs in memory (a benchmark, not a test): pgrange against PgBouncer, in
# front of one PostgreSQL, in the same run. For each proxy in turn, started afresh every round:
#   1. one warm-up client logs in (SCRAM-SHA-256), runs SELECT 1 and leaves; then the proxy's
#      VmRSS (/proc/PID/status: the whole process, all threads) after SETTLE seconds: "before";
#   2. CLIENTS libpq clients log in (SCRAM-SHA-256), each runs SELECT 1 and then stays connected
#      doing nothing; VmRSS after SETTLE seconds: "after";
#   3. the clients run SELECT 1 once more (every one must still be connected) and leave; VmRSS
#      after SETTLE seconds: "left" (what the proxy kept of them).
# Prints (after - before) / CLIENTS in KiB per client and the totals in MiB per round, the
# medians over ROUNDS rounds (pgrange and PgBouncer interleaved: pgrange, PgBouncer, pgrange, …)
# and the ratio pgrange/PgBouncer of KiB per client (of the medians, and per round).
#
# Both proxies pool in transaction mode over a few server connections (20 at most each), so
# PostgreSQL never sees the clients; both check the same plaintext password by SCRAM-SHA-256
# (pgrange's [[user]] auth, PgBouncer's auth_type; PgBouncer 1.18 does SCRAM against a plaintext
# userlist) and reach PostgreSQL as bench with trust. pgrange runs with one shard (pass-through)
# and log_level warn; PgBouncer with log_connections and log_disconnections off, so that neither
# writes a line per login. RSS counts what the proxy's own pages hold, not the kernel's socket
# buffers.
#
# The clients are one C program on libpq (built with cc at the start), which opens them BATCH at
# a time with PQconnectStart / PQconnectPoll. It needs CLIENTS + slack file descriptors, and so
# does each proxy (they inherit the script's ulimit -n, raised before anything starts).
#
# It starts its own PostgreSQL (fsync=off, full_page_writes=off, synchronous_commit=off), pgrange
# and PgBouncer on free ports in 20000-32000 and removes them on exit.
#
# Usage: bench/idle_clients_compare.sh
# Settings (environment):
#   CLIENTS=10000             idle clients held open against each proxy per round
#   ROUNDS=3                  rounds; each starts every proxy afresh, pgrange first
#   WORKERS="1"               pgrange worker counts, each its own target; 0 is pgrange's default
#                             (one per core), e.g. WORKERS="1 0"
#   BATCH=200                 clients connecting at once
#   SETTLE=3                  seconds between the last login (or logout) and reading VmRSS
#   CONNECT_TIMEOUT=600       seconds the CLIENTS logins may take against one proxy
#   SKIP_BUILD=1              do not run scripts/build.sh --target pgrange first
#   LOG_DIR=DIR               where server, proxy and client logs go
#                             (default /tmp/idle_clients_compare-logs.<time>)
#   PGBIN=DIR                 PostgreSQL server binaries (default: pg_config --bindir)
#   PGBOUNCER=/usr/sbin/pgbouncer   PGRANGE=build/proxy/pgrange
set -euo pipefail
. "$(dirname "$0")/lib.sh"

CLIENTS=${CLIENTS:-10000}
ROUNDS=${ROUNDS:-3}
WORKERS=${WORKERS:-1}
BATCH=${BATCH:-200}
SETTLE=${SETTLE:-3}
CONNECT_TIMEOUT=${CONNECT_TIMEOUT:-600}
SKIP_BUILD=${SKIP_BUILD:-0}
LOG_DIR=${LOG_DIR:-/tmp/idle_clients_compare-logs.$(date -u +%Y%m%dT%H%M%SZ)}
PGRANGE=${PGRANGE:-$REPO/build/proxy/pgrange}
[[ $PGRANGE == /* ]] || PGRANGE="$PWD/$PGRANGE" # bench_setup changes to /tmp before the copy

require_counts CLIENTS ROUNDS BATCH SETTLE CONNECT_TIMEOUT
if [ "$CLIENTS" -lt 1 ] || [ "$ROUNDS" -lt 1 ] || [ "$BATCH" -lt 1 ] || [ "$CONNECT_TIMEOUT" -lt 1 ]; then
  die "CLIENTS, ROUNDS, BATCH and CONNECT_TIMEOUT must be at least 1"
fi
read -r -a WORKER_LIST <<<"$WORKERS"
[ "${#WORKER_LIST[@]}" -gt 0 ] || die "WORKERS lists no worker count"
for w in "${WORKER_LIST[@]}"; do
  [[ $w =~ ^[0-9]+$ ]] || die "WORKERS must list non-negative integers (got \"$w\")"
done
require_environment psql pg_isready setpriv getconf ss awk cc mkfifo
require_libpq
[ -x "$PGBOUNCER" ] || die "no PgBouncer at $PGBOUNCER"

# Every client is a socket in the probe and one in the proxy; the proxies and the probe are our
# children, so they get this limit. The slack covers server connections, logs and libraries.
NOFILE=$((CLIENTS + 1024))
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$NOFILE" ]; then
  ulimit -n "$NOFILE" 2>/dev/null ||
    die "cannot raise ulimit -n to $NOFILE (hard limit $(ulimit -Hn)); lower CLIENTS or raise the hard limit"
fi
USER_AUTH=scram-sha-256 # pgrange_toml's [[user]] auth (lib.sh)
MAX_CLIENTS=$((CLIENTS + 100)) # both proxies' max_client_conn: the clients, the warm-up, pg_isready
POOL=20                        # pgrange's pool_size, as PgBouncer's default_pool_size in lib.sh

# ---------------------------------------------------------------- header
echo "== memory per idle client: pgrange against PgBouncer (SCRAM-SHA-256 logins, transaction pooling)"
echo "command: CLIENTS=$CLIENTS ROUNDS=$ROUNDS WORKERS=\"$WORKERS\" BATCH=$BATCH SETTLE=$SETTLE" \
  "CONNECT_TIMEOUT=$CONNECT_TIMEOUT SKIP_BUILD=$SKIP_BUILD $0 $*"
print_date_machine
echo "versions: $("$PGBIN/postgres" --version), $("$PGBOUNCER" --version 2>&1 | head -n1)"
echo "server:  fsync=off full_page_writes=off synchronous_commit=off (not durable; no writes here)"
echo "clients: $CLIENTS per proxy per round, $BATCH connecting at once, ulimit -n $(ulimit -n);" \
  "VmRSS read ${SETTLE}s after the last login"
echo "logs:    $LOG_DIR"

begin_run # build (unless SKIP_BUILD=1), the pgrange: line, bench_setup, $TMP/pgrange (lib.sh)

PROBE_PID=""
# The clients would end when the script's end closes their stdin; SIGTERM also stops them while
# they are still logging in.
stop_probe_then_cleanup() {
  local rc=$?
  set +e # (exit) only hands cleanup the status
  stop_pid "$PROBE_PID" TERM
  (exit "$rc")
  cleanup
}
trap stop_probe_then_cleanup EXIT

# ---------------------------------------------------------------- PostgreSQL
pick_port PG_PORT
DATA="$TMP/data"
"${AS_POSTGRES[@]}" "$PGBIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 \
  >"$LOG_DIR/initdb.log" 2>&1 || die "initdb failed (see $LOG_DIR/initdb.log)"
# One proxy runs at a time: its pool (20), pgrange's metadata and control connections, psql, slack.
postgres_conf "$DATA" "$PG_PORT" 100 128MB
start_postgres pg "$DATA" "$LOG_DIR/postgres.log"
wait_ready PostgreSQL "$PG_PORT" "${SERVER_PID[pg]}" postgres
psql_pg() {
  psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres "$@"
}
psql_pg -c "CREATE ROLE bench LOGIN PASSWORD 'bench'" -c "CREATE DATABASE bench OWNER bench" \
  -c "CREATE DATABASE pgrange_meta OWNER bench"

# ---------------------------------------------------------------- the clients
# probe CONNINFO N BATCH: N connections, BATCH logging in at once; each runs SELECT 1. Then
# "ready N in MS ms" on stdout, and it waits until stdin closes (or SIGTERM): then SELECT 1 again
# on every connection, "still connected N", and it leaves. Any failure: a line on stderr, exit 1.
# probe --libpq: libpq's version. probe --auth PORT: the authentication request a login to
# 127.0.0.1:PORT as bench gets, "R CODE [MECHANISMS]" (10 is SASL; libpq before 16 cannot be told
# to refuse md5, so this is how the script knows both proxies ask for SCRAM).
build_probe <<'EOF'
#include <arpa/inet.h>
#include <errno.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int read_full(int s, char* p, size_t n) {
  while (n > 0) {
    ssize_t r = read(s, p, n);
    if (r <= 0) return -1;
    p += r;
    n -= (size_t)r;
  }
  return 0;
}

static int auth_request(int port) {
  static const char params[] = "user\0bench\0database\0bench\0"; /* its own NUL ends the list */
  char msg[8 + sizeof params], body[1024], head[5];
  uint32_t v = htonl(sizeof msg), len;
  memcpy(msg, &v, 4);
  v = htonl(196608); /* protocol 3.0 */
  memcpy(msg + 4, &v, 4);
  memcpy(msg + 8, params, sizeof params);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s < 0 || connect(s, (struct sockaddr*)&a, sizeof a) != 0 || write(s, msg, sizeof msg) != (ssize_t)sizeof msg ||
      read_full(s, head, 5) != 0) {
    perror("auth request");
    return 1;
  }
  memcpy(&len, head + 1, 4);
  len = ntohl(len);
  if (len < 8 || len - 4 > sizeof body || read_full(s, body, len - 4) != 0) {
    fprintf(stderr, "auth request: a message of type %c and length %u\n", head[0], len);
    return 1;
  }
  memcpy(&v, body, 4);
  printf("%c %u", head[0], head[0] == 'R' ? ntohl(v) : 0);
  if (head[0] == 'R' && ntohl(v) == 10) /* SASL: the mechanisms, each NUL-terminated */
    for (size_t i = 4; i < len - 4 && body[i]; i += strlen(body + i) + 1) printf(" %s", body + i);
  printf("\n");
  close(s);
  return 0;
}

static volatile sig_atomic_t stop;
static void on_term(int sig) { (void)sig; stop = 1; }

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void fail(int i, const char* what, PGconn* c) {
  fprintf(stderr, "client %d: %s failed: %s", i + 1, what, c ? PQerrorMessage(c) : "out of memory\n");
  exit(1);
}

/* SELECT 1 on conns[first..first+m), sent to all of them before any answer is read */
static void select_1(PGconn** conns, int first, int m) {
  for (int j = first; j < first + m; j++)
    if (!PQsendQuery(conns[j], "SELECT 1")) fail(j, "sending SELECT 1", conns[j]);
  for (int j = first; j < first + m; j++) {
    PGresult* r = PQgetResult(conns[j]);
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1 || strcmp(PQgetvalue(r, 0, 0), "1") != 0)
      fail(j, "SELECT 1", conns[j]);
    PQclear(r);
    while ((r = PQgetResult(conns[j])) != NULL) PQclear(r);
  }
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "--libpq") == 0) {
    printf("%d\n", PQlibVersion());
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "--auth") == 0) return auth_request(atoi(argv[2]));
  if (argc != 4) {
    fprintf(stderr, "usage: probe CONNINFO N BATCH\n");
    return 2;
  }
  int n = atoi(argv[2]), batch = atoi(argv[3]);
  if (n < 1 || batch < 1) return 2;
  char conninfo[1024];
  /* libpq 16 and later can refuse a login that is not SCRAM; older ones take what comes */
  snprintf(conninfo, sizeof conninfo, "%s%s", argv[1],
           PQlibVersion() >= 160000 ? " require_auth=scram-sha-256" : "");
  PGconn** conns = calloc(n, sizeof *conns);
  struct pollfd* fds = calloc(batch, sizeof *fds);
  int* idx = calloc(batch, sizeof *idx);
  PostgresPollingStatusType* st = calloc(batch, sizeof *st);
  if (!conns || !fds || !idx || !st) fail(0, "calloc", NULL);

  double t0 = now_ms();
  for (int first = 0; first < n; first += batch) {
    int m = n - first < batch ? n - first : batch;
    for (int j = 0; j < m; j++) {
      PGconn* c = PQconnectStart(conninfo);
      conns[first + j] = c;
      if (!c || PQstatus(c) == CONNECTION_BAD) fail(first + j, "connect", c);
      st[j] = PGRES_POLLING_WRITING; /* as libpq's documentation says to begin */
    }
    for (int pending = m; pending > 0;) {
      int k = 0;
      for (int j = 0; j < m; j++) {
        if (st[j] == PGRES_POLLING_OK) continue;
        fds[k].fd = PQsocket(conns[first + j]); /* may change while libpq tries addresses */
        fds[k].events = st[j] == PGRES_POLLING_READING ? POLLIN : POLLOUT;
        fds[k].revents = 0;
        idx[k++] = j;
      }
      int r = poll(fds, k, 60000);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        fprintf(stderr, "clients %d to %d: %d logins made no progress for 60 s\n", first + 1, first + m, pending);
        exit(1);
      }
      for (int q = 0; q < k; q++) {
        if (!fds[q].revents) continue;
        int j = idx[q];
        st[j] = PQconnectPoll(conns[first + j]);
        if (st[j] == PGRES_POLLING_FAILED) fail(first + j, "login", conns[first + j]);
        if (st[j] == PGRES_POLLING_OK) pending--;
      }
    }
    select_1(conns, first, m);
  }
  printf("ready %d in %.0f ms\n", n, now_ms() - t0);
  fflush(stdout);

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_term; /* no SA_RESTART: read returns on SIGTERM */
  sigaction(SIGTERM, &sa, NULL);
  char buf[256];
  while (!stop) {
    ssize_t r = read(0, buf, sizeof buf);
    if (r == 0 || (r < 0 && errno != EINTR)) break;
  }
  if (stop) return 0; /* stopped from outside: no check */
  for (int first = 0; first < n; first += batch) select_1(conns, first, n - first < batch ? n - first : batch);
  printf("still connected %d\n", n);
  for (int i = 0; i < n; i++) PQfinish(conns[i]);
  return 0;
}
EOF

LIBPQ=$("$TMP/probe" --libpq)
echo "libpq:   $LIBPQ; $( [ "$LIBPQ" -ge 160000 ] && echo "require_auth=scram-sha-256" ||
  echo "each proxy's authentication request checked for SCRAM-SHA-256 after its start")"

conninfo() {  # conninfo PORT: what every client connects with
  echo "hostaddr=127.0.0.1 port=$1 dbname=bench user=bench password=bench sslmode=disable" \
    "gssencmode=disable connect_timeout=60 application_name=idle_client"
}

rss_kb() { awk '$1 == "VmRSS:" {print $2}' "/proc/$1/status"; }

# open_clients PORT OUT: CLIENTS clients through the proxy on PORT, held until close_clients;
# their stdin is a FIFO whose writer is the script's fd 7. Sets CONNECT_MS.
open_clients() {
  local port=$1 out=$2 i
  rm -f "$TMP/hold"
  mkfifo "$TMP/hold"
  "$TMP/probe" "$(conninfo "$port")" "$CLIENTS" "$BATCH" <"$TMP/hold" >"$out" 2>"${out%.out}.err" &
  PROBE_PID=$!
  exec 7>"$TMP/hold"
  for ((i = 0; ; i++)); do
    grep -q '^ready ' "$out" && break
    if ! kill -0 "$PROBE_PID" 2>/dev/null; then
      wait "$PROBE_PID" || true
      PROBE_PID=""
      die "the clients failed against port $port: $(head -n 3 "${out%.out}.err")"
    fi
    [ "$i" -lt $((CONNECT_TIMEOUT * 10)) ] ||
      die "$CLIENTS clients not connected within ${CONNECT_TIMEOUT}s (see $out)"
    sleep 0.1
  done
  CONNECT_MS=$(awk '$1 == "ready" {print $4}' "$out")
}

close_clients() {  # close_clients OUT: the clients check they are still connected, then leave
  exec 7>&-
  if ! wait "$PROBE_PID"; then
    PROBE_PID=""
    die "the clients failed at the end: $(head -n 3 "${1%.out}.err")"
  fi
  PROBE_PID=""
  grep -q "^still connected $CLIENTS\$" "$1" || die "the clients did not all stay connected (see $1)"
}

warm_up() {  # warm_up PORT OUT: one client logs in, runs SELECT 1 and leaves
  "$TMP/probe" "$(conninfo "$1")" 1 1 </dev/null >"$2" 2>"${2%.out}.err" ||
    die "the warm-up client failed: $(head -n 3 "${2%.out}.err")"
}

require_scram() {  # require_scram PORT NAME: the proxy on PORT must ask bench for SCRAM-SHA-256
  local answer
  answer=$("$TMP/probe" --auth "$1" 2>&1) || die "$2 did not answer a login: $answer"
  [[ $answer == "R 10 "* && " $answer " == *" SCRAM-SHA-256 "* ]] ||
    die "$2 does not ask for SCRAM-SHA-256 (its authentication request: $answer)"
}

server_connections() {  # sessions on database bench of the server (the proxy's pool)
  psql_pg -c "SELECT count(*) FROM pg_stat_activity WHERE datname = 'bench'"
}

# ---------------------------------------------------------------- the proxies
# start_proxy TARGET ROUND: a fresh pgrange_wW or pgbouncer; sets PORT and PID.
start_proxy() {
  local t=$1 round=$2 w cfg
  if [ "$t" = pgbouncer ]; then
    # PgBouncer listens with a backlog of 128 by default, pgrange with SOMAXCONN: a batch of
    # logins past 128 would wait for SYN retries at PgBouncer only.
    start_pgbouncer "r$round" transaction "$PG_PORT" "$MAX_CLIENTS" scram-sha-256 \
      "listen_backlog = 4096" "log_connections = 0" "log_disconnections = 0"
    PORT=$PGBOUNCER_PORT
    PID=$PGBOUNCER_PID
    require_scram "$PORT" PgBouncer
    return
  fi
  w=${t#pgrange_w}
  pick_port PORT
  cfg="$LOG_DIR/pgrange-r$round-w$w.toml"
  {
    # top-level keys first: after pgrange_toml's tables they would belong to one
    echo "max_client_conn = $MAX_CLIENTS"
    pgrange_toml "$PORT" "$w" warn "$PG_PORT" "$POOL" "s1:$PG_PORT"
  } >"$cfg"
  grep -q '^auth = "scram-sha-256"$' "$cfg" || die "the user in $cfg does not log in by SCRAM"
  "$TMP/pgrange" --config "$cfg" >"$LOG_DIR/pgrange-r$round-w$w.log" 2>&1 &
  PID=$!
  PROXY_PIDS+=("$PID")
  wait_ready "pgrange (workers=$w)" "$PORT" "$PID" pgrange
  require_scram "$PORT" "pgrange (workers=$w)"
}

stop_proxy() {  # stop_proxy: the one start_proxy started, gone from PROXY_PIDS (its PID may be reused)
  local p rest=()
  stop_pid "$PID" INT
  for p in "${PROXY_PIDS[@]}"; do [ "$p" = "$PID" ] || rest+=("$p"); done
  PROXY_PIDS=("${rest[@]}")
  PID=""
}

TARGETS=()
declare -A LABEL
for w in "${WORKER_LIST[@]}"; do
  TARGETS+=("pgrange_w$w")
  if [ "$w" = 0 ]; then
    LABEL[pgrange_w$w]="pgrange workers=0 (one per core: $(nproc))"
  else
    LABEL[pgrange_w$w]="pgrange workers=$w"
  fi
done
TARGETS+=(pgbouncer)
LABEL[pgbouncer]="PgBouncer"
echo "PostgreSQL :$PG_PORT (max_connections 100); each round: $(for t in "${TARGETS[@]}"; do
  printf '%s, ' "${LABEL[$t]}"; done | sed 's/, $//'), each started afresh, transaction pooling," \
  "pool of $POOL, max_client_conn $MAX_CLIENTS; pgrange with one shard (pass-through)"
echo

# ---------------------------------------------------------------- rounds
RESULTS="$LOG_DIR/results.tsv"
printf 'round\ttarget\tclients\trss_before_kb\trss_after_kb\trss_left_kb\tconnect_ms\tserver_connections\tlogin_cpu_s\n' \
  >"$RESULTS"
printf '%-5s %-12s %10s %10s %10s %11s %8s %9s %7s %7s %9s\n' round target "before MiB" "after MiB" \
  "added MiB" "KiB/client" "login s" "logins/s" "CPU s" server "left MiB"
for ((round = 1; round <= ROUNDS; round++)); do
  for t in "${TARGETS[@]}"; do
    base="$LOG_DIR/clients-r$round-$t"
    start_proxy "$t" "$round"
    warm_up "$PORT" "$base-warmup.out"
    sleep "$SETTLE"
    before=$(rss_kb "$PID")
    ticks=$(proc_ticks "$PID")
    open_clients "$PORT" "$base.out"
    ticks=$(($(proc_ticks "$PID") - ticks))
    sleep "$SETTLE"
    after=$(rss_kb "$PID")
    servers=$(server_connections)
    close_clients "$base.out"
    sleep "$SETTLE"
    left=$(rss_kb "$PID")
    kill -0 "$PID" 2>/dev/null || die "${LABEL[$t]} exited during round $round"
    stop_proxy
    cpu=$(ticks_to_seconds "$ticks")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$t" "$CLIENTS" "$before" "$after" "$left" \
      "$CONNECT_MS" "$servers" "$cpu" >>"$RESULTS"
    awk -v r="$round" -v t="$t" -v n="$CLIENTS" -v b="$before" -v a="$after" -v l="$left" \
      -v ms="$CONNECT_MS" -v s="$servers" -v c="$cpu" 'BEGIN {
        printf "%-5s %-12s %10.1f %10.1f %10.1f %11.2f %8.1f %9.0f %7.2f %7s %9.1f\n", r, t, b / 1024,
          a / 1024, (a - b) / 1024, (a - b) / n, ms / 1000, n / (ms > 0 ? ms / 1000 : 1), c, s, l / 1024 }'
  done
done

# ---------------------------------------------------------------- summary
column_of() {  # column_of TARGET before|after|added|per_client|login_s|cpu|left: one value per round
  awk -F'\t' -v t="$1" -v what="$2" 'NR > 1 && $2 == t {
    if (what == "before") print $4 / 1024; else if (what == "after") print $5 / 1024
    else if (what == "added") print ($5 - $4) / 1024; else if (what == "per_client") print ($5 - $4) / $3
    else if (what == "login_s") print $7 / 1000; else if (what == "cpu") print $9; else print $6 / 1024 }' \
    "$RESULTS"
}
ratios() {  # ratios NUM DEN: per-round ratio of KiB per client NUM/DEN, sorted
  awk -F'\t' -v a="$1" -v b="$2" 'NR > 1 {
      if ($2 == a) x[$1] = ($5 - $4) / $3; if ($2 == b) y[$1] = ($5 - $4) / $3 }
    END { for (r in x) if (r in y && y[r] > 0) printf "%.2f\n", x[r] / y[r] }' "$RESULTS" | sort -g |
    paste -sd' ' -
}

echo
echo "== medians over $ROUNDS rounds, $CLIENTS idle clients per proxy (SCRAM-SHA-256 logins," \
  "one SELECT 1 each)"
printf '%-38s %10s %10s %10s %11s %8s %7s %9s\n' target "before MiB" "after MiB" "added MiB" \
  "KiB/client" "login s" "CPU s" "left MiB"
declare -A MED
for t in "${TARGETS[@]}"; do
  MED[$t]=$(column_of "$t" per_client | median)
  printf '%-38s %10.1f %10.1f %10.1f %11.2f %8.1f %7.2f %9.1f\n' "${LABEL[$t]}" \
    "$(column_of "$t" before | median)" "$(column_of "$t" after | median)" \
    "$(column_of "$t" added | median)" "${MED[$t]}" "$(column_of "$t" login_s | median)" \
    "$(column_of "$t" cpu | median)" "$(column_of "$t" left | median)"
done
echo
echo "== KiB per idle client, pgrange/PgBouncer: ratio of the medians (per-round ratios, sorted," \
  "in brackets)"
for t in "${TARGETS[@]}"; do
  [ "$t" != pgbouncer ] || continue
  printf '%-38s %8s  [%s]\n' "${LABEL[$t]}" \
    "$(awk -v x="${MED[$t]}" -v y="${MED[pgbouncer]}" 'BEGIN {if (y > 0) printf "%.2f", x / y; else print "n/a"}')" \
    "$(ratios "$t" pgbouncer)"
done
echo
echo "before: VmRSS (/proc/PID/status, the whole process) ${SETTLE}s after one warm-up client"
echo "logged in, ran SELECT 1 and left; after: ${SETTLE}s after the last of the $CLIENTS clients"
echo "logged in and ran SELECT 1, all of them still connected; KiB/client = (after - before) /"
echo "$CLIENTS; left: ${SETTLE}s after they all left. login s: the $CLIENTS logins and SELECT 1s, $BATCH"
echo "at once (the clients' own SCRAM work included); CPU s: the proxy's utime+stime over them"
echo "(/proc/PID/stat, all threads). server: the proxy's sessions on PostgreSQL with the clients"
echo "idle. Raw per-round figures: $RESULTS"
echo "finished $(date -u '+%Y-%m-%d %H:%M:%S UTC') ($(($(date +%s) - T_START)) s), load average $(load_average)"
