#!/usr/bin/env bash
# `make bench`: every benchmark of a Release build, each with its baseline from
# the same run; results under bench/results (OUT), summary in
# bench/results/summary.md. Usage: scripts/run-benchmarks.sh BUILD_DIR
#
# BENCH=quick (default, a few minutes) or BENCH=full (long runs):
#                       quick                      full
#   micro-benchmarks    snapshot_engine 1 GiB      snapshot_engine 1, 4 and 8 GiB
#   TPC-H vs DuckDB     SF 1, 1 run per query      SF 1, best of 3
#   TPC-C / CH vs       1 warehouse, 4 terminals,  W (default 4) warehouses,
#   PostgreSQL 15       30 s per run, 1 stream     8 terminals, 300 s, 2 streams
# W, TERMINALS, SECS and CH_STREAMS override the TPC-C / CH figures.
set -euo pipefail
build=$(realpath "${1:-build/release}")
mode=${BENCH:-quick}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/bench/results}
mkdir -p "$out"
if [ "$mode" = full ]; then
  W=${W:-4} TERMINALS=${TERMINALS:-8} SECS=${SECS:-300} CH_STREAMS=${CH_STREAMS:-2} RUNS=3
else
  W=${W:-1} TERMINALS=${TERMINALS:-4} SECS=${SECS:-30} CH_STREAMS=${CH_STREAMS:-1} RUNS=1
fi
status=0

echo "== micro-benchmarks (output in $out/micro.txt)"
for b in "$build"/bench/*_bench; do
  [ -x "$b" ] || continue
  name=$(basename "$b")
  echo "== $name"
  if "$b" --help 2>&1 | grep -q -- '--benchmark_filter'; then
    "$b" --benchmark_counters_tabular=true || { echo "$name FAILED"; status=1; }
  elif [ "$name" = snapshot_engine_bench ] && [ "$mode" != full ]; then
    "$b" --gib=1 --seconds=2 --cycles=50 || { echo "$name FAILED"; status=1; }  # its own flags
  else
    "$b" || { echo "$name FAILED"; status=1; }
  fi
done 2>&1 | tee "$out/micro.txt"
grep -q FAILED "$out/micro.txt" && status=1

echo "== TPC-H SF 1: Forktail vs DuckDB (output in $out/tpch.txt)"
"$root/scripts/tpch/make-data.sh" 1 "$build/../tpch/sf1"
"$build/bench/tpch/tpch_bench" --sf 1 --data "$build/../tpch/sf1" --runs "$RUNS" 2>&1 |
  tee "$out/tpch.txt" || status=1

echo "== TPC-C and CH-benCHmark: Forktail vs PostgreSQL 15 and DuckDB"
CH_STREAMS=$CH_STREAMS OUT=$out "$root/bench/tpcc/tpcc_bench.sh" "$build" "$W" "$TERMINALS" "$SECS" ||
  status=1
echo "== bench ($mode) done; summary: $out/summary.md"
exit $status
