#!/usr/bin/env bash
# make-answers.sh SPEC_DIR OUT_DIR [CACHE_DIR]
#
# The differential SQL test's data and DuckDB's answers (sql_diff_duckdb.py)
# in OUT_DIR, from the schema and queries in SPEC_DIR. Regenerated when the
# inputs change; concurrent callers (CTest runs each test alone) serialize on
# a lock file.
#
# DuckDB comes from the same venv as the TPC-H test's (scripts/tpch):
# $FORKTAIL_TPCH_VENV if set, else CACHE_DIR/tpch-venv (CACHE_DIR defaults to
# OUT_DIR's parent), created with duckdb==1.5.5 and its tpch extension when
# it does not import them yet.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
duckdb_version=1.5.5

[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: $0 SPEC_DIR OUT_DIR [CACHE_DIR]" >&2; exit 2; }
spec="$(cd "$1" && pwd)"
mkdir -p "$2"
out="$(cd "$2" && pwd)"
cache="${3:-$(dirname "$out")}"
case "$out/" in
  "$(cd "$here/../.." && pwd)"/build/*) ;;
  "$(cd "$here/../.." && pwd)"/*) echo "make-answers.sh: OUT_DIR must not be in the source tree" >&2; exit 2 ;;
esac

venv="${FORKTAIL_TPCH_VENV:-$cache/tpch-venv}"
py="$venv/bin/python"
check="import duckdb; assert duckdb.__version__ == '$duckdb_version'"
exec 9>"$out/.lock"
flock 9
if ! [ -x "$py" ] || ! "$py" -c "$check" 2>/dev/null; then
  echo "make-answers.sh: creating the DuckDB venv in $venv" >&2
  mkdir -p "$(dirname "$venv")"
  /usr/bin/python3 -m venv "$venv" >&2
  "$py" -m pip install --quiet --disable-pip-version-check \
    "duckdb==$duckdb_version" "duckdb-extension-tpch==$duckdb_version" >&2
  "$py" -c "$check"
fi
"$py" "$here/sql_diff_duckdb.py" generate "$spec" "$out"
