#!/usr/bin/env bash
# go-tpc (PingCAP's public TPC-C driver, v1.0.9, the statements of
# /work/shared/clients/go_tpc_statements.sql) against `forktail serve` and a
# PostgreSQL 15 this script starts: same warehouses, threads and duration, in
# one run. Prints each side's summary (per transaction: count, average and
# p99 latency), tpmC, and the Forktail/PostgreSQL ratio; then go-tpc's own
# consistency check on each.
#
#   bench/go_tpc/go_tpc_compare.sh build/release/tools/forktail [warehouses] [threads] [seconds]
#
# Needs Go (go-tpc is installed into build/tools/go on first use). Both
# servers are durable (fsync; synchronous_commit on).
#
# go-tpc runs with --ignore-error: without it a thread stops at its first
# failed transaction, and Forktail's blocks can answer 40001 (a read whose
# row another session changed without taking a lock; FOR UPDATE / SHARE
# lockers wait for each other instead), which a driver is meant to retry.
# Failed transactions appear in the summary as *_ERR lines and are not
# counted in tpmC; the number of 40001s is printed for each side.
set -euo pipefail
BIN=$(realpath "$1")
WAREHOUSES=${2:-1}
THREADS=${3:-4}
SECS=${4:-60}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
FT_PORT=55453
PG_PORT=55452
. "$ROOT/scripts/lib/postgres_peer.sh"

GOTPC="$ROOT/build/tools/go/bin/go-tpc"
if [ ! -x "$GOTPC" ]; then
  command -v go > /dev/null || { echo "go-tpc needs Go (https://go.dev/dl or apt-get install golang)"; exit 2; }
  GOPATH="$ROOT/build/tools/go" GOFLAGS=-modcacherw go install github.com/pingcap/go-tpc/cmd/go-tpc@v1.0.9
fi

peer_workdir
forktail_peer_start "$BIN" $FT_PORT
postgres_peer_start $PG_PORT
postgres_peer_bench_db $PG_PORT

declare -A TPMC
for label in forktail postgres; do
  port=$FT_PORT; [ $label = postgres ] && port=$PG_PORT
  common=(tpcc -d postgres -H 127.0.0.1 -P "$port" -U bench -D bench --conn-params sslmode=disable
          --warehouses "$WAREHOUSES")
  echo "== $label: prepare $WAREHOUSES warehouse(s)"
  t0=$(date +%s.%N)
  "$GOTPC" "${common[@]}" prepare -T "$THREADS" > "$WORK/$label-prepare.log" 2>&1 ||
    { tail -5 "$WORK/$label-prepare.log"; echo "$label: prepare failed"; exit 1; }
  echo "   loaded in $(echo "$(date +%s.%N) - $t0" | bc | cut -c1-6) s"
  echo "== $label: run $THREADS threads for ${SECS}s"
  "$GOTPC" "${common[@]}" run -T "$THREADS" --time "${SECS}s" --ignore-error \
    > "$WORK/$label-run.log" 2>&1 ||
    { tail -5 "$WORK/$label-run.log"; echo "$label: run failed"; exit 1; }
  grep '^\[Summary\]' "$WORK/$label-run.log" | sed 's/^/   /'
  echo "   serialization failures (40001): $(grep -c 'could not serialize' "$WORK/$label-run.log" || true)"
  TPMC[$label]=$(sed -n 's/^tpmC: \([0-9.]*\).*/\1/p' "$WORK/$label-run.log" | tail -1)
  echo "   tpmC ${TPMC[$label]}"
  echo "== $label: go-tpc check"
  if "$GOTPC" "${common[@]}" check > "$WORK/$label-check.log" 2>&1; then
    echo "   consistency check passed"
  else
    tail -5 "$WORK/$label-check.log" | sed 's/^/   /'
    echo "   consistency check FAILED"
  fi
done
echo
echo "tpmC: forktail ${TPMC[forktail]}, postgres ${TPMC[postgres]}," \
  "ratio $(echo "scale=2; ${TPMC[forktail]} / ${TPMC[postgres]}" | bc)x"
