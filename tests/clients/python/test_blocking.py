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

The last tests are warden's alone: its test-double controls (DEBUG CLOCK, DROP-CLIENTS,
SIMULATE-RESTART) do not exist in Redis.
"""

import contextlib
import hashlib
import time

import pytest

from resp_conn import Conn

WAIT_S = 5  # the longest a scenario waits for a client to block or a count to settle

OK = b"+OK\r\n"
NULL_ARRAY = b"*-1\r\n"  # RESP2: every blocking command's timeout, BLMOVE's too
NULL = b"_\r\n"  # RESP3's null
WRONGTYPE = b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"
UNBLOCKED = b"-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n"
NEGATIVE = b"-ERR timeout is negative\r\n"
NOT_A_FLOAT = b"-ERR timeout is not a float or out of range\r\n"


# --- RESP builders for the expectations -------------------------------------------------------

def bulk(text):
    data = text.encode() if isinstance(text, str) else text
    return b"$%d\r\n%s\r\n" % (len(data), data)


def array(*items):
    """An array of already encoded replies."""
    return b"*%d\r\n" % len(items) + b"".join(items)


def bulks(*texts):
    return array(*(bulk(t) for t in texts))


def integer(n):
    return b":%d\r\n" % n


def score(text, proto):
    """A sorted-set score: a bulk string in RESP2, a double in RESP3."""
    return b",%s\r\n" % text.encode() if proto == 3 else bulk(text)


def timed_out(proto):
    return NULL if proto == 3 else NULL_ARRAY


def names(prefix, *keys):
    """Key names under a per-test prefix: names("fifo", "q") == ("fifo:q",)."""
    return tuple("%s:%s" % (prefix, key) for key in keys)


# --- Transcripts and the side-by-side run ------------------------------------------------------

class Transcript(dict):
    """Step label -> reply bytes or an observed value, in the order the scenario ran. `notes`
    holds what is asserted but not compared across servers (elapsed times)."""

    def __init__(self):
        super().__init__()
        self.notes = {}

    def __setitem__(self, label, value):
        if label in self:
            raise KeyError("step %r recorded twice" % label)
        super().__setitem__(label, value)


def same_as_redis(target, reference, scenario):
    """Runs scenario(port) on the target; on warden, also on redis-server, and requires the
    same steps with the same values. Returns the target's transcript."""
    got = scenario(target.port)
    if target.name == "warden":
        expected = scenario(reference.port)
        if list(got.items()) != list(expected.items()):
            lines = ["warden's transcript differs from redis-server's:"]
            for label in dict.fromkeys(list(expected) + list(got)):
                want, have = expected.get(label, "<missing>"), got.get(label, "<missing>")
                if want != have:
                    lines.append("  %s: redis-server %r, warden %r" % (label, want, have))
            if list(got) != list(expected):
                lines.append("  step order: redis-server %r, warden %r"
                             % (list(expected), list(got)))
            raise AssertionError("\n".join(lines))
    return got


# --- Observing clients from another connection -------------------------------------------------

def client_fields(observer, conn):
    """conn's line of CLIENT LIST, as a dict of field -> str."""
    line = observer.value("CLIENT", "LIST", "ID", str(conn.id()))
    assert isinstance(line, bytes) and line.count(b"\n") == 1, \
        "CLIENT LIST ID %d replied %r" % (conn.id(), line)
    return dict(field.split("=", 1) for field in line.decode().split())


def is_blocked(observer, conn):
    return "b" in client_fields(observer, conn)["flags"]


def wait_blocked(observer, conn):
    """Polls CLIENT LIST until conn shows flag b; fails after WAIT_S seconds."""
    deadline = time.monotonic() + WAIT_S
    while not is_blocked(observer, conn):
        if time.monotonic() > deadline:
            raise AssertionError("client %d did not block within %ds: %r"
                                 % (conn.id(), WAIT_S, client_fields(observer, conn)))


def info_field(observer, section, name):
    text = observer.value("INFO", section).decode()
    for line in text.split("\r\n"):
        if line.startswith(name + ":"):
            return line[len(name) + 1:]
    raise AssertionError("INFO %s has no %s field:\n%s" % (section, name, text))


def blocked_clients(observer):
    return int(info_field(observer, "clients", "blocked_clients"))


def wait_blocked_count(observer, count):
    """Polls INFO until blocked_clients is `count` (a closed client is noticed by the server
    when it next reads the socket); fails after WAIT_S seconds."""
    deadline = time.monotonic() + WAIT_S
    while blocked_clients(observer) != count:
        if time.monotonic() > deadline:
            raise AssertionError("blocked_clients stayed at %d for %ds, expected %d"
                                 % (blocked_clients(observer), WAIT_S, count))


@contextlib.contextmanager
def connections(port, count):
    """`count` new connections, each with its CLIENT ID already asked (a blocked client cannot
    answer it). The first flushes every database and waits until no client is blocked, so
    nothing an earlier test left can take a push. All are closed on exit."""
    with contextlib.ExitStack() as stack:
        conns = []
        for _ in range(count):
            conn = stack.enter_context(Conn(port))
            conn.id()
            conns.append(conn)
        assert conns[0].call("FLUSHALL") == OK
        wait_blocked_count(conns[0], 0)
        yield conns


def hello3(conn):
    reply = conn.value("HELLO", "3")
    assert isinstance(reply, dict) and reply[b"proto"] == 3, "HELLO 3 replied %r" % (reply,)


# Every blocking command on one list or sorted-set key `k` (and destination `d`), with its
# timeout `t`.
BLOCKING = {
    "blpop": lambda k, d, t: ("BLPOP", k, t),
    "brpop": lambda k, d, t: ("BRPOP", k, t),
    "brpoplpush": lambda k, d, t: ("BRPOPLPUSH", k, d, t),
    "blmove": lambda k, d, t: ("BLMOVE", k, d, "LEFT", "RIGHT", t),
    "blmpop": lambda k, d, t: ("BLMPOP", t, "1", k, "LEFT"),
    "bzpopmin": lambda k, d, t: ("BZPOPMIN", k, t),
    "bzpopmax": lambda k, d, t: ("BZPOPMAX", k, t),
    "bzmpop": lambda k, d, t: ("BZMPOP", t, "1", k, "MIN"),
}


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


# --- 8. Timeouts -------------------------------------------------------------------------------

TIMEOUTS = {"blpop": "0.05", "brpop": ".2", "brpoplpush": "0.05", "blmove": "0.2",
            "blmpop": "0.05", "bzpopmin": "0.2", "bzpopmax": "0.05", "bzmpop": "0.2"}


def times_out(command, proto):
    def scenario(port):
        t = Transcript()
        k, d = names("timeout-%s-%d" % (command, proto), "k", "d")
        with connections(port, 2) as (b, a):
            if proto == 3:
                hello3(a)
            start = time.monotonic()
            a.send(*BLOCKING[command](k, d, TIMEOUTS[command]))
            t["A " + command] = a.reply()
            t.notes["elapsed"] = time.monotonic() - start
            t["A PING"] = a.call("PING")
            t["blocked_clients"] = blocked_clients(b)
            t["B EXISTS k d"] = b.call("EXISTS", k, d)
        return t

    return scenario


@pytest.mark.parametrize("proto", [2, 3])
@pytest.mark.parametrize("command", list(BLOCKING))
def test_a_decimal_timeout_replies_null(target, reference, command, proto):
    t = same_as_redis(target, reference, times_out(command, proto))
    # *-1 in RESP2 for every command, BLMOVE and BRPOPLPUSH included (not $-1).
    assert t["A " + command] == timed_out(proto)
    # The reply cannot come before the deadline (a lower bound only, never flaky).
    assert t.notes["elapsed"] >= float(TIMEOUTS[command]) - 0.005
    assert t["A PING"] == b"+PONG\r\n"
    assert t["blocked_clients"] == 0
    assert t["B EXISTS k d"] == integer(0)


BAD_TIMEOUTS = ["-1", "x", "inf", "1e16", "nan", "-inf", "1e400", "", " 1"]


def bad_timeouts(command):
    def scenario(port):
        t = Transcript()
        k, d = names("badtimeout-" + command, "k", "d")
        with connections(port, 2) as (b, a):
            for bad in BAD_TIMEOUTS:
                t["A %s %r" % (command, bad)] = a.call(*BLOCKING[command](k, d, bad))
            t["blocked_clients"] = blocked_clients(b)
        return t

    return scenario


@pytest.mark.parametrize("command", list(BLOCKING))
def test_bad_timeouts_are_refused_with_redis_texts(target, reference, command):
    t = same_as_redis(target, reference, bad_timeouts(command))
    expected = {"-1": NEGATIVE, "x": NOT_A_FLOAT, "inf": NEGATIVE,
                # 1e16 s is 1e19 ms: the cast to a 64-bit integer overflows to negative.
                "1e16": NEGATIVE, "nan": NOT_A_FLOAT, "-inf": NEGATIVE,
                "1e400": NEGATIVE,  # fits a long double, not an integer
                "": NOT_A_FLOAT, " 1": NOT_A_FLOAT}
    for bad, reply in expected.items():
        assert t["A %s %r" % (command, bad)] == reply, bad
    assert t["blocked_clients"] == 0


def odd_timeouts_block(port):
    t = Transcript()
    q, = names("oddtimeout", "q")
    with connections(port, 2) as (b, a):
        for timeout in ["-0", "-0.0001", "0.0", "0x10", "1e-400"]:
            a.send("BLPOP", q, timeout)
            if timeout == "1e-400":  # rounds up to 1 ms
                t["A BLPOP %s" % timeout] = a.reply()
                continue
            wait_blocked(b, a)
            t["B CLIENT UNBLOCK A (%s)" % timeout] = b.call("CLIENT", "UNBLOCK", str(a.id()))
            t["A BLPOP %s" % timeout] = a.reply()
    return t


def test_timeouts_that_round_to_zero_block_and_hex_and_tiny_ones_are_accepted(target,
                                                                              reference):
    t = same_as_redis(target, reference, odd_timeouts_block)
    for timeout in ["-0", "-0.0001", "0.0", "0x10"]:
        assert t["B CLIENT UNBLOCK A (%s)" % timeout] == integer(1), timeout
        assert t["A BLPOP %s" % timeout] == NULL_ARRAY, timeout
    assert t["A BLPOP 1e-400"] == NULL_ARRAY


# --- 9. CLIENT UNBLOCK -------------------------------------------------------------------------

UNBLOCK_CASES = [  # (the blocked command, the reason argument or None)
    ("blpop", None), ("blmove", "TIMEOUT"), ("bzpopmin", "timeout"), ("blmpop", "ERROR"),
    ("brpoplpush", "error"),
]


def client_unblock(command, reason, proto):
    def scenario(port):
        t = Transcript()
        k, d = names("unblock-%s-%s-%d" % (command, reason, proto), "k", "d")
        with connections(port, 2) as (b, a):
            if proto == 3:
                hello3(a)
            a.send(*BLOCKING[command](k, d, "0"))
            wait_blocked(b, a)
            extra = () if reason is None else (reason,)
            t["B CLIENT UNBLOCK A"] = b.call("CLIENT", "UNBLOCK", str(a.id()), *extra)
            t["A " + command] = a.reply()
            t["B CLIENT UNBLOCK A again"] = b.call("CLIENT", "UNBLOCK", str(a.id()), *extra)
            t["A PING"] = a.call("PING")
            t["blocked_clients"] = blocked_clients(b)
            t["A cmd"] = client_fields(b, a)["cmd"]
        return t

    return scenario


@pytest.mark.parametrize("proto", [2, 3])
@pytest.mark.parametrize("command,reason", UNBLOCK_CASES)
def test_client_unblock_releases_a_waiter_with_a_timeout_or_an_error(target, reference,
                                                                     command, reason, proto):
    t = same_as_redis(target, reference, client_unblock(command, reason, proto))
    assert t["B CLIENT UNBLOCK A"] == integer(1)
    if reason is not None and reason.upper() == "ERROR":
        assert t["A " + command] == UNBLOCKED
    else:
        assert t["A " + command] == timed_out(proto)
    assert t["B CLIENT UNBLOCK A again"] == integer(0)
    assert t["A PING"] == b"+PONG\r\n"
    assert t["blocked_clients"] == 0


def client_unblock_refusals(port):
    t = Transcript()
    q, = names("unblockbad", "q")
    with connections(port, 2) as (b, a):
        t["B CLIENT UNBLOCK A not blocked"] = b.call("CLIENT", "UNBLOCK", str(a.id()))
        t["B CLIENT UNBLOCK itself"] = b.call("CLIENT", "UNBLOCK", str(b.id()))
        t["B CLIENT UNBLOCK unknown id"] = b.call("CLIENT", "UNBLOCK", "987654321")
        t["B CLIENT UNBLOCK -5"] = b.call("CLIENT", "UNBLOCK", "-5")
        a.send("BLPOP", q, "0")
        wait_blocked(b, a)
        t["B CLIENT UNBLOCK A FOO"] = b.call("CLIENT", "UNBLOCK", str(a.id()), "FOO")
        t["A blocked after FOO"] = is_blocked(b, a)
        t["B CLIENT UNBLOCK x"] = b.call("CLIENT", "UNBLOCK", "x")
        t["B CLIENT UNBLOCK x FOO"] = b.call("CLIENT", "UNBLOCK", "x", "FOO")
        t["B CLIENT UnBlock A TIMEOUT x"] = b.call("CLIENT", "UnBlock", str(a.id()), "TIMEOUT",
                                                   "x")
        t["B CLIENT UNBLOCK x TIMEOUT x"] = b.call("CLIENT", "UNBLOCK", "x", "TIMEOUT", "x")
        t["B CLIENT UNBLOCK"] = b.call("CLIENT", "UNBLOCK")
        t["A blocked at the end"] = is_blocked(b, a)
        t["B RPUSH q v"] = b.call("RPUSH", q, "v")
        t["A BLPOP"] = a.reply()
    return t


def test_client_unblock_of_a_client_not_blocked_and_bad_arguments(target, reference):
    t = same_as_redis(target, reference, client_unblock_refusals)
    q, = names("unblockbad", "q")
    for step in ["A not blocked", "itself", "unknown id", "-5"]:
        assert t["B CLIENT UNBLOCK " + step] == integer(0), step
    # The reason is checked before the id.
    assert t["B CLIENT UNBLOCK A FOO"] == \
        b"-ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR\r\n"
    assert t["B CLIENT UNBLOCK x FOO"] == \
        b"-ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR\r\n"
    assert t["B CLIENT UNBLOCK x"] == b"-ERR value is not an integer or out of range\r\n"
    # The subcommand is echoed as the client spelled it.
    assert t["B CLIENT UnBlock A TIMEOUT x"] == (
        b"-ERR unknown subcommand or wrong number of arguments for 'UnBlock'. "
        b"Try CLIENT HELP.\r\n")
    # Too many arguments are refused before the id is read.
    assert t["B CLIENT UNBLOCK x TIMEOUT x"] == (
        b"-ERR unknown subcommand or wrong number of arguments for 'UNBLOCK'. "
        b"Try CLIENT HELP.\r\n")
    # Too few arguments fail the subcommand's arity check.
    assert t["B CLIENT UNBLOCK"] == \
        b"-ERR wrong number of arguments for 'client|unblock' command\r\n"
    assert t["A blocked after FOO"] is True
    assert t["A blocked at the end"] is True
    assert t["A BLPOP"] == bulks(q, "v")


# --- 10. A client that disconnects while blocked -----------------------------------------------

def disconnect_alone(port):
    t = Transcript()
    q, = names("gone", "q")
    with connections(port, 2) as (b, a):
        a.send("BLPOP", q, "0")
        wait_blocked(b, a)
        t["blocked_clients while A waits"] = blocked_clients(b)
        a.close()
        wait_blocked_count(b, 0)
        t["B RPUSH q x"] = b.call("RPUSH", q, "x")
        t["B LLEN q"] = b.call("LLEN", q)
    return t


def test_a_client_that_disconnects_while_blocked_leaves_no_waiter(target, reference):
    t = same_as_redis(target, reference, disconnect_alone)
    assert t["blocked_clients while A waits"] == 1
    assert t["B RPUSH q x"] == integer(1)
    assert t["B LLEN q"] == integer(1)  # nobody consumed it


def disconnect_first_of_two(port):
    t = Transcript()
    q, d = names("gonefirst", "q", "d")
    with connections(port, 3) as (b, a, c):
        a.send("BLMOVE", q, d, "LEFT", "LEFT", "0")
        wait_blocked(b, a)
        c.send("BLPOP", q, "0")
        wait_blocked(b, c)
        a.close()
        wait_blocked_count(b, 1)
        t["B RPUSH q x"] = b.call("RPUSH", q, "x")
        t["C BLPOP"] = c.reply()
        t["B EXISTS q d"] = b.call("EXISTS", q, d)
        t["blocked_clients"] = blocked_clients(b)
    return t


def test_a_departed_first_waiter_passes_its_turn_to_the_next(target, reference):
    t = same_as_redis(target, reference, disconnect_first_of_two)
    q, d = names("gonefirst", "q", "d")
    assert t["B RPUSH q x"] == integer(1)
    assert t["C BLPOP"] == bulks(q, "x")
    assert t["B EXISTS q d"] == integer(0)
    assert t["blocked_clients"] == 0


# --- 11. CLIENT LIST and INFO while blocked ----------------------------------------------------

def client_list_while_blocked(command):
    def scenario(port):
        t = Transcript()
        k, d = names("clientlist-" + command, "k", "d")
        with connections(port, 2) as (b, a):
            a.send(*BLOCKING[command](k, d, "0"))
            wait_blocked(b, a)
            fields = client_fields(b, a)
            t["A flags while blocked"] = fields["flags"]
            t["A cmd while blocked"] = fields["cmd"]
            t["A db while blocked"] = fields["db"]
            t["B flags"] = client_fields(b, b)["flags"]
            t["blocked_clients"] = info_field(b, "clients", "blocked_clients")
            t["B CLIENT UNBLOCK A"] = b.call("CLIENT", "UNBLOCK", str(a.id()))
            t["A " + command] = a.reply()
            fields = client_fields(b, a)
            t["A flags after"] = fields["flags"]
            t["A cmd after"] = fields["cmd"]
            t["blocked_clients after"] = info_field(b, "clients", "blocked_clients")
        return t

    return scenario


@pytest.mark.parametrize("command", list(BLOCKING))
def test_client_list_and_info_show_the_blocked_client(target, reference, command):
    t = same_as_redis(target, reference, client_list_while_blocked(command))
    assert t["A flags while blocked"] == "b"
    assert t["A cmd while blocked"] == command
    assert t["A db while blocked"] == "0"
    assert t["B flags"] == "N"
    assert t["blocked_clients"] == "1"
    assert t["B CLIENT UNBLOCK A"] == integer(1)
    assert t["A " + command] == NULL_ARRAY
    assert t["A flags after"] == "N"
    assert t["A cmd after"] == command
    assert t["blocked_clients after"] == "0"


# --- 12. Wrong types ---------------------------------------------------------------------------

WRONG_VALUE = {  # waiter, what B writes to its key meanwhile, how B then gives it the right type
    "blpop": (lambda k: ("BLPOP", k, "0"), lambda k: ("SET", k, "str"),
              lambda k: ("LPUSH", k, "x")),
    "bzpopmin": (lambda k: ("BZPOPMIN", k, "0"), lambda k: ("RPUSH", k, "x"),
                 lambda k: ("ZADD", k, "2", "x")),
}


def key_changes_type(command):
    def scenario(port):
        t = Transcript()
        k, = names("wrongtype-" + command, "k")
        waiter, wrong, right = WRONG_VALUE[command]
        with connections(port, 2) as (b, a):
            a.send(*waiter(k))
            wait_blocked(b, a)
            t["B writes another type"] = b.call(*wrong(k))
            t["A blocked"] = is_blocked(b, a)
            t["B DEL k"] = b.call("DEL", k)
            t["B writes the waited type"] = b.call(*right(k))
            t["A " + command] = a.reply()
            t["B EXISTS k"] = b.call("EXISTS", k)
        return t

    return scenario


@pytest.mark.parametrize("command", list(WRONG_VALUE))
def test_a_key_of_another_type_leaves_the_waiter_blocked_without_an_error(target, reference,
                                                                          command):
    t = same_as_redis(target, reference, key_changes_type(command))
    k, = names("wrongtype-" + command, "k")
    assert t["B writes another type"] == (OK if command == "blpop" else integer(1))
    assert t["A blocked"] is True
    assert t["B DEL k"] == integer(1)
    assert t["B writes the waited type"] == integer(1)
    if command == "blpop":
        assert t["A blpop"] == bulks(k, "x")
    else:
        assert t["A bzpopmin"] == bulks(k, "x", "2")
    assert t["B EXISTS k"] == integer(0)


def blmove_to_a_string(port):
    t = Transcript()
    src, dst = names("movewrongtype", "src", "dst")
    with connections(port, 2) as (b, a):
        a.send("BLMOVE", src, dst, "LEFT", "RIGHT", "0")
        wait_blocked(b, a)
        t["B SET dst str"] = b.call("SET", dst, "str")
        t["B RPUSH src x"] = b.call("RPUSH", src, "x")
        t["A BLMOVE"] = a.reply()
        t["B LRANGE src"] = b.call("LRANGE", src, "0", "-1")
        t["B GET dst"] = b.call("GET", dst)
        t["blocked_clients"] = blocked_clients(b)
        t["A PING"] = a.call("PING")
    return t


def test_blmove_into_a_string_gets_wrongtype_and_the_source_keeps_its_element(target,
                                                                             reference):
    t = same_as_redis(target, reference, blmove_to_a_string)
    assert t["B SET dst str"] == OK
    assert t["B RPUSH src x"] == integer(1)
    assert t["A BLMOVE"] == WRONGTYPE
    assert t["B LRANGE src"] == bulks("x")
    assert t["B GET dst"] == bulk("str")
    assert t["blocked_clients"] == 0
    assert t["A PING"] == b"+PONG\r\n"


# --- 13. Pipelining ----------------------------------------------------------------------------

def pipelined_after_blpop(port):
    t = Transcript()
    q, = names("pipeline", "q")
    with connections(port, 2) as (b, a):
        a.send_raw(b"*3\r\n$5\r\nBLPOP\r\n$%d\r\n%s\r\n$1\r\n0\r\n*1\r\n$4\r\nPING\r\n"
                   % (len(q), q.encode()))
        wait_blocked(b, a)
        t["B RPUSH q x"] = b.call("RPUSH", q, "x")
        t["A first reply"] = a.reply()
        t["A second reply"] = a.reply()
        t["B LLEN q"] = b.call("LLEN", q)
    return t


def test_a_command_pipelined_behind_blpop_runs_after_the_pop(target, reference):
    t = same_as_redis(target, reference, pipelined_after_blpop)
    q, = names("pipeline", "q")
    assert t["B RPUSH q x"] == integer(1)
    assert t["A first reply"] == bulks(q, "x")
    assert t["A second reply"] == b"+PONG\r\n"
    assert t["B LLEN q"] == integer(0)


# --- 14. Databases -----------------------------------------------------------------------------

def other_database(port):
    t = Transcript()
    q, = names("db", "q")
    with connections(port, 2) as (b, a):
        t["A SELECT 1"] = a.call("SELECT", "1")
        a.send("BLPOP", q, "0")
        wait_blocked(b, a)
        t["A db"] = client_fields(b, a)["db"]
        t["B RPUSH q x (db 0)"] = b.call("RPUSH", q, "x")
        t["A blocked after db 0 push"] = is_blocked(b, a)
        t["B SELECT 1"] = b.call("SELECT", "1")
        t["B RPUSH q y (db 1)"] = b.call("RPUSH", q, "y")
        t["A BLPOP"] = a.reply()
        t["B EXISTS q (db 1)"] = b.call("EXISTS", q)
        t["B SELECT 0"] = b.call("SELECT", "0")
        t["B LRANGE q (db 0)"] = b.call("LRANGE", q, "0", "-1")
    return t


def test_a_push_in_another_database_does_not_wake_the_waiter(target, reference):
    t = same_as_redis(target, reference, other_database)
    q, = names("db", "q")
    assert t["A db"] == "1"
    assert t["B RPUSH q x (db 0)"] == integer(1)
    assert t["A blocked after db 0 push"] is True
    assert t["B RPUSH q y (db 1)"] == integer(1)
    assert t["A BLPOP"] == bulks(q, "y")
    assert t["B EXISTS q (db 1)"] == integer(0)
    assert t["B LRANGE q (db 0)"] == bulks("x")


def move_into_the_waiters_database(port):
    t = Transcript()
    m, = names("dbmove", "m")
    with connections(port, 2) as (b, a):
        t["A SELECT 1"] = a.call("SELECT", "1")
        a.send("BLPOP", m, "0")
        wait_blocked(b, a)
        t["B RPUSH m v (db 0)"] = b.call("RPUSH", m, "v")
        t["B MOVE m 1"] = b.call("MOVE", m, "1")
        t["A BLPOP"] = a.reply()
        t["B EXISTS m (db 0)"] = b.call("EXISTS", m)
        t["B SELECT 1"] = b.call("SELECT", "1")
        t["B EXISTS m (db 1)"] = b.call("EXISTS", m)
    return t


def test_move_into_the_waiters_database_wakes_it(target, reference):
    t = same_as_redis(target, reference, move_into_the_waiters_database)
    m, = names("dbmove", "m")
    assert t["B MOVE m 1"] == integer(1)
    assert t["A BLPOP"] == bulks(m, "v")
    assert t["B EXISTS m (db 0)"] == integer(0)
    assert t["B EXISTS m (db 1)"] == integer(0)


def swapdb_wakes(port):
    t = Transcript()
    s, = names("dbswap", "s")
    with connections(port, 2) as (b, a):
        a.send("BLPOP", s, "0")
        wait_blocked(b, a)
        t["B SELECT 1"] = b.call("SELECT", "1")
        t["B RPUSH s w x (db 1)"] = b.call("RPUSH", s, "w", "x")
        t["A blocked before SWAPDB"] = is_blocked(b, a)
        t["B SWAPDB 0 1"] = b.call("SWAPDB", "0", "1")
        t["A BLPOP"] = a.reply()
        t["B LRANGE s (db 1, formerly db 0)"] = b.call("LRANGE", s, "0", "-1")
        t["B SELECT 0"] = b.call("SELECT", "0")
        t["B LRANGE s (db 0)"] = b.call("LRANGE", s, "0", "-1")
    return t


def test_swapdb_wakes_a_client_blocked_on_a_key_the_other_database_held(target, reference):
    t = same_as_redis(target, reference, swapdb_wakes)
    s, = names("dbswap", "s")
    assert t["A blocked before SWAPDB"] is True
    assert t["B SWAPDB 0 1"] == OK
    assert t["A BLPOP"] == bulks(s, "w")
    assert t["B LRANGE s (db 1, formerly db 0)"] == b"*0\r\n"
    assert t["B LRANGE s (db 0)"] == bulks("x")


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

