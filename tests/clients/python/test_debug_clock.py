"""Everything timed follows warden's clock, through redis-py (Debian's python3-redis 4.3.4).

With the clock frozen (DEBUG CLOCK FREEZE) nothing timed moves in real time, and DEBUG CLOCK
ADVANCE does at once what became due: a blocked BLPOP times out, a CLIENT PAUSE ends, keys
expire with their `expired` notification (unless active expiry is off: then only an access
expires them, as in Redis), and TIME, script time, slow-log timestamps and OBJECT IDLETIME
read the moved clock.
DEBUG WAIT-BLOCKED replaces sleeping until a worker blocks (its timeout is real time, which these
tests also use to let real time pass while the clock stays frozen), and DEBUG UNSUPPORTED lists
what warden answered as unknown.

These are warden's test-double controls: every test runs on warden alone, and puts the clock,
active expiry and the configuration it changed back as it found them.
"""

import contextlib
import os
import subprocess
import tempfile
import threading
import time
import uuid

import pytest
import redis
from redis.exceptions import ResponseError

from conftest import targets

WAIT_S = 5
FROZEN_AT_MS = 1_700_000_000_123


@pytest.fixture
def port():
    return targets()["warden"].port


@pytest.fixture
def key():
    return "clock:%s" % uuid.uuid4().hex


@pytest.fixture
def client_for(port):
    made = []

    def make():
        client = redis.Redis(port=port, socket_timeout=10)
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


@pytest.fixture
def r(client_for):
    """A client whose server has its clock frozen for the test, and released after it."""
    client = client_for()
    assert client.execute_command("DEBUG", "CLOCK", "FREEZE", str(FROZEN_AT_MS)) == b"OK"
    try:
        yield client
    finally:
        client.execute_command("DEBUG", "CLOCK", "REAL")
        client.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "1")


def advance(client, ms):
    assert client.execute_command("DEBUG", "CLOCK", "ADVANCE", str(ms)) == b"OK"


def wait_blocked(client, n, timeout_ms=WAIT_S * 1000):
    return client.execute_command("DEBUG", "WAIT-BLOCKED", str(n), str(timeout_ms))


def let_real_time_pass(client, ms):
    """Waits `ms` of real time on the server (a WAIT-BLOCKED nobody can satisfy)."""
    with pytest.raises(ResponseError, match="timed out waiting for 1000 blocked clients"):
        wait_blocked(client, 1000, ms)


class InThread:
    """Runs fn in a thread; result() joins it and returns what fn returned."""

    def __init__(self, fn):
        self._value = None
        self._error = None
        self._thread = threading.Thread(target=self._run, args=(fn,), daemon=True)
        self._thread.start()

    def _run(self, fn):
        try:
            self._value = fn()
        except Exception as e:  # handed to the test thread
            self._error = e

    def done(self):
        return not self._thread.is_alive()

    def result(self):
        self._thread.join(WAIT_S)
        assert not self._thread.is_alive(), "still waiting after %d s" % WAIT_S
        if self._error is not None:
            raise self._error
        return self._value


def client_flags(client, name):
    for entry in client.client_list():
        if entry["name"] == name:
            return entry["flags"]
    return None


def wait_for_flag(client, name, flag):
    deadline = time.monotonic() + WAIT_S
    while flag not in (client_flags(client, name) or ""):
        assert time.monotonic() < deadline, "client %s never showed flag %s" % (name, flag)


# --- blocking commands ----------------------------------------------------------------------

def test_blpop_timeout_waits_for_the_clock_not_for_real_time(r, client_for, key):
    worker = client_for()
    popped = InThread(lambda: worker.blpop(key, timeout=1))
    assert wait_blocked(r, 1) == 1
    # Longer than the timeout in real time: the frozen clock holds the worker.
    let_real_time_pass(r, 1200)
    assert not popped.done()
    advance(r, 999)
    assert wait_blocked(r, 1, 0) == 1
    advance(r, 1)
    assert popped.result() is None
    assert wait_blocked(r, 0) == 0


def test_bzpopmin_and_blmove_time_out_on_advance(r, client_for, key):
    zworker, lworker = client_for(), client_for()
    zpopped = InThread(lambda: zworker.bzpopmin(key + ":z", timeout=2))
    moved = InThread(lambda: lworker.blmove(key + ":src", key + ":dst", 30, "LEFT", "RIGHT"))
    assert wait_blocked(r, 2) == 2
    advance(r, 2000)
    assert zpopped.result() is None
    assert wait_blocked(r, 1, 0) == 1
    advance(r, 28000)
    assert moved.result() is None


def test_a_push_still_serves_a_waiter_while_the_clock_is_frozen(r, client_for, key):
    worker = client_for()
    popped = InThread(lambda: worker.blpop(key, timeout=1))
    assert wait_blocked(r, 1) == 1
    assert r.rpush(key, "job") == 1
    assert popped.result() == (key.encode(), b"job")


# --- CLIENT PAUSE ---------------------------------------------------------------------------

def test_client_pause_ends_when_the_clock_reaches_its_end(r, client_for, key):
    writer = client_for()
    writer.client_setname("clock-paused-writer")
    assert r.execute_command("CLIENT", "PAUSE", "1000", "WRITE") == b"OK"
    try:
        written = InThread(lambda: writer.set(key, "v"))
        wait_for_flag(r, "clock-paused-writer", "b")
        let_real_time_pass(r, 1100)
        advance(r, 999)
        assert r.get(key) is None
        assert "b" in client_flags(r, "clock-paused-writer")
        advance(r, 1)
        assert written.result() is True
        assert r.get(key) == b"v"
    finally:
        r.execute_command("CLIENT", "UNPAUSE")


def test_an_all_pause_ends_on_advance_which_it_does_not_hold(r, client_for, key):
    writer = client_for()
    writer.client_setname("clock-all-paused-writer")
    assert r.execute_command("CLIENT", "PAUSE", "1000", "WRITE") == b"OK"
    try:
        written = InThread(lambda: writer.set(key, "v"))
        wait_for_flag(r, "clock-all-paused-writer", "b")
        # Now every command waits, but DEBUG CLOCK: on a frozen clock nothing else ends it.
        assert r.execute_command("CLIENT", "PAUSE", "1000", "ALL") == b"OK"
        advance(r, 999)
        assert not written.done()
        advance(r, 1)
        assert written.result() is True
        assert r.get(key) == b"v"
    finally:
        r.execute_command("CLIENT", "UNPAUSE")


# --- keyspace `expired` events --------------------------------------------------------------

@contextlib.contextmanager
def expired_events(r):
    assert r.config_set("notify-keyspace-events", "Ex") is True
    sub = r.pubsub()
    try:
        sub.psubscribe("__keyevent@*__:expired")
        assert sub.get_message(timeout=WAIT_S)["type"] == "psubscribe"
        yield sub
    finally:
        sub.close()
        r.config_set("notify-keyspace-events", "")


def next_expired(sub):
    message = sub.get_message(timeout=WAIT_S)
    assert message is not None, "no message within %d s" % WAIT_S
    return message["channel"], message["data"]


def test_advance_expires_due_keys_at_once_with_their_event(r, key):
    with expired_events(r) as sub:
        r.set(key, "lease", px=30000)
        r.set(key + ":later", "lease", px=30001)
        advance(r, 29999)
        assert r.exists(key) == 1
        advance(r, 1)
        # The key is gone before anyone touched it, and its event is out.
        assert next_expired(sub) == (b"__keyevent@0__:expired", key.encode())
        assert r.execute_command("DEBUG", "OBJECT", key + ":later").startswith(b"Value at:")
        with pytest.raises(ResponseError, match="no such key"):
            r.execute_command("DEBUG", "OBJECT", key)


def test_with_active_expiry_off_only_an_access_expires_a_key(r, key):
    with expired_events(r) as sub:
        assert r.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "0") == b"OK"
        r.set(key, "lease", px=100)
        advance(r, 5000)
        # Still held (DEBUG OBJECT does not expire), and no event yet: the marker comes first.
        assert r.execute_command("DEBUG", "OBJECT", key).startswith(b"Value at:")
        r.publish("__keyevent@0__:expired", "marker")
        assert next_expired(sub) == (b"__keyevent@0__:expired", b"marker")
        assert r.get(key) is None
        assert next_expired(sub) == (b"__keyevent@0__:expired", key.encode())


def test_active_expiry_on_a_frozen_clock_expires_nothing_in_real_time(r, key):
    r.set(key, "lease", px=50)
    let_real_time_pass(r, 300)
    assert r.execute_command("DEBUG", "OBJECT", key).startswith(b"Value at:")
    assert r.pttl(key) == 50


# --- TIME, scripts, the slow log ------------------------------------------------------------

def test_time_reads_warden_clock(r):
    assert r.time() == (1_700_000_000, 123_000)
    let_real_time_pass(r, 50)
    assert r.time() == (1_700_000_000, 123_000)
    advance(r, 1000)
    assert r.time() == (1_700_000_001, 123_000)


def test_scripts_see_warden_clock_for_time_and_expiry(r, key):
    assert r.eval("return redis.call('TIME')", 0) == [b"1700000000", b"123000"]
    assert r.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "0") == b"OK"
    r.set(key, "lease", px=1000)
    advance(r, 400)
    assert r.eval("return redis.call('PTTL', KEYS[1])", 1, key) == 600
    advance(r, 601)
    assert r.eval("return redis.call('EXISTS', KEYS[1])", 1, key) == 0


def test_slowlog_entries_carry_warden_time(r):
    threshold = r.config_get("slowlog-log-slower-than")["slowlog-log-slower-than"]
    assert r.config_set("slowlog-log-slower-than", "0") is True
    try:
        r.echo("first")
        assert r.slowlog_get(1)[0]["start_time"] == 1_700_000_000
        advance(r, 5000)
        r.echo("second")
        entry = r.slowlog_get(1)[0]
        assert (entry["start_time"], entry["command"]) == (1_700_000_005, b"ECHO second")
    finally:
        r.config_set("slowlog-log-slower-than", threshold)


def test_object_idletime_counts_warden_seconds_since_the_last_access(r, key):
    r.set(key, "lease")
    let_real_time_pass(r, 1100)
    assert r.object("idletime", key) == 0
    advance(r, 876)  # 1,700,000,000.999: still the same second
    assert r.object("idletime", key) == 0
    advance(r, 1)
    assert r.object("idletime", key) == 1
    advance(r, 3_600_000)
    assert r.type(key) == b"string"  # TYPE, TTL and EXISTS are no access, as in Redis
    assert r.ttl(key) == -1
    assert r.exists(key) == 1
    assert r.object("idletime", key) == 3601
    assert r.get(key) == b"lease"
    assert r.object("idletime", key) == 0
    advance(r, 2000)
    assert r.object("idletime", key) == 2


# --- DEBUG WAIT-BLOCKED ---------------------------------------------------------------------

def test_wait_blocked_answers_once_enough_clients_block(r, client_for, key):
    workers = [client_for() for _ in range(3)]
    waiting = InThread(lambda: wait_blocked(client_for(), 3))
    pops = [InThread(lambda w=w: w.blpop(key, timeout=0)) for w in workers]
    assert waiting.result() == 3
    assert r.rpush(key, "a", "b", "c") == 3
    assert sorted(p.result()[1] for p in pops) == [b"a", b"b", b"c"]


def test_wait_blocked_times_out_in_real_time_naming_both_numbers(r, client_for, key):
    worker = client_for()
    popped = InThread(lambda: worker.blpop(key, timeout=0))
    assert wait_blocked(r, 1) == 1
    with pytest.raises(ResponseError) as error:
        wait_blocked(r, 3, 100)
    assert str(error.value) == "timed out waiting for 3 blocked clients (1 blocked)"
    r.rpush(key, "done")
    assert popped.result() == (key.encode(), b"done")


def test_wait_blocked_argument_errors(r):
    for args, text in [(("x",), "value is not an integer or out of range"),
                       (("-1",), "value is out of range, must be positive"),
                       (("1", "-5"), "timeout is negative")]:
        with pytest.raises(ResponseError) as error:
            r.execute_command("DEBUG", "WAIT-BLOCKED", *args)
        assert str(error.value) == text


# --- DEBUG UNSUPPORTED ----------------------------------------------------------------------

def test_unsupported_lists_unknown_commands_and_subcommands_with_counts(r):
    assert r.config_resetstat() is True
    for command in (("NOSUCHCMD", "a"), ("nosuchcmd",), ("CONFIG", "NOSUCHSUB"),
                    ("DEBUG", "JMAP"), ("GET",)):
        with pytest.raises(ResponseError):
            r.execute_command(*command)
    assert r.execute_command("DEBUG", "UNSUPPORTED") == [
        b"config|nosuchsub", 1, b"debug|jmap", 1, b"nosuchcmd", 2]
    assert r.config_resetstat() is True
    assert r.execute_command("DEBUG", "UNSUPPORTED") == []


def test_unsupported_commands_are_logged_at_shutdown():
    binary = os.environ.get("WARDEN_BIN")
    if not binary:
        raise pytest.UsageError("WARDEN_BIN is not set: run through tests/clients/run.sh")
    with tempfile.TemporaryDirectory() as work:
        port_file, log_file = os.path.join(work, "port"), os.path.join(work, "log")
        proc = subprocess.Popen([binary, "--port", "0", "--bind", "127.0.0.1", "--save", "",
                                 "--port-file", port_file, "--logfile", log_file])
        try:
            deadline = time.monotonic() + WAIT_S
            while not os.path.exists(port_file) or not open(port_file).read().strip():
                assert time.monotonic() < deadline and proc.poll() is None, "warden did not start"
            client = redis.Redis(port=int(open(port_file).read()), socket_timeout=10)
            for command in (("CLUSTER", "INFO"), ("CLUSTER",), ("CONFIG", "NOSUCHSUB")):
                with pytest.raises(ResponseError):
                    client.execute_command(*command)
            client.close()
        finally:
            proc.terminate()
            assert proc.wait(timeout=WAIT_S) == 0
        lines = [line for line in open(log_file) if "Unsupported commands" in line]
    assert len(lines) == 1
    assert lines[0].rstrip("\n").endswith(
        "Unsupported commands since start: cluster (2), config|nosuchsub (1)")
