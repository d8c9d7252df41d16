"""A pipeline's rows are acknowledged only once durable: psycopg's
executemany (pipeline mode: Bind/Execute x 3000, one Sync, so one implicit
transaction) inserts 3,000 rows into a `forktail serve`, which is killed with
SIGKILL the moment the last result arrived; after a restart every
acknowledged row must be there. Eight cycles. Run by CTest with the forktail
binary as the argument."""
import sys
import tempfile
import time

try:
    import psycopg  # noqa: F401 (forktail_server needs it)
except ImportError:
    print("SKIP: psycopg 3 is not installed")
    sys.exit(0)

from forktail_server import connect, free_port, kill, start, stop

BINARY = sys.argv[1]


def main():
    with tempfile.TemporaryDirectory() as data:
        port = free_port()
        proc = start(BINARY, data, port)
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
            kill(proc)  # every row is acknowledged by now
            proc = start(BINARY, data, port)
            with connect(port) as c:
                have = c.execute("SELECT count(*) FROM p WHERE id >= %s", (first,)).fetchone()[0]
            print(f"cycle {cycle}: 3000 acknowledged in {elapsed:.3f} s, {have} after kill -9")
            if have != 3000:
                proc.kill()
                sys.exit(f"cycle {cycle}: {3000 - have} acknowledged rows lost after kill -9")
        assert stop(proc) == 0


main()
