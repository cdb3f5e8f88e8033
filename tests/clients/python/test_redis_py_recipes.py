"""Lock and semaphore recipes written with redis-py's typed APIs (Debian's python3-redis 4.3.4).

What lock code built on redis-py calls beyond SET NX: WATCH retry loops raced by several threads,
a reentrant lock kept in a hash (HINCRBY, HGET, HDEL, PEXPIRE), the fair counting semaphore of
"Redis in Action" kept in sorted sets (ZADD, ZREMRANGEBYSCORE, ZINTERSTORE, ZRANK, ZREM), a
ZPOPMIN work queue, and pubsub()'s listen() generator with pattern subscriptions. Every test
runs on both servers; results are exact, and the races must keep their invariants.
"""

import threading
import time
import uuid

import pytest
from redis.exceptions import WatchError

WAIT_S = 5


@pytest.fixture
def prefix():
    return "recipes:%s:" % uuid.uuid4().hex


@pytest.fixture
def client_for(target, connections):
    """client_for(**options): a new client on the server under test (conftest's connections)."""
    return lambda **options: connections(target.port, **options)


def test_watch_retry_loops_lose_no_increment(client_for, prefix):
    key = prefix + "counter"
    client_for().set(key, 0)
    threads, increments, retries = 4, 50, []

    def worker():
        r = client_for()
        with r.pipeline() as pipe:
            for _ in range(increments):
                while True:
                    try:
                        pipe.watch(key)
                        value = int(pipe.get(key))
                        pipe.multi()
                        pipe.set(key, value + 1)
                        pipe.execute()
                        break
                    except WatchError:
                        retries.append(1)

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in pool)
    # Every increment landed exactly once, however many attempts lost their race.
    assert client_for().get(key) == str(threads * increments).encode()


def reentrant_acquire(r, name, owner, lease_ms):
    """A Redisson-style reentrant lock in a hash of owner -> hold count; None on success,
    else the holder's remaining PTTL."""
    with r.pipeline() as pipe:
        while True:
            try:
                pipe.watch(name)
                holders = pipe.hkeys(name)
                if holders and holders != [owner.encode()]:
                    return pipe.pttl(name)
                pipe.multi()
                pipe.hincrby(name, owner, 1)
                pipe.pexpire(name, lease_ms)
                pipe.execute()
                return None
            except WatchError:
                continue


def reentrant_release(r, name, owner):
    with r.pipeline() as pipe:
        while True:
            try:
                pipe.watch(name)
                if pipe.hget(name, owner) is None:
                    return False
                pipe.multi()
                pipe.hincrby(name, owner, -1)
                pipe.execute()
                if int(r.hget(name, owner) or 0) <= 0:
                    r.hdel(name, owner)
                return True
            except WatchError:
                continue


def test_reentrant_lock_in_a_hash(client_for, prefix):
    r = client_for()
    name = prefix + "lock"
    assert reentrant_acquire(r, name, "a", 30000) is None
    assert reentrant_acquire(r, name, "a", 30000) is None
    assert r.hgetall(name) == {b"a": b"2"}
    remaining = reentrant_acquire(r, name, "b", 30000)
    assert 0 < remaining <= 30000
    assert reentrant_release(r, name, "b") is False
    assert reentrant_release(r, name, "a") is True
    assert r.hget(name, "a") == b"1"
    assert reentrant_release(r, name, "a") is True
    # The last release empties the hash, which deletes the key: the lock is free.
    assert r.exists(name) == 0
    assert reentrant_acquire(r, name, "b", 30000) is None
    assert r.hlen(name) == 1


def acquire_fair_semaphore(r, name, limit, timeout_s=10):
    """Redis in Action's fair semaphore: a counter orders contenders, stale holders age out.
    The ticket is taken under WATCH, so tickets follow commit order and a contender's rank
    counts every holder before it (the book's two pipelines let a late low ticket overtake)."""
    identifier = uuid.uuid4().hex
    owners, counter = name + ":owner", name + ":counter"
    with r.pipeline() as pipe:
        while True:
            try:
                pipe.watch(counter)
                ticket = int(pipe.get(counter) or 0) + 1
                now = time.time()
                pipe.multi()
                pipe.zremrangebyscore(name, "-inf", now - timeout_s)
                pipe.zinterstore(owners, {owners: 1, name: 0})
                pipe.set(counter, ticket)
                pipe.zadd(name, {identifier: now})
                pipe.zadd(owners, {identifier: ticket})
                pipe.zrank(owners, identifier)
                rank = pipe.execute()[-1]
                break
            except WatchError:
                continue
    if rank < limit:
        return identifier
    release_fair_semaphore(r, name, identifier)
    return None


def release_fair_semaphore(r, name, identifier):
    pipe = r.pipeline(transaction=True)
    pipe.zrem(name, identifier)
    pipe.zrem(name + ":owner", identifier)
    return pipe.execute()[0] == 1


def test_fair_semaphore_in_sorted_sets_holds_its_limit(client_for, prefix):
    name, limit = prefix + "sem", 3
    holding, most, errors = [], [0], []
    guard = threading.Lock()

    def worker():
        r = client_for()
        try:
            for _ in range(10):
                identifier = acquire_fair_semaphore(r, name, limit)
                if identifier is None:
                    continue
                with guard:
                    holding.append(identifier)
                    most[0] = max(most[0], len(holding))
                with guard:
                    holding.remove(identifier)
                assert release_fair_semaphore(r, name, identifier)
        except Exception as e:  # noqa: BLE001: reported below, with the thread's failure
            errors.append(e)

    pool = [threading.Thread(target=worker) for _ in range(6)]
    for t in pool:
        t.start()
    for t in pool:
        t.join(timeout=60)
    assert errors == []
    assert 1 <= most[0] <= limit
    r = client_for()
    assert r.zcard(name) == 0 and r.zcard(name + ":owner") == 0
    # The counter counts every attempt: 6 workers, 10 each.
    assert r.get(name + ":counter") == b"60"


def test_stale_semaphore_holders_age_out(client_for, prefix):
    r = client_for()
    name = prefix + "sem"
    r.zadd(name, {"stale-1": time.time() - 60, "stale-2": time.time() - 60})
    r.zadd(name + ":owner", {"stale-1": 1, "stale-2": 2})
    # Both stale holders are past the timeout, so a limit of 1 still admits a newcomer.
    identifier = acquire_fair_semaphore(r, name, 1)
    assert identifier is not None
    assert r.zrange(name, 0, -1) == [identifier.encode()]
    assert r.zrange(name + ":owner", 0, -1, withscores=True) == [(identifier.encode(), 1.0)]


def test_zpopmin_work_queue_hands_each_job_out_once(client_for, prefix):
    key = prefix + "jobs"
    r = client_for()
    r.zadd(key, {"job-%03d" % i: i for i in range(200)})
    assert r.zadd(key, {"job-000": 99}, nx=True) == 0
    assert r.zscore(key, "job-000") == 0.0
    assert r.zrangebyscore(key, 10, 12, withscores=True) == [
        (b"job-010", 10.0), (b"job-011", 11.0), (b"job-012", 12.0)]
    taken, guard = [], threading.Lock()

    def worker():
        c = client_for()
        while True:
            popped = c.zpopmin(key, 7)
            if not popped:
                return
            with guard:
                taken.extend(member for member, _ in popped)

    pool = [threading.Thread(target=worker) for _ in range(4)]
    for t in pool:
        t.start()
    for t in pool:
        t.join(timeout=60)
    assert sorted(taken) == [("job-%03d" % i).encode() for i in range(200)]
    assert r.exists(key) == 0


def test_listen_yields_channel_and_pattern_messages_in_order(client_for, prefix):
    p = client_for().pubsub()
    p.subscribe(prefix + "events")
    p.psubscribe(prefix + "lock:*")
    publisher = client_for()
    got = []
    for message in p.listen():
        got.append(message)
        if len(got) == 2:
            assert publisher.publish(prefix + "events", "one") == 1
            assert publisher.publish(prefix + "lock:a", "released") == 1
            assert publisher.publish(prefix + "other", "unseen") == 0
            assert publisher.publish(prefix + "events", "two") == 1
        if len(got) == 5:
            break
    p.close()
    pattern = (prefix + "lock:*").encode()
    assert got == [
        {"type": "subscribe", "pattern": None, "channel": (prefix + "events").encode(), "data": 1},
        {"type": "psubscribe", "pattern": None, "channel": pattern, "data": 2},
        {"type": "message", "pattern": None, "channel": (prefix + "events").encode(),
         "data": b"one"},
        {"type": "pmessage", "pattern": pattern, "channel": (prefix + "lock:a").encode(),
         "data": b"released"},
        {"type": "message", "pattern": None, "channel": (prefix + "events").encode(),
         "data": b"two"},
    ]


def test_unlock_message_wakes_a_listening_waiter(client_for, prefix):
    """The wait-for-release pattern: a waiter listens on the lock's channel, the holder deletes
    the lock and publishes, the waiter takes the lock."""
    lock, channel = prefix + "lock", prefix + "lock:released"
    holder = client_for()
    assert holder.set(lock, "holder", nx=True, px=30000)
    subscribed, acquired = threading.Event(), []

    def waiter():
        r = client_for()
        p = r.pubsub()
        p.subscribe(channel)
        # The confirmation comes back once the server has the subscription.
        confirmed = p.get_message(timeout=WAIT_S)
        assert confirmed is not None and confirmed["type"] == "subscribe"
        # The first try fails (the holder has the lock) before the holder is told to go on; after
        # it the waiter tries again only on a release message, so it is still subscribed when
        # the holder publishes (trying between the holder's DEL and PUBLISH could take the lock
        # and unsubscribe first, and the PUBLISH would reach no one).
        if not r.set(lock, "waiter", nx=True, px=30000):
            subscribed.set()
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            message = p.get_message(timeout=max(0.0, deadline - time.monotonic()))
            if message is not None and message["type"] == "message" and \
                    r.set(lock, "waiter", nx=True, px=30000):
                acquired.append(True)
                break
        p.close()

    t = threading.Thread(target=waiter)
    t.start()
    assert subscribed.wait(WAIT_S)
    assert holder.delete(lock) == 1
    assert holder.publish(channel, "0") == 1
    t.join(timeout=WAIT_S + 1)
    assert acquired == [True]
    assert holder.get(lock) == b"waiter"
