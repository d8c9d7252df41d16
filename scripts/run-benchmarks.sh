#!/usr/bin/env bash
# Runs every micro-benchmark of a Release build; each prints its own baseline
# beside it. Usage: scripts/run-benchmarks.sh BUILD_DIR
set -euo pipefail
build=${1:-build/release}
for b in "$build"/bench/*_bench; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b" --benchmark_counters_tabular=true
done
