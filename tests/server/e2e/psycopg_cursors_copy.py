"""psycopg 3's server-side cursors and COPY against `forktail serve` (run by
tests/server/e2e_test.cc with FORKTAIL_PORT set): named cursors (DECLARE over
the extended protocol with parameters, Describe of the cursor's portal, FETCH
FORWARD itersize), scrollable and WITH HOLD cursors, cursor.copy() with
binary rows in (write_row) and text and binary out."""
import datetime
import decimal
import os

import psycopg
import pytest

PORT = int(os.environ.get("FORKTAIL_PORT", "5433"))
ROWS = 10_000


def connect(**kw):
    return psycopg.connect(host="127.0.0.1", port=PORT, user="tester", dbname="db", **kw)


@pytest.fixture(scope="module")
def conn():
    c = connect()
    c.execute("DROP TABLE IF EXISTS big")
    c.execute("CREATE TABLE big (id integer PRIMARY KEY, v text)")
    c.execute("INSERT INTO big SELECT i, 'v' || i FROM generate_series(1, %s) AS g(i)", (ROWS,))
    c.commit()
    yield c
    c.close()


def test_named_cursor_iterates_10000_rows_100_at_a_time(conn):
    with conn.cursor(name="big_cursor") as cur:
        cur.itersize = 100
        cur.execute("SELECT id, v FROM big WHERE id > %s ORDER BY id", (0,))
        seen = 0
        for row in cur:
            seen += 1
            assert row == (seen, "v%d" % seen)
        assert seen == ROWS
        assert [d.name for d in cur.description] == ["id", "v"]
    conn.commit()


def test_scrollable_cursor(conn):
    with conn.cursor(name="scroller", scrollable=True) as cur:
        cur.execute("SELECT id FROM big WHERE id <= 5 ORDER BY id")
        assert cur.fetchmany(3) == [(1,), (2,), (3,)]
        cur.scroll(-2)
        assert cur.fetchone() == (2,)
        cur.scroll(0, mode="absolute")
        assert cur.fetchall() == [(1,), (2,), (3,), (4,), (5,)]
    conn.rollback()


def test_no_scroll_cursor_refuses_backward(conn):
    with conn.cursor(name="forward_only", scrollable=False) as cur:
        cur.execute("SELECT id FROM big ORDER BY id")
        cur.fetchmany(2)
        with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState) as e:
            cur.scroll(-1)
        assert e.value.diag.message_hint == "Declare it with SCROLL option to enable backward scan."
    conn.rollback()


def test_with_hold_cursor_outlives_commit(conn):
    cur = conn.cursor(name="held", withhold=True)
    cur.execute("SELECT id FROM big WHERE id > 9990 ORDER BY id")
    assert cur.fetchone() == (9991,)
    conn.commit()
    assert cur.fetchall() == [(i,) for i in range(9992, 10001)]
    cur.close()
    conn.commit()


def test_named_cursor_outside_a_block_needs_hold():
    with connect(autocommit=True) as c:
        with pytest.raises(psycopg.errors.NoActiveSqlTransaction):
            with c.cursor(name="nohold") as cur:
                cur.execute("SELECT 1")
        with c.cursor(name="hold", withhold=True) as cur:
            cur.execute("SELECT id FROM big WHERE id <= 3 ORDER BY id")
            assert cur.fetchall() == [(1,), (2,), (3,)]


TYPES = ["int4", "text", "numeric", "date", "int8", "float8", "bool", "timestamp"]
COPY_ROWS = [
    (1, "x", decimal.Decimal("1.25"), datetime.date(2024, 1, 2), 5, 1.5, True,
     datetime.datetime(2024, 1, 2, 3, 4, 5)),
    (2, "tab\there \\ new\nline", decimal.Decimal("-0.01"), datetime.date(1999, 12, 31),
     -(2**40), -2.5e-10, False, datetime.datetime(1970, 1, 1, 0, 0, 0, 1)),
    (3, None, None, None, None, None, None, None),
]


def test_copy_binary_in_text_and_binary_out():
    with connect(autocommit=True) as c:
        c.execute("DROP TABLE IF EXISTS pc")
        c.execute("CREATE TABLE pc (a int, b text, c numeric(10,2), d date, e bigint, "
                  "f double precision, g boolean, h timestamp)")
        with c.cursor() as cur:
            with cur.copy("COPY pc FROM STDIN (FORMAT BINARY)") as cp:
                cp.set_types(TYPES)
                for row in COPY_ROWS:
                    cp.write_row(row)
            assert cur.rowcount == 3
            out = b""
            with cur.copy("COPY pc TO STDOUT") as cp:
                for chunk in cp:
                    out += bytes(chunk)
            assert out == (b"1\tx\t1.25\t2024-01-02\t5\t1.5\tt\t2024-01-02 03:04:05\n"
                           b"2\ttab\\there \\\\ new\\nline\t-0.01\t1999-12-31\t-1099511627776"
                           b"\t-2.5e-10\tf\t1970-01-01 00:00:00.000001\n"
                           b"3\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\n")
            with cur.copy("COPY (SELECT * FROM pc ORDER BY a) TO STDOUT (FORMAT BINARY)") as cp:
                cp.set_types(TYPES)
                rows = list(cp.rows())
            assert rows == [tuple(r) for r in COPY_ROWS]
            with cur.copy("COPY pc (a, b) TO STDOUT WITH CSV HEADER") as cp:
                csv = b"".join(bytes(chunk) for chunk in cp)
            assert csv == b'a,b\n1,x\n2,"tab\there \\ new\nline"\n3,\n'
            # Malformed binary input loads nothing.
            with pytest.raises(psycopg.errors.BadCopyFileFormat):
                with cur.copy("COPY pc FROM STDIN (FORMAT BINARY)") as cp:
                    cp.write(b"PGCOPY\n\xff\r\n\x00" + b"\x00" * 8 + b"\x00\x02\x00\x00")
            assert c.execute("SELECT count(*) FROM pc").fetchone() == (3,)
