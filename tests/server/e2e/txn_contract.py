"""The transaction contract through the wire, with psycopg 3 (run by
tests/server/txn_contract_test.cc with FORKTAIL_PORT set): a connection reads
what another committed; a block pauses between statements and commits while
other connections write; of two conflicting blocks one commits and the other
gets 40001, which a retry loop (as applications write it) gets through."""
import os
import threading
import time

import psycopg
import pytest

PORT = int(os.environ.get("FORKTAIL_PORT", "5433"))


def connect(autocommit=True):
    return psycopg.connect(host="127.0.0.1", port=PORT, user="tester", dbname="db",
                           autocommit=autocommit)


@pytest.fixture()
def table():
    with connect() as c:
        c.execute("DROP TABLE IF EXISTS acct")
        c.execute("CREATE TABLE acct (id int PRIMARY KEY, balance int)")
        c.execute("INSERT INTO acct VALUES (1, 100), (2, 100)")
    yield "acct"


def test_every_new_connection_reads_every_earlier_commit(table):
    with connect() as writer:
        for i in range(3, 23):
            writer.execute("INSERT INTO acct VALUES (%s, 1)", (i,))
            with connect() as reader:
                assert reader.execute("SELECT count(*) FROM acct").fetchone()[0] == i
        writer.execute("CREATE TABLE later (a int)")
        with connect() as reader:
            assert reader.execute("SELECT count(*) FROM later").fetchone()[0] == 0


def test_a_block_with_pauses_commits_while_others_write(table):
    with connect(autocommit=False) as slow, connect() as other:
        slow.execute("UPDATE acct SET balance = balance - 10 WHERE id = 1")
        for i in range(4):  # others write while the block thinks
            other.execute("INSERT INTO acct VALUES (%s, 0)", (100 + i,))
            time.sleep(0.5)
        slow.execute("UPDATE acct SET balance = balance + 10 WHERE id = 2")
        slow.commit()
        assert other.execute("SELECT balance FROM acct WHERE id <= 2 ORDER BY id").fetchall() == [
            (90,), (110,)]


def test_two_conflicting_blocks_one_commits_the_other_gets_40001(table):
    a = connect(autocommit=False)
    b = connect(autocommit=False)
    try:
        # Both check that the pair keeps at least 100 in total, then withdraw.
        assert a.execute("SELECT sum(balance) FROM acct").fetchone()[0] == 200
        assert b.execute("SELECT sum(balance) FROM acct").fetchone()[0] == 200
        a.execute("UPDATE acct SET balance = balance - 100 WHERE id = 1")
        b.execute("UPDATE acct SET balance = balance - 100 WHERE id = 2")
        a.commit()
        with pytest.raises(psycopg.errors.SerializationFailure) as failure:
            b.commit()
        assert failure.value.sqlstate == "40001"
        with connect() as c:
            assert c.execute("SELECT balance FROM acct ORDER BY id").fetchall() == [(0,), (100,)]
    finally:
        a.close()
        b.close()


def test_retry_loops_get_through_contention(table):
    """Eight threads increment one counter by read-modify-write in blocks,
    retrying on 40001: no increment is lost."""
    per_thread, threads = 25, 8
    errors = []

    def work():
        try:
            with connect(autocommit=False) as c:
                done = 0
                while done < per_thread:
                    try:
                        v = c.execute("SELECT balance FROM acct WHERE id = 1").fetchone()[0]
                        c.execute("UPDATE acct SET balance = %s WHERE id = 1", (v + 1,))
                        c.commit()
                        done += 1
                    except psycopg.errors.SerializationFailure:
                        c.rollback()
        except Exception as e:  # reported below
            errors.append(e)

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors
    with connect() as c:
        assert c.execute("SELECT balance FROM acct WHERE id = 1").fetchone()[0] == \
            100 + per_thread * threads
