"""The Lua debugger (SCRIPT DEBUG, `redis-cli --ldb`, `--ldb-sync-mode`) against redis-server
and warden.

Every scenario runs on both servers and the transcripts must match byte for byte, after masking
what cannot match (ports, and the addresses Lua prints for functions). Two layers:
- raw protocol: SCRIPT DEBUG, EVAL, then debugger requests, reading each reply as RESP;
- the real redis-cli on a pseudo-terminal, typing after each "lua debugger> " prompt.
Nothing sleeps: every read waits for the text it expects, with a deadline.
"""

import fcntl
import os
import pty
import re
import select
import socket
import struct
import subprocess
import tempfile
import termios
import time

import pytest
import redis

from conftest import targets

POINTER = re.compile(rb"@0x[0-9a-f]+")

SCRIPT = """local a = 1
local t = {1, 2, 'x', {nested = true}}
local m = {name = 'v'}
redis.debug('hello', a, t, m, nil, 2.5)
redis.call('set', KEYS[1], ARGV[1])
local v = redis.call('get', KEYS[1])
redis.breakpoint()
local big = string.rep('x', 300)
local r = redis.pcall('incr', KEYS[1])
local function f(x)
  return x * 2
end
a = f(a)
redis.call('rpush', KEYS[2], 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l')
redis.call('lrange', KEYS[2], 0, -1)
return {a, v}
"""

# The requests typed in both layers, in order, with the script stopped at line 1.
REQUESTS = [
    "help", "s", "next", "print", "p a", "p t", "p KEYS", "p ARGV", "p nosuch",
    "list", "l 3 1", "l 0", "w", "b", "b 9", "b 100", "b foo", "b 11 13", "b",
    "b -13", "b -12", "b", "c", "t", "e a + 1", "e redis.call('get', KEYS[1])", "e x = ",
    "e nosuchglobal", "r get ldb:k", "r set", "r nosuchcmd",
    "r incr ldb:k", "m", "m 10", "s", "p big", "m 0", "p big", "m 300", "s", "p r", "c",
    "t", "p x", "s", "print", "s", "s", "s", "s", "zzz", "c",
]


def flushed(port):
    client = redis.Redis(port=port)
    client.flushall()
    client.script_flush()
    return client


class Resp:
    """A blocking RESP reader over a socket."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n):
        while len(self.buf) < n + 2:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def read(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind in (b"+", b"-", b":"):
            return line
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        raise AssertionError("unexpected reply %r" % line)


def encode(*args):
    out = b"*%d\r\n" % len(args)
    for arg in args:
        arg = arg if isinstance(arg, bytes) else str(arg).encode()
        out += b"$%d\r\n%s\r\n" % (len(arg), arg)
    return out


def ended(reply):
    return isinstance(reply, list) and reply and reply[-1] == b"+<endsession>"


def raw_session(port, mode, script, keys, args, requests):
    """SCRIPT DEBUG `mode`, EVAL, then each request while the session lasts. Returns the list
    of replies, the script's final reply last, and whether the server closed the connection."""
    flushed(port)
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    resp = Resp(sock)
    try:
        sock.sendall(encode("SCRIPT", "DEBUG", mode))
        replies = [resp.read()]
        sock.sendall(encode("EVAL", script, len(keys), *keys, *args))
        replies.append(resp.read())
        for request in requests:
            if ended(replies[-1]):
                break
            words = request.split(" ", 1) if request[:2] in ("e ", "ev") else request.split()
            sock.sendall(encode(*words))
            replies.append(resp.read())
        if ended(replies[-1]):
            replies.append(resp.read())
        try:
            closed = sock.recv(1) == b""
        except socket.timeout:
            closed = False
        return replies, closed
    finally:
        sock.close()


def masked(value):
    if isinstance(value, (list, tuple)):
        return type(value)(masked(v) for v in value)
    if isinstance(value, bytes):
        return POINTER.sub(b"@PTR", value)
    return value


@pytest.fixture(params=["yes", "sync"])
def mode(request):
    return request.param


def both(run):
    """Runs `run(port)` on redis-server and warden; returns the two results, masked."""
    servers = targets()
    return masked(run(servers["redis-server"].port)), masked(run(servers["warden"].port))


def test_raw_session_matches_redis(mode):
    expected, got = both(lambda port: raw_session(
        port, mode, SCRIPT, ["ldb:k", "ldb:list"], ["val"], REQUESTS))
    replies, closed = expected
    assert closed
    assert replies[-1] == [b":2", b"val"]
    assert got == expected


def test_abort_ends_with_error(mode):
    expected, got = both(lambda port: raw_session(
        port, mode, "redis.call('set', 'ldb:a', 1)\nreturn 1\n", [], [], ["s", "a"]))
    assert expected[0][-1].startswith(b"-ERR script aborted for user request")
    assert got == expected


def test_compile_error_ends_at_once(mode):
    expected, got = both(lambda port: raw_session(port, mode, "return +", [], [], []))
    assert expected[0][1] == [b"+<endsession>"]
    assert got == expected


def test_protocol_error_and_unknown_requests(mode):
    def run(port):
        flushed(port)
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        resp = Resp(sock)
        try:
            sock.sendall(encode("SCRIPT", "DEBUG", mode))
            out = [resp.read()]
            sock.sendall(encode("EVAL", "local x = 1\nreturn x\n", 0))
            out.append(resp.read())
            sock.sendall(b"*1\r\n$0\r\n\r\n")  # an empty argument is a protocol error
            out.append(resp.read())
            out.append(resp.read())
            return out
        finally:
            sock.close()

    expected, got = both(run)
    assert expected[-1].startswith(b"-ERR protocol error")
    assert got == expected


@pytest.mark.parametrize("debug_mode,kept", [("yes", None), ("sync", b"v")])
def test_yes_discards_writes_sync_keeps_them(debug_mode, kept):
    def run(port):
        replies, _ = raw_session(port, debug_mode, "redis.call('set', KEYS[1], 'v')\nreturn 1\n",
                                 ["ldb:w"], [], ["c"])
        return replies, redis.Redis(port=port).get("ldb:w")

    expected, got = both(run)
    assert expected[1] == kept
    assert got == expected


def test_other_clients_served_during_forked_session():
    for target in targets().values():
        port = target.port
        flushed(port)
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        resp = Resp(sock)
        try:
            sock.sendall(encode("SCRIPT", "DEBUG", "yes"))
            assert resp.read() == b"+OK"
            sock.sendall(encode("EVAL", "redis.call('set', 'ldb:f', 1)\nreturn 7\n", 0))
            assert resp.read()[0].startswith(b"+* Stopped at 1")
            # The script is stopped in the child; the server answers everyone else.
            other = redis.Redis(port=port, socket_timeout=5)
            assert other.ping()
            assert other.set("ldb:other", "1")
            sock.sendall(encode("c"))
            assert resp.read() == [b"+<endsession>"]
            assert resp.read() == b":7"
            assert other.get("ldb:f") is None
            assert other.get("ldb:other") == b"1"
        finally:
            sock.close()


def test_sync_session_blocks_others_until_it_ends():
    for target in targets().values():
        port = target.port
        flushed(port)
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        resp = Resp(sock)
        other = socket.create_connection(("127.0.0.1", port), timeout=10)
        try:
            sock.sendall(encode("SCRIPT", "DEBUG", "sync"))
            assert resp.read() == b"+OK"
            sock.sendall(encode("EVAL", "redis.call('set', 'ldb:s', 1)\nreturn 7\n", 0))
            assert resp.read()[0].startswith(b"+* Stopped at 1")
            other.sendall(encode("GET", "ldb:s"))
            sock.sendall(encode("c"))
            assert resp.read() == [b"+<endsession>"]
            assert resp.read() == b":7"
            # Served only after the session: it sees the script's write.
            assert Resp(other).read() == b"1"
        finally:
            sock.close()
            other.close()


def test_evalsha_refused_while_debugging():
    def run(port):
        flushed(port)
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        resp = Resp(sock)
        try:
            sock.sendall(encode("SCRIPT", "DEBUG", "yes") + encode("SCRIPT", "DEBUG", "no"))
            out = [resp.read(), resp.read()]
            sock.sendall(encode("SCRIPT", "DEBUG", "sync"))
            out.append(resp.read())
            sock.sendall(encode("EVALSHA", "a" * 40, 0) + encode("EVALSHA", "a", 0))
            out += [resp.read(), resp.read()]
            sock.sendall(encode("EVAL", "return redis.breakpoint()", 0))
            out.append(resp.read())
            sock.sendall(encode("c"))
            out += [resp.read(), resp.read()]
            return out
        finally:
            sock.close()

    expected, got = both(run)
    assert expected[3] == b"-ERR Please use EVAL instead of EVALSHA for debugging"
    assert got == expected


def test_debug_api_outside_a_session():
    expected, got = both(lambda port: redis.Redis(port=port).eval(
        "redis.debug('x', 1); return {redis.breakpoint() == false and 1 or 0}", 0))
    assert expected == [1]
    assert got == expected


def test_script_debug_errors():
    def run(port):
        client = redis.Redis(port=port)
        out = []
        for args in (("SCRIPT", "DEBUG"), ("SCRIPT", "DEBUG", "maybe"),
                     ("SCRIPT", "DEBUG", "yes", "no"), ("SCRIPT", "DEBUG", "no")):
            try:
                out.append(client.execute_command(*args))
            except redis.ResponseError as e:
                out.append(str(e))
        pipe = client.pipeline(transaction=True)
        pipe.execute_command("SCRIPT", "DEBUG", "yes")
        out.append(repr(pipe.execute(raise_on_error=False)))
        return out

    expected, got = both(run)
    assert got == expected


# ---------------------------------------------------------------------------------------------
# redis-cli --ldb on a pseudo-terminal

PROMPT = b"lua debugger> "


def cli_session(port, sync, script, keys_and_args, lines):
    """Runs `redis-cli --eval file keys , args --ldb[-sync-mode]` on a terminal, types each of
    `lines` after a prompt, then quit; returns everything the terminal showed (port masked)."""
    flushed(port)
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(script)
        path = f.name
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 400, 0, 0))
    env = dict(os.environ, TERM="dumb", HOME="/nonexistent")
    option = "--ldb-sync-mode" if sync else "--ldb"
    proc = subprocess.Popen(["redis-cli", "-p", str(port), option, "--eval", path,
                             *keys_and_args], stdin=slave, stdout=slave, stderr=slave, env=env,
                            start_new_session=True)
    os.close(slave)
    normal_prompt = b"127.0.0.1:%d> " % port
    shown = []

    def read_until(done, timeout_s=10):
        data = b""
        deadline = time.monotonic() + timeout_s
        while not done(data) and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                data += chunk
        shown.append(data)
        return data

    def prompted(d):
        return d.endswith(PROMPT) or d.endswith(normal_prompt)

    try:
        read_until(prompted)
        for line in lines:
            os.write(master, line.encode() + b"\r")
            read_until(lambda d: b"\r\n" in d and prompted(d))
        os.write(master, b"quit\r")
        read_until(lambda d: False, timeout_s=5)
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
        os.unlink(path)
    screen = b"".join(shown).replace(normal_prompt, b"127.0.0.1:PORT> ")
    return POINTER.sub(b"@PTR", screen)


@pytest.mark.parametrize("sync", [False, True], ids=["ldb", "ldb-sync-mode"])
def test_redis_cli_transcript_matches_redis(sync):
    servers = targets()
    run = lambda port: cli_session(port, sync, SCRIPT, ["ldb:k", "ldb:list", ",", "val"],
                                   REQUESTS)
    expected = run(servers["redis-server"].port)
    got = run(servers["warden"].port)
    assert b"* Stopped at 7, stop reason = redis.breakpoint() called" not in expected
    assert b"* Stopped at 8, stop reason = redis.breakpoint() called" in expected
    assert b"<debug> line 4: \"hello\", 1, {1; 2; \"x\"; {[\"nested\"]=true}}" in expected
    assert b"Lua debugging session ended" in expected
    assert got == expected


@pytest.mark.parametrize("sync", [False, True], ids=["ldb", "ldb-sync-mode"])
def test_redis_cli_writes_kept_only_in_sync_mode(sync):
    servers = targets()
    script = "redis.call('set', KEYS[1], 'v')\nreturn redis.call('get', KEYS[1])\n"
    results = []
    for name in ("redis-server", "warden"):
        port = servers[name].port
        screen = cli_session(port, sync, script, ["ldb:cli"], ["s", "s", "s"])
        results.append((screen, redis.Redis(port=port).get("ldb:cli")))
    assert results[0][1] == (b"v" if sync else None)
    assert b"rolled back" in results[0][0] if not sync else b"rolled back" not in results[0][0]
    assert results[1] == results[0]


def test_runaway_script_stops_at_busy_threshold(mode):
    def run(port):
        client = redis.Redis(port=port)
        old = client.config_get("busy-reply-threshold")["busy-reply-threshold"]
        client.config_set("busy-reply-threshold", 50)
        try:
            return raw_session(port, mode, "local i = 0\nwhile true do\n  i = i + 1\nend\n",
                               [], [], ["c", "p i", "a"])
        finally:
            client.config_set("busy-reply-threshold", old)

    expected, got = both(run)
    replies, _ = expected
    assert replies[2][0] == b"+* Stopped at 3, stop reason = timeout reached, infinite loop?"
    # How far the loop got differs from run to run.
    for result in (expected, got):
        result[0][3] = [re.sub(rb"\d+", b"N", line) for line in result[0][3]]
    assert got == expected


def test_client_gone_lets_the_script_finish(mode):
    for target in targets().values():
        port = target.port
        flushed(port)
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        resp = Resp(sock)
        sock.sendall(encode("SCRIPT", "DEBUG", mode))
        assert resp.read() == b"+OK"
        sock.sendall(encode("EVAL", "redis.call('set', 'ldb:g', 1)\nreturn 1\n", 0))
        assert resp.read()[0].startswith(b"+* Stopped at 1")
        sock.close()
        other = redis.Redis(port=port, socket_timeout=10)
        assert other.ping()
        if mode == "sync":
            # The session ran the script to its end: its write stays.
            assert other.get("ldb:g") == b"1"


@pytest.mark.parametrize("sync", [False, True], ids=["ldb", "ldb-sync-mode"])
def test_redis_cli_abort_and_restart(sync):
    servers = targets()
    script = "local n = redis.call('incr', KEYS[1])\nreturn n\n"
    lines = ["s", "r incr ldb:abort", "abort", "restart", "p", "c"]
    results = []
    for name in ("redis-server", "warden"):
        port = servers[name].port
        screen = cli_session(port, sync, script, ["ldb:abort"], lines)
        results.append((screen, redis.Redis(port=port).get("ldb:abort")))
    screen, value = results[0]
    assert b"script aborted for user request" in screen
    assert screen.count(b"Lua debugging session started") == 2
    # The aborted run's two increments and the restarted run's one stay in sync mode only.
    assert value == (b"3" if sync else None)
    assert results[1] == results[0]


def test_eval_ro_is_debugged_and_fcall_is_not():
    def run(port):
        client = flushed(port)
        client.function_flush()
        client.function_load("#!lua name=ldblib\n"
                             "redis.register_function('ldbf', function() return 3 end)")
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        resp = Resp(sock)
        try:
            sock.sendall(encode("SCRIPT", "DEBUG", "sync"))
            out = [resp.read()]
            sock.sendall(encode("FCALL", "ldbf", 0))
            out.append(resp.read())
            sock.sendall(encode("EVAL_RO", "return redis.call('get', 'x')", 0))
            out.append(resp.read())
            sock.sendall(encode("s"))
            out += [resp.read(), resp.read()]
            return out
        finally:
            sock.close()
            client.function_flush()

    expected, got = both(run)
    assert expected[1] == b":3"
    assert expected[2][0] == b"+* Stopped at 1, stop reason = step over"
    assert got == expected
