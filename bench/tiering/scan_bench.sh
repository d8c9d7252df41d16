#!/usr/bin/env bash
# An analytical scan of a table that lives on the SSD tier (issue 18), against
# raw reads of the tier's slot file, same run, same bytes.
#
# Loads ROWS rows through psql into a server whose memory budget is far below
# the table (--memory-budget, default 64MB), checkpoints (the images go to the
# cold store and are written through into the SSD tier), waits until the pool
# has evicted the table, then times RUNS full scans (`select sum(..)` over
# every column, in a snapshot process that reads each evicted block through
# the server's block server). Each scan reads the table back from the tier:
# a scan drops again the blocks it loaded once memory is over the budget.
#
# Baseline: fio, O_DIRECT sequential reads of the slot file's used part in
# 2 MiB requests through io_uring, at queue depth 32 and at 2 (the scan's
# parallelism on a 2-core machine), run beside each scan (before odd ones,
# after even ones): the device's speed drifts, so each scan is compared
# with the raw rate next to it.
#
# Prints, per scan: seconds, blocks and MiB read (from buffer_pool_stats),
# how many came from the tier, GB/s of images, fio's GB/s beside it and the
# ratio to fio at depth 32; then the median ratio.
#
#   bench/tiering/scan_bench.sh build/release/tools/forktail [rows=8000000] [runs=3]
set -euo pipefail
BIN=$(realpath "$1")
ROWS=${2:-8000000}
RUNS=${3:-3}
BUDGET=${BUDGET:-64MB}
PORT=${PORT:-55542}
command -v fio > /dev/null || { echo "scan_bench: needs fio (apt-get install fio)" >&2; exit 2; }
WORK=$(mktemp -d "${FORKTAIL_BENCH_DIR:-/tmp}/forktail_scan_XXXXXX")
DATA=$WORK/data
trap 'kill -9 $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT
PSQL=(psql -X -q -At -h 127.0.0.1 -p "$PORT" -U bench -d bench)

. "$(dirname "$0")/server_lib.sh"
start_server --ssd-tier-size 8GB --memory-budget "$BUDGET"
stat() { pool_stat "$1"; }

echo "loading $ROWS rows (budget $BUDGET)"
load_table "$ROWS"
"${PSQL[@]}" -c "checkpoint"  # the blocks frozen since the first are made durable too
for _ in $(seq 100); do  # the pool evicts every 100 ms once blocks are durable
  [ "$(stat resident_mb)" -le "$(("${BUDGET%MB}" + 8))" ] && break
  sleep 0.1
done
echo "resident after eviction: $(stat resident_mb) MiB of a ${BUDGET} budget"

# The slot file's used part: as many 2 MiB slots as the tier holds valid ones.
VALID=$("$BIN" tier inspect "$DATA" | sed -n 's/^ *valid *\([0-9]*\).*/\1/p')
SIZE=$((VALID * 2))
raw() {  # $1 = iodepth: GB/s of O_DIRECT 2 MiB sequential reads of the slot file
  fio --name=raw --filename="$DATA/tier/slots.data" --readonly --direct=1 --rw=read --bs=2M \
    --ioengine=io_uring --iodepth="$1" --size="${SIZE}M" --output-format=terse --terse-version=3 |
    awk -F';' '{ printf "%.2f", $7 * 1024 / 1e9 }'  # field 7: read bandwidth, KiB/s
}

# Each scan beside fio's read of the same file: the device's speed drifts
# (fio at depth 2 gave 1.6 and 2.9 GB/s within the hour).
printf '\n%-6s %8s %8s %9s %10s %8s %11s %11s %7s\n' scan seconds blocks MiB from_tier GB/s \
  "fio32 GB/s" "fio2 GB/s" "ratio"
RATIOS=()
for run in $(seq "$RUNS"); do
  # fio before odd scans and after even ones, so that neither side always
  # reads right after the other.
  if [ $((run % 2)) -eq 1 ]; then
    raw32=$(raw 32)
    raw2=$(raw 2)
  fi
  r0=$(stat read_back)
  t0=$(stat from_ssd_tier)
  b0=$(stat read_mb)
  s0=$(date +%s.%N)
  "${PSQL[@]}" -c "select sum(id), sum(a), sum(length(b)), sum(c) from t" > /dev/null
  secs=$(echo "$(date +%s.%N) - $s0" | bc -l)
  blocks=$(($(stat read_back) - r0))
  tier=$(($(stat from_ssd_tier) - t0))
  mib=$(($(stat read_mb) - b0))
  if [ $((run % 2)) -eq 0 ]; then
    raw32=$(raw 32)
    raw2=$(raw 2)
  fi
  gbs=$(echo "$mib * 1048576 / $secs / 1000000000" | bc -l)
  ratio=$(echo "$gbs / $raw32" | bc -l)
  RATIOS+=("$ratio")
  printf '%-6s %8.2f %8d %9d %10d %8.2f %11s %11s %7.2f\n' "$run" "$secs" "$blocks" "$mib" \
    "$tier" "$gbs" "$raw32" "$raw2" "$ratio"
done
MEDIAN=$(printf '%s\n' "${RATIOS[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
printf '\nfio: %d MiB of the slot file, O_DIRECT, io_uring, 2 MiB reads, beside each scan\n' "$SIZE"
printf 'scan vs raw at depth 32, median of %d scans: %.2f\n' "$RUNS" "$MEDIAN"
stop_server
