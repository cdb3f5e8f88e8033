"""Redisson's locks and synchronizers, replayed from Python: the Lua scripts byte for byte, sent
with the KEYS and ARGV that Redisson builds, over redis-py (Debian python3-redis 4.3.4).

No JVM library can be installed here, so test_redisson_locks.py and test_redisson_sync.py drive
this replay instead of Redisson. The scripts themselves are in redisson_lock_scripts.py and
redisson_sync_scripts.py.

Source: https://github.com/redisson/redisson, tag redisson-3.52.0
(commit 3d8945a7225a8909f5ffa8000e81dab193760e43), under
redisson/src/main/java/org/redisson/:
  RedissonLock.java (tryLockInnerAsync, unlockInnerAsync, forceUnlockAsync), RedissonBaseLock.java
  (lock and latch names, unlockInnerAsync's timeout and latch DEL), renewal/LockTask.java and
  renewal/ReadLockTask.java (the watchdog: one script renews up to lockWatchdogBatchSize = 100
  locks; since 3.44.0 this replaces the per-lock renewExpirationAsync), RedissonFairLock.java,
  RedissonReadLock.java, RedissonWriteLock.java, RedissonFencedLock.java, RedissonSemaphore.java,
  RedissonPermitExpirableSemaphore.java, RedissonCountDownLatch.java, RedissonObject.java
  (prefixName/suffixName), pubsub/LockPubSub.java, pubsub/CountDownLatchPubSub.java,
  command/CommandAsyncService.java (evalAsync), config/Config.java and config/BaseConfig.java
  (the defaults used below).

How Redisson sends a script (CommandAsyncService.evalAsync): with Config.useScriptCache, true by
default since 3.46.0, it sends EVALSHA <sha1> <numkeys> KEYS... ARGV...; on a NOSCRIPT error it
sends SCRIPT LOAD <script> and the same EVALSHA again. With useScriptCache false it
sends EVAL <script> <numkeys> KEYS... ARGV.... Numbers go as decimal strings (LongCodec). The
publish command is an argument: "publish", or "spublish" when sharded pub/sub is in use
(PublishSubscribeService.getPublishCommand). Waiters SUBSCRIBE (or SSUBSCRIBE) to the object's
channel and read the message as a number (LockPubSub: 0 = unlock, 1 = read unlock).
"""

import hashlib
import random
import time
import uuid

import redis
from redis.exceptions import NoScriptError

from redisson_lock_scripts import (FAIR_ACQUIRE_FAILED, FAIR_FORCE_UNLOCK, FAIR_TRY_LOCK,
                                   FAIR_TRY_LOCK_ONCE, FAIR_UNLOCK, FENCED_TRY_LOCK,
                                   FENCED_TRY_LOCK_AND_GET_TOKEN, LOCK_FORCE_UNLOCK, LOCK_RENEW,
                                   LOCK_TRY_LOCK, LOCK_UNLOCK, READ_FORCE_UNLOCK, READ_IS_LOCKED,
                                   READ_LOCK_RENEW, READ_TRY_LOCK, READ_UNLOCK, WRITE_FORCE_UNLOCK,
                                   WRITE_TRY_LOCK, WRITE_UNLOCK)
from redisson_sync_scripts import (LATCH_COUNT_DOWN, LATCH_DELETE, LATCH_TRY_SET_COUNT,
                                   PES_ACQUIRED_PERMITS, PES_AVAILABLE_PERMITS, PES_GET_LEASE_TIME,
                                   PES_GET_PERMITS, PES_SET_PERMITS, PES_TRY_ACQUIRE,
                                   PES_TRY_RELEASE, PES_TRY_RELEASE_MANY, PES_UPDATE_LEASE_TIME,
                                   SEMAPHORE_ADD_PERMITS, SEMAPHORE_DRAIN, SEMAPHORE_RELEASE,
                                   SEMAPHORE_TRY_ACQUIRE, SEMAPHORE_TRY_SET_PERMITS,
                                   SEMAPHORE_TRY_SET_PERMITS_TTL)

LOCK_WATCHDOG_TIMEOUT_MS = 30000  # Config.lockWatchdogTimeout: the lease of lock() without one
LOCK_WATCHDOG_BATCH_SIZE = 100  # Config.lockWatchdogBatchSize: locks renewed per script
FAIR_LOCK_WAIT_TIMEOUT_MS = 5 * 60000  # Config.fairLockWaitTimeout
UNLOCK_MESSAGE = 0  # LockPubSub.UNLOCK_MESSAGE
READ_UNLOCK_MESSAGE = 1  # LockPubSub.READ_UNLOCK_MESSAGE
ZERO_COUNT_MESSAGE = 0  # CountDownLatchPubSub.ZERO_COUNT_MESSAGE
NEW_COUNT_MESSAGE = 1  # CountDownLatchPubSub.NEW_COUNT_MESSAGE
NON_EXPIRABLE_TIMEOUT = 922337203685477  # RedissonPermitExpirableSemaphore.nonExpirableTimeout


def prefix_name(prefix, name):
    """RedissonObject.prefixName: the name gets a {hash tag} unless it has one."""
    return "%s:%s" % (prefix, name) if "{" in name else "%s:{%s}" % (prefix, name)


def suffix_name(name, suffix):
    """RedissonObject.suffixName."""
    return "%s:%s" % (name, suffix) if "{" in name else "{%s}:%s" % (name, suffix)


def now_ms():
    """System.currentTimeMillis(), which Redisson passes to the fair lock and semaphore scripts."""
    return int(time.time() * 1000)




# --- A Redisson instance and its objects --------------------------------------------------------

class Redisson:
    """One Redisson instance as a server sees it: ServiceManager's id (a UUID) in every lock
    name, one command connection, the script cache (EVALSHA, then SCRIPT LOAD on NOSCRIPT) or
    plain EVAL, and "publish" or "spublish" as the publish command. `role` makes the id, the
    request ids and the permit ids the same on every server, so two runs can be compared."""

    def __init__(self, port, role, run, use_script_cache=True, publish_command="publish"):
        self.port = port
        self.id = str(uuid.uuid5(uuid.NAMESPACE_URL, "%s/%s" % (run, role)))
        self.redis = redis.Redis(port=port, socket_timeout=10)
        self.use_script_cache = use_script_cache
        self.publish_command = publish_command
        self.sharded = publish_command == "spublish"
        self.random = random.Random("%s/%s" % (run, role))
        self.sent = []  # (command, sha or script) of every script call, in order

    def close(self):
        self.redis.close()

    def eval(self, script, keys, *args):
        """CommandAsyncService.evalAsync for a write script."""
        if not self.use_script_cache:
            self.sent.append(("EVAL", script))
            return self.redis.execute_command("EVAL", script, len(keys), *keys, *args)
        sha = hashlib.sha1(script.encode()).hexdigest()
        self.sent.append(("EVALSHA", sha))
        try:
            return self.redis.execute_command("EVALSHA", sha, len(keys), *keys, *args)
        except NoScriptError:
            self.sent.append(("SCRIPT LOAD", script))
            loaded = self.redis.execute_command("SCRIPT", "LOAD", script)
            assert loaded == sha.encode(), (loaded, sha)
            self.sent.append(("EVALSHA", sha))
            return self.redis.execute_command("EVALSHA", sha, len(keys), *keys, *args)

    def generate_id(self):
        """ServiceManager.generateId: 16 random bytes as hex."""
        return self.random.randbytes(16).hex()

    def unlock_timeout_ms(self):
        """RedissonBaseLock.unlockInnerAsync's latch lifetime with the default config:
        (timeout 3000 + EqualJitterDelay(1 s, 2 s).calcDelay(4)) * retryAttempts 4."""
        return (3000 + 1000 + self.random.randint(0, 1000)) * 4

    def subscriber(self):
        """A pub/sub connection, as Redisson's PublishSubscribeService keeps one."""
        return Subscriber(self.port, self.sharded)


class Subscriber:
    """Redisson's subscription to one channel: SUBSCRIBE (or SSUBSCRIBE) and wait for the
    confirmation, then messages read as numbers."""

    def __init__(self, port, sharded):
        self.connection = redis.Redis(port=port, socket_timeout=10)
        self.pubsub = self.connection.pubsub()
        self.sharded = sharded

    def subscribe(self, channel, timeout=5):
        kind = "ssubscribe" if self.sharded else "subscribe"
        self.pubsub.execute_command(kind.upper(), channel)
        confirmation = self.pubsub.parse_response(block=False, timeout=timeout)
        assert confirmation is not None, "no %s confirmation" % kind
        assert confirmation[0] == kind.encode() and confirmation[1] == channel.encode(), \
            confirmation

    def next_message(self, timeout):
        """The next (channel, payload) message, or None after `timeout` seconds."""
        reply = self.pubsub.parse_response(block=False, timeout=max(timeout, 0))
        if reply is None:
            return None
        kind = b"smessage" if self.sharded else b"message"
        assert reply[0] == kind, reply
        return reply[1].decode(), reply[2]

    def close(self):
        self.pubsub.close()
        self.connection.close()


class RLock:
    """RedissonLock: a hash {lock name: hold count} with a lease. A lock name is
    "<client id>:<thread id>"."""

    try_lock_script = LOCK_TRY_LOCK
    unlock_script = LOCK_UNLOCK
    force_unlock_script = LOCK_FORCE_UNLOCK
    channel_prefix = "redisson_lock__channel"
    unlock_message = UNLOCK_MESSAGE

    def __init__(self, client, name):
        self.client = client
        self.name = name
        self.channel = prefix_name(self.channel_prefix, name)
        self.internal_lock_lease_time = LOCK_WATCHDOG_TIMEOUT_MS

    def lock_name(self, thread):
        return "%s:%d" % (self.client.id, thread)

    def unlock_latch_name(self, request_id):
        return "%s:%s" % (prefix_name("redisson_unlock_latch", self.name), request_id)

    def _try(self, script, keys, lease_ms, *args):
        """tryAcquireAsync around a lock script: the lease is the one given (lease_ms > 0) or
        internalLockLeaseTime, and an acquisition with a lease makes it the one unlock sends."""
        lease = lease_ms if lease_ms > 0 else self.internal_lock_lease_time
        reply = self.client.eval(script, keys, lease, *args)
        acquired = reply is None or (isinstance(reply, list) and reply[0] == -1)
        if acquired and lease_ms > 0:
            self.internal_lock_lease_time = lease_ms
        return reply

    def _unlocked(self, reply):
        """cancelExpirationRenewal: after a release (1) or a refusal (nil), the lease unlock
        sends is the watchdog's again."""
        if reply is None or reply == 1:
            self.internal_lock_lease_time = LOCK_WATCHDOG_TIMEOUT_MS
        return reply

    def try_lock(self, thread, lease_ms=-1):
        """tryLockInnerAsync: nil once held (the first time or again), else the holder's PTTL."""
        return self._try(self.try_lock_script, [self.name], lease_ms, self.lock_name(thread))

    def unlock(self, thread, request_id=None):
        """unlockAsync: the script with a fresh request id (whose latch answers a retry), then
        the DEL that RedissonBaseLock sends after it. 1 released, 0 still held, nil not held."""
        request_id = request_id or self.client.generate_id()
        reply = self.client.eval(
            self.unlock_script, [self.name, self.channel, self.unlock_latch_name(request_id)],
            self.unlock_message, self.internal_lock_lease_time, self.lock_name(thread),
            self.client.publish_command, self.client.unlock_timeout_ms())
        # RedissonBaseLock.unlockInnerAsync deletes the latch named after the client id, not
        # the request id, so this DEL never finds a key; Redisson sends it all the same.
        self.client.redis.execute_command("DEL", self.unlock_latch_name(self.client.id))
        return self._unlocked(reply)

    def force_unlock(self):
        return self.client.eval(self.force_unlock_script, [self.name, self.channel],
                                self.unlock_message, self.client.publish_command)

    def hold_count(self, thread):
        """getHoldCount: HGET, nil read as 0."""
        value = self.client.redis.execute_command("HGET", self.name, self.lock_name(thread))
        return 0 if value is None else int(value)


def renew_locks(client, entries, lease_ms=LOCK_WATCHDOG_TIMEOUT_MS):
    """LockTask.renew: entries are (lock key, lock name of its first thread); one script per
    LOCK_WATCHDOG_BATCH_SIZE of them. Returns each script's reply."""
    replies = []
    for start in range(0, len(entries), LOCK_WATCHDOG_BATCH_SIZE):
        chunk = entries[start:start + LOCK_WATCHDOG_BATCH_SIZE]
        replies.append(client.eval(LOCK_RENEW, [key for key, _ in chunk], lease_ms,
                                   *[name for _, name in chunk]))
    return replies


class RFairLock(RLock):
    """RedissonFairLock: a queue (list) of waiting lock names and their timeouts (sorted set);
    each waiter has its own channel, "<channel>:<lock name>"."""

    def __init__(self, client, name, thread_wait_time_ms=FAIR_LOCK_WAIT_TIMEOUT_MS):
        super().__init__(client, name)
        self.queue = prefix_name("redisson_lock_queue", name)
        self.timeouts = prefix_name("redisson_lock_timeout", name)
        self.thread_wait_time = thread_wait_time_ms

    def waiter_channel(self, thread):
        return "%s:%s" % (self.channel, self.lock_name(thread))

    def _wait(self, wait_ms):
        return wait_ms if wait_ms > 0 else self.thread_wait_time

    def try_lock_once(self, thread, lease_ms=-1, wait_ms=-1):
        """The EVAL_NULL_BOOLEAN variant: nil when acquired, else 1. Never queues."""
        return self._try(FAIR_TRY_LOCK_ONCE, [self.name, self.queue, self.timeouts], lease_ms,
                         self.lock_name(thread), now_ms(), self._wait(wait_ms))

    def try_lock(self, thread, lease_ms=-1, wait_ms=-1, now=None):
        """The EVAL_LONG variant: nil when acquired, else a TTL; queues the caller."""
        return self._try(FAIR_TRY_LOCK, [self.name, self.queue, self.timeouts], lease_ms,
                         self.lock_name(thread), self._wait(wait_ms),
                         now_ms() if now is None else now)

    def acquire_failed(self, thread, wait_ms=-1):
        return self.client.eval(FAIR_ACQUIRE_FAILED, [self.queue, self.timeouts],
                                self.lock_name(thread), self._wait(wait_ms))

    def unlock(self, thread, request_id=None):
        request_id = request_id or self.client.generate_id()
        reply = self.client.eval(
            FAIR_UNLOCK, [self.name, self.queue, self.timeouts, self.channel,
                          self.unlock_latch_name(request_id)],
            UNLOCK_MESSAGE, self.internal_lock_lease_time, self.lock_name(thread), now_ms(),
            self.client.publish_command, self.client.unlock_timeout_ms())
        self.client.redis.execute_command("DEL", self.unlock_latch_name(self.client.id))
        return self._unlocked(reply)

    def force_unlock(self):
        return self.client.eval(FAIR_FORCE_UNLOCK,
                                [self.name, self.queue, self.timeouts, self.channel],
                                UNLOCK_MESSAGE, now_ms(), self.client.publish_command)


class RReadLock(RLock):
    """RedissonReadLock: the hash holds mode = read and a count per reader; each hold has its
    own timeout key "{name}:<lock name>:rwlock_timeout:<n>"."""

    channel_prefix = "redisson_rwlock"

    def write_lock_name(self, thread):
        return self.lock_name(thread) + ":write"

    def timeout_prefix(self, thread):
        return suffix_name(self.name, self.lock_name(thread)) + ":rwlock_timeout"

    def key_prefix(self, thread):
        """getKeyPrefix: the timeout prefix cut before ":<lock name>" (Java's split()[0])."""
        return self.timeout_prefix(thread).split(":" + self.lock_name(thread))[0]

    def try_lock(self, thread, lease_ms=-1):
        return self._try(READ_TRY_LOCK, [self.name, self.timeout_prefix(thread)], lease_ms,
                         self.lock_name(thread), self.write_lock_name(thread))

    def unlock(self, thread, request_id=None):
        request_id = request_id or self.client.generate_id()
        reply = self.client.eval(
            READ_UNLOCK, [self.name, self.channel, self.timeout_prefix(thread),
                          self.key_prefix(thread), self.unlock_latch_name(request_id)],
            UNLOCK_MESSAGE, self.lock_name(thread), self.client.publish_command,
            self.client.unlock_timeout_ms())
        self.client.redis.execute_command("DEL", self.unlock_latch_name(self.client.id))
        return self._unlocked(reply)

    def force_unlock(self):
        return self.client.eval(READ_FORCE_UNLOCK, [self.name, self.channel], UNLOCK_MESSAGE,
                                self.client.publish_command)

    def is_locked(self):
        return self.client.eval(READ_IS_LOCKED, [self.name])


def renew_read_locks(client, entries, lease_ms=LOCK_WATCHDOG_TIMEOUT_MS):
    """ReadLockTask.renew: entries are (read lock, thread); KEYS are (name, key prefix) pairs."""
    keys, names = [], []
    for lock, thread in entries:
        keys += [lock.name, lock.key_prefix(thread)]
        names.append(lock.lock_name(thread))
    return client.eval(READ_LOCK_RENEW, keys, lease_ms, *names)


class RWriteLock(RLock):
    """RedissonWriteLock: mode = write, lock names end in ":write"; its unlock sends
    READ_UNLOCK_MESSAGE, which wakes every waiter."""

    try_lock_script = WRITE_TRY_LOCK
    unlock_script = WRITE_UNLOCK
    force_unlock_script = WRITE_FORCE_UNLOCK
    channel_prefix = "redisson_rwlock"
    unlock_message = READ_UNLOCK_MESSAGE

    def lock_name(self, thread):
        return "%s:%d:write" % (self.client.id, thread)


class RFencedLock(RLock):
    """RedissonFencedLock: an RLock whose every acquisition increments a token."""

    def __init__(self, client, name):
        super().__init__(client, name)
        self.token_name = prefix_name("redisson_lock_token", name)

    def try_lock(self, thread, lease_ms=-1):
        """The lock() path's script: nil once held, else the PTTL; increments the token."""
        return self._try(FENCED_TRY_LOCK, [self.name, self.token_name], lease_ms,
                         self.lock_name(thread))

    def try_lock_and_get_token(self, thread, lease_ms=-1):
        """[-1, token] once held, else [pttl, -1]."""
        return self._try(FENCED_TRY_LOCK_AND_GET_TOKEN, [self.name, self.token_name], lease_ms,
                         self.lock_name(thread))


class RSemaphore:
    """RedissonSemaphore: a counter of free permits; releases publish the new count on
    "redisson_sc:{name}"."""

    def __init__(self, client, name):
        self.client = client
        self.name = name
        self.channel = prefix_name("redisson_sc", name)

    def try_set_permits(self, permits):
        return self.client.eval(SEMAPHORE_TRY_SET_PERMITS, [self.name, self.channel], permits,
                                self.client.publish_command)

    def try_set_permits_with_ttl(self, permits, ttl_ms):
        return self.client.eval(SEMAPHORE_TRY_SET_PERMITS_TTL, [self.name, self.channel],
                                permits, self.client.publish_command, ttl_ms)

    def try_acquire(self, permits=1):
        return self.client.eval(SEMAPHORE_TRY_ACQUIRE, [self.name], permits)

    def release(self, permits=1):
        return self.client.eval(SEMAPHORE_RELEASE, [self.name, self.channel], permits,
                                self.client.publish_command)

    def add_permits(self, permits):
        return self.client.eval(SEMAPHORE_ADD_PERMITS, [self.name, self.channel], permits,
                                self.client.publish_command)

    def drain_permits(self):
        return self.client.eval(SEMAPHORE_DRAIN, [self.name])

    def available_permits(self):
        """availablePermitsAsync: a plain GET."""
        return self.client.redis.execute_command("GET", self.name)


class RPermitExpirableSemaphore:
    """RedissonPermitExpirableSemaphore: free permits in a counter, acquired permits in the
    sorted set "{name}:timeout" (member: the permit id's 16 raw bytes; score: its expiry in
    client milliseconds, NON_EXPIRABLE_TIMEOUT without a lease)."""

    def __init__(self, client, name):
        self.client = client
        self.name = name
        self.timeout_name = suffix_name(name, "timeout")
        self.channel = prefix_name("redisson_sc", name)

    def try_acquire(self, permits=1, lease_ms=-1, now=None):
        """tryAcquireAsync(ids, timeoutDate): returns (reply, permit ids in hex)."""
        now = now_ms() if now is None else now
        timeout_date = now + lease_ms if lease_ms != -1 else NON_EXPIRABLE_TIMEOUT
        ids = [self.client.generate_id() for _ in range(permits)]
        reply = self.client.eval(
            PES_TRY_ACQUIRE, [self.name, self.timeout_name, self.channel],
            len(ids), timeout_date, now, NON_EXPIRABLE_TIMEOUT, self.client.publish_command,
            *[bytes.fromhex(permit_id) for permit_id in ids])
        return reply, ids

    def try_release(self, permit_id):
        return self.client.eval(PES_TRY_RELEASE, [self.name, self.channel, self.timeout_name],
                                bytes.fromhex(permit_id), 1, now_ms(),
                                self.client.publish_command)

    def try_release_many(self, permit_ids):
        return self.client.eval(PES_TRY_RELEASE_MANY,
                                [self.name, self.channel, self.timeout_name],
                                len(permit_ids), now_ms(), self.client.publish_command,
                                *[bytes.fromhex(permit_id) for permit_id in permit_ids])

    def _read(self, script):
        return self.client.eval(script, [self.name, self.timeout_name, self.channel], now_ms(),
                                self.client.publish_command)

    def available_permits(self):
        return self._read(PES_AVAILABLE_PERMITS)

    def get_permits(self):
        return self._read(PES_GET_PERMITS)

    def acquired_permits(self):
        return self._read(PES_ACQUIRED_PERMITS)

    def try_set_permits(self, permits):
        return self.client.eval(SEMAPHORE_TRY_SET_PERMITS, [self.name, self.channel], permits,
                                self.client.publish_command)

    def set_permits(self, permits):
        return self.client.eval(PES_SET_PERMITS, [self.name, self.channel, self.timeout_name],
                                permits, self.client.publish_command)

    def update_lease_time(self, permit_id, lease_ms):
        now = now_ms()
        return self.client.eval(PES_UPDATE_LEASE_TIME,
                                [self.name, self.timeout_name, self.channel],
                                bytes.fromhex(permit_id), now + lease_ms, now,
                                self.client.publish_command)

    def get_lease_time(self, permit_id, now=None):
        return self.client.eval(PES_GET_LEASE_TIME, [self.name, self.timeout_name, self.channel],
                                bytes.fromhex(permit_id), NON_EXPIRABLE_TIMEOUT,
                                now_ms() if now is None else now, self.client.publish_command)


class RCountDownLatch:
    """RedissonCountDownLatch: a counter; reaching zero deletes it and publishes 0 on
    "redisson_countdownlatch__channel__{name}" (braces added even when the name has some)."""

    def __init__(self, client, name):
        self.client = client
        self.name = name
        self.channel = "redisson_countdownlatch__channel__{%s}" % name

    def try_set_count(self, count):
        return self.client.eval(LATCH_TRY_SET_COUNT, [self.name, self.channel],
                                NEW_COUNT_MESSAGE, count, self.client.publish_command)

    def count_down(self):
        return self.client.eval(LATCH_COUNT_DOWN, [self.name, self.channel], ZERO_COUNT_MESSAGE,
                                self.client.publish_command)

    def get_count(self):
        """getCountAsync: GET, nil read as 0."""
        value = self.client.redis.execute_command("GET", self.name)
        return 0 if value is None else int(value)

    def delete(self):
        return self.client.eval(LATCH_DELETE, [self.name, self.channel], NEW_COUNT_MESSAGE,
                                self.client.publish_command)
