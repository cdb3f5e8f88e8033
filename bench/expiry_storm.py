#!/usr/bin/env python3
"""Expiry storm: N locks with the same short lease, untouched; then PING latency while they
expire, and how many are left one second after the last deadline. warden and redis-server in
the same run.
    bench/expiry_storm.py build/warden [--locks 1000000] [--ttl-ms 2000] [--json]
"""
import argparse
import json
import socket
import subprocess
import sys
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def connect(port):
    deadline = time.monotonic() + 10
    while True:
        try:
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"PING\r\n")
            if s.recv(16) == b"+PONG\r\n":
                return s
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.005)


def command(s, line):
    s.sendall(line.encode() + b"\r\n")
    return s.recv(1 << 16)


def load(s, n, ttl_ms, batch=10000):
    token = "0123456789abcdef0123456789abcdef0123"
    for start in range(0, n, batch):
        end = min(n, start + batch)
        s.sendall("".join(
            f"*6\r\n$3\r\nSET\r\n${len(f'lock:{i}')}\r\nlock:{i}\r\n$36\r\n{token}\r\n"
            f"$2\r\nNX\r\n$2\r\nPX\r\n${len(str(ttl_ms))}\r\n{ttl_ms}\r\n"
            for i in range(start, end)).encode())
        want, got = 5 * (end - start), 0
        while got < want:
            got += len(s.recv(1 << 20))


def storm(name, cmd, n, ttl_ms):
    port = free_port()
    p = subprocess.Popen(cmd(port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        s = connect(port)
        t0 = time.monotonic()
        load(s, n, ttl_ms)
        loaded = time.monotonic()
        last_deadline = t0 + (loaded - t0) + ttl_ms / 1000
        worst = 0.0
        while time.monotonic() < last_deadline + 1.0:
            a = time.perf_counter()
            command(s, "PING")
            worst = max(worst, time.perf_counter() - a)
            time.sleep(0.001)
        left = int(command(s, "DBSIZE")[1:-2])
        print(f"{name}: {n} locks loaded in {loaded - t0:.1f} s; 1 s after the last deadline "
              f"{left} left ({100 * left / n:.2f}%); worst PING {worst * 1000:.1f} ms")
        return {"load_s": loaded - t0, "left": left, "left_percent": 100 * left / n,
                "worst_ping_ms": worst * 1000}
    finally:
        p.terminate()
        p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("warden")
    ap.add_argument("--redis", default="redis-server")
    ap.add_argument("--locks", type=int, default=1000000)
    ap.add_argument("--ttl-ms", type=int, default=2000)
    ap.add_argument("--json", action="store_true", help="print one JSON object; text to stderr")
    args = ap.parse_args()
    if args.json:
        sys.stdout = sys.stderr
    w = storm("warden", lambda port: [args.warden, "--port", str(port), "--save", ""],
              args.locks, args.ttl_ms)
    r = storm("redis-server", lambda port: [args.redis, "--port", str(port), "--save", "",
                                            "--appendonly", "no"], args.locks, args.ttl_ms)
    if args.json:
        result = {"locks": args.locks, "ttl_ms": args.ttl_ms, "warden": w, "redis": r}
        print(json.dumps(result), file=sys.__stdout__)


if __name__ == "__main__":
    main()
