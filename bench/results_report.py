"""How bench/run_all.py presents its results: the markdown tables with medians, ratios and
targets, the chart, and the lines that say which machine and versions ran them."""

import os
import platform
import subprocess

SERVERS = ("warden", "redis")
# Where run_all.py pins the servers and the load generators.
SERVER_CORE = "0"
CLIENT_CORE = "1"
BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
# The rows of run_all.py's one-request-in-flight sections (redisson, semaphore, unixsocket,
# clients10k), which run for its --cycle-seconds.
CYCLE_ROWS = {"redisson_cycle", "semaphore_cycle", "lockcycle_tcp", "lockcycle_unix",
              "clients100_lockcycle", "clients10k_lockcycle", "aof_always_lockcycle",
              "aof_everysec_lockcycle"}


def keyspace_target(section):
    # The target is for ten million keys; a smaller (--quick) keyspace has none.
    return 0.6 if section["large_keys"] >= 10_000_000 else None


def met(value, target):
    if target is None or value is None:
        return "—"
    return "met" if value <= target else "not met"


def rss_back(result, bigdelete):
    if result["rss_back_s"] is None:
        return f">{bigdelete['rss_wait_s']:g} s"
    return f"{result['rss_back_s']:.1f} s"


def fmt_ops(v):
    return f"{v / 1000:.0f}k"


def excess_cells(w, is_floor):
    """The two excess columns: CPU per request above the same section's PING at the same depth,
    per server, and warden's over Redis's."""
    e = w.get("excess")
    if e is None:
        return "(the floor) | —" if is_floor else "— | —"
    ratio = f"{e['ratio']:.2f}x" if e["ratio"] is not None else "—"
    return f"{e['warden_us_per_req']:.2f} / {e['redis_us_per_req']:.2f} us | {ratio}"


def tables(out):
    lines = []
    if out["workloads"]:
        lines += ["| workload | warden ops/s | Redis ops/s | warden CPU/req | Redis CPU/req "
                  "| CPU ratio | target | | CPU/req above PING, warden / Redis | excess ratio "
                  "| warden p50 / p99 | Redis p50 / p99 | keys check |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        floors = {w.get("floor") for w in out["workloads"].values()}
        for name, w in out["workloads"].items():
            m, ratio, t = w["median"], w["ratio"], w["target_cpu_ratio"]
            lines.append(
                f"| {w['label']} | {fmt_ops(m['warden']['ops_per_sec'])} "
                f"| {fmt_ops(m['redis']['ops_per_sec'])} "
                f"| {m['warden']['cpu_us_per_req']:.2f} us | {m['redis']['cpu_us_per_req']:.2f} us "
                f"| {ratio['cpu_us_per_req']:.2f}x | {'≤' + str(t) + 'x' if t else '—'} "
                f"| {met(ratio['cpu_us_per_req'], t)} "
                f"| {excess_cells(w, name in floors)} "
                f"| {m['warden']['p50_us'] / 1000:.2f} / {m['warden']['p99_us'] / 1000:.2f} ms "
                f"| {m['redis']['p50_us'] / 1000:.2f} / {m['redis']['p99_us'] / 1000:.2f} ms "
                f"| {w['keys_check']} |")
        lines.append("")

    rows = []

    def row(name, warden, redis, ratio=None, target=None):
        ratio_text = f"{ratio:.2f}x" if ratio is not None else ""
        target_text = f"≤{target}x" if target else "—"
        rows.append(f"| {name} | {warden} | {redis} | {ratio_text} | {target_text} "
                    f"| {met(ratio, target)} |")

    if "keyspace" in out:
        k = out["keyspace"]
        for keys, target in ((k["small_keys"], None), (k["large_keys"], keyspace_target(k))):
            r = k["runs"][str(keys)]
            row(f"CPU per GET, P16, {keys:,} keys loaded",
                f"{r['median']['warden']['cpu_us_per_req']:.2f} us",
                f"{r['median']['redis']['cpu_us_per_req']:.2f} us",
                r["ratio"]["cpu_us_per_req"], target)
        small, large = (k["runs"][str(n)]["median"] for n in (k["small_keys"], k["large_keys"]))
        growth = {s: large[s]["cpu_us_per_req"] / small[s]["cpu_us_per_req"] for s in SERVERS}
        row(f"CPU per GET growth, {k['small_keys']:,} → {k['large_keys']:,} keys",
            f"{growth['warden']:.2f}x", f"{growth['redis']:.2f}x")
        rss = k["runs"][str(k["large_keys"])]["rss_bytes"]
        row(f"RSS with {k['large_keys']:,} keys", f"{rss['warden'] / 1e6:.0f} MB",
            f"{rss['redis'] / 1e6:.0f} MB", rss["warden"] / rss["redis"])
    if "memory" in out:
        m = out["memory"]
        row(f"memory per lock ({m['locks']:,} locks, 36-byte token)",
            f"{m['warden']['bytes_per_lock']:.1f} B", f"{m['redis']['bytes_per_lock']:.1f} B",
            m["ratio"], 0.5)
    for section in ("types_memory", "zsets_lists_memory"):
        for workload, r in out.get(section, {}).items():
            name, target = MEMORY_ROWS.get(workload, (workload + " ({:,})", None))
            count = r["count"] // 10 if workload.startswith("big") else r["count"]
            row(name.format(count), f"{r['warden']['bytes_per_item']:.1f} B",
                f"{r['redis']['bytes_per_item']:.1f} B", r["ratio"], target)
    if "startup" in out:
        s = out["startup"]
        row(f"start to first PONG (median of {s['runs']})", f"{s['warden']['median_ms']:.1f} ms",
            f"{s['redis']['median_ms']:.1f} ms", s["warden"]["median_ms"] / s["redis"]["median_ms"])
        idle_mb = s["warden"]["idle_rss_bytes"] / 1e6
        # The only absolute target: warden's own idle RSS.
        redis_mb = s["redis"]["idle_rss_bytes"] / 1e6
        rows.append(f"| idle RSS | {idle_mb:.2f} MB | {redis_mb:.2f} MB | | ≤4 MB (warden) "
                    f"| {met(idle_mb, 4.0)} |")
        row(f"{s['parallel']} servers started in parallel on `--port 0`",
            f"{s['parallel_up']}/{s['parallel']} up, {s['parallel_ports']} ports", "")
    if "storm" in out:
        s = out["storm"]
        row(f"expiry storm: {s['locks']:,} locks `PX {s['ttl_ms']}`, left 1 s after the last "
            "deadline", f"{s['warden']['left_percent']:.2f}%", f"{s['redis']['left_percent']:.2f}%")
        row("worst PING latency during that storm", f"{s['warden']['worst_ping_ms']:.1f} ms",
            f"{s['redis']['worst_ping_ms']:.1f} ms",
            s["warden"]["worst_ping_ms"] / s["redis"]["worst_ping_ms"])
    if "bigdelete" in out:
        b = out["bigdelete"]
        for scenario, r in b["scenarios"].items():
            what = (f"`{scenario.upper().replace('-', ' ')}` of {b['keys']:,} keys"
                    if scenario.startswith("flushall") else
                    f"`{scenario.upper()}` of a {b['fields']:,}-field hash")
            w, rd = r["warden"], r["redis"]
            pw, pr = w["ping_freeing"], rd["ping_freeing"]
            if pw["count"] and pr["count"]:  # else freed before any PING was in flight
                # The target is absolute, on warden alone: p99 and max under 5 ms.
                ok = "met" if max(pw["p99_ms"], pw["max_ms"]) < b["target_ms"] else "not met"
                rows.append(f"| PING p99 / max while {what} is freed "
                            f"| {pw['p99_ms']:.1f} / {pw['max_ms']:.1f} ms "
                            f"| {pr['p99_ms']:.1f} / {pr['max_ms']:.1f} ms "
                            f"| {pw['max_ms'] / pr['max_ms']:.2f}x "
                            f"| <{b['target_ms']:g} ms (warden) | {ok} |")
            # The run-queue wait says how much of the PING latency was the machine's.
            row(f"{what}: reply / memory freed / RSS back after / server's run-queue wait",
                f"{w['reply_ms']:.1f} ms / {w['freed_s']:.2f} s / {rss_back(w, b)} / "
                f"{w['runqueue_wait_ms']:.0f} ms",
                f"{rd['reply_ms']:.1f} ms / {rd['freed_s']:.2f} s / {rss_back(rd, b)} / "
                f"{rd['runqueue_wait_ms']:.0f} ms")
    if "blocking" in out:
        blocking_rows(out["blocking"], row, rows)
    if "aof" in out:
        aof_rows(out, row)
    if "pubsub" in out:
        p = out["pubsub"]
        for pipeline, r in p["pipelines"].items():
            row(f"`PUBLISH` of a 64-byte message to {p['subscribers']} subscribers, P{pipeline}: "
                f"server CPU per delivered message ({p['messages']:,} messages per round)",
                f"{r['warden_ns']:.0f} ns", f"{r['redis_ns']:.0f} ns", r["ratio"], 0.6)
    if rows:
        lines += ["| measurement | warden | Redis | ratio | target | |",
                  "|---|---|---|---|---|---|"] + rows + [""]
    return "\n".join(lines)


def aof_rows(out, row):
    """run_all's aof section: the lock cycle's targets (CPU per request at most 0.8x Redis's, p99
    no worse) per appendfsync policy, then the rewrite of --keys keys."""
    for policy in ("always", "everysec"):
        w = out["workloads"].get(f"aof_{policy}_lockcycle")
        if w is None:
            continue
        m, ratio = w["median"], w["ratio"]
        row(f"lock cycle, `appendfsync {policy}`: CPU per request",
            f"{m['warden']['cpu_us_per_req']:.2f} us", f"{m['redis']['cpu_us_per_req']:.2f} us",
            ratio["cpu_us_per_req"], 0.8)
        row(f"lock cycle, `appendfsync {policy}`: p99 (p50)",
            f"{m['warden']['p99_us'] / 1000:.2f} ms ({m['warden']['p50_us'] / 1000:.2f})",
            f"{m['redis']['p99_us'] / 1000:.2f} ms ({m['redis']['p50_us'] / 1000:.2f})",
            ratio["p99_us"], 1.0)
        row(f"lock cycle, `appendfsync {policy}`: ops/s; AOF bytes per request",
            f"{fmt_ops(m['warden']['ops_per_sec'])}; {m['warden']['aof_bytes_per_req']:.1f} B",
            f"{fmt_ops(m['redis']['ops_per_sec'])}; {m['redis']['aof_bytes_per_req']:.1f} B",
            ratio["ops_per_sec"])
    rw = out["aof"].get("rewrite")
    if rw is None:
        return
    m, n = rw["median"], rw["rounds"]
    load = rw["load"]
    row(f"loading {rw['keys']:,} keys with `appendfsync everysec`: time / AOF size / RSS",
        *(f"{load[s]['load_s']:.0f} s / {load[s]['aof_current_size'] / 1e6:.0f} MB / "
          f"{load[s]['rss_bytes'] / 1e6:.0f} MB" for s in SERVERS))
    row(f"`BGREWRITEAOF` of {rw['keys']:,} keys: wall time (median of {n})",
        f"{m['warden']['rewrite_s']:.2f} s", f"{m['redis']['rewrite_s']:.2f} s",
        m["warden"]["rewrite_s"] / m["redis"]["rewrite_s"])
    row(f"worst PING during the rewrite (worst of {n}; median of each rewrite's worst)",
        f"{m['warden']['worst_ping_ms']:.1f} ms ({m['warden']['ping_max_ms']:.1f})",
        f"{m['redis']['worst_ping_ms']:.1f} ms ({m['redis']['ping_max_ms']:.1f})",
        m["warden"]["worst_ping_ms"] / m["redis"]["worst_ping_ms"])
    row("PING p99.9 / p99 during the rewrite (medians)",
        f"{m['warden']['ping_p999_ms']:.2f} / {m['warden']['ping_p99_ms']:.2f} ms",
        f"{m['redis']['ping_p999_ms']:.2f} / {m['redis']['ping_p99_ms']:.2f} ms",
        m["warden"]["ping_p999_ms"] / m["redis"]["ping_p999_ms"])
    forks = [r["latest_fork_usec"] for r in rw["runs"]["redis"] if r["latest_fork_usec"]]
    row("`BGREWRITEAOF` reply (it forks; median)",
        f"{m['warden']['reply_ms']:.1f} ms",
        f"{m['redis']['reply_ms']:.1f} ms" + (
            f" (`latest_fork_usec` {sorted(forks)[len(forks) // 2] / 1000:.1f} ms)"
            if forks else ""))
    row("PING max in the 1 s before / the 1 s after the rewrite (medians); server's run-queue "
        "wait during it", *(f"{m[s]['ping_before_max_ms']:.1f} / {m[s]['ping_after_max_ms']:.1f}"
                            f" ms; {m[s]['runqueue_wait_ms']:.0f} ms" for s in SERVERS))
    if m["warden"]["base_file_bytes"] and m["redis"]["base_file_bytes"]:
        row("base file after the rewrite",
            f"{m['warden']['base_file_bytes'] / 1e6:.0f} MB",
            f"{m['redis']['base_file_bytes'] / 1e6:.0f} MB",
            m["warden"]["base_file_bytes"] / m["redis"]["base_file_bytes"])


# types_memory.py's workloads: the row's name (formatted with the count) and the target.
MEMORY_ROWS = {
    "redisson": ("memory per Redisson lock (`HINCRBY` + `PEXPIRE`, {:,} locks)", None),
    "bighash": ("memory per field, 10 hashes of {:,} fields", None),
    "lock": ("memory per string lock, same run ({:,} locks)", None),
    "semaphore": ("memory per redis-semaphore semaphore (five `ZADD` + `PEXPIRE`, {:,} "
                  "semaphores)", 0.5),
    "signal": ("memory per python-redis-lock signal key (`LPUSH key 1` + `PEXPIRE`, {:,} keys)",
               0.5),
    "bigzset": ("memory per member, 10 sorted sets of {:,} members", 0.7),
}


def blocking_rows(b, row, rows):
    """blocking_bench.py's figures: hand-off latency (target: no worse than Redis), idle CPU
    and the cost of a wake with few and many clients blocked."""
    if "handoff" in b:
        w, r = b["handoff"]["warden"], b["handoff"]["redis"]
        for p in ("p50", "p99"):
            ratio = w[f"{p}_us"] / r[f"{p}_us"]
            row(f"`BLPOP` hand-off, push to receive, {p} ({b['handoffs']:,} hand-offs)",
                f"{w[f'{p}_us']:.1f} us", f"{r[f'{p}_us']:.1f} us", ratio, 1.0)
        row("server run-queue wait per hand-off (the machine's share of the latency)",
            f"{w['runqueue_wait_us']:.1f} us", f"{r['runqueue_wait_us']:.1f} us")
    if "idle" in b:
        w, r = b["idle"]["warden"], b["idle"]["redis"]
        counts = sorted(int(n) for n in w)
        for n in counts:
            a, c = w[str(n)], r[str(n)]
            row(f"{n:,} clients blocked on distinct keys: server CPU over {b['idle_s']:g} idle s",
                f"{a['idle_cpu_ms']:.1f} ms", f"{c['idle_cpu_ms']:.1f} ms")
            row(f"{n:,} blocked: CPU per wake (`LPUSH`, reply, `BLPOP` again) one at a time; "
                "per wake, 100 per write; per `LPUSH` to an unwatched key",
                f"{a['wake_cpu_us']:.1f} / {a['batch_wake_cpu_us']:.1f} / "
                f"{a['unrelated_push_cpu_us']:.2f} us",
                f"{c['wake_cpu_us']:.1f} / {c['batch_wake_cpu_us']:.1f} / "
                f"{c['unrelated_push_cpu_us']:.2f} us",
                a["batch_wake_cpu_us"] / c["batch_wake_cpu_us"])
        if len(counts) > 1:
            lo, hi = str(counts[0]), str(counts[-1])
            keys = ("wake_cpu_us", "batch_wake_cpu_us", "unrelated_push_cpu_us")
            growth = {s: " / ".join(f"{x[hi][k] / x[lo][k]:.2f}x" for k in keys)
                      for s, x in (("warden", w), ("redis", r))}
            row(f"the same three, growth from {int(lo):,} to {int(hi):,} blocked",
                growth["warden"], growth["redis"])


def short_count(n):
    for unit, size in (("M", 1_000_000), ("k", 1000)):
        if n >= size and n % size == 0:
            return f"{n // size}{unit}"
    return str(n)


def chart_bars(out):
    """(label, CPU or memory ratio, target) for the chart, and the ops/s ratios."""
    bars, ops = [], []
    for name, w in out["workloads"].items():
        bars.append((name, w["ratio"]["cpu_us_per_req"], w["target_cpu_ratio"]))
        ops.append((name, w["ratio"]["ops_per_sec"]))
    if "keyspace" in out:
        k = out["keyspace"]
        for keys, target in ((k["small_keys"], None), (k["large_keys"], keyspace_target(k))):
            bars.append((f"get_p16\n{short_count(keys)} keys",
                         k["runs"][str(keys)]["ratio"]["cpu_us_per_req"], target))
    if "memory" in out:
        bars.append(("memory\nper lock", out["memory"]["ratio"], 0.5))
    for workload, label in (("redisson", "memory per\nRedisson lock"),
                            ("bighash", "memory per\nhash field")):
        if workload in out.get("types_memory", {}):
            bars.append((label, out["types_memory"][workload]["ratio"], None))
    for workload, label in (("semaphore", "memory per\nsemaphore"),
                            ("signal", "memory per\nsignal key"),
                            ("bigzset", "memory per\nzset member")):
        if workload in out.get("zsets_lists_memory", {}):
            bars.append((label, out["zsets_lists_memory"][workload]["ratio"],
                         MEMORY_ROWS[workload][1]))
    for pipeline, r in out.get("pubsub", {}).get("pipelines", {}).items():
        bars.append((f"PUBLISH\nP{pipeline}", r["ratio"], 0.6))
    if "handoff" in out.get("blocking", {}):
        h = out["blocking"]["handoff"]
        for p in ("p50", "p99"):
            bars.append((f"BLPOP\nhand-off {p}",
                         h["warden"][f"{p}_us"] / h["redis"][f"{p}_us"], 1.0))
    rw = out.get("aof", {}).get("rewrite")
    if rw is not None:
        m = rw["median"]
        bars.append(("AOF rewrite\ntime", m["warden"]["rewrite_s"] / m["redis"]["rewrite_s"],
                     None))
        bars.append(("AOF rewrite\nworst PING",
                     m["warden"]["worst_ping_ms"] / m["redis"]["worst_ping_ms"], None))
    if "storm" in out:
        s = out["storm"]
        bars.append(("storm\nworst PING",
                     s["warden"]["worst_ping_ms"] / s["redis"]["worst_ping_ms"], None))
    if "startup" in out:
        s = out["startup"]
        bars.append(("start to\nPONG", s["warden"]["median_ms"] / s["redis"]["median_ms"], None))
    return bars, ops


def draw_chart(out, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    bars, ops = chart_bars(out)
    if not bars:
        return False
    fig, axes = plt.subplots(2 if ops else 1, 1, squeeze=False,
                             figsize=(max(8, 1.0 * len(bars)), 8 if ops else 4.5))
    ax = axes[0][0]
    xs = range(len(bars))
    ax.bar(xs, [b[1] for b in bars], color="#4c72b0")
    label = "target"  # one legend entry for all the target marks
    for x, (_, value, target) in zip(xs, bars):
        ax.text(x, max(value, target or 0), f"{value:.2f}", ha="center", va="bottom", fontsize=8)
        if target is not None:
            ax.hlines(target, x - 0.45, x + 0.45, colors="#c44e52", linewidth=2, label=label)
            label = None
    ax.axhline(1.0, color="gray", linestyle="--", linewidth=1)
    ax.set_xticks(list(xs), [b[0] for b in bars], fontsize=8)
    ax.set_ylabel("warden / Redis")
    ax.set_title("CPU per request, memory and latency: warden / Redis (lower is better)")
    if any(b[2] for b in bars):
        ax.legend(loc="upper left")
    if ops:
        ax = axes[1][0]
        xs = range(len(ops))
        ax.bar(xs, [o[1] for o in ops], color="#55a868")
        for x, (_, value) in zip(xs, ops):
            ax.text(x, value, f"{value:.2f}", ha="center", va="bottom", fontsize=8)
        ax.axhline(1.0, color="gray", linestyle="--", linewidth=1)
        ax.set_xticks(list(xs), [o[0] for o in ops], fontsize=8)
        ax.set_ylabel("warden / Redis")
        ax.set_title("ops/s: warden / Redis (higher is better)")
    fig.suptitle(out["date"] + ", " + out["machine"]["cpu"], fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def machine():
    cpu = platform.processor()
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem_kb = int(f.readline().split()[1])
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gib": round(mem_kb / 2**20, 1),
            "kernel": platform.release(), "loadavg_at_start": os.getloadavg()[0]}


def versions(args):
    def output(argv):
        try:
            return subprocess.run(argv, capture_output=True, text=True).stdout.strip()
        except OSError:
            return "?"
    # "Redis server v=7.0.15 sha=... malloc=jemalloc-5.3.0 ..." -> "redis-server 7.0.15"
    redis = output([args.redis, "--version"]).split()
    redis_version = next((w[2:] for w in redis if w.startswith("v=")), "?")
    dirty = output(["git", "-C", BENCH_DIR, "status", "--porcelain", "--untracked-files=no"])
    return {"warden": output([args.warden, "--version"]),
            "redis": f"redis-server {redis_version}",
            "commit": output(["git", "-C", BENCH_DIR, "rev-parse", "--short", "HEAD"]) +
            (" with local changes" if dirty else "")}


def header_lines(out, with_versions=True):
    """The lines that say where and with what a run was made, above its tables."""
    m = out["machine"]
    text = [f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB, Linux "
            f"{m['kernel']}; load average {m['loadavg_at_start']:.2f} at the start, "
            f"{m['loadavg_at_end']:.2f} at the end. "
            f"Servers on core {SERVER_CORE}, load generators on core {CLIENT_CORE}.", ""]
    if with_versions:
        text += [f"{out['versions']['warden']} (commit {out['versions']['commit']}); "
                 f"{out['versions']['redis']}", ""]
    text += [f"Medians of {out['rounds']} round(s), servers alternating. Requests per run: "
             f"{out['requests_p16']:,} at P16, {out['requests_p1']:,} at P1, 50 connections; "
             f"lockcycle {out['lockcycle_seconds']} s"
             + (f"; the one-request-in-flight sections {out['cycle_seconds']:g} s per run, their "
                f"PING floors {out['floor_requests']:,} requests"
                if CYCLE_ROWS & set(out["workloads"]) else "")
             + ". CPU per request is the server's "
             "schedstat time over the run's requests; ratios are warden / Redis.", ""]
    if out["note"]:
        text += [out["note"], ""]
    return text


def write_markdown(out, path, chart):
    text = [f"# Side-by-side results, {out['date']}", "",
            f"Command: `{out['command']}`", ""] + header_lines(out)
    text.append(tables(out))
    if chart:
        text += ["![warden / Redis ratios](ratios.png)", ""]
    with open(path, "w") as f:
        f.write("\n".join(text))


# docs/performance.md carries the latest run between these markers; the prose around them is
# written by hand. tests/docs/test_doc_blocks.py renders the block again from the results file
# it names and fails if the two differ, so the table is never edited by hand.
DOCS_BEGIN = "<!-- bench:begin -->"
DOCS_END = "<!-- bench:end -->"
DOCS_SOURCE = "<!-- written by bench/run_all.py --write-docs from {} -->"


def docs_block(out, source, chart, extra=""):
    """The generated part of docs/performance.md: date, commit, versions and the command line of
    the run, then its tables (and `extra`, more of them). `source` is the results file, relative
    to the repository."""
    v = out["versions"]
    text = [DOCS_SOURCE.format(source), "",
            f"**Run of {out['date']}**, commit `{v['commit']}`: {v['warden']}, "
            f"{v['redis']}.", "",
            f"Command: `{out['command']}`", ""] + header_lines(out, with_versions=False)
    text.append(tables(out))
    if extra:
        text.append(extra)
    if chart:
        text += [f"![warden / Redis ratios](../{os.path.dirname(source)}/ratios.png)", ""]
    return "\n".join(text).rstrip("\n") + "\n"


def write_docs(path, block):
    """Replaces what lies between the markers in `path` with `block`."""
    with open(path) as f:
        text = f.read()
    begin, end = text.find(DOCS_BEGIN), text.find(DOCS_END)
    if begin < 0 or end < begin:
        raise SystemExit(f"{path} has no {DOCS_BEGIN} ... {DOCS_END} markers")
    text = text[:begin + len(DOCS_BEGIN)] + "\n" + block + text[end:]
    with open(path, "w") as f:
        f.write(text)
