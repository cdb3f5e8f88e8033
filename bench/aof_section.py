"""bench/run_all.py's aof section: both servers with the append-only file on (warden's and
Redis 7.0's multi-part AOF, `--aof-use-rdb-preamble no` for Redis so that both write RESP
commands), each in its own temporary --dir.

Part 1, the lock cycle: bench/lockcycle (50 connections, one request in flight each) with
`appendfsync always` and with `everysec`, a fresh pair of servers for each policy, every round
followed by PING at P1 on 50 connections (its floor: PING writes nothing to the file). CPU per
request from schedstat (all threads: warden's fsync thread and Redis's bio threads count), p99
from lockcycle, and the AOF bytes written per request (INFO persistence aof_current_size before
and after) as a check that both write the same commands.

Part 2, the rewrite: --keys lock-like keys loaded into both servers with `appendfsync everysec`
(`SET lock:<12 digits> <36-byte token> PX 3600000` for nine in ten, the last tenth without PX),
then for each round, one server after the other: sync(2), a PING process starts a tight loop on
its own connection (one PING in flight, every round trip recorded), after 1 s BGREWRITEAOF is
sent and INFO persistence polled every POLL_S until aof_rewrite_in_progress is 0 and aof_rewrites
has gone up; then 1 s more of PINGs. Reported: the rewrite's wall time (command sent to the poll
that saw it done: both servers notice their child's exit in a cron that runs every 100 ms, so
+-0.1 s), BGREWRITEAOF's own reply time (it forks), PING p50 / p99 / p99.9 / max of the PINGs in
flight during the rewrite, max PING in the 1 s before (the machine's floor) and in the 1 s after
(Redis deletes the old files in a background thread then), the parent's run-queue wait during
the rewrite, and the resulting base file's size. The rewrite child inherits the server's
affinity, so it shares core 0 with its parent, as every server thread does in run_all.

Both parts start the servers with `--auto-aof-rewrite-percentage 0`: an automatic rewrite would
otherwise fork in the middle of some runs and not others (the lock cycle writes ~30-60 MB per
run; loading ten million keys passes 64 MB, 128 MB, ... 1 GB), and the rewrite is what part 2
measures on its own.
"""
import array
import math
import multiprocessing
import os
import socket
import statistics
import time

from bench_core import ServerPair, alternate, encode, find_lockcycle, lockcycle, measured
from bench_workloads import TOKEN
from cycle_sections import CYCLE_CONNECTIONS, add_ping_row, add_row, cycle_check, ping_floor
from results_report import CLIENT_CORE, SERVERS

POLICIES = ("always", "everysec")
# Share of the loaded keys with a lease (the rest are plain SETs), and the lease: longer than the
# whole section, so none expires (and is deleted, and written to the file) meanwhile.
PX_SHARE = 0.9
LOAD_TTL_MS = 3_600_000
POLL_S = 0.02
WINDOW_S = 1.0
REWRITE_TIMEOUT_S = 1800
PING = b"*1\r\n$4\r\nPING\r\n"


def aof_options(tmp, part):
    """({server: its fresh --dir}, per_server for ServerPair: that --dir, and for Redis
    --aof-use-rdb-preamble no)."""
    dirs = {}
    for name in SERVERS:
        dirs[name] = os.path.join(tmp, f"aof-{part}", name)
        os.makedirs(dirs[name])

    def per_server(name):
        own = ["--dir", dirs[name]]
        return own + (["--aof-use-rdb-preamble", "no"] if name == "redis" else [])
    return dirs, per_server


def both_options(policy):
    return ["--appendonly", "yes", "--appendfsync", policy, "--auto-aof-rewrite-percentage", "0"]


def config_get(client, name):
    """CONFIG GET name's value (Client.call reads one line; this reads the array)."""
    client.sock.sendall(encode(["CONFIG", "GET", name]))
    items = [client.reply() for _ in range(int(client.reply()))]
    return dict(zip(items[0::2], items[1::2])).get(name)


def check_aof_on(servers, policy):
    """Both servers write the file, with `policy`, each into its own directory."""
    for server in servers.values():
        if server.client.info("persistence").get("aof_enabled") != "1":
            raise RuntimeError(f"{server.name}: aof_enabled is not 1")
        got = config_get(server.client, "appendfsync")
        if got != policy:
            raise RuntimeError(f"{server.name}: appendfsync is {got}, not {policy}")
    dirs = {config_get(s.client, "dir") for s in servers.values()}
    if len(dirs) != len(servers):
        raise RuntimeError(f"the servers share a dir: {dirs}")


def aof_size(server):
    return int(server.client.info("persistence").get("aof_current_size", 0))


# --- part 1: the lock cycle ---------------------------------------------------------------------

def lockcycle_part(args, tmp, out):
    binary = find_lockcycle(args, tmp)
    for policy in POLICIES:
        dirs, per_server = aof_options(tmp, f"cycle-{policy}")

        def measure(server, r):
            server.client.flushall()
            size_before = aof_size(server)
            result = measured(server, lambda: lockcycle(
                binary, server, args.cycle_seconds, r + 1, CYCLE_CONNECTIONS))
            result["count"] = server.client.call("DBSIZE")
            result["aof_bytes_per_req"] = (aof_size(server) - size_before) / result["requests"]
            return {f"aof_{policy}_lockcycle": result,
                    f"aof_{policy}_ping_p1": ping_floor(args, server)}

        with ServerPair(args, extra=both_options(policy), per_server=per_server) as servers:
            check_aof_on(servers, policy)
            runs = {}
            for r, order in enumerate(alternate(args.rounds)):
                for name in order:
                    for row, result in measure(servers[name], r).items():
                        runs.setdefault(row, {s: [] for s in SERVERS})[name].append(result)
            files = {name: sorted(os.listdir(os.path.join(dirs[name], "appendonlydir")))
                     for name in SERVERS}
        add_ping_row(out, f"aof_{policy}_ping_p1", f"{CYCLE_CONNECTIONS} connections, "
                     f"`appendonly yes`, `appendfsync {policy}` (the floor of the next row)",
                     runs[f"aof_{policy}_ping_p1"])
        add_row(out, f"aof_{policy}_lockcycle", f"lock cycle (`bench/lockcycle`), `appendonly "
                f"yes`, `appendfsync {policy}`; {CYCLE_CONNECTIONS} connections, 1 request in "
                "flight each", runs[f"aof_{policy}_lockcycle"],
                cycle_check(runs[f"aof_{policy}_lockcycle"], lambda r: 0),
                floor=f"aof_{policy}_ping_p1", target=0.8)
        out["aof"].setdefault("files_after_cycle", {})[policy] = files


# --- part 2: the rewrite ------------------------------------------------------------------------

def pinger(port, stop, results, max_seconds):
    """PING, one in flight, as fast as the server answers, until stopped; sends back (start,
    round trip) pairs."""
    os.sched_setaffinity(0, {int(CLIENT_CORE)})
    samples = array.array("d")
    sock = socket.create_connection(("127.0.0.1", port), timeout=max_seconds)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    end = time.monotonic() + max_seconds
    clock = time.monotonic
    while not stop.is_set() and clock() < end:
        start = clock()
        sock.sendall(PING)
        got = sock.recv(64)
        while not got.endswith(b"\r\n"):
            chunk = sock.recv(64)
            if not chunk:
                raise ConnectionError("server closed the PING connection")
            got += chunk
        samples.append(start)
        samples.append(clock() - start)
        if got != b"+PONG\r\n":
            raise RuntimeError(f"PING answered {got!r}")
    sock.close()
    results.send_bytes(samples.tobytes())


def percentile(ordered, p):
    if not ordered:
        return None
    return ordered[max(0, math.ceil(len(ordered) * p / 100) - 1)]


def ping_stats(samples, start, end, within=False):
    """Round trips (ms) of the PINGs in flight at any time in [start, end), or with `within`
    only of those that started and ended in it."""
    if within:
        rtts = [rtt * 1000 for t, rtt in samples if t >= start and t + rtt < end]
    else:
        rtts = [rtt * 1000 for t, rtt in samples if t < end and t + rtt > start]
    rtts.sort()
    return {"count": len(rtts), "p50_ms": percentile(rtts, 50), "p99_ms": percentile(rtts, 99),
            "p999_ms": percentile(rtts, 99.9), "max_ms": rtts[-1] if rtts else None}


def schedstat(pid):
    """(time on CPU, time runnable waiting for a core), ns, of all the process's threads."""
    cpu = wait = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                fields = f.read().split()
        except FileNotFoundError:
            continue
        cpu += int(fields[0])
        wait += int(fields[1])
    return cpu, wait


def dir_files(path):
    """{name: size} of the files in appendonlydir."""
    d = os.path.join(path, "appendonlydir")
    return {n: os.path.getsize(os.path.join(d, n)) for n in sorted(os.listdir(d))}


def load_keys(server, keys):
    """keys lock-like keys, as in the keyspace section but PX_SHARE of them with a lease."""
    with_px = int(keys * PX_SHARE)
    server.client.load(["SET", "lock:__rand_int__", TOKEN, "PX", str(LOAD_TTL_MS)], 0, with_px, 1)
    server.client.load(["SET", "lock:__rand_int__", TOKEN], with_px, keys, 1)
    got = server.client.call("DBSIZE")
    if got != keys:
        raise RuntimeError(f"{server.name} holds {got} keys after loading {keys}")


def rewrite_once(server, path):
    """One BGREWRITEAOF with the PING process running; its figures."""
    client = server.client
    before = int(client.info("persistence")["aof_rewrites"])
    os.sync()  # the writeback of what came before is not the rewrite's
    stop = multiprocessing.Event()
    receive, send = multiprocessing.Pipe(duplex=False)
    proc = multiprocessing.Process(target=pinger, args=(server.port, stop, send,
                                                        REWRITE_TIMEOUT_S + 10))
    proc.start()
    send.close()  # so that a PING process that dies ends recv_bytes below
    try:
        time.sleep(WINDOW_S + 0.1)
        sched_before = schedstat(server.proc.pid)
        t_cmd = time.monotonic()
        reply = client.call("BGREWRITEAOF")
        t_reply = time.monotonic()
        if "started" not in reply and "scheduled" not in reply:
            raise RuntimeError(f"{server.name}: BGREWRITEAOF answered {reply!r}")
        while True:
            persistence = client.info("persistence")
            if (persistence["aof_rewrite_in_progress"] == "0"
                    and int(persistence["aof_rewrites"]) > before):
                break
            if time.monotonic() - t_cmd > REWRITE_TIMEOUT_S:
                raise RuntimeError(f"{server.name}: rewrite not done after {REWRITE_TIMEOUT_S} s")
            time.sleep(POLL_S)
        t_done = time.monotonic()
        sched_done = schedstat(server.proc.pid)
        if persistence.get("aof_last_bgrewrite_status") != "ok":
            raise RuntimeError(f"{server.name}: aof_last_bgrewrite_status "
                               f"{persistence.get('aof_last_bgrewrite_status')}")
        time.sleep(WINDOW_S)
        stop.set()
        raw = array.array("d", receive.recv_bytes())
        proc.join(timeout=30)
    finally:
        stop.set()
        if proc.is_alive():
            proc.join(timeout=30)
            if proc.is_alive():
                proc.terminate()
                proc.join()
    samples = list(zip(raw[0::2], raw[1::2]))
    stats = client.info("stats")
    files = dir_files(path)
    base = [size for name, size in files.items() if name.endswith(".base.aof")]
    result = {
        "rewrite_s": t_done - t_cmd, "reply_ms": (t_reply - t_cmd) * 1000,
        "ping": ping_stats(samples, t_cmd, t_done),
        "ping_before": ping_stats(samples, t_cmd - WINDOW_S, t_cmd, within=True),
        "ping_after": ping_stats(samples, t_done, t_done + WINDOW_S, within=True),
        "server_cpu_ms": (sched_done[0] - sched_before[0]) / 1e6,
        "runqueue_wait_ms": (sched_done[1] - sched_before[1]) / 1e6,
        "aof_base_size": int(persistence.get("aof_base_size", 0)),
        "base_file_bytes": base[0] if len(base) == 1 else None,
        "files": files,
        # Redis only: its own measure of the fork.
        "latest_fork_usec": int(stats["latest_fork_usec"]) if "latest_fork_usec" in stats
        else None,
    }
    p = result["ping"]
    print(f"aof rewrite {server.name}: {result['rewrite_s']:.2f} s, BGREWRITEAOF reply "
          f"{result['reply_ms']:.1f} ms, PING p50 {p['p50_ms']:.2f} p99 {p['p99_ms']:.2f} "
          f"p99.9 {p['p999_ms']:.2f} max {p['max_ms']:.1f} ms ({p['count']} PINGs; max "
          f"{result['ping_before']['max_ms']:.1f} ms before, "
          f"{result['ping_after']['max_ms']:.1f} ms after); base file "
          f"{(result['base_file_bytes'] or 0) / 1e6:.0f} MB; run-queue wait "
          f"{result['runqueue_wait_ms']:.0f} ms", flush=True)
    return result


def rewrite_part(args, tmp, out):
    dirs, per_server = aof_options(tmp, "rewrite")
    section = {"keys": args.keys, "px_share": PX_SHARE, "appendfsync": "everysec",
               "rounds": args.rounds, "load": {}, "runs": {s: [] for s in SERVERS}}
    with ServerPair(args, extra=both_options("everysec"), per_server=per_server) as servers:
        check_aof_on(servers, "everysec")
        for name in SERVERS:
            server = servers[name]
            started = time.monotonic()
            load_keys(server, args.keys)
            load_s = time.monotonic() - started
            persistence = server.client.info("persistence")
            section["load"][name] = {
                "load_s": load_s, "rss_bytes": server.rss_bytes(),
                "aof_current_size": int(persistence.get("aof_current_size", 0)),
                "files": dir_files(dirs[name])}
            print(f"aof rewrite: {args.keys:,} keys loaded into {name} in {load_s:.0f} s, AOF "
                  f"{section['load'][name]['aof_current_size'] / 1e6:.0f} MB, RSS "
                  f"{section['load'][name]['rss_bytes'] / 1e6:.0f} MB", flush=True)
        for order in alternate(args.rounds):
            for name in order:
                section["runs"][name].append(rewrite_once(servers[name], dirs[name]))
        for name in SERVERS:
            got = servers[name].client.call("DBSIZE")
            if got != args.keys:
                raise RuntimeError(f"{name} holds {got} keys after the rewrites")
    section["median"] = {s: {
        "rewrite_s": statistics.median(r["rewrite_s"] for r in section["runs"][s]),
        "reply_ms": statistics.median(r["reply_ms"] for r in section["runs"][s]),
        "ping_max_ms": statistics.median(r["ping"]["max_ms"] for r in section["runs"][s]),
        "ping_p999_ms": statistics.median(r["ping"]["p999_ms"] for r in section["runs"][s]),
        "ping_p99_ms": statistics.median(r["ping"]["p99_ms"] for r in section["runs"][s]),
        "ping_before_max_ms": statistics.median(r["ping_before"]["max_ms"]
                                                for r in section["runs"][s]),
        "ping_after_max_ms": statistics.median(r["ping_after"]["max_ms"]
                                               for r in section["runs"][s]),
        "runqueue_wait_ms": statistics.median(r["runqueue_wait_ms"] for r in section["runs"][s]),
        "worst_ping_ms": max(r["ping"]["max_ms"] for r in section["runs"][s]),
        "base_file_bytes": section["runs"][s][-1]["base_file_bytes"],
    } for s in SERVERS}
    out["aof"]["rewrite"] = section


def aof_section(args, tmp, out):
    out["aof"] = {}
    lockcycle_part(args, tmp, out)
    rewrite_part(args, tmp, out)
