#!/usr/bin/env python3
"""No neighbour may stall the loop: PING latency on its own connection while another client
sends a burst, and how long the burst takes. warden and redis-server in the same run, a fresh
server for each scenario and round.
    bench/neighbour_burst.py build/warden [--sets 1000000] [--multi-sets 100000] [--rounds 3]
        [--scenarios pipeline multi] [--no-pin] [--json]

Scenarios:
  pipeline  one connection writes --sets `SET key:<i> <36 bytes>` in one go (the requests are
            built beforehand, then sendall), reading the replies as they come
  multi     MULTI, --multi-sets SETs, EXEC in one go: the transaction runs whole, by design

A separate process sends PING every ~1 ms on its own connection from 1 s before the burst until
its last reply, and records each round trip. Per scenario and server, the medians over the
rounds of: the PINGs' p50, p99 and max while the burst is in flight, and the burst's own time
(first byte sent to last reply read) as requests per second.

The targets (issue 33): with a neighbour pipelining 1M SETs, the bystander's p99 PING at most
Redis's and its worst at most 5 ms; the pipelining client's throughput within 5% of what it was.

Servers on core 0, this script and its PING process on core 1 (as run_all.py), unless --no-pin.
"""
import argparse
import array
import json
import multiprocessing
import socket
import statistics
import subprocess
import threading
import time

from big_delete import percentile, pinger, stop_pinger_and_server
from run_all import Client, free_port

SERVER_CORE = 0
CLIENT_CORE = 1
IDLE_WINDOW_S = 1.0
TARGET_MS = 5.0
VALUE = b"x" * 36


def resp(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


def burst_bytes(scenario, n):
    """The requests, and how many reply bytes they end with (+OK\\r\\n each, EXEC's array)."""
    sets = [resp(b"SET", b"key:%d" % i, VALUE) for i in range(n)]
    if scenario == "pipeline":
        return b"".join(sets), 5 * n
    queued = b"+QUEUED\r\n"
    reply_bytes = 5 + len(queued) * n + len(b"*%d\r\n" % n) + 5 * n
    return resp(b"MULTI") + b"".join(sets) + resp(b"EXEC"), reply_bytes


def run_burst(port, data, reply_bytes):
    """Sends `data` on a new connection while reading the replies; returns (start, end)."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    got = [0]

    def reader():
        while got[0] < reply_bytes:
            chunk = sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("server closed the burst connection")
            got[0] += len(chunk)

    thread = threading.Thread(target=reader)
    start = time.monotonic()
    thread.start()
    sock.sendall(data)
    thread.join()
    end = time.monotonic()
    sock.close()
    return start, end


def one_round(name, argv, scenario, n, args):
    data, reply_bytes = burst_bytes(scenario, n)
    port = free_port()
    pin = ["taskset", "-c", str(SERVER_CORE)] if args.pin else []
    proc = subprocess.Popen(pin + argv(port), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    stop = multiprocessing.Event()
    ping_proc = None
    try:
        Client(port, timeout_s=30).call("PING")
        receive, send = multiprocessing.Pipe(duplex=False)
        ping_proc = multiprocessing.Process(target=pinger, args=(port, stop, send, 600))
        ping_proc.start()
        send.close()
        time.sleep(IDLE_WINDOW_S)
        start, end = run_burst(port, data, reply_bytes)
        stop.set()
        raw = array.array("d", receive.recv_bytes())
        ping_proc.join(timeout=10)
        samples = list(zip(raw[0::2], raw[1::2]))
        keys = Client(port, timeout_s=30).call("DBSIZE")
        if keys != n:
            raise RuntimeError(f"{name} {scenario}: DBSIZE {keys}, expected {n}")
    finally:
        stop_pinger_and_server(stop, ping_proc, proc)
    during = [rtt * 1000 for t, rtt in samples if t < end and t + rtt > start]
    return {"requests_per_s": n / (end - start), "pings": len(during),
            "p50_ms": percentile(during, 50), "p99_ms": percentile(during, 99),
            "max_ms": max(during) if during else None}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("warden")
    ap.add_argument("--redis", default="redis-server")
    ap.add_argument("--sets", type=int, default=1_000_000)
    ap.add_argument("--multi-sets", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scenarios", nargs="+", default=["pipeline", "multi"],
                    choices=["pipeline", "multi"])
    ap.add_argument("--no-pin", dest="pin", action="store_false")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.pin:
        import os
        os.sched_setaffinity(0, {CLIENT_CORE})
    servers = {
        "warden": lambda port: [args.warden, "--port", str(port), "--save", ""],
        "redis-server": lambda port: [args.redis, "--port", str(port), "--save", "",
                                      "--appendonly", "no"],
    }
    results = {}
    for scenario in args.scenarios:
        n = args.sets if scenario == "pipeline" else args.multi_sets
        for name, argv in servers.items():
            rounds = [one_round(name, argv, scenario, n, args) for _ in range(args.rounds)]
            med = {k: statistics.median(r[k] for r in rounds) for k in rounds[0]}
            results.setdefault(scenario, {})[name] = {"median": med, "rounds": rounds}
            print(f"{scenario:8} {name:12} {n:,} SETs at {med['requests_per_s']:,.0f}/s; "
                  f"PING p50 {med['p50_ms']:.2f} ms p99 {med['p99_ms']:.2f} ms max "
                  f"{med['max_ms']:.2f} ms ({med['pings']:.0f} PINGs; medians of "
                  f"{args.rounds})", flush=True)
    if args.json:
        print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
