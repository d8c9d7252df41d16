"""Pipelined autocommit statements share log flushes, yet each is acknowledged
only once durable: psycopg's executemany (pipeline mode) inserts 3,000 rows
into a `forktail serve`, which is killed with SIGKILL the moment the last
result arrived; after a restart every acknowledged row must be there. Eight
cycles. Run by CTest with the forktail binary as the argument."""
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

try:
    import psycopg
except ImportError:
    print("SKIP: psycopg 3 is not installed")
    sys.exit(0)

BINARY = sys.argv[1]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(data, port):
    proc = subprocess.Popen([BINARY, "serve", "--data", data, "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        try:
            psycopg.connect(host="127.0.0.1", port=port, user="tester", dbname="db").close()
            return proc
        except psycopg.OperationalError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("forktail serve did not start")


def connect(port):
    return psycopg.connect(host="127.0.0.1", port=port, user="tester", dbname="db",
                           autocommit=True)


def main():
    with tempfile.TemporaryDirectory() as data:
        port = free_port()
        proc = start(data, port)
        with connect(port) as c:
            c.execute("CREATE TABLE p (id int PRIMARY KEY, v text)")
        for cycle in range(8):
            first = cycle * 3000
            with connect(port) as c:
                t = time.perf_counter()
                with c.cursor() as cur:  # pipeline mode: Bind/Execute x 3000, then Sync
                    cur.executemany("INSERT INTO p VALUES (%s, %s)",
                                    [(i, "v") for i in range(first, first + 3000)])
                elapsed = time.perf_counter() - t
            proc.send_signal(signal.SIGKILL)  # every row is acknowledged by now
            proc.wait()
            proc = start(data, port)
            with connect(port) as c:
                have = c.execute("SELECT count(*) FROM p WHERE id >= %s", (first,)).fetchone()[0]
            print(f"cycle {cycle}: 3000 acknowledged in {elapsed:.3f} s, {have} after kill -9")
            if have != 3000:
                proc.kill()
                sys.exit(f"cycle {cycle}: {3000 - have} acknowledged rows lost after kill -9")
        proc.send_signal(signal.SIGTERM)
        proc.wait()


main()
