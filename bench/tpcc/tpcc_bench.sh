#!/usr/bin/env bash
# TPC-C and the CH-benCHmark over the wire, Forktail vs PostgreSQL 15 in one
# run: same driver (bench/tpcc/tpcc_driver), same data (same seed), same
# warehouses, terminals and duration; both servers durable (fsync on).
#
#   bench/tpcc/tpcc_bench.sh BUILD_DIR [warehouses=1] [terminals=4] [seconds=60]
#   environment: CH_STREAMS (analytical streams in the CH run, default 1),
#                INPROC_SECS (seconds per in-process phase, default seconds),
#                OUT (results directory, default bench/results)
#
# 1. loads W warehouses plus SUPPLIER/NATION/REGION into both servers;
# 2. runs the 22 CH queries on that data in PostgreSQL, Forktail and DuckDB
#    (a static copy) and compares every answer with PostgreSQL's;
# 3. TPC-C alone on each server, then TPC-C with CH_STREAMS analytical
#    streams on each; consistency conditions 1-4 after every run;
# 4. TPC-C in process (bench/tpcc/tpcc_inproc: the transactions as C++ stored
#    procedures on one transaction thread) alone, with 1 and with 2 analytical
#    streams, on a database of its own with the same rows;
# 5. writes OUT/*.json, OUT/summary.md and the plots (bench/tpcc/report.py).
# Exits non-zero if a consistency condition or a CH answer fails.
set -euo pipefail
BUILD=$(realpath "$1")
W=${2:-1}
TERMS=${3:-4}
SECS=${4:-60}
STREAMS=${CH_STREAMS:-1}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=$(mkdir -p "${OUT:-$ROOT/bench/results}" && cd "${OUT:-$ROOT/bench/results}" && pwd)
DRIVER=$BUILD/bench/tpcc/tpcc_driver
FT_PORT=${FT_PORT:-55643}
PG_PORT=${PG_PORT:-55642}
PY=$("$ROOT/scripts/bench-venv.sh" "$BUILD/bench-venv")
. "$ROOT/scripts/lib/postgres_peer.sh"
peer_workdir

FT="host=127.0.0.1 port=$FT_PORT user=bench dbname=bench"
PG="host=127.0.0.1 port=$PG_PORT user=postgres dbname=postgres"
forktail_peer_start "$BUILD/tools/forktail" "$FT_PORT"
# Shared buffers big enough for the whole database (the default 128 MB holds
# about one warehouse), as Forktail holds it in memory.
postgres_peer_start "$PG_PORT" "-c shared_buffers=$((256 + 128 * W))MB"
status=0
# What was measured, and how busy the machine was (the figures are only as
# quiet as it).
printf '{"date": "%s", "commit": "%s", "forktail": "%s", "postgres": "%s", "loadavg_before": "%s"}\n' \
  "$(date -u +%FT%TZ)" "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
  "$(realpath "$BUILD/tools/forktail")" "$("$PGBIN/postgres" --version)" "$(cut -d' ' -f1-3 /proc/loadavg)" \
  > "$OUT/run_info.json"

echo "== load: $W warehouse(s) into PostgreSQL 15 and Forktail"
for sys in postgres forktail; do
  conn=$PG; [ $sys = forktail ] && conn=$FT
  s=$(date +%s.%N)
  "$DRIVER" load --conn "$conn" -w "$W"
  echo "$sys: loaded in $(echo "$(date +%s.%N) - $s" | bc) s"
done
psql -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -c "VACUUM ANALYZE" postgres

echo "== CH-benCHmark queries on the loaded data: PostgreSQL, Forktail, DuckDB (static copy)"
"$PY" "$HERE/ch_compare.py" --pg "$PG" --ft "$FT" --queries "$HERE/ch_queries.sql" \
  --json "$OUT/ch_static.json" --work "$WORK" || status=1

# Forktail's own counters around a run: snapshots forked (the refresh rate
# of the analytical side) and how busy the transaction thread was.
ft_show() { psql -X -q -At -h 127.0.0.1 -p "$FT_PORT" -U bench -d bench -c "show forktail.$1"; }
num() { sed -n "s/.*$1=\([0-9]*\).*/\1/p"; }
ft_counters() {
  local t b
  t=$(ft_show txn_thread_stats); b=$(ft_show txn_block_stats)
  echo "$(ft_show snapshot_stats | num created) $(echo "$t" | num busy_ms) $(echo "$t" | num alive_ms)" \
    "$(echo "$b" | num steps) $(echo "$b" | num reruns) $(echo "$b" | num serialization_failures)"
}
ft_counters_json() {  # $1 = before, $2 = after, $3 = file
  read -r c0 b0 a0 s0 r0 f0 <<< "$1"; read -r c1 b1 a1 s1 r1 f1 <<< "$2"
  printf '{"snapshots_created": %d, "txn_thread_busy_ms": %d, "txn_thread_alive_ms": %d, "block_steps": %d, "block_reruns": %d, "serialization_failures": %d}\n' \
    $((c1 - c0)) $((b1 - b0)) $((a1 - a0)) $((s1 - s0)) $((r1 - r0)) $((f1 - f0)) > "$3"
}

check() {  # $1 = system, $2 = conninfo
  "$DRIVER" check --conn "$2" -w "$W" || { echo "$1: TPC-C CONSISTENCY CONDITIONS FAIL"; status=1; }
}
for streams in 0 "$STREAMS"; do
  for sys in postgres forktail; do
    conn=$PG; [ $sys = forktail ] && conn=$FT
    name=tpcc_$sys; [ "$streams" -gt 0 ] && name=ch_$sys
    echo "== $name: $W warehouse(s), $TERMS terminal(s), ${SECS}s, $streams analytical stream(s)"
    [ $sys = forktail ] && before=$(ft_counters)
    "$DRIVER" run --conn "$conn" -w "$W" -t "$TERMS" -d "$SECS" --ch-streams "$streams" \
      --ch-queries "$HERE/ch_queries.sql" --label "$sys" --json "$OUT/$name.json" || status=1
    [ $sys = forktail ] && ft_counters_json "$before" "$(ft_counters)" "$OUT/${name}_counters.json"
    check $sys "$conn"
  done
  [ "$STREAMS" -gt 0 ] || break
done

# The same transactions as stored procedures over the wire: one CALL per
# transaction, the same driver and terminals. PostgreSQL runs PL/pgSQL
# procedures (tpcc_procedures.sql); Forktail runs its C++ procedures
# (tpcc_procedures.cc), which `forktail serve` cannot load: tpcc_inproc
# --serve embeds a server that registers them, over a data set of its own
# loaded with the same rows.
echo "== TPC-C over the wire, one CALL of a stored procedure per transaction"
psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres \
  -f "$HERE/tpcc_procedures.sql" || status=1
FT_PROC_PORT=${FT_PROC_PORT:-55644}
"$BUILD/bench/tpcc/tpcc_inproc" --serve --port "$FT_PROC_PORT" -w "$W" --dir "$WORK/ft_proc" \
  > "$WORK/ft_proc.log" 2>&1 &
proc_pid=$!
for _ in $(seq 600); do grep -q '^tpcc_inproc: serving' "$WORK/ft_proc.log" && break; sleep 0.5; done
FTP="host=127.0.0.1 port=$FT_PROC_PORT user=bench dbname=bench"
for streams in 0 "$STREAMS"; do
  for sys in postgres forktail; do
    conn=$PG; [ $sys = forktail ] && conn=$FTP
    name=proc_$sys; [ "$streams" -gt 0 ] && name=procch_$sys
    echo "== $name: $W warehouse(s), $TERMS terminal(s), ${SECS}s, $streams analytical stream(s)"
    "$DRIVER" run --procedures --conn "$conn" -w "$W" -t "$TERMS" -d "$SECS" --label "$sys" \
      --ch-streams "$streams" --ch-queries "$HERE/ch_queries.sql" --json "$OUT/$name.json" || status=1
    check $sys "$conn"
  done
  [ "$STREAMS" -gt 0 ] || break
done
kill -TERM "$proc_pid" 2>/dev/null || true
wait "$proc_pid" || status=1

echo "== TPC-C in process: stored procedures alone, with 1 and with 2 analytical streams"
"$BUILD/bench/tpcc/tpcc_inproc" -w "$W" -d "${INPROC_SECS:-$SECS}" --streams 0,1,2 \
  --ch-queries "$HERE/ch_queries.sql" --json "$OUT/tpcc_inproc.json" || status=1

python3 - "$OUT/run_info.json" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import json, sys
info = json.load(open(sys.argv[1])); info["loadavg_after"] = sys.argv[2]
json.dump(info, open(sys.argv[1], "w"))
PY
"$PY" "$HERE/report.py" "$OUT" || status=1
echo "== results: $OUT/summary.md"
exit $status
