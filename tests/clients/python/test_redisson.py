"""Redisson 3.52.0's locks and synchronizers, replayed, against redis-server and warden.

No JVM library can be installed here, so redisson_replay.py sends what Redisson 3.52.0 sends
(https://github.com/redisson/redisson, tag redisson-3.52.0, commit 3d8945a7225a; scripts from
redisson/src/main/java/org/redisson/ RedissonLock, RedissonBaseLock, renewal/LockTask,
renewal/ReadLockTask, RedissonFairLock, RedissonReadLock, RedissonWriteLock, RedissonFencedLock,
RedissonSemaphore, RedissonPermitExpirableSemaphore and RedissonCountDownLatch .java): its Lua
scripts verbatim, by EVALSHA with the NOSCRIPT fallback (its default) or EVAL, with Redisson's
KEYS, ARGV, key and channel names and "publish"/"spublish" as an argument, over redis-py 4.3.4
(Debian python3-redis). Waiters are real second connections subscribed to Redisson's channels,
in threads where Redisson would block.

Each scenario runs against one server and returns a transcript (step -> reply); on warden it
also runs against redis-server and the two transcripts must be equal (blocking_transcripts.
same_as_redis). Each run gets fresh key names, while client ids, request ids and permit ids
depend only on the role, so two runs send the same bytes apart from the names and the clock.
Replies that hold a remaining time are recorded by `ttl` as a range. No scenario sleeps: expiry
is brought forward with PEXPIRE or awaited by polling with a deadline.
"""

import itertools
import threading
import time
import uuid

import pytest
from redis.exceptions import ResponseError

from blocking_transcripts import Transcript, same_as_redis
from redisson_replay import (FAIR_LOCK_WAIT_TIMEOUT_MS, LOCK_WATCHDOG_TIMEOUT_MS,
                             NON_EXPIRABLE_TIMEOUT, RCountDownLatch, RFairLock, RFencedLock,
                             RLock, RPermitExpirableSemaphore, RReadLock, RSemaphore,
                             RWriteLock, Redisson, now_ms, renew_locks, renew_read_locks)

RUN = uuid.uuid4().hex[:8]
WAIT_S = 5  # the longest a scenario waits for a message, a thread or an expiry
LEASE = LOCK_WATCHDOG_TIMEOUT_MS
_runs = itertools.count()


class Scene:
    """One run of a scenario on one server: fresh names, Redisson instances by role, the
    connections to close, and the transcript."""

    def __init__(self, port):
        self.port = port
        self.prefix = "redisson:%s:%d" % (RUN, next(_runs))
        self.t = Transcript()
        self.closing = []

    def name(self, suffix):
        return "%s:%s" % (self.prefix, suffix)

    def client(self, role, **options):
        client = Redisson(self.port, role, RUN, **options)
        self.closing.append(client)
        return client

    def subscriber(self, client, channel):
        sub = client.subscriber()
        self.closing.append(sub)
        sub.subscribe(channel)
        return sub

    def relative(self, text):
        """A channel or key name with this run's prefix replaced by "~"."""
        return text.replace(self.prefix, "~")

    def message(self, sub, timeout=WAIT_S):
        """The next message as (relative channel, payload), or None."""
        got = sub.next_message(timeout)
        return None if got is None else (self.relative(got[0]), got[1])

    def close(self):
        for item in self.closing:
            item.close()


def run(target, reference, scenario):
    """Runs scenario(scene) on the target (and on warden, also on redis-server) and returns the
    target's transcript."""
    def on(port):
        scene = Scene(port)
        try:
            scenario(scene)
        finally:
            scene.close()
        return scene.t
    return same_as_redis(target, reference, on)


def ttl(value, bound_ms, slack_ms=2000):
    """A remaining time as a transcript value: the range when bound - slack < value <= bound,
    else the value itself, so a wrong one shows."""
    if isinstance(value, int) and bound_ms - slack_ms < value <= bound_ms:
        return "in (%d, %d]" % (bound_ms - slack_ms, bound_ms)
    return value


def hash_of(client, key):
    return {k.decode(): v.decode() for k, v in client.redis.hgetall(key).items()}


def marker_follows(scene, client, sub, channel):
    """Publishes a marker and returns the next message, so a test can show that nothing came
    before it without waiting for silence."""
    client.redis.publish(channel, "marker")
    return scene.message(sub)


def wait_until(condition, what):
    deadline = time.monotonic() + WAIT_S
    pause = threading.Event()
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("%s did not happen within %ds" % (what, WAIT_S))
        pause.wait(0.005)


class Waiter(threading.Thread):
    """A Redisson call that blocks, run in a thread on its own client: `body(ready)` sets
    `ready` just before it first waits for a message, and returns what the test records."""

    def __init__(self, body):
        super().__init__(daemon=True)
        self.body = body
        self.ready = threading.Event()
        self.result = None
        self.error = None

    def run(self):
        try:
            self.result = self.body(self.ready)
        except BaseException as error:  # reported by join_result
            self.error = error
            self.ready.set()

    def wait_ready(self):
        assert self.ready.wait(WAIT_S), "the waiter did not start waiting"
        if self.error:
            raise self.error

    def join_result(self):
        self.join(WAIT_S * 2)
        assert not self.is_alive(), "the waiter is still blocked"
        if self.error:
            raise self.error
        return self.result


def lock_and_wait(scene, lock, thread, ready):
    """RedissonLock.lock(): try; subscribe to the channel; then try again and wait for a
    message at most the returned TTL, until acquired. Returns the messages it woke on."""
    if lock.try_lock(thread) is None:
        return ["acquired at once"]
    sub = scene.subscriber(lock.client, lock.channel)
    deadline = time.monotonic() + WAIT_S
    woken_by = []
    while True:
        remaining_ms = lock.try_lock(thread)
        if remaining_ms is None:
            return woken_by
        ready.set()
        left_s = deadline - time.monotonic()
        assert left_s > 0, "not woken within %ds" % WAIT_S
        woken_by.append(scene.message(sub, min(remaining_ms / 1000, left_s)))


# --- RLock ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("use_script_cache", [True, False], ids=["evalsha", "eval"])
def test_rlock_is_reentrant_and_unlocks_in_two_steps(target, reference, use_script_cache):
    def scenario(s):
        a = s.client("A", use_script_cache=use_script_cache)
        lock = RLock(a, s.name("lock"))
        s.t["tryLock"] = lock.try_lock(1)
        s.t["tryLock again"] = lock.try_lock(1)
        s.t["hold count"] = lock.hold_count(1)
        s.t["hash"] = hash_of(a, lock.name)
        s.t["pttl"] = ttl(a.redis.pttl(lock.name), LEASE)
        s.t["unlock"] = lock.unlock(1)
        s.t["hold count after one unlock"] = lock.hold_count(1)
        s.t["unlock again"] = lock.unlock(1)
        s.t["exists"] = a.redis.exists(lock.name)
        # SCRIPT LOAD comes only on a server that has not seen the script yet.
        s.t["commands"] = sorted({command for command, _ in a.sent} - {"SCRIPT LOAD"})

    t = run(target, reference, scenario)
    assert t["tryLock"] is None and t["tryLock again"] is None
    assert t["hold count"] == 2
    assert list(t["hash"].values()) == ["2"] and list(t["hash"])[0].endswith(":1")
    assert t["pttl"] == ttl(LEASE, LEASE)
    assert t["unlock"] == 0 and t["hold count after one unlock"] == 1
    assert t["unlock again"] == 1 and t["exists"] == 0
    assert t["commands"] == (["EVALSHA"] if use_script_cache else ["EVAL"])


def test_rlock_script_cache_loads_each_script_once_after_noscript(target, reference):
    def scenario(s):
        a = s.client("A")
        b = s.client("B", use_script_cache=False)
        lock = RLock(a, s.name("lock"))
        s.t["SCRIPT FLUSH"] = a.redis.execute_command("SCRIPT", "FLUSH")
        s.t["tryLock"] = lock.try_lock(1)
        s.t["sent for the first call"] = [command for command, _ in a.sent]
        s.t["tryLock again"] = lock.try_lock(1)
        s.t["sent in all"] = [command for command, _ in a.sent]
        s.t["SCRIPT EXISTS"] = a.redis.execute_command("SCRIPT", "EXISTS", a.sent[0][1])
        s.t["B tryLock by EVAL"] = ttl(RLock(b, lock.name).try_lock(1), LEASE)
        s.t["B sent"] = [command for command, _ in b.sent]

    t = run(target, reference, scenario)
    assert t["tryLock"] is None and t["tryLock again"] is None
    assert t["sent for the first call"] == ["EVALSHA", "SCRIPT LOAD", "EVALSHA"]
    assert t["sent in all"] == ["EVALSHA", "SCRIPT LOAD", "EVALSHA", "EVALSHA"]
    assert t["SCRIPT EXISTS"] == [1]
    assert t["B tryLock by EVAL"] == ttl(LEASE, LEASE)
    assert t["B sent"] == ["EVAL"]


def test_rlock_another_client_or_thread_is_refused_with_the_remaining_ttl(target, reference):
    def scenario(s):
        a, b = s.client("A"), s.client("B")
        lock_a, lock_b = RLock(a, s.name("lock")), RLock(b, s.name("lock"))
        s.t["A tryLock lease 10 s"] = lock_a.try_lock(1, lease_ms=10000)
        s.t["B tryLock"] = ttl(lock_b.try_lock(1), 10000)
        s.t["A thread 2 tryLock"] = ttl(lock_a.try_lock(2), 10000)
        s.t["B unlock"] = lock_b.unlock(1)  # nil: IllegalMonitorStateException in Redisson
        s.t["A thread 2 unlock"] = lock_a.unlock(2)
        s.t["hash"] = hash_of(a, lock_a.name)
        s.t["A tryLock again"] = lock_a.try_lock(1, lease_ms=10000)
        s.t["PEXPIRE 3000"] = a.redis.pexpire(lock_a.name, 3000)
        s.t["A unlock one hold"] = lock_a.unlock(1)
        s.t["pttl: the lease again"] = ttl(a.redis.pttl(lock_a.name), 10000)
        s.t["A unlock"] = lock_a.unlock(1)
        s.t["B tryLock after"] = lock_b.try_lock(1)

    t = run(target, reference, scenario)
    assert t["A tryLock lease 10 s"] is None
    assert t["B tryLock"] == ttl(10000, 10000)
    assert t["A thread 2 tryLock"] == ttl(10000, 10000)
    assert t["B unlock"] is None and t["A thread 2 unlock"] is None
    assert list(t["hash"].values()) == ["1"]
    assert t["A tryLock again"] is None and t["PEXPIRE 3000"] is True
    assert t["A unlock one hold"] == 0
    assert t["pttl: the lease again"] == ttl(10000, 10000)  # internalLockLeaseTime, ARGV[2]
    assert t["A unlock"] == 1 and t["B tryLock after"] is None


def test_rlock_unlock_latch_answers_a_retried_unlock_without_a_second_release(target,
                                                                          reference):
    def scenario(s):
        a = s.client("A")
        lock = RLock(a, s.name("lock"))
        sub = s.subscriber(s.client("listener"), lock.channel)
        lock.try_lock(1)
        lock.try_lock(1)
        s.t["unlock (request r1)"] = lock.unlock(1, request_id="r1")
        s.t["retry r1"] = lock.unlock(1, request_id="r1")
        s.t["hold count after the retry"] = lock.hold_count(1)
        latch = lock.unlock_latch_name("r1")
        s.t["latch r1"] = a.redis.get(latch)
        s.t["latch r1 pttl within the unlock timeout"] = 0 < a.redis.pttl(latch) <= 20000
        s.t["unlock (request r2)"] = lock.unlock(1, request_id="r2")
        s.t["retry r2"] = lock.unlock(1, request_id="r2")
        s.t["latch r2"] = a.redis.get(lock.unlock_latch_name("r2"))
        s.t["exists"] = a.redis.exists(lock.name)
        s.t["latch of the client id"] = a.redis.exists(lock.unlock_latch_name(a.id))
        s.t["message"] = s.message(sub)
        s.t["next message"] = marker_follows(s, a, sub, lock.channel)

    t = run(target, reference, scenario)
    assert t["unlock (request r1)"] == 0 and t["retry r1"] == 0
    assert t["hold count after the retry"] == 1
    assert t["latch r1"] == b"0" and t["latch r1 pttl within the unlock timeout"] is True
    assert t["unlock (request r2)"] == 1 and t["retry r2"] == 1 and t["latch r2"] == b"1"
    assert t["exists"] == 0 and t["latch of the client id"] == 0
    assert t["message"] == ("redisson_lock__channel:{~:lock}", b"0")
    assert t["next message"] == ("redisson_lock__channel:{~:lock}", b"marker")


def test_rlock_force_unlock_deletes_any_holder_and_publishes_once(target, reference):
    def scenario(s):
        a, b = s.client("A"), s.client("B")
        lock = RLock(a, s.name("lock"))
        sub = s.subscriber(s.client("listener"), lock.channel)
        lock.try_lock(1)
        lock.try_lock(1)
        s.t["B forceUnlock"] = RLock(b, lock.name).force_unlock()
        s.t["exists"] = a.redis.exists(lock.name)
        s.t["message"] = s.message(sub)
        s.t["forceUnlock again"] = lock.force_unlock()
        s.t["next message"] = marker_follows(s, a, sub, lock.channel)
        s.t["A unlock after"] = lock.unlock(1)

    t = run(target, reference, scenario)
    assert t["B forceUnlock"] == 1 and t["exists"] == 0
    assert t["message"] == ("redisson_lock__channel:{~:lock}", b"0")
    assert t["forceUnlock again"] == 0
    assert t["next message"][1] == b"marker"
    assert t["A unlock after"] is None


def test_rlock_lease_expiry_lets_another_client_in(target, reference):
    def scenario(s):
        a, b = s.client("A"), s.client("B")
        lock_a, lock_b = RLock(a, s.name("lock")), RLock(b, s.name("lock"))
        s.t["A tryLock"] = lock_a.try_lock(1)
        s.t["PEXPIRE 20"] = a.redis.pexpire(lock_a.name, 20)
        s.t["B acquires once it lapses"] = wait_until(lambda: lock_b.try_lock(1) is None,
                                                      "B's acquisition")
        s.t["A unlock after losing it"] = lock_a.unlock(1)
        s.t["hash"] = hash_of(b, lock_b.name)

    t = run(target, reference, scenario)
    assert t["A tryLock"] is None and t["PEXPIRE 20"] is True
    assert t["B acquires once it lapses"] is True
    assert t["A unlock after losing it"] is None
    assert list(t["hash"].values()) == ["1"]


def test_rlock_watchdog_renews_the_held_locks_in_one_script(target, reference):
    def scenario(s):
        a, b = s.client("A"), s.client("B")
        locks = [RLock(a, s.name("lock%d" % n)) for n in range(5)]
        locks[0].try_lock(1)
        locks[1].try_lock(1)
        locks[2].try_lock(2)
        locks[2].try_lock(2)
        RLock(b, locks[3].name).try_lock(1)  # another client's lock of the same name
        locks[4].try_lock(1)
        locks[4].unlock(1)
        for lock in locks[:4]:
            a.redis.pexpire(lock.name, 5000)
        entries = [(locks[0].name, locks[0].lock_name(1)), (locks[1].name, locks[1].lock_name(1)),
                   (locks[2].name, locks[2].lock_name(2)), (locks[3].name, locks[3].lock_name(1)),
                   (locks[4].name, locks[4].lock_name(1))]
        s.t["renewal"] = renew_locks(a, entries)
        s.t["pttls"] = [ttl(a.redis.pttl(lock.name), LEASE) for lock in locks[:3]]
        s.t["other client's pttl"] = ttl(a.redis.pttl(locks[3].name), 5000)
        s.t["released lock's pttl"] = a.redis.pttl(locks[4].name)

    t = run(target, reference, scenario)
    assert t["renewal"] == [[1, 1, 1, 0, 0]]
    assert t["pttls"] == [ttl(LEASE, LEASE)] * 3
    assert t["other client's pttl"] == ttl(5000, 5000)
    assert t["released lock's pttl"] == -2


def test_rlock_watchdog_renews_100_locks_per_script_and_the_rest_in_the_next(target,
                                                                            reference):
    def scenario(s):
        a = s.client("A")
        locks = [RLock(a, s.name("lock%03d" % n)) for n in range(150)]
        s.t["acquired"] = [lock.try_lock(1) for lock in locks] == [None] * 150
        released = set(range(0, 150, 10))
        for n in released:
            locks[n].unlock(1)
        pipe = a.redis.pipeline(transaction=False)  # the test's own look, not Redisson's
        for n, lock in enumerate(locks):
            if n not in released:
                pipe.pexpire(lock.name, 5000)
        pipe.execute()
        replies = renew_locks(a, [(lock.name, lock.lock_name(1)) for lock in locks])
        s.t["scripts"] = len(replies)
        s.t["keys per script"] = [len(reply) for reply in replies]
        s.t["renewed"] = [n for n, ok in enumerate(replies[0] + replies[1]) if ok == 1]
        for lock in locks:
            pipe.pttl(lock.name)
        s.t["pttls"] = sorted({ttl(value, LEASE) for value in pipe.execute()}, key=str)

    t = run(target, reference, scenario)
    assert t["acquired"] is True
    assert t["scripts"] == 2 and t["keys per script"] == [100, 50]
    assert t["renewed"] == [n for n in range(150) if n % 10]
    assert t["pttls"] == sorted({-2, ttl(LEASE, LEASE)}, key=str)


def test_rlock_unlock_wakes_a_waiter_subscribed_to_the_channel(target, reference):
    def scenario(s):
        a, b = s.client("A"), s.client("B")
        lock_a, lock_b = RLock(a, s.name("lock")), RLock(b, s.name("lock"))
        s.t["A tryLock"] = lock_a.try_lock(1)
        waiter = Waiter(lambda ready: lock_and_wait(s, lock_b, 1, ready))
        waiter.start()
        waiter.wait_ready()
        started = time.monotonic()
        s.t["A unlock"] = lock_a.unlock(1)
        s.t["B woken by"] = waiter.join_result()
        s.t.notes["wake-up s"] = time.monotonic() - started
        s.t["hash"] = hash_of(a, lock_a.name) == {lock_b.lock_name(1): "1"}

    t = run(target, reference, scenario)
    assert t["A tryLock"] is None and t["A unlock"] == 1
    assert t["B woken by"] == [("redisson_lock__channel:{~:lock}", b"0")]
    assert t["hash"] is True
    assert t.notes["wake-up s"] < WAIT_S  # the message, not the 30 s lease, woke it


def test_rlock_force_unlock_wakes_a_waiter(target, reference):
    def scenario(s):
        a, b = s.client("A"), s.client("B")
        lock_a, lock_b = RLock(a, s.name("lock")), RLock(b, s.name("lock"))
        lock_a.try_lock(1)
        sub = s.subscriber(b, lock_b.channel)
        s.t["B tryLock"] = ttl(lock_b.try_lock(1), LEASE)
        s.t["A forceUnlock"] = lock_a.force_unlock()
        s.t["B message"] = s.message(sub)
        s.t["B tryLock after"] = lock_b.try_lock(1)

    t = run(target, reference, scenario)
    assert t["B tryLock"] == ttl(LEASE, LEASE) and t["A forceUnlock"] == 1
    assert t["B message"] == ("redisson_lock__channel:{~:lock}", b"0")
    assert t["B tryLock after"] is None


def test_rlock_sharded_pubsub_wake_up_uses_spublish(target, reference):
    def scenario(s):
        a = s.client("A", publish_command="spublish")
        b = s.client("B", publish_command="spublish")
        lock_a, lock_b = RLock(a, s.name("lock")), RLock(b, s.name("lock"))
        lock_a.try_lock(1)
        waiter = Waiter(lambda ready: lock_and_wait(s, lock_b, 1, ready))
        waiter.start()
        waiter.wait_ready()
        s.t["A unlock"] = lock_a.unlock(1)
        s.t["B woken by"] = waiter.join_result()

    t = run(target, reference, scenario)
    assert t["A unlock"] == 1
    assert t["B woken by"] == [("redisson_lock__channel:{~:lock}", b"0")]


def test_rlock_names_with_a_hash_tag_keep_it(target, reference):
    def scenario(s):
        a = s.client("A")
        lock = RLock(a, "{%s}:order:42" % s.prefix)
        sub = s.subscriber(s.client("listener"), lock.channel)
        lock.try_lock(1)
        s.t["channel"] = s.relative(lock.channel)
        s.t["unlock"] = lock.unlock(1, request_id="r1")
        s.t["latch"] = s.relative(lock.unlock_latch_name("r1"))
        s.t["latch value"] = a.redis.get(lock.unlock_latch_name("r1"))
        s.t["message"] = s.message(sub)

    t = run(target, reference, scenario)
    assert t["channel"] == "redisson_lock__channel:{~}:order:42"
    assert t["unlock"] == 1
    assert t["latch"] == "redisson_unlock_latch:{~}:order:42:r1" and t["latch value"] == b"1"
    assert t["message"] == ("redisson_lock__channel:{~}:order:42", b"0")


# --- RFairLock ------------------------------------------------------------------------------------

def test_fair_lock_queues_waiters_and_signals_only_the_first(target, reference):
    wait = FAIR_LOCK_WAIT_TIMEOUT_MS

    def scenario(s):
        a, b, c = s.client("A"), s.client("B"), s.client("C")
        name = s.name("fair")
        fa, fb, fc = RFairLock(a, name), RFairLock(b, name), RFairLock(c, name)
        s.t["A lock"] = fa.try_lock(1)
        now = now_ms()
        ttl_b = fb.try_lock(1, now=now)
        s.t["B queued, ttl"] = ttl(ttl_b, LEASE)
        score_b = int(a.redis.zscore(fa.timeouts, fb.lock_name(1)))
        s.t["B timeout = ttl + wait + now"] = score_b == ttl_b + wait + now
        ttl_c = fc.try_lock(1, now=now)
        s.t["C ttl = B timeout - now"] = ttl_c == score_b - now
        score_c = int(a.redis.zscore(fa.timeouts, fc.lock_name(1)))
        s.t["C timeout = B timeout + wait"] = score_c == score_b + wait
        s.t["queue"] = a.redis.lrange(fa.queue, 0, -1) == [fb.lock_name(1).encode(),
                                                           fc.lock_name(1).encode()]
        s.t["B again, ttl"] = ttl(fb.try_lock(1), LEASE)
        s.t["C tryLock once"] = fc.try_lock_once(1)
        sub_b = s.subscriber(b, fb.waiter_channel(1))
        sub_c = s.subscriber(c, fc.waiter_channel(1))
        s.t["A unlock"] = fa.unlock(1)
        s.t["B message"] = s.message(sub_b)
        s.t["C next message"] = marker_follows(s, a, sub_c, fc.waiter_channel(1))
        s.t["C tryLock while B is first"] = fc.try_lock(1)
        s.t["B tryLock"] = fb.try_lock(1)
        s.t["queue after"] = a.redis.lrange(fa.queue, 0, -1) == [fc.lock_name(1).encode()]
        s.t["C timeout lowered by wait"] = \
            int(a.redis.zscore(fa.timeouts, fc.lock_name(1))) == score_c - wait
        s.t["holder"] = hash_of(a, name) == {fb.lock_name(1): "1"}

    t = run(target, reference, scenario)
    assert t["A lock"] is None and t["B queued, ttl"] == ttl(LEASE, LEASE)
    for step in ("B timeout = ttl + wait + now", "C ttl = B timeout - now",
                 "C timeout = B timeout + wait", "queue", "queue after",
                 "C timeout lowered by wait", "holder"):
        assert t[step] is True, step
    assert t["B again, ttl"] == ttl(LEASE, LEASE)
    assert t["C tryLock once"] == 1
    assert t["A unlock"] == 1
    assert t["B message"][1] == b"0"
    assert t["B message"][0].startswith("redisson_lock__channel:{~:fair}:")
    assert t["C next message"][1] == b"marker"
    assert t["C tryLock while B is first"] == 0  # max(0, PTTL of no key)
    assert t["B tryLock"] is None


def test_fair_lock_drops_a_stale_waiter(target, reference):
    def scenario(s):
        a, b, c = s.client("A"), s.client("B"), s.client("C")
        name = s.name("fair")
        fa, fb, fc = RFairLock(a, name), RFairLock(b, name), RFairLock(c, name)
        s.t["A lock, 300 ms lease"] = fa.try_lock(1, lease_ms=300)
        s.t["B tryLock(wait 200 ms), ttl"] = ttl(fb.try_lock(1, wait_ms=200), 300)
        s.t["C queued"] = isinstance(fc.try_lock(1), int)
        started = time.monotonic()
        s.t["C acquires once B is stale"] = wait_until(lambda: fc.try_lock(1) is None,
                                                       "C's acquisition")
        s.t.notes["waited s"] = time.monotonic() - started
        s.t["queue"] = a.redis.lrange(fa.queue, 0, -1)
        s.t["timeouts"] = a.redis.zrange(fa.timeouts, 0, -1)

    t = run(target, reference, scenario)
    assert t["A lock, 300 ms lease"] is None
    assert t["B tryLock(wait 200 ms), ttl"] == ttl(300, 300)
    assert t["C queued"] is True and t["C acquires once B is stale"] is True
    assert t["queue"] == [] and t["timeouts"] == []
    assert t.notes["waited s"] >= 0.3  # B's timeout: A's 300 ms lease plus its 200 ms wait


def test_fair_lock_waiter_that_gives_up_leaves_the_queue(target, reference):
    wait = FAIR_LOCK_WAIT_TIMEOUT_MS

    def scenario(s):
        a, b, c, d = s.client("A"), s.client("B"), s.client("C"), s.client("D")
        name = s.name("fair")
        fa, fb, fc, fd = (RFairLock(x, name) for x in (a, b, c, d))
        fa.try_lock(1)
        for lock in (fb, fc, fd):
            lock.try_lock(1)
        score_d = int(a.redis.zscore(fa.timeouts, fd.lock_name(1)))
        s.t["C gives up"] = fc.acquire_failed(1)
        s.t["queue"] = a.redis.lrange(fa.queue, 0, -1) == [fb.lock_name(1).encode(),
                                                           fd.lock_name(1).encode()]
        s.t["C timeout"] = a.redis.zscore(fa.timeouts, fc.lock_name(1))
        s.t["D timeout lowered by wait"] = \
            int(a.redis.zscore(fa.timeouts, fd.lock_name(1))) == score_d - wait

    t = run(target, reference, scenario)
    assert t["C gives up"] is None and t["C timeout"] is None
    assert t["queue"] is True and t["D timeout lowered by wait"] is True


def test_fair_lock_reentry_and_force_unlock_signal_the_first_waiter(target, reference):
    def scenario(s):
        a, b = s.client("A"), s.client("B")
        name = s.name("fair")
        fa, fb = RFairLock(a, name), RFairLock(b, name)
        s.t["A tryLock once"] = fa.try_lock_once(1)
        s.t["A tryLock once again"] = fa.try_lock_once(1)
        s.t["hold count"] = fa.hold_count(1)
        s.t["B tryLock once"] = fb.try_lock_once(1)
        s.t["queue after tryLock once"] = a.redis.llen(fa.queue)
        s.t["B tryLock, ttl"] = ttl(fb.try_lock(1), LEASE)
        sub_b = s.subscriber(b, fb.waiter_channel(1))
        s.t["A forceUnlock"] = fa.force_unlock()
        s.t["B message"] = s.message(sub_b)[1]
        s.t["B tryLock"] = fb.try_lock(1)
        s.t["queue"] = a.redis.llen(fa.queue)

    t = run(target, reference, scenario)
    assert t["A tryLock once"] is None and t["A tryLock once again"] is None
    assert t["hold count"] == 2
    assert t["B tryLock once"] == 1 and t["queue after tryLock once"] == 0
    assert t["B tryLock, ttl"] == ttl(LEASE, LEASE)
    assert t["A forceUnlock"] == 1 and t["B message"] == b"0"
    assert t["B tryLock"] is None and t["queue"] == 0


# --- RReadWriteLock -------------------------------------------------------------------------------

def test_readers_share_the_lock_and_keep_a_writer_out(target, reference):
    def scenario(s):
        a, b, c = s.client("A"), s.client("B"), s.client("C")
        name = s.name("rw")
        ra, rb, wc = RReadLock(a, name), RReadLock(b, name), RWriteLock(c, name)
        s.t["A read"] = ra.try_lock(1)
        s.t["B read"] = rb.try_lock(1)
        s.t["hash"] = hash_of(a, name) == {"mode": "read", ra.lock_name(1): "1",
                                           rb.lock_name(1): "1"}
        s.t["A timeout key"] = s.relative(ra.timeout_prefix(1) + ":1").replace(a.id, "<A>")
        s.t["A timeout key pttl"] = ttl(a.redis.pttl(ra.timeout_prefix(1) + ":1"), LEASE)
        s.t["isLocked"] = ra.is_locked()
        s.t["C write, ttl"] = ttl(wc.try_lock(1), LEASE)
        sub = s.subscriber(c, wc.channel)
        s.t["A unlock"] = ra.unlock(1)
        s.t["A timeout key after"] = a.redis.exists(ra.timeout_prefix(1) + ":1")
        s.t["C write while B reads, ttl"] = ttl(wc.try_lock(1), LEASE)
        s.t["B unlock"] = rb.unlock(1)
        s.t["message"] = s.message(sub)
        s.t["C write"] = wc.try_lock(1)
        s.t["hash after"] = hash_of(a, name) == {"mode": "write", wc.lock_name(1): "1"}

    t = run(target, reference, scenario)
    assert t["A read"] is None and t["B read"] is None and t["hash"] is True
    assert t["A timeout key"] == "{~:rw}:<A>:1:rwlock_timeout:1"
    assert t["A timeout key pttl"] == ttl(LEASE, LEASE)
    assert t["isLocked"] == 1
    assert t["C write, ttl"] == ttl(LEASE, LEASE)
    assert t["A unlock"] == 0 and t["A timeout key after"] == 0
    assert t["C write while B reads, ttl"] == ttl(LEASE, LEASE)
    assert t["B unlock"] == 1
    assert t["message"] == ("redisson_rwlock:{~:rw}", b"0")
    assert t["C write"] is None and t["hash after"] is True


def test_writer_excludes_readers_and_its_unlock_wakes_them_all(target, reference):
    def scenario(s):
        a, b, c, d = s.client("A"), s.client("B"), s.client("C"), s.client("D")
        name = s.name("rw")
        wc = RWriteLock(c, name)
        s.t["C write"] = wc.try_lock(1)
        s.t["D write, ttl"] = ttl(RWriteLock(d, name).try_lock(1), LEASE)
        s.t["isLocked (read view)"] = RReadLock(d, name).is_locked()
        readers = [RReadLock(a, name), RReadLock(b, name)]
        waiters = [Waiter(lambda ready, r=r: lock_and_wait(s, r, 1, ready)) for r in readers]
        for waiter in waiters:
            waiter.start()
        for waiter in waiters:
            waiter.wait_ready()
        s.t["C unlock"] = wc.unlock(1)
        s.t["readers woken by"] = [waiter.join_result() for waiter in waiters]
        s.t["hash"] = hash_of(a, name) == {"mode": "read", readers[0].lock_name(1): "1",
                                           readers[1].lock_name(1): "1"}

    t = run(target, reference, scenario)
    assert t["C write"] is None and t["D write, ttl"] == ttl(LEASE, LEASE)
    assert t["isLocked (read view)"] == 0  # mode write with one holder: hlen is 2
    assert t["C unlock"] == 1
    assert t["readers woken by"] == [[("redisson_rwlock:{~:rw}", b"1")]] * 2
    assert t["hash"] is True


def test_write_lock_is_reentrant_and_its_holder_may_also_read(target, reference):
    def scenario(s):
        a, b = s.client("A"), s.client("B")
        name = s.name("rw")
        wa, ra, rb = RWriteLock(a, name), RReadLock(a, name), RReadLock(b, name)
        s.t["A write"] = wa.try_lock(1)
        s.t["A write again"] = wa.try_lock(1)
        s.t["pttl: remaining + lease"] = ttl(a.redis.pttl(name), 2 * LEASE)
        s.t["A read"] = ra.try_lock(1)
        s.t["hash"] = hash_of(a, name) == {"mode": "write", wa.lock_name(1): "2",
                                           ra.lock_name(1): "1"}
        s.t["read isLocked"] = ra.is_locked()
        s.t["B read, ttl"] = ttl(rb.try_lock(1), 2 * LEASE)
        s.t["A write unlock"] = wa.unlock(1)
        s.t["A write unlock again"] = wa.unlock(1)
        s.t["hash after"] = hash_of(a, name) == {"mode": "read", ra.lock_name(1): "1"}
        s.t["B read"] = rb.try_lock(1)
        s.t["write forceUnlock in read mode"] = wa.force_unlock()
        s.t["read forceUnlock"] = ra.force_unlock()
        s.t["exists"] = a.redis.exists(name)

    t = run(target, reference, scenario)
    assert t["A write"] is None and t["A write again"] is None
    assert t["pttl: remaining + lease"] == ttl(2 * LEASE, 2 * LEASE)
    assert t["A read"] is None and t["hash"] is True and t["read isLocked"] == 1
    assert t["B read, ttl"] == ttl(2 * LEASE, 2 * LEASE)
    assert t["A write unlock"] == 0 and t["A write unlock again"] == 1
    assert t["hash after"] is True and t["B read"] is None
    assert t["write forceUnlock in read mode"] == 0 and t["read forceUnlock"] == 1
    assert t["exists"] == 0


def test_read_lock_watchdog_renews_the_hash_and_every_reader_timeout_key(target, reference):
    def scenario(s):
        a, b = s.client("A"), s.client("B")
        name = s.name("rw")
        ra, rb, rc = RReadLock(a, name), RReadLock(b, name), RReadLock(a, s.name("rw-none"))
        ra.try_lock(1)
        rb.try_lock(1)
        timeout_keys = [ra.timeout_prefix(1) + ":1", rb.timeout_prefix(1) + ":1"]
        for key in [name] + timeout_keys:
            a.redis.pexpire(key, 5000)
        s.t["renewal"] = renew_read_locks(a, [(ra, 1)])
        s.t["pttls"] = [ttl(a.redis.pttl(key), LEASE) for key in [name] + timeout_keys]
        s.t["renewal of a lock not held"] = renew_read_locks(a, [(rc, 1)])

    t = run(target, reference, scenario)
    assert t["renewal"] == [1]
    assert t["pttls"] == [ttl(LEASE, LEASE)] * 3
    assert t["renewal of a lock not held"] == [0]


def test_read_lock_renewal_of_a_reentrant_reader_fails_in_redisson_itself(target, reference):
    # ReadLockTask's inner loop reuses `i`, so KEYS[i+1] is KEYS[3] for a reader that holds
    # twice: nil with one lock renewed. Redisson 3.52 logs the error and reschedules; both
    # servers must fail the same way.
    def scenario(s):
        a = s.client("A")
        ra = RReadLock(a, s.name("rw"))
        ra.try_lock(1)
        ra.try_lock(1)
        try:
            renew_read_locks(a, [(ra, 1)])
            s.t["renewal"] = "no error"
        except ResponseError as error:
            s.t["renewal"] = str(error)

    t = run(target, reference, scenario)
    assert t["renewal"].startswith(
        "user_script:1: attempt to concatenate field '?' (a nil value) script: ")


# --- RFencedLock ----------------------------------------------------------------------------------

def test_fenced_lock_token_grows_with_every_acquisition(target, reference):
    def scenario(s):
        a, b = s.client("A"), s.client("B")
        name = s.name("fenced")
        fa, fb = RFencedLock(a, name), RFencedLock(b, name)
        s.t["A lockAndGetToken"] = fa.try_lock_and_get_token(1)
        s.t["A again (reentrant)"] = fa.try_lock_and_get_token(1)
        reply = fb.try_lock_and_get_token(1)
        s.t["B refused"] = [ttl(reply[0], LEASE), reply[1]]
        s.t["A unlock"] = fa.unlock(1)
        s.t["A unlock again"] = fa.unlock(1)
        s.t["B lockAndGetToken"] = fb.try_lock_and_get_token(1)
        s.t["B unlock"] = fb.unlock(1)
        s.t["A lock() script"] = fa.try_lock(1)
        s.t["getToken"] = a.redis.get(fa.token_name)
        s.t["token key"] = s.relative(fa.token_name)

    t = run(target, reference, scenario)
    assert t["A lockAndGetToken"] == [-1, 1] and t["A again (reentrant)"] == [-1, 2]
    assert t["B refused"] == [ttl(LEASE, LEASE), -1]
    assert t["A unlock"] == 0 and t["A unlock again"] == 1
    assert t["B lockAndGetToken"] == [-1, 3] and t["B unlock"] == 1
    assert t["A lock() script"] is None and t["getToken"] == b"4"
    assert t["token key"] == "redisson_lock_token:{~:fenced}"


def test_fenced_lock_tokens_are_unique_and_ordered_under_contention(target, reference):
    rounds, workers = 5, 4

    def worker(s, role, ready):
        client = s.client(role)
        lock = RFencedLock(client, s.name("fenced"))
        tokens = []
        sub = None
        ready.set()
        for _ in range(rounds):
            deadline = time.monotonic() + WAIT_S
            while True:  # tryLockAndGetTokenAsync: try, then wait for a message at most the TTL
                remaining_ms, token = lock.try_lock_and_get_token(1)
                if remaining_ms == -1:
                    break
                if sub is None:
                    sub = s.subscriber(client, lock.channel)
                    continue
                assert time.monotonic() < deadline, "no lock within %ds" % WAIT_S
                sub.next_message(min(remaining_ms / 1000, deadline - time.monotonic()))
            # Inside the lock: nobody else may be, and tokens only grow.
            assert client.redis.set(s.name("inside"), role, nx=True), "two holders"
            tokens.append(token)
            client.redis.delete(s.name("inside"))
            assert lock.unlock(1) == 1
        return tokens

    def scenario(s):
        waiters = [Waiter(lambda ready, n=n: worker(s, "W%d" % n, ready))
                   for n in range(workers)]
        for waiter in waiters:
            waiter.start()
        results = [waiter.join_result() for waiter in waiters]
        everyone = sorted(token for tokens in results for token in tokens)
        s.t["tokens"] = everyone
        s.t["each worker's tokens increase"] = all(tokens == sorted(tokens)
                                                   for tokens in results)
        s.t["getToken"] = int(s.client("reader").redis.get(
            RFencedLock(s.client("probe"), s.name("fenced")).token_name))

    t = run(target, reference, scenario)
    assert t["tokens"] == list(range(1, rounds * workers + 1))
    assert t["each worker's tokens increase"] is True
    assert t["getToken"] == rounds * workers


# --- RSemaphore -----------------------------------------------------------------------------------

def test_semaphore_permits_acquire_release_add_and_drain(target, reference):
    def scenario(s):
        a = s.client("A")
        sem = RSemaphore(a, s.name("sem"))
        sub = s.subscriber(s.client("listener"), sem.channel)
        s.t["trySetPermits 3"] = sem.try_set_permits(3)
        s.t["message"] = s.message(sub)
        s.t["trySetPermits again"] = sem.try_set_permits(5)
        s.t["availablePermits"] = sem.available_permits()
        s.t["tryAcquire 2"] = sem.try_acquire(2)
        s.t["tryAcquire 2 again"] = sem.try_acquire(2)
        s.t["available after"] = sem.available_permits()
        s.t["release 2"] = sem.release(2)
        s.t["release message"] = s.message(sub)[1]
        s.t["addPermits 2"] = sem.add_permits(2)
        s.t["add message"] = s.message(sub)[1]
        s.t["drainPermits"] = sem.drain_permits()
        s.t["tryAcquire after drain"] = sem.try_acquire(1)
        s.t["available after drain"] = sem.available_permits()
        s.t["drain of none"] = RSemaphore(a, s.name("none")).drain_permits()

    t = run(target, reference, scenario)
    assert t["trySetPermits 3"] == 1 and t["message"] == ("redisson_sc:{~:sem}", b"3")
    assert t["trySetPermits again"] == 0 and t["availablePermits"] == b"3"
    assert t["tryAcquire 2"] == 1 and t["tryAcquire 2 again"] == 0
    assert t["available after"] == b"1"
    assert t["release 2"] is None and t["release message"] == b"3"
    assert t["addPermits 2"] is None and t["add message"] == b"5"
    assert t["drainPermits"] == b"5" and t["tryAcquire after drain"] == 0
    assert t["available after drain"] == b"0" and t["drain of none"] == 0


def test_semaphore_permits_with_a_time_to_live(target, reference):
    def scenario(s):
        a = s.client("A")
        sem = RSemaphore(a, s.name("sem"))
        s.t["trySetPermits 2 for 5 s"] = sem.try_set_permits_with_ttl(2, 5000)
        s.t["pttl"] = ttl(a.redis.pttl(sem.name), 5000)
        s.t["again"] = sem.try_set_permits_with_ttl(4, 5000)
        s.t["available"] = sem.available_permits()

    t = run(target, reference, scenario)
    assert t["trySetPermits 2 for 5 s"] == 1 and t["pttl"] == ttl(5000, 5000)
    assert t["again"] == 0 and t["available"] == b"2"


def semaphore_acquire(s, sem, ready=None):
    """RedissonSemaphore.acquire(): try; subscribe; then try and wait for a release message."""
    if sem.try_acquire(1) == 1:
        return "at once"
    sub = s.subscriber(sem.client, sem.channel)
    deadline = time.monotonic() + WAIT_S
    while sem.try_acquire(1) != 1:
        if ready:
            ready.set()
        assert time.monotonic() < deadline, "no permit within %ds" % WAIT_S
        sub.next_message(deadline - time.monotonic())
    return "after waiting"


def test_semaphore_release_wakes_a_waiter(target, reference):
    def scenario(s):
        a, b = s.client("A"), s.client("B")
        sem_a, sem_b = RSemaphore(a, s.name("sem")), RSemaphore(b, s.name("sem"))
        sem_a.try_set_permits(1)
        s.t["A tryAcquire"] = sem_a.try_acquire(1)
        waiter = Waiter(lambda ready: semaphore_acquire(s, sem_b, ready))
        waiter.start()
        waiter.wait_ready()
        s.t["A release"] = sem_a.release(1)
        s.t["B acquire"] = waiter.join_result()
        s.t["available"] = sem_a.available_permits()

    t = run(target, reference, scenario)
    assert t["A tryAcquire"] == 1 and t["A release"] is None
    assert t["B acquire"] == "after waiting" and t["available"] == b"0"


def test_semaphore_limit_holds_under_several_concurrent_holders(target, reference):
    permits, workers, rounds = 2, 5, 4

    def worker(s, role, ready):
        client = s.client(role)
        sem = RSemaphore(client, s.name("sem"))
        ready.set()
        most = 0
        for _ in range(rounds):
            semaphore_acquire(s, sem)
            most = max(most, client.redis.incr(s.name("holders")))
            client.redis.decr(s.name("holders"))
            assert sem.release(1) is None
        return most

    def scenario(s):
        RSemaphore(s.client("owner"), s.name("sem")).try_set_permits(permits)
        waiters = [Waiter(lambda ready, n=n: worker(s, "W%d" % n, ready))
                   for n in range(workers)]
        for waiter in waiters:
            waiter.start()
        most = max(waiter.join_result() for waiter in waiters)
        s.t["at most the permits held at once"] = most <= permits
        s.t.notes["most holders at once"] = most
        reader = s.client("reader").redis
        s.t["available at the end"] = reader.get(s.name("sem"))
        s.t["holders at the end"] = reader.get(s.name("holders"))

    t = run(target, reference, scenario)
    assert t["at most the permits held at once"] is True
    assert t["available at the end"] == b"2" and t["holders at the end"] == b"0"


# --- RPermitExpirableSemaphore --------------------------------------------------------------------

def test_permit_expirable_semaphore_acquire_with_lease_and_release_by_id(target, reference):
    def scenario(s):
        a = s.client("A")
        sem = RPermitExpirableSemaphore(a, s.name("pes"))
        sub = s.subscriber(s.client("listener"), sem.channel)
        s.t["trySetPermits 2"] = sem.try_set_permits(2)
        s.t["set message"] = s.message(sub)
        now = now_ms()
        reply, (leased,) = sem.try_acquire(lease_ms=10000, now=now)
        s.t["acquire with a 10 s lease"] = reply
        s.t["its score"] = a.redis.zscore(sem.timeout_name, bytes.fromhex(leased)) == now + 10000
        reply, (kept,) = sem.try_acquire()
        s.t["acquire without a lease"] = reply
        s.t["its score is nonExpirableTimeout"] = \
            a.redis.zscore(sem.timeout_name, bytes.fromhex(kept)) == NON_EXPIRABLE_TIMEOUT
        reply, _ = sem.try_acquire(lease_ms=10000, now=now)
        s.t["none left: the nearest expiry"] = reply == (":%d" % (now + 10000)).encode()
        s.t["availablePermits"] = sem.available_permits()
        s.t["acquiredPermits"] = sem.acquired_permits()
        s.t["getPermits"] = sem.get_permits()
        s.t["getLeaseTime (leased)"] = sem.get_lease_time(leased, now=now)
        s.t["getLeaseTime (kept)"] = sem.get_lease_time(kept)
        s.t["release the leased one"] = sem.try_release(leased)
        s.t["release message"] = s.message(sub)
        s.t["release it again"] = sem.try_release(leased)
        s.t["again message"] = marker_follows(s, a, sub, sem.channel)[1]
        s.t["acquire the last"] = sem.try_acquire()[0]
        s.t["only unexpirable permits held"] = sem.try_acquire(lease_ms=10000)[0]
        s.t["timeout key"] = s.relative(sem.timeout_name)

    t = run(target, reference, scenario)
    assert t["trySetPermits 2"] == 1 and t["set message"] == ("redisson_sc:{~:pes}", b"2")
    assert t["acquire with a 10 s lease"] == b"OK" and t["its score"] is True
    assert t["acquire without a lease"] == b"OK"
    assert t["its score is nonExpirableTimeout"] is True
    assert t["none left: the nearest expiry"] is True
    assert t["availablePermits"] == b"0"
    assert t["acquiredPermits"] == 2 and t["getPermits"] == 2
    assert t["getLeaseTime (leased)"] == 10000 and t["getLeaseTime (kept)"] == -1
    assert t["release the leased one"] == 1
    assert t["release message"] == ("redisson_sc:{~:pes}", b"1")
    assert t["release it again"] == 0 and t["again message"] == b"marker"
    assert t["acquire the last"] == b"OK"
    assert t["only unexpirable permits held"] is None
    assert t["timeout key"] == "{~:pes}:timeout"


def test_permit_expirable_semaphore_expired_permits_come_back(target, reference):
    def scenario(s):
        a = s.client("A")
        sem = RPermitExpirableSemaphore(a, s.name("pes"))
        sem.try_set_permits(2)
        reply, ids = sem.try_acquire(permits=2, lease_ms=100)
        s.t["acquire 2 for 100 ms"] = reply
        s.t["permits held"] = a.redis.zcard(sem.timeout_name)
        sub = s.subscriber(s.client("listener"), sem.channel)
        replies = []
        wait_until(lambda: replies.append(sem.available_permits()) or replies[-1] != b"0",
                   "the permits' return")
        s.t["availablePermits before"] = set(replies[:-1]) <= {b"0"}
        s.t["availablePermits that takes them back"] = replies[-1]
        s.t["message"] = s.message(sub)
        s.t["permits held after"] = a.redis.zcard(sem.timeout_name)
        s.t["release the expired ids"] = sem.try_release_many(ids)
        s.t["release one expired id"] = sem.try_release(ids[0])
        s.t["availablePermits after"] = sem.available_permits()

    t = run(target, reference, scenario)
    assert t["acquire 2 for 100 ms"] == b"OK" and t["permits held"] == 2
    assert t["availablePermits before"] is True
    assert t["availablePermits that takes them back"] == 2  # INCRBY's integer, not GET's bulk
    assert t["message"] == ("redisson_sc:{~:pes}", b"2")
    assert t["permits held after"] == 0
    assert t["release the expired ids"] == 0 and t["release one expired id"] == 0
    assert t["availablePermits after"] == b"2"


def test_permit_expirable_semaphore_update_lease_release_many_and_set_permits(target,
                                                                             reference):
    def scenario(s):
        a = s.client("A")
        sem = RPermitExpirableSemaphore(a, s.name("pes"))
        s.t["setPermits 3"] = sem.set_permits(3)
        reply, ids = sem.try_acquire(permits=2, lease_ms=60000)
        s.t["acquire 2"] = reply
        s.t["updateLeaseTime 5 s"] = sem.update_lease_time(ids[0], 5000)
        s.t["getLeaseTime"] = ttl(sem.get_lease_time(ids[0]), 5000)
        s.t["updateLeaseTime of an unknown id"] = sem.update_lease_time("00" * 16, 5000)
        s.t["release both"] = sem.try_release_many(ids)
        s.t["available"] = sem.available_permits()
        s.t["setPermits 1"] = sem.set_permits(1)
        s.t["getPermits"] = sem.get_permits()
        s.t["available after"] = sem.available_permits()

    t = run(target, reference, scenario)
    assert t["setPermits 3"] is None and t["acquire 2"] == b"OK"
    assert t["updateLeaseTime 5 s"] == 1 and t["getLeaseTime"] == ttl(5000, 5000)
    assert t["updateLeaseTime of an unknown id"] == 0
    assert t["release both"] == 2 and t["available"] == b"3"
    assert t["setPermits 1"] is None and t["getPermits"] == 1
    assert t["available after"] == b"1"


# --- RCountDownLatch ------------------------------------------------------------------------------

def test_count_down_latch_counts_to_zero_publishes_and_deletes(target, reference):
    def scenario(s):
        a = s.client("A")
        latch = RCountDownLatch(a, s.name("latch"))
        sub = s.subscriber(s.client("listener"), latch.channel)
        s.t["trySetCount 2"] = latch.try_set_count(2)
        s.t["new count message"] = s.message(sub)
        s.t["trySetCount again"] = latch.try_set_count(5)
        s.t["countDown"] = latch.count_down()
        s.t["getCount"] = latch.get_count()
        s.t["countDown to zero"] = latch.count_down()
        s.t["zero message"] = s.message(sub)
        s.t["exists"] = a.redis.exists(latch.name)
        s.t["countDown below zero"] = latch.count_down()
        s.t["exists after"] = a.redis.exists(latch.name)
        s.t["next message"] = marker_follows(s, a, sub, latch.channel)[1]
        s.t["trySetCount 1"] = latch.try_set_count(1)
        s.t["delete"] = latch.delete()
        s.t["delete again"] = latch.delete()

    t = run(target, reference, scenario)
    assert t["trySetCount 2"] == 1
    assert t["new count message"] == ("redisson_countdownlatch__channel__{~:latch}", b"1")
    assert t["trySetCount again"] == 0
    assert t["countDown"] is None and t["getCount"] == 1
    assert t["countDown to zero"] is None
    assert t["zero message"] == ("redisson_countdownlatch__channel__{~:latch}", b"0")
    assert t["exists"] == 0
    assert t["countDown below zero"] is None and t["exists after"] == 0
    assert t["next message"] == b"marker"
    assert t["trySetCount 1"] == 1 and t["delete"] == 1 and t["delete again"] == 0


def test_count_down_latch_await_is_woken_by_the_last_count_down(target, reference):
    def await_latch(s, latch, ready):
        """RedissonCountDownLatch.await(): subscribe, then wait while getCount() > 0."""
        sub = s.subscriber(latch.client, latch.channel)
        deadline = time.monotonic() + WAIT_S
        woken_by = []
        while latch.get_count() > 0:
            ready.set()
            assert time.monotonic() < deadline, "not woken within %ds" % WAIT_S
            woken_by.append(s.message(sub, deadline - time.monotonic()))
        return woken_by

    def scenario(s):
        a, b = s.client("A"), s.client("B")
        latch = RCountDownLatch(a, s.name("latch"))
        s.t["trySetCount 2"] = latch.try_set_count(2)
        waiter = Waiter(lambda ready: await_latch(s, RCountDownLatch(b, latch.name), ready))
        waiter.start()
        waiter.wait_ready()
        s.t["countDown"] = latch.count_down()
        s.t["countDown again"] = latch.count_down()
        s.t["await woken by"] = waiter.join_result()

    t = run(target, reference, scenario)
    assert t["trySetCount 2"] == 1
    assert t["countDown"] is None and t["countDown again"] is None
    assert t["await woken by"] == [("redisson_countdownlatch__channel__{~:latch}", b"0")]
