# A PostgreSQL 15 peer for benchmarks that compare against it in the same run,
# and the cleanup both it and a `forktail serve` need. Source it, then:
#   peer_workdir            -> $WORK, a fresh temporary directory (removed on exit)
#   FT_PID=...              -> the forktail server to stop on exit (optional)
#   postgres_peer_start PORT [OPTIONS]   initdb (trust) + start on 127.0.0.1:PORT,
#                              durable; OPTIONS: more server options (-c name=value)
#   forktail_peer_start BIN PORT   `BIN serve` on 127.0.0.1:PORT, data in $WORK/ft
#   postgres_peer_bench_db PORT    role and database `bench` on the peer
PGBIN=/usr/lib/postgresql/15/bin
FT_PID=

peer_cleanup() {
  [ -n "$FT_PID" ] && kill -TERM "$FT_PID" 2>/dev/null && wait "$FT_PID" 2>/dev/null || true
  if [ -d "$WORK/pg" ]; then su postgres -c "$PGBIN/pg_ctl -D $WORK/pg -m fast stop" >/dev/null 2>&1 || true; fi
  rm -rf "$WORK"
}

peer_workdir() {
  WORK=$(mktemp -d /tmp/forktail_bench_XXXXXX)
  chmod 755 "$WORK"
  trap peer_cleanup EXIT
}

postgres_peer_start() {
  mkdir "$WORK/pg" && chown postgres "$WORK/pg" && chmod 700 "$WORK/pg"
  su postgres -c "$PGBIN/initdb -D $WORK/pg -A trust" > /dev/null
  su postgres -c "$PGBIN/pg_ctl -D $WORK/pg -o '-p $1 -k /tmp -c max_connections=50 ${2:-}' -l $WORK/pg/server.log -w start" > /dev/null
}

# forktail_peer_start BIN PORT: `forktail serve` on 127.0.0.1:PORT with its data
# in $WORK/ft (log $WORK/ft.log); sets FT_PID (stopped on exit) and waits until
# it accepts connections.
forktail_peer_start() {
  "$1" serve --data "$WORK/ft" --port "$2" > "$WORK/ft.log" 2>&1 &
  FT_PID=$!
  for _ in $(seq 100); do pg_isready -q -h 127.0.0.1 -p "$2" && return 0; sleep 0.1; done
  echo "forktail serve did not start:" >&2; cat "$WORK/ft.log" >&2; return 1
}

# postgres_peer_bench_db PORT: a superuser role `bench` and its database
# `bench` on the PostgreSQL peer (Forktail takes any user and database name).
postgres_peer_bench_db() {
  psql -q -h 127.0.0.1 -p "$1" -U postgres -d postgres -c "CREATE ROLE bench SUPERUSER LOGIN" \
    -c "CREATE DATABASE bench OWNER bench"
}
