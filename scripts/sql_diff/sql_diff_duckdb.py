#!/usr/bin/env python3
"""Data and DuckDB answers for Forktail's differential SQL test beyond TPC-H
(tests/olap/sql/sql_diff_test.cc).

  sql_diff_duckdb.py generate SPEC_DIR OUT_DIR

SPEC_DIR (tests/olap/data/sql_diff) holds schema.sql (CREATE TABLEs both DuckDB
and Forktail accept) and queries.sql (queries separated by `-- name: NAME`
lines). The tables' rows are generated here, deterministically (fixed seed),
with NULLs in every nullable column, duplicates, skewed keys, negative numbers.

OUT_DIR layout:
  <table>.csv        rows as CSV, no header, NULL as an empty unquoted field
  load.sql           Forktail's COPY statements for them
  answers/NAME.tsv   DuckDB's result: line 1 column names, line 2 DuckDB types,
                     then rows in COPY text format (tab, \\N, backslash escapes)
  COMPLETE           a digest of the inputs; a mismatch regenerates everything

DuckDB runs with NULLs ordered as PostgreSQL orders them (last ascending,
first descending), since the queries' ORDER BY is compared row by row.
"""
import datetime
import decimal
import hashlib
import os
import random
import sys

import duckdb

SEED = 20261122
REGIONS = ["north", "north", "north", "north", "south", "south", "east", "west", "Mid-West"]
STATUSES = ["open", "open", "open", "shipped", "shipped", "returned", "lost_1", "lost%2"]
SKUS = ["ax-100", "ax-200", "bx_1", "bx-2", "cz", "cz", "Dz", "ee-ee", "f%g", "gamma"]


def maybe(rng, p, v):
    return None if rng.random() < p else v


def money(rng, lo, hi):
    return decimal.Decimal(rng.randint(lo * 100, hi * 100)) / 100


def some_date(rng):
    return datetime.date(2019, 1, 1) + datetime.timedelta(days=rng.randint(0, 5 * 365))


def gen_tables():
    rng = random.Random(SEED)
    cust = []
    for i in range(1, 201):
        cust.append([i, f"cust{i % 150:03d}", maybe(rng, 0.1, rng.choice(REGIONS)),
                     maybe(rng, 0.15, rng.randint(-50, 100)), maybe(rng, 0.1, money(rng, -500, 5000)),
                     maybe(rng, 0.1, some_date(rng))])
    # A few rows share everything but the id (duplicates for DISTINCT/UNION).
    for i in range(201, 211):
        cust.append([i] + cust[i - 201][1:])
    orders = []
    for i in range(1, 401):
        r = rng.random()
        # skewed: customer 1..5 get a large share; some ids match no customer
        if r < 0.3:
            cid = rng.randint(1, 5)
        elif r < 0.9:
            cid = rng.randint(1, 260)
        else:
            cid = None
        orders.append([i, cid, maybe(rng, 0.08, money(rng, -200, 2000)),
                       maybe(rng, 0.1, rng.randint(-5, 20)),
                       maybe(rng, 0.1, round(rng.uniform(-1, 3), 4)),
                       maybe(rng, 0.08, some_date(rng)), maybe(rng, 0.1, rng.choice(STATUSES))])
    items = []
    for i in range(1, 151):
        items.append([maybe(rng, 0.05, rng.choice(SKUS)),
                      maybe(rng, 0.2, rng.choice([1, 2, 3, 4, 5, 7, 11, 250, 300])),
                      maybe(rng, 0.1, money(rng, -10, 300)),
                      maybe(rng, 0.1, round(rng.uniform(0, 50), 3))])
    return {"cust": cust, "orders": orders, "items": items}


def csv_value(v):
    if v is None:
        return ""
    if isinstance(v, decimal.Decimal):
        return format(v, "f")
    if isinstance(v, datetime.date):
        return v.isoformat()
    if isinstance(v, float):
        return repr(v)
    s = str(v)
    assert s and not any(c in s for c in ',"\n\\'), s
    return s


def escape(text):
    return (text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
            .replace("\r", "\\r"))


def format_value(v):
    if v is None:
        return "\\N"
    if isinstance(v, bool):
        return "t" if v else "f"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, decimal.Decimal):
        return format(v, "f")
    if isinstance(v, datetime.datetime):
        return v.isoformat(sep=" ")
    if isinstance(v, datetime.date):
        return v.isoformat()
    return escape(str(v))


def read_queries(path):
    queries = []
    name = None
    body = []
    with open(path) as f:
        for line in f:
            if line.startswith("-- name:"):
                if name:
                    queries.append((name, "".join(body).strip()))
                name, body = line.split(":", 1)[1].strip(), []
            elif name:
                body.append(line)
    if name:
        queries.append((name, "".join(body).strip()))
    return queries


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def generate(spec, out):
    digest = hashlib.sha256()
    for p in [os.path.join(spec, "schema.sql"), os.path.join(spec, "queries.sql"), __file__]:
        with open(p, "rb") as f:
            digest.update(f.read())
    stamp = f"{digest.hexdigest()} duckdb={duckdb.__version__}\n"
    done = os.path.join(out, "COMPLETE")
    if os.path.exists(done) and open(done).read() == stamp:
        return
    os.makedirs(os.path.join(out, "answers"), exist_ok=True)
    for old in os.listdir(os.path.join(out, "answers")):
        os.remove(os.path.join(out, "answers", old))
    con = duckdb.connect()
    con.execute("SET default_null_order = 'nulls_last_on_asc_first_on_desc'")
    with open(os.path.join(spec, "schema.sql")) as f:
        con.execute(f.read())
    load = []
    for table, rows in gen_tables().items():
        path = os.path.abspath(os.path.join(out, table + ".csv"))
        write_atomic(path, "".join(",".join(csv_value(v) for v in r) + "\n" for r in rows))
        con.execute(f"COPY {table} FROM '{path}' (FORMAT csv, HEADER false)")
        load.append(f"COPY {table} FROM '{path}' WITH (FORMAT csv);\n")
    write_atomic(os.path.join(out, "load.sql"), "".join(load))
    for name, sql in read_queries(os.path.join(spec, "queries.sql")):
        try:
            rel = con.execute(sql)
            rows = rel.fetchall()
        except duckdb.Error as e:
            sys.exit(f"sql_diff_duckdb.py: DuckDB failed on {name}: {e}")
        desc = rel.description
        lines = ["\t".join(escape(d[0]) for d in desc), "\t".join(str(d[1]) for d in desc)]
        lines += ["\t".join(format_value(v) for v in row) for row in rows]
        write_atomic(os.path.join(out, "answers", name + ".tsv"), "\n".join(lines) + "\n")
    con.close()
    write_atomic(done, stamp)


def main():
    if len(sys.argv) != 4 or sys.argv[1] != "generate":
        sys.exit("usage: sql_diff_duckdb.py generate SPEC_DIR OUT_DIR")
    generate(sys.argv[2], sys.argv[3])


if __name__ == "__main__":
    main()
