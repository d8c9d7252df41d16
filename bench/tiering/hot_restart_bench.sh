#!/usr/bin/env bash
# Which blocks a restart under a memory budget keeps (issue 18, "the hot set
# is loaded from the SSD tier in temperature order"), warm against cold, same
# data, same run.
#
# Loads ROWS rows, sets the budget to a quarter of the table, then runs
# SECS seconds of point reads on a hot tenth of the keys in the middle of the
# table (neither the first blocks, which a load in order keeps, nor the
# tail), checkpoints and stops. Then restarts twice, each time timing 2
# seconds of the same hot reads right after the first answer:
#   warm: the slot table kept: its temperatures (tier reads and use epochs in
#         memory, handed over at each checkpoint) pick the blocks that stay;
#   cold: slots.table deleted: no temperatures, the first blocks loaded stay.
# Prints per restart: seconds to the first answer, the first second's and the
# second second's rate, and the blocks read back during the hot reads.
#
#   bench/tiering/hot_restart_bench.sh build/release/tools/forktail [rows=4000000] [secs=10]
set -euo pipefail
BIN=$(realpath "$1")
ROWS=${2:-4000000}
SECS=${3:-10}
PORT=${PORT:-55543}
WORK=$(mktemp -d "${FORKTAIL_BENCH_DIR:-/tmp}/forktail_hot_XXXXXX")
DATA=$WORK/data
trap 'kill -9 $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT
PSQL=(psql -X -q -At -h 127.0.0.1 -p "$PORT" -U bench -d bench)
TIER=(--ssd-tier-size 8GB)
BUDGET=()

. "$(dirname "$0")/server_lib.sh"
start() {
  drop_caches || true
  start_server "${TIER[@]}" "${BUDGET[@]}"
}
stop() { stop_server; }
read_back() { pool_stat read_back; }
cat > "$WORK/hot.sql" << SQL
\set id random($((ROWS / 2 + 1)), $((ROWS / 2 + ROWS / 10)))
SELECT a, b FROM t WHERE id = :id;
SQL
hot() {  # $1 = seconds: pgbench's per-second rates, one per line
  pgbench -n -h 127.0.0.1 -p "$PORT" -U bench -c 4 -j 2 -T "$1" -P 1 -f "$WORK/hot.sql" bench \
    2>&1 | sed -n 's/^progress: [0-9.]* s, \([0-9.]*\) tps.*/\1/p'
}

start
load_table "$ROWS"
BYTES=$("${PSQL[@]}" -c "select pg_relation_size('t')")
BUDGET=(--memory-budget "$((BYTES / 4 / 1048576))MB")
stop
echo "table t: $((BYTES / 1048576)) MiB of blocks; ${BUDGET[*]}; hot keys $((ROWS / 2 + 1))-$((ROWS / 2 + ROWS / 10))"
start
hot "$SECS" > /dev/null
"${PSQL[@]}" -c "checkpoint"
stop

declare -A UPS FIRST SECOND READ
run() {
  start
  local r0 rates
  r0=$(read_back)
  rates=$(hot 2)
  UPS[$1]=$UP
  FIRST[$1]=$(echo "$rates" | sed -n 1p)
  SECOND[$1]=$(echo "$rates" | sed -n 2p)
  READ[$1]=$(($(read_back) - r0))
  stop
}
run warm
rm "$DATA/tier/slots.table"
run cold
printf '\n%-28s %13s %12s %12s %22s\n' restart "first query s" "1st s txn/s" "2nd s txn/s" \
  "blocks read back (2 s)"
for label in warm cold; do
  name=${label/warm/warm (slot table kept)}
  name=${name/cold/cold (slot table deleted)}
  printf '%-28s %13.2f %12.0f %12.0f %22d\n' "$name" "${UPS[$label]}" "${FIRST[$label]}" \
    "${SECOND[$label]}" "${READ[$label]}"
done
printf 'first second of hot reads, warm vs cold: %.2fx\n' \
  "$(echo "${FIRST[warm]} / ${FIRST[cold]}" | bc -l)"
