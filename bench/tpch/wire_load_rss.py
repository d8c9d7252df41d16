#!/usr/bin/env python3
"""Resident memory of `forktail serve` after loading TPC-H over the wire.

Starts a server on 127.0.0.1 over a fresh data directory, loads every table
with one `COPY ... FROM STDIN` per table through psycopg (as a user would),
and prints the server's RSS after each table, then every 5 s for --wait
seconds (idle blocks freeze after one to two --freeze-interval periods), and
the growth per byte of text loaded: the figure issue 19 asks for.

  python3 bench/tpch/wire_load_rss.py build/release/tools/forktail build/tpch/sf1 \
      [--wait 30] [--freeze-interval 10]

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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("forktail")
    ap.add_argument("data")
    ap.add_argument("--wait", type=int, default=30, help="seconds to watch the RSS after the load")
    ap.add_argument("--freeze-interval", type=int, default=10)
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
                with conn.cursor() as cur:
                    with cur.copy(f"COPY {table} FROM STDIN WITH (FORMAT csv, DELIMITER '|')") as cp:
                        with open(path, "rb") as f:
                            while chunk := f.read(1 << 20):
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
            conn.close()
        finally:
            server.terminate()
            server.wait(timeout=120)


if __name__ == "__main__":
    main()
