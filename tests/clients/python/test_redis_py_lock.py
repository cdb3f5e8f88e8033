"""redis-py's Lock (Debian's python3-redis 4.3.4) against redis-server and warden.

Lock acquires with SET NX PX, and releases, extends and reacquires with three Lua scripts sent
by EVALSHA (falling back to SCRIPT LOAD on NOSCRIPT). Each test starts from FLUSHALL and
SCRIPT FLUSH, so the first script call of every test takes the NOSCRIPT path.
"""

import multiprocessing
import sys
import threading
import time

import pytest
import redis
from redis.exceptions import LockError, LockNotOwnedError, ResponseError

LOCK = "lock:order:1001"


@pytest.fixture
def r(target):
    client = redis.Redis(port=target.port, socket_timeout=10)
    client.flushall()
    client.script_flush()
    yield client
    client.close()


@pytest.fixture
def r2(target):
    """A second client: another process's connection to the same server."""
    client = redis.Redis(port=target.port, socket_timeout=10)
    yield client
    client.close()


def wait_until(condition, timeout):
    """Polls `condition` until it holds or `timeout` seconds pass; returns whether it held."""
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while not condition():
        if time.monotonic() > deadline:
            return False
        pause.wait(0.005)
    return True


def test_non_blocking_acquire_holds_the_key_and_refuses_a_second_holder(r, r2):
    first = r.lock(LOCK, timeout=10)
    second = r2.lock(LOCK, timeout=10)

    assert first.acquire(blocking=False) is True
    assert second.acquire(blocking=False) is False

    assert r.get(LOCK) == first.local.token
    assert 9000 < r.pttl(LOCK) <= 10000
    assert r.ttl(LOCK) == 10
    assert first.owned() is True
    assert second.owned() is False


def test_blocking_acquire_gives_up_after_blocking_timeout(r, r2):
    assert r.lock(LOCK, timeout=10).acquire(blocking=False)
    waiter = r2.lock(LOCK, timeout=10, sleep=0.05)

    start = time.monotonic()
    acquired = waiter.acquire(blocking=True, blocking_timeout=0.4)
    elapsed = time.monotonic() - start

    assert acquired is False
    assert 0.3 <= elapsed < 2.0
    assert waiter.local.token is None


def test_blocking_acquire_succeeds_once_the_holder_expires(r, r2):
    holder = r.lock(LOCK, timeout=0.3)
    assert holder.acquire(blocking=False)
    waiter = r2.lock(LOCK, timeout=10, sleep=0.02)

    start = time.monotonic()
    acquired = waiter.acquire(blocking=True, blocking_timeout=5)
    elapsed = time.monotonic() - start

    assert acquired is True
    assert 0.15 <= elapsed < 3.0
    assert r.get(LOCK) == waiter.local.token
    assert holder.owned() is False


def test_blocking_acquire_succeeds_once_another_thread_releases(r, r2):
    # The token must be visible to the timer's thread.
    holder = r.lock(LOCK, timeout=10, thread_local=False)
    assert holder.acquire(blocking=False)
    releaser = threading.Timer(0.3, holder.release)
    waiter = r2.lock(LOCK, timeout=10, sleep=0.02)

    releaser.start()
    try:
        start = time.monotonic()
        acquired = waiter.acquire(blocking_timeout=5)
        elapsed = time.monotonic() - start
    finally:
        releaser.join()

    assert acquired is True
    assert elapsed >= 0.2
    assert r.get(LOCK) == waiter.local.token


def test_blocking_timeout_in_the_constructor_applies_to_acquire(r, r2):
    assert r.lock(LOCK, timeout=10).acquire(blocking=False)
    waiter = r2.lock(LOCK, timeout=10, sleep=0.05, blocking_timeout=0.2)

    start = time.monotonic()
    assert waiter.acquire() is False
    assert time.monotonic() - start < 2.0


def test_lock_without_timeout_has_no_ttl(r):
    lock = r.lock(LOCK)
    assert lock.acquire(blocking=False)
    assert r.ttl(LOCK) == -1
    with pytest.raises(LockError, match="no timeout"):
        lock.extend(5)


def test_extend_adds_to_the_remaining_ttl(r):
    lock = r.lock(LOCK, timeout=10)
    assert lock.acquire(blocking=False)

    assert lock.extend(5) is True

    assert 14000 < r.pttl(LOCK) <= 15000
    assert r.get(LOCK) == lock.local.token


def test_extend_with_replace_ttl_sets_the_ttl(r):
    lock = r.lock(LOCK, timeout=10)
    assert lock.acquire(blocking=False)

    assert lock.extend(3, replace_ttl=True) is True

    assert 2000 < r.pttl(LOCK) <= 3000
    assert lock.extend(0.5, replace_ttl=True) is True
    assert 0 < r.pttl(LOCK) <= 500


def test_extend_with_fractional_seconds(r):
    lock = r.lock(LOCK, timeout=1)
    assert lock.acquire(blocking=False)
    assert lock.extend(1.5) is True
    assert 2000 < r.pttl(LOCK) <= 2500


def test_reacquire_resets_the_ttl_to_the_timeout(r):
    lock = r.lock(LOCK, timeout=10)
    assert lock.acquire(blocking=False)
    r.pexpire(LOCK, 1000)
    assert r.pttl(LOCK) <= 1000

    assert lock.reacquire() is True

    assert 9000 < r.pttl(LOCK) <= 10000
    assert lock.owned()


def test_owned_and_locked_follow_the_holder(r, r2):
    mine = r.lock(LOCK, timeout=10)
    theirs = r2.lock(LOCK, timeout=10)
    assert mine.locked() is False
    assert mine.owned() is False

    assert mine.acquire(blocking=False)
    assert mine.locked() is True and theirs.locked() is True
    assert mine.owned() is True and theirs.owned() is False

    mine.release()
    assert mine.locked() is False and theirs.locked() is False
    assert mine.owned() is False


def test_release_deletes_the_key_and_a_second_release_is_refused(r):
    lock = r.lock(LOCK, timeout=10)
    assert lock.acquire(blocking=False)

    lock.release()

    assert r.exists(LOCK) == 0
    with pytest.raises(LockError, match="Cannot release an unlocked lock"):
        lock.release()


def test_release_after_another_client_deleted_the_key_raises_not_owned(r):
    lock = r.lock(LOCK, timeout=10)
    assert lock.acquire(blocking=False)
    r.delete(LOCK)
    with pytest.raises(LockNotOwnedError):
        lock.release()


def test_expired_lock_taken_by_another_client_is_not_owned(r, r2):
    first = r.lock(LOCK, timeout=0.2)
    assert first.acquire(blocking=False)
    # The 200 ms lease runs out on the server's own clock: wait for that, bounded.
    assert wait_until(lambda: r.exists(LOCK) == 0, timeout=2.0)
    second = r2.lock(LOCK, timeout=10)
    assert second.acquire(blocking=False)

    with pytest.raises(LockNotOwnedError):
        first.extend(5)
    with pytest.raises(LockNotOwnedError):
        first.reacquire()
    assert first.owned() is False
    with pytest.raises(LockNotOwnedError):
        first.release()

    # The failed calls touched neither the value nor the TTL of the new holder's lock.
    assert r.get(LOCK) == second.local.token
    assert 9000 < r.pttl(LOCK) <= 10000
    second.release()
    assert r.exists(LOCK) == 0


def test_context_manager_holds_the_lock_inside_and_releases_it_after(r, r2):
    with r.lock(LOCK, timeout=10) as lock:
        assert r.get(LOCK) == lock.local.token
        assert r2.lock(LOCK, timeout=10).acquire(blocking=False) is False
        assert 9000 < r.pttl(LOCK) <= 10000
    assert r.exists(LOCK) == 0


def test_context_manager_raises_when_the_lock_is_held(r, r2):
    assert r.lock(LOCK, timeout=10).acquire(blocking=False)
    with pytest.raises(LockError, match="Unable to acquire lock"):
        with r2.lock(LOCK, timeout=10, blocking_timeout=0.1, sleep=0.02):
            pytest.fail("entered a lock that another client holds")


def test_context_manager_releases_when_the_body_raises(r):
    with pytest.raises(KeyError):
        with r.lock(LOCK, timeout=10):
            assert r.exists(LOCK) == 1
            raise KeyError("work failed")
    assert r.exists(LOCK) == 0


def test_scripts_survive_script_flush(r):
    lock = r.lock(LOCK, timeout=10)
    assert lock.acquire(blocking=False)
    assert lock.extend(1)  # loads the extend script
    r.script_flush()
    assert lock.extend(1)  # NOSCRIPT, then SCRIPT LOAD and EVALSHA again
    assert 11000 < r.pttl(LOCK) <= 12000
    lock.release()


def test_server_errors_reach_the_caller(r):
    with pytest.raises(ResponseError, match="^invalid expire time in 'set' command$"):
        r.set(LOCK, "x", px=0)
    with pytest.raises(ResponseError, match="^value is not an integer or out of range$"):
        r.execute_command("SET", LOCK, "x", "PX", "abc")
    assert r.exists(LOCK) == 0


WORKERS = 4
ROUNDS = 25


def _contend(port, worker):
    """One process: ROUNDS acquisitions; exits 1 if it ever saw another holder inside."""
    client = redis.Redis(port=port, socket_timeout=10)
    for _ in range(ROUNDS):
        lock = client.lock("lock:counter", timeout=5, sleep=0.002, blocking_timeout=20)
        if not lock.acquire():
            sys.exit("worker %d: acquire timed out" % worker)
        inside = client.incr("inside")
        if inside != 1:
            sys.exit("worker %d: %d holders at once" % (worker, inside))
        # A read-modify-write that loses updates unless the lock excludes the others.
        value = int(client.get("counter") or 0)
        client.ping()  # one more round trip inside the critical section widens the race window
        client.set("counter", value + 1)
        client.decr("inside")
        lock.release()
    client.close()


def test_processes_contending_for_one_lock_never_overlap(r, target):
    ctx = multiprocessing.get_context("fork")
    workers = [ctx.Process(target=_contend, args=(target.port, i)) for i in range(WORKERS)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)

    assert [w.exitcode for w in workers] == [0] * WORKERS
    assert int(r.get("counter")) == WORKERS * ROUNDS
    assert int(r.get("inside")) == 0
    assert r.exists("lock:counter") == 0
