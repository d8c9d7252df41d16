#!/usr/bin/env python3
"""TPC-H reference data and answers from DuckDB (dbgen and tpch_queries() of
its tpch extension), for Forktail's differential test and benchmark.

  tpch_duckdb.py generate SF OUT_DIR   tables as '|'-delimited CSV (no header),
                                       Forktail's schema, the 22 queries and
                                       DuckDB's answer to each; idempotent
  tpch_duckdb.py bench OUT_DIR         DuckDB's time per query (best of N)

OUT_DIR layout (every file written to a temporary name, then renamed):
  tpch.duckdb        DuckDB's database of that scale factor (for `bench`)
  <table>.tbl        nation region part supplier partsupp customer orders lineitem
  schema.sql         CREATE TABLE statements in Forktail's (PostgreSQL's) dialect
  load.sql           COPY <table> FROM '<OUT_DIR>/<table>.tbl' WITH (FORMAT csv, DELIMITER '|')
  queries/qNN.sql    the query texts, NN = 01..22
  answers/qNN.tsv    DuckDB's result: line 1 the column names, line 2 DuckDB's
                     column types, then one row per line in COPY's text format
                     (tab-separated, \\N for NULL, backslash escapes)
  answers/qNN.time   DuckDB's time for the query on that data (ms, best of 3)
  COMPLETE           written last
"""
import argparse
import datetime
import decimal
import glob
import json
import os
import sys
import time

import duckdb
import duckdb_extension_tpch

TABLES = ["nation", "region", "part", "supplier", "partsupp", "customer", "orders", "lineitem"]

# The TPC-H specification's column types (clause 1.4.1); identifiers as INTEGER
# (enough up to SF 300) and the primary keys of clause 1.4.2.
SCHEMA = {
    "nation": ([("n_nationkey", "INTEGER"), ("n_name", "CHAR(25)"), ("n_regionkey", "INTEGER"),
                ("n_comment", "VARCHAR(152)")], ["n_nationkey"]),
    "region": ([("r_regionkey", "INTEGER"), ("r_name", "CHAR(25)"), ("r_comment", "VARCHAR(152)")],
               ["r_regionkey"]),
    "part": ([("p_partkey", "INTEGER"), ("p_name", "VARCHAR(55)"), ("p_mfgr", "CHAR(25)"),
              ("p_brand", "CHAR(10)"), ("p_type", "VARCHAR(25)"), ("p_size", "INTEGER"),
              ("p_container", "CHAR(10)"), ("p_retailprice", "DECIMAL(15,2)"),
              ("p_comment", "VARCHAR(23)")], ["p_partkey"]),
    "supplier": ([("s_suppkey", "INTEGER"), ("s_name", "CHAR(25)"), ("s_address", "VARCHAR(40)"),
                  ("s_nationkey", "INTEGER"), ("s_phone", "CHAR(15)"),
                  ("s_acctbal", "DECIMAL(15,2)"), ("s_comment", "VARCHAR(101)")], ["s_suppkey"]),
    "partsupp": ([("ps_partkey", "INTEGER"), ("ps_suppkey", "INTEGER"),
                  ("ps_availqty", "INTEGER"), ("ps_supplycost", "DECIMAL(15,2)"),
                  ("ps_comment", "VARCHAR(199)")], ["ps_partkey", "ps_suppkey"]),
    "customer": ([("c_custkey", "INTEGER"), ("c_name", "VARCHAR(25)"),
                  ("c_address", "VARCHAR(40)"), ("c_nationkey", "INTEGER"),
                  ("c_phone", "CHAR(15)"), ("c_acctbal", "DECIMAL(15,2)"),
                  ("c_mktsegment", "CHAR(10)"), ("c_comment", "VARCHAR(117)")], ["c_custkey"]),
    "orders": ([("o_orderkey", "INTEGER"), ("o_custkey", "INTEGER"), ("o_orderstatus", "CHAR(1)"),
                ("o_totalprice", "DECIMAL(15,2)"), ("o_orderdate", "DATE"),
                ("o_orderpriority", "CHAR(15)"), ("o_clerk", "CHAR(15)"),
                ("o_shippriority", "INTEGER"), ("o_comment", "VARCHAR(79)")], ["o_orderkey"]),
    "lineitem": ([("l_orderkey", "INTEGER"), ("l_partkey", "INTEGER"), ("l_suppkey", "INTEGER"),
                  ("l_linenumber", "INTEGER"), ("l_quantity", "DECIMAL(15,2)"),
                  ("l_extendedprice", "DECIMAL(15,2)"), ("l_discount", "DECIMAL(15,2)"),
                  ("l_tax", "DECIMAL(15,2)"), ("l_returnflag", "CHAR(1)"),
                  ("l_linestatus", "CHAR(1)"), ("l_shipdate", "DATE"), ("l_commitdate", "DATE"),
                  ("l_receiptdate", "DATE"), ("l_shipinstruct", "CHAR(25)"),
                  ("l_shipmode", "CHAR(10)"), ("l_comment", "VARCHAR(44)")],
                 ["l_orderkey", "l_linenumber"]),
}


def connect(path):
    con = duckdb.connect(path)
    ext = glob.glob(os.path.join(os.path.dirname(duckdb_extension_tpch.__file__), "extensions",
                                 "*", "tpch.duckdb_extension"))
    if not ext:
        sys.exit("tpch_duckdb.py: tpch.duckdb_extension not found in duckdb_extension_tpch")
    con.execute(f"LOAD '{ext[0]}'")
    return con


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


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
    if isinstance(v, (datetime.date, datetime.datetime)):
        return v.isoformat(sep=" ") if isinstance(v, datetime.datetime) else v.isoformat()
    return escape(str(v))


def run_timed(con, sql, runs):
    best = None
    rel = None
    for _ in range(runs):
        start = time.perf_counter()
        rel = con.execute(sql)
        rows = rel.fetchall()
        ms = (time.perf_counter() - start) * 1000
        best = ms if best is None else min(best, ms)
    return rel.description, rows, best


def generate(sf, out):
    os.makedirs(os.path.join(out, "queries"), exist_ok=True)
    os.makedirs(os.path.join(out, "answers"), exist_ok=True)
    db_path = os.path.join(out, "tpch.duckdb")
    fresh = not os.path.exists(db_path)
    con = connect(db_path + (".tmp" if fresh else ""))
    if fresh:
        con.execute(f"CALL dbgen(sf={sf})")
        con.close()
        os.replace(db_path + ".tmp", db_path)
        wal = db_path + ".tmp.wal"
        if os.path.exists(wal):
            os.remove(wal)
        con = connect(db_path)
    for t in TABLES:
        path = os.path.join(out, t + ".tbl")
        if not os.path.exists(path):
            con.execute(f"COPY {t} TO '{path}.tmp' (FORMAT csv, DELIMITER '|', HEADER false)")
            os.replace(path + ".tmp", path)
    schema = []
    load = []
    for t in TABLES:
        cols, key = SCHEMA[t]
        body = ",\n".join(f"  {c} {ty} NOT NULL" for c, ty in cols)
        schema.append(f"CREATE TABLE {t} (\n{body},\n  PRIMARY KEY ({', '.join(key)})\n);\n")
        load.append(f"COPY {t} FROM '{os.path.abspath(os.path.join(out, t + '.tbl'))}' "
                    "WITH (FORMAT csv, DELIMITER '|');\n")
    write_atomic(os.path.join(out, "schema.sql"), "".join(schema))
    write_atomic(os.path.join(out, "load.sql"), "".join(load))
    for nr, sql in con.execute("SELECT query_nr, query FROM tpch_queries() ORDER BY 1").fetchall():
        qpath = os.path.join(out, "queries", f"q{nr:02d}.sql")
        if not os.path.exists(qpath):
            write_atomic(qpath, sql.strip() + "\n")
        apath = os.path.join(out, "answers", f"q{nr:02d}.tsv")
        if os.path.exists(apath):
            continue
        desc, rows, ms = run_timed(con, sql, 3)
        lines = ["\t".join(escape(d[0]) for d in desc), "\t".join(str(d[1]) for d in desc)]
        lines += ["\t".join(format_value(v) for v in row) for row in rows]
        write_atomic(os.path.join(out, "answers", f"q{nr:02d}.time"), f"{ms:.3f}\n")
        write_atomic(apath, "\n".join(lines) + "\n")
    con.close()
    write_atomic(os.path.join(out, "COMPLETE"), f"sf={sf}\n")


def bench(out, threads, runs):
    con = duckdb.connect(os.path.join(out, "tpch.duckdb"), read_only=True)
    con.execute(f"SET threads={threads}")
    result = {}
    for nr in range(1, 23):
        with open(os.path.join(out, "queries", f"q{nr:02d}.sql")) as f:
            sql = f.read()
        _, rows, ms = run_timed(con, sql, runs)
        result[f"q{nr:02d}"] = {"ms": ms, "rows": len(rows)}
    print(json.dumps(result))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("sf")
    g.add_argument("out")
    b = sub.add_parser("bench")
    b.add_argument("out")
    b.add_argument("--threads", type=int, default=2)
    b.add_argument("--runs", type=int, default=3)
    a = p.parse_args()
    if a.cmd == "generate":
        generate(float(a.sf), a.out)
    else:
        bench(a.out, a.threads, a.runs)


if __name__ == "__main__":
    main()
