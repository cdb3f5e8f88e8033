#!/usr/bin/env python3
"""Start-up time and parallel start of warden (and redis-server, for comparison).

Measures, for each server, the time from exec to the first answered PING (median of --runs),
the idle RSS right after, and whether --parallel servers started at once all come up, and how
long after the first spawn the last one answers.
    bench/start_time.py build/warden [--runs 50] [--parallel 200] [--json]
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def ping_until_up(port, deadline):
    while time.perf_counter() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16) == b"+PONG\r\n":
                    return True
        except OSError:
            pass
    return False


def start_once(cmd_for_port):
    port = free_port()
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd_for_port(port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ok = ping_until_up(port, t0 + 5)
    elapsed = time.perf_counter() - t0
    rss = rss_bytes(p.pid)
    p.terminate()
    p.wait()
    return ok, elapsed, rss


def parallel_start(warden, n):
    with tempfile.TemporaryDirectory() as tmp:
        procs = []
        t0 = time.perf_counter()
        for i in range(n):
            port_file = os.path.join(tmp, f"port{i}")
            procs.append((subprocess.Popen(
                [warden, "--port", "0", "--port-file", port_file, "--loglevel", "warning"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL), port_file))
        deadline = time.perf_counter() + 30
        up = 0
        for p, port_file in procs:
            while not os.path.exists(port_file) and time.perf_counter() < deadline:
                time.sleep(0.001)
            if os.path.exists(port_file):
                port = int(open(port_file).read())
                up += ping_until_up(port, deadline)
        all_up_s = time.perf_counter() - t0
        ports = set()
        for p, port_file in procs:
            if os.path.exists(port_file):
                ports.add(open(port_file).read())
            p.terminate()
        for p, _ in procs:
            p.wait()
        return up, len(ports), all_up_s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("warden")
    ap.add_argument("--redis", default="redis-server")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--parallel", type=int, default=200)
    ap.add_argument("--json", action="store_true", help="print one JSON object; text to stderr")
    args = ap.parse_args()
    if args.json:
        sys.stdout = sys.stderr
    servers = {
        "warden": lambda port: [args.warden, "--port", str(port)],
        "redis-server": lambda port: [args.redis, "--port", str(port), "--save", "",
                                      "--appendonly", "no"],
    }
    result = {"runs": args.runs}
    for name, cmd in servers.items():
        results = [start_once(cmd) for _ in range(args.runs)]
        times = [t for ok, t, _ in results if ok]
        rss = statistics.median(r for _, _, r in results)
        print(f"{name}: start to first PONG median {statistics.median(times) * 1000:.2f} ms "
              f"(min {min(times) * 1000:.2f}, max {max(times) * 1000:.2f}, "
              f"{len(times)}/{args.runs} up); idle RSS {rss / 1e6:.2f} MB")
        result[name.removesuffix("-server")] = {
            "median_ms": statistics.median(times) * 1000, "min_ms": min(times) * 1000,
            "max_ms": max(times) * 1000, "up": len(times), "idle_rss_bytes": rss}
    up, distinct, all_up_s = parallel_start(args.warden, args.parallel)
    print(f"parallel start: {up}/{args.parallel} warden servers answered PING on port 0, "
          f"{distinct} distinct ports, all up {all_up_s * 1000:.0f} ms after the first spawn")
    if args.json:
        result.update(parallel=args.parallel, parallel_up=up, parallel_ports=distinct,
                      parallel_all_up_ms=all_up_s * 1000)
        print(json.dumps(result), file=sys.__stdout__)


if __name__ == "__main__":
    main()
