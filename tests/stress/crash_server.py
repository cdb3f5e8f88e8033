"""A server under test that is killed with SIGKILL and started again on the same port and data
directory: shared by aof_crash.py and lock_safety.py --kill-restarts.

The port is picked outside the kernel's ephemeral range (ip_local_port_range). While the server
is down its clients keep reconnecting, and each connect() takes an ephemeral source port: a port
from that range could be handed to one of them (a TCP self-connect to 127.0.0.1:port) or to any
other process, and the restart would then fail to bind. A port outside the range is only ever
taken by an explicit bind.

Every process is a child of the driver, signalled by its PID only, and killed by the kernel if the
driver dies first (PR_SET_PDEATHSIG).
"""

import os
import random
import re
import signal
import socket
import subprocess
import time

from lock_client import Conn, die_with_parent

BIND_IN_USE = re.compile(rb"address already in use|EADDRINUSE", re.IGNORECASE)
STOP_WAIT_S = 10


class StartFailed(Exception):
    """The server did not answer PING; `in_use` when its port was taken by someone else."""

    def __init__(self, text, in_use=False):
        super().__init__(text)
        self.in_use = in_use


def ephemeral_range():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            lo, hi = (int(x) for x in f.read().split())
            return lo, hi
    except (OSError, ValueError):
        return 32768, 60999


def stable_port():
    """A port nothing listens on, outside the ephemeral range (see the module comment)."""
    lo, hi = ephemeral_range()
    candidates = [(max(10000, lo - 20000), lo - 1), (hi + 1, 65535)]
    candidates = [(a, b) for a, b in candidates if a <= b]
    pick = random.SystemRandom()  # not the run's seed: parallel runs must not collide
    for _ in range(500):
        a, b = pick.choice(candidates)
        port = pick.randint(a, b)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))  # no SO_REUSEADDR: a port in any use is refused
            except OSError:
                continue
        return port
    raise OSError("no free port outside the ephemeral range %d-%d" % (lo, hi))


def _cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read()
    except OSError:
        return None


class CrashServer:
    """One server command line, started, killed and started again; output appended to a log."""

    def __init__(self, argv, port, log_path):
        if not os.access(argv[0], os.X_OK):
            raise StartFailed("no server binary at %s" % argv[0])
        self.argv, self.port, self.log_path = list(argv), port, log_path
        self.log = open(log_path, "ab")
        self.proc = None
        self.starts = 0
        self.start_offset = 0  # where the current process's output begins in the log

    def start(self, timeout_s=10):
        """Spawns the server and waits until it answers PING (so its data set is loaded).
        Returns the CLOCK_MONOTONIC ns of the PONG. A port taken meanwhile is retried until
        `timeout_s`; anything else raises StartFailed with the server's output."""
        end = time.monotonic() + timeout_s
        while True:
            self.log.flush()
            self.start_offset = os.path.getsize(self.log_path)
            self.proc = subprocess.Popen(self.argv, stdout=self.log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, preexec_fn=die_with_parent)
            error = self._wait_pong(end)
            if error is None:
                self.starts += 1
                return time.monotonic_ns()
            if self.proc.poll() is None:
                self.kill()
            output = self.output()
            in_use = BIND_IN_USE.search(output) is not None
            if in_use and time.monotonic() < end:
                continue
            raise StartFailed("%s; its output:\n%s" % (
                error, output[-3000:].decode(errors="replace")), in_use)

    def _wait_pong(self, end):
        while True:
            if self.proc.poll() is not None:
                return "server exited with status %s" % self.proc.returncode
            try:
                conn = Conn(self.port, 2)
                try:
                    pong = conn.call("PING")  # -LOADING from redis-server while it loads
                finally:
                    conn.close()
                if pong == "PONG":
                    return None
            except OSError:
                pass
            if time.monotonic() > end:
                return "server did not answer PING on port %d" % self.port
            # Not answering yet: wait a little, but wake at once if the server exits.
            try:
                self.proc.wait(timeout=0.005)
            except subprocess.TimeoutExpired:
                pass

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def children(self):
        """(PID, command line) of the server's own children (a rewrite's fork), from /proc."""
        found = []
        try:
            for task in os.listdir("/proc/%d/task" % self.proc.pid):
                with open("/proc/%d/task/%s/children" % (self.proc.pid, task)) as f:
                    for pid in f.read().split():
                        found.append((int(pid), _cmdline(int(pid))))
        except (OSError, ValueError):
            pass
        return found

    def kill(self):
        """SIGKILL to the server's PID, reaped, then to its children's (a rewrite child would
        otherwise outlive it). Returns the CLOCK_MONOTONIC ns just before the signal: every reply
        received was sent before it, whatever the time it was read."""
        children = self.children() if self.alive() else []
        t = time.monotonic_ns()
        if self.alive():
            os.kill(self.proc.pid, signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait()
        for pid, cmdline in children:
            # Only while the PID is still that child (a fork keeps the server's command line).
            if cmdline is not None and _cmdline(pid) == cmdline:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:  # gone meanwhile
                    pass
        return t

    def stop(self):
        """SIGTERM and wait; returns the exit status (None if it had to be killed)."""
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        self.proc.terminate()
        try:
            return self.proc.wait(STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            self.kill()
            return None

    def output(self, since_start=True):
        """The server's output, of the current process only unless since_start is False."""
        self.log.flush()
        with open(self.log_path, "rb") as f:
            if since_start:
                f.seek(self.start_offset)
            return f.read()

    def close(self):
        self.stop()
        self.log.close()
