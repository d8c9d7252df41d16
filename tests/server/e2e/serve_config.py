"""`forktail serve --config FILE`: settings come from `key = value` lines,
flags override them, and a file Forktail cannot apply whole refuses to start
(exit 2, saying which line or key) instead of running with a setting left
silently at its default -- as PostgreSQL refuses an unrecognized parameter in
postgresql.conf. Run by CTest with the forktail binary as the argument."""
import os
import subprocess
import sys
import tempfile

try:
    import psycopg
except ImportError:
    print("SKIP: psycopg 3 is not installed")
    sys.exit(0)

from forktail_server import connect, free_port, start, stop

BINARY = sys.argv[1]


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def refused(config, data):
    """Runs serve with `config`; it must exit 2 at once. Its output."""
    r = subprocess.run([BINARY, "serve", "--config", config, "--data", data],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    return r.stdout + r.stderr


def main():
    with tempfile.TemporaryDirectory() as root:
        data = os.path.join(root, "data")
        port = free_port()
        # Keys apply: the port, and a connection limit that holds.
        config = write(os.path.join(root, "forktail.conf"),
                       "# a comment\nport = %d\nmax_connections = 2   # trailing comment\n"
                       "authentication_timeout = '5s'\n" % port)
        proc = start(BINARY, data, port, ["--config", config])
        try:
            with connect(port) as a, connect(port) as b:
                assert a.execute("SELECT 1").fetchone()[0] == 1
                assert b.execute("SELECT 2").fetchone()[0] == 2
                try:
                    connect(port).close()
                    raise AssertionError("a third connection got in past max_connections = 2")
                except psycopg.OperationalError as e:
                    assert "too many clients" in str(e), str(e)
        finally:
            assert stop(proc) == 0
        # A flag overrides the file.
        other = free_port()
        proc = start(BINARY, data, other, ["--config", config])  # --port after the file's
        try:
            with connect(other) as c:
                assert c.execute("SELECT 3").fetchone()[0] == 3
        finally:
            assert stop(proc) == 0

        # An unrecognized key (a misspelt setting) refuses to start.
        bad = write(os.path.join(root, "typo.conf"), "port = %d\nmax_conections = 5\n" % port)
        out = refused(bad, data)
        assert 'unrecognized config key "max_conections"' in out, out
        # A line that is not `key = value`, and a value that is not a number.
        out = refused(write(os.path.join(root, "line.conf"), "port %d\n" % port), data)
        assert "line.conf:1: expected key = value" in out, out
        out = refused(write(os.path.join(root, "value.conf"), "max_connections = many\n"), data)
        assert "bad value" in out, out
        out = refused(write(os.path.join(root, "nice.conf"), "snapshot_nice = 25\n"), data)
        assert "snapshot_nice must be 0..19, got 25" in out, out
        out = refused(os.path.join(root, "missing.conf"), data)
        assert "cannot read config file" in out, out
        print("PASS: config keys apply, flags override, bad files refuse to start")
    return 0


if __name__ == "__main__":
    sys.exit(main())
