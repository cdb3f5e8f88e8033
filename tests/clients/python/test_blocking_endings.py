"""Blocking commands, continued from test_blocking.py (same transcripts, same rules, no sleeps):
how a wait ends other than by being served (timeouts, CLIENT UNBLOCK, a client that
disconnects) and what surrounds a waiter (CLIENT LIST and INFO, keys of another type,
commands pipelined behind it, other databases). Every scenario runs on both servers and
warden's transcript must equal redis-server's.
"""


import pytest

from blocking_transcripts import *  # noqa: F401,F403 (the builders and transcript helpers)

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
