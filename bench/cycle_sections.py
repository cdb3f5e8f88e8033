"""bench/run_all.py's one-request-in-flight sections: redisson, semaphore, unixsocket and
clients10k (bench/cmdcycle and bench/lockcycle, each row with PING at P1 as its floor)."""
import os
import resource
import socket
import struct
import sys
import time

from bench_core import (BENCH_DIR, KEYS_TOLERANCE, ServerPair, alternate, cmdcycle,
                        find_lockcycle, find_tool, lockcycle, measured, redis_benchmark, report,
                        summarize)
from bench_workloads import (REDISSON_FIELD, SEMAPHORE_ACQUIRE_SCRIPT, SEMAPHORE_HOLDERS,
                             SEMAPHORE_LIMIT, SEMAPHORE_NOW_MS, SEMAPHORE_TIMEOUT_MS)
from results_report import SERVERS

# --- one request in flight: Redisson, redis-semaphore, unix socket, ten thousand clients -------

# Connections of the cycle sections: as lockcycle's and redis-benchmark's 50, so that PING at P1
# with 50 connections is their floor.
CYCLE_CONNECTIONS = 50
# Redisson (3.52.0) with its default config: the lease of lock() without one is
# lockWatchdogTimeout, and an unlock's latch lives (3000 + EqualJitterDelay(1 s, 2 s)) * 4 ms,
# 16-20 s (tests/clients/python/redisson_replay.py, unlock_timeout_ms).
REDISSON_CLIENT_ID = REDISSON_FIELD.split(":")[0]
REDISSON_LEASE_MS = 30000
REDISSON_LATCH_MS = 20000
# ten thousand clients, a hundred of them busy; both servers get --maxclients CLIENTS_MAX (10,000
# by default for both, and the runner's own connection makes 10,001).
CLIENTS_TOTAL = 10_000
CLIENTS_BUSY = 100
CLIENTS_MAX = 10_100
# redis-semaphore: each connection's semaphore holds two live holders besides the acquirer's.
SEMAPHORE_CYCLE_HOLDERS = SEMAPHORE_HOLDERS[-2:]


def redisson_scripts():
    """RLock's acquire (tryLockInnerAsync) and unlock (unlockInnerAsync) scripts, byte for byte
    from the copy the client suites replay (Redisson 3.52.0)."""
    sys.path.insert(0, os.path.join(BENCH_DIR, "..", "tests", "clients", "python"))
    from redisson_lock_scripts import LOCK_TRY_LOCK, LOCK_UNLOCK
    return LOCK_TRY_LOCK, LOCK_UNLOCK


def run_paired(args, servers, measure):
    """measure(server, round) -> {row: result} on both servers each round, alternating which goes
    first; returns {row: {server: [result per round]}}."""
    runs = {}
    for r, order in enumerate(alternate(args.rounds)):
        for name in order:
            for row, result in measure(servers[name], r).items():
                runs.setdefault(row, {s: [] for s in SERVERS})[name].append(result)
    return runs


def add_row(out, name, label, runs, check, floor=None, target=None):
    report(name, runs)
    median, ratio = summarize(runs)
    out["workloads"][name] = {"label": label, "target_cpu_ratio": target, "runs": runs,
                              "median": median, "ratio": ratio, "keys_check": check,
                              "floor": floor}


def cycle_check(runs, expected, unit="keys"):
    """'ok', or what is off: unexpected replies, or a run's count away from expected(result)
    (each run's own: a timed run does a different number of cycles on each server)."""
    problems = []
    for name in SERVERS:
        for r, result in enumerate(runs[name]):
            if result.get("unexpected"):
                first = result.get("first_unexpected")
                problems.append(f"round {r + 1}: {name} {result['unexpected']} unexpected replies"
                                + (f" (first: {first!r})" if first else ""))
            want = expected(result)
            if abs(result["count"] - want) > KEYS_TOLERANCE * max(want, 1):
                problems.append(f"round {r + 1}: {name} {result['count']} {unit}, "
                                f"expected ~{want:.0f}")
    return "ok" if not problems else "; ".join(problems)


def ping_floor(args, server, connections=CYCLE_CONNECTIONS, unixsocket=False):
    """PING at P1 with `connections` connections: the floor of a one-request-in-flight row."""
    return measured(server, lambda: redis_benchmark(
        server, args.floor_requests, 1, 1, ["PING"], connections,
        server.unixsocket if unixsocket else None))


def add_ping_row(out, name, label, runs):
    add_row(out, name, f"`PING`, P1, {label}", runs, "—")


def redisson_section(args, tmp, out):
    """Redisson's RLock: tryLock (the acquire script: nil, acquired), unlock (the unlock script:
    1, released; it publishes the unlock message and sets the request's latch key) and the DEL
    of the client's latch that Redisson sends after it (0), by EVALSHA, one lock per cycle."""
    binary = find_tool(args, tmp, "cmdcycle")
    try_lock, unlock = redisson_scripts()
    name = "order:%s:%c:%n"
    channel = "redisson_lock__channel:{order:%s:%c:%n}"
    latch = "redisson_unlock_latch:{order:%s:%c:%n}"
    holder = f"{REDISSON_CLIENT_ID}:%c"  # "<client id>:<thread id>", a thread per connection

    def measure(server, r):
        server.client.flushall()
        try_sha = server.client.call("SCRIPT", "LOAD", try_lock)
        unlock_sha = server.client.call("SCRIPT", "LOAD", unlock)
        steps = [f"$-1 EVALSHA {try_sha} 1 {name} {REDISSON_LEASE_MS} {holder}",
                 f":1 EVALSHA {unlock_sha} 3 {name} {channel} {latch}:%r 0 {REDISSON_LEASE_MS} "
                 f"{holder} publish {REDISSON_LATCH_MS}",
                 f":0 DEL {latch}:{REDISSON_CLIENT_ID}"]
        cycle = measured(server, lambda: cmdcycle(binary, server, args.cycle_seconds, r + 1,
                                                  steps, CYCLE_CONNECTIONS))
        # What a cycle leaves: its unlock's latch, which lives 20 s.
        cycle["count"] = server.client.call("DBSIZE")
        return {"redisson_ping_p1": ping_floor(args, server), "redisson_cycle": cycle}

    with ServerPair(args) as servers:
        runs = run_paired(args, servers, measure)
    add_ping_row(out, "redisson_ping_p1", f"{CYCLE_CONNECTIONS} connections (the floor of the "
                 "Redisson row)", runs["redisson_ping_p1"])
    add_row(out, "redisson_cycle", "Redisson `RLock` cycle: the acquire script, the unlock script "
            "(`PUBLISH`, latch `SET PX`), `DEL` of the latch; `EVALSHA`, "
            f"{CYCLE_CONNECTIONS} connections, 1 request in flight each", runs["redisson_cycle"],
            cycle_check(runs["redisson_cycle"], lambda r: r["cycles"], "latch keys"),
            floor="redisson_ping_p1")


def semaphore_section(args, tmp, out):
    """redis-semaphore's Semaphore: acquire (its script by EVALSHA: 1) and release (ZREM: 1) on
    the connection's own semaphore, which two other live holders keep."""
    binary = find_tool(args, tmp, "cmdcycle")
    key = "semaphore:%s:%c"
    holders = [str(x) for h in SEMAPHORE_CYCLE_HOLDERS for x in h]

    def measure(server, r):
        server.client.flushall()
        sha = server.client.call("SCRIPT", "LOAD", SEMAPHORE_ACQUIRE_SCRIPT)
        for c in range(CYCLE_CONNECTIONS):
            if server.client.call("ZADD", f"semaphore:{r + 1}:{c}", *holders) != len(
                    SEMAPHORE_CYCLE_HOLDERS):
                raise RuntimeError(f"{server.name}: the semaphore preload failed")
        steps = [f":1 EVALSHA {sha} 1 {key} {SEMAPHORE_LIMIT} %u {SEMAPHORE_TIMEOUT_MS} "
                 f"{SEMAPHORE_NOW_MS}",
                 f":1 ZREM {key} %u"]
        cycle = measured(server, lambda: cmdcycle(binary, server, args.cycle_seconds, r + 1,
                                                  steps, CYCLE_CONNECTIONS))
        # Every semaphore is left with its two other holders.
        cycle["count"] = sum(server.client.call("ZCARD", f"semaphore:{r + 1}:{c}")
                             for c in range(CYCLE_CONNECTIONS))
        return {"semaphore_ping_p1": ping_floor(args, server), "semaphore_cycle": cycle}

    with ServerPair(args) as servers:
        runs = run_paired(args, servers, measure)
    add_ping_row(out, "semaphore_ping_p1", f"{CYCLE_CONNECTIONS} connections (the floor of the "
                 "semaphore row)", runs["semaphore_ping_p1"])
    add_row(out, "semaphore_cycle", "redis-semaphore `Semaphore` cycle: the acquire script by "
            f"`EVALSHA` (limit {SEMAPHORE_LIMIT}, two other holders), release by `ZREM`; "
            f"{CYCLE_CONNECTIONS} connections, 1 request in flight each",
            runs["semaphore_cycle"],
            cycle_check(runs["semaphore_cycle"],
                        lambda r: CYCLE_CONNECTIONS * len(SEMAPHORE_CYCLE_HOLDERS), "members"),
            floor="semaphore_ping_p1")


def unixsocket_section(args, tmp, out):
    """lockcycle over TCP loopback and over a unix socket, on the same servers, each with PING
    over the same transport as its floor."""
    binary = find_lockcycle(args, tmp)

    def measure(server, r):
        rows = {}
        for transport, unix in (("tcp", False), ("unix", True)):
            server.client.flushall()
            result = measured(server, lambda: lockcycle(
                binary, server, args.cycle_seconds, r + 1, CYCLE_CONNECTIONS, unix))
            result["count"] = server.client.call("DBSIZE")
            rows[f"lockcycle_{transport}"] = result
            rows[f"{transport}_ping_p1"] = ping_floor(args, server, unixsocket=unix)
        return rows

    with ServerPair(args, unixsocket_dir=tmp) as servers:
        runs = run_paired(args, servers, measure)
    for transport, what in (("tcp", "TCP loopback"), ("unix", "unix socket")):
        add_ping_row(out, f"{transport}_ping_p1", f"{CYCLE_CONNECTIONS} connections, {what} (the "
                     "floor of the next row)", runs[f"{transport}_ping_p1"])
        add_row(out, f"lockcycle_{transport}", f"lock cycle (`bench/lockcycle`) over {what}; "
                f"{CYCLE_CONNECTIONS} connections, 1 request in flight each",
                runs[f"lockcycle_{transport}"],
                cycle_check(runs[f"lockcycle_{transport}"], lambda r: 0),
                floor=f"{transport}_ping_p1")


def raise_fd_limit(need):
    """The soft fd limit up to the hard one (the servers started after inherit it); False if
    even that is below `need`."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard >= need


def open_idle(server, n):
    """n connections, each having had one PING answered; closed with a reset (SO_LINGER 0) so
    that reconnecting every round leaves no TIME_WAIT behind."""
    conns = []
    try:
        for _ in range(n):
            c = socket.create_connection(("127.0.0.1", server.port), timeout=60)
            c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conns.append(c)
            c.sendall(b"*1\r\n$4\r\nPING\r\n")
        for c in conns:
            got = b""
            while len(got) < 7:
                chunk = c.recv(7 - len(got))
                if not chunk:
                    raise RuntimeError(f"{server.name} closed an idle connection: {got!r}")
                got += chunk
            if got != b"+PONG\r\n":
                raise RuntimeError(f"{server.name} answered an idle client's PING with {got!r}")
    except BaseException:
        close_idle(conns)
        raise
    return conns


def close_idle(conns):
    for c in conns:
        c.close()


def wait_clients(server, n, timeout_s=60):
    """Until INFO clients counts n connections (the runner's own included)."""
    deadline = time.monotonic() + timeout_s
    while True:
        got = int(server.client.info("clients")["connected_clients"])
        if got == n:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"{server.name}: {got} clients connected, expected {n}")
        time.sleep(0.02)


def clients10k_section(args, tmp, out):
    """CLIENTS_BUSY connections running lockcycle, with and then without the rest of
    CLIENTS_TOTAL connected and idle; PING from CLIENTS_BUSY connections the same way as the
    floor."""
    binary = find_lockcycle(args, tmp)
    idle_n = CLIENTS_TOTAL - CLIENTS_BUSY

    def measure(server, r):
        rows = {}
        for label, idle in (("clients100", 0), ("clients10k", idle_n)):
            server.client.flushall()
            conns = open_idle(server, idle)
            try:
                wait_clients(server, idle + 1)
                result = measured(server, lambda: lockcycle(
                    binary, server, args.cycle_seconds, r + 1, CLIENTS_BUSY))
                result["count"] = server.client.call("DBSIZE")
                rows[f"{label}_lockcycle"] = result
                rows[f"{label}_ping_p1"] = ping_floor(args, server, CLIENTS_BUSY)
            finally:
                close_idle(conns)
            wait_clients(server, 1)
        return rows

    with ServerPair(args, extra=["--maxclients", str(CLIENTS_MAX)]) as servers:
        runs = run_paired(args, servers, measure)
    for label, what in (("clients100", f"{CLIENTS_BUSY} connections, no others"),
                        ("clients10k", f"{CLIENTS_BUSY} busy connections among {CLIENTS_TOTAL:,} "
                                       f"({idle_n:,} idle)")):
        add_ping_row(out, f"{label}_ping_p1", f"{what} (the floor of the next row)",
                     runs[f"{label}_ping_p1"])
        add_row(out, f"{label}_lockcycle", f"lock cycle (`bench/lockcycle`), {what}; 1 request "
                "in flight each", runs[f"{label}_lockcycle"],
                cycle_check(runs[f"{label}_lockcycle"], lambda r: 0),
                floor=f"{label}_ping_p1")


ACL_TEAMS = 20


def acl_section(args, tmp, out):
    """lockcycle as the default user (no ACL users), then, on the same server, with ACL_TEAMS
    team users defined and every connection authenticated as one of them: keys ~lock:*,
    channels &lock.*, +@all -@dangerous, so each request is checked against its command bit and
    its key's pattern. Redis runs the same, in the same rounds."""
    binary = find_lockcycle(args, tmp)

    def measure(server, r):
        server.client.call("ACL", "DELUSER", *[f"team{i}" for i in range(ACL_TEAMS)], "locks")
        server.client.flushall()
        plain = measured(server, lambda: lockcycle(
            binary, server, args.cycle_seconds, r + 1, CYCLE_CONNECTIONS))
        plain["count"] = server.client.call("DBSIZE")
        for i in range(ACL_TEAMS):
            server.client.call("ACL", "SETUSER", f"team{i}", "on", f">pw{i}", f"~team{i}:*",
                               f"&team{i}.*", "+@all", "-@dangerous")
        server.client.call("ACL", "SETUSER", "locks", "on", ">lockpw", "~lock:*", "&lock.*",
                           "+@all", "-@dangerous")
        users = measured(server, lambda: lockcycle(
            binary, server, args.cycle_seconds, r + 1, CYCLE_CONNECTIONS,
            auth=("locks", "lockpw")))
        users["count"] = server.client.call("DBSIZE")
        server.client.call("ACL", "DELUSER", *[f"team{i}" for i in range(ACL_TEAMS)], "locks")
        return {"acl_lockcycle_default": plain, "acl_lockcycle_users": users}

    with ServerPair(args) as servers:
        runs = run_paired(args, servers, measure)
    add_row(out, "acl_lockcycle_default", "lock cycle (`bench/lockcycle`) as the default user, "
            f"no ACL users; {CYCLE_CONNECTIONS} connections, 1 request in flight each",
            runs["acl_lockcycle_default"], cycle_check(runs["acl_lockcycle_default"], lambda r: 0))
    add_row(out, "acl_lockcycle_users", f"the same with {ACL_TEAMS + 1} ACL users defined, every "
            "connection authenticated as one limited to `~lock:* &lock.* +@all -@dangerous`",
            runs["acl_lockcycle_users"], cycle_check(runs["acl_lockcycle_users"], lambda r: 0),
            floor="acl_lockcycle_default")
