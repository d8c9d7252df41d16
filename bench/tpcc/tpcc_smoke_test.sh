#!/usr/bin/env bash
# CTest bench.tpcc_smoke: tpcc_driver against a fresh `forktail serve`: load one
# warehouse, run the mix for 5 s with 2 terminals, check consistency
# conditions 1-4. Asserts no timing. Usage: tpcc_smoke_test.sh DRIVER FORKTAIL
set -euo pipefail
driver=$1
forktail=$2
work=$(mktemp -d /tmp/forktail_tpcc_smoke_XXXXXX)
port=$((20000 + $$ % 20000))
"$forktail" serve --data "$work/data" --port "$port" > "$work/server.log" 2>&1 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do pg_isready -q -h 127.0.0.1 -p "$port" && break; sleep 0.1; done
conn="host=127.0.0.1 port=$port user=bench dbname=bench"
"$driver" load --conn "$conn" -w 1
"$driver" run --conn "$conn" -w 1 -t 2 -d 5 --label forktail
"$driver" check --conn "$conn" -w 1
