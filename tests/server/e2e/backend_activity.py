"""pg_backend_pid, pg_stat_activity, pg_cancel_backend and
pg_terminate_backend through the wire with psycopg 3 (run by
tests/server/backend_activity_test.cc with FORKTAIL_PORT set), as people and
pools use them: find a session by its query or state, cancel what it runs,
end it."""
import os
import threading
import time

import psycopg
import pytest

PORT = int(os.environ.get("FORKTAIL_PORT", "5433"))


def connect(**kwargs):
    return psycopg.connect(host="127.0.0.1", port=PORT, user="tester", dbname="db",
                           autocommit=True, **kwargs)


def activity(conn, pid):
    return conn.execute(
        "SELECT state, query, application_name, usename, datname, client_addr,"
        " xact_start IS NOT NULL, backend_type FROM pg_stat_activity WHERE pid = %s",
        (pid,)).fetchone()


def wait_for(predicate, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def test_backend_pid_is_the_key_data_pid_and_differs_per_connection():
    with connect() as a, connect() as b:
        pid_a = a.execute("SELECT pg_backend_pid()").fetchone()[0]
        pid_b = b.execute("SELECT pg_backend_pid()").fetchone()[0]
        assert pid_a == a.info.backend_pid
        assert pid_b == b.info.backend_pid
        assert pid_a != pid_b


def test_activity_shows_other_sessions_state_and_query():
    with connect(application_name="watcher") as a, connect(application_name="worker") as b:
        pid_b = b.info.backend_pid
        assert activity(a, pid_b) == ("idle", "", "worker", "tester", "db", "127.0.0.1", False,
                                      "client backend")
        b.execute("BEGIN")
        b.execute("SELECT 42")
        assert activity(a, pid_b)[:3] == ("idle in transaction", "SELECT 42", "worker")
        assert activity(a, pid_b)[6] is True  # xact_start
        with pytest.raises(psycopg.errors.DivisionByZero):
            b.execute("SELECT 1/0")
        assert activity(a, pid_b)[0] == "idle in transaction (aborted)"
        b.execute("ROLLBACK")
        b.execute("SET application_name = 'renamed'")
        assert activity(a, pid_b)[:3] == ("idle", "SET application_name = 'renamed'", "renamed")
        # Its own row: active, running this very query.
        me = a.execute("SELECT state, query FROM pg_stat_activity"
                       " WHERE pid = pg_backend_pid()").fetchone()
        assert me == ("active", "SELECT state, query FROM pg_stat_activity"
                      " WHERE pid = pg_backend_pid()")
    with connect() as a:
        assert a.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s",
                         (pid_b,)).fetchone()[0] == 0


def test_cancel_ends_a_long_query_and_the_session_goes_on():
    with connect() as setup:
        setup.execute("DROP TABLE IF EXISTS g")
        setup.execute("CREATE TABLE g (i int)")
        setup.execute("INSERT INTO g SELECT * FROM generate_series(1, 3000)")
    with connect() as a, connect() as b:
        pid_b = b.info.backend_pid
        failure = []

        def long_query():
            try:
                b.execute("SELECT count(*) FROM g x, g y, g z")
                failure.append("finished")
            except psycopg.errors.QueryCanceled as e:
                failure.append(str(e))

        t = threading.Thread(target=long_query)
        t.start()
        assert wait_for(lambda: activity(a, pid_b)[0] == "active")
        assert a.execute("SELECT pg_cancel_backend(pid) FROM pg_stat_activity"
                         " WHERE query LIKE '%g x, g y%' AND pid <> pg_backend_pid()"
                         ).fetchone()[0] is True
        t.join(60)
        assert not t.is_alive()
        assert failure and "canceling statement due to user request" in failure[0]
        assert b.execute("SELECT count(*) FROM g").fetchone()[0] == 3000
        assert a.execute("SELECT pg_cancel_backend(1)").fetchone()[0] is False


def test_terminate_ends_the_session_and_rolls_back_its_block():
    with connect() as setup:
        setup.execute("DROP TABLE IF EXISTS t")
        setup.execute("CREATE TABLE t (id int PRIMARY KEY)")
    with connect() as a:
        b = connect()
        pid_b = b.info.backend_pid
        b.execute("BEGIN")
        b.execute("INSERT INTO t VALUES (1)")
        assert a.execute("SELECT pg_terminate_backend(%s, 5000)", (pid_b,)).fetchone()[0] is True
        with pytest.raises(psycopg.OperationalError) as e:
            b.execute("INSERT INTO t VALUES (2)")
        assert "terminating connection due to administrator command" in str(e.value)
        assert b.closed or b.broken
        assert a.execute("SELECT count(*) FROM t").fetchone()[0] == 0
        assert a.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s",
                         (pid_b,)).fetchone()[0] == 0
        assert a.execute("SELECT pg_terminate_backend(%s)", (pid_b,)).fetchone()[0] is False
        with pytest.raises(psycopg.errors.InvalidParameterValue):
            a.execute("SELECT pg_terminate_backend(%s, -1)", (pid_b,))


def test_signalling_a_pid_that_is_no_backend_warns_and_answers_false():
    # PostgreSQL warns (01000) so that a loop over pg_stat_activity goes on
    # when a backend ended on its own meanwhile.
    with connect() as a:
        notices = []
        # A Diagnostic is valid only inside the handler.
        a.add_notice_handler(lambda n: notices.append((n.severity, n.sqlstate,
                                                       n.message_primary)))
        ended = connect()
        gone = ended.info.backend_pid
        ended.close()
        assert wait_for(lambda: a.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s",
                                          (gone,)).fetchone()[0] == 0)
        for call in ("pg_cancel_backend(%s)", "pg_terminate_backend(%s)"):
            notices.clear()
            assert a.execute("SELECT " + call, (gone,)).fetchone()[0] is False
            assert notices == [
                ("WARNING", "01000", f"PID {gone} is not a PostgreSQL backend process")]
        notices.clear()
        assert a.execute("SELECT 1").fetchone()[0] == 1
        assert notices == []  # a statement's warnings stay with it
