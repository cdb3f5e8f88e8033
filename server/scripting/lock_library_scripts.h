// The Lua scripts real lock libraries send, byte for byte: whitespace included, so each SHA-1 is
// the one the library computes for EVALSHA. Each is copied from the library's own source:
//
//   redis-py 4.x           redis/redis-py redis/lock.py (class Lock) @ 81e4d0bf5134
//   node-redlock v4        mike-marcacci/node-redlock redlock.js, 4.x (lockScript, extendScript,
//                          unlockScript; sent with EVALSHA, then EVAL on NOSCRIPT)
//   @sesamecare-oss/redlock  sesamecare/redlock src/scripts.ts @ 3b13d98 (package 3.6.0; imported
//                          by src/index.ts, registered with ioredis defineCommand)
//   redis-semaphore 5.x    swarthy/redis-semaphore src/mutex/refresh.ts @ 27b0748 and
//                          src/mutex/release.ts @ 44d22e8 (acquire is a plain SET PX NX);
//                          5.8.0's Semaphore, lib/semaphore/acquire/lua.js and refresh/lua.js
//                          as npm ships them (release is a plain ZREM)
//   Redisson 3.52.0        redisson/redisson RedissonLock.java @ 3d8945a (tryLockInnerAsync,
//                          unlockInnerAsync), renewal/LockTask.java (the watchdog's batch
//                          renewal), as tests/clients/python/redisson_lock_scripts.py; and
//                          3.16-3.43's one-lock renewExpirationAsync
//   Spring Integration     spring-projects/spring-integration RedisLockRegistry.java @ 0000434
//                          (obtain, renew, spin and pub/sub unlock), and 5.x's obtain
//   go-redsync v4          go-redsync/redsync mutex.go: early v4 @ ef3eedd (deleteScript,
//                          touchScript); later v4 (deleteScript returning -1 for a missing key,
//                          touchWithSetNXScript), whose SHA-1s the latest scripts.go pins.
//
// warden runs each as native code (native_scripts.h); tests/scripting/native_scripts_test.cc runs
// them both ways, and the differential case file
// tests/differential/cases/scripting_lock_libraries.txt sends them to redis-server 7.0 and warden.
#pragma once

#include <string_view>

namespace warden::server::lock_scripts {

// redis-py 4.x, redis/lock.py, Lock.LUA_RELEASE_SCRIPT.
constexpr std::string_view kRedisPyRelease =
    "\n"
    "        local token = redis.call('get', KEYS[1])\n"
    "        if not token or token ~= ARGV[1] then\n"
    "            return 0\n"
    "        end\n"
    "        redis.call('del', KEYS[1])\n"
    "        return 1\n"
    "    ";

// redis-py 4.x, redis/lock.py, Lock.LUA_EXTEND_SCRIPT.
constexpr std::string_view kRedisPyExtend =
    "\n"
    "        local token = redis.call('get', KEYS[1])\n"
    "        if not token or token ~= ARGV[1] then\n"
    "            return 0\n"
    "        end\n"
    "        local expiration = redis.call('pttl', KEYS[1])\n"
    "        if not expiration then\n"
    "            expiration = 0\n"
    "        end\n"
    "        if expiration < 0 then\n"
    "            return 0\n"
    "        end\n"
    "\n"
    "        local newttl = ARGV[2]\n"
    "        if ARGV[3] == \"0\" then\n"
    "            newttl = ARGV[2] + expiration\n"
    "        end\n"
    "        redis.call('pexpire', KEYS[1], newttl)\n"
    "        return 1\n"
    "    ";

// redis-py 4.x, redis/lock.py, Lock.LUA_REACQUIRE_SCRIPT.
constexpr std::string_view kRedisPyReacquire =
    "\n"
    "        local token = redis.call('get', KEYS[1])\n"
    "        if not token or token ~= ARGV[1] then\n"
    "            return 0\n"
    "        end\n"
    "        redis.call('pexpire', KEYS[1], ARGV[2])\n"
    "        return 1\n"
    "    ";

// node-redlock v4, redlock.js, lockScript.
constexpr std::string_view kRedlock4Lock =
    "\n"
    "\t-- Return 0 if an entry already exists.\n"
    "\tfor i, key in ipairs(KEYS) do\n"
    "\t\tif redis.call(\"exists\", key) == 1 then\n"
    "\t\t\treturn 0\n"
    "\t\tend\n"
    "\tend\n"
    "\n"
    "\t-- Create an entry for each provided key.\n"
    "\tfor i, key in ipairs(KEYS) do\n"
    "\t\tredis.call(\"set\", key, ARGV[1], \"PX\", ARGV[2])\n"
    "\tend\n"
    "\n"
    "\t-- Return the number of entries added.\n"
    "\treturn #KEYS\n";

// node-redlock v4, redlock.js, extendScript.
constexpr std::string_view kRedlock4Extend =
    "\n"
    "\t-- Return 0 if an entry exists with a *different* lock value.\n"
    "\tfor i, key in ipairs(KEYS) do\n"
    "\t\tif redis.call(\"get\", key) ~= ARGV[1] then\n"
    "\t\t\treturn 0\n"
    "\t\tend\n"
    "\tend\n"
    "\n"
    "\t-- Update the entry for each provided key.\n"
    "\tfor i, key in ipairs(KEYS) do\n"
    "\t\tredis.call(\"set\", key, ARGV[1], \"PX\", ARGV[2])\n"
    "\tend\n"
    "\n"
    "\t-- Return the number of entries updated.\n"
    "\treturn #KEYS\n";

// node-redlock v4, redlock.js, unlockScript.
constexpr std::string_view kRedlock4Unlock =
    "\n"
    "\tlocal count = 0\n"
    "\tfor i, key in ipairs(KEYS) do\n"
    "\t\t-- Only remove entries for *this* lock value.\n"
    "\t\tif redis.call(\"get\", key) == ARGV[1] then\n"
    "\t\t\tredis.pcall(\"del\", key)\n"
    "\t\t\tcount = count + 1\n"
    "\t\tend\n"
    "\tend\n"
    "\n"
    "\t-- Return the number of entries removed.\n"
    "\treturn count\n";

// @sesamecare-oss/redlock, src/scripts.ts, ACQUIRE_SCRIPT.
constexpr std::string_view kSesameAcquire =
    "\n"
    "  -- Return 0 if an entry already exists.\n"
    "  for i, key in ipairs(KEYS) do\n"
    "    if redis.call(\"exists\", key) == 1 then\n"
    "      return 0\n"
    "    end\n"
    "  end\n"
    "\n"
    "  -- Create an entry for each provided key.\n"
    "  for i, key in ipairs(KEYS) do\n"
    "    redis.call(\"set\", key, ARGV[1], \"PX\", ARGV[2])\n"
    "  end\n"
    "\n"
    "  -- Return the number of entries added.\n"
    "  return #KEYS\n";

// @sesamecare-oss/redlock, src/scripts.ts, EXTEND_SCRIPT.
constexpr std::string_view kSesameExtend =
    "\n"
    "  -- Return 0 if an entry exists with a *different* lock value.\n"
    "  for i, key in ipairs(KEYS) do\n"
    "    if redis.call(\"get\", key) ~= ARGV[1] then\n"
    "      return 0\n"
    "    end\n"
    "  end\n"
    "\n"
    "  -- Update the entry for each provided key.\n"
    "  for i, key in ipairs(KEYS) do\n"
    "    redis.call(\"set\", key, ARGV[1], \"PX\", ARGV[2])\n"
    "  end\n"
    "\n"
    "  -- Return the number of entries updated.\n"
    "  return #KEYS\n";

// @sesamecare-oss/redlock, src/scripts.ts, RELEASE_SCRIPT.
constexpr std::string_view kSesameRelease =
    "\n"
    "  local count = 0\n"
    "  for i, key in ipairs(KEYS) do\n"
    "    -- Only remove entries for *this* lock value.\n"
    "    if redis.call(\"get\", key) == ARGV[1] then\n"
    "      redis.pcall(\"del\", key)\n"
    "      count = count + 1\n"
    "    end\n"
    "  end\n"
    "\n"
    "  -- Return the number of entries removed.\n"
    "  return count\n";

// redis-semaphore 5.x, src/mutex/refresh.ts, expireIfEqualLua.
constexpr std::string_view kSemaphoreRefresh =
    "\n"
    "  local key = KEYS[1]\n"
    "  local identifier = ARGV[1]\n"
    "  local lockTimeout = ARGV[2]\n"
    "\n"
    "  local value = redis.call('get', key)\n"
    "\n"
    "  if value == identifier then\n"
    "    redis.call('pexpire', key, lockTimeout)\n"
    "    return 1\n"
    "  end\n"
    "\n"
    "  return 0\n"
    "  ";

// redis-semaphore 5.x, src/mutex/release.ts, delIfEqualLua.
constexpr std::string_view kSemaphoreRelease =
    "\n"
    "  local key = KEYS[1]\n"
    "  local identifier = ARGV[1]\n"
    "\n"
    "  if redis.call('get', key) == identifier then\n"
    "    return redis.call('del', key)\n"
    "  end\n"
    "\n"
    "  return 0\n"
    "  ";

// redis-semaphore 5.8.0, lib/semaphore/acquire/lua.js (Semaphore.acquire): drop the holders
// older than lockTimeout, then join if fewer than `limit` remain.
constexpr std::string_view kSemaphoreAcquire =
    "\n"
    "  local key = KEYS[1]\n"
    "  local limit = tonumber(ARGV[1])\n"
    "  local identifier = ARGV[2]\n"
    "  local lockTimeout = tonumber(ARGV[3])\n"
    "  local now = tonumber(ARGV[4])\n"
    "  local expiredTimestamp = now - lockTimeout\n"
    "\n"
    "  redis.call('zremrangebyscore', key, '-inf', expiredTimestamp)\n"
    "\n"
    "  if redis.call('zcard', key) < limit then\n"
    "    redis.call('zadd', key, now, identifier)\n"
    "    redis.call('pexpire', key, lockTimeout)\n"
    "    return 1\n"
    "  else\n"
    "    return 0\n"
    "  end";

// redis-semaphore 5.8.0, lib/semaphore/refresh/lua.js (Semaphore.refresh): the same cleanup,
// then a holder still present renews its place.
constexpr std::string_view kSemaphoreRefreshHolder =
    "\n"
    "  local key = KEYS[1]\n"
    "  local limit = tonumber(ARGV[1])\n"
    "  local identifier = ARGV[2]\n"
    "  local lockTimeout = tonumber(ARGV[3])\n"
    "  local now = tonumber(ARGV[4])\n"
    "  local expiredTimestamp = now - lockTimeout\n"
    "\n"
    "  redis.call('zremrangebyscore', key, '-inf', expiredTimestamp)\n"
    "\n"
    "  if redis.call('zscore', key, identifier) then\n"
    "    redis.call('zadd', key, now, identifier)\n"
    "    redis.call('pexpire', key, lockTimeout)\n"
    "    return 1\n"
    "  else\n"
    "    return 0\n"
    "  end";

// go-redsync v4 (early), mutex.go, deleteScript.
constexpr std::string_view kRedsyncDeleteEarly =
    "\n"
    "\tif redis.call(\"GET\", KEYS[1]) == ARGV[1] then\n"
    "\t\treturn redis.call(\"DEL\", KEYS[1])\n"
    "\telse\n"
    "\t\treturn 0\n"
    "\tend\n";

// go-redsync v4, mutex.go, touchScript.
constexpr std::string_view kRedsyncTouch =
    "\n"
    "\tif redis.call(\"GET\", KEYS[1]) == ARGV[1] then\n"
    "\t\treturn redis.call(\"PEXPIRE\", KEYS[1], ARGV[2])\n"
    "\telse\n"
    "\t\treturn 0\n"
    "\tend\n";

// go-redsync v4 (later), mutex.go, deleteScript.
constexpr std::string_view kRedsyncDelete =
    "\n"
    "\tlocal val = redis.call(\"GET\", KEYS[1])\n"
    "\tif val == ARGV[1] then\n"
    "\t\treturn redis.call(\"DEL\", KEYS[1])\n"
    "\telseif val == false then\n"
    "\t\treturn -1\n"
    "\telse\n"
    "\t\treturn 0\n"
    "\tend\n";

// go-redsync v4 (later), mutex.go, touchWithSetNXScript.
constexpr std::string_view kRedsyncTouchWithSetNx =
    "\n"
    "\tif redis.call(\"GET\", KEYS[1]) == ARGV[1] then\n"
    "\t\treturn redis.call(\"PEXPIRE\", KEYS[1], ARGV[2])\n"
    "\telseif redis.call(\"SET\", KEYS[1], ARGV[1], \"PX\", ARGV[2], \"NX\") then\n"
    "\t\treturn 1\n"
    "\telse\n"
    "\t\treturn 0\n"
    "\tend\n";

// Redisson 3.52.0, RedissonLock.java, tryLockInnerAsync (RLock's acquire and re-entry).
constexpr std::string_view kRedissonTryLock =
    "if ((redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) "
    "then redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); "
    "return nil; end; return redis.call('pttl', KEYS[1]);";

// Redisson 3.52.0, RedissonLock.java, unlockInnerAsync (with its unlock latch, KEYS[3]).
constexpr std::string_view kRedissonUnlock =
    "local val = redis.call('get', KEYS[3]); if val ~= false then return tonumber(val);end; if "
    "(redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil;end; local counter = "
    "redis.call('hincrby', KEYS[1], ARGV[3], -1); if (counter > 0) then redis.call('pexpire', "
    "KEYS[1], ARGV[2]); redis.call('set', KEYS[3], 0, 'px', ARGV[5]); return 0; else "
    "redis.call('del', KEYS[1]); redis.call(ARGV[4], KEYS[2], ARGV[1]); redis.call('set', KEYS[3], "
    "1, 'px', ARGV[5]); return 1; end; ";

// Redisson 3.52.0, renewal/LockTask.java, renew: the watchdog, every lockWatchdogTimeout / 3,
// for up to lockWatchdogBatchSize (100) locks at once.
constexpr std::string_view kRedissonRenewBatch =
    "local result = {} for i = 1, #KEYS, 1 do if (redis.call('hexists', KEYS[i], ARGV[i + 1]) == "
    "1) then redis.call('pexpire', KEYS[i], ARGV[1]); table.insert(result, 1); else "
    "table.insert(result, 0); end; end; return result;";

// Redisson 3.16-3.43, RedissonBaseLock.java, renewExpirationAsync: the watchdog before 3.44, one
// lock per call.
constexpr std::string_view kRedissonRenew =
    "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then redis.call('pexpire', KEYS[1], "
    "ARGV[1]); return 1; end; return 0;";

// Spring Integration 6.x and 7.x, spring-projects/spring-integration
// spring-integration-redis/.../redis/util/RedisLockRegistry.java @ 0000434 (Java text blocks,
// so one tab of indentation is left and each ends in a newline): RedisLock.OBTAIN_LOCK_SCRIPT.
constexpr std::string_view kSpringObtain =
    "local lockClientId = redis.call('GET', KEYS[1])\n"
    "if lockClientId == ARGV[1] then\n"
    "\tredis.call('PEXPIRE', KEYS[1], ARGV[2])\n"
    "\treturn true\n"
    "elseif not lockClientId then\n"
    "\tredis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])\n"
    "\treturn true\n"
    "end\n"
    "return false\n";

// Spring Integration, RedisLockRegistry.java, RedisLock.RENEW_SCRIPT.
constexpr std::string_view kSpringRenew =
    "if (redis.call('GET', KEYS[1]) == ARGV[1]) then\n"
    "\tredis.call('PEXPIRE', KEYS[1], ARGV[2])\n"
    "\treturn true\n"
    "end\n"
    "return false\n";

// Spring Integration, RedisLockRegistry.java, RedisSpinLock.UNLINK_UNLOCK_SCRIPT (the default
// lock type).
constexpr std::string_view kSpringSpinUnlock =
    "local lockClientId = redis.call('GET', KEYS[1])\n"
    "if lockClientId == ARGV[1] then\n"
    "\tredis.call('UNLINK', KEYS[1])\n"
    "\treturn true\n"
    "end\n"
    "return false\n";

// Spring Integration, RedisLockRegistry.java, RedisPubSubLock.UNLINK_UNLOCK_SCRIPT.
constexpr std::string_view kSpringPubSubUnlock =
    "local lockClientId = redis.call('GET', KEYS[1])\n"
    "if (lockClientId == ARGV[1] and redis.call('UNLINK', KEYS[1]) == 1) then\n"
    "\tredis.call('PUBLISH', ARGV[2], KEYS[1])\n"
    "\treturn true\n"
    "end\n"
    "return false\n";

// Further texts of the same scripts (each a different SHA-1, so each is listed):

// the redis-cli lock lesson (../shared/seeds), compare-and-delete.
constexpr std::string_view kLessonRedisCli =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 "
    "end";

// the Node.js lock lesson (../shared/seeds), compare-and-delete as its template literal.
constexpr std::string_view kLessonNode =
    "\n"
    "if redis.call('get', KEYS[1]) == ARGV[1] then\n"
    "return redis.call('del', KEYS[1])\n"
    "else\n"
    "return 0\n"
    "end";

// the SET page of the Redis documentation, its unlock example.
constexpr std::string_view kRedisDocsUnlock =
    "if redis.call(\"get\",KEYS[1]) == ARGV[1]\n"
    "then\n"
    "    return redis.call(\"del\",KEYS[1])\n"
    "else\n"
    "    return 0\n"
    "end";

// Elixir redlock, lib/redlock/command.ex, @helper_script.
constexpr std::string_view kElixirRedlockUnlock =
    "if redis.call(\"get\",KEYS[1]) == ARGV[1] then\n"
    "return redis.call(\"del\",KEYS[1])\n"
    "else\n"
    "return 0\n"
    "end\n";

// compare-and-delete on one line, double quotes (bench/lockcycle.c, many blog posts).
constexpr std::string_view kOneLineUnlockDouble =
    "if redis.call(\"get\",KEYS[1]) == ARGV[1] then return redis.call(\"del\",KEYS[1]) else return "
    "0 end";

// compare-and-delete on one line, single quotes (Jedis and Spring examples).
constexpr std::string_view kOneLineUnlockSingle =
    "if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('del',KEYS[1]) else return 0 "
    "end";

// compare-and-delete on one line, single quotes and spaces (tests/clients/node/helpers.mjs).
constexpr std::string_view kOneLineUnlockSpaced =
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 "
    "end";

// node-redlock v3, redlock.js, unlockScript.
constexpr std::string_view kRedlock3Unlock =
    "if redis.call(\"get\", KEYS[1]) == ARGV[1] then return redis.call(\"del\", KEYS[1]) else "
    "return 0 end";

// compare-and-pexpire on one line, double quotes (bench/lockcycle.c).
constexpr std::string_view kOneLineExtendDouble =
    "if redis.call(\"get\",KEYS[1]) == ARGV[1] then return redis.call(\"pexpire\",KEYS[1],ARGV[2]) "
    "else return 0 end";

// compare-and-pexpire on one line, single quotes.
constexpr std::string_view kOneLineExtendSingle =
    "if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('pexpire',KEYS[1],ARGV[2]) "
    "else return 0 end";

// compare-and-pexpire on one line, single quotes and spaces (tests/clients/node/helpers.mjs).
constexpr std::string_view kOneLineExtendSpaced =
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) "
    "else return 0 end";

// node-redlock v3, redlock.js, extendScript.
constexpr std::string_view kRedlock3Extend =
    "if redis.call(\"get\", KEYS[1]) == ARGV[1] then return redis.call(\"pexpire\", KEYS[1], "
    "ARGV[2]) else return 0 end";

// @sesamecare-oss/redlock 1.4, build/scripts.js, ACQUIRE_SCRIPT (DB_SELECT_SCRIPT inlined).
constexpr std::string_view kSesame14Acquire =
    "\n"
    "  \n"
    "  -- Protected call to execute SELECT command if supported\n"
    "  redis.pcall(\"SELECT\", tonumber(ARGV[1]))\n"
    "\n"
    "\n"
    "  -- Return 0 if an entry already exists.\n"
    "  for i, key in ipairs(KEYS) do\n"
    "    if redis.call(\"exists\", key) == 1 then\n"
    "      return 0\n"
    "    end\n"
    "  end\n"
    "\n"
    "  -- Create an entry for each provided key.\n"
    "  for i, key in ipairs(KEYS) do\n"
    "    redis.call(\"set\", key, ARGV[2], \"PX\", ARGV[3])\n"
    "  end\n"
    "\n"
    "  -- Return the number of entries added.\n"
    "  return #KEYS\n";

// @sesamecare-oss/redlock 1.4, build/scripts.js, EXTEND_SCRIPT.
constexpr std::string_view kSesame14Extend =
    "\n"
    "  \n"
    "  -- Protected call to execute SELECT command if supported\n"
    "  redis.pcall(\"SELECT\", tonumber(ARGV[1]))\n"
    "\n"
    "\n"
    "  -- Return 0 if an entry exists with a *different* lock value.\n"
    "  for i, key in ipairs(KEYS) do\n"
    "    if redis.call(\"get\", key) ~= ARGV[2] then\n"
    "      return 0\n"
    "    end\n"
    "  end\n"
    "\n"
    "  -- Update the entry for each provided key.\n"
    "  for i, key in ipairs(KEYS) do\n"
    "    redis.call(\"set\", key, ARGV[2], \"PX\", ARGV[3])\n"
    "  end\n"
    "\n"
    "  -- Return the number of entries updated.\n"
    "  return #KEYS\n";

// @sesamecare-oss/redlock 1.4, build/scripts.js, RELEASE_SCRIPT.
constexpr std::string_view kSesame14Release =
    "\n"
    "  \n"
    "  -- Protected call to execute SELECT command if supported\n"
    "  redis.pcall(\"SELECT\", tonumber(ARGV[1]))\n"
    "\n"
    "\n"
    "  local count = 0\n"
    "  for i, key in ipairs(KEYS) do\n"
    "    -- Only remove entries for *this* lock value.\n"
    "    if redis.call(\"get\", key) == ARGV[2] then\n"
    "      redis.pcall(\"del\", key)\n"
    "      count = count + 1\n"
    "    end\n"
    "  end\n"
    "\n"
    "  -- Return the number of entries removed.\n"
    "  return count\n";

// Spring Integration 5.x, RedisLockRegistry.java, OBTAIN_LOCK_SCRIPT as a concatenation of
// "...\n" strings (before the text blocks of 6.0).
constexpr std::string_view kSpring5Obtain =
    "local lockClientId = redis.call('GET', KEYS[1])\n"
    "if lockClientId == ARGV[1] then\n"
    "  redis.call('PEXPIRE', KEYS[1], ARGV[2])\n"
    "  return true\n"
    "elseif not lockClientId then\n"
    "  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])\n"
    "  return true\n"
    "end\n"
    "return false";

}  // namespace warden::server::lock_scripts
