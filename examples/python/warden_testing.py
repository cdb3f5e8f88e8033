"""warden as the Redis of a Python test suite: a server per session, and its test controls.

Superseded by the warden-testing package (clients/python), whose plugin needs no conftest.py.
This copy stays while docs/test-double.md's Python block imports it (tests/docs puts this
directory on its path); it goes when that block uses the package.

Copy this file next to your tests (it needs only redis-py and pytest), and take its fixtures
in conftest.py:

    from warden_testing import warden, warden_server  # noqa: F401

    def test_lease_runs_out(warden):
        freeze(warden)
        warden.set("lock", "me", nx=True, px=30_000)
        advance(warden, 30_000)                     # no sleep: the lease is over at once
        assert warden.get("lock") is None

The server binary is $WARDEN_BINARY, else `warden` on PATH. Fixtures: `warden_server` (one
server per session, started with the debug controls on) and `warden` (a redis-py client on it
that decodes replies, with a clean slate before each test: every database flushed, the clock
real, no fault rules, no command log). Every control is a DEBUG subcommand, so the same calls
work from any language.
"""

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass

import pytest
import redis

START_TIMEOUT_S = 10


class Warden:
    """A warden process on a free loopback port, stopped by its PID."""

    def __init__(self, binary=None, args=(), seed=None):
        binary = binary or os.environ.get("WARDEN_BINARY") or shutil.which("warden")
        if not binary:
            raise RuntimeError("no warden binary: set WARDEN_BINARY or put warden on PATH")
        self._dir = tempfile.mkdtemp(prefix="warden-testing.")
        port_file = os.path.join(self._dir, "port")
        command = [binary, "--port", "0", "--port-file", port_file, "--bind", "127.0.0.1",
                   "--enable-debug-command", "yes", *args]
        if seed is not None:
            command += ["--seed", str(seed)]
        self._log = open(os.path.join(self._dir, "log"), "w+")
        self.process = subprocess.Popen(command, stdout=self._log, stderr=subprocess.STDOUT)
        self.port = self._wait_for_port(port_file)

    def _wait_for_port(self, port_file):
        # The port file appears, complete, once connections are accepted.
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            with contextlib.suppress(FileNotFoundError, ValueError):
                with open(port_file) as f:
                    return int(f.read())
            time.sleep(0.005)
        self.stop()
        self._log.seek(0)
        raise RuntimeError("warden did not start:\n" + self._log.read())

    def client(self, **options):
        return redis.Redis(host="127.0.0.1", port=self.port, **options)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()
        shutil.rmtree(self._dir, ignore_errors=True)


# --- The clock ---------------------------------------------------------------------------------

def now_ms(r):
    """warden's clock, in unix milliseconds."""
    _mode, ms = r.execute_command("DEBUG", "CLOCK")  # ["real" or "frozen", unix ms]
    return int(ms)


def freeze(r, at_ms=None):
    """Stops warden's clock, now or at `at_ms` (unix ms). Everything timed follows it."""
    args = ["DEBUG", "CLOCK", "FREEZE"] + ([] if at_ms is None else [int(at_ms)])
    r.execute_command(*args)


def advance(r, ms):
    """Moves the clock forward `ms`: leases run out, blocked commands time out, pauses end."""
    r.execute_command("DEBUG", "CLOCK", "ADVANCE", int(ms))


def real_clock(r):
    r.execute_command("DEBUG", "CLOCK", "REAL")


def wait_blocked(r, count, timeout_ms=5000):
    """Returns once at least `count` clients are blocked in a blocking command (BLPOP, ...);
    raises redis.ResponseError after `timeout_ms` of real time."""
    return r.execute_command("DEBUG", "WAIT-BLOCKED", int(count), int(timeout_ms))


# --- Snapshots ---------------------------------------------------------------------------------

def snapshot(r, name="default"):
    """Copies every database, values and deadlines, under `name`."""
    r.execute_command("DEBUG", "SNAPSHOT", "SAVE", name)


def restore(r, name="default"):
    """Replaces the data set with snapshot `name`; keys whose deadline has passed are gone."""
    r.execute_command("DEBUG", "SNAPSHOT", "LOAD", name)


def drop_snapshot(r, name="default"):
    r.execute_command("DEBUG", "SNAPSHOT", "DROP", name)


# --- Faults ------------------------------------------------------------------------------------

class Fault:
    """A fault rule; a context manager that removes it on exit."""

    def __init__(self, r, rule_id):
        self._r = r
        self.id = rule_id

    def remove(self):
        self._r.execute_command("DEBUG", "FAULT", "DEL", self.id)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        with contextlib.suppress(redis.ResponseError):  # a TIMES rule may be spent and gone
            self.remove()


def fault(r, action, *action_args, command=None, key=None, client_name=None, after=None,
          times=None, probability=None):
    """Adds a fault rule. `action` is "ERROR" (with the error text, e.g. "LOADING ..."),
    "DELAY" (ms, and optionally "JITTER", ms), "DROP" or "DROP-AFTER"; the keyword arguments
    say which commands it hits. Probabilities draw from warden's seeded generator."""
    args = ["DEBUG", "FAULT", "ADD"]
    for option, value in (("COMMAND", command), ("KEY", key), ("CLIENT-NAME", client_name),
                          ("AFTER", after), ("TIMES", times), ("PROBABILITY", probability)):
        if value is not None:
            args += [option, value]
    args.append(action)
    args += list(action_args)
    return Fault(r, r.execute_command(*args))


def clear_faults(r):
    r.execute_command("DEBUG", "FAULT", "CLEAR")


# --- The command log ---------------------------------------------------------------------------

@dataclass(frozen=True)
class LoggedCommand:
    seq: int
    time_ms: int  # on warden's clock
    client_id: int
    client_name: str
    db: int
    args: list  # the command name first, as sent (bytes, or str from a decoding client)
    origin: str  # "client", "exec" (queued in MULTI) or "script" (redis.call from a script)

    @property
    def name(self):
        return _text(self.args[0]).lower()


class CommandLog:
    """What the server ran while the log was on; `commands()` is the usual assertion."""

    def __init__(self, r):
        self._r = r

    def entries(self, count=None):
        """Oldest first."""
        args = ["DEBUG", "COMMAND-LOG", "GET"] + ([] if count is None else [int(count)])
        return [_logged_command(raw) for raw in self._r.execute_command(*args)]

    def commands(self, include_scripts=True):
        """Each command as a list of str, e.g. [["set", "lock", "me", "NX", "PX", "30000"]]."""
        return [[entry.name] + [_text(a) for a in entry.args[1:]]
                for entry in self.entries() if include_scripts or entry.origin != "script"]

    def reset(self):
        self._r.execute_command("DEBUG", "COMMAND-LOG", "RESET")


def _logged_command(raw):
    seq, time_ms, client_id, client_name, db, args, origin = raw
    return LoggedCommand(int(seq), int(time_ms), int(client_id), _text(client_name), int(db),
                         list(args), _text(origin))


def _text(value):
    return value.decode(errors="replace") if isinstance(value, bytes) else value


@contextlib.contextmanager
def command_log(r, max_entries=None):
    """Logs every command the server runs inside the block."""
    args = ["DEBUG", "COMMAND-LOG", "ON"] + ([] if max_entries is None else [int(max_entries)])
    r.execute_command(*args)
    r.execute_command("DEBUG", "COMMAND-LOG", "RESET")
    try:
        yield CommandLog(r)
    finally:
        r.execute_command("DEBUG", "COMMAND-LOG", "OFF")


def unsupported(r):
    """Commands warden answered as unknown since start or CONFIG RESETSTAT: {name: count}, a
    subcommand as "config|nosuch"."""
    reply = r.execute_command("DEBUG", "UNSUPPORTED")
    if isinstance(reply, dict):  # RESP3
        return {_text(k): int(v) for k, v in reply.items()}
    return {_text(k): int(v) for k, v in zip(reply[::2], reply[1::2])}


# --- pytest fixtures ---------------------------------------------------------------------------

@pytest.fixture(scope="session")
def warden_server():
    server = Warden()
    yield server
    server.stop()


@pytest.fixture
def warden(warden_server):
    r = warden_server.client(decode_responses=True)
    # A clean slate: faster than a new server, and nothing of the previous test leaks in.
    r.execute_command("DEBUG", "COMMAND-LOG", "OFF")
    clear_faults(r)
    real_clock(r)
    r.flushall()
    yield r
    r.close()
