"""Savepoints through the wire with psycopg 3 (run by
tests/server/savepoints_test.cc with FORKTAIL_PORT set), as applications use
them: nested `conn.transaction()` blocks (SAVEPOINT "_pg3_n" / RELEASE /
ROLLBACK TO), and get-or-create, which tries an INSERT under a savepoint and
reads the existing row when it fails. PostgreSQL 15 gives the same answers,
except where a test says it checks Forktail's serializable contract."""
import os

import psycopg
import pytest

PORT = int(os.environ.get("FORKTAIL_PORT", "5433"))


def connect(autocommit=True):
    return psycopg.connect(host="127.0.0.1", port=PORT, user="tester", dbname="db",
                           autocommit=autocommit)


@pytest.fixture
def table():
    with connect() as conn:
        conn.execute("DROP TABLE IF EXISTS sp_items")
        conn.execute("CREATE TABLE sp_items (id int PRIMARY KEY, name text UNIQUE, n int)")
        conn.execute("INSERT INTO sp_items VALUES (1, 'one', 1), (2, 'two', 2)")
    yield
    with connect() as conn:
        conn.execute("DROP TABLE IF EXISTS sp_items")


def rows(conn):
    return conn.execute("SELECT id, name, n FROM sp_items ORDER BY id").fetchall()


def test_nested_transactions_roll_back_the_inner_block_only(table):
    with connect() as conn:
        with conn.transaction():
            conn.execute("INSERT INTO sp_items VALUES (3, 'three', 3)")
            with pytest.raises(psycopg.errors.UniqueViolation):
                with conn.transaction():
                    conn.execute("UPDATE sp_items SET n = 10 WHERE id = 1")
                    conn.execute("INSERT INTO sp_items VALUES (4, 'one', 4)")
            with conn.transaction():  # a savepoint released: its writes stay
                conn.execute("UPDATE sp_items SET n = 20 WHERE id = 2")
            assert rows(conn) == [(1, "one", 1), (2, "two", 20), (3, "three", 3)]
        with connect() as other:
            assert rows(other) == [(1, "one", 1), (2, "two", 20), (3, "three", 3)]


def test_get_or_create_in_a_transaction(table):
    def get_or_create(conn, name):
        try:
            with conn.transaction():
                return conn.execute("INSERT INTO sp_items SELECT max(id) + 1, %s, 0 FROM "
                                    "sp_items RETURNING id", (name,)).fetchone()[0], True
        except psycopg.errors.UniqueViolation:
            return conn.execute("SELECT id FROM sp_items WHERE name = %s",
                                (name,)).fetchone()[0], False

    with connect(autocommit=False) as conn:
        conn.execute("SELECT 1")  # BEGIN: each attempt below is a savepoint
        assert get_or_create(conn, "two") == (2, False)
        assert get_or_create(conn, "new") == (3, True)
        assert get_or_create(conn, "new") == (3, False)
        conn.commit()
    with connect() as other:
        assert rows(other) == [(1, "one", 1), (2, "two", 2), (3, "new", 0)]


def test_a_failed_statement_that_would_now_succeed_fails_the_commit(table):
    """Forktail's contract: every block is serializable, and what the client
    learned from an error rolled back to a savepoint counts as a read."""
    with connect(autocommit=False) as conn, connect() as other:
        conn.execute("SELECT 1")  # BEGIN: the block below is a savepoint
        with pytest.raises(psycopg.errors.UniqueViolation):
            with conn.transaction():
                conn.execute("INSERT INTO sp_items VALUES (9, 'two', 9)")
        conn.execute("UPDATE sp_items SET n = n + 1 WHERE id = 1")
        other.execute("DELETE FROM sp_items WHERE name = 'two'")
        with pytest.raises(psycopg.errors.SerializationFailure):
            conn.commit()
        conn.rollback()
        assert rows(other) == [(1, "one", 1)]


def test_cursor_and_settings_after_a_savepoint_are_taken_back(table):
    with connect(autocommit=False) as conn:
        conn.execute("SET LOCAL statement_timeout = '9s'")
        conn.execute("SAVEPOINT a")
        conn.execute("SET LOCAL statement_timeout = '3s'")
        conn.execute("DECLARE c CURSOR FOR SELECT id FROM sp_items")
        conn.execute("ROLLBACK TO SAVEPOINT a")
        assert conn.execute("SHOW statement_timeout").fetchone()[0] == "9s"
        with pytest.raises(psycopg.errors.InvalidCursorName):
            conn.execute("FETCH 1 FROM c")
        conn.rollback()


def test_savepoint_errors_have_postgresql_sqlstates(table):
    with connect() as conn:
        with pytest.raises(psycopg.errors.NoActiveSqlTransaction):
            conn.execute("SAVEPOINT a")
    with connect(autocommit=False) as conn:
        conn.execute("SAVEPOINT a")
        with pytest.raises(psycopg.errors.InvalidSavepointSpecification):
            conn.execute("RELEASE SAVEPOINT b")
        with pytest.raises(psycopg.errors.InFailedSqlTransaction):
            conn.execute("SELECT 1")
        conn.execute("ROLLBACK TO SAVEPOINT a")
        assert conn.execute("SELECT count(*) FROM sp_items").fetchone()[0] == 2
        conn.rollback()
