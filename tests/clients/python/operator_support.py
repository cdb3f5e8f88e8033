"""What the operator suites share: servers started on free ports from a config file or the
command line, read up to a line of their log, waited on without sleeping."""

import os
import select
import socket
import subprocess
import threading
import time

import redis

from replication_support import free_port

WAIT_S = 20


def run_to_exit(binary, args, cwd):
    """Runs a server that must refuse to start; returns (exit status, stdout, stderr)."""
    proc = subprocess.run([binary] + args, cwd=cwd, capture_output=True, text=True,
                          timeout=WAIT_S)
    return proc.returncode, proc.stdout, proc.stderr


def log_message(line):
    """A log line without its pid, role and time stamp ("123:C 07 Dec ... # text")."""
    return line.split(" ", 5)[-1] if line.count(" ") >= 5 else line


def config_names(port):
    with redis.Redis(port=port) as r:
        return set(r.config_get("*"))


def wait_for_names(port, procs):
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            return config_names(port)
        except redis.ConnectionError:
            for p in procs:
                assert p.poll() is None, "a server exited at start"
            if time.monotonic() > deadline:
                raise
            # The server is not listening yet: wait on its port instead of sleeping.
            wait_for_port(port, deadline)


def wait_for_port(port, deadline):
    """Blocks in connect() until the port accepts, or the deadline passes."""
    while time.monotonic() < deadline:
        with socket.socket() as s:
            s.settimeout(max(0.01, deadline - time.monotonic()))
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        # A refused connect returns at once: wait a moment before the next try.
        select_wait(0.02)


def select_wait(seconds):
    select.select([], [], [], seconds)


def wait_for_exit(pid, deadline):
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        select_wait(0.02)
    raise AssertionError("the daemonized server (pid %d) did not exit" % pid)


def read_until(proc, text):
    """Reads a server's output line by line until a line holds `text`; returns all read. A
    server that never prints it is killed after WAIT_S, which ends the read."""
    seen = []
    watchdog = threading.Timer(WAIT_S, proc.kill)
    watchdog.start()
    try:
        for line in proc.stdout:
            seen.append(line)
            if text in line:
                return "".join(seen)
    finally:
        watchdog.cancel()
    raise AssertionError("no %r in:\n%s" % (text, "".join(seen)))


def start_with_file(binary, text, work, name):
    """A server started with a config file holding `text` after its port; returns (proc, port)
    and keeps what it logged up to ready in proc.start_log."""
    port = free_port()
    path = os.path.join(work, name + ".conf")
    with open(path, "w") as f:
        f.write("port %d\nsave \"\"\nappendonly no\n%s" % (port, text))
    proc = subprocess.Popen([binary, path], cwd=work, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    proc.start_log = read_until(proc, "Ready to accept connections")
    return proc, port
