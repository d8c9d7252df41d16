"""Sockets that never finish their startup cannot lock real clients out
(issue 17, point 7): 300 sockets each send half a startup packet and wait;
meanwhile psycopg clients (and psql, when installed) connect and run a query
promptly; the server closes every half-open socket, the ones it needed room
for at once (FATAL 53300 "sorry, too many clients already") and the rest at
authentication_timeout (FATAL 08P01 "canceling authentication due to
timeout"). Run by CTest with the forktail binary as the argument."""
import select
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

try:
    import psycopg  # noqa: F401 (forktail_server needs it)
except ImportError:
    print("SKIP: psycopg 3 is not installed")
    sys.exit(77)

from forktail_server import connect, free_port, start, stop

BINARY = sys.argv[1]
HALF_OPEN = 300
TIMEOUT_S = 3


def startup_packet(user, database):
    body = struct.pack("!I", 3 << 16)
    for k, v in (("user", user), ("database", database)):
        body += k.encode() + b"\0" + v.encode() + b"\0"
    body += b"\0"
    return struct.pack("!I", len(body) + 4) + body


def fatal_code(data):
    """The SQLSTATE of the ErrorResponse at the start of `data` (or None)."""
    if len(data) < 5 or data[0:1] != b"E":
        return None
    for field in data[5:].split(b"\0"):
        if field[:1] == b"C":
            return field[1:].decode()
    return None


def main():
    sys.stdout.reconfigure(line_buffering=True)
    with tempfile.TemporaryDirectory() as data:
        port = free_port()
        proc = start(BINARY, data, port, ["--authentication-timeout", str(TIMEOUT_S)])
        try:
            run(port)
        finally:
            assert stop(proc) == 0


def run(port):
    packet = startup_packet("mallory", "db")
    half = packet[: len(packet) // 2]
    flood = []
    opened = time.monotonic()
    for _ in range(HALF_OPEN):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(half)
        flood.append(s)

    # Real clients, while every half-open socket is still open.
    slowest = 0.0
    for i in range(5):
        t = time.monotonic()
        with connect(port, connect_timeout=10) as c:
            assert c.execute("SELECT %s::int + 1", (i,)).fetchone()[0] == i + 1
        slowest = max(slowest, time.monotonic() - t)
    assert slowest < 2.0, f"a real client needed {slowest:.2f} s"
    psql = "psql" if shutil.which("psql") else None
    if psql:
        t = time.monotonic()
        r = subprocess.run([psql, "-X", "-h", "127.0.0.1", "-p", str(port), "-U", "tester",
                            "-d", "db", "-Atc", "select 40 + 2"],
                           capture_output=True, text=True, timeout=30)
        assert r.returncode == 0 and r.stdout.strip() == "42", (r.returncode, r.stdout, r.stderr)
        slowest = max(slowest, time.monotonic() - t)
    print(f"{HALF_OPEN} half-open sockets: slowest real client connected and answered in "
          f"{slowest * 1000:.0f} ms")

    # Every half-open socket is closed by the server, with a FATAL saying why.
    codes = {}
    pending = {s.fileno(): (s, b"") for s in flood}
    deadline = opened + TIMEOUT_S + 5
    while pending and time.monotonic() < deadline:
        ready, _, _ = select.select(list(pending), [], [], 0.5)
        for fd in ready:
            s, got = pending[fd]
            try:
                chunk = s.recv(4096)
            except ConnectionResetError:
                chunk = b""
            if chunk:
                pending[fd] = (s, got + chunk)
                continue
            code = fatal_code(got)
            codes[code] = codes.get(code, 0) + 1
            del pending[fd]
            s.close()
    closed_after = time.monotonic() - opened
    assert not pending, f"{len(pending)} half-open sockets still open after {closed_after:.1f} s"
    assert set(codes) <= {"53300", "08P01"}, codes
    assert codes.get("08P01", 0) > 0 and codes.get("53300", 0) > 0, codes
    print(f"all closed by the server within {closed_after:.1f} s "
          f"(authentication_timeout {TIMEOUT_S} s): {codes.get('53300', 0)} with 53300 to make "
          f"room, {codes.get('08P01', 0)} with 08P01 at the timeout")
    with connect(port, connect_timeout=10) as c:
        assert c.execute("SELECT 1").fetchone()[0] == 1


main()
