#!/usr/bin/env python3
"""Lock-safety stress test: dozens of client processes take, renew and release a handful of
locks on one server, with SET NX PX, the token-checked PEXPIRE script and the compare-and-delete
script. Some stall past their lease and then renew or release late, some vanish while holding
(SIGKILL, socket closed, socket reset), the server is stopped (SIGSTOP) and resumed a few times
and its script cache flushed, so clients fall back from EVALSHA to EVAL.

Every reply is logged with CLOCK_MONOTONIC timestamps and judged afterwards by lock_check.py:
no two clients held one lock at once, no renewal or release touched a lock that was not the
caller's, and a vanished holder's lock was free again within its lease plus --margin-ms. The
reasoning behind each check is at the top of lock_check.py.

    /usr/bin/python3 tests/stress/lock_safety.py                      # warden, 20 s
    /usr/bin/python3 tests/stress/lock_safety.py --seconds 8          # the CI run
    /usr/bin/python3 tests/stress/lock_safety.py --server redis       # redis-server 7.0
    /usr/bin/python3 tests/stress/lock_safety.py --seconds 120        # the long run
    /usr/bin/python3 tests/stress/lock_safety.py --broken-clients     # must FAIL: checker check
    /usr/bin/python3 tests/stress/lock_safety.py --kill-restarts 3    # SIGKILL + restart on AOF
    /usr/bin/python3 tests/stress/lock_safety.py --kill-restarts 3 --no-persistence  # must FAIL

With --kill-restarts N the server runs with the append-only file (appendfsync always, a temporary
--dir) on a fixed port and is killed with SIGKILL N times at random moments, then started again on
the same directory and port after a random delay; the clients reconnect, and a request whose
connection dropped is logged as unacknowledged and judged as such (lock_check.py). With
--no-persistence the same kills hit a server without the file, which forgets every lock: the
checker must find violations, which is why the file is needed.

Exits 0 when every check passes, 1 on any violation, 2 when the run itself could not be done.
Standard library only; the server and every client are children of this process, killed by PID
on any exit.
"""

import argparse
import multiprocessing
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ left in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lock_check  # noqa: E402
from crash_server import CrashServer, StartFailed, stable_port  # noqa: E402
from lock_client import ClientConfig, Conn, client_main, die_with_parent  # noqa: E402

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SANITIZER_REPORT = re.compile(rb"ERROR: (Address|Leak)Sanitizer|runtime error:|AddressSanitizer")
# Past this many seconds beyond --seconds the run is abandoned, whatever it is waiting for.
HARD_TIMEOUT_EXTRA_S = 60
STOP_WAIT_S = 10
# Clients that vanish this close to the end are not replaced: a new one would do nothing.
RESPAWN_CUTOFF_S = 1.0


class RunFailed(Exception):
    """The run could not be carried out (server did not start, hard timeout): exit 2."""


def now():
    return time.monotonic_ns()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """The server under test, a child of this process; its output goes to a log file."""

    def __init__(self, args, tmp):
        self.log_path = os.path.join(tmp, "server.log")
        self.proc = None
        self.paused_since = None
        self.crash = None
        if args.kill_restarts:
            self._start_restartable(args, tmp)
            return
        self.log = open(self.log_path, "wb")
        if args.server == "warden":
            port_file = os.path.join(tmp, "warden.port")
            self._spawn([args.binary, "--port", "0", "--port-file", port_file,
                         "--bind", "127.0.0.1"])
            end = time.monotonic() + 10
            while not os.path.exists(port_file):
                if self.proc.poll() is not None or time.monotonic() > end:
                    raise RunFailed("warden did not write its port file; see " + self.log_path)
                time.sleep(0.01)
            with open(port_file) as f:
                self.port = int(f.read())
        else:
            self.port = free_port()
            self._spawn([args.redis_server, "--port", str(self.port), "--bind", "127.0.0.1",
                         "--save", "", "--appendonly", "no", "--daemonize", "no"])
        self._wait_ping()

    def _start_restartable(self, args, tmp):
        """--kill-restarts: a fixed port (clients reconnect to it) outside the ephemeral range,
        the append-only file in a directory of the run (or, with --no-persistence, none)."""
        self.port = stable_port()
        data = os.path.join(tmp, "data")
        os.mkdir(data)
        persistence = ["--appendonly", "no" if args.no_persistence else "yes",
                       "--appendfsync", args.appendfsync, "--dir", data]
        if args.server == "warden":
            argv = [args.binary, "--port", str(self.port), "--bind", "127.0.0.1"]
        else:
            argv = [args.redis_server, "--port", str(self.port), "--bind", "127.0.0.1",
                    "--save", "", "--daemonize", "no"]
        try:
            self.crash = CrashServer(argv + persistence, self.port, self.log_path)
            self.log = self.crash.log
            self.crash.start()
        except StartFailed as e:
            raise RunFailed(str(e))
        self.proc = self.crash.proc

    def kill(self):
        """SIGKILL by PID; returns the CLOCK_MONOTONIC ns of the signal."""
        return self.crash.kill()

    def restart(self):
        """Starts the killed server again on the same directory and port; returns when it
        answers PING. StartFailed if it does not come back."""
        try:
            self.crash.start()
        finally:
            self.proc = self.crash.proc

    def _spawn(self, argv):
        if not os.access(argv[0], os.X_OK):
            raise RunFailed("no server binary at %s" % argv[0])
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, preexec_fn=die_with_parent)

    def _wait_ping(self):
        end = time.monotonic() + 10
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RunFailed("server exited with %s; see %s" % (self.proc.returncode,
                                                                   self.log_path))
            try:
                conn = Conn(self.port, 2)
                pong = conn.call("PING")
                conn.close()
                if pong == "PONG":
                    return
            except OSError:
                pass
            time.sleep(0.02)
        raise RunFailed("server did not answer PING on port %d" % self.port)

    def pause(self):
        self.paused_since = now()
        os.kill(self.proc.pid, signal.SIGSTOP)

    def resume(self):
        """Resumes a paused server; returns the pause as (start_ns, end_ns)."""
        os.kill(self.proc.pid, signal.SIGCONT)
        span = (self.paused_since, now())
        self.paused_since = None
        return span

    def stop(self):
        """SIGTERM and wait; returns the exit status (None if it had to be killed)."""
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        if self.paused_since is not None:
            self.resume()
        self.proc.terminate()
        try:
            return self.proc.wait(STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None

    def sanitizer_report(self):
        self.log.flush()
        with open(self.log_path, "rb") as f:
            text = f.read()
        match = SANITIZER_REPORT.search(text)
        return None if match is None else text[max(0, match.start() - 200):][:3000].decode(
            errors="replace")


def schedule(rng, count, seconds, lo_ms, hi_ms):
    """`count` non-overlapping (start_s, duration_s) spans over the middle of the run: one random
    span per equal slot, so they are spread out and never touch."""
    return schedule_spans(rng, [(lo_ms, hi_ms)] * count, seconds)


def schedule_spans(rng, ranges_ms, seconds):
    """schedule() with a duration range per span, in order."""
    first, last = 0.15 * seconds, 0.85 * seconds
    slot = (last - first) / max(len(ranges_ms), 1)
    spans = []
    for i, (lo_ms, hi_ms) in enumerate(ranges_ms):
        duration = min(rng.uniform(lo_ms, hi_ms) / 1000, slot * 0.8)
        spans.append((first + i * slot + rng.uniform(0, slot - duration), duration))
    return spans


class Run:
    def __init__(self, args, tmp):
        self.args, self.tmp = args, tmp
        self.rng = random.Random(args.seed)
        self.log_dir = os.path.join(tmp, "clients")
        os.mkdir(self.log_dir)
        self.server = None
        self.clients = {}  # name -> multiprocessing.Process
        self.next_client = 0
        self.pauses = []  # (start_ns, end_ns)
        self.downs = []  # (kill_ns, answering_again_ns) with --kill-restarts
        self.down_since = None
        self.control = None
        self.flushes = 0
        self.problems = []  # Violation: everything that is not a lock-history judgement

    def spawn(self, cfg):
        name = "c%03d" % self.next_client
        seed = self.args.seed * 1_000_003 + self.next_client
        self.next_client += 1
        proc = multiprocessing.get_context("fork").Process(target=client_main,
                                                           args=(cfg, name, seed), name=name)
        proc.start()
        self.clients[name] = proc

    def reap(self, cfg, respawn):
        for name, proc in list(self.clients.items()):
            if proc.exitcode is None:
                continue
            del self.clients[name]
            if proc.exitcode == -signal.SIGKILL:  # vanished on purpose, logged as a V line
                if respawn:
                    self.spawn(cfg)
            elif proc.exitcode != 0:
                self.problems.append(lock_check.Violation(
                    "error", "client %s exited with status %s" % (name, proc.exitcode)))

    def execute(self):
        a = self.args
        self.server = Server(a, self.tmp)
        self.control = Conn(self.server.port, 10)
        start = now()
        deadline = start + int(a.seconds * 1e9)
        cfg = ClientConfig(port=self.server.port,
                           locks=["stress:lock:%d" % i for i in range(a.locks)],
                           ttl_min_ms=a.ttl_min_ms, ttl_max_ms=a.ttl_max_ms, deadline_ns=deadline,
                           log_dir=self.log_dir, reply_timeout_s=10 + a.pause_max_ms / 1000,
                           broken=a.broken_clients, reconnect=a.kill_restarts > 0)
        for _ in range(a.clients):
            self.spawn(cfg)
        pauses, kills = self.plan(start)
        flushes = sorted(start + int(self.rng.uniform(0.1, 0.9) * a.seconds * 1e9)
                         for _ in range(a.script_flushes))

        restart_failed = False
        while now() < deadline:
            t = now()
            up = self.down_since is None
            if up and self.server.paused_since is None and pauses and t >= pauses[0][0]:
                self.server.pause()
            elif self.server.paused_since is not None and t >= pauses[0][1]:
                self.pauses.append(self.server.resume())
                pauses.pop(0)
            elif up and self.server.paused_since is None and kills and t >= kills[0][0]:
                self.kill_server()
            elif not up and t >= kills[0][1]:
                kills.pop(0)
                if not self.restart_server():
                    restart_failed = True
                    break
            # The control connection waits for the server: never use it while it is stopped.
            if (self.down_since is None and self.server.paused_since is None and flushes and
                    t >= flushes[0]):
                flushes.pop(0)
                reply = self.control.call("SCRIPT", "FLUSH")
                if reply != "OK":
                    raise RunFailed("SCRIPT FLUSH answered %r" % (reply,))
                self.flushes += 1
            if self.down_since is None and self.server.proc.poll() is not None:
                break
            self.reap(cfg, respawn=now() < deadline - int(RESPAWN_CUTOFF_S * 1e9))
            time.sleep(0.01)
        if self.server.paused_since is not None:
            self.pauses.append(self.server.resume())
        if self.down_since is not None and not restart_failed:
            restart_failed = not self.restart_server()

        if restart_failed:
            self.kill_clients()
        elif self.server.proc.poll() is not None:
            self.problems.append(lock_check.Violation(
                "error", "server exited during the run with status %s" % (
                    self.server.proc.returncode)))
            self.kill_clients()
        else:
            # Clients finish the hold they are in; the longest is a renewed one of 2 leases.
            drain_end = now() + int((2 * a.ttl_max_ms / 1000 + 5) * 1e9)
            while self.clients and now() < drain_end:
                self.reap(cfg, respawn=False)
                time.sleep(0.01)
            for name in self.clients:
                self.problems.append(lock_check.Violation(
                    "error", "client %s still running %.0f s after the end" % (
                        name, (now() - deadline) / 1e9)))
            self.kill_clients()
            self.check_all_free(self.control, cfg.locks)
            # Stopped with the control connection still open: Redis exits on SIGTERM whatever
            # its clients do, and a server that waits for them would hang a deploy.
            status = self.server.stop()
            if status != 0:
                self.problems.append(lock_check.Violation("error", (
                    "server still running %d s after SIGTERM, killed" % STOP_WAIT_S
                    if status is None else "server exit status on SIGTERM: %s" % status)))
        if self.control is not None:
            self.control.close()
        report = self.server.sanitizer_report()
        if report:
            self.problems.append(lock_check.Violation("error", "sanitizer report:\n" + report))

    def plan(self, start):
        """The pauses and, with --kill-restarts, the kills, as (start_ns, end_ns) spans that never
        overlap; a kill's span is the time the server stays down before it is started again."""
        a = self.args

        def span(s, d):
            return start + int(s * 1e9), start + int((s + d) * 1e9)

        if not a.kill_restarts:
            return [span(s, d) for s, d in schedule(self.rng, a.pauses, a.seconds, a.pause_min_ms,
                                                    a.pause_max_ms)], []
        kinds = ["pause"] * a.pauses + ["kill"] * a.kill_restarts
        self.rng.shuffle(kinds)
        spans = schedule_spans(self.rng, [(a.pause_min_ms, a.pause_max_ms) if k == "pause" else
                                          (a.down_min_ms, a.down_max_ms) for k in kinds],
                               a.seconds)
        return ([span(*sp) for k, sp in zip(kinds, spans) if k == "pause"],
                [span(*sp) for k, sp in zip(kinds, spans) if k == "kill"])

    def kill_server(self):
        self.down_since = self.server.kill()
        self.control.close()
        self.control = None

    def restart_server(self):
        """False (and a violation) when the killed server does not come back on its file."""
        try:
            self.server.restart()
        except StartFailed as e:
            if e.in_use:
                raise RunFailed("port %d taken by another process: %s" % (self.server.port, e))
            self.problems.append(lock_check.Violation(
                "error", "server did not start again after kill %d: %s" % (
                    len(self.downs) + 1, e)))
            return False
        self.downs.append((self.down_since, now()))
        self.down_since = None
        self.control = Conn(self.server.port, 10)
        return True

    def check_all_free(self, control, locks):
        """Every client is gone, so every lease runs out within ttl_max of now: wait for each
        lock to be gone, for no longer than ttl_max + margin, sleeping only as long as PTTL says
        the lease still has."""
        limit_ms = self.args.ttl_max_ms + self.args.margin_ms
        deadline = now() + limit_ms * 1_000_000
        for lock in locks:
            while True:
                pttl = control.call("PTTL", lock)
                if pttl == -2:
                    break
                left_ns = deadline - now()
                if left_ns <= 0 or not isinstance(pttl, int) or pttl < 0:
                    self.problems.append(lock_check.Violation(
                        "lingering", "%s still exists %d ms after the last client left "
                        "(PTTL %r)" % (lock, limit_ms, pttl)))
                    break
                time.sleep(min(pttl + 1, left_ns / 1e6) / 1000)

    def kill_clients(self):
        for proc in self.clients.values():
            if proc.exitcode is None:
                proc.kill()  # SIGKILL to this child's PID
            proc.join(5)
        self.clients.clear()

    def cleanup(self):
        self.kill_clients()
        if self.server is not None:
            self.server.stop()
            self.server.log.close()

    def histories(self):
        out = {}
        for entry in sorted(os.listdir(self.log_dir)):
            with open(os.path.join(self.log_dir, entry)) as f:
                out[entry[:-len(".log")]] = f.read().splitlines()
        return out


def judge(run):
    a = run.args
    history = lock_check.load(run.histories(), a.slack_ms)
    # Nobody can acquire while the server is stopped or down: both leave out of time-to-free.
    liveness, lingering = lock_check.check_liveness(history, run.pauses + run.downs, a.slack_ms,
                                                    a.margin_ms)
    violations = (history.violations + lock_check.check_overlaps(history.holds) + lingering +
                  [lock_check.Violation("error", e) for e in history.errors] + run.problems)
    if history.counts.get("holds", 0) == 0:
        violations.append(lock_check.Violation("error", "no lock was ever taken"))
    return history, liveness, violations


def summary(run, history, liveness, violations):
    a, c = run.args, history.counts
    measured = [r for r in liveness if r.free_after_ms is not None]
    worst_free = max(measured, key=lambda r: r.free_after_ms, default=None)
    worst_vanish = max(measured, key=lambda r: r.vanish_to_free_ms, default=None)
    proven = [r.lingered_ms for r in liveness if r.lingered_ms is not None]
    by_kind = {}
    for v in violations:
        by_kind[v.kind] = by_kind.get(v.kind, 0) + 1
    fields = [
        ("server", a.server), ("seconds", "%g" % a.seconds), ("clients", a.clients),
        ("locks", a.locks), ("seed", a.seed),
        ("holds", c.get("holds", 0)), ("renewals", c.get("renewals", 0)),
        ("releases", c.get("releases", 0)), ("failed_acquires", c.get("failed_acquires", 0)),
        ("stalls", c.get("stalls", 0)), ("late_ops_refused", c.get("stale_rejected", 0)),
        ("vanished", "%d(kill=%d,close=%d,reset=%d)" % (
            c.get("vanished", 0), c.get("vanished_kill", 0), c.get("vanished_close", 0),
            c.get("vanished_reset", 0))),
        ("liveness_measured", "%d/%d" % (len(measured), len(liveness))),
        ("max_free_after_lease_ms", "%.1f" % worst_free.free_after_ms if worst_free else "-"),
        ("margin_ms", a.margin_ms),
        ("max_vanish_to_free_ms", "%.0f(ttl=%d)" % (worst_vanish.vanish_to_free_ms,
                                                     worst_vanish.hold.last_ttl_ms)
         if worst_vanish else "-"),
        ("max_proven_lingering_ms", "%.1f" % max(proven) if proven else "-"),
        ("pauses", "%d(%.0fms)" % (len(run.pauses),
                                   sum(e - s for s, e in run.pauses) / lock_check.MS)),
        ("script_flushes", run.flushes), ("noscript_fallbacks", c.get("noscript_fallbacks", 0)),
        ("lost_renewals", c.get("lost_renewal", 0)),
    ]
    if a.kill_restarts:
        fields += [
            ("persistence", "none" if a.no_persistence else "aof-" + a.appendfsync),
            ("kills", "%d(down=%.0fms)" % (len(run.downs), sum(e - s for s, e in run.downs) /
                                           lock_check.MS)),
            ("unacked", "%d(acquire=%d,renew=%d,release=%d)" % (
                c.get("unacked_acquires", 0) + c.get("unacked_renewals", 0) +
                c.get("unacked_releases", 0), c.get("unacked_acquires", 0),
                c.get("unacked_renewals", 0), c.get("unacked_releases", 0))),
            ("reconnects", c.get("reconnects", 0)),
        ]
    fields += [
        ("violations", "%d%s" % (len(violations), "(%s)" % ",".join(
            "%s=%d" % kv for kv in sorted(by_kind.items())) if by_kind else "")),
    ]
    verdict = "FAIL" if violations else "PASS"
    return "lock-safety %s " % verdict + " ".join("%s=%s" % kv for kv in fields)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--server", choices=["warden", "redis"], default="warden")
    p.add_argument("--binary", default=os.path.join(REPO_ROOT, "build", "warden"),
                   help="warden binary (default build/warden)")
    p.add_argument("--redis-server", default="/usr/bin/redis-server")
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--clients", type=int, default=32)
    p.add_argument("--locks", type=int, default=4)
    p.add_argument("--ttl-min-ms", type=int, default=300)
    p.add_argument("--ttl-max-ms", type=int, default=1500)
    p.add_argument("--pauses", type=int, default=3, help="SIGSTOP/SIGCONT pauses of the server")
    p.add_argument("--pause-min-ms", type=int, default=200)
    p.add_argument("--pause-max-ms", type=int, default=800)
    p.add_argument("--script-flushes", type=int, default=3)
    p.add_argument("--margin-ms", type=int, default=250,
                   help="how long past its lease a vanished holder's lock may stay taken")
    p.add_argument("--slack-ms", type=float, default=2,
                   help="server wall clock against CLOCK_MONOTONIC, taken off every window")
    p.add_argument("--seed", type=int, default=None, help="fixes every random choice but timing")
    p.add_argument("--keep-logs", action="store_true", help="keep the event logs even on PASS")
    p.add_argument("--broken-clients", action="store_true",
                   help="release with DEL and renew with PEXPIRE: the run must FAIL")
    p.add_argument("--kill-restarts", type=int, default=0, metavar="N",
                   help="SIGKILL the server N times and start it again on its append-only file")
    p.add_argument("--no-persistence", action="store_true",
                   help="with --kill-restarts, no append-only file: the run must FAIL")
    p.add_argument("--appendfsync", choices=["always", "everysec", "no"], default="always",
                   help="with --kill-restarts (default always)")
    p.add_argument("--down-min-ms", type=int, default=0,
                   help="with --kill-restarts: time down before the restart, at least")
    p.add_argument("--down-max-ms", type=int, default=500,
                   help="with --kill-restarts: time down before the restart, at most")
    args = p.parse_args(argv)
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1, 1 << 31)
    if not 0 < args.ttl_min_ms <= args.ttl_max_ms or args.clients < 1 or args.locks < 1:
        p.error("need 0 < --ttl-min-ms <= --ttl-max-ms, --clients >= 1, --locks >= 1")
    if args.kill_restarts < 0 or not 0 <= args.down_min_ms <= args.down_max_ms:
        p.error("need --kill-restarts >= 0 and 0 <= --down-min-ms <= --down-max-ms")
    if args.no_persistence and not args.kill_restarts:
        p.error("--no-persistence only means something with --kill-restarts")
    return args


def main(argv):
    args = parse_args(argv)

    def on_signal(signum, _frame):
        raise RunFailed("interrupted by signal %d" % signum)

    signal.signal(signal.SIGALRM, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    signal.alarm(int(args.seconds + HARD_TIMEOUT_EXTRA_S))
    tmp = tempfile.mkdtemp(prefix="lock-safety-")
    run = Run(args, tmp)
    failed = True
    try:
        run.execute()
        signal.alarm(0)
        history, liveness, violations = judge(run)
        for v in violations[:20]:
            print("VIOLATION %s: %s" % (v.kind, v.text))
        if len(violations) > 20:
            print("... %d more" % (len(violations) - 20))
        print(summary(run, history, liveness, violations), flush=True)
        failed = bool(violations)
        return 1 if failed else 0
    except (RunFailed, KeyboardInterrupt, OSError) as e:
        print("lock-safety ERROR %s: %s" % (type(e).__name__, e), file=sys.stderr)
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
