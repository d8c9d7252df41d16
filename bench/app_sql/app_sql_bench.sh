#!/usr/bin/env bash
# The application-SQL figures of issue 16, Forktail (`forktail serve`) vs a
# PostgreSQL 15 this script starts, same data, clients and duration, in one
# run; each line ends with the Forktail/PostgreSQL ratio.
#
#   bench/app_sql/app_sql_bench.sh build/release/tools/forktail [scale] [seconds]
#
#   pgbench -S -c 4           primary-key lookups (select-only), simple protocol
#   pgbench -M prepared -c 8  TPC-B-like, prepared statements
#   range -c 4                SELECT count(*), sum(aid) over ~100 rows of an
#                             indexed column (CREATE INDEX on pgbench_accounts.
#                             bid_aid = aid % 100000 ... see below), pgbench -f
#   executemany               psycopg 3 executemany of 10,000 autocommit INSERTs
#                             (one connection, pipeline mode; median of 5)
# Both servers are durable (fsync; synchronous_commit on).
set -euo pipefail
BIN=$(realpath "$1")
SCALE=${2:-10}
SECS=${3:-10}
HERE=$(cd "$(dirname "$0")" && pwd)
FT_PORT=55443
PG_PORT=55442
. "$HERE/../../scripts/lib/postgres_peer.sh"
peer_workdir

forktail_peer_start "$BIN" $FT_PORT
postgres_peer_start $PG_PORT
postgres_peer_bench_db $PG_PORT

cat > "$WORK/range.pgb" <<'SQL'
\set lo random(1, 100000 * :scale - 200)
SELECT count(*), sum(aid) FROM pgbench_accounts WHERE k BETWEEN :lo AND :lo + 99;
SQL

declare -A RESULT
setup() {  # $1 = label, $2.. = connection args
  local label=$1; shift
  pgbench -i -q -s "$SCALE" "$@" > "$WORK/$label-init.log" 2>&1
  # A second key, in another order than aid, with an index on it.
  psql -q "$@" -c "ALTER TABLE pgbench_accounts ADD COLUMN k int"
  psql -q "$@" -c "UPDATE pgbench_accounts SET k = ((aid::bigint * 7919) % (100000 * $SCALE))::int + 1" \
    -c "CREATE INDEX pgbench_accounts_k ON pgbench_accounts (k)" -c "VACUUM ANALYZE pgbench_accounts"
}
measure() {  # $1 = label, $2 = name, $3.. = pgbench args
  local label=$1 name=$2; shift 2
  out=$(pgbench -n "$@" 2>&1) || { echo "$out" | tail -3; echo "pgbench failed ($label $name)"; }
  RESULT[$label,$name]=$(echo "$out" | sed -n 's/^tps = \([0-9.]*\).*/\1/p')
  echo "$label $name: tps ${RESULT[$label,$name]}"
}
executemany() {  # $1 = label, $2 = port
  RESULT[$1,executemany]=$(/usr/bin/python3 - "$2" <<'PY'
import sys, time, psycopg
with psycopg.connect(host="127.0.0.1", port=int(sys.argv[1]), user="bench", dbname="bench",
                     autocommit=True) as conn:
    conn.execute("DROP TABLE IF EXISTS em")
    conn.execute("CREATE TABLE em (id int PRIMARY KEY, v text)")
    rates = []
    for _ in range(5):  # the median of five: one run varies by 10-20% here
        conn.execute("DELETE FROM em")
        rows = [(i, "v%d" % i) for i in range(10000)]
        t = time.perf_counter()
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO em VALUES (%s, %s)", rows)
        rates.append(10000 / (time.perf_counter() - t))
        assert conn.execute("SELECT count(*) FROM em").fetchone()[0] == 10000
    print("%.1f" % sorted(rates)[2])
PY
)
  echo "$1 executemany: ${RESULT[$1,executemany]} rows/s"
}

for label in forktail postgres; do
  if [ $label = forktail ]; then C=(-h 127.0.0.1 -p $FT_PORT -U bench bench); P=$FT_PORT
  else C=(-h 127.0.0.1 -p $PG_PORT -U bench bench); P=$PG_PORT; fi
  echo "== $label (scale $SCALE, ${SECS}s per run)"
  setup $label "${C[@]}"
  measure $label select-only -S -c 4 -j 2 -T "$SECS" "${C[@]}"
  measure $label tpcb-prepared -M prepared -c 8 -j 2 -T "$SECS" "${C[@]}"
  measure $label range -f "$WORK/range.pgb" -D scale=$SCALE -c 4 -j 2 -T "$SECS" "${C[@]}"
  executemany $label $P
done

echo "== Forktail / PostgreSQL 15"
for name in select-only tpcb-prepared range executemany; do
  f=${RESULT[forktail,$name]:-0}; p=${RESULT[postgres,$name]:-0}
  awk -v n="$name" -v f="$f" -v p="$p" 'BEGIN { printf "%-14s forktail %10.1f  postgres %10.1f  ratio %.2fx\n", n, f, p, (p > 0 ? f / p : 0) }'
done
