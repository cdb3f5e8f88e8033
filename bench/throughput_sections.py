"""bench/run_all.py's redis-benchmark sections: throughput (with bench/lockcycle), types,
zsets_lists and keyspace."""
import time

from bench_core import (ServerPair, alternate, keys_check, lockcycle, measured, redis_benchmark,
                        report, run_workloads, summarize)
from bench_workloads import TOKEN, type_workloads, workloads, zset_list_workloads
from results_report import SERVERS


def throughput_section(args, lockcycle_bin, out):
    with ServerPair(args) as servers:
        with_lockcycle = not args.workloads or "lockcycle" in args.workloads
        run_workloads(args, servers, workloads(), out,
                      also=("ping_p1",) if with_lockcycle else ())
        if not with_lockcycle:
            return

        runs = {s: [] for s in SERVERS}
        for r, order in enumerate(alternate(args.rounds)):
            for name in order:
                server = servers[name]
                server.client.flushall()
                result = measured(server, lambda: lockcycle(
                    lockcycle_bin, server, args.lockcycle_seconds, seed=r + 1))
                result["count"] = server.client.call("DBSIZE")
                runs[name].append(result)
        report("lockcycle", runs)
        median, ratio = summarize(runs)
        unexpected = sum(r["unexpected"] for s in SERVERS for r in runs[s])
        check = keys_check(runs, lambda n: 0)
        if unexpected:
            check = f"{unexpected} unexpected replies" + ("" if check == "ok" else f"; {check}")
        out["workloads"]["lockcycle"] = {
            "label": "lock cycle (`bench/lockcycle`): `SET NX PX`, `EVALSHA` pexpire, "
                     "`EVALSHA` delete; 50 connections, 1 request in flight each",
            "target_cpu_ratio": None, "runs": runs, "median": median, "ratio": ratio,
            "keys_check": check, "floor": "ping_p1"}


def types_section(args, out):
    with ServerPair(args) as servers:
        run_workloads(args, servers, type_workloads(), out)


def zsets_lists_section(args, out):
    with ServerPair(args) as servers:
        run_workloads(args, servers, zset_list_workloads(), out)



def keyspace_section(args, out):
    small = 1000
    section = {"small_keys": small, "large_keys": args.keys, "runs": {}}
    with ServerPair(args) as servers:
        for keys in (small, args.keys):
            started = time.monotonic()
            for server in servers.values():
                done = server.client.call("DBSIZE")
                server.client.load(["SET", "lock:__rand_int__", TOKEN, "PX", "3600000"],
                                   done, keys, 1)
                got = server.client.call("DBSIZE")
                if got != keys:
                    raise RuntimeError(f"{server.name} holds {got} keys after loading {keys}")
            print(f"keyspace: {keys} keys loaded in both in {time.monotonic() - started:.0f} s",
                  flush=True)
            runs = {s: [] for s in SERVERS}
            for order in alternate(args.rounds):
                for name in order:
                    server = servers[name]
                    runs[name].append(measured(server, lambda: redis_benchmark(
                        server, args.requests_p16, 16, keys, ["GET", "lock:__rand_int__"])))
            report(f"GET P16, {keys} keys", runs)
            median, ratio = summarize(runs)
            section["runs"][str(keys)] = {"runs": runs, "median": median, "ratio": ratio,
                                          "rss_bytes": {s: servers[s].rss_bytes()
                                                        for s in SERVERS}}
    out["keyspace"] = section
