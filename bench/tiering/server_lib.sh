# Shared by the tiering benchmarks (sourced, not run): a `forktail serve`
# over $DATA on $PORT, started and stopped by the script, and the table they
# all load. The caller sets BIN, DATA, WORK and PSQL (psql's argv for the
# server) before calling these.

# Drops the page cache where this user may (root); false elsewhere. Before a
# restart, so that the cold store's files, just written, are read from the
# device as the tier's O_DIRECT reads are.
drop_caches() {
  sync
  if [ -w /proc/sys/vm/drop_caches ]; then echo 3 > /proc/sys/vm/drop_caches; else return 1; fi
}

# $@ = serve flags after --data and --port. Sets PID and UP (seconds from
# exec to the first answered query); the log is $WORK/serve.log.
start_server() {
  local t0
  t0=$(date +%s.%N)
  "$BIN" serve --data "$DATA" --port "$PORT" --checkpoint-timeout 0 "$@" > "$WORK/serve.log" 2>&1 &
  PID=$!
  until "${PSQL[@]}" -c "select 1" > /dev/null 2>&1; do
    kill -0 "$PID" 2> /dev/null || { cat "$WORK/serve.log"; exit 1; }
    sleep 0.02
  done
  UP=$(echo "$(date +%s.%N) - $t0" | bc)
}

stop_server() { kill -TERM "$PID"; wait "$PID" || true; }

# $1 = key of SHOW forktail.buffer_pool_stats: its value.
pool_stat() {
  "${PSQL[@]}" -c "show forktail.buffer_pool_stats" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# $1 = rows: table t (id, a, b, c) with ids 1..rows, then a checkpoint.
load_table() {
  "${PSQL[@]}" -c "create table t (id bigint primary key, a bigint, b text, c double precision)"
  "${PSQL[@]}" -c "insert into t select g, g % 1000, 'row ' || g, g * 0.5 from generate_series(1, $1) g"
  "${PSQL[@]}" -c "checkpoint"
}
