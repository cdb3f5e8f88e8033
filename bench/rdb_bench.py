#!/usr/bin/env python3
"""RDB snapshots side by side (issue 34): SAVE time, BGSAVE time and the worst PING during it,
load time at start and file size, for warden and redis-server 7.0 holding the same data set.
    bench/rdb_bench.py build/warden [--redis redis-server] [--locks 10000000]
        [--collections 1000000] [--types hash,set,zset,list,stream] [--rounds 1]
        [--check 200] [--tmp DIR] [--keep] [--commit SHA] [--json]

The data set, generated once as RESP into a file (a seeded generator, so every run holds the
same data) and piped into both servers with `redis-cli --pipe`:
  locks        --locks x `SET lock:<uuid> <uuid token> PX 2592000000` (36-character random
               hex UUIDs for the key's id and the token, as a lock library writes them; a lease
               of 30 days, so none expires during the run)
  hash         --collections x `HSET hash:<uuid> owner <uuid> count <n> created <ms> state
               held|wait` (4 fields: a listpack in Redis, packed in warden)
  set          --collections x `SADD set:<uuid> <4 members of 16 hex characters>` (strings,
               so a hash table in Redis 7.0, which writes it as RDB_TYPE_SET)
  zset         --collections x `ZADD zset:<uuid> <ms> <uuid> x 5` (a redis-semaphore shape)
  list         --collections x `RPUSH list:<uuid> job:<12 hex> x 5`
  stream       --collections x three `XADD stream:<uuid> <ms>-<n> type <word> owner <uuid>`
--types picks the collection types (all five by default).

Each server in turn (pinned to core 0, this script and its clients on core 1), with `--save ""`,
`--appendonly no`, its own --dir and a --logfile there, both with their default rdbcompression
and rdbchecksum (yes), is loaded, then for each round (servers alternating):
  SAVE    sync(2) first, then the SAVE command's round trip (both servers fsync the file before
          renaming it); the file's size after it
  BGSAVE  sync(2); a separate process PINGs in a tight loop (one in flight) on core 1 from 1 s
          before; BGSAVE's own round trip (the fork happens inside it), then INFO persistence
          polled every 10 ms until rdb_bgsave_in_progress is 0: the time from the reply to that
          poll. Both servers notice the child's end in their cron (Redis: hz 10, so up to 100 ms
          late), so the child's own life is given too: the first 10 ms poll that finds it gone
          or a zombie (/proc/<child>/stat). Worst, p99.9, p99 and p50 of the PINGs in flight
          from BGSAVE sent to the done poll; Redis's own fork time (INFO stats latest_fork_usec)
  load    the server stopped (SIGTERM to its pid; with no save points neither saves on the way
          out), the file read once so it is in the page cache for both, and the server started
          on it: the time from spawn until it answers PING with +PONG (Redis answers -LOADING
          meanwhile, warden does not listen until loaded) and DBSIZE is what was saved; and the
          server's own "DB loaded from disk: X seconds" log line (Redis times the file's read
          too; warden reads the whole file first and times the parse)
After the last load a sample of keys of every type (--check keys each) is read from both
servers and compared (values, members, scores, entries; PTTL > 0 for locks).

Prints progress, then a markdown table: both servers' figures (medians over --rounds), the
ratio warden / Redis and the issue's targets: SAVE, BGSAVE and load at most 0.7x Redis's time,
the file at most 1.0x Redis's, the worst PING during BGSAVE no worse than Redis's fork pause.
Only the processes this script started are stopped, by their pid.
"""
import argparse
import array
import json
import multiprocessing
import os
import random
import re
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from aof_section import ping_stats, pinger, schedstat
from bench_core import encode, free_port
from results_report import CLIENT_CORE, SERVER_CORE, SERVERS, machine, versions

TYPES = ("hash", "set", "zset", "list", "stream")
LOCK_PX_MS = 2_592_000_000  # 30 days
BASE_MS = 1_764_590_400_000  # 2025-12-01, the scores and stream ids' time
SEED = 34
BATCH = 100_000
POLL_S = 0.01
WINDOW_S = 1.0
SAVE_TIMEOUT_S = 3600
START_TIMEOUT_S = 1800
LOADED_RE = re.compile(r"DB loaded from disk: ([0-9.]+) seconds")
STATE = {"hash": ("held", "wait"), "stream": ("acquired", "released", "renewed")}


# --- the data set -------------------------------------------------------------------------------

def uuids(rng, n):
    """n random UUID-shaped strings (36 characters, lower-case hex)."""
    hx = rng.randbytes(16 * n).hex()
    return [f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
            for h in (hx[i:i + 32] for i in range(0, 32 * n, 32))]


def resp(*args):
    return "".join([f"*{len(args)}\r\n"] + [f"${len(a)}\r\n{a}\r\n" for a in args])


def lock_batch(rng, n):
    """n locks as RESP, and their keys."""
    template = ("*5\r\n$3\r\nSET\r\n$41\r\nlock:%s\r\n$36\r\n%s\r\n$2\r\nPX\r\n"
                f"${len(str(LOCK_PX_MS))}\r\n{LOCK_PX_MS}\r\n")
    keys, tokens = uuids(rng, n), uuids(rng, n)
    return "".join([template % kt for kt in zip(keys, tokens)]), [f"lock:{k}" for k in keys]


def collection_batch(rng, kind, n):
    """n keys of the kind as RESP, and their names."""
    keys = uuids(rng, n)
    out = []
    if kind == "hash":
        owners = uuids(rng, n)
        for i in range(n):
            out.append(resp("HSET", f"hash:{keys[i]}", "owner", owners[i],
                            "count", str(rng.randrange(1, 100)),
                            "created", str(BASE_MS + rng.randrange(86_400_000)),
                            "state", STATE["hash"][i & 1]))
    elif kind == "set":
        hx = rng.randbytes(32 * n).hex()
        for i in range(n):
            h = hx[64 * i:64 * i + 64]
            out.append(resp("SADD", f"set:{keys[i]}", h[0:16], h[16:32], h[32:48], h[48:64]))
    elif kind == "zset":
        members = uuids(rng, 5 * n)
        for i in range(n):
            t = BASE_MS + rng.randrange(86_400_000)
            args = ["ZADD", f"zset:{keys[i]}"]
            for j in range(5):
                args += [str(t + 1000 * j), members[5 * i + j]]
            out.append(resp(*args))
    elif kind == "list":
        hx = rng.randbytes(30 * n).hex()
        for i in range(n):
            h = hx[60 * i:60 * i + 60]
            out.append(resp("RPUSH", f"list:{keys[i]}",
                            *(f"job:{h[12 * j:12 * j + 12]}" for j in range(5))))
    elif kind == "stream":
        owners = uuids(rng, n)
        for i in range(n):
            t = BASE_MS + rng.randrange(86_400_000)
            for j in range(3):
                out.append(resp("XADD", f"stream:{keys[i]}", f"{t + j}-{j}",
                                "type", STATE["stream"][j], "owner", owners[i]))
    return "".join(out), [f"{kind}:{k}" for k in keys]


def commands_per_key(kind):
    return 3 if kind == "stream" else 1


def generate(path, locks, collections, types, check):
    """Writes the data set as RESP to path; returns the number of commands and, for each kind,
    `check` of its keys drawn at random (for the comparison at the end)."""
    rng = random.Random(SEED)
    pick = random.Random(SEED + 1)  # apart, so the data is the same whatever --check is
    commands = 0
    samples = {}
    with open(path, "w", encoding="ascii", newline="") as f:
        for kind, count in [("lock", locks)] + [(t, collections) for t in types]:
            wanted = set(pick.sample(range(count), min(check, count)))
            samples[kind] = []
            for first in range(0, count, BATCH):
                n = min(BATCH, count - first)
                text, keys = (lock_batch(rng, n) if kind == "lock"
                              else collection_batch(rng, kind, n))
                f.write(text)
                commands += n * commands_per_key(kind)
                samples[kind] += [k for i, k in enumerate(keys, first) if i in wanted]
    return commands, samples


# --- a client that reads any reply ----------------------------------------------------------------

class Conn:
    def __init__(self, port, timeout_s=None):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout_s)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def _fill(self):
        data = self.sock.recv(1 << 20)
        if not data:
            raise ConnectionError("server closed the connection")
        self.buf += data

    def _line(self):
        while True:
            i = self.buf.find(b"\r\n")
            if i >= 0:
                line, self.buf = self.buf[:i], self.buf[i + 2:]
                return line
            self._fill()

    def reply(self, raise_errors=True):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"-":
            if raise_errors:
                raise RuntimeError(rest.decode())
            return RuntimeError(rest.decode())
        if kind in (b"+",):
            return rest.decode()
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
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self.reply(raise_errors) for _ in range(n)]
        raise RuntimeError(f"unexpected reply {line!r}")

    def call(self, *args, raise_errors=True):
        self.sock.sendall(encode(args))
        return self.reply(raise_errors)

    def info(self, section):
        text = self.call("INFO", section)
        return dict(line.split(":", 1) for line in text.split("\r\n") if ":" in line)

    def close(self):
        self.sock.close()


# --- servers --------------------------------------------------------------------------------------

class Server:
    """One server on core 0 in its own --dir, started and restarted on the same file."""

    def __init__(self, name, binary, tmp):
        self.name = name
        self.binary = binary
        self.dir = os.path.join(tmp, name)
        os.makedirs(self.dir, exist_ok=True)
        self.log = os.path.join(self.dir, "server.log")
        self.file = os.path.join(self.dir, "dump.rdb")
        self.proc = None
        self.port = None
        self.conn = None

    def argv(self):
        return ["taskset", "-c", SERVER_CORE, self.binary, "--port", str(self.port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", self.dir,
                "--dbfilename", "dump.rdb", "--logfile", self.log]

    def start(self, expect_keys=None):
        """Spawns the server; returns seconds from spawn to a +PONG (and, with expect_keys,
        DBSIZE equal to it)."""
        self.port = free_port()
        t0 = time.monotonic()
        self.proc = subprocess.Popen(self.argv(), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited ({self.proc.returncode}) while "
                                   f"starting; see {self.log}")
            if time.monotonic() - t0 > START_TIMEOUT_S:
                raise RuntimeError(f"{self.name} did not start in {START_TIMEOUT_S} s")
            try:
                conn = Conn(self.port, timeout_s=None)
            except OSError:
                time.sleep(0.001)
                continue
            try:
                while True:
                    got = conn.call("PING", raise_errors=False)
                    if got == "PONG":
                        break
                    if isinstance(got, RuntimeError) and str(got).startswith("LOADING"):
                        time.sleep(0.001)
                        continue
                    raise RuntimeError(f"{self.name}: PING answered {got!r}")
            except (ConnectionError, OSError):
                conn.close()
                time.sleep(0.001)
                continue
            break
        up = time.monotonic() - t0
        self.conn = conn
        if expect_keys is not None:
            got = conn.call("DBSIZE")
            if got != expect_keys:
                raise RuntimeError(f"{self.name} holds {got} keys after loading, expected "
                                   f"{expect_keys}")
        return up

    def stop(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def pid(self):
        return self.proc.pid

    def rss_bytes(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    def children(self):
        try:
            with open(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children") as f:
                return [int(p) for p in f.read().split()]
        except FileNotFoundError:
            return []

    def log_loaded_seconds(self):
        """The last "DB loaded from disk: X seconds" in the log, or None."""
        try:
            with open(self.log, errors="replace") as f:
                found = LOADED_RE.findall(f.read())
        except FileNotFoundError:
            return None
        return float(found[-1]) if found else None


def say(*a):
    print(*a, file=sys.stderr, flush=True)


def config_get(conn, name):
    got = conn.call("CONFIG", "GET", name)
    return dict(zip(got[0::2], got[1::2])).get(name)


def child_state(pid):
    """'gone', 'Z' or another state letter, and the child's CPU seconds (utime + stime)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return "gone", None
    tick = os.sysconf("SC_CLK_TCK")
    return fields[0], (int(fields[11]) + int(fields[12])) / tick


# --- the measurements ----------------------------------------------------------------------------

def bulk_load(server, data_path, commands, expect_keys):
    t0 = time.monotonic()
    with open(data_path, "rb") as f:
        done = subprocess.run(["taskset", "-c", CLIENT_CORE, "redis-cli", "-p", str(server.port),
                               "--pipe"], stdin=f, capture_output=True, text=True)
    elapsed = time.monotonic() - t0
    m = re.search(r"errors: (\d+), replies: (\d+)", done.stdout)
    if done.returncode != 0 or not m or int(m.group(1)) != 0 or int(m.group(2)) != commands:
        raise RuntimeError(f"{server.name}: redis-cli --pipe: {done.stdout.strip()} "
                           f"{done.stderr.strip()}")
    got = server.conn.call("DBSIZE")
    if got != expect_keys:
        raise RuntimeError(f"{server.name} holds {got} keys after loading, expected {expect_keys}")
    return elapsed


def save_once(server):
    os.sync()
    t0 = time.monotonic()
    reply = server.conn.call("SAVE")
    elapsed = time.monotonic() - t0
    if reply != "OK":
        raise RuntimeError(f"{server.name}: SAVE answered {reply!r}")
    size = os.path.getsize(server.file)
    say(f"{server.name}: SAVE {elapsed:.2f} s, file {size / 1e6:.1f} MB")
    return {"save_s": elapsed, "file_bytes": size}


def bgsave_once(server):
    conn = server.conn
    before = conn.info("persistence")
    if before["rdb_bgsave_in_progress"] != "0":
        raise RuntimeError(f"{server.name}: a BGSAVE is already running")
    os.sync()
    stop = multiprocessing.Event()
    receive, send = multiprocessing.Pipe(duplex=False)
    proc = multiprocessing.Process(target=pinger, args=(server.port, stop, send,
                                                        SAVE_TIMEOUT_S + 10))
    proc.start()
    send.close()
    child = None
    child_end = None
    child_cpu = None
    try:
        time.sleep(WINDOW_S + 0.1)
        sched_before = schedstat(server.pid())
        t_cmd = time.monotonic()
        reply = conn.call("BGSAVE")
        t_reply = time.monotonic()
        if "started" not in reply:
            raise RuntimeError(f"{server.name}: BGSAVE answered {reply!r}")
        kids = server.children()
        child = kids[0] if len(kids) == 1 else None
        while True:
            now = time.monotonic()
            if child is not None and child_end is None:
                state, cpu = child_state(child)
                if cpu is not None:
                    child_cpu = cpu
                if state in ("gone", "Z", "X"):
                    child_end = now
            persistence = conn.info("persistence")
            if persistence["rdb_bgsave_in_progress"] == "0":
                break
            if now - t_cmd > SAVE_TIMEOUT_S:
                raise RuntimeError(f"{server.name}: BGSAVE not done after {SAVE_TIMEOUT_S} s")
            time.sleep(POLL_S)
        t_done = time.monotonic()
        sched_done = schedstat(server.pid())
        if persistence.get("rdb_last_bgsave_status") != "ok":
            raise RuntimeError(f"{server.name}: rdb_last_bgsave_status "
                               f"{persistence.get('rdb_last_bgsave_status')}")
        time.sleep(WINDOW_S)
        stop.set()
        raw = array.array("d", receive.recv_bytes())
        proc.join(timeout=30)
    finally:
        stop.set()
        if proc.is_alive():
            proc.join(timeout=30)
            if proc.is_alive():
                proc.terminate()
                proc.join()
    samples = list(zip(raw[0::2], raw[1::2]))
    # The three slowest PINGs in flight during the save: when each started (s after BGSAVE was
    # sent) and how long it took, to tell the fork's pause from what came later.
    during = sorted(((rtt, t - t_cmd) for t, rtt in samples if t < t_done and t + rtt > t_cmd),
                    reverse=True)[:3]
    stats = conn.info("stats")
    result = {
        "bgsave_s": t_done - t_reply,
        "child_s": (child_end - t_cmd) if child_end is not None else None,
        "child_cpu_s": child_cpu,
        "reply_ms": (t_reply - t_cmd) * 1000,
        "ping": ping_stats(samples, t_cmd, t_done),
        "ping_before": ping_stats(samples, t_cmd - WINDOW_S, t_cmd, within=True),
        "ping_after": ping_stats(samples, t_done, t_done + WINDOW_S, within=True),
        "parent_cpu_ms": (sched_done[0] - sched_before[0]) / 1e6,
        "runqueue_wait_ms": (sched_done[1] - sched_before[1]) / 1e6,
        "last_bgsave_time_sec": int(persistence.get("rdb_last_bgsave_time_sec", -1)),
        "latest_fork_usec": int(stats["latest_fork_usec"]) if "latest_fork_usec" in stats
        else None,
        "file_bytes": os.path.getsize(server.file),
        "slowest_pings": [{"ms": rtt * 1000, "at_s": at} for rtt, at in during],
    }
    p = result["ping"]
    child_text = f"{result['child_s']:.2f} s" if result["child_s"] is not None else "?"
    say(f"{server.name}: BGSAVE reply {result['reply_ms']:.1f} ms, reply to done "
        f"{result['bgsave_s']:.2f} s (child {child_text}), PING p50 {p['p50_ms']:.2f} p99 "
        f"{p['p99_ms']:.2f} p99.9 {p['p999_ms']:.2f} max {p['max_ms']:.2f} ms ({p['count']} "
        f"PINGs; max {result['ping_before']['max_ms']:.2f} ms in the 1 s before; slowest "
        + ", ".join(f"{x['ms']:.1f} ms at {x['at_s']:+.2f} s" for x in result["slowest_pings"])
        + f"); fork "
        f"{result['latest_fork_usec']} us; run-queue wait {result['runqueue_wait_ms']:.0f} ms")
    return result


def load_once(server, expect_keys):
    server.stop()
    with open(server.file, "rb") as f:  # into the page cache, for both servers alike
        while f.read(1 << 24):
            pass
    os.sync()
    up = server.start(expect_keys)
    logged = server.log_loaded_seconds()
    result = {"start_to_pong_s": up, "log_loaded_s": logged, "rss_bytes": server.rss_bytes()}
    say(f"{server.name}: restart on the file: {up:.2f} s to PONG with {expect_keys:,} keys "
        f"(log: DB loaded from disk: {logged} s), RSS {result['rss_bytes'] / 1e6:.0f} MB")
    return result


def sample_check(servers, samples):
    """Reads the sampled keys from both servers; returns how many and 'ok' or the differences."""
    read = {"lock": lambda c, k: [c.call("GET", k), c.call("PTTL", k) > 0],
            "hash": lambda c, k: sorted(c.call("HGETALL", k)),
            "set": lambda c, k: sorted(c.call("SMEMBERS", k)),
            "zset": lambda c, k: c.call("ZRANGE", k, "0", "-1", "WITHSCORES"),
            "list": lambda c, k: c.call("LRANGE", k, "0", "-1"),
            "stream": lambda c, k: c.call("XRANGE", k, "-", "+")}
    problems = []
    checked = 0
    for kind, keys in samples.items():
        for k in keys:
            got = {s: read[kind](servers[s].conn, k) for s in SERVERS}
            checked += 1
            if got["warden"] != got["redis"] or not got["warden"] or got["warden"][-1] is False:
                problems.append(f"{k}: warden {got['warden']!r:.120}, Redis {got['redis']!r:.120}")
    return checked, ("ok" if not problems else f"{len(problems)} differ: " + "; ".join(problems[:5]))


# --- the report ----------------------------------------------------------------------------------

def median_of(runs, key, sub=None):
    values = [(r[key] if sub is None else r[key][sub]) for r in runs]
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt_ratio(w, r):
    return f"{w / r:.2f}x" if w is not None and r else "—"


def verdict(ratio, bound):
    if ratio is None:
        return ""
    return "met" if ratio <= bound else "not met"


def table(out):
    res = out["results"]
    w, r = res["warden"], res["redis"]
    rows = ["| measurement | warden | Redis | warden / Redis | target | |",
            "|---|---|---|---|---|---|"]

    def row(label, wv, rv, unit_fmt, bound=None, ratio=True):
        ratio_v = (wv / rv) if (ratio and wv is not None and rv) else None
        rows.append(f"| {label} | {unit_fmt(wv)} | {unit_fmt(rv)} | "
                    f"{f'{ratio_v:.2f}x' if ratio_v is not None else ''} | "
                    f"{f'at most {bound}x' if bound is not None else ''} | "
                    f"{verdict(ratio_v, bound) if bound is not None else ''} |")

    def sec(v):
        return "—" if v is None else f"{v:.2f} s"

    def ms(v):
        return "—" if v is None else f"{v:.2f} ms"

    def mb(v):
        return "—" if v is None else f"{v / 1e6:,.1f} MB"

    n = out["rounds"]
    med = f" (median of {n})" if n > 1 else ""
    row(f"`SAVE` wall time{med}", median_of(w["runs"], "save", "save_s"),
        median_of(r["runs"], "save", "save_s"), sec, 0.7)
    row("file size", w["runs"][-1]["save"]["file_bytes"], r["runs"][-1]["save"]["file_bytes"],
        mb, 1.0)
    row(f"`BGSAVE`: reply to `rdb_bgsave_in_progress:0`{med}",
        median_of(w["runs"], "bgsave", "bgsave_s"), median_of(r["runs"], "bgsave", "bgsave_s"),
        sec, 0.7)
    row(f"`BGSAVE`: the child's life, command sent to its exit (10 ms polls){med}",
        median_of(w["runs"], "bgsave", "child_s"), median_of(r["runs"], "bgsave", "child_s"), sec)
    row("`BGSAVE`: the child's CPU (user + system)",
        median_of(w["runs"], "bgsave", "child_cpu_s"),
        median_of(r["runs"], "bgsave", "child_cpu_s"), sec)
    row("`BGSAVE`'s own round trip (it forks)", median_of(w["runs"], "bgsave", "reply_ms"),
        median_of(r["runs"], "bgsave", "reply_ms"), ms)
    fork_r = [x["bgsave"]["latest_fork_usec"] for x in r["runs"]
              if x["bgsave"]["latest_fork_usec"] is not None]
    fork_w = [x["bgsave"]["latest_fork_usec"] for x in w["runs"]
              if x["bgsave"]["latest_fork_usec"] is not None]
    redis_fork_ms = max(fork_r) / 1000 if fork_r else None
    row("fork time, `INFO stats` `latest_fork_usec`" + (" (worst)" if n > 1 else ""),
        max(fork_w) / 1000 if fork_w else None, redis_fork_ms, ms, ratio=False)
    worst_w = max(x["bgsave"]["ping"]["max_ms"] for x in w["runs"])
    worst_r = max(x["bgsave"]["ping"]["max_ms"] for x in r["runs"])
    # The target: warden's worst PING against Redis's fork pause (latest_fork_usec).
    ok = "" if redis_fork_ms is None else ("met" if worst_w <= redis_fork_ms else "not met")
    rows.append(f"| worst PING during `BGSAVE`" + (" (worst round)" if n > 1 else "") +
                f" | {ms(worst_w)} | {ms(worst_r)} | {fmt_ratio(worst_w, worst_r)} | at most "
                f"Redis's fork pause ({ms(redis_fork_ms)}) | {ok} |")
    rows.append(f"| PING p99.9 / p99 / p50 during `BGSAVE`{med} | " +
                " | ".join(_pct(x["runs"]) for x in (w, r)) + " | | | |")
    rows.append("| PINGs during `BGSAVE` / worst PING in the 1 s before | " + " | ".join(
        f"{x['runs'][-1]['bgsave']['ping']['count']:,} / "
        f"{max(y['bgsave']['ping_before']['max_ms'] for y in x['runs']):.2f} ms"
        for x in (w, r)) + " | | | |")
    rows.append("| the server's run-queue wait during `BGSAVE` (the child shares its core) | " +
                " | ".join(f"{median_of(x['runs'], 'bgsave', 'runqueue_wait_ms'):.0f} ms"
                           for x in (w, r)) + " | | | |")
    row(f"load at start: spawn to `PONG` with every key{med}",
        median_of(w["runs"], "load", "start_to_pong_s"),
        median_of(r["runs"], "load", "start_to_pong_s"), sec, 0.7)
    row(f"load at start: the log's \"DB loaded from disk\"{med}",
        median_of(w["runs"], "load", "log_loaded_s"), median_of(r["runs"], "load", "log_loaded_s"),
        sec, 0.7)
    row("RSS after loading the file", w["runs"][-1]["load"]["rss_bytes"],
        r["runs"][-1]["load"]["rss_bytes"], mb)
    row("RSS after `redis-cli --pipe` (before any save)", w["rss_after_pipe"],
        r["rss_after_pipe"], mb)
    row("`redis-cli --pipe` of the data set (for reference)", w["pipe_s"], r["pipe_s"], sec)
    return "\n".join(rows)


def _pct(runs):
    return " / ".join(f"{statistics.median(x['bgsave']['ping'][k] for x in runs):.2f}"
                      for k in ("p999_ms", "p99_ms", "p50_ms")) + " ms"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("warden")
    ap.add_argument("--redis", default="redis-server")
    ap.add_argument("--locks", type=int, default=10_000_000)
    ap.add_argument("--collections", type=int, default=1_000_000,
                    help="keys of each collection type")
    ap.add_argument("--types", default=",".join(TYPES),
                    help="comma-separated collection types: " + ", ".join(TYPES))
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--check", type=int, default=200, help="keys of each kind compared after "
                    "the last load")
    ap.add_argument("--tmp", help="where the data file and the servers' dirs go (default: a new "
                    "directory under $TMPDIR, removed at the end unless --keep)")
    ap.add_argument("--keep", action="store_true", help="keep the data file and dump files")
    ap.add_argument("--commit", help="the commit the warden binary was built from, for the "
                    "report (default: this checkout's HEAD, as run_all.py gives it)")
    ap.add_argument("--json", action="store_true", help="print one JSON object; text to stderr")
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    args.warden = os.path.abspath(args.warden)
    types = [t for t in args.types.split(",") if t]
    if set(types) - set(TYPES):
        ap.error(f"unknown types: {', '.join(sorted(set(types) - set(TYPES)))}")
    for tool in ("taskset", "redis-cli", args.redis):
        if shutil.which(tool) is None:
            ap.error(f"{tool} not found")

    tmp = args.tmp or tempfile.mkdtemp(prefix="rdb-bench-")
    os.makedirs(tmp, exist_ok=True)
    out = {"date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
           "command": shlex.join([sys.executable] + sys.argv), "machine": machine(),
           "versions": versions(args), "uptime_start": uptime(), "locks": args.locks,
           "collections": args.collections, "types": types, "rounds": args.rounds,
           "results": {}}
    if args.commit:
        out["versions"]["commit"] = args.commit
    expect_keys = args.locks + args.collections * len(types)
    servers = {}
    try:
        data = os.path.join(tmp, "data.resp")
        t0 = time.monotonic()
        commands, samples = generate(data, args.locks, args.collections, types, args.check)
        say(f"data set: {args.locks:,} locks + {args.collections:,} each of {', '.join(types)} "
            f"= {expect_keys:,} keys, {commands:,} commands, "
            f"{os.path.getsize(data) / 1e6:,.0f} MB of RESP, generated in "
            f"{time.monotonic() - t0:.0f} s")
        for name in SERVERS:
            binary = args.warden if name == "warden" else args.redis
            server = servers[name] = Server(name, binary, tmp)
            server.start()
            settings = {k: config_get(server.conn, k) for k in ("rdbcompression", "rdbchecksum")}
            pipe_s = bulk_load(server, data, commands, expect_keys)
            rss = server.rss_bytes()
            out["results"][name] = {"pipe_s": pipe_s, "rss_after_pipe": rss, "config": settings,
                                    "runs": []}
            say(f"{name}: {expect_keys:,} keys loaded by redis-cli --pipe in {pipe_s:.1f} s, "
                f"RSS {rss / 1e6:,.0f} MB; {settings}")
        if not args.keep:
            os.unlink(data)
        for r in range(args.rounds):
            order = SERVERS if r % 2 == 0 else SERVERS[::-1]
            for name in order:
                server = servers[name]
                run = {"save": save_once(server), "bgsave": bgsave_once(server),
                       "load": load_once(server, expect_keys)}
                out["results"][name]["runs"].append(run)
        checked, out["sample_check"] = sample_check(servers, samples)
        say(f"sample check of {checked} keys, warden against Redis: {out['sample_check']}")
    finally:
        for server in servers.values():
            server.stop()
        if not args.keep and not args.tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    out["uptime_end"] = uptime()
    out["table"] = table(out)
    streams = "stream" in types
    text = [f"RDB snapshots, {out['date']}: `{out['command']}`", "",
            f"{args.locks:,} locks (`SET lock:<uuid> <uuid> PX {LOCK_PX_MS}`) and "
            f"{args.collections:,} keys of each of: {', '.join(types)} "
            f"({'streams included' if streams else 'no streams'}); {expect_keys:,} keys in all. "
            f"{out['versions']['warden']} (commit {out['versions']['commit']}), "
            f"{out['versions']['redis']}; servers on core {SERVER_CORE}, clients on core "
            f"{CLIENT_CORE}; rdbcompression / rdbchecksum: warden "
            f"{out['results']['warden']['config']}, Redis {out['results']['redis']['config']}.",
            f"Load at the start: `{out['uptime_start']}`; at the end: `{out['uptime_end']}`.",
            f"Sample check ({args.check} keys of each kind after the last load): "
            f"{out['sample_check']}.", "", out["table"]]
    if args.json:
        say("\n".join(text))
        print(json.dumps(out))
    else:
        print("\n".join(text))


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


if __name__ == "__main__":
    main()
