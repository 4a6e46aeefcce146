#!/usr/bin/env bash
# End-to-end benchmark of global and local secondary indexes and of time-ordered inserts (a
# benchmark, not a test), pgrange over three PostgreSQL 15 shards against one plain PostgreSQL.
#
# 1. Lookups by a secondary column: pgbench -M simple, the script
#      \set n random(1, ROWS)
#      SELECT id, name FROM <table> WHERE email = 'user:n@example.com';
#    (pgbench -M simple substitutes :n inside the literal) against
#      direct    users on one PostgreSQL with an ordinary btree index on email
#      global    users_g through pgrange, CREATE INDEX … (email): the index join (the index
#                entries on the index's shard, then the row from the shard owning its id)
#      storing   users_gs through pgrange, CREATE INDEX … (email) STORING (name): the index alone
#      local     users_l through pgrange, CREATE INDEX … (email) WITH (local = true): an ordinary
#                index on every shard, the lookup fans out to all three
#    Each users table has ROWS rows (id 1..ROWS, email 'user<id>@example.com'), split into
#    RANGES ranges by id, placed round-robin on s1, s2, s3 and loaded on the shards directly
#    before the index is created (so CREATE INDEX backfills it).
# 2. Time-ordered inserts: pgbench -M simple, one single-row INSERT per transaction,
#      \set n :n + 1
#      \set id :base + :n * 1024 + :client_id
#      INSERT INTO <table> (id, ts, v) VALUES (:id, now(), 'v:n');
#    with -D n=0 -D base=<a fresh base per run>: pgbench keeps each client's variables from one
#    transaction to the next, so every client numbers its rows 1, 2, 3, … and the ids of all
#    clients together grow with time, as a sequence or a timestamp key does (no two clients
#    share an id; no round trip is spent fetching one; pgbench computes the id, so pgrange sees
#    a literal key and routes the row). Into
#      range     ev_range (id int8 PRIMARY KEY, …), split at 1e9 and 2e9 into three ranges on
#                s1, s2, s3; every id is above 2e9, so every row goes to the last range (s3)
#      hash      ev_hash (…, PRIMARY KEY (id) USING HASH WITH (bucket_count = BUCKETS)): one
#                range per bucket, bucket b on shard b mod 3
#    The rows each shard gained are counted on the shards directly after every run.
#
# Interleaved: each round runs every lookup target, then every insert target, ROUNDS times.
# It starts four PostgreSQL servers (fsync=off, full_page_writes=off, synchronous_commit=off;
# direct, s1, s2, s3) and one pgrange on free ports in 20000-32000 and removes them on exit.
#
# Usage: PGRANGE=build/proxy/pgrange SKIP_BUILD=1 bench/index_compare.sh   (as root; about
#        5 minutes with the defaults; QUICK=1 for a short run of about 2 minutes)
# Settings (environment):
#   ROUNDS=2 DURATION=15 CLIENTS=4 JOBS=2   pgbench shape; DURATION in seconds per run
#   INSERT_DURATION=DURATION               seconds per insert run
#   ROWS=300000 RANGES=6                   rows of each users table, its ranges through pgrange
#   BUCKETS=8                              bucket_count of ev_hash
#   PARTS="lookup insert"                  which part(s) to run
#   WORKERS=1                              pgrange worker threads
#   WARMUP=2                               unmeasured seconds per lookup target before round 1
#   QUICK=1                                ROUNDS=1 DURATION=5 ROWS=60000 WARMUP=1 unless set
#   SKIP_BUILD=1                           do not run scripts/build.sh --target pgrange first
#   LOG_DIR=DIR                            logs, layouts, EXPLAINs, results.tsv, inserts.tsv
#   PGBIN=DIR  PGRANGE=build/proxy/pgrange binaries to use
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if [ "${QUICK:-0}" = 1 ]; then
  ROUNDS=${ROUNDS:-1}
  DURATION=${DURATION:-5}
  ROWS=${ROWS:-60000}
  WARMUP=${WARMUP:-1}
fi
ROUNDS=${ROUNDS:-2}
DURATION=${DURATION:-15}
INSERT_DURATION=${INSERT_DURATION:-$DURATION}
CLIENTS=${CLIENTS:-4}
JOBS=${JOBS:-2}
ROWS=${ROWS:-300000}
RANGES=${RANGES:-6}
BUCKETS=${BUCKETS:-8}
PARTS=${PARTS:-lookup insert}
WORKERS=${WORKERS:-1}
WARMUP=${WARMUP:-2}
SKIP_BUILD=${SKIP_BUILD:-0}
LOG_DIR=${LOG_DIR:-/tmp/index_compare-logs.$(date -u +%Y%m%dT%H%M%SZ)}
PGRANGE=${PGRANGE:-$REPO/build/proxy/pgrange}
[[ $PGRANGE == /* ]] || PGRANGE=$PWD/$PGRANGE # the servers and pgrange run from /tmp

require_counts ROUNDS DURATION INSERT_DURATION CLIENTS JOBS ROWS RANGES BUCKETS WORKERS WARMUP
if [ "$ROUNDS" -lt 1 ] || [ "$DURATION" -lt 1 ] || [ "$INSERT_DURATION" -lt 1 ] ||
  [ "$CLIENTS" -lt 1 ] || [ "$JOBS" -lt 1 ] || [ "$WORKERS" -lt 1 ]; then
  die "ROUNDS, DURATION, INSERT_DURATION, CLIENTS, JOBS and WORKERS must be at least 1"
fi
[ "$CLIENTS" -le 1000 ] || die "CLIENTS must be at most 1000 (ids are n * 1024 + client_id)"
[ "$ROWS" -ge 1000 ] || die "ROWS must be at least 1000"
[ "$RANGES" -ge 3 ] || die "RANGES must be at least 3, so that every shard holds rows"
if [ "$BUCKETS" -lt 3 ] || [ "$BUCKETS" -gt 2048 ]; then die "BUCKETS must be in 3..2048"; fi
DO_LOOKUP=0
DO_INSERT=0
for p in $PARTS; do
  case "$p" in
    lookup) DO_LOOKUP=1 ;;
    insert) DO_INSERT=1 ;;
    *) die "PARTS may contain lookup and insert (got \"$p\")" ;;
  esac
done
require_environment pgbench psql pg_isready ss setpriv

LOOKUP_TARGETS=(direct global storing local)
INSERT_TARGETS=(range hash)

# ---------------------------------------------------------------- header
echo "== pgrange index benchmark: global / STORING / local index lookups vs direct PostgreSQL;"
echo "   time-ordered inserts into a range table and a hash-sharded table (3 shards)"
echo "command: ROUNDS=$ROUNDS DURATION=$DURATION INSERT_DURATION=$INSERT_DURATION CLIENTS=$CLIENTS" \
  "JOBS=$JOBS ROWS=$ROWS RANGES=$RANGES BUCKETS=$BUCKETS PARTS=\"$PARTS\" WORKERS=$WORKERS" \
  "WARMUP=$WARMUP SKIP_BUILD=$SKIP_BUILD PGRANGE=$PGRANGE $0 $*"
print_date_machine
echo "versions: $("$PGBIN/postgres" --version), $(pgbench --version)"
echo "servers: $(durability_line)"
echo "logs:    $LOG_DIR"
echo

begin_run # build, the pgrange header line, T_START, bench_setup (see lib.sh)

start_four_servers 100 "wal_level = logical" # range moves (RELOCATE) read the shards' logical stream
POOL=$((2 * CLIENTS * WORKERS > 8 ? 2 * CLIENTS * WORKERS : 8))
start_sharded_pgrange "$POOL" warn "$LOG_DIR/pgrange.log"
export PGPASSWORD=bench

bound_of() {  # bound_of PRETTY DEFAULT: …/1/N → N; …/<TableMin> or …/<TableMax> → DEFAULT
  case "$1" in
    */1/*) echo "${1##*/}" ;;
    *) echo "$2" ;;
  esac
}

timed() {  # timed LABEL CMD...: run CMD, print LABEL and its wall time
  local label=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  "$@" >/dev/null
  t1=$(date +%s.%N)
  awk -v l="$label" -v a="$t0" -v b="$t1" 'BEGIN {printf "  %-58s %6.1f s\n", l, b - a}'
}

# ---------------------------------------------------------------- lookup tables
USERS_COLS="(id int8 PRIMARY KEY, email text, name text, city text)"
users_rows() {  # users_rows LO HI: the SELECT that generates ids LO..HI
  echo "SELECT g, 'user' || g || '@example.com', 'name ' || g, 'city ' || (g % 100)" \
    "FROM generate_series($1, $2) g"
}
declare -A TABLE_OF=([direct]=users [global]=users_g [storing]=users_gs [local]=users_l)
declare -A INDEX_DDL=(
  [direct]="CREATE INDEX users_email ON users (email)"
  [global]="CREATE INDEX users_g_email ON users_g (email)"
  [storing]="CREATE INDEX users_gs_email ON users_gs (email) STORING (name)"
  [local]="CREATE INDEX users_l_email ON users_l (email) WITH (local = true)"
)

if [ "$DO_LOOKUP" = 1 ]; then
  echo "lookup tables: $ROWS rows each"
  timed "direct: users, load, index, VACUUM ANALYZE" sql_on direct "CREATE TABLE users $USERS_COLS" \
    "INSERT INTO users $(users_rows 1 "$ROWS")" "${INDEX_DDL[direct]}" "VACUUM ANALYZE users"
  splits=""
  for ((k = 1; k < RANGES; k++)); do splits+="($((ROWS * k / RANGES + 1))), "; done
  for t in global storing local; do
    table=${TABLE_OF[$t]}
    via_pgrange "CREATE TABLE $table $USERS_COLS" "ALTER TABLE $table SPLIT AT VALUES ${splits%, }" >/dev/null
    place_ranges "$table"
    layout="$LOG_DIR/$table-ranges.txt"
    : >"$layout"
    t0=$(date +%s.%N)
    while IFS='|' read -r start end id shard _; do
      lo=$(bound_of "$start" 1)
      hi=$(($(bound_of "$end" $((ROWS + 1))) - 1))
      [ "$hi" -gt "$ROWS" ] && hi=$ROWS
      echo "range $id  ids $lo..$hi  on $shard" >>"$layout"
      sql_on "$shard" "INSERT INTO $table $(users_rows "$lo" "$hi")"
    done < <(via_pgrange "SHOW RANGES FROM TABLE $table")
    for s in s1 s2 s3; do sql_on "$s" "VACUUM ANALYZE $table" >/dev/null; done
    awk -v a="$t0" -v b="$(date +%s.%N)" -v l="$table: $RANGES ranges round-robin, rows loaded on the shards" \
      'BEGIN {printf "  %-58s %6.1f s\n", l, b - a}'
    n=$(via_pgrange "SELECT count(*) FROM $table")
    [ "$n" = "$ROWS" ] || die "pgrange counts $n rows of $table, expected $ROWS"
    timed "$table: ${INDEX_DDL[$t]#CREATE INDEX }" via_pgrange "${INDEX_DDL[$t]}"
    for s in s1 s2 s3; do # the table and the index's backend table
      psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "${SERVER_PORT[$s]}" -U postgres -d bench -c ANALYZE
    done
  done
  echo "  layout of users_g (the others alike):"
  sed 's/^/    /' "$LOG_DIR/users_g-ranges.txt"
  via_pgrange "SHOW RANGES FROM DATABASE bench WITH INDEXES" >"$LOG_DIR/all-ranges.txt" 2>&1 || true
  # start|end|range_id|shard|split_enforced_until|table|index
  awk -F'|' '$7 ~ /^users_gs?_email$/ {printf "  global index %s: range %s on %s\n", $7, $3, $4}' \
    "$LOG_DIR/all-ranges.txt"
  echo

  # The statements, their EXPLAIN through pgrange (kept), and one answer checked per target.
  probe_n=$((ROWS / 2 + 7))
  echo "routes through pgrange (EXPLAIN, first lines; all of it in $LOG_DIR/explain-*.txt):"
  for t in "${LOOKUP_TARGETS[@]}"; do
    table=${TABLE_OF[$t]}
    printf '%s\n' '\set n random(1, '"$ROWS"')' \
      "SELECT id, name FROM $table WHERE email = 'user:n@example.com';" >"$TMP/lookup-$t.sql"
    q="SELECT id, name FROM $table WHERE email = 'user$probe_n@example.com'"
    if [ "$t" = direct ]; then got=$(sql_on direct "$q"); else got=$(via_pgrange "$q"); fi
    [ "$got" = "$probe_n|name $probe_n" ] || die "$t: $q answered \"$got\""
    [ "$t" = direct ] && continue
    via_pgrange "EXPLAIN (COSTS OFF) $q" >"$LOG_DIR/explain-$t.txt" 2>&1 || true
    echo "  $t ($table):"
    grep -v '^ *shard \|^    \|^  *->\|Index Cond\|Filter' "$LOG_DIR/explain-$t.txt" | head -6 | sed 's/^/    /'
  done
  echo
fi

# ---------------------------------------------------------------- insert tables
EV_SPLIT1=1000000000
EV_SPLIT2=2000000000
declare -A EV_TABLE=([range]=ev_range [hash]=ev_hash)
if [ "$DO_INSERT" = 1 ]; then
  echo "insert tables:"
  via_pgrange "CREATE TABLE ev_range (id int8 PRIMARY KEY, ts timestamptz, v text)" \
    "ALTER TABLE ev_range SPLIT AT VALUES ($EV_SPLIT1), ($EV_SPLIT2)" >/dev/null
  place_ranges ev_range
  via_pgrange "CREATE TABLE ev_hash (id int8, ts timestamptz, v text, PRIMARY KEY (id) USING HASH WITH (bucket_count = $BUCKETS))" >/dev/null
  for t in "${INSERT_TARGETS[@]}"; do
    table=${EV_TABLE[$t]}
    via_pgrange "SHOW RANGES FROM TABLE $table" >"$LOG_DIR/$table-ranges.txt"
    echo "  $table: $(awk -F'|' '{print $4}' "$LOG_DIR/$table-ranges.txt" | sort | uniq -c |
      awk '{printf "%s: %s ranges  ", $2, $1}')"
    printf '%s\n' '\set n :n + 1' '\set id :base + :n * 1024 + :client_id' \
      "INSERT INTO $table (id, ts, v) VALUES (:id, now(), 'v:n');" >"$TMP/insert-$t.sql"
  done
  echo "  ev_range: ranges split at $EV_SPLIT1 and $EV_SPLIT2; every inserted id is above $EV_SPLIT2"
  echo
fi
echo "setup took $(($(date +%s) - T_START)) s"
echo

# ---------------------------------------------------------------- runs
declare -A PORT
PORT[direct]=${SERVER_PORT[direct]}
port_of() { if [ "$1" = direct ]; then echo "${PORT[direct]}"; else echo "$PGRANGE_PORT"; fi; }

# run_pgbench TARGET SCRIPT SECONDS LOG [pgbench options]: 0 when pgbench finished
run_pgbench() {
  local target=$1 script=$2 secs=$3 log=$4
  shift 4
  pgbench -n -M simple -f "$script" -c "$CLIENTS" -j "$JOBS" -T "$secs" "$@" \
    -h 127.0.0.1 -p "$(port_of "$target")" -U bench bench >"$log" 2>&1 &
  PGBENCH_PID=$!
  local rc=0
  wait "$PGBENCH_PID" || rc=$?
  PGBENCH_PID=""
  return $rc
}

shard_counts() {  # shard_counts TABLE: the rows of TABLE on s1 s2 s3, space-separated
  local s out=""
  for s in s1 s2 s3; do out+="$(sql_on "$s" "SELECT count(*) FROM $1") "; done
  echo "${out% }"
}

# PostgreSQL's scan counters of the users tables and the indexes' backend tables, on direct and
# summed over the shards: one line "where|relation|seq_scan|idx_scan" each.
SCAN_SQL="SELECT relname, seq_scan, coalesce(idx_scan, 0) FROM pg_stat_user_tables WHERE relname LIKE 'users%'"
scan_counters() {
  sql_on direct "$SCAN_SQL" | sed 's/^/direct|/'
  local s
  for s in s1 s2 s3; do sql_on "$s" "$SCAN_SQL" | sed 's/^/shards|/'; done
}
if [ "$DO_LOOKUP" = 1 ]; then
  # Idle backends report their counters within 10 s; the setup's own scans (backfill, checks)
  # are then in this snapshot and left out of the figures.
  sleep 11
  scan_counters >"$LOG_DIR/scans-before.txt"
fi

if [ "$DO_LOOKUP" = 1 ] && [ "$WARMUP" -gt 0 ]; then
  echo "warm-up: ${WARMUP}s per lookup target (not counted)"
  for t in "${LOOKUP_TARGETS[@]}"; do
    run_pgbench "$t" "$TMP/lookup-$t.sql" "$WARMUP" "$LOG_DIR/warmup-$t.log" || true
  done
fi

RESULTS="$LOG_DIR/results.tsv" # lookups: round target tps transactions pgrange_cpu_s load1
INSERTS="$LOG_DIR/inserts.tsv" # inserts: round target secs transactions rows_s1 rows_s2 rows_s3 pgrange_cpu_s load1
printf 'round\ttarget\ttps\ttransactions\tpgrange_cpu_s\tload1\n' >"$RESULTS"
printf 'round\ttarget\tseconds\ttransactions\ts1\ts2\ts3\tpgrange_cpu_s\tload1\n' >"$INSERTS"
INSERT_RUN=0
for ((round = 1; round <= ROUNDS; round++)); do
  if [ "$DO_LOOKUP" = 1 ]; then
    for t in "${LOOKUP_TARGETS[@]}"; do
      log="$LOG_DIR/r$round-lookup-$t.log"
      load=$(load_1min)
      before=$(proc_ticks "$PGRANGE_PID")
      ok=1
      run_pgbench "$t" "$TMP/lookup-$t.sql" "$DURATION" "$log" || ok=0
      after=$(proc_ticks "$PGRANGE_PID")
      tps=$(pgbench_tps "$log")
      txns=$(pgbench_field "$log" "number of transactions actually processed")
      if [ "$ok" = 0 ] || [ -z "$tps" ] || [ -z "$txns" ] || [ "$txns" -le 0 ]; then
        printf 'round %s lookup %-8s FAILED (see %s)\n' "$round" "$t" "$log"
        continue
      fi
      cpu=NA
      [ "$t" = direct ] || cpu=$(ticks_to_seconds $((after - before)))
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$t" "$tps" "$txns" "$cpu" "$load" >>"$RESULTS"
      printf 'round %s lookup %-8s %10.1f TPS  (load %s)\n' "$round" "$t" "$tps" "$load"
    done
  fi
  if [ "$DO_INSERT" = 1 ]; then
    for t in "${INSERT_TARGETS[@]}"; do
      table=${EV_TABLE[$t]}
      INSERT_RUN=$((INSERT_RUN + 1))
      base=$((3000000000 + INSERT_RUN * 1000000000)) # fresh ids, all above EV_SPLIT2
      log="$LOG_DIR/r$round-insert-$t.log"
      read -r b1 b2 b3 <<<"$(shard_counts "$table")"
      load=$(load_1min)
      before=$(proc_ticks "$PGRANGE_PID")
      ok=1
      run_pgbench "$t" "$TMP/insert-$t.sql" "$INSERT_DURATION" "$log" -D n=0 -D "base=$base" || ok=0
      after=$(proc_ticks "$PGRANGE_PID")
      read -r a1 a2 a3 <<<"$(shard_counts "$table")"
      txns=$(pgbench_field "$log" "number of transactions actually processed")
      secs=$(awk '/^duration: / {print $2; exit}' "$log")
      if [ "$ok" = 0 ] || [ -z "$txns" ] || [ "$txns" -le 0 ]; then
        printf 'round %s insert %-8s FAILED (see %s)\n' "$round" "$t" "$log"
        continue
      fi
      d1=$((a1 - b1)) d2=$((a2 - b2)) d3=$((a3 - b3))
      [ $((d1 + d2 + d3)) = "$txns" ] ||
        echo "  note: the shards gained $((d1 + d2 + d3)) rows, pgbench counted $txns inserts"
      cpu=$(ticks_to_seconds $((after - before)))
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$t" "${secs:-$INSERT_DURATION}" "$txns" \
        "$d1" "$d2" "$d3" "$cpu" "$load" >>"$INSERTS"
      awk -v r="$round" -v t="$t" -v s="${secs:-$INSERT_DURATION}" -v a="$d1" -v b="$d2" -v c="$d3" \
        -v l="$load" 'BEGIN {printf "round %s insert %-8s %10.1f rows/s  (s1 %d, s2 %d, s3 %d rows; load %s)\n",
          r, t, (a + b + c) / s, a, b, c, l}'
    done
  fi
done

# ---------------------------------------------------------------- summary
per_round() {  # per_round TARGET: the TPS of each round, space-separated
  awk -F'\t' -v t="$1" 'NR > 1 && $2 == t {printf "%s%.1f", (n++ ? " " : ""), $3}' "$RESULTS"
}
median_of() { awk -F'\t' -v t="$1" 'NR > 1 && $2 == t {print $3}' "$RESULTS" | median; }
cpu10k_of() {
  awk -F'\t' -v t="$1" 'NR > 1 && $2 == t && $5 != "NA" {print $5 / $4 * 10000}' "$RESULTS" | median
}
paired() {  # paired A B: per-round TPS ratio A/B
  awk -F'\t' -v a="$1" -v b="$2" 'NR > 1 { if ($2 == a) x[$1] = $3; if ($2 == b) y[$1] = $3 }
    END { for (r = 1; r <= 1000; r++) if ((r in x) && (r in y) && y[r] > 0) printf "%s%.2f", (n++ ? " " : ""), x[r] / y[r] }' "$RESULTS"
}

echo
if [ "$DO_LOOKUP" = 1 ]; then
  echo "== lookups by email: pgbench -M simple -c $CLIENTS -j $JOBS -T $DURATION, $ROUNDS round(s);" \
    "$ROWS rows, $RANGES ranges over 3 shards"
  printf '%-8s %-46s %10s  %-22s %9s\n' target "how pgrange reads it" "median TPS" "per round" "CPU/10k"
  declare -A HOW=(
    [direct]="one PostgreSQL, btree on email"
    [global]="index join: index shard, then row's shard"
    [storing]="global index STORING (name): index only"
    [local]="local index on every shard: fan-out to 3"
  )
  for t in "${LOOKUP_TARGETS[@]}"; do
    c=$(cpu10k_of "$t")
    [ "$c" = NA ] || c=$(awk -v v="$c" 'BEGIN {printf "%.3f", v}')
    [ "$t" = direct ] && c=-
    printf '%-8s %-46s %10.1f  %-22s %9s\n' "$t" "${HOW[$t]}" "$(median_of "$t")" "[$(per_round "$t")]" "$c"
  done
  echo
  printf '%-20s %7s  %s\n' ratio median "per round"
  for pair in global:local storing:local global:direct storing:direct local:direct storing:global; do
    a=${pair%%:*} b=${pair##*:}
    r=$(awk -v x="$(median_of "$a")" -v y="$(median_of "$b")" 'BEGIN {if (y > 0 && x != "NA") printf "%.2f", x / y; else print "NA"}')
    printf '%-20s %7s  [%s]\n' "$a/$b" "$r" "$(paired "$a" "$b")"
  done
  echo "CPU/10k: pgrange's utime+stime (all threads, /proc/PID/stat) per 10,000 lookups."
  echo
fi

if [ "$DO_LOOKUP" = 1 ]; then
  # What the shards did for the lookups: PostgreSQL's scan counters of each users table and of
  # the index's backend table ("users_g@users_g_email"), summed over the shards, since the
  # snapshot before the warm-up. Idle backends report their counters within 10 s, hence the wait.
  sleep 11
  lookups_of() {  # lookups_of TARGET: the lookups pgbench made (warm-up and rounds)
    local n=0 f v
    for f in "$LOG_DIR"/warmup-"$1".log "$LOG_DIR"/r*-lookup-"$1".log; do
      [ -e "$f" ] || continue
      v=$(pgbench_field "$f" "number of transactions actually processed")
      n=$((n + ${v:-0}))
    done
    echo "$n"
  }
  scan_counters >"$LOG_DIR/scans-after.txt"
  # after minus before, per where|relation
  awk -F'|' 'NR == FNR {s[$1 "|" $2] -= $3; i[$1 "|" $2] -= $4; next}
    {s[$1 "|" $2] += $3; i[$1 "|" $2] += $4}
    END {for (k in s) print k "|" s[k] "|" i[k]}' \
    "$LOG_DIR/scans-before.txt" "$LOG_DIR/scans-after.txt" >"$LOG_DIR/scans.txt"
  echo "== scans of each relation (pg_stat_user_tables; shards summed over s1, s2, s3), per lookup"
  printf '%-8s %-26s %8s %12s %12s %12s
' target relation where "seq scans" "index scans" "per lookup"
  for t in "${LOOKUP_TARGETS[@]}"; do
    n=$(lookups_of "$t")
    where=shards
    [ "$t" = direct ] && where=direct
    awk -F'|' -v w="$where" -v tb="${TABLE_OF[$t]}" '$1 == w && ($2 == tb || index($2, tb "@") == 1) {
        seq[$2] += $3; idx[$2] += $4 } END { for (r in seq) print r "|" seq[r] "|" idx[r] }' \
      "$LOG_DIR/scans.txt" | sort | while IFS='|' read -r rel sq ix; do
      awk -v t="$t" -v r="$rel" -v w="$where" -v s="$sq" -v i="$ix" -v n="$n" 'BEGIN {
        printf "%-8s %-26s %8s %12d %12d   %.2f seq, %.2f idx\n", t, r, w, s, i,
          (n > 0 ? s / n : 0), (n > 0 ? i / n : 0) }'
    done
  done
  echo "per lookup: the scans during the warm-up and the runs / the lookups pgbench made then."
  echo
fi

if [ "$DO_INSERT" = 1 ]; then
  echo "== time-ordered single-row INSERTs: pgbench -M simple -c $CLIENTS -j $JOBS -T $INSERT_DURATION," \
    "$ROUNDS round(s); per-shard rows counted on the shards"
  printf '%-6s %-6s %10s %10s %10s %10s %8s %6s %9s\n' round table "rows/s" "s1 rows/s" "s2 rows/s" \
    "s3 rows/s" "max/min" CV "CPU/10k"
  awk -F'\t' 'NR > 1 {
      s = $3; n = $5 + $6 + $7; a = $5 / s; b = $6 / s; c = $7 / s
      mean = (a + b + c) / 3
      sd = sqrt(((a - mean) ^ 2 + (b - mean) ^ 2 + (c - mean) ^ 2) / 3)
      mx = a; if (b > mx) mx = b; if (c > mx) mx = c
      mn = a; if (b < mn) mn = b; if (c < mn) mn = c
      ratio = (mn > 0) ? sprintf("%.2f", mx / mn) : "inf"
      printf "%-6s %-6s %10.1f %10.1f %10.1f %10.1f %8s %6.2f %9.3f\n", $1, $2, n / s, a, b, c, ratio,
        (mean > 0 ? sd / mean : 0), $8 / $4 * 10000
    }' "$INSERTS"
  hash_share=$(awk -F'|' '{c[$4]++} END {printf "s1 %d, s2 %d, s3 %d", c["s1"], c["s2"], c["s3"]}' \
    "$LOG_DIR/ev_hash-ranges.txt")
  echo "ev_hash buckets per shard: $hash_share of $BUCKETS (an even hash gives each shard its buckets' share)."
  echo "ev_range: every id lands in the last range (on s3); s1 and s2 get nothing."
  echo "max/min and CV (population standard deviation / mean) are over the three shards' rows/s;"
  echo "CPU/10k: pgrange's CPU seconds per 10,000 inserts."
  echo
fi
echo "raw figures: $RESULTS $INSERTS"
echo "finished $(date -u '+%Y-%m-%d %H:%M:%S UTC') after $(($(date +%s) - T_START)) s," \
  "load average $(load_average)"
