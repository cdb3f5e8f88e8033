#!/usr/bin/env python3
"""The regression guard: today's warden beside an earlier build and redis-server, in one run, on
the per-command hot path. Run it before a change lands (README, "Before a change lands").

    bench/compare_builds.py build/warden --base f680f23 [--base-label NAME]
        [--mode cpu|instructions|both] [--rounds 5] [--requests 2000000]
        [--workloads ping,get,set,evalsha] [--keys 1000000] [--profile DIR]

--base is a commit (built once into /tmp/warden-base-<sha>/build/warden from a git worktree,
RelWithDebInfo like run-server.sh; kept for the next run) or the path of a warden binary.

Workloads: redis-benchmark at pipeline 16, 50 connections, keys lock:__rand_int__ over --keys
ids (the configuration of issue 33):
  ping     PING (redis-benchmark's ping_mbulk: `*1 $4 PING`), the floor
  get      GET lock:__rand_int__, every id preloaded (a 36-byte token, PX 600000)
  set      SET lock:__rand_int__ <36-byte token> NX PX 30000, from an empty keyspace
  evalsha  the compare-and-delete release script by EVALSHA, every id preloaded

Modes:
  cpu           each server pinned to core 0, redis-benchmark to core 1; per workload and round,
                a fresh FLUSHALL and preload, then the server's user CPU per request (utime,
                /proc/PID/stat) and its total (user + system, schedstat); servers alternate
                their order each round; medians. Also each row minus its server's PING
                ("excess", what the command costs above reading, parsing and replying).
  instructions  each server under valgrind's callgrind (counters zeroed after the preload,
                dumped after the load): instructions per request, exact and repeatable, so a
                change of a few percent shows in one run where CPU time needs many. Uses
                --requests-instructions (200,000) and --keys-instructions (100,000).
                With --profile DIR the dumps are kept there for callgrind_annotate.

Only the processes it started are ever stopped.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from bench_core import Server
from bench_workloads import RELEASE_SCRIPT, TOKEN
from results_report import CLIENT_CORE, SERVER_CORE

PRELOAD_TTL_MS = 600_000
WORKLOADS = {
    "ping": (["PING"], False),
    "get": (["GET", "lock:__rand_int__"], True),
    "set": (["SET", "lock:__rand_int__", TOKEN, "NX", "PX", "30000"], False),
    "evalsha": (["EVALSHA", "<sha>", "1", "lock:__rand_int__", TOKEN], True),
}
CLK_TCK = os.sysconf("SC_CLK_TCK")


def build_base(ref, repo):
    """The warden binary of commit `ref`, built once in a worktree of its own."""
    sha = subprocess.run(["git", "-C", repo, "rev-parse", "--verify", ref + "^{commit}"],
                         capture_output=True, text=True, check=True).stdout.strip()
    tree = f"/tmp/warden-base-{sha[:12]}"
    binary = os.path.join(tree, "build", "warden")
    if os.path.exists(binary):
        return binary, sha[:12]
    if not os.path.exists(tree):
        subprocess.run(["git", "-C", repo, "worktree", "add", "--detach", tree, sha], check=True,
                       stdout=subprocess.DEVNULL)
    print(f"building {sha[:12]} in {tree} (once)", file=sys.stderr, flush=True)
    subprocess.run(["cmake", "-S", tree, "-B", os.path.join(tree, "build"),
                    "-DCMAKE_BUILD_TYPE=RelWithDebInfo"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", os.path.join(tree, "build"), f"-j{os.cpu_count() or 2}",
                    "--target", "warden"], check=True, stdout=subprocess.DEVNULL)
    return binary, sha[:12]


class Proc(Server):
    """bench_core's Server (pinned to the server core, answered a PING), optionally under
    callgrind, with the user time /proc gives beside its total (cpu_ns)."""

    def __init__(self, name, argv, callgrind_out=None):
        prefix = []
        if callgrind_out:
            prefix = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={callgrind_out}",
                      "--collect-atstart=yes"]
        super().__init__(name, lambda port: prefix + [argv[0], "--port", str(port)] + argv[1:])

    def user_ns(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) * 1_000_000_000 // CLK_TCK  # utime, field 14

    def callgrind(self, what):
        """callgrind_control -z (zero) or -d (dump) on this server."""
        subprocess.run(["callgrind_control", what, str(self.proc.pid)], check=True,
                       stdout=subprocess.DEVNULL)


def prepare(server, workload, keys):
    """FLUSHALL, the preload, the script; returns redis-benchmark's command."""
    args, preload = WORKLOADS[workload]
    server.client.flushall()
    if preload:
        server.client.load(["SET", "lock:__rand_int__", TOKEN, "PX", str(PRELOAD_TTL_MS)],
                           0, keys, 1)
    args = list(args)
    if "<sha>" in args:
        args[args.index("<sha>")] = server.client.call("SCRIPT", "LOAD", RELEASE_SCRIPT)
    return args


def benchmark(server, args, requests, keys):
    subprocess.run(["taskset", "-c", CLIENT_CORE, "redis-benchmark", "-p", str(server.port),
                    "-n", str(requests), "-c", "50", "-r", str(keys), "-P", "16", "-q"] + args,
                   check=True, stdout=subprocess.DEVNULL)


def total_instructions(path):
    """The Ir total of a callgrind dump."""
    with open(path) as f:
        for line in f:
            if line.startswith("totals:") or line.startswith("summary:"):
                return int(line.split()[1])
    raise RuntimeError(f"no totals in {path}")


def run_cpu(servers, workloads, args):
    runs = {name: {w: [] for w in workloads} for name in servers}
    names = list(servers)
    for r in range(args.rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            proc = Proc(name, servers[name])
            try:
                for w in workloads:
                    command = prepare(proc, w, args.keys)
                    user0, total0 = proc.user_ns(), proc.cpu_ns()
                    benchmark(proc, command, args.requests, args.keys)
                    runs[name][w].append({
                        "user_us": (proc.user_ns() - user0) / 1000 / args.requests,
                        "total_us": (proc.cpu_ns() - total0) / 1000 / args.requests})
            finally:
                proc.stop()
            print(f"round {r + 1}: {name} " + ", ".join(
                f"{w} {runs[name][w][-1]['user_us']:.3f}/{runs[name][w][-1]['total_us']:.3f}"
                for w in workloads), file=sys.stderr, flush=True)
    return {name: {w: {k: statistics.median(x[k] for x in runs[name][w])
                       for k in ("user_us", "total_us")} for w in workloads}
            for name in servers}, runs


def run_instructions(servers, workloads, args):
    out = {}
    keep = args.profile
    tmp = tempfile.mkdtemp(prefix="warden-callgrind-")
    try:
        for name, argv in servers.items():
            out[name] = {}
            for w in workloads:
                dump = os.path.join(keep or tmp, f"callgrind.{name}.{w}")
                proc = Proc(name, argv, callgrind_out=dump)
                try:
                    command = prepare(proc, w, args.keys_instructions)
                    proc.callgrind("-z")
                    benchmark(proc, command, args.requests_instructions, args.keys_instructions)
                    proc.callgrind("-d")
                finally:
                    proc.stop()
                # -d writes <dump>.1; the final dump at exit (<dump>) holds only the shutdown.
                out[name][w] = total_instructions(dump + ".1") / args.requests_instructions
                print(f"{name} {w}: {out[name][w]:.0f} instructions per request",
                      file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def table(title, unit, medians, workloads, names, excess):
    lines = [f"### {title}", "",
             "| workload | " + " | ".join(names) + " | " + " | ".join(
                 f"{n} / {names[0]}" for n in names[1:]) + " |",
             "|---" * (2 * len(names)) + "|"]
    rows = list(workloads)
    for w in rows:
        cells = [medians[n][w] for n in names]
        lines.append(f"| {w} | " + " | ".join(f"{c:.3f}" if unit == "us" else f"{c:,.0f}"
                                               for c in cells)
                     + " | " + " | ".join(f"{c / cells[0]:.2f}x" for c in cells[1:]) + " |")
    if excess and "ping" in workloads:
        for w in rows:
            if w == "ping":
                continue
            cells = [medians[n][w] - medians[n]["ping"] for n in names]
            lines.append(f"| {w} - ping | " + " | ".join(
                f"{c:.3f}" if unit == "us" else f"{c:,.0f}" for c in cells) + " | " + " | ".join(
                f"{c / cells[0]:.2f}x" if cells[0] > 0 else "—" for c in cells[1:]) + " |")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("warden")
    p.add_argument("--base", required=True, help="a commit, or a warden binary")
    p.add_argument("--base-label")
    p.add_argument("--redis", default=shutil.which("redis-server") or "redis-server")
    p.add_argument("--mode", choices=("cpu", "instructions", "both"), default="both")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--requests", type=int, default=2_000_000)
    p.add_argument("--keys", type=int, default=1_000_000)
    p.add_argument("--requests-instructions", type=int, default=200_000)
    p.add_argument("--keys-instructions", type=int, default=100_000)
    p.add_argument("--workloads", default="ping,get,set,evalsha")
    p.add_argument("--profile", help="keep the callgrind dumps in this directory")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    workloads = args.workloads.split(",")
    for w in workloads:
        if w not in WORKLOADS:
            p.error(f"unknown workload {w}")
    if args.mode in ("instructions", "both") and shutil.which("valgrind") is None:
        p.error("instructions per request need valgrind (apt-get install valgrind); "
                "or use --mode cpu")
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if os.path.isfile(args.base) and os.access(args.base, os.X_OK):
        base_binary, base_label = args.base, args.base_label or args.base
    else:
        base_binary, label = build_base(args.base, repo)
        base_label = args.base_label or label
    if args.profile:
        os.makedirs(args.profile, exist_ok=True)
    head = subprocess.run(["git", "-C", repo, "rev-parse", "--short=12", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", repo, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    head_label = f"today ({head}{'+' if dirty else ''})"
    servers = {base_label: [base_binary, "--save", ""], head_label: [args.warden, "--save", ""],
               "redis-server": [args.redis, "--save", "", "--appendonly", "no"]}
    names = list(servers)
    result = {"servers": names}
    report = []
    if args.mode in ("instructions", "both"):
        result["instructions"] = run_instructions(servers, workloads, args)
        report.append(table("Instructions per request (callgrind)", "ir",
                            result["instructions"], workloads, names, True))
    if args.mode in ("cpu", "both"):
        result["cpu"], result["cpu_runs"] = run_cpu(servers, workloads, args)
        for key, title in (("user_us", "User CPU per request, us"),
                           ("total_us", "Total CPU (user + system) per request, us")):
            medians = {n: {w: result["cpu"][n][w][key] for w in workloads} for n in names}
            report.append(table(f"{title} (medians of {args.rounds})", "us", medians, workloads,
                                names, True))
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print("\n".join(report))


if __name__ == "__main__":
    main()
