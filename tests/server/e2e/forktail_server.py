"""Starting, reaching and stopping `forktail serve` for the end-to-end scripts
of this folder that run a server of their own (CTest passes the binary).
Every server listens on 127.0.0.1 on a free port and is stopped by the test
that started it."""
import signal
import socket
import subprocess
import time

import psycopg

USER = "tester"
DATABASE = "db"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def connect(port, **kwargs):
    """An autocommit psycopg connection (keyword arguments override)."""
    options = dict(host="127.0.0.1", port=port, user=USER, dbname=DATABASE, autocommit=True)
    options.update(kwargs)
    return psycopg.connect(**options)


def wait_ready(proc, port, seconds=30):
    """Returns once a client can connect; raises if the server exits first
    or does not answer within `seconds` (and then kills it)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"forktail serve exited with {proc.returncode}")
        try:
            connect(port, connect_timeout=10).close()
            return
        except psycopg.OperationalError:
            time.sleep(0.05)
    proc.kill()
    proc.wait()
    raise RuntimeError("forktail serve did not start")


def start(binary, data, port, args=(), stdout=subprocess.DEVNULL, prefix=(), wait=True):
    """Starts `binary serve --data DATA --port PORT ARGS...` (after `prefix`,
    a command that execs it) and, with `wait`, returns once it answers.
    Output goes to `stdout` (stderr with it)."""
    command = list(prefix) + [binary, "serve", "--data", data, "--port", str(port)] + list(args)
    proc = subprocess.Popen(command, stdout=stdout, stderr=subprocess.STDOUT,
                            text=stdout == subprocess.PIPE)
    if wait:
        wait_ready(proc, port)
    return proc


def stop(proc, timeout=60):
    """SIGTERM (a clean shutdown with its checkpoint); the exit code. Kills
    a server that has not exited within `timeout` seconds, and raises."""
    if proc.poll() is not None:
        return proc.returncode
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise


def kill(proc):
    """SIGKILL, as a crash; waits for the process to be gone."""
    proc.send_signal(signal.SIGKILL)
    proc.wait()
