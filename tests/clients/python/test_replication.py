"""Replication between warden and redis-server 7.0.15, both roles, over the real protocol.

Each test starts the servers it needs: warden from WARDEN_BIN (default build/warden) and
redis-server from /usr/bin, each in a temp directory of its own with `--save ""`, on a free
loopback port (warden binds port 0 and writes a port file), and stops them by PID. A test that
takes a pair runs once per (master, replica): warden -> redis-server, redis-server -> warden and
warden -> warden; one that takes a trio mixes three servers. Where a reply is compared with
Redis's, the test runs the same steps on a redis-server of its own and also pins the literal.
No sleeps: every wait polls with a deadline and, between tries, waits on a server process
itself (so a crash ends the wait at once, with the servers' logs in the failure).

REPLICATION_ALL_REDIS=1 runs every "warden" role with redis-server instead: the whole file then
passes, which shows that each expectation is Redis's own.

   1 full sync, diskless and disk-based, of every type and encoding, TTLs, four databases and a
     function library, compared key by key; two replicas at once or one after the other; the
     diskless delay honoured
   2 the stream after the sync: thousands of mixed writes (pipelines, MULTI, EVAL, FCALL,
     expiring keys, big values, other databases), WAIT, offsets; what each command propagates
     as, byte for byte against Redis, and the replica applying each of those forms
   3 partial resync after CLIENT KILL of the link, from either side
   4 a replica restarted from its own dump.rdb (repl-id / repl-offset) resyncs partially; a
     master restarted from its dump.rdb takes its replica back partially
   5 failover by hand among three servers; chained replicas
   6 READONLY, WAIT on a replica, MASTERDOWN, NOREPLICAS, WAIT's offsets against a raw replica,
     expired keys kept on a replica until the master's DEL, PUBLISH reaching a replica
   7 ROLE, INFO replication and CLIENT LIST of the link, against the same topology on Redis
   8 REPLICAOF / REPLCONF / PSYNC / WAIT errors, REPLCONF ACK/GETACK from a client
   9 redis-cli --rdb / --functions-rdb (checked by redis-check-rdb, loaded by redis-server) and
     --replica against a master; a raw PSYNC's payload and the stream after it
  10 bad input: a replica that closes or sends garbage mid-sync, a dead master port (the
     replica retries with Redis's handshake), REPLICAOF to itself
"""

import os
import random
import re
import select
import shutil
import socket
import subprocess
import tempfile
import time

import pytest
import redis

from resp_conn import Conn, ReplyTimeout, encode, parse, reply_end

WAIT_S = 10
DATABASES = 16
ALL_REDIS = os.environ.get("REPLICATION_ALL_REDIS", "") not in ("", "0")
REDIS_SERVER = "/usr/bin/redis-server"
REDIS_CLI = "/usr/bin/redis-cli"
REDIS_CHECK_RDB = "/usr/bin/redis-check-rdb"

FUTURE_S = 4_102_444_800                # 2100
FUTURE_MS = 4_102_444_800_456

# (master, replica)
PAIRS = [("warden", "redis"), ("redis", "warden"), ("warden", "warden")]
PAIR_IDS = ["%s-to-%s" % pair for pair in PAIRS]
KINDS = ["warden", "redis"]  # single-server tests: warden, and redis-server as the reference
UNDER_TEST = ["warden"]  # the slower ones: REPLICATION_ALL_REDIS=1 runs them on redis-server


# --- servers -------------------------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def warden_bin():
    return os.path.abspath(os.environ.get("WARDEN_BIN") or
                           os.path.join(os.path.dirname(__file__), "../../../build/warden"))


class Server:
    """One server in a directory of its own. kind "warden" runs WARDEN_BIN (redis-server under
    REPLICATION_ALL_REDIS), "redis" runs redis-server. `directory` reuses a stopped server's
    directory (its dump.rdb); `rdb` is written there as dump.rdb before the start; `port` is
    a port to take again (a restart), else a free one."""

    def __init__(self, kind, extra=(), directory=None, rdb=None, port=None):
        self.kind = kind
        self.binary = "redis-server" if kind == "redis" or ALL_REDIS else "warden"
        self.dir = directory or tempfile.mkdtemp(prefix="repl-%s-" % kind)
        self.extra = list(extra)
        if rdb is not None:
            with open(os.path.join(self.dir, "dump.rdb"), "wb") as out:
                out.write(rdb)
        common = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                  "--dir", self.dir, "--dbfilename", "dump.rdb", "--databases", str(DATABASES),
                  "--repl-diskless-sync-delay", "0", "--enable-debug-command", "yes",
                  *self.extra]
        self.port_file = os.path.join(self.dir, "port")
        if os.path.exists(self.port_file):
            os.unlink(self.port_file)
        if self.binary == "redis-server":
            self.port = port or free_port()
            argv = [REDIS_SERVER, "--port", str(self.port), *common]
        else:
            self.port = None
            argv = [warden_bin(), "--port", str(port or 0), "--port-file", self.port_file,
                    *common]
        self.log_path = os.path.join(self.dir, "server-%d.log" % time.monotonic_ns())
        try:
            with open(self.log_path, "wb") as log:
                self.proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                             cwd=self.dir)
        except BaseException:
            if directory is None:
                shutil.rmtree(self.dir, ignore_errors=True)
            raise

    def __repr__(self):
        return "%s:%s" % (self.kind, self.port)

    def log(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode(errors="replace")[-2500:]
        except OSError:
            return ""

    def settle(self, deadline):
        while True:
            if self.proc.poll() is not None:
                raise AssertionError("%r exited with %s:\n%s"
                                     % (self, self.proc.returncode, self.log()))
            if self.port is None and os.path.exists(self.port_file):
                with open(self.port_file) as f:
                    text = f.read().strip()
                self.port = int(text) if text else None
            if self.port is not None:
                try:
                    with redis.Redis(port=self.port, socket_timeout=WAIT_S) as c:
                        if c.ping():
                            return
                except (redis.BusyLoadingError, redis.ConnectionError):
                    pass
            if time.monotonic() > deadline:
                raise AssertionError("%r did not start:\n%s" % (self, self.log()))
            try:
                self.proc.wait(timeout=0.01)
            except subprocess.TimeoutExpired:
                pass

    def client(self, db=0):
        """redis-py without its reply parsers: every reply as the server sent it."""
        c = redis.Redis(port=self.port, db=db, socket_timeout=WAIT_S)
        c.response_callbacks.clear()
        return c

    def conn(self):
        return Conn(self.port, timeout=WAIT_S)

    def call(self, *args):
        """One command on a new connection; the reply's exact bytes."""
        with self.conn() as c:
            return c.call(*args, timeout=WAIT_S)

    def value(self, *args):
        with self.conn() as c:
            return parse(c.call(*args, timeout=WAIT_S))

    def info(self, section):
        text = self.value("INFO", section).decode()
        return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)

    def alive(self):
        return self.proc.poll() is None

    def crash(self):
        """SIGKILL, by PID: gone at once (a master's SIGTERM waits for its replicas' ACKs)."""
        self.proc.kill()
        self.proc.wait()

    def stop(self, keep_dir=False):
        if self.proc.poll() is None:
            self.proc.terminate()
        self.reap(keep_dir)

    def reap(self, keep_dir=False):
        if self.proc.poll() is None:
            try:
                self.proc.wait(timeout=WAIT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if not keep_dir:
            shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def servers():
    """servers(kind, ...) -> started Servers; all stopped (by PID) at the end of the test."""
    made = []

    def start(*specs):
        """Each spec: a kind, or (kind, extra flags) or a dict of Server's arguments."""
        started = []
        for spec in specs:
            if isinstance(spec, str):
                spec = {"kind": spec}
            elif isinstance(spec, tuple):
                spec = {"kind": spec[0], "extra": spec[1]}
            server = Server(**spec)
            made.append(server)
            started.append(server)
        deadline = time.monotonic() + WAIT_S
        for server in started:
            server.settle(deadline)
        return started if len(started) > 1 else started[0]

    yield start
    for server in made:  # all at once: a master stopped alone waits for its replicas' ACKs
        if server.alive():
            server.proc.terminate()
    for server in made:
        server.reap()


def wait_until(predicate, watch, what, timeout=WAIT_S):
    """Polls predicate() until it returns something truthy, and returns that. Between tries it
    waits on the watched servers' processes; a watched server that exits fails the wait."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        for server in watch:
            if not server.alive():
                raise AssertionError("%r exited (%s) while waiting for %s:\n%s"
                                     % (server, server.proc.returncode, what, server.log()))
        last = predicate()
        if last:
            return last
        if time.monotonic() > deadline:
            raise AssertionError("no %s within %ss (last: %r)\n%s" % (
                what, timeout, last,
                "\n".join("--- %r:\n%s" % (s, s.log()) for s in watch)))
        try:
            watch[0].proc.wait(timeout=0.01)
        except subprocess.TimeoutExpired:
            pass


def repl(server):
    return server.info("replication")


def stats(server):
    fields = server.info("stats")
    return {k: int(fields[k]) for k in ("sync_full", "sync_partial_ok", "sync_partial_err")}


def link_up(replica, master):
    """The replica's link to this master is up and the master lists it online."""
    r = repl(replica)
    if r.get("master_port") != str(master.port) or r.get("master_link_status") != "up":
        return False
    return any("state=online" in v for k, v in repl(master).items() if k.startswith("slave"))


def attach(replica, master):
    assert replica.call("REPLICAOF", "127.0.0.1", str(master.port)) == b"+OK\r\n"
    wait_until(lambda: link_up(replica, master), [master, replica],
               "link %r -> %r up" % (master, replica))


def settled(master, replicas):
    """master_repl_offset of the master equals every replica's slave_repl_offset (and the
    master's own offset did not move while they were read)."""
    def check():
        before = repl(master)["master_repl_offset"]
        offsets = [repl(r)["slave_repl_offset"] for r in replicas]
        after = repl(master)["master_repl_offset"]
        return before == after and all(o == before for o in offsets) and (before, offsets)
    return wait_until(check, [master, *replicas], "replication offsets to settle")


# --- the data set in a canonical form ------------------------------------------------------------

def stream_info(c, key, propagated):
    info = c.execute_command("XINFO", "STREAM", key, "FULL")
    pairs = dict(zip(info[0::2], info[1::2]))
    pairs.pop(b"radix-tree-nodes", None)  # the radix tree's own shape, not the data
    groups = []
    for group in pairs.get(b"groups") or []:
        g = dict(zip(group[0::2], group[1::2]))
        if propagated:  # XREADGROUP reaches a replica as XCLAIM, which carries no entries-read
            g.pop(b"entries-read", None)
            g.pop(b"lag", None)
        consumers = []
        for consumer in g.get(b"consumers") or []:
            fields = dict(zip(consumer[0::2], consumer[1::2]))
            if propagated:  # a replica stamps seen-time with its own clock
                fields.pop(b"seen-time", None)
            consumers.append(fields)
        g[b"consumers"] = consumers
        groups.append(g)
    pairs[b"groups"] = groups
    return pairs


def value_of(c, key, kind, propagated):
    if kind == b"string":
        return c.execute_command("GET", key)
    if kind == b"list":
        return c.execute_command("LRANGE", key, 0, -1)
    if kind == b"set":
        return sorted(c.execute_command("SMEMBERS", key))
    if kind == b"zset":
        return c.execute_command("ZRANGE", key, 0, -1, "WITHSCORES")
    if kind == b"hash":
        flat = c.execute_command("HGETALL", key)
        return sorted(zip(flat[0::2], flat[1::2]))
    if kind == b"stream":
        return (c.execute_command("XRANGE", key, "-", "+"), stream_info(c, key, propagated))
    raise AssertionError("unexpected type %r of %r" % (kind, key))


def snapshot(server, propagated=False):
    """Every database's keys with TYPE, PEXPIRETIME and contents; PTTLs; FUNCTION LIST."""
    data, pttl = {}, {}
    with server.client() as c:
        for db in range(DATABASES):
            c.execute_command("SELECT", db)
            for key in sorted(c.execute_command("KEYS", "*")):
                kind = c.execute_command("TYPE", key)
                data[(db, key)] = (kind, c.execute_command("PEXPIRETIME", key),
                                   value_of(c, key, kind, propagated))
                pttl[(db, key)] = c.execute_command("PTTL", key)
        c.execute_command("SELECT", 0)
        libs = []
        for lib in c.execute_command("FUNCTION", "LIST", "WITHCODE"):
            fields = dict(zip(lib[0::2], lib[1::2]))
            fields[b"functions"] = sorted(fields[b"functions"], key=lambda fn: fn[1])
            libs.append(fields)
    return {"data": data, "pttl": pttl,
            "functions": sorted(libs, key=lambda lib: lib[b"library_name"])}


def short_keys(server):
    """The workload's keys with a TTL of a few milliseconds that KEYS still lists."""
    found = []
    with server.conn() as c:
        for db in sorted(set(WORKLOAD_DBS)):
            assert c.call("SELECT", db) == b"+OK\r\n"
            found += [(db, key) for key in parse(c.call("KEYS", "short:*"))]
    return found


def assert_same_data(master, replica, propagated=False, expect_keys=None):
    if propagated:
        # Redis's KEYS judges expiry by a time cached for up to a cron tick: a key whose few
        # milliseconds ran out just now may be listed, and gone a moment later.
        wait_until(lambda: not short_keys(master) and not short_keys(replica),
                   [master, replica], "the short-lived keys to expire")
    want, got = snapshot(master, propagated), snapshot(replica, propagated)
    if expect_keys is not None:
        assert len(want["data"]) == expect_keys
    assert sorted(got["data"]) == sorted(want["data"])
    for key, value in want["data"].items():
        assert got["data"][key] == value, key
    assert got["functions"] == want["functions"]
    for key, ttl in want["pttl"].items():
        other = got["pttl"][key]
        if ttl < 0:
            assert other == ttl, key
        else:  # read moments apart: the same deadline, a little less left
            assert 0 < other <= ttl + 1000 and ttl - other < 5000, (key, ttl, other)
    return want


# --- a data set of every type --------------------------------------------------------------------

FUNCTION_CODE = """#!lua name=repllib
local function rset(keys, args)
  return redis.call('SET', keys[1], args[1])
end
local function rpush_count(keys, args)
  redis.call('INCR', keys[1])
  return redis.call('RPUSH', keys[2], args[1])
end
redis.register_function('rset', rset)
redis.register_function('rpush_count', rpush_count)
redis.register_function{function_name='rget', callback=function(keys, args)
  return redis.call('GET', keys[1]) end, flags={'no-writes'}, description='reads one key'}
"""

SCRIPT = """
local n = redis.call('INCR', KEYS[1])
redis.call('SET', KEYS[2], ARGV[1] .. n, 'PX', 200000)
if n % 3 == 0 then redis.call('DEL', KEYS[2]) end
redis.call('SPOP', KEYS[3])
return n
"""


def populate(server):
    """Every type and encoding in four databases, TTLs and a function library; the key count."""
    rng = random.Random(1)
    with server.conn() as c:
        cmds = [
            ("SET", "s:int", "12345"), ("SET", "s:neg", "-9007199254740993"),
            ("SET", "s:max", str(2**63 - 1)), ("SET", "s:float", "3.25"), ("SET", "s:empty", ""),
            ("SET", "s:bin", bytes(range(256))), ("SET", "s:long", "abc" * 400),
            ("SET", "s:21", "x" * 21), ("SET", "s:random", rng.randbytes(300)),
            ("SET", b"\x00key\xff", "binary key"), ("INCRBY", "s:counter", 42),
            ("APPEND", "s:appended", "abc"), ("APPEND", "s:appended", "def"),
            ("SETRANGE", "s:range", 5, "xyz"), ("INCRBYFLOAT", "s:incrfloat", "1.5"),
            ("RPUSH", "l:small", "a", "b", 1, 2, "c"),
            ("RPUSH", "l:big", *["item-%04d-%s" % (i, "v" * (i % 50)) for i in range(600)]),
            ("LPUSH", "l:ints", *range(300)),
            ("SADD", "set:int", 1, 2, 3, -5, 100000, 2**40),
            ("SADD", "set:int-many", *range(0, 1000, 2)),
            ("SADD", "set:ints-hashtable", *range(1000)),
            ("SADD", "set:str", "a", "b", "c"),
            ("SADD", "set:big", *["m%d" % i for i in range(700)]),
            ("HSET", "h:small", "f1", "v1", "f2", 2, "f3", "x" * 30),
            ("HSET", "h:big", *[x for i in range(300) for x in ("field%d" % i, "value%d" % i)]),
            ("HSET", "h:longvalue", "f", "y" * 200),
            ("ZADD", "z:small", 1, "a", 2.5, "b", -3, "c"),
            ("ZADD", "z:big", *[x for i in range(300) for x in (i * 0.5, "m%d" % i)]),
            ("ZADD", "z:inf", "-inf", "lo", "+inf", "hi", 0, "mid", "1e-300", "tiny"),
            ("SET", "ttl:px", "v", "PX", 3_600_000), ("SET", "ttl:ex", "v", "EX", 7200),
            ("HSET", "ttl:hash", "f", "v"), ("EXPIREAT", "ttl:hash", FUTURE_S),
            ("RPUSH", "ttl:list", "a"), ("PEXPIREAT", "ttl:list", FUTURE_MS),
            ("SADD", "ttl:set", 1, 2), ("EXPIRE", "ttl:set", 100000),
        ]
        for i in range(1, 251):
            fields = ("n", i, "payload", "p" * (i % 7)) if i % 10 else ("other", i)
            cmds.append(("XADD", "st:main", "1-%d" % i, *fields))
        cmds += [
            ("XDEL", "st:main", "1-3", "1-4"),
            ("XGROUP", "CREATE", "st:main", "g1", "0"),
            ("XREADGROUP", "GROUP", "g1", "alice", "COUNT", 5, "STREAMS", "st:main", ">"),
            ("XREADGROUP", "GROUP", "g1", "bob", "COUNT", 3, "STREAMS", "st:main", ">"),
            ("XACK", "st:main", "g1", "1-1", "1-2"),
            ("XGROUP", "CREATE", "st:main", "g2", "$"),
            ("XGROUP", "CREATECONSUMER", "st:main", "g2", "carol"),
            ("XGROUP", "CREATE", "st:main", "g3", "1-10", "ENTRIESREAD", 7),
            ("XADD", "st:empty", "5-5", "f", "v"), ("XDEL", "st:empty", "5-5"),
            ("XGROUP", "CREATE", "st:mk", "g", "$", "MKSTREAM"),
            ("XADD", "st:ttl", "2-2", "f", "v"), ("PEXPIREAT", "st:ttl", FUTURE_MS + 1),
            ("FUNCTION", "LOAD", FUNCTION_CODE),
        ]
        for i in range(20):
            cmds.append(("XADD", "st:capped", "MAXLEN", 5, "*", "i", i))
        for db in (1, 7, 15):
            cmds += [("SELECT", db), ("SET", "db%d:s" % db, "in %d" % db),
                     ("RPUSH", "db%d:l" % db, db, db + 1),
                     ("SET", "db%d:ttl" % db, "x", "PX", 5_000_000 + db),
                     ("HSET", "s:int", "same name", "other db")]
        cmds.append(("SELECT", 0))
        c.send_raw(b"".join(encode(*cmd) for cmd in cmds))
        for cmd in cmds:
            reply = c.reply(WAIT_S)
            assert not reply.startswith(b"-"), (cmd[:3], reply)
    return 38 + 4 * 3  # 38 keys in db 0, four in each other database


# --- 1. full sync --------------------------------------------------------------------------------

@pytest.mark.parametrize("diskless", ["yes", "no"], ids=["diskless", "disk"])
@pytest.mark.parametrize("pair", PAIRS, ids=PAIR_IDS)
def test_full_sync_of_every_type(servers, pair, diskless):
    master, replica = servers((pair[0], ["--repl-diskless-sync", diskless]), pair[1])
    keys = populate(master)
    before = stats(master)
    attach(replica, master)
    after = stats(master)
    assert after["sync_full"] == before["sync_full"] + 1
    assert after["sync_partial_ok"] == before["sync_partial_ok"]
    assert_same_data(master, replica, expect_keys=keys)
    settled(master, [replica])


def test_diskless_sync_delay_is_waited_once(servers):
    """repl-diskless-sync-delay 2: the sync starts after two seconds, not never (the keepalive
    newlines sent while the replica waits do not restart the delay)."""
    master, replica = servers(("warden", ["--repl-diskless-sync-delay", "2"]), "redis")
    assert master.call("SET", "k", "v") == b"+OK\r\n"
    started = time.monotonic()
    assert replica.call("REPLICAOF", "127.0.0.1", str(master.port)) == b"+OK\r\n"
    wait_until(lambda: link_up(replica, master), [master, replica], "the delayed sync",
               timeout=2 + WAIT_S)
    assert time.monotonic() - started >= 1.9
    assert replica.call("GET", "k") == b"$1\r\nv\r\n"


def add_big_values(server, count=8):
    """`count` values of 512 KiB of random bytes: a payload larger than the socket buffers,
    whose snapshot takes the child a while."""
    rng = random.Random(11)
    with server.conn() as c:
        for i in range(count):
            assert c.call("SET", "big:%d" % i, rng.randbytes(512 * 1024)) == b"+OK\r\n"


@pytest.mark.parametrize("when", ["together", "one-after-the-other"])
@pytest.mark.parametrize("diskless", ["yes", "no"], ids=["diskless", "disk"])
@pytest.mark.parametrize("kind", UNDER_TEST)
def test_two_replicas(servers, kind, diskless, when):
    """Two replicas of one master: asking at the same moment (the second while the first one's
    snapshot is being written) or the second once the first is online. Both get the data set
    and then the stream."""
    master, r1, r2 = servers((kind, ["--repl-diskless-sync", diskless]), "redis", "redis")
    populate(master)
    add_big_values(master)
    if when == "together":
        for r in (r1, r2):
            assert r.call("REPLICAOF", "127.0.0.1", str(master.port)) == b"+OK\r\n"
        for r in (r1, r2):
            wait_until(lambda: link_up(r, master), [master, r1, r2], "%r's link up" % r)
    else:
        attach(r1, master)
        attach(r2, master)
    assert write_and_wait(master, 2, ("SET", "after", "both")) == [b"+OK\r\n", b":2\r\n"]
    settled(master, [r1, r2])
    assert_same_data(master, r1)
    assert_same_data(master, r2)


# --- 2. the stream -------------------------------------------------------------------------------

WORKLOAD_DBS = [0, 0, 1, 2, 5, 13]


def workload(rng, count):
    """`count` mixed writes as batches of commands (some in MULTI/EXEC)."""
    cmds = []
    db = 0
    for i in range(count):
        r = rng.random()
        n = rng.randrange(40)
        early = i < count // 2
        if r < 0.10:
            cmds.append(("SET", "str:%d" % n, "v%d" % i, "PX", rng.randrange(100000, 200000)))
        elif r < 0.14 and early:
            cmds.append(("SET", "short:%d" % i, "gone", "PX", rng.randrange(1, 5)))
        elif r < 0.20:
            cmds.append(("INCR", "cnt:%d" % n))
        elif r < 0.23:
            cmds.append(("INCRBYFLOAT", "flt:%d" % (n % 5), "1.25"))
        elif r < 0.27:
            cmds.append(("DEL", "str:%d" % n, "cnt:%d" % n))
        elif r < 0.33:
            cmds.append(("LPUSH", "list:%d" % (n % 8), "e%d" % i))
        elif r < 0.36:
            cmds.append(("RPOP", "list:%d" % (n % 8)))
        elif r < 0.38:
            cmds.append(("LMOVE", "list:%d" % (n % 8), "list:%d" % (n % 3), "LEFT", "RIGHT"))
        elif r < 0.42:
            cmds.append(("SADD", "set:%d" % (n % 6), *("m%d" % rng.randrange(100)
                                                       for _ in range(3))))
        elif r < 0.44:
            cmds.append(("SPOP", "set:%d" % (n % 6)))
        elif r < 0.48:
            cmds.append(("HSET", "hash:%d" % (n % 6), "f%d" % (i % 30), i))
        elif r < 0.50:
            cmds.append(("HINCRBY", "hash:%d" % (n % 6), "ctr", 3))
        elif r < 0.54:
            cmds.append(("ZADD", "zset:%d" % (n % 4), rng.randrange(-1000, 1000) / 8,
                         "m%d" % rng.randrange(60)))
        elif r < 0.56:
            cmds.append(("ZPOPMIN", "zset:%d" % (n % 4)))
        elif r < 0.60:
            cmds.append(("XADD", "stream:%d" % (n % 2), "*", "i", i))
        elif r < 0.62:
            cmds.append(("XREADGROUP", "GROUP", "grp", "c%d" % (n % 3), "COUNT", 2,
                         "STREAMS", "stream:%d" % (n % 2), ">"))
        elif r < 0.63:
            cmds.append(("XAUTOCLAIM", "stream:%d" % (n % 2), "grp", "c9", 0, "0-0", "COUNT", 1))
        elif r < 0.64:
            cmds.append(("XTRIM", "stream:%d" % (n % 2), "MAXLEN", 50))
        elif r < 0.68:
            cmds.append(("EVAL", SCRIPT, 3, "cnt:%d" % n, "str:s%d" % n, "set:%d" % (n % 6),
                         "lua"))
        elif r < 0.71:
            cmds.append(("FCALL", "rset", 1, "str:f%d" % n, "fn%d" % i))
        elif r < 0.73:
            cmds.append(("FCALL", "rpush_count", 2, "cnt:%d" % n, "list:%d" % (n % 8), i))
        elif r < 0.76:
            cmds.append(("EXPIRE", "str:%d" % n, rng.randrange(1000, 2000)))
        elif r < 0.77:
            cmds.append(("PERSIST", "str:%d" % n))
        elif r < 0.79:
            cmds.append(("GETEX", "str:%d" % n, "PX", rng.randrange(100000, 200000)))
        elif r < 0.80:
            cmds.append(("GETDEL", "str:f%d" % n))
        elif r < 0.82:
            cmds.append(("SETEX", "str:x%d" % n, 5000, i))
        elif r < 0.84:
            cmds.append(("COPY", "str:%d" % n, "str:copy%d" % n, "DB", 3, "REPLACE"))
        elif r < 0.85:
            cmds.append(("MOVE", "str:f%d" % n, 9))
        elif r < 0.86:
            cmds.append(("SET", "str:big%d" % (n % 4), rng.randbytes(rng.randrange(60000, 90000))))
        elif r < 0.90:
            db = rng.choice(WORKLOAD_DBS)
            cmds.append(("SELECT", db))
        elif r < 0.95:
            body = [("INCR", "cnt:%d" % n), ("LPUSH", "list:%d" % (n % 8), "tx%d" % i),
                    ("SET", "str:%d" % n, "tx", "KEEPTTL"), ("HSET", "hash:tx", "f", i)]
            cmds += [("MULTI",), *body[:rng.randrange(1, 5)], ("EXEC",)]
        else:
            cmds.append(("SET", "str:nx%d" % n, i, "NX", "EX", 100000))
    cmds.append(("SELECT", 0))
    return cmds


def write_and_wait(server, replicas, *cmds):
    """The commands, then WAIT <replicas> 5000 on the same connection (WAIT waits for the
    offset of the connection's own last write); the replies, the last one WAIT's."""
    with server.conn() as c:
        replies = [c.call(*cmd, timeout=WAIT_S) for cmd in cmds]
        return replies + [c.call("WAIT", replicas, 5000, timeout=WAIT_S)]


def run_workload(server, cmds, batch=300, wait=None):
    """Sends the workload in pipelined batches; no reply may be an error. With `wait`, ends
    with WAIT <wait> 5000 on the same connection and returns its reply."""
    with server.conn() as c:
        setup = [("FUNCTION", "LOAD", "REPLACE", FUNCTION_CODE)]
        for db in WORKLOAD_DBS:
            setup += [("SELECT", db), ("DEL", "stream:0", "stream:1"),
                      ("XGROUP", "CREATE", "stream:0", "grp", "$", "MKSTREAM"),
                      ("XGROUP", "CREATE", "stream:1", "grp", "$", "MKSTREAM")]
        setup.append(("SELECT", 0))
        for cmd in setup:
            assert not c.call(*cmd).startswith(b"-"), cmd
        for start in range(0, len(cmds), batch):
            part = cmds[start:start + batch]
            c.send_raw(b"".join(encode(*cmd) for cmd in part))
            for cmd in part:
                reply = c.reply(WAIT_S)
                assert not reply.startswith(b"-"), (cmd[:2], reply)
        if wait is not None:
            return c.call("WAIT", wait, 5000, timeout=WAIT_S)


@pytest.mark.parametrize("pair", PAIRS, ids=PAIR_IDS)
def test_stream_of_mixed_writes(servers, pair):
    master, replica = servers(*pair)
    master.call("SET", "before", "sync")
    attach(replica, master)
    assert run_workload(master, workload(random.Random(2), 4000), wait=1) == b":1\r\n"
    offset, _ = settled(master, [replica])
    assert repl(replica)["master_repl_offset"] == offset
    assert_same_data(master, replica, propagated=True)


def mask_time(arg):
    """A Unix time in milliseconds as <ms>, a stream ID made from one as <id>."""
    if re.fullmatch(rb"1\d{12}-\d+", arg):
        return b"<id>"
    if re.fullmatch(rb"1\d{12}", arg):
        return b"<ms>"
    return arg


def propagated(master, steps):
    """Runs each step (a list of commands) on one connection of a master that a raw replica
    follows, each step followed by PUBLISH __step__ <n> (propagated, and touching no key).
    Returns the replies and, per step, the commands the stream carried (pings left out,
    times masked)."""
    sock, line = start_psync(master.port)
    offset = int(line.split()[2])
    with sock:
        read_payload(sock)
        replies = []
        with master.conn() as c:
            for i, step in enumerate(steps):
                replies.append([c.call(*cmd, timeout=WAIT_S) for cmd in step])
                assert c.call("PUBLISH", "__step__", i) == b":0\r\n"
        last = [b"PUBLISH", b"__step__", str(len(steps) - 1).encode()]
        stream, buf = [], b""
        deadline = time.monotonic() + WAIT_S
        while not stream or stream[-1] != last:
            end = reply_end(buf)
            if end is not None:
                item, buf = parse(buf[:end]), buf[end:]
                if item != [b"ping"]:
                    stream.append(item)
                continue
            sock.sendall(encode("REPLCONF", "ACK", offset))  # an EOF payload's stream starts
            sock.settimeout(0.05)                            # at the first ACK
            try:
                buf += sock.recv(65536)
            except socket.timeout:
                assert time.monotonic() < deadline, "the stream stopped at %r" % stream[-3:]
    segments, current = [], []
    for item in stream:
        if item[:2] == [b"PUBLISH", b"__step__"]:
            assert item[2] == str(len(segments)).encode(), item
            segments.append(current)
            current = []
        else:
            current.append([mask_time(arg) for arg in item])
    return replies, segments


# Each step (a command, or a list of them on one connection) and what Redis 7.0.15 propagates
# for it, in order: relative TTLs as absolute PXAT/PEXPIREAT, INCRBYFLOAT as SET ... KEEPTTL,
# pops as the pop that took place, blocking commands as their non-blocking form, XREADGROUP as
# XCLAIM, a script's or transaction's writes bare when there is one, in MULTI/EXEC when more.
PLIB = ("#!lua name=plib\nredis.register_function('w', function(k, a) "
        "return redis.call('SET', k[1], a[1]) end)")
PROPAGATION = [
    (('SET', 's', 'v', 'PX', 100000),
     [[b'SELECT', b'0'], [b'SET', b's', b'v', b'PXAT', b'<ms>']]),
    (('SET', 's2', 'v', 'EX', 100),
     [[b'SET', b's2', b'v', b'PXAT', b'<ms>']]),
    (('SETEX', 's3', 100, 'v'),
     [[b'SET', b's3', b'v', b'PXAT', b'<ms>']]),
    (('PSETEX', 's4', 100000, 'v'),
     [[b'SET', b's4', b'v', b'PXAT', b'<ms>']]),
    (('SET', 's5', 'v', 'EXAT', 4102444800),
     [[b'SET', b's5', b'v', b'PXAT', b'4102444800000']]),
    (('SET', 's', 'w', 'KEEPTTL'),
     [[b'SET', b's', b'w', b'KEEPTTL']]),
    (('SET', 'nx', '1', 'NX'),
     [[b'SET', b'nx', b'1', b'NX']]),
    (('SET', 'nx', '2', 'NX'),
     []),
    (('SET', 's', 'x', 'GET'),
     [[b'SET', b's', b'x']]),
    (('EXPIRE', 's2', 200),
     [[b'PEXPIREAT', b's2', b'<ms>']]),
    (('PEXPIRE', 's3', 200000),
     [[b'PEXPIREAT', b's3', b'<ms>']]),
    (('EXPIREAT', 's4', 4102444800),
     [[b'PEXPIREAT', b's4', b'4102444800000']]),
    (('EXPIRE', 's2', 300, 'NX'),
     []),
    (('EXPIRE', 's5', 1),
     [[b'PEXPIREAT', b's5', b'<ms>']]),
    (('EXPIRE', 's5', -1),
     [[b'DEL', b's5']]),
    (('TTL', 's'),
     []),
    (('GETEX', 's', 'PX', 5000),
     [[b'PEXPIREAT', b's', b'<ms>']]),
    (('GETEX', 's', 'PERSIST'),
     [[b'PERSIST', b's']]),
    (('GETEX', 's'),
     []),
    (('GETDEL', 's3'),
     [[b'DEL', b's3']]),
    (('GETDEL', 's3'),
     []),
    (('INCRBYFLOAT', 'f', '1.5'),
     [[b'SET', b'f', b'1.5', b'KEEPTTL']]),
    (('INCR', 'i'),
     [[b'INCR', b'i']]),
    (('DECRBY', 'i', 3),
     [[b'DECRBY', b'i', b'3']]),
    (('APPEND', 'a', 'x'),
     [[b'APPEND', b'a', b'x']]),
    (('SETRANGE', 'a', 3, 'y'),
     [[b'SETRANGE', b'a', b'3', b'y']]),
    (('MSET', 'm1', 1, 'm2', 2),
     [[b'MSET', b'm1', b'1', b'm2', b'2']]),
    (('MSETNX', 'm1', 1, 'm3', 3),
     []),
    (('HSET', 'h', 'a', 1),
     [[b'HSET', b'h', b'a', b'1']]),
    (('HINCRBYFLOAT', 'h', 'b', '2.5'),
     [[b'HSET', b'h', b'b', b'2.5']]),
    (('HINCRBY', 'h', 'a', 2),
     [[b'HINCRBY', b'h', b'a', b'2']]),
    (('HDEL', 'h', 'zz'),
     []),
    (('SADD', 'one', 'm'),
     [[b'SADD', b'one', b'm']]),
    (('SPOP', 'one'),
     [[b'SREM', b'one', b'm']]),
    (('SADD', 'two', 'm1'),
     [[b'SADD', b'two', b'm1']]),
    (('SPOP', 'two', 5),
     [[b'DEL', b'two']]),
    (('SPOP', 'none'),
     []),
    (('SMOVE', 'none', 'two', 'x'),
     []),
    (('RPUSH', 'l', 'a', 'b', 'c', 'd'),
     [[b'RPUSH', b'l', b'a', b'b', b'c', b'd']]),
    (('LPOP', 'l'),
     [[b'LPOP', b'l']]),
    (('LPOP', 'l', 2),
     [[b'LPOP', b'l', b'2']]),
    (('BLPOP', 'l', 0),
     [[b'LPOP', b'l']]),
    (('RPUSH', 'l', 'e', 'f', 'g'),
     [[b'RPUSH', b'l', b'e', b'f', b'g']]),
    (('BLMOVE', 'l', 'l2', 'LEFT', 'RIGHT', 0),
     [[b'LMOVE', b'l', b'l2', b'LEFT', b'RIGHT']]),
    (('BRPOPLPUSH', 'l', 'l2', 0),
     [[b'RPOPLPUSH', b'l', b'l2']]),
    (('LMPOP', 1, 'l2', 'LEFT', 'COUNT', 1),
     [[b'LPOP', b'l2', b'1']]),
    (('BLMPOP', 0, 1, 'l', 'RIGHT'),
     [[b'RPOP', b'l', b'1']]),
    (('RPOP', 'l'),
     []),
    (('ZADD', 'z', 1, 'a', 2, 'b', 3, 'c', 4, 'd'),
     [[b'ZADD', b'z', b'1', b'a', b'2', b'b', b'3', b'c', b'4', b'd']]),
    (('ZPOPMIN', 'z'),
     [[b'ZPOPMIN', b'z']]),
    (('BZPOPMAX', 'z', 0),
     [[b'ZPOPMAX', b'z']]),
    (('ZMPOP', 1, 'z', 'MIN'),
     [[b'ZPOPMIN', b'z', b'1']]),
    (('BZMPOP', 0, 1, 'z', 'MAX', 'COUNT', 5),
     [[b'ZPOPMAX', b'z', b'1']]),
    (('ZINCRBY', 'z', 1.5, 'q'),
     [[b'ZINCRBY', b'z', b'1.5', b'q']]),
    (('ZADD', 'z', 'INCR', 1, 'q'),
     [[b'ZADD', b'z', b'INCR', b'1', b'q']]),
    (('DEL', 'missing'),
     []),
    (('DEL', 'a', 'missing'),
     [[b'DEL', b'a', b'missing']]),
    (('UNLINK', 'f'),
     [[b'UNLINK', b'f']]),
    (('EXISTS', 'i'),
     []),
    (('XADD', 'x', '*', 'f', 'v'),
     [[b'XADD', b'x', b'<id>', b'f', b'v']]),
    (('XADD', 'x', '5-1', 'f', 'v'),
     []),
    (('XADD', 'x', '5-*', 'f', 'v'),
     []),
    (('XADD', 'x', 'MAXLEN', '~', 1, '*', 'f', 'v'),
     [[b'XADD', b'x', b'MAXLEN', b'=', b'2', b'<id>', b'f', b'v']]),
    (('XGROUP', 'CREATE', 'x', 'g', '0'),
     [[b'XGROUP', b'CREATE', b'x', b'g', b'0']]),
    (('XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', 1, 'STREAMS', 'x', '>'),
     [[b'XCLAIM', b'x', b'g', b'c1', b'0', b'<id>', b'TIME', b'<ms>', b'RETRYCOUNT', b'1',
       b'FORCE', b'JUSTID', b'LASTID', b'<id>']]),
    (('XREADGROUP', 'GROUP', 'g', 'c1', 'NOACK', 'COUNT', 1, 'STREAMS', 'x', '>'),
     [[b'XGROUP', b'SETID', b'x', b'g', b'<id>', b'ENTRIESREAD', b'2']]),
    (('XAUTOCLAIM', 'x', 'g', 'c2', 0, '0-0'),
     [[b'XCLAIM', b'x', b'g', b'c2', b'0', b'<id>', b'TIME', b'<ms>', b'RETRYCOUNT', b'2',
       b'FORCE', b'JUSTID', b'LASTID', b'<id>']]),
    (('XCLAIM', 'x', 'g', 'c3', 0, '5-1'),
     []),
    (('XACK', 'x', 'g', '5-1'),
     []),
    (('XGROUP', 'CREATECONSUMER', 'x', 'g', 'c4'),
     [[b'XGROUP', b'CREATECONSUMER', b'x', b'g', b'c4']]),
    (('XGROUP', 'DELCONSUMER', 'x', 'g', 'c4'),
     [[b'XGROUP', b'DELCONSUMER', b'x', b'g', b'c4']]),
    (('XGROUP', 'SETID', 'x', 'g', '$'),
     [[b'XGROUP', b'SETID', b'x', b'g', b'$']]),
    (('XDEL', 'x', '5-1'),
     []),
    (('XTRIM', 'x', 'MAXLEN', 0),
     [[b'XTRIM', b'x', b'MAXLEN', b'0']]),
    (('XSETID', 'x', '9-9'),
     [[b'XSETID', b'x', b'9-9']]),
    (('XGROUP', 'DESTROY', 'x', 'g'),
     [[b'XGROUP', b'DESTROY', b'x', b'g']]),
    (('EVAL', "redis.call('SET', KEYS[1], 'e') return 1", 1, 'e1'),
     [[b'SET', b'e1', b'e']]),
    (('EVAL', "redis.call('SET', KEYS[1], 'e') redis.call('INCR', KEYS[2]) return 1", 2, 'e1',
      'i'),
     [[b'MULTI'], [b'SET', b'e1', b'e'], [b'INCR', b'i'], [b'EXEC']]),
    (('EVAL', "return redis.call('GET', KEYS[1])", 1, 'e1'),
     []),
    (('EVAL', "redis.call('SET', KEYS[1], 'e', 'PX', 100000) return 1", 1, 'e2'),
     [[b'SET', b'e2', b'e', b'PXAT', b'<ms>']]),
    (('EVAL', "redis.call('SELECT', 2) redis.call('SET', KEYS[1], 'in2') return 1", 1, 'e3'),
     [[b'SELECT', b'2'], [b'SET', b'e3', b'in2'], [b'SELECT', b'0']]),
    (('FUNCTION', 'LOAD', PLIB),
     [[b'FUNCTION', b'LOAD', PLIB.encode()]]),
    (('FCALL', 'w', 1, 'fk', 'fv'),
     [[b'SET', b'fk', b'fv']]),
    (('SELECT', 3),
     [[b'SELECT', b'3']]),
    (('SET', 'd3', 1),
     [[b'SET', b'd3', b'1']]),
    (('MOVE', 'd3', 4),
     [[b'MOVE', b'd3', b'4']]),
    (('SELECT', 0),
     [[b'SELECT', b'0']]),
    (('COPY', 'i', 'i2', 'DB', 5),
     [[b'COPY', b'i', b'i2', b'DB', b'5']]),
    (('SWAPDB', 4, 5),
     [[b'SWAPDB', b'4', b'5']]),
    (('PUBLISH', 'ch', 'msg'),
     [[b'PUBLISH', b'ch', b'msg']]),
    (('RENAME', 'i2', 'i3'),
     []),
    (('FLUSHDB',),
     [[b'FLUSHDB']]),
    (('SELECT', 5),
     [[b'SELECT', b'5']]),
    (('FUNCTION', 'DELETE', 'plib'),
     [[b'FUNCTION', b'DELETE', b'plib']]),
    (('FLUSHALL',),
     [[b'FLUSHALL']]),
    (('SELECT', 0),
     [[b'SELECT', b'0']]),
    ([('MULTI',), ('INCR', 'i'), ('EXEC',)],
     [[b'INCR', b'i']]),
    ([('MULTI',), ('INCR', 'i'), ('SET', 'm', 1), ('EXEC',)],
     [[b'MULTI'], [b'INCR', b'i'], [b'SET', b'm', b'1'], [b'EXEC']]),
    ([('MULTI',), ('GET', 'i'), ('EXEC',)],
     []),
    ([('MULTI',), ('SELECT', 6), ('SET', 'in6', 1), ('SELECT', 0), ('EXEC',)],
     [[b'SELECT', b'6'], [b'SET', b'in6', b'1'], [b'SELECT', b'0']]),
]


@pytest.mark.parametrize("kind", KINDS)
def test_propagated_commands(servers, kind):
    master, reference = servers(kind, "redis")
    steps = [step if isinstance(step, list) else [step] for step, _ in PROPAGATION]
    replies, got = propagated(master, steps)
    want_replies, _ = propagated(reference, steps)
    for step, reply, want in zip(steps, replies, want_replies):
        assert [re.sub(rb"1\d{12}-\d+", b"<id>", r) for r in reply] == [
            re.sub(rb"1\d{12}-\d+", b"<id>", r) for r in want], step
    assert len(got) == len(PROPAGATION)
    wrong = ["%r\n  propagated %r\n  Redis:     %r" % (step, segment, want)
             for (step, want), segment in zip(PROPAGATION, got) if segment != want]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("pair", PAIRS, ids=PAIR_IDS)
def test_replica_applies_each_propagated_form(servers, pair):
    """The steps of PROPAGATION (but the flushes) on a master: the replica ends up equal."""
    master, replica = servers(*pair)
    attach(replica, master)
    with master.conn() as c:
        for step, _ in PROPAGATION:
            step = step if isinstance(step, list) else [step]
            if step[0][0] in ("FLUSHDB", "FLUSHALL") or step[0][:2] == ("FUNCTION", "DELETE"):
                continue
            for cmd in step:
                c.call(*cmd, timeout=WAIT_S)
        assert c.call("WAIT", 1, 5000) == b":1\r\n"
    settled(master, [replica])
    assert_same_data(master, replica, propagated=True)


# --- 3. partial resync after a killed link ------------------------------------------------------

@pytest.mark.parametrize("side", ["master", "replica"], ids=["kill-on-master", "kill-on-replica"])
@pytest.mark.parametrize("pair", PAIRS, ids=PAIR_IDS)
def test_partial_resync_after_killed_link(servers, pair, side):
    master, replica = servers(*pair)
    populate(master)
    attach(replica, master)
    run_workload(master, workload(random.Random(3), 500))
    settled(master, [replica])
    before = stats(master)
    gap = workload(random.Random(4), 300)
    if side == "master":  # the kill and the gap's writes in one go, before any reconnect
        with master.conn() as c:
            c.send_raw(encode("CLIENT", "KILL", "TYPE", "replica")
                       + b"".join(encode(*cmd) for cmd in gap))
            assert c.reply(WAIT_S) == b":1\r\n"
            for cmd in gap:
                assert not c.reply(WAIT_S).startswith(b"-"), cmd
    else:
        assert replica.call("CLIENT", "KILL", "TYPE", "master") == b":1\r\n"
        run_workload(master, gap)
    wait_until(lambda: stats(master)["sync_partial_ok"] > before["sync_partial_ok"]
               and link_up(replica, master), [master, replica], "a partial resync")
    after = stats(master)
    assert after["sync_partial_ok"] == before["sync_partial_ok"] + 1
    assert after["sync_full"] == before["sync_full"]
    assert write_and_wait(master, 1, ("SET", "after", "resync")) == [b"+OK\r\n", b":1\r\n"]
    settled(master, [replica])
    assert_same_data(master, replica, propagated=True)


# --- 4. a restarted replica ----------------------------------------------------------------------

def rdb_aux(path):
    """The AUX fields redis-check-rdb reports for a file."""
    out = subprocess.run([REDIS_CHECK_RDB, path], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, timeout=WAIT_S)
    text = out.stdout.decode(errors="replace")
    assert out.returncode == 0, text
    return dict(re.findall(r"AUX FIELD (\S+) = '([^']*)'", text))


@pytest.mark.parametrize("how", ["shutdown-save", "save"])
@pytest.mark.parametrize("pair", [("redis", "warden"), ("warden", "warden"),
                                  ("warden", "redis")],
                         ids=["redis-to-warden", "warden-to-warden", "warden-to-redis"])
def test_restarted_replica_resyncs_partially(servers, pair, how):
    master, replica = servers(*pair)
    populate(master)
    attach(replica, master)
    run_workload(master, workload(random.Random(5), 300))
    offset, _ = settled(master, [replica])
    replid = repl(master)["master_replid"]
    directory = replica.dir
    if how == "save":
        assert replica.call("SAVE") == b"+OK\r\n"
        replica.stop(keep_dir=True)
    else:
        with replica.conn() as c:
            c.send("SHUTDOWN", "SAVE")
            assert c.read_until_eof(timeout=WAIT_S) == b""
        assert replica.proc.wait(timeout=WAIT_S) == 0
    aux = rdb_aux(os.path.join(directory, "dump.rdb"))
    assert aux["repl-id"] == replid
    assert int(aux["repl-offset"]) == int(offset)
    before = stats(master)
    run_workload(master, workload(random.Random(6), 200))  # while the replica is down
    replica = servers({"kind": pair[1], "directory": directory,
                       "extra": ["--replicaof", "127.0.0.1", str(master.port)]})
    wait_until(lambda: link_up(replica, master), [master, replica], "the restarted link")
    after = stats(master)
    assert after["sync_partial_ok"] == before["sync_partial_ok"] + 1
    assert after["sync_full"] == before["sync_full"]
    assert write_and_wait(master, 1, ("SET", "after", "restart")) == [b"+OK\r\n", b":1\r\n"]
    settled(master, [replica])
    assert_same_data(master, replica, propagated=True)


@pytest.mark.parametrize("pair", PAIRS, ids=PAIR_IDS)
def test_restarted_master_resyncs_partially(servers, pair):
    """A master stopped with SHUTDOWN SAVE comes back on its port from its dump.rdb with its
    replication ID and offset: its replica continues partially."""
    master, replica = servers(*pair)
    populate(master)
    attach(replica, master)
    assert run_workload(master, workload(random.Random(14), 200), wait=1) == b":1\r\n"
    offset, _ = settled(master, [replica])
    replid = repl(master)["master_replid"]
    with master.conn() as c:
        c.send("SHUTDOWN", "SAVE")
        assert c.read_until_eof(timeout=WAIT_S) == b""
    assert master.proc.wait(timeout=WAIT_S) == 0
    aux = rdb_aux(os.path.join(master.dir, "dump.rdb"))
    assert aux["repl-id"] == replid  # Redis's SHUTDOWN may add a GETACK to the offset
    assert int(aux["repl-offset"]) >= int(offset)
    wait_until(lambda: repl(replica)["master_link_status"] == "down", [replica], "link down")
    master = servers({"kind": pair[0], "directory": master.dir, "port": master.port})
    # the saved history becomes the second ID, a new one starts where it ended
    restored = repl(master)
    saved = int(aux["repl-offset"])
    assert restored["master_replid"] != replid and HEX40.match(restored["master_replid"])
    assert (restored["master_replid2"], restored["second_repl_offset"],
            restored["repl_backlog_active"], restored["repl_backlog_first_byte_offset"]) == (
        replid, str(saved + 1), "1", str(saved + 1))
    assert int(restored["master_repl_offset"]) >= saved  # keys expired at load add their DELs
    wait_until(lambda: link_up(replica, master), [master, replica], "the restarted link")
    assert stats(master) == {"sync_full": 0, "sync_partial_ok": 1, "sync_partial_err": 0}
    assert repl(replica)["master_replid"] == restored["master_replid"]
    assert write_and_wait(master, 1, ("SET", "after", "restart")) == [b"+OK\r\n", b":1\r\n"]
    settled(master, [replica])
    assert_same_data(master, replica, propagated=True)


@pytest.mark.parametrize("pair", PAIRS, ids=PAIR_IDS)
def test_publish_reaches_subscribers_of_the_replica(servers, pair):
    master, replica = servers(*pair)
    attach(replica, master)
    with replica.conn() as sub:
        assert sub.call("SUBSCRIBE", "news") == b"*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n"
        with master.conn() as c:
            assert c.call("PUBLISH", "news", "hello") == b":0\r\n"  # no subscriber on the master
            assert c.call("SELECT", 4) == b"+OK\r\n"
            script = "return redis.call('PUBLISH', 'news', 'from lua')"
            assert c.call("EVAL", script, 0) == b":0\r\n"
        assert sub.reply(WAIT_S) == b"*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$5\r\nhello\r\n"
        assert sub.reply(WAIT_S) == (b"*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n"
                                     b"$8\r\nfrom lua\r\n")


# --- 5. failover by hand -------------------------------------------------------------------------

TRIOS = [("warden", "warden", "warden"), ("redis", "warden", "redis"),
         ("warden", "redis", "warden")]


@pytest.mark.parametrize("trio", TRIOS, ids=["-".join(t) for t in TRIOS])
def test_failover_by_hand(servers, trio):
    """a is the master of b and c; b is promoted; c and then a follow b, both partially."""
    a, b, c = servers(*trio)
    populate(a)
    attach(b, a)
    attach(c, a)
    assert run_workload(a, workload(random.Random(7), 400), wait=2) == b":2\r\n"
    settled(a, [b, c])
    old_id = repl(a)["master_replid"]
    assert b.call("REPLICAOF", "NO", "ONE") == b"+OK\r\n"
    promoted = repl(b)
    assert promoted["role"] == "master"
    assert promoted["master_replid2"] == old_id
    assert promoted["master_replid"] != old_id
    before = stats(b)
    attach(c, b)
    assert a.call("SET", "a-last", "write") == b"+OK\r\n"  # a's own, lost when it follows b
    attach(a, b)
    after = stats(b)
    assert after["sync_full"] == before["sync_full"] + 1  # a wrote past the point b took over
    assert after["sync_partial_ok"] == before["sync_partial_ok"] + 1  # c
    assert run_workload(b, workload(random.Random(8), 300), wait=2) == b":2\r\n"
    settled(b, [a, c])
    assert a.call("EXISTS", "a-last") == b":0\r\n"
    assert_same_data(b, a, propagated=True)
    assert_same_data(b, c, propagated=True)


@pytest.mark.parametrize("trio", TRIOS, ids=["-".join(t) for t in TRIOS])
def test_failover_old_master_continues_partially(servers, trio):
    """Without writes of its own in between, the old master continues from the new one."""
    a, b, c = servers(*trio)
    populate(a)
    attach(b, a)
    attach(c, a)
    run_workload(a, workload(random.Random(9), 300))
    settled(a, [b, c])
    assert b.call("REPLICAOF", "NO", "ONE") == b"+OK\r\n"
    before = stats(b)
    with a.conn() as conn:  # a stops taking writes the moment it follows b
        assert conn.call("REPLICAOF", "127.0.0.1", str(b.port)) == b"+OK\r\n"
    attach(c, b)
    wait_until(lambda: link_up(a, b), [a, b], "the old master following")
    after = stats(b)
    assert after["sync_partial_ok"] == before["sync_partial_ok"] + 2
    assert after["sync_full"] == before["sync_full"]
    assert run_workload(b, workload(random.Random(10), 300), wait=2) == b":2\r\n"
    settled(b, [a, c])
    assert_same_data(b, a, propagated=True)
    assert_same_data(b, c, propagated=True)


@pytest.mark.parametrize("trio", TRIOS, ids=["-".join(t) for t in TRIOS])
def test_chained_replicas(servers, trio):
    """a -> b -> c: b relays a's stream as it is, so c's offset is a's; b's own link to a
    dropped and resumed partially leaves c connected, without a resync of its own."""
    a, b, c = servers(*trio)
    populate(a)
    attach(b, a)
    attach(c, b)
    assert run_workload(a, workload(random.Random(12), 400), wait=1) == b":1\r\n"
    settled(a, [b, c])  # c counts the stream b relays: a's offsets
    assert_same_data(a, c, propagated=True)
    before_a, before_b = stats(a), stats(b)
    assert b.call("CLIENT", "KILL", "TYPE", "master") == b":1\r\n"
    run_workload(a, workload(random.Random(13), 200))
    wait_until(lambda: stats(a)["sync_partial_ok"] > before_a["sync_partial_ok"]
               and link_up(b, a), [a, b, c], "b's partial resync")
    assert stats(a)["sync_full"] == before_a["sync_full"]
    assert write_and_wait(a, 1, ("SET", "after", "chain")) == [b"+OK\r\n", b":1\r\n"]
    settled(a, [b, c])
    assert stats(b) == before_b  # c never asked b for another sync
    assert repl(c)["master_link_status"] == "up"
    assert_same_data(a, c, propagated=True)


# --- 6. replica and master refusals --------------------------------------------------------------

READONLY = b"-READONLY You can't write against a read only replica.\r\n"
WAIT_ON_REPLICA = (b"-ERR WAIT cannot be used with replica instances. Please also note that "
                   b"since Redis 4.0 if a replica is configured to be writable (which is not the "
                   b"default) writes to replicas are just local and are not propagated.\r\n")
MASTERDOWN = (b"-MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to "
              b"'no'.\r\n")
NOREPLICAS = b"-NOREPLICAS Not enough good replicas to write.\r\n"


def transcript(server, steps):
    """Each step's reply bytes, on one connection."""
    with server.conn() as c:
        return [(step, c.call(*step, timeout=WAIT_S)) for step in steps]


REPLICA_STEPS = [
    ("SET", "k", "v"), ("GET", "s:int"), ("DEL", "s:int"), ("INCR", "s:counter"),
    ("EVAL", "return redis.call('SET', KEYS[1], 'x')", 1, "k"),
    ("EVAL", "return redis.call('GET', KEYS[1])", 1, "s:int"),
    ("EVAL_RO", "return redis.call('GET', KEYS[1])", 1, "s:int"),
    ("FCALL", "rset", 1, "k", "v"), ("FCALL", "rget", 1, "s:int"),
    ("FCALL_RO", "rget", 1, "s:int"),
    ("MULTI",), ("SET", "k", "v"), ("GET", "s:int"), ("EXEC",),
    ("WAIT", 1, 0), ("WAIT", 0, 0),
    ("FUNCTION", "DELETE", "repllib"), ("FLUSHALL",), ("PUBLISH", "ch", "m"),
    ("SELECT", 1), ("SET", "k", "v"), ("GET", "db1:s"), ("SELECT", 0),
]


@pytest.mark.parametrize("master_kind", KINDS)
def test_replica_refuses_writes(servers, master_kind):
    master, replica, reference = servers(master_kind, "warden", "redis")
    populate(master)
    attach(replica, master)
    attach(reference, master)
    got = transcript(replica, REPLICA_STEPS)
    want = transcript(reference, REPLICA_STEPS)
    replies = dict((i, reply) for i, (_, reply) in enumerate(got))
    assert replies[0] == READONLY
    assert replies[1] == b"$5\r\n12345\r\n"
    assert replies[4].startswith(b"-READONLY You can't write against a read only replica.")
    assert replies[14] == WAIT_ON_REPLICA
    assert got == want
    # replica-read-only no: writes are local, WAIT still refused
    for s in (replica, reference):
        assert s.call("CONFIG", "SET", "replica-read-only", "no") == b"+OK\r\n"
    steps = [("SET", "local", "1"), ("GET", "local"), ("WAIT", 1, 0)]
    got = transcript(replica, steps)
    assert got == transcript(reference, steps)
    assert [reply for _, reply in got] == [b"+OK\r\n", b"$1\r\n1\r\n", WAIT_ON_REPLICA]
    assert master.call("EXISTS", "local") == b":0\r\n"


STALE_STEPS = [("GET", "k"), ("PING",), ("SET", "k", "v"), ("DBSIZE",), ("ECHO", "x"),
               ("CONFIG", "GET", "replica-serve-stale-data")]


@pytest.mark.parametrize("master_kind", KINDS)
def test_masterdown_when_stale_data_is_refused(servers, master_kind):
    master, replica, reference = servers(
        master_kind, ("warden", ["--replica-serve-stale-data", "no"]),
        ("redis", ["--replica-serve-stale-data", "no"]))
    master.call("SET", "k", "v")
    attach(replica, master)
    attach(reference, master)
    assert replica.call("GET", "k") == b"$1\r\nv\r\n"
    master.crash()
    for s in (replica, reference):
        wait_until(lambda: repl(s)["master_link_status"] == "down", [s], "the link down")
    got = transcript(replica, STALE_STEPS)
    assert got == transcript(reference, STALE_STEPS)
    assert got[0][1] == MASTERDOWN
    assert got[1][1] == MASTERDOWN
    info = replica.info("replication")
    assert info["role"] == "slave" and info["master_link_status"] == "down"
    assert replica.call("REPLICAOF", "NO", "ONE") == b"+OK\r\n"
    assert replica.call("GET", "k") == b"$1\r\nv\r\n"


NOREPLICA_STEPS = [
    ("SET", "k", "v"), ("GET", "k"), ("DEL", "k"),
    ("EVAL", "return redis.call('SET', KEYS[1], 'x')", 1, "k"),
    ("EVAL", "return redis.call('GET', KEYS[1])", 1, "k"),
    ("MULTI",), ("SET", "k", "v"), ("EXEC",),
    ("MULTI",), ("GET", "k"), ("EXEC",),
]


@pytest.mark.parametrize("kind", KINDS)
def test_noreplicas(servers, kind):
    master, reference, replica = servers(kind, "redis", "redis")
    for s in (master, reference):
        assert s.call("CONFIG", "SET", "min-replicas-to-write", "1") == b"+OK\r\n"
    got = transcript(master, NOREPLICA_STEPS)
    assert got == transcript(reference, NOREPLICA_STEPS)
    assert got[0][1] == NOREPLICAS
    assert got[1][1] == b"$-1\r\n"
    assert "min_slaves_good_slaves:0" in master.value("INFO", "replication").decode()
    attach(replica, master)
    wait_until(lambda: repl(master).get("min_slaves_good_slaves") == "1", [master, replica],
               "a good replica")
    assert write_and_wait(master, 1, ("SET", "k", "v")) == [b"+OK\r\n", b":1\r\n"]
    assert replica.call("GET", "k") == b"$1\r\nv\r\n"


GETACK = b"*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n"


@pytest.mark.parametrize("kind", KINDS)
def test_wait_counts_acknowledged_offsets(servers, kind):
    """WAIT against a raw replica that ACKs only when told: a connection that wrote nothing
    is served at once, a write waits for an ACK of its offset, each WAIT that blocks asks the
    replicas for one (REPLCONF GETACK *), and INFO shows the acknowledged offset."""
    master = servers((kind, ["--repl-diskless-sync", "no"]))
    sock, line = start_psync(master.port)
    offset = int(line.split()[2])
    received = b""

    def read_until(want):
        nonlocal received
        deadline = time.monotonic() + WAIT_S
        while received.replace(PING, b"") != want:
            assert want.startswith(received.replace(PING, b"")), received
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            received += sock.recv(65536)

    def ack():
        sock.sendall(encode("REPLCONF", "ACK", offset + len(received)))

    with sock:
        read_payload(sock)
        ack()
        wait_until(lambda: "state=online,offset=%d," % offset in repl(master).get("slave0", ""),
                   [master], "the first ACK")
        with master.conn() as c:
            # this connection wrote nothing: nothing to wait for, and no GETACK
            assert c.call("WAIT", 1, 100) == b":1\r\n"
            assert c.call("SET", "k", "v") == b"+OK\r\n"
            started = time.monotonic()
            assert c.call("WAIT", 1, 100) == b":0\r\n"
            assert time.monotonic() - started >= 0.09
            stream = (b"*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n"
                      b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n" + GETACK)
            read_until(stream)
            c.send("WAIT", 1, 0)
            read_until(stream + GETACK)
            with pytest.raises(ReplyTimeout):
                c.reply(timeout=0.05)
            ack()
            assert c.reply(WAIT_S) == b":1\r\n"
            assert c.call("WAIT", 2, 50) == b":1\r\n"
        acked = "state=online,offset=%d," % (offset + len(received))
        wait_until(lambda: acked in repl(master)["slave0"], [master], "INFO's offset")


EXPIRED_STEPS = [("GET", "k"), ("EXISTS", "k"), ("TTL", "k"), ("PTTL", "k"), ("TYPE", "k"),
                 ("DBSIZE",), ("KEYS", "*"), ("SCAN", 0), ("RANDOMKEY",), ("GET", "keep"),
                 ("OBJECT", "ENCODING", "k"), ("STRLEN", "k"), ("MGET", "k", "keep")]


@pytest.mark.parametrize("master_kind", KINDS)
def test_replica_keeps_expired_keys_until_the_masters_del(servers, master_kind):
    """A replica does not expire keys itself: past its deadline a key reads as missing but
    stays until the master's DEL comes (here from the master's own lookup, its active expiry
    switched off)."""
    master, replica, reference = servers(master_kind, "warden", "redis")
    assert master.call("DEBUG", "SET-ACTIVE-EXPIRE", "0") == b"+OK\r\n"
    for s in (replica, reference):
        assert s.call("DEBUG", "SET-ACTIVE-EXPIRE", "0") == b"+OK\r\n"
        attach(s, master)
    assert write_and_wait(master, 2, ("SET", "k", "v", "PX", 100), ("SET", "keep", "v")) == [
        b"+OK\r\n", b"+OK\r\n", b":2\r\n"]
    for s in (replica, reference):
        wait_until(lambda: s.call("EXISTS", "k") == b":0\r\n", [master, s], "the deadline")
    got = transcript(replica, EXPIRED_STEPS)
    assert got == transcript(reference, EXPIRED_STEPS)
    assert dict(got)[("DBSIZE",)] == b":2\r\n"  # still held
    assert dict(got)[("GET", "k")] == b"$-1\r\n"
    with master.conn() as c:
        assert c.call("GET", "k") == b"$-1\r\n"  # the master deletes it: DEL goes out
        assert c.call("WAIT", 2, 5000) == b":2\r\n"
    for s in (replica, reference):
        assert s.call("DBSIZE") == b":1\r\n"


# --- 7. ROLE and INFO replication ----------------------------------------------------------------

HEX40 = re.compile(r"^[0-9a-f]{40}$")
VARYING = {"master_port", "master_last_io_seconds_ago", "slave_read_repl_offset",
           "slave_repl_offset", "master_repl_offset", "repl_backlog_first_byte_offset",
           "repl_backlog_histlen", "master_link_down_since_seconds"}


def info_shape(server):
    """INFO replication as (field, value) in order, values that legitimately differ masked."""
    text = server.value("INFO", "replication").decode()
    lines = text.split("\r\n")
    assert lines[0] == "# Replication" and lines[-1] == "", lines
    out = []
    for line in lines[1:-1]:
        name, value = line.split(":", 1)
        if name in VARYING:
            assert re.match(r"^-?\d+$", value), line
            value = "<int>"
        elif name in ("master_replid", "master_replid2"):
            assert HEX40.match(value), line
            value = "<zeros>" if value == "0" * 40 else "<id>"
        elif re.match(r"^slave\d+$", name):
            fields = [f.split("=", 1) for f in value.split(",")]
            value = ",".join("%s=%s" % (k, "<int>" if k in ("port", "offset", "lag") else v)
                             for k, v in fields)
        out.append((name, value))
    return out


def role_shape(server):
    role = server.value("ROLE")

    def mask(item):
        if isinstance(item, list):
            return [mask(x) for x in item]
        if isinstance(item, int):
            return "<int>"
        return item

    shaped = mask(role)
    if role[0] == b"master":  # the replicas' [ip, port, offset] are strings
        shaped[2] = [[r[0], "<port>" if r[1].isdigit() else r[1],
                      "<offset>" if r[2].isdigit() else r[2]] for r in role[2]]
    return shaped


def shapes(master, replica):
    return {"master info": info_shape(master), "master role": role_shape(master),
            "replica info": info_shape(replica), "replica role": role_shape(replica)}


@pytest.mark.parametrize("pair", PAIRS, ids=PAIR_IDS)
def test_role_and_info_shape(servers, pair):
    master, replica, ref_master, ref_replica = servers(*pair, "redis", "redis")
    alone = [info_shape(s) for s in (master, ref_master)]
    assert alone[0] == alone[1]
    assert role_shape(master) == role_shape(ref_master) == [b"master", "<int>", []]
    for m, r in ((master, replica), (ref_master, ref_replica)):
        attach(r, m)
        assert write_and_wait(m, 1, ("SET", "k", "v")) == [b"+OK\r\n", b":1\r\n"]
        settled(m, [r])
    got, want = shapes(master, replica), shapes(ref_master, ref_replica)
    for part in want:
        assert got[part] == want[part], part
    assert want["replica role"] == [b"slave", b"127.0.0.1", "<int>", b"connected", "<int>"]
    # the same values where the two must agree
    role = master.value("ROLE")
    assert role[0] == b"master" and len(role[2]) == 1
    assert role[2][0][:2] == [b"127.0.0.1", str(replica.port).encode()]
    replica_role = replica.value("ROLE")
    assert replica_role[2] == master.port
    # min-replicas-* adds min_slaves_good_slaves; the link down adds its own field
    for m in (master, ref_master):
        m.call("CONFIG", "SET", "min-replicas-to-write", "1")
    master.crash()
    ref_master.crash()
    for r in (replica, ref_replica):
        wait_until(lambda: repl(r)["master_link_status"] == "down", [r], "the link down")
    assert info_shape(replica) == info_shape(ref_replica)
    down = role_shape(replica)
    assert down == role_shape(ref_replica)
    assert down[3] in (b"connect", b"connecting")


CLIENT_FIELDS = ["id", "addr", "laddr", "fd", "name", "age", "idle", "flags", "db", "sub",
                 "psub", "ssub", "multi", "qbuf", "qbuf-free", "argv-mem", "multi-mem", "rbs",
                 "rbp", "obl", "oll", "omem", "tot-mem", "events", "cmd", "user", "redir",
                 "resp"]


def client_line(server, kind):
    text = server.value("CLIENT", "LIST", "TYPE", kind).decode()
    lines = text.splitlines()
    assert len(lines) == 1, text
    fields = [f.split("=", 1) for f in lines[0].split(" ")]
    # lib-name and lib-ver are Redis 7.2's, not the link's business here
    return {k: v for k, v in fields if k not in ("lib-name", "lib-ver")}, [
        k for k, _ in fields if k not in ("lib-name", "lib-ver")]


@pytest.mark.parametrize("pair", PAIRS, ids=PAIR_IDS)
def test_client_list_of_the_link(servers, pair):
    """CLIENT LIST TYPE replica on the master and TYPE master on the replica: one connection
    seen from both ends, with Redis's fields."""
    master, replica = servers(*pair)
    attach(replica, master)
    assert write_and_wait(master, 1, ("SET", "k", "v")) == [b"+OK\r\n", b":1\r\n"]
    on_master, names = client_line(master, "replica")
    assert names == CLIENT_FIELDS
    on_replica, names = client_line(replica, "master")
    assert names == CLIENT_FIELDS
    assert (on_master["flags"], on_master["db"], on_master["cmd"], on_master["user"]) == (
        "S", "0", "replconf", "default")
    assert (on_replica["flags"], on_replica["db"], on_replica["user"]) == (
        "M", "0", "(superuser)")
    assert on_replica["addr"] == "127.0.0.1:%d" % master.port
    assert on_replica["addr"] == on_master["laddr"]
    assert on_replica["laddr"] == on_master["addr"]
    for fields in (on_master, on_replica):
        assert int(fields["fd"]) > 0, fields
        assert 0 <= int(fields["age"]) < 60 and 0 <= int(fields["idle"]) < 60, fields
    assert client_line(master, "slave")[0]["id"] == on_master["id"]


# --- 8. REPLICAOF and REPLCONF errors ------------------------------------------------------------

def command_steps(dead_port):
    """(command, Redis's reply) on one connection; dead_port: a port nothing listens on."""
    dead = str(dead_port)
    not_integer = b"-ERR value is not an integer or out of range\r\n"
    arity = b"-ERR wrong number of arguments for '%s' command\r\n"
    return [
        (("REPLICAOF", "127.0.0.1", "notaport"), b"-ERR Invalid master port\r\n"),
        (("REPLICAOF", "127.0.0.1", "70000"), b"-ERR Invalid master port\r\n"),
        (("REPLICAOF", "127.0.0.1", "-1"), b"-ERR Invalid master port\r\n"),
        (("REPLICAOF", "127.0.0.1"), arity % b"replicaof"),
        (("REPLICAOF", "NO", "ONE"), b"+OK\r\n"),
        (("SLAVEOF", "NO", "ONE"), b"+OK\r\n"),
        (("REPLCONF", "foo", "bar"), b"-ERR Unrecognized REPLCONF option: foo\r\n"),
        (("REPLCONF", "listening-port"), b"-ERR syntax error\r\n"),
        (("REPLCONF", "listening-port", "abc"), not_integer),
        (("REPLCONF", "listening-port", "6380"), b"+OK\r\n"),
        (("REPLCONF", "capa", "eof", "capa", "psync2"), b"+OK\r\n"),
        (("REPLCONF", "capa", "whatever"), b"+OK\r\n"),
        (("REPLCONF", "ip-address", "10.0.0.1"), b"+OK\r\n"),
        (("REPLCONF",), b"+OK\r\n"),
        (("REPLCONF", "rdb-only", "2"),
         b"-ERR value is out of range, value must between 0 and 1\r\n"),
        (("REPLCONF", "rdb-only", "0"), b"+OK\r\n"),
        (("REPLCONF", "rdb-filter-only", "nonsense"),
         b"-ERR Unsupported rdb-filter-only option: nonsense\r\n"),
        (("PSYNC", "?"), arity % b"psync"),
        (("PSYNC", "?", "notanumber"), not_integer),
        (("SYNC", "extra"), arity % b"sync"),
        (("WAIT", "1"), arity % b"wait"),
        (("WAIT", "x", "0"), not_integer),
        (("WAIT", "0", "x"), b"-ERR timeout is not an integer or out of range\r\n"),
        (("WAIT", "0", "-1"), b"-ERR timeout is negative\r\n"),
        (("WAIT", "0", "0"), b":0\r\n"),
        (("ROLE", "extra"), arity % b"role"),
        (("REPLICAOF", "127.0.0.1", dead), b"+OK\r\n"),
        (("REPLICAOF", "127.0.0.1", dead), b"+OK Already connected to specified master\r\n"),
        (("SLAVEOF", "127.0.0.1", dead), b"+OK Already connected to specified master\r\n"),
        (("REPLICAOF", "localhost", dead), b"+OK\r\n"),  # another host name: another master
        (("REPLICAOF", "NO", "ONE"), b"+OK\r\n"),
        (("REPLICAOF", "NO", "ONE"), b"+OK\r\n"),
        (("REPLICAOF", "no", "one"), b"+OK\r\n"),
    ]


@pytest.mark.parametrize("kind", KINDS)
def test_replicaof_and_replconf_errors(servers, kind):
    server, reference = servers(kind, "redis")
    with socket.socket() as s:  # a port nothing listens on: bound, never listening
        s.bind(("127.0.0.1", 0))
        steps = command_steps(s.getsockname()[1])
        got = transcript(server, [step for step, _ in steps])
        want = transcript(reference, [step for step, _ in steps])
    assert want == steps  # the expectations are Redis's own
    for (step, reply), (_, expected) in zip(got, steps):
        assert reply == expected, step
    assert server.alive()


@pytest.mark.parametrize("kind", KINDS)
def test_replconf_ack_and_getack_from_a_client_have_no_reply(servers, kind):
    """REPLCONF ACK and GETACK from an ordinary client are ignored without a reply."""
    server = servers(kind)
    with server.conn() as c:
        c.send_raw(encode("REPLCONF", "ACK", "10") + encode("REPLCONF", "GETACK", "*")
                   + encode("REPLCONF", "ACK", "x") + encode("PING"))
        assert c.reply(WAIT_S) == b"+PONG\r\n"
        assert c.call("ECHO", "next") == b"$4\r\nnext\r\n"
    assert repl(server)["connected_slaves"] == "0"


# --- 9. redis-cli --rdb and --replica ------------------------------------------------------------

def check_rdb(path):
    out = subprocess.run([REDIS_CHECK_RDB, path], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, timeout=WAIT_S)
    text = out.stdout.decode(errors="replace")
    assert out.returncode == 0 and "RDB looks OK!" in text, text
    return text


@pytest.mark.parametrize("diskless", ["yes", "no"], ids=["diskless", "disk"])
@pytest.mark.parametrize("kind", UNDER_TEST)
def test_redis_cli_rdb(servers, kind, diskless, tmp_path):
    master = servers((kind, ["--repl-diskless-sync", diskless]))
    keys = populate(master)
    path = str(tmp_path / "cli.rdb")
    out = subprocess.run([REDIS_CLI, "-p", str(master.port), "--rdb", path],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=WAIT_S)
    text = out.stdout.decode(errors="replace")
    assert out.returncode == 0, text
    # rdb-only asks for a socket payload only when the master syncs diskless
    if diskless == "yes":
        tail = ("SYNC sent to master, writing bytes of bulk transfer until EOF marker to '%s'\n"
                "Transfer finished with success after \\d+ bytes\n" % re.escape(path))
    else:
        tail = ("SYNC sent to master, writing \\d+ bytes to '%s'\n"
                "Transfer finished with success.\n" % re.escape(path))
    head = "sending REPLCONF capa eof\nsending REPLCONF rdb-only 1\n"
    assert re.fullmatch(head + tail, text), text
    check_rdb(path)
    with open(path, "rb") as f:
        data = f.read()
    loaded = servers({"kind": "redis", "rdb": data})
    assert_same_data(master, loaded, expect_keys=keys)
    assert repl(master)["connected_slaves"] == "0"
    # only the functions
    fpath = str(tmp_path / "functions.rdb")
    out = subprocess.run([REDIS_CLI, "-p", str(master.port), "--functions-rdb", fpath],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=WAIT_S)
    text = out.stdout.decode(errors="replace")
    assert out.returncode == 0, text
    assert re.fullmatch(  # a filtered payload always goes by socket
        "sending REPLCONF capa eof\nsending REPLCONF rdb-only 1\n"
        "sending REPLCONF rdb-filter-only functions\n"
        "SYNC sent to master, writing bytes of bulk transfer until EOF marker to '%s'\n"
        "Transfer finished with success after \\d+ bytes\n" % re.escape(fpath), text), text
    check_rdb(fpath)
    with open(fpath, "rb") as f:
        functions_only = servers({"kind": "redis", "rdb": f.read()})
    got = snapshot(functions_only)
    assert got["data"] == {}
    assert got["functions"] == snapshot(master)["functions"]


def read_lines(proc, count, deadline_s=WAIT_S, skip=()):
    """`count` lines from proc's stdout (lines in `skip` not counted), or fails at the deadline."""
    lines = []
    buf = b""
    deadline = time.monotonic() + deadline_s
    fd = proc.stdout.fileno()
    while len(lines) < count:
        while b"\n" in buf and len(lines) < count:
            line, buf = buf.split(b"\n", 1)
            if line not in skip:
                lines.append(line)
        if len(lines) >= count:
            break
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError("only %r (and %r) within %ss" % (lines, buf, deadline_s))
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                raise AssertionError("redis-cli ended after %r %r" % (lines, buf))
            buf += chunk
    return lines


@pytest.mark.parametrize("kind", UNDER_TEST)
def test_redis_cli_replica(servers, kind):
    master = servers(kind)
    master.call("SET", "k", "v")
    proc = subprocess.Popen([REDIS_CLI, "-p", str(master.port), "--replica"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        head = read_lines(proc, 4)
        assert head[:3] == [b"sending REPLCONF capa eof", b"sending REPLCONF rdb-filter-only ",
                            b"SYNC with master, discarding bytes of bulk transfer until EOF "
                            b"marker..."], head
        assert re.fullmatch(rb"SYNC done after \d+ bytes\. Logging commands from master\.",
                            head[3]), head
        with master.conn() as c:
            for cmd in [("SET", "a", "1"), ("select", "3"), ("lpush", "l", "x", "y"),
                        ("SELECT", "0"), ("INCR", "a"),
                        ("EVAL", "redis.call('DEL', KEYS[1]) return 1", 1, "a"),
                        ("set", "b", "2", "px", "100000"), ("MULTI",), ("SET", "c", "1"),
                        ("EXEC",), ("MULTI",), ("INCR", "n"), ("INCR", "n"), ("EXEC",)]:
                assert not c.call(*cmd).startswith(b"-"), cmd
        lines = read_lines(proc, 13, skip={b'"ping"'})
        deadline = int(lines[7].split(b'"')[-2])
        assert abs(deadline - 100000 - time.time() * 1000) < 5000, lines[7]
        assert lines == [
            b"sending REPLCONF ACK 0", b'"SET","a","1"', b'"SELECT","3"', b'"lpush","l","x","y"',
            b'"SELECT","0"', b'"INCR","a"', b'"DEL","a"',
            b'"SET","b","2","PXAT","%d"' % deadline,  # a relative TTL goes out absolute
            b'"SET","c","1"',  # a transaction of one write goes out bare
            b'"MULTI"', b'"INCR","n"', b'"INCR","n"', b'"EXEC"'], lines
    finally:
        proc.kill()
        proc.wait()
    assert master.call("PING") == b"+PONG\r\n"


# --- 10. bad input -------------------------------------------------------------------------------

def read_exactly(sock, n, deadline):
    data = b""
    while len(data) < n:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise AssertionError("closed after %d of %d bytes" % (len(data), n))
        data += chunk
    return data


def read_line(sock, deadline):
    line = b""
    while not line.endswith(b"\r\n"):
        line += read_exactly(sock, 1, deadline)
    return line


def start_psync(port):
    """A raw replica: the handshake and PSYNC; returns (socket, +FULLRESYNC line)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT_S)
    deadline = time.monotonic() + WAIT_S
    sock.sendall(encode("PING") + encode("REPLCONF", "listening-port", "1")
                 + encode("REPLCONF", "capa", "eof", "capa", "psync2"))
    assert read_line(sock, deadline) == b"+PONG\r\n"
    assert read_line(sock, deadline) == b"+OK\r\n"
    assert read_line(sock, deadline) == b"+OK\r\n"
    sock.sendall(encode("PSYNC", "?", "-1"))  # alone: PSYNC is refused with replies pending
    line = read_line(sock, deadline)
    while line == b"\n":  # keepalives before the snapshot starts
        line = read_line(sock, deadline)
    assert re.match(rb"^\+FULLRESYNC [0-9a-f]{40} \d+\r\n$", line), line
    return sock, line


PING = b"*1\r\n$4\r\nping\r\n"


def read_payload(sock):
    """The full sync payload after +FULLRESYNC: ($EOF:<mark> ... <mark>) or ($<len> ...)."""
    deadline = time.monotonic() + WAIT_S
    head = read_line(sock, deadline)
    while head.startswith(b"\n"):
        head = head[1:] or read_line(sock, deadline)
    if head.startswith(b"$EOF:"):
        mark = head[5:-2]
        assert len(mark) == 40, head
        data = b""
        while not data.endswith(mark):
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            chunk = sock.recv(65536)
            assert chunk, "closed before the EOF mark"
            data += chunk
        return data[:-40]
    size = int(head[1:-2])
    return read_exactly(sock, size, deadline)


@pytest.mark.parametrize("diskless", ["yes", "no"], ids=["diskless", "disk"])
@pytest.mark.parametrize("kind", UNDER_TEST)
def test_raw_psync_payload(servers, kind, diskless, tmp_path):
    master = servers((kind, ["--repl-diskless-sync", diskless]))
    keys = populate(master)
    sock, line = start_psync(master.port)
    offset = int(line.split()[2])
    with sock:
        payload = read_payload(sock)
        # then the stream: what the master writes next, counted from the +FULLRESYNC offset
        assert master.call("SET", "after", "sync") == b"+OK\r\n"
        want = (b"*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n"
                b"*3\r\n$3\r\nSET\r\n$5\r\nafter\r\n$4\r\nsync\r\n")
        stream = b""
        deadline = time.monotonic() + WAIT_S
        while len(stream.replace(PING, b"")) < len(want):
            # an EOF-marked payload's stream starts at the replica's first ACK
            sock.sendall(encode("REPLCONF", "ACK", offset))
            sock.settimeout(0.05)
            try:
                stream += sock.recv(65536)
            except socket.timeout:
                assert time.monotonic() < deadline, "no stream after the payload: %r" % stream
        assert stream.replace(PING, b"") == want
        assert int(repl(master)["master_repl_offset"]) == offset + len(stream)
    assert master.call("DEL", "after") == b":1\r\n"
    assert payload.startswith(b"REDIS0010")
    path = tmp_path / "payload.rdb"
    path.write_bytes(payload)
    check_rdb(str(path))
    loaded = servers({"kind": "redis", "rdb": payload})
    assert_same_data(master, loaded, expect_keys=keys)


def big_master(servers, kind, diskless):
    master = servers((kind, ["--repl-diskless-sync", diskless]))
    add_big_values(master)
    populate(master)
    return master


@pytest.mark.parametrize("how", ["close-at-once", "close-mid-payload", "garbage"])
@pytest.mark.parametrize("diskless", ["yes", "no"], ids=["diskless", "disk"])
@pytest.mark.parametrize("kind", UNDER_TEST)
def test_broken_replica_does_not_disturb_master(servers, kind, diskless, how):
    master = big_master(servers, kind, diskless)
    want = snapshot(master)
    sock, _ = start_psync(master.port)
    with sock:
        if how == "close-mid-payload":
            read_exactly(sock, 100_000, time.monotonic() + WAIT_S)
        elif how == "garbage":
            sock.sendall(b"\x00\xff not resp at all \r\n*zz\r\n$-7\r\n" * 50)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    assert master.call("PING") == b"+PONG\r\n"
    assert master.call("SET", "after", "1") == b"+OK\r\n"
    wait_until(lambda: repl(master)["connected_slaves"] == "0", [master], "the replica gone")
    assert master.call("DEL", "after") == b":1\r\n"
    got = snapshot(master)
    assert got["data"] == want["data"] and got["functions"] == want["functions"]
    # and a real replica still syncs
    replica = servers("redis")
    attach(replica, master)
    assert_same_data(master, replica)


def read_request(sock, buf, deadline):
    """One RESP request from a replica talking to a fake master: (parsed args, rest of buf)."""
    while True:
        end = reply_end(buf)
        if end is not None:
            return parse(buf[:end]), buf[end:]
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        chunk = sock.recv(65536)
        assert chunk, "the replica closed the link (had %r)" % buf
        buf += chunk


@pytest.mark.parametrize("kind", UNDER_TEST)
def test_replica_handshake_and_retry(servers, kind):
    """REPLICAOF to a port nothing listens on: OK, the link down, the data kept; the replica
    retries, and once something listens there it sends Redis's handshake, twice (a refused
    PSYNC makes it try again)."""
    replica = servers(kind)
    assert replica.call("SET", "k", "v") == b"+OK\r\n"
    replid = repl(replica)["master_replid"]
    with socket.socket() as listener:  # bound, not listening yet: connections are refused
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        assert replica.call("REPLICAOF", "127.0.0.1", str(port)) == b"+OK\r\n"
        info = repl(replica)
        assert (info["role"], info["master_port"], info["master_link_status"]) == (
            "slave", str(port), "down")
        assert replica.call("GET", "k") == b"$1\r\nv\r\n"
        assert replica.call("SET", "k", "w") == READONLY
        listener.listen(4)
        for attempt in range(2):
            listener.settimeout(WAIT_S)
            link, _ = listener.accept()
            with link:
                deadline = time.monotonic() + WAIT_S
                seen, buf = [], b""
                for reply in (b"+PONG\r\n", b"+OK\r\n", b"+OK\r\n",
                              b"-ERR this master refuses\r\n"):
                    request, buf = read_request(link, buf, deadline)
                    seen.append(request)
                    link.sendall(reply)
            assert seen == [[b"PING"],
                            [b"REPLCONF", b"listening-port", str(replica.port).encode()],
                            [b"REPLCONF", b"capa", b"eof", b"capa", b"psync2"],
                            [b"PSYNC", replid.encode(), b"1"]], (attempt, seen)
        info = repl(replica)
        assert (info["role"], info["master_link_status"]) == ("slave", "down")
    assert replica.call("GET", "k") == b"$1\r\nv\r\n"
    assert replica.alive()


@pytest.mark.parametrize("kind", UNDER_TEST)
def test_replicaof_itself(servers, kind):
    """REPLICAOF its own address: OK, then a link that fails at PSYNC (NOMASTERLINK) and is
    tried again, the data kept and the server serving; REPLICAOF NO ONE ends it."""
    server = servers(kind)
    assert server.call("SET", "k", "v") == b"+OK\r\n"
    with server.conn() as c:  # one connection for the polling: the count is the link's own

        def connections():
            text = parse(c.call("INFO", "stats")).decode()
            return int(re.search(r"total_connections_received:(\d+)", text).group(1))

        before = connections()
        assert c.call("REPLICAOF", "127.0.0.1", str(server.port)) == b"+OK\r\n"
        wait_until(lambda: connections() >= before + 2, [server], "a second attempt")
        info = parse(c.call("INFO", "replication")).decode()
        assert "role:slave\r\n" in info and "master_link_status:down\r\n" in info, info
        assert c.call("GET", "k") == b"$1\r\nv\r\n"
        assert c.call("SET", "k", "w") == READONLY
        assert c.call("REPLICAOF", "NO", "ONE") == b"+OK\r\n"
        assert c.call("SET", "k", "w") == b"+OK\r\n"
    assert server.alive()


@pytest.mark.parametrize("kind", UNDER_TEST)
@pytest.mark.parametrize("payload", ["corrupt", "cut"])
def test_bad_payload_from_a_master(servers, kind, payload):
    """A master whose full sync is not an RDB (a bad checksum) or stops half-way: the replica
    stays up, its link down, and asks again; a payload cut short leaves the old data set as it
    was (nothing is flushed before the payload is whole). redis-server 7.0 exits on the corrupt
    payload (its RDB loader's "Internal error in RDB reading"): a crash warden does not copy
    (README, Known differences), checked here so that the difference stays known."""
    replica = servers(kind)
    redis_crashes = payload == "corrupt" and replica.binary == "redis-server"
    assert replica.call("SET", "k", "v") == b"+OK\r\n"
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        port = listener.getsockname()[1]
        assert replica.call("REPLICAOF", "127.0.0.1", str(port)) == b"+OK\r\n"
        for attempt in range(1 if redis_crashes else 2):
            listener.settimeout(WAIT_S)
            link, _ = listener.accept()
            with link:
                deadline = time.monotonic() + WAIT_S
                buf = b""
                for reply in (b"+PONG\r\n", b"+OK\r\n", b"+OK\r\n"):
                    _, buf = read_request(link, buf, deadline)
                    link.sendall(reply)
                request, buf = read_request(link, buf, deadline)
                assert request[0] == b"PSYNC", (attempt, request)
                link.sendall(b"+FULLRESYNC " + b"a" * 40 + b" 0\r\n")
                if payload == "corrupt":
                    body = b"REDIS0010" + b"\xfe\x00\xfb\x01\x00\x00\x01k\x01v\xff" + b"\x01" * 8
                    link.sendall(b"$%d\r\n" % len(body) + body)
                else:
                    link.sendall(b"$100000\r\nREDIS0010" + b"\x00" * 100)
                # The replica gives up on this link (it closes it, or waits for the rest).
                link.shutdown(socket.SHUT_WR)
                link.settimeout(WAIT_S)
                try:
                    while link.recv(65536):
                        pass
                except (socket.timeout, ConnectionError):
                    pass
        if redis_crashes:
            assert replica.proc.wait(timeout=WAIT_S) != 0
            assert "Internal error in RDB reading" in replica.log()
            return
        info = repl(replica)
        assert (info["role"], info["master_link_status"]) == ("slave", "down")
    assert replica.alive()
    if payload == "cut":
        assert replica.call("GET", "k") == b"$1\r\nv\r\n"
