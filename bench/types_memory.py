#!/usr/bin/env python3
"""Memory of typed values, warden and redis-server in the same run (RSS growth over idle):
  redisson  a Redisson lock: HINCRBY redisson_lock:{order:N} <36-char uuid>:1 1, PEXPIRE 600000
  bighash   ten hashes of 200,000 fields each, field:N -> value-N (bytes per field)
  lock      the string lock of memory_per_lock.py, for comparison in the same run
  semaphore a redis-semaphore semaphore with five holders: five ZADD semaphore:{order:N}
            <ms timestamp> <uuid> and PEXPIRE 600000, 200,000 of them (bytes per semaphore)
  signal    a python-redis-lock signal key: LPUSH lock-signal:{order:N} 1, PEXPIRE 600000,
            1,000,000 of them (bytes per key)
  bigzset   ten sorted sets of 200,000 members each, member:N with a random float score
            (seeded; bytes per member)
    bench/types_memory.py build/warden [--workload redisson bighash lock semaphore signal bigzset]
        [--scale 1.0] [--json]
(the first three by default)
"""
import argparse
import json
import random
import subprocess
import sys
import time

from memory_per_lock import free_port, rss, wait_up

UUID = "3f2b8c1e-9a4d-4e7f-8b6a-1c2d3e4f5a6b"


def command(*args):
    out = [f"*{len(args)}\r\n"]
    for a in args:
        a = str(a)
        out.append(f"${len(a.encode())}\r\n{a}\r\n")
    return "".join(out)


def send(sock, commands, replies_per_command):
    sock.sendall("".join(commands).encode())
    want = len(commands) * replies_per_command
    got = 0
    buf = b""
    while got < want:
        chunk = sock.recv(1 << 20)
        buf += chunk
        got = buf.count(b"\r\n")
    # Every reply of these workloads is a single line (:n or +OK).
    assert not any(line.startswith(b"-") for line in buf.split(b"\r\n")), buf[:200]


def redisson(n):
    for i in range(n):
        key = f"redisson_lock:{{order:{i}}}"
        yield [command("HINCRBY", key, f"{UUID}:1", 1), command("PEXPIRE", key, 600000)]


def bighash(n):
    for h in range(10):
        for i in range(n // 10):
            yield [command("HSET", f"bighash:{h}", f"field:{i}", f"value-{i}")]


def lock(n):
    for i in range(n):
        yield [command("SET", f"lock:{i}", UUID, "NX", "PX", 600000)]


SEMAPHORE_NOW_MS = 1764590400000


def semaphore(n):
    # The holders acquired a few seconds apart, each with its own random UUID.
    for i in range(n):
        key = f"semaphore:{{order:{i}}}"
        yield [command("ZADD", key, SEMAPHORE_NOW_MS - 1000 * h + i % 1000,
                       f"{i:08x}-{h:04x}-4e7f-8b6a-1c2d3e4f5a6b") for h in range(5)] + [
                   command("PEXPIRE", key, 600000)]


def signal(n):
    for i in range(n):
        key = f"lock-signal:{{order:{i}}}"
        yield [command("LPUSH", key, 1), command("PEXPIRE", key, 600000)]


def bigzset(n):
    scores = random.Random(12)
    for z in range(10):
        for i in range(n // 10):
            yield [command("ZADD", f"bigzset:{z}", repr(scores.random()), f"member:{i}")]


WORKLOADS = {
    "redisson": (redisson, 1_000_000, "lock"),
    "bighash": (bighash, 2_000_000, "field"),
    "lock": (lock, 1_000_000, "lock"),
    "semaphore": (semaphore, 200_000, "semaphore"),
    "signal": (signal, 1_000_000, "key"),
    "bigzset": (bigzset, 2_000_000, "member"),
}


def load(port, workload, n, batch=5000):
    import socket
    make = WORKLOADS[workload][0]
    with socket.create_connection(("127.0.0.1", port)) as s:
        pending = []
        for cmds in make(n):
            pending.extend(cmds)
            if len(pending) >= batch:
                send(s, pending, 1)
                pending = []
        if pending:
            send(s, pending, 1)
        s.sendall(b"DBSIZE\r\n")
        return int(s.recv(64)[1:-2])


def measure(name, cmd, workload, n):
    port = free_port()
    p = subprocess.Popen(cmd(port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_up(port)
        idle = rss(p.pid)
        keys = load(port, workload, n)
        time.sleep(0.5)
        full = rss(p.pid)
    finally:
        p.terminate()
        p.wait()
    per_item = (full - idle) / n
    unit = WORKLOADS[workload][2]
    print(f"{workload} {name}: {keys} keys, RSS {idle / 1e6:.1f} -> {full / 1e6:.1f} MB, "
          f"{per_item:.1f} bytes per {unit}")
    return {"keys": keys, "idle_rss_bytes": idle, "rss_bytes": full, "bytes_per_item": per_item}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("warden")
    ap.add_argument("--redis", default="redis-server")
    ap.add_argument("--workload", nargs="+", choices=list(WORKLOADS),
                    default=["redisson", "bighash", "lock"])
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of the default counts")
    ap.add_argument("--json", action="store_true", help="print one JSON object; text to stderr")
    args = ap.parse_args()
    if args.json:
        sys.stdout = sys.stderr
    results = {}
    for workload in args.workload:
        n = int(WORKLOADS[workload][1] * args.scale)
        w = measure("warden", lambda port: [args.warden, "--port", str(port)], workload, n)
        r = measure("redis-server", lambda port: [args.redis, "--port", str(port), "--save", "",
                                                  "--appendonly", "no"], workload, n)
        assert w["keys"] == r["keys"], f"{workload}: warden {w['keys']} keys, redis {r['keys']}"
        ratio = w["bytes_per_item"] / r["bytes_per_item"]
        print(f"{workload} ratio warden/redis: {ratio:.2f}")
        results[workload] = {"count": n, "warden": w, "redis": r, "ratio": ratio}
    if args.json:
        print(json.dumps(results), file=sys.__stdout__)


if __name__ == "__main__":
    main()
