#!/usr/bin/env python3
"""Transactions, warden and redis-server in the same run, each on a fresh server:
    bench/multi_bench.py build/warden [--rounds 3] [--seconds 5] [--connections 50]
        [--queued 1000000] [--parts exec bigmulti] [--quick] [--json]

  exec      MULTI / SET tx:<c> <36 bytes> / INCR n:<c> / EXEC at pipeline 16, driven by
            bench/multicycle.c (compiled with cc): each of --connections connections writes 16
            transactions at once and reads their replies before the next 16, for --seconds.
            Reports the server's CPU per transaction (target: warden at most 0.6x Redis's),
            transactions per second, and the same SET/INCR pairs pipelined without MULTI/EXEC
            for scale. Rounds alternate between the servers; medians are reported.
  bigmulti  one client queues --queued `SET big:<i> <36 bytes>` after MULTI, written in
            batches without waiting for the QUEUED replies (read by a thread), while another
            process PINGs in a loop: the worst PING latency, the server's RSS growth with the queue held,
            then DISCARD and the RSS after. Redis 7.0 bounds a queue only by maxmemory and
            maxmemory-clients (both off by default), so neither server refuses it: what
            matters is that the other client is served throughout and the memory is given
            back.

Server CPU is its time on CPU from /proc/PID/task/*/schedstat. Servers on core 0, this script on
core 1 (as run_all.py).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_all import Client, ServerPair, encode  # noqa: E402  (bench/ is not a package)

CLIENT_CORE = 1
PIPELINE = 16
VALUE = "x" * 36


def exec_round(server, multicycle, seconds, connections, seed, with_multi):
    argv = ["taskset", "-c", str(CLIENT_CORE), multicycle, "--port", str(server.port),
            "--duration", str(seconds), "--connections", str(connections), "--seed", str(seed)]
    if not with_multi:
        argv.append("--plain")
    cpu0 = server.cpu_ns()
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    cpu = server.cpu_ns() - cpu0
    r = json.loads(done.stdout)
    assert r["unexpected"] == 0, r
    return {"cpu_us_per_tx": cpu / r["transactions"] / 1000, "tx_per_s": r["per_sec"]}


PINGER = """
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
worst = 0.0
sys.stdout.write("ready\\n"); sys.stdout.flush()
while True:
    t0 = time.monotonic()
    s.sendall(b"*1\\r\\n$4\\r\\nPING\\r\\n")
    if s.recv(64) != b"+PONG\\r\\n":
        break
    worst = max(worst, time.monotonic() - t0)
    if sys.stdin.closed:
        break
    try:
        import select
        if select.select([sys.stdin], [], [], 0.001)[0]:
            break
    except ValueError:
        break
print(worst * 1000)
"""


def big_multi(server, queued):
    """Queues `queued` commands in one MULTI while a separate process PINGs in a loop."""
    a = Client(server.port)
    pinger = subprocess.Popen([sys.executable, "-c", PINGER, str(server.port)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert pinger.stdout.readline().strip() == "ready"
    rss0 = server.rss_bytes()
    a.sock.sendall(encode(["MULTI"]))

    def reader():
        seen = 0
        while seen < queued + 1:
            a._fill()
            seen += a.buf.count(b"\r\n")
            a.buf = b""

    t = threading.Thread(target=reader)
    t.start()
    batch = 10000
    for start in range(0, queued, batch):
        a.sock.sendall(b"".join(encode(["SET", "big:%d" % i, VALUE])
                               for i in range(start, min(queued, start + batch))))
    t.join()
    rss_queued = server.rss_bytes()
    pinger.stdin.write("stop\n")
    pinger.stdin.flush()
    worst_ping_ms = float(pinger.stdout.readline())
    pinger.wait()
    assert a.call("DISCARD") == "OK"
    time.sleep(0.5)  # let the allocator hand memory back before reading RSS
    rss_after = server.rss_bytes()
    a.sock.close()
    return {"worst_ping_ms": worst_ping_ms,
            "bytes_per_queued": (rss_queued - rss0) / queued,
            "rss_queued_mb": rss_queued / 1e6, "rss_after_discard_mb": rss_after / 1e6}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("warden")
    ap.add_argument("--redis", default="redis-server")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--connections", type=int, default=50)
    ap.add_argument("--queued", type=int, default=1_000_000)
    ap.add_argument("--parts", nargs="+", default=["exec", "bigmulti"])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    args.warden = os.path.abspath(args.warden)
    if args.quick:
        args.rounds, args.seconds, args.queued = 1, 1, 100_000
    os.sched_setaffinity(0, {CLIENT_CORE})
    results = {}
    # The CMake-built load generator beside warden, else one compiled here.
    multicycle = os.path.join(os.path.dirname(args.warden), "bench", "multicycle")
    if not os.access(multicycle, os.X_OK):
        multicycle = os.path.join(tempfile.mkdtemp(), "multicycle")
        subprocess.run(["cc", "-O2", "-o", multicycle,
                        os.path.join(os.path.dirname(os.path.abspath(__file__)), "multicycle.c")],
                       check=True)
    with ServerPair(args) as servers:
        if "exec" in args.parts:
            for with_multi in (True, False):
                label = "multi_set_incr_exec_p16" if with_multi else "set_incr_p16"
                runs = {"warden": [], "redis": []}
                for seed in range(args.rounds):
                    for name in ("warden", "redis"):
                        runs[name].append(exec_round(servers[name], multicycle, args.seconds,
                                                     args.connections, seed, with_multi))
                results[label] = {
                    name: {k: statistics.median(r[k] for r in rs) for k in rs[0]}
                    for name, rs in runs.items()}
        if "bigmulti" in args.parts:
            results["bigmulti"] = {name: big_multi(servers[name], args.queued)
                                   for name in ("warden", "redis")}
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for label in ("multi_set_incr_exec_p16", "set_incr_p16"):
        if label not in results:
            continue
        w, r = results[label]["warden"], results[label]["redis"]
        print("%s: warden %.2f us/tx (%.0fk tx/s), Redis %.2f us/tx (%.0fk tx/s): %.2fx"
              % (label, w["cpu_us_per_tx"], w["tx_per_s"] / 1000, r["cpu_us_per_tx"],
                 r["tx_per_s"] / 1000, w["cpu_us_per_tx"] / r["cpu_us_per_tx"]))
    if "bigmulti" in results:
        for name, v in results["bigmulti"].items():
            print("bigmulti %s: %d queued, %.1f B each, RSS %.0f MB queued, %.0f MB after "
                  "DISCARD, worst PING %.1f ms" % (name, args.queued, v["bytes_per_queued"],
                                                  v["rss_queued_mb"], v["rss_after_discard_mb"],
                                                  v["worst_ping_ms"]))


if __name__ == "__main__":
    main()
