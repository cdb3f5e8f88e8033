"""Blocking stream reads across several raw connections, on redis-server and warden.

XREAD BLOCK and XREADGROUP BLOCK, with the method of test_blocking.py: each scenario is a
function of a port that drives raw connections (resp_conn.Conn) and returns a Transcript of
every reply's exact bytes and of states observed from another connection (CLIENT LIST fields,
INFO counters, XPENDING, XINFO); a test asserts what matters and, on warden, requires the same
transcript as redis-server's, step for step. No sleeps: before writing, a scenario polls
CLIENT LIST until the waiter shows flag b, and once the writer's reply has been read, who was
served is settled.

Entry ids are always given explicitly (XADD s 1-1 ...), never `*`, so that ids, XPENDING and
XINFO GROUPS compare byte for byte across servers. XINFO CONSUMERS is recorded as (name,
pending) pairs only: its idle times differ from run to run.

Covered: `$` (the last id when the client blocked), several streams, explicit ids served at
once, timeouts (RESP2 and RESP3), entries added in one EXEC or script (all of them, at most
1000 without COUNT, COUNT honoured), several waiters on one stream, XREADGROUP served and
pending, FIFO within a group, NOACK, the stream key removed (DEL, UNLINK, SET, RENAME, MOVE,
EXPIRE, FLUSHDB, FLUSHALL) and the group destroyed under a group waiter, a plain XREAD waiter
outliving DEL and SET, another database, a departed group waiter, CLIENT UNBLOCK, BLOCK in
MULTI and in scripts, RESP3 reply shapes, a group with undelivered entries, XGROUP SETID under
a waiter, and the errors given before blocking.
"""

import hashlib

import pytest

from blocking_transcripts import *  # noqa: F401,F403 (the builders and transcript helpers)
from resp_conn import parse


# --- Builders and observations for streams -----------------------------------------------------

def entry(entry_id, *fields):
    """One stream entry as XREAD returns it: [id, [field, value, ...]]."""
    return array(bulk(entry_id), bulks(*fields))


def streams_reply(proto, *streams):
    """XREAD's and XREADGROUP's reply for (key, [entry, ...]) pairs: an array of [key, entries]
    pairs in RESP2, a map of key -> entries in RESP3."""
    if proto == 3:
        return b"%%%d\r\n" % len(streams) + b"".join(bulk(k) + array(*es) for k, es in streams)
    return array(*(array(bulk(k), array(*es)) for k, es in streams))


def consumers(observer, key, group):
    """XINFO CONSUMERS as [(name, pending), ...] (idle times left out), or the error reply."""
    reply = observer.value("XINFO", "CONSUMERS", key, group)
    if not isinstance(reply, list):
        return reply
    pairs = []
    for consumer in reply:
        fields = dict(zip(consumer[0::2], consumer[1::2]))
        pairs.append((fields[b"name"].decode(), fields[b"pending"]))
    return pairs


def pending_summary(count, first, last, *per_consumer):
    """XPENDING key group's summary reply; per_consumer is (name, count) pairs."""
    return array(integer(count), bulk(first), bulk(last),
                 array(*(bulks(name, str(n)) for name, n in per_consumer)))


NO_PENDING = b"*4\r\n:0\r\n$-1\r\n$-1\r\n*-1\r\n"  # XPENDING key group with nothing pending
KEY_GONE = b"-UNBLOCKED the stream key no longer exists\r\n"
GROUP_GONE = b"-NOGROUP the consumer group this client was blocked on no longer exists\r\n"


def xreadgroup(group, consumer, key, *options, block="0", last=">"):
    return ("XREADGROUP", "GROUP", group, consumer) + options + ("BLOCK", block, "STREAMS",
                                                                 key, last)


# --- 1. XREAD BLOCK on `$` woken by XADD -------------------------------------------------------

def xread_dollar(existing):
    def scenario(port):
        t = Transcript()
        s, = names("dollar-%s" % existing, "s")
        with connections(port, 2) as (b, a):
            if existing:
                t["B XADD s 1-1 (before A blocks)"] = b.call("XADD", s, "1-1", "f", "old")
            a.send("XREAD", "BLOCK", "0", "STREAMS", s, "$")
            wait_blocked(b, a)
            fields = client_fields(b, a)
            t["A flags while blocked"] = fields["flags"]
            t["A cmd while blocked"] = fields["cmd"]
            t["blocked_clients while A waits"] = blocked_clients(b)
            t["B XADD s 2-1"] = b.call("XADD", s, "2-1", "f", "new")
            t["A XREAD"] = a.reply()
            t["B XLEN s"] = b.call("XLEN", s)
            t["blocked_clients"] = blocked_clients(b)
            t["A flags after"] = client_fields(b, a)["flags"]
        return t

    return scenario


@pytest.mark.parametrize("existing", [True, False], ids=["stream-exists", "no-stream"])
def test_xread_on_dollar_gets_only_the_entry_added_after_it_blocked(target, reference,
                                                                   existing):
    t = same_as_redis(target, reference, xread_dollar(existing))
    s, = names("dollar-%s" % existing, "s")
    assert t["A flags while blocked"] == "b"
    assert t["A cmd while blocked"] == "xread"
    assert t["blocked_clients while A waits"] == 1
    assert t["B XADD s 2-1"] == bulk("2-1")
    # Not 1-1: `$` is the last id at the time of blocking, not the start of the stream.
    assert t["A XREAD"] == streams_reply(2, (s, [entry("2-1", "f", "new")]))
    assert t["B XLEN s"] == integer(2 if existing else 1)  # XREAD consumes nothing
    assert t["blocked_clients"] == 0
    assert t["A flags after"] == "N"


# --- 2. Several streams ------------------------------------------------------------------------

def xread_two_streams(writer):
    def scenario(port):
        t = Transcript()
        s1, s2 = names("twostreams-" + writer, "s1", "s2")
        with connections(port, 2) as (b, a):
            t["B XADD s1 1-1"] = b.call("XADD", s1, "1-1", "f", "old")
            a.send("XREAD", "BLOCK", "0", "STREAMS", s1, s2, "$", "$")
            wait_blocked(b, a)
            if writer == "one":
                t["B XADD s2 1-1"] = b.call("XADD", s2, "1-1", "f", "v2")
            else:  # s2 then s1 in one transaction
                t["B MULTI"] = b.call("MULTI")
                t["B XADD s2 1-1"] = b.call("XADD", s2, "1-1", "f", "v2")
                t["B XADD s1 2-1"] = b.call("XADD", s1, "2-1", "f", "v1")
                t["B EXEC"] = b.call("EXEC")
            t["A XREAD"] = a.reply()
            t["blocked_clients"] = blocked_clients(b)
            # Read again at once (not blocking) from the ids A started from.
            t["A XREAD s1 1-1 s2 0"] = a.call("XREAD", "STREAMS", s1, s2, "1-1", "0")
        return t

    return scenario


@pytest.mark.parametrize("writer", ["one", "exec"])
def test_xread_on_two_streams_replies_with_the_stream_that_got_an_entry(target, reference,
                                                                        writer):
    t = same_as_redis(target, reference, xread_two_streams(writer))
    s1, s2 = names("twostreams-" + writer, "s1", "s2")
    # Only the second stream, even when s1 also got an entry in the same EXEC: a waiter is
    # served from the first key made ready, like BLPOP.
    assert t["A XREAD"] == streams_reply(2, (s2, [entry("1-1", "f", "v2")]))
    assert t["blocked_clients"] == 0
    if writer == "one":
        assert t["A XREAD s1 1-1 s2 0"] == streams_reply(2, (s2, [entry("1-1", "f", "v2")]))
    else:
        assert t["B EXEC"] == array(bulk("1-1"), bulk("2-1"))
        assert t["A XREAD s1 1-1 s2 0"] == streams_reply(
            2, (s1, [entry("2-1", "f", "v1")]), (s2, [entry("1-1", "f", "v2")]))


# --- 3. Explicit ids ---------------------------------------------------------------------------

def xread_explicit_ids(port):
    t = Transcript()
    s, = names("explicit", "s")
    with connections(port, 2) as (b, a):
        for n in (1, 2, 3):
            t["B XADD s %d-1" % n] = b.call("XADD", s, "%d-1" % n, "f", "v%d" % n)
        # Each of these has entries after its id: answered at once, never blocked.
        t["A XREAD BLOCK 0 STREAMS s 1-1"] = a.call("XREAD", "BLOCK", "0", "STREAMS", s, "1-1")
        t["A XREAD COUNT 1 BLOCK 0 STREAMS s 0"] = a.call("XREAD", "COUNT", "1", "BLOCK", "0",
                                                          "STREAMS", s, "0")
        t["A XREAD BLOCK 0 STREAMS s 2"] = a.call("XREAD", "BLOCK", "0", "STREAMS", s, "2")
        t["blocked_clients after the served reads"] = blocked_clients(b)
        # The last id itself: nothing after it, so A blocks.
        a.send("XREAD", "BLOCK", "0", "STREAMS", s, "3-1")
        wait_blocked(b, a)
        t["B XADD s 4-1"] = b.call("XADD", s, "4-1", "f", "v4")
        t["A XREAD BLOCK 0 STREAMS s 3-1"] = a.reply()
        # An id above the last one blocks until an entry above that id arrives.
        a.send("XREAD", "BLOCK", "0", "STREAMS", s, "9-0")
        wait_blocked(b, a)
        t["B XADD s 5-1"] = b.call("XADD", s, "5-1", "f", "v5")
        t["A blocked after 5-1"] = is_blocked(b, a)
        t["B XADD s 9-1"] = b.call("XADD", s, "9-1", "f", "v9")
        t["A XREAD BLOCK 0 STREAMS s 9-0"] = a.reply()
    return t


def test_xread_with_an_id_below_the_last_is_served_at_once(target, reference):
    t = same_as_redis(target, reference, xread_explicit_ids)
    s, = names("explicit", "s")
    assert t["A XREAD BLOCK 0 STREAMS s 1-1"] == streams_reply(
        2, (s, [entry("2-1", "f", "v2"), entry("3-1", "f", "v3")]))
    assert t["A XREAD COUNT 1 BLOCK 0 STREAMS s 0"] == streams_reply(
        2, (s, [entry("1-1", "f", "v1")]))
    # "2" is 2-0: 2-1 comes after it.
    assert t["A XREAD BLOCK 0 STREAMS s 2"] == streams_reply(
        2, (s, [entry("2-1", "f", "v2"), entry("3-1", "f", "v3")]))
    assert t["blocked_clients after the served reads"] == 0
    assert t["A XREAD BLOCK 0 STREAMS s 3-1"] == streams_reply(2, (s, [entry("4-1", "f", "v4")]))
    assert t["A blocked after 5-1"] is True
    assert t["A XREAD BLOCK 0 STREAMS s 9-0"] == streams_reply(2, (s, [entry("9-1", "f", "v9")]))


# --- 4. Timeouts -------------------------------------------------------------------------------

def times_out(command, proto):
    def scenario(port):
        t = Transcript()
        s, = names("timeout-%s-%d" % (command, proto), "s")
        with connections(port, 2) as (b, a):
            if proto == 3:
                hello3(a)
            t["B XGROUP CREATE s g $ MKSTREAM"] = b.call("XGROUP", "CREATE", s, "g", "$",
                                                         "MKSTREAM")
            start = time.monotonic()
            if command == "xread":
                a.send("XREAD", "BLOCK", "100", "STREAMS", s, "$")
            else:
                a.send(*xreadgroup("g", "c1", s, block="100"))
            t["A " + command] = a.reply()
            t.notes["elapsed"] = time.monotonic() - start
            t["A PING"] = a.call("PING")
            t["blocked_clients"] = blocked_clients(b)
            t["B XINFO CONSUMERS"] = consumers(b, s, "g")
            t["B XLEN s"] = b.call("XLEN", s)
        return t

    return scenario


@pytest.mark.parametrize("proto", [2, 3])
@pytest.mark.parametrize("command", ["xread", "xreadgroup"])
def test_a_block_timeout_replies_null(target, reference, command, proto):
    t = same_as_redis(target, reference, times_out(command, proto))
    assert t["A " + command] == timed_out(proto)  # *-1 in RESP2, _ in RESP3
    assert t.notes["elapsed"] >= 0.095  # BLOCK is in milliseconds; a lower bound only
    assert t["A PING"] == b"+PONG\r\n"
    assert t["blocked_clients"] == 0
    assert t["B XINFO CONSUMERS"] == []  # a consumer is made when served, not when blocked
    assert t["B XLEN s"] == integer(0)


# --- 5. Several entries at once: all of them, COUNT, the default cap of 1000 -------------------

def several_entries(writer, count):
    def scenario(port):
        t = Transcript()
        s, = names("several-%s-%s" % (writer, count), "s")
        with connections(port, 2) as (b, a):
            options = () if count is None else ("COUNT", str(count))
            a.send("XREAD", *options, "BLOCK", "0", "STREAMS", s, "$")
            wait_blocked(b, a)
            if writer == "exec":
                t["B MULTI"] = b.call("MULTI")
                for n in (1, 2, 3):
                    t["B XADD s %d-1" % n] = b.call("XADD", s, "%d-1" % n, "f", "v%d" % n)
                t["B EXEC"] = b.call("EXEC")
            else:
                t["B EVAL xadd 1-1 2-1 3-1"] = b.call(
                    "EVAL", "for i = 1, 3 do redis.call('xadd', KEYS[1], i .. '-1', 'f', "
                    "'v' .. i) end return redis.call('xlen', KEYS[1])", "1", s)
            t["A XREAD"] = a.reply()
            t["blocked_clients"] = blocked_clients(b)
        return t

    return scenario


@pytest.mark.parametrize("count", [None, 2], ids=["no-count", "count-2"])
@pytest.mark.parametrize("writer", ["exec", "script"])
def test_entries_added_together_are_served_together_up_to_count(target, reference, writer,
                                                                count):
    t = same_as_redis(target, reference, several_entries(writer, count))
    s, = names("several-%s-%s" % (writer, count), "s")
    if writer == "exec":
        assert t["B EXEC"] == array(bulk("1-1"), bulk("2-1"), bulk("3-1"))
    else:
        assert t["B EVAL xadd 1-1 2-1 3-1"] == integer(3)
    served = [entry("%d-1" % n, "f", "v%d" % n) for n in (1, 2, 3)]
    assert t["A XREAD"] == streams_reply(2, (s, served[:count]))
    assert t["blocked_clients"] == 0


def summary(raw):
    """A long XREAD reply (RESP2, one stream) as (entries, first id, last id, sha1 of the
    bytes): comparable across servers without printing it all."""
    value = parse(raw)
    if not isinstance(value, list):
        return raw
    entries = value[0][1]
    return (len(entries), entries[0][0].decode(), entries[-1][0].decode(),
            hashlib.sha1(raw).hexdigest())


def default_count(port):
    t = Transcript()
    s, = names("cap", "s")
    with connections(port, 2) as (b, a):
        a.send("XREAD", "BLOCK", "0", "STREAMS", s, "$")
        wait_blocked(b, a)
        t["B EVAL xadd 1001 entries"] = b.call(
            "EVAL", "for i = 1, 1001 do redis.call('xadd', KEYS[1], i .. '-1', 'f', i) end "
            "return redis.call('xlen', KEYS[1])", "1", s)
        t["A XREAD (blocked)"] = summary(a.reply())
        t["A XREAD STREAMS s 0 (not blocked)"] = summary(a.call("XREAD", "STREAMS", s, "0"))
        t["A XREAD BLOCK 0 STREAMS s 0 (served at once)"] = summary(
            a.call("XREAD", "BLOCK", "0", "STREAMS", s, "0"))
    return t


def test_a_blocked_xread_without_count_is_served_at_most_1000_entries(target, reference):
    t = same_as_redis(target, reference, default_count)
    assert t["B EVAL xadd 1001 entries"] == integer(1001)
    assert t["A XREAD (blocked)"][:3] == (1000, "1-1", "1000-1")
    # Only a served waiter has the cap: a read answered at once returns everything.
    assert t["A XREAD STREAMS s 0 (not blocked)"][:3] == (1001, "1-1", "1001-1")
    assert t["A XREAD BLOCK 0 STREAMS s 0 (served at once)"][:3] == (1001, "1-1", "1001-1")


# --- 6. Several waiters on one stream ----------------------------------------------------------

def every_reader_served(port):
    t = Transcript()
    s, = names("readers", "s")
    with connections(port, 4) as (b, a, c, d):
        t["B XGROUP CREATE s g $ MKSTREAM"] = b.call("XGROUP", "CREATE", s, "g", "$",
                                                     "MKSTREAM")
        a.send("XREAD", "BLOCK", "0", "STREAMS", s, "$")
        wait_blocked(b, a)
        c.send("XREAD", "BLOCK", "0", "STREAMS", s, "0")
        wait_blocked(b, c)
        d.send(*xreadgroup("g", "c1", s))
        wait_blocked(b, d)
        t["blocked_clients while they wait"] = blocked_clients(b)
        t["B XADD s 1-1"] = b.call("XADD", s, "1-1", "f", "v")
        t["A XREAD"] = a.reply()
        t["C XREAD"] = c.reply()
        t["D XREADGROUP"] = d.reply()
        t["blocked_clients"] = blocked_clients(b)
        t["B XLEN s"] = b.call("XLEN", s)
        t["B XPENDING s g"] = b.call("XPENDING", s, "g")
    return t


def test_one_xadd_serves_every_xread_waiter_and_a_group_waiter(target, reference):
    t = same_as_redis(target, reference, every_reader_served)
    s, = names("readers", "s")
    served = streams_reply(2, (s, [entry("1-1", "f", "v")]))
    assert t["blocked_clients while they wait"] == 3
    assert t["A XREAD"] == served
    assert t["C XREAD"] == served
    assert t["D XREADGROUP"] == served
    assert t["blocked_clients"] == 0
    assert t["B XLEN s"] == integer(1)
    assert t["B XPENDING s g"] == pending_summary(1, "1-1", "1-1", ("c1", 1))


# --- 7. XREADGROUP served: pending entries and the consumer ------------------------------------

def xreadgroup_served(port):
    t = Transcript()
    s, = names("group", "s")
    with connections(port, 2) as (b, a):
        t["B XGROUP CREATE s g $ MKSTREAM"] = b.call("XGROUP", "CREATE", s, "g", "$",
                                                     "MKSTREAM")
        t["B XINFO CONSUMERS before"] = consumers(b, s, "g")
        a.send(*xreadgroup("g", "c1", s))
        wait_blocked(b, a)
        fields = client_fields(b, a)
        t["A flags while blocked"] = fields["flags"]
        t["A cmd while blocked"] = fields["cmd"]
        t["B XINFO CONSUMERS while A waits"] = consumers(b, s, "g")
        t["B XPENDING while A waits"] = b.call("XPENDING", s, "g")
        t["B XADD s 1-1"] = b.call("XADD", s, "1-1", "f", "v")
        t["A XREADGROUP"] = a.reply()
        t["B XPENDING s g"] = b.call("XPENDING", s, "g")
        t["B XINFO CONSUMERS after"] = consumers(b, s, "g")
        t["B XINFO GROUPS s"] = b.call("XINFO", "GROUPS", s)
        t["A XREADGROUP history 0"] = a.call(*xreadgroup("g", "c1", s, last="0"))
        t["blocked_clients"] = blocked_clients(b)
    return t


def test_xreadgroup_served_by_xadd_leaves_the_entry_pending_for_its_consumer(target,
                                                                             reference):
    t = same_as_redis(target, reference, xreadgroup_served)
    s, = names("group", "s")
    served = streams_reply(2, (s, [entry("1-1", "f", "v")]))
    assert t["B XINFO CONSUMERS before"] == []
    assert t["A flags while blocked"] == "b"
    assert t["A cmd while blocked"] == "xreadgroup"
    assert t["B XINFO CONSUMERS while A waits"] == []  # not made by blocking
    assert t["B XPENDING while A waits"] == NO_PENDING
    assert t["A XREADGROUP"] == served
    assert t["B XPENDING s g"] == pending_summary(1, "1-1", "1-1", ("c1", 1))
    assert t["B XINFO CONSUMERS after"] == [("c1", 1)]
    assert b"last-delivered-id\r\n$3\r\n1-1\r\n" in t["B XINFO GROUPS s"]
    assert t["A XREADGROUP history 0"] == served
    assert t["blocked_clients"] == 0


# --- 8. Two waiters in one group: first come, first served -------------------------------------

def group_fifo(port):
    t = Transcript()
    s, = names("groupfifo", "s")
    with connections(port, 3) as (b, a, c):
        t["B XGROUP CREATE s g $ MKSTREAM"] = b.call("XGROUP", "CREATE", s, "g", "$",
                                                     "MKSTREAM")
        a.send(*xreadgroup("g", "c1", s))
        wait_blocked(b, a)
        c.send(*xreadgroup("g", "c2", s))
        wait_blocked(b, c)
        t["B XADD s 1-1"] = b.call("XADD", s, "1-1", "f", "v1")
        t["A XREADGROUP"] = a.reply()
        t["C blocked after one entry"] = is_blocked(b, c)
        t["blocked_clients after one entry"] = blocked_clients(b)
        t["B XADD s 2-1"] = b.call("XADD", s, "2-1", "f", "v2")
        t["C XREADGROUP"] = c.reply()
        t["blocked_clients after two"] = blocked_clients(b)
        t["B XPENDING s g"] = b.call("XPENDING", s, "g")
        t["B XINFO CONSUMERS"] = consumers(b, s, "g")
    return t


def test_one_entry_serves_the_first_group_waiter_and_the_next_entry_the_second(target,
                                                                               reference):
    t = same_as_redis(target, reference, group_fifo)
    s, = names("groupfifo", "s")
    assert t["A XREADGROUP"] == streams_reply(2, (s, [entry("1-1", "f", "v1")]))
    assert t["C blocked after one entry"] is True
    assert t["blocked_clients after one entry"] == 1
    assert t["C XREADGROUP"] == streams_reply(2, (s, [entry("2-1", "f", "v2")]))
    assert t["blocked_clients after two"] == 0
    assert t["B XPENDING s g"] == pending_summary(2, "1-1", "2-1", ("c1", 1), ("c2", 1))
    assert t["B XINFO CONSUMERS"] == [("c1", 1), ("c2", 1)]


def group_waiter_departs(port):
    t = Transcript()
    s, = names("groupgone", "s")
    with connections(port, 3) as (b, a, c):
        t["B XGROUP CREATE s g $ MKSTREAM"] = b.call("XGROUP", "CREATE", s, "g", "$",
                                                     "MKSTREAM")
        a.send(*xreadgroup("g", "c1", s))
        wait_blocked(b, a)
        c.send(*xreadgroup("g", "c2", s))
        wait_blocked(b, c)
        a.close()
        wait_blocked_count(b, 1)
        t["B XADD s 1-1"] = b.call("XADD", s, "1-1", "f", "v")
        t["C XREADGROUP"] = c.reply()
        t["B XPENDING s g"] = b.call("XPENDING", s, "g")
        t["B XINFO CONSUMERS"] = consumers(b, s, "g")
    return t


def test_a_departed_group_waiter_passes_its_turn_to_the_next(target, reference):
    t = same_as_redis(target, reference, group_waiter_departs)
    s, = names("groupgone", "s")
    assert t["C XREADGROUP"] == streams_reply(2, (s, [entry("1-1", "f", "v")]))
    assert t["B XPENDING s g"] == pending_summary(1, "1-1", "1-1", ("c2", 1))
    assert t["B XINFO CONSUMERS"] == [("c2", 1)]  # c1 blocked but was never made


# --- 9. NOACK ----------------------------------------------------------------------------------

def noack(port):
    t = Transcript()
    s, = names("noack", "s")
    with connections(port, 2) as (b, a):
        t["B XGROUP CREATE s g $ MKSTREAM"] = b.call("XGROUP", "CREATE", s, "g", "$",
                                                     "MKSTREAM")
        a.send(*xreadgroup("g", "c1", s, "NOACK"))
        wait_blocked(b, a)
        t["B XADD s 1-1"] = b.call("XADD", s, "1-1", "f", "v")
        t["A XREADGROUP NOACK"] = a.reply()
        t["B XPENDING s g"] = b.call("XPENDING", s, "g")
        t["B XINFO CONSUMERS"] = consumers(b, s, "g")
        t["B XINFO GROUPS s"] = b.call("XINFO", "GROUPS", s)
        t["A XREADGROUP history 0"] = a.call(*xreadgroup("g", "c1", s, last="0"))
    return t


def test_xreadgroup_noack_served_leaves_nothing_pending(target, reference):
    t = same_as_redis(target, reference, noack)
    s, = names("noack", "s")
    assert t["A XREADGROUP NOACK"] == streams_reply(2, (s, [entry("1-1", "f", "v")]))
    assert t["B XPENDING s g"] == NO_PENDING
    assert t["B XINFO CONSUMERS"] == [("c1", 0)]
    assert b"last-delivered-id\r\n$3\r\n1-1\r\n" in t["B XINFO GROUPS s"]
    assert t["A XREADGROUP history 0"] == streams_reply(2, (s, []))


# --- 10. The stream or the group goes away under a group waiter --------------------------------

GONE = {  # how B removes the stream key while A waits in a group
    "DEL": lambda s: ("DEL", s),
    "UNLINK": lambda s: ("UNLINK", s),
    "SET": lambda s: ("SET", s, "str"),
    "RENAME": lambda s: ("RENAME", s, s + "-renamed"),
    "MOVE": lambda s: ("MOVE", s, "1"),
    "EXPIRE": lambda s: ("EXPIRE", s, "0"),
    "FLUSHDB": lambda s: ("FLUSHDB",),
    "FLUSHALL": lambda s: ("FLUSHALL",),
}


def group_key_gone(how):
    def scenario(port):
        t = Transcript()
        s, = names("keygone-" + how, "s")
        with connections(port, 2) as (b, a):
            t["B XGROUP CREATE s g $ MKSTREAM"] = b.call("XGROUP", "CREATE", s, "g", "$",
                                                         "MKSTREAM")
            a.send(*xreadgroup("g", "c1", s))
            wait_blocked(b, a)
            t["B " + how] = b.call(*GONE[how](s))
            t["A blocked after " + how] = is_blocked(b, a)
            t["A XREADGROUP"] = a.reply()
            t["blocked_clients"] = blocked_clients(b)
            t["A PING"] = a.call("PING")
            t["B EXISTS s"] = b.call("EXISTS", s)
        return t

    return scenario


@pytest.mark.parametrize("how", list(GONE))
def test_a_group_waiter_whose_stream_key_goes_away_gets_unblocked(target, reference, how):
    t = same_as_redis(target, reference, group_key_gone(how))
    assert t["B " + how] == (integer(1) if how in ("DEL", "UNLINK", "MOVE", "EXPIRE") else OK)
    # Answered before B's reply: a waiter in a group cannot outlive its key.
    assert t["A blocked after " + how] is False
    assert t["A XREADGROUP"] == KEY_GONE
    assert t["blocked_clients"] == 0
    assert t["A PING"] == b"+PONG\r\n"
    assert t["B EXISTS s"] == integer(1 if how == "SET" else 0)


def group_destroyed(port):
    t = Transcript()
    s, = names("groupdestroy", "s")
    with connections(port, 3) as (b, a, c):
        t["B XGROUP CREATE s g $ MKSTREAM"] = b.call("XGROUP", "CREATE", s, "g", "$",
                                                     "MKSTREAM")
        t["B XGROUP CREATE s other $"] = b.call("XGROUP", "CREATE", s, "other", "$")
        a.send(*xreadgroup("g", "c1", s))
        wait_blocked(b, a)
        c.send(*xreadgroup("other", "c1", s))
        wait_blocked(b, c)
        t["B XGROUP DESTROY s g"] = b.call("XGROUP", "DESTROY", s, "g")
        t["A XREADGROUP"] = a.reply()
        t["C blocked after DESTROY"] = is_blocked(b, c)
        t["blocked_clients"] = blocked_clients(b)
        t["B XGROUP CREATE s g $ (again)"] = b.call("XGROUP", "CREATE", s, "g", "$")
        t["B XADD s 1-1"] = b.call("XADD", s, "1-1", "f", "v")
        t["C XREADGROUP"] = c.reply()
        t["B XPENDING s g"] = b.call("XPENDING", s, "g")
        t["A PING"] = a.call("PING")
    return t


def test_a_group_waiter_whose_group_is_destroyed_gets_nogroup(target, reference):
    t = same_as_redis(target, reference, group_destroyed)
    s, = names("groupdestroy", "s")
    assert t["B XGROUP DESTROY s g"] == integer(1)
    assert t["A XREADGROUP"] == GROUP_GONE
    assert t["C blocked after DESTROY"] is True  # waiting in another group of the same key
    assert t["blocked_clients"] == 1
    assert t["C XREADGROUP"] == streams_reply(2, (s, [entry("1-1", "f", "v")]))
    assert t["B XPENDING s g"] == NO_PENDING  # A was not waiting any more
    assert t["A PING"] == b"+PONG\r\n"


# --- 11. A plain XREAD waiter outlives the key -------------------------------------------------

def xread_key_deleted(port):
    t = Transcript()
    s, = names("xreaddel", "s")
    with connections(port, 2) as (b, a):
        t["B XADD s 5-1"] = b.call("XADD", s, "5-1", "f", "old")
        a.send("XREAD", "BLOCK", "0", "STREAMS", s, "$")
        wait_blocked(b, a)
        t["B DEL s"] = b.call("DEL", s)
        t["A blocked after DEL"] = is_blocked(b, a)
        t["B SET s str"] = b.call("SET", s, "str")
        t["A blocked after SET"] = is_blocked(b, a)
        t["B DEL s (the string)"] = b.call("DEL", s)
        # A new stream, but its entry is not after 5-1, the id `$` stood for when A blocked.
        t["B XADD s 1-1"] = b.call("XADD", s, "1-1", "f", "low")
        t["A blocked after XADD 1-1"] = is_blocked(b, a)
        t["B XADD s 6-1"] = b.call("XADD", s, "6-1", "f", "new")
        t["A XREAD"] = a.reply()
        t["blocked_clients"] = blocked_clients(b)
    return t


def test_an_xread_waiter_stays_blocked_when_its_key_is_deleted(target, reference):
    t = same_as_redis(target, reference, xread_key_deleted)
    s, = names("xreaddel", "s")
    assert t["B DEL s"] == integer(1)
    assert t["A blocked after DEL"] is True
    assert t["B SET s str"] == OK
    assert t["A blocked after SET"] is True
    assert t["B XADD s 1-1"] == bulk("1-1")
    assert t["A blocked after XADD 1-1"] is True
    assert t["A XREAD"] == streams_reply(2, (s, [entry("6-1", "f", "new")]))
    assert t["blocked_clients"] == 0


def xread_other_database(port):
    t = Transcript()
    s, = names("xreaddb", "s")
    with connections(port, 2) as (b, a):
        t["A SELECT 1"] = a.call("SELECT", "1")
        a.send("XREAD", "BLOCK", "0", "STREAMS", s, "$")
        wait_blocked(b, a)
        t["B XADD s 1-1 (db 0)"] = b.call("XADD", s, "1-1", "f", "db0")
        t["A blocked after the db 0 entry"] = is_blocked(b, a)
        t["B SELECT 1"] = b.call("SELECT", "1")
        t["B XADD s 1-1 (db 1)"] = b.call("XADD", s, "1-1", "f", "db1")
        t["A XREAD"] = a.reply()
    return t


def test_an_entry_in_another_database_does_not_wake_an_xread_waiter(target, reference):
    t = same_as_redis(target, reference, xread_other_database)
    s, = names("xreaddb", "s")
    assert t["A blocked after the db 0 entry"] is True
    assert t["A XREAD"] == streams_reply(2, (s, [entry("1-1", "f", "db1")]))


# --- 12. CLIENT UNBLOCK ------------------------------------------------------------------------

def client_unblock(command, reason, proto):
    def scenario(port):
        t = Transcript()
        s, = names("unblock-%s-%s-%d" % (command, reason, proto), "s")
        with connections(port, 2) as (b, a):
            if proto == 3:
                hello3(a)
            t["B XGROUP CREATE s g $ MKSTREAM"] = b.call("XGROUP", "CREATE", s, "g", "$",
                                                         "MKSTREAM")
            if command == "xread":
                a.send("XREAD", "BLOCK", "0", "STREAMS", s, "$")
            else:
                a.send(*xreadgroup("g", "c1", s))
            wait_blocked(b, a)
            extra = () if reason is None else (reason,)
            t["B CLIENT UNBLOCK A"] = b.call("CLIENT", "UNBLOCK", str(a.id()), *extra)
            t["A " + command] = a.reply()
            t["B CLIENT UNBLOCK A again"] = b.call("CLIENT", "UNBLOCK", str(a.id()), *extra)
            t["blocked_clients"] = blocked_clients(b)
            t["B XADD s 1-1"] = b.call("XADD", s, "1-1", "f", "v")
            t["A PING"] = a.call("PING")
            t["B XPENDING s g"] = b.call("XPENDING", s, "g")
            t["B XINFO CONSUMERS"] = consumers(b, s, "g")
        return t

    return scenario


@pytest.mark.parametrize("proto", [2, 3])
@pytest.mark.parametrize("command,reason", [("xread", None), ("xread", "TIMEOUT"),
                                            ("xread", "ERROR"), ("xreadgroup", "timeout"),
                                            ("xreadgroup", "error")])
def test_client_unblock_releases_a_stream_waiter(target, reference, command, reason, proto):
    t = same_as_redis(target, reference, client_unblock(command, reason, proto))
    assert t["B CLIENT UNBLOCK A"] == integer(1)
    if reason is not None and reason.upper() == "ERROR":
        assert t["A " + command] == UNBLOCKED
    else:
        assert t["A " + command] == timed_out(proto)
    assert t["B CLIENT UNBLOCK A again"] == integer(0)
    assert t["blocked_clients"] == 0
    assert t["A PING"] == b"+PONG\r\n"  # the XADD was not delivered to A
    assert t["B XPENDING s g"] == NO_PENDING
    assert t["B XINFO CONSUMERS"] == []


# --- 13. BLOCK where a client cannot wait: MULTI and scripts -----------------------------------

def block_in_multi(proto):
    def scenario(port):
        t = Transcript()
        s, = names("multi-%d" % proto, "s")
        with connections(port, 2) as (b, a):
            if proto == 3:
                hello3(a)
            t["B XADD s 1-1"] = b.call("XADD", s, "1-1", "f", "v")
            t["B XGROUP CREATE s g $"] = b.call("XGROUP", "CREATE", s, "g", "$")
            t["A MULTI"] = a.call("MULTI")
            t["A XREAD BLOCK 0 $"] = a.call("XREAD", "BLOCK", "0", "STREAMS", s, "$")
            t["A XREADGROUP BLOCK 0 >"] = a.call(*xreadgroup("g", "c1", s))
            t["A XREAD BLOCK 0 STREAMS s 0"] = a.call("XREAD", "BLOCK", "0", "STREAMS", s, "0")
            t["A EXEC"] = a.call("EXEC")
            t["blocked_clients"] = blocked_clients(b)
            t["B XINFO CONSUMERS"] = consumers(b, s, "g")
        return t

    return scenario


@pytest.mark.parametrize("proto", [2, 3])
def test_xread_block_in_multi_answers_at_once(target, reference, proto):
    t = same_as_redis(target, reference, block_in_multi(proto))
    s, = names("multi-%d" % proto, "s")
    assert t["A XREAD BLOCK 0 $"] == b"+QUEUED\r\n"
    assert t["A EXEC"] == array(timed_out(proto), timed_out(proto),
                                streams_reply(proto, (s, [entry("1-1", "f", "v")])))
    assert t["blocked_clients"] == 0


def block_in_script(port):
    t = Transcript()
    s, = names("script", "s")
    with connections(port, 2) as (b, a):
        t["B XADD s 1-1"] = b.call("XADD", s, "1-1", "f", "v")
        t["B XGROUP CREATE s g 0"] = b.call("XGROUP", "CREATE", s, "g", "0")
        for label, body in [
                ("xread $", "return redis.call('xread', 'block', '0', 'streams', KEYS[1], '$')"),
                ("xread 0", "return redis.call('xread', 'block', '0', 'streams', KEYS[1], '0')"),
                ("xreadgroup", "return redis.call('xreadgroup', 'group', 'g', 'c1', 'block', "
                               "'0', 'streams', KEYS[1], '>')"),
                ("xread no block", "return redis.call('xread', 'streams', KEYS[1], '0')")]:
            t["A EVAL " + label] = a.call("EVAL", body, "1", s)
        t["blocked_clients"] = blocked_clients(b)
        t["B XPENDING s g"] = b.call("XPENDING", s, "g")
    return t


def test_xread_block_in_a_script_is_refused(target, reference):
    t = same_as_redis(target, reference, block_in_script)
    s, = names("script", "s")
    assert t["A EVAL xread $"].startswith(
        b"-ERR xread command is not allowed with BLOCK option from scripts")
    assert t["A EVAL xread 0"].startswith(  # refused even when it would not wait
        b"-ERR xread command is not allowed with BLOCK option from scripts")
    assert t["A EVAL xreadgroup"].startswith(
        b"-ERR xreadgroup command is not allowed with BLOCK option from scripts")
    assert t["A EVAL xread no block"] == array(array(bulk(s), array(entry("1-1", "f", "v"))))
    assert t["blocked_clients"] == 0
    assert t["B XPENDING s g"] == NO_PENDING


# --- 14. RESP3 ---------------------------------------------------------------------------------

def resp3_shapes(port):
    t = Transcript()
    s1, s2 = names("resp3", "s1", "s2")
    with connections(port, 2) as (b, a):
        hello3(a)
        a.send("XREAD", "BLOCK", "0", "STREAMS", s1, s2, "$", "$")
        wait_blocked(b, a)
        t["B XADD s2 1-1"] = b.call("XADD", s2, "1-1", "f", "v")
        t["A XREAD"] = a.reply()
        t["B XGROUP CREATE s1 g $ MKSTREAM"] = b.call("XGROUP", "CREATE", s1, "g", "$",
                                                      "MKSTREAM")
        a.send(*xreadgroup("g", "c1", s1))
        wait_blocked(b, a)
        t["B XADD s1 1-1"] = b.call("XADD", s1, "1-1", "f", "w")
        t["A XREADGROUP"] = a.reply()
        t["A XREAD STREAMS s1 s2 0 0 (not blocked)"] = a.call("XREAD", "STREAMS", s1, s2, "0",
                                                              "0")
    return t


def test_resp3_stream_replies_are_maps(target, reference):
    t = same_as_redis(target, reference, resp3_shapes)
    s1, s2 = names("resp3", "s1", "s2")
    assert t["A XREAD"] == b"%1\r\n" + bulk(s2) + array(entry("1-1", "f", "v"))
    assert t["A XREADGROUP"] == streams_reply(3, (s1, [entry("1-1", "f", "w")]))
    assert t["A XREAD STREAMS s1 s2 0 0 (not blocked)"] == streams_reply(
        3, (s1, [entry("1-1", "f", "w")]), (s2, [entry("1-1", "f", "v")]))


# --- 15. A group with entries not yet delivered, and XGROUP SETID under a waiter ---------------

def group_backlog(port):
    t = Transcript()
    s, = names("backlog", "s")
    with connections(port, 2) as (b, a):
        t["B XADD s 1-1"] = b.call("XADD", s, "1-1", "f", "v1")
        t["B XADD s 2-1"] = b.call("XADD", s, "2-1", "f", "v2")
        t["B XGROUP CREATE s g 0"] = b.call("XGROUP", "CREATE", s, "g", "0")
        t["A XREADGROUP >"] = a.call(*xreadgroup("g", "c1", s))
        t["blocked_clients after >"] = blocked_clients(b)
        # History (an id, not >) is served at once even with BLOCK, even when empty.
        t["A XREADGROUP 0"] = a.call(*xreadgroup("g", "c1", s, last="0"))
        t["A XREADGROUP 0 as c2"] = a.call(*xreadgroup("g", "c2", s, last="0"))
        t["blocked_clients after history"] = blocked_clients(b)
        a.send(*xreadgroup("g", "c1", s))
        wait_blocked(b, a)
        t["B XADD s 3-1"] = b.call("XADD", s, "3-1", "f", "v3")
        t["A XREADGROUP > (blocked)"] = a.reply()
        t["B XPENDING s g"] = b.call("XPENDING", s, "g")
    return t


def test_xreadgroup_on_a_group_with_undelivered_entries_is_served_at_once(target, reference):
    t = same_as_redis(target, reference, group_backlog)
    s, = names("backlog", "s")
    both = streams_reply(2, (s, [entry("1-1", "f", "v1"), entry("2-1", "f", "v2")]))
    assert t["A XREADGROUP >"] == both
    assert t["blocked_clients after >"] == 0
    assert t["A XREADGROUP 0"] == both
    assert t["A XREADGROUP 0 as c2"] == streams_reply(2, (s, []))
    assert t["blocked_clients after history"] == 0
    assert t["A XREADGROUP > (blocked)"] == streams_reply(2, (s, [entry("3-1", "f", "v3")]))
    assert t["B XPENDING s g"] == pending_summary(3, "1-1", "3-1", ("c1", 3))


def setid_under_a_waiter(port):
    t = Transcript()
    s, = names("setid", "s")
    with connections(port, 2) as (b, a):
        t["B XADD s 1-1"] = b.call("XADD", s, "1-1", "f", "v1")
        t["B XADD s 2-1"] = b.call("XADD", s, "2-1", "f", "v2")
        t["B XGROUP CREATE s g $"] = b.call("XGROUP", "CREATE", s, "g", "$")
        a.send(*xreadgroup("g", "c1", s))
        wait_blocked(b, a)
        t["B XGROUP SETID s g 0"] = b.call("XGROUP", "SETID", s, "g", "0")
        t["A blocked after SETID"] = is_blocked(b, a)
        t["B XADD s 3-1"] = b.call("XADD", s, "3-1", "f", "v3")
        t["A XREADGROUP"] = a.reply()
        t["B XPENDING s g"] = b.call("XPENDING", s, "g")
    return t


def test_xgroup_setid_does_not_wake_a_waiter_and_the_next_xadd_serves_from_the_new_id(
        target, reference):
    t = same_as_redis(target, reference, setid_under_a_waiter)
    s, = names("setid", "s")
    assert t["B XGROUP SETID s g 0"] == OK
    assert t["A blocked after SETID"] is True
    # Served from the group's last id at the time of serving, not at the time of blocking.
    assert t["A XREADGROUP"] == streams_reply(2, (s, [entry("1-1", "f", "v1"),
                                                      entry("2-1", "f", "v2"),
                                                      entry("3-1", "f", "v3")]))
    assert t["B XPENDING s g"] == pending_summary(3, "1-1", "3-1", ("c1", 3))


# --- 16. Errors given before blocking ----------------------------------------------------------

def refusals(port):
    t = Transcript()
    s, text, missing = names("refusals", "s", "text", "missing")
    with connections(port, 2) as (b, a):
        t["B XADD s 1-1"] = b.call("XADD", s, "1-1", "f", "v")
        t["B SET text x"] = b.call("SET", text, "x")
        t["B XGROUP CREATE s g $"] = b.call("XGROUP", "CREATE", s, "g", "$")
        for label, command in [
                ("XREAD on a string", ("XREAD", "BLOCK", "0", "STREAMS", text, "$")),
                ("XREAD BLOCK -1", ("XREAD", "BLOCK", "-1", "STREAMS", s, "$")),
                ("XREAD BLOCK 1.5", ("XREAD", "BLOCK", "1.5", "STREAMS", s, "$")),
                ("XREAD BLOCK x", ("XREAD", "BLOCK", "x", "STREAMS", s, "$")),
                ("XREAD BLOCK 0 >", ("XREAD", "BLOCK", "0", "STREAMS", s, ">")),
                ("XREAD BLOCK 0 bad id", ("XREAD", "BLOCK", "0", "STREAMS", s, "1-x")),
                ("XREAD unbalanced", ("XREAD", "BLOCK", "0", "STREAMS", s, missing, "$")),
                ("XREADGROUP on a missing key", xreadgroup("g", "c1", missing)),
                ("XREADGROUP missing group", xreadgroup("nope", "c1", s)),
                ("XREADGROUP on a string", xreadgroup("g", "c1", text)),
                ("XREADGROUP $", xreadgroup("g", "c1", s, last="$")),
                ("XREADGROUP BLOCK -5", xreadgroup("g", "c1", s, block="-5"))]:
            t["A " + label] = a.call(*command)
        t["blocked_clients"] = blocked_clients(b)
        t["B XINFO CONSUMERS"] = consumers(b, s, "g")
    return t


def test_bad_blocking_stream_reads_are_refused_without_blocking(target, reference):
    t = same_as_redis(target, reference, refusals)
    assert t["A XREAD on a string"] == WRONGTYPE
    assert t["A XREAD BLOCK -1"] == b"-ERR timeout is negative\r\n"
    assert t["A XREAD BLOCK 1.5"] == b"-ERR timeout is not an integer or out of range\r\n"
    assert t["A XREAD BLOCK x"] == b"-ERR timeout is not an integer or out of range\r\n"
    assert t["A XREAD BLOCK 0 >"].startswith(b"-ERR The > ID can be specified only")
    assert t["A XREAD BLOCK 0 bad id"] == \
        b"-ERR Invalid stream ID specified as stream command argument\r\n"
    assert t["A XREAD unbalanced"].startswith(b"-ERR Unbalanced")
    assert t["A XREADGROUP on a missing key"].startswith(b"-NOGROUP No such key")
    assert t["A XREADGROUP missing group"].startswith(b"-NOGROUP No such key")
    assert t["A XREADGROUP on a string"] == WRONGTYPE
    assert t["A XREADGROUP $"].startswith(b"-ERR The $ ID is meaningless")
    assert t["A XREADGROUP BLOCK -5"] == b"-ERR timeout is negative\r\n"
    assert t["blocked_clients"] == 0
    assert t["B XINFO CONSUMERS"] == []
