#!/usr/bin/env bash
# Restart with and without the SSD tier's slot table (issue 18), same data,
# same run, with the data BUDGET_FRACTION (default 4) times the memory budget.
#
# Loads ROWS rows into a table through psql, checkpoints, measures the steady
# transaction rate (pgbench, SECS seconds: 90% of the transactions on a hot
# tenth of the keys, each an UPDATE and a SELECT by key), stops the server
# cleanly, then restarts it four ways:
#   warm:          the slot table kept: checkpoint images come from the SSD tier;
#   warm, kill -9: the same after the server was killed instead of stopped;
#   cold:          slots.table deleted: images come from the cold store
#                  (RocksDB) and are copied into the tier on the way;
#   no tier:       the cold store only (the baseline).
# For each: seconds from exec to the first answered query, seconds until the
# transaction rate (pgbench's per-second progress right after the first
# answer) first reaches 90% of the steady rate, and blocks read from the tier
# and from the cold store. The server reads every block of the checkpoint at
# open (evicting past the budget as it goes) to rebuild indexes and
# statistics before it serves: this measures where the images come from and
# how fast the hot set is back, not a server that serves before its data is in.
#
#   bench/tiering/restart_bench.sh build/release/tools/forktail [rows=4000000] [secs=10]
set -euo pipefail
BIN=$(realpath "$1")
ROWS=${2:-4000000}
SECS=${3:-10}
FRACTION=${BUDGET_FRACTION:-4}
PORT=${PORT:-55541}
WORK=$(mktemp -d "${FORKTAIL_BENCH_DIR:-/tmp}/forktail_restart_XXXXXX")
DATA=$WORK/data
trap 'kill -9 $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT
PSQL=(psql -X -q -At -h 127.0.0.1 -p "$PORT" -U bench -d bench)
TIER=(--ssd-tier-size 8GB)
BUDGET=()

. "$(dirname "$0")/server_lib.sh"
start() {  # $@ = extra serve flags
  drop_caches || true
  start_server "${BUDGET[@]}" "$@"
}
stop() { stop_server; }
from() { sed -n "s/.*blocks read from it \([0-9]*\), from the cold store \([0-9]*\).*/\1 \/ \2/p" \
  "$WORK/serve.log"; }

cat > "$WORK/txn.sql" << EOF
\set hot random(1, 100)
\set id random(1, $ROWS)
\if :hot <= 90
\set id random(1, $((ROWS / 10)))
\endif
UPDATE t SET a = a + 1 WHERE id = :id;
SELECT a, b FROM t WHERE id = :id;
EOF
# pgbench's per-second rates, one per line.
rates() {
  pgbench -n -h 127.0.0.1 -p "$PORT" -U bench -c 4 -j 2 -T "$SECS" -P 1 -f "$WORK/txn.sql" bench \
    2>&1 | sed -n 's/^progress: [0-9.]* s, \([0-9.]*\) tps.*/\1/p'
}
# Seconds after the first answer until a second's rate reaches 90% of $STEADY.
to_ninety() {
  awk -v s="$STEADY" '$1 >= 0.9 * s { print NR; found = 1; exit } END { if (!found) print "never" }'
}

start "${TIER[@]}"
load_table "$ROWS"
BYTES=$("${PSQL[@]}" -c "select pg_relation_size('t')")
BUDGET=(--memory-budget "$((BYTES / FRACTION / 1048576))MB")
stop
echo "table t: $((BYTES / 1048576)) MiB of blocks; restarts with ${BUDGET[*]}"

start "${TIER[@]}"
STEADY=$(rates | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')  # the median
"${PSQL[@]}" -c "checkpoint"
echo "steady: $STEADY txn/s (median second); $("${PSQL[@]}" -c "show forktail.buffer_pool_stats")"
stop
"$BIN" tier inspect "$DATA" | head -8

declare -A UPS NINETY FROM
run() {  # $1 = label, then serve flags
  local label=$1
  shift
  start "$@"
  UPS[$label]=$UP
  FROM[$label]=$(from)
  NINETY[$label]=$(rates | to_ninety)
}
run warm "${TIER[@]}"
stop
start "${TIER[@]}"
rates > /dev/null  # writes after the last checkpoint, then kill -9
kill -9 "$PID"
wait "$PID" || true
run killed "${TIER[@]}"
stop
"$BIN" tier verify "$DATA" | tail -1
rm "$DATA/tier/slots.table"
run cold "${TIER[@]}"
stop
run none
stop

printf '\n%-26s %13s %18s %22s\n' "restart ($ROWS rows)" "first query s" "90% of steady s" \
  "blocks tier / cold"
for label in warm killed cold none; do
  name=${label/killed/warm after kill -9}
  name=${name/cold/cold (slot table deleted)}
  name=${name/none/no tier (cold store only)}
  name=${name/#warm/warm (slot table kept)}
  name=${name/warm (slot table kept) after/warm after}
  ninety=${NINETY[$label]}
  [ "$ninety" != never ] && ninety=$(echo "${UPS[$label]} + $ninety" | bc)
  printf '%-26s %13.2f %18s %22s\n' "$name" "${UPS[$label]}" "$ninety" "${FROM[$label]:--}"
done
drop_caches && echo "(page cache dropped before each start)" ||
  echo "(page cache NOT dropped: run as root for a cold cold store)"
printf 'first query, warm vs cold: %.2fx faster; warm vs no tier: %.2fx\n' \
  "$(echo "${UPS[cold]} / ${UPS[warm]}" | bc -l)" "$(echo "${UPS[none]} / ${UPS[warm]}" | bc -l)"
