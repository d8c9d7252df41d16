#!/usr/bin/env bash
# Runs libFuzzer targets (fuzz/README.md) for SECONDS each, one after another,
# over their seed corpus (fuzz/corpus/<name>) and crash inputs
# (fuzz/regressions/<name>); new inputs go to BUILD/corpus/<name>, which later
# runs continue from (the checked-in corpus is not touched). A crash, leak,
# timeout (-timeout) or memory past -rss_limit_mb stops the run with its input
# in BUILD/artifacts/<name>/ and makes this script fail. Prints one line of
# figures per target at the end (logs: BUILD/logs/<name>.log).
# Usage: run-fuzzers.sh BUILD SECONDS [TARGET...]   (default: every target)
set -uo pipefail
# UBSan reports carry their stack; leaks are reported (LeakSanitizer).
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
cd "$(dirname "$0")/.."
build=$1
seconds=$2
shift 2
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(sql_parser wire_message bind_parameter wal_log redo_record copy)
fi

failed=()
summary=()
for name in "${targets[@]}"; do
  bin=$build/fuzz/${name}_fuzzer
  work=$build/corpus/$name
  mkdir -p "$work" "$build/artifacts/$name" "$build/logs"
  dict=()
  if [ -f "fuzz/$name.dict" ]; then dict=(-dict="fuzz/$name.dict"); fi
  log=$build/logs/$name.log
  echo "fuzz: $name for ${seconds}s"
  "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/artifacts/$name/" "${dict[@]}" \
    "$work" "fuzz/corpus/$name" "fuzz/regressions/$name" > "$log" 2>&1
  rc=$?
  # The last status line: "#N DONE cov: C ft: F corp: U/B exec/s: E rss: R".
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p' <<< "$last")
  summary+=("$(printf '%-15s %12s %8s %6s %7s %12s  %s' "$name" "${execs:-?}" "${rate:-?}" \
    "${cov:-?}" "${ft:-?}" "${corp:-?}" "$([ $rc -eq 0 ] && echo ok || echo "FAILED (rc $rc)")")")
  if [ $rc -ne 0 ]; then
    failed+=("$name")
    grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -5
  fi
done

printf '%-15s %12s %8s %6s %7s %12s  %s\n' target executions exec/s cov ft corpus result
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz: failed: ${failed[*]} (inputs in $build/artifacts/, logs in $build/logs/)"
  exit 1
fi
