"""What the replication suites share (test_replication.py, test_replication_interface.py):
servers started in temp directories and stopped by PID, bounded waits on them, the replication
INFO readers, the data set and its comparison, and the transcripts of what commands propagate
as. REPLICATION_ALL_REDIS=1 runs every "warden" role with redis-server instead."""

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


def add_big_values(server, count=8):
    """`count` values of 512 KiB of random bytes: a payload larger than the socket buffers,
    whose snapshot takes the child a while."""
    rng = random.Random(11)
    with server.conn() as c:
        for i in range(count):
            assert c.call("SET", "big:%d" % i, rng.randbytes(512 * 1024)) == b"+OK\r\n"


WORKLOAD_DBS = [0, 0, 1, 2, 5, 13]


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


READONLY = b"-READONLY You can't write against a read only replica.\r\n"


def transcript(server, steps):
    """Each step's reply bytes, on one connection."""
    with server.conn() as c:
        return [(step, c.call(*step, timeout=WAIT_S)) for step in steps]


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
