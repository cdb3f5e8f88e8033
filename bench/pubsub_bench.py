#!/usr/bin/env python3
"""PUBLISH fan-out, warden and redis-server in the same run, each on a fresh server:
    bench/pubsub_bench.py build/warden [--subscribers 100] [--messages 20000]
        [--pipelines 1 16 64] [--rounds 3] [--no-pin] [--json]

--subscribers connections SUBSCRIBE to one channel; one publisher sends --messages
`PUBLISH bench:ch <64-byte message>`, --pipeline at a time (it waits for each batch's replies,
each of which must be the subscriber count), while the same thread drains the subscribers'
sockets. A round ends when every subscriber has read every message byte. The server's CPU time
over the round (/proc/PID/task/*/schedstat, its kernel time included: the writes to 100 sockets
are most of the work) divided by the messages delivered (messages x subscribers) is the figure.
Rounds alternate between the servers; medians are reported. Target: warden's CPU per delivered
message at most 0.6x Redis's. The user/kernel split (/proc/PID/stat, in clock ticks, so coarse)
shows where the time goes: nearly all of it is the kernel's work for each write to a subscriber's
socket, which both servers do once per subscriber per event-loop iteration.

Both servers run with `client-output-buffer-limit pubsub 0 0 0`, so that a subscriber this script
drains a little late is never disconnected. Servers on core 0, this script on core 1 (as
run_all.py), unless --no-pin.
"""
import argparse
import json
import os
import selectors
import socket
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from big_delete import schedstat_ns  # noqa: E402  (bench/ is not a package)

from run_all import Client, encode, free_port

SERVER_CORE = "0"
CLIENT_CORE = 1
CHANNEL = b"bench:ch"
MESSAGE = b"m" * 64


class Server:
    def __init__(self, name, argv, pin):
        self.name = name
        self.port = free_port()
        taskset = ["taskset", "-c", SERVER_CORE] if pin else []
        self.proc = subprocess.Popen(taskset + argv(self.port), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        try:
            self.client = Client(self.port, timeout_s=60)
            self.client.call("PING")
        except BaseException:
            self.stop()
            raise

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Fanout:
    """The subscribers and the publisher of one server."""

    def __init__(self, server, subscribers):
        self.server = server
        self.selector = selectors.DefaultSelector()
        self.subs = []
        confirm = b"*3\r\n$9\r\nsubscribe\r\n$%d\r\n%s\r\n:1\r\n" % (len(CHANNEL), CHANNEL)
        for _ in range(subscribers):
            s = socket.create_connection(("127.0.0.1", server.port))
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
            s.sendall(encode([b"SUBSCRIBE", CHANNEL]))
            got = b""
            while len(got) < len(confirm):
                got += s.recv(len(confirm) - len(got))
            if got != confirm:
                raise RuntimeError(f"SUBSCRIBE answered {got!r}")
            s.setblocking(False)
            self.selector.register(s, selectors.EVENT_READ, [0])
            self.subs.append(s)
        self.publisher = socket.create_connection(("127.0.0.1", server.port))
        self.publisher.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.frame_len = len(b"*3\r\n$7\r\nmessage\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n"
                             % (len(CHANNEL), CHANNEL, len(MESSAGE), MESSAGE))
        self.reply = b":%d\r\n" % subscribers
        self.user_ticks = self.sys_ticks = 0

    def drain(self, timeout):
        for key, _ in self.selector.select(timeout):
            try:
                data = key.fileobj.recv(1 << 20)
            except BlockingIOError:
                continue
            if not data:
                raise ConnectionError("a subscriber was disconnected")
            key.data[0] += len(data)

    def run(self, messages, pipeline):
        """Server CPU ns per delivered message for `messages` publishes."""
        want = [key.data[0] + messages * self.frame_len
                for key in self.selector.get_map().values()]
        keys = list(self.selector.get_map().values())
        batch = encode([b"PUBLISH", CHANNEL, MESSAGE]) * pipeline
        replies = self.reply * pipeline
        cpu_before = schedstat_ns(self.server.proc.pid)[0]
        ticks_before = user_sys_ticks(self.server.proc.pid)
        sent = 0
        while sent < messages:
            self.publisher.sendall(batch)
            sent += pipeline
            got = b""
            while len(got) < len(replies):
                self.drain(0)
                self.publisher.settimeout(0.001)
                try:
                    got += self.publisher.recv(len(replies) - len(got))
                except socket.timeout:
                    pass
            if got != replies:
                raise RuntimeError(f"PUBLISH answered {got[:40]!r}")
        while any(k.data[0] < w for k, w in zip(keys, want)):
            self.drain(1)
        cpu = schedstat_ns(self.server.proc.pid)[0] - cpu_before
        ticks = [a - b for a, b in zip(user_sys_ticks(self.server.proc.pid), ticks_before)]
        self.user_ticks += ticks[0]
        self.sys_ticks += ticks[1]
        return cpu / (sent * len(self.subs))


def user_sys_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]), int(fields[12])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("warden")
    ap.add_argument("--redis", default="redis-server")
    ap.add_argument("--subscribers", type=int, default=100)
    ap.add_argument("--messages", type=int, default=20000)
    ap.add_argument("--pipelines", type=int, nargs="+", default=[1, 16, 64])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-pin", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    pin = not args.no_pin
    if pin:
        os.sched_setaffinity(0, {CLIENT_CORE})
    limit = ["--client-output-buffer-limit", "pubsub 0 0 0"]
    servers = {}
    try:
        servers["warden"] = Server("warden", lambda p: [args.warden, "--port", str(p), "--save", ""] + limit,
                                   pin)
        servers["redis"] = Server("redis", lambda p: [args.redis, "--port", str(p), "--save", "",
                                                      "--appendonly", "no"] + limit, pin)
        fanouts = {name: Fanout(s, args.subscribers) for name, s in servers.items()}
        results = {}
        for pipeline in args.pipelines:
            samples = {name: [] for name in fanouts}
            for f in fanouts.values():
                f.run(min(args.messages, 2000), pipeline)  # warm-up
                f.user_ticks = f.sys_ticks = 0
            for r in range(args.rounds):
                order = list(fanouts) if r % 2 == 0 else list(fanouts)[::-1]
                for name in order:
                    samples[name].append(fanouts[name].run(args.messages, pipeline))
            med = {name: statistics.median(v) for name, v in samples.items()}
            results[pipeline] = {"warden_ns": med["warden"], "redis_ns": med["redis"],
                                 "ratio": med["warden"] / med["redis"], "samples": samples,
                                 "user_share": {n: f.user_ticks / max(1, f.user_ticks + f.sys_ticks)
                                                for n, f in fanouts.items()}}
    finally:
        for s in servers.values():
            s.stop()
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"PUBLISH {len(MESSAGE)}-byte message to 1 channel, {args.subscribers} subscribers, "
          f"{args.messages} messages per round, median of {args.rounds}")
    print("| pipeline | warden CPU / delivered msg | Redis CPU / delivered msg | ratio | target "
          "| user share warden / Redis |")
    print("|---|---|---|---|---|---|")
    for pipeline, r in results.items():
        met = "met" if r["ratio"] <= 0.6 else "not met"
        share = r["user_share"]
        print(f"| P{pipeline} | {r['warden_ns']:.0f} ns | {r['redis_ns']:.0f} ns | "
              f"{r['ratio']:.2f}x | <=0.6x {met} | {share['warden']:.0%} / {share['redis']:.0%} |")


if __name__ == "__main__":
    main()
