"""Blocking commands where they cannot wait: inside scripts and queued in MULTI (they run at
once), and warden's own test-double controls (DEBUG CLOCK, DROP-CLIENTS, SIMULATE-RESTART) acting
on blocked clients. Same side-by-side method as test_blocking.py."""

import contextlib
import hashlib

import pytest

from blocking_transcripts import *  # noqa: F401,F403 (the builders and transcript helpers)
from resp_conn import Conn

# --- 15. Blocking commands inside scripts ------------------------------------------------------

def lua_call(command, timeout="0"):
    """A script that calls `command` on KEYS[1] (and KEYS[2] as destination)."""
    argv = BLOCKING[command]("KEYS[1]", "KEYS[2]", timeout)[1:]
    lua_args = ", ".join(a if a.startswith("KEYS[") or a == timeout else "'%s'" % a
                         for a in argv)
    return "return redis.call('%s', %s)" % (command, lua_args)


ZSET_COMMANDS = {"bzpopmin", "bzpopmax", "bzmpop"}
REFUSED_IN_SCRIPTS = ["blpop", "brpop", "brpoplpush", "blmove", "bzpopmin", "bzpopmax"]


def refused_in_a_script(command):
    def scenario(port):
        t = Transcript()
        k, d = names("script-" + command, "k", "d")
        with connections(port, 2) as (b, a):
            body = lua_call(command)
            t["A EVAL"] = a.call("EVAL", body, "2", k, d)
            if command in ZSET_COMMANDS:
                t["B push"] = b.call("ZADD", k, "1", "v")
            else:
                t["B push"] = b.call("RPUSH", k, "v")
            t["A EVAL with data"] = a.call("EVAL", body, "2", k, d)
            t["A EVAL pcall"] = a.call("EVAL", body.replace("redis.call", "redis.pcall"),
                                       "2", k, d)
            t["B EXISTS k"] = b.call("EXISTS", k)
            t["blocked_clients"] = blocked_clients(b)
        return t

    return scenario


def sha1_hex(text):
    return hashlib.sha1(text.encode()).hexdigest()


@pytest.mark.parametrize("command", REFUSED_IN_SCRIPTS)
def test_blocking_pops_other_than_mpop_are_refused_in_scripts(target, reference, command):
    t = same_as_redis(target, reference, refused_in_a_script(command))
    sha = sha1_hex(lua_call(command))
    refused = ("-ERR This Redis command is not allowed from script script: %s, "
               "on @user_script:1.\r\n" % sha).encode()
    assert t["A EVAL"] == refused
    assert t["B push"] == integer(1)
    assert t["A EVAL with data"] == refused  # refused before the key is looked at
    # redis.pcall returns the error table without the script location.
    assert t["A EVAL pcall"] == b"-ERR This Redis command is not allowed from script\r\n"
    assert t["B EXISTS k"] == integer(1)
    assert t["blocked_clients"] == 0


def mpop_in_a_script(command, proto):
    def scenario(port):
        t = Transcript()
        k, = names("scriptmpop-%s-%d" % (command, proto), "k")
        with connections(port, 2) as (b, a):
            if proto == 3:
                hello3(a)
            body = lua_call(command)
            t["A EVAL empty"] = a.call("EVAL", body, "1", k)
            t["blocked_clients"] = blocked_clients(b)
            if command == "blmpop":
                t["B push"] = b.call("RPUSH", k, "a", "b")
            else:
                t["B push"] = b.call("ZADD", k, "1.5", "a", "2", "b")
            t["A EVAL with data"] = a.call("EVAL", body, "1", k)
            t["A EVAL negative timeout"] = a.call("EVAL", lua_call(command, "-1"), "1", k)
            t["B left"] = b.call("LRANGE" if command == "blmpop" else "ZRANGE", k, "0", "-1")
        return t

    return scenario


@pytest.mark.parametrize("proto", [2, 3])
@pytest.mark.parametrize("command", ["blmpop", "bzmpop"])
def test_mpop_in_a_script_returns_at_once(target, reference, command, proto):
    t = same_as_redis(target, reference, mpop_in_a_script(command, proto))
    k, = names("scriptmpop-%s-%d" % (command, proto), "k")
    # Lua false: a null bulk in RESP2, RESP3's null for a RESP3 caller.
    assert t["A EVAL empty"] == (NULL if proto == 3 else b"$-1\r\n")
    assert t["blocked_clients"] == 0
    if command == "blmpop":
        assert t["A EVAL with data"] == array(bulk(k), bulks("a"))
        assert t["B left"] == bulks("b")
    else:
        # The script sees RESP2 replies, so the score is a string in both protocols.
        assert t["A EVAL with data"] == array(bulk(k), array(bulks("a", "1.5")))
        assert t["B left"] == bulks("b")
    sha = sha1_hex(lua_call(command, "-1"))
    assert t["A EVAL negative timeout"] == (
        "-ERR timeout is negative script: %s, on @user_script:1.\r\n" % sha).encode()


# --- 16. Duplicate keys and one waiter per push ------------------------------------------------

def duplicate_keys(port):
    t = Transcript()
    q, = names("dup", "q")
    with connections(port, 2) as (b, a):
        a.send("BLPOP", q, q, "0")
        wait_blocked(b, a)
        t["blocked_clients"] = blocked_clients(b)
        t["B RPUSH q x y"] = b.call("RPUSH", q, "x", "y")
        t["A BLPOP"] = a.reply()
        t["B LRANGE q"] = b.call("LRANGE", q, "0", "-1")
        t["blocked_clients after"] = blocked_clients(b)
    return t


def test_a_key_listed_twice_is_one_wait_served_once(target, reference):
    t = same_as_redis(target, reference, duplicate_keys)
    q, = names("dup", "q")
    assert t["blocked_clients"] == 1
    assert t["B RPUSH q x y"] == integer(2)
    assert t["A BLPOP"] == bulks(q, "x")
    assert t["B LRANGE q"] == bulks("y")
    assert t["blocked_clients after"] == 0


def one_waiter_per_push(port):
    t = Transcript()
    q, = names("perpush", "q")
    with connections(port, 4) as (b, a, c, d):
        for conn in (a, c, d):
            conn.send("BLPOP", q, "0")
            wait_blocked(b, conn)
        name = {a: "A", c: "C", d: "D"}
        for value, served, still in [("1", a, (c, d)), ("2", c, (d,)), ("3", d, ())]:
            t["B RPUSH q " + value] = b.call("RPUSH", q, value)
            t[name[served] + " BLPOP"] = served.reply()
            t["still blocked after " + value] = [is_blocked(b, x) for x in still]
            t["blocked_clients after " + value] = blocked_clients(b)
    return t


def test_three_waiters_are_served_one_per_single_element_push(target, reference):
    t = same_as_redis(target, reference, one_waiter_per_push)
    q, = names("perpush", "q")
    for value, name, still in [("1", "A", 2), ("2", "C", 1), ("3", "D", 0)]:
        assert t["B RPUSH q " + value] == integer(1)
        assert t[name + " BLPOP"] == bulks(q, value)
        assert t["still blocked after " + value] == [True] * still
        assert t["blocked_clients after " + value] == still


# --- Blocking commands queued in MULTI (not a wait: they run at once) --------------------------

def blocking_in_multi(proto):
    def scenario(port):
        t = Transcript()
        k, d = names("multi-%d" % proto, "k", "d")
        with connections(port, 2) as (b, a):
            if proto == 3:
                hello3(a)
            t["A MULTI"] = a.call("MULTI")
            for command in BLOCKING:
                t["A " + command] = a.call(*BLOCKING[command](k, d, "0"))
            t["A EXEC"] = a.call("EXEC")
            t["blocked_clients"] = blocked_clients(b)
        return t

    return scenario


@pytest.mark.parametrize("proto", [2, 3])
def test_blocking_commands_in_multi_run_without_blocking(target, reference, proto):
    t = same_as_redis(target, reference, blocking_in_multi(proto))
    for command in BLOCKING:
        assert t["A " + command] == b"+QUEUED\r\n"
    # BLMOVE and BRPOPLPUSH answer a null bulk here, a null array on a real timeout.
    null_bulk = NULL if proto == 3 else b"$-1\r\n"
    replies = [null_bulk if c in ("brpoplpush", "blmove") else timed_out(proto)
               for c in BLOCKING]
    assert t["A EXEC"] == array(*replies)
    assert t["blocked_clients"] == 0


# --- 17. warden's test-double controls (warden only) -------------------------------------------

warden_only = pytest.mark.parametrize("target", ["warden"], indirect=True)


@warden_only
def test_a_frozen_clock_times_out_exactly_when_advanced_past_the_deadline(target):
    q, = names("clock", "q")
    with connections(target.port, 2) as (b, a):
        try:
            assert b.call("DEBUG", "CLOCK", "FREEZE") == OK
            a.send("BLPOP", q, "30")
            wait_blocked(b, a)
            assert b.call("DEBUG", "CLOCK", "ADVANCE", "29999") == OK
            assert is_blocked(b, a)
            assert blocked_clients(b) == 1
            assert b.call("DEBUG", "CLOCK", "ADVANCE", "1") == OK
            assert a.reply() == NULL_ARRAY
            assert blocked_clients(b) == 0
            assert a.call("PING") == b"+PONG\r\n"
        finally:
            b.call("DEBUG", "CLOCK", "REAL")


@warden_only
def test_drop_clients_closes_a_blocked_client_and_leaves_no_waiter(target):
    q, = names("drop", "q")
    with connections(target.port, 2) as (b, a):
        a.send("BLPOP", q, "0")
        wait_blocked(b, a)
        assert b.call("DEBUG", "DROP-CLIENTS") == OK
        assert a.read_until_eof() == b""
        assert blocked_clients(b) == 0
        assert b.call("RPUSH", q, "x") == integer(1)
        assert b.call("LLEN", q) == integer(1)


@warden_only
def test_simulate_restart_closes_every_client_and_forgets_waiters_and_data(target):
    q, other = names("restart", "q", "other")
    with connections(target.port, 2) as (b, a):
        assert b.call("RPUSH", other, "kept?") == integer(1)
        a.send("BLPOP", q, "0")
        wait_blocked(b, a)
        assert b.call("DEBUG", "SIMULATE-RESTART") == OK
        # The caller's connection closes too, after its reply.
        assert b.read_until_eof() == b""
        assert a.read_until_eof() == b""
    with Conn(target.port) as c:
        assert blocked_clients(c) == 0
        assert c.call("DBSIZE") == integer(0)
        assert c.call("RPUSH", q, "x") == integer(1)
        assert c.call("LLEN", q) == integer(1)
        assert c.value("CLIENT", "LIST").count(b"\n") == 1
