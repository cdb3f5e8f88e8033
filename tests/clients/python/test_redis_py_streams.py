"""redis-py's stream API (Debian's python3-redis 4.3.4, RESP2) against redis-server and warden.

XADD (explicit, partial and '*' ids, MAXLEN exact and '~', MINID, NOMKSTREAM, LIMIT), XLEN,
XRANGE/XREVRANGE with COUNT and exclusive ranges, XDEL, XTRIM, XREAD (COUNT, several streams,
BLOCK timing out and BLOCK woken by another client's XADD), consumer groups (XGROUP CREATE with
MKSTREAM and '$'/'0', SETID, DESTROY, CREATECONSUMER, DELCONSUMER), XREADGROUP ('>', history,
NOACK, COUNT, BLOCK), XACK, XPENDING summary and ranges (IDLE, consumer), XCLAIM (min idle
time, IDLE, TIME, RETRYCOUNT, FORCE, JUSTID), XAUTOCLAIM (cursor, JUSTID, deleted entries),
XINFO STREAM (and FULL), GROUPS and CONSUMERS, as redis-py parses them, and a work queue: one
producer, three consumers in a group, a crashed consumer's jobs taken over by XAUTOCLAIM.

Values are exact; ids are explicit wherever a value depends on them, and '*' ids are checked
for shape and order. Idle times are made with XCLAIM IDLE/TIME instead of waiting, and only
they (and delivery times) are compared within ranges. No sleeps: a blocked reader is found in
CLIENT LIST (flag b) before the writer adds.
"""

import re
import threading
import time
import uuid

import pytest
import redis
from redis.exceptions import ResponseError

WAIT_S = 5
ID_RE = re.compile(r"^(\d+)-(\d+)$")


@pytest.fixture
def prefix():
    return "streams:%s:" % uuid.uuid4().hex


@pytest.fixture
def client_for(target, connections):
    """client_for(**options): a new client on the server under test, decoding replies unless
    the options say otherwise (conftest's connections, closed at the end of the test)."""

    def connect(**options):
        options.setdefault("decode_responses", True)
        return connections(target.port, **options)

    return connect


@pytest.fixture
def r(client_for):
    return client_for()


def parse_id(stream_id):
    match = ID_RE.match(stream_id)
    assert match, "not a stream id: %r" % (stream_id,)
    return int(match.group(1)), int(match.group(2))


def server_ms(client):
    seconds, micros = client.time()
    return seconds * 1000 + micros // 1000


def fill(r, key, count, start_ms=1):
    """Adds entries <start_ms+i>-0 {n: i} for i in 0..count-1; returns their ids."""
    pipe = r.pipeline(transaction=False)
    for i in range(count):
        pipe.xadd(key, {"n": i}, id="%d-0" % (start_ms + i))
    return pipe.execute()


def wait_blocked(observer, client_id, command):
    """Polls CLIENT LIST until the client shows flag b in `command`; fails after WAIT_S s."""
    deadline = time.monotonic() + WAIT_S
    while True:
        [entry] = observer.client_list(client_id=[str(client_id)])
        if "b" in entry["flags"] and entry["cmd"] == command:
            return
        assert time.monotonic() < deadline, "client %d did not block: %r" % (client_id, entry)


class Writer(threading.Thread):
    """A second client that waits until `reader_id` is blocked in `command`, then XADDs."""

    def __init__(self, client, reader_id, command, key, fields, entry_id):
        super().__init__(daemon=True)
        self.client, self.reader_id, self.command = client, reader_id, command
        self.key, self.fields, self.entry_id = key, fields, entry_id
        self.added = self.error = None

    def run(self):
        try:
            wait_blocked(self.client, self.reader_id, self.command)
            self.added = self.client.xadd(self.key, self.fields, id=self.entry_id)
        except Exception as e:  # reported by finish()
            self.error = e

    def finish(self):
        self.join(WAIT_S + 2)
        assert not self.is_alive(), "the writer is still waiting"
        if self.error is not None:
            raise self.error


# --- XADD, XLEN, XRANGE, XREVRANGE ---------------------------------------------------------

def test_xadd_explicit_and_partial_ids_xlen_xrange(r, prefix):
    s = prefix + "s"
    assert r.xlen(s) == 0
    assert r.xrange(s) == []
    assert r.xadd(s, {"a": "1"}, id="1-1") == "1-1"
    assert r.xadd(s, {"a": "2", "b": "x"}, id="1-2") == "1-2"
    assert r.xadd(s, {"a": "3"}, id="2") == "2-0"  # a bare ms gets sequence 0
    assert r.xadd(s, {"a": "4"}, id="2-*") == "2-1"  # Redis 7: the sequence generated
    assert r.xadd(s, {"a": "5"}, id="5-*") == "5-0"
    assert r.xlen(s) == 5
    assert r.type(s) == "stream"
    with pytest.raises(ResponseError) as e:
        r.xadd(s, {"a": "x"}, id="5-0")
    assert str(e.value) == ("The ID specified in XADD is equal or smaller than the target "
                            "stream top item")
    with pytest.raises(ResponseError) as e:
        r.xadd(prefix + "empty", {"a": "x"}, id="0-0")
    assert str(e.value) == "The ID specified in XADD must be greater than 0-0"
    with pytest.raises(ResponseError) as e:
        r.xadd(s, {"a": "x"}, id="bad")
    assert str(e.value) == "Invalid stream ID specified as stream command argument"
    assert r.xlen(s) == 5

    everything = [("1-1", {"a": "1"}), ("1-2", {"a": "2", "b": "x"}), ("2-0", {"a": "3"}),
                  ("2-1", {"a": "4"}), ("5-0", {"a": "5"})]
    assert r.xrange(s) == everything
    assert r.xrange(s, "-", "+", count=2) == everything[:2]
    assert r.xrange(s, "1-2", "2-1") == everything[1:4]
    assert r.xrange(s, "2", "2") == everything[2:4]  # a bare ms is the whole millisecond
    assert r.xrange(s, "(1-2", "+", count=2) == everything[2:4]  # exclusive start
    assert r.xrange(s, "-", "(5-0") == everything[:4]
    assert r.xrange(s, "6", "+") == []
    assert r.xrevrange(s) == everything[::-1]
    assert r.xrevrange(s, "+", "-", count=2) == [everything[4], everything[3]]
    assert r.xrevrange(s, "2-1", "1-2") == [everything[3], everything[2], everything[1]]
    assert r.xrevrange(s, "(2-1", "-", count=1) == [everything[2]]
    with pytest.raises(ResponseError) as e:
        r.xrange(s, "(18446744073709551615-18446744073709551615", "+")
    assert str(e.value) == "invalid start ID for the interval"


def test_xadd_star_ids_are_increasing_and_near_the_server_time(r, prefix):
    s = prefix + "s"
    before = server_ms(r)
    ids = [r.xadd(s, {"i": i}) for i in range(20)]
    after = server_ms(r)
    parsed = [parse_id(i) for i in ids]
    assert parsed == sorted(parsed) and len(set(parsed)) == 20
    assert all(before <= ms <= after for ms, _ in parsed)
    assert [entry_id for entry_id, _ in r.xrange(s)] == ids
    assert r.xrange(s, count=1) == [(ids[0], {"i": "0"})]
    assert r.xrevrange(s, count=1) == [(ids[-1], {"i": "19"})]
    # A '*' after an explicit id far in the future continues from that id's millisecond.
    future = after + 3_600_000
    assert r.xadd(s, {"i": "f"}, id="%d-5" % future) == "%d-5" % future
    assert r.xadd(s, {"i": "g"}) == "%d-6" % future


def test_binary_fields_and_values_come_back_as_bytes(client_for, prefix):
    raw = client_for(decode_responses=False)
    s = prefix + "bin"
    fields = {b"\x00key": b"\xff\xfe", b"k\r\n": b"", b"num": b"12345678901234567890"}
    assert raw.xadd(s, fields, id="1-0") == b"1-0"
    assert raw.xrange(s) == [(b"1-0", fields)]
    assert raw.xread({s: "0"}) == [[s.encode(), [(b"1-0", fields)]]]


def test_xadd_maxlen_exact_and_approximate(r, prefix):
    s = prefix + "exact"
    for i in range(10):
        r.xadd(s, {"n": i}, id="%d-0" % (i + 1), maxlen=3, approximate=False)
    assert r.xlen(s) == 3
    assert r.xrange(s) == [("8-0", {"n": "7"}), ("9-0", {"n": "8"}), ("10-0", {"n": "9"})]

    # '~' only drops whole nodes (100 entries each): the stream keeps at least MAXLEN entries.
    s = prefix + "approx"
    lengths = []
    for i in range(250):
        r.xadd(s, {"n": i}, id="%d-0" % (i + 1), maxlen=10)
        lengths.append(r.xlen(s))
    assert min(lengths[9:]) >= 10
    assert lengths[108] == 109 and lengths[109] == 10  # node one (1..100) dropped at 110
    assert r.xlen(s) == 50
    assert r.xrange(s, count=1) == [("201-0", {"n": "200"})]
    # LIMIT caps how many entries one trim removes: only whole nodes that fit under it go.
    s = prefix + "limit"
    fill(r, s, 300)
    assert r.xadd(s, {"n": "x"}, id="301-0", maxlen=10, limit=100) == "301-0"
    assert r.xlen(s) == 201
    assert r.xrange(s, count=1) == [("101-0", {"n": "100"})]


def test_xadd_minid_and_nomkstream(r, prefix):
    s = prefix + "s"
    fill(r, s, 5)  # 1-0 .. 5-0
    assert r.xadd(s, {"n": "six"}, id="6-0", minid="4", approximate=False) == "6-0"
    assert [i for i, _ in r.xrange(s)] == ["4-0", "5-0", "6-0"]
    # MINID ~ on a stream in one node removes nothing.
    assert r.xadd(s, {"n": "seven"}, id="7-0", minid="6") == "7-0"
    assert r.xlen(s) == 4
    with pytest.raises(redis.exceptions.DataError):
        r.xadd(s, {"n": "x"}, maxlen=1, minid="1")  # refused by redis-py itself

    missing = prefix + "missing"
    assert r.xadd(missing, {"n": "1"}, nomkstream=True) is None
    assert r.exists(missing) == 0
    assert r.xadd(s, {"n": "eight"}, id="8-0", nomkstream=True) == "8-0"
    assert r.xlen(s) == 5
    r.set(prefix + "str", "v")
    with pytest.raises(ResponseError) as e:
        r.xadd(prefix + "str", {"n": "1"})
    assert str(e.value) == "WRONGTYPE Operation against a key holding the wrong kind of value"


def test_xdel_and_xtrim(r, prefix):
    s = prefix + "s"
    fill(r, s, 10)  # 1-0 .. 10-0
    assert r.xdel(s, "2-0", "4-0", "99-0") == 2
    assert r.xdel(s, "2-0") == 0
    assert r.xlen(s) == 8
    assert [i for i, _ in r.xrange(s, count=3)] == ["1-0", "3-0", "5-0"]
    assert r.xtrim(s, maxlen=5, approximate=False) == 3
    assert [i for i, _ in r.xrange(s)] == ["6-0", "7-0", "8-0", "9-0", "10-0"]
    assert r.xtrim(s, maxlen=2) == 0  # '~' within one node removes nothing
    assert r.xtrim(s, minid="8", approximate=False) == 2
    assert [i for i, _ in r.xrange(s)] == ["8-0", "9-0", "10-0"]
    assert r.xtrim(s, minid="1", approximate=False) == 0
    assert r.xtrim(s, maxlen=0, approximate=False) == 3
    assert r.xlen(s) == 0
    assert r.exists(s) == 1  # an emptied stream stays
    assert r.xtrim(prefix + "missing", maxlen=1, approximate=False) == 0
    assert r.xdel(prefix + "missing", "1-0") == 0

    big = prefix + "big"
    fill(r, big, 350)
    assert r.xtrim(big, maxlen=10, limit=100) == 100  # one node per 100 entries, capped
    assert r.xlen(big) == 250
    assert r.xtrim(big, maxlen=10) == 200  # nodes 101..200 and 201..300; 301..350 stays
    assert r.xlen(big) == 50
    with pytest.raises(ResponseError) as e:
        r.xtrim(big, maxlen=10, approximate=False, limit=10)
    assert str(e.value) == "syntax error, LIMIT cannot be used without the special ~ option"


# --- XREAD -----------------------------------------------------------------------------------

def test_xread_count_and_several_streams(r, prefix):
    a, b = prefix + "a", prefix + "b"
    fill(r, a, 5)
    fill(r, b, 3, start_ms=10)
    assert r.xread({a: "0"}, count=2) == [[a, [("1-0", {"n": "0"}), ("2-0", {"n": "1"})]]]
    assert r.xread({a: "2-0", b: "10-0"}, count=2) == [
        [a, [("3-0", {"n": "2"}), ("4-0", {"n": "3"})]],
        [b, [("11-0", {"n": "1"}), ("12-0", {"n": "2"})]],
    ]
    # A stream with nothing after the id is left out of the reply.
    assert r.xread({a: "5-0", b: "0"}) == [
        [b, [("10-0", {"n": "0"}), ("11-0", {"n": "1"}), ("12-0", {"n": "2"})]]]
    assert r.xread({a: "5-0"}) == []
    assert r.xread({prefix + "missing": "0"}) == []
    assert r.xread({a: "$"}) == []
    with pytest.raises(ResponseError) as e:
        r.xread({a: "+"})
    assert str(e.value) == "Invalid stream ID specified as stream command argument"


def test_xread_block_times_out_with_nothing(r, prefix):
    s = prefix + "s"
    fill(r, s, 2)
    start = time.monotonic()
    assert r.xread({s: "$"}, block=100) == []
    assert time.monotonic() - start >= 0.09
    # BLOCK with data already there answers at once.
    assert r.xread({s: "1-0"}, block=10000) == [[s, [("2-0", {"n": "1"})]]]


def test_xread_block_woken_by_another_clients_xadd(client_for, prefix):
    s, other = prefix + "s", prefix + "other"
    reader, observer = client_for(socket_timeout=WAIT_S + 5), client_for()
    fill(observer, s, 1)
    writer = Writer(observer, reader.client_id(), "xread", s, {"job": "wake"}, "7-3")
    writer.start()
    start = time.monotonic()
    got = reader.xread({other: "$", s: "$"}, count=10, block=(WAIT_S + 2) * 1000)
    elapsed = time.monotonic() - start
    writer.finish()
    assert writer.added == "7-3"
    assert got == [[s, [("7-3", {"job": "wake"})]]]
    assert elapsed < WAIT_S


# --- consumer groups -------------------------------------------------------------------------

def test_xgroup_create_setid_destroy(r, prefix):
    s = prefix + "s"
    with pytest.raises(ResponseError) as e:
        r.xgroup_create(s, "g", id="$")
    assert str(e.value) == ("The XGROUP subcommand requires the key to exist. Note that for "
                            "CREATE you may want to use the MKSTREAM option to create an empty "
                            "stream automatically.")
    assert r.xgroup_create(s, "g", id="$", mkstream=True) is True
    assert r.xlen(s) == 0 and r.type(s) == "stream"
    with pytest.raises(ResponseError) as e:
        r.xgroup_create(s, "g", id="$")
    assert str(e.value) == "BUSYGROUP Consumer Group name already exists"
    fill(r, s, 3)
    assert r.xgroup_create(s, "from-start", id="0") is True
    assert r.xgroup_create(s, "at-end", id="$") is True
    assert r.xgroup_create(s, "at-two", id="2-0") is True
    groups = {g["name"]: g for g in r.xinfo_groups(s)}
    assert groups == {
        "g": {"name": "g", "consumers": 0, "pending": 0, "last-delivered-id": "0-0",
              "entries-read": None, "lag": 3},
        "from-start": {"name": "from-start", "consumers": 0, "pending": 0,
                       "last-delivered-id": "0-0", "entries-read": None, "lag": 3},
        "at-end": {"name": "at-end", "consumers": 0, "pending": 0, "last-delivered-id": "3-0",
                   "entries-read": None, "lag": 0},
        "at-two": {"name": "at-two", "consumers": 0, "pending": 0, "last-delivered-id": "2-0",
                   "entries-read": None, "lag": None},
    }
    # What each group hands out next follows its last delivered id.
    assert r.xreadgroup("at-two", "c", {s: ">"}) == [[s, [("3-0", {"n": "2"})]]]
    assert r.xreadgroup("at-end", "c", {s: ">"}) == []
    assert r.xgroup_setid(s, "at-end", "1-0") is True
    assert r.xreadgroup("at-end", "c", {s: ">"}, count=1) == [[s, [("2-0", {"n": "1"})]]]
    assert r.xgroup_setid(s, "at-end", "$") is True
    assert r.xreadgroup("at-end", "c", {s: ">"}) == []
    assert r.xgroup_setid(s, "g", "0", entries_read=0) is True
    assert [g for g in r.xinfo_groups(s) if g["name"] == "g"] == [
        {"name": "g", "consumers": 0, "pending": 0, "last-delivered-id": "0-0",
         "entries-read": 0, "lag": 3}]
    with pytest.raises(ResponseError) as e:
        r.xgroup_setid(s, "nosuch", "0")
    assert str(e.value) == ("NOGROUP No such consumer group 'nosuch' for key name '%s'" % s)

    assert r.xgroup_destroy(s, "g") is True
    assert r.xgroup_destroy(s, "g") is False
    assert sorted(g["name"] for g in r.xinfo_groups(s)) == ["at-end", "at-two", "from-start"]
    with pytest.raises(ResponseError) as e:
        r.xreadgroup("g", "c", {s: ">"})
    assert str(e.value) == ("NOGROUP No such key '%s' or consumer group 'g' in XREADGROUP with "
                            "GROUP option" % s)


def test_xgroup_createconsumer_and_delconsumer(r, prefix):
    s = prefix + "s"
    fill(r, s, 4)
    r.xgroup_create(s, "g", id="0")
    assert r.xgroup_createconsumer(s, "g", "alice") == 1
    assert r.xgroup_createconsumer(s, "g", "alice") == 0
    assert [c["name"] for c in r.xinfo_consumers(s, "g")] == ["alice"]
    # XREADGROUP creates the consumer it names.
    assert r.xreadgroup("g", "bob", {s: ">"}, count=3) == [
        [s, [("1-0", {"n": "0"}), ("2-0", {"n": "1"}), ("3-0", {"n": "2"})]]]
    consumers = r.xinfo_consumers(s, "g")
    assert [(c["name"], c["pending"]) for c in consumers] == [("alice", 0), ("bob", 3)]
    assert r.xinfo_groups(s)[0]["consumers"] == 2
    # Deleting a consumer returns how many entries it had pending, and drops them from the PEL.
    assert r.xgroup_delconsumer(s, "g", "bob") == 3
    assert r.xgroup_delconsumer(s, "g", "bob") == 0
    assert r.xgroup_delconsumer(s, "g", "alice") == 0
    assert r.xinfo_consumers(s, "g") == []
    assert r.xpending(s, "g") == {"pending": 0, "min": None, "max": None, "consumers": []}
    with pytest.raises(ResponseError) as e:
        r.xgroup_createconsumer(s, "nosuch", "x")
    assert str(e.value) == ("NOGROUP No such consumer group 'nosuch' for key name '%s'" % s)


def test_xreadgroup_new_history_noack_and_xack(r, prefix):
    s = prefix + "s"
    fill(r, s, 6)  # 1-0 .. 6-0
    r.xgroup_create(s, "g", id="0")
    assert r.xreadgroup("g", "alice", {s: ">"}, count=2) == [
        [s, [("1-0", {"n": "0"}), ("2-0", {"n": "1"})]]]
    assert r.xreadgroup("g", "bob", {s: ">"}, count=1) == [[s, [("3-0", {"n": "2"})]]]
    # History: the consumer's own pending entries, from an id, with COUNT.
    assert r.xreadgroup("g", "alice", {s: "0"}) == [
        [s, [("1-0", {"n": "0"}), ("2-0", {"n": "1"})]]]
    assert r.xreadgroup("g", "alice", {s: "1-0"}) == [[s, [("2-0", {"n": "1"})]]]
    assert r.xreadgroup("g", "alice", {s: "0"}, count=1) == [[s, [("1-0", {"n": "0"})]]]
    assert r.xreadgroup("g", "bob", {s: "0"}) == [[s, [("3-0", {"n": "2"})]]]
    assert r.xreadgroup("g", "carol", {s: "0"}) == [[s, []]]
    # NOACK: delivered but never pending.
    assert r.xreadgroup("g", "carol", {s: ">"}, count=2, noack=True) == [
        [s, [("4-0", {"n": "3"}), ("5-0", {"n": "4"})]]]
    assert r.xreadgroup("g", "carol", {s: "0"}) == [[s, []]]
    assert r.xpending(s, "g") == {
        "pending": 3, "min": "1-0", "max": "3-0",
        "consumers": [{"name": "alice", "pending": 2}, {"name": "bob", "pending": 1}]}

    assert r.xack(s, "g", "1-0", "3-0", "9-0") == 2
    assert r.xack(s, "g", "1-0") == 0
    assert r.xack(s, "nosuch", "2-0") == 0
    assert r.xpending(s, "g") == {"pending": 1, "min": "2-0", "max": "2-0",
                                  "consumers": [{"name": "alice", "pending": 1}]}
    # An entry deleted while pending comes back in the history with no fields (a nil that
    # redis-py turns into {}).
    assert r.xdel(s, "2-0") == 1
    assert r.xreadgroup("g", "alice", {s: "0"}) == [[s, [("2-0", {})]]]
    assert r.xreadgroup("g", "alice", {s: ">"}) == [[s, [("6-0", {"n": "5"})]]]
    assert r.xreadgroup("g", "alice", {s: ">"}) == []
    info = r.xinfo_groups(s)[0]
    assert (info["last-delivered-id"], info["entries-read"], info["lag"]) == ("6-0", 6, 0)
    with pytest.raises(ResponseError) as e:
        r.xreadgroup("g", "alice", {s: "$"})
    assert str(e.value) == ("The $ ID is meaningless in the context of XREADGROUP: you want to "
                            "read the history of this consumer by specifying a proper ID, or "
                            "use the > ID to get new messages. The $ ID would just return an "
                            "empty result set.")


def test_xreadgroup_block_woken_by_another_clients_xadd(client_for, prefix):
    s = prefix + "s"
    reader, observer = client_for(socket_timeout=WAIT_S + 5), client_for()
    observer.xgroup_create(s, "g", id="$", mkstream=True)
    start = time.monotonic()
    assert reader.xreadgroup("g", "c", {s: ">"}, block=50) == []
    assert time.monotonic() - start >= 0.04
    writer = Writer(observer, reader.client_id(), "xreadgroup", s, {"job": "1"}, "3-0")
    writer.start()
    got = reader.xreadgroup("g", "c", {s: ">"}, block=(WAIT_S + 2) * 1000)
    writer.finish()
    assert got == [[s, [("3-0", {"job": "1"})]]]
    assert observer.xpending(s, "g") == {"pending": 1, "min": "3-0", "max": "3-0",
                                         "consumers": [{"name": "c", "pending": 1}]}


class Blocked(threading.Thread):
    """Runs `call(client)` in a thread; result() returns its value or raises its error."""

    def __init__(self, client, call):
        super().__init__(daemon=True)
        self.client, self.call = client, call
        self.client_id = client.client_id()
        self.value = self.error = None
        self.elapsed = None

    def run(self):
        start = time.monotonic()
        try:
            self.value = self.call(self.client)
        except Exception as e:
            self.error = e
        self.elapsed = time.monotonic() - start

    def result(self):
        self.join(WAIT_S + 5)
        assert not self.is_alive(), "still blocked"
        if self.error is not None:
            raise self.error
        return self.value


def test_one_xadd_wakes_every_xread_but_one_xreadgroup_consumer(client_for, prefix):
    s = prefix + "s"
    observer = client_for()
    observer.xgroup_create(s, "g", id="$", mkstream=True)
    block = (WAIT_S + 2) * 1000
    readers = [Blocked(client_for(socket_timeout=WAIT_S + 5),
                       lambda c: c.xread({s: "$"}, block=block)) for _ in range(2)]
    group_readers = [Blocked(client_for(socket_timeout=WAIT_S + 5),
                             lambda c, n=n: c.xreadgroup("g", n, {s: ">"}, block=block))
                     for n in ("first", "second")]
    for b in readers + group_readers:
        b.start()
        wait_blocked(observer, b.client_id, "xread" if b in readers else "xreadgroup")
    assert observer.xadd(s, {"n": "1"}, id="1-0") == "1-0"
    # Every XREAD reader gets the entry; of the group's consumers, the one blocked first.
    for b in readers:
        assert b.result() == [[s, [("1-0", {"n": "1"})]]]
    assert group_readers[0].result() == [[s, [("1-0", {"n": "1"})]]]
    wait_blocked(observer, group_readers[1].client_id, "xreadgroup")
    assert observer.xadd(s, {"n": "2"}, id="2-0") == "2-0"
    assert group_readers[1].result() == [[s, [("2-0", {"n": "2"})]]]
    assert observer.xpending(s, "g") == {
        "pending": 2, "min": "1-0", "max": "2-0",
        "consumers": [{"name": "first", "pending": 1}, {"name": "second", "pending": 1}]}


def test_a_blocked_reader_sees_everything_a_transaction_added(client_for, prefix):
    s = prefix + "s"
    observer = client_for()
    observer.xadd(s, {"n": "0"}, id="1-0")
    reader = Blocked(client_for(socket_timeout=WAIT_S + 5),
                     lambda c: c.xread({s: "$"}, count=10, block=(WAIT_S + 2) * 1000))
    reader.start()
    wait_blocked(observer, reader.client_id, "xread")
    pipe = observer.pipeline(transaction=True)
    pipe.xadd(s, {"n": "1"}, id="2-0")
    pipe.xadd(s, {"n": "2"}, id="3-0")
    pipe.xdel(s, "1-0")
    assert pipe.execute() == ["2-0", "3-0", 1]
    assert reader.result() == [[s, [("2-0", {"n": "1"}), ("3-0", {"n": "2"})]]]


GONE = "UNBLOCKED the stream key no longer exists"


@pytest.mark.parametrize("action,error", [
    pytest.param(lambda o, s: o.delete(s), GONE, id="DEL"),
    pytest.param(lambda o, s: o.unlink(s), GONE, id="UNLINK"),
    pytest.param(lambda o, s: o.rename(s, s + ":moved"), GONE, id="RENAME"),
    pytest.param(lambda o, s: o.move(s, 10), GONE, id="MOVE"),
    pytest.param(lambda o, s: o.flushdb(), GONE, id="FLUSHDB"),
    pytest.param(lambda o, s: o.set(s, "x"), GONE, id="SET"),
    # The DEL already ended the wait: the new stream (without the group) is not looked at.
    pytest.param(lambda o, s: (o.delete(s), o.xadd(s, {"n": "1"}, id="5-0")), GONE,
                 id="DEL-then-XADD"),
    pytest.param(lambda o, s: o.xgroup_destroy(s, "g"),
                 "NOGROUP the consumer group this client was blocked on no longer exists",
                 id="XGROUP-DESTROY"),
])
def test_a_blocked_xreadgroup_fails_when_its_stream_or_group_goes(client_for, prefix, action,
                                                                   error):
    # In database 9, so that FLUSHDB takes only this test's keys. BLOCK 3 s: the error must
    # come at once (a server that misses the event answers nil at the timeout).
    s = prefix + "s"
    observer = client_for(db=9)
    observer.xgroup_create(s, "g", id="$", mkstream=True)
    reader = Blocked(client_for(db=9, socket_timeout=WAIT_S + 5),
                     lambda c: c.xreadgroup("g", "c", {s: ">"}, block=3000))
    reader.start()
    try:
        wait_blocked(observer, reader.client_id, "xreadgroup")
        action(observer, s)
        with pytest.raises(ResponseError) as e:
            reader.result()
        assert str(e.value) == error
        assert reader.elapsed < 2.5  # at once, not at the timeout
    finally:
        reader.join(WAIT_S + 5)
        observer.delete(s, s + ":moved")
        client_for(db=10).delete(s)


def test_a_blocked_xread_outlives_a_deletion_and_wants_an_id_after_its_dollar(client_for,
                                                                             prefix):
    s = prefix + "s"
    observer = client_for()
    observer.xadd(s, {"n": "0"}, id="1-0")
    reader = Blocked(client_for(socket_timeout=WAIT_S + 5),
                     lambda c: c.xread({s: "$"}, block=(WAIT_S + 2) * 1000))
    reader.start()
    wait_blocked(observer, reader.client_id, "xread")
    assert observer.delete(s) == 1
    wait_blocked(observer, reader.client_id, "xread")  # XREAD (no group) keeps waiting
    # A new stream: its 1-0 is not after the 1-0 that '$' stood for, 2-0 is.
    assert observer.xadd(s, {"n": "1"}, id="1-0") == "1-0"
    wait_blocked(observer, reader.client_id, "xread")
    assert observer.xadd(s, {"n": "2"}, id="2-0") == "2-0"
    assert reader.result() == [[s, [("2-0", {"n": "2"})]]]


def is_blocked(observer, client_id):
    [entry] = observer.client_list(client_id=[str(client_id)])
    return "b" in entry["flags"]


# Commands that change a stream or its group without adding an entry. A blocked reader stays
# blocked through them (one CLIENT LIST right after the command's reply, which comes after any
# client the command served), and the next XADD serves it: XGROUP SETID back to 0 then hands
# out the old entries too.
NO_WAKE = [
    ("xread", "XDEL", lambda o, s: o.xdel(s, "2-0"), ["9-0"]),
    ("xread", "XTRIM", lambda o, s: o.xtrim(s, maxlen=1, approximate=False), ["9-0"]),
    ("xread", "XSETID", lambda o, s: o.execute_command("XSETID", s, "5-0"), ["9-0"]),
    ("xread", "XGROUP-SETID", lambda o, s: o.xgroup_setid(s, "g", "0"), ["9-0"]),
    ("xreadgroup", "XDEL", lambda o, s: o.xdel(s, "2-0"), ["9-0"]),
    ("xreadgroup", "XTRIM", lambda o, s: o.xtrim(s, maxlen=1, approximate=False), ["9-0"]),
    ("xreadgroup", "XSETID", lambda o, s: o.execute_command("XSETID", s, "5-0"), ["9-0"]),
    ("xreadgroup", "XGROUP-SETID-0", lambda o, s: o.xgroup_setid(s, "g", "0"),
     ["1-0", "2-0", "3-0", "9-0"]),
    ("xreadgroup", "XGROUP-SETID-$", lambda o, s: o.xgroup_setid(s, "g", "$"), ["9-0"]),
    ("xreadgroup", "XGROUP-CREATECONSUMER",
     lambda o, s: o.xgroup_createconsumer(s, "g", "other"), ["9-0"]),
    ("xreadgroup", "XGROUP-CREATE", lambda o, s: o.xgroup_create(s, "g2", id="0"), ["9-0"]),
    ("xreadgroup", "XACK", lambda o, s: o.xack(s, "g", "1-0"), ["9-0"]),
    ("xreadgroup", "XCLAIM", lambda o, s: o.xclaim(s, "g", "other", 0, ["1-0"]), ["9-0"]),
]


@pytest.mark.parametrize("command,action,expected", [
    pytest.param(command, action, expected, id="%s-%s" % (command, name))
    for command, name, action, expected in NO_WAKE])
def test_a_blocked_reader_is_not_woken_by_a_change_that_adds_nothing(client_for, prefix,
                                                                     command, action,
                                                                     expected):
    s = prefix + "s"
    observer = client_for()
    fill(observer, s, 3)  # 1-0 2-0 3-0
    observer.xgroup_create(s, "g", id="0")
    observer.xreadgroup("g", "x", {s: ">"})  # all three pending for x; the group is at 3-0
    block = (WAIT_S + 2) * 1000
    if command == "xread":
        call = lambda c: c.xread({s: "$"}, block=block)  # noqa: E731
    else:
        call = lambda c: c.xreadgroup("g", "c", {s: ">"}, block=block)  # noqa: E731
    reader = Blocked(client_for(socket_timeout=WAIT_S + 5), call)
    reader.start()
    try:
        wait_blocked(observer, reader.client_id, command)
        action(observer, s)
        if not is_blocked(observer, reader.client_id):
            reader.join(WAIT_S)
            pytest.fail("woken by a change that added nothing; the reader got %r"
                        % (reader.error or reader.value,))
        assert observer.xadd(s, {"n": "new"}, id="9-0") == "9-0"
        got = reader.result()
        assert [[key, [i for i, _ in entries]] for key, entries in got] == [[s, expected]]
    finally:
        if reader.is_alive():
            observer.client_unblock(reader.client_id)
        reader.join(WAIT_S + 5)


def test_xpending_range_with_idle_and_consumer(r, prefix):
    s = prefix + "s"
    fill(r, s, 5)
    r.xgroup_create(s, "g", id="0")
    r.xreadgroup("g", "alice", {s: ">"}, count=3)  # 1-0 2-0 3-0
    r.xreadgroup("g", "bob", {s: ">"}, count=2)  # 4-0 5-0
    # Make 2-0 and 5-0 look delivered a minute ago (XCLAIM to their own consumer with IDLE).
    assert r.xclaim(s, "g", "alice", 0, ["2-0"], idle=60000, justid=True) == ["2-0"]
    assert r.xclaim(s, "g", "bob", 0, ["5-0"], idle=60000, justid=True) == ["5-0"]

    rows = r.xpending_range(s, "g", "-", "+", 10)
    assert [(x["message_id"], x["consumer"], x["times_delivered"]) for x in rows] == [
        ("1-0", "alice", 1), ("2-0", "alice", 1), ("3-0", "alice", 1),
        ("4-0", "bob", 1), ("5-0", "bob", 1)]
    idle = {x["message_id"]: x["time_since_delivered"] for x in rows}
    for old in ("2-0", "5-0"):
        assert 60000 <= idle[old] < 60000 + WAIT_S * 1000
    for fresh in ("1-0", "3-0", "4-0"):
        assert 0 <= idle[fresh] < WAIT_S * 1000

    assert [x["message_id"] for x in r.xpending_range(s, "g", "-", "+", 2)] == ["1-0", "2-0"]
    assert [x["message_id"] for x in r.xpending_range(s, "g", "(2-0", "4-0", 10)] == [
        "3-0", "4-0"]
    assert [x["message_id"] for x in r.xpending_range(s, "g", "-", "+", 10,
                                                      consumername="bob")] == ["4-0", "5-0"]
    assert [x["message_id"] for x in r.xpending_range(s, "g", "-", "+", 10,
                                                      idle=30000)] == ["2-0", "5-0"]
    assert [x["message_id"] for x in r.xpending_range(s, "g", "-", "+", 10, idle=30000,
                                                      consumername="alice")] == ["2-0"]
    assert r.xpending_range(s, "g", "-", "+", 10, consumername="nobody") == []
    assert r.xpending_range(s, "g", "6", "+", 10) == []
    assert r.xpending(s, "g") == {
        "pending": 5, "min": "1-0", "max": "5-0",
        "consumers": [{"name": "alice", "pending": 3}, {"name": "bob", "pending": 2}]}


def test_xclaim_options(r, prefix):
    s = prefix + "s"
    fill(r, s, 6)
    r.xgroup_create(s, "g", id="0")
    assert len(r.xreadgroup("g", "alice", {s: ">"}, count=4)[0][1]) == 4  # 1-0 .. 4-0

    # Not idle long enough: nothing is claimed.
    assert r.xclaim(s, "g", "bob", 3_600_000, ["1-0", "2-0"]) == []
    # Claimed with its fields; the delivery count goes up, the idle time restarts.
    assert r.xclaim(s, "g", "bob", 0, ["1-0", "2-0"]) == [
        ("1-0", {"n": "0"}), ("2-0", {"n": "1"})]
    rows = {x["message_id"]: x for x in r.xpending_range(s, "g", "-", "+", 10)}
    assert (rows["1-0"]["consumer"], rows["1-0"]["times_delivered"]) == ("bob", 2)
    assert rows["1-0"]["time_since_delivered"] < WAIT_S * 1000
    # JUSTID: ids only, and the delivery count stays.
    assert r.xclaim(s, "g", "carol", 0, ["1-0"], justid=True) == ["1-0"]
    rows = {x["message_id"]: x for x in r.xpending_range(s, "g", "-", "+", 10)}
    assert (rows["1-0"]["consumer"], rows["1-0"]["times_delivered"]) == ("carol", 2)
    # IDLE and RETRYCOUNT set both values.
    assert r.xclaim(s, "g", "carol", 0, ["3-0"], idle=90000, retrycount=7) == [
        ("3-0", {"n": "2"})]
    [row] = r.xpending_range(s, "g", "3-0", "3-0", 1)
    assert (row["consumer"], row["times_delivered"]) == ("carol", 7)
    assert 90000 <= row["time_since_delivered"] < 90000 + WAIT_S * 1000
    # MIN-IDLE-TIME now passes for 3-0 only.
    assert r.xclaim(s, "g", "dave", 60000, ["3-0", "4-0"], justid=True) == ["3-0"]
    # TIME: a delivery time as a Unix time in milliseconds.
    two_minutes_ago = server_ms(r) - 120000
    assert r.xclaim(s, "g", "dave", 0, ["4-0"], time=two_minutes_ago, justid=True) == ["4-0"]
    [row] = r.xpending_range(s, "g", "4-0", "4-0", 1)
    assert row["consumer"] == "dave"
    assert 120000 <= row["time_since_delivered"] < 120000 + WAIT_S * 1000
    # An id not pending is claimed only with FORCE (and then only if the entry exists); the
    # new PEL row counts this delivery on top of the one FORCE creates it with.
    assert r.xclaim(s, "g", "erin", 0, ["5-0"]) == []
    assert r.xclaim(s, "g", "erin", 0, ["5-0", "42-0"], force=True) == [("5-0", {"n": "4"})]
    [row] = r.xpending_range(s, "g", "5-0", "5-0", 1)
    assert (row["consumer"], row["times_delivered"]) == ("erin", 2)
    assert r.xpending_range(s, "g", "42-0", "42-0", 1) == []
    assert r.xclaim(s, "g", "erin", 0, ["6-0"], force=True, justid=True) == ["6-0"]
    [row] = r.xpending_range(s, "g", "6-0", "6-0", 1)
    assert (row["consumer"], row["times_delivered"]) == ("erin", 1)
    # An entry deleted while pending: XCLAIM drops it from the PEL and returns nothing for it.
    assert r.xdel(s, "2-0") == 1
    assert r.xclaim(s, "g", "erin", 0, ["2-0"]) == []
    assert r.xpending(s, "g") == {
        "pending": 5, "min": "1-0", "max": "6-0",
        "consumers": [{"name": "carol", "pending": 1}, {"name": "dave", "pending": 2},
                      {"name": "erin", "pending": 2}]}
    with pytest.raises(ResponseError) as e:
        r.xclaim(s, "nosuch", "x", 0, ["1-0"])
    assert str(e.value) == ("NOGROUP No such key '%s' or consumer group 'nosuch'" % s)


def test_xautoclaim_cursor_justid_and_deleted_entries(r, prefix):
    s = prefix + "s"
    fill(r, s, 7)
    r.xgroup_create(s, "g", id="0")
    r.xreadgroup("g", "alice", {s: ">"})  # 1-0 .. 7-0 pending for alice
    # Age all but 3-0 (XCLAIM IDLE to the same consumer), and delete 4-0.
    r.xclaim(s, "g", "alice", 0, ["1-0", "2-0", "4-0", "5-0", "6-0", "7-0"], idle=60000,
             justid=True)
    assert r.xdel(s, "4-0") == 1

    # Nothing is idle for an hour, but the deleted 4-0 is reported and dropped from the PEL
    # all the same.
    assert r.xautoclaim(s, "g", "bob", 3_600_000) == ["0-0", [], ["4-0"]]
    assert r.xautoclaim(s, "g", "bob", 3_600_000) == ["0-0", [], []]
    # COUNT 3 claims three: 1-0, 2-0, (3-0 is too fresh) 5-0; the cursor is the next id, 6-0.
    assert r.xautoclaim(s, "g", "bob", 30000, start_id="0-0", count=3) == [
        "6-0", [("1-0", {"n": "0"}), ("2-0", {"n": "1"}), ("5-0", {"n": "4"})], []]
    # From the cursor, after 6-0 was deleted too: 6-0 reported, 7-0 claimed, cursor back at 0-0.
    assert r.xdel(s, "6-0") == 1
    assert r.xautoclaim(s, "g", "bob", 30000, start_id="6-0", count=10) == [
        "0-0", [("7-0", {"n": "6"})], ["6-0"]]
    rows = r.xpending_range(s, "g", "-", "+", 10)
    assert [(x["message_id"], x["consumer"], x["times_delivered"]) for x in rows] == [
        ("1-0", "bob", 2), ("2-0", "bob", 2), ("3-0", "alice", 1), ("5-0", "bob", 2),
        ("7-0", "bob", 2)]
    # JUSTID: redis-py returns just the claimed ids; delivery counts stay.
    assert r.xautoclaim(s, "g", "carol", 0, start_id="0-0", count=2, justid=True) == [
        "1-0", "2-0"]
    rows = r.xpending_range(s, "g", "-", "2-0", 10)
    assert [(x["message_id"], x["consumer"], x["times_delivered"]) for x in rows] == [
        ("1-0", "carol", 2), ("2-0", "carol", 2)]
    assert r.xautoclaim(s, "g", "carol", 0, start_id="(3-0") == [
        "0-0", [("5-0", {"n": "4"}), ("7-0", {"n": "6"})], []]
    with pytest.raises(ResponseError) as e:
        r.xautoclaim(s, "nosuch", "x", 0)
    assert str(e.value) == ("NOGROUP No such key '%s' or consumer group 'nosuch'" % s)


# --- XINFO -----------------------------------------------------------------------------------

def test_xinfo_stream_groups_and_consumers(r, prefix):
    s = prefix + "s"
    r.xadd(s, {"a": "1"}, id="1-0")
    r.xadd(s, {"b": "2"}, id="2-0")
    r.xadd(s, {"c": "3"}, id="3-0")
    r.xdel(s, "2-0")
    r.xgroup_create(s, "g1", id="0")
    r.xgroup_create(s, "g2", id="$")
    r.xreadgroup("g1", "alice", {s: ">"}, count=1)  # 1-0
    r.xclaim(s, "g1", "alice", 0, ["1-0"], idle=45000, justid=True)
    r.xgroup_createconsumer(s, "g1", "bob")

    assert r.xinfo_stream(s) == {
        "length": 2, "radix-tree-keys": 1, "radix-tree-nodes": 2,
        "last-generated-id": "3-0", "max-deleted-entry-id": "2-0", "entries-added": 3,
        "recorded-first-entry-id": "1-0", "groups": 2,
        "first-entry": ("1-0", {"a": "1"}), "last-entry": ("3-0", {"c": "3"}),
    }
    # With a deletion after g1's last id, g1's entries-read and lag are unknown (nil).
    assert r.xinfo_groups(s) == [
        {"name": "g1", "consumers": 2, "pending": 1, "last-delivered-id": "1-0",
         "entries-read": None, "lag": None},
        {"name": "g2", "consumers": 0, "pending": 0, "last-delivered-id": "3-0",
         "entries-read": None, "lag": 0},
    ]
    consumers = r.xinfo_consumers(s, "g1")
    assert [(c["name"], c["pending"]) for c in consumers] == [("alice", 1), ("bob", 0)]
    assert sorted(consumers[0]) == ["idle", "name", "pending"]
    for c in consumers:
        assert 0 <= c["idle"] < WAIT_S * 1000  # XCLAIM JUSTID and CREATECONSUMER count as seen
    assert r.xinfo_consumers(s, "g2") == []

    empty = prefix + "empty"
    r.xgroup_create(empty, "g", id="$", mkstream=True)
    assert r.xinfo_stream(empty) == {
        "length": 0, "radix-tree-keys": 0, "radix-tree-nodes": 1,
        "last-generated-id": "0-0", "max-deleted-entry-id": "0-0", "entries-added": 0,
        "recorded-first-entry-id": "0-0", "groups": 1,
        "first-entry": None, "last-entry": None,
    }
    with pytest.raises(ResponseError) as e:
        r.xinfo_stream(prefix + "missing")
    assert str(e.value) == "no such key"
    with pytest.raises(ResponseError) as e:
        r.xinfo_consumers(s, "nosuch")
    assert str(e.value) == ("NOGROUP No such consumer group 'nosuch' for key name '%s'" % s)


def test_xinfo_stream_full(r, prefix):
    s = prefix + "s"
    fill(r, s, 3)  # 1-0 2-0 3-0
    r.xgroup_create(s, "g", id="0")
    r.xreadgroup("g", "alice", {s: ">"}, count=2)
    r.xclaim(s, "g", "alice", 0, ["2-0"], retrycount=4, justid=True)
    now = server_ms(r)

    info = r.xinfo_stream(s, full=True)
    groups = info.pop("groups")
    assert info == {
        "length": 3, "radix-tree-keys": 1, "radix-tree-nodes": 2,
        "last-generated-id": "3-0", "max-deleted-entry-id": "0-0", "entries-added": 3,
        "recorded-first-entry-id": "1-0",
        "entries": {"1-0": {"n": "0"}, "2-0": {"n": "1"}, "3-0": {"n": "2"}},
    }
    [group] = groups
    pel, consumers = group.pop("pending"), group.pop("consumers")
    assert group == {"name": "g", "last-delivered-id": "2-0", "entries-read": 2, "lag": 1,
                     "pel-count": 2}
    # Group PEL rows: id, consumer, delivery time (Unix ms), delivery count.
    assert [(p[0], p[1], p[3]) for p in pel] == [("1-0", "alice", 1), ("2-0", "alice", 4)]
    for p in pel:
        assert now - WAIT_S * 1000 <= p[2] <= now
    [consumer] = consumers
    fields = dict(zip(consumer[0::2], consumer[1::2]))
    assert list(fields) == ["name", "seen-time", "pel-count", "pending"]
    assert (fields["name"], fields["pel-count"]) == ("alice", 2)
    assert now - WAIT_S * 1000 <= fields["seen-time"] <= now
    assert [(p[0], p[2]) for p in fields["pending"]] == [("1-0", 1), ("2-0", 4)]

    # COUNT limits the entries and the PEL rows shown.
    fill(r, s, 20, start_ms=10)
    limited = r.execute_command("XINFO", "STREAM", s, "FULL", "COUNT", "2")
    assert limited[limited.index("entries") + 1] == [["1-0", ["n", "0"]], ["2-0", ["n", "1"]]]
    assert limited[limited.index("length") + 1] == 23


# --- a work queue ----------------------------------------------------------------------------

def test_consumer_group_work_queue_with_a_crashed_consumer(client_for, prefix):
    s = prefix + "jobs"
    producer = client_for()
    producer.xgroup_create(s, "workers", id="$", mkstream=True)
    job_ids = {}
    for i in range(50):
        job_ids[producer.xadd(s, {"job": i})] = i
    assert producer.xlen(s) == 50

    workers = {name: client_for() for name in ("w1", "w2", "crashed")}
    processed = []  # (worker, job), every job processed and acknowledged

    def work_once(name, count):
        got = workers[name].xreadgroup("workers", name, {s: ">"}, count=count)
        entries = got[0][1] if got else []
        return [(entry_id, int(fields["job"])) for entry_id, fields in entries]

    # The crashed consumer takes 7 jobs and never acknowledges them.
    taken_by_crashed = work_once("crashed", 7)
    assert [job for _, job in taken_by_crashed] == list(range(7))
    # w1 and w2 share the rest, acknowledging as they go.
    while True:
        batches = [(name, work_once(name, 4)) for name in ("w1", "w2")]
        if not any(batch for _, batch in batches):
            break
        for name, batch in batches:
            for entry_id, job in batch:
                processed.append((name, job))
            if batch:
                assert workers[name].xack(s, "workers", *[e for e, _ in batch]) == len(batch)
    assert sorted(job for _, job in processed) == list(range(7, 50))
    assert producer.xpending(s, "workers") == {
        "pending": 7, "min": taken_by_crashed[0][0], "max": taken_by_crashed[-1][0],
        "consumers": [{"name": "crashed", "pending": 7}]}

    # Time passes for the crashed consumer's jobs (their delivery moved a minute back), and
    # w1 takes them over with XAUTOCLAIM, in pages of 3.
    crashed_ids = [e for e, _ in taken_by_crashed]
    assert producer.xclaim(s, "workers", "crashed", 0, crashed_ids, idle=60000,
                           justid=True) == crashed_ids
    cursor, pages = "0-0", 0
    while True:
        cursor, claimed, deleted = workers["w1"].xautoclaim(s, "workers", "w1", 30000,
                                                            start_id=cursor, count=3)
        assert deleted == []
        pages += 1
        for entry_id, fields in claimed:
            processed.append(("w1", int(fields["job"])))
            assert workers["w1"].xack(s, "workers", entry_id) == 1
        if cursor == "0-0":
            break
    assert pages == 3
    assert sorted(job for _, job in processed) == list(range(50))  # each exactly once
    assert {name for name, _ in processed} == {"w1", "w2"}
    assert producer.xpending(s, "workers") == {"pending": 0, "min": None, "max": None,
                                               "consumers": []}
    [group] = producer.xinfo_groups(s)
    assert (group["pending"], group["consumers"], group["entries-read"], group["lag"]) == (
        0, 3, 50, 0)
    consumers = {c["name"]: c["pending"] for c in producer.xinfo_consumers(s, "workers")}
    assert consumers == {"crashed": 0, "w1": 0, "w2": 0}
    assert producer.xgroup_delconsumer(s, "workers", "crashed") == 0
