"""Redisson's synchronizer scripts, verbatim (Java's "..." + "..." concatenation kept line for
line): RSemaphore, RPermitExpirableSemaphore and RCountDownLatch, for redisson_replay.py.

Source: https://github.com/redisson/redisson, tag redisson-3.52.0
(commit 3d8945a7225a8909f5ffa8000e81dab193760e43), under
redisson/src/main/java/org/redisson/:
  RedissonSemaphore.java, RedissonPermitExpirableSemaphore.java, RedissonCountDownLatch.java.
"""

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
