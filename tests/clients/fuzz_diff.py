#!/usr/bin/env python3
"""Randomized differential tester: warden against redis-server 7.0, reply by reply.

Each seed drives a random.Random into a sequence of commands over a small keyspace, valid and
invalid: SET with random options, the expire family, TTLs, INCR, KEYS, SCAN, lock scripts and
random small Lua scripts, unknown commands and bad arities. Keys get short PX TTLs and the
sequence sends DEBUG SLEEP to both servers, so keys expire mid-sequence. Every command goes to
both servers before either reply is read, so both block for the same real time and nothing in
this process sleeps.

Replies are compared as raw bytes, except where two Redis servers may legitimately differ:
TTLs within a tolerance, KEYS as a sorted list, SCAN as the set of keys of a full iteration,
HELLO without its connection id, and for hashes and sets (fuzz/commands.py): iteration order
only where the encoding makes it deterministic, random picks (SRANDMEMBER, HRANDFIELD, SPOP) by
count and membership in the value read just before, HSCAN/SSCAN as full iterations, MEMORY
USAGE and OBJECT IDLETIME loosely, and for streams (fuzz/stream_commands.py, which never lets
an entry id come from a server's clock where the id is compared) the idle, seen and delivery
times in XPENDING and XINFO replies within 1 s, the rest of those replies exactly, FUNCTION
LIST sorted and FUNCTION LOAD's "Function <name> already exists" by its form when several
functions are taken (fuzz/function_commands.py), geo searches with COUNT n ANY by count and
membership in the same search without it (fuzz/geo_commands.py), and SORT where a hash
table's order shows as a multiset of element groups (fuzz/sort_commands.py). Bitmaps and
HyperLogLogs are compared exactly, HLL bytes included; a corrupted HLL is SET from the bytes a
GET just read, mutated (fuzz/hll_commands.py). After an
SPOP both servers drop whatever either one popped, so their keyspaces stay identical.

Client-side caching (fuzz/tracking.py): a seed may open a tracking connection and a redirect
target on each server, turn CLIENT TRACKING on there (RESP3, or REDIRECT to a subscriber) and
read keys on it while the main connection writes. After every command the tester sends PING on
both and compares every frame that arrived before the PONG (the invalidations, their order,
the keys inside each) exactly, but after a full SCAN (which removes lapsed keys in hash table
order) as the set of keys invalidated; those seeds run with active expiry off.

On a mismatch the sequence is shrunk (delta debugging over the command list) and printed as a
tests/differential case file, with both replies (commands of the tracking connections marked
track: and sub:).

    python3 tests/clients/fuzz_diff.py                    # seeds 1..20, 300 commands each
    python3 tests/clients/fuzz_diff.py --seeds 1000       # the long run
    python3 tests/clients/fuzz_diff.py --seed 17 -v       # one seed, every command printed
    python3 tests/clients/fuzz_diff.py --both-redis       # harness check: Redis on both sides
    python3 tests/clients/fuzz_diff.py --focus geo        # every seed leans towards one family

Without --warden-port/--redis-port it starts both servers itself (--warden, --redis-server).
Standard library only.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuzz.commands import FOCUS, Command, generate  # noqa: E402
from fuzz.compare import (HLL_DEFAULTS, STREAM_NODE_DEFAULTS, elements, hscan_all,  # noqa: E402
                          parse_int, popped, replies_match, scan_all)
from fuzz.resp import (ConnectionLost, RespConnection, start_redis, start_warden,  # noqa: E402
                       to_bytes)
from fuzz.tracking import TrackingSide, invalidated_keys  # noqa: E402

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

@dataclass
class Mismatch:
    index: int
    command: Command
    reference: object
    candidate: object
    kind: str = "reply"  # or "pushes": the frames on the tracking connections after it


class Pair:
    """A connection to each server; every command goes to both before either reply is read.
    The tracking connections (fuzz/tracking.py) open when a command first goes on one."""

    def __init__(self, ref_port, cand_port):
        self.ports = (ref_port, cand_port)
        self.conns = None
        self.sides = None

    def reset(self, active_expiry):
        self.close()
        self.conns = [RespConnection(p) for p in self.ports]
        self.sides = [TrackingSide(p) for p in self.ports]
        # math.random draws from one generator per server that SCRIPT FLUSH does not reset, so
        # earlier scripts (other suites, earlier seeds) would shift it: seed it, then forget
        # the seeding script.
        for conn in self.conns:
            for setup in (["FLUSHALL"], ["EVAL", "math.randomseed(1)", "0"], ["SCRIPT", "FLUSH"],
                          ["FUNCTION", "FLUSH"],
                          ["DEBUG", "SET-ACTIVE-EXPIRE", "1" if active_expiry else "0"],
                          STREAM_NODE_DEFAULTS, HLL_DEFAULTS):
                reply = conn.call(*setup)
                if reply not in (("+", b"OK"), ("$", None)):
                    raise RuntimeError("setup %s answered %r" % (setup, reply))

    def close(self):
        for conn in self.conns or []:
            try:
                for restore in (["DEBUG", "SET-ACTIVE-EXPIRE", "1"], STREAM_NODE_DEFAULTS,
                                HLL_DEFAULTS):
                    conn.send(restore)
                    conn.read_reply()
            except (OSError, ConnectionLost):
                pass
            conn.close()
        self.conns = None
        for side in self.sides or []:
            side.close()
        self.sides = None

    def run(self, cmd):
        """Returns both replies (parsed; ("lost", reason) when a connection broke). With probes
        (cmd.pre) each is ("multi", [probe replies..., reply])."""
        if cmd.conn != "main":
            return self._run_tracking(cmd)
        if cmd.derive is not None:
            return self._run_derived(cmd)
        if cmd.mode == "scan":
            return tuple(self._guard(lambda c: scan_all(c, cmd.args), c) for c in self.conns)
        if cmd.mode == "hscan":
            return tuple(self._guard(lambda c: hscan_all(c, cmd), c) for c in self.conns)
        batch = list(cmd.pre) + [cmd.args]
        for conn in self.conns:
            try:
                for args in batch:
                    conn.send(args)
            except OSError:
                pass
        replies = tuple(self._guard(lambda c: ("multi", [c.read_reply() for _ in batch]), c)
                        for c in self.conns)
        if cmd.mode == "spop":
            self._resync_after_spop(cmd, replies)
        if not cmd.pre:
            replies = tuple(r if r[0] == "lost" else r[1][0] for r in replies)
        return replies

    def _run_tracking(self, cmd):
        for side in self.sides:
            try:
                side.send(cmd)
            except (OSError, ConnectionLost):
                pass
        return tuple(self._guard(lambda side: side.read(cmd), side) for side in self.sides)

    def _run_derived(self, cmd):
        """The probes on both servers, then the command built from the reference's probe
        replies, the same bytes to both."""
        for conn in self.conns:
            try:
                for args in cmd.pre:
                    conn.send(args)
            except OSError:
                pass
        probes = [self._guard(lambda c: ("multi", [c.read_reply() for _ in cmd.pre]), c)
                  for c in self.conns]
        if probes[0][0] == "lost":
            return tuple(probes)
        cmd.sent = cmd.derive(probes[0][1])
        replies = []
        for conn, probe in zip(self.conns, probes):
            replies.append(probe if probe[0] == "lost" else
                           self._guard(lambda c: ("multi", probe[1] + [c.call(*cmd.sent)]),
                                       conn))
        return tuple(replies)

    def sync(self):
        """Both servers' frames waiting on the tracking connections (fuzz/tracking.py), or None
        while no sequence command has opened one."""
        if not any(side.conns for side in self.sides):
            return None
        return tuple(self._guard(lambda side: side.sync(), side) for side in self.sides)

    def _resync_after_spop(self, cmd, replies):
        """Each server popped its own random members: remove from both whatever either popped,
        so that both sets hold the same members again. When SPOP rebuilt the set from the
        members it kept (count < size and 5 * (size - count) <= count), the new set's encoding
        depends on which those were (a hashtable whose kept members are all integers becomes an
        intset): the key is deleted instead, even when both kept the same members, so that no
        later reply depends on the random draw."""
        if any(r[0] == "lost" for r in replies):
            return
        pops = [popped(r[1][1]) for r in replies]
        if pops[0] is None or pops[1] is None:
            return
        size = len(elements(replies[0][1][0]))
        count = parse_int(cmd.args[2]) if len(cmd.args) == 3 else None
        rebuilt = count is not None and count < size and (size - count) * 5 <= count
        if rebuilt:
            fix = ["DEL", cmd.args[1]]
        elif set(pops[0]) != set(pops[1]):
            fix = ["SREM", cmd.args[1]] + sorted(set(pops[0]) | set(pops[1]), key=repr)
        else:
            return
        for conn in self.conns:
            self._guard(lambda c: c.call(*fix), conn)

    @staticmethod
    def _guard(fn, conn):
        try:
            return fn(conn)
        except (ConnectionLost, OSError, ValueError) as e:
            return ("lost", str(e))


def run_sequence(pair, active_expiry, commands, verbose=False):
    """Runs commands on fresh connections; returns the first Mismatch or None."""
    pair.reset(active_expiry)
    for i, cmd in enumerate(commands):
        ref, cand = pair.run(cmd)
        if verbose:
            print("  %4d %-60.60s %s" % (i, cmd.case_lines()[-1], show(ref)))
        if not replies_match(cmd, ref, cand):
            return Mismatch(i, cmd, ref, cand)
        pushes = pair.sync()
        if pushes is not None:
            if verbose and pushes[0] != ("frames", []):
                print("  %4s %-60s %s" % ("", "(tracking frames)", show(pushes[0])))
            if pushes[0] != pushes[1] and not (
                    cmd.mode == "scan" and "lost" not in (pushes[0][0], pushes[1][0])
                    and invalidated_keys(pushes[0]) == invalidated_keys(pushes[1])):
                return Mismatch(i, cmd, pushes[0], pushes[1], "pushes")
        if ref[0] == "lost":
            pair.reset(active_expiry)  # both broke the same way: carry on with new connections
    return None


def show(value):
    if value[0] == "lost":
        return "<%s>" % value[1]
    if value[0] == "keys":
        return "{%s}" % ", ".join(sorted(repr(k)[1:] for k in value[1]))
    if value[0] == "multi":
        return " ; ".join(show(v) for v in value[1])
    if value[0] == "frames":
        return "[%s]" % " ; ".join(
            "%s: %s" % (v[0], show(v[1])) if isinstance(v[0], str) and len(v[0]) > 1 else show(v)
            for v in value[1])
    if value[0] == "items":
        if value[1] is None:
            return "<no full iteration>"
        return "{%s}" % ", ".join(sorted(repr(k) for k in value[1]))
    return repr(to_bytes(value))[1:]


def shrink(pair, active_expiry, commands, first, budget_s):
    """Delta debugging (ddmin) over the command list, keeping a mismatch on the same command
    name as `first`. Stops refining after budget_s seconds."""
    name = (first.command.args[0], first.kind)
    deadline = time.monotonic() + budget_s

    def fails(candidate):
        m = run_sequence(pair, active_expiry, candidate)
        return m is not None and (m.command.args[0], m.kind) == name, m

    current = commands[: first.index + 1]
    n = 2
    while len(current) >= 2 and time.monotonic() < deadline:
        chunk = max(1, len(current) // n)
        reduced = False
        for start in range(0, len(current), chunk):
            complement = current[:start] + current[start + chunk:]
            ok, m = fails(complement)
            if ok:
                current = complement[: m.index + 1]
                n = max(n - 1, 2)
                reduced = True
                break
            if time.monotonic() >= deadline:
                break
        if not reduced:
            if chunk == 1:
                break
            n = min(len(current), n * 2)
    return current


def describe(seed, mismatch, labels):
    what = "" if mismatch.kind == "reply" else " (the tracking frames after it)"
    return ["MISMATCH seed %d at command %d%s: %s" % (seed, mismatch.index, what,
                                                     mismatch.command.case_lines()[-1]),
            "  %s: %s" % (labels[0], show(mismatch.reference)),
            "  %s: %s" % (labels[1], show(mismatch.candidate))]


def reproduction(active_expiry, commands, mismatch, pair, labels):
    """The shrunk sequence in case-file syntax, checked twice, with its final replies."""
    # A repro must fail the same way twice to be trusted; timing flukes do not.
    confirmed = sum(
        1 for _ in range(2)
        if (m := run_sequence(pair, active_expiry, commands)) is not None
        and (m.command.args[0], m.kind) == (mismatch.command.args[0], mismatch.kind))
    lines = ["Shrunk reproduction (%d commands, reproduced %d/2; case-file syntax, on a fresh "
             "connection after FLUSHALL, SCRIPT FLUSH and FUNCTION FLUSH):"
             % (len(commands), confirmed)]
    if any(cmd.conn != "main" for cmd in commands):
        lines.append("  (lines marked track: and sub: go on a second and a third connection; "
                     "after every line the frames waiting on those two are read up to a PING's "
                     "reply and compared)")
    if not active_expiry:
        lines.append("  DEBUG SET-ACTIVE-EXPIRE 0")
    lines += ["  " + cmd.case_line() for cmd in commands]
    final = run_sequence(pair, active_expiry, commands)
    if final is not None:
        lines.append("  -> %s: %s" % (labels[0], show(final.reference)))
        lines.append("  -> %s: %s" % (labels[1], show(final.candidate)))
    return lines


def write_junit(path, label, results):
    """results: [(seed, None | failure text)]."""
    failures = sum(1 for _, text in results if text)
    out = ['<?xml version="1.0" encoding="utf-8"?>',
           '<testsuite name="fuzz_diff" tests="%d" failures="%d">' % (len(results), failures)]
    for seed, text in results:
        name = quoteattr("seed %d [%s]" % (seed, label))
        if text is None:
            out.append('  <testcase classname="fuzz_diff" name=%s/>' % name)
        else:
            out.append('  <testcase classname="fuzz_diff" name=%s><failure message="mismatch">%s'
                       '</failure></testcase>' % (name, escape(text)))
    out.append("</testsuite>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def run_seed(pair, seed, args, labels):
    """Runs one seed; returns None, or the mismatch and its shrunk reproduction as text."""
    active_expiry, commands = generate(seed, args.length, args.focus)
    if args.verbose:
        print("seed %d (active expiry %s)" % (seed, "on" if active_expiry else "off"))
    mismatch = run_sequence(pair, active_expiry, commands, args.verbose)
    if mismatch is None:
        return None
    lines = describe(seed, mismatch, labels)
    print("\n".join(lines), flush=True)
    small = shrink(pair, active_expiry, commands, mismatch, args.shrink_seconds)
    more = reproduction(active_expiry, small, mismatch, pair, labels)
    more.append("  replay: python3 tests/clients/fuzz_diff.py --seed %d --length %d%s"
                % (seed, args.length, " --focus " + args.focus if args.focus else ""))
    print("\n".join(more), flush=True)
    return "\n".join(lines + more)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=20, help="run seeds 1..N (default 20)")
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--seed", type=int, action="append", help="run only these seeds")
    parser.add_argument("--length", type=int, default=300, help="commands per seed")
    parser.add_argument("--focus", choices=sorted(FOCUS),
                        help="every seed leans towards this family (default: each seed draws one)")
    parser.add_argument("--warden", default=os.path.join(REPO_ROOT, "build", "warden"))
    parser.add_argument("--redis-server", default="redis-server")
    parser.add_argument("--warden-port", type=int, help="use a running warden")
    parser.add_argument("--redis-port", type=int, help="use a running redis-server")
    parser.add_argument("--both-redis", action="store_true",
                        help="a second redis-server in warden's place (checks the harness)")
    parser.add_argument("--second-redis-port", type=int,
                        help="with --both-redis: use this running redis-server")
    parser.add_argument("--junit", help="also write the results here as JUnit XML")
    parser.add_argument("--shrink-seconds", type=float, default=120)
    parser.add_argument("--keep-going", action="store_true", help="run every seed after a mismatch")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every command")
    args = parser.parse_args()

    seeds = args.seed or list(range(args.first_seed, args.first_seed + args.seeds))
    procs = []  # (process, name) of the servers this run started
    tmpdir = tempfile.mkdtemp(prefix="fuzz_diff.")
    log_path = os.path.join(tmpdir, "servers.log")
    log = open(log_path, "wb")
    keep_log = False  # set when a server died: its log is the evidence
    try:
        redis_port = args.redis_port
        if redis_port is None:
            proc, redis_port = start_redis(args.redis_server, log)
            procs.append((proc, "redis-server"))
        cand_port = args.warden_port
        if args.both_redis:
            cand_port = args.second_redis_port
            if cand_port is None:
                proc, cand_port = start_redis(args.redis_server, log)
                procs.append((proc, "redis-server"))
        elif cand_port is None:
            proc, cand_port = start_warden(args.warden, log, tmpdir)
            procs.append((proc, "warden"))
        labels = ("redis-server", "redis-server" if args.both_redis else "warden")
        pair = Pair(redis_port, cand_port)
        results = []
        for seed in seeds:
            try:
                text = run_seed(pair, seed, args, labels)
            except (OSError, ConnectionLost, RuntimeError) as e:
                # A server that stops answering between commands (a crash, most likely).
                text = "seed %d: a server stopped answering: %s" % (seed, e)
                for proc, name in procs:
                    if proc.poll() is not None:
                        text += "\n%s exited with %s; log %s" % (name, proc.returncode, log_path)
                        keep_log = True
                print(text, flush=True)
                results.append((seed, text))
                break
            results.append((seed, text))
            if text and not args.keep_going:
                break
        pair.close()
        failed = sum(1 for _, text in results if text)
        passed = len(results) - failed
        label = "%s vs %s" % (labels[1], labels[0])
        if args.junit:
            write_junit(args.junit, label, results)
        print("fuzz_diff (%s, %d commands per seed): %d seeds passed, %d failed"
              % (label, args.length, passed, failed))
        print("fuzz_diff: %d passed, %d failed" % (passed, failed))
        return 1 if failed else 0
    finally:
        for proc, _ in procs:
            proc.terminate()
        for proc, _ in procs:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
        log.close()
        if not keep_log:
            shutil.rmtree(tmpdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
