"""Redis Sentinel 7.0 managing warden: discovery, failover on a crash, the old master's return,
a redis-py Sentinel client across a failover, a manual failover, and Sentinel's reconfiguration
transaction compared byte for byte with redis-server.

Every topology is a master and two replicas (`--replicaof 127.0.0.1 <master>`, all with
`--repl-diskless-sync-delay 0`, a config file of their own so Sentinel's CONFIG REWRITE has
something to write) and three Sentinels: Debian's redis-server 7.0 started as
`redis-server <conf> --sentinel`, quorum 2, down-after 2000 ms, failover-timeout 5000 ms. Each
process has a temp directory and a free loopback port, and is stopped by its PID.

The data servers are warden (WARDEN_BIN, exported by tests/clients/run.sh). With
SENTINEL_DATA_SERVER=redis-server every data server is /usr/bin/redis-server instead: the whole
file must pass that way too, which is what proves its expectations.

test_replication_prerequisites checks, without Sentinel, what every failover needs from the
data servers: a second replica completing its full sync and getting the stream, whether it asks
after the first is online or while the first one's transfer is still running.

No sleeps: every wait goes through wait_for(), which polls with a deadline and between tries
waits on a process that must stay alive (a Sentinel), so that process's exit ends the wait at
once. Failover timings are printed (run with -s to see them) and recorded as junit properties.
"""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pytest
import redis
import redis.sentinel

from resp_conn import Conn, encode, parse

MASTER_NAME = "mymaster"
# Not 1000: with it, Sentinel 7.0 itself now and then fails over a healthy new master just after
# a failover (its link to the new master is reset while its reconnect throttle still counts the
# attempts on the dead one), on redis-server as on warden (tests/stress/README.md).
DOWN_AFTER_MS = 2000
FAILOVER_TIMEOUT_MS = 5000
START_S = 10        # a process answers PING
DISCOVERY_S = 20    # Sentinels see everything (hellos every 2 s)
FAILOVER_S = 20     # kill -> a new master everywhere
CONVERT_S = 25      # a returning old master made a replica (8 s of grace + INFO every 10 s)
POLL_S = 0.05
REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


def data_kind():
    kind = os.environ.get("SENTINEL_DATA_SERVER", "warden")
    if kind not in ("warden", "redis-server"):
        raise pytest.UsageError("SENTINEL_DATA_SERVER is warden or redis-server, not %r" % kind)
    return kind


def warden_bin():
    binary = os.environ.get("WARDEN_BIN")
    if not binary:
        raise pytest.UsageError("WARDEN_BIN is not set: run through tests/clients/run.sh")
    return os.path.abspath(binary)  # the servers run in their own directories


def binary_of(kind):
    return REDIS_SERVER if kind == "redis-server" else warden_bin()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- the one wait ---------------------------------------------------------------------------------

def wait_for(what, probe, timeout, watch, retry_on=(redis.RedisError, OSError), context=None):
    """Calls probe() until it returns something true, and returns that. An exception in
    retry_on counts as "not yet". Between tries it waits on the first process in `watch`, and
    every process there must stay alive: an exit fails the wait at once, with that process's
    log. After `timeout` seconds it fails with the last result or error and, if given,
    context()."""
    assert watch, "wait_for needs a live process to wait on"
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            result = probe()
            if result:
                return result
            last = result
        except retry_on as e:
            last = e
        for proc in watch:
            if not proc.alive():
                raise AssertionError("%s exited while waiting for %s:\n%s"
                                     % (proc.name, what, proc.log()))
        if time.monotonic() > deadline:
            extra = "\n" + context() if context else ""
            raise AssertionError("%s: not within %gs (last: %r)%s" % (what, timeout, last, extra))
        watch[0].pause(POLL_S)


# --- processes ------------------------------------------------------------------------------------

class Proc:
    """One server process in a temp directory of its own, on a fixed loopback port (a restart
    takes the same port)."""

    def __init__(self, name, port):
        self.name = name
        self.port = port
        self.dir = tempfile.mkdtemp(prefix="sentinel-%s-" % name)
        self.log_path = os.path.join(self.dir, "server.log")
        self.proc = None
        self.argv = None

    def spawn(self):
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(self.argv, stdout=log, stderr=subprocess.STDOUT,
                                         cwd=self.dir)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def pause(self, seconds):
        try:
            self.proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            pass

    def log(self, tail=4000):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode(errors="replace")[-tail:]
        except OSError:
            return "(no log)"

    def client(self, **options):
        options.setdefault("socket_timeout", 5)
        options.setdefault("socket_connect_timeout", 2)
        return redis.Redis(host="127.0.0.1", port=self.port, decode_responses=True, **options)

    def wait_ready(self):
        def pong():
            with self.client() as c:
                return c.ping()
        wait_for("%s answers PING" % self.name, pong, START_S, watch=[self])

    def kill9(self):
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=START_S)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=START_S)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def remove(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class DataServer(Proc):
    """warden or redis-server with a config file, `--save ""`, appendonly as asked."""

    def __init__(self, kind, name, replicaof=None, appendonly=False, config_file=True,
                 extra=()):
        super().__init__(name, free_port())
        self.kind = kind
        argv = [binary_of(kind)]
        self.conf = None
        if config_file:
            self.conf = os.path.join(self.dir, "server.conf")
            with open(self.conf, "w") as f:
                f.write("# %s for the Sentinel suite\n" % name)
            argv.append(self.conf)
        argv += ["--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                 "--appendonly", "yes" if appendonly else "no", "--dir", self.dir,
                 "--repl-diskless-sync-delay", "0"]
        if replicaof is not None:
            argv += ["--replicaof", "127.0.0.1", str(replicaof)]
        self.argv = argv + list(extra)

    def replication(self):
        with self.client() as c:
            return c.info("replication")

    def role(self):
        with self.client() as c:
            return c.execute_command("ROLE")


class Sentinel(Proc):
    def __init__(self, name, master_port):
        super().__init__(name, free_port())
        self.conf = os.path.join(self.dir, "sentinel.conf")
        with open(self.conf, "w") as f:
            f.write("port %d\n" % self.port)
            f.write("bind 127.0.0.1\n")
            f.write("dir %s\n" % self.dir)
            f.write("sentinel resolve-hostnames no\n")
            f.write("sentinel monitor %s 127.0.0.1 %d 2\n" % (MASTER_NAME, master_port))
            f.write("sentinel down-after-milliseconds %s %d\n" % (MASTER_NAME, DOWN_AFTER_MS))
            f.write("sentinel failover-timeout %s %d\n" % (MASTER_NAME, FAILOVER_TIMEOUT_MS))
        self.argv = [REDIS_SERVER, self.conf, "--sentinel"]

    def call(self, *args):
        with self.client() as c:
            return c.execute_command(*args)

    def master(self):
        return pairs(self.call("SENTINEL", "MASTER", MASTER_NAME))

    def replicas(self):
        return [pairs(r) for r in self.call("SENTINEL", "REPLICAS", MASTER_NAME)]

    def sentinels(self):
        return [pairs(r) for r in self.call("SENTINEL", "SENTINELS", MASTER_NAME)]

    def master_addr(self):
        ip, port = self.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME)
        return ip, int(port)


def pairs(flat):
    return dict(zip(flat[0::2], flat[1::2]))


def flags(entry):
    return set(entry["flags"].split(","))


class Topology:
    """A master, two replicas of it, three Sentinels monitoring it."""

    def __init__(self, kind, appendonly=False):
        self.kind = kind
        self.appendonly = appendonly
        self.data = []
        self.sentinels = []

    def start(self):
        master = DataServer(self.kind, "master", appendonly=self.appendonly)
        self.data.append(master)
        master.spawn()
        master.wait_ready()
        # One replica at a time (test_replication_prerequisites covers two at once), both
        # online before the Sentinels' first INFO lists them.
        for n in (1, 2):
            replica = DataServer(self.kind, "replica%d" % n, replicaof=master.port,
                                 appendonly=self.appendonly)
            self.data.append(replica)
            replica.spawn()
            replica.wait_ready()
            wait_for("%s online" % replica.name, lambda: self.linked(master, self.data[1:]),
                     START_S, watch=self.data, context=self.describe)
        for n in (1, 2, 3):
            s = Sentinel("sentinel%d" % n, master.port)
            self.sentinels.append(s)
            s.spawn()
        for s in self.sentinels:
            s.wait_ready()
        return self

    @property
    def master(self):
        return self.data[0]

    @property
    def replicas(self):
        return self.data[1:]

    def by_port(self, port):
        return next(d for d in self.data if d.port == port)

    @staticmethod
    def linked(master, replicas):
        """Every replica reports master_link_status:up to `master`, and `master` lists it
        online."""
        for r in replicas:
            info = r.replication()
            if (info.get("role") != "slave" or info.get("master_port") != master.port
                    or info.get("master_link_status") != "up"):
                return False
        info = master.replication()
        online = {v["port"] for k, v in info.items()
                  if k.startswith("slave") and isinstance(v, dict) and v.get("state") == "online"}
        return {r.port for r in replicas} <= online

    def discovered(self):
        """Case 1's conditions, on every Sentinel: the master healthy with 2 replicas and 2
        other Sentinels; each replica flagged exactly `slave`; CKQUORUM OK."""
        others_all = {s.port for s in self.sentinels}
        for s in self.sentinels:
            m = s.master()
            if (flags(m) != {"master"} or int(m["port"]) != self.master.port
                    or int(m["num-slaves"]) != 2 or int(m["num-other-sentinels"]) != 2):
                return False
            reps = s.replicas()
            if {int(r["port"]) for r in reps} != {r.port for r in self.replicas}:
                return False
            if any(flags(r) != {"slave"} or r.get("master-link-status") != "ok" for r in reps):
                return False
            peers = s.sentinels()
            if len(peers) != 2 or {int(p["port"]) for p in peers} != others_all - {s.port}:
                return False
            if any(flags(p) != {"sentinel"} for p in peers):
                return False
            if not str(s.call("SENTINEL", "CKQUORUM", MASTER_NAME)).startswith("OK "):
                return False
        return True

    def wait_discovered(self):
        wait_for("Sentinels discover the topology", self.discovered, DISCOVERY_S,
                 watch=self.live(), context=self.describe)

    def live(self):
        """The processes a wait watches: every one running now, a Sentinel first."""
        return [p for p in self.sentinels + self.data if p.alive()]

    def addresses(self):
        """What each live Sentinel reports as the master's address."""
        return [s.master_addr() for s in self.sentinels if s.alive()]

    def describe(self):
        """Everything a failed wait needs: each instance's replication view and log tail."""
        out = []
        for d in self.data:
            if not d.alive():
                out.append("--- %s :%d: not running" % (d.name, d.port))
                continue
            try:
                info = d.replication()
                brief = {k: v for k, v in info.items()
                         if k in ("role", "master_port", "master_link_status", "connected_slaves")
                         or k.startswith("slave")}
            except (redis.RedisError, OSError) as e:
                brief = repr(e)
            out.append("--- %s :%d %r\n%s" % (d.name, d.port, brief, d.log(1500)))
        for s in self.sentinels:
            try:
                view = (s.master_addr(), s.master().get("flags"),
                        [(r["port"], r["flags"]) for r in s.replicas()], len(s.sentinels()))
            except (redis.RedisError, OSError) as e:
                view = repr(e)
            out.append("--- %s :%d %r\n%s" % (s.name, s.port, view, s.log(2500)))
        return "\n".join(out)

    def stop(self):
        for p in self.sentinels + self.data:
            p.remove()


@pytest.fixture
def topology(request):
    made = []

    def make(appendonly=False):
        topo = Topology(data_kind(), appendonly=appendonly)
        made.append(topo)
        return topo.start()

    yield make
    for topo in made:
        topo.stop()


def report(record_property, name, seconds):
    print("\n[sentinel/%s] %s: %.2f s" % (data_kind(), name, seconds))
    record_property(name.replace(" ", "_"), "%.3f" % seconds)


def crash_failover(topo, record_property):
    """SIGKILL of the master; waits until every Sentinel names one of the replicas, that
    replica's ROLE says master and the other replica replicates from it with its link up.
    Returns (new master, the other replica)."""
    old = topo.master
    old_addr = ("127.0.0.1", old.port)
    for s in topo.sentinels:
        assert s.master_addr() == old_addr
    topo.old_replid = old.replication()["master_replid"]
    killed = time.monotonic()
    old.kill9()

    def moved():
        addrs = [s.master_addr() for s in topo.sentinels]
        changed = [a for a in addrs if a != old_addr]
        return changed[0] if changed else None

    new_addr = wait_for("a Sentinel names a new master", moved, FAILOVER_S,
                        watch=topo.live(), context=topo.describe)
    report(record_property, "kill to new address", time.monotonic() - killed)
    assert new_addr[1] in {r.port for r in topo.replicas}, new_addr
    wait_for("all Sentinels agree on %r" % (new_addr,),
             lambda: all(a == new_addr for a in topo.addresses()), FAILOVER_S,
             watch=topo.live(), context=topo.describe)
    promoted = topo.by_port(new_addr[1])
    other = next(r for r in topo.replicas if r is not promoted)
    wait_for("the promoted replica's ROLE says master",
             lambda: promoted.role()[0] == "master", FAILOVER_S, watch=topo.live(),
             context=topo.describe)
    wait_for("the other replica follows the new master",
             lambda: Topology.linked(promoted, [other]), FAILOVER_S, watch=topo.live(),
             context=topo.describe)
    report(record_property, "kill to other replica linked", time.monotonic() - killed)
    return promoted, other


# --- 0. what every case below needs: two replicas that both get the stream ----------------------

def replicas_by_state(master):
    info = master.replication()
    return {v["port"]: v["state"] for k, v in info.items()
            if k.startswith("slave") and isinstance(v, dict)}


@pytest.mark.parametrize("start", ["one-after-the-other", "during-a-transfer"])
def test_replication_prerequisites(start):
    """A master and two replicas, no Sentinel: both replicas complete their full sync and get
    the writes that follow (WAIT 2 counts both). Sentinel needs this after every failover (the
    other replica, then the returning old master, sync to the new master). one-after-the-other:
    the second asks once the first is online. during-a-transfer: the second asks while the
    first one's payload is still being written (rdb-key-save-delay 20 ms for each of 50 keys),
    so it must wait for a second transfer of its own."""
    kind = data_kind()
    slow = start == "during-a-transfer"
    master = DataServer(kind, "pre-master",
                        extra=["--rdb-key-save-delay", "20000"] if slow else [])
    replicas = [DataServer(kind, "pre-replica%d" % n, replicaof=master.port) for n in (1, 2)]
    procs = [master] + replicas

    def describe():
        return "\n".join("--- %s :%d %r\n%s" % (p.name, p.port, p.replication(), p.log(1500))
                         for p in procs if p.alive())

    try:
        master.spawn()
        master.wait_ready()
        if slow:
            with master.client() as c:
                c.mset({"fill:%d" % i: i for i in range(50)})
        first, second = replicas
        first.spawn()
        first.wait_ready()
        if slow:
            wait_for("the first replica's transfer under way",
                     lambda: replicas_by_state(master).get(first.port) not in (None, "online"),
                     START_S, watch=[master, first], context=describe)
        else:
            wait_for("the first replica online", lambda: Topology.linked(master, [first]),
                     START_S, watch=[master, first], context=describe)
        second.spawn()
        second.wait_ready()
        if slow:
            states = wait_for("the second replica asks for its sync",
                              lambda: (lambda st: st if second.port in st else None)(
                                  replicas_by_state(master)),
                              START_S, watch=procs, context=describe)
            assert states[first.port] != "online", "the first transfer ended too soon: %r" % (
                states,)
        wait_for("both replicas online", lambda: Topology.linked(master, replicas), START_S,
                 watch=procs, context=describe)
        with master.client() as c:
            c.set("k", "v")
            acked = c.execute_command("WAIT", 2, 2000)
        got = []
        for r in replicas:
            with r.client() as c:
                got.append(c.get("k"))
        assert (acked, got) == (2, ["v", "v"]), describe()
    finally:
        for p in procs:
            p.remove()


# --- 1. discovery ---------------------------------------------------------------------------------

def test_discovery(topology):
    topo = topology()
    topo.wait_discovered()
    for s in topo.sentinels:
        m = s.master()
        assert (m["ip"], int(m["port"])) == ("127.0.0.1", topo.master.port)
        # The small timeouts were taken as written (Sentinel enforces no minimum on them).
        assert (int(m["down-after-milliseconds"]), int(m["failover-timeout"])) == \
            (DOWN_AFTER_MS, FAILOVER_TIMEOUT_MS)
        assert s.master_addr() == ("127.0.0.1", topo.master.port)
        for r in s.replicas():
            assert int(r["master-port"]) == topo.master.port
            assert r["master-host"] == "127.0.0.1"
            assert r["role-reported"] == "slave"
        assert s.call("SENTINEL", "CKQUORUM", MASTER_NAME) == \
            "OK 3 usable Sentinels. Quorum and failover authorization can be reached"


# --- 2. failover on a crash -----------------------------------------------------------------------

def test_failover_on_kill(topology, record_property):
    topo = topology()
    topo.wait_discovered()
    promoted, other = crash_failover(topo, record_property)
    assert promoted.role()[0] == "master"
    info = other.replication()
    assert info["role"] == "slave"
    assert info["master_port"] == promoted.port
    assert info["master_link_status"] == "up"
    # The promoted replica continues the old master's history (replid2), so the other replica
    # resynchronizes partially (Redis's replicationUnsetMaster / shiftReplicationId).
    info = promoted.replication()
    assert info["master_replid2"] == topo.old_replid, info
    with promoted.client() as c:
        stats = c.info("stats")
        assert (stats["sync_full"], stats["sync_partial_ok"]) == (0, 1), stats
        assert c.set("after-failover", "v1")
        assert c.execute_command("WAIT", 1, 2000) == 1
    with other.client() as c:
        assert c.get("after-failover") == "v1"
    # The Sentinels list the other replica, flagged `slave`, under the new master.
    wait_for("Sentinels list the other replica under the new master",
             lambda: all(any(int(r["port"]) == other.port and flags(r) == {"slave"}
                             for r in s.replicas()) for s in topo.sentinels),
             FAILOVER_S, watch=topo.live(), context=topo.describe)


# --- 3. the old master comes back -----------------------------------------------------------------

def test_old_master_rejoins_as_replica(topology, record_property):
    topo = topology(appendonly=True)
    topo.wait_discovered()
    with topo.master.client() as c:
        c.set("before-crash", "old")
        assert c.execute_command("WAIT", 2, 2000) == 2
    promoted, _ = crash_failover(topo, record_property)
    with promoted.client() as c:
        c.set("after-failover", "new")
    old = topo.master
    old.spawn()  # same port, its own AOF directory
    restarted = time.monotonic()
    old.wait_ready()

    def converted():
        info = old.replication()
        return (info.get("role") == "slave" and info.get("master_port") == promoted.port
                and info.get("master_link_status") == "up")

    wait_for("the old master becomes a replica of the new one", converted, CONVERT_S,
             watch=topo.live(), context=topo.describe)
    report(record_property, "restart to converted", time.monotonic() - restarted)
    role = old.role()
    assert role[0] == "slave" and role[1:4] == ["127.0.0.1", promoted.port, "connected"], role
    with old.client() as c:
        wait_for("the old master has the new master's data",
                 lambda: c.get("after-failover") == "new", START_S, watch=topo.live())
        assert c.get("before-crash") == "old"


# --- 4. redis-py's Sentinel client across a failover ----------------------------------------------

def test_redis_py_sentinel_client(topology, record_property):
    topo = topology()
    topo.wait_discovered()
    sentinel = redis.sentinel.Sentinel([("127.0.0.1", s.port) for s in topo.sentinels],
                                       socket_timeout=1.0, socket_connect_timeout=1.0)
    master = sentinel.master_for(MASTER_NAME, socket_timeout=5.0, socket_connect_timeout=1.0,
                                 decode_responses=True)
    try:
        assert sentinel.discover_master(MASTER_NAME) == ("127.0.0.1", topo.master.port)
        written = {}
        for i in range(20):
            assert master.set("k%d" % i, "v%d" % i)
            written["k%d" % i] = "v%d" % i
        assert master.execute_command("WAIT", 2, 2000) == 2
        killed = time.monotonic()
        topo.master.kill9()
        first_ok = None
        for i in range(20, 40):
            key, value = "k%d" % i, "v%d" % i
            wait_for("redis-py writes %s" % key, lambda: master.set(key, value), FAILOVER_S,
                     watch=topo.live(), context=topo.describe,
                     retry_on=(redis.ConnectionError, redis.TimeoutError,
                               redis.ReadOnlyError))
            if first_ok is None:
                first_ok = time.monotonic()
                report(record_property, "kill to first redis-py write", first_ok - killed)
            written[key] = value
        new_addr = sentinel.discover_master(MASTER_NAME)
        assert new_addr != ("127.0.0.1", topo.master.port)
        assert new_addr[1] in {r.port for r in topo.replicas}
        with topo.by_port(new_addr[1]).client() as c:
            assert c.execute_command("ROLE")[0] == "master"
            keys = sorted(written)
            assert dict(zip(keys, c.mget(keys))) == written
    finally:
        master.connection_pool.disconnect()
        for s in sentinel.sentinels:
            s.connection_pool.disconnect()


# --- 5. manual failover ---------------------------------------------------------------------------

def test_manual_failover(topology, record_property):
    topo = topology()
    topo.wait_discovered()
    old = topo.master
    old_addr = ("127.0.0.1", old.port)
    with old.client() as c:
        c.set("before-failover", "x")
        assert c.execute_command("WAIT", 2, 2000) == 2
    asked = time.monotonic()
    assert topo.sentinels[0].call("SENTINEL", "FAILOVER", MASTER_NAME) == "OK"
    new_addr = wait_for("all Sentinels name a new master",
                        lambda: (lambda a: a[0] if a[0] != old_addr and len(set(a)) == 1
                                 else None)(topo.addresses()),
                        FAILOVER_S, watch=topo.live(), context=topo.describe)
    report(record_property, "manual failover to new address", time.monotonic() - asked)
    promoted = topo.by_port(new_addr[1])
    assert promoted in topo.replicas
    other = next(r for r in topo.replicas if r is not promoted)
    wait_for("the promoted replica's ROLE says master",
             lambda: promoted.role()[0] == "master", FAILOVER_S, watch=topo.live(),
             context=topo.describe)
    wait_for("the other replica and the old master follow the new master",
             lambda: Topology.linked(promoted, [other, old]), CONVERT_S, watch=topo.live(),
             context=topo.describe)
    report(record_property, "manual failover to all linked", time.monotonic() - asked)
    with promoted.client() as c:
        assert c.get("before-failover") == "x"
        c.set("after-failover", "y")
        assert c.execute_command("WAIT", 2, 2000) == 2
    for d in (other, old):
        with d.client() as c:
            assert c.get("after-failover") == "y"


# --- 6. Sentinel's reconfiguration transaction, byte for byte -------------------------------------

def transaction(slaveof_args):
    """What sentinelSendSlaveOf writes (sentinel.c): six commands in one go."""
    return b"".join([encode("MULTI"), encode("SLAVEOF", *slaveof_args),
                     encode("CONFIG", "REWRITE"), encode("CLIENT", "KILL", "TYPE", "normal"),
                     encode("CLIENT", "KILL", "TYPE", "pubsub"), encode("EXEC")])


def run_transaction(kind, case):
    """Starts a master and a replica of `kind`, connects one normal and one pubsub client to
    the instance under test, sends the transaction on a raw socket, and returns the replies'
    bytes, whether the two bystanders were disconnected, the ROLE afterwards and the config
    file's text."""
    config_file = case != "promote-without-config-file"
    master = DataServer(kind, "tx-master-" + kind)
    procs = [master]
    try:
        master.spawn()
        master.wait_ready()
        if case == "demote":
            target = DataServer(kind, "tx-target-" + kind, config_file=config_file)
            procs.append(target)
            target.spawn()
            target.wait_ready()
            slaveof = ("127.0.0.1", str(master.port))
        else:
            target = DataServer(kind, "tx-target-" + kind, replicaof=master.port,
                                config_file=config_file)
            procs.append(target)
            target.spawn()
            target.wait_ready()
            wait_for("%s replica linked" % kind, lambda: Topology.linked(master, [target]),
                     START_S, watch=procs)
            slaveof = ("NO", "ONE")
        with Conn(target.port) as normal, Conn(target.port) as subscriber, \
                Conn(target.port) as sentinel:
            assert normal.call("PING") == b"+PONG\r\n"
            assert subscriber.call("SUBSCRIBE", "__sentinel__:hello").startswith(b"*3\r\n")
            sentinel.send_raw(transaction(slaveof))
            replies = [sentinel.reply() for _ in range(6)]
            killed = []
            for bystander in (normal, subscriber):
                try:
                    bystander.read_until_eof(timeout=2)
                    killed.append(True)
                except AssertionError:
                    killed.append(False)
            assert sentinel.call("PING") == b"+PONG\r\n"  # SKIPME: the caller survives
        if case == "demote":
            wait_for("%s demoted and linked" % kind, lambda: Topology.linked(master, [target]),
                     START_S, watch=procs)
        role = target.role()
        conf = None
        if target.conf:
            with open(target.conf) as f:
                conf = f.read()
        return {"replies": replies, "killed": killed, "role": role, "conf": conf,
                "master_port": master.port}
    finally:
        for p in procs:
            p.remove()


@pytest.mark.parametrize("case", ["promote", "promote-without-config-file", "demote"])
def test_reconfiguration_transaction(case):
    results = {kind: run_transaction(kind, case) for kind in ("redis-server", data_kind())}
    expected, got = results["redis-server"], results[data_kind()]
    # The reference's own shape first, so a broken expectation shows as such.
    assert expected["replies"][:5] == [b"+OK\r\n"] + [b"+QUEUED\r\n"] * 4
    assert expected["killed"] == [True, True]
    assert got["replies"] == expected["replies"], "EXEC: %r, redis-server: %r" % (
        parse(got["replies"][-1]), parse(expected["replies"][-1]))
    assert got["killed"] == expected["killed"]
    for r in (expected, got):
        if case == "demote":
            assert r["role"][:4] == ["slave", "127.0.0.1", r["master_port"], "connected"]
        else:
            assert r["role"][0] == "master"
        if r["conf"] is not None:
            lines = [l for l in r["conf"].splitlines() if l.startswith(("replicaof", "slaveof"))]
            want = ["replicaof 127.0.0.1 %d" % r["master_port"]] if case == "demote" else []
            assert lines == want, r["conf"]
