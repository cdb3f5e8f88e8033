#!/usr/bin/env python3
"""Issue 36's speed and memory targets, warden and redis-server in the same run:
    bench/commands36_bench.py build/warden [--redis redis-server] [--rounds 3] [--scale 1]
        [--geo-members 1000000] [--trackers 1000] [--track-sets 300] [--only NAME ...]
        [--quick] [--no-redis-benchmark] [--json]

Pipelined commands (target: warden's CPU per request at most 0.6x Redis's). This script is the
load generator, as redis-benchmark -P 16 with 50 connections: redis-benchmark cannot send these
(its __rand_int__ is zero-padded, which SETBIT refuses as an offset, and it gives no independent
key and element, or longitude and latitude). Each round's requests come from a seeded generator,
the same bytes go to both servers and every reply is checked; before a read, both servers must
answer 64 of its requests identically. Server CPU (/proc/PID/task/*/schedstat) over a run /
requests; rounds alternate between the servers, medians reported. Python leaves the servers
part idle on cheap commands: each row gives the busy share, PING is the floor, and where
redis-benchmark can express a like command (fixed arguments) it runs too, as a cross-check.

  ping; setbit, getbit      PING; SETBIT bm <random bit> <a hash of it: 0|1>, GETBIT bm <bit>,
  bitcount                  BITCOUNT bm; bm a 1 MB string of random bytes
  pfadd_sparse/_dense       PFADD of a random element to one of 10,000 sparse HLLs (100 elements
                            preloaded, STRLEN checked) / of 10 dense ones (20,000 preloaded)
  pfcount_sparse/_dense     PFCOUNT of one of them (the cached cardinality, once counted)
  pfcount2_sparse/_dense    PFCOUNT of two of them: a union, estimated on every call
  geosearch, geoadd         GEOSEARCH geo FROMLONLAT <random point> BYRADIUS 10 km ASC COUNT 10;
                            GEOADD geo <lon> <lat> <new member>; the memory measurement's set
  sort                      SORT list; list holds 1,000 random integers

Memory (target: at most 0.7x Redis's): first, on the fresh servers, GEOADD of --geo-members
members (`m<N>`, uniform in lon -10..30, lat 35..60, 100 per command); the growth of INFO memory
used_memory per member is the figure, RSS growth and used_memory_dataset's growth beside it.

Client-side caching (target: CPU per invalidation at most Redis's): --trackers connections each
send HELLO 3, CLIENT TRACKING ON and GET k; a writer then sends SET k v --track-sets times a
round. After each SET every tracker must receive exactly `>2 invalidate [k]` and re-read k with
GET (tracking it again), all sockets drained through one selector, before the next SET. Server
CPU over the SETs / (SETs x trackers), the re-GETs included.

Servers on core 0 with --save '' --appendonly no and their own --dir under /tmp, this script
(and redis-benchmark) on core 1. Only the servers this script started are stopped, by pid.
Progress goes to stderr, the tables (or --json) to stdout.
"""
import argparse
import json
import os
import random
import selectors
import shutil
import socket
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# bench/ is not a package.
from bench_core import ServerPair, encode, measured, redis_benchmark  # noqa: E402
from results_report import CLIENT_CORE, SERVERS  # noqa: E402

PIPELINE = 16
BITMAP_BYTES = 1 << 20
SPARSE_KEYS, SPARSE_PRELOAD = 10_000, 100
DENSE_KEYS, DENSE_PRELOAD = 10, 20_000
HLL_DENSE_BYTES = 16 + 16384 * 6 // 8  # header + 16384 six-bit registers
LIST_LEN = 1000
GEO_BOX = (-10.0, 30.0, 35.0, 60.0)  # lon min, lon max, lat min, lat max
CPU_TARGET = 0.6
MEMORY_TARGET = 0.7
TRACK_TARGET = 1.0


# --- RESP -------------------------------------------------------------------------------------

def skip(buf, pos):
    """Where the RESP2/RESP3 value starting at buf[pos] ends, or -1 when buf holds only part of
    it. Raises on an error reply."""
    todo, end = 1, len(buf)
    while todo:
        eol = buf.find(b"\r\n", pos)
        if eol < 0:
            return -1
        kind = buf[pos]
        if kind in b"$=!":  # bulk string, verbatim string, bulk error
            size = int(buf[pos + 1:eol])
            pos = eol + 2 if size < 0 else eol + 4 + size
            if pos > end:
                return -1
            if kind == ord("!"):
                raise RuntimeError(f"error reply {buf[eol + 2:pos - 2]!r}")
        elif kind in b"*~>":  # array, set, push
            todo += max(0, int(buf[pos + 1:eol]))
            pos = eol + 2
        elif kind == ord("%"):  # map
            todo += 2 * int(buf[pos + 1:eol])
            pos = eol + 2
        elif kind == ord("-"):
            raise RuntimeError(f"error reply {buf[pos:eol]!r}")
        else:  # + : , _ # (
            pos = eol + 2
        todo -= 1
    return pos


def read_replies(sock, count):
    """Blocking: reads `count` whole replies from sock; returns their bytes."""
    buf, pos = b"", 0
    while count:
        end = skip(buf, pos) if pos < len(buf) else -1
        if end < 0:
            data = sock.recv(1 << 16)
            if not data:
                raise ConnectionError("the server closed the connection")
            buf += data
            continue
        pos, count = end, count - 1
    return buf


# --- the pipelined load -----------------------------------------------------------------------

def geo_point(rng):
    lo_lon, hi_lon, lo_lat, hi_lat = GEO_BOX
    return f"{rng.uniform(lo_lon, hi_lon):.6f}", f"{rng.uniform(lo_lat, hi_lat):.6f}"


class Workload:
    def __init__(self, name, label, requests, command, reply, group, readonly=True, rb=None):
        self.name, self.label, self.requests = name, label, requests
        self.command = command  # rng, round, i -> the command's arguments
        self.reply = reply  # "int": every reply an integer; "resp": any; "fixed": one reply
        self.group = group  # the data it needs: "bitmap", "hll", "geo", "list" or None
        self.readonly = readonly  # then both servers must give the same replies to a probe
        self.rb = rb  # the redis-benchmark command of the cross-check, if it can express one


def workloads(scale, geo_members):
    def n(count):
        return max(PIPELINE, int(count * scale) // PIPELINE * PIPELINE)

    def sparse(rng):
        return f"hll:s:{rng.randrange(SPARSE_KEYS)}"

    def dense(rng):
        return f"hll:d:{rng.randrange(DENSE_KEYS)}"

    def setbit(rng):
        # The value is a function of the offset: two connections' SETBITs of one bit then
        # commute, and both servers end with the same bitmap whatever order they applied them.
        bit = rng.randrange(BITMAP_BYTES * 8)
        return ("SETBIT", "bm", str(bit), str(bit * 2654435761 >> 13 & 1))

    def element(rng):
        return f"e:{rng.getrandbits(40)}"

    radius = ("BYRADIUS", "10", "km", "ASC", "COUNT", "10")
    rb_bit = str(4242 * 2654435761 >> 13 & 1)
    W = Workload
    return [
        W("ping", "PING (the floor: protocol and system calls)", n(240_000),
          lambda rng, r, i: ("PING",), "fixed", None, rb=["PING"]),
        W("setbit", "SETBIT on a 1 MB bitmap", n(240_000),
          lambda rng, r, i: setbit(rng), "int", "bitmap",
          readonly=False, rb=["SETBIT", "bm", "4242", rb_bit]),
        W("getbit", "GETBIT on a 1 MB bitmap", n(240_000),
          lambda rng, r, i: ("GETBIT", "bm", str(rng.randrange(BITMAP_BYTES * 8))), "int", "bitmap",
          rb=["GETBIT", "bm", "4242"]),
        W("bitcount", "BITCOUNT of a 1 MB bitmap", n(4_000),
          lambda rng, r, i: ("BITCOUNT", "bm"), "fixed", "bitmap", rb=["BITCOUNT", "bm"]),
        W("pfadd_sparse", f"PFADD, sparse HLLs ({SPARSE_KEYS:,} keys)", n(240_000),
          lambda rng, r, i: ("PFADD", sparse(rng), element(rng)), "int", "hll", readonly=False),
        W("pfadd_dense", f"PFADD, dense HLLs ({DENSE_KEYS} keys)", n(240_000),
          lambda rng, r, i: ("PFADD", dense(rng), element(rng)), "int", "hll", readonly=False,
          rb=["PFADD", "hll:d:rb", "e:__rand_int__"]),
        W("pfcount_sparse", "PFCOUNT of one sparse HLL (cached)", n(240_000),
          lambda rng, r, i: ("PFCOUNT", sparse(rng)), "int", "hll"),
        W("pfcount_dense", "PFCOUNT of one dense HLL (cached)", n(240_000),
          lambda rng, r, i: ("PFCOUNT", dense(rng)), "int", "hll", rb=["PFCOUNT", "hll:d:0"]),
        W("pfcount2_sparse", "PFCOUNT of two sparse HLLs (union, never cached)", n(24_000),
          lambda rng, r, i: ("PFCOUNT", sparse(rng), sparse(rng)), "int", "hll"),
        W("pfcount2_dense", "PFCOUNT of two dense HLLs (union, never cached)", n(8_000),
          lambda rng, r, i: ("PFCOUNT", dense(rng), dense(rng)), "int", "hll",
          rb=["PFCOUNT", "hll:d:0", "hll:d:1"]),
        W("geosearch", f"GEOSEARCH FROMLONLAT BYRADIUS 10 km ASC COUNT 10, {geo_members:,} "
          "members", n(64_000),
          lambda rng, r, i: ("GEOSEARCH", "geo", "FROMLONLAT", *geo_point(rng), *radius),
          "resp", "geo"),
        W("geoadd", f"GEOADD of a new member, {geo_members:,}-member set", n(160_000),
          lambda rng, r, i: ("GEOADD", "geo", *geo_point(rng), f"r{r}:{i}"), "int", "geo",
          readonly=False),
        W("sort", f"SORT of a {LIST_LEN:,}-element list", n(8_000),
          lambda rng, r, i: ("SORT", "list"), "fixed", "list", rb=["SORT", "list"]),
    ]


def batches(w, seed, round_no, requests=None):
    """The round's requests, PIPELINE commands to a batch, the same for both servers."""
    rng = random.Random(f"{seed}:{w.name}:{round_no}")
    commands = [encode(w.command(rng, round_no, i)) for i in range(requests or w.requests)]
    return [b"".join(commands[i:i + PIPELINE]) for i in range(0, len(commands), PIPELINE)]


def drive(server, batch_list, connections, reply):
    """Sends the batches over `connections` connections, one batch in flight on each, and checks
    every reply. Returns (server CPU ns, wall s). `reply`: "int", "resp" or the exact bytes of
    each reply."""
    socks = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(connections)]
    sel = selectors.DefaultSelector()
    try:
        for s in socks:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        want_fixed = None if isinstance(reply, str) else reply * PIPELINE
        queue = iter(batch_list)
        state = {}

        def send_next(s):
            batch = next(queue, None)
            if batch is None:
                sel.unregister(s)
                return False
            s.sendall(batch)
            state[s] = [PIPELINE, b""]
            return True

        cpu0, t0 = server.cpu_ns(), time.monotonic()
        active = 0
        for s in socks:
            sel.register(s, selectors.EVENT_READ)
            active += send_next(s)
        while active:
            for key, _ in sel.select():
                s = key.fileobj
                data = s.recv(1 << 18)
                if not data:
                    raise ConnectionError(f"{server.name} closed a connection")
                st = state[s]
                if reply == "int":  # each ends in the only \n it holds
                    if b"-" in data:
                        raise RuntimeError(f"{server.name} answered {data[:200]!r}")
                    st[0] -= data.count(b"\n")
                else:
                    buf = st[1] + data
                    if want_fixed is not None:
                        st[1] = buf
                        if len(buf) < len(want_fixed):
                            continue
                        if buf != want_fixed:
                            raise RuntimeError(f"{server.name} answered {buf[:200]!r}, "
                                               f"expected {want_fixed[:200]!r}...")
                        st[0] = 0
                    else:
                        pos = 0
                        while st[0]:
                            end = skip(buf, pos)
                            if end < 0:
                                break
                            pos, st[0] = end, st[0] - 1
                        st[1] = buf[pos:]
                if st[0] == 0:
                    active -= not send_next(s)
        return server.cpu_ns() - cpu0, time.monotonic() - t0
    finally:
        sel.close()
        for s in socks:
            s.close()


# --- data -------------------------------------------------------------------------------------

def pipelined(client, commands, chunk=500):
    """Sends encoded commands in chunks; returns every reply's bytes."""
    out = []
    for i in range(0, len(commands), chunk):
        part = commands[i:i + chunk]
        client.sock.sendall(b"".join(part))
        out.append(read_replies(client.sock, len(part)))
    return b"".join(out)


def geo_load(members, seed):
    """GEOADD commands for `members` members, 100 per command."""
    rng = random.Random(f"{seed}:geo")
    commands = []
    for first in range(0, members, 100):
        args = ["GEOADD", "geo"]
        for i in range(first, min(members, first + 100)):
            args += [*geo_point(rng), f"m{i}"]
        commands.append(encode(args))
    return commands


def prepare(client, group, seed):
    """Loads what a group of workloads reads (on first use)."""
    rng = random.Random(f"{seed}:{group}")
    if group == "bitmap":
        client.call("SET", "bm", rng.randbytes(BITMAP_BYTES))
    elif group == "hll":
        commands = [encode(["PFADD", f"hll:s:{k}"] + [f"p:{rng.getrandbits(40)}"
                                                      for _ in range(SPARSE_PRELOAD)])
                    for k in range(SPARSE_KEYS)]
        for k in list(range(DENSE_KEYS)) + ["rb"]:  # hll:d:rb: redis-benchmark's, apart
            for _ in range(DENSE_PRELOAD // 1000):
                commands.append(encode(["PFADD", f"hll:d:{k}"] + [
                    f"p:{rng.getrandbits(40)}" for _ in range(1000)]))
        pipelined(client, commands)
    elif group == "list":
        client.call("DEL", "list")
        client.call("RPUSH", "list", *[str(rng.randrange(1_000_000)) for _ in range(LIST_LEN)])
    # "geo" is the memory measurement's set, already there.


def hll_check(client):
    """The sparse keys' and dense keys' STRLEN ranges: a sparse HLL is shorter than a dense one."""
    sparse = [client.call("STRLEN", f"hll:s:{k}") for k in range(0, SPARSE_KEYS, 97)]
    dense = [client.call("STRLEN", f"hll:d:{k}") for k in range(DENSE_KEYS)]
    if max(sparse) >= HLL_DENSE_BYTES or min(dense) != HLL_DENSE_BYTES:
        raise RuntimeError(f"HLL encodings not as intended: sparse STRLEN up to {max(sparse)}, "
                           f"dense {min(dense)}..{max(dense)}")
    return min(sparse), max(sparse)


def memory_fields(server):
    info = server.client.info("memory")
    return {"used_memory": int(info["used_memory"]),
            "used_memory_dataset": int(info["used_memory_dataset"]), "rss": server.rss_bytes()}


def measure_geo_memory(servers, members, seed):
    commands = geo_load(members, seed)
    out = {}
    for name in SERVERS:
        server = servers[name]
        before = memory_fields(server)
        replies = pipelined(server.client, commands)
        if replies.count(b":") != len(commands) or b"-" in replies:
            raise RuntimeError(f"{name}: GEOADD answered {replies[:200]!r}")
        time.sleep(0.5)  # RSS as the kernel settles
        after = memory_fields(server)
        card = server.client.call("ZCARD", "geo")
        if card != members:
            raise RuntimeError(f"{name}: ZCARD geo is {card}, expected {members}")
        out[name] = {k: (after[k] - before[k]) / members for k in after}
        out[name]["before"], out[name]["after"] = before, after
    out["ratio"] = {k: out["warden"][k] / out["redis"][k] for k in out["warden"]
                    if k in ("used_memory", "used_memory_dataset", "rss")}
    return out


# --- client-side caching ----------------------------------------------------------------------

PUSH = b">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n"
GET_K = encode(["GET", "k"])
VALUE_REPLY = b"$1\r\nv\r\n"


class Tracking:
    """The trackers and the writer of one server."""

    def __init__(self, server, trackers):
        self.server = server
        server.client.call("SET", "k", "v")
        self.sel = selectors.DefaultSelector()
        self.socks = []
        setup = encode(["HELLO", "3"]) + encode(["CLIENT", "TRACKING", "ON"]) + GET_K
        for _ in range(trackers):
            s = socket.create_connection(("127.0.0.1", server.port))
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            s.sendall(setup)
            got = read_replies(s, 3)
            if not got.endswith(b"+OK\r\n" + VALUE_REPLY):
                raise RuntimeError(f"{server.name}: tracking setup answered {got[-100:]!r}")
            self.sel.register(s, selectors.EVENT_READ, [b""])
            self.socks.append(s)
        self.writer = socket.create_connection(("127.0.0.1", server.port))
        self.writer.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.set_k = encode(["SET", "k", "v"])

    def run(self, sets):
        """CPU ns per invalidation delivered, and the median time from SET sent to every
        tracker having its GET reply, over `sets` SETs."""
        want = PUSH + VALUE_REPLY
        keys = list(self.sel.get_map().values())
        times = []
        cpu0 = self.server.cpu_ns()
        for _ in range(sets):
            for key in keys:
                key.data[0] = b""
            t0 = time.monotonic()
            self.writer.sendall(self.set_k)
            pending = len(keys)
            while pending:
                for key, _ in self.sel.select(5):
                    data = key.fileobj.recv(4096)
                    if not data:
                        raise ConnectionError(f"{self.server.name} closed a tracker")
                    had = key.data[0]
                    got = key.data[0] = had + data
                    if len(had) < len(PUSH) <= len(got):
                        if got[:len(PUSH)] != PUSH:
                            raise RuntimeError(f"{self.server.name}: tracker got {got!r}")
                        key.fileobj.sendall(GET_K)
                    if len(got) >= len(want):
                        if got != want:
                            raise RuntimeError(f"{self.server.name}: tracker got {got!r}")
                        pending -= 1
            if read_replies(self.writer, 1) != b"+OK\r\n":
                raise RuntimeError(f"{self.server.name}: SET k failed")
            times.append(time.monotonic() - t0)
        cpu = self.server.cpu_ns() - cpu0
        return cpu / (sets * len(keys)), statistics.median(times)

    def close(self):
        self.sel.close()
        for s in self.socks + [self.writer]:
            s.close()


# --- running it -------------------------------------------------------------------------------

def rounds(args, run):
    """run(name, round) for each server in alternating order; medians of its results' fields."""
    runs = {name: [] for name in SERVERS}
    for r in range(args.rounds):
        for name in (SERVERS if r % 2 == 0 else SERVERS[::-1]):
            runs[name].append(run(name, r))
    med = {name: {k: statistics.median(x[k] for x in runs[name]) for k in runs[name][0]}
           for name in SERVERS}
    return {"runs": runs, "median": med,
            "ratio": med["warden"]["cpu_us_per_req"] / med["redis"]["cpu_us_per_req"]}


def run_pipelined(args, servers, out):
    prepared = {name: set() for name in SERVERS}
    for w in workloads(args.scale, args.geo_members):
        if args.only and w.name not in args.only:
            continue
        for name in SERVERS:
            if w.group not in prepared[name]:
                prepare(servers[name].client, w.group, args.seed)
                prepared[name].add(w.group)
        reply = w.reply
        if w.readonly:  # both servers hold the same data: the same replies to the same requests
            probe = batches(w, args.seed, "probe", 4 * PIPELINE)
            first = {name: pipelined(servers[name].client, probe) for name in SERVERS}
            if first["warden"] != first["redis"]:
                raise RuntimeError(f"{w.name}: warden answered {first['warden'][:200]!r}, "
                                   f"Redis {first['redis'][:200]!r}")
            if reply == "fixed":
                reply = first["redis"][:skip(first["redis"], 0)]
            if reply == "resp":  # how many results an array reply holds, on average
                sizes, pos = [], 0
                while pos < len(first["redis"]):
                    sizes.append(int(first["redis"][pos + 1:first["redis"].find(b"\r", pos)]))
                    pos = skip(first["redis"], pos)
                mean_results = statistics.mean(sizes)

        def python_run(name, r):
            cpu, wall = drive(servers[name], round_batches[r], args.connections, reply)
            return {"cpu_us_per_req": cpu / 1000 / w.requests, "ops_per_sec": w.requests / wall,
                    "busy": cpu / 1e9 / wall}

        round_batches = [batches(w, args.seed, r) for r in range(args.rounds)]
        result = rounds(args, python_run)
        del round_batches
        result.update(label=w.label, requests=w.requests)
        if w.reply == "resp":
            result["label"] += f" (the probe's replies: {mean_results:.1f} results on average)"
        line = f"{w.name}: {cpu_line(result)}"
        if w.rb and not args.no_redis_benchmark:
            def rb_run(name, r):
                server = servers[name]
                t0 = time.monotonic()
                x = measured(server, lambda: redis_benchmark(
                    server, 2 * w.requests, PIPELINE, 100_000_000, w.rb, args.connections))
                x["busy"] = x["cpu_us_per_req"] * x["requests"] / 1e6 / (time.monotonic() - t0)
                return {k: x[k] for k in ("cpu_us_per_req", "ops_per_sec", "busy")}

            result["redis_benchmark"] = rounds(args, rb_run)
            result["redis_benchmark"]["command"] = " ".join(w.rb)
            line += f"; redis-benchmark {cpu_line(result['redis_benchmark'])}"
        out["pipelined"][w.name] = result
        print(line, file=sys.stderr, flush=True)
        if w.name in ("pfadd_sparse", "pfadd_dense"):
            out["hll_strlen"] = {name: hll_check(servers[name].client) for name in SERVERS}


def cpu_line(result):
    return ", ".join(f"{name} " + " ".join(f"{x['cpu_us_per_req']:.2f}us"
                                           for x in result["runs"][name])
                     for name in SERVERS) + f" -> {result['ratio']:.2f}x"


def run_tracking(args, servers, out):
    trackings = {}
    try:
        for name in SERVERS:
            trackings[name] = Tracking(servers[name], args.trackers)
        for t in trackings.values():
            t.run(max(1, args.track_sets // 10))  # warm-up
        runs = {name: [] for name in SERVERS}
        for r in range(args.rounds):
            for name in (SERVERS if r % 2 == 0 else SERVERS[::-1]):
                runs[name].append(trackings[name].run(args.track_sets))
        med = {name: {"cpu_ns_per_invalidation": statistics.median(x[0] for x in runs[name]),
                      "fanout_ms": statistics.median(x[1] for x in runs[name]) * 1000}
               for name in SERVERS}
        out["tracking"] = {"runs": runs, "median": med, "ratio":
                           med["warden"]["cpu_ns_per_invalidation"]
                           / med["redis"]["cpu_ns_per_invalidation"]}
        print("tracking: " + ", ".join(f"{n} " + " ".join(f"{x[0]:.0f}ns" for x in runs[n])
                                       for n in SERVERS), file=sys.stderr, flush=True)
    finally:
        for t in trackings.values():
            t.close()


def met(ratio, target):
    return "met" if ratio <= target else "not met"


def print_table(args, out):
    print(f"warden: {out['warden']}; load average at start {out['loadavg'][0]:.2f}, at end "
          f"{out['loadavg'][1]:.2f}; {args.rounds} rounds, medians")
    floor = out["pipelined"].get("ping", {}).get("median")
    if out["pipelined"]:
        print(f"\n| workload, P{PIPELINE} | warden CPU / request | Redis CPU / request | "
              "warden / Redis | target | | above PING, warden / Redis | requests/s and server "
              f"busy, warden / Redis | redis-benchmark -P {PIPELINE} (cross-check): warden / "
              "Redis CPU, ratio |")
        print("|---|---|---|---|---|---|---|---|---|")
    for name, p in out["pipelined"].items():
        w, r = p["median"]["warden"], p["median"]["redis"]
        above = ""
        if floor and name != "ping":
            ew, er = (x["cpu_us_per_req"] - floor[s]["cpu_us_per_req"]
                      for x, s in ((w, "warden"), (r, "redis")))
            above = f"{ew:.2f} / {er:.2f} us" + (f", {ew / er:.2f}x" if ew > 0 and er > 0 else "")
        target = (f"at most {CPU_TARGET}x | {met(p['ratio'], CPU_TARGET)}" if name != "ping"
                  else "(floor) |")
        rb = p.get("redis_benchmark")
        cross = (f"`{rb['command']}`: {rb['median']['warden']['cpu_us_per_req']:.2f} / "
                 f"{rb['median']['redis']['cpu_us_per_req']:.2f} us, {rb['ratio']:.2f}x"
                 if rb else "")
        print(f"| `{name}`: {p['label']} ({p['requests']:,} a round) | "
              f"{w['cpu_us_per_req']:.2f} us | {r['cpu_us_per_req']:.2f} us | {p['ratio']:.2f}x | "
              f"{target} | {above} | {w['ops_per_sec'] / 1000:.0f}k {w['busy']:.0%} / "
              f"{r['ops_per_sec'] / 1000:.0f}k {r['busy']:.0%} | {cross} |")
    if "hll_strlen" in out:
        h = out["hll_strlen"]
        print(f"\nSparse HLLs' STRLEN after the PFADD runs (104 of the {SPARSE_KEYS:,} keys; "
              f"a dense one is {HLL_DENSE_BYTES}): warden {h['warden'][0]}-{h['warden'][1]}, "
              f"Redis {h['redis'][0]}-{h['redis'][1]}.")
    if "memory" in out or "tracking" in out:
        print("\n| measurement | warden | Redis | warden / Redis | target | |")
        print("|---|---|---|---|---|---|")
    if "memory" in out:
        m = out["memory"]
        for field, label, target in (("used_memory", "INFO used_memory growth", MEMORY_TARGET),
                                     ("rss", "RSS growth", None),
                                     ("used_memory_dataset", "used_memory_dataset growth", None)):
            print(f"| geo set of {args.geo_members:,} members: {label} per member | "
                  f"{m['warden'][field]:.1f} B | {m['redis'][field]:.1f} B | "
                  f"{m['ratio'][field]:.2f}x | " + (
                      f"at most {target}x | {met(m['ratio'][field], target)} |" if target
                      else " | |"))
    if "tracking" in out:
        t = out["tracking"]
        w, r = t["median"]["warden"], t["median"]["redis"]
        print(f"| client-side caching, {args.trackers:,} trackers, {args.track_sets} SETs a round: "
              f"CPU per invalidation delivered (push + re-GET) | "
              f"{w['cpu_ns_per_invalidation']:,.0f} ns | {r['cpu_ns_per_invalidation']:,.0f} ns | "
              f"{t['ratio']:.2f}x | at most {TRACK_TARGET:.0f}x | "
              f"{met(t['ratio'], TRACK_TARGET)} |")
        print(f"| SET to every tracker re-reading k (median) | {w['fanout_ms']:.1f} ms | "
              f"{r['fanout_ms']:.1f} ms | {w['fanout_ms'] / r['fanout_ms']:.2f}x | | |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("warden")
    ap.add_argument("--redis", default="redis-server")
    ap.add_argument("--rounds", type=int, help="3 (--quick: 2)")
    ap.add_argument("--scale", type=float, help="multiplies the request counts: 1 (--quick: 0.25)")
    ap.add_argument("--connections", type=int, default=50)
    ap.add_argument("--geo-members", type=int, help="1,000,000 (--quick: 200,000)")
    ap.add_argument("--trackers", type=int, default=1000)
    ap.add_argument("--track-sets", type=int, help="SETs a round: 300 (--quick: 60)")
    ap.add_argument("--seed", type=int, default=36)
    ap.add_argument("--only", nargs="+", metavar="NAME",
                    help="pipelined workloads to run (and 'memory', 'tracking'); all by default")
    ap.add_argument("--quick", action="store_true", help="a smaller run (~30 s)")
    ap.add_argument("--no-redis-benchmark", action="store_true",
                    help="skip the redis-benchmark cross-check rows")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    defaults = {"rounds": (3, 2), "scale": (1.0, 0.25), "geo_members": (1_000_000, 200_000),
                "track_sets": (300, 60)}
    for name, values in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, values[args.quick])
    args.warden_arg = None  # ServerPair's
    os.sched_setaffinity(0, {int(CLIENT_CORE)})
    tmp = tempfile.mkdtemp(prefix="commands36-")
    out = {"pipelined": {}, "loadavg": [os.getloadavg()[0], None], "warden": "{} of {}".format(
        args.warden, time.strftime("%Y-%m-%d %H:%M:%S UTC",
                                   time.gmtime(os.path.getmtime(args.warden))))}
    for name in SERVERS:
        os.makedirs(os.path.join(tmp, name))
    wants = (lambda what: not args.only or what in args.only)
    try:
        with ServerPair(args, extra=["--appendonly", "no"],
                        per_server=lambda name: ["--dir", os.path.join(tmp, name)]) as servers:
            geo_needed = any(w.group == "geo" and wants(w.name) for w in workloads(1, 0))
            if wants("memory") or geo_needed:
                out["memory"] = measure_geo_memory(servers, args.geo_members, args.seed)
                print("memory: " + ", ".join(f"{n} {out['memory'][n]['used_memory']:.1f} B"
                                             for n in SERVERS), file=sys.stderr, flush=True)
            run_pipelined(args, servers, out)
            if wants("tracking"):
                run_tracking(args, servers, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out["loadavg"][1] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print_table(args, out)


if __name__ == "__main__":
    main()
