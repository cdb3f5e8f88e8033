"""Keyspace notifications across connections, on redis-server and warden.

A subscriber connection PSUBSCRIBEs to every keyspace and keyevent channel while a writer
connection runs commands of every type with notify-keyspace-events set. After each command the
writer PUBLISHes a marker on a channel the subscriber's pattern also matches; as a server
delivers messages in order, everything the subscriber read before the marker is what that
command published. A scenario's transcript is, per step, the command's reply and the exact bytes
of the frames it caused (RESP2 or RESP3 subscriber); on warden the same scenario runs on
redis-server too and the transcripts must be equal.

Expiry: `expired` from lazy expiry (active expiry off; the test waits, without sleeping, by
polling a second key that expires no earlier), and from active expiry (the subscriber waits for
the event). The last tests are warden's alone: DEBUG CLOCK ADVANCE delivers `expired`.

Every test leaves notify-keyspace-events empty and active expiry on, as the servers are shared.
"""

import contextlib
import time

import pytest

from blocking_transcripts import same_as_redis
from resp_conn import Conn

WAIT_S = 5
OK = b"+OK\r\n"
PATTERN = "__key*@*__:*"
MARKER_CHANNEL = "__keyspace@0__:~marker~"


# --- Connections and the event recorder --------------------------------------------------------

@contextlib.contextmanager
def session(port, flags, proto):
    """(subscriber, writer, third): the subscriber in RESP `proto` has PSUBSCRIBEd; the writer
    flushed everything and set notify-keyspace-events to `flags`. Restores the defaults."""
    with Conn(port) as sub, Conn(port) as writer, Conn(port) as third:
        writer.id()
        third.id()
        try:
            assert writer.call("FLUSHALL") == OK
            assert writer.call("CONFIG", "SET", "notify-keyspace-events", flags) == OK
            if proto == 3:
                assert sub.call("HELLO", "3").startswith(b"%")
            sub.send("PSUBSCRIBE", PATTERN)
            sub.reply()
            yield sub, writer, third
        finally:
            writer.call("CONFIG", "SET", "notify-keyspace-events", "")
            writer.call("DEBUG", "SET-ACTIVE-EXPIRE", "1")
            writer.call("SELECT", "0")


def events_until_marker(sub, marker):
    """The frames the subscriber reads before the marker's own frame."""
    frames = []
    while True:
        frame = sub.reply(WAIT_S)
        if marker.encode() in frame and MARKER_CHANNEL.encode() in frame:
            return frames
        frames.append(frame)


class Recorder:
    """Runs steps on the writer and records (reply, frames published meanwhile) per step."""

    def __init__(self, sub, writer):
        self.sub = sub
        self.writer = writer
        self.transcript = {}
        self.marks = 0

    def settle(self):
        """Every frame published so far: publishes a marker and reads up to it."""
        self.marks += 1
        marker = "m%d" % self.marks
        self.writer.call("PUBLISH", MARKER_CHANNEL, marker)
        return events_until_marker(self.sub, marker)

    def record(self, label, reply):
        """Labels are numbered, so a command may run twice."""
        self.transcript["%02d %s" % (len(self.transcript), label)] = (reply, self.settle())

    def run(self, *args):
        """A step whose name starts with "~" has a random reply: only its events compare."""
        reply = self.writer.call(*(a.lstrip("~") if i == 0 else a for i, a in enumerate(args)))
        self.record(" ".join(str(a) for a in args), b"<random>" if args[0][0] == "~" else reply)


def client_flags(observer, conn):
    line = observer.value("CLIENT", "LIST", "ID", str(conn.id())).decode()
    return dict(f.split("=", 1) for f in line.split())["flags"]


def wait_blocked(observer, conn):
    deadline = time.monotonic() + WAIT_S
    while "b" not in client_flags(observer, conn):
        assert time.monotonic() < deadline, "client did not block within %ds" % WAIT_S


# --- The commands of every type ----------------------------------------------------------------

STRING_STEPS = [
    ("SET", "s", "v"), ("SET", "s", "w", "NX"), ("SET", "s", "x", "XX"),
    ("SET", "s2", "v", "XX"), ("SET", "s2", "v", "EX", "100"), ("SET", "s2", "v", "GET"),
    ("SET", "s3", "v", "GET"), ("SET", "s3", "v", "KEEPTTL"), ("SETNX", "s", "v"),
    ("SETNX", "s4", "v"), ("SETEX", "s5", "100", "v"), ("PSETEX", "s5", "100000", "v"),
    ("GETSET", "s", "y"), ("GETSET", "s6", "y"), ("MSET", "m1", "a", "m2", "b", "m1", "c"),
    ("MSETNX", "m1", "a", "m3", "b"), ("MSETNX", "m3", "a", "m4", "b"),
    ("APPEND", "s", "z"), ("APPEND", "s", ""), ("APPEND", "a1", "new"),
    ("SETRANGE", "s", "1", "QQ"), ("SETRANGE", "s", "1", ""), ("SETRANGE", "r1", "0", ""),
    ("SETRANGE", "r1", "3", "x"), ("INCR", "n"), ("INCRBY", "n", "0"), ("DECR", "n"),
    ("DECRBY", "n", "5"), ("INCR", "s"), ("INCRBYFLOAT", "n", "1.5"),
    ("INCRBYFLOAT", "f", "2"), ("GET", "s"), ("GET", "nokey"), ("MGET", "s", "nokey", "n"),
    ("STRLEN", "nokey"), ("GETRANGE", "nokey", "0", "1"), ("LCS", "s", "nokey2"),
    ("GETDEL", "s6"), ("GETDEL", "s6"), ("GETEX", "s", "EX", "100"),
    ("GETEX", "s", "PERSIST"), ("GETEX", "s", "PERSIST"), ("GETEX", "nokey"),
    ("GETEX", "m1", "PXAT", "1"),
]

KEY_STEPS = [
    ("SET", "k", "v"), ("EXPIRE", "k", "100"), ("PEXPIRE", "k", "100000", "NX"),
    ("TTL", "k"), ("TTL", "nokey"), ("PTTL", "nokey"), ("EXPIRETIME", "nokey"),
    ("PERSIST", "k"), ("PERSIST", "k"), ("EXPIREAT", "k", "9999999999"),
    ("PEXPIREAT", "nokey", "1"), ("EXISTS", "k", "nokey", "k"), ("TYPE", "nokey"),
    ("TYPE", "k"), ("TOUCH", "k", "nokey"), ("OBJECT", "ENCODING", "nokey"),
    ("RENAME", "k", "k2"), ("RENAME", "k2", "k2"), ("SET", "k3", "x"), ("RENAME", "k2", "k3"),
    ("RENAMENX", "k3", "k4"), ("SET", "k5", "x"), ("RENAMENX", "k4", "k5"),
    ("COPY", "k4", "c1"), ("COPY", "k4", "c1"), ("COPY", "k4", "c1", "REPLACE"),
    ("COPY", "nokey", "c2"), ("COPY", "k4", "c3", "DB", "1"), ("MOVE", "k4", "1"),
    ("MOVE", "k5", "1"), ("DEL", "c1", "nokey", "k5"), ("UNLINK", "k5", "c3"),
    ("EXPIRE", "k3", "0"), ("SET", "e1", "v"), ("PEXPIREAT", "e1", "1"),
    ("SET", "w", "1"), ("SWAPDB", "0", "1"), ("SWAPDB", "0", "1"), ("DBSIZE",),
    ("RANDOMKEY",), ("FLUSHDB",), ("SET", "z", "1"), ("FLUSHALL",),
]

HASH_STEPS = [
    ("HSET", "h", "f", "1"), ("HSET", "h", "f", "1"), ("HMSET", "h", "g", "2", "i", "3"),
    ("HSETNX", "h", "f", "x"), ("HSETNX", "h", "n", "x"), ("HSETNX", "h2", "n", "x"),
    ("HINCRBY", "h", "f", "5"), ("HINCRBY", "h3", "f", "5"), ("HINCRBYFLOAT", "h", "g", "0.5"),
    ("HINCRBYFLOAT", "h4", "g", "1"), ("HINCRBY", "h", "n", "1"), ("HDEL", "h", "nofield"),
    ("HDEL", "h", "f", "g"), ("HDEL", "h2", "n"), ("HGET", "nokey", "f"),
    ("HGET", "h", "nofield"), ("HMGET", "nokey", "a"), ("HLEN", "nokey"),
    ("HSTRLEN", "nokey", "f"), ("HKEYS", "nokey"), ("HVALS", "nokey"), ("HGETALL", "nokey"),
    ("HEXISTS", "nokey", "f"), ("HSCAN", "nokey", "0"), ("HRANDFIELD", "nokey"),
    ("HRANDFIELD", "nokey", "2"), ("HSET", "s", "f", "v"), ("SET", "s", "x"),
    ("HSET", "s", "f", "v"), ("HGET", "s", "f"),
]

SET_STEPS = [
    ("SADD", "s", "a", "b", "c"), ("SADD", "s", "a"), ("SADD", "t", "1", "2"),
    ("SREM", "s", "x"), ("SREM", "s", "a"), ("SREM", "t", "1", "2"),
    ("SMOVE", "s", "u", "b"), ("SMOVE", "s", "u", "c"), ("SMOVE", "u", "u", "b"),
    ("SMOVE", "nokey", "u", "b"), ("SADD", "v", "b"), ("SMOVE", "u", "v", "b"),
    ("SADD", "p", "1"), ("SPOP", "p"), ("SADD", "p", "1", "2", "3", "4"), ("~SPOP", "p"),
    ("SPOP", "p", "0"), ("~SPOP", "p", "1"), ("~SPOP", "p", "10"), ("SPOP", "nokey"), ("SADD", "x", "1", "2"), ("SADD", "y", "2", "3"),
    ("SINTERSTORE", "d", "x", "y"), ("SINTERSTORE", "d", "x", "y"),
    ("SUNIONSTORE", "d", "x", "y"), ("SDIFFSTORE", "d", "x", "y"),
    ("SINTERSTORE", "d", "x", "nokey"), ("SINTERSTORE", "d", "x", "nokey"),
    ("SDIFFSTORE", "e", "nokey", "x"), ("SINTER", "x", "nokey"), ("SUNION", "nokey", "x"),
    ("SDIFF", "nokey"), ("SINTERCARD", "2", "nokey", "x"), ("SMEMBERS", "nokey"),
    ("SISMEMBER", "nokey", "a"), ("SMISMEMBER", "nokey", "a"), ("SCARD", "nokey"),
    ("SRANDMEMBER", "nokey"), ("SRANDMEMBER", "nokey", "3"), ("SSCAN", "nokey", "0"),
]

ZSET_STEPS = [
    ("ZADD", "z", "1", "a", "2", "b"), ("ZADD", "z", "1", "a"), ("ZADD", "z", "5", "a"),
    ("ZADD", "z", "XX", "1", "nomember"), ("ZADD", "z2", "XX", "1", "m"),
    ("ZADD", "z", "INCR", "1", "a"), ("ZINCRBY", "z", "1", "c"), ("ZINCRBY", "z3", "1", "c"),
    ("ZADD", "z", "NX", "GT", "CH", "1", "a"), ("ZADD", "z", "GT", "CH", "0", "a"),
    ("ZADD", "z", "INCR", "+inf", "b"), ("ZADD", "z", "INCR", "-inf", "b"),
    ("ZREM", "z", "nomember"), ("ZREM", "z", "c"), ("ZREM", "z3", "c"),
    ("ZADD", "r", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"),
    ("ZREMRANGEBYSCORE", "r", "10", "20"), ("ZREMRANGEBYSCORE", "r", "1", "1"),
    ("ZREMRANGEBYRANK", "r", "0", "0"), ("ZREMRANGEBYLEX", "r", "[c", "[c"),
    ("ZREMRANGEBYRANK", "r", "0", "-1"), ("ZADD", "p", "1", "a", "2", "b", "3", "c"),
    ("ZPOPMIN", "p"), ("ZPOPMAX", "p", "0"), ("ZPOPMAX", "p", "5"), ("ZPOPMIN", "nokey"),
    ("ZADD", "p", "1", "a", "2", "b"), ("ZMPOP", "2", "nokey", "p", "MIN", "COUNT", "1"),
    ("BZPOPMAX", "nokey", "p", "0"), ("BZMPOP", "0", "2", "nokey", "z", "MIN"),
    ("ZADD", "x", "1", "a", "2", "b"), ("ZADD", "y", "2", "b", "3", "c"),
    ("ZUNIONSTORE", "d", "2", "x", "y"), ("ZUNIONSTORE", "d", "2", "x", "y"),
    ("ZINTERSTORE", "d", "2", "x", "nokey"), ("ZINTERSTORE", "d", "2", "x", "nokey"),
    ("ZDIFFSTORE", "d", "2", "x", "y"), ("ZRANGESTORE", "e", "x", "0", "-1"),
    ("ZRANGESTORE", "e", "nokey", "0", "-1"), ("ZRANGESTORE", "e", "x", "5", "6"),
    ("ZUNION", "2", "nokey", "x"), ("ZINTERCARD", "1", "nokey"), ("ZDIFF", "1", "nokey"),
    ("ZRANGE", "nokey", "0", "-1"), ("ZRANGEBYSCORE", "nokey", "0", "1"),
    ("ZREVRANGEBYLEX", "nokey", "+", "-"), ("ZCARD", "nokey"), ("ZSCORE", "nokey", "a"),
    ("ZMSCORE", "nokey", "a"), ("ZRANK", "nokey", "a"), ("ZREVRANK", "nokey", "a"),
    ("ZCOUNT", "nokey", "0", "1"), ("ZLEXCOUNT", "nokey", "-", "+"),
    ("ZRANDMEMBER", "nokey"), ("ZRANDMEMBER", "nokey", "2"), ("ZSCAN", "nokey", "0"),
]

LIST_STEPS = [
    ("LPUSH", "l", "a", "b"), ("RPUSH", "l", "c"), ("LPUSHX", "nokey", "a"),
    ("RPUSHX", "l", "d"), ("LPOP", "l"), ("RPOP", "l", "0"), ("RPOP", "l", "1"),
    ("LINSERT", "l", "BEFORE", "nopivot", "x"), ("LINSERT", "l", "AFTER", "a", "x"),
    ("LSET", "l", "0", "y"), ("LREM", "l", "0", "nothing"), ("LREM", "l", "0", "x"),
    ("LTRIM", "l", "0", "-1"), ("LTRIM", "nokey", "0", "1"), ("RPUSH", "l", "1", "2"),
    ("LTRIM", "l", "5", "10"), ("RPUSH", "l", "1", "2", "3"), ("LMOVE", "l", "m", "LEFT", "RIGHT"),
    ("RPOPLPUSH", "l", "l"), ("LMOVE", "l", "m", "LEFT", "LEFT"),
    ("LMOVE", "l", "m", "RIGHT", "LEFT"), ("LMOVE", "nokey", "m", "LEFT", "LEFT"),
    ("RPUSH", "one", "x"), ("LMOVE", "one", "one", "LEFT", "RIGHT"),
    ("LMPOP", "2", "nokey", "m", "RIGHT", "COUNT", "2"), ("LPOP", "m", "5"),
    ("RPUSH", "b", "1"), ("BLPOP", "nokey", "b", "0"), ("RPUSH", "b", "1", "2"),
    ("BRPOP", "b", "0"), ("BLMOVE", "b", "c", "LEFT", "LEFT", "0"),
    ("BRPOPLPUSH", "c", "b", "0"), ("BLMPOP", "0", "1", "b", "LEFT", "COUNT", "3"),
    ("LLEN", "nokey"), ("LRANGE", "nokey", "0", "-1"), ("LINDEX", "nokey", "0"),
    ("LPOS", "nokey", "a"), ("LREM", "l", "1", "1"), ("LREM", "l", "0", "2"),
]


def steps_scenario(steps, flags, proto, db=0):
    def scenario(port):
        with session(port, flags, proto) as (sub, writer, _):
            if db:
                assert writer.call("SELECT", str(db)) == OK
            rec = Recorder(sub, writer)
            for step in steps:
                rec.run(*step)
            return rec.transcript
    return scenario


@pytest.mark.parametrize("proto", [2, 3])
@pytest.mark.parametrize("family,steps", [
    ("strings", STRING_STEPS), ("keys", KEY_STEPS), ("hashes", HASH_STEPS),
    ("sets", SET_STEPS), ("zsets", ZSET_STEPS), ("lists", LIST_STEPS)])
def test_every_event_with_new_and_keymiss(target, reference, family, steps, proto):
    t = same_as_redis(target, reference, steps_scenario(steps, "KEA" + "nm", proto))
    assert any(frames for _, frames in t.values()), "no event at all for %s" % family


@pytest.mark.parametrize("flags", ["K$", "Eg", "KEl", "Ez", "Kh", "Es", "Em", "Kn", "KEA", "A"])
def test_classes_filter_the_events(target, reference, flags):
    steps = [("SET", "a", "1"), ("EXPIRE", "a", "100"), ("LPUSH", "l", "x"), ("ZADD", "z", "1", "m"),
             ("HSET", "h", "f", "v"), ("SADD", "s", "m"), ("GET", "nokey"), ("DEL", "a", "l")]
    same_as_redis(target, reference, steps_scenario(steps, flags, 2))


def test_events_in_another_database_name_it(target, reference):
    steps = [("SET", "a", "1"), ("RENAME", "a", "b"), ("MOVE", "b", "0"), ("GET", "nokey")]
    same_as_redis(target, reference, steps_scenario(steps, "KEA", 3, db=5))


def test_config_get_and_set_spell_the_flags_as_redis(target, reference):
    def scenario(port):
        t = {}
        with Conn(port) as c:
            try:
                for value in ["KEA", "AKE", "Kg$", "KEAm", "Kn", "KEAn", "gg", "A$", "", "EK",
                              "xe", "tdm", "KElshz", "Q", "KE A", "k"]:
                    t["SET " + value] = c.call("CONFIG", "SET", "notify-keyspace-events", value)
                    t["GET " + value] = c.call("CONFIG", "GET", "notify-keyspace-events")
            finally:
                c.call("CONFIG", "SET", "notify-keyspace-events", "")
        return t
    t = same_as_redis(target, reference, scenario)
    assert t["GET KEAm"] == (b"*2\r\n$22\r\nnotify-keyspace-events\r\n$4\r\nAKEm\r\n")


def test_a_script_publishes_in_execution_order(target, reference):
    script = ("redis.call('set', KEYS[1], '1') redis.call('incr', KEYS[1]) "
              "redis.call('expire', KEYS[1], 100) redis.call('get', 'nokey') "
              "redis.call('del', KEYS[1]) redis.call('rpush', KEYS[2], 'x') "
              "redis.call('lpop', KEYS[2]) return 1")

    def scenario(port):
        with session(port, "KEAnm", 2) as (sub, writer, _):
            rec = Recorder(sub, writer)
            rec.run("EVAL", script, "2", "k", "l")
            return rec.transcript
    same_as_redis(target, reference, scenario)


@pytest.mark.parametrize("proto", [2, 3])
def test_served_blocked_clients_publish_their_pops_inside_the_push(target, reference, proto):
    def scenario(port):
        with session(port, "KEAn", proto) as (sub, writer, waiter):
            rec = Recorder(sub, writer)
            for command in [("BLPOP", "q", "0"), ("BLMOVE", "q", "d", "RIGHT", "LEFT", "0"),
                            ("BZPOPMIN", "z", "0"), ("BLMPOP", "0", "1", "q", "LEFT", "COUNT", "5")]:
                rec.run("DEL", "q", "d", "z")
                waiter.send(*command)
                wait_blocked(writer, waiter)
                if command[0] == "BZPOPMIN":
                    rec.run("ZADD", "z", "1", "a", "2", "b")
                else:
                    rec.run("RPUSH", "q", "1", "2")
                rec.record("waiter " + command[0], waiter.reply())
            return rec.transcript
    same_as_redis(target, reference, scenario)


# --- expired --------------------------------------------------------------------------------------

def wait_gone(writer, key):
    """Polls EXISTS (a read that expires the key) until the key is gone."""
    deadline = time.monotonic() + WAIT_S
    while writer.call("EXISTS", key) != b":0\r\n":
        assert time.monotonic() < deadline, "%s did not expire within %ds" % (key, WAIT_S)


@pytest.mark.parametrize("proto", [2, 3])
def test_lazy_expiry_publishes_expired_then_the_command_events(target, reference, proto):
    def scenario(port):
        with session(port, "KEAn", proto) as (sub, writer, _):
            rec = Recorder(sub, writer)
            assert writer.call("DEBUG", "SET-ACTIVE-EXPIRE", "0") == OK
            rec.run("SET", "g", "1", "PX", "1")
            rec.run("SET", "w", "1", "PX", "1")
            rec.run("HSET", "h", "f", "v")
            rec.run("PEXPIRE", "h", "1")
            rec.run("RPUSH", "l", "a")
            rec.run("PEXPIRE", "l", "1")
            rec.run("SET", "x", "1", "PX", "1")
            # x was set last: once it has expired, so have the others.
            wait_gone(writer, "x")
            rec.record("waited for x", rec.settle())
            rec.run("GET", "g")
            rec.run("SET", "w", "2")
            rec.run("HSET", "h", "f", "v")
            rec.run("LPUSH", "l", "b")
            rec.run("DBSIZE")
            return rec.transcript
    t = same_as_redis(target, reference, scenario)
    assert [frames for label, (_, frames) in t.items() if label.endswith(" GET g")][0]


def test_lazy_expiry_through_keys_scan_and_randomkey(target, reference):
    """One expired key at a time, so the order SCAN visits keys in does not matter. SCAN's TYPE
    filter is a read lookup: the key expires, then misses."""
    def scenario(port):
        with session(port, "KExm", 2) as (sub, writer, _):
            rec = Recorder(sub, writer)
            assert writer.call("DEBUG", "SET-ACTIVE-EXPIRE", "0") == OK
            for round_, command in enumerate([("SCAN", "0", "COUNT", "100"),
                                              ("SCAN", "0", "TYPE", "string"),
                                              ("RANDOMKEY",),
                                              ("SCAN", "0", "MATCH", "nomatch")]):
                a, x = "a%d" % round_, "x%d" % round_
                rec.run("SET", a, "1", "PX", "1")
                rec.run("SET", x, "1", "PX", "1")
                wait_gone(writer, x)
                rec.record("waited for " + x, rec.settle())
                rec.run("KEYS", "*")
                rec.run("DBSIZE")
                rec.run(*command)
                rec.run("DBSIZE")
            return rec.transcript
    same_as_redis(target, reference, scenario)


@pytest.mark.parametrize("proto", [2, 3])
def test_active_expiry_publishes_expired(target, reference, proto):
    def scenario(port):
        with session(port, "KEA", proto) as (sub, writer, _):
            rec = Recorder(sub, writer)
            t = rec.transcript
            t["SET soon"] = writer.call("SET", "soon", "1", "PX", "10")
            # Nothing touches the key: the background cycle removes it.
            t["events"] = [sub.reply(WAIT_S) for _ in range(6)]
            rec.run("DBSIZE")
            return t
    t = same_as_redis(target, reference, scenario)
    assert b"expired" in t["events"][4]


# --- warden's clock (warden only) -----------------------------------------------------------------

warden_only = pytest.mark.parametrize("target", ["warden"], indirect=True)


def pmessage(channel, payload, proto=2):
    def bulk(s):
        s = s.encode()
        return b"$%d\r\n%s\r\n" % (len(s), s)
    head = b">4\r\n" if proto == 3 else b"*4\r\n"
    return head + bulk("pmessage") + bulk(PATTERN) + bulk(channel) + bulk(payload)


@warden_only
@pytest.mark.parametrize("proto", [2, 3])
def test_debug_clock_advance_publishes_the_expiries_it_causes(target, proto):
    with session(target.port, "KEx", proto) as (sub, writer, _):
        try:
            assert writer.call("DEBUG", "CLOCK", "FREEZE") == OK
            rec = Recorder(sub, writer)
            assert writer.call("SET", "lease", "me", "PX", "30000") == OK
            assert writer.call("SELECT", "3") == OK
            assert writer.call("SET", "other", "me", "PX", "40000") == OK
            assert rec.settle() == []
            assert writer.call("DEBUG", "CLOCK", "ADVANCE", "29999") == OK
            assert rec.settle() == []
            assert writer.call("DEBUG", "CLOCK", "ADVANCE", "1") == OK
            assert rec.settle() == [pmessage("__keyspace@0__:lease", "expired", proto),
                                    pmessage("__keyevent@0__:expired", "lease", proto)]
            assert writer.call("DEBUG", "CLOCK", "ADVANCE", "10000") == OK
            assert rec.settle() == [pmessage("__keyspace@3__:other", "expired", proto),
                                    pmessage("__keyevent@3__:expired", "other", proto)]
            assert writer.call("DBSIZE") == b":0\r\n"
        finally:
            writer.call("DEBUG", "CLOCK", "REAL")


@warden_only
def test_swapdb_keeps_expired_events_on_the_database_number(target):
    with session(target.port, "KEx", 2) as (sub, writer, _):
        try:
            assert writer.call("DEBUG", "CLOCK", "FREEZE") == OK
            rec = Recorder(sub, writer)
            assert writer.call("SET", "lease", "me", "PX", "100") == OK
            assert writer.call("SWAPDB", "0", "6") == OK
            assert writer.call("DEBUG", "CLOCK", "ADVANCE", "100") == OK
            assert rec.settle() == [pmessage("__keyspace@6__:lease", "expired"),
                                    pmessage("__keyevent@6__:expired", "lease")]
        finally:
            writer.call("DEBUG", "CLOCK", "REAL")
