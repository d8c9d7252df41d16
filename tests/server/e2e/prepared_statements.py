"""SQL PREPARE / EXECUTE / DEALLOCATE through the wire (run by
tests/server/prepared_statements_test.cc with FORKTAIL_PORT set), beside the
protocol's named statements, with which they share one namespace as in
PostgreSQL: psycopg 3's prepare=True parses "_pg3_n" statements, which
DEALLOCATE and DISCARD ALL (a pooler's reset) must drop, or a later Parse of
the same name fails with 42P05. PostgreSQL 15 gives the same answers."""
import os

import psycopg
import pytest

PORT = int(os.environ.get("FORKTAIL_PORT", "5433"))


def connect(**kwargs):
    return psycopg.connect(host="127.0.0.1", port=PORT, user="tester", dbname="db",
                           autocommit=True, **kwargs)


@pytest.fixture
def table():
    with connect() as conn:
        conn.execute("DROP TABLE IF EXISTS ps_items")
        conn.execute("CREATE TABLE ps_items (id int PRIMARY KEY, name text)")
    yield
    with connect() as conn:
        conn.execute("DROP TABLE IF EXISTS ps_items")


def test_prepare_execute_deallocate(table):
    with connect() as conn:
        conn.execute("PREPARE add_item(int, text) AS INSERT INTO ps_items VALUES ($1, $2) "
                     "RETURNING id, name")
        cur = conn.execute("EXECUTE add_item(1, 'one')")
        assert cur.statusmessage == "INSERT 0 1"
        assert cur.fetchall() == [(1, "one")]
        conn.execute("EXECUTE add_item(2, upper('two'))")
        conn.execute("PREPARE get_item AS SELECT name FROM ps_items WHERE id = $1")
        assert conn.execute("EXECUTE get_item(2)").fetchone() == ("TWO",)
        assert conn.execute("EXECUTE get_item(1)").fetchone() == ("one",)
        with pytest.raises(psycopg.errors.DuplicatePreparedStatement):
            conn.execute("PREPARE get_item AS SELECT 1")
        with pytest.raises(psycopg.errors.SyntaxError):
            conn.execute("EXECUTE get_item")
        with pytest.raises(psycopg.errors.DatatypeMismatch):
            conn.execute("EXECUTE get_item(true)")
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute("EXECUTE add_item(1, 'again')")
        assert conn.execute("DEALLOCATE get_item").statusmessage == "DEALLOCATE"
        with pytest.raises(psycopg.errors.InvalidSqlStatementName):
            conn.execute("EXECUTE get_item(1)")
        with pytest.raises(psycopg.errors.InvalidSqlStatementName):
            conn.execute("DEALLOCATE get_item")
        assert conn.execute("DEALLOCATE ALL").statusmessage == "DEALLOCATE ALL"
        with pytest.raises(psycopg.errors.InvalidSqlStatementName):
            conn.execute("EXECUTE add_item(3, 'three')")
        assert conn.execute("SELECT id, name FROM ps_items ORDER BY id").fetchall() == [
            (1, "one"), (2, "TWO")]


def test_prepared_statements_outlive_a_rollback(table):
    with connect() as conn:
        with pytest.raises(psycopg.errors.UniqueViolation):
            with conn.transaction():
                conn.execute("PREPARE ins(int) AS INSERT INTO ps_items VALUES ($1, 'x')")
                conn.execute("EXECUTE ins(1)")
                conn.execute("EXECUTE ins(1)")
        assert conn.execute("SELECT count(*) FROM ps_items").fetchone() == (0,)
        conn.execute("EXECUTE ins(5)")
        assert conn.execute("SELECT id FROM ps_items").fetchall() == [(5,)]


def test_sessions_do_not_share_names(table):
    with connect() as a, connect() as b:
        a.execute("PREPARE mine AS SELECT 1")
        with pytest.raises(psycopg.errors.InvalidSqlStatementName):
            b.execute("EXECUTE mine")
        b.execute("PREPARE mine AS SELECT 2")
        assert a.execute("EXECUTE mine").fetchone() == (1,)
        assert b.execute("EXECUTE mine").fetchone() == (2,)


def parse(conn, name, sql):
    """A Parse message of a named statement (psycopg's libpq wrapper)."""
    return conn.pgconn.prepare(name.encode(), sql.encode())


def run_parsed(conn, name):
    result = conn.pgconn.exec_prepared(name.encode(), [])
    assert result.status == psycopg.pq.ExecStatus.TUPLES_OK, result.error_message
    return result.get_value(0, 0).decode()


def test_deallocate_and_discard_drop_protocol_statements(table):
    with connect() as conn:
        assert parse(conn, "s1", "SELECT 1").status == psycopg.pq.ExecStatus.COMMAND_OK
        assert parse(conn, "s2", "SELECT 2").status == psycopg.pq.ExecStatus.COMMAND_OK
        # One namespace: PREPARE may not take a name a Parse holds, nor a
        # Parse one PREPARE holds.
        with pytest.raises(psycopg.errors.DuplicatePreparedStatement):
            conn.execute("PREPARE s1 AS SELECT 10")
        conn.execute("PREPARE s3 AS SELECT 3")
        assert parse(conn, "s3", "SELECT 30").status == psycopg.pq.ExecStatus.FATAL_ERROR
        conn.execute("DEALLOCATE s1")
        conn.execute("PREPARE s1 AS SELECT 10")
        assert conn.execute("EXECUTE s1").fetchone() == (10,)
        assert run_parsed(conn, "s2") == "2"
        # DISCARD ALL, as a pooler resets a session between clients: the next
        # client parses its statements again under the same names.
        assert conn.execute("DISCARD ALL").statusmessage == "DISCARD ALL"
        assert parse(conn, "s2", "SELECT 22").status == psycopg.pq.ExecStatus.COMMAND_OK
        assert run_parsed(conn, "s2") == "22"
        with pytest.raises(psycopg.errors.InvalidSqlStatementName):
            conn.execute("EXECUTE s1")
        assert parse(conn, "s4", "SELECT 4").status == psycopg.pq.ExecStatus.COMMAND_OK
        conn.execute("DEALLOCATE ALL")
        assert parse(conn, "s4", "SELECT 44").status == psycopg.pq.ExecStatus.COMMAND_OK
        assert run_parsed(conn, "s4") == "44"
