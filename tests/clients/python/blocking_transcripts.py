"""What the blocking scenarios share: RESP builders for expected replies, the Transcript that
a scenario returns and its side-by-side run against redis-server, and the observation of other
clients (CLIENT LIST flags, INFO counters) with a deadline instead of sleeps."""

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
