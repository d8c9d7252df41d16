"""LISTEN / NOTIFY / pg_notify through the wire with psycopg 3 (run by
tests/server/notify_test.cc with FORKTAIL_PORT set), as job queues use them:
a listener idle on its connection receives what other sessions send, at
their COMMIT, and nothing that was rolled back. PostgreSQL 15 gives the same
answers to every test here."""
import os
import select
import time

import psycopg
import pytest

PORT = int(os.environ.get("FORKTAIL_PORT", "5433"))


def connect():
    return psycopg.connect(host="127.0.0.1", port=PORT, user="tester", dbname="db",
                           autocommit=True)


def arrived(conn, seconds):
    """(channel, payload, pid) of what reaches `conn` while it sends nothing."""
    out = []
    deadline = time.time() + seconds
    while (left := deadline - time.time()) > 0:
        if not select.select([conn.pgconn.socket], [], [], left)[0]:
            break
        conn.pgconn.consume_input()
        while (n := conn.pgconn.notifies()) is not None:
            out.append((n.relname.decode(), n.extra.decode(), n.be_pid))
    return out


def test_idle_listener_receives_notify_and_pg_notify_with_the_sender_pid():
    with connect() as listener, connect() as sender:
        listener.execute("LISTEN jobs")
        listener.execute('LISTEN "Mixed"')
        pid = sender.info.backend_pid
        sender.execute("NOTIFY jobs, 'one'")
        sender.execute("SELECT pg_notify('jobs', %s)", ("two",))
        sender.execute("SELECT pg_notify('Mixed', 'three')")
        sender.execute("NOTIFY other, 'nobody listens'")
        sender.execute("NOTIFY JOBS")  # an identifier: folded to jobs
        assert arrived(listener, 1.0) == [("jobs", "one", pid), ("jobs", "two", pid),
                                          ("Mixed", "three", pid), ("jobs", "", pid)]


def test_a_block_notifies_at_commit_once_per_distinct_notification_and_not_at_rollback():
    with connect() as listener, connect() as sender:
        listener.execute("LISTEN jobs")
        with sender.transaction():
            sender.execute("NOTIFY jobs, 'a'")
            sender.execute("NOTIFY jobs, 'a'")
            sender.execute("NOTIFY jobs, 'b'")
            assert arrived(listener, 0.3) == []
        assert [p for _, p, _ in arrived(listener, 1.0)] == ["a", "b"]
        with pytest.raises(RuntimeError):
            with sender.transaction():
                sender.execute("NOTIFY jobs, 'rolled back'")
                raise RuntimeError("roll back")
        assert arrived(listener, 0.3) == []


def test_listen_in_a_block_starts_at_commit_and_unlisten_stops():
    with connect() as listener, connect() as sender:
        with listener.transaction():
            listener.execute("LISTEN later")
        sender.execute("NOTIFY later, 'x'")
        assert [p for _, p, _ in arrived(listener, 1.0)] == ["x"]
        with pytest.raises(RuntimeError):
            with listener.transaction():
                listener.execute("UNLISTEN later")
                raise RuntimeError("roll back")
        sender.execute("NOTIFY later, 'still'")
        assert [p for _, p, _ in arrived(listener, 1.0)] == ["still"]
        listener.execute("UNLISTEN *")
        sender.execute("NOTIFY later, 'gone'")
        assert arrived(listener, 0.3) == []


def test_a_listener_in_a_block_receives_after_its_block():
    with connect() as listener, connect() as sender:
        listener.execute("LISTEN jobs")
        listener.execute("BEGIN")
        sender.execute("NOTIFY jobs, 'wait'")
        assert arrived(listener, 0.3) == []
        got = []
        listener.add_notify_handler(lambda n: got.append(n.payload))
        listener.execute("COMMIT")
        assert got == ["wait"]


def test_own_notifications_and_errors():
    with connect() as c:
        got = []
        c.add_notify_handler(lambda n: got.append((n.channel, n.payload)))
        c.execute("LISTEN self")
        c.execute("NOTIFY self, 'me'")
        assert got == [("self", "me")]
        with pytest.raises(psycopg.errors.InvalidParameterValue, match="payload string too long"):
            c.execute("NOTIFY self, '" + "x" * 8000 + "'")
        with pytest.raises(psycopg.errors.InvalidParameterValue,
                           match="channel name cannot be empty"):
            c.execute("SELECT pg_notify('', 'x')")
        c.execute("DISCARD ALL")  # UNLISTEN * too
        c.execute("NOTIFY self, 'after discard'")
        assert got == [("self", "me")]
