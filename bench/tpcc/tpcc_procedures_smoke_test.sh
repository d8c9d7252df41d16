#!/usr/bin/env bash
# CTest bench.tpcc_procedures_smoke: the TPC-C procedures called over the
# wire. `tpcc_inproc --serve` loads one warehouse and registers its C++
# procedures; tpcc_driver runs the mix for 3 s with 2 terminals, one
# `CALL name($1, ...)` per transaction (libpq prepared statements), then
# checks consistency conditions 1-4. Fails on any transaction error; asserts
# no timing. Usage: tpcc_procedures_smoke_test.sh DRIVER TPCC_INPROC
set -euo pipefail
driver=$1
inproc=$2
work=$(mktemp -d /tmp/forktail_tpcc_proc_smoke_XXXXXX)
"$inproc" --serve --port 0 -w 1 --dir "$work/data" > "$work/server.log" 2>&1 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$work"' EXIT
port=
for _ in $(seq 600); do
  port=$(sed -n 's/^tpcc_inproc: serving .* on 127.0.0.1:\([0-9]*\)$/\1/p' "$work/server.log")
  [ -n "$port" ] && break
  kill -0 $pid 2>/dev/null || { cat "$work/server.log"; exit 1; }
  sleep 0.1
done
[ -n "$port" ] || { echo "server did not start"; cat "$work/server.log"; exit 1; }
conn="host=127.0.0.1 port=$port user=bench dbname=bench"
"$driver" run --procedures --conn "$conn" -w 1 -t 2 -d 3 --label forktail
"$driver" check --conn "$conn" -w 1
# A clean shutdown ends with status 0.
kill -TERM $pid
wait $pid
