"""Redisson 3.52.0's synchronizers (RSemaphore, RPermitExpirableSemaphore, RCountDownLatch),
replayed, against redis-server and warden.

No JVM library can be installed here, so redisson_replay.py sends what Redisson 3.52.0 sends
(https://github.com/redisson/redisson, tag redisson-3.52.0, commit 3d8945a7225a; scripts from
redisson/src/main/java/org/redisson/ RedissonSemaphore, RedissonPermitExpirableSemaphore and
RedissonCountDownLatch .java): its Lua scripts verbatim, by EVALSHA with the NOSCRIPT fallback
(its default) or EVAL, with Redisson's key and channel names and "publish"/"spublish" as an
argument, over redis-py 4.3.4 (Debian python3-redis).
Waiters are real second connections subscribed to Redisson's channels, in threads where Redisson
would block. How a scenario runs on both servers is in redisson_fixtures.py.
"""

import time

from redisson_fixtures import WAIT_S, Waiter, marker_follows, run, ttl, wait_until
from redisson_replay import (NON_EXPIRABLE_TIMEOUT, RCountDownLatch, RPermitExpirableSemaphore,
                             RSemaphore, now_ms)



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
