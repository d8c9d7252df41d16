"""The 22 CH-benCHmark queries on the same data in PostgreSQL 15, Forktail and
DuckDB (a static copy taken from PostgreSQL), each timed once per run (best of
--runs), and every answer compared with PostgreSQL's.

  ch_compare.py --pg CONNINFO --ft CONNINFO --queries ch_queries.sql --json OUT
                [--runs N] [--duckdb-threads 2] [--work DIR]

Exits 1 if a Forktail (or DuckDB) answer differs from PostgreSQL's. Rows are
compared as multisets (several queries order by values with ties); numbers agree when they round to the same 6 significant
digits (the engines' decimal averages differ in their last digits), CHAR
values are compared without trailing blanks.
"""
import argparse, datetime, decimal, json, math, os, re, sys, time

import duckdb
import psycopg

REVENUE1 = """CREATE VIEW revenue1 (supplier_no, total_revenue) AS (SELECT mod((s_w_id * s_i_id), 10000)
AS supplier_no, sum(ol_amount) AS total_revenue FROM order_line, stock WHERE
ol_i_id = s_i_id AND ol_supply_w_id = s_w_id AND ol_delivery_d >= '2007-01-02 00:00:00'
GROUP BY mod((s_w_id * s_i_id), 10000))"""
TABLES = ["warehouse", "district", "customer", "history", "new_order", "orders", "order_line",
          "stock", "item", "nation", "region", "supplier"]


def read_queries(path):
    queries, name = [], None
    for line in open(path):
        m = re.match(r"-- (q\d+)\s*$", line)
        if m:
            queries.append([m.group(1), ""])
        elif queries and not line.startswith("--"):
            queries[-1][1] += line
    return [(n, q.strip().rstrip(";")) for n, q in queries]


def norm_value(v):
    if v is None:
        return None
    if isinstance(v, (int, float, decimal.Decimal)) and not isinstance(v, bool):
        return float(v)
    if isinstance(v, (datetime.datetime, datetime.date)):
        return str(v)
    if isinstance(v, str):
        return v.rstrip()
    return str(v)


def sort_key(row):
    return tuple((0, "") if v is None else (1, round(v, 2)) if isinstance(v, float) else (2, v)
                 for v in row)


def same_value(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6)
    return a == b


def same_rows(got, want):
    """Multisets of rows; numbers equal within 1e-6 (relative or absolute)."""
    if len(got) != len(want):
        return False
    got = sorted((tuple(norm_value(v) for v in r) for r in got), key=sort_key)
    want = sorted((tuple(norm_value(v) for v in r) for r in want), key=sort_key)
    return all(len(g) == len(w) and all(same_value(x, y) for x, y in zip(g, w))
               for g, w in zip(got, want))


def run_pg(conn, sql, runs):
    best, rows = None, None
    for _ in range(runs):
        t = time.perf_counter()
        rows = conn.execute(sql).fetchall()
        e = time.perf_counter() - t
        best = e if best is None else min(best, e)
    return best, rows


def duckdb_copy(pg, work, threads):
    """A static copy of PostgreSQL's tables in an in-memory DuckDB."""
    db = duckdb.connect()
    db.execute("SET threads = %d" % threads)
    types = {"integer": "INTEGER", "bigint": "BIGINT", "character varying": "VARCHAR",
             "character": "VARCHAR", "timestamp without time zone": "TIMESTAMP"}
    for t in TABLES:
        cols = pg.execute(
            "SELECT column_name, data_type, numeric_precision, numeric_scale FROM "
            "information_schema.columns WHERE table_name = %s ORDER BY ordinal_position",
            (t,)).fetchall()
        decl = []
        for name, dtype, prec, scale in cols:
            decl.append("%s %s" % (name, "DECIMAL(%d,%d)" % (prec, scale) if dtype == "numeric"
                                   else types[dtype]))
        path = os.path.join(work, t + ".csv")
        with open(path, "wb") as f, pg.cursor().copy("COPY %s TO STDOUT (FORMAT csv)" % t) as cp:
            for chunk in cp:
                f.write(chunk)
        db.execute("CREATE TABLE %s (%s)" % (t, ", ".join(decl)))
        db.execute("COPY %s FROM '%s' (FORMAT csv, HEADER false)" % (t, path))
        for name, dtype, _, _ in cols:  # CHAR(n): PostgreSQL's CSV pads it with blanks
            if dtype == "character":
                db.execute("UPDATE %s SET %s = rtrim(%s)" % (t, name, name))
        os.remove(path)
    db.execute(REVENUE1)
    return db


def verdict(entry, label):
    if entry[label + "_equal"]:
        return "equal"
    if label + "_error" in entry:
        return "ERROR (%s)" % entry[label + "_error"]
    return "DIFFERS"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pg", required=True)
    ap.add_argument("--ft", required=True)
    ap.add_argument("--queries", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--duckdb-threads", type=int, default=2)
    ap.add_argument("--work", default="/tmp")
    a = ap.parse_args()
    queries = read_queries(a.queries)
    pg = psycopg.connect(a.pg, autocommit=True)
    ft = psycopg.connect(a.ft, autocommit=True)
    t = time.perf_counter()
    duck = duckdb_copy(pg, a.work, a.duckdb_threads)
    copy_s = time.perf_counter() - t
    results, bad = [], 0
    print("%-4s %10s %10s %10s %8s  %s" % ("", "postgres s", "forktail s", "duckdb s", "rows",
                                          "answers"))
    for name, sql in queries:
        pg_s, pg_rows = run_pg(pg, sql, a.runs)
        entry = {"query": name, "postgres_s": pg_s, "rows": len(pg_rows)}
        for label, conn in (("forktail", ft), ("duckdb", duck)):
            try:
                secs, rows = run_pg(conn, sql, a.runs)
                entry[label + "_s"] = secs
                entry[label + "_equal"] = same_rows(rows, pg_rows)
            except Exception as e:  # an unsupported query is a result too
                entry[label + "_s"] = None
                entry[label + "_equal"] = False
                entry[label + "_error"] = str(e).strip().splitlines()[0]
        if not entry["forktail_equal"] or not entry["duckdb_equal"]:
            bad += 1
        f = lambda v: "%10.4f" % v if v is not None else "%10s" % "error"
        print("%-4s %s %s %s %8d  forktail %s, duckdb %s" % (
            name, f(pg_s), f(entry["forktail_s"]), f(entry["duckdb_s"]), len(pg_rows),
            verdict(entry, "forktail"), verdict(entry, "duckdb")))
        results.append(entry)
    json.dump({"runs": a.runs, "duckdb_threads": a.duckdb_threads, "duckdb_copy_s": copy_s,
               "queries": results}, open(a.json, "w"), indent=1)
    if bad:
        print("ch_compare: %d of %d queries failed or differ from PostgreSQL's answers" % (
            bad, len(queries)))
        sys.exit(1)
    print("ch_compare: all %d queries equal PostgreSQL's answers on Forktail and DuckDB" % len(queries))


if __name__ == "__main__":
    main()
