"""Redisson 3.52.0's locks (RLock and its watchdog, RFairLock, RReadWriteLock, RFencedLock),
replayed, against redis-server and warden.

No JVM library can be installed here, so redisson_replay.py sends what Redisson 3.52.0 sends
(https://github.com/redisson/redisson, tag redisson-3.52.0, commit 3d8945a7225a; scripts from
redisson/src/main/java/org/redisson/ RedissonLock, RedissonBaseLock, renewal/LockTask,
renewal/ReadLockTask, RedissonFairLock, RedissonReadLock, RedissonWriteLock and
RedissonFencedLock .java): its Lua scripts verbatim, by EVALSHA with the NOSCRIPT fallback (its
default) or EVAL, with Redisson's KEYS, ARGV, key and channel names and "publish"/"spublish" as
an argument, over redis-py 4.3.4 (Debian python3-redis).
Waiters are real second connections subscribed to Redisson's channels, in threads where Redisson
would block. How a scenario runs on both servers is in redisson_fixtures.py.
"""

import time

import pytest
from redis.exceptions import ResponseError

from redisson_fixtures import WAIT_S, Waiter, marker_follows, run, ttl, wait_until
from redisson_replay import (FAIR_LOCK_WAIT_TIMEOUT_MS, LOCK_WATCHDOG_TIMEOUT_MS, RFairLock,
                             RFencedLock, RLock, RReadLock, RWriteLock, now_ms, renew_locks,
                             renew_read_locks)

LEASE = LOCK_WATCHDOG_TIMEOUT_MS



def hash_of(client, key):
    return {k.decode(): v.decode() for k, v in client.redis.hgetall(key).items()}


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
