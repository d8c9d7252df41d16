#!/usr/bin/env bash
# The transaction contract under load (issue 15), Forktail vs PostgreSQL 15 in
# the same run, same scale, clients and duration, both durable (fsync on):
#   1. TPC-B-like, pgbench -M prepared -c 8 -j 2 --max-tries 10: tps, failed
#      and retried transactions, balance invariant, and how busy Forktail's
#      transaction thread was (SHOW forktail.txn_thread_stats);
#   2. select-only, pgbench -S -c 4 -j 2 (point lookups outside blocks);
#   3. reads under writes: pgbench TPC-B writing with 4 clients while 4
#      clients each run an analytical SELECT in a loop; the SELECT's latency
#      and Forktail's forks per second at the default freshness vs with
#      forktail.max_snapshot_age_ms = 1000 (the cost of freshness).
# Runs 1 and 2 also go to null_server (bench/pgbench/null_server.cc), which
# answers every statement at once with a canned result: the most any server
# can give these clients on this machine, against which both are read.
#
#   bench/pgbench/txn_contract_bench.sh build/release/tools/forktail [scale=10] [seconds=60]
set -euo pipefail
BIN=$(realpath "$1")
SCALE=${2:-10}
SECS=${3:-60}
FT_PORT=${FT_PORT:-55533}
PG_PORT=${PG_PORT:-55532}
NULL_PORT=${NULL_PORT:-55534}
NULL_SERVER=$(dirname "$BIN")/../bench/null_server
. "$(dirname "$0")/../../scripts/lib/postgres_peer.sh"
peer_workdir

FT=(-h 127.0.0.1 -p "$FT_PORT" -U bench)
PG=(-h 127.0.0.1 -p "$PG_PORT" -U postgres)
declare -A R  # results: R[system,metric]

field() { sed -n "s/^$1 *\([0-9.]*\).*/\1/p" | head -1; }
ft_show() { psql -X -q -At "${FT[@]}" -d bench -c "show forktail.$1"; }
num() { sed -n "s/.*$1=\([0-9]*\).*/\1/p"; }

tpcb() {  # $1 = system, $2.. = connection args and database
  local sys=$1; shift
  local out
  out=$(pgbench -n -M prepared -c 8 -j 2 -T "$SECS" --max-tries 10 -b tpcb-like "$@" 2>&1) || true
  R[$sys,tpcb]=$(echo "$out" | field "tps =")
  R[$sys,tpcb_failed]=$(echo "$out" | sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p')
  R[$sys,tpcb_retried]=$(echo "$out" | sed -n 's/^number of transactions retried: \([0-9]*\).*/\1/p')
  echo "$sys tpcb: tps ${R[$sys,tpcb]} failed ${R[$sys,tpcb_failed]:-?} retried ${R[$sys,tpcb_retried]:-0}"
}

select_only() {
  local sys=$1; shift
  local out
  out=$(pgbench -n -S -c 4 -j 2 -T "$SECS" "$@" 2>&1) || true
  R[$sys,select]=$(echo "$out" | field "tps =")
  echo "$sys select-only: tps ${R[$sys,select]}"
}

# Analytical readers while pgbench writes; $1 = label, $2 = SQL run first in
# each reader's script (a SET or nothing).
reads_under_writes() {
  local label=$1 setup=$2
  printf '%s\nselect count(*), sum(abalance), avg(abalance) from pgbench_accounts;\n' "$setup" > "$WORK/reader.sql"
  local before after
  before=$(ft_show snapshot_stats | num created)
  pgbench -n -M prepared -c 4 -j 1 -T "$SECS" --max-tries 10 -b tpcb-like "${FT[@]}" bench > "$WORK/writer.log" 2>&1 &
  local writer=$!
  local out
  out=$(pgbench -n -c 4 -j 1 -T "$SECS" -f "$WORK/reader.sql" "${FT[@]}" bench 2>&1) || true
  wait $writer || true
  after=$(ft_show snapshot_stats | num created)
  R[$label,latency]=$(echo "$out" | sed -n 's/^latency average = \([0-9.]*\) ms/\1/p')
  R[$label,reads]=$(echo "$out" | field "tps =")
  R[$label,forks]=$(echo "scale=1; ($after - $before) / $SECS" | bc)
  R[$label,writes]=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$WORK/writer.log")
  echo "reads under writes ($label): read latency ${R[$label,latency]} ms, reads/s ${R[$label,reads]}, forks/s ${R[$label,forks]}, writer tps ${R[$label,writes]}"
}

echo "== Forktail (scale $SCALE, ${SECS}s per run)"
"$BIN" serve --data "$WORK/ft" --port "$FT_PORT" > "$WORK/ft.log" 2>&1 &
FT_PID=$!
for _ in $(seq 100); do pg_isready -q -h 127.0.0.1 -p "$FT_PORT" && break; sleep 0.1; done
pgbench -i -q -s "$SCALE" "${FT[@]}" bench > "$WORK/ft_init.log" 2>&1 || { cat "$WORK/ft_init.log"; exit 1; }
t0=$(ft_show txn_thread_stats)
tpcb forktail "${FT[@]}" bench
t1=$(ft_show txn_thread_stats)
busy=$(( $(echo "$t1" | num busy_ms) - $(echo "$t0" | num busy_ms) ))
alive=$(( $(echo "$t1" | num alive_ms) - $(echo "$t0" | num alive_ms) ))
R[forktail,busy]=$(echo "scale=1; 100 * $busy / $alive" | bc)
echo "forktail transaction thread busy ${R[forktail,busy]}% of the TPC-B run; $(ft_show txn_block_stats)"
sums=$(psql -X -q -At "${FT[@]}" -d bench -c "select (select sum(abalance) from pgbench_accounts), (select sum(delta) from pgbench_history), (select sum(tbalance) from pgbench_tellers), (select sum(bbalance) from pgbench_branches)")
IFS='|' read -r a h t b <<< "$sums"
if [ "$a" = "$h" ] && [ "$a" = "$t" ] && [ "$a" = "$b" ]; then echo "invariant holds: $sums"; else echo "INVARIANT BROKEN: $sums"; exit 1; fi
select_only forktail "${FT[@]}" bench
reads_under_writes fresh ""
reads_under_writes age1000 "set forktail.max_snapshot_age_ms = 1000;"
kill -TERM "$FT_PID"; wait "$FT_PID" || true; FT_PID=

echo "== PostgreSQL 15"
postgres_peer_start "$PG_PORT"
pgbench -i -q -s "$SCALE" "${PG[@]}" postgres > "$WORK/pg_init.log" 2>&1
tpcb postgres "${PG[@]}" postgres
select_only postgres "${PG[@]}" postgres

echo "== null server (the ceiling: canned answers, no work)"
"$NULL_SERVER" "$NULL_PORT" > "$WORK/null.log" 2>&1 &
NULL_PID=$!
NS=(-h 127.0.0.1 -p "$NULL_PORT" -U bench)
for _ in $(seq 50); do pg_isready -q "${NS[@]}" && break; sleep 0.1; done
tpcb null "${NS[@]}" bench
select_only null "${NS[@]}" bench
kill "$NULL_PID"; wait "$NULL_PID" 2>/dev/null || true

echo "== Summary (scale $SCALE, ${SECS}s per run)"
ratio() { echo "scale=2; ${1:-0} / ${2:-1}" | bc; }
printf "%-28s %12s %12s %8s %12s %10s %10s\n" "" forktail postgres ratio "null server" "ft/null" "pg/null"
row() {  # $1 = label, $2 = metric
  printf "%-28s %12s %12s %8s %12s %10s %10s\n" "$1" "${R[forktail,$2]}" "${R[postgres,$2]}" \
    "$(ratio "${R[forktail,$2]}" "${R[postgres,$2]}")" "${R[null,$2]}" \
    "$(ratio "${R[forktail,$2]}" "${R[null,$2]}")" "$(ratio "${R[postgres,$2]}" "${R[null,$2]}")"
}
row "tpcb-like -c8 -j2 (tps)" tpcb
printf "%-28s %12s %12s\n" "  failed / retried" "${R[forktail,tpcb_failed]:-?}/${R[forktail,tpcb_retried]:-0}" "${R[postgres,tpcb_failed]:-?}/${R[postgres,tpcb_retried]:-0}"
row "select-only -c4 (tps)" select
printf "%-28s %11s%%\n" "txn thread busy (tpcb)" "${R[forktail,busy]}"
printf "%-28s %12s %12s\n" "reads under writes" fresh "age<=1000ms"
printf "%-28s %12s %12s\n" "  read latency (ms)" "${R[fresh,latency]}" "${R[age1000,latency]}"
printf "%-28s %12s %12s\n" "  forks per second" "${R[fresh,forks]}" "${R[age1000,forks]}"
printf "%-28s %12s %12s\n" "  writer tps" "${R[fresh,writes]}" "${R[age1000,writes]}"
