#!/usr/bin/env python3
"""Resetting a data set between two tests: warden's DEBUG SNAPSHOT LOAD against what a suite
does with redis-server today, side by side on the same data.

Both servers get the same fixture of --keys keys (90% `SET lock:i token PX 600000`, 10% 4-field
hashes), sent pipelined. Then, each --runs times, median reported:
  warden        DEBUG SNAPSHOT SAVE (once per suite), DEBUG SNAPSHOT LOAD (per test)
  redis-server  FLUSHALL + the fixture re-sent (re-creating it), and DEBUG RELOAD (an RDB save
                and load: the nearest thing Redis has to a snapshot, also a full copy)
    bench/reset_between_tests.py build/warden [--keys 100000] [--runs 7]
"""
import argparse
import os
import socket
import statistics
import subprocess
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Conn:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=120)
        self.buf = b""

    def send(self, *commands):
        out = bytearray()
        for args in commands:
            out += b"*%d\r\n" % len(args)
            for a in args:
                a = a if isinstance(a, bytes) else str(a).encode()
                out += b"$%d\r\n%s\r\n" % (len(a), a)
        self.sock.sendall(out)

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise ConnectionError("closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"-":
            raise RuntimeError(rest.decode())
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self.buf += self.sock.recv(1 << 16)
            data, self.buf = self.buf[:n], self.buf[n + 2:]
            return data
        if kind == b"*":
            return [self.reply() for _ in range(int(rest))]
        return rest

    def call(self, *args):
        self.send(args)
        return self.reply()


def fixture(keys):
    commands = []
    for i in range(keys):
        if i % 10 == 9:
            commands.append(("HSET", f"user:{i}", "name", "n", "role", "r", "team", "t", "age", "1"))
        else:
            commands.append(("SET", f"lock:{i}", f"token-{i}", "PX", "600000"))
    return commands


def load_fixture(conn, commands, batch=1000):
    for start in range(0, len(commands), batch):
        part = commands[start:start + batch]
        conn.send(*part)
        for _ in part:
            conn.reply()


def timed(fn, runs):
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples)


def start(cmd, port):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            c = Conn(port)
            if c.call("PING") == b"PONG":
                return p, c
        except OSError:
            time.sleep(0.01)
    p.terminate()
    raise RuntimeError(f"{cmd[0]} did not start")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("warden")
    ap.add_argument("--redis", default="redis-server")
    ap.add_argument("--keys", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    commands = fixture(args.keys)
    with tempfile.TemporaryDirectory() as tmp:
        wport, rport = free_port(), free_port()
        wp, w = start([args.warden, "--port", str(wport), "--save", "", "--enable-debug-command",
                        "yes"], wport)
        rp, r = start([args.redis, "--port", str(rport), "--save", "", "--appendonly", "no",
                       "--dir", tmp, "--enable-debug-command", "yes"], rport)
        try:
            load_fixture(w, commands)
            load_fixture(r, commands)
            assert int(w.call("DBSIZE")) == int(r.call("DBSIZE")) == args.keys
            save = timed(lambda: w.call("DEBUG", "SNAPSHOT", "SAVE", "fixture"), args.runs)
            load = timed(lambda: w.call("DEBUG", "SNAPSHOT", "LOAD", "fixture"), args.runs)
            assert int(w.call("DBSIZE")) == args.keys

            def recreate():
                r.call("FLUSHALL")
                load_fixture(r, commands)

            refill = timed(recreate, args.runs)
            reload = timed(lambda: r.call("DEBUG", "RELOAD"), args.runs)
            assert int(r.call("DBSIZE")) == args.keys
        finally:
            for p in (wp, rp):
                p.terminate()
                p.wait()
    print(f"{args.keys} keys, median of {args.runs} runs, wall ms over loopback:")
    print(f"  warden DEBUG SNAPSHOT SAVE          {save:8.1f} ms (once per suite)")
    print(f"  warden DEBUG SNAPSHOT LOAD          {load:8.1f} ms (per test)")
    print(f"  redis-server FLUSHALL + fixture     {refill:8.1f} ms (per test)  "
          f"LOAD is {load / refill:.2f}x of it")
    print(f"  redis-server DEBUG RELOAD           {reload:8.1f} ms (per test)  "
          f"LOAD is {load / reload:.2f}x of it")


if __name__ == "__main__":
    main()
