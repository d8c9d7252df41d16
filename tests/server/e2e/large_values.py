"""Query texts and values past 16 MiB, toward PostgreSQL's 1 GiB (issue 17,
item 8): a `forktail serve` gets a 40 MiB statement text that reads a table
(so that it runs on a snapshot process in a Release build) and returns 48 MiB
values computed from a table's rows. (A stored row is still limited to what
fits in a block, ~1.5 MB: Forktail has no out-of-line storage like
PostgreSQL's TOAST yet, and says so with 54000.) Run by CTest with the
forktail binary as the argument."""
import sys
import tempfile

try:
    import psycopg
except ImportError:
    print("SKIP: psycopg 3 is not installed")
    sys.exit(0)

from forktail_server import connect, free_port, start, stop

BINARY = sys.argv[1]
MIB = 1 << 20


def main():
    with tempfile.TemporaryDirectory() as data:
        port = free_port()
        server = start(BINARY, data, port)
        try:
            with connect(port) as c:
                c.execute("create table t (id int primary key, v text)")
                piece = "".join(chr(ord("a") + i % 26) for i in range(1000)) * 1000  # 1 MB
                c.execute("insert into t values (1, %s), (2, 'small')", (piece,))
                got = c.execute("select v from t where length(v) > 100").fetchone()[0]
                assert got == piece, len(got)
                # A row past a block is refused as too big, not cut.
                try:
                    c.execute("insert into t values (3, %s)", (piece * 3,))
                    raise AssertionError("a 3 MB row was stored")
                except psycopg.errors.ProgramLimitExceeded:
                    pass
                # A 24 MiB value computed on a snapshot comes back whole.
                big = c.execute("select repeat(v, 24) from t where length(v) > 100").fetchone()[0]
                assert big == piece * 24, len(big)
                # A 40 MiB statement text that reads the table.
                literal = "x" * (40 * MIB)
                query = ("select count(*), max(length('" + literal + "')) from t"
                         " where v <> '" + literal[:MIB] + "'")
                assert c.execute(query.encode()).fetchone() == (2, 40 * MIB)
                # A 48 MiB value computed from a table and returned.
                got = c.execute("select repeat(v, 48) || 'end' from t where length(v) > 100")
                value = got.fetchone()[0]
                assert len(value) == 48 * len(piece) + 3 and value == piece * 48 + "end"
                print("PASS: a 40 MiB statement, 24 and 48 MiB results")
            return 0
        finally:
            stop(server)


if __name__ == "__main__":
    sys.exit(main())
