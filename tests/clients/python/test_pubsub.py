"""Pub/sub and MONITOR across two and three raw connections, on redis-server and warden.

Each scenario is a function of a port that drives its connections (resp_conn.Conn) and returns a
Transcript of the exact bytes every step received; on warden the same scenario also runs on
redis-server and the transcripts must be equal step for step (see test_blocking.py). Messages
reach a subscriber after the publisher's reply at the latest, so reading the publisher's reply
and then the subscriber's socket needs no sleep.

Where Redis's own order is unspecified (UNSUBSCRIBE without arguments walks a dict; several
patterns matching one channel; PUBSUB CHANNELS), the scenario uses one name or sorts.
MONITOR lines carry a timestamp and the client's port: both are masked after checking their form.
"""

import re
import time

import pytest

from resp_conn import Conn, ConnectionClosed, parse
from blocking_transcripts import Transcript, array, bulk, bulks, integer, same_as_redis

WAIT_S = 5
OK = b"+OK\r\n"
NULL = b"_\r\n"


def frame(proto, *items):
    """A pub/sub frame: an array in RESP2, a push in RESP3."""
    return (b"*" if proto == 2 else b">") + array(*items)[1:]


def hello(conn, proto):
    if proto == 3:
        reply = conn.value("HELLO", "3")
        assert isinstance(reply, dict) and reply[b"proto"] == 3, reply


def open_conns(port, count):
    conns = [Conn(port) for _ in range(count)]
    for c in conns:
        c.id()
    return conns


def close_all(conns):
    for c in conns:
        c.close()


def wait_numsub(conn, channel, count):
    """Polls PUBSUB NUMSUB until `channel` has `count` subscribers (a closed client is noticed
    when the server next reads its socket)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        got = parse(conn.call("PUBSUB", "NUMSUB", channel))[1]
        if got == count:
            return
        if time.monotonic() > deadline:
            raise AssertionError("NUMSUB %s stayed %d, expected %d" % (channel, got, count))


def reply_n(conn, n):
    return b"".join(conn.reply() for _ in range(n))


# --- 1. SUBSCRIBE, PSUBSCRIBE, PUBLISH counts -------------------------------------------------

def subscribe_publish(proto):
    def scenario(port):
        t = Transcript()
        a, b, c = conns = open_conns(port, 3)
        try:
            hello(a, proto)
            hello(b, proto)
            a.send("SUBSCRIBE", "ps1:news", "ps1:sport", "ps1:news")
            t["A SUBSCRIBE news sport news"] = reply_n(a, 3)
            b.send("PSUBSCRIBE", "ps1:n*", "ps1:x?")
            t["B PSUBSCRIBE n* x?"] = reply_n(b, 2)
            t["C PUBLISH news hello"] = c.call("PUBLISH", "ps1:news", "hello")
            t["A message"] = a.reply()
            t["B pmessage"] = b.reply()
            t["C PUBLISH sport"] = c.call("PUBLISH", "ps1:sport", b"bin\x00\r\n")
            t["A message sport"] = a.reply()
            t["C PUBLISH nobody"] = c.call("PUBLISH", "ps1:nobody-here", "x")
            t["C PUBSUB NUMSUB"] = c.call("PUBSUB", "NUMSUB", "ps1:news", "ps1:sport", "ps1:zz")
            t["C PUBSUB NUMSUB none"] = c.call("PUBSUB", "NUMSUB")
            t["C PUBSUB NUMPAT"] = c.call("PUBSUB", "NUMPAT")
            t["C PUBSUB CHANNELS ps1:*"] = sorted(parse(c.call("PUBSUB", "CHANNELS", "ps1:*")))
            t["C PUBSUB CHANNELS ps1:s*"] = c.call("PUBSUB", "CHANNELS", "ps1:s*")
            t["B PUNSUBSCRIBE x? nope"] = b.call("PUNSUBSCRIBE", "ps1:x?", "nope") + b.reply()
        finally:
            close_all(conns)
        return t
    return scenario


@pytest.mark.parametrize("proto", [2, 3])
def test_subscribe_and_publish(target, reference, proto):
    t = same_as_redis(target, reference, subscribe_publish(proto))
    assert t["A SUBSCRIBE news sport news"] == (
        frame(proto, bulk("subscribe"), bulk("ps1:news"), integer(1)) +
        frame(proto, bulk("subscribe"), bulk("ps1:sport"), integer(2)) +
        frame(proto, bulk("subscribe"), bulk("ps1:news"), integer(2)))
    assert t["C PUBLISH news hello"] == integer(2)
    assert t["A message"] == frame(proto, bulk("message"), bulk("ps1:news"), bulk("hello"))
    assert t["B pmessage"] == frame(proto, bulk("pmessage"), bulk("ps1:n*"), bulk("ps1:news"),
                                    bulk("hello"))
    assert t["C PUBLISH nobody"] == integer(1)  # ps1:n* matches
    assert t["C PUBSUB NUMSUB"] == array(bulk("ps1:news"), integer(1), bulk("ps1:sport"),
                                         integer(1), bulk("ps1:zz"), integer(0))
    assert t["C PUBSUB NUMPAT"] == integer(2)


# --- 2. One client, a channel and two patterns: three deliveries ------------------------------

def three_ways(port):
    t = Transcript()
    a, c = conns = open_conns(port, 2)
    try:
        a.send("SUBSCRIBE", "ps2:news")
        a.reply()
        a.send("PSUBSCRIBE", "ps2:n*", "*s2:news")
        t["A PSUBSCRIBE"] = reply_n(a, 2)
        t["C PUBLISH"] = c.call("PUBLISH", "ps2:news", "m")
        t["A first"] = a.reply()  # channel subscribers come first
        t["A patterns"] = sorted([a.reply(), a.reply()])
    finally:
        close_all(conns)
    return t


def test_a_channel_and_two_patterns_count_three(target, reference):
    t = same_as_redis(target, reference, three_ways)
    assert t["C PUBLISH"] == integer(3)
    assert t["A first"] == bulks("message", "ps2:news", "m")


# --- 3. UNSUBSCRIBE and PUNSUBSCRIBE without arguments ----------------------------------------

def unsubscribe_all(proto):
    def scenario(port):
        t = Transcript()
        a, c = conns = open_conns(port, 2)
        try:
            hello(a, proto)
            t["A UNSUBSCRIBE never subscribed"] = a.call("UNSUBSCRIBE")
            t["A PUNSUBSCRIBE never subscribed"] = a.call("PUNSUBSCRIBE")
            t["A SUNSUBSCRIBE never subscribed"] = a.call("SUNSUBSCRIBE")
            a.send("SUBSCRIBE", "ps3:a")
            a.send("PSUBSCRIBE", "ps3:*")
            t["A subscribed"] = reply_n(a, 2)
            t["A UNSUBSCRIBE"] = a.call("UNSUBSCRIBE")
            t["A UNSUBSCRIBE again"] = a.call("UNSUBSCRIBE")
            t["C PUBLISH"] = c.call("PUBLISH", "ps3:a", "x")
            t["A pmessage"] = a.reply()
            t["A PUNSUBSCRIBE"] = a.call("PUNSUBSCRIBE")
            t["A GET after"] = a.call("GET", "ps3:nokey")
            t["C PUBSUB NUMPAT"] = c.call("PUBSUB", "NUMPAT")
        finally:
            close_all(conns)
        return t
    return scenario


@pytest.mark.parametrize("proto", [2, 3])
def test_unsubscribe_without_arguments(target, reference, proto):
    t = same_as_redis(target, reference, unsubscribe_all(proto))
    null = b"$-1\r\n" if proto == 2 else NULL
    assert t["A UNSUBSCRIBE never subscribed"] == frame(proto, bulk("unsubscribe"), null,
                                                        integer(0))
    assert t["A UNSUBSCRIBE"] == frame(proto, bulk("unsubscribe"), bulk("ps3:a"), integer(1))
    assert t["A PUNSUBSCRIBE"] == frame(proto, bulk("punsubscribe"), bulk("ps3:*"), integer(0))


# --- 4. RESP2 subscribed mode -----------------------------------------------------------------

def subscribed_mode_resp2(port):
    t = Transcript()
    a, c = conns = open_conns(port, 2)
    try:
        a.send("SUBSCRIBE", "ps4:c")
        a.reply()
        for args in (("GET", "k"), ("CLIENT", "ID"), ("HELLO", "2"), ("PUBLISH", "ps4:c", "x"),
                     ("EVAL", "return 1", "0"), ("NOSUCH",), ("SUBSCRIBE",), ("CLIENT", "NOPE"),
                     ("PING",), ("PING", "hi"), ("PING", "a", "b")):
            t["A " + " ".join(args)] = a.call(*args)
        t["C CLIENT LIST fields"] = fields_of(c, a, "flags", "sub", "psub", "ssub", "cmd")
        t["C CLIENT LIST TYPE pubsub"] = [
            line.split(" ")[0].startswith("id=")
            for line in parse(c.call("CLIENT", "LIST", "TYPE", "pubsub")).decode().splitlines()]
        t["A QUIT"] = a.call("QUIT")
        try:
            a.reply(timeout=WAIT_S)
            t["A closed"] = False
        except ConnectionClosed:
            t["A closed"] = True
    finally:
        close_all(conns)
    return t


def fields_of(observer, conn, *names):
    line = parse(observer.call("CLIENT", "LIST", "ID", str(conn.id()))).decode().strip()
    fields = dict(f.split("=", 1) for f in line.split(" "))
    return {n: fields[n] for n in names}


def test_resp2_subscribed_mode_allows_only_a_few_commands(target, reference):
    t = same_as_redis(target, reference, subscribed_mode_resp2)
    assert t["A GET k"] == (b"-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE "
                            b"/ PING / QUIT / RESET are allowed in this context\r\n")
    assert t["A CLIENT ID"].startswith(b"-ERR Can't execute 'client|id'")
    assert t["A PING"] == b"*2\r\n$4\r\npong\r\n$0\r\n\r\n"
    assert t["A PING hi"] == bulks("pong", "hi")
    assert t["C CLIENT LIST fields"] == {"flags": "P", "sub": "1", "psub": "0", "ssub": "0",
                                         "cmd": "ping"}
    assert t["C CLIENT LIST TYPE pubsub"] == [True]
    assert t["A QUIT"] == OK and t["A closed"]


# --- 5. RESP3: every command works, pushes come in between -------------------------------------

def resp3_subscribed(port):
    t = Transcript()
    a, c = conns = open_conns(port, 2)
    try:
        hello(a, 3)
        a.send("SUBSCRIBE", "ps5:c")
        a.reply()
        t["A SET"] = a.call("SET", "ps5:k", "v")
        t["A GET"] = a.call("GET", "ps5:k")
        t["A PING"] = a.call("PING")
        t["A PUBLISH to itself"] = a.call("PUBLISH", "ps5:c", "self")  # the push, then :1
        t["A its reply"] = a.reply()
        t["A EVAL publish to itself"] = a.call(
            "EVAL", "return redis.call('publish', KEYS[1], ARGV[1])", "1", "ps5:c", "lua")
        t["A its reply 2"] = a.reply()
        t["C PUBLISH"] = c.call("PUBLISH", "ps5:c", "other")
        t["A push"] = a.reply()
        t["A DEL"] = a.call("DEL", "ps5:k")
    finally:
        close_all(conns)
    return t


def test_resp3_subscriber_runs_any_command_and_gets_pushes(target, reference):
    t = same_as_redis(target, reference, resp3_subscribed)
    assert t["A GET"] == bulk("v")
    assert t["A PING"] == b"+PONG\r\n"
    assert t["A PUBLISH to itself"] == frame(3, bulk("message"), bulk("ps5:c"), bulk("self"))
    assert t["A its reply"] == integer(1)
    assert t["A EVAL publish to itself"] == frame(3, bulk("message"), bulk("ps5:c"), bulk("lua"))
    assert t["A push"] == frame(3, bulk("message"), bulk("ps5:c"), bulk("other"))


def resp3_then_resp2(port):
    t = Transcript()
    a, = conns = open_conns(port, 1)
    try:
        hello(a, 3)
        a.send("SUBSCRIBE", "ps5b:c")
        a.reply()
        a.send("HELLO", "2")
        t["A HELLO 2 proto"] = parse(a.reply())[5]
        t["A GET in RESP2"] = a.call("GET", "ps5b:k")
        t["A PING in RESP2"] = a.call("PING")
    finally:
        close_all(conns)
    return t


def test_a_subscriber_switching_to_resp2_is_restricted(target, reference):
    t = same_as_redis(target, reference, resp3_then_resp2)
    assert t["A GET in RESP2"].startswith(b"-ERR Can't execute 'get'")


# --- 6. RESET leaves subscribed mode ------------------------------------------------------------

def reset_subscriber(port):
    t = Transcript()
    a, c = conns = open_conns(port, 2)
    try:
        a.send("SUBSCRIBE", "ps6:c")
        a.send("PSUBSCRIBE", "ps6:*")
        a.send("SSUBSCRIBE", "ps6:s")
        t["A subscribed"] = reply_n(a, 3)
        t["C CLIENT LIST fields"] = fields_of(c, a, "flags", "sub", "psub", "ssub")
        t["A RESET"] = a.call("RESET")
        t["A GET"] = a.call("GET", "ps6:k")
        t["C PUBLISH"] = c.call("PUBLISH", "ps6:c", "x")
        t["C SPUBLISH"] = c.call("SPUBLISH", "ps6:s", "x")
        t["C NUMPAT"] = c.call("PUBSUB", "NUMPAT")
        t["A PING"] = a.call("PING")
        t["C CLIENT LIST fields after"] = fields_of(c, a, "flags", "sub", "psub", "ssub")
    finally:
        close_all(conns)
    return t


def test_reset_drops_subscriptions_silently(target, reference):
    t = same_as_redis(target, reference, reset_subscriber)
    assert t["C CLIENT LIST fields"] == {"flags": "P", "sub": "1", "psub": "1", "ssub": "1"}
    assert t["A RESET"] == b"+RESET\r\n"
    assert t["A GET"] == b"$-1\r\n"
    assert t["C PUBLISH"] == integer(0) and t["C SPUBLISH"] == integer(0)
    assert t["A PING"] == b"+PONG\r\n"


# --- 7. Shard channels ----------------------------------------------------------------------

def shard_channels(proto):
    def scenario(port):
        t = Transcript()
        a, b, c = conns = open_conns(port, 3)
        try:
            hello(a, proto)
            a.send("SSUBSCRIBE", "ps7:s1", "ps7:s2")
            t["A SSUBSCRIBE"] = reply_n(a, 2)
            b.send("PSUBSCRIBE", "ps7:*")
            b.reply()
            t["C PUBLISH s1"] = c.call("PUBLISH", "ps7:s1", "x")
            t["B pmessage"] = b.reply()
            t["C SPUBLISH s1"] = c.call("SPUBLISH", "ps7:s1", "y")
            t["A smessage"] = a.reply()
            t["C SHARDCHANNELS"] = sorted(parse(c.call("PUBSUB", "SHARDCHANNELS")))
            t["C SHARDCHANNELS s1"] = c.call("PUBSUB", "SHARDCHANNELS", "ps7:*1")
            t["C SHARDNUMSUB"] = c.call("PUBSUB", "SHARDNUMSUB", "ps7:s1", "ps7:zz")
            t["C CHANNELS ps7"] = c.call("PUBSUB", "CHANNELS", "ps7:*")
            t["A SUNSUBSCRIBE s2"] = a.call("SUNSUBSCRIBE", "ps7:s2")
            t["A SUNSUBSCRIBE"] = a.call("SUNSUBSCRIBE")
            t["A SUNSUBSCRIBE none"] = a.call("SUNSUBSCRIBE")
        finally:
            close_all(conns)
        return t
    return scenario


@pytest.mark.parametrize("proto", [2, 3])
def test_shard_channels_are_their_own_namespace(target, reference, proto):
    t = same_as_redis(target, reference, shard_channels(proto))
    assert t["C PUBLISH s1"] == integer(1)  # only the pattern subscriber
    assert t["C SPUBLISH s1"] == integer(1)
    assert t["A smessage"] == frame(proto, bulk("smessage"), bulk("ps7:s1"), bulk("y"))
    assert t["A SUNSUBSCRIBE"] == frame(proto, bulk("sunsubscribe"), bulk("ps7:s1"), integer(0))


# --- 8. PUBSUB's errors and help --------------------------------------------------------------

def pubsub_errors(port):
    t = Transcript()
    with Conn(port) as c:
        for args in (("PUBSUB",), ("PUBSUB", "HELP"), ("PUBSUB", "help", "x"), ("PUBSUB", "FOO"),
                     ("PUBSUB", "CHANNELS", "a", "b"), ("PUBSUB", "NUMPAT", "x"),
                     ("PUBSUB", "SHARDCHANNELS", "a", "b"), ("PUBLISH", "a"),
                     ("SPUBLISH", "a", "b", "c"), ("SUBSCRIBE",), ("PSUBSCRIBE",),
                     ("SSUBSCRIBE",), ("EVAL", "return redis.call('subscribe', 'x')", "0"),
                     ("EVAL", "return redis.pcall('ssubscribe', 'x')", "0"),
                     ("EVAL", "return redis.call('pubsub', 'numsub', 'x')", "0"),
                     ("EVAL", "return redis.call('spublish', 'x', 'y')", "0")):
            t[" ".join(args)] = c.call(*args)
    return t


def test_pubsub_errors_and_help(target, reference):
    t = same_as_redis(target, reference, pubsub_errors)
    assert t["PUBSUB FOO"] == b"-ERR unknown subcommand 'FOO'. Try PUBSUB HELP.\r\n"


# --- 9. PUBLISH from a script, and a subscriber that goes away ----------------------------------

def publish_from_eval(port):
    t = Transcript()
    a, b, c = conns = open_conns(port, 3)
    try:
        hello(b, 3)
        a.send("SUBSCRIBE", "ps9:c")
        a.reply()
        b.send("PSUBSCRIBE", "ps9:*")
        b.reply()
        t["C EVAL"] = c.call("EVAL", "redis.call('publish', KEYS[1], 'one');"
                             "return redis.call('publish', KEYS[1], ARGV[1])",
                             "1", "ps9:c", "two")
        t["A messages"] = reply_n(a, 2)
        t["B pmessages"] = reply_n(b, 2)
        a.close()
        wait_numsub(c, "ps9:c", 0)
        t["C PUBLISH after close"] = c.call("PUBLISH", "ps9:c", "three")
        t["B third"] = b.reply()
    finally:
        close_all(conns)
    return t


def test_publish_from_eval_and_subscriber_removed_on_close(target, reference):
    t = same_as_redis(target, reference, publish_from_eval)
    assert t["C EVAL"] == integer(2)
    assert t["A messages"] == (bulks("message", "ps9:c", "one") +
                               bulks("message", "ps9:c", "two"))
    assert t["C PUBLISH after close"] == integer(1)


# --- 10. The pubsub output limit ---------------------------------------------------------------

def slow_subscriber(port):
    t = Transcript()
    a, c = conns = open_conns(port, 2)
    try:
        a.send("SUBSCRIBE", "ps10:c")
        a.reply()
        # 64 MB to a client that does not read: past the default hard limit of 32 MB, whatever
        # the kernel's socket buffers hold.
        message = b"x" * (1024 * 1024)
        c.send_raw(b"".join(b"*3\r\n$7\r\nPUBLISH\r\n$6\r\nps10:c\r\n$%d\r\n%s\r\n"
                            % (len(message), message) for _ in range(64)))
        replies = [c.reply(timeout=30) for _ in range(64)]
        t["C PUBLISH replies are counts"] = all(r in (b":0\r\n", b":1\r\n") for r in replies)
        wait_numsub(c, "ps10:c", 0)
        t["C NUMSUB"] = c.call("PUBSUB", "NUMSUB", "ps10:c")
        t["C still served"] = c.call("PING")
    finally:
        close_all(conns)
    return t


def test_a_subscriber_that_does_not_read_is_disconnected(target, reference):
    t = same_as_redis(target, reference, slow_subscriber)
    assert t["C NUMSUB"] == array(bulk("ps10:c"), integer(0))


# --- 11. MONITOR -------------------------------------------------------------------------------

MONITOR_LINE = re.compile(rb"^\+(\d+)\.(\d{6}) \[(\d+) ([^\]]+)\] (.*)\r\n$", re.S)


def masked(line, addr):
    m = MONITOR_LINE.match(line)
    assert m, "not a MONITOR line: %r" % line
    who = m.group(4)
    assert who in (b"lua", addr), "unexpected client %r (expected %r)" % (who, addr)
    return b"+<time> [%s %s] %s" % (m.group(3), b"<addr>" if who == addr else who, m.group(5))


def monitor(proto):
    def scenario(port):
        t = Transcript()
        m, c = conns = open_conns(port, 2)
        try:
            hello(m, proto)
            t["M MONITOR"] = m.call("MONITOR")
            addr = fields_of(c, c, "addr")["addr"].encode()
            commands = [
                ("SET", "mon:k", b"a\"b\\c\r\n\x01\x7f\xc3\xa9 \t\x07\x08 'x'"),
                ("GET", "mon:k"),
                ("SELECT", "3"),
                ("EVAL", "return redis.call('set', KEYS[1], '1')", "1", "mon:s"),
                ("SELECT", "0"),
                ("CONFIG", "GET", "maxmemory"),  # admin: not shown
                ("CLIENT", "LIST"),  # admin: not shown
                ("DEBUG", "SLEEP", "0"),  # admin: not shown
                ("NOSUCH",),  # rejected: not shown
                ("GET",),  # rejected: not shown
                ("AUTH", "secret"),
                ("HELLO", "2", "AUTH", "default", "secret"),
                ("LPUSH", "mon:l", "1"),
                ("INCR", "mon:l"),  # a failing command is shown
                ("CLIENT", "ID"),
                ("PUBLISH", "mon:c", "x"),
                ("PING",),
            ]
            for args in commands:
                c.call(*args)
            lines = []
            while True:
                line = masked(m.reply(), addr)
                lines.append(line)
                if line.endswith(b'"PING"'):
                    break
            t["M lines"] = lines
            t["M GET"] = m.call("GET", "mon:k")
            t["M SET"] = m.call("SET", "mon:k", "v")
            t["M PUBLISH"] = m.call("PUBLISH", "mon:c", "x")
            t["M PING"] = m.call("PING")
            t["M own PING line"] = masked(m.reply(), fields_of(c, m, "addr")["addr"].encode())
            t["C CLIENT LIST M flags"] = fields_of(c, m, "flags")
            t["C CLIENT LIST TYPE normal has M"] = str(m.id()).encode() in parse(
                c.call("CLIENT", "LIST", "TYPE", "normal"))
            t["M RESET"] = m.call("RESET")
            c.call("SET", "mon:after", "1")
            t["M PING after RESET"] = m.call("PING")  # no MONITOR line in between
            c.call("DEL", "mon:k", "mon:l", "mon:after", "mon:s")
        finally:
            close_all(conns)
        return t
    return scenario


@pytest.mark.parametrize("proto", [2, 3])
def test_monitor_lines(target, reference, proto):
    t = same_as_redis(target, reference, monitor(proto))
    assert t["M MONITOR"] == OK
    assert t["M lines"] == [
        b'+<time> [0 <addr>] "SET" "mon:k" "a\\"b\\\\c\\r\\n\\x01\\x7f\\xc3\\xa9 \\t\\a\\b \'x\'"',
        b'+<time> [0 <addr>] "GET" "mon:k"',
        b'+<time> [3 <addr>] "SELECT" "3"',
        b'+<time> [3 <addr>] "EVAL" "return redis.call(\'set\', KEYS[1], \'1\')" "1" "mon:s"',
        b'+<time> [3 lua] "set" "mon:s" "1"',
        b'+<time> [0 <addr>] "SELECT" "0"',
        b'+<time> [0 <addr>] "AUTH" "(redacted)"',
        b'+<time> [0 <addr>] "HELLO" "2" "AUTH" "(redacted)" "(redacted)"',
        b'+<time> [0 <addr>] "LPUSH" "mon:l" "1"',
        b'+<time> [0 <addr>] "INCR" "mon:l"',
        b'+<time> [0 <addr>] "CLIENT" "ID"',
        b'+<time> [0 <addr>] "PUBLISH" "mon:c" "x"',
        b'+<time> [0 <addr>] "PING"',
    ]
    assert t["M GET"] == b"-ERR Replica can't interact with the keyspace\r\n"
    assert t["M PUBLISH"] == b"-ERR Replica can't interact with the keyspace\r\n"
    assert t["M PING"] == b"+PONG\r\n"
    assert t["C CLIENT LIST M flags"] == {"flags": "O"}
    assert t["M RESET"] == b"+RESET\r\n"
    assert t["M PING after RESET"] == b"+PONG\r\n"


def monitor_timestamps(port):
    t = Transcript()
    m, c = conns = open_conns(port, 2)
    try:
        m.call("MONITOR")
        server_time = parse(c.call("TIME"))
        line = m.reply()
        match = MONITOR_LINE.match(line)
        seconds = int(match.group(1))
        t["within a second of TIME"] = abs(seconds - int(server_time[0])) <= 1
    finally:
        close_all(conns)
    return t


def test_monitor_timestamp_is_the_wall_clock(target, reference):
    assert same_as_redis(target, reference, monitor_timestamps)["within a second of TIME"]
