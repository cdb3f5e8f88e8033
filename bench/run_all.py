#!/usr/bin/env python3
"""Every side-by-side benchmark of warden against redis-server, in one command.

    bench/run_all.py build/warden [--rounds 3] [--quick] [--only throughput,keyspace,...]
        [--cycle-seconds 5]

Sections (all by default):
  throughput    redis-benchmark PING / SET NX PX / GET / EVALSHA and FCALL compare-and-delete at
                pipeline 16 and 1, and bench/lockcycle (acquire, extend, release; 50 connections, one request
                each)
  types         redis-benchmark at pipeline 16: PING, HSET / HGET of a small hash per key, HINCRBY
                of a Redisson lock, SADD / SISMEMBER, MGET of 10 keys; HSET / HGET of one large hash
  keyspace      CPU per GET at pipeline 16 with ~1k keys and with --keys (10M) keys loaded
  memory        bench/memory_per_lock.py
  types_memory  bench/types_memory.py (Redisson locks, big hashes, string locks)
  storm         bench/expiry_storm.py
  bigdelete     bench/big_delete.py with --keys fields and keys (DEL / UNLINK / FLUSHALL)
  startup       bench/start_time.py
  zsets_lists   redis-benchmark at pipeline 16: PING, ZADD / ZSCORE / ZRANGEBYSCORE LIMIT 0 10 /
                ZREMRANGEBYSCORE of redis-semaphore semaphores (five holders each) and of one large
                sorted set, LPUSH / RPOP of a queue, LPUSH of python-redis-lock signal keys, and
                redis-semaphore's acquire script by EVALSHA
  zsets_lists_memory  bench/types_memory.py --workload semaphore signal bigzset
  blocking      bench/blocking_bench.py (BLPOP hand-off latency; ten thousand idle blocked
                clients: idle CPU and the cost of a wake at 1,000 and 10,000 blocked)
  redisson      Redisson RLock's acquire and unlock scripts by EVALSHA, then the latch DEL
                Redisson sends, one lock per cycle (bench/cmdcycle; 50 connections, one request
                in flight each): CPU per request and p99; ~1 minute
  semaphore     redis-semaphore's Semaphore: its acquire script by EVALSHA and its release (ZREM)
                as a cycle on each connection's semaphore (bench/cmdcycle, 50 connections);
                ~1 minute
  unixsocket    bench/lockcycle over TCP loopback and over a unix socket, same servers; ~1.5 min
  acl           bench/lockcycle as the default user, then with 21 ACL users defined and every
                connection authenticated as one limited to ~lock:* (same servers); ~1 minute
  tls           both servers with a TLS port (certificates made by openssl, client certificates
                required): bench/lockcycle over plain TCP and over TLS, then 400 new TLS
                connections one after another, each timed to the reply to one PING, with the
                server's CPU per connection (bench/tls_section.py); ~1.5 minutes
  clients10k    bench/lockcycle on 100 connections, alone and with 9,900 more connected and idle
                (10,000 clients; both servers get --maxclients 10100 and the fd limit is raised
                to its hard limit, which must be at least 10,200): p99 and CPU per request;
                ~2 minutes
  pubsub        bench/pubsub_bench.py: PUBLISH to 100 subscribers at P1 and P16, 2,000 messages
                per round (500 with --quick): server CPU per delivered message; ~1-1.5 minutes
  handoff       bench/blocking_bench.py --parts handoff: BLPOP hand-off latency alone; when
                blocking runs too (as by default) its figures are blocking's and this adds
                nothing; alone ~25 s
  aof           both servers with the append-only file on, each in its own temporary --dir
                (Redis with --aof-use-rdb-preamble no): bench/lockcycle with appendfsync always
                and with everysec (CPU per request, p99, each with its PING floor); then --keys
                lock-like keys loaded with everysec and BGREWRITEAOF on each while a PING loop
                runs: rewrite time, worst and p99.9 PING, base file size (bench/aof_section.py);
                ~5 minutes with ten million keys, ~5 GB of disk in /tmp at the peak
  streams       Redis 7.0 streams (bench/streams_section.py): redis-benchmark `XADD s MAXLEN ~
                10000 * field value` at pipeline 16 (with PING at P16 as its floor); a consumer
                group read and acknowledged at pipeline 16 by bench/streamcycle (16
                `XREADGROUP ... COUNT 1 ... >` and the XACKs of the previous write's entries per
                write, 50 consumers); BullMQ's job throughput (bench/bullmq_throughput.mjs: add
                10,000 jobs, then one Worker at concurrency 10; needs node and
                tests/clients/node/node_modules); memory per entry (used_memory growth) of a
                1,000,000-entry stream of job entries and of BullMQ completed events; ~4.5 min

The times are for the default 3 rounds on the 2-core machine shared with builds; --quick takes
about a quarter. The one-request-in-flight sections (redisson, semaphore, unixsocket, acl, tls,
clients10k, and aof's lock cycles) run for --cycle-seconds (5; 2 with --quick) per server and
round, each followed by its PING floor (100,000 requests; 20,000 with --quick). With the PING
floors of throughput, types and zsets_lists (~1 minute together), a full run takes ~8-9 minutes
more than before.

Each server is pinned to core 0 and each load generator to core 1 (taskset). A workload runs
alternately on both servers for --rounds rounds, swapping which goes first, and the table shows
medians. CPU per request is the server's time on CPU (/proc/PID/task/*/schedstat) over the
requests of the run: steadier than ops/s on a shared machine.

Above the floor: every section whose rows go into the workloads table also measures PING at the
same pipeline depth, connections and transport on the same servers in the same rounds (the
rows ping_p16, ping_p1, types_ping_p16, ...). Each other row gets its CPU per request minus its
server's PING CPU per request ("excess": what the command itself costs, without the reads,
writes, wake-ups and parsing every request pays) beside the totals, and the ratio of the two
excesses (warden / Redis; "—" unless both are above zero). With one request in flight
the floor is most of the total, so an excess is a small difference of two noisy figures: read it
over several rounds. latest.json has them under each workload's "excess", round by round too.

redis-benchmark 7.0 has no seed option and draws its random keys from the time and pid, so two
runs against an unflushed server can replay the same keys (and SET NX then fails throughout).
Every run therefore starts from FLUSHALL (and, since warden frees a large flush in slices after
replying, from the end of that freeing) and, where it reads keys, a preloaded keyspace that is
identical on both servers; afterwards DBSIZE (or HLEN) is checked against the expected count and
against the other server.

Writes bench/results/latest.md, latest.json and ratios.png (the chart needs python3-matplotlib;
without it the table is still written). Only the processes it started are ever stopped.

--write-docs also puts the tables, with the run's date, commit, versions and command line, into
docs/performance.md between its <!-- bench:begin --> and <!-- bench:end --> markers (--out must
then lie inside the repository, so the doc can name its results file). --from-json FILE does
that from an earlier run's latest.json without running anything:

    bench/run_all.py --from-json bench/results/latest.json --write-docs
"""
import argparse
import datetime
import json
import os
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from aof_section import aof_section
from bench_core import BENCH_DIR, add_excess, find_lockcycle
# Client, ServerPair, encode and free_port: what multi_bench.py, blocking_bench.py, big_delete.py
# and pubsub_bench.py import from here.
from bench_core import Client, ServerPair, encode, free_port
from bench_workloads import type_workloads, workloads, zset_list_workloads
from cycle_sections import (CLIENTS_TOTAL, acl_section, clients10k_section, raise_fd_limit,
                            redisson_section, semaphore_section, unixsocket_section)
from results_report import (docs_block, draw_chart, machine, tables, versions, write_docs,
                            write_markdown)
from streams_section import streams_section, streams_tables
from throughput_sections import (keyspace_section, throughput_section, types_section,
                                 zsets_lists_section)
from tls_section import tls_section

__all__ = ["Client", "ServerPair", "encode", "free_port"]

REPO_DIR = os.path.dirname(BENCH_DIR)
DOCS_PATH = os.path.join(REPO_DIR, "docs", "performance.md")

SECTIONS = ("throughput", "types", "keyspace", "memory", "types_memory", "storm", "bigdelete",
            "startup", "zsets_lists", "zsets_lists_memory", "blocking", "redisson", "semaphore",
            "unixsocket", "clients10k", "pubsub", "handoff", "aof", "acl", "tls", "streams")
# The pubsub section: bench/pubsub_bench.py with these.
PUBSUB_SUBSCRIBERS = 100
PUBSUB_PIPELINES = (1, 16)


def script_section(args, script, extra):
    """Runs one of the single-purpose bench scripts with --json and returns what it printed."""
    argv = [sys.executable, os.path.join(BENCH_DIR, script), args.warden, "--redis", args.redis,
            "--json"] + extra
    print(f"running {shlex.join(argv)}", flush=True)
    done = subprocess.run(argv, stdout=subprocess.PIPE, text=True, check=True)
    return json.loads(done.stdout)


# --- output -----------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("warden", nargs="?", help="the warden binary (not with --from-json)")
    ap.add_argument("--redis", default="redis-server")
    ap.add_argument("--warden-arg", action="append", metavar="ARG",
                    help="one more argument for warden (repeat it), e.g. --warden-arg=--lua-native-scripts "
                         "--warden-arg=no to measure the interpreter")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--quick", action="store_true",
                    help="1 round, fewer requests, smaller keyspaces: checks it all works")
    ap.add_argument("--only", default=",".join(SECTIONS),
                    help="comma-separated sections: " + ", ".join(SECTIONS))
    ap.add_argument("--keys", type=int,
                    help="keyspace size of the keyspace-growth run, the fields of the hash "
                         "and keys that bigdelete frees, and the keys of the aof rewrite "
                         "(default 10,000,000; 1,000,000 with --quick)")
    ap.add_argument("--lockcycle", help="lockcycle binary (default: beside warden, else cc)")
    ap.add_argument("--cycle-seconds", type=float,
                    help="length of each run of the redisson, semaphore, unixsocket, acl, "
                         "clients10k and aof sections (default 5; 2 with --quick)")
    ap.add_argument("--out", default=os.path.join(BENCH_DIR, "results"))
    ap.add_argument("--note", default="", help="a line for latest.md, e.g. what else ran")
    ap.add_argument("--workloads", help="comma-separated workload names (e.g. lpush_queue_p16, "
                    "lockcycle): only these of the throughput, types and zsets_lists sections, "
                    "each with its PING floor")
    ap.add_argument("--write-docs", action="store_true",
                    help="also write the tables, date, commit and command line into "
                         "docs/performance.md between its bench markers")
    ap.add_argument("--docs", default=DOCS_PATH, help="the file --write-docs writes "
                    "(default docs/performance.md)")
    ap.add_argument("--from-json", metavar="FILE",
                    help="run nothing: render an earlier run's latest.json (with --write-docs)")
    args = ap.parse_args()
    if args.from_json:
        if args.warden or not args.write_docs:
            ap.error("--from-json takes no warden binary and needs --write-docs")
        with open(args.from_json) as f:
            out = json.load(f)
        publish_docs(ap, args, out, os.path.dirname(os.path.abspath(args.from_json)))
        return
    if not args.warden:
        ap.error("the warden binary is required")
    if args.write_docs:
        docs_source(ap, args.out)  # refuse now, not after the run
    # A plain SIGTERM would skip the finally blocks that stop the servers.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    args.warden = os.path.abspath(args.warden)
    quick = args.quick
    args.rounds = args.rounds or (1 if quick else 3)
    args.requests_p16 = 100_000 if quick else 500_000
    # At P1 a loaded machine can fall to ~20k ops/s: 200k requests still end before the first
    # SET's 30 s lease runs out, so no key expires during the run or before the DBSIZE check.
    args.requests_p1 = 30_000 if quick else 200_000
    args.lockcycle_seconds = 2 if quick else 10
    args.keys = args.keys or (1_000_000 if quick else 10_000_000)
    args.cycle_seconds = args.cycle_seconds or (2 if quick else 5)
    # PING at P1 as the floor of the one-request-in-flight sections.
    args.floor_requests = 20_000 if quick else 100_000
    args.pubsub_messages = 500 if quick else 2000
    sections = args.only.split(",")
    args.workloads = set(args.workloads.split(",")) if args.workloads else None
    if args.workloads:
        known = {w.name for w in workloads() + type_workloads() + zset_list_workloads()}
        known.add("lockcycle")
        if args.workloads - known:
            ap.error(f"unknown workloads: {', '.join(sorted(args.workloads - known))}")
    unknown = set(sections) - set(SECTIONS)
    if unknown:
        ap.error(f"unknown sections: {', '.join(sorted(unknown))}")
    for tool in ("taskset", "redis-benchmark", args.redis):
        if shutil.which(tool) is None:
            ap.error(f"{tool} not found")
    if "streams" in sections and shutil.which("node") is None:
        ap.error("the streams section runs BullMQ with node, which is not found")
    if "clients10k" in sections and not raise_fd_limit(CLIENTS_TOTAL + 200):
        ap.error(f"clients10k needs an fd limit of {CLIENTS_TOTAL + 200} (ulimit -Hn is "
                 f"{resource.getrlimit(resource.RLIMIT_NOFILE)[1]}): leave it out of --only")

    started = time.monotonic()
    out = {"date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
           "command": shlex.join([sys.executable] + sys.argv),
           "machine": machine(), "versions": versions(args), "rounds": args.rounds,
           "requests_p16": args.requests_p16, "requests_p1": args.requests_p1,
           "lockcycle_seconds": args.lockcycle_seconds, "cycle_seconds": args.cycle_seconds,
           "floor_requests": args.floor_requests, "note": args.note, "workloads": {}}
    with tempfile.TemporaryDirectory() as tmp:
        if "throughput" in sections:
            throughput_section(args, find_lockcycle(args, tmp), out)
    if "types" in sections:
        types_section(args, out)
    if "keyspace" in sections:
        keyspace_section(args, out)
    if "memory" in sections:
        out["memory"] = script_section(args, "memory_per_lock.py",
                                       ["--locks", str(200_000 if quick else 1_000_000)])
    if "types_memory" in sections:
        out["types_memory"] = script_section(args, "types_memory.py",
                                             ["--scale", "0.2" if quick else "1"])
    if "storm" in sections:
        out["storm"] = script_section(args, "expiry_storm.py",
                                      ["--locks", str(200_000 if quick else 1_000_000)])
    if "bigdelete" in sections:
        out["bigdelete"] = script_section(args, "big_delete.py",
                                          ["--fields", str(args.keys), "--keys", str(args.keys)])
    if "startup" in sections:
        out["startup"] = script_section(args, "start_time.py",
                                        ["--runs", "10" if quick else "40",
                                         "--parallel", "50" if quick else "200"])
    if "zsets_lists" in sections:
        zsets_lists_section(args, out)
    if "zsets_lists_memory" in sections:
        out["zsets_lists_memory"] = script_section(
            args, "types_memory.py",
            ["--workload", "semaphore", "signal", "bigzset", "--scale", "0.2" if quick else "1"])
    if "blocking" in sections:
        out["blocking"] = script_section(args, "blocking_bench.py", ["--quick"] if quick else [])
    elif "handoff" in sections:
        # blocking's run includes the hand-offs; alone, only that part.
        out["blocking"] = script_section(args, "blocking_bench.py",
                                         ["--parts", "handoff"] + (["--quick"] if quick else []))
    with tempfile.TemporaryDirectory() as tmp:
        for name, section in (("redisson", redisson_section), ("semaphore", semaphore_section),
                              ("unixsocket", unixsocket_section),
                              ("clients10k", clients10k_section), ("acl", acl_section),
                              ("tls", tls_section), ("streams", streams_section)):
            if name in sections:
                section(args, tmp, out)
    if "pubsub" in sections:
        out["pubsub"] = {
            "subscribers": PUBSUB_SUBSCRIBERS, "messages": args.pubsub_messages,
            "rounds": args.rounds,
            "pipelines": script_section(args, "pubsub_bench.py", [
                "--subscribers", str(PUBSUB_SUBSCRIBERS), "--messages", str(args.pubsub_messages),
                "--rounds", str(args.rounds), "--pipelines"] + [str(p) for p in PUBSUB_PIPELINES])}
    if "aof" in sections:
        with tempfile.TemporaryDirectory() as tmp:
            aof_section(args, tmp, out)
    add_excess(out)
    out["elapsed_s"] = round(time.monotonic() - started)
    out["machine"]["loadavg_at_end"] = os.getloadavg()[0]

    os.makedirs(args.out, exist_ok=True)
    chart_path = os.path.join(args.out, "ratios.png")
    out["chart"] = chart = draw_chart(out, chart_path)
    if not chart and os.path.exists(chart_path):
        os.remove(chart_path)  # an earlier run's chart must not sit beside these results
    with open(os.path.join(args.out, "latest.json"), "w") as f:
        json.dump(out, f, indent=1)
    write_markdown(out, os.path.join(args.out, "latest.md"), chart)
    # The streams section's memory and BullMQ figures: a table of their own after the others.
    extra = streams_tables(out)
    if extra:
        with open(os.path.join(args.out, "latest.md"), "a") as f:
            f.write("\n" + extra)
    if args.write_docs:
        publish_docs(ap, args, out, args.out)
    print()
    print(tables(out))
    if extra:
        print(extra)
    print(f"took {out['elapsed_s']} s; wrote {args.out}/latest.md and latest.json; " +
          ("chart ratios.png" if chart else "chart skipped (python3-matplotlib not installed)"))


def docs_source(ap, results_dir):
    """latest.json in results_dir, as the doc names it: relative to the repository."""
    source = os.path.relpath(os.path.join(os.path.abspath(results_dir), "latest.json"), REPO_DIR)
    if source.startswith(".."):
        ap.error(f"--write-docs: the results ({results_dir}) must lie inside {REPO_DIR}, "
                 "so that docs/performance.md can name them")
    return source


def publish_docs(ap, args, out, results_dir):
    source = docs_source(ap, results_dir)
    # Runs before the "chart" entry drew one whenever matplotlib was there.
    chart = out.get("chart", True) and os.path.exists(os.path.join(results_dir, "ratios.png"))
    write_docs(args.docs, docs_block(out, source, chart, streams_tables(out)))
    print(f"wrote the tables of {source} into {args.docs}")


if __name__ == "__main__":
    main()
