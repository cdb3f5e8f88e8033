"""python-redis-lock's protocol against redis-server and warden, replayed through redis-py.

python-redis-lock is not packaged for Debian, so this file sends what its `Lock` sends, in the
same order and with the same shapes, through Debian's python3-redis 4.3.4. Source:
github.com/ionelmc/python-redis-lock, tag v4.0.1 (its newest, commit 59fc29e9), file
src/redis_lock/__init__.py. The four Lua scripts below are copied from it byte for byte; the
library registers them with redis-py's register_script, so they go out as EVALSHA with the
NOSCRIPT fallback (SCRIPT LOAD, then EVALSHA again), as here.

    acquire   SET lock:<name> <id> NX [EX <expire s>]; while busy and blocking,
              BLPOP lock-signal:<name> <timeout or expire or 0>, then SET again
    release   UNLOCK_SCRIPT  KEYS lock, signal  ARGV id, signal_expire ms -> 0, or 1 if not owner
    extend    EXTEND_SCRIPT  KEYS lock, signal  ARGV id, expire s -> 0; 1 not owner; 2 no TTL
    reset     RESET_SCRIPT   KEYS lock, signal  ARGV id, signal_expire ms -> DEL's count
    reset_all RESET_ALL_SCRIPT, no keys: every lock:* of the database -> how many
    auto_renewal  a thread running extend every expire * 2 / 3 seconds

Releasing pushes one element onto the signal list, so a waiter blocked in BLPOP wakes at once
and retries its SET. Each scenario records every reply in a Transcript; on warden the same
scenario also runs on redis-server, and the two transcripts must be equal. Lock names carry a
uuid per test, the same on both servers, so the transcripts can hold the key names.
"""

import threading
import time
import uuid
from base64 import b64encode
from os import urandom

import pytest
import redis

from blocking_transcripts import Transcript, same_as_redis

WAIT_S = 5

UNLOCK_SCRIPT = b"""
    if redis.call("get", KEYS[1]) ~= ARGV[1] then
        return 1
    else
        redis.call("del", KEYS[2])
        redis.call("lpush", KEYS[2], 1)
        redis.call("pexpire", KEYS[2], ARGV[2])
        redis.call("del", KEYS[1])
        return 0
    end
"""

EXTEND_SCRIPT = b"""
    if redis.call("get", KEYS[1]) ~= ARGV[1] then
        return 1
    elseif redis.call("ttl", KEYS[1]) < 0 then
        return 2
    else
        redis.call("expire", KEYS[1], ARGV[2])
        return 0
    end
"""

RESET_SCRIPT = b"""
    redis.call('del', KEYS[2])
    redis.call('lpush', KEYS[2], 1)
    redis.call('pexpire', KEYS[2], ARGV[2])
    return redis.call('del', KEYS[1])
"""

RESET_ALL_SCRIPT = b"""
    local locks = redis.call('keys', 'lock:*')
    local signal
    for _, lock in pairs(locks) do
        signal = 'lock-signal:' .. string.sub(lock, 6)
        redis.call('del', signal)
        redis.call('lpush', signal, 1)
        redis.call('expire', signal, 1)
        redis.call('del', lock)
    end
    return #locks
"""

# RESET_ALL_SCRIPT reaches every lock:* key of its database, so its scenario owns this one.
RESET_ALL_DB = 11


class ReplayedLock:
    """python-redis-lock's Lock, reduced to the commands it sends. Each call returns what the
    server replied (a script's return code rather than the library's exception) and appends
    every reply to `replies`, which a scenario copies into its transcript."""

    def __init__(self, client, name, expire=None, id=None, signal_expire=1000):
        self.client = client
        self.name = "lock:" + name
        self.signal = "lock-signal:" + name
        self.expire = expire
        self.id = id if id is not None else b64encode(urandom(18)).decode("ascii")
        self.signal_expire = signal_expire
        self.replies = []
        self.unlock_script = client.register_script(UNLOCK_SCRIPT)
        self.extend_script = client.register_script(EXTEND_SCRIPT)
        self.reset_script = client.register_script(RESET_SCRIPT)

    def _record(self, reply):
        self.replies.append(reply)
        return reply

    def acquire(self, blocking=True, timeout=None):
        """The library's loop: SET NX EX, and while busy one BLPOP on the signal list. A BLPOP
        that times out with a timeout given ends the wait after one more SET."""
        blpop_timeout = timeout or self.expire or 0
        timed_out = False
        while True:
            if self._record(self.client.set(self.name, self.id, nx=True, ex=self.expire)):
                return True
            if timed_out or not blocking:
                return False
            timed_out = not self._record(self.client.blpop(self.signal, blpop_timeout)) \
                and bool(timeout)

    def release(self):
        return self._record(self.unlock_script(
            client=self.client, keys=(self.name, self.signal), args=(self.id, self.signal_expire)))

    def extend(self, expire=None):
        return self._record(self.extend_script(
            client=self.client, keys=(self.name, self.signal),
            args=(self.id, expire or self.expire)))

    def reset(self):
        return self._record(self.reset_script(
            client=self.client, keys=(self.name, self.signal), args=(self.id, self.signal_expire)))


def within(value, low, high):
    """A TTL as a transcript step: whether it lies in (low, high]."""
    return low < value <= high


class Waiter(threading.Thread):
    """Runs lock.acquire(**kwargs) on its own connection; `result` and `elapsed` once done."""

    def __init__(self, lock, **kwargs):
        super().__init__(daemon=True)
        self.lock, self.kwargs = lock, kwargs
        self.result = self.elapsed = self.done_at = None
        self.client_id = lock.client.client_id()  # the pool's one connection, which BLPOP reuses

    def run(self):
        start = time.monotonic()
        self.result = self.lock.acquire(**self.kwargs)
        self.done_at = time.monotonic()
        self.elapsed = self.done_at - start

    def finish(self):
        self.join(WAIT_S + 2)
        assert not self.is_alive(), "the waiter is still blocked"


def wait_blocked(observer, client_id):
    """Polls CLIENT LIST until the client is blocked in BLPOP; fails after WAIT_S seconds."""
    deadline = time.monotonic() + WAIT_S
    while True:
        [entry] = observer.client_list(client_id=[str(client_id)])
        if "b" in entry["flags"] and entry["cmd"] == "blpop":
            return
        assert time.monotonic() < deadline, "client %d did not block: %r" % (client_id, entry)


@pytest.fixture
def name():
    return "prl-" + uuid.uuid4().hex


@pytest.fixture
def clients():
    """clients(port, n): n new connections to the server, all closed at the end of the test."""
    made = []

    def connect(port, count, db=0):
        new = [redis.Redis(port=port, db=db, socket_timeout=WAIT_S + 5) for _ in range(count)]
        made.extend(new)
        return new

    yield connect
    for client in made:
        client.close()


def test_acquire_refuses_a_second_holder_and_release_leaves_a_signal(target, reference, name,
                                                                     clients):
    def scenario(port):
        r, r2 = clients(port, 2)
        r.script_flush()  # the first call of each script takes the NOSCRIPT path
        t = Transcript()
        first = ReplayedLock(r, name, expire=10)
        second = ReplayedLock(r2, name, expire=10)
        t["first acquire"] = first.acquire(blocking=False)
        t["second acquire"] = second.acquire(blocking=False)
        t["second replies"] = list(second.replies)
        t["holder is first"] = r.get("lock:" + name) == first.id.encode()
        t["ttl"] = r.ttl("lock:" + name)
        t["signal before release"] = r.exists("lock-signal:" + name)
        t["release"] = first.release()
        t["lock after release"] = r.exists("lock:" + name)
        t["signal after release"] = r.lrange("lock-signal:" + name, 0, -1)
        t["signal pttl"] = within(r.pttl("lock-signal:" + name), 0, 1000)
        t["second acquires"] = second.acquire(blocking=False)
        t["holder is second"] = r.get("lock:" + name) == second.id.encode()
        t["second releases"] = second.release()
        return t

    t = same_as_redis(target, reference, scenario)
    assert t["first acquire"] is True and t["second acquire"] is False
    assert t["second replies"] == [None]
    assert t["holder is first"] and t["ttl"] == 10
    assert t["signal before release"] == 0
    assert t["release"] == 0 and t["lock after release"] == 0
    assert t["signal after release"] == [b"1"] and t["signal pttl"]
    assert t["second acquires"] is True and t["holder is second"]
    assert t["second releases"] == 0


def test_release_wakes_a_waiter_blocked_in_blpop_at_once(target, reference, name, clients):
    def scenario(port):
        r, r2, observer = clients(port, 3)
        t = Transcript()
        holder = ReplayedLock(r, name, expire=30)
        t["holder acquires"] = holder.acquire()
        # The waiter's BLPOP timeout is the lock's expire, 30 s: only the signal wakes it soon.
        waiter = Waiter(ReplayedLock(r2, name, expire=30))
        waiter.start()
        wait_blocked(observer, waiter.client_id)
        released_at = time.monotonic()
        t["release"] = holder.release()
        waiter.finish()
        t["waiter acquired"] = waiter.result
        t["waiter replies"] = list(waiter.lock.replies)
        t["holder is waiter"] = r.get("lock:" + name) == waiter.lock.id.encode()
        t["signal consumed"] = r.exists("lock-signal:" + name)
        t["waiter releases"] = waiter.lock.release()
        t.notes["wake-up"] = waiter.done_at - released_at
        return t

    t = same_as_redis(target, reference, scenario)
    assert t["holder acquires"] is True and t["release"] == 0
    assert t["waiter acquired"] is True
    assert t["waiter replies"] == [None, (("lock-signal:" + name).encode(), b"1"), True]
    assert t["holder is waiter"] and t["signal consumed"] == 0
    assert t["waiter releases"] == 0
    assert t.notes["wake-up"] < 2.0


def test_a_waiter_with_a_timeout_gives_up_after_one_blpop(target, reference, name, clients):
    def scenario(port):
        r, r2 = clients(port, 2)
        t = Transcript()
        holder = ReplayedLock(r, name, expire=10)
        t["holder acquires"] = holder.acquire()
        waiter = ReplayedLock(r2, name, expire=10)
        start = time.monotonic()
        t["waiter acquires"] = waiter.acquire(timeout=1)
        t.notes["waited"] = time.monotonic() - start
        t["waiter replies"] = list(waiter.replies)
        t["holder still holds"] = r.get("lock:" + name) == holder.id.encode()
        t["release"] = holder.release()
        return t

    t = same_as_redis(target, reference, scenario)
    assert t["waiter acquires"] is False
    assert t["waiter replies"] == [None, None, None]  # SET, BLPOP timing out, SET
    assert t["holder still holds"] and t["release"] == 0
    assert 0.9 <= t.notes["waited"] < 3.0


def test_release_by_a_non_owner_is_refused_with_code_1(target, reference, name, clients):
    def scenario(port):
        r, r2 = clients(port, 2)
        t = Transcript()
        owner = ReplayedLock(r, name, expire=10)
        other = ReplayedLock(r2, name, expire=10)
        t["owner acquires"] = owner.acquire(blocking=False)
        t["other releases"] = other.release()
        t["owner still holds"] = r.get("lock:" + name) == owner.id.encode()
        t["ttl untouched"] = r.ttl("lock:" + name)
        t["no signal"] = r.exists("lock-signal:" + name)
        # The library's way to release a lock taken elsewhere: a Lock built with its id.
        t["release by id"] = ReplayedLock(r2, name, id=owner.id).release()
        t["lock gone"] = r.exists("lock:" + name)
        t["release of a free lock"] = owner.release()
        return t

    t = same_as_redis(target, reference, scenario)
    assert t["owner acquires"] is True
    assert t["other releases"] == 1
    assert t["owner still holds"] and t["ttl untouched"] == 10 and t["no signal"] == 0
    assert t["release by id"] == 0 and t["lock gone"] == 0
    assert t["release of a free lock"] == 1


def test_extend_sets_the_expire_and_reports_owner_and_ttl_codes(target, reference, name,
                                                              clients):
    def scenario(port):
        r, r2 = clients(port, 2)
        t = Transcript()
        lock = ReplayedLock(r, name, expire=10)
        t["acquire"] = lock.acquire()
        r.pexpire("lock:" + name, 2000)
        t["extend"] = lock.extend(30)
        t["ttl after extend"] = r.ttl("lock:" + name)
        t["extend to the constructor's expire"] = lock.extend()
        t["ttl reset to 10"] = r.ttl("lock:" + name)
        t["extend by a non-owner"] = ReplayedLock(r2, name, expire=10).extend(60)
        t["ttl untouched"] = r.ttl("lock:" + name)
        t["release"] = lock.release()
        t["extend after release"] = lock.extend(5)
        # A lock without expire is SET without EX: extending it is refused with code 2.
        forever = ReplayedLock(r, name + "-forever")
        t["acquire without expire"] = forever.acquire()
        t["ttl without expire"] = r.ttl("lock:" + name + "-forever")
        t["extend without ttl"] = forever.extend(5)
        t["still no ttl"] = r.ttl("lock:" + name + "-forever")
        t["release without expire"] = forever.release()
        return t

    t = same_as_redis(target, reference, scenario)
    assert t["acquire"] is True
    assert t["extend"] == 0 and t["ttl after extend"] == 30
    assert t["extend to the constructor's expire"] == 0 and t["ttl reset to 10"] == 10
    assert t["extend by a non-owner"] == 1 and t["ttl untouched"] == 10
    assert t["release"] == 0 and t["extend after release"] == 1
    assert t["acquire without expire"] is True and t["ttl without expire"] == -1
    assert t["extend without ttl"] == 2 and t["still no ttl"] == -1
    assert t["release without expire"] == 0


class Renewer(threading.Thread):
    """The library's auto_renewal thread: extend(expire) every expire * 2 / 3 seconds until
    stopped. `codes` collects the script's replies."""

    def __init__(self, lock):
        super().__init__(daemon=True)
        self.lock, self.stop, self.codes = lock, threading.Event(), []

    def run(self):
        while not self.stop.wait(timeout=self.lock.expire * 2 / 3):
            self.codes.append(self.lock.extend(self.lock.expire))

    def finish(self):
        self.stop.set()
        self.join(WAIT_S)
        assert not self.is_alive()


def test_auto_renewal_keeps_a_one_second_lock_past_its_expire(target, reference, name,
                                                               clients):
    def scenario(port):
        r, r2, r3 = clients(port, 3)
        t = Transcript()
        lock = ReplayedLock(r, name, expire=1)
        t["acquire"] = lock.acquire()
        renewer = Renewer(ReplayedLock(r2, name, expire=1, id=lock.id))
        renewer.start()
        contender = ReplayedLock(r3, name, expire=1)
        refused = []
        deadline = time.monotonic() + WAIT_S
        # Three renewals take 2 s, twice the expire: the contender keeps trying meanwhile.
        pause = threading.Event()
        while len(renewer.codes) < 3 and time.monotonic() < deadline:
            refused.append(contender.acquire(blocking=False))
            pause.wait(0.02)
        renewer.finish()
        t["renewals"] = renewer.codes[:3]
        t["contender never got it"] = set(refused)
        t["still the holder"] = r.get("lock:" + name) == lock.id.encode()
        t["release"] = lock.release()
        return t

    t = same_as_redis(target, reference, scenario)
    assert t["acquire"] is True
    assert t["renewals"] == [0, 0, 0]
    assert t["contender never got it"] == {False}
    assert t["still the holder"] and t["release"] == 0


def test_reset_deletes_the_lock_and_wakes_a_waiter(target, reference, name, clients):
    def scenario(port):
        r, r2, r3, observer = clients(port, 4)
        t = Transcript()
        holder = ReplayedLock(r, name, expire=30)
        t["holder acquires"] = holder.acquire()
        # Without expire or timeout, the waiter's BLPOP timeout is 0: it waits for the signal.
        waiter = Waiter(ReplayedLock(r2, name))
        waiter.start()
        wait_blocked(observer, waiter.client_id)
        # reset() is anyone's: a Lock with another id deletes the holder's key.
        t["reset"] = ReplayedLock(r3, name).reset()
        waiter.finish()
        t["waiter acquired"] = waiter.result
        t["waiter replies"] = list(waiter.lock.replies)
        t["waiter's lock has no ttl"] = r.ttl("lock:" + name)
        t["holder lost it"] = holder.release()
        t["waiter releases"] = waiter.lock.release()
        t["reset of a free lock"] = ReplayedLock(r3, name).reset()
        t["signal left"] = r.lrange("lock-signal:" + name, 0, -1)
        t["signal pttl"] = within(r.pttl("lock-signal:" + name), 0, 1000)
        return t

    t = same_as_redis(target, reference, scenario)
    assert t["holder acquires"] is True and t["reset"] == 1
    assert t["waiter acquired"] is True
    assert t["waiter replies"] == [None, (("lock-signal:" + name).encode(), b"1"), True]
    assert t["waiter's lock has no ttl"] == -1
    assert t["holder lost it"] == 1 and t["waiter releases"] == 0
    assert t["reset of a free lock"] == 0
    # The waiter's release left one element, and the reset replaced it with its own.
    assert t["signal left"] == [b"1"] and t["signal pttl"]


def test_reset_all_frees_every_lock_of_the_database(target, reference, name, clients):
    def scenario(port):
        r, r2, observer = clients(port, 3, db=RESET_ALL_DB)
        r.flushdb()
        t = Transcript()
        locks = [ReplayedLock(r, "%s-%d" % (name, i), expire=30) for i in range(3)]
        t["acquired"] = [lock.acquire() for lock in locks]
        r.set("other:" + name, "kept")
        r.set("lock", "no colon: not a lock")
        waiter = Waiter(ReplayedLock(r2, name + "-0", expire=30))
        waiter.start()
        wait_blocked(observer, waiter.client_id)
        reset_all = r.register_script(RESET_ALL_SCRIPT)
        t["reset_all"] = reset_all(client=r)
        waiter.finish()
        t["waiter acquired"] = waiter.result
        t["waiter replies"] = list(waiter.lock.replies)
        t["locks left"] = sorted(r.keys("lock:*"))
        t["signals"] = {k: r.lrange(k, 0, -1) for k in sorted(r.keys("lock-signal:*"))}
        t["signal ttls"] = [r.ttl("lock-signal:%s-%d" % (name, i)) for i in (1, 2)]
        t["others"] = [r.get("other:" + name), r.get("lock")]
        t["waiter releases"] = waiter.lock.release()
        r.flushdb()
        return t

    t = same_as_redis(target, reference, scenario)
    signal = ("lock-signal:%s-%%d" % name).encode()
    assert t["acquired"] == [True, True, True] and t["reset_all"] == 3
    assert t["waiter acquired"] is True
    assert t["waiter replies"] == [None, (signal % 0, b"1"), True]
    assert t["locks left"] == [("lock:%s-0" % name).encode()]  # the waiter's
    assert t["signals"] == {signal % 1: [b"1"], signal % 2: [b"1"]}
    assert t["signal ttls"] == [1, 1]
    assert t["others"] == [b"kept", b"no colon: not a lock"]
    assert t["waiter releases"] == 0
