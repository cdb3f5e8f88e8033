"""Blocking commands across two and three raw connections, on redis-server and warden.

BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP, BZPOPMIN, BZPOPMAX and BZMPOP: who is served, in
which order, with which bytes, and what is left behind. Each scenario is a function of a port
that drives its connections (resp_conn.Conn, raw sockets) and returns a Transcript: every
reply by step, as the exact bytes the server sent, plus states observed from another
connection (CLIENT LIST fields, INFO counters). A test runs the scenario on its server and
asserts what matters (who got what); on warden it also runs the scenario on redis-server and
requires the same transcript, step for step. Client ids never enter a transcript, since they
legitimately differ.

There are no sleeps. Before pushing, a scenario polls CLIENT LIST from another connection
until the waiter shows flag b (for at most WAIT_S seconds, then the test fails). Both servers
serve a push's waiters before they answer the pusher, so once the pusher's reply has been
read, who is still blocked is settled and can be checked the same way.

This file is who gets served; how a wait ends otherwise (timeouts, CLIENT UNBLOCK, a
disconnect) and what surrounds it (CLIENT LIST, wrong types, pipelining, databases) is in
test_blocking_endings.py, and blocking inside scripts and MULTI in test_blocking_contexts.py.
"""

import pytest

from blocking_transcripts import *  # noqa: F401,F403 (the builders and transcript helpers)
from resp_conn import Conn

# --- 1. BLPOP woken by LPUSH -------------------------------------------------------------------

def blpop_woken_by_lpush(port):
    t = Transcript()
    q, = names("lpush", "q")
    with connections(port, 2) as (b, a):
        a.send("BLPOP", q, "0")
        wait_blocked(b, a)
        t["B LPUSH q a b"] = b.call("LPUSH", q, "a", "b")
        t["A BLPOP"] = a.reply()
        t["B LLEN q"] = b.call("LLEN", q)
        t["blocked_clients"] = blocked_clients(b)
    return t


def test_blpop_is_woken_by_lpush(target, reference):
    t = same_as_redis(target, reference, blpop_woken_by_lpush)
    q, = names("lpush", "q")
    assert t["B LPUSH q a b"] == integer(2)  # the length before the waiter took one
    assert t["A BLPOP"] == bulks(q, "b")  # LPUSH a b leaves b at the head
    assert t["B LLEN q"] == integer(1)
    assert t["blocked_clients"] == 0


# --- 2. First come, first served ---------------------------------------------------------------

def fifo_one_push_of_two(port):
    t = Transcript()
    q, = names("fifo2", "q")
    with connections(port, 3) as (b, a, c):
        a.send("BLPOP", q, "0")
        wait_blocked(b, a)
        c.send("BLPOP", q, "0")
        wait_blocked(b, c)
        t["B RPUSH q 1 2"] = b.call("RPUSH", q, "1", "2")
        t["A BLPOP"] = a.reply()
        t["C BLPOP"] = c.reply()
        t["B LLEN q"] = b.call("LLEN", q)
    return t


def test_waiters_are_served_in_the_order_they_blocked(target, reference):
    t = same_as_redis(target, reference, fifo_one_push_of_two)
    q, = names("fifo2", "q")
    assert t["B RPUSH q 1 2"] == integer(2)
    assert t["A BLPOP"] == bulks(q, "1")
    assert t["C BLPOP"] == bulks(q, "2")
    assert t["B LLEN q"] == integer(0)


def fifo_one_element(port):
    t = Transcript()
    q, = names("fifo1", "q")
    with connections(port, 3) as (b, a, c):
        a.send("BLPOP", q, "0")
        wait_blocked(b, a)
        c.send("BLPOP", q, "0")
        wait_blocked(b, c)
        t["B RPUSH q 1"] = b.call("RPUSH", q, "1")
        t["A BLPOP"] = a.reply()
        t["C blocked"] = is_blocked(b, c)
        t["blocked_clients after one"] = blocked_clients(b)
        t["B EXISTS q"] = b.call("EXISTS", q)
        t["B RPUSH q 2"] = b.call("RPUSH", q, "2")
        t["C BLPOP"] = c.reply()
        t["blocked_clients after two"] = blocked_clients(b)
    return t


def test_one_element_serves_the_first_waiter_and_the_next_push_the_second(target, reference):
    t = same_as_redis(target, reference, fifo_one_element)
    q, = names("fifo1", "q")
    assert t["B RPUSH q 1"] == integer(1)
    assert t["A BLPOP"] == bulks(q, "1")
    assert t["C blocked"] is True
    assert t["blocked_clients after one"] == 1
    assert t["B EXISTS q"] == integer(0)
    assert t["B RPUSH q 2"] == integer(1)
    assert t["C BLPOP"] == bulks(q, "2")
    assert t["blocked_clients after two"] == 0


# --- 3. One client, several keys ---------------------------------------------------------------

def multi_key_one_push(port):
    t = Transcript()
    ka, kb = names("multikey", "a", "b")
    with connections(port, 2) as (b, a):
        a.send("BLPOP", ka, kb, "0")
        wait_blocked(b, a)
        t["B RPUSH b x"] = b.call("RPUSH", kb, "x")
        t["A BLPOP"] = a.reply()
        t["B EXISTS a b"] = b.call("EXISTS", ka, kb)
    return t


def test_a_client_blocked_on_several_keys_is_served_by_the_key_that_gets_data(target,
                                                                             reference):
    t = same_as_redis(target, reference, multi_key_one_push)
    ka, kb = names("multikey", "a", "b")
    assert t["B RPUSH b x"] == integer(1)
    assert t["A BLPOP"] == bulks(kb, "x")
    assert t["B EXISTS a b"] == integer(0)


def multi_key_b_then_a(writer):
    """A waits on `a b`; B pushes y to b and then z to a in one script or one transaction."""

    def scenario(port):
        t = Transcript()
        ka, kb = names("firstready-" + writer, "a", "b")
        with connections(port, 2) as (b, a):
            a.send("BLPOP", ka, kb, "0")
            wait_blocked(b, a)
            if writer == "script":
                t["B EVAL"] = b.call(
                    "EVAL", "redis.call('rpush', KEYS[1], 'y') redis.call('rpush', KEYS[2], 'z')",
                    "2", kb, ka)
            else:
                t["B MULTI"] = b.call("MULTI")
                t["B RPUSH b y"] = b.call("RPUSH", kb, "y")
                t["B RPUSH a z"] = b.call("RPUSH", ka, "z")
                t["B EXEC"] = b.call("EXEC")
            t["A BLPOP"] = a.reply()
            t["B LRANGE a"] = b.call("LRANGE", ka, "0", "-1")
            t["B EXISTS b"] = b.call("EXISTS", kb)
        return t

    return scenario


@pytest.mark.parametrize("writer", ["script", "exec"])
def test_several_keys_are_served_by_the_first_key_made_ready_not_argument_order(
        target, reference, writer):
    t = same_as_redis(target, reference, multi_key_b_then_a(writer))
    ka, kb = names("firstready-" + writer, "a", "b")
    if writer == "script":
        assert t["B EVAL"] == b"$-1\r\n"
    else:
        assert t["B EXEC"] == array(integer(1), integer(1))
    assert t["A BLPOP"] == bulks(kb, "y")
    assert t["B LRANGE a"] == bulks("z")
    assert t["B EXISTS b"] == integer(0)


# --- 4. Pushes inside a script -----------------------------------------------------------------

def script_pushes_twice(port):
    t = Transcript()
    q, = names("scriptpush", "q")
    with connections(port, 2) as (b, a):
        a.send("BLPOP", q, "0")
        wait_blocked(b, a)
        t["B EVAL lpush first, lpush second, llen"] = b.call(
            "EVAL", "redis.call('lpush', KEYS[1], 'first') "
            "redis.call('lpush', KEYS[1], 'second') return redis.call('llen', KEYS[1])", "1", q)
        t["A BLPOP"] = a.reply()
        t["B LRANGE q"] = b.call("LRANGE", q, "0", "-1")
    return t


def test_a_push_inside_a_script_serves_the_waiter_after_the_script(target, reference):
    t = same_as_redis(target, reference, script_pushes_twice)
    q, = names("scriptpush", "q")
    # The script saw both elements: nothing was served while it ran.
    assert t["B EVAL lpush first, lpush second, llen"] == integer(2)
    # The waiter pops the list's final head, not the first element pushed.
    assert t["A BLPOP"] == bulks(q, "second")
    assert t["B LRANGE q"] == bulks("first")


def script_pushes_and_pops(port):
    t = Transcript()
    q, = names("scriptpushpop", "q")
    with connections(port, 2) as (b, a):
        a.send("BLPOP", q, "0")
        wait_blocked(b, a)
        t["B EVAL rpush x, lpop"] = b.call(
            "EVAL", "redis.call('rpush', KEYS[1], 'x') return redis.call('lpop', KEYS[1])",
            "1", q)
        t["A blocked"] = is_blocked(b, a)
        t["blocked_clients"] = blocked_clients(b)
        t["B EXISTS q"] = b.call("EXISTS", q)
        t["B RPUSH q y"] = b.call("RPUSH", q, "y")
        t["A BLPOP"] = a.reply()
    return t


def test_a_script_that_pushes_and_pops_the_element_leaves_the_waiter_blocked(target, reference):
    t = same_as_redis(target, reference, script_pushes_and_pops)
    q, = names("scriptpushpop", "q")
    assert t["B EVAL rpush x, lpop"] == bulk("x")
    assert t["A blocked"] is True
    assert t["blocked_clients"] == 1
    assert t["B EXISTS q"] == integer(0)
    assert t["B RPUSH q y"] == integer(1)
    assert t["A BLPOP"] == bulks(q, "y")


# --- 5. BLMOVE / BRPOPLPUSH chains -------------------------------------------------------------

CHAINS = {
    # A moves from src to dst; C pops dst.
    "blmove": (lambda src, dst: ("BLMOVE", src, dst, "LEFT", "RIGHT", "0"),
               lambda dst: ("BLPOP", dst, "0")),
    "brpoplpush": (lambda src, dst: ("BRPOPLPUSH", src, dst, "0"),
                   lambda dst: ("BRPOP", dst, "0")),
}


def move_chain(kind):
    def scenario(port):
        t = Transcript()
        src, dst = names("chain-" + kind, "src", "dst")
        mover, popper = CHAINS[kind]
        with connections(port, 3) as (b, a, c):
            a.send(*mover(src, dst))
            wait_blocked(b, a)
            c.send(*popper(dst))
            wait_blocked(b, c)
            t["B RPUSH src x y"] = b.call("RPUSH", src, "x", "y")
            t["A moved"] = a.reply()
            t["C popped"] = c.reply()
            t["B LRANGE src"] = b.call("LRANGE", src, "0", "-1")
            t["B EXISTS dst"] = b.call("EXISTS", dst)
            t["blocked_clients"] = blocked_clients(b)
        return t

    return scenario


@pytest.mark.parametrize("kind", list(CHAINS))
def test_a_move_serves_the_client_blocked_on_its_destination_in_the_same_round(
        target, reference, kind):
    t = same_as_redis(target, reference, move_chain(kind))
    src, dst = names("chain-" + kind, "src", "dst")
    taken, left = ("x", "y") if kind == "blmove" else ("y", "x")  # LEFT vs BRPOPLPUSH's right
    assert t["B RPUSH src x y"] == integer(2)
    assert t["A moved"] == bulk(taken)
    assert t["C popped"] == bulks(dst, taken)
    assert t["B LRANGE src"] == bulks(left)
    assert t["B EXISTS dst"] == integer(0)
    assert t["blocked_clients"] == 0


# --- 6. BZPOPMIN / BZPOPMAX --------------------------------------------------------------------

def bzpop_woken_by_zadd(command, proto):
    def scenario(port):
        t = Transcript()
        z, = names("bzpop-%s-%d" % (command, proto), "z")
        with connections(port, 2) as (b, a):
            if proto == 3:
                hello3(a)
            a.send(command, z, "0")
            wait_blocked(b, a)
            t["B ZADD z 1.5 a 3 b"] = b.call("ZADD", z, "1.5", "a", "3", "b")
            t["A " + command] = a.reply()
            t["B ZRANGE z WITHSCORES"] = b.call("ZRANGE", z, "0", "-1", "WITHSCORES")
        return t

    return scenario


@pytest.mark.parametrize("proto", [2, 3])
@pytest.mark.parametrize("command", ["BZPOPMIN", "BZPOPMAX"])
def test_bzpop_is_woken_by_zadd(target, reference, command, proto):
    t = same_as_redis(target, reference, bzpop_woken_by_zadd(command, proto))
    z, = names("bzpop-%s-%d" % (command, proto), "z")
    member, value, left = ("a", "1.5", ("b", "3")) if command == "BZPOPMIN" else \
        ("b", "3", ("a", "1.5"))
    assert t["B ZADD z 1.5 a 3 b"] == integer(2)
    # A flat triple in both protocols; only the score's type changes.
    assert t["A " + command] == array(bulk(z), bulk(member), score(value, proto))
    assert t["B ZRANGE z WITHSCORES"] == bulks(*left)


# --- 7. BLMPOP and BZMPOP with COUNT -----------------------------------------------------------

def mpop_with_count(command, where, proto):
    def scenario(port):
        t = Transcript()
        k1, k2 = names("mpop-%s-%s-%d" % (command, where, proto), "k1", "k2")
        with connections(port, 2) as (b, a):
            if proto == 3:
                hello3(a)
            a.send(command, "0", "2", k1, k2, where, "COUNT", "2")
            wait_blocked(b, a)
            if command == "BLMPOP":
                t["B push"] = b.call("RPUSH", k2, "a", "b", "c")
                t["A " + command] = a.reply()
                t["B left"] = b.call("LRANGE", k2, "0", "-1")
            else:
                t["B push"] = b.call("ZADD", k2, "1", "a", "2.5", "b", "3", "c")
                t["A " + command] = a.reply()
                t["B left"] = b.call("ZRANGE", k2, "0", "-1", "WITHSCORES")
            t["B EXISTS k1"] = b.call("EXISTS", k1)
        return t

    return scenario


@pytest.mark.parametrize("proto", [2, 3])
@pytest.mark.parametrize("command,where", [("BLMPOP", "LEFT"), ("BLMPOP", "RIGHT"),
                                           ("BZMPOP", "MIN"), ("BZMPOP", "MAX")])
def test_mpop_with_count_takes_several_from_the_key_pushed(target, reference, command, where,
                                                           proto):
    t = same_as_redis(target, reference, mpop_with_count(command, where, proto))
    k1, k2 = names("mpop-%s-%s-%d" % (command, where, proto), "k1", "k2")
    assert t["B push"] == integer(3)
    if command == "BLMPOP":
        taken, left = (("a", "b"), "c") if where == "LEFT" else (("c", "b"), "a")
        assert t["A BLMPOP"] == array(bulk(k2), bulks(*taken))
        assert t["B left"] == bulks(left)
    else:
        taken, left = ((("a", "1"), ("b", "2.5")), ("c", "3")) if where == "MIN" else \
            ((("c", "3"), ("b", "2.5")), ("a", "1"))
        pairs = [array(bulk(m), score(s, proto)) for m, s in taken]
        assert t["A BZMPOP"] == array(bulk(k2), array(*pairs))
        assert t["B left"] == bulks(*left)
    assert t["B EXISTS k1"] == integer(0)
