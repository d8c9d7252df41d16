#!/usr/bin/env bash
# make-data.sh SF OUT_DIR [CACHE_DIR]
#
# TPC-H data, Forktail schema, the 22 queries and DuckDB's answers at scale
# factor SF in OUT_DIR (layout: scripts/tpch/tpch_duckdb.py). Idempotent: what
# exists is kept; a complete OUT_DIR is left alone. Concurrent callers (CTest
# runs every TPC-H test in its own process) serialize on a lock file.
#
# DuckDB comes from a venv: $FORKTAIL_TPCH_VENV if set, else CACHE_DIR/tpch-venv
# (CACHE_DIR defaults to OUT_DIR's parent), created with `/usr/bin/python3 -m
# venv` and `pip install duckdb==1.5.5 duckdb-extension-tpch==1.5.5` when it
# does not import them yet. Never inside the source tree: pass a build dir.
#
# Also: make-data.sh --bench OUT_DIR [THREADS] [RUNS] prints DuckDB's per-query
# times (JSON, best of RUNS) on the data of OUT_DIR.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
duckdb_version=1.5.5

usage() { echo "usage: $0 SF OUT_DIR [CACHE_DIR] | $0 --bench OUT_DIR [THREADS] [RUNS]" >&2; exit 2; }

venv_python() {  # $1: cache dir
  local venv="${FORKTAIL_TPCH_VENV:-$1/tpch-venv}"
  local py="$venv/bin/python"
  local check="import duckdb, duckdb_extension_tpch; assert duckdb.__version__ == '$duckdb_version'"
  if ! [ -x "$py" ] || ! "$py" -c "$check" 2>/dev/null; then
    echo "make-data.sh: creating the DuckDB venv in $venv" >&2
    mkdir -p "$(dirname "$venv")"
    /usr/bin/python3 -m venv "$venv" >&2
    "$py" -m pip install --quiet --disable-pip-version-check \
      "duckdb==$duckdb_version" "duckdb-extension-tpch==$duckdb_version" >&2
    "$py" -c "$check"
  fi
  echo "$py"
}

if [ "${1:-}" = "--bench" ]; then
  [ $# -ge 2 ] || usage
  out="$(cd "$2" && pwd)"
  py="$(venv_python "$(dirname "$out")")"
  exec "$py" "$here/tpch_duckdb.py" bench "$out" --threads "${3:-2}" --runs "${4:-3}"
fi

[ $# -ge 2 ] && [ $# -le 3 ] || usage
sf="$1"
mkdir -p "$2"
out="$(cd "$2" && pwd)"
cache="${3:-$(dirname "$out")}"
case "$out/" in
  "$(cd "$here/../.." && pwd)"/build/*) ;;
  "$(cd "$here/../.." && pwd)"/*) echo "make-data.sh: OUT_DIR must not be in the source tree (use build/)" >&2; exit 2 ;;
esac

exec 9>"$out/.lock"
flock 9
if [ -f "$out/COMPLETE" ]; then
  exit 0
fi
py="$(venv_python "$cache")"
echo "make-data.sh: generating TPC-H SF $sf in $out" >&2
"$py" "$here/tpch_duckdb.py" generate "$sf" "$out"
