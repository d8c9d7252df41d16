"""A runaway query fails with 53200 while the server and other sessions go on
(issue 17, item 2). `forktail serve` runs

    select count(distinct a.id * 100000 + b.id) from g a, g b     (g: 20k rows)

whose COUNT(DISTINCT) set would grow to 400M values (~19 GB); the server-wide
query-memory governor must end it with 53200 within a minute while a second
session keeps reading and writing, and the server must answer afterwards.

Usage: query_memory.py FORKTAIL_BINARY MODE
  MODE budget:SIZE   forktail serve --query-memory SIZE (e.g. budget:256MB)
  MODE cgroup:BYTES  the server in a fresh memory cgroup of BYTES (v1 or v2;
                     SKIP when this machine lets us make none), default budget
  MODE default       no flag, no cgroup: half of physical memory
Run by CTest; prints figures (seconds to 53200, peak RSS of the server and its
snapshot processes)."""
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

try:
    import psycopg
except ImportError:
    print("SKIP: psycopg 3 is not installed")
    sys.exit(0)

from forktail_server import connect, free_port, start, stop

BINARY, MODE = sys.argv[1], sys.argv[2]
QUERY = "select count(distinct a.id * 100000 + b.id) from g a, g b"


def make_cgroup(limit):
    """A fresh memory cgroup under ours with `limit` bytes; returns the file a
    pid is written to, or None when cgroups cannot be made here."""
    name = "forktail_query_memory_%d" % os.getpid()
    for line in open("/proc/self/cgroup"):
        _, controllers, path = line.rstrip("\n").split(":", 2)
        if controllers == "":
            for root in ("/sys/fs/cgroup", "/sys/fs/cgroup/unified"):
                base = root + path
                if not os.path.exists(os.path.join(base, "cgroup.controllers")):
                    continue
                try:
                    os.mkdir(os.path.join(base, name))
                    with open(os.path.join(base, name, "memory.max"), "w") as f:
                        f.write(str(limit))
                    return os.path.join(base, name)
                except OSError:
                    pass
        elif "memory" in controllers.split(","):
            base = "/sys/fs/cgroup/memory" + path
            try:
                os.mkdir(os.path.join(base, name))
                with open(os.path.join(base, name, "memory.limit_in_bytes"), "w") as f:
                    f.write(str(limit))
                return os.path.join(base, name)
            except OSError:
                pass
    return None


def tree_rss_kib(pid):
    """RSS of a process and its children (the snapshot processes), KiB."""
    total = 0
    children = []
    try:  # snapshot processes are children of the thread that forked them
        for task in os.listdir("/proc/%d/task" % pid):
            children += open("/proc/%d/task/%s/children" % (pid, task)).read().split()
    except OSError:
        pass
    for p in [pid] + [int(c) for c in children]:
        try:
            m = re.search(r"VmRSS:\s+(\d+)", open("/proc/%d/status" % p).read())
            total += int(m.group(1)) if m else 0
        except OSError:
            pass
    return total


def main():
    args = []
    cgroup = None
    if MODE.startswith("budget:"):
        args = ["--query-memory", MODE.split(":", 1)[1]]
    elif MODE.startswith("cgroup:"):
        cgroup = make_cgroup(int(MODE.split(":", 1)[1]))
        if cgroup is None:
            print("SKIP: cannot make a memory cgroup here")
            return 0
    elif MODE != "default":
        print("unknown mode " + MODE)
        return 2
    with tempfile.TemporaryDirectory() as data:
        port = free_port()
        prefix = []
        if cgroup is not None:  # enter the cgroup, then become the server
            prefix = ["sh", "-c", 'echo $$ > "%s/cgroup.procs" && exec "$@"' % cgroup, "sh"]
        server = start(BINARY, data, port, args, stdout=subprocess.PIPE, prefix=prefix)
        try:
            print(server.stdout.readline().strip())  # the banner
            with connect(port) as c:
                c.execute("create table g (id int primary key)")
                c.execute("insert into g select * from generate_series(1, 20000)")
                c.execute("create table w (id int primary key, v int)")

            outcome = {}
            peak = [0]

            def runaway():
                start = time.time()
                try:
                    with connect(port) as c:
                        outcome["rows"] = c.execute(QUERY).fetchall()
                except psycopg.Error as e:
                    outcome["sqlstate"] = e.sqlstate
                    outcome["message"] = str(e).strip()
                outcome["seconds"] = time.time() - start

            t = threading.Thread(target=runaway)
            t.start()
            # Meanwhile another session reads and writes, and must never fail.
            done_by_other = 0
            give_up = time.time() + 90  # the assertion below reports a query that never ends
            with connect(port) as other:
                i = 0
                while t.is_alive():
                    other.execute("insert into w values (%s, %s)", (i, i))
                    assert other.execute("select count(*) from w").fetchone()[0] == i + 1
                    assert other.execute("select v from w where id = %s", (i,)).fetchone()[0] == i
                    i += 1
                    peak[0] = max(peak[0], tree_rss_kib(server.pid))
                    time.sleep(0.05)
                    if time.time() > give_up:
                        break
                done_by_other = i
            t.join(120)
            print("runaway query: %s after %.1f s; peak RSS (server + snapshots) %d MiB; "
                  "the other session committed %d rows meanwhile"
                  % (outcome.get("sqlstate", outcome.get("rows")), outcome.get("seconds", -1),
                     peak[0] // 1024, done_by_other))
            print("message: " + outcome.get("message", ""))
            assert outcome.get("sqlstate") == "53200", outcome
            assert outcome["seconds"] < 60, outcome
            assert server.poll() is None, "the server died"
            # The server goes on: the same shape with a small input answers.
            with connect(port) as c:
                c.execute("create table h (id int primary key)")
                c.execute("insert into h select * from generate_series(1, 300)")
                got = c.execute("select count(distinct a.id * 100000 + b.id) from h a, h b")
                assert got.fetchone()[0] == 90000
                assert c.execute("select count(*) from w").fetchone()[0] == done_by_other
            print("PASS")
            return 0
        finally:
            stop(server)
            if cgroup is not None:
                time.sleep(0.2)
                try:
                    os.rmdir(cgroup)
                except OSError:
                    pass


if __name__ == "__main__":
    sys.exit(main())
