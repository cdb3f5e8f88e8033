#!/usr/bin/env python3
"""Freeing a large value must not stall the loop: PING latency, on its own connection, while
DEL, UNLINK or FLUSHALL frees a hash of ten million fields (or ten million keys), and how long
until the memory is back. warden and redis-server in the same run, a fresh server for each
scenario.
    bench/big_delete.py build/warden [--fields 10000000] [--keys 10000000]
        [--scenarios del unlink flushall flushall-async] [--rss-wait 30] [--no-pin] [--json]

Scenarios:
  del             HSET big f0 v0 f1 v1 ... (--fields fields, 1000 pairs a command), then DEL big
  unlink          the same hash, then UNLINK big
  flushall        MSET key:0 v0 key:1 v1 ... (--keys keys, 1000 pairs a command), then FLUSHALL
  flushall-async  the same keys, then FLUSHALL ASYNC

Redis 7.0 by default (lazyfree-lazy-user-del and lazyfree-lazy-user-flush no) frees a DEL'd
value and a FLUSHALL'd keyspace before it replies; UNLINK and FLUSHALL ASYNC hand them to its
background thread. warden replies at once to all four and frees in slices between I/O.

A separate process sends PING every ~1 ms on its own connection from 1 s before the command to
the end and records each round trip. Per scenario and server:
  reply   round trip of the command itself
  freed   from sending the command until lazyfree_pending_objects (where INFO has it) is 0 and
          used_memory and used_memory_dataset are back within 5% of what loading added (or
          2 MB): the freeing is over
  PING    p50, p99 and max of the PINGs in flight while freeing (command sent -> reply or
          freed, whichever is later); p99 and max of those in the 1 s before the command (the
          machine's noise floor); max of those after freeing (warden returns empty 64 KiB slabs
          then, 8 per cron tick)
  RSS     from sending the command until RSS is back within 10% of what loading added (or
          2 MB), if it is within --rss-wait seconds; else the RSS still held then
  run-queue wait  while freeing, how long the server's threads were runnable but waiting for a
          core (/proc schedstat): on a busy machine PINGs wait that long whatever the server
          does, so a large figure means the latencies measured the machine
The target: warden's PING p99 and max while freeing under 5 ms.

Servers on core 0, this script and its PING process on core 1 (as run_all.py), unless --no-pin;
pinned, Redis's background thread shares core 0 with its main thread.
"""
import argparse
import array
import json
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import time

from run_all import Client, free_port

SERVER_CORE = 0
CLIENT_CORE = 1
PAIRS_PER_COMMAND = 1000
COMMANDS_PER_SEND = 10
TARGET_MS = 5.0
USED_BACK = 0.05  # share of what loading added still held when "freed"
RSS_BACK = 0.10
# Either way, this much over the idle server counts as back (connection buffers and the like).
SLACK_BYTES = 2 << 20
POLL_S = 0.01
# A server that has not freed within this long after --rss-wait counts as a failure.
FREE_TIMEOUT_S = 600
IDLE_WINDOW_S = 1.0

SCENARIOS = {
    # name: (what is loaded, command, expected reply)
    "del": ("hash", ["DEL", "big"], 1),
    "unlink": ("hash", ["UNLINK", "big"], 1),
    "flushall": ("keys", ["FLUSHALL"], "OK"),
    "flushall-async": ("keys", ["FLUSHALL", "ASYNC"], "OK"),
}


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def schedstat_ns(pid):
    """(time on CPU, time runnable but waiting for a CPU) of all the process's threads."""
    cpu = wait = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                fields = f.read().split()
        except FileNotFoundError:
            continue  # a thread that ended between listdir and open
        cpu += int(fields[0])
        wait += int(fields[1])
    return cpu, wait


def pairs_command(head, first, count, key_prefix, value_prefix):
    """head + key_prefix<i> value_prefix<i> for i in [first, first + count), as RESP."""
    out = [b"*%d\r\n" % (len(head) + 2 * count)]
    out += [b"$%d\r\n%s\r\n" % (len(h), h) for h in head]
    for i in range(first, first + count):
        k = b"%s%d" % (key_prefix, i)
        v = b"%s%d" % (value_prefix, i)
        out.append(b"$%d\r\n%s\r\n$%d\r\n%s\r\n" % (len(k), k, len(v), v))
    return b"".join(out)


def load(conn, what, n):
    """HSET big f<i> v<i> or MSET key:<i> v<i> for i < n, PAIRS_PER_COMMAND pairs a command and
    COMMANDS_PER_SEND commands a round trip; returns HLEN big or DBSIZE."""
    if what == "hash":
        head, key_prefix = [b"HSET", b"big"], b"f"
    else:
        head, key_prefix = [b"MSET"], b"key:"
    added = 0
    step = PAIRS_PER_COMMAND * COMMANDS_PER_SEND
    for first in range(0, n, step):
        commands = [pairs_command(head, i, min(PAIRS_PER_COMMAND, n - i), key_prefix, b"v")
                    for i in range(first, min(n, first + step), PAIRS_PER_COMMAND)]
        replies = conn.pipeline(commands)
        if what == "hash":
            added += sum(int(r[1:]) for r in replies)
        elif any(r != b"+OK" for r in replies):
            raise RuntimeError(f"MSET answered {replies[0]!r}")
    if what == "hash":
        got = conn.call("HLEN", "big")
        if added != n or got != n:
            raise RuntimeError(f"HSET added {added} fields, HLEN {got}, expected {n}")
        return got
    got = conn.call("DBSIZE")
    if got != n:
        raise RuntimeError(f"DBSIZE {got} after loading {n} keys")
    return got


def memory(conn, pid):
    info = conn.call("INFO", "memory")
    fields = dict(line.split(":", 1) for line in info.split("\r\n") if ":" in line)
    out = {"rss_bytes": rss_bytes(pid)}
    for name in ("used_memory", "used_memory_dataset", "lazyfree_pending_objects"):
        if name in fields:
            out[name] = int(fields[name])
    return out


def freed(now, base, loaded):
    """Whether what loading added is back down: no pending lazy frees, used memory within 5%
    of the growth (or SLACK_BYTES)."""
    if now.get("lazyfree_pending_objects", 0) != 0:
        return False
    for name in ("used_memory", "used_memory_dataset"):
        if name not in base:
            continue
        if now[name] > base[name] + max(USED_BACK * (loaded[name] - base[name]), SLACK_BYTES):
            return False
    return True


def pinger(port, stop, results, max_seconds):
    """PING every ~1 ms until stopped (or max_seconds); sends back (start, round trip) pairs."""
    samples = array.array("d")
    sock = socket.create_connection(("127.0.0.1", port), timeout=max_seconds)
    end = time.monotonic() + max_seconds
    max_samples = int(max_seconds * 2000)
    while not stop.is_set() and time.monotonic() < end and len(samples) < 2 * max_samples:
        start = time.monotonic()
        sock.sendall(b"PING\r\n")
        got = b""
        while not got.endswith(b"\r\n"):
            chunk = sock.recv(64)
            if not chunk:
                raise ConnectionError("server closed the PING connection")
            got += chunk
        samples.extend((start, time.monotonic() - start))
        time.sleep(0.001)
    sock.close()
    results.send_bytes(samples.tobytes())


def stop_pinger_and_server(stop, ping_proc, proc):
    """Ends the pinger process (given time to finish, then terminated) and stops the server:
    only the processes the script started."""
    stop.set()
    if ping_proc is not None and ping_proc.is_alive():
        ping_proc.join(timeout=10)
        if ping_proc.is_alive():
            ping_proc.terminate()
            ping_proc.join()
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def percentile(values, p):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, -(-len(ordered) * p // 100) - 1)]


def ping_stats(samples, start, end, within=False):
    """Round trips (ms) of the PINGs in flight at any time in [start, end), or with `within`
    only of those that started and ended in it."""
    if within:
        rtts = [rtt * 1000 for t, rtt in samples if t >= start and t + rtt < end]
    else:
        rtts = [rtt * 1000 for t, rtt in samples if t < end and t + rtt > start]
    return {"count": len(rtts), "p50_ms": percentile(rtts, 50), "p99_ms": percentile(rtts, 99),
            "max_ms": max(rtts) if rtts else None}


def run(name, argv, scenario, n, args):
    what, command, want = SCENARIOS[scenario]
    port = free_port()
    pin = ["taskset", "-c", str(SERVER_CORE)] if args.pin else []
    proc = subprocess.Popen(pin + argv(port), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    ping_proc = None
    stop = multiprocessing.Event()
    try:
        conn = Client(port, timeout_s=FREE_TIMEOUT_S)
        conn.call("PING")
        base = memory(conn, proc.pid)
        t0 = time.monotonic()
        load(conn, what, n)
        load_s = time.monotonic() - t0
        time.sleep(1.0)  # lets the rehash that loading started move on before the clock runs
        loaded = memory(conn, proc.pid)

        receive, send = multiprocessing.Pipe(duplex=False)
        window_s = IDLE_WINDOW_S + args.rss_wait + FREE_TIMEOUT_S
        ping_proc = multiprocessing.Process(target=pinger, args=(port, stop, send, window_s))
        ping_proc.start()
        send.close()  # so that a PING process that dies ends recv_bytes below
        time.sleep(IDLE_WINDOW_S + 0.1)
        sched_before = schedstat_ns(proc.pid)
        t_cmd = time.monotonic()
        reply = conn.call(*command)
        t_reply = time.monotonic()
        if reply != want:
            raise RuntimeError(f"{' '.join(command)} answered {reply!r}")
        left = conn.call("DBSIZE")
        if left != 0:
            raise RuntimeError(f"{left} keys left after {' '.join(command)}")

        t_freed = t_rss = None
        now = loaded
        rss_limit = base["rss_bytes"] + max(RSS_BACK * (loaded["rss_bytes"] - base["rss_bytes"]),
                                            SLACK_BYTES)
        while True:
            t = time.monotonic()
            now = memory(conn, proc.pid)
            if t_freed is None and freed(now, base, loaded):
                t_freed = t
                sched_freed = schedstat_ns(proc.pid)
            if t_rss is None and now["rss_bytes"] <= rss_limit:
                t_rss = t
            if t_freed is not None and (t_rss is not None or t - t_cmd > args.rss_wait):
                break
            if t - t_cmd > args.rss_wait + FREE_TIMEOUT_S:
                raise RuntimeError(f"{name}: memory not back {t - t_cmd:.0f} s after "
                                   f"{' '.join(command)}: {now}")
            time.sleep(POLL_S)
        t_end = time.monotonic()
        stop.set()
        samples_raw = array.array("d", receive.recv_bytes())
        ping_proc.join(timeout=10)
        samples = list(zip(samples_raw[0::2], samples_raw[1::2]))
    finally:
        stop_pinger_and_server(stop, ping_proc, proc)

    t_done = max(t_freed, t_reply)
    freeing = ping_stats(samples, t_cmd, t_done)
    idle = ping_stats(samples, t_cmd - IDLE_WINDOW_S, t_cmd, within=True)
    result = {
        "items": n, "load_s": load_s, "reply_ms": (t_reply - t_cmd) * 1000,
        "freed_s": t_freed - t_cmd,
        "rss_back_s": (t_rss - t_cmd) if t_rss is not None else None,
        "rss_left_bytes": max(0, now["rss_bytes"] - base["rss_bytes"]),
        "observed_s": t_end - t_cmd,
        "ping_freeing": freeing, "ping_idle": idle,
        # The server's CPU time while freeing, and how long it sat runnable waiting for a core
        # held by something else: a PING can wait that long too, whatever the server does.
        "cpu_ms": (sched_freed[0] - sched_before[0]) / 1e6,
        "runqueue_wait_ms": (sched_freed[1] - sched_before[1]) / 1e6,
        "ping_after_max_ms": ping_stats(samples, t_done, float("inf"), within=True)["max_ms"],
        "memory_base": base, "memory_loaded": loaded, "memory_end": now,
    }
    print(f"{scenario} {name}: {n:,} {'fields' if what == 'hash' else 'keys'} loaded in "
          f"{load_s:.1f} s, RSS {base['rss_bytes'] / 1e6:.0f} -> "
          f"{loaded['rss_bytes'] / 1e6:.0f} MB; reply {result['reply_ms']:.1f} ms, freed after "
          f"{result['freed_s']:.2f} s, PING p50 {fmt_ms(freeing['p50_ms'])} p99 "
          f"{fmt_ms(freeing['p99_ms'])} max {fmt_ms(freeing['max_ms'])} ({freeing['count']} "
          f"PINGs; idle before: p99 {fmt_ms(idle['p99_ms'])} max {fmt_ms(idle['max_ms'])}); "
          f"server CPU {result['cpu_ms']:.0f} ms, waited for a core "
          f"{result['runqueue_wait_ms']:.0f} ms", flush=True)
    return result


def fmt_ms(v):
    return "—" if v is None else f"{v:.1f} ms"


def table(results, args):
    rows = [("scenario", "server", "reply", "freed after", "PING p50 / p99 / max freeing (n)",
             "PING p99 / max idle", "PING max after", "RSS back after", "run-queue wait",
             f"<{TARGET_MS:g} ms")]
    for scenario, by_server in results.items():
        what, command, _ = SCENARIOS[scenario]
        label = (f"{' '.join(command)}, {args.fields:,}-field hash" if what == "hash"
                 else f"{' '.join(command)}, {args.keys:,} keys")
        for name, r in by_server.items():
            p = r["ping_freeing"]
            rss = (f"{r['rss_back_s']:.1f} s" if r["rss_back_s"] is not None
                   else f">{args.rss_wait:g} s ({r['rss_left_bytes'] / 1e6:.0f} MB held)")
            ok = p["max_ms"] is not None and p["max_ms"] < TARGET_MS and p["p99_ms"] < TARGET_MS
            i = r["ping_idle"]
            rows.append((label, name, f"{r['reply_ms']:.1f} ms", f"{r['freed_s']:.2f} s",
                         f"{fmt_ms(p['p50_ms'])} / {fmt_ms(p['p99_ms'])} / "
                         f"{fmt_ms(p['max_ms'])} ({p['count']})",
                         f"{fmt_ms(i['p99_ms'])} / {fmt_ms(i['max_ms'])}",
                         fmt_ms(r["ping_after_max_ms"]), rss, fmt_ms(r["runqueue_wait_ms"]),
                         ("met" if ok else "not met") if name == "warden" else ""))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("warden")
    ap.add_argument("--redis", default="redis-server")
    ap.add_argument("--fields", type=int, default=10_000_000, help="fields of the hash")
    ap.add_argument("--keys", type=int, default=10_000_000, help="keys for FLUSHALL")
    ap.add_argument("--scenarios", nargs="+", choices=list(SCENARIOS),
                    default=["del", "unlink", "flushall", "flushall-async"])
    ap.add_argument("--rss-wait", type=float, default=30,
                    help="seconds after the command to wait for RSS to come back down")
    ap.add_argument("--no-pin", dest="pin", action="store_false",
                    help="do not pin the servers to core 0 and this script to core 1")
    ap.add_argument("--json", action="store_true", help="print one JSON object; text to stderr")
    args = ap.parse_args()
    # A plain SIGTERM would skip the finally blocks that stop the servers.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.json:
        sys.stdout = sys.stderr
    if args.pin:
        os.sched_setaffinity(0, {CLIENT_CORE})  # the PING process inherits it
    servers = {
        "warden": lambda port: [args.warden, "--port", str(port), "--save", ""],
        "redis": lambda port: [args.redis, "--port", str(port), "--save", "", "--appendonly",
                               "no"],
    }
    results = {}
    for scenario in args.scenarios:
        n = args.fields if SCENARIOS[scenario][0] == "hash" else args.keys
        results[scenario] = {name: run(name, argv, scenario, n, args)
                             for name, argv in servers.items()}
    print()
    print(table(results, args))
    if args.json:
        print(json.dumps({"fields": args.fields, "keys": args.keys, "pinned": args.pin,
                          "rss_wait_s": args.rss_wait, "target_ms": TARGET_MS,
                          "scenarios": results}), file=sys.__stdout__)


if __name__ == "__main__":
    main()
