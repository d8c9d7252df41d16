"""psycopg 3 against `forktail serve` (run by tests/server/e2e_test.cc with
FORKTAIL_PORT set): types round-trip in text and binary, parameters,
transactions, errors carry their SQLSTATE."""
import datetime
import decimal
import os

import psycopg
import pytest

PORT = int(os.environ.get("FORKTAIL_PORT", "5433"))


def connect(**kw):
    return psycopg.connect(host="127.0.0.1", port=PORT, user="tester", dbname="db", **kw)


@pytest.fixture(scope="module")
def conn():
    c = connect(autocommit=True)
    c.execute("DROP TABLE IF EXISTS pyt")
    c.execute("CREATE TABLE pyt (id integer PRIMARY KEY, big bigint, num numeric(12,3), "
              "f double precision, t text, d date, ts timestamp)")
    yield c
    c.close()


ROWS = [
    (1, 2**40, decimal.Decimal("123456.789"), 1.5, "hello", datetime.date(2024, 1, 2),
     datetime.datetime(2024, 1, 2, 3, 4, 5, 678000)),
    (2, -7, decimal.Decimal("-0.001"), -2.25e10, "wörld 'quoted'", datetime.date(1999, 12, 31),
     datetime.datetime(1970, 1, 1, 0, 0, 0, 1)),
    (3, None, None, None, None, None, None),
]


@pytest.mark.parametrize("binary", [False, True])
def test_types_round_trip(conn, binary):
    conn.execute("DELETE FROM pyt")
    with conn.cursor() as cur:
        for row in ROWS:
            cur.execute("INSERT INTO pyt VALUES (%s, %s, %s, %s, %s, %s, %s)", row)
    with conn.cursor(binary=binary) as cur:
        cur.execute("SELECT id, big, num, f, t, d, ts FROM pyt ORDER BY id")
        got = cur.fetchall()
    assert got == ROWS


@pytest.mark.parametrize("binary", [False, True])
def test_parameters_in_where(conn, binary):
    conn.execute("DELETE FROM pyt")
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO pyt (id, big, t) VALUES (%s, %s, %s)",
                        [(i, i * 10, f"r{i}") for i in range(10, 20)])
    with conn.cursor(binary=binary) as cur:
        cur.execute("SELECT id, t FROM pyt WHERE big >= %s AND big < %s ORDER BY id", (120, 150))
        assert cur.fetchall() == [(12, "r12"), (13, "r13"), (14, "r14")]
        cur.execute("SELECT count(*) FROM pyt WHERE t = %s", ("r15",))
        assert cur.fetchone() == (1,)


def test_transactions():
    with connect() as c:  # psycopg opens a transaction itself (reads status I)
        c.execute("DELETE FROM pyt")
        c.commit()
        c.execute("INSERT INTO pyt (id) VALUES (100)")
        c.rollback()
        c.execute("INSERT INTO pyt (id) VALUES (101)")
        c.commit()
        ids = [r[0] for r in c.execute("SELECT id FROM pyt ORDER BY id")]
        assert ids == [101]


def test_errors_carry_sqlstate(conn):
    with pytest.raises(psycopg.errors.UndefinedTable) as e:
        conn.execute("SELECT * FROM no_such_table")
    assert e.value.sqlstate == "42P01"
    with pytest.raises(psycopg.errors.SyntaxError) as e:
        conn.execute("SELEC 1")
    assert e.value.sqlstate == "42601"
    conn.execute("INSERT INTO pyt (id) VALUES (500)")
    with pytest.raises(psycopg.errors.UniqueViolation) as e:
        conn.execute("INSERT INTO pyt (id) VALUES (500)")
    assert e.value.sqlstate == "23505"
    with connect() as c:
        with pytest.raises(psycopg.errors.DivisionByZero):
            c.execute("SELECT 1 / 0")
        c.rollback()
        assert c.execute("SELECT 1").fetchone() == (1,)


def test_integrity_errors_name_their_table_constraint_and_column(conn):
    """PostgreSQL's ErrorResponse fields that drivers read (diag): schema,
    table, constraint, column, as PostgreSQL 15 fills them."""
    conn.execute("DROP TABLE IF EXISTS pyt_child")
    conn.execute("DROP TABLE IF EXISTS pyt_parent")
    conn.execute("CREATE TABLE pyt_parent (id int PRIMARY KEY, code text UNIQUE, "
                 "n int NOT NULL CHECK (n > 0))")
    conn.execute("CREATE TABLE pyt_child (id int PRIMARY KEY, "
                 "parent int REFERENCES pyt_parent (id))")
    conn.execute("INSERT INTO pyt_parent VALUES (1, 'a', 1)")
    conn.execute("INSERT INTO pyt_child VALUES (1, 1)")

    def diag(sql):
        with pytest.raises(psycopg.errors.IntegrityError) as e:
            conn.execute(sql)
        d = e.value.diag
        return (d.sqlstate, d.schema_name, d.table_name, d.constraint_name, d.column_name)

    assert diag("INSERT INTO pyt_parent VALUES (1, 'b', 1)") == (
        "23505", "public", "pyt_parent", "pyt_parent_pkey", None)
    assert diag("INSERT INTO pyt_parent VALUES (2, 'a', 1)") == (
        "23505", "public", "pyt_parent", "pyt_parent_code_key", None)
    assert diag("INSERT INTO pyt_parent VALUES (2, 'b', NULL)") == (
        "23502", "public", "pyt_parent", None, "n")
    assert diag("INSERT INTO pyt_parent VALUES (2, 'b', 0)") == (
        "23514", "public", "pyt_parent", "pyt_parent_n_check", None)
    assert diag("INSERT INTO pyt_child VALUES (2, 9)") == (
        "23503", "public", "pyt_child", "pyt_child_parent_fkey", None)
    assert diag("DELETE FROM pyt_parent WHERE id = 1") == (
        "23503", "public", "pyt_child", "pyt_child_parent_fkey", None)
    conn.execute("DROP TABLE pyt_child")
    conn.execute("DROP TABLE pyt_parent")
