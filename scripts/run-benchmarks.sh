#!/usr/bin/env bash
# Runs every micro-benchmark of a Release build; each prints its own baseline
# beside it. Usage: scripts/run-benchmarks.sh BUILD_DIR
# BENCH=full runs the benchmarks that have a size knob at their full sizes
# (snapshot_engine_bench: 1, 4 and 8 GiB; minutes); the default is quick.
set -euo pipefail
build=${1:-build/release}
mode=${BENCH:-quick}
for b in "$build"/bench/*_bench; do
  [ -x "$b" ] || continue
  name=$(basename "$b")
  echo "== $name"
  if "$b" --help 2>&1 | grep -q -- '--benchmark_filter'; then
    "$b" --benchmark_counters_tabular=true
  elif [ "$name" = snapshot_engine_bench ] && [ "$mode" != full ]; then
    "$b" --gib=1 --seconds=2 --cycles=50  # its own flags, not Google Benchmark's
  else
    "$b"
  fi
done
