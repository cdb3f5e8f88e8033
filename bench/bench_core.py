"""bench/run_all.py's machinery: warden and redis-server started side by side (ServerPair), a
small RESP client, the load generators (redis-benchmark, bench/lockcycle, bench/cmdcycle) on the
client core, CPU per request, and running a list of workloads on both servers in alternating
rounds with their keys checks. bench/multi_bench.py, blocking_bench.py, big_delete.py and
pubsub_bench.py use Client, ServerPair, encode and free_port (through run_all)."""
import csv
import io
import json
import os
import shlex
import socket
import statistics
import subprocess
import time

from bench_workloads import KEY_RANGE
from results_report import CLIENT_CORE, SERVER_CORE, SERVERS

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
# Beyond this share a DBSIZE differs from its expectation or from the other server's.
KEYS_TOLERANCE = 0.01
# How long a FLUSHALL may take to be freed before the runner gives up.
FLUSH_TIMEOUT_S = 120


# --- servers ----------------------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client:
    """A blocking RESP client for the few commands the runner sends itself."""

    def __init__(self, port, timeout_s=None):
        deadline = time.monotonic() + 10
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout_s)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
        self.buf = b""

    def _line(self):
        while b"\r\n" not in self.buf:
            self._fill()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _fill(self):
        data = self.sock.recv(1 << 20)
        if not data:
            raise ConnectionError("server closed the connection")
        self.buf += data

    def call(self, *args):
        self.sock.sendall(encode(args))
        return self.reply()

    def reply(self):
        """Reads one reply: a status or bulk string, an integer or None; raises on an error."""
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"-":
            raise RuntimeError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self._fill()
            value, self.buf = self.buf[:n], self.buf[n + 2:]
            return value.decode()
        return rest.decode()

    def pipeline(self, commands):
        """Sends the encoded commands at once; returns their replies, each a single line (:n or
        +OK), and raises on an error reply."""
        self.sock.sendall(b"".join(commands))
        replies = [self._line() for _ in commands]
        for r in replies:
            if r[:1] == b"-":
                raise RuntimeError(r[1:].decode())
        return replies

    def load(self, args, start, stop, step, batch=20000, reply=b""):
        """Sends `args` for i in range(start, stop, step), pipelined in batches, each
        __rand_int__ in them replaced by i as redis-benchmark writes it (12 digits, zero-padded),
        and checks every reply: `reply`, by default +OK for SET and :1 (one key or member added)
        for the others; with reply=None any single-line reply but an error."""
        template, placeholders = command_template(args)
        if reply == b"":
            reply = b"+OK\r\n" if args[0] == "SET" else b":1\r\n"
        for first in range(start, stop, step * batch):
            ids = range(first, min(stop, first + step * batch), step)
            self.sock.sendall(b"".join(template % ((i,) * placeholders) for i in ids))
            if reply is None:
                while self.buf.count(b"\r\n") < len(ids):
                    self._fill()
                *replies, self.buf = self.buf.split(b"\r\n", len(ids))
                errors = [r for r in replies if r[:1] == b"-"]
                if errors:
                    raise RuntimeError(f"preload: {args[0]} answered {errors[0]!r:.200}")
                continue
            want = len(reply) * len(ids)
            while len(self.buf) < want:
                self._fill()
            if self.buf[:want] != reply * len(ids):
                raise RuntimeError(f"preload: {args[0]} did not answer {reply!r} every time: "
                                   f"{self.buf[:want]!r:.200}")
            self.buf = self.buf[want:]

    def info(self, section):
        text = self.call("INFO", section)
        return dict(line.split(":", 1) for line in text.split("\r\n") if ":" in line)

    def flushall(self):
        """FLUSHALL, then waits until the server has freed what it held: warden frees a large
        flush in slices after replying, which would otherwise run in the next measurement."""
        self.call("FLUSHALL")
        deadline = time.monotonic() + FLUSH_TIMEOUT_S
        last = None
        while time.monotonic() < deadline:
            memory = self.info("memory")
            if "lazyfree_pending_objects" in memory:
                if memory["lazyfree_pending_objects"] == "0":
                    return
            else:
                # No such field (older warden): done when the dataset has stopped shrinking.
                if memory.get("used_memory_dataset") == last:
                    return
                last = memory.get("used_memory_dataset")
            time.sleep(0.02)
        raise RuntimeError(f"FLUSHALL not freed after {FLUSH_TIMEOUT_S} s")

    def close(self):
        self.sock.close()


def command_template(args):
    """args as RESP, with each __rand_int__ a %012d; returns it and how many there are."""
    parts = [b"*%d\r\n" % len(args)]
    placeholders = 0
    for a in args:
        n = a.count("__rand_int__")
        placeholders += n
        size = len(a.encode()) + n * (12 - len("__rand_int__"))
        text = a.encode().replace(b"%", b"%%").replace(b"__rand_int__", b"%012d")
        parts.append(b"$%d\r\n%s\r\n" % (size, text))
    return b"".join(parts), placeholders


def encode(args):
    parts = [f"*{len(args)}\r\n".encode()]
    for a in args:
        b = a.encode() if isinstance(a, str) else a
        parts.append(b"$%d\r\n%s\r\n" % (len(b), b))
    return b"".join(parts)


class Server:
    def __init__(self, name, argv_for_port):
        self.name = name
        self.port = free_port()
        self.unixsocket = None  # its path, when ServerPair gave it one
        self.proc = subprocess.Popen(["taskset", "-c", SERVER_CORE] + argv_for_port(self.port),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            self.client = Client(self.port)
            self.client.call("PING")
        except BaseException:
            self.stop()
            raise

    def cpu_ns(self):
        """Time on CPU of every thread so far (Redis's background threads count too)."""
        total = 0
        task_dir = f"/proc/{self.proc.pid}/task"
        for tid in os.listdir(task_dir):
            try:
                with open(f"{task_dir}/{tid}/schedstat") as f:
                    total += int(f.read().split()[0])
            except FileNotFoundError:
                pass  # a thread that ended between listdir and open
        return total

    def rss_bytes(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class ServerPair:
    """warden and redis-server, fresh, stopped on exit whatever happens; `extra` options for
    both, with `unixsocket_dir` each also listens on <dir>/<name>.sock (server.unixsocket), and
    `per_server(name)` ("warden" or "redis") gives options for that server alone (after
    `extra`; e.g. its own --dir)."""

    def __init__(self, args, extra=(), unixsocket_dir=None, per_server=None):
        self.args = args
        self.extra = list(extra)
        self.unixsocket_dir = unixsocket_dir
        self.per_server = per_server or (lambda name: [])
        self.servers = {}

    def _unix(self, name):
        if self.unixsocket_dir is None:
            return []
        path = os.path.join(self.unixsocket_dir, f"{name}.sock")
        return ["--unixsocket", path, "--unixsocketperm", "700"]

    def __enter__(self):
        try:
            self.servers["warden"] = Server("warden", lambda p: [
                self.args.warden, "--port", str(p), "--save", ""] + self._unix("warden") + self.extra
                + list(self.per_server("warden")) + list(self.args.warden_arg or []))
            # A later --appendonly in extra or per_server overrides this one.
            self.servers["redis"] = Server("redis", lambda p: [
                self.args.redis, "--port", str(p), "--save", "", "--appendonly", "no"]
                + self._unix("redis") + self.extra + list(self.per_server("redis")))
            for name, server in self.servers.items():
                if self.unixsocket_dir is not None:
                    server.unixsocket = self._unix(name)[1]
                    if not os.path.exists(server.unixsocket):
                        raise RuntimeError(f"{name} made no unix socket {server.unixsocket}")
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self.servers

    def __exit__(self, *exc):
        for s in self.servers.values():
            s.stop()


# --- load generators --------------------------------------------------------------------------

def run_client(argv, exit_codes=(0,)):
    """Runs a load generator on the client core; returns its stdout."""
    done = subprocess.run(["taskset", "-c", CLIENT_CORE] + argv, capture_output=True, text=True)
    # redis-benchmark stops at the first error reply ("Error from server: ...") and exits 1.
    if done.returncode not in exit_codes:
        raise RuntimeError(f"{shlex.join(argv)} failed ({done.returncode}): "
                           f"{done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


def redis_benchmark(server, requests, pipeline, key_range, args, connections=50,
                    unixsocket=None):
    where = ["-s", unixsocket] if unixsocket else ["-p", str(server.port)]
    out = run_client(["redis-benchmark"] + where + ["-n", str(requests), "-c", str(connections),
                      "-r", str(key_range), "-P", str(pipeline), "--csv"] + args)
    row = list(csv.DictReader(io.StringIO(out)))[-1]
    # redis-benchmark 7.0's CSV gives percentiles in ms with three decimals.
    return {"requests": requests, "ops_per_sec": float(row["rps"]),
            "p50_us": float(row["p50_latency_ms"]) * 1000,
            "p99_us": float(row["p99_latency_ms"]) * 1000}


def where_args(server, unixsocket):
    """lockcycle's and cmdcycle's options for the server's TCP port or its unix socket."""
    return ["--unixsocket", server.unixsocket] if unixsocket else ["--port", str(server.port)]


def lockcycle(binary, server, seconds, seed, connections=50, unixsocket=False, auth=None,
              extra=()):
    """`auth`: (user, password) every connection authenticates as first; `extra`: more of
    lockcycle's options (a later --port overrides the server's)."""
    login = ["--user", auth[0], "--password", auth[1]] if auth else []
    # lockcycle exits 1 after unexpected replies; the keys check reports them.
    r = json.loads(run_client([binary] + where_args(server, unixsocket) + [
        "--duration", str(seconds), "--seed", str(seed), "--connections", str(connections)]
        + login + list(extra), exit_codes=(0, 1)))
    return {"requests": r["ops"], "ops_per_sec": r["ops_per_sec"], "p50_us": r["p50_us"],
            "p99_us": r["p99_us"], "p999_us": r["p999_us"], "unexpected": r["unexpected"]}


def cmdcycle(binary, server, seconds, seed, steps, connections=50, unixsocket=False):
    """bench/cmdcycle: each connection repeats `steps` ("<reply> <command> <args>..."), one
    request in flight."""
    r = json.loads(run_client([binary] + where_args(server, unixsocket) + [
        "--duration", str(seconds), "--seed", str(seed), "--connections", str(connections)]
        + steps, exit_codes=(0, 1)))
    return {"requests": r["ops"], "cycles": r["cycles"], "ops_per_sec": r["ops_per_sec"],
            "p50_us": r["p50_us"], "p99_us": r["p99_us"], "p999_us": r["p999_us"],
            "unexpected": r["unexpected"], "first_unexpected": r["first_unexpected"]}


def find_tool(args, tmp, name, override=None):
    """bench/<name>.c's binary: `override`, else the CMake-built one beside the warden binary
    unless the source is newer than it, else one compiled here with cc (once per run)."""
    if override:
        return override
    source = os.path.join(BENCH_DIR, f"{name}.c")
    built = os.path.join(os.path.dirname(os.path.abspath(args.warden)), "bench", name)
    if os.access(built, os.X_OK) and os.path.getmtime(built) >= os.path.getmtime(source):
        return built
    binary = os.path.join(tmp, name)
    if not os.access(binary, os.X_OK):
        # lockcycle speaks TLS with OpenSSL; the others leave the libraries unused.
        subprocess.run(["cc", "-O2", "-o", binary, source, "-lssl", "-lcrypto"], check=True)
    return binary


def find_lockcycle(args, tmp):
    """--lockcycle, else the CMake-built lockcycle beside the warden binary (unless
    bench/lockcycle.c is newer), else one compiled here with cc."""
    return find_tool(args, tmp, "lockcycle", args.lockcycle)


def measured(server, run):
    """Runs run() and adds the server's CPU per request over it."""
    before = server.cpu_ns()
    result = run()
    result["cpu_us_per_req"] = (server.cpu_ns() - before) / 1000 / result["requests"]
    return result


def alternate(rounds):
    """Server order per round: each goes first in every other round."""
    return [SERVERS if r % 2 == 0 else SERVERS[::-1] for r in range(rounds)]


# --- running workloads ------------------------------------------------------------------------

def keys_check(runs, expected, unit="keys"):
    """'ok', or what is off: a count (DBSIZE, HLEN) away from its expectation or from the other
    server's."""
    problems = []
    for r, pair in enumerate(zip(runs["warden"], runs["redis"])):
        w, rd = pair[0]["count"], pair[1]["count"]
        want = expected(pair[0]["requests"])
        if abs(w - rd) > KEYS_TOLERANCE * max(w, rd, 1):
            problems.append(f"round {r + 1}: warden {w} {unit}, Redis {rd}")
        for name, got in (("warden", w), ("Redis", rd)):
            if abs(got - want) > KEYS_TOLERANCE * max(want, 1):
                problems.append(f"round {r + 1}: {name} {got} {unit}, expected ~{want:.0f}")
    return "ok" if not problems else "; ".join(problems)


def summarize(runs):
    fields = [k for k in runs["warden"][0] if isinstance(runs["warden"][0][k], (int, float))]
    median = {s: {k: statistics.median(r[k] for r in runs[s]) for k in fields} for s in SERVERS}
    ratio = {k: median["warden"][k] / median["redis"][k] for k in fields if median["redis"][k]}
    return median, ratio


def selected(args, workload_list, also=()):
    """The workloads --workloads names (all without it), with the PING floor of each and the
    names in `also`."""
    if not args.workloads:
        return workload_list
    want = set(args.workloads) | set(also)
    want |= {w.floor for w in workload_list if w.name in want and w.floor}
    return [w for w in workload_list if w.name in want]


def run_workloads(args, servers, workloads_to_run, out, also=()):
    """Each workload on both servers for every round; adds its medians and keys check to out."""
    for w in selected(args, workloads_to_run, also):
        runs = {s: [] for s in SERVERS}
        for order in alternate(args.rounds):
            for name in order:
                server = servers[name]
                server.client.flushall()
                args_now = list(w.args)
                if w.library:
                    server.client.call("FUNCTION", "LOAD", "REPLACE", w.library)
                if "<sha>" in args_now:
                    args_now[args_now.index("<sha>")] = server.client.call(
                        "SCRIPT", "LOAD", w.script)
                if w.preload:
                    server.client.load(w.preload, *w.preload_ids, reply=w.preload_reply)
                requests = args.requests_p16 if w.pipeline == 16 else args.requests_p1
                result = measured(server, lambda: redis_benchmark(
                    server, requests, w.pipeline, KEY_RANGE, args_now))
                result["count"] = server.client.call(*w.count)
                runs[name].append(result)
        report(w.name, runs)
        median, ratio = summarize(runs)
        unit = {"DBSIZE": "keys", "HLEN": "fields", "ZCARD": "members", "LLEN": "elements"}[
            w.count[0]]
        out["workloads"][w.name] = {
            "label": w.label, "target_cpu_ratio": w.target, "runs": runs, "median": median,
            "ratio": ratio, "keys_check": keys_check(runs, w.expected_keys, unit),
            "floor": w.floor}


def add_excess(out):
    """For each row with a PING floor: its CPU per request minus the floor's, per server (of the
    medians, and round by round), and the ratio of the two (None unless both are above 0)."""
    workloads = out["workloads"]
    for w in workloads.values():
        floor = workloads.get(w.get("floor"))
        if floor is None:
            continue
        cpu = {s: w["median"][s]["cpu_us_per_req"] for s in SERVERS}
        base = {s: floor["median"][s]["cpu_us_per_req"] for s in SERVERS}
        excess = {s: cpu[s] - base[s] for s in SERVERS}
        w["excess"] = {
            "floor": w["floor"], "floor_cpu_us_per_req": base,
            "warden_us_per_req": excess["warden"], "redis_us_per_req": excess["redis"],
            "ratio": (excess["warden"] / excess["redis"]
                      if excess["warden"] > 0 and excess["redis"] > 0 else None),
            "by_round": {s: [r["cpu_us_per_req"] - f["cpu_us_per_req"]
                             for r, f in zip(w["runs"][s], floor["runs"][s])] for s in SERVERS}}



def report(what, runs):
    """One progress line per workload: every round's ops/s and CPU per request."""
    line = ", ".join(
        f"{s} " + " ".join(f"{r['ops_per_sec'] / 1000:.0f}k/{r['cpu_us_per_req']:.2f}us"
                           for r in runs[s]) for s in SERVERS)
    print(f"{what}: ops/s / CPU per request: {line}", flush=True)
