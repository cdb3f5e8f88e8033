"""Redisson's lock scripts, verbatim (Java's "..." + "..." concatenation kept line for line):
RLock, RFairLock, RReadWriteLock and RFencedLock, for redisson_replay.py.

Source: https://github.com/redisson/redisson, tag redisson-3.52.0
(commit 3d8945a7225a8909f5ffa8000e81dab193760e43), under
redisson/src/main/java/org/redisson/:
  RedissonLock.java (tryLockInnerAsync, unlockInnerAsync, forceUnlockAsync),
  renewal/LockTask.java and renewal/ReadLockTask.java (the watchdog: one script renews up to
  lockWatchdogBatchSize = 100 locks; since 3.44.0 this replaces the per-lock
  renewExpirationAsync), RedissonFairLock.java, RedissonReadLock.java, RedissonWriteLock.java,
  RedissonFencedLock.java.
"""

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
