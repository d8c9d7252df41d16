"""psycopg 3 against `forktail serve` (run by tests/server/e2e_test.cc with
FORKTAIL_PORT set): timestamp with time zone written and read as aware
datetimes in text and binary, as parameters and through COPY (text, CSV and
binary), in the session's TimeZone, and the ParameterStatus that follows
SET TIME ZONE. FORKTAIL_PORT may point at a PostgreSQL 15 too: the answers
are PostgreSQL's."""
import datetime
import decimal
import os
import zoneinfo

import psycopg
import pytest

PORT = int(os.environ.get("FORKTAIL_PORT", "5433"))
USER = os.environ.get("FORKTAIL_USER", "tester")
DB = os.environ.get("FORKTAIL_DB", "db")

UTC = datetime.timezone.utc
PARIS = zoneinfo.ZoneInfo("Europe/Paris")


def connect(**kw):
    return psycopg.connect(host="127.0.0.1", port=PORT, user=USER, dbname=DB, **kw)


@pytest.fixture()
def conn():
    c = connect(autocommit=True)
    yield c
    c.close()


# ---- timestamptz -------------------------------------------------------------

TZ_ROWS = [
    (1, datetime.datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)),
    (2, datetime.datetime(2024, 7, 1, 12, 0, tzinfo=PARIS)),
    (3, datetime.datetime(1999, 12, 31, 23, 59, 59, 999999,
                          tzinfo=datetime.timezone(datetime.timedelta(hours=5, minutes=30)))),
    (4, None),
]


def make_tz_table(conn):
    conn.execute("DROP TABLE IF EXISTS py_tz")
    conn.execute("CREATE TABLE py_tz (id integer PRIMARY KEY, at timestamptz, "
                 "created timestamptz NOT NULL DEFAULT now())")


@pytest.mark.parametrize("binary", [False, True])
def test_timestamptz_round_trip(conn, binary):
    make_tz_table(conn)
    with conn.cursor(binary=binary) as cur:
        cur.executemany("INSERT INTO py_tz (id, at) VALUES (%s, %s)", TZ_ROWS)
        cur.execute("SELECT id, at FROM py_tz ORDER BY id")
        got = cur.fetchall()
    assert got == TZ_ROWS  # equal instants
    for _, at in got:
        assert at is None or at.tzinfo is not None
    # Text results carry the session zone's offset.
    conn.execute("SET TIME ZONE 'Europe/Paris'")
    row = conn.execute("SELECT at FROM py_tz WHERE id = 2").fetchone()
    assert row[0] == TZ_ROWS[1][1]
    assert row[0].utcoffset() == datetime.timedelta(hours=2)
    text = conn.execute("SELECT at::text FROM py_tz WHERE id = 1").fetchone()[0]
    assert text == "2024-01-02 04:04:05.678+01"
    # DEFAULT now() is an aware datetime close to the client's clock.
    created = conn.execute("SELECT created FROM py_tz WHERE id = 1").fetchone()[0]
    assert abs(created - datetime.datetime.now(UTC)) < datetime.timedelta(minutes=5)
    conn.execute("SET TIME ZONE 'UTC'")


@pytest.mark.parametrize("binary", [False, True])
def test_timestamptz_parameters(conn, binary):
    make_tz_table(conn)
    with conn.cursor(binary=binary) as cur:
        cur.executemany("INSERT INTO py_tz (id, at) VALUES (%s, %s)", TZ_ROWS)
        cur.execute("SELECT id FROM py_tz WHERE at >= %s AND at < %s ORDER BY id",
                    (datetime.datetime(2024, 1, 1, tzinfo=UTC),
                     datetime.datetime(2024, 7, 1, 10, 0, 1, tzinfo=UTC)))
        assert cur.fetchall() == [(1,), (2,)]
        # A naive datetime is a timestamp: compared in the session zone.
        cur.execute("SELECT count(*) FROM py_tz WHERE at < %s",
                    (datetime.datetime(2000, 1, 1),))
        assert cur.fetchone() == (1,)


@pytest.mark.parametrize("fmt", ["text", "csv", "binary"])
def test_timestamptz_copy_round_trip(conn, fmt):
    make_tz_table(conn)
    conn.execute("DROP TABLE IF EXISTS py_tz_copy")
    conn.execute("CREATE TABLE py_tz_copy (id integer PRIMARY KEY, at timestamptz)")
    options = "(FORMAT BINARY)" if fmt == "binary" else "(FORMAT CSV)" if fmt == "csv" else ""
    with conn.cursor() as cur:
        with cur.copy(f"COPY py_tz_copy (id, at) FROM STDIN {options}") as copy:
            if fmt == "csv":
                copy.write('1,2024-01-02 03:04:05.678+00\n2,"2024-07-01 12:00:00 Europe/Paris"\n'
                           '3,1999-12-31T23:59:59.999999+05:30\n4,\n')
            else:
                if fmt == "binary":
                    copy.set_types(["int4", "timestamptz"])
                for row in TZ_ROWS:
                    copy.write_row(row)
        rows = []
        with cur.copy(f"COPY py_tz_copy TO STDOUT {options}") as copy:
            if fmt == "binary":
                copy.set_types(["int4", "timestamptz"])
            if fmt == "csv":
                rows = [tuple(line.split(",")) for line in
                        b"".join(bytes(b) for b in copy).decode().splitlines()]
            else:
                rows = list(copy.rows())
    if fmt == "binary":
        assert sorted(rows, key=lambda r: r[0]) == TZ_ROWS
    else:
        got = sorted(rows, key=lambda r: int(r[0]))
        assert got[0] == ("1", "2024-01-02 03:04:05.678+00")
        assert got[1] == ("2", "2024-07-01 10:00:00+00")
        assert got[2] == ("3", "1999-12-31 18:29:59.999999+00")
        assert got[3][1] in (None, "", "\\N")


def test_time_zone_parameter_status():
    # ParameterStatus follows SET TIME ZONE (psycopg keeps what the server
    # last reported); a refused zone changes nothing.
    c = connect(autocommit=True)
    try:
        c.execute("SET TIME ZONE 'europe/paris'")
        assert c.info.parameter_status("TimeZone") == "Europe/Paris"
        assert c.execute("SHOW TimeZone").fetchone() == ("Europe/Paris",)
        c.execute("SET TIME ZONE 5.5")
        assert c.info.parameter_status("TimeZone") == "<+05:30>-05:30"
        c.execute("SET TIME ZONE 'Europe/Paris'")
        with pytest.raises(psycopg.errors.InvalidParameterValue,
                           match='invalid value for parameter "TimeZone": "Foo/Bar"'):
            c.execute("SET TIME ZONE 'Foo/Bar'")
        assert c.info.parameter_status("TimeZone") == "Europe/Paris"
    finally:
        c.close()


def test_two_sessions_two_zones(conn):
    # One instant, written in New York and read in Tokyo and in UTC.
    conn.execute("DROP TABLE IF EXISTS py_tz_two")
    conn.execute("CREATE TABLE py_tz_two (id integer PRIMARY KEY, ts timestamptz)")
    conn.execute("SET TIME ZONE 'America/New_York'")
    conn.execute("INSERT INTO py_tz_two VALUES (1, '2024-01-02 10:00:00')")
    other = connect(autocommit=True)
    try:
        other.execute("SET TIME ZONE 'Asia/Tokyo'")
        got = other.execute("SELECT ts, ts::text FROM py_tz_two").fetchone()
        assert got[0] == datetime.datetime(2024, 1, 2, 15, 0, tzinfo=UTC)
        assert got[0].utcoffset() == datetime.timedelta(hours=9)
        assert got[1] == "2024-01-03 00:00:00+09"
    finally:
        other.close()
    conn.execute("SET TIME ZONE 'UTC'")


def test_time_zone_at_startup():
    # libpq's options (PGOPTIONS) set TimeZone for the new session; a zone
    # PostgreSQL refuses ends the connection attempt.
    c = connect(autocommit=True, options="-c TimeZone=Asia/Tokyo")
    try:
        assert c.info.parameter_status("TimeZone") == "Asia/Tokyo"
        assert c.execute("SELECT timestamptz '2024-01-02 15:00+00'::text").fetchone() == (
            "2024-01-03 00:00:00+09",)
    finally:
        c.close()
    with pytest.raises(psycopg.OperationalError,
                       match='invalid value for parameter "TimeZone": "Foo/Bar"'):
        connect(options="-c TimeZone=Foo/Bar")


# ---- jsonb -------------------------------------------------------------------

DOCS = [
    (1, {"name": "pear", "tags": ["fruit", "green"], "price": 2.5, "stock": None}),
    (2, [1, "two", True, {"deep": {"er": [3]}}]),
    (3, "just a string with \"quotes\" and \u00e9"),
    (4, None),
]


@pytest.mark.parametrize("binary", [False, True])
def test_jsonb_round_trip_parameters_and_operators(conn, binary):
    from psycopg.types.json import Jsonb
    conn.execute("DROP TABLE IF EXISTS py_jsonb")
    conn.execute("CREATE TABLE py_jsonb (id integer PRIMARY KEY, doc jsonb)")
    with conn.cursor(binary=binary) as cur:
        cur.executemany("INSERT INTO py_jsonb VALUES (%s, %s)",
                        [(i, None if d is None else Jsonb(d)) for i, d in DOCS])
        cur.execute("SELECT id, doc FROM py_jsonb ORDER BY id")
        assert cur.fetchall() == DOCS
        # Operators with parameters: containment, field and path access.
        cur.execute("SELECT id FROM py_jsonb WHERE doc @> %s ORDER BY id", (Jsonb({"tags": ["green"]}),))
        assert cur.fetchall() == [(1,)]
        cur.execute("SELECT doc->>%s, doc #> %s FROM py_jsonb WHERE id = %s",
                    ("name", ["tags", "1"], 1))
        assert cur.fetchall() == [("pear", "green")]
        cur.execute("SELECT doc -> 3 -> 'deep' FROM py_jsonb WHERE id = %s", (2,))
        assert cur.fetchall() == [({"er": [3]},)]
        cur.execute("UPDATE py_jsonb SET doc = jsonb_set(doc, '{price}', %s) WHERE id = 1 "
                    "RETURNING doc->'price'", (Jsonb(3),))
        assert cur.fetchall() == [(3,)]
        cur.execute("SELECT jsonb_build_object('id', id, 'kind', jsonb_typeof(doc)) "
                    "FROM py_jsonb WHERE doc IS NOT NULL ORDER BY id")
        assert [r[0] for r in cur.fetchall()] == [
            {"id": 1, "kind": "object"}, {"id": 2, "kind": "array"}, {"id": 3, "kind": "string"}]
    with pytest.raises(psycopg.errors.InvalidTextRepresentation):
        conn.execute("SELECT %s::jsonb", ("{not json",))


# ---- uuid --------------------------------------------------------------------

@pytest.mark.parametrize("binary", [False, True])
def test_uuid_round_trip_parameters_and_copy(conn, binary):
    import uuid
    fixed = uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")
    conn.execute("DROP TABLE IF EXISTS py_uuid")
    conn.execute("CREATE TABLE py_uuid (id uuid PRIMARY KEY, parent uuid, n integer)")
    ids = [fixed] + [uuid.uuid4() for _ in range(20)]
    with conn.cursor(binary=binary) as cur:
        # Parameters as psycopg sends uuid.UUID (oid 2950, in the cursor's format).
        cur.executemany("INSERT INTO py_uuid VALUES (%s, %s, %s)",
                        [(u, None if i == 0 else fixed, i) for i, u in enumerate(ids)])
        cur.execute("SELECT id, parent FROM py_uuid WHERE id = %s", (fixed,))
        assert cur.fetchall() == [(fixed, None)]
        cur.execute("SELECT count(*) FROM py_uuid WHERE parent = %s", (fixed,))
        assert cur.fetchone()[0] == 20
        cur.execute("SELECT id FROM py_uuid ORDER BY id")
        assert [r[0] for r in cur.fetchall()] == sorted(ids, key=lambda u: u.bytes)
        cur.execute("SELECT gen_random_uuid()")
        generated = cur.fetchone()[0]
        assert isinstance(generated, uuid.UUID) and generated.version == 4
    # COPY in the session's format, both ways.
    with conn.cursor() as cur:
        fmt = "binary" if binary else "text"
        with cur.copy(f"COPY py_uuid (id, n) TO STDOUT (FORMAT {fmt})") as copy:
            copy.set_types(["uuid", "int4"])
            out = sorted(copy.rows(), key=lambda r: r[1])
        assert [r[0] for r in out] == ids
        conn.execute("DELETE FROM py_uuid")
        with cur.copy(f"COPY py_uuid (id, n) FROM STDIN (FORMAT {fmt})") as copy:
            copy.set_types(["uuid", "int4"])
            for u, n in out:
                copy.write_row((u, n))
        cur.execute("SELECT count(*), min(n), max(n) FROM py_uuid")
        assert cur.fetchone() == (21, 0, 20)
    with pytest.raises(psycopg.errors.InvalidTextRepresentation):
        conn.execute("SELECT %s::uuid", ("not-a-uuid",))


# ---- bytea -------------------------------------------------------------------

BLOBS = [
    (1, b""),
    (2, b"\x00\x01\x02\xff\xfe\\'\"\n\t plain text"),
    (3, bytes(range(256)) * 40),  # 10 KiB, every byte value
    (4, None),
]


@pytest.mark.parametrize("binary", [False, True])
def test_bytea_round_trip_parameters_and_copy(conn, binary):
    conn.execute("DROP TABLE IF EXISTS py_bytea")
    conn.execute("CREATE TABLE py_bytea (id integer PRIMARY KEY, b bytea)")
    with conn.cursor(binary=binary) as cur:
        # psycopg sends bytes as bytea (oid 17), binary unless told otherwise.
        cur.executemany("INSERT INTO py_bytea VALUES (%s, %s)", BLOBS)
        cur.execute("SELECT id, b FROM py_bytea ORDER BY id")
        assert cur.fetchall() == BLOBS
        cur.execute("SELECT id FROM py_bytea WHERE b = %s", (BLOBS[1][1],))
        assert cur.fetchall() == [(2,)]
        cur.execute("SELECT length(b), encode(b, 'base64') FROM py_bytea WHERE id = 2")
        import base64
        assert cur.fetchone() == (len(BLOBS[1][1]), base64.b64encode(BLOBS[1][1]).decode())
        cur.execute("SELECT %s::bytea || %s::bytea", (b"\x00a", b"\xffb"))
        assert cur.fetchone()[0] == b"\x00a\xffb"
    with conn.cursor() as cur:
        fmt = "binary" if binary else "text"
        with cur.copy(f"COPY py_bytea TO STDOUT (FORMAT {fmt})") as copy:
            copy.set_types(["int4", "bytea"])
            out = sorted(copy.rows(), key=lambda r: r[0])
        assert out == BLOBS
        conn.execute("DELETE FROM py_bytea")
        with cur.copy(f"COPY py_bytea FROM STDIN (FORMAT {fmt})") as copy:
            copy.set_types(["int4", "bytea"])
            for row in out:
                copy.write_row(row)
        cur.execute("SELECT id, b FROM py_bytea ORDER BY id")
        assert cur.fetchall() == BLOBS
    with pytest.raises(psycopg.errors.InvalidParameterValue):
        conn.execute("SELECT '\\x0g'::bytea")


# ---- interval ----------------------------------------------------------------

SPANS = [
    (1, datetime.timedelta(days=1, hours=2, minutes=3, seconds=4, microseconds=500000)),
    (2, datetime.timedelta(seconds=-1, microseconds=250)),
    (3, datetime.timedelta(days=-40, hours=5)),
    (4, datetime.timedelta(0)),
    (5, None),
]


@pytest.mark.parametrize("binary", [False, True])
def test_interval_round_trip_parameters_and_copy(conn, binary):
    conn.execute("DROP TABLE IF EXISTS py_interval")
    conn.execute("CREATE TABLE py_interval (id integer PRIMARY KEY, took interval, "
                 "started timestamptz)")
    start = datetime.datetime(2024, 3, 1, 10, 0, tzinfo=UTC)
    with conn.cursor(binary=binary) as cur:
        # psycopg sends timedelta as interval (oid 1186).
        cur.executemany("INSERT INTO py_interval VALUES (%s, %s, %s)",
                        [(i, d, start) for i, d in SPANS])
        cur.execute("SELECT id, took FROM py_interval ORDER BY id")
        assert cur.fetchall() == SPANS
        cur.execute("SELECT id FROM py_interval WHERE took > %s ORDER BY took",
                    (datetime.timedelta(0),))
        assert [r[0] for r in cur.fetchall()] == [1]
        cur.execute("SELECT started + took FROM py_interval WHERE id = 1")
        assert cur.fetchone()[0] == start + SPANS[0][1]
        cur.execute("SELECT %s::timestamptz - started FROM py_interval WHERE id = 1",
                    (start + datetime.timedelta(hours=36),))
        assert cur.fetchone()[0] == datetime.timedelta(hours=36)
        cur.execute("SELECT sum(took), avg(took) FILTER (WHERE id < 3) FROM py_interval")
        total, avg = cur.fetchone()
        assert total == sum((d for _, d in SPANS if d is not None), datetime.timedelta(0))
        assert avg == (SPANS[0][1] + SPANS[1][1]) / 2
    with conn.cursor() as cur:
        fmt = "binary" if binary else "text"
        with cur.copy(f"COPY py_interval (id, took) TO STDOUT (FORMAT {fmt})") as copy:
            copy.set_types(["int4", "interval"])
            out = sorted(copy.rows(), key=lambda r: r[0])
        assert out == SPANS
        conn.execute("DELETE FROM py_interval")
        with cur.copy(f"COPY py_interval (id, took) FROM STDIN (FORMAT {fmt})") as copy:
            copy.set_types(["int4", "interval"])
            for row in out:
                copy.write_row(row)
        cur.execute("SELECT id, took FROM py_interval ORDER BY id")
        assert cur.fetchall() == SPANS
    with pytest.raises(psycopg.errors.InvalidDatetimeFormat):
        conn.execute("SELECT %s::interval", ("soon",))


# ---- arrays ------------------------------------------------------------------

@pytest.mark.parametrize("binary", [False, True])
def test_arrays_arrive_as_lists(conn, binary):
    conn.execute("DROP TABLE IF EXISTS py_arr")
    conn.execute("CREATE TABLE py_arr (id integer PRIMARY KEY, name text)")
    conn.execute("INSERT INTO py_arr VALUES (1, 'a'), (2, 'b b'), (3, NULL)")
    with conn.cursor(binary=binary) as cur:
        # Array results carry their array type's oid: psycopg reads lists.
        cur.execute("SELECT array_agg(id ORDER BY id), array_agg(name ORDER BY name) FROM py_arr")
        assert cur.fetchone() == ([1, 2, 3], ["a", "b b", None])
        cur.execute("SELECT array[1.5, 2.25], array[true, false], array[date '2024-01-02'], "
                    "'{}'::int[], array[interval '1 day'], string_to_array('x,y', ',')")
        assert cur.fetchone() == ([decimal.Decimal("1.5"), decimal.Decimal("2.25")], [True, False],
                                  [datetime.date(2024, 1, 2)], [], [datetime.timedelta(days=1)],
                                  ["x", "y"])
        # A list parameter, in the cursor's format.
        cur.execute("SELECT name FROM py_arr WHERE id = ANY(%s) ORDER BY id", ([1, 3],))
        assert cur.fetchall() == [("a",), (None,)]
        cur.execute("SELECT %s::text[] || 'z'::text", (["p", "q"],))
        assert cur.fetchone()[0] == ["p", "q", "z"]


ARRAY_ROWS = [
    (1, ["a", "b c", None, "NULL", '"q"'], [1, 2, 3], [decimal.Decimal("1.50"), None],
     [datetime.date(2024, 1, 2)]),
    (2, [], [10], [], None),
    (3, None, [-5, 6], [decimal.Decimal("-0.5")], []),
]


@pytest.mark.parametrize("binary", [False, True])
def test_array_columns_round_trip_parameters_and_copy(conn, binary):
    conn.execute("DROP TABLE IF EXISTS py_arr_cols")
    conn.execute("CREATE TABLE py_arr_cols (id integer PRIMARY KEY, tags text[], nums bigint[], "
                 "prices numeric[], days date[])")
    with conn.cursor(binary=binary) as cur:
        # Lists go as parameters in the cursor's format (array_recv for binary).
        cur.executemany("INSERT INTO py_arr_cols VALUES (%s, %s, %s, %s, %s)", ARRAY_ROWS)
        cur.execute("SELECT id, tags, nums, prices, days FROM py_arr_cols ORDER BY id")
        assert cur.fetchall() == ARRAY_ROWS
        # Order and equality are by elements, not by the text form.
        cur.execute("SELECT id FROM py_arr_cols ORDER BY nums DESC")
        assert [r[0] for r in cur.fetchall()] == [2, 1, 3]
        cur.execute("SELECT id FROM py_arr_cols WHERE nums = %s::bigint[]", ([-5, 6],))
        assert cur.fetchall() == [(3,)]
        cur.execute("UPDATE py_arr_cols SET nums = %s WHERE id = 2", ([7, None, 9],))
        cur.execute("SELECT nums FROM py_arr_cols WHERE id = 2")
        assert cur.fetchone()[0] == [7, None, 9]
    # A bad element is refused with the element type's error, nothing stored.
    with pytest.raises(psycopg.errors.InvalidTextRepresentation):
        conn.execute("INSERT INTO py_arr_cols (id, nums) VALUES (9, %s)", ("{1,x}",))
    with pytest.raises(psycopg.errors.InvalidTextRepresentation):
        conn.execute("INSERT INTO py_arr_cols (id, tags) VALUES (9, %s)", ("{a",))
    assert conn.execute("SELECT count(*) FROM py_arr_cols").fetchone()[0] == 3
    conn.execute("UPDATE py_arr_cols SET nums = %s WHERE id = 2", ([10],))
    with conn.cursor() as cur:
        fmt = "binary" if binary else "text"
        types = ["int4", "text[]", "int8[]", "numeric[]", "date[]"]
        with cur.copy(f"COPY py_arr_cols TO STDOUT (FORMAT {fmt})") as copy:
            copy.set_types(types)
            out = sorted(copy.rows(), key=lambda r: r[0])
        assert out == ARRAY_ROWS
        conn.execute("DELETE FROM py_arr_cols")
        with cur.copy(f"COPY py_arr_cols FROM STDIN (FORMAT {fmt})") as copy:
            copy.set_types(types)
            for row in out:
                copy.write_row(row)
        cur.execute("SELECT id, tags, nums, prices, days FROM py_arr_cols ORDER BY id")
        assert cur.fetchall() == ARRAY_ROWS


# ---- time --------------------------------------------------------------------

TIME_ROWS = [
    (1, datetime.time(9, 0)),
    (2, datetime.time(14, 7, 9, 500000)),
    (3, datetime.time(23, 59, 59, 999999)),
    (4, None),
]


@pytest.mark.parametrize("binary", [False, True])
def test_time_round_trip_parameters_and_copy(conn, binary):
    conn.execute("DROP TABLE IF EXISTS py_time")
    conn.execute("CREATE TABLE py_time (id integer PRIMARY KEY, opens time)")
    with conn.cursor(binary=binary) as cur:
        # psycopg sends datetime.time as time (oid 1083).
        cur.executemany("INSERT INTO py_time VALUES (%s, %s)", TIME_ROWS)
        cur.execute("SELECT id, opens FROM py_time ORDER BY id")
        assert cur.fetchall() == TIME_ROWS
        cur.execute("SELECT id FROM py_time WHERE opens > %s ORDER BY opens",
                    (datetime.time(12, 0),))
        assert [r[0] for r in cur.fetchall()] == [2, 3]
        cur.execute("SELECT opens - %s, opens + interval '1 hour', date '2024-03-05' + opens "
                    "FROM py_time WHERE id = 2", (datetime.time(14, 0),))
        assert cur.fetchone() == (datetime.timedelta(minutes=7, seconds=9.5),
                                  datetime.time(15, 7, 9, 500000),
                                  datetime.datetime(2024, 3, 5, 14, 7, 9, 500000))
    with conn.cursor() as cur:
        fmt = "binary" if binary else "text"
        with cur.copy(f"COPY py_time TO STDOUT (FORMAT {fmt})") as copy:
            copy.set_types(["int4", "time"])
            out = sorted(copy.rows(), key=lambda r: r[0])
        assert out == TIME_ROWS
        conn.execute("DELETE FROM py_time")
        with cur.copy(f"COPY py_time FROM STDIN (FORMAT {fmt})") as copy:
            copy.set_types(["int4", "time"])
            for row in out:
                copy.write_row(row)
        cur.execute("SELECT id, opens FROM py_time ORDER BY id")
        assert cur.fetchall() == TIME_ROWS
    with pytest.raises(psycopg.errors.DatetimeFieldOverflow):
        conn.execute("SELECT %s::time", ("25:00",))


# ---- json --------------------------------------------------------------------

@pytest.mark.parametrize("binary", [False, True])
def test_json_keeps_its_text_and_round_trips(conn, binary):
    from psycopg.types.json import Json
    conn.execute("DROP TABLE IF EXISTS py_json")
    conn.execute("CREATE TABLE py_json (id integer PRIMARY KEY, doc json)")
    doc = {"b": [1, 2], "a": {"x": "y"}}
    with conn.cursor(binary=binary) as cur:
        # psycopg sends Json as json (oid 114) and reads json into objects.
        cur.execute("INSERT INTO py_json VALUES (1, %s), (2, NULL)", (Json(doc),))
        cur.execute("INSERT INTO py_json VALUES (3, %s)", ('{"k":  1,  "k": 2}',))
        cur.execute("SELECT doc FROM py_json WHERE id = 1")
        assert cur.fetchone()[0] == doc
        cur.execute("SELECT doc::text, doc ->> 'k', json_typeof(doc) FROM py_json WHERE id = 3")
        # json keeps the text as written, duplicate keys and spaces too.
        assert cur.fetchone() == ('{"k":  1,  "k": 2}', "2", "object")
        cur.execute("SELECT id FROM py_json WHERE doc -> 'a' ->> 'x' = %s", ("y",))
        assert cur.fetchall() == [(1,)]
    with pytest.raises(psycopg.errors.InvalidTextRepresentation):
        conn.execute("INSERT INTO py_json VALUES (9, %s)", ('{"a":',))
    with conn.cursor() as cur:
        fmt = "binary" if binary else "text"
        with cur.copy(f"COPY py_json (id, doc) TO STDOUT (FORMAT {fmt})") as copy:
            copy.set_types(["int4", "text"])
            out = sorted(copy.rows(), key=lambda r: r[0])
        assert out[2] == (3, '{"k":  1,  "k": 2}')


@pytest.mark.parametrize("binary", [False, True])
def test_json_builders_arrive_as_objects(conn, binary):
    # What an application does with json_agg / json_build_object / row_to_json:
    # one round trip that returns nested objects, parsed by psycopg.
    conn.execute("DROP TABLE IF EXISTS py_jb_order")
    conn.execute("DROP TABLE IF EXISTS py_jb_customer")
    conn.execute("CREATE TABLE py_jb_customer (id integer PRIMARY KEY, name text)")
    conn.execute("CREATE TABLE py_jb_order (id integer PRIMARY KEY, customer integer, "
                 "total numeric(8,2), tags text[])")
    conn.execute("INSERT INTO py_jb_customer VALUES (1, 'ann'), (2, 'bo')")
    conn.execute("INSERT INTO py_jb_order VALUES (10, 1, 9.50, '{new}'), (11, 1, 1.25, '{}')")
    with conn.cursor(binary=binary) as cur:
        cur.execute(
            "SELECT json_build_object('id', c.id, 'name', c.name, 'orders', "
            "(SELECT coalesce(json_agg(o ORDER BY o.id DESC), '[]') FROM py_jb_order o "
            "WHERE o.customer = c.id)) FROM py_jb_customer c WHERE c.id = ANY(%s) ORDER BY c.id",
            ([1, 2],))
        assert [r[0] for r in cur.fetchall()] == [
            {"id": 1, "name": "ann", "orders": [
                {"id": 11, "customer": 1, "total": 1.25, "tags": []},
                {"id": 10, "customer": 1, "total": 9.5, "tags": ["new"]}]},
            {"id": 2, "name": "bo", "orders": []}]
        cur.execute("SELECT row_to_json(c), to_jsonb(c) FROM py_jb_customer c WHERE id = %s", (2,))
        assert cur.fetchone() == ({"id": 2, "name": "bo"}, {"id": 2, "name": "bo"})
        cur.execute("SELECT json_object_agg(name, id ORDER BY id) FROM py_jb_customer")
        assert cur.fetchone()[0] == {"ann": 1, "bo": 2}
    with pytest.raises(psycopg.errors.InvalidParameterValue):
        conn.execute("SELECT json_object_agg(NULL::text, 1)")
