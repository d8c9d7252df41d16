#!/usr/bin/env bash
# Restart with and without the SSD tier's slot table (issue 18), same data,
# same run. Loads ROWS rows into a table through psql, checkpoints, stops the
# server cleanly, then restarts it three ways and times each from exec to the
# first answered query:
#   warm:  the slot table kept: checkpoint images come from the SSD tier;
#   cold:  slots.table deleted: images come from the cold store (RocksDB) and
#          are copied into the tier on the way;
#   none:  no tier at all (the baseline: the cold store only).
# Also after kill -9 (warm). Prints blocks read from each tier, seconds, and
# the warm/cold ratio. Every block is still loaded before the server serves
# (no buffer pool yet): this measures where the images come from, not a
# server that starts before its data is in.
#
#   bench/tiering/restart_bench.sh build/release/tools/forktail [rows=4000000]
set -euo pipefail
BIN=$(realpath "$1")
ROWS=${2:-4000000}
PORT=${PORT:-55541}
WORK=$(mktemp -d)
DATA=$WORK/data
trap 'kill -9 $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT
PSQL=(psql -X -q -At -h 127.0.0.1 -p "$PORT" -U bench -d bench)

start() {  # $@ = extra serve flags; sets PID and SECS (exec to first answer)
  local t0
  t0=$(date +%s.%N)
  "$BIN" serve --data "$DATA" --port "$PORT" --checkpoint-timeout 0 "$@" > "$WORK/serve.log" 2>&1 &
  PID=$!
  until "${PSQL[@]}" -c "select 1" > /dev/null 2>&1; do
    kill -0 "$PID" 2> /dev/null || { cat "$WORK/serve.log"; exit 1; }
    sleep 0.02
  done
  SECS=$(echo "$(date +%s.%N) - $t0" | bc)
}
stop() { kill -TERM "$PID"; wait "$PID" || true; }
from() { sed -n "s/.*blocks read from it \([0-9]*\), from the cold store \([0-9]*\).*/\1 \2/p" "$WORK/serve.log"; }

TIER=(--ssd-tier-size 8GB)
start "${TIER[@]}"
"${PSQL[@]}" -c "create table t (id bigint primary key, a bigint, b text, c double precision)"
"${PSQL[@]}" -c "insert into t select g, g % 1000, 'row ' || g, g * 0.5 from generate_series(1, $ROWS) g"
"${PSQL[@]}" -c "checkpoint"
stop
"$BIN" tier inspect "$DATA"

start "${TIER[@]}"; WARM=$SECS; WARM_FROM=$(from); stop
rm "$DATA/tier/slots.table"
start "${TIER[@]}"; COLD=$SECS; COLD_FROM=$(from); stop
start; NONE=$SECS; stop
start "${TIER[@]}"; kill -9 "$PID"; wait "$PID" || true
start "${TIER[@]}"; KILLED=$SECS; KILLED_FROM=$(from); stop
"$BIN" tier verify "$DATA" | tail -1

printf '\n%-28s %10s %22s\n' "restart ($ROWS rows)" seconds "blocks tier / cold"
printf '%-28s %10.2f %22s\n' "warm (slot table kept)" "$WARM" "$WARM_FROM"
printf '%-28s %10.2f %22s\n' "warm after kill -9" "$KILLED" "$KILLED_FROM"
printf '%-28s %10.2f %22s\n' "cold (slot table deleted)" "$COLD" "$COLD_FROM"
printf '%-28s %10.2f %22s\n' "no tier (cold store only)" "$NONE" "-"
printf 'warm vs cold: %.2fx faster; warm vs no tier: %.2fx\n' "$(echo "$COLD / $WARM" | bc -l)" \
  "$(echo "$NONE / $WARM" | bc -l)"
