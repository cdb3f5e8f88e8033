"""The real redis-cli (Debian's redis-tools 7.0.15) against redis-server and warden.

Each scenario runs on the test's server and asserts what redis-cli printed. On warden it also
runs the same scenario on redis-server and requires the same bytes (port numbers masked), so a
warden test fails on any drift from Redis; the redis-server run proves the scenario itself.
Where two Redis servers print different bytes (SCAN order), the comparison is stated instead.
"""

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import termios
import time

import pytest
import redis

LOCK = "lock:order:1001"
RELEASE_LUA = ("if redis.call('get', KEYS[1]) == ARGV[1] then\n"
               "  return redis.call('del', KEYS[1])\n"
               "else\n"
               "  return 0\n"
               "end\n")


def flushed(port):
    client = redis.Redis(port=port)
    client.flushall()
    client.script_flush()
    return client


def cli(port, *args, stdin=b"", timeout=120):
    """Runs redis-cli once; returns (exit code, stdout, stderr)."""
    done = subprocess.run(["redis-cli", "-p", str(port), *args], input=stdin,
                          capture_output=True, timeout=timeout)
    return done.returncode, done.stdout, done.stderr


def same_as_redis(target, reference, scenario):
    """Runs scenario(port) on the target; on warden, also on redis-server, and requires equal
    results. Returns the target's result for the test's own assertions."""
    got = scenario(target.port)
    if target.name == "warden":
        expected = scenario(reference.port)
        assert got == expected, "warden's output differs from redis-server's at " + \
            first_difference(expected, got)
    return got


def first_difference(expected, got, path="result"):
    """Where two results first differ, with a few bytes of context from each."""
    if isinstance(expected, (list, tuple, dict)) and type(expected) is type(got):
        if isinstance(expected, dict):
            expected, got = sorted(expected.items()), sorted(got.items())
        for i, (e, g) in enumerate(zip(expected, got)):
            if e != g:
                return first_difference(e, g, "%s[%d]" % (path, i))
        return "%s: lengths %d and %d" % (path, len(expected), len(got))
    if isinstance(expected, bytes) and isinstance(got, bytes):
        i = next((i for i, (e, g) in enumerate(zip(expected, got)) if e != g),
                 min(len(expected), len(got)))
        start = max(0, i - 60)
        return "%s, byte %d:\n  redis-server: %r\n  warden:       %r" % (
            path, i, expected[start:i + 100], got[start:i + 100])
    return "%s:\n  redis-server: %r\n  warden:       %r" % (path, expected, got)


# --- one-shot commands -----------------------------------------------------------------------

def one_shot_transcript(port):
    flushed(port)
    runs = [
        ("SET", LOCK, "token-abc123", "NX", "PX", "30000"),
        ("SET", LOCK, "token-other", "NX", "PX", "30000"),
        ("GET", LOCK),
        ("TTL", LOCK),
        ("EXISTS", LOCK, LOCK, "lock:none"),
        ("EVAL", RELEASE_LUA, "1", LOCK, "token-other"),
        ("GET", LOCK),
        ("EVAL", RELEASE_LUA, "1", LOCK, "token-abc123"),
        ("TTL", LOCK),
        ("SET", LOCK, "x", "EX", "0"),
        ("SET", LOCK, "x", "PX", "abc"),
        ("SET", LOCK, "x", "NX", "XX"),
        ("GET",),
        ("NOSUCHCOMMAND", "a", "b"),
        ("INCR", "fence"),
        ("INCRBY", "fence", "41"),
        ("SET", "lock:bin", "a\x01b"),
        ("GET", "lock:bin"),
        ("PING",),
    ]
    return [cli(port, *args) for args in runs] + [cli(port, "--no-raw", *args) for args in runs]


def test_one_shot_commands(target, reference):
    out = same_as_redis(target, reference, one_shot_transcript)
    raw = [o for _, o, _ in out[:19]]
    pretty = [o for _, o, _ in out[19:]]
    assert all(rc == 0 for rc, _, _ in out)
    assert raw[0] == b"OK\n"
    assert raw[1] == b"\n"  # nil prints as an empty line when stdout is not a terminal
    assert raw[2] == b"token-abc123\n"
    assert raw[3] == b"30\n"
    assert raw[4] == b"2\n"
    assert raw[5] == b"0\n" and raw[6] == b"token-abc123\n"
    assert raw[7] == b"1\n" and raw[8] == b"-2\n"
    assert raw[9] == b"ERR invalid expire time in 'set' command\n\n"
    assert raw[10] == b"ERR value is not an integer or out of range\n\n"
    assert raw[11] == b"ERR syntax error\n\n"
    assert raw[12] == b"ERR wrong number of arguments for 'get' command\n\n"
    assert raw[13] == (b"ERR unknown command 'NOSUCHCOMMAND', with args beginning with: "
                       b"'a' 'b' \n\n")
    assert raw[14] == b"1\n" and raw[15] == b"42\n"
    assert raw[17] == b"a\x01b\n"
    assert pretty[0] == b"OK\n"  # the key was deleted above, so the transcript runs again
    assert pretty[1] == b"(nil)\n"
    assert pretty[2] == b'"token-abc123"\n'
    assert pretty[3] == b"(integer) 30\n"
    assert pretty[9] == b"(error) ERR invalid expire time in 'set' command\n"
    assert pretty[17] == b'"a\\x01b"\n'


def pttl_after_acquire(port):
    flushed(port)
    cli(port, "SET", LOCK, "t", "NX", "PX", "30000")
    return cli(port, "PTTL", LOCK)


def test_one_shot_pttl_is_within_the_lock_ttl(target):
    rc, out, _ = pttl_after_acquire(target.port)
    assert rc == 0
    assert 29000 < int(out) <= 30000


def nested_replies(port):
    flushed(port)
    return [cli(port, "--no-raw", *args) for args in [
        ("EVAL", "return {1, 'two', {3, 'four'}, redis.call('get', KEYS[1]), 5}", "1", "nokey"),
        ("EVAL", "return {}", "0"),
        ("EVAL", "return redis.status_reply('FINE')", "0"),
        ("EVAL", "return redis.error_reply('MYERR failed')", "0"),
        ("EVAL", "return redis.call('nosuch')", "0"),
        ("KEYS", "lock:*"),
        ("SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0" * 40),
    ]]


def test_one_shot_nested_and_empty_replies(target, reference):
    out = same_as_redis(target, reference, nested_replies)
    # redis.call turns a nil reply into false, which goes back to the client as a nil element.
    assert out[0][1] == (b'1) (integer) 1\n2) "two"\n3) 1) (integer) 3\n   2) "four"\n'
                         b'4) (nil)\n5) (integer) 5\n')
    assert out[1][1] == b"(empty array)\n"
    assert out[2][1] == b"FINE\n"
    assert out[3][1] == b"(error) MYERR failed\n"
    assert out[4][1].startswith(b"(error) ERR Unknown Redis command called from script")
    assert out[5][1] == b"(empty array)\n"
    assert out[6][1] == b"1) (integer) 0\n2) (integer) 0\n"


# --- interactive mode, through a terminal ----------------------------------------------------

INTERACTIVE_LINES = [
    "SET lock:i tok-1 NX PX 60000",
    "SET lock:i tok-2 NX PX 60000",
    "GET lock:i",
    "TTL lock:i",
    "EVAL \"return redis.call('get', KEYS[1]) == ARGV[1]\" 1 lock:i tok-1",
    "EVAL \"if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) "
    "else return 0 end\" 1 lock:i tok-1",
    "EXISTS lock:i",
    "SET lock:i x EX 0",
    "SELECT 16",
    "KEYS *",
]


def interactive(port, term, lines=INTERACTIVE_LINES):
    """Types `lines` into redis-cli on a pseudo-terminal, each after the previous reply's
    prompt, then quit; returns everything the terminal showed (port masked)."""
    flushed(port)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    # HOME elsewhere: no ~/.redisclirc and no history file from earlier runs.
    env = dict(os.environ, TERM=term, HOME="/nonexistent")
    proc = subprocess.Popen(["redis-cli", "-p", str(port)], stdin=slave, stdout=slave,
                            stderr=slave, env=env, start_new_session=True)
    os.close(slave)
    prompt = b"127.0.0.1:%d> " % port
    shown = []

    def read_until(done, timeout_s=10):
        data = b""
        deadline = time.monotonic() + timeout_s
        while not done(data) and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: redis-cli exited and the terminal closed
                    break
                if not chunk:
                    break
                data += chunk
        shown.append(data)

    try:
        read_until(lambda d: d.endswith(prompt))
        for line in lines:
            os.write(master, line.encode() + b"\r")
            # The reply is complete when, after the line break, a fresh prompt is all that
            # follows (redis-cli redraws the prompt while a line is typed, never after a
            # newline without a reply in between).
            read_until(lambda d: b"\r\n" in d and d.endswith(prompt))
        os.write(master, b"quit\r")
        read_until(lambda d: False, timeout_s=5)  # until the terminal closes
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return b"".join(shown).replace(prompt, b"127.0.0.1:PORT> ")


def check_interactive_transcript(screen):
    assert b"\r\nOK\r\n" in screen
    assert b"\r\n(nil)\r\n" in screen
    assert b'\r\n"tok-1"\r\n' in screen
    assert b"\r\n(integer) 60\r\n" in screen
    assert b"\r\n(integer) 1\r\n" in screen
    assert b"\r\n(integer) 0\r\n" in screen
    assert b"(error) ERR invalid expire time in 'set' command" in screen
    assert b"(error) ERR DB index is out of range" in screen
    assert b"(empty array)" in screen


def database_option_output(port):
    return [cli(port, "-n", "3", "SET", "dbkey", "three"),
            cli(port, "-n", "3", "HSET", "dbhash", "f", "v"),
            cli(port, "-n", "3", "GET", "dbkey"),
            cli(port, "GET", "dbkey"),
            cli(port, "-n", "3", "DEL", "dbkey", "dbhash")]


def test_database_option_selects_a_database(target, reference):
    # redis-cli -n 3 sends SELECT 3 first; the key lives in database 3 only.
    results = same_as_redis(target, reference, database_option_output)
    assert [code for code, _, _ in results] == [0] * 5
    assert results[2][1] == b"three\n"
    assert results[3][1] == b"\n"
    assert results[4][1] == b"2\n"


def test_interactive_mode_in_a_plain_terminal(target, reference):
    # TERM=dumb: linenoise reads plain lines, without redrawing or hints.
    screen = same_as_redis(target, reference, lambda port: interactive(port, "dumb"))
    assert screen.startswith(b"127.0.0.1:PORT> ")
    check_interactive_transcript(screen)


def test_interactive_mode_in_xterm_with_hints(target, reference):
    # TERM=xterm: every keystroke redraws the line with the argument hint that redis-cli built
    # from the COMMAND DOCS reply it asked for when it started.
    screen = same_as_redis(target, reference, lambda port: interactive(port, "xterm"))
    check_interactive_transcript(screen)
    assert b"\x1b[0;90;49m key value [NX|XX] [GET] [EX seconds|PX milliseconds|" in screen


def help_output(port):
    return (cli(port, "--no-raw", "COMMAND", "DOCS", "GET"),
            interactive(port, "dumb", ["help SET", "help GET"]))


def test_interactive_help_shows_each_commands_arguments(target, reference):
    (_, docs, _), screen = same_as_redis(target, reference, help_output)
    assert b"arguments" in docs
    assert b"SET\x1b[0m \x1b[90mkey value [NX|XX] [GET] [EX seconds|PX milliseconds" in screen
    assert b"GET\x1b[0m \x1b[90mkey\x1b[0m" in screen


# --- commands piped on stdin -----------------------------------------------------------------

PIPED = (b"SET lock:p tok NX PX 60000\n"
         b"SET lock:p other NX PX 60000\n"
         b"GET lock:p\n"
         b"TTL lock:p\n"
         b"PEXPIRE lock:p 120000\n"
         b"TTL lock:p\n"
         b"EVAL \"return redis.call('del', KEYS[1])\" 1 lock:p\n"
         b"GET lock:p\n"
         b"SET lock:p x EX 0\n"
         b"ECHO \"two words\"\n"
         b"PING\n")


def piped(port):
    flushed(port)
    return cli(port, stdin=PIPED), cli(port, "--no-raw", stdin=PIPED)


def test_commands_piped_on_stdin(target, reference):
    (rc, out, err), (rc2, pretty, _) = same_as_redis(target, reference, piped)
    assert rc == 0 and rc2 == 0
    assert out == (b"OK\n\ntok\n60\n1\n120\n1\n\n"
                   b"ERR invalid expire time in 'set' command\n\ntwo words\nPONG\n")
    assert pretty.startswith(b"OK\n(nil)\n\"tok\"\n(integer) 60\n(integer) 1\n(integer) 120\n")


# --- --scan over tens of thousands of keys ---------------------------------------------------

SCAN_LOCKS = 30000
SCAN_OTHERS = 5000


def resp(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


def test_scan_pattern_returns_each_matching_key_exactly_once(target):
    client = flushed(target.port)
    load = b"".join(resp("SET", "lock:%d" % i, "t", "PX", "600000") for i in range(SCAN_LOCKS))
    load += b"".join(resp("SET", "job:%d" % i, "x") for i in range(SCAN_OTHERS))
    rc, out, _ = cli(target.port, "--pipe", stdin=load)
    assert rc == 0, out
    assert b"errors: 0, replies: %d" % (SCAN_LOCKS + SCAN_OTHERS) in out
    assert client.dbsize() == SCAN_LOCKS + SCAN_OTHERS

    for pattern, expected in [("lock:*", range(SCAN_LOCKS)), ("lock:1??", range(100, 200))]:
        rc, out, err = cli(target.port, "--scan", "--pattern", pattern)
        assert rc == 0, err
        keys = out.split(b"\n")[:-1]
        # The order is the hash table's, which differs between any two servers: compare sets,
        # and the count, which catches a key returned twice.
        assert len(keys) == len(expected)
        assert sorted(keys) == sorted(b"lock:%d" % i for i in expected)


# --- --eval with a script file ---------------------------------------------------------------

def eval_files(port, tmp_path):
    flushed(port)
    release = tmp_path / "release.lua"
    release.write_text(RELEASE_LUA)
    acquire = tmp_path / "acquire.lua"
    acquire.write_text("return redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])\n")
    both = tmp_path / "both.lua"
    both.write_text("return {KEYS[1], KEYS[2], ARGV[1], ARGV[2], #KEYS, #ARGV}\n")
    broken = tmp_path / "broken.lua"
    broken.write_text("return redis.call('set', KEYS[1])\n")
    runs = [
        ("--eval", str(acquire), LOCK, ",", "tok-1", "60000"),
        ("--eval", str(acquire), LOCK, ",", "tok-2", "60000"),
        ("--eval", str(release), LOCK, ",", "tok-2"),
        ("--eval", str(release), LOCK, ",", "tok-1"),
        ("--eval", str(release), LOCK, ",", "tok-1"),
        ("--eval", str(both), "k1", "k2", ",", "a", "b"),
        ("--no-raw", "--eval", str(both), "k1", "k2", ",", "a", "b"),
        ("--eval", str(broken), LOCK),
        ("--eval", str(tmp_path / "missing.lua"), LOCK),
    ]
    return [cli(port, *args) for args in runs]


def test_eval_script_file_with_keys_and_args(target, reference, tmp_path):
    out = same_as_redis(target, reference, lambda port: eval_files(port, tmp_path))
    stdout = [o for _, o, _ in out]
    assert stdout[0] == b"OK\n"
    assert stdout[1] == b"\n"
    assert stdout[2] == b"0\n"
    assert stdout[3] == b"1\n"
    assert stdout[4] == b"0\n"
    assert stdout[5] == b"k1\nk2\na\nb\n2\n2\n"
    assert stdout[6] == (b'1) "k1"\n2) "k2"\n3) "a"\n4) "b"\n5) (integer) 2\n6) (integer) 2\n')
    assert stdout[7].startswith(b"ERR Wrong number of args calling Redis command from script "
                                b"script: ")
    assert out[8][0] != 0 and b"Can't open file" in out[8][2]


# --- --pipe with a million commands ----------------------------------------------------------

PIPE_COMMANDS = 1_000_000
PIPE_KEYS = 100_000
PIPE_BAD_EVERY = 100_000


@pytest.fixture(scope="module")
def million_commands():
    """1,000,000 commands: lock acquires over 100,000 keys, a fencing counter on every tenth,
    and an invalid SET every 100,000th (10 errors). Returns the stream and what the keyspace
    must hold afterwards: the number of keys and a few final values."""
    parts, values = [], {}
    for i in range(PIPE_COMMANDS):
        if i % PIPE_BAD_EVERY == PIPE_BAD_EVERY - 1:
            parts.append(resp("SET", "lock:bad", "x", "EX", "0"))
        elif i % 10 == 0:
            parts.append(resp("INCR", "lock:fence"))
            values[b"lock:fence"] = b"%d" % (i // 10 + 1)
        else:
            key = b"lock:%d" % (i % PIPE_KEYS)
            parts.append(resp("SET", key, b"tok-%d" % i, "PX", "600000"))
            values[key] = b"tok-%d" % i
    sample = {k: values[k] for k in (b"lock:fence", b"lock:1", b"lock:99998", b"lock:54321")}
    return b"".join(parts), len(values), sample


def pipe_million(port, data, sample_keys):
    client = flushed(port)
    rc, out, err = cli(port, "--pipe", stdin=data, timeout=150)
    return (rc, out, err), client.dbsize(), {k: client.get(k) for k in sample_keys}


def test_pipe_a_million_commands(target, reference, million_commands):
    data, key_count, sample = million_commands
    (rc, out, err), dbsize, values = same_as_redis(
        target, reference, lambda port: pipe_million(port, data, sample))
    # redis-cli ends the stream with ECHO of random bytes and waits for that echo.
    assert out == (b"All data transferred. Waiting for the last reply...\n"
                   b"Last reply received from server.\n"
                   b"errors: 10, replies: 1000000\n")
    assert err == b"ERR invalid expire time in 'set' command\n" * 10
    assert rc == 1  # redis-cli --pipe exits 1 when any reply was an error
    assert dbsize == key_count
    assert values == sample


# --- -3: RESP3 -------------------------------------------------------------------------------

def resp3(port):
    flushed(port)
    runs = [
        ("SET", LOCK, "tok", "NX", "PX", "60000"),
        ("SET", LOCK, "tok", "NX", "PX", "60000"),
        ("GET", "lock:none"),
        ("GET", LOCK),
        ("TTL", LOCK),
        ("CONFIG", "GET", "maxmemory"),
        ("EVAL", "redis.setresp(3); return {double=3.5}", "0"),
        ("EVAL", "redis.setresp(3); return redis.call('get', KEYS[1])", "1", "lock:none"),
        ("EVAL", "return true", "0"),
        ("EVAL", "return {1, false, 'x'}", "0"),
        ("FLUSHALL",),
        ("INFO", "keyspace"),
        ("SET", LOCK, "x", "EX", "0"),
    ]
    return ([cli(port, "-3", *args) for args in runs] +
            [cli(port, "-3", "--no-raw", *args) for args in runs])


def test_resp3_flag(target, reference):
    out = same_as_redis(target, reference, resp3)
    raw = [o for _, o, _ in out[:13]]
    pretty = [o for _, o, _ in out[13:]]
    assert raw[0] == b"OK\n" and raw[1] == b"\n" and raw[2] == b"\n" and raw[3] == b"tok\n"
    assert raw[4] == b"60\n"
    assert pretty[0] == b"OK\n"  # FLUSHALL ran in between
    assert pretty[2] == b"(nil)\n"
    assert pretty[5] == b'1# "maxmemory" => "0"\n'
    assert pretty[6] == b"(double) 3.5\n"
    assert pretty[7] == b"(nil)\n"
    assert pretty[9] == b'1) (integer) 1\n2) (nil)\n3) "x"\n'
    assert re.match(rb"^# Keyspace\r?\n", raw[11])
    assert pretty[12] == b"(error) ERR invalid expire time in 'set' command\n"
