#!/usr/bin/env python3
"""Blocking pops, warden and redis-server in the same run, each on a fresh server:
    bench/blocking_bench.py build/warden [--parts handoff idle] [--handoffs 20000]
        [--blocked 1000 10000] [--idle-s 5] [--wakes 2000] [--quick] [--no-pin] [--json]

  handoff  one client blocked in BLPOP handoff 0, another pushing: for each round the pusher
           waits until the server counts the client as blocked (INFO clients: blocked_clients:1),
           sends LPUSH handoff <n> and the time from that send until the blocked client has read
           its [handoff, <n>] reply is one sample; then the client sends BLPOP again. The first
           500 rounds are a warm-up. Reports p50, p99, p99.9 and max of push-to-receive. Target:
           warden's p50 and p99 no worse than Redis's.
  idle     for each --blocked count N, N clients blocked on distinct keys (BLPOP k<i> 0), then:
           the server's CPU time over --idle-s idle seconds (target: ~0); the cost of a wake,
           --wakes times: LPUSH k<i> to a random blocked client's key, wait for that client to
           read its reply, and block it again (BLPOP k<i> 0), as server CPU per cycle and
           push-to-receive p50 / p99; and the server CPU per LPUSH to keys nobody waits on
           (20,000, pipelined 100 at a time). A wake in constant time (no scan of the blocked
           clients) costs the same at 1,000 and at 10,000 blocked.

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

from run_all import Client, encode, free_port

SERVER_CORE = 0
CLIENT_CORE = 1
WARMUP = 500
MAX_CLIENTS = 20000
UNRELATED_PUSHES = 20000
UNRELATED_BATCH = 100
BLOCKED_TIMEOUT_S = 120


def percentile(values, p):
    ordered = sorted(values)
    return ordered[max(0, int(-(-len(ordered) * p // 100)) - 1)]


def latency_stats(samples_ns):
    us = [s / 1000 for s in samples_ns]
    return {"count": len(us), "p50_us": percentile(us, 50), "p99_us": percentile(us, 99),
            "p999_us": percentile(us, 99.9), "max_us": max(us), "mean_us": sum(us) / len(us)}


def cpu_ns(pid):
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
        except FileNotFoundError:
            pass  # a thread that ended between listdir and open
    return total


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


def handoff(server, rounds):
    """Push-to-receive latency of BLPOP; see the module's docstring."""
    receiver = socket.create_connection(("127.0.0.1", server.port))
    receiver.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    pusher = server.client
    pusher.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    blpop = encode(["BLPOP", "handoff", "0"])
    samples = []
    try:
        for n in range(WARMUP + rounds):
            receiver.sendall(blpop)
            while "\r\nblocked_clients:1\r\n" not in pusher.call("INFO", "clients"):
                pass
            value = b"%d" % n
            push = encode([b"LPUSH", b"handoff", value])
            t0 = time.perf_counter_ns()
            pusher.sock.sendall(push)
            read_exactly(receiver, pop_reply(b"handoff", value))
            t1 = time.perf_counter_ns()
            if pusher.reply() != 1:
                raise RuntimeError("LPUSH handoff did not answer :1")
            if n >= WARMUP:
                samples.append(t1 - t0)
    finally:
        receiver.close()
    result = latency_stats(samples)
    if pusher.call("LLEN", "handoff") != 0:
        raise RuntimeError("elements left in the hand-off list")
    return result


def raise_fd_limit(need):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < need:
        raise SystemExit(f"the fd limit is {hard}; {need} connections need more (ulimit -Hn)")


def idle_blocked(server, n, idle_s, wakes, seed):
    """N clients blocked on distinct keys: idle CPU, the cost of a wake, and of a push to a key
    nobody waits on."""
    conns = []
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
        time.sleep(idle_s)
        idle_cpu_ms = (cpu_ns(server.proc.pid) - before) / 1e6

        rng = random.Random(seed)
        order = [rng.randrange(n) for _ in range(wakes)]
        pusher = server.client
        samples = []
        before = cpu_ns(server.proc.pid)
        for w, i in enumerate(order):
            key, value = b"k%d" % i, b"%d" % w
            t0 = time.perf_counter_ns()
            pusher.sock.sendall(encode([b"LPUSH", key, value]))
            read_exactly(conns[i], pop_reply(key, value))
            samples.append(time.perf_counter_ns() - t0)
            if pusher.reply() != 1:
                raise RuntimeError(f"LPUSH {key!r} did not answer :1")
            conns[i].sendall(encode([b"BLPOP", key, b"0"]))
        wake_cpu_us = (cpu_ns(server.proc.pid) - before) / 1000 / wakes
        server.wait_blocked(n)

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
    return {"blocked": n, "setup_s": setup_s, "idle_s": idle_s, "idle_cpu_ms": idle_cpu_ms,
            "wakes": wakes, "wake_cpu_us": wake_cpu_us, "wake_latency": latency_stats(samples),
            "unrelated_push_cpu_us": unrelated_cpu_us}


def run_server(name, argv, args):
    server = Server(argv, args.pin)
    out = {}
    try:
        if "handoff" in args.parts:
            out["handoff"] = h = handoff(server, args.handoffs)
            print(f"handoff {name}: push-to-receive p50 {h['p50_us']:.1f} us, p99 "
                  f"{h['p99_us']:.1f} us, p99.9 {h['p999_us']:.1f} us, max {h['max_us']:.0f} us "
                  f"({h['count']} hand-offs)", flush=True)
        if "idle" in args.parts:
            out["idle"] = {}
            for n in args.blocked:
                r = idle_blocked(server, n, args.idle_s, args.wakes, seed=n)
                out["idle"][str(n)] = r
                lat = r["wake_latency"]
                print(f"idle {name}: {n} blocked (in {r['setup_s']:.1f} s): CPU over "
                      f"{r['idle_s']:g} idle s {r['idle_cpu_ms']:.2f} ms; per wake (LPUSH, "
                      f"reply, BLPOP again) {r['wake_cpu_us']:.2f} us CPU, push-to-receive p50 "
                      f"{lat['p50_us']:.1f} us p99 {lat['p99_us']:.1f} us; per LPUSH to an "
                      f"unwatched key {r['unrelated_push_cpu_us']:.2f} us CPU", flush=True)
                # The closed connections leave the registry before the next count is set up.
                server.wait_blocked(0)
    finally:
        server.stop()
    return out


def summary(results, args):
    lines = []
    w, r = results["warden"], results["redis"]
    if "handoff" in args.parts:
        for p in ("p50_us", "p99_us", "p999_us"):
            lines.append(f"hand-off {p[:-3]}: warden {w['handoff'][p]:.1f} us, Redis "
                         f"{r['handoff'][p]:.1f} us, ratio {w['handoff'][p] / r['handoff'][p]:.2f}")
    if "idle" in args.parts:
        for n in args.blocked:
            a, b = w["idle"][str(n)], r["idle"][str(n)]
            lines.append(f"{n} blocked: idle CPU {a['idle_cpu_ms']:.2f} / {b['idle_cpu_ms']:.2f} ms "
                         f"over {args.idle_s:g} s; CPU per wake {a['wake_cpu_us']:.2f} / "
                         f"{b['wake_cpu_us']:.2f} us; CPU per unwatched LPUSH "
                         f"{a['unrelated_push_cpu_us']:.2f} / {b['unrelated_push_cpu_us']:.2f} us "
                         "(warden / Redis)")
        if len(args.blocked) > 1:
            lo, hi = str(min(args.blocked)), str(max(args.blocked))
            for name, res in (("warden", w), ("Redis", r)):
                lines.append(f"{name}: CPU per wake at {hi} / at {lo} blocked: "
                             f"{res['idle'][hi]['wake_cpu_us'] / res['idle'][lo]['wake_cpu_us']:.2f}x"
                             f", per unwatched LPUSH "
                             f"{res['idle'][hi]['unrelated_push_cpu_us'] / res['idle'][lo]['unrelated_push_cpu_us']:.2f}x")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("warden")
    ap.add_argument("--redis", default="redis-server")
    ap.add_argument("--parts", nargs="+", choices=["handoff", "idle"],
                    default=["handoff", "idle"])
    ap.add_argument("--handoffs", type=int, default=20000)
    ap.add_argument("--blocked", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--idle-s", type=float, default=5.0)
    ap.add_argument("--wakes", type=int, default=2000)
    ap.add_argument("--quick", action="store_true",
                    help="2,000 hand-offs, 2 idle seconds, 500 wakes")
    ap.add_argument("--no-pin", dest="pin", action="store_false",
                    help="do not pin the servers to core 0 and this script to core 1")
    ap.add_argument("--json", action="store_true", help="print one JSON object; text to stderr")
    args = ap.parse_args()
    if args.quick:
        args.handoffs, args.idle_s, args.wakes = 2000, 2.0, 500
    # A plain SIGTERM would skip the finally blocks that stop the servers.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.json:
        sys.stdout = sys.stderr
    if args.pin:
        os.sched_setaffinity(0, {CLIENT_CORE})
    if "idle" in args.parts:
        raise_fd_limit(max(args.blocked) + 100)
    maxclients = ["--maxclients", str(MAX_CLIENTS)]
    servers = {
        "warden": lambda port: [args.warden, "--port", str(port)] + maxclients,
        "redis": lambda port: [args.redis, "--port", str(port), "--save", "", "--appendonly",
                               "no"] + maxclients,
    }
    results = {name: run_server(name, argv, args) for name, argv in servers.items()}
    print()
    print(summary(results, args))
    if args.json:
        print(json.dumps({"parts": args.parts, "handoffs": args.handoffs,
                          "blocked": args.blocked, "idle_s": args.idle_s, "wakes": args.wakes,
                          "pinned": args.pin, **results}), file=sys.__stdout__)


if __name__ == "__main__":
    main()
