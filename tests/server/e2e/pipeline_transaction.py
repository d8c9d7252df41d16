"""The extended protocol's implicit transaction, as PostgreSQL 15 keeps it:
the statements a client executes before its Sync are one transaction.

psycopg 3 pipelines them (executemany sends every row's Bind/Execute and one
Sync), so a failing row undoes the rows before it; a pipeline's explicit sync
points split it into transactions; a read later in the group sees the group's
writes; BEGIN in the group makes it a transaction block that the client
then ends. Two clients pipelining inserts into one table at once lose
nothing. Every answer here is PostgreSQL 15.18's (run this file with
--port PORT --user U --dbname D against one to check).

Run by CTest with the forktail binary as the argument."""
import sys
import tempfile
import threading

try:
    import psycopg
except ImportError:
    print("SKIP: psycopg 3 is not installed")
    sys.exit(0)

from forktail_server import free_port, start, stop


def check(connect):
    with connect() as c:
        c.execute("DROP TABLE IF EXISTS pt")
        c.execute("CREATE TABLE pt (id int PRIMARY KEY, v text)")

        # One Sync after four rows, the third a duplicate: nothing stays.
        try:
            with c.cursor() as cur:
                cur.executemany("INSERT INTO pt VALUES (%s, 'a')", [(1,), (2,), (2,), (3,)])
            sys.exit("executemany with a duplicate key succeeded")
        except psycopg.errors.UniqueViolation:
            pass
        assert c.execute("SELECT count(*) FROM pt").fetchone()[0] == 0, "rows of a failed group stayed"

        # Sync points split a pipeline: the first group commits, the second
        # (its second row a duplicate) does not.
        try:
            with c.pipeline() as p:
                c.execute("INSERT INTO pt VALUES (10, 'b')")
                c.execute("INSERT INTO pt VALUES (11, 'b')")
                p.sync()
                c.execute("INSERT INTO pt VALUES (12, 'b')")
                c.execute("INSERT INTO pt VALUES (10, 'b')")
            sys.exit("a pipeline with a duplicate key succeeded")
        except psycopg.errors.UniqueViolation:
            pass
        ids = c.execute("SELECT array_agg(id ORDER BY id) FROM pt").fetchone()[0]
        assert ids == [10, 11], ids

        # A read in the group sees the group's writes; an UPDATE too.
        with c.pipeline():
            c.execute("INSERT INTO pt VALUES (20, 'c')")
            c.execute("UPDATE pt SET v = 'd' WHERE id = 20")
            seen = c.execute("SELECT count(*), max(v) FROM pt WHERE id >= 20")
        assert seen.fetchone() == (1, "d")

        # BEGIN in a group makes a block of it, rows before BEGIN included;
        # ROLLBACK then takes them all back.
        with c.pipeline():
            c.execute("INSERT INTO pt VALUES (30, 'e')")
            c.execute("BEGIN")
            c.execute("INSERT INTO pt VALUES (31, 'e')")
        assert c.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
        c.execute("ROLLBACK")
        assert c.execute("SELECT count(*) FROM pt WHERE id >= 30").fetchone()[0] == 0

    # Two clients at once, disjoint keys: every row of both.
    errors = []

    def insert(first):
        try:
            with connect() as c, c.cursor() as cur:
                for batch in range(5):
                    start_id = first + batch * 400
                    cur.executemany("INSERT INTO pt VALUES (%s, 'f')",
                                    [(i,) for i in range(start_id, start_id + 400)])
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=insert, args=(first,)) for first in (1000, 5000)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    with connect() as c:
        assert c.execute("SELECT count(*) FROM pt WHERE id >= 1000").fetchone()[0] == 4000


def main():
    if sys.argv[1] == "--port":  # against a running server (PostgreSQL)
        port, user, dbname = sys.argv[2], sys.argv[4], sys.argv[6]
        check(lambda: psycopg.connect(host="127.0.0.1", port=port, user=user, dbname=dbname,
                                      autocommit=True))
        print("ok")
        return
    from forktail_server import connect
    with tempfile.TemporaryDirectory() as data:
        port = free_port()
        proc = start(sys.argv[1], data, port)
        try:
            check(lambda: connect(port))
        finally:
            assert stop(proc) == 0
    print("ok")


main()
