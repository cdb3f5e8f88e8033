#!/usr/bin/env python3
"""Memory limits under load: ten million keys written into a server with maxmemory 64mb, under
each maxmemory policy, while the server's resident set is sampled. Passes when RSS never goes
past the limit by more than the allowed margin, the evicting policies refused no write, and
noeviction refused writes (with Redis's OOM text) but still answers reads.

    tests/stress/maxmemory_rss.py [--binary build/warden] [--keys 10000000] [--policies ...]
    tests/stress/maxmemory_rss.py --server redis       # the same run against redis-server

The keys are written by redis-benchmark (pipelined, four connections), as `SET lease:<random>
<36 bytes> PX 600000`, so every key is a candidate for the volatile policies too. Only the
standard library is used; the server is stopped by PID.
"""
import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

POLICIES = ["noeviction", "allkeys-lru", "allkeys-lfu", "allkeys-random", "volatile-lru",
            "volatile-lfu", "volatile-random", "volatile-ttl"]
OOM = "OOM command not allowed when used memory > 'maxmemory'."


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


def command(port, *args):
    """One command over a fresh connection; the reply's first line (enough for these checks)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        out = f"*{len(args)}\r\n" + "".join(f"${len(a)}\r\n{a}\r\n" for a in args)
        s.sendall(out.encode())
        data = b""
        while not data.endswith(b"\r\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        return data.decode(errors="replace")


def info_field(port, section, field):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(f"INFO {section}\r\n".encode())
        data = b""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            data += s.recv(65536)
            if data.startswith(b"$"):
                head, _, rest = data.partition(b"\r\n")
                if len(rest) >= int(head[1:]) + 2:
                    break
    for line in data.decode().split("\r\n"):
        if line.startswith(field + ":"):
            return line.split(":", 1)[1]
    return None


def wait_up(port, proc):
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited with {proc.returncode}")
        try:
            if command(port, "PING").startswith("+PONG"):
                return
        except OSError:
            # Not listening yet: wait a little, but wake at once if the server exits.
            try:
                proc.wait(timeout=0.01)
            except subprocess.TimeoutExpired:
                pass
    raise SystemExit("server did not start")


def run_policy(args, policy):
    port = free_port()
    if args.server == "redis":
        cmd = ["redis-server", "--port", str(port), "--save", "", "--appendonly", "no"]
    else:
        cmd = [args.binary, "--port", str(port)]
    cmd += ["--bind", "127.0.0.1", "--maxmemory", "64mb", "--maxmemory-policy", policy]
    with tempfile.TemporaryFile() as log:
        server = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_up(port, server)
            base = rss(server.pid)
            # Its progress lines go to a file: a pipe read only at the end fills up (64 KB, a
            # run of a few minutes) and blocks redis-benchmark, and with it the whole run.
            bench_log = tempfile.TemporaryFile()
            bench = subprocess.Popen(
                ["redis-benchmark", "-p", str(port), "-c", "4", "-P", "64", "-q",
                 "-n", str(args.keys), "-r", "1000000000",
                 "SET", "lease:__rand_int__", "x" * 36, "PX", "600000"],
                stdout=bench_log, stderr=subprocess.STDOUT)
            peak = base
            # One RSS sample per 20 ms of the load, and one more the moment it ends.
            while True:
                peak = max(peak, rss(server.pid))
                try:
                    bench.wait(timeout=0.02)
                    break
                except subprocess.TimeoutExpired:
                    pass
            bench_log.seek(0)
            bench_out = bench_log.read().decode(errors="replace")
            bench_log.close()
            peak = max(peak, rss(server.pid))
            # redis-benchmark stops at the first error reply: noeviction's refusal ends its run.
            if bench.returncode != 0 and not (policy == "noeviction" and OOM in bench_out):
                raise SystemExit(f"redis-benchmark failed:\n{bench_out}")
            keys = int(command(port, "DBSIZE")[1:])
            evicted = int(info_field(port, "stats", "evicted_keys"))
            used = int(info_field(port, "memory", "used_memory"))
            # The load's connections are gone, which may leave memory just below the limit:
            # more writes take it past, and then the first refusal must come.
            refused = ""
            for i in range(1000):
                refused = command(port, "SET", f"after:{i}", "x" * 10000)
                if not refused.startswith("+OK"):
                    break
            read = command(port, "EXISTS", "after:0")
            alive = server.poll() is None
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
    limit = 64 << 20
    problems = []
    if not alive:
        problems.append("server died")
    if peak > limit + args.margin_mb * (1 << 20):
        problems.append(f"peak RSS {peak >> 20} MiB past 64 MiB + {args.margin_mb} MiB")
    if policy == "noeviction":
        if OOM not in refused:
            problems.append(f"a write past the limit got {refused!r}")
        if not read.startswith(":"):
            problems.append(f"a read past the limit got {read!r}")
        if evicted != 0:
            problems.append(f"noeviction evicted {evicted} keys")
    else:
        if OOM in bench_out or "ERR" in bench_out:
            problems.append("writes were refused: " + bench_out.strip()[-200:])
        if evicted < args.keys // 2:
            problems.append(f"only {evicted} keys evicted")
    print(f"{policy:16} keys={keys:9} evicted={evicted:9} used_memory={used >> 20} MiB "
          f"rss_start={base >> 20} MiB rss_peak={peak >> 20} MiB"
          + ("" if not problems else "  FAIL: " + "; ".join(problems)), flush=True)
    return not problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default="build/warden")
    parser.add_argument("--server", choices=["warden", "redis"], default="warden")
    parser.add_argument("--keys", type=int, default=10_000_000)
    parser.add_argument("--policies", nargs="+", default=POLICIES, choices=POLICIES)
    # Above used_memory: the allocator's and the entry pool's slack, the binary itself.
    parser.add_argument("--margin-mb", type=int, default=32)
    args = parser.parse_args()
    ok = all([run_policy(args, p) for p in args.policies])
    print(f"maxmemory-rss {'PASS' if ok else 'FAIL'} server={args.server} keys={args.keys}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
