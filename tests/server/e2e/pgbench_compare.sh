#!/usr/bin/env bash
# pgbench TPC-B-like on Forktail (`forktail serve`) vs a PostgreSQL 15 this
# script starts, same scale, clients and duration, in simple, extended and
# prepared modes; prints tps, average latency and the Forktail/PostgreSQL
# ratio per mode, and checks Forktail's balance invariant afterwards.
#
#   tests/server/e2e/pgbench_compare.sh build/snap-rel/tools/forktail [scale] [clients] [seconds]
#
# Both are durable (Forktail's default; PostgreSQL's fsync + synchronous_commit).
# Both run pgbench's built-in TPC-B-like script and are loaded by `pgbench -i`.
# A mode that aborts is reported as such and the script goes on.
set -euo pipefail
BIN=$(realpath "$1")
SCALE=${2:-10}
CLIENTS=${3:-4}
SECS=${4:-30}
HERE=$(cd "$(dirname "$0")" && pwd)
FT_PORT=55433
PG_PORT=55432
. "$HERE/../../../scripts/lib/postgres_peer.sh"
peer_workdir

declare -A TPS LAT
run_modes() {  # $1 = label, $2.. = connection args
  local label=$1; shift
  for mode in simple extended prepared; do
    out=$(pgbench -n -M "$mode" -c "$CLIENTS" -j "$CLIENTS" -T "$SECS" -b tpcb-like "$@" 2>&1) || {
      echo "$out" | grep -m3 "error"; echo "pgbench aborted ($label $mode)"; }
    TPS[$label,$mode]=$(echo "$out" | sed -n 's/^tps = \([0-9.]*\).*/\1/p')
    LAT[$label,$mode]=$(echo "$out" | sed -n 's/^latency average = \([0-9.]*\) ms/\1/p')
    failed=$(echo "$out" | sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p')
    echo "$label $mode: tps ${TPS[$label,$mode]} latency ${LAT[$label,$mode]} ms failed ${failed:-0}"
  done
}

echo "== Forktail (scale $SCALE, $CLIENTS clients, ${SECS}s per mode)"
"$BIN" serve --data "$WORK/ft" --port $FT_PORT > "$WORK/ft.log" 2>&1 &
FT_PID=$!
for _ in $(seq 100); do pg_isready -q -h 127.0.0.1 -p $FT_PORT && break; sleep 0.1; done
FT=(-h 127.0.0.1 -p $FT_PORT -U bench)
start=$(date +%s.%N)
pgbench -i -s "$SCALE" "${FT[@]}" bench > "$WORK/ft_init.log" 2>&1 || { cat "$WORK/ft_init.log"; exit 1; }
echo "init: $(echo "$(date +%s.%N) - $start" | bc) s"
run_modes forktail "${FT[@]}" bench
sums=$(psql -X -q -At "${FT[@]}" -d bench -c "set forktail.max_snapshot_age_ms = 1" -c "select (select sum(abalance) from pgbench_accounts), (select sum(delta) from pgbench_history), (select sum(tbalance) from pgbench_tellers), (select sum(bbalance) from pgbench_branches)")
echo "invariant (accounts|history|tellers|branches): $sums"
IFS='|' read -r a h t b <<< "$sums"
[ "$a" = "$h" ] && [ "$a" = "$t" ] && [ "$a" = "$b" ] || { echo "INVARIANT BROKEN"; exit 1; }
kill -TERM $FT_PID; wait $FT_PID || true; FT_PID=

echo "== PostgreSQL 15"
postgres_peer_start "$PG_PORT"
PG=(-h 127.0.0.1 -p $PG_PORT -U postgres)
start=$(date +%s.%N)
pgbench -i -s "$SCALE" "${PG[@]}" postgres > "$WORK/pg_init.log" 2>&1
echo "init: $(echo "$(date +%s.%N) - $start" | bc) s"
run_modes postgres "${PG[@]}" postgres

echo "== Summary (tps; latency ms; Forktail/PostgreSQL tps ratio)"
for mode in simple extended prepared; do
  ratio=$(echo "scale=3; ${TPS[forktail,$mode]:-0} / ${TPS[postgres,$mode]:-1}" | bc)
  printf "%-9s forktail %10s tps %8s ms | postgres %10s tps %8s ms | ratio %s\n" "$mode" \
    "${TPS[forktail,$mode]}" "${LAT[forktail,$mode]}" "${TPS[postgres,$mode]}" "${LAT[postgres,$mode]}" "$ratio"
done
