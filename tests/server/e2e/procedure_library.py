"""`forktail serve --procedures FILE`: C++ procedures from a shared library
(tests/server/e2e/sample_procedures.cc) that clients CALL as they would
PostgreSQL procedures and psql's \\df lists: from several connections at once, with results,
errors that change nothing, prepared and in blocks, and again after a
restart (the library is loaded at every start; the data stays). A file that
is missing, is not a library of procedures, or was built for another ABI
stops the start (exit 1) with the reason, before the server listens.

Run by CTest: procedure_library.py FORKTAIL LIBRARY OTHER_ABI_LIBRARY NOT_A_LIBRARY"""
import os
import subprocess
import sys
import tempfile
import threading

try:
    import psycopg
except ImportError:
    print("SKIP: psycopg 3 is not installed")
    sys.exit(0)

from forktail_server import connect, free_port, start, stop

BINARY, LIBRARY, OTHER_ABI, NOT_PROCEDURES = sys.argv[1:5]


def refused(data, library, expect):
    r = subprocess.run([BINARY, "serve", "--data", data, "--port", str(free_port()),
                        "--procedures", library], capture_output=True, text=True, timeout=60)
    out = r.stdout + r.stderr
    assert r.returncode == 1, (r.returncode, out)
    assert "cannot load procedures from " + library in out, out
    assert expect in out, (expect, out)
    assert "listening" not in out, out
    print("refused:", out.strip().splitlines()[-1])


def expect_error(conn, sql, params, sqlstate, text):
    try:
        conn.execute(sql, params)
    except psycopg.Error as e:
        assert e.sqlstate == sqlstate, (sql, e.sqlstate, str(e))
        assert text in str(e), (text, str(e))
        return
    raise AssertionError(f"{sql} {params} did not fail")


def main():
    with tempfile.TemporaryDirectory() as root:
        data = os.path.join(root, "data")
        port = free_port()
        log = open(os.path.join(root, "serve.log"), "w+")
        proc = start(BINARY, data, port, ["--procedures", LIBRARY], stdout=log)
        try:
            with connect(port) as c:
                c.execute("CREATE TABLE accounts (id bigint PRIMARY KEY, balance bigint NOT NULL)")
                for i in range(1, 11):
                    c.execute("CALL open_account(%s, 1000)", (i,))
                assert c.execute("CALL transfer(1, 2, 300)").fetchall() == [(700, 1300)]
                # Errors roll the whole call back.
                expect_error(c, "CALL transfer(%s, %s, %s)", (1, 2, 5000), "P0001",
                             "insufficient funds")
                expect_error(c, "CALL transfer(%s, %s, %s)", (1, 99, 1), "P0002", "no account 99")
                expect_error(c, "CALL open_account(%s, %s)", (3, 1), "23505", "")
                expect_error(c, "CALL transfer(1, 2)", None, "42883", "transfer")
                assert c.execute("SELECT balance FROM accounts WHERE id IN (1, 2) ORDER BY id"
                                 ).fetchall() == [(700,), (1300,)]
                # psql's \df lists them, as PostgreSQL lists its procedures.
                listing = subprocess.run(
                    ["psql", "-X", "-A", "-h", "127.0.0.1", "-p", str(port), "-U", "tester",
                     "-d", "db", "-c", "\\df"], capture_output=True, text=True, timeout=60)
                assert listing.returncode == 0, listing.stderr
                lines = listing.stdout.splitlines()
                assert "public|open_account||bigint, bigint|proc" in lines, listing.stdout
                assert "public|transfer||bigint, bigint, bigint|proc" in lines, listing.stdout
                assert c.execute("SELECT proname, prokind, pronargs, prorettype::int FROM pg_proc "
                                 "ORDER BY 1").fetchall() == [("open_account", "p", 2, 2278),
                                                              ("transfer", "p", 3, 2249)]
                # In a block, with the block's other statements.
                with c.transaction():
                    c.execute("CALL transfer(3, 4, 10)")
                    c.execute("UPDATE accounts SET balance = balance + 1 WHERE id = 5")

            # Four clients at once, 200 transfers each around the ring: the
            # total stays, and each account's balance is what the moves say.
            def client(k, errors):
                try:
                    with connect(port) as cc:
                        for n in range(200):
                            a = (k + n) % 10 + 1
                            b = (k + n + 1) % 10 + 1
                            cc.execute("CALL transfer(%s, %s, %s)", (a, b, 1), prepare=True)
                except Exception as e:  # noqa: BLE001 (reported below)
                    errors.append(e)

            errors = []
            threads = [threading.Thread(target=client, args=(k, errors)) for k in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert not errors, errors
            with connect(port) as c:
                total = c.execute("SELECT sum(balance), count(*) FROM accounts").fetchone()
                assert total == (10001, 10), total
                before = c.execute("SELECT id, balance FROM accounts ORDER BY id").fetchall()
        finally:
            assert stop(proc) == 0
        log.seek(0)
        out = log.read()
        assert "loaded 2 procedure(s) from " + LIBRARY + ": open_account, transfer" in out, out

        # A restart loads the library again; the data is there.
        proc = start(BINARY, data, port, ["--procedures", LIBRARY])
        try:
            with connect(port) as c:
                assert c.execute("SELECT id, balance FROM accounts ORDER BY id").fetchall() == before
                assert c.execute("CALL transfer(10, 1, 1)").fetchone() is not None
        finally:
            assert stop(proc) == 0

        # Without the library the procedures are gone, as PostgreSQL's C
        # functions are without theirs: 42883.
        proc = start(BINARY, data, port)
        try:
            with connect(port) as c:
                expect_error(c, "CALL transfer(1, 2, 3)", None, "42883", "transfer")
        finally:
            assert stop(proc) == 0

        refused(data, os.path.join(root, "missing.so"), "No such file")
        refused(data, NOT_PROCEDURES, "not a Forktail procedure library")
        refused(data, OTHER_ABI, "another compiler")
        print("ok: procedures loaded from", LIBRARY)


main()
