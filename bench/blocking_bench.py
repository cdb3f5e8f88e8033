#!/usr/bin/env python3
"""Blocking pops, warden and redis-server in the same run, each on a fresh server:
    bench/blocking_bench.py build/warden [--parts handoff idle] [--handoffs 20000] [--blocks 10]
        [--blocked 1000 10000] [--idle-s 5] [--wakes 2000] [--batched-wakes 10000] [--quick]
        [--no-pin] [--json]

  handoff  one client blocked in BLPOP handoff 0, another pushing: for each round the pusher
           waits until the server counts the client as blocked (INFO clients: blocked_clients:1),
           sends LPUSH handoff <n>, and the time from that send until the blocked client has read
           its [handoff, <n>] reply is one sample; then the client sends BLPOP again. Both
           servers run at once, the hand-offs in --blocks blocks alternating between them, after
           500 rounds of warm-up each. Reports p50, p99, p99.9 and max of push-to-receive, and
           the server's run-queue wait per hand-off (the machine's share). Target: warden's p50
           and p99 no worse than Redis's.
  idle     for each --blocked count N, N clients blocked on distinct keys (BLPOP k<i> 0), then:
           - the server's CPU time over --idle-s idle seconds (target: ~0);
           - --wakes wakes one at a time: LPUSH k<i> to a random blocked client's key, wait for
             that client to read its reply, block it again (BLPOP k<i> 0): server CPU per cycle
             and push-to-receive p50 / p99 (each cycle wakes an idle server, which dominates);
           - --batched-wakes wakes, 100 LPUSHes to distinct blocked keys per write: server CPU
             per wake from the write until every woken client has its reply;
           - 100,000 LPUSHes to keys nobody waits on, 100 per write: server CPU per push.
           A wake in constant time (no scan of the blocked clients) costs the same at 1,000 and
           at 10,000 blocked.

Server CPU is its time on CPU from /proc/PID/task/*/schedstat. Servers on core 0, this script on
core 1 (as run_all.py), unless --no-pin. The fd limit is raised to its hard limit; redis-server
and warden get --maxclients 20000 (Redis lowers it to what the fd limit allows, with a warning).
"""
import argparse
import json
import os
import random
import resource
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from big_delete import schedstat_ns  # noqa: E402  (bench/ is not a package)

from run_all import Client, encode, free_port

SERVER_CORE = 0
CLIENT_CORE = 1
WARMUP = 500
MAX_CLIENTS = 20000
UNRELATED_PUSHES = 100000
UNRELATED_BATCH = 100
WAKE_BATCH = 100
BLOCKED_TIMEOUT_S = 120


def percentile(values, p):
    ordered = sorted(values)
    return ordered[max(0, int(-(-len(ordered) * p // 100)) - 1)]


def latency_stats(samples_ns):
    us = [s / 1000 for s in samples_ns]
    return {"count": len(us), "p50_us": percentile(us, 50), "p99_us": percentile(us, 99),
            "p999_us": percentile(us, 99.9), "max_us": max(us), "mean_us": sum(us) / len(us)}


def cpu_ns(pid):
    return schedstat_ns(pid)[0]


class Server:
    def __init__(self, argv_for_port, pin):
        self.port = free_port()
        taskset = ["taskset", "-c", str(SERVER_CORE)] if pin else []
        self.proc = subprocess.Popen(taskset + argv_for_port(self.port),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            self.client = Client(self.port, timeout_s=60)
            self.client.call("PING")
        except BaseException:
            self.stop()
            raise

    def blocked_clients(self):
        return int(self.client.info("clients")["blocked_clients"])

    def wait_blocked(self, n):
        deadline = time.monotonic() + BLOCKED_TIMEOUT_S
        while self.blocked_clients() != n:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.blocked_clients()} clients blocked, expected {n}")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def read_exactly(sock, want):
    """Reads until `want` (bytes) has arrived and checks that that is what came."""
    got = b""
    while len(got) < len(want):
        chunk = sock.recv(len(want) - len(got))
        if not chunk:
            raise ConnectionError("server closed the connection")
        got += chunk
    if got != want:
        raise RuntimeError(f"expected {want!r}, got {got!r}")


def pop_reply(key, value):
    return b"*2\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (len(key), key, len(value), value)


class Handoff:
    """One client blocked in BLPOP handoff 0, the server's own client pushing; see the module's
    docstring."""

    def __init__(self, server):
        self.server = server
        self.receiver = socket.create_connection(("127.0.0.1", server.port))
        self.receiver.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        server.client.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.samples = []
        self.sent = 0
        self.cpu_ns = self.wait_ns = 0

    def run(self, rounds, keep=True):
        pusher = self.server.client
        blpop = encode(["BLPOP", "handoff", "0"])
        cpu_before, wait_before = schedstat_ns(self.server.proc.pid)
        for _ in range(rounds):
            self.receiver.sendall(blpop)
            while "\r\nblocked_clients:1\r\n" not in pusher.call("INFO", "clients"):
                pass
            value = b"%d" % self.sent
            self.sent += 1
            push = encode([b"LPUSH", b"handoff", value])
            t0 = time.perf_counter_ns()
            pusher.sock.sendall(push)
            read_exactly(self.receiver, pop_reply(b"handoff", value))
            t1 = time.perf_counter_ns()
            if pusher.reply() != 1:
                raise RuntimeError("LPUSH handoff did not answer :1")
            if keep:
                self.samples.append(t1 - t0)
        cpu_after, wait_after = schedstat_ns(self.server.proc.pid)
        if keep:
            self.cpu_ns += cpu_after - cpu_before
            self.wait_ns += wait_after - wait_before

    def result(self):
        self.receiver.close()
        if self.server.client.call("LLEN", "handoff") != 0:
            raise RuntimeError("elements left in the hand-off list")
        out = latency_stats(self.samples)
        # The server's run-queue wait per hand-off (its core held by something else) says how
        # much of the latency was the machine's; its CPU includes the INFO polls.
        out["runqueue_wait_us"] = self.wait_ns / 1000 / len(self.samples)
        return out


def handoffs(servers, rounds, blocks):
    """The hand-offs in `blocks` blocks, alternating between the servers (which goes first swaps
    each block), so that both see the same machine."""
    runs = {name: Handoff(server) for name, server in servers.items()}
    for run in runs.values():
        run.run(WARMUP, keep=False)
    names = list(runs)
    for b in range(blocks):
        for name in (names if b % 2 == 0 else names[::-1]):
            runs[name].run(rounds // blocks)
    return {name: run.result() for name, run in runs.items()}


def raise_fd_limit(need):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < need:
        raise SystemExit(f"the fd limit is {hard}; {need} connections need more (ulimit -Hn)")


def idle_blocked(server, n, args, seed):
    """N clients blocked on distinct keys: idle CPU, the cost of a wake (one at a time, and
    WAKE_BATCH in one pipelined write), and of a push to a key nobody waits on."""
    conns = []
    pusher = server.client
    rng = random.Random(seed)
    try:
        started = time.monotonic()
        for i in range(n):
            c = socket.create_connection(("127.0.0.1", server.port))
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            c.sendall(encode(["BLPOP", f"k{i}", "0"]))
            conns.append(c)
        server.wait_blocked(n)
        setup_s = time.monotonic() - started
        time.sleep(1.0)  # lets the accepts and the cron's first passes over them settle

        before = cpu_ns(server.proc.pid)
        time.sleep(args.idle_s)
        idle_cpu_ms = (cpu_ns(server.proc.pid) - before) / 1e6

        # One at a time: push, the woken client reads its reply, blocks again.
        samples = []
        before = cpu_ns(server.proc.pid)
        for w in range(args.wakes):
            i = rng.randrange(n)
            key, value = b"k%d" % i, b"%d" % w
            t0 = time.perf_counter_ns()
            pusher.sock.sendall(encode([b"LPUSH", key, value]))
            read_exactly(conns[i], pop_reply(key, value))
            samples.append(time.perf_counter_ns() - t0)
            if pusher.reply() != 1:
                raise RuntimeError(f"LPUSH {key!r} did not answer :1")
            conns[i].sendall(encode([b"BLPOP", key, b"0"]))
        wake_cpu_us = (cpu_ns(server.proc.pid) - before) / 1000 / args.wakes
        server.wait_blocked(n)

        # WAKE_BATCH pushes to distinct blocked keys in one write: the server's CPU from the
        # write until every woken client has its reply, without the wake-up of an idle server
        # per push that dominates the figure above.
        batches = max(1, args.batched_wakes // WAKE_BATCH)
        batch_cpu_ns = 0
        for b in range(batches):
            chosen = rng.sample(range(n), WAKE_BATCH)
            value = b"b%d" % b
            pushes = b"".join(encode([b"LPUSH", b"k%d" % i, value]) for i in chosen)
            before = cpu_ns(server.proc.pid)
            pusher.sock.sendall(pushes)
            for i in chosen:
                read_exactly(conns[i], pop_reply(b"k%d" % i, value))
            for _ in chosen:
                if pusher.reply() != 1:
                    raise RuntimeError("a batched LPUSH did not answer :1")
            batch_cpu_ns += cpu_ns(server.proc.pid) - before
            for i in chosen:
                conns[i].sendall(encode([b"BLPOP", b"k%d" % i, b"0"]))
            server.wait_blocked(n)
        batch_wake_cpu_us = batch_cpu_ns / 1000 / (batches * WAKE_BATCH)

        # Pushes to keys nobody waits on, pipelined: what every other write pays for the
        # blocked clients being there.
        batch = b"".join(encode([b"LPUSH", b"other:%d" % j, b"1"]) for j in range(UNRELATED_BATCH))
        before = cpu_ns(server.proc.pid)
        for _ in range(UNRELATED_PUSHES // UNRELATED_BATCH):
            pusher.sock.sendall(batch)
            for _ in range(UNRELATED_BATCH):
                pusher.reply()
        unrelated_cpu_us = (cpu_ns(server.proc.pid) - before) / 1000 / UNRELATED_PUSHES
        still_blocked = server.blocked_clients()
        if still_blocked != n:
            raise RuntimeError(f"{still_blocked} clients blocked after the pushes, expected {n}")
        pusher.call("DEL", *[f"other:{j}" for j in range(UNRELATED_BATCH)])
    finally:
        for c in conns:
            c.close()
    # The closed connections leave the registry before the next count is set up.
    server.wait_blocked(0)
    if pusher.call("DBSIZE") != 0:
        raise RuntimeError("keys left after the wakes")
    return {"blocked": n, "setup_s": setup_s, "idle_s": args.idle_s, "idle_cpu_ms": idle_cpu_ms,
            "wakes": args.wakes, "wake_cpu_us": wake_cpu_us, "wake_latency": latency_stats(samples),
            "batch_wake_cpu_us": batch_wake_cpu_us, "unrelated_push_cpu_us": unrelated_cpu_us}


def idle_part(name, argv, args):
    server = Server(argv, args.pin)
    out = {}
    try:
        for n in args.blocked:
            r = idle_blocked(server, n, args, seed=n)
            out[str(n)] = r
            lat = r["wake_latency"]
            print(f"idle {name}: {n} blocked (in {r['setup_s']:.1f} s): CPU over "
                  f"{r['idle_s']:g} idle s {r['idle_cpu_ms']:.2f} ms; per wake (LPUSH, reply, "
                  f"BLPOP again) {r['wake_cpu_us']:.2f} us CPU, push-to-receive p50 "
                  f"{lat['p50_us']:.1f} us p99 {lat['p99_us']:.1f} us; per wake in batches of "
                  f"{WAKE_BATCH} {r['batch_wake_cpu_us']:.2f} us CPU; per LPUSH to an unwatched "
                  f"key {r['unrelated_push_cpu_us']:.2f} us CPU", flush=True)
    finally:
        server.stop()
    return out


def summary(results, args):
    lines = []
    if "handoff" in results:
        h = results["handoff"]
        w, r = h["warden"], h["redis"]
        for p in ("p50_us", "p99_us", "p999_us", "max_us"):
            lines.append(f"hand-off {p[:-3]}: warden {w[p]:.1f} us, Redis {r[p]:.1f} us, "
                         f"ratio {w[p] / r[p]:.2f}")
        lines.append(f"hand-off: server run-queue wait per hand-off: warden "
                     f"{w['runqueue_wait_us']:.1f} us, Redis {r['runqueue_wait_us']:.1f} us")
    if "idle" in results:
        idle = results["idle"]
        for n in args.blocked:
            a, b = idle["warden"][str(n)], idle["redis"][str(n)]
            lines.append(f"{n} blocked (warden / Redis): idle CPU {a['idle_cpu_ms']:.2f} / "
                         f"{b['idle_cpu_ms']:.2f} ms over {args.idle_s:g} s; CPU per wake "
                         f"{a['wake_cpu_us']:.2f} / {b['wake_cpu_us']:.2f} us, batched "
                         f"{a['batch_wake_cpu_us']:.2f} / {b['batch_wake_cpu_us']:.2f} us; "
                         f"push-to-receive p50 {a['wake_latency']['p50_us']:.1f} / "
                         f"{b['wake_latency']['p50_us']:.1f} us; CPU per unwatched LPUSH "
                         f"{a['unrelated_push_cpu_us']:.2f} / {b['unrelated_push_cpu_us']:.2f} us")
        if len(args.blocked) > 1:
            lo, hi = str(min(args.blocked)), str(max(args.blocked))
            for name in ("warden", "redis"):
                at = idle[name]
                growth = {k: at[hi][k] / at[lo][k] for k in
                          ("wake_cpu_us", "batch_wake_cpu_us", "unrelated_push_cpu_us")}
                lines.append(f"{name}, {hi} blocked / {lo} blocked: CPU per wake "
                             f"{growth['wake_cpu_us']:.2f}x, batched "
                             f"{growth['batch_wake_cpu_us']:.2f}x, per unwatched LPUSH "
                             f"{growth['unrelated_push_cpu_us']:.2f}x")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("warden")
    ap.add_argument("--redis", default="redis-server")
    ap.add_argument("--parts", nargs="+", choices=["handoff", "idle"],
                    default=["handoff", "idle"])
    ap.add_argument("--handoffs", type=int, default=20000)
    ap.add_argument("--blocks", type=int, default=10,
                    help="hand-offs run in this many blocks, alternating between the servers")
    ap.add_argument("--blocked", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--idle-s", type=float, default=5.0)
    ap.add_argument("--wakes", type=int, default=2000, help="wakes one at a time")
    ap.add_argument("--batched-wakes", type=int, default=10000,
                    help=f"wakes {WAKE_BATCH} per write")
    ap.add_argument("--quick", action="store_true",
                    help="2,000 hand-offs, 2 idle seconds, 500 wakes, 2,000 batched")
    ap.add_argument("--no-pin", dest="pin", action="store_false",
                    help="do not pin the servers to core 0 and this script to core 1")
    ap.add_argument("--json", action="store_true", help="print one JSON object; text to stderr")
    args = ap.parse_args()
    if args.quick:
        args.handoffs, args.idle_s, args.wakes, args.batched_wakes = 2000, 2.0, 500, 2000
    # A plain SIGTERM would skip the finally blocks that stop the servers.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.json:
        sys.stdout = sys.stderr
    if args.pin:
        os.sched_setaffinity(0, {CLIENT_CORE})
    if "idle" in args.parts:
        raise_fd_limit(max(args.blocked) + 100)
    maxclients = ["--maxclients", str(MAX_CLIENTS)]
    argvs = {
        "warden": lambda port: [args.warden, "--port", str(port), "--save", ""] + maxclients,
        "redis": lambda port: [args.redis, "--port", str(port), "--save", "", "--appendonly",
                               "no"] + maxclients,
    }
    results = {}
    if "handoff" in args.parts:
        servers = {}
        try:
            for name, argv in argvs.items():
                servers[name] = Server(argv, args.pin)
            results["handoff"] = handoffs(servers, args.handoffs, args.blocks)
        finally:
            for server in servers.values():
                server.stop()
        for name, h in results["handoff"].items():
            print(f"handoff {name}: push-to-receive p50 {h['p50_us']:.1f} us, p99 "
                  f"{h['p99_us']:.1f} us, p99.9 {h['p999_us']:.1f} us, max {h['max_us']:.0f} us "
                  f"({h['count']} hand-offs; server run-queue wait "
                  f"{h['runqueue_wait_us']:.1f} us per hand-off)", flush=True)
    if "idle" in args.parts:
        # One server at a time: the fd limit (20,000 here) does not cover both sets of clients.
        results["idle"] = {name: idle_part(name, argv, args) for name, argv in argvs.items()}
    print()
    print(summary(results, args))
    if args.json:
        print(json.dumps({"parts": args.parts, "handoffs": args.handoffs,
                          "blocked": args.blocked, "idle_s": args.idle_s, "wakes": args.wakes,
                          "batched_wakes": args.batched_wakes, "wake_batch": WAKE_BATCH,
                          "pinned": args.pin, **results}), file=sys.__stdout__)


if __name__ == "__main__":
    main()
