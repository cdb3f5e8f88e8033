#!/usr/bin/env python3
"""Lock safety across Sentinel failovers: a master and two replicas (warden, or redis-server with
--server redis), three Redis Sentinels, client processes taking locks on whichever node Sentinel
names master, and a nemesis that stops or kills the master again and again.

    /usr/bin/python3 tests/stress/failover_locks.py --binary build/warden --seconds 20 --mode wait
    /usr/bin/python3 tests/stress/failover_locks.py --mode nowait      # what asynchronous loses
    /usr/bin/python3 tests/stress/failover_locks.py --server redis     # redis-server 7.0 nodes
    /usr/bin/python3 tests/stress/failover_locks.py --early-resume --faults pause  # must FAIL

Topology (the Sentinel suite's, tests/clients/python/test_sentinel.py): every data node has a
config file of its own (Sentinel's CONFIG REWRITE writes it), its own directory with the
append-only file (`--appendonly yes`, so a killed master comes back with its data),
`--repl-diskless-sync-delay 0` and `--enable-debug-command yes`; with --mode wait also
`--min-replicas-to-write 1 --min-replicas-max-lag 2`. Three Sentinels (redis-server <conf>
--sentinel), quorum 2, down-after 1000 ms (--down-after-ms; at 1000 Sentinel sometimes fails
over a healthy new master, reported as an unprovoked switch, see the README), failover-timeout
5000 ms. Every process is a child of
this one on a fixed port outside the ephemeral range (a restart takes the same one), signalled by
its PID only, and killed by the kernel if this process dies (PR_SET_PDEATHSIG).

Clients (failover_client.py, --clients processes over --locks names) find the master through
Sentinel and take locks with SET NX PX; with --mode wait a lock is granted only if `WAIT 1
<--wait-ms>` then counts a replica (otherwise the key is deleted and the grant counted refused),
without WAIT (--mode nowait) every OK is a grant. They hold it for less than ttl - margin and
release it with the compare-and-delete script (EVALSHA, EVAL after NOSCRIPT).

The nemesis waits until the master Sentinel names has a replica that Sentinel sees healthy, then
alternates two faults of the master:

  * pause: SIGSTOP, held until Sentinel has switched to a new master (+switch-master) and at
    least --pause-ms (2500) have passed, then SIGCONT. The old master comes back believing it
    is the master, with its clients' requests queued, until Sentinel demotes it some 8-10 s
    later. Holding the stop until the switch keeps the fault crash-stop for the new master's
    sake: the old one takes no write while the other replica can still acknowledge it. With
    --early-resume it is resumed as soon as a Sentinel reports the promotion (+promoted-slave),
    while the other replica still follows it: the partition case that WAIT 1 cannot cover
    (replication-notes 5.3);
  * kill: SIGKILL, then, --restart-ms after the switch, the node is started again on its
    directory and port without --replicaof: its config file (rewritten by Sentinel when it was
    promoted) makes it a master with its old data, until Sentinel converts it into a replica.

The run lasts --seconds and goes on (at most --extra-seconds more) until --min-failovers
switches were seen on a Sentinel's +switch-master channel and the last new master has a replica
again (with min-replicas-to-write it grants nothing before).

Judged by lock_check.py: per lock, no two granted holds overlap (a hold runs from its SET's reply
to its release's send, or to the SET's send + ttl); no release answers 0 while its lease surely
runs (lost-early) or 1 once it has surely run out (stale-success); tokens unique. Reported:
grants, refused grants, grants by a deposed master, failed attempts, NOSCRIPT reloads, READONLY
and NOREPLICAS replies, grants per second and the longest time without any grant, the leases a
failover carried, and per fault the time to the switch and to the first grant on the promoted
node.

Exit status: 0 PASS; 1 FAIL: a violation or no grant on a promoted node before the next fault
with --mode wait, or with any mode fewer failovers than --min-failovers, a fault Sentinel did not
fail over, a client or server error; 2 when the run could not be made. With --mode nowait the violations are the figure
being measured (the limit of asynchronous replication) and do not fail the run.
"""

import argparse
import multiprocessing
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ left in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lock_check  # noqa: E402
from crash_server import CrashServer, StartFailed, stable_port  # noqa: E402
from failover_client import MASTER_NAME, FailoverConfig, client_main  # noqa: E402
from lock_client import Conn, die_with_parent  # noqa: E402

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SANITIZER_REPORT = re.compile(rb"ERROR: (Address|Leak)Sanitizer|runtime error:|AddressSanitizer")
FAILOVER_TIMEOUT_MS = 5000
QUORUM = 2
DISCOVERY_S = 25  # Sentinels see every node and each other (hellos every 2 s)
LINK_S = 15  # a replica's first sync
FAILOVER_WAIT_S = 25  # fault -> +switch-master, or the fault counts as not failed over
FAULT_ROOM_S = 4  # no new fault this close to the end, once enough failovers were seen
TAIL_S = 2.0  # clients run at least this long after the last switch
HARD_TIMEOUT_EXTRA_S = 120


class RunFailed(Exception):
    """The run could not be carried out: exit 2."""


def now():
    return time.monotonic_ns()


def ask(port, *args, timeout=2.0):
    """One command on a connection of its own (never to a stopped node: it would wait)."""
    conn = Conn(port, timeout)
    try:
        return conn.call(*args)
    finally:
        conn.close()


def text(value):
    return value.decode() if isinstance(value, bytes) else value


def pairs(flat):
    flat = [text(v) for v in flat]
    return dict(zip(flat[0::2], flat[1::2]))


class DataNode:
    """warden or redis-server with a config file and an append-only file in its directory."""

    def __init__(self, args, root, name, replicaof=None):
        self.name = name
        self.port = stable_port()
        self.dir = os.path.join(root, name)
        os.mkdir(self.dir)
        self.conf = os.path.join(self.dir, "node.conf")
        with open(self.conf, "w") as f:
            f.write("# %s of the failover lock run\n" % name)
        binary = args.binary if args.server == "warden" else args.redis_server
        self.base = [binary, self.conf, "--port", str(self.port), "--bind", "127.0.0.1",
                     "--dir", self.dir, "--save", "", "--appendonly", "yes",
                     "--repl-diskless-sync-delay", "0", "--enable-debug-command", "yes"]
        if args.mode == "wait":
            self.base += ["--min-replicas-to-write", "1",
                          "--min-replicas-max-lag", str(args.min_replicas_max_lag)]
        argv = self.base + (["--replicaof", "127.0.0.1", str(replicaof)] if replicaof else [])
        self.server = CrashServer(argv, self.port, os.path.join(self.dir, "server.log"))
        self.paused = False
        self.down = False

    def start(self):
        try:
            self.server.start()
        except StartFailed as e:
            if e.in_use:
                raise RunFailed("port %d taken: %s" % (self.port, e))
            raise

    def restart(self):
        """After a kill: the config file decides the role (Sentinel rewrote it on promotion)."""
        self.server.argv = list(self.base)
        self.start()
        self.down = False

    @property
    def pid(self):
        return self.server.proc.pid

    def alive(self):
        return self.server.alive()

    def pause(self):
        os.kill(self.pid, signal.SIGSTOP)
        self.paused = True

    def resume(self):
        os.kill(self.pid, signal.SIGCONT)
        self.paused = False

    def kill(self):
        self.down = True
        return self.server.kill()

    def role(self):
        return [text(v) if isinstance(v, bytes) else v for v in ask(self.port, "ROLE")]

    def replication(self):
        info = text(ask(self.port, "INFO", "replication"))
        return dict(line.split(":", 1) for line in info.splitlines() if ":" in line)

    def stop(self):
        if self.paused:
            self.resume()
        return self.server.stop()

    def sanitizer_report(self):
        data = self.server.output(since_start=False)
        match = SANITIZER_REPORT.search(data)
        return None if match is None else data[max(0, match.start() - 200):][:3000].decode(
            errors="replace")


class SentinelNode:
    def __init__(self, args, root, name, master_port):
        self.name = name
        self.port = stable_port()
        self.dir = os.path.join(root, name)
        os.mkdir(self.dir)
        conf = os.path.join(self.dir, "sentinel.conf")
        with open(conf, "w") as f:
            f.write("port %d\nbind 127.0.0.1\ndir %s\nsentinel resolve-hostnames no\n"
                    % (self.port, self.dir))
            f.write("sentinel monitor %s 127.0.0.1 %d %d\n" % (MASTER_NAME, master_port, QUORUM))
            f.write("sentinel down-after-milliseconds %s %d\n" % (MASTER_NAME,
                                                                 args.down_after_ms))
            f.write("sentinel failover-timeout %s %d\n" % (MASTER_NAME, FAILOVER_TIMEOUT_MS))
        self.server = CrashServer([args.redis_server, conf, "--sentinel"], self.port,
                                  os.path.join(self.dir, "sentinel.log"))

    def call(self, *args):
        return ask(self.port, *args)

    def master_port(self):
        reply = self.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME)
        return int(reply[1])

    def master(self):
        return pairs(self.call("SENTINEL", "MASTER", MASTER_NAME))

    def replicas(self):
        return [pairs(r) for r in self.call("SENTINEL", "REPLICAS", MASTER_NAME)]


class Events:
    """Every Sentinel's events (PSUBSCRIBE *, hellos left out), timestamped, one reader thread
    per Sentinel. Failovers are counted on the first Sentinel's +switch-master (each Sentinel
    publishes its own); the failover's steps (+promoted-slave, ...) are published only by the
    Sentinel that leads it, hence the others."""

    def __init__(self, sentinel_ports):
        self.conns = []
        self.events = []  # (t_ns, sentinel index, channel, data)
        self.lock = threading.Lock()
        for i, port in enumerate(sentinel_ports):
            conn = Conn(port, 5)
            conn.call("PSUBSCRIBE", "*")
            conn.sock.settimeout(None)
            self.conns.append(conn)
            threading.Thread(target=self.read, args=(i, conn), daemon=True).start()

    def read(self, index, conn):
        try:
            while True:
                msg = conn._reply()
                if isinstance(msg, list) and len(msg) == 4 and msg[0] == b"pmessage":
                    channel = text(msg[2])
                    if channel != "__sentinel__:hello":
                        with self.lock:
                            self.events.append((now(), index, channel, text(msg[3])))
        except (OSError, ValueError):
            pass

    def since(self, t_ns, channel, sentinel=0):
        """(t_ns, channel, data) of one Sentinel's events (None: any Sentinel's)."""
        with self.lock:
            return [(t, c, d) for t, i, c, d in self.events
                    if t >= t_ns and c == channel and (sentinel is None or i == sentinel)]

    def close(self):
        for conn in self.conns:
            try:
                conn.sock.shutdown(2)
            except OSError:
                pass
            conn.close()


class Fault:
    def __init__(self, kind, node, start):
        self.kind, self.node, self.start = kind, node, start
        self.old_port = node.port
        self.switch_at = None
        self.new_port = None
        self.resumed_at = None  # pause: SIGCONT; kill: the restart answered PING
        self.first_grant = None  # the first grant on the promoted node after the fault


class Run:
    def __init__(self, args, tmp):
        self.args, self.tmp = args, tmp
        self.rng = random.Random(args.seed)
        self.log_dir = os.path.join(tmp, "clients")
        os.mkdir(self.log_dir)
        self.data = []
        self.sentinels = []
        self.events = None
        self.clients = {}
        self.faults = []
        self.problems = []
        self.start = self.end = None
        self.deadline = multiprocessing.get_context("fork").RawValue("q", 0)
        self.setup_s = None
        self.unprovoked = []
        self.deposed_grants = 0
        self.first_master = None

    # --- topology -------------------------------------------------------------------------

    def by_port(self, port):
        return next((d for d in self.data if d.port == port), None)

    def problem(self, kind, text_):
        self.problems.append(lock_check.Violation(kind, text_))

    def wait_for(self, what, probe, timeout_s):
        end = time.monotonic() + timeout_s
        last = None
        while True:
            try:
                result = probe()
                if result:
                    return result
                last = result
            except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
                last = e
            for node in self.data + self.sentinels:
                proc = node.server.proc
                if proc is not None and not getattr(node, "down", False) and \
                        proc.poll() is not None:
                    raise RunFailed("%s exited (%s) while waiting for %s" % (
                        node.name, proc.returncode, what))
            if time.monotonic() > end:
                raise RunFailed("%s: not within %g s (last: %r)\n%s" % (
                    what, timeout_s, last, self.describe()))
            time.sleep(0.05)

    def linked(self, master, replicas):
        for r in replicas:
            info = r.replication()
            if (info.get("role") != "slave" or info.get("master_port") != str(master.port)
                    or info.get("master_link_status") != "up"):
                return False
        return True

    def discovered(self):
        for s in self.sentinels:
            m = s.master()
            if (m["flags"] != "master" or int(m["port"]) != self.data[0].port
                    or int(m["num-slaves"]) != 2 or int(m["num-other-sentinels"]) != 2):
                return False
            reps = s.replicas()
            if any(r["flags"] != "slave" or r.get("master-link-status") != "ok" for r in reps):
                return False
            if not text(s.call("SENTINEL", "CKQUORUM", MASTER_NAME)).startswith("OK "):
                return False
        return True

    def setup(self):
        a = self.args
        t0 = time.monotonic()
        master = DataNode(a, self.tmp, "node1")
        self.data.append(master)
        self.first_master = master.port
        master.start()
        for n in (2, 3):
            replica = DataNode(a, self.tmp, "node%d" % n, replicaof=master.port)
            self.data.append(replica)
            replica.start()
            self.wait_for("%s linked" % replica.name,
                          lambda: self.linked(master, self.data[1:]), LINK_S)
        for n in (1, 2, 3):
            s = SentinelNode(a, self.tmp, "sentinel%d" % n, master.port)
            self.sentinels.append(s)
            s.server.start()
        self.wait_for("the Sentinels discover the topology", self.discovered, DISCOVERY_S)
        self.events = Events([s.port for s in self.sentinels])
        self.setup_s = time.monotonic() - t0

    def healthy(self):
        """The master Sentinel names, if every Sentinel names it, its ROLE says master, and
        Sentinel sees a replica of it in good health whose own ROLE agrees; else None."""
        ports = {s.master_port() for s in self.sentinels}
        if len(ports) != 1:
            return None
        port = ports.pop()
        node = self.by_port(port)
        if node is None or node.paused or node.down:
            return None
        m = self.sentinels[0].master()
        if m["flags"] != "master" or int(m["port"]) != port:
            return None
        if node.role()[0] != "master":
            return None
        for r in self.sentinels[0].replicas():
            if r["flags"] != "slave" or r.get("master-link-status") != "ok":
                continue
            if int(r.get("master-port", -1)) != port:
                continue
            replica = self.by_port(int(r["port"]))
            if replica is None or replica.paused or replica.down:
                continue
            role = replica.role()
            if role[0] == "slave" and role[2] == port and role[3] == "connected":
                return node
        return None

    def healthy_master(self):
        """healthy(), None when a node or Sentinel does not answer as expected."""
        try:
            return self.healthy()
        except (OSError, ValueError, KeyError, IndexError, TypeError):
            return None

    def describe(self):
        out = []
        for d in self.data:
            state = "paused" if d.paused else "down" if d.down else "up"
            view = state
            if state == "up":
                try:
                    info = d.replication()
                    view = {k: v for k, v in info.items() if k in (
                        "role", "master_port", "master_link_status", "connected_slaves") or
                        k.startswith("slave")}
                except OSError as e:
                    view = repr(e)
            out.append("  %s :%d %s" % (d.name, d.port, view))
        for s in self.sentinels:
            try:
                m = s.master()
                view = (m.get("port"), m.get("flags"),
                        [(r["port"], r["flags"]) for r in s.replicas()])
            except OSError as e:
                view = repr(e)
            out.append("  %s :%d %r" % (s.name, s.port, view))
        return "\n".join(out)

    # --- the run --------------------------------------------------------------------------

    def spawn_clients(self):
        a = self.args
        cfg = FailoverConfig(
            sentinels=[s.port for s in self.sentinels],
            locks=["failover:lock:%d" % i for i in range(a.locks)],
            ttl_min_ms=a.ttl_min_ms, ttl_max_ms=a.ttl_max_ms, margin_ms=a.hold_margin_ms,
            wait_ms=a.wait_ms if a.mode == "wait" else 0, deadline=self.deadline,
            log_dir=self.log_dir, reply_timeout_s=a.reply_timeout_s, connect_timeout_s=1.0)
        ctx = multiprocessing.get_context("fork")
        for i in range(a.clients):
            name = "c%03d" % i
            proc = ctx.Process(target=client_main, args=(cfg, name, a.seed * 1_000_003 + i),
                               name=name)
            proc.start()
            self.clients[name] = proc
        return cfg

    def switched(self, since):
        for t, _, data in self.events.since(since, "+switch-master"):
            parts = data.split()
            if len(parts) == 5 and parts[0] == MASTER_NAME:
                return t, int(parts[4])
        return None

    def do_fault(self, kind, node):
        a = self.args
        fault = Fault(kind, node, now())
        self.faults.append(fault)
        give_up = fault.start + int(FAILOVER_WAIT_S * 1e9)
        if kind == "pause":
            node.pause()
            resume_at = fault.start + int(a.pause_ms * 1e6)
        else:
            node.kill()
        while True:
            t = now()
            if fault.switch_at is None:
                sw = self.switched(fault.start)
                if sw is not None:
                    fault.switch_at, fault.new_port = sw
            promoted = a.early_resume and bool(self.events.since(fault.start, "+promoted-slave",
                                                                   sentinel=None))
            if kind == "pause" and (t >= resume_at and fault.switch_at is not None or
                                    promoted or t >= give_up):
                node.resume()
                fault.resumed_at = now()
                kind = "paused"  # from here on, only wait for the switch
            if fault.switch_at is not None and kind != "pause":
                break
            if t >= give_up:
                break
            time.sleep(0.01)
        if fault.switch_at is None:
            self.problem("failover", "no +switch-master within %d s of the %s of %s :%d\n%s" % (
                FAILOVER_WAIT_S, fault.kind, node.name, node.port, self.describe()))
        if fault.kind == "kill":
            if fault.switch_at is not None:
                time.sleep(a.restart_ms / 1000)
            try:
                node.restart()
                fault.resumed_at = now()
            except StartFailed as e:
                self.problem("server", "%s did not start again after its kill: %s" % (
                    node.name, e))
        return fault

    def nemesis(self):
        a = self.args
        kinds = ["pause", "kill"] if a.faults == "both" else [a.faults]
        turn = self.rng.randrange(len(kinds))
        hard_end = self.start + int((a.seconds + a.extra_seconds) * 1e9)
        next_fault = self.start + int(a.first_fault_s * 1e9)
        waited_for_replica = False
        while True:
            t = now()
            failovers = sum(1 for f in self.faults if f.switch_at is not None)
            deadline = self.deadline.value
            if t >= deadline:
                if t >= hard_end:
                    return
                if failovers < a.min_failovers:
                    self.deadline.value = t + int(1e9)  # not enough failovers yet: go on
                elif self.healthy_master() is not None:
                    if not waited_for_replica:
                        return
                    # The master just got a replica back: clients get TAIL_S to use it.
                    waited_for_replica = False
                    self.deadline.value = min(t + int(TAIL_S * 1e9), hard_end)
                else:
                    # With WAIT and min-replicas-to-write the master grants nothing before a
                    # replica follows it (a killed one comes back only when Sentinel converts
                    # it): wait for one.
                    waited_for_replica = True
                    self.deadline.value = min(t + int(0.25e9), hard_end)
                continue
            if t < next_fault:
                time.sleep(0.02)
                continue
            if failovers >= a.min_failovers and (
                    a.max_faults is not None and len(self.faults) >= a.max_faults or
                    t > self.deadline.value - int(FAULT_ROOM_S * 1e9)):
                time.sleep(0.02)
                continue
            if t > hard_end - int((FAILOVER_WAIT_S / 2) * 1e9):
                time.sleep(0.02)
                continue
            master = self.healthy_master()
            if master is None:
                time.sleep(0.05)
                continue
            fault = self.do_fault(kinds[turn % len(kinds)], master)
            turn += 1
            if fault.switch_at is not None:
                end = max(fault.switch_at, fault.resumed_at or 0) + int(TAIL_S * 1e9)
                if end > self.deadline.value:
                    self.deadline.value = min(end, hard_end)
            next_fault = now() + int(self.rng.uniform(a.gap_min_ms, a.gap_max_ms) * 1e6)

    def execute(self):
        a = self.args
        self.setup()
        self.start = now()
        self.deadline.value = self.start + int(a.seconds * 1e9)
        self.spawn_clients()
        self.nemesis()
        self.end = self.deadline.value
        for node in self.data:
            if node.paused:
                node.resume()
        # Clients end the hold they are in (less than a lease, or a reply timeout) and exit;
        # past the deadline a client that finds no master exits at once.
        drain_end = now() + int((a.ttl_max_ms / 1000 + a.reply_timeout_s + 5) * 1e9)
        while now() < drain_end and any(p.exitcode is None for p in self.clients.values()):
            time.sleep(0.02)
        for name, proc in sorted(self.clients.items()):
            if proc.exitcode is None:
                self.problem("error", "client %s still running %.0f s after the end" % (
                    name, (now() - self.end) / 1e9))
            elif proc.exitcode != 0:
                self.problem("error", "client %s exited with status %s" % (name, proc.exitcode))
        self.kill_clients()
        self.check_all_free()

    def check_all_free(self):
        """Every lease ends within ttl_max of the last client's exit: each lock must be gone on
        the master then (PTTL, slept as long as it says)."""
        a = self.args
        try:
            port = self.sentinels[0].master_port()
        except OSError as e:
            self.problem("error", "no master address at the end: %s" % e)
            return
        limit_ms = a.ttl_max_ms + 250
        deadline = now() + limit_ms * 1_000_000
        for i in range(a.locks):
            lock = "failover:lock:%d" % i
            while True:
                try:
                    pttl = ask(port, "PTTL", lock)
                except OSError as e:
                    self.problem("error", "PTTL on the master :%d: %s" % (port, e))
                    return
                if pttl == -2:
                    break
                left_ns = deadline - now()
                if left_ns <= 0 or not isinstance(pttl, int) or pttl < 0:
                    self.problem("lingering", "%s still exists %d ms after the last client left"
                                 " (PTTL %r)" % (lock, limit_ms, pttl))
                    break
                time.sleep(min(pttl + 1, left_ns / 1e6) / 1000)

    def kill_clients(self):
        for proc in self.clients.values():
            if proc.exitcode is None:
                proc.kill()
            proc.join(5)

    def stop_all(self):
        """Sentinels first (no reconfiguration while the nodes stop), then every data node with
        SIGTERM, which must end it with status 0."""
        if self.events is not None:
            self.events.close()
        for s in self.sentinels:
            s.server.close()
        for d in self.data:
            if d.down or d.server.proc is None:
                d.server.log.close()
                continue
            died = d.server.proc.poll()
            status = d.stop()
            if died is not None:
                self.problem("server", "%s exited by itself with status %s" % (d.name, died))
            elif status != 0:
                self.problem("server", "%s: exit status %s on SIGTERM" % (d.name, status))
            report = d.sanitizer_report()
            if report:
                self.problem("server", "%s sanitizer report:\n%s" % (d.name, report))
            d.server.log.close()

    def cleanup(self):
        self.kill_clients()
        if self.events is not None:
            self.events.close()
        for p in self.sentinels + self.data:
            try:
                if getattr(p, "paused", False):
                    p.resume()
                p.server.close()
            except (OSError, ValueError):
                pass

    def histories(self):
        out = {}
        for entry in sorted(os.listdir(self.log_dir)):
            with open(os.path.join(self.log_dir, entry)) as f:
                out[entry[:-len(".log")]] = f.read().splitlines()
        return out

    def write_timeline(self):
        """events.log in the run's directory: every Sentinel event and fault, for a post-mortem."""
        with open(os.path.join(self.tmp, "events.log"), "w") as f:
            f.write("# seconds from the start, CLOCK_MONOTONIC %d ns (the clients' logs)\n"
                    % self.start)
            for t, i, channel, data in (self.events.events if self.events else []):
                f.write("%9.3f sentinel%d %s %s\n" % ((t - self.start) / 1e9, i + 1, channel,
                                                       data))
            for i, fault in enumerate(self.faults, 1):
                f.write("fault %d %s %s :%d at %.3f\n" % (i, fault.kind, fault.node.name,
                                                          fault.old_port,
                                                          (fault.start - self.start) / 1e9))


# --- judging --------------------------------------------------------------------------------

def judge(run):
    a = run.args
    history = lock_check.load(run.histories(), a.slack_ms)
    safety = (history.violations + lock_check.check_overlaps(history.holds) +
              lock_check.check_unique_tokens(history.holds))
    problems = list(run.problems) + [lock_check.Violation("error", e) for e in history.errors]
    grants = sorted((h.granted_at or h.acq_reply, h) for h in history.holds)
    if not grants:
        problems.append(lock_check.Violation("error", "no lock was ever granted"))
    failovers = [f for f in run.faults if f.switch_at is not None]
    if len(failovers) < a.min_failovers:
        problems.append(lock_check.Violation("failover", "%d failovers, %d wanted" % (
            len(failovers), a.min_failovers)))
    # Liveness: each fault's first grant on the node Sentinel promoted; with WAIT, some grant
    # there before the next fault. Without WAIT the clients may well stay on the deposed master.
    for i, fault in enumerate(run.faults):
        nxt = run.faults[i + 1].start if i + 1 < len(run.faults) else run.end
        after = [t for t, h in grants if fault.start <= t <= nxt and h.node is not None and
                 int(h.node) == fault.new_port]
        fault.first_grant = min(after, default=None)
        if fault.switch_at is not None and fault.first_grant is None and a.mode == "wait":
            problems.append(lock_check.Violation("liveness", "no grant on the new master after "
                                                 "failover %d (%s of %s)" % (
                                                     i + 1, fault.kind, fault.node.name)))
    carried(run, history.holds, a.slack_ms)
    switches = run.events.since(run.start, "+switch-master") if run.events else []
    fault_switches = {f.switch_at for f in run.faults}
    run.unprovoked = [(t, data) for t, _, data in switches if t not in fault_switches]
    run.deposed_grants = deposed(grants, run.first_master, switches)
    return history, safety, problems, grants


def carried(run, holds, slack_ms):
    """The leases a failover had to carry: granted by the old master before the fault and still
    running (SET send + ttl) when a client first heard from the new master. Defended: the new
    master refused one of them to a contender (SET NX answered nil) while it ran, before it
    granted that lock to anyone: it had the key."""
    replies = {}  # port -> [(reply_ns, lock, kind)] from F and A lines
    for lines in run.histories().values():
        for line in lines:
            p = line.split()
            try:
                if p and p[0] == "F" and len(p) >= 5:
                    replies.setdefault(int(p[4]), []).append((int(p[3]), p[1], "F"))
                elif p and p[0] == "A" and len(p) >= 9:
                    replies.setdefault(int(p[8]), []).append((int(p[5]), p[1], "A"))
            except ValueError:
                pass
    slack_ns = int(slack_ms * lock_check.MS)
    for fault in run.faults:
        fault.carried, fault.defended = 0, 0
        if fault.switch_at is None:
            continue
        seen = sorted(r for r in replies.get(fault.new_port, []) if r[0] >= fault.start)
        if not seen:
            continue
        first_contact = seen[0][0]
        for h in holds:
            lease_end = h.acq_send + h.ttl_ms * lock_check.MS - slack_ns
            if h.node is None or int(h.node) != fault.old_port or h.acq_reply >= fault.start:
                continue
            if lease_end <= first_contact:
                continue
            fault.carried += 1
            for t, lock, kind in seen:
                if lock != h.lock or t > lease_end:
                    continue
                if kind == "A":
                    break
                fault.defended += 1
                break


def deposed(grants, first_master, switches):
    """Grants made by a node that Sentinel no longer named master: neither the master of the
    last +switch-master before the grant nor the one of the next (Sentinel names the promoted
    replica a little before it publishes the switch)."""
    masters = [(0, first_master)] + [(t, int(data.split()[4])) for t, _, data in switches]
    count = 0
    for t, h in grants:
        if h.node is None:
            continue
        i = max(j for j, (since, _) in enumerate(masters) if since <= t)
        named = {masters[i][1]} | ({masters[i + 1][1]} if i + 1 < len(masters) else set())
        if int(h.node) not in named:
            count += 1
    return count


def gaps(grants, start, end):
    times = [start] + [t for t, _ in grants if start <= t <= end] + [end]
    widest, at = 0, start
    for x, y in zip(times, times[1:]):
        if y - x > widest:
            widest, at = y - x, x
    return widest, at


def summary(run, history, safety, problems, grants):
    a, c = run.args, history.counts
    span_s = (run.end - run.start) / 1e9
    widest, at = gaps(grants, run.start, run.end)
    by_kind = {}
    for v in safety:
        by_kind[v.kind] = by_kind.get(v.kind, 0) + 1
    refused_kinds = sorted((k[len("refused_"):], n) for k, n in c.items()
                           if k.startswith("refused_") and k != "refused_grants")
    error_kinds = sorted((k[len("error_reply_"):], n) for k, n in c.items()
                         if k.startswith("error_reply_"))
    failovers = [f for f in run.faults if f.switch_at is not None]

    def ms(x):
        return "%.0f" % (x / 1e6) if x is not None else "-"

    fields = [
        ("mode", a.mode), ("server", "warden" if a.server == "warden" else "redis-server"),
        ("seconds", "%.1f" % span_s), ("clients", a.clients), ("locks", a.locks),
        ("seed", a.seed),
        ("failovers", "%d(%s)" % (len(failovers), ",".join(
            "%s=%d" % (k, sum(1 for f in failovers if f.kind == k)) for k in ("pause", "kill")))),
        ("unprovoked_switches", len(run.unprovoked)),
        ("grants", len(grants)),
        ("grants_on_deposed_master", run.deposed_grants),
        ("refused", "%d%s" % (c.get("refused_grants", 0), "(%s)" % ",".join(
            "%s=%d" % kv for kv in refused_kinds) if refused_kinds else "")),
        ("undone", c.get("undo_deleted", 0)),
        ("failed_acquires", c.get("failed_acquires", 0)),
        ("releases", "%d(lost=%d)" % (c.get("releases", 0), c.get("lost_release", 0))),
        ("noscript_reloads", c.get("noscript_fallbacks", 0)),
        ("readonly", c.get("readonly_replies", 0)),
        ("noreplicas", c.get("noreplicas_replies", 0)),
        ("other_errors", "%d%s" % (c.get("error_replies", 0), "(%s)" % ",".join(
            "%s=%d" % kv for kv in error_kinds) if error_kinds else "")),
        ("unacked", "%d(acquire=%d,release=%d)" % (
            c.get("unacked_acquires", 0) + c.get("unacked_releases", 0),
            c.get("unacked_acquires", 0), c.get("unacked_releases", 0))),
        ("reconnects", c.get("reconnects", 0)),
        ("grants_per_s", "%.1f" % (len(grants) / span_s if span_s > 0 else 0)),
        ("max_gap_ms", "%s(at=%.1fs)" % (ms(widest), (at - run.start) / 1e9)),
        ("leases_carried", "%d(defended=%d)" % (
            sum(getattr(f, "carried", 0) for f in run.faults),
            sum(getattr(f, "defended", 0) for f in run.faults))),
        ("fault_to_switch_ms", "/".join(ms(f.switch_at - f.start if f.switch_at else None)
                                        for f in run.faults)),
        ("fault_to_grant_ms", "/".join(ms(f.first_grant - f.start if f.first_grant else None)
                                       for f in run.faults)),
        ("violations", "%d%s" % (len(safety), "(%s)" % ",".join(
            "%s=%d" % kv for kv in sorted(by_kind.items())) if by_kind else "")),
        ("setup_s", "%.1f" % run.setup_s),
    ]
    failed = bool(problems) or (a.mode == "wait" and bool(safety))
    return failed, "failover-locks %s " % ("FAIL" if failed else "PASS") + " ".join(
        "%s=%s" % kv for kv in fields)


def timeline(run, grants):
    lines = []
    for i, f in enumerate(run.faults, 1):
        rel = (f.start - run.start) / 1e9
        before = sum(1 for t, _ in grants if t < f.start)
        lines.append("fault %d: %s %s :%d at %.1fs, switch %s -> :%s, %s, first grant %s" % (
            i, f.kind, f.node.name, f.old_port, rel,
            "+%.2fs" % ((f.switch_at - f.start) / 1e9) if f.switch_at else "none",
            f.new_port if f.new_port else "-",
            ("resumed +%.2fs" if f.kind == "pause" else "restarted +%.2fs") % (
                (f.resumed_at - f.start) / 1e9) if f.resumed_at else "not back",
            "+%.2fs" % ((f.first_grant - f.start) / 1e9) if f.first_grant else "none") +
            " (%d grants before)" % before)
    for t, data in run.unprovoked:
        lines.append("unprovoked +switch-master at %.1fs: %s" % ((t - run.start) / 1e9, data))
    return lines


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mode", choices=["wait", "nowait"], default="wait")
    p.add_argument("--server", choices=["warden", "redis"], default="warden",
                   help="the data nodes (the Sentinels are always redis-server --sentinel)")
    p.add_argument("--binary", default=os.path.join(REPO_ROOT, "build", "warden"))
    p.add_argument("--redis-server", default=shutil.which("redis-server") or
                   "/usr/bin/redis-server")
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--extra-seconds", type=float, default=30,
                   help="how much longer the run may go on to see --min-failovers")
    p.add_argument("--min-failovers", type=int, default=2)
    p.add_argument("--max-faults", type=int, default=None)
    p.add_argument("--faults", choices=["both", "pause", "kill"], default="both")
    p.add_argument("--first-fault-s", type=float, default=2.0)
    p.add_argument("--gap-min-ms", type=int, default=1500,
                   help="time between a fault's end and the next fault, at least")
    p.add_argument("--gap-max-ms", type=int, default=3000)
    p.add_argument("--down-after-ms", type=int, default=1000,
                   help="Sentinel's down-after-milliseconds")
    p.add_argument("--pause-ms", type=int, default=2500)
    p.add_argument("--early-resume", action="store_true",
                   help="resume a paused master as soon as a replica is promoted, mid-failover")
    p.add_argument("--restart-ms", type=int, default=1000,
                   help="from the switch to the killed master's restart")
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--locks", type=int, default=4)
    p.add_argument("--ttl-min-ms", type=int, default=1000)
    p.add_argument("--ttl-max-ms", type=int, default=4000)
    p.add_argument("--hold-margin-ms", type=int, default=300,
                   help="holds end this long before the SET's send + ttl")
    p.add_argument("--wait-ms", type=int, default=250, help="WAIT 1 <wait-ms> (--mode wait)")
    p.add_argument("--min-replicas-max-lag", type=int, default=2)
    p.add_argument("--reply-timeout-s", type=float, default=5.0,
                   help="a reply slower than this is a lost connection")
    p.add_argument("--slack-ms", type=float, default=2)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--keep-logs", action="store_true")
    args = p.parse_args(argv)
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1, 1 << 31)
    if not 0 < args.ttl_min_ms <= args.ttl_max_ms or args.hold_margin_ms >= args.ttl_min_ms:
        p.error("need 0 < --ttl-min-ms <= --ttl-max-ms and --hold-margin-ms < --ttl-min-ms")
    if args.clients < 1 or args.locks < 1 or args.min_failovers < 0:
        p.error("need --clients >= 1, --locks >= 1, --min-failovers >= 0")
    return args


def main(argv):
    args = parse_args(argv)

    def on_signal(signum, _frame):
        raise RunFailed("interrupted by signal %d" % signum)

    signal.signal(signal.SIGALRM, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    signal.alarm(int(args.seconds + args.extra_seconds + HARD_TIMEOUT_EXTRA_S))
    binary = args.binary if args.server == "warden" else args.redis_server
    if not os.access(binary, os.X_OK) or not os.access(args.redis_server, os.X_OK):
        print("failover-locks ERROR: no binary at %s or %s" % (binary, args.redis_server),
              file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix="failover-locks-")
    run = Run(args, tmp)
    failed = True
    try:
        run.execute()
        run.stop_all()
        signal.alarm(0)
        run.write_timeline()
        history, safety, problems, grants = judge(run)
        for line in timeline(run, grants):
            print(line)
        for v in problems[:20]:
            print("PROBLEM %s: %s" % (v.kind, v.text))
        for v in safety[:20]:
            print("VIOLATION %s: %s" % (v.kind, v.text))
        if len(safety) > 20:
            print("... %d more violations" % (len(safety) - 20))
        failed, line = summary(run, history, safety, problems, grants)
        print(line, flush=True)
        return 1 if failed else 0
    except (RunFailed, StartFailed, KeyboardInterrupt, OSError) as e:
        print("failover-locks ERROR %s: %s" % (type(e).__name__, e), file=sys.stderr)
        return 2
    finally:
        signal.alarm(0)
        run.cleanup()
        if failed or args.keep_logs:
            print("logs kept in %s" % tmp, file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
