"""Checkpoints of a running server, as PostgreSQL takes them: by time
(checkpoint_timeout, only when something committed since), by log volume
(max_wal_size, removing the log segments they cover), and on demand with
the CHECKPOINT statement; a kill -9 after them loses nothing. Run by CTest
with the forktail binary as the argument."""
import os
import re
import subprocess
import sys
import tempfile
import time

try:
    import psycopg
except ImportError:
    print("SKIP: psycopg 3 is not installed")
    sys.exit(0)

from forktail_server import connect, free_port, kill, start, stop

BINARY = sys.argv[1]
CHECKPOINT_LINE = re.compile(
    r"checkpoint (\d+) \((time|max_wal_size)\): wrote (\d+) of (\d+) blocks .* "
    r"removed (\d+) log segments")


def checkpoints(log_path):
    """(sequence, reason, segments removed) of every checkpoint line so far."""
    with open(log_path) as f:
        return [(int(m.group(1)), m.group(2), int(m.group(5)))
                for m in CHECKPOINT_LINE.finditer(f.read())]


def wait_for(predicate, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def by_time_and_statement(root):
    data = os.path.join(root, "time")
    log_path = os.path.join(root, "time.log")
    port = free_port()
    with open(log_path, "w") as log:
        proc = start(BINARY, data, port, ["--checkpoint-timeout", "1"], stdout=log)
    try:
        with connect(port) as conn:
            conn.execute("create table t (id int primary key, v text)")
            conn.execute("insert into t select g, 'v' || g from generate_series(1, 5000) g")
            wait_for(lambda: checkpoints(log_path), 15, "a checkpoint by time")
            # Nothing committed since: no further checkpoint by time.
            time.sleep(0.5)
            settled = len(checkpoints(log_path))
            time.sleep(3)
            assert len(checkpoints(log_path)) == settled, checkpoints(log_path)

            # CHECKPOINT over the extended protocol, outside and inside a block.
            cur = conn.execute("checkpoint")
            assert cur.statusmessage == "CHECKPOINT", cur.statusmessage
            with conn.transaction():
                conn.execute("insert into t values (5001, 'in block')")
                conn.execute("CHECKPOINT")
            try:
                conn.execute("checkpoint now")
                raise AssertionError("CHECKPOINT with an argument was accepted")
            except psycopg.errors.SyntaxError:
                pass
            conn.execute("insert into t values (5002, 'after')")
        kill(proc)
        with open(log_path, "a") as log:
            proc = start(BINARY, data, port, stdout=log)
        with connect(port) as conn:
            count, last = conn.execute("select count(*), max(id) from t").fetchone()
            assert (count, last) == (5002, 5002), (count, last)
        assert stop(proc) == 0
    finally:
        if proc.poll() is None:
            kill(proc)


def by_log_volume(root):
    data = os.path.join(root, "wal")
    log_path = os.path.join(root, "wal.log")
    port = free_port()
    with open(log_path, "w") as log:
        proc = start(BINARY, data, port,
                     ["--checkpoint-timeout", "0", "--max-wal-size", "32MB"], stdout=log)
    try:
        payload = "x" * 900
        rows = 0
        with connect(port) as conn:
            conn.execute("create table big (id int primary key, v text)")
            # About 200 MB of log in batches, a commit each: several 64 MiB
            # segments, each checkpoint covering the ones before it.
            for batch in range(20):
                with conn.cursor().copy("copy big (id, v) from stdin") as copy:
                    for i in range(10000):
                        rows += 1
                        copy.write_row((rows, payload))
            found = wait_for(
                lambda: [c for c in checkpoints(log_path) if c[1] == "max_wal_size"] or None, 60,
                "a checkpoint by max_wal_size")
            assert found, checkpoints(log_path)
            wait_for(lambda: sum(c[2] for c in checkpoints(log_path)) > 0, 60,
                     "log segments removed by a checkpoint")
            assert all(c[1] == "max_wal_size" for c in checkpoints(log_path)), \
                checkpoints(log_path)
        segments = [f for f in os.listdir(os.path.join(data, "wal")) if f.endswith(".wal")]
        assert len(segments) <= 2, segments
        kill(proc)
        with open(log_path, "a") as log:
            proc = start(BINARY, data, port, stdout=log)
        with connect(port) as conn:
            assert conn.execute("select count(*) from big").fetchone()[0] == rows
        assert stop(proc) == 0
    finally:
        if proc.poll() is None:
            kill(proc)


def bad_settings(root):
    for flags in (["--max-wal-size", "1MB"], ["--max-wal-size", "lots"],
                  ["--checkpoint-timeout", "-1"]):
        r = subprocess.run([BINARY, "serve", "--data", os.path.join(root, "bad")] + flags,
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2, (flags, r.returncode, r.stdout, r.stderr)
        assert "max_wal_size" in r.stderr or "checkpoint_timeout" in r.stderr, r.stderr


def main():
    with tempfile.TemporaryDirectory() as root:
        bad_settings(root)
        by_time_and_statement(root)
        by_log_volume(root)
    print("OK")


if __name__ == "__main__":
    main()
