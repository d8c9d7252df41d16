"""A full disk at restart is a clear error and a clean exit, and nothing
acknowledged is lost once space is back (issue 17, point 5).

In a private mount namespace (`unshare --mount`, with --map-root-user when
not root) the data directory lives on a small tmpfs:

1. a server takes rows, stops (its checkpoint's manifest write sits in the
   cold store's RocksDB log), the disk is filled, and a restart must exit
   with status 1 and a message naming the data directory and "No space left
   on device" -- it used to abort in RocksDB's recovery
   (WritableFileWriter::AssertFalseAndGetStatusForPrevError);
2. the disk fills while a server runs: an insert fails ("No space left on
   device"), the acknowledged ones count; the server is stopped (its checkpoint cannot be
   written) and restarted on the full disk: again a clean exit 1;
3. space is freed: the server starts and holds every acknowledged row.

Exits 77 (skipped) when no mount namespace or tmpfs can be had. Run by
CTest with the forktail binary as the argument."""
import os
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = 77
NAMESPACE_MARK = "FORKTAIL_FULL_DISK_NAMESPACE"


def reexec_in_mount_namespace():
    unshare = shutil.which("unshare")
    if unshare is None:
        print("SKIP: no unshare(1) to make a private mount namespace")
        sys.exit(SKIP)
    args = [unshare, "--mount"] + ([] if os.geteuid() == 0 else ["--map-root-user"])
    probe = subprocess.run(args + ["true"], capture_output=True, text=True)
    if probe.returncode != 0:
        print("SKIP: cannot make a mount namespace:", probe.stderr.strip())
        sys.exit(SKIP)
    env = dict(os.environ, **{NAMESPACE_MARK: "1"})
    os.execve(unshare, args + [sys.executable] + sys.argv, env)


if os.environ.get(NAMESPACE_MARK) is None:
    reexec_in_mount_namespace()

try:
    import psycopg
except ImportError:
    print("SKIP: psycopg 3 is not installed")
    sys.exit(SKIP)

from forktail_server import connect, free_port, start, stop

BINARY = sys.argv[1]


def fill(mount):
    """Fills the tmpfs to the last byte; returns the filler's path."""
    path = os.path.join(mount, "filler")
    st = os.statvfs(mount)
    with open(path, "wb") as f:
        os.posix_fallocate(f.fileno(), 0, st.f_bavail * st.f_frsize)
    with open(path, "ab", buffering=0) as f:  # whatever is left after rounding
        try:
            while True:
                f.write(b"\0" * 512)
        except OSError:
            pass
    return path


def restart_on_full_disk(data, port, log_path, may_serve_reads=None):
    """Starts a server on the full disk: it must exit 1 (not crash) with a
    message naming the data directory and the cause. With may_serve_reads
    (a row count), a server whose recovery had nothing to write may start
    instead: then it must serve those rows and stop without crashing."""
    with open(log_path, "w") as log:
        proc = start(BINARY, data, port, stdout=log, wait=False)
        rc = None
        for _ in range(600):
            rc = proc.poll()
            if rc is not None:
                break
            try:
                with connect(port) as c:
                    rows = c.execute("SELECT count(*) FROM t").fetchone()[0]
                break
            except psycopg.OperationalError:
                time.sleep(0.1)
        if rc is None:
            rc = stop(proc)
            output = open(log_path).read()
            assert may_serve_reads is not None, "the server started on a full disk:\n" + output
            assert rows >= may_serve_reads, (rows, may_serve_reads)
            assert rc in (0, 1), f"stopping on a full disk: exit status {rc}:\n{output}"
            assert "Assertion" not in output, output
            print(f"full-disk restart: served {rows} rows read-only, stopped with {rc}")
            return
    output = open(log_path).read()
    assert rc == 1, f"exit status {rc} (negative: killed by a signal), not 1:\n{output}"
    assert data in output, "the message does not name the data directory:\n" + output
    assert "No space left on device" in output, "the message does not say why:\n" + output
    assert "Assertion" not in output and "Aborted" not in output, output
    print("full-disk restart:", output.strip().splitlines()[-1])


def main():
    with tempfile.TemporaryDirectory() as root:
        mount = os.path.join(root, "disk")
        os.mkdir(mount)
        m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", mount],
                           capture_output=True, text=True)
        if m.returncode != 0:
            print("SKIP: cannot mount a tmpfs:", m.stderr.strip())
            sys.exit(SKIP)
        try:
            run(mount, os.path.join(root, "serve.log"))
        finally:
            subprocess.run(["umount", "-l", mount])


def run(mount, log_path):
    data = os.path.join(mount, "data")
    port = free_port()
    acknowledged = 0
    with open(log_path, "w") as log:
        proc = start(BINARY, data, port, stdout=log)
        with connect(port) as c:
            c.execute("CREATE TABLE t (id int PRIMARY KEY, v text)")
            c.execute("INSERT INTO t SELECT g, repeat('x', 100) FROM generate_series(1, 5000) g")
            acknowledged = 5000
        assert stop(proc) == 0

    # 1. Stopped cleanly, the disk fills, restart.
    filler = fill(mount)
    restart_on_full_disk(data, port, log_path)
    os.remove(filler)

    # 2. The disk fills while the server runs.
    with open(log_path, "w") as log:
        proc = start(BINARY, data, port, stdout=log)
        with connect(port) as c:
            c.execute("INSERT INTO t VALUES (%s, 'before the disk filled')", (acknowledged + 1,))
            acknowledged += 1
            filler = fill(mount)
            failure = None
            # Up to 4 MB: the log first fills the zeros it keeps written ahead
            # of its appends (1 MiB at a time), as PostgreSQL's preallocated
            # WAL segments do.
            for _ in range(2000):
                try:
                    c.execute("INSERT INTO t VALUES (%s, repeat('y', 2000))", (acknowledged + 1,))
                    acknowledged += 1
                except psycopg.Error as e:
                    # 53100, or the FATAL that ends every session once the log
                    # cannot be written (the database then refuses writes).
                    failure = e
                    break
            assert failure is not None, "no insert failed on a full disk"
            assert "No space left on device" in str(failure), str(failure)
        rc = stop(proc)  # its checkpoint may fail; the log holds what was acknowledged
        assert rc in (0, 1), f"stopping on a full disk: exit status {rc}"
    restart_on_full_disk(data, port, log_path, may_serve_reads=acknowledged)

    # 3. Space is back: every acknowledged row is there.
    os.remove(filler)
    with open(log_path, "w") as log:
        proc = start(BINARY, data, port, stdout=log)
        with connect(port) as c:
            got = c.execute("SELECT count(*), max(id) FROM t").fetchone()
        assert stop(proc) == 0
    assert got[0] >= acknowledged and got[1] >= acknowledged, (got, acknowledged)
    print(f"ok: {acknowledged} acknowledged rows, {got[0]} after the restarts")


main()
