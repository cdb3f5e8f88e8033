"""run_all.py's streams section: Redis 7.0 streams on warden and redis-server, same servers, same
rounds.

Rows (the first three on the workloads table, with CPU per request from schedstat):
  streams_ping_p16     PING at P16 (redis-benchmark, 50 connections): the floor of the next two
  xadd_maxlen_p16      redis-benchmark `XADD s MAXLEN ~ 10000 * field value` at P16 from an empty
                       server; the keys check is XLEN s, ~10,000 (approximate trimming removes
                       whole nodes only: Redis keeps 10,000 to 10,099)
  xreadgroup_xack_p16  bench/streamcycle: each of 50 connections a consumer of one group, each
                       write the XACKs of the previous write's entries and 16 `XREADGROUP GROUP g
                       c<n> COUNT 1 STREAMS jobs >`; a request is one command, the run is
                       requests_p16 commands (half reads, half acks) over a stream preloaded with
                       as many job entries as it reads; the keys check is the group's pending
                       count afterwards (0), with its entries-read (all of them)
and, under out["streams"]:
  bullmq   bench/bullmq_throughput.mjs (BullMQ 6.7.6): add N jobs (50 adds in flight), then one
           Worker at concurrency 10 processes them; jobs/s over both phases, and the server's
           CPU per job, alternating servers each round
  memory   used_memory (INFO memory) growth over a FLUSHALLed server for 1,000,000 entries
           XADDed to one stream (pipelined, ids by `*`), per entry; RSS growth beside it. Two
           entry shapes: a job (`jobId <n> type email`) and BullMQ's completed event (`event
           completed jobId <n> returnvalue {"sent":true,"orderId":<n>} prev active`). Measured
           once, each shape on a fresh pair of servers (memory does not vary between rounds).
streams_tables(out) renders the last two as the markdown run_all.py adds to latest.md.
"""
import json
import os
import socket
import statistics
import time

from bench_core import (BENCH_DIR, ServerPair, alternate, encode, find_tool, keys_check,
                        measured, redis_benchmark, run_client)
from bench_workloads import KEY_RANGE
from cycle_sections import add_row
from results_report import SERVERS

PIPELINE = 16
CONNECTIONS = 50
XADD_MAXLEN = 10_000
XADD_ARGS = ["XADD", "s", "MAXLEN", "~", str(XADD_MAXLEN), "*", "field", "value"]
GROUP_STREAM = "jobs"
# The targets.
CPU_TARGET = 0.6
MEMORY_TARGET = 1.0
BULLMQ_TARGET = 1.0
MEMORY_ENTRIES = 1_000_000
BULLMQ_CONCURRENCY = 10


def job_entry(i):
    return ["jobId", str(i), "type", "email"]


def event_entry(i):
    return ["event", "completed", "jobId", str(i), "returnvalue",
            json.dumps({"sent": True, "orderId": i}, separators=(",", ":")), "prev", "active"]


MEMORY_SHAPES = {
    "job": ("a job entry, `XADD jobs * jobId <n> type email`", "jobs", job_entry),
    "event": ("BullMQ's completed event, `XADD bull:q:events * event completed jobId <n> "
              "returnvalue {\"sent\":true,\"orderId\":<n>} prev active`", "bull:q:events",
              event_entry),
}


# --- a few commands the runner's Client cannot read (arrays) ----------------------------------

def read_reply(client):
    """One reply of any RESP2 type, arrays as lists; raises on an error reply."""
    line = client._line()
    kind, rest = line[:1], line[1:]
    if kind == b"-":
        raise RuntimeError(rest.decode())
    if kind == b":":
        return int(rest)
    if kind == b"$":
        n = int(rest)
        if n < 0:
            return None
        while len(client.buf) < n + 2:
            client._fill()
        value, client.buf = client.buf[:n], client.buf[n + 2:]
        return value.decode()
    if kind == b"*":
        n = int(rest)
        return None if n < 0 else [read_reply(client) for _ in range(n)]
    return rest.decode()


def call(client, *args):
    client.sock.sendall(encode(args))
    return read_reply(client)


def group_info(client, stream, group):
    """XINFO GROUPS' fields of `group` as a dict."""
    for g in call(client, "XINFO", "GROUPS", stream):
        fields = dict(zip(g[::2], g[1::2]))
        if fields.get("name") == group:
            return fields
    raise RuntimeError(f"no group {group} on {stream}")


def xadd_load(port, key, entry, n, batch=2000):
    """XADD key * <entry(i)> for i in range(n), pipelined on a connection of its own (closed at
    the end, so its buffers are gone before memory is read); checks every reply is an id."""
    with socket.create_connection(("127.0.0.1", port), timeout=120) as s:
        for first in range(0, n, batch):
            parts = []
            for i in range(first, min(n, first + batch)):
                args = ["XADD", key, "*"] + entry(i)
                parts.append(f"*{len(args)}\r\n" + "".join(
                    f"${len(a)}\r\n{a}\r\n" for a in args))
            s.sendall("".join(parts).encode())
            # Each reply is one bulk id, "$<len>\r\n<ms>-<seq>\r\n": two CRLFs.
            want = 2 * (min(n, first + batch) - first)
            buf = b""
            while buf.count(b"\r\n") < want:
                chunk = s.recv(1 << 20)
                if not chunk:
                    raise RuntimeError("server closed the connection while loading")
                buf += chunk
                if buf.startswith(b"-") or b"\r\n-" in buf:
                    raise RuntimeError(f"XADD {key} answered {buf[:200]!r}")
            if not buf.startswith(b"$"):
                raise RuntimeError(f"XADD {key} answered {buf[:200]!r}")


# --- the rows -----------------------------------------------------------------------------------

def streamcycle(binary, server, reads):
    r = json.loads(run_client([binary, "--port", str(server.port), "--connections",
                               str(CONNECTIONS), "--pipeline", str(PIPELINE), "--stream",
                               GROUP_STREAM, "--group", "g", "--reads", str(reads)],
                              exit_codes=(0, 1)))
    return {"requests": r["ops"], "ops_per_sec": r["ops_per_sec"], "p50_us": r["p50_us"],
            "p99_us": r["p99_us"], "p999_us": r["p999_us"], "reads": r["reads"],
            "acks": r["acks"], "empty": r["empty"], "unexpected": r["unexpected"],
            "first_unexpected": r["first_unexpected"]}


def throughput_rows(args, servers, binary, out):
    reads = args.requests_p16 // 2
    runs = {row: {s: [] for s in SERVERS} for row in
            ("streams_ping_p16", "xadd_maxlen_p16", "xreadgroup_xack_p16")}
    for order in alternate(args.rounds):
        for name in order:
            server = servers[name]
            server.client.flushall()
            runs["streams_ping_p16"][name].append(measured(server, lambda: redis_benchmark(
                server, args.requests_p16, PIPELINE, KEY_RANGE, ["PING"], CONNECTIONS)))
            runs["streams_ping_p16"][name][-1]["count"] = 0

            server.client.flushall()
            result = measured(server, lambda: redis_benchmark(
                server, args.requests_p16, PIPELINE, KEY_RANGE, XADD_ARGS, CONNECTIONS))
            result["count"] = server.client.call("XLEN", "s")
            runs["xadd_maxlen_p16"][name].append(result)

            server.client.flushall()
            started = time.monotonic()
            xadd_load(server.port, GROUP_STREAM, job_entry, reads, batch=10000)
            call(server.client, "XGROUP", "CREATE", GROUP_STREAM, "g", "0")
            print(f"streams: {name}: {reads:,} entries loaded in "
                  f"{time.monotonic() - started:.1f} s", flush=True)
            result = measured(server, lambda: streamcycle(binary, server, reads))
            info = group_info(server.client, GROUP_STREAM, "g")
            result["count"] = int(info["pending"])
            result["entries_read"] = int(info.get("entries-read") or 0)
            runs["xreadgroup_xack_p16"][name].append(result)

    add_row(out, "streams_ping_p16", f"`PING`, P{PIPELINE} (the floor of the stream rows)",
            runs["streams_ping_p16"], "—")
    add_row(out, "xadd_maxlen_p16", f"`XADD s MAXLEN ~ {XADD_MAXLEN} * field value`, "
            f"P{PIPELINE}", runs["xadd_maxlen_p16"],
            keys_check(runs["xadd_maxlen_p16"], lambda n: XADD_MAXLEN, "entries"),
            floor="streams_ping_p16", target=CPU_TARGET)
    group_runs = runs["xreadgroup_xack_p16"]
    check = keys_check(group_runs, lambda n: 0, "pending")
    problems = []
    for name in SERVERS:
        for r, result in enumerate(group_runs[name]):
            if result["unexpected"] or result["empty"]:
                problems.append(f"round {r + 1}: {name} {result['unexpected']} unexpected, "
                                f"{result['empty']} empty reads (first: "
                                f"{result['first_unexpected']!r})")
            if result["entries_read"] != reads:
                problems.append(f"round {r + 1}: {name} entries-read {result['entries_read']}, "
                                f"expected {reads}")
    if problems:
        check = "; ".join(problems + ([] if check == "ok" else [check]))
    add_row(out, "xreadgroup_xack_p16", f"`XREADGROUP GROUP g c<n> COUNT 1 STREAMS jobs >` + "
            f"`XACK jobs g <id>` of what the previous write read (`bench/streamcycle`), "
            f"{PIPELINE} pairs per write, {CONNECTIONS} consumers; a request is one command",
            group_runs, check, floor="streams_ping_p16", target=CPU_TARGET)


def bullmq_rows(args, servers, jobs):
    script = os.path.join(BENCH_DIR, "bullmq_throughput.mjs")
    runs = {s: [] for s in SERVERS}
    for order in alternate(args.rounds):
        for name in order:
            server = servers[name]
            server.client.flushall()

            def run():
                r = json.loads(run_client(["node", script, "--port", str(server.port), "--jobs",
                                           str(jobs), "--concurrency", str(BULLMQ_CONCURRENCY)]))
                r["requests"] = r["jobs"]  # so measured() gives CPU per job
                return r

            result = measured(server, run)
            print(f"streams: BullMQ on {name}: {result['jobs_per_sec']:.0f} jobs/s (add "
                  f"{result['add_per_sec']:.0f}/s, process {result['process_per_sec']:.0f}/s), "
                  f"{result['cpu_us_per_req']:.0f} us CPU per job", flush=True)
            runs[name].append(result)
    keys = ("jobs_per_sec", "add_per_sec", "process_per_sec", "cpu_us_per_req")
    median = {s: {k: statistics.median(r[k] for r in runs[s]) for k in keys} for s in SERVERS}
    ratio = {k: median["warden"][k] / median["redis"][k] for k in keys}
    return {"jobs": jobs, "concurrency": BULLMQ_CONCURRENCY, "runs": runs, "median": median,
            "ratio": ratio}


def memory_rows(args, entries):
    """Each shape on a fresh pair of servers, so that RSS growth is not hidden by memory an
    earlier row freed into the allocator."""
    result = {}
    for shape, (label, key, entry) in MEMORY_SHAPES.items():
        per = {}
        with ServerPair(args) as servers:
            for name in SERVERS:
                server = servers[name]
                time.sleep(0.2)
                before = int(server.client.info("memory")["used_memory"])
                rss_before = server.rss_bytes()
                started = time.monotonic()
                xadd_load(server.port, key, entry, entries)
                load_s = time.monotonic() - started
                time.sleep(0.5)
                length = server.client.call("XLEN", key)
                if length != entries:
                    raise RuntimeError(f"{name}: XLEN {key} is {length}, expected {entries}")
                after = int(server.client.info("memory")["used_memory"])
                rss_after = server.rss_bytes()
                per[name] = {"used_memory_before": before, "used_memory_after": after,
                             "bytes_per_entry": (after - before) / entries,
                             "rss_before": rss_before, "rss_after": rss_after,
                             "rss_bytes_per_entry": (rss_after - rss_before) / entries,
                             "load_s": load_s}
                print(f"streams: {shape} entries on {name}: "
                      f"{per[name]['bytes_per_entry']:.1f} B per entry (used_memory), "
                      f"{per[name]['rss_bytes_per_entry']:.1f} B (RSS); loaded in {load_s:.1f} s",
                      flush=True)
        result[shape] = {"label": label, "entries": entries, **per,
                         "ratio": per["warden"]["bytes_per_entry"] /
                         per["redis"]["bytes_per_entry"],
                         "rss_ratio": per["warden"]["rss_bytes_per_entry"] /
                         per["redis"]["rss_bytes_per_entry"]}
    return result


def streams_section(args, tmp, out):
    binary = find_tool(args, tmp, "streamcycle")
    quick = args.quick
    with ServerPair(args) as servers:
        throughput_rows(args, servers, binary, out)
        section = {"bullmq": bullmq_rows(args, servers, 3000 if quick else 10_000)}
    section["memory"] = memory_rows(args, 200_000 if quick else MEMORY_ENTRIES)
    out["streams"] = section


def met(value, target, higher_is_better=False):
    if higher_is_better:
        return "met" if value >= target else "not met"
    return "met" if value <= target else "not met"


def streams_tables(out):
    """The streams section's memory and BullMQ figures as markdown ("" without them)."""
    s = out.get("streams")
    if s is None:
        return ""
    lines = ["| streams | warden | Redis | ratio | target | |", "|---|---|---|---|---|---|"]
    for shape, m in s["memory"].items():
        w, r = m["warden"], m["redis"]
        lines.append(f"| memory per entry, {m['entries']:,} entries in one stream: "
                     f"{m['label']} (`used_memory` growth) | {w['bytes_per_entry']:.1f} B "
                     f"| {r['bytes_per_entry']:.1f} B | {m['ratio']:.2f}x | ≤{MEMORY_TARGET}x "
                     f"| {met(m['ratio'], MEMORY_TARGET)} |")
        lines.append(f"| the same, RSS growth | {w['rss_bytes_per_entry']:.1f} B "
                     f"| {r['rss_bytes_per_entry']:.1f} B | {m['rss_ratio']:.2f}x | — | — |")
    b = s["bullmq"]
    m, ratio = b["median"], b["ratio"]
    rounds = {n: ", ".join(f"{r['jobs_per_sec']:.0f}" for r in b["runs"][n]) for n in SERVERS}
    lines.append(f"| BullMQ 6.7.6: {b['jobs']:,} jobs added (50 in flight), then processed by one "
                 f"Worker at concurrency {b['concurrency']}: jobs/s over both phases (each round) "
                 f"| {m['warden']['jobs_per_sec']:.0f} ({rounds['warden']}) "
                 f"| {m['redis']['jobs_per_sec']:.0f} ({rounds['redis']}) "
                 f"| {ratio['jobs_per_sec']:.2f}x | ≥{BULLMQ_TARGET}x "
                 f"| {met(ratio['jobs_per_sec'], BULLMQ_TARGET, True)} |")
    lines.append(f"| BullMQ: adds/s; jobs processed/s | {m['warden']['add_per_sec']:.0f}; "
                 f"{m['warden']['process_per_sec']:.0f} | {m['redis']['add_per_sec']:.0f}; "
                 f"{m['redis']['process_per_sec']:.0f} | {ratio['add_per_sec']:.2f}x; "
                 f"{ratio['process_per_sec']:.2f}x | — | — |")
    lines.append(f"| BullMQ: server CPU per job | {m['warden']['cpu_us_per_req']:.0f} us "
                 f"| {m['redis']['cpu_us_per_req']:.0f} us | {ratio['cpu_us_per_req']:.2f}x "
                 f"| — | — |")
    return "\n".join(lines) + "\n"
