#!/usr/bin/env bash
# CTest bench.tpcc_smoke: tpcc_driver against a fresh `forktail serve`: load one
# warehouse, run the mix for 5 s with 2 terminals, check consistency
# conditions 1-4. Asserts no timing. Usage: tpcc_smoke_test.sh DRIVER FORKTAIL
set -euo pipefail
driver=$1
forktail=$2
work=$(mktemp -d /tmp/forktail_tpcc_smoke_XXXXXX)
# Port 0: the kernel picks a free one (a fixed guess could collide with a
# client's ephemeral port under ctest -j); the server prints it.
"$forktail" serve --data "$work/data" --port 0 > "$work/server.log" 2>&1 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
port=
for _ in $(seq 300); do
  port=$(sed -n 's/.*listening on [^ ]*:\([0-9]*\) .*/\1/p' "$work/server.log")
  [ -n "$port" ] && break
  kill -0 $pid 2>/dev/null || { cat "$work/server.log"; exit 1; }
  sleep 0.1
done
[ -n "$port" ] || { echo "server did not start"; cat "$work/server.log"; exit 1; }
conn="host=127.0.0.1 port=$port user=bench dbname=bench"
"$driver" load --conn "$conn" -w 1
"$driver" run --conn "$conn" -w 1 -t 2 -d 5 --label forktail
"$driver" check --conn "$conn" -w 1
