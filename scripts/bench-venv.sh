#!/usr/bin/env bash
# bench-venv.sh DIR: prints the python of a venv in DIR with what the benchmark
# reports need from PyPI (duckdb 1.5.5, matplotlib, psycopg 3), creating it
# first when it does not import them yet (the pattern of scripts/tpch).
set -euo pipefail
venv=$1
py="$venv/bin/python"
check="import duckdb, matplotlib, psycopg; assert duckdb.__version__ == '1.5.5'"
if ! [ -x "$py" ] || ! "$py" -c "$check" 2>/dev/null; then
  echo "bench-venv.sh: creating the benchmark venv in $venv" >&2
  mkdir -p "$(dirname "$venv")"
  /usr/bin/python3 -m venv "$venv" >&2
  "$py" -m pip install --quiet --disable-pip-version-check duckdb==1.5.5 matplotlib 'psycopg[binary]' >&2
  "$py" -c "$check"
fi
echo "$py"
