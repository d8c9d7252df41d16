#!/usr/bin/env bash
# Builds pgbench's tables and data on Forktail the way `pgbench -i -s SCALE`
# would, with what Forktail's SQL supports today:
#   - primary keys declared at CREATE TABLE (pgbench_tables.sql): ALTER TABLE
#     ... ADD PRIMARY KEY is refused (0A000);
#   - accounts loaded with plain COPY FROM STDIN: pgbench's client-side
#     generation sends `copy ... with (freeze on)` ("option "freeze" not
#     recognized") and its server-side generation needs generate_series in FROM.
#   pgbench_init.sh SCALE psql-connection-args...   (e.g. -h 127.0.0.1 -p 5433 -U me -d db)
set -euo pipefail
SCALE=$1; shift
HERE=$(cd "$(dirname "$0")" && pwd)
psql -X -q -v ON_ERROR_STOP=1 "$@" -f "$HERE/pgbench_tables.sql" 2>&1 | grep -v NOTICE || true
awk -v s="$SCALE" 'BEGIN { for (b = 1; b <= s; b++) printf "%d\t0\t\n", b }' |
  psql -X -q -v ON_ERROR_STOP=1 "$@" -c "copy pgbench_branches from stdin"
awk -v s="$SCALE" 'BEGIN { for (t = 1; t <= 10 * s; t++) printf "%d\t%d\t0\t\n", t, int((t - 1) / 10) + 1 }' |
  psql -X -q -v ON_ERROR_STOP=1 "$@" -c "copy pgbench_tellers from stdin"
awk -v s="$SCALE" 'BEGIN { for (a = 1; a <= 100000 * s; a++) printf "%d\t%d\t0\t\n", a, int((a - 1) / 100000) + 1 }' |
  psql -X -q -v ON_ERROR_STOP=1 "$@" -c "copy pgbench_accounts from stdin"
psql -X -q -v ON_ERROR_STOP=1 "$@" -c "vacuum analyze pgbench_branches" -c "vacuum analyze pgbench_tellers" \
  -c "vacuum analyze pgbench_accounts" -c "vacuum analyze pgbench_history"
