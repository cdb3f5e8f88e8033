"""MULTI/EXEC/WATCH across two raw connections, on redis-server and warden, RESP2 and RESP3.

Each scenario is a function of a port returning a Transcript of exact reply bytes; on warden
it also runs on redis-server and the two transcripts must be equal step for step (the pattern
of test_blocking.py, whose helpers it shares). What one connection can show alone is in
tests/differential/cases/transactions.txt.
"""

import threading
import time

import pytest

from blocking_transcripts import (Transcript, array, bulk, client_fields, connections, hello3,
                           integer, names, same_as_redis)

OK = b"+OK\r\n"
QUEUED = b"+QUEUED\r\n"
EXECABORT = b"-EXECABORT Transaction discarded because of previous errors.\r\n"
WAIT_S = 5


def failed_exec(proto):
    return b"_\r\n" if proto == 3 else b"*-1\r\n"


def watch_then(key, writer, proto, setup=()):
    """A: (setup) WATCH key; B: writer; A: MULTI, INCR counter, EXEC."""
    def scenario(port):
        t = Transcript()
        with connections(port, 2) as (a, b):
            if proto == 3:
                hello3(a)
            for step in setup:
                t["A " + " ".join(step)] = a.call(*step)
            t["A WATCH"] = a.call("WATCH", key)
            for step in writer:
                t["B " + " ".join(step)] = b.call(*step)
            t["A MULTI"] = a.call("MULTI")
            t["A INCR"] = a.call("INCR", key + ":counter")
            t["A EXEC"] = a.call("EXEC")
            t["B GET counter"] = b.call("GET", key + ":counter")
        return t

    return scenario


PROTOS = pytest.mark.parametrize("proto", [2, 3])


@PROTOS
def test_a_write_by_another_client_fails_exec(target, reference, proto):
    (k,) = names("race-%d" % proto, "k")
    t = same_as_redis(target, reference, watch_then(k, [("SET", k, "theirs")], proto,
                                                    setup=[("SET", k, "mine")]))
    assert t["A EXEC"] == failed_exec(proto)
    assert t["B GET counter"] == b"$-1\r\n"


@PROTOS
def test_the_same_value_written_again_fails_exec(target, reference, proto):
    (k,) = names("same-%d" % proto, "k")
    t = same_as_redis(target, reference, watch_then(k, [("SET", k, "v")], proto,
                                                    setup=[("SET", k, "v")]))
    assert t["A EXEC"] == failed_exec(proto)


@PROTOS
def test_writes_that_change_nothing_do_not_fail_exec(target, reference, proto):
    (k,) = names("noop-%d" % proto, "k")
    writes = [("SET", k, "x", "NX"), ("PERSIST", k), ("EXPIRE", k, "100", "XX"), ("GET", k),
              ("SELECT", "1"), ("SET", k, "elsewhere"), ("DEL", k), ("SELECT", "0")]
    t = same_as_redis(target, reference, watch_then(k, writes, proto, setup=[("SET", k, "v")]))
    assert t["A EXEC"] == array(integer(1))


@PROTOS
def test_flushdb_fails_exec_only_when_the_key_exists(target, reference, proto):
    (k,) = names("flush-%d" % proto, "k")
    t = same_as_redis(target, reference, watch_then(k, [("FLUSHDB",)], proto))
    assert t["A EXEC"] == array(integer(1))
    t = same_as_redis(target, reference, watch_then(k, [("FLUSHALL",)], proto,
                                                    setup=[("SET", k, "v")]))
    assert t["A EXEC"] == failed_exec(proto)


@PROTOS
def test_swapdb_fails_exec_when_the_key_exists_in_either_database(target, reference, proto):
    (k,) = names("swap-%d" % proto, "k")
    writer = [("SELECT", "1"), ("SET", k, "in-one"), ("SWAPDB", "0", "1"), ("SELECT", "0")]
    t = same_as_redis(target, reference, watch_then(k, writer, proto))
    assert t["A EXEC"] == failed_exec(proto)


@PROTOS
def test_rename_and_move_fail_exec(target, reference, proto):
    (k, other) = names("rename-%d" % proto, "k", "other")
    t = same_as_redis(target, reference, watch_then(k, [("RENAME", other, k)], proto,
                                                    setup=[("SET", other, "v")]))
    assert t["A EXEC"] == failed_exec(proto)
    t = same_as_redis(target, reference, watch_then(k, [("MOVE", k, "2")], proto,
                                                    setup=[("SET", k, "v")]))
    assert t["A EXEC"] == failed_exec(proto)


def expires_after_watch(proto, removed_by_other):
    def scenario(port):
        t = Transcript()
        (k,) = names("expiry-%d-%s" % (proto, removed_by_other), "k")
        with connections(port, 2) as (a, b):
            if proto == 3:
                hello3(a)
            t["B DEBUG SET-ACTIVE-EXPIRE 0"] = b.call("DEBUG", "SET-ACTIVE-EXPIRE", "0")
            try:
                t["A SET PX"] = a.call("SET", k, "v", "PX", "30")
                t["A WATCH"] = a.call("WATCH", k)
                # The key's deadline passes; B sees it logically gone (EXISTS removes it) or
                # only waits by polling the time, which removes nothing.
                deadline = time.monotonic() + WAIT_S
                start = b.value("TIME")
                while True:
                    now = b.value("TIME")
                    elapsed_us = ((int(now[0]) - int(start[0])) * 1000000
                                  + int(now[1]) - int(start[1]))
                    if elapsed_us > 60000:
                        break
                    assert time.monotonic() < deadline
                if removed_by_other:
                    t["B EXISTS"] = b.call("EXISTS", k)
                t["A MULTI"] = a.call("MULTI")
                t["A PING"] = a.call("PING")
                t["A EXEC"] = a.call("EXEC")
            finally:
                b.call("DEBUG", "SET-ACTIVE-EXPIRE", "1")
        return t

    return scenario


@PROTOS
@pytest.mark.parametrize("removed_by_other", [False, True])
def test_a_key_expiring_after_watch_fails_exec(target, reference, proto, removed_by_other):
    t = same_as_redis(target, reference, expires_after_watch(proto, removed_by_other))
    assert t["A EXEC"] == failed_exec(proto)


def refused_while_queueing(proto):
    def scenario(port):
        t = Transcript()
        (k,) = names("abort-%d" % proto, "k")
        with connections(port, 2) as (a, b):
            if proto == 3:
                hello3(a)
            t["A MULTI"] = a.call("MULTI")
            t["A INCR"] = a.call("INCR", k)
            t["A NOSUCH"] = a.call("NOSUCHCOMMAND", k)
            t["A GET"] = a.call("GET", k, "extra")
            fields = client_fields(b, a)
            t["B CLIENT LIST flags"] = fields["flags"]
            t["B CLIENT LIST multi"] = fields["multi"]
            t["A EXEC"] = a.call("EXEC")
            t["B EXISTS"] = b.call("EXISTS", k)
            fields = client_fields(b, a)
            t["B CLIENT LIST flags after"] = fields["flags"]
            t["B CLIENT LIST multi after"] = fields["multi"]
        return t

    return scenario


@PROTOS
def test_a_refusal_while_queueing_aborts_exec(target, reference, proto):
    t = same_as_redis(target, reference, refused_while_queueing(proto))
    assert t["A EXEC"] == EXECABORT
    assert t["B EXISTS"] == integer(0)
    assert (t["B CLIENT LIST flags"], t["B CLIENT LIST multi"]) == ("x", "1")
    assert (t["B CLIENT LIST flags after"], t["B CLIENT LIST multi after"]) == ("N", "-1")


def others_served_during_a_long_multi(port):
    """A queues many commands in one pipelined write; B is answered meanwhile and after."""
    t = Transcript()
    (k,) = names("long", "k")
    n = 100000
    with connections(port, 2) as (a, b):
        a.send("MULTI")
        request = ("*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nv\r\n" % (len(k), k)).encode() * n
        # Sent from a thread: a server may stop reading until the QUEUED replies are taken.
        sender = threading.Thread(target=a.send_raw, args=(request,))
        sender.start()
        t["B PING"] = b.call("PING")
        t["A MULTI"] = a.reply()
        queued = [a.reply() for _ in range(n)]
        sender.join()
        t["A all QUEUED"] = all(r == QUEUED for r in queued)
        t["B CLIENT LIST multi"] = client_fields(b, a)["multi"]
        t["A DISCARD"] = a.call("DISCARD")
        t["B EXISTS"] = b.call("EXISTS", k)
    return t


def test_a_long_transaction_is_queued_while_others_are_served(target, reference):
    t = same_as_redis(target, reference, others_served_during_a_long_multi)
    assert t["A all QUEUED"] is True
    assert t["B CLIENT LIST multi"] == "100000"
    assert t["B EXISTS"] == integer(0)


def pushes_in_exec_wake_a_waiter(proto):
    def scenario(port):
        from blocking_transcripts import wait_blocked
        t = Transcript()
        (q,) = names("execwake-%d" % proto, "q")
        with connections(port, 2) as (a, w):
            if proto == 3:
                hello3(w)
            w.send("BLPOP", q, "0")
            wait_blocked(a, w)
            t["A MULTI"] = a.call("MULTI")
            t["A RPUSH"] = a.call("RPUSH", q, "x")
            t["A LPOP"] = a.call("LPOP", q)
            t["A RPUSH again"] = a.call("RPUSH", q, "y", "z")
            t["A EXEC"] = a.call("EXEC")
            t["W BLPOP"] = w.reply()
            t["A LRANGE"] = a.call("LRANGE", q, "0", "-1")
        return t

    return scenario


@PROTOS
def test_pushes_inside_exec_serve_a_waiter_after_exec(target, reference, proto):
    t = same_as_redis(target, reference, pushes_in_exec_wake_a_waiter(proto))
    (q,) = names("execwake-%d" % proto, "q")
    assert t["A EXEC"] == array(integer(1), bulk("x"), integer(2))
    assert t["W BLPOP"] == array(bulk(q), bulk("y"))
    assert t["A LRANGE"] == array(bulk("z"))


def disconnect_while_watching(port):
    """A watches and queues, then disconnects; B's write to the key finds nobody watching."""
    t = Transcript()
    (k,) = names("gone", "k")
    with connections(port, 2) as (b, a):
        t["A WATCH"] = a.call("WATCH", k)
        t["A MULTI"] = a.call("MULTI")
        t["A SET"] = a.call("SET", k, "never")
        a.close()
        # Until the server has seen the close, A is still listed.
        deadline = time.monotonic() + WAIT_S
        while b"cmd=set" in b.value("CLIENT", "LIST"):
            assert time.monotonic() < deadline, "the closed client is still listed"
        t["B SET"] = b.call("SET", k, "mine")
        t["B GET"] = b.call("GET", k)
    return t


def test_a_client_that_disconnects_while_watching_leaves_nothing_behind(target, reference):
    t = same_as_redis(target, reference, disconnect_while_watching)
    assert t["B SET"] == OK
    assert t["B GET"] == bulk("mine")
