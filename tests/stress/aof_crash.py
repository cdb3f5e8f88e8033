#!/usr/bin/env python3
"""Crash test of the append-only file: client threads take and release locks on many keys, the
server is killed with SIGKILL at random moments and started again on the same directory, and
after every restart each key is compared with what the acknowledged replies say it must hold.

    /usr/bin/python3 tests/stress/aof_crash.py                          # always, 5 kills (CI)
    /usr/bin/python3 tests/stress/aof_crash.py --appendfsync everysec
    /usr/bin/python3 tests/stress/aof_crash.py --no-persistence         # must show losses
    /usr/bin/python3 tests/stress/aof_crash.py --kills 50 --seed 7      # the long run
    /usr/bin/python3 tests/stress/aof_crash.py --server redis           # redis-server 7.0

The load: each thread owns the keys lock:<n> with n = thread (mod threads) and, one request at a
time, either takes one (SET lock:<n> <unique token> NX PX 600000) or releases one it holds with
the compare-and-delete script by EVAL. Owned keys make each key's history that thread's program
order, so every acknowledged reply says exactly what the key holds after it. Each request is
logged with its send and reply times; a request whose connection dropped (sent, not answered) is
in flight: it may have been applied or not, and the key may hold either outcome.

The kill: the threads' gate is closed, the server gets SIGKILL (by PID), each thread sees its
connection drop and parks; the server is started again on the same --dir and port, every key is
read (GET and PEXPIRETIME, pipelined), judged, and the threads go on against the new process.
After the kills, with the file, one more round ends with a clean stop (SIGTERM, exit status 0)
instead, after which nothing acknowledged may be missing whatever the appendfsync.

What is judged, per key, from the state read after the previous restart and the acknowledged
replies since (in-flight requests excepted):

  * every reply was consistent with the key's state when it was made (SET NX answered OK only
    on a free key, nil only on a taken one; a release answered 1 only when the key held the
    token, 0 otherwise): the server's in-memory behaviour, whatever the mode;
  * after the restart the key holds what the last acknowledged write left (the token of an
    acknowledged SET not released, or nothing after an acknowledged release), or for a key with
    a request in flight either outcome of that request. Otherwise the acknowledged writes after
    the latest state that matches what it holds were lost: an acquisition lost or a release
    undone; a value that matches no state at all is a corruption;
  * a key present keeps its deadline: PEXPIRETIME within [send, reply] + 600000 ms of the SET
    that wrote the token (kill time for a SET that was in flight), on the wall clock the server
    shares with this process (widened by any step of it seen during the request).

--appendfsync always: nothing acknowledged may be lost. everysec and no: Redis writes a loop
turn's commands to the file before any of its replies, so a process kill loses nothing either
(only a machine crash may); here anything lost is counted and must have been acknowledged within
--lost-window-ms (1500) before the kill. --no-persistence (appendonly no) runs the same load to
show the loss: it passes only if at least one acknowledged lock vanished. --drop-tail-bytes cuts
the file after each kill, as a disk that lost its tail would: a self-test, the run must FAIL.

Exits 0 on PASS, 1 on a violation, 2 when the run could not be made. One summary line at the end.
Standard library only.
"""

import argparse
import math
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ left in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crash_server import CrashServer, StartFailed, stable_port  # noqa: E402
from lock_client import RELEASE_SCRIPT, Conn, ReplyError  # noqa: E402

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SANITIZER_REPORT = re.compile(rb"ERROR: (Address|Leak)Sanitizer|runtime error:|AddressSanitizer")
TRUNCATED_LOAD = re.compile(rb"loaded anyway because aof-load-truncated is enabled")
REWRITE_STARTED = re.compile(rb"Background append only file rewriting started")
REWRITE_DONE = re.compile(rb"Background AOF rewrite finished successfully")
REPLY_TIMEOUT_S = 10
PARK_WAIT_S = 10  # every thread must have seen the kill within this
PIPELINE_CHUNK = 512
MS = 1_000_000


class RunFailed(Exception):
    """The run could not be carried out: exit 2."""


class Gate:
    """Where the threads wait while the server is down. `epoch` counts server processes; a thread
    connects once per epoch, only while the gate is open."""

    def __init__(self):
        self.cond = threading.Condition()
        self.epoch = 0
        self.open = False
        self.stop = False
        self.parked = 0
        self.port = None


class Worker(threading.Thread):
    """One client connection, one request at a time, on the keys it owns."""

    def __init__(self, run, index, keys):
        super().__init__(name="worker-%d" % index, daemon=True)
        self.run_, self.index, self.keys = run, index, keys
        self.rng = random.Random(run.args.seed * 1_000_003 + index)
        self.conn = None
        self.epoch = 0
        self.seq = 0
        # key -> (token, send_wall_s, reply_wall_s, step_s) of the SET that wrote it; step_s: how
        # far the wall clock moved against CLOCK_MONOTONIC during the request (a clock step)
        self.held = {}
        self.held_list, self.held_pos = [], {}
        self.records = []  # acknowledged since the last restart: see request()
        self.inflight = None  # (op, key, token, send_ns, send_wall_s) without a reply
        self.ops = 0
        self.problems = []  # replies of the wrong type, connects refused while the server runs

    # -- the held set, with O(1) random choice
    def hold(self, key, info):
        if key not in self.held_pos:
            self.held_pos[key] = len(self.held_list)
            self.held_list.append(key)
        self.held[key] = info

    def drop(self, key):
        self.held.pop(key, None)
        pos = self.held_pos.pop(key, None)
        if pos is None:
            return
        last = self.held_list.pop()
        if last != key:
            self.held_list[pos] = last
            self.held_pos[last] = pos

    def run(self):
        try:
            while self.connect():
                while self.conn is not None:
                    self.step()
        except Exception as e:  # noqa: BLE001 - a bug here must not hang the driver
            self.problems.append("worker %d crashed: %r" % (self.index, e))
            with self.run_.gate.cond:
                self.run_.gate.parked += 1
                self.run_.gate.cond.notify_all()

    def connect(self):
        """Parks until the gate opens on a new server process, then connects. False: stop."""
        g = self.run_.gate
        with g.cond:
            g.parked += 1
            g.cond.notify_all()
            g.cond.wait_for(lambda: g.stop or (g.open and g.epoch != self.epoch))
            g.parked -= 1
            if g.stop:
                return False
            self.epoch, port = g.epoch, g.port
        try:
            self.conn = Conn(port, REPLY_TIMEOUT_S)
        except OSError as e:
            self.conn = None
            self.problems.append("connect to the running server failed: %s" % e)
        return True

    def step(self):
        if self.held_list and self.rng.random() < self.run_.args.release_share:
            key = self.held_list[self.rng.randrange(len(self.held_list))]
            token = self.held[key][0]
            self.request("D", key, token, "EVAL", RELEASE_SCRIPT, 1, key, token)
        else:
            key = self.keys[self.rng.randrange(len(self.keys))]
            self.seq += 1
            token = "w%d-%d-%08x" % (self.index, self.seq, self.rng.getrandbits(32))
            self.request("S", key, token, "SET", key, token, "NX", "PX", self.run_.args.ttl_ms)

    def request(self, op, key, token, *command):
        send_wall = time.time()
        send_ns = time.monotonic_ns()
        self.inflight = (op, key, token, send_ns, send_wall)
        try:
            reply = self.conn.call(*command)
        except OSError:  # dropped: sent, never answered; the driver judges it as in flight
            try:
                self.conn.close()
            except OSError:
                pass
            self.conn = None
            return
        reply_ns = time.monotonic_ns()
        reply_wall = time.time()
        self.inflight = None
        self.ops += 1
        if op == "S" and (reply == "OK" or reply is None):
            result = 1 if reply == "OK" else 0
        elif op == "D" and reply in (0, 1) and not isinstance(reply, ReplyError):
            result = reply
        else:
            self.problems.append("%s %s answered %r" % (command[0], key, reply))
            return
        self.records.append((op, key, token, result, send_ns, reply_ns))
        if op == "S" and result == 1:
            step = abs((reply_wall - send_wall) - (reply_ns - send_ns) / 1e9)
            self.hold(key, (token, send_wall, reply_wall, step))
        elif op == "D":
            self.drop(key)


class Stats:
    def __init__(self):
        self.acked_sets = self.acked_releases = self.failed_sets = self.refused_releases = 0
        self.inflight = 0
        self.checked_held = self.checked_released = 0
        self.expiry_checked = 0
        self.clock_steps = 0  # SETs during which the wall clock stepped by more than 1 ms
        self.lost = self.lost_sets = self.undone_releases = self.lost_keys = 0
        self.max_lost_age_ms = None
        self.restart_ms = []
        self.truncated_loads = 0


class Run:
    def __init__(self, args, tmp):
        self.args, self.tmp = args, tmp
        self.rng = random.Random(args.seed)
        self.gate = Gate()
        self.stats = Stats()
        self.violations = []
        self.workers = []
        self.server = None
        self.model = {}  # key -> token, as read after the previous restart (absent: no key)
        self.released = set()  # keys whose last acknowledged write was a release
        self.kills = 0
        self.sigterm_restarts = 0
        self.rewrites_requested = 0
        self.rewrites = (0, 0)  # started, finished: from the server's log
        self.temp_files = 0  # files named temp-* left in the directories at the end
        self.event = None  # "kill N" or "the SIGTERM stop", for the messages
        self.aof_bytes = 0

    def violation(self, text):
        self.violations.append(text)

    def server_argv(self, port):
        a = self.args
        data = os.path.join(self.tmp, "data")
        os.makedirs(data, exist_ok=True)
        persistence = ["--appendonly", a.appendonly, "--appendfsync", a.appendfsync,
                       "--dir", data]
        if a.server == "warden":
            return [a.binary, "--port", str(port), "--bind", "127.0.0.1"] + persistence
        return [a.redis_server, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                "--daemonize", "no", "--aof-use-rdb-preamble", "no"] + persistence

    def execute(self):
        a = self.args
        port = stable_port()
        try:
            self.server = CrashServer(self.server_argv(port), port,
                                      os.path.join(self.tmp, "server.log"))
            self.server.start()
        except StartFailed as e:
            raise RunFailed(str(e))
        self.gate.port = port
        keys = ["lock:%d" % n for n in range(a.keys)]
        for i in range(a.clients):
            worker = Worker(self, i, keys[i::a.clients])
            self.workers.append(worker)
        for worker in self.workers:
            worker.start()
        self.open_gate()
        lossy = a.appendonly == "no" or a.appendfsync != "always"
        # The kills, then (with the file) a clean SIGTERM stop, after which nothing acknowledged
        # may be missing whatever the appendfsync: the shutdown writes and syncs everything.
        restarts = a.kills + (1 if a.appendonly == "yes" else 0)
        for n in range(restarts):
            clean = n == a.kills
            up_until = time.monotonic() + self.rng.uniform(a.up_min_ms, a.up_max_ms) / 1000
            # --rewrites: a BGREWRITEAOF just before the kill, which then often lands in it.
            rewrite_at = up_until - self.rng.uniform(0, 0.25) if a.rewrites else None
            while time.monotonic() < up_until:
                if rewrite_at is not None and time.monotonic() >= rewrite_at:
                    rewrite_at = None
                    self.bgrewrite()
                if not self.server.alive():
                    self.violation("the server died by itself (status %s); its output:\n%s" % (
                        self.server.proc.returncode, self.tail()))
                    return
                self.collect_problems()
                # The load runs on: wake every 10 ms to look, or at once if the server dies.
                try:
                    self.server.proc.wait(timeout=0.01)
                except subprocess.TimeoutExpired:
                    pass
            self.collect_problems()
            if self.violations:
                return
            self.event = "the SIGTERM stop" if clean else "kill %d" % (n + 1)
            kill_ns, dead_ns = self.crash(clean)
            if not self.restart(kill_ns):
                return
            self.check(kill_ns, dead_ns, lossy and not clean)
            if self.violations and not a.keep_going:
                return
            if n + 1 < restarts:
                self.open_gate()

    def bgrewrite(self):
        conn = Conn(self.server.port, REPLY_TIMEOUT_S)
        try:
            reply = conn.call("BGREWRITEAOF")
        finally:
            conn.close()
        self.rewrites_requested += 1
        if isinstance(reply, ReplyError) and "already in progress" not in reply:
            self.violation("BGREWRITEAOF answered %r" % (reply,))

    def open_gate(self):
        with self.gate.cond:
            self.gate.epoch += 1
            self.gate.open = True
            self.gate.cond.notify_all()

    def collect_problems(self):
        for w in self.workers:
            while w.problems:
                self.violation("client: " + w.problems.pop(0))

    def tail(self):
        return self.server.output()[-3000:].decode(errors="replace")

    def crash(self, clean=False):
        """Closes the gate, kills the server (or, `clean`, stops it with SIGTERM), waits for
        every thread to have parked. Returns the CLOCK_MONOTONIC ns of the signal and of the
        process's end (reaped): nothing can have been applied after the latter, while a server
        stopping on SIGTERM still serves what it has read."""
        with self.gate.cond:
            self.gate.open = False
        if clean:
            kill_ns = time.monotonic_ns()
            status = self.server.stop()
            self.sigterm_restarts += 1
            if status != 0:
                self.violation("server exit status on SIGTERM: %s" % status)
        else:
            kill_ns = self.server.kill()
            self.kills += 1
            if self.args.drop_tail_bytes:
                self.drop_tail(self.args.drop_tail_bytes)
        dead_ns = time.monotonic_ns()
        with self.gate.cond:
            if not self.gate.cond.wait_for(lambda: self.gate.parked == len(self.workers),
                                           PARK_WAIT_S):
                raise RunFailed("%d of %d client threads still running %d s after %s" % (
                    len(self.workers) - self.gate.parked, len(self.workers), PARK_WAIT_S,
                    self.event))
        return kill_ns, dead_ns

    def drop_tail(self, n):
        """Cuts n bytes off the last file the manifest names (the increment file written last)."""
        aof_dir = os.path.join(self.tmp, "data", "appendonlydir")
        manifests = [f for f in os.listdir(aof_dir) if f.endswith(".manifest")]
        if len(manifests) != 1:
            raise RunFailed("no single manifest in %s: %s" % (aof_dir, manifests))
        with open(os.path.join(aof_dir, manifests[0])) as f:
            last = f.read().split("\n")[-2].split()[1]
        path = os.path.join(aof_dir, last)
        os.truncate(path, max(0, os.path.getsize(path) - n))

    def restart(self, kill_ns):
        try:
            self.server.start()
        except StartFailed as e:
            if e.in_use:
                raise RunFailed("port %d taken by another process: %s" % (self.server.port, e))
            self.violation("restart after %s failed: %s" % (self.event, e))
            return False
        self.stats.restart_ms.append((time.monotonic_ns() - kill_ns) / MS)
        output = self.server.output()
        self.stats.truncated_loads += len(TRUNCATED_LOAD.findall(output))
        return True

    def read_keys(self, keys):
        """{key: (value or None, PEXPIRETIME)} read on one pipelined connection."""
        conn = Conn(self.server.port, REPLY_TIMEOUT_S)
        out = {}
        try:
            for i in range(0, len(keys), PIPELINE_CHUNK):
                chunk = keys[i:i + PIPELINE_CHUNK]
                payload = []
                for key in chunk:
                    for cmd in (("GET", key), ("PEXPIRETIME", key)):
                        payload.append(b"*%d\r\n" % len(cmd) + b"".join(
                            b"$%d\r\n%s\r\n" % (len(x), x.encode()) for x in cmd))
                conn.sock.sendall(b"".join(payload))
                for key in chunk:
                    value, deadline = conn._reply(), conn._reply()
                    if isinstance(value, ReplyError) or isinstance(deadline, ReplyError):
                        raise RunFailed("reading %s after the restart: %r %r" % (
                            key, value, deadline))
                    out[key] = (None if value is None else value.decode(), deadline)
        finally:
            conn.close()
        return out

    def check(self, kill_ns, dead_ns, lossy):
        """Reads every key and judges it (judge_key); `lossy`: writes acknowledged shortly
        before kill_ns may be missing (everysec, no; counted and bounded, not failed)."""
        a, s = self.args, self.stats
        now_wall, now_ns = time.time(), time.monotonic_ns()
        dead_wall = now_wall - (now_ns - dead_ns) / 1e9
        by_key = {}
        for w in self.workers:
            for rec in w.records:
                by_key.setdefault(rec[1], []).append(rec)
        inflight = {w.inflight[1]: w.inflight for w in self.workers if w.inflight is not None}
        s.inflight += len(inflight)
        observed = self.read_keys([k for w in self.workers for k in w.keys])
        for w in self.workers:
            adopted = {}
            for key in w.keys:
                value, deadline = observed[key]
                self.judge_key(key, self.model.get(key), by_key.get(key, ()), inflight.get(key),
                               value, kill_ns, lossy)
                # The next epoch starts from what the server holds now.
                if value is not None:
                    self.released.discard(key)
                if value is None:
                    self.model.pop(key, None)
                    continue
                self.model[key] = value
                info = w.held.get(key)
                if info is None or info[0] != value:
                    fl = inflight.get(key)
                    if fl is not None and fl[0] == "S" and fl[2] == value:
                        # The SET in flight was applied, at the latest when the server ended.
                        step = abs((now_wall - fl[4]) - (now_ns - fl[3]) / 1e9)
                        info = (value, fl[4], dead_wall, step)
                    else:
                        info = (value, None, None, 0)  # an older state came back: time unknown
                adopted[key] = info
                if info[1] is not None and isinstance(deadline, int):
                    s.expiry_checked += 1
                    # The server reads the same wall clock; a step of it during the request
                    # widens the bounds by as much.
                    step_ms = math.ceil(info[3] * 1000)
                    if step_ms > 1:
                        s.clock_steps += 1
                    lo = math.floor(info[1] * 1000) + a.ttl_ms - a.expiry_slack_ms - step_ms
                    hi = math.ceil(info[2] * 1000) + a.ttl_ms + a.expiry_slack_ms + step_ms
                    if not lo <= deadline <= hi:
                        self.violation("%s=%s has PEXPIRETIME %d, outside [%d, %d] (its SET sent "
                                       "at %.3f, answered at %.3f, PX %d)" % (
                                           key, value, deadline, lo, hi, info[1], info[2],
                                           a.ttl_ms))
                elif deadline is not None and deadline < 0:
                    self.violation("%s=%s has no deadline after the restart (PEXPIRETIME %r)" % (
                        key, value, deadline))
            w.held.clear()
            w.held_list.clear()
            w.held_pos.clear()
            for key, info in adopted.items():
                w.hold(key, info)
            w.records.clear()
            w.inflight = None

    def judge_key(self, key, start, records, inflight, value, kill_ns, lossy):
        """See the module comment. `start`: the key's value read after the previous restart."""
        s = self.stats
        states = [start]  # the key after each acknowledged write, in order
        writes = [None]  # the record that produced states[i]
        cur = start
        for rec in records:
            op, _, token, result, send_ns, reply_ns = rec
            if op == "S":
                if result == 1:
                    s.acked_sets += 1
                    if cur is not None:
                        self.violation("SET %s NX answered OK while it held %s" % (key, cur))
                    cur = token
                    states.append(cur)
                    writes.append(rec)
                    self.released.discard(key)
                else:
                    s.failed_sets += 1
                    if cur is None:
                        self.violation("SET %s NX answered nil though the key was free" % key)
            else:
                if result == 1:
                    s.acked_releases += 1
                    if cur != token:
                        self.violation("release of %s with %s answered 1 while it held %s" % (
                            key, token, cur))
                    cur = None
                    states.append(cur)
                    writes.append(rec)
                    self.released.add(key)
                else:
                    s.refused_releases += 1
                    self.violation("release of %s with its token %s answered 0 (key held %s)" % (
                        key, token, cur))
        allowed = {cur}
        if inflight is not None:
            op, _, token = inflight[:3]
            allowed.add(token if op == "S" and cur is None else
                        None if op == "D" and cur == token else cur)
        if value in allowed:
            if inflight is None:
                if cur is not None:
                    s.checked_held += 1
                elif key in self.released:
                    s.checked_released += 1
            return
        # Lost: the latest state that matches what the key holds; the writes after it are gone.
        matches = [i for i, st in enumerate(states) if st == value]
        if not matches:
            self.violation("%s holds %r after %s: no acknowledged write or request in flight "
                           "left it so (expected %r)" % (key, value, self.event, cur))
            return
        lost = writes[matches[-1] + 1:]
        s.lost_keys += 1
        s.lost += len(lost)
        oldest_age_ms = (kill_ns - lost[0][5]) / MS
        if s.max_lost_age_ms is None or oldest_age_ms > s.max_lost_age_ms:
            s.max_lost_age_ms = oldest_age_ms
        for rec in lost:
            if rec[0] == "S":
                s.lost_sets += 1
            else:
                s.undone_releases += 1
        if self.args.appendonly == "no":
            return  # the demonstration: counted, not judged
        first = lost[0]
        what = ("acknowledged SET %s %s NX" % (key, first[2]) if first[0] == "S" else
                "acknowledged release of %s (token %s)" % (key, first[2]))
        if not lossy:
            self.violation("%s lost by %s (answered %.1f ms before it; %d acknowledged "
                           "write(s) of the key lost; the key holds %r, expected %r)" % (
                               what, self.event, oldest_age_ms, len(lost), value, cur))
        elif oldest_age_ms > self.args.lost_window_ms:
            self.violation("%s lost by %s though answered %.1f ms before it (window %d ms)"
                           % (what, self.event, oldest_age_ms, self.args.lost_window_ms))

    def finish(self):
        """Stops the threads and the server (SIGTERM: must exit 0 with the file complete)."""
        with self.gate.cond:
            self.gate.stop = True
            self.gate.open = False
            self.gate.cond.notify_all()
        if self.server is not None and self.server.alive():
            status = self.server.stop()
            if status != 0:
                self.violation("server exit status on SIGTERM: %s" % status)
        for w in self.workers:
            w.join(5)
        self.collect_problems()
        if self.server is not None:
            report = SANITIZER_REPORT.search(self.server.output(since_start=False))
            if report:
                self.violation("sanitizer report in %s" % self.server.log_path)
        if self.server is not None:
            output = self.server.output(since_start=False)
            self.rewrites = (len(REWRITE_STARTED.findall(output)),
                             len(REWRITE_DONE.findall(output)))
        data = os.path.join(self.tmp, "data")
        aof_dir = os.path.join(data, "appendonlydir")
        if os.path.isdir(aof_dir):
            files = os.listdir(aof_dir)
            self.aof_bytes = sum(os.path.getsize(os.path.join(aof_dir, f)) for f in files)
            # A rewrite cut short leaves its temporary base (warden's in appendonlydir, Redis's
            # in --dir); Redis leaves them too.
            self.temp_files = sum(1 for f in files + os.listdir(data) if f.startswith("temp-"))

    def cleanup(self):
        with self.gate.cond:
            self.gate.stop = True
            self.gate.cond.notify_all()
        if self.server is not None:
            self.server.close()


def summary(run, seconds):
    a, s = run.args, run.stats
    if a.appendonly == "no":
        ok = not run.violations and s.lost > 0
    else:
        ok = not run.violations
    fields = [
        ("server", a.server),
        ("appendonly", "no") if a.appendonly == "no" else ("fsync", a.appendfsync),
        ("kills", run.kills), ("sigterm_restarts", run.sigterm_restarts), ("seed", a.seed),
        ("seconds", "%.1f" % seconds), ("clients", a.clients), ("keys", a.keys),
        ("acked_sets", s.acked_sets), ("acked_releases", s.acked_releases),
        ("failed_sets", s.failed_sets), ("inflight", s.inflight),
        ("checked", "%d(held=%d,released=%d)" % (s.checked_held + s.checked_released,
                                                 s.checked_held, s.checked_released)),
        ("expiry_checked", s.expiry_checked), ("clock_steps", s.clock_steps),
        ("lost", s.lost if not s.lost else "%d(sets=%d,releases=%d,keys=%d)" % (
            s.lost, s.lost_sets, s.undone_releases, s.lost_keys)),
        ("max_lost_age_ms", "%.1f" % s.max_lost_age_ms if s.max_lost_age_ms is not None
         else "-"),
        ("truncated_loads", s.truncated_loads),
        ("restart_ms", "%.0f..%.0f" % (min(s.restart_ms), max(s.restart_ms))
         if s.restart_ms else "-"),
        ("aof_bytes", run.aof_bytes),
        ("rewrites", "%d(started=%d,finished=%d)" % (run.rewrites_requested, *run.rewrites)),
        ("temp_files", run.temp_files),
        ("violations", len(run.violations)),
    ]
    return ok, "aof-crash %s " % ("PASS" if ok else "FAIL") + " ".join(
        "%s=%s" % kv for kv in fields)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--server", choices=["warden", "redis"], default="warden")
    p.add_argument("--binary", default=os.path.join(REPO_ROOT, "build", "warden"),
                   help="warden binary (default build/warden)")
    p.add_argument("--redis-server", default="/usr/bin/redis-server")
    p.add_argument("--appendfsync", choices=["always", "everysec", "no"], default="always")
    p.add_argument("--appendonly", choices=["yes", "no"], default="yes")
    p.add_argument("--no-persistence", action="store_const", dest="appendonly", const="no",
                   help="appendonly no: the run must show acknowledged locks lost")
    p.add_argument("--kills", type=int, default=5)
    p.add_argument("--up-min-ms", type=int, default=1000, help="load before each kill, at least")
    p.add_argument("--up-max-ms", type=int, default=3000, help="load before each kill, at most")
    p.add_argument("--clients", type=int, default=8, help="client threads")
    p.add_argument("--keys", type=int, default=10000)
    p.add_argument("--release-share", type=float, default=0.45,
                   help="share of requests that release a held key")
    p.add_argument("--ttl-ms", type=int, default=600000)
    p.add_argument("--lost-window-ms", type=int, default=1500,
                   help="everysec/no: how long before a kill a lost write may have been answered")
    p.add_argument("--expiry-slack-ms", type=int, default=1,
                   help="PEXPIRETIME against the client's wall clock at send and reply")
    p.add_argument("--seed", type=int, default=None, help="fixes the kills and the load choices")
    p.add_argument("--keep-going", action="store_true", help="go on killing after a violation")
    p.add_argument("--rewrites", action="store_true",
                   help="send BGREWRITEAOF 0-250 ms before each kill: kills land in rewrites")
    p.add_argument("--drop-tail-bytes", type=int, default=0,
                   help="checker self-test: cut this many bytes off the end of the append-only "
                   "file after each kill, as a disk that lost them would (the run must FAIL)")
    p.add_argument("--keep-dir", action="store_true", help="keep the data directory and log")
    args = p.parse_args(argv)
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1, 1 << 31)
    if args.kills < 1 or args.clients < 1 or args.keys < args.clients:
        p.error("need --kills >= 1, --clients >= 1, --keys >= --clients")
    if not 0 < args.up_min_ms <= args.up_max_ms:
        p.error("need 0 < --up-min-ms <= --up-max-ms")
    if args.drop_tail_bytes and args.appendonly == "no":
        p.error("--drop-tail-bytes needs the append-only file")
    if args.ttl_ms < 60000:
        p.error("--ttl-ms must outlast the run (>= 60000): keys are not expected to expire")
    return args


def main(argv):
    args = parse_args(argv)

    def on_signal(signum, _frame):
        raise RunFailed("interrupted by signal %d" % signum)

    for sig in (signal.SIGALRM, signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_signal)
    signal.alarm(int(args.kills * (args.up_max_ms / 1000 + 30) + 60))
    tmp = tempfile.mkdtemp(prefix="aof-crash-")
    run = Run(args, tmp)
    started = time.monotonic()
    keep = args.keep_dir
    try:
        try:
            run.execute()
        finally:
            run.finish()
        signal.alarm(0)
        for v in run.violations[:20]:
            print("VIOLATION " + v)
        if len(run.violations) > 20:
            print("... %d more" % (len(run.violations) - 20))
        ok, line = summary(run, time.monotonic() - started)
        if args.appendonly == "no" and run.stats.lost == 0:
            print("no acknowledged lock was lost without the append-only file: the "
                  "demonstration did not work")
        print(line, flush=True)
        keep = keep or not ok
        return 0 if ok else 1
    except (RunFailed, KeyboardInterrupt, OSError) as e:
        print("aof-crash ERROR %s: %s" % (type(e).__name__, e), file=sys.stderr)
        keep = True
        return 2
    finally:
        signal.alarm(0)
        run.cleanup()
        if keep:
            print("data directory and server log kept in %s" % tmp, file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
