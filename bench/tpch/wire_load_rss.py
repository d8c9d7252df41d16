#!/usr/bin/env python3
"""Resident memory of `forktail serve` after loading TPC-H over the wire.

Starts a server on 127.0.0.1 over a fresh data directory, loads every table
with one `COPY ... FROM STDIN` per table through psycopg (as a user would),
and prints the server's RSS after each table, then every 5 s for --wait
seconds (idle blocks freeze after one to two --freeze-interval periods), and
the growth per byte of text loaded: the figure issue 19 asks for; then each
table's blocks and indexes as pg_table_size and pg_indexes_size count them. With
--forks N it then makes N snapshots (a write, then a scan that needs a fresh
snapshot) and prints each one's fork time and memory from `forktail
snapshots`: run it with --freeze-interval 0 (never freeze) and with the
default to compare fork costs of plain and frozen blocks.

  python3 bench/tpch/wire_load_rss.py build/release/tools/forktail build/tpch/sf1 \
      [--wait 30] [--freeze-interval 10] [--forks 3]

The data directory is what scripts/tpch/make-data.sh makes (schema.sql and
the .tbl files, '|'-separated CSV). Needs psycopg 3 (Debian: python3-psycopg).
"""
import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time

import psycopg

TABLES = ["nation", "region", "part", "supplier", "partsupp", "customer", "orders", "lineitem"]


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def report_forks(forktail, data_dir, conn, forks):
    """Makes `forks` snapshots and prints fork_ms, copied and shared KiB of each."""
    conn.execute("CREATE TABLE fork_probe (x int)")
    seen = set()
    print(f"{'snapshot':>8s} {'fork ms':>8s} {'copied KiB':>11s} {'shared KiB':>11s}")
    for i in range(forks):
        conn.execute("INSERT INTO fork_probe VALUES (%s)", (i,))  # the next read needs a new fork
        conn.execute("SELECT sum(l_quantity) FROM lineitem").fetchone()
        time.sleep(1)  # the manager reads each snapshot's memory (smaps_rollup) periodically
        out = subprocess.run([forktail, "snapshots", "--data", data_dir], capture_output=True,
                             text=True, check=True).stdout.splitlines()
        header = out[0].split()
        for line in out[1:]:
            row = dict(zip(header, line.split()))
            if not row.get("id", "").isdigit() or row["id"] in seen:
                continue
            seen.add(row["id"])
            print(f"{row['id']:>8s} {row['fork_ms']:>8s} {row['copied_kib']:>11s} "
                  f"{row['shared_kib']:>11s}", flush=True)


def copy_parts(f, lines_per_copy):
    """The file as one part (lines_per_copy 0) or parts of at most lines_per_copy lines; each
    part is an iterator of chunks of about 1 MiB."""
    if lines_per_copy <= 0:
        yield iter(lambda: f.read(1 << 20), b"")
        return
    while True:
        lines = f.readlines(1)  # peek: at least one line, or the end
        if not lines:
            return

        def part(first=lines):
            yield b"".join(first)
            left = lines_per_copy - len(first)
            while left > 0:
                chunk = []
                for line in f:
                    chunk.append(line)
                    left -= 1
                    if left == 0 or len(chunk) >= 8192:
                        break
                if not chunk:
                    return
                yield b"".join(chunk)
        yield part()


def report_sizes(conn):
    """Prints each table's blocks and indexes as the server counts them (pg_table_size:
    2 MiB a plain block, its encoding a frozen one; pg_indexes_size: the primary key's hash
    and ordered indexes and the secondary ones)."""
    print(f"{'table':10s} {'blocks MiB':>11s} {'indexes MiB':>12s} {'index B/row':>12s}")
    totals = [0, 0]
    for table in TABLES:
        blocks, indexes, rows = conn.execute(
            f"SELECT pg_table_size('{table}'), pg_indexes_size('{table}'), count(*) FROM {table}"
        ).fetchone()
        totals[0] += blocks
        totals[1] += indexes
        print(f"{table:10s} {blocks / 2**20:11.1f} {indexes / 2**20:12.1f} "
              f"{indexes / max(rows, 1):12.1f}")
    print(f"{'total':10s} {totals[0] / 2**20:11.1f} {totals[1] / 2**20:12.1f}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("forktail")
    ap.add_argument("data")
    ap.add_argument("--wait", type=int, default=30, help="seconds to watch the RSS after the load")
    ap.add_argument("--freeze-interval", type=int, default=10)
    ap.add_argument("--forks", type=int, default=0, help="snapshots to make and report after the wait")
    ap.add_argument("--lines-per-copy", type=int, default=0,
                    help="split each table's input into COPY statements of at most this many "
                         "lines, each its own transaction (0: one COPY per table); a COPY FROM "
                         "STDIN holds its input until it ends, so SF10's lineitem needs this")
    args = ap.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="forktail_wire_load_") as db_dir:
        server = subprocess.Popen(
            [args.forktail, "serve", "--data", os.path.join(db_dir, "db"), "--port", str(port),
             "--freeze-interval", str(args.freeze_interval)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(100):
                try:
                    conn = psycopg.connect(f"host=127.0.0.1 port={port} user=load dbname=load",
                                           autocommit=True)
                    break
                except psycopg.OperationalError:
                    time.sleep(0.1)
            else:
                sys.exit("wire_load_rss: the server did not start")
            with open(os.path.join(args.data, "schema.sql")) as f:
                conn.execute(f.read())
            base = rss_mib(server.pid)
            text_bytes = 0
            print(f"{'table':10s} {'seconds':>8s} {'RSS MiB':>9s}")
            for table in TABLES:
                path = os.path.join(args.data, table + ".tbl")
                text_bytes += os.path.getsize(path)
                start = time.time()
                with open(path, "rb") as f:
                    for part in copy_parts(f, args.lines_per_copy):
                        with conn.cursor() as cur:
                            with cur.copy(f"COPY {table} FROM STDIN WITH (FORMAT csv, "
                                          f"DELIMITER '|')") as cp:
                                for chunk in part:
                                    cp.write(chunk)
                print(f"{table:10s} {time.time() - start:8.1f} {rss_mib(server.pid):9.0f}", flush=True)
            after = rss_mib(server.pid)
            for waited in range(5, args.wait + 1, 5):
                time.sleep(5)
                print(f"  +{waited:3d} s  RSS {rss_mib(server.pid):.0f} MiB", flush=True)
            later = rss_mib(server.pid)
            mib = text_bytes / 2**20
            print(f"text {mib:.0f} MiB; server RSS {base:.0f} MiB before, {after:.0f} after the load "
                  f"({(after - base) / mib:.2f} per byte), {later:.0f} after {args.wait} s "
                  f"({(later - base) / mib:.2f} per byte)")
            report_sizes(conn)
            if args.forks > 0:
                report_forks(args.forktail, os.path.join(db_dir, "db"), conn, args.forks)
            conn.close()
        finally:
            server.terminate()
            server.wait(timeout=120)


if __name__ == "__main__":
    main()
