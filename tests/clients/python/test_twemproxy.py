"""twemproxy (Debian's nutcracker 0.5.0, /usr/sbin/nutcracker) sharding three servers, with
redis-py (Debian's python3-redis 4.3.4) as the client.

The module starts two proxies on free loopback ports: one in front of the three wardens
(WARDEN_PORTS), one in front of the three redis-servers (REDIS_PORTS), each from a config file
in a temp dir: redis protocol, murmur hash, ketama distribution, hash tag "{}", no ejection.
(Not fnv1a_64: nutcracker 0.5.0's fnv1a_64 put keys that differ in their last digits, such as
300 keys "<uuid>:key:<i>", mostly on one or two backends: 0/200/100 in a trial.)
The servers are named b0, b1, b2 in both configs, and ketama places keys by server name, so a
key lands on the same backend index behind either proxy. Both proxies are stopped by PID at the
end.

Scenarios go through the proxy: SET NX PX locks, compare-and-delete by EVAL, redis-py's Lock
(also four processes contending for it), 300 keys spread over the backends, and hash tags
keeping related keys on one backend. Each
backend is also read directly (EXISTS, GET, PTTL) to see where a key lives. Each scenario
records what it saw in a Transcript; behind warden it also runs behind redis-server, and the
two transcripts must be equal, placement included. Key names carry a uuid per test, the same
behind both proxies.

twemproxy forwards only commands with a key it can hash: EVAL and EVALSHA need at least one key
and go to the backend of the first; SCRIPT LOAD and EVAL with no key make it close the
client's connection ("parsed unsupported command" in its log). redis-py's Lock falls back to
SCRIPT LOAD when EVALSHA gets NOSCRIPT, so a deployment loads the Lock's scripts on every
backend first, as the tests here do.
"""

import multiprocessing
import os
import re
import socket
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass

import pytest
import redis
from redis.lock import Lock

from blocking_transcripts import Transcript, same_as_redis
from conftest import targets

NUTCRACKER = "/usr/sbin/nutcracker"
WAIT_S = 5

CONFIG = """\
{pool}:
  listen: 127.0.0.1:{port}
  redis: true
  hash: murmur
  distribution: ketama
  hash_tag: "{{}}"
  auto_eject_hosts: false
  preconnect: true
  timeout: 5000
  servers:
{servers}
"""

COMPARE_AND_DELETE = """
if redis.call("get", KEYS[1]) == ARGV[1] then
    return redis.call("del", KEYS[1])
end
return 0
"""

COMPARE_AND_EXTEND = """
if redis.call("get", KEYS[1]) == ARGV[1] then
    return redis.call("pexpire", KEYS[1], ARGV[2])
end
return 0
"""

# Two keys under one hash tag: take the lock and hand out the next fencing token.
LOCK_AND_FENCE = """
if redis.call("set", KEYS[1], ARGV[1], "NX", "PX", ARGV[2]) then
    return redis.call("incr", KEYS[2])
end
return 0
"""


@dataclass
class Proxy:
    name: str  # the servers behind it: "redis-server" or "warden"
    port: int
    backends: tuple  # the servers' ports, b0 b1 b2
    proc: subprocess.Popen
    log: str


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answers_ping(port):
    client = redis.Redis(port=port, socket_timeout=1)
    try:
        return client.ping()
    except redis.ConnectionError:
        return False
    finally:
        client.close()


def start_proxy(name, backends, workdir):
    """Starts nutcracker in front of `backends`; retries on another port if one was taken."""
    servers = "\n".join("   - 127.0.0.1:%d:1 b%d" % (port, i) for i, port in enumerate(backends))
    for attempt in range(5):
        port, stats_port = free_port(), free_port()
        conf = os.path.join(workdir, "%s-%d.yml" % (name, attempt))
        log = os.path.join(workdir, "%s-%d.log" % (name, attempt))
        with open(conf, "w") as f:
            f.write(CONFIG.format(pool=name.replace("-", "_"), port=port, servers=servers))
        proc = subprocess.Popen(
            [NUTCRACKER, "-c", conf, "-s", str(stats_port), "-a", "127.0.0.1", "-o", log],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + WAIT_S
        while proc.poll() is None and time.monotonic() < deadline:
            if answers_ping(port):
                return Proxy(name, port, backends, proc, log)
        stop_proxy(proc)
    with open(log) as f:
        raise RuntimeError("nutcracker in front of %s did not start:\n%s" % (name, f.read()))


def stop_proxy(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(WAIT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(WAIT_S)


@pytest.fixture(scope="module")
def proxies(tmp_path_factory):
    workdir = str(tmp_path_factory.mktemp("twemproxy"))
    started = {}
    try:
        for name, servers in targets().items():
            started[name] = start_proxy(name, servers.ports, workdir)
        yield started
    finally:
        for proxy in started.values():
            stop_proxy(proxy.proc)


@pytest.fixture
def proxy(target, proxies):
    return proxies[target.name]


@pytest.fixture
def prefix():
    return "tw-" + uuid.uuid4().hex


def through_both(proxy, proxies, scenario):
    """scenario(proxy) behind this proxy; behind warden also behind redis-server, and the two
    transcripts must be equal."""
    by_port = {p.port: p for p in proxies.values()}
    return same_as_redis(proxy, proxies["redis-server"], lambda port: scenario(by_port[port]))


def placement(backends, keys):
    """For each key, the indexes of the backends that hold it (read with EXISTS directly)."""
    found = {key: [] for key in keys}
    for index, backend in enumerate(backends):
        pipe = backend.pipeline(transaction=False)
        for key in keys:
            pipe.exists(key)
        for key, exists in zip(keys, pipe.execute()):
            if exists:
                found[key].append(index)
    return [found[key] for key in keys]


def within(value, low, high):
    return low < value <= high


def wait_until(condition):
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, "condition not met within %ds" % WAIT_S


def test_set_nx_px_lock_acquire_refuse_expire(proxy, proxies, prefix, connections):
    def scenario(p):
        r, r2 = connections(p.port), connections(p.port)
        backends = [connections(port) for port in p.backends]
        lock, short = prefix + ":lock", prefix + ":short"
        t = Transcript()
        t["acquire"] = r.set(lock, "token-1", nx=True, px=10000)
        t["second acquire refused"] = r2.set(lock, "token-2", nx=True, px=10000)
        t["get"] = r2.get(lock)
        t["pttl"] = within(r.pttl(lock), 9000, 10000)
        [[home]] = placement(backends, [lock])
        t["home"] = home
        t["backend get"] = backends[home].get(lock)
        t["backend pttl"] = within(backends[home].pttl(lock), 9000, 10000)
        t["short lease"] = r.set(short, "token-1", nx=True, px=200)
        t["short refused"] = r2.set(short, "token-2", nx=True, px=10000)
        wait_until(lambda: r2.exists(short) == 0)
        t["after expiry"] = r2.set(short, "token-2", nx=True, px=10000)
        t["new holder"] = r.get(short)
        t["cleanup"] = r.delete(lock, short)  # twemproxy splits DEL by key and adds the counts
        return t

    t = through_both(proxy, proxies, scenario)
    assert t["acquire"] is True and t["second acquire refused"] is None
    assert t["get"] == b"token-1" and t["pttl"]
    assert t["backend get"] == b"token-1" and t["backend pttl"]
    assert t["short lease"] is True and t["short refused"] is None
    assert t["after expiry"] is True and t["new holder"] == b"token-2"
    assert t["cleanup"] == 2


def test_compare_and_delete_and_extend_by_eval(proxy, proxies, prefix, connections):
    def scenario(p):
        r = connections(p.port)
        backends = [connections(port) for port in p.backends]
        lock = prefix + ":lock"
        t = Transcript()
        t["acquire"] = r.set(lock, "mine", nx=True, px=10000)
        t["delete with a wrong token"] = r.eval(COMPARE_AND_DELETE, 1, lock, "theirs")
        t["still held"] = r.get(lock)
        t["extend with a wrong token"] = r.eval(COMPARE_AND_EXTEND, 1, lock, "theirs", 60000)
        t["extend"] = r.eval(COMPARE_AND_EXTEND, 1, lock, "mine", 60000)
        t["pttl"] = within(r.pttl(lock), 59000, 60000)
        t["delete"] = r.eval(COMPARE_AND_DELETE, 1, lock, "mine")
        t["gone everywhere"] = placement(backends, [lock])
        t["delete again"] = r.eval(COMPARE_AND_DELETE, 1, lock, "mine")
        # A script's error comes back through the proxy as the backend wrote it.
        r.set(lock, "not a number")
        with pytest.raises(redis.ResponseError) as error:
            r.eval("return redis.call('incr', KEYS[1])", 1, lock)
        t["script error"] = str(error.value)
        r.delete(lock)
        # A script without a key has no backend: the proxy closes the connection.
        with pytest.raises(redis.ConnectionError):
            r.eval("return 1", 0)
        t["reconnects after"] = r.ping()
        return t

    t = through_both(proxy, proxies, scenario)
    assert t["acquire"] is True
    assert t["delete with a wrong token"] == 0 and t["still held"] == b"mine"
    assert t["extend with a wrong token"] == 0 and t["extend"] == 1 and t["pttl"]
    assert t["delete"] == 1 and t["gone everywhere"] == [[]] and t["delete again"] == 0
    assert re.fullmatch(r"value is not an integer or out of range script: [0-9a-f]{40}, "
                        r"on @user_script:1\.", t["script error"])
    assert t["reconnects after"] is True


def load_lock_scripts(backends):
    """What a deployment does before using redis-py's Lock through twemproxy."""
    return [[b.script_load(s) for s in (Lock.LUA_RELEASE_SCRIPT, Lock.LUA_EXTEND_SCRIPT,
                                        Lock.LUA_REACQUIRE_SCRIPT)] for b in backends]


def test_redis_py_lock_through_the_proxy(proxy, proxies, prefix, connections):
    def scenario(p):
        r, r2 = connections(p.port), connections(p.port)
        backends = [connections(port) for port in p.backends]
        name = prefix + ":order"
        t = Transcript()
        shas = load_lock_scripts(backends)
        t["same scripts on every backend"] = shas[0] == shas[1] == shas[2]
        holder = r.lock(name, timeout=10, thread_local=False)
        contender = r2.lock(name, timeout=10, sleep=0.02)
        t["acquire"] = holder.acquire(blocking=False)
        t["owned"] = [holder.owned(), contender.owned(), contender.locked()]
        start = time.monotonic()
        t["contender times out"] = contender.acquire(blocking_timeout=0.3)
        t.notes["contender waited"] = time.monotonic() - start
        t["extend"] = holder.extend(5)
        t["pttl after extend"] = within(r.pttl(name), 14000, 15000)
        [[home]] = placement(backends, [name])
        t["backend value is the token"] = backends[home].get(name) == holder.local.token
        # The contender blocks until the holder releases from another thread.
        releaser = threading.Timer(0.2, holder.release)
        releaser.start()
        try:
            t["contender acquires after release"] = contender.acquire(blocking_timeout=WAIT_S)
        finally:
            releaser.join()
        t["holder no longer owns"] = holder.owned()
        contender.release()
        t["released"] = placement(backends, [name])
        return t

    t = through_both(proxy, proxies, scenario)
    assert t["same scripts on every backend"]
    assert t["acquire"] is True and t["owned"] == [True, False, True]
    assert t["contender times out"] is False
    assert 0.25 <= t.notes["contender waited"] < 3.0
    assert t["extend"] is True and t["pttl after extend"]
    assert t["backend value is the token"]
    assert t["contender acquires after release"] is True
    assert t["holder no longer owns"] is False
    assert t["released"] == [[]]


WORKERS = 4
ROUNDS = 25


def _contend(port, lock_name, counter, worker):
    """One process through the proxy: ROUNDS acquisitions of redis-py's Lock around a
    read-modify-write of `counter`; exits non-zero if it ever saw another holder inside."""
    client = redis.Redis(port=port, socket_timeout=WAIT_S + 5)
    inside = counter + ":inside"
    for _ in range(ROUNDS):
        lock = client.lock(lock_name, timeout=5, sleep=0.002, blocking_timeout=20)
        if not lock.acquire():
            sys.exit("worker %d: acquire timed out" % worker)
        if client.incr(inside) != 1:
            sys.exit("worker %d: two holders at once" % worker)
        value = int(client.get(counter) or 0)
        client.set(counter, value + 1)
        client.decr(inside)
        lock.release()
    client.close()


def test_processes_contending_through_the_proxy_never_overlap(proxy, proxies, prefix,
                                                              connections):
    def scenario(p):
        r = connections(p.port)
        backends = [connections(port) for port in p.backends]
        load_lock_scripts(backends)
        # The lock and the counter share a tag, so one backend holds the whole critical section.
        lock_name, counter = "{%s}:lock" % prefix, "{%s}:counter" % prefix
        ctx = multiprocessing.get_context("fork")
        workers = [ctx.Process(target=_contend, args=(p.port, lock_name, counter, i))
                   for i in range(WORKERS)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(60)
        t = Transcript()
        t["exit codes"] = [w.exitcode for w in workers]
        t["counter"] = r.get(counter)
        t["placement"] = placement(backends, [lock_name, counter, counter + ":inside"])
        t["cleanup"] = r.delete(counter, counter + ":inside")
        return t

    t = through_both(proxy, proxies, scenario)
    assert t["exit codes"] == [0] * WORKERS
    assert t["counter"] == b"%d" % (WORKERS * ROUNDS)
    [home] = t["placement"][1]
    assert t["placement"] == [[], [home], [home]]
    assert t["cleanup"] == 2


def test_redis_py_lock_release_needs_its_script_on_the_backend(proxy, proxies, prefix,
                                                               connections):
    def scenario(p):
        r = connections(p.port)
        backends = [connections(port) for port in p.backends]
        name = prefix + ":order"
        t = Transcript()
        lock = r.lock(name, timeout=10)
        t["acquire"] = lock.acquire(blocking=False)
        token = lock.local.token
        [[home]] = placement(backends, [name])
        backends[home].script_flush()
        # EVALSHA gets NOSCRIPT from the backend; redis-py's SCRIPT LOAD then reaches the
        # proxy, which closes the connection.
        with pytest.raises(redis.ConnectionError):
            lock.release()
        t["still held"] = backends[home].get(name) == token
        # redis-py forgot the token before sending: the key stays until its lease ends or
        # someone deletes it. With the scripts loaded on every backend, the next lock works.
        t["cleared"] = r.delete(name)
        load_lock_scripts(backends)
        again = r.lock(name, timeout=10)
        t["acquire again"] = again.acquire(blocking=False)
        again.release()
        t["released"] = placement(backends, [name])
        return t

    t = through_both(proxy, proxies, scenario)
    assert t["acquire"] is True and t["still held"] is True
    assert t["cleared"] == 1 and t["acquire again"] is True and t["released"] == [[]]


KEYS = 300


def test_keys_spread_over_all_three_backends(proxy, proxies, prefix, connections):
    def scenario(p):
        r = connections(p.port)
        backends = [connections(port) for port in p.backends]
        keys = ["%s:key:%d" % (prefix, i) for i in range(KEYS)]
        t = Transcript()
        pipe = r.pipeline(transaction=False)
        for i, key in enumerate(keys):
            pipe.set(key, "value-%d" % i, nx=True, px=60000)
        t["sets"] = pipe.execute()
        t["placement"] = placement(backends, keys)
        t["mget"] = r.mget(keys)  # split by backend and put back in order by the proxy
        t["backend values"] = [backends[where[0]].get(key)
                               for key, where in zip(keys, t["placement"])]
        t["del"] = r.delete(*keys)
        t["after del"] = placement(backends, keys)
        return t

    t = through_both(proxy, proxies, scenario)
    values = [b"value-%d" % i for i in range(KEYS)]
    assert t["sets"] == [True] * KEYS
    assert all(len(where) == 1 for where in t["placement"]), "a key on several backends"
    per_backend = [sum(1 for where in t["placement"] if where == [i]) for i in range(3)]
    assert sum(per_backend) == KEYS and min(per_backend) >= 30, per_backend
    assert t["mget"] == values and t["backend values"] == values
    assert t["del"] == KEYS and t["after del"] == [[]] * KEYS


TAGS = 20
SUFFIXES = ("lock", "fence", "queue", "owner", "lease")


def test_hash_tags_keep_related_keys_on_one_backend(proxy, proxies, prefix, connections):
    def scenario(p):
        r = connections(p.port)
        backends = [connections(port) for port in p.backends]
        tags = ["%s:order:%d" % (prefix, i) for i in range(TAGS)]
        t = Transcript()
        for tag in tags:
            for suffix in SUFFIXES:
                r.set("{%s}:%s" % (tag, suffix), suffix)
            r.set(tag, "the bare tag")  # hashed whole: the same bytes as the tag
        t["tag placement"] = [placement(backends, ["{%s}:%s" % (tag, s) for s in SUFFIXES])
                              for tag in tags]
        t["bare placement"] = placement(backends, tags)
        # A script over two keys of one tag runs on their backend.
        lock, fence = "{%s}:lock" % tags[0], "{%s}:fence" % tags[0]
        r.delete(lock, fence)
        t["lock and fence"] = [r.eval(LOCK_AND_FENCE, 2, lock, fence, "me", 10000),
                               r.eval(LOCK_AND_FENCE, 2, lock, fence, "you", 10000)]
        [home] = t["bare placement"][0]
        t["on the tag's backend"] = [backends[home].get(lock), backends[home].get(fence)]
        t["cleanup"] = r.delete(*tags, *("{%s}:%s" % (tag, s) for tag in tags
                                         for s in SUFFIXES))
        return t

    t = through_both(proxy, proxies, scenario)
    homes = set()
    for tag_keys, bare in zip(t["tag placement"], t["bare placement"]):
        assert len(bare) == 1
        assert tag_keys == [bare] * len(SUFFIXES)
        homes.add(bare[0])
    assert len(homes) >= 2, "all %d tags on one backend" % TAGS
    assert t["lock and fence"] == [1, 0]
    assert t["on the tag's backend"] == [b"me", b"1"]
    assert t["cleanup"] == TAGS * (1 + len(SUFFIXES))
