"""Times go-tpc's 22 CH-benCHmark queries once each over psycopg, against a
server that already holds go-tpc's data (`go-tpc tpcc prepare` then
`go-tpc ch prepare`, user and database `bench`). Run it against Forktail
and against PostgreSQL 15 loaded the same way; go-tpc generates random
data, so two loads differ: compare times, not rows.

  python3 bench/go_tpc/ch_query_times.py PORT [HOST]
"""
import pathlib
import re
import sys
import time

import psycopg

GO_TPC = pathlib.Path(__file__).resolve().parents[2] / "build/tools/go/pkg/mod/github.com/pingcap"


def queries():
    candidates = sorted(GO_TPC.glob("go-tpc@*/ch/query.go")) + sorted(
        pathlib.Path("/tmp/gopath/pkg/mod/github.com/pingcap").glob("go-tpc@*/ch/query.go"))
    if not candidates:
        sys.exit("go-tpc's ch/query.go not found (bench/go_tpc/go_tpc_compare.sh installs go-tpc)")
    src = candidates[-1].read_text()
    found = {m.group(1): m.group(2).replace("/*PLACEHOLDER*/", "")
             for m in re.finditer(r"\n\t(q\d+) = `(.*?)`", src, re.S)}
    return sorted(found.items(), key=lambda kv: int(kv[0][1:]))


def main():
    port = int(sys.argv[1])
    host = sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1"
    total = 0.0
    with psycopg.connect(host=host, port=port, user="bench", dbname="bench",
                         autocommit=True) as conn:
        conn.execute("SET statement_timeout = 60000")
        for name, sql in queries():
            t = time.perf_counter()
            try:
                rows = len(conn.execute(sql).fetchall())
                took = time.perf_counter() - t
                print("%-4s %8.3f s %7d rows" % (name, took, rows), flush=True)
            except psycopg.Error as e:
                took = time.perf_counter() - t
                print("%-4s %8.3f s ERROR %s" % (name, took, str(e).splitlines()[0]), flush=True)
            total += took
    print("all  %8.3f s" % total)


if __name__ == "__main__":
    main()
