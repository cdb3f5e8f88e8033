"""Redisson's locks and synchronizers, replayed from Python: the Lua scripts byte for byte, sent
with the KEYS and ARGV that Redisson builds, over redis-py (Debian python3-redis 4.3.4).

No JVM library can be installed here, so test_redisson.py drives this replay instead of Redisson.
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


# --- The scripts, verbatim (Java's "..." + "..." concatenation kept line for line) ------------

# RedissonLock.tryLockInnerAsync (also RedissonFencedLock's unlock, inherited).
LOCK_TRY_LOCK = (
    "if ((redis.call('exists', KEYS[1]) == 0) "
    "or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then "
    "redis.call('hincrby', KEYS[1], ARGV[2], 1); "
    "redis.call('pexpire', KEYS[1], ARGV[1]); "
    "return nil; "
    "end; "
    "return redis.call('pttl', KEYS[1]);")

# RedissonLock.forceUnlockAsync
LOCK_FORCE_UNLOCK = (
    "if (redis.call('del', KEYS[1]) == 1) then "
    "redis.call(ARGV[2], KEYS[2], ARGV[1]); "
    "return 1 "
    "else "
    "return 0 "
    "end")

# RedissonLock.unlockInnerAsync
LOCK_UNLOCK = (
    "local val = redis.call('get', KEYS[3]); "
    "if val ~= false then "
    "return tonumber(val);"
    "end; "
    "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then "
    "return nil;"
    "end; "
    "local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); "
    "if (counter > 0) then "
    "redis.call('pexpire', KEYS[1], ARGV[2]); "
    "redis.call('set', KEYS[3], 0, 'px', ARGV[5]); "
    "return 0; "
    "else "
    "redis.call('del', KEYS[1]); "
    "redis.call(ARGV[4], KEYS[2], ARGV[1]); "
    "redis.call('set', KEYS[3], 1, 'px', ARGV[5]); "
    "return 1; "
    "end; ")

# renewal/LockTask.renew: the watchdog, every lockWatchdogTimeout / 3, for up to 100 locks.
LOCK_RENEW = (
    "local result = {} "
    "for i = 1, #KEYS, 1 do "
    "if (redis.call('hexists', KEYS[i], ARGV[i + 1]) == 1) then "
    "redis.call('pexpire', KEYS[i], ARGV[1]); "
    "table.insert(result, 1); "
    "else "
    "table.insert(result, 0); "
    "end; "
    "end; "
    "return result;")

# renewal/ReadLockTask.renew
READ_LOCK_RENEW = (
    "local result = {} "
    "local j = 1 "
    "for i = 1, #KEYS, 2 do "
    "j = j + 1; "
    "local counter = redis.call('hget', KEYS[i], ARGV[j]); "
    "if (counter ~= false) then "
    "redis.call('pexpire', KEYS[i], ARGV[1]); "
    "if (redis.call('hlen', KEYS[i]) > 1) then "
    "local keys = redis.call('hkeys', KEYS[i]); "
    "for n, key in ipairs(keys) do "
    "counter = tonumber(redis.call('hget', KEYS[i], key)); "
    "if type(counter) == 'number' then "
    "for i=counter, 1, -1 do "
    "redis.call('pexpire', KEYS[i+1] .. ':' .. key .. ':rwlock_timeout:' .. i, ARGV[1]); "
    "end; "
    "end; "
    "end; "
    "end; "
    "table.insert(result, 1); "
    "else "
    "table.insert(result, 0); "
    "end; "
    "end; "
    "return result;")

# RedissonFairLock.acquireFailedAsync: a waiter that gives up leaves the queue.
FAIR_ACQUIRE_FAILED = (
    "local queue = redis.call('lrange', KEYS[1], 0, -1);"
    "local i = 1;"
    "while i <= #queue and queue[i] ~= ARGV[1] do "
    "i = i + 1;"
    "end;"
    "i = i + 1;"
    "while i <= #queue do "
    "redis.call('zincrby', KEYS[2], -tonumber(ARGV[2]), queue[i]);"
    "i = i + 1;"
    "end;"
    "redis.call('zrem', KEYS[2], ARGV[1]);"
    "redis.call('lrem', KEYS[1], 0, ARGV[1]);")

# RedissonFairLock.tryLockInnerAsync with EVAL_NULL_BOOLEAN (tryLock() without waiting).
FAIR_TRY_LOCK_ONCE = (
    "while true do "
    "local firstThreadId2 = redis.call('lindex', KEYS[2], 0);"
    "if firstThreadId2 == false then "
    "break;"
    "end;"
    "local timeout = redis.call('zscore', KEYS[3], firstThreadId2);"
    "if timeout ~= false and tonumber(timeout) <= tonumber(ARGV[3]) then "
    "redis.call('zrem', KEYS[3], firstThreadId2);"
    "redis.call('lpop', KEYS[2]);"
    "else "
    "break;"
    "end;"
    "end;"
    "if (redis.call('exists', KEYS[1]) == 0) "
    "and ((redis.call('exists', KEYS[2]) == 0) "
    "or (redis.call('lindex', KEYS[2], 0) == ARGV[2])) then "
    "redis.call('lpop', KEYS[2]);"
    "redis.call('zrem', KEYS[3], ARGV[2]);"
    "local keys = redis.call('zrange', KEYS[3], 0, -1);"
    "for i = 1, #keys, 1 do "
    "redis.call('zincrby', KEYS[3], -tonumber(ARGV[4]), keys[i]);"
    "end;"
    "redis.call('hset', KEYS[1], ARGV[2], 1);"
    "redis.call('pexpire', KEYS[1], ARGV[1]);"
    "return nil;"
    "end;"
    "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then "
    "redis.call('hincrby', KEYS[1], ARGV[2], 1);"
    "redis.call('pexpire', KEYS[1], ARGV[1]);"
    "return nil;"
    "end;"
    "return 1;")

# RedissonFairLock.tryLockInnerAsync with EVAL_LONG (lock() and tryLock(wait)): queues the caller.
FAIR_TRY_LOCK = (
    "while true do "
    "local firstThreadId2 = redis.call('lindex', KEYS[2], 0);"
    "if firstThreadId2 == false then "
    "break;"
    "end;"
    "local timeout = redis.call('zscore', KEYS[3], firstThreadId2);"
    "if timeout ~= false and tonumber(timeout) <= tonumber(ARGV[4]) then "
    "redis.call('zrem', KEYS[3], firstThreadId2);"
    "redis.call('lpop', KEYS[2]);"
    "else "
    "break;"
    "end;"
    "end;"
    "if (redis.call('exists', KEYS[1]) == 0) "
    "and ((redis.call('exists', KEYS[2]) == 0) "
    "or (redis.call('lindex', KEYS[2], 0) == ARGV[2])) then "
    "redis.call('lpop', KEYS[2]);"
    "redis.call('zrem', KEYS[3], ARGV[2]);"
    "local keys = redis.call('zrange', KEYS[3], 0, -1);"
    "for i = 1, #keys, 1 do "
    "redis.call('zincrby', KEYS[3], -tonumber(ARGV[3]), keys[i]);"
    "end;"
    "redis.call('hset', KEYS[1], ARGV[2], 1);"
    "redis.call('pexpire', KEYS[1], ARGV[1]);"
    "return nil;"
    "end;"
    "if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then "
    "redis.call('hincrby', KEYS[1], ARGV[2],1);"
    "redis.call('pexpire', KEYS[1], ARGV[1]);"
    "return nil;"
    "end;"
    "local timeout = redis.call('zscore', KEYS[3], ARGV[2]);"
    "if timeout ~= false then "
    "local ttl = redis.call('pttl', KEYS[1]);"
    "return math.max(0, ttl); "
    "end;"
    "local lastThreadId = redis.call('lindex', KEYS[2], -1);"
    "local ttl;"
    "if lastThreadId ~= false and lastThreadId ~= ARGV[2] and "
    "redis.call('zscore', KEYS[3], lastThreadId) ~= false then "
    "ttl = tonumber(redis.call('zscore', KEYS[3], lastThreadId)) - tonumber(ARGV[4]);"
    "else "
    "ttl = redis.call('pttl', KEYS[1]);"
    "end;"
    "local timeout = ttl + tonumber(ARGV[3]) + tonumber(ARGV[4]);"
    "if redis.call('zadd', KEYS[3], timeout, ARGV[2]) == 1 then "
    "redis.call('rpush', KEYS[2], ARGV[2]);"
    "end;"
    "return ttl;")

# RedissonFairLock.unlockInnerAsync: signals only the first waiter, on its own channel.
FAIR_UNLOCK = (
    "local val = redis.call('get', KEYS[5]); "
    "if val ~= false then "
    "return tonumber(val);"
    "end; "
    "while true do "
    "local firstThreadId2 = redis.call('lindex', KEYS[2], 0);"
    "if firstThreadId2 == false then "
    "break;"
    "end; "
    "local timeout = redis.call('zscore', KEYS[3], firstThreadId2);"
    "if timeout ~= false and tonumber(timeout) <= tonumber(ARGV[4]) then "
    "redis.call('zrem', KEYS[3], firstThreadId2); "
    "redis.call('lpop', KEYS[2]); "
    "else "
    "break;"
    "end; "
    "end;"
    "if (redis.call('exists', KEYS[1]) == 0) then "
    "local nextThreadId = redis.call('lindex', KEYS[2], 0); "
    "if nextThreadId ~= false then "
    "redis.call(ARGV[5], KEYS[4] .. ':' .. nextThreadId, ARGV[1]); "
    "end; "
    "redis.call('set', KEYS[5], 1, 'px', ARGV[6]); "
    "return 1; "
    "end;"
    "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then "
    "return nil;"
    "end; "
    "local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); "
    "if (counter > 0) then "
    "redis.call('pexpire', KEYS[1], ARGV[2]); "
    "redis.call('set', KEYS[5], 0, 'px', ARGV[6]); "
    "return 0; "
    "end; "
    "redis.call('del', KEYS[1]); "
    "redis.call('set', KEYS[5], 1, 'px', ARGV[6]); "
    "local nextThreadId = redis.call('lindex', KEYS[2], 0); "
    "if nextThreadId ~= false then "
    "redis.call(ARGV[5], KEYS[4] .. ':' .. nextThreadId, ARGV[1]); "
    "end; "
    "return 1; ")

# RedissonFairLock.forceUnlockAsync
FAIR_FORCE_UNLOCK = (
    "while true do "
    "local firstThreadId2 = redis.call('lindex', KEYS[2], 0);"
    "if firstThreadId2 == false then "
    "break;"
    "end; "
    "local timeout = redis.call('zscore', KEYS[3], firstThreadId2);"
    "if timeout ~= false and tonumber(timeout) <= tonumber(ARGV[2]) then "
    "redis.call('zrem', KEYS[3], firstThreadId2); "
    "redis.call('lpop', KEYS[2]); "
    "else "
    "break;"
    "end; "
    "end;"
    "if (redis.call('del', KEYS[1]) == 1) then "
    "local nextThreadId = redis.call('lindex', KEYS[2], 0); "
    "if nextThreadId ~= false then "
    "redis.call(ARGV[3], KEYS[4] .. ':' .. nextThreadId, ARGV[1]); "
    "end; "
    "return 1; "
    "end; "
    "return 0;")

# RedissonReadLock.tryLockInnerAsync
READ_TRY_LOCK = (
    "local mode = redis.call('hget', KEYS[1], 'mode'); "
    "if (mode == false) then "
    "redis.call('hset', KEYS[1], 'mode', 'read'); "
    "redis.call('hset', KEYS[1], ARGV[2], 1); "
    "redis.call('set', KEYS[2] .. ':1', 1); "
    "redis.call('pexpire', KEYS[2] .. ':1', ARGV[1]); "
    "redis.call('pexpire', KEYS[1], ARGV[1]); "
    "return nil; "
    "end; "
    "if (mode == 'read') or (mode == 'write' and "
    "redis.call('hexists', KEYS[1], ARGV[3]) == 1) then "
    "local ind = redis.call('hincrby', KEYS[1], ARGV[2], 1); "
    "local key = KEYS[2] .. ':' .. ind;"
    "redis.call('set', key, 1); "
    "redis.call('pexpire', key, ARGV[1]); "
    "local remainTime = redis.call('pttl', KEYS[1]); "
    "redis.call('pexpire', KEYS[1], math.max(remainTime, ARGV[1])); "
    "return nil; "
    "end;"
    "return redis.call('pttl', KEYS[1]);")

# RedissonReadLock.unlockInnerAsync
READ_UNLOCK = (
    "local val = redis.call('get', KEYS[5]); "
    "if val ~= false then "
    "return tonumber(val);"
    "end; "
    "local mode = redis.call('hget', KEYS[1], 'mode'); "
    "if (mode == false) then "
    "redis.call(ARGV[3], KEYS[2], ARGV[1]); "
    "redis.call('set', KEYS[5], 1, 'px', ARGV[4]); "
    "return nil; "
    "end; "
    "local lockExists = redis.call('hexists', KEYS[1], ARGV[2]); "
    "if (lockExists == 0) then "
    "return nil;"
    "end; "
    "local counter = redis.call('hincrby', KEYS[1], ARGV[2], -1); "
    "if (counter == 0) then "
    "redis.call('hdel', KEYS[1], ARGV[2]); "
    "end;"
    "redis.call('del', KEYS[3] .. ':' .. (counter+1)); "
    "if (redis.call('hlen', KEYS[1]) > 1) then "
    "local maxRemainTime = -3; "
    "local keys = redis.call('hkeys', KEYS[1]); "
    "for n, key in ipairs(keys) do "
    "counter = tonumber(redis.call('hget', KEYS[1], key)); "
    "if type(counter) == 'number' then "
    "for i=counter, 1, -1 do "
    "local remainTime = redis.call('pttl', KEYS[4] .. ':' .. key .. ':rwlock_timeout:' .. i); "
    "maxRemainTime = math.max(remainTime, maxRemainTime);"
    "end; "
    "end; "
    "end; "
    "if maxRemainTime > 0 then "
    "redis.call('pexpire', KEYS[1], maxRemainTime); "
    "redis.call('set', KEYS[5], 0, 'px', ARGV[4]); "
    "return 0; "
    "end;"
    "if mode == 'write' then "
    "redis.call('set', KEYS[5], 0, 'px', ARGV[4]); "
    "return 0;"
    "end; "
    "end; "
    "redis.call('del', KEYS[1]); "
    "redis.call(ARGV[3], KEYS[2], ARGV[1]); "
    "redis.call('set', KEYS[5], 1, 'px', ARGV[4]); "
    "return 1; ")

# RedissonReadLock.forceUnlockAsync
READ_FORCE_UNLOCK = (
    "if (redis.call('hget', KEYS[1], 'mode') == 'read') then "
    "redis.call('del', KEYS[1]); "
    "redis.call(ARGV[2], KEYS[2], ARGV[1]); "
    "return 1; "
    "end; "
    "return 0; ")

# RedissonReadLock.isLocked
READ_IS_LOCKED = (
    "local mode = redis.call('hget', KEYS[1], 'mode'); "
    "if (mode == 'read') or (mode == 'write' and redis.call('hlen', KEYS[1]) > 2) then "
    "return 1; "
    "end; "
    "return 0; ")

# RedissonWriteLock.tryLockInnerAsync
WRITE_TRY_LOCK = (
    "local mode = redis.call('hget', KEYS[1], 'mode'); "
    "if (mode == false) then "
    "redis.call('hset', KEYS[1], 'mode', 'write'); "
    "redis.call('hset', KEYS[1], ARGV[2], 1); "
    "redis.call('pexpire', KEYS[1], ARGV[1]); "
    "return nil; "
    "end; "
    "if (mode == 'write') then "
    "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then "
    "redis.call('hincrby', KEYS[1], ARGV[2], 1); "
    "local currentExpire = redis.call('pttl', KEYS[1]); "
    "redis.call('pexpire', KEYS[1], currentExpire + ARGV[1]); "
    "return nil; "
    "end; "
    "end;"
    "return redis.call('pttl', KEYS[1]);")

# RedissonWriteLock.unlockInnerAsync
WRITE_UNLOCK = (
    "local val = redis.call('get', KEYS[3]); "
    "if val ~= false then "
    "return tonumber(val);"
    "end; "
    "local mode = redis.call('hget', KEYS[1], 'mode'); "
    "if (mode == false) then "
    "redis.call(ARGV[4], KEYS[2], ARGV[1]); "
    "redis.call('set', KEYS[3], 1, 'px', ARGV[5]); "
    "return nil; "
    "end;"
    "if (mode == 'write') then "
    "local lockExists = redis.call('hexists', KEYS[1], ARGV[3]); "
    "if (lockExists == 0) then "
    "return nil;"
    "else "
    "local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); "
    "if (counter > 0) then "
    "redis.call('pexpire', KEYS[1], ARGV[2]); "
    "redis.call('set', KEYS[3], 0, 'px', ARGV[5]); "
    "return 0; "
    "else "
    "redis.call('hdel', KEYS[1], ARGV[3]); "
    "if (redis.call('hlen', KEYS[1]) == 1) then "
    "redis.call('del', KEYS[1]); "
    "redis.call(ARGV[4], KEYS[2], ARGV[1]); "
    "else "
    "redis.call('hset', KEYS[1], 'mode', 'read'); "
    "end; "
    "redis.call('set', KEYS[3], 1, 'px', ARGV[5]); "
    "return 1; "
    "end; "
    "end; "
    "end; "
    "return nil;")

# RedissonWriteLock.forceUnlockAsync
WRITE_FORCE_UNLOCK = (
    "if (redis.call('hget', KEYS[1], 'mode') == 'write') then "
    "redis.call('del', KEYS[1]); "
    "redis.call(ARGV[2], KEYS[2], ARGV[1]); "
    "return 1; "
    "end; "
    "return 0; ")

# RedissonFencedLock.tryLockInnerAsync(leaseTime, unit, threadId): {-1, token} or {pttl, -1}.
FENCED_TRY_LOCK_AND_GET_TOKEN = (
    "if (redis.call('exists', KEYS[1]) == 0 "
    "or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then "
    "local token = redis.call('incr', KEYS[2]);"
    "redis.call('hincrby', KEYS[1], ARGV[2], 1); "
    "redis.call('pexpire', KEYS[1], ARGV[1]); "
    "return {-1, token}; "
    "end; "
    "return {redis.call('pttl', KEYS[1]), -1};")

# RedissonFencedLock.tryLockInnerAsync(waitTime, leaseTime, unit, threadId, command): lock().
FENCED_TRY_LOCK = (
    "if ((redis.call('exists', KEYS[1]) == 0) "
    "or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then "
    "redis.call('incr', KEYS[2]);"
    "redis.call('hincrby', KEYS[1], ARGV[2], 1); "
    "redis.call('pexpire', KEYS[1], ARGV[1]); "
    "return nil; "
    "end; "
    "return redis.call('pttl', KEYS[1]);")

# RedissonSemaphore.tryAcquireAsync0
SEMAPHORE_TRY_ACQUIRE = (
    "local value = redis.call('get', KEYS[1]); "
    "if (value ~= false and tonumber(value) >= tonumber(ARGV[1])) then "
    "local val = redis.call('decrby', KEYS[1], ARGV[1]); "
    "return 1; "
    "end; "
    "return 0;")

# RedissonSemaphore.releaseAsync
SEMAPHORE_RELEASE = (
    "local value = redis.call('incrby', KEYS[1], ARGV[1]); "
    "redis.call(ARGV[2], KEYS[2], value); ")

# RedissonSemaphore.drainPermitsAsync
SEMAPHORE_DRAIN = (
    "local value = redis.call('get', KEYS[1]); "
    "if (value == false) then "
    "return 0; "
    "end; "
    "redis.call('set', KEYS[1], 0); "
    "return value;")

# RedissonSemaphore.trySetPermitsAsync (RedissonPermitExpirableSemaphore's is the same script)
SEMAPHORE_TRY_SET_PERMITS = (
    "local value = redis.call('get', KEYS[1]); "
    "if (value == false) then "
    "redis.call('set', KEYS[1], ARGV[1]); "
    "redis.call(ARGV[2], KEYS[2], ARGV[1]); "
    "return 1;"
    "end;"
    "return 0;")

# RedissonSemaphore.trySetPermitsAsync(permits, timeToLive)
SEMAPHORE_TRY_SET_PERMITS_TTL = (
    "local value = redis.call('get', KEYS[1]); "
    "if (value == false) then "
    "redis.call('set', KEYS[1], ARGV[1], 'px', ARGV[3]); "
    "redis.call(ARGV[2], KEYS[2], ARGV[1]); "
    "return 1;"
    "end;"
    "return 0;")

# RedissonSemaphore.addPermitsAsync
SEMAPHORE_ADD_PERMITS = (
    "local value = redis.call('get', KEYS[1]); "
    "if (value == false) then "
    "value = 0;"
    "end;"
    "redis.call('set', KEYS[1], value + ARGV[1]); "
    "redis.call(ARGV[2], KEYS[2], value + ARGV[1]); ")

# RedissonPermitExpirableSemaphore.tryAcquireAsync(ids, timeoutDate): 'OK', ':<nearest>' or nil.
PES_TRY_ACQUIRE = (
    "local expiredIds = redis.call('zrangebyscore', KEYS[2], 0, ARGV[3], 'limit', 0, ARGV[1]); "
    "if #expiredIds > 0 then "
    "redis.call('zrem', KEYS[2], unpack(expiredIds)); "
    "local value = redis.call('incrby', KEYS[1], #expiredIds); "
    "if tonumber(value) > 0 then "
    "redis.call(ARGV[5], KEYS[3], value); "
    "end;"
    "end; "
    "local value = redis.call('get', KEYS[1]); "
    "if (value ~= false and tonumber(value) >= tonumber(ARGV[1])) then "
    "redis.call('decrby', KEYS[1], ARGV[1]); "
    "for i = 6, #ARGV, 1 do "
    "redis.call('zadd', KEYS[2], ARGV[2], ARGV[i]); "
    "end; "
    "local ttl = redis.call('pttl', KEYS[1]); "
    "if ttl > 0 then "
    "redis.call('pexpire', KEYS[2], ttl); "
    "end; "
    "return 'OK'; "
    "end; "
    "local v = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES'); "
    "if v[1] ~= nil and v[2] ~= ARGV[4] then "
    "return ':' .. tostring(v[2]); "
    "end "
    "return nil;")

# RedissonPermitExpirableSemaphore.tryReleaseAsync(permitId)
PES_TRY_RELEASE = (
    "local expire = redis.call('zscore', KEYS[3], ARGV[1]);"
    "local removed = redis.call('zrem', KEYS[3], ARGV[1]);"
    "if tonumber(removed) ~= 1 then "
    "return 0;"
    "end;"
    "local value = redis.call('incrby', KEYS[1], ARGV[2]); "
    "redis.call(ARGV[4], KEYS[2], value); "
    "if tonumber(expire) <= tonumber(ARGV[3]) then "
    "return 0;"
    "end;"
    "return 1;")

# RedissonPermitExpirableSemaphore.tryReleaseAsync(permitsIds)
PES_TRY_RELEASE_MANY = (
    "for i = 4, #ARGV, 1 do "
    "local expire = redis.call('zscore', KEYS[3], ARGV[i]);"
    "if expire== false or tonumber(expire) <= tonumber(ARGV[2]) then "
    "return 0;"
    "end; "
    "end; "
    "local expiredIds = redis.call('zrangebyscore', KEYS[3], 0, ARGV[2], 'limit', 0, -1); "
    "if #expiredIds > 0 then "
    "redis.call('zrem', KEYS[3], unpack(expiredIds)); "
    "local value = redis.call('incrby', KEYS[1], #expiredIds); "
    "if tonumber(value) > 0 then "
    "redis.call(ARGV[3], KEYS[2], value); "
    "end; "
    "end; "
    "local keys = {}; "
    "for i = 4, #ARGV, 1 do "
    "table.insert(keys, ARGV[i]); "
    "end; "
    "local removed = redis.call('zrem', KEYS[3], unpack(keys)); "
    "redis.call('incrby', KEYS[1], removed); "
    "redis.call(ARGV[3], KEYS[2], removed); "
    "return removed;")

# RedissonPermitExpirableSemaphore.availablePermitsAsync
PES_AVAILABLE_PERMITS = (
    "local expiredIds = redis.call('zrangebyscore', KEYS[2], 0, ARGV[1], 'limit', 0, -1); "
    "if #expiredIds > 0 then "
    "redis.call('zrem', KEYS[2], unpack(expiredIds)); "
    "local value = redis.call('incrby', KEYS[1], #expiredIds); "
    "if tonumber(value) > 0 then "
    "redis.call(ARGV[2], KEYS[3], value); "
    "end;"
    "return value; "
    "end; "
    "local ret = redis.call('get', KEYS[1]); "
    "return ret == false and 0 or ret;")

# RedissonPermitExpirableSemaphore.getPermitsAsync
PES_GET_PERMITS = (
    "local expiredIds = redis.call('zrangebyscore', KEYS[2], 0, ARGV[1], 'limit', 0, -1); "
    "if #expiredIds > 0 then "
    "redis.call('zrem', KEYS[2], unpack(expiredIds)); "
    "local value = redis.call('incrby', KEYS[1], #expiredIds); "
    "if tonumber(value) > 0 then "
    "redis.call(ARGV[2], KEYS[3], value); "
    "end;"
    "end; "
    "local available = redis.call('get', KEYS[1]); "
    "if available == false then "
    "return 0 "
    "end;"
    "local acquired = redis.call('zcount', KEYS[2], 0, '+inf'); "
    "if acquired == false then "
    "return tonumber(available) "
    "end;"
    "return tonumber(available) + acquired;")

# RedissonPermitExpirableSemaphore.acquiredPermitsAsync
PES_ACQUIRED_PERMITS = (
    "local expiredIds = redis.call('zrangebyscore', KEYS[2], 0, ARGV[1], 'limit', 0, -1); "
    "if #expiredIds > 0 then "
    "redis.call('zrem', KEYS[2], unpack(expiredIds)); "
    "local value = redis.call('incrby', KEYS[1], #expiredIds); "
    "if tonumber(value) > 0 then "
    "redis.call(ARGV[2], KEYS[3], value); "
    "end;"
    "end; "
    "local acquired = redis.call('zcount', KEYS[2], 0, '+inf'); "
    "return acquired == false and 0 or acquired;")

# RedissonPermitExpirableSemaphore.setPermitsAsync
PES_SET_PERMITS = (
    "local available = redis.call('get', KEYS[1]); "
    "if (available == false) then "
    "redis.call('set', KEYS[1], ARGV[1]); "
    "redis.call(ARGV[2], KEYS[2], ARGV[1]); "
    "return;"
    "end;"
    "local acquired = redis.call('zcount', KEYS[3], 0, '+inf'); "
    "local maximum = (acquired == false and 0 or acquired) + tonumber(available); "
    "if (maximum == tonumber(ARGV[1])) then "
    "return;"
    "end;"
    "redis.call('incrby', KEYS[1], tonumber(ARGV[1]) - maximum); "
    "redis.call(ARGV[2], KEYS[2], ARGV[1]);")

# RedissonPermitExpirableSemaphore.updateLeaseTimeAsync
PES_UPDATE_LEASE_TIME = (
    "local expiredIds = redis.call('zrangebyscore', KEYS[2], 0, ARGV[3], 'limit', 0, -1); "
    "if #expiredIds > 0 then "
    "redis.call('zrem', KEYS[2], unpack(expiredIds)); "
    "local value = redis.call('incrby', KEYS[1], #expiredIds); "
    "if tonumber(value) > 0 then "
    "redis.call(ARGV[4], KEYS[3], value); "
    "end;"
    "end; "
    "local value = redis.call('zscore', KEYS[2], ARGV[1]); "
    "if (value ~= false) then "
    "redis.call('zadd', KEYS[2], ARGV[2], ARGV[1]); "
    "return 1;"
    "end;"
    "return 0;")

# RedissonPermitExpirableSemaphore.getLeaseTimeAsync
PES_GET_LEASE_TIME = (
    "local expiredIds = redis.call('zrangebyscore', KEYS[2], 0, ARGV[3], 'limit', 0, -1); "
    "if #expiredIds > 0 then "
    "redis.call('zrem', KEYS[2], unpack(expiredIds)); "
    "local value = redis.call('incrby', KEYS[1], #expiredIds); "
    "if tonumber(value) > 0 then "
    "redis.call(ARGV[4], KEYS[3], value); "
    "end;"
    "end; "
    "local value = redis.call('zscore', KEYS[2], ARGV[1]); "
    "if (value ~= false) then "
    "return tonumber(value) == tonumber(ARGV[2]) and -1 or tonumber(value) - tonumber(ARGV[3]);"
    "end;"
    "return 0;")

# RedissonCountDownLatch.countDownAsync
LATCH_COUNT_DOWN = (
    "local v = redis.call('decr', KEYS[1]);"
    "if v <= 0 then redis.call('del', KEYS[1]) end;"
    "if v == 0 then redis.call(ARGV[2], KEYS[2], ARGV[1]) end;")

# RedissonCountDownLatch.trySetCountAsync
LATCH_TRY_SET_COUNT = (
    "if redis.call('exists', KEYS[1]) == 0 then "
    "redis.call('set', KEYS[1], ARGV[2]); "
    "redis.call(ARGV[3], KEYS[2], ARGV[1]); "
    "return 1 "
    "else "
    "return 0 "
    "end")

# RedissonCountDownLatch.deleteAsync
LATCH_DELETE = (
    "if redis.call('del', KEYS[1]) == 1 then "
    "redis.call(ARGV[2], KEYS[2], ARGV[1]); "
    "return 1 "
    "else "
    "return 0 "
    "end")


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
