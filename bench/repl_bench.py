#!/usr/bin/env python3
"""Replication side by side (issue 35): the lock cycle on a master with two replicas (the
master's CPU per request, the replicas' lag), a full sync of a loaded master (its time, the
master's worst PING meanwhile; diskless and on disk) and a long full-rate lock cycle (does the
replica lag stay bounded), for warden and redis-server 7.0, each replicating to its own kind.
    bench/repl_bench.py build/warden [--redis redis-server] [--keys 10000000]
        [--requests 1000000] [--duration 60] [--connections 50] [--rounds 1]
        [--sections cycle,sync,keepup] [--sync-modes diskless,disk] [--check 200]
        [--replica-core 0] [--master-args "--hz 100"] [--lockcycle PATH] [--tmp DIR] [--keep]
        [--commit SHA] [--json]

Every server runs with `--save ""`, `--appendonly no`, its own --dir and a --logfile there; a
master also with `--repl-diskless-sync-delay 0`, a replica with `--replicaof 127.0.0.1 <the
master's port>` (and nothing else: the defaults of its kind). Servers, replicas included, are
pinned to core 0 (--replica-core moves the replicas), this script and its clients to core 1.
Only the processes this script started are stopped, by their pid.

cycle   A fresh master and two replicas of the same kind, both replicas synced (the master lists
        both online, and a write made then has reached both: Redis's master starts a diskless
        replica's stream at its first ACK after the sync's child is seen to end, which can be
        its periodic ACK a second later; the time is reported). bench/lockcycle (acquire `SET
        lock:<seed>:<conn>:<n> <token> NX PX 30000`, extend and release by EVALSHA
        compare-and-pexpire / compare-and-delete; --connections, one request in flight each)
        runs --requests requests against the master. The master's CPU per request: the time
        on CPU of all its threads from /proc/PID/task/*/schedstat over the run, divided by
        lockcycle's request count (it includes the ~300 INFO and PUBLISH a second of the
        sampling below, under 1% of either server's CPU; the replicas' likewise, for
        reference), and its run-queue wait (schedstat's second field: time runnable but not on
        core 0, which it shares with its replicas and whatever else runs there). Meanwhile,
        from core 1:
          byte lag  every 10 ms, INFO replication of the master (master_repl_offset), then of
                    each replica (slave_repl_offset: what it has applied), then of the master
                    again; a replica's lag is the mean of the two master offsets minus its
                    offset. The two readings bound the master's offset at the moment the
                    replica's was read, so the figure is within +-half their difference
                    (reported) of the true lag at that moment. Bytes behind grow with the
                    stream's rate, i.e. with the server's throughput, so the p99 is also
                    given divided by the run's stream rate (a lag in time).
          time lag  every 10 ms, `PUBLISH <channel> "<seq> <CLOCK_MONOTONIC ns>"` on the
                    master; one process per replica is subscribed to the channel on that
                    replica and takes the same clock when the message arrives. PUBLISH goes
                    into the replication stream in order with the writes (Redis 7.0 propagates
                    it to replicas; so does warden), and a replica delivers it to its
                    subscribers when it applies it, so arrival minus the time in the message is
                    how long after a client sends a write the replica has applied it: the
                    master's queue, its propagation, the replica's read and apply. Push, no
                    polling: a replica is not made busier to be measured. (A marker key
                    polled with GET on a replica would measure the same with the polling
                    period's error, and the polling on core 0.) The PUBLISH round trip on the
                    master is reported beside it, for the part that is the master's queue.
        The samples taken while lockcycle runs count; after it, the time until both replicas'
        offsets reach the master's (catch-up), and both replicas' DBSIZE against the master's.
        A server that leaves a sampler's request unanswered for 10 s, or a lockcycle that has
        not ended 120 s after it should have, is reported as a stall instead of hanging.
        Targets: the master's CPU per request at most 0.8x Redis's; warden's time lag p99 no
        worse than Redis's.
sync    A fresh master loaded with --keys locks (rdb_bench.py's locks: `SET lock:<uuid> <uuid
        token> PX 2592000000`, a seeded generator, `redis-cli --pipe` from core 1). For each of
        --sync-modes (`CONFIG SET repl-diskless-sync yes`, then `no`: the master forks, writes
        its dump file and sends it): sync(2); a separate process PINGs the master in a tight
        loop from core 1 (one in flight) from 1 s before; one replica is spawned with
        --replicaof, and the time from spawn until its INFO replication says
        master_link_status:up and master_sync_in_progress:0 and its DBSIZE equals the master's
        (polled every 10 ms) is the sync's time. The PINGs in flight in that interval give the
        worst / p99 / p50; also the master's latest_fork_usec, and the replica log's phases
        ("sync started" to "Flushing old data": the RDB's making and transfer; "Loading DB in
        memory" to "Finished with success": the load). Then --check random keys (RANDOMKEY on
        the master) read the same from the replica, and the replica is stopped.
        Targets: the time at most 0.7x Redis's, the worst PING no worse than Redis's.
keepup  A fresh master and two replicas; lockcycle at full rate for --duration seconds; lag
        sampled as in `cycle` (every 10 ms, kept as each second's maximum). Reported: the
        maximum byte and time lags, the maxima of the first and the last window (10 s, or a
        third of the run if shorter) and whether the lag stayed bounded: the replicas caught up
        within 5 s of the load's end and the last window's maximum byte lag is at most twice
        the first's (or under 1 MB, a replica that falls behind grows by MBs a second); the
        slope of a least-squares line through the per-second maxima for reference.

Prints progress to stderr, then a markdown table of both servers' figures (medians over
--rounds for `cycle`), the ratio warden / Redis and the issue's targets, with the load average
and the share of the cores other work kept busy (/proc/stat's user, nice and system time less
this script's and its reaped children's, getrusage) in the 2 s before the run, during it and
in the 2 s after: the output says the machine was shared when that passed 5%.
"""
import argparse
import array
import json
import multiprocessing
import os
import re
import resource
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from aof_section import percentile, ping_stats, pinger, schedstat
from bench_core import find_tool, free_port
from rdb_bench import Conn, bulk_load, generate, say, uptime
from results_report import CLIENT_CORE, SERVER_CORE, SERVERS, machine, versions

SECTIONS = ("cycle", "sync", "keepup")
SYNC_MODES = ("diskless", "disk")
CHANNEL = "repl-bench-marker"
SAMPLE_S = 0.01
POLL_S = 0.01
WINDOW_S = 1.0
START_TIMEOUT_S = 120
LOCKCYCLE_GRACE_S = 120
STALL_S = 10.0  # a sampler's wait for an answer before it reports a stall
SYNC_TIMEOUT_S = 3600
CATCH_UP_TIMEOUT_S = 60
BOUNDED_CATCH_UP_S = 5.0
BOUNDED_FLOOR_BYTES = 1 << 20
MARKER_RE = re.compile(rb"\*3\r\n\$7\r\nmessage\r\n\$\d+\r\n[^\r]*\r\n\$\d+\r\n(\d+) (\d+)\r\n")
LOG_RE = re.compile(r"^\d+:[A-Z] (\d\d \w{3} \d{4} \d\d:\d\d:\d\d\.\d{3}) . (.*)$")


# --- servers --------------------------------------------------------------------------------------

class Node:
    """One server, pinned, in its own --dir; spawned once and stopped by its pid."""

    def __init__(self, name, binary, tmp, core, extra=()):
        self.name = name
        self.binary = binary
        self.dir = os.path.join(tmp, name)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.log = os.path.join(self.dir, "server.log")
        self.core = core
        self.extra = list(extra)
        self.port = free_port()
        self.proc = None
        self.conn = None

    def spawn(self):
        argv = ["taskset", "-c", self.core, self.binary, "--port", str(self.port), "--bind",
                "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", self.dir,
                "--dbfilename", "dump.rdb", "--logfile", self.log] + self.extra
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def connect(self, timeout_s=START_TIMEOUT_S):
        """Connects (retrying until the server listens); returns the connection."""
        deadline = time.monotonic() + timeout_s
        while True:
            self.check_alive()
            try:
                self.conn = Conn(self.port)
                return self.conn
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{self.name} does not listen after {timeout_s} s")
                time.sleep(0.001)

    def start(self):
        """Spawns the server and waits for +PONG."""
        self.spawn()
        self.connect()
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            got = self.conn.call("PING", raise_errors=False)
            if got == "PONG":
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.name}: PING answered {got!r}")
            time.sleep(0.01)

    def check_alive(self):
        if self.proc is not None and self.proc.poll() is not None:
            raise RuntimeError(f"{self.name} exited ({self.proc.returncode}); see {self.log}")

    def pid(self):
        return self.proc.pid

    def cpu_ns(self):
        return schedstat(self.proc.pid)[0]

    def rss_bytes(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    def stop(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def log_lines(self):
        """(wall-clock seconds, message) of each line of its log."""
        out = []
        try:
            with open(self.log, errors="replace") as f:
                for line in f:
                    m = LOG_RE.match(line.rstrip("\n"))
                    if m:
                        t = time.mktime(time.strptime(m.group(1)[:-4], "%d %b %Y %H:%M:%S"))
                        out.append((t + int(m.group(1)[-3:]) / 1000, m.group(2)))
        except FileNotFoundError:
            pass
        return out


def offset(conn, field):
    return int(conn.info("replication")[field])


def replica_synced(conn):
    info = conn.info("replication")
    return (info.get("master_link_status") == "up" and info.get("master_sync_in_progress") == "0")


MASTER_ARGS = []  # --master-args: more options for both masters


def start_master(name, binary, tmp, tag):
    master = Node(f"{tag}-{name}-master", binary, tmp, SERVER_CORE,
                  ["--repl-diskless-sync-delay", "0"] + MASTER_ARGS)
    master.start()
    return master


def start_replica(name, binary, tmp, tag, i, master, core):
    return Node(f"{tag}-{name}-replica{i}", binary, tmp, core,
                ["--replicaof", "127.0.0.1", str(master.port)])


def start_trio(name, binary, tmp, tag, core):
    """A master and two replicas of it, both synced and listed online by the master."""
    nodes = [start_master(name, binary, tmp, tag)]
    try:
        for i in (1, 2):
            replica = start_replica(name, binary, tmp, tag, i, nodes[0], core)
            nodes.append(replica)
            replica.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            info = nodes[0].conn.info("replication")
            online = [k for k, v in info.items() if k.startswith("slave") and "state=online" in v]
            if len(online) == 2 and all(replica_synced(r.conn) for r in nodes[1:]):
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"{name}: replicas not online after {START_TIMEOUT_S} s: "
                                   f"{info}")
            for n in nodes:
                n.check_alive()
            time.sleep(0.01)
        # Online is not yet streaming: after a diskless sync Redis's master starts a replica's
        # stream at its first ACK after the child is seen to end, up to a second later (its
        # periodic ACK). A write, then both replicas at the master's offset.
        nodes[0].conn.call("SET", "repl-bench:settle", "1")
        nodes[0].conn.call("DEL", "repl-bench:settle")
        nodes[0].settle_s = wait_caught_up(nodes[0], nodes[1:], START_TIMEOUT_S)
        if nodes[0].settle_s is None:
            raise RuntimeError(f"{name}: the replicas did not apply a write in "
                               f"{START_TIMEOUT_S} s after their sync")
    except BaseException:
        for n in nodes:
            n.stop()
        raise
    return nodes


# --- the lag samplers (processes on the client core) ----------------------------------------------

def lag_sampler(master_port, replica_ports, stop, results, period_s):
    """Every period_s: a marker PUBLISH on the master (seq, send time, reply time) and the
    offsets (time, master before, each replica, master after). A server that does not answer
    in STALL_S ends the sampling; the error is sent back with what was sampled."""
    os.sched_setaffinity(0, {int(CLIENT_CORE)})
    pub, info = Conn(master_port, STALL_S), Conn(master_port, STALL_S)
    replicas = [Conn(p, STALL_S) for p in replica_ports]
    markers, rows = array.array("d"), array.array("d")
    seq = 0
    error = ""
    next_t = time.monotonic()
    try:
        while not stop.is_set():
            t_send = time.monotonic()
            what = "the master's answer to the marker PUBLISH"
            pub.call("PUBLISH", CHANNEL, f"{seq} {time.monotonic_ns()}")
            markers.extend((seq, t_send, time.monotonic()))
            seq += 1
            t = time.monotonic()
            what = "INFO replication"
            m1 = offset(info, "master_repl_offset")
            rs = [offset(r, "slave_repl_offset") for r in replicas]
            m2 = offset(info, "master_repl_offset")
            rows.extend([t, m1] + rs + [m2])
            next_t += period_s
            now = time.monotonic()
            if next_t > now:
                time.sleep(next_t - now)
            else:
                next_t = now
    except (OSError, RuntimeError) as e:
        # A timeout (nothing for STALL_S), a closed connection or an error reply.
        error = f"stopped at marker {seq} waiting for {what}: {type(e).__name__}: {e}"
    results.send_bytes(markers.tobytes())
    results.send_bytes(rows.tobytes())
    results.send_bytes(error.encode())


def subscriber(port, stop, ready, results):
    """Subscribed to the marker channel on a replica; sends back (seq, arrival time, lag ns)."""
    os.sched_setaffinity(0, {int(CLIENT_CORE)})
    conn = Conn(port)
    reply = conn.call("SUBSCRIBE", CHANNEL)
    if reply != ["subscribe", CHANNEL, 1]:
        raise RuntimeError(f"SUBSCRIBE answered {reply!r}")
    sock = conn.sock
    sock.settimeout(0.05)
    buf = conn.buf
    ready.set()
    got = array.array("d")
    while not stop.is_set():
        try:
            data = sock.recv(1 << 16)
        except TimeoutError:
            continue
        now_ns = time.monotonic_ns()
        if not data:
            raise ConnectionError("the replica closed the subscriber's connection")
        buf += data
        while True:
            m = MARKER_RE.match(buf)
            if m is None:
                break
            got.extend((int(m.group(1)), now_ns / 1e9, now_ns - int(m.group(2))))
            buf = buf[m.end():]
    results.send_bytes(got.tobytes())


class Samplers:
    """The lag sampler and one subscriber per replica, started and stopped together."""

    def __init__(self, master, replicas, period_s=SAMPLE_S):
        self.stop_event = multiprocessing.Event()
        self.procs = []
        self.error = ""
        self.pipes = []
        readies = []
        for r in replicas:
            ready = multiprocessing.Event()
            receive, send = multiprocessing.Pipe(duplex=False)
            p = multiprocessing.Process(target=subscriber,
                                        args=(r.port, self.stop_event, ready, send))
            p.start()
            send.close()
            self.procs.append(p)
            self.pipes.append(receive)
            readies.append(ready)
        for ready in readies:
            if not ready.wait(10):
                self.finish()
                raise RuntimeError("a subscriber did not subscribe in 10 s")
        receive, send = multiprocessing.Pipe(duplex=False)
        p = multiprocessing.Process(target=lag_sampler, args=(
            master.port, [r.port for r in replicas], self.stop_event, send, period_s))
        p.start()
        send.close()
        self.procs.append(p)
        self.pipes.append(receive)

    def finish(self):
        """Stops them; returns (markers, offset rows, [arrivals per replica])."""
        time.sleep(0.1)  # the last markers' way to the subscribers
        self.stop_event.set()
        try:
            arrivals = [array.array("d", p.recv_bytes()) for p in self.pipes[:-1]]
            markers = array.array("d", self.pipes[-1].recv_bytes())
            rows = array.array("d", self.pipes[-1].recv_bytes())
            self.error = self.pipes[-1].recv_bytes().decode()
        except EOFError:
            raise RuntimeError("a lag sampler failed (see its traceback above)")
        finally:
            for p in self.procs:
                p.join(timeout=30)
                if p.is_alive():
                    p.terminate()
                    p.join()
        return markers, rows, arrivals


def lag_samples(samples, t0, t1, n_replicas):
    """From Samplers.finish()'s figures, the samples taken in [t0, t1): byte lags (time, lag,
    half-uncertainty) over all replicas, marker lags (time sent, lag s) over all replicas,
    PUBLISH round trips, and the markers sent and received per replica."""
    markers, rows, arrivals = samples
    width = 3 + n_replicas
    byte_lags = []
    for i in range(0, len(rows), width):
        t, m1, *rs, m2 = rows[i:i + width]
        if t0 <= t < t1:
            for r in rs:
                byte_lags.append((t - t0, (m1 + m2) / 2 - r, (m2 - m1) / 2))
    sent = {}
    rtts = []
    for i in range(0, len(markers), 3):
        seq, t_send, t_reply = markers[i:i + 3]
        if t0 <= t_send < t1:
            sent[int(seq)] = t_send
            rtts.append(t_reply - t_send)
    time_lags, received = [], []
    for got in arrivals:
        n = 0
        for i in range(0, len(got), 3):
            seq, _, lag_ns = got[i:i + 3]
            if int(seq) in sent:
                time_lags.append((sent[int(seq)] - t0, lag_ns / 1e9))
                n += 1
        received.append(n)
    return {"byte": byte_lags, "time": time_lags, "publish_rtt": rtts, "markers_sent": len(sent),
            "markers_received": received}


def dist(values, scale=1.0):
    ordered = sorted(v * scale for v in values)
    return {"count": len(ordered), "p50": percentile(ordered, 50), "p99": percentile(ordered, 99),
            "max": ordered[-1] if ordered else None}


def wait_caught_up(master, replicas, timeout_s=CATCH_UP_TIMEOUT_S):
    """Seconds until every replica has applied the master's offset (read first), or None."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout_s:
        m = offset(master.conn, "master_repl_offset")
        if all(offset(r.conn, "slave_repl_offset") >= m for r in replicas):
            return time.monotonic() - t0
        time.sleep(0.001)
    return None


def run_lockcycle(binary, master, connections, seed, requests=None, seconds=None):
    """bench/lockcycle on the client core against the master; its JSON line. A run that has
    not ended LOCKCYCLE_GRACE_S after it should have (a request never answered) is stopped and
    reported."""
    argv = ["taskset", "-c", CLIENT_CORE, binary, "--port", str(master.port), "--connections",
            str(connections), "--seed", str(seed)]
    argv += ["--requests", str(requests)] if requests else ["--duration", str(seconds)]
    limit = (requests / 2000 if requests else seconds) + LOCKCYCLE_GRACE_S
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"{master.name}: lockcycle still running after {limit:.0f} s (a "
                           f"request never answered?): {shlex.join(argv)}")
    # lockcycle exits 1 after unexpected replies; they are reported.
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{shlex.join(argv)} failed ({done.returncode}): "
                           f"{done.stderr.strip() or done.stdout.strip()}")
    return json.loads(done.stdout)


def cycle_under_replication(nodes, binary, args, seed, requests=None, seconds=None):
    """lockcycle against the master of nodes with the samplers running; its figures."""
    master, replicas = nodes[0], nodes[1:]
    samplers = Samplers(master, replicas)
    try:
        time.sleep(0.5)
        wait0 = schedstat(master.pid())[1]
        cpu0 = [n.cpu_ns() for n in nodes]
        off0 = offset(master.conn, "master_repl_offset")
        t0 = time.monotonic()
        lc = run_lockcycle(binary, master, args.connections, seed, requests, seconds)
        t1 = time.monotonic()
        cpu1 = [n.cpu_ns() for n in nodes]
        wait1 = schedstat(master.pid())[1]
        off1 = offset(master.conn, "master_repl_offset")
        catch_up = wait_caught_up(master, replicas)
    finally:
        samples = samplers.finish()
    if samplers.error:
        say(f"{master.name}: the lag sampler stopped: {samplers.error}")
    lags = lag_samples(samples, t0, t1, len(replicas))
    ops = lc["ops"]
    dbsize = [n.conn.call("DBSIZE") for n in nodes]
    return {
        "requests": ops, "seconds": t1 - t0, "ops_per_sec": lc["ops_per_sec"],
        "p50_us": lc["p50_us"], "p99_us": lc["p99_us"], "unexpected": lc["unexpected"],
        "master_cpu_us_per_req": (cpu1[0] - cpu0[0]) / 1000 / ops,
        "master_runqueue_wait_s": (wait1 - wait0) / 1e9,
        "replica_cpu_us_per_req": [(b - a) / 1000 / ops for a, b in zip(cpu0[1:], cpu1[1:])],
        "stream_bytes_per_req": (off1 - off0) / ops,
        "byte_lag": dist(l for _, l, _ in lags["byte"]),
        "byte_lag_uncertainty_p50": percentile(sorted(u for _, _, u in lags["byte"]), 50),
        "time_lag_ms": dist((l for _, l in lags["time"]), 1000),
        "publish_rtt_ms": dist(lags["publish_rtt"], 1000),
        "markers_sent": lags["markers_sent"], "markers_received": lags["markers_received"],
        "catch_up_s": catch_up, "dbsize": dbsize, "sampler_error": samplers.error,
        "replica_offsets_end": [offset(r.conn, "slave_repl_offset") for r in replicas],
        "master_offset_end": offset(master.conn, "master_repl_offset"),
        "settle_s": getattr(master, "settle_s", None), "lags": lags}


# --- the sections ---------------------------------------------------------------------------------

def cycle_section(args, binaries, tmp, lockcycle_bin, out):
    runs = {s: [] for s in SERVERS}
    for r in range(args.rounds):
        for name in (SERVERS if r % 2 == 0 else SERVERS[::-1]):
            nodes = start_trio(name, binaries[name], tmp, "cycle", args.replica_core)
            try:
                res = cycle_under_replication(nodes, lockcycle_bin, args, r + 1,
                                              requests=args.requests)
            finally:
                for n in nodes:
                    n.stop()
            del res["lags"]
            runs[name].append(res)
            say(f"cycle {name} round {r + 1}: {res['requests']:,} requests, "
                f"{res['ops_per_sec'] / 1000:.0f}k/s, master {res['master_cpu_us_per_req']:.2f} "
                f"us/req (run-queue wait {res['master_runqueue_wait_s']:.2f} s), replicas "
                + " / ".join(f"{x:.2f}" for x in res["replica_cpu_us_per_req"])
                + f" us/req, stream {res['stream_bytes_per_req']:.1f} B/req; byte lag "
                f"p50/p99/max {fmt_dist(res['byte_lag'], '{:,.0f}')} B "
                f"(+-{res['byte_lag_uncertainty_p50']:,.0f}), time lag "
                f"{fmt_dist(res['time_lag_ms'], '{:.2f}')} ms, PUBLISH rtt "
                f"{fmt_dist(res['publish_rtt_ms'], '{:.2f}')} ms; markers "
                f"{res['markers_sent']} sent, {res['markers_received']} received; catch-up "
                f"{fmt_s(res['catch_up_s'])}; settle after the initial sync "
                f"{fmt_s(res['settle_s'])}; DBSIZE {res['dbsize']}; unexpected "
                f"{res['unexpected']}")
    out["cycle"] = runs


def keepup_section(args, binaries, tmp, lockcycle_bin, out):
    result = {}
    for name in SERVERS:
        nodes = start_trio(name, binaries[name], tmp, "keepup", args.replica_core)
        try:
            res = cycle_under_replication(nodes, lockcycle_bin, args, 100,
                                          seconds=args.duration)
        finally:
            for n in nodes:
                n.stop()
        lags = res.pop("lags")
        span = res["seconds"]
        window = min(10.0, span / 3)
        per_s_bytes, per_s_time = {}, {}
        for t, lag, _ in lags["byte"]:
            per_s_bytes[int(t)] = max(per_s_bytes.get(int(t), 0), lag)
        for t, lag in lags["time"]:
            per_s_time[int(t)] = max(per_s_time.get(int(t), 0), lag * 1000)

        def window_max(pairs, lo, hi):
            vals = [lag for t, lag, *_ in pairs if lo <= t < hi]
            return max(vals) if vals else None
        res["window_s"] = window
        res["byte_first"] = window_max(lags["byte"], 0, window)
        res["byte_last"] = window_max(lags["byte"], span - window, span)
        res["time_first_ms"] = (window_max(lags["time"], 0, window) or 0) * 1000
        res["time_last_ms"] = (window_max(lags["time"], span - window, span) or 0) * 1000
        res["per_second_max_bytes"] = [per_s_bytes.get(s) for s in range(int(span) + 1)]
        res["per_second_max_time_ms"] = [per_s_time.get(s) for s in range(int(span) + 1)]
        res["slope_bytes_per_s"] = slope([(s, v) for s, v in per_s_bytes.items()])
        res["bounded"] = bool(
            res["catch_up_s"] is not None and res["catch_up_s"] <= BOUNDED_CATCH_UP_S and
            res["byte_first"] is not None and res["byte_last"] is not None and
            (res["byte_last"] <= 2 * max(res["byte_first"], 0) or
             res["byte_last"] < BOUNDED_FLOOR_BYTES))
        result[name] = res
        say(f"keepup {name}: {res['seconds']:.1f} s, {res['ops_per_sec'] / 1000:.0f}k/s, master "
            f"{res['master_cpu_us_per_req']:.2f} us/req; byte lag max {res['byte_lag']['max']:,.0f}"
            f" B (first {window:.0f} s {res['byte_first']:,.0f}, last {res['byte_last']:,.0f}), "
            f"time lag max {res['time_lag_ms']['max']:.2f} ms (first {res['time_first_ms']:.2f}, "
            f"last {res['time_last_ms']:.2f}); slope {res['slope_bytes_per_s']:,.0f} B/s; "
            f"catch-up {fmt_s(res['catch_up_s'])}; markers {res['markers_sent']} sent, "
            f"{res['markers_received']} received; bounded {res['bounded']}; DBSIZE "
            f"{res['dbsize']}; unexpected {res['unexpected']}")
        say(f"keepup {name}: per-second max byte lag: "
            + " ".join("-" if v is None else f"{v / 1000:.0f}k"
                       for v in res["per_second_max_bytes"]))
    out["keepup"] = result


def slope(points):
    if len(points) < 2:
        return 0.0
    mx = statistics.fmean(x for x, _ in points)
    my = statistics.fmean(y for _, y in points)
    den = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / den if den else 0.0


def sync_once(name, binary, tmp, master, mode, keys, check, core):
    master.conn.call("CONFIG", "SET", "repl-diskless-sync", "yes" if mode == "diskless" else "no")
    os.sync()
    stop = multiprocessing.Event()
    receive, send = multiprocessing.Pipe(duplex=False)
    proc = multiprocessing.Process(target=pinger, args=(master.port, stop, send,
                                                        SYNC_TIMEOUT_S + 10))
    proc.start()
    send.close()
    replica = Node(f"sync-{name}-replica-{mode}", binary, tmp, core,
                   ["--replicaof", "127.0.0.1", str(master.port)])
    try:
        time.sleep(WINDOW_S + 0.1)
        sched0 = schedstat(master.pid())
        t0 = time.monotonic()
        replica.spawn()
        replica.connect()
        dbsize = None
        while True:
            if time.monotonic() - t0 > SYNC_TIMEOUT_S:
                raise RuntimeError(f"{replica.name}: not synced after {SYNC_TIMEOUT_S} s")
            replica.check_alive()
            if replica_synced(replica.conn):
                dbsize = replica.conn.call("DBSIZE", raise_errors=False)
                if dbsize == keys:
                    break
            time.sleep(POLL_S)
        t_done = time.monotonic()
        sched1 = schedstat(master.pid())
        time.sleep(WINDOW_S)
        stop.set()
        raw = array.array("d", receive.recv_bytes())
        proc.join(timeout=30)
    except BaseException:
        replica.stop()
        raise
    finally:
        stop.set()
        if proc.is_alive():
            proc.join(timeout=30)
            if proc.is_alive():
                proc.terminate()
                proc.join()
    samples = list(zip(raw[0::2], raw[1::2]))
    during = sorted(((rtt, t - t0) for t, rtt in samples if t < t_done and t + rtt > t0),
                    reverse=True)[:3]
    stats = master.conn.info("stats")
    # Sample check: random keys of the master, read from the replica.
    problems = []
    for _ in range(check):
        k = master.conn.call("RANDOMKEY")
        want, got = master.conn.call("GET", k), replica.conn.call("GET", k)
        if want != got or replica.conn.call("PTTL", k) <= 0:
            problems.append(k)
    phases = sync_phases(replica.log_lines())
    res = {"sync_s": t_done - t0, "ping": ping_stats(samples, t0, t_done),
           "ping_before": ping_stats(samples, t0 - WINDOW_S, t0, within=True),
           "slowest_pings": [{"ms": rtt * 1000, "at_s": at} for rtt, at in during],
           "latest_fork_usec": int(stats.get("latest_fork_usec", -1)),
           "master_cpu_s": (sched1[0] - sched0[0]) / 1e9,
           "master_runqueue_wait_s": (sched1[1] - sched0[1]) / 1e9,
           "replica_rss_bytes": replica.rss_bytes(), "replica_cpu_s": replica.cpu_ns() / 1e9,
           "phases": phases, "check": "ok" if not problems else f"{len(problems)} differ: "
           + ", ".join(problems[:5])}
    replica.stop()
    # The master notices the replica gone before the next mode's replica comes.
    deadline = time.monotonic() + 30
    while master.conn.info("replication").get("connected_slaves") != "0":
        if time.monotonic() > deadline:
            raise RuntimeError(f"{name}: the master still lists a replica 30 s after its end")
        time.sleep(0.01)
    shutil.rmtree(replica.dir, ignore_errors=True)
    for f in os.listdir(master.dir):  # the disk sync's dump file
        if f.endswith(".rdb"):
            os.unlink(os.path.join(master.dir, f))
    p = res["ping"]
    say(f"sync {name} {mode}: {res['sync_s']:.2f} s (phases {phases}); PING p50 "
        f"{p['p50_ms']:.2f} p99 {p['p99_ms']:.2f} max {p['max_ms']:.2f} ms ({p['count']} PINGs; "
        f"max {res['ping_before']['max_ms']:.2f} ms in the 1 s before; slowest "
        + ", ".join(f"{x['ms']:.1f} ms at {x['at_s']:+.2f} s" for x in res["slowest_pings"])
        + f"); fork {res['latest_fork_usec']} us; master CPU {res['master_cpu_s']:.2f} s, "
        f"run-queue wait {res['master_runqueue_wait_s']:.2f} s; replica CPU "
        f"{res['replica_cpu_s']:.2f} s, RSS {res['replica_rss_bytes'] / 1e6:,.0f} MB; check "
        f"{res['check']}")
    return res


def sync_phases(lines):
    """Seconds from the replica log's "sync started" to "Flushing old data" (the RDB made and
    received) and from "Loading DB in memory" to "Finished with success" (the load)."""
    at = {}
    for t, msg in lines:
        for key, text in (("start", "MASTER <-> REPLICA sync started"),
                          ("flush", "MASTER <-> REPLICA sync: Flushing old data"),
                          ("load", "MASTER <-> REPLICA sync: Loading DB in memory"),
                          ("done", "MASTER <-> REPLICA sync: Finished with success")):
            if msg.startswith(text) and key not in at:
                at[key] = t
    out = {}
    if "start" in at and "flush" in at:
        out["transfer_s"] = round(at["flush"] - at["start"], 3)
    if "load" in at and "done" in at:
        out["load_s"] = round(at["done"] - at["load"], 3)
    return out


def sync_section(args, binaries, tmp, out):
    data = os.path.join(tmp, "locks.resp")
    t0 = time.monotonic()
    commands, _ = generate(data, args.keys, 0, [], 0)
    say(f"data set: {args.keys:,} locks, {os.path.getsize(data) / 1e6:,.0f} MB of RESP, "
        f"generated in {time.monotonic() - t0:.0f} s")
    result = {}
    try:
        for name in SERVERS:
            master = start_master(name, binaries[name], tmp, "sync")
            try:
                pipe_s = bulk_load(master, data, commands, args.keys)
                rss = master.rss_bytes()
                say(f"sync {name}: {args.keys:,} keys loaded by redis-cli --pipe in "
                    f"{pipe_s:.1f} s, master RSS {rss / 1e6:,.0f} MB")
                result[name] = {"pipe_s": pipe_s, "master_rss_bytes": rss}
                for mode in args.sync_modes:
                    result[name][mode] = sync_once(name, binaries[name], tmp, master, mode,
                                                   args.keys, args.check, args.replica_core)
            finally:
                master.stop()
                shutil.rmtree(master.dir, ignore_errors=True)
    finally:
        if not args.keep:
            os.unlink(data)
    out["sync"] = result


# --- the report -----------------------------------------------------------------------------------

def fmt_s(v):
    return "never" if v is None else f"{v * 1000:.1f} ms"


def fmt_ratio(v):
    if v is None:
        return ""
    return f"{v:.2f}x" if v >= 0.1 else f"{v:.2g}x"


def fmt_dist(d, f):
    return " / ".join("—" if d[k] is None else f.format(d[k]) for k in ("p50", "p99", "max"))


def table(out):
    rows = ["| measurement | warden | Redis | warden / Redis | target | |",
            "|---|---|---|---|---|---|"]

    def row(label, w, r, fmt, bound=None, bound_text=None, ratio=True):
        ratio_v = w / r if ratio and w is not None and r else None
        if bound is None:
            verdict = ""
        else:
            verdict = "met" if w is not None and r is not None and w <= bound * r else "not met"
        text = bound_text or (f"at most {bound}x" if bound is not None else "")
        rows.append(f"| {label} | {fmt(w)} | {fmt(r)} | {fmt_ratio(ratio_v)} | {text} | "
                    f"{verdict} |")

    def text_row(label, w, r):
        rows.append(f"| {label} | {w} | {r} | | | |")

    us = lambda v: "—" if v is None else f"{v:.2f} us"  # noqa: E731
    ms = lambda v: "—" if v is None else f"{v:.2f} ms"  # noqa: E731
    sec = lambda v: "—" if v is None else f"{v:.2f} s"  # noqa: E731
    byt = lambda v: "—" if v is None else f"{v:,.0f} B"  # noqa: E731
    kops = lambda v: "—" if v is None else f"{v / 1000:,.1f}k"  # noqa: E731

    if "cycle" in out:
        c = out["cycle"]
        n = len(c["warden"])
        med = f" (median of {n})" if n > 1 else ""

        def m(name, key, sub=None):
            vals = [x[key] if sub is None else x[key][sub] for x in c[name]]
            vals = [v for v in vals if v is not None]
            return statistics.median(vals) if vals else None
        req = c["warden"][0]["requests"]
        row(f"**lock cycle, master + 2 replicas** ({req:,} requests): the master's CPU per "
            f"request{med}", m("warden", "master_cpu_us_per_req"),
            m("redis", "master_cpu_us_per_req"), us, 0.8)
        row("the replicas' CPU per request (each, mean of the two)",
            *(statistics.median(statistics.fmean(x["replica_cpu_us_per_req"]) for x in c[s])
              for s in SERVERS), us)
        row("lock cycle throughput, requests/s (for reference)", m("warden", "ops_per_sec"),
            m("redis", "ops_per_sec"), kops)
        row("replication stream per request (master_repl_offset)",
            m("warden", "stream_bytes_per_req"), m("redis", "stream_bytes_per_req"),
            lambda v: "—" if v is None else f"{v:.1f} B")
        rounds = " (medians of the rounds' p50 and p99, the worst max)" if n > 1 else ""

        def over_rounds(name, key, f):
            d = {k: m(name, key, k) for k in ("p50", "p99")}
            d["max"] = max(x[key]["max"] for x in c[name] if x[key]["max"] is not None)
            return fmt_dist(d, f)
        text_row(f"byte lag p50 / p99 / max, 10 ms samples, both replicas{rounds}; +- the "
                 "sampling's uncertainty (median)",
                 *(over_rounds(s, "byte_lag", "{:,.0f}") + " B; +-" +
                   f"{m(s, 'byte_lag_uncertainty_p50'):,.0f} B" for s in SERVERS))
        # Bytes behind scale with the stream's rate, which differs with each server's
        # throughput: the p99 divided by the run's stream rate is the same lag in time.
        rate = {s: m(s, "stream_bytes_per_req") * m(s, "ops_per_sec") for s in SERVERS}
        row("byte lag p99 / the stream's rate (bytes per second of stream)",
            *(m(s, "byte_lag", "p99") / rate[s] * 1000 if rate[s] else None for s in SERVERS),
            ms)
        row("time lag p99: marker PUBLISH sent on the master to its arrival from a replica",
            m("warden", "time_lag_ms", "p99"), m("redis", "time_lag_ms", "p99"), ms, 1.0,
            "at most Redis's")
        text_row(f"time lag p50 / p99 / max{rounds}",
                 *(over_rounds(s, "time_lag_ms", "{:.2f}") + " ms" for s in SERVERS))
        text_row(f"the marker PUBLISH's round trip on the master, p50 / p99 / max{rounds}",
                 *(over_rounds(s, "publish_rtt_ms", "{:.2f}") + " ms" for s in SERVERS))
        text_row("the master's run-queue wait during the run (its core shared with the "
                 "replicas and anything else on core " + SERVER_CORE + "), each round",
                 *(" / ".join(f"{x['master_runqueue_wait_s']:.2f} s" for x in c[s])
                   for s in SERVERS))
        text_row("markers sent / received by each replica (all rounds)",
                 *(f"{sum(x['markers_sent'] for x in c[s]):,} / " + " + ".join(
                     f"{sum(x['markers_received'][i] for x in c[s]):,}"
                     for i in range(len(c[s][0]["markers_received"]))) for s in SERVERS))
        row("catch-up after the last request", m("warden", "catch_up_s"), m("redis", "catch_up_s"),
            lambda v: "—" if v is None else f"{v * 1000:.1f} ms", ratio=False)
        text_row("before the run: a write just after both replicas were listed online, applied "
                 "by both after (worst of the rounds)",
                 *(fmt_s(max((x["settle_s"] for x in c[s] if x["settle_s"] is not None),
                             default=None)) for s in SERVERS))
        text_row("DBSIZE master / replicas after (last round); unexpected replies (all)",
                 *(f"{c[s][-1]['dbsize']}; {sum(x['unexpected'] for x in c[s])}"
                   for s in SERVERS))
    if "sync" in out:
        s = out["sync"]
        w, r = s["warden"], s["redis"]
        for mode in [k for k in SYNC_MODES if k in w]:
            what = ("diskless (`repl-diskless-sync yes`)" if mode == "diskless"
                    else "on disk (`repl-diskless-sync no`)")
            row(f"**full sync of {out['keys']:,} locks, {what}**: replica spawn to link up, "
                f"DBSIZE equal", w[mode]["sync_s"], r[mode]["sync_s"], sec, 0.7)
            row("worst PING on the master during the sync", w[mode]["ping"]["max_ms"],
                r[mode]["ping"]["max_ms"], ms, 1.0, "at most Redis's")
            text_row("PING p99 / p50; PINGs; worst in the 1 s before", *(
                f"{x[mode]['ping']['p99_ms']:.2f} / {x[mode]['ping']['p50_ms']:.2f} ms; "
                f"{x[mode]['ping']['count']:,}; {x[mode]['ping_before']['max_ms']:.2f} ms"
                for x in (w, r)))
            text_row("replica log: RDB made and received / loaded", *(
                " / ".join(sec(x[mode]["phases"].get(k)) for k in ("transfer_s", "load_s"))
                for x in (w, r)))
            text_row("master's fork (`latest_fork_usec`); its CPU and run-queue wait", *(
                f"{x[mode]['latest_fork_usec'] / 1000:.1f} ms; {x[mode]['master_cpu_s']:.2f} s, "
                f"{x[mode]['master_runqueue_wait_s']:.2f} s" for x in (w, r)))
            text_row("replica CPU; RSS; sample check", *(
                f"{x[mode]['replica_cpu_s']:.2f} s; {x[mode]['replica_rss_bytes'] / 1e6:,.0f} MB;"
                f" {x[mode]['check']}" for x in (w, r)))
        row("loading the master, `redis-cli --pipe` (for reference)", w["pipe_s"], r["pipe_s"], sec)
    if "keepup" in out:
        k = out["keepup"]
        w, r = k["warden"], k["redis"]
        row(f"**keeping up: lock cycle at full rate for {w['seconds']:.0f} s**: requests/s",
            w["ops_per_sec"], r["ops_per_sec"], kops)
        row("the master's CPU per request", w["master_cpu_us_per_req"],
            r["master_cpu_us_per_req"], us)
        text_row("the master's run-queue wait during the run", *(
            f"{x['master_runqueue_wait_s']:.2f} s" for x in (w, r)))
        row("max byte lag (10 ms samples)", w["byte_lag"]["max"], r["byte_lag"]["max"], byt)
        text_row(f"max byte lag, first / last {w['window_s']:.0f} s", *(
            f"{byt(x['byte_first'])} / {byt(x['byte_last'])}" for x in (w, r)))
        text_row("slope of the per-second max byte lag", *(
            f"{x['slope_bytes_per_s']:+,.0f} B/s" for x in (w, r)))
        row("max time lag (markers every 10 ms)", w["time_lag_ms"]["max"],
            r["time_lag_ms"]["max"], ms)
        text_row(f"max time lag, first / last {w['window_s']:.0f} s", *(
            f"{x['time_first_ms']:.2f} / {x['time_last_ms']:.2f} ms" for x in (w, r)))
        text_row("catch-up after the load stopped", *(
            "never (60 s)" if x["catch_up_s"] is None else f"{x['catch_up_s'] * 1000:.1f} ms"
            for x in (w, r)))
        rows.append("| the lag stayed bounded | " + " | ".join(
            "yes" if x["bounded"] else "no" for x in (w, r)) + " | | bounded | " +
            ("met" if w["bounded"] else "not met") + " |")
    return "\n".join(rows)


def machine_cpu():
    """(user + nice + system seconds of all cores, seconds of all cores) from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    tick = os.sysconf("SC_CLK_TCK")
    return (v[0] + v[1] + v[2]) / tick, sum(v[:8]) / tick


def own_cpu():
    """User + system seconds of this script and every process it started and reaped (servers,
    their forked children, which they reap, lockcycle, redis-cli, the samplers)."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        r = resource.getrusage(who)
        total += r.ru_utime + r.ru_stime
    return total


def other_work(busy0, all0, own0, busy1, all1, own1):
    """The share of all cores that other work kept busy between the two readings."""
    return max(0.0, (busy1 - busy0) - (own1 - own0)) / (all1 - all0) if all1 > all0 else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("warden")
    ap.add_argument("--redis", default="redis-server")
    ap.add_argument("--keys", type=int, default=10_000_000, help="locks on the master to sync")
    ap.add_argument("--requests", type=int, default=1_000_000,
                    help="lock cycle requests in the cycle section")
    ap.add_argument("--duration", type=float, default=60.0,
                    help="seconds of full-rate lock cycle in the keepup section")
    ap.add_argument("--connections", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=1, help="rounds of the cycle section")
    ap.add_argument("--sections", default=",".join(SECTIONS))
    ap.add_argument("--sync-modes", default=",".join(SYNC_MODES))
    ap.add_argument("--check", type=int, default=200,
                    help="random keys compared between master and replica after each sync")
    ap.add_argument("--replica-core", default=SERVER_CORE,
                    help="the core the replicas are pinned to (default: the servers' core)")
    ap.add_argument("--master-args", default="", help="more options for both masters, one "
                    "string (e.g. \"--hz 100\")")
    ap.add_argument("--lockcycle", help="bench/lockcycle's binary (default: built beside "
                    "the warden binary, or compiled here)")
    ap.add_argument("--tmp", help="where the data file and the servers' dirs go (default: a new "
                    "directory under $TMPDIR, removed at the end unless --keep)")
    ap.add_argument("--keep", action="store_true", help="keep the data file and the logs")
    ap.add_argument("--commit", help="the commit the warden binary was built from (default: "
                    "this checkout's HEAD)")
    ap.add_argument("--json", action="store_true", help="print one JSON object; text to stderr")
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    args.warden = os.path.abspath(args.warden)
    sections = [s for s in args.sections.split(",") if s]
    args.sync_modes = [m for m in args.sync_modes.split(",") if m]
    if set(sections) - set(SECTIONS) or set(args.sync_modes) - set(SYNC_MODES):
        ap.error("unknown section or sync mode")
    for tool in ("taskset", "redis-cli", args.redis):
        if shutil.which(tool) is None:
            ap.error(f"{tool} not found")
    binaries = {"warden": args.warden, "redis": shutil.which(args.redis)}
    MASTER_ARGS[:] = shlex.split(args.master_args)

    tmp = args.tmp or tempfile.mkdtemp(prefix="repl-bench-")
    os.makedirs(tmp, exist_ok=True)
    out = {"date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
           "command": shlex.join([sys.executable] + sys.argv), "machine": machine(),
           "versions": versions(args), "uptime_start": uptime(),
           "keys": args.keys,
           "requests": args.requests, "duration": args.duration,
           "connections": args.connections, "sections": sections}
    if args.commit:
        out["versions"]["commit"] = args.commit
    # Other work on the machine: 2 s before anything starts, over the run (the cores' busy
    # time less this script's and its children's), 2 s after everything stopped.
    m0 = machine_cpu() + (own_cpu(),)
    time.sleep(2)
    m1 = machine_cpu() + (own_cpu(),)
    out["other_work_before"] = other_work(*m0, *m1)
    try:
        lockcycle_bin = None
        if "cycle" in sections or "keepup" in sections:
            lockcycle_bin = find_tool(args, tmp, "lockcycle", args.lockcycle)
        for section in sections:
            say(f"--- {section} ({time.strftime('%H:%M:%S')}, load {os.getloadavg()[0]:.2f})")
            if section == "cycle":
                cycle_section(args, binaries, tmp, lockcycle_bin, out)
            elif section == "sync":
                sync_section(args, binaries, tmp, out)
            else:
                keepup_section(args, binaries, tmp, lockcycle_bin, out)
    finally:
        if not args.keep and not args.tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    out["uptime_end"] = uptime()
    m2 = machine_cpu() + (own_cpu(),)
    time.sleep(2)
    m3 = machine_cpu() + (own_cpu(),)
    out["other_work_during"] = other_work(*m1, *m2)
    out["other_work_after"] = other_work(*m2, *m3)
    out["table"] = table(out)
    shared = max(out["other_work_before"], out["other_work_during"],
                 out["other_work_after"]) > 0.05
    text = [f"Replication, {out['date']}: `{out['command']}`", "",
            f"{out['versions']['warden']} (commit {out['versions']['commit']}), "
            f"{out['versions']['redis']}; each master with replicas of its own kind; servers on "
            f"core {SERVER_CORE} (replicas on core {args.replica_core}), clients on core "
            f"{CLIENT_CORE}; lock cycle {args.connections} connections, one request in flight "
            f"each." + (f" Both masters also with `{args.master_args}`." if args.master_args
                        else "") + f" {out['machine']['cpu']}, {out['machine']['cores']} cores.",
            f"Load at the start: `{out['uptime_start']}`; at the end: `{out['uptime_end']}`. "
            f"Other work on the machine (the cores' busy time less this script's and its "
            f"children's, /proc/stat and getrusage): {out['other_work_before']:.0%} of the "
            f"{out['machine']['cores']} cores in the 2 s before the run, "
            f"{out['other_work_during']:.0%} during it, {out['other_work_after']:.0%} in the 2 s "
            "after it" + ("; the machine was shared." if shared else "."),
            "", out["table"]]
    if args.json:
        say("\n".join(text))
        print(json.dumps(out))
    else:
        print("\n".join(text))


if __name__ == "__main__":
    main()
