"""A COPY FROM STDIN too large for the server's memory fails with 53200 and
leaves the server serving (issue 19).

A COPY FROM STDIN outside a block is one transaction: the server holds its
rows until the input ends, then inserts them. Those rows and the redo of their
transaction count against the query memory (`--query-memory`); TPC-H SF10's
lineitem (7.2 GB of text) used to grow the server to 22 GB and the kernel
killed it. Here, with `--query-memory 64MB`:

1. a COPY of ~60 MB fails with 53200 and a hint to split the input, and
   loads nothing; the session goes on, and another session reads and writes
   meanwhile;
2. the same rows in six COPY statements all load;
3. the server stops cleanly.

Usage: copy_memory.py FORKTAIL_BINARY. Run by CTest."""
import sys
import tempfile

try:
    import psycopg
except ImportError:
    print("SKIP: psycopg 3 is not installed")
    sys.exit(0)

from forktail_server import connect, free_port, start, stop

BINARY = sys.argv[1]
ROWS = 600_000


def lines(first, count):
    pad = "x" * 80
    return "".join(f"{i},{pad}{i}\n" for i in range(first, first + count)).encode()


def copy(conn, data):
    with conn.cursor() as cur:
        with cur.copy("COPY t FROM STDIN WITH (FORMAT csv)") as cp:
            for at in range(0, len(data), 1 << 20):
                cp.write(data[at:at + (1 << 20)])


def main():
    with tempfile.TemporaryDirectory(prefix="forktail_copy_memory_") as tmp:
        port = free_port()
        server = start(BINARY, tmp + "/db", port, ["--query-memory", "64MB"])
        try:
            conn = connect(port)
            other = connect(port)
            conn.execute("CREATE TABLE t (id int PRIMARY KEY, s text)")
            other.execute("CREATE TABLE u (id int PRIMARY KEY)")
            data = lines(0, ROWS)
            try:
                copy(conn, data)
                sys.exit(f"a COPY of {len(data) >> 20} MiB under a 64 MB budget loaded")
            except psycopg.Error as e:
                if e.sqlstate != "53200":
                    sys.exit(f"expected 53200, got {e.sqlstate}: {e}")
                if "Split the input" not in (e.diag.message_hint or ""):
                    sys.exit(f"no hint to split the input: {e.diag.message_hint!r}")
                print("1. refused:", e.diag.message_primary)
            other.execute("INSERT INTO u VALUES (1)")
            assert other.execute("SELECT count(*) FROM u").fetchone()[0] == 1
            assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 0, "rows were loaded"
            parts = 6
            for p in range(parts):
                copy(conn, lines(p * ROWS // parts, ROWS // parts))
            count, top = conn.execute("SELECT count(*), max(id) FROM t").fetchone()
            assert (count, top) == (ROWS, ROWS - 1), (count, top)
            print(f"2. {ROWS} rows in {parts} COPY statements")
            conn.close()
            other.close()
        finally:
            code = stop(server)
        if code != 0:
            sys.exit(f"forktail serve exited with {code}")
        print("3. stopped cleanly")


if __name__ == "__main__":
    main()
