"""Client-side caching (CLIENT TRACKING) across two and three raw connections, on redis-server
and warden: each scenario returns a transcript of the exact bytes every step received, and on
warden the same scenario also runs on redis-server and the transcripts must be equal step for
step (blocking_transcripts.same_as_redis).

An invalidation is written to its client's socket before the reply of the command that caused
it, so reading the writer's reply and then the tracking client's socket needs no sleep. Client
ids differ between the servers: steps that show one record it relative to the test's clients.
Also redis-py's RESP2 way: a second connection subscribed to __redis__:invalidate.
"""

import pytest
import redis

from blocking_transcripts import (Transcript, array, bulk, bulks, client_fields, integer,
                                  same_as_redis)
from resp_conn import Conn, parse

OK = b"+OK\r\n"


def push(*items):
    return b">" + array(*items)[1:]


def invalidate3(*keys):
    return push(bulk("invalidate"), bulks(*keys))


def invalidate2(*keys):
    """What a RESP2 client subscribed to __redis__:invalidate receives."""
    return array(bulk("message"), bulk("__redis__:invalidate"), bulks(*keys))


def info_lines(conn, prefix):
    """The INFO stats lines that start with `prefix`."""
    return [line for line in parse(conn.call("INFO", "stats")).decode().split("\r\n")
            if line.startswith(prefix)]


def fresh(port, *conns):
    for c in conns:
        c.close()
    with Conn(port) as admin:
        assert admin.call("FLUSHALL") == OK
        assert admin.call("CONFIG", "SET", "tracking-table-max-keys", "1000000") == OK


def resp3(port):
    c = Conn(port)
    c.call("HELLO", "3")
    return c


def default_mode_resp3(port):
    t = Transcript()
    fresh(port)
    a, w = resp3(port), Conn(port)
    t["A TRACKING ON"] = a.call("CLIENT", "TRACKING", "ON")
    t["A GET k (missing)"] = a.call("GET", "trk:k")
    t["A MGET k k2"] = a.call("MGET", "trk:k", "trk:k2")
    t["A HGET h"] = a.call("HGET", "trk:h", "f")
    t["W SET k"] = w.call("SET", "trk:k", "v")
    t["A invalidate k"] = a.reply()
    t["W SET k again (not tracked any more)"] = w.call("SET", "trk:k", "v2")
    t["W HSET h"] = w.call("HSET", "trk:h", "f", "1")
    t["A invalidate h"] = a.reply()
    t["W DEL k2 (missing: no change)"] = w.call("DEL", "trk:k2")
    t["A PING"] = a.call("PING")
    # A's own write: its invalidation follows its reply.
    t["A GET k"] = a.call("GET", "trk:k")
    t["A SET k"] = a.call("SET", "trk:k", "mine")
    t["A invalidate own k"] = a.reply()
    # SWAPDB invalidates nothing in Redis 7.0 (only FLUSHALL and FLUSHDB send a null).
    t["W SWAPDB 0 1"] = w.call("SWAPDB", "0", "1")
    t["A PING after SWAPDB"] = a.call("PING")
    t["W SWAPDB back"] = w.call("SWAPDB", "0", "1")
    t["INFO tracking"] = sorted(info_lines(w, "tracking_total"))
    t["A FLUSHALL"] = a.call("FLUSHALL")
    t["A invalidate null"] = a.reply()
    t["A TRACKING OFF"] = a.call("CLIENT", "TRACKING", "OFF")
    a.close()
    w.close()
    return t


def test_default_mode_resp3(target, reference):
    t = same_as_redis(target, reference, default_mode_resp3)
    assert t["A invalidate k"] == invalidate3("trk:k")
    assert t["A invalidate own k"] == invalidate3("trk:k")
    assert t["A invalidate null"] == push(bulk("invalidate"), b"_\r\n")


def redirect_resp2(port):
    t = Transcript()
    fresh(port)
    sub, a, w = Conn(port), Conn(port), Conn(port)
    sub.id()
    t["SUB SUBSCRIBE"] = sub.call("SUBSCRIBE", "__redis__:invalidate")
    t["A TRACKING ON REDIRECT"] = a.call("CLIENT", "TRACKING", "ON", "REDIRECT", str(sub.id()))
    t["A GETREDIR is SUB"] = parse(a.call("CLIENT", "GETREDIR")) == sub.id()
    t["A GET x"] = a.call("GET", "trk:x")
    t["A GET y"] = a.call("GET", "trk:y")
    t["W MSET x y"] = w.call("MSET", "trk:x", "1", "trk:y", "2")
    t["SUB x"] = sub.reply()
    t["SUB y"] = sub.reply()
    t["A GET x again"] = a.call("GET", "trk:x")
    t["W FLUSHDB"] = w.call("FLUSHDB")
    t["SUB null"] = sub.reply()
    fields = client_fields(w, a)
    t["CLIENT LIST flags"] = fields["flags"]
    t["CLIENT LIST redir is SUB"] = fields["redir"] == str(sub.id())
    # The redirect target goes: A's invalidations have nowhere to go.
    sub.close()
    t["A GET z"] = a.call("GET", "trk:z")
    t["W SET z"] = w.call("SET", "trk:z", "1")
    t["A TRACKINGINFO"] = parse(a.call("CLIENT", "TRACKINGINFO"))[:2]
    fields = client_fields(w, a)
    t["CLIENT LIST flags broken"] = fields["flags"]
    a.close()
    w.close()
    return t


def test_redirect_to_a_resp2_subscriber(target, reference):
    t = same_as_redis(target, reference, redirect_resp2)
    assert t["SUB x"] == invalidate2("trk:x")
    assert t["SUB null"] == array(bulk("message"), bulk("__redis__:invalidate"), b"$-1\r\n")
    assert t["CLIENT LIST flags"] == "t"
    assert t["CLIENT LIST flags broken"] == "tR"


def bcast(port):
    t = Transcript()
    fresh(port)
    a, b, w = resp3(port), resp3(port), Conn(port)
    t["A BCAST PREFIX"] = a.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "trk:a:",
                                 "PREFIX", "trk:b:")
    t["B BCAST NOLOOP all"] = b.call("CLIENT", "TRACKING", "ON", "BCAST", "NOLOOP")
    t["A TRACKINGINFO"] = a.call("CLIENT", "TRACKINGINFO")
    t["W MSET"] = w.call("MSET", "trk:a:2", "1", "trk:a:1", "1", "trk:b:1", "1", "trk:c", "1")
    t["W PING"] = w.call("PING")
    t["A first"] = a.reply()
    t["A second"] = a.reply()
    t["B all"] = b.reply()
    # NOLOOP: B hears of W's change, not of its own.
    t["B SET own"] = b.call("SET", "trk:a:3", "x")
    t["W SET"] = w.call("SET", "trk:c", "y")
    t["B only W's key"] = b.reply()
    t["A own prefix"] = a.reply()
    t["B PING"] = b.call("PING")
    t["INFO prefixes"] = info_lines(w, "tracking_total_prefixes")
    t["A overlapping prefix"] = a.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "trk:a")
    t["A more prefixes"] = a.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "zzz")
    t["A TRACKINGINFO 2"] = a.call("CLIENT", "TRACKINGINFO")
    for c in (a, b, w):
        c.close()
    return t


def test_bcast_prefixes_and_noloop(target, reference):
    t = same_as_redis(target, reference, bcast)
    assert t["A first"] == invalidate3("trk:a:1", "trk:a:2")
    assert t["A second"] == invalidate3("trk:b:1")
    assert t["B all"] == invalidate3("trk:a:1", "trk:a:2", "trk:b:1", "trk:c")
    assert t["B only W's key"] == invalidate3("trk:c")


def orders_and_quiet_writes(port):
    """Where Redis's order of invalidations is easy to get wrong, and writes it keeps quiet."""
    t = Transcript()
    fresh(port)
    a, b, w = resp3(port), resp3(port), Conn(port)
    t["A TRACKING ON"] = a.call("CLIENT", "TRACKING", "ON")
    # RENAME onto an existing key: the source first, then the destination.
    w.call("MSET", "trk:src", "1", "trk:dst", "2")
    t["A MGET dst src"] = a.call("MGET", "trk:dst", "trk:src")
    t["W RENAME"] = w.call("RENAME", "trk:src", "trk:dst")
    t["A rename first"] = a.reply()
    t["A rename second"] = a.reply()
    # LMOVE and RPOPLPUSH: the destination (pushed first), then the source.
    w.call("RPUSH", "trk:l1", "x")
    w.call("RPUSH", "trk:l2", "y", "z")
    t["A LRANGE l1 l2"] = (a.call("LRANGE", "trk:l1", "0", "-1"),
                           a.call("LRANGE", "trk:l2", "0", "-1"))
    t["W LMOVE l2 l1"] = w.call("LMOVE", "trk:l2", "trk:l1", "LEFT", "RIGHT")
    t["A lmove first"] = a.reply()
    t["A lmove second"] = a.reply()
    t["A LRANGE again"] = (a.call("LRANGE", "trk:l1", "0", "-1"),
                           a.call("LRANGE", "trk:l2", "0", "-1"))
    t["W RPOPLPUSH l2 l1 (l2 emptied)"] = w.call("RPOPLPUSH", "trk:l2", "trk:l1")
    t["A rpoplpush first"] = a.reply()
    t["A rpoplpush second"] = a.reply()
    # A BITFIELD that OVERFLOW FAIL refuses entirely creates the key but signals nothing.
    t["A GET bf"] = a.call("GET", "trk:bf")
    t["W BITFIELD FAIL"] = w.call("BITFIELD", "trk:bf", "OVERFLOW", "FAIL", "INCRBY", "u2", "0", "9")
    t["W EXISTS bf"] = w.call("EXISTS", "trk:bf")
    t["W SET marker"] = w.call("SET", "trk:bf:after", "1")
    t["A PING (no invalidation for bf)"] = a.call("PING")
    t["W BITFIELD lands"] = w.call("BITFIELD", "trk:bf", "SET", "u2", "0", "1")
    t["A bf"] = a.reply()
    # A key the NOLOOP client's own read expires is not its own change: it hears of it.
    t["B BCAST NOLOOP"] = b.call("CLIENT", "TRACKING", "ON", "BCAST", "NOLOOP", "PREFIX", "trk:e")
    t["W active expire off"] = w.call("DEBUG", "SET-ACTIVE-EXPIRE", "0")
    t["W SET e PX 1"] = w.call("SET", "trk:e", "1", "PX", "1")
    t["B hears W's SET"] = b.reply()
    t["B own SET"] = b.call("SET", "trk:e2", "1")
    t["W DEBUG SLEEP"] = w.call("DEBUG", "SLEEP", "0.01")
    t["B GET e (expires it)"] = b.call("GET", "trk:e")
    t["B expired e"] = b.reply()
    t["W active expire on"] = w.call("DEBUG", "SET-ACTIVE-EXPIRE", "1")
    # The overlap error names the client's existing prefixes in byte order, not as added.
    t["B TRACKING OFF"] = b.call("CLIENT", "TRACKING", "OFF")
    t["B prefixes z then b"] = b.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "z",
                                      "PREFIX", "bc")
    t["B overlapping both"] = b.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "")
    for c in (a, b, w):
        c.close()
    return t


def test_invalidation_orders_and_quiet_writes(target, reference):
    t = same_as_redis(target, reference, orders_and_quiet_writes)
    assert (t["A rename first"], t["A rename second"]) == (invalidate3("trk:src"),
                                                           invalidate3("trk:dst"))
    assert (t["A lmove first"], t["A lmove second"]) == (invalidate3("trk:l1"),
                                                         invalidate3("trk:l2"))
    assert t["A PING (no invalidation for bf)"] == b"+PONG\r\n"
    assert t["A bf"] == invalidate3("trk:bf")
    assert t["B expired e"] == invalidate3("trk:e")
    assert t["B overlapping both"] == (
        b"-ERR Prefix '' overlaps with an existing prefix 'bc'. "
        b"Prefixes for a single client must not overlap.\r\n")


def optin_optout(port):
    t = Transcript()
    fresh(port)
    a, b, w = resp3(port), resp3(port), Conn(port)
    t["A OPTIN"] = a.call("CLIENT", "TRACKING", "ON", "OPTIN")
    t["A GET not cached"] = a.call("GET", "trk:1")
    t["A CACHING YES"] = a.call("CLIENT", "CACHING", "YES")
    t["A GET cached"] = a.call("GET", "trk:2")
    t["A GET after"] = a.call("GET", "trk:3")
    t["A TRACKINGINFO"] = a.call("CLIENT", "TRACKINGINFO")
    t["A CACHING YES MULTI"] = a.call("CLIENT", "CACHING", "YES")
    t["A MULTI"] = a.call("MULTI")
    t["A GET 4"] = a.call("GET", "trk:4")
    t["A GET 5"] = a.call("GET", "trk:5")
    t["A EXEC"] = a.call("EXEC")
    t["B OPTOUT"] = b.call("CLIENT", "TRACKING", "ON", "OPTOUT")
    t["B CACHING NO"] = b.call("CLIENT", "CACHING", "NO")
    t["B GET 1 not cached"] = b.call("GET", "trk:1")
    t["B GET 2"] = b.call("GET", "trk:2")
    t["W MSET"] = w.call("MSET", *[x for i in range(1, 6) for x in ("trk:%d" % i, "v")])
    t["A 2"] = a.reply()
    t["A 4"] = a.reply()
    t["A 5"] = a.reply()
    t["B 2"] = b.reply()
    t["A PING"] = a.call("PING")
    t["B PING"] = b.call("PING")
    t["A CACHING NO in OPTIN"] = a.call("CLIENT", "CACHING", "NO")
    t["B CACHING YES in OPTOUT"] = b.call("CLIENT", "CACHING", "YES")
    t["A CACHING maybe"] = a.call("CLIENT", "CACHING", "maybe")
    t["A switch to OPTOUT"] = a.call("CLIENT", "TRACKING", "ON", "OPTOUT")
    t["A off"] = a.call("CLIENT", "TRACKING", "OFF")
    t["A CACHING when off"] = a.call("CLIENT", "CACHING", "YES")
    t["A TRACKINGINFO off"] = a.call("CLIENT", "TRACKINGINFO")
    t["A GETREDIR off"] = a.call("CLIENT", "GETREDIR")
    for c in (a, b, w):
        c.close()
    return t


def test_optin_and_optout(target, reference):
    t = same_as_redis(target, reference, optin_optout)
    assert t["A 2"] == invalidate3("trk:2")
    assert t["B 2"] == invalidate3("trk:2")


def errors(port):
    t = Transcript()
    fresh(port)
    a = Conn(port)
    cases = [
        ("CLIENT", "TRACKING", "ON", "PREFIX", "x"),
        ("CLIENT", "TRACKING", "ON", "BCAST", "OPTIN"),
        ("CLIENT", "TRACKING", "ON", "OPTIN", "OPTOUT"),
        ("CLIENT", "TRACKING", "ON", "REDIRECT", "999999"),
        ("CLIENT", "TRACKING", "ON", "REDIRECT", "abc"),
        ("CLIENT", "TRACKING", "ON", "REDIRECT", "0"),
        ("CLIENT", "TRACKING", "ON", "BOGUS"),
        ("CLIENT", "TRACKING", "MAYBE"),
        ("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "ab", "PREFIX", "a"),
        ("CLIENT", "TRACKING"),
        ("CLIENT", "CACHING"),
        ("CLIENT", "GETREDIR", "x"),
        ("CLIENT", "TRACKINGINFO", "x"),
        ("CLIENT", "TRACKING", "ON"),
        ("CLIENT", "TRACKING", "ON", "BCAST"),
        ("CLIENT", "TRACKING", "ON", "OPTIN"),
        ("CLIENT", "TRACKING", "ON", "OPTOUT"),
        ("CLIENT", "TRACKING", "OFF"),
        ("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "p"),
        ("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "p"),
        ("CLIENT", "TRACKING", "ON"),
        ("CLIENT", "TRACKINGINFO"),
        ("CLIENT", "TRACKING", "OFF"),
    ]
    for i, args in enumerate(cases):
        t["%d %s" % (i, " ".join(args))] = a.call(*args)
    own = a.call("CLIENT", "TRACKING", "ON", "REDIRECT", str(a.id()))
    t["REDIRECT to itself"] = own
    a.close()
    return t


def test_errors_and_mode_switches(target, reference):
    t = same_as_redis(target, reference, errors)
    assert t["0 CLIENT TRACKING ON PREFIX x"] == (
        b"-ERR PREFIX option requires BCAST mode to be enabled\r\n")


def table_limit(port):
    t = Transcript()
    fresh(port)
    a, w = resp3(port), Conn(port)
    t["A TRACKING ON"] = a.call("CLIENT", "TRACKING", "ON")
    t["A MGET"] = a.call("MGET", "trk:l1", "trk:l2", "trk:l3")
    t["keys before"] = info_lines(w, "tracking_total_keys")
    t["W limit 1"] = w.call("CONFIG", "SET", "tracking-table-max-keys", "1")
    # The next command (anyone's) brings the table back under the limit.
    t["W PING"] = w.call("PING")
    evicted = set()
    for _ in range(2):
        evicted.update(parse(a.reply())[1])
    t["A two keys invalidated"] = len(evicted)
    t["keys after"] = info_lines(w, "tracking_total_keys")
    t["W limit back"] = w.call("CONFIG", "SET", "tracking-table-max-keys", "1000000")
    a.close()
    w.close()
    return t


def test_table_limit_invalidates_keys(target, reference):
    t = same_as_redis(target, reference, table_limit)
    assert t["keys before"] == ["tracking_total_keys:3"]
    assert t["keys after"] == ["tracking_total_keys:1"]


def reply_off(port):
    t = Transcript()
    fresh(port)
    a, w = resp3(port), Conn(port)
    a.call("CLIENT", "TRACKING", "ON")
    a.call("GET", "trk:r")
    a.send("CLIENT", "REPLY", "OFF")
    w.call("SET", "trk:r", "1")
    # The push still comes, though replies do not.
    t["A invalidate while replies are off"] = a.reply()
    a.send("CLIENT", "REPLY", "ON")
    t["A ON"] = a.reply()
    a.close()
    w.close()
    return t


def test_invalidations_pass_client_reply_off(target, reference):
    t = same_as_redis(target, reference, reply_off)
    assert t["A invalidate while replies are off"] == invalidate3("trk:r")


def test_redis_py_redirect_to_a_pubsub_connection(target, connections):
    """redis-py's RESP2 way: a pub/sub connection subscribed to __redis__:invalidate gets the
    invalidations of the connection that redirects to it."""
    writer = connections(target.port)
    listener = connections(target.port)
    pubsub = listener.pubsub()
    pubsub.subscribe("__redis__:invalidate")
    assert pubsub.get_message(timeout=5)["type"] == "subscribe"
    reader = connections(target.port, single_connection_client=True)
    subscribers = writer.client_list(_type="pubsub")
    assert len(subscribers) == 1, subscribers
    listener_id = int(subscribers[0]["id"])
    reader.execute_command("CLIENT", "TRACKING", "ON", "REDIRECT", listener_id)
    writer.set("trk:py", "1")
    assert reader.get("trk:py") == b"1"
    writer.set("trk:py", "2")
    message = pubsub.get_message(timeout=5)
    assert message["channel"] == b"__redis__:invalidate"
    assert message["data"] == [b"trk:py"]
    pubsub.close()
    with pytest.raises(redis.ResponseError, match="does not exist"):
        reader.execute_command("CLIENT", "TRACKING", "ON", "REDIRECT", 987654321)
