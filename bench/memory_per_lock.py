#!/usr/bin/env python3
"""Memory per lock: RSS growth for N locks (key lock:<n>, 36-byte token, PX 600000) loaded into
warden and into redis-server in the same run, pipelined in batches.
    bench/memory_per_lock.py build/warden [--locks 1000000] [--json]
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


def rss(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def wait_up(port):
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16) == b"+PONG\r\n":
                    return
        except OSError:
            time.sleep(0.005)
    raise SystemExit(f"server on {port} did not start")


def load(port, n, batch=10000):
    token = "0123456789abcdef0123456789abcdef0123"
    with socket.create_connection(("127.0.0.1", port)) as s:
        for start in range(0, n, batch):
            parts = []
            for i in range(start, min(n, start + batch)):
                key = f"lock:{i}"
                parts.append(f"*6\r\n$3\r\nSET\r\n${len(key)}\r\n{key}\r\n$36\r\n{token}\r\n"
                             f"$2\r\nNX\r\n$2\r\nPX\r\n$6\r\n600000\r\n")
            s.sendall("".join(parts).encode())
            want = 5 * (min(n, start + batch) - start)  # "+OK\r\n" each
            got = 0
            while got < want:
                got += len(s.recv(1 << 20))
        s.sendall(b"DBSIZE\r\n")
        return int(s.recv(64)[1:-2])


def measure(name, cmd, n):
    port = free_port()
    p = subprocess.Popen(cmd(port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_up(port)
        idle = rss(p.pid)
        keys = load(port, n)
        time.sleep(0.5)
        full = rss(p.pid)
    finally:
        p.terminate()
        p.wait()
    assert keys == n, f"{name} holds {keys} keys, expected {n}"
    per_lock = (full - idle) / n
    print(f"{name}: idle RSS {idle / 1e6:.2f} MB, RSS with {n} locks {full / 1e6:.1f} MB, "
          f"{per_lock:.1f} bytes per lock")
    return {"idle_rss_bytes": idle, "rss_bytes": full, "bytes_per_lock": per_lock}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("warden")
    ap.add_argument("--redis", default="redis-server")
    ap.add_argument("--locks", type=int, default=1000000)
    ap.add_argument("--json", action="store_true", help="print one JSON object; text to stderr")
    args = ap.parse_args()
    if args.json:
        sys.stdout = sys.stderr
    w = measure("warden", lambda port: [args.warden, "--port", str(port), "--save", ""],
                args.locks)
    r = measure("redis-server", lambda port: [args.redis, "--port", str(port), "--save", "",
                                              "--appendonly", "no"], args.locks)
    ratio = w["bytes_per_lock"] / r["bytes_per_lock"]
    print(f"ratio warden/redis: {ratio:.2f}")
    if args.json:
        result = {"locks": args.locks, "warden": w, "redis": r, "ratio": ratio}
        print(json.dumps(result), file=sys.__stdout__)


if __name__ == "__main__":
    main()
