#!/usr/bin/env python3
"""Every side-by-side benchmark of warden against redis-server, in one command.

    bench/run_all.py build/warden [--rounds 3] [--quick] [--only throughput,keyspace,...]
        [--cycle-seconds 5]

Sections (all by default):
  throughput    redis-benchmark PING / SET NX PX / GET / EVALSHA compare-and-delete at pipeline 16
                and 1, and bench/lockcycle (acquire, extend, release; 50 connections, one request
                each)
  types         redis-benchmark at pipeline 16: PING, HSET / HGET of a small hash per key, HINCRBY
                of a Redisson lock, SADD / SISMEMBER, MGET of 10 keys; HSET / HGET of one large hash
  keyspace      CPU per GET at pipeline 16 with ~1k keys and with --keys (10M) keys loaded
  memory        bench/memory_per_lock.py
  types_memory  bench/types_memory.py (Redisson locks, big hashes, string locks)
  storm         bench/expiry_storm.py
  bigdelete     bench/big_delete.py with --keys fields and keys (DEL / UNLINK / FLUSHALL)
  startup       bench/start_time.py
  zsets_lists   redis-benchmark at pipeline 16: PING, ZADD / ZSCORE / ZRANGEBYSCORE LIMIT 0 10 /
                ZREMRANGEBYSCORE of redis-semaphore semaphores (five holders each) and of one large
                sorted set, LPUSH / RPOP of a queue, LPUSH of python-redis-lock signal keys, and
                redis-semaphore's acquire script by EVALSHA
  zsets_lists_memory  bench/types_memory.py --workload semaphore signal bigzset
  blocking      bench/blocking_bench.py (BLPOP hand-off latency; ten thousand idle blocked
                clients: idle CPU and the cost of a wake at 1,000 and 10,000 blocked)
  redisson      Redisson RLock's acquire and unlock scripts by EVALSHA, then the latch DEL
                Redisson sends, one lock per cycle (bench/cmdcycle; 50 connections, one request
                in flight each): CPU per request and p99; ~1 minute
  semaphore     redis-semaphore's Semaphore: its acquire script by EVALSHA and its release (ZREM)
                as a cycle on each connection's semaphore (bench/cmdcycle, 50 connections);
                ~1 minute
  unixsocket    bench/lockcycle over TCP loopback and over a unix socket, same servers; ~1.5 min
  clients10k    bench/lockcycle on 100 connections, alone and with 9,900 more connected and idle
                (10,000 clients; both servers get --maxclients 10100 and the fd limit is raised
                to its hard limit, which must be at least 10,200): p99 and CPU per request;
                ~2 minutes
  pubsub        bench/pubsub_bench.py: PUBLISH to 100 subscribers at P1 and P16, 2,000 messages
                per round (500 with --quick): server CPU per delivered message; ~1-1.5 minutes
  handoff       bench/blocking_bench.py --parts handoff: BLPOP hand-off latency alone; when
                blocking runs too (as by default) its figures are blocking's and this adds
                nothing; alone ~25 s

The times are for the default 3 rounds on the 2-core machine shared with builds; --quick takes
about a quarter. The four one-request-in-flight sections (redisson, semaphore, unixsocket,
clients10k) run for --cycle-seconds (5; 2 with --quick) per server and round, each followed by
its PING floor (100,000 requests; 20,000 with --quick). With the PING floors of throughput,
types and zsets_lists (~1 minute together), a full run takes ~8-9 minutes more than before.

Each server is pinned to core 0 and each load generator to core 1 (taskset). A workload runs
alternately on both servers for --rounds rounds, swapping which goes first, and the table shows
medians. CPU per request is the server's time on CPU (/proc/PID/task/*/schedstat) over the
requests of the run: steadier than ops/s on a shared machine.

Above the floor: every section whose rows go into the workloads table also measures PING at the
same pipeline depth, connections and transport on the same servers in the same rounds (the
rows ping_p16, ping_p1, types_ping_p16, ...). Each other row gets its CPU per request minus its
server's PING CPU per request ("excess": what the command itself costs, without the reads,
writes, wake-ups and parsing every request pays) beside the totals, and the ratio of the two
excesses (warden / Redis; "—" unless both are above zero). With one request in flight
the floor is most of the total, so an excess is a small difference of two noisy figures: read it
over several rounds. latest.json has them under each workload's "excess", round by round too.

redis-benchmark 7.0 has no seed option and draws its random keys from the time and pid, so two
runs against an unflushed server can replay the same keys (and SET NX then fails throughout).
Every run therefore starts from FLUSHALL (and, since warden frees a large flush in slices after
replying, from the end of that freeing) and, where it reads keys, a preloaded keyspace that is
identical on both servers; afterwards DBSIZE (or HLEN) is checked against the expected count and
against the other server.

Writes bench/results/latest.md, latest.json and ratios.png (the chart needs python3-matplotlib;
without it the table is still written). Only the processes it started are ever stopped.
"""
import argparse
import csv
import dataclasses
import datetime
import io
import json
import os
import resource
import shlex
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from typing import Callable, Optional

from results_report import (CLIENT_CORE, SERVER_CORE, SERVERS, draw_chart, machine, tables,
                            versions, write_markdown)

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
TOKEN = "0123456789abcdef0123456789abcdef0123"
RELEASE_SCRIPT = ('if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1])'
                  ' else return 0 end')
# A Redisson lock is a hash: field "<client uuid>:<thread id>" -> hold count.
REDISSON_FIELD = "3f2b8c1e-9a4d-4e7f-8b6a-1c2d3e4f5a6b:1"
MGET_KEYS = 10
KEY_RANGE = 1_000_000
# Reads run against every second key of the range, so half of GETs and EVALSHAs find a lock.
PRELOAD_STEP = 2
PRELOAD_TTL_MS = 600_000
# Beyond this share a DBSIZE differs from its expectation or from the other server's.
KEYS_TOLERANCE = 0.01
SECTIONS = ("throughput", "types", "keyspace", "memory", "types_memory", "storm", "bigdelete",
            "startup", "zsets_lists", "zsets_lists_memory", "blocking", "redisson", "semaphore",
            "unixsocket", "clients10k", "pubsub", "handoff")
# The pubsub section: bench/pubsub_bench.py with these.
PUBSUB_SUBSCRIBERS = 100
PUBSUB_PIPELINES = (1, 16)
# How long a FLUSHALL may take to be freed before the runner gives up.
FLUSH_TIMEOUT_S = 120


@dataclasses.dataclass
class Workload:
    name: str
    label: str
    pipeline: int
    args: list  # redis-benchmark's command; "<sha>" stands for the loaded script's SHA1
    # The command that loads one key (or field) per id of every PRELOAD_STEP-th id of the range,
    # written like `args` (with __rand_int__); None: the run starts from an empty keyspace.
    preload: Optional[list]
    expected_keys: Callable[[int], float]  # requests -> expected `count` after the run
    target: Optional[float]  # upper bound on the CPU-per-request ratio, from the issue
    count: tuple = ("DBSIZE",)  # what the keys check compares
    script: str = RELEASE_SCRIPT  # what "<sha>" is the SHA1 of
    # The ids the preload runs over (start, stop, step), and its reply to each command (None:
    # any reply but an error; by default +OK for SET, :1 for the others).
    preload_ids: tuple = (0, KEY_RANGE, PRELOAD_STEP)
    preload_reply: Optional[bytes] = b""
    # The PING workload at the same pipeline depth in the same section, whose CPU per request is
    # subtracted from this one's ("excess"); None for the PING rows themselves.
    floor: Optional[str] = None


def ping_workload(name, pipeline, what):
    """PING at `pipeline` (redis-benchmark sends it as a multi-bulk `*1 $4 PING`): the floor of
    the section's other rows, what a request costs the server before its command does anything."""
    return Workload(name, f"`PING`, P{pipeline} (the floor of {what})", pipeline, ["PING"], None,
                    lambda n: 0, None)


def distinct_keys(requests, key_range):
    return key_range * (1 - (1 - 1 / key_range) ** requests)


def preloaded_keys():
    return KEY_RANGE // PRELOAD_STEP


def left_after_release(requests):
    # Each preloaded key is deleted the first time a request draws it.
    return preloaded_keys() * (1 - 1 / KEY_RANGE) ** requests


def drawn_keys(requests):
    return distinct_keys(requests, KEY_RANGE)


def workloads():
    set_args = ["SET", "lock:__rand_int__", TOKEN, "NX", "PX", "30000"]
    get_args = ["GET", "lock:__rand_int__"]
    release_args = ["EVALSHA", "<sha>", "1", "lock:__rand_int__", TOKEN]
    lock_preload = ["SET", "lock:__rand_int__", TOKEN, "PX", str(PRELOAD_TTL_MS)]
    out = []
    for pipeline, target in ((16, 0.5), (1, None)):
        floor = f"ping_p{pipeline}"
        what = "the rows at P16" if pipeline == 16 else "the rows at P1 and of lockcycle"
        out += [
            ping_workload(floor, pipeline, what),
            Workload(f"set_p{pipeline}", f"`SET lock:__rand_int__ <36-byte token> NX PX 30000`, "
                     f"P{pipeline}", pipeline, set_args, None, drawn_keys, target, floor=floor),
            Workload(f"get_p{pipeline}", f"`GET lock:__rand_int__`, P{pipeline}", pipeline,
                     get_args, lock_preload, lambda n: preloaded_keys(), target, floor=floor),
            Workload(f"evalsha_p{pipeline}", f"`EVALSHA` compare-and-delete, P{pipeline}",
                     pipeline, release_args, lock_preload, left_after_release, target,
                     floor=floor),
        ]
    return out


def type_workloads():
    """The typed-value commands at pipeline 16. Reads run against half the range loaded, as the
    GET runs do; the last two use one large hash (a field per id) instead of a hash per id."""
    def preloaded(n):
        return preloaded_keys()

    user = ["user:__rand_int__", "name"]
    sessions = ["sessions:__rand_int__", TOKEN]
    mget = ["MGET"] + ["k:__rand_int__"] * MGET_KEYS
    users = ["users", "__rand_int__"]
    return with_floor(ping_workload("types_ping_p16", 16, "the types rows"), [
        Workload("hset_p16", "`HSET user:__rand_int__ name <36 bytes>` (a hash per key), P16", 16,
                 ["HSET", *user, TOKEN], None, drawn_keys, 0.6),
        Workload("hget_p16", "`HGET user:__rand_int__ name`, P16", 16, ["HGET", *user],
                 ["HSET", *user, TOKEN], preloaded, 0.6),
        Workload("hincrby_p16", "`HINCRBY redisson_lock:__rand_int__ <uuid>:1 1` (Redisson's "
                 "lock), P16", 16, ["HINCRBY", "redisson_lock:__rand_int__", REDISSON_FIELD, "1"],
                 None, drawn_keys, 0.6),
        Workload("sadd_p16", "`SADD sessions:__rand_int__ <36 bytes>`, P16", 16,
                 ["SADD", *sessions], None, drawn_keys, 0.6),
        Workload("sismember_p16", "`SISMEMBER sessions:__rand_int__ <36 bytes>`, P16", 16,
                 ["SISMEMBER", *sessions], ["SADD", *sessions], preloaded, 0.6),
        Workload("mget_p16", f"`MGET` of {MGET_KEYS} `k:__rand_int__` (36-byte values), P16", 16,
                 mget, ["SET", "k:__rand_int__", TOKEN], preloaded, 0.6),
        Workload("hset_big_p16", "`HSET users __rand_int__ <36 bytes>` (one hash, a field per "
                 "id), P16", 16, ["HSET", *users, TOKEN], None, drawn_keys, None,
                 count=("HLEN", "users")),
        Workload("hget_big_p16", f"`HGET users __rand_int__` (one hash of "
                 f"{KEY_RANGE // PRELOAD_STEP:,} fields), P16", 16, ["HGET", *users],
                 ["HSET", *users, TOKEN], preloaded, None, count=("HLEN", "users")),
    ])


def with_floor(ping, rows):
    """The PING row first, then the rows, each with it as its floor."""
    return [ping] + [dataclasses.replace(w, floor=ping.name) for w in rows]


# redis-semaphore (npm redis-semaphore 5.8.0, lib/semaphore/acquire/lua.js), verbatim: what
# Semaphore.acquire() sends by EVALSHA with KEYS[1] = "semaphore:<name>" and ARGV = limit,
# identifier (a random UUID), lockTimeout (10000 ms by default) and Date.now().
SEMAPHORE_ACQUIRE_SCRIPT = """
  local key = KEYS[1]
  local limit = tonumber(ARGV[1])
  local identifier = ARGV[2]
  local lockTimeout = tonumber(ARGV[3])
  local now = tonumber(ARGV[4])
  local expiredTimestamp = now - lockTimeout

  redis.call('zremrangebyscore', key, '-inf', expiredTimestamp)

  if redis.call('zcard', key) < limit then
    redis.call('zadd', key, now, identifier)
    redis.call('pexpire', key, lockTimeout)
    return 1
  else
    return 0
  end"""
SEMAPHORE_NOW_MS = 1764590400000  # the acquirer's Date.now()
SEMAPHORE_TIMEOUT_MS = 10000  # redis-semaphore's default lockTimeout
SEMAPHORE_LIMIT = 5
# A preloaded semaphore has five holders: two acquired longer than lockTimeout ago (expired,
# removed by the next acquire's ZREMRANGEBYSCORE) and three live ones.
SEMAPHORE_HOLDERS = [(SEMAPHORE_NOW_MS - age_ms, f"{i:08x}-9a4d-4e7f-8b6a-1c2d3e4f5a6b")
                     for i, age_ms in enumerate((30000, 20000, 5000, 3000, 1000))]
SEMAPHORE_ACQUIRER = "7c9e6679-7425-40de-944b-e07fc1f90ae7"


def zset_list_workloads():
    """Sorted sets and lists at pipeline 16. Per-key rows use semaphores as redis-semaphore
    keeps them, half the range preloaded with five holders each; the other rows use one large
    sorted set (a schedule of jobs) and one queue list."""
    semaphore = "semaphore:__rand_int__"
    holders = [str(x) for h in SEMAPHORE_HOLDERS for x in h]
    semaphore_preload = ["ZADD", semaphore, *holders]
    expired_before = str(SEMAPHORE_NOW_MS - SEMAPHORE_TIMEOUT_MS)
    live_holder = SEMAPHORE_HOLDERS[-1][1]

    def preloaded(n):
        return preloaded_keys()

    def preloaded_plus_drawn(n):
        # Every preloaded key stays; about half the keys drawn are new.
        return preloaded_keys() + drawn_keys(n) / 2

    schedule_preload = ["ZADD", "schedule", "__rand_int__", "job:__rand_int__"]
    return with_floor(ping_workload("zsets_ping_p16", 16, "the zsets_lists rows"), [
        Workload("zadd_semaphore_p16", "`ZADD semaphore:__rand_int__ <now ms> <uuid>` (a sixth "
                 "holder, or a new semaphore), P16", 16,
                 ["ZADD", semaphore, str(SEMAPHORE_NOW_MS), SEMAPHORE_ACQUIRER], semaphore_preload,
                 preloaded_plus_drawn, 0.6, preload_reply=b":5\r\n"),
        Workload("zscore_semaphore_p16", "`ZSCORE semaphore:__rand_int__ <uuid>` (five holders), "
                 "P16", 16, ["ZSCORE", semaphore, live_holder], semaphore_preload, preloaded,
                 0.6, preload_reply=b":5\r\n"),
        Workload("zrangebyscore_semaphore_p16", "`ZRANGEBYSCORE semaphore:__rand_int__ -inf +inf "
                 "LIMIT 0 10` (five holders), P16", 16,
                 ["ZRANGEBYSCORE", semaphore, "-inf", "+inf", "LIMIT", "0", "10"],
                 semaphore_preload, preloaded, 0.6, preload_reply=b":5\r\n"),
        Workload("zremrangebyscore_semaphore_p16", "`ZREMRANGEBYSCORE semaphore:__rand_int__ "
                 "-inf <now - 10 s>` (two of five holders expired), P16", 16,
                 ["ZREMRANGEBYSCORE", semaphore, "-inf", expired_before], semaphore_preload,
                 preloaded, 0.6, preload_reply=b":5\r\n"),
        Workload("evalsha_semaphore_p16", "redis-semaphore's acquire script by `EVALSHA` "
                 "(`ZREMRANGEBYSCORE`, `ZCARD`, `ZADD`, `PEXPIRE`; limit 5), P16", 16,
                 ["EVALSHA", "<sha>", "1", semaphore, str(SEMAPHORE_LIMIT), SEMAPHORE_ACQUIRER,
                  str(SEMAPHORE_TIMEOUT_MS), str(SEMAPHORE_NOW_MS)], semaphore_preload,
                 preloaded_plus_drawn, 0.6, script=SEMAPHORE_ACQUIRE_SCRIPT,
                 preload_reply=b":5\r\n"),
        Workload("zadd_big_p16", "`ZADD schedule __rand_int__ job:__rand_int__` (one sorted set), "
                 "P16", 16, schedule_preload, None, drawn_keys, 0.6, count=("ZCARD", "schedule")),
        Workload("zscore_big_p16", f"`ZSCORE schedule job:__rand_int__` (one sorted set of "
                 f"{KEY_RANGE // PRELOAD_STEP:,} members), P16", 16,
                 ["ZSCORE", "schedule", "job:__rand_int__"], schedule_preload, preloaded, 0.6,
                 count=("ZCARD", "schedule")),
        Workload("zrangebyscore_big_p16", f"`ZRANGEBYSCORE schedule -inf +inf LIMIT 0 10` (one "
                 f"sorted set of {KEY_RANGE // PRELOAD_STEP:,} members), P16", 16,
                 ["ZRANGEBYSCORE", "schedule", "-inf", "+inf", "LIMIT", "0", "10"],
                 schedule_preload, preloaded, 0.6, count=("ZCARD", "schedule")),
        Workload("lpush_queue_p16", "`LPUSH queue <36 bytes>` (one list), P16", 16,
                 ["LPUSH", "queue", TOKEN], None, lambda n: n, 0.6, count=("LLEN", "queue")),
        Workload("rpop_queue_p16", f"`RPOP queue` (one list of {KEY_RANGE:,} elements), P16",
                 16, ["RPOP", "queue"], ["LPUSH", "queue", TOKEN], lambda n: KEY_RANGE - n, 0.6,
                 count=("LLEN", "queue"), preload_ids=(0, KEY_RANGE, 1), preload_reply=None),
        Workload("lpush_signal_p16", "`LPUSH lock-signal:__rand_int__ 1` (python-redis-lock's "
                 "signal key), P16", 16, ["LPUSH", "lock-signal:__rand_int__", "1"], None,
                 drawn_keys, 0.6),
    ])


# --- servers ----------------------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client:
    """A blocking RESP client for the few commands the runner sends itself."""

    def __init__(self, port, timeout_s=None):
        deadline = time.monotonic() + 10
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout_s)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
        self.buf = b""

    def _line(self):
        while b"\r\n" not in self.buf:
            self._fill()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _fill(self):
        data = self.sock.recv(1 << 20)
        if not data:
            raise ConnectionError("server closed the connection")
        self.buf += data

    def call(self, *args):
        self.sock.sendall(encode(args))
        return self.reply()

    def reply(self):
        """Reads one reply: a status or bulk string, an integer or None; raises on an error."""
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"-":
            raise RuntimeError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self._fill()
            value, self.buf = self.buf[:n], self.buf[n + 2:]
            return value.decode()
        return rest.decode()

    def pipeline(self, commands):
        """Sends the encoded commands at once; returns their replies, each a single line (:n or
        +OK), and raises on an error reply."""
        self.sock.sendall(b"".join(commands))
        replies = [self._line() for _ in commands]
        for r in replies:
            if r[:1] == b"-":
                raise RuntimeError(r[1:].decode())
        return replies

    def load(self, args, start, stop, step, batch=20000, reply=b""):
        """Sends `args` for i in range(start, stop, step), pipelined in batches, each
        __rand_int__ in them replaced by i as redis-benchmark writes it (12 digits, zero-padded),
        and checks every reply: `reply`, by default +OK for SET and :1 (one key or member added)
        for the others; with reply=None any single-line reply but an error."""
        template, placeholders = command_template(args)
        if reply == b"":
            reply = b"+OK\r\n" if args[0] == "SET" else b":1\r\n"
        for first in range(start, stop, step * batch):
            ids = range(first, min(stop, first + step * batch), step)
            self.sock.sendall(b"".join(template % ((i,) * placeholders) for i in ids))
            if reply is None:
                while self.buf.count(b"\r\n") < len(ids):
                    self._fill()
                *replies, self.buf = self.buf.split(b"\r\n", len(ids))
                errors = [r for r in replies if r[:1] == b"-"]
                if errors:
                    raise RuntimeError(f"preload: {args[0]} answered {errors[0]!r:.200}")
                continue
            want = len(reply) * len(ids)
            while len(self.buf) < want:
                self._fill()
            if self.buf[:want] != reply * len(ids):
                raise RuntimeError(f"preload: {args[0]} did not answer {reply!r} every time: "
                                   f"{self.buf[:want]!r:.200}")
            self.buf = self.buf[want:]

    def info(self, section):
        text = self.call("INFO", section)
        return dict(line.split(":", 1) for line in text.split("\r\n") if ":" in line)

    def flushall(self):
        """FLUSHALL, then waits until the server has freed what it held: warden frees a large
        flush in slices after replying, which would otherwise run in the next measurement."""
        self.call("FLUSHALL")
        deadline = time.monotonic() + FLUSH_TIMEOUT_S
        last = None
        while time.monotonic() < deadline:
            memory = self.info("memory")
            if "lazyfree_pending_objects" in memory:
                if memory["lazyfree_pending_objects"] == "0":
                    return
            else:
                # No such field (older warden): done when the dataset has stopped shrinking.
                if memory.get("used_memory_dataset") == last:
                    return
                last = memory.get("used_memory_dataset")
            time.sleep(0.02)
        raise RuntimeError(f"FLUSHALL not freed after {FLUSH_TIMEOUT_S} s")

    def close(self):
        self.sock.close()


def command_template(args):
    """args as RESP, with each __rand_int__ a %012d; returns it and how many there are."""
    parts = [b"*%d\r\n" % len(args)]
    placeholders = 0
    for a in args:
        n = a.count("__rand_int__")
        placeholders += n
        size = len(a.encode()) + n * (12 - len("__rand_int__"))
        text = a.encode().replace(b"%", b"%%").replace(b"__rand_int__", b"%012d")
        parts.append(b"$%d\r\n%s\r\n" % (size, text))
    return b"".join(parts), placeholders


def encode(args):
    parts = [f"*{len(args)}\r\n".encode()]
    for a in args:
        b = a.encode() if isinstance(a, str) else a
        parts.append(b"$%d\r\n%s\r\n" % (len(b), b))
    return b"".join(parts)


class Server:
    def __init__(self, name, argv_for_port):
        self.name = name
        self.port = free_port()
        self.unixsocket = None  # its path, when ServerPair gave it one
        self.proc = subprocess.Popen(["taskset", "-c", SERVER_CORE] + argv_for_port(self.port),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            self.client = Client(self.port)
            self.client.call("PING")
        except BaseException:
            self.stop()
            raise

    def cpu_ns(self):
        """Time on CPU of every thread so far (Redis's background threads count too)."""
        total = 0
        task_dir = f"/proc/{self.proc.pid}/task"
        for tid in os.listdir(task_dir):
            try:
                with open(f"{task_dir}/{tid}/schedstat") as f:
                    total += int(f.read().split()[0])
            except FileNotFoundError:
                pass  # a thread that ended between listdir and open
        return total

    def rss_bytes(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class ServerPair:
    """warden and redis-server, fresh, stopped on exit whatever happens; `extra` options for
    both, and with `unixsocket_dir` each also listens on <dir>/<name>.sock (server.unixsocket)."""

    def __init__(self, args, extra=(), unixsocket_dir=None):
        self.args = args
        self.extra = list(extra)
        self.unixsocket_dir = unixsocket_dir
        self.servers = {}

    def _unix(self, name):
        if self.unixsocket_dir is None:
            return []
        path = os.path.join(self.unixsocket_dir, f"{name}.sock")
        return ["--unixsocket", path, "--unixsocketperm", "700"]

    def __enter__(self):
        try:
            self.servers["warden"] = Server("warden", lambda p: [
                self.args.warden, "--port", str(p)] + self._unix("warden") + self.extra
                + list(self.args.warden_arg or []))
            self.servers["redis"] = Server("redis", lambda p: [
                self.args.redis, "--port", str(p), "--save", "", "--appendonly", "no"]
                + self._unix("redis") + self.extra)
            for name, server in self.servers.items():
                if self.unixsocket_dir is not None:
                    server.unixsocket = self._unix(name)[1]
                    if not os.path.exists(server.unixsocket):
                        raise RuntimeError(f"{name} made no unix socket {server.unixsocket}")
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self.servers

    def __exit__(self, *exc):
        for s in self.servers.values():
            s.stop()


# --- load generators --------------------------------------------------------------------------

def run_client(argv, exit_codes=(0,)):
    """Runs a load generator on the client core; returns its stdout."""
    done = subprocess.run(["taskset", "-c", CLIENT_CORE] + argv, capture_output=True, text=True)
    # redis-benchmark stops at the first error reply ("Error from server: ...") and exits 1.
    if done.returncode not in exit_codes:
        raise RuntimeError(f"{shlex.join(argv)} failed ({done.returncode}): "
                           f"{done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


def redis_benchmark(server, requests, pipeline, key_range, args, connections=50,
                    unixsocket=None):
    where = ["-s", unixsocket] if unixsocket else ["-p", str(server.port)]
    out = run_client(["redis-benchmark"] + where + ["-n", str(requests), "-c", str(connections),
                      "-r", str(key_range), "-P", str(pipeline), "--csv"] + args)
    row = list(csv.DictReader(io.StringIO(out)))[-1]
    # redis-benchmark 7.0's CSV gives percentiles in ms with three decimals.
    return {"requests": requests, "ops_per_sec": float(row["rps"]),
            "p50_us": float(row["p50_latency_ms"]) * 1000,
            "p99_us": float(row["p99_latency_ms"]) * 1000}


def where_args(server, unixsocket):
    """lockcycle's and cmdcycle's options for the server's TCP port or its unix socket."""
    return ["--unixsocket", server.unixsocket] if unixsocket else ["--port", str(server.port)]


def lockcycle(binary, server, seconds, seed, connections=50, unixsocket=False):
    # lockcycle exits 1 after unexpected replies; the keys check reports them.
    r = json.loads(run_client([binary] + where_args(server, unixsocket) + [
        "--duration", str(seconds), "--seed", str(seed), "--connections", str(connections)],
        exit_codes=(0, 1)))
    return {"requests": r["ops"], "ops_per_sec": r["ops_per_sec"], "p50_us": r["p50_us"],
            "p99_us": r["p99_us"], "p999_us": r["p999_us"], "unexpected": r["unexpected"]}


def cmdcycle(binary, server, seconds, seed, steps, connections=50, unixsocket=False):
    """bench/cmdcycle: each connection repeats `steps` ("<reply> <command> <args>..."), one
    request in flight."""
    r = json.loads(run_client([binary] + where_args(server, unixsocket) + [
        "--duration", str(seconds), "--seed", str(seed), "--connections", str(connections)]
        + steps, exit_codes=(0, 1)))
    return {"requests": r["ops"], "cycles": r["cycles"], "ops_per_sec": r["ops_per_sec"],
            "p50_us": r["p50_us"], "p99_us": r["p99_us"], "p999_us": r["p999_us"],
            "unexpected": r["unexpected"], "first_unexpected": r["first_unexpected"]}


def find_tool(args, tmp, name, override=None):
    """bench/<name>.c's binary: `override`, else the CMake-built one beside the warden binary
    unless the source is newer than it, else one compiled here with cc (once per run)."""
    if override:
        return override
    source = os.path.join(BENCH_DIR, f"{name}.c")
    built = os.path.join(os.path.dirname(os.path.abspath(args.warden)), "bench", name)
    if os.access(built, os.X_OK) and os.path.getmtime(built) >= os.path.getmtime(source):
        return built
    binary = os.path.join(tmp, name)
    if not os.access(binary, os.X_OK):
        subprocess.run(["cc", "-O2", "-o", binary, source], check=True)
    return binary


def find_lockcycle(args, tmp):
    """--lockcycle, else the CMake-built lockcycle beside the warden binary (unless
    bench/lockcycle.c is newer), else one compiled here with cc."""
    return find_tool(args, tmp, "lockcycle", args.lockcycle)


def measured(server, run):
    """Runs run() and adds the server's CPU per request over it."""
    before = server.cpu_ns()
    result = run()
    result["cpu_us_per_req"] = (server.cpu_ns() - before) / 1000 / result["requests"]
    return result


def alternate(rounds):
    """Server order per round: each goes first in every other round."""
    return [SERVERS if r % 2 == 0 else SERVERS[::-1] for r in range(rounds)]


# --- sections ---------------------------------------------------------------------------------

def keys_check(runs, expected, unit="keys"):
    """'ok', or what is off: a count (DBSIZE, HLEN) away from its expectation or from the other
    server's."""
    problems = []
    for r, pair in enumerate(zip(runs["warden"], runs["redis"])):
        w, rd = pair[0]["count"], pair[1]["count"]
        want = expected(pair[0]["requests"])
        if abs(w - rd) > KEYS_TOLERANCE * max(w, rd, 1):
            problems.append(f"round {r + 1}: warden {w} {unit}, Redis {rd}")
        for name, got in (("warden", w), ("Redis", rd)):
            if abs(got - want) > KEYS_TOLERANCE * max(want, 1):
                problems.append(f"round {r + 1}: {name} {got} {unit}, expected ~{want:.0f}")
    return "ok" if not problems else "; ".join(problems)


def summarize(runs):
    fields = [k for k in runs["warden"][0] if isinstance(runs["warden"][0][k], (int, float))]
    median = {s: {k: statistics.median(r[k] for r in runs[s]) for k in fields} for s in SERVERS}
    ratio = {k: median["warden"][k] / median["redis"][k] for k in fields if median["redis"][k]}
    return median, ratio


def selected(args, workload_list, also=()):
    """The workloads --workloads names (all without it), with the PING floor of each and the
    names in `also`."""
    if not args.workloads:
        return workload_list
    want = set(args.workloads) | set(also)
    want |= {w.floor for w in workload_list if w.name in want and w.floor}
    return [w for w in workload_list if w.name in want]


def run_workloads(args, servers, workloads_to_run, out, also=()):
    """Each workload on both servers for every round; adds its medians and keys check to out."""
    for w in selected(args, workloads_to_run, also):
        runs = {s: [] for s in SERVERS}
        for order in alternate(args.rounds):
            for name in order:
                server = servers[name]
                server.client.flushall()
                args_now = list(w.args)
                if "<sha>" in args_now:
                    args_now[args_now.index("<sha>")] = server.client.call(
                        "SCRIPT", "LOAD", w.script)
                if w.preload:
                    server.client.load(w.preload, *w.preload_ids, reply=w.preload_reply)
                requests = args.requests_p16 if w.pipeline == 16 else args.requests_p1
                result = measured(server, lambda: redis_benchmark(
                    server, requests, w.pipeline, KEY_RANGE, args_now))
                result["count"] = server.client.call(*w.count)
                runs[name].append(result)
        report(w.name, runs)
        median, ratio = summarize(runs)
        unit = {"DBSIZE": "keys", "HLEN": "fields", "ZCARD": "members", "LLEN": "elements"}[
            w.count[0]]
        out["workloads"][w.name] = {
            "label": w.label, "target_cpu_ratio": w.target, "runs": runs, "median": median,
            "ratio": ratio, "keys_check": keys_check(runs, w.expected_keys, unit),
            "floor": w.floor}


def add_excess(out):
    """For each row with a PING floor: its CPU per request minus the floor's, per server (of the
    medians, and round by round), and the ratio of the two (None unless both are above 0)."""
    workloads = out["workloads"]
    for w in workloads.values():
        floor = workloads.get(w.get("floor"))
        if floor is None:
            continue
        cpu = {s: w["median"][s]["cpu_us_per_req"] for s in SERVERS}
        base = {s: floor["median"][s]["cpu_us_per_req"] for s in SERVERS}
        excess = {s: cpu[s] - base[s] for s in SERVERS}
        w["excess"] = {
            "floor": w["floor"], "floor_cpu_us_per_req": base,
            "warden_us_per_req": excess["warden"], "redis_us_per_req": excess["redis"],
            "ratio": (excess["warden"] / excess["redis"]
                      if excess["warden"] > 0 and excess["redis"] > 0 else None),
            "by_round": {s: [r["cpu_us_per_req"] - f["cpu_us_per_req"]
                             for r, f in zip(w["runs"][s], floor["runs"][s])] for s in SERVERS}}


def throughput_section(args, lockcycle_bin, out):
    with ServerPair(args) as servers:
        with_lockcycle = not args.workloads or "lockcycle" in args.workloads
        run_workloads(args, servers, workloads(), out,
                      also=("ping_p1",) if with_lockcycle else ())
        if not with_lockcycle:
            return

        runs = {s: [] for s in SERVERS}
        for r, order in enumerate(alternate(args.rounds)):
            for name in order:
                server = servers[name]
                server.client.flushall()
                result = measured(server, lambda: lockcycle(
                    lockcycle_bin, server, args.lockcycle_seconds, seed=r + 1))
                result["count"] = server.client.call("DBSIZE")
                runs[name].append(result)
        report("lockcycle", runs)
        median, ratio = summarize(runs)
        unexpected = sum(r["unexpected"] for s in SERVERS for r in runs[s])
        check = keys_check(runs, lambda n: 0)
        if unexpected:
            check = f"{unexpected} unexpected replies" + ("" if check == "ok" else f"; {check}")
        out["workloads"]["lockcycle"] = {
            "label": "lock cycle (`bench/lockcycle`): `SET NX PX`, `EVALSHA` pexpire, "
                     "`EVALSHA` delete; 50 connections, 1 request in flight each",
            "target_cpu_ratio": None, "runs": runs, "median": median, "ratio": ratio,
            "keys_check": check, "floor": "ping_p1"}


def types_section(args, out):
    with ServerPair(args) as servers:
        run_workloads(args, servers, type_workloads(), out)


def zsets_lists_section(args, out):
    with ServerPair(args) as servers:
        run_workloads(args, servers, zset_list_workloads(), out)


# --- one request in flight: Redisson, redis-semaphore, unix socket, ten thousand clients -------

# Connections of the cycle sections: as lockcycle's and redis-benchmark's 50, so that PING at P1
# with 50 connections is their floor.
CYCLE_CONNECTIONS = 50
# Redisson (3.52.0) with its default config: the lease of lock() without one is
# lockWatchdogTimeout, and an unlock's latch lives (3000 + EqualJitterDelay(1 s, 2 s)) * 4 ms,
# 16-20 s (tests/clients/python/redisson_replay.py, unlock_timeout_ms).
REDISSON_CLIENT_ID = REDISSON_FIELD.split(":")[0]
REDISSON_LEASE_MS = 30000
REDISSON_LATCH_MS = 20000
# ten thousand clients, a hundred of them busy; both servers get --maxclients CLIENTS_MAX (10,000
# by default for both, and the runner's own connection makes 10,001).
CLIENTS_TOTAL = 10_000
CLIENTS_BUSY = 100
CLIENTS_MAX = 10_100
# redis-semaphore: each connection's semaphore holds two live holders besides the acquirer's.
SEMAPHORE_CYCLE_HOLDERS = SEMAPHORE_HOLDERS[-2:]


def redisson_scripts():
    """RLock's acquire (tryLockInnerAsync) and unlock (unlockInnerAsync) scripts, byte for byte
    from the copy the client suites replay (Redisson 3.52.0)."""
    sys.path.insert(0, os.path.join(BENCH_DIR, "..", "tests", "clients", "python"))
    from redisson_lock_scripts import LOCK_TRY_LOCK, LOCK_UNLOCK
    return LOCK_TRY_LOCK, LOCK_UNLOCK


def run_paired(args, servers, measure):
    """measure(server, round) -> {row: result} on both servers each round, alternating which goes
    first; returns {row: {server: [result per round]}}."""
    runs = {}
    for r, order in enumerate(alternate(args.rounds)):
        for name in order:
            for row, result in measure(servers[name], r).items():
                runs.setdefault(row, {s: [] for s in SERVERS})[name].append(result)
    return runs


def add_row(out, name, label, runs, check, floor=None, target=None):
    report(name, runs)
    median, ratio = summarize(runs)
    out["workloads"][name] = {"label": label, "target_cpu_ratio": target, "runs": runs,
                              "median": median, "ratio": ratio, "keys_check": check,
                              "floor": floor}


def cycle_check(runs, expected, unit="keys"):
    """'ok', or what is off: unexpected replies, or a run's count away from expected(result)
    (each run's own: a timed run does a different number of cycles on each server)."""
    problems = []
    for name in SERVERS:
        for r, result in enumerate(runs[name]):
            if result.get("unexpected"):
                first = result.get("first_unexpected")
                problems.append(f"round {r + 1}: {name} {result['unexpected']} unexpected replies"
                                + (f" (first: {first!r})" if first else ""))
            want = expected(result)
            if abs(result["count"] - want) > KEYS_TOLERANCE * max(want, 1):
                problems.append(f"round {r + 1}: {name} {result['count']} {unit}, "
                                f"expected ~{want:.0f}")
    return "ok" if not problems else "; ".join(problems)


def ping_floor(args, server, connections=CYCLE_CONNECTIONS, unixsocket=False):
    """PING at P1 with `connections` connections: the floor of a one-request-in-flight row."""
    return measured(server, lambda: redis_benchmark(
        server, args.floor_requests, 1, 1, ["PING"], connections,
        server.unixsocket if unixsocket else None))


def add_ping_row(out, name, label, runs):
    add_row(out, name, f"`PING`, P1, {label}", runs, "—")


def redisson_section(args, tmp, out):
    """Redisson's RLock: tryLock (the acquire script: nil, acquired), unlock (the unlock script:
    1, released; it publishes the unlock message and sets the request's latch key) and the DEL
    of the client's latch that Redisson sends after it (0), by EVALSHA, one lock per cycle."""
    binary = find_tool(args, tmp, "cmdcycle")
    try_lock, unlock = redisson_scripts()
    name = "order:%s:%c:%n"
    channel = "redisson_lock__channel:{order:%s:%c:%n}"
    latch = "redisson_unlock_latch:{order:%s:%c:%n}"
    holder = f"{REDISSON_CLIENT_ID}:%c"  # "<client id>:<thread id>", a thread per connection

    def measure(server, r):
        server.client.flushall()
        try_sha = server.client.call("SCRIPT", "LOAD", try_lock)
        unlock_sha = server.client.call("SCRIPT", "LOAD", unlock)
        steps = [f"$-1 EVALSHA {try_sha} 1 {name} {REDISSON_LEASE_MS} {holder}",
                 f":1 EVALSHA {unlock_sha} 3 {name} {channel} {latch}:%r 0 {REDISSON_LEASE_MS} "
                 f"{holder} publish {REDISSON_LATCH_MS}",
                 f":0 DEL {latch}:{REDISSON_CLIENT_ID}"]
        cycle = measured(server, lambda: cmdcycle(binary, server, args.cycle_seconds, r + 1,
                                                  steps, CYCLE_CONNECTIONS))
        # What a cycle leaves: its unlock's latch, which lives 20 s.
        cycle["count"] = server.client.call("DBSIZE")
        return {"redisson_ping_p1": ping_floor(args, server), "redisson_cycle": cycle}

    with ServerPair(args) as servers:
        runs = run_paired(args, servers, measure)
    add_ping_row(out, "redisson_ping_p1", f"{CYCLE_CONNECTIONS} connections (the floor of the "
                 "Redisson row)", runs["redisson_ping_p1"])
    add_row(out, "redisson_cycle", "Redisson `RLock` cycle: the acquire script, the unlock script "
            "(`PUBLISH`, latch `SET PX`), `DEL` of the latch; `EVALSHA`, "
            f"{CYCLE_CONNECTIONS} connections, 1 request in flight each", runs["redisson_cycle"],
            cycle_check(runs["redisson_cycle"], lambda r: r["cycles"], "latch keys"),
            floor="redisson_ping_p1")


def semaphore_section(args, tmp, out):
    """redis-semaphore's Semaphore: acquire (its script by EVALSHA: 1) and release (ZREM: 1) on
    the connection's own semaphore, which two other live holders keep."""
    binary = find_tool(args, tmp, "cmdcycle")
    key = "semaphore:%s:%c"
    holders = [str(x) for h in SEMAPHORE_CYCLE_HOLDERS for x in h]

    def measure(server, r):
        server.client.flushall()
        sha = server.client.call("SCRIPT", "LOAD", SEMAPHORE_ACQUIRE_SCRIPT)
        for c in range(CYCLE_CONNECTIONS):
            if server.client.call("ZADD", f"semaphore:{r + 1}:{c}", *holders) != len(
                    SEMAPHORE_CYCLE_HOLDERS):
                raise RuntimeError(f"{server.name}: the semaphore preload failed")
        steps = [f":1 EVALSHA {sha} 1 {key} {SEMAPHORE_LIMIT} %u {SEMAPHORE_TIMEOUT_MS} "
                 f"{SEMAPHORE_NOW_MS}",
                 f":1 ZREM {key} %u"]
        cycle = measured(server, lambda: cmdcycle(binary, server, args.cycle_seconds, r + 1,
                                                  steps, CYCLE_CONNECTIONS))
        # Every semaphore is left with its two other holders.
        cycle["count"] = sum(server.client.call("ZCARD", f"semaphore:{r + 1}:{c}")
                             for c in range(CYCLE_CONNECTIONS))
        return {"semaphore_ping_p1": ping_floor(args, server), "semaphore_cycle": cycle}

    with ServerPair(args) as servers:
        runs = run_paired(args, servers, measure)
    add_ping_row(out, "semaphore_ping_p1", f"{CYCLE_CONNECTIONS} connections (the floor of the "
                 "semaphore row)", runs["semaphore_ping_p1"])
    add_row(out, "semaphore_cycle", "redis-semaphore `Semaphore` cycle: the acquire script by "
            f"`EVALSHA` (limit {SEMAPHORE_LIMIT}, two other holders), release by `ZREM`; "
            f"{CYCLE_CONNECTIONS} connections, 1 request in flight each",
            runs["semaphore_cycle"],
            cycle_check(runs["semaphore_cycle"],
                        lambda r: CYCLE_CONNECTIONS * len(SEMAPHORE_CYCLE_HOLDERS), "members"),
            floor="semaphore_ping_p1")


def unixsocket_section(args, tmp, out):
    """lockcycle over TCP loopback and over a unix socket, on the same servers, each with PING
    over the same transport as its floor."""
    binary = find_lockcycle(args, tmp)

    def measure(server, r):
        rows = {}
        for transport, unix in (("tcp", False), ("unix", True)):
            server.client.flushall()
            result = measured(server, lambda: lockcycle(
                binary, server, args.cycle_seconds, r + 1, CYCLE_CONNECTIONS, unix))
            result["count"] = server.client.call("DBSIZE")
            rows[f"lockcycle_{transport}"] = result
            rows[f"{transport}_ping_p1"] = ping_floor(args, server, unixsocket=unix)
        return rows

    with ServerPair(args, unixsocket_dir=tmp) as servers:
        runs = run_paired(args, servers, measure)
    for transport, what in (("tcp", "TCP loopback"), ("unix", "unix socket")):
        add_ping_row(out, f"{transport}_ping_p1", f"{CYCLE_CONNECTIONS} connections, {what} (the "
                     "floor of the next row)", runs[f"{transport}_ping_p1"])
        add_row(out, f"lockcycle_{transport}", f"lock cycle (`bench/lockcycle`) over {what}; "
                f"{CYCLE_CONNECTIONS} connections, 1 request in flight each",
                runs[f"lockcycle_{transport}"],
                cycle_check(runs[f"lockcycle_{transport}"], lambda r: 0),
                floor=f"{transport}_ping_p1")


def raise_fd_limit(need):
    """The soft fd limit up to the hard one (the servers started after inherit it); False if
    even that is below `need`."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard >= need


def open_idle(server, n):
    """n connections, each having had one PING answered; closed with a reset (SO_LINGER 0) so
    that reconnecting every round leaves no TIME_WAIT behind."""
    conns = []
    try:
        for _ in range(n):
            c = socket.create_connection(("127.0.0.1", server.port), timeout=60)
            c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conns.append(c)
            c.sendall(b"*1\r\n$4\r\nPING\r\n")
        for c in conns:
            got = b""
            while len(got) < 7:
                chunk = c.recv(7 - len(got))
                if not chunk:
                    raise RuntimeError(f"{server.name} closed an idle connection: {got!r}")
                got += chunk
            if got != b"+PONG\r\n":
                raise RuntimeError(f"{server.name} answered an idle client's PING with {got!r}")
    except BaseException:
        close_idle(conns)
        raise
    return conns


def close_idle(conns):
    for c in conns:
        c.close()


def wait_clients(server, n, timeout_s=60):
    """Until INFO clients counts n connections (the runner's own included)."""
    deadline = time.monotonic() + timeout_s
    while True:
        got = int(server.client.info("clients")["connected_clients"])
        if got == n:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"{server.name}: {got} clients connected, expected {n}")
        time.sleep(0.02)


def clients10k_section(args, tmp, out):
    """CLIENTS_BUSY connections running lockcycle, with and then without the rest of
    CLIENTS_TOTAL connected and idle; PING from CLIENTS_BUSY connections the same way as the
    floor."""
    binary = find_lockcycle(args, tmp)
    idle_n = CLIENTS_TOTAL - CLIENTS_BUSY

    def measure(server, r):
        rows = {}
        for label, idle in (("clients100", 0), ("clients10k", idle_n)):
            server.client.flushall()
            conns = open_idle(server, idle)
            try:
                wait_clients(server, idle + 1)
                result = measured(server, lambda: lockcycle(
                    binary, server, args.cycle_seconds, r + 1, CLIENTS_BUSY))
                result["count"] = server.client.call("DBSIZE")
                rows[f"{label}_lockcycle"] = result
                rows[f"{label}_ping_p1"] = ping_floor(args, server, CLIENTS_BUSY)
            finally:
                close_idle(conns)
            wait_clients(server, 1)
        return rows

    with ServerPair(args, extra=["--maxclients", str(CLIENTS_MAX)]) as servers:
        runs = run_paired(args, servers, measure)
    for label, what in (("clients100", f"{CLIENTS_BUSY} connections, no others"),
                        ("clients10k", f"{CLIENTS_BUSY} busy connections among {CLIENTS_TOTAL:,} "
                                       f"({idle_n:,} idle)")):
        add_ping_row(out, f"{label}_ping_p1", f"{what} (the floor of the next row)",
                     runs[f"{label}_ping_p1"])
        add_row(out, f"{label}_lockcycle", f"lock cycle (`bench/lockcycle`), {what}; 1 request "
                "in flight each", runs[f"{label}_lockcycle"],
                cycle_check(runs[f"{label}_lockcycle"], lambda r: 0),
                floor=f"{label}_ping_p1")


def keyspace_section(args, out):
    small = 1000
    section = {"small_keys": small, "large_keys": args.keys, "runs": {}}
    with ServerPair(args) as servers:
        for keys in (small, args.keys):
            started = time.monotonic()
            for server in servers.values():
                done = server.client.call("DBSIZE")
                server.client.load(["SET", "lock:__rand_int__", TOKEN, "PX", "3600000"],
                                   done, keys, 1)
                got = server.client.call("DBSIZE")
                if got != keys:
                    raise RuntimeError(f"{server.name} holds {got} keys after loading {keys}")
            print(f"keyspace: {keys} keys loaded in both in {time.monotonic() - started:.0f} s",
                  flush=True)
            runs = {s: [] for s in SERVERS}
            for order in alternate(args.rounds):
                for name in order:
                    server = servers[name]
                    runs[name].append(measured(server, lambda: redis_benchmark(
                        server, args.requests_p16, 16, keys, ["GET", "lock:__rand_int__"])))
            report(f"GET P16, {keys} keys", runs)
            median, ratio = summarize(runs)
            section["runs"][str(keys)] = {"runs": runs, "median": median, "ratio": ratio,
                                          "rss_bytes": {s: servers[s].rss_bytes()
                                                        for s in SERVERS}}
    out["keyspace"] = section


def script_section(args, script, extra):
    """Runs one of the single-purpose bench scripts with --json and returns what it printed."""
    argv = [sys.executable, os.path.join(BENCH_DIR, script), args.warden, "--redis", args.redis,
            "--json"] + extra
    print(f"running {shlex.join(argv)}", flush=True)
    done = subprocess.run(argv, stdout=subprocess.PIPE, text=True, check=True)
    return json.loads(done.stdout)


def report(what, runs):
    """One progress line per workload: every round's ops/s and CPU per request."""
    line = ", ".join(
        f"{s} " + " ".join(f"{r['ops_per_sec'] / 1000:.0f}k/{r['cpu_us_per_req']:.2f}us"
                           for r in runs[s]) for s in SERVERS)
    print(f"{what}: ops/s / CPU per request: {line}", flush=True)


# --- output -----------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("warden")
    ap.add_argument("--redis", default="redis-server")
    ap.add_argument("--warden-arg", action="append", metavar="ARG",
                    help="one more argument for warden (repeat it), e.g. --warden-arg=--lua-native-scripts "
                         "--warden-arg=no to measure the interpreter")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--quick", action="store_true",
                    help="1 round, fewer requests, smaller keyspaces: checks it all works")
    ap.add_argument("--only", default=",".join(SECTIONS),
                    help="comma-separated sections: " + ", ".join(SECTIONS))
    ap.add_argument("--keys", type=int,
                    help="keyspace size of the keyspace-growth run, and the fields of the hash "
                         "and keys that bigdelete frees")
    ap.add_argument("--lockcycle", help="lockcycle binary (default: beside warden, else cc)")
    ap.add_argument("--cycle-seconds", type=float,
                    help="length of each run of the redisson, semaphore, unixsocket and "
                         "clients10k sections (default 5; 2 with --quick)")
    ap.add_argument("--out", default=os.path.join(BENCH_DIR, "results"))
    ap.add_argument("--note", default="", help="a line for latest.md, e.g. what else ran")
    ap.add_argument("--workloads", help="comma-separated workload names (e.g. lpush_queue_p16, "
                    "lockcycle): only these of the throughput, types and zsets_lists sections, "
                    "each with its PING floor")
    args = ap.parse_args()
    # A plain SIGTERM would skip the finally blocks that stop the servers.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    args.warden = os.path.abspath(args.warden)
    quick = args.quick
    args.rounds = args.rounds or (1 if quick else 3)
    args.requests_p16 = 100_000 if quick else 500_000
    # At P1 a loaded machine can fall to ~20k ops/s: 200k requests still end before the first
    # SET's 30 s lease runs out, so no key expires during the run or before the DBSIZE check.
    args.requests_p1 = 30_000 if quick else 200_000
    args.lockcycle_seconds = 2 if quick else 10
    args.keys = args.keys or (1_000_000 if quick else 10_000_000)
    args.cycle_seconds = args.cycle_seconds or (2 if quick else 5)
    # PING at P1 as the floor of the one-request-in-flight sections.
    args.floor_requests = 20_000 if quick else 100_000
    args.pubsub_messages = 500 if quick else 2000
    sections = args.only.split(",")
    args.workloads = set(args.workloads.split(",")) if args.workloads else None
    if args.workloads:
        known = {w.name for w in workloads() + type_workloads() + zset_list_workloads()}
        known.add("lockcycle")
        if args.workloads - known:
            ap.error(f"unknown workloads: {', '.join(sorted(args.workloads - known))}")
    unknown = set(sections) - set(SECTIONS)
    if unknown:
        ap.error(f"unknown sections: {', '.join(sorted(unknown))}")
    for tool in ("taskset", "redis-benchmark", args.redis):
        if shutil.which(tool) is None:
            ap.error(f"{tool} not found")
    if "clients10k" in sections and not raise_fd_limit(CLIENTS_TOTAL + 200):
        ap.error(f"clients10k needs an fd limit of {CLIENTS_TOTAL + 200} (ulimit -Hn is "
                 f"{resource.getrlimit(resource.RLIMIT_NOFILE)[1]}): leave it out of --only")

    started = time.monotonic()
    out = {"date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
           "command": shlex.join([sys.executable] + sys.argv),
           "machine": machine(), "versions": versions(args), "rounds": args.rounds,
           "requests_p16": args.requests_p16, "requests_p1": args.requests_p1,
           "lockcycle_seconds": args.lockcycle_seconds, "cycle_seconds": args.cycle_seconds,
           "floor_requests": args.floor_requests, "note": args.note, "workloads": {}}
    with tempfile.TemporaryDirectory() as tmp:
        if "throughput" in sections:
            throughput_section(args, find_lockcycle(args, tmp), out)
    if "types" in sections:
        types_section(args, out)
    if "keyspace" in sections:
        keyspace_section(args, out)
    if "memory" in sections:
        out["memory"] = script_section(args, "memory_per_lock.py",
                                       ["--locks", str(200_000 if quick else 1_000_000)])
    if "types_memory" in sections:
        out["types_memory"] = script_section(args, "types_memory.py",
                                             ["--scale", "0.2" if quick else "1"])
    if "storm" in sections:
        out["storm"] = script_section(args, "expiry_storm.py",
                                      ["--locks", str(200_000 if quick else 1_000_000)])
    if "bigdelete" in sections:
        out["bigdelete"] = script_section(args, "big_delete.py",
                                          ["--fields", str(args.keys), "--keys", str(args.keys)])
    if "startup" in sections:
        out["startup"] = script_section(args, "start_time.py",
                                        ["--runs", "10" if quick else "40",
                                         "--parallel", "50" if quick else "200"])
    if "zsets_lists" in sections:
        zsets_lists_section(args, out)
    if "zsets_lists_memory" in sections:
        out["zsets_lists_memory"] = script_section(
            args, "types_memory.py",
            ["--workload", "semaphore", "signal", "bigzset", "--scale", "0.2" if quick else "1"])
    if "blocking" in sections:
        out["blocking"] = script_section(args, "blocking_bench.py", ["--quick"] if quick else [])
    elif "handoff" in sections:
        # blocking's run includes the hand-offs; alone, only that part.
        out["blocking"] = script_section(args, "blocking_bench.py",
                                         ["--parts", "handoff"] + (["--quick"] if quick else []))
    with tempfile.TemporaryDirectory() as tmp:
        for name, section in (("redisson", redisson_section), ("semaphore", semaphore_section),
                              ("unixsocket", unixsocket_section),
                              ("clients10k", clients10k_section)):
            if name in sections:
                section(args, tmp, out)
    if "pubsub" in sections:
        out["pubsub"] = {
            "subscribers": PUBSUB_SUBSCRIBERS, "messages": args.pubsub_messages,
            "rounds": args.rounds,
            "pipelines": script_section(args, "pubsub_bench.py", [
                "--subscribers", str(PUBSUB_SUBSCRIBERS), "--messages", str(args.pubsub_messages),
                "--rounds", str(args.rounds), "--pipelines"] + [str(p) for p in PUBSUB_PIPELINES])}
    add_excess(out)
    out["elapsed_s"] = round(time.monotonic() - started)
    out["machine"]["loadavg_at_end"] = os.getloadavg()[0]

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "latest.json"), "w") as f:
        json.dump(out, f, indent=1)
    chart = draw_chart(out, os.path.join(args.out, "ratios.png"))
    write_markdown(out, os.path.join(args.out, "latest.md"), chart)
    print()
    print(tables(out))
    print(f"took {out['elapsed_s']} s; wrote {args.out}/latest.md and latest.json; " +
          ("chart ratios.png" if chart else "chart skipped (python3-matplotlib not installed)"))


if __name__ == "__main__":
    main()
